//! The facts about one segment that the retention and compaction rules read, and the rule that
//! turns them into the broker's `largestTimestamp`.
//!
//! Kafka: `LogSegment.largestTimestamp` (the max timestamp held in memory, else the last
//! `.timeindex` entry; when that is negative, the `.log` file's mtime) and
//! `LogSegment.readLargestTimestamp` for the active segment. Spec §B1, §G3, Errata 10: on a
//! live broker the active `.timeindex` is preallocated with zeros and lacks the max entry, so
//! the caller computes `max_timestamp` as max(last *used* entry, max batch `maxTimestamp` after
//! it) — which is why a source is recorded with it.

use crate::model::units::{Bytes, Offset, TimestampMs};

/// Where a segment's max record timestamp came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MaxTimestampSource {
    /// The last entry of its `.timeindex` (an inactive segment after a clean start).
    TimeIndex,
    /// Batches scanned: the segment is recovered at start, or it is the active one
    /// (`readLargestTimestamp`).
    Recovered,
}

/// Where the `largestTimestamp` the broker compares came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimestampSource {
    /// The last entry of the `.timeindex`.
    TimeIndex,
    /// Batches scanned (recovery, or the active segment).
    Recovered,
    /// No record timestamp (negative): the `.log` file's mtime, which restarts when files are
    /// copied without preserving it (spec §B6, H5).
    LogMtime,
}

/// One local segment of a partition replica, as plain facts (oldest first in every slice;
/// the last one is the active segment).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentFacts {
    /// The base offset (the file name).
    pub base_offset: Offset,
    /// The offset after the segment's last record (its next offset).
    pub next_offset: Offset,
    /// The logical `.log` size (valid bytes; not the preallocated file length, spec §A12).
    pub size: Bytes,
    /// The max record timestamp the broker holds; [`TimestampMs::NONE`] when there is none.
    pub max_timestamp: TimestampMs,
    /// Where `max_timestamp` came from.
    pub max_timestamp_source: MaxTimestampSource,
    /// The `.log` file's mtime (the fallback when there is no record timestamp).
    pub log_mtime: TimestampMs,
    /// The max timestamp of the segment's first batch ([`TimestampMs::NONE`] if none): the
    /// rolling base from KAFKA-806 (3.9.1, 4.0.1, 4.1.0) and the `max.compaction.lag.ms`
    /// anchor (Errata 1).
    pub first_batch_max_timestamp: TimestampMs,
}

impl SegmentFacts {
    /// Whether the segment holds no bytes (Kafka `segment.size() == 0`).
    pub fn is_empty(&self) -> bool {
        self.size == Bytes(0)
    }

    /// The broker's `largestTimestamp`: the max record timestamp if set (≥ 0), else the
    /// `.log` mtime.
    pub fn largest_timestamp(&self) -> (TimestampMs, TimestampSource) {
        if self.max_timestamp.is_set() {
            let source = match self.max_timestamp_source {
                MaxTimestampSource::TimeIndex => TimestampSource::TimeIndex,
                MaxTimestampSource::Recovered => TimestampSource::Recovered,
            };
            (self.max_timestamp, source)
        } else {
            (self.log_mtime, TimestampSource::LogMtime)
        }
    }
}

/// The max timestamp of a segment read from disk as `LogSegment.readLargestTimestamp` does
/// (Errata 10): the last *used* `.timeindex` entry (not `length / 12`, the active index is
/// preallocated with zeros), raised by any batch `maxTimestamp` after that entry's position.
/// [`TimestampMs::NONE`] when neither exists.
pub fn read_largest_timestamp(
    last_used_entry: Option<TimestampMs>,
    max_batch_timestamp_after_entry: Option<TimestampMs>,
) -> TimestampMs {
    last_used_entry
        .into_iter()
        .chain(max_batch_timestamp_after_entry)
        .max()
        .unwrap_or(TimestampMs::NONE)
}

#[cfg(test)]
pub(crate) mod test_support {
    //! Builders shared by the rule tests.
    use super::*;

    /// A segment `[base, next)` of `size` bytes whose records' max timestamp is `ts`.
    pub fn seg(base: i64, next: i64, size: u64, ts: i64) -> SegmentFacts {
        SegmentFacts {
            base_offset: Offset(base),
            next_offset: Offset(next),
            size: Bytes(size),
            max_timestamp: TimestampMs(ts),
            max_timestamp_source: MaxTimestampSource::TimeIndex,
            log_mtime: TimestampMs(ts),
            first_batch_max_timestamp: TimestampMs(ts),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::seg;
    use super::*;

    #[test]
    fn record_timestamp_wins_over_mtime() {
        let mut s = seg(0, 10, 100, 5_000);
        s.log_mtime = TimestampMs(9_000);
        assert_eq!(
            s.largest_timestamp(),
            (TimestampMs(5_000), TimestampSource::TimeIndex)
        );
        s.max_timestamp_source = MaxTimestampSource::Recovered;
        assert_eq!(s.largest_timestamp().1, TimestampSource::Recovered);
    }

    #[test]
    fn no_timestamp_segments_use_mtime() {
        let mut s = seg(0, 10, 100, -1);
        s.log_mtime = TimestampMs(9_000);
        assert_eq!(
            s.largest_timestamp(),
            (TimestampMs(9_000), TimestampSource::LogMtime)
        );
    }

    #[test]
    fn zero_padded_time_index_reads_as_timestamp_zero_not_as_none() {
        // H6: an untrimmed .timeindex yields last timestamp 0, which is a real (ancient) value.
        let mut s = seg(0, 10, 100, 0);
        s.log_mtime = TimestampMs(9_000);
        assert_eq!(
            s.largest_timestamp(),
            (TimestampMs(0), TimestampSource::TimeIndex)
        );
    }

    #[test]
    fn errata_10_active_largest_timestamp_is_max_of_last_used_entry_and_later_batches() {
        let t = |v| Some(TimestampMs(v));
        assert_eq!(read_largest_timestamp(t(5), t(9)), TimestampMs(9));
        assert_eq!(read_largest_timestamp(t(9), t(5)), TimestampMs(9));
        assert_eq!(read_largest_timestamp(None, t(5)), TimestampMs(5));
        assert_eq!(read_largest_timestamp(t(5), None), TimestampMs(5));
        assert_eq!(read_largest_timestamp(None, None), TimestampMs::NONE);
    }

    #[test]
    fn emptiness_is_the_logical_size() {
        assert!(seg(5, 5, 0, -1).is_empty());
        assert!(!seg(5, 6, 1, -1).is_empty());
    }
}
