//! `label --order/--queue/--judge/--stop-at`: the rule that decides which items the page asks
//! and what it says beside them (`label::queue::Asks`), made here because it needs the judge's
//! verdicts and `evaluation/`'s decisions, which the page's room does not see.
//!
//! - random: every item (or `--queue`'s), in the seeded order; with `--stop-at`, PPI++ from
//!   the labels so far (a prefix of a seeded random order is a uniform sample);
//! - pac: the first `--first-round` items of that order, then PAC labelling's threshold from
//!   their labels (`evaluation::pac`, recorded in the store once), then the items at or above
//!   it; the guarantee holds once they are labelled;
//! - active: the items `plan --active` drew, in the seeded order of all of `--queue`'s items;
//!   the active estimate is made over the items up to the first drawn one still unlabelled (a
//!   seeded random prefix of the items, so a stop at any point leaves a valid estimate; once
//!   every drawn item is labelled it is the authors' estimate over all).

use crate::dataset::frame::{self, Frame};
use crate::error::input_error;
use crate::evaluation::estimate::{estimate, EstimateSettings, Item};
use crate::evaluation::pac::{pac, PacSettings};
use crate::label::queue::{Asks, Stage, Status};
use crate::label::{current, Event, Gold};
use crate::run::labelling::{self, Order};
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

/// The labels an interval waits for before it is shown.
pub const FEWEST: usize = 10;

/// What PAC labelling decided after its first round (recorded in the store as
/// `pac-threshold`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PacDecision {
    pub epsilon: f64,
    pub alpha: f64,
    pub bound: crate::metrics::pac::Bound,
    pub first_round: usize,
    pub n_labelled: usize,
    pub threshold: Option<f64>,
    pub saved: f64,
    /// Content ids of the items at or above the threshold that the first round did not label.
    pub to_label: Vec<String>,
}

/// What decided an order (the store's `sessions.item_order`, as JSON).
#[derive(Debug, Serialize)]
struct OrderRecord {
    order: &'static str,
    seed: u64,
    queue: Option<String>,
    judge: Option<String>,
    items: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pac: Option<PacRecord>,
    /// Every item's π (content id → π).
    #[serde(skip_serializing_if = "Option::is_none")]
    label_prob: Option<std::collections::BTreeMap<String, f64>>,
}

#[derive(Debug, Serialize)]
struct PacRecord {
    epsilon: f64,
    alpha: f64,
    bound: crate::metrics::pac::Bound,
    first_round: usize,
}

/// An item of active labelling's queue.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Drawn {
    p: f64,
    pi: f64,
    drawn: bool,
}

/// The rule, over content ids.
#[derive(Debug)]
pub struct Rule {
    order: Order,
    /// `--queue` keeps to some of the data's items (else every item is the rule's).
    restricted: bool,
    /// The items the rule may ask, in the seeded queue order.
    ids: Vec<String>,
    judge: HashMap<String, i64>,
    uncertainty: HashMap<String, f64>,
    active: HashMap<String, Drawn>,
    pac: Option<(PacSettings, usize)>,
    decided: Mutex<Option<PacDecision>>,
    stop_at: Option<f64>,
    label: i64,
    alpha: f64,
}

/// A table's rows by the data's id: each row's index.
fn rows_by_id(frame: &Frame, col: &str, flag: &str) -> Result<HashMap<String, usize>> {
    let ids = frame.text(col, flag, "item id")?;
    frame.check_unique(&ids, col)?;
    Ok(ids.into_iter().enumerate().map(|(r, id)| (id, r)).collect())
}

/// The data's ids (`data_id`, content id) of the items, with the row of each in `rows`; an
/// item without a row is an error naming the first.
fn rows_of<'a>(
    items: &'a [(String, String)],
    rows: &HashMap<String, usize>,
    what: &str,
) -> Result<Vec<(&'a str, usize)>> {
    let missing: Vec<&str> = items
        .iter()
        .filter(|(data_id, _)| !rows.contains_key(data_id))
        .map(|(d, _)| d.as_str())
        .collect();
    if let Some(first) = missing.first() {
        return Err(input_error(format!(
            "{what} has no row for {} of the {} items to ask (first: id '{first}'); rate every item, or keep to the rated ones with --queue",
            missing.len(),
            items.len()
        )));
    }
    Ok(items.iter().map(|(d, c)| (c.as_str(), rows[d])).collect())
}

impl Rule {
    /// The rule for `items` (data id, content id) in the queue's seeded `order` of content ids.
    pub fn new(
        asks: &labelling::Asks,
        items: &[(String, String)],
        order: &[String],
        store: &crate::label::store::Store,
    ) -> Result<Self> {
        let mut keep: Vec<(String, String)> = items.to_vec();
        let mut active = HashMap::new();
        if let Some(path) = &asks.queue {
            let q = frame::read(path)?;
            let rows = rows_by_id(&q, "id", "--queue")?;
            let known: HashSet<&str> = items.iter().map(|(d, _)| d.as_str()).collect();
            if let Some(stray) = rows.keys().find(|id| !known.contains(id.as_str())) {
                return Err(input_error(format!(
                    "--queue '{}': id '{stray}' is not among the data's items; check --data, --subset and --limit",
                    path.display()
                )));
            }
            keep.retain(|(d, _)| rows.contains_key(d));
            let has = |c: &str| q.column_names().iter().any(|n| n == c);
            if asks.order == Order::Active {
                for c in ["p", "label_prob", "drawn"] {
                    if !has(c) {
                        return Err(input_error(format!(
                            "--queue '{}' has no column '{c}': --order active reads plan --active --out's table (id, p, label_prob, drawn)",
                            path.display()
                        )));
                    }
                }
                let p = q.probabilities("p", "--queue")?;
                let pi = q.probabilities("label_prob", "--queue")?;
                let drawn = q.text("drawn", "--queue", "draw")?;
                for (c, r) in rows_of(&keep, &rows, "--queue")? {
                    let (Some(p), Some(pi)) = (p[r], pi[r]) else {
                        return Err(input_error(format!(
                            "{}: --order active needs p and label_prob on every row",
                            q.at("label_prob", r)
                        )));
                    };
                    if pi <= 0.0 {
                        return Err(input_error(format!(
                            "{}: label_prob 0 cannot be weighted; plan --active never gives it",
                            q.at("label_prob", r)
                        )));
                    }
                    let drawn = matches!(drawn[r].trim(), "true" | "True" | "1");
                    active.insert(c.to_string(), Drawn { p, pi, drawn });
                }
            } else if has("drawn") {
                let drawn = q.text("drawn", "--queue", "draw")?;
                keep.retain(|(d, _)| matches!(drawn[rows[d]].trim(), "true" | "True" | "1"));
            }
        }
        let (mut judge, mut uncertainty) = (HashMap::new(), HashMap::new());
        if let Some(j) = &asks.judge {
            let f = frame::read(&j.path)?;
            let rows = rows_by_id(&f, &j.id_col, "--judge-id-col")?;
            let labels = f.mapped_labels_or_missing(&j.rating_col, "--rating-col", &j.rating)?;
            let u = match &j.uncertainty_col {
                Some(col) => Some(f.numbers(col, "--uncertainty-col")?),
                None => None,
            };
            for (c, r) in rows_of(&keep, &rows, &format!("--judge '{}'", j.path.display()))? {
                let Some(l) = labels[r] else {
                    return Err(input_error(format!(
                        "{}: the judge's label is missing; every item to ask needs one (keep to the rated ones with --queue)",
                        f.at(&j.rating_col, r)
                    )));
                };
                judge.insert(c.to_string(), l);
                if let (Some(u), Some(col)) = (&u, &j.uncertainty_col) {
                    let v = u[r].ok_or_else(|| {
                        input_error(format!(
                            "{}: --order pac needs the judge's uncertainty on every item",
                            f.at(col, r)
                        ))
                    })?;
                    uncertainty.insert(c.to_string(), v);
                }
            }
        }
        let kept: HashSet<&str> = keep.iter().map(|(_, c)| c.as_str()).collect();
        let ids: Vec<String> = order
            .iter()
            .filter(|c| kept.contains(c.as_str()))
            .cloned()
            .collect();
        // A threshold already decided on this store (an earlier server) stands.
        let decided = match asks.pac {
            Some(_) => store
                .decisions("pac-threshold")?
                .last()
                .and_then(|d| serde_json::from_str::<PacDecision>(d).ok()),
            None => None,
        };
        Ok(Self {
            order: asks.order,
            restricted: asks.queue.is_some(),
            pac: asks.pac.map(|s| (s, asks.first_round.min(ids.len()))),
            ids,
            judge,
            uncertainty,
            active,
            decided: Mutex::new(decided),
            stop_at: asks.stop_at,
            label: asks.estimate_label,
            alpha: asks.alpha,
        })
    }

    /// What decided the order, as the store's session records it.
    pub fn record(&self, seed: u64, asks: &labelling::Asks) -> String {
        if self.order == Order::Random && asks.queue.is_none() {
            return "random".into();
        }
        let record = OrderRecord {
            order: self.order.name(),
            seed,
            queue: asks.queue.as_ref().map(|p| p.display().to_string()),
            judge: asks.judge.as_ref().map(|j| j.path.display().to_string()),
            items: self.ids.len(),
            pac: self.pac.map(|(s, first_round)| PacRecord {
                epsilon: s.epsilon,
                alpha: s.alpha,
                bound: s.bound,
                first_round,
            }),
            label_prob: (self.order == Order::Active).then(|| {
                self.ids
                    .iter()
                    .map(|c| (c.clone(), self.active[c].pi))
                    .collect()
            }),
        };
        serde_json::to_string(&record).unwrap_or_default()
    }

    /// PPI++ over the rule's items, the labelled ones those `counted` with gold (None before
    /// `FEWEST` of them).
    fn corrected(
        &self,
        gold: &dyn Fn(&str) -> Option<i64>,
        counted: &dyn Fn(&str) -> bool,
    ) -> Option<[f64; 3]> {
        let items: Vec<Item> = self
            .ids
            .iter()
            .map(|c| Item::label(gold(c).filter(|_| counted(c)), self.judge[c]))
            .collect();
        if items.iter().filter(|i| i.gold.is_some()).count() < FEWEST {
            return None;
        }
        let e = estimate(
            &items,
            EstimateSettings {
                label: self.label,
                alpha: self.alpha,
            },
        );
        let i = e.mean.ppi_plus.map(|t| t.interval).or(e.mean.humans)?;
        Some([i.estimate, i.ci[0], i.ci[1]])
    }

    /// The active estimate over the items up to the first drawn one without gold.
    fn active_estimate(
        &self,
        gold: &dyn Fn(&str) -> Option<i64>,
    ) -> (Option<[f64; 3]>, usize, bool) {
        let mut p = Vec::new();
        let mut y = Vec::new();
        let mut pi = Vec::new();
        let mut whole = true;
        for c in &self.ids {
            let d = self.active[c];
            let g = gold(c);
            if d.drawn && g.is_none() {
                whole = false;
                break;
            }
            p.push(d.p);
            pi.push(d.pi);
            y.push(g.filter(|_| d.drawn).map(|g| f64::from(u8::from(g == 1))));
        }
        if y.iter().flatten().count() < FEWEST {
            return (None, p.len(), whole);
        }
        let m = crate::metrics::active::estimate(&p, &y, &pi, self.alpha);
        (Some([m.estimate, m.ci.0, m.ci.1]), p.len(), whole)
    }

    /// The status line of an interval against `--stop-at`.
    fn interval_status(&self, stage: String, what: &str, interval: Option<[f64; 3]>) -> Status {
        let level = format!("{:.0}%", 100.0 * (1.0 - self.alpha));
        let (text, enough) = match (interval, self.stop_at) {
            (None, _) => (
                format!("{what}: no estimate before {FEWEST} labels (a normal interval from fewer means little)"),
                false,
            ),
            (Some([e, lo, hi]), target) => {
                let width = hi - lo;
                // A zero width is every label alike, not certainty.
                let enough = target.is_some_and(|w| width <= w) && width > 0.0;
                let verdict = match target {
                    // PAC's labels need both rounds, whatever the estimate's width.
                    Some(w) if enough && self.order == Order::Pac => format!(
                        " · narrow enough for the estimate (≤ {w}); the PAC labels need both rounds"
                    ),
                    Some(w) if enough => {
                        format!(" · narrow enough (≤ {w}): you may stop; the page stays open")
                    }
                    Some(_) if width == 0.0 => {
                        " · a zero width: every label alike so far, which says nothing yet; keep going".into()
                    }
                    Some(w) => format!(" · target width {w}: keep going"),
                    None => String::new(),
                };
                (
                    format!("{what}: {e:.3} [{lo:.3}, {hi:.3}] ({level}, width {width:.3}){verdict}"),
                    enough && self.order != Order::Pac,
                )
            }
        };
        Status {
            stage,
            text,
            interval,
            target: self.stop_at,
            enough,
        }
    }

    fn label_name(&self) -> String {
        let side = match self.label {
            -1 => " (response 1 better)",
            0 => " (tie)",
            1 => " (response 2 better)",
            _ => "",
        };
        format!("Share of label {}{side}", self.label)
    }

    fn pac_stage(
        &self,
        gold: &dyn Fn(&str) -> Option<i64>,
        labelled: &dyn Fn(&str) -> bool,
    ) -> Stage {
        let Some((s, n1)) = self.pac else {
            return Stage::default();
        };
        let first: HashSet<&str> = self.ids[..n1].iter().map(String::as_str).collect();
        let in_first = |c: &str| first.contains(c);
        let mut decided_now = Vec::new();
        let mut guard = self
            .decided
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if guard.is_none() && first.iter().all(|c| labelled(c)) {
            let golds: Vec<Option<i64>> = self.ids.iter().map(|c| gold(c)).collect();
            let flags: Vec<bool> = self
                .ids
                .iter()
                .zip(&golds)
                .map(|(c, g)| in_first(c) && g.is_some())
                .collect();
            let judge: Vec<i64> = self.ids.iter().map(|c| self.judge[c]).collect();
            let u: Vec<f64> = self.ids.iter().map(|c| self.uncertainty[c]).collect();
            let r = pac(&self.ids, &judge, (&golds, &flags), &u, &s);
            let d = PacDecision {
                epsilon: r.epsilon,
                alpha: r.alpha,
                bound: r.bound,
                first_round: n1,
                n_labelled: r.n_labelled,
                threshold: r.threshold,
                saved: r.saved,
                to_label: r.to_label,
            };
            decided_now.push((
                "pac-threshold".to_string(),
                serde_json::to_string(&d).unwrap_or_default(),
            ));
            *guard = Some(d);
        }
        let Some(d) = guard.clone() else {
            let done = first.iter().filter(|c| labelled(c)).count();
            let mut status = self.interval_status(
                "PAC labelling: round 1 of 2".into(),
                &self.label_name(),
                self.stop_at.and_then(|_| self.corrected(gold, &in_first)),
            );
            status.text = format!(
                "{done} of {n1} uniform first-round items labelled; their labels set the threshold. {}",
                if self.stop_at.is_some() { status.text.clone() } else { String::new() }
            )
            .trim_end()
            .to_string();
            return Stage {
                asked: Some(first.iter().map(|c| c.to_string()).collect()),
                status: Some(status),
                decided: decided_now,
            };
        };
        let second: Vec<&String> = d.to_label.iter().filter(|c| !in_first(c)).collect();
        let done = second.iter().filter(|c| labelled(c)).count();
        let holds = done == second.len();
        let bound = match d.threshold {
            Some(t) => format!("uncertainty ≥ {t}: {} items go to a human", second.len()),
            None => "no threshold holds the bound: every item goes to a human".into(),
        };
        let text = if holds {
            format!(
                "The PAC guarantee holds: the labels' error is at most ε = {} with probability at least {:.0}% ({bound}; the judge keeps {:.1}% of the items). You may stop.",
                d.epsilon,
                100.0 * (1.0 - d.alpha),
                100.0 * d.saved
            )
        } else {
            format!("{bound}; {done} of {} labelled", second.len())
        };
        Stage {
            asked: Some(
                first
                    .iter()
                    .map(|c| c.to_string())
                    .chain(second.iter().map(|c| c.to_string()))
                    .collect(),
            ),
            status: Some(Status {
                stage: "PAC labelling: round 2 of 2".into(),
                text,
                interval: None,
                target: None,
                enough: holds,
            }),
            decided: decided_now,
        }
    }
}

impl Asks for Rule {
    fn stage(&self, events: &[Event]) -> Stage {
        let labels = current(events);
        let g = Gold::of(&labels);
        let gold = |c: &str| g.of_item(c).and_then(|(_, v)| v);
        let labelled = |c: &str| g.votes.contains_key(c);
        match self.order {
            Order::Random => Stage {
                asked: self.restricted.then(|| self.ids.iter().cloned().collect()),
                status: self.stop_at.map(|_| {
                    self.interval_status(
                        "Corrected estimate (PPI++)".into(),
                        &self.label_name(),
                        self.corrected(&gold, &|_| true),
                    )
                }),
                decided: Vec::new(),
            },
            Order::Active => {
                let (interval, n, whole) = self.active_estimate(&gold);
                let mut status =
                    self.interval_status("Active estimate".into(), "Share of label 1", interval);
                status.text = format!(
                    "{} (over {n} of {} items{})",
                    status.text,
                    self.ids.len(),
                    if whole {
                        ", every drawn item labelled"
                    } else {
                        ""
                    }
                );
                Stage {
                    asked: Some(
                        self.ids
                            .iter()
                            .filter(|c| self.active[*c].drawn)
                            .cloned()
                            .collect(),
                    ),
                    status: Some(status),
                    decided: Vec::new(),
                }
            }
            Order::Pac => self.pac_stage(&gold, &labelled),
        }
    }
}
