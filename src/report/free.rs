//! `logclean free`'s document and text: per filesystem the target and how far the plan gets,
//! what is taken in order (tier, bytes, what, why), what is not and the option that would take
//! it, the consumer groups that lose data, and each log dir's plan (docs/json.md, "free").

use std::io::{self, Write};

use serde::Serialize;

use crate::actions::free::{Freeing, FsTarget, Reclaim, Target};
use crate::model::names::path_text;

use super::mutation::{plan_text, refused_plan_text, DeleteLogDirDoc, LossDoc};
use super::sanitize::{escape, escape_path};
use super::terminal::{fit_atoms, words};

/// The keys `free` adds to the shared envelope.
#[derive(Debug, Serialize)]
pub struct FreeBody<'a> {
    /// The free space wanted on each filesystem.
    pub target: Target,
    /// Whether the plans were applied.
    pub executed: bool,
    /// Whether the run was refused (nothing changed).
    pub refused: bool,
    /// Whether every filesystem reaches the target.
    pub reached: bool,
    /// Per filesystem.
    pub filesystems: &'a [FsTarget],
    /// What is taken, in the order it goes.
    pub taken: &'a [Reclaim],
    /// What is not taken, why, and the option that would take it.
    pub not_taken: &'a [Reclaim],
    /// Topics `--beyond-retention` could take more from, bytes each (only when not reached).
    pub beyond_retention_could_free: Vec<TopicBytes>,
    /// The consumer groups whose committed offsets fall below a new log start.
    pub groups_losing_data: Vec<LossDoc>,
    /// Per log dir: the plan, `delete`'s per-partition reports, the journal.
    pub log_dirs: Vec<DeleteLogDirDoc<'a>>,
}

/// A topic and bytes.
#[derive(Debug, Serialize)]
pub struct TopicBytes {
    /// The topic.
    pub topic: String,
    /// Allocated bytes.
    pub bytes: u64,
}

impl<'a> FreeBody<'a> {
    /// The document of a reclaim.
    pub fn new(f: &'a Freeing) -> Self {
        let reached = f.reached();
        FreeBody {
            target: f.target,
            executed: f.executed,
            refused: f.refused(),
            reached,
            filesystems: &f.filesystems,
            taken: &f.taken,
            not_taken: &f.skipped,
            beyond_retention_could_free: (f.beyond_potential.iter())
                .filter(|_| !reached)
                .map(|(t, b)| TopicBytes {
                    topic: t.clone(),
                    bytes: *b,
                })
                .collect(),
            groups_losing_data: f.lost.iter().map(LossDoc::from).collect(),
            log_dirs: f.log_dirs.iter().map(DeleteLogDirDoc::new).collect(),
        }
    }
}

fn target_text(t: Target) -> String {
    match t {
        Target::Bytes(n) => format!("{n} bytes free"),
        Target::Percent(p) => format!("{p}% free"),
    }
}

fn fs_line(body: &FreeBody<'_>, f: &FsTarget) -> String {
    let dirs: Vec<String> = f.log_dirs.iter().map(|d| escape_path(d)).collect();
    let mut line = format!(
        "filesystem of {}: {} of {} bytes free ({}); target {} ({} bytes): ",
        dirs.join(", "),
        f.free_bytes,
        f.total_bytes,
        f.figures,
        target_text(body.target),
        f.target_free_bytes
    );
    if f.needed_bytes == 0 {
        line.push_str("already reached, nothing to free");
    } else if f.reached {
        line.push_str(&format!(
            "needs {} more; the plan frees {} (reached)",
            f.needed_bytes, f.planned_bytes
        ));
    } else {
        line.push_str(&format!(
            "needs {} more; the plan frees only {} (not reached)",
            f.needed_bytes, f.planned_bytes
        ));
    }
    if f.planned_bytes > 0 {
        line.push_str(&format!("; {}", f.release.text()));
    }
    if let Some(after) = f.free_bytes_after {
        line.push_str(&format!("; {after} bytes free after the run (statvfs)"));
    }
    line
}

fn reclaim_line(r: &Reclaim, verb: &str) -> String {
    let mut line = format!(
        "{verb} [{}] {} ({} bytes): {}",
        r.tier.text(),
        escape(&r.what),
        r.bytes,
        escape(&r.why)
    );
    if let Some(o) = &r.option {
        line.push_str(&format!(" (would take it: {o})"));
    }
    line
}

fn wrapped(out: &mut dyn Write, text: &str, width: usize) -> io::Result<()> {
    for l in fit_atoms(&words(text), width, " ", "", "    ") {
        writeln!(out, "{l}")?;
    }
    Ok(())
}

/// `free` for people.
pub fn write_free(body: &FreeBody<'_>, width: usize, out: &mut dyn Write) -> io::Result<()> {
    for f in body.filesystems {
        wrapped(out, &fs_line(body, f), width)?;
    }
    let verb = if body.executed { "freed" } else { "takes" };
    for r in body.taken {
        wrapped(out, &format!("  {}", reclaim_line(r, verb)), width)?;
    }
    for r in body.not_taken {
        wrapped(out, &format!("  {}", reclaim_line(r, "not taken")), width)?;
    }
    if !body.beyond_retention_could_free.is_empty() {
        let topics: Vec<String> = (body.beyond_retention_could_free.iter())
            .take(5)
            .map(|t| format!("{} ({} bytes)", escape(&t.topic), t.bytes))
            .collect();
        wrapped(
            out,
            &format!(
                "further: --beyond-retention TOPIC deletes a topic's oldest segments below its \
                 high watermark past retention (its consumers may lose data): {}",
                topics.join(", ")
            ),
            width,
        )?;
    }
    for l in &body.groups_losing_data {
        wrapped(
            out,
            &format!(
                "group {} loses data on {}-{}: committed {}, log start {} ({} records skipped)",
                escape(&l.group),
                escape(&l.topic),
                l.partition,
                l.committed,
                l.reset_to,
                l.skipped
            ),
            width,
        )?;
    }
    for d in body.log_dirs.iter().filter(|d| !d.plan.steps.is_empty()) {
        let text = if body.refused {
            refused_plan_text(d.plan)
        } else {
            plan_text(d.plan, body.executed)
        };
        write!(out, "{text}")?;
        if let Some(j) = &d.journal {
            writeln!(out, "journal: {}", escape(&path_text(j)))?;
        }
    }
    if body.taken.is_empty() && !body.executed {
        writeln!(out, "nothing to free")?;
    }
    Ok(())
}
