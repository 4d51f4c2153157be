//! The one way to read the records of a `.log` segment: walk its batches, optionally check each
//! batch's CRC, decode the records of the batches the caller asks for, and say where and why the
//! walk stopped.
//!
//! Built from the pieces below it: [`ShallowWalker`] (batch headers, where Kafka's
//! `FileLogInputStream` stops), [`verify_crc`] and [`for_each_record`] (the deep decode). It
//! decodes nothing itself. What it adds is the stop: every walk ends with exactly one
//! [`WalkStop`] naming the file position, the base offset of the batch it stopped at (when a
//! header was read) and the [`StopReason`]:
//!
//! | reason | when |
//! | --- | --- |
//! | [`StopReason::End`] | the last batch ended at the end of the bytes |
//! | [`StopReason::TornTail`] | a trailing incomplete batch (Kafka stops there; recovery truncates) |
//! | [`StopReason::ZeroFilled`] | only zeros from here (a preallocated or zero-padded tail) |
//! | [`StopReason::BadBatch`] | a header the walk cannot pass (bad size, bad magic, …) |
//! | [`StopReason::BadCrc`] | the batch's CRC does not match (only when CRCs are checked) |
//! | [`StopReason::Decode`] | the caller ended the walk at a batch whose records do not decode |
//! | [`StopReason::Cap`] | the caller ended the walk at a limit of its own (records, bytes) |
//!
//! Batches are yielded one at a time; the caller decides which to decode
//! ([`Batch::for_each_record`]) and whether a decode error ends its walk
//! ([`RecordWalk::stop_at`]) or only that batch (an `inspect --records` dump goes on).

use super::batch::BatchInfo;
use super::bytes::Cursor;
use super::compression::DEFAULT_MAX_DECOMPRESSED;
use super::error::{FormatError, FormatResult};
use super::record::{for_each_record, RecordRef};
use super::verify::verify_crc;
use super::walk::{ShallowWalker, WalkEnd};

/// Why a record walk stopped.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum StopReason {
    /// The last batch ended exactly at the end of the bytes.
    End,
    /// A trailing incomplete batch.
    TornTail {
        /// Bytes its header declares (`12 + size`; 0 when no size can be read).
        declared_size: u64,
        /// Bytes left from its start.
        available: u64,
    },
    /// Every byte from the stop position to the end is zero.
    ZeroFilled {
        /// How many zero bytes.
        len: u64,
    },
    /// A batch header the walk cannot pass; the error's offset is the bad field's.
    BadBatch(FormatError),
    /// The batch's stored CRC does not match its bytes.
    BadCrc(FormatError),
    /// The records of the batch do not decode (the caller ended the walk there).
    Decode(FormatError),
    /// The caller's own limit was reached at the batch.
    Cap,
}

impl StopReason {
    /// Whether the walk read every batch to a clean end (no torn tail, no zeros, no error,
    /// no cap).
    pub fn is_end(&self) -> bool {
        matches!(self, StopReason::End)
    }

    /// The format error behind the stop, if any.
    pub fn error(&self) -> Option<&FormatError> {
        match self {
            StopReason::BadBatch(e) | StopReason::BadCrc(e) | StopReason::Decode(e) => Some(e),
            _ => None,
        }
    }
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StopReason::End => f.write_str("end of the segment"),
            StopReason::TornTail {
                declared_size,
                available,
            } => write!(
                f,
                "incomplete batch at the end ({available} of {declared_size} bytes)"
            ),
            StopReason::ZeroFilled { len } => write!(f, "{len} zero bytes at the end"),
            StopReason::BadBatch(e) => write!(f, "unreadable batch: {e}"),
            StopReason::BadCrc(e) => write!(f, "corrupt batch: {e}"),
            StopReason::Decode(e) => write!(f, "records do not decode: {e}"),
            StopReason::Cap => f.write_str("limit reached"),
        }
    }
}

/// Where and why a record walk stopped.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WalkStop {
    /// File position of the batch the walk stopped at (the end of the bytes for
    /// [`StopReason::End`]): the end of the last batch the walk passed, or that batch's start
    /// for [`StopReason::Decode`] and [`StopReason::Cap`].
    pub position: u64,
    /// Base offset of that batch, when its header was read.
    pub base_offset: Option<i64>,
    /// Why.
    pub reason: StopReason,
}

/// One batch of a [`RecordWalk`], with the bytes it was read from.
#[derive(Debug, Clone)]
pub struct Batch<'a> {
    /// The header fields.
    pub info: BatchInfo,
    file: &'a [u8],
    max_decompressed: usize,
}

impl<'a> Batch<'a> {
    /// Hand every record of the batch to `f` ([`for_each_record`]: decompression capped at the
    /// walk's limit, framing and offsets checked, CRC not). The first error (the decode's or
    /// `f`'s) ends the batch and is returned; the walk goes on unless the caller stops it.
    pub fn for_each_record<F>(&self, f: F) -> FormatResult<()>
    where
        F: FnMut(RecordRef<'_>) -> FormatResult<()>,
    {
        for_each_record(self.file, &self.info, self.max_decompressed, f)
    }

    /// Check the batch's CRC ([`verify_crc`]), for a caller that checks only some batches
    /// (a walk [`RecordWalk::checking_crc`] checks every one before yielding it).
    pub fn verify_crc(&self) -> FormatResult<()> {
        verify_crc(self.file, &self.info)
    }

    /// The batch's bytes.
    pub fn bytes(&self) -> FormatResult<&'a [u8]> {
        self.info.bytes(self.file)
    }

    /// The bytes of the whole file the batch is in (positions in [`Batch::info`] index them).
    pub fn file(&self) -> &'a [u8] {
        self.file
    }
}

/// Walks the batches of a segment's bytes and decodes the records the caller asks for; see the
/// module docs. Yields [`Batch`]es; after `None`, [`RecordWalk::stop`] says where and why it
/// stopped (always set then).
#[derive(Debug, Clone)]
pub struct RecordWalk<'a> {
    file: &'a [u8],
    batches: ShallowWalker<'a>,
    check_crc: bool,
    max_decompressed: usize,
    stop: Option<WalkStop>,
}

impl<'a> RecordWalk<'a> {
    /// A walk over `file`, the bytes of a segment `.log` from its start; CRCs not checked,
    /// decompression capped at [`DEFAULT_MAX_DECOMPRESSED`].
    pub fn new(file: &'a [u8]) -> Self {
        RecordWalk {
            file,
            batches: ShallowWalker::new(file),
            check_crc: false,
            max_decompressed: DEFAULT_MAX_DECOMPRESSED,
            stop: None,
        }
    }

    /// Check every batch's CRC before yielding it; a mismatch stops the walk
    /// ([`StopReason::BadCrc`]).
    pub fn checking_crc(mut self) -> Self {
        self.check_crc = true;
        self
    }

    /// Decompress at most `max` bytes per batch.
    pub fn max_decompressed(mut self, max: usize) -> Self {
        self.max_decompressed = max;
        self
    }

    /// Where and why the walk stopped, once it has (`None` while batches remain).
    pub fn stop(&self) -> Option<&WalkStop> {
        self.stop.as_ref()
    }

    /// Take the stop out of a finished walk.
    pub fn into_stop(self) -> Option<WalkStop> {
        self.stop
    }

    /// Byte position after the last batch the walk passed (where recovery would truncate).
    pub fn valid_end(&self) -> u64 {
        self.batches.valid_end()
    }

    /// End the walk at `batch` (one it yielded) for `reason`, typically
    /// [`StopReason::Decode`] or [`StopReason::Cap`]; the next call to `next` returns `None`.
    /// A walk that has already stopped keeps its first stop.
    pub fn stop_at(&mut self, batch: &BatchInfo, reason: StopReason) {
        if self.stop.is_none() {
            self.stop = Some(WalkStop {
                position: batch.position,
                base_offset: Some(batch.base_offset),
                reason,
            });
        }
    }

    fn stopped(&mut self, position: u64, base_offset: Option<i64>, reason: StopReason) {
        self.stop = Some(WalkStop {
            position,
            base_offset,
            reason,
        });
    }

    /// The base offset of the batch starting at `position`, when its header fields can be read
    /// (for a stop at a bad header).
    fn base_offset_at(&self, position: u64) -> Option<i64> {
        let rest = self.file.get(usize::try_from(position).ok()?..)?;
        Cursor::new(rest).i64().ok()
    }
}

impl<'a> Iterator for RecordWalk<'a> {
    type Item = Batch<'a>;

    fn next(&mut self) -> Option<Batch<'a>> {
        if self.stop.is_some() {
            return None;
        }
        match self.batches.next() {
            Some(Ok(info)) => {
                if self.check_crc {
                    if let Err(e) = verify_crc(self.file, &info) {
                        self.stopped(info.position, Some(info.base_offset), StopReason::BadCrc(e));
                        return None;
                    }
                }
                Some(Batch {
                    info,
                    file: self.file,
                    max_decompressed: self.max_decompressed,
                })
            }
            Some(Err(e)) => {
                let at = self.batches.valid_end();
                let base = self.base_offset_at(at);
                self.stopped(at, base, StopReason::BadBatch(e));
                None
            }
            None => {
                let (position, reason) = match self.batches.end().cloned() {
                    Some(WalkEnd::PartialBatch {
                        position,
                        declared_size,
                        available,
                    }) => (
                        position,
                        StopReason::TornTail {
                            declared_size,
                            available,
                        },
                    ),
                    Some(WalkEnd::ZeroFilled { position, len }) => {
                        (position, StopReason::ZeroFilled { len })
                    }
                    // The walker ends without an error only through `end`; `Clean` otherwise.
                    Some(WalkEnd::Clean) | None => (self.batches.valid_end(), StopReason::End),
                };
                let base = match reason {
                    StopReason::TornTail { .. } => self.base_offset_at(position),
                    _ => None,
                };
                self.stopped(position, base, reason);
                None
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::formats::error::ErrorKind;
    use crate::formats::walk::tests::sample_file;

    /// Walk to the end, decoding every batch; a decode error ends the walk.
    fn walk_all(walk: &mut RecordWalk<'_>) -> (usize, usize) {
        let (mut batches, mut records) = (0, 0);
        while let Some(b) = walk.next() {
            batches += 1;
            if let Err(e) = b.for_each_record(|_| {
                records += 1;
                Ok(())
            }) {
                walk.stop_at(&b.info, StopReason::Decode(e));
            }
        }
        (batches, records)
    }

    #[test]
    fn a_whole_segment_ends_at_its_end() {
        let (file, starts) = sample_file();
        let mut walk = RecordWalk::new(&file).checking_crc();
        let (batches, records) = walk_all(&mut walk);
        assert_eq!(batches, starts.len());
        // 2 legacy + 3 in the wrapper + 5 codecs × 4 + txn record + marker.
        assert_eq!(records, 27);
        let stop = walk.stop().unwrap();
        assert_eq!(
            (stop.position, stop.base_offset, &stop.reason),
            (file.len() as u64, None, &StopReason::End)
        );
        assert!(walk.next().is_none());
    }

    #[test]
    fn a_torn_tail_says_where_and_how_much() {
        let (file, starts) = sample_file();
        let cut = &file[..starts[6] as usize + 30];
        let mut walk = RecordWalk::new(cut);
        assert_eq!(walk_all(&mut walk).0, 6);
        let stop = walk.into_stop().unwrap();
        assert_eq!(stop.position, starts[6]);
        assert_eq!(stop.base_offset, Some(40));
        assert!(matches!(
            stop.reason,
            StopReason::TornTail { available: 30, declared_size } if declared_size > 30
        ));
        let zeros = [file.clone(), vec![0; 100]].concat();
        let mut walk = RecordWalk::new(&zeros);
        walk_all(&mut walk);
        let stop = walk.stop().unwrap();
        assert_eq!(
            (stop.position, &stop.reason),
            (file.len() as u64, &StopReason::ZeroFilled { len: 100 })
        );
    }

    #[test]
    fn a_bad_header_a_bad_crc_and_a_bad_record_each_stop_at_their_batch() {
        let (file, starts) = sample_file();
        let at = starts[5] as usize;
        let mut bad_magic = file.clone();
        bad_magic[at + 16] = 7;
        let mut walk = RecordWalk::new(&bad_magic);
        assert_eq!(walk_all(&mut walk).0, 5);
        let stop = walk.stop().unwrap();
        assert_eq!((stop.position, stop.base_offset), (at as u64, Some(30)));
        assert!(
            matches!(&stop.reason, StopReason::BadBatch(e) if e.kind == ErrorKind::BadMagic(7))
        );

        // A flipped byte in the last record of an uncompressed v2 batch: the CRC catches it
        // when checked; unchecked, the decode does (a key length past the record).
        let mut flipped = file.clone();
        let end = starts[4] as usize - 1;
        flipped[end - 60] ^= 0x7f;
        let mut walk = RecordWalk::new(&flipped).checking_crc();
        assert_eq!(walk_all(&mut walk).0, 3);
        let stop = walk.stop().unwrap();
        assert_eq!((stop.position, stop.base_offset), (starts[3], Some(10)));
        assert!(matches!(stop.reason, StopReason::BadCrc(_)));
        assert!(stop.reason.error().is_some());

        let mut walk = RecordWalk::new(&flipped);
        assert_eq!(walk_all(&mut walk).0, 4);
        let stop = walk.stop().unwrap();
        assert_eq!((stop.position, stop.base_offset), (starts[3], Some(10)));
        assert!(matches!(stop.reason, StopReason::Decode(_)), "{stop:?}");
    }

    #[test]
    fn a_cap_keeps_the_first_stop() {
        let (file, starts) = sample_file();
        let mut walk = RecordWalk::new(&file);
        let first = walk.next().unwrap();
        let second = walk.next().unwrap();
        walk.stop_at(&second.info, StopReason::Cap);
        walk.stop_at(&first.info, StopReason::End);
        assert!(walk.next().is_none());
        let stop = walk.stop().unwrap();
        assert_eq!(
            (stop.position, stop.base_offset, &stop.reason),
            (starts[1], Some(1), &StopReason::Cap)
        );
        assert_eq!(walk.valid_end(), starts[2]);
        assert_eq!(stop.reason.to_string(), "limit reached");
    }

    proptest::proptest! {
        /// Any bytes: the walk ends, with one stop inside the bytes, after batches that move
        /// forward.
        #[test]
        fn arbitrary_bytes_stop_once_inside_the_file(
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..600),
            crc in proptest::bool::ANY,
        ) {
            let mut walk = RecordWalk::new(&bytes).max_decompressed(1 << 16);
            if crc {
                walk = walk.checking_crc();
            }
            let mut prev = 0;
            for b in walk.by_ref() {
                proptest::prop_assert!(b.info.position >= prev);
                prev = b.info.end();
                let _ = b.for_each_record(|_| Ok(()));
            }
            let stop = walk.stop().unwrap();
            proptest::prop_assert!(stop.position <= bytes.len() as u64);
            proptest::prop_assert!(walk.next().is_none());
        }
    }
}
