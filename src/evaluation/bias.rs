//! Bias diagnostics, judge and gold side by side: does the judge prefer the longer response,
//! the one with a list, headers or bold text, or the one shown first, more often than the gold
//! labels do? And a length-adjusted preference model (AlpacaEval's length-controlled GLM, here
//! for pairwise verdicts).
//!
//! A preference is P(picks the response with the feature | exactly one has it), over items
//! where the judge picked a response (ties and missing verdicts left out) and, for gold, where
//! gold is not a tie. The excess (judge − gold) is the bias. CIs come from a percentile
//! bootstrap over items, drawn as multinomial resamples of the 3 × 3 (judge × gold) cells.

use super::record::{share, Outcome, RunRecord};
pub use super::shape::Shape;
use crate::metrics::random::{stream, Purpose};
use crate::metrics::{redraws, Resampling};

/// Length differences at most this many characters do not count as longer.
pub const LENGTH_MARGIN: u32 = 30;

/// A subset is flagged for length only with at least this many items (fewer flag noise).
pub const MIN_FLAG_ITEMS: u64 = 10;

/// A fitted coefficient beyond this (or a standard error beyond 100) means the data separate
/// the outcome: the maximum-likelihood estimate does not exist, and none is reported.
const SEPARATED: f64 = 30.0;

/// A preference of the judge and of gold for one feature, with the excess.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Preference {
    /// Items where exactly one response has the feature.
    pub items: u64,
    pub judge: f64,
    /// Items where the judge picked a response.
    pub judge_n: u64,
    pub gold: f64,
    /// Items where gold is not a tie.
    pub gold_n: u64,
    /// judge − gold.
    pub excess: f64,
    /// Intervals (1 − α) of judge, gold and excess.
    pub ci: Option<[(f64, f64); 3]>,
}

impl Preference {
    fn of(cells: &[u64; 9], r: Resampling, index: u64) -> Self {
        let (judge, gold, judge_n, gold_n) = rates(cells);
        let ci = (r.resamples > 0).then(|| {
            let mut rng = stream(r.seed, Purpose::Bias, index);
            let mut draws = redraws(cells, r.resamples, 3, &mut rng, |c| {
                let mut r = [0u64; 9];
                r.copy_from_slice(c);
                let (j, g, _, _) = rates(&r);
                vec![j, g, j - g]
            });
            std::array::from_fn(|i| r.interval(&mut draws[i]))
        });
        Self {
            items: cells.iter().sum(),
            judge,
            judge_n,
            gold,
            gold_n,
            excess: judge - gold,
            ci,
        }
    }
}

/// (judge rate, gold rate, judge n, gold n) from the cells judge × gold, each 0 = picks the
/// target response, 1 = picks the other, 2 = no pick (tie or no verdict).
fn rates(c: &[u64; 9]) -> (f64, f64, u64, u64) {
    let judge_for = c[0] + c[1] + c[2];
    let judge_n = judge_for + c[3] + c[4] + c[5];
    let gold_for = c[0] + c[3] + c[6];
    let gold_n = gold_for + c[1] + c[4] + c[7];
    (
        share(judge_for, judge_n),
        share(gold_for, gold_n),
        judge_n,
        gold_n,
    )
}

/// The side (1 or 2) a label picks, if any.
fn side(label: i64) -> Option<u8> {
    match label {
        -1 => Some(1),
        1 => Some(2),
        _ => None,
    }
}

/// The cell of an item whose target response is `target`.
fn cell(target: u8, judge: Option<i64>, gold: i64) -> usize {
    let of = |pick: Option<u8>| match pick {
        Some(s) if s == target => 0,
        Some(_) => 1,
        None => 2,
    };
    of(judge.and_then(side)) * 3 + of(side(gold))
}

/// Everything this module reports for one scope.
#[derive(Debug, Clone, PartialEq)]
pub struct Bias {
    /// P(prefers the longer | lengths differ by more than 30 characters).
    pub length: Preference,
    /// P(prefers the one with a list | exactly one has a list); headers and bold alike.
    pub list: Preference,
    pub header: Preference,
    pub bold: Preference,
    /// P(prefers response 1), overall.
    pub first_position: Preference,
    /// Accuracy of the `longer` baseline (the longer response, a tie when equal) on the
    /// scope's items.
    pub longer_accuracy: f64,
    /// The scope's items.
    pub items: u64,
}

impl Bias {
    /// Length alone predicts gold here: the `longer` baseline is above 80% or below 20%.
    pub fn length_predicts_gold(&self) -> bool {
        self.items >= MIN_FLAG_ITEMS && (self.longer_accuracy > 0.8 || self.longer_accuracy < 0.2)
    }

    /// The features, named as in JSON and CSV.
    pub fn features(&self) -> [(&'static str, &Preference); 5] {
        [
            ("length", &self.length),
            ("list", &self.list),
            ("header", &self.header),
            ("bold", &self.bold),
            ("first_position", &self.first_position),
        ]
    }
}

fn rating(o: &Outcome) -> Option<i64> {
    match o {
        Outcome::Rated(v) => Some(*v),
        _ => None,
    }
}

/// The diagnostics of one configuration over the items `idx` (None without the responses'
/// shapes).
pub fn bias(run: &RunRecord, outcomes: &[Outcome], idx: &[usize], r: Resampling) -> Option<Bias> {
    if run.shapes.len() != run.items.len() {
        return None;
    }
    let mut cells = [[0u64; 9]; 5];
    let (mut longer_right, mut n) = (0u64, 0u64);
    for &i in idx {
        let [a, b] = run.shapes[i];
        let Some(gold) = run.items.gold[i] else {
            continue;
        };
        let judge = rating(&outcomes[i]);
        let longer = (i64::from(b.chars) - i64::from(a.chars)).signum();
        n += 1;
        longer_right += u64::from(longer == gold);
        if a.chars.abs_diff(b.chars) > LENGTH_MARGIN {
            let target = if b.chars > a.chars { 2 } else { 1 };
            cells[0][cell(target, judge, gold)] += 1;
        }
        for (k, (x, y)) in [(a.list, b.list), (a.header, b.header), (a.bold, b.bold)]
            .into_iter()
            .enumerate()
        {
            if x != y {
                cells[k + 1][cell(if y { 2 } else { 1 }, judge, gold)] += 1;
            }
        }
        cells[4][cell(1, judge, gold)] += 1;
    }
    let p = |k: usize| Preference::of(&cells[k], r, k as u64);
    Some(Bias {
        length: p(0),
        list: p(1),
        header: p(2),
        bold: p(3),
        first_position: p(4),
        longer_accuracy: if n == 0 {
            f64::NAN
        } else {
            longer_right as f64 / n as f64
        },
        items: n,
    })
}

/// The length-adjusted preference model: logit P(judge picks response 2) = b0 + b_gold · gold
/// \+ b_length · tanh(Δ / sd(Δ)), with Δ = length 2 − length 1 (characters) and sd over the
/// items fitted (those the judge picked a response on). Fitted by maximum likelihood (Newton,
/// no penalty); standard errors from the observed information.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LengthModel {
    pub n: usize,
    /// Intercept, gold, length.
    pub coef: [f64; 3],
    pub se: [f64; 3],
    /// The level of [`LengthModel::length_ci`], 1 − α (0.95 unless the run says otherwise).
    pub level: f64,
}

impl LengthModel {
    /// The Wald interval of the length coefficient at `level`.
    pub fn length_ci(&self) -> (f64, f64) {
        let z = crate::metrics::paired::normal_quantile(1.0 - (1.0 - self.level) / 2.0);
        (self.coef[2] - z * self.se[2], self.coef[2] + z * self.se[2])
    }
}

/// Fits [`LengthModel`] on (gold, length difference, judge picks response 2) rows: None with
/// fewer than 10 rows, one answer only, no spread of lengths, or separated data.
pub fn length_model(rows: &[(i64, f64, bool)]) -> Option<LengthModel> {
    let n = rows.len();
    let both = rows.iter().any(|r| r.2) && rows.iter().any(|r| !r.2);
    if n < 10 || !both {
        return None;
    }
    let sd = {
        let mean = rows.iter().map(|r| r.1).sum::<f64>() / n as f64;
        (rows.iter().map(|r| (r.1 - mean).powi(2)).sum::<f64>() / n as f64).sqrt()
    };
    if sd == 0.0 || !sd.is_finite() {
        return None;
    }
    let x: Vec<[f64; 3]> = rows
        .iter()
        .map(|r| [1.0, r.0 as f64, (r.1 / sd).tanh()])
        .collect();
    let y: Vec<bool> = rows.iter().map(|r| r.2).collect();
    let coef = newton(&x, &y)?;
    let cov = invert3(&derivatives(&x, &y, &coef).1)?;
    let se = [cov[0][0].sqrt(), cov[1][1].sqrt(), cov[2][2].sqrt()];
    let separated =
        coef.iter().any(|c| c.abs() > SEPARATED) || se.iter().any(|s| !s.is_finite() || *s > 100.0);
    if separated {
        return None;
    }
    Some(LengthModel {
        n,
        coef,
        se,
        level: 0.95,
    })
}

/// The log-likelihood of a logistic model with coefficients `c` on rows `x`, outcomes `y`.
fn log_likelihood(x: &[[f64; 3]], y: &[bool], c: &[f64; 3]) -> f64 {
    x.iter()
        .zip(y)
        .map(|(v, &picked)| {
            let eta = c[0] * v[0] + c[1] * v[1] + c[2] * v[2];
            if picked {
                -(-eta).exp().ln_1p()
            } else {
                -eta.exp().ln_1p()
            }
        })
        .sum()
}

/// The log-likelihood's gradient X'(y - p) and the observed information X'WX at `c`,
/// W = p(1 - p).
fn derivatives(x: &[[f64; 3]], y: &[bool], c: &[f64; 3]) -> ([f64; 3], [[f64; 3]; 3]) {
    let mut grad = [0.0f64; 3];
    let mut info = [[0.0f64; 3]; 3];
    for (v, &picked) in x.iter().zip(y) {
        let p = 1.0 / (1.0 + (-(c[0] * v[0] + c[1] * v[1] + c[2] * v[2])).exp());
        let (r, w) = (f64::from(u8::from(picked)) - p, p * (1.0 - p));
        for a in 0..3 {
            grad[a] += r * v[a];
            for b in 0..3 {
                info[a][b] += w * v[a] * v[b];
            }
        }
    }
    (grad, info)
}

/// The maximum-likelihood coefficients by Newton-Raphson (as statsmodels' `Logit.fit`), each
/// step halved until the likelihood does not fall; None when a coefficient runs past
/// `SEPARATED` (separated data) or 100 steps do not converge. Never loops for ever: a real
/// judge that picked response 2 on 2 items of 40 made linfa's L-BFGS line search spin.
fn newton(x: &[[f64; 3]], y: &[bool]) -> Option<[f64; 3]> {
    let mut c = [0.0f64; 3];
    let mut ll = log_likelihood(x, y, &c);
    for _ in 0..100 {
        let (grad, info) = derivatives(x, y, &c);
        let inv = invert3(&info)?;
        let step: [f64; 3] = std::array::from_fn(|a| (0..3).map(|b| inv[a][b] * grad[b]).sum());
        let mut scale = 1.0;
        let (next, next_ll) = loop {
            let next: [f64; 3] = std::array::from_fn(|a| c[a] + scale * step[a]);
            let next_ll = log_likelihood(x, y, &next);
            if next_ll >= ll - 1e-12 || scale < 1e-9 {
                break (next, next_ll);
            }
            scale /= 2.0;
        };
        let moved = (0..3).map(|a| (next[a] - c[a]).abs()).fold(0.0, f64::max);
        c = next;
        ll = next_ll;
        if c.iter().any(|v| !v.is_finite() || v.abs() > SEPARATED) {
            return None;
        }
        if moved < 1e-12 {
            return Some(c);
        }
    }
    None
}

/// The inverse of a 3 × 3 matrix (None when singular).
fn invert3(m: &[[f64; 3]; 3]) -> Option<[[f64; 3]; 3]> {
    let c = |a: usize, b: usize, x: usize, y: usize| m[a][x] * m[b][y] - m[a][y] * m[b][x];
    let cof = [
        [c(1, 2, 1, 2), -c(1, 2, 0, 2), c(1, 2, 0, 1)],
        [-c(0, 2, 1, 2), c(0, 2, 0, 2), -c(0, 2, 0, 1)],
        [c(0, 1, 1, 2), -c(0, 1, 0, 2), c(0, 1, 0, 1)],
    ];
    let det = m[0][0] * cof[0][0] + m[0][1] * cof[0][1] + m[0][2] * cof[0][2];
    if det.abs() < 1e-300 || !det.is_finite() {
        return None;
    }
    // The inverse is the transposed cofactor matrix over the determinant.
    Some(std::array::from_fn(|i| {
        std::array::from_fn(|j| cof[j][i] / det)
    }))
}

/// The model's rows for one configuration: items the judge picked a response on.
pub fn model_rows(run: &RunRecord, outcomes: &[Outcome]) -> Vec<(i64, f64, bool)> {
    if run.shapes.len() != run.items.len() {
        return Vec::new();
    }
    run.items
        .iter()
        .zip(&run.shapes)
        .zip(outcomes)
        .filter_map(|((item, [a, b]), o)| {
            let pick = rating(o).and_then(side)?;
            Some((
                item.gold?,
                f64::from(b.chars) - f64::from(a.chars),
                pick == 2,
            ))
        })
        .collect()
}

/// The bias analytic: each scope's preferences beside gold's, and each configuration's
/// length-adjusted model.
#[derive(Debug)]
pub struct BiasAnalytic;

impl super::Analytic for BiasAnalytic {
    fn scope(
        &self,
        cx: &super::Context,
        config: &super::ConfigRecord,
        indices: &[usize],
    ) -> Option<Box<dyn super::analytic::Kept>> {
        let s = &cx.settings;
        super::analytic::kept(bias(cx.run, &config.outcomes, indices, s.resampling()))
    }
    fn run(&self, cx: &super::Context, _configs: &[super::ConfigResult]) -> super::Found {
        super::Found::per_config(cx.run.configs.iter().map(|c| {
            super::analytic::kept(length_model(&model_rows(cx.run, &c.outcomes)).map(|m| {
                LengthModel {
                    level: cx.settings.level(),
                    ..m
                }
            }))
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let s = Shape::of("# Title\n\nSome **bold** text:\n- one\n- two");
        assert!(s.list && s.header && s.bold);
        let plain =
            Shape::of("A #hashtag, 3.5 apples, a*b*c and -1 degrees; __init__ is not bold? ");
        assert!(!plain.list && !plain.header, "{plain:?}");
        assert!(Shape::of("1. first\n2) second").list);
        assert_eq!(Shape::of("héllo").chars, 5);
    }

    #[test]
    fn rates_and_cells() {
        // Target side 2: the judge picks 2 (cell judge 0), gold picks 1 (gold 1).
        assert_eq!(cell(2, Some(1), -1), 1);
        assert_eq!(cell(2, Some(0), 0), 8);
        assert_eq!(cell(1, None, -1), 6);
        let mut c = [0u64; 9];
        c[0] = 6; // both pick the target
        c[1] = 2; // judge target, gold other
        c[4] = 2; // both other
        c[8] = 5; // neither
        let (j, g, jn, gn) = rates(&c);
        assert_eq!((jn, gn), (10, 10));
        assert!((j - 0.8).abs() < 1e-12 && (g - 0.6).abs() < 1e-12);
        let p = Preference::of(&c, Resampling::at95(500, 1), 0);
        assert!((p.excess - 0.2).abs() < 1e-12);
        let ci = p.ci.expect("ci");
        assert!(ci[2].0 <= 0.2 && 0.2 <= ci[2].1, "{ci:?}");
    }

    #[test]
    fn inverse() {
        let m = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]];
        let inv = invert3(&m).expect("invertible");
        for i in 0..3 {
            for j in 0..3 {
                let v: f64 = (0..3).map(|k| m[i][k] * inv[k][j]).sum();
                assert!((v - f64::from(u8::from(i == j))).abs() < 1e-12);
            }
        }
        assert!(invert3(&[[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 0.0, 1.0]]).is_none());
    }
}
