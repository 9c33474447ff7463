//! The cost analysis (`evaluation::cost`) as the answer's line, a terminal table of what each
//! configuration cost beside its metric, tidy CSV rows, and report.html's scatter with the
//! frontier. `configs[i].cost` and `cost_frontier` serialize the result types.

use crate::evaluation::cost::{ConfigCost, CostUnit, Frontier, NonInferior};
use crate::evaluation::Cost;
use crate::evaluation::Evaluated;
use crate::report::calibrate::section::{key, Figure, Place, Section, View};
use crate::report::media::csv::TidyRows;
use crate::report::media::format::{statistic_name, thousands};
use crate::report::media::table::Table;

/// A cost in its unit, as a person reads it.
pub fn amount(unit: CostUnit, x: f64) -> String {
    match unit {
        CostUnit::Tokens => format!("{} tokens", figure(unit, x)),
        CostUnit::Requests => format!("{} requests", figure(unit, x)),
        _ => figure(unit, x),
    }
}

/// A cost as a table cell: dollars and seconds with their sign, counts bare (the table's
/// title names the unit).
fn figure(unit: CostUnit, x: f64) -> String {
    match unit {
        CostUnit::Usd if x == 0.0 => "$0".into(),
        CostUnit::Usd if x < 0.01 => format!("${x:.5}"),
        CostUnit::Usd => format!("${x:.2}"),
        CostUnit::Tokens | CostUnit::Requests => thousands(x.round() as u64),
        CostUnit::Seconds => format!("{x:.1} s"),
    }
}

fn ratio(t: &NonInferior) -> String {
    match t.ratio {
        Some(r) => format!("{r:.1}× cheaper than the best"),
        None => "free, where the best is not,".into(),
    }
}

/// The two-sided level of a non-inferiority test's interval, 1 − 2α (90% at α = 0.05): its
/// upper end is the one-sided 1 − α bound.
fn two_sided(f: &Frontier) -> String {
    crate::report::media::format::level(1.0 - 2.0 * f.alpha)
}

fn difference(t: &NonInferior, f: &Frontier) -> String {
    match t.ci {
        Some([lo, hi]) => format!(
            "difference {:+.3}, {} interval [{:+.3}, {:+.3}]",
            t.difference + 0.0,
            two_sided(f),
            lo + 0.0,
            hi + 0.0
        ),
        None => format!("difference {:+.3}, no interval", t.difference + 0.0),
    }
}

/// `configs[i].cost`: the new figures beside the counts the document always had, and the
/// share of the token budget spent thinking.
#[derive(serde::Serialize)]
struct CostJson {
    #[serde(flatten)]
    cost: ConfigCost,
    calls: u64,
    cache_hits: u64,
    tokens_in: u64,
    tokens_out: u64,
    tokens_reasoning: u64,
    wall_seconds: f64,
    reasoning_share_of_budget: f64,
}

/// `configs[i].cost`, with the share of the token budget spent thinking (the ranking's), of
/// a configuration that cost `c` over `items` items (or rows).
pub fn config_json(c: &Cost, items: usize, reasoning_share: f64) -> serde_json::Value {
    serde_json::to_value(CostJson {
        cost: ConfigCost::of(c, items),
        calls: c.calls,
        cache_hits: c.cache_hits,
        tokens_in: c.tokens_in,
        tokens_out: c.tokens_out,
        tokens_reasoning: c.tokens_reasoning,
        wall_seconds: c.wall_seconds,
        reasoning_share_of_budget: reasoning_share,
    })
    .unwrap_or_default()
}

/// What the cost outputs read, whatever the form: the frontier, the name of the metric it is
/// drawn on, the items (or rows) rated and each configuration's cost, in the run's order.
#[derive(Debug)]
pub struct Costs<'a> {
    pub frontier: Option<&'a Frontier>,
    pub metric: &'a str,
    pub items: usize,
    pub costs: Vec<&'a Cost>,
}

impl<'a> Costs<'a> {
    /// A run over pairs': the frontier on its sort metric.
    fn of_run(run: &'a Evaluated<'a>) -> Self {
        Self {
            frontier: run.evaluation.of_run::<Frontier>(),
            metric: statistic_name(run.sort),
            items: run.record.items.len(),
            costs: run.record.configs.iter().map(|c| &c.cost).collect(),
        }
    }
}

/// The answer's line: the cheapest configuration not worse than the best by more than the
/// margin, or that none is shown to be.
pub fn answer(costs: &Costs) -> Vec<String> {
    let Some(f) = costs.frontier else {
        return Vec::new();
    };
    let metric = costs.metric;
    let best = format!("{} ({})", f.best, amount(f.unit, f.best_cost));
    let one_sided = crate::report::media::format::level(1.0 - f.alpha);
    match &f.cheapest_non_inferior {
        Some(t) => vec![format!(
            "Cheapest as good: {} ({}) is {} {best} and not worse on {metric} by more than {} ({}; non-inferiority, one-sided {one_sided}).",
            t.name,
            amount(f.unit, t.cost),
            ratio(t),
            f.margin,
            difference(t, f)
        )],
        None if f.tests.is_empty() => Vec::new(),
        None => {
            let t = &f.tests[0];
            vec![format!(
                "No cheaper configuration is shown to be within {} of the best, {best}, on {metric}: the nearest cheaper one, {} ({}), has {} (non-inferiority, one-sided {one_sided}).",
                f.margin,
                t.name,
                amount(f.unit, t.cost),
                difference(t, f)
            )]
        }
    }
}

/// What each configuration cost beside its metric, cheapest first, the frontier marked.
pub fn table(costs: &Costs) -> Option<Table> {
    let f = costs.frontier?;
    let metric = costs.metric;
    let unit = match f.unit {
        CostUnit::Usd => "dollars",
        CostUnit::Tokens => "tokens",
        CostUnit::Seconds => "seconds of requests",
        CostUnit::Requests => "requests",
    };
    let mut t = Table::new(
        format!(
            "Cost and agreement, cheapest first (cost in {unit}; * on the frontier: nothing cheaper is as good; vs best: best − it on the items both rated, {} interval)",
            two_sided(f)
        ),
        &[
            "configuration",
            metric,
            "cost",
            "per 1000",
            "s/1000",
            "requests",
            "cached",
            "vs best",
        ],
    );
    let items = costs.items;
    for p in &f.points {
        let c = ConfigCost::of(costs.costs[p.index], items);
        let per_1000 = if items > 0 {
            figure(f.unit, p.cost * 1000.0 / items as f64)
        } else {
            "n/a".into()
        };
        let vs = if p.index == f.best_index {
            "best".to_string()
        } else {
            f.tests
                .iter()
                .find(|t| t.index == p.index)
                .map_or(String::new(), |t| {
                    let mark = if t.non_inferior { " ✓" } else { "" };
                    match t.ci {
                        Some([lo, hi]) => format!(
                            "{:+.3} [{:+.3}, {:+.3}]{mark}",
                            t.difference + 0.0,
                            lo + 0.0,
                            hi + 0.0
                        ),
                        None => format!("{:+.3}{mark}", t.difference + 0.0),
                    }
                })
        };
        t.rows.push(vec![
            format!("{}{}", if p.frontier { "* " } else { "  " }, p.name),
            crate::report::media::format::fixed(p.value),
            figure(f.unit, p.cost),
            per_1000,
            c.seconds_per_1000
                .map_or("n/a".into(), |s| format!("{s:.1}")),
            c.requests.map_or("n/a".into(), thousands),
            thousands(c.cached),
            vs,
        ]);
    }
    t.secondary = vec![4, 5, 6];
    t.notes.push(format!(
        "✓ not worse than the best by more than {} on {metric} (the interval's upper end, the one-sided {} bound, below it); the frontier is tested from the best down, stopping at the first that fails. Cached answers count what they cost when first paid.",
        f.margin,
        crate::report::media::format::level(1.0 - f.alpha)
    ));
    if !f.left_out.is_empty() {
        t.notes.push(format!(
            "Left out (no {} or no {metric}): {}",
            if f.unit == CostUnit::Usd {
                "--price for the model"
            } else {
                "cost"
            },
            f.left_out.join(", ")
        ));
    }
    if !f.not_ranked.is_empty() {
        t.notes.push(format!(
            "Not ranked, so not on the chart (dropped by the race, or too few readable answers): {}",
            f.not_ranked.join(", ")
        ));
    }
    Some(t)
}

/// metrics.csv rows: each configuration's cost, and (scope `cost_frontier`) its test.
pub fn tidy(rows: &mut TidyRows, costs: &Costs, i: usize) {
    let c = ConfigCost::of(costs.costs[i], costs.items);
    let n = costs.items as u64;
    for (key, v) in [
        ("usd", c.usd),
        ("usd_per_1000", c.usd_per_1000),
        ("seconds_per_1000", c.seconds_per_1000),
        ("prompt_tokens", Some(c.prompt_tokens as f64)),
        ("completion_tokens", Some(c.completion_tokens as f64)),
        ("reasoning_tokens", Some(c.reasoning_tokens as f64)),
        ("requests", c.requests.map(|r| r as f64)),
        ("cached", Some(c.cached as f64)),
    ] {
        if let Some(v) = v {
            rows.push("cost", n, key, v, None);
        }
    }
    let Some(f) = costs.frontier else {
        return;
    };
    if let Some(p) = f.points.iter().find(|p| p.index == i) {
        rows.push("cost_frontier", n, f.unit.key(), p.cost, None);
        rows.push(
            "cost_frontier",
            n,
            "on_frontier",
            f64::from(u8::from(p.frontier)),
            None,
        );
    }
    if let Some(t) = f.tests.iter().find(|t| t.index == i) {
        rows.push(
            "cost_frontier",
            t.n,
            "difference_from_best",
            t.difference,
            t.ci.map(|[lo, hi]| (lo, hi)),
        );
        rows.push(
            "cost_frontier",
            t.n,
            "non_inferior",
            f64::from(u8::from(t.non_inferior)),
            None,
        );
    }
}

/// report.html's figure: each configuration's metric against its cost, the frontier drawn.
pub fn svg(costs: &Costs) -> anyhow::Result<Option<(String, String)>> {
    let Some(f) = costs.frontier else {
        return Ok(None);
    };
    let metric = costs.metric;
    let points: Vec<(String, f64, f64, bool)> = f
        .points
        .iter()
        .map(|p| (p.name.clone(), p.cost, p.value, p.frontier))
        .collect();
    let x = match f.unit {
        CostUnit::Usd => "cost (dollars)",
        CostUnit::Tokens => "cost (tokens)",
        CostUnit::Seconds => "cost (seconds of requests)",
        CostUnit::Requests => "cost (requests)",
    };
    let svg = crate::report::media::svg::points::frontier_svg(x, metric, &points)?;
    Ok(Some((
        format!(
            "{metric} against cost: the frontier joins the configurations nothing cheaper beats"
        ),
        svg,
    )))
}

/// report.html's and plots/' `cost.svg`.
pub fn figure_of(costs: &Costs) -> anyhow::Result<Vec<Figure>> {
    Ok(svg(costs)?
        .map(|(title, svg)| Figure {
            file: "cost.svg".into(),
            title,
            svg,
        })
        .into_iter()
        .collect())
}

/// The frontier for `--json` (`cost_frontier`).
pub fn json(f: &Frontier) -> serde_json::Value {
    serde_json::to_value(f).unwrap_or(serde_json::Value::Null)
}

/// Cost's section: the frontier's table after the configurations', the answer's line, and
/// every configuration's cost in `--json` and metrics.csv.
#[derive(Debug)]
pub struct CostSection;

impl Section for CostSection {
    fn place(&self) -> Place {
        Place::Lead
    }
    fn tables(&self, run: &Evaluated, _order: &[usize], _view: View) -> Vec<Table> {
        table(&Costs::of_run(run)).into_iter().collect()
    }
    fn answer(&self, run: &Evaluated, _order: &[usize]) -> Vec<String> {
        answer(&Costs::of_run(run))
    }
    fn figures(&self, run: &Evaluated, _order: &[usize]) -> anyhow::Result<Vec<Figure>> {
        figure_of(&Costs::of_run(run))
    }
    fn run_json(&self, run: &Evaluated) -> Vec<(&'static str, serde_json::Value)> {
        key(
            "cost_frontier",
            run.evaluation
                .of_run::<crate::evaluation::cost::Frontier>()
                .map(json),
        )
    }
    fn config_json(
        &self,
        run: &Evaluated,
        _order: &[usize],
        i: usize,
    ) -> Vec<(&'static str, serde_json::Value)> {
        let c = &run.record.configs[i].cost;
        if !c.known() {
            return Vec::new();
        }
        let share = crate::report::calibrate::ranking::reasoning_share(
            c.tokens_reasoning,
            c.calls,
            run.max_tokens[i],
        );
        vec![("cost", config_json(c, run.record.items.len(), share))]
    }
    fn config_rows(&self, rows: &mut TidyRows, run: &Evaluated, i: usize) {
        if run.record.configs[i].cost.known() {
            tidy(rows, &Costs::of_run(run), i);
        }
    }
}
