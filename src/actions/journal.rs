//! The run journal: each step is recorded before it is taken and after it is done, so that
//! `logclean resume` finishes and `logclean undo` rolls back a run that was killed or
//! interrupted.
//!
//! Layout: `<root>/<run id>/journal.jsonl` (one JSON record a line, each appended and fsynced),
//! `<root>/<run id>/staged/<step>` (the new bytes of every `WriteFile` step, written before the
//! first step so a resumed run writes exactly what was planned) and the run's quarantine dir
//! (`<run>/quarantine`, or `<--quarantine DIR>/<run id>`). The default root is
//! `<parent of the log dir>/.logclean-journal/<log dir name>`: never inside the log dir, where
//! the broker would take a dir for a partition.
//!
//! Records: `plan` (the plan, the quarantine dir, `purge`), then `begin`/`done` per step, then
//! `complete`; an undo adds `undo_begin`/`undone` per step (newest first) and `undo_complete`.
//! A torn last line (the process died while appending it) is ignored.
//!
//! Steps of different partition dirs run in parallel on the caller's rayon pool (`--jobs`),
//! each dir's steps in plan order, steps on the log dir's own files (root checkpoints) alone
//! and in plan order; records are appended one at a time, so with several threads the
//! `begin`/`done` records of different dirs interleave. `resume` and `undo` read them as before:
//! a begun step not done is redone (steps are idempotent) or undone, newest first per index,
//! which within a dir is the order they were taken.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::fsutil::{failpoint, Fs};
use super::guard::{check_log_dir, CheckedLogDir};
use super::plan::{apply_step, undo_step, ActionPlan, Step, StepContext};
use super::quarantine::Quarantine;
use super::signals::interrupt_pending;
use super::ActionError;
use crate::model::names::path_text;

/// One journal line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "record", rename_all = "snake_case")]
pub enum Record {
    /// The run's plan; always the first line.
    Plan {
        /// The plan (file contents are in `staged/`).
        plan: ActionPlan,
        /// The run's quarantine dir.
        #[serde(with = "crate::model::names::path_serde")]
        quarantine: PathBuf,
        /// Remove instead of quarantining.
        purge: bool,
    },
    /// Step `step` is about to be taken.
    Begin {
        /// Its index.
        step: usize,
    },
    /// Step `step` is done.
    Done {
        /// Its index.
        step: usize,
    },
    /// Every step is done.
    Complete,
    /// Undoing step `step` begins.
    UndoBegin {
        /// Its index.
        step: usize,
    },
    /// Step `step` is undone.
    Undone {
        /// Its index.
        step: usize,
    },
    /// Every started step is undone.
    UndoComplete,
}

/// Where journals and quarantine go.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// `--journal DIR`: the journal root (default: next to the log dir, see module docs).
    pub journal_root: Option<PathBuf>,
    /// `--quarantine DIR`.
    pub quarantine_root: Option<PathBuf>,
    /// `--purge`: remove files instead of quarantining them.
    pub purge: bool,
}

/// The default journal root of a log dir.
pub fn default_journal_root(log_dir: &Path) -> PathBuf {
    let name = log_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "root".to_string());
    super::fsutil::parent_dir(log_dir)
        .join(".logclean-journal")
        .join(name)
}

fn root_of(log_dir: &Path, opts: &RunOptions) -> PathBuf {
    opts.journal_root
        .clone()
        .unwrap_or_else(|| default_journal_root(log_dir))
}

/// A journal read back.
#[derive(Debug, Clone)]
pub struct Journal {
    /// The run dir.
    pub run_dir: PathBuf,
    /// The plan, with `WriteFile` bytes loaded from `staged/`.
    pub plan: ActionPlan,
    /// The quarantine dir.
    pub quarantine: PathBuf,
    /// Whether the run purges.
    pub purge: bool,
    /// Every record after the plan.
    pub records: Vec<Record>,
}

impl Journal {
    /// The journal file.
    pub fn file(&self) -> PathBuf {
        self.run_dir.join("journal.jsonl")
    }

    fn has(&self, r: &Record) -> bool {
        self.records.contains(r)
    }

    /// Whether every step was done.
    pub fn complete(&self) -> bool {
        self.has(&Record::Complete)
    }

    /// Whether the run was rolled back.
    pub fn undone(&self) -> bool {
        self.has(&Record::UndoComplete)
    }

    /// Whether an undo was started.
    pub fn undo_started(&self) -> bool {
        self.records
            .iter()
            .any(|r| matches!(r, Record::UndoBegin { .. } | Record::Undone { .. }))
    }

    /// Whether neither finished nor rolled back.
    pub fn pending(&self) -> bool {
        !self.complete() && !self.undone()
    }

    /// Steps recorded as done.
    pub fn done_count(&self) -> usize {
        (0..self.plan.steps.len())
            .filter(|i| self.has(&Record::Done { step: *i }))
            .count()
    }
}

/// Read the journal of the run in `run_dir`.
pub fn read_journal(run_dir: &Path) -> Result<Journal, ActionError> {
    let file = run_dir.join("journal.jsonl");
    let bad = |message: String| ActionError::Journal {
        path: file.clone(),
        message,
    };
    let text = fs::read_to_string(&file).map_err(|e| ActionError::io(&file, e))?;
    let lines: Vec<&str> = text.lines().collect();
    let mut records = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        match serde_json::from_str::<Record>(line) {
            Ok(r) => records.push(r),
            // A torn last line: the process died while appending it.
            Err(_) if i + 1 == lines.len() && !text.ends_with('\n') => {}
            Err(e) => return Err(bad(format!("line {}: {e}", i + 1))),
        }
    }
    let mut records = records.into_iter();
    let Some(Record::Plan {
        mut plan,
        quarantine,
        purge,
    }) = records.next()
    else {
        return Err(bad("does not start with a plan record".to_string()));
    };
    for (i, step) in plan.steps.iter_mut().enumerate() {
        if let Step::WriteFile { bytes, new_len, .. } = step {
            // A finished run removes its staged files; `resume` checks they are there.
            let staged = run_dir.join("staged").join(i.to_string());
            if let Ok(b) = fs::read(&staged) {
                if b.len() as u64 != *new_len {
                    return Err(bad(format!(
                        "staged file {} has the wrong length",
                        path_text(&staged)
                    )));
                }
                *bytes = b;
            }
        }
    }
    Ok(Journal {
        run_dir: run_dir.to_path_buf(),
        plan,
        quarantine,
        purge,
        records: records.collect(),
    })
}

/// The runs under `root`, oldest first (unreadable ones are skipped).
pub fn list_runs(root: &Path) -> Vec<Journal> {
    let Ok(entries) = fs::read_dir(root) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_none_or(|x| x != "tmp") && p.join("journal.jsonl").is_file())
        .collect();
    dirs.sort();
    dirs.iter().filter_map(|d| read_journal(d).ok()).collect()
}

/// Whether `journal` exists, is not empty and does not end with a newline.
fn ends_torn(journal: &Path) -> bool {
    use std::os::unix::fs::FileExt;
    let Ok(f) = fs::File::open(journal) else {
        return false;
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let mut last = [b'\n'];
    len > 0 && f.read_exact_at(&mut last, len - 1).is_ok() && last != [b'\n']
}

fn append(fs: &dyn Fs, journal: &Path, record: &Record) -> Result<(), ActionError> {
    let mut line = serde_json::to_string(record).map_err(|e| ActionError::Journal {
        path: journal.to_path_buf(),
        message: e.to_string(),
    })?;
    line.push('\n');
    // A torn last record (the process died while appending it) is cut first, so the new record
    // starts on its own line. Only the last byte is read unless it is torn: the journal of a
    // big run is megabytes, and it is appended to twice a step.
    if ends_torn(journal) {
        if let Ok(existing) = fs::read(journal) {
            let keep = existing
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |i| i + 1);
            fs.truncate(journal, keep as u64)
                .map_err(|e| ActionError::io(journal, e))?;
        }
    }
    fs.append_synced(journal, line.as_bytes())
        .map_err(|e| ActionError::io(journal, e))
}

/// What a run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunReport {
    /// The journal file.
    pub journal: PathBuf,
    /// The quarantine dir (removed with --purge).
    pub quarantine: PathBuf,
    /// Steps taken by this invocation.
    pub steps_taken: usize,
}

/// The refusals of [`execute`] that do not need the files to have been planned a moment ago:
/// the log dir's guards, every step's target, no pending run. A dry run runs them too, so it
/// never promises what `--execute` then refuses.
pub fn preflight(plan: &ActionPlan, opts: &RunOptions) -> Result<CheckedLogDir, ActionError> {
    let log_dir = check_log_dir(&plan.log_dir)?;
    for step in &plan.steps {
        super::plan::check_target(&log_dir, step)?;
    }
    let root = root_of(&log_dir.path, opts);
    if let Some(p) = list_runs(&root).into_iter().find(Journal::pending) {
        return Err(ActionError::Refused(format!(
            "an interrupted run is pending ({}): finish it with `logclean resume` or roll it back \
             with `logclean undo` first",
            path_text(&p.file())
        )));
    }
    let run_dir = root.join("run");
    let quarantine_dir = match &opts.quarantine_root {
        Some(q) => q.join("run"),
        None => run_dir.join("quarantine"),
    };
    let record = Record::Plan {
        plan: plan.clone(),
        quarantine: quarantine_dir.clone(),
        purge: opts.purge,
    };
    let record_len = serde_json::to_string(&record).map_or(0, |t| t.len() as u64);
    super::budget::check_budget(plan, record_len, &run_dir, &quarantine_dir, opts.purge)?;
    Ok(log_dir)
}

/// Where the bytes `plan` moves or cuts go with `opts`, and so whether the run frees them.
pub fn space_release(log_dir: &Path, opts: &RunOptions) -> super::plan::SpaceRelease {
    use super::plan::SpaceRelease;
    if opts.purge {
        return SpaceRelease::Removed;
    }
    let quarantine = opts
        .quarantine_root
        .clone()
        .unwrap_or_else(|| root_of(log_dir, opts));
    let mut at = quarantine.as_path();
    while !at.exists() {
        match at.parent() {
            Some(up) => at = up,
            None => break,
        }
    }
    if super::plan::same_filesystem(at, &log_dir.join("x")) {
        SpaceRelease::QuarantineSameFilesystem
    } else {
        SpaceRelease::QuarantineElsewhere
    }
}

/// Apply `plan` through a new journal. Refuses when the log dir fails the guards, a file changed
/// since planning, or an earlier run of this log dir is still pending.
pub fn execute(
    plan: &ActionPlan,
    opts: &RunOptions,
    fs: &dyn Fs,
) -> Result<RunReport, ActionError> {
    let log_dir = preflight(plan, opts)?;
    for stamp in &plan.stamps {
        stamp.verify()?;
    }
    let root = root_of(&log_dir.path, opts);
    let run_id = format!(
        "{:013}-{}",
        chrono::Utc::now().timestamp_millis(),
        std::process::id()
    );
    // The run is prepared in `<id>.tmp` and renamed into place: a run killed while staging
    // leaves only an ignored `.tmp` dir and an unchanged log dir.
    let run_dir = root.join(&run_id);
    let tmp_dir = root.join(format!("{run_id}.tmp"));
    let quarantine_dir = match &opts.quarantine_root {
        Some(q) => q.join(&run_id),
        None => run_dir.join("quarantine"),
    };
    let staged = stage_run(plan, opts, fs, (&tmp_dir, &run_dir, &quarantine_dir));
    if let Err(e) = staged {
        // Nothing of the log dir was touched: leave nothing behind (a full disk fails here, and
        // a half-staged run must not block the next one).
        discard_run(&tmp_dir, opts, &quarantine_dir);
        return Err(e);
    }
    let journal = read_journal(&run_dir)?;
    let result = run_steps(&journal, &log_dir, fs);
    if result.is_err() && !begun(&run_dir) {
        // No step began (its `begin` record could not be written, on a full disk): the run
        // changed nothing and is not pending, so it is removed rather than left to block the
        // next run.
        discard_run(&run_dir, opts, &quarantine_dir);
    }
    result
}

/// Whether the run in `run_dir` recorded any step as begun.
fn begun(run_dir: &Path) -> bool {
    read_journal(run_dir).map_or(true, |j| {
        j.records.iter().any(|r| matches!(r, Record::Begin { .. }))
    })
}

/// Remove a run that changed nothing: its dir, a `--quarantine` dir of its own, and the
/// default journal root's dirs when they are left empty.
fn discard_run(dir: &Path, opts: &RunOptions, quarantine_dir: &Path) {
    let _ = fs::remove_dir_all(dir);
    if opts.quarantine_root.is_some() {
        let _ = fs::remove_dir(quarantine_dir);
    }
    if opts.journal_root.is_none() {
        // `<parent>/.logclean-journal/<log dir name>`: removed only when empty.
        let root = dir.parent();
        if let Some(root) = root {
            let _ = fs::remove_dir(root);
            if let Some(top) = root.parent() {
                let _ = fs::remove_dir(top);
            }
        }
    }
}

/// Prepare a run in `tmp_dir` (staged contents, the plan record) and rename it to `run_dir`.
fn stage_run(
    plan: &ActionPlan,
    opts: &RunOptions,
    fs: &dyn Fs,
    (tmp_dir, run_dir, quarantine_dir): (&Path, &Path, &Path),
) -> Result<(), ActionError> {
    let mkdir = |d: &Path| fs.create_dir_all(d).map_err(|e| ActionError::io(d, e));
    mkdir(&tmp_dir.join("staged"))?;
    if opts.quarantine_root.is_none() {
        mkdir(&tmp_dir.join("quarantine"))?;
    } else {
        mkdir(quarantine_dir)?;
    }
    for (i, step) in plan.steps.iter().enumerate() {
        if let Step::WriteFile { bytes, .. } = step {
            let staged = tmp_dir.join("staged").join(i.to_string());
            fs.write_atomic(&staged, bytes)
                .map_err(|e| ActionError::io(&staged, e))?;
        }
    }
    append(
        fs,
        &tmp_dir.join("journal.jsonl"),
        &Record::Plan {
            plan: plan.clone(),
            quarantine: quarantine_dir.to_path_buf(),
            purge: opts.purge,
        },
    )?;
    fs.rename(tmp_dir, run_dir)
        .map_err(|e| ActionError::io(tmp_dir, e))
}

/// The latest pending run of `log_dir` (or the one in `run_dir`).
fn find_run(
    log_dir: &CheckedLogDir,
    opts: &RunOptions,
    run_dir: Option<&Path>,
    want: fn(&Journal) -> bool,
    what: &str,
) -> Result<Journal, ActionError> {
    let journal = match run_dir {
        Some(d) => read_journal(d)?,
        None => list_runs(&root_of(&log_dir.path, opts))
            .into_iter()
            .rev()
            .find(want)
            .ok_or_else(|| {
                ActionError::Refused(format!(
                    "no run to {what} for `{}` under `{}`",
                    path_text(&log_dir.path),
                    path_text(&root_of(&log_dir.path, opts))
                ))
            })?,
    };
    if journal.plan.log_dir != log_dir.path {
        return Err(ActionError::Refused(format!(
            "the journal {} is for `{}`, not `{}`",
            path_text(&journal.file()),
            path_text(&journal.plan.log_dir),
            path_text(&log_dir.path)
        )));
    }
    Ok(journal)
}

/// Finish the latest pending run of `log_dir` (or the run in `run_dir`).
pub fn resume(
    log_dir: &Path,
    opts: &RunOptions,
    run_dir: Option<&Path>,
    fs: &dyn Fs,
) -> Result<(Journal, RunReport), ActionError> {
    let checked = check_log_dir(log_dir)?;
    let journal = find_run(&checked, opts, run_dir, Journal::pending, "resume")?;
    if journal.undo_started() {
        return Err(ActionError::Refused(format!(
            "an undo of {} was started: finish it with `logclean undo`",
            path_text(&journal.file())
        )));
    }
    if journal.complete() {
        return Err(ActionError::Refused(format!(
            "the run {} is already complete",
            path_text(&journal.file())
        )));
    }
    for (i, step) in journal.plan.steps.iter().enumerate() {
        if let Step::WriteFile { bytes, new_len, .. } = step {
            if !journal.has(&Record::Done { step: i }) && bytes.len() as u64 != *new_len {
                return Err(ActionError::Journal {
                    path: journal.file(),
                    message: format!("the staged content of step {i} is missing"),
                });
            }
        }
    }
    remove_stale_temps(&journal, fs)?;
    let report = run_steps(&journal, &checked, fs)?;
    Ok((journal, report))
}

/// Roll back the latest run of `log_dir` that is not rolled back yet (finished or not), or the
/// run in `run_dir`: undo every started step, newest first.
pub fn undo(
    log_dir: &Path,
    opts: &RunOptions,
    run_dir: Option<&Path>,
    fs: &dyn Fs,
) -> Result<(Journal, RunReport), ActionError> {
    let checked = check_log_dir(log_dir)?;
    let journal = find_run(&checked, opts, run_dir, |j| !j.undone(), "undo")?;
    if journal.undone() {
        return Err(ActionError::Refused(format!(
            "the run {} is already rolled back",
            path_text(&journal.file())
        )));
    }
    let quarantine = Quarantine {
        dir: journal.quarantine.clone(),
    };
    if !quarantine.dir.is_dir() {
        return Err(ActionError::Refused(format!(
            "the run {} kept no quarantine (--purge): it cannot be undone",
            path_text(&journal.file())
        )));
    }
    let cx = StepContext {
        fs,
        log_dir: &checked,
        quarantine: &quarantine,
        purge: journal.purge,
    };
    remove_stale_temps(&journal, fs)?;
    let file = journal.file();
    let mut taken = 0;
    for (i, step) in journal.plan.steps.iter().enumerate().rev() {
        let started = journal.has(&Record::Begin { step: i });
        if !started || journal.has(&Record::Undone { step: i }) {
            continue;
        }
        if interrupt_pending() {
            return Err(ActionError::Interrupted {
                done: taken,
                total: journal.plan.steps.len(),
                journal: file,
            });
        }
        append(fs, &file, &Record::UndoBegin { step: i })?;
        undo_step(step, i, &cx)?;
        append(fs, &file, &Record::Undone { step: i })?;
        taken += 1;
    }
    append(fs, &file, &Record::UndoComplete)?;
    let report = RunReport {
        journal: file,
        quarantine: quarantine.dir,
        steps_taken: taken,
    };
    Ok((journal, report))
}

/// Remove the temp files a killed run's `write_atomic` left in the dirs the plan writes
/// (`.<name>.logclean-<pid>.tmp`; the broker ignores them, but they are ours to clean).
fn remove_stale_temps(journal: &Journal, fs: &dyn Fs) -> Result<(), ActionError> {
    let mut dirs: Vec<PathBuf> = journal
        .plan
        .steps
        .iter()
        .map(|s| super::fsutil::parent_dir(s.path()))
        .collect();
    dirs.push(journal.quarantine.clone());
    dirs.sort();
    dirs.dedup();
    for dir in dirs {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.filter_map(Result::ok) {
            let name = e.file_name().to_string_lossy().into_owned();
            if super::fsutil::is_temp_name(&name) {
                fs.remove(&e.path())
                    .map_err(|err| ActionError::io(&e.path(), err))?;
            }
        }
    }
    Ok(())
}

/// The steps of a run in the order they may be taken: runs of consecutive steps inside
/// partition dirs, split into lanes (one per dir, each in step order), which may run in parallel;
/// a step on a file of the log dir itself (a root checkpoint) is a barrier, taken alone after
/// everything before it and before everything after it.
fn phases(steps: &[Step], log_dir: &Path) -> Vec<Vec<Vec<usize>>> {
    let mut phases: Vec<Vec<Vec<usize>>> = Vec::new();
    let mut lanes: Vec<Vec<usize>> = Vec::new();
    let mut lane_of: std::collections::HashMap<PathBuf, usize> = std::collections::HashMap::new();
    for (i, step) in steps.iter().enumerate() {
        let dir = super::fsutil::parent_dir(step.path());
        if dir == log_dir {
            if !lanes.is_empty() {
                phases.push(std::mem::take(&mut lanes));
                lane_of.clear();
            }
            phases.push(vec![vec![i]]);
            continue;
        }
        let next = lanes.len();
        let at = *lane_of.entry(dir).or_insert(next);
        match lanes.get_mut(at) {
            Some(l) => l.push(i),
            None => lanes.push(vec![i]),
        }
    }
    if !lanes.is_empty() {
        phases.push(lanes);
    }
    phases
}

/// What the lanes of one run share: the journal (appends serialized), the step context, the
/// count of steps taken, and the failures, the first of which stops every lane.
struct Runner<'a> {
    journal: &'a Journal,
    cx: StepContext<'a>,
    file: PathBuf,
    total: usize,
    writer: Mutex<()>,
    taken: AtomicUsize,
    stop: AtomicBool,
    /// Every failed step's index and error; the lowest index is returned.
    failed: Mutex<Vec<(usize, ActionError)>>,
}

impl Runner<'_> {
    fn record(&self, r: &Record) -> Result<(), ActionError> {
        let _held = self
            .writer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        append(self.cx.fs, &self.file, r)
    }

    /// Step `i`: `begin` recorded, the step applied, `done` recorded (with a failpoint on each
    /// side of the step), unless an interrupt is pending.
    fn take(&self, i: usize, step: &Step) -> Result<(), ActionError> {
        if interrupt_pending() {
            return Err(ActionError::Interrupted {
                done: 0,
                total: self.total,
                journal: self.file.clone(),
            });
        }
        self.record(&Record::Begin { step: i }).and_then(|()| {
            failpoint(&format!("journal::after_begin:{i}"));
            apply_step(step, i, &self.cx)?;
            failpoint(&format!("journal::before_done:{i}"));
            self.record(&Record::Done { step: i })
        })
    }

    /// One lane's steps in order, skipping those done; it stops at its own failure or
    /// another lane's.
    fn lane(&self, steps: &[usize]) {
        for &i in steps {
            if self.journal.has(&Record::Done { step: i }) {
                continue;
            }
            if self.stop.load(Ordering::SeqCst) {
                return;
            }
            let Some(step) = self.journal.plan.steps.get(i) else {
                continue;
            };
            match self.take(i, step) {
                Ok(()) => {
                    self.taken.fetch_add(1, Ordering::SeqCst);
                }
                Err(e) => {
                    self.stop.store(true, Ordering::SeqCst);
                    self.failed
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push((i, e));
                    return;
                }
            }
        }
    }

    /// After a phase: the failure of the lowest step wins; an interruption only when nothing
    /// failed.
    fn failure(&self) -> Option<ActionError> {
        let mut failed = self
            .failed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if failed.is_empty() {
            return None;
        }
        failed.sort_by_key(|(i, _)| *i);
        let error = failed
            .drain(..)
            .map(|(_, e)| e)
            .find(|e| !matches!(e, ActionError::Interrupted { .. }));
        Some(error.unwrap_or(ActionError::Interrupted {
            done: self.journal.done_count() + self.taken.load(Ordering::SeqCst),
            total: self.total,
            journal: self.file.clone(),
        }))
    }
}

/// Take every step not recorded as done. Steps of different partition dirs are independent and
/// run in parallel on the current rayon pool (the command's `--jobs`), each dir's steps in their
/// order; steps on the log dir's own files run alone, in plan order ([`phases`]). Journal
/// appends are serialized. `undo` needs no change: within a dir, index order is the order the
/// steps were taken, and steps of different dirs do not depend on each other.
fn run_steps(
    journal: &Journal,
    log_dir: &CheckedLogDir,
    fs: &dyn Fs,
) -> Result<RunReport, ActionError> {
    use rayon::prelude::*;

    let quarantine = Quarantine {
        dir: journal.quarantine.clone(),
    };
    let runner = Runner {
        journal,
        cx: StepContext {
            fs,
            log_dir,
            quarantine: &quarantine,
            purge: journal.purge,
        },
        file: journal.file(),
        total: journal.plan.steps.len(),
        writer: Mutex::new(()),
        taken: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
        failed: Mutex::new(Vec::new()),
    };
    for phase in phases(&journal.plan.steps, &log_dir.path) {
        match phase.as_slice() {
            [one] => runner.lane(one),
            lanes => lanes.par_iter().for_each(|l| runner.lane(l)),
        }
        if let Some(error) = runner.failure() {
            return Err(error);
        }
    }
    runner.record(&Record::Complete)?;
    let staged = journal.run_dir.join("staged");
    let _ = fs::remove_dir_all(&staged);
    if journal.purge {
        let _ = fs::remove_dir_all(&quarantine.dir);
    }
    let steps_taken = runner.taken.load(Ordering::SeqCst);
    Ok(RunReport {
        journal: runner.file,
        quarantine: quarantine.dir,
        steps_taken,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actions::fsutil::RealFs;

    fn log_dir(root: &Path) -> PathBuf {
        let d = root.join("logs-0");
        fs::create_dir_all(d.join("t-0")).unwrap();
        fs::write(d.join("meta.properties"), "version=1\n").unwrap();
        fs::write(d.join("t-0/a"), b"old").unwrap();
        fs::canonicalize(d).unwrap()
    }

    fn plan(dir: &Path) -> ActionPlan {
        ActionPlan {
            command: "test".into(),
            log_dir: dir.to_path_buf(),
            steps: vec![
                Step::WriteFile {
                    path: dir.join("t-0/a"),
                    bytes: b"new!".to_vec(),
                    new_len: 4,
                    old_len: Some(3),
                    why: "w".into(),
                },
                Step::Truncate {
                    path: dir.join("t-0/a"),
                    from_len: 4,
                    to_len: 2,
                    why: "t".into(),
                },
            ],
            ..ActionPlan::default()
        }
    }

    #[test]
    fn steps_of_different_dirs_share_a_phase_and_root_files_are_barriers() {
        let d = Path::new("/l");
        let q = |p: &str| Step::Quarantine {
            path: d.join(p),
            len: 0,
            why: String::new(),
        };
        let steps = [
            q("a-0/1"),
            q("b-0/1"),
            q("a-0/2"),
            q("ckpt"),
            q("b-0/2"),
            q("c-0/1"),
            q("ckpt2"),
        ];
        assert_eq!(
            phases(&steps, d),
            vec![
                vec![vec![0, 2], vec![1]],
                vec![vec![3]],
                vec![vec![4], vec![5]],
                vec![vec![6]]
            ]
        );
    }

    #[test]
    fn execute_then_undo_and_a_torn_last_line_is_ignored() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = log_dir(tmp.path());
        let p = plan(&dir);
        let report = execute(&p, &RunOptions::default(), &RealFs).unwrap();
        assert_eq!(report.steps_taken, 2);
        assert_eq!(fs::read(dir.join("t-0/a")).unwrap(), b"ne");
        // A torn append (the process died while writing a record) reads as absent.
        RealFs
            .append_synced(&report.journal, b"{\"record\":\"undo_be")
            .unwrap();
        let j = read_journal(report.journal.parent().unwrap()).unwrap();
        assert!(j.complete() && !j.pending() && !j.undo_started());
        let (_, undone) = undo(&dir, &RunOptions::default(), None, &RealFs).unwrap();
        assert_eq!(undone.steps_taken, 2);
        assert_eq!(fs::read(dir.join("t-0/a")).unwrap(), b"old");
        let j = read_journal(report.journal.parent().unwrap()).unwrap();
        assert!(j.undone(), "the torn line was cut before the undo records");
        assert!(undo(&dir, &RunOptions::default(), None, &RealFs).is_err());
    }
}
