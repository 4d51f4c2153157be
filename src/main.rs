//! The `logclean` binary: parse, dispatch, map the result to an exit code.

use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;

use clap::Parser;
use logclean::cli::run_config::RunConfig;
use logclean::cli::{self, Cli, ColorChoice, Command};
use logclean::exit_codes::Outcome;
use logclean::model::units::TimestampMs;
use logclean::report::human::Zone;
use logclean::report::sanitize::escape;

// The allocator: a scan allocates and frees small values per file on every worker (names,
// paths, per-segment facts, read buffers); under glibc's malloc those calls were about a tenth of
// `diagnose`'s CPU on a log dir of many small partitions (issue 28's profile). mimalloc's
// per-thread heaps make them cheaper; the measured gain is in benches/README.md.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version are "errors" to clap that print to stdout and exit 0.
            let code = if e.use_stderr() {
                Outcome::Error
            } else {
                Outcome::Clean
            };
            let _ = e.print();
            return code.into();
        }
    };
    match run(&cli) {
        Ok(outcome) => outcome.into(),
        // Only a failure before the outcome was known gets here (commands map a closed pipe
        // while rendering to their outcome); a closed pipe then is no error of the run.
        Err(e) if is_broken_pipe(&e) => Outcome::Clean.into(),
        Err(e) => {
            // The message may quote a path or a name read from disk: escaped like all output.
            eprintln!("logclean: error: {}", escape(&format!("{e:#}")));
            Outcome::Error.into()
        }
    }
}

fn run(cli: &Cli) -> anyhow::Result<Outcome> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let output = cli::common::Output {
        format: cli.output_format()?,
        color: match cli.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
            }
        },
        progress: !cli.no_progress && io::stderr().is_terminal(),
        width: logclean::report::terminal::detect_width(),
        zone: if cli.local_time {
            Zone::Local
        } else {
            Zone::Utc
        },
    };
    // The only read of the wall clock: every command gets its instants from here.
    let wall_clock = TimestampMs(chrono::Utc::now().timestamp_millis());
    let run = RunConfig::new(output, wall_clock, &cli.command)?;
    // Each command decides its outcome before it writes; a reader closing the pipe (`| head`)
    // leaves that outcome as the exit code.
    let outcome = match &cli.command {
        Command::Inspect(args) => cli::inspect::run(args, &run, &mut out)?,
        Command::Diagnose(args) => cli::diagnose::run(args, &run, cli.format, &mut out)?,
        Command::Config(args) => cli::config::run(args, &run, &mut out)?,
        Command::Groups(args) => cli::groups::run(args, &run, &mut out)?,
        Command::Transactions(args) => cli::transactions::run(args, &run, &mut out)?,
        Command::Plan(args) => cli::plan::run(args, &run, &mut out)?,
        Command::RebuildIndex(args) => cli::rebuild_index::run(args, &run, &mut out)?,
        Command::Roll(args) => cli::roll::run(args, &run, &mut out)?,
        Command::Delete(args) => cli::delete::run(args, &run, &mut out)?,
        Command::Free(args) => cli::free::run(args, &run, &mut out)?,
        Command::UpgradeCheck(args) => cli::upgrade_check::run(args, &run, &mut out)?,
        Command::Snapshot(args) => cli::snapshot::run(args, &run, &mut out)?,
        Command::Join(args) => cli::join::run(args, &run, &mut out)?,
        Command::Resume(args) => cli::resume::run(args, false, &run, &mut out)?,
        Command::Undo(args) => cli::resume::run(args, true, &run, &mut out)?,
        Command::Completions { shell } => {
            // clap_complete panics when its writer fails (a closed pipe): generate into memory,
            // then write, so `completions bash | true` ends like every other command.
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut cli::command(), "logclean", &mut script);
            return cli::common::finish_render(
                Outcome::Clean,
                out.write_all(&script).and_then(|()| out.flush()),
            );
        }
    };
    cli::common::finish_render(outcome, out.flush())
}

/// A closed stdout before any outcome was known ends the run quietly.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}
