//! Legacy message sets: message format v0 and v1 (magic 0 and 1), read-only.
//!
//! Kafka sources: `clients/src/main/java/org/apache/kafka/common/record/LegacyRecord.java`
//! (layout, CRC, timestamps) and `AbstractLegacyRecordBatch.java` (`DeepRecordsIterator`:
//! compressed wrappers, relative inner offsets); spec §3.6. Kafka 4.x no longer writes these
//! formats (KIP-724) but old segments may still hold them.
//!
//! ```text
//! log entry:  offset i64 | size i32 | record (size bytes)
//! record:     crc u32 | magic i8 | attributes i8 | [timestamp i64, v1 only]
//!             | key length i32 (-1 null) | key | value length i32 (-1 null) | value
//! ```
//!
//! The CRC is IEEE CRC-32 over the record from the magic byte to its end. A compressed
//! "wrapper" message carries, as its value, a compressed stream of uncompressed inner log
//! entries. Inner offsets are relative (0..n-1) under a v1 wrapper and absolute under a v0 one.
//!
//! Where Kafka is lenient this reader is strict, because it serves `--verify`: trailing bytes
//! after a record's value, a partial inner entry at the end of a decompressed wrapper (Kafka's
//! `DataLogInputStream` silently stops there), an inner CRC mismatch, a compressed inner message
//! and non-increasing inner offsets are all errors.

use super::batch::{Compression, RecordRef, TimestampType, LOG_OVERHEAD, MAGIC_V0, MAGIC_V1};
use super::bytes::Cursor;
use super::compression::decompress;
use super::error::{ErrorKind, FormatError, FormatResult};

/// Smallest v0 record: crc 4 + magic 1 + attributes 1 + key length 4 + value length 4.
pub const RECORD_OVERHEAD_V0: usize = 14;
/// Smallest v1 record: the v0 overhead plus an 8-byte timestamp.
pub const RECORD_OVERHEAD_V1: usize = 22;
/// Attribute bits 0–2: compression codec of a legacy message.
pub const LEGACY_COMPRESSION_MASK: i8 = 0x07;
/// Attribute bit 3 (v1 only): timestamp type.
pub const LEGACY_TIMESTAMP_TYPE_MASK: i8 = 0x08;

/// The fixed fields at the start of a legacy record (after the 12-byte offset and size).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LegacyHeader {
    /// Stored CRC-32 of the record from the magic byte on.
    pub crc: u32,
    /// 0 or 1.
    pub magic: i8,
    /// Compression (bits 0–2) and, for v1, timestamp type (bit 3).
    pub attributes: i8,
    /// The stored timestamp (v1); `None` for v0.
    pub timestamp: Option<i64>,
}

impl LegacyHeader {
    /// Compression codec from attribute bits 0–2.
    pub fn compression(&self) -> Compression {
        Compression::from_id((self.attributes & LEGACY_COMPRESSION_MASK) as u8)
    }

    /// `NoTimestamp` for v0; otherwise attribute bit 3.
    pub fn timestamp_type(&self) -> TimestampType {
        if self.magic == MAGIC_V0 {
            TimestampType::NoTimestamp
        } else if self.attributes & LEGACY_TIMESTAMP_TYPE_MASK == 0 {
            TimestampType::CreateTime
        } else {
            TimestampType::LogAppendTime
        }
    }

    /// The stored timestamp, or -1 (`NO_TIMESTAMP`) for v0.
    pub fn timestamp_or_none(&self) -> i64 {
        self.timestamp.unwrap_or(-1)
    }
}

/// A whole legacy record, borrowing its key and value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LegacyMessage<'a> {
    /// The fixed fields.
    pub header: LegacyHeader,
    /// The key, or `None` when its length is negative.
    pub key: Option<&'a [u8]>,
    /// The value, or `None` when its length is negative.
    pub value: Option<&'a [u8]>,
    /// Byte position of the value inside the record slice (its length prefix excluded).
    pub value_position: usize,
}

/// Parse the fixed fields of a legacy record (`record` starts at the CRC).
///
/// The magic must be 0 or 1 ([`ErrorKind::BadMagic`] at byte 4). Offsets are relative to
/// `record`.
pub fn parse_legacy_header(record: &[u8]) -> FormatResult<LegacyHeader> {
    let mut c = Cursor::new(record);
    let crc = c.u32()?;
    let magic = c.i8()?;
    if magic != MAGIC_V0 && magic != MAGIC_V1 {
        return Err(FormatError::new(ErrorKind::BadMagic(magic), 4));
    }
    let attributes = c.i8()?;
    let timestamp = if magic == MAGIC_V1 {
        Some(c.i64()?)
    } else {
        None
    };
    Ok(LegacyHeader {
        crc,
        magic,
        attributes,
        timestamp,
    })
}

/// Parse a whole legacy record (`record` is exactly the `size` bytes after offset and size).
///
/// Key and value lengths must fit in `record`, and nothing may follow the value
/// ([`ErrorKind::TrailingBytes`]). The CRC is not checked here (see [`compute_legacy_crc`]).
pub fn parse_legacy_message(record: &[u8]) -> FormatResult<LegacyMessage<'_>> {
    let header = parse_legacy_header(record)?;
    let mut c = Cursor::new(record);
    c.skip(if header.magic == MAGIC_V1 { 14 } else { 6 })?;
    let key = i32_bytes(&mut c)?;
    let value_at = c.position();
    let value = i32_bytes(&mut c)?;
    if !c.is_empty() {
        return Err(c.error(ErrorKind::TrailingBytes(c.remaining() as u64)));
    }
    Ok(LegacyMessage {
        header,
        key,
        value,
        value_position: value_at.saturating_add(4),
    })
}

/// An i32 length (negative = null, as `LegacyRecord` reads it) and that many bytes.
fn i32_bytes<'a>(c: &mut Cursor<'a>) -> FormatResult<Option<&'a [u8]>> {
    let at = c.position();
    let len = c.i32()?;
    match usize::try_from(len) {
        Ok(len) => c.take(len).map(Some).map_err(|e| FormatError {
            offset: at as u64,
            ..e
        }),
        Err(_) => Ok(None),
    }
}

/// IEEE CRC-32 of a legacy record as Kafka computes it: from the magic byte (record byte 4) to
/// the end. `None` if the record is shorter than 5 bytes.
pub fn compute_legacy_crc(record: &[u8]) -> Option<u32> {
    record.get(4..).map(crc32fast::hash)
}

/// Visit every logical record of the legacy entry at `position` (`size` bytes including the
/// 12-byte overhead, `offset` from its offset field), as `AbstractLegacyRecordBatch.iterator()`
/// yields them. Errors carry absolute file positions; errors inside a decompressed wrapper value
/// carry the position of that value.
pub(crate) fn visit_legacy_records(
    file: &[u8],
    position: u64,
    size: u64,
    offset: i64,
    max_decompressed: usize,
    f: &mut dyn FnMut(RecordRef<'_>) -> FormatResult<()>,
) -> FormatResult<()> {
    let record_pos = position.saturating_add(LOG_OVERHEAD as u64);
    let record = entry_slice(file, position, size)?
        .get(LOG_OVERHEAD..)
        .ok_or_else(|| {
            FormatError::new(
                ErrorKind::Truncated {
                    needed: 12,
                    available: 0,
                },
                position,
            )
        })?;
    let msg = parse_legacy_message(record).map_err(|e| e.at_base(record_pos))?;
    let header = msg.header;
    let codec = header.compression();
    if codec == Compression::None {
        return f(RecordRef {
            offset,
            timestamp: header.timestamp_or_none(),
            key: msg.key,
            value: msg.value,
            headers: Vec::new(),
            control: None,
        });
    }

    let value_pos = record_pos.saturating_add(msg.value_position as u64);
    let inner = decompress_wrapper(&msg, record_pos, value_pos, max_decompressed)?;
    // Like Kafka, read every inner entry first: v1 relative offsets need the last one.
    let entries = read_inner_entries(&inner, value_pos)?;
    let wrapper = Wrapper {
        header,
        position,
        offset,
        value_pos,
    };
    visit_inner_entries(&wrapper, entries, f)
}

/// The compressed wrapper an inner entry came from: what its offsets and timestamps derive from.
struct Wrapper {
    header: LegacyHeader,
    /// File position of the wrapper's log entry.
    position: u64,
    /// The wrapper's offset field.
    offset: i64,
    /// File position of the wrapper's value: where errors inside the decompressed value point.
    value_pos: u64,
}

impl Wrapper {
    fn error(&self, kind: ErrorKind) -> FormatError {
        FormatError::new(kind, self.value_pos)
    }
}

/// The decompressed value of a compressed wrapper, after checking that its codec is one the
/// message format allows and that the value is not null.
fn decompress_wrapper(
    msg: &LegacyMessage<'_>,
    record_pos: u64,
    value_pos: u64,
    max_decompressed: usize,
) -> FormatResult<Vec<u8>> {
    let header = msg.header;
    let codec = header.compression();
    if let Compression::Zstd | Compression::Unknown(_) = codec {
        return Err(FormatError::new(
            ErrorKind::InvalidField {
                field: "attributes",
                reason: format!(
                    "compression {codec} is not valid for message format v{}",
                    header.magic
                ),
            },
            record_pos.saturating_add(5),
        ));
    }
    let value = msg.value.ok_or_else(|| {
        FormatError::new(
            ErrorKind::InvalidField {
                field: "value",
                reason: "compressed message set with null value".into(),
            },
            value_pos,
        )
    })?;
    decompress(codec, value, header.magic, max_decompressed).map_err(|e| e.at_base(value_pos))
}

/// Every inner log entry of a decompressed wrapper value, each checked: a whole entry, not
/// compressed itself, and with a matching CRC. Every error points at `value_pos`.
fn read_inner_entries(inner: &[u8], value_pos: u64) -> FormatResult<Vec<(i64, LegacyMessage<'_>)>> {
    let at_value = |kind: ErrorKind| FormatError::new(kind, value_pos);
    let moved = |e: FormatError| FormatError {
        offset: value_pos,
        ..e
    };
    let mut entries: Vec<(i64, LegacyMessage<'_>)> = Vec::new();
    let mut c = Cursor::new(inner);
    while !c.is_empty() {
        let inner_offset = c.i64().map_err(moved)?;
        let inner_size = c.i32().map_err(moved)?;
        let len = usize::try_from(inner_size)
            .ok()
            .filter(|&n| n >= RECORD_OVERHEAD_V0)
            .ok_or_else(|| {
                at_value(ErrorKind::LengthOutOfRange {
                    field: "size",
                    value: i64::from(inner_size),
                    min: RECORD_OVERHEAD_V0 as i64,
                    max: i64::from(i32::MAX),
                })
            })?;
        let bytes = c.take(len).map_err(moved)?;
        let m = parse_legacy_message(bytes).map_err(moved)?;
        if m.header.compression() != Compression::None {
            return Err(at_value(ErrorKind::InvalidField {
                field: "attributes",
                reason: "inner messages must not be compressed".into(),
            }));
        }
        let computed = compute_legacy_crc(bytes).unwrap_or(0);
        if computed != m.header.crc {
            return Err(at_value(ErrorKind::CrcMismatch {
                stored: m.header.crc,
                computed,
            }));
        }
        entries.push((inner_offset, m));
    }
    Ok(entries)
}

/// Give each inner entry its absolute offset and its timestamp, check that offsets increase and
/// stay within the wrapper's, and hand the records to `f`.
fn visit_inner_entries(
    wrapper: &Wrapper,
    entries: Vec<(i64, LegacyMessage<'_>)>,
    f: &mut dyn FnMut(RecordRef<'_>) -> FormatResult<()>,
) -> FormatResult<()> {
    let header = wrapper.header;
    let offset = wrapper.offset;
    let relative_base = relative_base(wrapper, &entries)?;
    let log_append = header.timestamp_type() == TimestampType::LogAppendTime;
    let mut prev: Option<i64> = None;
    for (inner_offset, m) in entries {
        let absolute = if header.magic == MAGIC_V1 {
            relative_base.and_then(|b| b.checked_add(inner_offset))
        } else {
            Some(inner_offset)
        }
        .ok_or_else(|| {
            wrapper.error(ErrorKind::InvalidField {
                field: "offset",
                reason: "inner offset overflows".into(),
            })
        })?;
        if let Some(p) = prev {
            if absolute <= p {
                return Err(wrapper.error(ErrorKind::NonMonotonicOffset {
                    prev: p,
                    next: absolute,
                }));
            }
        }
        if absolute > offset && offset != 0 {
            return Err(wrapper.error(ErrorKind::NonMonotonicOffset {
                prev: absolute,
                next: offset,
            }));
        }
        prev = Some(absolute);
        let timestamp = match m.header.timestamp {
            None => -1,
            Some(_) if log_append => header.timestamp_or_none(),
            Some(ts) => ts,
        };
        f(RecordRef {
            offset: absolute,
            timestamp,
            key: m.key,
            value: m.value,
            headers: Vec::new(),
            control: None,
        })?;
    }
    Ok(())
}

/// What a v1 wrapper adds to each relative inner offset (`None` if that overflows); 0 otherwise.
/// An error if the wrapper holds no inner entry, or its offset is below the last inner one.
fn relative_base(
    wrapper: &Wrapper,
    entries: &[(i64, LegacyMessage<'_>)],
) -> FormatResult<Option<i64>> {
    let offset = wrapper.offset;
    let last_inner = match entries.last() {
        Some((o, _)) => *o,
        None => {
            return Err(wrapper.error(ErrorKind::InvalidField {
                field: "value",
                reason: "compressed message set with no inner records".into(),
            }))
        }
    };
    // v1: absolute = wrapper offset - last relative + relative (a wrapper offset of 0, written by
    // some librdkafka versions, leaves them as they are). v0: inner offsets are absolute.
    if wrapper.header.magic == MAGIC_V1 && offset != 0 {
        if offset < last_inner {
            return Err(FormatError::new(
                ErrorKind::InvalidField {
                    field: "offset",
                    reason: format!(
                        "wrapper offset {offset} is less than the last inner offset {last_inner}"
                    ),
                },
                wrapper.position,
            ));
        }
        Ok(offset.checked_sub(last_inner))
    } else {
        Ok(Some(0))
    }
}

/// The `size` bytes of the entry at `position`, or a truncation error.
fn entry_slice(file: &[u8], position: u64, size: u64) -> FormatResult<&[u8]> {
    let range = usize::try_from(position)
        .ok()
        .zip(usize::try_from(size).ok())
        .and_then(|(p, s)| Some(p..p.checked_add(s)?));
    range.and_then(|r| file.get(r)).ok_or_else(|| {
        FormatError::new(
            ErrorKind::Truncated {
                needed: size,
                available: (file.len() as u64).saturating_sub(position),
            },
            position,
        )
    })
}

/// Test-only encoders for legacy messages.
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod encode {
    use super::*;
    use crate::formats::compression::encode::compress;

    /// A legacy log entry (offset, size, record) with a correct CRC.
    pub(crate) fn entry(
        offset: i64,
        magic: i8,
        attributes: i8,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
    ) -> Vec<u8> {
        let mut body = vec![magic as u8, attributes as u8];
        if magic == MAGIC_V1 {
            body.extend_from_slice(&timestamp.to_be_bytes());
        }
        for part in [key, value] {
            match part {
                Some(b) => {
                    body.extend_from_slice(&(b.len() as i32).to_be_bytes());
                    body.extend_from_slice(b);
                }
                None => body.extend_from_slice(&(-1i32).to_be_bytes()),
            }
        }
        let mut out = offset.to_be_bytes().to_vec();
        out.extend_from_slice(&((body.len() + 4) as i32).to_be_bytes());
        out.extend_from_slice(&crc32fast::hash(&body).to_be_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// An inner message for [`wrapper`]: absolute offset, timestamp, key, value.
    pub(crate) type Inner = (i64, i64, Option<Vec<u8>>, Option<Vec<u8>>);

    /// A compressed wrapper entry holding `inner` (offset, timestamp, key, value) messages, with
    /// inner offsets written as Kafka's writer does (relative for v1, absolute for v0) and the
    /// wrapper offset set to the last inner absolute offset.
    pub(crate) fn wrapper(
        magic: i8,
        codec: Compression,
        log_append_time: bool,
        wrapper_timestamp: i64,
        inner: &[Inner],
    ) -> Vec<u8> {
        let first = inner.first().map_or(0, |i| i.0);
        let mut stream = Vec::new();
        for (off, ts, k, v) in inner {
            let written = if magic == MAGIC_V1 { off - first } else { *off };
            stream.extend(entry(written, magic, 0, *ts, k.as_deref(), v.as_deref()));
        }
        let compressed = compress(codec, &stream, magic);
        let attrs = codec.id() as i8
            | if log_append_time {
                LEGACY_TIMESTAMP_TYPE_MASK
            } else {
                0
            };
        let last = inner.last().map_or(0, |i| i.0);
        entry(
            last,
            magic,
            attrs,
            wrapper_timestamp,
            None,
            Some(&compressed),
        )
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::encode::*;
    use super::*;

    #[test]
    fn parses_v0_and_v1_messages() {
        let e = entry(5, 0, 0, 0, Some(b"k"), None);
        let m = parse_legacy_message(&e[12..]).unwrap();
        assert_eq!(m.header.magic, 0);
        assert_eq!(m.header.timestamp_type(), TimestampType::NoTimestamp);
        assert_eq!(m.header.timestamp_or_none(), -1);
        assert_eq!((m.key, m.value), (Some(&b"k"[..]), None));
        assert_eq!(compute_legacy_crc(&e[12..]), Some(m.header.crc));

        let e = entry(5, 1, 0x08, 1234, None, Some(b"value"));
        let m = parse_legacy_message(&e[12..]).unwrap();
        assert_eq!(m.header.timestamp, Some(1234));
        assert_eq!(m.header.timestamp_type(), TimestampType::LogAppendTime);
        assert_eq!(m.value, Some(&b"value"[..]));
        assert_eq!(&e[12 + m.value_position..], b"value");
    }

    #[test]
    fn truncation_trailing_bytes_and_bad_magic() {
        let e = entry(5, 1, 0, 7, Some(b"key"), Some(b"value"));
        let record = &e[12..];
        for n in 0..record.len() {
            assert!(parse_legacy_message(&record[..n]).is_err(), "{n}");
        }
        let mut longer = record.to_vec();
        longer.push(0);
        assert_eq!(
            parse_legacy_message(&longer).unwrap_err().kind,
            ErrorKind::TrailingBytes(1)
        );
        let mut bad = record.to_vec();
        bad[4] = 2;
        assert_eq!(
            parse_legacy_message(&bad).unwrap_err(),
            FormatError::new(ErrorKind::BadMagic(2), 4)
        );
    }

    type Seen = (i64, i64, Option<Vec<u8>>);

    fn collect(file: &[u8], offset: i64) -> FormatResult<Vec<Seen>> {
        let mut out = Vec::new();
        visit_legacy_records(file, 0, file.len() as u64, offset, 1 << 20, &mut |r| {
            out.push((r.offset, r.timestamp, r.value.map(<[u8]>::to_vec)));
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn compressed_wrappers_resolve_offsets_and_timestamps() {
        let inner: Vec<_> = (0..3i64)
            .map(|i| (100 + i, 10 + i, None, Some(vec![i as u8; 3])))
            .collect();
        for codec in [Compression::Gzip, Compression::Snappy, Compression::Lz4] {
            for magic in [0i8, 1] {
                for lat in [false, true] {
                    let w = wrapper(magic, codec, lat, 999, &inner);
                    let got = collect(&w, 102).unwrap();
                    let offsets: Vec<i64> = got.iter().map(|g| g.0).collect();
                    assert_eq!(offsets, [100, 101, 102], "{codec} v{magic}");
                    let ts: Vec<i64> = got.iter().map(|g| g.1).collect();
                    let want = match (magic, lat) {
                        (0, _) => vec![-1, -1, -1],
                        (_, true) => vec![999, 999, 999],
                        _ => vec![10, 11, 12],
                    };
                    assert_eq!(ts, want);
                    assert_eq!(got[2].2, Some(vec![2u8; 3]));
                }
            }
        }
    }

    #[test]
    fn zstd_wrapper_and_empty_wrapper_are_invalid() {
        let inner = vec![(0i64, 0i64, None, Some(vec![1u8]))];
        let mut w = wrapper(1, Compression::Gzip, false, 0, &inner);
        // Rewrite the attributes to zstd and fix the CRC: still invalid for v1.
        w[17] = 4;
        let crc = crc32fast::hash(&w[16..]);
        w[12..16].copy_from_slice(&crc.to_be_bytes());
        assert!(matches!(
            collect(&w, 0).unwrap_err().kind,
            ErrorKind::InvalidField { .. }
        ));
        let empty = wrapper(1, Compression::Gzip, false, 0, &[]);
        assert!(matches!(
            collect(&empty, 0).unwrap_err().kind,
            ErrorKind::InvalidField { .. }
        ));
    }
}
