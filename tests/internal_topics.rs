//! The internal logs only their owners free, on real Kafka 4.4 brokers' files: the share
//! coordinator's `__share_group_state` (`fixtures/internal-topics`: an idle share group's
//! snapshot holds the prune), the metadata log below its snapshots (same fixture, a segment and
//! a snapshot every 5 s) and `__remote_log_metadata` (`fixtures/tiered-*`), plus reshaped copies:
//! a broker config with a short cold-partition interval, a log start raised past the idle key
//! (as the coordinator's prune would), the newest metadata snapshots removed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;
use support::scratch::{copy_dir_readable, fixture, logclean, s, text};

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// `diagnose --format json` on `log_dir` with `props` as server.properties.
fn diagnose(log_dir: &Path, props: &Path) -> Value {
    let o = logclean(
        &[
            "diagnose",
            s(log_dir),
            "--server-properties",
            s(props),
            "--now",
            "2026-12-02T10:00:00Z",
            "--format",
            "json",
        ],
        None,
    );
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", text(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn findings<'a>(d: &'a Value, code: &str) -> Vec<&'a Value> {
    (d["findings"].as_array().unwrap().iter())
        .filter(|f| f["code"] == code)
        .collect()
}

/// The evidence item `name` of finding `f`.
fn ev<'a>(f: &'a Value, name: &str) -> &'a Value {
    let e = (f["evidence"].as_array().unwrap().iter())
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no evidence {name} in {f}"));
    &e["value"]
}

/// The base offsets and `.log` sizes of a partition dir's segments, from the files.
fn segments(dir: &Path) -> Vec<(i64, u64)> {
    let mut v: Vec<(i64, u64)> = (fs::read_dir(dir).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .map(|p| {
            let base = p.file_stem().unwrap().to_str().unwrap().parse().unwrap();
            (base, fs::metadata(&p).unwrap().len())
        })
        .collect();
    v.sort();
    v
}

/// Bytes of the closed segments wholly below `offset` (the next segment's base ≤ it) and
/// above `floor` (their next base > it).
fn closed_between(segs: &[(i64, u64)], floor: i64, offset: i64) -> (usize, u64) {
    let picked: Vec<u64> = (segs.windows(2))
        .filter(|w| w[1].0 <= offset && w[1].0 > floor)
        .map(|w| w[0].1)
        .collect();
    (picked.len(), picked.iter().sum())
}

struct Scratch {
    _tmp: tempfile::TempDir,
    logs: PathBuf,
    props: PathBuf,
}

/// A writable copy of `fixtures/internal-topics` (log dir and server.properties).
fn scratch() -> Scratch {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs-0");
    copy_dir_readable(&fixture("internal-topics").join("logs-0"), &logs);
    let props = tmp.path().join("server.properties");
    fs::copy(fixture("internal-topics").join("server.properties"), &props).unwrap();
    Scratch {
        _tmp: tmp,
        logs,
        props,
    }
}

fn set_prop(props: &Path, key: &str, value: &str) {
    let text = fs::read_to_string(props).unwrap();
    let mut lines: Vec<String> = (text.lines())
        .filter(|l| !l.starts_with(&format!("{key}=")))
        .map(str::to_string)
        .collect();
    lines.push(format!("{key}={value}"));
    fs::write(props, lines.join("\n") + "\n").unwrap();
}

#[test]
fn the_idle_share_group_holds_the_prune_of_share_group_state() {
    let f = fixture("internal-topics");
    let d = diagnose(&f.join("logs-0"), &f.join("server.properties"));
    let found = findings(&d, "group.share_state_prune_blocked");
    assert_eq!(found.len(), 1, "{found:?}");
    let b = found[0];
    // auditors acknowledged audit-0 once, at the start; workers kept writing (manifest steps).
    assert_eq!(ev(b, "group"), "auditors");
    assert_eq!(ev(b, "topic"), "audit");
    assert_eq!(ev(b, "partition"), 0);
    assert_eq!(ev(b, "snapshot_offset"), 0);
    assert_eq!(ev(b, "share_partitions"), 2);
    // The fixture's broker pushed the cold-partition snapshot out to a day: held, not stale.
    assert_eq!(b["severity"], "info");
    assert!(
        ev(b, "share.coordinator.cold.partition.snapshot.interval.ms")
            .as_str()
            .unwrap()
            .starts_with("86400000 (server.properties)")
    );
    // What only auditors keeps: the closed segments below the next key's snapshot, recounted
    // from the files (the coordinator's redundant offset is 0: nothing is below it).
    let unblocked = ev(b, "unblocked_offset").as_i64().unwrap();
    let segs = segments(&f.join("logs-0/__share_group_state-0"));
    let (n, bytes) = closed_between(&segs, 0, unblocked);
    assert!(n >= 3, "time-rolled segments held: {segs:?}");
    assert_eq!(ev(b, "held_segments"), n as u64);
    assert_eq!(ev(b, "held_bytes"), bytes);
    // The coordinator never pruned (log start 0 in the manifest).
    let m: Value = serde_json::from_slice(&fs::read(f.join("manifest.json")).unwrap()).unwrap();
    let p = (m["partitions"].as_array().unwrap().iter())
        .find(|p| p["topic"] == "__share_group_state")
        .unwrap();
    assert_eq!(p["log_start_offset"], 0);
    assert!(b["fix"]
        .as_str()
        .unwrap()
        .contains("--delete-offsets --group auditors --topic audit"));
}

#[test]
fn past_the_cold_partition_interval_the_blocked_prune_is_a_warning() {
    let sc = scratch();
    // The snapshot of auditors was written ~20 s before the coordinator's newest write.
    set_prop(
        &sc.props,
        "share.coordinator.cold.partition.snapshot.interval.ms",
        "1000",
    );
    let d = diagnose(&sc.logs, &sc.props);
    let found = findings(&d, "group.share_state_prune_blocked");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0]["severity"], "warning");
    assert!(found[0]["message"]
        .as_str()
        .unwrap()
        .contains("grows without bound"));
}

#[test]
fn once_pruned_past_the_idle_key_nothing_is_held() {
    let sc = scratch();
    // The log start raised past auditors' two records (offsets 0 and 1), as the coordinator's
    // DeleteRecords would once auditors' key were snapshotted again: the replay starts there.
    let cp = sc.logs.join("log-start-offset-checkpoint");
    fs::write(&cp, "0\n1\n__share_group_state 0 2\n").unwrap();
    let d = diagnose(&sc.logs, &sc.props);
    assert!(
        findings(&d, "group.share_state_prune_blocked").is_empty(),
        "{:?}",
        findings(&d, "group.share_state_prune_blocked")
    );
}

#[test]
fn metadata_segments_below_the_newest_snapshot_are_redundant() {
    let f = fixture("internal-topics");
    let d = diagnose(&f.join("logs-0"), &f.join("server.properties"));
    let found = findings(&d, "metadata.log_redundant");
    assert_eq!(found.len(), 1, "{found:?}");
    let r = found[0];
    let dir = f.join("logs-0/__cluster_metadata-0");
    let newest = (fs::read_dir(&dir).unwrap())
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".checkpoint"))
        .max()
        .unwrap();
    let end: i64 = newest[..20].parse().unwrap();
    assert_eq!(ev(r, "snapshot"), newest.as_str());
    assert_eq!(ev(r, "snapshot_end_offset"), end);
    let segs = segments(&dir);
    let (n, bytes) = closed_between(&segs, -1, end);
    assert!(n >= 3, "{segs:?}");
    assert_eq!(ev(r, "redundant_bytes"), bytes);
    assert_eq!(
        ev(r, "redundant_segments")
            .as_str()
            .unwrap()
            .split(' ')
            .count(),
        n
    );
    // Seven days of metadata.max.retention.ms: nothing goes at capture time.
    assert!(r
        .get("evidence")
        .unwrap()
        .to_string()
        .contains("next_expiry_at"));
    // Snapshots every 5 s kept up with the log.
    assert!(findings(&d, "metadata.snapshot_stale").is_empty());
}

#[test]
fn metadata_snapshots_that_stopped_are_stale() {
    let sc = scratch();
    // Keep only the bootstrap snapshot and the first one the node wrote: the log runs on ~40 s
    // past it, with snapshots due every 5 s (metadata.log.max.snapshot.interval.ms).
    let dir = sc.logs.join("__cluster_metadata-0");
    let mut snaps: Vec<String> = (fs::read_dir(&dir).unwrap())
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".checkpoint"))
        .collect();
    snaps.sort();
    for n in &snaps[2..] {
        fs::remove_file(dir.join(n)).unwrap();
    }
    let d = diagnose(&sc.logs, &sc.props);
    let found = findings(&d, "metadata.snapshot_stale");
    assert_eq!(found.len(), 1, "{}", d["findings"]);
    assert_eq!(ev(found[0], "snapshot"), snaps[1].as_str());
    assert!(ev(found[0], "ms_since_snapshot").as_i64().unwrap() > 10_000);
    // With Kafka's default interval (1 h) and bytes (20 MiB) the same log is not stale.
    set_prop(
        &sc.props,
        "metadata.log.max.snapshot.interval.ms",
        "3600000",
    );
    let d = diagnose(&sc.logs, &sc.props);
    assert!(findings(&d, "metadata.snapshot_stale").is_empty());
}

#[test]
fn remote_log_metadata_without_retention_grows_without_bound() {
    // tiered-remote-retention: every tiered topic has a finite retention.ms: a bound exists.
    let f = fixture("tiered-remote-retention");
    let d = diagnose(&f.join("logs-0"), &f.join("server.properties"));
    let found = findings(&d, "tiered.metadata_topic_unbounded");
    assert_eq!(found.len(), 1, "{found:?}");
    let u = found[0];
    assert_eq!(u["severity"], "warning");
    let longest = ev(u, "longest_tiered_retention_ms").as_i64().unwrap();
    assert!(u["fix"]
        .as_str()
        .unwrap()
        .contains(&format!("retention.ms={}", longest + 86_400_000)));
    let part = u["location"]["partition"].as_i64().unwrap();
    let dir = f.join(format!("logs-0/__remote_log_metadata-{part}"));
    let bytes: u64 = segments(&dir).iter().map(|s| s.1).sum();
    assert_eq!(ev(u, "bytes"), bytes);
    // tiered-uploaded: its topic keeps remote data forever: nothing is safe, an info.
    let f = fixture("tiered-uploaded");
    let d = diagnose(&f.join("logs-0"), &f.join("server.properties"));
    let found = findings(&d, "tiered.metadata_topic_unbounded");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0]["severity"], "info");
}
