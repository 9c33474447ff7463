//! Output of `raterlab calibrate` and `raterlab report`: the comparison table, policies,
//! position bias, sections, confusion matrices, paired comparisons; and the JSON document.

pub mod bias;
pub mod consistency;
pub mod cost;
pub mod depth;
pub mod groups;
pub mod jury;
pub mod latex;
pub mod page;
pub mod plots;
pub mod probability;
pub mod ranking;
pub mod rewardbench2;
pub mod rmbench;
pub mod run_dir;
pub mod summary;
pub mod systems;

use crate::evaluation::{Headline, PointwiseStats, Position, Scope};
use crate::report::calibrate::ranking::{order, ranking_note, verdict};
use crate::report::media::json::{agreement, num};
use crate::report::media::{format, table};
use crate::run::record::{Calibrated, Run};
use anyhow::Result;
use serde_json::{json, Map, Value};
use std::io::Write;

fn headline_json(h: &Headline) -> Value {
    json!({"n": h.n, "accuracy": num(h.accuracy), "kappa": num(h.kappa), "kappa_quadratic": num(h.kappa_quadratic)})
}

fn position_json(p: &Position) -> Value {
    json!({
        "pairs": p.pairs,
        "pairs_both_rated": p.pairs_both_rated,
        "consistency": num(p.consistency),
        "first_position_win_rate": num(p.first_position_win_rate),
        "rules": {
            "fastchat": headline_json(&p.fastchat),
            "judgebench": {
                "accuracy": num(p.judgebench.accuracy),
                "all_correct": num(p.judgebench.all_correct),
                "all_incorrect": num(p.judgebench.all_incorrect),
                "some_correct": num(p.judgebench.some_correct),
                "inconsistent": num(p.judgebench.inconsistent),
                "missing": num(p.judgebench.missing),
            },
            "llmbar": {
                "accuracy": num(p.llmbar.accuracy),
                "equal": num(p.llmbar.equal),
                "correct_both": num(p.llmbar.correct_both),
            },
        }
    })
}

fn counts_json(s: &Scope) -> Value {
    let c = s.counts;
    json!({"examples": c.examples, "rated": c.rated, "ties": c.ties, "no_verdict": c.no_verdict, "cut_off": c.cut_off, "call_failures": c.call_failures})
}

fn scope_json(s: &Scope) -> Value {
    let mut m = agreement(&s.agreement);
    m.insert("counts".into(), counts_json(s));
    m.insert("parse_rate".into(), num(s.parse_rate));
    m.insert("published_credit".into(), num(s.published));
    m.insert(
        "policies".into(),
        json!({"drop": headline_json(&s.policies.drop), "as_wrong": headline_json(&s.policies.as_wrong), "as_tie": headline_json(&s.policies.as_tie)}),
    );
    if let Some(p) = &s.position {
        m.insert("position".into(), position_json(p));
    }
    if let Some(p) = &s.pointwise {
        m.insert("pointwise".into(), pointwise_json(p));
    }
    if let Some(b) = &s.bias {
        m.insert("bias".into(), crate::report::calibrate::bias::to_json(b));
    }
    if let Some(p) = &s.probability {
        m.insert("probability".into(), probability::to_json(p, &[]));
    }
    Value::Object(m)
}

fn interval(ci: (f64, f64)) -> Value {
    json!([num(ci.0), num(ci.1)])
}

fn pointwise_json(p: &PointwiseStats) -> Value {
    let hist = |h: &[(f64, usize)]| {
        h.iter()
            .map(|(g, n)| json!({"grade": g, "count": n}))
            .collect::<Vec<_>>()
    };
    json!({
        "pairs": p.pairs, "missing": p.missing,
        "mean_gap": num(p.mean_gap), "mean_gap_ci": interval(p.mean_gap_ci),
        "equal_grades": num(p.equal_grades),
        "auc": num(p.auc), "auc_ci": interval(p.auc_ci),
        "spearman": num(p.spearman.statistic), "spearman_p": num(p.spearman.p_value),
        "kendall_tau_b": num(p.kendall_tau_b.statistic), "kendall_p": num(p.kendall_tau_b.p_value),
        "missing_rule": {"drop": headline_json(&p.drop), "lowest": p.lowest.as_ref().map_or(Value::Null, headline_json)},
        "histogram": {"chosen": hist(&p.chosen), "rejected": hist(&p.rejected)},
    })
}

/// The documented JSON document (docs/guide.md, "JSON output").
pub fn to_json(run: &Run) -> Value {
    let ranked = order(run);
    let configs: Vec<Value> = run
        .evaluation
        .configs
        .iter()
        .zip(&run.record.configs)
        .zip(&run.meta.configs)
        .enumerate()
        .map(|(i, ((r, rec), meta))| {
            let mut m = Map::new();
            m.insert("name".into(), json!(rec.name));
            m.insert("prompt".into(), json!(rec.prompt));
            m.insert("rater".into(), json!(rec.rater));
            m.insert("judge".into(), json!(rec.judge));
            m.insert("model".into(), json!(meta.model));
            m.insert("simulated".into(), json!(rec.simulated));
            m.insert("counts".into(), counts_json(&r.overall));
            m.insert("overall".into(), scope_json(&r.overall));
            m.insert(
                "by_subset".into(),
                Value::Object(
                    r.by_subset
                        .iter()
                        .map(|(k, s)| (k.clone(), scope_json(s)))
                        .collect(),
                ),
            );
            if !r.by_depth.is_empty() {
                m.insert(
                    "by_depth".into(),
                    Value::Object(
                        r.by_depth
                            .iter()
                            .map(|(k, s)| (k.clone(), scope_json(s)))
                            .collect(),
                    ),
                );
            }
            m.insert(
                "sections".into(),
                Value::Object(
                    r.sections
                        .iter()
                        .map(|(k, v)| (k.to_string(), num(*v)))
                        .collect(),
                ),
            );
            m.insert("leaderboard".into(), r.leaderboard.map_or(Value::Null, num));
            m.insert(
                "sections_published".into(),
                Value::Object(
                    r.sections_published
                        .iter()
                        .map(|(k, v)| (k.to_string(), num(*v)))
                        .collect(),
                ),
            );
            m.insert(
                "leaderboard_published".into(),
                r.leaderboard_published.map_or(Value::Null, num),
            );
            if let Some(p) = &r.overall.position {
                m.insert("position".into(), position_json(p));
            }
            if let Some(p) = &r.overall.probability {
                let missing = rec.probability.as_ref().map_or(&[][..], |p| &p.missing[..]);
                m.insert("probability".into(), probability::to_json(p, missing));
            }
            if let Some(r) = crate::report::calibrate::rmbench::to_json(run, i) {
                m.insert("rmbench".into(), r);
            }
            if let Some(j) = crate::report::calibrate::jury::to_json(run, &ranked, i) {
                m.insert("jury".into(), j);
            }
            if let Some(c) = &r.consistency {
                m.insert(
                    "consistency".into(),
                    crate::report::calibrate::consistency::to_json(c),
                );
            }
            if let Some(model) = &r.length_model {
                m.insert(
                    "length_model".into(),
                    crate::report::calibrate::bias::model_json(model),
                );
            }
            if let Some(e) = r
                .evaluator
                .as_ref()
                .and_then(crate::report::evaluator::config_json)
            {
                m.insert("evaluator".into(), e);
            }
            if let Some(s) = r
                .systems
                .as_ref()
                .and_then(|s| serde_json::to_value(s).ok())
            {
                m.insert("systems".into(), s);
            }
            if let Some(a) = &r.annotators {
                let (annotators, judge) = crate::report::annotators::to_json(a);
                m.insert("annotators".into(), annotators);
                m.insert("judge_vs_annotators".into(), judge);
            }
            m.insert(
                "reasons".into(),
                rec.reasons
                    .iter()
                    .map(|(reason, count)| json!({"reason": reason, "count": count}))
                    .collect(),
            );
            let mut cost = crate::report::calibrate::cost::config_json(run, i);
            let c = rec.cost;
            cost["reasoning_share_of_budget"] =
                num(crate::report::calibrate::ranking::reasoning_share(
                    c.tokens_reasoning,
                    c.calls,
                    meta.max_tokens,
                ));
            m.insert("cost".into(), cost);
            Value::Object(m)
        })
        .collect();
    let comparisons: Vec<Value> = run
        .evaluation
        .comparisons
        .iter()
        .map(|c| {
            json!({
                "a": run.record.configs[c.a].name, "b": run.record.configs[c.b].name, "n": c.n,
                "accuracy_diff": num(c.accuracy.diff), "accuracy_ci": [num(c.accuracy.ci.0), num(c.accuracy.ci.1)],
                "kappa_quadratic_diff": num(c.kappa.diff), "kappa_quadratic_ci": [num(c.kappa.ci.0), num(c.kappa.ci.1)],
                "only_a_right": c.only_a_right, "only_b_right": c.only_b_right,
                "p_value": num(c.accuracy.p), "p_holm": num(c.accuracy.p_holm),
                "kappa_quadratic_p": num(c.kappa.p), "kappa_quadratic_p_holm": num(c.kappa.p_holm),
                "accuracy_finding": c.accuracy.finding().key(), "kappa_quadratic_finding": c.kappa.finding().key(),
                "discordance": num(c.power.discordance),
                "min_detectable_difference": num(c.power.min_detectable),
                "items_needed": num(c.power.items_needed),
                "verdict": verdict(run, c),
            })
        })
        .collect();
    let mut doc = json!({
        "run_dir": run.meta.dir.display().to_string(),
        "data": {"source": run.meta.source, "items": run.record.items.len(), "seed": run.meta.seed, "both_orders": run.meta.both_orders, "checksum": run.meta.checksum},
        "bootstrap": run.meta.bootstrap,
        "simulated": run.record.configs.iter().any(|c| c.simulated),
        "configs": configs,
        "comparisons": comparisons,
        "ranking_note": ranking_note(run),
        "significance_groups": crate::report::calibrate::groups::to_json(run),
    });
    if let Some(c) = crate::report::calibrate::rmbench::comparisons_json(run) {
        doc["rmbench_comparisons"] = c;
    }
    if let Some(e) = crate::report::evaluator::run_json(run) {
        doc["evaluator"] = e;
    }
    if let Some(f) = &run.evaluation.cost {
        doc["cost_frontier"] = crate::report::calibrate::cost::json(f);
    }
    if !run.meta.unshared.is_empty() {
        doc["data"]["unshared"] = json!(run.meta.unshared);
    }
    if !run.evaluation.systems_comparisons.is_empty() {
        if let Ok(c) = serde_json::to_value(&run.evaluation.systems_comparisons) {
            doc["systems_comparisons"] = c;
        }
    }
    doc
}

/// The human-readable report.
pub fn write_terminal(run: &Run, w: &mut dyn Write, details: bool) -> Result<()> {
    let rec = &run.record;
    let simulated = rec.configs.iter().any(|c| c.simulated);
    let width = crate::report::media::term::width();
    let wrap = crate::report::media::term::wrap;
    let header = format!(
        "raterlab calibrate: {} configuration{} × {} items · data {} · seed {}{}",
        rec.configs.len(),
        if rec.configs.len() == 1 { "" } else { "s" },
        rec.items.len(),
        run.meta.source,
        run.meta.seed,
        if run.meta.both_orders {
            " · both orders"
        } else {
            ""
        }
    );
    writeln!(w, "{}", wrap(&header, width, ""))?;
    if simulated {
        writeln!(
            w,
            "NOTE: results marked (sim) come from the SIMULATED judge, not from an LLM."
        )?;
    }
    // The answer first; the detailed tables follow, and report.html browses everything.
    writeln!(w)?;
    for line in crate::report::calibrate::ranking::answer(run) {
        writeln!(w, "{}", wrap(&line, width, ""))?;
    }
    writeln!(
        w,
        "{}",
        wrap(
            &format!(
                "{}; browse every item in {}",
                if details {
                    "Details follow"
                } else {
                    "Parse failures, position, pointwise, sections, confusion, bias, consistency and the annotators: --details"
                },
                run.meta.dir.join("report.html").display()
            ),
            width,
            ""
        )
    )?;
    if run.meta.no_majority > 0 {
        let kept = rec.annotators.as_ref().is_some_and(|a| a.policy == "tie");
        writeln!(
            w,
            "{} pairs {}: their annotators had no majority",
            run.meta.no_majority,
            if kept { "kept as ties" } else { "left out" }
        )?;
    }
    if !run.meta.unshared.is_empty() {
        writeln!(
            w,
            "{}",
            wrap(
                &format!(
                    "{} conversations left out (--unshared skip: their sides differ before the last replies): {}",
                    run.meta.unshared.len(),
                    run.meta.unshared.join(", ")
                ),
                width,
                ""
            )
        )?;
    }
    let order = order(run);
    let summary = crate::report::calibrate::summary::summary(run);
    let print = |w: &mut dyn Write, t: &crate::report::media::table::Table| -> Result<()> {
        writeln!(
            w,
            "\n{}\n{}",
            wrap(&t.title, width, ""),
            table::render_at(t, width)
        )?;
        for note in &t.notes {
            writeln!(w, "{}", wrap(note, width, "  "))?;
        }
        Ok(())
    };
    print(w, &summary.configurations)?;
    if let Some(t) = crate::report::calibrate::rmbench::table(run) {
        print(w, &t)?;
    }
    // The system level is the answer when a reference was asked for; otherwise a detail.
    let systems = crate::report::calibrate::systems::tables(run, &order);
    let asked = rec
        .generators
        .as_ref()
        .is_some_and(|g| g.reference.is_some());
    if asked || details {
        for t in &systems {
            print(w, t)?;
        }
    }
    if let Some(t) = &summary.probability {
        print(w, t)?;
    }
    if let Some(t) = crate::report::calibrate::cost::table(run) {
        print(w, &t)?;
    }
    if !details {
        // The answer's evidence: the configurations and their paired comparisons.
        if let Some(t) = &summary.comparisons {
            print(w, t)?;
        }
        for t in crate::report::calibrate::jury::tables(run, &order, false) {
            print(w, &t)?;
        }
        writeln!(w, "\nrun directory: {}", run.meta.dir.display())?;
        return Ok(());
    }
    print(w, &summary.parse_failures)?;
    write_reasons(run, &order, w)?;
    for t in [&summary.position, &summary.pointwise, &summary.sections]
        .into_iter()
        .flatten()
    {
        print(w, t)?;
    }
    if let Some(t) = crate::report::calibrate::depth::table(run, &order) {
        print(w, &t)?;
    }
    writeln!(w, "\nConfusion matrices (rows: gold, columns: rating)")?;
    for &i in &order {
        writeln!(
            w,
            "{}\n{}",
            rec.configs[i].name,
            table::confusion(&run.evaluation.configs[i].overall.agreement.confusion)
        )?;
    }
    if let Some(t) = &summary.comparisons {
        print(w, t)?;
    }
    for t in crate::report::calibrate::jury::tables(run, &order, true)
        .into_iter()
        .chain(crate::report::calibrate::groups::tables(run))
        .chain(crate::report::calibrate::bias::tables(run, &order))
        .chain(crate::report::calibrate::consistency::tables(run, &order))
        .chain(crate::report::evaluator::calibrate_tables(run, &order))
        .chain(crate::report::annotators::calibrate_tables(run, &order))
    {
        print(w, &t)?;
    }
    writeln!(w, "\nrun directory: {}", run.meta.dir.display())?;
    Ok(())
}

/// How many reasons are shown per configuration; the rest are summed up in one line.
const REASONS_SHOWN: usize = 3;

/// The most common reasons why items have no rating, per configuration.
fn write_reasons(run: &Run, order: &[usize], w: &mut dyn Write) -> Result<()> {
    let configs = &run.record.configs;
    if configs.iter().all(|c| c.reasons.is_empty()) {
        return Ok(());
    }
    let width = crate::report::media::term::width();
    writeln!(
        w,
        "\n{}",
        crate::report::media::term::wrap(
            "Why items have no rating (most common reasons; every item's in ratings.csv, the raw answers in completions.jsonl)",
            width,
            ""
        )
    )?;
    let room = width.map_or(110, |w| w.saturating_sub(10).max(20));
    for c in order.iter().map(|&i| &configs[i]) {
        if c.reasons.is_empty() {
            continue;
        }
        writeln!(w, "{}", c.name)?;
        for (reason, n) in c.reasons.iter().take(REASONS_SHOWN) {
            writeln!(w, "  {n:>5} × {}", format::shorten(reason, room))?;
        }
        if c.reasons.len() > REASONS_SHOWN {
            let rest = &c.reasons[REASONS_SHOWN..];
            let n: usize = rest.iter().map(|r| r.1).sum();
            writeln!(w, "  {n:>5} × {} other reasons", rest.len())?;
        }
    }
    Ok(())
}

/// Writes the run directory of whatever `calibrate` made.
pub fn write_dir(calibrated: &Calibrated) -> Result<()> {
    match calibrated {
        Calibrated::Pairs(run) => crate::report::calibrate::run_dir::write(run),
        Calibrated::RewardBench2(run) => {
            crate::report::calibrate::run_dir::rewardbench2::write(run)
        }
    }
}

/// The terminal tables, or with `json` the document, of whatever `calibrate` made.
pub fn emit_any(calibrated: &Calibrated, json: bool, details: bool) -> Result<()> {
    // The detailed tables: asked for, or always when stdout is not a terminal.
    let details = details || !crate::report::media::term::on_terminal();
    crate::report::media::json::emit_either(
        json,
        || json_any(calibrated),
        |w| match calibrated {
            Calibrated::Pairs(run) => write_terminal(run, w, details),
            Calibrated::RewardBench2(run) => {
                crate::report::calibrate::rewardbench2::write_terminal(run, w, details)
            }
        },
    )
}

/// The `--json` document of whatever `calibrate` made.
pub fn json_any(calibrated: &Calibrated) -> Value {
    match calibrated {
        Calibrated::Pairs(run) => to_json(run),
        Calibrated::RewardBench2(run) => crate::report::calibrate::rewardbench2::to_json(run),
    }
}
