//! `logclean diagnose` on every fixture scenario: the findings it was built to show, at the
//! partitions it shows them on, and nothing else (so no code on a healthy partition); filters,
//! exit codes, `log.dirs` from `server.properties`, `--deep`, read-only, and tables that fit
//! 100 columns.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

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
        &[
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
        &[("txn.open_long", "txn-compacted-0")],
    ),
    (
        "unclean-shutdown",
        "2026-11-30T13:34:35Z",
        &[("dir.unclean_shutdown", "-")],
    ),
];

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dst);
        } else {
            fs::copy(e.path(), &dst).unwrap();
        }
    }
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

/// `logclean --no-progress [global] diagnose [args]` in `root`: exit code and stdout.
fn run(root: &Path, global: &[&str], args: &[String], columns: usize) -> (i32, String) {
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

fn args(root: &Path, now: &str, more: &[&str]) -> Vec<String> {
    let mut a = dir_args(root);
    a.extend(["--now".to_string(), now.to_string()]);
    a.extend(more.iter().map(|s| s.to_string()));
    a
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

#[test]
fn a_saved_dir_gives_the_same_report_at_the_same_now() {
    let (_tmp, root) = copy_fixture("idle-active-segment");
    let a = args(&root, "2026-11-30T13:32:47Z", &[]);
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
        let mut at = dir_args(&root);
        at.extend(["--at".to_string(), now.to_string()]);
        for (command, args) in [
            ("diagnose", &a),
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
