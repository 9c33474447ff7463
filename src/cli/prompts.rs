//! `raterlab prompts list | show`.

use clap::{Args, Subcommand};

const PROMPTS_EXAMPLES: &str = "\
Examples:
  raterlab prompts list
  raterlab prompts show mt-bench_pairwise
  raterlab prompts show simple_with_tie --toml > my_prompt.toml   # start your own template
  raterlab calibrate --demo --prompt my_prompt.toml

Guide: docs/guide.md#judges-prompts-parsers-and-raters";

/// Built-in prompt templates and verdict parsers.
#[derive(Debug, Args)]
#[command(after_help = PROMPTS_EXAMPLES)]
pub struct PromptsArgs {
    #[command(subcommand)]
    pub command: PromptsCommand,
}

#[derive(Debug, Subcommand)]
pub enum PromptsCommand {
    /// List the built-in templates and the parsers.
    List,
    /// Print a template (or a TOML file's) as the judge would see it.
    Show {
        /// Built-in name or TOML file.
        name: String,
        /// Print it as a TOML file to start your own template from.
        #[arg(long)]
        toml: bool,
    },
}
