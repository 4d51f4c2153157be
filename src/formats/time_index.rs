//! The time index `.timeindex`: 12-byte slots `timestamp i64, relativeOffset i32`, no header.
//!
//! Source: Kafka `storage/src/main/java/org/apache/kafka/storage/internals/log/TimeIndex.java`
//! (spec: kafka-on-disk-formats.md §4.2–§4.5, §11.2). The slot layout, the zero tail, Kafka's
//! lookup and the sanity check are the generic [`SlotIndex`]'s; this module gives it the
//! `.timeindex` entry.
//!
//! An entry `(ts, off)` means "up to and including `off`, the largest timestamp in the segment
//! was `ts`". Kafka's `lastEntry` ([`SlotIndex::last_entry`]) is the segment's
//! `largestTimestamp` used by time-based retention (when negative, Kafka falls back to the
//! `.log` mtime). As for the offset index, Kafka counts `length / 12` slots and never skips a
//! zero tail: a crashed broker's untrimmed time index has a last slot of timestamp 0, which
//! makes the segment look ancient.

use super::bytes::Cursor;
use super::slot_index::{
    encode_slots, IndexEntryProblem, IndexSanityProblem, SlotEntry, SlotIndex,
};

/// Size of one `.timeindex` slot in bytes.
pub const ENTRY_SIZE: usize = 12;

/// Kafka's `RecordBatch.NO_TIMESTAMP`: the timestamp of an empty time index's last entry.
pub const NO_TIMESTAMP: i64 = -1;

/// One raw `.timeindex` slot, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeIndexEntry {
    /// Largest timestamp (ms) seen up to and including the entry's offset.
    pub timestamp: i64,
    /// `offset - baseOffset`.
    pub relative_offset: i32,
}

impl TimeIndexEntry {
    /// Whether all 12 bytes of the slot are zero (what a preallocated slot holds).
    pub fn is_zero(&self) -> bool {
        self.timestamp == 0 && self.relative_offset == 0
    }
}

/// A timestamp and an absolute offset (Kafka's `TimestampOffset`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TimestampOffset {
    /// Timestamp in ms.
    pub timestamp: i64,
    /// Absolute offset.
    pub offset: i64,
}

/// A parsed `.timeindex` file: a zero-copy view over its slots.
pub type TimeIndex<'a> = SlotIndex<'a, TimeIndexEntry>;

impl SlotEntry for TimeIndexEntry {
    const SIZE: usize = ENTRY_SIZE;
    type Absolute = TimestampOffset;

    fn decode(slot: &[u8]) -> Option<Self> {
        let mut c = Cursor::new(slot);
        Some(TimeIndexEntry {
            timestamp: c.i64().ok()?,
            relative_offset: c.i32().ok()?,
        })
    }

    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.timestamp.to_be_bytes());
        out.extend_from_slice(&self.relative_offset.to_be_bytes());
    }

    fn relative_offset(&self) -> i32 {
        self.relative_offset
    }

    /// Kafka's `maybeAppend` rules: a strictly greater timestamp, a relative offset not lower.
    fn follows(&self, prev: &Self) -> bool {
        self.timestamp > prev.timestamp && self.relative_offset >= prev.relative_offset
    }

    /// The timestamp.
    fn lookup_key(&self, _base_offset: i64) -> i64 {
        self.timestamp
    }

    fn absolute(&self, base_offset: i64) -> TimestampOffset {
        TimestampOffset {
            timestamp: self.timestamp,
            offset: self.absolute_offset(base_offset),
        }
    }

    /// `(-1, base)`.
    fn missing(base_offset: i64) -> TimestampOffset {
        TimestampOffset {
            timestamp: NO_TIMESTAMP,
            offset: base_offset,
        }
    }

    /// The last slot's timestamp below slot 0's.
    fn check_last_against_first(
        first: &Self,
        last: &Self,
        slot: usize,
        at: u64,
    ) -> Option<IndexSanityProblem> {
        (last.timestamp < first.timestamp).then_some(IndexSanityProblem::LastTimestampBelowFirst {
            slot,
            at,
            last_timestamp: last.timestamp,
            first_timestamp: first.timestamp,
        })
    }

    /// Negative timestamp, negative relative offset.
    fn push_problems(
        &self,
        _prev: Option<&Self>,
        slot: usize,
        at: u64,
        out: &mut Vec<IndexEntryProblem>,
    ) {
        if self.timestamp < 0 {
            out.push(IndexEntryProblem::NegativeTimestamp {
                slot,
                at,
                timestamp: self.timestamp,
            });
        }
        if self.relative_offset < 0 {
            out.push(IndexEntryProblem::NegativeRelativeOffset {
                slot,
                at,
                relative_offset: self.relative_offset,
            });
        }
    }
}

/// Encode entries as the bytes of a trimmed `.timeindex` file (test and rebuild helper).
pub fn encode_time_index(entries: &[TimeIndexEntry]) -> Vec<u8> {
    encode_slots(entries)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a panic is the failure report
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn e(timestamp: i64, relative_offset: i32) -> TimeIndexEntry {
        TimeIndexEntry {
            timestamp,
            relative_offset,
        }
    }

    #[test]
    fn reads_fields_big_endian() {
        let bytes = [0, 0, 1, 0x8f, 0, 0, 0, 1, 0, 0, 0, 7];
        let idx = TimeIndex::parse(&bytes, 10).unwrap();
        assert_eq!(idx.entry(0), Some(e(0x018f_0000_0001, 7)));
        assert_eq!(
            idx.last_entry(),
            TimestampOffset {
                timestamp: 0x018f_0000_0001,
                offset: 17
            }
        );
        assert!(idx.sanity_check().is_empty());
    }

    #[test]
    fn empty_index_last_entry_is_no_timestamp() {
        let idx = TimeIndex::parse(&[], 42).unwrap();
        assert_eq!(
            idx.last_entry(),
            TimestampOffset {
                timestamp: -1,
                offset: 42
            }
        );
        assert_eq!(idx.lookup(5).slot, None);
        assert!(idx.sanity_check().is_empty());
    }

    #[test]
    fn zero_tail_makes_kafka_largest_timestamp_zero() {
        let mut bytes = encode_time_index(&[e(1_700_000_000_000, 5), e(1_700_000_000_500, 9)]);
        bytes.resize(bytes.len() + 12 * 4, 0);
        let idx = TimeIndex::parse(&bytes, 100).unwrap();
        assert_eq!(idx.slot_count(), 6);
        assert_eq!(idx.valid_entries(), 2);
        assert_eq!(idx.zero_tail(), 2..6);
        assert_eq!(
            idx.last_entry(),
            TimestampOffset {
                timestamp: 0,
                offset: 100
            }
        );
        assert_eq!(idx.last_valid_entry().timestamp, 1_700_000_000_500);
        // Kafka's check: last ts 0 < first ts -> corrupt.
        assert!(matches!(
            idx.sanity_check().as_slice(),
            [IndexSanityProblem::LastTimestampBelowFirst {
                slot: 5,
                at: 60,
                last_timestamp: 0,
                ..
            }]
        ));
    }

    #[test]
    fn slot_zero_may_have_relative_offset_zero() {
        let bytes = encode_time_index(&[e(1000, 0)]);
        let idx = TimeIndex::parse(&bytes, 0).unwrap();
        assert_eq!(idx.valid_entries(), 1);
        assert!(idx.zero_tail().is_empty());
    }

    #[test]
    fn non_monotonic_entries() {
        let bytes = encode_time_index(&[e(10, 1), e(20, 2), e(15, 3), e(30, 1)]);
        let idx = TimeIndex::parse(&bytes, 0).unwrap();
        assert_eq!(idx.valid_entries(), 2);
        assert_eq!(idx.garbage_slots(), 2..4);
        // Equal timestamps also end the prefix; equal offsets do not.
        let idx2_bytes = encode_time_index(&[e(10, 1), e(11, 1), e(11, 2)]);
        let idx2 = TimeIndex::parse(&idx2_bytes, 0).unwrap();
        assert_eq!(idx2.valid_entries(), 2);
    }

    #[test]
    fn sanity_check_order_and_length() {
        let mut bytes = encode_time_index(&[e(50, 1), e(40, -2)]);
        bytes.push(9);
        let idx = TimeIndex::parse(&bytes, 10).unwrap();
        let p = idx.sanity_check();
        assert_eq!(p.len(), 3);
        assert!(matches!(
            p[0],
            IndexSanityProblem::LastTimestampBelowFirst { .. }
        ));
        assert_eq!(
            p[1],
            IndexSanityProblem::LastOffsetBelowBase {
                slot: 1,
                at: 12,
                last_offset: 8,
                base_offset: 10
            }
        );
        assert_eq!(
            p[2],
            IndexSanityProblem::LengthNotMultiple {
                at: 24,
                length: 25,
                entry_size: 12
            }
        );
    }

    #[test]
    fn lookup_largest_timestamp_at_or_below() {
        let entries: Vec<_> = (1..=4).map(|i| e(i * 100, i as i32)).collect();
        let idx_bytes = encode_time_index(&entries);
        let idx = TimeIndex::parse(&idx_bytes, 1000).unwrap();
        assert_eq!(
            idx.lookup(99).entry,
            TimestampOffset {
                timestamp: -1,
                offset: 1000
            }
        );
        assert_eq!(
            idx.lookup(250).entry,
            TimestampOffset {
                timestamp: 200,
                offset: 1002
            }
        );
        assert_eq!(idx.lookup(400).slot, Some(3));
        assert_eq!(idx.lookup_valid(i64::MAX).slot, Some(3));
    }

    #[test]
    fn entry_problems_negative_values() {
        let idx_bytes = encode_time_index(&[e(-5, -1)]);
        let idx = TimeIndex::parse(&idx_bytes, 10).unwrap();
        assert_eq!(idx.entry_problems().len(), 2);
    }

    #[test]
    fn truncated_at_every_byte_never_panics() {
        let mut bytes = encode_time_index(&[e(1, 1), e(2, 2), e(3, 3)]);
        bytes.extend_from_slice(&[0; 24]);
        for n in 0..=bytes.len() {
            let idx = TimeIndex::parse(&bytes[..n], 3).unwrap();
            assert_eq!(idx.slot_count(), n / 12);
            let _ = (
                idx.sanity_check(),
                idx.entry_problems(),
                idx.lookup(2),
                idx.last_entry(),
            );
        }
    }

    proptest! {
        #[test]
        fn round_trip(ts in proptest::collection::btree_set(1i64..i64::MAX, 1..50),
                      base in 0i64..1_000_000_000, tail in 0usize..10) {
            let entries: Vec<_> = ts.iter().enumerate().map(|(i, &t)| e(t, i as i32 * 3)).collect();
            let mut bytes = encode_time_index(&entries);
            bytes.resize(bytes.len() + tail * 12, 0);
            let idx = TimeIndex::parse(&bytes, base).unwrap();
            prop_assert_eq!(idx.valid_entries(), entries.len());
            let back: Vec<_> = idx.slots().take(idx.valid_entries()).collect();
            prop_assert_eq!(&back, &entries);
            prop_assert!(idx.entry_problems().is_empty());
            if tail == 0 {
                prop_assert!(idx.sanity_check().is_empty());
            }
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200),
                                       target in any::<i64>()) {
            let idx = TimeIndex::parse(&bytes, 0).unwrap();
            let _ = (idx.sanity_check(), idx.entry_problems(), idx.lookup(target),
                     idx.lookup_valid(target));
            prop_assert!(idx.valid_entries() <= idx.zero_tail_start());
        }
    }
}
