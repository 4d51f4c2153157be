//! `logclean groups`: replay `__consumer_offsets`, describe each group's offsets against the
//! data partitions held here, and what the next retention pass and offset expiry do to them.
//!
//! Options → [`ClusterView::build`] + [`load_targets`] → [`replay_partition`] → [`GroupsBody`]
//! → [`group_findings`] → render. The next pass's log starts come from [`build_plan`].

use std::io::Write;

use crate::checks::catalog;
use crate::checks::finding::Finding;
use crate::checks::groups::{group_findings, DirsByPartition};
use crate::checks::inspect::sort_findings;
use crate::checks::location::at_partition;
use crate::exit_codes::Outcome;
use crate::model::cluster::{ClusterInputs, ClusterView, FileInput};
use crate::model::file_bytes::ReadMode;
use crate::model::groups::{replay_partition, GroupState};
use crate::model::log_dir::LogDir;
use crate::model::names::{PartitionDirState, CONSUMER_OFFSETS_TOPIC};
use crate::model::segment::{LoadOptions, ScanDepth};
use crate::model::units::TimestampMs;
use crate::plan::{build_plan, Plan, PlanOptions};
use crate::report::groups_doc::{GroupsBody, GroupsInputs, HeldPartition};
use crate::report::groups_table::render_groups;
use crate::report::wire::ScanTotals;
use crate::rules::KafkaVersion;

use super::common::{load_targets, outcome_of, write_document};
use super::progress::Progress;
use super::run_config::RunConfig;
use super::GroupsArgs;

/// Replay every `__consumer_offsets` partition (the first copy of each) and collect the data
/// partitions held, their dirs and next-pass log starts.
fn collect(
    dirs: &[LogDir],
    plan: &Plan,
    mode: ReadMode,
) -> (GroupState, GroupsInputs, DirsByPartition, Vec<Finding>) {
    let mut state = GroupState::default();
    let mut inp = GroupsInputs::default();
    let mut at = DirsByPartition::new();
    let mut unreadable = Vec::new();
    for d in dirs {
        for p in &d.partitions {
            let Some(name) = p
                .name
                .as_ref()
                .filter(|n| n.state == PartitionDirState::Live)
            else {
                continue;
            };
            let tp = (name.topic.clone(), name.partition);
            if at.contains_key(&tp) {
                continue;
            }
            at.insert(tp.clone(), d.path.clone());
            if name.topic == CONSUMER_OFFSETS_TOPIC {
                if let Err(e) = replay_partition(&mut state, p, name.partition, mode) {
                    let mut loc = at_partition(d, p);
                    loc.file = Some(e.path().to_path_buf());
                    unreadable.push(Finding::new(
                        &catalog::FILE_UNREADABLE,
                        loc,
                        "cannot read records",
                    ));
                }
                continue;
            }
            if let (Some(log_start_offset), Some(log_end_offset)) =
                (p.log_start_offset(), p.log_end_offset())
            {
                inp.held.insert(
                    tp.clone(),
                    HeldPartition {
                        log_start_offset: log_start_offset.get(),
                        log_end_offset: log_end_offset.get(),
                    },
                );
            }
        }
    }
    inp.set_planned(plan, &at);
    (state, inp, at, unreadable)
}

/// The groups document and its findings for loaded `dirs` at `now`, with `plan` the
/// [`build_plan`] of every topic at `now` (the next pass's log starts), optionally only one
/// group's or one topic's offsets (`logclean groups` and `logclean diagnose`).
pub fn groups_report(
    dirs: &[LogDir],
    view: &ClusterView,
    plan: &Plan,
    mode: ReadMode,
    now: i64,
    group: Option<String>,
    topic: Option<String>,
) -> (GroupsBody, Vec<Finding>) {
    let (state, mut inp, at, unreadable) = collect(dirs, plan, mode);
    let b = &view.broker_config;
    inp.topic_partitions = view
        .topics
        .iter()
        .filter_map(|(t, v)| Some((t.clone(), v.partition_count?)))
        .collect();
    inp.offsets_retention_minutes = b.offsets_retention_minutes;
    inp.offsets_topic_partitions = inp
        .topic_partitions
        .get(CONSUMER_OFFSETS_TOPIC)
        .and_then(|n| i32::try_from(*n).ok())
        .unwrap_or(b.offsets_topic_num_partitions);
    inp.next_pass_by_ms = now.saturating_add(b.log_retention_check_interval_ms);
    inp.group = group;
    inp.topic = topic;
    let body = GroupsBody::new(&state, &inp);
    let mut findings = group_findings(&state, &body, &at, now);
    findings.extend(unreadable);
    (body, findings)
}

/// Run `groups`.
pub fn run(args: &GroupsArgs, run: &RunConfig, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let mode = if args.no_mmap {
        ReadMode::Buffered
    } else {
        ReadMode::Mmap
    };
    let view = ClusterView::build(&ClusterInputs {
        log_dirs: args.paths.clone(),
        server_properties: args.server_properties.clone().map(FileInput::Path),
        read_mode: mode,
        ..ClusterInputs::default()
    })?;
    let opts = LoadOptions::tail_with_internal_topics_at(ScanDepth::Headers, mode);
    let (dirs, target_findings) = load_targets(
        &args.paths,
        &opts,
        &Progress::new(run.output.progress, "reading partitions"),
    )?;
    let now = run.evaluated_at_ms;
    let opts = PlanOptions {
        now: TimestampMs(now),
        topics: Vec::new(),
        version: KafkaVersion::default(),
    };
    let plan = build_plan(&view, &dirs, &opts);
    let (body, mut findings) = groups_report(
        &dirs,
        &view,
        &plan,
        mode,
        now,
        args.group.clone(),
        args.topic.clone(),
    );
    findings.extend(target_findings);
    sort_findings(&mut findings);
    let outcome = outcome_of(&findings, args.fail_on);
    write_document(
        "groups",
        run,
        now,
        body,
        &findings,
        Some(ScanTotals::of(&dirs)),
        outcome,
        out,
        render_groups,
    )
}
