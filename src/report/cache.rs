//! What `raterlab cache stats | export | prune` tell the user.

use crate::judge::cache::Stats;
use crate::report::media::format::{bytes, thousands, utc};
use crate::report::media::table::{render, Table};
use crate::run::cache::Done;
use anyhow::Result;
use std::io::Write;

pub fn emit(done: &Done) -> Result<()> {
    let mut out = crate::report::media::term::stdout();
    match done {
        Done::Stats { stats, json: true } => {
            serde_json::to_writer_pretty(&mut out, &stats_json(stats))?;
            writeln!(out)?;
        }
        Done::Stats { stats, json: false } => write!(out, "{}", stats_text(stats))?,
        Done::Exported {
            entries,
            out: path,
            model,
        } => {
            let of = model
                .as_ref()
                .map_or_else(String::new, |m| format!(" of model {m}"));
            writeln!(
                out,
                "cache export: {} completions{of} written to {}",
                thousands(*entries),
                path.display()
            )?;
            if *entries == 0 && model.is_some() {
                writeln!(
                    out,
                    "note: the cache holds no completion of that model; `raterlab cache stats` lists the models it holds"
                )?;
            }
        }
        Done::Pruned {
            entries,
            left,
            dry_run,
            what,
        } => {
            if *dry_run {
                writeln!(
                    out,
                    "cache prune (dry run): would delete {} completions ({what}); {} would stay. Nothing was deleted.",
                    thousands(*entries),
                    thousands(left - entries)
                )?;
            } else {
                writeln!(
                    out,
                    "cache prune: deleted {} completions ({what}); {} stay",
                    thousands(*entries),
                    thousands(*left)
                )?;
            }
        }
    }
    Ok(())
}

/// `cache stats --json`: the figures, and the oldest and newest answers' dates in UTC.
#[derive(serde::Serialize)]
struct StatsJson<'a> {
    schema: &'static str,
    #[serde(flatten)]
    stats: &'a Stats,
    oldest: Option<String>,
    newest: Option<String>,
}

fn stats_json(s: &Stats) -> serde_json::Value {
    serde_json::to_value(StatsJson {
        schema: crate::run::schema::CACHE_STATS,
        stats: s,
        oldest: s.oldest_unix.map(utc),
        newest: s.newest_unix.map(utc),
    })
    .unwrap_or_default()
}

fn stats_text(s: &Stats) -> String {
    let mut table = Table::new(
        format!(
            "response cache {}: {} completions, {} on disk",
            s.path.display(),
            thousands(s.entries),
            bytes(s.bytes)
        ),
        &[
            "model",
            "entries",
            "text",
            "tokens in",
            "tokens out",
            "oldest",
            "newest",
        ],
    );
    for m in &s.models {
        table.rows.push(vec![
            m.model.clone().unwrap_or_else(|| "(unknown)".into()),
            thousands(m.entries),
            bytes(m.text_bytes),
            thousands(m.tokens_in),
            thousands(m.tokens_out),
            utc(m.oldest_unix),
            utc(m.newest_unix),
        ]);
    }
    if s.models.iter().any(|m| m.model.is_none()) {
        table.notes.push(
            "(unknown): moved in from a former completions.jsonl, which did not record the model; dated by the log's last write".into(),
        );
    }
    if s.entries == 0 {
        table.notes.push("the cache is empty".into());
    }
    let mut text = format!("{}\n", table.title);
    if !table.rows.is_empty() {
        text.push_str(&format!("{}\n", render(&table)));
    }
    for note in &table.notes {
        text.push_str(&format!("note: {note}\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::cache::ModelStats;

    #[test]
    fn stats_show_every_model_and_say_what_unknown_means() {
        let stats = Stats {
            path: "/c/completions.sqlite".into(),
            entries: 3,
            bytes: 12_288,
            text_bytes: 30,
            oldest_unix: Some(0),
            newest_unix: Some(86_400 + 3_660),
            models: vec![
                ModelStats {
                    model: Some("qwen".into()),
                    entries: 2,
                    text_bytes: 20,
                    tokens_in: 1_500,
                    tokens_out: 4,
                    oldest_unix: 86_400,
                    newest_unix: 86_400 + 3_660,
                },
                ModelStats {
                    model: None,
                    entries: 1,
                    text_bytes: 10,
                    tokens_in: 0,
                    tokens_out: 0,
                    oldest_unix: 0,
                    newest_unix: 0,
                },
            ],
        };
        let text = stats_text(&stats);
        assert!(text.contains("3 completions, 12.3 KB on disk"), "{text}");
        assert!(text.contains("1970-01-02 01:01 UTC"), "{text}");
        assert!(text.contains("(unknown): moved in"), "{text}");
        let v = stats_json(&stats);
        assert_eq!(v["entries"], 3);
        assert_eq!(v["models"][0]["model"], "qwen");
        assert_eq!(v["models"][1]["model"], serde_json::Value::Null);
        assert_eq!(v["newest"], "1970-01-02 01:01 UTC");
    }
}
