//! `logclean config`: the value of each cleanup-relevant config the broker would use for each
//! topic, and where it comes from, read offline: built-in defaults, `server.properties`, the KRaft
//! metadata log (topic overrides, dynamic broker configs), `--config` and `--config-file`.
//!
//! Options → [`ClusterView::build`] → [`config_findings`] → [`ConfigBody`] → [`write`]
//! ([`render_config`]).

use std::io::Write;

use crate::checks::config::config_findings;
use crate::checks::inspect::sort_findings;
use crate::checks::unreadable::checkpoint_findings;
use crate::exit_codes::Outcome;
use crate::model::cluster::{ClusterInputs, ClusterView, FileInput};
use crate::model::log_dir::RootCheckpoints;
use crate::model::snapshot::Parts;
use crate::model::snapshot::Snapshots;
use crate::report::config_doc::{ConfigBody, KeyFilter};
use crate::report::config_table::render_config;
use crate::report::wire::assumptions::AssumptionsDoc;
use crate::report::wire::filter::TopicFilterDoc;
use crate::report::Document;
use std::collections::BTreeSet;

pub use crate::config::log_config::{CLEANUP_BROKER_KEYS, CLEANUP_TOPIC_KEYS};

use super::common::{outcome_of, with_snapshots, write};
use super::run_config::RunConfig;
use super::ConfigArgs;

/// What `args` ask [`ClusterView::build`] to read.
fn inputs(args: &ConfigArgs, run: &RunConfig, snaps: Option<&Snapshots>) -> ClusterInputs {
    ClusterInputs {
        log_dirs: snaps.map_or_else(|| args.paths.clone(), |s| s.log_dirs.clone()),
        facts: snaps.map(|s| s.dir_facts.clone()),
        replays: snaps.map(|s| s.replays.clone()),
        server_properties: args.server_properties.clone().map(FileInput::Path),
        broker_id: args.broker_id,
        overrides: args.overrides.clone(),
        describe_file: args.config_file.clone().map(FileInput::Path),
        topics: run.filters.topics.clone(),
        read_mode: run.read_mode,
        kafka_version: run.kafka_version,
        describe_file_release: None,
    }
}

/// Run `config`.
pub fn run(args: &ConfigArgs, run: &RunConfig, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let (snaps, run) = with_snapshots(&args.snapshot, run, Parts::NO_DISK)?;
    let run = &run;
    let mut findings;
    let view = match &snaps {
        // A snapshot's dirs come loaded, their root checkpoints with them.
        Some(s) => {
            let view = ClusterView::build_over(&inputs(args, run, Some(s)), &s.dirs)?;
            findings = config_findings(&view);
            for d in &s.dirs {
                findings.extend(checkpoint_findings(&d.path, &d.checkpoints));
            }
            view
        }
        None => {
            let view = ClusterView::build(&inputs(args, run, None))?;
            findings = config_findings(&view);
            // The configs do not depend on the root checkpoints, but a log dir whose
            // checkpoints cannot be read is one the broker marks offline: said here as every
            // command says it.
            for d in &view.log_dirs {
                findings.extend(checkpoint_findings(d, &RootCheckpoints::read(d)));
            }
            view
        }
    };
    sort_findings(&mut findings);
    let filter = KeyFilter {
        all_keys: args.all_keys,
        diff: args.diff,
    };
    let outcome = outcome_of(&findings, run.filters.fail_on);
    let mut body = ConfigBody::new(&view, filter);
    // The topics the input holds: the metadata image's and the partition dirs'.
    let known: BTreeSet<&str> = (view.image.topics.keys().map(String::as_str))
        .chain(view.partition_topics.values().map(String::as_str))
        .collect();
    body.filter = TopicFilterDoc::of(
        &run.filters.topics,
        known.iter().copied(),
        (body.topics.iter())
            .filter(|t| known.contains(t.topic.as_str()))
            .count(),
        known.len(),
        "topic(s)",
    );
    let doc = Document {
        command: "config",
        body,
        findings,
        scanned: None,
        assumptions: Some(AssumptionsDoc::of(&view, &run.filters.topics)),
        outcome,
    };
    write(run, doc, render_config, out)
}
