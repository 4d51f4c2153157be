//! `logclean plan`: what the broker's cleanup will delete, keep and compact, per segment, at an
//! evaluation instant, built on the pure rules ([`crate::rules`]) and read only through the
//! model and the cluster view ([`adapter`] is the only bridge between them).
//!
//! - [`build_plan`]: one [`PartitionPlan`] per live partition replica: a verdict per segment
//!   with when it becomes eligible and when its files are gone, the new log start offset, the
//!   cleaner's view of a compacted log, the HW assumed, and plain notes where folklore misleads;
//! - [`Totals`]: bytes and segments freed per topic and per log dir;
//! - [`diff`]: what changes between two plans (today's and one under proposed configs);
//!
//! The plan states verdicts and the facts behind them; the `plan.*` findings and the words for
//! each answer are built above it, in `checks::plan` and `checks::explain`.
//!
//! Order on the cleaner thread (`LogCleaner.CleanerThread.cleanFilthiestLog`): each iteration
//! first cleans the filthiest log, then runs `deleteOldSegments` on every compacted log not in
//! progress (`LogCleanerManager.deletableLogs`). The log the cleaner takes first is therefore
//! cleaned before its first retention pass: its retention is evaluated on the post-clean layout
//! ([`compaction::cleaned_layout`]), where the segments a group merges are reported
//! [`SegmentPlan::merged_into`] its first segment. Every other compacted log meets retention on
//! its current layout first.
//!
//! Timing: files are renamed by the thread that runs the topic's retention (spec §C1). When a
//! log dir's `.lock` is held, the broker runs and its retention phase is unknown; otherwise the
//! plan assumes a broker (re)started at the evaluation instant, so its first retention run
//! comes after `log.initial.task.delay.ms`.

pub mod adapter;
pub mod replication;
pub mod space;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use rayon::prelude::*;

use crate::config::{BrokerCleanupConfig, ConfigSource, Limit, LogConfig};
use crate::model::cluster::ClusterView;
use crate::model::file_bytes::ReadMode;
use crate::model::lock::LockState;
use crate::model::log_dir::LogDir;
use crate::model::partition::{Partition, PARTITIONS_PER_TASK};
use crate::model::remote_tier::{
    Holding, MetadataPartitionCount, RemoteTierView, METADATA_PARTITIONS_CONFIG,
};
use crate::model::replica_join::ReplicaJoin;
use crate::model::units::{Bytes, DurationMs, Offset, TimestampMs};
use crate::rules::compaction::{
    self, CleanedSegment, CleanerPick, CompactionInput, Eligibility, LogToClean, UncleanableBound,
};
use crate::rules::facts::{SegmentFacts, TimestampSource};
use crate::rules::follower::{
    epoch_truncation, follower_start, truncation_cuts, FollowerStart, SegmentCut,
};
use crate::rules::high_watermark::{assumed_high_watermark, HighWatermark, HwBasis};
use crate::rules::retention::UploadKnowledge;
use crate::rules::retention::{
    self, Pass, RetainReason, RetentionInput, RetentionOutcome, TieredFacts, Verdict,
};
use crate::rules::tiered::{self, UploadInput, UploadState, UploadWait};
use crate::rules::timing::{deletion_timeline, Bound, BrokerClock};
use crate::rules::KafkaVersion;

use adapter::{replica_facts, FutureDirs, ReplicaFacts, StartupAction};

/// What the plan is made for.
#[derive(Debug, Clone)]
pub struct PlanOptions {
    /// The evaluation instant.
    pub now: TimestampMs,
    /// Only these topics (empty: all).
    pub topics: Vec<String>,
    /// The broker's release.
    pub version: KafkaVersion,
}

/// One segment's fate.
#[derive(Debug, Clone, PartialEq)]
pub struct SegmentPlan {
    /// Base offset.
    pub base_offset: Offset,
    /// Next offset (after its last record).
    pub next_offset: Offset,
    /// `.log` bytes.
    pub size: Bytes,
    /// The oldest record time (first batch), if any.
    pub first_timestamp: Option<TimestampMs>,
    /// The largest timestamp retention compares, and its source.
    pub largest_timestamp: (TimestampMs, TimestampSource),
    /// The next start recovers this segment first (its largest timestamp is the rebuilt one).
    pub recovered_on_start: bool,
    /// The rules' verdict.
    pub verdict: Verdict,
    /// When it becomes deletable: its delete pass's eligibility, or for a kept segment waiting
    /// only for time the instant the time pass deletes it.
    pub eligible_at: Option<TimestampMs>,
    /// When its files are renamed `.deleted` (latest bound).
    pub renamed_by: Option<TimestampMs>,
    /// When its files are gone (latest bound: check interval or cleaner backoff, then
    /// `file.delete.delay.ms`).
    pub gone_by: Option<TimestampMs>,
    /// Kept although `retention.ms` has passed for it (policy with `delete`).
    pub retained_expired: bool,
    /// The cleaner merges it into the segment with this base before retention runs; its
    /// verdict is then that cleaned segment's (and its times are there, not here).
    pub merged_into: Option<Offset>,
    /// `largest_timestamp` is the bound of a cleaned group (its members' max), which the pass
    /// may lower by dropping the records that carry it.
    pub largest_timestamp_upper_bound: bool,
    /// Tiered (copy-enabled) partitions: whether it is in remote storage, or why it waits.
    pub upload: Option<UploadState>,
    /// When the upload state is unknown: the pass that deletes it if it is uploaded (the other
    /// outcome the verdict does not take).
    pub if_uploaded: Option<Pass>,
    /// A follower's truncation on its first fetch ([`Note::EpochTruncation`]) cuts or deletes
    /// it before any retention pass (its verdict is then what retention would do to what is
    /// left).
    pub truncation: Option<SegmentTruncation>,
}

/// What a follower's truncation ([`EpochTruncation`]) does to one of its segments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentTruncation {
    /// Its records from this offset on go; it becomes the active segment and the refetch
    /// appends to it.
    TruncatedTo(Offset),
    /// Deleted by the truncation.
    Deleted {
        /// The leader has a segment at this base below its log end: the refetch creates one at
        /// the same base again (assumed: the follower rolls by the same topic config and the
        /// same record timestamps).
        refetched: bool,
    },
}

/// A follower that holds records its leader does not has them truncated on its first fetch
/// (`rules::follower::epoch_truncation`, `UnifiedLog.truncateTo`), then refetches from `to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EpochTruncation {
    /// The leader's node.
    pub leader: i32,
    /// The metadata names no leader: `leader` is the one assumed elected on restart.
    pub leader_assumed: bool,
    /// The follower's log end.
    pub log_end: Offset,
    /// Where it truncates to.
    pub to: Offset,
    /// The leader's log end (the refetch reads `to` up to it).
    pub leader_log_end: Offset,
    /// Segments deleted by the truncation.
    pub segments_deleted: usize,
    /// The segment cut at `to` (`None`: `to` is a segment boundary below every deleted one,
    /// or every segment goes).
    pub truncated_segment: Option<Offset>,
}

/// What stops the cleaner, with the numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Blocker {
    /// No cleaner thread runs.
    CleanerDisabled {
        /// `log.cleaner.enable`.
        enabled: bool,
        /// `log.cleaner.threads`.
        threads: i32,
    },
    /// The log is paused (intra-broker move).
    Paused,
    /// An open transaction holds the last stable offset.
    OpenTransaction {
        /// Its first offset.
        first_unstable_offset: Offset,
    },
    /// The HW is below the active segment.
    HighWatermark {
        /// The HW assumed.
        high_watermark: Offset,
    },
    /// A segment is younger than `min.compaction.lag.ms`.
    MinCompactionLag {
        /// Its base.
        segment_base: Offset,
        /// Its largest timestamp.
        largest_timestamp: TimestampMs,
        /// `min.compaction.lag.ms`.
        lag_ms: i64,
    },
    /// The dirty ratio is at or below `min.cleanable.dirty.ratio` and no max lag is due.
    RatioNotAbove {
        /// The ratio.
        ratio: f64,
        /// The threshold.
        min_ratio: f64,
    },
    /// Nothing to clean: no bytes.
    EmptyLog,
}

/// The cleaner's view of a compacted partition.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionPlan {
    /// The rules' answer.
    pub log: LogToClean,
    /// `min.cleanable.dirty.ratio`.
    pub min_ratio: f64,
    /// The last stable offset assumed (the HW, or an open transaction's first offset).
    pub last_stable_offset: Offset,
    /// The cleaner takes this log on its next passes.
    pub will_clean: bool,
    /// The `cleaner-offset-checkpoint` its pass writes.
    pub clean_up_to: Option<Offset>,
    /// The checkpoint entry once this pass and the retention pass after it are done: the
    /// cleaner resets an entry below the new log start to it (`None`: no entry, or no cleaner
    /// thread looks at this log).
    pub checkpoint_after: Option<Offset>,
    /// What blocks cleaning (`None`: only the active segment bounds it).
    pub blocked_by: Option<Blocker>,
    /// Passes needed at most (the dirty offsets over the keys one pass maps).
    pub passes_at_most: Option<u64>,
    /// Whether one pass maps every dirty offset, so `clean_up_to` is exact.
    pub clean_up_to_exact: bool,
    /// The cleaner takes this log first of all the compacted logs given.
    pub first_in_line: bool,
}

/// A plain statement where folklore gets it wrong.
#[derive(Debug, Clone, PartialEq)]
pub enum Note {
    /// Segments are deleted whatever consumer groups have committed.
    OffsetsDoNotHold {
        /// The new log start offset.
        new_log_start: Offset,
    },
    /// The active segment is past `segment.ms` but does not roll without an append.
    IdleDoesNotRoll {
        /// The active segment's base.
        active_base: Offset,
        /// When it became due to roll.
        due_since: TimestampMs,
    },
    /// `retention.bytes` is a per-replica limit.
    RetentionBytesPerReplica {
        /// The limit.
        limit: Bytes,
    },
    /// Tiered storage: the upload state is unknown (the `__remote_log_metadata` partition
    /// holding the partition was not given).
    TieredApproximate,
    /// The next start recovers segments first (largest timestamps rebuilt from batches).
    RecoversOnStart {
        /// How many segments.
        segments: usize,
    },
    /// The cleaner takes this log before its retention pass runs, and retention sees the
    /// cleaned segments.
    CleanedBeforeRetention {
        /// Segments merged into an earlier one.
        merged: usize,
        /// Cleaned segments made of more than one segment.
        groups: usize,
        /// Whether the verdicts on the cleaned layout are exact: every cleaned segment's
        /// largest timestamp is, the pass surely ends at `clean_up_to`, and no
        /// `retention.bytes` reads the (upper-bound) cleaned sizes.
        exact: bool,
    },
    /// This log ties for the highest dirty ratio: whether the cleaner takes it before its
    /// retention pass is unknown (Errata 19); verdicts assume it does not.
    CleanerOrderUnknown {
        /// The logs in the tie.
        tied: usize,
    },
    /// A follower's log start against its leader's ([`FollowerStart`]): which case happens.
    FollowerLogStart(FollowerStart),
    /// A follower holding records its leader does not truncates on its first fetch.
    EpochTruncation(EpochTruncation),
}

/// A remote-enabled partition's two tiers, as the plan sees them.
#[derive(Debug, Clone, PartialEq)]
pub struct TierSummary {
    /// Whether its `__remote_log_metadata` partition was replayed (`None`: no topic id).
    pub holding: Option<Holding>,
    /// The metadata partition count used, and whether it is assumed.
    pub count: MetadataPartitionCount,
    /// What is known of its uploads.
    pub upload: UploadKnowledge,
    /// Bytes of the local segments.
    pub local_bytes: Bytes,
    /// Bytes in remote storage (COPY_SEGMENT_FINISHED segments), when known.
    pub remote_bytes: Option<Bytes>,
    /// Bytes of closed local segments not in remote storage (waiting for upload), when known.
    pub waiting_bytes: Option<Bytes>,
    /// The effective local size limit (`local.retention.bytes`, −2 → `retention.bytes`).
    pub local_limit_bytes: Option<i64>,
    /// KIP-1257 `RetentionSizeInPercent` as the broker computes it
    /// (`RLMExpirationTask.calculateSizeInPercent`): (only-local + remote bytes) × 100 /
    /// `retention.bytes`, integer division; 0 when `retention.bytes` is 0; `None` when it is
    /// −1 (the broker does not compute it then) or the remote bytes are unknown.
    pub retention_size_in_percent: Option<i64>,
    /// KIP-1257 `LocalRetentionSizeInPercent`: local bytes × 100 / effective
    /// `local.retention.bytes` (0 when that is ≤ 0); `None` under the same conditions.
    pub local_retention_size_in_percent: Option<i64>,
    /// Copies started and never finished: (start offset, started at).
    pub unfinished_copies: Vec<(Offset, TimestampMs)>,
    /// Copies that failed and were cleaned up: (start offset, attempts, latest at).
    pub failed_copies: Vec<(Offset, u32, TimestampMs)>,
}

/// One partition replica's plan.
#[derive(Debug, Clone)]
pub struct PartitionPlan {
    /// The log dir.
    pub log_dir: PathBuf,
    /// The partition dir name.
    pub dir_name: String,
    /// The topic.
    pub topic: String,
    /// The partition.
    pub partition: i32,
    /// The effective config used.
    pub config: LogConfig,
    /// The log start offset now (after load).
    pub log_start_offset: Offset,
    /// The log end offset.
    pub log_end_offset: Offset,
    /// The HW assumed, and where the role came from.
    pub high_watermark: HighWatermark,
    /// `metadata_image`, `zookeeper_mode` or `not_in_metadata`.
    pub role_source: &'static str,
    /// The rules' retention outcome (its per-segment verdicts are in `segments`).
    pub retention: RetentionSummary,
    /// Per segment, oldest first.
    pub segments: Vec<SegmentPlan>,
    /// For compacted logs.
    pub compaction: Option<CompactionPlan>,
    /// Folklore and approximations.
    pub notes: Vec<Note>,
    /// What the next start does first.
    pub startup: Vec<StartupAction>,
    /// The tiered-storage context retention was evaluated with.
    pub tiered: TieredFacts,
    /// Remote-enabled partitions: local vs remote bytes, uploads, KIP-1257 percentages.
    pub tier: Option<TierSummary>,
    /// The Kafka version whose rules the plan follows.
    pub version: KafkaVersion,
    /// What the next run frees as the HW rises, from the run with no HW gate
    /// ([`retention::HwStep`]): how a follower's figures follow its leader's HW.
    pub hw_steps: Vec<retention::HwStep>,
}

impl PartitionPlan {
    /// The limit time retention compares largest timestamps with (rules:
    /// [`retention::time_retention_ms`]); `None` when no time pass runs or it is unlimited.
    pub fn time_retention_ms(&self) -> Option<i64> {
        retention::time_retention_ms(&self.config, &self.tiered, self.version)
    }

    /// The limit size retention keeps the log's bytes under (rules:
    /// [`retention::size_retention_bytes`]); `None` when no size pass runs or it is unlimited.
    pub fn size_retention_bytes(&self) -> Option<i64> {
        retention::size_retention_bytes(&self.config, &self.tiered, self.version)
    }

    /// Whether a segment whose largest timestamp is `ts` is past time retention at `now`
    /// (rules: [`retention::expired_by_time`]).
    pub fn expired_by_time(&self, ts: TimestampMs, now: TimestampMs) -> bool {
        retention::expired_by_time(&self.config, &self.tiered, self.version, ts, now)
    }

    /// The first offset past the segment based at `base`: the next segment's base, or the log
    /// end for the last one. A log start moved there drops that segment whatever its timestamps
    /// (the log-start pass ignores them): the fix for a future-stamped segment.
    pub fn offset_past(&self, base: Offset) -> Offset {
        self.segments
            .iter()
            .find(|s| s.base_offset > base)
            .map_or(self.log_end_offset, |s| s.base_offset)
    }

    /// Segments and bytes this plan deletes.
    pub fn freed(&self) -> Freed {
        self.segments
            .iter()
            .filter(|s| matches!(s.verdict, Verdict::Delete { .. }))
            .fold(Freed::default(), |f, s| Freed {
                segments: f.segments + 1,
                bytes: f.bytes.plus(s.size),
            })
    }
}

/// Segments and bytes freed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Freed {
    /// Segments deleted.
    pub segments: u64,
    /// Their `.log` bytes.
    pub bytes: Bytes,
}

impl Freed {
    fn add(self, o: Freed) -> Freed {
        Freed {
            segments: self.segments + o.segments,
            bytes: self.bytes.plus(o.bytes),
        }
    }
}

/// Totals of a plan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Totals {
    /// Per topic.
    pub per_topic: BTreeMap<String, Freed>,
    /// Per log dir.
    pub per_log_dir: BTreeMap<PathBuf, Freed>,
    /// Everything.
    pub all: Freed,
}

impl Totals {
    /// The totals of `partitions`.
    pub fn of(partitions: &[PartitionPlan]) -> Totals {
        let mut t = Totals::default();
        for p in partitions {
            let f = p.freed();
            let topic = t.per_topic.entry(p.topic.clone()).or_default();
            *topic = topic.add(f);
            let dir = t.per_log_dir.entry(p.log_dir.clone()).or_default();
            *dir = dir.add(f);
            t.all = t.all.add(f);
        }
        t
    }
}

/// A partition replica's log: `(log dir, dir name)`.
pub type LogRef = (PathBuf, String);

/// A whole plan.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The evaluation instant.
    pub now: TimestampMs,
    /// The broker config used.
    pub broker: BrokerCleanupConfig,
    /// Per partition replica, by log dir then dir name.
    pub partitions: Vec<PartitionPlan>,
    /// Totals.
    pub totals: Totals,
    /// The log each broker's cleaner takes first, as `(log dir, dir name)`, per node (`None`:
    /// dirs whose node is not known, one broker), in node order; none without a candidate.
    pub cleaner_first: Vec<(Option<i32>, CleanerPick<LogRef>)>,
    /// The remote tier as the given dirs show it (`__remote_log_metadata` replayed).
    pub remote_tier: RemoteTierView,
    /// Every live replica of the dirs planned, joined by partition: the checks' replication
    /// facts read the join the plan was made with instead of building it again.
    pub replicas: ReplicaJoin,
}

fn latest(b: Bound) -> TimestampMs {
    match b {
        Bound::At(t) => t,
        Bound::Between { latest, .. } => latest,
        Bound::CleanerLoop { latest_if_idle, .. } => latest_if_idle,
    }
}

/// The layout retention runs on: the segments as they are, one per group.
fn layout_as_is(segments: &[SegmentFacts]) -> Vec<CleanedSegment> {
    segments
        .iter()
        .enumerate()
        .map(|(i, s)| CleanedSegment {
            members: i..i + 1,
            facts: *s,
            largest_timestamp_exact: true,
            cleaned: false,
        })
        .collect()
}

/// One plan per segment of `f`, from `outcome` evaluated on `layout` (parallel to it): a
/// segment merged into an earlier one takes that cleaned segment's verdict and times.
fn segment_plans(
    f: &ReplicaFacts,
    layout: &[CleanedSegment],
    outcome: &RetentionOutcome,
    config: &LogConfig,
    broker: &BrokerCleanupConfig,
    clock: BrokerClock,
    opts: &PlanOptions,
) -> Vec<SegmentPlan> {
    let (now, version) = (opts.now, opts.version);
    let mut plans = Vec::with_capacity(f.segments.len());
    for (group, v) in layout.iter().zip(&outcome.segments) {
        let eligible_at = match v.verdict {
            Verdict::Delete { eligible_at, .. } => Some(eligible_at),
            Verdict::Retain { .. } => v.time_eligible_at,
        };
        let timeline =
            eligible_at.and_then(|e| deletion_timeline(e.max(now), clock, broker, config));
        let expired =
            retention::expired_by_time(config, &f.tiered, version, v.largest_timestamp.0, now);
        for i in group.members.clone() {
            let Some(s) = f.segments.get(i) else {
                continue;
            };
            let leader = i == group.members.start;
            plans.push(SegmentPlan {
                base_offset: s.base_offset,
                next_offset: s.next_offset,
                size: s.size,
                first_timestamp: f.first_timestamps.get(i).copied().filter(|t| t.is_set()),
                largest_timestamp: if leader {
                    v.largest_timestamp
                } else {
                    s.largest_timestamp()
                },
                recovered_on_start: f.recovered.get(i).copied().unwrap_or(false),
                verdict: v.verdict,
                // A merged segment's files go at the cleaner's swap; its records share the
                // cleaned segment's times.
                eligible_at: eligible_at.filter(|_| leader),
                renamed_by: timeline.filter(|_| leader).map(|t| latest(t.renamed)),
                gone_by: timeline.filter(|_| leader).map(|t| latest(t.gone_by)),
                retained_expired: expired && matches!(v.verdict, Verdict::Retain { .. }),
                merged_into: (!leader).then_some(group.facts.base_offset),
                largest_timestamp_upper_bound: leader
                    && group.cleaned
                    && !group.largest_timestamp_exact,
                upload: None,
                if_uploaded: None,
                truncation: None,
            });
        }
    }
    plans
}

fn blocker(
    f: &ReplicaFacts,
    hw: &HighWatermark,
    log: &LogToClean,
    config: &LogConfig,
    broker: &BrokerCleanupConfig,
) -> Option<Blocker> {
    if !broker.log_cleaner_enable || broker.log_cleaner_threads <= 0 {
        return Some(Blocker::CleanerDisabled {
            enabled: broker.log_cleaner_enable,
            threads: broker.log_cleaner_threads,
        });
    }
    if f.state.paused {
        return Some(Blocker::Paused);
    }
    let active_base = f
        .segments
        .last()
        .map_or(f.log_end_offset, |s| s.base_offset);
    let by_bound = match log.range.bound {
        // The LSO bounds the range only when it is below the active segment's base.
        UncleanableBound::LastStableOffset => match f.first_unstable_offset {
            Some(u) if u < hw.value && u < active_base => Some(Blocker::OpenTransaction {
                first_unstable_offset: u,
            }),
            _ if hw.value < active_base => Some(Blocker::HighWatermark {
                high_watermark: hw.value,
            }),
            _ => None,
        },
        UncleanableBound::MinCompactionLag {
            segment_base,
            largest_timestamp,
        } => Some(Blocker::MinCompactionLag {
            segment_base,
            largest_timestamp,
            lag_ms: config.min_compaction_lag_ms,
        }),
        UncleanableBound::ActiveSegment | UncleanableBound::FirstDirty => None,
    };
    match log.eligibility {
        _ if by_bound.is_some() => by_bound,
        Eligibility::EmptyLog => Some(Blocker::EmptyLog),
        Eligibility::NotEligible {
            ratio, min_ratio, ..
        } => Some(Blocker::RatioNotAbove { ratio, min_ratio }),
        Eligibility::RatioAbove { .. } | Eligibility::MaxCompactionLagDue { .. } => None,
    }
}

fn compaction_plan(
    f: &ReplicaFacts,
    hw: &HighWatermark,
    config: &LogConfig,
    broker: &BrokerCleanupConfig,
    now: TimestampMs,
    log_start_after: Offset,
) -> Option<CompactionPlan> {
    if !config.cleanup_policy.compact {
        return None;
    }
    let lso = compaction::last_stable_offset(hw.value, f.first_unstable_offset);
    let input = CompactionInput {
        segments: &f.segments,
        log_start_offset: f.log_start_offset,
        log_end_offset: f.log_end_offset,
        last_stable_offset: lso,
        checkpoint: f.cleaner_checkpoint,
        config,
        now,
    };
    let log = compaction::log_to_clean(&input);
    let running = broker.log_cleaner_enable && broker.log_cleaner_threads > 0;
    let candidate = compaction::is_cleaner_candidate(config.cleanup_policy, f.state);
    let will_clean = running && candidate && log.eligibility.is_eligible();
    let dirty_offsets = log
        .range
        .first_dirty
        .offset
        .records_until(log.range.first_uncleanable_offset);
    let keys = compaction::offset_map_capacity(broker).map(|c| c.keys_per_pass);
    let clean_up_to = will_clean.then(|| compaction::pass_end_offset(&log.range, None));
    Some(CompactionPlan {
        min_ratio: config.min_cleanable_dirty_ratio,
        last_stable_offset: lso,
        will_clean,
        clean_up_to,
        checkpoint_after: if running && candidate {
            compaction::checkpoint_after_passes(
                f.cleaner_checkpoint,
                clean_up_to,
                log_start_after,
                f.log_end_offset,
                config.cleanup_policy,
            )
        } else {
            None
        },
        blocked_by: blocker(f, hw, &log, config, broker),
        passes_at_most: keys.and_then(|k| compaction::passes_needed(dirty_offsets, k)),
        clean_up_to_exact: keys.is_some_and(|k| dirty_offsets <= k),
        first_in_line: false,
        log,
    })
}

fn notes(
    f: &ReplicaFacts,
    outcome: &RetentionOutcome,
    segments: &[SegmentPlan],
    config: &LogConfig,
    now: TimestampMs,
    version: KafkaVersion,
) -> Vec<Note> {
    let mut notes = Vec::new();
    if segments
        .iter()
        .any(|s| matches!(s.verdict, Verdict::Delete { .. }))
    {
        notes.push(Note::OffsetsDoNotHold {
            new_log_start: outcome.new_log_start_offset,
        });
    }
    if let (Some(active), Some(plan)) = (f.segments.last(), segments.last()) {
        let base = active.first_batch_max_timestamp;
        let due = base + DurationMs(config.segment_ms.max(0));
        // It matters where a roll would change what goes: the active segment is never cleaned
        // nor uploaded, and its records past retention stay until its newest one expires.
        let oldest_expired = plan
            .first_timestamp
            .is_some_and(|t| retention::expired_by_time(config, &f.tiered, version, t, now));
        let matters =
            config.cleanup_policy.compact || config.remote_storage_enable || oldest_expired;
        if !active.is_empty()
            && base.is_set()
            && due < now
            && matters
            && matches!(plan.verdict, Verdict::Retain { .. })
        {
            notes.push(Note::IdleDoesNotRoll {
                active_base: active.base_offset,
                due_since: due,
            });
        }
    }
    if let Limit::Max(limit) = config.retention_bytes {
        if config.cleanup_policy.delete {
            notes.push(Note::RetentionBytesPerReplica {
                limit: Bytes(u64::try_from(limit).unwrap_or(0)),
            });
        }
    }
    if matches!(
        outcome.approximation,
        Some(retention::Approximation::TieredStorage {
            upload_state_known: false
        })
    ) {
        notes.push(Note::TieredApproximate);
    }
    let recovered = f.recovered.iter().filter(|r| **r).count();
    if recovered > 0 {
        notes.push(Note::RecoversOnStart {
            segments: recovered,
        });
    }
    notes
}

/// What a partition's retention is evaluated from, kept until the cleaner's order is known.
struct Pending {
    facts: ReplicaFacts,
    clock: BrokerClock,
}

fn evaluate_retention(
    layout: &[CleanedSegment],
    f: &ReplicaFacts,
    hw: HighWatermark,
    config: &LogConfig,
    broker: &BrokerCleanupConfig,
    opts: &PlanOptions,
) -> RetentionOutcome {
    let segments: Vec<SegmentFacts> = layout.iter().map(|g| g.facts).collect();
    retention::evaluate(&RetentionInput {
        segments: &segments,
        log_start_offset: f.log_start_offset,
        log_end_offset: f.log_end_offset,
        high_watermark: hw,
        config,
        broker,
        tiered: f.tiered,
        state: f.state,
        now: opts.now,
        version: opts.version,
    })
}

/// The [`retention::HwStep`]s of `layout`: from `retention` itself when its HW gates nothing
/// (HW at the log end), else from a second run with the HW at the log end.
fn hw_steps_of(
    layout: &[CleanedSegment],
    f: &ReplicaFacts,
    hw: HighWatermark,
    retention: &RetentionOutcome,
    config: &LogConfig,
    broker: &BrokerCleanupConfig,
    opts: &PlanOptions,
) -> Vec<retention::HwStep> {
    let segments: Vec<SegmentFacts> = layout.iter().map(|g| g.facts).collect();
    if hw.value >= f.log_end_offset {
        return retention::hw_steps(&segments, retention, f.log_end_offset);
    }
    let open = HighWatermark::given(f.log_end_offset);
    let ungated = evaluate_retention(layout, f, open, config, broker, opts);
    retention::hw_steps(&segments, &ungated, f.log_end_offset)
}

/// Re-plans the log the cleaner takes first: its pass (to `clean_up_to`) runs before its
/// retention pass on the same cleaner thread, so retention sees the cleaned layout.
fn clean_before_retention(
    p: &mut PartitionPlan,
    pending: &Pending,
    broker: &BrokerCleanupConfig,
    opts: &PlanOptions,
) {
    let Some(c) = p.compaction.as_ref().filter(|c| c.will_clean) else {
        return;
    };
    let Some(end) = c.clean_up_to else {
        return;
    };
    let f = &pending.facts;
    let layout = compaction::cleaned_layout(
        &f.segments,
        &f.cleaner_segments,
        end,
        c.log.range.first_uncleanable_offset,
        p.high_watermark.value,
        opts.version,
        &p.config,
    );
    let groups = layout.iter().filter(|g| g.members.len() > 1).count();
    let merged = f.segments.len().saturating_sub(layout.len());
    // Exact when every cleaned segment's largest timestamp is, the pass surely reaches
    // `clean_up_to` (one offset map holds the dirty section), and no size limit reads the
    // cleaned sizes (summed pre-cleaning sizes are upper bounds).
    let exact = c.clean_up_to_exact
        && !(p.config.cleanup_policy.delete && matches!(p.config.retention_bytes, Limit::Max(_)))
        && layout
            .iter()
            .filter(|g| g.cleaned)
            .all(|g| g.largest_timestamp_exact);
    let retention = evaluate_retention(&layout, f, p.high_watermark, &p.config, broker, opts);
    p.hw_steps = hw_steps_of(
        &layout,
        f,
        p.high_watermark,
        &retention,
        &p.config,
        broker,
        opts,
    );
    p.segments = segment_plans(
        f,
        &layout,
        &retention,
        &p.config,
        broker,
        pending.clock,
        opts,
    );
    p.notes = notes(
        f,
        &retention,
        &p.segments,
        &p.config,
        opts.now,
        opts.version,
    );
    p.notes.push(Note::CleanedBeforeRetention {
        merged,
        groups,
        exact,
    });
    // The retention after the pass moves the log start: the checkpoint follows it (a reset).
    let checkpoint_after = compaction::checkpoint_after_passes(
        f.cleaner_checkpoint,
        Some(end),
        retention.new_log_start_offset,
        f.log_end_offset,
        p.config.cleanup_policy,
    );
    if let Some(c) = p.compaction.as_mut() {
        c.checkpoint_after = checkpoint_after;
    }
    p.retention = retention.into();
}

/// Where the leader's remote retention moves the log start at `opts.now` (rules:
/// [`tiered::remote_retention_log_start`]), when the remote tier of `f` was replayed.
fn remote_log_start(f: &ReplicaFacts, config: &LogConfig, opts: &PlanOptions) -> Option<Offset> {
    let r = f.remote.as_ref()?;
    let UploadKnowledge::Known { highest_offset } = f.tiered.upload else {
        return None;
    };
    // `onlyLocalLogSegmentsSize`: the local segments not (wholly) in remote storage.
    let only_local: Bytes = (f.segments.iter().enumerate())
        .filter(|(i, _)| {
            let upper = f
                .segments
                .get(i + 1)
                .map_or(f.log_end_offset, |n| n.base_offset);
            highest_offset.is_none_or(|h| upper.prev() > h)
        })
        .map(|(_, s)| s.size)
        .sum();
    tiered::remote_retention_log_start(
        &r.remote_segments,
        config.retention_ms.max(),
        config.retention_bytes.max(),
        only_local,
        opts.now,
    )
    .filter(|o| *o > f.log_start_offset)
}

/// The two tiers of remote-enabled replica `f`, from its facts and its segment plans.
fn tier_summary(
    f: &ReplicaFacts,
    segments: &[SegmentPlan],
    config: &LogConfig,
    remote: &RemoteTierView,
) -> Option<TierSummary> {
    let r = f.remote.as_ref()?;
    let known = matches!(f.tiered.upload, UploadKnowledge::Known { .. });
    let local_bytes: Bytes = f.segments.iter().map(|s| s.size).sum();
    let remote_bytes: Bytes = r.remote_segments.iter().map(|s| s.size).sum();
    let waiting: Bytes = (segments.iter())
        .filter(|s| matches!(s.upload, Some(UploadState::Waits(_))))
        .map(|s| s.size)
        .sum();
    let only_local: Bytes = (segments.iter())
        .filter(|s| !matches!(s.upload, Some(UploadState::Uploaded)))
        .map(|s| s.size)
        .sum();
    let local_limit = retention::local_size_limit(config);
    let pct = |num: u64, den: i64| {
        if den > 0 {
            i64::try_from(u128::from(num) * 100 / u128::from(den.unsigned_abs()))
                .unwrap_or(i64::MAX)
        } else {
            0
        }
    };
    // The broker computes both only when retention.bytes >= 0 (`buildRetentionSizeData`).
    let total_limit = config.retention_bytes.max().filter(|_| known);
    Some(TierSummary {
        holding: r.holding,
        count: remote.count,
        upload: f.tiered.upload,
        local_bytes,
        remote_bytes: known.then_some(remote_bytes),
        waiting_bytes: known.then_some(waiting),
        local_limit_bytes: local_limit,
        retention_size_in_percent: total_limit
            .map(|l| pct(only_local.get().saturating_add(remote_bytes.get()), l)),
        local_retention_size_in_percent: total_limit
            .map(|_| pct(local_bytes.get(), local_limit.unwrap_or(-1))),
        unfinished_copies: r.unfinished_copies.clone(),
        failed_copies: r.failed_copies.clone(),
    })
}

/// Each segment's upload state (copy-enabled partitions), the copy task's reason on every
/// "not uploaded" verdict, and for an unknown upload state the outcome were it uploaded.
#[allow(clippy::too_many_arguments)]
fn add_upload_states(
    segments: &mut [SegmentPlan],
    f: &ReplicaFacts,
    hw: HighWatermark,
    layout: &[CleanedSegment],
    config: &LogConfig,
    broker: &BrokerCleanupConfig,
    opts: &PlanOptions,
) {
    let Some(r) = f.remote.as_ref() else {
        return;
    };
    let states: Vec<UploadState> = match f.tiered.upload {
        // Copy disabled: what was uploaded before stays so; nothing else ever is.
        _ if config.remote_log_copy_disable => (0..f.segments.len())
            .map(|i| {
                let upper = f
                    .segments
                    .get(i + 1)
                    .map_or(f.log_end_offset, |n| n.base_offset);
                let uploaded = matches!(
                    f.tiered.upload,
                    UploadKnowledge::Known { highest_offset: Some(h) } if upper.prev() <= h
                );
                if i + 1 == f.segments.len() {
                    UploadState::Active
                } else if uploaded {
                    UploadState::Uploaded
                } else {
                    UploadState::Waits(UploadWait::CopyDisabled)
                }
            })
            .collect(),
        UploadKnowledge::Known { highest_offset } => tiered::upload_states(&UploadInput {
            segments: &f.segments,
            log_end_offset: f.log_end_offset,
            local_log_start: f.segments.first().map_or(f.log_start_offset, |s| {
                s.base_offset.max(f.log_start_offset)
            }),
            highest_offset,
            high_watermark: hw.value,
            first_unstable_offset: f.first_unstable_offset,
            copy_lag_ms: r.copy_lag.0,
            copy_lag_bytes: r.copy_lag.1,
            unfinished_copies: &r.unfinished_copies,
            failed_copies: &r.failed_copies,
            now: opts.now,
        }),
        UploadKnowledge::NotGiven { metadata_partition } => (0..f.segments.len())
            .map(|i| {
                if i + 1 == f.segments.len() {
                    UploadState::Active
                } else {
                    UploadState::Waits(UploadWait::Unknown { metadata_partition })
                }
            })
            .collect(),
        UploadKnowledge::Unknown | UploadKnowledge::AssumedUploaded => Vec::new(),
    };
    // The other outcome of an unknown state: every closed segment taken for uploaded.
    let if_uploaded = matches!(
        f.tiered.upload,
        UploadKnowledge::NotGiven { .. } | UploadKnowledge::Unknown
    )
    .then(|| {
        let mut g = f.clone();
        g.tiered.upload = UploadKnowledge::AssumedUploaded;
        evaluate_retention(layout, &g, hw, config, broker, opts)
    });
    for (i, s) in segments.iter_mut().enumerate() {
        s.upload = states.get(i).copied();
        if let (
            Some(UploadState::Waits(w)),
            Verdict::Retain {
                reason: RetainReason::NotUploaded { wait, .. },
            },
        ) = (s.upload, &mut s.verdict)
        {
            *wait = Some(w);
        }
        s.if_uploaded = (if_uploaded.as_ref())
            .filter(|_| matches!(s.verdict, Verdict::Retain { .. }))
            .and_then(|o| o.segments.get(i))
            .and_then(|v| match v.verdict {
                Verdict::Delete { pass, .. } => Some(pass),
                Verdict::Retain { .. } => None,
            });
    }
}

/// What a replica's plan reads beyond its own files, built once per plan: the replicas of
/// other brokers (a follower's leader), the remote tier's upload state and the `-future` dirs.
struct AcrossReplicas<'a> {
    join: &'a ReplicaJoin,
    remote: &'a RemoteTierView,
    futures: &'a FutureDirs,
}

/// The leaders' log starts by (topic, partition), from their own plans: (on load, after their
/// retention pass).
type LeaderStarts = HashMap<(String, i32), (Offset, Offset)>;

/// Whether a plan is a leader's (its HW basis is one only a leader has).
fn is_leader(p: &PartitionPlan) -> bool {
    matches!(
        p.high_watermark.basis,
        HwBasis::LeaderLogEnd
            | HwBasis::LeaderUnderMinIsr { .. }
            | HwBasis::CheckpointAwaitingFollowers
    )
}

/// Whether a plan is a follower's (the metadata image names another leader).
fn is_follower(p: &PartitionPlan) -> bool {
    matches!(
        p.high_watermark.basis,
        HwBasis::FollowerFromLeader { .. } | HwBasis::FollowerCheckpointAssumed
    )
}

/// The leaders' log starts (on load, after their pass) from their plans.
fn leader_starts(partitions: &[PartitionPlan]) -> LeaderStarts {
    let mut leaders = LeaderStarts::new();
    for p in partitions.iter().filter(|p| is_leader(p)) {
        (leaders.entry((p.topic.clone(), p.partition)))
            .or_insert((p.log_start_offset, p.retention.new_log_start_offset));
    }
    leaders
}

/// What the follower step of [`build_plan`] reads: the replicas planned (`at[k]` is the index
/// in `replicas` of plan `k`).
struct Follow<'a> {
    view: &'a ClusterView,
    across: &'a AcrossReplicas<'a>,
    replicas: &'a [(&'a LogDir, BrokerClock, &'a Partition)],
    at: &'a [usize],
    opts: &'a PlanOptions,
}

impl Follow<'_> {
    /// Each follower's log start follows its leader's (`rules::follower`): a follower whose
    /// case changes its segments is planned again with it, and its facts replace its slot in
    /// `pending` (the cleaner's candidates). `only`: again for these partitions' followers
    /// (each planned afresh, as an earlier case may have changed it), after their leader's
    /// plan changed.
    fn leaders(
        &self,
        partitions: &mut [PartitionPlan],
        mut pending: Option<&mut Vec<Option<Pending>>>,
        leaders: &LeaderStarts,
        only: Option<&[(String, i32)]>,
    ) {
        for (k, p) in partitions.iter_mut().enumerate() {
            if !is_follower(p) {
                continue;
            }
            let key = (p.topic.clone(), p.partition);
            if only.is_some_and(|o| !o.contains(&key)) {
                continue;
            }
            let case = follower_case(p, leaders);
            let replan = matches!(
                case,
                FollowerStart::FollowsLeader { .. } | FollowerStart::TruncatesFully { .. }
            );
            let again = (self.at.get(k).and_then(|&i| self.replicas.get(i)))
                .filter(|_| replan || only.is_some())
                .and_then(|&(dir, clock, part)| {
                    let with = replan.then_some(case);
                    plan_replica(self.view, self.across, dir, clock, part, self.opts, with)
                });
            match again {
                Some((mut plan, facts)) => {
                    if !replan {
                        plan.notes.push(Note::FollowerLogStart(case));
                    }
                    let candidate = plan.compaction.as_ref().is_some_and(|c| c.will_clean);
                    *p = plan;
                    if let Some(slot) = pending.as_mut().and_then(|v| v.get_mut(k)) {
                        *slot = candidate.then_some(facts);
                    }
                }
                None => p.notes.push(Note::FollowerLogStart(case)),
            }
        }
    }
}

/// Which [`FollowerStart`] case follower plan `p` is in, given the leaders' log starts.
fn follower_case(p: &PartitionPlan, leaders: &LeaderStarts) -> FollowerStart {
    match leaders.get(&(p.topic.clone(), p.partition)) {
        None => FollowerStart::LeaderNotGiven,
        Some(&(now, planned)) => follower_start(
            p.retention.new_log_start_offset,
            p.log_end_offset,
            now,
            planned,
        ),
    }
}

/// A follower's facts before its passes run: the leader's higher log start is taken first
/// (the log-start pass then deletes below it).
fn take_leader_log_start(case: FollowerStart, f: &mut ReplicaFacts) {
    if let FollowerStart::FollowsLeader { leader_log_start } = case {
        f.log_start_offset = f.log_start_offset.max(leader_log_start);
    }
}

/// A follower's plan after its passes: a full truncation deletes every segment at once (on
/// the first fetch, `truncateFullyAndStartAt`); the case is noted either way.
fn note_follower_start(case: FollowerStart, plan: &mut PartitionPlan, now: TimestampMs) {
    if let FollowerStart::TruncatesFully {
        leader_log_start, ..
    } = case
    {
        for s in &mut plan.segments {
            s.verdict = Verdict::Delete {
                pass: Pass::LogStartOffset,
                eligible_at: now,
            };
            s.eligible_at = Some(now);
            s.renamed_by = None;
            s.gone_by = None;
            s.retained_expired = false;
            s.merged_into = None;
        }
        plan.retention.new_log_start_offset = leader_log_start;
        plan.retention.new_local_log_start_offset = leader_log_start;
    }
    plan.notes.push(Note::FollowerLogStart(case));
}

/// A follower's truncation, the cut of each of its segments, and its leader's segment bases.
type Truncated = (EpochTruncation, Vec<SegmentCut>, Vec<Offset>);

/// The truncation follower plan `p` (on `node`) has on its first fetch from its leader (the
/// metadata's, or the one assumed elected on restart), with the cut of each of its segments and
/// the leader's segment bases (`None`: it is the leader, or the leader's dirs were not read, or
/// it holds nothing the leader does not).
fn epoch_truncation_of(
    view: &ClusterView,
    join: &ReplicaJoin,
    plans: &[PartitionPlan],
    nodes: &[Option<i32>],
    p: &PartitionPlan,
    node: i32,
) -> Option<Truncated> {
    if !is_follower(p)
        || p.notes.iter().any(|n| {
            matches!(
                n,
                Note::FollowerLogStart(FollowerStart::TruncatesFully { .. })
            )
        })
    {
        return None;
    }
    let image = (view.image.topics.get(&p.topic)).and_then(|t| t.partitions.get(&p.partition))?;
    let leader = if image.leader >= 0 {
        image.leader
    } else {
        adapter::restart_leader(image)?
    };
    let own = join.on_node(&p.topic, p.partition, node)?;
    let theirs = join.on_node(&p.topic, p.partition, leader)?;
    let leader_log_end = theirs.log_end_offset?;
    let to = epoch_truncation(
        &own.leader_epochs,
        p.log_end_offset,
        &theirs.leader_epochs,
        leader_log_end,
    )?;
    let bounds: Vec<(Offset, Offset)> = (p.segments.iter())
        .map(|s| (s.base_offset, s.next_offset))
        .collect();
    let cuts = truncation_cuts(&bounds, to);
    let leader_bases = (plans.iter().zip(nodes))
        .find(|(l, n)| **n == Some(leader) && l.topic == p.topic && l.partition == p.partition)
        .map(|(l, _)| l.segments.iter().map(|s| s.base_offset).collect())
        .unwrap_or_default();
    let t = EpochTruncation {
        leader,
        leader_assumed: image.leader < 0,
        log_end: p.log_end_offset,
        to,
        leader_log_end,
        segments_deleted: cuts.iter().filter(|c| **c == SegmentCut::Deleted).count(),
        truncated_segment: (p.segments.iter().zip(&cuts))
            .find(|(_, c)| matches!(c, SegmentCut::TruncatedTo(_)))
            .map(|(s, _)| s.base_offset),
    };
    Some((t, cuts, leader_bases))
}

/// Follower plan `p` after its truncation `t` (`cuts`: per segment; `leader_bases`: the
/// leader's segment bases, which a deleted segment's base comes back at when the refetch
/// reaches it).
fn truncate_follower(
    p: &mut PartitionPlan,
    t: EpochTruncation,
    cuts: &[SegmentCut],
    leader_bases: &[Offset],
) {
    for (s, c) in p.segments.iter_mut().zip(cuts) {
        s.truncation = match *c {
            SegmentCut::Kept => None,
            SegmentCut::TruncatedTo(to) => Some(SegmentTruncation::TruncatedTo(to)),
            SegmentCut::Deleted => Some(SegmentTruncation::Deleted {
                refetched: s.base_offset < t.leader_log_end
                    && leader_bases.contains(&s.base_offset),
            }),
        };
    }
    // Below the first segment: truncateFullyAndStartAt(to), the log restarts at `to`.
    if !cuts.is_empty() && cuts.iter().all(|c| *c == SegmentCut::Deleted) {
        p.retention.new_log_start_offset = t.to;
        p.retention.new_local_log_start_offset = t.to;
    }
    p.notes.push(Note::EpochTruncation(t));
}

/// The plan of replica `p` of log dir `dir` (`None`: not a live partition, no config, or not
/// among `opts.topics`), with what [`clean_before_retention`] needs to re-plan it.
fn plan_replica(
    view: &ClusterView,
    across: &AcrossReplicas,
    dir: &LogDir,
    clock: BrokerClock,
    p: &Partition,
    opts: &PlanOptions,
    follower: Option<FollowerStart>,
) -> Option<(PartitionPlan, Pending)> {
    let broker = &view.broker_config;
    let now = opts.now;
    let config = view.partition_log_config(&dir.path, &p.dir_name)?;
    let AcrossReplicas {
        join,
        remote,
        futures,
    } = across;
    let mut f = replica_facts(view, join, remote, futures, dir, p)?;
    if !opts.topics.is_empty() && !opts.topics.contains(&f.topic) {
        return None;
    }
    let hw = assumed_high_watermark(&f.hw);
    let own_log_start = f.log_start_offset;
    if let Some(case) = follower {
        take_leader_log_start(case, &mut f);
    }
    f.tiered.remote_log_start = remote_log_start(&f, &config, opts);
    let layout = layout_as_is(&f.segments);
    let retention = evaluate_retention(&layout, &f, hw, &config, broker, opts);
    let hw_steps = hw_steps_of(&layout, &f, hw, &retention, &config, broker, opts);
    let mut segments = segment_plans(&f, &layout, &retention, &config, broker, clock, opts);
    add_upload_states(&mut segments, &f, hw, &layout, &config, broker, opts);
    let compaction = compaction_plan(
        &f,
        &hw,
        &config,
        broker,
        now,
        retention.new_log_start_offset,
    );
    let notes = notes(&f, &retention, &segments, &config, now, opts.version);
    let tier = tier_summary(&f, &segments, &config, remote);
    let mut plan = PartitionPlan {
        log_dir: dir.path.clone(),
        dir_name: p.dir_name.clone(),
        topic: f.topic.clone(),
        partition: f.partition,
        log_start_offset: own_log_start,
        log_end_offset: f.log_end_offset,
        high_watermark: hw,
        role_source: f.role_source,
        retention: retention.into(),
        segments,
        compaction,
        notes,
        startup: f.startup.clone(),
        tier,
        tiered: f.tiered,
        version: opts.version,
        config,
        hw_steps,
    };
    if let Some(case) = follower {
        note_follower_start(case, &mut plan, now);
    }
    Some((plan, Pending { facts: f, clock }))
}

/// The plan of every live partition replica in `dirs`, under `view`'s configs.
pub fn build_plan(view: &ClusterView, dirs: &[LogDir], opts: &PlanOptions) -> Plan {
    let broker = &view.broker_config;
    let now = opts.now;
    let replicas: Vec<(&LogDir, BrokerClock, &Partition)> = dirs
        .iter()
        .flat_map(|dir| {
            let clock = match dir.lock {
                LockState::HeldBy { .. } => BrokerClock::PhaseUnknown,
                _ => BrokerClock::LoadedAt(now),
            };
            dir.partitions.iter().map(move |p| (dir, clock, p))
        })
        .collect();
    // Each replica's plan reads only its own facts and the shared configs: planned in parallel,
    // unzipped in the order of `replicas` (rayon's collections into a Vec keep it), so the plan
    // does not depend on scheduling. Only the cleaner's pick below looks across partitions.
    let futures = FutureDirs::of(view, dirs);
    // Several brokers' dirs: a follower's HW is its leader's, from the leader's files.
    let join = ReplicaJoin::of(view, dirs);
    let remote = RemoteTierView::of(
        &view.image,
        (view.sources.static_props.as_ref())
            .and_then(|p| p.get(METADATA_PARTITIONS_CONFIG))
            .map(String::as_str),
        (view.broker.get("remote.log.storage.system.enable"))
            .filter(|v| v.source != ConfigSource::DefaultConfig)
            .and_then(|v| v.as_bool()),
        dirs,
        view.records(ReadMode::Buffered),
    );
    let across = AcrossReplicas {
        join: &join,
        remote: &remote,
        futures: &futures,
    };
    // A partition's facts are kept only while the cleaner might take it first (a log it will
    // clean): the facts of every other partition are dropped where it was planned.
    let (planned, mut pending): (Vec<(usize, PartitionPlan)>, Vec<Option<Pending>>) = replicas
        .par_iter()
        .with_max_len(PARTITIONS_PER_TASK)
        .enumerate()
        .filter_map(|(i, &(dir, clock, p))| {
            plan_replica(view, &across, dir, clock, p, opts, None).map(|r| (i, r))
        })
        .map(|(i, (plan, pending))| {
            let candidate = plan.compaction.as_ref().is_some_and(|c| c.will_clean);
            ((i, plan), candidate.then_some(pending))
        })
        .unzip();
    let (at, mut partitions): (Vec<usize>, Vec<PartitionPlan>) = planned.into_iter().unzip();
    // A follower's log start follows its leader's (rules::follower): each leader's own plan
    // gives its log start on load and after its pass; a follower whose case changes its
    // segments is planned again with it.
    let leaders = leader_starts(&partitions);
    let follow = Follow {
        view,
        across: &across,
        replicas: &replicas,
        at: &at,
        opts,
    };
    follow.leaders(&mut partitions, Some(&mut pending), &leaders, None);
    // Each broker runs its own cleaner over all its log dirs (LogCleanerManager.
    // grabFilthiestCompactedLog): one pick per node, not one across the brokers given.
    let node_of_dir = |path: &std::path::Path| {
        (dirs.iter())
            .find(|d| d.path == path)
            .and_then(|d| view.node_of(d))
    };
    let mut by_node: BTreeMap<Option<i32>, Vec<(LogRef, LogToClean)>> = BTreeMap::new();
    for p in &partitions {
        if let Some(c) = p.compaction.as_ref().filter(|c| c.will_clean) {
            (by_node.entry(node_of_dir(&p.log_dir)).or_default())
                .push(((p.log_dir.clone(), p.dir_name.clone()), c.log));
        }
    }
    let cleaner_first: Vec<(Option<i32>, CleanerPick<LogRef>)> = (by_node.iter())
        .map(|(node, candidates)| (*node, compaction::pick_filthiest(candidates)))
        .collect();
    for (_, pick) in &cleaner_first {
        match pick {
            CleanerPick::Log((dir, name)) => {
                for (p, f) in (partitions.iter_mut().zip(&pending))
                    .filter(|(p, _)| p.log_dir == *dir && p.dir_name == *name)
                    .filter_map(|(p, f)| Some((p, f.as_ref()?)))
                {
                    if let Some(c) = p.compaction.as_mut() {
                        c.first_in_line = true;
                    }
                    // A follower's case stands on the cleaned layout too (a full truncation deletes
                    // every segment whatever the cleaner made of them).
                    let case = p.notes.iter().find_map(|n| match n {
                        Note::FollowerLogStart(c) => Some(*c),
                        _ => None,
                    });
                    clean_before_retention(p, f, broker, opts);
                    if let Some(case) = case {
                        note_follower_start(case, p, now);
                    }
                }
            }
            CleanerPick::OrderUnknown(tied) => {
                for p in partitions.iter_mut().filter(|p| {
                    tied.iter()
                        .any(|(dir, name)| p.log_dir == *dir && p.dir_name == *name)
                }) {
                    p.notes.push(Note::CleanerOrderUnknown { tied: tied.len() });
                }
            }
            CleanerPick::Nothing => {}
        }
    }
    // The cleaner's re-plan of a leader taken first may move its log start: its followers read
    // the leader's plan again (they read it before the pick, which reads their own candidacy).
    let after = leader_starts(&partitions);
    let moved: Vec<(String, i32)> = (after.iter())
        .filter(|(k, v)| leaders.get(*k) != Some(*v))
        .map(|(k, _)| k.clone())
        .collect();
    if !moved.is_empty() {
        follow.leaders(&mut partitions, None, &after, Some(&moved));
    }
    // A follower holding records its leader does not truncates on its first fetch.
    let nodes: Vec<Option<i32>> = (at.iter())
        .map(|&i| replicas.get(i).and_then(|&(dir, _, _)| view.node_of(dir)))
        .collect();
    let truncations: Vec<Option<Truncated>> = (partitions.iter().zip(&nodes))
        .map(|(p, &node)| epoch_truncation_of(view, &join, &partitions, &nodes, p, node?))
        .collect();
    for (p, t) in partitions.iter_mut().zip(truncations) {
        if let Some((t, cuts, leader_bases)) = t {
            truncate_follower(p, t, &cuts, &leader_bases);
        }
    }
    Plan {
        now,
        broker: broker.clone(),
        totals: Totals::of(&partitions),
        partitions,
        cleaner_first,
        remote_tier: remote,
        replicas: join,
    }
}

/// What a plan keeps of the rules' [`RetentionOutcome`]: all but the per-segment verdicts, which
/// live on in [`PartitionPlan::segments`] (kept once per segment, not twice: at a million
/// segments the verdicts with their pass reasons are a sixth of a plan's memory).
#[derive(Debug, Clone, PartialEq)]
pub struct RetentionSummary {
    /// The thread that runs it.
    pub runner: retention::Runner,
    /// The passes that run, in order (empty when the log is skipped).
    pub passes: Vec<Pass>,
    /// The log start offset after the passes.
    pub new_log_start_offset: Offset,
    /// The local log start offset after the passes (differs only for tiered topics).
    pub new_local_log_start_offset: Offset,
    /// Every segment was deleted: the broker rolled a new empty active segment at the LEO.
    pub rolled_new_active: bool,
    /// Tiered: the active segment is rolled so it can be uploaded.
    pub rolled_for_upload: bool,
    /// Set when the answer is approximate.
    pub approximation: Option<retention::Approximation>,
}

impl From<RetentionOutcome> for RetentionSummary {
    fn from(o: RetentionOutcome) -> Self {
        RetentionSummary {
            runner: o.runner,
            passes: o.passes,
            new_log_start_offset: o.new_log_start_offset,
            new_local_log_start_offset: o.new_local_log_start_offset,
            rolled_new_active: o.rolled_new_active,
            rolled_for_upload: o.rolled_for_upload,
            approximation: o.approximation,
        }
    }
}

/// A segment's verdict in short: the pass that deletes it, or the reason it stays.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Short {
    /// Deleted by this pass.
    Delete(Pass),
    /// Kept for this reason.
    Retain(RetainReason),
}

impl Short {
    fn of(v: &Verdict) -> Short {
        match *v {
            Verdict::Delete { pass, .. } => Short::Delete(pass),
            Verdict::Retain { reason } => Short::Retain(reason),
        }
    }

    /// Whether it is a delete.
    pub fn is_delete(&self) -> bool {
        matches!(self, Short::Delete(_))
    }
}

/// One segment whose verdict differs between two plans.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// Log dir.
    pub log_dir: PathBuf,
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// Segment base.
    pub base_offset: Offset,
    /// Its size.
    pub size: Bytes,
    /// Today.
    pub before: Short,
    /// Under the proposed values.
    pub after: Short,
}

/// The segments whose delete/retain verdict differs from `today` to `proposed`.
pub fn diff(today: &Plan, proposed: &Plan) -> Vec<Change> {
    let mut changes = Vec::new();
    // Look-ups by key, keeping the first of equal keys as a scan would: linear in partitions
    // and segments, not quadratic.
    let mut today_parts: BTreeMap<(&PathBuf, &str), &PartitionPlan> = BTreeMap::new();
    for t in &today.partitions {
        today_parts
            .entry((&t.log_dir, t.dir_name.as_str()))
            .or_insert(t);
    }
    for p in &proposed.partitions {
        let Some(t) = today_parts.get(&(&p.log_dir, p.dir_name.as_str())) else {
            continue;
        };
        let mut today_segs: BTreeMap<Offset, _> = BTreeMap::new();
        for b in &t.segments {
            today_segs.entry(b.base_offset).or_insert(b);
        }
        for s in &p.segments {
            let Some(b) = today_segs.get(&s.base_offset) else {
                continue;
            };
            let (before, after) = (Short::of(&b.verdict), Short::of(&s.verdict));
            if before.is_delete() != after.is_delete() {
                changes.push(Change {
                    log_dir: p.log_dir.clone(),
                    topic: p.topic.clone(),
                    partition: p.partition,
                    base_offset: s.base_offset,
                    size: s.size,
                    before,
                    after,
                });
            }
        }
    }
    changes
}
