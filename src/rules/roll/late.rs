//! An active segment that rolls too late for time retention: its records are already past the
//! time limit, but retention never deletes the active segment (spec §A9), so they stay until it
//! rolls — at its write rate ([`estimated_rate`], [`project_roll`]), or never for an idle
//! partition (no timer rolls a segment: `segment.ms` is checked only on append).

use crate::config::LogConfig;
use crate::model::units::{Bytes, Offset, TimestampMs};

use super::super::KafkaVersion;
use super::{project_roll, ActiveSegmentFacts, RollProjection, WriteRate};

/// The write rate the active segment shows: its bytes over the record-time span from its
/// first to its largest timestamp, in appends of its average bytes per offset. `None` when the
/// span is empty (one instant) or the segment is empty.
pub fn estimated_rate(
    size: Bytes,
    offsets: i64,
    first: TimestampMs,
    largest: TimestampMs,
) -> Option<WriteRate> {
    let span_ms = largest.get().checked_sub(first.get()).filter(|s| *s > 0)?;
    let size = size.get();
    if size == 0 || offsets <= 0 {
        return None;
    }
    let bytes_per_sec = u64::try_from(i128::from(size) * 1000 / i128::from(span_ms)).ok()?;
    let batch_bytes = size / u64::try_from(offsets).ok()?;
    Some(WriteRate {
        bytes_per_sec: bytes_per_sec.max(1),
        batch_bytes: batch_bytes.max(1),
    })
}

/// The active segment as its files show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActiveSpan {
    /// Base offset.
    pub base_offset: Offset,
    /// Logical `.log` size.
    pub size: Bytes,
    /// Offsets it holds (next offset − base offset).
    pub offsets: i64,
    /// Max timestamp of its first batch (≥ 0).
    pub first: TimestampMs,
    /// Its largest timestamp.
    pub largest: TimestampMs,
}

/// When an active segment past time retention rolls, and whether that is too late.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RollAfterRetention {
    /// The rate it was projected at (`None`: idle).
    pub rate: Option<WriteRate>,
    /// When it rolls.
    pub projection: RollProjection,
    /// It never rolls, or rolls after `now` + the time limit: retention cannot delete its
    /// records before another full retention period.
    pub late: bool,
}

/// When `active` (whose records are past the time limit `retention_ms` at `now`) rolls at its
/// own write rate under `config`, loaded at `now` (the segment object's creation instant and
/// jitter are not on disk: `now` and 0; index entries are not counted: 0).
pub fn roll_after_retention(
    active: &ActiveSpan,
    config: &LogConfig,
    retention_ms: i64,
    now: TimestampMs,
    version: KafkaVersion,
) -> RollAfterRetention {
    let rate = estimated_rate(active.size, active.offsets, active.first, active.largest);
    let facts = ActiveSegmentFacts {
        base_offset: active.base_offset,
        size: active.size,
        first_batch_max_timestamp: active.first,
        first_append_max_timestamp: None,
        created_at: now,
        roll_jitter_ms: 0,
        offset_index_entries: 0,
        time_index_entries: 0,
    };
    let projection = project_roll(&facts, rate, config, now, version);
    let deadline = now.get().saturating_add(retention_ms);
    let late = match projection {
        RollProjection::Never => true,
        RollProjection::At { at, .. } => at.get() > deadline,
    };
    RollAfterRetention {
        rate,
        projection,
        late,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_is_bytes_over_the_record_time_span() {
        let r = estimated_rate(Bytes(6000), 60, TimestampMs(0), TimestampMs(60_000)).unwrap();
        assert_eq!((r.bytes_per_sec, r.batch_bytes), (100, 100));
        assert!(estimated_rate(Bytes(6000), 60, TimestampMs(5), TimestampMs(5)).is_none());
        assert!(estimated_rate(Bytes(0), 0, TimestampMs(0), TimestampMs(9)).is_none());
    }

    fn span(first: i64, largest: i64) -> ActiveSpan {
        ActiveSpan {
            base_offset: Offset(0),
            size: Bytes(6000),
            offsets: 60,
            first: TimestampMs(first),
            largest: TimestampMs(largest),
        }
    }

    #[test]
    fn idle_is_late_and_a_roll_within_the_limit_is_not() {
        let config = LogConfig::default();
        let now = TimestampMs(1_000_000_000);
        // One record time: no rate, no append, no roll.
        let idle = roll_after_retention(&span(5, 5), &config, 1, now, KafkaVersion::default());
        assert_eq!(
            (idle.rate, idle.projection, idle.late),
            (None, RollProjection::Never, true)
        );
        // Written for an hour: rolls on segment.ms (7 d by default) in about 7 d, after a
        // day's limit (late) and within a year's (not).
        let first = now.get() - 3_600_000;
        let s = span(first, now.get());
        let day = roll_after_retention(&s, &config, 86_400_000, now, KafkaVersion::default());
        assert!(day.late && day.rate.is_some(), "{day:?}");
        let year = 365 * 86_400_000;
        let long = roll_after_retention(&s, &config, year, now, KafkaVersion::default());
        assert!(!long.late, "{long:?}");
    }
}
