//! A shallow scan reads only slot 0 and the last 8 KiB of a big offset or time index
//! (`ScanDepth::Tail`); `Headers` and `Verify` read every slot. On segments whose indexes are
//! larger than that, the two depths must agree on every index summary of a healthy dir and on
//! every finding about a damaged tail, and the shallow scan must miss only what lies before the
//! tail (pinned here, documented on `ScanDepth::Tail`). The segments: the real broker's
//! (`fixtures/big-index`: an index entry per batch, a segment rolled by its full 48 KiB time
//! index), damaged by hand in a copy, and the synthetic generator's (written as
//! `LogSegment.append` writes them).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use logclean::model::log_dir::{load_log_dir, LogDir, Selection};
use logclean::model::segment::{LoadOptions, ScanDepth, Segment};

mod support;
use support::scratch::copy_dir_readable;

#[path = "../benches/support/generator.rs"]
mod generator;

/// A log dir and its partition dir whose segment 0 has big indexes.
struct BigIndexDir {
    _tmp: tempfile::TempDir,
    logs: PathBuf,
    partition: &'static str,
}

impl BigIndexDir {
    fn segment_file(&self, ext: &str) -> PathBuf {
        self.logs
            .join(self.partition)
            .join(format!("{:020}.{ext}", 0))
    }
}

/// A copy of the real broker's `fixtures/big-index` log dir (`wide-0`).
fn broker_dir() -> BigIndexDir {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs-0");
    copy_dir_readable(&support::fixtures_root().join("big-index/logs-0"), &logs);
    BigIndexDir {
        _tmp: tmp,
        logs,
        partition: "wide-0",
    }
}

/// One partition of three 1 MiB segments with `index.interval.bytes=128`: an entry per batch,
/// about 6,000 per segment (46 KiB `.index`, 69 KiB `.timeindex`, both over the tail window).
fn generated_dir() -> BigIndexDir {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs-0");
    let spec = generator::GenSpec {
        topics: vec![generator::TopicSpec {
            name: "big".into(),
            partitions: 1,
            compact: false,
        }],
        segments: 3,
        segment_bytes: 1 << 20,
        record_bytes: 100,
        batch_records: 1,
        index_interval_bytes: 128,
        producers: 0,
        ..generator::GenSpec::default()
    };
    generator::generate(&logs, &spec);
    BigIndexDir {
        _tmp: tmp,
        logs,
        partition: "big-0",
    }
}

fn load(logs: &Path, depth: ScanDepth) -> LogDir {
    let opts = LoadOptions {
        depth,
        ..LoadOptions::default()
    };
    load_log_dir(logs, &Selection::default(), &opts, &|| {}).unwrap()
}

fn segments<'a>(d: &'a LogDir, partition: &str) -> &'a [Segment] {
    &(d.partitions.iter())
        .find(|p| p.dir_name == partition)
        .unwrap()
        .segments
}

/// Every slot of `path` after the first `from` bytes rewritten by `f(slot bytes)`.
fn rewrite(path: &Path, slot_size: usize, slots: std::ops::Range<usize>, f: impl Fn(&mut [u8])) {
    let mut b = fs::read(path).unwrap();
    for s in slots {
        f(&mut b[s * slot_size..(s + 1) * slot_size]);
    }
    fs::write(path, b).unwrap();
}

/// The findings of `logclean diagnose` (`--deep` when `deep`) about segment 0's indexes:
/// code, byte offset and evidence.
fn index_findings(logs: &Path, deep: bool) -> Vec<Value> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_logclean"));
    cmd.args(["--format", "json", "--no-progress", "diagnose"]);
    if deep {
        cmd.arg("--deep");
    }
    let out = cmd.arg(logs).output().unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut found: Vec<Value> = (doc["findings"].as_array().unwrap().iter())
        .filter(|f| {
            let code = f["code"].as_str().unwrap();
            (code.starts_with("index.") || code.starts_with("timeindex."))
                && f["location"]["segment"] == 0
        })
        .map(|f| {
            serde_json::json!({
                "code": f["code"],
                "byte_offset": f["location"]["byte_offset"],
                "evidence": f["evidence"],
            })
        })
        .collect();
    found.sort_by_key(|f| f.to_string());
    found
}

/// The same findings, with the evidence a shallow scan adds (the slots it did not read)
/// removed and returned.
fn without_not_read(mut found: Vec<Value>) -> (Vec<Value>, Vec<u64>) {
    let mut not_read = Vec::new();
    for f in &mut found {
        let ev = f["evidence"].as_array_mut().unwrap();
        ev.retain(|e| {
            let is = e["name"] == "slots_not_read";
            if is {
                not_read.push(e["value"].as_u64().unwrap());
            }
            !is
        });
    }
    (found, not_read)
}

/// The findings of `found` with `code`.
fn with_code(found: &[Value], code: &str) -> Vec<Value> {
    (found.iter())
        .filter(|f| f["code"] == code)
        .cloned()
        .collect()
}

#[test]
fn a_healthy_big_index_summarises_alike_from_its_tail_and_whole() {
    for dir in [broker_dir(), generated_dir()] {
        healthy_alike(&dir);
    }
}

fn healthy_alike(dir: &BigIndexDir) {
    let index_len = fs::metadata(dir.segment_file("index")).unwrap().len();
    let time_len = fs::metadata(dir.segment_file("timeindex")).unwrap().len();
    assert!(
        index_len > 32_000 && time_len > 48_000,
        "{index_len} {time_len}"
    );
    let logs = &dir.logs;
    let (tail, headers) = (load(logs, ScanDepth::Tail), load(logs, ScanDepth::Headers));
    let (tail, headers) = (
        segments(&tail, dir.partition),
        segments(&headers, dir.partition),
    );
    assert!(tail.len() >= 2);
    for (t, h) in tail.iter().zip(headers) {
        let mut ti = t.index.clone().unwrap().unwrap();
        let hi = h.index.clone().unwrap().unwrap();
        let mut tt = t.time_index.clone().unwrap().unwrap();
        let ht = h.time_index.clone().unwrap().unwrap();
        // Segment 0's indexes are over twice the window: read as tails.
        if t.base_offset.get() == 0 {
            assert!(ti.shape.slots_not_read > 2000, "{:?}", ti.shape);
            assert!(tt.shape.slots_not_read > 2000, "{:?}", tt.shape);
        }
        assert_eq!(hi.shape.slots_not_read, 0);
        ti.shape.slots_not_read = 0;
        tt.shape.slots_not_read = 0;
        assert_eq!(ti, hi, "segment {}", t.base_offset.get());
        assert_eq!(tt, ht, "segment {}", t.base_offset.get());
        let (tl, hl) = (t.log_summary().unwrap(), h.log_summary().unwrap());
        assert_eq!(
            (tl.next_offset, tl.first_batch, tl.last_batch, &tl.end),
            (hl.next_offset, hl.first_batch, hl.last_batch, &hl.end)
        );
    }
    assert!(index_findings(logs, false).is_empty());
    assert!(index_findings(logs, true).is_empty());
}

#[test]
fn damage_in_the_tail_is_found_alike_and_damage_before_it_only_deep() {
    let dir = broker_dir();
    let logs = &dir.logs;
    let index = dir.segment_file("index");
    let time = dir.segment_file("timeindex");
    let pristine_index = fs::read(&index).unwrap();
    let pristine_time = fs::read(&time).unwrap();
    let slots = pristine_index.len() / 8;
    let time_slots = pristine_time.len() / 12;
    let restore = || {
        fs::write(&index, &pristine_index).unwrap();
        fs::write(&time, &pristine_time).unwrap();
    };
    let zero = |b: &mut [u8]| b.fill(0);
    let garbage = |b: &mut [u8]| b.fill(0x11);

    // A zero-filled tail inside the window (a crash before the trim): found alike.
    rewrite(&index, 8, slots - 50..slots, zero);
    let (shallow, not_read) = without_not_read(index_findings(logs, false));
    assert_eq!(shallow, index_findings(logs, true));
    assert_eq!(shallow.len(), 1, "{shallow:#?}");
    assert_eq!(shallow[0]["code"], "index.zero_tail");
    assert_eq!(not_read, [(slots - 1024) as u64 - 1]);
    restore();

    // A zero tail longer than the window: the shallow scan reads the whole file.
    rewrite(&index, 8, slots - 2000..slots, zero);
    let (shallow, not_read) = without_not_read(index_findings(logs, false));
    assert_eq!(shallow, index_findings(logs, true));
    assert_eq!(shallow[0]["code"], "index.zero_tail");
    assert!(not_read.is_empty());
    restore();

    // Entries out of order in the tail: found alike, at the same slot.
    rewrite(&index, 8, slots - 10..slots - 9, garbage);
    let (shallow, _) = without_not_read(index_findings(logs, false));
    let deep = index_findings(logs, true);
    let bad = |f: &[Value]| with_code(f, "index.bad_entries");
    assert_eq!(bad(&shallow).len(), 1, "{shallow:#?}");
    assert_eq!(bad(&shallow), bad(&deep));
    restore();

    // A time index whose last slot is below slot 0: Kafka's sanity check fails, found alike.
    rewrite(&time, 12, time_slots - 1..time_slots, |b| {
        b[..8].copy_from_slice(&1i64.to_be_bytes())
    });
    let (shallow, _) = without_not_read(index_findings(logs, false));
    let sanity = |f: &[Value]| with_code(f, "timeindex.sanity_failed");
    assert_eq!(sanity(&shallow).len(), 1, "{shallow:#?}");
    assert_eq!(sanity(&shallow), sanity(&index_findings(logs, true)));
    restore();

    // Entries out of order before the tail: only the deep scan (and inspect) reads them.
    rewrite(&index, 8, 100..101, garbage);
    assert!(bad(&without_not_read(index_findings(logs, false)).0).is_empty());
    assert_eq!(bad(&index_findings(logs, true)).len(), 1);
    restore();

    // Entries that go back before slot 0's in the tail: the tail cannot tell where the valid
    // prefix ends, so the whole file is read and the finding is the deep one.
    rewrite(&index, 8, slots - 1024..slots, zero);
    rewrite(&index, 8, slots - 1024..slots - 1023, |b| {
        b.copy_from_slice(&[0, 0, 0, 0, 0, 0, 0, 1])
    });
    let (shallow, not_read) = without_not_read(index_findings(logs, false));
    assert_eq!(shallow, index_findings(logs, true));
    assert!(not_read.is_empty());
    restore();
}
