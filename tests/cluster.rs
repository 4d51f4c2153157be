//! Several brokers' log dirs read together (issue 21), on the three-node fixtures a real
//! Kafka 4.4.0 cluster wrote (`rf3-retention`, `rf3-stuck-hw`; conformance/README.md): replicas
//! join by topic id and partition, per-node duplicates are not duplicates, the stuck HW under
//! min ISR is a finding with the broker's own figures from the manifest, and a follower without
//! its leader's dirs says what it assumed.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

mod support;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use support::scratch::copy_dir;

fn fixture(name: &str) -> PathBuf {
    support::fixtures_root().join(name)
}

fn manifest(root: &Path) -> Value {
    serde_json::from_slice(&fs::read(root.join("manifest.json")).unwrap()).unwrap()
}

/// Every log dir of every node, as the manifest lists them.
fn node_dirs(root: &Path) -> Vec<String> {
    let m = manifest(root);
    (m["nodes"].as_array().unwrap().iter())
        .flat_map(|n| n["log_dirs"].as_array().unwrap().iter())
        .map(|d| root.join(d.as_str().unwrap()).display().to_string())
        .collect()
}

/// `logclean --format json --no-progress COMMAND ARGS`: its document.
/// `logclean --format json COMMAND ARGS`'s document; `diagnose` is given the filesystem
/// figures [`DISK_SPACE`] unless `args` give their own (the host's are no part of a fixture,
/// and a nearly full host would add `dir.disk_full`).
fn run(command: &str, args: &[String]) -> Value {
    let mut args = args.to_vec();
    if command == "diagnose" && !args.iter().any(|a| a == "--disk-space") {
        args.extend(["--disk-space".into(), DISK_SPACE.into()]);
    }
    let out = Command::new(env!("CARGO_BIN_EXE_logclean"))
        .args(["--format", "json", "--no-progress", command])
        .args(&args)
        .output()
        .unwrap();
    assert_ne!(
        out.status.code(),
        Some(101),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn evidence<'a>(item: &'a Value, name: &str) -> &'a Value {
    let ev = item["evidence"].as_array().unwrap();
    &(ev.iter())
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no {name}"))["value"]
}

fn codes(doc: &Value) -> Vec<String> {
    (doc["findings"].as_array().unwrap().iter())
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}

fn base_time(root: &Path) -> String {
    manifest(root)["base_time"].as_str().unwrap().to_string()
}

#[test]
fn the_stuck_high_watermark_is_a_finding_with_the_brokers_figures() {
    let root = fixture("rf3-stuck-hw");
    let m = manifest(&root);
    let facts = &m["facts"]["after_acks1_writes"];
    let mut args = node_dirs(&root);
    args.extend(["--now".into(), base_time(&root)]);
    let doc = run("diagnose", &args);
    let codes = codes(&doc);
    // One replica per node is not a duplicate.
    assert!(
        !codes.iter().any(|c| c == "partition.duplicate"),
        "{codes:?}"
    );
    assert!(
        !codes.iter().any(|c| c == "partition.replicas_diverge"),
        "{codes:?}"
    );
    let held: Vec<&Value> = (doc["findings"].as_array().unwrap().iter())
        .filter(|f| f["code"] == "partition.hw_held_under_min_isr")
        .collect();
    assert_eq!(held.len(), 1, "{codes:?}");
    let f = held[0];
    assert!(f["location"]["log_dir"]
        .as_str()
        .unwrap()
        .ends_with("node-1/logs-0"));
    assert_eq!(f["location"]["dir"], "stuck-0");
    // What the running cluster said: ListOffsets latest 4 with ISR [1] while acks=1 writes
    // got offsets up to 7 (log end 8).
    assert_eq!(evidence(f, "high_watermark"), &facts["high_watermark"]);
    assert_eq!(
        evidence(f, "log_end_offset"),
        &facts["log_end_offset_from_acks"]
    );
    assert_eq!(facts["isr"], serde_json::json!([1]));
    assert_eq!(evidence(f, "node"), 1);
    assert_eq!(evidence(f, "effective_min_isr"), 2);
    // Shut down cleanly afterwards, the metadata log leaves no leader, an empty ISR and the
    // last members eligible (ELR).
    assert_eq!(evidence(f, "isr"), "[]");
    assert_eq!(evidence(f, "elr"), "[1, 2]");
    assert_eq!(evidence(f, "not_in_isr"), "[1, 2, 3]");
    // Segment 4 is past retention.ms but above the HW: the bytes it holds.
    let seg4 = fs::metadata(root.join("node-1/logs-0/stuck-0/00000000000000000004.log")).unwrap();
    assert_eq!(evidence(f, "held_bytes"), seg4.len());
    assert_eq!(evidence(f, "held_segments"), 1);
}

#[test]
fn followers_without_their_leaders_dirs_say_so() {
    let root = fixture("rf3-stuck-hw");
    // Nodes 2 and 3 stopped while node 1 led: their metadata logs name node 1 the leader.
    let args: Vec<String> = ["node-2/logs-0", "node-3/logs-0"]
        .iter()
        .map(|d| root.join(d).display().to_string())
        .chain([
            "--at".to_string(),
            manifest(&root)["base_time_ms"].to_string(),
        ])
        .collect();
    let doc = run("plan", &args);
    let parts = doc["partitions"].as_array().unwrap();
    assert_eq!(parts.len(), 2);
    for p in parts {
        let hw = &p["high_watermark"];
        assert_eq!(hw["kind"], "follower_checkpoint_assumed", "{hw}");
        assert_eq!(evidence(hw, "role_source"), "leader_dirs_not_given", "{hw}");
    }
}

/// Per partition, the segments each replica's plan deletes.
fn deleted_per_replica(doc: &Value) -> BTreeMap<String, Vec<(String, Vec<i64>)>> {
    let mut out: BTreeMap<String, Vec<(String, Vec<i64>)>> = BTreeMap::new();
    for p in doc["partitions"].as_array().unwrap() {
        let deleted = (p["segments"].as_array().unwrap().iter())
            .filter(|s| s["verdict"] == "delete")
            .map(|s| s["base_offset"].as_i64().unwrap())
            .collect();
        out.entry(p["dir"].as_str().unwrap().to_string())
            .or_default()
            .push((p["log_dir"].as_str().unwrap().to_string(), deleted));
    }
    out
}

#[test]
fn every_replica_of_a_partition_plans_the_same_deletions() {
    let root = fixture("rf3-retention");
    let mut args = node_dirs(&root);
    args.extend(["--at".into(), manifest(&root)["base_time_ms"].to_string()]);
    let doc = run("plan", &args);
    let per = deleted_per_replica(&doc);
    assert_eq!(
        per.keys().collect::<Vec<_>>(),
        ["orders-0", "orders-1", "sized-0"]
    );
    for (dir, replicas) in &per {
        assert_eq!(replicas.len(), 3, "{dir}: one replica per node");
        assert!(
            !replicas[0].1.is_empty(),
            "{dir}: expired segments are deleted"
        );
        assert!(
            replicas.iter().all(|r| r.1 == replicas[0].1),
            "{dir}: {replicas:?}"
        );
    }
    let mut args = node_dirs(&root);
    args.extend(["--now".into(), base_time(&root)]);
    // The disk is not the fixture's: a nearly full machine disk is not its finding.
    args.extend(["--disk-space".into(), DISK_SPACE.into()]);
    assert_eq!(codes(&run("diagnose", &args)), Vec::<String>::new());
}

#[test]
fn an_eligible_replica_short_of_the_high_watermark_diverges() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("rf3-retention");
    copy_dir(&fixture("rf3-retention"), &root);
    // Node 2 (in the ELR of orders-0) loses its newest segment: its log ends at 18, below the
    // HW 20 every replica checkpointed.
    let part = root.join("node-2/logs-1/orders-0");
    for e in fs::read_dir(&part).unwrap() {
        let p = e.unwrap().path();
        if p.file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("00000000000000000018.")
        {
            fs::remove_file(p).unwrap();
        }
    }
    let mut args = node_dirs(&root);
    args.extend(["--now".into(), base_time(&root)]);
    let doc = run("diagnose", &args);
    let f = (doc["findings"].as_array().unwrap().iter())
        .find(|f| f["code"] == "partition.replicas_diverge")
        .unwrap_or_else(|| panic!("{:?}", codes(&doc)));
    assert!(f["location"]["log_dir"]
        .as_str()
        .unwrap()
        .ends_with("node-2/logs-1"));
    assert_eq!(f["location"]["dir"], "orders-0");
    assert_eq!(f["severity"], "warning");
    assert_eq!(evidence(f, "node"), 2);
    assert_eq!(evidence(f, "log_end_offset"), 18);
    assert_eq!(evidence(f, "high_watermark"), 20);
}

#[test]
fn followers_take_their_leaders_high_watermark_from_its_files() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("rf3-stuck-hw");
    copy_dir(&fixture("rf3-stuck-hw"), &root);
    // Without node 1's metadata log the most advanced copy is node 2's, written when node 2
    // stopped: node 1 leads with the ISR [1] (min.insync.replicas 2).
    fs::remove_dir_all(root.join("node-1/logs-0/__cluster_metadata-0")).unwrap();
    let mut args = node_dirs(&root);
    args.extend(["--at".into(), manifest(&root)["base_time_ms"].to_string()]);
    let doc = run("plan", &args);
    let hws: BTreeMap<String, (String, i64)> = (doc["partitions"].as_array().unwrap().iter())
        .map(|p| {
            let node = p["log_dir"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .nth(1)
                .unwrap()
                .to_string();
            let hw = &p["high_watermark"];
            (
                node,
                (
                    hw["kind"].as_str().unwrap().to_string(),
                    evidence(hw, "high_watermark").as_i64().unwrap(),
                ),
            )
        })
        .collect();
    // The leader alone under min ISR keeps its checkpointed HW 4; each follower takes it
    // (min with its own log end, 4).
    assert_eq!(
        hws["node-1"],
        ("leader_under_min_isr".to_string(), 4),
        "{hws:?}"
    );
    assert_eq!(
        hws["node-2"],
        ("follower_from_leader".to_string(), 4),
        "{hws:?}"
    );
    assert_eq!(
        hws["node-3"],
        ("follower_from_leader".to_string(), 4),
        "{hws:?}"
    );
    let mut args = node_dirs(&root);
    args.extend(["--now".into(), base_time(&root)]);
    let doc = run("diagnose", &args);
    let f = (doc["findings"].as_array().unwrap().iter())
        .find(|f| f["code"] == "partition.hw_held_under_min_isr")
        .unwrap_or_else(|| panic!("{:?}", codes(&doc)));
    assert_eq!(evidence(f, "isr"), "[1]");
    assert_eq!(evidence(f, "not_in_isr"), "[2, 3]");
    assert_eq!(evidence(f, "high_watermark"), 4);
    assert_eq!(evidence(f, "log_end_offset"), 8);
}

/// The filesystem figures every run below is given: statvfs of the machine's disk changes
/// between two runs, and its findings with it.
const DISK_SPACE: &str = "1000000000,2000000000";

/// Each node's `diagnose --format json` report of `root`, written to `out`: their paths.
fn per_node_reports(root: &Path, out: &Path) -> Vec<String> {
    let m = manifest(root);
    let mut paths = Vec::new();
    for n in m["nodes"].as_array().unwrap() {
        let mut args: Vec<String> = (n["log_dirs"].as_array().unwrap().iter())
            .map(|d| root.join(d.as_str().unwrap()).display().to_string())
            .collect();
        args.extend(["--now".into(), base_time(root)]);
        args.extend(["--disk-space".into(), DISK_SPACE.into()]);
        let doc = run("diagnose", &args);
        let path = out.join(format!("node-{}.json", n["node_id"]));
        fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
        paths.push(path.display().to_string());
    }
    paths
}

/// What a join shows: its partitions (replicas across nodes) and its findings, sorted.
fn joined_view(doc: &Value) -> (Value, Vec<String>) {
    let mut findings: Vec<String> = (doc["findings"].as_array().unwrap().iter())
        .map(Value::to_string)
        .collect();
    findings.sort();
    (doc["partitions"].clone(), findings)
}

/// Per-node reports joined are the cluster view of one `diagnose` over every node's dirs: the
/// same replicas with the same HWs and figures, the same findings (each with its node).
fn reports_joined_equal_the_cluster_view(root: &Path) {
    let tmp = tempfile::tempdir().unwrap();
    let reports = per_node_reports(root, tmp.path());
    assert_eq!(reports.len(), 3);
    let joined = run("join", &reports);
    let mut args = node_dirs(root);
    args.extend(["--now".into(), base_time(root)]);
    args.extend(["--disk-space".into(), DISK_SPACE.into()]);
    let all = run("diagnose", &args);
    let all_path = tmp.path().join("all.json");
    fs::write(&all_path, serde_json::to_vec(&all).unwrap()).unwrap();
    let cluster = run("join", &[all_path.display().to_string()]);
    assert_eq!(joined_view(&joined), joined_view(&cluster));
    let mut direct: Vec<String> = (all["findings"].as_array().unwrap().iter())
        .map(Value::to_string)
        .collect();
    direct.sort();
    assert_eq!(joined_view(&joined).1, direct);
    // Every replica of every partition, one per node.
    for p in joined["partitions"].as_array().unwrap() {
        let nodes: Vec<i64> = (p["replicas"].as_array().unwrap().iter())
            .map(|r| r["node"].as_i64().unwrap())
            .collect();
        assert_eq!(nodes.len(), 3, "{p}");
        assert!(p["not_reported"].as_array().unwrap().is_empty(), "{p}");
    }
}

#[test]
fn per_node_reports_joined_equal_diagnose_over_all_nodes() {
    reports_joined_equal_the_cluster_view(&fixture("rf3-retention"));
    reports_joined_equal_the_cluster_view(&fixture("rf3-stuck-hw"));
}

#[test]
fn a_join_applies_the_leaders_high_watermark_from_its_report() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("rf3-stuck-hw");
    copy_dir(&fixture("rf3-stuck-hw"), &root);
    // As in followers_take_their_leaders_high_watermark_from_its_files: node 2's metadata says
    // node 1 leads with the ISR [1]; node 1's report then holds no image of its own.
    fs::remove_dir_all(root.join("node-1/logs-0/__cluster_metadata-0")).unwrap();
    // (Not equal to one diagnose over all dirs here: node 1's own run, without a metadata
    // log, does not know its topics' retention overrides, so its figures differ.)
    let reports = per_node_reports(&root, tmp.path());
    let joined = run("join", &reports);
    let hw = |doc: &Value, node: i64| -> (String, i64, String) {
        let p = &doc["partitions"][0];
        let r = (p["replicas"].as_array().unwrap().iter())
            .find(|r| r["node"] == node)
            .unwrap_or_else(|| panic!("{p}"));
        (
            r["high_watermark_basis"].as_str().unwrap().to_string(),
            r["high_watermark"].as_i64().unwrap(),
            r["role_source"].as_str().unwrap().to_string(),
        )
    };
    assert_eq!(hw(&joined, 1).0, "leader_under_min_isr");
    for node in [2, 3] {
        assert_eq!(
            hw(&joined, node),
            (
                "follower_from_leader".to_string(),
                4,
                "metadata_image_and_leader_dirs".to_string()
            )
        );
    }
    let f = (joined["findings"].as_array().unwrap().iter())
        .find(|f| f["code"] == "partition.hw_held_under_min_isr")
        .unwrap_or_else(|| panic!("{:?}", codes(&joined)));
    assert_eq!(f["location"]["node"], 1);
    assert_eq!(evidence(f, "not_in_isr"), "[2, 3]");
    // Without the leader's report, the followers say what they assumed, and the leader's
    // replica is listed as not reported.
    let followers = run("join", &reports[1..]);
    assert_eq!(
        hw(&followers, 2),
        (
            "follower_checkpoint_assumed".to_string(),
            4,
            "leader_dirs_not_given".to_string()
        )
    );
    assert_eq!(
        followers["partitions"][0]["not_reported"],
        serde_json::json!([1])
    );
}

#[test]
fn join_refuses_what_is_not_a_diagnose_report() {
    let tmp = tempfile::tempdir().unwrap();
    let root = fixture("rf3-stuck-hw");
    let mut args = node_dirs(&root);
    args.extend(["--at".into(), manifest(&root)["base_time_ms"].to_string()]);
    let plan = tmp.path().join("plan.json");
    fs::write(&plan, serde_json::to_vec(&run("plan", &args)).unwrap()).unwrap();
    let garbage = tmp.path().join("garbage.json");
    fs::write(&garbage, b"{\"command\": ").unwrap();
    for bad in [plan, garbage, tmp.path().join("missing.json")] {
        let out = Command::new(env!("CARGO_BIN_EXE_logclean"))
            .args(["join", bad.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(3),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains(bad.to_str().unwrap()));
    }
}

/// JBOD on a real three-node cluster (`rf3-jbod`): node 2's two log dirs with a move captured
/// mid-move (`-future`) and one finished (its old replica `-delete`), a replica reassigned away
/// while its broker was down (`-stray` on node 3), a deleted topic (`-delete` on every node).
#[test]
fn jbod_leftovers_are_named_on_their_node() {
    let root = fixture("rf3-jbod");
    let m = manifest(&root);
    let mut args = node_dirs(&root);
    args.extend([
        "--now".into(),
        m["captured_at"].as_str().unwrap().to_string(),
    ]);
    let doc = run("diagnose", &args);
    let at = |code: &str| -> Vec<(i64, String)> {
        let mut v: Vec<(i64, String)> = (doc["findings"].as_array().unwrap().iter())
            .filter(|f| f["code"] == code)
            .map(|f| {
                let l = &f["location"];
                let dir = l["dir"].as_str().unwrap();
                (
                    l["node"].as_i64().unwrap(),
                    dir.split('.').next().unwrap().to_string(),
                )
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        at("partition.future_replica"),
        vec![(2, "moving-0".to_string())]
    );
    assert_eq!(at("partition.stray"), vec![(3, "strayed-0".to_string())]);
    assert_eq!(
        at("partition.pending_delete"),
        vec![
            (1, "dropped-0".to_string()),
            (2, "dropped-0".to_string()),
            (2, "moved-0".to_string()),
            (3, "dropped-0".to_string()),
        ]
    );
    // The moved replica lives on in node 2's other dir, one live replica per node.
    let plan = run(
        "plan",
        &args[..args.len() - 2]
            .iter()
            .cloned()
            .chain(["--at".to_string(), m["base_time_ms"].to_string()])
            .collect::<Vec<_>>(),
    );
    let moved: Vec<&str> = (plan["partitions"].as_array().unwrap().iter())
        .filter(|p| p["topic"] == "moved")
        .map(|p| p["log_dir"].as_str().unwrap())
        .collect();
    assert_eq!(moved.len(), 3, "{moved:?}");
    let on_node_2 = (m["partitions"].as_array().unwrap().iter())
        .find(|p| p["topic"] == "moved" && p["node_id"] == 2)
        .map(|p| p["log_dir"].as_str().unwrap().to_string())
        .unwrap();
    assert!(
        moved.iter().any(|d| d.ends_with(&on_node_2)),
        "{moved:?} {on_node_2}"
    );
    // ...and the dir it moved out of is the one holding the -delete dir.
    let old_dir = (doc["findings"].as_array().unwrap().iter())
        .find(|f| {
            f["code"] == "partition.pending_delete"
                && f["location"]["node"] == 2
                && f["location"]["dir"]
                    .as_str()
                    .unwrap()
                    .starts_with("moved-0.")
        })
        .map(|f| f["location"]["log_dir"].as_str().unwrap().to_string())
        .unwrap();
    assert!(!old_dir.ends_with(&on_node_2), "{old_dir} {on_node_2}");
}

/// A `-future` dir pauses its own broker's replica only: rf3-jbod's replay deleted moving-0's
/// expired segments on nodes 1 and 3 (node 2's dir holds the move).
#[test]
fn a_move_pauses_only_the_moving_brokers_replica() {
    let root = fixture("rf3-jbod");
    let mut args = node_dirs(&root);
    args.extend(["--at".into(), manifest(&root)["base_time_ms"].to_string()]);
    let plan = run("plan", &args);
    let paused: BTreeMap<String, bool> = (plan["partitions"].as_array().unwrap().iter())
        .filter(|p| p["topic"] == "moving")
        .map(|p| {
            let node = p["log_dir"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .nth(1)
                .unwrap()
                .to_string();
            let any_paused =
                (p["segments"].as_array().unwrap().iter()).any(|s| s["reason"]["kind"] == "paused");
            (node, any_paused)
        })
        .collect();
    assert_eq!(
        paused,
        BTreeMap::from([
            ("node-1".to_string(), false),
            ("node-2".to_string(), true),
            ("node-3".to_string(), false),
        ])
    );
}

/// Per replica of `doc` (a plan): (node-N, topic-partition) → (log start after, deleted bases,
/// the follower note's kind).
/// (log start after, deleted bases, the follower note's kind) of one replica.
type FollowerFacts = (i64, Vec<i64>, Option<String>);

fn follower_view(doc: &Value) -> BTreeMap<(String, String), FollowerFacts> {
    (doc["partitions"].as_array().unwrap().iter())
        .map(|p| {
            let node = (p["log_dir"].as_str().unwrap().rsplit('/').nth(1))
                .unwrap()
                .to_string();
            let deleted = (p["segments"].as_array().unwrap().iter())
                .filter(|s| s["verdict"] == "delete")
                .map(|s| s["base_offset"].as_i64().unwrap())
                .collect();
            let note = (p["notes"].as_array().unwrap().iter())
                .map(|n| n["kind"].as_str().unwrap())
                .find(|k| k.starts_with("follower_"))
                .map(str::to_string);
            let tp = format!("{}-{}", p["topic"].as_str().unwrap(), p["partition"]);
            (
                (node, tp),
                (p["log_start_offset_after"].as_i64().unwrap(), deleted, note),
            )
        })
        .collect()
}

/// rf3-follower-restart (issue 21): node 3 was stopped at log end 4 while offsets 4-7 were
/// written and DeleteRecords moved the leader's log start to 6 (lagging-0) and 3 (lagging-1).
/// Restarted (plan-check's replay), node 3 truncates lagging-0 fully and restarts at 6, and
/// takes lagging-1's log start 3 from its leader, deleting 0-2: the plan says which.
#[test]
fn a_restarted_follower_truncates_fully_below_the_leaders_log_start() {
    let root = fixture("rf3-follower-restart");
    let mut args = node_dirs(&root);
    args.extend(["--at".into(), manifest(&root)["base_time_ms"].to_string()]);
    let v = follower_view(&run("plan", &args));
    let key = |n: &str, tp: &str| (n.to_string(), tp.to_string());
    let (start, deleted, note) = &v[&key("node-3", "lagging-0")];
    assert_eq!(
        (*start, deleted.as_slice(), note.as_deref()),
        (6, &[0, 1, 2, 3][..], Some("follower_truncates_fully"))
    );
    let (start, deleted, note) = &v[&key("node-3", "lagging-1")];
    assert_eq!(
        (*start, deleted.as_slice(), note.as_deref()),
        (3, &[0, 1, 2][..], Some("follower_follows_leader_log_start"))
    );
    // Node 2 took both log starts from its fetches before capture: its own passes decide.
    assert_eq!(
        v[&key("node-2", "lagging-0")],
        (
            6,
            vec![0, 1, 2, 3, 4, 5],
            Some("follower_own_log_start".into())
        )
    );
    // Node 3's dirs alone: the leader's log start is unknown, and the plan says so.
    let alone: Vec<String> = (args.iter())
        .filter(|a| a.contains("node-3/") || !a.contains('/'))
        .cloned()
        .collect();
    let v = follower_view(&run("plan", &alone));
    assert_eq!(
        v[&key("node-3", "lagging-0")],
        (0, vec![], Some("follower_leader_not_given".into()))
    );
}

/// A follower whose retention is paused by a move takes its leader's log start all the same
/// (rf3-jbod's replay: node 2's moving-0 at 4, no segment deleted until the move is done).
#[test]
fn a_paused_follower_still_takes_its_leaders_log_start() {
    let root = fixture("rf3-jbod");
    let mut args = node_dirs(&root);
    args.extend(["--at".into(), manifest(&root)["base_time_ms"].to_string()]);
    let v = follower_view(&run("plan", &args));
    let key = |n: &str| (n.to_string(), "moving-0".to_string());
    // The leader's log start after its pass (at the fixture's base time it deletes 0 and 1).
    let (leader_start, leader_deleted, _) = &v[&key("node-1")];
    assert_eq!((*leader_start, leader_deleted.as_slice()), (2, &[0, 1][..]));
    assert_eq!(
        v[&key("node-2")],
        (2, vec![], Some("follower_follows_leader_log_start".into()))
    );
}

/// `partition.stray` says where the metadata places the partition now (rf3-jbod: strayed-0
/// was reassigned to [1, 2] while node 3 was down).
#[test]
fn a_stray_replica_names_where_its_partition_lives_now() {
    let root = fixture("rf3-jbod");
    let doc = run("diagnose", &node_dirs(&root));
    let stray = (doc["findings"].as_array().unwrap().iter())
        .find(|f| f["code"] == "partition.stray")
        .unwrap();
    assert_eq!(evidence(stray, "assigned_replicas"), "[1, 2]");
    let msg = stray["message"].as_str().unwrap();
    assert!(
        msg.contains("on node(s) [1, 2]") && msg.contains("not on this node"),
        "{msg}"
    );
}

/// rf3-unclean (issue 21): node 2 wrote 4-7 alone in epoch 0, then node 3 was elected uncleanly
/// at log end 4 and wrote 4-5 in epoch 2. Node 2's replica diverges: on its next fetch it
/// truncates to 4, where epoch 0 ends on node 3, and loses 4 records.
#[test]
fn an_unclean_election_leaves_a_diverged_replica_that_truncates() {
    let root = fixture("rf3-unclean");
    let doc = run("diagnose", &node_dirs(&root));
    let diverged: Vec<&Value> = (doc["findings"].as_array().unwrap().iter())
        .filter(|f| f["code"] == "partition.replicas_diverge")
        .filter(|f| evidence(f, "node") == 2)
        .collect();
    assert_eq!(diverged.len(), 1, "{diverged:#?}");
    let f = diverged[0];
    assert_eq!(f["severity"], "warning");
    assert_eq!(evidence(f, "truncates_to"), 4);
    assert_eq!(evidence(f, "records_lost"), 4);
    assert_eq!(evidence(f, "leader"), 3);
    assert_eq!(evidence(f, "latest_leader_epoch"), 0);
}

/// The headline's "what it assumes" counts every replica whose HW rests on an assumption: the
/// checkpoint's (leader's HW or role unknown), and, separately, an assumed leader (every capture
/// ends leaderless, so the replica elected on restart is assumed); and the followers whose
/// leader's log start is unknown. rf3-follower-restart's node 1 alone is that assumed leader of
/// both `lagging` partitions: its HW is its own checkpoint under min ISR, as the leader's, but
/// only if it is elected first; node 3 alone, a follower without its leader's dirs, has the
/// checkpoint's HW and no leader's log start.
#[test]
fn the_headline_counts_replicas_whose_leader_is_only_assumed() {
    let root = fixture("rf3-follower-restart");
    let assumes = |nodes: &[&str]| {
        let args: Vec<String> = (node_dirs(&root).into_iter())
            .filter(|d| nodes.iter().any(|n| d.contains(&format!("{n}/"))))
            .chain(["--now".into(), manifest(&root)["base_time_ms"].to_string()])
            .collect();
        let doc = run("diagnose", &args);
        let a = &doc["headline"]["assumes"];
        (
            a["partitions_with_assumed_hw"].as_u64().unwrap(),
            a["partitions_with_assumed_leader"].as_u64().unwrap(),
            a["followers_without_leader_dirs"].as_u64().unwrap(),
        )
    };
    assert_eq!(assumes(&["node-1"]), (0, 2, 0));
    // Node 3 alone: the checkpoint's HW, and its leader's log start unknown (the broker truncated
    // lagging-0 fully and deleted 0-2 of lagging-1 by it: plan-check --single-node).
    assert_eq!(assumes(&["node-3"]), (2, 0, 2));
    // All three nodes: every replica's HW is the assumed leader's (its own log end, or the
    // followers' from the leader's files), none the checkpoint's.
    assert_eq!(assumes(&["node-1", "node-2", "node-3"]), (0, 6, 0));
    // The table says both.
    let out = Command::new(env!("CARGO_BIN_EXE_logclean"))
        .args([
            "--no-progress",
            "diagnose",
            "--disk-space",
            DISK_SPACE,
            "--now",
        ])
        .arg(manifest(&root)["base_time_ms"].to_string())
        .arg(root.join("node-1/logs-0"))
        .env("COLUMNS", "400")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("the leader assumed elected on restart for 2 partition(s)"),
        "{text}"
    );
}

/// rf3-unclean (issue 21): node 2 holds 4-7 in epoch 0 (4 in segment 3 with 3), which node 3
/// (the ISR, the leader assumed on restart) does not have: it wrote its own 4-5 in epoch 2. On
/// its first fetch node 2 truncates to 4 (`UnifiedLog.truncateTo`): segment 3 is cut inside at
/// 4, 5-7 are deleted, and the refetch of 4-5 brings 5 back at the leader's base (plan-check's
/// replay: node 2 ends with 0-5, 4 created by the refetch).
#[test]
fn a_diverged_follower_truncates_to_where_its_epoch_ends_on_the_leader() {
    let root = fixture("rf3-unclean");
    let mut args = node_dirs(&root);
    args.extend(["--at".into(), manifest(&root)["base_time_ms"].to_string()]);
    let doc = run("plan", &args);
    let node2 = (doc["partitions"].as_array().unwrap().iter())
        .find(|p| p["log_dir"].as_str().unwrap().contains("node-2/"))
        .unwrap();
    let cuts: Vec<(i64, &str, Value)> = (node2["segments"].as_array().unwrap().iter())
        .map(|s| {
            (
                s["base_offset"].as_i64().unwrap(),
                s["verdict"].as_str().unwrap(),
                s["truncation"].clone(),
            )
        })
        .collect();
    let deleted = |refetched: bool| serde_json::json!({"kind": "deleted", "refetched": refetched});
    assert_eq!(
        cuts[3..],
        [
            (
                3,
                "retain",
                serde_json::json!({"kind": "truncated", "truncated_to": 4})
            ),
            (5, "delete", deleted(true)),
            (6, "delete", deleted(false)),
            (7, "delete", deleted(false)),
        ]
    );
    assert!(cuts[..3]
        .iter()
        .all(|(_, v, t)| *v == "retain" && t.is_null()));
    let note = (node2["notes"].as_array().unwrap().iter())
        .find(|n| n["kind"] == "follower_epoch_truncation")
        .unwrap();
    assert_eq!(evidence(note, "truncates_to"), 4);
    assert_eq!(evidence(note, "records_lost"), 4);
    assert_eq!(evidence(note, "leader"), 3);
    assert_eq!(evidence(note, "leader_assumed"), true);
    assert_eq!(evidence(note, "segments_deleted"), 3);
    // The leader truncates nothing.
    let node3 = (doc["partitions"].as_array().unwrap().iter())
        .find(|p| p["log_dir"].as_str().unwrap().contains("node-3/"))
        .unwrap();
    assert!((node3["segments"].as_array().unwrap().iter()).all(|s| s["truncation"].is_null()));
}

/// rf3-follower-restart's three nodes with `lagging` proposed compact,delete and cleanable at
/// once (every log of it a cleaner candidate).
fn lagging_proposed_compacted() -> Vec<String> {
    let mut args = node_dirs(&fixture("rf3-follower-restart"));
    args.extend(
        [
            "--config",
            "lagging:cleanup.policy=compact,delete",
            "--config",
            "lagging:min.cleanable.dirty.ratio=0.01",
            "--config",
            "lagging:min.compaction.lag.ms=0",
        ]
        .map(String::from),
    );
    args
}

/// A follower the cleaner takes first keeps its case through the cleaner's re-plan
/// (rf3-follower-restart with `lagging` proposed compact,delete: node 3's lagging-0 is the
/// dirtiest log, and it truncates fully below its leader's log start 6 whatever the cleaner
/// would make of its segments; the re-plan used to drop the truncation and keep 0-3).
#[test]
fn a_follower_the_cleaner_takes_first_still_truncates_fully() {
    let doc = run("plan", &lagging_proposed_compacted());
    let what_if = serde_json::json!({"partitions": doc["what_if"]["partitions"].clone()});
    let p = (what_if["partitions"].as_array().unwrap().iter())
        .find(|p| p["log_dir"].as_str().unwrap().contains("node-3/") && p["partition"] == 0)
        .unwrap();
    assert_eq!(p["compaction"]["first_in_line"], true);
    let notes: Vec<&str> = (p["notes"].as_array().unwrap().iter())
        .map(|n| n["kind"].as_str().unwrap())
        .collect();
    assert!(notes.contains(&"cleaned_before_retention"), "{notes:?}");
    let v = follower_view(&what_if);
    assert_eq!(
        v[&("node-3".to_string(), "lagging-0".to_string())],
        (6, vec![0, 1, 2, 3], Some("follower_truncates_fully".into()))
    );
}

/// Each broker's cleaner picks its own filthiest log (`LogCleanerManager.
/// grabFilthiestCompactedLog` over that broker's logs): given three brokers' dirs, every node
/// with a log to clean has one taken first, not one log across the cluster (rf3-follower-restart
/// with `lagging` proposed compact,delete: nodes 1 and 2 take lagging-1, node 3 lagging-0).
#[test]
fn every_broker_given_has_its_own_cleaner_pick() {
    let doc = run("plan", &lagging_proposed_compacted());
    let mut first: Vec<(String, i64)> = (doc["what_if"]["partitions"].as_array().unwrap().iter())
        .filter(|p| p["compaction"]["first_in_line"] == true)
        .map(|p| {
            let dir = p["log_dir"].as_str().unwrap();
            let node = dir[dir.find("node-").unwrap()..].split('/').next().unwrap();
            (node.to_string(), p["partition"].as_i64().unwrap())
        })
        .collect();
    first.sort();
    assert_eq!(
        first,
        [
            ("node-1".into(), 1),
            ("node-2".into(), 1),
            ("node-3".into(), 0)
        ]
    );
    // Today nothing is compacted: one pick per broker is `nothing`, said once.
    assert_eq!(doc["cleaner_first"]["pick"], "nothing");
}
