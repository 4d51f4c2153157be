//! The documents and text of the mutating commands (`rebuild-index`, `roll`, `delete`, `resume`,
//! `undo`): their plans as dry-run or done text, their per-partition lines, and the JSON bodies
//! of the shared envelope. Every line goes through [`escape`]: paths, notes and reasons quote
//! names read from disk.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::actions::delete::DeleteReport;
use crate::actions::delete_run::{AssumedRefusal, Deletion};
use crate::actions::journal::{Journal, RunReport};
use crate::actions::plan::{ActionPlan, PlanSummary, SpaceRelease, Step};
use crate::actions::rebuild_index::{Comparison, SegmentReport};
use crate::actions::roll::RollReport;
use crate::actions::run::{LogDirRun, MutationRun};
use crate::config::provenance::AssumedValue;
use crate::model::names::path_text;
use crate::plan::PartitionPlan;
use crate::rules::groups::Loss;

use super::sanitize::{escape, escape_path};
use super::terminal::{fit_atoms, words};

/// A path of `plan` relative to its log dir, for display (as [`path_text`] writes it; not
/// escaped).
fn show(plan: &ActionPlan, path: &Path) -> String {
    path_text(path.strip_prefix(&plan.log_dir).unwrap_or(path))
}

/// A plan as text: notes, one line per step, and the summary. `executed` says whether the steps
/// were done ("wrote") or only planned ("would write").
pub fn plan_text(plan: &ActionPlan, executed: bool) -> String {
    plan_text_ending(
        plan,
        executed,
        "nothing changed (dry run); run again with --execute to apply",
    )
}

/// [`plan_text`] of a run that was refused: nothing changed, and `--execute` would not change
/// that (the refusal says what would).
pub fn refused_plan_text(plan: &ActionPlan) -> String {
    plan_text_ending(plan, false, "nothing changed (refused, see below)")
}

/// One step as text (not yet escaped).
fn step_line(plan: &ActionPlan, step: &Step, executed: bool) -> String {
    let verb = |would: &str, did: &str| {
        if executed {
            did.to_string()
        } else {
            format!("would {would}")
        }
    };
    match step {
        Step::WriteFile {
            path,
            new_len,
            old_len: Some(old),
            why,
            ..
        } => format!(
            "{} {} ({old} -> {new_len} bytes): {why}",
            verb("rewrite", "rewrote"),
            show(plan, path)
        ),
        Step::WriteFile {
            path, new_len, why, ..
        } => format!(
            "{} {} ({new_len} bytes): {why}",
            verb("create", "created"),
            show(plan, path)
        ),
        Step::Truncate {
            path,
            from_len,
            to_len,
            why,
        } => format!(
            "{} {} from {from_len} to {to_len} bytes (drops {}): {why}",
            verb("truncate", "truncated"),
            show(plan, path),
            from_len.saturating_sub(*to_len)
        ),
        Step::Quarantine { path, len, why } if purges(plan) => format!(
            "{} {} ({len} bytes): {why}",
            verb("remove", "removed"),
            show(plan, path)
        ),
        Step::Quarantine { path, len, why } => format!(
            "{} {} ({len} bytes) to quarantine: {why}",
            verb("move", "moved"),
            show(plan, path)
        ),
        Step::RemoveDir { path, why } => format!(
            "{} the emptied dir {}: {why}",
            verb("remove", "removed"),
            show(plan, path)
        ),
    }
}

/// Whether `plan` removes what it would otherwise move to the quarantine (`--purge`).
fn purges(plan: &ActionPlan) -> bool {
    plan.release == Some(SpaceRelease::Removed)
}

/// What a plan does to the space used, never a negative "freed": `48 bytes freed`, or
/// `48 bytes more in use (files written)` when it writes more than it removes.
fn net_bytes(freed: i64) -> String {
    match freed {
        n if n >= 0 => format!("{n} bytes freed"),
        n => format!("{} bytes more in use (files written)", n.unsigned_abs()),
    }
}

fn plan_text_ending(plan: &ActionPlan, executed: bool, not_executed: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} in {}", plan.command, escape_path(&plan.log_dir));
    for n in &plan.notes {
        let _ = writeln!(out, "  note: {}", escape(n));
    }
    for step in &plan.steps {
        let _ = writeln!(out, "  {}", escape(&step_line(plan, step, executed)));
    }
    let s = plan.summary();
    let _ = writeln!(
        out,
        "{}: {} file(s) written, {} truncated ({} bytes cut), {} {}; {}",
        if executed { "done" } else { "plan" },
        s.files_written,
        s.files_truncated,
        s.bytes_truncated,
        s.files_quarantined,
        if purges(plan) {
            "removed"
        } else {
            "moved to quarantine"
        },
        net_bytes(s.bytes_freed)
    );
    let moves = s.files_quarantined + s.files_truncated > 0;
    if let Some(release) = plan.release.filter(|_| moves) {
        let _ = writeln!(out, "{}", release.text());
    }
    if !executed {
        let _ = writeln!(out, "{not_executed}");
    }
    out
}

/// One log dir's part of a mutation's document.
#[derive(Debug, Serialize)]
pub struct LogDirDoc<'a, R> {
    /// The plan (steps, notes).
    pub plan: &'a ActionPlan,
    /// Its totals.
    pub summary: PlanSummary,
    /// Per segment or partition.
    pub reports: &'a [R],
    /// The journal of the applied run.
    #[serde(with = "crate::model::names::opt_path_serde")]
    pub journal: Option<PathBuf>,
}

/// The keys a mutating command (`rebuild-index`, `roll`) adds to the shared envelope.
#[derive(Debug, Serialize)]
pub struct MutationBody<'a, R> {
    /// Whether the plans were applied.
    pub executed: bool,
    /// Per log dir.
    pub log_dirs: Vec<LogDirDoc<'a, R>>,
}

impl<'a, R> MutationBody<'a, R> {
    /// The document of `run`.
    pub fn new(run: &'a MutationRun<R>) -> Self {
        let log_dir = |d: &'a LogDirRun<R>| LogDirDoc {
            plan: &d.plan,
            summary: d.plan.summary(),
            reports: &d.reports,
            journal: d.journal.clone(),
        };
        MutationBody {
            executed: run.executed,
            log_dirs: run.log_dirs.iter().map(log_dir).collect(),
        }
    }

    /// Every report of every log dir, in order.
    pub fn reports(&self) -> impl Iterator<Item = &'a R> + '_ {
        self.log_dirs.iter().flat_map(|d| d.reports)
    }

    /// The plan of each log dir as text, with its journal.
    pub fn write_plans(&self, out: &mut dyn Write) -> io::Result<()> {
        for d in &self.log_dirs {
            write!(out, "{}", plan_text(d.plan, self.executed))?;
            if let Some(j) = &d.journal {
                writeln!(out, "journal: {}", escape_path(j))?;
            }
        }
        Ok(())
    }
}

/// `rebuild-index` for people: the plans (not with `--verify-only`, whose comparisons are the
/// report), then one line per segment with each index's verdict.
pub fn write_rebuild_index(
    body: &MutationBody<'_, SegmentReport>,
    verify_only: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    if !verify_only {
        body.write_plans(out)?;
    }
    body.reports()
        .try_for_each(|r| writeln!(out, "{}", segment_line(r)))
}

/// An index comparison's verdict, as its JSON tag says it.
fn verdict(c: &Option<Comparison>) -> String {
    c.as_ref().map_or("-".to_string(), |c| {
        serde_json::to_value(c)
            .ok()
            .and_then(|v| {
                v.get("verdict")
                    .and_then(|s| s.as_str())
                    .map(str::to_string)
            })
            .unwrap_or_default()
    })
}

fn segment_line(r: &SegmentReport) -> String {
    let mut line = format!(
        "  {} ({} batches): index {}, timeindex {}, txnindex {}",
        escape_path(&r.log),
        r.batches,
        verdict(&r.index),
        verdict(&r.timeindex),
        verdict(&r.txnindex)
    );
    for c in [&r.index, &r.timeindex, &r.txnindex].into_iter().flatten() {
        if let Comparison::Differs { detail } = c {
            line.push_str(&format!("\n    differs: {}", escape(detail)));
        }
    }
    if let Some(t) = &r.invalid_tail {
        line.push_str(&format!(
            "\n    invalid tail at byte {} ({} bytes): {}",
            t.position,
            t.dropped_bytes,
            escape(&t.reason)
        ));
    }
    for extra in [&r.tail_action, &r.fatal].into_iter().flatten() {
        line.push_str(&format!("\n    {}", escape(extra)));
    }
    line
}

/// `roll` for people: the plans, then one line per partition with what became of it.
pub fn write_roll(body: &MutationBody<'_, RollReport>, out: &mut dyn Write) -> io::Result<()> {
    body.write_plans(out)?;
    body.reports().try_for_each(|r| {
        writeln!(
            out,
            "  {}: {}",
            escape_path(&r.partition),
            escape(&r.outcome)
        )
    })
}

/// A body whose keys are written sorted at every level (`delete`, `resume` and `undo` published
/// their documents so in schema 2: they were first built as JSON values, whose maps sort).
#[derive(Debug)]
pub struct SortedKeys<T>(pub T);

impl<T: Serialize> Serialize for SortedKeys<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serde_json::to_value(&self.0)
            .map_err(serde::ser::Error::custom)?
            .serialize(s)
    }
}

/// One log dir's part of `delete`'s document.
#[derive(Debug, Serialize)]
pub struct DeleteLogDirDoc<'a> {
    /// The plan (steps, notes).
    pub plan: &'a ActionPlan,
    /// Its totals.
    pub summary: PlanSummary,
    /// Per partition.
    pub partitions: &'a [DeleteReport],
    /// The journal of the applied run.
    #[serde(with = "crate::model::names::opt_path_serde")]
    pub journal: Option<PathBuf>,
}

impl<'a> DeleteLogDirDoc<'a> {
    /// The document of one log dir's run.
    pub fn new(d: &'a LogDirRun<DeleteReport>) -> Self {
        DeleteLogDirDoc {
            plan: &d.plan,
            summary: d.plan.summary(),
            partitions: &d.reports,
            journal: d.journal.clone(),
        }
    }
}

/// A consumer group losing data, for `delete`'s document.
#[derive(Debug, Serialize)]
pub struct LossDoc {
    /// Group id.
    pub group: String,
    /// The data partition's topic.
    pub topic: String,
    /// Its number.
    pub partition: i32,
    /// The committed offset.
    pub committed: i64,
    /// The new log start a consumer resumes from.
    pub reset_to: i64,
    /// Records between the two.
    pub skipped: i64,
}

impl From<&Loss> for LossDoc {
    fn from(l: &Loss) -> Self {
        LossDoc {
            group: l.group.clone(),
            topic: l.tp.0.clone(),
            partition: l.tp.1,
            committed: l.committed,
            reset_to: l.reset_to,
            skipped: l.skipped,
        }
    }
}

/// A partition `delete` leaves alone because its deletions rest on assumed config values.
#[derive(Debug, Serialize)]
pub struct AssumedRefusalDoc {
    /// Its log dir.
    #[serde(with = "crate::model::names::path_serde")]
    pub log_dir: PathBuf,
    /// The partition dir's name.
    pub dir: String,
    /// Topic.
    pub topic: String,
    /// Partition number.
    pub partition: i32,
    /// Segments the plan would delete.
    pub segments: u64,
    /// Their bytes.
    pub bytes: u64,
    /// The assumed values, `key=value (source)`.
    pub assumed_keys: Vec<String>,
    /// A tiered partition whose upload state is not known: its local deletions wait for
    /// uploads nobody here can see (no acknowledgement lifts this).
    pub upload_state_unknown: bool,
}

impl AssumedRefusalDoc {
    /// The refusal of `p`'s deletions, resting on `assumed` values or an unknown upload state.
    pub fn new(p: &PartitionPlan, assumed: &[AssumedValue], upload_state_unknown: bool) -> Self {
        let freed = p.freed();
        AssumedRefusalDoc {
            log_dir: p.log_dir.clone(),
            dir: p.dir_name.clone(),
            topic: p.topic.clone(),
            partition: p.partition,
            segments: freed.segments,
            bytes: freed.bytes.get(),
            assumed_keys: (assumed.iter())
                .map(|a| format!("{}={} ({})", a.key, a.value, a.source))
                .collect(),
            upload_state_unknown,
        }
    }

    /// The refusal as one line (not yet fitted).
    fn line(&self) -> String {
        let mut on: Vec<String> = self.assumed_keys.clone();
        if self.upload_state_unknown {
            on.push("an upload state not read (tiered: closed segments taken as uploaded)".into());
        }
        // `dir` is already name_text: escaped, not re-encoded as a path.
        format!(
            "refused: {}/{}: would delete {} segment(s), {} bytes, on assumed {}",
            escape_path(&self.log_dir),
            escape(&self.dir),
            self.segments,
            self.bytes,
            escape(&on.join(", "))
        )
    }
}

/// The keys `delete` adds to the shared envelope.
#[derive(Debug, Serialize)]
pub struct DeleteBody<'a> {
    /// Whether the plans were applied.
    pub executed: bool,
    /// Whether the run was refused (nothing changed).
    pub refused: bool,
    /// Per log dir.
    pub log_dirs: Vec<DeleteLogDirDoc<'a>>,
    /// The consumer groups whose committed offsets fall below a new log start.
    pub groups_losing_data: Vec<LossDoc>,
    /// The partitions left alone for assumed configs.
    pub refused_assumed_configs: Vec<AssumedRefusalDoc>,
}

impl<'a> DeleteBody<'a> {
    /// The document of a deletion.
    pub fn new(d: &'a Deletion) -> Self {
        let refusal = |r: &AssumedRefusal| {
            (d.partition(r)).map(|p| AssumedRefusalDoc::new(p, &r.assumed, r.upload_state_unknown))
        };
        DeleteBody {
            executed: d.executed,
            refused: d.refused(),
            log_dirs: d.log_dirs.iter().map(DeleteLogDirDoc::new).collect(),
            groups_losing_data: d.lost.iter().map(LossDoc::from).collect(),
            refused_assumed_configs: d.refused_assumed.iter().filter_map(refusal).collect(),
        }
    }
}

/// `delete` for people: each log dir's plan and the partitions it deletes in, the refusals for
/// assumed configs (fitted to `width`), and the groups that lose data.
pub fn write_delete(body: &DeleteBody<'_>, width: usize, out: &mut dyn Write) -> io::Result<()> {
    for d in &body.log_dirs {
        let text = if body.refused {
            refused_plan_text(d.plan)
        } else {
            plan_text(d.plan, body.executed)
        };
        write!(out, "{text}")?;
        for r in (d.partitions.iter()).filter(|r| !r.segments.is_empty() || r.refused()) {
            writeln!(out, "  {}: {}", escape(&r.partition), escape(&r.outcome))?;
        }
        if let Some(j) = &d.journal {
            writeln!(out, "journal: {}", escape_path(j))?;
        }
    }
    for r in &body.refused_assumed_configs {
        for l in fit_atoms(&words(&r.line()), width, " ", "", "    ") {
            writeln!(out, "{l}")?;
        }
    }
    for l in &body.groups_losing_data {
        writeln!(
            out,
            "group {} loses data on {}-{}: committed {}, log start {} ({} records skipped)",
            escape(&l.group),
            escape(&l.topic),
            l.partition,
            l.committed,
            l.reset_to,
            l.skipped
        )?;
    }
    Ok(())
}

/// The keys `resume` and `undo` add to the shared envelope.
#[derive(Debug, Serialize)]
pub struct JournalBody<'a> {
    /// The journal file.
    #[serde(with = "crate::model::names::path_serde")]
    pub journal: PathBuf,
    /// The quarantine dir.
    #[serde(with = "crate::model::names::path_serde")]
    pub quarantine: PathBuf,
    /// Steps taken by this invocation.
    pub steps_taken: usize,
    /// The run's plan.
    pub plan: &'a ActionPlan,
    /// `undone` or `resumed`, for people.
    #[serde(skip)]
    pub verb: &'static str,
}

impl<'a> JournalBody<'a> {
    /// The document of a resumed (`undo` false) or undone run.
    pub fn new(journal: &'a Journal, report: &RunReport, undo: bool) -> Self {
        JournalBody {
            journal: report.journal.clone(),
            quarantine: report.quarantine.clone(),
            steps_taken: report.steps_taken,
            plan: &journal.plan,
            verb: if undo { "undone" } else { "resumed" },
        }
    }
}

/// `resume` and `undo` for people: one line.
pub fn write_journal(body: &JournalBody<'_>, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "{}: {} run on {}: {} step(s) taken; journal {}",
        body.verb,
        escape(&body.plan.command),
        escape_path(&body.plan.log_dir),
        body.steps_taken,
        escape_path(&body.journal)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
                Step::Quarantine {
                    path: dir.join("t\u{1b}[31m-0/b"),
                    len: 7,
                    why: "q".into(),
                },
            ],
            notes: vec!["bell\u{7}".into()],
            ..ActionPlan::default()
        }
    }

    #[test]
    fn a_plan_reads_as_would_then_done_and_escapes_names_read_from_disk() {
        let p = plan(Path::new("/l"));
        let text = plan_text(&p, false);
        assert!(
            text.starts_with("test in /l\n  note: bell\\x07\n"),
            "{text}"
        );
        assert!(
            text.contains("  would rewrite t-0/a (3 -> 4 bytes): w\n"),
            "{text}"
        );
        assert!(
            text.contains("  would truncate t-0/a from 4 to 2 bytes (drops 2): t\n"),
            "{text}"
        );
        assert!(
            text.contains("  would move t\\x1b[31m-0/b (7 bytes) to quarantine: q\n"),
            "{text}"
        );
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{text}"
        );
        assert!(
            text.contains("plan: 1 file(s) written, 1 truncated (2 bytes cut), 1 moved"),
            "{text}"
        );
        assert!(text.ends_with("nothing changed (dry run); run again with --execute to apply\n"));
        let done = plan_text(&p, true);
        assert!(
            done.contains("  rewrote t-0/a") && done.contains("  moved t"),
            "{done}"
        );
        assert!(!done.contains("nothing changed"), "{done}");
        let refused = refused_plan_text(&p);
        assert!(
            refused.ends_with("nothing changed (refused, see below)\n"),
            "{refused}"
        );
    }

    #[test]
    fn sorted_keys_sort_every_level() {
        #[derive(Serialize)]
        struct Inner {
            z: u8,
            a: u8,
        }
        #[derive(Serialize)]
        struct Outer {
            y: Inner,
            b: u8,
        }
        let text = serde_json::to_string(&SortedKeys(Outer {
            y: Inner { z: 1, a: 2 },
            b: 3,
        }))
        .unwrap();
        assert_eq!(text, r#"{"b":3,"y":{"a":2,"z":1}}"#);
    }
}
