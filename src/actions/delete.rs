//! `delete`: carry out the segment deletions of a retention plan ([`crate::plan::build_plan`])
//! offline, as the broker's retention pass would (`UnifiedLog.deleteOldSegments`,
//! `LocalLog.deleteSegmentFiles`, `ProducerStateManager.removeAndMarkSnapshotForDeletion`).
//!
//! Only segments the plan marks `delete` go (never `merge`: that is the cleaner's work), and
//! only a prefix of the partition that ends at or below the high watermark. A plan that deletes
//! the active segment too is carried out as the broker does: the partition is rolled first (a
//! new empty segment at the log end, [`plan_roll`]'s steps), and refused when that roll is.
//! `__cluster_metadata` is never touched, nor a log the cleaner takes before its retention pass
//! (the plan's verdicts are then on cleaned segments that are not on disk yet).
//!
//! Steps, in this order, per partition (1-4), then per log dir (5-6):
//! 1. the roll, when the active segment goes (the later steps plan with the lengths the roll
//!    leaves: the trimmed indexes of the old active segment, so the dry run's sizes and bytes
//!    freed are those of the applied run);
//! 2. per deleted segment, oldest first, its `.log`, then its `.index`, `.timeindex` and
//!    `.txnindex` (the order of `LogSegment.changeFileSuffixes`), are [`Step::Quarantine`]d.
//!    The broker renames them to `*.deleted` and removes them after `file.delete.delay.ms`;
//!    here the journal's quarantine plays the `.deleted` state (kept until the quarantine is
//!    removed, restorable by `undo`; `--purge` removes at once, as the broker's delayed delete
//!    does). A run cut short leaves a log that starts at a
//!    segment boundary, which the broker loads (its log start is then the first segment's base;
//!    an index left without its `.log` is an orphan the broker's load removes);
//! 3. the producer snapshots below the new log start, quarantined the same way;
//! 4. the partition's `leader-epoch-checkpoint` truncated to the new log start
//!    (`LeaderEpochFileCache.truncateFromStart`: the epoch in force there now starts there);
//! 5. `log-start-offset-checkpoint` rewritten with the plan's new log start of each partition;
//! 6. `recovery-point-offset-checkpoint` raised to the new log start where it would fall below.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use crate::formats::checkpoint::{
    encode_offset_checkpoint, parse_offset_checkpoint, TopicPartitionOffset,
};
use crate::formats::leader_epoch::{
    encode_leader_epoch_checkpoint, parse_leader_epoch_checkpoint, EpochEntry,
};
use crate::model::names::{path_text, METADATA_TOPIC};
use crate::plan::PartitionPlan;
use crate::rules::retention::Verdict;

use super::guard::{check_partition_name, FileStamp};
use super::listing::list_snapshots;
use super::plan::{ActionPlan, Step};
use super::rebuild_index::IndexSizing;
use super::roll::plan_roll;
use super::ActionError;

/// The root checkpoint of log start offsets.
pub const LOG_START_CHECKPOINT: &str = "log-start-offset-checkpoint";
/// The root checkpoint of recovery points.
pub const RECOVERY_POINT_CHECKPOINT: &str = "recovery-point-offset-checkpoint";

/// What delete does to one partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeleteReport {
    /// The partition dir's name.
    pub partition: String,
    /// The topic.
    pub topic: String,
    /// The partition number.
    pub partition_number: i32,
    /// The log start offset before.
    pub log_start_offset: i64,
    /// The log start offset afterwards (the plan's), when deleted.
    pub log_start_offset_after: Option<i64>,
    /// Base offsets of the segments deleted.
    pub segments: Vec<i64>,
    /// Their `.log` bytes.
    pub log_bytes: u64,
    /// Deleted, or why not (`refused: ...`).
    pub outcome: String,
}

impl DeleteReport {
    /// Whether the partition was refused.
    pub fn refused(&self) -> bool {
        self.outcome.starts_with("refused")
    }
}

/// The length of every file the steps so far leave behind them (written or truncated), so a
/// later step on the same file plans with the length it will find, not the one on disk now.
fn lengths_after(steps: &[Step]) -> BTreeMap<PathBuf, u64> {
    let mut after = BTreeMap::new();
    for step in steps {
        match step {
            Step::WriteFile { path, new_len, .. } => {
                after.insert(path.clone(), *new_len);
            }
            Step::Truncate { path, to_len, .. } => {
                after.insert(path.clone(), *to_len);
            }
            Step::Quarantine { path, .. } => {
                after.remove(path);
            }
            Step::RemoveDir { .. } => {}
        }
    }
    after
}

/// Quarantine `path` if it exists when the step runs: `after` holds the lengths the earlier
/// steps (a roll) leave, which win over the file on disk now.
fn quarantine(plan: &mut ActionPlan, path: PathBuf, why: &str, after: &BTreeMap<PathBuf, u64>) {
    let on_disk = fs::symlink_metadata(&path).ok().map(|m| m.len());
    let Some(len) = after.get(&path).copied().or(on_disk) else {
        return;
    };
    if on_disk.is_some() {
        plan.stamps.push(FileStamp::of(&path));
    }
    plan.steps.push(Step::Quarantine {
        path,
        len,
        why: why.to_string(),
    });
}

/// Why the plan's deletions of `p` cannot be carried out offline, if they cannot.
fn refusal(p: &PartitionPlan, deleted: &[usize]) -> Option<String> {
    if p.topic == METADATA_TOPIC {
        return Some("refused: the metadata log is never changed".to_string());
    }
    if p.segments.iter().any(|s| s.merged_into.is_some()) {
        return Some(
            "refused: the cleaner takes this log before its retention pass, so the plan's \
             verdicts are on the cleaned segments, which are not on disk"
                .to_string(),
        );
    }
    if deleted.iter().enumerate().any(|(i, d)| i != *d) {
        return Some("refused: the plan's deletions are not a prefix of the log".to_string());
    }
    let hw = p.high_watermark.value;
    let new_start = p.retention.new_log_start_offset;
    let past_hw = deleted
        .iter()
        .filter_map(|i| p.segments.get(*i))
        .any(|s| s.next_offset > hw);
    if past_hw || new_start > hw {
        return Some(format!(
            "refused: the deletion reaches past the high watermark {}",
            hw.get()
        ));
    }
    None
}

/// Why the dir of `p` is not one to act on: a topic name no broker allows (an escape sequence,
/// a byte that is not UTF-8: the plan's `dir_name` is then the escaped text, not the name on
/// disk). Every dir acted on passes [`check_partition_name`], so `log_dir.join(dir_name)` is
/// the dir itself.
fn illegal_name(p: &PartitionPlan) -> Option<String> {
    check_partition_name(&p.dir_name)
        .err()
        .map(|e| e.to_string())
}

/// The roll the broker takes before it deletes every segment, planned into `plan`: the lengths
/// the roll leaves (for the quarantine steps after it), or why the partition is refused.
fn roll_first(
    p: &PartitionPlan,
    dir: &Path,
    sizing: Option<IndexSizing>,
    new_start: i64,
    plan: &mut ActionPlan,
) -> Result<Result<BTreeMap<PathBuf, u64>, String>, ActionError> {
    let Some(sizing) = sizing else {
        return Ok(Err(
            "refused: the plan deletes the active segment, which needs a roll \
             first; run `logclean roll` on the partition, then delete"
                .to_string(),
        ));
    };
    let mut rolled = ActionPlan::default();
    let r = plan_roll(dir, sizing, &mut rolled)?;
    if r.new_base != Some(new_start) {
        return Ok(Err(format!(
            "refused: the plan deletes the active segment and the roll before it is not \
             possible ({})",
            r.outcome
        )));
    }
    plan.notes.push(format!(
        "{}: the active segment is deleted too, so the partition is rolled first (a new \
         empty segment at {new_start})",
        p.dir_name
    ));
    let after = lengths_after(&rolled.steps);
    plan.steps.extend(rolled.steps);
    plan.stamps.extend(rolled.stamps);
    plan.notes.extend(rolled.notes);
    Ok(Ok(after))
}

/// The deleted segments' files, then the producer snapshots below the new log start, to the
/// quarantine.
fn quarantine_deleted(
    p: &PartitionPlan,
    deleted: &[usize],
    dir: &Path,
    after: &BTreeMap<PathBuf, u64>,
    report: &mut DeleteReport,
    plan: &mut ActionPlan,
) -> Result<(), ActionError> {
    let new_start = p.retention.new_log_start_offset.get();
    for s in deleted.iter().filter_map(|i| p.segments.get(*i)) {
        let base = s.base_offset.get();
        let why = format!(
            "segment {base} deleted by retention (ends at {})",
            s.next_offset.get()
        );
        for suffix in [".log", ".index", ".timeindex", ".txnindex"] {
            quarantine(plan, dir.join(format!("{base:020}{suffix}")), &why, after);
        }
        report.segments.push(base);
        report.log_bytes = report.log_bytes.saturating_add(s.size.get());
    }
    let snapshots = list_snapshots(dir)?;
    for (o, path) in snapshots.into_iter().filter(|(o, _)| *o < new_start) {
        quarantine(
            plan,
            path,
            &format!("producer snapshot at {o}, below the new log start {new_start}"),
            after,
        );
    }
    Ok(())
}

/// Plan the deletions of one partition (its plan `p`, its dir `dir`) into `plan`. When the plan
/// deletes the active segment too, the partition is first rolled with `sizing` (as the broker
/// rolls before it deletes every segment, `UnifiedLog.deleteSegments`), through
/// [`plan_roll`]; without `sizing`, or when the roll is refused, the partition is refused.
pub fn plan_partition(
    p: &PartitionPlan,
    dir: &Path,
    sizing: Option<IndexSizing>,
    plan: &mut ActionPlan,
) -> Result<DeleteReport, ActionError> {
    let deleted: Vec<usize> = p
        .segments
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s.verdict, Verdict::Delete { .. }))
        .map(|(i, _)| i)
        .collect();
    let mut report = DeleteReport {
        partition: p.dir_name.clone(),
        topic: p.topic.clone(),
        partition_number: p.partition,
        log_start_offset: p.log_start_offset.get(),
        log_start_offset_after: None,
        segments: Vec::new(),
        log_bytes: 0,
        outcome: String::new(),
    };
    if deleted.is_empty() {
        report.outcome = "nothing to delete".to_string();
        return Ok(report);
    }
    if let Some(why) = refusal(p, &deleted).or_else(|| illegal_name(p)) {
        report.outcome = why;
        return Ok(report);
    }
    let new_start = p.retention.new_log_start_offset.get();
    let mut after = BTreeMap::new();
    if deleted.len() >= p.segments.len() {
        match roll_first(p, dir, sizing, new_start, plan)? {
            Ok(lengths) => after = lengths,
            Err(refused) => {
                report.outcome = refused;
                return Ok(report);
            }
        }
    }
    quarantine_deleted(p, &deleted, dir, &after, &mut report, plan)?;
    epoch_step(dir, new_start, plan)?;
    report.log_start_offset_after = Some(new_start);
    report.outcome = format!(
        "deletes {} segment(s), log start {} -> {new_start}",
        report.segments.len(),
        report.log_start_offset
    );
    Ok(report)
}

/// The leader-epoch entries after `LeaderEpochFileCache.truncateFromStart(start)`: entries
/// starting at or below `start` are dropped and the last of them comes back starting at `start`.
pub fn truncate_epochs_from_start(entries: &[EpochEntry], start: i64) -> Vec<EpochEntry> {
    let (below, above): (Vec<&EpochEntry>, Vec<&EpochEntry>) =
        entries.iter().partition(|e| e.start_offset <= start);
    let mut out: Vec<EpochEntry> = below
        .last()
        .map(|e| EpochEntry {
            epoch: e.epoch,
            start_offset: start,
        })
        .into_iter()
        .collect();
    out.extend(above.into_iter().cloned());
    out
}

/// The partition's `leader-epoch-checkpoint` truncated to the new log start, as the broker's
/// `maybeIncrementLogStartOffset` does (an unreadable or missing file is left alone: the broker
/// rebuilds the cache from the log).
fn epoch_step(dir: &Path, start: i64, plan: &mut ActionPlan) -> Result<(), ActionError> {
    let path = dir.join("leader-epoch-checkpoint");
    let Ok(old) = fs::read(&path) else {
        return Ok(());
    };
    let Ok(parsed) = parse_leader_epoch_checkpoint(&old) else {
        return Ok(());
    };
    let entries: Vec<EpochEntry> = parsed.values().cloned().collect();
    let bytes = encode_leader_epoch_checkpoint(&truncate_epochs_from_start(&entries, start));
    if bytes != old {
        plan.stamps.push(FileStamp::of(&path));
        plan.steps.push(Step::WriteFile {
            path,
            new_len: bytes.len() as u64,
            old_len: Some(old.len() as u64),
            bytes,
            why: format!(
                "leader epochs truncated to the new log start {start} (truncateFromStart)"
            ),
        });
    }
    Ok(())
}

/// Rewrite one root offset checkpoint of `log_dir`: `update` gives each partition's new value
/// from its old one (`None`: absent). Adds a [`Step::WriteFile`] when the bytes change.
fn checkpoint_step(
    log_dir: &Path,
    name: &str,
    starts: &BTreeMap<(String, i32), i64>,
    update: impl Fn(Option<i64>, i64) -> Option<i64>,
    why: &str,
    plan: &mut ActionPlan,
) -> Result<(), ActionError> {
    let path = log_dir.join(name);
    let old = match fs::read(&path) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(ActionError::io(&path, e)),
    };
    let mut entries: Vec<TopicPartitionOffset> = match &old {
        Some(b) => parse_offset_checkpoint(b)
            .map_err(|e| {
                ActionError::Refused(format!("`{}` is unreadable: {e}", path_text(&path)))
            })?
            .values()
            .cloned()
            .collect(),
        None => Vec::new(),
    };
    for ((topic, partition), start) in starts {
        let at = entries
            .iter()
            .position(|e| &e.topic == topic && e.partition == *partition);
        let current = at.and_then(|i| entries.get(i)).map(|e| e.offset);
        match (update(current, *start), at.and_then(|i| entries.get_mut(i))) {
            (Some(v), Some(e)) => e.offset = v,
            (Some(v), None) => entries.push(TopicPartitionOffset {
                topic: topic.clone(),
                partition: *partition,
                offset: v,
            }),
            (None, _) => {}
        }
    }
    let bytes = encode_offset_checkpoint(&entries)
        .map_err(|e| ActionError::Refused(format!("`{}`: {e}", path_text(&path))))?;
    if old.as_ref() == Some(&bytes) {
        return Ok(());
    }
    plan.stamps.push(FileStamp::of(&path));
    plan.steps.push(Step::WriteFile {
        path,
        new_len: bytes.len() as u64,
        old_len: old.as_ref().map(|o| o.len() as u64),
        bytes,
        why: why.to_string(),
    });
    Ok(())
}

/// Plan the deletions of every partition plan in `parts` (all of log dir `log_dir`, each with
/// the index sizing a roll uses), then the checkpoint rewrites, into `plan`.
///
/// Partitions are planned in parallel on the current rayon pool (the caller's `--jobs`), each
/// into a plan of its own; the parts are then appended in the order of `parts`, so steps,
/// notes, reports and the first error are the same whatever the number of threads.
pub fn plan_log_dir(
    log_dir: &Path,
    parts: &[(&PartitionPlan, Option<IndexSizing>)],
    plan: &mut ActionPlan,
) -> Result<Vec<DeleteReport>, ActionError> {
    let planned: Vec<Result<(ActionPlan, DeleteReport), ActionError>> = parts
        .par_iter()
        .map(|(p, sizing)| {
            let mut part = ActionPlan::default();
            plan_partition(p, &log_dir.join(&p.dir_name), *sizing, &mut part).map(|r| (part, r))
        })
        .collect();
    let mut reports = Vec::with_capacity(planned.len());
    let mut starts = BTreeMap::new();
    for one in planned {
        let (part, r) = one?;
        plan.steps.extend(part.steps);
        plan.stamps.extend(part.stamps);
        plan.notes.extend(part.notes);
        if let Some(s) = r.log_start_offset_after {
            starts.insert((r.topic.clone(), r.partition_number), s);
        }
        reports.push(r);
    }
    if starts.is_empty() {
        return Ok(reports);
    }
    checkpoint_step(
        log_dir,
        LOG_START_CHECKPOINT,
        &starts,
        |old, start| Some(old.map_or(start, |o| o.max(start))),
        "log start offsets advanced to the plan's",
        plan,
    )?;
    checkpoint_step(
        log_dir,
        RECOVERY_POINT_CHECKPOINT,
        &starts,
        |old, start| old.filter(|o| *o < start).map(|_| start),
        "recovery points raised to the new log start",
        plan,
    )?;
    Ok(reports)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epochs_truncate_from_start_as_the_broker() {
        let e = |epoch, start_offset| EpochEntry {
            epoch,
            start_offset,
        };
        let entries = [e(0, 0), e(2, 10), e(5, 30)];
        assert_eq!(
            truncate_epochs_from_start(&entries, 28),
            [e(2, 28), e(5, 30)]
        );
        assert_eq!(truncate_epochs_from_start(&entries, 30), [e(5, 30)]);
        assert_eq!(truncate_epochs_from_start(&entries, 0), entries);
        assert_eq!(truncate_epochs_from_start(&[e(3, 40)], 28), [e(3, 40)]);
    }

    #[test]
    fn checkpoints_advance_and_recovery_points_rise() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(
            dir.path().join(LOG_START_CHECKPOINT),
            "0\n2\nt 0 0\nu 1 5\n",
        )
        .unwrap();
        fs::write(
            dir.path().join(RECOVERY_POINT_CHECKPOINT),
            "0\n1\nt 0 100\n",
        )
        .unwrap();
        let mut starts = BTreeMap::new();
        starts.insert(("t".to_string(), 0), 40);
        starts.insert(("v".to_string(), 2), 7);
        let mut plan = ActionPlan::default();
        checkpoint_step(
            dir.path(),
            LOG_START_CHECKPOINT,
            &starts,
            |old, s| Some(old.map_or(s, |o| o.max(s))),
            "x",
            &mut plan,
        )
        .unwrap();
        checkpoint_step(
            dir.path(),
            RECOVERY_POINT_CHECKPOINT,
            &starts,
            |old, s| old.filter(|o| *o < s).map(|_| s),
            "y",
            &mut plan,
        )
        .unwrap();
        assert_eq!(plan.steps.len(), 1, "the recovery point 100 is above 40");
        let Step::WriteFile { bytes, .. } = &plan.steps[0] else {
            panic!("not a write")
        };
        assert_eq!(bytes, b"0\n3\nt 0 40\nu 1 5\nv 2 7\n");
    }
}
