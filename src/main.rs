//! The `logclean` binary: parse, dispatch, map the result to an exit code.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::SUCCESS
}
