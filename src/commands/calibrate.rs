//! `raterlab calibrate`: every judge configuration over the same examples, evaluated and
//! compared, written to a run directory.

use super::data::{self, DataSettings, Dataset};
use super::judges::{self, JudgeSetup};
use super::rate::template;
use crate::cli::{CalibrateArgs, JudgeArgs, PlanArgs};
use crate::error::input_error;
use crate::evaluation::{
    self, ConfigRecord, Cost, EvalSettings, Evaluation, ItemRow, Outcome, RunRecord,
};
use crate::judge::cache::Cache;
use crate::raters::{self, Config, RaterKind, Rating};
use anyhow::{Context, Result};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The statistics `--sort` accepts.
pub const SORT_KEYS: [&str; 5] = [
    "kappa_quadratic",
    "kappa",
    "accuracy",
    "spearman",
    "kendall_tau_b",
];

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
}

fn read_experiment(path: &Path) -> Result<Experiment> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        input_error(format!(
            "cannot read the experiment file '{}': {e}",
            path.display()
        ))
    })?;
    toml::from_str(&text).map_err(|e| {
        input_error(format!(
            "experiment file '{}' is not valid: {}; see README, \"Experiment files\"",
            path.display(),
            e.message()
        ))
    })
}

/// Metadata of a configuration, for reports and run.json.
#[derive(Debug, Clone)]
pub struct ConfigMeta {
    pub name: String,
    pub prompt: String,
    pub parser: String,
    pub rater: String,
    pub judge: String,
    pub model: String,
    pub temperature: f64,
    pub max_tokens: u32,
    pub simulated: bool,
    pub system: Option<String>,
    pub template: String,
}

/// Everything about a run besides the ratings.
#[derive(Debug, Clone)]
pub struct RunMeta {
    pub name: String,
    pub dir: PathBuf,
    pub source: String,
    pub seed: u64,
    pub both_orders: bool,
    pub bootstrap: usize,
    pub checksum: String,
    pub configs: Vec<ConfigMeta>,
    pub command: Vec<String>,
    pub created_unix: u64,
    pub sort: String,
    pub no_majority: usize,
}

/// A finished run: what was rated, how, and what came of it.
#[derive(Debug, Clone)]
pub struct Run {
    pub meta: RunMeta,
    pub record: RunRecord,
    pub evaluation: Evaluation,
    /// Per configuration, per item (absent for `report DIR`, which reads them from files).
    pub ratings: Option<Vec<Vec<Rating>>>,
    /// The response caches the judges used (none for `report DIR`).
    pub caches: Vec<Arc<Cache>>,
    /// Each item's prompt and responses as shown (absent for `report DIR`, which reads
    /// items.jsonl).
    pub texts: Option<Vec<[String; 3]>>,
}

struct Judged {
    label: String,
    setup: JudgeSetup,
    args: JudgeArgs,
}

fn judges_from(args: &PlanArgs, experiment: &Experiment) -> Result<Vec<Judged>> {
    if !experiment.judges.is_empty() {
        return experiment
            .judges
            .iter()
            .enumerate()
            .map(|(i, entry)| {
                let mut a = args.judge.clone();
                if let Some(j) = &entry.judge {
                    a.judge = Some(j.clone());
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
                let setup = judges::build(&a, entry.model.as_deref())
                    .with_context(|| format!("judge {} of the experiment file", i + 1))?;
                let label = entry.label.clone().unwrap_or_else(|| setup.model.clone());
                Ok(Judged {
                    label,
                    setup,
                    args: a,
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
            let setup = judges::build(&args.judge, m)?;
            Ok(Judged {
                label: setup.model.clone(),
                setup,
                args: args.judge.clone(),
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
}

/// Builds and checks every configuration before any call is made.
pub fn plan(args: &PlanArgs, seed: u64) -> Result<Plan> {
    let experiment = match &args.config {
        Some(path) => read_experiment(path)?,
        None => Experiment::default(),
    };
    let mut prompts: Vec<String> = if experiment.prompts.is_empty() {
        args.prompts.clone()
    } else {
        experiment.prompts.clone()
    };
    let mut rater_names: Vec<String> = if experiment.raters.is_empty() {
        args.raters.clone()
    } else {
        experiment.raters.clone()
    };
    let mut judge_args = args.judge.clone();
    if args.demo {
        if prompts.is_empty() {
            prompts = [
                "simple_no_tie",
                "simple_with_tie",
                "reward-bench_gemini_no_tie",
            ]
            .map(String::from)
            .to_vec();
        }
        if rater_names.is_empty() {
            rater_names = ["basic", "sc:5", "random", "longer", "first"]
                .map(String::from)
                .to_vec();
        }
        if judge_args.judge.is_none() {
            judge_args.judge = Some("sim".into());
        }
    }
    if prompts.is_empty() {
        prompts.push("simple_with_tie".into());
    }
    if rater_names.is_empty() {
        rater_names.push("basic".into());
    }
    let raters: Vec<RaterKind> = rater_names
        .iter()
        .map(|r| RaterKind::parse(r, seed))
        .collect::<Result<_>>()?;
    let parser = experiment.parser.as_deref().or(args.parser.as_deref());
    let templates = prompts
        .iter()
        .map(|p| template(p, parser, judge_args.system.as_deref()))
        .collect::<Result<Vec<_>>>()?;
    let with_args = PlanArgs {
        judge: judge_args,
        ..args.clone()
    };
    let needs_judge = raters.iter().any(|r| !r.is_baseline());
    let judged = if needs_judge {
        judges_from(&with_args, &experiment)?
    } else {
        Vec::new()
    };
    let replaying = judged.iter().any(|j| {
        j.args
            .judge
            .as_deref()
            .is_some_and(|s| s.starts_with("replay:"))
    });
    if parser.is_some() && !replaying {
        if let Some(t) = templates.iter().find(|t| !t.parser_fits()) {
            return Err(input_error(format!(
                "parser '{}' does not fit prompt '{}': the prompt never asks for that verdict format; choose a matching --parser or another --prompt",
                t.parser, t.name
            )));
        }
    }
    let pointwise = judges::pointwise_rule(&with_args.judge)?;
    let mut configs = Vec::new();
    let mut metas = Vec::new();
    let several = judged.len() > 1;
    let scores_template = template(crate::prompts::SCORES_PROMPT, None, None)?;
    for j in &judged {
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
                    &templates,
                    raters
                        .iter()
                        .copied()
                        .filter(|r| !r.is_baseline())
                        .collect(),
                )
            };
        for t in own_templates {
            for &rater in &own_raters {
                let params = Arc::new(judges::params(&j.args, &j.setup.model, rater));
                let name = if several {
                    format!("{}/{}/{}", j.label, t.name, rater)
                } else {
                    format!("{}/{}", t.name, rater)
                };
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
    for &rater in raters.iter().filter(|r| r.is_baseline()) {
        let name = format!("baseline/{rater}");
        // Baselines make no call (`samples() == 0`); the judge and template are placeholders
        // that the rater never uses.
        let judge: Arc<dyn crate::judge::Judge> = Arc::new(crate::judge::sim::Sim::default());
        metas.push(ConfigMeta {
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
        });
        configs.push(Config {
            name,
            template: templates[0].clone(),
            rater,
            judge,
            pointwise,
            params: Arc::new(crate::judge::Params {
                model: "-".into(),
                temperature: 0.0,
                max_tokens: 0,
                seed: None,
            }),
        });
    }
    let caches = judged
        .iter()
        .filter_map(|j| j.setup.cache.clone())
        .collect();
    Ok(Plan {
        configs,
        metas,
        caches,
        name: experiment.name,
    })
}

/// SHA-256 of the examples as the judge saw them (ids, golds, texts).
pub fn checksum(dataset: &Dataset) -> String {
    let mut h = Sha256::new();
    for e in &dataset.examples {
        for part in [
            e.id.as_str(),
            &e.gold.to_string(),
            &e.prompt,
            &e.response1,
            &e.response2,
        ] {
            h.update(part.as_bytes());
            h.update([0]);
        }
    }
    crate::judge::cache::hex(&h.finalize())
}

/// `YYYYMMDD-HHMMSS` (UTC) for a Unix time.
pub fn timestamp(unix: u64) -> String {
    let days = (unix / 86_400) as i64;
    let secs = unix % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

fn cost(ratings: &[Rating], wall_seconds: f64) -> Cost {
    let u = raters::usage(ratings);
    Cost {
        calls: u.calls,
        cache_hits: u.cache_hits,
        tokens_in: u.tokens_in,
        tokens_out: u.tokens_out,
        wall_seconds,
    }
}

/// Items as the evaluation sees them.
pub fn items(dataset: &Dataset) -> Vec<ItemRow> {
    dataset
        .examples
        .iter()
        .map(|e| ItemRow {
            id: e.id.clone(),
            pair_id: e.pair_id.clone(),
            subset: e.subset.clone(),
            order: e.order,
            gold: e.gold,
            seeded: e.seeded,
        })
        .collect()
}

/// The data options of a plan (`--demo` means the bundled sample), checked.
pub fn data_settings(args: &PlanArgs) -> Result<DataSettings> {
    let mut data_args = args.data.clone();
    if args.demo && data_args.data != "sample" {
        return Err(input_error(
            "--demo runs on the bundled sample; drop --data, or drop --demo",
        ));
    }
    if args.demo {
        data_args.data = "sample".into();
    }
    DataSettings::from_args(data_args)
}

/// `--sort` names one of [`SORT_KEYS`].
pub fn check_sort(sort: &str) -> Result<()> {
    if !SORT_KEYS.contains(&sort) {
        return Err(input_error(format!(
            "--sort '{sort}' is not a metric; use one of {}",
            SORT_KEYS.join(", ")
        )));
    }
    Ok(())
}

pub fn run(args: &CalibrateArgs) -> Result<Run> {
    check_sort(&args.sort)?;
    let data_settings = data_settings(&args.plan)?;
    let mut plan_args = args.plan.clone();
    if args.batch.batch {
        // Every call is answered by a batch (or fails as the batch said): none goes out alone.
        super::batch::check_batch_judges(&plan_args)?;
        plan_args.judge.offline = true;
    }
    let Plan {
        configs,
        metas,
        caches,
        name,
    } = plan(&plan_args, data_settings.seed)?;
    let name = args.name.clone().or(name).unwrap_or_else(|| {
        if args.plan.demo {
            "demo".into()
        } else {
            "calibrate".into()
        }
    });
    let budget = judges::budget(&args.plan.judge)?;
    let dataset = data::load(
        &data_settings,
        &crate::report::progress::Download::default(),
    )?;
    judges::check_configs(&configs, &dataset.examples)?;
    let created_unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let dir = args.out.clone().unwrap_or_else(|| {
        PathBuf::from("notebooks-export").join("runs").join(format!(
            "{}-{}",
            timestamp(created_unix),
            sanitize(&name)
        ))
    });
    std::fs::create_dir_all(&dir).map_err(|e| {
        input_error(format!(
            "cannot create the run directory '{}': {e}; pass --out DIR",
            dir.display()
        ))
    })?;
    let configs = if args.batch.batch {
        super::batch::run_batches(
            args,
            configs,
            &dataset.examples,
            &caches,
            &crate::report::batch::Watcher::default(),
        )?
    } else {
        configs
    };
    let observer = crate::report::progress::Calls::new(
        &configs,
        &crate::raters::calls_per_config(&configs, &dataset.examples),
    );
    let ratings = raters::rate(&configs, &dataset.examples, budget, observer.clone());
    observer.finish();
    let record = RunRecord {
        items: items(&dataset),
        configs: metas
            .iter()
            .zip(&ratings)
            .enumerate()
            .map(|(i, (m, r))| ConfigRecord {
                name: m.name.clone(),
                prompt: m.prompt.clone(),
                rater: m.rater.clone(),
                judge: m.judge.clone(),
                simulated: m.simulated,
                outcomes: r.iter().map(Outcome::from).collect(),
                cost: cost(r, observer.wall_seconds(i)),
                reasons: evaluation::tally(
                    r.iter()
                        .filter(|x| x.status != raters::Status::Rated)
                        .filter_map(Rating::reason),
                ),
                pointwise: (configs[i].template.mode == crate::prompts::Mode::Pointwise
                    && !configs[i].rater.is_baseline())
                .then(|| evaluation::PointwiseRecord {
                    grades: r.iter().map(|x| x.grades.unwrap_or((None, None))).collect(),
                    tie_margin: configs[i].pointwise.tie_margin,
                    lowest: configs[i].template.scale.map(|s| s.0),
                    order_blind: configs[i].judge.is_order_blind(),
                }),
                samples: (configs[i].template.mode == crate::prompts::Mode::Pairwise
                    && matches!(configs[i].rater, RaterKind::SelfConsistency { .. }))
                .then(|| {
                    r.iter()
                        .map(|x| x.samples.iter().map(|s| s.verdict).collect())
                        .collect()
                }),
            })
            .collect(),
        both_orders: dataset.both_orders,
        annotators: (!dataset.annotators.is_empty()).then(|| evaluation::Annotations {
            names: dataset.annotators.clone(),
            votes: dataset.examples.iter().map(|e| e.votes.clone()).collect(),
            no_majority: dataset.no_majority,
            policy: dataset.no_majority_policy.name().to_string(),
        }),
        shapes: dataset
            .examples
            .iter()
            .map(|e| {
                [
                    evaluation::bias::Shape::of(&e.response1),
                    evaluation::bias::Shape::of(&e.response2),
                ]
            })
            .collect(),
    };
    let evaluation = evaluation::evaluate(
        &record,
        EvalSettings {
            bootstrap: args.bootstrap,
            seed: data_settings.seed,
        },
    );
    let meta = RunMeta {
        name,
        dir,
        source: dataset.source.clone(),
        seed: data_settings.seed,
        both_orders: dataset.both_orders,
        bootstrap: args.bootstrap,
        checksum: checksum(&dataset),
        configs: metas,
        command: super::command_line(),
        created_unix,
        sort: args.sort.clone(),
        no_majority: dataset.no_majority,
    };
    Ok(Run {
        meta,
        record,
        evaluation,
        ratings: Some(ratings),
        caches,
        texts: Some(
            dataset
                .examples
                .iter()
                .map(|e| [e.prompt.clone(), e.response1.clone(), e.response2.clone()])
                .collect(),
        ),
    })
}

/// Problems to report after the run directory is written: answers that could not be cached,
/// and (with `--offline`) calls missing from the cache, which fail the run.
pub fn finish(args: &CalibrateArgs, run: &Run) -> Result<()> {
    let unwritten: usize = run
        .caches
        .iter()
        .map(|c| c.write_errors.load(std::sync::atomic::Ordering::Relaxed))
        .sum();
    if unwritten > 0 {
        crate::report::calibrate::warn(&format!(
            "{unwritten} answers could not be written to the cache; they are in the run directory"
        ));
    }
    judges::check_failures(
        &args.plan.judge,
        run.caches.first().map(Arc::as_ref),
        run.ratings
            .iter()
            .flatten()
            .flatten()
            .flat_map(|r| &r.samples),
        &format!("the run directory was written: {}", run.meta.dir.display()),
    )
}

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(timestamp(0), "19700101-000000");
        // 2026-11-23 00:10:05 UTC (python: datetime.utcfromtimestamp)
        assert_eq!(timestamp(1_795_392_605), "20261123-001005");
        assert_eq!(timestamp(951_782_400), "20000229-000000");
    }
}
