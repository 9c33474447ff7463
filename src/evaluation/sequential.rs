//! Two judges compared as the items arrive, with an interval valid at every item at once
//! (`metrics::confseq`): for each item t, c_J = 1 when judge J's label is the gold one, and
//! x_t = (c_A − c_B + 1)/2, whose mean is ½ + (accuracy A − accuracy B)/2. The comparison is
//! decided at the first t whose interval excludes ½, and a run may look after every item
//! without breaking the interval's 1 − α (a fixed-n test looked at as often would not hold).

use crate::metrics::confseq::{twosided, TRUNCATION};

/// The interval at one t.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Bound {
    pub t: usize,
    pub lower: f64,
    pub upper: f64,
}

/// A sequential comparison of judge A against judge B on the same items, in item order.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Sequential {
    /// Items compared: both judges read, with a gold label.
    pub n: usize,
    pub alpha: f64,
    /// The mean of x over the n items (½: equal accuracy).
    pub mean: f64,
    /// The first t whose interval excludes ½ (None: never), and its bounds there.
    pub stopped_at: Option<usize>,
    pub lower: Option<f64>,
    pub upper: Option<f64>,
    /// The judge the decision favours: "a" when the interval lies above ½ (A agrees with the
    /// gold more often), "b" below it; None while undecided.
    pub better: Option<&'static str>,
    /// The interval at t = 100, 1,000 and n (those the items reach).
    pub at: Vec<Bound>,
    /// Every t's interval (for the figure; not serialized).
    #[serde(skip)]
    pub curve: Vec<Bound>,
}

/// Judge A's and judge B's labels against the gold, in item order: the sequence at 1 − α.
pub fn sequential(gold: &[i64], a: &[i64], b: &[i64], alpha: f64) -> Sequential {
    let x: Vec<f64> = gold
        .iter()
        .zip(a.iter().zip(b))
        .map(|(g, (a, b))| (f64::from(u8::from(a == g)) - f64::from(u8::from(b == g)) + 1.0) / 2.0)
        .collect();
    let (lower, upper) = twosided(&x, alpha, TRUNCATION);
    let curve: Vec<Bound> = (0..x.len())
        .map(|k| Bound {
            t: k + 1,
            lower: lower[k],
            upper: upper[k],
        })
        .collect();
    let stop = curve
        .iter()
        .find(|b| b.lower > 0.5 || b.upper < 0.5)
        .copied();
    let n = x.len();
    let mut times = vec![100, 1000, n];
    times.retain(|&t| t >= 1 && t <= n);
    times.dedup();
    Sequential {
        n,
        alpha,
        mean: if n == 0 {
            f64::NAN
        } else {
            x.iter().sum::<f64>() / n as f64
        },
        stopped_at: stop.map(|b| b.t),
        lower: stop.map(|b| b.lower),
        upper: stop.map(|b| b.upper),
        better: stop.map(|b| if b.lower > 0.5 { "a" } else { "b" }),
        at: times.iter().map(|&t| curve[t - 1]).collect(),
        curve,
    }
}

#[cfg(test)]
#[path = "sequential_sim.rs"]
mod simulation;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clearly_better_judge_is_decided_and_equal_judges_are_not() {
        let gold: Vec<i64> = (0..3000).map(|i| if i % 2 == 0 { -1 } else { 1 }).collect();
        // A right on 9 of 10, B on 6 of 10.
        let a: Vec<i64> = gold
            .iter()
            .enumerate()
            .map(|(i, &g)| if i % 10 == 0 { -g } else { g })
            .collect();
        let b: Vec<i64> = gold
            .iter()
            .enumerate()
            .map(|(i, &g)| if i % 10 < 4 { -g } else { g })
            .collect();
        let s = sequential(&gold, &a, &b, 0.05);
        let t = s.stopped_at.expect("decided");
        assert!(t < 1000, "{t}");
        assert_eq!(s.better, Some("a"));
        assert!(s.lower.expect("lower") > 0.5);
        assert_eq!(
            s.at.iter().map(|b| b.t).collect::<Vec<_>>(),
            [100, 1000, 3000]
        );
        // The same judge twice: x is ½ throughout, never decided.
        let same = sequential(&gold, &a, &a, 0.05);
        assert_eq!((same.stopped_at, same.better), (None, None));
        assert_eq!(same.mean, 0.5);
        // No item: nothing decided, no bound.
        let none = sequential(&[], &[], &[], 0.05);
        assert_eq!((none.n, none.stopped_at, none.at.len()), (0, None, 0));
    }
}
