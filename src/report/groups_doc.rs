//! The `groups` document: one row per group, topic and partition, as
//! `kafka-consumer-groups.sh --describe` shows them, plus what the next retention pass and the
//! coordinator's offset expiry do to each. Mapped from [`GroupState`] and the verdicts on it
//! ([`crate::rules::groups::assess`]).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Serialize;

use crate::model::groups::{GroupKind, GroupState};
use crate::rules::groups::{GroupFacts, GroupVerdicts};

use super::wire::Envelope;

/// The `groups` document.
pub type GroupsDoc = Envelope<GroupsBody>;

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
    /// Group id (shared with the replayed group).
    pub group: Arc<str>,
    /// Topic (shared with the replayed commit).
    pub topic: Arc<str>,
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
    /// Group id (shared with the replayed group).
    pub group: Arc<str>,
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

/// What `--group` / `--topic` selected from: the groups and offset rows before filtering.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GroupsFilterDoc {
    /// `--group`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// `--topic`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    /// Groups replayed.
    pub groups_total: usize,
    /// Committed offsets (group, topic, partition) replayed.
    pub rows_total: usize,
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
    /// What `--group` / `--topic` filtered (absent without them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter: Option<GroupsFilterDoc>,
}

impl GroupsBody {
    /// The body for `state` with the `facts` and `verdicts` on it.
    pub fn new(state: &GroupState, facts: &GroupFacts, verdicts: &GroupVerdicts) -> GroupsBody {
        let rows = (verdicts.offsets.iter())
            .filter_map(|v| {
                let o = state.groups.get(&v.group)?.offsets.get(&v.tp)?;
                Some(GroupRowDoc {
                    group: v.group.clone(),
                    topic: v.tp.0.clone(),
                    partition: v.tp.1,
                    current_offset: v.committed,
                    log_start_offset: v.held.map(|h| h.log_start_offset),
                    log_end_offset: v.held.map(|h| h.log_end_offset),
                    lag: v.held.map(|h| h.log_end_offset.saturating_sub(v.committed)),
                    last_commit_ms: o.commit_timestamp_ms,
                    transactional: o.transactional,
                    expires_at_ms: v.expires_at_ms,
                    next_retention: v.next_retention.map(|n| NextRetentionDoc {
                        new_log_start_offset: n.new_log_start_offset,
                        by_ms: n.by_ms,
                        reset_to: n.reset_to(),
                        skipped: n.skipped,
                    }),
                })
            })
            .collect();
        let groups = (verdicts.groups.iter())
            .filter_map(|v| {
                let g = state.groups.get(&v.group)?;
                Some(GroupDoc {
                    group: g.name.clone(),
                    kind: g.kind,
                    state: g.state(),
                    protocol_type: g.protocol_type.clone(),
                    generation: g.generation,
                    members: g.members.len(),
                    coordinator_partition: v.coordinator_partition,
                    expected_partition: v.expected_partition,
                    last_commit_ms: g.last_commit_ms(),
                    pending_transactional: g.pending_transactional.len(),
                })
            })
            .collect();
        let mut named: BTreeMap<&str, BTreeSet<i32>> = BTreeMap::new();
        for v in &verdicts.offsets {
            named.entry(&*v.tp.0).or_default().insert(v.tp.1);
        }
        let topics = named
            .into_iter()
            .map(|(topic, parts)| {
                let (held, elsewhere): (Vec<i32>, Vec<i32>) = parts
                    .into_iter()
                    .partition(|p| facts.held.contains_key(&(topic.to_string(), *p)));
                TopicCoverageDoc {
                    partitions: facts.topic_partitions.get(topic).copied(),
                    topic: topic.to_string(),
                    held,
                    elsewhere,
                }
            })
            .collect();
        GroupsBody {
            offsets_retention_minutes: facts.offsets_retention_minutes,
            offsets_topic_partitions: facts.offsets_topic_partitions,
            coordinator_partitions: state.partitions.iter().copied().collect(),
            records_replayed: state.records,
            bytes_replayed: state.bytes,
            groups,
            rows,
            deleted_groups: verdicts.deleted.clone(),
            topics,
            filter: (facts.group.is_some() || facts.topic.is_some()).then(|| GroupsFilterDoc {
                group: facts.group.clone(),
                topic: facts.topic.clone(),
                groups_total: state.groups.len(),
                rows_total: state.groups.values().map(|g| g.offsets.len()).sum(),
            }),
        }
    }
}
