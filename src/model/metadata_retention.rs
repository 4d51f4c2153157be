//! The KRaft metadata log (`__cluster_metadata-0`) beside its snapshots: each snapshot's end
//! offset, size and the timestamp its header carries, each segment with the bound the log-start
//! pass compares, and how much of the log came after the newest snapshot. Facts only; what the
//! metadata log cleaner deletes and whether snapshots stopped are in
//! [`crate::rules::metadata_retention`].

use std::path::PathBuf;

use crate::formats::control::{parse_snapshot_header, ControlKind};
use crate::formats::record_walk::RecordWalk;

use super::file_bytes::{read_file, PositionedFile, ReadMode};
use super::log_dir::LogDir;
use super::metadata_log::parse_snapshot_name;
use super::names::{SegmentFileKind, METADATA_TOPIC};
use super::partition::Partition;
use super::share_state::StateSegment;

/// One `<end offset>-<epoch>.checkpoint` file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MetadataSnapshotFile {
    /// The file name.
    pub name: String,
    /// The end offset in its name: the snapshot holds the state up to this offset (exclusive).
    pub end_offset: i64,
    /// The epoch in its name.
    pub epoch: i32,
    /// File size.
    pub size: u64,
    /// Its `SnapshotHeaderRecord.LastContainedLogTimestamp` (epoch ms); `None` when the header
    /// could not be read (then [`Self::problem`] says why).
    pub last_contained_log_ms: Option<i64>,
    /// Why the header could not be read.
    pub problem: Option<String>,
}

/// One metadata log and its snapshots.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct MetadataLogFacts {
    /// The log dir holding it.
    #[serde(with = "crate::model::names::path_serde")]
    pub log_dir: PathBuf,
    /// The `__cluster_metadata-0` dir.
    #[serde(with = "crate::model::names::path_serde")]
    pub path: PathBuf,
    /// The first segment's base offset (the metadata log keeps no log-start checkpoint entry;
    /// `KafkaRaftLog` raises the start to a snapshot's end and deletes the segments below).
    pub log_start_offset: i64,
    /// The log end offset.
    pub log_end_offset: i64,
    /// Its segments, in offset order.
    pub segments: Vec<StateSegment>,
    /// Its snapshots, by (end offset, epoch).
    pub snapshots: Vec<MetadataSnapshotFile>,
    /// The largest batch timestamp in the log (epoch ms).
    pub newest_batch_ms: Option<i64>,
    /// Bytes of the batches at or after the newest snapshot's end offset (the whole log
    /// without a snapshot).
    pub bytes_after_newest_snapshot: u64,
}

impl MetadataLogFacts {
    /// The newest snapshot (largest end offset, then epoch).
    pub fn newest_snapshot(&self) -> Option<&MetadataSnapshotFile> {
        self.snapshots.last()
    }

    /// Bytes of the whole log (every `.log`).
    pub fn log_bytes(&self) -> u64 {
        self.segments.iter().map(|s| s.size).sum()
    }
}

/// The metadata log of every log dir of `dirs` that holds one (a node's log dirs hold at most
/// one; several nodes' dirs one each).
pub fn read_metadata_logs(dirs: &[LogDir], mode: ReadMode) -> Vec<MetadataLogFacts> {
    let mut out = Vec::new();
    for d in dirs {
        for p in &d.partitions {
            if p.name.as_ref().is_some_and(|n| n.topic == METADATA_TOPIC) {
                if let Some(f) = read_metadata_log(d, p, mode) {
                    out.push(f);
                }
            }
        }
    }
    out
}

/// The metadata log `p` of `d` (a `__cluster_metadata-0` dir); `None` when not all its segments
/// were loaded or it has none.
pub fn read_metadata_log(d: &LogDir, p: &Partition, mode: ReadMode) -> Option<MetadataLogFacts> {
    let segs: Vec<_> = p.log_segments().collect();
    let log_end_offset = p.log_end_offset()?.get();
    let log_start_offset = segs.first()?.base_offset.get();
    let segments: Vec<StateSegment> = (segs.iter().enumerate())
        .map(|(i, s)| StateSegment {
            base_offset: s.base_offset.get(),
            upper_bound: segs
                .get(i + 1)
                .map_or(log_end_offset, |n| n.base_offset.get()),
            size: s.size().get(),
            active: s.active,
        })
        .collect();
    let mut snapshots: Vec<MetadataSnapshotFile> = (p.listing.metadata_snapshots.iter())
        .filter_map(|f| {
            let name = f.path.file_name()?.to_str()?.to_string();
            let (end_offset, epoch) = parse_snapshot_name(&name)?;
            let (last_contained_log_ms, problem) = match header_timestamp(&f.path) {
                Ok(ts) => (Some(ts), None),
                Err(e) => (None, Some(e)),
            };
            Some(MetadataSnapshotFile {
                name,
                end_offset,
                epoch,
                size: f.len_or_zero(),
                last_contained_log_ms,
                problem,
            })
        })
        .collect();
    snapshots.sort_by_key(|s| (s.end_offset, s.epoch));
    let newest_end = snapshots.last().map_or(i64::MIN, |s| s.end_offset);
    // Batch timestamps from the segment summaries; the bytes after the newest snapshot from the
    // batches of the segments that reach past it (a shallow walk of those only).
    let newest_batch_ms = (segs.iter())
        .filter_map(|s| s.log_summary()?.max_timestamp_seen)
        .map(|t| t.get())
        .max();
    let mut bytes_after_newest_snapshot = 0;
    for (s, span) in segs.iter().zip(&segments) {
        if span.upper_bound <= newest_end {
            continue;
        }
        if s.base_offset.get() >= newest_end {
            bytes_after_newest_snapshot += span.size;
            continue;
        }
        let Some(path) = s.path(&p.path, SegmentFileKind::Log) else {
            continue;
        };
        let Ok(bytes) = read_file(&path, mode) else {
            continue;
        };
        let mut walk = RecordWalk::new(&bytes);
        for b in walk.by_ref() {
            if b.info.base_offset >= newest_end {
                bytes_after_newest_snapshot += b.info.size;
            }
        }
    }
    Some(MetadataLogFacts {
        log_dir: d.path.clone(),
        path: p.path.clone(),
        log_start_offset,
        log_end_offset,
        segments,
        snapshots,
        newest_batch_ms,
        bytes_after_newest_snapshot,
    })
}

/// Bytes read from the start of a snapshot for its header: the header batch holds one small
/// control record (`RecordsSnapshotWriter` writes it alone in the first batch).
const HEADER_READ: u64 = 4096;

/// The `LastContainedLogTimestamp` of the snapshot at `path`: its first record, a snapshot
/// header control record (only the file's first [`HEADER_READ`] bytes are read: a snapshot of
/// a large cluster is hundreds of MiB).
fn header_timestamp(path: &std::path::Path) -> Result<i64, String> {
    let bytes = PositionedFile::open(path)
        .and_then(|f| f.read_range(0, HEADER_READ))
        .map_err(|e| format!("cannot read: {e}"))?;
    let mut walk = RecordWalk::new(&bytes);
    let batch = walk
        .next()
        .ok_or_else(|| "no batch (empty or cut off)".to_string())?;
    let mut found = None;
    batch
        .for_each_record(|r| {
            if found.is_none() {
                found = Some((r.key.map(<[u8]>::to_vec), r.value.map(<[u8]>::to_vec)));
            }
            Ok(())
        })
        .map_err(|e| e.to_string())?;
    let (key, value) = found.ok_or_else(|| "the first batch holds no record".to_string())?;
    let kind = (key.as_deref())
        .and_then(|k| k.get(2..4))
        .and_then(|t| <[u8; 2]>::try_from(t).ok())
        .map(|t| ControlKind::from_type_id(i16::from_be_bytes(t)));
    if !batch.info.is_control || kind != Some(ControlKind::SnapshotHeader) {
        return Err("does not start with a snapshot header".into());
    }
    let value = value.ok_or_else(|| "snapshot header without a value".to_string())?;
    parse_snapshot_header(&value)
        .map(|h| h.last_contained_log_timestamp)
        .map_err(|e| format!("snapshot header: {e}"))
}
