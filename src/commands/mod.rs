//! One module per subcommand: validate settings, then run the stages in order.

pub mod analyze;
pub mod batch;
pub mod calibrate;
pub mod data;
pub mod judges;
pub mod plan;
pub mod rate;
pub mod report;

/// The command as typed, with the program named `raterlab` rather than by its full path.
pub fn command_line() -> Vec<String> {
    std::env::args()
        .enumerate()
        .map(|(i, a)| if i == 0 { "raterlab".to_string() } else { a })
        .collect()
}
