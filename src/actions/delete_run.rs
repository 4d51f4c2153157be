//! The whole `delete` run: check the targets, load them, plan retention at the run's instant,
//! leave alone the partitions whose deletions rest on values nobody read, plan each log dir's
//! deletions ([`plan_log_dir`]), find the consumer groups that lose data ([`losses`]), and apply
//! unless refused or a dry run. `report::mutation` renders the result.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::config::provenance::AssumedValue;
use crate::model::cluster::{Assumptions, ClusterError, ClusterInputs, ClusterView};
use crate::model::coordinators::replay_groups;
use crate::model::file_bytes::ReadMode;
use crate::model::groups::TopicPartition;
use crate::model::log_dir::LogDir;
use crate::model::problem::FileProblem;
use crate::model::segment::{LoadOptions, ScanDepth};
use crate::model::targets::{load_targets, LoadProgress, TargetError};
use crate::model::units::{Offset, TimestampMs};
use crate::plan::{build_plan, PartitionPlan, Plan, PlanOptions};
use crate::rules::groups::{losses, Loss};
use crate::rules::retention::Approximation;

use super::delete::{plan_log_dir, DeleteReport};
use super::fsutil::RealFs;
use super::journal::{execute, space_release, RunOptions};
use super::plan::ActionPlan;
use super::rebuild_index::IndexSizing;
use super::run::{job_pool, LogDirRun, MutateOptions};
use super::signals::defer_interrupts;
use super::targets::{refuse_unreadable, resolve, LogDirTarget};
use super::ActionError;

/// What `delete` is asked to do.
#[derive(Debug, Clone)]
pub struct DeleteOptions {
    /// The options every mutating command shares.
    pub mutate: MutateOptions,
    /// The configs' sources (log dirs, `--server-properties`, `--config`, `--config-file`).
    pub cluster: ClusterInputs,
    /// The instant the retention plan is made at.
    pub now: TimestampMs,
    /// Delete also where the plan rests on assumed config values.
    pub accept_assumed_configs: bool,
    /// Refuse when a consumer group's committed offset would fall below a new log start.
    pub fail_if_group_loses_data: bool,
}

/// Why `delete` stopped before it had a result: a refusal (nothing changed) or an input that
/// could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum DeleteStop {
    /// A safety rule refused the run, or applying it failed.
    #[error(transparent)]
    Refused(#[from] ActionError),
    /// The targets could not be loaded.
    #[error(transparent)]
    Load(#[from] TargetError),
    /// The configs could not be resolved.
    #[error(transparent)]
    Config(#[from] ClusterError),
}

/// A partition left alone: its deletions rest on values logclean did not read.
#[derive(Debug, Clone)]
pub struct AssumedRefusal {
    /// Its index in [`Deletion::retention`]'s partitions.
    pub partition: usize,
    /// The assumed values (none with `--accept-assumed-configs`).
    pub assumed: Vec<AssumedValue>,
    /// A tiered partition whose upload state is not known: its local deletions wait for uploads
    /// nobody here can see (no acknowledgement lifts this).
    pub upload_state_unknown: bool,
}

/// The planned (and maybe applied) deletion.
#[derive(Debug)]
pub struct Deletion {
    /// The retention plan it carries out.
    pub retention: Plan,
    /// Per log dir: its plan, per-partition reports and journal.
    pub log_dirs: Vec<LogDirRun<DeleteReport>>,
    /// The partitions left alone for assumed configs.
    pub refused_assumed: Vec<AssumedRefusal>,
    /// The consumer groups that lose data.
    pub lost: Vec<Loss>,
    /// What the plan's configs assume.
    pub assumptions: Assumptions,
    /// Whether the plans were applied.
    pub executed: bool,
    /// Refused by `--fail-if-group-loses-data`.
    pub refuse_losses: bool,
}

impl Deletion {
    /// Whether the run was refused (nothing changed).
    pub fn refused(&self) -> bool {
        self.refuse_losses || !self.refused_assumed.is_empty()
    }

    /// The partition plan a refusal is about.
    pub fn partition(&self, r: &AssumedRefusal) -> Option<&PartitionPlan> {
        self.retention.partitions.get(r.partition)
    }
}

/// The log start offset each partition gets from the deletion.
pub(crate) type LogStarts = BTreeMap<TopicPartition, Offset>;

/// What a deletion works from: the checked targets, the loaded dirs, their configs and the
/// retention plan at the run's instant.
pub(crate) struct Prepared {
    pub(crate) targets: Vec<LogDirTarget>,
    pub(crate) pool: rayon::ThreadPool,
    pub(crate) dirs: Vec<LogDir>,
    pub(crate) view: ClusterView,
    pub(crate) retention: Plan,
}

/// Check the targets, load them and plan retention at the run's instant. What is deleted is
/// decided from every partition's files and configs: none may be a guess.
pub(crate) fn prepare(
    paths: &[PathBuf],
    opts: &DeleteOptions,
    progress: &dyn LoadProgress,
) -> Result<Prepared, DeleteStop> {
    let targets = resolve(paths, &opts.mutate.config, true)?;
    let pool = job_pool(opts.mutate.jobs)?;
    let load =
        LoadOptions::tail_with_internal_topics_at(ScanDepth::Headers, opts.cluster.read_mode);
    // A wrong target (a parent of log dirs) is refused by `resolve` already.
    let dirs = pool.install(|| load_targets(paths, &load, progress))?.dirs;
    let view = ClusterView::build_over(&opts.cluster, &dirs)?;
    let unreadable = (dirs.iter().flat_map(LogDir::unreadable))
        .map(|(_, u)| (u.path, u.message))
        .chain(view.unreadable());
    refuse_unreadable(unreadable)?;
    let plan_opts = PlanOptions {
        now: opts.now,
        topics: Vec::new(),
        version: view.kafka_version.version,
    };
    let retention = build_plan(&view, &dirs, &plan_opts);
    Ok(Prepared {
        targets,
        pool,
        dirs,
        view,
        retention,
    })
}

/// Whether `p` is a tiered partition whose local deletions rest on an upload state logclean
/// did not read (the plan assumes every closed segment uploaded).
fn upload_state_unknown(p: &PartitionPlan) -> bool {
    matches!(
        p.retention.approximation,
        Some(Approximation::TieredStorage {
            upload_state_known: false
        })
    )
}

/// The partitions whose deletions rest on assumed config values (unless
/// `--accept-assumed-configs`) or on an upload state nobody here can see.
pub(crate) fn assumed_refusals(
    opts: &DeleteOptions,
    retention: &Plan,
    assumptions: &Assumptions,
) -> Vec<AssumedRefusal> {
    (retention.partitions.iter().enumerate())
        .filter(|(_, p)| p.freed().segments > 0)
        .filter_map(|(i, p)| {
            let assumed = if opts.accept_assumed_configs {
                &[]
            } else {
                assumptions.of_topic(&p.topic)
            };
            let upload_state_unknown = upload_state_unknown(p);
            (!assumed.is_empty() || upload_state_unknown).then(|| AssumedRefusal {
                partition: i,
                assumed: assumed.to_vec(),
                upload_state_unknown,
            })
        })
        .collect()
}

pub(crate) fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// One plan per log dir of the retention plan's deletions (the refused partitions left out),
/// and the log start offset each partition gets.
fn plan_deletions(
    prep: &Prepared,
    refusals: &[AssumedRefusal],
    run: &RunOptions,
) -> Result<(Vec<LogDirRun<DeleteReport>>, LogStarts), ActionError> {
    let partitions = &prep.retention.partitions;
    let refused: Vec<&PartitionPlan> = (refusals.iter())
        .filter_map(|r| partitions.get(r.partition))
        .collect();
    let is_refused = |p: &PartitionPlan| {
        (refused.iter()).any(|r| r.log_dir == p.log_dir && r.dir_name == p.dir_name)
    };
    let mut canonical_dirs: BTreeMap<&Path, PathBuf> = BTreeMap::new();
    for p in partitions {
        canonical_dirs
            .entry(p.log_dir.as_path())
            .or_insert_with(|| canonical(&p.log_dir));
    }
    let (mut runs, mut starts) = (Vec::new(), BTreeMap::new());
    for t in &prep.targets {
        let here = canonical(&t.log_dir.path);
        let sizings: BTreeMap<&str, IndexSizing> = (t.partitions.iter())
            .map(|x| (x.dir.as_str(), x.sizing))
            .collect();
        let parts: Vec<_> = (partitions.iter())
            .filter(|p| canonical_dirs.get(p.log_dir.as_path()) == Some(&here))
            .filter(|p| !is_refused(p))
            .map(|p| (p, sizings.get(p.dir_name.as_str()).copied()))
            .collect();
        let mut plan = ActionPlan {
            command: "delete".to_string(),
            log_dir: t.log_dir.path.clone(),
            notes: t.notes.clone(),
            release: Some(space_release(&t.log_dir.path, run)),
            ..ActionPlan::default()
        };
        let reports = (prep.pool).install(|| plan_log_dir(&t.log_dir.path, &parts, &mut plan))?;
        for r in &reports {
            if let Some(s) = r.log_start_offset_after {
                starts.insert((r.topic.clone(), r.partition_number), Offset(s));
            }
        }
        runs.push(LogDirRun {
            plan,
            reports,
            journal: None,
        });
    }
    Ok((runs, starts))
}

/// The consumer groups whose committed offsets fall below the new log starts. A
/// `__consumer_offsets` partition that cannot be read hides its groups' losses: refused.
pub(crate) fn group_losses(
    dirs: &[LogDir],
    mode: ReadMode,
    starts: &LogStarts,
) -> Result<Vec<Loss>, ActionError> {
    let groups = replay_groups(dirs, crate::model::replays::Records::Files(mode));
    let unreadable: Vec<(&Path, String)> = (groups.unreadable.iter())
        .map(|u| match &u.problem {
            FileProblem::Io { path, message } => (path.as_path(), message.clone()),
            FileProblem::Format { path, error } => (path.as_path(), error.to_string()),
        })
        .collect();
    refuse_unreadable(unreadable.iter().map(|(p, m)| (*p, m.as_str())))?;
    Ok(losses(&groups.state, starts))
}

/// Apply each log dir's plan through the journal.
fn apply(
    runs: &mut [LogDirRun<DeleteReport>],
    opts: &MutateOptions,
    pool: &rayon::ThreadPool,
) -> Result<(), ActionError> {
    defer_interrupts();
    for d in runs.iter_mut().filter(|d| !d.plan.steps.is_empty()) {
        d.journal = Some(
            pool.install(|| execute(&d.plan, &opts.run, &RealFs))?
                .journal,
        );
    }
    Ok(())
}

/// Plan the deletion of `paths` at `opts.now`, find who loses data, and apply it unless
/// refused or a dry run.
pub fn run_delete(
    paths: &[PathBuf],
    opts: &DeleteOptions,
    progress: &dyn LoadProgress,
) -> Result<Deletion, DeleteStop> {
    let prep = prepare(paths, opts, progress)?;
    // A partition whose deletions rest on values logclean did not read is not touched.
    let assumptions = prep.view.assumptions(&[]);
    let refused_assumed = assumed_refusals(opts, &prep.retention, &assumptions);
    let (mut log_dirs, starts) = plan_deletions(&prep, &refused_assumed, &opts.mutate.run)?;
    let lost = group_losses(&prep.dirs, opts.cluster.read_mode, &starts)?;
    let refuse_losses = opts.fail_if_group_loses_data && !lost.is_empty();
    let executed = opts.mutate.execute && !refuse_losses && refused_assumed.is_empty();
    if executed {
        apply(&mut log_dirs, &opts.mutate, &prep.pool)?;
    }
    Ok(Deletion {
        retention: prep.retention,
        log_dirs,
        refused_assumed,
        lost,
        assumptions,
        executed,
        refuse_losses,
    })
}
