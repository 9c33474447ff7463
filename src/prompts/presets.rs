//! The presets: fine-tuned judges' prompts and readers under their projects' names, each its
//! source's text byte for byte (`tests/fixtures/generate_prompt_fixtures.py` renders every one
//! with the project's own code, and `tests/integration/published_prompts.rs` compares the
//! requests). A judge that continues one string (JudgeLM, PandaLM, Auto-J) gets it as the one
//! user message: serve it with a chat template that adds nothing around that message.

use super::template::{Mode, Source, Template};
use crate::verdicts::{Parser, Published};

/// prometheus-eval's `REL_SYSTEM_PROMPT`.
const PROMETHEUS_REL_SYSTEM: &str = "You are a fair judge assistant assigned to deliver insightful feedback that compares individual performances, highlighting how each stands relative to others within the same cohort.";

/// prometheus-eval's `ABS_SYSTEM_PROMPT`.
const PROMETHEUS_ABS_SYSTEM: &str = "You are a fair judge assistant tasked with providing clear, objective feedback based on specific criteria, ensuring each assessment reflects the absolute standards set for performance.";

/// prometheus-eval's `RELATIVE_PROMPT_WO_REF`, or `RELATIVE_PROMPT` when the item has a reference
/// answer (`--map reference=COL`), filled with `HELPFULNESS_RUBRIC` as its relative grading takes
/// it (the first line).
const PROMETHEUS_RELATIVE: &str = "###Task Description:\nAn instruction (might include an Input inside it), two responses to evaluate (denoted as Response A and Response B),{% if reference %} a reference answer,{% endif %} and an evaluation criteria are given.\n1. Write a detailed feedback that assess the quality of the two responses strictly based on the given evaluation criteria, not evaluating in general.\n2. Make comparisons between Response A, Response B, and the Reference Answer. Instead of examining Response A and Response B separately, go straight to the point and mention about the commonalities and differences between them.\n3. After writing the feedback, indicate the better response, either \"A\" or \"B\".\n4. The output format should look as follows: \"Feedback: (write a feedback for criteria) [RESULT] (Either \"A\" or \"B\")\"\n5. Please do not generate any other opening, closing, and explanations.\n\n###Instruction:\n{{ prompt }}\n\n###Response A:\n{{ response1 }}\n\n###Response B:\n{{ response2 }}\n\n{% if reference %}###Reference Answer:\n{{ reference }}\n\n{% endif %}###Score Rubric:\n[Does the model provide relevant and useful responses to the user's needs or questions?]\n\n###Feedback: ";

/// prometheus-eval's `ABSOLUTE_PROMPT_WO_REF`, or `ABSOLUTE_PROMPT` with a reference answer, filled
/// with `HELPFULNESS_RUBRIC` whole.
const PROMETHEUS_ABSOLUTE: &str = "###Task Description:\nAn instruction (might include an Input inside it), a response to evaluate,{% if reference %} a reference answer that gets a score of 5,{% endif %} and a score rubric representing a evaluation criteria are given.\n1. Write a detailed feedback that assess the quality of the response strictly based on the given score rubric, not evaluating in general.\n2. After writing a feedback, write a score that is an integer between 1 and 5. You should refer to the score rubric.\n3. The output format should look as follows: \"(write a feedback for criteria) [RESULT] (an integer number between 1 and 5)\"\n4. Please do not generate any other opening, closing, and explanations.\n\n###The instruction to evaluate:\n{{ prompt }}\n\n###Response to evaluate:\n{{ response }}\n\n{% if reference %}###Reference Answer (Score 5):\n{{ reference }}\n\n{% endif %}###Score Rubrics:\n[Does the model provide relevant and useful responses to the user's needs or questions?]\nScore 1: The model's responses are irrelevant or unhelpful to the user's needs or queries.\nScore 2: The model sometimes provides helpful information, but often fails to address the user's actual needs or questions.\nScore 3: The model generally provides helpful responses that address the user's needs, though it may occasionally miss the mark.\nScore 4: The model regularly provides helpful responses that are well-aligned with the user's inquiries, with only rare inaccuracies.\nScore 5: The model consistently offers highly relevant and useful responses that perfectly cater to the user's needs and inquiries.\n\n###Feedback: ";

/// JudgeLM's `conv_judge_pair` (`conv_judge_pair_w_reference` with a reference answer) joined as
/// `gen_model_judgement.py` joins it: `system + '\n' + prompt_template.format(...) + appendix`,
/// one string the model continues, sent as the user message.
const JUDGELM: &str = "You are a helpful and precise assistant for checking the quality of the answer.\n[Question]\n{{ prompt }}\n\n{% if reference %}[Reference Answer]\n{{ reference }}\n\n{% endif %}[The Start of Assistant 1's Answer]\n{{ response1 }}\n\n[The End of Assistant 1's Answer]\n\n[The Start of Assistant 2's Answer]\n{{ response2 }}\n\n[The End of Assistant 2's Answer]\n\n[System]\nWe would like to request your feedback on the performance of two AI assistants in response to the user question displayed above.\nPlease rate the helpfulness, relevance, accuracy, level of details of their responses. Each assistant receives an overall score on a scale of 1 to 10, where a higher score indicates better overall performance.\nPlease first output a single line containing only two values indicating the scores for Assistant 1 and 2, respectively. The two scores are separated by a space. In the subsequent line, please provide a comprehensive explanation of your evaluation, avoiding any potential bias and ensuring that the order in which the responses were presented does not affect your judgment.\n\n### Response:";

/// PandaLM's `build_pandalm_prompt` without an input: each response stripped, its special tokens
/// removed and stripped again, as the function does; one string, sent as the user message.
const PANDALM: &str = "Below are two responses for a given task. The task is defined by the Instruction. Evaluate the responses and generate a reference answer for the task.\n\n### Instruction:\n{{ prompt }}\n\n### Response 1:\n{{ response1 | strip | regex_replace('<unk>|<pad>|<s>|</s>|\\\\[PAD\\\\]|<\\\\|endoftext\\\\|>|\\\\[UNK\\\\]|\\\\[CLS\\\\]|\\\\[MASK\\\\]|<\\\\|startofpiece\\\\|>|<\\\\|endofpiece\\\\|>|\\\\[gMASK\\\\]|\\\\[sMASK\\\\]', '') | strip }}\n\n### Response 2:\n{{ response2 | strip | regex_replace('<unk>|<pad>|<s>|</s>|\\\\[PAD\\\\]|<\\\\|endoftext\\\\|>|\\\\[UNK\\\\]|\\\\[CLS\\\\]|\\\\[MASK\\\\]|<\\\\|startofpiece\\\\|>|<\\\\|endofpiece\\\\|>|\\\\[gMASK\\\\]|\\\\[sMASK\\\\]', '') | strip }}\n\n### Evaluation:\n";

/// Auto-J's `build_autoj_input(prompt, resp1, resp2, "pairwise_tie")`: `pairwise_tie` in the
/// llama-2 wrapper without a system message.
const AUTOJ_PAIRWISE: &str = "[INST] You are assessing two submitted responses on a given user's query and judging which response is better or they are tied. Here is the data:\n\n[BEGIN DATA]\n***\n[Query]: {prompt}\n***\n[Response 1]: {response1}\n***\n[Response 2]: {response2}\n***\n[END DATA]\n\nHere are the instructions to assess and compare the two responses:\n\n1. Pinpoint the key factors to distinguish these two responses.\n2. Conclude your comparison by providing a final decision on which response is better, or they are tied. Begin your final decision statement with \"So, the final decision is Response 1 / Response 2 / Tie\". Ensure that your decision aligns coherently with the comprehensive evaluation and comparison you've provided. [/INST]";

/// Auto-J's `build_autoj_input(prompt, resp1, None, "single")`.
const AUTOJ_SINGLE: &str = "[INST] Write critiques for a submitted response on a given user's query, and grade the response:\n  \n[BEGIN DATA]\n***\n[Query]: {prompt}\n***\n[Response]: {response}\n***\n[END DATA]\n\nWrite critiques for this response. After that, you should give a final rating for the response on a scale of 1 to 10 by strictly following this format: \"[[rating]]\", for example: \"Rating: [[5]]\". [/INST]";

/// Skywork-Critic's prompt as JudgeBench renders `skywork_critic_prompt.jinja2` (jinja2 drops the
/// file's final newline).
const SKYWORK_CRITIC: &str = "Please act as an impartial judge and evaluate the quality of the responses provided by two AI assistants to the user question displayed below. You should choose the assistant that follows the user's instructions and answers the user's question better. \nYour evaluation should consider factors such as the helpfulness, relevance, accuracy, depth, creativity, and level of detail of their responses. Avoid any position biases and ensure that the order in which the responses were presented does not influence your decision. Do not allow the length of the responses to influence your evaluation. Do not favor certain names of the assistants. Be as objective as possible. \nPlease directly output your final verdict by strictly following this format: \"[[A]]\" if assistant A is better, \"[[B]]\" if assistant B is better.\n\n[User Question]\n{prompt}\n\n[The Start of Assistant A's Answer]\n{response1}\n[The End of Assistant A's Answer]\n\n[The Start of Assistant B's Answer]\n{response2}\n[The End of Assistant B's Answer]";

/// OffsetBias' `user` template (its curly quotes and the line of spaces included); it has no
/// system message.
const OFFSETBIAS: &str = "You are a helpful assistant in evaluating the quality of the outputs for a given instruction. Your goal is to select the best output for the given instruction.\n                \nSelect the Output (a) or Output (b) that is better for the given instruction. The two outputs are generated by two different AI chatbots respectively.\nDo NOT provide any explanation for your choice.\nDo NOT say both / neither are good.\nYou should answer using ONLY “Output (a)” or “Output (b)”. Do NOT output any other words.\nHere are some rules of the evaluation:\n(1) You should prioritize evaluating whether the output honestly/precisely/closely executes the instruction, then consider its helpfulness, accuracy, level of detail, harmlessness, etc.\n(2) Outputs should NOT contain more/less than what the instruction asks for, as such outputs do NOT precisely execute the instruction.\n(3) You should avoid any potential bias and your judgment should be as objective as possible. For example, the order in which the outputs were presented should NOT affect your judgment, as Output (a) and Output (b) are **equally likely** to be the better.\n\n# Instruction:\n{prompt}\n# Output (a):\n{response1}\n# Output (b):\n{response2}\n# Which is better, Output (a) or Output (b)? Your response should be either “Output (a)” or “Output (b)”:";

const PROMETHEUS: fn(&'static str) -> Source = |entry| Source {
    repo: "prometheus-eval/prometheus-eval",
    path: "libs/prometheus-eval/prometheus_eval/prompts.py",
    commit: "dcfb44272d5d0414832f5dbb8c2a05ebc2614234",
    entry,
    licence: "Apache-2.0",
};

fn preset(
    name: &str,
    description: &str,
    system: Option<&str>,
    text: &str,
    parser: Published,
    source: Source,
) -> Template {
    let parser = Parser::Published(parser);
    let pointwise = parser.reads_grades();
    Template {
        name: name.into(),
        description: description.into(),
        system: system.map(Into::into),
        text: text.into(),
        allows_tie: parser.allows_tie() && !pointwise,
        mode: if pointwise {
            Mode::Pointwise
        } else {
            Mode::Pairwise
        },
        scale: parser.default_scale(),
        parser,
        probability: None,
        request: None,
        jinja: text.contains("{{"),
        source: Some(source),
    }
}

/// The presets, in the order `prompts list` shows them.
pub fn all() -> Vec<Template> {
    vec![
        preset(
            "prometheus2_relative",
            "Prometheus 2's relative grading: [RESULT] A or B (helpfulness rubric; a reference answer with --map reference=COL)",
            Some(PROMETHEUS_REL_SYSTEM),
            PROMETHEUS_RELATIVE,
            Published::PrometheusRelative,
            PROMETHEUS("REL_SYSTEM_PROMPT, RELATIVE_PROMPT(_WO_REF), HELPFULNESS_RUBRIC; parser.py"),
        ),
        preset(
            "prometheus2_absolute",
            "Prometheus 2's absolute grading: [RESULT] 1-5 per response (helpfulness rubric; pointwise)",
            Some(PROMETHEUS_ABS_SYSTEM),
            PROMETHEUS_ABSOLUTE,
            Published::PrometheusAbsolute,
            PROMETHEUS("ABS_SYSTEM_PROMPT, ABSOLUTE_PROMPT(_WO_REF), HELPFULNESS_RUBRIC; parser.py"),
        ),
        preset(
            "judgelm",
            "JudgeLM: two scores 1-10 on the first line, equal scores a tie (judgelm_tie: an unreadable answer a tie, as JudgeLM reads it)",
            None,
            JUDGELM,
            Published::JudgeLm { tie_fallback: false },
            Source {
                repo: "baaivision/JudgeLM",
                path: "judgelm/llm_judge/common.py",
                commit: "00c45169de47641f62223f57cc15b608bc3cc69d",
                entry: "conv_judge_pair(_w_reference), joined as gen_model_judgement.py does; parse_score",
                licence: "Apache-2.0",
            },
        ),
        preset(
            "pandalm",
            "PandaLM: the first line 1, 2 or Tie, the responses stripped (pandalm_tie: any other first line a tie, as PandaLM reads it)",
            None,
            PANDALM,
            Published::PandaLm { tie_fallback: false },
            Source {
                repo: "WeOpenML/PandaLM",
                path: "pandalm/utils/pandalm_inference.py",
                commit: "3871806e72b4832f815ecafd24d3503c73403f48",
                entry: "build_pandalm_prompt, parse_pandalm_response",
                licence: "Apache-2.0",
            },
        ),
        preset(
            "autoj_pairwise",
            "Auto-J's pairwise_tie protocol in [INST] ... [/INST]: the last \"final decision is\" Response 1, Response 2 or Tie",
            None,
            AUTOJ_PAIRWISE,
            Published::AutojPairwise,
            AUTOJ("build_autoj_input(..., \"pairwise_tie\"); example.py's extract_pariwise_result"),
        ),
        preset(
            "autoj_single",
            "Auto-J's single protocol in [INST] ... [/INST]: the last Rating: [[x]], 1-10 per response (pointwise)",
            None,
            AUTOJ_SINGLE,
            Published::AutojRating,
            AUTOJ("build_autoj_input(..., \"single\"); example.py's extract_single_rating"),
        ),
        preset(
            "skywork_critic",
            "Skywork-Critic as JudgeBench asks it: [[A]] or [[B]] (skywork_critic_judgebench: JudgeBench's reader, any letter A)",
            None,
            SKYWORK_CRITIC,
            Published::SkyworkCritic { judgebench: false },
            Source {
                repo: "ScalerLab/JudgeBench",
                path: "utils/templates/skywork_critic_prompt.jinja2",
                commit: "e2c52c284e735e139b3daa61c206ee208f36c461",
                entry: "rendered by utils/prompts.py for utils/judges.py's SkyworkCritic",
                licence: "no licence file",
            },
        ),
        preset(
            "offsetbias",
            "OffsetBias: Output (a) or Output (b), read by its get_prediction",
            None,
            OFFSETBIAS,
            Published::OffsetBias,
            Source {
                repo: "ncsoft/offsetbias",
                path: "prompt/offsetbias.py",
                commit: "0bd16e4ac935315999ed23480c69673b675884b0",
                entry: "user, output_pattern; module.py's make_conversation and get_prediction",
                licence: "BSD-3-Clause",
            },
        ),
    ]
}

const AUTOJ: fn(&'static str) -> Source = |entry| Source {
    repo: "GAIR-NLP/auto-j",
    path: "codes/usage/constants_prompt.py",
    commit: "2ae17a3965d933232e9cd50302aa0f176249c83b",
    entry,
    licence: "no licence file",
};
