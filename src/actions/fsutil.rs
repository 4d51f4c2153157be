//! The one durable-write helper and the filesystem seam every action goes through (STYLE.md
//! G13, G14).
//!
//! Recipe for replacing a file (spec §1.5, as Kafka's `CheckpointFile` does): write a temp file
//! in the **same directory**, `sync_all` it, copy the old file's permission bits, rename it over
//! the target, then fsync the directory (`File::open(dir)?.sync_all()`; opened read-only).
//! Truncation is `set_len` followed by `sync_all` on that handle. Removal and renames fsync the
//! directories they change. Each recipe is written once over the system calls it makes (the
//! private `Calls` seam), so a test can record them and check the order.
//!
//! # Failpoints
//!
//! `LOGCLEAN_FAILPOINT=<N>` kills the process with SIGKILL just before its N-th mutating
//! filesystem call (1-based, counted over the whole run); `LOGCLEAN_FAILPOINT=<name>` kills it
//! when the named point is reached (names: `fsutil::after_temp_sync`,
//! `fsutil::after_rename_before_dirsync`, `journal::after_begin:<step>`,
//! `journal::before_done:<step>`). The crash tests use them to stop a run at every step.
//! `LOGCLEAN_FAILPOINT=sigint:<name>` sends SIGINT instead (the interrupt test).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Name of the failpoint environment variable.
pub const FAILPOINT_ENV: &str = "LOGCLEAN_FAILPOINT";

static MUTATIONS: AtomicU64 = AtomicU64::new(0);

/// How many mutating filesystem calls this process has made (for tests and reports).
pub fn mutation_count() -> u64 {
    MUTATIONS.load(Ordering::SeqCst)
}

/// Kill the process (SIGKILL, as a crash would) if `LOGCLEAN_FAILPOINT` names `name`; send it
/// SIGINT (as a user's Ctrl-C would) if it says `sigint:<name>`.
pub fn failpoint(name: &str) {
    if let Ok(v) = std::env::var(FAILPOINT_ENV) {
        if v == name {
            kill_self();
        }
        if v.strip_prefix("sigint:") == Some(name) {
            let _ = nix::sys::signal::raise(nix::sys::signal::Signal::SIGINT);
        }
    }
}

/// Count one mutating call; kill the process first if `LOGCLEAN_FAILPOINT` is its number.
fn count_mutation() {
    let n = MUTATIONS.fetch_add(1, Ordering::SeqCst).saturating_add(1);
    if let Ok(v) = std::env::var(FAILPOINT_ENV) {
        if v.parse::<u64>().is_ok_and(|k| k == n) {
            kill_self();
        }
    }
}

fn kill_self() {
    let _ = io::stderr().flush();
    let _ = nix::sys::signal::raise(nix::sys::signal::Signal::SIGKILL);
    // SIGKILL cannot be caught; should raise fail, end as abruptly anyway.
    std::process::abort();
}

/// The filesystem operations actions may perform. [`RealFs`] is the only production
/// implementation; tests wrap it to fail the N-th call.
pub trait Fs: Sync {
    /// Replace (or create) `path` with `bytes`, durably and atomically.
    fn write_atomic(&self, path: &Path, bytes: &[u8]) -> io::Result<()>;
    /// Cut `path` to `len` bytes and sync it.
    fn truncate(&self, path: &Path, len: u64) -> io::Result<()>;
    /// Write `bytes` at `offset` of an existing file, set its length to the end of them, sync.
    fn write_tail(&self, path: &Path, offset: u64, bytes: &[u8]) -> io::Result<()>;
    /// Rename `from` to `to` and fsync both parent dirs.
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// Remove a file and fsync its dir.
    fn remove(&self, path: &Path) -> io::Result<()>;
    /// Create a dir (and its parents) and fsync its parent.
    fn create_dir_all(&self, path: &Path) -> io::Result<()>;
    /// Append `bytes` to `path` (created if missing) and sync it: the journal's writes.
    fn append_synced(&self, path: &Path, bytes: &[u8]) -> io::Result<()>;
    /// Copy `from` to `to` durably, on any filesystem: streamed into a temp file beside `to`,
    /// synced, renamed over `to`, its dir synced. Returns the bytes copied.
    fn copy_durable(&self, from: &Path, to: &Path) -> io::Result<u64>;
    /// Remove an empty dir and fsync its parent.
    fn remove_dir(&self, path: &Path) -> io::Result<()>;
}

/// The real filesystem, with the failpoints of the module docs.
#[derive(Debug, Clone, Copy, Default)]
pub struct RealFs;

/// The parent dir of `path` (`.` for a bare name).
pub fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// fsync a directory: open it read-only and `sync_all` (STYLE.md G13).
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// A temp name next to `path`, unique per process.
fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    parent_dir(path).join(format!(".{name}.logclean-{}.tmp", std::process::id()))
}

/// Whether `name` is a temp file of [`RealFs::write_atomic`] (of any process).
pub fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp") && name.contains(".logclean-")
}

/// The system calls the durable recipes are made of. [`Os`] makes them; the tests record them
/// to check each recipe's order (a directory is synced after every rename or removal in it).
trait Calls {
    /// Create or truncate `path`, write `bytes`, sync it.
    fn write_synced(&self, path: &Path, bytes: &[u8]) -> io::Result<()>;
    /// Give `to` the permission bits of `from`, if `from` exists.
    fn copy_permissions(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// `rename(2)`.
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// `unlink(2)`.
    fn remove_file(&self, path: &Path) -> io::Result<()>;
    /// fsync a directory.
    fn sync_dir(&self, dir: &Path) -> io::Result<()>;
}

/// The real system calls.
struct Os;

impl Calls for Os {
    fn write_synced(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let mut f = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        f.write_all(bytes)?;
        f.flush()?;
        f.sync_all()
    }

    fn copy_permissions(&self, from: &Path, to: &Path) -> io::Result<()> {
        match fs::metadata(from) {
            Ok(old) => fs::set_permissions(to, old.permissions()),
            Err(_) => Ok(()),
        }
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        fs::rename(from, to)
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        fs::remove_file(path)
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        sync_dir(dir)
    }
}

/// Replace `path` durably: temp file in its dir, synced, permissions copied, renamed over
/// `path`, the dir synced.
fn write_atomic_with(sys: &impl Calls, path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = parent_dir(path);
    let tmp = temp_path(path);
    count_mutation();
    let result = sys
        .write_synced(&tmp, bytes)
        .and_then(|()| sys.copy_permissions(path, &tmp));
    if let Err(e) = result {
        let _ = sys.remove_file(&tmp);
        return Err(e);
    }
    failpoint("fsutil::after_temp_sync");
    count_mutation();
    if let Err(e) = sys.rename(&tmp, path) {
        let _ = sys.remove_file(&tmp);
        return Err(e);
    }
    failpoint("fsutil::after_rename_before_dirsync");
    sys.sync_dir(&dir)
}

/// Rename `from` to `to`, then sync both dirs.
fn rename_with(sys: &impl Calls, from: &Path, to: &Path) -> io::Result<()> {
    count_mutation();
    sys.rename(from, to)?;
    failpoint("fsutil::after_rename_before_dirsync");
    sys.sync_dir(&parent_dir(to))?;
    sys.sync_dir(&parent_dir(from))
}

/// Remove `path`, then sync its dir.
fn remove_with(sys: &impl Calls, path: &Path) -> io::Result<()> {
    count_mutation();
    sys.remove_file(path)?;
    sys.sync_dir(&parent_dir(path))
}

/// Stream `from` into a new `to` (created or truncated) and sync it; the bytes copied.
fn copy_synced(from: &Path, to: &Path) -> io::Result<u64> {
    let mut src = File::open(from)?;
    let mut dst = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(to)?;
    let n = io::copy(&mut src, &mut dst)?;
    dst.flush()?;
    dst.sync_all()?;
    Ok(n)
}

impl Fs for RealFs {
    fn write_atomic(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        write_atomic_with(&Os, path, bytes)
    }

    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        count_mutation();
        let f = OpenOptions::new().write(true).open(path)?;
        f.set_len(len)?;
        f.sync_all()
    }

    fn write_tail(&self, path: &Path, offset: u64, bytes: &[u8]) -> io::Result<()> {
        count_mutation();
        let f = OpenOptions::new().write(true).open(path)?;
        f.write_all_at(bytes, offset)?;
        let end = offset.saturating_add(bytes.len() as u64);
        f.set_len(end)?;
        f.sync_all()
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        rename_with(&Os, from, to)
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        remove_with(&Os, path)
    }

    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        if path.is_dir() {
            return Ok(());
        }
        count_mutation();
        fs::create_dir_all(path)?;
        sync_dir(path)?;
        sync_dir(&parent_dir(path))
    }

    fn copy_durable(&self, from: &Path, to: &Path) -> io::Result<u64> {
        let tmp = temp_path(to);
        count_mutation();
        let copied = copy_synced(from, &tmp).and_then(|n| {
            Os.copy_permissions(from, &tmp)?;
            Ok(n)
        });
        let n = match copied {
            Ok(n) => n,
            Err(e) => {
                let _ = fs::remove_file(&tmp);
                return Err(e);
            }
        };
        failpoint("fsutil::after_temp_sync");
        count_mutation();
        if let Err(e) = fs::rename(&tmp, to) {
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
        sync_dir(&parent_dir(to))?;
        Ok(n)
    }

    fn remove_dir(&self, path: &Path) -> io::Result<()> {
        count_mutation();
        fs::remove_dir(path)?;
        sync_dir(&parent_dir(path))
    }

    fn append_synced(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        count_mutation();
        let existed = path.exists();
        let mut f = OpenOptions::new().append(true).create(true).open(path)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        if !existed {
            sync_dir(&parent_dir(path))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_atomic_replaces_and_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        fs::write(&p, b"old").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        RealFs.write_atomic(&p, b"new bytes").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"new bytes");
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o640
        );
        // No temp file is left behind.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        assert!(is_temp_name(
            &temp_path(&p).file_name().unwrap().to_string_lossy()
        ));
    }

    /// [`Os`], recording each call and its path(s), relative to `root`.
    struct Recorder {
        root: PathBuf,
        calls: std::sync::Mutex<Vec<String>>,
    }

    impl Recorder {
        fn new(root: &Path) -> Recorder {
            Recorder {
                root: root.to_path_buf(),
                calls: std::sync::Mutex::new(Vec::new()),
            }
        }

        fn log(&self, call: &str, paths: &[&Path]) {
            let names: Vec<String> = paths
                .iter()
                .map(|p| {
                    let name = p.file_name().unwrap_or_default().to_string_lossy();
                    let rel = p.strip_prefix(&self.root).unwrap_or(p);
                    let rel = rel.to_string_lossy();
                    if is_temp_name(&name) {
                        rel.replace(&*name, "<tmp>")
                    } else if rel.is_empty() {
                        ".".to_string()
                    } else {
                        rel.into_owned()
                    }
                })
                .collect();
            self.calls
                .lock()
                .unwrap()
                .push(format!("{call} {}", names.join(" ")));
        }

        fn take(&self) -> Vec<String> {
            std::mem::take(&mut *self.calls.lock().unwrap())
        }
    }

    impl Calls for Recorder {
        fn write_synced(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
            self.log("write_synced", &[path]);
            Os.write_synced(path, bytes)
        }
        fn copy_permissions(&self, from: &Path, to: &Path) -> io::Result<()> {
            self.log("copy_permissions", &[from, to]);
            Os.copy_permissions(from, to)
        }
        fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
            self.log("rename", &[from, to]);
            Os.rename(from, to)
        }
        fn remove_file(&self, path: &Path) -> io::Result<()> {
            self.log("remove_file", &[path]);
            Os.remove_file(path)
        }
        fn sync_dir(&self, dir: &Path) -> io::Result<()> {
            self.log("sync_dir", &[dir]);
            Os.sync_dir(dir)
        }
    }

    #[test]
    fn the_dir_is_synced_after_every_rename_and_removal() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let sub = root.join("sub");
        fs::create_dir(&sub).unwrap();
        let sys = Recorder::new(root);
        let p = sub.join("f");
        write_atomic_with(&sys, &p, b"bytes").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"bytes");
        assert_eq!(
            sys.take(),
            [
                "write_synced sub/<tmp>",
                "copy_permissions sub/f sub/<tmp>",
                "rename sub/<tmp> sub/f",
                "sync_dir sub",
            ]
        );
        rename_with(&sys, &p, &root.join("g")).unwrap();
        assert_eq!(sys.take(), ["rename sub/f g", "sync_dir .", "sync_dir sub"]);
        remove_with(&sys, &root.join("g")).unwrap();
        assert_eq!(sys.take(), ["remove_file g", "sync_dir ."]);
        assert_eq!(fs::read_dir(root).unwrap().count(), 1);
    }

    #[test]
    fn truncate_and_write_tail_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        fs::write(&p, b"0123456789").unwrap();
        RealFs.truncate(&p, 4).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"0123");
        RealFs.write_tail(&p, 4, b"456789").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"0123456789");
    }

    #[test]
    fn rename_remove_and_append() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let sub = dir.path().join("q/r");
        RealFs.create_dir_all(&sub).unwrap();
        RealFs.append_synced(&a, b"x").unwrap();
        RealFs.append_synced(&a, b"y").unwrap();
        assert_eq!(fs::read(&a).unwrap(), b"xy");
        RealFs.rename(&a, &sub.join("a")).unwrap();
        assert!(!a.exists());
        let copied = RealFs
            .copy_durable(&sub.join("a"), &dir.path().join("c"))
            .unwrap();
        assert_eq!(
            (copied, fs::read(dir.path().join("c")).unwrap()),
            (2, b"xy".to_vec())
        );
        RealFs.remove(&sub.join("a")).unwrap();
        assert!(!sub.join("a").exists());
        RealFs.remove_dir(&sub).unwrap();
        assert!(!sub.exists());
        assert_eq!(parent_dir(Path::new("x")), PathBuf::from("."));
    }
}
