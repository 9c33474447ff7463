//! The registry of analytics: one line per analytic registers its evaluation, and `evaluate`
//! runs every registered one. The commands that evaluate a record (`calibrate`, `report DIR`,
//! `plan`) call it; `report/` renders what it found (each analytic's section, registered in
//! `report/calibrate/sections.rs`) and evaluates nothing.

use super::{Analytic, EvalSettings, Evaluation, RunRecord};

/// Every analytic, in the order they run.
pub const ANALYTICS: &[&dyn Analytic] = &[
    &super::jury::JuryAnalytic,
    &super::rmbench::RmBenchAnalytic,
    &super::systems::SystemsAnalytic,
    &super::probability::ProbabilityAnalytic,
    &super::cost::CostAnalytic,
    &super::groups::GroupsAnalytic,
    &super::bias::BiasAnalytic,
    &super::consistency::ConsistencyAnalytic,
    &super::evaluator::EvaluatorAnalytic,
    &super::annotators::AnnotatorsAnalytic,
    &super::estimate::EstimateAnalytic,
];

/// The record's evaluation with every registered analytic.
pub fn evaluate(record: &RunRecord, settings: EvalSettings) -> Evaluation {
    super::evaluate(record, settings, ANALYTICS)
}
