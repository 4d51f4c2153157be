//! One segment as the broker sees it: base offset, logical size, next offset, first-batch and
//! largest timestamps, and the health of its three indexes.
//!
//! Cost is chosen by [`ScanDepth`]: `Tail` reads the first batch header, the index tails and the
//! batches after the last offset-index entry, as Kafka's `readNextOffset` does (O(segments));
//! `Headers` walks every batch header; `Verify` also checks CRCs, decodes records and checks
//! every index entry against the log. Spec formats §3.7–3.9, §4.

use crate::formats::offset_index::{
    IndexEntryProblem, IndexSanityProblem, OffsetIndex, OffsetPosition,
};
use crate::formats::slot_index::SlotLayout;
use crate::formats::time_index::{TimeIndex, TimestampOffset};
use crate::formats::txn_index::{TxnIndex, TxnIndexProblem};
use crate::formats::verify::{verify_segment, VerifyOptions};
use crate::formats::walk::{BatchInfo, ShallowWalker, WalkEnd};
use crate::formats::FormatError;

use super::file_bytes::{read_file, ReadMode};
use super::listing::{FileInfo, SegmentFiles};
use super::problem::{FileProblem, Parsed};

/// How much of each segment to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum ScanDepth {
    /// First batch, index tails, batches after the last index entry.
    Tail,
    /// Every batch header.
    #[default]
    Headers,
    /// Every batch verified (CRC, records) and every index entry checked against the log.
    Verify,
}

/// Options for loading segments.
#[derive(Debug, Clone, Copy, Default)]
pub struct LoadOptions {
    /// How much to read.
    pub depth: ScanDepth,
    /// Mapped or buffered reads.
    pub read_mode: ReadMode,
}

/// The few batch fields the model keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchBrief {
    /// Byte position.
    pub position: u64,
    /// First offset.
    pub base_offset: i64,
    /// Last offset.
    pub last_offset: i64,
    /// First timestamp (v2 base timestamp).
    pub first_timestamp: i64,
    /// Max timestamp (what Kafka's roll and retention rules use).
    pub max_timestamp: i64,
    /// Magic byte.
    pub magic: i8,
}

impl From<&BatchInfo> for BatchBrief {
    fn from(b: &BatchInfo) -> Self {
        BatchBrief {
            position: b.position,
            base_offset: b.base_offset,
            last_offset: b.last_offset,
            first_timestamp: b.first_timestamp,
            max_timestamp: b.max_timestamp,
            magic: b.magic,
        }
    }
}

/// Counts over every batch header (depth `Headers` and up).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BatchStats {
    /// Batches (v2) or top-level messages (v0/v1).
    pub batches: u64,
    /// Records as the v2 headers count them (a legacy message counts as one).
    pub records: u64,
    /// Largest batch max timestamp.
    pub max_timestamp: Option<i64>,
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogSummary {
    /// File length.
    pub size: u64,
    /// First batch, if any.
    pub first_batch: Option<BatchBrief>,
    /// Last batch, if found.
    pub last_batch: Option<BatchBrief>,
    /// Offset after the last batch (base offset for an empty segment): Kafka's `readNextOffset`.
    pub next_offset: i64,
    /// Every-header statistics (depth `Headers` and up).
    pub stats: Option<BatchStats>,
    /// Largest batch max timestamp among the batches read (all of them at depth `Headers`; the
    /// first and those after the last offset-index entry at depth `Tail`).
    pub max_timestamp_seen: Option<i64>,
    /// Where the last good batch ends.
    pub valid_end: u64,
    /// How the walk ended, if it ended without error.
    pub end: Option<WalkEnd>,
    /// The first structural error of the walk (Kafka's recovery would truncate at its offset).
    pub walk_error: Option<FormatError>,
    /// The first error of the deep verification (depth `Verify`).
    pub verify_error: Option<FormatError>,
    /// Batches that passed deep verification (depth `Verify`).
    pub verified_batches: Option<u64>,
}

/// An offset-index entry that disagrees with the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexLogMismatch {
    /// The entry's position is at or past the end of the valid log data.
    PositionPastLog {
        /// Slot.
        slot: usize,
        /// The entry.
        entry: OffsetPosition,
        /// Where valid log data ends.
        log_valid_end: u64,
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

/// The layout of an offset or time index file, common to both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexShape {
    /// File length.
    pub file_len: u64,
    /// Slots as Kafka counts them (length / entry size).
    pub slots: usize,
    /// Valid entries (strictly increasing prefix before the zero tail).
    pub valid_entries: usize,
    /// Slots in the zero-filled tail.
    pub zero_tail: usize,
    /// Non-zero slots after the valid prefix.
    pub garbage: usize,
    /// Kafka's own `sanityCheck` result (empty: Kafka accepts the file).
    pub sanity: Vec<IndexSanityProblem>,
    /// Stricter entry checks.
    pub entry_problems: Vec<IndexEntryProblem>,
}

impl IndexShape {
    /// The shape of a parsed index, with its Kafka sanity check and stricter entry checks.
    fn new(
        layout: &SlotLayout<'_>,
        sanity: Vec<IndexSanityProblem>,
        entry_problems: Vec<IndexEntryProblem>,
    ) -> Self {
        IndexShape {
            file_len: layout.file_len(),
            slots: layout.slot_count(),
            valid_entries: layout.valid_entries(),
            zero_tail: layout.zero_tail().len(),
            garbage: layout.garbage_slots().len(),
            sanity,
            entry_problems,
        }
    }
}

/// What the `.index` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetIndexSummary {
    /// Layout and checks.
    pub shape: IndexShape,
    /// The last valid entry.
    pub last_valid: Option<OffsetPosition>,
    /// Entries that disagree with the log (the last one at depth `Tail`, all at `Verify`).
    pub log_mismatches: Vec<IndexLogMismatch>,
}

/// What the `.timeindex` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeIndexSummary {
    /// Layout and checks.
    pub shape: IndexShape,
    /// Kafka's `lastEntry` (the last slot by count; a zero-tail slot reads as timestamp 0).
    pub kafka_last_entry: TimestampOffset,
    /// The last valid entry.
    pub last_valid: Option<TimestampOffset>,
}

/// What the `.txnindex` says.
#[derive(Debug, Clone, PartialEq, Eq)]
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

/// Where a segment's largest timestamp comes from (Kafka's `LogSegment.largestTimestamp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TimestampSource {
    /// The last time-index entry.
    TimeIndex,
    /// The `.log` file's mtime (the time index is empty).
    LogMtime,
    /// The batches: the broker recovers this segment on its next start and rebuilds the time
    /// index from them.
    Recovery,
}

/// One segment.
#[derive(Debug, Clone)]
pub struct Segment {
    /// Base offset, from the file names.
    pub base_offset: i64,
    /// Its files.
    pub files: SegmentFiles,
    /// Whether it is the partition's last (active) segment.
    pub active: bool,
    /// The `.log`, or why it could not be read. `None` when there is no `.log` file.
    pub log: Option<Parsed<LogSummary>>,
    /// The `.index`.
    pub index: Option<Parsed<OffsetIndexSummary>>,
    /// The `.timeindex`.
    pub time_index: Option<Parsed<TimeIndexSummary>>,
    /// The `.txnindex`.
    pub txn_index: Option<Parsed<TxnIndexSummary>>,
    /// Largest timestamp as Kafka computes it, with its source.
    pub largest_timestamp: Option<(i64, TimestampSource)>,
    /// Whether the broker recovers this segment on its next start (set by the partition:
    /// it depends on the clean-shutdown marker and the recovery point).
    pub recovered_on_start: bool,
}

impl Segment {
    /// The `.log` summary when it was read.
    pub fn log_summary(&self) -> Option<&LogSummary> {
        self.log.as_ref().and_then(|r| r.as_ref().ok())
    }

    /// Logical size: the `.log` length.
    pub fn size(&self) -> u64 {
        self.files.log.as_ref().map_or(0, |f| f.size)
    }

    /// Mark the segment as recovered on the next start. Recovery rebuilds the time index from
    /// the batches, so the largest timestamp becomes the largest batch timestamp (the `.log`
    /// mtime when no batch has one), whatever the current index says.
    pub fn mark_recovered_on_start(&mut self) {
        self.recovered_on_start = true;
        let indexed = self
            .time_index
            .as_ref()
            .and_then(|r| r.as_ref().ok())
            .and_then(|t| t.last_valid)
            .map(|e| e.timestamp);
        let seen = self.log_summary().and_then(|l| l.max_timestamp_seen);
        let rebuilt = indexed.max(seen).filter(|ts| *ts >= 0);
        self.largest_timestamp = match rebuilt {
            Some(ts) => Some((ts, TimestampSource::Recovery)),
            None => self
                .files
                .log
                .as_ref()
                .and_then(|f| f.mtime_ms)
                .map(|ms| (ms, TimestampSource::LogMtime)),
        };
    }
}

/// Load one segment.
pub fn load_segment(files: SegmentFiles, active: bool, opts: &LoadOptions) -> Segment {
    let base = files.base_offset;
    let index_bytes = files
        .index
        .as_ref()
        .map(|f| (f, read_file(&f.path, opts.read_mode)));
    let index = index_bytes.as_ref().map(|(f, r)| match r {
        Ok(bytes) => OffsetIndex::parse(bytes, base).map_err(|e| FileProblem::format(&f.path, e)),
        Err(e) => Err(FileProblem::io(&f.path, e)),
    });
    let index_view = index.as_ref().and_then(|r| r.as_ref().ok());

    let log = files
        .log
        .as_ref()
        .map(|f| load_log(f, base, index_view, opts));

    let index = index.map(|r| {
        r.map(|view| {
            summarize_offset_index(&view, log.as_ref().and_then(|l| l.as_ref().ok()), opts)
        })
    });
    let time_index = files
        .time_index
        .as_ref()
        .map(|f| load_time_index(f, base, opts));
    let txn_index = files
        .txn_index
        .as_ref()
        .map(|f| load_txn_index(f, base, opts));

    let largest_timestamp = largest_timestamp(time_index.as_ref(), files.log.as_ref());
    Segment {
        base_offset: base,
        files,
        active,
        log: log.map(|r| r.map(|(s, _)| s)),
        index,
        time_index,
        txn_index,
        largest_timestamp,
        recovered_on_start: false,
    }
}

/// Kafka's rule: the last time-index entry's timestamp if it is ≥ 0, else the `.log` mtime.
/// Kafka reads the last slot by count, so a zero tail yields 0 here, as it does in the broker
/// (a segment the broker recovers first is corrected by [`Segment::mark_recovered_on_start`]).
fn largest_timestamp(
    time_index: Option<&Parsed<TimeIndexSummary>>,
    log: Option<&FileInfo>,
) -> Option<(i64, TimestampSource)> {
    let from_index = time_index
        .and_then(|r| r.as_ref().ok())
        .filter(|t| t.shape.slots > 0)
        .map(|t| t.kafka_last_entry.timestamp)
        .filter(|ts| *ts >= 0);
    match from_index {
        Some(ts) => Some((ts, TimestampSource::TimeIndex)),
        None => log
            .and_then(|f| f.mtime_ms)
            .map(|ms| (ms, TimestampSource::LogMtime)),
    }
}

type LogLoad = (LogSummary, BatchPositions);

/// What the walks of one `.log` collect.
struct LogWalk {
    summary: LogSummary,
    positions: BatchPositions,
}

impl LogWalk {
    fn record(&mut self, b: &BatchInfo) {
        let brief = BatchBrief::from(b);
        self.summary.first_batch.get_or_insert(brief);
        self.summary.last_batch = Some(brief);
        let seen = &mut self.summary.max_timestamp_seen;
        *seen = Some(seen.map_or(b.max_timestamp, |m| m.max(b.max_timestamp)));
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
                    self.summary.walk_error = Some(e);
                    clean = false;
                }
            }
        }
        self.summary.valid_end = walker.valid_end();
        self.summary.end = walker.end().cloned();
        clean
    }
}

fn load_log(
    file: &FileInfo,
    base: i64,
    index: Option<&OffsetIndex<'_>>,
    opts: &LoadOptions,
) -> Parsed<LogLoad> {
    let bytes =
        read_file(&file.path, opts.read_mode).map_err(|e| FileProblem::io(&file.path, &e))?;
    let bytes: &[u8] = &bytes;
    let mut walk = LogWalk {
        summary: LogSummary {
            size: bytes.len() as u64,
            first_batch: None,
            last_batch: None,
            next_offset: base,
            stats: None,
            max_timestamp_seen: None,
            valid_end: 0,
            end: None,
            walk_error: None,
            verify_error: None,
            verified_batches: None,
        },
        positions: Vec::new(),
    };
    match opts.depth {
        ScanDepth::Tail => {
            // The first batch, then from the last valid index entry to the end, as Kafka's
            // readNextOffset does; from the start when the entry does not lead to a clean walk.
            let start = index
                .map(|i| i.last_valid_entry().position)
                .and_then(|p| u64::try_from(p).ok())
                .unwrap_or(0);
            let first_ok = match ShallowWalker::new(bytes).next() {
                Some(Ok(first)) => {
                    walk.summary.first_batch = Some(BatchBrief::from(&first));
                    true
                }
                Some(Err(e)) => {
                    walk.summary.walk_error = Some(e);
                    false
                }
                None => walk.walk(bytes, 0, None),
            };
            if first_ok
                && walk.summary.first_batch.is_some()
                && !walk.walk(bytes, start, None)
                && start != 0
            {
                walk.positions.clear();
                walk.summary.walk_error = None;
                walk.walk(bytes, 0, None);
            }
            // The first batch counts for the largest timestamp seen even when not re-walked.
            if let Some(first) = walk.summary.first_batch {
                let seen = &mut walk.summary.max_timestamp_seen;
                *seen = Some(seen.map_or(first.max_timestamp, |m| m.max(first.max_timestamp)));
            }
        }
        ScanDepth::Headers | ScanDepth::Verify => {
            let mut stats = BatchStats::default();
            walk.walk(bytes, 0, Some(&mut stats));
            walk.summary.stats = Some(stats);
        }
    }
    let mut summary = walk.summary;
    if let Some(last) = summary.last_batch {
        summary.next_offset = last.last_offset.saturating_add(1);
    }
    if opts.depth == ScanDepth::Verify {
        let v = verify_segment(
            bytes,
            &VerifyOptions {
                segment_base_offset: Some(base),
                ..VerifyOptions::default()
            },
        );
        summary.verify_error = v.error;
        summary.verified_batches = Some(v.valid_batches);
    }
    Ok((summary, walk.positions))
}

fn add_to_stats(stats: &mut BatchStats, b: &BatchInfo) {
    stats.batches += 1;
    stats.records += b.records_count.map_or(1, |c| u64::try_from(c).unwrap_or(0));
    stats.max_timestamp = Some(
        stats
            .max_timestamp
            .map_or(b.max_timestamp, |m| m.max(b.max_timestamp)),
    );
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
    if position >= log.size || (log.walk_error.is_none() && position >= log.valid_end) {
        return Some(IndexLogMismatch::PositionPastLog {
            slot,
            entry,
            log_valid_end: log.valid_end,
        });
    }
    if log.walk_error.is_some() && position >= log.valid_end {
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
    let segment_last = log.last_batch.map(|b| b.last_offset);
    let skips_data = previous_last.is_some_and(|prev| entry.offset <= prev);
    let past_end = segment_last.is_some_and(|last| entry.offset > last);
    (skips_data || past_end).then_some(IndexLogMismatch::OffsetDisagrees {
        slot,
        entry,
        batch_last_offset: batch_last,
    })
}

fn load_time_index(file: &FileInfo, base: i64, opts: &LoadOptions) -> Parsed<TimeIndexSummary> {
    let bytes =
        read_file(&file.path, opts.read_mode).map_err(|e| FileProblem::io(&file.path, &e))?;
    let view = TimeIndex::parse(&bytes, base).map_err(|e| FileProblem::format(&file.path, e))?;
    let valid = view.valid_entries();
    Ok(TimeIndexSummary {
        shape: IndexShape::new(&view, view.sanity_check(), view.entry_problems()),
        kafka_last_entry: view.last_entry(),
        last_valid: (valid > 0).then(|| view.last_valid_entry()),
    })
}

fn load_txn_index(file: &FileInfo, base: i64, opts: &LoadOptions) -> Parsed<TxnIndexSummary> {
    let bytes =
        read_file(&file.path, opts.read_mode).map_err(|e| FileProblem::io(&file.path, &e))?;
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
