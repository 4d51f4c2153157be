//! `logclean transactions` on the real Kafka 4.4 fixture `fixtures/transactions`: the
//! transactional ids' states are the scenario's, the last stable and high watermark offsets equal
//! what the broker reported (`manifest.json` `partitions`), whether the producer-state replay
//! starts from the snapshots or from the log, and a transaction whose coordinator state is gone
//! is hanging with the exact abort command.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/transactions")
}

/// Run `logclean --format json transactions logs-0 --server-properties server.properties
/// --now NOW` in `dir`: the document and the exit code.
fn transactions(dir: &Path, now: &str) -> (Value, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_logclean"))
        .current_dir(dir)
        .args([
            "--format",
            "json",
            "--no-progress",
            "transactions",
            "logs-0",
        ])
        .args(["--server-properties", "server.properties", "--now", now])
        .output()
        .unwrap();
    let doc = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (doc, out.status.code().unwrap())
}

fn codes(doc: &Value) -> Vec<&str> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect()
}

const BASE: &str = "2026-11-30T13:33:00Z";

fn copy() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("transactions");
    copy_dir(&fixture(), &root);
    (tmp, root)
}

/// The offsets every replay must give: the broker's (manifest), the open transaction of
/// tx-open at the last stable offset of txn-compacted-0.
fn check_against_manifest(doc: &Value) {
    let m: Value =
        serde_json::from_slice(&std::fs::read(fixture().join("manifest.json")).unwrap()).unwrap();
    let parts = doc["partitions"].as_array().unwrap();
    assert_eq!(parts.len(), 2, "{parts:?}");
    for p in parts {
        let want = m["partitions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["topic"] == p["topic"] && w["partition"] == p["partition"])
            .unwrap();
        for key in ["last_stable_offset", "high_watermark", "log_end_offset"] {
            assert_eq!(p[key], want[key], "{key}: {p}");
        }
    }
    let open = doc["open_transactions"].as_array().unwrap();
    assert_eq!(open.len(), 1, "{open:?}");
    let t = &open[0];
    assert_eq!(
        (t["topic"].as_str(), t["partition"].as_i64()),
        (Some("txn-compacted"), Some(0))
    );
    assert_eq!(t["first_offset"], 6);
    // tx-open's records carry the producer's timestamps base-2h, base-2h+1s, base-2h+2s.
    assert_eq!(t["open_since_ms"], 1_796_038_380_000_i64);
    assert_eq!(t["last_timestamp_ms"], 1_796_038_382_000_i64);
}

#[test]
fn states_and_stable_offsets_equal_the_brokers() {
    let (doc, exit) = transactions(&fixture(), BASE);
    assert_eq!(doc["command"], "transactions");
    assert_eq!(doc["transaction_max_timeout_ms"], 7_200_000);
    check_against_manifest(&doc);
    let ids: Vec<(&str, &str)> = doc["transactional_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["transactional_id"].as_str().unwrap(),
                t["state"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(ids, [("tx-main", "CompleteCommit"), ("tx-open", "Ongoing")]);
    let t = &doc["open_transactions"][0];
    assert_eq!(t["transactional_id"], "tx-open");
    // Open 2 h minus 2 s: past its own 1 h timeout, under transaction.max.timeout.ms 2 h.
    assert_eq!(t["verdict"], "open_long");
    assert!(t["abort_command"].is_null());
    assert_eq!((codes(&doc), exit), (vec!["txn.open_long"], 1));
    let (doc, exit) = transactions(&fixture(), "2026-11-30T12:03:00Z");
    assert_eq!(doc["open_transactions"][0]["verdict"], "open");
    assert_eq!((codes(&doc), exit), (vec![], 0));
    // Past the max timeout the coordinator still tracks it: not hanging (find-hanging's rule).
    let (doc, _) = transactions(&fixture(), "2026-11-30T16:33:00Z");
    assert_eq!(codes(&doc), ["txn.open_long"]);
}

#[test]
fn replay_from_the_log_gives_the_same_answer_as_from_the_snapshots() {
    let (_tmp, root) = copy();
    for p in [
        "txn-0/00000000000000000025.snapshot",
        "txn-compacted-0/00000000000000000013.snapshot",
    ] {
        std::fs::remove_file(root.join("logs-0").join(p)).unwrap();
    }
    let (doc, _) = transactions(&root, BASE);
    check_against_manifest(&doc);
    let snap: Vec<Value> = doc["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["snapshot_offset"].clone())
        .collect();
    assert_eq!(snap, [4, 5]);
    for p in doc["partitions"].as_array().unwrap() {
        assert!(p["batches_replayed"].as_u64().unwrap() > 0, "{p}");
    }
    for p in [
        "txn-0/00000000000000000004.snapshot",
        "txn-compacted-0/00000000000000000005.snapshot",
    ] {
        std::fs::remove_file(root.join("logs-0").join(p)).unwrap();
    }
    let (doc, _) = transactions(&root, BASE);
    check_against_manifest(&doc);
    assert!(doc["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["snapshot_offset"].is_null()));
}

#[test]
fn a_transaction_its_coordinator_lost_hangs() {
    let (_tmp, root) = copy();
    let tsp = root.join("logs-0/__transaction_state-0");
    std::fs::write(tsp.join("00000000000000000000.log"), b"").unwrap();
    let (doc, exit) = transactions(&root, "2026-11-30T16:33:00Z");
    let t = &doc["open_transactions"][0];
    assert_eq!(t["verdict"], "hanging");
    assert!(t["transactional_id"].is_null());
    let cmd = "kafka-transactions.sh --bootstrap-server HOST:PORT abort --topic txn-compacted --partition 0 --start-offset 6";
    assert_eq!(t["abort_command"], cmd);
    assert_eq!((codes(&doc), exit), (vec!["txn.hanging"], 1));
    assert_eq!(doc["findings"][0]["fix"], cmd);
    // Without its coordinator's state only transaction.max.timeout.ms (2 h) counts: at the base
    // time its last batch is 2 h minus 2 s old.
    let (doc, exit) = transactions(&root, BASE);
    assert_eq!(doc["open_transactions"][0]["verdict"], "open");
    assert_eq!((codes(&doc), exit), (vec![], 0));
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}
