//! Typed plan steps: what a mutating command will do, rendered for the dry run by
//! `report::mutation` and applied (or undone) one step at a time by [`super::journal`]. Printing
//! and doing use the same object, so they cannot drift apart (STYLE.md G11).
//!
//! Every step is **idempotent** given the files it leaves behind, so a run killed in the middle
//! of a step is finished by redoing that step (`resume`) or rolled back by undoing it (`undo`):
//!
//! | step | apply | undo |
//! |---|---|---|
//! | `WriteFile` | back the old file up into quarantine (once), then write the new bytes atomically | restore the backup atomically, or remove a file the step created |
//! | `Truncate` | copy the dropped tail into quarantine (once), then `set_len` + sync | write the tail back |
//! | `Quarantine` | rename the file into quarantine (or remove it with `--purge`); a quarantine on another filesystem: copy (synced), verify the copy's size, then unlink the source | rename (or copy) it back |
//! | `RemoveDir` | remove the (by then empty) dir | create it again |
//!
//! A cut tail and a moved file go to the quarantine unless the run purges: `--purge` writes
//! nothing there (a full disk has no room for a tail that is about to be thrown away).

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::model::names::path_text;

use super::fsutil::Fs;
use super::guard::{check_write_target, CheckedLogDir, FileStamp};
use super::quarantine::Quarantine;
use super::ActionError;

/// One step of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Step {
    /// Replace or create `path` with new bytes (staged in the journal before the run starts).
    WriteFile {
        /// The file.
        #[serde(with = "crate::model::names::path_serde")]
        path: PathBuf,
        /// The new content (kept in the journal's staging dir, not in the JSON).
        #[serde(skip)]
        bytes: Vec<u8>,
        /// Length of the new content.
        new_len: u64,
        /// Length of the file it replaces, `None` when the step creates it.
        old_len: Option<u64>,
        /// Why, for the dry run.
        why: String,
    },
    /// Cut `path` from `from_len` to `to_len` bytes.
    Truncate {
        /// The file.
        #[serde(with = "crate::model::names::path_serde")]
        path: PathBuf,
        /// Its length when planned.
        from_len: u64,
        /// Its length afterwards.
        to_len: u64,
        /// Why (what the dropped bytes are).
        why: String,
    },
    /// Move `path` into quarantine (remove it with `--purge`).
    Quarantine {
        /// The file.
        #[serde(with = "crate::model::names::path_serde")]
        path: PathBuf,
        /// Its length when planned.
        len: u64,
        /// Why.
        why: String,
    },
    /// Remove the dir `path`, emptied by the steps before it (a `-delete`/`-stray`/`-future`
    /// dir whose files were quarantined).
    RemoveDir {
        /// The dir.
        #[serde(with = "crate::model::names::path_serde")]
        path: PathBuf,
        /// Why.
        why: String,
    },
}

impl Step {
    /// The file the step changes.
    pub fn path(&self) -> &Path {
        match self {
            Step::WriteFile { path, .. }
            | Step::Truncate { path, .. }
            | Step::Quarantine { path, .. }
            | Step::RemoveDir { path, .. } => path,
        }
    }

    /// A short name (for failpoints and progress).
    pub fn kind(&self) -> &'static str {
        match self {
            Step::WriteFile { .. } => "write",
            Step::Truncate { .. } => "truncate",
            Step::Quarantine { .. } => "quarantine",
            Step::RemoveDir { .. } => "rmdir",
        }
    }
}

/// The plan of one command for one log dir.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionPlan {
    /// The command that made it (`rebuild-index`, `roll`).
    pub command: String,
    /// The log dir (canonical).
    #[serde(with = "crate::model::names::path_serde")]
    pub log_dir: PathBuf,
    /// The steps, in the order they run.
    pub steps: Vec<Step>,
    /// Size and mtime of every file the plan read, checked again before the first step.
    pub stamps: Vec<FileStamp>,
    /// What the plan found and decided, one line each (shown with the steps).
    pub notes: Vec<String>,
    /// Whether the bytes it moves leave the filesystem (set by the run from its options, for
    /// the dry run's summary; `None` before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<SpaceRelease>,
}

/// Where the bytes a plan quarantines or cuts go, and so whether the space is really freed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpaceRelease {
    /// `--purge`: removed, freed at once.
    Removed,
    /// The quarantine is on another filesystem: copied there, then removed here; freed at once.
    QuarantineElsewhere,
    /// The quarantine is on the log dir's filesystem: nothing is freed until it is removed.
    QuarantineSameFilesystem,
}

impl SpaceRelease {
    /// Whether the log dir's filesystem gets the bytes back when the run ends.
    pub fn frees(self) -> bool {
        !matches!(self, SpaceRelease::QuarantineSameFilesystem)
    }

    /// For the dry run's summary.
    pub fn text(self) -> &'static str {
        match self {
            SpaceRelease::Removed => "space freed at once (--purge removes the files)",
            SpaceRelease::QuarantineElsewhere => {
                "space freed at once (the quarantine is on another filesystem)"
            }
            SpaceRelease::QuarantineSameFilesystem => {
                "no space freed until the quarantine is removed (it is on the log dir's \
                 filesystem: add --purge, or --quarantine DIR on another filesystem)"
            }
        }
    }
}

/// Totals of a plan, for the summary line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct PlanSummary {
    /// Files written (replaced or created).
    pub files_written: usize,
    /// Files truncated.
    pub files_truncated: usize,
    /// Bytes cut by truncations.
    pub bytes_truncated: u64,
    /// Files moved to quarantine (or removed with --purge).
    pub files_quarantined: usize,
    /// Bytes freed in the log dir: truncated tails, moved files and shrunk rewrites.
    pub bytes_freed: i64,
    /// Emptied dirs removed.
    #[serde(skip_serializing_if = "is_zero")]
    pub dirs_removed: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn signed(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl ActionPlan {
    /// The totals.
    pub fn summary(&self) -> PlanSummary {
        let mut s = PlanSummary::default();
        for step in &self.steps {
            match step {
                Step::WriteFile {
                    new_len, old_len, ..
                } => {
                    s.files_written += 1;
                    s.bytes_freed += signed(old_len.unwrap_or(0)) - signed(*new_len);
                }
                Step::Truncate {
                    from_len, to_len, ..
                } => {
                    s.files_truncated += 1;
                    let cut = from_len.saturating_sub(*to_len);
                    s.bytes_truncated += cut;
                    s.bytes_freed += signed(cut);
                }
                Step::Quarantine { len, .. } => {
                    s.files_quarantined += 1;
                    s.bytes_freed += signed(*len);
                }
                Step::RemoveDir { .. } => s.dirs_removed += 1,
            }
        }
        s
    }
}

/// What applying or undoing a step needs.
pub struct StepContext<'a> {
    /// The filesystem.
    pub fs: &'a dyn Fs,
    /// The checked log dir (writes are re-checked against it).
    pub log_dir: &'a CheckedLogDir,
    /// Where backups and moved files go.
    pub quarantine: &'a Quarantine,
    /// Remove instead of quarantining.
    pub purge: bool,
}

fn len_of(path: &Path) -> Option<u64> {
    fs::symlink_metadata(path).ok().map(|m| m.len())
}

fn read(path: &Path) -> Result<Vec<u8>, ActionError> {
    fs::read(path).map_err(|e| ActionError::io(path, e))
}

/// Apply step `index` (idempotently: a partly done step is finished).
pub fn apply_step(step: &Step, index: usize, cx: &StepContext<'_>) -> Result<(), ActionError> {
    check_target(cx.log_dir, step)?;
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |e| ActionError::Io { path: p, source: e }
    };
    match step {
        Step::WriteFile {
            path,
            bytes,
            old_len,
            ..
        } => {
            let backup = cx.quarantine.backup_path(index, path);
            if old_len.is_some() && !backup.exists() {
                if let Ok(old) = fs::read(path) {
                    cx.fs.write_atomic(&backup, &old).map_err(io(&backup))?;
                }
            }
            cx.fs.write_atomic(path, bytes).map_err(io(path))
        }
        Step::Truncate {
            path,
            from_len,
            to_len,
            ..
        } => {
            let tail = cx.quarantine.tail_path(index, path);
            let len = len_of(path);
            if len == Some(*to_len) && tail.exists() {
                return Ok(());
            }
            if len != Some(*from_len) {
                return Err(ActionError::Refused(format!(
                    "`{}` is {len:?} bytes, expected {from_len}: not truncating",
                    path_text(path)
                )));
            }
            if cx.purge && len == Some(*to_len) {
                return Ok(());
            }
            if !tail.exists() && !cx.purge {
                let all = read(path)?;
                let cut = usize::try_from(*to_len).unwrap_or(usize::MAX);
                let dropped = all.get(cut..).unwrap_or(&[]);
                cx.fs.write_atomic(&tail, dropped).map_err(io(&tail))?;
            }
            cx.fs.truncate(path, *to_len).map_err(io(path))
        }
        Step::Quarantine { path, .. } => {
            let dest = cx.quarantine.moved_path(index, path);
            if !path.exists() {
                return Ok(());
            }
            if cx.purge {
                cx.fs.remove(path).map_err(io(path))
            } else if same_filesystem(&cx.quarantine.dir, path) {
                cx.fs.rename(path, &dest).map_err(io(path))
            } else {
                copy_then_remove(cx, path, &dest)
            }
        }
        Step::RemoveDir { path, .. } => {
            if !path.exists() {
                return Ok(());
            }
            cx.fs.remove_dir(path).map_err(io(path))
        }
    }
}

/// A step's target must stay inside the log dir: a file ([`check_write_target`]), or for
/// [`Step::RemoveDir`] a real dir directly in it.
pub fn check_target(log_dir: &CheckedLogDir, step: &Step) -> Result<(), ActionError> {
    let Step::RemoveDir { path, .. } = step else {
        return check_write_target(log_dir, step.path());
    };
    let inside = path.parent() == Some(log_dir.path.as_path());
    match fs::symlink_metadata(path) {
        _ if !inside => Err(ActionError::Refused(format!(
            "`{}` is not a dir of the log dir `{}`",
            path_text(path),
            path_text(&log_dir.path)
        ))),
        Ok(m) if !m.is_dir() => Err(ActionError::Refused(format!(
            "`{}` is not a dir (a symlink?): not removing it",
            path_text(path)
        ))),
        _ => Ok(()),
    }
}

/// Whether `a` and the dir of `b` are on one filesystem (a rename between them never copies).
/// Unknown (one cannot be stat'ed) reads as another filesystem: the copy works on both.
pub fn same_filesystem(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let dev = |p: &Path| fs::metadata(p).map(|m| m.dev()).ok();
    let b_dir = super::fsutil::parent_dir(b);
    matches!((dev(a), dev(&b_dir)), (Some(x), Some(y)) if x == y)
}

/// Move `path` to `dest` on another filesystem: copy it (synced, renamed into place, the dir
/// synced), check that the copy has the source's length, then unlink the source. A crash at
/// any point leaves the source whole (the copy is redone) or a whole copy (the unlink is
/// redone); [`undo_step`] copies it back.
fn copy_then_remove(cx: &StepContext<'_>, path: &Path, dest: &Path) -> Result<(), ActionError> {
    let src_len = len_of(path);
    if len_of(dest) != src_len {
        cx.fs
            .copy_durable(path, dest)
            .map_err(|e| ActionError::io(dest, e))?;
    }
    if len_of(dest) != src_len {
        return Err(ActionError::Refused(format!(
            "the copy `{}` is {:?} bytes, `{}` is {src_len:?}: not removing the source",
            path_text(dest),
            len_of(dest),
            path_text(path)
        )));
    }
    super::fsutil::failpoint("plan::copied_before_unlink");
    cx.fs.remove(path).map_err(|e| ActionError::io(path, e))
}

/// Undo step `index` (idempotently; a step never started is left alone).
pub fn undo_step(step: &Step, index: usize, cx: &StepContext<'_>) -> Result<(), ActionError> {
    check_target(cx.log_dir, step)?;
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |e| ActionError::Io { path: p, source: e }
    };
    match step {
        Step::WriteFile { path, old_len, .. } => {
            let backup = cx.quarantine.backup_path(index, path);
            if backup.exists() {
                let old = read(&backup)?;
                cx.fs.write_atomic(path, &old).map_err(io(path))
            } else if old_len.is_none() && path.exists() {
                cx.fs.remove(path).map_err(io(path))
            } else {
                Ok(())
            }
        }
        Step::Truncate {
            path,
            from_len,
            to_len,
            ..
        } => {
            let tail = cx.quarantine.tail_path(index, path);
            let len = len_of(path).unwrap_or(0);
            if !tail.exists() || len == *from_len && len != *to_len {
                return Ok(());
            }
            if len < *to_len || len > *from_len {
                return Err(ActionError::Refused(format!(
                    "`{}` is {len} bytes, not between {to_len} and {from_len}: cannot restore its tail",
                    path_text(path)
                )));
            }
            let bytes = read(&tail)?;
            cx.fs.write_tail(path, *to_len, &bytes).map_err(io(path))
        }
        Step::Quarantine { path, .. } => {
            let dest = cx.quarantine.moved_path(index, path);
            if dest.exists() && !path.exists() {
                if same_filesystem(&cx.quarantine.dir, path) {
                    cx.fs.rename(&dest, path).map_err(io(&dest))
                } else {
                    cx.fs.copy_durable(&dest, path).map_err(io(path))?;
                    cx.fs.remove(&dest).map_err(io(&dest))
                }
            } else if !dest.exists() && !path.exists() {
                Err(ActionError::Refused(format!(
                    "`{}` was removed (--purge): it cannot be restored",
                    path_text(path)
                )))
            } else {
                Ok(())
            }
        }
        Step::RemoveDir { path, .. } => {
            if path.exists() {
                return Ok(());
            }
            cx.fs.create_dir_all(path).map_err(io(path))
        }
    }
}
