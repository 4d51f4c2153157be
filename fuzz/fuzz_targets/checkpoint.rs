//! Offset checkpoints and leader-epoch checkpoints: parse, problems, encode/re-parse round trip.
#![no_main]
use libfuzzer_sys::fuzz_target;
use logclean::formats::checkpoint::{encode_offset_checkpoint, parse_offset_checkpoint};
use logclean::formats::leader_epoch::{
    encode_leader_epoch_checkpoint, leader_epoch_problems, parse_leader_epoch_checkpoint,
};

fuzz_target!(|data: &[u8]| {
    if let Ok(f) = parse_offset_checkpoint(data) {
        let values: Vec<_> = f.values().cloned().collect();
        if let Ok(bytes) = encode_offset_checkpoint(&values) {
            let again = parse_offset_checkpoint(&bytes).expect("re-parse of encoded checkpoint");
            let again: Vec<_> = again.values().cloned().collect();
            assert_eq!(values, again);
        }
    }
    if let Ok(f) = parse_leader_epoch_checkpoint(data) {
        let _ = leader_epoch_problems(&f);
        let values: Vec<_> = f.values().copied().collect();
        let bytes = encode_leader_epoch_checkpoint(&values);
        let again = parse_leader_epoch_checkpoint(&bytes).expect("re-parse of encoded epochs");
        let again: Vec<_> = again.values().copied().collect();
        assert_eq!(values, again);
    }
});
