//! Builds one well-framed batch (v2 with a correct CRC-32C, or a legacy v0/v1 message with a
//! correct CRC-32) around fuzzed header fields and a fuzzed records section, optionally
//! compressed with the real codec, so the deep record decoder is reached past the CRC check.
#![no_main]
use std::io::Write;

use libfuzzer_sys::fuzz_target;
use logclean::formats::batch::Compression;
use logclean::formats::control::parse_control_record;
use logclean::formats::record::{decode_records, for_each_record};
use logclean::formats::verify::{verify_batch_with_limit, verify_segment, VerifyOptions};
use logclean::formats::walk::ShallowWalker;

const CAP: usize = 1 << 20;

fn take<const N: usize>(d: &mut &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    let n = N.min(d.len());
    a[..n].copy_from_slice(&d[..n]);
    *d = &d[n..];
    a
}

fn compress(codec: u8, data: &[u8]) -> Vec<u8> {
    match codec {
        1 => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        2 => {
            // xerial framing, as Kafka's SnappyOutputStream writes it.
            let mut out = vec![0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1];
            let block = snap::raw::Encoder::new().compress_vec(data).unwrap();
            out.extend_from_slice(&(block.len() as u32).to_be_bytes());
            out.extend(block);
            out
        }
        3 => {
            let mut e = lz4_flex::frame::FrameEncoder::new(Vec::new());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        4 => zstd::encode_all(data, 1).unwrap(),
        _ => data.to_vec(),
    }
}

fn v2_batch(mut d: &[u8]) -> Vec<u8> {
    let [mode] = take::<1>(&mut d);
    let base_offset = i64::from_be_bytes(take(&mut d));
    let last_delta = i32::from_be_bytes(take(&mut d));
    let base_ts = i64::from_be_bytes(take(&mut d));
    let max_ts = i64::from_be_bytes(take(&mut d));
    let count = i32::from_be_bytes(take(&mut d));
    let codec = mode & 0x07;
    let attributes = i16::from(mode & 0x7f);
    let section = if mode & 0x80 != 0 { compress(codec, d) } else { d.to_vec() };
    let mut tail = Vec::new();
    tail.extend_from_slice(&attributes.to_be_bytes());
    tail.extend_from_slice(&last_delta.to_be_bytes());
    tail.extend_from_slice(&base_ts.to_be_bytes());
    tail.extend_from_slice(&max_ts.to_be_bytes());
    tail.extend_from_slice(&7i64.to_be_bytes());
    tail.extend_from_slice(&1i16.to_be_bytes());
    tail.extend_from_slice(&0i32.to_be_bytes());
    tail.extend_from_slice(&count.to_be_bytes());
    tail.extend(section);
    let mut out = base_offset.to_be_bytes().to_vec();
    out.extend_from_slice(&((tail.len() + 9) as i32).to_be_bytes());
    out.extend_from_slice(&0i32.to_be_bytes());
    out.push(2);
    out.extend_from_slice(&crc32c::crc32c(&tail).to_be_bytes());
    out.extend(tail);
    out
}

fn legacy_message(magic: u8, mut d: &[u8]) -> Vec<u8> {
    let [mode] = take::<1>(&mut d);
    let offset = i64::from_be_bytes(take(&mut d));
    let ts = i64::from_be_bytes(take(&mut d));
    let codec = mode & 0x07;
    let value = if mode & 0x80 != 0 { compress(codec, d) } else { d.to_vec() };
    let mut body = vec![magic, mode & 0x0f];
    if magic == 1 {
        body.extend_from_slice(&ts.to_be_bytes());
    }
    body.extend_from_slice(&(-1i32).to_be_bytes()); // null key
    body.extend_from_slice(&(value.len() as i32).to_be_bytes());
    body.extend(value);
    let mut rec = crc32fast::hash(&body).to_be_bytes().to_vec();
    rec.extend(body);
    let mut out = offset.to_be_bytes().to_vec();
    out.extend_from_slice(&(rec.len() as i32).to_be_bytes());
    out.extend(rec);
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else { return };
    let file = match sel % 3 {
        0 => legacy_message(0, rest),
        1 => legacy_message(1, rest),
        _ => v2_batch(rest),
    };
    // Two copies: exercises the cross-batch checks as well.
    let mut twice = file.clone();
    if sel & 0x80 != 0 {
        twice.extend_from_slice(&file);
    }
    for info in ShallowWalker::new(&twice).flatten() {
        let _ = verify_batch_with_limit(&twice, &info, CAP);
        if let Ok(records) = decode_records(&twice, &info, CAP) {
            for w in records.windows(2) {
                assert!(w[0].offset < w[1].offset, "decoded offsets not increasing");
            }
            if info.magic >= 2 {
                for r in &records {
                    assert!(
                        (info.base_offset..=info.last_offset).contains(&r.offset),
                        "record offset outside the batch"
                    );
                }
            }
        }
        let _ = for_each_record(&twice, &info, 64, |_| Ok(()));
    }
    for deep in [false, true] {
        let v = verify_segment(
            &twice,
            &VerifyOptions { max_decompressed: CAP, deep, check_crc: true, segment_base_offset: Some(0) },
        );
        assert!(v.valid_end <= twice.len() as u64);
    }
    // Control records straight from the fuzz bytes.
    let mid = rest.len() / 2;
    let (k, v) = rest.split_at(mid);
    let _ = parse_control_record(Some(k), Some(v));
    let _ = parse_control_record(Some(k), None);
    let _ = parse_control_record(None, Some(v));
    let _ = Compression::from_id(sel).to_string();
});
