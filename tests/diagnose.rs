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
"#;

#[test]
fn prometheus_textfile_is_exact_and_valid_on_a_fixture() {
    let (_tmp, root) = copy_fixture("consumer-groups");
    let a = args(&root, "2026-12-01T11:04:35Z", &[]);
    let (code, text, _) = prometheus(&root, "diagnose", &a);
    assert_eq!(code, 1, "findings at warning");
    assert_eq!(text, CONSUMER_GROUPS_PROM);
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
            assert_eq!(families.len(), 16, "{fixture}: every family, even empty");
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
