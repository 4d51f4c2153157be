//! What every mutating command shares: resolve targets, plan each partition in parallel,
//! apply through the journal with `--execute`, and print the plan or the JSON envelope.

use std::io::Write;

use rayon::prelude::*;
use serde::Serialize;

use crate::actions::fsutil::RealFs;
use crate::actions::journal::{execute, RunOptions};
use crate::actions::plan::{ActionPlan, PlanSummary};
use crate::actions::signals::defer_interrupts;
use crate::actions::targets::{resolve, ConfigSource, LogDirTarget};
use crate::actions::ActionError;
use crate::exit_codes::Outcome;
use crate::report::render_json;
use crate::report::sanitize::escape_path;
use crate::report::wire::Envelope;

use super::common::Output;
use super::progress::Progress;
use super::run_config::RunConfig;
use super::{MutateArgs, OutputFormat};

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
    #[serde(with = "crate::model::names::opt_path_serde")]
    pub journal: Option<std::path::PathBuf>,
}

/// The keys a mutating command adds to the shared JSON envelope.
#[derive(Debug, Serialize)]
pub struct MutationBody<R: Serialize> {
    /// Whether the plan was applied.
    pub executed: bool,
    /// Per log dir.
    pub log_dirs: Vec<LogDirResult<R>>,
}

/// A planned (and, with `--execute`, applied) mutation, not yet rendered.
pub struct Mutation<R: Serialize> {
    /// The command.
    pub command: &'static str,
    /// Its document body.
    pub body: MutationBody<R>,
    /// Every report of every log dir, in order.
    pub reports: Vec<R>,
}

/// The pool of `--jobs` threads (0: one per core) that every mutating command loads and plans
/// partitions on.
pub fn job_pool(jobs: usize) -> Result<rayon::ThreadPool, ActionError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| ActionError::Refused(format!("--jobs: {e}")))
}

/// Resolve targets, plan every partition of every log dir with `plan_one` (in parallel on
/// `--jobs` threads) and, with `--execute`, apply (steps of different partition dirs in
/// parallel on the same pool, see `journal::run_steps`); [`render_mutation`] prints the result once
/// the caller knows its outcome.
pub fn run_mutation<R, F>(
    command: &'static str,
    paths: &[std::path::PathBuf],
    mutate: &MutateArgs,
    read_only: bool,
    output: Output,
    plan_one: F,
) -> Result<Mutation<R>, ActionError>
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
        config_file: mutate.config_file.clone(),
    };
    let targets = resolve(paths, &config, !read_only)?;
    let pool = job_pool(mutate.jobs)?;
    let progress = Progress::new(output.progress, command);
    let mut body = MutationBody {
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
            match pool.install(|| execute(&plan, &opts, &RealFs)) {
                Ok(r) => journal = Some(r.journal),
                Err(e) => {
                    progress.finish();
                    return Err(e);
                }
            }
        }
        all.extend(reports.iter().cloned());
        body.log_dirs.push(LogDirResult {
            summary: plan.summary(),
            plan,
            reports,
            journal,
        });
    }
    progress.finish();
    Ok(Mutation {
        command,
        body,
        reports: all,
    })
}

/// Print a mutation: the shared JSON envelope (no findings; `summary.exit_code` is `outcome`),
/// or the plan of each log dir as text (nothing for a read-only check such as
/// `rebuild-index --verify-only`, whose caller prints its comparisons).
pub fn render_mutation<R: Serialize>(
    m: &Mutation<R>,
    read_only: bool,
    run: &RunConfig,
    outcome: Outcome,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    match run.output.format {
        OutputFormat::Json => {
            let doc = Envelope::new(
                m.command,
                run.generated_at_ms,
                run.evaluated_at_ms,
                &m.body,
                &[],
                None,
                outcome,
            );
            render_json(&doc, out)
        }
        OutputFormat::Table if !read_only => {
            for d in &m.body.log_dirs {
                write!(out, "{}", d.plan.render_text(m.body.executed))?;
                if let Some(j) = &d.journal {
                    writeln!(out, "journal: {}", escape_path(j))?;
                }
            }
            Ok(())
        }
        OutputFormat::Table => Ok(()),
    }
}
