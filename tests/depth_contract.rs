//! The depth contract (documented on `ScanDepth`): `inspect` and `diagnose` run the same checks,
//! and a check judges only what its depth read. So on damaged copies of real fixtures:
//!
//! - at the same depth (`inspect --verify` and `diagnose --deep`, both `Verify`) the two report
//!   the same segment, index and snapshot findings;
//! - where the shallow `diagnose` (data partitions at `Tail`) reads every batch of a segment
//!   (its index has no entry past the first batch, as in the small fixture segments) it reports
//!   what `inspect` (`Headers`) reports, and exits 2 whenever `inspect` does;
//! - where it reads only a big segment's tail it reports the damage in that tail as `inspect`
//!   does, and nothing `inspect` does not; a timestamp it cannot see (the unread middle) is
//!   `inspect`'s alone.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

mod support;
use support::scratch::copy_dir_readable;

/// The finding domains both commands take from the same checks over the same files.
const SHARED_DOMAINS: &[&str] = &["log", "index", "timeindex", "txnindex", "snapshot", "file"];

/// A damaged copy of `fixtures/<fixture>/logs-0`.
struct Damaged {
    _tmp: tempfile::TempDir,
    logs: PathBuf,
}

fn damaged(fixture: &str, damage: &dyn Fn(&Path)) -> Damaged {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs-0");
    copy_dir_readable(
        &support::fixtures_root().join(fixture).join("logs-0"),
        &logs,
    );
    damage(&logs);
    Damaged { _tmp: tmp, logs }
}

/// `logclean --format json --no-progress <args> <logs>`: exit code and the shared-domain codes.
fn run(logs: &Path, args: &[&str]) -> (i32, BTreeSet<String>) {
    let out = support::logclean_capped(support::MEMORY_CAP_BYTES, false)
        .args(["--format", "json", "--no-progress"])
        .args(args)
        .arg(logs)
        .output()
        .unwrap();
    let code = out.status.code().expect("ended by a signal");
    assert_ne!(code, 101, "{args:?} panicked");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let codes = (doc["findings"].as_array().unwrap().iter())
        .map(|f| f["code"].as_str().unwrap().to_string())
        .filter(|c| SHARED_DOMAINS.contains(&c.split('.').next().unwrap()))
        .collect();
    (code, codes)
}

fn edit(path: &Path, f: impl FnOnce(&mut Vec<u8>)) {
    let mut b = fs::read(path).unwrap();
    f(&mut b);
    fs::write(path, b).unwrap();
}

/// Start positions of the batches of a `.log` (v2 headers: 8-byte offset, 4-byte length).
fn batch_positions(log: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 12 <= log.len() {
        let len = i32::from_be_bytes(log[at + 8..at + 12].try_into().unwrap());
        out.push(at);
        at += 12 + len as usize;
    }
    out
}

/// Add `delta` to the timestamp of the last entry of a `.timeindex`.
fn shift_last_timestamp(path: &Path, delta: i64) {
    edit(path, |b| {
        let n = b.len();
        let ts = i64::from_be_bytes(b[n - 12..n - 4].try_into().unwrap()) + delta;
        b[n - 12..n - 4].copy_from_slice(&ts.to_be_bytes());
    });
}

fn basic(logs: &Path, ext: &str) -> PathBuf {
    logs.join(format!("orders-0/00000000000000000004.{ext}"))
}

fn wide(logs: &Path, ext: &str) -> PathBuf {
    logs.join(format!("wide-0/00000000000000000000.{ext}"))
}

type Damage = (&'static str, fn(&Path));

/// Damage to `basic-delete`'s rolled segment 4 (and its active segment), whose indexes have no
/// entry past the first batch: the shallow scan reads every batch.
const SMALL_SEGMENT_CASES: &[Damage] = &[
    ("time index last timestamp raised", |l| {
        shift_last_timestamp(&basic(l, "timeindex"), 1)
    }),
    ("time index last timestamp lowered", |l| {
        shift_last_timestamp(&basic(l, "timeindex"), -1)
    }),
    ("time index last offset past the segment", |l| {
        edit(&basic(l, "timeindex"), |b| {
            let n = b.len();
            b[n - 4..].copy_from_slice(&100i32.to_be_bytes());
        })
    }),
    ("last batch removed at its boundary", |l| {
        edit(&basic(l, "log"), |b| {
            let last = *batch_positions(b).last().unwrap();
            b.truncate(last);
        })
    }),
    ("log cut inside its last batch", |l| {
        edit(&basic(l, "log"), |b| b.truncate(b.len() - 10))
    }),
    ("zero tail on the offset index", |l| {
        edit(&basic(l, "index"), |b| b.extend([0u8; 80]))
    }),
    ("zero tail on the time index", |l| {
        edit(&basic(l, "timeindex"), |b| b.extend([0u8; 24]))
    }),
    ("time index removed", |l| {
        fs::remove_file(basic(l, "timeindex")).unwrap()
    }),
    ("a record byte flipped (CRC)", |l| {
        edit(&basic(l, "log"), |b| {
            let second = batch_positions(b)[1];
            b[second + 70] ^= 0x40;
        })
    }),
    ("active segment's time index last timestamp lowered", |l| {
        shift_last_timestamp(&l.join("orders-0/00000000000000000032.timeindex"), -1)
    }),
];

#[test]
fn same_depth_same_findings() {
    for (what, damage) in SMALL_SEGMENT_CASES {
        let d = damaged("basic-delete", damage);
        let (inspect_code, inspect) = run(&d.logs, &["inspect", "--verify"]);
        let (diagnose_code, diagnose) = run(&d.logs, &["diagnose", "--deep"]);
        assert_eq!(inspect, diagnose, "{what}");
        if inspect_code == 2 {
            assert_eq!(diagnose_code, 2, "{what}");
        }
    }
}

#[test]
fn shallow_diagnose_reports_what_inspect_reports_where_it_reads_every_batch() {
    let mut fired = BTreeSet::new();
    for (what, damage) in SMALL_SEGMENT_CASES {
        let d = damaged("basic-delete", damage);
        let (inspect_code, inspect) = run(&d.logs, &["inspect"]);
        let (diagnose_code, diagnose) = run(&d.logs, &["diagnose"]);
        assert_eq!(inspect, diagnose, "{what}");
        assert_eq!(inspect_code == 2, diagnose_code == 2, "{what}");
        fired.extend(inspect);
    }
    // The cases do exercise the time-index comparison the shallow scan used to skip.
    assert!(fired.contains("timeindex.disagrees_with_log"), "{fired:?}");
}

#[test]
fn shallow_diagnose_judges_a_big_segment_on_its_tail() {
    // `big-index`'s wide-0 segment 0: an index entry per batch, so the shallow scan reads the
    // first batch and the batches from the last index entry on.
    let tail_cases: &[Damage] = &[
        (
            "time index last timestamp lowered below the last batch's",
            |l| shift_last_timestamp(&wide(l, "timeindex"), -1),
        ),
        ("time index last offset past the segment", |l| {
            edit(&wide(l, "timeindex"), |b| {
                let n = b.len();
                b[n - 4..].copy_from_slice(&100_000i32.to_be_bytes());
            })
        }),
        ("log cut inside its last batch", |l| {
            edit(&wide(l, "log"), |b| b.truncate(b.len() - 10))
        }),
    ];
    for (what, damage) in tail_cases {
        let d = damaged("big-index", damage);
        let (inspect_code, inspect) = run(&d.logs, &["inspect"]);
        let (diagnose_code, diagnose) = run(&d.logs, &["diagnose"]);
        assert!(!inspect.is_empty(), "{what}");
        assert_eq!(inspect, diagnose, "{what}");
        assert_eq!(inspect_code == 2, diagnose_code == 2, "{what}");
    }
    // A last entry above every timestamp the tail holds may be the largest of the unread
    // middle: only a scan of every header can tell, so it is `inspect`'s (and `--deep`'s).
    let d = damaged("big-index", &|l| {
        shift_last_timestamp(&wide(l, "timeindex"), 1)
    });
    let (_, inspect) = run(&d.logs, &["inspect"]);
    let (_, diagnose) = run(&d.logs, &["diagnose"]);
    let (_, deep) = run(&d.logs, &["diagnose", "--deep"]);
    assert!(
        inspect.contains("timeindex.disagrees_with_log"),
        "{inspect:?}"
    );
    assert!(deep.contains("timeindex.disagrees_with_log"), "{deep:?}");
    assert!(diagnose.is_subset(&inspect), "{diagnose:?} ⊄ {inspect:?}");
    assert!(
        !diagnose.contains("timeindex.disagrees_with_log"),
        "{diagnose:?}"
    );
}
