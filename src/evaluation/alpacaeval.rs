//! AlpacaEval's `analyze.py` (`Analyzer`, with its default `absolute` scoring rule), mirrored
//! on plain annotation lists: the estimators `evaluation::evaluator` reports. Each function
//! names the Python it mirrors; the fixture script tests/fixtures/generate_alpacafarm_fixtures.py
//! runs the Python itself.
//!
//! Annotations are on AlpacaEval's preference scale: 1 (output_1 better), 1.5 (tie), 2 (output_2
//! better), `None` unparsed. Every estimator takes each item's weight (its count in a bootstrap
//! resample; 1 for the point estimate), and it mirrors the edges as well:
//! - an item's annotations are in file order; the `k`-th annotation of every item is one
//!   "annotator" (`_select_n_annotations`' cumcount), and the estimators average over the
//!   combinations of those indices (`agreement_of_annotations`);
//! - a group of annotations becomes one by `_random_mode` (the scale is discrete): the most common
//!   value, and between equally common ones the pick of pandas' `sample(1, random_state=123)`,
//!   which takes the larger of two (a 2-2 tie among four humans counts as output_2, not as half)
//!   and the smallest of three;
//! - unparsed annotations are skipped by the means and count in the selection as pandas'
//!   `count()` does; where AlpacaEval raises or divides by zero the figure is NaN.
//!
//! `contains_list` is AlpacaEval's rule as of March 2024 (commit 241e1f6): the rule that
//! reproduces the published `humans` and `longest` rows. Its current rule (anchored at line
//! starts) gives other values on the same rows (humans 0.6226, not 0.6036).

use regex::Regex;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::OnceLock;

/// One item's annotations in file order (AlpacaEval's scale; `None`: unparsed).
pub type Annotations = Vec<Option<f64>>;

/// A label (-1, 0, 1) on AlpacaEval's preference scale (1, 1.5, 2).
pub fn preference(label: i64) -> Option<f64> {
    match label {
        -1 => Some(1.0),
        0 => Some(1.5),
        1 => Some(2.0),
        _ => None,
    }
}

/// What the length and list measures read of an item's two outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextShape {
    /// Lengths in code points (Python's `len`).
    pub length: [usize; 2],
    pub list: [bool; 2],
}

impl TextShape {
    pub fn of(output_1: &str, output_2: &str) -> Self {
        Self {
            length: [output_1.chars().count(), output_2.chars().count()],
            list: [contains_list(output_1), contains_list(output_2)],
        }
    }
}

/// AlpacaEval's `contains_list` (March 2024): a bullet, number, letter or dash item anywhere.
/// Python's `\s` also matches the separators U+001C..U+001F, which Rust's does not.
pub fn contains_list(text: &str) -> bool {
    static PATTERNS: OnceLock<Vec<Regex>> = OnceLock::new();
    let patterns = PATTERNS.get_or_init(|| {
        [
            r"([\s\x1c-\x1f]*•[\s\x1c-\x1f]*|[\s\x1c-\x1f]*\*[\s\x1c-\x1f]*)(\w+)",
            r"([\s\x1c-\x1f]*\d+\.|[\s\x1c-\x1f]*\d+\))[\s\x1c-\x1f]*(\w+)",
            r"([\s\x1c-\x1f]*[a-zA-Z]\.|[\s\x1c-\x1f]*[a-zA-Z]\))[\s\x1c-\x1f]*(\w+)",
            r"([\s\x1c-\x1f]*-[\s\x1c-\x1f]*)(\w+)",
        ]
        .iter()
        .filter_map(|p| Regex::new(p).ok())
        .collect()
    });
    patterns.iter().any(|p| p.is_match(text))
}

/// The annotations an evaluator and the humans made, item by item (aligned).
/// `_random_mode`: the most common readable value; between equally common ones, the one
/// pandas' `sample(1, random_state=123)` draws from the sorted modes (numpy's
/// `RandomState(123).permutation(k)[0]`: 0, 1, 0 for one, two, three modes).
pub fn random_mode(values: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    let mut seen: Vec<(f64, usize)> = Vec::new();
    for v in values.into_iter().flatten() {
        match seen.iter_mut().find(|(x, _)| *x == v) {
            Some(entry) => entry.1 += 1,
            None => seen.push((v, 1)),
        }
    }
    let top = seen.iter().map(|s| s.1).max()?;
    let mut modes: Vec<f64> = seen.iter().filter(|s| s.1 == top).map(|s| s.0).collect();
    modes.sort_by(f64::total_cmp);
    const PICK: [usize; 4] = [0, 0, 1, 0];
    modes
        .get(PICK.get(modes.len()).copied().unwrap_or(0))
        .copied()
}

pub fn readable(item: &Annotations) -> usize {
    item.iter().flatten().count()
}

/// `_select_n_annotations(df, n, is_rm_less_than=False)` over the items present in the
/// resample: which items have at least `n` readable annotations (default: the fewest any
/// present item has), and the most any kept item has.
fn select(items: &[Annotations], weights: &[u64], n: Option<usize>) -> (Vec<bool>, usize) {
    let present = |i: usize| weights[i] > 0 && !items[i].is_empty();
    let least = (0..items.len())
        .filter(|&i| present(i))
        .map(|i| readable(&items[i]))
        .min()
        .unwrap_or(0);
    let n = n.filter(|&n| n > 0).unwrap_or(least);
    let kept: Vec<bool> = (0..items.len())
        .map(|i| present(i) && readable(&items[i]) >= n)
        .collect();
    let most = (0..items.len())
        .filter(|&i| kept[i])
        .map(|i| readable(&items[i]))
        .max()
        .unwrap_or(0);
    (kept, most)
}

/// `_get_bayes_estimator` per item (the absolute rule's): over the annotations at positions
/// `idcs`, the mode (`_random_mode`) when every value is one of 1, 1.5, 2, else the median (a
/// weighted judge's preferences); the outer `None` where the item has none of those positions
/// (absent from pandas' groupby).
fn estimate(item: &Annotations, idcs: &[usize]) -> Option<Option<f64>> {
    if !idcs.iter().any(|&i| i < item.len()) {
        return None;
    }
    let values = || idcs.iter().filter_map(|&i| item.get(i).copied().flatten());
    // The mode of values among 1, 1.5 and 2, counted in place (this runs once per item and
    // positions, the hot loop of the evaluator's agreement): `random_mode`'s rule, sorted
    // modes 1 < 1.5 < 2.
    let mut counts = [0usize; 3];
    for v in values() {
        match [1.0, 1.5, 2.0].iter().position(|x| *x == v) {
            Some(k) => counts[k] += 1,
            None => return Some(Some(median(values().collect()))),
        }
    }
    let top = counts.iter().copied().max().unwrap_or(0);
    if top == 0 {
        return Some(None);
    }
    let mut modes = (0..3).filter(|&k| counts[k] == top);
    let pick = if counts.iter().filter(|&&c| c == top).count() == 2 {
        1
    } else {
        0
    };
    modes.nth(pick).map(|k| Some([1.0, 1.5, 2.0][k]))
}

fn median(mut readable: Vec<f64>) -> f64 {
    readable.sort_by(f64::total_cmp);
    let n = readable.len();
    if n % 2 == 1 {
        readable[n / 2]
    } else {
        (readable[n / 2 - 1] + readable[n / 2]) / 2.0
    }
}

/// Every `k`-subset of `0..n`, in `itertools.combinations` order.
fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    if k > n {
        return out;
    }
    let mut idx: Vec<usize> = (0..k).collect();
    loop {
        out.push(idx.clone());
        let Some(i) = (0..k).rev().find(|&i| idx[i] != i + n - k) else {
            return out;
        };
        idx[i] += 1;
        for j in i + 1..k {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

/// Each item's estimate at some positions, computed once per side and positions (they do not
/// depend on the bootstrap's weights).
#[derive(Debug, Default)]
pub struct Memo(RefCell<HashMap<Positions, Rc<Estimates>>>);

/// A side (its items' address) and the annotation positions estimated.
type Positions = (usize, Vec<usize>);

/// Each item's estimate: `None` where the item has no annotation at the positions, `Some(None)`
/// where they are all unparsed.
type Estimates = Vec<Option<Option<f64>>>;

impl Memo {
    pub fn get(&self, items: &[Annotations], idcs: &[usize]) -> Rc<Estimates> {
        let key = (items.as_ptr() as usize, idcs.to_vec());
        if let Some(found) = self.0.borrow().get(&key) {
            return found.clone();
        }
        let made = Rc::new(
            items
                .iter()
                .map(|item| estimate(item, idcs))
                .collect::<Vec<_>>(),
        );
        self.0.borrow_mut().insert(key, made.clone());
        made
    }
}

/// `agreement_of_annotations(a, b, n1, n2)`'s score (NaN where AlpacaEval raises), weighted by
/// the items' bootstrap counts.
pub fn agreement(
    memo: &Memo,
    (a, b): (&[Annotations], &[Annotations]),
    same: bool,
    (n1, n2): (Option<usize>, Option<usize>),
    weights: &[u64],
) -> f64 {
    let (kept_1, max_1) = select(a, weights, n1);
    let n1 = n1.unwrap_or(max_1);
    if n1 > max_1 || n1 == 0 {
        return f64::NAN;
    }
    let n2 = if same {
        n2.filter(|&n| n > 0).unwrap_or(max_1 - n1)
    } else {
        n2.unwrap_or(0)
    };
    let (kept_2, max_2) = select(b, weights, Some(n2));
    let n2 = if n2 == 0 { max_2 } else { n2 };
    if n2 > max_2 || n2 == 0 {
        return f64::NAN;
    }
    let mut scores = Vec::new();
    for idcs_1 in combinations(max_1, n1) {
        for idcs_2 in combinations(max_2, n2) {
            if same && idcs_1.iter().any(|i| idcs_2.contains(i)) {
                continue;
            }
            let (mut sum, mut count) = (0.0, 0.0);
            let (est_1, est_2) = (memo.get(a, &idcs_1), memo.get(b, &idcs_2));
            for i in 0..a.len() {
                if !(kept_1[i] && kept_2[i]) {
                    continue;
                }
                if let (Some(Some(p)), Some(Some(t))) = (est_1[i], est_2[i]) {
                    sum += weights[i] as f64 * (t - p).abs();
                    count += weights[i] as f64;
                }
            }
            scores.push(if count > 0.0 {
                1.0 - sum / count
            } else {
                f64::NAN
            });
        }
    }
    if scores.is_empty() {
        return f64::NAN;
    }
    scores.iter().sum::<f64>() / scores.len() as f64
}

/// `get_length_biases`/`get_list_biases`: among items whose first annotation's preferred and
/// other outputs differ (in length by more than 30 code points; in having a list), the share
/// where the preferred one is the longer (has the list). As AlpacaEval's `between` reads them
/// (`[1, 1.5)` prefers output_1, `(1.5, 2]` output_2), a tie and an unparsed annotation compare
/// output_2 with itself, so they count in neither.
fn prefers(
    items: &[Annotations],
    texts: &[TextShape],
    weights: &[u64],
    differs: impl Fn(&TextShape, usize, usize) -> Option<bool>,
) -> f64 {
    let (mut hits, mut total) = (0.0, 0.0);
    for (i, item) in items.iter().enumerate() {
        let Some(first) = item.first() else { continue };
        if weights[i] == 0 {
            continue;
        }
        let best = usize::from(!first.is_some_and(|p| (1.0..1.5).contains(&p)));
        let worse = usize::from(!first.is_some_and(|p| p > 1.5 && p <= 2.0));
        if let Some(prefers_best) = differs(&texts[i], best, worse) {
            total += weights[i] as f64;
            if prefers_best {
                hits += weights[i] as f64;
            }
        }
    }
    hits / total
}

pub fn prefer_longer(items: &[Annotations], texts: &[TextShape], weights: &[u64]) -> f64 {
    prefers(items, texts, weights, |t, best, worse| {
        let (b, w) = (t.length[best], t.length[worse]);
        (b.abs_diff(w) > 30).then_some(b > w)
    })
}

pub fn prefer_lists(items: &[Annotations], texts: &[TextShape], weights: &[u64]) -> f64 {
    prefers(items, texts, weights, |t, best, worse| {
        (t.list[best] != t.list[worse]).then_some(t.list[best])
    })
}

/// 2 - the mean readable preference (the share preferring output_1, ties half).
pub fn prefer_first(items: &[Annotations], weights: &[u64]) -> f64 {
    let (mut sum, mut count) = (0.0, 0.0);
    for (item, &w) in items.iter().zip(weights) {
        for p in item.iter().flatten() {
            sum += w as f64 * p;
            count += w as f64;
        }
    }
    2.0 - sum / count
}

/// The figures of one resample, in the order of [`Intervals`]' fields.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinations_in_itertools_order() {
        assert_eq!(
            combinations(4, 2),
            vec![
                vec![0, 1],
                vec![0, 2],
                vec![0, 3],
                vec![1, 2],
                vec![1, 3],
                vec![2, 3]
            ]
        );
        assert_eq!(combinations(3, 0), vec![Vec::<usize>::new()]);
        assert!(combinations(2, 3).is_empty());
    }

    #[test]
    fn random_mode_breaks_ties_as_pandas_sample_123() {
        // Values checked against alpaca_eval.metrics.helpers._random_mode.
        assert_eq!(
            random_mode([Some(1.0), Some(2.0), Some(2.0), Some(1.0)]),
            Some(2.0)
        );
        assert_eq!(random_mode([Some(1.0), Some(1.5), Some(2.0)]), Some(1.0));
        assert_eq!(random_mode([Some(1.0), Some(1.5)]), Some(1.5));
        assert_eq!(random_mode([None, Some(1.0)]), Some(1.0));
        assert_eq!(random_mode([None, None]), None);
    }

    #[test]
    fn estimate_counted_in_place_is_random_mode_or_the_median() {
        // Every item of up to four annotations from {unparsed, 1, 1.5, 2, 1.25}: the in-place
        // count gives what `random_mode` gives, and a value off 1/1.5/2 gives the median.
        let choices = [None, Some(1.0), Some(1.5), Some(2.0), Some(1.25)];
        for n in 1..=4u32 {
            for code in 0..5usize.pow(n) {
                let item: Annotations = (0..n).map(|k| choices[code / 5usize.pow(k) % 5]).collect();
                let idcs: Vec<usize> = (0..n as usize).collect();
                let readable: Vec<f64> = item.iter().flatten().copied().collect();
                let want = if readable.iter().all(|v| [1.0, 1.5, 2.0].contains(v)) {
                    random_mode(item.iter().copied())
                } else {
                    Some(median(readable))
                };
                assert_eq!(estimate(&item, &idcs), Some(want), "{item:?}");
            }
        }
        assert_eq!(estimate(&vec![Some(1.0)], &[3]), None);
    }

    #[test]
    fn docstring_examples_of_agreement_of_annotations() {
        // analyze.py's docstring: two items, four annotations each, [1,1,1,1] and [2,2,2,1].
        let items = vec![
            vec![Some(1.0); 4],
            vec![Some(2.0), Some(2.0), Some(2.0), Some(1.0)],
        ];
        let (w, memo) = ([1, 1], Memo::default());
        let pair = (items.as_slice(), items.as_slice());
        assert!((agreement(&memo, pair, true, (Some(1), Some(1)), &w) - 0.75).abs() < 1e-12);
        assert!((agreement(&memo, pair, true, (Some(1), Some(3)), &w) - 0.875).abs() < 1e-12);
    }

    #[test]
    fn lists_by_the_march_2024_rule() {
        assert!(contains_list("Steps:\n1. mix\n2. bake"));
        assert!(contains_list("a - b"));
        assert!(contains_list("• one"));
        assert!(!contains_list("no list here"));
        // The 2024 rule is unanchored: a sentence's "a." before a word counts.
        assert!(contains_list("Plan a. Then go"));
    }
}
