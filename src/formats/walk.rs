//! Walking a `.log` segment batch by batch, reading headers only.
//!
//! Kafka sources: `clients/src/main/java/org/apache/kafka/common/record/FileLogInputStream.java`
//! (`nextBatch`: where a walk stops) and `storage/.../log/LogSegment.java` (`recover`); spec
//! §3.7–§3.8. Checking what the walk finds (CRCs, records, offsets across batches) is
//! [`super::verify`]'s job.
//!
//! # Shallow walk ([`ShallowWalker`])
//!
//! Reads only headers, like `FileLogInputStream.nextBatch`, at position `p` in a file of `E`
//! bytes:
//!
//! 1. `E - p == 0`: clean end ([`WalkEnd::Clean`]).
//! 2. `E - p <= 17`: Kafka stops without looking ([`WalkEnd::PartialBatch`]).
//! 3. `size < 14`: Kafka throws `CorruptRecordException`; we yield
//!    [`ErrorKind::LengthOutOfRange`] (field `size`).
//! 4. `p + 12 + size > E`: Kafka stops without an error ([`WalkEnd::PartialBatch`]). A huge
//!    `size` in the middle of a file therefore also ends the walk this way, as it does in Kafka.
//! 5. Otherwise the entry is yielded and the walk moves to `p + 12 + size`.
//!
//! In every case recovery (`LogSegment.recover`) truncates the file to the end of the last good
//! batch, [`ShallowWalker::valid_end`].
//!
//! **Zero-filled tails.** With `log.preallocate=true` (and after some crashes) a segment ends in
//! zeros. When every remaining byte is zero the walk ends with [`WalkEnd::ZeroFilled`] instead
//! of 2./3. Kafka itself reads such a tail as `size = 0 < 14` and throws
//! `CorruptRecordException` when at least 18 bytes remain (or stops silently below that); during
//! recovery that exception ends the loop and the file is truncated to the valid bytes, so
//! both cases lose the zeros. A clean shutdown trims preallocated segments instead.
//!
//! **Stricter than Kafka** (the header checks here): the magic must be 0, 1 or 2
//! ([`ErrorKind::BadMagic`]; Kafka's file reader takes any magic ≥ 2 as v2 and any negative
//! magic as legacy, and its recovery does not check the magic, which the v2 CRC does not
//! cover); a v2 `batchLength` must be ≥ 49 (Kafka checks this in `ensureValid`, i.e. during
//! recovery); a v1 record must be ≥ 22 bytes to hold its timestamp.
//!
//! Error offsets are absolute file positions of the offending field (for example byte 16 of the
//! batch for a bad magic); [`ShallowWalker::valid_end`] gives the batch boundary.

use super::batch::{
    parse_batch_header, HEADER_SIZE_UP_TO_MAGIC, LOG_OVERHEAD, MAGIC_OFFSET, MAGIC_V0, MAGIC_V1,
    MAGIC_V2, MIN_BATCH_LENGTH,
};
use super::bytes::Cursor;
use super::error::{ErrorKind, FormatError, FormatResult};
use super::legacy::{parse_legacy_header, RECORD_OVERHEAD_V0, RECORD_OVERHEAD_V1};

// The walker's item type, also reachable from here as before it moved to `batch`.
pub use super::batch::BatchInfo;

/// How a walk ended when it ended without an error.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum WalkEnd {
    /// The last batch ended exactly at the end of the file.
    Clean,
    /// A trailing incomplete batch: Kafka stops there and recovery truncates it.
    PartialBatch {
        /// Where the incomplete batch starts (= `valid_end`).
        position: u64,
        /// Bytes its header declares (`12 + size`); 0 when fewer than 12 bytes remain or the
        /// size is negative, i.e. when no size can be read.
        declared_size: u64,
        /// Bytes left in the file from `position`.
        available: u64,
    },
    /// Every byte from `position` to the end of the file is zero (preallocated or zero-padded
    /// tail; see the module docs for what Kafka does with it).
    ZeroFilled {
        /// Where the zeros start (= `valid_end`).
        position: u64,
        /// How many zero bytes follow.
        len: u64,
    },
}

/// Iterates the batches of a segment file by reading their headers only: O(batches), record
/// bytes are never touched.
///
/// Yields `Ok(BatchInfo)` per batch. On an error it yields `Err` once and then `None`; after a
/// `None` without error, [`ShallowWalker::end`] says how the file ended.
#[derive(Debug, Clone)]
pub struct ShallowWalker<'a> {
    file: &'a [u8],
    position: u64,
    valid_end: u64,
    end: Option<WalkEnd>,
    done: bool,
}

impl<'a> ShallowWalker<'a> {
    /// A walk over `file`, the whole contents of a segment `.log`.
    pub fn new(file: &'a [u8]) -> Self {
        Self::starting_at(file, 0)
    }

    /// A walk that begins at byte `position` (for example from an offset-index entry). A
    /// position past the end of the file makes the first item an error.
    pub fn starting_at(file: &'a [u8], position: u64) -> Self {
        ShallowWalker {
            file,
            position,
            valid_end: position,
            end: None,
            done: false,
        }
    }

    /// Byte position after the last batch that passed the header checks (the start position
    /// if none did): where Kafka's recovery would truncate the file.
    pub fn valid_end(&self) -> u64 {
        self.valid_end
    }

    /// How the walk ended, once iteration has returned `None` without an error.
    pub fn end(&self) -> Option<&WalkEnd> {
        self.end.as_ref()
    }

    fn finish(&mut self, end: WalkEnd) -> Option<FormatResult<BatchInfo>> {
        self.end = Some(end);
        self.done = true;
        None
    }

    fn fail(&mut self, e: FormatError) -> Option<FormatResult<BatchInfo>> {
        self.done = true;
        Some(Err(e))
    }

    fn step(&mut self) -> Option<FormatResult<BatchInfo>> {
        let p = self.position;
        let rest = match self.rest() {
            Ok(rest) => rest,
            Err(e) => return self.fail(e),
        };
        if rest.is_empty() {
            return self.finish(WalkEnd::Clean);
        }
        let (entry, total, offset, magic) = match frame_entry(rest, p) {
            Ok(Framed::Entry {
                bytes,
                total,
                offset,
                magic,
            }) => (bytes, total, offset, magic),
            Ok(Framed::End(end)) => return self.finish(end),
            Err(e) => return self.fail(e),
        };
        let info = match magic {
            MAGIC_V2 => v2_info(entry, p, total),
            MAGIC_V0 | MAGIC_V1 => legacy_info(entry, p, total, offset, magic),
            other => Err(FormatError::new(
                ErrorKind::BadMagic(other),
                p.saturating_add(MAGIC_OFFSET as u64),
            )),
        };
        match info {
            Ok(info) => {
                self.position = info.end();
                self.valid_end = self.position;
                Some(Ok(info))
            }
            Err(e) => self.fail(e),
        }
    }

    /// The file from the walk's position on; an error if the position lies past its end.
    fn rest(&self) -> FormatResult<&'a [u8]> {
        let p = self.position;
        usize::try_from(p)
            .ok()
            .and_then(|p| self.file.get(p..))
            .ok_or_else(|| {
                FormatError::new(
                    ErrorKind::LengthOutOfRange {
                        field: "position",
                        value: i64::try_from(p).unwrap_or(i64::MAX),
                        min: 0,
                        max: i64::try_from(self.file.len() as u64).unwrap_or(i64::MAX),
                    },
                    p,
                )
            })
    }
}

/// What the framing of the next log entry says: a whole entry to decode, or the end of the walk.
enum Framed<'a> {
    Entry {
        /// The whole entry, its 12-byte offset and size included.
        bytes: &'a [u8],
        /// `bytes.len()` as declared: 12 + size.
        total: u64,
        offset: i64,
        magic: i8,
    },
    End(WalkEnd),
}

/// Frame the entry at the start of `rest` (not empty; `p` is its file position) by its offset,
/// size and magic, as `FileLogInputStream.nextBatch` does: steps 2 to 4 of the module docs, and
/// the zero-filled tail.
fn frame_entry(rest: &[u8], p: u64) -> FormatResult<Framed<'_>> {
    let available = rest.len() as u64;
    let zero_tail = || WalkEnd::ZeroFilled {
        position: p,
        len: available,
    };
    let mut c = Cursor::new(rest);
    if rest.len() <= HEADER_SIZE_UP_TO_MAGIC {
        // FileLogInputStream: `position + HEADER_SIZE_UP_TO_MAGIC >= end` → no more batches.
        if rest.iter().all(|&b| b == 0) {
            return Ok(Framed::End(zero_tail()));
        }
        let declared = c
            .skip(8)
            .and_then(|()| c.i32())
            .ok()
            .and_then(|s| u64::try_from(s).ok());
        return Ok(Framed::End(WalkEnd::PartialBatch {
            position: p,
            declared_size: declared.map_or(0, |s| s + LOG_OVERHEAD as u64),
            available,
        }));
    }
    // At least 18 bytes: the reads below cannot fail, but stay checked. Bytes 12..16 are the
    // v2 partition leader epoch or the legacy CRC; the magic is at byte 16 in both.
    let header = (|| -> FormatResult<(i64, i32, i8)> {
        let offset = c.i64()?;
        let size = c.i32()?;
        c.skip(4)?;
        Ok((offset, size, c.i8()?))
    })();
    let (offset, size, magic) = header.map_err(|e| e.at_base(p))?;
    if size < RECORD_OVERHEAD_V0 as i32 {
        if size == 0 && rest.iter().all(|&b| b == 0) {
            return Ok(Framed::End(zero_tail()));
        }
        return Err(FormatError::new(
            ErrorKind::LengthOutOfRange {
                field: "size",
                value: i64::from(size),
                min: RECORD_OVERHEAD_V0 as i64,
                max: i64::from(i32::MAX),
            },
            p.saturating_add(8),
        ));
    }
    // size >= 14 here, so the conversion and the addition cannot fail.
    let total = u64::try_from(size)
        .unwrap_or(u64::MAX)
        .saturating_add(LOG_OVERHEAD as u64);
    if total > available {
        return Ok(Framed::End(WalkEnd::PartialBatch {
            position: p,
            declared_size: total,
            available,
        }));
    }
    let bytes = rest
        .get(..usize::try_from(total).unwrap_or(usize::MAX))
        .unwrap_or(&[]);
    Ok(Framed::Entry {
        bytes,
        total,
        offset,
        magic,
    })
}

impl Iterator for ShallowWalker<'_> {
    type Item = FormatResult<BatchInfo>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        self.step()
    }
}

/// Header info of the v2 batch `entry` (exactly `total` bytes) at file position `p`.
fn v2_info(entry: &[u8], p: u64, total: u64) -> FormatResult<BatchInfo> {
    let h = match parse_batch_header(entry) {
        Ok(h) => h,
        Err(e) if matches!(e.kind, ErrorKind::Truncated { .. }) => {
            return Err(FormatError::new(
                ErrorKind::LengthOutOfRange {
                    field: "batch_length",
                    value: (total as i64).saturating_sub(LOG_OVERHEAD as i64),
                    min: i64::from(MIN_BATCH_LENGTH),
                    max: i64::from(i32::MAX),
                },
                p.saturating_add(8),
            ))
        }
        Err(e) => return Err(e.at_base(p)),
    };
    Ok(BatchInfo {
        position: p,
        size: total,
        magic: h.magic,
        base_offset: h.base_offset,
        last_offset: h.last_offset(),
        first_timestamp: h.base_timestamp,
        max_timestamp: h.max_timestamp,
        timestamp_type: h.timestamp_type(),
        compression: h.compression(),
        records_count: Some(h.records_count),
        is_transactional: h.is_transactional(),
        is_control: h.is_control(),
        producer_id: h.producer_id,
        producer_epoch: h.producer_epoch,
        base_sequence: h.base_sequence,
        partition_leader_epoch: h.partition_leader_epoch,
        stored_crc: h.crc,
    })
}

/// Header info of the legacy entry `entry` (exactly `total` bytes) at file position `p`.
fn legacy_info(
    entry: &[u8],
    p: u64,
    total: u64,
    offset: i64,
    magic: i8,
) -> FormatResult<BatchInfo> {
    let record_pos = p.saturating_add(LOG_OVERHEAD as u64);
    let record = entry.get(LOG_OVERHEAD..).unwrap_or(&[]);
    if magic == MAGIC_V1 && record.len() < RECORD_OVERHEAD_V1 {
        return Err(FormatError::new(
            ErrorKind::LengthOutOfRange {
                field: "size",
                value: record.len() as i64,
                min: RECORD_OVERHEAD_V1 as i64,
                max: i64::from(i32::MAX),
            },
            p.saturating_add(8),
        ));
    }
    let h = parse_legacy_header(record).map_err(|e| e.at_base(record_pos))?;
    let timestamp = h.timestamp_or_none();
    Ok(BatchInfo {
        position: p,
        size: total,
        magic,
        base_offset: offset,
        last_offset: offset,
        first_timestamp: timestamp,
        max_timestamp: timestamp,
        timestamp_type: h.timestamp_type(),
        compression: h.compression(),
        records_count: None,
        is_transactional: false,
        is_control: false,
        producer_id: -1,
        producer_epoch: -1,
        base_sequence: -1,
        partition_leader_epoch: -1,
        stored_crc: h.crc,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod tests {
    use super::*;
    use crate::formats::batch::{Compression, TimestampType};
    use crate::formats::control::{encode as ctl, ControlKind};
    use crate::formats::legacy::encode as legacy;
    use crate::formats::record::encode::{encode_batch, rec, BatchSpec};
    use crate::formats::record::{decode_records, Record};

    const CODECS: [Compression; 5] = [
        Compression::None,
        Compression::Gzip,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
    ];

    /// A segment: one batch per codec, a transaction and its commit marker, an emptied batch,
    /// and legacy v0/v1 messages and wrappers in front (offsets strictly increasing); with the
    /// position where each entry starts.
    pub(crate) fn sample_file() -> (Vec<u8>, Vec<u64>) {
        let mut file = Vec::new();
        let mut starts = Vec::new();
        let mut push = |file: &mut Vec<u8>, bytes: Vec<u8>| {
            starts.push(file.len() as u64);
            file.extend(bytes);
        };
        push(
            &mut file,
            legacy::entry(0, 0, 0, 0, Some(b"k"), Some(b"v0")),
        );
        push(&mut file, legacy::entry(1, 1, 0, 1000, None, Some(b"v1")));
        let inner: Vec<_> = (2..5i64)
            .map(|o| (o, 1000 + o, None, Some(vec![o as u8])))
            .collect();
        push(
            &mut file,
            legacy::wrapper(1, Compression::Snappy, false, 1004, &inner),
        );
        let mut base = 10;
        for codec in CODECS {
            let spec = BatchSpec {
                base_offset: base,
                compression: codec,
                ..Default::default()
            };
            let records: Vec<Record> = (0..4)
                .map(|i| rec(base + i, 5000 + i, Some(b"key"), Some(&[i as u8; 50])))
                .collect();
            push(&mut file, encode_batch(&spec, &records));
            base += 10;
        }
        let txn = BatchSpec {
            base_offset: base,
            transactional: true,
            producer_id: 3,
            producer_epoch: 0,
            base_sequence: 0,
            ..Default::default()
        };
        push(
            &mut file,
            encode_batch(&txn, &[rec(base, 6000, None, Some(b"in txn"))]),
        );
        let marker = BatchSpec {
            base_offset: base + 1,
            control: true,
            ..txn.clone()
        };
        push(
            &mut file,
            encode_batch(
                &marker,
                &[rec(
                    base + 1,
                    6001,
                    Some(&ctl::key(ControlKind::Commit)),
                    Some(&ctl::marker_value(0)),
                )],
            ),
        );
        let empty = BatchSpec {
            base_offset: base + 2,
            last_offset_delta: Some(4),
            ..Default::default()
        };
        push(&mut file, encode_batch(&empty, &[]));
        (file, starts)
    }

    /// Walk `file` to its end: the batches, the error if any, and the finished walker.
    pub(crate) fn walk_all(
        file: &[u8],
    ) -> (Vec<BatchInfo>, Option<FormatError>, ShallowWalker<'_>) {
        let mut w = ShallowWalker::new(file);
        let mut infos = Vec::new();
        let mut err = None;
        for item in w.by_ref() {
            match item {
                Ok(i) => infos.push(i),
                Err(e) => err = Some(e),
            }
        }
        (infos, err, w)
    }

    #[test]
    fn walks_a_mixed_segment() {
        let (file, starts) = sample_file();
        let (infos, err, w) = walk_all(&file);
        assert_eq!(err, None);
        assert_eq!(infos.iter().map(|i| i.position).collect::<Vec<_>>(), starts);
        assert_eq!(w.end(), Some(&WalkEnd::Clean));
        assert_eq!(w.valid_end(), file.len() as u64);
        let compressions: Vec<_> = infos.iter().map(|i| i.compression).collect();
        assert_eq!(&compressions[3..8], &CODECS);
        assert_eq!(infos[0].timestamp_type, TimestampType::NoTimestamp);
        assert_eq!(infos[0].max_timestamp, -1);
        assert_eq!(infos[1].first_timestamp, 1000);
        assert_eq!(infos[2].records_count, None);
        assert_eq!((infos[2].base_offset, infos[2].last_offset), (4, 4));
        assert_eq!(
            decode_records(&file, &infos[2], 1 << 20)
                .unwrap()
                .first()
                .map(|r| r.offset),
            Some(2)
        );
        let marker = &infos[9];
        assert!(marker.is_control && marker.is_transactional);
        assert_eq!(marker.size, 78);
        assert_eq!(infos[10].records_count, Some(0));
        assert_eq!(infos[10].last_offset, infos[10].base_offset + 4);
    }

    #[test]
    fn truncated_at_every_byte() {
        let (file, starts) = sample_file();
        for n in 0..=file.len() {
            let cut = &file[..n];
            let (infos, err, w) = walk_all(cut);
            // Batches that fit entirely are all found; the walk never errors on a clean prefix.
            // valid_end is the last batch boundary inside the cut.
            let expected_valid = starts
                .iter()
                .copied()
                .chain([file.len() as u64])
                .filter(|&s| s <= n as u64)
                .max()
                .unwrap_or(0);
            assert_eq!(err, None, "cut at {n}");
            assert_eq!(w.valid_end(), expected_valid, "cut at {n}");
            assert_eq!(
                infos.len(),
                starts.iter().filter(|&&s| s < expected_valid).count()
            );
            let end = w.end().cloned().unwrap();
            if n as u64 == expected_valid {
                assert_eq!(end, WalkEnd::Clean, "cut at {n}");
            } else {
                match end {
                    WalkEnd::PartialBatch {
                        position,
                        available,
                        declared_size,
                    } => {
                        assert_eq!(position, expected_valid);
                        assert_eq!(available, n as u64 - expected_valid);
                        if available >= 12 {
                            assert!(declared_size > available);
                        }
                    }
                    WalkEnd::ZeroFilled { position, len } => {
                        // e.g. a cut inside the all-zero offset field of the batch at offset 0.
                        assert_eq!(position, expected_valid);
                        assert_eq!(len, n as u64 - expected_valid);
                        assert!(cut[position as usize..].iter().all(|&b| b == 0));
                    }
                    other => panic!("cut at {n}: {other:?}"),
                }
            }
        }
    }

    #[test]
    fn bad_magic_is_an_error_once_then_none() {
        let (mut file, starts) = sample_file();
        let at = starts[4] as usize + 16;
        file[at] = 3;
        let mut w = ShallowWalker::new(&file);
        let mut n = 0;
        let err = loop {
            match w.next() {
                Some(Ok(_)) => n += 1,
                Some(Err(e)) => break e,
                None => panic!("no error"),
            }
        };
        assert_eq!(n, 4);
        assert_eq!(err, FormatError::new(ErrorKind::BadMagic(3), at as u64));
        assert!(w.next().is_none());
        assert!(w.next().is_none());
        assert_eq!(w.valid_end(), starts[4]);
        assert_eq!(w.end(), None);
    }

    #[test]
    fn size_below_minimum_is_an_error() {
        let (mut file, starts) = sample_file();
        let at = starts[5] as usize;
        file[at + 8..at + 12].copy_from_slice(&13i32.to_be_bytes());
        let (infos, err, w) = walk_all(&file);
        assert_eq!(infos.len(), 5);
        let err = err.unwrap();
        assert_eq!(err.offset, at as u64 + 8);
        assert!(matches!(
            err.kind,
            ErrorKind::LengthOutOfRange {
                field: "size",
                value: 13,
                ..
            }
        ));
        assert_eq!(w.valid_end(), at as u64);
        // A v2 batch with 14 <= size < 49 passes Kafka's file reader but not ensureValid.
        file[at + 8..at + 12].copy_from_slice(&30i32.to_be_bytes());
        let (_, err, _) = walk_all(&file);
        assert!(matches!(
            err.unwrap().kind,
            ErrorKind::LengthOutOfRange {
                field: "batch_length",
                ..
            }
        ));
    }

    #[test]
    fn huge_batch_length_ends_the_walk_as_partial() {
        let (mut file, starts) = sample_file();
        let at = starts[6] as usize;
        file[at + 8..at + 12].copy_from_slice(&i32::MAX.to_be_bytes());
        let (infos, err, w) = walk_all(&file);
        assert_eq!(err, None);
        assert_eq!(infos.len(), 6);
        assert_eq!(
            w.end(),
            Some(&WalkEnd::PartialBatch {
                position: at as u64,
                declared_size: i32::MAX as u64 + 12,
                available: (file.len() - at) as u64,
            })
        );
    }

    #[test]
    fn zero_filled_tail() {
        let (mut file, _) = sample_file();
        let len = file.len() as u64;
        for zeros in [1usize, 17, 18, 4096] {
            let mut padded = file.clone();
            padded.resize(file.len() + zeros, 0);
            let (_, err, w) = walk_all(&padded);
            assert_eq!(err, None);
            assert_eq!(
                w.end(),
                Some(&WalkEnd::ZeroFilled {
                    position: len,
                    len: zeros as u64
                })
            );
            assert_eq!(w.valid_end(), len);
        }
        // Zeros followed by anything else are not a zero tail: size 0 is corrupt.
        file.resize(file.len() + 100, 0);
        file.push(1);
        let (_, err, _) = walk_all(&file);
        assert!(matches!(
            err.unwrap().kind,
            ErrorKind::LengthOutOfRange {
                field: "size",
                value: 0,
                ..
            }
        ));
        // A preallocated, never written segment.
        let blank = vec![0u8; 1 << 16];
        let (infos, _, w) = walk_all(&blank);
        assert!(infos.is_empty());
        assert_eq!(
            w.end(),
            Some(&WalkEnd::ZeroFilled {
                position: 0,
                len: 1 << 16
            })
        );
    }

    #[test]
    fn starting_at_a_batch_or_past_the_end() {
        let (file, starts) = sample_file();
        let w = ShallowWalker::starting_at(&file, starts[5]);
        assert_eq!(w.valid_end(), starts[5]);
        assert_eq!(w.count(), starts.len() - 5);
        let mut w = ShallowWalker::starting_at(&file, file.len() as u64 + 1);
        assert!(w.next().unwrap().is_err());
        assert!(w.next().is_none());
        let mut w = ShallowWalker::starting_at(&file, file.len() as u64);
        assert!(w.next().is_none());
        assert_eq!(w.end(), Some(&WalkEnd::Clean));
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_files_never_panic_and_end(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..600)) {
            let (_, err, w) = walk_all(&bytes);
            proptest::prop_assert!(err.is_some() || w.end().is_some());
            proptest::prop_assert!(w.valid_end() <= bytes.len() as u64);
        }
    }
}
