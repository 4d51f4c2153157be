//! The slot layout the offset and time indexes share (`AbstractIndex`): fixed-size slots counted
//! as Kafka counts them (file length / entry size), the valid prefix, the zero-filled
//! preallocated tail, and what lies between. Spec formats §4.3, §11.2.

use std::ops::Range;

use super::offset_index::{check_base_offset, split_slots};
use super::FormatResult;

/// Layout of an index file's slots; `OffsetIndex` and `TimeIndex` deref to it.
#[derive(Debug, Clone)]
pub struct SlotLayout<'a> {
    /// The whole slots (a trailing partial slot excluded).
    pub(crate) slots: &'a [u8],
    /// Bytes per slot (8 or 12).
    pub(crate) entry_size: usize,
    /// File length.
    pub(crate) file_len: u64,
    /// Segment base offset.
    pub(crate) base_offset: i64,
    /// Length of the valid prefix.
    pub(crate) valid_entries: usize,
    /// First slot of the zero tail.
    pub(crate) zero_tail_start: usize,
}

impl<'a> SlotLayout<'a> {
    /// Cut `bytes` into slots; the caller then sets the valid prefix and zero tail.
    pub(crate) fn new(bytes: &'a [u8], entry_size: usize, base_offset: i64) -> FormatResult<Self> {
        check_base_offset(base_offset)?;
        let (slots, _) = split_slots(bytes, entry_size);
        Ok(SlotLayout {
            slots,
            entry_size,
            file_len: bytes.len() as u64,
            base_offset,
            valid_entries: 0,
            zero_tail_start: 0,
        })
    }

    /// The raw bytes of slot `slot`, if it exists.
    pub(crate) fn raw_slot(&self, slot: usize) -> Option<&'a [u8]> {
        let at = slot.checked_mul(self.entry_size)?;
        self.slots.get(at..at.checked_add(self.entry_size)?)
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
        self.slots.len() / self.entry_size
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
