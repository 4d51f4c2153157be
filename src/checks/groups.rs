//! Findings of `logclean groups`, from the group coordinator's verdicts
//! ([`crate::rules::groups`]) over the replayed `__consumer_offsets`: offsets behind the log
//! start, data the next retention pass deletes before a group reads it, offsets the
//! coordinator's expiry deletes, groups in the wrong `__consumer_offsets` partition, records
//! that do not decode, partitions that could not be read.
//!
//! [`check_groups`]: [`replay_groups`] → [`GroupFacts`] (with the next pass's log starts from
//! the caller's [`crate::plan::build_plan`]) → [`assess`] → [`group_findings`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::model::cluster::ClusterView;
use crate::model::coordinators::{replay_groups, UnreadablePartition};
use crate::model::file_bytes::ReadMode;
use crate::model::groups::{GroupState, TopicPartition};
use crate::model::log_dir::LogDir;
use crate::model::names::CONSUMER_OFFSETS_TOPIC;
use crate::model::units::Offset;
use crate::plan::Plan;
use crate::rules::groups::{assess, GroupFacts, GroupVerdicts};

use super::catalog;
use super::file::problem_finding;
use super::finding::{EvidenceValue as E, Finding, Location};
use super::location::at_partition;

/// Where a partition's dir is: the log dir holding it.
pub type DirsByPartition = BTreeMap<TopicPartition, PathBuf>;

/// The group coordinator's view of loaded dirs: the replayed state, the facts and verdicts on
/// it, and their findings.
#[derive(Debug)]
pub struct GroupsChecked {
    /// The groups replayed from `__consumer_offsets`.
    pub state: GroupState,
    /// The facts the verdicts were made from.
    pub facts: GroupFacts,
    /// The verdicts.
    pub verdicts: GroupVerdicts,
    /// The findings.
    pub findings: Vec<Finding>,
}

/// The groups of loaded `dirs` at `now`, with `plan` the [`crate::plan::build_plan`] of every
/// topic at `now` (the next pass's log starts), optionally only one group's or one topic's
/// offsets (`logclean groups` and `logclean diagnose`).
pub fn check_groups(
    dirs: &[LogDir],
    view: &ClusterView,
    plan: &Plan,
    mode: ReadMode,
    now: i64,
    group: Option<String>,
    topic: Option<String>,
) -> GroupsChecked {
    let replay = replay_groups(dirs, view.records(mode));
    let b = &view.broker_config;
    let topic_partitions: BTreeMap<String, usize> = view
        .topics
        .iter()
        .filter_map(|(t, v)| Some((t.clone(), v.partition_count?)))
        .collect();
    let facts = GroupFacts {
        next_log_starts: next_log_starts(plan, &replay.held, &replay.log_dirs),
        offsets_retention_minutes: b.offsets_retention_minutes,
        offsets_topic_partitions: topic_partitions
            .get(CONSUMER_OFFSETS_TOPIC)
            .and_then(|n| i32::try_from(*n).ok())
            .unwrap_or(b.offsets_topic_num_partitions),
        topic_partitions,
        now_ms: now,
        next_pass_by_ms: now.saturating_add(b.log_retention_check_interval_ms),
        group,
        topic,
        held: replay.held,
    };
    let verdicts = assess(&replay.state, &facts);
    let mut findings = group_findings(&replay.state, &facts, &verdicts, &replay.log_dirs);
    findings.extend(replay.unreadable.iter().map(unreadable));
    GroupsChecked {
        state: replay.state,
        facts,
        verdicts,
        findings,
    }
}

/// The next retention pass's log starts from `plan`, for the partitions held here where they
/// move (`log_dirs`: the log dir of the copy each row reads).
fn next_log_starts(
    plan: &Plan,
    held: &BTreeMap<TopicPartition, crate::model::groups::HeldPartition>,
    log_dirs: &DirsByPartition,
) -> BTreeMap<TopicPartition, Offset> {
    let mut out = BTreeMap::new();
    for pp in &plan.partitions {
        let tp = (pp.topic.clone(), pp.partition);
        let moved = pp.retention.new_log_start_offset > pp.log_start_offset;
        if moved && held.contains_key(&tp) && log_dirs.get(&tp) == Some(&pp.log_dir) {
            out.insert(tp, pp.retention.new_log_start_offset);
        }
    }
    out
}

/// The finding of a coordinator partition whose replay could not read a file: what went wrong
/// with it (`file.unreadable` with the OS error, or `file.corrupt` for a file refused for its
/// size), at the file.
pub fn unreadable(u: &UnreadablePartition<'_>) -> Finding {
    problem_finding(
        at_partition(u.log_dir, u.partition),
        "records",
        &u.problem,
        "",
    )
}

fn at(dirs: &DirsByPartition, topic: &str, partition: i32, group: Option<&str>) -> Location {
    Location {
        log_dir: dirs
            .get(&(topic.to_string(), partition))
            .cloned()
            .unwrap_or_default(),
        topic: Some(topic.to_string()),
        partition: Some(partition),
        dir: Some(format!("{topic}-{partition}")),
        group: group.map(str::to_string),
        ..Location::default()
    }
}

/// The findings of `verdicts` on `state`.
pub fn group_findings(
    state: &GroupState,
    facts: &GroupFacts,
    verdicts: &GroupVerdicts,
    dirs: &DirsByPartition,
) -> Vec<Finding> {
    const OFFSETS: &str = CONSUMER_OFFSETS_TOPIC;
    let mut out = Vec::new();
    for b in &state.bad_records {
        out.push(
            Finding::new(
                &catalog::GROUP_BAD_RECORD,
                at(dirs, OFFSETS, b.partition, None),
                format!("record at offset {} does not decode: {}", b.offset, b.error),
            )
            .evidence("offset", E::Offset(b.offset)),
        );
    }
    for g in verdicts.groups.iter().filter(|g| g.in_wrong_partition()) {
        out.push(
            Finding::new(
                &catalog::GROUP_WRONG_PARTITION,
                at(dirs, OFFSETS, g.coordinator_partition, Some(&g.group)),
                format!(
                    "group `{}` is in partition {} but {} partitions map it to {}",
                    g.group,
                    g.coordinator_partition,
                    facts.offsets_topic_partitions,
                    g.expected_partition.unwrap_or_default()
                ),
            )
            .evidence(
                "partitions",
                E::Int(i64::from(facts.offsets_topic_partitions)),
            ),
        );
    }
    for r in &verdicts.offsets {
        let loc = || at(dirs, &r.tp.0, r.tp.1, Some(&r.group));
        if let Some(start) = r.behind_log_start() {
            out.push(
                Finding::new(
                    &catalog::GROUP_BEHIND_LOG_START,
                    loc(),
                    format!(
                        "group `{}` is at {} but the log starts at {start}: it resets, skipping {} records with auto.offset.reset=earliest",
                        r.group,
                        r.committed,
                        start - r.committed
                    ),
                )
                .evidence("committed", E::Offset(r.committed))
                .evidence("log_start", E::Offset(start)),
            );
        }
        if let Some(n) = r.loses_data_next_pass() {
            out.push(
                Finding::new(
                    &catalog::GROUP_LOSES_DATA_NEXT_RETENTION,
                    loc(),
                    format!(
                        "retention deletes up to offset {} by the next pass; group `{}` is at {}: it will be reset to {} (earliest) and skip {} records",
                        n.new_log_start_offset, r.group, r.committed, n.new_log_start_offset, n.skipped
                    ),
                )
                .evidence("committed", E::Offset(r.committed))
                .evidence("new_log_start", E::Offset(n.new_log_start_offset))
                .evidence("pass_by", E::TimestampMs(n.by_ms)),
            );
        }
    }
    out.extend(expiry_findings(facts, verdicts, dirs));
    out
}

/// One `group.offsets_expire` per group with expired offsets: how many, and the latest due.
fn expiry_findings(
    facts: &GroupFacts,
    verdicts: &GroupVerdicts,
    dirs: &DirsByPartition,
) -> Vec<Finding> {
    let mut expiring: BTreeMap<&str, (usize, i64)> = BTreeMap::new();
    for r in &verdicts.offsets {
        if let Some(at_ms) = r.expires_at_ms.filter(|_| r.expired) {
            let e = expiring.entry(&*r.group).or_insert((0, at_ms));
            e.0 += 1;
            e.1 = e.1.max(at_ms);
        }
    }
    // The first group of each name, as a scan of the groups would find it: one look-up per
    // expiring group instead of a walk over every group.
    let mut by_name: BTreeMap<&str, _> = BTreeMap::new();
    for g in &verdicts.groups {
        by_name.entry(&*g.group).or_insert(g);
    }
    let mut out = Vec::new();
    for (group, (n, at_ms)) in expiring {
        let Some(g) = by_name.get(group) else {
            continue;
        };
        out.push(
            Finding::new(
                &catalog::GROUP_OFFSETS_EXPIRE,
                at(dirs, CONSUMER_OFFSETS_TOPIC, g.coordinator_partition, Some(group)),
                format!(
                    "{n} committed offsets of empty group `{group}` are past offsets.retention.minutes ({}): the next expiry check deletes them",
                    facts.offsets_retention_minutes
                ),
            )
            .evidence("offsets", E::Count(n as u64))
            .evidence("due", E::TimestampMs(at_ms)),
        );
    }
    out
}
