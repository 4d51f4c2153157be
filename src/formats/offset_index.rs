//! The offset index `.index`: 8-byte slots `relativeOffset i32, position i32`, no header.
//!
//! Source: Kafka `storage/src/main/java/org/apache/kafka/storage/internals/log/OffsetIndex.java`
//! and `AbstractIndex.java` (spec: kafka-on-disk-formats.md §4.1, §4.3–§4.5, §11.2).
//!
//! Kafka counts `file length / 8` entries and never looks for the zero-filled preallocated tail,
//! so an untrimmed file (active segment, crash) has trailing all-zero slots that Kafka treats as
//! entries `(base, 0)`. [`OffsetIndex`] keeps both views: every slot as Kafka counts them, and the
//! valid prefix (spec §11.2) before the zero tail. Entries are relative; [`OffsetIndex::parse`]
//! takes the segment base offset and refuses one for which `base + i32` could overflow, so every
//! absolute offset below is exact.
//!
//! This module also holds what the offset and time indexes share: Kafka's slot search
//! ([`kafka_largest_lower_bound`]), the layout scan, and [`IndexSanityProblem`].

use std::ops::Range;

use super::bytes::Cursor;
use super::error::{ErrorKind, FormatError, FormatResult};
use super::index_layout::SlotLayout;

/// Size of one `.index` slot in bytes.
pub const ENTRY_SIZE: usize = 8;

/// Bytes of the "warm" section Kafka's lookup searches first (`AbstractIndex.warmEntries`).
pub const WARM_SECTION_BYTES: usize = 8192;

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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffsetPosition {
    /// Absolute offset (`base_offset + relative_offset`).
    pub offset: i64,
    /// Byte position in the `.log`.
    pub position: i32,
}

/// Result of an index lookup: the slot found, or `None` when Kafka falls back to its default
/// (`(base, 0)` for the offset index, `(-1, base)` for the time index).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexLookup<T> {
    /// The slot the search returned, `None` for "no entry ≤ target" or an empty index.
    pub slot: Option<usize>,
    /// The entry Kafka uses: the slot's entry, or the default.
    pub entry: T,
}

/// A failed Kafka index sanity check (`OffsetIndex.sanityCheck`, `TimeIndex.sanityCheck`,
/// spec §4.4). Kafka throws `CorruptIndexException` for the first of these it meets; the checks
/// return all of them in Kafka's order, so the first element is the one Kafka would report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexSanityProblem {
    /// Time index only: the last slot's timestamp is below slot 0's.
    LastTimestampBelowFirst {
        /// The last slot (`entries - 1`, Kafka's count).
        slot: usize,
        /// Byte position of that slot.
        at: u64,
        /// Its timestamp.
        last_timestamp: i64,
        /// Slot 0's timestamp.
        first_timestamp: i64,
    },
    /// The last slot's absolute offset is below the segment base offset (negative relative
    /// offset).
    LastOffsetBelowBase {
        /// The last slot (`entries - 1`, Kafka's count).
        slot: usize,
        /// Byte position of that slot.
        at: u64,
        /// Its absolute offset.
        last_offset: i64,
        /// The segment base offset.
        base_offset: i64,
    },
    /// The file length is not a multiple of the entry size.
    LengthNotMultiple {
        /// Byte position where the partial trailing slot starts.
        at: u64,
        /// File length in bytes.
        length: u64,
        /// Entry size (8 or 12).
        entry_size: usize,
    },
}

impl IndexSanityProblem {
    /// Byte position the problem points at.
    pub fn offset(&self) -> u64 {
        match self {
            IndexSanityProblem::LastTimestampBelowFirst { at, .. }
            | IndexSanityProblem::LastOffsetBelowBase { at, .. }
            | IndexSanityProblem::LengthNotMultiple { at, .. } => *at,
        }
    }
}

/// A problem Kafka does not check but that no Kafka writer produces (stricter than
/// [`IndexSanityProblem`]; spec §4.1, §4.2, §11.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexEntryProblem {
    /// Non-zero slots between the valid prefix and the zero tail: entries Kafka would use
    /// (it counts every slot) but that break the ordering its binary search assumes.
    GarbageSlots {
        /// First such slot.
        first_slot: usize,
        /// Byte position of that slot.
        at: u64,
        /// Number of slots up to the zero tail.
        count: usize,
    },
    /// A valid-prefix entry with a negative relative offset (offset below the base).
    NegativeRelativeOffset {
        /// Slot number.
        slot: usize,
        /// Byte position.
        at: u64,
        /// The value read.
        relative_offset: i32,
    },
    /// Offset index: a valid-prefix entry with a negative `.log` position.
    NegativePosition {
        /// Slot number.
        slot: usize,
        /// Byte position.
        at: u64,
        /// The value read.
        position: i32,
    },
    /// Offset index: positions that do not strictly increase along the valid prefix.
    PositionNotIncreasing {
        /// Slot number of the later entry.
        slot: usize,
        /// Byte position of the later entry.
        at: u64,
        /// Previous position.
        prev: i32,
        /// This position.
        next: i32,
    },
    /// Time index: a valid-prefix entry with a negative timestamp (Kafka never indexes one).
    NegativeTimestamp {
        /// Slot number.
        slot: usize,
        /// Byte position.
        at: u64,
        /// The value read.
        timestamp: i64,
    },
}

/// A parsed `.index` file: a zero-copy view over its slots.
#[derive(Debug, Clone)]
pub struct OffsetIndex<'a> {
    layout: SlotLayout<'a>,
}

impl<'a> std::ops::Deref for OffsetIndex<'a> {
    type Target = SlotLayout<'a>;
    fn deref(&self) -> &SlotLayout<'a> {
        &self.layout
    }
}

impl<'a> OffsetIndex<'a> {
    /// Parse a whole `.index` file of the segment starting at `base_offset`.
    ///
    /// Never fails on content (every byte pattern is a set of slots); fails only when
    /// `base_offset + i32` could overflow an `i64` ([`ErrorKind::LengthOutOfRange`] on field
    /// `base_offset`, offset 0).
    pub fn parse(bytes: &'a [u8], base_offset: i64) -> FormatResult<Self> {
        let mut view = Self {
            layout: SlotLayout::new(bytes, ENTRY_SIZE, base_offset)?,
        };
        let n = view.slot_count();
        let (valid, tail) = scan_layout(
            n,
            |i| view.entry(i).is_some_and(|e| e.is_zero()),
            |p, q| match (view.entry(p), view.entry(q)) {
                (Some(a), Some(b)) => b.relative_offset > a.relative_offset,
                _ => false,
            },
        );
        view.layout.valid_entries = valid;
        view.layout.zero_tail_start = tail;
        Ok(view)
    }

    /// The raw slot `slot`, if it exists.
    pub fn entry(&self, slot: usize) -> Option<OffsetIndexEntry> {
        let raw = self.raw_slot(slot)?;
        let mut c = Cursor::new(raw);
        Some(OffsetIndexEntry {
            relative_offset: c.i32().ok()?,
            position: c.i32().ok()?,
        })
    }

    /// Every slot as Kafka counts them, zero tail included.
    pub fn slots(&self) -> impl Iterator<Item = OffsetIndexEntry> + '_ {
        (0..self.slot_count()).filter_map(|i| self.entry(i))
    }

    /// The valid entries, as absolute offsets.
    pub fn valid(&self) -> impl Iterator<Item = OffsetPosition> + '_ {
        (0..self.valid_entries)
            .filter_map(|i| self.entry(i))
            .map(|e| self.absolute(e))
    }

    /// `entry` with its offset made absolute.
    pub fn absolute(&self, entry: OffsetIndexEntry) -> OffsetPosition {
        OffsetPosition {
            offset: absolute_offset(self.base_offset, entry.relative_offset),
            position: entry.position,
        }
    }

    /// Kafka's `lastEntry`: the last slot as Kafka counts them (a zero-tail slot reads as
    /// `(base, 0)`), or `(base, 0)` for an empty index.
    pub fn last_entry(&self) -> OffsetPosition {
        self.last_of(self.slot_count())
    }

    /// The last valid entry, or `(base, 0)` when there is none.
    pub fn last_valid_entry(&self) -> OffsetPosition {
        self.last_of(self.valid_entries)
    }

    fn last_of(&self, entries: usize) -> OffsetPosition {
        entries
            .checked_sub(1)
            .and_then(|s| self.entry(s))
            .map(|e| self.absolute(e))
            .unwrap_or(OffsetPosition {
                offset: self.base_offset,
                position: 0,
            })
    }

    /// Kafka's `OffsetIndex.sanityCheck`, exactly: last slot's offset < base, then length not a
    /// multiple of 8. Empty when Kafka would accept the file.
    pub fn sanity_check(&self) -> Vec<IndexSanityProblem> {
        let mut out = Vec::new();
        let n = self.slot_count();
        if let Some(last) = n.checked_sub(1) {
            let e = self.last_entry();
            if e.offset < self.base_offset {
                out.push(IndexSanityProblem::LastOffsetBelowBase {
                    slot: last,
                    at: slot_at(last, ENTRY_SIZE),
                    last_offset: e.offset,
                    base_offset: self.base_offset,
                });
            }
        }
        if self.trailing_bytes() != 0 {
            out.push(IndexSanityProblem::LengthNotMultiple {
                at: self.slots.len() as u64,
                length: self.file_len,
                entry_size: ENTRY_SIZE,
            });
        }
        out
    }

    /// Checks no Kafka code runs but every Kafka writer satisfies (see [`IndexEntryProblem`]).
    pub fn entry_problems(&self) -> Vec<IndexEntryProblem> {
        let mut out = Vec::new();
        let mut prev: Option<i32> = None;
        for slot in 0..self.valid_entries {
            let Some(e) = self.entry(slot) else { break };
            let at = slot_at(slot, ENTRY_SIZE);
            if e.relative_offset < 0 {
                out.push(IndexEntryProblem::NegativeRelativeOffset {
                    slot,
                    at,
                    relative_offset: e.relative_offset,
                });
            }
            if e.position < 0 {
                out.push(IndexEntryProblem::NegativePosition {
                    slot,
                    at,
                    position: e.position,
                });
            }
            if let Some(p) = prev {
                if e.position <= p {
                    out.push(IndexEntryProblem::PositionNotIncreasing {
                        slot,
                        at,
                        prev: p,
                        next: e.position,
                    });
                }
            }
            prev = Some(e.position);
        }
        push_garbage(&mut out, self.garbage_slots(), ENTRY_SIZE);
        out
    }

    /// Kafka's `OffsetIndex.lookup(target)`, reproduced exactly over every slot Kafka counts
    /// (including a zero tail, which breaks the sorted order its search assumes): the slot with
    /// the largest offset ≤ `target` as Kafka's warm-section binary search finds it, else
    /// `(base, 0)`.
    pub fn lookup(&self, target: i64) -> IndexLookup<OffsetPosition> {
        let slot = kafka_largest_lower_bound(self.slot_count(), ENTRY_SIZE, target, |i| {
            self.entry(i)
                .map(|e| absolute_offset(self.base_offset, e.relative_offset))
        });
        self.lookup_result(slot)
    }

    /// Like [`lookup`](Self::lookup), but over the valid entries only (what Kafka would find
    /// after trimming the zero tail).
    pub fn lookup_valid(&self, target: i64) -> IndexLookup<OffsetPosition> {
        let slot = kafka_largest_lower_bound(self.valid_entries, ENTRY_SIZE, target, |i| {
            self.entry(i)
                .map(|e| absolute_offset(self.base_offset, e.relative_offset))
        });
        self.lookup_result(slot)
    }

    fn lookup_result(&self, slot: Option<usize>) -> IndexLookup<OffsetPosition> {
        let found = slot.and_then(|s| self.entry(s).map(|e| (s, self.absolute(e))));
        match found {
            Some((s, entry)) => IndexLookup {
                slot: Some(s),
                entry,
            },
            None => IndexLookup {
                slot: None,
                entry: OffsetPosition {
                    offset: self.base_offset,
                    position: 0,
                },
            },
        }
    }
}

/// Encode entries as the bytes of a trimmed `.index` file (test and rebuild helper).
pub fn encode_offset_index(entries: &[OffsetIndexEntry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.len().saturating_mul(ENTRY_SIZE));
    for e in entries {
        out.extend_from_slice(&e.relative_offset.to_be_bytes());
        out.extend_from_slice(&e.position.to_be_bytes());
    }
    out
}

// ---- shared with time_index.rs ----

/// Reject base offsets for which `base + i32` could overflow `i64`.
pub(crate) fn check_base_offset(base_offset: i64) -> FormatResult<()> {
    let min = i64::MIN - i64::from(i32::MIN);
    let max = i64::MAX - i64::from(i32::MAX);
    if base_offset < min || base_offset > max {
        return Err(FormatError::new(
            ErrorKind::LengthOutOfRange {
                field: "base_offset",
                value: base_offset,
                min,
                max,
            },
            0,
        ));
    }
    Ok(())
}

/// `base + relative`. Exact: [`check_base_offset`] ran at parse, so this never saturates.
pub(crate) fn absolute_offset(base_offset: i64, relative: i32) -> i64 {
    base_offset.saturating_add(i64::from(relative))
}

/// The whole-slot part of `bytes` and the trailing partial part.
pub(crate) fn split_slots(bytes: &[u8], entry_size: usize) -> (&[u8], &[u8]) {
    let whole = bytes.len() - bytes.len() % entry_size;
    bytes.split_at(whole)
}

/// Byte position of `slot`.
pub(crate) fn slot_at(slot: usize, entry_size: usize) -> u64 {
    (slot as u64).saturating_mul(entry_size as u64)
}

/// `(valid_entries, zero_tail_start)` for `n` slots: the zero tail is the trailing run of all-zero
/// slots (a zero slot 0 followed by a non-zero slot is not tail); the valid prefix is the longest
/// prefix where each slot `increases` over the previous one, capped at the zero tail.
pub(crate) fn scan_layout(
    n: usize,
    is_zero: impl Fn(usize) -> bool,
    increases: impl Fn(usize, usize) -> bool,
) -> (usize, usize) {
    let mut tail = n;
    while let Some(prev) = tail.checked_sub(1) {
        if !is_zero(prev) {
            break;
        }
        tail = prev;
    }
    let mut valid = usize::from(tail > 0);
    while valid < tail && increases(valid - 1, valid) {
        valid += 1;
    }
    (valid, tail)
}

pub(crate) fn push_garbage(out: &mut Vec<IndexEntryProblem>, garbage: Range<usize>, size: usize) {
    if !garbage.is_empty() {
        out.push(IndexEntryProblem::GarbageSlots {
            first_slot: garbage.start,
            at: slot_at(garbage.start, size),
            count: garbage.len(),
        });
    }
}

/// Kafka's `AbstractIndex.largestLowerBoundSlotFor`, reproduced step by step: with `entries`
/// slots of `entry_size` bytes and `key(slot)` the compared key, first try the warm section (the
/// last `8192 / entry_size` slots), then slot 0, then a binary search of the rest. Returns `None`
/// for Kafka's `-1` (empty index, or target below the first key). A slot whose key cannot be read
/// (never the case for slots below `entries`) ends the search with `None`.
pub fn kafka_largest_lower_bound(
    entries: usize,
    entry_size: usize,
    target: i64,
    key: impl Fn(usize) -> Option<i64>,
) -> Option<usize> {
    let last = entries.checked_sub(1)?;
    let warm = WARM_SECTION_BYTES.checked_div(entry_size)?;
    let first_hot = last.saturating_sub(warm);
    if key(first_hot)? < target {
        return binary_search(target, first_hot, last, &key);
    }
    if key(0)? > target {
        return None;
    }
    binary_search(target, 0, first_hot, &key)
}

fn binary_search(
    target: i64,
    begin: usize,
    end: usize,
    key: &impl Fn(usize) -> Option<i64>,
) -> Option<usize> {
    let (mut lo, mut hi) = (begin, end);
    while lo < hi {
        // (lo + hi + 1) >>> 1 without overflow.
        let mid = lo + (hi - lo).div_ceil(2);
        let k = key(mid)?;
        match k.cmp(&target) {
            std::cmp::Ordering::Greater => hi = mid - 1,
            std::cmp::Ordering::Less => lo = mid,
            std::cmp::Ordering::Equal => return Some(mid),
        }
    }
    Some(lo)
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
