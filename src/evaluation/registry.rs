//! The registry of analytics: one line per analytic (`analytics!`) registers its evaluation and
//! its report section together, and `evaluate` runs every registered evaluation. The commands
//! that evaluate a record (`calibrate`, `report DIR`, `analyze`, `plan`) call it; `report/`
//! renders what it found (`report/calibrate/sections.rs` expands the same list into its
//! sections) and evaluates nothing.

use super::{Analytic, EvalSettings, Evaluation, RunRecord};

/// Every analytic, one line each, in the order they show (they run side by side, their results
/// kept in this order): its evaluation (a type of
/// `evaluation/<file>.rs`) `=>` its section (a type of `report/<path>.rs`). The
/// macro hands the list to `$expand`, which keeps its part: `evaluations` below keeps the
/// evaluations, `report::calibrate::sections` the sections. The evaluation names no section:
/// the section's part is tokens it drops, so it depends on nothing above it.
#[macro_export]
macro_rules! analytics {
    ($expand:ident) => {
        $expand! {
            jury::JuryAnalytic => calibrate::jury::JurySection;
            rmbench::RmBenchAnalytic => calibrate::rmbench::RmBenchSection;
            rewardbench2::Rb2Analytic => calibrate::rewardbench2::Rb2Section;
            systems::SystemsAnalytic => calibrate::systems::SystemsSection;
            probability::ProbabilityAnalytic => calibrate::probability::ProbabilitySection;
            cost::CostAnalytic => calibrate::cost::CostSection;
            depth::DepthAnalytic => calibrate::depth::DepthSection;
            groups::GroupsAnalytic => calibrate::groups::GroupsSection;
            bias::BiasAnalytic => calibrate::bias::BiasSection;
            consistency::ConsistencyAnalytic => calibrate::consistency::ConsistencySection;
            evaluator::EvaluatorAnalytic => evaluator::EvaluatorSection;
            annotators::AnnotatorsAnalytic => annotators::AnnotatorsSection;
            alt_test::AltTestAnalytic => alt_test::AltTestSection;
            scale::ScaleAnalytic => scale::ScaleSection;
            estimate::EstimateAnalytic => estimate::EstimateSection;
        }
    };
}

/// The list's evaluations, in its order.
macro_rules! evaluations {
    (@kept [$($kept:tt)*]) => { &[$($kept)*] };
    (@kept [$($kept:tt)*] $file:ident :: $analytic:ident => $($section:ident)::+; $($rest:tt)*) => {
        evaluations!(@kept [$($kept)* &super::$file::$analytic,] $($rest)*)
    };
    ($($entries:tt)*) => { evaluations!(@kept [] $($entries)*) };
}

/// Every analytic's evaluation, in the order their results are kept.
pub const ANALYTICS: &[&dyn Analytic] = crate::analytics!(evaluations);

/// The record's evaluation with every registered analytic.
pub fn evaluate(record: &RunRecord, settings: EvalSettings) -> Evaluation {
    super::evaluate(record, settings, ANALYTICS)
}
