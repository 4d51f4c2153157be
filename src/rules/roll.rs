//! When the active segment rolls.
//!
//! Kafka: `UnifiedLog.maybeRoll` (called only from `append`, besides the two retention paths
//! of spec §A9), `LogSegment.shouldRoll`, `LogSegment.timeWaitedForRoll`,
//! `LogSegment.loadFirstBatchTimestamp`, `LogConfig.maxSegmentMs` / `randomSegmentJitter`,
//! `AbstractIndex.isFull` / `canAppendOffset`, `TimeIndex.isFull`. Spec §A, Errata 1 and 2.
//!
//! The check runs just before a validated set is appended; no timer rolls a segment, so **an
//! idle partition keeps its active segment forever** ([`project_roll`] returns
//! [`RollProjection::Never`] without appends, whatever `segment.ms` says).
//!
//! Version differences: from 4.1 the rolling base timestamp is always the max timestamp of the
//! segment's first batch (the same before and after a restart); in 3.x/4.0 it is the first
//! append's max timestamp while the broker runs since the segment was created, and the first
//! batch's after a restart (they differ only for multi-batch follower appends). From 4.1 the
//! index interval is checked per batch, in 4.0 once per append ([`project_roll`] treats one
//! append as one batch, so the two agree).

use crate::config::LogConfig;
use crate::model::units::{Bytes, DurationMs, Offset, TimestampMs};

use super::KafkaVersion;

pub mod late;

/// The active segment, as facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActiveSegmentFacts {
    /// Base offset.
    pub base_offset: Offset,
    /// Logical `.log` size.
    pub size: Bytes,
    /// Max timestamp of the first batch ([`TimestampMs::NONE`] if none).
    pub first_batch_max_timestamp: TimestampMs,
    /// 3.x/4.0 only: the first append's max timestamp, when the broker has run since the
    /// segment was created (`None`: loaded after a restart, or not known).
    pub first_append_max_timestamp: Option<TimestampMs>,
    /// When the in-memory segment object was built (creation, broker load, or truncation to
    /// empty): the time base when there is no rolling timestamp.
    pub created_at: TimestampMs,
    /// The segment object's jitter (0 ≤ jitter < min(`segment.jitter.ms`, `segment.ms`); see
    /// [`jitter_range`]).
    pub roll_jitter_ms: i64,
    /// Used entries of the `.index`.
    pub offset_index_entries: u64,
    /// Used entries of the `.timeindex`.
    pub time_index_entries: u64,
}

/// The validated set about to be appended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IncomingBatch {
    /// Its size in bytes.
    pub size: Bytes,
    /// Its max timestamp (the broker clock under `LogAppendTime`).
    pub max_timestamp: TimestampMs,
    /// Its last offset.
    pub last_offset: Offset,
}

/// Why the segment rolls before the append.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RollReason {
    /// The append would pass `segment.bytes` (strict: a segment may reach it exactly).
    Size {
        /// Active size.
        active: Bytes,
        /// Incoming size.
        incoming: Bytes,
        /// `segment.bytes`.
        limit: Bytes,
    },
    /// `timeWaitedForRoll > maxSegmentMs − jitter` on a non-empty segment.
    Time {
        /// Waited (record time, or wall clock without a rolling timestamp).
        waited: DurationMs,
        /// maxSegmentMs − jitter.
        limit: DurationMs,
    },
    /// The offset index is full.
    OffsetIndexFull {
        /// Entries.
        entries: u64,
        /// Capacity.
        max_entries: u64,
    },
    /// The time index is full (one slot is kept for the entry written at roll).
    TimeIndexFull {
        /// Entries.
        entries: u64,
        /// Capacity.
        max_entries: u64,
    },
    /// The set's last offset cannot be stored relative to the base as a 32-bit value.
    OffsetOverflow {
        /// Last offset.
        last_offset: Offset,
        /// Segment base.
        base_offset: Offset,
    },
}

/// `LogConfig.maxSegmentMs` (spec §A5): min(`segment.ms`, `max.compaction.lag.ms`) for a
/// compacted policy with a positive max lag, else `segment.ms`.
pub fn max_segment_ms(config: &LogConfig) -> i64 {
    if config.cleanup_policy.compact && config.max_compaction_lag_ms > 0 {
        config.segment_ms.min(config.max_compaction_lag_ms)
    } else {
        config.segment_ms
    }
}

/// The range a segment's jitter is drawn from, inclusive (spec §A6); (0, 0) without jitter.
pub fn jitter_range(config: &LogConfig) -> (i64, i64) {
    let bound = config.segment_jitter_ms.min(config.segment_ms);
    if config.segment_jitter_ms == 0 || bound <= 0 {
        (0, 0)
    } else {
        (0, bound - 1)
    }
}

/// Capacity of the active `.index`: `segment.index.bytes` rounded down to 8-byte entries.
pub fn offset_index_max_entries(config: &LogConfig) -> u64 {
    u64::try_from(config.segment_index_bytes.max(0)).unwrap_or(0) / 8
}

/// Capacity of the active `.timeindex`: `segment.index.bytes` over 12-byte entries. It reports
/// full at one entry less.
pub fn time_index_max_entries(config: &LogConfig) -> u64 {
    u64::try_from(config.segment_index_bytes.max(0)).unwrap_or(0) / 12
}

/// The rolling base timestamp (spec §A4, Errata 1): the first batch's max timestamp since
/// KAFKA-806 (`LogSegment.append` walks the batches; the `rollingBasedTimestamp` set from the
/// first append's largest timestamp is gone): Apache 4.1.0 (#18012) and the backports 3.9.1
/// (#18843, commit 27a3e5560e on the 3.9 branch, after 3.9.0) and 4.0.1 (#18842, commit
/// 4dd893ba21, after 4.0.0). Releases are modelled by line, at the line's latest patch: 3.9
/// and 4.0 take the new rule (3.9.0 and 4.0.0 had the old one); 3.6–3.8 the first append's.
pub fn rolling_base_timestamp(active: &ActiveSegmentFacts, version: KafkaVersion) -> TimestampMs {
    if version.at_least(KafkaVersion::V3_9) {
        active.first_batch_max_timestamp
    } else {
        active
            .first_append_max_timestamp
            .unwrap_or(active.first_batch_max_timestamp)
    }
}

/// `timeWaitedForRoll`: incoming max timestamp − rolling base, or `now − created` without one.
pub fn time_waited_for_roll(
    active: &ActiveSegmentFacts,
    incoming_max_timestamp: TimestampMs,
    now: TimestampMs,
    version: KafkaVersion,
) -> DurationMs {
    let base = rolling_base_timestamp(active, version);
    if base.is_set() {
        incoming_max_timestamp - base
    } else {
        now - active.created_at
    }
}

/// `LogSegment.shouldRoll` for an append of `incoming` at `now`; the first reason in Kafka's
/// order, `None` when the append goes into the active segment.
pub fn should_roll(
    active: &ActiveSegmentFacts,
    incoming: &IncomingBatch,
    config: &LogConfig,
    now: TimestampMs,
    version: KafkaVersion,
) -> Option<RollReason> {
    let size = i128::from(active.size.get());
    let limit = i128::from(config.segment_bytes);
    if size > limit - i128::from(incoming.size.get()) {
        return Some(RollReason::Size {
            active: active.size,
            incoming: incoming.size,
            limit: Bytes(u64::try_from(config.segment_bytes.max(0)).unwrap_or(0)),
        });
    }
    let waited = time_waited_for_roll(active, incoming.max_timestamp, now, version);
    let time_limit = DurationMs(max_segment_ms(config).saturating_sub(active.roll_jitter_ms));
    if !active.is_empty() && waited > time_limit {
        return Some(RollReason::Time {
            waited,
            limit: time_limit,
        });
    }
    let max_entries = offset_index_max_entries(config);
    if active.offset_index_entries >= max_entries {
        return Some(RollReason::OffsetIndexFull {
            entries: active.offset_index_entries,
            max_entries,
        });
    }
    let max_entries = time_index_max_entries(config);
    if active.time_index_entries >= max_entries.saturating_sub(1) {
        return Some(RollReason::TimeIndexFull {
            entries: active.time_index_entries,
            max_entries,
        });
    }
    let relative = i128::from(incoming.last_offset.get()) - i128::from(active.base_offset.get());
    if !(0..=i128::from(i32::MAX)).contains(&relative) {
        return Some(RollReason::OffsetOverflow {
            last_offset: incoming.last_offset,
            base_offset: active.base_offset,
        });
    }
    None
}

impl ActiveSegmentFacts {
    fn is_empty(&self) -> bool {
        self.size == Bytes(0)
    }
}

/// A steady write stream into the partition, timestamps at wall clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteRate {
    /// Bytes appended per second (> 0).
    pub bytes_per_sec: u64,
    /// Bytes per append (one batch per append).
    pub batch_bytes: u64,
}

/// Which condition a projected roll meets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectedReason {
    /// `segment.bytes`.
    Size,
    /// `segment.ms` (or `max.compaction.lag.ms`) minus the jitter.
    Time,
    /// The offset index fills (approximate: the bytes since the last entry are not known).
    OffsetIndexFull,
    /// The time index fills (approximate, timestamps rising).
    TimeIndexFull,
}

/// When the active segment will roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RollProjection {
    /// Never: no appends, so no roll check ever runs.
    Never,
    /// At the append arriving at `at`.
    At {
        /// The instant of the append that rolls it.
        at: TimestampMs,
        /// The condition that fires first.
        reason: ProjectedReason,
    },
}

/// Projection for `diagnose`: when would the active segment roll if `rate` keeps writing from
/// `now` (`None`: the partition is idle)? Appends arrive every `batch_bytes / bytes_per_sec`;
/// the roll happens at the first append that meets a condition.
pub fn project_roll(
    active: &ActiveSegmentFacts,
    rate: Option<WriteRate>,
    config: &LogConfig,
    now: TimestampMs,
    version: KafkaVersion,
) -> RollProjection {
    let Some(rate) = rate.filter(|r| r.bytes_per_sec > 0 && r.batch_bytes > 0) else {
        return RollProjection::Never;
    };
    let b = i128::from(rate.batch_bytes);
    let dt =
        ((b * 1000 + i128::from(rate.bytes_per_sec) - 1) / i128::from(rate.bytes_per_sec)).max(1);
    let size0 = i128::from(active.size.get());
    let seg_bytes = i128::from(config.segment_bytes);
    // Append k (k ≥ 1) arrives at now + k·dt onto a segment of size0 + (k−1)·b bytes.
    let k_size = if size0 > seg_bytes - b {
        1
    } else {
        (seg_bytes - b - size0) / b + 2
    };
    let limit = i128::from(max_segment_ms(config).saturating_sub(active.roll_jitter_ms));
    let now_ms = i128::from(now.get());
    let k_time = if active.is_empty() {
        // The first append sets the base at its own timestamp; later ones compare with it.
        (limit / dt + 1).max(1) + 1
    } else {
        let base = rolling_base_timestamp(active, version);
        // waited_k = now + k·dt − base (record time), or now + k·dt − created.
        let anchor = i128::from(
            if base.is_set() {
                base
            } else {
                active.created_at
            }
            .get(),
        );
        let need = limit + anchor - now_ms; // k·dt > need
        if need < 0 {
            1
        } else {
            need / dt + 1
        }
    };
    let m = i128::from(config.index_interval_bytes.max(0)) / b + 1; // batches per index entry
    let index_k = |entries: u64, max: u64| {
        let (e, max) = (i128::from(entries), i128::from(max));
        if e >= max {
            1
        } else {
            (max - e) * m + 1
        }
    };
    let k_offset = index_k(
        active.offset_index_entries,
        offset_index_max_entries(config),
    );
    let k_timeidx = index_k(
        active.time_index_entries,
        time_index_max_entries(config).saturating_sub(1),
    );
    let (k, reason) = [
        (k_size, ProjectedReason::Size),
        (k_time, ProjectedReason::Time),
        (k_offset, ProjectedReason::OffsetIndexFull),
        (k_timeidx, ProjectedReason::TimeIndexFull),
    ]
    .into_iter()
    .min_by_key(|(k, _)| *k)
    .unwrap_or((k_size, ProjectedReason::Size));
    let at = i64::try_from(now_ms + k * dt).unwrap_or(i64::MAX);
    RollProjection::At {
        at: TimestampMs(at),
        reason,
    }
}

#[cfg(test)]
mod tests;
