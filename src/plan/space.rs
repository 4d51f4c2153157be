//! Why every byte of a log dir is there: the blocks of each entry ([`walk_usage`]) given the
//! reason [`crate::rules::space`] finds for it, a segment's from the plan's verdict on it. The
//! reasons partition the log dir's blocks, so their sum is the filesystem's usage of the dir
//! (`du -B1 -s`, dirs' own blocks included).
//!
//! [`walk_usage`]: crate::model::disk_usage::walk_usage

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use rayon::prelude::*;

use crate::model::disk_usage::{DirUsage, UsageProblem, UsedEntry};
use crate::model::names::{
    parse_partition_dir_name, parse_segment_file_name, PartitionDirName, SegmentFileKind,
};
use crate::model::partition::PARTITIONS_PER_TASK;
use crate::model::replays::Records;
use crate::rules::space::{classify_in, verdict_reason, EntryFacts, FileClass, SpaceReason};

use super::{Blocker, PartitionPlan, Plan, SegmentPlan};

/// Bytes for one reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReasonBytes {
    /// The reason.
    pub reason: SpaceReason,
    /// Allocated bytes.
    pub bytes: u64,
    /// Entries (files or dirs).
    pub files: u64,
}

/// Bytes per reason, in [`SpaceReason::ALL`] order, only the reasons with entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ByReason(BTreeMap<SpaceReason, (u64, u64)>);

impl ByReason {
    fn add(&mut self, reason: SpaceReason, bytes: u64) {
        let e = self.0.entry(reason).or_insert((0, 0));
        e.0 = e.0.saturating_add(bytes);
        e.1 += 1;
    }

    /// Adds `other`'s bytes and entries.
    fn merge(&mut self, other: &ByReason) {
        for (reason, (bytes, files)) in &other.0 {
            let e = self.0.entry(*reason).or_insert((0, 0));
            e.0 = e.0.saturating_add(*bytes);
            e.1 += files;
        }
    }

    /// The reasons with entries, in report order.
    pub fn rows(&self) -> Vec<ReasonBytes> {
        self.0
            .iter()
            .map(|(reason, (bytes, files))| ReasonBytes {
                reason: *reason,
                bytes: *bytes,
                files: *files,
            })
            .collect()
    }

    /// The bytes of `reason`.
    pub fn bytes(&self, reason: SpaceReason) -> u64 {
        self.0.get(&reason).map_or(0, |e| e.0)
    }

    /// Every reason's bytes.
    pub fn total(&self) -> u64 {
        self.0.values().map(|e| e.0).sum()
    }
}

/// One entry with its reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttributedEntry {
    /// The partition dir (or root entry) it lies in; `None` for the log dir itself (one
    /// allocation shared by the entries of a dir).
    pub top: Option<Arc<str>>,
    /// A partition dir's live segment file (no leftover suffix): its base offset and kind.
    pub segment_file: Option<(i64, SegmentFileKind)>,
    /// A directory.
    pub is_dir: bool,
    /// Path components below the log dir (0: the log dir itself, 1: a root entry).
    pub depth: usize,
    /// Allocated bytes.
    pub allocated: u64,
    /// Apparent bytes (its length).
    pub apparent: u64,
    /// Why it is there.
    pub reason: SpaceReason,
}

/// One partition dir's (or other top-level dir's) bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopSpace {
    /// The dir name.
    pub dir_name: String,
    /// Its topic and partition, when the name parses.
    pub topic: Option<(String, i32)>,
    /// Allocated bytes, the dir's own blocks included.
    pub bytes: u64,
    /// Per reason.
    pub by_reason: ByReason,
}

/// One log dir's bytes by reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpaceUsage {
    /// The log dir.
    pub path: PathBuf,
    /// Allocated bytes of everything below it, itself included.
    pub allocated: u64,
    /// Apparent bytes (sum of lengths), for comparison.
    pub apparent: u64,
    /// Per reason.
    pub by_reason: ByReason,
    /// Per top-level dir (partition dirs, the remote index cache, unknown dirs), by name.
    pub dirs: Vec<TopSpace>,
    /// Every entry ([`Self::entries`]), in runs as they were attributed in parallel: not
    /// copied into one list on one thread (on 10,000 partitions that copy ran alone, the other
    /// core idle, and held the entries twice).
    runs: Vec<Vec<AttributedEntry>>,
    /// What could not be walked.
    pub problems: Vec<UsageProblem>,
}

/// The attribution of each of `log_dirs` under `plan`: of the usage the listing took of it
/// (`listed`, by index, when the run reads the files), else of `records`' ([`walk_usage`] or
/// as carried).
pub fn space_usage(
    plan: &Plan,
    log_dirs: &[PathBuf],
    listed: &[Option<DirUsage>],
    records: Records<'_>,
) -> Vec<SpaceUsage> {
    let from_files = matches!(records, Records::Files(_));
    log_dirs
        .iter()
        .enumerate()
        .map(|(i, d)| match listed.get(i).and_then(Option::as_ref) {
            Some(u) if from_files && u.path == *d => attribute(plan, u),
            _ => attribute(plan, &records.usage(d)),
        })
        .collect()
}

/// Base offsets of `.log` files and offsets of `.snapshot` files of a top-level entry.
type Offsets = (BTreeSet<i64>, BTreeSet<i64>);

/// A run of consecutive entries under one top-level entry (`None`: the log dir itself), as the
/// walk lists them: a partition dir's entries come together.
struct Run<'u> {
    top: Option<&'u str>,
    entries: &'u [UsedEntry],
}

/// `entries` cut into their [`Run`]s, in order.
fn runs(entries: &[UsedEntry]) -> Vec<Run<'_>> {
    (entries.chunk_by(|a, b| a.top() == b.top()))
        .map(|run| Run {
            top: run.first().and_then(UsedEntry::top),
            entries: run,
        })
        .collect()
}

/// What a run's entries' names say, each name parsed once: the top-level entry's name as a
/// partition dir, each live segment file's base and kind, and the run's offsets.
struct RunNames {
    parsed: Option<PartitionDirName>,
    segment_files: Vec<Option<(i64, SegmentFileKind)>>,
    offsets: Offsets,
}

fn run_names(run: &Run<'_>) -> RunNames {
    let mut offsets = Offsets::default();
    let segment_files = (run.entries.iter())
        .map(|e| {
            let f = (e.path.depth() == 2)
                .then(|| e.name().and_then(parse_segment_file_name))
                .flatten()
                .filter(|f| f.leftover.is_none())?;
            match f.kind {
                SegmentFileKind::Log => {
                    offsets.0.insert(f.offset);
                }
                SegmentFileKind::Snapshot => {
                    offsets.1.insert(f.offset);
                }
                _ => {}
            }
            Some((f.offset, f.kind))
        })
        .collect();
    RunNames {
        parsed: run.top.and_then(parse_partition_dir_name),
        segment_files,
        offsets,
    }
}

/// One run attributed: its entries, its bytes by reason, and what it adds to its top-level
/// entry's dir (`None`: it adds none, as a root file).
struct RunSpace {
    entries: Vec<AttributedEntry>,
    by_reason: ByReason,
    dir: Option<(u64, ByReason)>,
}

fn attribute_run(
    run: &Run<'_>,
    names: &RunNames,
    offsets: &Offsets,
    part: Option<&PartitionPlan>,
) -> RunSpace {
    // (The run's entries share their top-level name: one more reference to it, not a copy.)
    let shared: Option<Arc<str>> = (run.entries.first())
        .and_then(|e| e.path.shared_top())
        .cloned();
    let segment_of = |base: i64| {
        let p = part?;
        Some((p, segment_at(p, base)?))
    };
    let mut out = RunSpace {
        entries: Vec::with_capacity(run.entries.len()),
        by_reason: ByReason::default(),
        dir: None,
    };
    for (e, segment_file) in run.entries.iter().zip(&names.segment_files) {
        let facts = EntryFacts {
            path: &e.path,
            is_dir: e.is_dir,
            log_bases: &offsets.0,
            snapshot_offsets: &offsets.1,
        };
        let reason = match classify_in(&facts, names.parsed.as_ref()) {
            FileClass::Reason(r) => r,
            FileClass::SegmentLog(base) => {
                segment_of(base).map_or(SpaceReason::NotPlanned, |(p, s)| segment_reason(p, s))
            }
            FileClass::SegmentIndex(base) => match segment_of(base) {
                Some((p, s)) if segment_reason(p, s) == SpaceReason::DeletedNextPass => {
                    SpaceReason::DeletedNextPass
                }
                _ => SpaceReason::IndexOverhead,
            },
        };
        out.by_reason.add(reason, e.allocated);
        // Root files are their own "dir" only when they are dirs; root files count in the log
        // dir's totals alone.
        if run.top.is_some() && (e.path.depth() > 1 || e.is_dir) {
            let d = out.dir.get_or_insert_with(|| (0, ByReason::default()));
            d.0 = d.0.saturating_add(e.allocated);
            d.1.add(reason, e.allocated);
        }
        out.entries.push(AttributedEntry {
            top: shared.clone(),
            segment_file: *segment_file,
            is_dir: e.is_dir,
            depth: e.path.depth(),
            allocated: e.allocated,
            apparent: e.apparent,
            reason,
        });
    }
    out
}

/// The attribution of one walked log dir under `plan`: each partition dir's entries attributed
/// in parallel, merged in the walk's order.
pub fn attribute(plan: &Plan, usage: &DirUsage) -> SpaceUsage {
    let parts: HashMap<&str, &PartitionPlan> = plan
        .partitions
        .iter()
        .filter(|p| p.log_dir == usage.path)
        .map(|p| (p.dir_name.as_str(), p))
        .collect();
    let runs = runs(&usage.entries);
    let names: Vec<RunNames> = (runs.par_iter().with_max_len(PARTITIONS_PER_TASK))
        .map(run_names)
        .collect();
    // A name seen again later (as a facts snapshot could order it) is one dir: its offsets are
    // those of all its runs.
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(runs.len());
    for top in runs.iter().filter_map(|r| r.top) {
        *seen.entry(top).or_default() += 1;
    }
    let mut merged: HashMap<&str, Offsets> = HashMap::new();
    for (r, n) in runs.iter().zip(&names) {
        if let Some(top) = r.top.filter(|t| seen.get(t).is_some_and(|c| *c > 1)) {
            let m = merged.entry(top).or_default();
            m.0.extend(&n.offsets.0);
            m.1.extend(&n.offsets.1);
        }
    }
    let spaces: Vec<RunSpace> = (runs.par_iter())
        .zip(names.par_iter())
        .with_max_len(PARTITIONS_PER_TASK)
        .map(|(r, n)| {
            let offsets = r.top.and_then(|t| merged.get(t)).unwrap_or(&n.offsets);
            let part = r.top.and_then(|t| parts.get(t).copied());
            attribute_run(r, n, offsets, part)
        })
        .collect();
    let mut out = SpaceUsage {
        path: usage.path.clone(),
        allocated: usage.allocated(),
        apparent: usage.entries.iter().map(|e| e.apparent).sum(),
        by_reason: ByReason::default(),
        dirs: Vec::new(),
        runs: Vec::with_capacity(runs.len()),
        problems: usage.problems.clone(),
    };
    // Dirs by name: indexes into `dirs`, sorted at the end.
    let mut dir_index: HashMap<&str, usize> = HashMap::new();
    let mut dirs: Vec<TopSpace> = Vec::new();
    for ((r, n), space) in runs.iter().zip(names).zip(spaces) {
        out.runs.push(space.entries);
        out.by_reason.merge(&space.by_reason);
        let (Some(top), Some((bytes, by_reason))) = (r.top, space.dir) else {
            continue;
        };
        let i = *dir_index.entry(top).or_insert_with(|| {
            dirs.push(TopSpace {
                dir_name: top.to_string(),
                topic: n.parsed.map(|p| (p.topic, p.partition)),
                bytes: 0,
                by_reason: ByReason::default(),
            });
            dirs.len() - 1
        });
        if let Some(d) = dirs.get_mut(i) {
            d.bytes = d.bytes.saturating_add(bytes);
            d.by_reason.merge(&by_reason);
        }
    }
    dirs.sort_by(|a, b| a.dir_name.cmp(&b.dir_name));
    out.dirs = dirs;
    out
}

impl SpaceUsage {
    /// Every entry with its reason, in the walk's order.
    pub fn entries(&self) -> impl Iterator<Item = &AttributedEntry> + '_ {
        self.runs.iter().flatten()
    }

    /// The allocated bytes of each live segment file (no leftover suffix) of each partition
    /// dir, by (dir name, base offset, kind): for looking many of them up.
    pub fn segment_files(&self) -> HashMap<(&str, i64, SegmentFileKind), u64> {
        self.entries()
            .filter_map(|e| Some(((e.top.as_deref()?, e.segment_file?), e.allocated)))
            .map(|((top, (base, kind)), allocated)| ((top, base, kind), allocated))
            .collect()
    }
}

/// A planned segment's reason (its verdict's; an older blocking segment's for one held behind
/// it).
pub fn segment_reason(p: &PartitionPlan, s: &SegmentPlan) -> SpaceReason {
    segment_reason_depth(p, s, 0)
}

/// The segment of `p` at `base`: a plan's segments are in base-offset order (the log's), so a
/// binary search keeps the attribution linear in the segments of a partition.
fn segment_at(p: &PartitionPlan, base: i64) -> Option<&SegmentPlan> {
    let i = (p.segments)
        .binary_search_by_key(&base, |s| s.base_offset.0)
        .ok()?;
    p.segments.get(i)
}

fn segment_reason_depth(p: &PartitionPlan, s: &SegmentPlan, depth: usize) -> SpaceReason {
    let pinned = p.compaction.as_ref().is_some_and(|c| {
        matches!(c.blocked_by, Some(Blocker::OpenTransaction { first_unstable_offset })
            if s.next_offset > first_unstable_offset)
    });
    let blocker = |base: i64| {
        if depth > 2 || base == s.base_offset.0 {
            return None;
        }
        let b = segment_at(p, base)?;
        Some(segment_reason_depth(p, b, depth + 1))
    };
    verdict_reason(&s.verdict, s.retained_expired, pinned, &blocker)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::disk::fixture;
    use crate::model::disk_usage::walk_usage;
    use std::path::Path;

    fn du_bytes(dir: &Path) -> u64 {
        let out = std::process::Command::new("du")
            .args(["-B1", "-s"])
            .arg(dir)
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        text.split_whitespace().next().unwrap().parse().unwrap()
    }

    /// 2026-11-30T13:32:47Z.
    const NOW: i64 = 1_796_045_567_000;

    fn check_sums(usage: &SpaceUsage) {
        let d = &usage.path;
        assert!(usage.problems.is_empty(), "{d:?}: {:?}", usage.problems);
        assert_eq!(usage.by_reason.total(), usage.allocated, "{d:?}");
        assert_eq!(usage.allocated, du_bytes(d), "{d:?}");
        let per_dir: u64 = usage.dirs.iter().map(|x| x.bytes).sum();
        let root_files: u64 = usage
            .entries()
            .filter(|e| e.depth == 0 || (e.depth == 1 && !e.is_dir))
            .map(|e| e.allocated)
            .sum();
        assert_eq!(per_dir + root_files, usage.allocated, "{d:?}");
    }

    #[test]
    fn basic_delete_splits_by_verdict_and_sums_to_du() {
        let (_, dirs, plan) = fixture::load("basic-delete", NOW);
        let usage = attribute(&plan, &walk_usage(&dirs[0].path));
        check_sums(&usage);
        // Every planned segment's .log is attributed by its verdict, none is left unplanned.
        assert_eq!(usage.by_reason.bytes(SpaceReason::NotPlanned), 0);
        let freed: u64 = plan.partitions.iter().map(|p| p.freed().bytes.get()).sum();
        assert!(freed > 0);
        assert!(usage.by_reason.bytes(SpaceReason::DeletedNextPass) >= freed);
        assert!(usage.by_reason.bytes(SpaceReason::Bookkeeping) > 0);
        assert!(usage.by_reason.bytes(SpaceReason::Directories) > 0);
    }

    /// The index-block lookup (`segment_files`) gives each live segment file of each partition
    /// dir the blocks the filesystem holds for it, and names no other file.
    #[test]
    fn segment_files_are_each_segment_file_with_its_blocks() {
        use std::os::unix::fs::MetadataExt;
        let (_, dirs, plan) = fixture::load("basic-delete", NOW);
        let root = &dirs[0].path;
        let usage = attribute(&plan, &walk_usage(root));
        let files = usage.segment_files();
        let mut expected = 0;
        for part in std::fs::read_dir(root).unwrap() {
            let part = part.unwrap().path();
            if !part.is_dir() {
                continue;
            }
            let top = part.file_name().unwrap().to_str().unwrap().to_string();
            for f in std::fs::read_dir(&part).unwrap() {
                let f = f.unwrap();
                let name = f.file_name().into_string().unwrap();
                let Some(seg) = parse_segment_file_name(&name).filter(|s| s.leftover.is_none())
                else {
                    continue;
                };
                let blocks = f.metadata().unwrap().blocks() * 512;
                let got = files.get(&(top.as_str(), seg.offset, seg.kind));
                assert_eq!(got, Some(&blocks), "{top}/{name}");
                expected += 1;
            }
        }
        assert!(expected > 10, "{expected} segment files");
        assert_eq!(files.len(), expected);
    }

    /// A partition dir whose entries come in two runs (another dir between them, as a facts
    /// snapshot could order them) is one dir: its bytes summed once, its `.log`'s indexes
    /// found across both runs.
    #[test]
    fn a_dir_seen_again_later_is_attributed_as_one() {
        let (_, dirs, plan) = fixture::load("basic-delete", NOW);
        let whole = attribute(&plan, &walk_usage(&dirs[0].path));
        let mut usage = walk_usage(&dirs[0].path);
        // Move the first partition dir's `.log` files to the end: its entries now come in two
        // runs with other dirs between them.
        let first = whole.dirs.iter().find(|d| d.topic.is_some()).unwrap();
        let is_log = |e: &UsedEntry| {
            e.top() == Some(first.dir_name.as_str())
                && e.name().is_some_and(|n| n.ends_with(".log"))
        };
        let (logs, mut rest): (Vec<_>, Vec<_>) = usage.entries.into_iter().partition(is_log);
        assert!(!logs.is_empty());
        rest.extend(logs);
        usage.entries = rest;
        let split = attribute(&plan, &usage);
        assert_eq!(split.dirs, whole.dirs);
        assert_eq!(split.by_reason, whole.by_reason);
        let sorted = |u: &SpaceUsage| {
            let mut e: Vec<_> = u
                .entries()
                .map(|e| {
                    (
                        e.top.as_deref().map(str::to_string),
                        e.segment_file,
                        e.reason,
                    )
                })
                .collect();
            e.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
            e
        };
        assert_eq!(sorted(&split), sorted(&whole));
    }

    #[test]
    fn future_timestamps_are_blocked_bytes() {
        let (_, dirs, plan) = fixture::load("future-timestamps", NOW);
        let usage = attribute(&plan, &walk_usage(&dirs[0].path));
        check_sums(&usage);
        assert!(usage.by_reason.bytes(SpaceReason::BlockedByTimestamp) > 0);
    }
}
