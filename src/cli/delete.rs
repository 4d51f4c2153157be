//! `logclean delete`: options → [`build_plan`] at `--at`/`--after` (with `--config` and
//! `--server-properties`) → one [`ActionPlan`] per log dir ([`plan_log_dir`]) → the consumer
//! groups that lose data ([`losses`]) → dry run, refusal (`--fail-if-group-loses-data`) or
//! journaled apply.

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
use crate::actions::targets::{resolve, ConfigSource};
use crate::actions::ActionError;
use crate::exit_codes::Outcome;
use crate::model::cluster::{ClusterInputs, ClusterView, FileInput};
use crate::model::file_bytes::ReadMode;
use crate::model::groups::{losses, replay_partition, GroupState, Loss, TopicPartition};
use crate::model::log_dir::LogDir;
use crate::model::names::{PartitionDirState, CONSUMER_OFFSETS_TOPIC};
use crate::model::segment::{LoadOptions, ScanDepth};
use crate::model::units::{Offset, TimestampMs};
use crate::plan::{build_plan, PlanOptions};
use crate::report::render_json;
use crate::report::wire::Envelope;
use crate::rules::KafkaVersion;

use super::common::load_targets;
use super::mutate::job_pool;
use super::progress::Progress;
use super::run_config::RunConfig;
use super::{DeleteArgs, OutputFormat};

/// One log dir's part of the output.
#[derive(Debug, Serialize)]
struct LogDirDoc {
    plan: ActionPlan,
    summary: PlanSummary,
    partitions: Vec<DeleteReport>,
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

/// The group state of every `__consumer_offsets` partition held (first copy of each).
fn group_state(dirs: &[LogDir], mode: ReadMode) -> GroupState {
    let mut state = GroupState::default();
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
            // An unreadable coordinator partition names fewer groups; `groups` reports it.
            let _ = replay_partition(&mut state, p, name.partition, mode);
        }
    }
    state
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
    };
    let refused = |e: ActionError| {
        eprintln!("logclean: {e}");
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
    let (dirs, _) = pool.install(|| load_targets(&args.paths, &opts, &progress))?;
    let view = ClusterView::build_over(
        &ClusterInputs {
            log_dirs: args.paths.clone(),
            server_properties: mutate.server_properties.clone().map(FileInput::Path),
            overrides: mutate.overrides.clone(),
            read_mode: mode,
            ..ClusterInputs::default()
        },
        &dirs,
    )?;
    let retention = build_plan(
        &view,
        &dirs,
        &PlanOptions {
            now: TimestampMs(now),
            topics: Vec::new(),
            version: KafkaVersion::default(),
        },
    );
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
    let lost = losses(&group_state(&dirs, mode), &starts);
    let refuse = args.fail_if_group_loses_data && !lost.is_empty();
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
            });
            let doc = Envelope::new("delete", run.generated_at_ms, now, body, &[], None, outcome);
            render_json(&doc, out)?;
        }
        OutputFormat::Table => {
            for d in &docs {
                write!(out, "{}", d.plan.render_text(executed))?;
                for r in d
                    .partitions
                    .iter()
                    .filter(|r| !r.segments.is_empty() || r.refused())
                {
                    writeln!(out, "  {}: {}", r.partition, r.outcome)?;
                }
                if let Some(j) = &d.journal {
                    writeln!(out, "journal: {}", j.display())?;
                }
            }
            for l in &lost {
                writeln!(
                    out,
                    "group {} loses data on {}-{}: committed {}, log start {} ({} records skipped)",
                    l.group, l.tp.0, l.tp.1, l.committed, l.reset_to, l.skipped
                )?;
            }
        }
    }
    if refuse {
        let mut names: Vec<&str> = lost.iter().map(|l| l.group.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        eprintln!(
            "logclean: refused: --fail-if-group-loses-data: group(s) {} would lose data; nothing \
             changed",
            names.join(", ")
        );
    }
    Ok(outcome)
}
