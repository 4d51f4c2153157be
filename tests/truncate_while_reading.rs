//! A segment truncated and regrown while logclean reads it (a copy being rsynced, a broker on a
//! file system without POSIX locks: no `.lock` says so): every command, at every depth, ends
//! with an exit code and one complete JSON document, never a signal. Memory-mapped reads
//! (SIGBUS when a mapped file shrinks) are only used with `--mmap`.
//!
//! Runs per command: `LOGCLEAN_TRUNCATE_RUNS` (default 8, to keep `cargo test` short; the
//! figures in the README were taken with 100).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

use std::fs::{self, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

mod support;
use support::scratch::{copy_dir_readable, fixture};

/// Every reading command and depth, as arguments before the log dir.
const COMMANDS: &[&[&str]] = &[
    &["inspect"],
    &["inspect", "--verify"],
    &["inspect", "--records", "--max-records", "0"],
    &["diagnose"],
    &["diagnose", "--deep"],
    &["plan"],
    &["groups"],
    &["transactions"],
];

/// Truncates each of `files` to a pseudo-random shorter length and writes its bytes back, over
/// and over, until told to stop; counts the truncations.
struct Truncator {
    stop: Arc<AtomicBool>,
    cycles: Arc<AtomicU64>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Truncator {
    fn start(files: Vec<PathBuf>) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let cycles = Arc::new(AtomicU64::new(0));
        let originals: Vec<(fs::File, Vec<u8>)> = files
            .iter()
            .map(|p| {
                let bytes = fs::read(p).unwrap();
                (OpenOptions::new().write(true).open(p).unwrap(), bytes)
            })
            .collect();
        let thread = {
            let (stop, cycles) = (stop.clone(), cycles.clone());
            std::thread::spawn(move || {
                let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
                while !stop.load(Ordering::Relaxed) {
                    for (file, bytes) in &originals {
                        seed = seed
                            .wrapping_mul(6_364_136_223_846_793_005)
                            .wrapping_add(1_442_695_040_888_963_407);
                        let len = (seed >> 33) % (bytes.len() as u64);
                        file.set_len(len).unwrap();
                        // Let readers meet the short file for a moment, then regrow it.
                        std::thread::sleep(std::time::Duration::from_micros(200));
                        file.write_all_at(bytes, 0).unwrap();
                        cycles.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        };
        Truncator {
            stop,
            cycles,
            thread: Some(thread),
        }
    }

    fn finish(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
        self.cycles.load(Ordering::Relaxed)
    }
}

impl Drop for Truncator {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn runs() -> usize {
    std::env::var("LOGCLEAN_TRUNCATE_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8)
}

/// How one run ended: `Err` names what went wrong (a signal, a panic, output cut off).
fn run_once(args: &[&str], dir: &Path) -> Result<i32, String> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_logclean"))
        .args(["--format", "json", "--no-progress"])
        .args(args)
        .arg(dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let Some(code) = out.status.code() else {
        return Err(format!(
            "{args:?} ended by a signal: {}; {stderr}",
            out.status
        ));
    };
    if code == 101 {
        return Err(format!("{args:?} panicked: {stderr}"));
    }
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("{args:?}: not one complete JSON document ({e}); {stderr}"))?;
    if doc["summary"]["exit_code"] != code {
        return Err(format!(
            "{args:?}: exit {code}, document says {}",
            doc["summary"]
        ));
    }
    Ok(code)
}

#[test]
fn segments_truncated_while_read_never_kill_a_command() {
    // `big-index`: a 324 KiB segment (large enough that a deep read would map it) beside the
    // metadata log every command replays; both shrink and regrow under the readers.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("logs-0");
    copy_dir_readable(&fixture("big-index").join("logs-0"), &dir);
    let truncated = vec![
        dir.join("wide-0/00000000000000000000.log"),
        dir.join("__cluster_metadata-0/00000000000000000000.log"),
    ];
    let truncator = Truncator::start(truncated);
    let mut failures = Vec::new();
    let mut tally = Vec::new();
    for args in COMMANDS {
        let mut codes = std::collections::BTreeMap::<i32, usize>::new();
        for _ in 0..runs() {
            match run_once(args, &dir) {
                Ok(code) => *codes.entry(code).or_default() += 1,
                Err(e) => failures.push(e),
            }
        }
        tally.push(format!("{args:?}: exit codes {codes:?}"));
    }
    let cycles = truncator.finish();
    eprintln!("{cycles} truncations; {}", tally.join("; "));
    assert!(cycles > 0, "the files were never truncated");
    assert!(
        failures.is_empty(),
        "{} of {} runs failed: {failures:#?}",
        failures.len(),
        runs() * COMMANDS.len()
    );
}
