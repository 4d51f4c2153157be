//! What the offset and time indexes share (`AbstractIndex`): one generic [`SlotIndex`] over
//! fixed-size slots, with the entry-specific parts behind [`SlotEntry`].
//!
//! Source: Kafka `storage/src/main/java/org/apache/kafka/storage/internals/log/AbstractIndex.java`
//! (spec: kafka-on-disk-formats.md §4.3–§4.5, §11.2).
//!
//! Kafka counts `file length / entry size` slots and never looks for the zero-filled
//! preallocated tail, so an untrimmed file (active segment, crash) has trailing all-zero slots
//! that Kafka treats as entries. A [`SlotIndex`] keeps both views: every slot as Kafka counts
//! them ([`SlotLayout`]), and the valid prefix (spec §11.2) before the zero tail. Entries are
//! relative; [`SlotIndex::parse`] takes the segment base offset and refuses one for which
//! `base + i32` could overflow, so every absolute offset is exact.
//!
//! Also here: Kafka's slot search ([`kafka_largest_lower_bound`]) and the problems both indexes
//! report ([`IndexSanityProblem`], [`IndexEntryProblem`]).

use std::marker::PhantomData;
use std::ops::Range;

use super::error::{ErrorKind, FormatError, FormatResult};

/// Bytes of the "warm" section Kafka's lookup searches first (`AbstractIndex.warmEntries`).
pub const WARM_SECTION_BYTES: usize = 8192;

/// One slot of an index file: its decoding and the rules of its Kafka index class.
pub trait SlotEntry: Copy {
    /// Bytes per slot.
    const SIZE: usize;
    /// The entry with its offset made absolute (Kafka's `OffsetPosition`, `TimestampOffset`).
    type Absolute: Copy;

    /// Decode a slot from its first [`Self::SIZE`] bytes (`None` when `slot` is shorter).
    fn decode(slot: &[u8]) -> Option<Self>;

    /// Append the slot's [`Self::SIZE`] bytes to `out`.
    fn encode(&self, out: &mut Vec<u8>);

    /// The stored `offset - baseOffset`.
    fn relative_offset(&self) -> i32;

    /// Whether `self` may follow `prev` in the valid prefix (spec §11.2).
    fn follows(&self, prev: &Self) -> bool;

    /// The key Kafka's lookup compares with its target.
    fn lookup_key(&self, base_offset: i64) -> i64;

    /// `self` with its offset made absolute.
    fn absolute(&self, base_offset: i64) -> Self::Absolute;

    /// What Kafka returns when there is no entry (an empty index, or none ≤ the target).
    fn missing(base_offset: i64) -> Self::Absolute;

    /// The check Kafka's `sanityCheck` runs first, comparing the last slot (`slot`, at byte `at`)
    /// with slot 0; `None` when it passes. The offset index has no such check (the default).
    fn check_last_against_first(
        _first: &Self,
        _last: &Self,
        _slot: usize,
        _at: u64,
    ) -> Option<IndexSanityProblem> {
        None
    }

    /// The stricter checks of valid-prefix entry `slot` at byte `at` (`prev`: the entry before
    /// it), pushed onto `out` in the order the index reports them.
    fn push_problems(
        &self,
        prev: Option<&Self>,
        slot: usize,
        at: u64,
        out: &mut Vec<IndexEntryProblem>,
    );

    /// `base + relative_offset`. Exact for a base [`SlotIndex::parse`] accepted, so this never
    /// saturates.
    fn absolute_offset(&self, base_offset: i64) -> i64 {
        base_offset.saturating_add(i64::from(self.relative_offset()))
    }
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
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

/// The bytes of a slot not read: a hole of a sparse file reads as zeros.
const ZERO_SLOT: [u8; 16] = [0; 16];

/// The entry-agnostic layout of an index file's slots; every [`SlotIndex`] derefs to it.
#[derive(Debug, Clone)]
pub struct SlotLayout<'a> {
    /// The whole slots held (a trailing partial slot excluded); the slots after them, up to
    /// `slot_count`, are zeros not read ([`SlotIndex::parse_sparse`]).
    slots: &'a [u8],
    /// Slots as Kafka counts them (`file length / entry size`).
    slot_count: usize,
    /// Bytes per slot (8 or 12).
    entry_size: usize,
    /// File length.
    file_len: u64,
    /// Segment base offset.
    base_offset: i64,
    /// Length of the valid prefix.
    valid_entries: usize,
    /// First slot of the zero tail.
    zero_tail_start: usize,
    /// A tail read ([`SlotIndex::parse_tail`]): slots `1..gap_end` were not read, and `slots`
    /// holds slot 0 then the slots from `gap_end` on. 0 when every slot up to the held end is
    /// held.
    gap_end: usize,
}

impl<'a> SlotLayout<'a> {
    /// The raw bytes of slot `slot`, if it exists and was read.
    fn raw_slot(&self, slot: usize) -> Option<&'a [u8]> {
        let held_slot = match self.gap_end {
            g if g > 1 && slot > 0 && slot < g => return None,
            g if g > 1 && slot > 0 => slot - g + 1,
            _ => slot,
        };
        let at = held_slot.checked_mul(self.entry_size)?;
        match self.slots.get(at..at.checked_add(self.entry_size)?) {
            Some(held) => Some(held),
            None if slot < self.slot_count => ZERO_SLOT.get(..self.entry_size),
            None => None,
        }
    }

    /// Byte position of `slot`.
    fn slot_at(&self, slot: usize) -> u64 {
        (slot as u64).saturating_mul(self.entry_size as u64)
    }

    /// The segment base offset this view was parsed with.
    pub fn base_offset(&self) -> i64 {
        self.base_offset
    }

    /// File length in bytes.
    pub fn file_len(&self) -> u64 {
        self.file_len
    }

    /// Number of slots as Kafka counts them (`file length / entry size`), zero tail included.
    pub fn slot_count(&self) -> usize {
        self.slot_count
    }

    /// Slots not read by a tail read ([`SlotIndex::parse_tail`]); 0 for a view of every slot.
    pub fn slots_not_read(&self) -> usize {
        self.gap_end.saturating_sub(1)
    }

    /// The slots of `range` that were read (all of them unless the view is a tail read).
    fn held_slots(&self, range: Range<usize>) -> impl Iterator<Item = usize> {
        let gap = 1..self.gap_end.max(1);
        range.filter(move |s| !gap.contains(s))
    }

    /// Bytes after the last whole slot (non-zero when the length is not a multiple of the entry
    /// size).
    pub fn trailing_bytes(&self) -> u64 {
        self.file_len % self.entry_size as u64
    }

    /// Number of valid entries: the longest ordered prefix ending before the zero tail (spec
    /// §11.2).
    pub fn valid_entries(&self) -> usize {
        self.valid_entries
    }

    /// First slot of the trailing run of all-zero slots (`slot_count()` when there is none).
    /// A zero slot 0 followed by non-zero slots is an entry, not tail.
    pub fn zero_tail_start(&self) -> usize {
        self.zero_tail_start
    }

    /// Slots of the zero-filled preallocated tail.
    pub fn zero_tail(&self) -> Range<usize> {
        self.zero_tail_start..self.slot_count()
    }

    /// Slots after the valid prefix that are not zero tail (empty for a healthy file).
    pub fn garbage_slots(&self) -> Range<usize> {
        self.valid_entries..self.zero_tail_start
    }
}

/// A parsed index file of `E` slots (`.index` or `.timeindex`): a zero-copy view.
#[derive(Debug, Clone)]
pub struct SlotIndex<'a, E> {
    layout: SlotLayout<'a>,
    kind: PhantomData<E>,
}

impl<'a, E> std::ops::Deref for SlotIndex<'a, E> {
    type Target = SlotLayout<'a>;
    fn deref(&self) -> &SlotLayout<'a> {
        &self.layout
    }
}

impl<'a, E: SlotEntry> SlotIndex<'a, E> {
    /// Parse a whole index file of the segment starting at `base_offset`.
    ///
    /// Never fails on content (every byte pattern is a set of slots); fails only when
    /// `base_offset + i32` could overflow an `i64` ([`ErrorKind::LengthOutOfRange`] on field
    /// `base_offset`, offset 0).
    pub fn parse(bytes: &'a [u8], base_offset: i64) -> FormatResult<Self> {
        SlotIndex::parse_sparse(bytes, bytes.len() as u64, base_offset)
    }

    /// Parse an index file of `file_len` bytes of which only the first `held` were read: the
    /// rest are zeros (a hole of a sparse file: the preallocated tail of an active index that
    /// `setLength` left unwritten). The view is the one [`Self::parse`] gives for the whole
    /// file with those zeros read, without holding or scanning them. `held` must end on a slot
    /// boundary (or at the end of the file): the bytes of a partial slot at its end are not
    /// looked at. `held` longer than `file_len` is cut to it.
    pub fn parse_sparse(held: &'a [u8], file_len: u64, base_offset: i64) -> FormatResult<Self> {
        // Without a gap every view is conclusive.
        SlotIndex::build(held, 0, file_len, base_offset).map(|(view, _)| view)
    }

    /// Parse a tail read of an index file of `file_len` bytes: `held` is slot 0, then the slots
    /// from `gap_end` (> 1) on, up to where the file's data ends (the rest are zeros, as
    /// [`Self::parse_sparse`] takes them). Slots `1..gap_end` are not read, and are taken to
    /// continue the valid prefix: the view answers as [`Self::parse_sparse`] of the whole file
    /// would when they do. `None` when the slots held cannot tell: the first slot after the
    /// gap does not follow slot 0 (the valid prefix ends in the gap), or every slot after it is
    /// zero (the zero tail may reach into the gap); the whole file must then be read.
    ///
    /// Only for the summaries a shallow scan keeps (shape, checks, last entries): slots in the
    /// gap read as absent, so lookups over such a view are not Kafka's.
    pub fn parse_tail(
        held: &'a [u8],
        gap_end: usize,
        file_len: u64,
        base_offset: i64,
    ) -> FormatResult<Option<Self>> {
        let (view, conclusive) = SlotIndex::build(held, gap_end.max(2), file_len, base_offset)?;
        Ok(conclusive.then_some(view))
    }

    /// The view, and whether the slots held tell it (always, without a gap).
    fn build(
        held: &'a [u8],
        gap_end: usize,
        file_len: u64,
        base_offset: i64,
    ) -> FormatResult<(Self, bool)> {
        check_base_offset(base_offset)?;
        let size = E::SIZE as u64;
        let whole = file_len - file_len % size;
        let gap = gap_end.saturating_sub(1);
        let whole_held = usize::try_from(whole)
            .unwrap_or(usize::MAX)
            .saturating_sub(gap.saturating_mul(E::SIZE));
        let held = held.get(..whole_held.min(held.len())).unwrap_or(&[]);
        let held = held.get(..held.len() - held.len() % E::SIZE).unwrap_or(&[]);
        let mut view: Self = SlotIndex {
            layout: SlotLayout {
                slots: held,
                slot_count: usize::try_from(whole / size).unwrap_or(usize::MAX),
                entry_size: E::SIZE,
                file_len,
                base_offset,
                valid_entries: 0,
                zero_tail_start: 0,
                gap_end,
            },
            kind: PhantomData,
        };
        // The zero tail is the trailing run of all-zero slots (a zero slot 0 followed by a
        // non-zero slot is not tail); the valid prefix is the longest prefix of slots that
        // each follow the previous one, capped at the zero tail. Slots not held are zeros.
        let held_end = (held.len() / E::SIZE).saturating_add(gap);
        let mut tail = view.slot_count().min(held_end);
        while let Some(prev) = tail.checked_sub(1) {
            if !view
                .raw_slot(prev)
                .is_some_and(|s| s.iter().all(|&b| b == 0))
            {
                break;
            }
            tail = prev;
        }
        // Only zeros after the gap: the zero tail may start inside it.
        let mut conclusive = gap == 0 || tail > gap_end;
        let mut valid = usize::from(tail > 0);
        while valid < tail {
            // Across the gap, the first slot after it is compared with slot 0.
            let (prev, next) = if gap > 0 && valid == 1 {
                (0, gap_end)
            } else {
                (valid - 1, valid)
            };
            match (view.entry(prev), view.entry(next)) {
                (Some(a), Some(b)) if b.follows(&a) => valid = next + 1,
                _ => {
                    // A valid prefix that ends in the gap cannot be told from the tail.
                    conclusive &= !(gap > 0 && next == gap_end);
                    break;
                }
            }
        }
        view.layout.valid_entries = valid;
        view.layout.zero_tail_start = tail;
        Ok((view, conclusive))
    }

    /// The raw slot `slot`, if it exists.
    pub fn entry(&self, slot: usize) -> Option<E> {
        E::decode(self.raw_slot(slot)?)
    }

    /// Every slot as Kafka counts them, zero tail included.
    pub fn slots(&self) -> impl Iterator<Item = E> + '_ {
        (0..self.slot_count()).filter_map(|i| self.entry(i))
    }

    /// The valid entries, with absolute offsets.
    pub fn valid(&self) -> impl Iterator<Item = E::Absolute> + '_ {
        (0..self.valid_entries)
            .filter_map(|i| self.entry(i))
            .map(|e| self.absolute(e))
    }

    /// `entry` with its offset made absolute.
    pub fn absolute(&self, entry: E) -> E::Absolute {
        entry.absolute(self.base_offset)
    }

    /// Kafka's `lastEntry`: the last slot as Kafka counts them (a zero-tail slot included), or
    /// Kafka's default for an empty index. For the time index its timestamp is the segment's
    /// `largestTimestamp` for retention (the `.log` mtime when negative), so a zero tail makes
    /// it 0.
    pub fn last_entry(&self) -> E::Absolute {
        self.last_of(self.slot_count())
    }

    /// The last valid entry, or Kafka's default when there is none.
    pub fn last_valid_entry(&self) -> E::Absolute {
        self.last_of(self.valid_entries)
    }

    fn last_of(&self, entries: usize) -> E::Absolute {
        entries
            .checked_sub(1)
            .and_then(|s| self.entry(s))
            .map_or(E::missing(self.base_offset), |e| self.absolute(e))
    }

    /// Kafka's `sanityCheck`, exactly and in its order: the entry's own check of the last slot
    /// against slot 0 (time index: timestamp below slot 0's), the last slot's offset below the
    /// base, the length not a multiple of the entry size. Empty when Kafka would accept the
    /// file.
    pub fn sanity_check(&self) -> Vec<IndexSanityProblem> {
        let mut out = Vec::new();
        let last_slot = self.slot_count().checked_sub(1);
        if let Some((slot, last)) = last_slot.and_then(|s| Some((s, self.entry(s)?))) {
            let at = self.slot_at(slot);
            if let Some(first) = self.entry(0) {
                out.extend(E::check_last_against_first(&first, &last, slot, at));
            }
            let last_offset = last.absolute_offset(self.base_offset);
            if last_offset < self.base_offset {
                out.push(IndexSanityProblem::LastOffsetBelowBase {
                    slot,
                    at,
                    last_offset,
                    base_offset: self.base_offset,
                });
            }
        }
        if self.trailing_bytes() != 0 {
            out.push(IndexSanityProblem::LengthNotMultiple {
                at: self.slot_at(self.slot_count),
                length: self.file_len,
                entry_size: E::SIZE,
            });
        }
        out
    }

    /// Checks no Kafka code runs but every Kafka writer satisfies (see [`IndexEntryProblem`]):
    /// the entry's own checks along the valid prefix, then the garbage slots after it.
    pub fn entry_problems(&self) -> Vec<IndexEntryProblem> {
        let mut out = Vec::new();
        let mut prev: Option<E> = None;
        for slot in self.held_slots(0..self.valid_entries) {
            let Some(e) = self.entry(slot) else { break };
            // The slot before the first one after a gap was not read.
            let before = prev.filter(|_| slot != self.gap_end);
            e.push_problems(before.as_ref(), slot, self.slot_at(slot), &mut out);
            prev = Some(e);
        }
        let garbage = self.garbage_slots();
        if !garbage.is_empty() {
            out.push(IndexEntryProblem::GarbageSlots {
                first_slot: garbage.start,
                at: self.slot_at(garbage.start),
                count: garbage.len(),
            });
        }
        out
    }

    /// Kafka's `lookup(target)` (`OffsetIndex`, `TimeIndex`), reproduced exactly over every slot
    /// Kafka counts (including a zero tail, which breaks the sorted order its search assumes):
    /// the slot with the largest key ≤ `target` (offset or timestamp) as Kafka's warm-section
    /// binary search finds it, else Kafka's default.
    pub fn lookup(&self, target: i64) -> IndexLookup<E::Absolute> {
        self.lookup_in(self.slot_count(), target)
    }

    /// Like [`lookup`](Self::lookup), but over the valid entries only (what Kafka would find
    /// after trimming the zero tail).
    pub fn lookup_valid(&self, target: i64) -> IndexLookup<E::Absolute> {
        self.lookup_in(self.valid_entries, target)
    }

    fn lookup_in(&self, entries: usize, target: i64) -> IndexLookup<E::Absolute> {
        let slot = kafka_largest_lower_bound(entries, E::SIZE, target, |i| {
            self.entry(i).map(|e| e.lookup_key(self.base_offset))
        });
        match slot.and_then(|s| Some((s, self.entry(s)?))) {
            Some((s, e)) => IndexLookup {
                slot: Some(s),
                entry: self.absolute(e),
            },
            None => IndexLookup {
                slot: None,
                entry: E::missing(self.base_offset),
            },
        }
    }
}

/// Encode entries as the bytes of a trimmed index file (test and rebuild helper).
pub fn encode_slots<E: SlotEntry>(entries: &[E]) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.len().saturating_mul(E::SIZE));
    for e in entries {
        e.encode(&mut out);
    }
    out
}

/// Reject base offsets for which `base + i32` could overflow `i64`.
fn check_base_offset(base_offset: i64) -> FormatResult<()> {
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
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::formats::offset_index::OffsetIndex;
    use crate::formats::time_index::TimeIndex;

    /// Everything a view answers, for comparing two views of one file.
    fn answers<E: SlotEntry + std::fmt::Debug>(v: &SlotIndex<'_, E>) -> String
    where
        E::Absolute: std::fmt::Debug,
    {
        let lookups: Vec<_> = [-1, 0, 5, 12, 13, 14, 1 << 40]
            .iter()
            .map(|&t| (v.lookup(t).slot, v.lookup_valid(t).slot))
            .collect();
        format!(
            "{} {:?} {:?}",
            summaries(v, &v.entry_problems()),
            v.slots().collect::<Vec<_>>(),
            lookups,
        )
    }

    /// `parse_sparse` of every whole-slot prefix that holds all the non-zero bytes (and of the
    /// whole file) answers as `parse` of the whole file with its zeros read.
    fn sparse_equals_whole<E: SlotEntry + std::fmt::Debug>(whole: &[u8], base: i64)
    where
        E::Absolute: std::fmt::Debug,
    {
        let full = answers(&SlotIndex::<E>::parse(whole, base).unwrap());
        let data_end = whole.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        let first = data_end.div_ceil(E::SIZE) * E::SIZE;
        let helds = (first..whole.len()).step_by(E::SIZE).chain([whole.len()]);
        for held in helds {
            let sparse = SlotIndex::<E>::parse_sparse(&whole[..held], whole.len() as u64, base);
            assert_eq!(
                answers(&sparse.unwrap()),
                full,
                "held {held} of {}",
                whole.len()
            );
        }
    }

    /// The `.index` and `.timeindex` of segment 12 of the unclean-shutdown fixture's `crash-1`:
    /// a SIGKILLed broker's preallocated active indexes (real entries, then a zero tail).
    fn crashed_active_indexes() -> (Vec<u8>, Vec<u8>) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/unclean-shutdown/logs-0/crash-1");
        let read = |ext: &str| std::fs::read(dir.join(format!("00000000000000000012.{ext}")));
        (read("index").unwrap(), read("timeindex").unwrap())
    }

    /// The real preallocated active indexes of a crashed broker (unclean-shutdown fixture:
    /// 64 KiB `.index` and `.timeindex` with a zero tail), and hand-made variants: garbage
    /// after the valid prefix, a partial trailing slot, an all-zero file, an empty one.
    #[test]
    fn a_sparse_view_is_the_view_of_the_whole_file() {
        let (index, time) = crashed_active_indexes();
        assert!(index.len() > 1000 && time.len() > 1000);
        for (bytes, cut) in [(&index, 200), (&time, 300)] {
            let small = &bytes[..cut];
            sparse_equals_whole::<crate::formats::offset_index::OffsetIndexEntry>(small, 12);
            sparse_equals_whole::<crate::formats::time_index::TimeIndexEntry>(small, 12);
            let mut garbage = small.to_vec();
            garbage[cut - 40] = 0x7f;
            sparse_equals_whole::<crate::formats::offset_index::OffsetIndexEntry>(&garbage, 12);
            sparse_equals_whole::<crate::formats::time_index::TimeIndexEntry>(&garbage, 12);
            let mut partial = small.to_vec();
            partial.extend_from_slice(&[0, 0, 0]);
            sparse_equals_whole::<crate::formats::offset_index::OffsetIndexEntry>(&partial, 12);
            sparse_equals_whole::<crate::formats::time_index::TimeIndexEntry>(&partial, 12);
        }
        sparse_equals_whole::<crate::formats::offset_index::OffsetIndexEntry>(&[0; 80], 0);
        sparse_equals_whole::<crate::formats::time_index::TimeIndexEntry>(&[], 0);
        // The whole fixture files, held only up to their entries.
        let whole = answers(&OffsetIndex::parse(&index, 12).unwrap());
        let data_end = (index.iter().rposition(|&b| b != 0).unwrap() + 1).div_ceil(8) * 8;
        let sparse = OffsetIndex::parse_sparse(&index[..data_end], index.len() as u64, 12);
        assert_eq!(answers(&sparse.unwrap()), whole);
        let whole = answers(&TimeIndex::parse(&time, 12).unwrap());
        let data_end = (time.iter().rposition(|&b| b != 0).unwrap() + 1).div_ceil(12) * 12;
        let sparse = TimeIndex::parse_sparse(&time[..data_end], time.len() as u64, 12);
        assert_eq!(answers(&sparse.unwrap()), whole);
    }

    /// What a tail view answers of the whole file: everything but lookups and the slots of
    /// the gap (entry problems in or right after it are not seen).
    fn tail_answers<E: SlotEntry + std::fmt::Debug>(v: &SlotIndex<'_, E>, gap_end: usize) -> String
    where
        E::Absolute: std::fmt::Debug,
    {
        let seen = |slot: usize| slot == 0 || slot > gap_end;
        let problems: Vec<_> = (v.entry_problems().into_iter())
            .filter(|p| match p {
                IndexEntryProblem::GarbageSlots { .. } => true,
                IndexEntryProblem::NegativeRelativeOffset { slot, .. }
                | IndexEntryProblem::NegativePosition { slot, .. }
                | IndexEntryProblem::PositionNotIncreasing { slot, .. }
                | IndexEntryProblem::NegativeTimestamp { slot, .. } => seen(*slot),
            })
            .collect();
        summaries(v, &problems)
    }

    /// The summaries a shallow scan keeps of a view (shape, checks, last entries), with
    /// `problems` for its entry problems.
    fn summaries<E: SlotEntry>(v: &SlotIndex<'_, E>, problems: &[IndexEntryProblem]) -> String
    where
        E::Absolute: std::fmt::Debug,
    {
        format!(
            "{} {} {} {:?} {:?} {:?} {:?} {:?} {:?}",
            v.file_len(),
            v.slot_count(),
            v.valid_entries(),
            v.zero_tail(),
            v.garbage_slots(),
            v.sanity_check(),
            problems,
            v.last_entry(),
            v.last_valid_entry(),
        )
    }

    /// For every gap a tail read can leave in `whole` (held up to its last non-zero slot and
    /// up to its end): the tail view answers as the whole view does when the gap's slots
    /// continue the valid prefix and the tail holds a non-zero slot, and is refused (`None`)
    /// when the tail holds only zeros or does not follow slot 0.
    fn tail_equals_whole<E: SlotEntry + std::fmt::Debug>(whole: &[u8], base: i64)
    where
        E::Absolute: std::fmt::Debug,
    {
        let full = SlotIndex::<E>::parse(whole, base).unwrap();
        let expect = |g| tail_answers(&full, g);
        let data_end = whole.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        let held_ends = [
            (data_end.div_ceil(E::SIZE) * E::SIZE).min(whole.len()),
            whole.len(),
        ];
        for held_end in held_ends {
            for gap_end in 2..held_end / E::SIZE {
                let mut held = whole[..E::SIZE].to_vec();
                held.extend_from_slice(&whole[gap_end * E::SIZE..held_end]);
                let tail = SlotIndex::<E>::parse_tail(&held, gap_end, whole.len() as u64, base);
                let tail = tail.unwrap();
                let tells = full.valid_entries() > gap_end && full.zero_tail_start() > gap_end;
                let zeros_only = full.zero_tail_start() <= gap_end;
                match tail {
                    Some(t) if tells => {
                        assert_eq!(
                            tail_answers(&t, gap_end),
                            expect(gap_end),
                            "gap_end {gap_end}"
                        );
                        assert_eq!(t.slots_not_read(), gap_end - 1);
                    }
                    // Refused only when it cannot tell.
                    None => assert!(!tells, "gap_end {gap_end} refused"),
                    // Told wrong only when the valid prefix ends inside the gap and the tail
                    // still follows slot 0: the documented blind spot of a tail read.
                    Some(t) => {
                        assert!(!zeros_only, "gap_end {gap_end}: only zeros after the gap");
                        assert!(full.valid_entries() <= gap_end, "gap_end {gap_end}");
                        assert!(t.valid_entries() > gap_end, "gap_end {gap_end}");
                    }
                }
            }
        }
    }

    /// Tail reads of the real preallocated indexes of the unclean-shutdown fixture (a zero
    /// tail after real entries), and of variants: the zero tail cut off, garbage before the
    /// tail and in it, the last time entry below slot 0, a partial trailing slot.
    #[test]
    fn a_tail_view_is_the_view_of_the_whole_file_when_it_can_tell() {
        use crate::formats::offset_index::OffsetIndexEntry;
        use crate::formats::time_index::TimeIndexEntry;
        let (index, time) = crashed_active_indexes();
        let entries = |b: &[u8], size: usize| b.iter().rposition(|&x| x != 0).unwrap() / size + 1;
        let (ni, nt) = (entries(&index, 8), entries(&time, 12));
        assert!(ni >= 4 && nt >= 4, "{ni} {nt} entries");
        for (bytes, n, size) in [(&index, ni, 8), (&time, nt, 12)] {
            let check = |b: &[u8]| {
                if size == 8 {
                    tail_equals_whole::<OffsetIndexEntry>(b, 12);
                } else {
                    tail_equals_whole::<TimeIndexEntry>(b, 12);
                }
            };
            let with_zeros = &bytes[..(n + 20) * size];
            check(with_zeros);
            check(&bytes[..n * size]);
            for slot in [1, n / 2, n - 1] {
                let mut garbage = with_zeros.to_vec();
                garbage[slot * size..(slot + 1) * size].fill(0x7f);
                check(&garbage);
                let mut backwards = with_zeros.to_vec();
                backwards[slot * size..(slot + 1) * size].fill(0);
                check(&backwards);
            }
            let mut partial = with_zeros.to_vec();
            partial.extend_from_slice(&[0, 1, 0]);
            check(&partial);
        }
        let mut below_first = time[..nt * 12].to_vec();
        below_first[(nt - 1) * 12..(nt - 1) * 12 + 8].copy_from_slice(&1i64.to_be_bytes());
        tail_equals_whole::<TimeIndexEntry>(&below_first, 12);
    }

    proptest::proptest! {
        /// Any index of up to 300 slots, healthy or not, read as a tail with any gap: told as
        /// the whole file tells it, refused, or (only when the valid prefix ends in the gap)
        /// told as longer.
        #[test]
        fn tail_views_of_arbitrary_indexes(
            rels in proptest::collection::btree_set(0i32..1_000_000, 3..300),
            bad in proptest::collection::vec((0usize..300, proptest::prelude::any::<u64>()), 0..3),
            zeros in 0usize..40,
        ) {
            use crate::formats::offset_index::{encode_offset_index, OffsetIndexEntry};
            let entries: Vec<_> = rels.iter().enumerate()
                .map(|(i, &r)| OffsetIndexEntry { relative_offset: r, position: i as i32 * 100 })
                .collect();
            let mut bytes = encode_offset_index(&entries);
            for (slot, v) in bad {
                let at = (slot % entries.len()) * 8;
                bytes[at..at + 8].copy_from_slice(&v.to_be_bytes());
            }
            bytes.resize(bytes.len() + zeros * 8, 0);
            tail_equals_whole::<OffsetIndexEntry>(&bytes, 0);
        }
    }
}
