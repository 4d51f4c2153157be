//! Findings across the replicas of a partition (issue 21): given several brokers' log dirs,
//! replicas are joined by topic id and partition ([`ReplicaJoin`]) and compared with the
//! metadata image's leader, ISR and ELR.
//!
//! - `partition.hw_held_under_min_isr`: the ISR is below min(`min.insync.replicas`,
//!   replication factor), so Kafka 4.x does not advance the HW (`Partition.maybeIncrementLeaderHW`
//!   returns early when `isUnderMinIsr`, KAFKA-15583 / KIP-966) while acks=0/1 writes still
//!   extend the log: the records above the HW are uncommitted, and retention deletes nothing
//!   above it (`UnifiedLog.deletableSegments` stops at the HW).
//! - `partition.replicas_diverge`: an ISR or ELR member whose log ends below the partition's
//!   HW (such a replica must hold every committed record), or a replica whose log ends below
//!   another replica's log start (it cannot catch up by fetching: it truncates fully and
//!   restarts at the leader's log start).

use std::path::Path;

use crate::model::cluster::ClusterView;
use crate::model::replica_join::{JoinedReplica, ReplicaJoin};
use crate::model::units::Offset;
use crate::plan::{PartitionPlan, Plan};
use crate::rules::retention::{RetainReason, Verdict};

use super::catalog;
use super::finding::{EvidenceValue, Finding, Location, Severity};
use super::location::at_plan;

/// `[1, 2]`, as the evidence shows a node list.
fn nodes(list: &[i32]) -> String {
    let v: Vec<String> = list.iter().map(i32::to_string).collect();
    format!("[{}]", v.join(", "))
}

/// Where a replica's findings go: its plan's place when planned, else its dir.
fn at_replica(plan: &Plan, r: &JoinedReplica, topic: &str, partition: i32) -> Location {
    planned(plan, &r.log_dir, &r.dir_name).map_or_else(
        || Location {
            log_dir: r.log_dir.clone(),
            topic: Some(topic.to_string()),
            partition: Some(partition),
            dir: Some(r.dir_name.clone()),
            ..Default::default()
        },
        |p| at_plan(p, None),
    )
}

fn planned<'a>(plan: &'a Plan, log_dir: &Path, dir_name: &str) -> Option<&'a PartitionPlan> {
    (plan.partitions.iter()).find(|p| p.log_dir == log_dir && p.dir_name == dir_name)
}

/// The expired segments of `p` that stay on disk because the HW is below them: their count
/// and bytes (`(0, 0)` when the first kept expired segment is kept for another reason).
fn held_by_hw(p: Option<&PartitionPlan>) -> (u64, u64) {
    let Some(p) = p else { return (0, 0) };
    let kept: Vec<_> = p.segments.iter().filter(|s| s.retained_expired).collect();
    let by_hw = kept.first().is_some_and(|s| {
        matches!(
            s.verdict,
            Verdict::Retain {
                reason: RetainReason::HwBelowUpperBound { .. }
            }
        )
    });
    if !by_hw {
        return (0, 0);
    }
    (kept.len() as u64, kept.iter().map(|s| s.size.get()).sum())
}

/// The replica whose HW the ISR holds: the leader's; with no leader (the last ISR member shut
/// down), the ISR or ELR member with the highest log end, which the controller may elect.
fn stuck_replica<'a>(
    replicas: &'a [JoinedReplica],
    leader: i32,
    candidates: &[i32],
) -> Option<&'a JoinedReplica> {
    if leader >= 0 {
        return replicas.iter().find(|r| r.node_id == Some(leader));
    }
    (replicas.iter())
        .filter(|r| r.node_id.is_some_and(|n| candidates.contains(&n)))
        .max_by_key(|r| r.log_end_offset)
}

/// Every cross-replica finding of the dirs `join` was built from.
pub fn replication_findings(view: &ClusterView, join: &ReplicaJoin, plan: &Plan) -> Vec<Finding> {
    let mut out = Vec::new();
    for ((topic, partition), replicas) in join.iter() {
        let Some(image) = (view.image.topics.get(topic)).and_then(|t| t.partitions.get(partition))
        else {
            continue;
        };
        let min_isr = (view.topics.get(topic))
            .and_then(|t| t.resolved.get_i64("min.insync.replicas"))
            .unwrap_or(1);
        let rf = i64::try_from(image.replicas.len()).unwrap_or(i64::MAX);
        let effective = min_isr.min(rf);
        let isr_len = i64::try_from(image.isr.len()).unwrap_or(i64::MAX);
        let candidates: Vec<i32> = image.isr.iter().chain(&image.elr).copied().collect();
        let hw = replicas
            .iter()
            .filter_map(|r| r.checkpointed_high_watermark)
            .max();
        if isr_len < effective {
            out.extend(held_under_min_isr(
                plan,
                topic,
                *partition,
                replicas,
                image,
                &candidates,
                effective,
            ));
        }
        out.extend(diverging(
            plan,
            topic,
            *partition,
            replicas,
            &candidates,
            hw,
        ));
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn held_under_min_isr(
    plan: &Plan,
    topic: &str,
    partition: i32,
    replicas: &[JoinedReplica],
    image: &crate::model::metadata_log::PartitionImage,
    candidates: &[i32],
    effective_min_isr: i64,
) -> Option<Finding> {
    let r = stuck_replica(replicas, image.leader, candidates)?;
    let (log_start, log_end) = (r.log_start_offset?, r.log_end_offset?);
    let hw = r
        .checkpointed_high_watermark
        .unwrap_or(Offset(0))
        .max(log_start)
        .min(log_end);
    if hw >= log_end {
        return None;
    }
    let node = r.node_id?;
    let missing: Vec<i32> = (image.replicas.iter())
        .filter(|n| !image.isr.contains(n))
        .copied()
        .collect();
    let (segments, bytes) = held_by_hw(planned(plan, &r.log_dir, &r.dir_name));
    let leader = if image.leader >= 0 {
        format!("leader {}", image.leader)
    } else {
        format!("no leader, ELR {}", nodes(&image.elr))
    };
    let frees = if segments > 0 {
        format!(
            "; retention cannot free {bytes} B ({segments} expired segment(s)) until it recovers"
        )
    } else {
        String::new()
    };
    Some(
        Finding::new(
            &catalog::PARTITION_HW_HELD_UNDER_MIN_ISR,
            at_replica(plan, r, topic, partition),
            format!(
                "HW {hw} held below the log end {log_end}: ISR {} ({leader}) is below \
                 min.insync.replicas {effective_min_isr}; not in the ISR: {}; {} \
                 record(s) are acknowledged but not committed{frees}",
                nodes(&image.isr),
                nodes(&missing),
                log_end.get() - hw.get(),
            ),
        )
        .evidence("node", EvidenceValue::Int(i64::from(node)))
        .evidence("high_watermark", EvidenceValue::Offset(hw.get()))
        .evidence("log_end_offset", EvidenceValue::Offset(log_end.get()))
        .evidence("isr", EvidenceValue::Text(nodes(&image.isr)))
        .evidence("elr", EvidenceValue::Text(nodes(&image.elr)))
        .evidence("not_in_isr", EvidenceValue::Text(nodes(&missing)))
        .evidence("effective_min_isr", EvidenceValue::Int(effective_min_isr))
        .evidence("held_segments", EvidenceValue::Count(segments))
        .evidence("held_bytes", EvidenceValue::Bytes(bytes)),
    )
}

fn diverging(
    plan: &Plan,
    topic: &str,
    partition: i32,
    replicas: &[JoinedReplica],
    candidates: &[i32],
    hw: Option<Offset>,
) -> Vec<Finding> {
    let max_start = replicas.iter().filter_map(|r| r.log_start_offset).max();
    let mut out = Vec::new();
    for r in replicas {
        let (Some(node), Some(end)) = (r.node_id, r.log_end_offset) else {
            continue;
        };
        let in_sync = candidates.contains(&node);
        let finding = if let Some(start) = max_start.filter(|s| end < *s) {
            Finding::new(
                &catalog::PARTITION_REPLICAS_DIVERGE,
                at_replica(plan, r, topic, partition),
                format!(
                    "node {node}'s log ends at {end}, below another replica's log start \
                     {start}: it cannot fetch what it misses, so it truncates fully and \
                     restarts at the leader's log start"
                ),
            )
            .with_severity(Severity::Info)
            .evidence("log_start_elsewhere", EvidenceValue::Offset(start.get()))
        } else if let Some(hw) = hw.filter(|hw| in_sync && end < *hw) {
            Finding::new(
                &catalog::PARTITION_REPLICAS_DIVERGE,
                at_replica(plan, r, topic, partition),
                format!(
                    "node {node} is in the ISR or ELR but its log ends at {end}, below the HW \
                     {hw} another replica checkpointed: it lacks committed records"
                ),
            )
            .evidence("high_watermark", EvidenceValue::Offset(hw.get()))
        } else {
            continue;
        };
        out.push(
            finding
                .evidence("node", EvidenceValue::Int(i64::from(node)))
                .evidence("log_end_offset", EvidenceValue::Offset(end.get())),
        );
    }
    out
}
