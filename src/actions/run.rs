//! What every mutating command shares: resolve targets, plan each partition in parallel, and
//! with `--execute` apply each log dir's plan through the journal ([`super::journal::execute`]).
//! The caller renders the result (`report::mutation`).

use std::path::PathBuf;

use rayon::prelude::*;

use crate::model::targets::LoadProgress;

use super::fsutil::RealFs;
use super::journal::{execute, preflight, space_release, RunOptions};
use super::plan::ActionPlan;
use super::signals::defer_interrupts;
use super::targets::{resolve, ConfigSource, LogDirTarget};
use super::ActionError;

/// The options every mutating command shares.
#[derive(Debug, Clone, Default)]
pub struct MutateOptions {
    /// Apply the plan (`--execute`); otherwise a dry run.
    pub execute: bool,
    /// Journal root, quarantine root, `--purge`.
    pub run: RunOptions,
    /// Threads planning and applying partitions (`--jobs`, 0: one per core).
    pub jobs: usize,
    /// Where the configs come from (`--server-properties`, `--config`, `--config-file`).
    pub config: ConfigSource,
}

/// One log dir's plan, what each partition or segment came to, and the journal of the applied
/// run.
#[derive(Debug)]
pub struct LogDirRun<R> {
    /// The plan (steps, notes).
    pub plan: ActionPlan,
    /// Per segment or partition.
    pub reports: Vec<R>,
    /// The journal of the applied run (`None` for a dry run or an empty plan).
    pub journal: Option<PathBuf>,
}

/// A planned (and, with `--execute`, applied) mutation.
#[derive(Debug)]
pub struct MutationRun<R> {
    /// The command.
    pub command: &'static str,
    /// Whether the plans were applied.
    pub executed: bool,
    /// Per log dir.
    pub log_dirs: Vec<LogDirRun<R>>,
}

impl<R> MutationRun<R> {
    /// Every report of every log dir, in order.
    pub fn reports(&self) -> impl Iterator<Item = &R> {
        self.log_dirs.iter().flat_map(|d| &d.reports)
    }
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
/// parallel on the same pool, see `journal::run_steps`). `read_only` (`rebuild-index
/// --verify-only`) does not probe the broker's lock.
pub fn run_mutation<R, F>(
    command: &'static str,
    paths: &[PathBuf],
    opts: &MutateOptions,
    read_only: bool,
    progress: &dyn LoadProgress,
    plan_one: F,
) -> Result<MutationRun<R>, ActionError>
where
    R: Send,
    F: Fn(&LogDirTarget, usize, &mut ActionPlan) -> Result<Vec<R>, ActionError> + Sync,
{
    if opts.execute {
        defer_interrupts();
    }
    let targets = resolve(paths, &opts.config, !read_only)?;
    let pool = job_pool(opts.jobs)?;
    let mut run = MutationRun {
        command,
        executed: opts.execute,
        log_dirs: Vec::new(),
    };
    for t in &targets {
        progress.add_length(t.partitions.len() as u64);
        let (mut plan, reports) = pool.install(|| plan_log_dir(command, t, progress, &plan_one))?;
        if !read_only {
            plan.release = Some(space_release(&plan.log_dir, &opts.run));
        }
        let mut journal = None;
        if !opts.execute && !read_only && !plan.steps.is_empty() {
            // The dry run refuses what `--execute` would refuse.
            if let Err(e) = preflight(&plan, &opts.run) {
                progress.finish();
                return Err(e);
            }
        }
        if opts.execute && !plan.steps.is_empty() {
            match pool.install(|| execute(&plan, &opts.run, &RealFs)) {
                Ok(r) => journal = Some(r.journal),
                Err(e) => {
                    progress.finish();
                    return Err(e);
                }
            }
        }
        run.log_dirs.push(LogDirRun {
            plan,
            reports,
            journal,
        });
    }
    progress.finish();
    Ok(run)
}

/// The plan of one log dir: every partition planned in parallel, their steps, stamps and notes
/// joined in partition order after the log dir's own notes.
fn plan_log_dir<R, F>(
    command: &'static str,
    t: &LogDirTarget,
    progress: &dyn LoadProgress,
    plan_one: &F,
) -> Result<(ActionPlan, Vec<R>), ActionError>
where
    R: Send,
    F: Fn(&LogDirTarget, usize, &mut ActionPlan) -> Result<Vec<R>, ActionError> + Sync,
{
    let parts: Vec<Result<(ActionPlan, Vec<R>), ActionError>> = (0..t.partitions.len())
        .into_par_iter()
        .map(|i| {
            let mut plan = ActionPlan::default();
            let r = plan_one(t, i, &mut plan).map(|r| (plan, r));
            progress.inc();
            r
        })
        .collect();
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
    Ok((plan, reports))
}
