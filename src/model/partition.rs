//! A partition replica's dir: its segments, producer snapshots, leader epochs, topic id, and the
//! per-partition entries of the log dir's root checkpoints.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::formats::checkpoint::CheckpointFile;
use crate::formats::leader_epoch::{parse_leader_epoch_checkpoint, EpochEntry};
use crate::formats::partition_metadata::{parse_partition_metadata, PartitionMetadata};
use crate::formats::producer_snapshot::{parse_producer_snapshot_unverified, ProducerSnapshot};

use super::listing::{FileInfo, PartitionEntry, PartitionListing, SegmentFiles};
use super::names::PartitionDirName;
use super::problem::{FileProblem, Parsed, Unreadable};
use super::segment::{load_segment, LoadOptions, ScanDepth, Segment};
use super::units::{Bytes, Offset};

/// Cap for the small text files of a partition dir.
const SMALL_FILE_CAP: u64 = 16 * 1024 * 1024;

/// This partition's entries in the root checkpoint files (`None`: no entry).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PartitionCheckpoints {
    /// `recovery-point-offset-checkpoint`
    pub recovery_point: Option<Offset>,
    /// `log-start-offset-checkpoint`
    pub log_start_offset: Option<Offset>,
    /// `replication-offset-checkpoint` (high watermark)
    pub high_watermark: Option<Offset>,
    /// `cleaner-offset-checkpoint` (first dirty offset)
    pub cleaner_offset: Option<Offset>,
}

/// A producer-state snapshot.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SnapshotFile {
    /// Offset in its name.
    pub offset: i64,
    /// The file.
    pub file: FileInfo,
    /// Its contents (CRC checked by the caller through `crc_ok`).
    pub parsed: Parsed<ProducerSnapshot>,
}

/// One partition dir, loaded.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Partition {
    /// The dir.
    #[serde(with = "crate::model::names::path_serde")]
    pub path: PathBuf,
    /// The dir's file name.
    pub dir_name: String,
    /// Parsed name; `None` where the broker could not parse it (its startup would fail).
    pub name: Option<PartitionDirName>,
    /// Everything else found by name (leftovers, unknown files, read problems); its segment
    /// and snapshot maps are moved into `segments` and `snapshots`.
    pub listing: PartitionListing,
    /// Segments found on disk (`segments` may hold fewer when one segment was selected).
    pub segment_count: usize,
    /// Segments, ascending by base offset: each has a `.log` (what the broker loads).
    pub segments: Vec<Segment>,
    /// Index files without a `.log` (`.index`, `.timeindex`, `.txnindex`), by base offset,
    /// read as a segment's indexes are. They are no segment: the broker's load deletes each
    /// of them (`LogLoader.loadSegmentFiles`, "Found an orphaned index file"), so they are
    /// never counted as segments, and are reported as orphans.
    pub orphan_indexes: Vec<Segment>,
    /// Producer-state snapshots, ascending. At depth `Tail` only those the broker's load
    /// reads (`ProducerStateManager.loadFromSnapshot`): the newest at or below the log end,
    /// then each older one while the newer fail to parse or their CRC; at the other depths
    /// every snapshot file.
    pub snapshots: Vec<SnapshotFile>,
    /// `partition.metadata`.
    pub metadata: Option<Parsed<PartitionMetadata>>,
    /// `leader-epoch-checkpoint`.
    pub leader_epochs: Option<Parsed<CheckpointFile<EpochEntry>>>,
    /// Root checkpoint entries for this partition.
    pub checkpoints: PartitionCheckpoints,
    /// How much of each segment was read ([`LoadOptions::depth_for`] this partition).
    pub depth: ScanDepth,
}

impl Partition {
    /// Every input of the partition dir that could not be read: entries it lists, its
    /// `partition.metadata` and `leader-epoch-checkpoint`, segment files and producer snapshots.
    pub fn unreadable(&self) -> Vec<Unreadable<'_>> {
        let entries = self.listing.io_problems.iter().map(|io| Unreadable {
            what: "entry",
            path: &io.path,
            message: &io.message,
        });
        let files = [
            Unreadable::of("partition.metadata", self.metadata.as_ref()),
            Unreadable::of("leader-epoch-checkpoint", self.leader_epochs.as_ref()),
        ];
        let segments = self.segments.iter().flat_map(|s| {
            [
                Unreadable::of("segment", s.log.as_ref()),
                Unreadable::of("offset index", s.index.as_ref()),
                Unreadable::of("time index", s.time_index.as_ref()),
                Unreadable::of("transaction index", s.txn_index.as_deref()),
            ]
        });
        let snapshots =
            (self.snapshots.iter()).map(|s| Unreadable::of("producer snapshot", Some(&s.parsed)));
        entries
            .chain(files.into_iter().chain(segments).chain(snapshots).flatten())
            .collect()
    }

    /// Segments with a `.log`: what the broker loads (index files without one are orphans it
    /// deletes first, `LogLoader.loadSegmentFiles`, kept apart in `orphan_indexes`).
    pub fn log_segments(&self) -> impl Iterator<Item = &Segment> + '_ {
        self.segments.iter().filter(|s| s.files.log.is_some())
    }

    /// Whether every segment of the dir was loaded (a single-segment target loads one).
    pub fn complete(&self) -> bool {
        self.segments.len() == self.segment_count
    }

    /// The log start offset the broker would load: the checkpoint value raised to the first
    /// segment's base offset (spec formats §2.2; `LogLoader`). `None` when not all segments
    /// were loaded.
    pub fn log_start_offset(&self) -> Option<Offset> {
        let first = self.log_segments().next()?.base_offset;
        self.complete().then(|| {
            self.checkpoints
                .log_start_offset
                .map_or(first, |c| c.max(first))
        })
    }

    /// The log start offset a log loads when `remote_log_enabled` (`UnifiedLog.remoteLogEnabled`:
    /// tiered topic on a broker with the system on): `LogLoader` keeps the checkpoint value as is
    /// (`isRemoteLogEnabled ? logStartOffsetCheckpoint : max(checkpoint, first base)`; 0 without
    /// an entry, `LogManager.loadLog`), the *total* log start, which normally lies below the first
    /// local segment (its records are in remote storage). The local log start is
    /// [`Self::log_start_offset`]. Otherwise the same as [`Self::log_start_offset`]. `None` when
    /// not all segments were loaded.
    pub fn total_log_start_offset(&self, remote_log_enabled: bool) -> Option<Offset> {
        if !remote_log_enabled {
            return self.log_start_offset();
        }
        self.log_segments().next()?;
        self.complete()
            .then(|| self.checkpoints.log_start_offset.unwrap_or(Offset(0)))
    }

    /// The log end offset: the active segment's next offset (`None` when not all segments were
    /// loaded).
    pub fn log_end_offset(&self) -> Option<Offset> {
        let last = self.segments.iter().rfind(|s| s.files.log.is_some())?;
        self.complete().then(|| {
            last.log_summary()
                .map_or(last.base_offset, |l| l.next_offset)
        })
    }

    /// Total bytes of `.log` files.
    pub fn size(&self) -> Bytes {
        self.segments.iter().map(Segment::size).sum()
    }
}

/// Partitions one parallel task takes at most. Rayon splits a parallel iterator into a few
/// pieces per thread and splits a piece again only when another thread steals it, so a piece
/// begun last runs alone to its end: 5-9 % of the load's wall time ran on one core of two on a
/// dir of 10,000 partitions. Pieces this small end together (a task costs microseconds, a
/// partition tens to hundreds).
pub const PARTITIONS_PER_TASK: usize = 16;

/// Load a listed partition dir, taking its listing over (segment and snapshot file lists move
/// into the loaded segments instead of being kept twice), at the depth `opts` gives its topic.
/// `only_segment` restricts segments to one base offset. `loaded` sees each file the load
/// opened (with what its open measured) before the load drops it: a segment's files as they
/// move into the segment, the snapshots and the partition's own files at the end.
pub fn load_partition(
    entry: PartitionEntry,
    checkpoints: PartitionCheckpoints,
    only_segment: Option<i64>,
    opts: &LoadOptions,
    loaded: &mut dyn FnMut(&FileInfo),
) -> Partition {
    let PartitionEntry { name, mut listing } = entry;
    let opts = &opts.for_partition(name.as_ref());
    let segment_files = std::mem::take(&mut listing.segments);
    // Index files without a `.log` are no segment (the broker deletes them on load): they
    // are neither counted nor active.
    let segment_count = segment_files.values().filter(|f| f.log.is_some()).count();
    let active_base = segment_files
        .values()
        .filter(|f| f.log.is_some())
        .map(|f| f.base_offset)
        .next_back();
    // Sized once: a vector grown by doubling keeps up to half its slots unused.
    let mut segments = Vec::with_capacity(if only_segment.is_some() {
        1
    } else {
        segment_count
    });
    let mut orphan_indexes = Vec::new();
    // One pass over the map, which frees its nodes as it goes.
    for mut files in segment_files.into_values() {
        if only_segment.is_some_and(|b| b != files.base_offset) {
            continue;
        }
        if files.log.is_some() {
            let active = Some(files.base_offset) == active_base;
            segments.push(load_segment(&mut files, active, opts));
        } else {
            orphan_indexes.push(load_segment(&mut files, false, opts));
        }
        let SegmentFiles {
            log,
            index,
            time_index,
            txn_index,
            ..
        } = &files;
        // (In name order, as their usage rows wait: `.index`, `.log`, `.timeindex`, `.txnindex`.)
        [index, log, time_index, txn_index]
            .into_iter()
            .flatten()
            .for_each(&mut *loaded);
    }
    let snapshot_files = std::mem::take(&mut listing.snapshots);
    let metadata = listing
        .partition_metadata
        .as_mut()
        .map(|f| parse_small(f, parse_partition_metadata));
    let leader_epochs = listing
        .leader_epoch_checkpoint
        .as_mut()
        .map(|f| parse_small(f, parse_leader_epoch_checkpoint));
    let mut partition = Partition {
        path: listing.path.clone(),
        dir_name: listing
            .path
            .file_name()
            .map(super::names::name_text)
            .unwrap_or_default(),
        name,
        listing,
        segment_count,
        segments,
        orphan_indexes,
        snapshots: Vec::new(),
        metadata,
        leader_epochs,
        checkpoints,
        depth: opts.depth,
    };
    let log_end = partition.log_end_offset();
    partition.snapshots = load_snapshots(snapshot_files, opts.depth, log_end);
    partition.snapshots.iter().for_each(|s| loaded(&s.file));
    let own = &partition.listing;
    [&own.partition_metadata, &own.leader_epoch_checkpoint]
        .into_iter()
        .flatten()
        .for_each(loaded);
    partition
}

/// The producer snapshots of a partition, ascending, as [`Partition::snapshots`] says: at depth
/// `Tail` (with the log end known) only those the broker's load reads, which is all the
/// producer-state replay uses: one read per partition instead of one per segment, and no model
/// of the others.
fn load_snapshots(
    files: BTreeMap<i64, FileInfo>,
    depth: ScanDepth,
    log_end: Option<Offset>,
) -> Vec<SnapshotFile> {
    let read = |file: &mut FileInfo| parse_small(file, parse_producer_snapshot_unverified);
    let Some(end) = log_end.filter(|_| depth == ScanDepth::Tail) else {
        return (files.into_iter())
            .map(|(offset, mut file)| SnapshotFile {
                parsed: read(&mut file),
                offset,
                file,
            })
            .collect();
    };
    let mut out = Vec::new();
    for (offset, mut file) in files.into_iter().rev().filter(|(o, _)| *o <= end.get()) {
        let parsed = read(&mut file);
        let usable = parsed.as_ref().is_ok_and(ProducerSnapshot::crc_ok);
        out.push(SnapshotFile {
            offset,
            file,
            parsed,
        });
        if usable {
            break;
        }
    }
    out.reverse();
    out
}

/// Read a small file and parse it (measuring it if the listing did not).
pub(crate) fn parse_small<T>(
    file: &mut FileInfo,
    parse: impl FnOnce(&[u8]) -> crate::formats::FormatResult<T>,
) -> Parsed<T> {
    let bytes = file
        .read_small(SMALL_FILE_CAP)
        .map_err(|e| FileProblem::io(&file.path, &e))?;
    parse(&bytes).map_err(|e| FileProblem::format(&file.path, e))
}
