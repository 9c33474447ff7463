use super::*;
use proptest::prelude::*;

fn check(parser: Parser, cases: &[(&str, Option<i64>)]) {
    for (text, want) in cases {
        let got = parser.parse(text);
        assert_eq!(got.rating(), *want, "{parser} on {text:?}: {got:?}");
    }
}

#[test]
fn winner_tag() {
    check(
        Parser::WinnerTag,
        &[
            ("<winner>1</winner>", Some(-1)),
            ("Reasoning...\n<winner> 2 </winner>", Some(1)),
            ("<winner>1</winner> or maybe <winner>2</winner>", None),
            ("<winner>1</winner><winner>1</winner>", None),
            ("<winner>3</winner>", None),
            ("<tie>", None),
            ("the winner is 1", None),
            ("", None),
        ],
    );
    assert_eq!(
        Parser::WinnerTag.parse("x"),
        Verdict::Unparseable("no <winner> tag".into())
    );
}

#[test]
fn winner_tag_with_ties() {
    check(
        Parser::WinnerTagTie,
        &[
            ("<tie>", Some(0)),
            ("Equally good. <tie>", Some(0)),
            ("<winner>1</winner> hmm <tie>", None),
            // A model echoing the instructions names every answer: no verdict, not a tie.
            (
                "answer <winner>1</winner> or <winner>2</winner>; if equal, <tie>",
                None,
            ),
            ("<winner>2</winner>", Some(1)),
            ("nothing", None),
        ],
    );
}

#[test]
fn ab_brackets() {
    check(
        Parser::AbBrackets,
        &[
            ("[[A]]", Some(-1)),
            ("Final verdict: [[B]]", Some(1)),
            ("[[C]]", Some(0)),
            ("[[A]] ... final: [[A]]", Some(-1)),
            ("[[A]] or [[B]]", None),
            ("[A]", None),
            ("[[D]]", None),
        ],
    );
}

#[test]
fn arena_hard() {
    check(
        Parser::ArenaHard,
        &[
            ("My final verdict is: [[A>>B]]", Some(-1)),
            ("[[A>B]]", Some(-1)),
            ("[[A=B]]", Some(0)),
            ("[[B>A]]", Some(1)),
            ("[[B>>A]]", Some(1)),
            ("[[A>B]] [[B>A]]", None),
            ("[[A]]", None),
            ("[[A>=B]]", None),
        ],
    );
}

#[test]
fn output_ab() {
    check(Parser::OutputAb, &[
        ("Output (a)", Some(-1)),
        ("Output (b)", Some(1)),
        ("output(b)", Some(1)),
        ("Output (a) follows the instruction, while Output (b) adds facts.\nTherefore, Output (a) is better.\n\nOutput (a)", Some(-1)),
        ("Output (a) is fine but Output (b) is better.\nFinal answer: Output (b)", Some(1)),
        ("Output (a) or Output (b)", None),
        ("Output (c)", None),
        ("Neither", None),
    ]);
}

#[test]
fn binary() {
    check(
        Parser::Binary,
        &[
            ("1", Some(1)),
            ("0", Some(-1)),
            ("Yes.", Some(1)),
            ("no", Some(-1)),
            ("**No**, response 1 is better", Some(-1)),
            ("Response 2 is more precise. Answer: 1", Some(1)),
            ("10", None),
            ("maybe", None),
            // The prompt repeated back: "Response 1" is not an answer.
            ("Is Response 2 better than Response 1? Answer 0 or 1.", None),
        ],
    );
}

#[test]
fn score() {
    check(
        Parser::Score,
        &[
            ("5", Some(1)),
            ("Score: 1", Some(-1)),
            ("3", Some(0)),
            ("4\nResponse 2 is correct.", Some(1)),
            ("Response 1 rambles. My rating is **2**.", Some(-1)),
            ("2.5", Some(-1)),
            ("9 out of 10", None),
            ("-4", None),
            ("none", None),
            // The prompt repeated back, numbers and all: no verdict.
            (
                "Rate which response is better.\nResponse 1: Crisp leaves\nGive a score from 1 to 5: 1 means Response 1 is much better",
                None,
            ),
        ],
    );
}

#[test]
fn comparative() {
    check(
        Parser::Comparative,
        &[
            ("8 7", Some(-1)),
            ("8.5, 7.0", Some(-1)),
            ("Score: 6; Score: 9", Some(1)),
            (
                "Response 1: 8\nResponse 2: 9\nResponse 2 is more complete.",
                Some(1),
            ),
            ("7 7", Some(0)),
            ("8", None),
            ("", None),
            ("[Response 1]\nStep 1 ...\n[Response 2]\nStep 2 ...", None),
        ],
    );
}

#[test]
fn json_label() {
    check(
        Parser::JsonLabel,
        &[
            (r#"{"label": 1, "reason": "clearer"}"#, Some(-1)),
            (
                r#"```json\n{"label": "2", "reason": "correct"}\n```"#,
                Some(1),
            ),
            (r#"{"label": 0}"#, Some(0)),
            (r#"{"label": "tie"}"#, Some(0)),
            (r#"{"label": 10, "reason": "x"}"#, None),
            (r#"{"label": 0.5}"#, None),
            (r#"{"reason": "no label"}"#, None),
            // Broken JSON: the fallback reads the label token whole.
            (r#"{"label": 2, "reason": "unterminated"#, Some(1)),
            (r#"{"label": 10, "reason": "unterminated"#, None),
            (r#"{'label': 1}"#, None),
            ("no json", None),
        ],
    );
    assert_eq!(
        Parser::JsonLabel.parse(r#"{"label": 10}"#),
        Verdict::Unparseable("label 10 is not 1, 2 or 0".into())
    );
}

#[test]
fn rendered_examples_parse_back() {
    for parser in Parser::ALL {
        let verdicts: &[i64] = if parser.allows_tie() {
            &[-1, 0, 1]
        } else {
            &[-1, 1]
        };
        for &verdict in verdicts {
            assert_eq!(
                parser.parse(&parser.render(verdict)),
                Verdict::Rated(verdict),
                "{parser} {verdict}"
            );
        }
        assert_eq!(Parser::from_name(parser.name()), Some(parser));
    }
}

/// The built-ins and a regex parser under each match policy.
fn every_parser() -> Vec<Parser> {
    let mut all = Parser::ALL.to_vec();
    for policy in [
        MatchPolicy::First,
        MatchPolicy::Last,
        MatchPolicy::Unique,
        MatchPolicy::Priority,
    ] {
        let patterns = [
            (-1, r"(?i)output \(a\)|\[\[A\]\]".to_string()),
            (0, r"<tie>|=".to_string()),
            (1, r"(?i)output \(b\)|\[\[B\]\]".to_string()),
        ];
        all.push(Parser::Regex(std::sync::Arc::new(
            RegexParser::new(&patterns, policy).expect("valid patterns"),
        )));
    }
    all
}

proptest! {
    #[test]
    fn parsers_never_panic_and_explain(text in ".{0,300}") {
        for parser in every_parser() {
            match parser.parse(&text) {
                Verdict::Rated(v) => prop_assert!((-1..=1).contains(&v)),
                Verdict::Unparseable(why) => prop_assert!(!why.is_empty()),
            }
        }
    }

    #[test]
    fn parsers_survive_verdict_soup(parts in proptest::collection::vec(
        prop_oneof![
            Just("<winner>"), Just("</winner>"), Just("<tie>"), Just("[["), Just("]]"), Just("A"), Just("B"),
            Just(">"), Just("="), Just("Output (a)"), Just("Output (b)"), Just("{"), Just("}"), Just("\"label\":"),
            Just("1"), Just("2"), Just("0.5"), Just("\n"), Just("é"), Just("-"),
        ], 0..40)) {
        let text: String = parts.concat();
        for parser in every_parser() {
            let _ = parser.parse(&text);
        }
    }
}

/// Real chain-of-thought answers (LLMBar's recordings) and the statement forms each parser
/// documents: statements count, mentions never do, a final statement wins, conflicts are no
/// verdict.
#[test]
fn output_ab_reads_verdict_statements_in_reasoning() {
    check(Parser::OutputAb, &[
        // The verdict at the start, then reasoning that names both.
        ("Output (a) is better.\n\nOutput (a) is more concise. Output (b) is too long.", Some(-1)),
        // At the end, after reasoning that names both.
        ("Output (a) only covers part of the content, while Output (b) is comprehensive. Therefore, Output (b) is better.", Some(1)),
        // In the middle.
        ("After evaluating the two outputs, I have determined that Output (b) is better.\n\nOutput (a) is brief.", Some(1)),
        ("Final verdict: Output (a)", Some(-1)),
        ("Output (a) rambles; Output (b) is on point.\n\n**Output (b)**", Some(1)),
        ("Therefore, Output (b).", Some(1)),
        ("Output (b)\n\nExplanation: Output (a) misses the question.", Some(1)),
        ("I would choose Output (a) because it follows the instruction.", Some(-1)),
        ("Output (b) is slightly better than Output (a).", Some(1)),
        ("Therefore, Output (a) is worse.", Some(1)),
        // A final form wins over an earlier statement: the judge revised itself.
        ("Output (a) is better at first sight. On reflection, the facts are wrong.\nTherefore, Output (b) is better.", Some(1)),
        ("# Output (a):\nsome text\n# Output (b):\nother text\n# Decision:\nOutput (a) is better.", Some(-1)),
        // Conflicting statements and no final one: no verdict.
        ("Output (b) is better.\n\nOutput (a) is better because it is more concise.", None),
        // Hedged, qualified or negated statements are not verdicts.
        ("Therefore, neither Output (a) nor Output (b) is better.", None),
        ("Output (a) is better if the goal is speed. Output (b) is better if the goal is detail.", None),
        ("Output (a) is not better than Output (b) in any way that matters here", None),
        // Mentions only.
        ("Output (a) is a regular expression. Output (b) is a list.", None),
        ("# Output (a):\n\n1. What is CDPQ?", None),
    ]);
    assert_eq!(
        Parser::OutputAb.parse("Output (a) is short. Output (b) is long."),
        Verdict::Unparseable(
            "Output (a)/(b) only mentioned, no verdict statement such as 'Output (a) is better'"
                .into()
        )
    );
    assert_eq!(
        Parser::OutputAb.parse("Output (b) is better.\n\nOutput (a) is better, really."),
        Verdict::Unparseable(
            "conflicting verdict statements (response 1 vs response 2) and no final one".into()
        )
    );
}

#[test]
fn tags_after_reasoning_and_echoed_instructions() {
    // MT-Bench: the instructions echoed, then reasoning, then the verdict on its own line.
    let echoed = "I must output \"[[A]]\" if assistant A is better, \"[[B]]\" if assistant B is better, and \"[[C]]\" for a tie.\nAssistant A is vague; assistant B answers.\n\n[[B]]";
    check(
        Parser::AbBrackets,
        &[
            (echoed, Some(1)),
            ("Assistant A is correct.\n\nFinal verdict: [[A]]", Some(-1)),
            // A first guess revised by the closing verdict.
            ("[[A]] seemed right, but A miscounts.\n[[B]]", Some(1)),
            ("Output [[A]], [[B]] or [[C]].", None),
            ("[[A]] looks good. [[B]] is also fine.", None),
        ],
    );
    assert_eq!(
        Parser::AbBrackets.parse("Answer with [[A]], [[B]] or [[C]]."),
        Verdict::Unparseable(
            "[[A]], [[B]] or [[C]] only mentioned (quoted, listed or conditional, as in the instructions), never stated".into()
        )
    );
    check(Parser::ArenaHard, &[
        ("Assistant B is more helpful.\n\nMy final verdict is: [[B>A]]", Some(1)),
        ("Choose [[A>>B]], [[A>B]], [[A=B]], [[B>A]] or [[B>>A]].\nA is slightly better.\n\n[[A>B]]", Some(-1)),
    ]);
    check(Parser::WinnerTagTie, &[
        ("Answer <winner>1</winner> or <winner>2</winner>, or <tie> if equal.\nResponse 2 is right.\n<winner>2</winner>", Some(1)),
        ("Both are equally good.\n<tie>", Some(0)),
    ]);
}

#[test]
fn regex_parser_from_a_template() {
    let parser = Parser::Regex(std::sync::Arc::new(
        RegexParser::new(
            &[
                (-1, r"(?:^|\n) ?Output \(a\)".into()),
                (1, r"(?:^|\n) ?Output \(b\)".into()),
            ],
            MatchPolicy::Priority,
        )
        .expect("valid"),
    ));
    assert_eq!(parser.name(), "regex");
    // LLMBar's vanilla reading: a line starting with Output (a) wins, wherever it stands.
    assert_eq!(
        parser.parse("Output (b) is better.\n\nOutput (a) is too short."),
        Verdict::Rated(-1)
    );
    assert_eq!(parser.parse(&parser.render(1)), Verdict::Rated(1));
    assert!(!parser.allows_tie());
}

/// `correct_json`'s grade, read as the published port of LongMemEval-V2's
/// `_parse_llm_binary_judgement` reads it (with the boundary after the digit).
#[test]
fn json_label_grades_as_longmemeval_v2() {
    let cases: &[(&str, Option<f64>)] = &[
        (r#"{"label": 1, "reason": "correct"}"#, Some(1.0)),
        (r#"{"label": "0", "reason": "wrong"}"#, Some(0.0)),
        ("```json\n{\"label\": 1}\n```", Some(1.0)),
        ("```\n{\"label\":0}\n```", Some(0.0)),
        (
            "The verdict: {\"label\": 1, \"reason\": \"fine\"} as asked",
            Some(1.0),
        ),
        // Not strict JSON: the fallbacks, in order.
        (r#"{"label": 1, "reason": "unterminated"#, Some(1.0)),
        ("{'label': 0, 'reason': 'single quotes'}", Some(0.0)),
        ("'label': 1", Some(1.0)),
        ("label: 1", Some(1.0)),
        ("LABEL = 0 (wrong)", Some(0.0)),
        ("the label: 1.", Some(1.0)),
        // The digit must end there, in JSON or not.
        (r#"{"label": 10}"#, None),
        (r#"{"label": 0.5}"#, None),
        ("label: 10", None),
        ("label: 0.5", None),
        ("label: 10, then label: 1", Some(1.0)),
        // Outside V2's contract.
        (r#"{"label": true}"#, None),
        (r#"{"label": "yes"}"#, None),
        (r#"{"label": 2}"#, None),
        ("relabel: 1", None),
        ("", None),
        ("```\n```", None),
        ("yes", None),
    ];
    for (text, want) in cases {
        assert_eq!(Parser::JsonLabel.grade(text).ok(), *want, "{text:?}");
    }
}

/// The presets' parsers read back what they render (the simulated judge's answers).
#[test]
fn published_renders_parse_back() {
    for p in crate::verdicts::Published::ALL {
        let parser = Parser::Published(p);
        if parser.reads_grades() {
            for grade in [1.0, 3.0, 5.0] {
                assert_eq!(
                    parser.grade(&parser.render_grade(grade)),
                    Ok(grade),
                    "{parser}"
                );
            }
            continue;
        }
        let verdicts: &[i64] = if parser.allows_tie() {
            &[-1, 0, 1]
        } else {
            &[-1, 1]
        };
        for &v in verdicts {
            assert_eq!(
                parser.parse(&parser.render(v)),
                Verdict::Rated(v),
                "{parser} {v}"
            );
        }
    }
}
