//! The commands' side of the forms' seam. The loader chooses the form (`run::data::Rows`);
//! this file alone turns its choice into what the commands ask of any form ([`Loaded`]): pairs
//! by their own file (`pairs.rs`, the race, the reference and the estimate being theirs),
//! RewardBench 2 rows here, through the same session, rating loop, record and evaluation. A
//! run directory of either form is read back by the one reader (`run::read`) and evaluated
//! again by `run::evaluated::reread`. `calibrate`, `report DIR` and `data summary` name no form.

use super::session::Session;
use crate::error::input_error;
use crate::evaluation::rewardbench2::record::record;
use crate::raters::rewardbench2::{fold, Rb2Made, RowOutcome};
use crate::raters::Flow;
use crate::run::data::{Dataset, Rb2Set, Rows};
use crate::run::record::{Form, Run, RunHead, RunMeta};
use crate::run::settings::CalibrateSettings;
use anyhow::Result;

/// Data of one form, as the commands use it.
pub trait Loaded {
    /// `calibrate` over it.
    fn calibrate(self: Box<Self>, args: &CalibrateSettings) -> Result<Run>;
    /// `data summary` of it.
    fn summary(&self, bootstrap: usize) -> Result<()>;
}

/// The loaded data as a form.
pub fn loaded(rows: Rows) -> Box<dyn Loaded> {
    match rows {
        Rows::Pairs(dataset) => Box::new(dataset),
        Rows::RewardBench2(set) => Box::new(set),
    }
}

impl Loaded for Dataset {
    fn calibrate(self: Box<Self>, args: &CalibrateSettings) -> Result<Run> {
        super::pairs::run(args, *self)
    }
    fn summary(&self, bootstrap: usize) -> Result<()> {
        let annotators = crate::run::data::annotator_report(self, bootstrap);
        crate::report::data::emit_summary(self, annotators.as_ref())
    }
}

/// RewardBench 2 rows under `calibrate`: each configuration rates its protocol's items (a
/// ranking template: four-way; a pointwise one or a reward model's scores, `--judge
/// scores:FILE`: ratings; a pairwise one: the correct completion against each incorrect one;
/// Ties rows always by ratings) in the one rating loop, each rating folded into its row
/// (`raters::rewardbench2::fold`); the rows' pairs become the one record
/// (`evaluation::rewardbench2::record`), evaluated as every run is (`run::evaluated::evaluate`;
/// reward-bench's scoring is the registry's `Rb2Analytic`).
impl Loaded for Rb2Set {
    fn calibrate(self: Box<Self>, args: &CalibrateSettings) -> Result<Run> {
        refuse_on_rows(args)?;
        let sort = Form::RewardBench2.sort(args.sort)?;
        let both_orders = args.plan.data.both_orders;
        let session = Session::plan(args, Form::RewardBench2, self.seed)?;
        let plan = &session.plan;
        let layout = self.layout(&plan.configs, both_orders)?;
        let mut outcomes = vec![RowOutcome::for_rows(&self.rows); plan.configs.len()];
        let rated = session.rate(args, &layout, &mut |_, part, index, rating| {
            // RewardBench 2 rows always lay out their own items.
            if let Some(items) = layout.rewardbench2() {
                let (of, config) = (part.of, &part.config);
                let items = items.of(part.kind);
                fold(&mut outcomes[of], &self.rows, items, index, config, rating);
            }
            Flow::Go
        })?;
        let configs = plan.configs.iter().zip(plan.metas.iter().map(|m| m.price));
        let mut made = Rb2Made::of_configs(configs, (outcomes, rated.tallies), &self.source)?;
        // The juries vote from their members' outcomes: no call of their own.
        for (jury, _) in &plan.juries {
            made.push(crate::raters::jury::rb2_made(jury, &made)?);
        }
        let tallies = made.iter().map(|m| m.tally.clone()).collect();
        let metas = plan.metas.iter().chain(plan.juries.iter().map(|(_, m)| m));
        let meta = rows_meta(
            RunHead {
                name: session.name.clone(),
                dir: rated.dir,
                source: self.source,
                seed: self.seed,
                both_orders,
                bootstrap: args.bootstrap,
                command: crate::run::command_line(),
                created_unix: rated.created_unix,
            },
            (args.alpha, sort, args.family),
            metas.cloned().collect(),
        );
        let missing = args.plan.judge.pointwise_missing;
        let record = record(self.rows, made, missing, both_orders);
        let run = Run {
            tallies,
            caches: plan.caches.clone(),
            ..Run::evaluated(meta, record, crate::evaluation::Evaluation::default())
        };
        crate::run::evaluated::evaluate_beside(run, args.cost)
    }
    fn summary(&self, _bootstrap: usize) -> Result<()> {
        crate::report::data::emit_rewardbench2(self)
    }
}

/// What `calibrate` does on pairs and not on RewardBench 2's best-of-4 rows, refused before
/// any call.
fn refuse_on_rows(args: &CalibrateSettings) -> Result<()> {
    if args.reference.is_some() {
        return Err(input_error(
            "--reference ranks the models that wrote each response; RewardBench 2's rows do not say which models wrote their completions, so there is no ranking to compare: leave out --reference",
        ));
    }
    if args.estimate.is_some() {
        return Err(input_error(
            "--estimate corrects the share of pairs a judge labels one way; RewardBench 2's best-of-4 rows are scored from several ratings each, which it does not estimate: leave out --estimate, or convert the rows to pairs",
        ));
    }
    if args.alt_test.epsilon.is_some() {
        return Err(input_error(
            "--alt-test compares a judge with several annotators of each item; RewardBench 2's rows have one gold ranking and no annotators: leave out --alt-test",
        ));
    }
    if args.sequential.is_some() {
        return Err(input_error(
            "--sequential races configurations on pairs, one verdict against one gold label per item; RewardBench 2's best-of-4 rows score a row from several ratings, which it does not race yet: leave out --sequential, or convert the rows to pairs",
        ));
    }
    // Options of pairs that RewardBench 2's rows have nothing to apply to: refused rather
    // than taken and ignored.
    if args.plan.judge.tie_margin != 0.0 {
        return Err(input_error(format!(
            "--tie-margin {} makes close grades a tie in a pair's verdict; RewardBench 2 rows are scored from each completion's grade as reward-bench scores them (the best grade wins, tied grades share the credit), which takes no margin: leave out --tie-margin",
            args.plan.judge.tie_margin
        )));
    }
    let data = &args.plan.data;
    if data.no_majority != crate::dataset::labels::NoMajority::default() {
        return Err(input_error(
            "--no-majority says what becomes of pairs several annotators split on (--map label=A+B+C); RewardBench 2 rows carry their own correct completions and no annotators: leave out --no-majority",
        ));
    }
    if data.unshared != crate::dataset::conversation_file::Unshared::default() {
        return Err(input_error(
            "--unshared says what becomes of conversations whose two sides differ before their last replies; RewardBench 2 rows are one prompt each, with no earlier turns: leave out --unshared",
        ));
    }
    Ok(())
}

/// A RewardBench 2 run's settings: who it is, its α, `--sort accuracy` (else the plan's
/// order), `--family` and each configuration's settings as called; no checksum, race or
/// estimate of pairs.
fn rows_meta(
    head: RunHead,
    (alpha, sort, family): (
        f64,
        Option<crate::run::settings::SortKey>,
        crate::evaluation::Family,
    ),
    configs: Vec<crate::run::record::ConfigMeta>,
) -> RunMeta {
    RunMeta {
        head,
        form: Form::RewardBench2,
        checksum: String::new(),
        configs,
        sort,
        family,
        no_majority: 0,
        unshared: Vec::new(),
        sequential: None,
        estimate: None,
        alt_test: Default::default(),
        alpha,
    }
}
