//! Issue 27: a mutating command on a filesystem with 0 bytes free. The log dir is a copy of a
//! real fixture on a small tmpfs of its own, filled until the kernel says ENOSPC. A run that
//! cannot start (its journal does not fit: refused before its first write) fails with exit 3
//! and leaves nothing behind: the
//! log dir unchanged, no journal dir, no pending run that blocks the next one; once space is
//! back the same command runs. `free` with its journal on another filesystem starts at 0 bytes
//! free and really frees (statvfs before and after); a quarantine on another filesystem frees at
//! once and `undo` copies back; `rebuild-index --truncate-invalid-tail --purge` repairs a torn
//! tail on a full disk. Skipped, with the reason printed, where mounting is not allowed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;
use support::scratch::{code, copy_dir_readable, fixture, logclean, s, text, tree};

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A tmpfs mounted for the test, unmounted when dropped.
struct Mounted {
    dir: PathBuf,
    _tmp: tempfile::TempDir,
}

impl Mounted {
    fn new(size: &str) -> Result<Mounted, String> {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("mnt");
        fs::create_dir(&dir).unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&dir)
            .output()
            .map_err(|e| format!("mount: {e}"))?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
        }
        Ok(Mounted { dir, _tmp: tmp })
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.dir).status();
    }
}

fn free_bytes(p: &Path) -> u64 {
    let s = nix::sys::statvfs::statvfs(p).unwrap();
    s.blocks_available() * s.fragment_size()
}

/// Write `path` until the filesystem has no byte left.
fn fill(path: &Path) {
    let mut f = fs::File::create(path).unwrap();
    let chunk = vec![0x5au8; 4096];
    while f.write_all(&chunk).is_ok() {}
    let _ = f.sync_all();
}

#[test]
fn a_run_that_cannot_start_on_a_full_disk_leaves_nothing_behind() {
    let m = match Mounted::new("1m") {
        Ok(m) => m,
        Err(why) => {
            println!("skipped: cannot mount a tmpfs here ({why})");
            return;
        }
    };
    let logs = m.dir.join("logs-0");
    copy_dir_readable(&fixture("idle-active-segment").join("logs-0"), &logs);
    let filler = m.dir.join("filler");
    fill(&filler);
    assert_eq!(free_bytes(&m.dir), 0, "the filesystem is full");
    let before = tree(&logs);
    let part = logs.join("trickle-0");
    let out = logclean(&["roll", s(&part), "--execute"], None);
    assert_eq!(code(&out), Some(3), "{}", text(&out));
    // Sized before the first write: refused with what to change, not half-started.
    assert!(
        text(&out).contains("not enough space to start") && text(&out).contains("--journal DIR"),
        "{}",
        text(&out)
    );
    assert_eq!(tree(&logs), before, "the log dir is unchanged");
    let left: Vec<_> = fs::read_dir(&m.dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 2, "only the log dir and the filler: {left:?}");
    // Space back: the same run is not blocked by anything the failed one left.
    fs::remove_file(&filler).unwrap();
    let out = logclean(&["roll", s(&part), "--execute"], None);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    assert!(part.join("00000000000000000060.log").exists());
}

/// basic-delete's logs-0 on a small tmpfs, with a `.deleted` copy of a segment and a `-delete`
/// copy of a partition (what the broker leaves), then filled to 0 bytes free.
fn full_with_leftovers(m: &Mounted) -> PathBuf {
    let logs = m.dir.join("logs-0");
    copy_dir_readable(&fixture("basic-delete").join("logs-0"), &logs);
    fs::copy(
        logs.join("orders-0/00000000000000000000.log"),
        logs.join("orders-0/00000000000000000000.log.deleted"),
    )
    .unwrap();
    copy_dir_readable(
        &logs.join("orders-2"),
        &logs.join("orders-2.0123456789abcdef0123456789abcdef-delete"),
    );
    fill(&m.dir.join("filler"));
    assert_eq!(free_bytes(&m.dir), 0, "the filesystem is full");
    logs
}

fn entries(dir: &Path) -> Vec<std::ffi::OsString> {
    let mut v: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    v.sort();
    v
}

#[test]
fn free_starts_on_a_full_disk_with_its_journal_elsewhere_and_really_frees() {
    let m = match Mounted::new("2m") {
        Ok(m) => m,
        Err(why) => {
            println!("skipped: cannot mount a tmpfs here ({why})");
            return;
        }
    };
    let logs = full_with_leftovers(&m);
    let props = fixture("basic-delete").join("server.properties");
    let before = tree(&logs);
    let mount_entries = entries(&m.dir);
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--format",
            "json",
            "free",
            s(&logs),
            "--target",
            "100K",
            "--server-properties",
            s(&props),
            "--now",
            "2026-11-30T17:00:00Z",
        ];
        args.extend_from_slice(extra);
        logclean(&args, None)
    };
    // The journal on the full filesystem: refused before any write, nothing left behind.
    let o = run(&["--purge", "--execute"]);
    assert_eq!(code(&o), Some(3), "{}", text(&o));
    assert!(
        text(&o).contains("not enough space to start"),
        "{}",
        text(&o)
    );
    assert!(text(&o).contains("--journal DIR"), "{}", text(&o));
    assert_eq!(tree(&logs), before, "the log dir is unchanged");
    assert_eq!(entries(&m.dir), mount_entries, "nothing beside it");
    // The journal on another filesystem: it starts at 0 bytes free and frees for real.
    let journal = tempfile::tempdir().unwrap();
    let o = run(&["--purge", "--execute", "--journal", s(journal.path())]);
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let fsd = &doc["filesystems"][0];
    assert_eq!(fsd["free_bytes"], 0, "{doc}");
    let after = free_bytes(&m.dir);
    assert!(after >= 100 * 1024, "statvfs after: {after} bytes free");
    assert_eq!(fsd["free_bytes_after"].as_u64(), Some(after), "{doc}");
    println!("free at 0 bytes: statvfs free 0 -> {after} bytes (target 102400)");
    assert!(!logs
        .join("orders-0/00000000000000000000.log.deleted")
        .exists());
    let i = logclean(&["inspect", "--verify", s(&logs)], None);
    assert!(matches!(code(&i), Some(0 | 1)), "{}", text(&i));
}

#[test]
fn free_with_a_quarantine_elsewhere_frees_at_once_and_undo_copies_back() {
    let m = match Mounted::new("2m") {
        Ok(m) => m,
        Err(why) => {
            println!("skipped: cannot mount a tmpfs here ({why})");
            return;
        }
    };
    let logs = full_with_leftovers(&m);
    let props = fixture("basic-delete").join("server.properties");
    let before = tree(&logs);
    let elsewhere = tempfile::tempdir().unwrap();
    let (journal, quarantine) = (elsewhere.path().join("j"), elsewhere.path().join("q"));
    let o = logclean(
        &[
            "free",
            s(&logs),
            "--target",
            "64K",
            "--server-properties",
            s(&props),
            "--now",
            "2026-11-30T17:00:00Z",
            "--journal",
            s(&journal),
            "--quarantine",
            s(&quarantine),
            "--execute",
        ],
        None,
    );
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("space freed at once (the quarantine is on another filesystem)"),
        "{}",
        text(&o)
    );
    let after = free_bytes(&m.dir);
    assert!(after >= 64 * 1024, "statvfs after: {after}");
    println!("free with a quarantine elsewhere: statvfs free 0 -> {after} bytes (target 65536)");
    // Undo copies the moved files back (the filler removed: they need their space again).
    fs::remove_file(m.dir.join("filler")).unwrap();
    let u = logclean(&["undo", s(&logs), "--journal", s(&journal)], None);
    assert_eq!(code(&u), Some(0), "{}", text(&u));
    assert_eq!(tree(&logs), before, "undo gives the original bytes");
}

#[test]
fn truncating_an_invalid_tail_works_at_0_bytes_free() {
    let m = match Mounted::new("2m") {
        Ok(m) => m,
        Err(why) => {
            println!("skipped: cannot mount a tmpfs here ({why})");
            return;
        }
    };
    let logs = m.dir.join("logs-0");
    copy_dir_readable(&fixture("basic-delete").join("logs-0"), &logs);
    let seg = logs.join("orders-0/00000000000000000032.log");
    let mut log = fs::read(&seg).unwrap();
    let good = log.len();
    log.extend_from_slice(&[0xab; 40]);
    fs::write(&seg, log).unwrap();
    fill(&m.dir.join("filler"));
    assert_eq!(free_bytes(&m.dir), 0);
    let elsewhere = tempfile::tempdir().unwrap();
    let journal = elsewhere.path().join("j");
    let part = logs.join("orders-0");
    // --purge writes no tail anywhere; the journal elsewhere: the repair runs on a full disk.
    let o = logclean(
        &[
            "rebuild-index",
            s(&part),
            "--truncate-invalid-tail",
            "--execute",
            "--purge",
            "--journal",
            s(&journal),
        ],
        None,
    );
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    assert_eq!(fs::metadata(&seg).unwrap().len() as usize, good);
    let quarantine_files = walkdir::WalkDir::new(&journal)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tail"))
        .count();
    assert_eq!(quarantine_files, 0, "--purge kept no tail");
}
