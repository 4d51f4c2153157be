//! `logclean delete`: options → [`build_plan`] at the run's instant (with `--config` and
//! `--server-properties`) → one [`ActionPlan`] per log dir ([`plan_log_dir`]) → the consumer
//! groups that lose data ([`losses`]) → dry run, refusal (`--fail-if-group-loses-data`, assumed
//! configs) or journaled apply → [`write`] ([`write_delete`]).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::actions::delete::{plan_log_dir, DeleteReport};
use crate::actions::fsutil::RealFs;
use crate::actions::journal::execute;
use crate::actions::plan::ActionPlan;
use crate::actions::rebuild_index::IndexSizing;
use crate::actions::run::{job_pool, LogDirRun, MutateOptions};
use crate::actions::signals::defer_interrupts;
use crate::actions::targets::{refuse_unreadable, resolve, LogDirTarget};
use crate::actions::ActionError;
use crate::config::provenance::SUPPLY_CONFIGS;
use crate::exit_codes::Outcome;
use crate::model::cluster::{Assumptions, ClusterInputs, ClusterView, FileInput};
use crate::model::file_bytes::ReadMode;
use crate::model::groups::{losses, replay_partition, GroupState, Loss, TopicPartition};
use crate::model::log_dir::LogDir;
use crate::model::names::{PartitionDirState, CONSUMER_OFFSETS_TOPIC};
use crate::model::problem::FileProblem;
use crate::model::segment::{LoadOptions, ScanDepth};
use crate::model::units::Offset;
use crate::plan::{build_plan, PartitionPlan, Plan, PlanOptions};
use crate::report::mutation::{
    write_delete, AssumedRefusalDoc, DeleteBody, DeleteLogDirDoc, LossDoc, SortedKeys,
};
use crate::report::table::TableStyle;
use crate::report::wire::assumptions::AssumptionsDoc;
use crate::report::wire::Envelope;
use crate::report::Document;
use crate::rules::retention::Approximation;
use crate::rules::KafkaVersion;

use super::common::{load_targets, print_error, write};
use super::mutate::refused;
use super::progress::Progress;
use super::run_config::RunConfig;
use super::DeleteArgs;

/// The log start offset each partition gets from the deletion.
type LogStarts = BTreeMap<TopicPartition, Offset>;

/// Why `delete` stopped before its document: a refusal (said, exit 3) or an error.
enum Stop {
    Refused(ActionError),
    Failed(anyhow::Error),
}

impl From<ActionError> for Stop {
    fn from(e: ActionError) -> Self {
        Stop::Refused(e)
    }
}

/// What a deletion works from: the checked targets, the loaded dirs, their configs and the
/// retention plan at the run's instant.
struct Prepared {
    targets: Vec<LogDirTarget>,
    pool: rayon::ThreadPool,
    dirs: Vec<LogDir>,
    view: ClusterView,
    retention: Plan,
}

/// A partition left alone: its deletions rest on values logclean did not read.
struct AssumedRefusal<'a> {
    partition: &'a PartitionPlan,
    doc: AssumedRefusalDoc,
}

/// The planned (and maybe applied) deletion, ready for its document.
struct Deletion {
    log_dirs: Vec<LogDirRun<DeleteReport>>,
    refused_assumed: Vec<AssumedRefusalDoc>,
    lost: Vec<Loss>,
    assumptions: Assumptions,
    executed: bool,
    refuse_losses: bool,
}

impl Deletion {
    /// Whether the run was refused (nothing changed).
    fn refused(&self) -> bool {
        self.refuse_losses || !self.refused_assumed.is_empty()
    }
}

/// The configs of the run's log dirs (`--config` and `--server-properties` set the plan's).
fn cluster_inputs(args: &DeleteArgs, mode: ReadMode) -> ClusterInputs {
    ClusterInputs {
        log_dirs: args.paths.clone(),
        server_properties: args.mutate.server_properties.clone().map(FileInput::Path),
        overrides: args.mutate.overrides.clone(),
        describe_file: args.mutate.config_file.clone().map(FileInput::Path),
        read_mode: mode,
        ..ClusterInputs::default()
    }
}

/// Check the targets, load them and plan retention at the run's instant. What is deleted is
/// decided from every partition's files and configs: none may be a guess.
fn prepare(args: &DeleteArgs, opts: &MutateOptions, run: &RunConfig) -> Result<Prepared, Stop> {
    let targets = resolve(&args.paths, &opts.config, true)?;
    let pool = job_pool(opts.jobs)?;
    let load = LoadOptions::tail_with_internal_topics_at(ScanDepth::Headers, run.read_mode);
    let progress = Progress::new(run.output.progress, "reading partitions");
    // A wrong target (a parent of log dirs) is refused by `resolve` already.
    let (dirs, _) =
        (pool.install(|| load_targets(&args.paths, &load, &progress))).map_err(Stop::Failed)?;
    let view = ClusterView::build_over(&cluster_inputs(args, run.read_mode), &dirs)
        .map_err(|e| Stop::Failed(e.into()))?;
    let unreadable = (dirs.iter().flat_map(LogDir::unreadable))
        .map(|(_, u)| (u.path, u.message))
        .chain(view.unreadable());
    refuse_unreadable(unreadable)?;
    let plan_opts = PlanOptions {
        now: run.now,
        topics: Vec::new(),
        version: KafkaVersion::default(),
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
fn assumed_refusals<'a>(
    args: &DeleteArgs,
    retention: &'a Plan,
    assumptions: &Assumptions,
) -> Vec<AssumedRefusal<'a>> {
    (retention.partitions.iter())
        .filter(|p| p.freed().segments > 0)
        .filter_map(|p| {
            let assumed = if args.accept_assumed_configs {
                &[]
            } else {
                assumptions.of_topic(&p.topic)
            };
            let upload_unknown = upload_state_unknown(p);
            (!assumed.is_empty() || upload_unknown).then(|| AssumedRefusal {
                partition: p,
                doc: AssumedRefusalDoc::new(p, assumed, upload_unknown),
            })
        })
        .collect()
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// One plan per log dir of the retention plan's deletions (the refused partitions left out),
/// and the log start offset each partition gets.
fn plan_deletions(
    prep: &Prepared,
    refusals: &[AssumedRefusal<'_>],
) -> Result<(Vec<LogDirRun<DeleteReport>>, LogStarts), ActionError> {
    let mut runs = Vec::new();
    let mut starts = BTreeMap::new();
    let mut canonical_dirs: BTreeMap<&Path, PathBuf> = BTreeMap::new();
    for p in &prep.retention.partitions {
        canonical_dirs
            .entry(p.log_dir.as_path())
            .or_insert_with(|| canonical(&p.log_dir));
    }
    let refused = |p: &PartitionPlan| {
        (refusals.iter())
            .any(|r| r.partition.log_dir == p.log_dir && r.partition.dir_name == p.dir_name)
    };
    for t in &prep.targets {
        let here = canonical(&t.log_dir.path);
        let sizings: BTreeMap<&str, IndexSizing> = (t.partitions.iter())
            .map(|x| (x.dir.as_str(), x.sizing))
            .collect();
        let parts: Vec<_> = (prep.retention.partitions.iter())
            .filter(|p| canonical_dirs.get(p.log_dir.as_path()) == Some(&here))
            .filter(|p| !refused(p))
            .map(|p| (p, sizings.get(p.dir_name.as_str()).copied()))
            .collect();
        let mut plan = ActionPlan {
            command: "delete".to_string(),
            log_dir: t.log_dir.path.clone(),
            notes: t.notes.clone(),
            ..ActionPlan::default()
        };
        let reports = prep
            .pool
            .install(|| plan_log_dir(&t.log_dir.path, &parts, &mut plan))?;
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

/// The group state of every `__consumer_offsets` partition held (first copy of each), and the
/// files that could not be read (the groups they hold are missing from the state).
fn group_state(dirs: &[LogDir], mode: ReadMode) -> (GroupState, Vec<FileProblem>) {
    let mut state = GroupState::default();
    let mut unreadable = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for p in dirs.iter().flat_map(|d| &d.partitions) {
        let Some(name) = p
            .name
            .as_ref()
            .filter(|n| n.state == PartitionDirState::Live && n.topic == CONSUMER_OFFSETS_TOPIC)
        else {
            continue;
        };
        if seen.insert(name.partition) {
            if let Err(e) = replay_partition(&mut state, p, name.partition, mode) {
                unreadable.push(e);
            }
        }
    }
    (state, unreadable)
}

/// The consumer groups whose committed offsets fall below the new log starts; a group
/// partition that cannot be read refuses the run (its groups' losses would be unknown).
fn group_losses(
    dirs: &[LogDir],
    mode: ReadMode,
    starts: &LogStarts,
) -> Result<Vec<Loss>, ActionError> {
    let (groups, unreadable) = group_state(dirs, mode);
    let unreadable = unreadable.iter().filter_map(|p| match p {
        FileProblem::Io { path, message } => Some((path.as_path(), message.as_str())),
        FileProblem::Format { .. } => None,
    });
    refuse_unreadable(unreadable)?;
    Ok(losses(&groups, starts))
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

/// Plan the deletion, find who loses data, and apply it unless refused or a dry run.
fn delete(args: &DeleteArgs, run: &RunConfig) -> Result<Deletion, Stop> {
    let opts = args.mutate.options();
    let prep = prepare(args, &opts, run)?;
    // A partition whose deletions rest on values logclean did not read is not touched.
    let assumptions = prep.view.assumptions(&[]);
    let refusals = assumed_refusals(args, &prep.retention, &assumptions);
    let (mut log_dirs, starts) = plan_deletions(&prep, &refusals)?;
    let lost = group_losses(&prep.dirs, run.read_mode, &starts)?;
    let refuse_losses = args.fail_if_group_loses_data && !lost.is_empty();
    let executed = opts.execute && !refuse_losses && refusals.is_empty();
    if executed {
        apply(&mut log_dirs, &opts, &prep.pool)?;
    }
    Ok(Deletion {
        log_dirs,
        refused_assumed: refusals.into_iter().map(|r| r.doc).collect(),
        lost,
        assumptions,
        executed,
        refuse_losses,
    })
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
    let d = match delete(args, run) {
        Ok(d) => d,
        Err(Stop::Refused(e)) => return Ok(refused(e)),
        Err(Stop::Failed(e)) => return Err(e),
    };
    let outcome = outcome_of(&d);
    let body = SortedKeys(DeleteBody {
        executed: d.executed,
        refused: d.refused(),
        log_dirs: d.log_dirs.iter().map(DeleteLogDirDoc::new).collect(),
        groups_losing_data: d.lost.iter().map(LossDoc::from).collect(),
        refused_assumed_configs: &d.refused_assumed,
    });
    let doc = Document {
        assumptions: Some(AssumptionsDoc::new(&d.assumptions)),
        ..Document::new("delete", body, outcome)
    };
    let width = run.output.width;
    let table = |doc: &Envelope<SortedKeys<DeleteBody<'_>>>,
                 _: &TableStyle,
                 out: &mut dyn Write| { write_delete(&doc.body.0, width, out) };
    let written = write(run, doc, table, out);
    say_refusals(&d);
    written
}
