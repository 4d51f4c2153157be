//! Where a run puts the files it replaces, cuts or removes: a per-run dir, by default on the
//! log dir's filesystem (a rename never copies, and `undo` renames back, but nothing is freed
//! until the quarantine is removed), or on another filesystem with `--quarantine DIR` (each
//! file copied there, synced, then unlinked: space is freed at once; `undo` copies back). Names are
//! `<step>-<partition dir>-<file>` plus `.backup` (old content of a rewritten file) or `.tail`
//! (bytes cut by a truncation); moved files keep their name.

use std::path::{Path, PathBuf};

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
    }
}
