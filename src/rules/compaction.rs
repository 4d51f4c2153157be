//! What the log cleaner would clean next, and how much work a backlog is.
//!
//! Kafka: `LogCleanerManager.java` (`grabFilthiestCompactedLog`, `cleanableOffsets`,
//! `calculateCleanableBytes`, `findFirstUncleanableSegment`, `maxCompactionDelay`),
//! `LogToClean.java` (clean/cleanable/total bytes, ratio), `LogSegments.values(from, to)` (from
//! the floor segment of `from`), `SkimpyOffsetMap` (slots = memory / (digest + 8)),
//! `Cleaner.buildOffsetMapForSegment` (stops at slots × load factor), `CleanerConfig`
//! (`HASH_ALGORITHM = "MD5"`), `LogCleaner.CleanerThread` (memory per thread),
//! `Cleaner.doClean` (legacy tombstone horizon), `MemoryRecords.filterTo` (keyless records
//! dropped, delete horizon), `Cleaner.groupSegmentsBySize` / `lastOffsetForFirstSegment`
//! (which segments one pass merges), `Cleaner.cleanSegments` / `cleanInto` (the cleaned
//! segment's max timestamp is that of the batches it keeps; mtime of the group's last
//! segment; which emptied batch it keeps: [`empty_batch_bound`], KAFKA-20452 in 4.4). Spec
//! §D1–D5, D7; Errata 3 (MD5, 24 B/entry), 13, 19 (ties).
//!
//! The `max.compaction.lag.ms` anchor is each dirty segment's first-batch max timestamp; before
//! KAFKA-806 (3.9.1, 4.0.1, 4.1.0) a segment written since the broker started used its first
//! append's max timestamp instead (Errata 1); [`SegmentFacts::first_batch_max_timestamp`] is
//! what the caller knows.

use std::ops::Range;

use crate::config::{BrokerCleanupConfig, CleanupPolicy, LogConfig};
use crate::model::units::{Bytes, DurationMs, Offset, TimestampMs};

use super::facts::SegmentFacts;
use super::retention::LogState;
use super::KafkaVersion;

/// Bytes per offset-map entry: MD5 digest (16) + offset (8), Errata 3.
pub const OFFSET_MAP_BYTES_PER_ENTRY: u64 = 24;

/// Everything candidate selection reads for one compacted log.
#[derive(Debug, Clone)]
pub struct CompactionInput<'a> {
    /// Local segments, oldest first; the last is the active segment.
    pub segments: &'a [SegmentFacts],
    /// The log start offset.
    pub log_start_offset: Offset,
    /// The log end offset.
    pub log_end_offset: Offset,
    /// The last stable offset (≤ HW; the first offset of the oldest open transaction if any).
    pub last_stable_offset: Offset,
    /// The partition's `cleaner-offset-checkpoint` entry.
    pub checkpoint: Option<Offset>,
    /// The topic's config.
    pub config: &'a LogConfig,
    /// The cleaner thread's clock.
    pub now: TimestampMs,
}

/// Where the first dirty offset came from, and what the broker logs and writes then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstDirtySource {
    /// The checkpoint entry, in range.
    Checkpoint,
    /// No entry: the log start offset (no warning, no rewrite).
    NoCheckpoint,
    /// The entry is below the log start: reset to it and the checkpoint rewritten.
    ResetBelowLogStart {
        /// The entry.
        checkpoint: Offset,
        /// Whether the broker WARNs (not for `compact,delete`, where this is normal).
        warns: bool,
    },
    /// The entry is above the LEO (data lost at the end): reset to the log start, checkpoint
    /// rewritten, WARN.
    ResetAboveLogEnd {
        /// The entry.
        checkpoint: Offset,
    },
}

impl FirstDirtySource {
    /// Whether the broker rewrites `cleaner-offset-checkpoint` for this log.
    pub fn rewrites_checkpoint(&self) -> bool {
        matches!(
            self,
            FirstDirtySource::ResetBelowLogStart { .. } | FirstDirtySource::ResetAboveLogEnd { .. }
        )
    }

    /// The WARN line the broker logs, as its format string.
    pub fn broker_warning(&self) -> Option<&'static str> {
        match self {
            FirstDirtySource::ResetBelowLogStart { warns: true, .. } => Some(
                "Resetting first dirty offset of {} to log start offset {} since the \
                 checkpointed offset {} is invalid.",
            ),
            FirstDirtySource::ResetAboveLogEnd { .. } => Some(
                "The last checkpoint dirty offset for partition {} is {}, which is larger than \
                 the log end offset {}. Resetting to the log start offset {}.",
            ),
            _ => None,
        }
    }
}

/// The first dirty offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FirstDirty {
    /// The offset.
    pub offset: Offset,
    /// Where it came from.
    pub source: FirstDirtySource,
}

/// `cleanableOffsets`, first half: the checkpoint entry, reset when out of range.
pub fn first_dirty_offset(
    checkpoint: Option<Offset>,
    log_start: Offset,
    log_end: Offset,
    policy: CleanupPolicy,
) -> FirstDirty {
    let (offset, source) = match checkpoint {
        None => (log_start, FirstDirtySource::NoCheckpoint),
        Some(c) if c < log_start => (
            log_start,
            FirstDirtySource::ResetBelowLogStart {
                checkpoint: c,
                warns: !(policy.compact && policy.delete),
            },
        ),
        Some(c) if c > log_end => (
            log_start,
            FirstDirtySource::ResetAboveLogEnd { checkpoint: c },
        ),
        Some(c) => (c, FirstDirtySource::Checkpoint),
    };
    FirstDirty { offset, source }
}

/// The `cleaner-offset-checkpoint` entry once the cleaner's pass (when it runs: `written`, its
/// end) and the retention pass after it (log start `log_start_after`) are done: the next
/// `grabFilthiestCompactedLog` computes `cleanableOffsets` for every candidate log and, when the
/// entry fell below the log start or sits above the LEO, rewrites it to the log start
/// (`forceUpdateCheckpoint`, LogCleanerManager 4.4). No entry stays no entry.
pub fn checkpoint_after_passes(
    entry: Option<Offset>,
    written: Option<Offset>,
    log_start_after: Offset,
    log_end: Offset,
    policy: CleanupPolicy,
) -> Option<Offset> {
    let c = written.or(entry)?;
    Some(first_dirty_offset(Some(c), log_start_after, log_end, policy).offset)
}

/// `UnifiedLog.lastStableOffset`: the first unstable offset (the first offset of the oldest
/// open transaction, from the producer state) capped at the HW, else the HW.
pub fn last_stable_offset(high_watermark: Offset, first_unstable_offset: Option<Offset>) -> Offset {
    first_unstable_offset.map_or(high_watermark, |u| u.min(high_watermark))
}

/// What bounds the cleanable range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UncleanableBound {
    /// The last stable offset (open transactions, or the HW).
    LastStableOffset,
    /// The active segment's base (the active segment is never cleaned).
    ActiveSegment,
    /// A segment newer than `min.compaction.lag.ms` by its largest timestamp (mtime fallback;
    /// future timestamps block).
    MinCompactionLag {
        /// The segment's base.
        segment_base: Offset,
        /// Its largest timestamp.
        largest_timestamp: TimestampMs,
    },
    /// The first dirty offset is already past the other bounds.
    FirstDirty,
}

/// The cleanable range of a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CleanableRange {
    /// The first dirty offset.
    pub first_dirty: FirstDirty,
    /// max(first dirty, min(LSO, active base, min-lag segment)).
    pub first_uncleanable_dirty: Offset,
    /// Which bound set it.
    pub bound: UncleanableBound,
    /// The base of the segment holding `first_uncleanable_dirty`, or the active base: the
    /// cleanable range always ends on a segment boundary.
    pub first_uncleanable_offset: Offset,
}

/// Index of the floor segment of `offset` (last base ≤ offset).
fn floor_index(segments: &[SegmentFacts], offset: Offset) -> Option<usize> {
    segments.iter().rposition(|s| s.base_offset <= offset)
}

/// `LogSegments.values(from, to)`: from the floor segment of `from` (or the first) while the
/// base is below `to`; empty when `from == to`.
fn segments_between(segments: &[SegmentFacts], from: Offset, to: Offset) -> &[SegmentFacts] {
    if from >= to {
        return &[];
    }
    let start = floor_index(segments, from).unwrap_or(0);
    let rest = segments.get(start..).unwrap_or(&[]);
    let len = rest.iter().take_while(|s| s.base_offset < to).count();
    rest.get(..len).unwrap_or(&[])
}

/// `nonActiveLogSegmentsFrom(from)`: empty when `from` is past the active base.
fn non_active_from(segments: &[SegmentFacts], from: Offset) -> &[SegmentFacts] {
    match segments.last() {
        Some(active) if from <= active.base_offset => {
            segments_between(segments, from, active.base_offset)
        }
        _ => &[],
    }
}

fn active_base(input: &CompactionInput<'_>) -> Offset {
    input
        .segments
        .last()
        .map_or(input.log_end_offset, |s| s.base_offset)
}

/// `cleanableOffsets` and the boundary half of `calculateCleanableBytes`.
pub fn cleanable_range(input: &CompactionInput<'_>) -> CleanableRange {
    let first_dirty = first_dirty_offset(
        input.checkpoint,
        input.log_start_offset,
        input.log_end_offset,
        input.config.cleanup_policy,
    );
    let fd = first_dirty.offset;
    let active = active_base(input);
    let mut bound = (input.last_stable_offset, UncleanableBound::LastStableOffset);
    if active < bound.0 {
        bound = (active, UncleanableBound::ActiveSegment);
    }
    let min_lag = input.config.min_compaction_lag_ms.max(0);
    if min_lag > 0 {
        let horizon = input.now - DurationMs(min_lag);
        let young = non_active_from(input.segments, fd)
            .iter()
            .find(|s| s.largest_timestamp().0 > horizon);
        if let Some(s) = young.filter(|s| s.base_offset < bound.0) {
            bound = (
                s.base_offset,
                UncleanableBound::MinCompactionLag {
                    segment_base: s.base_offset,
                    largest_timestamp: s.largest_timestamp().0,
                },
            );
        }
    }
    if fd > bound.0 {
        bound = (fd, UncleanableBound::FirstDirty);
    }
    let first_uncleanable_offset = non_active_from(input.segments, bound.0)
        .first()
        .map_or(active, |s| s.base_offset);
    CleanableRange {
        first_dirty,
        first_uncleanable_dirty: bound.0,
        bound: bound.1,
        first_uncleanable_offset,
    }
}

/// Where a cleaning pass ends, i.e. the `cleaner-offset-checkpoint` it writes (spec §D3.2,
/// Errata 13): the first uncleanable offset when the offset map did not fill, else one past the
/// map's latest offset (the last offset put, or the last offset of the last fully processed
/// batch, control and aborted batches included), which can fall mid-segment or mid-batch.
pub fn pass_end_offset(range: &CleanableRange, map_full_at: Option<Offset>) -> Offset {
    map_full_at.map_or(range.first_uncleanable_offset, Offset::next)
}

/// The cleaner's byte accounting for one log (`LogToClean`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DirtyStats {
    /// Σ size of segments with base < first dirty.
    pub clean_bytes: Bytes,
    /// Σ size of segments from floor(min(first dirty, first uncleanable)) up to the first
    /// uncleanable offset.
    pub cleanable_bytes: Bytes,
    /// clean + cleanable.
    pub total_bytes: Bytes,
    /// cleanable / total (0 when total is 0).
    pub ratio: f64,
    /// The segment counted in both clean and cleanable bytes, when the first dirty offset
    /// falls inside it (spec §D1 quirk).
    pub counted_twice: Option<Offset>,
    /// `maxCompactionDelay`: how far past `max.compaction.lag.ms` the oldest dirty first batch
    /// is (0: not due).
    pub max_compaction_delay: DurationMs,
}

impl DirtyStats {
    /// `needCompactionNow`.
    pub fn need_compaction_now(&self) -> bool {
        self.max_compaction_delay > DurationMs(0)
    }
}

fn sum(segments: &[SegmentFacts]) -> Bytes {
    segments.iter().map(|s| s.size).sum()
}

/// `LogToClean`'s byte accounting and `maxCompactionDelay`.
pub fn dirty_stats(input: &CompactionInput<'_>, range: &CleanableRange) -> DirtyStats {
    let fd = range.first_dirty.offset;
    let fuo = range.first_uncleanable_offset;
    let clean: Vec<SegmentFacts> = input
        .segments
        .iter()
        .filter(|s| s.base_offset < fd)
        .copied()
        .collect();
    let cleanable = segments_between(input.segments, fd.min(fuo), fuo);
    let clean_bytes = sum(&clean);
    let cleanable_bytes = sum(cleanable);
    let total_bytes = clean_bytes.plus(cleanable_bytes);
    let ratio = if total_bytes == Bytes(0) {
        0.0
    } else {
        cleanable_bytes.get() as f64 / total_bytes.get() as f64
    };
    let counted_twice = cleanable
        .first()
        .filter(|s| s.base_offset < fd)
        .map(|s| s.base_offset);
    let earliest = non_active_from(input.segments, fd)
        .iter()
        .map(|s| s.first_batch_max_timestamp)
        .filter(|t| t.get() > 0)
        .min();
    let clean_until = input.now - DurationMs(input.config.max_compaction_lag_ms.max(0));
    let max_compaction_delay = match earliest {
        Some(t) if t < clean_until => clean_until - t,
        _ => DurationMs(0),
    };
    DirtyStats {
        clean_bytes,
        cleanable_bytes,
        total_bytes,
        ratio,
        counted_twice,
        max_compaction_delay,
    }
}

/// Why a log is (not) a cleaning candidate this iteration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Eligibility {
    /// Dropped: total bytes 0.
    EmptyLog,
    /// The ratio is above `min.cleanable.dirty.ratio` (strict).
    RatioAbove {
        /// The ratio.
        ratio: f64,
        /// The threshold.
        min_ratio: f64,
    },
    /// `max.compaction.lag.ms` is due and something is cleanable (eligibility, not priority).
    MaxCompactionLagDue {
        /// How far past due.
        delay: DurationMs,
    },
    /// Not eligible: the ratio is at or below the threshold and no deadline is due (or it is
    /// due with nothing cleanable).
    NotEligible {
        /// The ratio.
        ratio: f64,
        /// The threshold.
        min_ratio: f64,
        /// Whether the max-lag deadline is due (with nothing cleanable).
        lag_due: bool,
    },
}

impl Eligibility {
    /// Whether the cleaner may pick the log.
    pub fn is_eligible(&self) -> bool {
        matches!(
            self,
            Eligibility::RatioAbove { .. } | Eligibility::MaxCompactionLagDue { .. }
        )
    }
}

/// `grabFilthiestCompactedLog`'s filters (spec §D1 steps 4–5).
pub fn eligibility(stats: &DirtyStats, config: &LogConfig) -> Eligibility {
    let min_ratio = config.min_cleanable_dirty_ratio;
    if stats.total_bytes == Bytes(0) {
        Eligibility::EmptyLog
    } else if stats.ratio > min_ratio {
        Eligibility::RatioAbove {
            ratio: stats.ratio,
            min_ratio,
        }
    } else if stats.need_compaction_now() && stats.cleanable_bytes > Bytes(0) {
        Eligibility::MaxCompactionLagDue {
            delay: stats.max_compaction_delay,
        }
    } else {
        Eligibility::NotEligible {
            ratio: stats.ratio,
            min_ratio,
            lag_due: stats.need_compaction_now(),
        }
    }
}

/// One log as the cleaner sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogToClean {
    /// The cleanable range.
    pub range: CleanableRange,
    /// The byte accounting.
    pub stats: DirtyStats,
    /// Whether it may be picked.
    pub eligibility: Eligibility,
}

/// The cleaner's view of one compacted log.
pub fn log_to_clean(input: &CompactionInput<'_>) -> LogToClean {
    let range = cleanable_range(input);
    let stats = dirty_stats(input, &range);
    LogToClean {
        range,
        stats,
        eligibility: eligibility(&stats, input.config),
    }
}

/// Whether the cleaner considers a log at all: compacted, not paused or in progress, not
/// uncleanable (spec §D1 step 2, §D7).
pub fn is_cleaner_candidate(policy: CleanupPolicy, state: LogState) -> bool {
    policy.compact && !state.paused && !state.uncleanable
}

/// The cleaner's choice among candidates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CleanerPick<Id> {
    /// No candidate is eligible: the thread sleeps `log.cleaner.backoff.ms`.
    Nothing,
    /// The eligible log with the highest ratio.
    Log(Id),
    /// Several eligible logs share the highest ratio: the broker takes the first in its
    /// hash-ordered map, which cannot be predicted from disk (Errata 19).
    OrderUnknown(Vec<Id>),
}

/// `grabFilthiestCompactedLog`: the eligible log with the highest ratio.
pub fn pick_filthiest<Id: Clone>(logs: &[(Id, LogToClean)]) -> CleanerPick<Id> {
    let eligible: Vec<&(Id, LogToClean)> = logs
        .iter()
        .filter(|(_, l)| l.eligibility.is_eligible())
        .collect();
    let Some(best) = eligible.iter().map(|(_, l)| l.stats.ratio).reduce(f64::max) else {
        return CleanerPick::Nothing;
    };
    let top: Vec<Id> = eligible
        .iter()
        .filter(|(_, l)| l.stats.ratio == best)
        .map(|(id, _)| id.clone())
        .collect();
    if top.len() > 1 {
        CleanerPick::OrderUnknown(top)
    } else {
        top.into_iter()
            .next()
            .map_or(CleanerPick::Nothing, CleanerPick::Log)
    }
}

/// The offset map of one cleaner thread (spec §D2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffsetMapCapacity {
    /// min(`log.cleaner.dedupe.buffer.size` / threads, 2³¹ − 1).
    pub memory_per_thread: u64,
    /// Whether the 2 GiB cap applied (the broker WARNs).
    pub capped: bool,
    /// memory / 24.
    pub slots: u64,
    /// slots × `log.cleaner.io.buffer.load.factor`: distinct keys one pass can map.
    pub keys_per_pass: u64,
}

/// The offset map capacity; `None` without cleaner threads.
pub fn offset_map_capacity(broker: &BrokerCleanupConfig) -> Option<OffsetMapCapacity> {
    let threads = i64::from(broker.log_cleaner_threads);
    if threads <= 0 {
        return None;
    }
    let per_thread = broker.log_cleaner_dedupe_buffer_size.max(0) / threads;
    let cap = i64::from(i32::MAX);
    let memory = u64::try_from(per_thread.min(cap)).unwrap_or(0);
    let slots = memory / OFFSET_MAP_BYTES_PER_ENTRY;
    // Java: (int) (slots * loadFactor), truncating.
    let keys = (slots as f64 * broker.log_cleaner_io_buffer_load_factor) as u64;
    Some(OffsetMapCapacity {
        memory_per_thread: memory,
        capped: per_thread > cap,
        slots,
        keys_per_pass: keys,
    })
}

/// Passes needed for a dirty section with `distinct_keys` keys (spec §D5: ceil(U / K),
/// ignoring mid-batch cuts). `None` when a pass maps no key.
pub fn passes_needed(distinct_keys: u64, keys_per_pass: u64) -> Option<u64> {
    if keys_per_pass == 0 {
        return None;
    }
    Some(distinct_keys.div_ceil(keys_per_pass))
}

/// `log.cleaner.dedupe.buffer.size` that lets one pass map `keys` distinct keys with the
/// broker's threads and load factor (the inverse of [`offset_map_capacity`]):
/// ceil(keys / load factor) slots × 24 B × threads. `None` without threads or load factor.
pub fn dedupe_buffer_for_keys(keys: u64, broker: &BrokerCleanupConfig) -> Option<u64> {
    let threads = u64::try_from(broker.log_cleaner_threads)
        .ok()
        .filter(|t| *t > 0)?;
    let factor = broker.log_cleaner_io_buffer_load_factor;
    if !(factor > 0.0 && factor.is_finite()) {
        return None;
    }
    let slots = (keys as f64 / factor).ceil() as u64;
    slots
        .checked_mul(OFFSET_MAP_BYTES_PER_ENTRY)?
        .checked_mul(threads)
}

/// The least I/O one cleaning pass of a log does (spec §D5): the map phase reads the cleanable
/// bytes, the copy phase reads every segment from the log start to the pass end (clean and
/// cleanable bytes). Bytes written and further passes come on top, so this is a lower bound.
pub fn pass_io_at_least(stats: &DirtyStats) -> Bytes {
    stats.cleanable_bytes.plus(stats.total_bytes)
}

/// How fast the cleaner threads move bytes (read + written), in bytes per second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CleanerThroughput {
    /// What one thread moves when nothing throttles it.
    pub per_thread: f64,
    /// `log.cleaner.io.max.bytes.per.second`: one throttler shared by all threads; `None`
    /// when unlimited (the default, `Double.MAX_VALUE`).
    pub shared_limit: Option<f64>,
}

impl CleanerThroughput {
    /// Bytes per second of `threads` threads together.
    pub fn of_threads(&self, threads: u64) -> f64 {
        let all = self.per_thread * threads as f64;
        self.shared_limit.map_or(all, |l| all.min(l))
    }
}

/// The least time `threads` cleaner threads need to do `work` (bytes per log): a log is
/// cleaned by one thread at a time, so the time is at least the largest log's work at one
/// thread's rate, and at least the total at all threads' rate. `None` without threads, work or
/// a positive rate.
pub fn clear_time_at_least(
    work: &[Bytes],
    threads: u64,
    rate: CleanerThroughput,
) -> Option<DurationMs> {
    let largest = work.iter().copied().max()?.get() as f64;
    let total: f64 = work.iter().map(|b| b.get() as f64).sum();
    let (one, all) = (rate.of_threads(1), rate.of_threads(threads));
    if threads == 0 || !(one > 0.0 && one.is_finite()) || !(all > 0.0 && all.is_finite()) {
        return None;
    }
    let secs = (largest / one).max(total / all);
    Some(DurationMs(
        (secs * 1000.0).ceil().min(i64::MAX as f64) as i64
    ))
}

/// Dirty bytes above which the ratio passes `min_ratio` for `clean` bytes (spec §D5):
/// clean × r / (1 − r). `None` for r ≥ 1 (never by ratio).
pub fn dirty_bytes_to_trigger(clean: Bytes, min_ratio: f64) -> Option<Bytes> {
    if !(0.0..1.0).contains(&min_ratio) {
        return None;
    }
    let dirty = clean.get() as f64 * min_ratio / (1.0 - min_ratio);
    Some(Bytes(dirty as u64))
}

/// A log's dirty section that passes the cleaner's ratio trigger while a blocker keeps the
/// cleaner from it: compaction is due and does not run ([`due_while_blocked`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DueWhileBlocked {
    /// Bytes of the dirty, non-active segments the cleaner cannot take.
    pub stuck: Bytes,
    /// How many segments they are.
    pub segments: u64,
    /// The dirty bytes that trigger the cleaner ([`dirty_bytes_to_trigger`]).
    pub trigger: Bytes,
}

/// Whether a blocked log is due for compaction: its dirty, non-active segments (of `segments`,
/// `(base offset, size)` in offset order, the active one last) pass the ratio trigger for
/// `clean` bytes at `min_ratio` (spec §D5). Where they start: when a cleaner thread runs it
/// stops at `first_uncleanable`; when none runs (`cleaner_runs` false: disabled, or the log is
/// paused) the whole dirty section waits, from the segment holding `first_dirty`.
pub fn due_while_blocked(
    segments: &[(Offset, Bytes)],
    first_dirty: Offset,
    first_uncleanable: Offset,
    cleaner_runs: bool,
    clean: Bytes,
    min_ratio: f64,
) -> Option<DueWhileBlocked> {
    let from = if cleaner_runs {
        first_uncleanable
    } else {
        (segments.iter())
            .rfind(|(base, _)| *base <= first_dirty)
            .map_or(Offset(0), |(base, _)| *base)
    };
    let active = segments.len().saturating_sub(1);
    let (stuck, n) = (segments.iter().take(active))
        .filter(|(base, _)| *base >= from)
        .fold((Bytes(0), 0), |(b, n), (_, size)| (b.plus(*size), n + 1));
    let trigger = dirty_bytes_to_trigger(clean, min_ratio)?;
    (n > 0 && stuck > trigger).then_some(DueWhileBlocked {
        stuck,
        segments: n,
        trigger,
    })
}

/// The delete horizon a pass at `pass_at` stamps on a batch with tombstones or an emptied
/// transaction's marker (v2, 3.1+): `pass_at + delete.retention.ms`.
pub fn delete_horizon(pass_at: TimestampMs, config: &LogConfig) -> TimestampMs {
    pass_at + DurationMs(config.delete_retention_ms)
}

/// What a cleaning pass does with a v2 tombstone (or a discardable marker).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TombstoneFate {
    /// No horizon yet: kept and stamped with this horizon.
    Stamped(TimestampMs),
    /// Horizon not reached: kept.
    Kept,
    /// Horizon reached: dropped.
    Dropped,
}

/// A tombstone's fate in a pass at `pass_at`, given the horizon its batch carries. Nothing
/// triggers a pass because a horizon expired (spec §D4).
pub fn tombstone_fate(
    horizon: Option<TimestampMs>,
    pass_at: TimestampMs,
    config: &LogConfig,
) -> TombstoneFate {
    match horizon {
        None => TombstoneFate::Stamped(delete_horizon(pass_at, config)),
        Some(h) if pass_at < h => TombstoneFate::Kept,
        Some(_) => TombstoneFate::Dropped,
    }
}

/// The legacy (v0/v1) tombstone horizon of a pass: the mtime of the last segment below the
/// first dirty offset minus `delete.retention.ms`, or 0 (spec §D3.1).
pub fn legacy_tombstone_horizon(
    segments: &[SegmentFacts],
    first_dirty: Offset,
    config: &LogConfig,
) -> TimestampMs {
    segments
        .iter()
        .rfind(|s| s.base_offset < first_dirty)
        .map_or(TimestampMs(0), |s| {
            s.log_mtime - DurationMs(config.delete_retention_ms)
        })
}

/// Records lost when the policy changes from `from` to `to`: the cleaner drops every keyless
/// record in the ranges it cleans (`MemoryRecords.filterTo`), so turning `compact` on loses
/// all `keyless_records` already written (those in the active segment after it rolls). The
/// leader rejects new keyless records on compacted topics.
pub fn keyless_records_lost(from: CleanupPolicy, to: CleanupPolicy, keyless_records: u64) -> u64 {
    if to.compact && !from.compact {
        keyless_records
    } else {
        0
    }
}

/// What `Cleaner.groupSegmentsBySize` reads of one segment besides its offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CleanerSegmentFacts {
    /// The base offset.
    pub base_offset: Offset,
    /// `.log` bytes (`LogSegment.size()`).
    pub size: Bytes,
    /// `offsetIndex().sizeInBytes()`: used entries × 8 (an inactive index file's length
    /// rounded down to whole entries).
    pub offset_index_bytes: Bytes,
    /// `timeIndex().sizeInBytes()`: used entries × 12.
    pub time_index_bytes: Bytes,
    /// The max timestamp of the segment's last batch ([`TimestampMs::NONE`] if unknown).
    pub last_batch_max_timestamp: TimestampMs,
}

/// `Cleaner.groupSegmentsBySize`: consecutive segments merged into one cleaned segment, as
/// ranges of indices into `segments` (oldest first, together covering all of them). A group
/// starts with one segment (whatever its size) and takes the next while the log bytes stay ≤
/// `max_size` (`segment.bytes`), the offset-index bytes and the time-index bytes each stay ≤
/// `max_index_size` (`segment.index.bytes`), and, unless the next segment is empty, its
/// estimated last offset (the following segment's base − 1, for the last one
/// `first_uncleanable_offset` − 1) minus the group's base fits in an `int`. Sizes are the
/// pre-cleaning ones.
pub fn group_segments_by_size(
    segments: &[CleanerSegmentFacts],
    max_size: i64,
    max_index_size: i64,
    first_uncleanable_offset: Offset,
) -> Vec<Range<usize>> {
    let bytes = |b: Bytes| i64::try_from(b.get()).unwrap_or(i64::MAX);
    let mut groups = Vec::new();
    let mut start = 0;
    while let Some(first) = segments.get(start) {
        let (mut log, mut index, mut time_index) = (
            bytes(first.size),
            bytes(first.offset_index_bytes),
            bytes(first.time_index_bytes),
        );
        let mut end = start + 1;
        while let Some(next) = segments.get(end) {
            // lastOffsetForFirstSegment(remaining, firstUncleanableOffset)
            let last_offset = segments
                .get(end + 1)
                .map_or(first_uncleanable_offset, |s| s.base_offset)
                .get()
                .saturating_sub(1);
            let fits = log.saturating_add(bytes(next.size)) <= max_size
                && index.saturating_add(bytes(next.offset_index_bytes)) <= max_index_size
                && time_index.saturating_add(bytes(next.time_index_bytes)) <= max_index_size
                && (next.size == Bytes(0)
                    || last_offset.saturating_sub(first.base_offset.get()) <= i64::from(i32::MAX));
            if !fits {
                break;
            }
            log = log.saturating_add(bytes(next.size));
            index = index.saturating_add(bytes(next.offset_index_bytes));
            time_index = time_index.saturating_add(bytes(next.time_index_bytes));
            end += 1;
        }
        groups.push(start..end);
        start = end;
    }
    groups
}

/// One segment of the log after a cleaning pass: the input segments it replaces and the
/// facts retention then reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CleanedSegment {
    /// Indices of the segments it replaces (one for a segment the pass does not touch).
    pub members: Range<usize>,
    /// Its facts: the first member's base, the last member's next offset and mtime, the
    /// members' summed sizes (an upper bound), and as max timestamp the members' largest
    /// record timestamp.
    pub facts: SegmentFacts,
    /// Whether `facts.max_timestamp` is exact. The cleaned segment's max timestamp is that of
    /// the batches it keeps, so the members' max is an upper bound; it is exact when no
    /// member has a record timestamp (mtime fallback), or when it is the max timestamp of the
    /// pass's last batch and that batch is kept even emptied (header and max timestamp intact):
    /// its next offset is the first uncleanable offset (3.6–4.3) or the high watermark (4.4),
    /// see [`empty_batch_bound`].
    pub largest_timestamp_exact: bool,
    /// Whether a pass rewrites it (its base is below the pass's end).
    pub cleaned: bool,
}

/// Where the batch the cleaner keeps even when it empties it must end
/// (`Cleaner.cleanInto`'s `BatchRetention.RETAIN_EMPTY` for a batch without an active
/// producer's last record): its next offset equals this bound, so the last offset is not lost.
///
/// - 3.6–4.3: the cleaning round's upper bound, `cleanable.firstUncleanableOffset`
///   (`Cleaner.doClean` passes it as `upperBoundOffsetOfCleaningRound`; 3.9 `LogCleaner.scala`,
///   4.3 `Cleaner.java`).
/// - 4.4: the high watermark (KAFKA-20452, commit 7480345230, `cleanInto(…, log.highWatermark(),
///   …)`): a round that ends below the HW drops its last batch once every record in it is gone.
pub fn empty_batch_bound(
    version: KafkaVersion,
    first_uncleanable_offset: Offset,
    high_watermark: Offset,
) -> Offset {
    if version.at_least(KafkaVersion::V4_4) {
        high_watermark
    } else {
        first_uncleanable_offset
    }
}

/// The log after one cleaning pass ending at `end_offset` (`Cleaner.doClean`): every segment
/// with base < `end_offset`, from the start of the log (the clean section is rewritten too),
/// grouped by [`group_segments_by_size`] with `config`'s `segment.bytes` and
/// `segment.index.bytes`; the later segments unchanged. `cleaner` is parallel to `segments`.
/// `high_watermark` and `version` decide which batch survives emptied ([`empty_batch_bound`]).
pub fn cleaned_layout(
    segments: &[SegmentFacts],
    cleaner: &[CleanerSegmentFacts],
    end_offset: Offset,
    first_uncleanable_offset: Offset,
    high_watermark: Offset,
    version: KafkaVersion,
    config: &LogConfig,
) -> Vec<CleanedSegment> {
    let keep_empty = empty_batch_bound(version, first_uncleanable_offset, high_watermark);
    let n = segments
        .iter()
        .take_while(|s| s.base_offset < end_offset)
        .count()
        .min(cleaner.len());
    let grouped = group_segments_by_size(
        cleaner.get(..n).unwrap_or(&[]),
        i64::from(config.segment_bytes),
        i64::from(config.segment_index_bytes),
        first_uncleanable_offset,
    );
    let mut out: Vec<CleanedSegment> = grouped
        .into_iter()
        .filter_map(|g| {
            let members = segments.get(g.clone())?;
            let (first, last) = (members.first()?, members.last()?);
            let max_timestamp = members
                .iter()
                .map(|s| s.max_timestamp)
                .filter(|t| t.is_set())
                .max()
                .unwrap_or(TimestampMs::NONE);
            // The pass's last batch ends at the first uncleanable offset when the map did not
            // fill; it is kept (even emptied) when that is where the release's bound lies, so
            // its max timestamp survives.
            let last_batch_kept = end_offset == first_uncleanable_offset
                && last.next_offset == first_uncleanable_offset
                && last.next_offset == keep_empty
                && cleaner
                    .get(g.end - 1)
                    .is_some_and(|c| c.last_batch_max_timestamp == max_timestamp);
            let exact = !max_timestamp.is_set() || last_batch_kept;
            let source = members
                .iter()
                .find(|s| s.max_timestamp == max_timestamp)
                .map_or(first.max_timestamp_source, |s| s.max_timestamp_source);
            Some(CleanedSegment {
                facts: SegmentFacts {
                    base_offset: first.base_offset,
                    next_offset: last.next_offset,
                    size: members.iter().map(|s| s.size).sum(),
                    max_timestamp,
                    max_timestamp_source: source,
                    log_mtime: last.log_mtime,
                    first_batch_max_timestamp: first.first_batch_max_timestamp,
                },
                members: g,
                largest_timestamp_exact: exact,
                cleaned: true,
            })
        })
        .collect();
    let done = out.last().map_or(0, |c| c.members.end);
    out.extend(
        segments
            .iter()
            .enumerate()
            .skip(done)
            .map(|(i, s)| CleanedSegment {
                members: i..i + 1,
                facts: *s,
                largest_timestamp_exact: true,
                cleaned: false,
            }),
    );
    out
}

#[cfg(test)]
mod tests;
