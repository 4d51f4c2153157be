//! `.txnindex` parse, Kafka's sanity check with a fuzzed base, the stricter checks, round trip.
#![no_main]
use libfuzzer_sys::fuzz_target;
use logclean::formats::txn_index::{encode_txn_index, TxnIndex, ENTRY_SIZE};

fuzz_target!(|data: &[u8]| {
    let mut a = [0u8; 8];
    let n = data.len().min(8);
    a[..n].copy_from_slice(&data[..n]);
    let base = i64::from_be_bytes(a);
    let bytes = &data[n..];
    let Ok(ix) = TxnIndex::parse(bytes) else { return };
    assert_eq!(ix.entries.len(), bytes.len() / ENTRY_SIZE);
    assert_eq!(ix.partial_tail_len, (bytes.len() % ENTRY_SIZE) as u64);
    for b in [base, 0, i64::MIN, i64::MAX] {
        for p in ix.sanity_check(b) {
            let _ = p.offset();
        }
    }
    for p in ix.entry_problems() {
        let _ = p.offset();
    }
    let txns: Vec<_> = ix.entries.iter().map(|e| {
        let _ = e.txn.kafka_version();
        e.txn
    }).collect();
    let whole = ix.entries.len() * ENTRY_SIZE;
    assert_eq!(encode_txn_index(&txns), bytes[..whole].to_vec());
});
