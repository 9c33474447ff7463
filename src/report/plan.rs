//! Output of `raterlab plan`.

use crate::evaluation::plan::PlanResult;
use crate::report::media::table::Table;
use anyhow::Result;
use serde_json::Value;
use std::io::Write;

fn count(v: f64) -> String {
    if v.is_finite() {
        crate::report::media::format::thousands(v as u64)
    } else {
        "-".into()
    }
}

/// The document `plan --json` prints: the result, serialized.
pub fn to_json(r: &PlanResult) -> Value {
    serde_json::to_value(r).unwrap_or(Value::Null)
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
            ..
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
            ..
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
