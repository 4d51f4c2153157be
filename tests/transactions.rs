//! `logclean transactions` on the real Kafka 4.4 fixture `fixtures/transactions`: the
//! transactional ids' states are the scenario's, the last stable and high watermark offsets equal
//! what the broker reported (`manifest.json` `partitions`), whether the producer-state replay
//! starts from the snapshots or from the log, and a transaction whose coordinator state is gone
//! is hanging with the exact abort command. On `fixtures/expired-hanging` the transaction
//! `kafka-transactions.sh find-hanging` reported as hanging on the live broker (its coordinator
//! state was lost) is the one hanging here, with the same producer, epoch and start offset.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;
use support::fixtures_root;
use support::scratch::copy_dir;

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The scenario dir: `fixtures/transactions`, or under `LOGCLEAN_FIXTURES_DIR` (conformance/run points it
/// at the dirs a fresh broker just wrote).
fn fixture() -> PathBuf {
    fixtures_root().join("transactions")
}

/// `--now` at `minutes` from the scenario's base time, in ms.
fn at(minutes: i64) -> String {
    let m: Value =
        serde_json::from_slice(&std::fs::read(fixture().join("manifest.json")).unwrap()).unwrap();
    (m["base_time_ms"].as_i64().unwrap() + minutes * 60_000).to_string()
}

/// Run `logclean --format json transactions logs-0 --server-properties server.properties
/// --now NOW` in `dir`: the document and the exit code.
fn transactions(dir: &Path, now: &str) -> (Value, i32) {
    let out = support::logclean_capped(support::MEMORY_CAP_BYTES, false)
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

/// The manifest's `hanging_transactions` (the harness's reading of find-hanging's Admin
/// answers): (topic, partition, start offset).
fn manifest_hanging(m: &Value) -> Vec<(String, i64, i64)> {
    m["hanging_transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["topic"].as_str().unwrap().to_string(),
                h["partition"].as_i64().unwrap(),
                h["start_offset"].as_i64().unwrap(),
            )
        })
        .collect()
}

fn codes(doc: &Value) -> Vec<&str> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect()
}

fn copy() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("transactions");
    copy_dir(&fixture(), &root);
    (tmp, root)
}

/// The offsets every replay must give: the broker's (manifest of the scenario in `dir`), the
/// open transaction of tx-open at the last stable offset of txn-compacted-0.
fn check_against_manifest(dir: &Path, doc: &Value) {
    let m: Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
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
    // Admin.describeProducers on the live broker: every producer with a transaction open is an
    // open transaction here with the same start offset, epoch and last timestamp; no other one.
    let mut want = Vec::new();
    for p in m["producers"].as_array().unwrap() {
        let start = p["current_transaction_start_offset"].as_i64().unwrap();
        if start >= 0 {
            want.push((
                p["topic"].as_str().unwrap().to_string(),
                p["partition"].as_i64().unwrap(),
                p["producer_id"].as_i64().unwrap(),
                p["producer_epoch"].as_i64().unwrap(),
                start,
                p["last_timestamp_ms"].as_i64().unwrap(),
            ));
        }
    }
    let got: Vec<_> = doc["open_transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["topic"].as_str().unwrap().to_string(),
                t["partition"].as_i64().unwrap(),
                t["producer_id"].as_i64().unwrap(),
                t["producer_epoch"].as_i64().unwrap(),
                t["first_offset"].as_i64().unwrap(),
                t["last_timestamp_ms"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, want);
    assert_eq!(want.len(), 1, "the scenario leaves one open transaction");
    // tx-open's records carry the producer's timestamps base-2h, base-2h+1s, base-2h+2s.
    let base = m["base_time_ms"].as_i64().unwrap();
    assert_eq!(
        doc["open_transactions"][0]["open_since_ms"],
        base - 7_200_000
    );
}

/// The coordinator's transactions (Admin.listTransactions / describeTransactions) equal the
/// transactional ids' states replayed from `__transaction_state`.
fn check_coordinator_state(doc: &Value, m: &Value) {
    let norm = |s: &str| s.replace('_', "").to_lowercase();
    let rows = |v: &Value| -> Vec<(String, i64, String, Value)> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t["transactional_id"].as_str().unwrap().to_string(),
                    t["producer_id"].as_i64().unwrap(),
                    norm(t["state"].as_str().unwrap()),
                    t["partitions"].clone(),
                )
            })
            .collect()
    };
    assert_eq!(rows(&doc["transactional_ids"]), rows(&m["transactions"]));
}

/// The transactions scenario on Kafka 3.9.1 (`fixtures/zk391-transactions`, ZooKeeper mode;
/// `fixtures/kraft391-transactions`, KRaft): the stable offsets, the open transaction and the
/// transactional ids' states equal the 3.9.1 broker's Admin API answers (describeProducers,
/// listTransactions/describeTransactions, find-hanging), as on 4.4. The 3.9 rules apply (the
/// files tell: ZooKeeper layout, or `metadata.version` 3.9-IV0) and are said.
#[test]
fn the_3_9_1_scenarios_equal_their_brokers_admin_api() {
    for scenario in ["zk391-transactions", "kraft391-transactions"] {
        let dir = fixtures_root().join(scenario);
        let m: Value =
            serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
        assert_eq!(m["kafka_version"], "3.9.1", "{scenario}");
        let (doc, _) = transactions(&dir, m["captured_at"].as_str().unwrap());
        assert_eq!(
            doc["assumptions"]["kafka_version"]["applied"], "3.9",
            "{scenario}"
        );
        check_against_manifest(&dir, &doc);
        check_coordinator_state(&doc, &m);
        let hanging: Vec<(String, i64, i64)> = doc["open_transactions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["verdict"] == "hanging")
            .map(|t| {
                (
                    t["topic"].as_str().unwrap().to_string(),
                    t["partition"].as_i64().unwrap(),
                    t["first_offset"].as_i64().unwrap(),
                )
            })
            .collect();
        assert_eq!(hanging, manifest_hanging(&m), "{scenario}");
    }
}

#[test]
fn states_and_stable_offsets_equal_the_brokers() {
    let (doc, exit) = transactions(&fixture(), &at(0));
    assert_eq!(doc["command"], "transactions");
    assert_eq!(doc["transaction_max_timeout_ms"], 7_200_000);
    check_against_manifest(&fixture(), &doc);
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
    let m: Value =
        serde_json::from_slice(&std::fs::read(fixture().join("manifest.json")).unwrap()).unwrap();
    check_coordinator_state(&doc, &m);
    // find-hanging on the live broker (at capture time) found what logclean finds then.
    let captured = m["captured_at"].as_str().unwrap();
    let (at_capture, _) = transactions(&fixture(), captured);
    let hanging: Vec<(String, i64, i64)> = at_capture["open_transactions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["verdict"] == "hanging")
        .map(|t| {
            (
                t["topic"].as_str().unwrap().to_string(),
                t["partition"].as_i64().unwrap(),
                t["first_offset"].as_i64().unwrap(),
            )
        })
        .collect();
    let want = manifest_hanging(&m);
    assert_eq!(hanging, want);
    let t = &doc["open_transactions"][0];
    assert_eq!(t["transactional_id"], "tx-open");
    // Open 2 h minus 2 s: past its own 1 h timeout, under transaction.max.timeout.ms 2 h.
    assert_eq!(t["verdict"], "open_long");
    assert!(t["abort_command"].is_null());
    assert_eq!((codes(&doc), exit), (vec!["txn.open_long"], 1));
    let (doc, exit) = transactions(&fixture(), &at(-90));
    assert_eq!(doc["open_transactions"][0]["verdict"], "open");
    assert_eq!((codes(&doc), exit), (vec![], 0));
    // Past the max timeout the coordinator still tracks it: not hanging (find-hanging's rule).
    let (doc, _) = transactions(&fixture(), &at(180));
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
    let (doc, _) = transactions(&root, &at(0));
    check_against_manifest(&fixture(), &doc);
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
    // No snapshot left: after an unclean shutdown the broker replays from the log start.
    std::fs::remove_file(root.join("logs-0/.kafka_cleanshutdown")).unwrap();
    let (doc, _) = transactions(&root, &at(0));
    check_against_manifest(&fixture(), &doc);
    assert!(doc["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["snapshot_offset"].is_null()));
}

/// After a clean shutdown with no producer snapshot at all the broker loads no producer state
/// (`UnifiedLog.rebuildProducerState`: the upgrade case; it writes empty snapshots instead of
/// scanning), so its last stable offset is not held: no partition is replayed here either,
/// and no transaction is open. The same dir without its clean-shutdown marker replays the log.
#[test]
fn after_a_clean_shutdown_without_snapshots_no_producer_state_is_loaded() {
    let (_tmp, root) = copy();
    for dir in ["txn-0", "txn-compacted-0"] {
        for e in std::fs::read_dir(root.join("logs-0").join(dir)).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == "snapshot") {
                std::fs::remove_file(path).unwrap();
            }
        }
    }
    let (doc, exit) = transactions(&root, &at(0));
    assert_eq!(doc["partitions"].as_array().unwrap().len(), 0, "{doc}");
    assert_eq!(doc["open_transactions"].as_array().unwrap().len(), 0);
    assert_eq!((codes(&doc), exit), (vec![], 0));
    std::fs::remove_file(root.join("logs-0/.kafka_cleanshutdown")).unwrap();
    let (doc, _) = transactions(&root, &at(0));
    check_against_manifest(&fixture(), &doc);
}

#[test]
fn a_transaction_its_coordinator_lost_hangs() {
    let (_tmp, root) = copy();
    let tsp = root.join("logs-0/__transaction_state-0");
    std::fs::write(tsp.join("00000000000000000000.log"), b"").unwrap();
    let (doc, exit) = transactions(&root, &at(180));
    let t = &doc["open_transactions"][0];
    assert_eq!(t["verdict"], "hanging");
    assert!(t["transactional_id"].is_null());
    let cmd = "kafka-transactions.sh --bootstrap-server HOST:PORT abort --topic txn-compacted --partition 0 --start-offset 6";
    assert_eq!(t["abort_command"], cmd);
    assert_eq!((codes(&doc), exit), (vec!["txn.hanging"], 1));
    assert_eq!(doc["findings"][0]["fix"], cmd);
    // Without its coordinator's state only transaction.max.timeout.ms (2 h) counts: at the base
    // time its last batch is 2 h minus 2 s old.
    let (doc, exit) = transactions(&root, &at(0));
    assert_eq!(doc["open_transactions"][0]["verdict"], "open");
    assert_eq!((codes(&doc), exit), (vec![], 0));
}

/// find-hanging's rows on the live broker (`manifest.json` `find_hanging`: the tool's Admin calls,
/// `--broker-id 1 --max-transaction-timeout 15`, after the broker restarted without its
/// `__transaction_state` dirs) are exactly the hanging transactions here at the capture time:
/// topic, partition, producer id and epoch, start offset, last batch time; the coordinator knows
/// no transactional id; the abort line is kafka-transactions.sh's (tests/diagnose.rs: diagnose too).
#[test]
fn the_transaction_find_hanging_reported_is_hanging_here() {
    let dir = fixtures_root().join("expired-hanging");
    let m: Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let captured = m["captured_at"].as_str().unwrap();
    let (doc, exit) = transactions(&dir, captured);
    let row = |t: &Value, start: &str| {
        (
            t["topic"].as_str().unwrap().to_string(),
            t["partition"].as_i64().unwrap(),
            t["producer_id"].as_i64().unwrap(),
            t["producer_epoch"].as_i64().unwrap(),
            t[start].as_i64().unwrap(),
            t["last_timestamp_ms"].as_i64().unwrap(),
        )
    };
    let want: Vec<_> = m["find_hanging"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| row(h, "start_offset"))
        .collect();
    assert_eq!(want.len(), 1, "the scenario leaves one hanging transaction");
    let hanging: Vec<&Value> = doc["open_transactions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["verdict"] == "hanging")
        .collect();
    let got: Vec<_> = hanging.iter().map(|t| row(t, "first_offset")).collect();
    assert_eq!(got, want);
    // The harness's own reading of the same Admin answers agrees.
    let captured_rule = manifest_hanging(&m);
    assert_eq!(captured_rule, [(want[0].0.clone(), want[0].1, want[0].4)]);
    let t = hanging[0];
    assert!(t["transactional_id"].is_null());
    // tx-hang's records carry the producer's timestamps base-3h, +1 s, +2 s.
    let base = m["base_time_ms"].as_i64().unwrap();
    assert_eq!(t["open_since_ms"], base - 10_800_000);
    let cmd = "kafka-transactions.sh --bootstrap-server HOST:PORT abort --topic hang --partition 0 --start-offset 3";
    assert_eq!(t["abort_command"], cmd);
    assert_eq!((codes(&doc), exit), (vec!["txn.hanging"], 1));
    assert_eq!(doc["findings"][0]["fix"], cmd);
    // The coordinator lost every transactional id (listTransactions was empty).
    assert_eq!(doc["transactional_ids"], serde_json::json!([]));
    assert_eq!(m["transactions"], serde_json::json!([]));
    for p in doc["partitions"].as_array().unwrap() {
        let w = m["partitions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["topic"] == p["topic"] && w["partition"] == p["partition"])
            .unwrap();
        for key in ["last_stable_offset", "high_watermark", "log_end_offset"] {
            assert_eq!(p[key], w[key], "{key}: {p}");
        }
    }
    // An hour after its last batch it is not past transaction.max.timeout.ms (2 h) yet.
    let (doc, exit) = transactions(&dir, &(want[0].5 + 3_600_000).to_string());
    assert_eq!(doc["open_transactions"][0]["verdict"], "open");
    assert_eq!((codes(&doc), exit), (vec![], 0));
}
