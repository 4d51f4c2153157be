//! The offset index `.index`: 8-byte slots `relativeOffset i32, position i32`, no header.
//!
//! Source: Kafka `storage/src/main/java/org/apache/kafka/storage/internals/log/OffsetIndex.java`
//! (spec: kafka-on-disk-formats.md §4.1, §4.3–§4.5, §11.2). The slot layout, the zero tail,
//! Kafka's lookup and the sanity check are the generic [`SlotIndex`]'s; this module gives it
//! the `.index` entry: how it decodes, which entries may follow each other (strictly greater
//! relative offsets), what Kafka returns without one (`(base, 0)`), and the stricter checks of
//! the `.log` positions.

use super::bytes::Cursor;
use super::slot_index::{encode_slots, SlotEntry, SlotIndex};

// Shared with the time index; also reachable from here, where they were defined first.
pub use super::slot_index::{IndexEntryProblem, IndexLookup, IndexSanityProblem};

/// Size of one `.index` slot in bytes.
pub const ENTRY_SIZE: usize = 8;

/// One raw `.index` slot, as stored (offset relative to the segment base).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffsetIndexEntry {
    /// `offset - baseOffset` of the last offset of the batch (or append chunk) at `position`.
    pub relative_offset: i32,
    /// Byte position in the `.log` of the start of that batch.
    pub position: i32,
}

impl OffsetIndexEntry {
    /// Whether all 8 bytes of the slot are zero (what a preallocated slot holds).
    pub fn is_zero(&self) -> bool {
        self.relative_offset == 0 && self.position == 0
    }
}

/// An absolute offset and its `.log` byte position (Kafka's `OffsetPosition`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OffsetPosition {
    /// Absolute offset (`base_offset + relative_offset`).
    pub offset: i64,
    /// Byte position in the `.log`.
    pub position: i32,
}

/// A parsed `.index` file: a zero-copy view over its slots.
pub type OffsetIndex<'a> = SlotIndex<'a, OffsetIndexEntry>;

impl SlotEntry for OffsetIndexEntry {
    const SIZE: usize = ENTRY_SIZE;
    type Absolute = OffsetPosition;

    fn decode(slot: &[u8]) -> Option<Self> {
        let mut c = Cursor::new(slot);
        Some(OffsetIndexEntry {
            relative_offset: c.i32().ok()?,
            position: c.i32().ok()?,
        })
    }

    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.relative_offset.to_be_bytes());
        out.extend_from_slice(&self.position.to_be_bytes());
    }

    fn relative_offset(&self) -> i32 {
        self.relative_offset
    }

    /// Kafka's append rule: offsets strictly increase.
    fn follows(&self, prev: &Self) -> bool {
        self.relative_offset > prev.relative_offset
    }

    /// The absolute offset.
    fn lookup_key(&self, base_offset: i64) -> i64 {
        self.absolute_offset(base_offset)
    }

    fn absolute(&self, base_offset: i64) -> OffsetPosition {
        OffsetPosition {
            offset: self.absolute_offset(base_offset),
            position: self.position,
        }
    }

    /// `(base, 0)`.
    fn missing(base_offset: i64) -> OffsetPosition {
        OffsetPosition {
            offset: base_offset,
            position: 0,
        }
    }

    /// Negative relative offset, negative position, position not above the previous one.
    fn push_problems(
        &self,
        prev: Option<&Self>,
        slot: usize,
        at: u64,
        out: &mut Vec<IndexEntryProblem>,
    ) {
        if self.relative_offset < 0 {
            out.push(IndexEntryProblem::NegativeRelativeOffset {
                slot,
                at,
                relative_offset: self.relative_offset,
            });
        }
        if self.position < 0 {
            out.push(IndexEntryProblem::NegativePosition {
                slot,
                at,
                position: self.position,
            });
        }
        if let Some(p) = prev.filter(|p| self.position <= p.position) {
            out.push(IndexEntryProblem::PositionNotIncreasing {
                slot,
                at,
                prev: p.position,
                next: self.position,
            });
        }
    }
}

/// Encode entries as the bytes of a trimmed `.index` file (test and rebuild helper).
pub fn encode_offset_index(entries: &[OffsetIndexEntry]) -> Vec<u8> {
    encode_slots(entries)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a panic is the failure report
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn e(relative_offset: i32, position: i32) -> OffsetIndexEntry {
        OffsetIndexEntry {
            relative_offset,
            position,
        }
    }

    #[test]
    fn reads_fields_big_endian() {
        let bytes = [0, 0, 0, 5, 0, 0, 0x10, 0x00];
        let idx = OffsetIndex::parse(&bytes, 100).unwrap();
        assert_eq!(idx.slot_count(), 1);
        assert_eq!(idx.entry(0), Some(e(5, 4096)));
        assert_eq!(
            idx.last_entry(),
            OffsetPosition {
                offset: 105,
                position: 4096
            }
        );
        assert!(idx.sanity_check().is_empty());
    }

    #[test]
    fn empty_file() {
        let idx = OffsetIndex::parse(&[], 7).unwrap();
        assert_eq!(idx.slot_count(), 0);
        assert_eq!(idx.valid_entries(), 0);
        assert_eq!(
            idx.last_entry(),
            OffsetPosition {
                offset: 7,
                position: 0
            }
        );
        assert_eq!(
            idx.lookup(100),
            IndexLookup {
                slot: None,
                entry: idx.last_entry()
            }
        );
        assert!(idx.sanity_check().is_empty());
    }

    #[test]
    fn zero_filled_tail_is_counted_by_kafka_but_not_valid() {
        let mut bytes = encode_offset_index(&[e(10, 5000), e(20, 9000)]);
        bytes.resize(bytes.len() + 8 * 6, 0);
        let idx = OffsetIndex::parse(&bytes, 1000).unwrap();
        assert_eq!(idx.slot_count(), 8);
        assert_eq!(idx.valid_entries(), 2);
        assert_eq!(idx.zero_tail(), 2..8);
        assert!(idx.garbage_slots().is_empty());
        // Kafka's last entry is the zero slot; the sanity check still passes (0 is not < base).
        assert_eq!(
            idx.last_entry(),
            OffsetPosition {
                offset: 1000,
                position: 0
            }
        );
        assert_eq!(
            idx.last_valid_entry(),
            OffsetPosition {
                offset: 1020,
                position: 9000
            }
        );
        assert!(idx.sanity_check().is_empty());
        assert!(idx.entry_problems().is_empty());
        assert_eq!(
            idx.lookup_valid(1015).entry,
            OffsetPosition {
                offset: 1010,
                position: 5000
            }
        );
    }

    #[test]
    fn all_zero_preallocated_file_has_no_valid_entries() {
        let idx = OffsetIndex::parse(&[0u8; 80], 0).unwrap();
        assert_eq!(idx.slot_count(), 10);
        assert_eq!(idx.valid_entries(), 0);
        assert_eq!(idx.zero_tail_start(), 0);
    }

    #[test]
    fn zero_slot_zero_followed_by_entries_is_valid() {
        let bytes = encode_offset_index(&[e(0, 0), e(4, 4200)]);
        let idx = OffsetIndex::parse(&bytes, 50).unwrap();
        assert_eq!(idx.valid_entries(), 2);
        assert_eq!(idx.zero_tail_start(), 2);
    }

    #[test]
    fn non_monotonic_entries_end_the_valid_prefix() {
        let bytes = encode_offset_index(&[e(10, 100), e(20, 200), e(15, 300), e(30, 400)]);
        let idx = OffsetIndex::parse(&bytes, 0).unwrap();
        assert_eq!(idx.valid_entries(), 2);
        assert_eq!(idx.garbage_slots(), 2..4);
        assert_eq!(
            idx.entry_problems(),
            vec![IndexEntryProblem::GarbageSlots {
                first_slot: 2,
                at: 16,
                count: 2
            }]
        );
        // Kafka's check only looks at the last slot.
        assert!(idx.sanity_check().is_empty());
    }

    #[test]
    fn sanity_check_matches_kafka() {
        // Last slot relative offset negative.
        let bytes = encode_offset_index(&[e(10, 100), e(-1, 200)]);
        let idx = OffsetIndex::parse(&bytes, 500).unwrap();
        assert_eq!(
            idx.sanity_check(),
            vec![IndexSanityProblem::LastOffsetBelowBase {
                slot: 1,
                at: 8,
                last_offset: 499,
                base_offset: 500
            }]
        );
        // Length not a multiple of 8: both problems, in Kafka's order.
        let mut bytes2 = bytes.clone();
        bytes2.extend_from_slice(&[1, 2, 3]);
        let idx = OffsetIndex::parse(&bytes2, 500).unwrap();
        let p = idx.sanity_check();
        assert_eq!(p.len(), 2);
        assert_eq!(
            p[1],
            IndexSanityProblem::LengthNotMultiple {
                at: 16,
                length: 19,
                entry_size: 8
            }
        );
        assert_eq!(idx.trailing_bytes(), 3);
    }

    #[test]
    fn entry_problems_flag_positions() {
        let bytes = encode_offset_index(&[e(-3, 100), e(5, 50), e(6, -1)]);
        let idx = OffsetIndex::parse(&bytes, 10).unwrap();
        let p = idx.entry_problems();
        assert!(p.contains(&IndexEntryProblem::NegativeRelativeOffset {
            slot: 0,
            at: 0,
            relative_offset: -3
        }));
        assert!(p.contains(&IndexEntryProblem::PositionNotIncreasing {
            slot: 1,
            at: 8,
            prev: 100,
            next: 50
        }));
        assert!(p.contains(&IndexEntryProblem::NegativePosition {
            slot: 2,
            at: 16,
            position: -1
        }));
    }

    #[test]
    fn lookup_largest_entry_at_or_below_target() {
        let entries: Vec<_> = (1..=5).map(|i| e(i * 10, i * 1000)).collect();
        let idx_bytes = encode_offset_index(&entries);
        let idx = OffsetIndex::parse(&idx_bytes, 100).unwrap();
        assert_eq!(idx.lookup(99).slot, None);
        assert_eq!(
            idx.lookup(109).entry,
            OffsetPosition {
                offset: 100,
                position: 0
            }
        );
        assert_eq!(idx.lookup(110).slot, Some(0));
        assert_eq!(
            idx.lookup(135).entry,
            OffsetPosition {
                offset: 130,
                position: 3000
            }
        );
        assert_eq!(idx.lookup(1_000_000).slot, Some(4));
    }

    #[test]
    fn kafka_lookup_over_zero_tail_follows_kafkas_search() {
        // With a zero tail the warm-section probe reads a zero slot (offset = base), which is
        // below any target > base, so Kafka binary-searches a range containing unsorted slots.
        let mut bytes = encode_offset_index(&[e(10, 100), e(20, 200), e(30, 300)]);
        bytes.resize(bytes.len() + 8 * 3, 0);
        let idx = OffsetIndex::parse(&bytes, 0).unwrap();
        // Search in [0, 5]: mid 3 (0 < 25) lo=3; mid 4 lo=4; mid 5 lo=5 -> slot 5 (a zero slot).
        assert_eq!(
            idx.lookup(25),
            IndexLookup {
                slot: Some(5),
                entry: OffsetPosition {
                    offset: 0,
                    position: 0
                }
            }
        );
        assert_eq!(idx.lookup_valid(25).slot, Some(1));
    }

    #[test]
    fn warm_section_is_used_for_large_indexes() {
        let entries: Vec<_> = (0..3000).map(|i| e(i * 2 + 1, i * 10)).collect();
        let idx_bytes = encode_offset_index(&entries);
        let idx = OffsetIndex::parse(&idx_bytes, 0).unwrap();
        for target in [0i64, 1, 2, 999, 3000, 4000, 5998, 5999, 6000, 10_000] {
            let expect = entries
                .iter()
                .rposition(|x| i64::from(x.relative_offset) <= target);
            assert_eq!(idx.lookup(target).slot, expect, "target {target}");
        }
    }

    #[test]
    fn base_offset_overflow_is_refused() {
        assert!(OffsetIndex::parse(&[], i64::MAX).is_err());
        assert!(OffsetIndex::parse(&[], i64::MIN).is_err());
        assert!(OffsetIndex::parse(&[], i64::MAX - i64::from(i32::MAX)).is_ok());
    }

    #[test]
    fn truncated_at_every_byte_never_panics() {
        let mut bytes = encode_offset_index(&[e(1, 10), e(2, 20), e(3, 30)]);
        bytes.extend_from_slice(&[0; 16]);
        for n in 0..=bytes.len() {
            let idx = OffsetIndex::parse(&bytes[..n], 9).unwrap();
            assert_eq!(idx.slot_count(), n / 8);
            assert_eq!(idx.trailing_bytes(), (n % 8) as u64);
            let _ = (
                idx.sanity_check(),
                idx.entry_problems(),
                idx.lookup(11),
                idx.last_entry(),
            );
        }
    }

    proptest! {
        #[test]
        fn round_trip(rels in proptest::collection::btree_set(0i32..i32::MAX, 0..50),
                      base in 0i64..1_000_000_000_000, tail in 0usize..20) {
            let entries: Vec<_> = rels.iter().enumerate()
                .map(|(i, &r)| e(r, (i as i32 + 1) * 4096)).collect();
            let mut bytes = encode_offset_index(&entries);
            prop_assert_eq!(bytes.len(), entries.len() * 8);
            bytes.resize(bytes.len() + tail * 8, 0);
            let idx = OffsetIndex::parse(&bytes, base).unwrap();
            prop_assert_eq!(idx.valid_entries(), entries.len());
            let back: Vec<_> = idx.slots().take(idx.valid_entries()).collect();
            prop_assert_eq!(&back, &entries);
            prop_assert!(idx.sanity_check().is_empty());
            prop_assert!(idx.entry_problems().is_empty());
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200),
                                       target in any::<i64>()) {
            let idx = OffsetIndex::parse(&bytes, 0).unwrap();
            let _ = (idx.sanity_check(), idx.entry_problems(), idx.lookup(target),
                     idx.lookup_valid(target));
            prop_assert!(idx.valid_entries() <= idx.zero_tail_start());
        }

        #[test]
        fn kafka_lookup_matches_linear_scan_on_sorted_indexes(
            rels in proptest::collection::btree_set(0i32..100_000, 0..1500),
            target in -10i64..110_000) {
            let entries: Vec<_> = rels.iter().map(|&r| e(r, r)).collect();
            let idx_bytes = encode_offset_index(&entries);
        let idx = OffsetIndex::parse(&idx_bytes, 0).unwrap();
            let expect = entries.iter().rposition(|x| i64::from(x.relative_offset) <= target);
            prop_assert_eq!(idx.lookup(target).slot, expect);
        }
    }
}
