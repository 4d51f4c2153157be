//! Nothing unreadable is skipped in silence (issue 20): for every command, on copies of real
//! fixture log dirs, an unreadable metadata log (its dir, a segment, a snapshot), partition dir
//! or root checkpoint ends the run with exit 3 and names the path: a `file.unreadable` finding
//! for the read-only commands, a refusal with nothing changed for the mutating ones.
//!
//! We run as root, who reads any file: the runs go through `setpriv` as `nobody` on files made
//! mode 000 (as tests/hostile.rs does), and one case needs no privilege drop at all (a dir where
//! a checkpoint file is expected).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

mod support;
use support::scratch::{copy_dir_readable, fixture, text, tree};

/// One command as the table runs it.
struct Command {
    name: &'static str,
    /// The fixture scenario it runs on (its `logs-0`).
    fixture: &'static str,
    /// A data partition dir of that fixture.
    partition: &'static str,
    /// Arguments after the log dir.
    args: &'static [&'static str],
    /// Whether it changes files (then it runs with `--execute` and must refuse).
    mutating: bool,
}

const COMMANDS: &[Command] = &[
    Command {
        name: "diagnose",
        fixture: "basic-delete",
        partition: "orders-2",
        args: &[],
        mutating: false,
    },
    Command {
        name: "plan",
        fixture: "basic-delete",
        partition: "orders-2",
        args: &["--at", "2100000000000"],
        mutating: false,
    },
    Command {
        name: "groups",
        fixture: "consumer-groups",
        partition: "events-0",
        args: &[],
        mutating: false,
    },
    Command {
        name: "transactions",
        fixture: "transactions",
        partition: "txn-0",
        args: &[],
        mutating: false,
    },
    Command {
        name: "config",
        fixture: "kraft-metadata",
        partition: "kt-alpha-1",
        args: &[],
        mutating: false,
    },
    Command {
        name: "inspect",
        fixture: "kraft-metadata",
        partition: "kt-alpha-1",
        args: &[],
        mutating: false,
    },
    Command {
        name: "delete",
        fixture: "basic-delete",
        partition: "orders-2",
        // The defaults are accepted: only the damage may refuse the run here.
        args: &[
            "--at",
            "2100000000000",
            "--accept-assumed-configs",
            "--execute",
        ],
        mutating: true,
    },
    Command {
        name: "roll",
        fixture: "basic-delete",
        partition: "orders-2",
        args: &["--execute"],
        mutating: true,
    },
    Command {
        name: "rebuild-index",
        fixture: "kraft-metadata",
        partition: "kt-alpha-1",
        args: &["--execute"],
        mutating: true,
    },
];

/// A private copy of a fixture's `logs-0`, readable by `nobody`.
struct Copy {
    _tmp: tempfile::TempDir,
    log_dir: PathBuf,
}

impl Copy {
    fn new(scenario: &str) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755)).unwrap();
        let log_dir = tmp.path().join("logs-0");
        copy_dir_readable(&fixture(scenario).join("logs-0"), &log_dir);
        Copy { _tmp: tmp, log_dir }
    }
}

/// What a case makes unreadable, relative to the log dir.
#[derive(Clone, Copy)]
enum Damage {
    /// Mode 000 on this path (run as `nobody`).
    NoAccess(&'static str),
    /// The command's data partition dir, mode 000.
    PartitionDir,
    /// The metadata log's newest snapshot, mode 000.
    MetadataSnapshot,
    /// A dir in place of this file (unreadable even for root).
    DirInPlace(&'static str),
}

/// The newest snapshot of the copy's metadata log.
fn newest_snapshot(log_dir: &Path) -> String {
    let mut names: Vec<String> = fs::read_dir(log_dir.join("__cluster_metadata-0"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".checkpoint"))
        .collect();
    names.sort();
    format!("__cluster_metadata-0/{}", names.last().unwrap())
}

/// Apply `damage` to the copy for `cmd`: the path made unreadable, and whether the run must drop
/// privileges to see it so.
fn damage(c: &Copy, cmd: &Command, damage: Damage) -> (PathBuf, bool) {
    let no_access = |rel: &str| {
        let p = c.log_dir.join(rel);
        fs::set_permissions(&p, fs::Permissions::from_mode(0o000)).unwrap();
        (p, true)
    };
    match damage {
        Damage::NoAccess(rel) => no_access(rel),
        Damage::PartitionDir => no_access(cmd.partition),
        Damage::MetadataSnapshot => no_access(&newest_snapshot(&c.log_dir)),
        Damage::DirInPlace(rel) => {
            let p = c.log_dir.join(rel);
            fs::remove_file(&p).unwrap();
            fs::create_dir(&p).unwrap();
            (p, false)
        }
    }
}

fn run(cmd: &Command, args: &[&str], log_dir: &Path, unprivileged: bool) -> Output {
    support::logclean_capped(support::MEMORY_CAP_BYTES, unprivileged)
        .args(["--format", "json", "--no-progress", cmd.name])
        .arg(log_dir)
        .args(args)
        .output()
        .unwrap()
}

/// Why the run of `cmd` on a copy damaged by `d` breaks the rule, if it does.
fn violation(cmd: &Command, d: Damage) -> Option<String> {
    let c = Copy::new(cmd.fixture);
    let (path, unprivileged) = damage(&c, cmd, d);
    let before = tree(&c.log_dir);
    let out = run(cmd, cmd.args, &c.log_dir, unprivileged);
    let what = format!("{} with {} unreadable", cmd.name, path.display());
    if out.status.code() != Some(3) {
        return Some(format!(
            "{what}: exit {:?}\n{}",
            out.status.code(),
            text(&out)
        ));
    }
    let named = if cmd.mutating {
        let stderr = String::from_utf8_lossy(&out.stderr);
        stderr.contains(&path.display().to_string()) && stderr.contains("nothing changed")
    } else {
        let doc: Value = match serde_json::from_slice(&out.stdout) {
            Ok(d) => d,
            Err(e) => return Some(format!("{what}: no JSON document ({e})\n{}", text(&out))),
        };
        doc["findings"].as_array().unwrap().iter().any(|f| {
            f["code"] == "file.unreadable"
                && f["class"] == "io"
                && f["location"]["file"]
                    .as_str()
                    .is_some_and(|f| Path::new(f).starts_with(&path))
        })
    };
    if !named {
        return Some(format!("{what}: the path is not named\n{}", text(&out)));
    }
    // Readable again, so that the tree can be compared (root reads it anyway).
    if let Ok(m) = fs::metadata(&path) {
        let mode = if m.is_dir() { 0o755 } else { 0o644 };
        fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
    }
    if tree(&c.log_dir) != before {
        return Some(format!("{what}: the log dir changed"));
    }
    None
}

/// Run every command of the table with `d`, and fail naming every command that breaks the rule.
fn every_command(d: Damage) {
    let needs_setpriv = !matches!(d, Damage::DirInPlace(_));
    if needs_setpriv && support::euid_is_root() && !setpriv_available() {
        eprintln!("note: setpriv not found; root reads everything, case skipped");
        return;
    }
    let failures: Vec<String> = COMMANDS.iter().filter_map(|c| violation(c, d)).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

fn setpriv_available() -> bool {
    std::process::Command::new("setpriv")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn metadata_log_dir_unreadable() {
    every_command(Damage::NoAccess("__cluster_metadata-0"));
}

#[test]
fn metadata_log_segment_unreadable() {
    every_command(Damage::NoAccess(
        "__cluster_metadata-0/00000000000000000000.log",
    ));
}

#[test]
fn metadata_log_snapshot_unreadable() {
    every_command(Damage::MetadataSnapshot);
}

#[test]
fn partition_dir_unreadable() {
    every_command(Damage::PartitionDir);
}

#[test]
fn recovery_point_checkpoint_unreadable() {
    every_command(Damage::NoAccess("recovery-point-offset-checkpoint"));
}

#[test]
fn log_start_offset_checkpoint_unreadable() {
    every_command(Damage::NoAccess("log-start-offset-checkpoint"));
}

#[test]
fn replication_offset_checkpoint_unreadable() {
    every_command(Damage::NoAccess("replication-offset-checkpoint"));
}

#[test]
fn cleaner_offset_checkpoint_unreadable() {
    every_command(Damage::NoAccess("cleaner-offset-checkpoint"));
}

#[test]
fn a_dir_in_place_of_a_checkpoint_is_unreadable_even_for_root() {
    every_command(Damage::DirInPlace("log-start-offset-checkpoint"));
}

/// The control: the same runs on the undamaged copies, as `nobody`, do not exit 3; the exit 3
/// above is the damage's.
#[test]
fn undamaged_copies_do_not_exit_3() {
    let failures: Vec<String> = COMMANDS
        .iter()
        .filter_map(|cmd| {
            let c = Copy::new(cmd.fixture);
            // Dry run: `nobody` may not write the copy.
            let args: Vec<&str> = (cmd.args.iter().copied())
                .filter(|a| *a != "--execute")
                .collect();
            let out = run(cmd, &args, &c.log_dir, true);
            (out.status.code() == Some(3))
                .then(|| format!("{}: exit 3 undamaged\n{}", cmd.name, text(&out)))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
