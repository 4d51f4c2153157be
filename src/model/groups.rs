//! The group state the group coordinator would load from `__consumer_offsets`, replayed from
//! the files: each partition in offset order from its log start, the latest record per key
//! winning, tombstones removing, transactional offset commits counting only at their
//! producer's COMMIT marker (`CoordinatorLoaderImpl`, `OffsetMetadataManager.replay`).
//!
//! The coordinator's rules over the replayed state (the group → partition mapping, offset
//! expiry, what a group loses when a log start moves) are in [`crate::rules::groups`].

use std::collections::{btree_map, BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use crate::formats::control::ControlKind;
use crate::formats::group_record::{decode_group_record, record_type as rt, GroupKey, GroupValue};
use crate::formats::record_walk::{RecordWalk, StopReason, WalkStop};

use super::file_bytes::{read_file_data, ReadMode};
use super::names::SegmentFileKind;
use super::partition::Partition;
use super::problem::FileProblem;
use super::records::SegmentStop;

/// A topic partition of a data topic.
pub type TopicPartition = (String, i32);

/// A topic name as the replayed groups hold it: one allocation per topic and replayed
/// `__consumer_offsets` partition, shared by every commit that names it.
pub type Topic = Arc<str>;

/// The data partition a group commits an offset of: its topic (shared) and number. Ordered as
/// [`TopicPartition`] is (by topic name, then partition).
pub type CommitKey = (Topic, i32);

/// Groups with more committed partitions than this keep them in a `BTreeMap`, so a group of
/// thousands of partitions committed in any order is still replayed in `O(n log n)`.
const SMALL_OFFSETS: usize = 16;

/// A group's committed offsets by data partition, in key order: stored inline for the usual
/// group of one partition (no allocation of its own), in a sorted `Vec` for a few, in a
/// `BTreeMap` beyond [`SMALL_OFFSETS`]. Equal, printed and serialized by its entries alone (a
/// list of `[key, value]` pairs, as `map_pairs` writes a map), whatever the representation.
#[derive(Clone, Default)]
pub struct CommittedOffsets(OffsetsRepr);

#[derive(Clone, Default)]
enum OffsetsRepr {
    #[default]
    Empty,
    One((CommitKey, CommittedOffset)),
    Few(Vec<(CommitKey, CommittedOffset)>),
    Many(BTreeMap<CommitKey, CommittedOffset>),
}

/// A data partition the log dirs hold: log start and end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HeldPartition {
    /// The log start offset.
    pub log_start_offset: i64,
    /// The log end offset.
    pub log_end_offset: i64,
}

/// One committed offset as the coordinator holds it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CommittedOffset {
    /// The next offset the group will read.
    pub offset: i64,
    /// The leader epoch of the commit, if any.
    pub leader_epoch: Option<i32>,
    /// The commit's metadata string.
    pub metadata: String,
    /// When it was committed (the broker's clock), ms.
    pub commit_timestamp_ms: i64,
    /// An explicit expiry (value v1 only), ms.
    pub expire_timestamp_ms: Option<i64>,
    /// Where the record is in `__consumer_offsets`.
    pub record_offset: i64,
    /// Written in a transaction (`sendOffsetsToTransaction`) and committed.
    pub transactional: bool,
}

impl CommittedOffsets {
    /// No offsets.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many partitions have a committed offset.
    pub fn len(&self) -> usize {
        match &self.0 {
            OffsetsRepr::Empty => 0,
            OffsetsRepr::One(_) => 1,
            OffsetsRepr::Few(v) => v.len(),
            OffsetsRepr::Many(m) => m.len(),
        }
    }

    /// Whether no partition has one.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The offset committed for `key`.
    pub fn get(&self, key: &CommitKey) -> Option<&CommittedOffset> {
        match &self.0 {
            OffsetsRepr::Empty => None,
            OffsetsRepr::One((k, v)) => (k == key).then_some(v),
            OffsetsRepr::Few(entries) => {
                let i = entries.binary_search_by(|(k, _)| k.cmp(key)).ok()?;
                entries.get(i).map(|(_, v)| v)
            }
            OffsetsRepr::Many(m) => m.get(key),
        }
    }

    /// The offset committed for `key`, to change.
    pub fn get_mut(&mut self, key: &CommitKey) -> Option<&mut CommittedOffset> {
        match &mut self.0 {
            OffsetsRepr::Empty => None,
            OffsetsRepr::One((k, v)) => (k == key).then_some(v),
            OffsetsRepr::Few(entries) => {
                let i = entries.binary_search_by(|(k, _)| k.cmp(key)).ok()?;
                entries.get_mut(i).map(|(_, v)| v)
            }
            OffsetsRepr::Many(m) => m.get_mut(key),
        }
    }

    /// Set the offset of `key` (the latest commit wins).
    pub fn insert(&mut self, key: CommitKey, value: CommittedOffset) {
        self.0 = match std::mem::take(&mut self.0) {
            OffsetsRepr::Empty => OffsetsRepr::One((key, value)),
            OffsetsRepr::One((k, _)) if k == key => OffsetsRepr::One((k, value)),
            OffsetsRepr::One(first) => {
                let mut entries = Vec::with_capacity(4);
                entries.push(first);
                insert_sorted(&mut entries, key, value);
                OffsetsRepr::Few(entries)
            }
            OffsetsRepr::Few(mut entries) => {
                insert_sorted(&mut entries, key, value);
                if entries.len() > SMALL_OFFSETS {
                    OffsetsRepr::Many(entries.into_iter().collect())
                } else {
                    OffsetsRepr::Few(entries)
                }
            }
            OffsetsRepr::Many(mut m) => {
                m.insert(key, value);
                OffsetsRepr::Many(m)
            }
        };
    }

    /// Remove the offset of `key` (a tombstone).
    pub fn remove(&mut self, key: &CommitKey) -> Option<CommittedOffset> {
        let (repr, removed) = match std::mem::take(&mut self.0) {
            OffsetsRepr::One((k, v)) if k == *key => (OffsetsRepr::Empty, Some(v)),
            OffsetsRepr::Few(mut entries) => match entries.binary_search_by(|(k, _)| k.cmp(key)) {
                Ok(i) => {
                    let (_, v) = entries.remove(i);
                    let repr = match entries.len() {
                        0 => OffsetsRepr::Empty,
                        _ => OffsetsRepr::Few(entries),
                    };
                    (repr, Some(v))
                }
                Err(_) => (OffsetsRepr::Few(entries), None),
            },
            OffsetsRepr::Many(mut m) => {
                let v = m.remove(key);
                (OffsetsRepr::Many(m), v)
            }
            other => (other, None),
        };
        self.0 = repr;
        removed
    }

    /// The offsets in key order (topic name, then partition).
    pub fn iter(&self) -> OffsetsIter<'_> {
        OffsetsIter(match &self.0 {
            OffsetsRepr::Empty => IterRepr::Slice([].iter()),
            OffsetsRepr::One(e) => IterRepr::Slice(std::slice::from_ref(e).iter()),
            OffsetsRepr::Few(entries) => IterRepr::Slice(entries.iter()),
            OffsetsRepr::Many(m) => IterRepr::Map(m.iter()),
        })
    }

    /// The partitions, in key order.
    pub fn keys(&self) -> impl Iterator<Item = &CommitKey> {
        self.iter().map(|(k, _)| k)
    }

    /// The offsets, in key order.
    pub fn values(&self) -> impl Iterator<Item = &CommittedOffset> {
        self.iter().map(|(_, v)| v)
    }
}

/// Insert or replace `key` in `entries`, sorted by key.
fn insert_sorted(
    entries: &mut Vec<(CommitKey, CommittedOffset)>,
    key: CommitKey,
    value: CommittedOffset,
) {
    match entries.binary_search_by(|(k, _)| k.cmp(&key)) {
        Ok(i) => {
            if let Some((_, v)) = entries.get_mut(i) {
                *v = value;
            }
        }
        Err(i) => entries.insert(i, (key, value)),
    }
}

/// The entries of [`CommittedOffsets`], in key order.
#[derive(Debug, Clone)]
pub struct OffsetsIter<'a>(IterRepr<'a>);

#[derive(Debug, Clone)]
enum IterRepr<'a> {
    Slice(std::slice::Iter<'a, (CommitKey, CommittedOffset)>),
    Map(btree_map::Iter<'a, CommitKey, CommittedOffset>),
}

impl<'a> Iterator for OffsetsIter<'a> {
    type Item = (&'a CommitKey, &'a CommittedOffset);

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.0 {
            IterRepr::Slice(it) => it.next().map(|(k, v)| (k, v)),
            IterRepr::Map(it) => it.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            IterRepr::Slice(it) => it.size_hint(),
            IterRepr::Map(it) => it.size_hint(),
        }
    }
}

impl<'a> IntoIterator for &'a CommittedOffsets {
    type Item = (&'a CommitKey, &'a CommittedOffset);
    type IntoIter = OffsetsIter<'a>;

    fn into_iter(self) -> OffsetsIter<'a> {
        self.iter()
    }
}

impl FromIterator<(CommitKey, CommittedOffset)> for CommittedOffsets {
    /// The offsets of `pairs` (a key given twice: the last pair wins).
    fn from_iter<I: IntoIterator<Item = (CommitKey, CommittedOffset)>>(pairs: I) -> Self {
        let mut out = CommittedOffsets::new();
        for (k, v) in pairs {
            out.insert(k, v);
        }
        out
    }
}

impl PartialEq for CommittedOffsets {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for CommittedOffsets {}

impl std::fmt::Debug for CommittedOffsets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl serde::Serialize for CommittedOffsets {
    /// As `map_pairs` writes a map: its `[key, value]` pairs, in key order.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> serde::Deserialize<'de> for CommittedOffsets {
    /// The offsets whose pairs were serialized (a key given twice: the last pair wins).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let pairs: Vec<(CommitKey, CommittedOffset)> = Vec::deserialize(d)?;
        Ok(pairs.into_iter().collect())
    }
}

/// One shared [`Topic`] per distinct name: the replay's topic names.
#[derive(Debug, Default)]
struct Interner(HashSet<Topic>);

impl Interner {
    fn intern(&mut self, name: &str) -> Topic {
        if let Some(t) = self.0.get(name) {
            return t.clone();
        }
        let t: Topic = name.into();
        self.0.insert(t.clone());
        t
    }
}

/// The kind of group, from its records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupKind {
    /// Offsets only, no group record: a standalone (`assign()`) or Admin-committed group.
    Simple,
    /// A classic (`JoinGroup`/`SyncGroup`) group.
    Classic,
    /// A consumer-protocol group (KIP-848).
    Consumer,
    /// A share or streams group (their offsets are not kept here).
    Other,
}

/// One group after the replay.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Group {
    /// Group id (shared with the key of [`GroupState::groups`]).
    pub name: Arc<str>,
    /// The `__consumer_offsets` partition its records are in.
    pub coordinator_partition: i32,
    /// The kind of group.
    pub kind: GroupKind,
    /// Classic: the protocol type (`consumer`, `connect`; empty for none).
    pub protocol_type: Option<String>,
    /// Classic generation or consumer-group epoch.
    pub generation: Option<i32>,
    /// Members recorded (classic: in the group metadata; consumer: member records).
    pub members: BTreeSet<String>,
    /// Classic: when the group entered its current state (v3+ group metadata), ms.
    pub current_state_timestamp_ms: Option<i64>,
    /// Consumer protocol: the topics each member subscribes to by name.
    pub subscriptions: BTreeMap<String, Vec<String>>,
    /// Committed offsets.
    pub offsets: CommittedOffsets,
    /// Transactional offset commits whose transaction has no marker yet.
    pub pending_transactional: BTreeSet<CommitKey>,
}

impl Group {
    /// A group with no records yet, in `__consumer_offsets` partition `partition`.
    pub fn new(name: &str, partition: i32) -> Group {
        Group::named(name.into(), partition)
    }

    /// A group with no records yet named `name` (shared), in partition `partition`.
    fn named(name: Arc<str>, partition: i32) -> Group {
        Group {
            name,
            coordinator_partition: partition,
            kind: GroupKind::Simple,
            protocol_type: None,
            generation: None,
            members: BTreeSet::new(),
            current_state_timestamp_ms: None,
            subscriptions: BTreeMap::new(),
            offsets: CommittedOffsets::new(),
            pending_transactional: BTreeSet::new(),
        }
    }

    /// The state the coordinator loads it in: `Empty` without members, else `Stable`.
    pub fn state(&self) -> &'static str {
        if self.members.is_empty() {
            "Empty"
        } else {
            "Stable"
        }
    }

    /// Consumer protocol: the topics any member subscribes to by name.
    pub fn subscribed_topics(&self) -> BTreeSet<&str> {
        self.subscriptions
            .values()
            .flatten()
            .map(String::as_str)
            .collect()
    }

    /// The last commit of any partition, ms.
    pub fn last_commit_ms(&self) -> Option<i64> {
        self.offsets.values().map(|o| o.commit_timestamp_ms).max()
    }

    fn has_metadata(&self) -> bool {
        self.kind != GroupKind::Simple || !self.members.is_empty()
    }
}

/// A record the replay could not decode.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BadRecord {
    /// The `__consumer_offsets` partition.
    pub partition: i32,
    /// The record's offset.
    pub offset: i64,
    /// What is wrong.
    pub error: String,
}

/// The groups of every replayed `__consumer_offsets` partition.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct GroupState {
    /// Groups by id.
    pub groups: BTreeMap<Arc<str>, Group>,
    /// Groups whose records were all removed by tombstones (deleted groups).
    pub deleted: BTreeSet<String>,
    /// Records that do not decode (skipped, as the coordinator would fail the load).
    pub bad_records: Vec<BadRecord>,
    /// Segments whose replay stopped before their end, by partition: at a batch that does not
    /// decode (also a bad record), or at a walk error, torn or zero tail (the segment checks'
    /// findings; not repeated as group findings).
    pub stops: Vec<(i32, SegmentStop)>,
    /// `__consumer_offsets` partitions replayed.
    pub partitions: BTreeSet<i32>,
    /// Records replayed.
    pub records: u64,
    /// Bytes of `.log` replayed.
    pub bytes: u64,
}

/// One record of a coordinator partition, in log order.
#[derive(Debug, Clone, Copy)]
pub struct CoordinatorRecord<'a> {
    /// Its offset.
    pub offset: i64,
    /// The batch's producer id.
    pub producer_id: i64,
    /// Whether the batch is transactional.
    pub transactional: bool,
    /// The control record's kind, for a control batch.
    pub control: Option<ControlKind>,
    /// Key.
    pub key: Option<&'a [u8]>,
    /// Value (`None`: tombstone).
    pub value: Option<&'a [u8]>,
}

/// An offset commit waiting for its transaction's marker.
type Pending = (String, CommitKey, Option<CommittedOffset>);

/// The replay of one `__consumer_offsets` partition into a [`GroupState`].
#[derive(Debug)]
pub struct PartitionReplay<'s> {
    state: &'s mut GroupState,
    partition: i32,
    pending: HashMap<i64, Vec<Pending>>,
    topics: Interner,
}

impl<'s> PartitionReplay<'s> {
    /// Start replaying partition `partition` into `state`.
    pub fn new(state: &'s mut GroupState, partition: i32) -> Self {
        state.partitions.insert(partition);
        PartitionReplay {
            state,
            partition,
            pending: HashMap::new(),
            topics: Interner::default(),
        }
    }

    /// The state so far.
    pub fn state(&self) -> &GroupState {
        self.state
    }

    /// Apply one record.
    pub fn apply(&mut self, r: &CoordinatorRecord<'_>) {
        self.state.records += 1;
        if let Some(kind) = r.control {
            return self.end_transaction(r.producer_id, kind);
        }
        let Some(key) = r.key else {
            return self.bad(r.offset, "record without a key".to_string());
        };
        let rec = match decode_group_record(key, r.value) {
            Ok(rec) => rec,
            Err(e) => return self.bad(r.offset, e.to_string()),
        };
        match rec.key {
            GroupKey::OffsetCommit {
                group,
                topic,
                partition,
                ..
            } => {
                let value = match rec.value {
                    Some(GroupValue::OffsetCommit(v)) => Some(CommittedOffset {
                        offset: v.offset,
                        leader_epoch: v.leader_epoch,
                        metadata: v.metadata,
                        commit_timestamp_ms: v.commit_timestamp,
                        expire_timestamp_ms: v.expire_timestamp,
                        record_offset: r.offset,
                        transactional: r.transactional,
                    }),
                    None => None,
                    Some(_) => return self.bad(r.offset, "not an offset commit value".into()),
                };
                let tp = (self.topics.intern(&topic), partition);
                if r.transactional {
                    self.group(&group).pending_transactional.insert(tp.clone());
                    self.pending
                        .entry(r.producer_id)
                        .or_default()
                        .push((group, tp, value));
                } else {
                    self.set_offset(&group, tp, value);
                }
            }
            GroupKey::Group { record_type, group } => {
                self.group_record(record_type, &group, rec.value)
            }
            GroupKey::Member {
                record_type,
                group,
                member_id,
            } if record_type == rt::CONSUMER_GROUP_MEMBER_METADATA => match rec.value {
                Some(GroupValue::ConsumerGroupMemberMetadata(m)) => {
                    let g = self.group(&group);
                    g.kind = GroupKind::Consumer;
                    g.members.insert(member_id.clone());
                    g.subscriptions.insert(member_id, m.subscribed_topic_names);
                }
                _ => {
                    if let Some(g) = self.state.groups.get_mut(group.as_str()) {
                        g.members.remove(&member_id);
                        g.subscriptions.remove(&member_id);
                    }
                    self.drop_if_gone(&group);
                }
            },
            _ => {}
        }
    }

    /// A control record of `producer_id`: a commit applies the offsets its transaction wrote,
    /// an abort drops them; other control records change nothing.
    fn end_transaction(&mut self, producer_id: i64, kind: ControlKind) {
        if !matches!(kind, ControlKind::Commit | ControlKind::Abort) {
            return;
        }
        let commit = kind == ControlKind::Commit;
        for (group, tp, value) in self.pending.remove(&producer_id).unwrap_or_default() {
            if let Some(g) = self.state.groups.get_mut(group.as_str()) {
                g.pending_transactional.remove(&tp);
            }
            if commit {
                self.set_offset(&group, tp, value);
            } else {
                self.drop_if_gone(&group);
            }
        }
    }

    fn group_record(&mut self, record_type: i16, group: &str, value: Option<GroupValue>) {
        match value {
            Some(GroupValue::GroupMetadata(v)) => {
                let g = self.group(group);
                g.kind = GroupKind::Classic;
                g.protocol_type = Some(v.protocol_type);
                g.generation = Some(v.generation);
                g.current_state_timestamp_ms = v.current_state_timestamp;
                g.members = v.members.into_iter().map(|m| m.member_id).collect();
            }
            Some(GroupValue::ConsumerGroupMetadata(v)) => {
                let g = self.group(group);
                g.kind = GroupKind::Consumer;
                g.generation = Some(v.epoch);
            }
            Some(_)
                if record_type == rt::SHARE_GROUP_METADATA
                    || record_type == rt::STREAMS_GROUP_METADATA =>
            {
                self.group(group).kind = GroupKind::Other;
            }
            Some(_) => {}
            None if record_type == rt::GROUP_METADATA
                || record_type == rt::CONSUMER_GROUP_METADATA
                || record_type == rt::SHARE_GROUP_METADATA
                || record_type == rt::STREAMS_GROUP_METADATA =>
            {
                if let Some(g) = self.state.groups.get_mut(group) {
                    g.kind = GroupKind::Simple;
                    g.protocol_type = None;
                    g.generation = None;
                    g.members.clear();
                    g.subscriptions.clear();
                }
                self.drop_if_gone(group);
            }
            None => {}
        }
    }

    /// The group `name`, created when new (its name allocated once, shared by the key).
    fn group(&mut self, name: &str) -> &mut Group {
        if !self.state.deleted.is_empty() {
            self.state.deleted.remove(name);
        }
        let partition = self.partition;
        let key = match self.state.groups.get_key_value(name) {
            Some((k, _)) => k.clone(),
            None => Arc::from(name),
        };
        (self.state.groups)
            .entry(key)
            .or_insert_with_key(|k| Group::named(k.clone(), partition))
    }

    fn set_offset(&mut self, group: &str, tp: CommitKey, value: Option<CommittedOffset>) {
        match value {
            Some(v) => {
                self.group(group).offsets.insert(tp, v);
            }
            None => {
                if let Some(g) = self.state.groups.get_mut(group) {
                    g.offsets.remove(&tp);
                }
                self.drop_if_gone(group);
            }
        }
    }

    /// A group with neither offsets nor metadata left was deleted.
    fn drop_if_gone(&mut self, group: &str) {
        let gone = self.state.groups.get(group).is_some_and(|g| {
            g.offsets.is_empty() && !g.has_metadata() && g.pending_transactional.is_empty()
        });
        if gone {
            self.state.groups.remove(group);
            self.state.deleted.insert(group.to_string());
        }
    }

    fn bad(&mut self, offset: i64, error: String) {
        self.state.bad_records.push(BadRecord {
            partition: self.partition,
            offset,
            error,
        });
    }
}

/// Replay the `.log` files of `__consumer_offsets` partition `p` (number `partition`) into
/// `state`, from its log start offset to the first batch that does not parse (where the
/// broker's recovery would truncate).
pub fn replay_partition(
    state: &mut GroupState,
    p: &Partition,
    partition: i32,
    read_mode: ReadMode,
) -> Result<(), FileProblem> {
    let log_start = p.log_start_offset().map_or(i64::MIN, |o| o.get());
    let mut replay = PartitionReplay::new(state, partition);
    for seg in p.log_segments() {
        let Some(path) = seg.path(&p.path, SegmentFileKind::Log) else {
            continue;
        };
        // A sparse tail is counted, not read: the replay stops at its first zero header.
        let data = read_file_data(&path, read_mode).map_err(|e| FileProblem::io(&path, &e))?;
        replay.state.bytes += data.bytes.len() as u64 + data.hole;
        let stop = replay_bytes(&mut replay, &data.bytes, log_start);
        let stop = SegmentStop::short_of_end(&path, stop);
        replay.state.stops.extend(stop.map(|s| (partition, s)));
    }
    Ok(())
}

/// Replay the batches of one segment's bytes, skipping batches wholly below `log_start`, to
/// the first batch that does not parse or decode; returns where and why the walk stopped.
pub fn replay_bytes(
    replay: &mut PartitionReplay<'_>,
    bytes: &[u8],
    log_start: i64,
) -> Option<WalkStop> {
    let mut walk = RecordWalk::new(bytes);
    while let Some(b) = walk.next() {
        let info = &b.info;
        if info.last_offset < log_start {
            continue;
        }
        let result = b.for_each_record(|r| {
            replay.apply(&CoordinatorRecord {
                offset: r.offset,
                producer_id: info.producer_id,
                transactional: info.is_transactional,
                control: r.control.map(|c| c.kind),
                key: r.key,
                value: r.value,
            });
            Ok(())
        });
        if let Err(e) = result {
            replay.bad(info.base_offset, e.to_string());
            walk.stop_at(info, StopReason::Decode(e));
        }
    }
    walk.into_stop()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offset_key(group: &str, topic: &str, partition: i32) -> Vec<u8> {
        let mut k = vec![0, 1];
        for s in [group, topic] {
            k.extend_from_slice(&i16::try_from(s.len()).unwrap().to_be_bytes());
            k.extend_from_slice(s.as_bytes());
        }
        k.extend_from_slice(&partition.to_be_bytes());
        k
    }

    /// `OffsetCommitValue` v3: offset, leader epoch, metadata, commit timestamp.
    fn offset_value(offset: i64, ts: i64) -> Vec<u8> {
        let mut v = vec![0, 3];
        v.extend_from_slice(&offset.to_be_bytes());
        v.extend_from_slice(&(-1i32).to_be_bytes());
        v.extend_from_slice(&0i16.to_be_bytes());
        v.extend_from_slice(&ts.to_be_bytes());
        v
    }

    fn rec<'a>(offset: i64, key: &'a [u8], value: Option<&'a [u8]>) -> CoordinatorRecord<'a> {
        CoordinatorRecord {
            offset,
            producer_id: -1,
            transactional: false,
            control: None,
            key: Some(key),
            value,
        }
    }

    #[test]
    fn latest_commit_wins_and_tombstones_delete() {
        let mut state = GroupState::default();
        let k = offset_key("g", "t", 0);
        let (v1, v2) = (offset_value(5, 100), offset_value(9, 200));
        let mut r = PartitionReplay::new(&mut state, 0);
        r.apply(&rec(0, &k, Some(&v1)));
        r.apply(&rec(1, &k, Some(&v2)));
        let o = &state.groups["g"].offsets.get(&("t".into(), 0)).unwrap();
        assert_eq!(
            (o.offset, o.commit_timestamp_ms, o.record_offset),
            (9, 200, 1)
        );
        let mut r = PartitionReplay::new(&mut state, 0);
        r.apply(&rec(2, &k, None));
        assert!(state.groups.is_empty());
        assert!(state.deleted.contains("g"));
        assert_eq!(state.records, 3);
    }

    #[test]
    fn transactional_commits_count_only_when_committed() {
        let mut state = GroupState::default();
        let k = offset_key("g", "t", 0);
        let v = offset_value(7, 100);
        let txn = |offset, producer_id| CoordinatorRecord {
            offset,
            producer_id,
            transactional: true,
            control: None,
            key: Some(&k),
            value: Some(&v),
        };
        let marker = |offset, producer_id, kind| CoordinatorRecord {
            offset,
            producer_id,
            transactional: true,
            control: Some(kind),
            key: None,
            value: None,
        };
        let mut r = PartitionReplay::new(&mut state, 0);
        r.apply(&txn(0, 11));
        r.apply(&marker(1, 11, ControlKind::Abort));
        assert!(r.state().groups.is_empty());
        r.apply(&txn(2, 12));
        r.apply(&marker(3, 99, ControlKind::Commit));
        r.apply(&marker(4, 12, ControlKind::LeaderChange));
        let g = &r.state().groups["g"];
        assert!(g.offsets.is_empty());
        assert!(g.pending_transactional.contains(&("t".into(), 0)));
        r.apply(&marker(5, 12, ControlKind::Commit));
        let o = &state.groups["g"].offsets.get(&("t".into(), 0)).unwrap();
        assert!(o.transactional && o.offset == 7);
        assert!(state.groups["g"].pending_transactional.is_empty());
    }

    fn committed(offset: i64) -> CommittedOffset {
        CommittedOffset {
            offset,
            leader_epoch: None,
            metadata: String::new(),
            commit_timestamp_ms: offset * 10,
            expire_timestamp_ms: None,
            record_offset: offset,
            transactional: false,
        }
    }

    /// The offsets map against a `BTreeMap` keyed by `TopicPartition` (the type it replaced)
    /// through every representation: none, one inline, a few sorted, many in a map, and back
    /// down by removals; same entries, same order, same serialization as `map_pairs` writes.
    #[test]
    fn committed_offsets_behave_as_the_map_they_replaced_in_every_representation() {
        let mut compact = CommittedOffsets::new();
        let mut map: BTreeMap<TopicPartition, CommittedOffset> = BTreeMap::new();
        let same = |compact: &CommittedOffsets, map: &BTreeMap<TopicPartition, CommittedOffset>| {
            assert_eq!(compact.len(), map.len());
            assert_eq!(compact.is_empty(), map.is_empty());
            let pairs: Vec<(TopicPartition, CommittedOffset)> = (compact.iter())
                .map(|((t, p), v)| ((t.to_string(), *p), v.clone()))
                .collect();
            let expected: Vec<_> = map.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            assert_eq!(pairs, expected);
            #[derive(serde::Serialize)]
            struct Old<'a>(
                #[serde(with = "crate::model::replays::map_pairs")]
                &'a BTreeMap<TopicPartition, CommittedOffset>,
            );
            let json = serde_json::to_string(compact).unwrap();
            assert_eq!(json, serde_json::to_string(&Old(map)).unwrap());
            let back: CommittedOffsets = serde_json::from_str(&json).unwrap();
            assert_eq!(&back, compact);
        };
        same(&compact, &map);
        // Topics out of order, one committed twice, past the inline and the sorted sizes.
        let keys: Vec<(&str, i32)> = (0..40)
            .map(|i| (["b", "a", "c"][i % 3], (i as i32 * 7) % 19))
            .collect();
        for (n, (t, p)) in keys.iter().enumerate() {
            let v = committed(n as i64);
            compact.insert((Topic::from(*t), *p), v.clone());
            map.insert((t.to_string(), *p), v);
            same(&compact, &map);
            let got = compact.get(&(Topic::from(*t), *p)).map(|o| o.offset);
            assert_eq!(got, Some(n as i64));
        }
        assert!(compact.get(&("z".into(), 0)).is_none());
        compact.get_mut(&("a".into(), 7)).unwrap().offset = -5;
        map.get_mut(&("a".to_string(), 7)).unwrap().offset = -5;
        same(&compact, &map);
        for (t, p) in &keys {
            let removed = compact.remove(&(Topic::from(*t), *p)).map(|o| o.offset);
            assert_eq!(removed, map.remove(&(t.to_string(), *p)).map(|o| o.offset));
            same(&compact, &map);
        }
        // One inline, then a few, emptied by removals.
        for (t, p) in [("x", 1), ("x", 0)] {
            compact.insert((t.into(), p), committed(1));
            map.insert((t.to_string(), p), committed(1));
            same(&compact, &map);
        }
        for (t, p) in [("x", 1), ("y", 0), ("x", 0)] {
            assert_eq!(
                compact.remove(&(t.into(), p)).is_some(),
                map.remove(&(t.to_string(), p)).is_some()
            );
            same(&compact, &map);
        }
    }

    #[test]
    fn the_replay_shares_one_topic_name_across_groups_and_one_group_id_with_its_key() {
        let mut state = GroupState::default();
        let (k1, k2) = (offset_key("g1", "t", 0), offset_key("g2", "t", 1));
        let v = offset_value(5, 100);
        let mut r = PartitionReplay::new(&mut state, 0);
        r.apply(&rec(0, &k1, Some(&v)));
        r.apply(&rec(1, &k2, Some(&v)));
        let topic = |g: &str| state.groups[g].offsets.keys().next().unwrap().0.clone();
        assert!(Arc::ptr_eq(&topic("g1"), &topic("g2")));
        let (key, g) = state.groups.get_key_value("g1").unwrap();
        assert!(Arc::ptr_eq(key, &g.name));
    }

    #[test]
    fn bad_records_are_kept_and_skipped() {
        let mut state = GroupState::default();
        let mut r = PartitionReplay::new(&mut state, 2);
        r.apply(&rec(4, &[0, 1, 0], None));
        r.apply(&CoordinatorRecord {
            key: None,
            ..rec(5, &[], None)
        });
        assert_eq!(state.bad_records.len(), 2);
        assert_eq!(
            (state.bad_records[0].partition, state.bad_records[0].offset),
            (2, 4)
        );
    }
}
