//! The scale a single response is graded on, which says what its measures are: binary
//! (0/1: correct or not), integer grades between two ends (1-5, 0-6), or categories by name.
//! Pairwise verdicts (-1, 0, 1) are no such scale: their measures are the agreement figures.

use super::{kappa, Contingency, Labels, Weights};
use serde::Serialize;

/// A grading scale, declared (`--scale`) or read from the labels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Scale {
    /// 0 (incorrect) or 1 (correct).
    Binary,
    /// Integer grades from `lo` to `hi`: their order and distance mean something.
    Graded { lo: i64, hi: i64 },
    /// Categories, by name (or by number where the labels are numbers): only equality means
    /// something.
    Categories { names: Vec<String> },
}

impl Scale {
    /// `binary`, `LO-HI` (e.g. `1-5`, `0-6`) or `categories:A,B,C`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text == "binary" {
            return Ok(Scale::Binary);
        }
        if let Some(names) = text.strip_prefix("categories:") {
            let names: Vec<String> = names
                .split(',')
                .map(|n| n.trim().to_string())
                .filter(|n| !n.is_empty())
                .collect();
            if names.len() < 2 {
                return Err(format!(
                    "--scale '{text}': name two categories or more, e.g. categories:safe,unsafe,unsure"
                ));
            }
            return Ok(Scale::Categories { names });
        }
        let range = text.split_once('-').and_then(|(lo, hi)| {
            Some((
                lo.trim().parse::<i64>().ok()?,
                hi.trim().parse::<i64>().ok()?,
            ))
        });
        match range {
            Some((lo, hi)) if lo < hi => Ok(Scale::Graded { lo, hi }),
            _ => Err(format!(
                "--scale '{text}' is not a scale; give binary (0/1), LO-HI for integer grades (e.g. 1-5) or categories:A,B,C"
            )),
        }
    }

    /// The scale the labels are on when none is declared, where they say it plainly: labels
    /// by name are categories, labels of only 0 and 1 binary, three integer grades or more
    /// (not -1, 0, 1) graded from the least to the most. None otherwise: pairwise verdicts,
    /// or two numbers other than 0 and 1 (AlpacaEval's 1 and 2 are verdicts).
    pub fn infer(values: impl IntoIterator<Item = i64>, names: &[String]) -> Option<Scale> {
        if !names.is_empty() {
            return Some(Scale::Categories {
                names: names.to_vec(),
            });
        }
        // The distinct values only: a file's millions of labels are not copied.
        let seen: std::collections::BTreeSet<i64> = values.into_iter().collect();
        let seen: Vec<i64> = seen.into_iter().collect();
        match seen.as_slice() {
            [0, 1] => Some(Scale::Binary),
            [-1, 0, 1] | [] | [_] | [_, _] => None,
            [lo, .., hi] => Some(Scale::Graded { lo: *lo, hi: *hi }),
        }
    }

    /// Whether a label read as a number is on the scale (categories by name are checked
    /// where their names are read).
    pub fn holds(&self, value: i64) -> bool {
        match self {
            Scale::Binary => value == 0 || value == 1,
            Scale::Graded { lo, hi } => (*lo..=*hi).contains(&value),
            Scale::Categories { names } => value >= 0 && (value as usize) < names.len(),
        }
    }

    /// The scale in a few words, for a header line: `binary (0/1)`, `graded 1-5`, `3 categories`
    /// (their names are in the tables).
    pub fn short(&self) -> String {
        match self {
            Scale::Categories { names } => format!("{} categories", names.len()),
            other => other.describe(),
        }
    }

    /// How the scale is said in a table's title: `binary (0/1)`, `graded 1-5`, `categories: a, b`.
    pub fn describe(&self) -> String {
        match self {
            Scale::Binary => "binary (0/1)".into(),
            Scale::Graded { lo, hi } => format!("graded {lo}-{hi}"),
            Scale::Categories { names } => format!("categories: {}", names.join(", ")),
        }
    }
}

/// The mean of the grades given (None where none is): several annotators' reference grade.
pub fn mean_grade(votes: &[Option<i64>]) -> Option<f64> {
    let given = votes.iter().flatten();
    let n = given.clone().count();
    (n > 0).then(|| given.map(|&v| v as f64).sum::<f64>() / n as f64)
}

/// numpy's `rint`: the nearest integer, a half to the even one (2.5 → 2, 3.5 → 4).
pub fn round_half_even(x: f64) -> f64 {
    let r = x.round();
    if (x - x.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
        r - x.signum()
    } else {
        r
    }
}

/// Items as their distinct (reference, judge) pairs and how many items have each: every
/// figure here depends only on those counts, so a bootstrap resample is a multinomial draw of
/// them (O(patterns), not O(items)), as the agreement figures' are.
#[derive(Debug, Clone, PartialEq)]
pub struct Patterns {
    pub reference: Vec<f64>,
    pub judge: Vec<i64>,
    pub counts: Vec<u64>,
}

impl Patterns {
    pub fn of(reference: &[f64], judge: &[i64]) -> Self {
        let mut index: std::collections::HashMap<(u64, i64), usize> = Default::default();
        let mut out = Patterns {
            reference: Vec::new(),
            judge: Vec::new(),
            counts: Vec::new(),
        };
        for (&r, &j) in reference.iter().zip(judge) {
            let slot = *index.entry((r.to_bits(), j)).or_insert_with(|| {
                out.reference.push(r);
                out.judge.push(j);
                out.counts.push(0);
                out.counts.len() - 1
            });
            out.counts[slot] += 1;
        }
        out
    }

    /// The reference rounded half to even, as a label.
    fn rounded(&self) -> Vec<i64> {
        self.reference
            .iter()
            .map(|&r| round_half_even(r) as i64)
            .collect()
    }
}

/// Cohen's kappa of labels `a` against `b` weighted by `w`, over the labels either uses with a
/// weight (sklearn's `cohen_kappa_score`: weights on the labels' places in that sorted set).
pub fn kappa_weighted(a: &[i64], b: &[i64], w: &[u64], weights: Weights) -> f64 {
    let used = || (a.iter().zip(b).zip(w)).filter(|(_, &w)| w > 0);
    let Ok(labels) = Labels::new(used().flat_map(|((x, y), _)| [*x, *y]).collect()) else {
        return f64::NAN;
    };
    let k = labels.len();
    let mut counts = vec![0u64; k * k];
    for ((x, y), &w) in used() {
        if let (Ok(i), Ok(j)) = (
            labels.as_slice().binary_search(x),
            labels.as_slice().binary_search(y),
        ) {
            counts[i * k + j] += w;
        }
    }
    kappa(&Contingency::from_counts(labels, counts), weights)
}

/// Cohen's kappa of two integer label lists (every item once).
pub fn kappa_of(a: &[i64], b: &[i64], weights: Weights) -> f64 {
    kappa_weighted(a, b, &vec![1; a.len()], weights)
}

fn weighted_mean(values: impl Iterator<Item = f64>, w: &[u64]) -> f64 {
    let (mut sum, mut n) = (0.0, 0.0);
    for (v, &w) in values.zip(w) {
        sum += w as f64 * v;
        n += w as f64;
    }
    if n == 0.0 {
        f64::NAN
    } else {
        sum / n
    }
}

/// A share with sklearn's `zero_division` default: 0 when nothing is counted.
fn share(hits: u64, of: u64) -> f64 {
    if of == 0 {
        0.0
    } else {
        hits as f64 / of as f64
    }
}

/// F1 from precision and recall (0 where both are: sklearn's default).
fn f1(precision: f64, recall: f64) -> f64 {
    if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    }
}

/// Pearson's r of weighted values (NaN where either is constant), as scipy's `pearsonr` of
/// the values each repeated by its weight.
fn pearson_weighted(x: &[f64], y: &[f64], w: &[u64]) -> f64 {
    let (mx, my) = (
        weighted_mean(x.iter().copied(), w),
        weighted_mean(y.iter().copied(), w),
    );
    let (mut cov, mut vx, mut vy) = (0.0, 0.0, 0.0);
    for ((a, b), &w) in x.iter().zip(y).zip(w) {
        let w = w as f64;
        cov += w * (a - mx) * (b - my);
        vx += w * (a - mx) * (a - mx);
        vy += w * (b - my) * (b - my);
    }
    if vx == 0.0 || vy == 0.0 || !(vx.is_finite() && vy.is_finite()) {
        return f64::NAN;
    }
    (cov / vx.sqrt() / vy.sqrt()).clamp(-1.0, 1.0)
}

/// Each value's average rank among the weighted values (ties share the mean of their ranks).
fn ranks_weighted(x: &[f64], w: &[u64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..x.len()).filter(|&i| w[i] > 0).collect();
    order.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    let mut ranks = vec![0.0; x.len()];
    let (mut before, mut k) = (0u64, 0);
    while k < order.len() {
        let mut end = k;
        let mut tied = 0u64;
        while end < order.len() && x[order[end]] == x[order[k]] {
            tied += w[order[end]];
            end += 1;
        }
        let rank = before as f64 + (tied as f64 + 1.0) / 2.0;
        for &i in &order[k..end] {
            ranks[i] = rank;
        }
        before += tied;
        k = end;
    }
    ranks
}

/// Kendall's τ-b of weighted values (scipy's `kendalltau`): concordant minus discordant pairs
/// over the square root of the pairs untied in x times those untied in y.
fn kendall_weighted(x: &[f64], y: &[f64], w: &[u64]) -> f64 {
    let n: f64 = w.iter().map(|&w| w as f64).sum();
    let ties = |v: &[f64]| -> f64 {
        let mut groups: Vec<(f64, f64)> = Vec::new();
        for (a, &w) in v.iter().zip(w) {
            match groups.iter_mut().find(|(g, _)| g == a) {
                Some(g) => g.1 += w as f64,
                None => groups.push((*a, w as f64)),
            }
        }
        groups.iter().map(|(_, t)| t * (t - 1.0) / 2.0).sum()
    };
    let mut s = 0.0;
    for a in 0..x.len() {
        for b in a + 1..x.len() {
            let sign = (x[a] - x[b]).signum() * (y[a] - y[b]).signum();
            if (x[a] - x[b]) != 0.0 && (y[a] - y[b]) != 0.0 {
                s += sign * w[a] as f64 * w[b] as f64;
            }
        }
    }
    let total = n * (n - 1.0) / 2.0;
    let (tx, ty) = (total - ties(x), total - ties(y));
    if tx <= 0.0 || ty <= 0.0 {
        return f64::NAN;
    }
    s / tx.sqrt() / ty.sqrt()
}

/// The binary figures of a judge's 0/1 against the reference's, in [`BINARY`]'s order:
/// sklearn's `accuracy_score`, `cohen_kappa_score`, the shares of 1 (the judge's, the
/// reference's, their difference: leniency), `recall_score` of 1 (TPR) and of 0 (TNR),
/// `precision_score`, `recall_score` and `f1_score` of 1, `balanced_accuracy_score`.
pub fn binary(p: &Patterns, w: &[u64]) -> Vec<f64> {
    let reference = p.rounded();
    let (mut tp, mut tn, mut fp, mut fn_) = (0, 0, 0, 0);
    for ((&r, &j), &w) in reference.iter().zip(&p.judge).zip(w) {
        match (r == 1, j == 1) {
            (true, true) => tp += w,
            (false, false) => tn += w,
            (false, true) => fp += w,
            (true, false) => fn_ += w,
        }
    }
    let n = tp + tn + fp + fn_;
    let (judge_share, human_share) = (share(tp + fp, n), share(tp + fn_, n));
    let (tpr, tnr) = (share(tp, tp + fn_), share(tn, tn + fp));
    let precision = share(tp, tp + fp);
    let recalls: Vec<f64> = [(tp, tp + fn_), (tn, tn + fp)]
        .iter()
        .filter(|(_, of)| *of > 0)
        .map(|&(h, of)| share(h, of))
        .collect();
    let balanced = recalls.iter().sum::<f64>() / recalls.len() as f64;
    vec![
        share(tp + tn, n),
        kappa_weighted(&reference, &p.judge, w, Weights::Unweighted),
        judge_share,
        human_share,
        judge_share - human_share,
        tpr,
        tnr,
        precision,
        tpr,
        f1(precision, tpr),
        balanced,
    ]
}

/// The names of [`binary`]'s figures.
pub const BINARY: [&str; 11] = [
    "accuracy",
    "kappa",
    "judge_share",
    "human_share",
    "leniency",
    "tpr",
    "tnr",
    "precision",
    "recall",
    "f1",
    "balanced_accuracy",
];

/// Each class's precision, recall and F1 (sklearn's, zero division 0) over the classes
/// either side uses, in sorted order, with its support (reference) and predictions (judge).
pub fn per_class(p: &Patterns, w: &[u64]) -> Vec<(i64, u64, u64, [f64; 3])> {
    let reference = p.rounded();
    let mut classes: Vec<i64> = (reference.iter().zip(&p.judge).zip(w))
        .filter(|(_, &w)| w > 0)
        .flat_map(|((r, j), _)| [*r, *j])
        .collect();
    classes.sort_unstable();
    classes.dedup();
    classes
        .into_iter()
        .map(|c| {
            let (mut support, mut predicted, mut hits) = (0, 0, 0);
            for ((&r, &j), &w) in reference.iter().zip(&p.judge).zip(w) {
                support += w * u64::from(r == c);
                predicted += w * u64::from(j == c);
                hits += w * u64::from(r == c && j == c);
            }
            let (pr, re) = (share(hits, predicted), share(hits, support));
            (c, support, predicted, [pr, re, f1(pr, re)])
        })
        .collect()
}

/// The categories' figures in [`CATEGORIES`]' order: accuracy, Cohen's kappa, macro F1
/// (sklearn's `f1_score(average="macro")`: over the classes either side uses).
pub fn categories(p: &Patterns, w: &[u64]) -> Vec<f64> {
    let reference = p.rounded();
    let (mut hits, mut n) = (0, 0);
    for ((r, j), &w) in reference.iter().zip(&p.judge).zip(w) {
        hits += w * u64::from(r == j);
        n += w;
    }
    let classes = per_class(p, w);
    let macro_f1 = classes.iter().map(|c| c.3[2]).sum::<f64>() / classes.len() as f64;
    vec![
        share(hits, n),
        kappa_weighted(&reference, &p.judge, w, Weights::Unweighted),
        macro_f1,
    ]
}

/// The names of [`categories`]' figures.
pub const CATEGORIES: [&str; 3] = ["accuracy", "kappa", "macro_f1"];

/// The graded figures of a judge's grades against the humans' mean grade (the reference; the
/// gold itself with one annotator), in [`GRADED`]'s order: scipy's `pearsonr`, `spearmanr`
/// and `kendalltau` (τ-b) against the mean; the mean offset (judge − humans); against the mean
/// rounded half to even (numpy's `rint`): sklearn's `mean_absolute_error`, exact agreement
/// (`accuracy_score`) and `cohen_kappa_score` linear and quadratic.
pub fn graded(p: &Patterns, w: &[u64]) -> Vec<f64> {
    let j: Vec<f64> = p.judge.iter().map(|&v| v as f64).collect();
    let rounded = p.rounded();
    let (rank_j, rank_r) = (ranks_weighted(&j, w), ranks_weighted(&p.reference, w));
    let pairs = || p.judge.iter().zip(&rounded);
    vec![
        pearson_weighted(&j, &p.reference, w),
        pearson_weighted(&rank_j, &rank_r, w),
        kendall_weighted(&j, &p.reference, w),
        weighted_mean(j.iter().zip(&p.reference).map(|(a, b)| a - b), w),
        weighted_mean(pairs().map(|(a, b)| (a - b).abs() as f64), w),
        weighted_mean(pairs().map(|(a, b)| f64::from(u8::from(a == b))), w),
        kappa_weighted(&rounded, &p.judge, w, Weights::Linear),
        kappa_weighted(&rounded, &p.judge, w, Weights::Quadratic),
    ]
}

/// The names of [`graded`]'s figures.
pub const GRADED: [&str; 8] = [
    "pearson",
    "spearman",
    "kendall_tau_b",
    "mean_offset",
    "mae",
    "exact_agreement",
    "kappa_linear",
    "kappa_quadratic",
];

/// The judge against one annotator on the items both graded: exact agreement, kappa linear
/// and quadratic, MAE (sklearn's).
pub fn against_one(annotator: &[i64], judge: &[i64]) -> [f64; 4] {
    let reference: Vec<f64> = annotator.iter().map(|&a| a as f64).collect();
    let p = Patterns::of(&reference, judge);
    let g = graded(&p, &p.counts);
    [g[5], g[6], g[7], g[4]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_parse_and_refuse() {
        assert_eq!(Scale::parse("binary"), Ok(Scale::Binary));
        assert_eq!(Scale::parse("1-5"), Ok(Scale::Graded { lo: 1, hi: 5 }));
        assert_eq!(Scale::parse("0-6"), Ok(Scale::Graded { lo: 0, hi: 6 }));
        assert_eq!(
            Scale::parse("categories:safe, unsafe"),
            Ok(Scale::Categories {
                names: vec!["safe".into(), "unsafe".into()]
            })
        );
        for bad in ["5-1", "1-", "categories:one", "likert"] {
            assert!(Scale::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn inferred_only_where_the_labels_say_it() {
        assert_eq!(Scale::infer([0, 1, 1], &[]), Some(Scale::Binary));
        assert_eq!(
            Scale::infer([2, 5, 3, 1], &[]),
            Some(Scale::Graded { lo: 1, hi: 5 })
        );
        assert_eq!(Scale::infer([-1, 0, 1], &[]), None);
        assert_eq!(Scale::infer([1, 2], &[]), None);
        let names = vec!["no".to_string(), "yes".to_string()];
        assert_eq!(
            Scale::infer([0, 1], &names),
            Some(Scale::Categories { names })
        );
    }

    #[test]
    fn weighted_patterns_are_the_items_repeated() {
        // A resample's counts on the patterns give what the items repeated by them give.
        let reference = [1.0, 2.5, 2.5, 4.0, 5.0, 3.25, 1.0, 4.0];
        let judge = [1, 3, 2, 4, 4, 3, 2, 5];
        let p = Patterns::of(&reference, &judge);
        let w: Vec<u64> = (0..p.counts.len() as u64).map(|k| k % 3 + 1).collect();
        let (mut r2, mut j2) = (Vec::new(), Vec::new());
        for (k, &c) in w.iter().enumerate() {
            for _ in 0..c {
                r2.push(p.reference[k]);
                j2.push(p.judge[k]);
            }
        }
        let expanded = Patterns::of(&r2, &j2);
        let (a, b) = (graded(&p, &w), graded(&expanded, &expanded.counts));
        for (k, (x, y)) in a.iter().zip(&b).enumerate() {
            assert!((x - y).abs() < 1e-12, "{}: {x} vs {y}", GRADED[k]);
        }
        // Spearman is Pearson of the average ranks; τ-b with ties in both (scipy: 0.8333, 0.8).
        let plain = Patterns::of(&[1.0, 2.0, 2.0, 3.0], &[1, 2, 3, 3]);
        let g = graded(&plain, &plain.counts);
        assert!((g[1] - 0.8333333333333335).abs() < 1e-12, "{}", g[1]);
        assert!((g[2] - 0.8).abs() < 1e-12, "{}", g[2]);
    }

    #[test]
    fn halves_round_to_even_as_numpy_rint() {
        let cases = [
            (2.5, 2.0),
            (3.5, 4.0),
            (-0.5, -0.0),
            (1.25, 1.0),
            (4.75, 5.0),
            (3.0, 3.0),
        ];
        for (x, want) in cases {
            assert_eq!(round_half_even(x), want, "{x}");
        }
    }
}
