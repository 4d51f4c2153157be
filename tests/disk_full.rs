//! Issue 27: a mutating command on a filesystem with 0 bytes free. The log dir is a copy of a
//! real fixture on a small tmpfs of its own, filled until the kernel says ENOSPC. A run that
//! cannot start (its journal cannot be written) fails with exit 3 and leaves nothing behind: the
//! log dir unchanged, no journal dir, no pending run that blocks the next one; once space is
//! back the same command runs. Skipped, with the reason printed, where mounting is not allowed.

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
    assert!(
        text(&out).contains("No space left on device"),
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
