//! The plan and `diagnose` on the real Kafka 4.4 tiered-storage fixtures (`fixtures/tiered-*`):
//! the upload gate per segment and its reason (the copy the plugin hung on, an open
//! transaction), the total log start below the first local segment, the metadata partition
//! count from the metadata image, and an upload state nobody can see (its metadata partition
//! not given) that neither the plan nor `delete` takes for uploaded.
//! Evaluated at the start of the broker replay recorded in `conformance/oracle/`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;
use support::scratch::{code, copy_dir, fixture, logclean, s, same, text, tree};

use std::path::Path;

use serde_json::Value;

fn json(o: &std::process::Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(o)))
}

/// The start of the recorded broker replay of `scenario` (ms).
fn at(scenario: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("conformance/oracle")
        .join(format!("{scenario}.replay.json"));
    let v: Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
    v["window"]["start_ms"].as_i64().unwrap().to_string()
}

fn plan(logs: &Path, at: &str) -> Value {
    let o = logclean(&["--format", "json", "plan", "--at", at, s(logs)], None);
    json(&o)
}

fn partition<'a>(doc: &'a Value, dir: &str) -> &'a Value {
    doc["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["dir"] == dir)
        .unwrap_or_else(|| panic!("no {dir} in the plan"))
}

fn upload_kinds(p: &Value) -> Vec<(i64, String)> {
    p["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["base_offset"].as_i64().unwrap(),
                s["upload"]["kind"].as_str().unwrap_or("-").to_string(),
            )
        })
        .collect()
}

#[test]
fn the_stalled_upload_is_the_segment_the_plugin_hung_on() {
    let logs = fixture("tiered-stalled").join("logs-0");
    let at = at("tiered-stalled");
    let doc = plan(&logs, &at);
    let p = partition(&doc, "ts-0");
    // The RSM's journal: its 4th copy (segment 12) hung.
    let m: Value = serde_json::from_slice(
        &std::fs::read(fixture("tiered-stalled").join("manifest.json")).unwrap(),
    )
    .unwrap();
    let hung = m["tiered"]["remote_storage"]["journal"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|l| {
            let l = l.as_str().unwrap();
            l.contains("copy-hang")
                .then(|| l.split(' ').nth(3).unwrap().parse::<i64>().unwrap())
        })
        .unwrap();
    assert_eq!(hung, 12);
    assert_eq!(
        upload_kinds(p),
        [
            (12, "copy_never_finished".to_string()),
            (16, "behind_unfinished_copy".to_string()),
            (20, "behind_unfinished_copy".to_string()),
            (24, "behind_unfinished_copy".to_string()),
            (28, "active".to_string()),
        ]
    );
    for seg in p["segments"].as_array().unwrap() {
        assert_eq!(seg["verdict"], "retain", "{seg}");
    }
    assert_eq!(p["segments"][0]["reason"]["kind"], "not_uploaded");
    // The two tiers: the RSM's three files are the remote bytes; the count from the image.
    let t = &p["tiered"];
    assert_eq!(t["upload_state"], "known");
    assert_eq!(t["metadata_partition_count"], 5);
    assert_eq!(t["metadata_partition_count_source"], "metadata_image");
    assert_eq!(t["highest_offset_in_remote_storage"], 11);
    let rsm: i64 = m["tiered"]["remote_storage"]["segments"]["ts-0"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["size_bytes"].as_i64().unwrap())
        .sum();
    assert_eq!(t["remote_bytes"].as_i64().unwrap(), rsm);
    let waiting: i64 = p["segments"].as_array().unwrap()[..4]
        .iter()
        .map(|x| x["size_bytes"].as_i64().unwrap())
        .sum();
    assert_eq!(t["waiting_for_upload_bytes"].as_i64().unwrap(), waiting);
    assert_eq!(p["log_start_offset"], 0, "the total log start");

    // diagnose names the segment and says it is over the local limit.
    let o = logclean(
        &["--format", "json", "diagnose", "--now", &at, s(&logs)],
        None,
    );
    let d = json(&o);
    let f: Vec<&Value> = d["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"].as_str().unwrap().starts_with("tiered."))
        .collect();
    let stalled = f
        .iter()
        .find(|f| f["code"] == "tiered.upload_stalled")
        .unwrap();
    assert_eq!(stalled["location"]["segment"], 12, "{stalled}");
    assert!(
        f.iter().any(|f| f["code"] == "tiered.local_over_limit"),
        "{f:?}"
    );
    assert!(!d["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["code"] == "partition.data_lost"));
}

#[test]
fn an_open_transaction_blocks_the_upload() {
    let logs = fixture("tiered-open-txn").join("logs-0");
    let at = at("tiered-open-txn");
    let doc = plan(&logs, &at);
    let p = partition(&doc, "tt-0");
    let kinds = upload_kinds(p);
    assert!(
        kinds.iter().any(|(_, k)| k == "blocked_by_lso"),
        "{kinds:?}"
    );
    let o = logclean(
        &["--format", "json", "diagnose", "--now", &at, s(&logs)],
        None,
    );
    let d = json(&o);
    let f = d["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "tiered.upload_blocked_by_transaction")
        .unwrap();
    assert!(f["fix"]
        .as_str()
        .unwrap()
        .contains("--topic tt --partition 0 --start-offset"));
}

#[test]
fn the_log_start_of_a_tiered_partition_is_the_total_one() {
    let logs = fixture("tiered-uploaded").join("logs-0");
    let doc = plan(&logs, &at("tiered-uploaded"));
    let p = partition(&doc, "tu-0");
    // The checkpoint says 0; the first local segment is 20: the rest is in remote storage.
    assert_eq!(p["log_start_offset"], 0);
    assert_eq!(p["log_start_offset_after"], 0);
    assert_eq!(p["segments"][0]["base_offset"], 20);
    assert_eq!(p["segments"][0]["upload"]["kind"], "uploaded");
    let o = logclean(&["--format", "json", "diagnose", s(&logs)], None);
    let d = json(&o);
    let codes: Vec<&str> = d["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert!(!codes.contains(&"partition.data_lost"), "{codes:?}");
}

#[test]
fn without_its_metadata_partition_no_segment_is_taken_for_uploaded_and_delete_leaves_them() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs-0");
    copy_dir(&fixture("tiered-stalled").join("logs-0"), &logs);
    let at = at("tiered-stalled");
    let mp = partition(&plan(&logs, &at), "ts-0")["tiered"]["metadata_partition"]
        .as_u64()
        .unwrap();
    std::fs::remove_dir_all(logs.join(format!("__remote_log_metadata-{mp}"))).unwrap();
    let doc = plan(&logs, &at);
    let p = partition(&doc, "ts-0");
    assert_eq!(p["tiered"]["upload_state"], "unknown");
    assert_eq!(p["approximate"], true);
    let first = &p["segments"][0];
    assert_eq!(first["verdict"], "retain");
    assert_eq!(first["reason"]["kind"], "upload_unknown");
    // The other outcome: uploaded, the size pass (local.retention.bytes=1000) deletes it.
    assert_eq!(first["if_uploaded"], "size");
    assert_eq!(p["freed"]["segments"], 0);

    let props = fixture("tiered-stalled").join("server.properties");
    let before = tree(tmp.path());
    let o = logclean(
        &[
            "--format",
            "json",
            "delete",
            s(&logs),
            "--server-properties",
            s(&props),
            "--at",
            &at,
        ],
        None,
    );
    assert!(matches!(code(&o), Some(0 | 1)), "{}", text(&o));
    same(&tree(tmp.path()), &before, "a dry run changed the tree");
    let d = json(&o);
    let steps: Vec<String> = d["log_dirs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|l| l["plan"]["steps"].as_array().cloned().unwrap_or_default())
        .map(|s| s["path"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        !steps.iter().any(|p| p.contains("/ts-0/")),
        "delete acts on segments whose upload is unknown: {steps:?}"
    );
}
