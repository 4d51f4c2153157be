//! The remote tier (KIP-405) as `__remote_log_metadata` records it: per user partition, its
//! remote segments by state, replayed from the metadata partitions found in the given log dirs.
//! Facts only; what they mean for local deletion is for the rules and the plan.
//!
//! Kafka's topic-based metadata manager (`TopicBasedRemoteLogMetadataManager`,
//! `RemotePartitionMetadataStore`, `RemoteLogMetadataCache`, 4.4 `storage/.../metadata/storage/`)
//! consumes each metadata partition in offset order and keeps per user partition the latest
//! state of each segment id: a `RemoteLogSegmentMetadataRecord` (COPY_SEGMENT_STARTED) adds a
//! segment, an update record moves it to COPY_SEGMENT_FINISHED, DELETE_SEGMENT_STARTED or
//! DELETE_SEGMENT_FINISHED (after which the cache drops it), a `RemotePartitionDeleteMetadataRecord`
//! tracks the deletion of the whole partition. This replay keeps the same per-segment state and
//! also remembers finished deletes and when each state was reached, so a later reader can say
//! "copy started at T and never finished".
//!
//! Which metadata partition holds a user partition: [`metadata_partition`] (from its topic id in
//! `partition.metadata` and the metadata topic's partition count, which an offline reader takes
//! from the cluster metadata log; 50 by default). [`RemoteTier::holding`] says whether that
//! partition was among the given dirs, so a caller can say "unknown" instead of guessing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::formats::partition_metadata::Uuid;
use crate::formats::record_walk::{RecordWalk, StopReason};
use crate::formats::remote_log_metadata::{
    decode_remote_log_metadata, metadata_partition, PartitionDeleteState, RemoteLogMetadataRecord,
    SegmentLeaderEpoch, SegmentRecord, SegmentState, TopicIdPartition, REMOTE_LOG_METADATA_TOPIC,
};

use super::file_bytes::{read_file_data, ReadMode};
use super::log_dir::LogDir;
use super::metadata_log::MetadataImage;
use super::names::{PartitionDirState, SegmentFileKind};
use super::partition::Partition;
use super::replays::Records;

/// One remote segment of a user partition, as the last record about it left it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RemoteSegment {
    /// The remote segment's id.
    pub segment_id: Uuid,
    /// First offset.
    pub start_offset: i64,
    /// Last offset (inclusive).
    pub end_offset: i64,
    /// Bytes of its `.log`.
    pub size_bytes: i32,
    /// Largest record timestamp.
    pub max_timestamp_ms: i64,
    /// Leader epoch → start offset of the records in it.
    pub leader_epochs: Vec<SegmentLeaderEpoch>,
    /// Whether its transaction index is empty (`None`: not recorded).
    pub txn_index_empty: Option<bool>,
    /// Its current state.
    pub state: SegmentState,
    /// Whether it ever reached COPY_SEGMENT_FINISHED (it counts toward the highest offset in
    /// remote storage even once deleted, as in Kafka's cache).
    pub copy_finished: bool,
    /// The broker that wrote the latest event.
    pub broker_id: i32,
    /// Event time of the COPY_SEGMENT_STARTED record (when the copy began).
    pub copy_started_ms: i64,
    /// Event time of the latest record (when `state` was reached).
    pub state_since_ms: i64,
    /// Metadata partition and offset of the latest record.
    pub last_record: (i32, i64),
    /// Records about it replayed (the add and every update).
    #[serde(default)]
    pub records: u64,
}

/// The remote tier of one user partition.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PartitionTier {
    /// Topic name (as the records give it).
    pub topic: String,
    /// Topic id.
    pub topic_id: Uuid,
    /// Partition number.
    pub partition: i32,
    /// Every segment ever recorded, by segment id (finished deletes included).
    pub segments: BTreeMap<Uuid, RemoteSegment>,
    /// The latest partition-deletion state and its event time.
    pub partition_delete: Option<(PartitionDeleteState, i64)>,
}

impl RemoteSegment {
    /// The segment a `RemoteLogSegmentMetadataRecord` adds, read at `last_record`
    /// (metadata partition, offset).
    fn added(s: &SegmentRecord, last_record: (i32, i64)) -> Self {
        let f = &s.fields;
        RemoteSegment {
            segment_id: s.segment_id,
            start_offset: f.start_offset,
            end_offset: f.end_offset,
            size_bytes: f.segment_size_in_bytes,
            max_timestamp_ms: f.max_timestamp_ms,
            leader_epochs: f.segment_leader_epochs.clone(),
            txn_index_empty: f.txn_index_empty,
            state: f.state,
            copy_finished: f.state != SegmentState::CopyStarted,
            broker_id: f.broker_id,
            copy_started_ms: f.event_timestamp_ms,
            state_since_ms: f.event_timestamp_ms,
            last_record,
            records: 1,
        }
    }
}

impl PartitionTier {
    /// Segments in `state`, ascending by start offset.
    pub fn in_state(&self, state: SegmentState) -> Vec<&RemoteSegment> {
        let mut v: Vec<&RemoteSegment> = self
            .segments
            .values()
            .filter(|s| s.state == state)
            .collect();
        v.sort_by_key(|s| (s.start_offset, s.end_offset));
        v
    }

    /// Copies started and never finished (COPY_SEGMENT_STARTED), with `copy_started_ms`.
    pub fn unfinished_copies(&self) -> Vec<&RemoteSegment> {
        self.in_state(SegmentState::CopyStarted)
    }

    /// Copies that failed: segments deleted (DELETE_SEGMENT_STARTED or FINISHED) without ever
    /// reaching COPY_SEGMENT_FINISHED, as `RemoteLogManager.copyLogSegment` cleans up a copy the
    /// RemoteStorageManager threw on (the copy is retried under a new segment id). Per start
    /// offset: (start offset, attempts, event time of the latest cleanup), ascending.
    pub fn failed_copies(&self) -> Vec<(i64, u32, i64)> {
        let mut by_start: BTreeMap<i64, (u32, i64)> = BTreeMap::new();
        let failed = self.segments.values().filter(|s| {
            !s.copy_finished
                && matches!(
                    s.state,
                    SegmentState::DeleteStarted | SegmentState::DeleteFinished
                )
        });
        for s in failed {
            let e = by_start.entry(s.start_offset).or_insert((0, i64::MIN));
            e.0 = e.0.saturating_add(1);
            e.1 = e.1.max(s.state_since_ms);
        }
        by_start.into_iter().map(|(o, (n, t))| (o, n, t)).collect()
    }

    /// Deletes in flight (DELETE_SEGMENT_STARTED).
    pub fn deletes_in_flight(&self) -> Vec<&RemoteSegment> {
        self.in_state(SegmentState::DeleteStarted)
    }

    /// Bytes in remote storage as remote retention counts them: COPY_SEGMENT_FINISHED and
    /// DELETE_SEGMENT_STARTED segments (`RemoteLogManager` `RLMExpirationTask`, KAFKA-17062).
    pub fn remote_size(&self) -> i64 {
        self.segments
            .values()
            .filter(|s| {
                matches!(
                    s.state,
                    SegmentState::CopyFinished | SegmentState::DeleteStarted
                )
            })
            .map(|s| i64::from(s.size_bytes))
            .sum()
    }

    /// The remote log start: the lowest start offset of a readable (COPY_SEGMENT_FINISHED)
    /// segment; `None` when there is none.
    pub fn remote_log_start(&self) -> Option<i64> {
        self.segments
            .values()
            .filter(|s| s.state == SegmentState::CopyFinished)
            .map(|s| s.start_offset)
            .min()
    }

    /// The highest offset in remote storage as Kafka's metadata cache keeps it: per leader epoch,
    /// the largest end offset of that epoch's records in a segment that reached
    /// COPY_SEGMENT_FINISHED (`RemoteLogLeaderEpochState.highestLogOffset`, only ever raised:
    /// deleting the segment later does not lower it). `None` when nothing was uploaded (−1).
    ///
    /// Without `lineage`: the largest over all epochs. With `lineage` (the partition's
    /// `leader-epoch-checkpoint` entries, ascending, and its log end offset), as the leader
    /// computes it (`RemoteLogManager.findHighestRemoteOffset`): walking the local epochs from
    /// the newest down, the first epoch with a value gives the answer, capped below the start of
    /// the next local epoch; epochs not on the lineage (a former leader's divergent tail) do not
    /// count.
    pub fn highest_offset_in_remote_storage(
        &self,
        lineage: Option<(&[(i32, i64)], i64)>,
    ) -> Option<i64> {
        let per_epoch = self.highest_offset_per_epoch();
        let Some((epochs, log_end)) = lineage else {
            return per_epoch.values().copied().max();
        };
        let mut next_start = log_end;
        for &(epoch, start) in epochs.iter().rev() {
            if let Some(&h) = per_epoch.get(&epoch) {
                return Some(h.min(next_start.saturating_sub(1)));
            }
            next_start = start;
        }
        None
    }

    /// Per leader epoch, the largest end offset of its records in segments that reached
    /// COPY_SEGMENT_FINISHED (an epoch's records in a segment end where the segment's next
    /// epoch starts, the last one at the segment's end offset).
    pub fn highest_offset_per_epoch(&self) -> BTreeMap<i32, i64> {
        let mut out = BTreeMap::new();
        for s in self.segments.values().filter(|s| s.copy_finished) {
            let ends = s
                .leader_epochs
                .iter()
                .skip(1)
                .map(|e| e.offset.saturating_sub(1))
                .chain(std::iter::once(s.end_offset));
            for (e, end) in s.leader_epochs.iter().zip(ends) {
                let h = out.entry(e.leader_epoch).or_insert(end);
                *h = (*h).max(end);
            }
        }
        out
    }
}

/// A metadata-partition input that could not be read or decoded (reported, never skipped
/// silently).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TierProblem {
    /// The file.
    #[serde(with = "crate::model::names::path_serde")]
    pub path: PathBuf,
    /// The `__remote_log_metadata` partition.
    pub metadata_partition: i32,
    /// The record's offset, when the problem is one record.
    pub offset: Option<i64>,
    /// What is wrong.
    pub error: String,
}

/// What was read of one `__remote_log_metadata` partition.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MetadataPartitionRead {
    /// Its dir.
    #[serde(with = "crate::model::names::path_serde")]
    pub path: PathBuf,
    /// Records decoded, by apiKey (0 segment, 1 update, 2 partition delete, 3 snapshot).
    pub records_by_type: [u64; 4],
    /// Bytes of `.log` read.
    pub bytes: u64,
}

/// The finished deletes one metadata partition records ([`RemoteTier::finished_deletes`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FinishedDeletes {
    /// Remote segments in DELETE_SEGMENT_FINISHED.
    pub segments: u64,
    /// The records about them.
    pub records: u64,
    /// Those deleted without ever reaching COPY_SEGMENT_FINISHED (failed copies the broker
    /// cleaned up).
    pub never_copied: u64,
}

/// Whether the metadata partition of a user partition was among the given dirs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holding {
    /// It was replayed: the model's facts for the user partition are complete.
    Replayed(u32),
    /// It is not in the given dirs: the upload state is unknown.
    NotGiven(u32),
}

/// The remote tier of every user partition found in the replayed metadata partitions.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RemoteTier {
    /// Per user partition (topic id, partition).
    #[serde(with = "crate::model::replays::map_pairs")]
    pub partitions: BTreeMap<(Uuid, i32), PartitionTier>,
    /// The metadata partitions replayed, by number.
    pub metadata_partitions: BTreeMap<i32, MetadataPartitionRead>,
    /// Inputs that could not be read or records that did not decode.
    pub problems: Vec<TierProblem>,
}

impl RemoteTier {
    /// The tier of user partition (`topic_id`, `partition`), if any record names it.
    pub fn partition(&self, topic_id: Uuid, partition: i32) -> Option<&PartitionTier> {
        self.partitions.get(&(topic_id, partition))
    }

    /// The records of metadata partition `mp` that describe remote segments already deleted
    /// (DELETE_SEGMENT_FINISHED): what a retention on the topic could drop without losing a
    /// segment still in use. `None` when `mp` was not replayed.
    pub fn finished_deletes(&self, mp: i32) -> Option<FinishedDeletes> {
        self.metadata_partitions.get(&mp)?;
        let mut out = FinishedDeletes::default();
        let segs = (self.partitions.values())
            .flat_map(|t| t.segments.values())
            .filter(|s| s.last_record.0 == mp && s.state == SegmentState::DeleteFinished);
        for s in segs {
            out.segments += 1;
            out.records += s.records;
            if !s.copy_finished {
                out.never_copied += 1;
            }
        }
        Some(out)
    }

    /// Whether the metadata partition holding (`topic_id`, `partition`) was replayed, given the
    /// metadata topic's partition count; `None` when the count is 0.
    pub fn holding(&self, topic_id: Uuid, partition: i32, num_partitions: u32) -> Option<Holding> {
        let n = metadata_partition(topic_id, partition, num_partitions)?;
        let replayed = i32::try_from(n)
            .ok()
            .is_some_and(|n| self.metadata_partitions.contains_key(&n));
        Some(if replayed {
            Holding::Replayed(n)
        } else {
            Holding::NotGiven(n)
        })
    }

    /// The tier of `tp`, added empty if no record named it before.
    fn tier_mut(&mut self, tp: &TopicIdPartition) -> &mut PartitionTier {
        self.partitions
            .entry((tp.topic_id, tp.partition))
            .or_insert_with(|| PartitionTier {
                topic: tp.topic.clone(),
                topic_id: tp.topic_id,
                partition: tp.partition,
                segments: BTreeMap::new(),
                partition_delete: None,
            })
    }

    /// Apply one record of metadata partition `mp` at `offset`, as the metadata manager's cache
    /// does (an update for a segment never added is a problem, as Kafka logs and drops it).
    pub fn apply(&mut self, mp: i32, offset: i64, record: &RemoteLogMetadataRecord) {
        match record {
            RemoteLogMetadataRecord::Segment(s) => {
                let tier = self.tier_mut(&s.topic_id_partition);
                tier.segments
                    .insert(s.segment_id, RemoteSegment::added(s, (mp, offset)));
            }
            RemoteLogMetadataRecord::SegmentUpdate(u) => {
                let tp = &u.topic_id_partition;
                let seg = self
                    .partitions
                    .get_mut(&(tp.topic_id, tp.partition))
                    .and_then(|t| t.segments.get_mut(&u.segment_id));
                match seg {
                    Some(seg) => {
                        seg.state = u.state;
                        seg.copy_finished |= u.state == SegmentState::CopyFinished;
                        seg.broker_id = u.broker_id;
                        seg.state_since_ms = u.event_timestamp_ms;
                        seg.last_record = (mp, offset);
                        seg.records += 1;
                    }
                    None => self.problems.push(TierProblem {
                        path: self
                            .metadata_partitions
                            .get(&mp)
                            .map(|r| r.path.clone())
                            .unwrap_or_default(),
                        metadata_partition: mp,
                        offset: Some(offset),
                        error: format!(
                            "{} for segment {} of {}-{} that no earlier record adds",
                            u.state.name(),
                            u.segment_id.to_base64(),
                            tp.topic,
                            tp.partition
                        ),
                    }),
                }
            }
            RemoteLogMetadataRecord::PartitionDelete(d) => {
                let tier = self.tier_mut(&d.topic_id_partition);
                tier.partition_delete = Some((d.state, d.event_timestamp_ms));
            }
            // Snapshot records belong to the 3.6-3.7 `remote_log_snapshot` files, not to the
            // topic (no partition to attribute them to): counted, not applied.
            RemoteLogMetadataRecord::Snapshot(_) => {}
        }
    }
}

/// Where the `__remote_log_metadata` partition count came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetadataPartitionCountSource {
    /// The metadata image: the topic's `TopicRecord` and its `PartitionRecord`s.
    MetadataImage,
    /// Not in the image: `rlmm.config.remote.log.metadata.topic.num.partitions` of
    /// `server.properties` (what the broker creates the topic with), assumed.
    AssumedFromBrokerConfig,
    /// Neither: Kafka's default, 50, assumed.
    AssumedDefault,
}

/// The `__remote_log_metadata` partition count, which the partitioner needs
/// (`RemoteLogMetadataTopicPartitioner`: topic id hash modulo the count).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetadataPartitionCount {
    /// The count.
    pub count: u32,
    /// Where it came from.
    pub source: MetadataPartitionCountSource,
}

/// `TopicBasedRemoteLogMetadataManagerConfig.DEFAULT_REMOTE_LOG_METADATA_TOPIC_PARTITIONS`.
pub const DEFAULT_METADATA_PARTITIONS: u32 = 50;

/// The broker config the metadata manager creates the topic with (prefix
/// `remote.log.metadata.manager.impl.prefix`, default `rlmm.config.`).
pub const METADATA_PARTITIONS_CONFIG: &str = "rlmm.config.remote.log.metadata.topic.num.partitions";

impl MetadataPartitionCount {
    /// The count from the metadata image's partitions of `__remote_log_metadata`; else
    /// `broker_config` (the static `rlmm.config.` value, if set and positive); else 50. The last
    /// two are assumptions a reader must be told about.
    pub fn of(image: &MetadataImage, broker_config: Option<&str>) -> MetadataPartitionCount {
        let in_image = image
            .topics
            .get(REMOTE_LOG_METADATA_TOPIC)
            .and_then(|t| u32::try_from(t.partitions.len()).ok())
            .filter(|n| *n > 0);
        if let Some(count) = in_image {
            return MetadataPartitionCount {
                count,
                source: MetadataPartitionCountSource::MetadataImage,
            };
        }
        match broker_config
            .and_then(|v| v.trim().parse::<u32>().ok())
            .filter(|n| *n > 0)
        {
            Some(count) => MetadataPartitionCount {
                count,
                source: MetadataPartitionCountSource::AssumedFromBrokerConfig,
            },
            None => MetadataPartitionCount {
                count: DEFAULT_METADATA_PARTITIONS,
                source: MetadataPartitionCountSource::AssumedDefault,
            },
        }
    }

    /// Whether the count is an assumption.
    pub fn assumed(&self) -> bool {
        self.source != MetadataPartitionCountSource::MetadataImage
    }
}

/// `remote.log.storage.system.enable` as the inputs show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemoteSystem {
    /// A config source logclean read sets it (`server.properties`, a describe file, an override).
    Configured(bool),
    /// Not in any source read, but `__remote_log_metadata` partitions are on disk: the
    /// topic-based metadata manager creates that topic only on a broker with the system on (and
    /// a topic's `remote.storage.enable=true` is refused without it), so it is taken as on.
    InferredOn,
    /// Not in any source read and no sign of it: Kafka's default, off.
    DefaultOff,
}

impl RemoteSystem {
    /// Whether the broker runs the remote log manager.
    pub fn enabled(self) -> bool {
        matches!(
            self,
            RemoteSystem::Configured(true) | RemoteSystem::InferredOn
        )
    }
}

/// The remote tier as the inputs show it: the metadata partitions replayed and the count that
/// maps user partitions to them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteTierView {
    /// `remote.log.storage.system.enable`.
    pub system: RemoteSystem,
    /// The `__remote_log_metadata` partition count.
    pub count: MetadataPartitionCount,
    /// What the replayed metadata partitions hold.
    pub tier: RemoteTier,
}

impl RemoteTierView {
    /// Replay the metadata partitions of `dirs`, with the count from `image` (or assumed);
    /// `configured`: `remote.log.storage.system.enable` if a source read sets it.
    pub fn of(
        image: &MetadataImage,
        broker_config: Option<&str>,
        configured: Option<bool>,
        dirs: &[LogDir],
        records: Records<'_>,
    ) -> RemoteTierView {
        let tier = match records {
            Records::Files(mode) => replay_remote_tier(dirs, mode),
            Records::Carried(r) => r.remote_tier.clone(),
        };
        let seen = !tier.metadata_partitions.is_empty()
            || image.topics.contains_key(REMOTE_LOG_METADATA_TOPIC);
        let system = match configured {
            Some(on) => RemoteSystem::Configured(on),
            None if seen => RemoteSystem::InferredOn,
            None => RemoteSystem::DefaultOff,
        };
        RemoteTierView {
            system,
            count: MetadataPartitionCount::of(image, broker_config),
            tier,
        }
    }

    /// Whether the metadata partition holding (`topic_id`, `partition`) was replayed.
    pub fn holding(&self, topic_id: Uuid, partition: i32) -> Option<Holding> {
        self.tier.holding(topic_id, partition, self.count.count)
    }
}

/// Replay every live `__remote_log_metadata-N` partition of `dirs` (each number once: the first
/// dir holding it).
pub fn replay_remote_tier(dirs: &[LogDir], mode: ReadMode) -> RemoteTier {
    let mut tier = RemoteTier::default();
    for p in dirs.iter().flat_map(|d| &d.partitions) {
        let Some(name) = &p.name else { continue };
        if name.topic != REMOTE_LOG_METADATA_TOPIC
            || name.state != PartitionDirState::Live
            || tier.metadata_partitions.contains_key(&name.partition)
        {
            continue;
        }
        replay_metadata_partition(&mut tier, p, name.partition, mode);
    }
    tier
}

/// Replay one metadata partition's `.log` files from its log start offset. A file that cannot
/// be read, a batch that does not parse (the replay of that file stops there) and a record that
/// does not decode are each a [`TierProblem`].
pub fn replay_metadata_partition(tier: &mut RemoteTier, p: &Partition, mp: i32, mode: ReadMode) {
    tier.metadata_partitions.insert(
        mp,
        MetadataPartitionRead {
            path: p.path.clone(),
            ..MetadataPartitionRead::default()
        },
    );
    let log_start = p.log_start_offset().map_or(i64::MIN, |o| o.get());
    let mut whole = true;
    for seg in p.log_segments() {
        let Some(path) = seg.path(&p.path, SegmentFileKind::Log) else {
            continue;
        };
        match read_file_data(&path, mode) {
            Ok(data) => replay_segment_bytes(tier, mp, &path, &data.bytes, log_start),
            Err(e) => {
                whole = false;
                tier.problems.push(TierProblem {
                    path,
                    metadata_partition: mp,
                    offset: None,
                    error: format!("cannot read: {e}"),
                });
            }
        }
    }
    // A file missing from the replay (unreadable, or not carried by a facts snapshot) leaves
    // the upload state unknown, never "fewer segments uploaded": the partition counts as not
    // replayed, so nothing is decided on it.
    if !whole {
        tier.metadata_partitions.remove(&mp);
    }
}

/// The records of one segment's bytes, in order, batches wholly below `log_start` skipped.
fn replay_segment_bytes(tier: &mut RemoteTier, mp: i32, path: &Path, bytes: &[u8], log_start: i64) {
    let problem = |offset, error| TierProblem {
        path: path.to_path_buf(),
        metadata_partition: mp,
        offset,
        error,
    };
    if let Some(read) = tier.metadata_partitions.get_mut(&mp) {
        read.bytes += bytes.len() as u64;
    }
    let mut walk = RecordWalk::new(bytes);
    while let Some(batch) = walk.next() {
        let b = &batch.info;
        if b.last_offset < log_start || b.is_control {
            continue;
        }
        let mut decoded = Vec::new();
        let walked = batch.for_each_record(|r| {
            decoded.push((r.offset, r.value.map(decode_remote_log_metadata)));
            Ok(())
        });
        for (offset, value) in decoded {
            match value {
                Some(Ok(record)) => {
                    if let Some(read) = tier.metadata_partitions.get_mut(&mp) {
                        if let Some(n) = read.records_by_type.get_mut(usize::from(record.api_key()))
                        {
                            *n += 1;
                        }
                    }
                    tier.apply(mp, offset, &record);
                }
                Some(Err(e)) => tier
                    .problems
                    .push(problem(Some(offset), format!("record: {e}"))),
                None => tier
                    .problems
                    .push(problem(Some(offset), "record: null value".to_string())),
            }
        }
        if let Err(e) = walked {
            walk.stop_at(b, StopReason::Decode(e));
        }
    }
    // A bad batch, a partial batch or a zero-filled tail: what follows is not read (Kafka's
    // recovery truncates a torn tail), which may hide records.
    if let Some(stop) = walk.into_stop().filter(|s| !s.reason.is_end()) {
        tier.problems.push(problem(
            stop.base_offset,
            format!(
                "replay stopped at byte {} of {}: {}",
                stop.position,
                bytes.len(),
                stop.reason
            ),
        ));
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a panic is the failure report
mod tests {
    use super::*;
    use crate::formats::remote_log_metadata::{
        SegmentFields, SegmentRecord, SegmentUpdateRecord, TopicIdPartition,
    };

    fn tip() -> TopicIdPartition {
        TopicIdPartition {
            topic: "t".into(),
            topic_id: Uuid([7; 16]),
            partition: 0,
        }
    }

    fn add(tier: &mut RemoteTier, id: u8, start: i64, end: i64, epochs: &[(i32, i64)]) {
        tier.apply(
            0,
            i64::from(id) * 2,
            &RemoteLogMetadataRecord::Segment(SegmentRecord {
                topic_id_partition: tip(),
                segment_id: Uuid([id; 16]),
                fields: SegmentFields {
                    start_offset: start,
                    end_offset: end,
                    broker_id: 1,
                    max_timestamp_ms: 0,
                    event_timestamp_ms: 100,
                    segment_leader_epochs: epochs
                        .iter()
                        .map(|&(leader_epoch, offset)| SegmentLeaderEpoch {
                            leader_epoch,
                            offset,
                        })
                        .collect(),
                    segment_size_in_bytes: 10,
                    custom_metadata_len: None,
                    state: SegmentState::CopyStarted,
                    txn_index_empty: None,
                },
            }),
        );
    }

    fn update(tier: &mut RemoteTier, id: u8, state: SegmentState) {
        tier.apply(
            0,
            i64::from(id) * 2 + 1,
            &RemoteLogMetadataRecord::SegmentUpdate(SegmentUpdateRecord {
                topic_id_partition: tip(),
                segment_id: Uuid([id; 16]),
                broker_id: 1,
                event_timestamp_ms: 200,
                custom_metadata_len: None,
                state,
            }),
        );
    }

    #[test]
    fn the_metadata_partition_count_comes_from_the_image_else_it_is_assumed() {
        use crate::formats::partition_metadata::Uuid as Id;
        use crate::model::metadata_log::{PartitionImage, TopicImage};
        let mut image = MetadataImage::default();
        let c = MetadataPartitionCount::of(&image, None);
        assert_eq!((c.count, c.assumed()), (50, true));
        assert_eq!(c.source, MetadataPartitionCountSource::AssumedDefault);
        let c = MetadataPartitionCount::of(&image, Some(" 5"));
        assert_eq!((c.count, c.assumed()), (5, true));
        assert_eq!(
            MetadataPartitionCount::of(&image, Some("0")).count,
            DEFAULT_METADATA_PARTITIONS
        );
        image.topics.insert(
            REMOTE_LOG_METADATA_TOPIC.to_string(),
            TopicImage {
                topic_id: Id([1; 16]),
                partitions: (0..7)
                    .map(|p| {
                        let part = PartitionImage {
                            replicas: vec![1],
                            isr: vec![1],
                            leader: 1,
                            leader_epoch: 0,
                            partition_epoch: 0,
                            leader_recovery_state: 0,
                            directories: Vec::new(),
                            elr: Vec::new(),
                        };
                        (p, part)
                    })
                    .collect(),
            },
        );
        // The image wins over the broker config.
        let c = MetadataPartitionCount::of(&image, Some("5"));
        assert_eq!((c.count, c.assumed()), (7, false));
    }

    #[test]
    fn highest_offset_follows_the_lineage_and_never_drops() {
        let mut tier = RemoteTier::default();
        // Epoch 0: 0..=9 and 10..=19 (epoch 1 from 15); epoch 2 (a divergent leader): 20..=29.
        add(&mut tier, 1, 0, 9, &[(0, 0)]);
        add(&mut tier, 2, 10, 19, &[(0, 10), (1, 15)]);
        add(&mut tier, 3, 20, 29, &[(2, 20)]);
        let p = tier.partition(Uuid([7; 16]), 0).unwrap();
        assert_eq!(p.highest_offset_in_remote_storage(None), None);
        assert_eq!(p.unfinished_copies().len(), 3);
        for id in 1..=3 {
            update(&mut tier, id, SegmentState::CopyFinished);
        }
        let p = tier.partition(Uuid([7; 16]), 0).unwrap();
        assert_eq!(
            p.highest_offset_per_epoch(),
            BTreeMap::from([(0, 14), (1, 19), (2, 29)])
        );
        assert_eq!(p.highest_offset_in_remote_storage(None), Some(29));
        // The local lineage has epochs 0 and 1 (then 3 from 25): epoch 2 is not on it.
        let lineage = [(0, 0), (1, 15), (3, 25)];
        assert_eq!(
            p.highest_offset_in_remote_storage(Some((&lineage, 40))),
            Some(19)
        );
        // Epoch 1 capped below the next local epoch's start.
        let lineage = [(0, 0), (1, 15), (3, 18)];
        assert_eq!(
            p.highest_offset_in_remote_storage(Some((&lineage, 40))),
            Some(17)
        );
        assert_eq!(p.remote_size(), 30);
        assert_eq!(p.remote_log_start(), Some(0));
        // Deleting a segment does not lower the highest offset (Kafka's cache keeps it).
        update(&mut tier, 3, SegmentState::DeleteStarted);
        let p = tier.partition(Uuid([7; 16]), 0).unwrap();
        assert_eq!(p.deletes_in_flight().len(), 1);
        assert_eq!(p.remote_size(), 30);
        update(&mut tier, 3, SegmentState::DeleteFinished);
        let p = tier.partition(Uuid([7; 16]), 0).unwrap();
        assert_eq!(p.highest_offset_in_remote_storage(None), Some(29));
        assert_eq!(p.remote_size(), 20);
        assert!(tier.problems.is_empty());
        // An update for a segment no record added is a problem.
        update(&mut tier, 9, SegmentState::CopyFinished);
        assert_eq!(tier.problems.len(), 1);
        assert_eq!(tier.problems[0].offset, Some(19));
    }
}
