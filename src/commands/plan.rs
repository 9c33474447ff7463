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
    check_unit("--power", args.power, true)?;
    if let Some(s) = &args.alt_test {
        return Ok(PlanResult::AltTest {
            alt_test: crate::evaluation::alt_test_plan::simulate(s),
        });
    }
    if let Some(req) = &args.active {
        let active = crate::run::active::plan(req, args.seed)?;
        if let Some(path) = &req.out {
            crate::report::plan::write_active_queue(&active, path)?;
        }
        return Ok(PlanResult::Active { active });
    }
    let Some(diff) = args.diff else {
        return labels(args);
    };
    if !(diff.is_finite() && diff != 0.0 && diff.abs() <= 1.0) {
        return Err(input_error(format!(
            "--diff {diff} must be a non-zero difference between -1 and 1, e.g. 0.03 for three accuracy points"
        )));
    }
    let args = &SizeSettings {
        diff: Some(diff),
        ..args.clone()
    };
    match args.metric {
        PlanMetric::Accuracy => accuracy(args, diff),
        PlanMetric::KappaQuadratic => {
            check_unit("--accuracy", args.accuracy, false)?;
            check_unit("--tie-rate", args.tie_rate, false)?;
            if !(0.0..=1.0).contains(&(args.accuracy + diff)) {
                return Err(input_error(format!(
                    "--accuracy {} plus --diff {diff} leaves the second judge's accuracy outside 0..1",
                    args.accuracy
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
                judge(args.accuracy + diff),
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
                diff,
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

/// `--labels`/`--width`: the human labels to collect for `--estimate`, from a pilot.
fn labels(args: &SizeSettings) -> Result<PlanResult> {
    let Some(path) = &args.pilot else {
        return Err(input_error(
            "--labels and --width plan from a pilot: give --pilot FILE (gold and rating columns)",
        ));
    };
    if let Some(w) = args.width {
        if !(w > 0.0 && w < 1.0) {
            return Err(input_error(format!(
                "--width {w}: the interval's full width, a number between 0 and 1, e.g. 0.05"
            )));
        }
    }
    if args.labels == Some(0) {
        return Err(input_error(
            "--labels 0: give the number of labels to split, 1 or more",
        ));
    }
    let frame = crate::dataset::frame::read(path)?;
    let names = crate::dataset::labels::ColumnNames {
        gold: "gold".into(),
        rating: "rating".into(),
        ..Default::default()
    };
    // A row without a readable rating (a failed call in a run's ratings.csv) is left out.
    let reading = crate::dataset::frame::LabelReading {
        drop_unreadable: true,
        ..Default::default()
    };
    crate::dataset::labels::check_ids(&frame, names.id.as_deref())?;
    let pairs =
        crate::dataset::labels::load_one(&frame, &names, &(reading.clone(), reading), None)?;
    if pairs.gold.is_empty() {
        return Err(input_error(format!(
            "--pilot '{}': no row has a gold label; a pilot needs labelled items to measure the judge on",
            path.display()
        )));
    }
    let items: Vec<crate::evaluation::estimate::Item> = pairs
        .gold
        .iter()
        .zip(&pairs.rating)
        .map(|(&g, &r)| crate::evaluation::estimate::Item::label(Some(g), r))
        .chain(
            pairs
                .unlabelled
                .iter()
                .map(|&r| crate::evaluation::estimate::Item::label(None, r)),
        )
        .collect();
    Ok(PlanResult::Labels(
        crate::evaluation::estimate::plan_labels(
            &items,
            args.estimate_label,
            args.labels,
            args.width.map(|w| (w, args.alpha, args.unlabelled)),
        ),
    ))
}

fn accuracy(args: &SizeSettings, diff: f64) -> Result<PlanResult> {
    let needs = match (&args.from, args.discordance) {
        (None, Some(p)) => {
            check_unit("--discordance", p, false)?;
            if diff.abs() > p {
                return Err(input_error(format!(
                    "--diff {diff} cannot exceed the discordance {p}: two judges differ in accuracy by at most the share of items that split them"
                )));
            }
            vec![Need {
                pair: "assumed".into(),
                discordance: p,
                items_needed: mcnemar_items_needed(p, diff, args.alpha, args.power).ceil(),
                items_now: None,
                min_detectable_now: None,
            }]
        }
        (Some(dir), None) => {
            let file = crate::run::read::run_file(dir)?;
            if !file.over_pairs() {
                return Err(input_error(format!(
                    "'{}' is a RewardBench 2 run: plan --from reads the paired tests of a run over pairs; give --discordance, or --from a run over pairs",
                    dir.display()
                )));
            }
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
                        items_needed: mcnemar_items_needed(p, diff, args.alpha, args.power)
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
        diff,
        alpha: args.alpha,
        power: args.power,
        needs,
    })
}
