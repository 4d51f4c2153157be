//! The syscall floor of a shallow scan as logclean does it (issue 13): for every segment of a
//! log dir, open its `.log`, `.index` and `.timeindex` relative to a handle of the partition
//! dir, `fstat` the `.log`, read the first 32 KiB of the `.log` and the first 4 KiB of each
//! index in one positioned read, and close them. Nothing is parsed, nothing is kept. The answer
//! of a shallow `diagnose` needs at least these reads (its figures: benches/README.md), so the
//! time this takes on a dir bounds what `diagnose` can take on it with three files per segment.
//!
//! `cargo bench --bench floor -- DIR [RUNS]` (DIR: a log dir, e.g. one `benches/diagnose-scale
//! --keep` made; RUNS: timed runs after one warm-up, default 5), one thread per core, the
//! partition dirs dealt out in turn. Prints the files, the best and median wall time and the
//! process CPU time (user, system) of the timed runs. RUNS 0: one pass and no warm-up, the
//! listing included, so that the whole process can be timed side by side with a
//! `logclean diagnose` of the same dir (what `benches/linearity --floor` does).

// Benchmark code over a dir it is given: a panic here is a failed benchmark run.
#![allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::expect_used)]

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nix::fcntl::{open, openat, OFlag};
use nix::sys::stat::Mode;

/// A partition dir and the names of its segment files (`true`: a `.log`).
struct Partition {
    dir: PathBuf,
    files: Vec<(PathBuf, bool)>,
}

fn list(root: &Path) -> Vec<Partition> {
    let mut parts = Vec::new();
    for entry in std::fs::read_dir(root).unwrap() {
        let entry = entry.unwrap();
        if !entry.file_type().unwrap().is_dir() {
            continue;
        }
        let mut files = Vec::new();
        for f in std::fs::read_dir(entry.path()).unwrap() {
            let name = PathBuf::from(f.unwrap().file_name());
            let ext = name.extension().and_then(|e| e.to_str()).unwrap_or("");
            let (wanted, is_log) = (matches!(ext, "log" | "index" | "timeindex"), ext == "log");
            if wanted {
                files.push((name, is_log));
            }
        }
        parts.push(Partition {
            dir: entry.path(),
            files,
        });
    }
    parts
}

/// Open, (fstat,) read and close every segment file of `parts`; the bytes read.
fn read_all(parts: &[&Partition]) -> u64 {
    let mut buf = vec![0u8; 32 << 10];
    let mut total = 0u64;
    for p in parts {
        let dir = open(
            &p.dir,
            OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
            Mode::empty(),
        )
        .unwrap();
        for (name, is_log) in &p.files {
            let flags = OFlag::O_RDONLY | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC;
            let file = File::from(openat(&dir, name.as_path(), flags, Mode::empty()).unwrap());
            let want = if *is_log {
                let _ = file.metadata().unwrap().len();
                buf.len()
            } else {
                4096
            };
            total += file.read_at(&mut buf[..want], 0).unwrap() as u64;
        }
    }
    total
}

/// User and system CPU time of this process so far (`/proc/self/stat`, in the kernel's
/// USER_HZ of 100 ticks per second).
fn cpu() -> (Duration, Duration) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    // The fields after the parenthesised command name: state is field 3, utime 14, stime 15.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let ticks = |i: usize| Duration::from_millis(fields[i].parse::<u64>().unwrap() * 10);
    (ticks(11), ticks(12))
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let Some(root) = args.first() else {
        eprintln!("usage: cargo bench --bench floor -- LOG_DIR [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args.get(1).map_or(5, |r| r.parse().unwrap());
    let parts = list(Path::new(root));
    let files: usize = parts.iter().map(|p| p.files.len()).sum();
    let logs: usize = parts.iter().flat_map(|p| &p.files).filter(|f| f.1).count();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let shares: Vec<Vec<&Partition>> = (0..threads)
        .map(|t| parts.iter().skip(t).step_by(threads).collect())
        .collect();
    let run = || -> (Duration, u64) {
        let t = Instant::now();
        let bytes = std::thread::scope(|s| {
            let handles: Vec<_> = shares
                .iter()
                .map(|share| s.spawn(|| read_all(share)))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).sum()
        });
        (t.elapsed(), bytes)
    };
    if runs == 0 {
        let (_, bytes) = run();
        println!(
            "floor over {root}: one pass, {:.1} MB read",
            bytes as f64 / 1e6
        );
        return;
    }
    run(); // warm-up (page cache)
    let (u0, s0) = cpu();
    let mut walls: Vec<Duration> = Vec::new();
    let mut bytes = 0;
    for _ in 0..runs.max(1) {
        let (wall, b) = run();
        walls.push(wall);
        bytes = b;
    }
    let (u1, s1) = cpu();
    walls.sort();
    let n = walls.len() as u32;
    println!(
        "floor over {root}: {} partition dirs, {logs} segments, {files} files, {:.1} MB read per run, {threads} threads",
        parts.len(),
        bytes as f64 / 1e6
    );
    println!(
        "wall best {:.3} s, median {:.3} s ({:.1} us per segment); CPU per run: user {:.3} s, system {:.3} s",
        walls[0].as_secs_f64(),
        walls[walls.len() / 2].as_secs_f64(),
        walls[walls.len() / 2].as_secs_f64() * 1e6 / logs.max(1) as f64,
        ((u1 - u0) / n).as_secs_f64(),
        ((s1 - s0) / n).as_secs_f64(),
    );
}
