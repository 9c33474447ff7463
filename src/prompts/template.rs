//! The room's vocabulary: a judge prompt (`Template`) and how it judges (`Mode`), with the
//! single-pass rendering of its placeholders. Built-in, RewardBench 2 and file templates are
//! made in the other files.

use crate::verdicts::Parser;

/// How a template judges: both responses at once, or one response at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `{response1}` and `{response2}` in one call; the parser reads a verdict.
    Pairwise,
    /// `{response}` (and optionally `{reference}`) in one call per response; the parser reads
    /// a grade, and the two grades are compared.
    Pointwise,
    /// `{response1}`..`{response4}` in one call (RewardBench 2's four-way judge); the parser
    /// reads the slot picked.
    Ranking,
}

impl Mode {
    pub fn key(self) -> &'static str {
        match self {
            Mode::Pairwise => "pairwise",
            Mode::Pointwise => "pointwise",
            Mode::Ranking => "ranking",
        }
    }
}

/// A judge prompt: how to ask, and how to read the answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    pub name: String,
    pub description: String,
    pub system: Option<String>,
    /// Pairwise: `{prompt}`, `{response1}`, `{response2}`. Pointwise: `{prompt}`,
    /// `{response}`, `{reference}`. Every other brace is literal.
    pub text: String,
    pub parser: Parser,
    /// Pairwise: whether the verdict may be a tie.
    pub allows_tie: bool,
    pub mode: Mode,
    /// Pointwise: the grades' range; a grade outside it is no grade.
    pub scale: Option<(f64, f64)>,
    /// Whether (and how) the answer's token logprobs give a probability (`[probability]`).
    pub probability: Option<crate::verdicts::probability::Spec>,
    /// Fields the template adds to each request (`[request]`: `response_format` with a JSON
    /// schema, `tools` and `tool_choice`).
    pub request: Option<serde_json::Value>,
    /// The text is a minijinja template (`engine = "jinja"`): it may loop over `turns`.
    pub jinja: bool,
    /// Where a built-in under a published name is published; its prompt is that source's,
    /// byte for byte (`tests/fixtures/generate_prompt_fixtures.py` renders it from there).
    pub source: Option<Source>,
}

/// The publication a built-in copies: a file of a public repository at a commit, and the entry
/// of it (a `PROMPT_MAP` key, a jsonl line's name, a function).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    pub repo: &'static str,
    pub path: &'static str,
    pub commit: &'static str,
    pub entry: &'static str,
    pub licence: &'static str,
}

/// The placeholders, in the order they are looked for (`{response}` after `{response1}`..,
/// which it prefixes).
const PLACEHOLDERS: [&str; 9] = [
    "{prompt}",
    "{response1}",
    "{response2}",
    "{response}",
    "{reference}",
    "{response3}",
    "{response4}",
    "{conversation}",
    "{question}",
];

/// What an item asks: its conversation before the judged reply in the documented layout
/// (`dataset::conversation::layout`; a single-turn item's prompt alone), which `{prompt}` and
/// `{conversation}` show, the last user message, which `{question}` shows, and the turns
/// before it, which a jinja template loops over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Asked<'a> {
    pub conversation: &'a str,
    pub question: &'a str,
    pub turns: &'a [crate::dataset::conversation::Turn],
}

impl<'a> From<&'a str> for Asked<'a> {
    /// A single-turn prompt.
    fn from(prompt: &'a str) -> Self {
        Self {
            conversation: prompt,
            question: prompt,
            turns: &[],
        }
    }
}

/// The values a template is filled with, by placeholder (`PLACEHOLDERS`' order).
struct Values<'a> {
    asked: Asked<'a>,
    texts: [&'a str; 6],
}

impl Template {
    /// Fills the pairwise placeholders in a single pass over the template: braces or
    /// placeholder names inside the data are copied as they are, never expanded.
    pub fn render<'a>(
        &self,
        asked: impl Into<Asked<'a>>,
        response1: &'a str,
        response2: &'a str,
    ) -> String {
        self.render_with_reference(asked, response1, response2, "")
    }

    /// `render`, with the item's reference answer for `{reference}` (empty when it has none).
    pub fn render_with_reference<'a>(
        &self,
        asked: impl Into<Asked<'a>>,
        response1: &'a str,
        response2: &'a str,
        reference: &'a str,
    ) -> String {
        self.filled(&Values {
            asked: asked.into(),
            texts: [response1, response2, "", reference, "", ""],
        })
    }

    /// Fills the ranking placeholders: four responses, as shown (A to D).
    pub fn render_ranking<'a>(
        &self,
        asked: impl Into<Asked<'a>>,
        responses: [&'a str; 4],
    ) -> String {
        let [a, b, c, d] = responses;
        self.filled(&Values {
            asked: asked.into(),
            texts: [a, b, "", "", c, d],
        })
    }

    /// Fills the pointwise placeholders: the graded response and the reference answer.
    pub fn render_pointwise<'a>(
        &self,
        asked: impl Into<Asked<'a>>,
        response: &'a str,
        reference: &'a str,
    ) -> String {
        self.filled(&Values {
            asked: asked.into(),
            texts: ["", "", response, reference, "", ""],
        })
    }

    fn filled(&self, v: &Values<'_>) -> String {
        if self.jinja {
            return self
                .render_jinja(v)
                .unwrap_or_else(|e| format!("(the template does not render: {e})"));
        }
        let a = v.asked;
        let [r1, r2, r, reference, r3, r4] = v.texts;
        self.fill(&[
            a.conversation,
            r1,
            r2,
            r,
            reference,
            r3,
            r4,
            a.conversation,
            a.question,
        ])
    }

    /// A jinja template's text, filled: every placeholder's value by its name (`prompt`,
    /// `conversation`, `question`, `response1`..`response4`, `response`, `reference`) and
    /// `turns`, the turns before the question (each `role`, `content`). Nothing is escaped,
    /// and a trailing newline is kept. (A template that does not render is refused when it is
    /// read, `check_jinja`.)
    fn render_jinja(&self, v: &Values<'_>) -> std::result::Result<String, String> {
        let a = v.asked;
        let [r1, r2, r, reference, r3, r4] = v.texts;
        let context = minijinja::context! {
            prompt => a.conversation,
            conversation => a.conversation,
            question => a.question,
            turns => a.turns,
            response1 => r1,
            response2 => r2,
            response => r,
            reference => reference,
            response3 => r3,
            response4 => r4,
        };
        jinja_env()
            .render_str(&self.text, context)
            .map_err(|e| e.to_string())
    }

    /// Whether a jinja template renders, on a two-turn conversation.
    pub fn check_jinja(&self) -> std::result::Result<(), String> {
        if !self.jinja {
            return Ok(());
        }
        let turns = [
            crate::dataset::conversation::Turn {
                role: crate::dataset::conversation::Role::User,
                content: "first question".into(),
            },
            crate::dataset::conversation::Turn {
                role: crate::dataset::conversation::Role::Assistant,
                content: "first answer".into(),
            },
        ];
        self.render_jinja(&Values {
            asked: Asked {
                conversation: "conversation",
                question: "question",
                turns: &turns,
            },
            texts: ["a", "b", "r", "ref", "c", "d"],
        })
        .map(|_| ())
    }

    fn fill(&self, values: &[&str; 9]) -> String {
        let mut out =
            String::with_capacity(self.text.len() + values.iter().map(|v| v.len()).sum::<usize>());
        let mut rest = self.text.as_str();
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let tail = &rest[open..];
            match PLACEHOLDERS.iter().position(|p| tail.starts_with(p)) {
                Some(i) => {
                    out.push_str(values[i]);
                    rest = &tail[PLACEHOLDERS[i].len()..];
                }
                None => {
                    out.push('{');
                    rest = &tail[1..];
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// Whether the template asks for a reference answer.
    pub fn uses_reference(&self) -> bool {
        self.text.contains("{reference}")
    }

    /// The same template read by another parser (`--parser`); a pointwise template takes
    /// the new parser's scale.
    pub fn with_parser(mut self, parser: Parser) -> Self {
        if self.mode == Mode::Pointwise {
            self.scale = parser.default_scale();
        }
        self.parser = parser;
        self
    }

    /// Whether the parser reads what the mode asks for: a verdict (pairwise) or a grade
    /// (pointwise).
    pub fn check_mode(&self) -> std::result::Result<(), String> {
        match (
            self.mode,
            self.parser.reads_grades(),
            self.parser.reads_verdicts(),
        ) {
            (Mode::Pointwise, false, _) => Err(format!(
                "parser '{}' reads pairwise verdicts, not grades; a pointwise template takes {}",
                self.parser.name(),
                Parser::grading_names()
            )),
            (Mode::Ranking, _, _) if !self.parser.reads_picks() => Err(format!(
                "parser '{}' does not read a four-way pick; a ranking template takes rb2_ranking or rb2_ranking_published",
                self.parser.name()
            )),
            (Mode::Pairwise | Mode::Pointwise, _, _) if self.parser.reads_picks() => Err(format!(
                "parser '{}' reads a four-way pick [[A]]..[[D]]; use it with a ranking template (rb2_ranking, rb2_ranking_gemini)",
                self.parser.name()
            )),
            (Mode::Pairwise, _, false) => Err(format!(
                "parser '{}' reads grades of one response; use it with mode = \"pointwise\"",
                self.parser.name()
            )),
            _ => Ok(()),
        }
    }

    /// Whether the template asks for the verdict format its parser reads (a template's own
    /// regular expressions are written for its own format).
    pub fn parser_fits(&self) -> bool {
        if matches!(self.parser, Parser::Regex(_) | Parser::Json(_)) {
            return true;
        }
        let system = self.system.as_deref().unwrap_or("");
        self.parser
            .markers()
            .iter()
            .any(|m| self.text.contains(m) || system.contains(m))
    }
}

/// The jinja environment templates render in: no escaping, trailing newlines kept, an
/// undefined name an error; two filters a published template needs: `strip` (Python's
/// `str.strip()`, PandaLM's responses) and `regex_replace(pattern, replacement)` (PandaLM's
/// special tokens removed).
fn jinja_env() -> minijinja::Environment<'static> {
    let mut env = minijinja::Environment::new();
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
    env.set_keep_trailing_newline(true);
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.add_filter("strip", |value: String| -> String {
        crate::verdicts::py_strip(&value).to_string()
    });
    env.add_filter(
        "regex_replace",
        |value: String, pattern: String, replacement: String| -> Result<String, minijinja::Error> {
            let re = regex::Regex::new(&pattern).map_err(|e| {
                minijinja::Error::new(
                    minijinja::ErrorKind::InvalidOperation,
                    format!("regex_replace: {e}"),
                )
            })?;
            Ok(re.replace_all(&value, replacement.as_str()).into_owned())
        },
    );
    env
}
