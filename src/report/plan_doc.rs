//! Wire form of `logclean plan` (inside the shared envelope, schema version
//! [`crate::report::wire::SCHEMA_VERSION`]): serialise-only mirrors of [`crate::plan`], so the
//! library can change without breaking consumers. Documented in README.md ("plan JSON").
//! The field names listed there are what the conformance harness compares with the broker.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::checks::explain::{self, pass_name, Explanation};
use crate::model::names::path_text;
use crate::model::remote_tier::{Holding, MetadataPartitionCountSource};
use crate::plan::TierSummary;
use crate::plan::{
    Change, Freed, PartitionPlan, Plan, SegmentPlan, SegmentTruncation, Short, Totals,
};
use crate::rules::compaction::CleanerPick;
use crate::rules::facts::TimestampSource;
use crate::rules::retention::{Approximation, Runner, UploadKnowledge, Verdict};

use super::wire::findings::EvidenceDoc;

/// A typed reason: kind, one sentence, the numbers.
#[derive(Debug, Clone, Serialize)]
pub struct ReasonDoc {
    /// Stable `snake_case` kind.
    pub kind: &'static str,
    /// One sentence.
    pub text: String,
    /// The numbers, as finding evidence is.
    pub evidence: Vec<EvidenceDoc>,
}

impl ReasonDoc {
    fn new(e: Explanation) -> Self {
        ReasonDoc {
            kind: e.kind,
            text: e.text,
            evidence: e.evidence.iter().map(EvidenceDoc::new).collect(),
        }
    }
}

/// One segment.
#[derive(Debug, Clone, Serialize)]
pub struct SegmentPlanDoc {
    /// Base offset.
    pub base_offset: i64,
    /// Next offset.
    pub next_offset: i64,
    /// `.log` bytes.
    pub size_bytes: u64,
    /// Oldest record time (first batch).
    pub first_timestamp_ms: Option<i64>,
    /// The largest timestamp retention compares.
    pub largest_timestamp_ms: i64,
    /// `time_index`, `recovered` or `log_mtime`.
    pub largest_timestamp_source: &'static str,
    /// The next start recovers it first.
    pub recovered_on_start: bool,
    /// `delete`, `retain`, or `merge` (the cleaner merges it into `merged_into` before
    /// retention runs).
    pub verdict: &'static str,
    /// For deletes: `log_start_offset`, `size` or `time`.
    pub pass: Option<&'static str>,
    /// For retains: the first failing condition; for merges: `merged_by_cleaner`.
    pub reason: Option<ReasonDoc>,
    /// For merges: the base of the cleaned segment it becomes part of (whose verdict and
    /// times it shares).
    pub merged_into: Option<i64>,
    /// `largest_timestamp_ms` is a cleaned segment's bound (its members' max), which the pass
    /// may lower.
    pub largest_timestamp_upper_bound: bool,
    /// When it becomes deletable.
    pub eligible_at_ms: Option<i64>,
    /// Latest time its files are renamed `.deleted`.
    pub renamed_by_ms: Option<i64>,
    /// Latest time its files are gone.
    pub gone_by_ms: Option<i64>,
    /// Kept although `retention.ms` has passed.
    pub retained_expired: bool,
    /// Tiered (copy-enabled): in remote storage, the active segment, or why it waits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upload: Option<ReasonDoc>,
    /// Upload state unknown: the pass that deletes it if it is uploaded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub if_uploaded: Option<&'static str>,
    /// A follower's truncation on its first fetch cuts or deletes it (the partition's
    /// `follower_epoch_truncation` note says why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncation: Option<TruncationDoc>,
}

/// What a follower's truncation does to a segment.
#[derive(Debug, Clone, Serialize)]
pub struct TruncationDoc {
    /// `truncated` (its records from `truncated_to` on go; the refetch appends to it) or
    /// `deleted`.
    pub kind: &'static str,
    /// For `truncated`: the offset it is cut at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated_to: Option<i64>,
    /// For `deleted`: the leader has a segment at this base, which the refetch creates again
    /// (assumed: the follower rolls like the leader).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refetched: Option<bool>,
}

impl SegmentPlanDoc {
    fn new(s: &SegmentPlan, p: &PartitionPlan) -> Self {
        let policy = p.config.cleanup_policy.to_string();
        let (verdict, pass, reason) = match (s.merged_into, s.verdict) {
            (Some(into), v) => {
                let fate = match v {
                    Verdict::Delete { pass, .. } => {
                        format!("deleted by the {} pass", pass_name(pass))
                    }
                    Verdict::Retain { .. } => "kept".to_string(),
                };
                (
                    "merge",
                    None,
                    Some(ReasonDoc::new(explain::merged_by_cleaner(into, &fate))),
                )
            }
            _ if matches!(s.truncation, Some(SegmentTruncation::Deleted { .. })) => {
                ("delete", Some("truncation"), None)
            }
            (None, Verdict::Delete { pass, .. }) => ("delete", Some(pass_name(pass)), None),
            (None, Verdict::Retain { reason }) => (
                "retain",
                None,
                Some(ReasonDoc::new(explain::retain_reason(
                    &reason,
                    p.log_end_offset,
                    &policy,
                ))),
            ),
        };
        SegmentPlanDoc {
            base_offset: s.base_offset.get(),
            next_offset: s.next_offset.get(),
            size_bytes: s.size.get(),
            first_timestamp_ms: s.first_timestamp.map(|t| t.get()),
            largest_timestamp_ms: s.largest_timestamp.0.get(),
            largest_timestamp_source: match s.largest_timestamp.1 {
                TimestampSource::TimeIndex => "time_index",
                TimestampSource::Recovered => "recovered",
                TimestampSource::LogMtime => "log_mtime",
            },
            recovered_on_start: s.recovered_on_start,
            verdict,
            pass,
            reason,
            eligible_at_ms: s.eligible_at.map(|t| t.get()),
            renamed_by_ms: s.renamed_by.map(|t| t.get()),
            gone_by_ms: s.gone_by.map(|t| t.get()),
            retained_expired: s.retained_expired,
            merged_into: s.merged_into.map(|o| o.get()),
            largest_timestamp_upper_bound: s.largest_timestamp_upper_bound,
            upload: s.upload.map(|u| ReasonDoc::new(explain::upload_state(u))),
            if_uploaded: s.if_uploaded.map(pass_name),
            truncation: s.truncation.map(|t| match t {
                SegmentTruncation::TruncatedTo(to) => TruncationDoc {
                    kind: "truncated",
                    truncated_to: Some(to.get()),
                    refetched: None,
                },
                SegmentTruncation::Deleted { refetched } => TruncationDoc {
                    kind: "deleted",
                    truncated_to: None,
                    refetched: Some(refetched),
                },
            }),
        }
    }
}

/// A remote-enabled partition's two tiers.
#[derive(Debug, Clone, Serialize)]
pub struct TieredDoc {
    /// `known` (its `__remote_log_metadata` partition was replayed) or `unknown`.
    pub upload_state: &'static str,
    /// The `__remote_log_metadata` partition that holds it (`null`: no topic id).
    pub metadata_partition: Option<u32>,
    /// The metadata topic's partition count used.
    pub metadata_partition_count: u32,
    /// `metadata_image`, or `assumed_broker_config` / `assumed_default` (50).
    pub metadata_partition_count_source: &'static str,
    /// The highest offset in remote storage (`null`: nothing uploaded or unknown).
    pub highest_offset_in_remote_storage: Option<i64>,
    /// Bytes of the local segments.
    pub local_bytes: u64,
    /// Bytes in remote storage (`null`: unknown).
    pub remote_bytes: Option<u64>,
    /// Bytes of closed local segments waiting for upload (`null`: unknown).
    pub waiting_for_upload_bytes: Option<u64>,
    /// The effective local size limit (`null`: unlimited).
    pub local_retention_bytes: Option<i64>,
    /// KIP-1257 `RetentionSizeInPercent` as the broker computes it (`null`: the broker does not,
    /// `retention.bytes=-1`, or unknown).
    #[serde(rename = "RetentionSizeInPercent")]
    pub retention_size_in_percent: Option<i64>,
    /// KIP-1257 `LocalRetentionSizeInPercent`.
    #[serde(rename = "LocalRetentionSizeInPercent")]
    pub local_retention_size_in_percent: Option<i64>,
    /// Copies started and never finished.
    pub unfinished_copies: Vec<UnfinishedCopyDoc>,
    /// Copies the RemoteStorageManager failed and the broker cleaned up, per start offset.
    pub failed_copies: Vec<FailedCopyDoc>,
}

/// The failed copies of one segment.
#[derive(Debug, Clone, Serialize)]
pub struct FailedCopyDoc {
    /// Its start offset (the local segment's base).
    pub start_offset: i64,
    /// Failed attempts recorded.
    pub attempts: u32,
    /// Event time of the latest attempt's cleanup.
    pub last_failed_at_ms: i64,
}

/// A copy started and never finished.
#[derive(Debug, Clone, Serialize)]
pub struct UnfinishedCopyDoc {
    /// Its start offset (the local segment's base).
    pub start_offset: i64,
    /// When COPY_SEGMENT_STARTED was written.
    pub started_at_ms: i64,
}

impl TieredDoc {
    fn new(t: &TierSummary) -> Self {
        TieredDoc {
            upload_state: if matches!(t.upload, UploadKnowledge::Known { .. }) {
                "known"
            } else {
                "unknown"
            },
            metadata_partition: t.holding.map(|h| match h {
                Holding::Replayed(n) | Holding::NotGiven(n) => n,
            }),
            metadata_partition_count: t.count.count,
            metadata_partition_count_source: match t.count.source {
                MetadataPartitionCountSource::MetadataImage => "metadata_image",
                MetadataPartitionCountSource::AssumedFromBrokerConfig => "assumed_broker_config",
                MetadataPartitionCountSource::AssumedDefault => "assumed_default",
            },
            highest_offset_in_remote_storage: match t.upload {
                UploadKnowledge::Known { highest_offset } => highest_offset.map(|o| o.get()),
                _ => None,
            },
            local_bytes: t.local_bytes.get(),
            remote_bytes: t.remote_bytes.map(|b| b.get()),
            waiting_for_upload_bytes: t.waiting_bytes.map(|b| b.get()),
            local_retention_bytes: t.local_limit_bytes,
            retention_size_in_percent: t.retention_size_in_percent,
            local_retention_size_in_percent: t.local_retention_size_in_percent,
            unfinished_copies: (t.unfinished_copies.iter())
                .map(|(o, at)| UnfinishedCopyDoc {
                    start_offset: o.get(),
                    started_at_ms: at.get(),
                })
                .collect(),
            failed_copies: (t.failed_copies.iter())
                .map(|&(o, attempts, at)| FailedCopyDoc {
                    start_offset: o.get(),
                    attempts,
                    last_failed_at_ms: at.get(),
                })
                .collect(),
        }
    }
}

/// The cleaner's view of a compacted partition.
#[derive(Debug, Clone, Serialize)]
pub struct CompactionDoc {
    /// cleanable / (clean + cleanable).
    pub dirty_ratio: f64,
    /// The threshold.
    pub min_cleanable_dirty_ratio: f64,
    /// Bytes below the first dirty offset.
    pub clean_bytes: u64,
    /// Bytes the next pass may clean.
    pub cleanable_bytes: u64,
    /// Where cleaning starts.
    pub first_dirty_offset: i64,
    /// Where cleaning must stop (a segment base).
    pub first_uncleanable_offset: i64,
    /// The last stable offset assumed (the HW, or an open transaction's first offset).
    pub last_stable_offset: i64,
    /// The cleaner takes this log on its next passes.
    pub will_clean: bool,
    /// The `cleaner-offset-checkpoint` its pass writes (when `will_clean`).
    pub clean_up_to: Option<i64>,
    /// One pass maps every dirty offset, so `clean_up_to` is exact.
    pub clean_up_to_exact: bool,
    /// The `cleaner-offset-checkpoint` entry after the cleaner's pass and the retention pass:
    /// an entry below the new log start is reset to it on the cleaner's next look (null: no
    /// entry, or no cleaner thread looks at the log).
    pub checkpoint_after: Option<i64>,
    /// What blocks cleaning (`null`: only the active segment bounds it).
    pub blocked_by: Option<ReasonDoc>,
    /// Passes needed at most.
    pub passes_at_most: Option<u64>,
    /// The cleaner takes this log first.
    pub first_in_line: bool,
}

/// One partition replica.
#[derive(Debug, Clone, Serialize)]
pub struct PartitionPlanDoc {
    /// Log dir.
    pub log_dir: String,
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// Partition dir name.
    pub dir: String,
    /// `cleanup.policy`.
    pub cleanup_policy: String,
    /// `retention.ms` (`null`: unlimited).
    pub retention_ms: Option<i64>,
    /// `retention.bytes` per replica (`null`: unlimited).
    pub retention_bytes: Option<i64>,
    /// The limit time retention applies (rules: `retention::time_retention_ms`): `None` when no
    /// time pass runs or it is unlimited. Drawn by the timeline; not part of the wire form.
    #[serde(skip)]
    pub time_retention_ms: Option<i64>,
    /// `retention_task` or `cleaner_threads`.
    pub runner: &'static str,
    /// The passes that run, in order.
    pub passes: Vec<&'static str>,
    /// Log start offset now.
    pub log_start_offset: i64,
    /// Log start offset after the passes.
    pub log_start_offset_after: i64,
    /// Log end offset.
    pub log_end_offset: i64,
    /// The HW the answers assumed and why.
    pub high_watermark: ReasonDoc,
    /// Whether any answer is approximate (tiered storage).
    pub approximate: bool,
    /// Every segment deleted: the broker rolls a new empty active segment.
    pub rolls_new_active: bool,
    /// Segments, oldest first.
    pub segments: Vec<SegmentPlanDoc>,
    /// For compacted logs.
    pub compaction: Option<CompactionDoc>,
    /// Folklore and approximations, where they matter.
    pub notes: Vec<ReasonDoc>,
    /// What the next start does first with leftover files.
    pub next_start: Vec<StartupDoc>,
    /// Segments and bytes freed.
    pub freed: FreedDoc,
    /// Remote-enabled partitions: local vs remote bytes, uploads, KIP-1257 percentages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tiered: Option<TieredDoc>,
}

/// A leftover file and what loading does with it.
#[derive(Debug, Clone, Serialize)]
pub struct StartupDoc {
    /// File name.
    pub file: String,
    /// Its suffix.
    pub suffix: &'static str,
    /// What happens.
    pub action: &'static str,
}

/// Segments and bytes freed.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct FreedDoc {
    /// Segments deleted.
    pub segments: u64,
    /// Their bytes.
    pub bytes: u64,
}

impl From<Freed> for FreedDoc {
    fn from(f: Freed) -> Self {
        FreedDoc {
            segments: f.segments,
            bytes: f.bytes.get(),
        }
    }
}

impl PartitionPlanDoc {
    /// The wire form of one partition's plan.
    pub fn new(p: &PartitionPlan) -> Self {
        let c = p.compaction.as_ref();
        PartitionPlanDoc {
            log_dir: path_text(&p.log_dir),
            topic: p.topic.clone(),
            partition: p.partition,
            dir: p.dir_name.clone(),
            cleanup_policy: p.config.cleanup_policy.to_string(),
            retention_ms: p.config.retention_ms.max(),
            retention_bytes: p.config.retention_bytes.max(),
            time_retention_ms: p.time_retention_ms(),
            runner: match p.retention.runner {
                Runner::RetentionTask => "retention_task",
                Runner::CleanerThreads => "cleaner_threads",
            },
            passes: p.retention.passes.iter().map(|x| pass_name(*x)).collect(),
            log_start_offset: p.log_start_offset.get(),
            log_start_offset_after: p.retention.new_log_start_offset.get(),
            log_end_offset: p.log_end_offset.get(),
            high_watermark: ReasonDoc::new(explain::high_watermark(
                &p.high_watermark,
                p.role_source,
            )),
            approximate: matches!(
                p.retention.approximation,
                Some(Approximation::TieredStorage {
                    upload_state_known: false
                })
            ),
            rolls_new_active: p.retention.rolled_new_active,
            segments: p
                .segments
                .iter()
                .map(|s| SegmentPlanDoc::new(s, p))
                .collect(),
            compaction: c.map(|c| CompactionDoc {
                dirty_ratio: c.log.stats.ratio,
                min_cleanable_dirty_ratio: c.min_ratio,
                clean_bytes: c.log.stats.clean_bytes.get(),
                cleanable_bytes: c.log.stats.cleanable_bytes.get(),
                first_dirty_offset: c.log.range.first_dirty.offset.get(),
                first_uncleanable_offset: c.log.range.first_uncleanable_offset.get(),
                last_stable_offset: c.last_stable_offset.get(),
                will_clean: c.will_clean,
                clean_up_to: c.clean_up_to.map(|o| o.get()),
                clean_up_to_exact: c.clean_up_to_exact,
                checkpoint_after: c.checkpoint_after.map(|o| o.get()),
                blocked_by: c.blocked_by.map(|b| ReasonDoc::new(explain::blocker(&b))),
                passes_at_most: c.passes_at_most,
                first_in_line: c.first_in_line,
            }),
            notes: p
                .notes
                .iter()
                .map(|n| ReasonDoc::new(explain::note(n)))
                .collect(),
            next_start: p
                .startup
                .iter()
                .map(|s| StartupDoc {
                    file: s.file.clone(),
                    suffix: s.suffix,
                    action: s.action,
                })
                .collect(),
            freed: p.freed().into(),
            tiered: p.tier.as_ref().map(TieredDoc::new),
        }
    }
}

/// Freed per topic.
#[derive(Debug, Clone, Serialize)]
pub struct TopicFreedDoc {
    /// Topic.
    pub topic: String,
    /// Segments deleted.
    pub segments: u64,
    /// Bytes freed.
    pub bytes: u64,
}

/// Freed per log dir.
#[derive(Debug, Clone, Serialize)]
pub struct DirFreedDoc {
    /// Log dir.
    pub log_dir: String,
    /// Segments deleted.
    pub segments: u64,
    /// Bytes freed.
    pub bytes: u64,
}

/// Totals.
#[derive(Debug, Clone, Serialize)]
pub struct TotalsDoc {
    /// Segments deleted.
    pub segments_deleted: u64,
    /// Bytes freed.
    pub bytes_freed: u64,
    /// Per topic.
    pub per_topic: Vec<TopicFreedDoc>,
    /// Per log dir.
    pub per_log_dir: Vec<DirFreedDoc>,
}

impl TotalsDoc {
    fn new(t: &Totals) -> Self {
        TotalsDoc {
            segments_deleted: t.all.segments,
            bytes_freed: t.all.bytes.get(),
            per_topic: t
                .per_topic
                .iter()
                .map(|(topic, f)| TopicFreedDoc {
                    topic: topic.clone(),
                    segments: f.segments,
                    bytes: f.bytes.get(),
                })
                .collect(),
            per_log_dir: t
                .per_log_dir
                .iter()
                .map(|(d, f)| DirFreedDoc {
                    log_dir: path_text(d),
                    segments: f.segments,
                    bytes: f.bytes.get(),
                })
                .collect(),
        }
    }
}

/// A verdict in short.
#[derive(Debug, Clone, Serialize)]
pub struct ShortDoc {
    /// `delete` or `retain`.
    pub verdict: &'static str,
    /// For deletes.
    pub pass: Option<&'static str>,
    /// For retains: the reason kind.
    pub reason: Option<&'static str>,
}

impl ShortDoc {
    /// The short form of `s`, a verdict of a segment of `p`.
    pub fn new(s: Short, p: &PartitionPlan) -> Self {
        match s {
            Short::Delete(pass) => ShortDoc {
                verdict: "delete",
                pass: Some(pass_name(pass)),
                reason: None,
            },
            Short::Retain(r) => ShortDoc {
                verdict: "retain",
                pass: None,
                reason: Some(explain::retain_reason(&r, p.log_end_offset, "").kind),
            },
        }
    }
}

/// One segment whose verdict changes.
#[derive(Debug, Clone, Serialize)]
pub struct ChangeDoc {
    /// Log dir.
    pub log_dir: String,
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// Segment base.
    pub base_offset: i64,
    /// Its bytes.
    pub size_bytes: u64,
    /// Today.
    pub before: ShortDoc,
    /// Under the proposed values.
    pub after: ShortDoc,
}

/// The plan under proposed values and its difference to today's.
#[derive(Debug, Clone, Serialize)]
pub struct WhatIfDoc {
    /// The `--config` values.
    pub config: Vec<String>,
    /// The plan under them.
    pub partitions: Vec<PartitionPlanDoc>,
    /// Its totals.
    pub totals: TotalsDoc,
    /// Segments whose verdict changes.
    pub changes: Vec<ChangeDoc>,
    /// Bytes freed under the proposal minus today.
    pub bytes_freed_delta: i64,
}

/// A CI gate.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct GateDoc {
    /// The limit (bytes, or 0 for `--fail-if-retains-expired`).
    pub limit: u64,
    /// The measured value (bytes freed, or expired segments kept).
    pub value: u64,
    /// Whether it tripped (exit 1).
    pub tripped: bool,
}

/// The gates asked for.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct GatesDoc {
    /// `--fail-if-deletes-more-than`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletes_more_than: Option<GateDoc>,
    /// `--fail-if-retains-expired`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retains_expired: Option<GateDoc>,
}

/// The cleaner's first pick: each broker's cleaner picks its own (`by_node` when the dirs of
/// several brokers are given; the top-level `pick` then is `order_unknown` when any broker's
/// is, else `log` when any is, and `logs` lists them all).
#[derive(Debug, Clone, Serialize)]
pub struct CleanerFirstDoc {
    /// `log`, `order_unknown` (ties, Errata 19) or `nothing`.
    pub pick: &'static str,
    /// The partition dirs, as `log_dir/dir`.
    pub logs: Vec<String>,
    /// Per broker, when the dirs of several are given.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub by_node: Vec<CleanerFirstNodeDoc>,
}

/// One broker's cleaner pick.
#[derive(Debug, Clone, Serialize)]
pub struct CleanerFirstNodeDoc {
    /// The node id (`null`: dirs whose node is not known).
    pub node: Option<i32>,
    /// As [`CleanerFirstDoc::pick`].
    pub pick: &'static str,
    /// The partition dirs, as `log_dir/dir`.
    pub logs: Vec<String>,
}

/// The body of the `plan` document.
#[derive(Debug, Clone, Serialize)]
pub struct PlanBody {
    /// Per partition replica (today's configs).
    pub partitions: Vec<PartitionPlanDoc>,
    /// Totals.
    pub totals: TotalsDoc,
    /// Which compacted log the cleaner takes first.
    pub cleaner_first: CleanerFirstDoc,
    /// Under `--config`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub what_if: Option<WhatIfDoc>,
    /// The CI gates.
    pub gates: GatesDoc,
    /// What `--topic` kept (absent without it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter: Option<super::wire::filter::TopicFilterDoc>,
}

fn cleaner_first(plan: &Plan) -> CleanerFirstDoc {
    let name = |(d, n): &(std::path::PathBuf, String)| path_text(&d.join(n));
    let by_node: Vec<CleanerFirstNodeDoc> = (plan.cleaner_first.iter())
        .map(|(node, pick)| {
            let (pick, logs) = match pick {
                CleanerPick::Nothing => ("nothing", vec![]),
                CleanerPick::Log(l) => ("log", vec![name(l)]),
                CleanerPick::OrderUnknown(ls) => ("order_unknown", ls.iter().map(name).collect()),
            };
            CleanerFirstNodeDoc {
                node: *node,
                pick,
                logs,
            }
        })
        .collect();
    let any = |what: &str| by_node.iter().any(|n| n.pick == what);
    let pick = if any("order_unknown") {
        "order_unknown"
    } else if any("log") {
        "log"
    } else {
        "nothing"
    };
    CleanerFirstDoc {
        pick,
        logs: by_node.iter().flat_map(|n| n.logs.clone()).collect(),
        by_node: if by_node.len() > 1 { by_node } else { vec![] },
    }
}

impl PlanBody {
    /// The body for `today`, with `proposed` under the `config` values when given.
    pub fn new(
        today: &Plan,
        proposed: Option<(&Plan, &[String], &[Change])>,
        gates: GatesDoc,
        filter: Option<super::wire::filter::TopicFilterDoc>,
    ) -> Self {
        let what_if = proposed.map(|(p, config, changes)| {
            // The first partition of each key, as a scan would find it, in one map.
            let mut parts: BTreeMap<(&Path, &str, i32), &PartitionPlan> = BTreeMap::new();
            for x in &p.partitions {
                parts
                    .entry((x.log_dir.as_path(), x.topic.as_str(), x.partition))
                    .or_insert(x);
            }
            WhatIfDoc {
                config: config.to_vec(),
                partitions: p.partitions.iter().map(PartitionPlanDoc::new).collect(),
                totals: TotalsDoc::new(&p.totals),
                changes: changes
                    .iter()
                    .filter_map(|c| {
                        let part =
                            *parts.get(&(c.log_dir.as_path(), c.topic.as_str(), c.partition))?;
                        Some(ChangeDoc {
                            log_dir: path_text(&c.log_dir),
                            topic: c.topic.clone(),
                            partition: c.partition,
                            base_offset: c.base_offset.get(),
                            size_bytes: c.size.get(),
                            before: ShortDoc::new(c.before, part),
                            after: ShortDoc::new(c.after, part),
                        })
                    })
                    .collect(),
                bytes_freed_delta: i64::try_from(p.totals.all.bytes.get())
                    .unwrap_or(i64::MAX)
                    .saturating_sub(
                        i64::try_from(today.totals.all.bytes.get()).unwrap_or(i64::MAX),
                    ),
            }
        });
        PlanBody {
            partitions: today.partitions.iter().map(PartitionPlanDoc::new).collect(),
            totals: TotalsDoc::new(&today.totals),
            cleaner_first: cleaner_first(today),
            what_if,
            gates,
            filter,
        }
    }
}
