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

/// The paths of every step a mutating command's JSON plans, over all its log dirs.
fn step_paths(doc: &Value) -> Vec<String> {
    (doc["log_dirs"].as_array().unwrap().iter())
        .flat_map(|l| l["plan"]["steps"].as_array().cloned().unwrap_or_default())
        .map(|s| s["path"].as_str().unwrap_or_default().to_string())
        .collect()
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
    let steps = step_paths(&json(&o));
    assert!(
        !steps.iter().any(|p| p.contains("/ts-0/")),
        "delete acts on segments whose upload is unknown: {steps:?}"
    );
}

fn diagnose(logs: &[&Path], now: &str, extra: &[&str]) -> Value {
    let mut args = vec!["--format", "json", "diagnose", "--now", now];
    args.extend(extra);
    args.extend(logs.iter().map(|l| s(l)));
    json(&logclean(&args, None))
}

fn finding<'a>(d: &'a Value, code: &str) -> Option<&'a Value> {
    d["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == code)
}

fn evidence(f: &Value, name: &str) -> i64 {
    f["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {f}"))["value"]
        .as_i64()
        .unwrap()
}

#[test]
fn a_failing_copy_is_named_and_told_apart_from_a_hang() {
    let dir = fixture("tiered-failed");
    let logs = dir.join("logs-0");
    let at = at("tiered-failed");
    let m: Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    // The RSM's journal: from its 4th copy on every copy of segment 12 failed.
    let failed: Vec<i64> = m["tiered"]["remote_storage"]["journal"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| {
            let l = l.as_str().unwrap();
            (l.split(' ').nth(1) == Some("copy-fail"))
                .then(|| l.split(' ').nth(3).unwrap().parse::<i64>().unwrap())
        })
        .collect();
    assert!(
        failed.len() >= 3 && failed.iter().all(|o| *o == 12),
        "{failed:?}"
    );
    let doc = plan(&logs, &at);
    let p = partition(&doc, "tf-0");
    assert_eq!(
        upload_kinds(p),
        [
            (12, "copy_failed".to_string()),
            (16, "behind_failed_copy".to_string()),
            (20, "behind_failed_copy".to_string()),
            (24, "behind_failed_copy".to_string()),
            (28, "active".to_string()),
        ]
    );
    // Nothing is taken for uploaded past the last finished copy (the broker kept all five).
    assert_eq!(p["tiered"]["highest_offset_in_remote_storage"], 11);
    assert_eq!(p["freed"]["segments"], 0);
    let fc = &p["tiered"]["failed_copies"];
    assert_eq!(fc.as_array().unwrap().len(), 1, "{fc}");
    assert_eq!(fc[0]["start_offset"], 12);
    assert!(fc[0]["attempts"].as_u64().unwrap() as usize >= failed.len());
    assert_eq!(
        p["tiered"]["unfinished_copies"].as_array().unwrap().len(),
        0
    );

    let d = diagnose(&[&logs], &at, &[]);
    let f = finding(&d, "tiered.upload_failing").expect("tiered.upload_failing");
    assert_eq!(f["location"]["segment"], 12, "{f}");
    assert_eq!(f["severity"], "error");
    assert!(evidence(f, "failed_attempts") as usize >= failed.len());
    assert!(
        finding(&d, "tiered.upload_stalled").is_none(),
        "a failure is not a hang"
    );
    // The retries' records: three per attempt, every one about a deleted segment.
    let g = finding(&d, "tiered.metadata_topic_unbounded").unwrap();
    let attempts = fc[0]["attempts"].as_i64().unwrap();
    assert_eq!(evidence(g, "failed_copies_cleaned_up"), attempts);
    assert_eq!(evidence(g, "records_of_deleted_segments"), 3 * attempts);
    assert_eq!(
        evidence(g, "deleted_share_percent"),
        3 * attempts * 100 / evidence(g, "records")
    );
}

#[test]
fn metadata_growth_counts_the_records_of_deleted_segments() {
    let logs = fixture("tiered-remote-retention").join("logs-0");
    let d = diagnose(&[&logs], &at("tiered-remote-retention"), &[]);
    let g = finding(&d, "tiered.metadata_topic_unbounded").unwrap();
    // Remote retention deleted three segments: added, finished, delete started and finished.
    assert_eq!(evidence(g, "deleted_segments"), 3);
    assert_eq!(evidence(g, "records_of_deleted_segments"), 12);
    assert_eq!(evidence(g, "records"), 20);
    assert_eq!(evidence(g, "deleted_share_percent"), 60);
    assert_eq!(evidence(g, "failed_copies_cleaned_up"), 0);
}

#[test]
fn the_metadata_partition_in_another_log_dir() {
    let dir = fixture("tiered-metadata-elsewhere");
    let m: Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let mp = m["tiered"]["metadata_partition"].as_u64().unwrap();
    assert!(dir
        .join(format!("logs-1/__remote_log_metadata-{mp}"))
        .is_dir());
    assert!(dir.join("logs-0/te-0").is_dir());
    let at = at("tiered-metadata-elsewhere");
    let (l0, l1) = (dir.join("logs-0"), dir.join("logs-1"));
    // Both dirs: known, the broker's latest-tiered.
    let o = logclean(
        &["--format", "json", "plan", "--at", &at, s(&l0), s(&l1)],
        None,
    );
    let doc = json(&o);
    let p = partition(&doc, "te-0");
    assert_eq!(p["tiered"]["upload_state"], "known");
    assert_eq!(p["tiered"]["metadata_partition"], mp);
    let latest = m["tiered"]["partitions"]["te-0"]["at_capture"]["latest_tiered"].clone();
    assert_eq!(p["tiered"]["highest_offset_in_remote_storage"], latest);
    // logs-0 alone: unknown, never assumed uploaded, and delete plans nothing for it.
    let doc = plan(&l0, &at);
    let p = partition(&doc, "te-0");
    assert_eq!(p["tiered"]["upload_state"], "unknown");
    for seg in &p["segments"].as_array().unwrap()[..2] {
        assert_eq!(seg["upload"]["kind"], "upload_unknown", "{seg}");
        assert_eq!(seg["verdict"], "retain", "{seg}");
    }
    assert_eq!(p["freed"]["segments"], 0);
    let d = diagnose(&[&l0], &at, &[]);
    let f = finding(&d, "tiered.upload_state_unknown").unwrap();
    assert_eq!(evidence(f, "metadata_partition") as u64, mp);

    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs-0");
    copy_dir(&l0, &logs);
    let before = tree(tmp.path());
    let o = logclean(&["--format", "json", "delete", s(&logs), "--at", &at], None);
    assert!(matches!(code(&o), Some(0 | 1)), "{}", text(&o));
    same(&tree(tmp.path()), &before, "a dry run changed the tree");
    let steps = step_paths(&json(&o));
    assert!(
        !steps.iter().any(|p| p.contains("/te-0/")),
        "delete acts on segments whose upload is unknown: {steps:?}"
    );
}

#[test]
fn the_remote_index_cache_against_its_cap_and_in_the_attribution() {
    let dir = fixture("tiered-metadata-elsewhere");
    let (l0, l1) = (dir.join("logs-0"), dir.join("logs-1"));
    let at = at("tiered-metadata-elsewhere");
    let cache = l0.join("remote-log-index-cache");
    let files: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap())
        .collect();
    assert!(
        !files.is_empty(),
        "the consumer's remote reads left indexes in the cache"
    );
    let lengths: u64 = files.iter().map(|e| e.metadata().unwrap().len()).sum();
    let d = diagnose(&[&l0, &l1], &at, &[]);
    let f = finding(&d, "tiered.index_cache_size").unwrap();
    assert_eq!(f["severity"], "info");
    assert_eq!(evidence(f, "cache_files") as usize, files.len());
    assert_eq!(evidence(f, "cache_index_bytes") as u64, lengths);
    assert_eq!(evidence(f, "cap_bytes"), 1 << 30);
    // The same bytes are the disk attribution's remote index cache.
    let row = d["log_dirs"][0]["space"]["by_reason"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["reason"] == "remote_index_cache")
        .unwrap()
        .clone();
    assert_eq!(
        row["bytes"].as_i64().unwrap(),
        evidence(f, "cache_bytes_on_disk")
    );
    assert_eq!(row["files"].as_u64().unwrap() as usize, files.len());
    // A cap below what the cache holds: a warning with a fix.
    let tmp = tempfile::tempdir().unwrap();
    let props = tmp.path().join("server.properties");
    let mut text_props = std::fs::read_to_string(dir.join("server.properties")).unwrap();
    text_props.push_str(&format!(
        "\nremote.log.index.file.cache.total.size.bytes={}\n",
        lengths.max(2) - 1
    ));
    std::fs::write(&props, text_props).unwrap();
    let d = diagnose(&[&l0, &l1], &at, &["--server-properties", s(&props)]);
    let f = finding(&d, "tiered.index_cache_size").unwrap();
    assert_eq!(f["severity"], "warning", "{f}");
    assert!(f["fix"]
        .as_str()
        .unwrap()
        .contains("with the broker stopped"));
    // The cache sits in the first log dir only: no finding names logs-1.
    assert!(!d["findings"].as_array().unwrap().iter().any(|f| {
        f["code"] == "tiered.index_cache_size"
            && f["location"]["log_dir"]
                .as_str()
                .unwrap()
                .ends_with("logs-1")
    }));
}

#[test]
fn inspect_names_the_local_and_the_total_log_start() {
    let logs = fixture("tiered-uploaded").join("logs-0");
    let o = logclean(&["--format", "json", "inspect", s(&logs)], None);
    let d = json(&o);
    let p = d["log_dirs"][0]["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["dir"] == "tu-0")
        .unwrap();
    assert_eq!(p["remote_log_enabled"], true);
    assert_eq!(p["local_log_start_offset"], 20, "the first local segment");
    assert_eq!(
        p["total_log_start_offset"], 0,
        "the checkpoint: remote included"
    );
    assert_eq!(p["log_start_offset"], p["local_log_start_offset"]);
    // A local topic's two are the same.
    let o = logclean(
        &[
            "--format",
            "json",
            "inspect",
            s(&fixture("basic-delete").join("logs-0")),
        ],
        None,
    );
    for p in json(&o)["log_dirs"][0]["partitions"].as_array().unwrap() {
        assert_eq!(p["remote_log_enabled"], false);
        assert_eq!(p["total_log_start_offset"], p["local_log_start_offset"]);
    }
}
