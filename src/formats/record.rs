//! Records inside a batch: the deep read (decompress, parse every record, check the framing).
//!
//! Kafka sources: `clients/src/main/java/org/apache/kafka/common/record/DefaultRecord.java`
//! (`readFrom`: record layout and its size check) and `DefaultRecordBatch.java`
//! (`RecordIterator`: the record count, "Incorrect declared batch size" on a premature end or on
//! bytes left over, the timestamp of LOG_APPEND_TIME batches); spec §3.3. Legacy (magic 0/1)
//! entries are delegated to [`super::legacy`].
//!
//! ```text
//! record: length varint | attributes i8 | timestampDelta varlong | offsetDelta varint
//!         | keyLength varint (-1 null) | key | valueLength varint (-1 null) | value
//!         | headersCount varint | (headerKeyLength varint >= 0, key utf8,
//!                                  headerValueLength varint (-1 null), value)*
//! ```
//!
//! Beyond Kafka's own checks, records must have offsets inside `[base_offset, last_offset]`
//! that strictly increase, and a batch with `recordsCount` 0 must have an empty records section
//! (Kafka does not look at it).
//!
//! Error positions: in an uncompressed batch, the absolute file byte of the offending field. In
//! a compressed batch the records only exist after decompression, so every record-level error
//! points at the first byte of the compressed records section (batch byte 61).

use super::batch::{
    parse_batch_header, BatchHeader, BatchInfo, Compression, TimestampType,
    LAST_OFFSET_DELTA_OFFSET, MAGIC_V2, RECORDS_COUNT_OFFSET, RECORD_BATCH_OVERHEAD,
};
use super::bytes::Cursor;
use super::compression::decompress;
use super::control::parse_control_record;
use super::error::{ErrorKind, FormatError, FormatResult};
use super::legacy::visit_legacy_records;

// The record types, also reachable from here as before they moved to `batch`.
pub use super::batch::{Record, RecordRef};

/// Decode every record of the batch (v2) or legacy entry (v0/v1) that `info` describes.
///
/// Decompresses at most `max_decompressed` bytes (else [`ErrorKind::Compression`]), parses every
/// record, checks that offsets lie in `[info.base_offset, info.last_offset]` and strictly
/// increase, that exactly `records_count` records are present ([`ErrorKind::Truncated`] when
/// fewer, [`ErrorKind::TrailingBytes`] when bytes remain), and decodes control records. The CRC
/// is **not** checked (see [`super::verify::verify_crc`]). Allocates the records; use
/// [`for_each_record`] to stream them instead.
pub fn decode_records(
    file: &[u8],
    info: &BatchInfo,
    max_decompressed: usize,
) -> FormatResult<Vec<Record>> {
    let mut out = Vec::new();
    for_each_record(file, info, max_decompressed, |r| {
        out.push(r.to_owned_record());
        Ok(())
    })?;
    Ok(out)
}

/// Like [`decode_records`], but hands each record to `f` without copying it; an error from `f`
/// stops the iteration and is returned.
pub fn for_each_record<F>(
    file: &[u8],
    info: &BatchInfo,
    max_decompressed: usize,
    mut f: F,
) -> FormatResult<()>
where
    F: FnMut(RecordRef<'_>) -> FormatResult<()>,
{
    if info.magic < MAGIC_V2 {
        return visit_legacy_records(
            file,
            info.position,
            info.size,
            info.last_offset,
            max_decompressed,
            &mut f,
        );
    }
    let batch = info.bytes(file)?;
    let header = parse_batch_header(batch).map_err(|e| e.at_base(info.position))?;
    visit_v2_records(batch, &header, info.position, max_decompressed, &mut f)
}

/// Iterate the records of a v2 batch slice (`batch` is the whole batch, `position` its place in
/// the file).
fn visit_v2_records(
    batch: &[u8],
    header: &BatchHeader,
    position: u64,
    max_decompressed: usize,
    f: &mut dyn FnMut(RecordRef<'_>) -> FormatResult<()>,
) -> FormatResult<()> {
    let records_start = position.saturating_add(RECORD_BATCH_OVERHEAD as u64);
    let count = u32::try_from(header.records_count).map_err(|_| {
        FormatError::new(
            ErrorKind::LengthOutOfRange {
                field: "records_count",
                value: i64::from(header.records_count),
                min: 0,
                max: i64::from(i32::MAX),
            },
            position.saturating_add(RECORDS_COUNT_OFFSET as u64),
        )
    })?;
    let section = batch.get(RECORD_BATCH_OVERHEAD..).unwrap_or(&[]);
    if count == 0 && section.is_empty() {
        // An emptied batch kept by compaction: nothing to decompress, whatever the codec.
        return Ok(());
    }
    let last_offset = header.checked_last_offset().ok_or_else(|| {
        FormatError::new(
            ErrorKind::InvalidField {
                field: "last_offset_delta",
                reason: format!(
                    "base offset {} + last offset delta {} overflows",
                    header.base_offset, header.last_offset_delta
                ),
            },
            position.saturating_add(LAST_OFFSET_DELTA_OFFSET as u64),
        )
    })?;

    let codec = header.compression();
    let compressed = codec != Compression::None;
    let decompressed;
    let data: &[u8] = if compressed {
        decompressed = decompress(codec, section, header.magic, max_decompressed)
            .map_err(|e| e.at_base(records_start))?;
        &decompressed
    } else {
        section
    };
    let section = Section {
        header,
        count,
        last_offset,
        records_start,
        compressed,
    };
    section.visit(data, f)
}

/// The (decompressed) records section of a v2 batch, and what its records are checked against.
struct Section<'h> {
    header: &'h BatchHeader,
    /// `recordsCount`, known not to be negative.
    count: u32,
    /// The batch's last offset, known not to overflow.
    last_offset: i64,
    /// File position of the records section.
    records_start: u64,
    compressed: bool,
}

impl Section<'_> {
    /// Where an error at `e.offset` inside the section lies in the file. Uncompressed: relative
    /// offsets map onto the file. Compressed: all point at the section.
    fn locate(&self, e: FormatError) -> FormatError {
        if self.compressed {
            FormatError {
                offset: self.records_start,
                ..e
            }
        } else {
            e.at_base(self.records_start)
        }
    }

    /// Read exactly `count` records from `data`, check their offsets, and hand each to `f`.
    fn visit(
        &self,
        data: &[u8],
        f: &mut dyn FnMut(RecordRef<'_>) -> FormatResult<()>,
    ) -> FormatResult<()> {
        let header = self.header;
        let log_append_time = header.timestamp_type() == TimestampType::LogAppendTime;
        let mut c = Cursor::new(data);
        let mut prev: Option<i64> = None;
        for _ in 0..self.count {
            let record_at = c.position();
            let r = read_record(&mut c, header, log_append_time).map_err(|e| self.locate(e))?;
            self.check_offset(r.offset, prev)
                .map_err(|kind| self.locate(FormatError::new(kind, record_at as u64)))?;
            prev = Some(r.offset);
            f(r)?;
        }
        if !c.is_empty() {
            // Kafka: "Incorrect declared batch size, records still remaining in file".
            return Err(self.locate(c.error(ErrorKind::TrailingBytes(c.remaining() as u64))));
        }
        Ok(())
    }

    /// A record's offset must lie in `[base_offset, last_offset]` and follow `prev`.
    fn check_offset(&self, offset: i64, prev: Option<i64>) -> Result<(), ErrorKind> {
        let header = self.header;
        if offset < header.base_offset || offset > self.last_offset {
            return Err(ErrorKind::LengthOutOfRange {
                field: "offset_delta",
                value: offset.wrapping_sub(header.base_offset),
                min: 0,
                max: i64::from(header.last_offset_delta),
            });
        }
        if let Some(p) = prev {
            if offset <= p {
                return Err(ErrorKind::NonMonotonicOffset {
                    prev: p,
                    next: offset,
                });
            }
        }
        Ok(())
    }
}

/// Read one v2 record at the cursor (`DefaultRecord.readFrom`). Offsets in errors are relative
/// to the cursor's slice.
fn read_record<'a>(
    c: &mut Cursor<'a>,
    header: &BatchHeader,
    log_append_time: bool,
) -> FormatResult<RecordRef<'a>> {
    let start = c.position();
    let body_len = c.varint()?;
    let body_len = usize::try_from(body_len).map_err(|_| {
        FormatError::new(
            ErrorKind::LengthOutOfRange {
                field: "record_length",
                value: i64::from(body_len),
                min: 0,
                max: i64::from(i32::MAX),
            },
            start as u64,
        )
    })?;
    let body_at = c.position() as u64;
    let body = c.take(body_len).map_err(|e| FormatError {
        offset: start as u64,
        ..e
    })?;
    let mut b = Cursor::new(body);
    let rebase = |e: FormatError| e.at_base(body_at);

    let _attributes = b.i8().map_err(rebase)?;
    let timestamp_delta = b.varlong().map_err(rebase)?;
    let offset_delta = b.varint().map_err(rebase)?;
    let key = b.varint_bytes().map_err(rebase)?;
    let value = b.varint_bytes().map_err(rebase)?;
    let headers = read_headers(&mut b).map_err(rebase)?;
    if !b.is_empty() {
        // Kafka: "Invalid record size: expected to read N bytes in record payload".
        return Err(rebase(
            b.error(ErrorKind::TrailingBytes(b.remaining() as u64)),
        ));
    }

    // Java long arithmetic wraps; so do we, and range checks catch nonsense offsets.
    let offset = header.base_offset.wrapping_add(i64::from(offset_delta));
    let timestamp = if log_append_time {
        header.max_timestamp
    } else {
        header.base_timestamp.wrapping_add(timestamp_delta)
    };
    let control = if header.is_control() {
        Some(parse_control_record(key, value).map_err(|e| FormatError {
            offset: start as u64,
            ..e
        })?)
    } else {
        None
    };
    Ok(RecordRef {
        offset,
        timestamp,
        key,
        value,
        headers,
        control,
    })
}

/// A record header: its key and its value (`None` when null).
type Header<'a> = (&'a [u8], Option<&'a [u8]>);

/// The headers of a record body, from its header count on. Offsets in errors are relative to
/// the body.
fn read_headers<'a>(b: &mut Cursor<'a>) -> FormatResult<Vec<Header<'a>>> {
    let headers_at = b.position();
    let header_count = b.varint()?;
    // Kafka: the count must be >= 0 and not exceed the bytes left (each header needs >= 2).
    let header_count = usize::try_from(header_count)
        .ok()
        .filter(|&n| n <= b.remaining())
        .ok_or_else(|| {
            FormatError::new(
                ErrorKind::LengthOutOfRange {
                    field: "headers_count",
                    value: i64::from(header_count),
                    min: 0,
                    max: b.remaining() as i64,
                },
                headers_at as u64,
            )
        })?;
    let mut headers = Vec::new();
    for _ in 0..header_count {
        let key_at = b.position();
        let hk = b.varint_bytes()?.ok_or_else(|| {
            FormatError::new(
                ErrorKind::InvalidField {
                    field: "header_key_length",
                    reason: "negative header key size".into(),
                },
                key_at as u64,
            )
        })?;
        let hv = b.varint_bytes()?;
        headers.push((hk, hv));
    }
    Ok(headers)
}

/// Test-only encoder for v2 batches.
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod encode {
    use super::*;
    use crate::formats::batch::{
        Compression, CONTROL_FLAG_MASK, DELETE_HORIZON_FLAG_MASK, TIMESTAMP_TYPE_MASK,
        TRANSACTIONAL_FLAG_MASK,
    };
    use crate::formats::bytes::{encode_varint, encode_varlong};
    use crate::formats::compression::encode::compress;

    /// What goes into a test batch besides its records.
    #[derive(Debug, Clone)]
    pub(crate) struct BatchSpec {
        pub base_offset: i64,
        /// `None`: last record's offset minus the base.
        pub last_offset_delta: Option<i32>,
        pub partition_leader_epoch: i32,
        pub compression: Compression,
        pub log_append_time: Option<i64>,
        pub transactional: bool,
        pub control: bool,
        /// Base timestamp to write instead of the first record's (delete horizon).
        pub delete_horizon: Option<i64>,
        pub producer_id: i64,
        pub producer_epoch: i16,
        pub base_sequence: i32,
    }

    impl Default for BatchSpec {
        fn default() -> Self {
            BatchSpec {
                base_offset: 0,
                last_offset_delta: None,
                partition_leader_epoch: 0,
                compression: Compression::None,
                log_append_time: None,
                transactional: false,
                control: false,
                delete_horizon: None,
                producer_id: -1,
                producer_epoch: -1,
                base_sequence: -1,
            }
        }
    }

    /// The records section of a batch, uncompressed.
    pub(crate) fn encode_records(base_offset: i64, base_ts: i64, records: &[Record]) -> Vec<u8> {
        let mut out = Vec::new();
        for r in records {
            let mut body = vec![0u8];
            encode_varlong(r.timestamp - base_ts, &mut body);
            encode_varint((r.offset - base_offset) as i32, &mut body);
            for part in [&r.key, &r.value] {
                match part {
                    Some(b) => {
                        encode_varint(b.len() as i32, &mut body);
                        body.extend_from_slice(b);
                    }
                    None => encode_varint(-1, &mut body),
                }
            }
            encode_varint(r.headers.len() as i32, &mut body);
            for (k, v) in &r.headers {
                encode_varint(k.len() as i32, &mut body);
                body.extend_from_slice(k.as_bytes());
                match v {
                    Some(b) => {
                        encode_varint(b.len() as i32, &mut body);
                        body.extend_from_slice(b);
                    }
                    None => encode_varint(-1, &mut body),
                }
            }
            encode_varint(body.len() as i32, &mut out);
            out.extend(body);
        }
        out
    }

    /// A whole v2 batch with a correct CRC-32C. Record timestamps are taken as create times
    /// (unless `log_append_time`), and the base timestamp is the first record's.
    pub(crate) fn encode_batch(spec: &BatchSpec, records: &[Record]) -> Vec<u8> {
        let first_ts = records.first().map_or(-1, |r| r.timestamp);
        let base_ts = spec.delete_horizon.unwrap_or(first_ts);
        let max_ts = match spec.log_append_time {
            Some(t) => t,
            None => records.iter().map(|r| r.timestamp).max().unwrap_or(-1),
        };
        let section = encode_records(spec.base_offset, base_ts, records);
        let section = if records.is_empty() {
            section
        } else {
            compress(spec.compression, &section, 2)
        };
        let mut attributes = i16::from(spec.compression.id());
        if spec.log_append_time.is_some() {
            attributes |= TIMESTAMP_TYPE_MASK;
        }
        if spec.transactional {
            attributes |= TRANSACTIONAL_FLAG_MASK;
        }
        if spec.control {
            attributes |= CONTROL_FLAG_MASK;
        }
        if spec.delete_horizon.is_some() {
            attributes |= DELETE_HORIZON_FLAG_MASK;
        }
        let last_delta = spec.last_offset_delta.unwrap_or_else(|| {
            records
                .last()
                .map_or(0, |r| (r.offset - spec.base_offset) as i32)
        });
        let mut tail = Vec::new(); // from attributes on: the CRC-covered part
        tail.extend_from_slice(&attributes.to_be_bytes());
        tail.extend_from_slice(&last_delta.to_be_bytes());
        tail.extend_from_slice(&base_ts.to_be_bytes());
        tail.extend_from_slice(&max_ts.to_be_bytes());
        tail.extend_from_slice(&spec.producer_id.to_be_bytes());
        tail.extend_from_slice(&spec.producer_epoch.to_be_bytes());
        tail.extend_from_slice(&spec.base_sequence.to_be_bytes());
        tail.extend_from_slice(&(records.len() as i32).to_be_bytes());
        tail.extend(section);
        let mut out = spec.base_offset.to_be_bytes().to_vec();
        out.extend_from_slice(&((tail.len() + 9) as i32).to_be_bytes());
        out.extend_from_slice(&spec.partition_leader_epoch.to_be_bytes());
        out.push(2);
        out.extend_from_slice(&crc32c::crc32c(&tail).to_be_bytes());
        out.extend(tail);
        out
    }

    /// Recompute the CRC-32C of the v2 batch at the start of `batch` after an edit.
    pub(crate) fn fix_crc(batch: &mut [u8]) {
        let crc = crc32c::crc32c(&batch[21..]);
        batch[17..21].copy_from_slice(&crc.to_be_bytes());
    }

    /// A plain record with a create-time timestamp.
    pub(crate) fn rec(
        offset: i64,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
    ) -> Record {
        Record {
            offset,
            timestamp,
            key: key.map(<[u8]>::to_vec),
            value: value.map(<[u8]>::to_vec),
            headers: Vec::new(),
            control: None,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::encode::*;
    use super::*;
    use crate::formats::batch::Compression;
    use crate::formats::compression::DEFAULT_MAX_DECOMPRESSED;
    use crate::formats::control::{encode as ctl, ControlKind, ControlRecord};
    use crate::formats::walk::ShallowWalker;
    use proptest::prelude::*;

    const CODECS: [Compression; 5] = [
        Compression::None,
        Compression::Gzip,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
    ];

    fn only_batch(file: &[u8]) -> BatchInfo {
        let mut w = ShallowWalker::new(file);
        let info = w.next().unwrap().unwrap();
        assert!(w.next().is_none());
        info
    }

    fn decode(file: &[u8]) -> FormatResult<Vec<Record>> {
        decode_records(file, &only_batch(file), DEFAULT_MAX_DECOMPRESSED)
    }

    fn sample_records(base: i64) -> Vec<Record> {
        let mut r = vec![
            rec(base, 1_700_000_000_000, Some(b"k1"), Some(b"v1")),
            rec(
                base + 1,
                1_700_000_000_005,
                None,
                Some(b"value without key"),
            ),
            rec(base + 3, 1_699_999_999_999, Some(b"tombstone"), None),
        ];
        r[1].headers = vec![
            ("h\u{e9}".into(), Some(b"x".to_vec())),
            ("null".into(), None),
        ];
        r
    }

    #[test]
    fn every_codec_round_trips_records() {
        for codec in CODECS {
            let spec = BatchSpec {
                base_offset: 1000,
                compression: codec,
                ..Default::default()
            };
            let records = sample_records(1000);
            let file = encode_batch(&spec, &records);
            assert_eq!(decode(&file).unwrap(), records, "{codec}");
        }
    }

    #[test]
    fn log_append_time_uses_max_timestamp() {
        let spec = BatchSpec {
            log_append_time: Some(42),
            ..Default::default()
        };
        let got = decode(&encode_batch(&spec, &sample_records(0))).unwrap();
        assert!(got.iter().all(|r| r.timestamp == 42));
    }

    #[test]
    fn delete_horizon_base_with_negative_deltas() {
        let spec = BatchSpec {
            delete_horizon: Some(1_800_000_000_000),
            ..Default::default()
        };
        let records = sample_records(0);
        assert_eq!(decode(&encode_batch(&spec, &records)).unwrap(), records);
    }

    #[test]
    fn transaction_markers_decode() {
        for kind in [ControlKind::Commit, ControlKind::Abort] {
            let spec = BatchSpec {
                base_offset: 77,
                transactional: true,
                control: true,
                producer_id: 9,
                producer_epoch: 1,
                ..Default::default()
            };
            let mut r = rec(77, 5, Some(&ctl::key(kind)), Some(&ctl::marker_value(3)));
            let file = encode_batch(&spec, std::slice::from_ref(&r));
            assert_eq!(file.len(), 78, "a marker batch is 78 bytes (spec §3.5)");
            r.control = Some(ControlRecord {
                kind,
                version: 0,
                coordinator_epoch: Some(3),
            });
            assert_eq!(decode(&file).unwrap(), vec![r]);
        }
    }

    #[test]
    fn bad_control_key_is_an_error() {
        let spec = BatchSpec {
            control: true,
            ..Default::default()
        };
        let file = encode_batch(&spec, &[rec(0, 5, Some(b"\x00"), None)]);
        assert!(decode(&file).is_err());
    }

    #[test]
    fn empty_batch_decodes_to_nothing() {
        let spec = BatchSpec {
            base_offset: 5,
            last_offset_delta: Some(9),
            ..Default::default()
        };
        let file = encode_batch(&spec, &[]);
        assert_eq!(file.len(), 61);
        assert_eq!(decode(&file).unwrap(), vec![]);
    }

    /// Rewrite the records count of the batch at the start of `file` and fix the CRC.
    fn set_count(file: &mut [u8], n: i32) {
        file[57..61].copy_from_slice(&n.to_be_bytes());
        fix_crc(file);
    }

    #[test]
    fn count_mismatches_are_errors_at_the_right_place() {
        for codec in CODECS {
            let spec = BatchSpec {
                compression: codec,
                ..Default::default()
            };
            let file = encode_batch(&spec, &sample_records(0));
            let mut fewer = file.clone();
            set_count(&mut fewer, 2);
            let e = decode(&fewer).unwrap_err();
            assert!(
                matches!(e.kind, ErrorKind::TrailingBytes(_)),
                "{codec}: {e}"
            );
            let mut more = file.clone();
            set_count(&mut more, 4);
            let e = decode(&more).unwrap_err();
            assert!(
                matches!(e.kind, ErrorKind::Truncated { .. }),
                "{codec}: {e}"
            );
            let mut negative = file.clone();
            set_count(&mut negative, -1);
            let e = decode(&negative).unwrap_err();
            assert_eq!(e.offset, 57);
            if codec == Compression::None {
                assert_eq!(decode(&more).unwrap_err().offset, file.len() as u64);
            } else {
                assert_eq!(decode(&more).unwrap_err().offset, 61);
            }
        }
    }

    #[test]
    fn offsets_outside_the_batch_or_repeated_are_errors() {
        let spec = BatchSpec {
            last_offset_delta: Some(1),
            ..Default::default()
        };
        let e = decode(&encode_batch(&spec, &sample_records(0))).unwrap_err();
        assert!(
            matches!(
                e.kind,
                ErrorKind::LengthOutOfRange {
                    field: "offset_delta",
                    ..
                }
            ),
            "{e}"
        );
        let spec = BatchSpec::default();
        let e = decode(&encode_batch(
            &spec,
            &[rec(0, 0, None, None), rec(0, 0, None, None)],
        ))
        .unwrap_err();
        assert_eq!(e.kind, ErrorKind::NonMonotonicOffset { prev: 0, next: 0 });
    }

    #[test]
    fn record_length_mismatch_is_an_error() {
        let mut file = encode_batch(&BatchSpec::default(), &[rec(0, 0, Some(b"abc"), None)]);
        // The record body starts at 62 (one-byte length varint at 61). Grow the declared length
        // by one: the record now swallows a byte that is not there.
        file[61] += 2;
        fix_crc(&mut file);
        assert!(decode(&file).is_err());
        // Shrink it: bytes of the record are left unread.
        file[61] -= 4;
        fix_crc(&mut file);
        assert!(decode(&file).is_err());
    }

    #[test]
    fn decompression_cap_applies() {
        let spec = BatchSpec {
            compression: Compression::Zstd,
            ..Default::default()
        };
        let big = vec![0u8; 1 << 20];
        let file = encode_batch(&spec, &[rec(0, 0, None, Some(&big))]);
        let info = only_batch(&file);
        let e = decode_records(&file, &info, 1 << 16).unwrap_err();
        assert_eq!(
            e.kind,
            ErrorKind::Compression("decompressed size exceeds limit".into())
        );
        assert_eq!(e.offset, 61);
        assert_eq!(decode_records(&file, &info, 2 << 20).unwrap().len(), 1);
    }

    #[test]
    fn every_truncated_record_section_errors_without_panicking() {
        for codec in CODECS {
            let spec = BatchSpec {
                compression: codec,
                ..Default::default()
            };
            let file = encode_batch(&spec, &sample_records(0));
            let info = only_batch(&file);
            for n in 61..file.len() {
                // Pretend the batch is shorter: the header still says 3 records.
                let mut short = file[..n].to_vec();
                short[8..12].copy_from_slice(&((n - 12) as i32).to_be_bytes());
                let info = BatchInfo {
                    size: n as u64,
                    ..info.clone()
                };
                assert!(
                    decode_records(&short, &info, 1 << 20).is_err(),
                    "{codec} {n}"
                );
            }
        }
    }

    /// Offset step, timestamp delta, key, value, headers.
    type Item = (
        i64,
        i64,
        Option<Vec<u8>>,
        Option<Vec<u8>>,
        Vec<(String, Option<Vec<u8>>)>,
    );

    fn arb_record() -> impl Strategy<Value = Item> {
        (
            1..5i64,
            -1_000_000i64..1_000_000,
            proptest::option::of(proptest::collection::vec(any::<u8>(), 0..40)),
            proptest::option::of(proptest::collection::vec(any::<u8>(), 0..200)),
            proptest::collection::vec(
                (
                    "[a-z\u{e9}]{0,8}",
                    proptest::option::of(proptest::collection::vec(any::<u8>(), 0..8)),
                ),
                0..3,
            ),
        )
    }

    proptest! {
        #[test]
        fn batches_round_trip(
            base in 0i64..(1 << 40),
            codec in 0u8..5,
            txn in any::<bool>(),
            base_ts in 0i64..(1 << 41),
            items in proptest::collection::vec(arb_record(), 0..20),
        ) {
            let mut offset = base;
            let mut records = Vec::new();
            for (step, dt, key, value, headers) in items {
                records.push(Record { offset, timestamp: base_ts + dt, key, value, headers, control: None });
                offset += step;
            }
            let spec = BatchSpec {
                base_offset: base,
                compression: Compression::from_id(codec),
                transactional: txn,
                producer_id: if txn { 1 } else { -1 },
                ..Default::default()
            };
            let file = encode_batch(&spec, &records);
            let info = only_batch(&file);
            prop_assert_eq!(info.records_count, Some(records.len() as i32));
            prop_assert_eq!(decode_records(&file, &info, 1 << 24).unwrap(), records);
        }

        #[test]
        fn arbitrary_record_sections_never_panic(
            codec in 0u8..6,
            count in -2i32..8,
            control in any::<bool>(),
            section in proptest::collection::vec(any::<u8>(), 0..300),
        ) {
            let spec = BatchSpec { compression: Compression::from_id(codec), control, ..Default::default() };
            let mut file = encode_batch(&spec, &[]);
            file.extend_from_slice(&section);
            let len = (file.len() - 12) as i32;
            file[8..12].copy_from_slice(&len.to_be_bytes());
            file[57..61].copy_from_slice(&count.to_be_bytes());
            fix_crc(&mut file);
            let info = only_batch(&file);
            let _ = decode_records(&file, &info, 1 << 16);
        }
    }
}
