//! The group coordinator's view: replay `__consumer_offsets`, describe each group's offsets
//! against the data partitions held here, and what the next retention pass and offset expiry do
//! to them.
//!
//! [`first_live_copies`] → [`replay_partition`] → [`GroupsBody`] → [`group_findings`]. The next
//! pass's log starts come from the caller's [`crate::plan::build_plan`].

use crate::checks::finding::Finding;
use crate::checks::groups::{group_findings, DirsByPartition};
use crate::model::cluster::ClusterView;
use crate::model::file_bytes::ReadMode;
use crate::model::groups::{replay_partition, GroupState};
use crate::model::log_dir::LogDir;
use crate::model::names::CONSUMER_OFFSETS_TOPIC;
use crate::plan::Plan;
use crate::report::groups_doc::{GroupsBody, GroupsInputs, HeldPartition};

use super::{first_live_copies, unreadable};

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
    let mut unreadable_files = Vec::new();
    for (d, p, name) in first_live_copies(dirs) {
        let tp = (name.topic.clone(), name.partition);
        at.insert(tp.clone(), d.path.clone());
        if name.topic == CONSUMER_OFFSETS_TOPIC {
            if let Err(e) = replay_partition(&mut state, p, name.partition, mode) {
                unreadable_files.push(unreadable(d, p, e.path()));
            }
            continue;
        }
        if let (Some(log_start_offset), Some(log_end_offset)) =
            (p.log_start_offset(), p.log_end_offset())
        {
            inp.held.insert(
                tp,
                HeldPartition {
                    log_start_offset: log_start_offset.get(),
                    log_end_offset: log_end_offset.get(),
                },
            );
        }
    }
    inp.set_planned(plan, &at);
    (state, inp, at, unreadable_files)
}

/// The groups document and its findings for loaded `dirs` at `now`, with `plan` the
/// [`crate::plan::build_plan`] of every topic at `now` (the next pass's log starts), optionally
/// only one group's or one topic's offsets (`logclean groups` and `logclean diagnose`).
pub fn groups_report(
    dirs: &[LogDir],
    view: &ClusterView,
    plan: &Plan,
    mode: ReadMode,
    now: i64,
    group: Option<String>,
    topic: Option<String>,
) -> (GroupsBody, Vec<Finding>) {
    let (state, mut inp, at, unreadable_files) = collect(dirs, plan, mode);
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
    findings.extend(unreadable_files);
    (body, findings)
}
