//! Arbitrary bytes as a `.log` segment: shallow walk, per-batch CRC/deep checks, record decode,
//! `verify_segment` with every option combination, and the record walk (`RecordWalk`), which must
//! yield the shallow walk's batches and stop where and why it does. Must never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use logclean::formats::batch::parse_batch_header;
use logclean::formats::legacy::{parse_legacy_header, parse_legacy_message};
use logclean::formats::record::{decode_records, for_each_record};
use logclean::formats::record_walk::{RecordWalk, StopReason};
use logclean::formats::verify::{verify_batch_with_limit, verify_crc, verify_segment, VerifyOptions};
use logclean::formats::walk::{ShallowWalker, WalkEnd};

/// Decompression cap (small, so that bombs stay cheap).
const CAP: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let len = data.len() as u64;
    let mut walker = ShallowWalker::new(data);
    let mut prev_end = 0u64;
    let mut items = 0usize;
    while let Some(item) = walker.next() {
        items += 1;
        assert!(items <= data.len() + 1, "walker does not terminate");
        let Ok(info) = item else { continue };
        assert!(info.position >= prev_end, "walker went backwards");
        assert!(info.end() <= len, "batch past end of file");
        prev_end = info.end();
        if let Ok(b) = info.bytes(data) {
            let _ = parse_batch_header(b);
            if let Some(rec) = b.get(12..) {
                let _ = parse_legacy_header(rec);
                let _ = parse_legacy_message(rec);
            }
        }
        let _ = verify_crc(data, &info);
        let _ = verify_batch_with_limit(data, &info, CAP);
        let _ = decode_records(data, &info, CAP);
        let _ = for_each_record(data, &info, CAP, |r| {
            let _ = r.to_owned_record();
            Ok(())
        });
    }
    assert!(walker.valid_end() <= len);
    let _ = walker.end();

    for deep in [false, true] {
        for check_crc in [false, true] {
            for base in [None, Some(0), Some(i64::MAX)] {
                let v = verify_segment(
                    data,
                    &VerifyOptions {
                        max_decompressed: CAP,
                        deep,
                        check_crc,
                        segment_base_offset: base,
                    },
                );
                assert!(v.valid_end <= len);
                assert!(v.error.is_none() || v.end.is_none());
            }
        }
    }

    // The record walk: the shallow walk's batches, then one stop where and why it ended; with
    // CRCs checked, the batches before the first bad CRC and a stop there.
    let shallow: Vec<_> = ShallowWalker::new(data).collect();
    for check_crc in [false, true] {
        let mut walk = RecordWalk::new(data).max_decompressed(CAP);
        if check_crc {
            walk = walk.checking_crc();
        }
        let mut n = 0usize;
        while let Some(b) = walk.next() {
            assert_eq!(Some(&Ok(b.info.clone())), shallow.get(n), "record walk batch {n}");
            n += 1;
            let _ = b.for_each_record(|_| Ok(()));
        }
        let stop = walk.stop().expect("a finished walk has a stop").clone();
        assert!(walk.next().is_none());
        assert!(stop.position <= len);
        match (&stop.reason, shallow.get(n)) {
            (StopReason::BadCrc(_), Some(Ok(info))) => {
                assert!(check_crc && verify_crc(data, info).is_err());
                assert_eq!((stop.position, stop.base_offset), (info.position, Some(info.base_offset)));
            }
            (StopReason::BadBatch(e), Some(Err(shallow_e))) => assert_eq!(e, shallow_e),
            (reason, None) => {
                let mut w = ShallowWalker::new(data);
                w.by_ref().for_each(drop);
                let end = w.end().cloned().expect("the shallow walk ended cleanly");
                match (reason, end) {
                    (StopReason::End, WalkEnd::Clean) => assert_eq!(stop.position, len),
                    (StopReason::TornTail { declared_size, available }, WalkEnd::PartialBatch {
                        position, declared_size: d, available: a
                    }) => assert_eq!((stop.position, *declared_size, *available), (position, d, a)),
                    (StopReason::ZeroFilled { len: l }, WalkEnd::ZeroFilled { position, len: z }) => {
                        assert_eq!((stop.position, *l), (position, z))
                    }
                    (r, e) => panic!("record walk stopped for {r:?}, shallow walk ended {e:?}"),
                }
            }
            (r, s) => panic!("record walk stopped for {r:?} at shallow item {s:?}"),
        }
    }

    // A walk from an arbitrary position (as from an index entry), including past the end.
    if let [a, b, ..] = data {
        let pos = u64::from(u16::from_be_bytes([*a, *b])) % (len + 4);
        let mut w = ShallowWalker::starting_at(data, pos);
        let mut n = 0usize;
        for _ in w.by_ref() {
            n += 1;
            assert!(n <= data.len() + 1);
        }
        let _ = (w.valid_end(), w.end());
        let _ = ShallowWalker::starting_at(data, u64::MAX).count();
    }
});
