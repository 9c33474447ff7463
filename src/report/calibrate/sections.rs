//! The sections of the registry of analytics (`evaluation::registry`'s `analytics!`, one line
//! per analytic naming its evaluation and its section): the outputs reach the analytics'
//! results only through them.

use crate::evaluation::Evaluated;
use crate::report::calibrate::section::{Figure, Place, Section, View};
use crate::report::media::table::Table;
use anyhow::Result;
use serde_json::Value;
use std::collections::BTreeMap;

/// The list's sections, in its order.
macro_rules! sections {
    (@kept [$($kept:tt)*]) => { &[$($kept)*] };
    (@kept [$($kept:tt)*] $file:ident :: $analytic:ident => $($section:ident)::+; $($rest:tt)*) => {
        sections!(@kept [$($kept)* &crate::report::$($section)::+,] $($rest)*)
    };
    ($($entries:tt)*) => { sections!(@kept [] $($entries)*) };
}

/// Every analytic's section, in the order the outputs show them (within a `Place`).
pub const SECTIONS: &[&dyn Section] = crate::analytics!(sections);

/// The sections' tables at `place`, in the registry's order.
pub fn tables_at(run: &Evaluated, order: &[usize], place: Place, view: View) -> Vec<Table> {
    SECTIONS
        .iter()
        .filter(|s| s.place() == place)
        .flat_map(|s| s.tables(run, order, view))
        .collect()
}

/// The sections' figures, in the registry's order.
pub fn figures(run: &Evaluated, order: &[usize]) -> Result<Vec<Figure>> {
    let mut out = Vec::new();
    for s in SECTIONS {
        out.extend(s.figures(run, order)?);
    }
    Ok(out)
}

/// The sections' keys of one JSON object, gathered from `part` of each section. Two sections
/// never write one key (checked in the tests' debug builds, which run every section).
pub fn json_keys(
    part: impl Fn(&dyn Section) -> Vec<(&'static str, Value)>,
) -> BTreeMap<&'static str, Value> {
    let mut keys = BTreeMap::new();
    for (key, value) in SECTIONS.iter().flat_map(|s| part(*s)) {
        let earlier = keys.insert(key, value);
        debug_assert!(earlier.is_none(), "two sections write the JSON key '{key}'");
    }
    keys
}
