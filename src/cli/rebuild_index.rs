//! `logclean rebuild-index`: options → [`run_mutation`] with [`plan_partition`] (targets, one
//! plan per log dir, partitions planned in parallel; a dry run, the `--verify-only` comparison,
//! or a journaled apply) → [`write`] ([`write_rebuild_index`]).

use std::io::Write;

use crate::actions::rebuild_index::{plan_partition, RebuildOptions, SegmentReport};
use crate::actions::run::run_mutation;
use crate::actions::ActionError;
use crate::exit_codes::Outcome;
use crate::report::mutation::{write_rebuild_index, MutationBody};
use crate::report::table::TableStyle;
use crate::report::wire::Envelope;
use crate::report::Document;

use super::common::write;
use super::mutate::refused;
use super::progress::Progress;
use super::run_config::RunConfig;
use super::RebuildIndexArgs;

/// Run `rebuild-index`.
pub fn run(
    args: &RebuildIndexArgs,
    run: &RunConfig,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let opts = RebuildOptions {
        truncate_invalid_tail: args.truncate_invalid_tail,
    };
    let progress = Progress::new(run.output.progress, "rebuild-index");
    let result = run_mutation(
        "rebuild-index",
        &args.paths,
        &args.mutate.options(),
        args.verify_only,
        &progress,
        |t, i, plan| {
            let p = t
                .partitions
                .get(i)
                .ok_or_else(|| ActionError::Refused("no partition".into()))?;
            plan_partition(&t.path_of(p), p.segments.as_deref(), p.sizing, opts, plan)
        },
    );
    let m = match result {
        Ok(m) => m,
        Err(e) => return Ok(refused(e)),
    };
    let mut outcome = Outcome::Clean;
    if args.verify_only && m.reports().any(SegmentReport::needs_rebuild) {
        outcome = outcome.merge(Outcome::Findings);
    }
    // Corruption an applied truncation repaired no longer stands: the run fixed it.
    if m.reports()
        .any(|r| r.corrupt() && !(m.executed && r.truncates()))
    {
        outcome = outcome.merge(Outcome::Corrupt);
    }
    let doc = Document::new(m.command, MutationBody::new(&m), outcome);
    let table =
        |doc: &Envelope<MutationBody<'_, SegmentReport>>, _: &TableStyle, out: &mut dyn Write| {
            write_rebuild_index(&doc.body, args.verify_only, out)
        };
    write(run, doc, table, out)
}
