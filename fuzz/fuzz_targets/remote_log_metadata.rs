//! `__remote_log_metadata` record values (tiered storage): decoding arbitrary bytes must never
//! panic; a decoded record keeps its apiKey, and the partitioner stays in range for any topic id
//! and partition taken from the input.
#![no_main]
use libfuzzer_sys::fuzz_target;
use logclean::formats::remote_log_metadata::{
    decode_remote_log_metadata, metadata_partition, RemoteLogMetadataRecord,
};

fuzz_target!(|data: &[u8]| {
    if let Ok(r) = decode_remote_log_metadata(data) {
        assert!(r.api_key() <= 3);
        if let RemoteLogMetadataRecord::Segment(s) = &r {
            let tp = &s.topic_id_partition;
            for n in [1u32, 5, 50] {
                let m = metadata_partition(tp.topic_id, tp.partition, n).unwrap();
                assert!(m < n);
            }
        }
    }
});
