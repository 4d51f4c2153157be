//! `logclean config`: the value of each cleanup-relevant config the broker would use for each
//! topic, and where it comes from, read offline: built-in defaults, `server.properties`, the KRaft
//! metadata log (topic overrides, dynamic broker configs), `--config` and `--config-file`.
//!
//! Options → [`ClusterView::build`] → [`config_findings`] → [`ConfigDoc`].

use crate::report::assumptions::write_assumptions;
use crate::report::wire::assumptions::AssumptionsDoc;
use std::io::Write;

use crate::checks::config::config_findings;
use crate::checks::inspect::sort_findings;
use crate::checks::unreadable::checkpoint_findings;
use crate::exit_codes::Outcome;
use crate::model::cluster::{ClusterInputs, ClusterView, FileInput};
use crate::model::file_bytes::ReadMode;
use crate::model::log_dir::RootCheckpoints;
use crate::report::config_doc::{ConfigBody, KeyFilter};
use crate::report::config_table::render_config;
use crate::report::render_json;
use crate::report::wire::Envelope;

pub use crate::config::log_config::{CLEANUP_BROKER_KEYS, CLEANUP_TOPIC_KEYS};

use super::common::{finish_render, outcome_of};
use super::run_config::RunConfig;
use super::{ConfigArgs, OutputFormat};

/// What `args` ask [`ClusterView::build`] to read.
fn inputs(args: &ConfigArgs, run: &RunConfig) -> ClusterInputs {
    ClusterInputs {
        log_dirs: args.paths.clone(),
        server_properties: args.server_properties.clone().map(FileInput::Path),
        broker_id: args.broker_id,
        overrides: args.overrides.clone(),
        describe_file: args.config_file.clone().map(FileInput::Path),
        topics: args.topics.clone(),
        read_mode: ReadMode::from_mmap_flag(args.mmap),
        kafka_version: run.kafka_version,
        describe_file_release: None,
    }
}

/// Run `config`.
pub fn run(args: &ConfigArgs, run: &RunConfig, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let view = ClusterView::build(&inputs(args, run))?;
    let mut findings = config_findings(&view);
    // The configs do not depend on the root checkpoints, but a log dir whose checkpoints cannot
    // be read is one the broker marks offline: said here as every command says it.
    for d in &view.log_dirs {
        findings.extend(checkpoint_findings(d, &RootCheckpoints::read(d)));
    }
    sort_findings(&mut findings);
    let outcome = outcome_of(&findings, args.fail_on);
    let filter = KeyFilter {
        all_keys: args.all_keys,
        diff: args.diff,
    };
    let doc = Envelope::new(
        "config",
        run.generated_at_ms,
        run.evaluated_at_ms,
        ConfigBody::new(&view, filter),
        &findings,
        None,
        outcome,
    )
    .with_assumptions(AssumptionsDoc::of(&view, &args.topics));
    let rendered = match run.output.format {
        OutputFormat::Json => render_json(&doc, out),
        OutputFormat::Table => write_assumptions(doc.assumptions.as_ref(), run.output.width, out)
            .and_then(|()| render_config(&doc, &run.output.table_style(run.evaluated_at_ms), out)),
    };
    finish_render(outcome, rendered)
}
