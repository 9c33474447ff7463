//! The arguments as parsed, turned into `run::settings` once: below `cli/` no code names a
//! clap type. Each conversion moves the fields over as they are; checking them is
//! `run/`'s (`DataSettings`, `run::plan`, `run::judges`).

use super::{
    AnalyzeArgs, BatchRunArgs, CacheCommand, CalibrateArgs, DataArgs, JudgeArgs, PlanArgs,
    PlanSizeArgs, RateArgs, ReportArgs,
};
use crate::dataset::labels::ColumnNames;
use crate::error::input_error;
use crate::run::settings::{
    AnalyzeInput, AnalyzeOutput, AnalyzeSettings, LongSettings, SystemsSettings, Table, Unreadable,
};
use crate::run::settings::{
    BatchSettings, CacheRequest, CalibrateSettings, DataOptions, JudgeSettings, PlanSettings,
    RateSettings, ReferenceSpec, ReportSettings, SequentialSettings, SizeSettings,
};
use anyhow::Result;

impl From<DataArgs> for DataOptions {
    fn from(a: DataArgs) -> Self {
        Self {
            data: a.data,
            map: a.map,
            gold_map: a.gold_map,
            no_majority: a.no_majority,
            subset: a.subset,
            section: a.section,
            limit: a.limit,
            per_subset: a.per_subset,
            seed: a.seed,
            both_orders: a.both_orders,
            unshared: a.unshared,
            labels: a.labels,
            labels_override: a.labels_override,
        }
    }
}

impl From<JudgeArgs> for JudgeSettings {
    fn from(a: JudgeArgs) -> Self {
        Self {
            judge: a.judge,
            endpoint: a.endpoint,
            model: a.model,
            api_key_env: a.api_key_env,
            temperature: a.temperature,
            max_tokens: a.max_tokens,
            judge_seed: a.judge_seed,
            top_logprobs: a.top_logprobs,
            reasoning_effort: a.reasoning_effort,
            system: a.system,
            timeout: a.timeout,
            headers: a.headers,
            concurrency: a.concurrency,
            rpm: a.rpm,
            retries: a.retries,
            retry_base_ms: a.retry_base_ms,
            cache_dir: a.cache_dir,
            no_cache: a.no_cache,
            offline: a.offline,
            tie_margin: a.tie_margin,
            pointwise_missing: a.pointwise_missing,
            prices: a.prices,
            samples_per_request: a.samples_per_request,
            chat_template: a.chat_template,
        }
    }
}

impl From<PlanArgs> for PlanSettings {
    fn from(a: PlanArgs) -> Self {
        Self {
            data: a.data.into(),
            judge: a.judge.into(),
            prompts: a.prompts,
            raters: a.raters,
            parser: a.parser,
            config: a.config,
            juries: a.juries,
            demo: a.demo,
        }
    }
}

impl From<BatchRunArgs> for BatchSettings {
    fn from(a: BatchRunArgs) -> Self {
        Self {
            batch: a.batch,
            poll_interval: a.poll_interval,
            batch_rounds: a.batch_rounds,
        }
    }
}

/// `--reference FILE|gold` with `--reference-map model=COL,score=COL`.
fn reference_spec(reference: Option<&str>, map: &[String]) -> Result<Option<ReferenceSpec>> {
    Ok(match reference {
        None => None,
        Some("gold") => Some(ReferenceSpec::Gold),
        Some(path) => {
            let (model, score) = crate::dataset::reference::parse_map(map)?;
            Some(ReferenceSpec::Table {
                path: path.into(),
                model,
                score,
            })
        }
    })
}

/// `--sequential [A,B]`: refused with `--batch`, whose one round cannot stop.
fn sequential(
    a: &crate::cli::calibrate::SequentialArgs,
    batch: bool,
) -> Result<Option<SequentialSettings>> {
    let Some(named) = &a.sequential else {
        return Ok(None);
    };
    if batch {
        return Err(crate::error::input_error(
            "--sequential stops sending calls once the comparison is decided, but --batch sends every call in one batch round, which cannot stop: drop one of the two",
        ));
    }
    let named = match named.trim() {
        "" => None,
        pair => {
            let names: Vec<&str> = pair.split(',').map(str::trim).collect();
            match names[..] {
                [a, b] if !a.is_empty() && !b.is_empty() && a != b => {
                    Some([a.to_string(), b.to_string()])
                }
                _ => {
                    return Err(crate::error::input_error(format!(
                        "--sequential '{pair}': expected two different configuration names, A,B (or no value to race every configuration)"
                    )))
                }
            }
        }
    };
    Ok(Some(SequentialSettings {
        named,
        shuffle: !a.no_shuffle,
    }))
}

/// `--estimate [--estimate-label L] [--alpha A]`: the label a pairwise one, α in (0, 1).
fn estimate(
    a: &crate::cli::calibrate::EstimateArgs,
) -> Result<Option<crate::evaluation::estimate::EstimateSettings>> {
    if !a.estimate {
        return Ok(None);
    }
    if !(-1..=1).contains(&a.estimate_label) {
        return Err(input_error(format!(
            "--estimate-label {}: calibrate's labels are -1 (response 1 better), 0 (a tie) and 1 (response 2 better)",
            a.estimate_label
        )));
    }
    Ok(Some(crate::evaluation::estimate::EstimateSettings {
        label: a.estimate_label,
        alpha: a.alpha,
    }))
}

impl TryFrom<CalibrateArgs> for CalibrateSettings {
    type Error = anyhow::Error;

    fn try_from(a: CalibrateArgs) -> Result<Self> {
        let reference = reference_spec(a.reference.as_deref(), &a.reference_map)?;
        Ok(Self {
            plan: a.plan.into(),
            bootstrap: a.bootstrap,
            sort: a.sort,
            family: a.family,
            json: a.json,
            details: a.details,
            out: a.out,
            name: a.name,
            sequential: sequential(&a.sequential, a.batch.batch)?,
            estimate: estimate(&a.estimate)?,
            alt_test: a.alt_test.settings()?,
            alpha: a.estimate.alpha,
            batch: a.batch.into(),
            reference,
            cost: a.cost.into(),
        })
    }
}

impl From<ReportArgs> for ReportSettings {
    fn from(a: ReportArgs) -> Self {
        Self {
            dir: a.dir,
            bootstrap: a.bootstrap,
            sort: a.sort,
            family: a.family,
            alpha: a.alpha,
            json: a.json,
            details: a.details,
            cost: a.cost.into(),
        }
    }
}

impl From<crate::cli::calibrate::CostArgs> for crate::run::settings::CostOptions {
    fn from(a: crate::cli::calibrate::CostArgs) -> Self {
        Self {
            margin: a.margin,
            unit: a.cost_unit,
        }
    }
}

impl From<RateArgs> for RateSettings {
    fn from(a: RateArgs) -> Self {
        Self {
            data: a.data.into(),
            judge: a.judge.into(),
            prompt: a.prompt,
            parser: a.parser,
            rater: a.rater,
            out: a.out,
        }
    }
}

impl TryFrom<PlanSizeArgs> for SizeSettings {
    type Error = anyhow::Error;

    fn try_from(a: PlanSizeArgs) -> Result<Self> {
        let active = if a.active {
            if let Some(out) = &a.out {
                writable_folder("--out", out)?;
            }
            let budget = a.budget.unwrap_or_default();
            if !(budget.is_finite() && budget > 0.0) {
                return Err(input_error(format!(
                    "--budget {budget}: the labels to pay for, a share of the items (e.g. 0.1) or a number of labels (e.g. 200)"
                )));
            }
            Some(crate::run::labelling::ActiveRequest {
                input: a.input.clone().unwrap_or_default(),
                probability: a.probability.clone().unwrap_or_default(),
                budget,
                pilot: a.pilot.clone().unwrap_or_default(),
                gold_col: a.gold_col.clone(),
                gold: parse_reading("--gold-map", &a.gold_map, Unreadable::Error)?,
                id_col: a.id_col.clone(),
                out: a.out.clone(),
            })
        } else {
            None
        };
        let alt_test = if a.alt_test.is_empty() {
            None
        } else {
            let bad = |m: String| Err(input_error(m));
            if let Some(e) = a.alt_test.iter().find(|e| !(0.0..1.0).contains(*e)) {
                return bad(format!(
                    "--alt-test {e}: ε is a margin from 0 to 1, e.g. 0.05,0.1,0.2"
                ));
            }
            if a.annotators < 2 || a.categories < 2 {
                return bad(format!(
                    "--annotators {} --categories {}: the alt-test needs 2 or more of each",
                    a.annotators, a.categories
                ));
            }
            for (flag, v) in [
                ("--annotator-noise", a.annotator_noise),
                ("--judge-noise", a.judge_noise),
            ] {
                if !(0.0..=1.0).contains(&v) {
                    return bad(format!("{flag} {v}: a share from 0 (always the gold label) to 1 (labels drawn from the priors alone)"));
                }
            }
            let sizes = if a.sizes.is_empty() {
                (30..=200).step_by(10).collect()
            } else {
                a.sizes.clone()
            };
            let max_items = 500.max(sizes.iter().copied().max().unwrap_or(0));
            if sizes.iter().any(|&s| s < 30) || a.datasets == 0 || a.boots == 0 {
                return bad("--sizes, --datasets, --boots: the alt-test tests an annotator from 30 items, and the simulation needs a dataset and a draw".into());
            }
            Some(crate::evaluation::alt_test_plan::AltTestPlanSettings {
                epsilons: a.alt_test.clone(),
                sizes,
                annotators: a.annotators,
                pool: a.annotators.max(6),
                categories: a.categories,
                annotator_noise: a.annotator_noise,
                judge_noise: a.judge_noise,
                datasets: a.datasets,
                boots: a.boots,
                max_items,
                q: a.alpha,
                seed: a.seed,
            })
        };
        Ok(Self {
            alt_test,
            active,
            diff: a.diff,
            labels: a.labels,
            width: a.width,
            pilot: a.pilot,
            unlabelled: a.unlabelled,
            estimate_label: a.estimate_label,
            metric: a.metric,
            discordance: a.discordance,
            from: a.from,
            accuracy: a.accuracy,
            tie_rate: a.tie_rate,
            alpha: a.alpha,
            power: a.power,
            runs: a.runs,
            seed: a.seed,
            json: a.json,
        })
    }
}

impl From<CacheCommand> for CacheRequest {
    fn from(c: CacheCommand) -> Self {
        match c {
            CacheCommand::Stats { dir, json } => CacheRequest::Stats {
                cache_dir: dir.cache_dir,
                json,
            },
            CacheCommand::Export { dir, model, out } => CacheRequest::Export {
                cache_dir: dir.cache_dir,
                model,
                out,
            },
            CacheCommand::Prune {
                dir,
                model,
                older_than,
                all,
                dry_run,
            } => CacheRequest::Prune {
                cache_dir: dir.cache_dir,
                model,
                older_than,
                all,
                dry_run,
            },
        }
    }
}

impl TryFrom<AnalyzeArgs> for AnalyzeSettings {
    type Error = anyhow::Error;

    /// The arguments checked into settings (the checks beside them).
    fn try_from(args: AnalyzeArgs) -> Result<Self> {
        let input = match (args.input, args.gold, args.ratings.is_empty()) {
            (Some(path), None, true) => AnalyzeInput::One(Table::File(path)),
            (None, Some(gold), false) => AnalyzeInput::Two {
                gold: Table::File(gold),
                ratings: args.ratings.into_iter().map(Table::File).collect(),
            },
            _ => {
                return Err(input_error(
                    "give either --input FILE, or both --gold FILE and --ratings FILE",
                ))
            }
        };
        // One value naming an existing file is a label store; anything else a label set.
        let store = match args.labels.as_deref() {
            Some([one]) if std::path::Path::new(one).is_file() => {
                Some((std::path::PathBuf::from(one), args.labels_override))
            }
            _ if args.labels_override => {
                return Err(input_error(
                    "--labels-override takes a label store's gold over the file's: name the store with --labels STORE (an existing file)",
                ))
            }
            _ => None,
        };
        let labels = match store {
            Some(_) => None,
            None => args.labels.as_deref().map(parse_labels).transpose()?,
        };
        let policy = args.no_majority;
        let annotators = match (&input, args.annotators.is_empty()) {
            (_, true) => None,
            (AnalyzeInput::One(_), false) => Some((args.annotators.clone(), policy)),
            (AnalyzeInput::Two { .. }, false) => return Err(input_error(
                "--annotators reads every annotator and the judge from one file; use --input FILE",
            )),
        };
        for (flag, path) in [("--csv", &args.csv), ("--html", &args.html)] {
            if let Some(path) = path {
                writable_folder(flag, path)?;
            }
        }
        match (&args.compare_col, args.sequential) {
            (None, true) => {
                return Err(input_error(
                    "--sequential compares --rating-col with a second judge's ratings: name their column with --compare-col COL",
                ))
            }
            (Some(c), false) => {
                return Err(input_error(format!(
                    "--compare-col {c} is compared with --rating-col as the items come: add --sequential"
                )))
            }
            _ => {}
        }
        let reading = (
            parse_reading("--gold-map", &args.gold_map, args.unreadable)?,
            parse_reading("--rating-map", &args.rating_map, args.unreadable)?,
        );
        if args.pac && !(args.epsilon > 0.0 && args.epsilon < 1.0) {
            return Err(input_error(format!(
                "--epsilon {}: the error the labels may have, a number between 0 and 1, e.g. 0.05",
                args.epsilon
            )));
        }
        if let Some(path) = &args.pac_out {
            writable_folder("--pac-out", path)?;
        }
        let pac = match (args.pac, &args.uncertainty_col) {
            (true, Some(col)) => Some((
                col.clone(),
                crate::evaluation::pac::PacSettings {
                    epsilon: args.epsilon,
                    alpha: args.alpha,
                    bound: args.pac_bound,
                    seed: args.seed,
                },
                args.pac_out.clone(),
            )),
            _ => None,
        };
        Ok(AnalyzeSettings {
            alt_test: args.alt_test.settings()?,
            scale: args.scale.clone(),
            alpha: args.alpha,
            input,
            store,
            pac,
            reading,
            columns: ColumnNames {
                id: args.id_col,
                ratings_id: args.ratings_id_col,
                gold: args.gold_col,
                rating: args.rating_col,
                group: args.group_col,
                probability: args.probability,
                compare: args.compare_col,
            },
            labels,
            bootstrap: args.bootstrap,
            seed: args.seed,
            annotators,
            estimate: args.estimate.then(|| (args.estimate_label.clone(), args.alpha)),
            label_prob: args.label_prob.clone(),
            systems: match args.generators.as_deref() {
                None => None,
                Some(g) => Some(SystemsSettings {
                    generators: parse_texts(g).map_err(|_| {
                        input_error(format!(
                            "--generators '{g}': name the two columns of the models that wrote response 1 and 2, e.g. --generators generator1,generator2"
                        ))
                    })?,
                    prompt: args.prompt_col,
                    reference: reference_spec(args.reference.as_deref(), &args.reference_map)?,
                }),
            },
            long: LongSettings {
                annotation: args.annotator_col,
                per_item: args.annotations_per_item.map(|n| n as usize),
                texts: args.texts.as_deref().map(parse_texts).transpose()?,
                no_majority: policy,
            },
            output: AnalyzeOutput {
                json: args.json,
                csv: args.csv,
                html: args.html,
            },
        })
    }
}

/// `--texts COL1,COL2`.
fn parse_texts(value: &str) -> Result<(String, String)> {
    match value
        .split(',')
        .map(str::trim)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [a, b] if !a.is_empty() && !b.is_empty() => Ok((a.to_string(), b.to_string())),
        _ => Err(input_error(format!(
            "--texts '{value}': name the two responses' columns, e.g. --texts output_1,output_2"
        ))),
    }
}

/// `--gold-map`/`--rating-map VALUE=LABEL,...` and `--unreadable`.
pub(super) fn parse_reading(
    flag: &str,
    map: &[String],
    unreadable: Unreadable,
) -> Result<crate::dataset::frame::LabelReading> {
    let mut out = crate::dataset::frame::LabelReading::default();
    for item in map {
        let (from, to) = item.rsplit_once('=').ok_or_else(|| {
            input_error(format!("{flag} '{item}': expected VALUE=LABEL, e.g. Tie=0"))
        })?;
        let to: i64 = to
            .trim()
            .parse()
            .map_err(|_| input_error(format!("{flag} '{item}': the label must be an integer")))?;
        out.map.insert(from.trim().to_string(), to);
    }
    out.drop_unreadable = unreadable == Unreadable::Drop;
    Ok(out)
}

/// Parses `--labels` values ("-1", "0", "1").
fn parse_labels(values: &[String]) -> Result<crate::metrics::Labels> {
    let parsed: Result<Vec<i64>> = values
        .iter()
        .map(|v| {
            v.trim().parse::<i64>().map_err(|_| {
                input_error(format!(
                    "--labels: '{v}' is not an integer; give whole numbers separated by commas, e.g. --labels=-1,0,1"
                ))
            })
        })
        .collect();
    crate::metrics::Labels::new(parsed?)
        .map_err(|_| input_error("--labels is empty; give e.g. --labels=-1,0,1"))
}

/// An output file's folder must exist and the path must not be a folder, checked before any
/// work is done.
pub(super) fn writable_folder(flag: &str, path: &std::path::Path) -> Result<()> {
    if path.is_dir() {
        return Err(input_error(format!(
            "{flag} '{}' is a folder; name a file in it, e.g. '{}'",
            path.display(),
            path.join(if flag == "--html" {
                "analysis.html"
            } else {
                "metrics.csv"
            })
            .display()
        )));
    }
    match path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() && !folder.is_dir() => {
            Err(input_error(format!(
                "{flag} '{}': the folder '{}' does not exist; create it or write elsewhere",
                path.display(),
                folder.display()
            )))
        }
        _ => Ok(()),
    }
}
