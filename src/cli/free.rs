//! `logclean free`: options → [`run_free`] (the least harmful reclaim that reaches the target,
//! journaled like `delete`) → [`write_free`]. Exit 0 when every filesystem reaches the target,
//! 1 when what is allowed does not get there (the output says how far it gets and what option
//! would go further), 3 when refused.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::actions::free::{run_free, FreeOptions, Freeing, Target};
use crate::checks::disk::FsSpace;
use crate::config::provenance::SUPPLY_CONFIGS;
use crate::exit_codes::Outcome;
use crate::report::free::{write_free, FreeBody};

use super::common::{
    delete_options, deletion_stopped, print_error, say_group_loss_refusal, write_deletion,
};
use super::diagnose::parse_disk_space;
use super::plan::parse_size;
use super::progress::Progress;
use super::run_config::{self, RunConfig};
use super::MutateArgs;

/// Arguments of `logclean free`.
#[derive(Debug, Args)]
pub struct FreeArgs {
    /// Log dirs (every partition and leftover dir in them).
    #[arg(required = true, value_name = "LOG_DIR")]
    pub paths: Vec<PathBuf>,
    /// The free space wanted on each log dir's filesystem: bytes (suffixes K, M, G, KiB, MiB,
    /// GiB, ...) or a percent of the filesystem's size (`15%`).
    #[arg(long, value_name = "BYTES|PERCENT", value_parser = parse_target)]
    pub target: Target,
    /// The instant retention is evaluated at (what `plan` and `delete` would delete then).
    #[command(flatten)]
    pub now: run_config::NowArg,
    /// Also delete this topic's oldest segments beyond retention (whole segments below the
    /// high watermark, never the active one) when the earlier tiers do not reach the target;
    /// the consumer groups that lose data are named. Repeatable.
    #[arg(long, value_name = "TOPIC")]
    pub beyond_retention: Vec<String>,
    /// Refuse (exit 3, nothing changed) when a consumer group's committed offset would fall
    /// below a new log start (as `delete --fail-if-group-loses-data`).
    #[arg(long)]
    pub fail_if_group_loses_data: bool,
    /// Delete also in partitions whose retention plan rests on config values logclean did not
    /// read; without it they are not taken, and the run is refused (exit 3) when the target
    /// needs them.
    #[arg(long)]
    pub accept_assumed_configs: bool,
    /// The filesystem's free and total bytes, for every log dir, instead of statvfs (a copy's
    /// filesystem is not the broker's; tests).
    #[arg(long, value_name = "FREE,TOTAL", value_parser = parse_disk_space)]
    pub disk_space: Option<FsSpace>,
    /// The Kafka release whose rules apply (default: the one the files tell).
    #[command(flatten)]
    pub kafka_version: run_config::KafkaVersionArg,
    /// Shared options of mutating commands. Space is really freed only with --purge or a
    /// --quarantine DIR on another filesystem; put --journal DIR on another filesystem when
    /// the log dir's is full.
    #[command(flatten)]
    pub mutate: MutateArgs,
}

/// `--target`: `N[unit]` bytes or `P%` (0 < P ≤ 100).
fn parse_target(s: &str) -> Result<Target, String> {
    match s.trim().strip_suffix('%') {
        Some(p) => match p.trim().parse::<f64>() {
            Ok(v) if v > 0.0 && v <= 100.0 => Ok(Target::Percent(v)),
            _ => Err(format!(
                "`{s}`: a percent is a number above 0 and at most 100"
            )),
        },
        None => parse_size(s.trim()).map(Target::Bytes),
    }
}

fn options(args: &FreeArgs, run: &RunConfig) -> FreeOptions {
    FreeOptions {
        delete: delete_options(
            &args.paths,
            &args.mutate,
            run,
            args.accept_assumed_configs,
            args.fail_if_group_loses_data,
        ),
        target: args.target,
        beyond_retention: args.beyond_retention.clone(),
        disk_space: args.disk_space,
    }
}

fn outcome_of(f: &Freeing) -> Outcome {
    if f.refused() {
        Outcome::Error
    } else if f.reached() {
        Outcome::Clean
    } else {
        Outcome::Findings
    }
}

/// Run `free`.
pub fn run(args: &FreeArgs, run: &RunConfig, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let progress = Progress::new(run.output.progress, "reading partitions");
    let f = match run_free(&args.paths, &options(args, run), &progress) {
        Ok(f) => f,
        Err(stop) => return deletion_stopped(stop),
    };
    let written = write_deletion(
        run,
        "free",
        FreeBody::new(&f),
        &f.assumptions,
        outcome_of(&f),
        write_free,
        out,
    );
    if f.refuse_losses {
        say_group_loss_refusal(&f.lost);
    }
    if f.refused_assumed > 0 {
        print_error(&format!(
            "refused: the target needs {} segment(s) whose deletion rests on config values \
             logclean did not read; nothing changed. {}; or pass --accept-assumed-configs",
            f.refused_assumed, SUPPLY_CONFIGS
        ));
    }
    if !f.refused() && !f.reached() {
        eprintln!(
            "logclean: the target is not reached with what is allowed (see `not taken` and \
             `further`)"
        );
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_as_bytes_or_percent() {
        assert_eq!(parse_target("1MiB"), Ok(Target::Bytes(1 << 20)));
        assert_eq!(parse_target("4096"), Ok(Target::Bytes(4096)));
        assert_eq!(parse_target("15%"), Ok(Target::Percent(15.0)));
        assert!(parse_target("0%").is_err());
        assert!(parse_target("101%").is_err());
        assert!(parse_target("lots").is_err());
    }
}
