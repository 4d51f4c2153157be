//! The `tiered.*` findings (KIP-405): uploads that stalled, local bytes over the local limit and
//! why, an upload held by an open transaction, a remote-enabled topic on a broker whose remote
//! log system is off, an upload state nobody here can see. Built from the plan's per-segment
//! upload states ([`crate::rules::tiered`]) and the remote tier it replayed.

use crate::model::cluster::ClusterView;
use crate::model::remote_tier::RemoteSystem;
use crate::model::text::{segment_name, utc};
use crate::model::units::{Bytes, TimestampMs};
use crate::plan::space::SpaceUsage;
use crate::plan::{PartitionPlan, Plan};
use crate::rules::retention::{RetainReason, UploadKnowledge, Verdict};
use crate::rules::space::{SpaceReason, REMOTE_INDEX_CACHE_DIR};
use crate::rules::tiered::{UploadState, UploadWait};

use super::catalog;
use super::explain::{retain_reason, upload_wait};
use super::finding::Location;
use super::finding::{EvidenceValue, Finding, Severity};
use super::location::at_plan;

/// How long a copy may stay COPY_SEGMENT_STARTED, or an eligible segment wait for its copy,
/// before it is called stalled (a healthy copy of a 1 GiB segment takes seconds to minutes).
pub const STALL_AFTER_MS: i64 = 30 * 60 * 1000;

/// Bytes and count of the closed segments that wait for upload.
fn waiting(p: &PartitionPlan) -> (usize, Bytes) {
    let w: Vec<_> = (p.segments.iter())
        .filter(|s| matches!(s.upload, Some(UploadState::Waits(_))))
        .collect();
    (w.len(), w.iter().map(|s| s.size).sum())
}

/// `tiered.upload_stalled`: the first segment whose copy started and never finished (or, with
/// no such copy, the first segment eligible for upload since longer than [`STALL_AFTER_MS`]).
fn upload_stalled(p: &PartitionPlan, now: TimestampMs) -> Option<Finding> {
    let (n, bytes) = waiting(p);
    let hung = p.segments.iter().find_map(|s| match s.upload {
        Some(UploadState::Waits(UploadWait::CopyNeverFinished { started_at })) => {
            Some((s, started_at, true))
        }
        _ => None,
    });
    // A segment the copy task could take since its next segment rolled (its largest timestamp
    // is the closest bound on disk) and did not.
    let idle = || {
        p.segments.iter().find_map(|s| match s.upload {
            Some(UploadState::Waits(UploadWait::NotCopiedYet)) => {
                Some((s, s.largest_timestamp.0, false))
            }
            _ => None,
        })
    };
    let (s, since, started) = hung.or_else(idle)?;
    let age = (now - since).get();
    if age < STALL_AFTER_MS {
        return None;
    }
    let what = if started {
        format!("its copy started at {} and never finished", utc(since))
    } else {
        format!(
            "it has been eligible for upload since at least {} and no copy started",
            utc(since)
        )
    };
    Some(
        Finding::new(
            &catalog::TIERED_UPLOAD_STALLED,
            at_plan(p, Some(s.base_offset.get())),
            format!(
                "upload stalled at {}: {what} ({} min ago); {n} closed segment(s), {} B, wait \
                 for upload and cannot be deleted locally",
                segment_name(s.base_offset),
                age / 60_000,
                bytes.get()
            ),
        )
        .evidence("segment", EvidenceValue::Offset(s.base_offset.get()))
        .evidence(
            if started {
                "copy_started_at"
            } else {
                "eligible_since"
            },
            EvidenceValue::TimestampMs(since.get()),
        )
        .evidence("stalled_for_ms", EvidenceValue::Int(age))
        .evidence("segments_waiting", EvidenceValue::Count(n as u64))
        .evidence("bytes_waiting", EvidenceValue::Bytes(bytes.get())),
    )
}

/// `tiered.upload_failing`: the RemoteStorageManager fails the copy of a segment, and the
/// broker cleans each attempt up and retries it; that segment and every later one stay local.
fn upload_failing(p: &PartitionPlan) -> Option<Finding> {
    let (s, attempts, last) = p.segments.iter().find_map(|s| match s.upload {
        Some(UploadState::Waits(UploadWait::CopyFailed {
            attempts,
            last_failed_at,
        })) => Some((s, attempts, last_failed_at)),
        _ => None,
    })?;
    let (n, bytes) = waiting(p);
    Some(
        Finding::new(
            &catalog::TIERED_UPLOAD_FAILING,
            at_plan(p, Some(s.base_offset.get())),
            format!(
                "upload failing at {}: the remote storage manager failed {attempts} copy \
                 attempt(s) of it, the latest cleaned up at {}; the broker retries it on every \
                 copy-task run and copies nothing after it meanwhile; {n} closed segment(s), {} B, \
                 wait for upload and cannot be deleted locally",
                segment_name(s.base_offset),
                utc(last),
                bytes.get()
            ),
        )
        .evidence("segment", EvidenceValue::Offset(s.base_offset.get()))
        .evidence("failed_attempts", EvidenceValue::Count(u64::from(attempts)))
        .evidence("last_failed_at", EvidenceValue::TimestampMs(last.get()))
        .evidence("segments_waiting", EvidenceValue::Count(n as u64))
        .evidence("bytes_waiting", EvidenceValue::Bytes(bytes.get())),
    )
}

/// `tiered.local_over_limit`: local bytes above the effective `local.retention.bytes` after
/// the planned deletions, with the first reason a segment is kept.
fn local_over_limit(p: &PartitionPlan) -> Option<Finding> {
    let t = p.tier.as_ref()?;
    let limit = t.local_limit_bytes?;
    let kept: Bytes = (p.segments.iter())
        .filter(|s| matches!(s.verdict, Verdict::Retain { .. }))
        .map(|s| s.size)
        .sum();
    if i128::from(kept.get()) <= i128::from(limit) {
        return None;
    }
    // The first kept closed segment's reason (the active one is always kept).
    let first = (p.segments.iter().rev().skip(1).rev())
        .find(|s| matches!(s.verdict, Verdict::Retain { .. }))?;
    let Verdict::Retain { reason } = first.verdict else {
        return None;
    };
    if matches!(reason, RetainReason::WithinSize { .. }) {
        return None;
    }
    let why = retain_reason(
        &reason,
        p.log_end_offset,
        &p.config.cleanup_policy.to_string(),
    );
    Some(
        Finding::new(
            &catalog::TIERED_LOCAL_OVER_LIMIT,
            at_plan(p, Some(first.base_offset.get())),
            format!(
                "{} B stay local after the next retention run, over local.retention.bytes={limit}: \
                 {} is kept because {}",
                kept.get(),
                segment_name(first.base_offset),
                why.text
            ),
        )
        .evidence("local_bytes_kept", EvidenceValue::Bytes(kept.get()))
        .evidence(
            "local_retention_bytes",
            EvidenceValue::Count(limit.unsigned_abs()),
        )
        .evidence("reason", EvidenceValue::Text(why.kind.to_string()))
        .with_evidence(why.evidence),
    )
}

/// `tiered.upload_blocked_by_transaction`: the copy task stops below an open transaction.
fn blocked_by_transaction(p: &PartitionPlan) -> Option<Finding> {
    let (s, lso) = p.segments.iter().find_map(|s| match s.upload {
        Some(UploadState::Waits(UploadWait::BlockedByLso {
            last_stable_offset,
            open_transaction: true,
        })) => Some((s, last_stable_offset)),
        _ => None,
    })?;
    let (n, bytes) = waiting(p);
    let e = upload_wait(UploadWait::BlockedByLso {
        last_stable_offset: lso,
        open_transaction: true,
    });
    Some(
        Finding::new(
            &catalog::TIERED_UPLOAD_BLOCKED_BY_TRANSACTION,
            at_plan(p, Some(s.base_offset.get())),
            format!(
                "upload stops at {}: {}; {n} closed segment(s), {} B, wait and stay local",
                segment_name(s.base_offset),
                e.text,
                bytes.get()
            ),
        )
        .with_evidence(e.evidence)
        .evidence("segments_waiting", EvidenceValue::Count(n as u64))
        .evidence("bytes_waiting", EvidenceValue::Bytes(bytes.get()))
        .fix(format!(
            "find the open transaction with `logclean transactions` and abort it: \
             `kafka-transactions.sh --bootstrap-server HOST:PORT abort --topic {} --partition {} \
             --start-offset {}`",
            p.topic,
            p.partition,
            lso.get()
        )),
    )
}

/// `tiered.upload_state_unknown`: the metadata partition holding the upload state is not among
/// the inputs, so no closed segment is taken for uploaded.
fn upload_state_unknown(p: &PartitionPlan) -> Option<Finding> {
    let t = p.tier.as_ref()?;
    let UploadKnowledge::NotGiven { metadata_partition } = t.upload else {
        return None;
    };
    let blocked = (p.segments.iter())
        .filter(|s| s.if_uploaded.is_some())
        .count();
    let count = if t.count.assumed() {
        format!(" (partition count {} assumed)", t.count.count)
    } else {
        String::new()
    };
    Some(
        Finding::new(
            &catalog::TIERED_UPLOAD_STATE_UNKNOWN,
            at_plan(p, None),
            format!(
                "the upload state is in __remote_log_metadata-{metadata_partition}{count}, not \
                 among the log dirs given: no segment is taken for uploaded; {blocked} segment(s) \
                 would be deleted if they are"
            ),
        )
        .evidence(
            "metadata_partition",
            EvidenceValue::Count(u64::from(metadata_partition)),
        )
        .evidence("segments_if_uploaded", EvidenceValue::Count(blocked as u64)),
    )
}

/// `tiered.system_disabled`: `remote.storage.enable=true` on a topic while the broker's
/// `remote.log.storage.system.enable` is false (the broker then treats it as local only).
fn system_disabled(plan: &Plan) -> Vec<Finding> {
    if plan.remote_tier.system != RemoteSystem::Configured(false) {
        return Vec::new();
    }
    (plan.partitions.iter())
        .filter(|p| p.config.remote_storage_enable && !p.topic.starts_with("__"))
        .map(|p| {
            Finding::new(
                &catalog::TIERED_SYSTEM_DISABLED,
                at_plan(p, None),
                format!(
                    "topic {} has remote.storage.enable=true but this broker's \
                     remote.log.storage.system.enable=false: nothing is uploaded or read from \
                     remote storage, and local retention uses retention.ms/bytes",
                    p.topic
                ),
            )
            .with_severity(Severity::Warning)
        })
        .collect()
}

/// The broker key capping the remote index cache, and its default (Kafka 4.4
/// `RemoteLogManagerConfig.DEFAULT_REMOTE_LOG_INDEX_FILE_CACHE_TOTAL_SIZE_BYTES`, 1 GiB; the
/// same from 3.6).
pub const INDEX_CACHE_CAP_KEY: &str = "remote.log.index.file.cache.total.size.bytes";

/// `tiered.index_cache_size`: the bytes of `remote-log-index-cache/` (the offset, time and
/// transaction indexes the broker fetched from remote storage to serve reads below the local
/// log start; `RemoteIndexCache` keeps it in the first log dir) against its cap. Info while
/// within the cap (the bytes are the broker's to reuse, not retention's to free); a warning
/// above it (the cache evicts above the cap, so the excess is files it does not account for:
/// a cap lowered since they were fetched, or leftovers of an earlier run).
pub fn index_cache_findings(space: &[SpaceUsage], view: &ClusterView) -> Vec<Finding> {
    let cap = view.broker.get(INDEX_CACHE_CAP_KEY);
    let cap_bytes = cap.and_then(|v| v.as_i64()).unwrap_or(1 << 30);
    let source = cap.map_or("Kafka default", |v| v.source.name());
    let mut out = Vec::new();
    for u in space {
        let files = u.by_reason.entries(SpaceReason::RemoteIndexCache);
        if files == 0 {
            continue;
        }
        let bytes = u.by_reason.bytes(SpaceReason::RemoteIndexCache);
        // The cache weighs its entries by the index files' lengths (`RemoteIndexCache`'s
        // weigher, `Entry.entrySizeBytes`): the cap is compared with those, not the blocks.
        let indexed = u.by_reason.apparent(SpaceReason::RemoteIndexCache);
        let over = i128::from(indexed) > i128::from(cap_bytes);
        let share = (u128::from(indexed) * 100)
            .checked_div(u128::try_from(cap_bytes).unwrap_or(0))
            .unwrap_or(0);
        let mut f = Finding::new(
            &catalog::TIERED_INDEX_CACHE_SIZE,
            Location {
                log_dir: u.path.clone(),
                file: Some(u.path.join(REMOTE_INDEX_CACHE_DIR)),
                ..Location::default()
            },
            format!(
                "{REMOTE_INDEX_CACHE_DIR}/ holds {} file(s), {indexed} B of indexes ({bytes} B on \
                 disk), {share}% of {INDEX_CACHE_CAP_KEY}={cap_bytes}{}",
                files,
                if over {
                    ": above the cap the broker evicts to, so it does not account for the excess"
                } else {
                    ": indexes fetched from remote storage, reused by reads below the local log \
                     start; the cache evicts at the cap"
                }
            ),
        )
        .with_severity(if over {
            Severity::Warning
        } else {
            Severity::Info
        })
        .evidence("cache_bytes_on_disk", EvidenceValue::Bytes(bytes))
        .evidence("cache_index_bytes", EvidenceValue::Bytes(indexed))
        .evidence("cache_files", EvidenceValue::Count(files))
        .evidence(
            "cap_bytes",
            EvidenceValue::Bytes(cap_bytes.max(0).unsigned_abs()),
        )
        .evidence("cap_source", EvidenceValue::Text(source.to_string()))
        .evidence(
            "share_of_cap_percent",
            EvidenceValue::Count(u64::try_from(share).unwrap_or(u64::MAX)),
        );
        if over {
            f = f.fix(format!(
                "with the broker stopped, empty {REMOTE_INDEX_CACHE_DIR}/ (the broker fetches \
                 what it needs again; never delete it while the broker runs), or raise \
                 {INDEX_CACHE_CAP_KEY} (`kafka-configs.sh --bootstrap-server HOST:PORT --alter \
                 --entity-type brokers --entity-default --add-config {INDEX_CACHE_CAP_KEY}=N`)"
            ));
        }
        out.push(f);
    }
    out
}

/// Every `tiered.*` finding of `plan` at `now`.
pub fn tiered_findings(plan: &Plan) -> Vec<Finding> {
    let mut out = system_disabled(plan);
    for p in &plan.partitions {
        out.extend(
            [
                upload_stalled(p, plan.now),
                upload_failing(p),
                blocked_by_transaction(p),
                local_over_limit(p),
                upload_state_unknown(p),
            ]
            .into_iter()
            .flatten(),
        );
    }
    out
}
