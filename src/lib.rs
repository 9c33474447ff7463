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
pub mod label;
pub mod metrics;
pub mod prompts;
pub mod raters;
pub mod report;
pub mod run;
pub mod verdicts;

/// Runs one parsed command line.
pub fn run(cli: cli::Cli) -> anyhow::Result<()> {
    match cli.command {
        cli::Command::Label(args) => {
            commands::label::label(&run::settings::LabelSettings::try_from(*args)?)
        }
        cli::Command::Labels(args) => commands::label::labels(&args.command.try_into()?),
        cli::Command::Analyze(args) => {
            let settings = run::settings::AnalyzeSettings::try_from(*args)?;
            let analysis = commands::analyze::run(&settings)?;
            report::analyze::emit(&analysis, &settings.output)
        }
        cli::Command::Calibrate(args) => {
            let args = run::settings::CalibrateSettings::try_from(*args)?;
            commands::calibrate::calibrate(&args, |run| {
                report::calibrate::emit(run, args.json, args.details)
            })
        }
        cli::Command::Report(args) => commands::report::report(&args.into()),
        cli::Command::Rate(args) => commands::rate::run((*args).into()),
        cli::Command::Prompts(args) => match args.command {
            cli::PromptsCommand::List => report::prompts::list(&prompts::builtins()),
            cli::PromptsCommand::Show { name, toml } => {
                report::prompts::show(&prompts::resolve(&name)?, toml)
            }
        },
        cli::Command::Plan(args) => {
            let args = run::settings::SizeSettings::try_from(*args)?;
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
            cli::DataCommand::Summary { data, bootstrap } => {
                commands::data::summary(data.into(), bootstrap)
            }
            cli::DataCommand::Export { data, out } => commands::data::export(data.into(), &out),
        },
    }
}
