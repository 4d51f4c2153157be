//! The types every `.log` reader shares: the record batch v2 (magic 2) header, the constants of
//! every log entry, [`BatchInfo`] (one batch or legacy entry as a walk finds it) and the decoded
//! [`Record`] / [`RecordRef`]. The modules that walk, decode and verify a segment all build on
//! this one, and it imports none of them.
//!
//! Layout and semantics follow Kafka's `clients/src/main/java/org/apache/kafka/common/record/
//! DefaultRecordBatch.java` (field offsets, attribute masks, `lastOffset`, `incrementSequence`),
//! `Records.java` (`LOG_OVERHEAD`, `HEADER_SIZE_UP_TO_MAGIC`) and `CompressionType.java`; see
//! `shared/spec/kafka-on-disk-formats.md` §3.1–§3.2.
//!
//! ```text
//! byte  0  baseOffset            i64   not covered by the CRC
//! byte  8  batchLength           i32   bytes after this field; >= 49
//! byte 12  partitionLeaderEpoch  i32   not covered by the CRC
//! byte 16  magic                 i8    = 2
//! byte 17  crc                   u32   CRC-32C of bytes [21, 12 + batchLength)
//! byte 21  attributes            i16   flags in the low byte
//! byte 23  lastOffsetDelta       i32
//! byte 27  baseTimestamp         i64   (= delete horizon when attribute bit 6 is set)
//! byte 35  maxTimestamp          i64
//! byte 43  producerId            i64
//! byte 51  producerEpoch         i16
//! byte 53  baseSequence          i32
//! byte 57  recordsCount          i32
//! byte 61  records...
//! ```

use std::fmt;

use super::bytes::Cursor;
use super::control::ControlRecord;
use super::error::{ErrorKind, FormatError, FormatResult};

/// Bytes before the `size` field's payload in every log entry: offset (8) + size (4).
pub const LOG_OVERHEAD: usize = 12;
/// Bytes up to and including the magic byte, which sits at byte 16 in every format.
pub const HEADER_SIZE_UP_TO_MAGIC: usize = 17;
/// Byte position of the magic byte inside a log entry.
pub const MAGIC_OFFSET: usize = 16;
/// Size of the v2 batch header (`DefaultRecordBatch.RECORD_BATCH_OVERHEAD`); records start here.
pub const RECORD_BATCH_OVERHEAD: usize = 61;
/// Smallest valid v2 `batchLength`: `RECORD_BATCH_OVERHEAD - LOG_OVERHEAD`.
pub const MIN_BATCH_LENGTH: i32 = 49;
/// Byte position of the v2 CRC field.
pub const CRC_OFFSET: usize = 17;
/// Byte position of the v2 attributes field, where the CRC-covered range starts.
pub const ATTRIBUTES_OFFSET: usize = 21;
/// Byte position of `lastOffsetDelta` in a v2 batch.
pub const LAST_OFFSET_DELTA_OFFSET: usize = 23;
/// Byte position of `maxTimestamp` in a v2 batch.
pub const MAX_TIMESTAMP_OFFSET: usize = 35;
/// Byte position of `recordsCount` in a v2 batch.
pub const RECORDS_COUNT_OFFSET: usize = 57;

/// Magic byte of legacy message format v0.
pub const MAGIC_V0: i8 = 0;
/// Magic byte of legacy message format v1 (adds a timestamp).
pub const MAGIC_V1: i8 = 1;
/// Magic byte of the record batch format v2 (the only one Kafka 4.x writes).
pub const MAGIC_V2: i8 = 2;

/// Attribute bits 0–2: compression codec id.
pub const COMPRESSION_CODEC_MASK: i16 = 0x07;
/// Attribute bit 3: timestamp type (0 create time, 1 log append time).
pub const TIMESTAMP_TYPE_MASK: i16 = 0x08;
/// Attribute bit 4: the batch belongs to a transaction.
pub const TRANSACTIONAL_FLAG_MASK: i16 = 0x10;
/// Attribute bit 5: the batch holds control records (transaction markers, KRaft control data).
pub const CONTROL_FLAG_MASK: i16 = 0x20;
/// Attribute bit 6: `baseTimestamp` holds the delete horizon set by the log cleaner.
pub const DELETE_HORIZON_FLAG_MASK: i16 = 0x40;

/// Compression codec of a batch or legacy wrapper message (attribute bits 0–2,
/// `CompressionType.java`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    /// Id 0: records stored as they are.
    None,
    /// Id 1: a gzip stream.
    Gzip,
    /// Id 2: snappy in xerial `SnappyOutputStream` framing.
    Snappy,
    /// Id 3: an LZ4 frame written by Kafka's own LZ4 block stream.
    Lz4,
    /// Id 4: a zstd frame (v2 batches only).
    Zstd,
    /// Ids 5–7, which Kafka does not define (`CompressionType.forId` throws on them).
    Unknown(u8),
}

impl Compression {
    /// The codec for attribute bits 0–2 (only the low three bits of `id` are used).
    pub fn from_id(id: u8) -> Self {
        match id & 0x07 {
            0 => Compression::None,
            1 => Compression::Gzip,
            2 => Compression::Snappy,
            3 => Compression::Lz4,
            4 => Compression::Zstd,
            other => Compression::Unknown(other),
        }
    }

    /// The codec id as stored in the attributes.
    pub fn id(self) -> u8 {
        match self {
            Compression::None => 0,
            Compression::Gzip => 1,
            Compression::Snappy => 2,
            Compression::Lz4 => 3,
            Compression::Zstd => 4,
            Compression::Unknown(id) => id,
        }
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Compression::None => f.write_str("none"),
            Compression::Gzip => f.write_str("gzip"),
            Compression::Snappy => f.write_str("snappy"),
            Compression::Lz4 => f.write_str("lz4"),
            Compression::Zstd => f.write_str("zstd"),
            Compression::Unknown(id) => write!(f, "unknown({id})"),
        }
    }
}

/// Meaning of a batch's timestamps (`TimestampType.java`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimestampType {
    /// Set by the producer; `maxTimestamp` is the largest record timestamp.
    CreateTime,
    /// Set by the broker on append; every record's timestamp is the batch `maxTimestamp`.
    LogAppendTime,
    /// Message format v0, which has no timestamps.
    NoTimestamp,
}

impl fmt::Display for TimestampType {
    /// Kafka's names, as `DumpLogSegments` prints them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TimestampType::CreateTime => "CreateTime",
            TimestampType::LogAppendTime => "LogAppendTime",
            TimestampType::NoTimestamp => "NoTimestampType",
        })
    }
}

/// The 61-byte header of a v2 record batch, fields named as in the spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BatchHeader {
    /// Offset of the first record (the batch may start after records were compacted away).
    pub base_offset: i64,
    /// Bytes after this field: the whole batch is `12 + batch_length` bytes.
    pub batch_length: i32,
    /// Leader epoch stamped by the broker; -1 for none. Not covered by the CRC.
    pub partition_leader_epoch: i32,
    /// Format version; 2 for every header this module returns.
    pub magic: i8,
    /// Stored CRC-32C of bytes 21 to the end of the batch.
    pub crc: u32,
    /// Attribute flags (only the low byte is used; see the `*_MASK` constants).
    pub attributes: i16,
    /// `last_offset - base_offset`; kept through compaction.
    pub last_offset_delta: i32,
    /// Timestamp of the first record, -1 for an empty batch, or the delete horizon
    /// when [`BatchHeader::has_delete_horizon`].
    pub base_timestamp: i64,
    /// Largest record timestamp (create time), or the broker's append time.
    pub max_timestamp: i64,
    /// Idempotent/transactional producer id; -1 for none.
    pub producer_id: i64,
    /// Producer epoch; -1 for none.
    pub producer_epoch: i16,
    /// Sequence number of the first record; -1 for none.
    pub base_sequence: i32,
    /// Number of records in the batch (0 for a batch emptied by compaction).
    pub records_count: i32,
}

impl BatchHeader {
    /// Compression codec from attribute bits 0–2.
    pub fn compression(&self) -> Compression {
        Compression::from_id((self.attributes & COMPRESSION_CODEC_MASK) as u8)
    }

    /// Timestamp type from attribute bit 3 (never [`TimestampType::NoTimestamp`] for v2).
    pub fn timestamp_type(&self) -> TimestampType {
        if self.attributes & TIMESTAMP_TYPE_MASK == 0 {
            TimestampType::CreateTime
        } else {
            TimestampType::LogAppendTime
        }
    }

    /// Whether attribute bit 4 (transactional) is set.
    pub fn is_transactional(&self) -> bool {
        self.attributes & TRANSACTIONAL_FLAG_MASK != 0
    }

    /// Whether attribute bit 5 (control batch) is set.
    pub fn is_control(&self) -> bool {
        self.attributes & CONTROL_FLAG_MASK != 0
    }

    /// Whether attribute bit 6 is set, meaning `base_timestamp` is the cleaner's delete horizon.
    pub fn has_delete_horizon(&self) -> bool {
        self.attributes & DELETE_HORIZON_FLAG_MASK != 0
    }

    /// The delete horizon in epoch milliseconds, when the cleaner set one.
    pub fn delete_horizon(&self) -> Option<i64> {
        self.has_delete_horizon().then_some(self.base_timestamp)
    }

    /// `base_offset + last_offset_delta`, wrapping on overflow as Kafka's Java arithmetic does.
    /// Use [`BatchHeader::checked_last_offset`] to detect a corrupt header.
    pub fn last_offset(&self) -> i64 {
        self.base_offset
            .wrapping_add(i64::from(self.last_offset_delta))
    }

    /// `base_offset + last_offset_delta`, or `None` if it overflows an `i64`.
    pub fn checked_last_offset(&self) -> Option<i64> {
        self.base_offset
            .checked_add(i64::from(self.last_offset_delta))
    }

    /// Sequence of the last record: `base_sequence + last_offset_delta`, wrapping past
    /// `i32::MAX` to 0 (`DefaultRecordBatch.incrementSequence`); -1 when there is no sequence.
    pub fn last_sequence(&self) -> i32 {
        if self.base_sequence == -1 {
            return -1;
        }
        increment_sequence(self.base_sequence, self.last_offset_delta)
    }

    /// Total bytes of the batch in the file: `12 + batch_length` (0 if `batch_length` < 0).
    pub fn size_in_bytes(&self) -> u64 {
        u64::try_from(self.batch_length).map_or(0, |len| len + LOG_OVERHEAD as u64)
    }
}

/// `DefaultRecordBatch.incrementSequence`: add, wrapping from `i32::MAX` back to 0.
pub(crate) fn increment_sequence(base: i32, increment: i32) -> i32 {
    if base > i32::MAX.wrapping_sub(increment) {
        // Same arithmetic as Java: increment - (MAX - base) - 1, in wrapping i32.
        increment
            .wrapping_sub(i32::MAX.wrapping_sub(base))
            .wrapping_sub(1)
    } else {
        base.wrapping_add(increment)
    }
}

/// Parse the v2 batch header at the start of `buf`.
///
/// Needs at least [`RECORD_BATCH_OVERHEAD`] bytes. Only the magic byte is validated (it must be
/// 2, else [`ErrorKind::BadMagic`] at byte 16); `batch_length`, the CRC and the counts are
/// returned as stored, for the walker and the verifier to judge. Offsets in errors are relative
/// to `buf`.
pub fn parse_batch_header(buf: &[u8]) -> FormatResult<BatchHeader> {
    if buf.len() < RECORD_BATCH_OVERHEAD {
        return Err(FormatError::new(
            ErrorKind::Truncated {
                needed: RECORD_BATCH_OVERHEAD as u64,
                available: buf.len() as u64,
            },
            0,
        ));
    }
    let mut c = Cursor::new(buf);
    let base_offset = c.i64()?;
    let batch_length = c.i32()?;
    let partition_leader_epoch = c.i32()?;
    let magic = c.i8()?;
    if magic != MAGIC_V2 {
        return Err(FormatError::new(
            ErrorKind::BadMagic(magic),
            MAGIC_OFFSET as u64,
        ));
    }
    Ok(BatchHeader {
        base_offset,
        batch_length,
        partition_leader_epoch,
        magic,
        crc: c.u32()?,
        attributes: c.i16()?,
        last_offset_delta: c.i32()?,
        base_timestamp: c.i64()?,
        max_timestamp: c.i64()?,
        producer_id: c.i64()?,
        producer_epoch: c.i16()?,
        base_sequence: c.i32()?,
        records_count: c.i32()?,
    })
}

/// CRC-32C (Castagnoli) of a whole v2 batch slice as Kafka computes it: bytes 21 to the end.
/// Returns `None` when the slice is shorter than 21 bytes.
pub fn compute_batch_crc(batch: &[u8]) -> Option<u32> {
    batch.get(ATTRIBUTES_OFFSET..).map(crc32c::crc32c)
}

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

/// One record, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Absolute offset.
    pub offset: i64,
    /// Timestamp in epoch milliseconds as Kafka reports it: `base_timestamp + delta` for create
    /// time, the batch `max_timestamp` for log append time, -1 for message format v0.
    pub timestamp: i64,
    /// The key; `None` for a null key.
    pub key: Option<Vec<u8>>,
    /// The value; `None` for a null value (a tombstone).
    pub value: Option<Vec<u8>>,
    /// Headers in stored order: the key as lossy UTF-8, and the value (`None` if null).
    pub headers: Vec<(String, Option<Vec<u8>>)>,
    /// The decoded control record, for records of a control batch.
    pub control: Option<ControlRecord>,
}

/// One record, borrowing its bytes from the file or from the decompressed records section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordRef<'a> {
    /// Absolute offset.
    pub offset: i64,
    /// Timestamp, with the same rules as [`Record::timestamp`].
    pub timestamp: i64,
    /// The key; `None` for a null key.
    pub key: Option<&'a [u8]>,
    /// The value; `None` for a null value.
    pub value: Option<&'a [u8]>,
    /// Headers as raw key bytes and value bytes.
    pub headers: Vec<(&'a [u8], Option<&'a [u8]>)>,
    /// The decoded control record, for records of a control batch.
    pub control: Option<ControlRecord>,
}

impl RecordRef<'_> {
    /// Copy into an owned [`Record`] (header keys decoded as lossy UTF-8).
    pub fn to_owned_record(&self) -> Record {
        Record {
            offset: self.offset,
            timestamp: self.timestamp,
            key: self.key.map(<[u8]>::to_vec),
            value: self.value.map(<[u8]>::to_vec),
            headers: self
                .headers
                .iter()
                .map(|(k, v)| {
                    (
                        String::from_utf8_lossy(k).into_owned(),
                        v.map(<[u8]>::to_vec),
                    )
                })
                .collect(),
            control: self.control,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn header_bytes() -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&42i64.to_be_bytes());
        b.extend_from_slice(&49i32.to_be_bytes());
        b.extend_from_slice(&7i32.to_be_bytes());
        b.push(2);
        b.extend_from_slice(&0xdead_beefu32.to_be_bytes());
        b.extend_from_slice(&0x0074i16.to_be_bytes()); // zstd | txn | control | horizon
        b.extend_from_slice(&3i32.to_be_bytes());
        b.extend_from_slice(&1000i64.to_be_bytes());
        b.extend_from_slice(&2000i64.to_be_bytes());
        b.extend_from_slice(&99i64.to_be_bytes());
        b.extend_from_slice(&5i16.to_be_bytes());
        b.extend_from_slice(&i32::MAX.to_be_bytes());
        b.extend_from_slice(&4i32.to_be_bytes());
        b
    }

    #[test]
    fn parses_every_field() {
        let h = parse_batch_header(&header_bytes()).unwrap();
        assert_eq!(h.base_offset, 42);
        assert_eq!(h.batch_length, 49);
        assert_eq!(h.partition_leader_epoch, 7);
        assert_eq!(h.crc, 0xdead_beef);
        assert_eq!(h.compression(), Compression::Zstd);
        assert_eq!(h.timestamp_type(), TimestampType::CreateTime);
        assert!(h.is_transactional() && h.is_control() && h.has_delete_horizon());
        assert_eq!(h.delete_horizon(), Some(1000));
        assert_eq!(h.last_offset(), 45);
        assert_eq!(h.max_timestamp, 2000);
        assert_eq!(h.producer_id, 99);
        assert_eq!(h.producer_epoch, 5);
        // Sequence wraps from i32::MAX to 0: MAX + 3 → 2.
        assert_eq!(h.last_sequence(), 2);
        assert_eq!(h.records_count, 4);
        assert_eq!(h.size_in_bytes(), 61);
    }

    #[test]
    fn truncated_at_every_byte() {
        let bytes = header_bytes();
        for n in 0..bytes.len() {
            let err = parse_batch_header(&bytes[..n]).unwrap_err();
            assert!(
                matches!(err.kind, ErrorKind::Truncated { .. }),
                "{n}: {err}"
            );
        }
    }

    #[test]
    fn rejects_other_magic() {
        let mut bytes = header_bytes();
        bytes[16] = 1;
        let err = parse_batch_header(&bytes).unwrap_err();
        assert_eq!(err, FormatError::new(ErrorKind::BadMagic(1), 16));
    }

    #[test]
    fn compression_ids_and_names() {
        for id in 0..8u8 {
            assert_eq!(Compression::from_id(id).id(), id);
        }
        let names: Vec<String> = (0..6u8)
            .map(|id| Compression::from_id(id).to_string())
            .collect();
        assert_eq!(
            names,
            ["none", "gzip", "snappy", "lz4", "zstd", "unknown(5)"]
        );
    }

    #[test]
    fn sequence_wraparound_matches_java() {
        assert_eq!(increment_sequence(5, 3), 8);
        assert_eq!(increment_sequence(i32::MAX, 1), 0);
        assert_eq!(increment_sequence(i32::MAX - 1, 5), 3);
    }
}
