//! Issue 23: `logclean snapshot` and `--snapshot`. For every fixture and every command that
//! takes `--snapshot`, in JSON and as a table, the run on a snapshot gives the document the run
//! on the log dirs gives at the same instant, but for the input description. The snapshot is
//! read after its log dirs were moved away, so a command that reads the dirs again after loading
//! them (a fact the snapshot does not carry) fails this test instead of passing by reading them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;
use support::scratch::{code, copy_dir, logclean, s};

use std::path::{Path, PathBuf};

use serde_json::Value;

/// One instant for every run (the fixtures were captured on 2026-11-30).
const NOW: &str = "--now=2026-12-01T00:00:00Z";

/// Fixed filesystem figures for `diagnose`: the free space of the machine running the test
/// changes between two runs (the figures a snapshot carries are checked on their own:
/// `diagnose_takes_the_filesystem_figures_of_the_snapshot`).
const DISK: &str = "--disk-space=1000000000,2000000000";

/// Which snapshot a command reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Depth {
    /// `snapshot` (the load of plan, diagnose, groups, transactions).
    Tail,
    /// `snapshot --depth headers` (the load of inspect).
    Headers,
}

/// The commands that take `--snapshot`: the arguments they are run with, the formats compared,
/// the snapshot they read, and whether they take `--server-properties`.
const COMMANDS: &[(&[&str], &[&str], Depth, bool)] = &[
    (&["plan"], &["json", "table"], Depth::Tail, true),
    (
        &["plan", "--timeline"],
        &["json", "table"],
        Depth::Tail,
        true,
    ),
    // The what-if of a CI gate: today's plan, the proposed one and their difference.
    (
        &[
            "plan",
            "--config",
            "*:retention.ms=3600000",
            "--fail-if-deletes-more-than",
            "1KiB",
        ],
        &["json", "table"],
        Depth::Tail,
        true,
    ),
    (&["config"], &["json", "table"], Depth::Tail, true),
    (
        &["diagnose", DISK],
        &["json", "table", "prometheus"],
        Depth::Tail,
        true,
    ),
    (&["groups"], &["json", "table"], Depth::Tail, true),
    (&["transactions"], &["json", "table"], Depth::Tail, true),
    (&["inspect"], &["json", "table"], Depth::Headers, false),
];

/// The fixture's log dirs (manifest order).
fn log_dirs(fixture: &Path) -> Vec<String> {
    let m: Value =
        serde_json::from_slice(&std::fs::read(fixture.join("manifest.json")).unwrap()).unwrap();
    support::manifest_log_dirs(&m)
}

fn fixtures() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(support::fixtures_root())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("manifest.json").is_file())
        .collect();
    out.sort();
    out
}

/// A command's output with what differs between two runs of the same facts taken out: the
/// wall clock (`generated_at_ms`) and the input description (`input`, the table's `input:`
/// lines).
fn comparable(format: &str, stdout: &str) -> String {
    if format == "json" {
        let Ok(mut v) = serde_json::from_str::<Value>(stdout) else {
            return stdout.to_string();
        };
        let o = v.as_object_mut().unwrap();
        o.remove("generated_at_ms");
        o.remove("input");
        serde_json::to_string_pretty(&v).unwrap()
    } else {
        (stdout.lines())
            .filter(|l| !l.starts_with("input: snapshot ") && !l.starts_with("# input: snapshot "))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

struct Run {
    code: Option<i32>,
    out: String,
    err: String,
}

fn run(args: &[&str]) -> Run {
    let o = logclean(args, None);
    Run {
        code: code(&o),
        out: String::from_utf8(o.stdout.clone()).unwrap(),
        err: String::from_utf8(o.stderr.clone()).unwrap(),
    }
}

/// The fixture copied to `work/dirs` (so that it can be moved away), its log dirs there, and
/// its server.properties if it has one.
fn stage(fixture: &Path, work: &Path) -> (PathBuf, Vec<String>, Vec<String>) {
    let dirs = work.join("dirs");
    copy_dir(fixture, &dirs);
    let log_dirs = (log_dirs(fixture).iter())
        .map(|d| s(&dirs.join(d)).to_string())
        .collect();
    let props = dirs.join("server.properties");
    let extra = if props.is_file() {
        vec![
            "--server-properties".to_string(),
            s(&work.join("server.properties")).to_string(),
        ]
    } else {
        Vec::new()
    };
    // Beside the dirs, so it stays when they are moved away.
    if props.is_file() {
        std::fs::copy(&props, work.join("server.properties")).unwrap();
    }
    (dirs, log_dirs, extra)
}

fn snapshot(dirs: &[String], file: &Path) {
    snapshot_at(dirs, file, "tail");
}

fn snapshot_at(dirs: &[String], file: &Path, depth: &str) {
    let mut args = vec!["snapshot", "--depth", depth];
    args.extend(dirs.iter().map(String::as_str));
    args.extend(["-o", s(file)]);
    let r = run(&args);
    assert_eq!(r.code, Some(0), "snapshot {dirs:?}: {}", r.err);
    assert!(r.out.starts_with("wrote "), "{}", r.out);
}

#[test]
fn every_command_on_every_fixture_gives_the_same_answer_from_a_snapshot() {
    let mut compared = 0;
    let mut expected_runs = 0;
    for fixture in fixtures() {
        let name = fixture.file_name().unwrap().to_string_lossy().into_owned();
        let work = tempfile::tempdir().unwrap();
        let (dirs, log_dirs, extra) = stage(&fixture, work.path());
        // On the log dirs, every command and format.
        let mut expected = Vec::new();
        for &(cmd, formats, depth, props) in COMMANDS {
            for &format in formats {
                let mut args = vec!["--format", format, "--color", "never"];
                args.extend(cmd.iter().copied());
                args.push(NOW);
                if props {
                    args.extend(extra.iter().map(String::as_str));
                }
                let mut on_dirs = args.clone();
                on_dirs.extend(log_dirs.iter().map(String::as_str));
                let r = run(&on_dirs);
                expected.push((args.join(" "), format, depth, r));
            }
        }
        expected_runs += expected.len();
        let tail = work.path().join("broker.snap");
        let headers = work.path().join("broker-headers.snap");
        snapshot(&log_dirs, &tail);
        snapshot_at(&log_dirs, &headers, "headers");
        // The dirs are gone: whatever the snapshot does not carry cannot be read.
        std::fs::rename(&dirs, work.path().join("moved")).unwrap();
        for (args, format, depth, want) in expected {
            let snap = if depth == Depth::Tail {
                &tail
            } else {
                &headers
            };
            let mut argv: Vec<&str> = args.split(' ').collect();
            argv.extend(["--snapshot", s(snap)]);
            let got = run(&argv);
            assert_eq!(
                (got.code, comparable(format, &got.out)),
                (want.code, comparable(format, &want.out)),
                "{name}: `{args}` from a snapshot differs from the log dirs\nstderr: {}\nlog dirs' stderr: {}",
                got.err,
                want.err
            );
            assert_eq!(got.err, want.err, "{name}: `{args}` stderr");
            match format {
                "json" => {
                    let v: Value = serde_json::from_str(&got.out).unwrap();
                    assert_eq!(v["input"][0]["file"], s(snap), "{name}: {args}");
                    assert_eq!(
                        v["input"][0]["log_dirs"].as_array().unwrap().len(),
                        log_dirs.len()
                    );
                }
                "prometheus" => assert!(
                    got.out
                        .starts_with(&format!("# input: snapshot {} taken ", s(snap))),
                    "{name}: {args}"
                ),
                _ => assert!(got.out.starts_with("input: snapshot "), "{name}: {args}"),
            }
            compared += 1;
        }
    }
    // Every fixture, every command, every format.
    assert_eq!(compared, expected_runs);
    assert!(compared >= 34 * 17, "{compared}");
}

/// What `diagnose` says of the filesystem comes from the snapshot: statvfs when it was taken,
/// not the machine reading it.
#[test]
fn diagnose_takes_the_filesystem_figures_of_the_snapshot() {
    let fixture = support::scratch::fixture("basic-delete");
    let work = tempfile::tempdir().unwrap();
    let (dirs, log_dirs, extra) = stage(&fixture, work.path());
    let snap = work.path().join("b.snap");
    snapshot(&log_dirs, &snap);
    std::fs::rename(&dirs, work.path().join("moved")).unwrap();
    let mut json = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(&snap).unwrap()),
        &mut json,
    )
    .unwrap();
    let carried: Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(carried["format_version"], 2);
    let disk = &carried["replays"]["disk"][0];
    assert_eq!(disk["path"], log_dirs[0].as_str());
    let free = disk["fs"]["free_bytes"].as_u64().unwrap();
    let mut args = vec!["--format", "json", "diagnose", NOW, "--snapshot", s(&snap)];
    args.extend(extra.iter().map(String::as_str));
    let r = run(&args);
    let v: Value = serde_json::from_str(&r.out).unwrap();
    let dir = &v["headline"]["log_dirs"][0];
    assert_eq!(dir["fs_free_bytes"].as_u64(), Some(free), "{dir}");
    // Blocks too: what the dir held on disk when taken (the dirs are gone now).
    let blocks: u64 = (disk["usage"]["entries"].as_array().unwrap().iter())
        .map(|e| e[1].as_u64().unwrap())
        .sum();
    assert!(blocks > 0);
    assert_eq!(dir["on_disk_bytes"].as_u64(), Some(blocks), "{dir}");
    assert_eq!(
        v["log_dirs"][0]["space"]["allocated_bytes"].as_u64(),
        Some(blocks)
    );
}

#[test]
fn snapshots_of_each_log_dir_read_together_answer_for_both() {
    let fixture = support::scratch::fixture("basic-delete");
    let work = tempfile::tempdir().unwrap();
    let (_, log_dirs, extra) = stage(&fixture, work.path());
    let mut base = vec!["--format", "json", "plan", NOW];
    base.extend(extra.iter().map(String::as_str));
    // A what-if: the proposed plan and its difference come from the snapshots too.
    base.extend(["--config", "orders:retention.ms=3600000"]);
    let mut on_dirs = base.clone();
    on_dirs.extend(log_dirs.iter().map(String::as_str));
    let want = run(&on_dirs);
    assert_eq!(want.code, Some(0), "{}", want.err);
    let snaps: Vec<PathBuf> = (0..log_dirs.len())
        .map(|i| work.path().join(format!("dir{i}.snap")))
        .collect();
    for (d, f) in log_dirs.iter().zip(&snaps) {
        snapshot(std::slice::from_ref(d), f);
    }
    let mut from_snaps = base.clone();
    for f in &snaps {
        from_snaps.extend(["--snapshot", s(f)]);
    }
    let got = run(&from_snaps);
    assert_eq!(
        comparable("json", &got.out),
        comparable("json", &want.out),
        "{}",
        got.err
    );
    let v: Value = serde_json::from_str(&got.out).unwrap();
    assert_eq!(v["input"].as_array().unwrap().len(), 2);
    assert!(!v["what_if"].is_null(), "{v}");
}

#[test]
fn snapshot_refusals_are_said() {
    let fixture = support::scratch::fixture("basic-delete");
    let logs = fixture.join("logs-0");
    let work = tempfile::tempdir().unwrap();
    // Never inside a log dir it reads.
    let inside = logs.join("x.snap");
    let r = run(&["snapshot", s(&logs), "-o", s(&inside)]);
    assert_eq!(r.code, Some(3));
    assert!(
        r.err
            .contains("refusing to write the snapshot inside log dir"),
        "{}",
        r.err
    );
    assert!(!inside.exists());
    // Whole log dirs only.
    let r = run(&[
        "snapshot",
        s(&logs.join("orders-0")),
        "-o",
        s(&work.path().join("a")),
    ]);
    assert_eq!(r.code, Some(3));
    assert!(
        r.err.contains("a snapshot takes whole log dirs"),
        "{}",
        r.err
    );
    // A file that is not a snapshot, and a newer snapshot.
    let junk = work.path().join("junk");
    std::fs::write(&junk, "not a snapshot").unwrap();
    let r = run(&["plan", "--snapshot", s(&junk)]);
    assert_eq!(r.code, Some(3));
    assert!(r.err.contains("not a logclean facts snapshot"), "{}", r.err);
    let newer = work.path().join("newer.snap");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(
        &mut gz,
        br#"{"format_version":99,"logclean_version":"logclean 9.9.9"}"#,
    )
    .unwrap();
    std::fs::write(&newer, gz.finish().unwrap()).unwrap();
    let r = run(&["config", "--snapshot", s(&newer)]);
    assert_eq!(r.code, Some(3));
    assert!(
        r.err
            .contains("snapshot format version 99 (written by logclean 9.9.9)")
            && r.err.contains("reads version 2 only"),
        "{}",
        r.err
    );
    // A format-1 snapshot (without the replays) is refused by its version, not read without
    // them.
    let old = work.path().join("old.snap");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(
        &mut gz,
        br#"{"format_version":1,"logclean_version":"logclean 0.1.0 (abc)","taken_at_ms":0}"#,
    )
    .unwrap();
    std::fs::write(&old, gz.finish().unwrap()).unwrap();
    let r = run(&["groups", "--snapshot", s(&old)]);
    assert_eq!(r.code, Some(3));
    assert!(
        r.err
            .contains("snapshot format version 1 (written by logclean 0.1.0 (abc))")
            && r.err.contains("take the snapshot again"),
        "{}",
        r.err
    );
    // Log dirs and a snapshot together are refused by the parser.
    let snap = work.path().join("b.snap");
    snapshot(&[s(&logs).to_string()], &snap);
    let headers = work.path().join("h.snap");
    snapshot_at(&[s(&logs).to_string()], &headers, "headers");
    // What reads record bytes is refused by name, not run on less.
    for (args, says) in [
        (
            vec!["diagnose", "--deep", "--snapshot", s(&snap)],
            "--deep reads every record's bytes",
        ),
        (
            vec!["inspect", "--verify", "--snapshot", s(&headers)],
            "--verify reads every record's bytes",
        ),
        (
            vec!["inspect", "--records", "--snapshot", s(&headers)],
            "--records reads every record's bytes",
        ),
        // A snapshot loaded otherwise than the command loads.
        (
            vec!["inspect", "--snapshot", s(&snap)],
            "`inspect` loads them as `batch headers`",
        ),
        (
            vec!["plan", "--snapshot", s(&headers)],
            "was taken loading the dirs as `batch headers`",
        ),
        // The coordinators' replays of several snapshots are not joined.
        (
            vec!["groups", "--snapshot", s(&snap), "--snapshot", s(&snap)],
            "`groups` reads one snapshot at a time",
        ),
        (
            vec!["diagnose", "--snapshot", s(&snap), "--snapshot", s(&snap)],
            "`diagnose` reads one snapshot at a time",
        ),
    ] {
        let r = run(&args);
        assert_eq!(r.code, Some(3), "{args:?}: {}", r.err);
        assert!(r.err.contains(says), "{args:?}: {}", r.err);
        assert!(r.out.is_empty(), "{args:?}");
    }
    let r = run(&["plan", s(&logs), "--snapshot", s(&snap)]);
    assert_eq!(r.code, Some(3), "{}", r.err);
    // Mutating commands refuse a snapshot, changing nothing.
    let before = support::scratch::tree(&logs);
    for cmd in [
        &["delete"][..],
        &["roll"],
        &["rebuild-index"],
        &["free", "--target", "10%"],
        &["delete", "--execute"],
    ] {
        let mut args = cmd.to_vec();
        args.extend(["--snapshot", s(&snap), s(&logs)]);
        let r = run(&args);
        assert_eq!(r.code, Some(3), "{cmd:?}");
        assert!(
            r.err
                .contains("a facts snapshot describes log dirs; it cannot be changed"),
            "{cmd:?}: {}",
            r.err
        );
    }
    support::scratch::same(&before, &support::scratch::tree(&logs), "refused mutations");
}

/// A log dir whose path is not UTF-8 (its parent's name holds the byte 0xff) and a partition dir
/// whose name is not UTF-8 (`sized-0` renamed `siz\xe9d-0`): the snapshot carries both paths as
/// the reports write them (`\xNN`) and reads them back as the same bytes, so every command's
/// JSON from the snapshot equals the one on the dirs.
#[test]
fn paths_that_are_not_utf8_round_trip() {
    use std::ffi::{OsStr, OsString};
    use std::os::unix::ffi::OsStrExt;
    let work = tempfile::tempdir().unwrap();
    let parent = work.path().join(OsStr::from_bytes(b"r\xffs"));
    let log_dir = parent.join("logs-0");
    let fixture = support::scratch::fixture("basic-delete");
    support::scratch::copy_dir_readable(&fixture.join("logs-0"), &log_dir);
    std::fs::rename(
        log_dir.join("sized-0"),
        log_dir.join(OsStr::from_bytes(b"siz\xe9d-0")),
    )
    .unwrap();
    let props = fixture.join("server.properties");
    let run_os = |args: &[OsString]| {
        let mut cmd = support::logclean_capped(support::MEMORY_CAP_BYTES, false);
        cmd.arg("--no-progress").args(args);
        let o = cmd.output().unwrap();
        (code(&o), String::from_utf8(o.stdout).unwrap(), o.stderr)
    };
    let commands: &[&[&str]] = &[
        &["plan", "--config", "*:retention.ms=3600000"],
        &["config"],
        &["diagnose", DISK],
        &["groups"],
        &["transactions"],
    ];
    let base = |cmd: &[&str]| -> Vec<OsString> {
        let mut a: Vec<OsString> = ["--format", "json"].iter().map(OsString::from).collect();
        a.extend(cmd.iter().map(OsString::from));
        a.extend([
            NOW.into(),
            "--server-properties".into(),
            props.clone().into(),
        ]);
        a
    };
    let mut want = Vec::new();
    for cmd in commands {
        let mut a = base(cmd);
        a.push(log_dir.clone().into());
        want.push(run_os(&a));
    }
    let snap = work.path().join("b.snap");
    let (c, out, err) = run_os(&[
        "snapshot".into(),
        log_dir.clone().into(),
        "-o".into(),
        snap.clone().into(),
    ]);
    assert_eq!(c, Some(0), "{}", String::from_utf8_lossy(&err));
    assert!(out.starts_with("wrote "), "{out}");
    // Carried as text: the dir and the partition as the reports write them.
    let mut json = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(&snap).unwrap()),
        &mut json,
    )
    .unwrap();
    let carried = String::from_utf8(json).unwrap();
    assert!(
        carried.contains(r#"r\\xffs/logs-0/siz\\xe9d-0""#),
        "not carried as text"
    );
    std::fs::rename(&parent, work.path().join("moved")).unwrap();
    for (cmd, want) in commands.iter().zip(want) {
        let mut a = base(cmd);
        a.extend(["--snapshot".into(), snap.clone().into()]);
        let got = run_os(&a);
        assert_eq!(
            want.0,
            got.0,
            "{cmd:?}: {}",
            String::from_utf8_lossy(&got.2)
        );
        assert!(
            want.1.contains(r"siz\\xe9d-0") || cmd[0] != "plan",
            "{cmd:?}: {}",
            want.1
        );
        assert_eq!(
            comparable("json", &got.1),
            comparable("json", &want.1),
            "{cmd:?} from the snapshot differs"
        );
        let v: Value = serde_json::from_str(&got.1).unwrap();
        assert_eq!(
            v["input"][0]["log_dirs"][0],
            Value::from(format!("{}", log_dir.display()).replace('\u{fffd}', r"\xff"))
        );
    }
}

/// `join --snapshot` (one snapshot per broker of the three-node fixtures) is the join of the
/// brokers' `diagnose --format json --snapshot` reports: the same partitions, replicas and
/// findings; the fleet sends snapshots, never log dirs, to the place that joins them.
#[test]
fn join_takes_each_brokers_snapshot() {
    for name in ["rf3-retention", "rf3-stuck-hw"] {
        let fixture = support::scratch::fixture(name);
        let m: Value =
            serde_json::from_slice(&std::fs::read(fixture.join("manifest.json")).unwrap()).unwrap();
        let now = format!("--now={}", m["base_time"].as_str().unwrap());
        let work = tempfile::tempdir().unwrap();
        let mut snaps = Vec::new();
        let mut reports = Vec::new();
        for n in m["nodes"].as_array().unwrap() {
            let dirs: Vec<String> = (n["log_dirs"].as_array().unwrap().iter())
                .map(|d| s(&fixture.join(d.as_str().unwrap())).to_string())
                .collect();
            let snap = work.path().join(format!("node-{}.snap", n["node_id"]));
            snapshot(&dirs, &snap);
            let r = run(&["--format", "json", "diagnose", &now, "--snapshot", s(&snap)]);
            let report = work.path().join(format!("node-{}.json", n["node_id"]));
            std::fs::write(&report, &r.out).unwrap();
            snaps.push(snap);
            reports.push(report);
        }
        assert_eq!(snaps.len(), 3);
        let mut from_reports = vec!["--format", "json", "join"];
        from_reports.extend(reports.iter().map(|p| s(p)));
        let want = run(&from_reports);
        let mut from_snaps = vec!["--format", "json", "join", &now];
        for f in &snaps {
            from_snaps.extend(["--snapshot", s(f)]);
        }
        let got = run(&from_snaps);
        assert_eq!(got.code, want.code, "{name}: {}", got.err);
        let (got, want): (Value, Value) = (
            serde_json::from_str(&got.out).unwrap(),
            serde_json::from_str(&want.out).unwrap(),
        );
        assert_eq!(got["partitions"], want["partitions"], "{name}");
        assert_eq!(got["findings"], want["findings"], "{name}");
        assert_eq!(got["nodes"], serde_json::json!([1, 2, 3]), "{name}");
        // Every replica of every partition, one per node.
        for p in got["partitions"].as_array().unwrap() {
            assert_eq!(p["replicas"].as_array().unwrap().len(), 3, "{name}: {p}");
        }
        // Each input names its snapshot.
        let inputs = got["inputs"].to_string();
        assert!(snaps.iter().all(|f| inputs.contains(s(f))), "{inputs}");
    }
}

/// `plan --proposed-configs FILE` is `--config` once per line of FILE: the same what-if
/// document, from the dirs or a snapshot; a bad line is refused with its line number.
#[test]
fn proposed_configs_come_from_a_file() {
    let fixture = support::scratch::fixture("basic-delete");
    let work = tempfile::tempdir().unwrap();
    let (_, log_dirs, extra) = stage(&fixture, work.path());
    let snap = work.path().join("b.snap");
    snapshot(&log_dirs, &snap);
    let file = work.path().join("proposed.txt");
    std::fs::write(
        &file,
        "# the PR's proposal\norders:retention.ms=3600000\n\n  sized:retention.bytes=1000  \n",
    )
    .unwrap();
    let mut base = vec!["--format", "json", "plan", NOW];
    base.extend(extra.iter().map(String::as_str));
    base.extend(["--fail-if-deletes-more-than", "8KiB"]);
    let mut flags = base.clone();
    flags.extend([
        "--config",
        "orders:retention.ms=3600000",
        "--config",
        "sized:retention.bytes=1000",
        "--snapshot",
        s(&snap),
    ]);
    let want = run(&flags);
    assert_eq!(want.code, Some(1), "the gate trips: {}", want.err);
    let mut from_file = base.clone();
    from_file.extend(["--proposed-configs", s(&file), "--snapshot", s(&snap)]);
    let got = run(&from_file);
    assert_eq!(got.code, want.code, "{}", got.err);
    assert!(
        comparable("json", &got.out) == comparable("json", &want.out),
        "--proposed-configs differs from its lines as --config"
    );
    let v: Value = serde_json::from_str(&got.out).unwrap();
    assert!(!v["what_if"].is_null(), "{v}");
    let mut on_dirs = base.clone();
    on_dirs.extend(["--proposed-configs", s(&file)]);
    on_dirs.extend(log_dirs.iter().map(String::as_str));
    let dirs = run(&on_dirs);
    assert_eq!(dirs.code, got.code);
    assert!(
        comparable("json", &dirs.out) == comparable("json", &got.out),
        "from the snapshot differs from the dirs"
    );
    std::fs::write(&file, "orders:retention.ms=3600000\norders retention\n").unwrap();
    let bad = run(&from_file);
    assert_eq!(bad.code, Some(3));
    assert!(
        bad.err.contains("line 2: `orders retention`"),
        "{}",
        bad.err
    );
}

/// Log dirs named relative to the working dir: `diagnose` names them canonical on the dirs, and
/// so from a snapshot taken with the same relative names (read elsewhere, where they would not
/// resolve); `plan` names them as given, both ways.
#[test]
fn relative_log_dirs_are_named_as_on_the_dirs() {
    let fixture = support::scratch::fixture("basic-delete");
    let work = tempfile::tempdir().unwrap();
    copy_dir(&fixture, &work.path().join("dirs"));
    let in_work = |args: &[&str]| {
        let mut cmd = support::logclean_capped(support::MEMORY_CAP_BYTES, false);
        cmd.current_dir(work.path()).arg("--no-progress").args(args);
        let o = cmd.output().unwrap();
        (code(&o), String::from_utf8(o.stdout).unwrap())
    };
    let dirs = ["dirs/logs-0", "dirs/logs-1"];
    let (c, _) = in_work(&["snapshot", dirs[0], dirs[1], "-o", "b.snap"]);
    assert_eq!(c, Some(0));
    for cmd in [&["diagnose", DISK][..], &["plan"]] {
        let mut args = vec!["--format", "json"];
        args.extend(cmd);
        args.push(NOW);
        let mut on_dirs = args.clone();
        on_dirs.extend(dirs);
        let want = in_work(&on_dirs);
        let mut from_snap = args.clone();
        from_snap.extend(["--snapshot", "b.snap"]);
        // Elsewhere: the relative names do not resolve there.
        std::fs::rename(work.path().join("dirs"), work.path().join("moved")).unwrap();
        let got = in_work(&from_snap);
        std::fs::rename(work.path().join("moved"), work.path().join("dirs")).unwrap();
        assert_eq!(got.0, want.0, "{cmd:?}");
        assert!(
            comparable("json", &got.1) == comparable("json", &want.1),
            "{cmd:?}: from a snapshot of relative dirs differs from the dirs"
        );
    }
}
