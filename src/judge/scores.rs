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
        if let Some(s) =
            (self.table.of_text(&item.prompt, text)).or_else(|| self.table.of_text("", text))
        {
            return Ok(s);
        }
        let first = item.graded_is_first_in_source().unwrap_or(true);
        if let Some(s) = self.table.of_side(&item.pair_id, first) {
            return Ok(s);
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
    fn answers_none_of(&self, items: &[crate::dataset::examples::Example]) -> Option<String> {
        let t = &self.table;
        let scored = |e: &crate::dataset::examples::Example, text: &str, first: bool| {
            t.of_text(&e.prompt, text).is_some()
                || t.of_text("", text).is_some()
                || t.of_side(&e.pair_id, first).is_some()
        };
        let any = items
            .iter()
            .any(|e| scored(e, &e.response1, true) || scored(e, &e.response2, false));
        (!any && !items.is_empty()).then(|| {
            format!(
                "'{}' scores none of the responses of the {} items: its prompt and response columns must hold the data's prompts and responses as they are (or its pair id and side columns the pairs')",
                self.path.display(),
                items.len()
            )
        })
    }
    fn answers_at_once(&self, _call: &Call) -> bool {
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
