//! `logclean delete`: options → [`build_plan`] at `--at`/`--after` (with `--config` and
//! `--server-properties`) → one [`ActionPlan`] per log dir ([`plan_log_dir`]) → the consumer
//! groups that lose data ([`losses`]) → dry run, refusal (`--fail-if-group-loses-data`) or
//! journaled apply.

use crate::config::provenance::{AssumedValue, SUPPLY_CONFIGS};
use crate::plan::PartitionPlan;
use crate::report::assumptions::write_assumptions;
use crate::report::terminal::{fit_atoms, words};
use crate::report::wire::assumptions::AssumptionsDoc;
use crate::rules::retention::Approximation;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use serde::Serialize;

use crate::actions::delete::{plan_log_dir, DeleteReport};
use crate::actions::fsutil::RealFs;
use crate::actions::journal::{execute, RunOptions};
use crate::actions::plan::{ActionPlan, PlanSummary};
use crate::actions::rebuild_index::IndexSizing;
use crate::actions::signals::defer_interrupts;
use crate::actions::targets::{refuse_unreadable, resolve, ConfigSource};
use crate::actions::ActionError;
use crate::exit_codes::Outcome;
use crate::model::cluster::{ClusterInputs, ClusterView, FileInput};
use crate::model::file_bytes::ReadMode;
use crate::model::groups::{losses, replay_partition, GroupState, Loss, TopicPartition};
use crate::model::log_dir::LogDir;
use crate::model::names::{PartitionDirState, CONSUMER_OFFSETS_TOPIC};
use crate::model::problem::FileProblem;
use crate::model::segment::{LoadOptions, ScanDepth};
use crate::model::units::{Offset, TimestampMs};
use crate::plan::{build_plan, PlanOptions};
use crate::report::render_json;
use crate::report::wire::Envelope;

use super::common::{load_targets, print_error};
use super::mutate::job_pool;
use super::progress::Progress;
use super::run_config::RunConfig;
use super::{DeleteArgs, OutputFormat};
use crate::report::sanitize::{escape, escape_path};

/// One log dir's part of the output.
#[derive(Debug, Serialize)]
struct LogDirDoc {
    plan: ActionPlan,
    summary: PlanSummary,
    partitions: Vec<DeleteReport>,
    #[serde(with = "crate::model::names::opt_path_serde")]
    journal: Option<PathBuf>,
}

/// A group losing data, for the output.
#[derive(Debug, Serialize)]
struct LossDoc {
    group: String,
    topic: String,
    partition: i32,
    committed: i64,
    reset_to: i64,
    skipped: i64,
}

impl From<&Loss> for LossDoc {
    fn from(l: &Loss) -> Self {
        LossDoc {
            group: l.group.clone(),
            topic: l.tp.0.clone(),
            partition: l.tp.1,
            committed: l.committed,
            reset_to: l.reset_to,
            skipped: l.skipped,
        }
    }
}

/// A partition `delete` leaves alone because its deletions rest on assumed config values.
#[derive(Debug, Serialize)]
struct AssumedRefusal {
    #[serde(with = "crate::model::names::path_serde")]
    log_dir: PathBuf,
    dir: String,
    topic: String,
    partition: i32,
    segments: u64,
    bytes: u64,
    assumed_keys: Vec<String>,
    /// A tiered partition whose upload state is not known: its local deletions wait for
    /// uploads nobody here can see (no acknowledgement lifts this).
    upload_state_unknown: bool,
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

impl AssumedRefusal {
    fn new(p: &PartitionPlan, assumed: &[AssumedValue], upload_state_unknown: bool) -> Self {
        let freed = p.freed();
        AssumedRefusal {
            log_dir: p.log_dir.clone(),
            dir: p.dir_name.clone(),
            topic: p.topic.clone(),
            partition: p.partition,
            segments: freed.segments,
            bytes: freed.bytes.get(),
            assumed_keys: (assumed.iter())
                .map(|a| format!("{}={} ({})", a.key, a.value, a.source))
                .collect(),
            upload_state_unknown,
        }
    }

    fn is(&self, p: &PartitionPlan) -> bool {
        self.log_dir == p.log_dir && self.dir == p.dir_name
    }
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

fn canonical(p: &std::path::Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// Run `delete`.
pub fn run(args: &DeleteArgs, run: &RunConfig, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let mutate = &args.mutate;
    let now = args
        .at
        .unwrap_or_else(|| run.generated_at_ms.saturating_add(args.after.unwrap_or(0)));
    let config = ConfigSource {
        server_properties: mutate.server_properties.clone(),
        overrides: mutate.overrides.clone(),
        config_file: mutate.config_file.clone(),
    };
    let refused = |e: ActionError| {
        print_error(&e);
        Ok(e.outcome())
    };
    let targets = match resolve(&args.paths, &config, true) {
        Ok(t) => t,
        Err(e) => return refused(e),
    };
    let pool = match job_pool(mutate.jobs) {
        Ok(p) => p,
        Err(e) => return refused(e),
    };
    let mode = ReadMode::Buffered;
    let opts = LoadOptions::tail_with_internal_topics_at(ScanDepth::Headers, mode);
    let progress = Progress::new(run.output.progress, "reading partitions");
    // A wrong target (a parent of log dirs) is refused by `resolve` already.
    let (dirs, _) = pool.install(|| load_targets(&args.paths, &opts, &progress))?;
    let view = ClusterView::build_over(
        &ClusterInputs {
            log_dirs: args.paths.clone(),
            server_properties: mutate.server_properties.clone().map(FileInput::Path),
            overrides: mutate.overrides.clone(),
            describe_file: mutate.config_file.clone().map(FileInput::Path),
            read_mode: mode,
            kafka_version: run.kafka_version,
            ..ClusterInputs::default()
        },
        &dirs,
    )?;
    // What is deleted is decided from every partition's files and configs: none may be a guess.
    let unreadable = (dirs.iter().flat_map(LogDir::unreadable))
        .map(|(_, u)| (u.path, u.message))
        .chain(view.unreadable());
    if let Err(e) = refuse_unreadable(unreadable) {
        return refused(e);
    }
    let retention = build_plan(
        &view,
        &dirs,
        &PlanOptions {
            now: TimestampMs(now),
            topics: Vec::new(),
            version: view.kafka_version.version,
        },
    );
    // A partition whose deletions rest on values logclean did not read is not touched.
    let assumptions = view.assumptions(&[]);
    let refused_assumed: Vec<AssumedRefusal> = (retention.partitions.iter())
        .filter(|p| p.freed().segments > 0)
        .filter_map(|p| {
            let assumed = if args.accept_assumed_configs {
                &[]
            } else {
                assumptions.of_topic(&p.topic)
            };
            let upload_unknown = upload_state_unknown(p);
            (!assumed.is_empty() || upload_unknown)
                .then(|| AssumedRefusal::new(p, assumed, upload_unknown))
        })
        .collect();
    let mut docs = Vec::new();
    let mut starts: BTreeMap<TopicPartition, Offset> = BTreeMap::new();
    let mut canonical_dirs: BTreeMap<&std::path::Path, PathBuf> = BTreeMap::new();
    for p in &retention.partitions {
        canonical_dirs
            .entry(p.log_dir.as_path())
            .or_insert_with(|| canonical(&p.log_dir));
    }
    for t in &targets {
        let here = canonical(&t.log_dir.path);
        let sizings: BTreeMap<&str, IndexSizing> = t
            .partitions
            .iter()
            .map(|x| (x.dir.as_str(), x.sizing))
            .collect();
        let parts: Vec<_> = retention
            .partitions
            .iter()
            .filter(|p| canonical_dirs.get(p.log_dir.as_path()) == Some(&here))
            .filter(|p| !refused_assumed.iter().any(|r| r.is(p)))
            .map(|p| (p, sizings.get(p.dir_name.as_str()).copied()))
            .collect();
        let mut plan = ActionPlan {
            command: "delete".to_string(),
            log_dir: t.log_dir.path.clone(),
            notes: t.notes.clone(),
            ..ActionPlan::default()
        };
        let reports = match pool.install(|| plan_log_dir(&t.log_dir.path, &parts, &mut plan)) {
            Ok(r) => r,
            Err(e) => return refused(e),
        };
        for r in &reports {
            if let Some(s) = r.log_start_offset_after {
                starts.insert((r.topic.clone(), r.partition_number), Offset(s));
            }
        }
        docs.push(LogDirDoc {
            summary: plan.summary(),
            plan,
            partitions: reports,
            journal: None,
        });
    }
    let (groups, unreadable) = group_state(&dirs, mode);
    let unreadable = unreadable.iter().filter_map(|p| match p {
        FileProblem::Io { path, message } => Some((path.as_path(), message.as_str())),
        FileProblem::Format { .. } => None,
    });
    if let Err(e) = refuse_unreadable(unreadable) {
        return refused(e);
    }
    let lost = losses(&groups, &starts);
    let refuse_losses = args.fail_if_group_loses_data && !lost.is_empty();
    let refuse = refuse_losses || !refused_assumed.is_empty();
    let executed = mutate.execute && !refuse;
    if executed {
        defer_interrupts();
        let opts = RunOptions {
            journal_root: mutate.journal.clone(),
            quarantine_root: mutate.quarantine.clone(),
            purge: mutate.purge,
        };
        for d in docs.iter_mut().filter(|d| !d.plan.steps.is_empty()) {
            match pool.install(|| execute(&d.plan, &opts, &RealFs)) {
                Ok(r) => d.journal = Some(r.journal),
                Err(e) => return refused(e),
            }
        }
    }
    let any_refused = docs
        .iter()
        .flat_map(|d| &d.partitions)
        .any(DeleteReport::refused);
    let outcome = if refuse {
        Outcome::Error
    } else if any_refused {
        Outcome::Findings
    } else {
        Outcome::Clean
    };
    match run.output.format {
        OutputFormat::Json => {
            let body = serde_json::json!({
                "executed": executed,
                "refused": refuse,
                "log_dirs": docs,
                "groups_losing_data": lost.iter().map(LossDoc::from).collect::<Vec<_>>(),
                "refused_assumed_configs": refused_assumed,
            });
            let doc = Envelope::new("delete", run.generated_at_ms, now, body, &[], None, outcome)
                .with_assumptions(AssumptionsDoc::new(&assumptions));
            render_json(&doc, out)?;
        }
        OutputFormat::Table => {
            let doc = AssumptionsDoc::new(&assumptions);
            write_assumptions(Some(&doc), run.output.width, out)?;
            for d in &docs {
                let text = if refuse {
                    d.plan.render_refused_text()
                } else {
                    d.plan.render_text(executed)
                };
                write!(out, "{text}")?;
                for r in d
                    .partitions
                    .iter()
                    .filter(|r| !r.segments.is_empty() || r.refused())
                {
                    writeln!(out, "  {}: {}", escape(&r.partition), escape(&r.outcome))?;
                }
                if let Some(j) = &d.journal {
                    writeln!(out, "journal: {}", escape_path(j))?;
                }
            }
            for r in &refused_assumed {
                let mut on: Vec<String> = r.assumed_keys.clone();
                if r.upload_state_unknown {
                    on.push(
                        "an upload state not read (tiered: closed segments taken as uploaded)"
                            .into(),
                    );
                }
                // `dir` is already name_text: escaped, not re-encoded as a path.
                let line = format!(
                    "refused: {}/{}: would delete {} segment(s), {} bytes, on assumed {}",
                    escape_path(&r.log_dir),
                    escape(&r.dir),
                    r.segments,
                    r.bytes,
                    on.join(", ")
                );
                for l in fit_atoms(&words(&line), run.output.width, " ", "", "    ") {
                    writeln!(out, "{l}")?;
                }
            }
            for l in &lost {
                writeln!(
                    out,
                    "group {} loses data on {}-{}: committed {}, log start {} ({} records skipped)",
                    escape(&l.group),
                    escape(&l.tp.0),
                    l.tp.1,
                    l.committed,
                    l.reset_to,
                    l.skipped
                )?;
            }
        }
    }
    if !refused_assumed.is_empty() {
        eprintln!(
            "logclean: refused: {} partition(s) would delete segments on config values logclean did not \
             read; nothing changed. {}; or pass --accept-assumed-configs",
            refused_assumed.len(),
            SUPPLY_CONFIGS
        );
    }
    if refuse_losses {
        let mut names: Vec<&str> = lost.iter().map(|l| l.group.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        print_error(&format!(
            "refused: --fail-if-group-loses-data: group(s) {} would lose data; nothing changed",
            names.join(", ")
        ));
    }
    Ok(outcome)
}
