//! Issue 27: why every byte of a log dir is there. On every fixture (a copy, with sparse
//! preallocated index files and leftovers of every kind added), `diagnose --format json`'s
//! `log_dirs[].space` splits the dir's allocated blocks by reason, and the reasons sum to what
//! the filesystem charges for the dir (`du -B1 -s`, directories' own blocks included), never to
//! the apparent length (`du --apparent-size`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;
use support::scratch::{copy_dir_readable, logclean, s};

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn du(dir: &Path, apparent: bool) -> u64 {
    let mut cmd = Command::new("du");
    cmd.args(["-B1", "-s"]);
    if apparent {
        cmd.arg("--apparent-size");
    }
    let out = cmd.arg(dir).output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// Every log dir under `dir` (a dir holding `meta.properties`), at any depth: a multi-broker
/// scenario holds its nodes' dirs one level down (`node-1/logs-0`).
fn log_dirs_under(dir: &Path, out: &mut Vec<PathBuf>) {
    if dir.join("meta.properties").is_file() {
        out.push(dir.to_path_buf());
        return;
    }
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() && !p.is_symlink() {
            log_dirs_under(&p, out);
        }
    }
}

fn space_of(dir: &Path) -> Value {
    let out = logclean(
        &[
            "diagnose",
            "--format",
            "json",
            "--now",
            "2026-12-01T00:00:00Z",
            s(dir),
        ],
        None,
    );
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{dir:?}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    let d = doc["log_dirs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["space"].is_object())
        .unwrap_or_else(|| panic!("{dir:?}: no space in {doc}"));
    d["space"].clone()
}

fn reason(space: &Value, name: &str) -> u64 {
    space["by_reason"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["reason"] == name)
        .map_or(0, |r| r["bytes"].as_u64().unwrap())
}

/// Add what a crashed, full broker leaves: a sparse preallocated index on the active segment,
/// `.deleted` and `.cleaned` files, an orphan index, a `-delete`, a `-stray` and a `-future`
/// dir, a `.tmp` file and an unknown file. False when the dir has no data partition to add them
/// to.
fn add_leftovers(logs: &Path) -> bool {
    let Some(part) = fs::read_dir(logs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .filter(|p| {
            fs::read_dir(p)
                .unwrap()
                .any(|e| e.unwrap().file_name().to_string_lossy().ends_with(".log"))
                && !p.file_name().unwrap().to_string_lossy().starts_with("__")
        })
        .min()
    else {
        // A log dir holding only internal partitions (tiered-metadata-elsewhere's logs-1).
        return false;
    };
    let logs_in = |d: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "log"))
            .collect();
        v.sort();
        v
    };
    let active = logs_in(&part).pop().unwrap();
    // A preallocated 10 MiB index of which only the first page is written (sparse).
    let idx = active.with_extension("index");
    let f = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&idx)
        .unwrap();
    f.set_len(10 * 1024 * 1024).unwrap();
    fs::copy(&active, part.join("00000000000000999999.log.deleted")).unwrap();
    fs::copy(&active, part.join("00000000000000999998.log.cleaned")).unwrap();
    fs::write(part.join("00000000000000777777.timeindex"), vec![1u8; 12]).unwrap();
    fs::write(part.join("leader-epoch-checkpoint.tmp"), b"0\n0\n").unwrap();
    fs::write(logs.join("core.1234"), vec![7u8; 5000]).unwrap();
    let uid = "0123456789abcdef0123456789abcdef";
    for suffix in ["delete", "stray", "future"] {
        let d = logs.join(format!("gone-{}.{uid}-{suffix}", suffix.len()));
        fs::create_dir(&d).unwrap();
        fs::copy(&active, d.join("00000000000000000000.log")).unwrap();
    }
    true
}

#[test]
fn the_reasons_sum_to_the_filesystems_usage_on_every_fixture() {
    let mut checked = 0;
    let root = support::fixtures_root();
    let mut all = Vec::new();
    log_dirs_under(&root, &mut all);
    all.sort();
    let scenarios: std::collections::BTreeSet<_> = (all.iter())
        .map(|d| d.strip_prefix(&root).unwrap().components().next().unwrap())
        .collect();
    for src in &all {
        let tmp = tempfile::tempdir().unwrap();
        let logs = tmp.path().join("logs");
        copy_dir_readable(src, &logs);
        for with_leftovers in [false, true] {
            if with_leftovers && !add_leftovers(&logs) {
                continue;
            }
            let space = space_of(&logs);
            let sum: u64 = space["by_reason"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["bytes"].as_u64().unwrap())
                .sum();
            let du_blocks = du(&logs, false);
            assert_eq!(
                space["allocated_bytes"].as_u64().unwrap(),
                du_blocks,
                "{src:?}"
            );
            assert_eq!(sum, du_blocks, "{src:?} {with_leftovers}: {space}");
            println!(
                "{}{}: reasons sum {sum} B = du -B1 -s {du_blocks} B",
                src.strip_prefix(&root).unwrap().display(),
                if with_leftovers {
                    " (with leftovers)"
                } else {
                    ""
                }
            );
            assert_eq!(space["unwalked"].as_array().unwrap().len(), 0);
            let per_dir: u64 = space["dirs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d["bytes"].as_u64().unwrap())
                .sum();
            assert!(per_dir <= du_blocks);
            if with_leftovers {
                // The sparse index is charged for its blocks, not its 10 MiB.
                assert!(du(&logs, true) > du_blocks + 9 * 1024 * 1024, "{src:?}");
                assert!(reason(&space, "leftover_broker_deletes") > 0, "{space}");
                assert!(reason(&space, "leftover_never_deleted") > 0, "{space}");
                assert!(reason(&space, "future_replica") > 0, "{space}");
                assert!(reason(&space, "unknown") >= 5000, "{space}");
            }
        }
        checked += 1;
    }
    // Every log dir of every scenario, the multi-broker ones' nodes too.
    assert_eq!(checked, all.len());
    assert!(
        checked >= 47 && scenarios.len() >= 36,
        "{checked} log dirs of {} scenarios",
        scenarios.len()
    );
    println!("{checked} log dirs of {} scenarios", scenarios.len());
}

#[test]
fn every_planned_segment_is_attributed_by_its_verdict() {
    // basic-delete at a late instant: every data segment but the active ones is deleted next
    // pass, and no live .log is left unplanned.
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    copy_dir_readable(&support::fixtures_root().join("basic-delete/logs-0"), &logs);
    let out = logclean(
        &[
            "diagnose",
            "--format",
            "json",
            "--now",
            "2027-06-01T00:00:00Z",
            s(&logs),
        ],
        None,
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &doc["log_dirs"][0];
    let space = &d["space"];
    assert_eq!(reason(space, "not_planned"), 0, "{space}");
    assert!(reason(space, "deleted_next_pass") >= d["freed_bytes"].as_u64().unwrap());
    let prom = logclean(
        &[
            "diagnose",
            "--format",
            "prometheus",
            "--now",
            "2027-06-01T00:00:00Z",
            s(&logs),
        ],
        None,
    );
    let text = String::from_utf8(prom.stdout).unwrap();
    assert!(text.contains("logclean_space_bytes{"), "{text}");
    assert!(text.contains("reason=\"deleted_next_pass\""), "{text}");
}
