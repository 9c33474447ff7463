//! Output of `raterlab plan`.

use crate::evaluation::plan::PlanResult;
use crate::report::media::json::num;
use crate::report::media::table::Table;
use anyhow::Result;
use serde_json::{json, Value};
use std::io::Write;

fn count(v: f64) -> String {
    if v.is_finite() {
        crate::report::media::format::thousands(v as u64)
    } else {
        "-".into()
    }
}

/// The document `plan --json` prints.
pub fn to_json(r: &PlanResult) -> Value {
    match r {
        PlanResult::Accuracy {
            diff,
            alpha,
            power,
            needs,
        } => json!({
            "metric": "accuracy", "diff": diff, "alpha": alpha, "power": power,
            "method": "McNemar, normal approximation (Connor 1987)",
            "pairs": needs.iter().map(|n| json!({
                "pair": n.pair, "discordance": num(n.discordance),
                "items_needed": num(n.items_needed),
                "items_now": n.items_now, "min_detectable_now": n.min_detectable_now.map(num),
            })).collect::<Vec<_>>(),
        }),
        PlanResult::Kappa {
            diff,
            accuracy,
            tie_rate,
            alpha,
            power,
            runs,
            items_needed,
            mean_difference,
            power_reached,
        } => json!({
            "metric": "kappa_quadratic", "diff_in_accuracy": diff, "accuracy": accuracy,
            "tie_rate": tie_rate, "alpha": alpha, "power": power, "runs": runs,
            "method": "simulation with two simulated judges (sim:accuracy=A,tie_rate=T, no position bias); the spread of the kappa difference at 1,000 items, scaled by 1/sqrt(n)",
            "kappa_difference": num(*mean_difference), "items_needed": num(*items_needed),
            "power_reached_in_simulation": num(*power_reached),
        }),
    }
}

pub fn emit(r: &PlanResult, as_json: bool) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if as_json {
        serde_json::to_writer_pretty(&mut out, &to_json(r))?;
        writeln!(out)?;
        out.flush()?;
        return Ok(());
    }
    match r {
        PlanResult::Accuracy {
            diff,
            alpha,
            power,
            needs,
        } => {
            let mut t = Table::new(
                format!(
                    "Items needed to detect an accuracy difference of {diff} at α = {alpha} with power {power} (McNemar)"
                ),
                &["pair", "discordance", "items needed", "items now", "detectable now"],
            );
            for n in needs {
                t.rows.push(vec![
                    n.pair.clone(),
                    format!("{:.3}", n.discordance),
                    count(n.items_needed),
                    n.items_now.map_or(String::new(), |v| v.to_string()),
                    n.min_detectable_now.map_or(String::new(), |v| {
                        if v.is_finite() {
                            format!("±{v:.3}")
                        } else {
                            "-".into()
                        }
                    }),
                ]);
            }
            writeln!(
                out,
                "{}\n{}",
                t.title,
                crate::report::media::table::render(&t)
            )?;
            writeln!(
                out,
                "discordance: the share of items exactly one of the two judges gets right; '-': the difference exceeds it"
            )?;
        }
        PlanResult::Kappa {
            diff,
            accuracy,
            tie_rate,
            alpha,
            power,
            runs,
            items_needed,
            mean_difference,
            power_reached,
        } => {
            writeln!(
                out,
                "simulated judges sim:accuracy={accuracy} and sim:accuracy={:.3} (tie_rate {}) differ in quadratic kappa by {mean_difference:+.3} on average",
                accuracy + diff,
                tie_rate
            )?;
            writeln!(
                out,
                "items needed to detect it at α = {alpha} with power {power}: ≈ {} (simulation: {runs} datasets of 1,000 items; at that size {:.0}% of {runs} simulated runs detected it)",
                count(*items_needed),
                power_reached * 100.0
            )?;
        }
    }
    out.flush()?;
    Ok(())
}
