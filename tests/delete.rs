//! `logclean delete` (issue 9 step 3) on copies of real broker fixtures: the dry run leaves the
//! tree bit-identical and lists exactly the plan's deletions; an applied run leaves a dir that
//! inspects clean, whose plan at the same instant deletes nothing more and whose log starts are
//! the plan's; a run killed (SIGKILL through `LOGCLEAN_FAILPOINT`) at every step is finished by
//! `resume` and rolled back by `undo`; a locked dir and `--fail-if-group-loses-data` refuse with
//! exit 3.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use support::crash::crash_at_every_step;
use support::scratch::{code, json, logclean, s, same, text, tree, Copy};

use serde_json::Value;

/// An instant at which basic-delete's plan deletes 7 of the 10 segments of orders-0 and
/// orders-2 and 5 of sized-0 (retention.bytes).
const LATER: &str = "2026-11-30T17:00:00Z";
/// An instant at which only segment 0 of orders-0 and orders-2 (and sized-0's 5) go.
const EARLY: &str = "2026-11-30T09:00:00Z";
/// Past every segment of consumer-groups' events partitions, active ones included.
const ALL_GONE: &str = "2026-12-30T00:00:00Z";

fn plan_json(dir: &Path, at: &str) -> Value {
    let o = logclean(&["--format", "json", "plan", s(dir), "--at", at], None);
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    json(&o)
}

/// Per partition dir: the plan's (log start after, segments it deletes).
fn planned(dir: &Path, at: &str) -> BTreeMap<String, (i64, Vec<i64>)> {
    let doc = plan_json(dir, at);
    doc["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let deleted = p["segments"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|g| g["verdict"] == "delete")
                .map(|g| g["base_offset"].as_i64().unwrap())
                .collect();
            (
                p["dir"].as_str().unwrap().to_string(),
                (p["log_start_offset_after"].as_i64().unwrap(), deleted),
            )
        })
        .collect()
}

/// Entries of a root offset checkpoint.
fn checkpoint(path: &Path) -> BTreeMap<String, i64> {
    let text = fs::read_to_string(path).unwrap();
    text.lines()
        .skip(2)
        .map(|l| {
            let t: Vec<&str> = l.split(' ').collect();
            (format!("{}-{}", t[0], t[1]), t[2].parse().unwrap())
        })
        .collect()
}

#[test]
fn dry_run_leaves_the_tree_bit_identical_and_lists_exactly_the_plans_deletions() {
    let c = Copy::new("basic-delete", "logs-0");
    let parent = c.log_dir.parent().unwrap().to_path_buf();
    let before = tree(&parent);
    let plan = planned(&c.log_dir, LATER);
    let o = logclean(
        &[
            "--format",
            "json",
            "delete",
            s(&c.log_dir),
            "--server-properties",
            c.props.as_str(),
            "--at",
            LATER,
        ],
        None,
    );
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    same(&tree(&parent), &before, "a dry run changed the tree");
    let doc = json(&o);
    assert_eq!(doc["executed"], false);
    let d = &doc["log_dirs"][0];
    // Exactly the files of the deleted segments and the snapshots below the new log starts.
    let mut expected = BTreeSet::new();
    for (dir, (start, segments)) in &plan {
        for base in segments {
            for suffix in ["index", "timeindex", "txnindex", "log"] {
                let rel = format!("{dir}/{base:020}.{suffix}");
                if c.p(&rel).exists() {
                    expected.insert(rel);
                }
            }
        }
        for e in fs::read_dir(c.p(dir)).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            if let Some(o) = name.strip_suffix(".snapshot") {
                if o.parse::<i64>().unwrap() < *start {
                    expected.insert(format!("{dir}/{name}"));
                }
            }
        }
    }
    assert!(expected.len() > 60, "{expected:?}");
    let mut moved = BTreeSet::new();
    let mut freed = 0i64;
    let mut written = Vec::new();
    for step in d["plan"]["steps"].as_array().unwrap() {
        let path = PathBuf::from(step["path"].as_str().unwrap());
        let rel = path
            .strip_prefix(&c.log_dir)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        match step["action"].as_str().unwrap() {
            "quarantine" => {
                let len = fs::metadata(&path).unwrap().len();
                assert_eq!(step["len"].as_u64(), Some(len), "{rel}");
                freed += i64::try_from(len).unwrap();
                moved.insert(rel);
            }
            "write_file" => {
                freed += step["old_len"].as_i64().unwrap_or(0) - step["new_len"].as_i64().unwrap();
                written.push(rel);
            }
            other => panic!("unexpected step {other}"),
        }
    }
    assert_eq!(moved, expected);
    assert_eq!(
        written,
        [
            "orders-0/leader-epoch-checkpoint",
            "orders-2/leader-epoch-checkpoint",
            "sized-0/leader-epoch-checkpoint",
            "log-start-offset-checkpoint"
        ]
    );
    assert_eq!(d["summary"]["bytes_freed"].as_i64(), Some(freed));
    // Per partition: the plan's log start after and segments.
    for r in d["partitions"].as_array().unwrap() {
        let (start, segments) = &plan[r["partition"].as_str().unwrap()];
        let got: Vec<i64> = r["segments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        assert_eq!(&got, segments);
        if !segments.is_empty() {
            assert_eq!(r["log_start_offset_after"].as_i64(), Some(*start));
        }
    }
    // The table says the same, as a dry run.
    let o = logclean(
        &[
            "delete",
            s(&c.log_dir),
            "--server-properties",
            c.props.as_str(),
            "--at",
            LATER,
        ],
        None,
    );
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    let out = text(&o);
    for line in [
        "would move orders-0/00000000000000000000.log (532 bytes) to quarantine: segment 0 \
         deleted by retention (ends at 4)",
        "would move orders-0/00000000000000000024.snapshot (56 bytes) to quarantine: producer \
         snapshot at 24, below the new log start 28",
        "would rewrite log-start-offset-checkpoint (4 -> 39 bytes): log start offsets advanced",
        "orders-0: deletes 7 segment(s), log start 0 -> 28",
        "sized-0: deletes 5 segment(s), log start 0 -> 15",
        &format!("73 moved to quarantine; {freed} bytes freed"),
        "nothing changed (dry run)",
    ] {
        assert!(out.contains(line), "missing {line:?} in {out}");
    }
    assert!(!out.contains("orders-0/00000000000000000028.log"), "{out}");
    assert!(!out.contains("__cluster_metadata-0/0"), "{out}");
    same(&tree(&parent), &before, "a dry run changed the tree");
}

#[test]
fn execute_leaves_a_clean_dir_with_the_plans_log_starts() {
    let c = Copy::new("basic-delete", "logs-0");
    let plan = planned(&c.log_dir, LATER);
    let recovery_before = checkpoint(&c.p("recovery-point-offset-checkpoint"));
    let o = logclean(
        &[
            "delete",
            s(&c.log_dir),
            "--server-properties",
            c.props.as_str(),
            "--at",
            LATER,
            "--execute",
        ],
        None,
    );
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    assert!(text(&o).contains("journal: "), "{}", text(&o));
    let o = logclean(&["inspect", s(&c.log_dir)], None);
    assert_eq!(code(&o), Some(0), "inspect after delete: {}", text(&o));
    let o = logclean(&["inspect", "--verify", s(&c.log_dir)], None);
    assert_eq!(
        code(&o),
        Some(0),
        "inspect --verify after delete: {}",
        text(&o)
    );
    // The plan at the same instant deletes nothing more and starts where the first one said.
    let again = planned(&c.log_dir, LATER);
    let starts = checkpoint(&c.p("log-start-offset-checkpoint"));
    for (dir, (start, segments)) in &plan {
        let (now_start, now_deleted) = &again[dir];
        assert!(now_deleted.is_empty(), "{dir}: {now_deleted:?}");
        assert_eq!(now_start, start, "{dir}");
        if !segments.is_empty() {
            assert_eq!(starts.get(dir), Some(start), "{dir}: {starts:?}");
            assert!(!c.p(&format!("{dir}/{:020}.log", segments[0])).exists());
        }
    }
    assert_eq!(starts.len(), 3, "{starts:?}");
    // The leader epoch in force at the new log start now starts there (truncateFromStart).
    assert_eq!(
        fs::read_to_string(c.p("orders-0/leader-epoch-checkpoint")).unwrap(),
        "0\n1\n0 28\n"
    );
    // Recovery points stay at or above the log start (here they were already).
    let recovery = checkpoint(&c.p("recovery-point-offset-checkpoint"));
    assert_eq!(recovery, recovery_before);
    for (tp, start) in &starts {
        assert!(recovery[tp] >= *start, "{tp}");
    }
    let o = logclean(
        &[
            "delete",
            s(&c.log_dir),
            "--server-properties",
            c.props.as_str(),
            "--at",
            LATER,
        ],
        None,
    );
    assert!(
        text(&o).contains("0 moved to quarantine; 0 bytes freed"),
        "{}",
        text(&o)
    );
}

#[test]
fn recovery_points_below_the_new_log_start_are_raised() {
    let c = Copy::new("basic-delete", "logs-0");
    let rp = c.p("recovery-point-offset-checkpoint");
    let mut entries = checkpoint(&rp);
    entries.insert("orders-0".into(), 2);
    let body: String = entries
        .iter()
        .map(|(tp, o)| {
            let (t, p) = tp.rsplit_once('-').unwrap();
            format!("{t} {p} {o}\n")
        })
        .collect();
    fs::write(&rp, format!("0\n{}\n{body}", entries.len())).unwrap();
    let o = logclean(
        &[
            "delete",
            s(&c.log_dir),
            "--server-properties",
            c.props.as_str(),
            "--at",
            LATER,
            "--execute",
        ],
        None,
    );
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("rewrote recovery-point-offset-checkpoint"),
        "{}",
        text(&o)
    );
    let after = checkpoint(&rp);
    assert_eq!(after["orders-0"], 28);
    assert_eq!(after["orders-2"], entries["orders-2"]);
}

#[test]
fn the_active_segment_goes_after_a_roll_and_groups_that_lose_data_are_named() {
    let c = Copy::new("consumer-groups", "logs-0");
    let before = tree(&c.log_dir);
    let losers = ["g-behind", "g-stale", "g-txn"];
    // Refused: nothing changes, the groups are named, exit 3.
    let o = logclean(
        &[
            "delete",
            s(&c.log_dir),
            "--server-properties",
            c.props.as_str(),
            "--at",
            ALL_GONE,
            "--execute",
            "--fail-if-group-loses-data",
        ],
        None,
    );
    assert_eq!(code(&o), Some(3), "{}", text(&o));
    let out = text(&o);
    assert!(out.contains("refused: --fail-if-group-loses-data"), "{out}");
    for g in losers {
        assert!(out.contains(g), "{g} in {out}");
    }
    assert!(out.contains("group g-behind loses data on events-0: committed 1, log start 30"));
    assert!(!out.contains("g-current loses"), "{out}");
    same(&tree(&c.log_dir), &before, "a refused run changed the tree");
    // Without the gate: the groups are named in the dry run and the applied run.
    let o = logclean(
        &[
            "--format",
            "json",
            "delete",
            s(&c.log_dir),
            "--server-properties",
            c.props.as_str(),
            "--at",
            ALL_GONE,
        ],
        None,
    );
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    let named: BTreeSet<String> = json(&o)["groups_losing_data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["group"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(named, losers.iter().map(|g| g.to_string()).collect());
    let o = logclean(
        &[
            "delete",
            s(&c.log_dir),
            "--server-properties",
            c.props.as_str(),
            "--at",
            ALL_GONE,
            "--execute",
        ],
        None,
    );
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    let out = text(&o);
    assert!(
        out.contains("rolled first (a new empty segment at 30)"),
        "{out}"
    );
    assert!(out.contains("group g-txn loses data on events-1"), "{out}");
    for p in ["events-0", "events-1"] {
        assert!(c.p(&format!("{p}/00000000000000000030.log")).exists());
        assert!(!c.p(&format!("{p}/00000000000000000028.log")).exists());
    }
    let starts = checkpoint(&c.p("log-start-offset-checkpoint"));
    assert_eq!(starts.get("events-0"), Some(&30));
    assert_eq!(starts.get("events-1"), Some(&30));
    let o = logclean(&["inspect", "--verify", s(&c.log_dir)], None);
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    // undo restores the tree.
    let o = logclean(&["undo", s(&c.log_dir)], None);
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    same(&tree(&c.log_dir), &before, "undo after delete");
}

/// A `__consumer_offsets` partition the group replay cannot read hides the losses of its groups:
/// `delete` refuses (exit 3, the file named) instead of planning without them. Here a segment
/// past 2 GiB (sparse), which a buffered read refuses as too large.
#[test]
fn an_unreadable_consumer_offsets_partition_refuses_delete() {
    let c = Copy::new("consumer-groups", "logs-0");
    let path = c.p("__consumer_offsets-0/00000000000000000000.log");
    let mut bytes = fs::read(&path).unwrap();
    bytes.push(0x01);
    fs::write(&path, &bytes).unwrap();
    let f = fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len((1u64 << 31) + 4096).unwrap();
    drop(f);
    let o = logclean(
        &[
            "delete",
            s(&c.log_dir),
            "--server-properties",
            c.props.as_str(),
            "--at",
            ALL_GONE,
        ],
        None,
    );
    assert_eq!(code(&o), Some(3), "{}", text(&o));
    let out = text(&o);
    assert!(out.contains("cannot read"), "{out}");
    assert!(
        out.contains("__consumer_offsets-0/00000000000000000000.log"),
        "{out}"
    );
}

/// Kill the run at every mutating filesystem call ([`crash_at_every_step`]); a dir killed at
/// any point loads: inspect finds at most the temp file of an interrupted atomic write and
/// indexes left without their .log (the broker's load removes both).
fn crash_delete_at_every_step(make: fn() -> Copy, args: fn(&Copy) -> Vec<String>) {
    let inspects_clean = |n: usize, dir: &Path| {
        let i = logclean(&["--format", "json", "inspect", s(dir)], None);
        assert!(matches!(code(&i), Some(0 | 1)), "kill at {n}: {}", text(&i));
        for f in json(&i)["findings"].as_array().unwrap() {
            let fc = f["code"].as_str().unwrap();
            assert!(
                [
                    "dir.leftover_tmp",
                    "partition.leftover_tmp",
                    "segment.orphan_index"
                ]
                .contains(&fc),
                "kill at {n}: {f}"
            );
        }
    };
    let c = crash_at_every_step(make, |c| c.log_dir.clone(), args, inspects_clean, 800);
    assert!(c.killed >= 10, "too few steps were tested: {}", c.killed);
}

#[test]
fn delete_killed_at_every_step_resumes_or_undoes() {
    crash_delete_at_every_step(
        || Copy::new("basic-delete", "logs-0"),
        |c| {
            vec![
                "delete".into(),
                s(&c.log_dir).into(),
                "--server-properties".into(),
                c.props.clone(),
                "--at".into(),
                EARLY.into(),
                "--execute".into(),
            ]
        },
    );
}

#[test]
fn a_killed_run_mid_way_still_inspects_clean() {
    // Killed after some segment files went, before the checkpoint: the broker would load it
    // (its log start is the first segment's base); inspect sees no corruption.
    let seg0 = "orders-0/00000000000000000000.log";
    let mut n = 1;
    let c = loop {
        let c = Copy::new("basic-delete", "logs-0");
        let o = logclean(
            &[
                "delete",
                s(&c.log_dir),
                "--server-properties",
                c.props.as_str(),
                "--at",
                EARLY,
                "--execute",
            ],
            Some(("LOGCLEAN_FAILPOINT", n.to_string())),
        );
        assert_eq!(o.status.signal(), Some(9), "{}", text(&o));
        if !c.p(seg0).exists() {
            break c;
        }
        n += 1;
        assert!(n < 400, "the segment never went");
    };
    assert_eq!(
        checkpoint(&c.p("log-start-offset-checkpoint")).get("orders-0"),
        None
    );
    let o = logclean(&["inspect", "--verify", s(&c.log_dir)], None);
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    let o = logclean(&["resume", s(&c.log_dir)], None);
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    let starts = checkpoint(&c.p("log-start-offset-checkpoint"));
    assert_eq!(starts.get("orders-0"), Some(&4));
    assert_eq!(starts.get("sized-0"), Some(&15));
}

#[test]
fn refuses_a_locked_log_dir_with_exit_3() {
    use nix::fcntl::{fcntl, FcntlArg};
    use nix::libc;
    let c = Copy::new("basic-delete", "logs-0");
    let lock = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(c.p(".lock"))
        .unwrap();
    let fl = libc::flock {
        l_type: libc::F_WRLCK as libc::c_short,
        l_whence: libc::SEEK_SET as libc::c_short,
        l_start: 0,
        l_len: 0,
        l_pid: 0,
    };
    let before = tree(&c.log_dir);
    fcntl(&lock, FcntlArg::F_SETLK(&fl)).unwrap();
    for args in [
        vec![
            "delete",
            s(&c.log_dir),
            "--server-properties",
            c.props.as_str(),
            "--at",
            LATER,
            "--execute",
        ],
        vec![
            "delete",
            s(&c.log_dir),
            "--server-properties",
            c.props.as_str(),
            "--at",
            LATER,
        ],
    ] {
        let o = logclean(&args, None);
        assert_eq!(code(&o), Some(3), "{args:?}: {}", text(&o));
        assert!(text(&o).contains("a running broker holds"), "{}", text(&o));
    }
    drop(lock);
    same(&tree(&c.log_dir), &before, "refused runs");
}

#[test]
fn a_log_the_cleaner_takes_first_is_refused_and_left_alone() {
    let c = Copy::new("compacted", "logs-0");
    let part = c.p("compact-delete-0");
    let before = tree(&part);
    let o = logclean(
        &[
            "delete",
            s(&c.log_dir),
            "--server-properties",
            c.props.as_str(),
            "--at",
            "2027-06-01T00:00:00Z",
            "--execute",
        ],
        None,
    );
    // A refused partition is a finding: exit 1.
    assert_eq!(code(&o), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("compact-delete-0: refused: the cleaner takes this log before"),
        "{}",
        text(&o)
    );
    same(&tree(&part), &before, "a refused partition changed");
}

/// `doc` without what differs between two runs of the same plan on two copies: the wall clock,
/// the journal's run id (its path and its quarantine's), the copies' mtimes and location
/// (`root`).
fn comparable(doc: &Value, root: &Path) -> Value {
    fn strip(v: &mut Value, root: &str) {
        match v {
            Value::Object(m) => {
                m.remove("generated_at_ms");
                m.remove("journal");
                m.remove("mtime_ns");
                m.remove("quarantine");
                m.values_mut().for_each(|x| strip(x, root));
            }
            Value::Array(a) => a.iter_mut().for_each(|x| strip(x, root)),
            Value::String(s) => *s = s.replace(root, "<copy>"),
            _ => {}
        }
    }
    let mut doc = doc.clone();
    strip(&mut doc, s(root));
    doc
}

/// The journal of the one run under the copy: every record, [`comparable`].
fn journal_lines(c: &Copy) -> Vec<Value> {
    let root = c.log_dir.parent().unwrap();
    let runs: Vec<PathBuf> = fs::read_dir(root.join(".logclean-journal/logs-0"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    fs::read_to_string(runs[0].join("journal.jsonl"))
        .unwrap()
        .lines()
        .map(|l| comparable(&serde_json::from_str(l).unwrap(), root))
        .collect()
}

#[test]
fn jobs_change_neither_the_plan_nor_the_journal_nor_the_result() {
    for (fixture, at) in [("basic-delete", LATER), ("consumer-groups", ALL_GONE)] {
        let c = Copy::new(fixture, "logs-0");
        let root = c.log_dir.parent().unwrap();
        let dry = |jobs: &str, format: &str| {
            let o = logclean(
                &[
                    "--format",
                    format,
                    "delete",
                    s(&c.log_dir),
                    "--server-properties",
                    c.props.as_str(),
                    "--at",
                    at,
                    "--jobs",
                    jobs,
                ],
                None,
            );
            assert_eq!(code(&o), Some(0), "{}", text(&o));
            o
        };
        let one = json(&dry("1", "json"));
        assert!(
            one["log_dirs"][0]["plan"]["steps"]
                .as_array()
                .unwrap()
                .len()
                > 20,
            "{fixture}: {one}"
        );
        for jobs in ["2", "4"] {
            assert_eq!(
                comparable(&json(&dry(jobs, "json")), root),
                comparable(&one, root),
                "{fixture}: --jobs {jobs}"
            );
            assert_eq!(
                dry(jobs, "table").stdout,
                dry("1", "table").stdout,
                "{fixture}"
            );
        }
        // Applied with one thread and with four: same output, same journal, same tree.
        let applied = |jobs: &str| {
            let c = Copy::new(fixture, "logs-0");
            let o = logclean(
                &[
                    "--format",
                    "json",
                    "delete",
                    s(&c.log_dir),
                    "--server-properties",
                    c.props.as_str(),
                    "--at",
                    at,
                    "--execute",
                    "--jobs",
                    jobs,
                ],
                None,
            );
            assert_eq!(code(&o), Some(0), "{}", text(&o));
            let doc = comparable(&json(&o), c.log_dir.parent().unwrap());
            (doc, journal_lines(&c), tree(&c.log_dir))
        };
        let (doc1, journal1, tree1) = applied("1");
        let (doc4, journal4, tree4) = applied("4");
        assert_eq!(doc1, doc4, "{fixture}");
        same(&tree1, &tree4, fixture);
        // One thread takes the steps in plan order; four interleave the partitions' steps, but
        // the plan is the same, every step is begun then done once, and each partition dir's
        // steps (and the root checkpoints, after all of them) keep their order.
        assert_eq!(journal1[0], journal4[0], "{fixture}: the plan record");
        let steps = journal1[0]["plan"]["steps"].as_array().unwrap();
        assert!(steps.len() > 20, "{fixture}");
        let serial: Vec<Value> = (0..steps.len())
            .flat_map(|i| {
                [
                    serde_json::json!({"record": "begin", "step": i}),
                    serde_json::json!({"record": "done", "step": i}),
                ]
            })
            .chain([serde_json::json!({"record": "complete"})])
            .collect();
        assert_eq!(
            journal1[1..],
            serial[..],
            "{fixture}: --jobs 1 takes the steps in order"
        );
        let dir_of = |i: usize| {
            let p = Path::new(steps[i]["path"].as_str().unwrap());
            p.parent().unwrap().to_path_buf()
        };
        let root = Path::new("<copy>/logs-0");
        let mut sorted = journal4[1..].to_vec();
        sorted.sort_by_key(|r| (r["step"].as_u64(), r["record"].as_str().map(String::from)));
        let mut expected = serial.clone();
        expected.sort_by_key(|r| (r["step"].as_u64(), r["record"].as_str().map(String::from)));
        assert_eq!(sorted, expected, "{fixture}: each step begun and done once");
        let mut last_in_dir: BTreeMap<PathBuf, (usize, usize)> = BTreeMap::new();
        let mut root_seen = 0;
        for (at, r) in journal4[1..].iter().enumerate() {
            let Some(i) = r["step"].as_u64().map(|i| i as usize) else {
                continue;
            };
            if r["record"] == "done" {
                continue;
            }
            let dir = dir_of(i);
            if dir == root {
                // A root checkpoint: every earlier step is done before it begins.
                let done = journal4[1..at + 1]
                    .iter()
                    .filter(|x| x["record"] == "done")
                    .count();
                assert_eq!(
                    done, i,
                    "{fixture}: step {i} began before the steps before it"
                );
                root_seen += 1;
            }
            if let Some((prev, _)) = last_in_dir.get(&dir) {
                assert!(*prev < i, "{fixture}: {} out of order", dir.display());
            }
            last_in_dir.insert(dir, (i, at));
        }
        assert!(root_seen >= 1, "{fixture}: no checkpoint step");
    }
}

/// Total bytes of the regular files under `dir`.
fn bytes_under(dir: &Path) -> i64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| i64::try_from(e.metadata().unwrap().len()).unwrap())
        .sum()
}

#[test]
fn a_dry_run_that_rolls_first_reports_the_figures_the_applied_run_has() {
    // The active segments' indexes preallocated, as a broker that is not stopped cleanly leaves
    // them: the roll before the deletion trims them, so the dry run must plan to move the
    // trimmed files and count their bytes once.
    let c = Copy::new("consumer-groups", "logs-0");
    let mut padded = Vec::new();
    for p in ["events-0", "events-1"] {
        for suffix in ["index", "timeindex"] {
            let f = c.p(&format!("{p}/00000000000000000028.{suffix}"));
            let file = fs::OpenOptions::new().write(true).open(&f).unwrap();
            file.set_len(10 * 1024 * 1024).unwrap();
            padded.push(f);
        }
    }
    let args = [
        "--format",
        "json",
        "delete",
        s(&c.log_dir),
        "--server-properties",
        c.props.as_str(),
        "--at",
        ALL_GONE,
    ];
    let o = logclean(&args, None);
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    let dry = json(&o);
    let before = bytes_under(&c.log_dir);
    let o = logclean(&[&args[..], &["--execute"]].concat(), None);
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    let done = json(&o);
    let (d, e) = (&dry["log_dirs"][0], &done["log_dirs"][0]);
    assert_eq!(d["plan"]["steps"], e["plan"]["steps"]);
    assert_eq!(d["summary"], e["summary"]);
    // The figures are what happened: the bytes freed are the log dir's bytes that went, and
    // every moved file is in quarantine with the length the plan gave.
    let freed = d["summary"]["bytes_freed"].as_i64().unwrap();
    assert_eq!(before - bytes_under(&c.log_dir), freed);
    assert!(
        freed > 4 * 10 * 1024 * 1024,
        "freed {freed}: the padded indexes go"
    );
    let journal = PathBuf::from(e["journal"].as_str().unwrap());
    let quarantine = journal.parent().unwrap().join("quarantine");
    let mut trimmed = 0;
    for (i, step) in e["plan"]["steps"].as_array().unwrap().iter().enumerate() {
        if step["action"] != "quarantine" {
            continue;
        }
        let path = PathBuf::from(step["path"].as_str().unwrap());
        let moved = quarantine.join(format!(
            "{i:04}-{}-{}",
            path.parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy(),
            path.file_name().unwrap().to_string_lossy()
        ));
        let len = fs::metadata(&moved)
            .unwrap_or_else(|e| panic!("{}: {e}", moved.display()))
            .len();
        assert_eq!(step["len"].as_u64(), Some(len), "{}", path.display());
        if padded.contains(&path) {
            assert!(len < 1024, "{}: {len} bytes", path.display());
            trimmed += 1;
        }
    }
    assert_eq!(trimmed, padded.len());
    // The table's summary line says the same before and after.
    let c2 = Copy::new("consumer-groups", "logs-0");
    for f in &padded {
        let f = c2.p(f.strip_prefix(&c.log_dir).unwrap().to_str().unwrap());
        fs::OpenOptions::new()
            .write(true)
            .open(&f)
            .unwrap()
            .set_len(10 * 1024 * 1024)
            .unwrap();
    }
    let table = |extra: &[&str]| {
        let o = logclean(
            &[
                &[
                    "delete",
                    s(&c2.log_dir),
                    "--server-properties",
                    c2.props.as_str(),
                    "--at",
                    ALL_GONE,
                ][..],
                extra,
            ]
            .concat(),
            None,
        );
        assert_eq!(code(&o), Some(0), "{}", text(&o));
        let out = String::from_utf8(o.stdout).unwrap();
        out.lines()
            .find(|l| l.contains("bytes freed"))
            .unwrap()
            .split_once(": ")
            .unwrap()
            .1
            .to_string()
    };
    let planned = table(&[]);
    assert!(
        planned.contains(&format!("{freed} bytes freed")),
        "{planned}"
    );
    assert_eq!(table(&["--execute"]), planned);
}
