//! The summary of a diagnosis: findings counted by code and severity, the partitions that keep
//! the most bytes after the next retention pass, and per log dir its bytes and what the pass
//! frees (all from the one plan the diagnosis built).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde::Serialize;

use crate::checks::disk::DiskProjection;
use crate::checks::finding::{Finding, Severity};
use crate::checks::startup::StartupCost;
use crate::plan::space::{ByReason, SpaceUsage};
use crate::plan::{PartitionPlan, Plan};
use crate::rules::retention::Verdict;

use super::Filter;

/// How many partitions [`Summary::top_partitions`] lists.
pub const TOP_PARTITIONS: usize = 10;

/// Partition dirs, by log dir and dir name.
type PartitionSet = BTreeSet<(PathBuf, String)>;

/// One code's findings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CodeCount {
    /// The finding code.
    pub code: &'static str,
    /// The highest severity among them.
    pub severity: &'static str,
    /// Findings.
    pub findings: usize,
    /// Distinct partitions they are on (0: about log dirs or configs only).
    pub partitions: usize,
}

/// One partition replica's bytes and what the next pass does to them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PartitionBytes {
    /// The log dir.
    #[serde(with = "crate::model::names::path_serde")]
    pub log_dir: PathBuf,
    /// The topic.
    pub topic: String,
    /// The partition.
    pub partition: i32,
    /// `.log` bytes now.
    pub bytes: u64,
    /// Bytes that stay after the next retention pass.
    pub retained_bytes: u64,
    /// Bytes the next pass deletes.
    pub freed_bytes: u64,
}

impl PartitionBytes {
    /// The bytes of planned partition `p` now, after its next retention pass and deleted by it.
    pub fn of(p: &PartitionPlan) -> PartitionBytes {
        let bytes: u64 = p.segments.iter().map(|s| s.size.get()).sum();
        let freed = p
            .segments
            .iter()
            .filter(|s| matches!(s.verdict, Verdict::Delete { .. }))
            .map(|s| s.size.get())
            .sum::<u64>();
        PartitionBytes {
            log_dir: p.log_dir.clone(),
            topic: p.topic.clone(),
            partition: p.partition,
            bytes,
            retained_bytes: bytes.saturating_sub(freed),
            freed_bytes: freed,
        }
    }
}

/// One log dir's totals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogDirTotals {
    /// The log dir.
    #[serde(with = "crate::model::names::path_serde")]
    pub path: PathBuf,
    /// Partition replicas planned.
    pub partitions: usize,
    /// `.log` bytes now.
    pub bytes: u64,
    /// Bytes the next retention pass frees.
    pub freed_bytes: u64,
    /// Segments it deletes.
    pub freed_segments: u64,
    /// What the next start recovers (`None` until [`Summary::with_figures`]).
    pub startup: Option<StartupCost>,
    /// Free space, growth and time until full (`None` until [`Summary::with_figures`]).
    pub disk: Option<DiskProjection>,
    /// Why each byte is there (`None` until [`Summary::with_space`]).
    pub space: Option<SpaceSummary>,
}

/// Bytes for one reason (`log_dirs[].space.by_reason[]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReasonRow {
    /// The reason's name (`deleted_next_pass`, `within_retention`, ...).
    pub reason: &'static str,
    /// Allocated bytes.
    pub bytes: u64,
    /// Files and dirs.
    pub files: u64,
}

/// One topic's or one dir's allocated bytes by reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlaceSpace {
    /// The topic, or the dir name (partition dirs, the remote index cache, unknown dirs).
    pub name: String,
    /// Allocated bytes.
    pub bytes: u64,
    /// Reason name → bytes.
    pub by_reason: BTreeMap<&'static str, u64>,
}

/// A path the attribution could not walk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unwalked {
    /// The path.
    #[serde(with = "crate::model::names::path_serde")]
    pub path: PathBuf,
    /// Why.
    pub message: String,
}

/// Why every byte of a log dir is there (`log_dirs[].space`): allocated bytes (`st_blocks ×
/// 512`), summing to the filesystem's usage of the dir (`du -B1 -s`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SpaceSummary {
    /// Allocated bytes of the dir and everything below it.
    pub allocated_bytes: u64,
    /// The sum of the files' lengths (preallocated indexes make it larger than the blocks).
    pub apparent_bytes: u64,
    /// Per reason, in report order.
    pub by_reason: Vec<ReasonRow>,
    /// Per topic (live partition dirs; `-delete`/`-stray`/`-future` dirs under their topic).
    pub topics: Vec<PlaceSpace>,
    /// Per top-level dir.
    pub dirs: Vec<PlaceSpace>,
    /// What could not be walked (its bytes are missing from the sums).
    pub unwalked: Vec<Unwalked>,
}

fn reason_map(b: &ByReason) -> BTreeMap<&'static str, u64> {
    b.rows()
        .iter()
        .map(|r| (r.reason.name(), r.bytes))
        .collect()
}

impl SpaceSummary {
    /// The summary of each log dir's usage, by log dir.
    pub fn of_each(space: &[SpaceUsage]) -> Vec<(PathBuf, SpaceSummary)> {
        space
            .iter()
            .map(|u| (u.path.clone(), Self::of(u)))
            .collect()
    }

    /// The summary of `u`.
    pub fn of(u: &SpaceUsage) -> SpaceSummary {
        let mut topics: BTreeMap<String, (u64, BTreeMap<&'static str, u64>)> = BTreeMap::new();
        for d in &u.dirs {
            if let Some((topic, _)) = &d.topic {
                let t = topics.entry(topic.clone()).or_default();
                t.0 += d.bytes;
                for (k, v) in reason_map(&d.by_reason) {
                    *t.1.entry(k).or_default() += v;
                }
            }
        }
        SpaceSummary {
            allocated_bytes: u.allocated,
            apparent_bytes: u.apparent,
            by_reason: (u.by_reason.rows().iter())
                .map(|r| ReasonRow {
                    reason: r.reason.name(),
                    bytes: r.bytes,
                    files: r.files,
                })
                .collect(),
            topics: (topics.into_iter())
                .map(|(name, (bytes, by_reason))| PlaceSpace {
                    name,
                    bytes,
                    by_reason,
                })
                .collect(),
            dirs: (u.dirs.iter())
                .map(|d| PlaceSpace {
                    name: d.dir_name.clone(),
                    bytes: d.bytes,
                    by_reason: reason_map(&d.by_reason),
                })
                .collect(),
            unwalked: (u.problems.iter())
                .map(|p| Unwalked {
                    path: p.path.clone(),
                    message: p.message.clone(),
                })
                .collect(),
        }
    }
}

/// What `--kind`, `--topic` and `--min-severity` hid: each hidden finding counted under the
/// first of them that drops it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Hidden {
    /// `--kind` values.
    pub kinds: Vec<String>,
    /// `--topic` values.
    pub topics: Vec<String>,
    /// `--min-severity`.
    pub min_severity: Option<&'static str>,
    /// Findings before filtering.
    pub total: usize,
    /// Hidden by `--kind`.
    pub by_kind: usize,
    /// Hidden by `--topic`.
    pub by_topic: usize,
    /// Hidden by `--min-severity`.
    pub by_min_severity: usize,
}

/// The summary of a diagnosis.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Per code, in code order.
    pub by_code: Vec<CodeCount>,
    /// The partitions keeping the most bytes after the next pass, most first (at most
    /// [`TOP_PARTITIONS`], none of 0 bytes; `--topic` narrows them).
    pub top_partitions: Vec<PartitionBytes>,
    /// Partitions holding bytes past those listed in `top_partitions`.
    pub more_partitions: usize,
    /// What the filters hid (`None`: no filter given).
    pub hidden: Option<Hidden>,
    /// Per log dir.
    pub log_dirs: Vec<LogDirTotals>,
}

impl Summary {
    /// The summary of `findings` (already filtered) and `plan` over `log_dirs`: without a
    /// topic filter every log dir given has its totals, also one that holds no partition the
    /// plan covers (only the metadata log, say: a full disk there is still news).
    pub fn new(
        findings: &[Finding],
        plan: &Plan,
        log_dirs: &[PathBuf],
        filter: &Filter,
    ) -> Summary {
        let mut codes: BTreeMap<&'static str, (usize, Severity, PartitionSet)> = BTreeMap::new();
        for f in findings {
            let (n, sev, parts) = codes
                .entry(f.code)
                .or_insert_with(|| (0, f.severity, BTreeSet::new()));
            *n += 1;
            *sev = (*sev).max(f.severity);
            if let Some(dir) = &f.location.dir {
                parts.insert((f.location.log_dir.clone(), dir.clone()));
            }
        }
        let by_code = codes
            .into_iter()
            .map(|(code, (findings, sev, parts))| CodeCount {
                code,
                severity: sev.name(),
                findings,
                partitions: parts.len(),
            })
            .collect();
        let mut parts: Vec<PartitionBytes> = plan
            .partitions
            .iter()
            .filter(|p| filter.keeps_topic(Some(&p.topic)))
            .map(PartitionBytes::of)
            .collect();
        let empty = |path: &PathBuf| LogDirTotals {
            path: path.clone(),
            partitions: 0,
            bytes: 0,
            freed_bytes: 0,
            freed_segments: 0,
            startup: None,
            disk: None,
            space: None,
        };
        let mut dirs: BTreeMap<PathBuf, LogDirTotals> = BTreeMap::new();
        if filter.topics.is_empty() {
            for path in log_dirs {
                dirs.insert(path.clone(), empty(path));
            }
        }
        for p in &parts {
            let d = (dirs.entry(p.log_dir.clone())).or_insert_with(|| empty(&p.log_dir));
            d.partitions += 1;
            d.bytes += p.bytes;
        }
        for (path, freed) in &plan.totals.per_log_dir {
            if let Some(d) = dirs.get_mut(path) {
                d.freed_segments = freed.segments;
            }
        }
        for p in &parts {
            if let Some(d) = dirs.get_mut(&p.log_dir) {
                d.freed_bytes += p.freed_bytes;
            }
        }
        parts.sort_by(|a, b| {
            b.retained_bytes.cmp(&a.retained_bytes).then_with(|| {
                (&a.log_dir, &a.topic, a.partition).cmp(&(&b.log_dir, &b.topic, b.partition))
            })
        });
        // A 0-byte partition holds nothing worth listing among the largest.
        parts.retain(|p| p.bytes > 0);
        let more_partitions = parts.len().saturating_sub(TOP_PARTITIONS);
        parts.truncate(TOP_PARTITIONS);
        Summary {
            by_code,
            top_partitions: parts,
            more_partitions,
            hidden: None,
            log_dirs: dirs.into_values().collect(),
        }
    }

    /// The same summary with why each byte of each log dir is there (`spaces`: by log dir,
    /// [`SpaceSummary::of_each`]).
    pub fn with_space(mut self, mut spaces: Vec<(PathBuf, SpaceSummary)>) -> Summary {
        for d in &mut self.log_dirs {
            d.space =
                (spaces.iter().position(|(p, _)| *p == d.path)).map(|i| spaces.swap_remove(i).1);
        }
        self
    }

    /// The same summary with each log dir's startup cost and disk projection.
    pub fn with_figures(mut self, startup: &[StartupCost], disk: &[DiskProjection]) -> Summary {
        for d in &mut self.log_dirs {
            d.startup = startup.iter().find(|c| c.path == d.path).cloned();
            d.disk = disk.iter().find(|x| x.path == d.path).cloned();
        }
        self
    }
}
/// One topic's bytes in one log dir.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicBytes {
    /// The log dir.
    pub log_dir: PathBuf,
    /// The topic.
    pub topic: String,
    /// Partition replicas planned.
    pub partitions: u64,
    /// `.log` bytes now.
    pub bytes: u64,
    /// Bytes that stay after the next retention pass.
    pub retained_bytes: u64,
    /// Bytes the next pass deletes.
    pub freed_bytes: u64,
}

/// The planned partitions of `plan` whose topic `filter` keeps, folded per log dir and topic
/// (sorted by both).
pub fn topic_bytes(plan: &Plan, filter: &Filter) -> Vec<TopicBytes> {
    let mut by: BTreeMap<(PathBuf, String), TopicBytes> = BTreeMap::new();
    for p in plan
        .partitions
        .iter()
        .filter(|p| filter.keeps_topic(Some(&p.topic)))
    {
        let b = PartitionBytes::of(p);
        let t = by
            .entry((b.log_dir.clone(), b.topic.clone()))
            .or_insert_with(|| TopicBytes {
                log_dir: b.log_dir,
                topic: b.topic,
                partitions: 0,
                bytes: 0,
                retained_bytes: 0,
                freed_bytes: 0,
            });
        t.partitions += 1;
        t.bytes = t.bytes.saturating_add(b.bytes);
        t.retained_bytes = t.retained_bytes.saturating_add(b.retained_bytes);
        t.freed_bytes = t.freed_bytes.saturating_add(b.freed_bytes);
    }
    by.into_values().collect()
}

/// One remote-enabled partition's two tiers (of the topics `--topic` keeps), for the metrics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TieredBytes {
    /// The log dir.
    pub log_dir: PathBuf,
    /// The topic.
    pub topic: String,
    /// The partition.
    pub partition: i32,
    /// Bytes of the local segments.
    pub local_bytes: u64,
    /// Bytes in remote storage (`None`: unknown).
    pub remote_bytes: Option<u64>,
    /// Bytes of closed segments waiting for upload (`None`: unknown).
    pub waiting_bytes: Option<u64>,
    /// KIP-1257 `RetentionSizeInPercent` as the broker computes it.
    pub retention_size_in_percent: Option<i64>,
    /// KIP-1257 `LocalRetentionSizeInPercent`.
    pub local_retention_size_in_percent: Option<i64>,
}

/// The remote-enabled partitions of `plan` whose topic `filter` keeps.
pub fn tiered_bytes(plan: &Plan, filter: &Filter) -> Vec<TieredBytes> {
    (plan.partitions.iter())
        .filter(|p| filter.keeps_topic(Some(&p.topic)))
        .filter_map(|p| {
            let t = p.tier.as_ref()?;
            Some(TieredBytes {
                log_dir: p.log_dir.clone(),
                topic: p.topic.clone(),
                partition: p.partition,
                local_bytes: t.local_bytes.get(),
                remote_bytes: t.remote_bytes.map(|b| b.get()),
                waiting_bytes: t.waiting_bytes.map(|b| b.get()),
                retention_size_in_percent: t.retention_size_in_percent,
                local_retention_size_in_percent: t.local_retention_size_in_percent,
            })
        })
        .collect()
}
