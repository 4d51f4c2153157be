//! `logclean diagnose` on every fixture scenario: the findings it was built to show, at the
//! partitions it shows them on, and nothing else (so no code on a healthy partition); filters,
//! exit codes, `log.dirs` from `server.properties`, `--deep`, read-only, and tables that fit
//! 100 columns.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;
use support::scratch::{clone_partition, copy_dir};

use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use unicode_width::UnicodeWidthStr;

/// One scenario: fixture, `--now`, expected (code, partition dir) pairs.
type Scenario = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

/// (fixture, `--now`, the (code, partition dir) pairs expected; `-` for a finding on no
/// partition). `--now` is the manifest's `captured_at` unless said otherwise.
const SCENARIOS: &[Scenario] = &[
    ("basic-delete", "2026-11-30T13:32:33Z", &[]),
    // Three hours later the retention passes have deleted what expired: still nothing kept.
    ("basic-delete", "2026-11-30T16:32:33Z", &[]),
    (
        "compacted",
        "2026-11-30T13:42:20Z",
        &[
            // Both never-cleaned compact-delete-0 (ratio 1.0) and compacted-0 (0.642 after its
            // 40 new records) are above min.cleanable.dirty.ratio 0.5; compacted-1 (0.05) is not.
            ("compaction.backlog", "compact-delete-0"),
            ("compaction.backlog", "compacted-0"),
            ("partition.leftover_deleted", "compacted-0"),
            ("partition.leftover_deleted", "compacted-1"),
        ],
    ),
    ("compression", "2026-11-30T13:34:20Z", &[]),
    (
        "consumer-groups",
        "2026-12-01T11:04:35Z",
        &[
            ("group.loses_data_next_retention", "events-0"),
            ("group.loses_data_next_retention", "events-1"),
        ],
    ),
    ("delete-records", "2026-11-30T13:34:49Z", &[]),
    (
        "future-timestamps",
        "2026-11-30T13:33:04Z",
        // The manifest: ft has message.timestamp.after.max.ms=Long.MAX_VALUE (DYNAMIC_TOPIC)
        // so the broker accepted the record stamped base+365d in segment 14.
        &[
            ("config.timestamp_after_unlimited", "-"),
            ("partition.future_timestamps", "ft-0"),
            ("plan.future_timestamp_blocks", "ft-0"),
            ("plan.retains_expired", "ft-0"),
        ],
    ),
    (
        "idle-active-segment",
        "2026-11-30T13:32:47Z",
        &[("segment.active_not_rolling", "trickle-0")],
    ),
    // 2.5 h on, trickle-0's newest record is past retention.ms too: retention rolls and
    // deletes the whole active segment, so nothing is stuck.
    ("idle-active-segment", "2026-11-30T16:00:00Z", &[]),
    (
        "kraft-metadata",
        "2026-11-30T13:35:55Z",
        &[(
            "partition.pending_delete",
            "kt-gamma-0.dd82c3f3d56d4b83947303620b9f7946-delete",
        )],
    ),
    (
        "open-txn-compacted",
        "2026-12-01T10:59:43Z",
        &[
            ("plan.compaction_blocked", "otx-0"),
            ("txn.open_long", "otx-0"),
        ],
    ),
    (
        "transactions",
        "2026-12-01T11:04:56Z",
        &[
            // Never cleaned: ratio 1.0 up to the active segment (the open transaction's
            // first offset 6 is past its base 5).
            ("compaction.backlog", "txn-compacted-0"),
            ("txn.open_long", "txn-compacted-0"),
        ],
    ),
    (
        "unclean-shutdown",
        "2026-11-30T13:34:35Z",
        // The manifest: SIGKILL with the recovery point at 8 and the log end at 17: the next
        // start recovers segments 8 and 12 of both partitions.
        &[("dir.startup_recovery", "-"), ("dir.unclean_shutdown", "-")],
    ),
    // The transaction whose coordinator state was lost hangs; g-live (committed 12:45:00.5,
    // offsets.retention.minutes=1) is inside retention at capture and past it a minute later.
    (
        "expired-hanging",
        "2026-12-01T12:45:01Z",
        &[("txn.hanging", "hang-0")],
    ),
    (
        "expired-hanging",
        "2026-12-01T12:47:00Z",
        &[
            ("group.offsets_expire", "__consumer_offsets-0"),
            ("txn.hanging", "hang-0"),
        ],
    ),
    // Nothing about the big indexes read from their tails; wide-0 keeps everything forever
    // (retention.ms=-1, no retention.bytes).
    (
        "big-index",
        "2026-12-01T18:26:43Z",
        &[("config.retention_bytes_unlimited", "-")],
    ),
];

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

fn copy_fixture(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join(name);
    copy_dir(&fixtures().join(name), &root);
    (tmp, root)
}

/// The log dirs of a fixture copy, and `--server-properties` when it has one.
fn dir_args(root: &Path) -> Vec<String> {
    let mut dirs: Vec<String> = fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("logs-"))
        .collect();
    dirs.sort();
    if root.join("server.properties").exists() {
        dirs.extend(["--server-properties".into(), "server.properties".into()]);
    }
    dirs
}

/// The filesystem figures the tests give `diagnose` (half of 1 TB free) unless a test gives
/// its own: the host's (statvfs) are no part of a fixture, and a nearly full host would add
/// `dir.disk_full` to every run.
const DISK_SPACE: &str = "500000000000,1000000000000";

/// `args` with `--disk-space` [`DISK_SPACE`] unless they give one.
fn host_independent(args: &[String]) -> Vec<String> {
    let mut a = args.to_vec();
    if !a.iter().any(|x| x == "--disk-space") {
        a.extend(["--disk-space".to_string(), DISK_SPACE.to_string()]);
    }
    a
}

/// `logclean --no-progress [global] diagnose [args]` in `root` (with [`host_independent`]
/// figures): exit code and stdout.
fn run(root: &Path, global: &[&str], args: &[String], columns: usize) -> (i32, String) {
    let args = host_independent(args);
    let out = Command::new(env!("CARGO_BIN_EXE_logclean"))
        .current_dir(root)
        .env("COLUMNS", columns.to_string())
        .env("TZ", "UTC")
        .arg("--no-progress")
        .args(global)
        .arg("diagnose")
        .args(args)
        .output()
        .unwrap();
    let code = out.status.code().expect("killed by a signal");
    assert_ne!(code, 101, "panic: {}", String::from_utf8_lossy(&out.stderr));
    (code, String::from_utf8(out.stdout).unwrap())
}

fn json(root: &Path, args: &[String]) -> (i32, Value) {
    let (code, out) = run(root, &["--format", "json"], args, 100);
    (code, serde_json::from_str(&out).unwrap())
}

fn pairs(doc: &Value) -> BTreeSet<(String, String)> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let dir = f["location"]["dir"].as_str().unwrap_or("-");
            (f["code"].as_str().unwrap().to_string(), dir.to_string())
        })
        .collect()
}

/// `diagnose`'s arguments for the dirs of `root` at `now`, with `more` and [`host_independent`]
/// figures.
fn args(root: &Path, now: &str, more: &[&str]) -> Vec<String> {
    let mut a = dir_args(root);
    a.extend(["--now".to_string(), now.to_string()]);
    a.extend(more.iter().map(|s| s.to_string()));
    host_independent(&a)
}

#[test]
fn every_scenario_shows_its_findings_and_no_others() {
    let mut failures = Vec::new();
    for (fixture, now, want) in SCENARIOS {
        let (_tmp, root) = copy_fixture(fixture);
        let (code, doc) = json(&root, &args(&root, now, &[]));
        let want: BTreeSet<(String, String)> = want
            .iter()
            .map(|(c, d)| (c.to_string(), d.to_string()))
            .collect();
        let got = pairs(&doc);
        if got != want {
            failures.push(format!("{fixture} at {now}: got {got:?}, want {want:?}"));
        }
        assert_eq!(doc["command"], "diagnose");
        assert_eq!(doc["summary"]["exit_code"], code, "{fixture}");
        let warned =
            doc["summary"]["warning"].as_u64().unwrap() + doc["summary"]["error"].as_u64().unwrap();
        assert_eq!(code, i32::from(warned > 0), "{fixture} at {now}");
        let counted: u64 = doc["by_code"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["findings"].as_u64().unwrap())
            .sum();
        assert_eq!(counted as usize, doc["findings"].as_array().unwrap().len());
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn deep_finds_the_same_on_healthy_data() {
    for (fixture, now, _) in SCENARIOS.iter().take(8) {
        let (_tmp, root) = copy_fixture(fixture);
        let (_, shallow) = json(&root, &args(&root, now, &[]));
        let (_, deep) = json(&root, &args(&root, now, &["--deep"]));
        assert_eq!(pairs(&shallow), pairs(&deep), "{fixture}");
    }
}

#[test]
fn active_not_rolling_has_its_numbers_and_fix() {
    let (_tmp, root) = copy_fixture("idle-active-segment");
    let (code, doc) = json(&root, &args(&root, "2026-11-30T13:32:47Z", &[]));
    assert_eq!(code, 1);
    let f = &doc["findings"][0];
    assert_eq!(f["code"], "segment.active_not_rolling");
    let ev = |name: &str| {
        f["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {f:#}"))["value"]
            .clone()
    };
    assert_eq!(ev("retention_ms"), 7_200_000);
    assert_eq!(ev("segment_ms"), 604_800_000);
    assert_eq!(ev("offsets"), 60);
    // 60 records from base-5h to base-5min: base-5h + 7 d is when segment.ms rolls it.
    let rolls_at = ev("rolls_at").as_i64().unwrap();
    let base_minus_5h = 1_796_045_520_000 - 5 * 3_600_000;
    assert!(rolls_at > base_minus_5h + 604_800_000, "{rolls_at}");
    let fix = f["fix"].as_str().unwrap();
    assert!(
        fix.contains("segment.ms=7200000") && fix.contains("logclean roll"),
        "{fix}"
    );
}

fn evidence(f: &Value, name: &str) -> Value {
    f["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {f:#}"))["value"]
        .clone()
}

fn finding<'a>(doc: &'a Value, code: &str, dir: &str) -> &'a Value {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == code && f["location"]["dir"] == dir)
        .unwrap_or_else(|| panic!("no {code} on {dir} in {:#}", doc["findings"]))
}

#[test]
fn compaction_backlog_has_the_cleaners_numbers_and_deep_counts_keys() {
    let (_tmp, root) = copy_fixture("compacted");
    let now = "2026-11-30T13:42:20Z";
    let (_, doc) = json(&root, &args(&root, now, &["--kind", "compaction"]));
    let f = finding(&doc, "compaction.backlog", "compacted-0");
    // cleaner-offset-checkpoint 35 (the broker's pass); segments 0 (2109 B, clean), 35, 36,
    // 47, 58 (dirty, 3774 B), 69 active.
    assert_eq!(evidence(f, "first_dirty_offset"), 35);
    assert_eq!(evidence(f, "first_uncleanable_offset"), 69);
    assert_eq!(evidence(f, "clean_bytes"), 2109);
    assert_eq!(evidence(f, "cleanable_bytes"), 3774);
    assert_eq!(evidence(f, "dirty_ratio"), "0.642");
    assert_eq!(evidence(f, "checkpoint_lag_offsets"), 41);
    assert_eq!(evidence(f, "dirty_records_at_most"), 34);
    assert_eq!(evidence(f, "keys_per_pass"), 5_033_164);
    assert_eq!(evidence(f, "passes"), 1);
    assert_eq!(evidence(f, "passes_upper_bound"), true);
    assert_eq!(evidence(f, "pass_io_bytes_at_least"), 3774 + 5883);
    assert_eq!(f["severity"], "info");
    let (_, deep) = json(
        &root,
        &args(&root, now, &["--kind", "compaction", "--deep"]),
    );
    // Offsets 35..68 hold keys k15 and k00..k19 (manifest: 20 distinct keys); compact-delete
    // has 6.
    let f = finding(&deep, "compaction.backlog", "compacted-0");
    assert_eq!(evidence(f, "distinct_keys"), 20);
    assert_eq!(evidence(f, "passes_upper_bound"), false);
    let f = finding(&deep, "compaction.backlog", "compact-delete-0");
    assert_eq!(evidence(f, "distinct_keys"), 6);
}

#[test]
fn tombstones_past_their_horizon_stay_where_no_pass_is_due() {
    let (_tmp, root) = copy_fixture("compacted");
    // The broker's pass at 2026-11-30T13:42:14.947Z stamped the tombstones k12..k14 (offsets
    // 32..34) with that instant + delete.retention.ms 1 d.
    let before = "2026-12-01T13:42:14Z";
    let (_, doc) = json(
        &root,
        &args(&root, before, &["--kind", "compaction", "--deep"]),
    );
    assert!(!pairs(&doc).iter().any(|(c, _)| c.contains("tombstones")));
    let after = "2026-12-02T14:00:00Z";
    let (_, doc) = json(
        &root,
        &args(&root, after, &["--kind", "compaction", "--deep"]),
    );
    let got: BTreeSet<_> = pairs(&doc)
        .into_iter()
        .filter(|(c, _)| c.contains("tombstones"))
        .collect();
    // compacted-0 is taken on the next pass (which drops them); compacted-1 is not.
    assert_eq!(
        got,
        BTreeSet::from([(
            "compaction.tombstones_past_horizon".into(),
            "compacted-1".into()
        )])
    );
    let f = finding(&doc, "compaction.tombstones_past_horizon", "compacted-1");
    assert_eq!(evidence(f, "tombstones"), 3);
    assert_eq!(evidence(f, "first_offset"), 32);
    assert_eq!(evidence(f, "latest_horizon"), 1_796_132_534_947_i64);
    assert_eq!(evidence(f, "blocked_by"), "ratio_not_above");
    // Without --deep the records are not read.
    let (_, shallow) = json(&root, &args(&root, after, &["--kind", "compaction"]));
    assert!(!pairs(&shallow)
        .iter()
        .any(|(c, _)| c.contains("tombstones")));
}

#[test]
fn cleaner_starvation_needs_a_rate_and_names_the_largest_log() {
    let (_tmp, root) = copy_fixture("compacted");
    let now = "2026-11-30T13:42:20Z";
    let starved = |doc: &Value| {
        pairs(doc)
            .into_iter()
            .any(|(c, _)| c == "compaction.cleaner_starved")
    };
    // No rate and log.cleaner.io.max.bytes.per.second unlimited: no time is claimed.
    let (_, doc) = json(&root, &args(&root, now, &[]));
    assert!(!starved(&doc));
    let (_, fast) = json(&root, &args(&root, now, &["--cleaner-rate", "100"]));
    assert!(!starved(&fast));
    // 1.048576 B/s: 14,763 B of I/O for 2 logs on 1 thread is over 1 h.
    let (_, slow) = json(&root, &args(&root, now, &["--cleaner-rate", "0.000001"]));
    let f = finding(&slow, "compaction.cleaner_starved", "compacted-0");
    assert_eq!(evidence(f, "logs_needing_cleaning"), 2);
    assert_eq!(evidence(f, "io_bytes_at_least"), 9657 + 5106);
    assert_eq!(evidence(f, "largest_log_io_bytes"), 9657);
    assert_eq!(evidence(f, "rate_source"), "cleaner_rate_option");
    assert_eq!(evidence(f, "threshold_ms"), 3_600_000);
    let one = evidence(f, "clear_ms_at_least").as_i64().unwrap();
    let per_log = evidence(f, "clear_ms_one_thread_per_log").as_i64().unwrap();
    assert_eq!(one, (14_763.0_f64 / 1.048_576 * 1000.0).ceil() as i64);
    assert_eq!(per_log, (9657.0_f64 / 1.048_576 * 1000.0).ceil() as i64);
    assert!(f["fix"].as_str().unwrap().contains("log.cleaner.threads=2"));
    let b = finding(&slow, "compaction.backlog", "compacted-0");
    assert_eq!(evidence(b, "clear_ms_at_least"), per_log);
    // The broker's own throttle gives the rate when no --cleaner-rate is given.
    let p = root.join("server.properties");
    let text = fs::read_to_string(&p).unwrap();
    fs::write(
        &p,
        format!("{text}\nlog.cleaner.io.max.bytes.per.second=2\n"),
    )
    .unwrap();
    let (_, throttled) = json(&root, &args(&root, now, &[]));
    let f = finding(&throttled, "compaction.cleaner_starved", "compacted-0");
    assert_eq!(
        evidence(f, "rate_source"),
        "log_cleaner_io_max_bytes_per_second"
    );
    assert_eq!(evidence(f, "clear_ms_at_least"), 7_381_500);
}

#[test]
fn a_stuck_offsets_topic_shows_what_waits_and_the_fix_for_its_blocker() {
    let (_tmp, root) = copy_fixture("compacted");
    // compacted-0 as __consumer_offsets-0 (policy compact from the broker default) with the
    // cleaner off: segments 35, 36, 47, 58 (111 + 3 × 1221 B) are dirty over 2109 B clean.
    let logs = root.join("logs-0");
    fs::rename(logs.join("compacted-0"), logs.join("__consumer_offsets-0")).unwrap();
    fs::remove_file(logs.join("__consumer_offsets-0/partition.metadata")).unwrap();
    let cp = logs.join("cleaner-offset-checkpoint");
    let text = fs::read_to_string(&cp).unwrap();
    fs::write(
        &cp,
        text.replace("compacted 0 35", "__consumer_offsets 0 35"),
    )
    .unwrap();
    let p = root.join("server.properties");
    let text = fs::read_to_string(&p).unwrap();
    fs::write(
        &p,
        format!("{text}\nlog.cleaner.enable=false\nlog.cleanup.policy=compact\n"),
    )
    .unwrap();
    let (_, doc) = json(
        &root,
        &args(&root, "2026-11-30T13:42:20Z", &["--kind", "compaction"]),
    );
    let f = finding(
        &doc,
        "compaction.offsets_topic_stuck",
        "__consumer_offsets-0",
    );
    assert_eq!(evidence(f, "stuck_bytes"), 3774);
    assert_eq!(evidence(f, "stuck_segments"), 4);
    assert_eq!(evidence(f, "trigger_bytes"), 2109);
    assert_eq!(evidence(f, "blocked_by"), "cleaner_disabled");
    assert!(
        f["fix"]
            .as_str()
            .unwrap()
            .contains("log.cleaner.enable=true"),
        "{f:#}"
    );
    // No thread runs: nothing is a backlog the cleaner takes, nothing starves.
    assert!(!pairs(&doc)
        .iter()
        .any(|(c, _)| c == "compaction.backlog" || c == "compaction.cleaner_starved"));
}

/// The first finding of `code`, wherever it is.
fn finding_any<'a>(doc: &'a Value, code: &str) -> &'a Value {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == code)
        .unwrap_or_else(|| panic!("no {code} in {:#}", doc["findings"]))
}

/// The manifest: recovery point 8 for crash-0 and crash-1 (steps), segments 0, 4, 8, 12 on
/// each, SIGKILL (no `.kafka_cleanshutdown`), `num.recovery.threads.per.data.dir=1`. The broker
/// recovers from the floor segment of the recovery point (8): segments 8 (532 B) and 12 (665 B)
/// of each partition; the metadata log (2424 B) is recovered on every start and counted apart.
#[test]
fn startup_recovery_has_the_unclean_shutdown_numbers() {
    let (_tmp, root) = copy_fixture("unclean-shutdown");
    let (_, doc) = json(&root, &args(&root, "2026-11-30T13:34:35Z", &[]));
    let f = finding_any(&doc, "dir.startup_recovery");
    assert_eq!(f["severity"], "info");
    assert_eq!(evidence(f, "segments"), 4);
    assert_eq!(evidence(f, "unclean_segments"), 4);
    assert_eq!(evidence(f, "bytes"), 2 * (532 + 665));
    assert_eq!(evidence(f, "partitions"), 2);
    assert_eq!(evidence(f, "largest_partition_bytes"), 532 + 665);
    assert_eq!(evidence(f, "recovery_threads"), 1);
    assert_eq!(evidence(f, "metadata_log_bytes"), 2424);
    // 1197 B (the largest partition bounds one thread) at 45 MB/s: 0 ms, an estimate.
    assert_eq!(evidence(f, "estimated_ms"), 0);
    let startup = &doc["log_dirs"][0]["startup"];
    assert_eq!(startup["recover_bytes"], 2394);
    assert_eq!(startup["clean_shutdown"], false);
    assert!(f["message"].as_str().unwrap().contains("estimate"));
    let table = args(
        &root,
        "2026-11-30T13:34:35Z",
        &["--disk-space", "10000,1000000"],
    );
    let (_, text) = run(&root, &[], &table, 100);
    let row = text
        .lines()
        .find(|l| l.contains("4 seg, 2.34 KiB"))
        .unwrap_or_else(|| panic!("no startup row in\n{text}"));
    assert!(row.contains("4 seg, 2.34 KiB"), "{row}");
    assert!(text.contains("9.77 KiB / 976.56 KiB"), "{text}");
    // 10000 B free is less than the recovery writes (a producer snapshot per partition at its
    // log end, one for the metadata log, checkpoint and metadata-log tmp blocks): the start
    // cannot succeed, and that is what the estimate says, not a time.
    assert!(text.contains("fails: needs"), "{text}");
    assert!(text.contains("the next start needs at least"), "{text}");
    let (_, doc) = json(&root, &table);
    let boot = &doc["log_dirs"][0]["startup"]["boot"];
    assert_eq!(boot["snapshot_files"], 3, "{boot}");
    assert!(boot["needs_bytes"].as_u64().unwrap() > 10_000, "{boot}");
    assert!(pairs(&doc).iter().any(|(c, _)| c == "dir.disk_full"));
    // After a clean shutdown only the metadata log is read again: no finding, figures kept.
    let (_tmp, root) = copy_fixture("basic-delete");
    let (_, doc) = json(&root, &args(&root, "2026-11-30T13:32:33Z", &[]));
    assert!(pairs(&doc).iter().all(|(c, _)| c != "dir.startup_recovery"));
    assert_eq!(doc["log_dirs"][0]["startup"]["recover_bytes"], 0);
    assert_eq!(doc["log_dirs"][0]["startup"]["metadata_log_segments"], 1);
}

/// `--disk-space` replaces statvfs; the growth rate is the kept bytes over their record-time
/// window: crash-0 and crash-1 each keep 2261 B written from base-10min-ish over the records'
/// span, neither at its retention bound (7 d), so both grow.
#[test]
fn disk_projection_uses_given_space_and_growth() {
    let (_tmp, root) = copy_fixture("unclean-shutdown");
    let now = "2026-11-30T13:34:35Z";
    let (code, doc) = json(&root, &args(&root, now, &["--disk-space", "10000,1000000"]));
    assert_eq!(code, 1);
    let d = &doc["log_dirs"][0]["disk"];
    assert_eq!(d["fs_free_bytes"], 10_000);
    assert_eq!(d["fs_total_bytes"], 1_000_000);
    assert_eq!(d["bytes"], 4522);
    assert_eq!(d["partitions_with_rate"], 2);
    assert_eq!(d["partitions_growing"], 2);
    let growth = d["growth_bytes_per_hour"].as_u64().unwrap();
    assert!(growth > 0 && growth == d["write_bytes_per_hour"].as_u64().unwrap());
    let ms = d["ms_until_full"].as_i64().unwrap();
    assert_eq!(ms as u64, 10_000 * 3_600_000 / growth);
    let f = finding_any(&doc, "dir.disk_full_soon");
    let want = if ms < 6 * 3_600_000 {
        "error"
    } else {
        "warning"
    };
    assert_eq!(f["severity"], want);
    assert_eq!(evidence(f, "ms_until_full"), ms);
    // Plenty of space: the figures, no finding.
    let (_, doc) = json(
        &root,
        &args(&root, now, &["--disk-space", "10000000000,20000000000"]),
    );
    assert!(pairs(&doc).iter().all(|(c, _)| c != "dir.disk_full_soon"));
    assert!(
        doc["log_dirs"][0]["disk"]["ms_until_full"]
            .as_i64()
            .unwrap()
            > ms
    );
    let (code, _) = run(&root, &[], &args(&root, now, &["--disk-space", "5,4"]), 100);
    assert_eq!(code, 3, "FREE above TOTAL is a usage error");
}

/// The manifest: ft-0 segment 14 holds one record stamped base+365d (base 2026-11-30T13:32:00Z,
/// `base_time_ms` 1796045520000), captured 64 s after base.
#[test]
fn future_timestamps_say_how_far_ahead() {
    let (_tmp, root) = copy_fixture("future-timestamps");
    let (_, doc) = json(&root, &args(&root, "2026-11-30T13:33:04Z", &[]));
    let f = finding_any(&doc, "partition.future_timestamps");
    assert_eq!(f["location"]["segment"], 14);
    assert_eq!(evidence(f, "worst_segment"), 14);
    let worst = 1_796_045_520_000_i64 + 365 * 86_400_000;
    assert_eq!(evidence(f, "worst_timestamp"), worst);
    assert_eq!(evidence(f, "ahead_ms"), worst - 1_796_045_584_000);
    assert_eq!(evidence(f, "segments"), 1);
    // retention.ms 1 d: the segment can expire one day after its timestamp.
    assert_eq!(evidence(f, "expires_at"), worst + 86_400_000);
    let c = finding_any(&doc, "config.timestamp_after_unlimited");
    assert_eq!(evidence(c, "value"), "9223372036854775807");
    assert_eq!(evidence(c, "source"), "DYNAMIC_TOPIC_CONFIG");
    assert_eq!(evidence(c, "suggested"), "3600000");
}

/// The finding `code` on partition dir `dir`, if any.
fn finding_on<'a>(doc: &'a Value, code: &str, dir: &str) -> Option<&'a Value> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == code && f["location"]["dir"] == dir)
}

#[test]
fn compact_only_topics_never_expire_by_time() {
    let (_tmp, root) = copy_fixture("compacted");
    // Ten years on, the compact-only topic's segments hold records far older than
    // retention.ms (7 d): no time pass runs for them, so none is kept "although expired" and
    // nothing waits on a roll.
    let (_, doc) = json(&root, &args(&root, "2036-12-01T00:00:00Z", &[]));
    for dir in ["compacted-0", "compacted-1"] {
        for code in ["plan.retains_expired", "segment.active_not_rolling"] {
            assert!(
                finding_on(&doc, code, dir).is_none(),
                "{dir}: {:#}",
                doc["findings"]
            );
        }
    }
    // Before the records were written they are all in the future: compact,delete can expire
    // them by time, compact-only cannot.
    let (_, doc) = json(&root, &args(&root, "2026-06-01T00:00:00Z", &[]));
    let cd = finding_on(&doc, "partition.future_timestamps", "compact-delete-0").unwrap();
    assert!(cd["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["name"] == "expires_at"));
    for dir in ["compacted-0", "compacted-1"] {
        let f = finding_on(&doc, "partition.future_timestamps", dir).unwrap();
        assert!(
            f["evidence"]
                .as_array()
                .unwrap()
                .iter()
                .all(|e| e["name"] != "expires_at"),
            "{f:#}"
        );
        assert!(f["message"]
            .as_str()
            .unwrap()
            .ends_with("never by time (cleanup.policy compact)"));
    }
}

#[test]
fn filters_narrow_findings_and_summary() {
    let (_tmp, root) = copy_fixture("open-txn-compacted");
    let now = "2026-12-01T10:59:43Z";
    let (_, by_kind) = json(&root, &args(&root, now, &["--kind", "txn"]));
    assert_eq!(
        pairs(&by_kind),
        BTreeSet::from([("txn.open_long".into(), "otx-0".into())])
    );
    let (_, by_code) = json(
        &root,
        &args(&root, now, &["--kind", "plan.compaction_blocked"]),
    );
    assert_eq!(
        pairs(&by_code),
        BTreeSet::from([("plan.compaction_blocked".into(), "otx-0".into())])
    );
    let (code, none) = json(&root, &args(&root, now, &["--min-severity", "error"]));
    assert_eq!((code, pairs(&none)), (0, BTreeSet::new()));
    let (code, other) = json(&root, &args(&root, now, &["--topic", "no-such-topic"]));
    assert_eq!((code, pairs(&other)), (0, BTreeSet::new()));
    assert_eq!(other["top_partitions"], serde_json::json!([]));
    let (code, _) = json(&root, &args(&root, now, &["--fail-on", "error"]));
    assert_eq!(code, 0);
    let (code, otx) = json(&root, &args(&root, now, &["--topic", "otx"]));
    assert_eq!(code, 1);
    assert_eq!(pairs(&otx).len(), 2, "{:#}", otx["findings"]);
    let top = otx["top_partitions"].as_array().unwrap();
    assert!(
        !top.is_empty() && top.iter().all(|p| p["topic"] == "otx"),
        "{top:?}"
    );
}

/// Everything but the host's free space (statvfs, which other processes change between two
/// runs): `--disk-space` fixes that too.
#[test]
fn a_saved_dir_gives_the_same_report_at_the_same_now() {
    let (_tmp, root) = copy_fixture("idle-active-segment");
    let a = args(
        &root,
        "2026-11-30T13:32:47Z",
        &["--disk-space", "1000000000,2000000000"],
    );
    let (_, mut first) = json(&root, &a);
    std::thread::sleep(std::time::Duration::from_millis(5));
    let (_, mut second) = json(&root, &a);
    assert_eq!(first["evaluated_at_ms"], 1_796_045_567_000_i64);
    for d in [&mut first, &mut second] {
        d.as_object_mut().unwrap().remove("generated_at_ms");
    }
    assert_eq!(first, second);
}

#[test]
fn log_dirs_come_from_server_properties() {
    let (_tmp, root) = copy_fixture("basic-delete");
    let a = [
        "--server-properties",
        "server.properties",
        "--now",
        "2026-11-30T13:32:33Z",
    ]
    .map(String::from);
    let (code, doc) = json(&root, &a);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(doc["summary"]["log_dirs"], 2);
    assert_eq!(doc["log_dirs"].as_array().unwrap().len(), 2);
    let freed: u64 = doc["log_dirs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["freed_bytes"].as_u64().unwrap())
        .sum();
    let bytes: u64 = doc["log_dirs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["bytes"].as_u64().unwrap())
        .sum();
    assert!(freed <= bytes);
    let top = doc["top_partitions"].as_array().unwrap();
    assert!(!top.is_empty());
    let kept: Vec<u64> = top
        .iter()
        .map(|p| p["retained_bytes"].as_u64().unwrap())
        .collect();
    assert!(kept.windows(2).all(|w| w[0] >= w[1]), "{kept:?}");
}

#[test]
fn unreadable_dir_exits_3_and_no_dir_or_unknown_kind_is_a_usage_error() {
    let (code, _) = run(&fixtures(), &[], &["/no/such/dir".to_string()], 100);
    assert_eq!(code, 3);
    let (code, _) = run(&fixtures(), &[], &[], 100);
    assert_eq!(code, 3);
    let a = ["basic-delete/logs-0", "--kind", "plan.no_such_code"].map(String::from);
    assert_eq!(run(&fixtures(), &[], &a, 100).0, 3);
}

/// Every path with its bytes and mode.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>, u32)> {
    let mut out: Vec<_> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .map(|e| {
            let bytes = if e.file_type().is_file() {
                fs::read(e.path()).unwrap()
            } else {
                Vec::new()
            };
            (
                e.path().to_path_buf(),
                bytes,
                e.metadata().unwrap().permissions().mode(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn diagnose_leaves_the_dirs_byte_identical() {
    for fixture in [
        "idle-active-segment",
        "open-txn-compacted",
        "unclean-shutdown",
    ] {
        let (_tmp, root) = copy_fixture(fixture);
        let before = snapshot(&root);
        for more in [&[][..], &["--deep"][..]] {
            run(&root, &[], &args(&root, "2026-12-01T00:00:00Z", more), 100);
            run(
                &root,
                &["--format", "json"],
                &args(&root, "2026-12-01T00:00:00Z", more),
                100,
            );
        }
        assert_eq!(snapshot(&root), before, "diagnose changed {fixture}");
    }
}

#[test]
fn tables_fit_100_columns() {
    for (fixture, now, want) in SCENARIOS {
        let (_tmp, root) = copy_fixture(fixture);
        let (_, text) = run(&root, &[], &args(&root, now, &[]), 100);
        let widest = text.lines().map(UnicodeWidthStr::width).max().unwrap_or(0);
        assert!(widest <= 100, "{fixture}: {widest} columns\n{text}");
        assert!(text.starts_with("diagnosis"), "{text}");
        for (code, _) in *want {
            assert!(text.contains(code), "{fixture}: no {code} in\n{text}");
        }
        if want.is_empty() {
            assert!(text.contains("no findings"), "{text}");
        }
        if *fixture == "compacted" {
            // 38 leftover files on two partitions: one row that lists them.
            assert_eq!(
                text.matches("partition.leftover_deleted").count(),
                2,
                "{text}"
            );
            assert!(text.contains("38 files in 2 partitions"), "{text}");
        }
    }
}

/// `logclean --no-progress --format json COMMAND args` in `root` with `threads` rayon threads:
/// stdout, without the wall-clock `generated_at_ms`.
fn json_at_threads(root: &Path, command: &str, args: &[String], threads: usize) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_logclean"))
        .current_dir(root)
        .env("RAYON_NUM_THREADS", threads.to_string())
        .args(["--no-progress", "--format", "json", command])
        .args(args)
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(101), "{command}: panic");
    let mut doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    doc.as_object_mut().unwrap().remove("generated_at_ms");
    doc
}

#[test]
fn planning_and_replays_give_the_same_documents_at_1_and_4_threads() {
    let mut compared = 0;
    for (fixture, now, _) in SCENARIOS {
        let (_tmp, root) = copy_fixture(fixture);
        let mut a = dir_args(&root);
        a.extend(["--now".to_string(), now.to_string()]);
        // The host's free space changes between two runs: give it.
        let mut d = a.clone();
        d.extend([
            "--disk-space".to_string(),
            "1000000000,2000000000".to_string(),
        ]);
        let mut at = dir_args(&root);
        at.extend(["--at".to_string(), now.to_string()]);
        for (command, args) in [
            ("diagnose", &d),
            ("plan", &at),
            ("groups", &a),
            ("transactions", &a),
        ] {
            let serial = json_at_threads(&root, command, args, 1);
            let parallel = json_at_threads(&root, command, args, 4);
            assert_eq!(serial, parallel, "{fixture}: {command}");
            compared += 1;
        }
    }
    assert_eq!(compared, SCENARIOS.len() * 4);
}

/// `logclean --no-progress --format prometheus [command] args` in `root`: exit code, stdout with
/// `root`'s canonical path written `ROOT`, stderr.
fn prometheus(root: &Path, command: &str, args: &[String]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_logclean"))
        .current_dir(root)
        .args(["--no-progress", "--format", "prometheus", command])
        .args(args)
        .output()
        .unwrap();
    let canonical = root.canonicalize().unwrap();
    let text = String::from_utf8(out.stdout)
        .unwrap()
        .replace(canonical.to_str().unwrap(), "ROOT");
    let stderr = String::from_utf8(out.stderr).unwrap();
    (out.status.code().expect("killed by a signal"), text, stderr)
}

/// One sample read back: metric name, labels in order, value.
type Sample = (String, Vec<(String, String)>, f64);

/// A strict reader of the Prometheus text exposition format (0.0.4) as node_exporter's textfile
/// collector takes it, narrowed to what logclean must write: every family `# HELP`, then
/// `# TYPE name gauge`, then its samples `name{label="value",...} value` (no timestamps, no
/// trailing comma, no blank lines); names and label names valid, label values escaped, values
/// finite numbers, no family or series twice. Returns the samples (name, labels, value) in order.
fn parse_exposition(text: &str) -> Vec<Sample> {
    fn valid_name(s: &str) -> bool {
        let mut c = s.chars();
        c.next()
            .is_some_and(|f| f.is_ascii_alphabetic() || f == '_' || f == ':')
            && c.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
    }
    fn valid_label_name(s: &str) -> bool {
        let mut c = s.chars();
        !s.starts_with("__")
            && c.next()
                .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
            && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
    }
    /// An escaped label value up to its closing quote: (value, rest after the quote).
    fn label_value(s: &str) -> (String, &str) {
        let mut out = String::new();
        let mut chars = s.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => return (out, &s[i + 1..]),
                '\\' => match chars.next() {
                    Some((_, '\\')) => out.push('\\'),
                    Some((_, '"')) => out.push('"'),
                    Some((_, 'n')) => out.push('\n'),
                    other => panic!("bad escape {other:?} in {s:?}"),
                },
                '\n' => panic!("raw line feed in a label value"),
                c => out.push(c),
            }
        }
        panic!("unterminated label value: {s:?}")
    }
    assert!(text.ends_with('\n'), "no final line feed");
    let mut families = BTreeSet::new();
    let mut series = BTreeSet::new();
    let mut samples = Vec::new();
    let mut current: Option<String> = None;
    let mut expect_type: Option<String> = None;
    for line in text.lines() {
        assert!(!line.is_empty(), "blank line");
        assert_eq!(line, line.trim_end(), "trailing space: {line:?}");
        if let Some(rest) = line.strip_prefix("# HELP ") {
            assert!(expect_type.is_none(), "HELP without TYPE before {line:?}");
            let (name, help) = rest.split_once(' ').expect("HELP name text");
            assert!(valid_name(name), "metric name {name:?}");
            assert!(name.starts_with("logclean_"), "{name}: not logclean_");
            assert!(!help.is_empty(), "{name}: empty help");
            let mut h = help.chars();
            while let Some(c) = h.next() {
                if c == '\\' {
                    assert!(
                        matches!(h.next(), Some('\\' | 'n')),
                        "{name}: bad help escape"
                    );
                }
            }
            assert!(families.insert(name.to_string()), "{name}: family twice");
            expect_type = Some(name.to_string());
            current = None;
            continue;
        }
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let want = expect_type.take().expect("TYPE without HELP");
            assert_eq!(rest, format!("{want} gauge"), "TYPE line");
            current = Some(want);
            continue;
        }
        assert!(!line.starts_with('#'), "other comment: {line:?}");
        let family = current.clone().expect("sample before its TYPE");
        let (name, mut rest) = match line.find(['{', ' ']) {
            Some(i) => (&line[..i], &line[i..]),
            None => panic!("sample without value: {line:?}"),
        };
        assert_eq!(name, family, "sample of another family");
        let mut labels = Vec::new();
        if let Some(mut inner) = rest.strip_prefix('{') {
            loop {
                let (lname, after) = inner.split_once("=\"").expect("label=\"value\"");
                assert!(valid_label_name(lname), "label name {lname:?}");
                assert!(
                    labels.iter().all(|(n, _): &(String, String)| n != lname),
                    "label {lname} twice"
                );
                let (value, after) = label_value(after);
                labels.push((lname.to_string(), value));
                if let Some(a) = after.strip_prefix(',') {
                    assert!(!a.starts_with('}'), "trailing comma");
                    inner = a;
                } else {
                    rest = after.strip_prefix('}').expect("closing brace");
                    break;
                }
            }
        }
        let value = rest.strip_prefix(' ').expect("one space before the value");
        assert!(
            !value.contains(' '),
            "a timestamp or junk after the value: {line:?}"
        );
        let v: f64 = value.parse().unwrap_or_else(|_| panic!("value {value:?}"));
        assert!(v.is_finite(), "value {value}");
        assert!(
            series.insert((name.to_string(), labels.clone())),
            "series twice: {line}"
        );
        samples.push((name.to_string(), labels, v));
    }
    assert!(expect_type.is_none(), "HELP without TYPE at the end");
    samples
}

/// `diagnose --format prometheus` on consumer-groups at its capture time, byte for byte.
const CONSUMER_GROUPS_PROM: &str = r#"# HELP logclean_diagnose_timestamp_seconds The instant the diagnosis was evaluated at (the run's wall clock, or --now), seconds since the epoch.
# TYPE logclean_diagnose_timestamp_seconds gauge
logclean_diagnose_timestamp_seconds 1796123075
# HELP logclean_diagnose_exit_code Exit code of the run that wrote these metrics: 0 fine, 1 findings at or above --fail-on, 2 corrupt data found.
# TYPE logclean_diagnose_exit_code gauge
logclean_diagnose_exit_code 1
# HELP logclean_findings Findings kept by the filters, per code, severity and topic (topic empty: about a log dir or a config).
# TYPE logclean_findings gauge
logclean_findings{code="group.loses_data_next_retention",severity="warning",topic="events"} 4
# HELP logclean_findings_by_severity Findings kept by the filters, per severity.
# TYPE logclean_findings_by_severity gauge
logclean_findings_by_severity{severity="error"} 0
logclean_findings_by_severity{severity="info"} 0
logclean_findings_by_severity{severity="warning"} 4
# HELP logclean_findings_by_class Findings kept by the filters, per class: condition, corruption (bytes that break their format), io (files or dirs that could not be read).
# TYPE logclean_findings_by_class gauge
logclean_findings_by_class{class="condition"} 4
logclean_findings_by_class{class="corruption"} 0
logclean_findings_by_class{class="io"} 0
# HELP logclean_scan_log_dirs Log dirs read.
# TYPE logclean_scan_log_dirs gauge
logclean_scan_log_dirs 1
# HELP logclean_scan_partitions Partition dirs read.
# TYPE logclean_scan_partitions gauge
logclean_scan_partitions 9
# HELP logclean_scan_segments Segments read.
# TYPE logclean_scan_segments gauge
logclean_scan_segments 23
# HELP logclean_scan_log_bytes Bytes of .log files read.
# TYPE logclean_scan_log_bytes gauge
logclean_scan_log_bytes 15297
# HELP logclean_log_dir_bytes Bytes of .log files per log dir (of the topics kept by --topic).
# TYPE logclean_log_dir_bytes gauge
logclean_log_dir_bytes{log_dir="ROOT/logs-0"} 10804
# HELP logclean_log_dir_partitions Partition replicas planned per log dir.
# TYPE logclean_log_dir_partitions gauge
logclean_log_dir_partitions{log_dir="ROOT/logs-0"} 8
# HELP logclean_next_retention_freed_bytes Bytes the broker's next retention pass deletes, per log dir.
# TYPE logclean_next_retention_freed_bytes gauge
logclean_next_retention_freed_bytes{log_dir="ROOT/logs-0"} 2688
# HELP logclean_next_retention_freed_segments Segments the broker's next retention pass deletes, per log dir.
# TYPE logclean_next_retention_freed_segments gauge
logclean_next_retention_freed_segments{log_dir="ROOT/logs-0"} 6
# HELP logclean_fs_free_bytes Free bytes of the log dir's filesystem (statvfs, or --disk-space).
# TYPE logclean_fs_free_bytes gauge
logclean_fs_free_bytes{log_dir="ROOT/logs-0"} 500000000000
# HELP logclean_fs_total_bytes Total bytes of the log dir's filesystem (statvfs, or --disk-space).
# TYPE logclean_fs_total_bytes gauge
logclean_fs_total_bytes{log_dir="ROOT/logs-0"} 1000000000000
# HELP logclean_log_dir_growth_bytes_per_hour Growth of the log dir from record timestamps: write rates of the partitions retention does not yet hold.
# TYPE logclean_log_dir_growth_bytes_per_hour gauge
logclean_log_dir_growth_bytes_per_hour{log_dir="ROOT/logs-0"} 710
# HELP logclean_log_dir_full_in_seconds Time until the log dir's filesystem is full at its growth rate (absent: it does not grow).
# TYPE logclean_log_dir_full_in_seconds gauge
logclean_log_dir_full_in_seconds{log_dir="ROOT/logs-0"} 2535211267605.633
# HELP logclean_startup_recovery_segments Segments the broker's next start recovers (unclean shutdown, missing indexes, .swap), metadata log apart.
# TYPE logclean_startup_recovery_segments gauge
logclean_startup_recovery_segments{log_dir="ROOT/logs-0"} 0
# HELP logclean_startup_recovery_bytes Bytes the broker's next start recovers, metadata log apart.
# TYPE logclean_startup_recovery_bytes gauge
logclean_startup_recovery_bytes{log_dir="ROOT/logs-0"} 0
# HELP logclean_startup_recovery_estimate_seconds Estimated time of that recovery (45 MB/s per num.recovery.threads.per.data.dir thread).
# TYPE logclean_startup_recovery_estimate_seconds gauge
logclean_startup_recovery_estimate_seconds{log_dir="ROOT/logs-0"} 0
# HELP logclean_topic_bytes Bytes of .log files per topic and log dir.
# TYPE logclean_topic_bytes gauge
logclean_topic_bytes{log_dir="ROOT/logs-0",topic="__consumer_offsets"} 3060
logclean_topic_bytes{log_dir="ROOT/logs-0",topic="__transaction_state"} 1024
logclean_topic_bytes{log_dir="ROOT/logs-0",topic="events"} 6720
# HELP logclean_topic_retained_bytes Bytes per topic and log dir that stay after the next retention pass.
# TYPE logclean_topic_retained_bytes gauge
logclean_topic_retained_bytes{log_dir="ROOT/logs-0",topic="__consumer_offsets"} 3060
logclean_topic_retained_bytes{log_dir="ROOT/logs-0",topic="__transaction_state"} 1024
logclean_topic_retained_bytes{log_dir="ROOT/logs-0",topic="events"} 4032
# HELP logclean_topic_partitions Partition replicas planned per topic and log dir.
# TYPE logclean_topic_partitions gauge
logclean_topic_partitions{log_dir="ROOT/logs-0",topic="__consumer_offsets"} 3
logclean_topic_partitions{log_dir="ROOT/logs-0",topic="__transaction_state"} 3
logclean_topic_partitions{log_dir="ROOT/logs-0",topic="events"} 2
# HELP logclean_tiered_local_bytes Bytes of local .log files per remote-enabled partition.
# TYPE logclean_tiered_local_bytes gauge
# HELP logclean_tiered_remote_bytes Bytes in remote storage (COPY_SEGMENT_FINISHED) per remote-enabled partition, when its __remote_log_metadata partition was read.
# TYPE logclean_tiered_remote_bytes gauge
# HELP logclean_tiered_waiting_for_upload_bytes Bytes of closed local segments not yet in remote storage, when known.
# TYPE logclean_tiered_waiting_for_upload_bytes gauge
# HELP logclean_tiered_retention_size_in_percent Kafka's RetentionSizeInPercent (KIP-1257): (only-local + remote bytes) * 100 / retention.bytes, as the broker computes it.
# TYPE logclean_tiered_retention_size_in_percent gauge
# HELP logclean_tiered_local_retention_size_in_percent Kafka's LocalRetentionSizeInPercent (KIP-1257): local bytes * 100 / effective local.retention.bytes, as the broker computes it.
# TYPE logclean_tiered_local_retention_size_in_percent gauge
"#;

#[test]
fn prometheus_textfile_is_exact_and_valid_on_a_fixture() {
    let (_tmp, root) = copy_fixture("consumer-groups");
    // The host's filesystem is not part of the fixture: give it.
    let a = args(
        &root,
        "2026-12-01T11:04:35Z",
        &["--disk-space", "500000000000,1000000000000"],
    );
    let (code, text, _) = prometheus(&root, "diagnose", &a);
    assert_eq!(code, 1, "findings at warning");
    // The attribution's blocks are the host filesystem's (its block size, its allocation):
    // checked by tests/disk_space.rs, left out of the exact text here.
    let host_free: String = text
        .lines()
        .filter(|l| !l.contains("_space_bytes"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(text.contains("logclean_space_bytes{log_dir=\"ROOT/logs-0\",reason=\"bookkeeping\"}"));
    assert_eq!(host_free, CONSUMER_GROUPS_PROM);
    let samples = parse_exposition(&text);
    let value = |name: &str| samples.iter().find(|s| s.0 == name).map(|s| s.2);
    assert_eq!(
        value("logclean_diagnose_timestamp_seconds"),
        Some(1_796_123_075.0)
    );
    // The JSON document of the same run has the same counts.
    let (_, doc) = json(&root, &a);
    let findings = doc["findings"].as_array().unwrap().len() as f64;
    let counted: f64 = samples
        .iter()
        .filter(|s| s.0 == "logclean_findings")
        .map(|s| s.2)
        .sum();
    assert_eq!(counted, findings);
    assert_eq!(
        value("logclean_scan_segments"),
        doc["summary"]["segments"].as_f64()
    );
    // Stable: the same bytes again.
    assert_eq!(prometheus(&root, "diagnose", &a).1, text);
}

#[test]
fn prometheus_textfile_parses_on_every_scenario_and_with_filters() {
    for (fixture, now, _) in SCENARIOS {
        let (_tmp, root) = copy_fixture(fixture);
        for more in [&[][..], &["--topic", "nope"][..], &["--deep"][..]] {
            let (code, text, stderr) = prometheus(&root, "diagnose", &args(&root, now, more));
            assert!(code == 0 || code == 1, "{fixture}: exit {code}: {stderr}");
            let samples = parse_exposition(&text);
            let families: BTreeSet<&str> = text
                .lines()
                .filter_map(|l| l.strip_prefix("# TYPE "))
                .filter_map(|l| l.split(' ').next())
                .collect();
            assert_eq!(families.len(), 30, "{fixture}: every family, even empty");
            assert!(samples.iter().any(|s| s.0 == "logclean_scan_log_dirs"));
        }
    }
}

#[test]
fn prometheus_label_values_are_escaped() {
    // A log dir whose path holds a double quote and a backslash: escaped in the label.
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("q\"x\\y");
    copy_dir(&fixtures().join("basic-delete"), &root);
    let canonical = tmp.path().canonicalize().unwrap();
    let mut raw = Command::new(env!("CARGO_BIN_EXE_logclean"));
    raw.current_dir(&root)
        .args(["--no-progress", "--format", "prometheus", "diagnose"])
        .args(args(&root, "2026-11-30T13:32:33Z", &[]));
    let out = String::from_utf8(raw.output().unwrap().stdout).unwrap();
    // name_text doubles the backslash, the exposition format escapes both characters again.
    let want = format!(
        "log_dir=\"{}/q\\\"x\\\\\\\\y/logs-0\"",
        canonical.to_str().unwrap()
    );
    assert!(out.contains(&want), "{want} not in\n{out}");
    let samples = parse_exposition(&out);
    let dir = format!("{}/q\"x\\\\y/logs-0", canonical.to_str().unwrap());
    assert!(samples
        .iter()
        .any(|s| s.0 == "logclean_log_dir_bytes" && s.1 == [("log_dir".to_string(), dir.clone())]));
}

#[test]
fn prometheus_is_refused_by_the_other_commands() {
    let (_tmp, root) = copy_fixture("basic-delete");
    for command in ["inspect", "plan", "groups", "transactions", "config"] {
        let (code, text, stderr) = prometheus(&root, command, &["logs-0".to_string()]);
        assert_eq!(code, 3, "{command}");
        assert!(text.is_empty(), "{command}: {text}");
        assert!(
            stderr.contains("--format prometheus is only offered by `logclean diagnose`"),
            "{command}: {stderr}"
        )
    }
}

/// Issue 20: one finding per topic for a per-topic fact, one finding for one fact. Every topic
/// of the compression fixture gets the removed `message.format.version` as its own override (as
/// a 3.x cluster's describe output carries it), plus one removed broker key: `config` reports one
/// `config.removed_key` per topic (at that topic) and one at broker level, and the diagnose merge
/// keeps them all (it kept 1 of the 7 before: they shared one place, the first log dir).
#[test]
fn per_topic_findings_survive_the_merge_one_per_topic() {
    use logclean::checks::config::config_findings;
    use logclean::checks::location::dedup_findings;
    use logclean::model::cluster::{ClusterInputs, ClusterView, FileInput};

    let log_dir = fixtures().join("compression/logs-0");
    let mut topics: Vec<String> = fs::read_dir(&log_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| {
            !n.starts_with("__")
                && n.rsplit_once('-')
                    .is_some_and(|(_, p)| p.parse::<u32>().is_ok())
        })
        .map(|n| n.rsplit_once('-').unwrap().0.to_string())
        .collect();
    topics.sort();
    topics.dedup();
    assert_eq!(topics.len(), 6, "{topics:?}");
    // A 3.x cluster's describe output: each topic's own override of the removed key; and a
    // removed broker key in server.properties (reported once, at no topic).
    let described: String = topics
        .iter()
        .map(|t| {
            format!(
                "Dynamic configs for topic {t} are:\n  message.format.version=2.8 \
                 sensitive=false synonyms={{DYNAMIC_TOPIC_CONFIG:message.format.version=2.8}}\n"
            )
        })
        .collect();
    let view = ClusterView::build(&ClusterInputs {
        log_dirs: vec![log_dir],
        describe_file: Some(FileInput::Bytes {
            name: "describe".into(),
            bytes: described.into_bytes(),
        }),
        server_properties: Some(FileInput::Bytes {
            name: "server.properties".into(),
            bytes: b"log.message.timestamp.difference.max.ms=60000\n".to_vec(),
        }),
        ..ClusterInputs::default()
    })
    .unwrap();
    let mut findings = config_findings(&view);
    dedup_findings(&mut findings);
    let removed: Vec<Option<&str>> = findings
        .iter()
        .filter(|f| f.code == "config.removed_key")
        .map(|f| f.location.topic.as_deref())
        .collect();
    let mut want: Vec<Option<&str>> = topics.iter().map(|t| Some(t.as_str())).collect();
    want.push(None);
    let mut got = removed.clone();
    got.sort();
    want.sort();
    assert_eq!(got, want, "{findings:#?}");
}

/// A fixture's log dir relabelled as another cluster's, beside another fixture's log dir.
fn two_clusters() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    copy_dir(&fixtures().join("basic-delete/logs-0"), &root.join("a"));
    copy_dir(&fixtures().join("compacted/logs-0"), &root.join("b"));
    let meta = root.join("b/meta.properties");
    let text = fs::read_to_string(&meta).unwrap();
    fs::write(
        &meta,
        text.replace("TG9nQ2xlYW5GaXh0dXJlcw", "T3RoZXJDbHVzdGVyMDAwMA"),
    )
    .unwrap();
    (tmp, root)
}

/// Issue 20: `config` and `inspect` both see log dirs of two clusters; a log dir named
/// relative (`a`) and absolute (`/tmp/…/b`) printed `dir.cluster_mismatch` twice (once per
/// spelling). One fact, one finding, and the same document however the dirs are spelled.
#[test]
fn one_fact_is_one_finding_however_the_dirs_are_spelled() {
    let (_tmp, root) = two_clusters();
    let now = ["--now".to_string(), "2026-11-30T13:42:20Z".to_string()];
    let spell = |a: &str, b: &str| -> Value {
        let mut args = vec![a.to_string(), b.to_string()];
        args.extend(now.iter().cloned());
        json(&root, &args).1["findings"].clone()
    };
    let abs = |n: &str| root.join(n).to_str().unwrap().to_string();
    let mixed = spell("a", &abs("b"));
    let mismatches = |findings: &Value| {
        findings
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["code"] == "dir.cluster_mismatch")
            .count()
    };
    assert_eq!(mismatches(&mixed), 1, "{mixed:#}");
    let canonical_a = fs::canonicalize(root.join("a")).unwrap();
    assert_eq!(
        mixed[0]["location"]["log_dir"],
        canonical_a.to_str().unwrap()
    );
    assert_eq!(mixed, spell(&abs("a"), "b"));
    assert_eq!(mixed, spell("./a", "b/"));
    // The same dir named twice is one log dir.
    let mut args = vec!["a".to_string(), abs("a")];
    args.extend(now.iter().cloned());
    let (_, once) = json(&root, &args);
    let mut args = vec!["a".to_string()];
    args.extend(now.iter().cloned());
    let (_, alone) = json(&root, &args);
    assert_eq!(once["findings"], alone["findings"]);
    assert_eq!(once["log_dirs"].as_array().unwrap().len(), 1);
}

fn evidence_text(f: &Value, name: &str) -> String {
    evidence(f, name).as_str().unwrap().to_string()
}

/// Issue 20: `dir.startup_recovery` on a ZooKeeper-mode dir (unclean-shutdown's `logs-0` as a
/// 3.x ZooKeeper broker leaves it: v0 `meta.properties`, no `__cluster_metadata-0`). There is
/// no metadata log to mention, and with `num.recovery.threads.per.data.dir` unset the broker is
/// 3.x, whose default is 1 thread (2 only since 4.0): it assumed 4.x's 2 before.
#[test]
fn startup_recovery_in_zookeeper_mode_assumes_3x_threads_and_no_metadata_log() {
    let (tmp, dir) = support::zookeeper_mode_copy(&fixtures().join("unclean-shutdown/logs-0"));
    let root = tmp.path();
    let now = "2026-11-30T13:34:35Z";
    let run_with = |more: &[&str]| {
        let mut a = vec![
            dir.to_str().unwrap().to_string(),
            "--now".into(),
            now.into(),
        ];
        a.extend(more.iter().map(|s| s.to_string()));
        json(root, &a).1
    };
    let doc = run_with(&[]);
    assert!(pairs(&doc).contains(&("config.zookeeper_mode".into(), "-".into())));
    let f = finding_any(&doc, "dir.startup_recovery");
    assert_eq!(evidence(f, "segments"), 4);
    assert_eq!(evidence(f, "partitions"), 2);
    assert_eq!(evidence(f, "metadata_log_bytes"), 0);
    assert_eq!(evidence(f, "recovery_threads"), 1);
    let basis = evidence_text(f, "recovery_threads_basis");
    assert!(
        basis.contains("not set") && basis.contains("3.x") && basis.contains("ZooKeeper"),
        "{basis}"
    );
    let message = f["message"].as_str().unwrap();
    assert!(!message.contains("metadata log"), "{message}");
    assert!(message.contains("× 1 thread(s)"), "{message}");
    assert_eq!(doc["log_dirs"][0]["startup"]["recovery_threads"], 1);
    assert_eq!(doc["log_dirs"][0]["startup"]["metadata_log_segments"], 0);
    // Set in server.properties, the value is used whatever the mode, and its source named.
    fs::write(
        root.join("server.properties"),
        "broker.id=1\nzookeeper.connect=127.0.0.1:2181\nnum.recovery.threads.per.data.dir=3\n",
    )
    .unwrap();
    let doc = run_with(&["--server-properties", "server.properties"]);
    let f = finding_any(&doc, "dir.startup_recovery");
    assert_eq!(evidence(f, "recovery_threads"), 3);
    let basis = evidence_text(f, "recovery_threads_basis");
    assert!(basis.contains("=3 from STATIC_BROKER_CONFIG"), "{basis}");
    // The KRaft original: 1 from its server.properties, and its metadata log apart.
    let (_tmp, root) = copy_fixture("unclean-shutdown");
    let (_, doc) = json(&root, &args(&root, now, &[]));
    let f = finding_any(&doc, "dir.startup_recovery");
    assert!(f["message"]
        .as_str()
        .unwrap()
        .contains("metadata log, 2424 B"));
    assert!(evidence_text(f, "recovery_threads_basis").contains("STATIC_BROKER_CONFIG"));
}

/// Issue 20: every partition the broker recovers counts, an empty one too (its indexes are
/// rewritten and it takes a recovery thread's turn). consumer-groups' `logs-0` after an unclean
/// shutdown (the marker removed): every live partition is recovered from its recovery point's
/// floor segment, the empty `__transaction_state` ones included (only the non-empty counted
/// before).
#[test]
fn startup_recovery_counts_empty_partitions() {
    let (_tmp, root) = copy_fixture("consumer-groups");
    fs::remove_file(root.join("logs-0/.kafka_cleanshutdown")).unwrap();
    let log_dir = root.join("logs-0");
    let (mut live, mut empty) = (0, 0);
    for e in fs::read_dir(&log_dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().into_string().unwrap();
        if !e.file_type().unwrap().is_dir() || name == "__cluster_metadata-0" {
            continue;
        }
        let logs: Vec<u64> = fs::read_dir(e.path())
            .unwrap()
            .map(|f| f.unwrap())
            .filter(|f| f.file_name().to_string_lossy().ends_with(".log"))
            .map(|f| f.metadata().unwrap().len())
            .collect();
        live += u64::from(!logs.is_empty());
        empty += u64::from(!logs.is_empty() && logs.iter().all(|l| *l == 0));
    }
    assert!(empty >= 2 && live > empty, "{live} {empty}");
    let (_, doc) = json(&root, &args(&root, "2026-12-01T11:04:35Z", &[]));
    let f = finding_any(&doc, "dir.startup_recovery");
    assert_eq!(evidence(f, "partitions"), live);
    assert_eq!(doc["log_dirs"][0]["startup"]["partitions"], live);
}

/// Issue 20: the wording when no recovered segment has an `.index`: unclean-shutdown's
/// partitions without any `.index` recover segments 8 and 12 from the recovery point (none with
/// an `.index`) and 0 and 4 because theirs is missing; it said "0 without .index" when only the
/// recovered segments lacked one.
#[test]
fn startup_recovery_says_which_segments_lack_an_index() {
    let (_tmp, root) = copy_fixture("unclean-shutdown");
    let now = "2026-11-30T13:34:35Z";
    let strip = |from: u64| {
        for p in ["crash-0", "crash-1"] {
            for base in [0u64, 4, 8, 12].into_iter().filter(|b| *b >= from) {
                let f = root.join(format!("logs-0/{p}/{base:020}.index"));
                if f.exists() {
                    fs::remove_file(f).unwrap();
                }
            }
        }
    };
    // Only the recovered segments (8, 12) lack one.
    strip(8);
    let (_, doc) = json(&root, &args(&root, now, &[]));
    let f = finding_any(&doc, "dir.startup_recovery");
    let message = f["message"].as_str().unwrap();
    assert!(
        message.contains("(4 from the recovery point on, none with an .index)"),
        "{message}"
    );
    assert_eq!(evidence(f, "unclean_missing_index_segments"), 4);
    assert_eq!(evidence(f, "missing_index_segments"), 0);
    // None has one: 0 and 4 are recovered for that alone.
    strip(0);
    let (_, doc) = json(&root, &args(&root, now, &[]));
    let f = finding_any(&doc, "dir.startup_recovery");
    let message = f["message"].as_str().unwrap();
    assert!(
        message.contains("(4 from the recovery point on, none with an .index; 4 because their .index is missing)"),
        "{message}"
    );
    assert_eq!(evidence(f, "segments"), 8);
    assert_eq!(evidence(f, "missing_index_segments"), 4);
}

/// Issue 20: `config.cleaner_threads_few` only when the cleaner has work for more than 50 logs
/// per thread. compacted's `logs-0` with compacted-1 (dirty ratio 0.05: not due) copied to 50
/// more partitions, checkpoints included: 53 compacted logs, 2 due, one thread. Nothing waits,
/// so no finding (it fired before, on the count of compacted logs); the same copies of
/// compacted-0 (due) fire it.
#[test]
fn cleaner_threads_few_needs_logs_due_for_cleaning() {
    let now = "2026-11-30T13:42:20Z";
    let fires = |from: i32| {
        let (_tmp, root) = copy_fixture("compacted");
        for i in 2..=51 {
            clone_partition(&root.join("logs-0"), "compacted", from, i);
        }
        let (_, doc) = json(&root, &args(&root, now, &[]));
        let backlog = doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["code"] == "compaction.backlog")
            .count();
        let few = doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["code"] == "config.cleaner_threads_few")
            .cloned();
        (backlog, few)
    };
    let (due, few) = fires(1);
    assert_eq!(due, 2, "compact-delete-0 and compacted-0");
    assert!(few.is_none(), "{few:#?}");
    let (due, few) = fires(0);
    assert_eq!(due, 52);
    let few = few.expect("52 logs due for one thread");
    assert_eq!(evidence(&few, "logs_due"), 52);
    assert_eq!(evidence(&few, "compacted_partitions"), 53);
}
