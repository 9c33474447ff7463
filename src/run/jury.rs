//! A plan's juries: `[[jury]]` entries of an experiment file and `--jury NAME[:VOTE]=M,M,...`,
//! resolved against the plan's configurations before any call. A member is a configuration's
//! name (that configuration) or a judge's label (its configuration of each prompt × rater:
//! the jury is then one per prompt × rater, named `jury/prompt/rater`).

use super::record::ConfigMeta;
use crate::error::input_error;
use crate::raters::jury::{Jury, Vote};
use crate::raters::Config;
use crate::run::settings::JuryEntry;
use anyhow::Result;

/// Who a configuration is: its judge's label, prompt and rater.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigKey {
    pub label: String,
    pub prompt: String,
    pub rater: String,
}

/// One member as written: a fixed configuration, or a judge label to take per prompt × rater.
enum Member {
    Config(usize),
    Label(String),
}

/// What a jury's configuration says of itself: the members' shared prompt, parser and rater
/// (or "mixed"), and the vote in place of a judge.
fn meta(name: String, jury: &Jury, metas: &[ConfigMeta]) -> ConfigMeta {
    let members: Vec<&ConfigMeta> = jury.members.iter().map(|&m| &metas[m]).collect();
    let shared = |field: fn(&ConfigMeta) -> &str| {
        let first = field(members[0]);
        if members.iter().all(|m| field(m) == first) {
            first.to_string()
        } else {
            "mixed".to_string()
        }
    };
    let weights = if jury.weights.iter().all(|&w| w == 1.0) {
        String::new()
    } else {
        format!(
            ", weights {}",
            jury.weights
                .iter()
                .map(|w| w.to_string())
                .collect::<Vec<_>>()
                .join("/")
        )
    };
    ConfigMeta {
        price: None,
        judge: format!(
            "jury ({}{weights}) of {}",
            jury.vote.key(),
            members
                .iter()
                .map(|m| m.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        name,
        prompt: shared(|m| &m.prompt),
        parser: shared(|m| &m.parser),
        rater: "jury".into(),
        model: members
            .iter()
            .map(|m| m.model.as_str())
            .collect::<Vec<_>>()
            .join(" + "),
        temperature: members[0].temperature,
        max_tokens: members.iter().map(|m| m.max_tokens).max().unwrap_or(0),
        simulated: members.iter().any(|m| m.simulated),
        system: None,
        template: String::new(),
    }
}

/// The plan's juries with their descriptions, checked: at least two distinct members, each a
/// configuration or a judge label of this plan, a known vote, one positive weight per member,
/// a name of its own.
pub fn resolve(
    entries: &[JuryEntry],
    flags: &[JuryEntry],
    configs: &[Config],
    metas: &[ConfigMeta],
    keys: &[Option<ConfigKey>],
) -> Result<Vec<(Jury, ConfigMeta)>> {
    let mut out: Vec<(Jury, ConfigMeta)> = Vec::new();
    for entry in entries.iter().chain(flags) {
        let what = format!("jury '{}'", entry.name);
        let vote = entry.vote.unwrap_or(Vote::StrictMajority);
        if entry.members.len() < 2 {
            return Err(input_error(format!(
                "{what} has {} member; a jury needs at least two",
                entry.members.len()
            )));
        }
        let weights = weights_of(entry, &what)?;
        let members = members_of(entry, &what, configs, keys)?;
        let labelled = members.iter().find_map(|m| match m {
            Member::Label(l) => Some(l.clone()),
            Member::Config(_) => None,
        });
        // The prompt × rater combinations of the first labelled member (none: one jury).
        let combos: Vec<Option<(String, String)>> = match &labelled {
            None => vec![None],
            Some(label) => keys
                .iter()
                .flatten()
                .filter(|k| &k.label == label)
                .map(|k| Some((k.prompt.clone(), k.rater.clone())))
                .collect(),
        };
        for combo in &combos {
            let indices = indices_of(&members, combo.as_ref(), keys, &what)?;
            let mut distinct = indices.clone();
            distinct.sort_unstable();
            distinct.dedup();
            if distinct.len() != indices.len() {
                return Err(input_error(format!(
                    "{what} names the same configuration twice"
                )));
            }
            let name = match combo {
                Some((p, r)) => format!("{}/{p}/{r}", entry.name),
                None => entry.name.clone(),
            };
            if configs.iter().any(|c| c.name == name) || out.iter().any(|(j, _)| j.name == name) {
                return Err(input_error(format!(
                    "{what}: the name '{name}' is taken; give the jury another name"
                )));
            }
            let tie_margin = configs[indices[0]].pointwise.tie_margin;
            let jury = Jury {
                name: name.clone(),
                members: indices,
                vote,
                weights: weights.clone(),
                tie_margin,
            };
            let m = meta(name, &jury, metas);
            out.push((jury, m));
        }
    }
    Ok(out)
}

/// A jury's weights: as given, one positive number per member, or 1 each.
fn weights_of(entry: &JuryEntry, what: &str) -> Result<Vec<f64>> {
    let weights = entry
        .weights
        .clone()
        .unwrap_or_else(|| vec![1.0; entry.members.len()]);
    if weights.len() != entry.members.len() || weights.iter().any(|w| !(*w > 0.0 && w.is_finite()))
    {
        return Err(input_error(format!(
            "{what}: weights must be one positive number per member ({} members, {} weights)",
            entry.members.len(),
            weights.len()
        )));
    }
    Ok(weights)
}

/// A jury's members: each a configuration of this plan or a judge label.
fn members_of(
    entry: &JuryEntry,
    what: &str,
    configs: &[Config],
    keys: &[Option<ConfigKey>],
) -> Result<Vec<Member>> {
    entry
        .members
        .iter()
        .map(|m| {
            if let Some(i) = configs.iter().position(|c| &c.name == m) {
                Ok(Member::Config(i))
            } else if keys.iter().flatten().any(|k| &k.label == m) {
                Ok(Member::Label(m.clone()))
            } else {
                let labels: std::collections::BTreeSet<&str> =
                    keys.iter().flatten().map(|k| k.label.as_str()).collect();
                Err(input_error(format!(
                    "{what}: member '{m}' is neither a configuration nor a judge label of this run; configurations: {}; judge labels: {}",
                    configs.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", "),
                    labels.into_iter().collect::<Vec<_>>().join(", ")
                )))
            }
        })
        .collect()
}

/// The configurations a jury's members are under one prompt × rater combination (a judge
/// label's configuration with that prompt and rater).
fn indices_of(
    members: &[Member],
    combo: Option<&(String, String)>,
    keys: &[Option<ConfigKey>],
    what: &str,
) -> Result<Vec<usize>> {
    members
        .iter()
        .map(|m| match (m, combo) {
            (Member::Config(i), _) => Ok(*i),
            (Member::Label(l), Some((p, r))) => keys
                .iter()
                .position(|k| {
                    k.as_ref()
                        .is_some_and(|k| &k.label == l && &k.prompt == p && &k.rater == r)
                })
                .ok_or_else(|| {
                    input_error(format!("{what}: judge '{l}' has no configuration {p}/{r}"))
                }),
            (Member::Label(l), None) => Err(input_error(format!(
                "{what}: judge '{l}' has no configuration"
            ))),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_reads_name_vote_and_members() {
        let j = "poll:mean=a, b,c/p/sc:5"
            .parse::<JuryEntry>()
            .expect("valid");
        assert_eq!(j.name, "poll");
        assert_eq!(j.vote, Some(Vote::Mean));
        assert_eq!(j.members, ["a", "b", "c/p/sc:5"]);
        assert!("poll".parse::<JuryEntry>().is_err());
        assert!("=a,b".parse::<JuryEntry>().is_err());
        assert!("poll:most=a,b".parse::<JuryEntry>().is_err());
    }
}
