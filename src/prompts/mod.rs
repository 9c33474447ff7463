//! Prompt templates: the built-ins and user templates from TOML files, rendered in one pass.

mod builtin;
mod presets;
mod probability;
mod rewardbench2;
mod structured;
mod template;

pub use builtin::SCORES_PROMPT;
pub use rewardbench2::{RATING_NAME, RATING_TIES_NAME};
pub use template::{Asked, Mode, Source, Template};

use crate::error::input_error;
use crate::verdicts::{MatchPolicy, Parser, RegexParser};
use anyhow::Result;
use serde::Deserialize;
use std::path::Path;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TemplateFile {
    name: String,
    #[serde(default)]
    description: String,
    system: Option<String>,
    template: String,
    parser: String,
    #[serde(default)]
    ties: bool,
    /// `pairwise` (the default) or `pointwise`.
    mode: Option<String>,
    /// Pointwise: `[min, max]` of the grades.
    scale: Option<[f64; 2]>,
    /// With `parser = "regex"`: which match decides.
    #[serde(rename = "match")]
    match_policy: Option<String>,
    /// With `parser = "regex"`: one pattern per verdict, in order.
    #[serde(default)]
    patterns: Vec<PatternEntry>,
    /// `[probability]`: the answer's token logprobs as a probability.
    probability: Option<probability::ProbabilityTable>,
    /// With `parser = "json"`: the JMESPath to the verdict or grade, and what its values mean.
    path: Option<String>,
    #[serde(default)]
    values: std::collections::BTreeMap<String, toml::Value>,
    /// `[request]`: fields merged into each request (response_format, tools, tool_choice).
    request: Option<toml::Value>,
    /// `"jinja"`: the template is a minijinja template (it may loop over `turns`); the
    /// default fills `{placeholders}` in one pass.
    engine: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PatternEntry {
    verdict: String,
    pattern: String,
}

fn regex_parser(path: &Path, file: &TemplateFile) -> Result<Parser> {
    let bad = |what: String| input_error(format!("prompt file '{}': {what}", path.display()));
    let policy_name = file.match_policy.as_deref().ok_or_else(|| {
        bad(format!(
            "parser \"regex\" needs match = one of {}",
            MatchPolicy::NAMES
        ))
    })?;
    let policy = MatchPolicy::from_name(policy_name).ok_or_else(|| {
        bad(format!(
            "match = \"{policy_name}\" is not a match policy; use one of {}",
            MatchPolicy::NAMES
        ))
    })?;
    if file.patterns.is_empty() {
        return Err(bad(
            "parser \"regex\" needs [[patterns]] entries, each with verdict = \"response1\" | \"response2\" | \"tie\" and pattern = '...'".into(),
        ));
    }
    let mut pairs = Vec::new();
    for (i, entry) in file.patterns.iter().enumerate() {
        let verdict = crate::verdicts::verdict_from_name(&entry.verdict).ok_or_else(|| {
            bad(format!(
                "patterns entry {}: verdict \"{}\" is not response1, response2 or tie",
                i + 1,
                entry.verdict
            ))
        })?;
        pairs.push((verdict, entry.pattern.clone()));
    }
    let parser = RegexParser::new(&pairs, policy).map_err(&bad)?;
    if parser.allows_tie() != file.ties {
        return Err(bad(format!(
            "ties = {} but {} tie pattern; give a tie pattern exactly when ties = true",
            file.ties,
            if parser.allows_tie() {
                "there is a"
            } else {
                "there is no"
            }
        )));
    }
    Ok(Parser::Regex(std::sync::Arc::new(parser)))
}

/// Reads a user template from a TOML file.
pub fn load_file(path: &Path) -> Result<Template> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| input_error(format!("cannot read prompt file '{}': {e}", path.display())))?;
    let file: TemplateFile = toml::from_str(&text).map_err(|e| {
        input_error(format!(
            "prompt file '{}' is not a valid template: {}; it needs name, template, parser and ties (see `raterlab prompts show simple_no_tie --toml`)",
            path.display(),
            e.message()
        ))
    })?;
    let bad = |what: String| input_error(format!("prompt file '{}': {what}", path.display()));
    let mode = match file.mode.as_deref() {
        None | Some("pairwise") => Mode::Pairwise,
        Some("pointwise") => Mode::Pointwise,
        Some("ranking") => Mode::Ranking,
        Some(other) => {
            return Err(bad(format!(
                "mode = \"{other}\" is not a mode; use \"pairwise\" (both responses in one call), \"pointwise\" (one response per call) or \"ranking\" (four responses, RewardBench 2)"
            )))
        }
    };
    if file.parser != "json" && (file.path.is_some() || !file.values.is_empty()) {
        return Err(bad(format!(
            "path and values go with parser = \"json\", not \"{}\"",
            file.parser
        )));
    }
    let parser = if file.parser == "regex" {
        regex_parser(path, &file)?
    } else if file.parser == "json" {
        structured::parser(file.path.as_deref(), &file.values, mode).map_err(bad)?
    } else {
        if file.match_policy.is_some() || !file.patterns.is_empty() {
            return Err(input_error(format!(
                "prompt file '{}': match and [[patterns]] go with parser = \"regex\", not \"{}\"",
                path.display(),
                file.parser
            )));
        }
        Parser::from_name(&file.parser).ok_or_else(|| {
            input_error(format!(
                "prompt file '{}': unknown parser '{}'; parsers are {}, or regex with [[patterns]]",
                path.display(),
                file.parser,
                parser_names()
            ))
        })?
    };
    let needed: &[&str] = match mode {
        Mode::Pairwise => &["{response1}", "{response2}"],
        Mode::Pointwise => &["{response}"],
        Mode::Ranking => &["{response1}", "{response2}", "{response3}", "{response4}"],
    };
    let jinja = file.engine.as_deref() == Some("jinja");
    for needed in needed {
        // A jinja template names its values without braces of their own ({{ response1 }}).
        let name = needed.trim_matches(|c| c == '{' || c == '}');
        let present = if jinja {
            file.template.contains(name)
        } else {
            file.template.contains(needed)
        };
        if !present {
            return Err(bad(match mode {
                Mode::Pairwise => format!("the template has no {needed} placeholder; use {{prompt}}, {{response1}} and {{response2}} (or mode = \"pointwise\" with {{response}})"),
                Mode::Pointwise => format!("a pointwise template needs {needed}; use {{prompt}}, {{response}} and optionally {{reference}}"),
                Mode::Ranking => format!("a ranking template needs {needed}; use {{prompt}} and {{response1}} to {{response4}}"),
            }));
        }
    }
    let scale = match (mode, file.scale) {
        (Mode::Pairwise | Mode::Ranking, Some(_)) => {
            return Err(bad("scale goes with mode = \"pointwise\"".into()))
        }
        (Mode::Pointwise, Some([lo, hi])) if lo >= hi || lo.is_nan() || hi.is_nan() => {
            return Err(bad(format!(
                "scale = [{lo}, {hi}]: the minimum must be below the maximum"
            )))
        }
        (Mode::Pointwise, Some([lo, hi])) => Some((lo, hi)),
        (Mode::Pointwise, None) => parser.default_scale(),
        (Mode::Pairwise | Mode::Ranking, None) => None,
    };
    let template = Template {
        name: file.name,
        description: file.description,
        system: file.system,
        text: file.template,
        parser,
        allows_tie: file.ties,
        mode,
        scale,
        probability: file
            .probability
            .as_ref()
            .map(|table| probability::spec(table, mode))
            .transpose()
            .map_err(bad)?,
        request: file
            .request
            .as_ref()
            .map(structured::request)
            .transpose()
            .map_err(bad)?,
        jinja: match file.engine.as_deref() {
            None | Some("placeholders") => false,
            Some("jinja") => true,
            Some(other) => {
                return Err(bad(format!(
                    "engine = \"{other}\" is not an engine; use \"jinja\" (a minijinja template that may loop over turns) or leave it out ({{placeholders}} filled in one pass)"
                )))
            }
        },
        source: None,
    };
    template
        .check_jinja()
        .map_err(|e| bad(format!("the jinja template does not render: {e}")))?;
    template.check_mode().map_err(bad)?;
    Ok(template)
}

pub fn parser_names() -> String {
    Parser::ALL
        .iter()
        .chain(&Parser::GRADE_ONLY)
        .chain(&Parser::PICKS)
        .chain(&crate::verdicts::Published::ALL.map(Parser::Published))
        .map(|p| p.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The built-in templates.
pub fn builtins() -> Vec<Template> {
    let mut all = builtin::all();
    all.extend(presets::all());
    all.extend(rewardbench2::all());
    all
}

/// A built-in by name, or a TOML file by path.
pub fn resolve(name_or_path: &str) -> Result<Template> {
    if let Some(t) = builtins().into_iter().find(|t| t.name == name_or_path) {
        return Ok(t);
    }
    let path = Path::new(name_or_path);
    if name_or_path.ends_with(".toml") || path.is_file() {
        return load_file(path);
    }
    Err(input_error(format!(
        "unknown prompt '{name_or_path}'; built-in prompts are {} (or pass a .toml file)",
        builtins()
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

/// The template as a TOML file a user can start from.
pub fn to_toml(t: &Template) -> String {
    let mut out = format!("name = {:?}\n", t.name);
    if !t.description.is_empty() {
        out.push_str(&format!("description = {:?}\n", t.description));
    }
    if let Some(system) = &t.system {
        out.push_str(&format!("system = {system:?}\n"));
    }
    if t.mode == Mode::Ranking {
        out.push_str("mode = \"ranking\"\n");
    }
    if t.jinja {
        out.push_str("engine = \"jinja\"\n");
    }
    if t.mode == Mode::Pointwise {
        out.push_str("mode = \"pointwise\"\n");
        if let Some((lo, hi)) = t.scale {
            out.push_str(&format!("scale = [{lo}, {hi}]\n"));
        }
    }
    out.push_str(&format!(
        "parser = {:?}\nties = {}\ntemplate = '''\n{}'''\n",
        t.parser.name(),
        t.allows_tie,
        t.text
    ));
    if let Parser::Regex(r) = &t.parser {
        out.push_str(&format!("match = {:?}\n", r.policy().name()));
        for (verdict, pattern) in r.patterns() {
            out.push_str(&format!(
                "\n[[patterns]]\nverdict = {:?}\npattern = '''{pattern}'''\n",
                crate::verdicts::verdict_name(verdict)
            ));
        }
    }
    out.push_str(&structured::to_toml(&t.parser, t.request.as_ref()));
    if let Some(spec) = &t.probability {
        out.push_str(&probability::to_toml(spec));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(text: &str) -> Template {
        Template {
            name: "t".into(),
            description: String::new(),
            system: None,
            text: text.into(),
            parser: Parser::WinnerTag,
            allows_tie: false,
            mode: Mode::Pairwise,
            scale: None,
            probability: None,
            request: None,
            jinja: false,
            source: None,
        }
    }

    /// FastChat's multi-turn judges (llm_judge/data/judge_prompts.jsonl, its prompt_template
    /// strings below verbatim), filled the way FastChat fills them for a two-turn MT-Bench
    /// question: the built-ins render the same bytes.
    #[test]
    fn fastchat_multi_turn_templates_render_verbatim() {
        use crate::dataset::conversation::{Role, Turn};
        const PAIR: &str = "<|The Start of Assistant A's Conversation with User|>\n\n### User:\n{question_1}\n\n### Assistant A:\n{answer_a_1}\n\n### User:\n{question_2}\n\n### Assistant A:\n{answer_a_2}\n\n<|The End of Assistant A's Conversation with User|>\n\n\n<|The Start of Assistant B's Conversation with User|>\n\n### User:\n{question_1}\n\n### Assistant B:\n{answer_b_1}\n\n### User:\n{question_2}\n\n### Assistant B:\n{answer_b_2}\n\n<|The End of Assistant B's Conversation with User|>";
        const SINGLE: &str = "<|The Start of Assistant A's Conversation with User|>\n\n### User:\n{question_1}\n\n### Assistant A:\n{answer_1}\n\n### User:\n{question_2}\n\n### Assistant A:\n{answer_2}\n\n<|The End of Assistant A's Conversation with User|>";
        let turns = [
            Turn {
                role: Role::User,
                content: "Compose a travel blog post about Hawaii. {not a placeholder}".into(),
            },
            Turn {
                role: Role::Assistant,
                content: "Aloha! <b>Hawaii</b> & more".into(),
            },
        ];
        let asked = Asked {
            conversation: "unused",
            question: "Rewrite it starting every sentence with A.",
            turns: &turns,
        };
        let fill = |t: &str, pairs: &[(&str, &str)]| {
            pairs
                .iter()
                .fold(t.to_string(), |t, (k, v)| t.replace(k, v))
        };
        let pair = resolve("mt-bench_pairwise_multi-turn").expect("built-in");
        let want = fill(
            PAIR,
            &[
                ("{question_1}", &turns[0].content),
                ("{answer_a_1}", &turns[1].content),
                ("{answer_b_1}", &turns[1].content),
                ("{question_2}", asked.question),
                ("{answer_a_2}", "A reply."),
                ("{answer_b_2}", "B reply."),
            ],
        );
        assert_eq!(pair.render(asked, "A reply.", "B reply."), want);
        assert!(pair.system.as_deref().is_some_and(|s| s.contains(
            "You should focus on who provides a better answer to the second user question."
        )));
        let single = resolve("mt-bench_single_multi-turn").expect("built-in");
        let want = fill(
            SINGLE,
            &[
                ("{question_1}", &turns[0].content),
                ("{answer_1}", &turns[1].content),
                ("{question_2}", asked.question),
                ("{answer_2}", "Graded."),
            ],
        );
        assert_eq!(single.render_pointwise(asked, "Graded.", ""), want);
        assert!(single
            .system
            .as_deref()
            .is_some_and(|s| s.ends_with("\"Rating: [[5]]\".\n\n")));
        // A single-turn item shows no earlier turn.
        let one = pair.render("Q?", "a", "b");
        assert!(one.starts_with("<|The Start of Assistant A's Conversation with User|>\n\n### User:\nQ?\n\n### Assistant A:\na\n\n"), "{one}");
    }

    #[test]
    fn renders_in_one_pass() {
        let t = template("Q: {prompt}\nA: {response1}\nB: {response2}\n{other} {");
        assert_eq!(
            t.render("use {response2} and {x}", "{prompt}", "b}"),
            "Q: use {response2} and {x}\nA: {prompt}\nB: b}\n{other} {"
        );
    }

    #[test]
    fn builtins_are_complete_and_fit_their_parsers() {
        let names: Vec<String> = builtins().iter().map(|t| t.name.clone()).collect();
        assert_eq!(
            names,
            [
                "simple_no_tie",
                "simple_with_tie",
                "reward-bench_gemini_no_tie",
                "mt-bench_pairwise",
                "raterlab_no_tie",
                "raterlab_with_tie",
                "raterlab_ab_no_tie",
                "arena-hard",
                "alpaca_eval_weighted",
                "mt-bench_pairwise_multi-turn",
                "mt-bench_single_multi-turn",
                "mt-bench_single",
                "reference_1-5",
                "reference_1-5_logprobs",
                "correct_json",
                "scores",
                "prometheus2_relative",
                "prometheus2_absolute",
                "judgelm",
                "pandalm",
                "autoj_pairwise",
                "autoj_single",
                "skywork_critic",
                "offsetbias",
                "rb2_ranking",
                "rb2_ranking_gemini",
                "rb2_rating",
                "rb2_rating_ties"
            ]
        );
        for t in builtins() {
            assert!(t.parser_fits() || t.name == SCORES_PROMPT, "{}", t.name);
            assert_eq!(t.check_mode(), Ok(()), "{}", t.name);
            let needed: &[&str] = match t.mode {
                Mode::Pairwise => &["{prompt}", "{response1}", "{response2}"],
                Mode::Pointwise => &["{response}"],
                Mode::Ranking => &["{prompt}", "{response1}", "{response4}"],
            };
            for p in needed {
                // A jinja template names its values as {{ response1 }}, and may ask the
                // question (the last user message) for the conversation.
                let named = |p: &str| {
                    let name = p.trim_matches(|c| c == '{' || c == '}');
                    t.text.contains(&format!("{{{{ {name} }}}}"))
                        || t.text.contains(&format!("{{{{ {name} |"))
                        || (name == "prompt" && t.text.contains("{{ question }}"))
                };
                assert!(
                    t.text.contains(p) || (t.jinja && named(p)),
                    "{} lacks {p}",
                    t.name
                );
            }
            assert_eq!(t.check_jinja(), Ok(()), "{}", t.name);
            let back = toml::from_str::<TemplateFile>(&to_toml(&t)).expect("round trip");
            assert_eq!(back.template, t.text);
            assert_eq!(back.engine.is_some(), t.jinja, "{}", t.name);
        }
        assert_eq!(
            resolve("reward-bench_gemini_no_tie")
                .expect("built-in")
                .parser,
            Parser::AbBrackets
        );
        assert!(!template("Say <winner>")
            .with_parser(Parser::ArenaHard)
            .parser_fits());
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        let err = resolve("simple").expect_err("unknown");
        assert!(
            err.to_string().starts_with(
                "unknown prompt 'simple'; built-in prompts are simple_no_tie, simple_with_tie,"
            ),
            "{err}"
        );
    }
    #[test]
    fn probability_tables_are_read_checked_and_written_back() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = |name: &str, extra: &str| {
            let path = dir.path().join(name);
            let text = format!(
                "name = \"t\"\nparser = \"ab_brackets\"\ntemplate = '''{{prompt}} {{response1}} {{response2}} [[A]]'''\n{extra}"
            );
            std::fs::write(&path, text).expect("write");
            path
        };
        let good = file(
            "good.toml",
            "[probability]\nposition = \"verdict\"\ntokens = { A = \"response1\", B = \"response2\", C = \"tie\" }\nwhitespace = \"strip\"\ntop_logprobs = 10\n",
        );
        let t = load_file(&good).expect("a valid table");
        let spec = t.probability.clone().expect("a spec");
        assert_eq!(
            (spec.position, spec.whitespace, spec.top, spec.tokens.len()),
            (
                crate::verdicts::probability::Position::Verdict,
                crate::verdicts::probability::Whitespace::Strip,
                10,
                3
            )
        );
        // Written back as TOML, it reads the same.
        let again = dir.path().join("again.toml");
        std::fs::write(&again, to_toml(&t)).expect("write");
        assert_eq!(
            load_file(&again).expect("round trip").probability,
            Some(spec)
        );
        for (extra, says) in [
            ("[probability]\nposition = \"last\"\ntokens = { A = \"response1\", B = \"response2\" }\n", "position = \"last\""),
            ("[probability]\ntokens = { A = \"response1\" }\n", "one for \"response2\""),
            ("[probability]\ntokens = { A = \"first\", B = \"response2\" }\n", "\"A\" = \"first\""),
            ("[probability]\ntokens = { A = 1, B = \"response2\" }\n", "\"A\" = 1"),
            ("[probability]\ntokens = {}\n", "tokens is empty"),
            ("[probability]\ntokens = { A = \"response1\", B = \"response2\" }\ntop_logprobs = 50\n", "1 to 20"),
        ] {
            let err = load_file(&file("bad.toml", extra)).expect_err(says).to_string();
            assert!(err.contains("bad.toml") && err.contains(says), "{err}");
        }
    }

    /// A user's TOML template has what the presets use: a system message, `strip`,
    /// `regex_replace` and a reference answer in a pairwise template.
    #[test]
    fn a_toml_template_strips_replaces_and_shows_a_reference() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("mine.toml");
        std::fs::write(
            &path,
            r#"name = "mine"
system = "Judge fairly."
engine = "jinja"
parser = "judgelm"
ties = true
template = """Q: {{ prompt }}
{% if reference %}Ref: {{ reference }}
{% endif %}1: {{ response1 | strip }}
2: {{ response2 | regex_replace('</?s>', '') | strip }}
"""
"#,
        )
        .expect("write");
        let t = load_file(&path).expect("a valid template");
        assert_eq!(t.system.as_deref(), Some("Judge fairly."));
        assert_eq!(
            t.render_with_reference("why {x}?", "  a\n", " <s>b</s> \n", "r {0}"),
            "Q: why {x}?\nRef: r {0}\n1: a\n2: b\n"
        );
        assert_eq!(t.render("q", "a", "b"), "Q: q\n1: a\n2: b\n");
    }
}
