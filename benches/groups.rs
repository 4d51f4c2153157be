//! Group-state replay benchmark (plain `harness = false` main; prints figures, asserts the
//! replayed state but nothing about time).
//!
//! A synthetic, valid `__consumer_offsets` partition of 1 GB (small mode: 64 MB), built as ten
//! (small: four) segments of uncompressed v2 batches of 10 offset-commit records each (key
//! `OffsetCommitKey`, value `OffsetCommitValue` v3, CRC-32C set; encoders of
//! benches/support/generator.rs), for 2,000 groups × 20
//! topic-partitions committed again and again; every 50th batch a transactional one (its
//! offsets committed by a COMMIT marker batch right after), and every 1009th record a tombstone.
//! Each segment is generated in memory and then replayed with `model::groups::replay_bytes` into
//! one `GroupState` (generation not timed): MB/s of segment bytes and records/s.
//!
//! Run: `cargo bench --bench groups`, or `LOGCLEAN_BENCH_SMALL=1 cargo bench --bench groups`.

// Benchmark code over data it generates itself: a panic here is a failed benchmark run.
#![allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use logclean::model::groups::{GroupState, PartitionReplay};

#[path = "support/generator.rs"]
mod generator;

use generator::{offset_commit_key, offset_commit_value, push_batch, BatchMeta, Codec, Rec};

/// One v2 batch of `records` (key, value) at `base`, all stamped `ts`; `attributes` bit 4:
/// transactional, bit 5: control (the generator's encoder, benches/support/generator.rs).
fn batch(
    out: &mut Vec<u8>,
    base: i64,
    ts: i64,
    pid: i64,
    attributes: i16,
    records: &[(Vec<u8>, Option<Vec<u8>>)],
) {
    let recs: Vec<Rec> = records
        .iter()
        .map(|(k, v)| Rec {
            ts,
            key: Some(k.clone()),
            value: v.clone(),
        })
        .collect();
    let meta = BatchMeta {
        base_offset: base,
        leader_epoch: 0,
        codec: Codec::None,
        producer_id: pid,
        producer_epoch: if pid < 0 { -1 } else { 0 },
        base_sequence: if pid < 0 { -1 } else { 0 },
        attributes,
    };
    push_batch(out, &meta, &recs);
}

const GROUPS: u64 = 2_000;
const PARTS: u64 = 20;

/// A segment of about `bytes` starting at offset `*next`.
fn segment(bytes: usize, next: &mut i64, n: &mut u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes + 4096);
    let mut batches = 0u64;
    while out.len() < bytes {
        let txn = batches % 50 == 49;
        let recs: Vec<(Vec<u8>, Option<Vec<u8>>)> = (0..10)
            .map(|_| {
                *n += 1;
                let g = *n % GROUPS;
                let p = (*n / GROUPS) % PARTS;
                let k = offset_commit_key(
                    &format!("group-{g:05}"),
                    &format!("topic-{}", p / 4),
                    (p % 4) as i32,
                );
                let v = (*n % 1009 != 0)
                    .then(|| offset_commit_value(*n as i64, 0, 1_796_000_000_000 + *n as i64));
                (k, v)
            })
            .collect();
        let pid = if txn { 7 } else { -1 };
        batch(
            &mut out,
            *next,
            1_796_000_000_000,
            pid,
            if txn { 0x10 } else { 0 },
            &recs,
        );
        *next += 10;
        if txn {
            // COMMIT marker: control record key (version 0, type 1), value (version 0, epoch 0).
            let marker = (vec![0, 0, 0, 1], Some(vec![0, 0, 0, 0, 0, 0]));
            batch(&mut out, *next, 1_796_000_000_000, 7, 0x30, &[marker]);
            *next += 1;
        }
        batches += 1;
    }
    out
}

fn main() {
    let small = std::env::var_os("LOGCLEAN_BENCH_SMALL").is_some();
    let (segments, seg_bytes) = if small {
        (4, 16_000_000)
    } else {
        (10, 100_000_000)
    };
    let mut state = GroupState::default();
    let (mut next, mut n) = (0i64, 0u64);
    let mut elapsed = Duration::ZERO;
    let mut total = 0usize;
    for _ in 0..segments {
        let bytes = segment(seg_bytes, &mut next, &mut n);
        total += bytes.len();
        let t = Instant::now();
        let mut replay = PartitionReplay::new(&mut state, 0);
        logclean::model::groups::replay_bytes(&mut replay, &bytes, 0);
        elapsed += t.elapsed();
    }
    assert!(
        state.bad_records.is_empty(),
        "{:?}",
        state.bad_records.first()
    );
    assert_eq!(state.groups.len() as u64, GROUPS);
    let offsets: usize = state.groups.values().map(|g| g.offsets.len()).sum();
    let secs = elapsed.as_secs_f64();
    println!(
        "groups replay: {:.0} MB in {:.2} s: {:.0} MB/s, {:.2} M records/s ({} records, {} groups, {} offsets)",
        total as f64 / 1e6,
        secs,
        total as f64 / 1e6 / secs,
        state.records as f64 / 1e6 / secs,
        state.records,
        state.groups.len(),
        offsets
    );
}
