//! A deterministic stand-in for an LLM judge: it answers each item in the format its parser
//! expects, right with probability `accuracy`, preferring response 1 with probability
//! `position_bias`, tying with `tie_rate` (when ties are allowed) and answering in an
//! unreadable way with `malformed`. The same call always gets the same answer.

use super::{Call, CallFuture, Completion, Judge};
use crate::dataset::select::stable_hash;
use crate::error::input_error;
use anyhow::Result;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[derive(Debug, Clone, PartialEq)]
pub struct Sim {
    pub accuracy: f64,
    pub position_bias: f64,
    pub tie_rate: f64,
    pub malformed: f64,
    pub seed: u64,
}

impl Default for Sim {
    fn default() -> Self {
        Self {
            accuracy: 0.8,
            position_bias: 0.1,
            tie_rate: 0.05,
            malformed: 0.02,
            seed: 0,
        }
    }
}

/// What the simulator takes as the better response: the gold label, else (an item the data
/// gives no label) a side drawn from the pair's id, the same pair's in either order.
fn truth(item: &super::ItemView) -> i64 {
    item.gold.unwrap_or_else(|| {
        let side = if stable_hash(&[b"truth", item.pair_id.as_bytes()]) % 2 == 0 {
            -1
        } else {
            1
        };
        if item.swapped {
            -side
        } else {
            side
        }
    })
}

impl Sim {
    /// Parses `sim` or `sim:accuracy=0.8,position_bias=0.1,tie_rate=0.05,malformed=0.02,seed=0`.
    pub fn parse(spec: &str) -> Result<Self> {
        let mut sim = Sim::default();
        let Some(rest) = spec.strip_prefix("sim") else {
            return Err(input_error(format!(
                "'{spec}' is not a simulated judge spec"
            )));
        };
        let rest = rest.strip_prefix(':').unwrap_or(rest);
        for part in rest.split(',').filter(|p| !p.trim().is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| {
                input_error(format!(
                    "--judge {spec}: '{part}' should be KEY=VALUE, e.g. accuracy=0.8"
                ))
            })?;
            let value: f64 = v
                .trim()
                .parse()
                .map_err(|_| input_error(format!("--judge {spec}: '{v}' is not a number")))?;
            let probability = |name: &str| {
                if (0.0..=1.0).contains(&value) {
                    Ok(value)
                } else {
                    Err(input_error(format!(
                        "--judge {spec}: {name} must be between 0 and 1"
                    )))
                }
            };
            match k.trim() {
                "accuracy" => sim.accuracy = probability("accuracy")?,
                "position_bias" => sim.position_bias = probability("position_bias")?,
                "tie_rate" => sim.tie_rate = probability("tie_rate")?,
                "malformed" => sim.malformed = probability("malformed")?,
                "seed" => sim.seed = value as u64,
                other => {
                    return Err(input_error(format!(
                        "--judge {spec}: unknown setting '{other}'; use accuracy, position_bias, tie_rate, malformed, seed"
                    )))
                }
            }
        }
        Ok(sim)
    }

    /// The simulated answer to one call.
    /// The simulated judge's verdict on an item with this gold label: a tie with `tie_rate`
    /// (when ties are allowed), else response 1 with `position_bias`, else gold with
    /// `accuracy`, else the other label. `plan` draws from it too.
    pub fn verdict(&self, gold: i64, allows_tie: bool, rng: &mut ChaCha8Rng) -> i64 {
        let coin = |rng: &mut ChaCha8Rng| if rng.random_bool(0.5) { -1 } else { 1 };
        if allows_tie && rng.random_bool(self.tie_rate) {
            0
        } else if rng.random_bool(self.position_bias) {
            -1
        } else if rng.random_bool(self.accuracy) {
            if gold == 0 && !allows_tie {
                coin(rng)
            } else {
                gold
            }
        } else {
            match gold {
                0 => coin(rng),
                g => -g,
            }
        }
    }

    pub fn answer(&self, call: &Call) -> String {
        let item = &call.item;
        let messages: String = call.messages.iter().map(|m| m.content.as_str()).collect();
        let h = stable_hash(&[
            b"sim",
            &self.seed.to_le_bytes(),
            &call.sample.to_le_bytes(),
            call.params.model.as_bytes(),
            messages.as_bytes(),
        ]);
        let mut rng = ChaCha8Rng::seed_from_u64(h);
        if rng.random_bool(self.malformed) {
            return "Both responses have their merits, and it is hard to say which is better."
                .to_string();
        }
        if let Some(side) = item.graded {
            return self.grade(item, side, &mut rng);
        }
        if item.parser.reads_picks() {
            return format!(
                "(simulated judge) Comparing the four responses.\n{}",
                item.parser.render(self.pick(truth(item), &mut rng))
            );
        }
        let verdict = self.verdict(truth(item), item.allows_tie, &mut rng);
        match item.parser {
            // A fine-tuned judge's answer in its own format, which may have to open the text
            // (JudgeLM's scores, PandaLM's first line).
            crate::verdicts::Parser::Published(_) => item.parser.render(verdict),
            _ => format!(
                "(simulated judge) Comparing the two responses.\n{}",
                item.parser.render(verdict)
            ),
        }
    }
}

impl Sim {
    /// A four-way pick: slot A with `position_bias`, else the correct slot `gold` with
    /// `accuracy`, else one of the other three at random.
    fn pick(&self, gold: i64, rng: &mut ChaCha8Rng) -> i64 {
        if rng.random_bool(self.position_bias) {
            0
        } else if rng.random_bool(self.accuracy) {
            gold
        } else {
            let other = rng.random_range(0..3i64);
            if other >= gold {
                other + 1
            } else {
                other
            }
        }
    }

    /// A pointwise answer: the better response of the pair gets a high grade with probability
    /// `accuracy`, else a low one (and the worse one the other way round); a tie-rate share
    /// gets the middle grade.
    fn grade(&self, item: &super::ItemView, side: u8, rng: &mut ChaCha8Rng) -> String {
        let (lo, hi) = item.parser.default_scale().unwrap_or((-2.0, 2.0));
        let better = match truth(item) {
            -1 => side == 1,
            1 => side == 2,
            _ => rng.random_bool(0.5),
        };
        let high = rng.random_bool(self.accuracy) == better;
        let grade = if rng.random_bool(self.tie_rate) {
            ((lo + hi) / 2.0).round()
        } else if high {
            hi - ((hi - lo) / 5.0).floor()
        } else {
            lo + ((hi - lo) / 5.0).floor()
        };
        item.parser.render_grade(grade)
    }
}

impl Judge for Sim {
    fn describe(&self) -> String {
        format!(
            "sim:accuracy={},position_bias={},tie_rate={},malformed={} (simulated)",
            self.accuracy, self.position_bias, self.tie_rate, self.malformed
        )
    }
    fn is_simulated(&self) -> bool {
        true
    }
    fn answers_at_once(&self, _call: &Call) -> bool {
        true
    }
    fn complete<'a>(&'a self, call: &'a Call) -> CallFuture<'a> {
        Box::pin(async move { Ok(Completion::free(self.answer(call))) })
    }
}
