//! `plan --active`: the judged items and the pilot read, and the plan made
//! (`evaluation::active`); `plan` writes it as the table `label --queue` reads.

use crate::dataset::frame::{self, Frame};
use crate::error::input_error;
use crate::evaluation::active::{self, ActivePlan};
use crate::run::labelling::ActiveRequest;
use anyhow::Result;

/// The ids of a table's rows: `col`, else an `id` column, else the row numbers from 1.
pub fn ids(frame: &Frame, col: Option<&str>, flag: &str) -> Result<Vec<String>> {
    let ids = match col {
        Some(col) => frame.text(col, flag, "item id")?,
        None if frame.column_names().iter().any(|c| c == "id") => {
            frame.text("id", flag, "item id")?
        }
        None => (1..=frame.height()).map(|r| r.to_string()).collect(),
    };
    frame.check_unique(&ids, col.unwrap_or("id"))?;
    Ok(ids)
}

/// The plan (the command writes it to `--out` when asked).
pub fn plan(req: &ActiveRequest, seed: u64) -> Result<ActivePlan> {
    let input = frame::read(&req.input)?;
    let ids = ids(&input, req.id_col.as_deref(), "--id-col")?;
    let p = input.every(
        &req.probability,
        input.probabilities(&req.probability, "--probability")?,
        "--active needs the judge's probability on every row",
    )?;
    if p.is_empty() {
        return Err(input_error(format!(
            "--input '{}' has no rows: give the items the judge rated",
            req.input.display()
        )));
    }
    let pilot = frame::read(&req.pilot)?;
    let gold = pilot.mapped_labels_or_missing(&req.gold_col, "--gold-col", &req.gold)?;
    let pilot_p = pilot.probabilities(&req.probability, "--probability")?;
    let (mut y, mut yp) = (Vec::new(), Vec::new());
    for (row, (g, q)) in gold.iter().zip(&pilot_p).enumerate() {
        match (g, q) {
            (Some(g), Some(q)) => {
                // The outcome is label 1 (p is the judge's probability of it).
                y.push(f64::from(u8::from(*g == 1)));
                yp.push(*q);
            }
            (Some(_), None) => {
                return Err(input_error(format!(
                    "{}: a pilot row with gold needs the judge's probability",
                    pilot.at(&req.probability, row)
                )))
            }
            _ => {}
        }
    }
    if y.is_empty() {
        return Err(input_error(format!(
            "--pilot '{}': no row has gold in '{}'; τ is tuned on items with gold and the judge's probability",
            req.pilot.display(),
            req.gold_col
        )));
    }
    let n = p.len() as f64;
    let budget = if req.budget <= 1.0 {
        req.budget
    } else if req.budget <= n {
        req.budget / n
    } else {
        return Err(input_error(format!(
            "--budget {}: more labels than the {} items; give at most {n} (or a share up to 1)",
            req.budget,
            p.len()
        )));
    };
    Ok(active::plan(&ids, &p, (&y, &yp), budget, seed))
}
