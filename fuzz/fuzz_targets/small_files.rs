//! partition.metadata, meta.properties (and Java .properties), .kafka_cleanshutdown, topic-id
//! base64: parse, accessors, and encode/re-parse round trips.
#![no_main]
use libfuzzer_sys::fuzz_target;
use logclean::formats::clean_shutdown::{encode_clean_shutdown, parse_clean_shutdown};
use logclean::formats::meta_properties::{parse_meta_properties, parse_properties};
use logclean::formats::partition_metadata::{
    encode_partition_metadata, parse_partition_metadata, Uuid,
};

fuzz_target!(|data: &[u8]| {
    if let Ok(pm) = parse_partition_metadata(data) {
        assert!(!pm.topic_id.is_zero());
        let enc = encode_partition_metadata(pm.topic_id);
        let again = parse_partition_metadata(&enc).expect("re-parse of encoded partition.metadata");
        assert_eq!(again.topic_id, pm.topic_id);
        assert!(again.canonical);
        assert_eq!(pm.canonical, enc == data);
    }
    let _ = parse_properties(data);
    if let Ok(mp) = parse_meta_properties(data) {
        for k in ["version", "node.id", "broker.id", "cluster.id", "directory.id", ""] {
            let _ = mp.get(k);
        }
    }
    if let Ok(m) = parse_clean_shutdown(data) {
        if let Some(epoch) = m.broker_epoch() {
            let again = parse_clean_shutdown(&encode_clean_shutdown(epoch)).expect("re-parse");
            assert_eq!(again.broker_epoch(), Some(epoch));
        }
    }
    if let Ok(s) = std::str::from_utf8(data) {
        if let Ok(u) = Uuid::from_base64(s) {
            let b64 = u.to_base64();
            assert_eq!(Uuid::from_base64(&b64).expect("re-parse of to_base64"), u);
            assert_eq!(u.to_string(), b64);
        }
    }
    if data.len() >= 16 {
        let mut a = [0u8; 16];
        a.copy_from_slice(&data[..16]);
        let u = Uuid(a);
        assert_eq!(Uuid::from_base64(&u.to_base64()).expect("base64 round trip"), u);
    }
});
