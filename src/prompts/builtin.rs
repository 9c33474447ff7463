//! The built-in templates. Those under a published name (the notebook's three, FastChat's
//! MT-Bench judges, AlpacaEval's) send their source's text byte for byte and name it
//! (`Template::source`); `raterlab_*` and arena-hard are raterlab's wordings of those formats.

use super::template::{Mode, Source, Template};
use crate::verdicts::probability::{Meaning, Position, Spec, Whitespace, DEFAULT_TOP};
use crate::verdicts::{MatchPolicy, Parser, RegexParser};
use std::sync::Arc;

/// The question both simple prompts ask; they differ only in the answer format.
macro_rules! simple_prompt {
    ($answer:literal) => {
        concat!(
            "You are comparing two responses to the same user prompt. Decide which response is better: \
more helpful, more accurate and more faithful to what the prompt asks for.

[User prompt]
{prompt}

[Response 1]
{response1}

[Response 2]
{response2}

Explain your reasoning briefly, then give your answer as <winner>1</winner> if Response 1 is \
better or <winner>2</winner> if Response 2 is better. ",
            $answer
        )
    };
}

const SIMPLE_NO_TIE: &str = simple_prompt!("Write the winner tag exactly once.");

const SIMPLE_WITH_TIE: &str =
    simple_prompt!("If the two are equally good, answer <tie> instead. Write exactly one answer.");

/// MT-Bench's question-and-answers layout, shared by the [[A]]/[[B]] prompts.
macro_rules! mt_bench_question {
    () => {
        "[User Question]
{prompt}

[The Start of Assistant A's Answer]
{response1}
[The End of Assistant A's Answer]

[The Start of Assistant B's Answer]
{response2}
[The End of Assistant B's Answer]"
    };
}

const GEMINI_NO_TIE: &str = concat!(
    "\
Please act as an impartial judge and evaluate the quality of the responses provided by two AI \
assistants to the user question shown below. Choose the assistant that follows the user's \
instructions and answers the question better, considering helpfulness, relevance, accuracy, \
depth and level of detail. Do not let the order of the responses, their length or the \
assistants' names influence you, and be as objective as possible. Begin with a short \
comparison of the two responses. After it, give your final verdict strictly in this format: \
\"[[A]]\" if assistant A is better, \"[[B]]\" if assistant B is better.

",
    mt_bench_question!()
);

const ARENA_HARD: &str = "\
<|User Prompt|>
{prompt}

<|The Start of Assistant A's Answer|>
{response1}
<|The End of Assistant A's Answer|>

<|The Start of Assistant B's Answer|>
{response2}
<|The End of Assistant B's Answer|>";

const ARENA_HARD_SYSTEM: &str = "\
Please act as an impartial judge and evaluate the quality of the responses provided by two AI \
assistants to the user prompt displayed below. First write your own answer to the prompt, \
then compare both assistants' answers with yours, pointing out mistakes or inaccurate \
information, and judge whether each answer is helpful, relevant and concise, and whether \
important information is missing. Then output your final verdict with exactly one of these \
labels:
1. Assistant A is significantly better: [[A>>B]]
2. Assistant A is slightly better: [[A>B]]
3. Tie, relatively the same: [[A=B]]
4. Assistant B is slightly better: [[B>A]]
5. Assistant B is significantly better: [[B>>A]]
Example output: \"My final verdict is tie: [[A=B]]\".";

/// The notebook's `PROMPT_MAP["simple_no_tie"]`, verbatim: its triple-quoted string with the
/// leading newline, the indentation and "[end of  prompt]" (two spaces), sent as the user
/// message `prompt.format(prompt=…, response1=…, response2=…)`.
const NOTEBOOK_SIMPLE_NO_TIE: &str = "\n          ## You are an impartial judge to evaluate the quality of two responses to the user prompt.\n\n          [Start of Prompt]{prompt} [end of  prompt]\n          [Start of Response 1]{response1}[End of the response 1]\n          [Start of Response 2]{response2}[End of the response 2]\n\n          Your output should strictly follow this format: <winner>1</winner>, if response 1 is better; <winner>2</winner>, if response 2 is better.\n          ";

/// The notebook's `PROMPT_MAP["simple_with_tie"]`, verbatim.
const NOTEBOOK_SIMPLE_WITH_TIE: &str = "\n          ## You are an impartial judge to evaluate the quality of two responses to the user prompt.\n\n          [Start of Prompt]{prompt} [end of  prompt]\n          [Start of Response 1]{response1}[End of the response 1]\n          [Start of Response 2]{response2}[End of the response 2]\n\n          Your output should strictly follow this format: <winner>1</winner>, if response 1 is better; <winner>2</winner>, if response 2 is better; <tie> if you cannot determine a winner\n          ";

/// The notebook's `PROMPT_MAP["reward-bench_gemini_no_tie"]`: the string inside its 1-tuple.
const NOTEBOOK_GEMINI_NO_TIE: &str = "Please act as an impartial judge and evaluate the quality of the responses provided by two AI assistants to the user question displayed below. You should choose the assistant that follows the user's instructions and answers the user's question better. Your evaluation should consider factors such as the helpfulness, relevance, accuracy, depth, creativity, and level of detail of their responses. Avoid any position biases and ensure that the order in which the responses were presented does not influence your decision. Do not allow the length of the responses to influence your evaluation. Do not favor certain names of the assistants. Be as objective as possible. Your output should only consist of '[[A]]' if assistant A is better, or '[[B]]' if assistant B is better. Omit any other output.\n[User Question]\n{prompt}\n\n[The Start of Assistant A's Answer]\n{response1}\n[The End of Assistant A's Answer]\n\n[The Start of Assistant B's Answer]\n{response2}\n[The End of Assistant B's Answer]";

/// Google's "evaluate your autorater" notebook (the last commit that changed it).
const NOTEBOOK: fn(&'static str) -> Source = |entry| Source {
    repo: "GoogleCloudPlatform/generative-ai",
    path: "gemini/evaluation/evaltask_approach/evaluate_autorater.ipynb",
    commit: "084626aa7389f68be1f3439344b17df75f636e52",
    entry,
    licence: "Apache-2.0",
};

/// FastChat's MT-Bench judges at the MT-Bench release ("positional biases"; the file says
/// "position" since 7ad1d63), like the multi-turn built-ins.
const FASTCHAT: fn(&'static str) -> Source = |entry| Source {
    repo: "lm-sys/FastChat",
    path: "fastchat/llm_judge/data/judge_prompts.jsonl",
    commit: "b494d0c6b4e7935f1764f8439e75da3e66beccc7",
    entry,
    licence: "Apache-2.0",
};

/// FastChat's `pair-v2` system prompt, verbatim.
const MT_BENCH_PAIR_SYSTEM: &str = "Please act as an impartial judge and evaluate the quality of the responses provided by two AI assistants to the user question displayed below. You should choose the assistant that follows the user's instructions and answers the user's question better. Your evaluation should consider factors such as the helpfulness, relevance, accuracy, depth, creativity, and level of detail of their responses. Begin your evaluation by comparing the two responses and provide a short explanation. Avoid any positional biases and ensure that the order in which the responses were presented does not influence your decision. Do not allow the length of the responses to influence your evaluation. Do not favor certain names of the assistants. Be as objective as possible. After providing your explanation, output your final verdict by strictly following this format: \"[[A]]\" if assistant A is better, \"[[B]]\" if assistant B is better, and \"[[C]]\" for a tie.";

/// FastChat's `pair-v2` prompt, verbatim (`{question}`, `{answer_a}`, `{answer_b}` as
/// `{prompt}`, `{response1}`, `{response2}`).
const MT_BENCH_PAIR: &str = "[User Question]\n{prompt}\n\n[The Start of Assistant A's Answer]\n{response1}\n[The End of Assistant A's Answer]\n\n[The Start of Assistant B's Answer]\n{response2}\n[The End of Assistant B's Answer]";

/// FastChat's `single-v1` prompt, verbatim (`{answer}` as `{response}`), sent after its system
/// prompt "You are a helpful assistant.".
const MT_BENCH_SINGLE: &str = "[Instruction]\nPlease act as an impartial judge and evaluate the quality of the response provided by an AI assistant to the user question displayed below. Your evaluation should consider factors such as the helpfulness, relevance, accuracy, depth, creativity, and level of detail of the response. Begin your evaluation by providing a short explanation. Be as objective as possible. After providing your explanation, you must rate the response on a scale of 1 to 10 by strictly following this format: \"[[rating]]\", for example: \"Rating: [[5]]\".\n\n[Question]\n{prompt}\n\n[The Start of Assistant's Answer]\n{response}\n[The End of Assistant's Answer]";

/// FastChat's `pair-v2-multi-turn` system prompt (llm_judge/data/judge_prompts.jsonl), verbatim.
const MT_BENCH_MULTI_SYSTEM: &str = "Please act as an impartial judge and evaluate the quality of the responses provided by two AI assistants to the user questions. You should choose the assistant that follows the user's instructions and answers the user's questions better. Your evaluation should consider factors such as the helpfulness, relevance, accuracy, depth, creativity, and level of detail of their responses. You should focus on who provides a better answer to the second user question. Begin your evaluation by comparing the responses of the two assistants and provide a short explanation. Avoid any positional biases and ensure that the order in which the responses were presented does not influence your decision. Do not allow the length of the responses to influence your evaluation. Do not favor certain names of the assistants. Be as objective as possible. After providing your explanation, output your final verdict by strictly following this format: \"[[A]]\" if assistant A is better, \"[[B]]\" if assistant B is better, and \"[[C]]\" for a tie.";

/// FastChat's `pair-v2-multi-turn` prompt as a jinja template: for a two-turn conversation
/// (one earlier question and answer, shared by both sides) byte for byte FastChat's
/// `{question_1}`/`{answer_a_1}`/`{question_2}`/`{answer_a_2}` layout; a longer or shorter
/// conversation shows each earlier turn the same way.
const MT_BENCH_MULTI: &str = "<|The Start of Assistant A's Conversation with User|>\n\n\
{% for t in turns %}### {% if t.role == 'user' %}User{% elif t.role == 'assistant' %}Assistant A{% else %}System{% endif %}:\n{{ t.content }}\n\n{% endfor %}\
### User:\n{{ question }}\n\n### Assistant A:\n{{ response1 }}\n\n<|The End of Assistant A's Conversation with User|>\n\n\n\
<|The Start of Assistant B's Conversation with User|>\n\n\
{% for t in turns %}### {% if t.role == 'user' %}User{% elif t.role == 'assistant' %}Assistant B{% else %}System{% endif %}:\n{{ t.content }}\n\n{% endfor %}\
### User:\n{{ question }}\n\n### Assistant B:\n{{ response2 }}\n\n<|The End of Assistant B's Conversation with User|>";

/// FastChat's `single-v1-multi-turn` system prompt, verbatim (its typo "You evaluation" and
/// trailing blank line included).
const MT_BENCH_SINGLE_MULTI_SYSTEM: &str = "Please act as an impartial judge and evaluate the quality of the response provided by an AI assistant to the user question displayed below. Your evaluation should consider factors such as the helpfulness, relevance, accuracy, depth, creativity, and level of detail of the response. You evaluation should focus on the assistant's answer to the second user question. Begin your evaluation by providing a short explanation. Be as objective as possible. After providing your explanation, you must rate the response on a scale of 1 to 10 by strictly following this format: \"[[rating]]\", for example: \"Rating: [[5]]\".\n\n";

/// FastChat's `single-v1-multi-turn` prompt as a jinja template (the graded response as
/// `{answer_2}`), by the same rule.
const MT_BENCH_SINGLE_MULTI: &str = "<|The Start of Assistant A's Conversation with User|>\n\n\
{% for t in turns %}### {% if t.role == 'user' %}User{% elif t.role == 'assistant' %}Assistant A{% else %}System{% endif %}:\n{{ t.content }}\n\n{% endfor %}\
### User:\n{{ question }}\n\n### Assistant A:\n{{ response }}\n\n<|The End of Assistant A's Conversation with User|>";

fn template(
    name: &str,
    description: &str,
    system: Option<&str>,
    text: &str,
    parser: Parser,
    allows_tie: bool,
) -> Template {
    Template {
        name: name.into(),
        description: description.into(),
        system: system.map(Into::into),
        text: text.into(),
        parser,
        allows_tie,
        mode: Mode::Pairwise,
        scale: None,
        probability: None,
        request: None,
        jinja: false,
        source: None,
    }
}

/// A pointwise template on the parser's default scale.
fn grader(
    name: &str,
    description: &str,
    system: Option<&str>,
    text: &str,
    parser: Parser,
) -> Template {
    Template {
        mode: Mode::Pointwise,
        scale: parser.default_scale(),
        ..template(name, description, system, text, parser, false)
    }
}

/// context-bench's `LLMJudge` layout: question, reference answer, response; a 1-5 score.
const REFERENCE_1_5: &str = "\
You are grading an answer against a reference answer.

Question: {prompt}

Reference answer: {reference}

Answer to grade: {response}

How well does the answer match the reference in correctness and completeness? Give a score \
from 1 (wrong or unrelated) to 5 (fully correct and complete). Reply with the score only.";

/// LongMemEval's judges: is the response acceptable? A JSON label 1 or 0 with a reason.
const CORRECT_JSON: &str = "\
Decide whether the response below answers the question correctly and follows its instructions.

Question: {prompt}

Response: {response}

Answer in JSON only: {\"label\": 1, \"reason\": \"...\"} if the response is correct, or \
{\"label\": 0, \"reason\": \"...\"} if it is not. The label is 1 or 0, nothing else.";

/// AlpacaEval 2's weighted judge (`weighted_alpaca_eval_gpt4_turbo`), verbatim from
/// tatsu-lab/alpaca_eval's `alpaca_eval_clf_gpt4_turbo/alpaca_eval_clf.txt` (Apache-2.0):
/// the system message, then the user message with `{instruction}`, `{output_1}` and
/// `{output_2}` as `{prompt}`, `{response1}` and `{response2}`.
const ALPACA_EVAL_SYSTEM: &str = "You are a highly efficient assistant, who evaluates and selects the best large language model (LLMs) based on the quality of their responses to a given instruction. This process will be used to create a leaderboard reflecting the most accurate and human-preferred answers.";

const ALPACA_EVAL_CLF: &str = r#"I require a leaderboard for various large language models. I'll provide you with prompts given to these models and their corresponding outputs. Your task is to assess these responses, and select the model that produces the best output from a human perspective.

## Instruction

{
    "instruction": """{prompt}""",
}

## Model Outputs

Here are the unordered outputs from the models. Each output is associated with a specific model, identified by a unique model identifier.

{
    {
        "model_identifier": "m",
        "output": """{response1}"""
    },
    {
        "model_identifier": "M",
        "output": """{response2}"""
    }
}

## Task

Evaluate the models based on the quality and relevance of their outputs, and select the model that generated the best output. Answer by providing the model identifier of the best model. We will use your output as the name of the best model, so make sure your output only contains one of the following model identifiers and nothing else (no quotes, no spaces, no new lines, ...): m or M.

## Best Model Identifier"#;

/// The AlpacaEval judge's hard verdict: the answer is the identifier, `m` or `M`, alone.
fn model_identifier() -> Parser {
    let patterns = [
        (-1, r"^\s*m\s*$".to_string()),
        (1, r"^\s*M\s*$".to_string()),
    ];
    Parser::Regex(Arc::new(
        RegexParser::new(&patterns, MatchPolicy::Unique).expect("valid built-in patterns"),
    ))
}

/// A one-token grade's probability: the first token over the grades `lo..=hi`.
fn grade_tokens(lo: i64, hi: i64) -> Spec {
    Spec {
        position: Position::First,
        tokens: (lo..=hi)
            .map(|g| (g.to_string(), Meaning::Grade(g as f64)))
            .collect(),
        whitespace: Whitespace::Strip,
        top: DEFAULT_TOP,
        identical_tie: false,
    }
}

pub fn all() -> Vec<Template> {
    vec![
        Template {
            source: Some(NOTEBOOK("PROMPT_MAP[\"simple_no_tie\"]")),
            ..template(
                "simple_no_tie",
                "the notebook's simple prompt: <winner>1</winner> or <winner>2</winner>",
                None,
                NOTEBOOK_SIMPLE_NO_TIE,
                Parser::WinnerTag,
                false,
            )
        },
        Template {
            source: Some(NOTEBOOK("PROMPT_MAP[\"simple_with_tie\"]")),
            ..template(
                "simple_with_tie",
                "the notebook's simple prompt with <tie> allowed",
                None,
                NOTEBOOK_SIMPLE_WITH_TIE,
                Parser::WinnerTagTie,
                true,
            )
        },
        Template {
            source: Some(NOTEBOOK("PROMPT_MAP[\"reward-bench_gemini_no_tie\"]")),
            ..template(
                "reward-bench_gemini_no_tie",
                "the notebook's reward-bench prompt: [[A]] or [[B]] alone (read by ab_brackets, as the notebook's later version reads it)",
                None,
                NOTEBOOK_GEMINI_NO_TIE,
                Parser::AbBrackets,
                false,
            )
        },
        Template {
            source: Some(FASTCHAT("pair-v2")),
            ..template(
                "mt-bench_pairwise",
                "FastChat's pair-v2 (MT-Bench's pairwise judge): system prompt + question; [[A]], [[B]] or [[C]] for a tie",
                Some(MT_BENCH_PAIR_SYSTEM),
                MT_BENCH_PAIR,
                Parser::AbBrackets,
                true,
            )
        },
        template(
            "raterlab_no_tie",
            "raterlab's wording of the notebook's simple prompt (the demo's): <winner>1</winner> or <winner>2</winner>",
            None,
            SIMPLE_NO_TIE,
            Parser::WinnerTag,
            false,
        ),
        template(
            "raterlab_with_tie",
            "raterlab's wording of the notebook's simple prompt with <tie> allowed (the demo's)",
            None,
            SIMPLE_WITH_TIE,
            Parser::WinnerTagTie,
            true,
        ),
        template(
            "raterlab_ab_no_tie",
            "raterlab's wording of MT-Bench's pairwise judge without a tie (the demo's): [[A]] or [[B]]",
            None,
            GEMINI_NO_TIE,
            Parser::AbBrackets,
            false,
        ),
        template(
            "arena-hard",
            "arena-hard's five-way verdict [[A>>B]] ... [[B>>A]]",
            Some(ARENA_HARD_SYSTEM),
            ARENA_HARD,
            Parser::ArenaHard,
            true,
        ),
        Template {
            probability: Some(Spec {
                position: Position::First,
                tokens: vec![
                    ("m".into(), Meaning::Response(1)),
                    ("M".into(), Meaning::Response(2)),
                ],
                whitespace: Whitespace::Exact,
                top: DEFAULT_TOP,
                identical_tie: true,
            }),
            ..template(
                "alpaca_eval_weighted",
                "AlpacaEval 2's weighted judge: one token, m or M; P(response 2) = p(M) / (p(m) + p(M)) from the first token's logprobs",
                Some(ALPACA_EVAL_SYSTEM),
                ALPACA_EVAL_CLF,
                model_identifier(),
                false,
            )
        },
        Template {
            jinja: true,
            source: Some(FASTCHAT("pair-v2-multi-turn")),
            ..template(
                "mt-bench_pairwise_multi-turn",
                "FastChat's pair-v2-multi-turn: the conversation as each assistant's, the second (last) answer judged; [[A]], [[B]] or [[C]] for a tie",
                Some(MT_BENCH_MULTI_SYSTEM),
                MT_BENCH_MULTI,
                Parser::AbBrackets,
                true,
            )
        },
        Template {
            jinja: true,
            source: Some(FASTCHAT("single-v1-multi-turn")),
            ..grader(
                "mt-bench_single_multi-turn",
                "FastChat's single-v1-multi-turn: the conversation, the last answer graded Rating: [[1..10]] (pointwise)",
                Some(MT_BENCH_SINGLE_MULTI_SYSTEM),
                MT_BENCH_SINGLE_MULTI,
                Parser::Rating,
            )
        },
        Template {
            source: Some(FASTCHAT("single-v1")),
            ..grader(
                "mt-bench_single",
                "FastChat's single-v1 (MT-Bench's single-answer grading): Rating: [[1..10]] per response (pointwise)",
                Some("You are a helpful assistant."),
                MT_BENCH_SINGLE,
                Parser::Rating,
            )
        },
        grader(
            "reference_1-5",
            "a 1-5 grade against a reference answer, context-bench's LLMJudge layout (pointwise; --map reference=COL)",
            None,
            REFERENCE_1_5,
            Parser::Score,
        ),
        Template {
            probability: Some(grade_tokens(1, 5)),
            ..grader(
                "reference_1-5_logprobs",
                "reference_1-5 read as probabilities: the expected grade over the first token's 1..5 (pointwise)",
                None,
                REFERENCE_1_5,
                Parser::Score,
            )
        },
        grader(
            "correct_json",
            "LongMemEval-style binary judge: {\"label\": 1|0, \"reason\": ...} per response (pointwise)",
            None,
            CORRECT_JSON,
            Parser::JsonLabel,
        ),
        grader(
            SCORES_PROMPT,
            "what a scores:FILE judge answers: the file's score for each response to its prompt (pointwise)",
            None,
            // The prompt too: the same text answering two prompts is two responses, each with
            // its own score (and its own call, never shared between them).
            "{prompt}\n\n{response}",
            Parser::Number,
        ),
    ]
}

/// The prompt of `scores:FILE` judges, which send nothing and answer from the file.
pub const SCORES_PROMPT: &str = "scores";
