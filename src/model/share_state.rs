//! `__share_group_state` replayed the way the share coordinator loads it: per share partition
//! (group, topic id, partition) the offset of its latest `ShareSnapshot`, and the coordinator's
//! "last redundant offset", below which its prune job deletes the records.
//!
//! Kafka 4.4 sources (`share-coordinator/src/main/java/org/apache/kafka/coordinator/share/`):
//! - `ShareCoordinatorShard.replay` → `handleShareSnapshot` calls
//!   `offsetsManager.updateState(key, offset, value == null)` for every snapshot record and
//!   tombstone; `handleShareUpdate` does not (an update needs the snapshot before it).
//! - `ShareCoordinatorOffsetsManager.updateState` / `findRedundantOffset`: the redundant offset
//!   is the smallest latest-snapshot offset over the keys (a tombstoned key leaves the map after
//!   the update); `lastRedundantOffset()` is empty when that is ≤ 0.
//! - `ShareCoordinatorService.setupRecordPruning` / `performRecordPruning`: every
//!   `share.coordinator.state.topic.prune.interval.ms` (5 min) the service asks each shard for
//!   that offset and calls `PartitionWriter.deleteRecords(tp, offset)` (DeleteRecords: the log
//!   start rises to it and the next retention pass deletes the segments below). The topic itself
//!   is `cleanup.policy=delete` with `retention.ms=-1` (`shareGroupStateTopicConfigs`), so this
//!   prune is the only thing that ever frees it.
//! - `ShareCoordinatorShard.snapshotColdPartitions`, run every
//!   `share.coordinator.cold.partition.snapshot.interval.ms` (5 min): writes a fresh snapshot of
//!   each key whose last snapshot is older than that interval, so an idle key stops holding the
//!   prune back (skipped when every key's snapshot is already a cold one).
//!
//! The verdicts (what the prune frees, which key holds it) are in [`crate::rules::share_state`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::formats::record_walk::{RecordWalk, StopReason};
use crate::formats::share_state_record::{
    decode_share_state_record, SharePartitionKey, ShareRecordType, ShareStateRecord,
};

use super::coordinators::first_live_copies;
use super::file_bytes::{read_file, ReadMode};
use super::log_dir::LogDir;
use super::names::{SegmentFileKind, SHARE_GROUP_STATE_TOPIC};
use super::partition::Partition;
use super::problem::FileProblem;
use super::records::SegmentStop;

/// One key's state as the replay leaves it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ShareKeyState {
    /// Offset of its latest `ShareSnapshot` (what the offsets manager tracks); `None` when only
    /// updates were read (their snapshot lies below the log start).
    pub snapshot_offset: Option<i64>,
    /// That snapshot's `WriteTimestamp` (epoch ms).
    pub snapshot_write_ms: Option<i64>,
    /// That snapshot's epoch.
    pub snapshot_epoch: Option<i32>,
    /// Offset of its latest record of either type.
    pub last_offset: i64,
    /// Its records read (snapshots and updates).
    pub records: u64,
}

/// One segment of a `__share_group_state` partition, with the bound the prune compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StateSegment {
    /// Base offset.
    pub base_offset: i64,
    /// The next segment's base offset, or the log end for the active segment: the segment lies
    /// wholly below an offset `o` when this is ≤ `o` (`UnifiedLog.deleteOldSegments`' log-start
    /// pass).
    pub upper_bound: i64,
    /// `.log` bytes.
    pub size: u64,
    /// Whether it is the active segment (never deleted by the log-start pass).
    pub active: bool,
}

/// One `__share_group_state` partition replayed.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SharePartitionReplay {
    /// The partition number.
    pub partition: i32,
    /// Its log dir.
    #[serde(with = "crate::model::names::path_serde")]
    pub log_dir: PathBuf,
    /// Its dir.
    #[serde(with = "crate::model::names::path_serde")]
    pub path: PathBuf,
    /// The log start offset the broker loads.
    pub log_start_offset: i64,
    /// The log end offset.
    pub log_end_offset: i64,
    /// Its segments, in offset order.
    pub segments: Vec<StateSegment>,
    /// The live keys (a tombstone removes one).
    #[serde(with = "crate::model::replays::map_pairs")]
    pub keys: BTreeMap<SharePartitionKey, ShareKeyState>,
    /// `ShareCoordinatorOffsetsManager.lastRedundantOffset()` after the replay: what the next
    /// prune deletes below (`None`: nothing, as in Kafka for a value ≤ 0).
    pub last_redundant_offset: Option<i64>,
    /// The largest batch timestamp read (epoch ms): the last write the coordinator made.
    pub newest_write_ms: Option<i64>,
    /// Records read.
    pub records: u64,
    /// Records that did not decode: (offset, why).
    pub bad_records: Vec<(i64, String)>,
    /// Segments whose walk stopped short of their end.
    pub stops: Vec<SegmentStop>,
    /// A `.log` that could not be read (the replay stopped there).
    pub unreadable: Option<FileProblem>,
}

/// A port of `ShareCoordinatorOffsetsManager` (Kafka 4.4): the latest snapshot offset per key
/// and the last redundant offset.
#[derive(Debug)]
struct OffsetsManager {
    offsets: BTreeMap<SharePartitionKey, i64>,
    last_redundant: i64,
}

impl OffsetsManager {
    fn new() -> Self {
        OffsetsManager {
            offsets: BTreeMap::new(),
            last_redundant: i64::MAX,
        }
    }

    /// `updateState(key, offset, isDelete)`.
    fn update(&mut self, key: &SharePartitionKey, offset: i64, is_delete: bool) {
        self.last_redundant = self.last_redundant.min(offset);
        self.offsets.insert(key.clone(), offset);
        if let Some(r) = self.find_redundant() {
            self.last_redundant = r;
        }
        if is_delete {
            self.offsets.remove(key);
        }
    }

    /// `findRedundantOffset`: the smallest offset over the keys, stopping early where it meets
    /// the last redundant offset.
    fn find_redundant(&self) -> Option<i64> {
        if self.offsets.is_empty() {
            return None;
        }
        let mut so_far = i64::MAX;
        for &o in self.offsets.values() {
            so_far = so_far.min(o);
            if so_far == self.last_redundant {
                return Some(so_far);
            }
        }
        Some(so_far)
    }

    /// `lastRedundantOffset()`: empty for a value ≤ 0 or none yet.
    fn last_redundant(&self) -> Option<i64> {
        (self.last_redundant > 0 && self.last_redundant != i64::MAX).then_some(self.last_redundant)
    }
}

/// Replay every `__share_group_state` partition of `dirs` (the first copy of each).
pub fn replay_share_states(dirs: &[LogDir], mode: ReadMode) -> Vec<SharePartitionReplay> {
    first_live_copies(dirs)
        .into_iter()
        .filter(|(_, _, name)| name.topic == SHARE_GROUP_STATE_TOPIC)
        .filter_map(|(d, p, name)| replay_partition(d, p, name.partition, mode))
        .collect()
}

/// Replay one `__share_group_state` partition of `d` from its log start; `None` when not all
/// its segments were loaded.
pub fn replay_partition(
    d: &LogDir,
    p: &Partition,
    partition: i32,
    mode: ReadMode,
) -> Option<SharePartitionReplay> {
    let log_start_offset = p.log_start_offset()?.get();
    let log_end_offset = p.log_end_offset()?.get();
    let segs: Vec<_> = p.log_segments().collect();
    let segments = (segs.iter().enumerate())
        .map(|(i, s)| StateSegment {
            base_offset: s.base_offset.get(),
            upper_bound: segs
                .get(i + 1)
                .map_or(log_end_offset, |n| n.base_offset.get()),
            size: s.size().get(),
            active: s.active,
        })
        .collect();
    let mut out = SharePartitionReplay {
        partition,
        log_dir: d.path.clone(),
        path: p.path.clone(),
        log_start_offset,
        log_end_offset,
        segments,
        keys: BTreeMap::new(),
        last_redundant_offset: None,
        newest_write_ms: None,
        records: 0,
        bad_records: Vec::new(),
        stops: Vec::new(),
        unreadable: None,
    };
    let mut manager = OffsetsManager::new();
    for seg in segs {
        let Some(path) = seg.path(&p.path, SegmentFileKind::Log) else {
            continue;
        };
        let bytes = match read_file(&path, mode) {
            Ok(b) => b,
            Err(e) => {
                out.unreadable = Some(FileProblem::io(&path, &e));
                break;
            }
        };
        let mut walk = RecordWalk::new(&bytes);
        while let Some(batch) = walk.next() {
            let b = &batch.info;
            if b.last_offset < log_start_offset || b.is_control {
                continue;
            }
            out.newest_write_ms = out.newest_write_ms.max(Some(b.max_timestamp));
            let keys = &mut out.keys;
            let bad = &mut out.bad_records;
            let records = &mut out.records;
            let result = batch.for_each_record(|r| {
                if r.offset < log_start_offset {
                    return Ok(());
                }
                *records += 1;
                let Some(key) = r.key else {
                    bad.push((r.offset, "record without a key".into()));
                    return Ok(());
                };
                match decode_share_state_record(key, r.value) {
                    Ok(ShareStateRecord::State { kind, key, value }) => {
                        apply(keys, &mut manager, kind, key, value.as_ref(), r.offset)
                    }
                    Ok(ShareStateRecord::UnknownKeyVersion { version }) => {
                        bad.push((r.offset, format!("unknown record type {version}")))
                    }
                    Ok(ShareStateRecord::UnknownValueVersion { version, .. }) => {
                        bad.push((r.offset, format!("unknown value version {version}")))
                    }
                    Err(e) => bad.push((r.offset, e.to_string())),
                }
                Ok(())
            });
            if let Err(e) = result {
                out.bad_records.push((b.base_offset, e.to_string()));
                walk.stop_at(b, StopReason::Decode(e));
            }
        }
        out.stops
            .extend(SegmentStop::short_of_end(&path, walk.into_stop()));
    }
    out.last_redundant_offset = manager.last_redundant();
    Some(out)
}

/// Apply one record as `ShareCoordinatorShard.replay` does (to the parts logclean keeps).
fn apply(
    keys: &mut BTreeMap<SharePartitionKey, ShareKeyState>,
    manager: &mut OffsetsManager,
    kind: ShareRecordType,
    key: SharePartitionKey,
    value: Option<&crate::formats::share_state_record::ShareStateValue>,
    offset: i64,
) {
    match (kind, value) {
        (ShareRecordType::Snapshot, None) => {
            manager.update(&key, offset, true);
            keys.remove(&key);
        }
        // Kafka writes tombstones only with the snapshot key; an update tombstone changes nothing.
        (ShareRecordType::Update, None) => {}
        (ShareRecordType::Snapshot, Some(v)) => {
            manager.update(&key, offset, false);
            let k = keys.entry(key).or_insert(ShareKeyState {
                snapshot_offset: None,
                snapshot_write_ms: None,
                snapshot_epoch: None,
                last_offset: offset,
                records: 0,
            });
            k.snapshot_offset = Some(offset);
            k.snapshot_write_ms = v.write_timestamp_ms;
            k.snapshot_epoch = Some(v.snapshot_epoch);
            k.last_offset = offset;
            k.records += 1;
        }
        (ShareRecordType::Update, Some(_)) => {
            let k = keys.entry(key).or_insert(ShareKeyState {
                snapshot_offset: None,
                snapshot_write_ms: None,
                snapshot_epoch: None,
                last_offset: offset,
                records: 0,
            });
            k.last_offset = offset;
            k.records += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::partition_metadata::Uuid;

    fn key(g: &str) -> SharePartitionKey {
        SharePartitionKey {
            group_id: g.into(),
            topic_id: Uuid([1; 16]),
            partition: 0,
        }
    }

    #[test]
    fn redundant_offset_is_the_oldest_latest_snapshot() {
        let mut m = OffsetsManager::new();
        // Kafka's own example (ShareCoordinatorOffsetsManager): key1:1, key2:2 4 6, key3:3 5 7.
        for (k, o) in [
            ("1", 1),
            ("2", 2),
            ("3", 3),
            ("2", 4),
            ("3", 5),
            ("2", 6),
            ("3", 7),
        ] {
            m.update(&key(k), o, false);
        }
        assert_eq!(m.last_redundant(), Some(1));
        m.update(&key("1"), 8, false);
        assert_eq!(m.last_redundant(), Some(6));
        // A tombstone of the oldest key: counted at its offset, then forgotten.
        m.update(&key("2"), 9, true);
        assert_eq!(m.last_redundant(), Some(7));
        m.update(&key("3"), 10, false);
        assert_eq!(m.last_redundant(), Some(8));
    }

    #[test]
    fn offset_zero_prunes_nothing() {
        let mut m = OffsetsManager::new();
        m.update(&key("a"), 0, false);
        m.update(&key("b"), 5, false);
        assert_eq!(m.last_redundant(), None);
    }
}
