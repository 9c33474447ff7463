//! What a calibrate run will call: its configurations, checked before the first call, built
//! from the plan options (and an experiment file). `calibrate` and `batch export` share it.

use super::data::DataSettings;
use super::judges::{self, JudgeSetup};
use super::jury::ConfigKey;
use super::record::{ConfigMeta, Form};
use crate::dataset::hub::Progress;
use crate::error::input_error;
use crate::judge::cache::Cache;
use crate::prompts::{self, Template};
use crate::raters::{Config, RaterKind};
use crate::run::settings::{JudgeSettings, JudgeSpec, PlanSettings};
use crate::verdicts::Parser;
use anyhow::{Context, Result};
use serde::Deserialize;
use std::path::Path;
use std::sync::Arc;

/// A judge of an experiment file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct JudgeEntry {
    label: Option<String>,
    judge: Option<String>,
    endpoint: Option<String>,
    model: Option<String>,
    api_key_env: Option<String>,
    temperature: Option<f64>,
    max_tokens: Option<u32>,
    top_logprobs: Option<u32>,
    reasoning_effort: Option<String>,
    /// This judge's own prompts, in place of the experiment's.
    prompts: Option<Vec<String>>,
    /// Its model's price: `{ input = 2.5, output = 10 }`, dollars per million tokens.
    price: Option<crate::judge::Price>,
}

/// `--config exp.toml`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Experiment {
    name: Option<String>,
    #[serde(default)]
    prompts: Vec<String>,
    #[serde(default)]
    raters: Vec<String>,
    parser: Option<String>,
    #[serde(default, rename = "judge")]
    judges: Vec<JudgeEntry>,
    #[serde(default, rename = "jury")]
    juries: Vec<crate::run::settings::JuryEntry>,
}

fn read_experiment(path: &Path) -> Result<Experiment> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        input_error(format!(
            "cannot read the experiment file '{}': {e}",
            path.display()
        ))
    })?;
    toml::from_str(&text).map_err(|e| {
        // Where: the line the parser stopped at.
        let at = e.span().map_or(String::new(), |s| {
            let line = text[..s.start.min(text.len())].matches('\n').count() + 1;
            format!(", line {line}")
        });
        input_error(format!(
            "experiment file '{}' is not valid{at}: {}; see docs/guide.md, \"Experiment files\"",
            path.display(),
            e.message()
        ))
    })
}

/// A template with `--parser` and `--system` applied.
pub fn template(name: &str, parser: Option<&str>, system: Option<&str>) -> Result<Template> {
    let mut template = prompts::resolve(name)?;
    if let Some(p) = parser {
        if p == "regex" {
            return Err(input_error(
                "--parser regex needs patterns, which only a TOML template can give: write parser = \"regex\", match = \"first\" (or last, unique, priority) and [[patterns]] entries in a prompt file (see examples/prompts/llmbar-cot.toml)",
            ));
        }
        let parser = Parser::from_name(p).ok_or_else(|| {
            input_error(format!(
                "unknown parser '{p}'; parsers are {}",
                prompts::parser_names()
            ))
        })?;
        template = template.with_parser(parser);
    }
    if let Some(s) = system {
        template.system = Some(s.to_string());
    }
    Ok(template)
}

struct Judged {
    label: String,
    setup: JudgeSetup,
    args: JudgeSettings,
    /// The judge's own prompts (an experiment file's `prompts` under its `[[judge]]`).
    templates: Option<Vec<Template>>,
    /// Its model's price: the experiment file's, else `--price`'s for the model.
    price: Option<crate::judge::Price>,
}

/// `--price` for `model`.
fn price_of(args: &JudgeSettings, model: &str) -> Option<crate::judge::Price> {
    args.prices
        .iter()
        .rev()
        .find(|p| p.model == model)
        .map(|p| p.price)
}

/// A `--price` for a model no judge uses is a mistake (a misspelt name would leave the run in
/// tokens without a word).
fn check_prices(args: &JudgeSettings, judged: &[Judged]) -> Result<()> {
    for p in &args.prices {
        if !judged.iter().any(|j| j.setup.model == p.model) {
            let models: Vec<&str> = judged.iter().map(|j| j.setup.model.as_str()).collect();
            return Err(input_error(format!(
                "--price {}: no judge of this run uses the model '{}'; its models: {}. Name the model as --model does",
                p.model,
                p.model,
                models.join(", ")
            )));
        }
    }
    Ok(())
}

fn judges_from(
    args: &PlanSettings,
    experiment: &Experiment,
    parser: Option<&str>,
    progress: &dyn Progress,
) -> Result<Vec<Judged>> {
    if !experiment.judges.is_empty() {
        return experiment
            .judges
            .iter()
            .enumerate()
            .map(|(i, entry)| {
                let mut a = args.judge.clone();
                if let Some(j) = &entry.judge {
                    a.judge = Some(j.parse().map_err(|e| {
                        input_error(format!(
                            "{}: [[judge]] {}: {e}",
                            args.config.as_deref().unwrap_or(Path::new("")).display(),
                            i + 1
                        ))
                    })?);
                }
                if entry.endpoint.is_some() {
                    a.endpoint = entry.endpoint.clone();
                }
                if let Some(k) = &entry.api_key_env {
                    a.api_key_env = k.clone();
                }
                if entry.temperature.is_some() {
                    a.temperature = entry.temperature;
                }
                if let Some(m) = entry.max_tokens {
                    a.max_tokens = m;
                }
                if entry.top_logprobs.is_some() {
                    a.top_logprobs = entry.top_logprobs;
                }
                if entry.reasoning_effort.is_some() {
                    a.reasoning_effort = entry.reasoning_effort.clone();
                }
                let setup = judges::build(&a, entry.model.as_deref(), progress)
                    .with_context(|| format!("judge {} of the experiment file", i + 1))?;
                let label = entry.label.clone().unwrap_or_else(|| setup.model.clone());
                let templates = entry
                    .prompts
                    .as_ref()
                    .map(|names| {
                        names
                            .iter()
                            .map(|p| template(p, parser, a.system.as_deref()))
                            .collect::<Result<Vec<_>>>()
                    })
                    .transpose()
                    .with_context(|| format!("judge {} of the experiment file", i + 1))?;
                let price = entry.price.or_else(|| price_of(&a, &setup.model));
                Ok(Judged {
                    label,
                    setup,
                    args: a,
                    templates,
                    price,
                })
            })
            .collect();
    }
    let models: Vec<Option<&str>> = if args.judge.model.is_empty() {
        vec![None]
    } else {
        args.judge.model.iter().map(|m| Some(m.as_str())).collect()
    };
    models
        .into_iter()
        .map(|m| {
            let setup = judges::build(&args.judge, m, progress)?;
            Ok(Judged {
                label: setup.model.clone(),
                price: price_of(&args.judge, &setup.model),
                setup,
                args: args.judge.clone(),
                templates: None,
            })
        })
        .collect()
}

/// The configurations of a run, their descriptions, the caches their judges use, the name an
/// experiment file gives the run.
#[derive(Debug)]
pub struct Plan {
    pub configs: Vec<Config>,
    pub metas: Vec<ConfigMeta>,
    pub caches: Vec<Arc<Cache>>,
    pub name: Option<String>,
    /// Juries over `configs` (no calls of their own), with their descriptions.
    pub juries: Vec<(crate::raters::jury::Jury, ConfigMeta)>,
}

/// The judges' configurations, their descriptions and who each is (judge label, prompt, rater).
type Judged3 = (Vec<Config>, Vec<ConfigMeta>, Vec<Option<ConfigKey>>);

/// The configurations of the judges: each template × rater (a scores file: its one prompt,
/// basic), named `prompt/rater` (`judge/prompt/rater` with several judges).
fn judged_configs(
    judged: &[Judged],
    templates: &[crate::prompts::Template],
    raters: &[RaterKind],
    pointwise: crate::raters::PointwiseRule,
) -> Result<Judged3> {
    let mut configs = Vec::new();
    let mut metas = Vec::new();
    let mut keys = Vec::new();
    let several = judged.len() > 1;
    let scores_template = template(crate::prompts::SCORES_PROMPT, None, None)?;
    for j in judged {
        // A scores file answers one prompt (its scores) once: no templates, no samples.
        let order_blind = j.setup.judge.is_order_blind();
        let (own_templates, own_raters): (&[crate::prompts::Template], Vec<RaterKind>) =
            if order_blind {
                (
                    std::slice::from_ref(&scores_template),
                    vec![RaterKind::Basic],
                )
            } else {
                (
                    j.templates.as_deref().unwrap_or(templates),
                    raters
                        .iter()
                        .copied()
                        .filter(|r| !r.is_baseline())
                        .collect(),
                )
            };
        for t in own_templates {
            for &rater in &own_raters {
                let params = Arc::new(judges::params(&j.args, &j.setup.model, rater, t));
                let name = if several {
                    format!("{}/{}/{}", j.label, t.name, rater)
                } else {
                    format!("{}/{}", t.name, rater)
                };
                keys.push(Some(ConfigKey {
                    label: j.label.clone(),
                    prompt: t.name.clone(),
                    rater: rater.to_string(),
                }));
                metas.push(ConfigMeta {
                    name: name.clone(),
                    prompt: t.name.clone(),
                    parser: t.parser.to_string(),
                    rater: rater.to_string(),
                    judge: j.setup.judge.describe(),
                    model: j.setup.model.clone(),
                    temperature: params.temperature,
                    max_tokens: params.max_tokens,
                    simulated: j.setup.judge.is_simulated(),
                    system: t.system.clone(),
                    template: t.text.clone(),
                    price: j.price,
                });
                configs.push(Config {
                    name,
                    template: t.clone(),
                    rater,
                    judge: j.setup.judge.clone(),
                    params,
                    pointwise,
                });
            }
        }
    }
    Ok((configs, metas, keys))
}

/// A baseline's configuration: it makes no call (`samples() == 0`), so its judge and
/// template are placeholders the rater never uses.
fn baseline(
    rater: RaterKind,
    template: &crate::prompts::Template,
    pointwise: crate::raters::PointwiseRule,
) -> (Config, ConfigMeta) {
    let name = format!("baseline/{rater}");
    let judge: Arc<dyn crate::judge::Judge> = Arc::new(crate::judge::sim::Sim::default());
    let meta = ConfigMeta {
        name: name.clone(),
        prompt: "-".into(),
        parser: "-".into(),
        rater: rater.to_string(),
        judge: "baseline (no LLM)".into(),
        model: "-".into(),
        temperature: 0.0,
        max_tokens: 0,
        simulated: false,
        system: None,
        template: String::new(),
        price: None,
    };
    let config = Config {
        name,
        template: template.clone(),
        rater,
        judge,
        pointwise,
        params: Arc::new(crate::judge::Params {
            model: "-".into(),
            temperature: 0.0,
            max_tokens: 0,
            seed: None,
            top_logprobs: None,
            reasoning_effort: None,
            request: None,
        }),
    };
    (config, meta)
}

/// Every default of a plan, in one place: the experiment file's prompts and raters over the
/// flags'; without any, `--demo`'s (the notebook's three prompts × basic, sc:5 and the
/// baselines on pairs; RewardBench 2's three protocols × basic) or the form's (a pairwise
/// prompt, or reward-bench's four-way judge) and `basic`; `--demo`'s simulated judge.
fn defaults(
    args: &PlanSettings,
    experiment: &Experiment,
    form: Form,
) -> (Vec<String>, Vec<String>, JudgeSettings) {
    let given = |file: &[String], flags: &[String]| {
        if file.is_empty() {
            flags.to_vec()
        } else {
            file.to_vec()
        }
    };
    let mut prompts = given(&experiment.prompts, &args.prompts);
    let mut raters = given(&experiment.raters, &args.raters);
    let mut judge = args.judge.clone();
    let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    if prompts.is_empty() {
        prompts = match (form, args.demo) {
            // raterlab's wordings of the notebook's three: the simulated judge answers from
            // the text it is sent, so the demo's numbers stay those it has always shown.
            (Form::Pairs, true) => {
                names(&["raterlab_no_tie", "raterlab_with_tie", "raterlab_ab_no_tie"])
            }
            (Form::Pairs, false) => names(&["simple_with_tie"]),
            (Form::RewardBench2, true) => names(&["rb2_ranking", "rb2_rating", "raterlab_no_tie"]),
            (Form::RewardBench2, false) => names(&["rb2_ranking"]),
        };
    }
    if raters.is_empty() {
        raters = match (form, args.demo) {
            (Form::Pairs, true) => names(&["basic", "sc:5", "random", "longer", "first"]),
            _ => names(&["basic"]),
        };
    }
    if args.demo && judge.judge.is_none() {
        judge.judge = Some(JudgeSpec::Sim(crate::judge::sim::Sim::default()));
    }
    (prompts, raters, judge)
}

/// Builds and checks every configuration before any call is made. `progress` shows the
/// one-time move of a former response log into its store.
pub fn plan(args: &PlanSettings, form: Form, seed: u64, progress: &dyn Progress) -> Result<Plan> {
    let experiment = match &args.config {
        Some(path) => read_experiment(path)?,
        None => Experiment::default(),
    };
    let (prompts, rater_names, judge_args) = defaults(args, &experiment, form);
    let raters: Vec<RaterKind> = rater_names
        .iter()
        .map(|r| RaterKind::parse(r, seed))
        .collect::<Result<_>>()?;
    let parser = experiment.parser.as_deref().or(args.parser.as_deref());
    let templates = prompts
        .iter()
        .map(|p| template(p, parser, judge_args.system.as_deref()))
        .collect::<Result<Vec<_>>>()?;
    let with_args = PlanSettings {
        judge: judge_args,
        ..args.clone()
    };
    let needs_judge = raters.iter().any(|r| !r.is_baseline());
    let judged = if needs_judge {
        judges_from(&with_args, &experiment, parser, progress)?
    } else {
        Vec::new()
    };
    check_prices(&with_args.judge, &judged)?;
    let replaying = judged.iter().any(|j| j.args.replays());
    if parser.is_some() && !replaying {
        if let Some(t) = templates.iter().find(|t| !t.parser_fits()) {
            return Err(input_error(format!(
                "parser '{}' does not fit prompt '{}': the prompt never asks for that verdict format; choose a matching --parser or another --prompt",
                t.parser, t.name
            )));
        }
    }
    let pointwise = judges::pointwise_rule(&with_args.judge)?;
    let (mut configs, mut metas, mut keys) =
        judged_configs(&judged, &templates, &raters, pointwise)?;
    for rater in raters.iter().copied().filter(|r| r.is_baseline()) {
        let (config, meta) = baseline(rater, &templates[0], pointwise);
        configs.push(config);
        metas.push(meta);
        keys.push(None);
    }
    let juries = super::jury::resolve(&experiment.juries, &args.juries, &configs, &metas, &keys)?;
    let caches = judged
        .iter()
        .filter_map(|j| j.setup.cache.clone())
        .collect();
    Ok(Plan {
        configs,
        metas,
        caches,
        name: experiment.name,
        juries,
    })
}

/// The data options of a plan (`--demo` means the bundled sample), checked.
pub fn data_settings(args: &PlanSettings) -> Result<DataSettings> {
    let data_args = args.data.clone();
    if args.demo && !["sample", "sample-v2"].contains(&data_args.data.as_str()) {
        return Err(input_error(
            "--demo runs on a bundled sample: sample (pairs), or --data sample-v2 (RewardBench 2); drop --data, or drop --demo",
        ));
    }
    DataSettings::from_options(data_args)
}

/// The cost analysis's settings: the sort metric, the unit and margin asked for.
pub fn cost_settings(
    sort: crate::run::settings::SortKey,
    options: crate::run::settings::CostOptions,
) -> crate::evaluation::cost::CostSettings {
    crate::evaluation::cost::CostSettings {
        metric: sort.statistic(),
        unit: options.unit,
        margin: options.margin,
    }
}
