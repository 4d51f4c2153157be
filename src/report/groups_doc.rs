//! The `groups` document: one row per group, topic and partition, as
//! `kafka-consumer-groups.sh --describe` shows them, plus what the next retention pass and the
//! coordinator's offset expiry do to each. Built from [`GroupState`] and the data partitions the
//! log dirs hold.

use std::collections::{BTreeMap, BTreeSet};

use std::path::PathBuf;

use serde::Serialize;

use crate::plan::Plan;

use crate::model::groups::{expires_at_ms, losses, GroupKind, GroupState, TopicPartition};
use crate::model::units::Offset;

use super::wire::Envelope;

/// The `groups` document.
pub type GroupsDoc = Envelope<GroupsBody>;

/// A data partition the log dirs hold: log start and end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeldPartition {
    /// The log start offset.
    pub log_start_offset: i64,
    /// The log end offset.
    pub log_end_offset: i64,
}

/// What the next retention pass does to a group partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NextRetentionDoc {
    /// The log start after the pass.
    pub new_log_start_offset: i64,
    /// The pass runs by then (now + `log.retention.check.interval.ms`), ms.
    pub by_ms: i64,
    /// Where `auto.offset.reset=earliest` resets the group, when it falls behind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reset_to: Option<i64>,
    /// Records it never reads.
    pub skipped: i64,
}

/// One group, topic and partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GroupRowDoc {
    /// Group id.
    pub group: String,
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// The committed offset.
    pub current_offset: i64,
    /// The partition's log start offset (`null`: not in these log dirs).
    pub log_start_offset: Option<i64>,
    /// The partition's log end offset.
    pub log_end_offset: Option<i64>,
    /// Log end minus committed offset.
    pub lag: Option<i64>,
    /// When it was committed, ms.
    pub last_commit_ms: i64,
    /// Committed in a transaction.
    pub transactional: bool,
    /// When the coordinator's expiry removes it (`null`: not while the group is as it is).
    pub expires_at_ms: Option<i64>,
    /// The next retention pass, when it moves the log start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_retention: Option<NextRetentionDoc>,
}

/// One group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GroupDoc {
    /// Group id.
    pub group: String,
    /// `simple`, `classic`, `consumer` or `other`.
    pub kind: GroupKind,
    /// `Empty` or `Stable` (the state the coordinator loads it in).
    pub state: &'static str,
    /// Classic: the protocol type.
    pub protocol_type: Option<String>,
    /// Generation (classic) or group epoch (consumer).
    pub generation: Option<i32>,
    /// Members recorded.
    pub members: usize,
    /// The `__consumer_offsets` partition holding it.
    pub coordinator_partition: i32,
    /// The partition the mapping gives; `None` without `__consumer_offsets` in a metadata log
    /// (ZooKeeper mode, or no `__cluster_metadata` here): its real partition count is unknown.
    pub expected_partition: Option<i32>,
    /// The last commit, ms.
    pub last_commit_ms: Option<i64>,
    /// Partitions with a transactional offset commit awaiting its marker.
    pub pending_transactional: usize,
}

/// A topic the committed offsets name, and which partitions of it these log dirs hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TopicCoverageDoc {
    /// Topic.
    pub topic: String,
    /// Partitions in the metadata log (`null`: unknown).
    pub partitions: Option<usize>,
    /// Partitions held here.
    pub held: Vec<i32>,
    /// Partitions with committed offsets not held here (the other brokers' log dirs have them).
    pub elsewhere: Vec<i32>,
}

/// The command's keys.
#[derive(Debug, Clone, Serialize)]
pub struct GroupsBody {
    /// `offsets.retention.minutes`.
    pub offsets_retention_minutes: i32,
    /// The partition count the mapping uses (`__consumer_offsets` in the metadata log, else
    /// `offsets.topic.num.partitions`).
    pub offsets_topic_partitions: i32,
    /// `__consumer_offsets` partitions replayed.
    pub coordinator_partitions: Vec<i32>,
    /// Records and bytes replayed.
    pub records_replayed: u64,
    /// Bytes of `.log` replayed.
    pub bytes_replayed: u64,
    /// Groups.
    pub groups: Vec<GroupDoc>,
    /// Rows.
    pub rows: Vec<GroupRowDoc>,
    /// Groups whose records tombstones removed.
    pub deleted_groups: Vec<String>,
    /// Topic coverage.
    pub topics: Vec<TopicCoverageDoc>,
}

/// What the body is built from besides the state.
#[derive(Debug, Clone, Default)]
pub struct GroupsInputs {
    /// The data partitions held, by topic partition.
    pub held: BTreeMap<TopicPartition, HeldPartition>,
    /// The log starts after the next retention pass, for partitions where it moves.
    pub planned: BTreeMap<TopicPartition, Offset>,
    /// Partition counts from the metadata log.
    pub topic_partitions: BTreeMap<String, usize>,
    /// `offsets.retention.minutes`.
    pub offsets_retention_minutes: i32,
    /// The mapping's partition count.
    pub offsets_topic_partitions: i32,
    /// The evaluation instant plus `log.retention.check.interval.ms`.
    pub next_pass_by_ms: i64,
    /// `--group` filter.
    pub group: Option<String>,
    /// `--topic` filter.
    pub topic: Option<String>,
}

impl GroupsInputs {
    /// The next retention pass's log starts from `plan`, for the partitions held here where
    /// they move (`at`: the log dir of the copy each row reads).
    pub fn set_planned(&mut self, plan: &Plan, at: &BTreeMap<TopicPartition, PathBuf>) {
        for pp in &plan.partitions {
            let tp = (pp.topic.clone(), pp.partition);
            let moved = pp.retention.new_log_start_offset > pp.log_start_offset;
            if moved && self.held.contains_key(&tp) && at.get(&tp) == Some(&pp.log_dir) {
                self.planned.insert(tp, pp.retention.new_log_start_offset);
            }
        }
    }
}

impl GroupsBody {
    /// The body for `state`.
    pub fn new(state: &GroupState, inp: &GroupsInputs) -> GroupsBody {
        let retention_ms = i64::from(inp.offsets_retention_minutes).saturating_mul(60_000);
        let wanted_group = |g: &str| inp.group.as_deref().is_none_or(|w| w == g);
        let wanted_topic = |t: &str| inp.topic.as_deref().is_none_or(|w| w == t);
        let mut rows = Vec::new();
        let mut groups = Vec::new();
        let mut named: BTreeMap<String, BTreeSet<i32>> = BTreeMap::new();
        let lost: BTreeMap<(&str, &TopicPartition), i64> = losses(state, &inp.planned)
            .iter()
            .filter_map(|l| {
                let g = state.groups.get_key_value(&l.group)?.0.as_str();
                let tp = state.groups.get(&l.group)?.offsets.get_key_value(&l.tp)?.0;
                Some(((g, tp), l.skipped))
            })
            .collect();
        for g in state.groups.values().filter(|g| wanted_group(&g.name)) {
            let mut any = false;
            for (tp, o) in g.offsets.iter().filter(|(tp, _)| wanted_topic(&tp.0)) {
                any = true;
                named.entry(tp.0.clone()).or_default().insert(tp.1);
                let held = inp.held.get(tp);
                let skipped = lost.get(&(g.name.as_str(), tp)).copied();
                let next_retention = inp.planned.get(tp).map(|start| NextRetentionDoc {
                    new_log_start_offset: start.get(),
                    by_ms: inp.next_pass_by_ms,
                    reset_to: skipped.map(|_| start.get()),
                    skipped: skipped.unwrap_or(0),
                });
                rows.push(GroupRowDoc {
                    group: g.name.clone(),
                    topic: tp.0.clone(),
                    partition: tp.1,
                    current_offset: o.offset,
                    log_start_offset: held.map(|h| h.log_start_offset),
                    log_end_offset: held.map(|h| h.log_end_offset),
                    lag: held.map(|h| h.log_end_offset.saturating_sub(o.offset)),
                    last_commit_ms: o.commit_timestamp_ms,
                    transactional: o.transactional,
                    expires_at_ms: expires_at_ms(g, tp, retention_ms),
                    next_retention,
                });
            }
            if any || inp.topic.is_none() {
                groups.push(GroupDoc {
                    group: g.name.clone(),
                    kind: g.kind,
                    state: g.state(),
                    protocol_type: g.protocol_type.clone(),
                    generation: g.generation,
                    members: g.members.len(),
                    coordinator_partition: g.coordinator_partition,
                    // Only the metadata log knows the topic's real partition count
                    // (`offsets.topic.num.partitions` applied when it was created, maybe
                    // with another value): without it, no claim about the mapping.
                    expected_partition: inp
                        .topic_partitions
                        .contains_key(crate::model::names::CONSUMER_OFFSETS_TOPIC)
                        .then(|| {
                            crate::model::groups::coordinator_partition(
                                &g.name,
                                inp.offsets_topic_partitions,
                            )
                        })
                        .flatten(),
                    last_commit_ms: g.last_commit_ms(),
                    pending_transactional: g.pending_transactional.len(),
                });
            }
        }
        let topics = named
            .into_iter()
            .map(|(topic, parts)| {
                let (held, elsewhere): (Vec<i32>, Vec<i32>) = parts
                    .into_iter()
                    .partition(|p| inp.held.contains_key(&(topic.clone(), *p)));
                TopicCoverageDoc {
                    partitions: inp.topic_partitions.get(&topic).copied(),
                    topic,
                    held,
                    elsewhere,
                }
            })
            .collect();
        GroupsBody {
            offsets_retention_minutes: inp.offsets_retention_minutes,
            offsets_topic_partitions: inp.offsets_topic_partitions,
            coordinator_partitions: state.partitions.iter().copied().collect(),
            records_replayed: state.records,
            bytes_replayed: state.bytes,
            groups,
            rows,
            deleted_groups: state
                .deleted
                .iter()
                .filter(|g| wanted_group(g))
                .cloned()
                .collect(),
            topics,
        }
    }
}
