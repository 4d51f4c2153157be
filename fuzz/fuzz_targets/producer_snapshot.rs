//! Producer-state snapshots: verified and unverified parse, accessors, encode round trip.
#![no_main]
use libfuzzer_sys::fuzz_target;
use logclean::formats::producer_snapshot::{
    encode_producer_snapshot, parse_producer_snapshot, parse_producer_snapshot_unverified,
};

fuzz_target!(|data: &[u8]| {
    let verified = parse_producer_snapshot(data);
    if let Ok(s) = parse_producer_snapshot_unverified(data) {
        assert_eq!(verified.is_ok(), s.crc_ok());
        for e in &s.entries {
            let _ = e.open_txn_first_offset();
        }
        let enc = encode_producer_snapshot(&s.entries);
        let again = parse_producer_snapshot(&enc).expect("re-parse of encoded snapshot");
        assert_eq!(again.entries, s.entries);
        assert_eq!(again.trailing_bytes, 0);
    } else {
        assert!(verified.is_err());
    }
});
