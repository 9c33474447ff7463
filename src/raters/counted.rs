//! Each part's calls counted before any is sent: how many it sends, and which pointwise
//! grades its items share (`schedule.rs` sends each shared grade once).

use super::calls::{example_identities, pairwise_calls, Part, Shown};
use std::collections::HashMap;

/// Each part's calls counted once, before any is sent: how many the part sends (a pointwise
/// grade that several items share counts once), and which of its items' calls share. The
/// progress totals and the schedule read this one count, so each pointwise call is rendered
/// and hashed once to count it.
#[derive(Debug)]
pub struct Counted(pub(super) Vec<Sharing>);

impl Counted {
    /// The count of `parts`' calls.
    pub fn of(parts: &[Part<'_>]) -> Self {
        Self(parts.iter().map(|&(c, e)| Sharing::count(c, e)).collect())
    }

    /// How many calls each part sends.
    pub fn calls(&self) -> Vec<u64> {
        self.0.iter().map(|s| s.calls).collect()
    }
}

/// A part's calls: how many it sends; the pointwise calls its items share: how many uses each
/// has left, and the ticket of those asked that later items still use; and each item's calls'
/// identities as counted (`keys[at[i]..at[i + 1]]`, in `example_calls`' order), so that a call
/// another item asked is never made again.
#[derive(Debug)]
pub(super) struct Sharing {
    calls: u64,
    pub(super) left: HashMap<Shown, u32>,
    pub(super) ticket: HashMap<Shown, usize>,
    keys: Vec<Shown>,
    at: Vec<usize>,
}

impl Sharing {
    /// Counts `config`'s calls of `examples` and the uses of each pointwise call (none for a
    /// pairwise one), keeping only those used more than once.
    fn count(config: &super::Config, examples: &[crate::dataset::examples::Example]) -> Self {
        let mut left: HashMap<Shown, u32> = HashMap::new();
        let (mut keys, mut at) = (Vec::new(), Vec::new());
        let calls = if config.template.mode == crate::prompts::Mode::Pointwise {
            at.reserve(examples.len() + 1);
            for example in examples {
                at.push(keys.len());
                example_identities(config, example, |key| {
                    *left.entry(key).or_default() += 1;
                    keys.push(key);
                });
            }
            at.push(keys.len());
            // Each distinct identity is one call; only those used again are kept.
            let distinct = left.len() as u64;
            left.retain(|_, n| *n > 1);
            distinct
        } else {
            pairwise_calls(config, examples)
        };
        Self {
            calls,
            left,
            ticket: HashMap::new(),
            keys,
            at,
        }
    }

    /// Item `index`'s calls' identities (None: a pairwise part, whose calls share nothing).
    pub(super) fn keys(&self, index: usize) -> Option<&[Shown]> {
        Some(&self.keys[*self.at.get(index)?..*self.at.get(index + 1)?])
    }
}
