//! AlpacaEval's annotation files (`results/<model>/<annotator>/annotations.json`): a JSON array
//! of `instruction, output_1, generator_1, output_2, generator_2, preference, raw_completion`,
//! read as AlpacaEval reads them.
//!
//! - **The order shown.** AlpacaEval's pairwise annotator swaps `output_1` and `output_2` before
//!   judging when `random.Random("is_switched_outputs" + instruction + "0").choices([False,
//!   True])` says so (`RandomSwitchTwoColumnsProcessor`, seeded by the instruction and the
//!   annotator's seed: `BaseAnnotator(seed=0)` hands its seed to the processors), and un-swaps the preference afterwards (3 − x). The judge saw
//!   `m` = the output shown first. [`is_switched`] reproduces that draw with Python's own
//!   Mersenne Twister and string seeding.
//! - **Identical outputs** get preference 1.5 without a call (`PairwiseAnnotator._preprocess`).
//! - **No gold.** The evaluated model (`generator_2`, output 2) stands as the gold side, so a
//!   judge's mean probability of the gold side is AlpacaEval's win rate / 100.

use crate::error::input_error;
use anyhow::Result;
use serde_json::Value;
use sha2::{Digest, Sha512};
use std::path::Path;

/// The annotator's seed (`BaseAnnotator(seed=0)`, handed down to its processors; the
/// `SingleAnnotator` default of 123 is overridden).
pub const SEED: u64 = 0;
/// The switch column's name, which prefixes the seed string.
const SWITCH_COLUMN: &str = "is_switched_outputs";

/// Python's `random.Random` (MT19937), enough of it to draw `random()`.
struct PyRandom {
    mt: [u32; 624],
    index: usize,
}

impl PyRandom {
    /// `random.Random(text)`: seed version 2, `int.from_bytes(b + sha512(b).digest(), "big")`
    /// for `b = text.encode()`, then `init_by_array` over the integer's 32-bit words, least
    /// significant first.
    fn from_str(text: &str) -> Self {
        let mut bytes = text.as_bytes().to_vec();
        bytes.extend_from_slice(&Sha512::digest(text.as_bytes()));
        // Little-endian, without the integer's leading zero bytes.
        let mut le: Vec<u8> = bytes.into_iter().rev().collect();
        while le.last() == Some(&0) {
            le.pop();
        }
        let mut key: Vec<u32> = le
            .chunks(4)
            .map(|c| {
                let mut w = [0u8; 4];
                w[..c.len()].copy_from_slice(c);
                u32::from_le_bytes(w)
            })
            .collect();
        if key.is_empty() {
            key.push(0);
        }
        Self::init_by_array(&key)
    }

    fn init_genrand(s: u32) -> [u32; 624] {
        let mut mt = [0u32; 624];
        mt[0] = s;
        for i in 1..624 {
            mt[i] = 1_812_433_253u32
                .wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30))
                .wrapping_add(i as u32);
        }
        mt
    }

    fn init_by_array(key: &[u32]) -> Self {
        const N: usize = 624;
        let mut mt = Self::init_genrand(19_650_218);
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            mt[i] = (mt[i] ^ (mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            mt[i] = (mt[i] ^ (mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_mul(1_566_083_941))
                .wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
        Self { mt, index: N }
    }

    fn next_u32(&mut self) -> u32 {
        const N: usize = 624;
        const M: usize = 397;
        if self.index >= N {
            for k in 0..N {
                let y = (self.mt[k] & 0x8000_0000) | (self.mt[(k + 1) % N] & 0x7fff_ffff);
                let mag = if y & 1 == 1 { 0x9908_b0df } else { 0 };
                self.mt[k] = self.mt[(k + M) % N] ^ (y >> 1) ^ mag;
            }
            self.index = 0;
        }
        let mut y = self.mt[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `random()`: 53 random bits in [0, 1).
    fn random(&mut self) -> f64 {
        let a = f64::from(self.next_u32() >> 5);
        let b = f64::from(self.next_u32() >> 6);
        (a * 67_108_864.0 + b) * (1.0 / 9_007_199_254_740_992.0)
    }
}

/// Whether AlpacaEval showed the pair of `instruction` swapped (output 2 first, as `m`):
/// `random.Random(seed).choices([False, True], k=1)[0]`, i.e. `random() * 2 >= 1`.
pub fn is_switched(instruction: &str) -> bool {
    let seed = format!("{SWITCH_COLUMN}{instruction}{SEED}");
    (PyRandom::from_str(&seed).random() * 2.0).floor() as usize == 1
}

/// One annotation row.
#[derive(Debug, Clone, PartialEq)]
pub struct Annotation {
    pub instruction: String,
    pub output_1: String,
    pub output_2: String,
    pub generator_1: String,
    pub generator_2: String,
    /// `dataset` (AlpacaEval's source subset), when given.
    pub dataset: Option<String>,
    /// `raw_completion`: the judge's choice object (`message.content`, `logprobs`), or, for
    /// the function-calling judges, the parsed arguments; `None` when AlpacaEval made no call.
    pub raw_completion: Option<Value>,
    /// AlpacaEval's reading: 1 (output 1 better) .. 2 (output 2 better), 1.5 a draw.
    pub preference: Option<f64>,
    /// `referenced_models` (the function-calling judges' files): whether `m`, the output shown
    /// first, was output 2. Absent: AlpacaEval's switch rule says.
    pub m_is_output_2: Option<bool>,
}

impl Annotation {
    /// Whether the judge saw output 2 first: as `referenced_models` says, else by the switch.
    pub fn switched(&self) -> bool {
        self.m_is_output_2
            .unwrap_or_else(|| is_switched(&self.instruction))
    }

    /// The outputs in the order the judge saw them (`m` first).
    pub fn shown(&self) -> (&str, &str) {
        if self.switched() {
            (&self.output_2, &self.output_1)
        } else {
            (&self.output_1, &self.output_2)
        }
    }
}

/// Whether parsed JSON is an array of AlpacaEval annotations (its first object has
/// `instruction`, `output_1` and `output_2`).
pub fn looks_like(value: &Value) -> bool {
    value
        .as_array()
        .and_then(|rows| rows.first())
        .is_some_and(|row| {
            ["instruction", "output_1", "output_2"]
                .iter()
                .all(|k| row.get(k).is_some())
        })
}

/// A number, or a number written as text (AlpacaEval writes some as strings).
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Whether a JSON file is an array of AlpacaEval annotations, as [`looks_like`] says of its
/// parse, read from its first object alone: a file of another form (RM-Bench's 2.6 MB, a
/// conversation dump) is not parsed in full to learn that it is not one.
pub fn file_looks_like(path: &Path) -> bool {
    use std::io::BufRead;
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut reader = std::io::BufReader::new(file);
    // Up to the array's '[' (whitespace only before it, as a JSON parser takes it).
    loop {
        let Ok(buf) = reader.fill_buf() else {
            return false;
        };
        let Some(&first) = buf.first() else {
            return false;
        };
        reader.consume(1);
        match first {
            b'[' => break,
            b' ' | b'\t' | b'\n' | b'\r' => continue,
            _ => return false,
        }
    }
    let mut first = serde_json::Deserializer::from_reader(reader);
    let keys: Result<std::collections::HashMap<String, serde::de::IgnoredAny>, _> =
        serde::Deserialize::deserialize(&mut first);
    keys.is_ok_and(|row| {
        ["instruction", "output_1", "output_2"]
            .iter()
            .all(|k| row.contains_key(*k))
    })
}

/// `referenced_models`, `{"m": "output_2", "M": "output_1"}` (an object, or the same as Python's
/// repr in a string): whether `m` was output 2. One name is enough (AlpacaEval writes only `M`
/// when the judge ranked both first).
fn referenced(v: &Value) -> Option<bool> {
    let owned;
    let map = match v {
        Value::Object(m) => m,
        Value::String(s) => {
            owned = serde_json::from_str::<Value>(&s.replace('\'', "\""))
                .ok()?
                .as_object()?
                .clone();
            &owned
        }
        _ => return None,
    };
    match (
        map.get("m").and_then(Value::as_str),
        map.get("M").and_then(Value::as_str),
    ) {
        (Some(m), _) => Some(m == "output_2"),
        (None, Some(big)) => Some(big == "output_1"),
        _ => None,
    }
}

/// Reads the annotations of a parsed file; errors name the file, row and field.
pub fn read(path: &Path, value: &Value) -> Result<Vec<Annotation>> {
    let rows = value.as_array().ok_or_else(|| {
        input_error(format!(
            "'{}': not a JSON array of AlpacaEval annotations",
            path.display()
        ))
    })?;
    rows.iter()
        .enumerate()
        .map(|(i, row)| {
            let text = |field: &str| -> Result<String> {
                match &row[field] {
                    Value::String(s) => Ok(s.clone()),
                    Value::Null if field.starts_with("generator") => Ok(String::new()),
                    other => Err(input_error(format!(
                        "'{}', row {}: field '{field}' is {} where AlpacaEval writes text; AlpacaEval annotations hold instruction, output_1, output_2 (and generator_1, generator_2, preference, raw_completion)",
                        path.display(),
                        i + 1,
                        if other.is_null() { "missing".to_string() } else { format!("{other}") }
                    ))),
                }
            };
            Ok(Annotation {
                instruction: text("instruction")?,
                output_1: text("output_1")?,
                output_2: text("output_2")?,
                generator_1: text("generator_1")?,
                generator_2: text("generator_2")?,
                dataset: row["dataset"].as_str().map(str::to_string),
                raw_completion: match &row["raw_completion"] {
                    Value::Null => None,
                    // Some dumps keep the object as a JSON string.
                    Value::String(s) => serde_json::from_str(s).ok(),
                    v => Some(v.clone()),
                },
                preference: number(&row["preference"]),
                m_is_output_2: referenced(&row["referenced_models"]),
            })
        })
        .collect()
}

/// Reads a `.json` file holding AlpacaEval annotations.
pub fn read_file(path: &Path) -> Result<Vec<Annotation>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| input_error(format!("cannot read '{}': {e}", path.display())))?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| input_error(format!("'{}' is not valid JSON ({e})", path.display())))?;
    read(path, &value)
}

/// The annotations as pairs shown in AlpacaEval's order (never redrawn), the evaluated model's
/// output (output 2) as the gold side; ids `{dataset}-{row}` (rows from 0), subsets AlpacaEval's
/// `dataset` column.
pub fn pairs(annotations: Vec<Annotation>) -> Vec<super::pairs::Pair> {
    annotations
        .into_iter()
        .enumerate()
        .map(|(row, a)| {
            let switched = a.switched();
            let subset = a.dataset.clone().unwrap_or_else(|| "alpacaeval".into());
            let (first, second) = if switched {
                (a.output_2, a.output_1)
            } else {
                (a.output_1, a.output_2)
            };
            let generators = if switched {
                [a.generator_2, a.generator_1]
            } else {
                [a.generator_1, a.generator_2]
            };
            let generators = generators
                .iter()
                .all(|g| !g.is_empty())
                .then_some(generators);
            super::pairs::Pair {
                id: format!("{subset}-{row}"),
                subset,
                prompt: a.instruction,
                first,
                second,
                gold: Some(if switched { -1 } else { 1 }),
                reference: None,
                randomize: false,
                votes: Vec::new(),
                vote_order: Vec::new(),
                generators,
                history: Vec::new(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pythons_random_from_a_string() {
        // python3 -c 'import random; r = random.Random("abc"); print(repr(r.random()), repr(r.random()))'
        let mut r = PyRandom::from_str("abc");
        assert_eq!(r.random(), 0.7720246314157545);
        assert_eq!(r.random(), 0.5581691373899791);
        // python3 -c 'import random; print(repr(random.Random("").random()))'
        assert_eq!(PyRandom::from_str("").random(), 0.9602256525641875);
    }

    /// The probe of a file's first object says what `looks_like` says of the whole parse, on
    /// every shape a JSON data file takes here.
    #[test]
    fn the_first_object_says_what_the_whole_parse_says() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cases = [
            (
                r#" [{"instruction": "i", "output_1": "a", "output_2": null, "x": [1, {"y": 2}]}, {"z": 1}]"#,
                true,
            ),
            (
                "\n[\n {\"output_2\": \"b\", \"output_1\": \"a\", \"instruction\": \"i\"}]",
                true,
            ),
            (
                r#"[{"instruction": "i", "output_1": "a"}, {"instruction": "i", "output_1": "a", "output_2": "b"}]"#,
                false,
            ),
            (
                r#"[{"prompt": "p", "chosen": ["a"], "rejected": ["b"]}]"#,
                false,
            ),
            (
                r#"{"instruction": "i", "output_1": "a", "output_2": "b"}"#,
                false,
            ),
            ("[]", false),
            (r#"[["instruction", "output_1", "output_2"]]"#, false),
            ("", false),
        ];
        for (k, (text, alpaca)) in cases.iter().enumerate() {
            let path = dir.path().join(format!("{k}.json"));
            std::fs::write(&path, text).expect("write");
            let whole = serde_json::from_str::<Value>(text).is_ok_and(|v| looks_like(&v));
            assert_eq!(whole, *alpaca, "case {k}: the whole parse");
            assert_eq!(
                file_looks_like(&path),
                *alpaca,
                "case {k}: the first object"
            );
        }
        assert!(!file_looks_like(&dir.path().join("missing.json")));
    }
}
