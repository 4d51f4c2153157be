//! `logclean delete`: options → [`run_delete`] (the retention plan at the run's instant, with
//! `--config` and `--server-properties`; one plan per log dir; the consumer groups that lose
//! data; dry run, refusal or journaled apply) → [`write`] ([`write_delete`]), and the refusals
//! said on stderr.

use std::io::Write;

use crate::actions::delete::DeleteReport;
use crate::actions::delete_run::{run_delete, Deletion};
use crate::config::provenance::SUPPLY_CONFIGS;
use crate::exit_codes::Outcome;
use crate::report::mutation::{write_delete, DeleteBody};

use super::common::{delete_options, deletion_stopped, say_group_loss_refusal, write_deletion};
use super::progress::Progress;
use super::run_config::RunConfig;
use super::DeleteArgs;

/// The outcome: a refused run is an error (exit 3); a partition whose deletion was refused
/// on its own is a finding.
fn outcome_of(d: &Deletion) -> Outcome {
    let any_refused = (d.log_dirs.iter())
        .flat_map(|l| &l.reports)
        .any(DeleteReport::refused);
    if d.refused() {
        Outcome::Error
    } else if any_refused {
        Outcome::Findings
    } else {
        Outcome::Clean
    }
}

/// Say on stderr why the run was refused.
fn say_refusals(d: &Deletion) {
    if !d.refused_assumed.is_empty() {
        eprintln!(
            "logclean: refused: {} partition(s) would delete segments on config values logclean did not \
             read; nothing changed. {}; or pass --accept-assumed-configs",
            d.refused_assumed.len(),
            SUPPLY_CONFIGS
        );
    }
    if d.refuse_losses {
        say_group_loss_refusal(&d.lost);
    }
}

/// Run `delete`.
pub fn run(args: &DeleteArgs, run: &RunConfig, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let progress = Progress::new(run.output.progress, "reading partitions");
    let opts = delete_options(
        &args.paths,
        &args.mutate,
        run,
        args.accept_assumed_configs,
        args.fail_if_group_loses_data,
    );
    let d = match run_delete(&args.paths, &opts, &progress) {
        Ok(d) => d,
        Err(stop) => return deletion_stopped(stop),
    };
    let written = write_deletion(
        run,
        "delete",
        DeleteBody::new(&d),
        &d.assumptions,
        outcome_of(&d),
        write_delete,
        out,
    );
    say_refusals(&d);
    written
}
