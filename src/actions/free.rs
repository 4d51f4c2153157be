//! `logclean free --target BYTES|PERCENT`: the least harmful reclaim that brings each
//! filesystem's free space to the target (issue 27), in this order, stopping once it is
//! reached:
//!
//! 1. what the broker deletes anyway: `.deleted` files, then `-delete` dirs;
//! 2. leftovers it never deletes: `-stray` dirs, only when the metadata log assigns the
//!    partition to other nodes or to no one (the topic id is gone);
//! 3. abandoned `-future` dirs, only when the source replica is among the dirs given and holds
//!    every offset the future one does (a move that is still wanted starts again from it);
//! 4. the remote index cache (`remote-log-index-cache/`), whole: indexes the broker fetches
//!    again from remote storage on demand ([`remote_index_cache`]);
//! 5. what retention would delete at the run's instant: `delete`'s own plan
//!    ([`super::delete_run::prepare`], [`super::delete::plan_log_dir`]), oldest segment first
//!    per partition, partitions in the plan's order; a partition cut short keeps a prefix of
//!    the retention plan's deletions (its new log start is the first segment kept);
//! 6. with `--beyond-retention TOPIC` only: that topic's oldest segments past retention,
//!    whole segments below the high watermark, never the active one; the consumer groups
//!    whose committed offsets fall below the new log start are named with the records they
//!    lose.
//!
//! Bytes count as freed only when they leave the filesystem: removed (`--purge`) or moved to a
//! quarantine on another filesystem; a quarantine on the log dir's own filesystem frees
//! nothing, and the run says so. Figures are allocated bytes (`st_blocks`), as the filesystem
//! counts them. The same refusals as `delete`: a held `.lock`, configs nobody read (unless
//! `--accept-assumed-configs`), a tiered upload state nobody here can see.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::checks::disk::{FsSpace, FsStats, Given, Statvfs};
use crate::formats::partition_metadata::parse_partition_metadata;
use crate::model::cluster::{Assumptions, ClusterView};
use crate::model::log_dir::LogDir;
use crate::model::names::{
    name_text, parse_partition_dir_name, path_text, PartitionDirState, METADATA_TOPIC,
};
use crate::model::targets::LoadProgress;
use crate::model::units::Offset;
use crate::plan::PartitionPlan;
use crate::rules::groups::Loss;
use crate::rules::retention::{RetainReason, Verdict};
use crate::rules::space::REMOTE_INDEX_CACHE_DIR;

use super::delete::{plan_log_dir, plan_partition, DeleteReport};
use super::delete_run::{
    assumed_refusals, canonical, group_losses, prepare, DeleteOptions, DeleteStop, LogStarts,
    Prepared,
};
use super::fsutil::RealFs;
use super::guard::FileStamp;
use super::journal::{execute, preflight, space_release};
use super::plan::{ActionPlan, SpaceRelease, Step};
use super::rebuild_index::IndexSizing;
use super::run::LogDirRun;
use super::signals::defer_interrupts;
use super::ActionError;

/// The free space wanted.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// Bytes free.
    Bytes(u64),
    /// Percent of the filesystem's size free.
    Percent(f64),
}

impl Target {
    /// The free bytes wanted on a filesystem of `total` bytes.
    pub fn bytes_of(self, total: u64) -> u64 {
        match self {
            Target::Bytes(n) => n,
            Target::Percent(p) => ((total as f64) * p / 100.0).ceil() as u64,
        }
    }
}

/// What `free` is asked to do.
#[derive(Debug, Clone)]
pub struct FreeOptions {
    /// `delete`'s options (mutation, configs, instant, `--accept-assumed-configs`).
    pub delete: DeleteOptions,
    /// The free space wanted on each filesystem.
    pub target: Target,
    /// `--beyond-retention TOPIC`: topics whose segments may go past retention.
    pub beyond_retention: Vec<String>,
    /// `--disk-space FREE,TOTAL`: the figures of every log dir's filesystem (tests, copies).
    pub disk_space: Option<FsSpace>,
}

/// The reclaim tiers, least harmful first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// `.deleted` files and `-delete` dirs: the broker removes them itself.
    BrokerDeletes,
    /// `-stray` dirs assigned elsewhere or to no one.
    Stray,
    /// `-future` dirs whose source replica is complete.
    Future,
    /// The remote index cache (`remote-log-index-cache/`): indexes of tiered segments the
    /// broker fetches again from remote storage when it needs them.
    RemoteIndexCache,
    /// What retention deletes at the instant.
    Retention,
    /// Past retention, `--beyond-retention TOPIC` only.
    BeyondRetention,
}

impl Tier {
    /// For the table.
    pub fn text(self) -> &'static str {
        match self {
            Tier::BrokerDeletes => "broker deletes",
            Tier::Stray => "stray",
            Tier::Future => "future",
            Tier::RemoteIndexCache => "remote index cache",
            Tier::Retention => "retention",
            Tier::BeyondRetention => "beyond retention",
        }
    }
}

/// One thing that can be reclaimed (taken or not).
#[derive(Debug, Clone, Serialize)]
pub struct Reclaim {
    /// Its tier.
    pub tier: Tier,
    /// The log dir.
    #[serde(with = "crate::model::names::path_serde")]
    pub log_dir: PathBuf,
    /// A file or dir, relative to the log dir (`<dir>/` for a whole dir; a segment's `.log`).
    pub what: String,
    /// Allocated bytes.
    pub bytes: u64,
    /// Why it may go, or why it is not taken.
    pub why: String,
    /// For a skipped one: the option that would take it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub option: Option<String>,
    /// A leftover's files (a dir's, or the one file), in the order they go.
    #[serde(skip)]
    files: Vec<PathBuf>,
    /// A leftover dir removed once emptied.
    #[serde(skip)]
    dir: Option<PathBuf>,
    /// A segment's partition (index in the retention plan) and segment index.
    #[serde(skip)]
    segment: Option<(usize, usize)>,
}

/// One filesystem: its log dirs, figures and how far the plan gets.
#[derive(Debug, Clone, Serialize)]
pub struct FsTarget {
    /// Its log dirs.
    #[serde(serialize_with = "paths")]
    pub log_dirs: Vec<PathBuf>,
    /// `statvfs` or `--disk-space`.
    pub figures: &'static str,
    /// Free bytes before.
    pub free_bytes: u64,
    /// Its size.
    pub total_bytes: u64,
    /// The free bytes wanted.
    pub target_free_bytes: u64,
    /// Bytes to free to get there.
    pub needed_bytes: u64,
    /// Bytes the plan frees.
    pub planned_bytes: u64,
    /// Whether the plan reaches the target.
    pub reached: bool,
    /// Free bytes after the applied run (statvfs; `None`: dry run or `--disk-space`).
    pub free_bytes_after: Option<u64>,
    /// Where the moved bytes go.
    pub release: SpaceRelease,
}

fn paths<S: serde::Serializer>(v: &[PathBuf], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(v.iter().map(|p| path_text(p)))
}

/// The planned (and maybe applied) reclaim.
#[derive(Debug)]
pub struct Freeing {
    /// The target.
    pub target: Target,
    /// Per filesystem.
    pub filesystems: Vec<FsTarget>,
    /// What is taken, in the order it goes.
    pub taken: Vec<Reclaim>,
    /// What is not taken and why (with the option that would take it).
    pub skipped: Vec<Reclaim>,
    /// Topics `--beyond-retention` could take more from, with their bytes (when not reached).
    pub beyond_potential: Vec<(String, u64)>,
    /// The consumer groups that lose data.
    pub lost: Vec<Loss>,
    /// Per log dir: the plan, `delete`'s per-partition reports and the journal.
    pub log_dirs: Vec<LogDirRun<DeleteReport>>,
    /// Partitions left alone for assumed configs or an unknown upload state that the target
    /// needed: the run is refused, as `delete` refuses.
    pub refused_assumed: usize,
    /// `--fail-if-group-loses-data` and a group loses data: the run is refused, as `delete`
    /// refuses.
    pub refuse_losses: bool,
    /// What the configs assume.
    pub assumptions: Assumptions,
    /// Whether the plans were applied.
    pub executed: bool,
}

impl Freeing {
    /// Whether every filesystem reaches its target.
    pub fn reached(&self) -> bool {
        self.filesystems.iter().all(|f| f.reached)
    }

    /// Whether the run was refused (nothing changed).
    pub fn refused(&self) -> bool {
        self.refused_assumed > 0 || self.refuse_losses
    }
}

/// Allocated bytes of a file (0 when it cannot be stat'ed).
fn allocated(path: &Path) -> u64 {
    fs::symlink_metadata(path).map_or(0, |m| m.blocks().saturating_mul(512))
}

fn rel(log_dir: &Path, p: &Path) -> String {
    path_text(p.strip_prefix(log_dir).unwrap_or(p))
}

fn read_dir_sorted(dir: &Path) -> Result<Vec<PathBuf>, ActionError> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).map_err(|e| ActionError::io(dir, e))? {
        out.push(e.map_err(|e| ActionError::io(dir, e))?.path());
    }
    out.sort();
    Ok(out)
}

fn leftover(
    tier: Tier,
    log_dir: &Path,
    files: Vec<PathBuf>,
    dir: Option<PathBuf>,
    why: String,
) -> Reclaim {
    let what = match &dir {
        Some(d) => format!("{}/", rel(log_dir, d)),
        None => files.first().map(|f| rel(log_dir, f)).unwrap_or_default(),
    };
    Reclaim {
        tier,
        log_dir: log_dir.to_path_buf(),
        what,
        bytes: files.iter().map(|f| allocated(f)).sum(),
        why,
        option: None,
        files,
        dir,
        segment: None,
    }
}

/// A partition dir's files, refused when it holds anything but regular files (a dir the
/// broker made is flat).
fn flat_files(dir: &Path) -> Result<Result<Vec<PathBuf>, String>, ActionError> {
    let entries = read_dir_sorted(dir)?;
    for e in &entries {
        let m = fs::symlink_metadata(e).map_err(|err| ActionError::io(e, err))?;
        if !m.is_file() {
            return Ok(Err(format!(
                "holds `{}`, not a regular file: left alone",
                path_text(e)
            )));
        }
    }
    Ok(Ok(entries))
}

/// The partition dirs of a log dir by state.
struct Dirs {
    live: Vec<PathBuf>,
    delete: Vec<PathBuf>,
    stray: Vec<PathBuf>,
    future: Vec<PathBuf>,
}

fn partition_dirs(log_dir: &Path) -> Result<Dirs, ActionError> {
    let mut d = Dirs {
        live: Vec::new(),
        delete: Vec::new(),
        stray: Vec::new(),
        future: Vec::new(),
    };
    for p in read_dir_sorted(log_dir)? {
        let is_dir = fs::symlink_metadata(&p).is_ok_and(|m| m.is_dir());
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        let Some(parsed) = name
            .as_deref()
            .filter(|_| is_dir)
            .and_then(parse_partition_dir_name)
        else {
            continue;
        };
        if parsed.is_metadata_log() || parsed.topic == METADATA_TOPIC {
            continue;
        }
        match parsed.state {
            PartitionDirState::Live => d.live.push(p),
            PartitionDirState::Delete(_) => d.delete.push(p),
            PartitionDirState::Stray(_) => d.stray.push(p),
            PartitionDirState::Future(_) => d.future.push(p),
        }
    }
    Ok(d)
}

/// After the leftovers, before retention: the remote index cache, whole. Safe with the broker
/// stopped (Kafka's `RemoteIndexCache.init`): its start creates the dir when it is missing,
/// deletes `.tmp`/`.deleted` files and any entry missing one of its three indexes, and an index
/// not in the cache is fetched from remote storage when a fetch needs it; the cost is those
/// fetches, no data.
fn remote_index_cache(
    log_dir: &Path,
    out: &mut Vec<Reclaim>,
    skipped: &mut Vec<Reclaim>,
) -> Result<(), ActionError> {
    let cache = log_dir.join(REMOTE_INDEX_CACHE_DIR);
    if !fs::symlink_metadata(&cache).is_ok_and(|m| m.is_dir()) {
        return Ok(());
    }
    let why = "indexes of tiered segments the broker fetches again from remote storage when \
               it needs them; its start recreates the dir (RemoteIndexCache)";
    match flat_files(&cache)? {
        Ok(files) if files.is_empty() => {}
        Ok(files) => out.push(leftover(
            Tier::RemoteIndexCache,
            log_dir,
            files,
            Some(cache),
            why.to_string(),
        )),
        Err(not) => skipped.push(leftover(
            Tier::RemoteIndexCache,
            log_dir,
            Vec::new(),
            Some(cache),
            not,
        )),
    }
    Ok(())
}

/// Tier 1: `.deleted` files in live partition dirs, then `-delete` dirs.
fn broker_deletes(
    log_dir: &Path,
    dirs: &Dirs,
    out: &mut Vec<Reclaim>,
    skipped: &mut Vec<Reclaim>,
) -> Result<(), ActionError> {
    for d in &dirs.live {
        for f in read_dir_sorted(d)? {
            let name = f.file_name().map(|n| n.to_string_lossy().into_owned());
            if name.is_some_and(|n| n.ends_with(".deleted")) && f.is_file() {
                let why = "marked for deletion: the broker removes it at its next start or \
                           after file.delete.delay.ms"
                    .to_string();
                out.push(leftover(Tier::BrokerDeletes, log_dir, vec![f], None, why));
            }
        }
    }
    for d in &dirs.delete {
        let why = "a deleted replica: the broker removes the dir after file.delete.delay.ms";
        match flat_files(d)? {
            Ok(files) => out.push(leftover(
                Tier::BrokerDeletes,
                log_dir,
                files,
                Some(d.clone()),
                why.to_string(),
            )),
            Err(not) => skipped.push(leftover(
                Tier::BrokerDeletes,
                log_dir,
                Vec::new(),
                Some(d.clone()),
                not,
            )),
        }
    }
    Ok(())
}

/// The node that owns `log_dir` (its meta.properties, else the view's broker id).
fn node_of(view: &ClusterView, log_dir: &Path) -> Option<i32> {
    let here = canonical(log_dir);
    (view.log_dir_info.iter())
        .find(|i| canonical(&i.path) == here)
        .and_then(|i| i.node_id)
        .or(view.broker_id)
}

/// Tier 2: whether the stray dir `d` may go: the metadata assigns its partition to other nodes
/// or to no one. `Err`: why it stays.
fn stray_verdict(view: &ClusterView, node: Option<i32>, d: &Path) -> Result<String, String> {
    let name = d
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let partition = parse_partition_dir_name(&name).map(|p| p.partition);
    if view.metadata.dir.is_none() {
        return Err(
            "no metadata log among the dirs given: who holds the partition is unknown".into(),
        );
    }
    let Some(node) = node else {
        return Err("the log dir's node id is unknown (no meta.properties node.id)".into());
    };
    let id = fs::read(d.join("partition.metadata"))
        .ok()
        .and_then(|b| parse_partition_metadata(&b).ok())
        .map(|m| m.topic_id);
    let Some(id) = id else {
        return Err("no readable partition.metadata: its topic id is unknown".into());
    };
    let Some(topic) = view.image.topics_by_id.get(&id) else {
        return Ok(format!(
            "its topic id {id} is not in the metadata: the topic was deleted, no node holds it"
        ));
    };
    let replicas = (view.image.topics.get(topic))
        .and_then(|t| partition.and_then(|p| t.partitions.get(&p)))
        .map(|p| p.replicas.clone());
    match replicas {
        None => Ok(format!(
            "{topic} has no such partition in the metadata: no node holds it"
        )),
        Some(r) if r.contains(&node) => Err(format!(
            "the metadata assigns {topic}-{} to this node {node} (replicas {r:?}): kept",
            partition.unwrap_or(-1)
        )),
        Some(r) => Ok(format!(
            "the metadata assigns {topic}-{} to nodes {r:?}, not this node {node}",
            partition.unwrap_or(-1)
        )),
    }
}

/// The log end offset of a loaded partition dir.
fn log_end(dirs: &[LogDir], path: &Path) -> Option<i64> {
    let want = canonical(path);
    dirs.iter()
        .flat_map(|d| &d.partitions)
        .find(|p| canonical(&p.path) == want)
        .and_then(|p| p.log_end_offset())
        .map(|o| o.get())
}

/// Tier 3: whether the future dir `d` may go: its source replica (the live dir of the same
/// topic-partition in another log dir given) holds every offset it does. `Err`: why it stays.
fn future_verdict(prep: &Prepared, d: &Path) -> Result<String, String> {
    let name = d
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Some(parsed) = parse_partition_dir_name(&name) else {
        return Err("its name is not a partition's".into());
    };
    let live = format!("{}-{}", parsed.topic, parsed.partition);
    let source = (prep.targets.iter())
        .map(|t| t.log_dir.path.join(&live))
        .find(|p| p.is_dir());
    let Some(source) = source else {
        return Err(format!(
            "its source replica {live} is not in the log dirs given: the move may be the only copy"
        ));
    };
    let future_end = future_log_end(d);
    match (log_end(&prep.dirs, &source), future_end) {
        (Some(s), Some(f)) if s >= f => Ok(format!(
            "an abandoned move: the source replica {} holds every offset (log end {s} >= {f})",
            path_text(&source)
        )),
        (Some(s), Some(f)) => Err(format!(
            "the source replica ends at {s}, before the future one's {f}: kept"
        )),
        (Some(s), None) => Ok(format!(
            "an abandoned move with no records: the source replica {} ends at {s}",
            path_text(&source)
        )),
        (None, _) => Err(format!(
            "the source replica {} could not be read: kept",
            path_text(&source)
        )),
    }
}

/// The future dir's log end: its newest segment's base plus its record count is not read
/// here; the newest `.log` file's base offset and length > 0 say whether it holds data past it.
fn future_log_end(d: &Path) -> Option<i64> {
    let mut bases: Vec<(i64, u64)> = fs::read_dir(d)
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let base = name.strip_suffix(".log")?.parse::<i64>().ok()?;
            Some((base, e.metadata().ok()?.len()))
        })
        .collect();
    bases.sort_unstable();
    let (base, len) = bases.last().copied()?;
    // A non-empty newest segment holds at least one offset at or past its base.
    Some(if len > 0 {
        base.saturating_add(1)
    } else {
        base
    })
}

/// The segment files of segment `base` in `dir`, and their allocated bytes.
fn segment_bytes(dir: &Path, base: i64) -> u64 {
    [".log", ".index", ".timeindex", ".txnindex"]
        .iter()
        .map(|s| allocated(&dir.join(format!("{base:020}{s}"))))
        .sum()
}

fn segment_reclaim(
    tier: Tier,
    log_dir: &Path,
    p: &PartitionPlan,
    pi: usize,
    si: usize,
    why: String,
) -> Option<Reclaim> {
    let s = p.segments.get(si)?;
    let dir = log_dir.join(&p.dir_name);
    let base = s.base_offset.get();
    Some(Reclaim {
        tier,
        log_dir: log_dir.to_path_buf(),
        what: format!("{}/{base:020}.log", p.dir_name),
        bytes: segment_bytes(&dir, base),
        why,
        option: None,
        files: Vec::new(),
        dir: None,
        segment: Some((pi, si)),
    })
}

/// Whether `delete` would refuse the partition's deletions (the past-HW, non-prefix, cleaner
/// and metadata-log rules): planned into a scratch plan, as `delete` plans them.
fn delete_refuses(
    p: &PartitionPlan,
    log_dir: &Path,
    sizing: Option<IndexSizing>,
) -> Option<String> {
    let mut scratch = ActionPlan::default();
    match plan_partition(p, &log_dir.join(&p.dir_name), sizing, &mut scratch) {
        Ok(r) if r.refused() => Some(r.outcome),
        Ok(_) => None,
        Err(e) => Some(format!("refused: {e}")),
    }
}

/// What tiers 4 and 5 collect: the candidates, those not taken, and per topic what
/// `--beyond-retention` would add.
struct Collected<'a> {
    out: &'a mut Vec<Reclaim>,
    skipped: &'a mut Vec<Reclaim>,
    potential: &'a mut BTreeMap<String, u64>,
}

/// Tiers 4 and 5 of one log dir.
fn segment_candidates(
    prep: &Prepared,
    opts: &FreeOptions,
    log_dir: &Path,
    sizings: &BTreeMap<&str, IndexSizing>,
    refused: &BTreeSet<usize>,
    c: Collected<'_>,
) {
    let Collected {
        out,
        skipped,
        potential,
    } = c;
    let here = canonical(log_dir);
    for (pi, p) in prep.retention.partitions.iter().enumerate() {
        if canonical(&p.log_dir) != here || p.topic == METADATA_TOPIC {
            continue;
        }
        let sizing = sizings.get(p.dir_name.as_str()).copied();
        let deleted = (p.segments.iter())
            .take_while(|s| matches!(s.verdict, Verdict::Delete { .. }))
            .count();
        if deleted > 0 {
            let why_not = if refused.contains(&pi) {
                Some((
                    "its deletions rest on config values logclean did not read (or an upload \
                     state it cannot see)"
                        .to_string(),
                    Some(
                        "--accept-assumed-configs (or --server-properties/--config-file)"
                            .to_string(),
                    ),
                ))
            } else {
                delete_refuses(p, log_dir, sizing).map(|w| (w, None))
            };
            for si in 0..deleted {
                let Some(mut r) = segment_reclaim(
                    Tier::Retention,
                    log_dir,
                    p,
                    pi,
                    si,
                    "deleted by retention at the instant".to_string(),
                ) else {
                    continue;
                };
                match &why_not {
                    Some((why, option)) => {
                        r.why = why.clone();
                        r.option = option.clone();
                        skipped.push(r);
                    }
                    None => out.push(r),
                }
            }
        }
        // Beyond retention: whole segments below the HW, never the active (last) one.
        let hw = p.high_watermark.value;
        let beyond: Vec<usize> = (deleted..p.segments.len().saturating_sub(1))
            .take_while(|i| {
                p.segments
                    .get(*i)
                    .is_some_and(|s| s.next_offset <= hw && s.merged_into.is_none())
            })
            .collect();
        let named = opts.beyond_retention.contains(&p.topic);
        let blocked =
            refused.contains(&pi) || (deleted > 0 && delete_refuses(p, log_dir, sizing).is_some());
        for si in beyond {
            let Some(r) = segment_reclaim(
                Tier::BeyondRetention,
                log_dir,
                p,
                pi,
                si,
                format!("kept by retention; below the high watermark {}", hw.get()),
            ) else {
                continue;
            };
            if named && !blocked {
                out.push(r);
            } else if !named {
                *potential.entry(p.topic.clone()).or_default() += r.bytes;
            }
        }
    }
}

/// A copy of `p` whose deletions are its first `k` segments (the later ones kept), so that
/// `delete`'s planner carries out exactly that prefix: the new log start is the first segment
/// kept. Only the planner reads the copy (the kept verdict's reason is not shown).
fn keep_from(p: &PartitionPlan, k: usize, now: crate::model::units::TimestampMs) -> PartitionPlan {
    let mut q = p.clone();
    for (i, s) in q.segments.iter_mut().enumerate() {
        let delete = i < k;
        match (&s.verdict, delete) {
            (Verdict::Delete { .. }, false) => {
                s.verdict = Verdict::Retain {
                    reason: RetainReason::EmptyActive,
                };
            }
            (Verdict::Retain { .. }, true) => {
                s.verdict = Verdict::Delete {
                    pass: crate::rules::retention::Pass::LogStartOffset,
                    eligible_at: now,
                };
            }
            _ => {}
        }
    }
    if let Some(s) = q.segments.get(k) {
        q.retention.new_log_start_offset = s.base_offset;
    }
    q
}

/// Plan and (with `--execute`) apply the reclaim.
pub fn run_free(
    paths: &[PathBuf],
    opts: &FreeOptions,
    progress: &dyn LoadProgress,
) -> Result<Freeing, DeleteStop> {
    let prep = prepare(paths, &opts.delete, progress)?;
    let assumptions = prep.view.assumptions(&[]);
    let refusals = assumed_refusals(&opts.delete, &prep.retention, &assumptions);
    let refused: BTreeSet<usize> = refusals.iter().map(|r| r.partition).collect();
    let run_opts = &opts.delete.mutate.run;
    for b in &opts.beyond_retention {
        if !prep.retention.partitions.iter().any(|p| &p.topic == b) {
            return Err(ActionError::Refused(format!(
                "--beyond-retention {b}: no partition of topic `{b}` in the log dirs given"
            ))
            .into());
        }
    }

    // Candidates per log dir, in tier order.
    let mut by_dir: Vec<(PathBuf, Vec<Reclaim>)> = Vec::new();
    let mut skipped = Vec::new();
    let mut potential: BTreeMap<String, u64> = BTreeMap::new();
    for t in &prep.targets {
        let log_dir = t.log_dir.path.clone();
        let dirs = partition_dirs(&log_dir)?;
        let mut cands = Vec::new();
        broker_deletes(&log_dir, &dirs, &mut cands, &mut skipped)?;
        let node = node_of(&prep.view, &log_dir);
        for d in &dirs.stray {
            let verdict = stray_verdict(&prep.view, node, d);
            push_dir(Tier::Stray, &log_dir, d, verdict, &mut cands, &mut skipped)?;
        }
        for d in &dirs.future {
            let verdict = future_verdict(&prep, d);
            push_dir(Tier::Future, &log_dir, d, verdict, &mut cands, &mut skipped)?;
        }
        remote_index_cache(&log_dir, &mut cands, &mut skipped)?;
        let sizings: BTreeMap<&str, IndexSizing> = (t.partitions.iter())
            .map(|x| (x.dir.as_str(), x.sizing))
            .collect();
        segment_candidates(
            &prep,
            opts,
            &log_dir,
            &sizings,
            &refused,
            Collected {
                out: &mut cands,
                skipped: &mut skipped,
                potential: &mut potential,
            },
        );
        by_dir.push((log_dir, cands));
    }

    // Filesystems, and what each takes.
    let stats: Box<dyn FsStats> = match opts.disk_space {
        Some(s) => Box::new(Given(s)),
        None => Box::new(Statvfs),
    };
    let mut groups: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (i, (d, _)) in by_dir.iter().enumerate() {
        let dev = match opts.disk_space {
            Some(_) => 0,
            None => fs::metadata(d).map(|m| m.dev()).unwrap_or(u64::MAX),
        };
        groups.entry(dev).or_default().push(i);
    }
    let mut filesystems = Vec::new();
    let mut taken: Vec<Reclaim> = Vec::new();
    let mut needed_refused = 0;
    for members in groups.values() {
        let Some(first) = members.first().and_then(|i| by_dir.get(*i)) else {
            continue;
        };
        let space = stats.space(&first.0).unwrap_or(FsSpace {
            free_bytes: 0,
            total_bytes: 0,
        });
        let release = space_release(&first.0, run_opts);
        let target_free = opts.target.bytes_of(space.total_bytes);
        let needed = target_free.saturating_sub(space.free_bytes);
        let mut planned = 0u64;
        let mut all: Vec<&Reclaim> = members
            .iter()
            .filter_map(|i| by_dir.get(*i))
            .flat_map(|(_, c)| c.iter())
            .collect();
        all.sort_by_key(|r| r.tier);
        for r in all {
            if planned >= needed {
                break;
            }
            if !release.frees() {
                let mut s = r.clone();
                s.why = "not taken: the quarantine is on the log dir's filesystem, so moving it \
                         frees nothing"
                    .to_string();
                s.option = Some("--purge, or --quarantine DIR on another filesystem".to_string());
                skipped.push(s);
                continue;
            }
            planned = planned.saturating_add(r.bytes);
            taken.push(r.clone());
        }
        let reached = planned >= needed;
        if !reached {
            needed_refused += (skipped.iter())
                .filter(|s| {
                    members
                        .iter()
                        .any(|i| by_dir.get(*i).is_some_and(|d| d.0 == s.log_dir))
                })
                .filter(|s| {
                    s.option
                        .as_deref()
                        .is_some_and(|o| o.starts_with("--accept"))
                })
                .count();
        }
        filesystems.push(FsTarget {
            log_dirs: members
                .iter()
                .filter_map(|i| by_dir.get(*i))
                .map(|d| d.0.clone())
                .collect(),
            figures: if opts.disk_space.is_some() {
                "--disk-space"
            } else {
                "statvfs"
            },
            free_bytes: space.free_bytes,
            total_bytes: space.total_bytes,
            target_free_bytes: target_free,
            needed_bytes: needed,
            planned_bytes: planned,
            reached,
            free_bytes_after: None,
            release,
        });
    }
    let mut beyond_potential: Vec<(String, u64)> =
        potential.into_iter().filter(|(_, b)| *b > 0).collect();
    beyond_potential.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));

    let skipped = merge_segments(skipped);
    let (mut log_dirs, starts) = plan_taken(&prep, opts, &taken)?;
    let lost = group_losses(&prep.dirs, opts.delete.cluster.read_mode, &starts)?;
    let refuse_losses = opts.delete.fail_if_group_loses_data && !lost.is_empty();
    let mut freeing = Freeing {
        refuse_losses,
        target: opts.target,
        filesystems,
        taken,
        skipped,
        beyond_potential,
        lost,
        log_dirs: Vec::new(),
        refused_assumed: needed_refused,
        assumptions,
        executed: false,
    };
    for d in log_dirs.iter().filter(|d| !d.plan.steps.is_empty()) {
        preflight(&d.plan, run_opts)?;
    }
    if opts.delete.mutate.execute && !freeing.refused() {
        defer_interrupts();
        for d in log_dirs.iter_mut().filter(|d| !d.plan.steps.is_empty()) {
            d.journal = Some(
                prep.pool
                    .install(|| execute(&d.plan, run_opts, &RealFs))?
                    .journal,
            );
        }
        freeing.executed = true;
        if opts.disk_space.is_none() {
            for f in &mut freeing.filesystems {
                f.free_bytes_after = f
                    .log_dirs
                    .first()
                    .and_then(|d| Statvfs.space(d))
                    .map(|s| s.free_bytes);
            }
        }
    }
    freeing.log_dirs = log_dirs;
    Ok(freeing)
}

/// Consecutive skipped segments of one partition with one reason, as one entry
/// (`<dir>/: N segment(s) from <base>`).
fn merge_segments(skipped: Vec<Reclaim>) -> Vec<Reclaim> {
    let mut out: Vec<(Reclaim, usize)> = Vec::new();
    for r in skipped {
        let part = |r: &Reclaim| r.what.split('/').next().unwrap_or_default().to_string();
        if let Some((last, n)) = out.last_mut() {
            let same = last.segment.is_some()
                && r.segment.is_some()
                && last.tier == r.tier
                && last.log_dir == r.log_dir
                && part(last) == part(&r)
                && last.why == r.why
                && last.option == r.option;
            if same {
                last.bytes = last.bytes.saturating_add(r.bytes);
                *n += 1;
                continue;
            }
        }
        out.push((r, 1));
    }
    out.into_iter()
        .map(|(mut r, n)| {
            if r.segment.is_some() {
                let first = r
                    .what
                    .rsplit('/')
                    .next()
                    .unwrap_or_default()
                    .trim_end_matches(".log");
                let base = first.parse::<i64>().unwrap_or(0);
                let dir = r.what.split('/').next().unwrap_or_default().to_string();
                r.what = format!("{dir}: {n} segment(s) from {base}");
            }
            r
        })
        .collect()
}

fn push_dir(
    tier: Tier,
    log_dir: &Path,
    d: &Path,
    verdict: Result<String, String>,
    cands: &mut Vec<Reclaim>,
    skipped: &mut Vec<Reclaim>,
) -> Result<(), ActionError> {
    let dir = Some(d.to_path_buf());
    match (verdict, flat_files(d)?) {
        (Ok(why), Ok(files)) => cands.push(leftover(tier, log_dir, files, dir, why)),
        (Err(why), Ok(files)) => skipped.push(leftover(tier, log_dir, files, dir, why)),
        (Ok(_), Err(why)) | (Err(why), Err(_)) => {
            skipped.push(leftover(tier, log_dir, Vec::new(), dir, why));
        }
    }
    Ok(())
}

/// One plan per log dir: the leftovers' steps first (they free space and write nothing), then
/// `delete`'s steps for the segments taken, each partition cut to the prefix taken.
fn plan_taken(
    prep: &Prepared,
    opts: &FreeOptions,
    taken: &[Reclaim],
) -> Result<(Vec<LogDirRun<DeleteReport>>, LogStarts), ActionError> {
    let mut runs = Vec::new();
    let mut starts = LogStarts::new();
    for t in &prep.targets {
        let here = t.log_dir.path.clone();
        let mine: Vec<&Reclaim> = taken.iter().filter(|r| r.log_dir == here).collect();
        // The listing's "skipped" note of a leftover dir that this run takes would contradict
        // its step: only the dirs left alone keep theirs.
        let taken_dirs: Vec<String> = (mine.iter())
            .filter_map(|r| r.dir.as_deref()?.file_name())
            .map(|n| format!("{}: skipped", name_text(n)))
            .collect();
        let mut plan = ActionPlan {
            command: "free".to_string(),
            log_dir: here.clone(),
            notes: (t.notes.iter())
                .filter(|n| !taken_dirs.iter().any(|d| n.starts_with(d.as_str())))
                .cloned()
                .collect(),
            release: Some(space_release(&here, &opts.delete.mutate.run)),
            ..ActionPlan::default()
        };
        for r in mine.iter().filter(|r| r.segment.is_none()) {
            for f in &r.files {
                plan.stamps.push(FileStamp::of(f));
                plan.steps.push(Step::Quarantine {
                    path: f.clone(),
                    len: fs::symlink_metadata(f).map_or(0, |m| m.len()),
                    why: format!("{}: {}", r.tier.text(), r.why),
                });
            }
            if let Some(d) = &r.dir {
                plan.steps.push(Step::RemoveDir {
                    path: d.clone(),
                    why: format!("{}: emptied", r.tier.text()),
                });
            }
        }
        // Per partition: how many leading segments are taken.
        let mut prefix: BTreeMap<usize, usize> = BTreeMap::new();
        for (pi, si) in mine.iter().filter_map(|r| r.segment) {
            let k = prefix.entry(pi).or_default();
            *k = (*k).max(si + 1);
        }
        let sizings: BTreeMap<&str, IndexSizing> = (t.partitions.iter())
            .map(|x| (x.dir.as_str(), x.sizing))
            .collect();
        let cut: Vec<PartitionPlan> = (prefix.iter())
            .filter_map(|(pi, k)| {
                prep.retention
                    .partitions
                    .get(*pi)
                    .map(|p| keep_from(p, *k, opts.delete.now))
            })
            .collect();
        let parts: Vec<(&PartitionPlan, Option<IndexSizing>)> = cut
            .iter()
            .map(|p| (p, sizings.get(p.dir_name.as_str()).copied()))
            .collect();
        let reports = prep
            .pool
            .install(|| plan_log_dir(&here, &parts, &mut plan))?;
        for r in &reports {
            if let Some(s) = r.log_start_offset_after {
                starts.insert((r.topic.clone(), r.partition_number), Offset(s));
            }
        }
        runs.push(LogDirRun {
            plan,
            reports,
            journal: None,
        });
    }
    Ok((runs, starts))
}
