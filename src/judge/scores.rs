//! A judge that answers pointwise calls from a file of per-response scores (a reward model's
//! outputs, see `dataset::scores`): matched by the prompt and response texts, or by the pair
//! id and side. It sends nothing, costs nothing and never sees the order.

use super::{Call, CallError, CallFuture, Completion, Judge};
use crate::dataset::scores::ScoreTable;
use std::path::PathBuf;

#[derive(Debug)]
pub struct Scores {
    pub path: PathBuf,
    pub table: ScoreTable,
}

impl Scores {
    /// The score of the response a call grades: `Ok(None)` when the file leaves it empty.
    fn lookup(&self, call: &Call) -> Result<Option<f64>, CallError> {
        let item = &call.item;
        let text = item.graded_text().ok_or_else(|| {
            CallError::NoRecording("a scores file grades single responses (pointwise)".into())
        })?;
        if let Some(s) = self
            .table
            .by_text
            .get(&(item.prompt.clone(), text.to_string()))
            .or_else(|| self.table.by_text.get(&(String::new(), text.to_string())))
        {
            return Ok(*s);
        }
        let first = item.graded_is_first_in_source().unwrap_or(true);
        if let Some(s) = self.table.by_side.get(&(item.pair_id.clone(), first)) {
            return Ok(*s);
        }
        Err(CallError::NoRecording(format!(
            "no score for the {} response of pair {} in {}",
            if first { "first" } else { "second" },
            item.pair_id,
            self.path.display()
        )))
    }
}

impl Judge for Scores {
    fn describe(&self) -> String {
        format!("scores:{}", self.path.display())
    }
    fn is_order_blind(&self) -> bool {
        true
    }
    fn complete<'a>(&'a self, call: &'a Call) -> CallFuture<'a> {
        Box::pin(async move {
            let text = match self.lookup(call)? {
                Some(score) => format!("{score}"),
                None => "(no score in the file)".to_string(),
            };
            Ok(Completion::free(text))
        })
    }
}
