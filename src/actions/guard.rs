//! Proving a directory is a Kafka log dir that no broker is using before touching it (STYLE.md
//! G12, spec §9).
//!
//! Every mutating command calls [`check_log_dir`] when it plans and again just before it applies
//! (and [`check_write_target`] before every write): the dir must hold `meta.properties`, its
//! `.lock` must not be held (the broker's POSIX record lock, probed with `F_GETLK` by
//! [`probe_lock`], which takes no lock), the partition must not be `__cluster_metadata`, and a
//! write must land in a partition dir that really is inside the log dir (the read path follows
//! symlinks as the broker does; writes must not escape). There is no `--force`. `.lock` itself
//! is never written or removed.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use crate::model::lock::{probe_lock, LockState};
use crate::model::names::{
    is_legal_topic_name, parse_partition_dir_name, path_text, METADATA_TOPIC,
};

use super::ActionError;

/// The note every refusal of a dir that is not a log dir carries.
pub const NOT_A_LOG_DIR: &str =
    "aborted to avoid modifying files that are not a Kafka log directory";

/// A log dir that passed the checks: its canonical path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedLogDir {
    /// Canonical path of the log dir.
    pub path: PathBuf,
}

/// Check that `log_dir` is a real log dir with `meta.properties` and that no process holds its
/// `.lock`.
pub fn check_log_dir(log_dir: &Path) -> Result<CheckedLogDir, ActionError> {
    let path = fs::canonicalize(log_dir).map_err(|e| ActionError::io(log_dir, e))?;
    let meta = fs::symlink_metadata(&path).map_err(|e| ActionError::io(&path, e))?;
    if !meta.is_dir() {
        return Err(ActionError::Refused(format!(
            "`{}` is not a directory; {NOT_A_LOG_DIR}",
            path_text(&path)
        )));
    }
    let props = path.join("meta.properties");
    if !fs::symlink_metadata(&props).is_ok_and(|m| m.is_file()) {
        return Err(ActionError::Refused(format!(
            "`{}` has no meta.properties; {NOT_A_LOG_DIR}",
            path_text(&path)
        )));
    }
    check_unlocked(&path)?;
    Ok(CheckedLogDir { path })
}

/// Refuse when a live process holds (or may hold) the log dir's `.lock`.
pub fn check_unlocked(log_dir: &Path) -> Result<(), ActionError> {
    match probe_lock(log_dir) {
        Ok(LockState::NoLockFile | LockState::Unlocked) => Ok(()),
        Ok(LockState::HeldBy { pid }) => Err(ActionError::Refused(format!(
            "a running broker holds `{}`{}: stop it before changing this log dir (there is no \
             --force for this)",
            path_text(&log_dir.join(".lock")),
            pid.map(|p| format!(" (pid {p})")).unwrap_or_default()
        ))),
        Ok(LockState::Unknown) | Err(_) => Err(ActionError::Refused(format!(
            "cannot tell whether a broker holds `{}`: refusing to change this log dir",
            path_text(&log_dir.join(".lock"))
        ))),
    }
}

/// Check a partition dir name: it must parse as `<topic>-<n>` (no `-delete`/`-future`
/// suffix) of a legal topic name ([`is_legal_topic_name`]: a dir no broker could have made is
/// never acted on) and not be the KRaft metadata log.
pub fn check_partition_name(dir_name: &str) -> Result<(), ActionError> {
    let Some(parsed) = parse_partition_dir_name(dir_name) else {
        return Err(ActionError::Refused(format!(
            "`{dir_name}` is not a partition dir name; {NOT_A_LOG_DIR}"
        )));
    };
    if parsed.topic == METADATA_TOPIC {
        return Err(ActionError::Refused(format!(
            "`{dir_name}` is the KRaft metadata log: logclean never changes it"
        )));
    }
    if !is_legal_topic_name(&parsed.topic) {
        return Err(ActionError::Refused(format!(
            "`{dir_name}` names a topic Kafka does not allow (only ASCII letters, digits, `.`, \
             `_` and `-`): no broker made this dir, logclean leaves it alone"
        )));
    }
    if dir_name != format!("{}-{}", parsed.topic, parsed.partition) {
        return Err(ActionError::Refused(format!(
            "`{dir_name}` is a partition dir being deleted or moved: logclean leaves it alone"
        )));
    }
    Ok(())
}

/// The offset checkpoints in a log dir's root, the only root files a step may write.
pub const ROOT_CHECKPOINTS: [&str; 4] = [
    "log-start-offset-checkpoint",
    "recovery-point-offset-checkpoint",
    "replication-offset-checkpoint",
    "cleaner-offset-checkpoint",
];

/// Check that writing `path` stays inside `log_dir`: its parent, with symlinks resolved, is a
/// partition dir directly in the canonical log dir (or `path` is one of the
/// [`ROOT_CHECKPOINTS`] in the log dir itself), and `path` itself, if it exists, is a regular
/// file and not a symlink.
pub fn check_write_target(log_dir: &CheckedLogDir, path: &Path) -> Result<(), ActionError> {
    let parent = super::fsutil::parent_dir(path);
    let real = fs::canonicalize(&parent).map_err(|e| ActionError::io(&parent, e))?;
    let root_checkpoint = real == log_dir.path
        && path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| ROOT_CHECKPOINTS.contains(&n));
    if real.parent() != Some(log_dir.path.as_path()) && !root_checkpoint {
        return Err(ActionError::Refused(format!(
            "`{}` resolves to `{}`, outside the log dir `{}`: refusing to write through a symlink",
            path_text(&parent),
            path_text(&real),
            path_text(&log_dir.path)
        )));
    }
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(ActionError::Refused(format!(
            "`{}` is a symlink: refusing to write through it",
            path_text(path)
        ))),
        Ok(m) if !m.is_file() => Err(ActionError::Refused(format!(
            "`{}` is not a regular file",
            path_text(path)
        ))),
        _ => Ok(()),
    }
}

/// Size and modification time of a file the plan read, to detect a change before applying.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileStamp {
    /// The file.
    #[serde(with = "crate::model::names::path_serde")]
    pub path: PathBuf,
    /// Its length, `None` when it did not exist.
    pub len: Option<u64>,
    /// Its mtime in nanoseconds since the epoch (0 when unknown or absent).
    pub mtime_ns: u64,
}

impl FileStamp {
    /// Stamp `path` now.
    pub fn of(path: &Path) -> FileStamp {
        let meta = fs::symlink_metadata(path).ok();
        FileStamp {
            path: path.to_path_buf(),
            len: meta.as_ref().map(fs::Metadata::len),
            mtime_ns: meta
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)),
        }
    }

    /// Refuse when the file changed since the stamp was taken.
    pub fn verify(&self) -> Result<(), ActionError> {
        let now = FileStamp::of(&self.path);
        if &now == self {
            Ok(())
        } else {
            Err(ActionError::Refused(format!(
                "`{}` changed since the plan was made (size or mtime): run the command again",
                path_text(&self.path)
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_dir() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        fs::write(d.path().join("meta.properties"), "version=1\n").unwrap();
        fs::create_dir(d.path().join("t-0")).unwrap();
        d
    }

    #[test]
    fn refuses_a_dir_without_meta_properties() {
        let d = tempfile::tempdir().unwrap();
        let e = check_log_dir(d.path()).unwrap_err();
        assert!(e.to_string().contains(NOT_A_LOG_DIR), "{e}");
        assert!(check_log_dir(log_dir().path()).is_ok());
    }

    #[test]
    fn partition_names() {
        assert!(check_partition_name("t-0").is_ok());
        assert!(check_partition_name("__cluster_metadata-0").is_err());
        assert!(check_partition_name("nonsense").is_err());
        assert!(check_partition_name("orders\x1b]0;pwned\x07-2").is_err());
        assert!(check_partition_name("ord\u{fffd}rs-7").is_err());
        assert!(check_partition_name("t-0.0123456789abcdef0123456789abcdef-delete").is_err());
    }

    #[test]
    fn write_targets_must_stay_inside() {
        let d = log_dir();
        let checked = check_log_dir(d.path()).unwrap();
        assert!(check_write_target(&checked, &d.path().join("t-0/0.index")).is_ok());
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), d.path().join("t-1")).unwrap();
        assert!(check_write_target(&checked, &d.path().join("t-1/0.index")).is_err());
        fs::write(outside.path().join("x"), b"").unwrap();
        std::os::unix::fs::symlink(outside.path().join("x"), d.path().join("t-0/l")).unwrap();
        assert!(check_write_target(&checked, &d.path().join("t-0/l")).is_err());
        // In the root, only the offset checkpoints.
        let root = |n: &str| check_write_target(&checked, &d.path().join(n));
        assert!(root("log-start-offset-checkpoint").is_ok());
        assert!(root("recovery-point-offset-checkpoint").is_ok());
        assert!(root("meta.properties").is_err());
        assert!(root(".lock").is_err());
    }

    #[test]
    fn stamps_detect_changes() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        fs::write(&p, b"a").unwrap();
        let s = FileStamp::of(&p);
        assert!(s.verify().is_ok());
        fs::write(&p, b"ab").unwrap();
        assert!(s.verify().is_err());
    }
}
