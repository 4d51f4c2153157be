//! `logclean free` (issue 27) on copies of real broker fixtures, reshaped with the leftovers a
//! broker leaves (a `.deleted` copy of a segment, `-delete`, `-stray` and `-future` copies of
//! partition dirs): the tiers in order and the stop at the target, `-stray`/`-future` only when
//! safe, not reached (exit 1) with what would go further, `--beyond-retention` naming the
//! groups that lose data, the refusals (held `.lock`, assumed configs), a quarantine on another
//! filesystem, and a run killed at every filesystem call finished by `resume` and rolled back
//! by `undo`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;
use support::crash::crash_at_every_step;
use support::scratch::{code, copy_dir, fixture, json, logclean, s, same, text, tree};

use serde_json::Value;

const UID: &str = "0123456789abcdef0123456789abcdef";
/// basic-delete: retention deletes 7 of orders-0's and orders-2's segments and 5 of sized-0's.
const LATER: &str = "2026-11-30T17:00:00Z";
/// consumer-groups, a day after capture: retention deletes nothing in `events`.
const CG_NOW: &str = "2026-12-01T00:00:00Z";
/// Figures for every dir: the filesystem is full.
const FULL: &str = "0,100000000";

/// A copy of a fixture's whole scenario (its log dirs and server.properties), so two log dirs
/// of one broker can be given.
struct Scenario {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Scenario {
    fn new(name: &str) -> Scenario {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join(name);
        copy_dir(&fixture(name), &root);
        Scenario { _tmp: tmp, root }
    }

    fn p(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn props(&self) -> String {
        s(&self.p("server.properties")).to_string()
    }
}

/// basic-delete with leftovers: a `.deleted` copy of orders-0's first segment, a `-delete`
/// copy of orders-2, `-stray` copies of orders-2 (which the metadata assigns to this node) and
/// of a partition orders-7 the metadata does not have, `-future` copies of orders-0 in logs-1
/// (its source complete in logs-0) and of orders-9 (no source).
fn with_leftovers() -> Scenario {
    let sc = Scenario::new("basic-delete");
    let l0 = sc.p("logs-0");
    fs::copy(
        l0.join("orders-0/00000000000000000000.log"),
        l0.join("orders-0/00000000000000000000.log.deleted"),
    )
    .unwrap();
    copy_dir(
        &l0.join("orders-2"),
        &l0.join(format!("orders-2.{UID}-delete")),
    );
    copy_dir(
        &l0.join("orders-2"),
        &l0.join(format!("orders-2.{UID}-stray")),
    );
    copy_dir(
        &l0.join("orders-2"),
        &l0.join(format!("orders-7.{UID}-stray")),
    );
    let l1 = sc.p("logs-1");
    copy_dir(
        &l0.join("orders-0"),
        &l1.join(format!("orders-0.{UID}-future")),
    );
    copy_dir(
        &l0.join("orders-0"),
        &l1.join(format!("orders-9.{UID}-future")),
    );
    sc
}

fn free(sc: &Scenario, target: &str, extra: &[&str]) -> Output {
    let props = sc.props();
    let logs = sc.root.join("logs-0");
    let mut args = vec![
        "--format",
        "json",
        "free",
        s(&logs),
        "--target",
        target,
        "--disk-space",
        FULL,
        "--server-properties",
        props.as_str(),
        "--now",
        LATER,
    ];
    args.extend_from_slice(extra);
    logclean(&args, None)
}

fn taken(doc: &Value) -> Vec<(String, String)> {
    doc["taken"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["tier"].as_str().unwrap().to_string(),
                t["what"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn bytes_of(doc: &Value, key: &str) -> u64 {
    doc[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["bytes"].as_u64().unwrap())
        .sum()
}

#[test]
fn tiers_go_in_order_and_stop_once_the_target_is_reached() {
    let sc = with_leftovers();
    let before = tree(&sc.root);
    // Just past the `.deleted` file: it and the `-delete` dir, nothing else.
    let o = free(&sc, "4097", &["--purge"]);
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    let doc = json(&o);
    assert_eq!(
        taken(&doc),
        [
            (
                "broker_deletes".into(),
                "orders-0/00000000000000000000.log.deleted".into()
            ),
            ("broker_deletes".into(), format!("orders-2.{UID}-delete/")),
        ]
    );
    assert_eq!(doc["reached"], true);
    assert_eq!(doc["filesystems"][0]["release"], "removed");
    // More: the leftovers, then retention, oldest first; orders-2 is cut short.
    let leftovers = bytes_of(&doc, "taken");
    let want = leftovers * 2 + 40_000;
    let o = free(&sc, &want.to_string(), &["--purge"]);
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    let doc = json(&o);
    let t = taken(&doc);
    let tiers: Vec<&str> = t.iter().map(|(tier, _)| tier.as_str()).collect();
    let mut sorted = tiers.clone();
    sorted.sort_by_key(|t| {
        [
            "broker_deletes",
            "stray",
            "future",
            "retention",
            "beyond_retention",
        ]
        .iter()
        .position(|x| x == t)
    });
    assert_eq!(tiers, sorted, "tiers in order");
    assert!(
        tiers.contains(&"stray") && tiers.contains(&"retention"),
        "{t:?}"
    );
    assert!(!tiers.contains(&"future"), "logs-1 was not given: {t:?}");
    let total = bytes_of(&doc, "taken");
    let last = doc["taken"].as_array().unwrap().last().unwrap()["bytes"]
        .as_u64()
        .unwrap();
    assert!(
        total >= want && total - last < want,
        "stops at the target: {total} {want}"
    );
    // The partition cut short gets a log start at its first kept segment (delete's planner).
    let parts = doc["log_dirs"][0]["partitions"].as_array().unwrap();
    let cut: Vec<&Value> = parts
        .iter()
        .filter(|p| p["log_start_offset_after"].is_i64())
        .collect();
    assert!(!cut.is_empty(), "{parts:?}");
    same(&tree(&sc.root), &before, "dry runs");
    // Applied: the log dir holds what the plan kept; the journal is complete.
    let o = free(&sc, &want.to_string(), &["--purge", "--execute"]);
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    let l0 = sc.p("logs-0");
    assert!(!l0.join(format!("orders-2.{UID}-delete")).exists());
    assert!(!l0.join(format!("orders-7.{UID}-stray")).exists());
    assert!(l0.join(format!("orders-2.{UID}-stray")).exists());
    assert!(!l0
        .join("orders-0/00000000000000000000.log.deleted")
        .exists());
    let i = logclean(&["inspect", "--verify", s(&l0)], None);
    assert!(matches!(code(&i), Some(0 | 1)), "{}", text(&i));
}

#[test]
fn stray_and_future_dirs_go_only_when_safe() {
    let sc = with_leftovers();
    let props = sc.props();
    let o = logclean(
        &[
            "--format",
            "json",
            "free",
            s(&sc.p("logs-0")),
            s(&sc.p("logs-1")),
            "--target",
            "100%",
            "--disk-space",
            FULL,
            "--server-properties",
            props.as_str(),
            "--now",
            LATER,
            "--purge",
        ],
        None,
    );
    // 100% of the filesystem cannot be reached: exit 1, and what would go further.
    assert_eq!(code(&o), Some(1), "{}", text(&o));
    let doc = json(&o);
    assert_eq!(doc["reached"], false);
    let t = taken(&doc);
    assert!(
        t.contains(&("stray".into(), format!("orders-7.{UID}-stray/"))),
        "{t:?}"
    );
    assert!(
        t.contains(&("future".into(), format!("orders-0.{UID}-future/"))),
        "{t:?}"
    );
    let not: Vec<(String, String)> = doc["not_taken"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["what"].as_str().unwrap().to_string(),
                t["why"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let why = |what: &str| {
        not.iter()
            .find(|(w, _)| w == what)
            .map(|(_, y)| y.clone())
            .unwrap_or_else(|| panic!("{what} not in {not:?}"))
    };
    assert!(
        why(&format!("orders-2.{UID}-stray/")).contains("to this node 1"),
        "{not:?}"
    );
    assert!(
        why(&format!("orders-9.{UID}-future/")).contains("not in the log dirs given"),
        "{not:?}"
    );
    let further = doc["beyond_retention_could_free"].as_array().unwrap();
    assert!(!further.is_empty(), "{doc}");
}

#[test]
fn beyond_retention_names_every_group_that_loses_data() {
    let sc = Scenario::new("consumer-groups");
    let props = sc.props();
    let logs = sc.root.join("logs-0");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--format",
            "json",
            "free",
            s(&logs),
            "--target",
            "100%",
            "--disk-space",
            FULL,
            "--server-properties",
            props.as_str(),
            "--now",
            CG_NOW,
            "--purge",
        ];
        args.extend_from_slice(extra);
        logclean(&args, None)
    };
    let o = run(&[]);
    assert_eq!(code(&o), Some(1), "{}", text(&o));
    let doc = json(&o);
    assert!(doc["taken"].as_array().unwrap().is_empty(), "{doc}");
    assert_eq!(doc["beyond_retention_could_free"][0]["topic"], "events");
    assert!(doc["groups_losing_data"].as_array().unwrap().is_empty());
    let o = run(&["--beyond-retention", "events"]);
    let doc = json(&o);
    let t = taken(&doc);
    assert!(
        !t.is_empty()
            && t.iter()
                .all(|(tier, w)| tier == "beyond_retention" && w.starts_with("events-")),
        "{t:?}"
    );
    let groups: Vec<&str> = doc["groups_losing_data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            assert!(g["skipped"].as_i64().unwrap() > 0, "{g}");
            g["group"].as_str().unwrap()
        })
        .collect();
    for g in ["g-behind", "g-stale", "g-txn"] {
        assert!(groups.contains(&g), "{g} in {groups:?}");
    }
    // Never the active segment, never at or above the HW: the partitions keep their last one.
    for p in doc["log_dirs"][0]["partitions"].as_array().unwrap() {
        let after = p["log_start_offset_after"].as_i64().unwrap();
        assert!(after > 0, "{p}");
    }
    let o = run(&["--beyond-retention", "no-such-topic"]);
    assert_eq!(code(&o), Some(3), "{}", text(&o));
    // --fail-if-group-loses-data, as `delete`'s: refused (exit 3) with the groups named on
    // stderr, nothing changed, also with --execute; without a loss it does not refuse.
    let before = tree(&logs);
    let o = run(&[
        "--beyond-retention",
        "events",
        "--fail-if-group-loses-data",
        "--execute",
    ]);
    assert_eq!(code(&o), Some(3), "{}", text(&o));
    let doc = json(&o);
    assert_eq!(doc["refused"], true, "{doc}");
    assert_eq!(doc["executed"], false, "{doc}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("refused: --fail-if-group-loses-data: group(s) g-behind, g-stale, g-txn"),
        "{err}"
    );
    same(&tree(&logs), &before, "a refused free changed the tree");
    let o = run(&["--fail-if-group-loses-data"]);
    assert_eq!(code(&o), Some(1), "{}", text(&o));
    assert_eq!(json(&o)["refused"], false);
}

/// The remote index cache (`remote-log-index-cache/`, here the real remote indexes of one of
/// tiered-uploaded's remote segments, named as the broker caches them) goes whole, after what
/// the broker deletes anyway and before retention: the broker fetches its indexes again from
/// remote storage (Kafka's `RemoteIndexCache`). Attributed as `remote_index_cache` before.
#[test]
fn the_remote_index_cache_goes_after_the_leftovers_and_before_retention() {
    let sc = Scenario::new("tiered-uploaded");
    let l0 = sc.p("logs-0");
    let cache = l0.join("remote-log-index-cache");
    fs::create_dir(&cache).unwrap();
    let (off, id) = (12, "cKd0olj4RYaJKyCpIacH7w");
    for ext in ["index", "timeindex"] {
        fs::copy(
            sc.p(&format!("remote-storage/tu-0/{off:020}-{id}.{ext}")),
            cache.join(format!("{off}_{id}.{ext}")),
        )
        .unwrap();
    }
    // No aborted transaction: the cache holds an empty transaction index.
    fs::write(cache.join(format!("{off}_{id}.txnindex")), b"").unwrap();
    let seg = l0.join("tu-0/00000000000000000020");
    fs::copy(seg.with_extension("log"), seg.with_extension("log.deleted")).unwrap();
    let attributed = |sc: &Scenario| -> u64 {
        let o = logclean(
            &[
                "--format",
                "json",
                "diagnose",
                s(&sc.p("logs-0")),
                "--server-properties",
                &sc.props(),
                "--now",
                LATER,
                "--disk-space",
                FULL,
            ],
            None,
        );
        let doc = json(&o);
        (doc["log_dirs"][0]["space"]["by_reason"]
            .as_array()
            .unwrap()
            .iter())
        .find(|r| r["reason"] == "remote_index_cache")
        .map_or(0, |r| r["bytes"].as_u64().unwrap())
    };
    assert!(attributed(&sc) > 0);
    let o = free(&sc, "100%", &["--purge"]);
    let doc = json(&o);
    let t = taken(&doc);
    assert_eq!(t[0].0, "broker_deletes", "{t:?}");
    assert_eq!(
        t[1],
        (
            "remote_index_cache".to_string(),
            "remote-log-index-cache/".to_string()
        )
    );
    assert!(t[2..].iter().all(|(tier, _)| tier == "retention"), "{t:?}");
    let two =
        doc["taken"][0]["bytes"].as_u64().unwrap() + doc["taken"][1]["bytes"].as_u64().unwrap();
    // With --purge the text says removed, never moved to quarantine.
    let o = logclean(
        &[
            "free",
            s(&sc.p("logs-0")),
            "--target",
            &two.to_string(),
            "--disk-space",
            FULL,
            "--server-properties",
            &sc.props(),
            "--now",
            LATER,
            "--purge",
        ],
        None,
    );
    let out = text(&o);
    assert!(
        out.contains("would remove remote-log-index-cache/12_cKd0olj4RYaJKyCpIacH7w.index")
            && out.contains("plan: 0 file(s) written, 0 truncated (0 bytes cut), 4 removed;")
            && !out.contains("quarantine:"),
        "{out}"
    );
    let before = tree(&sc.p("logs-0/tu-0"));
    let o = free(&sc, &two.to_string(), &["--purge", "--execute"]);
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    assert_eq!(taken(&json(&o)).len(), 2);
    assert!(!cache.exists());
    assert!(!seg.with_extension("log.deleted").exists());
    let mut kept = before;
    kept.remove("00000000000000000020.log.deleted");
    same(
        &tree(&sc.p("logs-0/tu-0")),
        &kept,
        "the partition beside the cache",
    );
    assert_eq!(attributed(&sc), 0);
}

#[test]
fn refusals_leave_everything_unchanged() {
    use nix::fcntl::{fcntl, FcntlArg};
    use nix::libc;
    let sc = with_leftovers();
    let before = tree(&sc.root);
    // Assumed configs: no server.properties, and the target needs retention's deletions.
    let o = logclean(
        &[
            "free",
            s(&sc.p("logs-0")),
            "--target",
            "100%",
            "--disk-space",
            FULL,
            "--now",
            LATER,
            "--purge",
            "--execute",
        ],
        None,
    );
    assert_eq!(code(&o), Some(3), "{}", text(&o));
    assert!(
        text(&o).contains("--accept-assumed-configs"),
        "{}",
        text(&o)
    );
    same(&tree(&sc.root), &before, "assumed configs");
    // A quarantine on the log dir's filesystem frees nothing: not reached, says what would.
    let o = free(&sc, "4097", &[]);
    assert_eq!(code(&o), Some(1), "{}", text(&o));
    let doc = json(&o);
    assert!(doc["taken"].as_array().unwrap().is_empty());
    let options: Vec<&str> = (doc["not_taken"].as_array().unwrap().iter())
        .filter_map(|t| t["option"].as_str())
        .collect();
    assert!(options.iter().any(|o| o.contains("--purge")), "{doc}");
    // A held lock.
    let lock = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(sc.p("logs-0/.lock"))
        .unwrap();
    let fl = libc::flock {
        l_type: libc::F_WRLCK as libc::c_short,
        l_whence: libc::SEEK_SET as libc::c_short,
        l_start: 0,
        l_len: 0,
        l_pid: 0,
    };
    let before = tree(&sc.root);
    fcntl(&lock, FcntlArg::F_SETLK(&fl)).unwrap();
    let o = free(&sc, "4097", &["--purge", "--execute"]);
    assert_eq!(code(&o), Some(3), "{}", text(&o));
    assert!(text(&o).contains("a running broker holds"), "{}", text(&o));
    drop(lock);
    same(&tree(&sc.root), &before, "locked");
}

/// A quarantine dir on another filesystem than the copies (`/dev/shm` is a tmpfs here), or
/// `None` when there is none.
fn other_filesystem(than: &Path) -> Option<tempfile::TempDir> {
    use std::os::unix::fs::MetadataExt;
    let shm = Path::new("/dev/shm");
    let dev = |p: &Path| fs::metadata(p).map(|m| m.dev()).ok();
    if dev(shm).is_none() || dev(shm) == dev(than) {
        return None;
    }
    tempfile::tempdir_in(shm).ok()
}

/// basic-delete's logs-0 with a small leftover of each kind the crash test crosses: a
/// `.deleted` copy of orders-0's first segment and a `-delete` dir of three files.
fn small_leftovers() -> Scenario {
    let sc = Scenario::new("basic-delete");
    let l0 = sc.p("logs-0");
    let seg = l0.join("orders-0/00000000000000000000");
    fs::copy(seg.with_extension("log"), seg.with_extension("log.deleted")).unwrap();
    let gone = l0.join(format!("orders-2.{UID}-delete"));
    fs::create_dir(&gone).unwrap();
    for f in [
        "00000000000000000000.log",
        "00000000000000000000.timeindex",
        "partition.metadata",
    ] {
        fs::copy(l0.join("orders-2").join(f), gone.join(f)).unwrap();
    }
    sc
}

/// Kill `free` (quarantine on another filesystem) at every mutating filesystem call; `resume`
/// gives the complete run's tree, `undo` the tree before it, the moved bytes copied back. The
/// target takes the leftovers and orders-0's first retention segment (with its checkpoint
/// rewrites).
#[test]
fn free_killed_at_every_step_resumes_or_undoes_with_a_quarantine_elsewhere() {
    let probe = small_leftovers();
    let Some(_q) = other_filesystem(&probe.root) else {
        println!("skipped: no filesystem other than the temp dir's (/dev/shm)");
        return;
    };
    let leftovers = {
        let o = free(&probe, "1", &["--purge"]);
        let doc = json(&o);
        assert_eq!(doc["taken"].as_array().unwrap().len(), 1, "{doc}");
        let o = free(&probe, "100%", &["--purge"]);
        let doc = json(&o);
        let t = doc["taken"].as_array().unwrap();
        assert_eq!(t[2]["tier"], "retention", "{doc}");
        t[0]["bytes"].as_u64().unwrap() + t[1]["bytes"].as_u64().unwrap() + 1
    };
    let target = leftovers.to_string();
    let args = |sc: &Scenario, q: &Path| -> Vec<String> {
        [
            "free",
            s(&sc.p("logs-0")),
            "--target",
            &target,
            "--disk-space",
            FULL,
            "--server-properties",
            &sc.props(),
            "--now",
            LATER,
            "--quarantine",
            s(q),
            "--execute",
        ]
        .iter()
        .map(|a| a.to_string())
        .collect()
    };
    let make = || {
        let sc = small_leftovers();
        let q = other_filesystem(&sc.root).unwrap();
        (sc, q)
    };
    let c = crash_at_every_step(
        make,
        |(sc, _)| sc.p("logs-0"),
        |(sc, q)| args(sc, q.path()),
        |_, _| {},
        400,
    );
    assert!(!c.done.contains_key(&format!("orders-2.{UID}-delete/")));
    assert!(!c.done.contains_key("orders-0/00000000000000000000.log"));
    assert!(c.killed >= 20, "too few steps were tested: {}", c.killed);
    println!("free killed at each of {} mutating calls", c.killed);
}

/// rf3-jbod (issue 21's real three-node capture): the leftovers a real broker left, not copies
/// made here. Node 2 (two log dirs) has a finished move's `-delete`, a deleted topic's
/// `-delete` and a move captured mid-way whose source replica is complete; node 3 has the
/// `-stray` replica it renamed on restart (the metadata assigns strayed-0 to [1, 2]).
#[test]
fn real_leftovers_of_a_three_node_cluster_go_by_the_rules() {
    let sc = Scenario::new("rf3-jbod");
    let run = |node: &str, extra: &[&str]| {
        let props = sc.p(&format!("{node}/server.properties"));
        let mut args = vec!["--format", "json", "free", "--target", "100%", "--purge"];
        let dirs: Vec<PathBuf> = ["logs-0", "logs-1"]
            .iter()
            .map(|l| sc.p(&format!("{node}/{l}")))
            .filter(|d| d.is_dir())
            .collect();
        let dirs: Vec<String> = dirs.iter().map(|d| s(d).to_string()).collect();
        args.extend(dirs.iter().map(String::as_str));
        args.extend([
            "--disk-space",
            FULL,
            "--server-properties",
            s(&props),
            "--now",
            "2026-12-02T12:00:00Z",
        ]);
        args.extend_from_slice(extra);
        logclean(&args, None)
    };
    let tiers = |doc: &Value| -> Vec<(String, String)> {
        (taken(doc).into_iter())
            .filter(|(tier, _)| tier != "retention")
            .map(|(tier, what)| (tier, what.split('.').next().unwrap().to_string()))
            .collect()
    };

    let two = run("node-2", &[]);
    let doc = json(&two);
    assert_eq!(
        tiers(&doc),
        [
            ("broker_deletes".to_string(), "moved-0".to_string()),
            ("broker_deletes".to_string(), "dropped-0".to_string()),
            ("future".to_string(), "moving-0".to_string()),
        ],
        "{doc}"
    );
    // The live replicas (strayed-0 is assigned here) are never taken whole, and no note says a
    // dir this run takes is skipped.
    let notes: Vec<&str> = (doc["log_dirs"].as_array().unwrap().iter())
        .flat_map(|d| d["plan"]["notes"].as_array().unwrap())
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(
        notes
            .iter()
            .all(|n| !n.contains("-delete: skipped") && !n.contains("-future: skipped")),
        "{notes:?}"
    );

    let three = run("node-3", &[]);
    let doc = json(&three);
    assert_eq!(
        tiers(&doc),
        [
            ("broker_deletes".to_string(), "dropped-0".to_string()),
            ("stray".to_string(), "strayed-0".to_string()),
        ],
        "{doc}"
    );
    assert!(
        text(&three).contains("assigns strayed-0 to nodes [1, 2]"),
        "{}",
        text(&three)
    );

    // Executed: the leftover dirs are gone, every live replica's dir is still there.
    let before = tree(&sc.p("node-3/logs-0"));
    let out = run("node-3", &["--execute", "--accept-assumed-configs"]);
    assert!(matches!(code(&out), Some(0 | 1)), "{}", text(&out));
    let after = tree(&sc.p("node-3/logs-0"));
    assert!(after
        .keys()
        .all(|k| !k.contains("-stray/") && !k.contains("-delete/")));
    for live in ["moved-0/", "moving-0/", "__cluster_metadata-0/"] {
        assert!(after.keys().any(|k| k.starts_with(live)), "{live} gone");
    }
    assert!(before.len() > after.len());
}
