//! `roll`: close a partition's active segment offline as the broker does on roll (cleanup
//! rules §A7–§A8, `LocalLog.roll`, `LogSegment.onBecomeInactiveSegment`,
//! `ProducerStateManager.takeSnapshot`), so that retention can act on it.
//!
//! Steps, in this order (so a run cut short leaves a dir the broker loads, and `resume`/`undo`
//! finish or revert it):
//! 1. the old active segment's `.timeindex` gets its final entry (the segment's max timestamp
//!    and the offset of the earliest batch that reached it, if larger than the last entry) and
//!    is trimmed to its entries; its `.index` is trimmed; a preallocated `.log` is trimmed to
//!    its valid bytes (only a zero tail: any other invalid tail is refused, run
//!    `rebuild-index --truncate-invalid-tail` first);
//! 2. `<next>.snapshot` with the producer state at the next offset (latest valid snapshot
//!    replayed forward, segment by segment), unless one exists already (a clean shutdown writes
//!    it). Its bytes are those the broker writes for the same log end after loading these files
//!    (producers in its `HashMap` order, [`crate::model::producer_state`]); a broker that had been
//!    running also holds the order of its live appends and expiries, which no file records;
//! 3. the new segment at the next offset: empty `.index` and `.timeindex` (what a clean stop
//!    leaves for an empty active segment; a missing `.index` would make the broker recover it),
//!    then the empty `.log`.
//!
//! An empty active segment is not rolled (the broker never rolls an empty segment by time).

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::formats::offset_index::OffsetIndex;
use crate::formats::producer_snapshot::encode_producer_snapshot;
use crate::formats::slot_index::encode_slots;
use crate::formats::time_index::{TimeIndex, TimeIndexEntry};
use crate::formats::walk::{BatchInfo, WalkEnd};
use crate::model::names::path_text;

use super::guard::FileStamp;
use super::plan::{ActionPlan, Step};
use super::rebuild_index::{
    list_segments, recover_stream, replay, state_before, IndexSizing, LogStream, Next, SegmentFiles,
};
use super::ActionError;
use crate::model::producer_state::ProducerState;

/// What roll does to one partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RollReport {
    /// The partition dir.
    #[serde(with = "crate::model::names::path_serde")]
    pub partition: PathBuf,
    /// The active segment's base offset (`None`: no segment).
    pub active_base: Option<i64>,
    /// The new segment's base offset, when rolled.
    pub new_base: Option<i64>,
    /// What the plan does (`rolls: …`; `rolled: …` once applied, [`RollReport::applied`]), or
    /// why not.
    pub outcome: String,
}

impl RollReport {
    /// The report once its plan was applied: a planned roll is said done.
    pub fn applied(mut self) -> RollReport {
        if let (Some(base), Some(next)) = (self.active_base, self.new_base) {
            self.outcome = format!("rolled: segment {base} closed, new segment {next}");
        }
        self
    }
}

fn read_opt(path: &Path) -> Result<Option<Vec<u8>>, ActionError> {
    match fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ActionError::io(path, e)),
    }
}

fn write_step(
    plan: &mut ActionPlan,
    path: PathBuf,
    old: Option<&Vec<u8>>,
    bytes: Vec<u8>,
    why: &str,
) {
    if old == Some(&bytes) {
        return;
    }
    plan.steps.push(Step::WriteFile {
        path,
        new_len: bytes.len() as u64,
        old_len: old.map(|o| o.len() as u64),
        bytes,
        why: why.to_string(),
    });
}

/// The old active segment's batch headers, walked in chunks (the segment may be up to
/// `segment.bytes`): only the headers are kept.
struct ActiveScan {
    log_len: u64,
    batches: Vec<BatchInfo>,
    /// The walk ended at a preallocated all-zero tail.
    zero_tail: bool,
}

impl ActiveScan {
    /// The end of the last valid batch.
    fn valid_end(&self) -> u64 {
        self.batches.last().map_or(0, |b| b.end())
    }
}

fn scan_active(active: &SegmentFiles, plan: &mut ActionPlan) -> Result<ActiveScan, ActionError> {
    let io = |e| ActionError::io(&active.log, e);
    let mut stream = LogStream::open(&active.log).map_err(io)?;
    plan.stamps.push(FileStamp::of(&active.log));
    let log_len = stream.len();
    let mut batches = Vec::new();
    let zero_tail = loop {
        match stream.next_batch().map_err(io)? {
            Next::Batch(b) => batches.push(b),
            Next::End(end) => break matches!(end, WalkEnd::ZeroFilled { .. }),
            Next::Invalid(_) => break false,
        }
    };
    Ok(ActiveScan {
        log_len,
        batches,
        zero_tail,
    })
}

/// The old active segment's index files as found, and the entries it keeps.
struct ActiveIndexes {
    index_path: PathBuf,
    time_path: PathBuf,
    old_index: Option<Vec<u8>>,
    old_time: Option<Vec<u8>>,
    index_bytes: Vec<u8>,
    time_entries: Vec<TimeIndexEntry>,
}

fn read_active_indexes(
    active: &SegmentFiles,
    sizing: IndexSizing,
    plan: &mut ActionPlan,
) -> Result<ActiveIndexes, ActionError> {
    let index_path = active.with(".index");
    let time_path = active.with(".timeindex");
    let old_index = read_opt(&index_path)?;
    let old_time = read_opt(&time_path)?;
    plan.stamps.push(FileStamp::of(&index_path));
    plan.stamps.push(FileStamp::of(&time_path));
    let parsed_index = old_index
        .as_deref()
        .and_then(|b| OffsetIndex::parse(b, active.base).ok());
    let parsed_time = old_time
        .as_deref()
        .and_then(|b| TimeIndex::parse(b, active.base).ok());
    let (index_bytes, time_entries) = match (parsed_index, parsed_time) {
        (Some(i), Some(t)) => (
            old_index
                .as_deref()
                .and_then(|b| b.get(..i.valid_entries() * 8))
                .unwrap_or(&[])
                .to_vec(),
            t.slots().take(t.valid_entries()).collect(),
        ),
        _ => recovered_indexes(active, sizing, plan)?,
    };
    Ok(ActiveIndexes {
        index_path,
        time_path,
        old_index,
        old_time,
        index_bytes,
        time_entries,
    })
}

/// Missing or unreadable indexes: what the broker's recovery rebuilds at load.
fn recovered_indexes(
    active: &SegmentFiles,
    sizing: IndexSizing,
    plan: &mut ActionPlan,
) -> Result<(Vec<u8>, Vec<TimeIndexEntry>), ActionError> {
    let io = |e| ActionError::io(&active.log, e);
    let mut scratch = ProducerState::default();
    let mut stream = LogStream::open(&active.log).map_err(io)?;
    let rec = recover_stream(
        &mut stream,
        active.base,
        sizing,
        &mut scratch,
        &HashSet::new(),
    )
    .map_err(io)?;
    plan.notes.push(format!(
        "{}: index files missing or unreadable, rebuilt as recovery would",
        path_text(&active.log)
    ));
    Ok((rec.offset_index_bytes(), rec.time_entries))
}

/// The segment's max timestamp and the last offset of the earliest batch that reached it.
fn max_timestamp(batches: &[BatchInfo]) -> (i64, i64) {
    let mut max: (i64, i64) = (-1, -1);
    for b in batches {
        if b.max_timestamp > max.0 {
            max = (b.max_timestamp, b.last_offset);
        }
    }
    max
}

/// Append the final time-index entry when the segment's max timestamp is past the last one;
/// `Err` is the refusal when the index already points past that batch.
fn append_final_time_entry(
    time_entries: &mut Vec<TimeIndexEntry>,
    batches: &[BatchInfo],
    active: &SegmentFiles,
) -> Result<(), String> {
    let max = max_timestamp(batches);
    if max.0 <= time_entries.last().map_or(-1, |e| e.timestamp) {
        return Ok(());
    }
    let rel = i32::try_from(max.1.saturating_sub(active.base)).unwrap_or(i32::MAX);
    if time_entries.last().is_some_and(|e| e.relative_offset > rel) {
        return Err(format!(
            "refused: the time index of {} has entries past the segment's max timestamp \
             offset {}; run `logclean rebuild-index` first",
            path_text(&active.log),
            max.1
        ));
    }
    time_entries.push(TimeIndexEntry {
        timestamp: max.0,
        relative_offset: rel,
    });
    Ok(())
}

/// Step 1: the old active segment's indexes trimmed (time index first) and its zero tail cut.
fn plan_close_active(
    plan: &mut ActionPlan,
    active: &SegmentFiles,
    indexes: ActiveIndexes,
    scan: &ActiveScan,
) {
    write_step(
        plan,
        indexes.time_path,
        indexes.old_time.as_ref(),
        encode_slots(&indexes.time_entries),
        "final time-index entry and trim (onBecomeInactiveSegment)",
    );
    write_step(
        plan,
        indexes.index_path,
        indexes.old_index.as_ref(),
        indexes.index_bytes,
        "trim to its entries (onBecomeInactiveSegment)",
    );
    if scan.zero_tail {
        plan.steps.push(Step::Truncate {
            path: active.log.clone(),
            from_len: scan.log_len,
            to_len: scan.valid_end(),
            why: "trim the preallocated zero tail (FileRecords.trim)".to_string(),
        });
    }
}

/// Step 2: the producer snapshot at the new base, unless a clean shutdown wrote it.
fn plan_snapshot(
    partition_dir: &Path,
    segments: &[SegmentFiles],
    new: &SegmentFiles,
    plan: &mut ActionPlan,
) -> Result<(), ActionError> {
    let snapshot = new.with(".snapshot");
    if snapshot.exists() {
        plan.notes.push(format!(
            "{} exists (written at the last clean shutdown): kept",
            path_text(&snapshot)
        ));
        return Ok(());
    }
    let (mut state, from) = state_before(partition_dir, segments, new.base)?;
    replay(segments, &mut state, from, new.base)?;
    write_step(
        plan,
        snapshot,
        None,
        encode_producer_snapshot(&state.snapshot_entries()),
        "producer-state snapshot at the new base (takeSnapshot)",
    );
    Ok(())
}

/// Step 3: the new, empty segment: indexes first, the .log last.
fn plan_new_segment(new: &SegmentFiles, plan: &mut ActionPlan) -> Result<(), ActionError> {
    for suffix in [".index", ".timeindex"] {
        let p = new.with(suffix);
        let old = read_opt(&p)?;
        plan.stamps.push(FileStamp::of(&p));
        write_step(
            plan,
            p,
            old.as_ref(),
            Vec::new(),
            "index of the new active segment",
        );
    }
    plan.steps.push(Step::WriteFile {
        path: new.log.clone(),
        bytes: Vec::new(),
        new_len: 0,
        old_len: None,
        why: format!("new active segment at offset {}", new.base),
    });
    Ok(())
}

/// Plan the roll of one partition dir into `plan`.
pub fn plan_roll(
    partition_dir: &Path,
    sizing: IndexSizing,
    plan: &mut ActionPlan,
) -> Result<RollReport, ActionError> {
    let segments = list_segments(partition_dir)?;
    let mut report = RollReport {
        partition: partition_dir.to_path_buf(),
        active_base: None,
        new_base: None,
        outcome: String::new(),
    };
    let Some(active) = segments.last().cloned() else {
        report.outcome = "no segment: nothing to roll".to_string();
        return Ok(report);
    };
    report.active_base = Some(active.base);
    let scan = scan_active(&active, plan)?;
    let valid_end = scan.valid_end();
    if valid_end < scan.log_len && !scan.zero_tail {
        report.outcome = format!(
            "refused: invalid data at byte {valid_end} of {}; run `logclean rebuild-index \
             --truncate-invalid-tail` first",
            path_text(&active.log)
        );
        return Ok(report);
    }
    let Some(last) = scan.batches.last() else {
        report.outcome = "the active segment is empty: nothing to roll".to_string();
        return Ok(report);
    };
    let next = last.last_offset.saturating_add(1);
    let new = SegmentFiles {
        base: next,
        log: active.log.with_file_name(format!("{next:020}.log")),
    };
    if new.log.exists() {
        report.outcome = format!("refused: {} exists already", path_text(&new.log));
        return Ok(report);
    }

    let mut indexes = read_active_indexes(&active, sizing, plan)?;
    if let Err(refusal) = append_final_time_entry(&mut indexes.time_entries, &scan.batches, &active)
    {
        report.outcome = refusal;
        return Ok(report);
    }
    plan_close_active(plan, &active, indexes, &scan);
    plan_snapshot(partition_dir, &segments, &new, plan)?;
    plan_new_segment(&new, plan)?;
    report.new_base = Some(next);
    report.outcome = format!("rolls: segment {} closes, new segment {next}", active.base);
    Ok(report)
}
