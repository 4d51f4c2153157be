//! `__transaction_state` records: key + value decode of arbitrary bytes must never panic, and
//! a record names the same transactional id as its tombstone.
//!
//! Input: `u16` big-endian header (top bit: null value; low 15 bits: key length), key, value.
#![no_main]
use libfuzzer_sys::fuzz_target;
use logclean::formats::txn_state_record::{decode_txn_state_record, TxnStateRecord, TxnStatus};

fuzz_target!(|data: &[u8]| {
    let Some((&[hi, lo], rest)) = data.split_first_chunk::<2>() else {
        return;
    };
    let header = u16::from_be_bytes([hi, lo]);
    let key_len = usize::from(header & 0x7fff).min(rest.len());
    let (key, value) = rest.split_at(key_len);
    let value = (header & 0x8000 == 0).then_some(value);
    let tombstone = decode_txn_state_record(key, None);
    match decode_txn_state_record(key, value) {
        Ok(TxnStateRecord::Transaction {
            transactional_id,
            value: v,
        }) => {
            assert_eq!(v.is_none(), value.is_none());
            if let Some(v) = v {
                assert_eq!(TxnStatus::from_id(v.status.id()), Some(v.status));
            }
            let Ok(TxnStateRecord::Transaction {
                transactional_id: id,
                value: None,
            }) = tombstone
            else {
                panic!("tombstone of a decoded key: {tombstone:?}");
            };
            assert_eq!(id, transactional_id);
        }
        Ok(TxnStateRecord::UnknownValueVersion {
            transactional_id, ..
        }) => assert!(matches!(
            tombstone,
            Ok(TxnStateRecord::Transaction { transactional_id: ref id, value: None }) if *id == transactional_id
        )),
        Ok(TxnStateRecord::UnknownKeyVersion { version }) => {
            assert_eq!(tombstone, Ok(TxnStateRecord::UnknownKeyVersion { version }))
        }
        Err(_) => {}
    }
});
