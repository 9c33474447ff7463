//! What differs between the data's forms where every command treats them alike: which plan
//! defaults a form takes, how it is described, and the items each configuration of a plan
//! rates (`Layout`). `calibrate`'s session and `batch export` lay a plan out here, so both rate
//! (or write) the same calls for either form.

use crate::dataset::examples::Example;
use crate::raters::Config;
use crate::run::data::{Dataset, Rb2Set, Rows};
use crate::run::plan::Form;
use crate::run::rewardbench2::{layout, PartSpec, Rb2Items};
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
    /// items, then its Ties rows by ratings (`run::rewardbench2::layout`).
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
