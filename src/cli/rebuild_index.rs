//! `logclean rebuild-index`: options → [`targets::resolve`] → one [`ActionPlan`] per log dir
//! (partitions planned in parallel) → dry run, `--verify-only` report, or journaled apply.

use std::io::Write;

use rayon::prelude::*;
use serde::Serialize;

use crate::actions::fsutil::RealFs;
use crate::actions::journal::{execute, RunOptions};
use crate::actions::plan::{ActionPlan, PlanSummary};
use crate::actions::rebuild_index::{plan_partition, RebuildOptions, SegmentReport};
use crate::actions::signals::defer_interrupts;
use crate::actions::targets::{resolve, ConfigSource, LogDirTarget};
use crate::actions::ActionError;
use crate::exit_codes::Outcome;

use super::inspect::Output;
use super::progress::Progress;
use super::{MutateArgs, OutputFormat, RebuildIndexArgs};

/// One log dir's part of the JSON output.
#[derive(Debug, Serialize)]
pub struct LogDirResult<R: Serialize> {
    /// The plan (steps, notes).
    pub plan: ActionPlan,
    /// Its totals.
    pub summary: PlanSummary,
    /// Per segment or partition.
    pub reports: Vec<R>,
    /// The journal of the applied run.
    pub journal: Option<std::path::PathBuf>,
}

/// The whole JSON document of a mutating command.
#[derive(Debug, Serialize)]
pub struct MutationDoc<R: Serialize> {
    /// The command.
    pub command: &'static str,
    /// Whether the plan was applied.
    pub executed: bool,
    /// Per log dir.
    pub log_dirs: Vec<LogDirResult<R>>,
}

/// Resolve targets, plan every partition of every log dir with `plan_one` (in parallel on
/// `--jobs` threads), then print and, with `--execute`, apply.
pub fn run_mutation<R, F>(
    command: &'static str,
    paths: &[std::path::PathBuf],
    mutate: &MutateArgs,
    read_only: bool,
    output: Output,
    out: &mut dyn Write,
    plan_one: F,
) -> Result<(Outcome, Vec<R>), ActionError>
where
    R: Serialize + Clone + Send,
    F: Fn(&LogDirTarget, usize, &mut ActionPlan) -> Result<Vec<R>, ActionError> + Sync,
{
    if mutate.execute {
        defer_interrupts();
    }
    let config = ConfigSource {
        server_properties: mutate.server_properties.clone(),
        overrides: mutate.overrides.clone(),
    };
    let targets = resolve(paths, &config, !read_only)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(mutate.jobs)
        .build()
        .map_err(|e| ActionError::Refused(format!("--jobs: {e}")))?;
    let progress = Progress::new(output.progress, command);
    let mut doc = MutationDoc {
        command,
        executed: mutate.execute,
        log_dirs: Vec::new(),
    };
    let mut all = Vec::new();
    for t in &targets {
        progress.add_length(t.partitions.len() as u64);
        let parts: Vec<Result<(ActionPlan, Vec<R>), ActionError>> = pool.install(|| {
            (0..t.partitions.len())
                .into_par_iter()
                .map(|i| {
                    let mut plan = ActionPlan::default();
                    let r = plan_one(t, i, &mut plan).map(|r| (plan, r));
                    progress.inc();
                    r
                })
                .collect()
        });
        let mut plan = ActionPlan {
            command: command.to_string(),
            log_dir: t.log_dir.path.clone(),
            notes: t.notes.clone(),
            ..ActionPlan::default()
        };
        let mut reports = Vec::new();
        for part in parts {
            let (p, r) = part?;
            plan.steps.extend(p.steps);
            plan.stamps.extend(p.stamps);
            plan.notes.extend(p.notes);
            reports.extend(r);
        }
        let mut journal = None;
        if mutate.execute && !plan.steps.is_empty() {
            let opts = RunOptions {
                journal_root: mutate.journal.clone(),
                quarantine_root: mutate.quarantine.clone(),
                purge: mutate.purge,
            };
            match execute(&plan, &opts, &RealFs) {
                Ok(r) => journal = Some(r.journal),
                Err(e) => {
                    progress.finish();
                    return Err(e);
                }
            }
        }
        all.extend(reports.iter().cloned());
        doc.log_dirs.push(LogDirResult {
            summary: plan.summary(),
            plan,
            reports,
            journal,
        });
    }
    progress.finish();
    let io = |e: std::io::Error| ActionError::io(std::path::Path::new("<stdout>"), e);
    match output.format {
        OutputFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &doc).map_err(|e| io(e.into()))?;
            writeln!(out).map_err(io)?;
        }
        OutputFormat::Table if !read_only => {
            for d in &doc.log_dirs {
                write!(out, "{}", d.plan.render_text(mutate.execute)).map_err(io)?;
                if let Some(j) = &d.journal {
                    writeln!(out, "journal: {}", j.display()).map_err(io)?;
                }
            }
        }
        OutputFormat::Table => {}
    }
    Ok((Outcome::Clean, all))
}

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
        r.log.display(),
        r.batches,
        show(&r.index),
        show(&r.timeindex),
        show(&r.txnindex)
    );
    for c in [&r.index, &r.timeindex, &r.txnindex].into_iter().flatten() {
        if let crate::actions::rebuild_index::Comparison::Differs { detail } = c {
            line.push_str(&format!("\n    differs: {detail}"));
        }
    }
    if let Some(t) = &r.invalid_tail {
        line.push_str(&format!(
            "\n    invalid tail at byte {} ({} bytes): {}",
            t.position, t.dropped_bytes, t.reason
        ));
    }
    for extra in [&r.tail_action, &r.fatal].into_iter().flatten() {
        line.push_str(&format!("\n    {extra}"));
    }
    line
}

/// Run `rebuild-index`.
pub fn run(
    args: &RebuildIndexArgs,
    output: Output,
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
        output,
        out,
        |t, i, plan| {
            let p = t
                .partitions
                .get(i)
                .ok_or_else(|| ActionError::Refused("no partition".into()))?;
            plan_partition(&t.path_of(p), p.segments.as_deref(), p.sizing, opts, plan)
        },
    );
    let (mut outcome, reports) = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("logclean: {e}");
            return Ok(e.outcome());
        }
    };
    if output.format == OutputFormat::Table {
        for r in &reports {
            writeln!(out, "{}", table_line(r))?;
        }
    }
    if args.verify_only && reports.iter().any(SegmentReport::needs_rebuild) {
        outcome = outcome.merge(Outcome::Findings);
    }
    if reports.iter().any(SegmentReport::corrupt) {
        outcome = outcome.merge(Outcome::Corrupt);
    }
    Ok(outcome)
}
