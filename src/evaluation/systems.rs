//! The system level: which model wrote each response, each model's score under each
//! configuration, the ranking it gives, and its agreement with a reference ranking.
//!
//! - **Against one baseline** (every item pits a model against the same one, AlpacaEval's
//!   design): each model's win rate is the mean P(the model's response is better) over its
//!   items, P from the configuration's probability where it has one, else 1 / ½ / 0 from its
//!   verdict (AlpacaEval's `win_rate`); the discrete win rate counts verdicts only (a tie ½).
//! - **Models against each other** (MT-Bench, Chatbot Arena): Bradley–Terry strengths by maximum
//!   likelihood as Chatbot Arena's `compute_mle_elo` fits them (a logistic regression on the
//!   pair design with base-10 log-odds, a win weighing 2 and a tie 1 each way, no penalty, the
//!   strengths summing to 0), on the Elo scale 400·s + 1000.
//! - Intervals resample prompts (a prompt's items move together) with ChaCha8, the same draws
//!   for every model and configuration, so comparisons are paired. Separability is Arena-Hard's:
//!   the share of model pairs whose intervals (1 − α) do not overlap.
//! - **A reference** (a table of model scores, such as Chatbot Arena's Elo, or the ranking the
//!   gold labels induce): Spearman, Kendall's tau-b and Pearson over the models both hold, as
//!   scipy computes them, with intervals over prompts (the reference held fixed), the share of
//!   model pairs ordered as the reference orders them (pairs the reference ties left out; a
//!   tie in the judge's scores is not the same order), and the models without a reference
//!   score, named.

use super::record::{defined, ConfigRecord, Generators, Outcome, Reference, RunRecord};
use super::settings::EvalSettings;
use crate::metrics::bradley_terry::{bradley_terry, elo};
use crate::metrics::general::{kendall_tau_b, pearson, spearman};
use crate::metrics::random::{stream, Purpose};
use crate::metrics::{interval_defined, multinomial};
use serde::Serialize;

/// One model under one configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Model {
    pub name: String,
    /// Mean P(this model's response is better), a fraction.
    pub win_rate: f64,
    /// Each item counted whole: a probability rounded (½ only at exactly ½), else the verdict.
    pub discrete_win_rate: f64,
    /// Items rated (with a probability or a verdict).
    pub n: usize,
    /// Bradley–Terry strength on the Elo scale (models against each other only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elo: Option<f64>,
    /// The interval of the ranking score (win rate, or Elo), over prompts.
    pub ci: Option<[f64; 2]>,
}

/// A configuration's ranking against the reference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Agreement {
    pub source: String,
    /// Models with both a score here and a reference score.
    pub n: usize,
    pub spearman: Option<f64>,
    pub kendall: Option<f64>,
    pub pearson: Option<f64>,
    pub pairwise_agreement: Option<f64>,
    pub ci: AgreementIntervals,
    /// Models without a reference score (left out of the figures).
    pub missing: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AgreementIntervals {
    pub spearman: Option<[f64; 2]>,
    pub kendall: Option<[f64; 2]>,
    pub pearson: Option<[f64; 2]>,
    pub pairwise_agreement: Option<[f64; 2]>,
}

/// One configuration's system-level result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Systems {
    /// The model every item has, when there is one (then the scores are win rates against it).
    pub baseline: Option<String>,
    /// `win_rate` (against the baseline) or `elo` (Bradley–Terry).
    pub score: &'static str,
    /// Ranked, best first.
    pub generators: Vec<Model>,
    pub separability: Option<f64>,
    pub reference: Option<Agreement>,
}

impl Systems {
    /// The pairs of models that the ranking (Bradley–Terry Elo, models against each other) and
    /// its view (each model's win rate, a tie half) put in opposite orders, in ranking order:
    /// a model that met stronger opponents can win less often and still be rated higher. None
    /// against a baseline, where the win rate is the ranking.
    pub fn reordered_by_win_rate(&self) -> Vec<[&str; 2]> {
        let g = &self.generators;
        let mut out = Vec::new();
        for (i, a) in g.iter().enumerate() {
            for b in &g[i + 1..] {
                if let (Some(ea), Some(eb)) = (a.elo, b.elo) {
                    if (ea - eb) * (a.win_rate - b.win_rate) < 0.0 {
                        out.push([a.name.as_str(), b.name.as_str()]);
                    }
                }
            }
        }
        out
    }
}

/// The best configuration by Spearman with the reference against each other one.
pub type SystemsComparison = super::paired::PairedTest;

/// Each item's P(response 2 is better) and its discrete credit for response 2 (`None`: not
/// rated): P from the configuration's probability where it has one, else 1 / ½ / 0 from its
/// verdict; the discrete credit rounds the probability (AlpacaEval's `discrete_win_rate`: ½
/// only at exactly ½), else it is the verdict's.
fn outcomes(config: &ConfigRecord) -> Vec<(Option<f64>, Option<f64>)> {
    config
        .outcomes
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let verdict = o.rating().map(|r| (r as f64 + 1.0) / 2.0);
            match config.probability.as_ref().and_then(|p| p.p[i]) {
                Some(p) => {
                    let rounded = if p > 0.5 {
                        1.0
                    } else if p < 0.5 {
                        0.0
                    } else {
                        0.5
                    };
                    (Some(p), Some(rounded))
                }
                None => (verdict, verdict),
            }
        })
        .collect()
}

/// The design: the baseline (a model in every item; between two such, the source's first
/// generator, AlpacaEval's baseline column) and the models in order of first appearance.
fn design(run: &RunRecord, g: &Generators) -> (Option<String>, Vec<String>) {
    let mut models: Vec<String> = Vec::new();
    for pair in &g.of_item {
        for m in pair {
            if !models.contains(m) {
                models.push(m.clone());
            }
        }
    }
    let everywhere: Vec<&String> = models
        .iter()
        .filter(|m| g.of_item.iter().all(|pair| pair.contains(m)))
        .collect();
    let baseline = match everywhere.as_slice() {
        [one] => Some((*one).clone()),
        [a, b] => {
            let first_in_source = |m: &str| {
                g.of_item
                    .iter()
                    .zip(run.items.iter())
                    .filter(|(pair, item)| {
                        let k = usize::from(item.order == crate::dataset::examples::Order::Swapped);
                        pair[k] == m
                    })
                    .count()
            };
            Some(if first_in_source(b) > first_in_source(a) {
                (*b).clone()
            } else {
                (*a).clone()
            })
        }
        _ => None,
    };
    (baseline, models)
}

/// Per model and prompt: the sums of P and verdict credit and their counts (against the
/// baseline), or the pair weights (models against each other).
struct Tallies {
    models: Vec<String>,
    /// `[model][prompt]`: (sum p, n p, sum verdict, n verdict).
    cells: Vec<Vec<[f64; 4]>>,
    /// Models against each other: `[prompt]` → (a, b, weight a beats b, weight b beats a).
    pairs: Vec<Vec<(usize, usize, f64, f64)>>,
}

fn tallies(
    g: &Generators,
    models: &[String],
    baseline: Option<&str>,
    config: &ConfigRecord,
) -> Tallies {
    let prompts = g.prompt.iter().map(|&p| p as usize + 1).max().unwrap_or(0);
    let index = |m: &str| models.iter().position(|x| x == m);
    let mut cells = vec![vec![[0.0; 4]; prompts]; models.len()];
    let mut pairs = vec![Vec::new(); prompts];
    for (i, (p2, v2)) in outcomes(config).into_iter().enumerate() {
        let [g1, g2] = &g.of_item[i];
        let prompt = g.prompt[i] as usize;
        if g1 == g2 {
            continue;
        }
        // Each side that is scored: its model and whether it is response 1 (then its
        // probability is 1 − P(response 2)).
        let sides: Vec<(&String, bool)> = match baseline {
            Some(b) if g1 == b => vec![(g2, false)],
            Some(b) if g2 == b => vec![(g1, true)],
            Some(_) => Vec::new(),
            None => vec![(g1, true), (g2, false)],
        };
        for (m, first) in sides {
            let Some(k) = index(m) else { continue };
            let mine = |x: f64| if first { 1.0 - x } else { x };
            let c = &mut cells[k][prompt];
            if let Some(p) = p2 {
                c[0] += mine(p);
                c[1] += 1.0;
            }
            if let Some(v) = v2 {
                c[2] += mine(v);
                c[3] += 1.0;
            }
        }
        if baseline.is_none() {
            if let (Some(p), Some(a), Some(b)) = (p2, index(g1), index(g2)) {
                pairs[prompt].push((a, b, 2.0 * (1.0 - p), 2.0 * p));
            }
        }
    }
    Tallies {
        models: models.to_vec(),
        cells,
        pairs,
    }
}

impl Tallies {
    /// Each model's win rate under prompt weights (NaN without items).
    fn win_rates(&self, w: &[u64]) -> Vec<f64> {
        self.cells
            .iter()
            .map(|per| {
                let (mut s, mut n) = (0.0, 0.0);
                for (c, &wp) in per.iter().zip(w) {
                    s += wp as f64 * c[0];
                    n += wp as f64 * c[1];
                }
                s / n
            })
            .collect()
    }

    /// Bradley–Terry strengths (base-10 log-odds, summing to 0) under prompt weights.
    fn strengths(&self, w: &[u64], start: Option<&[f64]>) -> Vec<f64> {
        let k = self.models.len();
        let mut wins = vec![vec![0.0; k]; k];
        for (per, &wp) in self.pairs.iter().zip(w) {
            for &(a, b, ab, ba) in per {
                wins[a][b] += wp as f64 * ab;
                wins[b][a] += wp as f64 * ba;
            }
        }
        bradley_terry(&wins, start)
    }

    /// The ranking scores: win rates against the baseline, else Elo.
    fn scores(&self, w: &[u64], baseline: bool, start: Option<&[f64]>) -> Vec<f64> {
        if baseline {
            self.win_rates(w)
        } else {
            self.strengths(w, start).iter().map(|s| elo(*s)).collect()
        }
    }
}

/// The figures of a ranking against the reference: Spearman, Kendall, Pearson and the share of
/// pairs ordered as the reference orders them.
fn against(scores: &[f64], reference: &[f64]) -> [f64; 4] {
    if scores.iter().any(|s| s.is_nan()) {
        return [f64::NAN; 4];
    }
    let (mut same, mut pairs) = (0.0, 0.0);
    for a in 0..scores.len() {
        for b in a + 1..scores.len() {
            let r = reference[a] - reference[b];
            if r == 0.0 || r.is_nan() {
                continue;
            }
            pairs += 1.0;
            if (scores[a] - scores[b]) * r > 0.0 {
                same += 1.0;
            }
        }
    }
    [
        spearman(scores, reference).statistic,
        kendall_tau_b(scores, reference).statistic,
        pearson(scores, reference).statistic,
        same / pairs,
    ]
}

/// The share of model pairs whose intervals do not overlap.
fn separability(ci: &[Option<[f64; 2]>]) -> Option<f64> {
    let (mut apart, mut pairs) = (0usize, 0usize);
    for a in 0..ci.len() {
        for b in a + 1..ci.len() {
            if let (Some([lo_a, hi_a]), Some([lo_b, hi_b])) = (ci[a], ci[b]) {
                pairs += 1;
                if hi_a < lo_b || hi_b < lo_a {
                    apart += 1;
                }
            }
        }
    }
    (pairs > 0).then(|| apart as f64 / pairs as f64)
}

/// Everything one configuration needs over the resamples: its scores per draw.
struct Drawn {
    scores: Vec<Vec<f64>>,
}

/// The prompt weights of every resample (shared by all configurations: paired).
fn draws(prompts: usize, resamples: usize, seed: u64) -> Vec<Vec<u64>> {
    let mut rng = stream(seed, Purpose::Systems, 0);
    let ones = vec![1u64; prompts];
    (0..resamples)
        .map(|_| multinomial(&ones, &mut rng))
        .collect()
}

/// The system level of every configuration (None without generators), and the best by
/// Spearman with the reference against the others.
pub fn systems(
    run: &RunRecord,
    settings: EvalSettings,
) -> Option<(Vec<Systems>, Vec<SystemsComparison>)> {
    let g = run
        .generators
        .as_ref()
        .filter(|_| !run.configs.is_empty())?;
    let reference = g.reference.as_ref();
    let (baseline, mut models) = design(run, g);
    if let Some(b) = &baseline {
        models.retain(|m| m != b);
    }
    let prompts = g.prompt.iter().map(|&p| p as usize + 1).max().unwrap_or(0);
    let weights = draws(prompts, settings.bootstrap, settings.seed);
    let level = settings.level();
    let bounds = |draws: &mut [f64]| interval_defined(draws, level);
    let ones = vec![1u64; prompts];
    let reference_of: Option<Vec<Option<f64>>> = reference.map(|r| match r {
        Reference::Table { scores, .. } => models
            .iter()
            .map(|m| scores.iter().find(|(n, _)| n == m).map(|(_, s)| *s))
            .collect(),
        // The gold labels as a configuration's verdicts: the ranking the humans give.
        Reference::Gold => {
            let gold = ConfigRecord {
                // An unlabelled item is in no human verdict.
                outcomes: run
                    .items
                    .iter()
                    .map(|i| i.gold.map_or(Outcome::NotAsked, Outcome::Rated))
                    .collect(),
                probability: None,
                ..run.configs[0].clone()
            };
            let t = tallies(g, &models, baseline.as_deref(), &gold);
            let scores = t.scores(&ones, baseline.is_some(), None);
            scores.into_iter().map(defined).collect()
        }
    });
    let held: Vec<usize> = reference_of.as_ref().map_or_else(Vec::new, |r| {
        (0..models.len()).filter(|&k| r[k].is_some()).collect()
    });
    let ref_values: Vec<f64> = held
        .iter()
        .filter_map(|&k| reference_of.as_ref().and_then(|r| r[k]))
        .collect();
    let mut results = Vec::new();
    let mut spearman_draws: Vec<Vec<f64>> = Vec::new();
    for config in &run.configs {
        let t = tallies(g, &models, baseline.as_deref(), config);
        let is_baseline = baseline.is_some();
        let point_strengths = (!is_baseline).then(|| t.strengths(&ones, None));
        let point = t.scores(&ones, is_baseline, point_strengths.as_deref());
        let drawn = Drawn {
            scores: weights
                .iter()
                .map(|w| t.scores(w, is_baseline, point_strengths.as_deref()))
                .collect(),
        };
        let ci: Vec<Option<[f64; 2]>> = (0..models.len())
            .map(|k| {
                let mut column: Vec<f64> = drawn.scores.iter().map(|s| s[k]).collect();
                bounds(&mut column)
            })
            .collect();
        let discrete: Vec<f64> = t
            .cells
            .iter()
            .map(|per| {
                let (s, n) = per
                    .iter()
                    .fold((0.0, 0.0), |(s, n), c| (s + c[2], n + c[3]));
                s / n
            })
            .collect();
        let wins = t.win_rates(&ones);
        let mut generators: Vec<Model> = (0..models.len())
            .map(|k| {
                let n = t.cells[k].iter().map(|c| c[1] as usize).sum();
                Model {
                    name: models[k].clone(),
                    win_rate: wins[k],
                    discrete_win_rate: discrete[k],
                    n,
                    elo: (!is_baseline && n > 0).then_some(point[k]),
                    ci: ci[k].filter(|_| n > 0),
                }
            })
            .collect();
        let agreement = reference.map(|r| {
            let scores: Vec<f64> = held.iter().map(|&k| point[k]).collect();
            let figures = against(&scores, &ref_values);
            let mut per_draw: Vec<[f64; 4]> = drawn
                .scores
                .iter()
                .map(|s| against(&held.iter().map(|&k| s[k]).collect::<Vec<_>>(), &ref_values))
                .collect();
            spearman_draws.push(per_draw.iter().map(|f| f[0]).collect());
            let mut column = |j: usize| {
                let mut c: Vec<f64> = per_draw.iter_mut().map(|f| f[j]).collect();
                bounds(&mut c)
            };
            Agreement {
                source: r.source(),
                n: held.len(),
                spearman: defined(figures[0]),
                kendall: defined(figures[1]),
                pearson: defined(figures[2]),
                pairwise_agreement: defined(figures[3]),
                ci: AgreementIntervals {
                    spearman: column(0),
                    kendall: column(1),
                    pearson: column(2),
                    pairwise_agreement: column(3),
                },
                missing: (0..models.len())
                    .filter(|k| !held.contains(k))
                    .map(|k| models[k].clone())
                    .collect(),
            }
        });
        let order_key = |m: &Model| m.elo.unwrap_or(m.win_rate);
        generators.sort_by(|a, b| {
            order_key(b)
                .total_cmp(&order_key(a))
                .then(a.name.cmp(&b.name))
        });
        results.push(Systems {
            baseline: baseline.clone(),
            score: if is_baseline { "win_rate" } else { "elo" },
            separability: separability(&ci),
            generators,
            reference: agreement,
        });
    }
    let comparisons = compare(run, &results, &spearman_draws, settings.alpha);
    Some((results, comparisons))
}

/// The best configuration by Spearman against each other one, on the same resamples.
fn compare(
    run: &RunRecord,
    results: &[Systems],
    draws: &[Vec<f64>],
    alpha: f64,
) -> Vec<SystemsComparison> {
    if draws.len() != results.len() {
        return Vec::new();
    }
    let rho: Vec<Option<f64>> = results
        .iter()
        .map(|r| r.reference.as_ref().and_then(|a| a.spearman))
        .collect();
    let Some(best) = super::ranking::best_of((0..results.len()).filter_map(|i| Some((i, rho[i]?))))
    else {
        return Vec::new();
    };
    let tests: Vec<(String, super::paired::MetricTest)> = (0..results.len())
        .filter(|&i| i != best && rho[i].is_some())
        .map(|i| {
            let d: Vec<f64> = draws[best]
                .iter()
                .zip(&draws[i])
                .map(|(a, b)| a - b)
                .collect();
            let diff = rho[best].zip(rho[i]).map_or(f64::NAN, |(a, b)| a - b);
            (
                run.configs[i].name.clone(),
                super::paired::MetricTest::from_draws(diff, &d),
            )
        })
        .collect();
    super::paired::against_best(&run.configs[best].name, "spearman", tests, alpha)
}

/// The system level: each configuration's ranking of the generators, and the best by Spearman
/// against the others (kept as `Vec<SystemsComparison>`).
#[derive(Debug)]
pub struct SystemsAnalytic;

impl super::Analytic for SystemsAnalytic {
    fn run(&self, cx: &super::Context, _configs: &[super::ConfigResult]) -> super::Found {
        systems(cx.run, cx.settings.clone()).map_or_else(Default::default, |(rows, comparisons)| {
            super::Found {
                run: super::analytic::kept(Some(comparisons)),
                configs: rows
                    .into_iter()
                    .map(|r| super::analytic::kept(Some(r)))
                    .collect(),
            }
        })
    }
}
