//! Walking a `.log` segment batch by batch, and verifying what the walk finds.
//!
//! Kafka sources: `clients/src/main/java/org/apache/kafka/common/record/FileLogInputStream.java`
//! (`nextBatch`: where a walk stops), `DefaultRecordBatch.java` and `LegacyRecord.java`
//! (`ensureValid`: size and CRC), and `storage/.../log/LogSegment.java` (`recover`); spec
//! §3.7–§3.9.
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
//! # Verification
//!
//! [`verify_crc`] is Kafka's `ensureValid`; [`verify_batch`] adds the header sanity checks and
//! the deep record decode of [`super::record`]; [`verify_segment`] runs both over a file, adds
//! the cross-batch checks (offsets increasing, offsets fitting the segment) and reports the
//! first error with the position Kafka's recovery would truncate to.
//!
//! Error offsets are absolute file positions of the offending field (for example the CRC field
//! for a CRC mismatch, byte 16 of the batch for a bad magic); [`ShallowWalker::valid_end`] and
//! [`SegmentVerification::valid_end`] give the batch boundary.

use super::batch::{
    compute_batch_crc, parse_batch_header, Compression, TimestampType, CRC_OFFSET,
    HEADER_SIZE_UP_TO_MAGIC, LAST_OFFSET_DELTA_OFFSET, LOG_OVERHEAD, MAGIC_OFFSET, MAGIC_V0,
    MAGIC_V1, MAGIC_V2, MAX_TIMESTAMP_OFFSET, MIN_BATCH_LENGTH, RECORDS_COUNT_OFFSET,
};
use super::bytes::Cursor;
use super::compression::DEFAULT_MAX_DECOMPRESSED;
use super::error::{ErrorKind, FormatError, FormatResult};
use super::legacy::{
    compute_legacy_crc, parse_legacy_header, RECORD_OVERHEAD_V0, RECORD_OVERHEAD_V1,
};
use super::record::for_each_record;

/// One batch (v2) or one top-level message or compressed wrapper (v0/v1), as Kafka's
/// `FileChannelRecordBatch` sees it, read from its header alone.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BatchInfo {
    /// Byte position of the batch in the segment file.
    pub position: u64,
    /// Total bytes, including the 12-byte offset and size fields.
    pub size: u64,
    /// 0, 1 or 2.
    pub magic: i8,
    /// v2: the header's base offset. Legacy: the entry's offset field, which for a compressed
    /// wrapper is the offset of its **last** inner message (the first one is only known after
    /// decompression; see [`super::record::decode_records`]).
    pub base_offset: i64,
    /// v2: `base_offset + last_offset_delta` (wrapping, as Java does). Legacy: the offset field.
    pub last_offset: i64,
    /// v2: the header's base timestamp (or delete horizon); legacy: the message timestamp
    /// (-1 for v0).
    pub first_timestamp: i64,
    /// Kafka's `RecordBatch.maxTimestamp()`: the v2 header field (the append time for
    /// LogAppendTime batches), the legacy message timestamp (-1 for v0).
    pub max_timestamp: i64,
    /// Timestamp type; [`TimestampType::NoTimestamp`] for v0.
    pub timestamp_type: TimestampType,
    /// Compression codec.
    pub compression: Compression,
    /// The v2 header's record count; `None` for legacy entries.
    pub records_count: Option<i32>,
    /// v2 transactional flag (false for legacy).
    pub is_transactional: bool,
    /// v2 control flag (false for legacy).
    pub is_control: bool,
    /// Producer id, -1 for none (always -1 for legacy).
    pub producer_id: i64,
    /// Producer epoch, -1 for none.
    pub producer_epoch: i16,
    /// Base sequence, -1 for none.
    pub base_sequence: i32,
    /// Partition leader epoch, -1 for none (always -1 for legacy).
    pub partition_leader_epoch: i32,
    /// The stored checksum: CRC-32C for v2, CRC-32 for legacy.
    pub stored_crc: u32,
}

impl BatchInfo {
    /// Byte position just after the batch.
    pub fn end(&self) -> u64 {
        self.position.saturating_add(self.size)
    }

    /// The batch's bytes in `file` (the file it was read from), or a truncation error.
    pub fn bytes<'a>(&self, file: &'a [u8]) -> FormatResult<&'a [u8]> {
        let range = usize::try_from(self.position)
            .ok()
            .zip(usize::try_from(self.end()).ok())
            .map(|(start, end)| start..end);
        range.and_then(|r| file.get(r)).ok_or_else(|| {
            FormatError::new(
                ErrorKind::Truncated {
                    needed: self.size,
                    available: (file.len() as u64).saturating_sub(self.position),
                },
                self.position,
            )
        })
    }
}

/// How a walk ended when it ended without an error.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
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
        let file_len = self.file.len() as u64;
        let p = self.position;
        let rest = match usize::try_from(p).ok().and_then(|p| self.file.get(p..)) {
            Some(rest) => rest,
            None => {
                return self.fail(FormatError::new(
                    ErrorKind::LengthOutOfRange {
                        field: "position",
                        value: i64::try_from(p).unwrap_or(i64::MAX),
                        min: 0,
                        max: i64::try_from(file_len).unwrap_or(i64::MAX),
                    },
                    p,
                ))
            }
        };
        let available = rest.len() as u64;
        if rest.is_empty() {
            return self.finish(WalkEnd::Clean);
        }
        let zero_tail = || WalkEnd::ZeroFilled {
            position: p,
            len: available,
        };
        let mut c = Cursor::new(rest);
        if rest.len() <= HEADER_SIZE_UP_TO_MAGIC {
            // FileLogInputStream: `position + HEADER_SIZE_UP_TO_MAGIC >= end` → no more batches.
            if rest.iter().all(|&b| b == 0) {
                return self.finish(zero_tail());
            }
            let declared = c
                .skip(8)
                .and_then(|()| c.i32())
                .ok()
                .and_then(|s| u64::try_from(s).ok());
            return self.finish(WalkEnd::PartialBatch {
                position: p,
                declared_size: declared.map_or(0, |s| s + LOG_OVERHEAD as u64),
                available,
            });
        }
        // At least 18 bytes: the reads below cannot fail, but stay checked. Bytes 12..16 are the
        // v2 partition leader epoch or the legacy CRC; the magic is at byte 16 in both.
        let header = (|| -> FormatResult<(i64, i32, i8)> {
            let offset = c.i64()?;
            let size = c.i32()?;
            c.skip(4)?;
            Ok((offset, size, c.i8()?))
        })();
        let (offset, size, magic) = match header {
            Ok(h) => h,
            Err(e) => return self.fail(e.at_base(p)),
        };
        if size < RECORD_OVERHEAD_V0 as i32 {
            if size == 0 && rest.iter().all(|&b| b == 0) {
                return self.finish(zero_tail());
            }
            return self.fail(FormatError::new(
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
            return self.finish(WalkEnd::PartialBatch {
                position: p,
                declared_size: total,
                available,
            });
        }
        let entry = rest
            .get(..usize::try_from(total).unwrap_or(usize::MAX))
            .unwrap_or(&[]);
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

/// Check the stored checksum of a batch, as Kafka's `ensureValid` does.
///
/// v2: CRC-32C of batch bytes 21 to the end against the u32 at byte 17 (a v2 batch shorter
/// than 61 bytes is rejected as Kafka does). v0/v1: CRC-32 of bytes 16 (the magic) to the end
/// against the u32 at byte 12. A mismatch is [`ErrorKind::CrcMismatch`] at the CRC field.
pub fn verify_crc(file: &[u8], info: &BatchInfo) -> FormatResult<()> {
    let batch = info.bytes(file)?;
    let (crc_at, computed) = if info.magic >= MAGIC_V2 {
        if batch.len() < super::batch::RECORD_BATCH_OVERHEAD {
            return Err(FormatError::new(
                ErrorKind::LengthOutOfRange {
                    field: "batch_length",
                    value: (batch.len() as i64).saturating_sub(LOG_OVERHEAD as i64),
                    min: i64::from(MIN_BATCH_LENGTH),
                    max: i64::from(i32::MAX),
                },
                info.position.saturating_add(8),
            ));
        }
        (CRC_OFFSET, compute_batch_crc(batch))
    } else {
        (
            LOG_OVERHEAD,
            batch.get(LOG_OVERHEAD..).and_then(compute_legacy_crc),
        )
    };
    let at = info.position.saturating_add(crc_at as u64);
    let mut c = Cursor::new(batch);
    let stored = c
        .skip(crc_at)
        .and_then(|()| c.u32())
        .map_err(|e| e.at_base(info.position))?;
    let computed = computed.ok_or_else(|| {
        FormatError::new(
            ErrorKind::Truncated {
                needed: 5,
                available: 0,
            },
            at,
        )
    })?;
    if stored != computed {
        return Err(FormatError::new(
            ErrorKind::CrcMismatch { stored, computed },
            at,
        ));
    }
    Ok(())
}

/// Verify one batch deeply with the default decompression cap
/// ([`DEFAULT_MAX_DECOMPRESSED`], 64 MiB). See [`verify_batch_with_limit`].
pub fn verify_batch(file: &[u8], info: &BatchInfo) -> FormatResult<()> {
    verify_batch_with_limit(file, info, DEFAULT_MAX_DECOMPRESSED)
}

/// Verify one batch: Kafka's `ensureValid` plus the stricter per-batch checks of spec §3.9.
///
/// In order:
/// 1. [`verify_crc`] (Kafka recovery stops here on a mismatch).
/// 2. v2 header sanity: `last_offset_delta >= 0`, `base_offset + last_offset_delta` does not
///    overflow, `0 <= records_count <= last_offset_delta + 1`.
/// 3. The deep decode of [`super::record::for_each_record`]: decompression (capped at
///    `max_decompressed`), every record parsed, offsets inside the batch and increasing,
///    the record count matching, no trailing bytes, control records well-formed.
/// 4. For v2 CreateTime batches, no record timestamp above `max_timestamp`.
pub fn verify_batch_with_limit(
    file: &[u8],
    info: &BatchInfo,
    max_decompressed: usize,
) -> FormatResult<()> {
    verify_crc(file, info)?;
    deep_check(file, info, max_decompressed).map(|_| ())
}

/// Steps 2–4 of [`verify_batch_with_limit`]; returns the first record's offset, if any.
fn deep_check(file: &[u8], info: &BatchInfo, max_decompressed: usize) -> FormatResult<Option<i64>> {
    if info.magic >= MAGIC_V2 {
        check_v2_header(file, info)?;
    }
    let check_ts = info.magic >= MAGIC_V2 && info.timestamp_type == TimestampType::CreateTime;
    let mut first = None;
    for_each_record(file, info, max_decompressed, |r| {
        first.get_or_insert(r.offset);
        if check_ts && r.timestamp > info.max_timestamp {
            return Err(FormatError::new(
                ErrorKind::InvalidField {
                    field: "max_timestamp",
                    reason: format!(
                        "record at offset {} has timestamp {} above the batch max timestamp {}",
                        r.offset, r.timestamp, info.max_timestamp
                    ),
                },
                info.position.saturating_add(MAX_TIMESTAMP_OFFSET as u64),
            ));
        }
        Ok(())
    })?;
    Ok(first)
}

/// Header-level consistency of a v2 batch (stricter than Kafka).
fn check_v2_header(file: &[u8], info: &BatchInfo) -> FormatResult<()> {
    let h = parse_batch_header(info.bytes(file)?).map_err(|e| e.at_base(info.position))?;
    let at = |field_offset: usize| info.position.saturating_add(field_offset as u64);
    if h.last_offset_delta < 0 || h.checked_last_offset().is_none() {
        return Err(FormatError::new(
            ErrorKind::LengthOutOfRange {
                field: "last_offset_delta",
                value: i64::from(h.last_offset_delta),
                min: 0,
                max: i64::MAX
                    .saturating_sub(h.base_offset)
                    .min(i64::from(i32::MAX)),
            },
            at(LAST_OFFSET_DELTA_OFFSET),
        ));
    }
    let max_count = i64::from(h.last_offset_delta).saturating_add(1);
    if h.records_count < 0 || i64::from(h.records_count) > max_count {
        return Err(FormatError::new(
            ErrorKind::LengthOutOfRange {
                field: "records_count",
                value: i64::from(h.records_count),
                min: 0,
                max: max_count,
            },
            at(RECORDS_COUNT_OFFSET),
        ));
    }
    Ok(())
}

/// What [`verify_segment`] checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyOptions {
    /// Cap on the decompressed size of one batch.
    pub max_decompressed: usize,
    /// Decode every record ([`verify_batch_with_limit`]); when false only the CRC
    /// ([`verify_crc`]) and the cross-batch checks run, which is what Kafka's recovery checks.
    pub deep: bool,
    /// Check CRCs at all (false: structure only, e.g. for a fast `--no-crc` scan).
    pub check_crc: bool,
    /// The segment's base offset (from its file name). When set, every batch's last offset
    /// must satisfy `0 <= last_offset - base <= i32::MAX`, as `LogSegment.recover` requires
    /// (Kafka splits such a segment rather than truncating it).
    pub segment_base_offset: Option<i64>,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            max_decompressed: DEFAULT_MAX_DECOMPRESSED,
            deep: true,
            check_crc: true,
            segment_base_offset: None,
        }
    }
}

/// The outcome of [`verify_segment`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentVerification {
    /// Batches that passed every check.
    pub valid_batches: u64,
    /// Byte position after the last batch that passed every check: the truncation point.
    pub valid_end: u64,
    /// Last offset of the last valid batch, if any.
    pub last_valid_offset: Option<i64>,
    /// How the walk ended, when it ended without an error.
    pub end: Option<WalkEnd>,
    /// The first error, with its absolute byte position.
    pub error: Option<FormatError>,
}

/// Walk and verify a whole segment file, stopping at the first problem, as Kafka's recovery
/// does (spec §3.8) plus the stricter checks of §3.9.
///
/// Per batch: the header checks of [`ShallowWalker`], then [`verify_batch_with_limit`] (or only
/// [`verify_crc`] when `deep` is off, or neither when `check_crc` is off). Across batches:
/// `base_offset` must be greater than the previous batch's last offset
/// ([`ErrorKind::NonMonotonicOffset`]; gaps are fine, they are normal after compaction; for a
/// compressed legacy wrapper the first inner offset is used when `deep` is on) and, with
/// `segment_base_offset`, the last offset must fit a relative offset
/// ([`ErrorKind::LengthOutOfRange`], field `relative_offset`).
pub fn verify_segment(file: &[u8], opts: &VerifyOptions) -> SegmentVerification {
    let mut walker = ShallowWalker::new(file);
    let mut out = SegmentVerification {
        valid_batches: 0,
        valid_end: 0,
        last_valid_offset: None,
        end: None,
        error: None,
    };
    for item in walker.by_ref() {
        let info = match item {
            Ok(info) => info,
            Err(e) => {
                out.error = Some(e);
                return out;
            }
        };
        if let Err(e) = verify_one(file, &info, opts, out.last_valid_offset) {
            out.error = Some(e);
            return out;
        }
        out.valid_batches += 1;
        out.valid_end = info.end();
        out.last_valid_offset = Some(info.last_offset);
    }
    out.end = walker.end().cloned();
    out
}

fn verify_one(
    file: &[u8],
    info: &BatchInfo,
    opts: &VerifyOptions,
    prev_last: Option<i64>,
) -> FormatResult<()> {
    if opts.check_crc {
        verify_crc(file, info)?;
    }
    let mut first_offset = info.base_offset;
    if opts.deep {
        let first = deep_check(file, info, opts.max_decompressed)?;
        if info.magic < MAGIC_V2 {
            // A compressed legacy wrapper's offset field is its last offset: use the first inner.
            first_offset = first.unwrap_or(first_offset);
        }
    }
    if let Some(prev) = prev_last {
        if first_offset <= prev {
            return Err(FormatError::new(
                ErrorKind::NonMonotonicOffset {
                    prev,
                    next: first_offset,
                },
                info.position,
            ));
        }
    }
    if let Some(base) = opts.segment_base_offset {
        let relative = info.last_offset.checked_sub(base);
        if !relative.is_some_and(|r| (0..=i64::from(i32::MAX)).contains(&r)) {
            return Err(FormatError::new(
                ErrorKind::LengthOutOfRange {
                    field: "relative_offset",
                    value: relative.unwrap_or(i64::MIN),
                    min: 0,
                    max: i64::from(i32::MAX),
                },
                info.position,
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::formats::control::{encode as ctl, ControlKind};
    use crate::formats::legacy::encode as legacy;
    use crate::formats::record::encode::{encode_batch, fix_crc, rec, BatchSpec};
    use crate::formats::record::{decode_records, Record};

    const CODECS: [Compression; 5] = [
        Compression::None,
        Compression::Gzip,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
    ];

    /// A segment: one batch per codec, a transaction and its commit marker, an emptied batch,
    /// and legacy v0/v1 messages and wrappers in front (offsets strictly increasing).
    fn sample_file() -> (Vec<u8>, Vec<u64>) {
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

    fn walk_all(file: &[u8]) -> (Vec<BatchInfo>, Option<FormatError>, ShallowWalker<'_>) {
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
    fn walks_and_verifies_a_mixed_segment() {
        let (file, starts) = sample_file();
        let (infos, err, w) = walk_all(&file);
        assert_eq!(err, None);
        assert_eq!(infos.iter().map(|i| i.position).collect::<Vec<_>>(), starts);
        assert_eq!(w.end(), Some(&WalkEnd::Clean));
        assert_eq!(w.valid_end(), file.len() as u64);
        for info in &infos {
            verify_batch(&file, info).unwrap();
        }
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

        let v = verify_segment(
            &file,
            &VerifyOptions {
                segment_base_offset: Some(0),
                ..Default::default()
            },
        );
        assert_eq!(v.error, None);
        assert_eq!(v.valid_batches, starts.len() as u64);
        assert_eq!(v.valid_end, file.len() as u64);
        assert_eq!(v.end, Some(WalkEnd::Clean));
        assert_eq!(v.last_valid_offset, Some(infos[10].last_offset));
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
            let v = verify_segment(cut, &VerifyOptions::default());
            assert_eq!(v.error, None, "cut at {n}");
            assert_eq!(v.valid_end, expected_valid);
        }
    }

    #[test]
    fn flipped_bytes_are_caught_or_harmless_never_panic() {
        let (file, _) = sample_file();
        for i in 0..file.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut bad = file.clone();
                bad[i] ^= flip;
                let v = verify_segment(&bad, &VerifyOptions::default());
                let (_, _, w) = walk_all(&bad);
                assert!(v.valid_end <= w.valid_end());
            }
        }
    }

    #[test]
    fn flipped_payload_byte_is_a_crc_mismatch() {
        let (file, starts) = sample_file();
        for (k, &start) in starts.iter().enumerate() {
            let mut bad = file.clone();
            let last_byte = starts.get(k + 1).copied().unwrap_or(file.len() as u64) - 1;
            bad[last_byte as usize] ^= 0x10;
            let (infos, err, _) = walk_all(&bad);
            assert_eq!(err, None);
            let info = &infos[k];
            let e = verify_crc(&bad, info).unwrap_err();
            let crc_at = if info.magic == 2 { 17 } else { 12 };
            assert_eq!(e.offset, start + crc_at);
            match e.kind {
                ErrorKind::CrcMismatch { stored, computed } => {
                    assert_eq!(stored, info.stored_crc);
                    assert_ne!(stored, computed);
                }
                other => panic!("{other:?}"),
            }
            let v = verify_segment(&bad, &VerifyOptions::default());
            assert_eq!(v.valid_end, start);
            assert_eq!(v.valid_batches, k as u64);
            assert_eq!(v.error, Some(e));
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
            let v = verify_segment(&padded, &VerifyOptions::default());
            assert_eq!(
                v.end,
                Some(WalkEnd::ZeroFilled {
                    position: len,
                    len: zeros as u64
                })
            );
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

    #[test]
    fn cross_batch_checks() {
        let a = encode_batch(
            &BatchSpec {
                base_offset: 10,
                ..Default::default()
            },
            &[rec(10, 0, None, None), rec(11, 0, None, None)],
        );
        let b = encode_batch(
            &BatchSpec {
                base_offset: 11,
                ..Default::default()
            },
            &[rec(11, 0, None, None)],
        );
        let file = [a.clone(), b].concat();
        let v = verify_segment(&file, &VerifyOptions::default());
        assert_eq!(
            v.error,
            Some(FormatError::new(
                ErrorKind::NonMonotonicOffset { prev: 11, next: 11 },
                a.len() as u64
            ))
        );
        assert_eq!(v.valid_end, a.len() as u64);
        let v = verify_segment(
            &a,
            &VerifyOptions {
                segment_base_offset: Some(12),
                ..Default::default()
            },
        );
        assert!(matches!(
            v.error.unwrap().kind,
            ErrorKind::LengthOutOfRange {
                field: "relative_offset",
                ..
            }
        ));
        let far = encode_batch(
            &BatchSpec {
                base_offset: 1 << 32,
                ..Default::default()
            },
            &[rec(1 << 32, 0, None, None)],
        );
        let v = verify_segment(
            &far,
            &VerifyOptions {
                segment_base_offset: Some(0),
                ..Default::default()
            },
        );
        assert!(v.error.is_some());
    }

    #[test]
    fn stricter_header_checks() {
        let mut b = encode_batch(
            &BatchSpec::default(),
            &[rec(0, 10, None, None), rec(1, 10, None, None)],
        );
        let info = ShallowWalker::new(&b).next().unwrap().unwrap();
        verify_batch(&b, &info).unwrap();
        // More records than offsets.
        b[23..27].copy_from_slice(&0i32.to_be_bytes());
        fix_crc(&mut b);
        let info = ShallowWalker::new(&b).next().unwrap().unwrap();
        let e = verify_batch(&b, &info).unwrap_err();
        assert!(
            matches!(
                e.kind,
                ErrorKind::LengthOutOfRange {
                    field: "records_count",
                    ..
                }
            ),
            "{e}"
        );
        // Negative delta.
        b[23..27].copy_from_slice(&(-1i32).to_be_bytes());
        fix_crc(&mut b);
        let info = ShallowWalker::new(&b).next().unwrap().unwrap();
        let e = verify_batch(&b, &info).unwrap_err();
        assert_eq!(e.offset, 23);
        // Max timestamp below a record timestamp.
        let mut b = encode_batch(&BatchSpec::default(), &[rec(0, 10, None, None)]);
        b[35..43].copy_from_slice(&9i64.to_be_bytes());
        fix_crc(&mut b);
        let info = ShallowWalker::new(&b).next().unwrap().unwrap();
        let e = verify_batch(&b, &info).unwrap_err();
        assert_eq!(e.offset, 35);
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_files_never_panic_and_end(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..600)) {
            let (infos, err, w) = walk_all(&bytes);
            proptest::prop_assert!(err.is_some() || w.end().is_some());
            proptest::prop_assert!(w.valid_end() <= bytes.len() as u64);
            for info in &infos {
                let _ = verify_batch(&bytes, info);
            }
            let _ = verify_segment(&bytes, &VerifyOptions::default());
        }

        #[test]
        fn mutated_segments_never_panic(i in 0usize..2000, b in proptest::num::u8::ANY, cut in 0usize..2000) {
            let (mut file, _) = sample_file();
            let i = i % file.len();
            file[i] = b;
            file.truncate(cut.max(i + 1).min(file.len()));
            let v = verify_segment(&file, &VerifyOptions::default());
            proptest::prop_assert!(v.valid_end <= file.len() as u64);
        }
    }

    /// Every segment `.log` (a 20-digit name) under `fixtures/` written by a real broker (all
    /// codecs, transactions, compaction, KRaft metadata) must walk and deep-verify cleanly, and
    /// at least one must exist. `LOGCLEAN_FIXTURES_DIR` points the test at another tree.
    #[test]
    fn real_broker_fixtures_verify() {
        let root = match std::env::var_os("LOGCLEAN_FIXTURES_DIR") {
            Some(dir) => std::path::PathBuf::from(dir),
            None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"),
        };
        let mut logs = Vec::new();
        let mut stack = vec![root.clone()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let name = entry.file_name().to_string_lossy().into_owned();
                if path.is_dir() {
                    stack.push(path);
                } else if name.len() == 24
                    && name.ends_with(".log")
                    && name[..20].bytes().all(|b| b.is_ascii_digit())
                {
                    logs.push(path);
                }
            }
        }
        assert!(
            !logs.is_empty(),
            "no segment files under {}: the broker fixtures are missing",
            root.display()
        );
        logs.sort();
        let mut batches = 0u64;
        let mut failures = Vec::new();
        let mut kinds = std::collections::BTreeMap::new();
        for path in &logs {
            let file = std::fs::read(path).unwrap();
            let base = path
                .file_stem()
                .and_then(|s| s.to_str())
                .and_then(|s| s.parse::<i64>().ok());
            let opts = VerifyOptions {
                segment_base_offset: base,
                ..Default::default()
            };
            let v = verify_segment(&file, &opts);
            if v.error.is_some()
                || !matches!(v.end, Some(WalkEnd::Clean | WalkEnd::ZeroFilled { .. }))
            {
                failures.push(format!("{}: {:?} {:?}", path.display(), v.error, v.end));
            }
            for info in ShallowWalker::new(&file).flatten() {
                *kinds
                    .entry(format!("{} control={}", info.compression, info.is_control))
                    .or_insert(0u64) += 1;
                if let Err(e) = decode_records(&file, &info, DEFAULT_MAX_DECOMPRESSED) {
                    failures.push(format!("{}: decode: {e}", path.display()));
                }
            }
            batches += v.valid_batches;
        }
        eprintln!(
            "verified {} segments, {batches} batches: {kinds:?}",
            logs.len()
        );
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
