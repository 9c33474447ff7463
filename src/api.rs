//! raterlab for other programs (the Python module, `python/`): the command line as a function,
//! and the commands that hand back what `--json` prints instead of printing it. Every function
//! runs the same code as the binary; none has numbers of its own.

use crate::cli::{Cli, Command};
use crate::dataset::frame::{self, Values};
use crate::error::input_error;
use crate::run::settings::{AnalyzeInput as Input, AnalyzeSettings as Settings, Table};
use crate::{commands, report};
use anyhow::Result;
use clap::Parser;
use serde_json::Value;
use std::ffi::OsString;
use std::path::PathBuf;

/// Runs a command line (`args[0]` is the program's name) as the `raterlab` binary does: prints
/// what it prints and returns its exit code (2 bad input or usage, 1 otherwise, 0 on success,
/// on `--help` and on a closed stdout pipe).
pub fn command_line<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return if err.use_stderr() { 2 } else { 0 };
        }
    };
    match crate::run(cli) {
        Ok(()) => 0,
        Err(err) if crate::error::is_broken_pipe(&err) => 0,
        Err(err) => {
            report::media::format::error(&err);
            crate::error::exit_code(&err)
        }
    }
}

/// One subcommand's arguments from flags as typed after it (`pick` takes them out of the
/// parsed command); a usage error is an input error carrying clap's message.
fn parse<T>(command: &str, flags: &[String], pick: impl FnOnce(Command) -> Option<T>) -> Result<T> {
    let args = ["raterlab", command]
        .into_iter()
        .map(String::from)
        .chain(flags.iter().cloned());
    let parsed = Cli::try_parse_from(args).map_err(|e| {
        let message = e.render().to_string();
        input_error(message.trim_start_matches("error: ").trim_end())
    })?;
    pick(parsed.command)
        .ok_or_else(|| input_error(format!("'{command}' parsed as another command")))
}

/// `analyze` on columns of values (`name` stands for the file in messages): `flags` as on the
/// command line after `raterlab analyze`, without an input file (`--gold-col`, `--labels`,
/// `--annotators`, `--csv`...). Returns the document `analyze --json` prints; the CSV and HTML
/// files are written when asked.
pub fn analyze(name: &str, columns: Vec<(String, Values)>, flags: &[String]) -> Result<Value> {
    let input = Input::One(Table::Values(frame::from_values(name, columns)?));
    analyze_input(&["--input", name], flags, input)
}

/// `analyze` on two tables of values to join on their ids, as `--gold FILE --ratings FILE`
/// joins two files: the long form (several annotations of an item in `gold`, a column naming
/// each, `--annotator-col`; the judge's samples in `ratings`) reads the same way. `names`
/// stand for the two files in messages.
pub fn analyze_two(
    names: (&str, &str),
    gold: Vec<(String, Values)>,
    ratings: Vec<(String, Values)>,
    flags: &[String],
) -> Result<Value> {
    let input = Input::Two {
        gold: Table::Values(frame::from_values(names.0, gold)?),
        ratings: vec![Table::Values(frame::from_values(names.1, ratings)?)],
    };
    analyze_input(&["--gold", names.0, "--ratings", names.1], flags, input)
}

/// `analyze` with `flags` checked as the command checks them (`named` the input's flags, for
/// the checks that depend on its form) on `input`.
fn analyze_input(named: &[&str], flags: &[String], input: Input) -> Result<Value> {
    let with_input: Vec<String> = named
        .iter()
        .map(|s| s.to_string())
        .chain(flags.iter().cloned())
        .collect();
    let args = parse("analyze", &with_input, |c| match c {
        Command::Analyze(args) => Some(args),
        _ => None,
    })?;
    let mut settings = Settings::try_from(*args)?;
    settings.input = input;
    let analysis = commands::analyze::run(&settings)?;
    report::analyze::write_files(&analysis, &settings.output)?;
    Ok(report::analyze::to_json(&analysis))
}

/// `calibrate` with `flags` as on the command line: writes the run directory and returns the
/// document `calibrate --json` prints and the directory. A run whose problems make the command
/// fail (calls missing offline, answers not cached) is an error after the directory is written,
/// as for the command.
pub fn calibrate(flags: &[String]) -> Result<(Value, PathBuf)> {
    let args = parse("calibrate", flags, |c| match c {
        Command::Calibrate(args) => Some(args),
        _ => None,
    })?;
    let args = crate::run::settings::CalibrateSettings::try_from(*args)?;
    commands::calibrate::calibrate(&args, |calibrated| {
        Ok((calibrated.to_json(), calibrated.meta.head.dir.clone()))
    })
}

/// `plan` with `flags` as on the command line: the document `plan --json` prints.
pub fn plan(flags: &[String]) -> Result<Value> {
    let args = parse("plan", flags, |c| match c {
        Command::Plan(args) => Some(args),
        _ => None,
    })?;
    Ok(report::plan::to_json(&commands::plan::run(
        &(*args).try_into()?,
    )?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(flags: &[&str]) -> Vec<String> {
        flags.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn analyze_on_values_equals_analyze_on_a_file() {
        let gold = [-1, 1, 1, -1, 0, 1, -1, 1, 1, -1];
        let rating = [-1, 1, -1, -1, 0, 1, 1, 1, 0, -1];
        let subset = ["a", "b", "a", "b", "a", "b", "a", "b", "a", "b"];
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("labels.csv");
        let mut text = String::from("gold,rating,subset\n");
        for i in 0..gold.len() {
            text.push_str(&format!("{},{},{}\n", gold[i], rating[i], subset[i]));
        }
        std::fs::write(&path, text).expect("written");
        let flags = strings(&["--group-col", "subset", "--bootstrap", "200", "--seed", "5"]);
        let mut with_file = strings(&["--input", &path.display().to_string()]);
        with_file.extend(flags.iter().cloned());
        let args = parse("analyze", &with_file, |c| match c {
            Command::Analyze(args) => Some(args),
            _ => None,
        })
        .expect("flags parse");
        let settings = Settings::try_from(*args).expect("settings");
        let mut from_file =
            report::analyze::to_json(&commands::analyze::run(&settings).expect("analyzed"));
        let columns = vec![
            ("gold".to_string(), Values::Int(gold.map(Some).to_vec())),
            (
                "rating".to_string(),
                Values::Float(rating.map(|r| Some(r as f64)).to_vec()),
            ),
            (
                "subset".to_string(),
                Values::Text(subset.map(|s| Some(s.to_string())).to_vec()),
            ),
        ];
        let mut from_values = analyze("my values", columns, &flags).expect("analyzed");
        assert_eq!(from_values["source"], "my values");
        from_file["source"] = Value::Null;
        from_values["source"] = Value::Null;
        assert_eq!(from_values, from_file);
        assert_eq!(from_values["n"], 10);
        assert_eq!(from_values["accuracy"], 0.7);
    }

    #[test]
    fn bad_values_and_flags_are_input_errors_with_the_fix() {
        let columns = vec![
            ("gold".to_string(), Values::Int(vec![Some(1), Some(-1)])),
            ("rating".to_string(), Values::Int(vec![Some(1)])),
        ];
        let err = analyze("v", columns, &[]).expect_err("lengths differ");
        assert_eq!(crate::error::exit_code(&err), 2);
        assert!(err
            .to_string()
            .contains("'rating' has 1 values but 'gold' has 2"));
        let columns = vec![
            (
                "gold".to_string(),
                Values::Float(vec![Some(1.0), Some(0.5)]),
            ),
            ("rating".to_string(), Values::Int(vec![Some(1), Some(1)])),
        ];
        let err = analyze("v", columns, &[]).expect_err("not a whole number");
        assert!(err
            .to_string()
            .contains("'v', column 'gold', row 2: '0.5' is not an integer label"));
        let err = calibrate(&strings(&["--demo", "--no-such-flag"])).expect_err("unknown flag");
        assert_eq!(crate::error::exit_code(&err), 2);
        assert!(err
            .to_string()
            .starts_with("unexpected argument '--no-such-flag'"));
        let err = plan(&strings(&["--diff", "x"])).expect_err("not a number");
        assert_eq!(crate::error::exit_code(&err), 2);
    }

    #[test]
    fn the_command_line_returns_the_binarys_exit_codes() {
        assert_eq!(command_line(["raterlab", "--version"]), 0);
        assert_eq!(command_line(["raterlab", "calibrate", "--bogus"]), 2);
        assert_eq!(
            command_line(["raterlab", "analyze", "--input", "/nonexistent/labels.csv"]),
            2
        );
    }
}
