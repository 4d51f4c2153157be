//! `.index` parse plus every method of the view, with fuzzed base offset and lookup targets.
#![no_main]
use libfuzzer_sys::fuzz_target;
use logclean::formats::offset_index::{encode_offset_index, OffsetIndex};
use logclean::formats::slot_index::kafka_largest_lower_bound;

fn split8(d: &[u8]) -> (i64, &[u8]) {
    let mut a = [0u8; 8];
    let n = d.len().min(8);
    a[..n].copy_from_slice(&d[..n]);
    (i64::from_be_bytes(a), &d[n..])
}

fuzz_target!(|data: &[u8]| {
    let (base, rest) = split8(data);
    let (target, bytes) = split8(rest);
    // Also a sane base, so that a parse error on the base does not hide the rest.
    for base in [base, base & 0x0000_ffff_ffff_ffff, 0] {
        let Ok(ix) = OffsetIndex::parse(bytes, base) else { continue };
        let n = ix.slot_count();
        assert_eq!(ix.base_offset(), base);
        assert_eq!(ix.file_len(), bytes.len() as u64);
        assert!(ix.trailing_bytes() < 8);
        assert!(ix.valid_entries() <= ix.zero_tail_start());
        assert!(ix.zero_tail_start() <= n);
        let _ = (ix.zero_tail(), ix.garbage_slots());
        for s in [0, n.saturating_sub(1), n, usize::MAX, usize::MAX / 8 + 1] {
            if let Some(e) = ix.entry(s) {
                let _ = (e.is_zero(), ix.absolute(e));
            }
        }
        let slots: Vec<_> = ix.slots().collect();
        assert_eq!(slots.len(), n);
        assert_eq!(encode_offset_index(&slots), bytes[..n * 8].to_vec());
        assert_eq!(ix.valid().count(), ix.valid_entries());
        let _ = (ix.last_entry(), ix.last_valid_entry());
        for p in ix.sanity_check() {
            let _ = p.offset();
        }
        let _ = ix.entry_problems();
        for t in [target, i64::MIN, i64::MAX, base, base.saturating_add(1)] {
            let l = ix.lookup(t);
            assert!(l.slot.is_none_or(|s| s < n));
            let l = ix.lookup_valid(t);
            assert!(l.slot.is_none_or(|s| s < ix.valid_entries()));
        }
    }
    // The search itself with arbitrary geometry and keys.
    let entries = (target as u64 % 5000) as usize;
    let entry_size = (base as u64 % 20) as usize;
    let key = |i: usize| bytes.get(i % bytes.len().max(1)).map(|b| i64::from(*b) + i as i64);
    if let Some(s) = kafka_largest_lower_bound(entries, entry_size, target % 300, key) {
        assert!(s < entries);
    }
});
