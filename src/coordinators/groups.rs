//! The group coordinator's view: replay `__consumer_offsets`, describe each group's offsets
//! against the data partitions held here, and what the next retention pass and offset expiry do
//! to them.
//!
//! [`first_live_copies`] → [`replay_partition`] (in parallel, [`replay_groups`]) → [`GroupsBody`] → [`group_findings`]. The next
//! pass's log starts come from the caller's [`crate::plan::build_plan`].

use std::collections::BTreeSet;

use rayon::prelude::*;

use crate::checks::finding::Finding;
use crate::checks::groups::{group_findings, DirsByPartition};
use crate::model::cluster::ClusterView;
use crate::model::file_bytes::ReadMode;
use crate::model::groups::{replay_partition, GroupState};
use crate::model::log_dir::LogDir;
use crate::model::names::CONSUMER_OFFSETS_TOPIC;
use crate::model::partition::Partition;
use crate::model::problem::FileProblem;
use crate::plan::Plan;
use crate::report::groups_doc::{GroupsBody, GroupsInputs, HeldPartition};

use super::{first_live_copies, unreadable};

/// Replay `__consumer_offsets` partitions `parts` (in this order) into one state, with the
/// `file.unreadable` findings of those that could not be read to the end.
///
/// Each partition is replayed into a state of its own in parallel; these are merged in order
/// when no group id occurs in two of them (the coordinator's layout: a group lives in the
/// partition its id hashes to), which gives exactly the state of replaying them one after
/// another into one. Otherwise (a group seen in two partitions, where a later replay updates an
/// earlier one's group) they are replayed serially.
fn replay_groups(
    parts: &[(&LogDir, &Partition, i32)],
    mode: ReadMode,
) -> (GroupState, Vec<Finding>) {
    let replays: Vec<(GroupState, Result<(), FileProblem>)> = parts
        .par_iter()
        .map(|&(_, p, n)| {
            let mut one = GroupState::default();
            let result = replay_partition(&mut one, p, n, mode);
            (one, result)
        })
        .collect();
    let ids = |s: &GroupState| s.groups.len() + s.deleted.len();
    let total: usize = replays.iter().map(|(s, _)| ids(s)).sum();
    let distinct: BTreeSet<&str> = replays
        .iter()
        .flat_map(|(s, _)| s.groups.keys().chain(s.deleted.iter()))
        .map(String::as_str)
        .collect();
    let mut state = GroupState::default();
    let mut unreadable_files = Vec::new();
    if distinct.len() == total {
        for ((d, p, _), (one, result)) in parts.iter().zip(replays) {
            state.groups.extend(one.groups);
            state.deleted.extend(one.deleted);
            state.bad_records.extend(one.bad_records);
            state.stops.extend(one.stops);
            state.partitions.extend(one.partitions);
            state.records += one.records;
            state.bytes += one.bytes;
            if let Err(e) = result {
                unreadable_files.push(unreadable(d, p, e.path()));
            }
        }
    } else {
        for &(d, p, n) in parts {
            if let Err(e) = replay_partition(&mut state, p, n, mode) {
                unreadable_files.push(unreadable(d, p, e.path()));
            }
        }
    }
    (state, unreadable_files)
}

/// Replay every `__consumer_offsets` partition (the first copy of each) and collect the data
/// partitions held, their dirs and next-pass log starts.
fn collect(
    dirs: &[LogDir],
    plan: &Plan,
    mode: ReadMode,
) -> (GroupState, GroupsInputs, DirsByPartition, Vec<Finding>) {
    let mut inp = GroupsInputs::default();
    let mut at = DirsByPartition::new();
    let mut offsets_partitions = Vec::new();
    for (d, p, name) in first_live_copies(dirs) {
        let tp = (name.topic.clone(), name.partition);
        at.insert(tp.clone(), d.path.clone());
        if name.topic == CONSUMER_OFFSETS_TOPIC {
            offsets_partitions.push((d, p, name.partition));
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
    let (state, unreadable_files) = replay_groups(&offsets_partitions, mode);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::test_support::Scratch;
    use crate::model::segment::ScanDepth;

    /// The `__consumer_offsets` partitions of `d`, in dir order, as `replay_groups` takes them.
    fn offsets_partitions(d: &LogDir) -> Vec<(&LogDir, &Partition, i32)> {
        first_live_copies(std::slice::from_ref(d))
            .into_iter()
            .filter(|(_, _, n)| n.topic == CONSUMER_OFFSETS_TOPIC)
            .map(|(d, p, n)| (d, p, n.partition))
            .collect()
    }

    /// One state replayed partition after partition, the way `replay_groups` must match.
    fn serial(parts: &[(&LogDir, &Partition, i32)]) -> GroupState {
        let mut state = GroupState::default();
        for &(_, p, n) in parts {
            replay_partition(&mut state, p, n, ReadMode::Buffered).unwrap();
        }
        state
    }

    #[test]
    fn parallel_replay_equals_the_serial_one_when_groups_are_apart_and_when_not() {
        let s = Scratch::of("consumer-groups/logs-0");
        let d = s.load(ScanDepth::Headers);
        let parts = offsets_partitions(&d);
        let (state, unreadable) = replay_groups(&parts, ReadMode::Buffered);
        assert!(unreadable.is_empty());
        assert!(!state.groups.is_empty(), "the fixture has groups");
        assert_eq!(format!("{state:?}"), format!("{:?}", serial(&parts)));

        // Every group twice: a copy of each partition under another number, so the later
        // replay updates the earlier one's groups and the states cannot simply be merged
        // (merging them anyway gives another state: checked when this test was written).
        for n in 0..3 {
            copy_partition(&s, n, n + 10);
        }
        let d = s.load(ScanDepth::Headers);
        let parts = offsets_partitions(&d);
        assert_eq!(parts.len(), 6);
        let (state, unreadable) = replay_groups(&parts, ReadMode::Buffered);
        assert!(unreadable.is_empty());
        assert_eq!(state.partitions.len(), 6);
        assert_eq!(format!("{state:?}"), format!("{:?}", serial(&parts)));
    }

    fn copy_partition(s: &Scratch, from: i32, to: i32) {
        let src = s.path(&format!("{CONSUMER_OFFSETS_TOPIC}-{from}"));
        let dst = s.path(&format!("{CONSUMER_OFFSETS_TOPIC}-{to}"));
        std::fs::create_dir_all(&dst).unwrap();
        for e in std::fs::read_dir(&src).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), dst.join(e.file_name())).unwrap();
        }
    }
}
