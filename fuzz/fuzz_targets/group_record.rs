//! `__consumer_offsets` records: key + value decode of arbitrary bytes must never panic, and the
//! key decodes the same alone, with a tombstone, and with any value.
//!
//! Input: `u16` big-endian header (top bit: null value; low 15 bits: key length), key, value.
#![no_main]
use libfuzzer_sys::fuzz_target;
use logclean::formats::group_record::{
    decode_group_key, decode_group_record, group_protocol, record_type_name,
    supported_value_versions,
};

fuzz_target!(|data: &[u8]| {
    let Some((&[hi, lo], rest)) = data.split_first_chunk::<2>() else {
        return;
    };
    let header = u16::from_be_bytes([hi, lo]);
    let key_len = usize::from(header & 0x7fff).min(rest.len());
    let (key, value) = rest.split_at(key_len);
    let value = (header & 0x8000 == 0).then_some(value);
    let key_alone = decode_group_key(key);
    let tombstone = decode_group_record(key, None);
    match (&key_alone, &tombstone) {
        (Ok(k), Ok(t)) => assert!(t.key == *k && t.value.is_none()),
        (Err(a), Err(b)) => assert_eq!(a, b),
        _ => panic!("key alone {key_alone:?} vs tombstone {tombstone:?}"),
    }
    if let Ok(r) = decode_group_record(key, value) {
        assert_eq!(Ok(&r.key), key_alone.as_ref());
        assert_eq!(r.value.is_none(), value.is_none());
        let t = r.key.record_type();
        let _ = (record_type_name(t), group_protocol(t));
        let _ = supported_value_versions(t);
    }
});
