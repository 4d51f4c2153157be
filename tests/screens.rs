//! Issue 26, the list tables and the other commands' screens: every table of every command on
//! every fixture fits the width; filters say what they hid of how much; an empty partition is
//! one line in `plan --timeline`; mutations say what they skip, never a negative "freed", no
//! Debug text, and an applied repair is no corruption left. Mutations run on temp copies.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;
use support::fixtures_root;
use support::scratch::{code, logclean, s, text, Copy};

use std::fs;
use std::path::PathBuf;

use serde_json::Value;
use unicode_width::UnicodeWidthStr;

const NOW: &str = "2026-12-01T12:00:00Z";

/// Every fixture scenario with its log dirs (`manifest.json`), seen through `root`.
fn scenarios(root: &std::path::Path) -> Vec<(String, Vec<PathBuf>)> {
    let mut out = Vec::new();
    for e in fs::read_dir(fixtures_root()).unwrap() {
        let dir = root.join(e.unwrap().file_name());
        let Ok(m) = fs::read(dir.join("manifest.json")) else {
            continue;
        };
        let m: Value = serde_json::from_slice(&m).unwrap();
        let dirs = (support::manifest_log_dirs(&m).iter())
            .map(|d| dir.join(d))
            .collect();
        out.push((
            dir.file_name().unwrap().to_string_lossy().into_owned(),
            dirs,
        ));
    }
    out.sort();
    assert!(out.len() > 10, "{out:?}");
    out
}

/// `logclean ARGS` as a table at `columns`: stdout, stderr, exit code.
fn table(columns: usize, args: &[&str]) -> (String, String, Option<i32>) {
    let o = support::logclean_capped(support::MEMORY_CAP_BYTES, false)
        .env("COLUMNS", columns.to_string())
        .args(["--color", "never", "--no-progress"])
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
        o.status.code(),
    )
}

/// Every line of every reading command's table on every fixture fits 100 and 60 columns.
#[test]
fn every_table_of_every_fixture_fits_the_width() {
    // The fixtures seen through a path as long as a deep checkout's, so the widths do not depend
    // on where the repository lies (CI clones to a longer path than a developer's).
    let tmp = tempfile::tempdir().unwrap();
    let deep = tmp.path().join("a-checkout-path-as-deep-as-any-ci-clone-x");
    std::os::unix::fs::symlink(fixtures_root(), &deep).unwrap();
    for (name, dirs) in scenarios(&deep) {
        let dirs: Vec<&str> = dirs.iter().map(|d| s(d)).collect();
        for columns in [60, 100] {
            for cmd in [
                &["inspect"][..],
                &[
                    "diagnose",
                    "--now",
                    NOW,
                    "--disk-space",
                    "1000000000,2000000000",
                ],
                &["plan", "--timeline", "--at", NOW],
                &["groups", "--now", NOW],
                &["transactions", "--now", NOW],
                &["config"],
            ] {
                let (out, err, _) = table(columns, &[cmd, &dirs[..]].concat());
                // A command to copy is never shortened (issue 26): it may pass a narrow width,
                // its continuation lines (after a shell `\`) too. Nor is one word, such as a log
                // dir's path: wrapping cannot shorten it.
                let command = |l: &str| {
                    let l = l.trim_start().trim_start_matches('`');
                    l.starts_with("kafka-")
                        || l.starts_with("logclean ")
                        || !l.contains(char::is_whitespace)
                };
                let mut continued = false;
                for l in out.lines() {
                    let exempt = columns < 100 && (continued || command(l));
                    continued = l.ends_with(" \\");
                    if exempt {
                        continue;
                    }
                    assert!(
                        UnicodeWidthStr::width(l) <= columns,
                        "{name} {cmd:?} at {columns}: {l:?}\n{err}"
                    );
                }
            }
        }
    }
}

/// `--min-severity`, `--topic` and `--kind` say what they hid of how much, also when they
/// leave no finding ("no findings" alone would read as a clean dir).
#[test]
fn filters_say_what_they_hid() {
    let dir = fixtures_root().join("consumer-groups/logs-0");
    let all = support::logclean_capped(support::MEMORY_CAP_BYTES, false)
        .args(["--format", "json", "diagnose", "--now", NOW, s(&dir)])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&all.stdout).unwrap();
    let n = doc["findings"].as_array().unwrap().len();
    assert!(
        n > 0
            && doc["findings"]
                .as_array()
                .unwrap()
                .iter()
                .all(|f| f["severity"] != "error")
    );
    let (out, _, c) = table(
        100,
        &["diagnose", "--now", NOW, "--min-severity", "error", s(&dir)],
    );
    assert_eq!(c, Some(0), "{out}");
    let hid = format!("{n} of {n} finding(s) hidden: {n} by --min-severity error");
    assert!(out.contains(&format!("filtered: {hid}")), "{out}");
    assert!(out.contains(&format!("no findings: {hid}")), "{out}");
    let (out, _, _) = table(
        100,
        &["diagnose", "--now", NOW, "--topic", "nosuch-topic", s(&dir)],
    );
    assert!(out.contains("by --topic nosuch-topic"), "{out}");
    let (out, _, _) = table(100, &["diagnose", "--now", NOW, s(&dir)]);
    assert!(
        !out.contains("filtered:") && !out.contains("no findings"),
        "{out}"
    );
}

/// `plan --topic` and `config --topic` say what they kept of how much, and name a topic the
/// dirs do not hold (an empty plan alone would read as "nothing to delete").
#[test]
fn plan_and_config_say_what_topic_kept() {
    let dir = fixtures_root().join("idle-active-segment/logs-0");
    let (out, _, _) = table(100, &["plan", "--at", NOW, "--topic", "trickle", s(&dir)]);
    assert!(
        out.contains("filtered: --topic trickle shows 1 of the 4 partition replica(s) given\n"),
        "{out}"
    );
    let (out, _, _) = table(100, &["plan", "--at", NOW, "--topic", "nosuch", s(&dir)]);
    assert!(
        out.contains("shows 0 of the 4 partition replica(s) given; not found: nosuch"),
        "{out}"
    );
    let (out, _, _) = table(100, &["config", "--topic", "nosuch", s(&dir)]);
    assert!(
        out.contains("shows 0 of the 3 topic(s) given; not found: nosuch"),
        "{out}"
    );
    let (out, _, _) = table(100, &["plan", "--at", NOW, s(&dir)]);
    assert!(!out.contains("filtered:"), "{out}");
    let (json, _, _) = table(
        100,
        &["--format", "json", "config", "--topic", "idle", s(&dir)],
    );
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["filter"]["shown"], 1);
    assert_eq!(v["filter"]["not_found"], serde_json::json!([]));
}

/// The timeline draws no table nor axis for an empty partition: one line.
#[test]
fn an_empty_partition_is_one_line_in_the_timeline() {
    let dir = fixtures_root().join("consumer-groups/logs-0");
    let (out, _, _) = table(100, &["plan", "--timeline", "--at", NOW, s(&dir)]);
    let lines: Vec<&str> = out.lines().collect();
    let i = lines
        .iter()
        .position(|l| l.contains("__transaction_state-0"))
        .unwrap_or_else(|| panic!("{out}"));
    let block: Vec<&str> = lines[i..]
        .iter()
        .take_while(|l| !l.is_empty())
        .copied()
        .collect();
    assert!(block.len() <= 2, "{block:?}");
    assert!(
        block.join(" ").contains("empty: 1 segment of 0 B"),
        "{block:?}"
    );
    assert!(!block.join(" ").contains("timeline"), "{block:?}");
}

/// Given a log dir, the mutating commands name the `-future` dir they skip and why.
#[test]
fn mutations_name_the_dirs_they_skip() {
    let c = Copy::new("basic-delete", "logs-0");
    let future = "orders-0.0123456789abcdef0123456789abcdef-future";
    support::scratch::copy_dir(&c.p("orders-0"), &c.p(future));
    for args in [
        vec!["roll", s(&c.log_dir)],
        vec!["rebuild-index", s(&c.log_dir)],
        vec![
            "delete",
            "--at",
            "2027-01-01T00:00:00Z",
            "--server-properties",
            &c.props,
            s(&c.log_dir),
        ],
    ] {
        let o = logclean(&args, None);
        let out = text(&o);
        assert!(
            out.contains(&format!(
                "note: {future}: skipped: the target of a replica move"
            )),
            "{args:?}: {out}"
        );
        assert!(
            out.contains(
                "note: __cluster_metadata-0: skipped (never acted on): the KRaft metadata log"
            ),
            "{args:?}: {out}"
        );
    }
}

/// A rebuild that writes more than it removes says so, never "-48 bytes freed"; the roll dry
/// run says what it would do, not "rolled"; `--verify-only` has no Debug text.
#[test]
fn mutation_messages_say_what_they_do_in_words() {
    let c = Copy::new("basic-delete", "logs-0");
    fs::remove_file(c.p("orders-0/00000000000000000000.index")).unwrap();
    fs::write(c.p("orders-0/00000000000000000004.timeindex"), []).unwrap();
    let o = logclean(&["rebuild-index", s(&c.p("orders-0"))], None);
    let out = text(&o);
    let plan = out.lines().find(|l| l.starts_with("plan:")).unwrap();
    assert!(!plan.contains(" -"), "{plan}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("plan:") && l.ends_with("bytes more in use (files written)")),
        "{out}"
    );
    let o = logclean(&["rebuild-index", "--verify-only", s(&c.log_dir)], None);
    let out = text(&o);
    assert!(!out.contains("Some(") && !out.contains("None"), "{out}");
    let o = logclean(&["roll", s(&c.p("orders-2"))], None);
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    let out = text(&o);
    assert!(
        out.contains("rolls: segment 32 closes, new segment 36"),
        "{out}"
    );
    assert!(!out.contains("rolled"), "{out}");
    let o = logclean(&["roll", s(&c.p("orders-2")), "--execute"], None);
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("rolled: segment 32 closed, new segment 36"),
        "{}",
        text(&o)
    );
}

/// The dry run runs the refusals of `--execute`: with an interrupted run pending both refuse
/// (exit 3), and the dry run promises nothing.
#[test]
fn the_dry_run_refuses_what_execute_refuses() {
    for n in 1..40 {
        let c = Copy::new("basic-delete", "logs-0");
        let killed = logclean(
            &["roll", s(&c.p("orders-0")), "--execute"],
            Some(("LOGCLEAN_FAILPOINT", n.to_string())),
        );
        assert_ne!(
            code(&killed),
            Some(0),
            "{n}: the roll ended before the failpoint"
        );
        let exec = logclean(&["roll", s(&c.p("orders-0")), "--execute"], None);
        if !text(&exec).contains("an interrupted run is pending") {
            continue;
        }
        assert_eq!(code(&exec), Some(3), "{}", text(&exec));
        let dry = logclean(&["roll", s(&c.p("orders-0"))], None);
        assert_eq!(code(&dry), Some(3), "{}", text(&dry));
        assert!(
            text(&dry).contains("an interrupted run is pending"),
            "{}",
            text(&dry)
        );
        assert!(!text(&dry).contains("would create"), "{}", text(&dry));
        return;
    }
    panic!("no failpoint left a pending run");
}
