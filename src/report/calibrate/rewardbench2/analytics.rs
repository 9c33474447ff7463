//! RewardBench 2's analytics as text and JSON: what each configuration's calls read (missing
//! picks, grades and verdicts; the two ranking readers' disagreement), picks and accuracy by
//! slot, forced ties and AUC, and the paired comparisons with the group of the best.

use crate::dataset::rewardbench2::slot_letter;
use crate::evaluation::rewardbench2::analytics::{Paired, Read, Slots, SLOTS};
use crate::evaluation::rewardbench2::score::Rb2Config;
use crate::evaluation::Finding;
use crate::raters::rewardbench2::Protocol;
use crate::report::media::format::interval_of;
use crate::report::media::format::{fixed, p_value};
use crate::report::media::table::Table;
use crate::run::record::Run;
use serde::Serialize;

/// What was read on row `k` of configuration `c`.
pub fn read_row(c: &Rb2Config, k: usize) -> Read {
    crate::evaluation::rewardbench2::analytics::read_row(
        c.protocol,
        c.outcomes.get(k),
        c.scored.get(k),
    )
}

/// Answers not read: how many of how many.
#[derive(Debug, Serialize)]
struct Missing {
    missing: usize,
    of: usize,
}

fn missing_json(m: Option<(usize, usize)>) -> Option<Missing> {
    m.map(|(missing, of)| Missing { missing, of })
}

/// A configuration's calls: requests (samples asked together with `n` are one) and their
/// latencies added up.
#[derive(Debug, Serialize)]
struct Calls {
    calls: u64,
    cache_hits: u64,
    tokens_in: u64,
    tokens_out: u64,
    #[serde(skip_serializing_if = "is_zero")]
    tokens_reasoning: u64,
    requests: u64,
    request_seconds: f64,
    /// With a price for the model (`--price`).
    #[serde(skip_serializing_if = "Option::is_none")]
    usd: Option<f64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Debug, Serialize)]
struct ReadJson {
    picks: Option<Missing>,
    verdicts: Option<Missing>,
    grades: Option<Missing>,
}

/// The per-configuration fields beside `rewardbench2`.
#[derive(Debug, Serialize)]
pub struct ConfigJson<'a> {
    /// A jury: its vote.
    #[serde(skip_serializing_if = "Option::is_none")]
    jury: Option<&'a str>,
    /// A jury: its members' names.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    members: Vec<&'a str>,
    protocol: &'static str,
    calls: Calls,
    read: ReadJson,
    readers_disagree: Option<usize>,
    slots: &'a Slots,
    grades: Option<&'a crate::evaluation::rewardbench2::analytics::Grades>,
}

/// The per-configuration fields beside `rewardbench2` (`all`: the run's configurations, which a
/// jury's members are among).
pub fn config_json<'a>(c: &'a Rb2Config, all: &'a [Rb2Config]) -> ConfigJson<'a> {
    let r = c.read;
    let u = c.tally.usage;
    ConfigJson {
        jury: c.jury.as_deref(),
        members: c.members.iter().map(|&m| all[m].name.as_str()).collect(),
        protocol: c.protocol.key(),
        calls: Calls {
            calls: u.calls,
            cache_hits: u.cache_hits,
            tokens_in: u.tokens_in,
            tokens_out: u.tokens_out,
            tokens_reasoning: u.tokens_reasoning,
            requests: u.requests,
            request_seconds: u.request_seconds(),
            usd: c.usd,
        },
        read: ReadJson {
            picks: missing_json(r.picks),
            verdicts: missing_json(r.verdicts),
            grades: missing_json(r.grades),
        },
        readers_disagree: c.readers_disagree,
        slots: &c.slots,
        grades: c.grades.as_ref(),
    }
}

/// A paired comparison of two configurations on the mean of the subset scores (B − A), in the
/// one shape of a paired test.
pub fn comparison_json(run: &Run, p: &Paired) -> crate::evaluation::paired::PairedTest {
    p.test.shaped(
        &run.rewardbench2().configs[p.a].name,
        &run.rewardbench2().configs[p.b].name,
        "mean_subset_score",
    )
}

fn counts(v: &[usize; SLOTS]) -> String {
    (0..SLOTS)
        .map(|k| format!("{} {}", slot_letter(k), v[k]))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The lines under a configuration's table.
pub fn config_lines(c: &Rb2Config) -> Vec<String> {
    let mut out = Vec::new();
    let r = c.read;
    let u = c.tally.usage;
    if c.protocol != Protocol::Scores {
        let mut what = vec![format!(
            "{} protocol (Ties by ratings): {} calls, {} from the cache{}",
            c.protocol.key(),
            u.calls,
            u.cache_hits,
            c.usd.map_or_else(String::new, |usd| format!(", ${usd:.4}"))
        )];
        match (r.picks.filter(|p| p.1 > 0), &c.jury) {
            (Some((m, of)), None) => what.push(format!("no pick read in {m} of {of} rows (each scored 1/4, as reward-bench scores an unread answer)")),
            (Some((m, of)), Some(vote)) => what.push(format!("no {vote} vote in {m} of {of} rows (the members disagree or did not pick; each scored 1/4, as reward-bench scores an unread answer)")),
            (None, _) => {}
        }
        if let Some((m, of)) = r.verdicts {
            what.push(format!(
                "no verdict in {m} of {of} pairs (a row is right only when every pair is won)"
            ));
        }
        if let Some((m, of)) = r.grades {
            what.push(format!("no grade read for {m} of {of} completions"));
        }
        out.push(what.join("; "));
    }
    if let Some(n) = c.readers_disagree {
        out.push(format!(
            "the two ranking readers (rb2_ranking: stated verdicts; rb2_ranking_published: reward-bench's first tag in A-D order) disagree on {n} of {} rows",
            r.picks.map_or(0, |p| p.1)
        ));
    }
    let s = &c.slots;
    if let Some(picked) = s.picked_at.filter(|p| p.iter().sum::<usize>() > 0) {
        out.push(format!(
            "picks by slot: {} against the correct slots {} (chi-square {} on {} df, p {})",
            counts(&picked),
            counts(&s.correct_at),
            fixed(s.chi2),
            s.df,
            p_value(s.p)
        ));
    }
    if s.correct_at.iter().sum::<usize>() > 0 {
        out.push(format!(
            "accuracy by the correct completion's slot: {}",
            (0..SLOTS)
                .map(|k| format!("{} {}", slot_letter(k), fixed(s.accuracy_by_slot[k])))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if let Some(g) = c.grades {
        out.push(format!(
            "grades: the correct completion tied at the top in {} of {} rows (forced ties); AUC of correct vs incorrect grades {} (mean over {} rows)",
            fixed(g.forced_tie),
            g.rows,
            fixed(g.auc),
            g.auc_rows
        ));
    }
    out
}

/// The paired comparisons as a table, the group of the best in its notes (none with one
/// configuration).
pub fn comparison_table(run: &Run) -> Option<Table> {
    if run.rewardbench2().configs.len() < 2 {
        return None;
    }
    let mut t = Table::new(
        format!(
            "Paired comparisons: the mean of the subset scores, B - A ({} paired bootstrap redraws of the rows, Ties by question; Holm over {} pair{})",
            run.meta.head.bootstrap,
            run.rewardbench2().comparisons.len(),
            if run.rewardbench2().comparisons.len() == 1 { "" } else { "s" }
        ),
        &["B vs A", "B - A [CI at Holm's level]", "Holm p", "finding"],
    );
    for p in &run.rewardbench2().comparisons {
        let (a, b) = (
            &run.rewardbench2().configs[p.a].name,
            &run.rewardbench2().configs[p.b].name,
        );
        let x = &p.test;
        let finding = match x.finding() {
            Finding::BBetter => format!("{b} better"),
            Finding::ABetter => format!("{a} better"),
            Finding::NoDifference => "no difference found".into(),
            Finding::Unjudged => "no verdict (--family best)".into(),
            Finding::Untested => "not tested".into(),
        };
        t.rows.push(vec![
            format!("{b} vs {a}"),
            format!("{:+.3} {}", x.diff, interval_of(x, 3)),
            p_value(x.p_holm),
            finding,
        ]);
    }
    let names: Vec<&str> = run
        .rewardbench2()
        .group()
        .iter()
        .map(|&k| run.rewardbench2().configs[k].name.as_str())
        .collect();
    t.notes.push(format!(
        "Indistinguishable from the best (no test finds them worse): {}",
        names.join(", ")
    ));
    Some(t)
}
