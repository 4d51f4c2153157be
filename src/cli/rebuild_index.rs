//! `logclean rebuild-index`: options → [`run_mutation`] (targets, one plan per log dir,
//! partitions planned in parallel) → dry run, `--verify-only` report, or journaled apply.

use std::io::Write;

use crate::actions::rebuild_index::{plan_partition, RebuildOptions, SegmentReport};
use crate::actions::ActionError;
use crate::exit_codes::Outcome;

use super::common::{finish_render, print_error};
use super::mutate::{render_mutation, run_mutation};
use super::run_config::RunConfig;
use super::{OutputFormat, RebuildIndexArgs};
use crate::report::sanitize::{escape, escape_path};

fn table_line(r: &SegmentReport) -> String {
    let show = |c: &Option<crate::actions::rebuild_index::Comparison>| {
        c.as_ref().map_or("-".to_string(), |c| {
            serde_json::to_value(c)
                .ok()
                .and_then(|v| {
                    v.get("verdict")
                        .and_then(|s| s.as_str())
                        .map(str::to_string)
                })
                .unwrap_or_default()
        })
    };
    let mut line = format!(
        "  {} ({} batches): index {}, timeindex {}, txnindex {}",
        escape_path(&r.log),
        r.batches,
        show(&r.index),
        show(&r.timeindex),
        show(&r.txnindex)
    );
    for c in [&r.index, &r.timeindex, &r.txnindex].into_iter().flatten() {
        if let crate::actions::rebuild_index::Comparison::Differs { detail } = c {
            line.push_str(&format!("\n    differs: {}", escape(detail)));
        }
    }
    if let Some(t) = &r.invalid_tail {
        line.push_str(&format!(
            "\n    invalid tail at byte {} ({} bytes): {}",
            t.position,
            t.dropped_bytes,
            escape(&t.reason)
        ));
    }
    for extra in [&r.tail_action, &r.fatal].into_iter().flatten() {
        line.push_str(&format!("\n    {}", escape(extra)));
    }
    line
}

/// Run `rebuild-index`.
pub fn run(
    args: &RebuildIndexArgs,
    run: &RunConfig,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let opts = RebuildOptions {
        truncate_invalid_tail: args.truncate_invalid_tail,
    };
    let result = run_mutation(
        "rebuild-index",
        &args.paths,
        &args.mutate,
        args.verify_only,
        run.output,
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
        Err(e) => {
            print_error(&e);
            return Ok(e.outcome());
        }
    };
    let mut outcome = Outcome::Clean;
    if args.verify_only && m.reports.iter().any(SegmentReport::needs_rebuild) {
        outcome = outcome.merge(Outcome::Findings);
    }
    if m.reports.iter().any(SegmentReport::corrupt) {
        outcome = outcome.merge(Outcome::Corrupt);
    }
    let mut rendered = render_mutation(&m, args.verify_only, run, outcome, out);
    if rendered.is_ok() && run.output.format == OutputFormat::Table {
        rendered = m
            .reports
            .iter()
            .try_for_each(|r| writeln!(out, "{}", table_line(r)));
    }
    finish_render(outcome, rendered)
}
