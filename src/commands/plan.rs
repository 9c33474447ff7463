//! `raterlab plan`: items needed before a difference between two judges is real.

use crate::error::input_error;
use crate::evaluation::plan::{kappa_items_needed, Need, PlanResult};
use crate::judge::sim::Sim;
use crate::metrics::power::{mcnemar_items_needed, mcnemar_min_detectable};
use crate::run::settings::PlanMetric;
use crate::run::settings::SizeSettings;
use anyhow::Result;

fn check_unit(flag: &str, v: f64, open: bool) -> Result<()> {
    let ok = if open {
        v > 0.0 && v < 1.0
    } else {
        (0.0..=1.0).contains(&v)
    };
    if ok && v.is_finite() {
        Ok(())
    } else {
        Err(input_error(format!(
            "{flag} {v} must lie {}",
            if open {
                "strictly between 0 and 1"
            } else {
                "between 0 and 1"
            }
        )))
    }
}

pub fn run(args: &SizeSettings) -> Result<PlanResult> {
    check_unit("--alpha", args.alpha, true)?;
    check_unit("--power", args.power, true)?;
    if !(args.diff.is_finite() && args.diff != 0.0 && args.diff.abs() <= 1.0) {
        return Err(input_error(format!(
            "--diff {} must be a non-zero difference between -1 and 1, e.g. 0.03 for three accuracy points",
            args.diff
        )));
    }
    match args.metric {
        PlanMetric::Accuracy => accuracy(args),
        PlanMetric::KappaQuadratic => {
            check_unit("--accuracy", args.accuracy, false)?;
            check_unit("--tie-rate", args.tie_rate, false)?;
            if !(0.0..=1.0).contains(&(args.accuracy + args.diff)) {
                return Err(input_error(format!(
                    "--accuracy {} plus --diff {} leaves the second judge's accuracy outside 0..1",
                    args.accuracy, args.diff
                )));
            }
            if args.runs < 100 {
                return Err(input_error(
                    "--runs must be 100 or more for a usable estimate",
                ));
            }
            let judge = |accuracy: f64| Sim {
                accuracy,
                position_bias: 0.0,
                tie_rate: args.tie_rate,
                malformed: 0.0,
                seed: 0,
            };
            let need = kappa_items_needed(
                judge(args.accuracy),
                judge(args.accuracy + args.diff),
                args.alpha,
                args.power,
                args.runs,
                args.seed,
            )
            .ok_or_else(|| {
                input_error("no kappa difference arises from these accuracies; choose another --accuracy or --diff")
            })?;
            Ok(PlanResult::Kappa {
                method: crate::evaluation::plan::KAPPA_METHOD,
                diff: args.diff,
                accuracy: args.accuracy,
                tie_rate: args.tie_rate,
                alpha: args.alpha,
                power: args.power,
                runs: args.runs,
                items_needed: need.items_needed,
                mean_difference: need.mean_difference,
                power_reached: need.power_reached,
            })
        }
    }
}

fn accuracy(args: &SizeSettings) -> Result<PlanResult> {
    let needs = match (&args.from, args.discordance) {
        (None, Some(p)) => {
            check_unit("--discordance", p, false)?;
            if args.diff.abs() > p {
                return Err(input_error(format!(
                    "--diff {} cannot exceed the discordance {p}: two judges differ in accuracy by at most the share of items that split them",
                    args.diff
                )));
            }
            vec![Need {
                pair: "assumed".into(),
                discordance: p,
                items_needed: mcnemar_items_needed(p, args.diff, args.alpha, args.power).ceil(),
                items_now: None,
                min_detectable_now: None,
            }]
        }
        (Some(dir), None) => {
            let Some(file) = crate::run::read::run_file(dir)?.into_pairs() else {
                return Err(input_error(format!(
                    "'{}' is a RewardBench 2 run: plan --from reads the paired tests of a run over pairs; give --discordance, or --from a run over pairs",
                    dir.display()
                )));
            };
            let (meta, record) = crate::run::read::read(dir, &file)?;
            let evaluation = crate::evaluation::registry::evaluate(
                &record,
                crate::evaluation::EvalSettings::new(0, meta.head.seed),
            );
            if evaluation.comparisons.is_empty() {
                return Err(input_error(format!(
                    "the run in '{}' compares no pair of configurations; plan needs two or more, or give --discordance",
                    dir.display()
                )));
            }
            evaluation
                .comparisons
                .iter()
                .map(|c| {
                    let p = c.power.discordance;
                    Need {
                        pair: format!(
                            "{} vs {}",
                            record.configs[c.a].name, record.configs[c.b].name
                        ),
                        discordance: p,
                        items_needed: mcnemar_items_needed(p, args.diff, args.alpha, args.power)
                            .ceil(),
                        items_now: Some(c.n),
                        min_detectable_now: Some(mcnemar_min_detectable(
                            c.n as f64,
                            p,
                            args.alpha,
                            args.power,
                        )),
                    }
                })
                .collect()
        }
        _ => {
            return Err(input_error(
                "accuracy needs the discordance: give --discordance P (assumed) or --from RUN_DIR (measured)",
            ))
        }
    };
    Ok(PlanResult::Accuracy {
        method: crate::evaluation::plan::ACCURACY_METHOD,
        diff: args.diff,
        alpha: args.alpha,
        power: args.power,
        needs,
    })
}
