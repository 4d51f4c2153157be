//! The `logclean` binary on copies of real broker fixtures, damaged on purpose: each damage gives
//! a precise finding (file, byte offset, code) and the documented exit code, and nothing panics.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod support;
use support::scratch::copy_dir_readable;

const PARTITION: &str = "orders-0";
const SEGMENT: &str = "00000000000000000004";

/// A private copy of the `basic-delete` fixture's first log dir.
struct Copy {
    _tmp: tempfile::TempDir,
    log_dir: PathBuf,
}

impl Copy {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/basic-delete/logs-0");
        let log_dir = tmp.path().join("logs-0");
        copy_dir_readable(&src, &log_dir);
        Copy { _tmp: tmp, log_dir }
    }

    fn file(&self, suffix: &str) -> PathBuf {
        self.log_dir
            .join(PARTITION)
            .join(format!("{SEGMENT}{suffix}"))
    }
}

/// The binary under the shared memory cap (`support::logclean_capped`).
fn logclean() -> Command {
    support::logclean_capped(support::MEMORY_CAP_BYTES, false)
}

/// Run `logclean --format json inspect <args>`; return the exit code and the document.
fn inspect_json(args: &[&str]) -> (i32, Value) {
    let out = logclean()
        .args(["--format", "json", "inspect"])
        .args(args)
        .output()
        .unwrap();
    let code = out.status.code().expect("exited by signal (panic abort?)");
    assert_ne!(
        code,
        101,
        "logclean panicked: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "bad JSON ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
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

/// Byte positions of the batches of a `.log` (offset i64, length i32, then `length` bytes).
fn batch_positions(log: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut p = 0;
    while p + 12 <= log.len() {
        out.push(p);
        let len = i32::from_be_bytes(log[p + 8..p + 12].try_into().unwrap()) as usize;
        p += 12 + len;
    }
    out
}

#[test]
fn healthy_copy_is_clean_and_untouched() {
    let c = Copy::new();
    let before = snapshot(&c.log_dir);
    let (code, doc) = inspect_json(&[c.log_dir.to_str().unwrap(), "--verify"]);
    assert_eq!(code, 0, "{:#}", doc["findings"]);
    assert_eq!(doc["schema_version"], 2);
    assert_eq!(snapshot(&c.log_dir), before, "inspect changed the log dir");
}

/// Every path with its bytes and mode: read-only commands must leave all of it as it was.
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
fn truncated_log_tail() {
    let c = Copy::new();
    let log = fs::read(c.file(".log")).unwrap();
    let last = *batch_positions(&log).last().unwrap();
    fs::write(c.file(".log"), &log[..log.len() - 10]).unwrap();
    let (code, doc) = inspect_json(&[c.log_dir.to_str().unwrap()]);
    assert_eq!(code, 2);
    let f = findings(&doc, "log.truncated_tail");
    assert_eq!(f.len(), 1, "{:#}", doc["findings"]);
    assert_eq!(f[0]["location"]["byte_offset"], last as u64);
    assert!(f[0]["location"]["file"]
        .as_str()
        .unwrap()
        .ends_with(&format!("{SEGMENT}.log")));
}

#[test]
fn flipped_byte_is_a_crc_mismatch_under_verify() {
    let c = Copy::new();
    let mut log = fs::read(c.file(".log")).unwrap();
    let second = batch_positions(&log)[1];
    log[second + 70] ^= 0x40; // inside the records, covered by the CRC
    fs::write(c.file(".log"), &log).unwrap();
    // Headers alone cannot see it ...
    let (code, _) = inspect_json(&[c.log_dir.to_str().unwrap()]);
    assert_eq!(code, 0);
    // ... --verify does, at the batch.
    let (code, doc) = inspect_json(&[c.log_dir.to_str().unwrap(), "--verify"]);
    assert_eq!(code, 2);
    let f = findings(&doc, "log.verify_failed");
    assert_eq!(f.len(), 1, "{:#}", doc["findings"]);
    // The finding points at the batch's start, where DumpLogSegments and the broker's
    // recovery ("found invalid messages at position N") point; the stored CRC field (batch
    // start + 17) is evidence.
    assert_eq!(f[0]["location"]["byte_offset"], second as u64);
    let evidence = |name: &str| {
        f[0]["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap_or_else(|| panic!("no {name}: {:#}", f[0]))["value"]
            .clone()
    };
    assert_eq!(evidence("batch_position"), second as u64);
    assert_eq!(evidence("bad_field_at"), (second + 17) as u64);
    assert!(
        f[0]["message"].as_str().unwrap().contains("crc mismatch"),
        "{}",
        f[0]["message"]
    );
}

#[test]
fn zero_filled_index_tail_on_a_rolled_segment() {
    let c = Copy::new();
    let mut index = fs::read(c.file(".index")).unwrap();
    let entries = index.len() / 8;
    index.extend_from_slice(&[0u8; 80]);
    fs::write(c.file(".index"), &index).unwrap();
    let (code, doc) = inspect_json(&[c.log_dir.to_str().unwrap()]);
    assert_eq!(code, 2);
    let f = findings(&doc, "index.zero_tail");
    assert_eq!(f.len(), 1, "{:#}", doc["findings"]);
    assert_eq!(f[0]["location"]["byte_offset"], (entries * 8) as u64);
}

#[test]
fn index_entry_pointing_past_the_log() {
    let c = Copy::new();
    let mut entry = Vec::new();
    entry.extend_from_slice(&2i32.to_be_bytes());
    entry.extend_from_slice(&5000i32.to_be_bytes());
    fs::write(c.file(".index"), &entry).unwrap();
    let (code, doc) = inspect_json(&[c.log_dir.to_str().unwrap()]);
    assert_eq!(code, 2);
    let f = findings(&doc, "index.disagrees_with_log");
    assert_eq!(f.len(), 1, "{:#}", doc["findings"]);
    assert_eq!(f[0]["location"]["byte_offset"], 0);
    assert!(f[0]["message"].as_str().unwrap().contains("past the end"));
}

#[test]
fn time_index_out_of_order() {
    let c = Copy::new();
    let mut ti = fs::read(c.file(".timeindex")).unwrap();
    assert_eq!(
        ti.len(),
        12,
        "fixture changed: expected one time-index entry"
    );
    let ts = i64::from_be_bytes(ti[..8].try_into().unwrap());
    ti.extend_from_slice(&(ts - 60_000).to_be_bytes());
    ti.extend_from_slice(&3i32.to_be_bytes());
    fs::write(c.file(".timeindex"), &ti).unwrap();
    let (code, doc) = inspect_json(&[c.log_dir.to_str().unwrap()]);
    assert_eq!(code, 2);
    let bad = findings(&doc, "timeindex.bad_entries");
    assert_eq!(bad.len(), 1, "{:#}", doc["findings"]);
    assert_eq!(bad[0]["location"]["byte_offset"], 12);
    // Kafka's own check (last timestamp below the first) fails too.
    assert_eq!(findings(&doc, "timeindex.sanity_failed").len(), 1);
}

#[test]
fn missing_index_files() {
    let c = Copy::new();
    fs::remove_file(c.file(".index")).unwrap();
    fs::remove_file(c.file(".timeindex")).unwrap();
    let (code, doc) = inspect_json(&[c.log_dir.to_str().unwrap()]);
    // The broker rebuilds both (the segment is recovered for its missing .index): findings that
    // need no action, so info and exit 0 (exit codes mean action), never corruption.
    assert_eq!(
        code, 0,
        "missing indexes the broker rebuilds need no action"
    );
    assert_eq!(findings(&doc, "index.missing").len(), 1);
    let t = findings(&doc, "timeindex.missing");
    assert_eq!(t.len(), 1);
    assert!(t[0]["location"]["file"]
        .as_str()
        .unwrap()
        .ends_with(&format!("{SEGMENT}.log")));
    // Without its .index the broker recovers the segment (LogLoader.loadSegmentFiles, after a
    // clean shutdown too) and rebuilds the time index from the batches.
    let segment_1 = |doc: &Value| {
        doc["log_dirs"][0]["partitions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["dir"] == PARTITION)
            .unwrap()["segments"][1]
            .clone()
    };
    let seg = segment_1(&doc);
    assert_eq!(seg["recovered_on_start"], true);
    assert_eq!(seg["largest_timestamp_source"], "recovery");
    assert!(seg["largest_timestamp_on_disk_ms"].as_i64().unwrap() > 0);
    // With only the time index gone the broker falls back to the .log mtime for retention.
    let c = Copy::new();
    fs::remove_file(c.file(".timeindex")).unwrap();
    let (_, doc) = inspect_json(&[c.log_dir.to_str().unwrap()]);
    let seg = segment_1(&doc);
    assert_eq!(seg["recovered_on_start"], false);
    assert_eq!(seg["largest_timestamp_source"], "log_mtime");
    assert_eq!(
        seg["largest_timestamp_on_disk_ms"],
        seg["largest_timestamp_ms"]
    );
}

#[test]
fn garbage_in_a_checkpoint_file() {
    let c = Copy::new();
    let path = c.log_dir.join("recovery-point-offset-checkpoint");
    fs::write(&path, "0\n2\norders 0 36\norders one 12\n").unwrap();
    let (code, doc) = inspect_json(&[c.log_dir.to_str().unwrap()]);
    assert_eq!(code, 2);
    let f = findings(&doc, "file.corrupt");
    assert_eq!(f.len(), 1, "{:#}", doc["findings"]);
    assert_eq!(f[0]["location"]["file"], path.to_str().unwrap());
    assert_eq!(
        f[0]["location"]["byte_offset"],
        "0\n2\norders 0 36\n".len() as u64
    );
}

#[test]
fn garbage_segment_does_not_panic() {
    let c = Copy::new();
    let mut noise = Vec::new();
    let mut x: u32 = 0x1234_5678;
    for _ in 0..4096 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        noise.push(x as u8);
    }
    fs::write(c.file(".log"), &noise).unwrap();
    fs::write(c.file(".index"), &noise[..1000]).unwrap();
    fs::write(c.file(".timeindex"), &noise[..1001]).unwrap();
    fs::write(c.file(".snapshot"), &noise[..333]).unwrap();
    let (code, doc) = inspect_json(&[c.log_dir.to_str().unwrap(), "--verify", "--records"]);
    assert_eq!(code, 2, "{:#}", doc["findings"]);
}

#[test]
fn unreadable_file_is_an_io_error() {
    let c = Copy::new();
    // Let an unprivileged user walk the copy, then take read access away from one segment.
    for p in [
        c._tmp.path(),
        c.log_dir.as_path(),
        &c.log_dir.join(PARTITION),
    ] {
        fs::set_permissions(p, fs::Permissions::from_mode(0o755)).unwrap();
    }
    fs::set_permissions(c.file(".log"), fs::Permissions::from_mode(0o000)).unwrap();
    // Root reads any file, so as root run logclean as `nobody`.
    let mut cmd = support::logclean_capped(support::MEMORY_CAP_BYTES, true);
    let out = cmd
        .args(["--format", "json", "inspect", c.log_dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let f = findings(&doc, "file.unreadable");
    assert_eq!(f.len(), 1, "{:#}", doc["findings"]);
    assert!(f[0]["location"]["file"]
        .as_str()
        .unwrap()
        .ends_with(&format!("{SEGMENT}.log")));
}

#[test]
fn a_partition_dir_and_a_segment_file_can_be_inspected() {
    let c = Copy::new();
    let (code, doc) = inspect_json(&[c.log_dir.join(PARTITION).to_str().unwrap()]);
    assert_eq!(code, 0);
    let parts = doc["log_dirs"][0]["partitions"].as_array().unwrap();
    assert_eq!(parts.len(), 1);
    assert_eq!(
        parts[0]["high_watermark"], 36,
        "root checkpoints are read for a partition dir"
    );
    let (code, doc) = inspect_json(&[c.file(".log").to_str().unwrap(), "--records"]);
    assert_eq!(code, 0);
    let p = &doc["log_dirs"][0]["partitions"][0];
    assert_eq!(p["segments"].as_array().unwrap().len(), 1);
    assert_eq!(p["segments"][0]["base_offset"], 4);
    assert_eq!(p["batches"].as_array().unwrap().len(), 4);
}

#[test]
fn usage_and_missing_paths_exit_3() {
    let out = logclean().arg("inspect").output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let out = logclean()
        .args(["inspect", "/nonexistent/logclean-test"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("logclean: error: "));
    let out = logclean().arg("--version").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn broken_pipe_is_quiet() {
    use std::io::Read;
    use std::process::Stdio;
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/basic-delete/logs-0");
    let mut child = logclean()
        .args(["inspect", "--records", src.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(err.is_empty(), "stderr: {err}");
    assert!(matches!(status.code(), Some(0 | 1)), "{status:?}");
}

#[test]
fn same_partition_live_in_two_log_dirs() {
    let a = Copy::new();
    let b = Copy::new();
    let (code, doc) = inspect_json(&[a.log_dir.to_str().unwrap(), b.log_dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    let dups = findings(&doc, "partition.duplicate");
    // orders-0, orders-2, sized-0 and the metadata log are each in both copies.
    assert_eq!(dups.len(), 4, "{:#}", doc["findings"]);
}

/// A private copy of any fixture log dir.
fn copy_fixture(rel: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dst = tmp.path().join("logs-0");
    copy_dir_readable(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel), &dst);
    (tmp, dst)
}

fn segments_of<'a>(doc: &'a Value, dir: &str) -> &'a Vec<Value> {
    doc["log_dirs"][0]["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["dir"] == dir)
        .unwrap()["segments"]
        .as_array()
        .unwrap()
}

#[test]
fn recovery_marks_segments_from_the_one_holding_the_recovery_point() {
    let (_t, dir) = copy_fixture("fixtures/unclean-shutdown/logs-0");
    let (code, doc) = inspect_json(&[dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{:#}", doc["findings"]);
    let p = doc["log_dirs"][0]["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["dir"] == "crash-0")
        .unwrap();
    let rp = p["recovery_point"].as_i64().unwrap();
    let segs = p["segments"].as_array().unwrap();
    let floor = segs
        .iter()
        .map(|s| s["base_offset"].as_i64().unwrap())
        .filter(|b| *b <= rp)
        .max()
        .unwrap();
    for s in segs {
        let base = s["base_offset"].as_i64().unwrap();
        assert_eq!(
            s["recovered_on_start"],
            base >= floor,
            "segment {base}, recovery point {rp}"
        );
        if base >= floor {
            assert_eq!(s["largest_timestamp_source"], "recovery");
        }
    }
    assert!(
        segs.iter().any(|s| s["recovered_on_start"] == false),
        "fixture should have unrecovered segments"
    );
}

#[test]
fn orphan_index_does_not_become_the_active_segment() {
    let (_t, dir) = copy_fixture("fixtures/unclean-shutdown/logs-0");
    fs::write(dir.join("crash-0/00000000000000000099.timeindex"), b"").unwrap();
    let (code, doc) = inspect_json(&[dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{:#}", doc["findings"]);
    assert_eq!(findings(&doc, "segment.orphan_index").len(), 1);
    let segs = segments_of(&doc, "crash-0");
    let active: Vec<_> = segs.iter().filter(|s| s["active"] == true).collect();
    assert_eq!(active.len(), 1);
    assert_eq!(active[0]["base_offset"], 12);
}

/// `logclean --format json <command> <log dir>`: the exit code and the document.
fn run_json(command: &str, log_dir: &Path) -> (i32, Value) {
    let out = logclean()
        .args(["--format", "json", command])
        .arg(log_dir)
        .output()
        .unwrap();
    let code = out.status.code().expect("exited by signal (panic abort?)");
    (code, serde_json::from_slice(&out.stdout).unwrap())
}

#[test]
fn index_files_without_their_log_are_orphans_never_segments() {
    let c = Copy::new();
    let (_, before) = run_json("inspect", &c.log_dir);
    fs::remove_file(c.file(".log")).unwrap();
    let has_segment_4 = |segs: &Vec<Value>| segs.iter().any(|s| s["base_offset"] == 4);
    for command in ["inspect", "diagnose"] {
        let (_, doc) = run_json(command, &c.log_dir);
        assert_eq!(
            doc["summary"]["segments"],
            before["summary"]["segments"].as_u64().unwrap() - 1,
            "{command}"
        );
        let orphans = findings(&doc, "segment.orphan_index");
        let mut files: Vec<&str> = orphans
            .iter()
            .map(|f| f["location"]["file"].as_str().unwrap())
            .collect();
        files.sort();
        assert_eq!(files.len(), 2, "{command}: one per file: {files:?}");
        assert!(files[0].ends_with(&format!("{SEGMENT}.index")), "{files:?}");
        assert!(
            files[1].ends_with(&format!("{SEGMENT}.timeindex")),
            "{files:?}"
        );
    }
    let (_, doc) = run_json("inspect", &c.log_dir);
    assert!(!has_segment_4(segments_of(&doc, PARTITION)));
    let (_, plan) = run_json("plan", &c.log_dir);
    let orders = plan["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["dir"] == PARTITION)
        .unwrap();
    assert!(
        !has_segment_4(orders["segments"].as_array().unwrap()),
        "{orders:#}"
    );
}

#[test]
fn metadata_log_gone_past_its_newest_snapshot_is_lost_metadata() {
    let (_t, dir) = copy_fixture("fixtures/kraft-metadata/logs-0");
    let md = dir.join("__cluster_metadata-0");
    let evidence = |f: &Value, name: &str| {
        f["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .map(|e| e["value"].clone())
    };
    // Healthy: the log is there.
    let (_, doc) = run_json("inspect", &dir);
    assert!(findings(&doc, "metadata.records_lost").is_empty());
    // The .log gone: its producer snapshot (68), index and time index (entry at 57) go past
    // the newest snapshot (60).
    fs::remove_file(md.join("00000000000000000000.log")).unwrap();
    for command in ["inspect", "diagnose"] {
        let (code, doc) = run_json(command, &dir);
        assert_eq!(code, 1, "{command}: {:#}", doc["findings"]);
        let f = findings(&doc, "metadata.records_lost");
        assert_eq!(f.len(), 1, "{command}: {:#}", doc["findings"]);
        assert_eq!(f[0]["severity"], "error");
        assert_eq!(f[0]["location"]["dir"], "__cluster_metadata-0");
        assert_eq!(evidence(f[0], "log_reached"), Some(68.into()));
        assert_eq!(
            evidence(f[0], "newest_snapshot_end_offset"),
            Some(60.into())
        );
        assert_eq!(evidence(f[0], "producer_snapshot_offset"), Some(68.into()));
        assert_eq!(evidence(f[0], "index_last_offset"), Some(57.into()));
        assert_eq!(evidence(f[0], "time_index_last_offset"), Some(57.into()));
        assert_eq!(evidence(f[0], "offsets_lost"), Some(8.into()));
        let m = f[0]["message"].as_str().unwrap();
        assert!(
            m.contains("committed metadata records") && m.contains("60..67"),
            "{m}"
        );
    }
    // Without the producer snapshot the indexes alone reach 58: below the snapshot, nothing
    // is lost.
    fs::remove_file(md.join("00000000000000000068.snapshot")).unwrap();
    let (_, doc) = run_json("inspect", &dir);
    assert!(
        findings(&doc, "metadata.records_lost").is_empty(),
        "{:#}",
        doc["findings"]
    );
    // ... unless the snapshots are gone too: everything the indexes show is lost.
    for e in fs::read_dir(&md).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "checkpoint") {
            fs::remove_file(path).unwrap();
        }
    }
    let (_, doc) = run_json("inspect", &dir);
    let f = findings(&doc, "metadata.records_lost");
    assert_eq!(f.len(), 1, "{:#}", doc["findings"]);
    assert_eq!(evidence(f[0], "log_reached"), Some(58.into()));
    assert_eq!(evidence(f[0], "checkpoint_snapshots"), Some(0.into()));
}

#[test]
fn zero_filled_segment_in_a_cleanly_shut_down_dir_is_corruption() {
    let c = Copy::new();
    let len = fs::metadata(c.file(".log")).unwrap().len() as usize;
    fs::write(c.file(".log"), vec![0u8; len]).unwrap();
    let (code, doc) = inspect_json(&[c.log_dir.to_str().unwrap()]);
    assert_eq!(code, 2);
    let f = findings(&doc, "log.zero_filled_tail");
    assert_eq!(f.len(), 1, "{:#}", doc["findings"]);
    assert_eq!(f[0]["class"], "corruption");
    assert_eq!(f[0]["location"]["byte_offset"], 0);
}

#[test]
fn relative_paths_and_overlapping_targets() {
    let c = Copy::new();
    let part = c.log_dir.join(PARTITION);
    // A segment named relative to its partition dir, and `.` for the partition dir.
    for (cwd, arg) in [(&part, format!("{SEGMENT}.log")), (&part, ".".to_string())] {
        let out = logclean()
            .current_dir(cwd)
            .args(["--format", "json", "inspect", &arg])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{arg}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            doc["log_dirs"][0]["partitions"][0]["dir"], PARTITION,
            "{arg}"
        );
        assert!(findings(&doc, "dir.unknown_file").is_empty(), "{arg}");
    }
    // The same partition reached twice is one partition, not a duplicate.
    let (code, doc) = inspect_json(&[c.log_dir.to_str().unwrap(), part.to_str().unwrap()]);
    assert_eq!(code, 0, "{:#}", doc["findings"]);
    assert_eq!(doc["log_dirs"].as_array().unwrap().len(), 1);
    // One segment alone says nothing about the partition's start and end.
    let (_, doc) = inspect_json(&[c.file(".log").to_str().unwrap()]);
    assert!(doc["log_dirs"][0]["partitions"][0]["log_end_offset"].is_null());
}

#[test]
fn fifo_in_the_log_dir_does_not_hang() {
    let c = Copy::new();
    fs::remove_file(c.log_dir.join("recovery-point-offset-checkpoint")).unwrap();
    let ok = Command::new("mkfifo")
        .arg(c.log_dir.join("recovery-point-offset-checkpoint"))
        .status()
        .unwrap();
    assert!(ok.success());
    let (code, doc) = inspect_json(&[c.log_dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(findings(&doc, "dir.unknown_file").len(), 1);
}

#[test]
fn symlinked_partition_dir_is_followed() {
    let c = Copy::new();
    let elsewhere = c._tmp.path().join("elsewhere");
    fs::rename(c.log_dir.join(PARTITION), &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, c.log_dir.join(PARTITION)).unwrap();
    let (code, doc) = inspect_json(&[c.log_dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{:#}", doc["findings"]);
    assert_eq!(segments_of(&doc, PARTITION).len(), 9);
}

#[test]
fn empty_time_index_on_a_rolled_segment() {
    let c = Copy::new();
    fs::write(c.file(".timeindex"), b"").unwrap();
    let (code, doc) = inspect_json(&[c.log_dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&doc, "timeindex.empty").len(),
        1,
        "{:#}",
        doc["findings"]
    );
    assert_eq!(
        segments_of(&doc, PARTITION)[1]["largest_timestamp_source"],
        "log_mtime"
    );
}

#[test]
fn log_start_checkpoint_beyond_the_log_end() {
    let c = Copy::new();
    fs::write(
        c.log_dir.join("log-start-offset-checkpoint"),
        "0\n1\norders 0 99\n",
    )
    .unwrap();
    let (code, doc) = inspect_json(&[c.log_dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&doc, "partition.log_start_beyond_end").len(),
        1,
        "{:#}",
        doc["findings"]
    );
}

#[test]
fn config_on_an_unreadable_dir_exits_3() {
    let out = logclean()
        .args(["config", "/nonexistent/logclean-test"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
}

/// A partition dir named with an escape sequence and a newline reaches the table escaped (even
/// with `--color never`), and the JSON raw (JSON escapes it by itself).
#[test]
fn names_from_disk_are_escaped_in_the_table() {
    let c = Copy::new();
    let evil = "evil\x1b[31m\nx\u{202e}-0";
    fs::create_dir(c.log_dir.join(evil)).unwrap();
    let out = logclean()
        .args(["--color", "never", "inspect"])
        .arg(&c.log_dir)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "partition.bad_dir_name is an error finding"
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains('\x1b'), "raw ESC in the table:\n{text}");
    assert!(!text.contains('\u{202e}'), "raw bidi override in the table");
    assert!(text.contains("evil\\x1b[31m\\nx\\u{202e}-0"), "{text}");
    assert!(
        !text.lines().any(|l| l.starts_with("x")),
        "a forged line:\n{text}"
    );

    let (_, doc) = inspect_json(&[c.log_dir.to_str().unwrap()]);
    let f = findings(&doc, "partition.bad_dir_name");
    assert_eq!(f.len(), 1, "{:#}", doc["findings"]);
    assert_eq!(f[0]["location"]["dir"], evil);
}

/// Schema 2: the shared envelope, typed evidence, a full location and a fix on every finding.
#[test]
fn schema_2_envelope_evidence_and_fixes() {
    let c = Copy::new();
    let log = fs::read(c.file(".log")).unwrap();
    fs::write(c.file(".log"), &log[..log.len() - 10]).unwrap();
    fs::remove_file(c.file(".index")).unwrap();
    let (_, doc) = inspect_json(&[c.log_dir.to_str().unwrap()]);
    assert_eq!(doc["command"], "inspect");
    assert!(doc["tool"].as_str().unwrap().starts_with("logclean "));
    assert!(doc["generated_at_ms"].as_i64().unwrap() > 0);
    assert_eq!(doc["evaluated_at_ms"], doc["generated_at_ms"]);
    // Without its .index the segment is recovered on start: the cut tail needs no action, so it
    // is info and the exit code 0.
    assert_eq!(doc["summary"]["exit_code"], 0);
    for f in doc["findings"].as_array().unwrap() {
        assert!(!f["fix"].as_str().unwrap().is_empty(), "no fix: {f:#}");
        for e in f["evidence"].as_array().unwrap() {
            assert!(e["name"].is_string() && e["kind"].is_string(), "{e:#}");
            assert!(!e["value"].is_null(), "{e:#}");
        }
    }
    let t = findings(&doc, "log.truncated_tail");
    let loc = &t[0]["location"];
    assert_eq!(loc["topic"], "orders");
    assert_eq!(loc["partition"], 0);
    assert_eq!(loc["dir"], PARTITION);
    assert_eq!(loc["segment"], 4);
    assert_eq!(t[0]["evidence"][0]["name"], "declared");
    assert_eq!(t[0]["evidence"][0]["kind"], "bytes");
    assert!(t[0]["evidence"][0]["value"].as_u64().unwrap() > 10);
    assert_eq!(findings(&doc, "index.missing")[0]["location"]["segment"], 4);
}

#[test]
fn the_metadata_log_shows_its_snapshots_and_feature_levels() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/kraft-metadata/logs-0");
    let (code, doc) = inspect_json(&[dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{doc:#}");
    let parts = doc["log_dirs"][0]["partitions"].as_array().unwrap();
    let with_log: Vec<&Value> = parts
        .iter()
        .filter(|p| p.get("metadata_log").is_some())
        .collect();
    assert_eq!(with_log.len(), 1);
    assert_eq!(with_log[0]["dir"], "__cluster_metadata-0");
    let m = &with_log[0]["metadata_log"];
    let ends: Vec<i64> = m["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["end_offset"].as_i64().unwrap())
        .collect();
    assert_eq!(ends, [0, 23, 52, 60]);
    assert_eq!(
        m["snapshot_used"],
        "00000000000000000060-0000000001.checkpoint"
    );
    assert_eq!(m["features"]["metadata.version"], 33);
    assert_eq!(m["metadata_version"], "4.4-IV2");
    assert_eq!(m["features"]["transaction.version"], 2);
    assert_eq!(doc["log_dirs"][0]["mode"], "kraft");
    let out = logclean()
        .args(["--no-progress", "inspect", dir.to_str().unwrap()])
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("KRaft metadata log"), "{table}");
    assert!(table.contains("snapshots at 0, 23, 52, 60"), "{table}");
    assert!(table.contains("metadata.version 33 (4.4-IV2)"), "{table}");
    assert!(table.contains("KRaft mode"), "{table}");
}

#[test]
fn a_zookeeper_mode_dir_is_normal_input() {
    let c = Copy::new();
    fs::remove_dir_all(c.log_dir.join("__cluster_metadata-0")).unwrap();
    for e in fs::read_dir(&c.log_dir).unwrap() {
        let pm = e.unwrap().path().join("partition.metadata");
        if pm.exists() {
            fs::remove_file(pm).unwrap();
        }
    }
    fs::write(
        c.log_dir.join("meta.properties"),
        "version=0\nbroker.id=1\ncluster.id=TG9nQ2xlYW5GaXh0dXJlcw\n",
    )
    .unwrap();
    let (code, doc) = inspect_json(&[c.log_dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{:#}", doc["findings"]);
    assert_eq!(doc["findings"].as_array().unwrap().len(), 0);
    assert_eq!(doc["log_dirs"][0]["mode"], "zookeeper");
    assert!(doc["log_dirs"][0]["kafka_versions"]
        .as_str()
        .unwrap()
        .contains("up to 3.9"));
    let out = logclean()
        .args(["--no-progress", "inspect", c.log_dir.to_str().unwrap()])
        .output()
        .unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        table.contains("ZooKeeper mode (Kafka up to 3.9)"),
        "{table}"
    );
}

#[test]
fn a_parent_of_log_dirs_is_said_once_with_the_dirs_below() {
    let parent = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/basic-delete");
    let (code, doc) = inspect_json(&[parent.to_str().unwrap()]);
    assert_eq!(code, 1, "{doc:#}");
    let f = doc["findings"].as_array().unwrap();
    assert_eq!(f.len(), 1, "{doc:#}");
    assert_eq!(f[0]["code"], "dir.not_a_log_dir");
    let listed: Vec<&str> = f[0]["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["name"] == "log_dir")
        .map(|e| e["value"].as_str().unwrap())
        .collect();
    assert_eq!(
        listed,
        [
            parent.join("logs-0").to_str().unwrap(),
            parent.join("logs-1").to_str().unwrap()
        ]
    );
    assert_eq!(doc["log_dirs"].as_array().unwrap().len(), 0);
}

#[test]
fn dirs_of_two_clusters_are_a_mismatch_not_duplicates() {
    let (a, b) = (Copy::new(), Copy::new());
    let meta = b.log_dir.join("meta.properties");
    let text = fs::read_to_string(&meta).unwrap();
    fs::write(
        &meta,
        text.replace("TG9nQ2xlYW5GaXh0dXJlcw", "T3RoZXJDbHVzdGVyMDAwMA"),
    )
    .unwrap();
    let (code, doc) = inspect_json(&[a.log_dir.to_str().unwrap(), b.log_dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{doc:#}");
    let codes: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["dir.cluster_mismatch"], "{doc:#}");
}

/// `logclean --format FORMAT <command> <args>`: its stdout, after checking it did not panic.
fn stdout_of(format: &str, command: &str, args: &[&str]) -> Vec<u8> {
    let out = logclean()
        .args(["--format", format, command])
        .args(args)
        .output()
        .unwrap();
    let code = out.status.code().expect("exited by signal (panic abort?)");
    assert_ne!(
        code,
        101,
        "{command} panicked: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Every command that evaluates at an instant takes `--now`: its document says it was evaluated
/// there (not at the wall clock it was generated at); `plan` and `delete` also take it as `--at`.
#[test]
fn every_evaluating_command_takes_now() {
    let c = Copy::new();
    let dir = c.log_dir.to_str().unwrap();
    let now = 1_796_083_200_000_i64;
    let commands = [
        "diagnose",
        "inspect",
        "config",
        "groups",
        "transactions",
        "plan",
        "rebuild-index",
        "roll",
        "delete",
    ];
    for command in commands {
        let out = stdout_of("json", command, &["--now", &now.to_string(), dir]);
        let doc: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(doc["evaluated_at_ms"], now, "{command}");
        assert_ne!(doc["generated_at_ms"], now, "{command}");
    }
    let without_generated = |mut doc: Value| {
        doc["generated_at_ms"] = Value::Null;
        doc
    };
    for command in ["plan", "delete"] {
        let at = stdout_of("json", command, &["--at", "2026-12-01T00:00:00Z", dir]);
        let now = stdout_of("json", command, &["--now", "1796083200000", dir]);
        let (at, now): (Value, Value) = (
            serde_json::from_slice(&at).unwrap(),
            serde_json::from_slice(&now).unwrap(),
        );
        assert_eq!(without_generated(at), without_generated(now), "{command}");
    }
    // Ages in the table count from the instant.
    let day_one = stdout_of("table", "inspect", &["--now", "2026-12-01T00:00:00Z", dir]);
    let day_two = stdout_of("table", "inspect", &["--now", "2026-12-02T00:00:00Z", dir]);
    assert_ne!(day_one, day_two);
}
