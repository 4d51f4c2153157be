//! Why every byte of a log dir is there: the blocks of each entry ([`walk_usage`]) given the
//! reason [`crate::rules::space`] finds for it, a segment's from the plan's verdict on it. The
//! reasons partition the log dir's blocks, so their sum is the filesystem's usage of the dir
//! (`du -B1 -s`, dirs' own blocks included).
//!
//! [`walk_usage`]: crate::model::disk_usage::walk_usage

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;

use rayon::prelude::*;

use crate::model::disk_usage::{DirUsage, UsageProblem, UsedEntry};
use crate::model::names::{
    parse_partition_dir_name, parse_segment_file_name, PartitionDirName, SegmentFileKind,
    SegmentFileName,
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
pub struct ByReason(BTreeMap<SpaceReason, ReasonSums>);

/// One reason's sums.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct ReasonSums {
    allocated: u64,
    entries: u64,
    apparent: u64,
}

impl ByReason {
    fn add(&mut self, reason: SpaceReason, allocated: u64, apparent: u64) {
        let e = self.0.entry(reason).or_default();
        e.allocated = e.allocated.saturating_add(allocated);
        e.apparent = e.apparent.saturating_add(apparent);
        e.entries += 1;
    }

    /// Adds `other`'s bytes and entries.
    fn merge(&mut self, other: &ByReason) {
        for (reason, s) in &other.0 {
            let e = self.0.entry(*reason).or_default();
            e.allocated = e.allocated.saturating_add(s.allocated);
            e.apparent = e.apparent.saturating_add(s.apparent);
            e.entries += s.entries;
        }
    }

    /// The reasons with entries, in report order.
    pub fn rows(&self) -> Vec<ReasonBytes> {
        self.0
            .iter()
            .map(|(reason, s)| ReasonBytes {
                reason: *reason,
                bytes: s.allocated,
                files: s.entries,
            })
            .collect()
    }

    /// The allocated bytes of `reason`.
    pub fn bytes(&self, reason: SpaceReason) -> u64 {
        self.0.get(&reason).map_or(0, |e| e.allocated)
    }

    /// The apparent bytes (lengths) of `reason`.
    pub fn apparent(&self, reason: SpaceReason) -> u64 {
        self.0.get(&reason).map_or(0, |e| e.apparent)
    }

    /// The entries (files or dirs) of `reason`.
    pub fn entries(&self, reason: SpaceReason) -> u64 {
        self.0.get(&reason).map_or(0, |e| e.entries)
    }

    /// Every reason's bytes.
    pub fn total(&self) -> u64 {
        self.0.values().map(|e| e.allocated).sum()
    }
}

/// The blocks of one segment's offset and time indexes (live files, no leftover suffix): what
/// a recovery that rebuilds them frees first. 0 for a file not there.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SegmentIndexBlocks {
    /// The segment's base offset.
    pub base_offset: i64,
    /// The `.index`'s allocated bytes.
    pub index: u64,
    /// The `.timeindex`'s allocated bytes.
    pub time_index: u64,
}

impl SegmentIndexBlocks {
    fn add(&mut self, kind: SegmentFileKind, allocated: u64) {
        match kind {
            SegmentFileKind::Index => self.index = self.index.saturating_add(allocated),
            SegmentFileKind::TimeIndex => {
                self.time_index = self.time_index.saturating_add(allocated)
            }
            _ => {}
        }
    }
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
    /// Its segments' index blocks, by base offset (sums, not a row per file: a million
    /// segments' files cost no entry each).
    pub index_blocks: Vec<SegmentIndexBlocks>,
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
/// partition dir, each partition dir file's name as a segment file's (for its class and its
/// index blocks), and the run's offsets.
struct RunNames {
    parsed: Option<PartitionDirName>,
    segment_files: Vec<Option<SegmentFileName>>,
    offsets: Offsets,
}

fn run_names(run: &Run<'_>) -> RunNames {
    let mut offsets = Offsets::default();
    let segment_files = (run.entries.iter())
        .map(|e| {
            let f = (e.path.depth() == 2)
                .then(|| e.name().and_then(parse_segment_file_name))
                .flatten()?;
            match (f.kind, f.leftover) {
                (SegmentFileKind::Log, None) => {
                    offsets.0.insert(f.offset);
                }
                (SegmentFileKind::Snapshot, None) => {
                    offsets.1.insert(f.offset);
                }
                _ => {}
            }
            Some(f)
        })
        .collect();
    RunNames {
        parsed: run.top.and_then(parse_partition_dir_name),
        segment_files,
        offsets,
    }
}

/// One run attributed: its bytes by reason, and what it adds to its top-level entry's dir
/// (`None`: it adds none, as a root file).
struct RunSpace {
    by_reason: ByReason,
    dir: Option<DirSpace>,
}

/// What a run adds to its top-level dir.
#[derive(Default)]
struct DirSpace {
    bytes: u64,
    by_reason: ByReason,
    index_blocks: Vec<SegmentIndexBlocks>,
}

fn attribute_run(
    run: &Run<'_>,
    names: &RunNames,
    offsets: &Offsets,
    part: Option<&PartitionPlan>,
) -> RunSpace {
    let segment_of = |base: i64| {
        let p = part?;
        Some((p, segment_at(p, base)?))
    };
    let mut out = RunSpace {
        by_reason: ByReason::default(),
        dir: None,
    };
    for (e, segment_file) in run.entries.iter().zip(&names.segment_files) {
        let facts = EntryFacts {
            path: &e.path,
            is_dir: e.is_dir,
            log_bases: &offsets.0,
            snapshot_offsets: &offsets.1,
            segment_name: *segment_file,
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
        out.by_reason.add(reason, e.allocated, e.apparent);
        // Root files are their own "dir" only when they are dirs; root files count in the log
        // dir's totals alone.
        if run.top.is_some() && (e.path.depth() > 1 || e.is_dir) {
            let d = out.dir.get_or_insert_with(DirSpace::default);
            d.bytes = d.bytes.saturating_add(e.allocated);
            d.by_reason.add(reason, e.allocated, e.apparent);
            if let Some(SegmentFileName {
                offset: base,
                kind: kind @ (SegmentFileKind::Index | SegmentFileKind::TimeIndex),
                leftover: None,
            }) = *segment_file
            {
                // A dir lists a segment's files together (names sorted): one row per base.
                match d.index_blocks.last_mut() {
                    Some(last) if last.base_offset == base => last.add(kind, e.allocated),
                    _ => {
                        let mut b = SegmentIndexBlocks {
                            base_offset: base,
                            ..SegmentIndexBlocks::default()
                        };
                        b.add(kind, e.allocated);
                        d.index_blocks.push(b);
                    }
                }
            }
        }
    }
    out
}

/// `blocks` in base offset order, one row per base (a dir's runs appended one after another, or
/// a base's files not listed together).
fn merge_index_blocks(blocks: &mut Vec<SegmentIndexBlocks>) {
    if blocks.is_sorted_by(|a, b| a.base_offset < b.base_offset) {
        return;
    }
    blocks.sort_by_key(|b| b.base_offset);
    blocks.dedup_by(|next, kept| {
        let same = next.base_offset == kept.base_offset;
        if same {
            kept.index = kept.index.saturating_add(next.index);
            kept.time_index = kept.time_index.saturating_add(next.time_index);
        }
        same
    });
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
    // A name seen again later (as a facts snapshot could order it) is one dir: its offsets are
    // those of all its runs, read first.
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(runs.len());
    for top in runs.iter().filter_map(|r| r.top) {
        *seen.entry(top).or_default() += 1;
    }
    let mut merged: HashMap<&str, Offsets> = HashMap::new();
    for r in &runs {
        if let Some(top) = r.top.filter(|t| seen.get(t).is_some_and(|c| *c > 1)) {
            let n = run_names(r);
            let m = merged.entry(top).or_default();
            m.0.extend(&n.offsets.0);
            m.1.extend(&n.offsets.1);
        }
    }
    // Each run's names are read where it is attributed and dropped there: no list of every
    // file's parsed name is held.
    let spaces: Vec<(RunSpace, Option<PartitionDirName>)> = (runs.par_iter())
        .with_max_len(PARTITIONS_PER_TASK)
        .map(|r| {
            let n = run_names(r);
            let offsets = r.top.and_then(|t| merged.get(t)).unwrap_or(&n.offsets);
            let part = r.top.and_then(|t| parts.get(t).copied());
            (attribute_run(r, &n, offsets, part), n.parsed)
        })
        .collect();
    let mut out = SpaceUsage {
        path: usage.path.clone(),
        allocated: usage.allocated(),
        apparent: usage.entries.iter().map(|e| e.apparent).sum(),
        by_reason: ByReason::default(),
        dirs: Vec::new(),
        problems: usage.problems.clone(),
    };
    // Dirs by name: indexes into `dirs`, sorted at the end.
    let mut dir_index: HashMap<&str, usize> = HashMap::new();
    let mut dirs: Vec<TopSpace> = Vec::new();
    for (r, (space, parsed)) in runs.iter().zip(spaces) {
        out.by_reason.merge(&space.by_reason);
        let (Some(top), Some(dir)) = (r.top, space.dir) else {
            continue;
        };
        let i = *dir_index.entry(top).or_insert_with(|| {
            dirs.push(TopSpace {
                dir_name: top.to_string(),
                topic: parsed.map(|p| (p.topic, p.partition)),
                bytes: 0,
                by_reason: ByReason::default(),
                index_blocks: Vec::new(),
            });
            dirs.len() - 1
        });
        if let Some(d) = dirs.get_mut(i) {
            d.bytes = d.bytes.saturating_add(dir.bytes);
            d.by_reason.merge(&dir.by_reason);
            if d.index_blocks.is_empty() {
                d.index_blocks = dir.index_blocks;
            } else {
                d.index_blocks.extend(dir.index_blocks);
            }
        }
    }
    dirs.sort_by(|a, b| a.dir_name.cmp(&b.dir_name));
    for d in &mut dirs {
        merge_index_blocks(&mut d.index_blocks);
    }
    out.dirs = dirs;
    out
}

impl SpaceUsage {
    /// The top-level dir named `dir_name`.
    pub fn dir(&self, dir_name: &str) -> Option<&TopSpace> {
        let i = (self.dirs)
            .binary_search_by(|d| d.dir_name.as_str().cmp(dir_name))
            .ok()?;
        self.dirs.get(i)
    }
}

impl TopSpace {
    /// The index blocks of the segment at `base_offset` (zeros for one not listed).
    pub fn index_blocks_of(&self, base_offset: i64) -> SegmentIndexBlocks {
        (self.index_blocks)
            .binary_search_by_key(&base_offset, |b| b.base_offset)
            .ok()
            .and_then(|i| self.index_blocks.get(i).copied())
            .unwrap_or(SegmentIndexBlocks {
                base_offset,
                ..SegmentIndexBlocks::default()
            })
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

    /// `usage` of `walked`: its reasons and its dirs with the root files sum to `du`'s figure.
    fn check_sums(usage: &SpaceUsage, walked: &DirUsage) {
        let d = &usage.path;
        assert!(usage.problems.is_empty(), "{d:?}: {:?}", usage.problems);
        assert_eq!(usage.by_reason.total(), usage.allocated, "{d:?}");
        assert_eq!(usage.allocated, du_bytes(d), "{d:?}");
        let per_dir: u64 = usage.dirs.iter().map(|x| x.bytes).sum();
        let root_files: u64 = (walked.entries.iter())
            .filter(|e| e.path.depth() == 0 || (e.path.depth() == 1 && !e.is_dir))
            .map(|e| e.allocated)
            .sum();
        assert_eq!(per_dir + root_files, usage.allocated, "{d:?}");
    }

    #[test]
    fn basic_delete_splits_by_verdict_and_sums_to_du() {
        let (_, dirs, plan) = fixture::load("basic-delete", NOW);
        let walked = walk_usage(&dirs[0].path);
        let usage = attribute(&plan, &walked);
        check_sums(&usage, &walked);
        // Every planned segment's .log is attributed by its verdict, none is left unplanned.
        assert_eq!(usage.by_reason.bytes(SpaceReason::NotPlanned), 0);
        let freed: u64 = plan.partitions.iter().map(|p| p.freed().bytes.get()).sum();
        assert!(freed > 0);
        assert!(usage.by_reason.bytes(SpaceReason::DeletedNextPass) >= freed);
        assert!(usage.by_reason.bytes(SpaceReason::Bookkeeping) > 0);
        assert!(usage.by_reason.bytes(SpaceReason::Directories) > 0);
    }

    /// The index blocks (`TopSpace::index_blocks_of`) give each live segment's offset and time
    /// index the blocks the filesystem holds for it, one row per segment with either.
    #[test]
    fn index_blocks_are_each_segment_index_with_its_blocks() {
        use std::os::unix::fs::MetadataExt;
        let (_, dirs, plan) = fixture::load("basic-delete", NOW);
        let root = &dirs[0].path;
        let usage = attribute(&plan, &walk_usage(root));
        let mut expected = BTreeSet::new();
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
                let got = usage.dir(&top).unwrap().index_blocks_of(seg.offset);
                match seg.kind {
                    SegmentFileKind::Index => assert_eq!(got.index, blocks, "{top}/{name}"),
                    SegmentFileKind::TimeIndex => {
                        assert_eq!(got.time_index, blocks, "{top}/{name}")
                    }
                    _ => continue,
                }
                expected.insert((top.clone(), seg.offset));
            }
        }
        assert!(expected.len() > 5, "{} segments", expected.len());
        let rows: usize = usage.dirs.iter().map(|d| d.index_blocks.len()).sum();
        assert_eq!(rows, expected.len());
        let none = usage.dirs[0].index_blocks_of(i64::MAX);
        assert_eq!((none.index, none.time_index), (0, 0));
    }

    /// A partition dir whose entries come in two runs (another dir between them, as a facts
    /// snapshot could order them) is one dir: its bytes summed once, its `.log`'s indexes
    /// found across both runs.
    #[test]
    fn a_dir_seen_again_later_is_attributed_as_one() {
        let (_, dirs, plan) = fixture::load("basic-delete", NOW);
        let whole = attribute(&plan, &walk_usage(&dirs[0].path));
        let mut usage = walk_usage(&dirs[0].path);
        // Move the first partition dir's `.log` and `.index` files to the end: its entries now
        // come in two runs with other dirs between them, a segment's time index in the first.
        let first = whole.dirs.iter().find(|d| d.topic.is_some()).unwrap();
        assert!(!first.index_blocks.is_empty());
        let moved = |e: &UsedEntry| {
            e.top() == Some(first.dir_name.as_str())
                && e.name()
                    .is_some_and(|n| n.ends_with(".log") || n.ends_with(".index"))
        };
        let (logs, mut rest): (Vec<_>, Vec<_>) = usage.entries.into_iter().partition(moved);
        assert!(!logs.is_empty());
        rest.extend(logs);
        usage.entries = rest;
        let split = attribute(&plan, &usage);
        assert_eq!(split.dirs, whole.dirs);
        assert_eq!(split.by_reason, whole.by_reason);
    }

    #[test]
    fn future_timestamps_are_blocked_bytes() {
        let (_, dirs, plan) = fixture::load("future-timestamps", NOW);
        let walked = walk_usage(&dirs[0].path);
        let usage = attribute(&plan, &walked);
        check_sums(&usage, &walked);
        assert!(usage.by_reason.bytes(SpaceReason::BlockedByTimestamp) > 0);
    }
}
