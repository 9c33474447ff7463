//! Prediction-powered ranking (Chatzi et al., NeurIPS 2024), as their code computes it
//! (Networks-Learning/prediction-powered-ranking, `src/estimate.py` and `src/ranksets.py`):
//! each model's win rate over its battles (a tie counts for neither side), its covariance, the
//! λ that combines few human and many judge battles, and each model's rank-set at 1 − α.
//! Matched to their code to 1e-9 (tests/fixtures/generate_ppi_fixtures.py).

use statrs::distribution::{ChiSquared, ContinuousCDF};

/// One battle between models `a` and `b` (indices): whether each side won.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Battle {
    pub a: usize,
    pub b: usize,
    pub a_won: bool,
    pub b_won: bool,
}

impl Battle {
    /// From a label: -1 (a better), 1 (b better), 0 (a tie: neither won).
    pub fn of_label(a: usize, b: usize, label: i64) -> Self {
        Self {
            a,
            b,
            a_won: label < 0,
            b_won: label > 0,
        }
    }

    fn wins(&self) -> (f64, f64) {
        (
            f64::from(u8::from(self.a_won)),
            f64::from(u8::from(self.b_won)),
        )
    }
}

/// Win rates and their covariance (k × k, row-major).
#[derive(Debug, Clone, PartialEq)]
pub struct Rates {
    pub theta: Vec<f64>,
    pub sigma: Vec<Vec<f64>>,
}

impl Rates {
    /// Each model's standard error, √Σ_ii.
    pub fn se(&self) -> Vec<f64> {
        (0..self.theta.len())
            .map(|i| self.sigma[i][i].sqrt())
            .collect()
    }
}

/// Each model's mean of its side's value over its battles (NaN for a model in none).
fn per_model<'a>(k: usize, battles: impl Iterator<Item = (&'a Battle, (f64, f64))>) -> Vec<f64> {
    let mut sum = vec![0.0; k];
    let mut count = vec![0.0; k];
    for (b, (va, vb)) in battles {
        sum[b.a] += va;
        count[b.a] += 1.0;
        sum[b.b] += vb;
        count[b.b] += 1.0;
    }
    sum.iter().zip(&count).map(|(s, c)| s / c).collect()
}

/// Each model's win rate over these battles.
fn win_rates(k: usize, battles: &[Battle]) -> Vec<f64> {
    per_model(k, battles.iter().map(|b| (b, b.wins())))
}

/// What a covariance is divided by: the authors' code divides every entry by the square of
/// all the battles (n²); the covariance of each model's mean over its own battles divides
/// entry (i, j) by n_i·n_j, the two models' battle counts. For a model in a share s of the
/// battles the authors' standard error is s times its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Per {
    AllBattles,
    ModelBattles,
}

/// Σ_t A[i,t]·A[j,t] over `battles`, where A[i,t] is battle t's residual on model i's side
/// (`residual` gives a's and b's) and 0 when i is not in it, divided as `per` says.
fn outer<'a>(
    k: usize,
    battles: impl Iterator<Item = (&'a Battle, (f64, f64))>,
    per: Per,
) -> Vec<Vec<f64>> {
    let mut m = vec![vec![0.0; k]; k];
    let mut c = vec![0.0; k];
    let mut n = 0.0;
    for (t, (la, lb)) in battles {
        m[t.a][t.a] += la * la;
        m[t.b][t.b] += lb * lb;
        m[t.a][t.b] += la * lb;
        m[t.b][t.a] += lb * la;
        c[t.a] += 1.0;
        c[t.b] += 1.0;
        n += 1.0;
    }
    for (i, row) in m.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v /= match per {
                Per::AllBattles => n * n,
                Per::ModelBattles => c[i] * c[j],
            };
        }
    }
    m
}

/// `sample_avg`: each model's win rate over these battles and its covariance, A·Aᵀ/n² as the
/// authors' code has it (`per`: or over each model's own battles).
pub fn sample_avg(k: usize, battles: &[Battle], per: Per) -> Rates {
    let a = win_rates(k, battles);
    let residuals = battles.iter().map(|t| {
        let (wa, wb) = t.wins();
        (t, (wa - a[t.a], wb - a[t.b]))
    });
    let sigma = outer(k, residuals, per);
    Rates { theta: a, sigma }
}

/// The labelled battles as the humans and as the judge saw them (the same battles, in the
/// same order), and the unlabelled ones as the judge saw them.
#[derive(Debug, Clone, Copy)]
pub struct Sets<'a> {
    pub humans: &'a [Battle],
    pub judge: &'a [Battle],
    pub unlabelled: &'a [Battle],
}

/// `lhat_opt`: tr(cov(humans, judge) on the labelled) / ((1 + n/N)·tr(N·Σ_judge on the
/// unlabelled)), clipped to [0, 1].
pub fn lambda(k: usize, s: Sets<'_>) -> f64 {
    let (n, big_n) = (s.humans.len() as f64, s.unlabelled.len() as f64);
    let cov_big = sample_avg(k, s.unlabelled, Per::AllBattles).sigma;
    let a1 = win_rates(k, s.judge);
    let a2 = win_rates(k, s.humans);
    // Human residuals (rows) against judge residuals (columns), battle by battle.
    let mut trace = 0.0;
    for (h, j) in s.humans.iter().zip(s.judge) {
        let (ha, hb) = h.wins();
        let (ja, jb) = j.wins();
        trace += (ha - a2[h.a]) * (ja - a1[j.a]) + (hb - a2[h.b]) * (jb - a1[j.b]);
    }
    let trace_n = trace / n;
    let trace_big: f64 = (0..k).map(|i| cov_big[i][i] * big_n).sum();
    (trace_n / ((1.0 + n / big_n) * trace_big)).clamp(0.0, 1.0)
}

/// `estimate`: θ = λ·(the judge's win rates on the unlabelled) − (the mean of λ·judge − human
/// on the labelled), Σ = λ²·A·Aᵀ/N² + B·Bᵀ/n² as the authors' code has it (`per`: or each
/// term over each model's own battles).
pub fn estimate(k: usize, s: Sets<'_>, lambda: f64, per: Per) -> Rates {
    let a = win_rates(k, s.unlabelled);
    // Each labelled battle's rectifier λ·judge − human, on each side.
    let rectified: Vec<(f64, f64)> = s
        .humans
        .iter()
        .zip(s.judge)
        .map(|(h, j)| {
            let (ha, hb) = h.wins();
            let (ja, jb) = j.wins();
            (lambda * ja - ha, lambda * jb - hb)
        })
        .collect();
    let b = per_model(k, s.humans.iter().zip(rectified.iter().copied()));
    let big = outer(
        k,
        s.unlabelled.iter().map(|t| {
            let (wa, wb) = t.wins();
            (t, (wa - a[t.a], wb - a[t.b]))
        }),
        per,
    );
    let small = outer(
        k,
        s.humans
            .iter()
            .zip(&rectified)
            .map(|(t, (ra, rb))| (t, (ra - b[t.a], rb - b[t.b]))),
        per,
    );
    let theta: Vec<f64> = (0..k).map(|i| lambda * a[i] - b[i]).collect();
    let sigma = (0..k)
        .map(|i| {
            (0..k)
                .map(|j| lambda * lambda * big[i][j] + small[i][j])
                .collect()
        })
        .collect();
    Rates { theta, sigma }
}

/// `find_ranksets`: model m's rank-set [lower, upper] at 1 − α (rank 1: the highest win
/// rate): its lower rank counts the models it is shown below, its upper one those it is shown
/// above, each pair by |θ_i − θ_j|/√2 against √((Σ_ii + Σ_jj − 2Σ_ij)·χ²_k(1 − α)/2).
pub fn rank_sets(r: &Rates, alpha: f64) -> Vec<[usize; 2]> {
    let k = r.theta.len();
    let chi = ChiSquared::new(k as f64).map_or(f64::NAN, |c| c.inverse_cdf(1.0 - alpha));
    (0..k)
        .map(|m1| {
            let (mut lo, mut hi) = (1, k);
            for m2 in (0..k).filter(|&m2| m2 != m1) {
                let (t1, t2) = (r.theta[m1], r.theta[m2]);
                let v = r.sigma[m1][m1] + r.sigma[m2][m2] - 2.0 * r.sigma[m1][m2];
                let d = (t1 - t2).abs() / 2f64.sqrt() - (v * (chi / 2.0)).sqrt();
                if d > 0.0 && t1 < t2 {
                    lo += 1;
                } else if d > 0.0 && t1 > t2 {
                    hi -= 1;
                }
            }
            [lo, hi]
        })
        .collect()
}
