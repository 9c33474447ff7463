//! Prediction-powered ranking with `--estimate` and the models named (`metrics::ppr`, Chatzi
//! et al.): each model's win rate and rank-set from the humans alone, the judge alone and
//! both, by Chatzi et al.'s standard errors and by each model's own battles.

use crate::metrics::ppr::{self, Battle, Sets};
use serde::Serialize;

/// One model's win rate from one source, with its rank-set at 1 − α. `se` and `rank_set`, the
/// figures that lead, come from the covariance of each model's mean over its own battles
/// (`metrics::ppr::Per::ModelBattles`); `se_published` and `rank_set_published` are Chatzi et
/// al.'s code's (the covariance over all battles, n²), narrower by the model's share of the
/// battles, kept beside them and labelled.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ranked {
    pub win_rate: f64,
    pub se: f64,
    pub rank_set: [usize; 2],
    pub se_published: f64,
    pub rank_set_published: [usize; 2],
}

/// A model from the humans alone, the judge alone and both (prediction-powered ranking).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelEstimate {
    pub name: String,
    pub ppr: Ranked,
    pub humans: Ranked,
    pub judge: Ranked,
}

/// The models ranked with few human labels, best first by the combined win rate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SystemsEstimate {
    pub lambda: f64,
    pub models: Vec<ModelEstimate>,
}

/// An item for the ranking: the models that wrote response 1 and response 2, the gold label
/// (None: unlabelled) and the judge's (pairwise: -1, 0, 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    pub models: [String; 2],
    pub gold: Option<i64>,
    pub judge: i64,
}

/// Prediction-powered ranking of the models at 1 − α (None without labelled and unlabelled
/// items, or with fewer than two models).
pub fn systems(matches: &[Match], alpha: f64) -> Option<SystemsEstimate> {
    let mut names: Vec<String> = matches.iter().flat_map(|m| m.models.clone()).collect();
    names.sort();
    names.dedup();
    let index = |name: &str| {
        names
            .binary_search_by(|n| n.as_str().cmp(name))
            .unwrap_or(0)
    };
    let (mut humans, mut judged, mut unlabelled, mut all) = (vec![], vec![], vec![], vec![]);
    for m in matches {
        let (a, b) = (index(&m.models[0]), index(&m.models[1]));
        let judge = Battle::of_label(a, b, m.judge);
        all.push(judge);
        match m.gold {
            Some(g) => {
                humans.push(Battle::of_label(a, b, g));
                judged.push(judge);
            }
            None => unlabelled.push(judge),
        }
    }
    let k = names.len();
    if k < 2 || humans.is_empty() || unlabelled.is_empty() {
        return None;
    }
    let sets = Sets {
        humans: &humans,
        judge: &judged,
        unlabelled: &unlabelled,
    };
    let lambda = ppr::lambda(k, sets);
    let rank = |rates: &dyn Fn(ppr::Per) -> ppr::Rates| -> Vec<Ranked> {
        let (theirs, own) = (rates(ppr::Per::AllBattles), rates(ppr::Per::ModelBattles));
        let (sets, own_sets) = (ppr::rank_sets(&theirs, alpha), ppr::rank_sets(&own, alpha));
        (0..k)
            .map(|i| Ranked {
                win_rate: theirs.theta[i],
                se: own.se()[i],
                rank_set: own_sets[i],
                se_published: theirs.se()[i],
                rank_set_published: sets[i],
            })
            .collect()
    };
    let combined = rank(&|per| ppr::estimate(k, sets, lambda, per));
    let by_humans = rank(&|per| ppr::sample_avg(k, &humans, per));
    let by_judge = rank(&|per| ppr::sample_avg(k, &all, per));
    // Best first by the combined win rate, by the one ranking's rule (undefined last, equals
    // in the models' order).
    let rates: Vec<f64> = combined.iter().map(|r| r.win_rate).collect();
    let models: Vec<ModelEstimate> = super::ranking::ranked(&rates)
        .into_iter()
        .map(|i| ModelEstimate {
            name: names[i].clone(),
            ppr: combined[i].clone(),
            humans: by_humans[i].clone(),
            judge: by_judge[i].clone(),
        })
        .collect();
    Some(SystemsEstimate { lambda, models })
}
