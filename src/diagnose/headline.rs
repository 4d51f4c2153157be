//! The headline of a diagnosis: per log dir the answer to "why is my disk full and what do I
//! do" — used / free / total, time to full (or why it is unknown), what the next retention
//! pass frees, what the fixes in the report would free, whether a broker holds the dir — and
//! what the answer assumes. One struct of facts (no text layout), so every renderer (the table's
//! first lines, the JSON `headline` object, the HTML report) says the same.

use std::path::PathBuf;

use serde::Serialize;

use crate::checks::disk::DiskProjection;
use crate::checks::finding::Finding;
use crate::checks::stake::stake;
use crate::model::cluster::Assumptions;
use crate::model::lock::LockState;
use crate::plan::{Note, Plan};
use crate::rules::follower::FollowerStart;
use crate::rules::retention::UploadKnowledge;

use super::summary::LogDirTotals;

/// The headline of one diagnosis.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Headline {
    /// Per log dir, in the summary's order.
    pub log_dirs: Vec<LogDirHeadline>,
    /// What every answer above rests on.
    pub assumes: HeadlineAssumptions,
}

/// One log dir's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogDirHeadline {
    /// The log dir.
    #[serde(with = "crate::model::names::path_serde")]
    pub path: PathBuf,
    /// `.log` bytes of its partitions now.
    pub used_bytes: u64,
    /// What the whole dir takes on disk: its allocated blocks (`du -B1 -s`; absent when the
    /// dir could not be walked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_disk_bytes: Option<u64>,
    /// The filesystem's free bytes (absent: unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fs_free_bytes: Option<u64>,
    /// The filesystem's size (absent: unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fs_total_bytes: Option<u64>,
    /// When the filesystem is full at the current growth, or why that is unknown.
    pub time_to_full: TimeToFull,
    /// Bytes the next retention pass deletes.
    pub next_pass_frees_bytes: u64,
    /// Segments it deletes.
    pub next_pass_frees_segments: u64,
    /// Bytes the fixes of this report's findings on this dir would free (`checks::stake`).
    pub fixes_free_bytes: u64,
    /// Findings whose fix frees bytes.
    pub fixes_freeing: usize,
    /// Whether a broker holds the dir's `.lock`.
    pub lock: LockState,
}

/// Time until the filesystem is full.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum TimeToFull {
    /// Full in `ms` at the current growth, at `at_ms`.
    Known {
        /// Milliseconds from the evaluation instant.
        ms: i64,
        /// The instant, ms since the epoch.
        at_ms: i64,
        /// Bytes per hour the dir grows by.
        growth_bytes_per_hour: u64,
    },
    /// Unknown, and why (never "never": a log dir that does not grow now may grow later).
    Unknown {
        /// Why.
        because: String,
    },
}

/// What the answers rest on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct HeadlineAssumptions {
    /// Topics judged on config values logclean did not read (the `assumptions` object lists
    /// them).
    pub topics_on_assumed_configs: usize,
    /// Source levels not read.
    pub unread_config_sources: usize,
    /// Partitions whose HW is the checkpoint's value with the leader's HW or the role unknown.
    pub partitions_with_assumed_hw: usize,
    /// Partitions whose HW is not counted above but rests on an assumed leader: the metadata log
    /// has none (every replica was stopped), so the replica elected on restart is assumed
    /// (`restart_election_assumed`: the HW of that leader, or of this replica as that leader).
    pub partitions_with_assumed_leader: usize,
    /// Followers whose leader's dirs were not given (one broker's dirs alone): the leader's log
    /// start is unknown too, and a follower deletes below it whatever its own retention says, so
    /// the next pass may free more than the headline says.
    pub followers_without_leader_dirs: usize,
    /// Partitions of tiered topics (remote storage in effect).
    pub tiered_partitions: usize,
    /// Of those, the ones whose upload state is unknown: their `__remote_log_metadata`
    /// partition was not among the dirs given (or not wholly read).
    pub partitions_with_unknown_upload_state: usize,
    /// The Kafka release whose rules were applied, and how it was chosen (`given`, `detected`,
    /// `assumed_latest`).
    pub kafka_version: String,
    /// Set when that release is itself an assumption.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kafka_version_assumption: Option<String>,
}

fn time_to_full(disk: Option<&DiskProjection>) -> TimeToFull {
    let unknown = |because: &str| TimeToFull::Unknown {
        because: because.to_string(),
    };
    let Some(d) = disk else {
        return unknown("no disk projection for this dir");
    };
    if let Some(why) = &d.growth_unknown {
        return unknown(why);
    }
    match (d.ms_until_full, d.full_at_ms, d.fs_free_bytes) {
        (Some(ms), Some(at_ms), _) => TimeToFull::Known {
            ms,
            at_ms,
            growth_bytes_per_hour: d.growth_bytes_per_hour,
        },
        (_, _, None) => unknown("the filesystem's free space could not be read"),
        _ if d.partitions_with_rate == 0 => {
            unknown("no partition has a write rate yet (it needs records spanning at least 10 min)")
        }
        _ => unknown(
            "no partition grows at its current write rate (retention keeps pace); a faster \
             producer changes that",
        ),
    }
}

/// Whether remote storage is in effect for a partition's plan.
fn tiered(p: &crate::plan::PartitionPlan) -> bool {
    p.tiered.system_enabled && !p.tiered.internal_topic && p.config.remote_storage_enable
}

impl Headline {
    /// The headline of `dirs` (the summary's totals with their disk projections), their lock
    /// states, the report's `findings`, the `plan` and what the view assumed.
    pub fn new(
        dirs: &[LogDirTotals],
        locks: &[(PathBuf, LockState)],
        findings: &[Finding],
        plan: &Plan,
        assumptions: &Assumptions,
    ) -> Headline {
        let log_dirs = dirs
            .iter()
            .map(|d| {
                let freeing: Vec<u64> = findings
                    .iter()
                    .filter(|f| f.location.log_dir == d.path)
                    .filter_map(stake)
                    .filter(|s| s.freed_by_fix)
                    .map(|s| s.bytes)
                    .collect();
                LogDirHeadline {
                    path: d.path.clone(),
                    used_bytes: d.bytes,
                    on_disk_bytes: d.space.as_ref().map(|s| s.allocated_bytes),
                    fs_free_bytes: d.disk.as_ref().and_then(|x| x.fs_free_bytes),
                    fs_total_bytes: d.disk.as_ref().and_then(|x| x.fs_total_bytes),
                    time_to_full: time_to_full(d.disk.as_ref()),
                    next_pass_frees_bytes: d.freed_bytes,
                    next_pass_frees_segments: d.freed_segments,
                    fixes_free_bytes: freeing.iter().fold(0, |a, b| a.saturating_add(*b)),
                    fixes_freeing: freeing.len(),
                    lock: (locks.iter())
                        .find(|(p, _)| *p == d.path)
                        .map_or(LockState::Unknown, |(_, l)| *l),
                }
            })
            .collect();
        let v = &assumptions.kafka_version;
        Headline {
            log_dirs,
            assumes: HeadlineAssumptions {
                topics_on_assumed_configs: assumptions.topics.len(),
                unread_config_sources: assumptions.unread.len(),
                partitions_with_assumed_hw: (plan.partitions.iter())
                    .filter(|p| p.high_watermark.is_assumed())
                    .count(),
                partitions_with_assumed_leader: (plan.partitions.iter())
                    .filter(|p| !p.high_watermark.is_assumed())
                    .filter(|p| p.role_source == "restart_election_assumed")
                    .count(),
                followers_without_leader_dirs: (plan.partitions.iter())
                    .filter(|p| {
                        (p.notes.iter()).any(|n| {
                            matches!(n, Note::FollowerLogStart(FollowerStart::LeaderNotGiven))
                        })
                    })
                    .count(),
                tiered_partitions: (plan.partitions.iter()).filter(|p| tiered(p)).count(),
                partitions_with_unknown_upload_state: (plan.partitions.iter())
                    .filter(|p| tiered(p))
                    .filter(|p| !matches!(p.tiered.upload, UploadKnowledge::Known { .. }))
                    .count(),
                kafka_version: format!(
                    "Kafka {} rules ({}; logclean config --format json tells why)",
                    v.version,
                    v.basis.name()
                ),
                kafka_version_assumption: v.assumption.clone(),
            },
        }
    }
}
