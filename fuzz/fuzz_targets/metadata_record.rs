//! KRaft metadata record values (`__cluster_metadata` log and snapshots): frame + body decode of
//! arbitrary bytes must never panic, and a decoded frame must lie inside the input.
#![no_main]
use libfuzzer_sys::fuzz_target;
use logclean::formats::metadata_record::{
    decode_frame, decode_metadata_record, record_type_name, supported_versions,
};

fuzz_target!(|data: &[u8]| {
    if let Ok(frame) = decode_frame(data) {
        assert!(frame.body_start <= data.len());
        let _ = record_type_name(frame.api_key);
        let _ = supported_versions(frame.api_key);
    }
    let _ = decode_metadata_record(data);
});
