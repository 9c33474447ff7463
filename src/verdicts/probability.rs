//! Verdicts as probabilities: a completion's token log-probabilities (`Logprobs`, read from
//! either shape servers answer in) and a template's `[probability]` declaration (`Spec`) give
//! P(response 2 better) (pairwise) or the expected grade and its distribution (pointwise).
//!
//! Tokens match exactly (AlpacaEval keeps only tokens equal to "m" or "M"), unless the template
//! asks for `whitespace = "strip"`: then a token matches after its surrounding whitespace is
//! removed, and the probabilities of its variants (" A", "A", "A\n") add up. A mapped token
//! missing from the top list has probability 0; no mapped token at all is no probability.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One generated token's log-probability and the most likely alternatives at its position.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenLogprob {
    pub token: String,
    pub logprob: f64,
    #[serde(default)]
    pub top_logprobs: Vec<TopLogprob>,
}

/// An alternative token at a position.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TopLogprob {
    pub token: String,
    pub logprob: f64,
}

/// A completion's logprobs, kept in OpenAI's chat shape (`{"content": [...]}`) whatever shape
/// the server answered in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Logprobs {
    pub content: Vec<TokenLogprob>,
}

impl Logprobs {
    /// Reads a choice's `logprobs` object in either shape: OpenAI's chat shape
    /// (`content[i].{token, logprob, top_logprobs[{token, logprob}]}`: OpenAI, vLLM,
    /// llama.cpp's server, llama-cpp-python 0.3) or the legacy completions shape
    /// (`{tokens, token_logprobs, top_logprobs: [{token: logprob}]}`). `null`, an absent or an
    /// empty object is no logprobs; anything else malformed says what.
    pub fn from_value(value: &Value) -> Result<Option<Self>, String> {
        match value {
            Value::Null => Ok(None),
            Value::Object(map) if map.is_empty() => Ok(None),
            Value::Object(map) if map.contains_key("content") => match &map["content"] {
                Value::Null => Ok(None),
                Value::Array(tokens) => tokens
                    .iter()
                    .enumerate()
                    .map(|(i, t)| chat_token(t).ok_or_else(|| format!("logprobs.content[{i}] has no token and logprob")))
                    .collect::<Result<Vec<_>, _>>()
                    .map(|content| Some(Self { content })),
                _ => Err("logprobs.content is not a list".into()),
            },
            Value::Object(map) if map.contains_key("tokens") => legacy(map).map(Some),
            _ => Err("logprobs is neither OpenAI's chat shape ({content: [...]}) nor the completions shape ({tokens, token_logprobs, top_logprobs})".into()),
        }
    }

    /// The text the tokens spell (their concatenation).
    pub fn text(&self) -> String {
        self.content.iter().map(|t| t.token.as_str()).collect()
    }
}

fn chat_token(t: &Value) -> Option<TokenLogprob> {
    let top = match &t["top_logprobs"] {
        Value::Array(top) => top
            .iter()
            .map(|x| {
                Some(TopLogprob {
                    token: x["token"].as_str()?.to_string(),
                    logprob: logprob(&x["logprob"])?,
                })
            })
            .collect::<Option<Vec<_>>>()?,
        _ => Vec::new(),
    };
    Some(TokenLogprob {
        token: t["token"].as_str()?.to_string(),
        logprob: logprob(&t["logprob"])?,
        top_logprobs: top,
    })
}

/// A log-probability: a number, or `null` / "-inf" for probability 0 (some servers).
fn logprob(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::Null => Some(f64::NEG_INFINITY),
        Value::String(s) if s == "-inf" || s == "-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

fn legacy(map: &serde_json::Map<String, Value>) -> Result<Logprobs, String> {
    let tokens = map["tokens"]
        .as_array()
        .ok_or("logprobs.tokens is not a list")?;
    let chosen = map.get("token_logprobs").and_then(Value::as_array);
    let tops = map.get("top_logprobs").and_then(Value::as_array);
    let mut content = Vec::with_capacity(tokens.len());
    for (i, token) in tokens.iter().enumerate() {
        let token = token
            .as_str()
            .ok_or_else(|| format!("logprobs.tokens[{i}] is not text"))?;
        let lp = chosen
            .and_then(|c| c.get(i))
            .map_or(Some(f64::NAN), logprob)
            .ok_or_else(|| format!("logprobs.token_logprobs[{i}] is not a number"))?;
        let mut top: Vec<TopLogprob> = match tops.and_then(|t| t.get(i)) {
            Some(Value::Object(alternatives)) => alternatives
                .iter()
                .map(|(t, v)| {
                    logprob(v)
                        .map(|logprob| TopLogprob {
                            token: t.clone(),
                            logprob,
                        })
                        .ok_or_else(|| format!("logprobs.top_logprobs[{i}][{t:?}] is not a number"))
                })
                .collect::<Result<_, _>>()?,
            _ => Vec::new(),
        };
        // A JSON object has no order: most likely first, as the chat shape lists them.
        top.sort_by(|a, b| b.logprob.total_cmp(&a.logprob));
        content.push(TokenLogprob {
            token: token.to_string(),
            logprob: lp,
            top_logprobs: top,
        });
    }
    Ok(Logprobs { content })
}

/// Which generated token carries the probability.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// The first generated token (a one-token verdict: AlpacaEval 2's weighted judge).
    First,
    /// The token where the parser read the verdict.
    Verdict,
}

impl Position {
    pub fn key(self) -> &'static str {
        match self {
            Position::First => "first",
            Position::Verdict => "verdict",
        }
    }
}

/// What a mapped token means.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Meaning {
    /// Pairwise: response 1 or 2 (as shown) is the better one.
    Response(u8),
    /// Pairwise: a tie (half to each side).
    Tie,
    /// Pointwise: a grade.
    Grade(f64),
}

/// How tokens are compared with the mapped ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Whitespace {
    Exact,
    Strip,
}

/// A template's `[probability]`: which token, and what its alternatives mean.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    pub position: Position,
    pub tokens: Vec<(String, Meaning)>,
    pub whitespace: Whitespace,
    /// How many alternatives to ask for per position (`top_logprobs`).
    pub top: u32,
    /// Pairwise: identical responses are a tie with P = ½, rated without a call (AlpacaEval's
    /// annotator does this).
    pub identical_tie: bool,
}

/// The default `top_logprobs` (AlpacaEval 2's weighted judge asks for 5).
pub const DEFAULT_TOP: u32 = 5;

/// What a completion's logprobs say.
#[derive(Debug, Clone, PartialEq)]
pub enum Reading {
    /// Pairwise: P(response 2, as shown, is the better one).
    Pair(f64),
    /// Pointwise: the expected grade and the distribution over the mapped grades (grade,
    /// probability; summing to 1).
    Grade {
        expected: f64,
        distribution: Vec<(f64, f64)>,
    },
}

/// log Σ exp(x), exact for -inf entries (probability 0).
pub fn log_sum_exp(values: &[f64]) -> f64 {
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if max == f64::NEG_INFINITY {
        return max;
    }
    max + values.iter().map(|v| (v - max).exp()).sum::<f64>().ln()
}

impl Spec {
    /// Reads a completion. `span`: where the parser read the verdict (byte offsets in `text`),
    /// for `position = "verdict"`. Err says why there is no probability.
    pub fn read(
        &self,
        logprobs: Option<&Logprobs>,
        text: &str,
        span: Option<(usize, usize)>,
    ) -> Result<Reading, String> {
        let logprobs = logprobs.ok_or("the server returned no logprobs")?;
        let index = match self.position {
            Position::First => 0,
            Position::Verdict => {
                let span = span.ok_or("no verdict was read, so no verdict token")?;
                self.verdict_token(logprobs, text, span)?
            }
        };
        let at = logprobs
            .content
            .get(index)
            .ok_or("the logprobs hold no token at that position")?;
        // Each mapped token's log-probability: the alternatives at the position (the chosen
        // token when the server listed none). Later duplicates replace earlier ones, as a
        // dict does in AlpacaEval's parser.
        let listed: Vec<(&str, f64)> = if at.top_logprobs.is_empty() {
            vec![(at.token.as_str(), at.logprob)]
        } else {
            at.top_logprobs
                .iter()
                .map(|t| (t.token.as_str(), t.logprob))
                .collect()
        };
        let mut found: Vec<(Meaning, f64)> = Vec::new();
        for (token, meaning) in &self.tokens {
            let lps: Vec<f64> = match self.whitespace {
                Whitespace::Exact => listed
                    .iter()
                    .rev()
                    .find(|(t, _)| t == token)
                    .map(|&(_, lp)| lp)
                    .into_iter()
                    .collect(),
                Whitespace::Strip => {
                    // Distinct spellings, each once (its last listing).
                    let mut seen: Vec<(&str, f64)> = Vec::new();
                    for &(t, lp) in listed.iter().filter(|(t, _)| self.matches(t, token)) {
                        match seen.iter_mut().find(|(s, _)| *s == t) {
                            Some(slot) => slot.1 = lp,
                            None => seen.push((t, lp)),
                        }
                    }
                    seen.into_iter().map(|(_, lp)| lp).collect()
                }
            };
            if !lps.is_empty() {
                found.push((*meaning, log_sum_exp(&lps)));
            }
        }
        if found.is_empty() {
            return Err(format!(
                "none of the mapped tokens ({}) is among the top {} alternatives",
                self.tokens
                    .iter()
                    .map(|(t, _)| format!("{t:?}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                listed.len()
            ));
        }
        let all: Vec<f64> = found.iter().map(|f| f.1).collect();
        let total = log_sum_exp(&all);
        if total == f64::NEG_INFINITY {
            return Err("every mapped token has probability 0".into());
        }
        let share = |lp: f64| (lp - total).exp();
        match found[0].0 {
            Meaning::Grade(_) => {
                let mut distribution: Vec<(f64, f64)> = Vec::new();
                for (m, lp) in &found {
                    if let Meaning::Grade(g) = m {
                        match distribution.iter_mut().find(|(v, _)| v == g) {
                            Some(slot) => slot.1 += share(*lp),
                            None => distribution.push((*g, share(*lp))),
                        }
                    }
                }
                distribution.sort_by(|a, b| a.0.total_cmp(&b.0));
                let expected = distribution.iter().map(|(g, p)| g * p).sum();
                Ok(Reading::Grade {
                    expected,
                    distribution,
                })
            }
            _ => {
                let side = |want: Meaning| -> Vec<f64> {
                    found
                        .iter()
                        .filter(|(m, _)| *m == want)
                        .map(|f| f.1)
                        .collect()
                };
                let second = share(log_sum_exp(&side(Meaning::Response(2))));
                let tie = share(log_sum_exp(&side(Meaning::Tie)));
                Ok(Reading::Pair(second + tie / 2.0))
            }
        }
    }
}

impl Spec {
    fn matches(&self, token: &str, mapped: &str) -> bool {
        match self.whitespace {
            Whitespace::Exact => token == mapped,
            Whitespace::Strip => token.trim() == mapped.trim(),
        }
    }

    /// The token of the verdict: of the tokens that overlap the parser's span (`[[`, `A`,
    /// `]]` for "[[A]]"), the first that is a mapped token, else the first. The tokens must
    /// spell the completion (they do unless a server rewrote the text).
    fn verdict_token(
        &self,
        logprobs: &Logprobs,
        text: &str,
        (start, end): (usize, usize),
    ) -> Result<usize, String> {
        if logprobs.text() != text {
            return Err("the logprobs' tokens do not spell the answer's text".into());
        }
        let mut at = 0usize;
        let mut overlapping = Vec::new();
        for (i, t) in logprobs.content.iter().enumerate() {
            let (from, to) = (at, at + t.token.len());
            at = to;
            if to > start && from < end.max(start + 1) {
                overlapping.push(i);
            }
        }
        overlapping
            .iter()
            .copied()
            .find(|&i| {
                let token = &logprobs.content[i].token;
                self.tokens.iter().any(|(m, _)| self.matches(token, m))
            })
            .or(overlapping.first().copied())
            .ok_or_else(|| "the verdict lies past the last token".into())
    }
}

/// P(G2 > G1) + ½ P(G2 = G1) for independent grade distributions: a pointwise judge's
/// probability that response 2 is the better one.
pub fn p_second_better(first: &[(f64, f64)], second: &[(f64, f64)]) -> f64 {
    let mut p = 0.0;
    for &(g1, p1) in first {
        for &(g2, p2) in second {
            if g2 > g1 {
                p += p1 * p2;
            } else if g2 == g1 {
                p += 0.5 * p1 * p2;
            }
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pair_spec(whitespace: Whitespace) -> Spec {
        Spec {
            position: Position::First,
            tokens: vec![
                ("m".into(), Meaning::Response(1)),
                ("M".into(), Meaning::Response(2)),
            ],
            whitespace,
            top: 5,
            identical_tie: false,
        }
    }

    #[test]
    fn both_shapes_read_the_same() {
        let chat = json!({"content": [{"token": "M", "logprob": -0.1, "top_logprobs": [
            {"token": "M", "logprob": -0.1}, {"token": "m", "logprob": -2.4}]}]});
        let legacy = json!({"tokens": ["M"], "token_logprobs": [-0.1],
            "top_logprobs": [{"m": -2.4, "M": -0.1}]});
        let a = Logprobs::from_value(&chat).expect("reads").expect("reads");
        let b = Logprobs::from_value(&legacy)
            .expect("reads")
            .expect("reads");
        assert_eq!(a, b);
        let p = pair_spec(Whitespace::Exact)
            .read(Some(&a), "M", None)
            .expect("reads");
        let want = (-0.1f64).exp() / ((-0.1f64).exp() + (-2.4f64).exp());
        assert!(matches!(p, Reading::Pair(x) if (x - want).abs() < 1e-15));
        assert_eq!(Logprobs::from_value(&Value::Null), Ok(None));
        assert_eq!(Logprobs::from_value(&json!({"content": null})), Ok(None));
        assert!(Logprobs::from_value(&json!({"content": [{"x": 1}]})).is_err());
        assert!(Logprobs::from_value(&json!([1])).is_err());
    }

    #[test]
    fn missing_tokens_and_whitespace() {
        let lp = |tops: Value| {
            Logprobs::from_value(
                &json!({"content": [{"token": " M", "logprob": -0.5, "top_logprobs": tops}]}),
            )
            .expect("reads")
            .expect("reads")
        };
        // Only one side listed: it has everything.
        let one = lp(json!([{"token": "M", "logprob": -0.5}, {"token": "The", "logprob": -1.0}]));
        assert_eq!(
            pair_spec(Whitespace::Exact).read(Some(&one), "M", None),
            Ok(Reading::Pair(1.0))
        );
        // Neither: no probability, and the reason names the tokens.
        let none = lp(json!([{"token": "The", "logprob": -1.0}]));
        let why = pair_spec(Whitespace::Exact)
            .read(Some(&none), "The", None)
            .expect_err("no probability");
        assert!(why.contains("\"m\", \"M\""), "{why}");
        // " M" is not "M" exactly; stripped, " M" and "M" add up.
        let spaced = lp(
            json!([{"token": " M", "logprob": -1.0}, {"token": "M", "logprob": -1.0}, {"token": "m", "logprob": -1.0}]),
        );
        let exact = pair_spec(Whitespace::Exact)
            .read(Some(&spaced), " M", None)
            .expect("reads");
        assert_eq!(exact, Reading::Pair(0.5));
        let Reading::Pair(stripped) = pair_spec(Whitespace::Strip)
            .read(Some(&spaced), " M", None)
            .expect("reads")
        else {
            panic!()
        };
        assert!((stripped - 2.0 / 3.0).abs() < 1e-15);
        assert!(pair_spec(Whitespace::Exact).read(None, "M", None).is_err());
    }

    #[test]
    fn the_verdict_token_and_grades() {
        let lp = Logprobs::from_value(&json!({"content": [
            {"token": "Score", "logprob": 0.0, "top_logprobs": []},
            {"token": ": ", "logprob": 0.0, "top_logprobs": []},
            {"token": "4", "logprob": -0.3, "top_logprobs": [{"token": "4", "logprob": -0.3}, {"token": "5", "logprob": -1.5}, {"token": "3", "logprob": -3.0}]}]})).expect("reads").expect("reads");
        let spec = Spec {
            position: Position::Verdict,
            tokens: (1..=5)
                .map(|g| (g.to_string(), Meaning::Grade(f64::from(g))))
                .collect(),
            whitespace: Whitespace::Exact,
            top: 5,
            identical_tie: false,
        };
        let Reading::Grade {
            expected,
            distribution,
        } = spec
            .read(Some(&lp), "Score: 4", Some((7, 8)))
            .expect("reads")
        else {
            panic!()
        };
        let (a, b, c) = ((-0.3f64).exp(), (-1.5f64).exp(), (-3.0f64).exp());
        assert!((expected - (4.0 * a + 5.0 * b + 3.0 * c) / (a + b + c)).abs() < 1e-12);
        assert_eq!(
            distribution.iter().map(|d| d.0).collect::<Vec<_>>(),
            vec![3.0, 4.0, 5.0]
        );
        assert!(spec.read(Some(&lp), "Score: 4!", Some((7, 8))).is_err());
        assert!(spec.read(Some(&lp), "Score: 4", None).is_err());
        assert!((p_second_better(&[(1.0, 0.5), (2.0, 0.5)], &[(2.0, 1.0)]) - 0.75).abs() < 1e-15);
    }
}
