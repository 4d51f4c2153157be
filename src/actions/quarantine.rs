//! Where a run puts the files it replaces, cuts or removes: a per-run dir on the **same
//! filesystem** as the log dir (a rename never copies, and `undo` renames back). Names are
//! `<step>-<partition dir>-<file>` plus `.backup` (old content of a rewritten file) or `.tail`
//! (bytes cut by a truncation); moved files keep their name.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::ActionError;
use crate::model::names::path_text;

/// A run's quarantine dir.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quarantine {
    /// The dir.
    pub dir: PathBuf,
}

fn flat_name(index: usize, path: &Path) -> String {
    let file = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = path
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{index:04}-{dir}-{file}")
}

impl Quarantine {
    /// The backup of the file step `index` rewrites.
    pub fn backup_path(&self, index: usize, path: &Path) -> PathBuf {
        self.dir.join(format!("{}.backup", flat_name(index, path)))
    }

    /// The tail step `index` cuts.
    pub fn tail_path(&self, index: usize, path: &Path) -> PathBuf {
        self.dir.join(format!("{}.tail", flat_name(index, path)))
    }

    /// Where step `index` moves a file.
    pub fn moved_path(&self, index: usize, path: &Path) -> PathBuf {
        self.dir.join(flat_name(index, path))
    }

    /// Refuse a quarantine dir on another filesystem than the log dir.
    pub fn check_same_filesystem(&self, log_dir: &Path) -> Result<(), ActionError> {
        let dev = |p: &Path| {
            std::fs::metadata(p)
                .map(|m| m.dev())
                .map_err(|e| ActionError::io(p, e))
        };
        if dev(&self.dir)? == dev(log_dir)? {
            Ok(())
        } else {
            Err(ActionError::Refused(format!(
                "quarantine dir `{}` is on another filesystem than `{}`: give --quarantine DIR on \
                 the log dir's filesystem",
                path_text(&self.dir),
                path_text(log_dir)
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_per_step_and_kind() {
        let q = Quarantine {
            dir: PathBuf::from("/q"),
        };
        let p = Path::new("/l/t-0/00000000000000000000.index");
        assert_eq!(
            q.backup_path(3, p),
            PathBuf::from("/q/0003-t-0-00000000000000000000.index.backup")
        );
        assert_ne!(q.tail_path(3, p), q.backup_path(3, p));
        assert_ne!(q.moved_path(3, p), q.moved_path(4, p));
        let d = tempfile::tempdir().unwrap();
        let same = Quarantine {
            dir: d.path().to_path_buf(),
        };
        assert!(same.check_same_filesystem(d.path()).is_ok());
    }
}
