//! `logclean delete`: options → [`run_delete`] (the retention plan at the run's instant, with
//! `--config` and `--server-properties`; one plan per log dir; the consumer groups that lose
//! data; dry run, refusal or journaled apply) → [`write`] ([`write_delete`]), and the refusals
//! said on stderr.

use std::io::Write;

use crate::actions::delete::DeleteReport;
use crate::actions::delete_run::{run_delete, DeleteOptions, DeleteStop, Deletion};
use crate::config::provenance::SUPPLY_CONFIGS;
use crate::exit_codes::Outcome;
use crate::model::cluster::{ClusterInputs, FileInput};
use crate::report::mutation::{write_delete, DeleteBody, SortedKeys};
use crate::report::table::TableStyle;
use crate::report::wire::assumptions::AssumptionsDoc;
use crate::report::wire::Envelope;
use crate::report::Document;

use super::common::{print_error, write};
use super::mutate::refused;
use super::progress::Progress;
use super::run_config::RunConfig;
use super::DeleteArgs;

/// What `args` ask [`run_delete`] to do, at the run's instant.
fn options(args: &DeleteArgs, run: &RunConfig) -> DeleteOptions {
    let mutate = &args.mutate;
    DeleteOptions {
        mutate: mutate.options(),
        cluster: ClusterInputs {
            log_dirs: args.paths.clone(),
            server_properties: mutate.server_properties.clone().map(FileInput::Path),
            overrides: mutate.overrides.clone(),
            describe_file: mutate.config_file.clone().map(FileInput::Path),
            read_mode: run.read_mode,
            kafka_version: run.kafka_version,
            ..ClusterInputs::default()
        },
        now: run.now,
        accept_assumed_configs: args.accept_assumed_configs,
        fail_if_group_loses_data: args.fail_if_group_loses_data,
    }
}

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
        let mut names: Vec<&str> = d.lost.iter().map(|l| l.group.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        print_error(&format!(
            "refused: --fail-if-group-loses-data: group(s) {} would lose data; nothing changed",
            names.join(", ")
        ));
    }
}

/// Run `delete`.
pub fn run(args: &DeleteArgs, run: &RunConfig, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let progress = Progress::new(run.output.progress, "reading partitions");
    let d = match run_delete(&args.paths, &options(args, run), &progress) {
        Ok(d) => d,
        Err(DeleteStop::Refused(e)) => return Ok(refused(e)),
        Err(DeleteStop::Load(e)) => return Err(e.into()),
        Err(DeleteStop::Config(e)) => return Err(e.into()),
    };
    let doc = Document {
        assumptions: Some(AssumptionsDoc::new(&d.assumptions)),
        ..Document::new("delete", SortedKeys(DeleteBody::new(&d)), outcome_of(&d))
    };
    let width = run.output.width;
    let table = |doc: &Envelope<SortedKeys<DeleteBody<'_>>>,
                 _: &TableStyle,
                 out: &mut dyn Write| { write_delete(&doc.body.0, width, out) };
    let written = write(run, doc, table, out);
    say_refusals(&d);
    written
}
