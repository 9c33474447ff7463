use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(raterlab::api::command_line(std::env::args_os()))
}
