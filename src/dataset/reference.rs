//! `--reference FILE --reference-map model=COL,score=COL`: a table of model scores (Chatbot
//! Arena's Elo, a published leaderboard) to compare a judge's ranking of models with. Column
//! names match with their white space folded, so `score="Arena Elo [Feb 2, 2024]"` names
//! AlpacaEval's header cell "Arena Elo\n[Feb 2, 2024]". Rows without a score are left out.

use super::frame;
use crate::error::input_error;
use anyhow::Result;
use std::path::Path;

fn folded(name: &str) -> String {
    name.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `model=COL,score=COL` → (model column, score column). Items split at a comma that starts
/// `model=` or `score=`, so a column name may hold commas ("Arena Elo [Feb 2, 2024]").
pub fn parse_map(map: &[String]) -> Result<(String, String)> {
    let (mut model, mut score) = (None, None);
    let mut items: Vec<String> = Vec::new();
    for text in map {
        let mut rest = text.as_str();
        loop {
            let cut = [",model=", ",score="]
                .iter()
                .filter_map(|k| rest.find(k))
                .min();
            match cut {
                Some(at) => {
                    items.push(rest[..at].to_string());
                    rest = &rest[at + 1..];
                }
                None => {
                    items.push(rest.to_string());
                    break;
                }
            }
        }
    }
    for item in &items {
        match item.split_once('=') {
            Some(("model", c)) => model = Some(c.to_string()),
            Some(("score", c)) => score = Some(c.to_string()),
            _ => {
                return Err(input_error(format!(
                    "--reference-map '{item}': expected model=COL or score=COL, e.g. --reference-map model=Model,score=arena_elo"
                )))
            }
        }
    }
    match (model, score) {
        (Some(m), Some(s)) => Ok((m, s)),
        _ => Err(input_error(
            "--reference-map needs both model=COL and score=COL, e.g. --reference-map model=model,score=arena_elo",
        )),
    }
}

/// The (model, score) rows of a reference table.
pub fn read(path: &Path, (model, score): (&str, &str)) -> Result<Vec<(String, f64)>> {
    let table = frame::read(path)?;
    let names = table.column_names();
    let find = |wanted: &str| -> Result<String> {
        names
            .iter()
            .find(|n| folded(n) == folded(wanted))
            .cloned()
            .ok_or_else(|| {
                input_error(format!(
                    "'{}' has no column '{wanted}' (columns: {}); name the model and score columns with --reference-map model=COL,score=COL",
                    path.display(),
                    names.iter().map(|n| folded(n)).collect::<Vec<_>>().join(", ")
                ))
            })
    };
    let (model, score) = (find(model)?, find(score)?);
    let models = table.optional_text(&model, &model, "model")?;
    let scores = table.optional_text(&score, &score, "score")?;
    let mut out = Vec::new();
    for (row, (m, s)) in models.into_iter().zip(scores).enumerate() {
        let (Some(m), Some(s)) = (m, s.filter(|s| !s.trim().is_empty())) else {
            continue;
        };
        let value: f64 = s.trim().parse().map_err(|_| {
            input_error(format!(
                "{}: '{s}' is not a number; a reference score is a number (leave the cell empty for a model without one)",
                table.at(&score, row)
            ))
        })?;
        if out.iter().any(|(n, _): &(String, f64)| *n == m) {
            return Err(input_error(format!(
                "{}: model '{m}' has a second score; give each model one row",
                table.at(&model, row)
            )));
        }
        out.push((m, value));
    }
    if out.is_empty() {
        return Err(input_error(format!(
            "'{}': no row has both a model and a score in '{score}'",
            path.display()
        )));
    }
    Ok(out)
}
