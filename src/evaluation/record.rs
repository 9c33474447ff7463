//! The room's vocabulary: what `calibrate` rated (`RunRecord`: items, configurations and
//! their outcomes), the evaluation's settings, and the counts and headline figures every
//! analytic computes the same way. The analytics import it; `mod.rs` orchestrates them.

use super::shape::Shape;
use crate::metrics::{Agreement, Contingency, Labels, Statistic};

/// A figure as a serialized result holds it: None where it is not a number.
pub fn defined(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// `part / of`, NaN when `of` is 0: every rate in the evaluation.
pub fn share(part: u64, of: u64) -> f64 {
    if of == 0 {
        f64::NAN
    } else {
        part as f64 / of as f64
    }
}

/// How an item ended for a configuration (mirrors `raters::Status`, kept here so that
/// `report DIR` can rebuild it from files).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Rated(i64),
    NoVerdict,
    /// Cut off while thinking: no answer (counted apart from unreadable answers).
    CutOff,
    CallFailed,
    /// Never asked: the run stopped before the item's block. Not part of any measure of the
    /// configuration (its scopes, comparisons and credit leave it out), only counted.
    NotAsked,
}

impl Outcome {
    /// An item's outcome from its rating and status.
    pub fn of(rating: Option<i64>, status: crate::raters::Status) -> Self {
        use crate::raters::Status;
        match (status, rating) {
            (Status::Rated, Some(v)) => Outcome::Rated(v),
            (Status::NoVerdict, _) => Outcome::NoVerdict,
            (Status::CutOff, _) => Outcome::CutOff,
            (Status::NotAsked, _) => Outcome::NotAsked,
            _ => Outcome::CallFailed,
        }
    }
}

impl From<&crate::raters::Rating> for Outcome {
    fn from(r: &crate::raters::Rating) -> Self {
        Self::of(r.rating, r.status)
    }
}

impl From<&crate::raters::RatingRow> for Outcome {
    fn from(r: &crate::raters::RatingRow) -> Self {
        Self::of(r.rating, r.status)
    }
}

impl Outcome {
    pub fn rating(self) -> Option<i64> {
        match self {
            Outcome::Rated(v) => Some(v),
            _ => None,
        }
    }
}

/// Cost and time of one configuration. Answers from the cache count what they cost when
/// first paid (`cache_hits` says how many they were).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cost {
    pub calls: u64,
    pub cache_hits: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    /// Of `tokens_out`, the thinking's.
    pub tokens_reasoning: u64,
    pub wall_seconds: f64,
    /// Requests behind the answers (samples asked together with `n` are one), and their
    /// latencies added up; None for a run made before they were counted.
    pub requests: Option<u64>,
    pub request_seconds: Option<f64>,
    /// Dollars, with a price for the judge's model (a jury: its members' sum, when each has one).
    pub usd: Option<f64>,
}

impl Cost {
    /// Whether anything was recorded: a run's configurations always have a cost (a baseline's
    /// counts zero requests); ratings read by `analyze` have none (`Cost::default()`).
    pub fn known(&self) -> bool {
        *self != Cost::default()
    }

    /// What calls with this usage cost (`usd` with a price for the model), in `wall_seconds`.
    pub fn of_usage(u: &crate::raters::Usage, wall_seconds: f64, usd: Option<f64>) -> Self {
        Self {
            calls: u.calls,
            cache_hits: u.cache_hits,
            tokens_in: u.tokens_in,
            tokens_out: u.tokens_out,
            tokens_reasoning: u.tokens_reasoning,
            wall_seconds,
            requests: Some(u.requests),
            request_seconds: Some(u.request_seconds()),
            usd,
        }
    }
}

/// One configuration's outcomes, aligned with the run's items.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigRecord {
    pub name: String,
    pub prompt: String,
    /// The rater as named in the outputs.
    pub rater: String,
    /// The rater's kind (None: a jury, which is no rater of its own). A baseline is a kind.
    pub kind: Option<crate::raters::RaterKind>,
    pub judge: String,
    pub simulated: bool,
    pub outcomes: Vec<Outcome>,
    pub cost: Cost,
    /// Why items have no rating (the parser's reason or the call's error), with how many
    /// items each; most common first.
    pub reasons: Vec<(String, usize)>,
    /// Pointwise configurations: each item's grades of response 1 and 2, and how they were
    /// compared.
    pub pointwise: Option<PointwiseRecord>,
    /// Self-consistency (sc:N, pairwise): every item's N sample verdicts (None: no verdict).
    pub samples: Option<Vec<Vec<Option<i64>>>>,
    /// A configuration with a probability source: each item's P(response 2 better).
    pub probability: Option<ProbabilityRecord>,
    /// A jury: its members (configurations of this record) and how they vote.
    pub jury: Option<crate::raters::jury::Jury>,
}

impl ConfigRecord {
    /// A baseline is a rater kind that makes no call (`random`, `longer`, `first`, ...).
    pub fn is_baseline(&self) -> bool {
        self.kind.is_some_and(crate::raters::RaterKind::is_baseline)
    }
}

/// A configuration's probabilities, aligned with the run's items.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbabilityRecord {
    /// `logprobs`, `votes` or `scores` (`raters::probability::Source`).
    pub source: String,
    pub p: Vec<Option<f64>>,
    /// Why items have no probability (rated or not), most common first.
    pub missing: Vec<(String, usize)>,
}

/// A pointwise configuration's grades, aligned with the run's items.
#[derive(Debug, Clone, PartialEq)]
pub struct PointwiseRecord {
    pub grades: Vec<(Option<f64>, Option<f64>)>,
    pub tie_margin: f64,
    /// The lowest grade of the scale (the `lowest` rule's stand-in), when there is a scale.
    pub lowest: Option<f64>,
    /// Whether the judge ignores the order (a scores file): its position rules are no-ops.
    pub order_blind: bool,
}

/// Counts equal reasons, most common first (ties by text, so the order is stable).
pub fn tally<'a>(reasons: impl Iterator<Item = &'a str>) -> Vec<(String, usize)> {
    let mut counts: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for r in reasons {
        *counts.entry(r).or_default() += 1;
    }
    let mut out: Vec<(String, usize)> = counts
        .into_iter()
        .map(|(r, n)| (r.to_string(), n))
        .collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

/// Everything `calibrate` rated, in the form `report DIR` reads back.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRecord {
    /// The labels gold and ratings take: -1, 0, 1 for a run over pairs (the pairwise analytics
    /// need them); `analyze` reads any scale, on which only the agreement figures are defined.
    pub labels: Labels,
    /// The analytics' own inputs, one value per type (`evaluator::Preferences`, ...), so that
    /// an analytic's input is no field here. An analytic reads its own with `inputs.get::<T>()`.
    pub inputs: super::kept::Inputs,
    pub items: super::items::Items,
    pub configs: Vec<ConfigRecord>,
    pub both_orders: bool,
    /// Several annotators' labels per item, when gold is their majority.
    pub annotators: Option<Annotations>,
    /// Each item's two responses as shown (length, lists, headers, bold), for the bias
    /// diagnostics; empty when the texts are not at hand (a run directory without items.jsonl).
    pub shapes: Vec<[Shape; 2]>,
    /// Which model wrote each item's responses, when the data says for every item.
    pub generators: Option<Generators>,
}

/// Items a configuration's measures leave out, by why.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LeftOut {
    /// Never asked (the run stopped first).
    pub not_asked: usize,
    /// Asked, without a gold label.
    pub unlabelled: usize,
}

impl RunRecord {
    /// The items at `indices` that `config`'s agreement measures count: asked, with a gold
    /// label; and how many are left out, by why.
    pub fn counted(&self, config: &ConfigRecord, indices: &[usize]) -> (Vec<usize>, LeftOut) {
        let mut left = LeftOut::default();
        let counted = indices
            .iter()
            .copied()
            .filter(|&i| {
                if config.outcomes[i] == Outcome::NotAsked {
                    left.not_asked += 1;
                    false
                } else if self.items.gold[i].is_none() {
                    left.unlabelled += 1;
                    false
                } else {
                    true
                }
            })
            .collect();
        (counted, left)
    }

    /// Items without a gold label.
    pub fn unlabelled(&self) -> usize {
        self.items.gold.iter().filter(|g| g.is_none()).count()
    }

    /// Each subset's items, by name; an item whose subset is empty (`analyze` without a group
    /// column) is in none.
    pub fn subsets(&self) -> std::collections::BTreeMap<&str, Vec<usize>> {
        let mut out: std::collections::BTreeMap<&str, Vec<usize>> = Default::default();
        for (i, item) in self.items.iter().enumerate() {
            if !item.subset.is_empty() {
                out.entry(item.subset).or_default().push(i);
            }
        }
        out
    }
}

/// Each item's two generators (as shown) and its prompt, for the system-level analysis.
#[derive(Debug, Clone, PartialEq)]
pub struct Generators {
    /// `of_item[i]`: the models that wrote item i's response 1 and response 2.
    pub of_item: Vec<[String; 2]>,
    /// Each item's prompt as an index into the run's distinct prompts (the unit the bootstrap
    /// resamples: a prompt's items move together).
    pub prompt: Vec<u32>,
    /// Model scores to compare each configuration's ranking with (`--reference`).
    pub reference: Option<Reference>,
}

/// Model scores a configuration's ranking is compared with: a table (Chatbot Arena's Elo, a
/// leaderboard), or the ranking the gold labels induce.
#[derive(Debug, Clone, PartialEq)]
pub enum Reference {
    Table {
        source: String,
        scores: Vec<(String, f64)>,
    },
    Gold,
}

impl Reference {
    pub fn source(&self) -> String {
        match self {
            Reference::Table { source, .. } => source.clone(),
            Reference::Gold => "gold".to_string(),
        }
    }
}

impl Generators {
    /// From each item's generators and prompt text; None unless every item has generators.
    pub fn of<'a>(items: impl Iterator<Item = (Option<&'a [String; 2]>, &'a str)>) -> Option<Self> {
        let mut index: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
        let (mut of_item, mut prompt) = (Vec::new(), Vec::new());
        for (generators, text) in items {
            of_item.push(generators?.clone());
            let next = index.len() as u32;
            prompt.push(*index.entry(text).or_insert(next));
        }
        (!of_item.is_empty()).then_some(Self {
            of_item,
            prompt,
            reference: None,
        })
    }
}

/// Every annotator's label per item (in the item's order, like gold).
#[derive(Debug, Clone, PartialEq)]
pub struct Annotations {
    pub names: Vec<String>,
    /// `votes[item][annotator]` (None: that annotator gave no readable label).
    pub votes: Vec<Vec<Option<i64>>>,
    /// Long form by annotator: each item's annotators in file order, as AlpacaEval's measures
    /// read annotations (by position); empty where the votes' own order is the file's.
    pub order: Vec<Vec<usize>>,
    /// Pairs without a majority, and what was done with them (`drop` or `tie`).
    pub no_majority: usize,
    pub policy: String,
    /// The labels were read by name (categories as text): `label_names[k]` is read as k, and
    /// only their equality means anything. Empty: the labels are numbers.
    pub label_names: Vec<String>,
}

impl Annotations {
    /// Item `k`'s annotations in file order (AlpacaEval's positions): by `order` where long
    /// form placed them by annotator, else the votes as they are.
    pub fn in_file_order(&self, k: usize) -> Vec<Option<i64>> {
        match self.order.get(k).filter(|o| !o.is_empty()) {
            Some(order) => order.iter().map(|&a| self.votes[k][a]).collect(),
            None => self.votes[k].clone(),
        }
    }
}

/// `{examples, rated, ties, no_verdict, cut_off, call_failures}`; rated + no_verdict + cut_off
/// + call_failures = examples.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    pub examples: usize,
    pub rated: usize,
    pub ties: usize,
    pub no_verdict: usize,
    pub call_failures: usize,
    /// Items whose answers were all cut off while thinking.
    pub cut_off: usize,
    /// Items never asked (the run stopped first): not among `examples`.
    #[serde(skip_serializing_if = "is_zero")]
    pub not_asked: usize,
    /// Items asked that have no gold label: rated, not among `examples`.
    #[serde(skip_serializing_if = "is_zero")]
    pub unlabelled: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The headline metrics under one parse-failure policy.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Headline {
    pub n: u64,
    pub accuracy: f64,
    pub kappa: f64,
    pub kappa_quadratic: f64,
}

/// The wrong answer for an item without a verdict under `as-wrong`.
pub fn wrong_for(gold: i64) -> i64 {
    if gold == 0 {
        1
    } else {
        -gold
    }
}

/// Counts of outcomes.
pub fn counts<'a>(outcomes: impl IntoIterator<Item = &'a Outcome>) -> Counts {
    let mut c = Counts::default();
    for o in outcomes {
        c.examples += usize::from(*o != Outcome::NotAsked);
        match o {
            Outcome::Rated(v) => {
                c.rated += 1;
                c.ties += usize::from(*v == 0);
            }
            Outcome::NoVerdict => c.no_verdict += 1,
            Outcome::CutOff => c.cut_off += 1,
            Outcome::CallFailed => c.call_failures += 1,
            Outcome::NotAsked => c.not_asked += 1,
        }
    }
    c
}

/// The contingency table on `labels`, which every gold and rating of a record takes (an
/// empty table otherwise, which the record's readers rule out).
pub fn table_on(labels: &Labels, gold: &[i64], rating: &[i64]) -> Contingency {
    table_of(labels, gold.iter().copied().zip(rating.iter().copied()))
}

/// `table_on` of (gold, rating) pairs as they come.
pub fn table_of(labels: &Labels, pairs: impl IntoIterator<Item = (i64, i64)>) -> Contingency {
    Contingency::tabulate(labels, pairs).unwrap_or_else(|_| {
        let k = labels.as_slice().len();
        Contingency::from_counts(labels.clone(), vec![0; k * k])
    })
}

/// The wrong answer for an item without a verdict under `as-wrong`, on `labels`: the pairwise
/// rule (`wrong_for`), else the label furthest from gold.
pub fn wrong_on(labels: &Labels, gold: i64) -> i64 {
    if labels.is_pairwise() {
        return wrong_for(gold);
    }
    let set = labels.as_slice();
    let (low, high) = (set[0], set[set.len() - 1]);
    if gold - low >= high - gold {
        low
    } else {
        high
    }
}

pub fn headline(gold: &[i64], rating: &[i64]) -> Headline {
    headline_on(&Labels::pairwise(), gold, rating)
}

/// `headline` on `labels`.
pub fn headline_on(labels: &Labels, gold: &[i64], rating: &[i64]) -> Headline {
    headline_of(table_on(labels, gold, rating))
}

/// The headline metrics of a table.
pub fn headline_of(table: Contingency) -> Headline {
    let a = Agreement::of(table);
    Headline {
        n: a.n,
        accuracy: a.get(Statistic::Accuracy),
        kappa: a.get(Statistic::Kappa),
        kappa_quadratic: a.get(Statistic::KappaQuadratic),
    }
}

/// What a cost is counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CostUnit {
    /// Dollars, from `--price` (every configuration that calls a judge needs one).
    Usd,
    /// Prompt and completion tokens (the thinking's among them).
    Tokens,
    /// The judge's time: its requests' latencies, added up.
    Seconds,
    /// Requests sent (samples asked together with `n` are one request).
    Requests,
}

impl CostUnit {
    pub const NAMES: [&'static str; 4] = ["usd", "tokens", "seconds", "requests"];

    pub fn key(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// A configuration's cost in this unit (None: dollars without a price).
    pub fn of(self, c: &Cost) -> Option<f64> {
        match self {
            CostUnit::Usd => c.usd,
            CostUnit::Tokens => Some((c.tokens_in + c.tokens_out) as f64),
            CostUnit::Seconds => c.request_seconds,
            CostUnit::Requests => Some(c.requests.unwrap_or(c.calls) as f64),
        }
    }
}

impl std::str::FromStr for CostUnit {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "usd" => Ok(CostUnit::Usd),
            "tokens" => Ok(CostUnit::Tokens),
            "seconds" => Ok(CostUnit::Seconds),
            "requests" => Ok(CostUnit::Requests),
            _ => Err(format!(
                "unknown cost unit '{s}'; units are {}",
                Self::NAMES.join(", ")
            )),
        }
    }
}

/// How the frontier is drawn and tested.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostSettings {
    /// The headline metric (`--sort`).
    pub metric: Statistic,
    /// `--cost-unit`; None: dollars when every judged configuration has a price, else tokens,
    /// else requests (a judge that reports no tokens).
    pub unit: Option<CostUnit>,
    /// δ, on the headline metric.
    pub margin: f64,
}

impl Default for CostSettings {
    fn default() -> Self {
        Self {
            metric: Statistic::KappaQuadratic,
            unit: None,
            margin: DEFAULT_MARGIN,
        }
    }
}

/// `--margin`'s default.
pub const DEFAULT_MARGIN: f64 = 0.02;

/// Records for the unit tests of this module and its children.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;
    use crate::dataset::examples::Order;
    use crate::evaluation::items::ItemRow;

    /// Item `i` of subset "s", shown as in the source.
    pub fn item(i: usize, gold: i64) -> ItemRow {
        ItemRow {
            id: format!("s-{i}").into(),
            pair_id: format!("s-{i}").into(),
            subset: "s".into(),
            order: Order::AsSource,
            gold: Some(gold),
            seeded: true,
        }
    }
    /// A basic-rater configuration with these outcomes.
    pub fn config(name: &str, outcomes: Vec<Outcome>) -> ConfigRecord {
        ConfigRecord {
            name: name.into(),
            prompt: "p".into(),
            rater: "basic".into(),
            kind: Some(crate::raters::RaterKind::Basic),
            judge: "j".into(),
            simulated: false,
            outcomes,
            cost: Cost::default(),
            reasons: Vec::new(),
            pointwise: None,
            samples: None,
            probability: None,
            jury: None,
        }
    }
}
