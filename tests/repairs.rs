//! Safe offline repairs (issue 9): `rebuild-index`, `roll`, `resume`, `undo` on copies of real
//! broker fixtures. Dry runs leave the tree bit-identical; applied runs give what the broker
//! wrote; a run killed (SIGKILL through `LOGCLEAN_FAILPOINT`) at every step is finished by
//! `resume` and rolled back by `undo`; unsafe dirs are refused with exit 3.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;

use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::process::Output;
use support::scratch::{code, copy_dir, logclean, s, same, text, tree, Copy};

const SEG0: &str = "orders-0/00000000000000000000";
const SEG4: &str = "orders-0/00000000000000000004";
const SEG32: &str = "orders-0/00000000000000000032";

/// basic-delete logs-0 with damage for every step kind: `.index` files removed (create),
/// a `.timeindex` overwritten (rewrite with backup), garbage after the last segment's last batch
/// (truncate).
fn damaged() -> Copy {
    let c = Copy::new("basic-delete", "logs-0");
    fs::remove_file(c.p(&format!("{SEG0}.index"))).unwrap();
    fs::remove_file(c.p(&format!("{SEG32}.index"))).unwrap();
    fs::write(c.p(&format!("{SEG4}.timeindex")), [7u8; 12]).unwrap();
    let mut log = fs::read(c.p(&format!("{SEG32}.log"))).unwrap();
    log.extend_from_slice(&[0xab; 40]);
    fs::write(c.p(&format!("{SEG32}.log")), log).unwrap();
    c
}

fn rebuild_args(c: &Copy) -> Vec<String> {
    vec![
        "rebuild-index".into(),
        s(&c.p("orders-0")).into(),
        "--truncate-invalid-tail".into(),
        "--execute".into(),
    ]
}

fn run_strs(args: &[String], env: Option<(&str, String)>) -> Output {
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    logclean(&refs, env)
}

#[test]
fn dry_runs_leave_the_tree_bit_identical() {
    let c = damaged();
    let parent = c.log_dir.parent().unwrap().to_path_buf();
    let before = tree(&parent);
    let o = logclean(
        &["rebuild-index", s(&c.log_dir), "--truncate-invalid-tail"],
        None,
    );
    assert_eq!(code(&o), Some(2), "{}", text(&o)); // the invalid tail is corrupt data
    let out = text(&o);
    assert!(
        out.contains("would truncate orders-0/00000000000000000032.log"),
        "{out}"
    );
    assert!(
        out.contains("would create orders-0/00000000000000000000.index"),
        "{out}"
    );
    assert!(out.contains("nothing changed (dry run)"), "{out}");
    let o = logclean(&["roll", s(&c.p("orders-2"))], None);
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    assert!(text(&o).contains("would create orders-2/"), "{}", text(&o));
    same(&tree(&parent), &before, "a dry run changed the tree");
}

/// The indexes rebuilt from the `.log` are the ones the broker wrote, on 4.4.0 and on 3.9.1
/// (ZooKeeper and KRaft mode): `LogSegment.recover`'s loop is the same in every release
/// modelled, and 3.9.1's appends index per batch as 4.4's do (KAFKA-806, backported to 3.9.1).
#[test]
fn rebuild_index_gives_the_broker_bytes_and_a_clean_inspect() {
    for (fx, dir) in [
        ("basic-delete", "logs-0"),
        ("transactions", "logs-0"),
        ("compacted", "logs-0"),
        ("unclean-shutdown", "logs-0"),
        ("zk391-future-timestamps", "logs-0"),
        ("kraft391-future-timestamps", "logs-0"),
        ("zk391-idle-active-segment", "logs-0"),
        ("zk391-transactions", "logs-0"),
        ("kraft391-compacted", "logs-0"),
    ] {
        let c = Copy::new(fx, dir);
        let original = tree(&c.log_dir);
        for (rel, _) in original.iter().filter(|(r, _)| {
            (r.ends_with(".index") || r.ends_with(".timeindex")) && !r.starts_with("__cluster")
        }) {
            fs::remove_file(c.log_dir.join(rel)).unwrap();
        }
        // ZooKeeper mode: the topic configs (here index.interval.bytes=0) are in ZooKeeper, not
        // in the dirs; the fixture holds them as kafka-configs.sh --describe --all printed them.
        let configs = support::fixtures_root().join(fx).join("topic-configs.txt");
        let zk = fx.starts_with("zk391-");
        let mut args = vec!["rebuild-index", s(&c.log_dir), "--execute"];
        if zk {
            args.extend(["--config-file", s(&configs)]);
        }
        let o = logclean(&args, None);
        assert_eq!(code(&o), Some(0), "{fx}: {}", text(&o));
        let rebuilt = tree(&c.log_dir);
        for (rel, bytes) in &original {
            let got = rebuilt
                .get(rel)
                .unwrap_or_else(|| panic!("{fx}: {rel} missing"));
            // The broker re-extends the active segment's indexes (zero tail); compare the entries.
            assert!(
                got == bytes
                    || bytes.starts_with(got) && bytes[got.len()..].iter().all(|b| *b == 0),
                "{fx}: {rel} differs from the broker's file"
            );
        }
        let mut args = vec!["rebuild-index", "--verify-only", s(&c.log_dir)];
        if zk {
            args.extend(["--config-file", s(&configs)]);
        }
        let o = logclean(&args, None);
        assert_eq!(code(&o), Some(0), "{fx}: {}", text(&o));
        let o = logclean(
            &["inspect", "--verify", "--fail-on", "error", s(&c.log_dir)],
            None,
        );
        assert_eq!(code(&o), Some(0), "{fx}: {}", text(&o));
    }
}

#[test]
fn verify_only_explains_differences() {
    let c = damaged();
    let o = logclean(
        &["rebuild-index", "--verify-only", s(&c.p("orders-0"))],
        None,
    );
    assert_eq!(code(&o), Some(2), "{}", text(&o));
    let out = text(&o);
    assert!(out.contains("index missing"), "{out}");
    assert!(out.contains("timeindex differs"), "{out}");
    assert!(out.contains("invalid tail at byte"), "{out}");
    let o = logclean(
        &[
            "--format",
            "json",
            "rebuild-index",
            "--verify-only",
            s(&c.p("orders-0")),
        ],
        None,
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["command"], "rebuild-index");
    assert_eq!(v["executed"], false);
    // The steps a rebuild would take: the missing .index and the wrong .timeindex (the segment
    // with the invalid tail is left alone without --truncate-invalid-tail).
    assert_eq!(
        v["log_dirs"][0]["plan"]["steps"].as_array().map(Vec::len),
        Some(2)
    );
}

#[test]
fn roll_closes_the_active_segment_and_inspect_stays_clean() {
    let c = Copy::new("idle-active-segment", "logs-0");
    let before = logclean(&["inspect", "--verify", s(&c.log_dir)], None);
    let o = logclean(
        &["roll", s(&c.p("trickle-0")), s(&c.p("idle-0")), "--execute"],
        None,
    );
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("rolled: segment 0 closed, new segment 60"),
        "{}",
        text(&o)
    );
    for f in [
        "trickle-0/00000000000000000060.log",
        "trickle-0/00000000000000000060.index",
        "trickle-0/00000000000000000060.timeindex",
        "trickle-0/00000000000000000060.snapshot",
        "idle-0/00000000000000000007.log",
    ] {
        assert!(c.p(f).is_file(), "{f} missing");
    }
    assert_eq!(
        fs::metadata(c.p("trickle-0/00000000000000000060.log"))
            .unwrap()
            .len(),
        0
    );
    let after = logclean(&["inspect", "--verify", s(&c.log_dir)], None);
    assert_eq!(code(&after), code(&before), "{}", text(&after));
    // Rolling again: the active segment is empty now.
    let o = logclean(&["roll", s(&c.p("idle-0")), "--execute"], None);
    assert!(
        text(&o).contains("the active segment is empty"),
        "{}",
        text(&o)
    );
}

/// Kill the run at every mutating filesystem call; then `resume` must give the complete run's
/// tree and `undo` the tree before the run.
fn crash_at_every_step(make: fn() -> Copy, args: fn(&Copy) -> Vec<String>) {
    let reference = make();
    let start = tree(&reference.log_dir);
    let o = run_strs(&args(&reference), None);
    assert!(matches!(code(&o), Some(0 | 2)), "{}", text(&o));
    let done = tree(&reference.log_dir);
    assert_ne!(start, done);
    let mut n = 1;
    loop {
        let c = make();
        let o = run_strs(&args(&c), Some(("LOGCLEAN_FAILPOINT", n.to_string())));
        if o.status.signal().is_none() {
            same(&tree(&c.log_dir), &done, &format!("an unkilled run at {n}"));
            break;
        }
        assert_eq!(o.status.signal(), Some(9));
        let u = make();
        run_strs(&args(&u), Some(("LOGCLEAN_FAILPOINT", n.to_string())));
        // resume finishes (or says nothing is pending when the kill came before the journal).
        let r = logclean(&["resume", s(&c.log_dir)], None);
        let t = tree(&c.log_dir);
        if code(&r) == Some(0) {
            same(
                &t,
                &done,
                &format!("resume after a kill at {n}: {}", text(&r)),
            );
        } else {
            assert!(text(&r).contains("no run to resume"), "{}", text(&r));
            same(
                &t,
                &start,
                &format!("kill at {n} before the journal changed the tree"),
            );
        }
        let r = logclean(&["undo", s(&u.log_dir)], None);
        if code(&r) == Some(0) {
            same(
                &tree(&u.log_dir),
                &start,
                &format!("undo after a kill at {n}: {}", text(&r)),
            );
        } else {
            same(
                &tree(&u.log_dir),
                &start,
                &format!("kill at {n}: {}", text(&r)),
            );
        }
        n += 1;
        assert!(n < 500, "the run never finished");
    }
    assert!(n > 10, "too few steps were tested: {n}");
}

#[test]
fn rebuild_index_killed_at_every_step_resumes_or_undoes() {
    crash_at_every_step(damaged, rebuild_args);
}

#[test]
fn roll_killed_at_every_step_resumes_or_undoes() {
    crash_at_every_step(
        || Copy::new("idle-active-segment", "logs-0"),
        |c| {
            vec![
                "roll".into(),
                s(&c.p("trickle-0")).into(),
                "--execute".into(),
            ]
        },
    );
}

#[test]
fn named_failpoints_stop_the_run_and_undo_restores() {
    // (The fsutil points fire first while staging, before the journal exists; the numbered
    // failpoints of the tests above reach them inside every step.)
    for point in [
        "journal::after_begin:0",
        "journal::after_begin:1",
        "journal::before_done:2",
    ] {
        let c = damaged();
        let start = tree(&c.log_dir);
        let o = run_strs(
            &rebuild_args(&c),
            Some(("LOGCLEAN_FAILPOINT", point.into())),
        );
        assert_eq!(o.status.signal(), Some(9), "{point}");
        // A second run refuses while one is pending.
        let again = run_strs(&rebuild_args(&c), None);
        assert_eq!(code(&again), Some(3), "{}", text(&again));
        assert!(text(&again).contains("logclean resume"), "{}", text(&again));
        let u = logclean(&["undo", s(&c.log_dir)], None);
        assert_eq!(code(&u), Some(0), "{point}: {}", text(&u));
        same(&tree(&c.log_dir), &start, point);
    }
}

#[test]
fn a_finished_run_can_be_undone_and_purge_keeps_nothing() {
    let c = damaged();
    let start = tree(&c.log_dir);
    let o = run_strs(&rebuild_args(&c), None);
    // The applied truncation repaired the invalid tail: exit 0 (issue 26).
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    let u = logclean(&["undo", s(&c.log_dir)], None);
    assert_eq!(code(&u), Some(0), "{}", text(&u));
    same(&tree(&c.log_dir), &start, "undo of a finished run");
    let mut args = rebuild_args(&c);
    args.push("--purge".into());
    run_strs(&args, None);
    let u = logclean(&["undo", s(&c.log_dir)], None);
    assert_eq!(code(&u), Some(3), "{}", text(&u));
}

#[test]
fn refuses_dirs_that_are_not_log_dirs() {
    let c = Copy::new("basic-delete", "logs-0");
    fs::remove_file(c.p("meta.properties")).unwrap();
    fs::remove_file(c.p(&format!("{SEG0}.index"))).unwrap();
    let before = tree(&c.log_dir);
    for args in [
        vec!["rebuild-index", s(&c.log_dir), "--execute"],
        vec!["rebuild-index", s(&c.log_dir)],
        vec!["roll", s(&c.p("orders-0")), "--execute"],
    ] {
        let o = logclean(&args, None);
        assert_eq!(code(&o), Some(3), "{}", text(&o));
        assert!(
            text(&o).contains("not a Kafka log directory"),
            "{}",
            text(&o)
        );
    }
    same(&tree(&c.log_dir), &before, "refused runs");
}

#[test]
fn refuses_the_metadata_log_and_symlink_escapes() {
    let c = Copy::new("basic-delete", "logs-0");
    let o = logclean(
        &["roll", s(&c.p("__cluster_metadata-0")), "--execute"],
        None,
    );
    assert_eq!(code(&o), Some(3), "{}", text(&o));
    assert!(text(&o).contains("metadata log"), "{}", text(&o));
    // A partition dir that is a symlink to a dir outside the log dir.
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("orders-9");
    copy_dir(&c.p("orders-0"), &target);
    fs::remove_file(target.join("00000000000000000000.index")).unwrap();
    std::os::unix::fs::symlink(&target, c.p("orders-9")).unwrap();
    let before = tree(outside.path());
    let o = logclean(&["rebuild-index", s(&c.log_dir), "--execute"], None);
    assert_eq!(code(&o), Some(3), "{}", text(&o));
    assert!(text(&o).contains("outside the log dir"), "{}", text(&o));
    same(&tree(outside.path()), &before, "outside the log dir");
}

#[test]
fn refuses_a_locked_log_dir_with_exit_3() {
    use nix::fcntl::{fcntl, FcntlArg};
    use nix::libc;
    let c = Copy::new("basic-delete", "logs-0");
    fs::remove_file(c.p(&format!("{SEG0}.index"))).unwrap();
    let lock = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(c.p(".lock"))
        .unwrap();
    // What the broker's FileChannel.tryLock takes: a POSIX record lock on the whole file.
    let fl = libc::flock {
        l_type: libc::F_WRLCK as libc::c_short,
        l_whence: libc::SEEK_SET as libc::c_short,
        l_start: 0,
        l_len: 0,
        l_pid: 0,
    };
    // Taken after the listing: closing any fd of `.lock` in this process (as reading it does)
    // would release a POSIX lock.
    let before = tree(&c.log_dir);
    fcntl(&lock, FcntlArg::F_SETLK(&fl)).unwrap();
    for args in [
        vec!["rebuild-index", s(&c.log_dir), "--execute"],
        vec!["rebuild-index", s(&c.log_dir)],
        vec!["roll", s(&c.p("orders-0")), "--execute"],
        vec!["resume", s(&c.log_dir)],
        vec!["undo", s(&c.log_dir)],
    ] {
        let o = logclean(&args, None);
        assert_eq!(code(&o), Some(3), "{args:?}: {}", text(&o));
        assert!(text(&o).contains("a running broker holds"), "{}", text(&o));
    }
    // Reading is allowed.
    let o = logclean(&["rebuild-index", "--verify-only", s(&c.log_dir)], None);
    assert_eq!(code(&o), Some(1), "{}", text(&o));
    drop(lock);
    same(&tree(&c.log_dir), &before, "refused runs");
}

#[test]
fn sigint_finishes_the_current_step_and_leaves_a_resumable_journal() {
    let reference = damaged();
    run_strs(&rebuild_args(&reference), None);
    let done = tree(&reference.log_dir);
    let c = damaged();
    let o = run_strs(
        &rebuild_args(&c),
        Some(("LOGCLEAN_FAILPOINT", "sigint:journal::after_begin:1".into())),
    );
    assert_eq!(code(&o), Some(130), "{}", text(&o));
    assert!(text(&o).contains("interrupted after 2 of"), "{}", text(&o));
    let r = logclean(&["resume", s(&c.log_dir)], None);
    assert_eq!(code(&r), Some(0), "{}", text(&r));
    same(&tree(&c.log_dir), &done, "resume after SIGINT");
}

/// A CRC failure in the last batch of orders-0's segment 16 of 9: `--truncate-invalid-tail`
/// truncates that segment at the batch and removes segments 20..32 with their indexes and
/// snapshots, as the broker's recovery (`LogLoader.recoverLog`) does; the dry run says so and
/// changes nothing; undo restores everything.
fn corrupt_middle() -> Copy {
    let c = Copy::new("basic-delete", "logs-0");
    let seg16 = c.p("orders-0/00000000000000000016.log");
    let mut log = fs::read(&seg16).unwrap();
    assert_eq!(log.len(), 532); // 4 batches of 133 bytes
    *log.last_mut().unwrap() ^= 0x55;
    fs::write(&seg16, &log).unwrap();
    c
}

#[test]
fn truncating_a_middle_segment_removes_every_later_segment_as_recovery_does() {
    let c = corrupt_middle();
    let log = fs::read(c.p("orders-0/00000000000000000016.log")).unwrap();
    let start = tree(&c.log_dir);
    let part = c.p("orders-0");

    let o = logclean(&["rebuild-index", s(&part)], None);
    assert_eq!(code(&o), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("stopped: nothing rebuilt"),
        "{}",
        text(&o)
    );
    let o = logclean(
        &["rebuild-index", s(&part), "--truncate-invalid-tail"],
        None,
    );
    assert_eq!(code(&o), Some(2), "{}", text(&o));
    let out = text(&o);
    for want in [
        "would truncate orders-0/00000000000000000016.log from 532 to 399 bytes (drops 133)",
        "remove the 4 later segment(s) 20, 24, 28, 32: 2261 bytes of .log in all, offsets 19..35",
        "would move orders-0/00000000000000000032.log (532 bytes) to quarantine",
        "would move orders-0/00000000000000000020.timeindex",
        "would move orders-0/00000000000000000036.snapshot",
        "would move orders-0/00000000000000000020.snapshot",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
    // Later segments go last first, each .log before its indexes, before the truncation.
    let at = |w: &str| out.find(w).unwrap_or_else(|| panic!("{w}: {out}"));
    assert!(
        at("move orders-0/00000000000000000032.log") < at("move orders-0/00000000000000000028.log")
    );
    assert!(
        at("move orders-0/00000000000000000020.log")
            < at("move orders-0/00000000000000000020.index")
    );
    assert!(at("move orders-0/00000000000000000020.timeindex") < at("truncate orders-0/"));
    assert!(!out.contains("00000000000000000016.snapshot ("), "{out}");
    same(&tree(&c.log_dir), &start, "the dry run changed the tree");

    let o = logclean(
        &[
            "rebuild-index",
            s(&part),
            "--truncate-invalid-tail",
            "--execute",
        ],
        None,
    );
    // Issue 26: the applied truncation repaired the data: no corruption is left (exit 0, not 2).
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    let after = tree(&c.log_dir);
    let logs: Vec<&String> = after
        .keys()
        .filter(|k| k.starts_with("orders-0/") && k.ends_with(".log"))
        .collect();
    assert_eq!(logs.len(), 5, "{logs:?}"); // 0, 4, 8, 12, 16
    assert_eq!(after["orders-0/00000000000000000016.log"], log[..399]);
    for (base, suffix) in [
        (20, ".log"),
        (20, ".index"),
        (32, ".timeindex"),
        (20, ".snapshot"),
        (36, ".snapshot"),
    ] {
        let name = format!("orders-0/{base:020}{suffix}");
        assert!(start.contains_key(&name), "{name} was not there before");
        assert!(!after.contains_key(&name), "{name} still there");
    }
    assert!(after.contains_key("orders-0/00000000000000000016.snapshot"));
    // The truncated segment now verifies as rebuilt; nothing else to do.
    let v = logclean(&["rebuild-index", s(&part), "--verify-only"], None);
    assert_eq!(code(&v), Some(0), "{}", text(&v));
    let u = logclean(&["undo", s(&c.log_dir)], None);
    assert_eq!(code(&u), Some(0), "{}", text(&u));
    same(&tree(&c.log_dir), &start, "undo of the truncation");
}

#[test]
fn truncating_a_middle_segment_killed_at_every_step_resumes_or_undoes() {
    crash_at_every_step(corrupt_middle, rebuild_args);
}
