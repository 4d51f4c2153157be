//! A run's space budget, checked before anything is written (issue 27: "it works at 0 bytes
//! free"). A run writes its journal and staged contents, backups and cut tails (unless it
//! purges), copies of moved files on a quarantine of another filesystem, and the temp files of
//! its rewrites; its quarantine and purge steps give space back. On each filesystem the run
//! touches, the steps are walked in plan order and the free space after each one must stay
//! at or above zero; when it would not, the run is refused before its first write, and the
//! refusal names what to change (`--journal DIR` or `--quarantine DIR` on another filesystem,
//! `--purge`).
//!
//! Figures are allocated blocks (`statvfs` `f_frsize`), each written file at least one block:
//! a tmpfs or ext4 charges whole blocks, and a full disk has none.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::plan::{same_filesystem, ActionPlan, Step};
use super::ActionError;
use crate::model::names::path_text;

/// Bytes per journal record beyond the plan (a `begin`/`done` line is under 30 bytes; this
/// leaves room for an undo's records too).
const RECORD_BYTES: u64 = 64;

/// One filesystem's part of the budget.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Account {
    /// A path on it, for the message.
    at: PathBuf,
    /// Free bytes now.
    free: u64,
    /// Block size.
    block: u64,
    /// The running balance (free plus freed minus written so far).
    balance: i128,
    /// The lowest balance reached.
    low: i128,
    /// What is written there, for the message.
    written: Vec<&'static str>,
}

impl Account {
    fn round(&self, n: u64) -> i128 {
        let b = self.block.max(1);
        i128::from(n.div_ceil(b).max(1)) * i128::from(b)
    }

    fn write(&mut self, n: u64, what: &'static str) {
        self.balance -= self.round(n);
        self.low = self.low.min(self.balance);
        if !self.written.contains(&what) {
            self.written.push(what);
        }
    }

    fn give_back(&mut self, n: u64) {
        if n > 0 {
            self.balance += self.round(n);
        }
    }
}

/// The device of `path`, or of its nearest existing ancestor (a journal root is created by the
/// run).
fn device(path: &Path) -> Option<(u64, PathBuf)> {
    let mut p = Some(path);
    while let Some(at) = p {
        if let Ok(m) = std::fs::metadata(at) {
            return Some((m.dev(), at.to_path_buf()));
        }
        p = at.parent();
    }
    None
}

struct Budget {
    accounts: BTreeMap<u64, Account>,
}

impl Budget {
    fn account(&mut self, path: &Path) -> Option<&mut Account> {
        let (dev, at) = device(path)?;
        match self.accounts.entry(dev) {
            std::collections::btree_map::Entry::Occupied(e) => Some(e.into_mut()),
            std::collections::btree_map::Entry::Vacant(e) => {
                let s = nix::sys::statvfs::statvfs(&at).ok()?;
                let free = s.blocks_available().saturating_mul(s.fragment_size());
                let balance = i128::from(free);
                Some(e.insert(Account {
                    at,
                    free,
                    block: s.fragment_size().max(512),
                    balance,
                    low: balance,
                    written: Vec::new(),
                }))
            }
        }
    }

    fn write(&mut self, path: &Path, n: u64, what: &'static str) {
        if let Some(a) = self.account(path) {
            a.write(n, what);
        }
    }

    fn give_back(&mut self, path: &Path, n: u64) {
        if let Some(a) = self.account(path) {
            a.give_back(n);
        }
    }
}

/// Allocated bytes of `path` now (0 when absent).
fn allocated(path: &Path) -> u64 {
    std::fs::symlink_metadata(path).map_or(0, |m| m.blocks().saturating_mul(512))
}

/// Refuse the run before it writes anything when a filesystem it writes to would run out of
/// space at some step: `plan_record` is the journal's first line, `run_dir` where the journal
/// goes, `quarantine_dir` where moved files, backups and tails go.
pub fn check_budget(
    plan: &ActionPlan,
    plan_record: u64,
    run_dir: &Path,
    quarantine_dir: &Path,
    purge: bool,
) -> Result<(), ActionError> {
    let mut b = Budget {
        accounts: BTreeMap::new(),
    };
    let staged: u64 = (plan.steps.iter())
        .map(|s| match s {
            Step::WriteFile { new_len, .. } => *new_len,
            _ => 0,
        })
        .sum();
    let records = RECORD_BYTES.saturating_mul(plan.steps.len() as u64 * 4 + 2);
    b.write(run_dir, plan_record.saturating_add(records), "the journal");
    if staged > 0 {
        b.write(run_dir, staged, "staged contents");
    }
    for step in &plan.steps {
        match step {
            Step::WriteFile {
                path,
                new_len,
                old_len,
                ..
            } => {
                if old_len.is_some() && !purge {
                    b.write(quarantine_dir, allocated(path), "backups");
                }
                b.write(path, *new_len, "rewritten files");
                b.give_back(path, allocated(path));
            }
            Step::Truncate {
                path,
                from_len,
                to_len,
                ..
            } => {
                let cut = from_len.saturating_sub(*to_len);
                if !purge {
                    b.write(quarantine_dir, cut, "cut tails");
                }
                b.give_back(path, cut.saturating_sub(cut % 4096));
            }
            Step::Quarantine { path, .. } => {
                let n = allocated(path);
                if purge {
                    b.give_back(path, n);
                } else if !same_filesystem(quarantine_dir_or_parent(quarantine_dir), path) {
                    b.write(quarantine_dir, n, "copies of moved files");
                    b.give_back(path, n);
                }
            }
            Step::RemoveDir { .. } => {}
        }
    }
    let short: Vec<&Account> = (b.accounts.values()).filter(|a| a.low < 0).collect();
    let Some(a) = short.first() else {
        return Ok(());
    };
    Err(ActionError::Refused(format!(
        "not enough space to start: the run needs {} more byte(s) on the filesystem of `{}` \
         ({} free) for {}; nothing was written. Give --journal DIR (and --quarantine DIR) on \
         another filesystem{}",
        a.low.unsigned_abs(),
        path_text(&a.at),
        a.free,
        a.written.join(", "),
        if purge {
            ""
        } else {
            ", or add --purge (nothing kept to undo)"
        }
    )))
}

/// The quarantine dir, or its nearest existing ancestor (it is created by the run).
fn quarantine_dir_or_parent(dir: &Path) -> &Path {
    let mut p = dir;
    while !p.exists() {
        match p.parent() {
            Some(up) => p = up,
            None => break,
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_round_up_and_a_low_is_kept() {
        let mut a = Account {
            free: 8192,
            block: 4096,
            balance: 8192,
            low: 8192,
            ..Account::default()
        };
        a.write(1, "x");
        a.write(4097, "y");
        assert_eq!((a.balance, a.low), (-4096, -4096));
        a.give_back(8192);
        assert_eq!((a.balance, a.low), (4096, -4096));
        a.give_back(0);
        assert_eq!(a.balance, 4096);
    }

    #[test]
    fn a_small_plan_fits_on_a_disk_with_room() {
        let d = tempfile::tempdir().unwrap();
        let plan = ActionPlan {
            log_dir: d.path().to_path_buf(),
            ..ActionPlan::default()
        };
        assert!(check_budget(&plan, 100, &d.path().join("j"), &d.path().join("q"), false).is_ok());
    }
}
