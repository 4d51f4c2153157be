//! Hostile and damaged log dirs: huge sparse files of every kind, symlink loops, unreadable
//! partition dirs, offsets near `i64::MAX`. Every run of the binary is capped
//! (`support::logclean_capped`, `prlimit --as`), ends with a complete JSON document and the
//! documented exit code, and names the file concerned.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::Value;

mod support;
use support::scratch::copy_dir_readable;

/// Sparse files this large are made for the tests (they take no disk space).
const TWO_GIB: u64 = 1 << 31;

/// A private copy of `fixtures/basic-delete/logs-0`, readable by `nobody`.
struct Copy {
    _tmp: tempfile::TempDir,
    log_dir: PathBuf,
}

impl Copy {
    fn new() -> Self {
        Copy::of("basic-delete")
    }

    /// A private copy of `fixtures/<fixture>/logs-0`, readable by `nobody`.
    fn of(fixture: &str) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755)).unwrap();
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(fixture)
            .join("logs-0");
        let log_dir = tmp.path().join("logs-0");
        copy_dir_readable(&src, &log_dir);
        Copy { _tmp: tmp, log_dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.log_dir.join(rel)
    }
}

/// Make `path` a sparse file of `len` bytes (its data kept at the start).
fn sparse(path: &Path, len: u64) {
    fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .unwrap()
        .set_len(len)
        .unwrap();
}

/// Run `logclean --format json --no-progress <args>` under `cap` bytes of address space; the
/// exit code and the (complete, valid) document.
fn run(cap: u64, unprivileged: bool, args: &[&str]) -> (i32, Value) {
    let out = support::logclean_capped(cap, unprivileged)
        .args(["--format", "json", "--no-progress"])
        .args(args)
        .output()
        .unwrap();
    checked(args, &out)
}

/// The exit code and document of a finished run of `args`: no signal, no panic, one complete
/// JSON document whose summary carries the exit code.
fn checked(args: &[&str], out: &std::process::Output) -> (i32, Value) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out
        .status
        .code()
        .unwrap_or_else(|| panic!("{args:?} ended by a signal: {}; {stderr}", out.status));
    assert_ne!(code, 101, "{args:?} panicked: {stderr}");
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: not one JSON document ({e}); stderr {stderr}"));
    assert_eq!(doc["summary"]["exit_code"], code, "{doc:#}");
    (code, doc)
}

fn findings<'a>(doc: &'a Value, code: &str) -> Vec<&'a Value> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == code)
        .collect()
}

fn codes(doc: &Value) -> Vec<String> {
    let mut c: Vec<String> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect();
    c.sort();
    c.dedup();
    c
}

fn file_of(f: &Value) -> &str {
    f["location"]["file"].as_str().unwrap()
}

#[test]
fn two_gib_sparse_indexes_of_each_kind_run_in_bounded_memory() {
    let c = Copy::new();
    for ext in ["index", "timeindex", "txnindex"] {
        sparse(
            &c.path(&format!("orders-0/00000000000000000004.{ext}")),
            TWO_GIB,
        );
    }
    for extra in [&[][..], &["--verify"], &["--verify", "--no-mmap"]] {
        let mut args = vec!["inspect", c.log_dir.to_str().unwrap()];
        args.extend_from_slice(extra);
        let (code, doc) = run(512 << 20, false, &args);
        assert_eq!(code, 2, "{extra:?}: {doc:#}");
        let corrupt = findings(&doc, "file.corrupt");
        let mut files: Vec<&str> = corrupt.iter().map(|f| file_of(f)).collect();
        files.sort();
        assert_eq!(files.len(), 3, "{extra:?}: {:#}", doc["findings"]);
        for (f, ext) in files.iter().zip([".index", ".timeindex", ".txnindex"]) {
            assert!(f.ends_with(&format!("00000000000000000004{ext}")), "{f}");
        }
        for f in corrupt {
            let m = f["message"].as_str().unwrap();
            assert!(m.contains("too large: 2147483648 bytes"), "{m}");
        }
        assert!(findings(&doc, "file.unreadable").is_empty(), "{doc:#}");
    }
}

#[test]
fn a_log_over_2_gib_is_too_large_not_read_whole_under_a_1_gib_cap() {
    let c = Copy::new();
    let log = c.path("orders-0/00000000000000000032.log");
    let data = fs::metadata(&log).unwrap().len();
    sparse(&log, 3 << 30);
    let dir = c.log_dir.to_str().unwrap();
    for args in [
        vec!["inspect", dir],
        vec!["inspect", "--verify", dir],
        vec!["inspect", "--verify", "--no-mmap", dir],
        vec!["inspect", "--records", "--no-mmap", dir],
    ] {
        let (code, doc) = run(1 << 30, false, &args);
        assert_eq!(code, 2, "{args:?}: {doc:#}");
        assert!(
            findings(&doc, "file.unreadable").is_empty(),
            "{args:?}: {doc:#}"
        );
        let named = doc["findings"].as_array().unwrap().iter().any(|f| {
            f["location"]["file"]
                .as_str()
                .is_some_and(|p| p.ends_with("00000000000000000032.log"))
                && (f["code"] == "log.too_large"
                    || f["message"].as_str().unwrap().contains("too large"))
        });
        assert!(named, "{args:?}: {:#}", doc["findings"]);
        // Positions are where the batches stop (the data's end, then zeros), never the cap.
        let at_cap: Vec<&Value> = doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["location"]["byte_offset"] == i64::from(i32::MAX))
            .collect();
        assert!(at_cap.is_empty(), "{args:?}: {at_cap:#?}");
        let tail = findings(&doc, "log.zero_filled_tail");
        assert!(
            tail.iter()
                .any(|f| file_of(f).ends_with("00000000000000000032.log")
                    && f["location"]["byte_offset"] == data),
            "{args:?}: {doc:#}"
        );
        // The log end is unknown, not the segment's base offset: no checkpoint is judged by it.
        assert!(
            findings(&doc, "partition.hw_beyond_log_end").is_empty(),
            "{args:?}: {doc:#}"
        );
    }
}

#[test]
fn an_oversized_small_file_is_too_large_not_unreadable() {
    let c = Copy::new();
    sparse(&c.path("orders-0/leader-epoch-checkpoint"), 64 << 20);
    let (code, doc) = run(1 << 30, false, &["inspect", c.log_dir.to_str().unwrap()]);
    assert_eq!(code, 2, "{doc:#}");
    let f = findings(&doc, "file.corrupt");
    assert_eq!(f.len(), 1, "{doc:#}");
    assert!(file_of(f[0]).ends_with("leader-epoch-checkpoint"));
    assert!(
        f[0]["message"].as_str().unwrap().contains("too large"),
        "{f:#?}"
    );
    assert!(
        !f[0]["fix"].as_str().unwrap().contains("permission"),
        "{f:#?}"
    );
}

#[test]
fn junk_symlink_loops_are_unknown_entries_not_an_io_error() {
    let c = Copy::new();
    let p = c.path("orders-0");
    std::os::unix::fs::symlink("loop", p.join("loop")).unwrap();
    std::os::unix::fs::symlink("b", p.join("a")).unwrap();
    std::os::unix::fs::symlink("a", p.join("b")).unwrap();
    std::os::unix::fs::symlink(".", p.join("self")).unwrap();
    std::os::unix::fs::symlink("nowhere", p.join("dangling")).unwrap();
    let (code, doc) = run(1 << 30, false, &["inspect", c.log_dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(codes(&doc), ["partition.unknown_file"], "{doc:#}");
    let mut names: Vec<&str> = findings(&doc, "partition.unknown_file")
        .iter()
        .map(|f| file_of(f).rsplit('/').next().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["a", "b", "dangling", "loop", "self"]);
}

#[test]
fn a_segment_behind_a_dangling_link_stays_unreadable() {
    let c = Copy::new();
    let log = c.path("orders-0/00000000000000000099.log");
    std::os::unix::fs::symlink("gone", &log).unwrap();
    let (code, doc) = run(1 << 30, false, &["inspect", c.log_dir.to_str().unwrap()]);
    assert_eq!(code, 3, "{doc:#}");
    let f = findings(&doc, "file.unreadable");
    assert_eq!(f.len(), 1, "{doc:#}");
    assert!(file_of(f[0]).ends_with("00000000000000000099.log"));
}

#[test]
fn an_unreadable_partition_dir_is_unreadable_and_nothing_else() {
    let c = Copy::new();
    let dir = c.path("orders-2");
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o000)).unwrap();
    let (code, doc) = run(1 << 30, true, &["inspect", c.log_dir.to_str().unwrap()]);
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
    if !support::euid_is_root() && code == 0 {
        return; // a user that still reads the dir (not root, no setpriv): nothing to show
    }
    assert_eq!(code, 3, "{doc:#}");
    assert_eq!(codes(&doc), ["file.unreadable"], "{doc:#}");
    assert!(file_of(findings(&doc, "file.unreadable")[0]).ends_with("orders-2"));
}

#[test]
fn offsets_near_i64_max_never_wrap() {
    let c = Copy::new();
    let max = i64::MAX;
    for name in [
        "replication-offset-checkpoint",
        "recovery-point-offset-checkpoint",
    ] {
        let path = c.path(name);
        let text = fs::read_to_string(&path).unwrap();
        fs::write(
            &path,
            text.replace("orders 0 36", &format!("orders 0 {max}")),
        )
        .unwrap();
    }
    let (code, doc) = run(1 << 30, false, &["inspect", c.log_dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{doc:#}");
    let p = doc["log_dirs"][0]["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["dir"] == "orders-0")
        .unwrap();
    assert_eq!(p["high_watermark"], max, "{p:#}");
    assert_eq!(p["recovery_point"], max, "{p:#}");
    let hw = findings(&doc, "partition.hw_beyond_log_end");
    assert_eq!(hw.len(), 1, "{doc:#}");
    assert_eq!(hw[0]["evidence"][0]["value"], max);
    // The table shows the same number, not a wrapped one.
    let out = support::logclean_capped(1 << 30, false)
        .args(["--no-progress", "inspect", c.log_dir.to_str().unwrap()])
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains(&max.to_string()), "{table}");
    assert!(!table.contains(&format!("-{}", max)), "{table}");
}

#[test]
fn names_that_are_not_utf8_are_carried_losslessly_in_a_complete_document() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let c = Copy::new();
    fs::write(
        c.path("orders-0")
            .join(OsStr::from_bytes(b"notes-\xff\xfe")),
        b"",
    )
    .unwrap();
    fs::create_dir(c.log_dir.join(OsStr::from_bytes(b"ord\xe9rs-5"))).unwrap();
    let dir = c.log_dir.to_str().unwrap();
    let (code, doc) = run(1 << 30, false, &["inspect", dir]);
    assert_eq!(code, 1, "{doc:#}");
    let dirs: Vec<&str> = doc["log_dirs"][0]["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["dir"].as_str().unwrap())
        .collect();
    assert!(dirs.contains(&"ord\\xe9rs-5"), "{dirs:?}");
    let unknown = findings(&doc, "partition.unknown_file");
    assert_eq!(unknown.len(), 1, "{doc:#}");
    assert_eq!(
        file_of(unknown[0]),
        format!("{dir}/orders-0/notes-\\xff\\xfe")
    );
    let no_id = findings(&doc, "partition.no_topic_id");
    assert_eq!(no_id[0]["location"]["dir"], "ord\\xe9rs-5", "{doc:#}");
    // The table shows the same escaped names and keeps the run's exit code.
    let out = support::logclean_capped(1 << 30, false)
        .args(["--no-progress", "inspect", dir])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("ord\\xe9rs-5"), "{table}");
    assert!(table.contains("notes-\\xff\\xfe"), "{table}");
}

#[test]
fn a_sparse_log_of_2_gib_is_a_zero_filled_tail_found_without_reading_the_hole() {
    let c = Copy::new();
    let log = c.path("orders-0/00000000000000000032.log");
    let data = fs::metadata(&log).unwrap().len();
    // The largest segment Kafka writes (`Integer.MAX_VALUE` bytes): its data, then a hole.
    let len = TWO_GIB - 1;
    sparse(&log, len);
    // The metadata log every command replays, the same way.
    let metadata = c.path("__cluster_metadata-0/00000000000000000000.log");
    let metadata_data = fs::metadata(&metadata).unwrap().len();
    sparse(&metadata, len);
    let dir = c.log_dir.to_str().unwrap();
    // Reading the 2 GiB of zeros took 5-20 s of CPU; following the hole takes a few ms. A run
    // over one second of CPU is killed (SIGXCPU: "ended by a signal"), and the wall time is
    // bounded too (loosely: the machine may be busy).
    let timed = |args: &[&str]| {
        let started = std::time::Instant::now();
        let out = run_cpu_capped(1, args);
        let took = started.elapsed();
        assert!(took.as_secs_f64() < 5.0, "{args:?} took {took:?}");
        out
    };
    let zero_tail = |doc: &Value| {
        // `diagnose` replays the metadata log (read up to the hole) and says where it ends.
        if doc["command"] == "diagnose" {
            let m = findings(doc, "metadata.problem");
            assert_eq!(m.len(), 1, "{doc:#}");
            assert_eq!(m[0]["location"]["byte_offset"], metadata_data, "{doc:#}");
            let zeros = format!("{} zero bytes at the end", len - metadata_data);
            assert!(m[0]["message"].as_str().unwrap().contains(&zeros), "{m:#?}");
        }
        let f: Vec<&Value> = findings(doc, "log.zero_filled_tail")
            .into_iter()
            .filter(|f| file_of(f).ends_with("orders-0/00000000000000000032.log"))
            .collect();
        assert_eq!(f.len(), 1, "{doc:#}");
        assert_eq!(f[0]["location"]["byte_offset"], data, "{doc:#}");
        assert_eq!(f[0]["evidence"][0]["value"], len - data, "{doc:#}");
        (
            f[0]["severity"].clone(),
            f[0]["fix"].as_str().unwrap().to_string(),
        )
    };
    // After a clean shutdown the broker does not recover the segment: an error, to truncate.
    for cmd in ["diagnose", "inspect"] {
        let (code, doc) = timed(&[cmd, dir]);
        assert_eq!(code, 2, "{cmd}: {doc:#}");
        let (severity, fix) = zero_tail(&doc);
        assert_eq!(severity, "error", "{cmd}: {doc:#}");
        assert!(
            fix.contains(&format!("truncate it to {data} bytes")),
            "{fix}"
        );
    }
    for cmd in ["plan", "groups", "transactions", "config"] {
        timed(&[cmd, dir]);
    }
    // Without the marker the broker's recovery truncates it to the valid bytes on its start.
    fs::remove_file(c.path(".kafka_cleanshutdown")).unwrap();
    let (_, doc) = timed(&["diagnose", dir]);
    let (severity, fix) = zero_tail(&doc);
    // Nothing to do then: info (exit codes mean action).
    assert_eq!(severity, "info", "{doc:#}");
    assert!(
        fix.contains(&format!("truncates the segment to {data} bytes")),
        "{fix}"
    );
}

/// [`run`] (1 GiB of address space, as root) with at most `secs` seconds of CPU time.
fn run_cpu_capped(secs: u64, args: &[&str]) -> (i32, Value) {
    if !support::prlimit_available() {
        return run(1 << 30, false, args);
    }
    let out = std::process::Command::new("prlimit")
        .arg(format!("--cpu={secs}"))
        .arg(format!("--as={}", 1u64 << 30))
        .arg(env!("CARGO_BIN_EXE_logclean"))
        .args(["--format", "json", "--no-progress"])
        .args(args)
        .output()
        .unwrap();
    checked(args, &out)
}

#[test]
fn a_consumer_offsets_log_past_2_gib_is_refused_for_its_size_not_unreadable() {
    let c = Copy::of("consumer-groups");
    let dir = c.log_dir.to_str().unwrap();
    // Past Kafka's largest segment (sparse: the broker cannot open it, FileRecords), so the
    // coordinator replay refuses it: the finding says why, at the file, with no byte named.
    let log = c.path("__consumer_offsets-0/00000000000000000000.log");
    let data = fs::metadata(&log).unwrap().len();
    sparse(&log, 3 << 30);
    for cmd in ["groups", "diagnose"] {
        let (code, doc) = run_cpu_capped(5, &[cmd, dir]);
        assert_eq!(code, 2, "{cmd}: {doc:#}");
        assert!(
            findings(&doc, "file.unreadable").is_empty(),
            "{cmd}: {doc:#}"
        );
        let ours =
            |f: &&Value| file_of(f).ends_with("__consumer_offsets-0/00000000000000000000.log");
        let refused: Vec<&Value> = findings(&doc, "file.corrupt")
            .into_iter()
            .filter(ours)
            .collect();
        assert_eq!(refused.len(), 1, "{cmd}: {doc:#}");
        let m = refused[0]["message"].as_str().unwrap();
        assert!(m.contains("too large: 3221225472 bytes"), "{cmd}: {m}");
        assert!(
            refused[0]["location"]["byte_offset"].is_null(),
            "{cmd}: {doc:#}"
        );
        if cmd == "diagnose" {
            assert!(findings(&doc, "log.too_large").iter().any(ours), "{doc:#}");
        }
    }
    // A file the OS refuses: the finding carries the OS error, at the file.
    sparse(&log, data);
    fs::set_permissions(&log, fs::Permissions::from_mode(0o000)).unwrap();
    let (code, doc) = run(1 << 30, true, &["groups", dir]);
    fs::set_permissions(&log, fs::Permissions::from_mode(0o644)).unwrap();
    if !support::euid_is_root() && code != 3 {
        return; // a user that still reads the file (not root, no setpriv): nothing to show
    }
    assert_eq!(code, 3, "{doc:#}");
    let f = findings(&doc, "file.unreadable");
    assert!(
        f.iter().any(
            |f| file_of(f).ends_with("__consumer_offsets-0/00000000000000000000.log")
                && f["message"].as_str().unwrap().contains("ermission denied")
        ),
        "{doc:#}"
    );
}
