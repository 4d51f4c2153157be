//! Whether a running broker holds a log dir's `.lock`.
//!
//! The broker locks `<log dir>/.lock` with `FileChannel.tryLock`, which on Linux is a POSIX
//! record lock (`fcntl(F_SETLK)`), held as long as the process lives. A POSIX lock is invisible
//! to `flock(2)`, so the probe asks the kernel with `fcntl(F_GETLK)`: "would an exclusive lock on
//! the whole file conflict, and with whom?". `F_GETLK` takes no lock, and the file is opened read
//! only, so probing never changes what the broker sees. (A lock held by this very process never
//! conflicts with itself and reads as unlocked; logclean takes none.)

use std::fs::File;
use std::io;
use std::path::Path;

use nix::fcntl::{fcntl, FcntlArg};
use nix::libc;

/// The state of a log dir's `.lock`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum LockState {
    /// No `.lock` file (a clean shutdown deletes it; a dir never used by a broker has none).
    #[default]
    NoLockFile,
    /// The file exists and no process holds a lock on it (a crashed broker leaves it so).
    Unlocked,
    /// Another process holds a lock on it: a broker is running on this dir.
    HeldBy {
        /// The holder's process id, when the kernel names one (an open-file-description lock
        /// has none).
        pid: Option<i32>,
    },
    /// The probe failed (the file could not be opened or queried): as good as held for what
    /// is safe to do.
    Unknown,
}

impl LockState {
    /// Whether a live process holds the lock.
    pub fn is_held(self) -> bool {
        matches!(self, LockState::HeldBy { .. })
    }

    /// Whether files of this log dir may be memory-mapped: only when no live process is known
    /// or suspected to hold the lock (a running broker may truncate a mapped segment: SIGBUS).
    pub fn allows_mapping(self) -> bool {
        matches!(self, LockState::NoLockFile | LockState::Unlocked)
    }
}

/// Probe `<log_dir>/.lock` without locking it. Anything but a regular file named `.lock` (a
/// FIFO would block the open) reads as no lock file.
pub fn probe_lock(log_dir: &Path) -> io::Result<LockState> {
    let path = log_dir.join(".lock");
    match std::fs::metadata(&path) {
        Ok(m) if m.is_file() => {}
        Ok(_) => return Ok(LockState::NoLockFile),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(LockState::NoLockFile),
        Err(e) => return Err(e),
    }
    let file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(LockState::NoLockFile),
        Err(e) => return Err(e),
    };
    probe_file(&file)
}

/// Ask whether an exclusive lock on the whole of `file` would conflict with a lock held by
/// another process.
fn probe_file(file: &File) -> io::Result<LockState> {
    let mut query = libc::flock {
        l_type: libc::F_WRLCK as libc::c_short,
        l_whence: libc::SEEK_SET as libc::c_short,
        l_start: 0,
        l_len: 0, // to the end of the file, however long it grows
        l_pid: 0,
    };
    fcntl(file, FcntlArg::F_GETLK(&mut query)).map_err(io::Error::from)?;
    if query.l_type == libc::F_UNLCK as libc::c_short {
        return Ok(LockState::Unlocked);
    }
    Ok(LockState::HeldBy {
        pid: (query.l_pid > 0).then_some(query.l_pid),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader};
    use std::process::{Child, Command, Stdio};

    /// A child process that locks `path` with `script` and says "locked" once it holds it.
    fn locker(script: &str, path: &Path) -> Child {
        let mut child = Command::new("python3")
            .arg("-c")
            .arg(script)
            .arg(path)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line.trim(), "locked");
        child
    }

    const LOCKF: &str = "import fcntl,time,sys; f=open(sys.argv[1],'w'); \
        fcntl.lockf(f, fcntl.LOCK_EX); print('locked', flush=True); time.sleep(30)";
    const FLOCK: &str = "import fcntl,time,sys; f=open(sys.argv[1],'w'); \
        fcntl.flock(f, fcntl.LOCK_EX); print('locked', flush=True); time.sleep(30)";

    #[test]
    fn posix_lock_of_another_process_is_seen_with_its_pid() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = locker(LOCKF, &dir.path().join(".lock"));
        let state = probe_lock(dir.path()).unwrap();
        let pid = i32::try_from(child.id()).unwrap();
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(state, LockState::HeldBy { pid: Some(pid) });
        assert!(state.is_held());
        assert!(!state.allows_mapping());
        // The lock dies with its holder.
        assert_eq!(probe_lock(dir.path()).unwrap(), LockState::Unlocked);
    }

    #[test]
    fn flock_is_not_what_the_broker_takes() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = locker(FLOCK, &dir.path().join(".lock"));
        let state = probe_lock(dir.path()).unwrap();
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(state, LockState::Unlocked);
    }

    #[test]
    fn unlocked_and_missing() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(probe_lock(dir.path()).unwrap(), LockState::NoLockFile);
        std::fs::write(dir.path().join(".lock"), b"").unwrap();
        let before = std::fs::metadata(dir.path().join(".lock")).unwrap();
        assert_eq!(probe_lock(dir.path()).unwrap(), LockState::Unlocked);
        let after = std::fs::metadata(dir.path().join(".lock")).unwrap();
        assert_eq!(before.modified().unwrap(), after.modified().unwrap());
        assert!(!LockState::Unlocked.is_held());
        assert!(LockState::Unlocked.allows_mapping());
        assert!(LockState::NoLockFile.allows_mapping());
        assert!(!LockState::Unknown.allows_mapping());
    }

    #[test]
    fn a_fifo_named_lock_is_not_opened() {
        let dir = tempfile::tempdir().unwrap();
        let ok = Command::new("mkfifo")
            .arg(dir.path().join(".lock"))
            .status()
            .unwrap();
        assert!(ok.success());
        assert_eq!(probe_lock(dir.path()).unwrap(), LockState::NoLockFile);
    }
}
