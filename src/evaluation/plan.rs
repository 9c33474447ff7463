//! Sample size: what `raterlab plan` finds (`PlanResult`), and the items needed for a difference
//! in quadratic kappa, by simulation with the simulated judge: there is no closed form as for
//! accuracy (McNemar, `metrics::power`).

use crate::judge::sim::Sim;
use crate::metrics::power::z;
use crate::metrics::random::{stream, Purpose};
use crate::metrics::{kappa, Contingency, Labels, Weights};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// What the simulation found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KappaNeed {
    pub items_needed: f64,
    /// The mean kappa difference (second − first judge) at the pilot size.
    pub mean_difference: f64,
    /// The share of simulated runs at `items_needed` items whose difference clears the
    /// two-sided critical value.
    pub power_reached: f64,
}

/// Items needed to detect the quadratic-kappa difference between two simulated judges (no
/// position bias, no malformed answers) on the same items, gold -1 or 1 with equal chance:
/// `runs` datasets of a 1,000-item pilot measure the spread of the difference, which shrinks
/// as 1/√n, so n = pilot·((z₁₋α/₂ + z₁₋β)·sd / |mean|)²; a second simulation at n reports the
/// power reached.
pub fn kappa_items_needed(
    first: Sim,
    second: Sim,
    alpha: f64,
    power: f64,
    runs: usize,
    seed: u64,
) -> Option<KappaNeed> {
    if runs < 10 {
        return None;
    }
    let mut rng = stream(seed, Purpose::Plan, 0);
    let simulate = |n: usize, rng: &mut ChaCha8Rng| -> Vec<f64> {
        let labels = Labels::pairwise();
        (0..runs)
            .map(|_| {
                let (mut ta, mut tb) = (vec![0u64; 9], vec![0u64; 9]);
                for _ in 0..n {
                    let gold: i64 = if rng.random_bool(0.5) { 1 } else { -1 };
                    let cell = |r: i64| ((gold + 1) * 3 + r + 1) as usize;
                    ta[cell(first.verdict(gold, true, rng))] += 1;
                    tb[cell(second.verdict(gold, true, rng))] += 1;
                }
                let k = |t: Vec<u64>| {
                    kappa(
                        &Contingency::from_counts(labels.clone(), t),
                        Weights::Quadratic,
                    )
                };
                k(tb) - k(ta)
            })
            .filter(|d| d.is_finite())
            .collect()
    };
    let spread = |d: &[f64]| -> (f64, f64) {
        let m = d.iter().sum::<f64>() / d.len() as f64;
        let s = (d.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (d.len() - 1) as f64).sqrt();
        (m, s)
    };
    let pilot = 1000;
    let (mean, sd) = spread(&simulate(pilot, &mut rng));
    if mean == 0.0 || !sd.is_finite() || sd == 0.0 {
        return None;
    }
    let (za, zb) = (z(1.0 - alpha / 2.0), z(power));
    let n = (pilot as f64 * ((za + zb) * sd / mean.abs()).powi(2)).ceil();
    let at_n = simulate(n.max(2.0) as usize, &mut rng);
    let (_, s) = spread(&at_n);
    let reached = at_n
        .iter()
        .filter(|d| d.signum() == mean.signum() && d.abs() > za * s)
        .count() as f64
        / at_n.len() as f64;
    Some(KappaNeed {
        items_needed: n,
        mean_difference: mean,
        power_reached: reached,
    })
}

/// One answer: for a pair of judges (or the assumed one), the items needed.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Need {
    /// "assumed", or the compared pair "A vs B".
    pub pair: String,
    pub discordance: f64,
    pub items_needed: f64,
    /// With a run: its items, and the smallest difference they detect.
    pub items_now: Option<u64>,
    pub min_detectable_now: Option<f64>,
}

/// How `plan` finds the items an accuracy difference needs.
pub const ACCURACY_METHOD: &str = "McNemar, normal approximation (Connor 1987)";

/// How `plan` finds the items a kappa difference needs.
pub const KAPPA_METHOD: &str = "simulation with two simulated judges (sim:accuracy=A,tie_rate=T, no position bias); the spread of the kappa difference at 1,000 items, scaled by 1/sqrt(n)";

/// What `plan` found (`plan --json` is its serialization, the metric its tag).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "metric")]
pub enum PlanResult {
    #[serde(rename = "accuracy")]
    Accuracy {
        diff: f64,
        alpha: f64,
        power: f64,
        /// `ACCURACY_METHOD`.
        method: &'static str,
        #[serde(rename = "pairs")]
        needs: Vec<Need>,
    },
    #[serde(rename = "kappa_quadratic")]
    Kappa {
        #[serde(rename = "diff_in_accuracy")]
        diff: f64,
        accuracy: f64,
        tie_rate: f64,
        alpha: f64,
        power: f64,
        runs: usize,
        /// `KAPPA_METHOD`.
        method: &'static str,
        items_needed: f64,
        #[serde(rename = "kappa_difference")]
        mean_difference: f64,
        #[serde(rename = "power_reached_in_simulation")]
        power_reached: f64,
    },
    /// `--labels`/`--width`: the human labels to collect for `--estimate`.
    #[serde(rename = "labels")]
    Labels(crate::evaluation::estimate::LabelsPlan),
    /// `--active`: each item's chance of going to a human, and the seeded draw.
    #[serde(rename = "active")]
    Active {
        active: crate::evaluation::active::ActivePlan,
    },
    /// `--alt-test`: the alt-test's winning rate by items, by the authors' simulation.
    #[serde(rename = "alt_test")]
    AltTest {
        alt_test: crate::evaluation::alt_test_plan::AltTestPlan,
    },
}
