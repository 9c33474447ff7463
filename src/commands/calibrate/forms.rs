//! The commands' side of the forms' seam. The loader chooses the form (`run::data::Rows`, and
//! `run::file::RunFile` for a run directory); this file alone turns its choice into what the
//! commands ask of any form ([`Loaded`], [`Saved`]): pairs by their own file (`pairs.rs`, the
//! race, the reference and the estimate being theirs), RewardBench 2 rows here, through the
//! same session, rating loop, record and evaluation. `calibrate`, `report DIR` and `data
//! summary` name no form.

use super::session::Session;
use crate::error::input_error;
use crate::evaluation::rewardbench2::record::record;
use crate::raters::rewardbench2::{fold, Rb2Made, RowOutcome};
use crate::raters::{Flow, Missing};
use crate::run::data::{Dataset, Rb2Set, Rows};
use crate::run::file::{PairsRunFile, Rb2RunFile, RunFile};
use crate::run::record::{Form, Run, RunHead, RunMeta};
use crate::run::settings::{CalibrateSettings, ReportSettings};
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
/// (`evaluation::rewardbench2::record`), evaluated as every run is (`session::evaluate`;
/// reward-bench's scoring is the registry's `Rb2Analytic`).
impl Loaded for Rb2Set {
    fn calibrate(self: Box<Self>, args: &CalibrateSettings) -> Result<Run> {
        refuse_on_rows(args)?;
        let sort = crate::run::record::rows_sort(args.sort)?;
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
        );
        let missing = args.plan.judge.pointwise_missing;
        let record = record(self.rows, made, missing, both_orders);
        let evaluation = super::session::evaluate(&record, &meta, args.cost);
        Ok(Run {
            tallies,
            caches: plan.caches.clone(),
            ..Run::evaluated(meta, record, evaluation)
        })
    }
    fn summary(&self, _bootstrap: usize) -> Result<()> {
        crate::report::data::emit_rewardbench2(self)
    }
}

/// A run directory's run file of one form, as `report DIR` uses it.
pub trait Saved {
    /// The run read back from its directory and evaluated again.
    fn reread(self: Box<Self>, args: &ReportSettings) -> Result<Run>;
}

/// The read run file as a form's.
pub fn saved(file: RunFile) -> Box<dyn Saved> {
    match file {
        RunFile::Pairs(file) => Box::new(file),
        RunFile::RewardBench2(file) => Box::new(file),
    }
}

impl Saved for PairsRunFile {
    fn reread(self: Box<Self>, args: &ReportSettings) -> Result<Run> {
        super::pairs::reread(args, &self)
    }
}

/// `report DIR` on a RewardBench 2 run: its rows and what each configuration made of them
/// read back (`run::read_rewardbench2`) and made the one record again, evaluated with
/// `--bootstrap`, `--sort`, `--alpha` and `--family` given, else the run's own.
impl Saved for Rb2RunFile {
    fn reread(self: Box<Self>, args: &ReportSettings) -> Result<Run> {
        let file = *self;
        let own = file.sort.as_deref().and_then(|s| s.parse().ok());
        let sort = crate::run::record::rows_sort(args.sort.or(own))?;
        let (rows, made) = crate::run::read_rewardbench2::read(&args.dir, &file)?;
        let missing = Missing::parse(file.configs.first().map_or("drop", |c| &c.missing))?;
        let both_orders = file.data.both_orders.unwrap_or(false);
        let family = args
            .family
            .unwrap_or(file.family.parse().unwrap_or_default());
        let meta = rows_meta(
            RunHead {
                name: file.name,
                dir: args.dir.clone(),
                source: file.data.source,
                seed: file.data.seed,
                both_orders,
                bootstrap: args.bootstrap.unwrap_or(file.bootstrap),
                // run.json keeps the command line as one string, its words joined by spaces.
                command: file.command.split(' ').map(String::from).collect(),
                created_unix: file.created_unix,
            },
            (args.alpha.unwrap_or(file.alpha), sort, family),
        );
        let record = record(rows, made, missing, both_orders);
        let evaluation = super::session::evaluate(&record, &meta, args.cost);
        Ok(Run::evaluated(meta, record, evaluation))
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
/// order) and `--family`; no checksum, configuration settings, race or estimate of pairs.
fn rows_meta(
    head: RunHead,
    (alpha, sort, family): (
        f64,
        Option<crate::run::settings::SortKey>,
        crate::evaluation::Family,
    ),
) -> RunMeta {
    RunMeta {
        head,
        form: Form::RewardBench2,
        checksum: String::new(),
        configs: Vec::new(),
        sort,
        family,
        no_majority: 0,
        unshared: Vec::new(),
        sequential: None,
        estimate: None,
        alpha,
    }
}
