//! Issue 7, "readable output": the table output of `inspect` and `config` on real fixtures and
//! on damaged or re-labelled copies of them fits the terminal width, never splits a value, shows
//! empty partitions and segments plainly, shows times with their zone and age, groups the same
//! finding across partitions, gives every finding its fix without Debug text, says what
//! `--verify` checked, and keeps the run's exit code when the reader closes the pipe.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;
use support::scratch::copy_dir_readable;

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::Value;
use unicode_width::UnicodeWidthStr;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A private copy of a fixture log dir at `<tmp>/<under>/logs-0`.
fn copy_fixture(rel: &str, under: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dst = tmp.path().join(under).join("logs-0");
    copy_dir_readable(&root().join(rel), &dst);
    (tmp, dst)
}

fn logclean() -> Command {
    let mut c = support::logclean_capped(support::MEMORY_CAP_BYTES, false);
    c.env_remove("COLUMNS").env("TZ", "UTC");
    c
}

/// `logclean [args]` as a table at `columns` (stdout is a pipe, so COLUMNS decides).
fn table(columns: usize, args: &[&str]) -> (i32, String) {
    let out = logclean()
        .env("COLUMNS", columns.to_string())
        .args(args)
        .output()
        .unwrap();
    let code = out.status.code().expect("killed by a signal");
    assert_ne!(code, 101, "panic: {}", String::from_utf8_lossy(&out.stderr));
    (code, String::from_utf8(out.stdout).unwrap())
}

fn json(args: &[&str]) -> Value {
    let out = logclean()
        .args(["--format", "json"])
        .args(args)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

fn widest(text: &str) -> (usize, &str) {
    text.lines()
        .map(|l| (UnicodeWidthStr::width(l), l))
        .max_by_key(|(w, _)| *w)
        .unwrap_or((0, ""))
}

/// Every ` UTC` in `text` closes a whole `YYYY-MM-DD HH:MM[:SS]` on the same line.
fn times_are_whole(text: &str) {
    for line in text.lines() {
        for (i, _) in line.match_indices(" UTC") {
            let before = &line[..i];
            let ok = [16, 19].iter().any(|n| {
                before.len() >= *n
                    && chrono::NaiveDateTime::parse_from_str(
                        &before[before.len() - n..],
                        if *n == 16 {
                            "%Y-%m-%d %H:%M"
                        } else {
                            "%Y-%m-%d %H:%M:%S"
                        },
                    )
                    .is_ok()
            });
            assert!(ok, "a time split from its zone: {line:?}");
        }
    }
}

/// Damaged copies of basic-delete: a truncated tail, a missing index, a flipped byte.
fn damaged() -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = copy_fixture("fixtures/basic-delete/logs-0", "damaged");
    let seg = dir.join("orders-0/00000000000000000004");
    let log = fs::read(seg.with_extension("log")).unwrap();
    fs::write(seg.with_extension("log"), &log[..log.len() - 10]).unwrap();
    fs::remove_file(dir.join("orders-0/00000000000000000008.index")).unwrap();
    let p = dir.join("orders-2/00000000000000000000.log");
    let mut bytes = fs::read(&p).unwrap();
    bytes[70] ^= 0xff;
    fs::write(&p, bytes).unwrap();
    (tmp, dir)
}

fn fixture_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for f in fs::read_dir(root().join("fixtures")).unwrap() {
        for d in fs::read_dir(f.unwrap().path()).unwrap() {
            let d = d.unwrap().path();
            if d.is_dir() {
                dirs.push(d);
            }
        }
    }
    dirs.sort();
    assert!(dirs.len() >= 10, "{dirs:?}");
    dirs
}

/// No line wider than the terminal, at 100 and 80 columns, on every fixture and damaged copies,
/// with and without --verify and --records; no finding code or time split across lines.
#[test]
fn every_line_fits_100_and_80_columns() {
    let (_d, damaged) = damaged();
    let long = "a-log-dir-path-long-enough-to-need-shortening-in-the-middle";
    let (_l, deep) = copy_fixture(
        "fixtures/unclean-shutdown/logs-0",
        &format!("{long}/{long}"),
    );
    let mut targets = fixture_dirs();
    targets.push(damaged);
    targets.push(deep);
    for columns in [100, 80] {
        for dir in &targets {
            let dir = dir.to_str().unwrap();
            for extra in [&[][..], &["--verify"], &["--records"]] {
                let mut args = vec!["inspect"];
                args.extend_from_slice(extra);
                args.push(dir);
                let (_, text) = table(columns, &args);
                let (w, line) = widest(&text);
                assert!(w <= columns, "{columns} cols, {args:?}: {w} wide:\n{line}");
                times_are_whole(&text);
                let mut json_args = args.clone();
                json_args.retain(|a| *a != "--records");
                for f in json(&json_args)["findings"].as_array().unwrap() {
                    let code = f["code"].as_str().unwrap();
                    assert!(text.contains(code), "{code} split or missing:\n{text}");
                }
            }
        }
        // Colour codes do not count as width.
        let (_, coloured) = table(
            columns,
            &[
                "--color",
                "always",
                "inspect",
                targets[targets.len() - 2].to_str().unwrap(),
            ],
        );
        assert!(coloured.contains("\x1b["), "{coloured}");
        let plain: String = {
            let mut out = String::new();
            let mut rest = coloured.as_str();
            while let Some(i) = rest.find("\x1b[") {
                out.push_str(&rest[..i]);
                let after = &rest[i..];
                let end = after.find('m').unwrap();
                rest = &after[end + 1..];
            }
            out.push_str(rest);
            out
        };
        let (w, line) = widest(&plain);
        assert!(w <= columns, "coloured at {columns}: {w} wide:\n{line}");
        let kraft = root().join("fixtures/kraft-metadata/logs-0");
        for extra in [&[][..], &["--all-keys"]] {
            let mut args = vec!["config", kraft.to_str().unwrap()];
            args.extend_from_slice(extra);
            let (code, text) = table(columns, &args);
            assert_eq!(code, 0, "{text}");
            let (w, line) = widest(&text);
            assert!(w <= columns, "config at {columns}: {w} wide:\n{line}");
            assert!(text.contains("retention.ms"), "{text}");
        }
    }
}

/// Long paths keep their ends, shortened in the middle; a piped run without COLUMNS is 100 wide.
#[test]
fn long_paths_are_shortened_in_the_middle() {
    let long = "x".repeat(150);
    let (_t, dir) = copy_fixture("fixtures/basic-delete/logs-0", &long);
    let out = logclean().args(["inspect"]).arg(&dir).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let first = text.lines().next().unwrap();
    assert!(first.starts_with("log dir /"), "{first}");
    assert!(first.contains("…/") && first.contains("/logs-0"), "{first}");
    assert!(widest(&text).0 <= 100, "{}", widest(&text).1);
}

/// The column names of the first segments table (header words joined across wrapped lines).
fn segment_columns(text: &str) -> Vec<String> {
    let mut cols: Vec<String> = Vec::new();
    let header = text
        .lines()
        .skip_while(|l| !l.starts_with('┌'))
        .skip(1)
        .take_while(|l| !l.starts_with('╞'));
    for line in header {
        let inner = line.trim_start_matches('│').trim_end_matches('│');
        for (i, part) in inner.split('┆').enumerate() {
            if cols.len() <= i {
                cols.push(String::new());
            }
            let part = part.trim();
            let part = part.strip_suffix("(UTC)").unwrap_or(part).trim();
            if !part.is_empty() {
                if !cols[i].is_empty() {
                    cols[i].push(' ');
                }
                cols[i].push_str(part);
            }
        }
    }
    cols
}

/// Columns go in the documented order as the terminal narrows (README, "Width"); segment,
/// size, offsets and the largest timestamp always stay.
#[test]
fn segment_columns_drop_in_the_documented_order() {
    let layouts: [&[&str]; 7] = [
        &[
            "segment",
            "size",
            "offsets",
            "first timestamp",
            "largest timestamp",
            "batches",
            "records",
            "index",
            "timeindex",
            "txn",
        ],
        &[
            "segment",
            "size",
            "offsets",
            "first timestamp",
            "largest timestamp",
            "batches",
            "records",
            "index",
            "timeindex",
        ],
        &[
            "segment",
            "size",
            "offsets",
            "first timestamp",
            "largest timestamp",
            "batches",
            "records",
            "index / time",
        ],
        &[
            "segment",
            "size",
            "offsets",
            "first timestamp",
            "largest timestamp",
            "batches",
            "index / time",
        ],
        &[
            "segment",
            "size",
            "offsets",
            "largest timestamp",
            "batches",
            "index / time",
        ],
        &[
            "segment",
            "size",
            "offsets",
            "largest timestamp",
            "index / time",
        ],
        &["segment", "size", "offsets", "largest timestamp"],
    ];
    // A re-labelled copy: orders-0 with an abbreviated topic id is not needed; the real dir
    // with its real figures is what people see.
    let dir = root().join("fixtures/basic-delete/logs-0");
    let dir = dir.to_str().unwrap();
    let mut last = 0;
    let mut seen = Vec::new();
    for cols in (40..=240).rev().step_by(4) {
        let text = table(cols, &["inspect", dir]).1;
        let got = segment_columns(&text);
        // Too narrow for any table: each segment a record, starting with its base offset.
        let records = text.contains("\nsegment: 0\nsize: ");
        let at = layouts
            .iter()
            .position(|l| *l == got.as_slice())
            .or(records.then_some(layouts.len()))
            .unwrap_or_else(|| panic!("undocumented layout at {cols}: {got:?}\n{text}"));
        assert!(at >= last, "layout {at} at {cols} after layout {last}");
        last = at;
        seen.push(at);
    }
    seen.dedup();
    assert!(seen.len() >= 5, "{seen:?}");
    assert_eq!(seen.first(), Some(&0));
    // 100 columns: txn dropped, the two indexes merged, records and the first timestamp
    // dropped, so that every value (a timestamp with its age) stays on one line.
    let (_, text_100) = table(100, &["inspect", dir]);
    let at_100 = segment_columns(&text_100);
    assert_eq!(at_100, layouts[4], "{at_100:?}");
    assert!(
        text_100.contains("│       4 ┆ 532 B ┆ 4..7            ┆ 2026-11-30 04:02 ("),
        "a segment row on one line:\n{text_100}"
    );
}

/// A re-labelled empty partition is one line; an empty segment shows `-`, never `N..N-1`.
#[test]
fn empty_partition_is_one_line_and_empty_segment_shows_a_dash() {
    let (_t, dir) = copy_fixture("fixtures/basic-delete/logs-0", "empty");
    // `quiet-0`: orders-0 re-labelled, its segments removed but one empty one.
    let quiet = dir.join("quiet-0");
    fs::create_dir(&quiet).unwrap();
    fs::copy(
        dir.join("orders-0/partition.metadata"),
        quiet.join("partition.metadata"),
    )
    .unwrap();
    fs::write(quiet.join("00000000000000000042.log"), b"").unwrap();
    // orders-0 rolled: a new, empty active segment after offset 35.
    let doc = json(&["inspect", dir.to_str().unwrap()]);
    let next = doc["log_dirs"][0]["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["dir"] == "orders-0")
        .unwrap()["log_end_offset"]
        .as_i64()
        .unwrap();
    fs::write(dir.join(format!("orders-0/{next:020}.log")), b"").unwrap();

    let (_, text) = table(100, &["inspect", dir.to_str().unwrap()]);
    let lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().position(|l| l.starts_with("quiet-0")).unwrap();
    let quiet_lines: Vec<&&str> = lines[at..].iter().take_while(|l| !l.is_empty()).collect();
    assert_eq!(quiet_lines.len(), 1, "{quiet_lines:#?}");
    assert!(
        quiet_lines[0].contains("empty: 1 segment of 0 B  log start = log end = 42"),
        "{}",
        quiet_lines[0]
    );
    let row = lines
        .iter()
        .find(|l| l.starts_with("│") && l.contains(&format!("│ {next:>7} ")))
        .unwrap_or_else(|| panic!("no row for segment {next}:\n{text}"));
    assert!(row.contains("┆ -"), "{row}");
    assert!(!text.contains("..-1"), "{text}");
    assert!(!text.contains(&format!("{next}..{}", next - 1)), "{text}");
}

/// Times carry their zone (UTC by default, the host's offset with --local-time) and the largest
/// timestamp its age relative to the run's instant.
#[test]
fn times_show_their_zone_and_age() {
    let dir = root().join("fixtures/basic-delete/logs-0");
    let doc = json(&["inspect", dir.to_str().unwrap()]);
    let seg = &doc["log_dirs"][0]["partitions"][1]["segments"][0];
    let ms = seg["largest_timestamp_ms"].as_i64().unwrap();
    let t = chrono::DateTime::from_timestamp_millis(ms).unwrap();
    // The segment table names UTC once in its header; every other time carries its zone.
    let utc = t.format("%Y-%m-%d %H:%M").to_string();
    let tokyo = (t + chrono::Duration::hours(9))
        .format("%Y-%m-%d %H:%M +09:00")
        .to_string();

    let (_, text) = table(200, &["inspect", dir.to_str().unwrap()]);
    assert!(text.contains("largest timestamp (UTC)"), "{text}");
    assert!(text.contains(&utc), "{utc} not in:\n{text}");
    let now = chrono::Utc::now().timestamp_millis();
    let hours = (now - ms) / 3_600_000;
    let age = if hours < 48 {
        format!("{hours} h ago")
    } else {
        format!("{} d ago", hours / 24)
    };
    // The run's instant is a moment before `now`: the age is this or one unit less.
    let age_before = if hours < 48 {
        format!("{} h ago", hours - 1)
    } else {
        format!("{} d ago", hours / 24 - 1)
    };
    assert!(
        text.contains(&format!("{utc} ({age}")) || text.contains(&format!("{utc} ({age_before}")),
        "no age {age} after {utc}:\n{text}"
    );

    let out = logclean()
        .env("COLUMNS", "200")
        .env("TZ", "Asia/Tokyo")
        .args(["--local-time", "inspect"])
        .arg(&dir)
        .output()
        .unwrap();
    let local = String::from_utf8(out.stdout).unwrap();
    assert!(local.contains(&tokyo), "{tokyo} not in:\n{local}");
    assert!(!local.contains("UTC"), "{local}");

    // Evidence times carry their zone and age: a time index whose last entry is 30 days ahead
    // of the log's largest timestamp and of now (the fixture ages; the age must not).
    let (_t, copy) = copy_fixture("fixtures/basic-delete/logs-0", "ev");
    let ti_path = copy.join("orders-0/00000000000000000004.timeindex");
    let mut ti = fs::read(&ti_path).unwrap();
    let ts = i64::from_be_bytes(ti[..8].try_into().unwrap());
    let ahead = ts.max(chrono::Utc::now().timestamp_millis()) + 30 * 86_400_000;
    ti[..8].copy_from_slice(&ahead.to_be_bytes());
    fs::write(&ti_path, &ti).unwrap();
    let (_, text) = table(2000, &["inspect", copy.to_str().unwrap()]);
    let shown = chrono::DateTime::from_timestamp_millis(ahead)
        .unwrap()
        .format("index_last_timestamp: %Y-%m-%d %H:%M:%S UTC (in ")
        .to_string();
    assert!(text.contains(&shown), "{shown} not in:\n{text}");
    let after = &text[text.find(&shown).unwrap() + shown.len()..];
    let days: String = after.chars().take_while(char::is_ascii_digit).collect();
    assert!(after[days.len()..].starts_with(" d)"), "{after}");
    assert!((29..=30).contains(&days.parse::<i64>().unwrap()), "{after}");
}

/// Re-labelled copies of one damaged partition: one row with the count and the first places;
/// JSON keeps one finding per place.
#[test]
fn the_same_finding_on_many_partitions_is_one_row() {
    let (_t, dir) = copy_fixture("fixtures/basic-delete/logs-0", "many");
    for i in 10..40 {
        let p = dir.join(format!("orders-{i}"));
        copy_dir_readable(&dir.join("orders-0"), &p);
        fs::remove_file(p.join("00000000000000000004.index")).unwrap();
    }
    let doc = json(&["inspect", dir.to_str().unwrap()]);
    let missing = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "index.missing")
        .count();
    assert_eq!(missing, 30);
    for cols in [100, 80, 200] {
        let (code, text) = table(cols, &["inspect", dir.to_str().unwrap()]);
        // The broker rebuilds a missing index: info, exit 0 (exit codes mean action).
        assert_eq!(code, 0);
        assert_eq!(text.matches("index.missing").count(), 1, "{text}");
        assert!(text.contains("30 partitions"), "{text}");
        let row = &text[text.find("index.missing").unwrap()..];
        assert!(
            row.contains("orders-10") && row.contains("orders-14"),
            "{row}"
        );
        assert!(!row.contains("orders-15"), "{row}");
        assert!(row.contains("+25 more"), "{row}");
    }
}

/// Every finding's fix is shown; no evidence is Rust Debug text.
#[test]
fn every_finding_has_its_fix_and_no_debug_text() {
    let (_d, damaged) = damaged();
    let (_c, compacted) = copy_fixture("fixtures/compacted/logs-0", "c");
    for dir in [&damaged, &compacted] {
        let dir = dir.to_str().unwrap();
        for verify in [false, true] {
            let mut args = vec!["inspect", dir];
            if verify {
                args.push("--verify");
            }
            let doc = json(&args);
            let findings = doc["findings"].as_array().unwrap();
            assert!(!findings.is_empty());
            let (_, text) = table(2000, &args);
            for f in findings {
                let fix = f["fix"].as_str().unwrap();
                assert!(!fix.is_empty(), "{f:#}");
                assert!(
                    text.contains(fix),
                    "fix of {} not shown: {fix}\n{text}",
                    f["code"]
                );
            }
            for debug in [
                "Some(",
                "None",
                "Ok(",
                "Err(",
                " { ",
                "\\\"",
                "Unsigned(",
                "Text(",
            ] {
                assert!(!text.contains(debug), "{debug} in:\n{text}");
            }
        }
    }
}

/// `--verify` says what it checked, on a healthy copy (nothing found) and on a damaged one.
#[test]
fn verify_says_what_it_verified() {
    let (_t, dir) = copy_fixture("fixtures/basic-delete/logs-0", "v");
    let d = dir.to_str().unwrap();
    let doc = json(&["inspect", "--verify", d]);
    let segments: Vec<&Value> = doc["log_dirs"][0]["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["segments"].as_array().unwrap())
        .collect();
    let batches: u64 = segments
        .iter()
        .map(|s| s["batches"].as_u64().unwrap())
        .sum();
    assert!(batches > 10);
    let (code, text) = table(100, &["inspect", "--verify", d]);
    assert_eq!(code, 0, "{text}");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let want = format!("verified: {batches} batches, {batches} CRCs,",);
    assert!(flat.contains(&want), "{want} not in:\n{text}");
    assert!(
        flat.contains(&format!("in {} segments;", segments.len())),
        "{text}"
    );
    assert!(flat.contains("findings: 0 error, 0 warning"), "{text}");
    // Without --verify nothing claims to have been verified.
    assert!(!table(100, &["inspect", d]).1.contains("verified:"));

    // One flipped byte in orders-2's first batch: one CRC more than batches passed.
    let p = dir.join("orders-2/00000000000000000000.log");
    let mut bytes = fs::read(&p).unwrap();
    bytes[70] ^= 0xff;
    fs::write(&p, bytes).unwrap();
    let (code, text) = table(100, &["inspect", "--verify", d]);
    assert_eq!(code, 2, "{text}");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("verified: "), "{text}");
    let n: Vec<u64> = flat
        .split("verified: ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .filter_map(|w| w.trim_end_matches(',').parse().ok())
        .take(2)
        .collect();
    assert_eq!(n[1], n[0] + 1, "{flat}");
}

/// `logclean inspect <damaged> | head -1`: the reader closes the pipe mid-report and the run
/// still exits with its code (2: corrupt data), quietly.
#[test]
fn a_closed_pipe_keeps_the_exit_code() {
    use std::io::{BufRead, BufReader};
    let (_t, dir) = copy_fixture("fixtures/basic-delete/logs-0", "pipe");
    let seg = dir.join("orders-0/00000000000000000004.log");
    let log = fs::read(&seg).unwrap();
    fs::write(&seg, &log[..log.len() - 10]).unwrap();
    for i in 10..60 {
        copy_dir_readable(&dir.join("orders-2"), &dir.join(format!("orders-{i}")));
    }
    let args = ["inspect", "--records", dir.to_str().unwrap()];
    let (code, full) = table(100, &args);
    assert_eq!(code, 2);
    // Far more than a pipe buffer holds: the write after the reader left must fail.
    assert!(full.len() > 256 << 10, "{}", full.len());

    let mut child = logclean()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The reader (and the pipe) is dropped here, as `head -1` exits.
    assert!(first.starts_with("log dir "), "{first}");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{:?}", out.status);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The same through a shell pipeline.
    let script = format!(
        "set -o pipefail; {} inspect --records {} | head -1 >/dev/null",
        env!("CARGO_BIN_EXE_logclean"),
        dir.display()
    );
    let status = Command::new("bash").args(["-c", &script]).status().unwrap();
    assert_eq!(status.code(), Some(2));
}
