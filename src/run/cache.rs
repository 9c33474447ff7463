//! `raterlab cache`: its options checked (ages, filters) and what each subcommand did.

use crate::error::input_error;
use crate::judge::cache::{Filter, Stats};
use anyhow::Result;
use std::path::PathBuf;

/// What a cache subcommand did, for `report::cache`.
#[derive(Debug, Clone, PartialEq)]
pub enum Done {
    Stats {
        stats: Stats,
        json: bool,
    },
    Exported {
        entries: u64,
        out: PathBuf,
        model: Option<String>,
    },
    Pruned {
        entries: u64,
        left: u64,
        dry_run: bool,
        what: String,
    },
}

/// An age (`90d`, `12h`, `2w`, `30m`) in seconds.
pub fn age_seconds(age: &str) -> Result<i64> {
    let bad = || {
        input_error(format!(
            "--older-than '{age}': expected a whole number and a unit, such as 90d (days), 12h (hours), 2w (weeks) or 30m (minutes)"
        ))
    };
    let age = age.trim();
    let split = age.len().checked_sub(1).ok_or_else(bad)?;
    let (number, unit) = age.split_at(split);
    let n: i64 = number.parse().map_err(|_| bad())?;
    let unit = match unit {
        "m" => 60,
        "h" => 3_600,
        "d" => 86_400,
        "w" => 604_800,
        _ => return Err(bad()),
    };
    n.checked_mul(unit).filter(|s| *s >= 0).ok_or_else(bad)
}

/// The prune filter the options ask for, and how it reads (for the report). Pruning needs a
/// filter or `--all`: a bare `prune` deletes nothing.
pub fn prune_filter(
    model: Option<String>,
    older_than: Option<&str>,
    all: bool,
    now_unix: i64,
) -> Result<(Filter, String)> {
    if model.is_none() && older_than.is_none() && !all {
        return Err(input_error(
            "cache prune: say what to delete: --model NAME, --older-than AGE (such as 90d), both, or --all; add --dry-run to count first",
        ));
    }
    let mut what = Vec::new();
    if let Some(m) = &model {
        what.push(format!("of model {m}"));
    }
    let before_unix = match older_than {
        Some(age) => {
            what.push(format!("older than {age}"));
            Some(now_unix - age_seconds(age)?)
        }
        None => None,
    };
    let what = if what.is_empty() {
        "all".to_string()
    } else {
        what.join(", ")
    };
    Ok((Filter { model, before_unix }, what))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_their_units_and_refuse_the_rest() {
        assert_eq!(age_seconds("90d").expect("days"), 90 * 86_400);
        assert_eq!(age_seconds("2w").expect("weeks"), 14 * 86_400);
        assert_eq!(age_seconds("12h").expect("hours"), 12 * 3_600);
        assert_eq!(age_seconds("0m").expect("minutes"), 0);
        for bad in ["", "d", "90", "9x", "-1d", "1.5d"] {
            let e = age_seconds(bad).expect_err(bad).to_string();
            assert!(e.contains("such as 90d"), "{bad}: {e}");
        }
    }

    #[test]
    fn prune_needs_a_filter_or_all() {
        let e = prune_filter(None, None, false, 0).expect_err("nothing said");
        assert!(e.to_string().contains("--all"), "{e}");
        let (f, what) = prune_filter(Some("m".into()), Some("1d"), false, 100_000).expect("ok");
        assert_eq!(f.model.as_deref(), Some("m"));
        assert_eq!(f.before_unix, Some(100_000 - 86_400));
        assert_eq!(what, "of model m, older than 1d");
        assert_eq!(prune_filter(None, None, true, 0).expect("all").1, "all");
    }
}
