//! RM-Bench (THU-KEG/RM-Bench): does a judge prefer style over substance? Each prompt has
//! three chosen and three rejected responses, in the order concise, detailed plain, detailed
//! markdown. Its rows (`id, subset, prompt, chosen, rejected`, the two lists of three) are
//! recognized by that shape; a prompt becomes nine pairs, chosen style i against rejected
//! style j, each a pair of its own (`{subset}-{id}:c{i}r{j}`), so every judge, cache, batch
//! and report of pairs serves it, and `evaluation::rmbench` reads the 3×3 matrix back from
//! the pair ids.

use super::frame::Frame;
use super::pairs::Pair;
use super::select::Selectable;
use crate::error::input_error;
use anyhow::Result;
use polars::prelude::DataType;

/// The three styles, in RM-Bench's order (rows: chosen, columns: rejected).
pub const STYLES: [&str; 3] = ["concise", "detailed plain", "detailed markdown"];

/// RM-Bench's four domains, in its order.
pub const DOMAINS: [&str; 4] = ["chat", "math", "code", "safety"];

/// A subset's domain, as RM-Bench groups its subsets: alpacaeval → chat, math-prm → math,
/// hep-* and humanevalpack → code, xstest-*, refusals-* and donotanswer → safety. A name with
/// an organisation part (RM-Bench's code file names its subset `bigcode/humanevalpack`) is
/// read by its parts, first the whole, then each part between slashes; a row whose `domain`
/// field decides (`from_frame`) is named `{domain}/{subset}`.
pub fn domain_of(subset: &str) -> Option<&'static str> {
    domain_of_name(subset).or_else(|| subset.split('/').find_map(domain_of_name))
}

fn domain_of_name(subset: &str) -> Option<&'static str> {
    let s = subset.to_ascii_lowercase();
    if s.starts_with("alpacaeval") || s == "chat" {
        Some("chat")
    } else if s.starts_with("math") {
        Some("math")
    } else if s.starts_with("hep-") || s.starts_with("humanevalpack") || s == "code" {
        Some("code")
    } else if s.starts_with("xstest")
        || s.starts_with("refusals")
        || s.starts_with("donotanswer")
        || s.starts_with("safety")
    {
        Some("safety")
    } else {
        None
    }
}

/// One RM-Bench prompt with its six responses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RmPrompt {
    /// `{subset}-{id}`, unique in the data.
    pub id: String,
    pub subset: String,
    pub prompt: String,
    pub chosen: [String; 3],
    pub rejected: [String; 3],
}

impl Selectable for RmPrompt {
    fn subset(&self) -> &str {
        &self.subset
    }
    fn id(&self) -> &str {
        &self.id
    }
}

/// Whether a frame is in RM-Bench's shape: `chosen` and `rejected` lists (of three, checked
/// when read) and no `num_correct` (RewardBench 2's rows have one).
pub fn is_rmbench(frame: &Frame) -> bool {
    let list = |name: &str| {
        frame
            .df
            .column(name)
            .is_ok_and(|c| matches!(c.dtype(), DataType::List(_)))
    };
    list("chosen") && list("rejected") && frame.df.column("num_correct").is_err()
}

/// The prompts of an RM-Bench frame, every shape checked: three chosen and three rejected
/// texts, a known domain, a unique id.
pub fn from_frame(frame: &Frame) -> Result<Vec<RmPrompt>> {
    let path = frame.path.display().to_string();
    for name in ["id", "subset", "prompt"] {
        if frame.df.column(name).is_err() {
            return Err(input_error(format!(
                "'{path}' looks like RM-Bench (chosen and rejected lists of three) but has no column '{name}' (columns found: {}); RM-Bench rows have id, subset, prompt, chosen, rejected",
                frame.column_names().join(", ")
            )));
        }
    }
    let ids = frame.text("id", "--map", "id")?;
    let subsets = frame.text("subset", "--map", "subset")?;
    // RM-Bench's own split (`split_dataset_by_domain`) reads a row's `domain` field: the first
    // of its four domains the field starts with; a row without one is read by its subset.
    let domains = match frame.df.column("domain") {
        Ok(_) => Some(frame.optional_text("domain", "domain", "domain")?),
        Err(_) => None,
    };
    let prompts = frame.text("prompt", "--map", "prompt")?;
    let chosen = super::rewardbench2::lists(frame, "chosen")?;
    let rejected = super::rewardbench2::lists(frame, "rejected")?;
    let mut out = Vec::with_capacity(ids.len());
    for (row, (((id, subset), prompt), (c, r))) in ids
        .into_iter()
        .zip(subsets)
        .zip(prompts)
        .zip(chosen.into_iter().zip(rejected))
        .enumerate()
    {
        let three = |name: &str, list: Vec<String>| -> Result<[String; 3]> {
            let n = list.len();
            list.try_into().map_err(|_| {
                input_error(format!(
                    "'{path}', column '{name}', row {} (id '{id}'): {n} responses; RM-Bench rows hold three, in the order {} (a RewardBench 2 file, whose lists may be of any length, needs its num_correct and num_incorrect columns)",
                    row + 1,
                    STYLES.join(", ")
                ))
            })
        };
        let field = domains.as_ref().and_then(|d| d[row].as_deref());
        let subset = match field {
            Some(field) => {
                let Some(domain) = DOMAINS.iter().find(|d| field.starts_with(**d)) else {
                    return Err(input_error(format!(
                        "'{path}', column 'domain', row {} (id '{id}'): '{field}' starts with none of RM-Bench's domains ({}); RM-Bench splits its rows by that prefix",
                        row + 1,
                        DOMAINS.join(", ")
                    )));
                };
                if domain_of(&subset) == Some(domain) {
                    subset
                } else {
                    format!("{domain}/{subset}")
                }
            }
            None => subset,
        };
        if domain_of(&subset).is_none() {
            return Err(input_error(format!(
                "'{path}', column 'subset', row {} (id '{id}'): '{subset}' is none of RM-Bench's subsets, so its domain is unknown; RM-Bench's are alpacaeval (chat), math-prm (math), hep-*, humanevalpack and bigcode/humanevalpack (code), xstest-*, refusals-* and donotanswer (safety), or give each row a 'domain' field as RM-Bench's own files do",
                row + 1
            )));
        }
        out.push(RmPrompt {
            id: format!("{subset}-{id}"),
            chosen: three("chosen", c)?,
            rejected: three("rejected", r)?,
            subset,
            prompt,
        });
    }
    let keys: Vec<String> = out.iter().map(|p| p.id.clone()).collect();
    crate::dataset::pairs::check_unique_ids(&frame.path, &keys)?;
    Ok(out)
}

/// The nine pairs of each prompt: chosen style i against rejected style j (gold: the chosen
/// one), positions drawn from the seed as for any chosen/rejected pair.
pub fn pairs(prompts: Vec<RmPrompt>) -> Vec<Pair> {
    let mut out = Vec::with_capacity(prompts.len() * 9);
    for p in prompts {
        for i in 0..3 {
            for j in 0..3 {
                out.push(Pair {
                    id: format!("{}:c{i}r{j}", p.id),
                    subset: p.subset.clone(),
                    prompt: p.prompt.clone(),
                    first: p.chosen[i].clone(),
                    second: p.rejected[j].clone(),
                    gold: Some(-1),
                    reference: None,
                    randomize: true,
                    votes: Vec::new(),
                    vote_order: Vec::new(),
                    generators: None,
                    history: Vec::new(),
                });
            }
        }
    }
    out
}

/// A pair id's prompt and cell: `{prompt}:c{i}r{j}` → (prompt, i, j).
pub fn cell(pair_id: &str) -> Option<(&str, usize, usize)> {
    let (prompt, tail) = pair_id.rsplit_once(':')?;
    let b = tail.as_bytes();
    if b.len() != 4 || b[0] != b'c' || b[2] != b'r' {
        return None;
    }
    let digit = |x: u8| (b'0'..=b'2').contains(&x).then(|| usize::from(x - b'0'));
    Some((prompt, digit(b[1])?, digit(b[3])?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsets_fall_into_rm_benchs_domains() {
        assert_eq!(domain_of("alpacaeval"), Some("chat"));
        assert_eq!(domain_of("math-prm"), Some("math"));
        assert_eq!(domain_of("hep-python"), Some("code"));
        assert_eq!(domain_of("humanevalpack-js"), Some("code"));
        // RM-Bench's code file, and a row named by its domain field.
        assert_eq!(domain_of("bigcode/humanevalpack"), Some("code"));
        assert_eq!(domain_of("code/anything"), Some("code"));
        assert_eq!(domain_of("bigcode/llmbar"), None);
        assert_eq!(domain_of("xstest-should-refuse"), Some("safety"));
        assert_eq!(domain_of("refusals-dangerous"), Some("safety"));
        assert_eq!(domain_of("donotanswer"), Some("safety"));
        assert_eq!(domain_of("llmbar-natural"), None);
    }

    #[test]
    fn a_pair_id_names_its_cell() {
        assert_eq!(cell("alpacaeval-8:c0r2"), Some(("alpacaeval-8", 0, 2)));
        assert_eq!(cell("a:b-1:c2r1"), Some(("a:b-1", 2, 1)));
        assert_eq!(cell("alpacaeval-8"), None);
        assert_eq!(cell("x:c3r0"), None);
    }
}
