//! raterlab: meta-evaluation of LLM autoraters.
//!
//! The pipeline runs one way: `dataset` (load) → `metrics` (analyze) → `report` (show).
//! `commands` wires the stages together for each subcommand; see ARCHITECTURE.md.

pub mod api;
pub mod cli;
pub mod commands;
pub mod dataset;
pub mod error;
pub mod evaluation;
pub mod judge;
pub mod metrics;
pub mod prompts;
pub mod raters;
pub mod report;
pub mod run;
pub mod verdicts;

/// Runs one parsed command line.
pub fn run(cli: cli::Cli) -> anyhow::Result<()> {
    match cli.command {
        cli::Command::Analyze(args) => {
            let settings = run::analysis::Settings::try_from(*args)?;
            let analysis = commands::analyze::run(&settings)?;
            report::analyze::emit(&analysis, &settings.output)
        }
        cli::Command::Calibrate(args) => {
            let args = run::settings::CalibrateSettings::try_from(*args)?;
            let calibrated = commands::calibrate::run(&args)?;
            report::calibrate::write_dir(&calibrated)?;
            report::calibrate::emit_any(&calibrated, args.json, args.details)?;
            commands::calibrate::finish(&args, &calibrated)
        }
        cli::Command::Report(args) => {
            let args = run::settings::ReportSettings::from(args);
            let run = commands::report::run(&args)?;
            report::calibrate::write_dir(&run)?;
            report::calibrate::emit_any(&run, args.json, args.details)
        }
        cli::Command::Rate(args) => commands::rate::run((*args).into()),
        cli::Command::Prompts(args) => match args.command {
            cli::PromptsCommand::List => report::prompts::list(&prompts::builtins()),
            cli::PromptsCommand::Show { name, toml } => {
                report::prompts::show(&prompts::resolve(&name)?, toml)
            }
        },
        cli::Command::Plan(args) => {
            let args = run::settings::SizeSettings::from(args);
            report::plan::emit(&commands::plan::run(&args)?, args.json)
        }
        cli::Command::Batch(args) => match args.command {
            cli::BatchCommand::Export { plan, out, format } => report::batch::emit_export(
                &commands::batch::export::export(&(*plan).into(), &out, &format)?,
            ),
            cli::BatchCommand::Ingest {
                files,
                manifest,
                cache_dir,
            } => report::batch::emit_ingest(&commands::batch::ingest::ingest_files(
                &files,
                manifest.as_deref(),
                cache_dir.as_deref(),
            )?),
            cli::BatchCommand::Cancel {
                endpoint,
                api_key_env,
                state,
                ids,
            } => report::batch::emit_cancelled(&commands::batch::rounds::cancel(
                &endpoint,
                &api_key_env,
                state.as_deref(),
                &ids,
            )?),
        },
        cli::Command::Cache(args) => {
            let done = commands::cache::run(
                args.command.into(),
                &report::media::progress::Steps::default(),
            )?;
            report::cache::emit(&done)
        }
        cli::Command::Data(args) => match args.command {
            cli::DataCommand::Summary(data) => match run::data::load_rows(
                &run::data::DataSettings::from_options(data.into())?,
                &report::media::progress::Download::default(),
            )? {
                run::data::Rows::Pairs(dataset) => {
                    let annotators = run::data::annotator_report(&dataset)?;
                    report::data::emit_summary(&dataset, annotators.as_ref())
                }
                run::data::Rows::RewardBench2(set) => report::data::emit_rewardbench2(&set),
            },
            cli::DataCommand::Export { data, out } => {
                let dataset = run::data::load(
                    &run::data::DataSettings::from_options(data.into())?,
                    &report::media::progress::Download::default(),
                )?;
                dataset::export::write_examples(&dataset.examples, &out)?;
                report::data::emit_exported(&dataset, &out)
            }
        },
    }
}
