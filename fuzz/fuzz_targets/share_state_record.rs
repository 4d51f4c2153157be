//! `__share_group_state` records: key + value decode of arbitrary bytes must never panic, and
//! a record names the same share partition as its tombstone.
//!
//! Input: `u16` big-endian header (top bit: null value; low 15 bits: key length), key, value.
#![no_main]
use libfuzzer_sys::fuzz_target;
use logclean::formats::share_state_record::{
    decode_share_state_record, ShareRecordType, ShareStateRecord,
};

fuzz_target!(|data: &[u8]| {
    let Some((&[hi, lo], rest)) = data.split_first_chunk::<2>() else {
        return;
    };
    let header = u16::from_be_bytes([hi, lo]);
    let key_len = usize::from(header & 0x7fff).min(rest.len());
    let (key, value) = rest.split_at(key_len);
    let value = (header & 0x8000 == 0).then_some(value);
    let tombstone = decode_share_state_record(key, None);
    let same_key = |kind: ShareRecordType, k| {
        assert!(
            matches!(&tombstone, Ok(ShareStateRecord::State { kind: tk, key: tkey, value: None })
                if *tk == kind && *tkey == k),
            "tombstone of a decoded key: {tombstone:?}"
        )
    };
    match decode_share_state_record(key, value) {
        Ok(ShareStateRecord::State { kind, key: k, value: v }) => {
            assert_eq!(v.is_none(), value.is_none());
            if let Some(v) = &v {
                // A snapshot carries its state epoch and both timestamps, an update none of them.
                let snapshot = kind == ShareRecordType::Snapshot;
                assert_eq!(v.state_epoch.is_some(), snapshot);
                assert_eq!(v.create_timestamp_ms.is_some(), snapshot);
                assert_eq!(v.write_timestamp_ms.is_some(), snapshot);
            }
            same_key(kind, k);
        }
        Ok(ShareStateRecord::UnknownValueVersion { kind, key: k, .. }) => same_key(kind, k),
        Ok(ShareStateRecord::UnknownKeyVersion { version }) => {
            assert_eq!(tombstone, Ok(ShareStateRecord::UnknownKeyVersion { version }))
        }
        Err(_) => {}
    }
});
