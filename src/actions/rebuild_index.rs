//! `rebuild-index`: rebuild `.index`, `.timeindex` and `.txnindex` from the `.log` exactly as
//! the broker's `LogSegment.recover` does (spec §6.1), and compare them with the files on disk
//! (§6.2 explains the harmless differences).
//!
//! [`recover_segment`] is the recovery loop: per batch (header walk, then `ensureValid`: size
//! and CRC), keep the running max timestamp (strictly greater, so ties keep the earliest
//! batch); when **more than** `index.interval.bytes` valid bytes lie between the last index
//! point and this batch's start, append (batch last offset, batch start) to the offset index
//! and `maybeAppend(running max)` to the time index; feed v2 batches with a producer id to the
//! producer state, which yields the `.txnindex` entry of each aborted transaction. At the end
//! the time index gets its final `maybeAppend` and both are trimmed. The rebuilt files are
//! therefore what the broker leaves after recovery and a clean stop (it re-extends the active
//! segment's indexes to `segment.index.bytes` while running). This loop is the same in every
//! release modelled (3.6 `LogSegment.scala` `recover` to 4.4 `LogSegment.java`: per batch,
//! `validBytes - lastIndexEntry > indexIntervalBytes`), so the rebuilt indexes take no
//! `--kafka-version`. The per-batch index interval of appends (KAFKA-806: 4.1.0 and the 3.9.1 /
//! 4.0.1 backports; cleanup rules, Errata 2) makes appended leader indexes match it; follower and
//! cleaner appends, and the interval anchor reset at a restart, do not (§6.2).
//!
//! `segment.index.bytes` bounds the entries: an offset index holds `bytes/8` entries and a time
//! index reports full at `bytes/12 - 1`; recovery that would overflow them fails in the broker,
//! and here too.
//!
//! A `.log` is never read whole: [`LogStream`] walks it with positioned reads through a window
//! of [`CHUNK`] bytes (plus one batch when a batch is larger), so memory stays bounded whatever
//! the segment size; the comparison with an index on disk keeps only the batch starts that
//! index points at.
//!
//! An invalid tail (`--truncate-invalid-tail`) is cut as `LogLoader.recoverLog` does after an
//! unclean shutdown: the first recovered segment with an invalid batch is truncated at that
//! batch and every later segment of the partition is removed (`.log` and indexes to the
//! quarantine, with the producer snapshots at their bases and above the new log end); the
//! dry run says which segments, how many bytes and which offsets go. The broker's index
//! rebuild at a clean start (`loadSegmentFiles`) would truncate that one segment only, but
//! leave a log with a hole; recovery's rule is the one that keeps the log contiguous. Offsets
//! that do not increase (the broker's `InvalidOffsetException`) make recovery truncate the whole
//! segment to its base offset, and the flag does the same. Any other failure of the broker's
//! recovery (`fatal`: offset overflow, a full index) is reported and the segment left alone.

mod stream;

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::log_config::LogConfig;
use crate::formats::offset_index::{OffsetIndex, OffsetIndexEntry};
use crate::formats::slot_index::encode_slots;
use crate::formats::time_index::{TimeIndex, TimeIndexEntry};
use crate::formats::txn_index::{encode_txn_index, AbortedTxn};
use crate::formats::verify::verify_crc;
use crate::formats::walk::{BatchInfo, WalkEnd};
use crate::model::names::path_text;

use super::guard::FileStamp;
pub use super::listing::{list_segments, list_snapshots, SegmentFiles};
use super::plan::{ActionPlan, Step};
use super::ActionError;
use crate::model::producer_state::ProducerState;

pub use stream::{LogStream, Next, CHUNK};

/// The two configs that shape the indexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct IndexSizing {
    /// `index.interval.bytes`.
    pub index_interval_bytes: i32,
    /// `segment.index.bytes`.
    pub segment_index_bytes: i32,
}

impl IndexSizing {
    /// From an effective topic config.
    pub fn of(config: &LogConfig) -> IndexSizing {
        IndexSizing {
            index_interval_bytes: config.index_interval_bytes,
            segment_index_bytes: config.segment_index_bytes,
        }
    }

    fn max_offset_entries(self) -> usize {
        usize::try_from(self.segment_index_bytes / 8).unwrap_or(0)
    }

    fn max_time_entries(self) -> usize {
        usize::try_from(self.segment_index_bytes / 12).unwrap_or(0)
    }
}

impl Default for IndexSizing {
    fn default() -> Self {
        IndexSizing::of(&LogConfig::default())
    }
}

/// Why recovery stopped before the end of the `.log`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InvalidTail {
    /// Where the valid bytes end.
    pub position: u64,
    /// Bytes after it.
    pub dropped_bytes: u64,
    /// What the broker's recovery meets there.
    pub reason: String,
}

/// What recovery of one segment produces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovered {
    /// Offset-index entries.
    pub offset_entries: Vec<OffsetIndexEntry>,
    /// Time-index entries (the final one included).
    pub time_entries: Vec<TimeIndexEntry>,
    /// Aborted transactions whose marker is in the segment.
    pub aborted: Vec<AbortedTxn>,
    /// Valid bytes (where the broker truncates).
    pub valid_bytes: u64,
    /// Batches read.
    pub batches: usize,
    /// Offset after the last valid batch (the base offset when there is none).
    pub next_offset: i64,
    /// The running max timestamp and its offset at the end ((-1, -1) when none).
    pub max_timestamp: (i64, i64),
    /// An invalid tail (recovery stops there).
    pub tail: Option<InvalidTail>,
    /// Recovery of this segment fails in the broker (offset overflow, non-increasing offsets,
    /// full index): nothing is rebuilt.
    pub fatal: Option<String>,
    /// For the batch starts asked for (the positions an index on disk points at): the batch's
    /// last offset.
    pub points: BTreeMap<u64, i64>,
    /// The `fatal` failure is the broker's `InvalidOffsetException`, on which its recovery
    /// truncates the whole segment to its base offset (and removes every later segment).
    pub invalid_offset: bool,
}

impl Recovered {
    /// The rebuilt `.index` bytes (trimmed).
    pub fn offset_index_bytes(&self) -> Vec<u8> {
        encode_slots(&self.offset_entries)
    }

    /// The rebuilt `.timeindex` bytes (trimmed).
    pub fn time_index_bytes(&self) -> Vec<u8> {
        encode_slots(&self.time_entries)
    }

    /// The rebuilt `.txnindex` bytes.
    pub fn txn_index_bytes(&self) -> Vec<u8> {
        encode_txn_index(&self.aborted)
    }
}

fn relative(offset: i64, base: i64) -> Option<i32> {
    i32::try_from(offset.checked_sub(base)?)
        .ok()
        .filter(|r| *r >= 0)
}

struct TimeIndexBuilder {
    base: i64,
    entries: Vec<TimeIndexEntry>,
}

impl TimeIndexBuilder {
    /// `TimeIndex.maybeAppend`: only a strictly larger timestamp than the last entry (an empty
    /// index counts as -1) is appended.
    fn maybe_append(&mut self, timestamp: i64, offset: i64) -> Result<(), String> {
        let last_ts = self.entries.last().map_or(-1, |e| e.timestamp);
        if timestamp <= last_ts {
            return Ok(());
        }
        let rel = relative(offset, self.base).ok_or_else(|| {
            format!(
                "time-index offset {offset} is not relative to {}",
                self.base
            )
        })?;
        if self.entries.last().is_some_and(|e| rel < e.relative_offset) {
            return Err(format!("time-index offset {offset} goes backwards"));
        }
        self.entries.push(TimeIndexEntry {
            timestamp,
            relative_offset: rel,
        });
        Ok(())
    }
}

/// Run `LogSegment.recover` over `log` (a segment based at `base`, in memory), updating
/// `state` with every batch read.
pub fn recover_segment(
    log: &[u8],
    base: i64,
    sizing: IndexSizing,
    state: &mut ProducerState,
) -> Recovered {
    let mut stream = LogStream::memory(log);
    recover_stream(&mut stream, base, sizing, state, &HashSet::new()).unwrap_or_else(|e| {
        let mut out = Recovered::empty(base);
        out.fatal = Some(e.to_string());
        out
    })
}

impl Recovered {
    fn empty(base: i64) -> Recovered {
        Recovered {
            offset_entries: Vec::new(),
            time_entries: Vec::new(),
            aborted: Vec::new(),
            valid_bytes: 0,
            batches: 0,
            next_offset: base,
            max_timestamp: (-1, -1),
            tail: None,
            fatal: None,
            points: BTreeMap::new(),
            invalid_offset: false,
        }
    }
}

/// Why a walk that ended without a valid batch left a tail (`None`: it ended cleanly).
fn tail_reason(end: WalkEnd) -> Option<String> {
    match end {
        WalkEnd::PartialBatch {
            declared_size,
            available,
            ..
        } => Some(format!(
            "incomplete batch ({available} of {declared_size} declared bytes)"
        )),
        WalkEnd::ZeroFilled { len, .. } => Some(format!(
            "{len} zero bytes (preallocated or zero-filled tail)"
        )),
        WalkEnd::Clean => None,
    }
}

/// Append the index entries due before `batch` (the interval is passed): its last offset at
/// the valid bytes so far, and `maybeAppend` of the running max timestamp. `Err` is why the
/// broker's recovery fails here (it marks `invalid_offset` when the offsets do not increase).
fn append_index_point(
    out: &mut Recovered,
    time: &mut TimeIndexBuilder,
    batch: &BatchInfo,
    sizing: IndexSizing,
) -> Result<(), String> {
    let rel = relative(batch.last_offset, time.base).unwrap_or(0);
    if out
        .offset_entries
        .last()
        .is_some_and(|e| rel <= e.relative_offset)
    {
        out.invalid_offset = true;
        return Err(format!(
            "offset {} at byte {} does not increase over the previous index entry: the \
             broker's recovery throws InvalidOffsetException and truncates the whole \
             segment to its base offset",
            batch.last_offset, batch.position
        ));
    }
    if out.offset_entries.len() >= sizing.max_offset_entries() {
        return Err(format!(
            "the offset index is full at segment.index.bytes = {}",
            sizing.segment_index_bytes
        ));
    }
    out.offset_entries.push(OffsetIndexEntry {
        relative_offset: rel,
        position: i32::try_from(out.valid_bytes).unwrap_or(i32::MAX),
    });
    if time.entries.len() >= sizing.max_time_entries().saturating_sub(1) {
        return Err(format!(
            "the time index is full at segment.index.bytes = {}",
            sizing.segment_index_bytes
        ));
    }
    time.maybe_append(out.max_timestamp.0, out.max_timestamp.1)
}

/// [`recover_segment`] over a `.log` read in chunks ([`LogStream`]); `points`: batch starts
/// whose last offsets to keep in [`Recovered::points`].
pub fn recover_stream(
    stream: &mut LogStream,
    base: i64,
    sizing: IndexSizing,
    state: &mut ProducerState,
    points: &HashSet<u64>,
) -> std::io::Result<Recovered> {
    let mut out = Recovered::empty(base);
    let mut time = TimeIndexBuilder {
        base,
        entries: Vec::new(),
    };
    let interval = u64::try_from(sizing.index_interval_bytes).unwrap_or(0);
    let mut last_index_entry: u64 = 0;
    let len = stream.len();
    let stop = |out: &mut Recovered, reason: String| {
        out.tail = Some(InvalidTail {
            position: out.valid_bytes,
            dropped_bytes: len.saturating_sub(out.valid_bytes),
            reason,
        });
    };
    loop {
        let batch = match stream.next_batch()? {
            Next::Batch(b) => b,
            Next::Invalid(e) => {
                stop(&mut out, e.to_string());
                break;
            }
            Next::End(end) => {
                if let Some(reason) = tail_reason(end) {
                    stop(&mut out, reason);
                }
                break;
            }
        };
        let (bytes, local) = stream.batch(&batch);
        if let Err(e) = verify_crc(bytes, &local) {
            stop(&mut out, e.at_base(batch.position).to_string());
            break;
        }
        if relative(batch.last_offset, base).is_none() {
            out.fatal = Some(format!(
                "batch at {} has last offset {} that does not fit an index relative to {base}: \
                 the broker splits this segment (LogSegmentOffsetOverflowException)",
                batch.position, batch.last_offset
            ));
            return Ok(out);
        }
        if batch.max_timestamp > out.max_timestamp.0 {
            out.max_timestamp = (batch.max_timestamp, batch.last_offset);
        }
        if out.valid_bytes - last_index_entry > interval {
            if let Err(why) = append_index_point(&mut out, &mut time, &batch, sizing) {
                out.fatal = Some(why);
                return Ok(out);
            }
            last_index_entry = out.valid_bytes;
        }
        out.valid_bytes = out.valid_bytes.saturating_add(batch.size);
        out.batches += 1;
        out.next_offset = batch.last_offset.saturating_add(1);
        if points.contains(&batch.position) {
            out.points.insert(batch.position, batch.last_offset);
        }
        if let Some(txn) = state.apply(bytes, &local) {
            out.aborted.push(txn);
        }
    }
    // The final entry a roll or close adds (skipFullCheck).
    if let Err(e) = time.maybe_append(out.max_timestamp.0, out.max_timestamp.1) {
        out.fatal = Some(e);
    }
    out.time_entries = time.entries;
    Ok(out)
}

/// The producer state at `offset` and the segment index to replay from: the latest valid
/// snapshot at or below `offset` (else empty state from the first segment), as the broker's
/// `loadProducerState` starts.
pub fn state_before(
    partition_dir: &Path,
    segments: &[SegmentFiles],
    offset: i64,
) -> Result<(ProducerState, i64), ActionError> {
    for (at, path) in list_snapshots(partition_dir)?.into_iter().rev() {
        if at > offset {
            continue;
        }
        let parsed = fs::read(&path)
            .ok()
            .and_then(|b| crate::formats::producer_snapshot::parse_producer_snapshot(&b).ok());
        if let Some(s) = parsed {
            return Ok((ProducerState::from_snapshot(&s.entries), at));
        }
    }
    Ok((
        ProducerState::default(),
        segments.first().map_or(offset, |s| s.base),
    ))
}

/// Replay batches with offsets in `[from, to)` of the segments into `state`, one segment at a
/// time as the broker's load does (`rebuildProducerState`).
pub fn replay(
    segments: &[SegmentFiles],
    state: &mut ProducerState,
    from: i64,
    to: i64,
) -> Result<(), ActionError> {
    for (i, seg) in segments.iter().enumerate() {
        let next_base = segments.get(i + 1).map_or(i64::MAX, |s| s.base);
        if seg.base >= to || next_base <= from {
            continue;
        }
        let io = |e| ActionError::io(&seg.log, e);
        let mut stream = LogStream::open(&seg.log).map_err(io)?;
        state.begin_segment();
        while let Next::Batch(b) = stream.next_batch().map_err(io)? {
            if b.last_offset < from {
                continue;
            }
            let (bytes, local) = stream.batch(&b);
            if b.base_offset >= to || verify_crc(bytes, &local).is_err() {
                break;
            }
            state.apply(bytes, &local);
        }
        state.end_segment();
    }
    Ok(())
}

/// How an index on disk compares with the rebuilt one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Comparison {
    /// Byte-identical.
    Identical,
    /// No such file (the broker recovers a segment without `.index`; an absent `.txnindex` is
    /// what the broker leaves when there is no aborted transaction).
    Missing,
    /// The same entries followed by a zero tail: a preallocated index (active segment of a
    /// running or crashed broker). Harmless.
    Preallocated {
        /// Zero slots after the entries.
        zero_slots: usize,
    },
    /// Different entries, each a valid lookup point: written by appends (follower fetches,
    /// cleaner output, an interval anchor reset at restart; spec §6.2). Harmless.
    AppendWritten {
        /// Entries on disk.
        on_disk: usize,
        /// Entries rebuilt.
        rebuilt: usize,
    },
    /// Wrong: entries the broker would mis-read, or a different `.txnindex`.
    Differs {
        /// What is wrong.
        detail: String,
    },
}

impl Comparison {
    /// Whether the difference is harmless (no rebuild needed).
    pub fn harmless(&self) -> bool {
        !matches!(self, Comparison::Differs { .. } | Comparison::Missing)
    }
}

/// Compare an offset index on disk with the rebuild; `points`: the batches starting where its
/// entries point, with their last offsets; `last_offset`: the segment's (`None`: no batch).
fn compare_offset_index(
    on_disk: &[u8],
    rebuilt: &[u8],
    base: i64,
    points: &BTreeMap<u64, i64>,
    last_offset: Option<i64>,
) -> Comparison {
    if on_disk == rebuilt {
        return Comparison::Identical;
    }
    let Ok(index) = OffsetIndex::parse(on_disk, base) else {
        return Comparison::Differs {
            detail: format!(
                "{} bytes: not a whole number of 8-byte entries",
                on_disk.len()
            ),
        };
    };
    let used = index.valid_entries();
    if on_disk.get(..rebuilt.len()) == Some(rebuilt) && used * 8 <= rebuilt.len() {
        return Comparison::Preallocated {
            zero_slots: index.slot_count().saturating_sub(rebuilt.len() / 8),
        };
    }
    let mut prev: Option<i64> = None;
    for (slot, e) in index.slots().enumerate().take(used) {
        let offset = base.saturating_add(i64::from(e.relative_offset));
        let pos = u64::try_from(e.position).unwrap_or(u64::MAX);
        let ok_point = points.get(&pos).is_some_and(|last| *last <= offset);
        let increasing = prev.is_none_or(|p| offset > p);
        let in_segment = last_offset.is_some_and(|last| offset <= last);
        if !(ok_point && increasing && in_segment) {
            return Comparison::Differs {
                detail: format!(
                    "slot {slot} (offset {offset}, position {pos}) is not a valid lookup point"
                ),
            };
        }
        prev = Some(offset);
    }
    if index.slot_count() > used && used * 8 < on_disk.len() {
        let tail = index.slot_count() - used;
        if index.zero_tail().len() != tail {
            return Comparison::Differs {
                detail: format!("{tail} slots after the ordered entries are not zero"),
            };
        }
    }
    Comparison::AppendWritten {
        on_disk: used,
        rebuilt: rebuilt.len() / 8,
    }
}

fn compare_time_index(on_disk: &[u8], rebuilt: &[u8], base: i64, last_offset: i64) -> Comparison {
    if on_disk == rebuilt {
        return Comparison::Identical;
    }
    let Ok(index) = TimeIndex::parse(on_disk, base) else {
        return Comparison::Differs {
            detail: format!(
                "{} bytes: not a whole number of 12-byte entries",
                on_disk.len()
            ),
        };
    };
    let used = index.valid_entries();
    if on_disk.get(..rebuilt.len()) == Some(rebuilt) && used * 12 <= rebuilt.len() {
        return Comparison::Preallocated {
            zero_slots: index.slot_count().saturating_sub(rebuilt.len() / 12),
        };
    }
    let rebuilt_last = rebuilt
        .len()
        .checked_sub(12)
        .and_then(|at| rebuilt.get(at..at + 8))
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map(i64::from_be_bytes);
    let mut prev: Option<TimeIndexEntry> = None;
    for (slot, e) in index.slots().enumerate().take(used) {
        let offset = base.saturating_add(i64::from(e.relative_offset));
        let ordered = prev
            .is_none_or(|p| e.timestamp > p.timestamp && e.relative_offset >= p.relative_offset);
        if !ordered || offset > last_offset {
            return Comparison::Differs {
                detail: format!("slot {slot} (timestamp {}, offset {offset}) is out of order or past the segment", e.timestamp),
            };
        }
        prev = Some(e);
    }
    if prev.map(|p| p.timestamp) != rebuilt_last {
        return Comparison::Differs {
            detail: format!(
                "{}, {}: time-based retention would use the wrong time",
                prev.map_or("the time index has no entry".to_string(), |p| format!(
                    "the time index's last entry says {}",
                    p.timestamp
                )),
                rebuilt_last.map_or(
                    "the segment's batches give no max timestamp".to_string(),
                    |t| format!("the segment's max timestamp is {t}")
                ),
            ),
        };
    }
    Comparison::AppendWritten {
        on_disk: used,
        rebuilt: rebuilt.len() / 12,
    }
}

/// The report on one segment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SegmentReport {
    /// The `.log`.
    #[serde(with = "crate::model::names::path_serde")]
    pub log: PathBuf,
    /// Base offset.
    pub base_offset: i64,
    /// Batches read by recovery.
    pub batches: usize,
    /// `.index` against the rebuild (`None` when nothing was rebuilt).
    pub index: Option<Comparison>,
    /// `.timeindex` against the rebuild.
    pub timeindex: Option<Comparison>,
    /// `.txnindex` against the rebuild.
    pub txnindex: Option<Comparison>,
    /// An invalid tail.
    pub invalid_tail: Option<InvalidTail>,
    /// What was done about the tail (or why not).
    pub tail_action: Option<String>,
    /// What truncating the tail drops besides it (later segments, bytes, offsets).
    pub dropped: Option<Dropped>,
    /// Recovery fails in the broker for this segment.
    pub fatal: Option<String>,
}

impl SegmentReport {
    /// Whether the segment's data is corrupt (invalid tail or failing recovery).
    pub fn corrupt(&self) -> bool {
        self.invalid_tail.is_some() || self.fatal.is_some()
    }

    /// Whether the plan truncates the segment's invalid tail (applied, the data is repaired).
    pub fn truncates(&self) -> bool {
        self.dropped.is_some()
    }

    /// Whether an index differs in a way that matters.
    pub fn needs_rebuild(&self) -> bool {
        [&self.index, &self.timeindex, &self.txnindex]
            .into_iter()
            .flatten()
            .any(|c| !c.harmless())
    }
}

/// Options of one rebuild.
#[derive(Debug, Clone, Copy, Default)]
pub struct RebuildOptions {
    /// Truncate the first segment with an invalid tail there and remove every later segment,
    /// as the broker's recovery would.
    pub truncate_invalid_tail: bool,
}

fn read_opt(path: &Path) -> Result<Option<Vec<u8>>, ActionError> {
    match fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ActionError::io(path, e)),
    }
}

/// What truncating an invalid tail drops besides the tail itself: every later segment, as the
/// broker's `LogLoader.recoverLog` does (`removeAndDeleteSegmentsAsync` of the remaining
/// segments).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dropped {
    /// Base offsets of the later segments removed (their `.log`, indexes and producer
    /// snapshot at their base go to the quarantine).
    pub segments: Vec<i64>,
    /// Bytes of `.log` dropped: the tail and the later segments.
    pub log_bytes: u64,
    /// The new log end offset (the first offset dropped).
    pub from_offset: i64,
    /// The log end offset before (`None`: not known, the tail cannot be read).
    pub to_offset: Option<i64>,
}

/// The offset after the last valid batch of a segment's `.log` (its base when it has none).
fn log_end_of(seg: &SegmentFiles) -> Result<i64, ActionError> {
    let io = |e| ActionError::io(&seg.log, e);
    let mut stream = LogStream::open(&seg.log).map_err(io)?;
    let mut end = seg.base;
    while let Next::Batch(b) = stream.next_batch().map_err(io)? {
        end = b.last_offset.saturating_add(1);
    }
    Ok(end)
}

/// Plan the truncation of `seg` at its invalid tail and the removal of the `later` segments,
/// as the broker's recovery does: later segments last first (`.log` before its indexes), so an
/// interrupted run leaves a prefix of the log; then the truncation; then the producer
/// snapshots at the removed bases and above the new log end.
fn plan_truncation(
    partition_dir: &Path,
    seg: &SegmentFiles,
    log_len: u64,
    rec: &Recovered,
    tail: &InvalidTail,
    later: &[SegmentFiles],
    plan: &mut ActionPlan,
) -> Result<Dropped, ActionError> {
    let new_end = rec.next_offset;
    let mut dropped = Dropped {
        segments: later.iter().map(|s| s.base).collect(),
        log_bytes: tail.dropped_bytes,
        from_offset: new_end,
        to_offset: None,
    };
    if let Some(last) = later.last() {
        dropped.to_offset = Some(log_end_of(last)?);
    }
    for s in later.iter().rev() {
        for suffix in [".log", ".index", ".timeindex", ".txnindex"] {
            let path = s.with(suffix);
            let Ok(meta) = fs::symlink_metadata(&path) else {
                continue;
            };
            if suffix == ".log" {
                dropped.log_bytes = dropped.log_bytes.saturating_add(meta.len());
            }
            plan.stamps.push(FileStamp::of(&path));
            plan.steps.push(Step::Quarantine {
                path,
                len: meta.len(),
                why: format!(
                    "segment {} follows the truncated segment {}: the broker's recovery deletes it",
                    s.base, seg.base
                ),
            });
        }
    }
    plan.steps.push(Step::Truncate {
        path: seg.log.clone(),
        from_len: log_len,
        to_len: tail.position,
        why: format!(
            "invalid tail at byte {}: {}; drops {} bytes after offset {}",
            tail.position,
            tail.reason,
            tail.dropped_bytes,
            new_end.saturating_sub(1)
        ),
    });
    let removed: HashSet<i64> = later.iter().map(|s| s.base).collect();
    for (at, snap) in list_snapshots(partition_dir)? {
        if at > new_end || removed.contains(&at) {
            let len = fs::metadata(&snap).map_or(0, |m| m.len());
            plan.stamps.push(FileStamp::of(&snap));
            plan.steps.push(Step::Quarantine {
                path: snap,
                len,
                why: if removed.contains(&at) {
                    format!("producer snapshot of the removed segment {at}")
                } else {
                    format!("producer snapshot above the new log end offset {new_end}")
                },
            });
        }
    }
    if !later.is_empty() {
        plan.notes.push(format!(
            "{}: the broker moves its recovery point and drops leader-epoch entries above the \
             new log end offset {new_end} itself when it loads the partition",
            path_text(partition_dir)
        ));
    }
    Ok(dropped)
}

/// The positions the valid entries of an offset index on disk point at.
fn index_positions(index: Option<&[u8]>, base: i64) -> HashSet<u64> {
    index
        .and_then(|b| OffsetIndex::parse(b, base).ok())
        .map(|i| {
            i.slots()
                .take(i.valid_entries())
                .filter_map(|e| u64::try_from(e.position).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// A segment whose recovery meets non-increasing offsets (`InvalidOffsetException`), as
/// `recoverLog` handles it: `segment.truncateTo(baseOffset)`, the whole `.log` an invalid tail.
fn truncated_to_base(base: i64, log_len: u64, why: &str) -> Recovered {
    let mut empty = Recovered::empty(base);
    empty.tail = Some(InvalidTail {
        position: 0,
        dropped_bytes: log_len,
        reason: why.to_string(),
    });
    empty
}

/// The report's account of a planned truncation.
fn tail_action(
    tail: &InvalidTail,
    rec: &Recovered,
    later: &[SegmentFiles],
    dropped: &Dropped,
) -> String {
    let mut action = format!(
        "truncate to {} bytes (log end offset {})",
        tail.position, rec.next_offset
    );
    if !later.is_empty() {
        action.push_str(&format!(
            "; remove the {} later segment(s) {}: {} bytes of .log in all, offsets {}..{}",
            later.len(),
            dropped
                .segments
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            dropped.log_bytes,
            dropped.from_offset,
            dropped
                .to_offset
                .map_or("?".to_string(), |t| t.saturating_sub(1).to_string())
        ));
    }
    action
}

/// Compare one rebuilt index with the file on disk and plan its write when they differ in a
/// way the broker would not leave (`create_if_empty`: write it even when absent and empty).
fn plan_index_file(
    seg: &SegmentFiles,
    suffix: &str,
    rebuilt: Vec<u8>,
    compare: &dyn Fn(&[u8], &[u8]) -> Comparison,
    create_if_empty: bool,
    plan: &mut ActionPlan,
) -> Result<Comparison, ActionError> {
    let path = seg.with(suffix);
    let existing = read_opt(&path)?;
    plan.stamps.push(FileStamp::of(&path));
    let cmp = match &existing {
        None if rebuilt.is_empty() && !create_if_empty => Comparison::Identical,
        None => Comparison::Missing,
        Some(old) => compare(old, &rebuilt),
    };
    let write = match cmp {
        Comparison::Identical | Comparison::Preallocated { .. } => false,
        Comparison::Missing | Comparison::AppendWritten { .. } | Comparison::Differs { .. } => true,
    };
    if write {
        plan.steps.push(Step::WriteFile {
            path,
            new_len: rebuilt.len() as u64,
            old_len: existing.map(|e| e.len() as u64),
            bytes: rebuilt,
            why: "rebuilt as the broker's recovery does".to_string(),
        });
    }
    Ok(cmp)
}

/// A `.txnindex` has no harmless differences: equal bytes or a count of entries (34 bytes each).
fn compare_txn_index(old: &[u8], new: &[u8]) -> Comparison {
    if old == new {
        Comparison::Identical
    } else {
        Comparison::Differs {
            detail: format!(
                "{} entries on disk, {} rebuilt",
                old.len() / 34,
                new.len() / 34
            ),
        }
    }
}

/// The three rebuilt indexes of one segment, in the order `.index`, `.timeindex`, `.txnindex`.
fn plan_rebuilt_indexes(
    seg: &SegmentFiles,
    rec: &Recovered,
    report: &mut SegmentReport,
    plan: &mut ActionPlan,
) -> Result<(), ActionError> {
    let last_offset = rec.next_offset.saturating_sub(1);
    let segment_last = (rec.batches > 0).then_some(last_offset);
    report.index = Some(plan_index_file(
        seg,
        ".index",
        rec.offset_index_bytes(),
        &|old, new| compare_offset_index(old, new, seg.base, &rec.points, segment_last),
        true,
        plan,
    )?);
    report.timeindex = Some(plan_index_file(
        seg,
        ".timeindex",
        rec.time_index_bytes(),
        &|old, new| compare_time_index(old, new, seg.base, last_offset),
        true,
        plan,
    )?);
    report.txnindex = Some(plan_index_file(
        seg,
        ".txnindex",
        rec.txn_index_bytes(),
        &compare_txn_index,
        false,
        plan,
    )?);
    Ok(())
}

/// Recover one selected segment (feeding `state`) and plan its rebuild; `later` are the
/// segments after it, which a truncated invalid tail removes. The flag says a truncation was
/// planned: the partition ends there.
fn rebuild_segment(
    partition_dir: &Path,
    seg: &SegmentFiles,
    later: &[SegmentFiles],
    sizing: IndexSizing,
    opts: RebuildOptions,
    state: &mut ProducerState,
    plan: &mut ActionPlan,
) -> Result<(SegmentReport, bool), ActionError> {
    let io = |e| ActionError::io(&seg.log, e);
    let mut stream = LogStream::open(&seg.log).map_err(io)?;
    plan.stamps.push(FileStamp::of(&seg.log));
    let on_disk_index = read_opt(&seg.with(".index"))?;
    let wanted = index_positions(on_disk_index.as_deref(), seg.base);
    let rec = recover_stream(&mut stream, seg.base, sizing, state, &wanted).map_err(io)?;
    let log_len = stream.len();
    drop(stream);
    let mut report = SegmentReport {
        log: seg.log.clone(),
        base_offset: seg.base,
        batches: rec.batches,
        index: None,
        timeindex: None,
        txnindex: None,
        invalid_tail: rec.tail.clone(),
        tail_action: None,
        dropped: None,
        fatal: rec.fatal.clone(),
    };
    let whole;
    let rec = match &rec.fatal {
        Some(why) if rec.invalid_offset && opts.truncate_invalid_tail => {
            whole = truncated_to_base(seg.base, log_len, why);
            report.invalid_tail = whole.tail.clone();
            &whole
        }
        Some(_) => return Ok((report, false)),
        None => &rec,
    };
    let mut truncated = false;
    if let Some(tail) = &rec.tail {
        if !opts.truncate_invalid_tail {
            report.tail_action = Some(
                "stopped: nothing rebuilt for this segment (give --truncate-invalid-tail to \
                 truncate it as the broker's recovery would, with every later segment)"
                    .to_string(),
            );
            return Ok((report, false));
        }
        let dropped = plan_truncation(partition_dir, seg, log_len, rec, tail, later, plan)?;
        report.tail_action = Some(tail_action(tail, rec, later, &dropped));
        report.dropped = Some(dropped);
        truncated = true;
    }
    plan_rebuilt_indexes(seg, rec, &mut report, plan)?;
    Ok((report, truncated))
}

/// Plan the rebuild of the selected segments (`only`: base offsets; `None`: all) of one
/// partition dir: steps go into `plan`, one report per segment is returned. Each `.log` is read
/// in chunks ([`LogStream`]), never whole.
pub fn plan_partition(
    partition_dir: &Path,
    only: Option<&[i64]>,
    sizing: IndexSizing,
    opts: RebuildOptions,
    plan: &mut ActionPlan,
) -> Result<Vec<SegmentReport>, ActionError> {
    let segments = list_segments(partition_dir)?;
    let selected = |b: i64| only.is_none_or(|o| o.contains(&b));
    let Some(first) = segments.iter().position(|s| selected(s.base)) else {
        return Ok(Vec::new());
    };
    let first_base = segments.get(first).map_or(0, |s| s.base);
    let (mut state, snapshot_at) = state_before(partition_dir, &segments, first_base)?;
    replay(&segments, &mut state, snapshot_at, first_base)?;
    let mut reports = Vec::new();
    for (k, seg) in segments.iter().enumerate().skip(first) {
        if !selected(seg.base) {
            replay(std::slice::from_ref(seg), &mut state, seg.base, i64::MAX)?;
            continue;
        }
        let later = segments.get(k + 1..).unwrap_or(&[]);
        let (report, truncated) =
            rebuild_segment(partition_dir, seg, later, sizing, opts, &mut state, plan)?;
        reports.push(report);
        if truncated {
            break;
        }
    }
    Ok(reports)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::batch::Record;
    use crate::formats::record::encode::{encode_batch, BatchSpec};

    fn record(offset: i64, timestamp: i64, key: Option<Vec<u8>>, value: Vec<u8>) -> Record {
        Record {
            offset,
            timestamp,
            key,
            value: Some(value),
            headers: Vec::new(),
            control: None,
        }
    }

    /// One-record batches at offsets 0.. with these max timestamps.
    fn log_of(timestamps: &[i64]) -> (Vec<u8>, u64) {
        let mut log = Vec::new();
        let mut size = 0;
        for (i, ts) in timestamps.iter().enumerate() {
            let off = i as i64;
            let b = encode_batch(
                &BatchSpec {
                    base_offset: off,
                    ..BatchSpec::default()
                },
                &[record(off, *ts, None, b"v".to_vec())],
            );
            size = b.len() as u64;
            log.extend(b);
        }
        (log, size)
    }

    fn sizing(interval: u64) -> IndexSizing {
        IndexSizing {
            index_interval_bytes: i32::try_from(interval).unwrap(),
            segment_index_bytes: 10 * 1024 * 1024,
        }
    }

    #[test]
    fn the_interval_is_strictly_greater_and_counts_from_the_last_entry() {
        let (log, size) = log_of(&[1, 2, 3, 4, 5, 6]);
        let rec = recover_segment(&log, 0, sizing(size), &mut ProducerState::default());
        let points: Vec<(i32, i32)> = rec
            .offset_entries
            .iter()
            .map(|e| (e.relative_offset, e.position))
            .collect();
        let s = i32::try_from(size).unwrap();
        // Batch 1 starts exactly `size` bytes in: not more, so no entry; batch 2 does.
        assert_eq!(points, vec![(2, 2 * s), (4, 4 * s)]);
        assert_eq!(rec.time_entries.len(), 3); // 3 (at 2), 5 (at 4), final 6
        assert_eq!(rec.time_entries.last().unwrap().timestamp, 6);
        assert_eq!(rec.next_offset, 6);
        assert!(rec.tail.is_none() && rec.fatal.is_none());
    }

    #[test]
    fn ties_keep_the_earliest_batch_and_equal_timestamps_are_not_appended() {
        let (log, _) = log_of(&[100, 300, 300, 200]);
        let rec = recover_segment(&log, 0, sizing(0), &mut ProducerState::default());
        assert_eq!(rec.offset_entries.len(), 3); // every batch but the first
        let t: Vec<(i64, i32)> = rec
            .time_entries
            .iter()
            .map(|e| (e.timestamp, e.relative_offset))
            .collect();
        assert_eq!(t, vec![(300, 1)]);
        assert_eq!(rec.max_timestamp, (300, 1));
    }

    #[test]
    fn an_invalid_tail_stops_recovery_there() {
        let (mut log, size) = log_of(&[1, 2]);
        log.extend_from_slice(&[0xab; 30]);
        let rec = recover_segment(&log, 0, sizing(4096), &mut ProducerState::default());
        let tail = rec.tail.unwrap();
        assert_eq!(tail.position, 2 * size);
        assert_eq!(tail.dropped_bytes, 30);
        // A flipped byte in the second batch's records: its CRC fails, recovery stops before it.
        let (mut log, size) = log_of(&[1, 2]);
        let last = log.len() - 1;
        log[last] ^= 1;
        let rec = recover_segment(&log, 0, sizing(4096), &mut ProducerState::default());
        assert_eq!(rec.valid_bytes, size);
        assert!(rec.tail.unwrap().reason.to_lowercase().contains("crc"));
    }

    #[test]
    fn an_abort_marker_gives_a_txnindex_entry_with_its_last_stable_offset() {
        let data = |base: i64, pid: i64| {
            encode_batch(
                &BatchSpec {
                    base_offset: base,
                    transactional: true,
                    producer_id: pid,
                    producer_epoch: 0,
                    base_sequence: 0,
                    ..BatchSpec::default()
                },
                &[
                    record(base, 10, None, b"a".to_vec()),
                    record(base + 1, 10, None, b"b".to_vec()),
                ],
            )
        };
        let mut log = data(0, 7);
        log.extend(data(2, 8)); // another producer's transaction stays open
        log.extend(encode_batch(
            &BatchSpec {
                base_offset: 4,
                transactional: true,
                control: true,
                producer_id: 7,
                producer_epoch: 0,
                ..BatchSpec::default()
            },
            &[record(
                4,
                11,
                Some(vec![0, 0, 0, 0]),
                vec![0, 0, 0, 0, 0, 5],
            )],
        ));
        let mut state = ProducerState::default();
        let rec = recover_segment(&log, 0, sizing(4096), &mut state);
        assert_eq!(
            rec.aborted,
            vec![AbortedTxn {
                version: 0,
                producer_id: 7,
                first_offset: 0,
                last_offset: 4,
                last_stable_offset: 2,
            }]
        );
        let p7 = state.producers[&7];
        assert_eq!((p7.current_txn_first_offset, p7.coordinator_epoch), (-1, 5));
        assert_eq!(state.producers[&8].current_txn_first_offset, 2);
        assert_eq!(state.ongoing.len(), 1);
    }

    #[test]
    fn offsets_that_do_not_increase_truncate_the_whole_segment_with_the_flag_only() {
        let dir = tempfile::tempdir().unwrap();
        let (mut log, _) = log_of(&[1, 2, 3]); // offsets 0, 1, 2
        log.extend(encode_batch(
            &BatchSpec {
                base_offset: 1,
                ..BatchSpec::default()
            },
            &[record(1, 4, None, b"v".to_vec())],
        ));
        fs::write(dir.path().join("00000000000000000000.log"), &log).unwrap();
        let later = encode_batch(
            &BatchSpec {
                base_offset: 10,
                ..BatchSpec::default()
            },
            &[record(10, 5, None, b"w".to_vec())],
        );
        fs::write(dir.path().join("00000000000000000010.log"), &later).unwrap();
        let run = |truncate: bool| {
            let mut plan = ActionPlan::default();
            let opts = RebuildOptions {
                truncate_invalid_tail: truncate,
            };
            let reports = plan_partition(dir.path(), None, sizing(0), opts, &mut plan).unwrap();
            (reports, plan)
        };
        let (reports, plan) = run(false);
        assert!(reports[0]
            .fatal
            .as_deref()
            .unwrap()
            .contains("InvalidOffsetException"));
        assert!(reports[0].tail_action.is_none() && reports[0].index.is_none());
        assert_eq!(reports.len(), 2); // the later segment is rebuilt as usual
        assert!(!plan
            .steps
            .iter()
            .any(|s| matches!(s, Step::Truncate { .. } | Step::Quarantine { .. })));

        let (reports, plan) = run(true);
        assert_eq!(reports.len(), 1);
        let d = reports[0].dropped.as_ref().unwrap();
        assert_eq!(
            (d.segments.clone(), d.from_offset, d.to_offset),
            (vec![10], 0, Some(11))
        );
        assert_eq!(d.log_bytes, (log.len() + later.len()) as u64);
        let kinds: Vec<(&str, String)> = plan
            .steps
            .iter()
            .map(|s| {
                (
                    s.kind(),
                    s.path().file_name().unwrap().to_string_lossy().into_owned(),
                )
            })
            .collect();
        assert_eq!(
            kinds[0],
            ("quarantine", "00000000000000000010.log".to_string())
        );
        assert!(plan
            .steps
            .iter()
            .any(|s| matches!(s, Step::Truncate { to_len: 0, .. })));
        // The segment's indexes are rebuilt empty, as truncateTo(baseOffset) leaves them.
        assert!(plan
            .steps
            .iter()
            .any(|s| matches!(s, Step::WriteFile { path, new_len: 0, .. }
            if path.ends_with("00000000000000000000.index"))));
    }
}
