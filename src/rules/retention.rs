//! The delete passes the broker runs on one partition replica, in its order, with a verdict and
//! a typed reason for every segment.
//!
//! Kafka: `UnifiedLog.java` (`deleteOldSegments()`, `deleteLogStartOffsetBreachedSegments`,
//! `deleteRetentionSizeBreachedSegments`, `deleteRetentionMsBreachedSegments`,
//! `deletableSegments`, `isSegmentEligibleForDeletion`, `deleteSegments`), `LogManager`
//! (`cleanupLogs`), `LogCleaner` (retention of compacted logs in the cleaner threads),
//! `Partition.deleteRecordsOnLeader`. Spec §B1–B7, §C1, §C3, Errata 5, 6, 9, 16.
//!
//! One pass scans oldest to newest and stops at the first segment that is not deletable: the
//! HW gate (HW ≥ next segment's base, or ≥ LEO for the last segment) is tested first, an empty
//! last segment is never deleted, tiered segments must be uploaded. Passes run in the order
//! log-start-offset breach, size, time (3.0+; before 3.0 the order was time, size, log start,
//! which this module does not model), each on the list the previous one left. Deleting every
//! segment rolls first, so the expired non-empty active segment is deleted when HW = LEO.
//!
//! Tiered storage (remote-enabled topics): a copy-enabled partition's passes use the local
//! limits, and a segment may go only if it is uploaded (`upperBound - 1 <=
//! highestOffsetInRemoteStorage`) or the total log start is past it
//! (`UnifiedLog.isSegmentEligibleForDeletion`, 4.4: `remoteLogEnabledAndRemoteCopyEnabled()`).
//! The highest offset comes from `__remote_log_metadata` ([`UploadKnowledge::Known`]); when the
//! metadata partition holding the partition was not read it is unknown, and no segment is
//! taken for uploaded ([`RetainReason::UploadUnknown`]); the plan shows the other outcome too.
//! Remote retention's log start ([`super::tiered::remote_retention_log_start`]) comes in as
//! [`TieredFacts::remote_log_start`] and raises the local log start with it
//! (`UnifiedLog.maybeIncrementLogStartOffset`).

mod policy;
mod scan;

use crate::config::{BrokerCleanupConfig, CleanupPolicy, LogConfig};
use crate::model::units::{Bytes, Offset, TimestampMs};

use super::facts::{SegmentFacts, TimestampSource};
use super::high_watermark::HighWatermark;
use super::tiered::UploadWait;
use super::KafkaVersion;

pub use policy::{
    copy_enabled, delete_records_allowed, expired_by_time, local_size_limit, local_time_limit,
    passes, remote_log_enabled, runner, size_retention_bytes, time_limit_key, time_retention_ms,
};
use policy::{expires_at, size_limit, skip_reason, time_limit};
use scan::Scan;

/// One delete pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pass {
    /// Segments wholly below the log start offset (DeleteRecords, a follower adopting the
    /// leader's start, earlier retention).
    LogStartOffset,
    /// `retention.bytes` (or `local.retention.bytes`) per replica, active segment counted.
    Size,
    /// `retention.ms` (or `local.retention.ms`) against the segment's largest timestamp.
    Time,
}

/// Which broker thread runs retention for a log (spec §C1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Runner {
    /// The `kafka-log-retention` scheduler task (policy without `compact`).
    RetentionTask,
    /// The log cleaner threads, after each loop iteration (policy with `compact`).
    CleanerThreads,
}

/// Why a segment is kept, with the numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RetainReason {
    /// The HW gate: the segment's upper bound (next base, or LEO) is above the HW.
    HwBelowUpperBound {
        /// The HW assumed.
        hw: HighWatermark,
        /// The next segment's base, or the LEO for the last segment.
        upper_bound: Offset,
    },
    /// The last segment is empty; it is never deleted.
    EmptyActive,
    /// Tiered: not yet uploaded to the remote tier.
    NotUploaded {
        /// The segment's upper bound.
        upper_bound: Offset,
        /// The highest offset in remote storage (`None`: nothing uploaded).
        highest_remote: Option<Offset>,
        /// Why it is not uploaded (the copy task's view; set by the plan, `None` from the
        /// passes alone).
        wait: Option<UploadWait>,
    },
    /// Tiered: the `__remote_log_metadata` partition holding this partition was not read, so
    /// whether the segment is uploaded is unknown; it is not taken for uploaded.
    UploadUnknown {
        /// The segment's upper bound.
        upper_bound: Offset,
        /// The metadata partition that holds the upload state, when its count is known.
        metadata_partition: Option<u32>,
    },
    /// Tiered: the active segment breaches retention; the broker rolls it so it can be
    /// uploaded, then deletes it in a later run (spec §A9b).
    RolledForUpload,
    /// Log-start pass: the next segment's base is above the log start offset (or there is no
    /// next segment).
    NotBelowLogStart {
        /// The log start offset compared (local log start for remote-enabled topics).
        log_start: Offset,
        /// The next segment's base, `None` for the last segment.
        next_base: Option<Offset>,
    },
    /// Size pass: deleting it would leave fewer than the limit.
    WithinSize {
        /// Bytes of the newer segments (what would remain).
        remaining_if_deleted: Bytes,
        /// The limit.
        limit: Bytes,
    },
    /// Time pass: its largest timestamp is not old enough yet.
    NotExpired {
        /// The largest timestamp.
        largest_timestamp: TimestampMs,
        /// The first instant the time predicate holds (largest + retention + 1 ms).
        expires_at: TimestampMs,
    },
    /// Time pass: its largest timestamp is in the future (the broker WARNs "contains future
    /// timestamp(s)"); it blocks this and every newer segment.
    FutureTimestamp {
        /// The largest timestamp.
        ts: TimestampMs,
        /// The first instant the time predicate holds.
        expires_at: TimestampMs,
    },
    /// An older segment stopped the pass.
    BlockedBehind {
        /// The base offset of the segment that stopped it.
        base_offset: Offset,
    },
    /// The pass has no limit (`-1`).
    NoLimit {
        /// The pass.
        pass: Pass,
    },
    /// `delete` policy with `retention.ms` and `retention.bytes` both unlimited: only the
    /// log-start pass can delete, and this segment is not below the log start.
    RetentionUnlimited,
    /// The policy has no `delete`, so only the log-start pass runs (Errata 6 for the empty
    /// policy) and this segment is not below the log start.
    PolicyWithoutDelete {
        /// The policy.
        policy: CleanupPolicy,
    },
    /// The log is compacted and no cleaner thread runs (`log.cleaner.enable=false` or
    /// `log.cleaner.threads=0`): no retention at all.
    NoRetentionThread {
        /// `log.cleaner.enable`.
        cleaner_enabled: bool,
        /// `log.cleaner.threads`.
        cleaner_threads: i32,
    },
    /// The log is paused (intra-broker move, truncation): retention skips it (spec §C3).
    Paused,
    /// The compacted log is marked uncleanable: no cleaner-run retention until restart (§D7).
    Uncleanable,
}

/// The verdict on one segment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    /// Deleted by `pass`; `eligible_at` is when its time predicate first held (time pass), else
    /// `now` (the moment the size or log-start condition began is not derivable).
    Delete {
        /// The pass.
        pass: Pass,
        /// When it became eligible (at or before `now`).
        eligible_at: TimestampMs,
    },
    /// Kept.
    Retain {
        /// The primary reason: the last pass that ran with a limit.
        reason: RetainReason,
    },
}

/// What the next retention run frees once the HW reaches `upper_bound` (issue 21): the
/// segments and bytes of the deletable prefix up to and including the segment ending there.
///
/// Every pass's `deletableSegments` stops at the first segment whose upper bound is above the
/// HW, so what a replica frees under HW `h` is the prefix, of what it frees with no HW gate,
/// that ends at or below `h` ([`freed_under_hw`]): a follower's plan can take its leader's HW
/// after the fact, from these steps alone (`logclean join`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HwStep {
    /// The offset the HW must reach: the next segment's base offset (the LEO for the last).
    pub upper_bound: Offset,
    /// Segments freed in all, this one included.
    pub segments: u64,
    /// Bytes freed in all, this one included.
    pub bytes: u64,
}

/// The segments and bytes the next run frees under HW `hw`, from the steps of the run with
/// no HW gate ([`HwStep`]).
pub fn freed_under_hw(steps: &[HwStep], hw: Offset) -> (u64, u64) {
    (steps.iter().rev())
        .find(|s| s.upper_bound <= hw)
        .map_or((0, 0), |s| (s.segments, s.bytes))
}

/// The steps of `outcome`, a run with no HW gate, over `segments` (its input) ending at
/// `log_end`: one per deleted segment, in order.
pub fn hw_steps(
    segments: &[SegmentFacts],
    outcome: &RetentionOutcome,
    log_end: Offset,
) -> Vec<HwStep> {
    let mut out = Vec::new();
    let (mut n, mut bytes) = (0u64, 0u64);
    for (i, (s, v)) in segments.iter().zip(&outcome.segments).enumerate() {
        if !matches!(v.verdict, Verdict::Delete { .. }) {
            break;
        }
        n += 1;
        bytes = bytes.saturating_add(s.size.get());
        let upper_bound = segments.get(i + 1).map_or(log_end, |next| next.base_offset);
        out.push(HwStep {
            upper_bound,
            segments: n,
            bytes,
        });
    }
    out
}

/// The result for one segment.
#[derive(Debug, Clone, PartialEq)]
pub struct SegmentVerdict {
    /// The segment's base offset.
    pub base_offset: Offset,
    /// Its `largestTimestamp` and where it came from.
    pub largest_timestamp: (TimestampMs, TimestampSource),
    /// The verdict.
    pub verdict: Verdict,
    /// Each pass that saw it and kept it, with that pass's reason.
    pub pass_reasons: Vec<(Pass, RetainReason)>,
    /// For a kept segment waiting only for time: the instant the time pass will delete it (its
    /// and every older kept segment's largest timestamp + retention + 1 ms).
    pub time_eligible_at: Option<TimestampMs>,
}

/// Why the answer may differ from the broker's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approximation {
    /// Remote-enabled topic: upload state and remote retention are not on local disk.
    TieredStorage {
        /// Whether `highestOffsetInRemoteStorage` was given.
        upload_state_known: bool,
    },
}

/// What is known of a partition's uploads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UploadKnowledge {
    /// The metadata partition holding it was not read (or not found).
    #[default]
    Unknown,
    /// Unknown, and that metadata partition is this one.
    NotGiven {
        /// The `__remote_log_metadata` partition.
        metadata_partition: u32,
    },
    /// Replayed from `__remote_log_metadata`: the highest offset in remote storage (`None`:
    /// nothing uploaded, Kafka's −1).
    Known {
        /// `highestOffsetInRemoteStorage`.
        highest_offset: Option<Offset>,
    },
    /// What-if: every closed segment taken for uploaded (the other outcome of an unknown
    /// state; never a verdict the plan acts on).
    AssumedUploaded,
}

/// Tiered storage context: the broker gate and what is known of the remote tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TieredFacts {
    /// `remote.log.storage.system.enable` on the broker.
    pub system_enabled: bool,
    /// The topic is internal, `__remote_log_metadata` or `__cluster_metadata` (never remote).
    pub internal_topic: bool,
    /// What is known of its uploads.
    pub upload: UploadKnowledge,
    /// The log start remote retention moves to (`None`: it does not move it, or unknown).
    pub remote_log_start: Option<Offset>,
}

/// Cleaner-manager state of the log (spec §C3, §D7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LogState {
    /// Paused: an intra-broker move (a `-future` dir exists), a truncation.
    pub paused: bool,
    /// Marked uncleanable (in memory only, dropped on restart).
    pub uncleanable: bool,
}

/// Everything the passes read for one partition replica.
#[derive(Debug, Clone)]
pub struct RetentionInput<'a> {
    /// Local segments, oldest first; the last is the active segment.
    pub segments: &'a [SegmentFacts],
    /// The log start offset.
    pub log_start_offset: Offset,
    /// The log end offset.
    pub log_end_offset: Offset,
    /// The HW assumed when retention runs ([`super::high_watermark`]).
    pub high_watermark: HighWatermark,
    /// The topic's effective config.
    pub config: &'a LogConfig,
    /// The broker's cleanup config.
    pub broker: &'a BrokerCleanupConfig,
    /// Tiered storage context.
    pub tiered: TieredFacts,
    /// Cleaner-manager state.
    pub state: LogState,
    /// The evaluation instant (the broker's clock when the pass starts).
    pub now: TimestampMs,
    /// The broker's release.
    pub version: KafkaVersion,
}

/// The result of one retention run on a replica.
#[derive(Debug, Clone, PartialEq)]
pub struct RetentionOutcome {
    /// The thread that runs it.
    pub runner: Runner,
    /// The passes that run, in order (empty when the log is skipped).
    pub passes: Vec<Pass>,
    /// One verdict per input segment, same order.
    pub segments: Vec<SegmentVerdict>,
    /// The log start offset after the passes.
    pub new_log_start_offset: Offset,
    /// The local log start offset after the passes (differs only for tiered topics).
    pub new_local_log_start_offset: Offset,
    /// Every segment was deleted: the broker rolled a new empty active segment at the LEO.
    pub rolled_new_active: bool,
    /// Tiered: the active segment is rolled so it can be uploaded.
    pub rolled_for_upload: bool,
    /// Set when the answer is approximate.
    pub approximation: Option<Approximation>,
}

/// The primary reason: the last pass that ran with a limit; the log-start pass's own failure
/// when no pass has a limit is reported as the policy (or the unlimited retention) that
/// leaves only that pass, and so is a segment blocked behind such a segment.
fn primary(
    reasons: &[(Pass, RetainReason)],
    policy: CleanupPolicy,
    has_limit_pass: bool,
) -> RetainReason {
    let chosen = reasons
        .iter()
        .rev()
        .find(|(_, r)| !matches!(r, RetainReason::NoLimit { .. }))
        .or(reasons.last());
    let only_log_start =
        |r: &RetainReason| !has_limit_pass && matches!(r, RetainReason::NotBelowLogStart { .. });
    match chosen {
        Some((_, r)) if only_log_start(r) && policy.delete => RetainReason::RetentionUnlimited,
        Some((_, r)) if only_log_start(r) => RetainReason::PolicyWithoutDelete { policy },
        Some((_, r)) => *r,
        None => RetainReason::PolicyWithoutDelete { policy },
    }
}

/// For each segment `i`, when it will be deleted by the time pass if it waits only for time:
/// every live segment up to it passes the HW gate, is not an empty last one, is
/// tiered-eligible, and fails only the time predicate. One walk over the segments, carrying the
/// running maximum (a segment before the first live one gets the empty range's `i64::MIN`).
fn time_eligible_ats(scan: &Scan<'_>, time_ms: Option<i64>) -> Vec<Option<TimestampMs>> {
    let n = scan.input.segments.len();
    let Some(m) = time_ms else {
        return vec![None; n];
    };
    let mut out = Vec::with_capacity(n);
    let mut at = Some(TimestampMs(i64::MIN));
    for (j, s) in scan.input.segments.iter().enumerate() {
        if j < scan.first {
            out.push(Some(TimestampMs(i64::MIN)));
            continue;
        }
        let upper = scan.upper_bound(j);
        at = at.filter(|_| {
            scan.input.high_watermark.value >= upper
                && !(j + 1 == n && s.is_empty())
                && scan.tiered_eligible(j, upper)
        });
        at = at.map(|a| a.max(expires_at(s.largest_timestamp().0, m)));
        out.push(at);
    }
    out
}

/// A segment blocked behind one kept only for the policy (or unlimited retention) is kept for
/// that reason too.
fn inherit_policy_reason(segments: &mut [SegmentVerdict]) {
    let mut policy_reason: Option<(Offset, RetainReason)> = None;
    for s in segments.iter_mut() {
        match s.verdict {
            Verdict::Retain {
                reason:
                    r @ (RetainReason::PolicyWithoutDelete { .. } | RetainReason::RetentionUnlimited),
            } => policy_reason = policy_reason.or(Some((s.base_offset, r))),
            Verdict::Retain {
                reason: RetainReason::BlockedBehind { base_offset },
            } => {
                if let Some((_, r)) = policy_reason.filter(|(b, _)| *b == base_offset) {
                    s.verdict = Verdict::Retain { reason: r };
                }
            }
            _ => {}
        }
    }
}

/// Run the broker's retention on one replica (spec §B7).
pub fn evaluate(input: &RetentionInput<'_>) -> RetentionOutcome {
    let policy = input.config.cleanup_policy;
    let run_by = runner(policy);
    let mut scan = Scan::new(input);
    let skip = skip_reason(input, run_by);
    let run = match skip {
        Some(_) => Vec::new(),
        None => passes(input.config, &input.tiered, input.version),
    };
    for &pass in &run {
        scan.run_pass(pass);
    }
    let time_ms = if run.contains(&Pass::Time) {
        time_limit(input.config, &input.tiered).max()
    } else {
        None
    };
    let has_limit_pass = run.iter().any(|p| match p {
        Pass::Size => size_limit(input.config, &input.tiered).max().is_some(),
        Pass::Time => time_ms.is_some(),
        Pass::LogStartOffset => false,
    });
    let time_eligible_ats = time_eligible_ats(&scan, time_ms);
    let mut segments: Vec<SegmentVerdict> = input
        .segments
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let pass_reasons = scan.reasons.get(i).cloned().unwrap_or_default();
            let deleted = scan.deleted.get(i).copied().flatten();
            let (verdict, time_eligible) = match (deleted, skip) {
                (Some((pass, eligible_at)), _) => (Verdict::Delete { pass, eligible_at }, None),
                (None, Some(reason)) => (Verdict::Retain { reason }, None),
                (None, None) => (
                    Verdict::Retain {
                        reason: primary(&pass_reasons, policy, has_limit_pass),
                    },
                    time_eligible_ats.get(i).copied().flatten(),
                ),
            };
            SegmentVerdict {
                base_offset: s.base_offset,
                largest_timestamp: s.largest_timestamp(),
                verdict,
                pass_reasons,
                time_eligible_at: time_eligible,
            }
        })
        .collect();
    if !has_limit_pass {
        inherit_policy_reason(&mut segments);
    }
    RetentionOutcome {
        runner: run_by,
        passes: run,
        segments,
        new_log_start_offset: scan.log_start,
        new_local_log_start_offset: scan.local_log_start,
        rolled_new_active: scan.rolled_new_active,
        rolled_for_upload: scan.rolled_for_upload,
        approximation: scan.remote.then_some(Approximation::TieredStorage {
            upload_state_known: matches!(input.tiered.upload, UploadKnowledge::Known { .. }),
        }),
    }
}

#[cfg(test)]
mod tests;
