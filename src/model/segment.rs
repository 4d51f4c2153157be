//! One segment as it is on disk: base offset, logical size, next offset, first-batch and
//! largest timestamps, and the health of its three indexes. Facts only: what the broker's next
//! start makes of them (recovery, a rebuilt time index) is [`crate::rules::recovery`]'s.
//!
//! Cost is chosen by [`ScanDepth`]: `Tail` reads the first batch header, the index tails and the
//! batches after the last offset-index entry, as Kafka's `readNextOffset` does (O(segments));
//! `Headers` walks every batch header; `Verify` also checks CRCs, decodes records and checks
//! every index entry against the log. Spec formats §3.7–3.9, §4.

use crate::formats::offset_index::{
    IndexEntryProblem, IndexSanityProblem, OffsetIndex, OffsetIndexEntry, OffsetPosition,
};
use crate::formats::slot_index::{SlotEntry, SlotIndex, SlotLayout, WARM_SECTION_BYTES};
use crate::formats::time_index::{TimeIndexEntry, TimestampOffset};
use crate::formats::txn_index::{TxnIndex, TxnIndexProblem};
use crate::formats::verify::{verify_segment, StreamingVerify, VerifyOptions};
use crate::formats::walk::{BatchInfo, ShallowWalker, WalkEnd};
use crate::formats::{ErrorKind, FormatError, FormatResult};

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use super::file_bytes::{read_file, FileBytes, PositionedFile, ReadMode, OWNED_READ_CAP};
use super::listing::{FileInfo, IndexRead, SegmentFiles};
use super::names::{
    PartitionDirName, SegmentFileKind, CONSUMER_OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC,
};
use super::problem::{FileProblem, Parsed};
use super::units::{Bytes, FilePos, Offset, TimestampMs};

/// How much of each segment to read.
///
/// The depth contract, shared by every command: the checks are the same functions at every
/// depth and in every command (`inspect` reads at `Headers`, or `Verify` with `--verify`;
/// `diagnose` reads data partitions at `Tail` and the coordinators' topics at `Headers`, or all
/// at `Verify` with `--deep`), and a check judges only what its depth read. So the same depth
/// gives the same findings from the same files in `inspect` and `diagnose`, and a deeper depth
/// finds everything a shallower one does, plus what lies in the parts only it reads:
///
/// - batches: at `Tail` the first batch and those from the last offset-index entry to the end
///   (Kafka's `readNextOffset`); where that walk starts at or before the end of the first
///   batch (a segment whose index has no entry past it), or falls back to the start, every
///   header is read ([`LogSummary::every_batch_read`]) and the batch checks are `Headers`'
///   (`timeindex.disagrees_with_log` compares the last time-index entry with the largest
///   batch timestamp). Otherwise a batch header error, or a batch timestamp above the last
///   time-index entry, in the unread middle is found only at `Headers`; one in the batches read
///   is found at both (the time index's last entry below a timestamp read, or past the last
///   batch, is `timeindex.disagrees_with_log` at `Tail` too).
/// - offset and time indexes: at `Tail` slot 0 and the last 8 KiB (whole when that cannot tell
///   the valid prefix and zero tail), so entries out of order before the tail are found at
///   `Headers`; entries are checked against the log at `Verify` only.
/// - producer snapshots: at `Tail` only those the broker's load reads (the newest at or below
///   the log end, older ones while the newer fail); a damaged older one is found at `Headers`.
/// - CRCs and records: `Verify` only (`log.verify_failed`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
pub enum ScanDepth {
    /// First batch, index tails, batches after the last index entry (every batch when the
    /// index has no entry past the first). Of an offset or time index, slot 0 and the last
    /// 8 KiB (whole when that cannot tell its valid prefix and zero tail), so entries out of
    /// order before its tail are found at `Headers`.
    Tail,
    /// Every batch header.
    #[default]
    Headers,
    /// Every batch verified (CRC, records) and every index entry checked against the log.
    Verify,
}

/// Options for loading segments.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// How much to read of every partition not named in `topic_depths`.
    pub depth: ScanDepth,
    /// Per-topic depths that override `depth` (`diagnose` reads data partitions at `Tail` and
    /// the coordinators' compacted topics deeper). Empty: one depth for all (`inspect`).
    pub topic_depths: BTreeMap<String, ScanDepth>,
    /// Whether large files may be mapped for deep verification (see [`ReadMode`]).
    pub read_mode: ReadMode,
    /// Take the log dir's disk usage along its listing
    /// ([`super::listing::LogDirListing::usage`]; every entry stat'ed once, for the space
    /// attribution).
    pub disk_usage: bool,
}

impl LoadOptions {
    /// One depth for every partition.
    pub fn uniform(depth: ScanDepth, read_mode: ReadMode) -> Self {
        LoadOptions {
            depth,
            topic_depths: BTreeMap::new(),
            read_mode,
            disk_usage: false,
        }
    }

    /// Data partitions at `Tail` (their cleanup depends on segment boundaries, sizes and
    /// timestamps only), the coordinators' compacted topics `__consumer_offsets` and
    /// `__transaction_state` at `internal` (their records say what compaction keeps).
    pub fn tail_with_internal_topics_at(internal: ScanDepth, read_mode: ReadMode) -> Self {
        LoadOptions {
            depth: ScanDepth::Tail,
            topic_depths: [CONSUMER_OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC]
                .into_iter()
                .map(|t| (t.to_string(), internal))
                .collect(),
            read_mode,
            disk_usage: false,
        }
    }

    /// The depth for a partition dir (`None`: a dir whose name does not parse, read at the
    /// default depth).
    pub fn depth_for(&self, name: Option<&PartitionDirName>) -> ScanDepth {
        name.and_then(|n| self.topic_depths.get(&n.topic))
            .copied()
            .unwrap_or(self.depth)
    }

    /// The options for one partition: its depth, no overrides.
    pub(crate) fn for_partition(&self, name: Option<&PartitionDirName>) -> LoadOptions {
        LoadOptions::uniform(self.depth_for(name), self.read_mode)
    }
}

/// The few batch fields the model keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BatchBrief {
    /// Byte position.
    pub position: FilePos,
    /// First offset.
    pub base_offset: Offset,
    /// Last offset.
    pub last_offset: Offset,
    /// First timestamp (v2 base timestamp).
    pub first_timestamp: TimestampMs,
    /// Max timestamp (what Kafka's roll and retention rules use).
    pub max_timestamp: TimestampMs,
    /// Magic byte.
    pub magic: i8,
}

impl From<&BatchInfo> for BatchBrief {
    fn from(b: &BatchInfo) -> Self {
        BatchBrief {
            position: FilePos(b.position),
            base_offset: Offset(b.base_offset),
            last_offset: Offset(b.last_offset),
            first_timestamp: TimestampMs(b.first_timestamp),
            max_timestamp: TimestampMs(b.max_timestamp),
            magic: b.magic,
        }
    }
}

/// Counts over every batch header (depth `Headers` and up).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BatchStats {
    /// Batches (v2) or top-level messages (v0/v1).
    pub batches: u64,
    /// Records as the v2 headers count them (a legacy message counts as one).
    pub records: u64,
    /// Largest batch max timestamp.
    pub max_timestamp: Option<TimestampMs>,
    /// Transactional data batches.
    pub transactional_batches: u64,
    /// Control batches (commit/abort markers).
    pub control_batches: u64,
    /// Distinct magic values seen, ascending.
    pub magics: Vec<i8>,
    /// Distinct codecs seen (lowercase names), sorted.
    pub codecs: Vec<String>,
}

/// `(position, base offset, last offset)` of each batch read, ascending: kept only while the
/// index entries are checked, so memory stays O(batches of one segment).
type BatchPositions = Vec<(u64, i64, i64)>;

/// What the `.log` holds.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LogSummary {
    /// File length.
    pub size: Bytes,
    /// First batch, if any.
    pub first_batch: Option<BatchBrief>,
    /// Last batch, if found.
    pub last_batch: Option<BatchBrief>,
    /// Offset after the last batch (base offset for an empty segment): Kafka's `readNextOffset`.
    pub next_offset: Offset,
    /// Every-header statistics (depth `Headers` and up).
    pub stats: Option<Box<BatchStats>>,
    /// Largest batch max timestamp among the batches read (all of them at depth `Headers`; the
    /// first and those after the last offset-index entry at depth `Tail`).
    pub max_timestamp_seen: Option<TimestampMs>,
    /// Whether every batch header was read: always at depth `Headers` and up; at `Tail` when
    /// the walk from the last offset-index entry started at or before the end of the first
    /// batch (a segment whose index has no entry past it), or fell back to a walk from the
    /// start. When true, `last_batch`, `max_timestamp_seen` and `valid_end` are those of a
    /// `Headers` walk, and so are the checks that use them ([`ScanDepth`]).
    pub every_batch_read: bool,
    /// Where the last good batch ends.
    pub valid_end: FilePos,
    /// How the walk ended, if it ended without error.
    pub end: Option<WalkEnd>,
    /// The first structural error of the walk (Kafka's recovery would truncate at its offset).
    pub walk_error: Option<Box<FormatError>>,
    /// The first error of the deep verification (depth `Verify`); its offset is the bad field's.
    pub verify_error: Option<Box<FormatError>>,
    /// Where the batch holding `verify_error` starts: the position `DumpLogSegments` and the
    /// broker's recovery ("found invalid messages at position N") name, and where recovery
    /// truncates.
    pub verify_failed_batch: Option<FilePos>,
    /// Batches that passed deep verification (depth `Verify`).
    pub verified_batches: Option<u64>,
}

/// How the walk of a `.log`'s batch headers ended, as reports name it (a model fact, so that
/// `report/` does not read [`WalkEnd`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogEnd {
    /// The last batch ends at the end of the file.
    Clean,
    /// A trailing incomplete batch.
    PartialBatch,
    /// A zero-filled tail.
    ZeroFilled,
    /// A structural error stopped the walk.
    Corrupt,
}

impl LogSummary {
    /// How the walk ended: [`LogEnd::Corrupt`] when it stopped at an error.
    pub fn log_end(&self) -> LogEnd {
        if self.walk_error.is_some() {
            return LogEnd::Corrupt;
        }
        match &self.end {
            Some(WalkEnd::PartialBatch { .. }) => LogEnd::PartialBatch,
            Some(WalkEnd::ZeroFilled { .. }) => LogEnd::ZeroFilled,
            Some(WalkEnd::Clean) | None => LogEnd::Clean,
        }
    }
}

/// An offset-index entry that disagrees with the log.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum IndexLogMismatch {
    /// The entry's position is at or past the end of the valid log data.
    PositionPastLog {
        /// Slot.
        slot: usize,
        /// The entry.
        entry: OffsetPosition,
        /// Where valid log data ends.
        log_valid_end: FilePos,
    },
    /// The entry's position is not the start of a batch.
    NotABatchStart {
        /// Slot.
        slot: usize,
        /// The entry.
        entry: OffsetPosition,
    },
    /// The batch at the entry's position ends after the entry's offset, or a later batch
    /// starts at or before it: an offset lookup would land in the wrong place.
    OffsetDisagrees {
        /// Slot.
        slot: usize,
        /// The entry.
        entry: OffsetPosition,
        /// Last offset of the batch at that position.
        batch_last_offset: i64,
    },
}

/// The layout of an offset or time index file, common to both. Slot counts are `u32` (an index
/// is read whole, and 2^32 slots would be a 32 GiB file; larger counts saturate) and the rare
/// problem lists are boxed, so that a healthy index costs 32 bytes of the model.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IndexShape {
    /// File length.
    pub file_len: u64,
    /// Slots as Kafka counts them (length / entry size).
    pub slots: u32,
    /// Valid entries (strictly increasing prefix before the zero tail).
    pub valid_entries: u32,
    /// Slots in the zero-filled tail.
    pub zero_tail: u32,
    /// Non-zero slots after the valid prefix.
    pub garbage: u32,
    /// Slots a shallow scan did not read, between slot 0 and the tail it checked (taken to
    /// continue the valid prefix; see [`ScanDepth::Tail`]); 0 when every slot was read.
    pub slots_not_read: u32,
    /// The problems found, if any.
    problems: Option<Box<IndexProblems>>,
}

/// What Kafka's sanity check and the stricter entry checks found in an index.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct IndexProblems {
    sanity: Vec<IndexSanityProblem>,
    entry_problems: Vec<IndexEntryProblem>,
}

/// A count as `u32`, saturating.
fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl IndexShape {
    /// The shape of a parsed index, with its Kafka sanity check and stricter entry checks.
    fn new(
        layout: &SlotLayout<'_>,
        sanity: Vec<IndexSanityProblem>,
        entry_problems: Vec<IndexEntryProblem>,
    ) -> Self {
        let problems = (!sanity.is_empty() || !entry_problems.is_empty()).then(|| {
            Box::new(IndexProblems {
                sanity,
                entry_problems,
            })
        });
        IndexShape {
            file_len: layout.file_len(),
            slots: count(layout.slot_count()),
            valid_entries: count(layout.valid_entries()),
            zero_tail: count(layout.zero_tail().len()),
            garbage: count(layout.garbage_slots().len()),
            slots_not_read: count(layout.slots_not_read()),
            problems,
        }
    }

    /// Kafka's own `sanityCheck` result (empty: Kafka accepts the file).
    pub fn sanity(&self) -> &[IndexSanityProblem] {
        self.problems.as_ref().map_or(&[], |p| &p.sanity)
    }

    /// Stricter entry checks.
    pub fn entry_problems(&self) -> &[IndexEntryProblem] {
        self.problems.as_ref().map_or(&[], |p| &p.entry_problems)
    }
}

/// What the `.index` says.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OffsetIndexSummary {
    /// Layout and checks.
    pub shape: IndexShape,
    /// The last valid entry.
    pub last_valid: Option<OffsetPosition>,
    /// Entries that disagree with the log (the last one at depth `Tail`, all at `Verify`).
    pub log_mismatches: Vec<IndexLogMismatch>,
}

/// What the `.timeindex` says.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TimeIndexSummary {
    /// Layout and checks.
    pub shape: IndexShape,
    /// Kafka's `lastEntry` (the last slot by count; a zero-tail slot reads as timestamp 0).
    pub kafka_last_entry: TimestampOffset,
    /// The last valid entry.
    pub last_valid: Option<TimestampOffset>,
}

/// What the `.txnindex` says.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TxnIndexSummary {
    /// File length.
    pub file_len: u64,
    /// Aborted transactions recorded.
    pub entries: usize,
    /// Producers with aborted transactions here.
    pub producer_ids: Vec<i64>,
    /// Bytes of a trailing partial entry.
    pub partial_tail: u64,
    /// Kafka's `sanityCheck` result plus stricter checks.
    pub problems: Vec<TxnIndexProblem>,
}

/// A segment's largest timestamp as the broker reads it from disk when it does not recover the
/// segment (`LogSegment.largestTimestamp` after a clean start: the `.timeindex`'s last slot by
/// count if ≥ 0, else the `.log` mtime). What the broker uses after its next start is
/// [`crate::rules::recovery`]'s answer: a recovered segment rebuilds its time index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiskTimestamp {
    /// The last time-index slot by count (a zero-tail slot reads as timestamp 0).
    TimeIndex(TimestampMs),
    /// The `.log` file's mtime (no time-index slot with a timestamp ≥ 0).
    LogMtime(TimestampMs),
    /// It cannot be told from the files, and why.
    Unknown(UnknownTimestamp),
}

/// Why a segment's largest timestamp cannot be told from its files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownTimestamp {
    /// No `.log` file (orphan index files, which the broker deletes).
    NoLogFile,
    /// The `.timeindex` could not be read, and neither could the `.log` file's mtime.
    TimeIndexUnreadableAndNoMtime,
    /// No time-index slot with a timestamp ≥ 0, and the `.log` file's mtime could not be read.
    NoTimeIndexEntryAndNoMtime,
}

impl DiskTimestamp {
    /// The value, when known.
    pub fn known(self) -> Option<TimestampMs> {
        match self {
            DiskTimestamp::TimeIndex(ts) | DiskTimestamp::LogMtime(ts) => Some(ts),
            DiskTimestamp::Unknown(_) => None,
        }
    }
}

/// One file of a segment as the model keeps it: length and mtime. Its path is not stored (a
/// path per file was the largest part of a loaded segment): [`Segment::path`] derives it from
/// the partition dir, the base offset and the kind; only a name that is not the canonical
/// 20-digit one is kept.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SegmentFile {
    /// Length in bytes.
    pub size: Bytes,
    /// Modification time (Kafka's `lastModified`), if the OS gives one.
    pub mtime_ms: Option<TimestampMs>,
    /// The file name, when it is not `{base offset:020}{suffix}` (more than 20 digits).
    odd_name: Option<Box<str>>,
}

impl SegmentFile {
    fn of(info: &FileInfo, base_offset: i64, kind: SegmentFileKind) -> Self {
        let name = info
            .path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let odd_name = (!is_canonical_name(&name, base_offset, kind)).then(|| name.into());
        SegmentFile {
            size: Bytes(info.len_or_zero()),
            mtime_ms: info.mtime_ms.map(TimestampMs),
            odd_name,
        }
    }

    /// The file's name.
    pub fn name(&self, base_offset: i64, kind: SegmentFileKind) -> String {
        self.odd_name
            .as_deref()
            .map_or_else(|| canonical_name(base_offset, kind), str::to_string)
    }
}

/// `{base offset:020}{suffix}`, as the broker names segment files.
fn canonical_name(base_offset: i64, kind: SegmentFileKind) -> String {
    format!("{base_offset:020}{}", kind.suffix())
}

/// Whether `name` is [`canonical_name`], told without formatting one (a shallow scan asks this
/// of every segment file): 20 digits that parse to the base offset, then the suffix.
fn is_canonical_name(name: &str, base_offset: i64, kind: SegmentFileKind) -> bool {
    if base_offset < 0 {
        return name == canonical_name(base_offset, kind);
    }
    let (digits, suffix) = name.split_at_checked(20).unwrap_or(("", ""));
    suffix == kind.suffix()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && digits.parse::<i64>() == Ok(base_offset)
}

/// The files of one segment found by name (without paths, see [`SegmentFile`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SegmentFileSet {
    /// `.log`
    pub log: Option<SegmentFile>,
    /// `.index`
    pub index: Option<SegmentFile>,
    /// `.timeindex`
    pub time_index: Option<SegmentFile>,
    /// `.txnindex` (boxed: most segments have none).
    pub txn_index: Option<Box<SegmentFile>>,
}

impl SegmentFileSet {
    fn of(files: &SegmentFiles) -> Self {
        let base = files.base_offset;
        let one = |f: &Option<FileInfo>, kind| f.as_ref().map(|f| SegmentFile::of(f, base, kind));
        SegmentFileSet {
            log: one(&files.log, SegmentFileKind::Log),
            index: one(&files.index, SegmentFileKind::Index),
            time_index: one(&files.time_index, SegmentFileKind::TimeIndex),
            txn_index: one(&files.txn_index, SegmentFileKind::TxnIndex).map(Box::new),
        }
    }

    /// The file of `kind`, if found (`None` for [`SegmentFileKind::Snapshot`], which is the
    /// partition's).
    pub fn get(&self, kind: SegmentFileKind) -> Option<&SegmentFile> {
        match kind {
            SegmentFileKind::Log => self.log.as_ref(),
            SegmentFileKind::Index => self.index.as_ref(),
            SegmentFileKind::TimeIndex => self.time_index.as_ref(),
            SegmentFileKind::TxnIndex => self.txn_index.as_deref(),
            SegmentFileKind::Snapshot => None,
        }
    }
}

/// One segment.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Segment {
    /// Base offset, from the file names.
    pub base_offset: Offset,
    /// Its files.
    pub files: SegmentFileSet,
    /// Whether it is the partition's last (active) segment.
    pub active: bool,
    /// The `.log`, or why it could not be read. `None` when there is no `.log` file.
    pub log: Option<Parsed<LogSummary>>,
    /// The `.index`.
    pub index: Option<Parsed<OffsetIndexSummary>>,
    /// The `.timeindex`.
    pub time_index: Option<Parsed<TimeIndexSummary>>,
    /// The `.txnindex` (boxed: most segments have none).
    pub txn_index: Option<Box<Parsed<TxnIndexSummary>>>,
}

impl Segment {
    /// The `.log` summary when it was read.
    pub fn log_summary(&self) -> Option<&LogSummary> {
        self.log.as_ref().and_then(|r| r.as_ref().ok())
    }

    /// Logical size: the `.log` length.
    pub fn size(&self) -> Bytes {
        self.files.log.as_ref().map_or(Bytes(0), |f| f.size)
    }

    /// The path of its file of `kind` in `partition_dir` (the dir of the partition holding it),
    /// if that file was found.
    pub fn path(&self, partition_dir: &Path, kind: SegmentFileKind) -> Option<PathBuf> {
        self.files
            .get(kind)
            .map(|f| partition_dir.join(f.name(self.base_offset.get(), kind)))
    }

    /// The `.log` file's mtime, when it could be read.
    pub fn log_mtime(&self) -> Option<TimestampMs> {
        self.files.log.as_ref().and_then(|f| f.mtime_ms)
    }

    /// The largest timestamp as the broker reads it without recovering the segment: the last
    /// time-index slot by count if ≥ 0 (Kafka reads the last slot by count, so a zero tail
    /// yields 0 here, as it does in the broker), else the `.log` mtime.
    pub fn largest_timestamp_on_disk(&self) -> DiskTimestamp {
        if self.files.log.is_none() {
            return DiskTimestamp::Unknown(UnknownTimestamp::NoLogFile);
        }
        let from_index = match &self.time_index {
            Some(Ok(t)) if t.shape.slots > 0 => {
                Some(TimestampMs(t.kafka_last_entry.timestamp)).filter(|ts| ts.is_set())
            }
            _ => None,
        };
        match (from_index, self.log_mtime()) {
            (Some(ts), _) => DiskTimestamp::TimeIndex(ts),
            (None, Some(ms)) => DiskTimestamp::LogMtime(ms),
            (None, None) if matches!(self.time_index, Some(Err(_))) => {
                DiskTimestamp::Unknown(UnknownTimestamp::TimeIndexUnreadableAndNoMtime)
            }
            (None, None) => DiskTimestamp::Unknown(UnknownTimestamp::NoTimeIndexEntryAndNoMtime),
        }
    }

    /// The last valid time-index entry's timestamp (`None`: no entry, or no readable index).
    pub fn last_valid_time_index_timestamp(&self) -> Option<TimestampMs> {
        self.time_index
            .as_ref()
            .and_then(|r| r.as_ref().ok())
            .and_then(|t| t.last_valid)
            .map(|e| TimestampMs(e.timestamp))
    }

    /// The largest batch max timestamp among the batches read (see
    /// [`LogSummary::max_timestamp_seen`]; `None`: none read, or the `.log` unreadable).
    pub fn max_batch_timestamp_seen(&self) -> Option<TimestampMs> {
        self.log_summary().and_then(|l| l.max_timestamp_seen)
    }
}

/// Load one segment.
/// Files the listing did not measure are measured as they are opened (their sizes and mtimes
/// are the open file's).
pub fn load_segment(files: &mut SegmentFiles, active: bool, opts: &LoadOptions) -> Segment {
    let base = files.base_offset;
    let index_bytes =
        (files.index.as_mut()).map(|f| HeldIndex::read::<OffsetIndexEntry>(f, base, opts.depth));
    let index_path = files.index.as_ref().map(|f| f.path.as_path());
    let index = index_bytes
        .as_ref()
        .zip(index_path)
        .map(|(r, path)| match r {
            Ok(held) => held
                .view::<OffsetIndexEntry>(base)
                .map_err(|e| FileProblem::format(path, e)),
            Err(e) => Err(FileProblem::io(path, e)),
        });
    let index_view = index.as_ref().and_then(|r| r.as_ref().ok());

    let log = files
        .log
        .as_mut()
        .map(|f| load_log(f, base, index_view, opts));

    let index = index.map(|r| {
        r.map(|view| {
            summarize_offset_index(&view, log.as_ref().and_then(|l| l.as_ref().ok()), opts)
        })
    });
    let time_index = (files.time_index.as_mut()).map(|f| load_time_index(f, base, opts.depth));
    let txn_index = files
        .txn_index
        .as_mut()
        .map(|f| Box::new(load_txn_index(f, base)));

    Segment {
        base_offset: Offset(base),
        files: SegmentFileSet::of(files),
        active,
        log: log.map(|r| r.map(|(s, _)| s)),
        index,
        time_index,
        txn_index,
    }
}

/// Where every batch of the `.log` at `path` starts, up to where a walk of its headers stops
/// (the end of the file, a partial or zero-filled tail, or the first header error): the
/// batches `LogSegment.recover` rebuilds a segment's indexes from. Positioned reads of
/// [`LOG_CHUNK`] bytes: never the whole file in memory.
pub fn batch_positions(path: &Path) -> io::Result<Vec<u64>> {
    let file = PositionedFile::open(path)?;
    let mut walk = LogWalk::empty(0, file.len());
    walk.walk_positioned(&file, 0, false, None, LOG_CHUNK)?;
    Ok(walk.positions.into_iter().map(|(p, _, _)| p).collect())
}

type LogLoad = (LogSummary, BatchPositions);

/// What the walks of one `.log` collect.
struct LogWalk {
    summary: LogSummary,
    positions: BatchPositions,
    /// Deep verification of each chunk's batches as a positioned walk reads them (a big
    /// segment at `Verify` depth, never read whole).
    verify: Option<ChunkVerify>,
}

/// A [`StreamingVerify`] and the batches of the chunk being walked, as positioned in it.
struct ChunkVerify {
    verify: StreamingVerify,
    batches: Vec<BatchInfo>,
}

impl LogWalk {
    fn record(&mut self, b: &BatchInfo) {
        let brief = BatchBrief::from(b);
        self.summary.first_batch.get_or_insert(brief);
        self.summary.last_batch = Some(brief);
        let seen = &mut self.summary.max_timestamp_seen;
        *seen = Some(seen.map_or(brief.max_timestamp, |m| m.max(brief.max_timestamp)));
        self.positions
            .push((b.position, b.base_offset, b.last_offset));
    }

    /// Walk from `start` to the end of the file; `false` if the walk hit an error.
    fn walk(&mut self, bytes: &[u8], start: u64, mut stats: Option<&mut BatchStats>) -> bool {
        let mut walker = ShallowWalker::starting_at(bytes, start);
        let mut clean = true;
        for item in walker.by_ref() {
            match item {
                Ok(b) => {
                    self.record(&b);
                    if let Some(stats) = stats.as_deref_mut() {
                        add_to_stats(stats, &b);
                    }
                }
                Err(e) => {
                    self.summary.walk_error = Some(Box::new(e));
                    clean = false;
                }
            }
        }
        self.summary.valid_end = FilePos(walker.valid_end());
        self.summary.end = walker.end().cloned();
        clean
    }
}

/// Read size of one positioned read of a `.log`; files up to this size are read whole, once.
const LOG_CHUNK: u64 = 256 * 1024;
/// Read size for the first batch of a big `.log`: the producer's default `batch.size`.
const FIRST_BATCH_CHUNK: u64 = 16 * 1024;
/// At most this many batches are held for one check of a chunk's batches (a chunk of tiny
/// legacy entries holds hundreds of thousands).
const VERIFY_WINDOW_BATCHES: usize = 4096;
/// Read size of a deep verification's positioned reads: large enough for its batch checks to
/// run on every core ([`StreamingVerify`]), small enough to hold one per worker.
const VERIFY_CHUNK: u64 = 16 << 20;

/// What the walk of one chunk of a positioned read found.
struct ChunkWalk {
    /// Bytes from the chunk's start that whole, valid batches cover.
    done: u64,
    /// How the chunk's walk ended, relative to the chunk.
    end: Option<WalkEnd>,
    /// The error it hit, rebased to the file.
    error: Option<FormatError>,
}

impl LogWalk {
    /// Walk the `.log` behind `file` from `start` to its end with positioned reads of `chunk`
    /// bytes (at least 18; [`LOG_CHUNK`] in use: never the whole of a big file in memory), stopping after the first
    /// batch when `first_only`. The outcome is that of [`Self::walk`] over the whole file: a
    /// chunk of at least 18 bytes yields exactly the batches and header errors the whole file
    /// does up to where its walk stops; only two ends depend on bytes beyond the chunk, and
    /// both are judged again: a partial batch is re-read from its start with a chunk large
    /// enough to hold it, and a zero run is followed to the end of the file (zeros to the end:
    /// a zero-filled tail; else the size-0 header error the whole walk would report).
    /// `false` if the walk hit an error.
    fn walk_positioned(
        &mut self,
        file: &PositionedFile,
        start: u64,
        first_only: bool,
        mut stats: Option<&mut BatchStats>,
        chunk: u64,
    ) -> io::Result<bool> {
        let chunk_len = chunk.max(18);
        if start > file.len() {
            return Ok(self.start_past_end(start, file.len()));
        }
        let mut at = start;
        let mut want = chunk_len;
        let mut buf = Vec::new();
        loop {
            let read = file.read_range_into(at, want, &mut buf)?;
            let chunk = buf.get(..read).unwrap_or_default();
            // A short read before the end means the file shrank: what was read is what there is.
            let to_end =
                (chunk.len() as u64) < want || at.saturating_add(chunk.len() as u64) >= file.len();
            let Some(ChunkWalk { done, end, error }) =
                self.walk_chunk(chunk, at, first_only, &mut stats)
            else {
                return Ok(true);
            };
            let stop = at.saturating_add(done);
            if error.is_some() || to_end {
                return Ok(self.end_walk(stop, end.map(|e| rebase_end(e, at)), error));
            }
            match end {
                Some(WalkEnd::PartialBatch { declared_size, .. }) => {
                    // Re-read from the batch's start, large enough to hold it (or to the end).
                    want = if done == 0 && want >= declared_size {
                        want.saturating_mul(2)
                    } else {
                        declared_size.max(chunk_len)
                    };
                    at = stop;
                }
                Some(WalkEnd::ZeroFilled { .. }) if done > 0 => {
                    at = stop;
                    want = chunk_len;
                }
                Some(WalkEnd::ZeroFilled { .. }) => {
                    // A whole chunk of zeros at `at` (so `stop` is `at`).
                    let after = at.saturating_add(chunk.len() as u64);
                    return self.end_at_zero_chunk(file, at, after, chunk_len);
                }
                // The chunk ended on a batch boundary: go on from there.
                Some(WalkEnd::Clean) | None => {
                    at = stop;
                    want = chunk_len;
                }
            }
        }
    }

    /// What the walk over the whole file says for a start past its end (`len`): an error.
    fn start_past_end(&mut self, start: u64, len: u64) -> bool {
        self.summary.walk_error = Some(Box::new(FormatError::new(
            ErrorKind::LengthOutOfRange {
                field: "position",
                value: i64::try_from(start).unwrap_or(i64::MAX),
                min: 0,
                max: i64::try_from(len).unwrap_or(i64::MAX),
            },
            start,
        )));
        self.summary.valid_end = FilePos(start);
        self.summary.end = None;
        false
    }

    /// Record the batches of `chunk`, read at file position `at`; `None` once `first_only` has
    /// its batch (the walk is over).
    fn walk_chunk(
        &mut self,
        chunk: &[u8],
        at: u64,
        first_only: bool,
        stats: &mut Option<&mut BatchStats>,
    ) -> Option<ChunkWalk> {
        let mut walker = ShallowWalker::new(chunk);
        let mut error = None;
        if let Some(v) = self.verify.as_mut() {
            v.batches.clear();
        }
        for item in walker.by_ref() {
            match item {
                Ok(mut b) => {
                    if let Some(v) = self.verify.as_mut() {
                        v.batches.push(b.clone());
                        // Small batches: check them a window at a time, not a chunk's worth.
                        if v.batches.len() >= VERIFY_WINDOW_BATCHES {
                            v.verify.feed(chunk, at, &v.batches);
                            v.batches.clear();
                        }
                    }
                    b.position = b.position.saturating_add(at);
                    self.record(&b);
                    if let Some(stats) = stats.as_deref_mut() {
                        add_to_stats(stats, &b);
                    }
                    if first_only {
                        self.summary.valid_end = FilePos(b.end());
                        return None;
                    }
                }
                Err(e) => error = Some(e.at_base(at)),
            }
        }
        if let Some(v) = self.verify.as_mut() {
            v.verify.feed(chunk, at, &v.batches);
        }
        Some(ChunkWalk {
            done: walker.valid_end(),
            end: walker.end().cloned(),
            error,
        })
    }

    /// End the walk at file position `stop`, the way `end` and `error` say; `false` if the
    /// walk hit an error.
    fn end_walk(&mut self, stop: u64, end: Option<WalkEnd>, error: Option<FormatError>) -> bool {
        self.summary.valid_end = FilePos(stop);
        self.summary.end = end;
        let clean = error.is_none();
        self.summary.walk_error = error.map(Box::new);
        clean
    }

    /// End the walk at `at`, where a whole chunk of zeros was read (up to `after`): a
    /// zero-filled tail if the zeros run to the end of the file, else the size-0 header error
    /// the walk over the whole file would report.
    fn end_at_zero_chunk(
        &mut self,
        file: &PositionedFile,
        at: u64,
        after: u64,
        chunk_len: u64,
    ) -> io::Result<bool> {
        if zeros_to_end(file, after, chunk_len)? {
            let len = file.len().saturating_sub(at);
            let end = WalkEnd::ZeroFilled { position: at, len };
            return Ok(self.end_walk(at, Some(end), None));
        }
        let error = ShallowWalker::new(&ZERO_SIZE_THEN_DATA)
            .find_map(Result::err)
            .map(|e| e.at_base(at));
        Ok(self.end_walk(at, None, error))
    }

    /// The first batch of the whole file `bytes`: recorded as `first_batch` alone (the walk
    /// from the last index entry records the rest). `false` if it is an error.
    fn first(&mut self, bytes: &[u8]) -> bool {
        match ShallowWalker::new(bytes).next() {
            Some(Ok(first)) => {
                self.summary.first_batch = Some(BatchBrief::from(&first));
                self.summary.valid_end = FilePos(first.end());
                true
            }
            Some(Err(e)) => {
                self.summary.walk_error = Some(Box::new(e));
                false
            }
            None => self.walk(bytes, 0, None),
        }
    }
}

/// A header whose size field is 0, followed by a non-zero byte: what the walk meets at a run of
/// zeros that does not last to the end of the file. Walking it yields the walk's own error for
/// that case (rebased to where the zeros start).
const ZERO_SIZE_THEN_DATA: [u8; 19] = {
    let mut b = [0u8; 19];
    b[18] = 1;
    b
};

/// Whether every byte of `file` from `from` to its end is zero. Holes are skipped unread
/// (`SEEK_DATA`): a sparse tail of any size costs a few syscalls, not a read of its zeros; only
/// data extents are read, in chunks.
fn zeros_to_end(file: &PositionedFile, from: u64, chunk: u64) -> io::Result<bool> {
    let mut at = from;
    while at < file.len() {
        at = file.next_data(at);
        if at >= file.len() {
            break;
        }
        let chunk = file.read_range(at, chunk)?;
        if chunk.is_empty() {
            break;
        }
        if chunk.iter().any(|&b| b != 0) {
            return Ok(false);
        }
        at = at.saturating_add(chunk.len() as u64);
    }
    Ok(true)
}

/// A walk end found in a chunk read from `base`, as a position in the file.
fn rebase_end(end: WalkEnd, base: u64) -> WalkEnd {
    match end {
        WalkEnd::Clean => WalkEnd::Clean,
        WalkEnd::PartialBatch {
            position,
            declared_size,
            available,
        } => WalkEnd::PartialBatch {
            position: position.saturating_add(base),
            declared_size,
            available,
        },
        WalkEnd::ZeroFilled { position, len } => WalkEnd::ZeroFilled {
            position: position.saturating_add(base),
            len,
        },
    }
}

/// Where the `.log` bytes come from.
enum LogSource {
    /// The whole file in memory (small files, and deep verification).
    Whole(FileBytes),
    /// Positioned reads of the ranges needed.
    Positioned(PositionedFile),
}

fn load_log(
    file: &mut FileInfo,
    base: i64,
    index: Option<&OffsetIndex<'_>>,
    opts: &LoadOptions,
) -> Parsed<LogLoad> {
    let (source, verify_as_read) = open_log_source(file, opts)?;
    let path = file.path.as_path();
    let mut walk = LogWalk::empty(base, source.len());
    if verify_as_read {
        walk.verify = Some(ChunkVerify {
            verify: StreamingVerify::new(verify_options(base), source.len()),
            batches: Vec::new(),
        });
    }
    match opts.depth {
        ScanDepth::Tail => walk_tail(&mut walk, &source, index, path)?,
        ScanDepth::Headers | ScanDepth::Verify => {
            let mut stats = BatchStats::default();
            source.walk(&mut walk, 0, false, Some(&mut stats), path)?;
            walk.summary.stats = Some(Box::new(stats));
        }
    }
    let streamed = walk.verify.take().map(|v| {
        v.verify
            .finish(walk.summary.walk_error.as_deref().cloned(), None)
    });
    let mut summary = walk.summary;
    if let Some(last) = summary.last_batch {
        summary.next_offset = last.last_offset.next();
    }
    match (opts.depth, &source, streamed) {
        (_, _, Some(v)) => record_verification(&mut summary, v),
        (ScanDepth::Verify, LogSource::Whole(bytes), None) => {
            record_verification(&mut summary, verify_segment(bytes, &verify_options(base)));
        }
        _ => {}
    }
    if let LogSource::Whole(FileBytes::Owned(buf)) = source {
        if buf.capacity() as u64 <= LOG_CHUNK {
            SMALL_LOG_BUFFER.with(|b| b.replace(buf));
        }
    }
    Ok((summary, walk.positions))
}

thread_local! {
    /// The bytes of the last small `.log` read whole on this thread (at most [`LOG_CHUNK`]),
    /// reused by the next.
    static SMALL_LOG_BUFFER: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The `.log`'s bytes for a load at `opts.depth`, and whether the walk verifies them as it
/// reads (`true` only at `Verify` depth): a file up to [`LOG_CHUNK`] is read whole, a bigger
/// one by positioned reads, at `Verify` depth in chunks of [`VERIFY_CHUNK`] checked as they
/// come (memory per file bounded by the chunk, not the segment). With `--mmap` deep
/// verification maps the file whole instead.
fn open_log_source(file: &mut FileInfo, opts: &LoadOptions) -> Parsed<(LogSource, bool)> {
    let deep = opts.depth == ScanDepth::Verify;
    if deep {
        file.measure();
    }
    if deep && opts.read_mode == ReadMode::Mmap {
        let bytes = read_file(&file.path, opts.read_mode);
        return Ok((
            LogSource::Whole(bytes.map_err(|e| FileProblem::io(&file.path, &e))?),
            false,
        ));
    }
    // Past Kafka's largest segment (`log.too_large`), a file is walked as at `Headers` depth
    // (not verified), so its walk stops where its batches really stop.
    let too_large = file.size.is_some_and(|n| n > OWNED_READ_CAP);
    let opened = file.open();
    let io = |e: io::Error| FileProblem::io(&file.path, &e);
    let f = opened.map_err(io)?;
    Ok(if f.len() <= LOG_CHUNK {
        // Into this thread's buffer of the previous small `.log`: no allocation, zeroing or
        // fresh pages per segment.
        let mut buf = SMALL_LOG_BUFFER.with(|b| b.take());
        let n = f.read_range_into(0, f.len(), &mut buf).map_err(io)?;
        buf.truncate(n);
        (LogSource::Whole(FileBytes::Owned(buf)), false)
    } else {
        (LogSource::Positioned(f), deep && !too_large)
    })
}

impl LogSource {
    fn len(&self) -> u64 {
        match self {
            LogSource::Whole(bytes) => bytes.len() as u64,
            LogSource::Positioned(f) => f.len(),
        }
    }

    /// One walk of the `.log` at `path` from `start` (to the end, or only the first batch).
    fn walk(
        &self,
        walk: &mut LogWalk,
        start: u64,
        first_only: bool,
        stats: Option<&mut BatchStats>,
        path: &Path,
    ) -> Parsed<bool> {
        match self {
            LogSource::Whole(bytes) if first_only => Ok(walk.first(bytes)),
            LogSource::Whole(bytes) => Ok(walk.walk(bytes, start, stats)),
            // The first batch alone: one default `batch.size` (a bigger batch is re-read
            // whole), not a chunk of the data after it.
            LogSource::Positioned(f) => {
                let chunk = if first_only {
                    FIRST_BATCH_CHUNK
                } else if walk.verify.is_some() {
                    VERIFY_CHUNK
                } else {
                    LOG_CHUNK
                };
                walk.walk_positioned(f, start, first_only, stats, chunk)
            }
            .map_err(|e| FileProblem::io(path, &e)),
        }
    }
}

impl LogWalk {
    /// Nothing walked yet of a `.log` of `size` bytes based at `base`.
    fn empty(base: i64, size: u64) -> Self {
        LogWalk {
            summary: LogSummary {
                size: Bytes(size),
                first_batch: None,
                last_batch: None,
                next_offset: Offset(base),
                stats: None,
                max_timestamp_seen: None,
                every_batch_read: true,
                valid_end: FilePos(0),
                end: None,
                walk_error: None,
                verify_error: None,
                verify_failed_batch: None,
                verified_batches: None,
            },
            positions: Vec::new(),
            verify: None,
        }
    }
}

/// The first batch, then from the last valid index entry to the end, as Kafka's
/// readNextOffset does; from the start when the entry does not lead to a clean walk over at
/// least one batch.
fn walk_tail(
    walk: &mut LogWalk,
    source: &LogSource,
    index: Option<&OffsetIndex<'_>>,
    path: &Path,
) -> Parsed<()> {
    let start = index
        .map(|i| i.last_valid_entry().position)
        .and_then(|p| u64::try_from(p).ok())
        .unwrap_or(0);
    let first_ok = source.walk(walk, 0, true, None, path)?;
    if first_ok && walk.summary.first_batch.is_some() {
        // Only the first batch is kept from the first walk (as `first` does).
        let first_end = walk.summary.valid_end.get();
        walk.positions.clear();
        walk.summary.last_batch = None;
        walk.summary.max_timestamp_seen = None;
        walk.summary.every_batch_read = start <= first_end;
        // A walk from the entry that reads no batch (it points at a cut or zeroed
        // batch) cannot tell the last batch: the walk from the start does.
        let clean = source.walk(walk, start, false, None, path)?;
        if (!clean || walk.summary.last_batch.is_none()) && start != 0 {
            walk.positions.clear();
            walk.summary.walk_error = None;
            walk.summary.every_batch_read = true;
            source.walk(walk, 0, false, None, path)?;
        }
    }
    // The first batch counts for the largest timestamp seen even when not re-walked.
    if let Some(first) = walk.summary.first_batch {
        let seen = &mut walk.summary.max_timestamp_seen;
        *seen = Some(seen.map_or(first.max_timestamp, |m| m.max(first.max_timestamp)));
    }
    Ok(())
}

/// Add deep verification of the whole `.log` `bytes` to `summary`.
/// What deep verification checks in a segment based at `base`.
fn verify_options(base: i64) -> VerifyOptions {
    VerifyOptions {
        segment_base_offset: Some(base),
        ..VerifyOptions::default()
    }
}

/// A segment's verification outcome, into its summary.
fn record_verification(summary: &mut LogSummary, v: crate::formats::verify::SegmentVerification) {
    // Batches are contiguous: the first failing one starts where the last good one ends.
    summary.verify_failed_batch = v.error.is_some().then_some(FilePos(v.valid_end));
    summary.verify_error = v.error.map(Box::new);
    summary.verified_batches = Some(v.valid_batches);
}

fn add_to_stats(stats: &mut BatchStats, b: &BatchInfo) {
    stats.batches += 1;
    stats.records += b.records_count.map_or(1, |c| u64::try_from(c).unwrap_or(0));
    let ts = TimestampMs(b.max_timestamp);
    stats.max_timestamp = Some(stats.max_timestamp.map_or(ts, |m| m.max(ts)));
    if b.is_control {
        stats.control_batches += 1;
    } else if b.is_transactional {
        stats.transactional_batches += 1;
    }
    if !stats.magics.contains(&b.magic) {
        stats.magics.push(b.magic);
        stats.magics.sort_unstable();
    }
    let codec = b.compression.to_string();
    if !stats.codecs.contains(&codec) {
        stats.codecs.push(codec);
        stats.codecs.sort();
    }
}

fn summarize_offset_index(
    view: &OffsetIndex<'_>,
    log: Option<&LogLoad>,
    opts: &LoadOptions,
) -> OffsetIndexSummary {
    let valid = view.valid_entries();
    let mut summary = OffsetIndexSummary {
        shape: IndexShape::new(view, view.sanity_check(), view.entry_problems()),
        last_valid: (valid > 0).then(|| view.last_valid_entry()),
        log_mismatches: Vec::new(),
    };
    if let Some((log, positions)) = log {
        let slots: Vec<usize> = if opts.depth == ScanDepth::Verify {
            (0..valid).collect()
        } else {
            valid.checked_sub(1).into_iter().collect()
        };
        for slot in slots {
            let Some(raw) = view.entry(slot) else {
                continue;
            };
            let entry = view.absolute(raw);
            if let Some(m) = check_index_entry(slot, entry, log, positions) {
                summary.log_mismatches.push(m);
            }
        }
    }
    summary
}

/// An offset-index entry `(offset, position)` is used by lookups for targets ≥ `offset`: they
/// scan the log from `position`. It is wrong when a batch before `position` still holds an
/// offset ≥ `offset` (that batch would be skipped), when no batch starts at `position`, or when
/// the offset lies past the segment's last offset.
fn check_index_entry(
    slot: usize,
    entry: OffsetPosition,
    log: &LogSummary,
    positions: &[(u64, i64, i64)],
) -> Option<IndexLogMismatch> {
    let position = u64::try_from(entry.position).ok()?;
    let (size, valid_end) = (log.size.get(), log.valid_end.get());
    if position >= size || (log.walk_error.is_none() && position >= valid_end) {
        return Some(IndexLogMismatch::PositionPastLog {
            slot,
            entry,
            log_valid_end: log.valid_end,
        });
    }
    if log.walk_error.is_some() && position >= valid_end {
        return None; // beyond a corrupt batch nothing can be judged; that batch is the finding
    }
    let walked_from = positions.first().map_or(u64::MAX, |p| p.0);
    let i = match positions.binary_search_by_key(&position, |p| p.0) {
        Ok(i) => i,
        // Only positions inside the walked range can be judged.
        Err(_) if position >= walked_from => {
            return Some(IndexLogMismatch::NotABatchStart { slot, entry })
        }
        Err(_) => return None,
    };
    let (_, _, batch_last) = *positions.get(i)?;
    let previous_last = i.checked_sub(1).and_then(|j| positions.get(j)).map(|p| p.2);
    let segment_last = log.last_batch.map(|b| b.last_offset.get());
    let skips_data = previous_last.is_some_and(|prev| entry.offset <= prev);
    let past_end = segment_last.is_some_and(|last| entry.offset > last);
    (skips_data || past_end).then_some(IndexLogMismatch::OffsetDisagrees {
        slot,
        entry,
        batch_last_offset: batch_last,
    })
}

/// 12.8 times the default `segment.index.bytes`: 16M offset-index entries.
const INDEX_READ_CAP: u64 = 128 << 20;

/// How much of an offset or time index's data a shallow scan reads after slot 0: as much as
/// Kafka's lookups search first (`AbstractIndex.warmEntries`), 1,024 offset or 682 time
/// entries. A rolled 1 GiB segment's indexes hold about 2 MiB and 3 MiB.
const INDEX_TAIL_WINDOW: u64 = WARM_SECTION_BYTES as u64;

/// A whole file (a `.txnindex`), with one positioned read. A file over [`INDEX_READ_CAP`] (a
/// hostile or damaged one: a sparse 2 GiB index) is refused by its length, before a byte is
/// read, as too large (`file_bytes::TooLarge`), so memory stays bounded whatever the dir holds.
fn read_whole(file: &mut FileInfo) -> io::Result<Vec<u8>> {
    file.read_small(INDEX_READ_CAP)
}

/// An offset or time index file's bytes as read for a depth, each read refused over
/// [`INDEX_READ_CAP`] as [`read_whole`] refuses it, and never its preallocated zeros (a hole
/// after its entries, as `setLength` leaves an active index: [`FileInfo::read_index`]).
///
/// At `Headers` and `Verify` every slot is read: Kafka's sanity check and the valid-prefix,
/// zero-tail and garbage checks then cover the whole file. At `Tail` only slot 0 and the last
/// [`INDEX_TAIL_WINDOW`] bytes are, when those tell the summaries
/// ([`SlotIndex::parse_tail`]); the slots between are taken to continue the valid prefix, so
/// entries out of order there are found at `Headers` only. The whole file is read when the
/// tail cannot tell (it is all zeros, or does not follow slot 0). Kafka's own load checks no
/// entry of either index (`LogSegment.sanityCheck` checks that the offset index exists).
struct HeldIndex {
    bytes: Vec<u8>,
    /// [`SlotIndex::parse_tail`]'s `gap_end` when a tail was read, else 0.
    gap_end: usize,
    len: u64,
}

impl HeldIndex {
    fn read<E: SlotEntry>(file: &mut FileInfo, base: i64, depth: ScanDepth) -> io::Result<Self> {
        let size = E::SIZE as u64;
        if depth == ScanDepth::Tail {
            match file.read_index_tail(INDEX_READ_CAP, size, INDEX_TAIL_WINDOW)? {
                IndexRead::Whole { bytes, len } => {
                    return Ok(HeldIndex {
                        bytes,
                        gap_end: 0,
                        len,
                    })
                }
                IndexRead::Tail {
                    bytes,
                    gap_end,
                    len,
                } => {
                    if let Ok(Some(_)) = SlotIndex::<E>::parse_tail(&bytes, gap_end, len, base) {
                        return Ok(HeldIndex {
                            bytes,
                            gap_end,
                            len,
                        });
                    }
                }
            }
        }
        let (bytes, len) = file.read_index(INDEX_READ_CAP, size)?;
        Ok(HeldIndex {
            bytes,
            gap_end: 0,
            len,
        })
    }

    /// The view of the file ([`Self::read`] kept a tail only when it tells the view).
    fn view<E: SlotEntry>(&self, base: i64) -> FormatResult<SlotIndex<'_, E>> {
        if self.gap_end > 0 {
            if let Some(view) = SlotIndex::parse_tail(&self.bytes, self.gap_end, self.len, base)? {
                return Ok(view);
            }
        }
        SlotIndex::parse_sparse(&self.bytes, self.len, base)
    }
}

fn load_time_index(file: &mut FileInfo, base: i64, depth: ScanDepth) -> Parsed<TimeIndexSummary> {
    let held = HeldIndex::read::<TimeIndexEntry>(file, base, depth)
        .map_err(|e| FileProblem::io(&file.path, &e))?;
    let view = held
        .view::<TimeIndexEntry>(base)
        .map_err(|e| FileProblem::format(&file.path, e))?;
    let valid = view.valid_entries();
    Ok(TimeIndexSummary {
        shape: IndexShape::new(&view, view.sanity_check(), view.entry_problems()),
        kafka_last_entry: view.last_entry(),
        last_valid: (valid > 0).then(|| view.last_valid_entry()),
    })
}

fn load_txn_index(file: &mut FileInfo, base: i64) -> Parsed<TxnIndexSummary> {
    let bytes = read_whole(file).map_err(|e| FileProblem::io(&file.path, &e))?;
    let index = TxnIndex::parse(&bytes).map_err(|e| FileProblem::format(&file.path, e))?;
    let mut problems = index.sanity_check(base);
    problems.extend(index.entry_problems());
    let mut producer_ids: Vec<i64> = index.entries.iter().map(|e| e.txn.producer_id).collect();
    producer_ids.sort_unstable();
    producer_ids.dedup();
    Ok(TxnIndexSummary {
        file_len: bytes.len() as u64,
        entries: index.entries.len(),
        producer_ids,
        partial_tail: index.partial_tail_len,
        problems,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::formats::record::encode::{encode_batch, rec, BatchSpec};
    use std::io::Write;

    fn empty_walk() -> LogWalk {
        LogWalk::empty(0, 0)
    }

    /// Batches of growing size (some larger than the test chunks), ending in `tail`.
    fn log_with_tail(tail: &[u8]) -> (Vec<u8>, Vec<u64>) {
        let mut file = Vec::new();
        let mut starts = Vec::new();
        let mut offset = 0i64;
        for n in 1..12usize {
            let value = vec![b'x'; n * 37];
            let records: Vec<_> = (0..n as i64)
                .map(|i| rec(offset + i, 1_000 + offset + i, Some(b"k"), Some(&value)))
                .collect();
            starts.push(file.len() as u64);
            file.extend(encode_batch(
                &BatchSpec {
                    base_offset: offset,
                    ..BatchSpec::default()
                },
                &records,
            ));
            offset += n as i64;
        }
        file.extend_from_slice(tail);
        (file, starts)
    }

    #[test]
    fn positioned_walk_equals_the_walk_over_the_whole_file() {
        let mut zeros_then_data = vec![0u8; 700];
        zeros_then_data.push(7);
        zeros_then_data.extend(vec![0u8; 40]);
        let mut bad_magic = vec![0u8; 40];
        bad_magic[11] = 30; // size 30
        bad_magic[16] = 9; // magic 9
        let tails: Vec<(&str, Vec<u8>)> = vec![
            ("clean", vec![]),
            ("partial header", vec![0, 0, 0, 0, 0, 0, 0, 99, 0, 0]),
            ("partial batch", {
                let mut t = vec![0u8; 300];
                t[11] = 200; // size 200 + 12 > 300? no: declares 212 of 300 -> a short batch
                t[8] = 1; // size 0x010000c8: far past the end
                t[16] = 2;
                t
            }),
            ("zero tail", vec![0u8; 1500]),
            ("short zero tail", vec![0u8; 10]),
            ("zeros then data", zeros_then_data),
            ("bad magic", bad_magic),
            ("small size", {
                let mut t = vec![0u8; 60];
                t[11] = 5;
                t
            }),
        ];
        for (what, tail) in &tails {
            let (bytes, starts) = log_with_tail(tail);
            let mut f = tempfile::NamedTempFile::new().unwrap();
            f.write_all(&bytes).unwrap();
            let file = PositionedFile::open(f.path()).unwrap();
            let past_end = bytes.len() as u64 + 5;
            for start in [0, starts[3], starts[10], past_end] {
                let mut whole = empty_walk();
                let mut whole_stats = BatchStats::default();
                let whole_clean = whole.walk(&bytes, start, Some(&mut whole_stats));
                for chunk in [18, 64, 100, 333, 4096, 1 << 20] {
                    let mut pos = empty_walk();
                    let mut pos_stats = BatchStats::default();
                    let clean = pos
                        .walk_positioned(&file, start, false, Some(&mut pos_stats), chunk)
                        .unwrap();
                    let at = format!("{what}, start {start}, chunk {chunk}");
                    assert_eq!(clean, whole_clean, "{at}");
                    assert_eq!(pos.summary, whole.summary, "{at}");
                    assert_eq!(pos.positions, whole.positions, "{at}");
                    assert_eq!(pos_stats, whole_stats, "{at}");
                    assert_eq!(pos.summary.walk_error.is_some(), !clean, "{at}");
                }
            }
            // The first batch alone.
            let mut whole = empty_walk();
            assert!(whole.first(&bytes));
            let mut pos = empty_walk();
            assert!(pos.walk_positioned(&file, 0, true, None, 64).unwrap());
            assert_eq!(pos.summary.first_batch, whole.summary.first_batch, "{what}");
        }
    }

    /// Deep verification as a positioned walk reads the chunks (a big segment at `Verify`
    /// depth) reaches what [`verify_segment`] over the whole file does: the same first error
    /// at the same file position, the same valid batches and truncation point, for clean files,
    /// damaged batches and every kind of tail, whatever the chunk size.
    #[test]
    fn verification_as_read_equals_the_verification_of_the_whole_file() {
        let (clean, starts) = log_with_tail(&[]);
        let mut damaged: Vec<(&str, Vec<u8>)> = Vec::new();
        for (what, tail) in [
            ("clean", vec![]),
            ("partial header", vec![0, 0, 0, 0, 0, 0, 0, 99, 0, 0]),
            ("zero tail", vec![0u8; 1500]),
            ("small size", {
                let mut t = vec![0u8; 60];
                t[11] = 5;
                t
            }),
        ] {
            damaged.push((what, log_with_tail(&tail).0));
        }
        // A record byte flipped in the 6th batch: a CRC mismatch there.
        let mut crc = clean.clone();
        let at = usize::try_from(starts[5]).unwrap() + 80;
        crc[at] ^= 0x55;
        damaged.push(("crc mismatch in batch 6", crc));
        // The 9th batch's base offset set below the 8th's last: offsets not increasing (its CRC
        // does not cover the base offset, so only the cross-batch check sees it).
        let mut back = clean.clone();
        let at = usize::try_from(starts[8]).unwrap();
        back[at..at + 8].copy_from_slice(&3i64.to_be_bytes());
        damaged.push(("offset going back in batch 9", back));
        for (what, bytes) in &damaged {
            let whole = verify_segment(bytes, &verify_options(0));
            let mut f = tempfile::NamedTempFile::new().unwrap();
            f.write_all(bytes).unwrap();
            let file = PositionedFile::open(f.path()).unwrap();
            for chunk in [18, 64, 333, 4096, 1 << 20] {
                let mut walk = empty_walk();
                walk.verify = Some(ChunkVerify {
                    verify: StreamingVerify::new(verify_options(0), file.len()),
                    batches: Vec::new(),
                });
                walk.walk_positioned(&file, 0, false, None, chunk).unwrap();
                let v = walk.verify.take().unwrap().verify.finish(
                    walk.summary.walk_error.as_deref().cloned(),
                    walk.summary.end.clone(),
                );
                let at = format!("{what}, chunk {chunk}");
                assert_eq!(v.error, whole.error, "{at}");
                assert_eq!(v.valid_batches, whole.valid_batches, "{at}");
                assert_eq!(v.valid_end, whole.valid_end, "{at}");
                assert_eq!(v.last_valid_offset, whole.last_valid_offset, "{at}");
            }
            if *what != "clean" {
                assert!(
                    whole.error.is_some() || whole.end != Some(WalkEnd::Clean),
                    "{what}"
                );
            }
        }
    }

    #[test]
    fn canonical_names_are_told_as_formatting_them_tells() {
        use SegmentFileKind::*;
        let names = [
            "00000000000000000000.log",
            "00000000000000000042.index",
            "00000000000000000042.timeindex",
            "00000000000000000042.txnindex",
            "09223372036854775807.log",
            "000000000000000000042.log",
            "0000000000000000042.log",
            "00000000000000000042.logx",
            "0000000000000000004a.log",
            "+0000000000000000042.log",
            "-0000000000000000001.log",
            "00000000000000000042",
            "",
            "é0000000000000000042.log",
        ];
        for name in names {
            for base in [0, 42, 9_223_372_036_854_775_807, -1] {
                for kind in [Log, Index, TimeIndex, TxnIndex] {
                    assert_eq!(
                        is_canonical_name(name, base, kind),
                        name == canonical_name(base, kind),
                        "{name} {base} {kind:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn segment_file_paths_are_derived_and_odd_names_kept() {
        let info = |name: &str| FileInfo {
            path: std::path::Path::new("/logs/t-0").join(name),
            size: Some(7),
            mtime_ms: Some(5),
            usage: Default::default(),
        };
        let files = SegmentFiles {
            base_offset: 4,
            log: Some(info("00000000000000000004.log")),
            index: Some(info("000000000000000000004.index")),
            time_index: None,
            txn_index: Some(info("00000000000000000004.txnindex")),
        };
        let set = SegmentFileSet::of(&files);
        assert_eq!(set.log.as_ref().unwrap().odd_name, None);
        assert_eq!(set.log.as_ref().unwrap().size, Bytes(7));
        assert_eq!(set.log.as_ref().unwrap().mtime_ms, Some(TimestampMs(5)));
        let seg = Segment {
            base_offset: Offset(4),
            files: set,
            active: true,
            log: None,
            index: None,
            time_index: None,
            txn_index: None,
        };
        let dir = std::path::Path::new("/logs/t-0");
        for (kind, f) in [
            (SegmentFileKind::Log, &files.log),
            (SegmentFileKind::Index, &files.index),
            (SegmentFileKind::TimeIndex, &files.time_index),
            (SegmentFileKind::TxnIndex, &files.txn_index),
        ] {
            assert_eq!(
                seg.path(dir, kind),
                f.as_ref().map(|f| f.path.clone()),
                "{kind:?}"
            );
        }
        assert_eq!(seg.path(dir, SegmentFileKind::Snapshot), None);
    }

    #[test]
    fn depth_policy_per_topic() {
        use crate::model::names::parse_partition_dir_name;
        let name = |n: &str| parse_partition_dir_name(n).unwrap();
        let inspect = LoadOptions::uniform(ScanDepth::Headers, ReadMode::Mmap);
        for dir in ["orders-0", "__consumer_offsets-3", "__transaction_state-0"] {
            assert_eq!(inspect.depth_for(Some(&name(dir))), ScanDepth::Headers);
        }
        assert_eq!(inspect.depth_for(None), ScanDepth::Headers);
        let diagnose = LoadOptions::tail_with_internal_topics_at(ScanDepth::Verify, ReadMode::Mmap);
        assert_eq!(diagnose.depth_for(Some(&name("orders-0"))), ScanDepth::Tail);
        assert_eq!(diagnose.depth_for(None), ScanDepth::Tail);
        assert_eq!(
            diagnose.depth_for(Some(&name("__consumer_offsets-49"))),
            ScanDepth::Verify
        );
        assert_eq!(
            diagnose.depth_for(Some(&name("__transaction_state-7"))),
            ScanDepth::Verify
        );
        // A topic whose name only starts like an internal one is data.
        assert_eq!(
            diagnose.depth_for(Some(&name("__consumer_offsets_copy-0"))),
            ScanDepth::Tail
        );
        let p = diagnose.for_partition(Some(&name("__consumer_offsets-0")));
        assert_eq!(p.depth, ScanDepth::Verify);
        assert!(p.topic_depths.is_empty());
        assert_eq!(LoadOptions::default().depth, ScanDepth::Headers);
    }

    /// A live broker's active indexes are preallocated by `setLength` (10 MiB, a hole after
    /// the entries). The crashed broker's active segment of the unclean-shutdown fixture, its
    /// indexes cut to their entries and grown back to 10 MiB as a hole, loads exactly as the
    /// same files with their zeros written out, at every depth, while only the entries are
    /// read (when the filesystem reports holes).
    #[test]
    fn a_preallocated_sparse_index_loads_as_its_zeros_would() {
        use crate::model::listing::list_partition_dir;
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/unclean-shutdown/logs-0/crash-1");
        let tmp = tempfile::tempdir().unwrap();
        const PREALLOCATED: u64 = 10 << 20;
        let make = |name: &str, sparse: bool| {
            let dir = tmp.path().join(name);
            std::fs::create_dir(&dir).unwrap();
            for f in ["00000000000000000012.log", "00000000000000000012.index"] {
                std::fs::copy(src.join(f), dir.join(f)).unwrap();
            }
            std::fs::copy(
                src.join("00000000000000000012.timeindex"),
                dir.join("00000000000000000012.timeindex"),
            )
            .unwrap();
            for (f, entry) in [
                ("00000000000000000012.index", 8),
                ("00000000000000000012.timeindex", 12),
            ] {
                let path = dir.join(f);
                let bytes = std::fs::read(&path).unwrap();
                let end =
                    (bytes.iter().rposition(|&b| b != 0).unwrap() + 1).div_ceil(entry) * entry;
                let mut out = bytes[..end].to_vec();
                let len = PREALLOCATED - PREALLOCATED % entry as u64;
                if sparse {
                    std::fs::write(&path, &out).unwrap();
                    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
                    file.set_len(len).unwrap();
                } else {
                    out.resize(usize::try_from(len).unwrap(), 0);
                    std::fs::write(&path, &out).unwrap();
                }
            }
            dir
        };
        let sparse = make("sparse-0", true);
        let dense = make("dense-0", false);
        for depth in [ScanDepth::Tail, ScanDepth::Headers, ScanDepth::Verify] {
            let load = |dir: &std::path::Path| {
                let mut files = list_partition_dir(dir).unwrap().segments;
                let seg = load_segment(
                    &mut files.remove(&12).unwrap(),
                    true,
                    &LoadOptions::uniform(depth, ReadMode::Buffered),
                );
                (
                    format!("{:?}", seg.index),
                    format!("{:?}", seg.time_index),
                    seg.files.index.map(|f| f.size),
                )
            };
            assert_eq!(load(&sparse), load(&dense), "{depth:?}");
            assert!(
                load(&dense).0.contains("zero_tail: 13107"),
                "{:?}",
                load(&dense).0
            );
        }
        let mut info = list_partition_dir(&sparse)
            .unwrap()
            .segments
            .remove(&12)
            .unwrap()
            .index
            .unwrap();
        let (held, len) = info.read_index(INDEX_READ_CAP, 8).unwrap();
        assert_eq!(len, PREALLOCATED);
        let hole = info.open().unwrap().data_end();
        if hole < len {
            assert!(held.len() <= 8192, "{} bytes read", held.len());
        }
    }

    #[test]
    fn tail_and_headers_agree_on_a_big_segment_read_by_ranges() {
        // Larger than one chunk: loaded through positioned reads, then in memory (Verify).
        let dir = tempfile::tempdir().unwrap();
        let mut bytes = Vec::new();
        let mut index = Vec::new();
        let value = vec![b'v'; 1000];
        let mut offset = 0i64;
        while (bytes.len() as u64) < 3 * LOG_CHUNK {
            let records: Vec<_> = (0..10)
                .map(|i| rec(offset + i, 5_000 + offset + i, None, Some(&value)))
                .collect();
            let position = bytes.len() as i32;
            bytes.extend(encode_batch(
                &BatchSpec {
                    base_offset: offset,
                    ..BatchSpec::default()
                },
                &records,
            ));
            index.extend_from_slice(&((offset + 9) as i32).to_be_bytes());
            index.extend_from_slice(&position.to_be_bytes());
            offset += 10;
        }
        let log = dir.path().join("00000000000000000000.log");
        std::fs::write(&log, &bytes).unwrap();
        let idx = dir.path().join("00000000000000000000.index");
        std::fs::write(&idx, &index).unwrap();
        let info = |p: &std::path::Path| FileInfo {
            path: p.to_path_buf(),
            size: Some(std::fs::metadata(p).unwrap().len()),
            mtime_ms: None,
            usage: Default::default(),
        };
        let files = SegmentFiles {
            base_offset: 0,
            log: Some(info(&log)),
            index: Some(info(&idx)),
            time_index: None,
            txn_index: None,
        };
        let load = |depth| {
            let opts = LoadOptions {
                depth,
                ..LoadOptions::default()
            };
            load_segment(&mut files.clone(), true, &opts)
        };
        let tail = load(ScanDepth::Tail);
        let headers = load(ScanDepth::Headers);
        let verify = load(ScanDepth::Verify);
        let t = tail.log_summary().unwrap();
        let h = headers.log_summary().unwrap();
        let v = verify.log_summary().unwrap();
        assert_eq!(t.next_offset, Offset(offset));
        assert_eq!(h.next_offset, Offset(offset));
        assert_eq!(t.first_batch, h.first_batch);
        assert_eq!(t.last_batch, h.last_batch);
        assert_eq!(t.end, Some(WalkEnd::Clean));
        assert_eq!(h.stats, v.stats);
        assert_eq!(h.valid_end, v.valid_end);
        assert_eq!(h.end, v.end);
        assert_eq!(v.verify_error, None);
        let i = tail.index.as_ref().unwrap().as_ref().unwrap();
        assert!(i.log_mismatches.is_empty());
    }
}
