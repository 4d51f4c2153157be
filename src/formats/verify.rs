//! Verifying a `.log` segment: Kafka's per-batch `ensureValid`, the stricter checks of spec
//! §3.9, and the cross-batch checks of recovery.
//!
//! Kafka sources: `clients/src/main/java/org/apache/kafka/common/record/DefaultRecordBatch.java`
//! and `LegacyRecord.java` (`ensureValid`: size and CRC), and `storage/.../log/LogSegment.java`
//! (`recover`); spec §3.8–§3.9.
//!
//! [`verify_crc`] is Kafka's `ensureValid`; [`verify_batch`] adds the header sanity checks and
//! the deep record decode of [`super::record`]; [`verify_segment`] runs both over the batches
//! a [`ShallowWalker`] finds, adds the cross-batch checks (offsets increasing, offsets fitting
//! the segment) and reports the first error with the position Kafka's recovery would truncate
//! to.
//!
//! Error offsets are absolute file positions of the offending field (for example the CRC field
//! for a CRC mismatch); [`SegmentVerification::valid_end`] gives the batch boundary.

use super::batch::{
    compute_batch_crc, parse_batch_header, BatchInfo, TimestampType, CRC_OFFSET,
    LAST_OFFSET_DELTA_OFFSET, LOG_OVERHEAD, MAGIC_V2, MAX_TIMESTAMP_OFFSET, MIN_BATCH_LENGTH,
    RECORDS_COUNT_OFFSET, RECORD_BATCH_OVERHEAD,
};
use super::bytes::Cursor;
use super::compression::DEFAULT_MAX_DECOMPRESSED;
use super::error::{ErrorKind, FormatError, FormatResult};
use super::legacy::compute_legacy_crc;
use super::record::for_each_record;
use super::walk::{ShallowWalker, WalkEnd};

/// Check the stored checksum of a batch, as Kafka's `ensureValid` does.
///
/// v2: CRC-32C of batch bytes 21 to the end against the u32 at byte 17 (a v2 batch shorter
/// than 61 bytes is rejected as Kafka does). v0/v1: CRC-32 of bytes 16 (the magic) to the end
/// against the u32 at byte 12. A mismatch is [`ErrorKind::CrcMismatch`] at the CRC field.
pub fn verify_crc(file: &[u8], info: &BatchInfo) -> FormatResult<()> {
    let batch = info.bytes(file)?;
    let (crc_at, computed) = if info.magic >= MAGIC_V2 {
        if batch.len() < RECORD_BATCH_OVERHEAD {
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
    /// The first error, with the absolute byte position of the offending field; the batch
    /// holding it starts at `valid_end` (batches are contiguous).
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
    let mut verify = StreamingVerify::new(opts.clone(), file.len() as u64);
    let mut window: Vec<BatchInfo> = Vec::new();
    loop {
        window.clear();
        let mut bytes = 0u64;
        let mut walk_error = None;
        let mut walk_done = false;
        while window.len() < WINDOW_BATCHES && bytes < WINDOW_BYTES {
            match walker.next() {
                Some(Ok(info)) => {
                    bytes = bytes.saturating_add(info.size);
                    window.push(info);
                }
                Some(Err(e)) => {
                    walk_error = Some(e);
                    break;
                }
                None => {
                    walk_done = true;
                    break;
                }
            }
        }
        if !verify.feed(file, 0, &window) || walk_error.is_some() {
            return verify.finish(walk_error, None);
        }
        if walk_done {
            break;
        }
    }
    verify.finish(None, walker.end().cloned())
}

/// [`verify_segment`] fed a window of batches at a time with the bytes that hold them (a chunk
/// of the file read at some position), so that a segment is verified without holding it whole:
/// fed every batch of a walk in file order, it reaches [`verify_segment`]'s outcome.
#[derive(Debug)]
pub struct StreamingVerify {
    opts: VerifyOptions,
    /// Batches are checked on all of rayon's threads (the file is big enough for it to pay).
    parallel: bool,
    out: SegmentVerification,
}

impl StreamingVerify {
    /// A verification of a segment file of `file_len` bytes, nothing checked yet.
    pub fn new(opts: VerifyOptions, file_len: u64) -> Self {
        StreamingVerify {
            opts,
            parallel: file_len >= PARALLEL_MIN_BYTES as u64 && rayon::current_num_threads() > 1,
            out: SegmentVerification {
                valid_batches: 0,
                valid_end: 0,
                last_valid_offset: None,
                end: None,
                error: None,
            },
        }
    }

    /// Check `batches`, the next ones in file order, whose positions are in `chunk`, the bytes
    /// read at file position `at`. `false` once a batch has failed (what is fed after that is
    /// not checked: the first failure is the answer).
    pub fn feed(&mut self, chunk: &[u8], at: u64, batches: &[BatchInfo]) -> bool {
        if self.out.error.is_some() {
            return false;
        }
        let failure = first_failure(
            chunk,
            batches,
            &self.opts,
            self.out.last_valid_offset,
            self.parallel,
        );
        let passed = failure.as_ref().map_or(batches.len(), |(i, _)| *i);
        if let Some(last) = passed.checked_sub(1).and_then(|i| batches.get(i)) {
            self.out.valid_batches += passed as u64;
            self.out.valid_end = last.end().saturating_add(at);
            self.out.last_valid_offset = Some(last.last_offset);
        }
        self.out.error = failure.map(|(_, e)| e.at_base(at));
        self.out.error.is_none()
    }

    /// The outcome once the walk is over: its header error (file positions), when every
    /// batch before it passed, is the error; `end` is how a walk without error ended.
    pub fn finish(
        mut self,
        walk_error: Option<FormatError>,
        end: Option<WalkEnd>,
    ) -> SegmentVerification {
        if self.out.error.is_none() {
            match walk_error {
                Some(e) => self.out.error = Some(e),
                None => self.out.end = end,
            }
        }
        self.out
    }
}

/// Segments at least this large are verified on all of rayon's threads.
const PARALLEL_MIN_BYTES: usize = 4 << 20;
/// At most this many batches, or about this many bytes, are held and checked at a time.
const WINDOW_BATCHES: usize = 4096;
const WINDOW_BYTES: u64 = 32 << 20;

/// The first batch of `window` (index and error) failing [`verify_one`]; `prev_last` is the
/// last offset of the batch before the window.
fn first_failure(
    file: &[u8],
    window: &[BatchInfo],
    opts: &VerifyOptions,
    prev_last: Option<i64>,
    parallel: bool,
) -> Option<(usize, FormatError)> {
    let check = |i: usize, info: &BatchInfo| {
        let prev = match i.checked_sub(1) {
            Some(j) => window.get(j).map(|p| p.last_offset),
            None => prev_last,
        };
        verify_one(file, info, opts, prev).err().map(|e| (i, e))
    };
    if parallel {
        use rayon::prelude::*;
        window
            .par_iter()
            .enumerate()
            .filter_map(|(i, info)| check(i, info))
            .find_first(|_| true)
    } else {
        window
            .iter()
            .enumerate()
            .find_map(|(i, info)| check(i, info))
    }
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
    use crate::formats::record::decode_records;
    use crate::formats::record::encode::{encode_batch, fix_crc, rec, BatchSpec};
    use crate::formats::walk::tests::{sample_file, walk_all};
    use crate::formats::walk::{ShallowWalker, WalkEnd};

    #[test]
    fn verifies_a_mixed_segment() {
        let (file, starts) = sample_file();
        let (infos, err, _) = walk_all(&file);
        assert_eq!(err, None);
        for info in &infos {
            verify_batch(&file, info).unwrap();
        }
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
    fn truncated_segments_verify_up_to_the_walks_valid_end() {
        let (file, _) = sample_file();
        for n in 0..=file.len() {
            let cut = &file[..n];
            let (_, _, w) = walk_all(cut);
            let v = verify_segment(cut, &VerifyOptions::default());
            assert_eq!(v.error, None, "cut at {n}");
            assert_eq!(v.valid_end, w.valid_end(), "cut at {n}");
            assert_eq!(v.end.as_ref(), w.end(), "cut at {n}");
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
    fn zero_filled_tail_ends_verification_cleanly() {
        let (file, _) = sample_file();
        let len = file.len() as u64;
        for zeros in [1usize, 17, 18, 4096] {
            let mut padded = file.clone();
            padded.resize(file.len() + zeros, 0);
            let v = verify_segment(&padded, &VerifyOptions::default());
            assert_eq!(v.error, None);
            assert_eq!(v.valid_end, len);
            assert_eq!(
                v.end,
                Some(WalkEnd::ZeroFilled {
                    position: len,
                    len: zeros as u64
                })
            );
        }
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

    /// The one-batch-at-a-time loop [`verify_segment`] replaced by windows checked in
    /// parallel: both must agree on every field.
    fn verify_one_by_one(file: &[u8], opts: &VerifyOptions) -> SegmentVerification {
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

    #[test]
    fn big_segments_verify_in_parallel_as_one_by_one() {
        // 5,000 batches of ~1.2 KiB (6 MB, two windows), then damage at several places.
        let value = vec![b'v'; 1200];
        let mut file = Vec::new();
        let mut starts = Vec::new();
        for k in 0..5000i64 {
            starts.push(file.len());
            file.extend(encode_batch(
                &BatchSpec {
                    base_offset: k * 2,
                    ..Default::default()
                },
                &[
                    rec(k * 2, 5, Some(b"k"), Some(&value)),
                    rec(k * 2 + 1, 6, None, None),
                ],
            ));
        }
        assert!(file.len() >= PARALLEL_MIN_BYTES);
        let opts = VerifyOptions::default();
        let clean = verify_segment(&file, &opts);
        assert_eq!(clean, verify_one_by_one(&file, &opts));
        assert_eq!((clean.valid_batches, clean.error), (5000, None));
        for &k in &[0usize, 1, 4095, 4096, 4097, 4999] {
            // A payload byte: CRC mismatch at batch k.
            let mut bad = file.clone();
            bad[starts[k] + 100] ^= 0x20;
            let v = verify_segment(&bad, &opts);
            assert_eq!(
                v,
                verify_one_by_one(&bad, &opts),
                "payload flip in batch {k}"
            );
            assert_eq!(v.valid_batches, k as u64);
            // Two failures: the earlier one is reported.
            bad[starts[4500] + 100] ^= 0x20;
            assert_eq!(
                verify_segment(&bad, &opts).valid_batches,
                k.min(4500) as u64
            );
            // A repeated base offset (the CRC does not cover it): a cross-batch error.
            let mut bad = file.clone();
            let prev = if k == 0 { 0 } else { (k as i64 - 1) * 2 };
            bad[starts[k]..starts[k] + 8].copy_from_slice(&prev.to_be_bytes());
            let v = verify_segment(&bad, &opts);
            assert_eq!(v, verify_one_by_one(&bad, &opts), "offset in batch {k}");
            // A cut inside batch k: the walk's partial batch after k valid batches.
            let cut = &file[..starts[k] + 30];
            let v = verify_segment(cut, &opts);
            assert_eq!(v, verify_one_by_one(cut, &opts), "cut in batch {k}");
            assert_eq!(v.valid_batches, k as u64);
        }
        // The walk's own error (a negative batch length) after a window boundary.
        let mut bad = file.clone();
        bad[starts[4200] + 8..starts[4200] + 12].copy_from_slice(&(-5i32).to_be_bytes());
        let v = verify_segment(&bad, &opts);
        assert_eq!(v, verify_one_by_one(&bad, &opts));
        assert!(v.error.is_some());
        assert_eq!(v.valid_batches, 4200);
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_files_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..600)) {
            let (infos, _, _) = walk_all(&bytes);
            for info in &infos {
                let _ = verify_batch(&bytes, info);
            }
            let v = verify_segment(&bytes, &VerifyOptions::default());
            proptest::prop_assert!(v.valid_end <= bytes.len() as u64);
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
