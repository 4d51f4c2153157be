//! `decompress` for every codec id and magic with a fuzzed cap; then a round trip through the
//! real encoder of each codec: exact output at `limit = len`, an error (never a truncated
//! result) at `limit = len - 1`.
#![no_main]
use std::io::Write;

use libfuzzer_sys::fuzz_target;
use logclean::formats::batch::Compression;
use logclean::formats::compression::decompress;

fn compress(codec: Compression, data: &[u8]) -> Option<Vec<u8>> {
    Some(match codec {
        Compression::None => data.to_vec(),
        Compression::Gzip => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(data).ok()?;
            e.finish().ok()?
        }
        Compression::Snappy => {
            let mut out = vec![0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1];
            // Two chunks when there is enough data, as SnappyOutputStream does for long input.
            for chunk in data.chunks(data.len() / 2 + 1) {
                let block = snap::raw::Encoder::new().compress_vec(chunk).ok()?;
                out.extend_from_slice(&(block.len() as u32).to_be_bytes());
                out.extend(block);
            }
            out
        }
        Compression::Lz4 => {
            let mut e = lz4_flex::frame::FrameEncoder::new(Vec::new());
            e.write_all(data).ok()?;
            e.finish().ok()?
        }
        Compression::Zstd => zstd::encode_all(data, 1).ok()?,
        Compression::Unknown(_) => return None,
    })
}

fuzz_target!(|data: &[u8]| {
    let [sel, lim, rest @ ..] = data else { return };
    let codec = Compression::from_id(*sel);
    let magic = (sel >> 3) as i8 % 3;
    let limit = 1usize << (lim % 23);
    if let Ok(out) = decompress(codec, rest, magic, limit) {
        assert!(out.len() <= limit, "output above the limit");
    }
    for id in 0..5u8 {
        let codec = Compression::from_id(id);
        let Some(enc) = compress(codec, rest) else { continue };
        for magic in [0i8, 1, 2] {
            let out = decompress(codec, &enc, magic, rest.len())
                .unwrap_or_else(|e| panic!("{codec} round trip failed: {e}"));
            assert_eq!(out, rest, "{codec} round trip differs");
            if let Some(small) = rest.len().checked_sub(1) {
                assert!(decompress(codec, &enc, magic, small).is_err(), "{codec}: truncated result");
            }
        }
    }
});
