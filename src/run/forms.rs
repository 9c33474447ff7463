//! What differs between the data's forms where every command treats them alike: which plan
//! defaults a form takes, how it is described, and the items each configuration of a plan
//! rates (`Layout`). `calibrate`'s session and `batch export` lay a plan out here, so both rate
//! (or write) the same calls for either form.

use crate::dataset::examples::Example;
use crate::dataset::rewardbench2::items::RowItems;
use crate::dataset::rewardbench2::Shown;
use crate::error::input_error;
use crate::raters::rewardbench2::{
    check_rows, items as rewardbench2_items, ties_config, ties_items, Protocol,
};
use crate::raters::Config;
use crate::run::data::{Dataset, Rb2Set, Rows};
use crate::run::judges;
use crate::run::record::Form;
use anyhow::Result;

/// The items a plan's configurations rate: each part's configuration (as called) and items.
#[derive(Debug)]
pub struct Layout<'a> {
    items: Items<'a>,
    /// One per part: the plan's configuration it belongs to, as called, and its items' kind.
    pub specs: Vec<PartSpec>,
}

/// Where the parts' items are: the data's pairs, or RewardBench 2's items made for the plan.
#[derive(Debug)]
enum Items<'a> {
    Pairs(&'a [Example]),
    RewardBench2(Rb2Items),
}

impl Layout<'_> {
    /// The items of a part.
    pub fn items(&self, spec: &PartSpec) -> &[Example] {
        match &self.items {
            Items::Pairs(examples) => examples,
            Items::RewardBench2(items) => &items.of(spec.kind).examples,
        }
    }

    /// RewardBench 2's items (none for pairs), for folding ratings back into rows.
    pub fn rewardbench2(&self) -> Option<&Rb2Items> {
        match &self.items {
            Items::Pairs(_) => None,
            Items::RewardBench2(items) => Some(items),
        }
    }

    /// Every part as the raters take it.
    pub fn parts(&self) -> Vec<crate::raters::Part<'_>> {
        self.specs
            .iter()
            .map(|s| (&s.config, self.items(s)))
            .collect()
    }
}

/// What a form's data is, as a plan and a manifest describe it.
#[derive(Debug, Clone)]
pub struct Described {
    pub source: String,
    /// Examples (pairs) or rows (RewardBench 2).
    pub examples: usize,
    pub seed: u64,
}

impl Rows {
    /// The plan defaults this form takes.
    pub fn form(&self) -> Form {
        match self {
            Rows::Pairs(_) => Form::Pairs,
            Rows::RewardBench2(_) => Form::RewardBench2,
        }
    }

    pub fn described(&self) -> Described {
        match self {
            Rows::Pairs(d) => Described {
                source: d.source.clone(),
                examples: d.examples.len(),
                seed: d.seed,
            },
            Rows::RewardBench2(set) => Described {
                source: set.source.clone(),
                examples: set.rows.len(),
                seed: set.seed,
            },
        }
    }

    /// The plan's configurations checked against the data and laid out in parts: on pairs
    /// every configuration rates every example; on RewardBench 2 rows each its protocol's
    /// items, then its Ties rows by ratings (`layout` below).
    pub fn layout(&self, configs: &[Config], both_orders: bool) -> Result<Layout<'_>> {
        match self {
            Rows::Pairs(d) => d.layout(configs),
            Rows::RewardBench2(set) => set.layout(configs, both_orders),
        }
    }
}

impl Dataset {
    /// Every configuration rates every example, each configuration checked against them.
    pub fn layout(&self, configs: &[Config]) -> Result<Layout<'_>> {
        crate::run::judges::check_configs(configs, &self.examples)?;
        Ok(Layout {
            items: Items::Pairs(&self.examples),
            specs: configs
                .iter()
                .enumerate()
                .map(|(of, config)| PartSpec {
                    of,
                    config: config.clone(),
                    kind: None,
                })
                .collect(),
        })
    }
}

impl Rb2Set {
    /// Each configuration's protocol items, then its Ties rows by ratings.
    pub fn layout(&self, configs: &[Config], both_orders: bool) -> Result<Layout<'_>> {
        let (items, specs) = layout(configs, &self.rows, both_orders)?;
        Ok(Layout {
            items: Items::RewardBench2(items),
            specs,
        })
    }
}

/// The items the configurations of a plan rate on RewardBench 2 rows: each protocol's rows
/// outside Ties (made once per protocol), and the Ties rows, which every configuration rates
/// by ratings.
#[derive(Debug)]
pub struct Rb2Items {
    ties: RowItems,
    mains: Vec<(Protocol, RowItems)>,
}

impl Rb2Items {
    /// A protocol's items, or Ties' (None).
    pub fn of(&self, kind: Option<Protocol>) -> &RowItems {
        kind.and_then(|p| self.mains.iter().find(|m| m.0 == p))
            .map_or(&self.ties, |m| &m.1)
    }
}

/// What one part of a plan rates, on either form (`run::forms::Layout` holds its items).
#[derive(Debug)]
pub struct PartSpec {
    /// The plan's configuration it belongs to.
    pub of: usize,
    /// As called (a RewardBench 2 Ties part's with the Ties prompt).
    pub config: Config,
    /// RewardBench 2: the protocol whose items it rates, None for the Ties rows; pairs: None
    /// (every part rates the data's examples).
    pub kind: Option<Protocol>,
}

/// Checks a plan against the rows (no baselines; a four-way prompt needs four completions;
/// each judge fits its items) and lays out its parts: each configuration's rows outside Ties
/// by its protocol, then its Ties rows by ratings, parts without items left out.
/// `calibrate` rates them, `batch export` writes their calls.
pub fn layout(
    configs: &[Config],
    rows: &[Shown],
    both_orders: bool,
) -> Result<(Rb2Items, Vec<PartSpec>)> {
    if let Some(c) = configs.iter().find(|c| c.rater.is_baseline()) {
        return Err(input_error(format!(
            "rater '{}' of '{}' is a baseline for pairs; RewardBench 2 rows take basic or sc:N raters",
            c.rater, c.name
        )));
    }
    let mut items = Rb2Items {
        ties: ties_items(rows),
        mains: Vec::new(),
    };
    for config in configs {
        check_rows(config, rows)?;
        let protocol = Protocol::of_config(config);
        if !items.mains.iter().any(|m| m.0 == protocol) {
            items
                .mains
                .push((protocol, rewardbench2_items(protocol, rows, both_orders)));
        }
    }
    let mut specs = Vec::new();
    for (of, config) in configs.iter().enumerate() {
        let protocol = Protocol::of_config(config);
        judges::check_configs(
            std::slice::from_ref(config),
            &items.of(Some(protocol)).examples,
        )?;
        for (config, kind) in [
            (config.clone(), Some(protocol)),
            (ties_config(config)?, None),
        ] {
            if !items.of(kind).examples.is_empty() {
                specs.push(PartSpec { of, config, kind });
            }
        }
    }
    Ok((items, specs))
}
