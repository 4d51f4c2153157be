//! Decompression of a batch's records section (v2) or a legacy wrapper's value (v0/v1), with a
//! hard cap on the output size.
//!
//! Kafka sources: `clients/src/main/java/org/apache/kafka/common/compress/{GzipCompression,
//! SnappyCompression,Lz4Compression,ZstdCompression}.java`, `Lz4BlockInputStream.java`
//! (`KafkaLZ4BlockInputStream.java` before 3.8), and xerial snappy-java's `SnappyInputStream` /
//! `SnappyCodec`; spec §3.4.
//!
//! - **gzip**: a gzip stream; concatenated members are read like Java's `GZIPInputStream`.
//! - **snappy**: Kafka writes with xerial's `SnappyOutputStream`, so the stream is the xerial
//!   framing: an 8-byte magic `82 'SNAPPY' 00`, i32 version, i32 minimum compatible version,
//!   then chunks of `[i32 length][raw snappy block]`, all big-endian. `SnappyInputStream` falls
//!   back to one raw snappy block when the magic is absent (data from other clients), and
//!   accepts a second header where a chunk length is expected (concatenated streams); so do we.
//! - **lz4**: an LZ4 frame as Kafka's own reader understands it: independent blocks only, no
//!   dictionary id, block size id 4–7. For magic 0 the header checksum byte is **not** checked,
//!   because Kafka 0.8–0.9 computed it over the magic number as well (KAFKA-3160) and Kafka
//!   keeps reading such data (`ignoreFlagDescriptorChecksum`). Block checksums are checked when
//!   the frame flags ask for them; the content checksum is checked when present (current Kafka
//!   does; before 3.8 it only skipped it). Bytes after the end mark are ignored, as in Kafka.
//! - **zstd**: one or more zstd frames (libzstd via the `zstd` crate), window limited to
//!   2^27 bytes like libzstd's default.
//!
//! Every codec stops with [`ErrorKind::Compression`]`("decompressed size exceeds limit")` as
//! soon as the output would pass the caller's `limit`, so no untrusted length ever sizes an
//! allocation beyond it.

use std::io::Read;

use super::batch::{Compression, MAGIC_V0};
use super::error::{ErrorKind, FormatError, FormatResult};

/// Default cap on the decompressed size of one batch (64 MiB).
pub const DEFAULT_MAX_DECOMPRESSED: usize = 64 * 1024 * 1024;

const LIMIT_EXCEEDED: &str = "decompressed size exceeds limit";

fn err(msg: impl Into<String>) -> FormatError {
    FormatError::new(ErrorKind::Compression(msg.into()), 0)
}

fn limit_exceeded() -> FormatError {
    err(LIMIT_EXCEEDED)
}

/// Decompress `data` written with `codec` by a producer of message format `magic`.
///
/// Returns at most `limit` bytes; a larger output is an error, never a truncated result.
/// [`Compression::None`] returns the input unchanged (still subject to `limit`). Errors carry
/// offset 0, meaning "somewhere in this compressed stream": callers rebase them onto the byte
/// position of the stream in the file with [`FormatError::at_base`].
pub fn decompress(
    codec: Compression,
    data: &[u8],
    magic: i8,
    limit: usize,
) -> FormatResult<Vec<u8>> {
    match codec {
        Compression::None => {
            if data.len() > limit {
                return Err(limit_exceeded());
            }
            Ok(data.to_vec())
        }
        Compression::Gzip => read_capped(flate2::read::MultiGzDecoder::new(data), limit, "gzip"),
        Compression::Snappy => decompress_snappy(data, limit),
        Compression::Lz4 => decompress_lz4(data, magic != MAGIC_V0, limit),
        Compression::Zstd => decompress_zstd(data, limit),
        Compression::Unknown(id) => Err(err(format!("unknown compression codec id {id}"))),
    }
}

// ---------------------------------------------------------------------------------------------
// zstd

thread_local! {
    /// One zstd decompression context per thread, reused batch after batch: creating one
    /// costs more than decompressing a 16 KiB batch. Window limited to 2^27 once, when made;
    /// [`zstd::stream::read::Decoder::with_context`] resets the session (never the
    /// parameters) before each stream, so nothing of one batch leaks into the next.
    static ZSTD_CONTEXT: std::cell::RefCell<Option<zstd::zstd_safe::DCtx<'static>>> =
        const { std::cell::RefCell::new(None) };
}

fn zstd_context() -> FormatResult<zstd::zstd_safe::DCtx<'static>> {
    let mut context = zstd::zstd_safe::DCtx::create();
    context
        .set_parameter(zstd::zstd_safe::DParameter::WindowLogMax(27))
        .map_err(|code| err(format!("zstd: {}", zstd::zstd_safe::get_error_name(code))))?;
    Ok(context)
}

/// One or more zstd frames, read like a fresh `zstd::stream::read::Decoder` with
/// `window_log_max(27)` would, on this thread's reused context.
fn decompress_zstd(data: &[u8], limit: usize) -> FormatResult<Vec<u8>> {
    ZSTD_CONTEXT.with(|cell| {
        let Ok(mut slot) = cell.try_borrow_mut() else {
            // Re-entered on this thread (cannot happen today): a context of its own.
            let mut context = zstd_context()?;
            let decoder = zstd::stream::read::Decoder::with_context(data, &mut context);
            return read_capped(decoder, limit, "zstd");
        };
        let context = match slot.as_mut() {
            Some(context) => context,
            None => slot.insert(zstd_context()?),
        };
        let decoder = zstd::stream::read::Decoder::with_context(data, context);
        read_capped(decoder, limit, "zstd")
    })
}

/// Read a streaming decoder to its end, failing once more than `limit` bytes come out.
fn read_capped(reader: impl Read, limit: usize, codec: &str) -> FormatResult<Vec<u8>> {
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    let mut out = Vec::new();
    reader
        .take(cap)
        .read_to_end(&mut out)
        .map_err(|e| err(format!("{codec}: {e}")))?;
    if out.len() > limit {
        return Err(limit_exceeded());
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// snappy (xerial framing)

/// `SnappyCodec.MAGIC_HEADER`: `0x82 "SNAPPY" 0x00`.
const XERIAL_MAGIC: [u8; 8] = [0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0];
/// Magic (8) + version (4) + minimum compatible version (4).
const XERIAL_HEADER_LEN: usize = 16;
/// The first four magic bytes read as a big-endian i32 (`SnappyCodec.MAGIC_HEADER_HEAD`): where
/// a chunk length is expected, this value starts the header of a concatenated stream.
const XERIAL_MAGIC_HEAD: u32 = 0x8253_4E41;

fn decompress_snappy(data: &[u8], limit: usize) -> FormatResult<Vec<u8>> {
    if data.is_empty() {
        // xerial: "Cannot decompress empty stream".
        return Err(err("snappy: empty stream"));
    }
    let framed = data.len() >= XERIAL_HEADER_LEN && data.get(..8) == Some(&XERIAL_MAGIC[..]);
    let mut out = Vec::new();
    if !framed {
        // Not written by SnappyOutputStream: xerial reads the whole input as one raw block.
        snappy_block(data, &mut out, limit)?;
        return Ok(out);
    }
    let mut rest = skip_xerial_header(data)?;
    while !rest.is_empty() {
        let (len_bytes, after) =
            split(rest, 4).ok_or_else(|| err("snappy: truncated chunk length"))?;
        let len = be_u32(len_bytes);
        if len == XERIAL_MAGIC_HEAD {
            // A second stream appended to the first: skip its header.
            rest = skip_xerial_header(rest)?;
            continue;
        }
        let len = usize::try_from(i32::from_be_bytes(len.to_be_bytes()))
            .map_err(|_| err("snappy: negative chunk length"))?;
        let (chunk, after) = split(after, len).ok_or_else(|| err("snappy: truncated chunk"))?;
        snappy_block(chunk, &mut out, limit)?;
        rest = after;
    }
    Ok(out)
}

/// Check a xerial header at the start of `data` and return what follows it.
fn skip_xerial_header(data: &[u8]) -> FormatResult<&[u8]> {
    let (header, rest) =
        split(data, XERIAL_HEADER_LEN).ok_or_else(|| err("snappy: truncated stream header"))?;
    if header.get(..8) != Some(&XERIAL_MAGIC[..]) {
        return Err(err("snappy: bad stream header"));
    }
    // `SnappyCodec.MINIMUM_COMPATIBLE_VERSION` is 1: version 0 streams are rejected.
    let version = header.get(8..12).map(be_u32).unwrap_or(0) as i32;
    if version < 1 {
        return Err(err(format!(
            "snappy: incompatible stream version {version}"
        )));
    }
    Ok(rest)
}

/// Append one raw snappy block to `out`, checking its declared length against the limit first.
fn snappy_block(block: &[u8], out: &mut Vec<u8>, limit: usize) -> FormatResult<()> {
    let len = snap::raw::decompress_len(block).map_err(|e| err(format!("snappy: {e}")))?;
    let start = out.len();
    let end = start
        .checked_add(len)
        .filter(|&end| end <= limit)
        .ok_or_else(limit_exceeded)?;
    out.resize(end, 0);
    let target = out.get_mut(start..).ok_or_else(|| err("snappy: buffer"))?;
    let written = snap::raw::Decoder::new()
        .decompress(block, target)
        .map_err(|e| err(format!("snappy: {e}")))?;
    if written != len {
        return Err(err("snappy: invalid uncompressed size"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// lz4 (Kafka's frame reader)

/// LZ4 frame magic number, stored little-endian.
const LZ4_MAGIC: u32 = 0x184D_2204;
/// High bit of a block size: the block is stored uncompressed.
const LZ4_INCOMPRESSIBLE: u32 = 0x8000_0000;

fn decompress_lz4(data: &[u8], check_header_checksum: bool, limit: usize) -> FormatResult<Vec<u8>> {
    // Frame descriptor: magic (4), FLG, BD, [content size (8)], HC.
    let (magic, rest) = split(data, 4).ok_or_else(|| err("lz4: stream ended prematurely"))?;
    if le_u32(magic) != LZ4_MAGIC {
        return Err(err("lz4: stream unsupported (invalid magic bytes)"));
    }
    let (flg_bd, mut rest) = split(rest, 2).ok_or_else(|| err("lz4: stream ended prematurely"))?;
    let flg = flg_bd.first().copied().unwrap_or(0);
    let bd = flg_bd.get(1).copied().unwrap_or(0);
    // Kafka's FLG.validate: bits 0-1 reserved (no dictionary id), independent blocks, version 1.
    if flg & 0x03 != 0 {
        return Err(err("lz4: reserved frame flag bits set"));
    }
    if flg & 0x20 == 0 {
        return Err(err("lz4: dependent block stream is unsupported"));
    }
    if flg >> 6 != 1 {
        return Err(err(format!("lz4: frame version {} unsupported", flg >> 6)));
    }
    let content_checksum = flg & 0x04 != 0;
    let content_size = flg & 0x08 != 0;
    let block_checksum = flg & 0x10 != 0;
    // BD.validate: bits 0-3 and 7 reserved; block size id 4..=7 (64 KiB .. 4 MiB).
    let size_id = (bd >> 4) & 0x07;
    if bd & 0x8f != 0 || size_id < 4 {
        return Err(err("lz4: invalid block descriptor"));
    }
    let max_block = 1usize << (2 * u32::from(size_id) + 8);
    let mut descriptor_len = 2;
    if content_size {
        rest = split(rest, 8)
            .ok_or_else(|| err("lz4: stream ended prematurely"))?
            .1;
        descriptor_len += 8;
    }
    let (hc, rest) = split(rest, 1).ok_or_else(|| err("lz4: stream ended prematurely"))?;
    if check_header_checksum {
        let descriptor = data.get(4..4 + descriptor_len).unwrap_or(&[]);
        let expected = (xxh32(descriptor, 0) >> 8) as u8;
        if hc.first() != Some(&expected) {
            return Err(err("lz4: stream frame descriptor corrupted"));
        }
    }

    // Scratch for one block, bounded by the frame's block size (at most 4 MiB) and the limit;
    // kept per thread between batches (the lz4 decoder writes it before reading it).
    LZ4_SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut scratch) => {
            scratch.resize(max_block.min(limit.saturating_add(1)), 0);
            lz4_blocks(
                rest,
                &mut scratch,
                max_block,
                content_checksum,
                block_checksum,
                limit,
            )
        }
        Err(_) => {
            let mut scratch = vec![0u8; max_block.min(limit.saturating_add(1))];
            lz4_blocks(
                rest,
                &mut scratch,
                max_block,
                content_checksum,
                block_checksum,
                limit,
            )
        }
    })
}

thread_local! {
    /// The block scratch of [`decompress_lz4`], kept per thread (at most 4 MiB).
    static LZ4_SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The data blocks of an LZ4 frame after its descriptor, through `scratch` (exactly the size
/// one decompressed block may take: the frame's block size, or the limit plus one).
fn lz4_blocks(
    mut rest: &[u8],
    scratch: &mut [u8],
    max_block: usize,
    content_checksum: bool,
    block_checksum: bool,
    limit: usize,
) -> FormatResult<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let (size_bytes, after) =
            split(rest, 4).ok_or_else(|| err("lz4: stream ended prematurely"))?;
        let raw = le_u32(size_bytes);
        let compressed = raw & LZ4_INCOMPRESSIBLE == 0;
        let size = (raw & !LZ4_INCOMPRESSIBLE) as usize;
        if size == 0 {
            // End mark.
            if content_checksum {
                let (sum, _) =
                    split(after, 4).ok_or_else(|| err("lz4: stream ended prematurely"))?;
                if le_u32(sum) != xxh32(&out, 0) {
                    return Err(err("lz4: content checksum mismatch"));
                }
            }
            return Ok(out);
        }
        if size > max_block {
            return Err(err(format!(
                "lz4: block size {size} exceeded max: {max_block}"
            )));
        }
        let (block, after) =
            split(after, size).ok_or_else(|| err("lz4: stream ended prematurely"))?;
        rest = after;
        if block_checksum {
            let (sum, after) =
                split(rest, 4).ok_or_else(|| err("lz4: stream ended prematurely"))?;
            if le_u32(sum) != xxh32(block, 0) {
                return Err(err("lz4: block checksum mismatch"));
            }
            rest = after;
        }
        let room = limit.saturating_sub(out.len());
        if compressed {
            let n = lz4_flex::block::decompress_into(block, scratch).map_err(|e| {
                if scratch.len() < max_block {
                    limit_exceeded()
                } else {
                    err(format!("lz4: {e}"))
                }
            })?;
            if n > room {
                return Err(limit_exceeded());
            }
            out.extend_from_slice(scratch.get(..n).unwrap_or(&[]));
        } else {
            if block.len() > room {
                return Err(limit_exceeded());
            }
            out.extend_from_slice(block);
        }
    }
}

/// Split off the first `n` bytes, or `None` if there are fewer.
fn split(data: &[u8], n: usize) -> Option<(&[u8], &[u8])> {
    (data.len() >= n).then(|| data.split_at(n))
}

fn be_u32(b: &[u8]) -> u32 {
    let mut a = [0u8; 4];
    for (d, s) in a.iter_mut().zip(b) {
        *d = *s;
    }
    u32::from_be_bytes(a)
}

/// Little-endian u32. LZ4 frames are the one little-endian structure Kafka stores (the LZ4
/// frame format fixes it), so this lives here and not in the big-endian `bytes.rs`.
fn le_u32(b: &[u8]) -> u32 {
    let mut a = [0u8; 4];
    for (d, s) in a.iter_mut().zip(b) {
        *d = *s;
    }
    u32::from_le_bytes(a)
}

/// xxHash32 (the checksum of the LZ4 frame format), with `seed`.
fn xxh32(input: &[u8], seed: u32) -> u32 {
    const P1: u32 = 2_654_435_761;
    const P2: u32 = 2_246_822_519;
    const P3: u32 = 3_266_489_917;
    const P4: u32 = 668_265_263;
    const P5: u32 = 374_761_393;
    fn round(acc: u32, lane: u32) -> u32 {
        acc.wrapping_add(lane.wrapping_mul(P2))
            .rotate_left(13)
            .wrapping_mul(P1)
    }

    let mut stripes = input.chunks_exact(16);
    let mut h = if input.len() >= 16 {
        let mut v = [
            seed.wrapping_add(P1).wrapping_add(P2),
            seed.wrapping_add(P2),
            seed,
            seed.wrapping_sub(P1),
        ];
        for stripe in &mut stripes {
            for (lane, word) in v.iter_mut().zip(stripe.chunks_exact(4)) {
                *lane = round(*lane, le_u32(word));
            }
        }
        v[0].rotate_left(1)
            .wrapping_add(v[1].rotate_left(7))
            .wrapping_add(v[2].rotate_left(12))
            .wrapping_add(v[3].rotate_left(18))
    } else {
        seed.wrapping_add(P5)
    };
    // The length is added modulo 2^32, as the reference implementation does.
    h = h.wrapping_add(input.len() as u32);
    let tail = stripes.remainder();
    let mut words = tail.chunks_exact(4);
    for word in &mut words {
        h = h
            .wrapping_add(le_u32(word).wrapping_mul(P3))
            .rotate_left(17)
            .wrapping_mul(P4);
    }
    for &byte in words.remainder() {
        h = h
            .wrapping_add(u32::from(byte).wrapping_mul(P5))
            .rotate_left(11)
            .wrapping_mul(P1);
    }
    h ^= h >> 15;
    h = h.wrapping_mul(P2);
    h ^= h >> 13;
    h = h.wrapping_mul(P3);
    h ^= h >> 16;
    h
}

/// Test-only encoders that write what Kafka's writers write.
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod encode {
    use std::io::Write;

    use super::*;

    /// Compress `data` as a Kafka producer of format `magic` would.
    pub(crate) fn compress(codec: Compression, data: &[u8], magic: i8) -> Vec<u8> {
        match codec {
            Compression::None => data.to_vec(),
            Compression::Gzip => {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(data).unwrap();
                e.finish().unwrap()
            }
            Compression::Snappy => xerial_snappy(data, 32 * 1024),
            Compression::Lz4 => kafka_lz4(data, magic == MAGIC_V0, false, 64 * 1024),
            Compression::Zstd => zstd::stream::encode_all(data, 3).unwrap(),
            Compression::Unknown(_) => panic!("cannot compress with an unknown codec"),
        }
    }

    /// xerial `SnappyOutputStream` framing with chunks of `block` input bytes.
    pub(crate) fn xerial_snappy(data: &[u8], block: usize) -> Vec<u8> {
        let mut out = XERIAL_MAGIC.to_vec();
        out.extend_from_slice(&1i32.to_be_bytes());
        out.extend_from_slice(&1i32.to_be_bytes());
        for chunk in data.chunks(block) {
            let c = snap::raw::Encoder::new().compress_vec(chunk).unwrap();
            out.extend_from_slice(&(c.len() as i32).to_be_bytes());
            out.extend_from_slice(&c);
        }
        out
    }

    /// An LZ4 frame as `KafkaLZ4BlockOutputStream` writes it (64 KiB independent blocks, no
    /// content size or checksum). `broken_hc` reproduces the v0 header-checksum bug: the hash
    /// covers the magic number too.
    pub(crate) fn kafka_lz4(
        data: &[u8],
        broken_hc: bool,
        block_checksum: bool,
        block: usize,
    ) -> Vec<u8> {
        let mut out = LZ4_MAGIC.to_le_bytes().to_vec();
        let flg = 0x40 | 0x20 | if block_checksum { 0x10 } else { 0 };
        out.push(flg);
        out.push(4 << 4);
        let hc = if broken_hc {
            xxh32(&out, 0)
        } else {
            xxh32(&out[4..], 0)
        };
        out.push((hc >> 8) as u8);
        for chunk in data.chunks(block) {
            let c = lz4_flex::block::compress(chunk);
            let (bytes, flag) = if c.len() < chunk.len() {
                (c, 0)
            } else {
                (chunk.to_vec(), LZ4_INCOMPRESSIBLE)
            };
            out.extend_from_slice(&(bytes.len() as u32 | flag).to_le_bytes());
            out.extend_from_slice(&bytes);
            if block_checksum {
                out.extend_from_slice(&xxh32(&bytes, 0).to_le_bytes());
            }
        }
        out.extend_from_slice(&0u32.to_le_bytes());
        out
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::encode::*;
    use super::*;

    fn sample(len: usize) -> Vec<u8> {
        (0..len)
            .map(|i| (i * 7 % 251) as u8 ^ (i / 1000) as u8)
            .collect()
    }

    const CODECS: [Compression; 5] = [
        Compression::None,
        Compression::Gzip,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
    ];

    #[test]
    fn every_codec_round_trips() {
        for codec in CODECS {
            for len in [0usize, 1, 100, 70_000, 200_000] {
                for magic in [0i8, 1, 2] {
                    let data = sample(len);
                    let c = compress(codec, &data, magic);
                    let d = decompress(codec, &c, magic, DEFAULT_MAX_DECOMPRESSED).unwrap();
                    assert_eq!(d, data, "{codec} len {len} magic {magic}");
                }
            }
        }
    }

    #[test]
    fn limit_is_enforced_by_every_codec() {
        let data = sample(100_000);
        for codec in CODECS {
            let c = compress(codec, &data, 2);
            assert_eq!(decompress(codec, &c, 2, data.len()).unwrap(), data);
            let e = decompress(codec, &c, 2, data.len() - 1).unwrap_err();
            assert_eq!(
                e.kind,
                ErrorKind::Compression(LIMIT_EXCEEDED.into()),
                "{codec}"
            );
        }
    }

    #[test]
    fn xxh32_matches_reference_vectors() {
        // Reference values of XXH32 with seed 0.
        assert_eq!(xxh32(b"", 0), 0x02CC_5D05);
        assert_eq!(xxh32(b"a", 0), 0x550D_7456);
        assert_eq!(xxh32(b"abc", 0), 0x32D1_53FF);
        assert_eq!(
            xxh32(b"Nobody inspects the spammish repetition", 0),
            0xE229_3B2F
        );
    }

    #[test]
    fn lz4_frames_from_lz4_flex_decode() {
        // Cross-checks the frame parser and xxh32 against an independent encoder, with block and
        // content checksums switched on.
        use lz4_flex::frame::{BlockMode, FrameEncoder, FrameInfo};
        use std::io::Write;
        let data = sample(300_000);
        let info = FrameInfo::new()
            .block_mode(BlockMode::Independent)
            .block_checksums(true)
            .content_checksum(true)
            .content_size(Some(data.len() as u64));
        let mut enc = FrameEncoder::with_frame_info(info, Vec::new());
        enc.write_all(&data).unwrap();
        let frame = enc.finish().unwrap();
        assert_eq!(
            decompress(Compression::Lz4, &frame, 2, usize::MAX).unwrap(),
            data
        );
        // A flipped payload byte now fails a checksum or the block decoder.
        let mut bad = frame.clone();
        let mid = bad.len() / 2;
        bad[mid] ^= 0x40;
        assert!(decompress(Compression::Lz4, &bad, 2, usize::MAX).is_err());
    }

    #[test]
    fn lz4_v0_broken_header_checksum_is_tolerated_only_for_magic_0() {
        let data = sample(5000);
        let frame = kafka_lz4(&data, true, true, 1024);
        assert_eq!(
            decompress(Compression::Lz4, &frame, 0, usize::MAX).unwrap(),
            data
        );
        let e = decompress(Compression::Lz4, &frame, 1, usize::MAX).unwrap_err();
        assert!(e.to_string().contains("descriptor"), "{e}");
    }

    #[test]
    fn lz4_dependent_blocks_are_rejected_like_kafka() {
        let mut frame = kafka_lz4(b"hello", false, false, 1024);
        frame[4] &= !0x20;
        assert!(decompress(Compression::Lz4, &frame, 0, usize::MAX).is_err());
    }

    #[test]
    fn snappy_raw_block_and_concatenated_streams() {
        let data = sample(10_000);
        let raw = snap::raw::Encoder::new().compress_vec(&data).unwrap();
        assert_eq!(
            decompress(Compression::Snappy, &raw, 2, usize::MAX).unwrap(),
            data
        );
        let mut two = xerial_snappy(&data[..4000], 1000);
        two.extend(xerial_snappy(&data[4000..], 1500));
        assert_eq!(
            decompress(Compression::Snappy, &two, 2, usize::MAX).unwrap(),
            data
        );
        assert!(decompress(Compression::Snappy, &[], 2, usize::MAX).is_err());
    }

    #[test]
    fn corrupt_or_truncated_streams_error_without_panicking() {
        let data = sample(20_000);
        for codec in CODECS {
            let c = compress(codec, &data, 1);
            for n in 0..c.len().min(300) {
                let _ = decompress(codec, &c[..n], 1, 1 << 20);
            }
            for i in (0..c.len()).step_by(97) {
                let mut bad = c.clone();
                bad[i] ^= 0xff;
                let _ = decompress(codec, &bad, 1, 1 << 20);
            }
        }
        assert!(decompress(Compression::Unknown(6), b"x", 2, 10).is_err());
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_input_never_panics(codec in 0u8..6, magic in 0i8..3, bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..512)) {
            let _ = decompress(Compression::from_id(codec), &bytes, magic, 1 << 16);
        }

        #[test]
        fn round_trip(codec in 0u8..5, data in proptest::collection::vec(proptest::num::u8::ANY, 0..4096)) {
            let codec = Compression::from_id(codec);
            let c = compress(codec, &data, 2);
            proptest::prop_assert_eq!(decompress(codec, &c, 2, 1 << 20).unwrap(), data);
        }
    }
}
