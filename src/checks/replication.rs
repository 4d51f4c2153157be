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
//!   restarts at the leader's log start), or a replica holding records its leader does not
//!   (its latest leader epoch ends below its log end on the leader: it truncates there on its
//!   next fetch, `AbstractFetcherThread.truncateToEpochEndOffsets`; an unclean election).

use crate::model::metadata_log::PartitionImage;
use crate::model::replica_join::JoinedReplica;
use crate::model::units::Offset;
use crate::plan::adapter::restart_leader;
use crate::plan::replication::{ReplicationFacts, ResolvedPartition, ResolvedReplica};
use crate::rules::follower::epoch_truncation;

use super::catalog;
use super::finding::{EvidenceValue, Finding, Location, Severity};

/// `[1, 2]`, as the evidence shows a node list.
fn nodes(list: &[i32]) -> String {
    let v: Vec<String> = list.iter().map(i32::to_string).collect();
    format!("[{}]", v.join(", "))
}

/// Where a replica's findings go: its partition dir, with its node when several nodes' dirs
/// or reports were read.
fn at_replica(r: &JoinedReplica, topic: &str, partition: i32, several: bool) -> Location {
    Location {
        log_dir: r.log_dir.clone(),
        topic: Some(topic.to_string()),
        partition: Some(partition),
        dir: Some(r.dir_name.clone()),
        node: r.node_id.filter(|_| several),
        ..Default::default()
    }
}

/// The replica whose HW the ISR holds: the leader's; with no leader (the last ISR member shut
/// down), the ISR or ELR member with the highest log end, which the controller may elect.
fn stuck_replica<'a, 'b>(
    replicas: &'a [ResolvedReplica<'b>],
    leader: i32,
    candidates: &[i32],
) -> Option<&'a ResolvedReplica<'b>> {
    if leader >= 0 {
        return replicas.iter().find(|r| r.replica.node_id == Some(leader));
    }
    (replicas.iter())
        .filter(|r| r.replica.node_id.is_some_and(|n| candidates.contains(&n)))
        .max_by_key(|r| r.replica.log_end_offset)
}

/// Every cross-replica finding of `facts` (one run's dirs, or several brokers' reports joined).
pub fn replication_findings(facts: &ReplicationFacts) -> Vec<Finding> {
    let several = facts.nodes.len() > 1;
    let mut out = Vec::new();
    for resolved in facts.resolve() {
        let ResolvedPartition { facts: p, replicas } = &resolved;
        let Some(image) = p.image.as_ref() else {
            continue;
        };
        let (topic, partition) = (p.topic.as_str(), p.partition);
        let rf = i64::try_from(image.replicas.len()).unwrap_or(i64::MAX);
        let effective = i64::from(p.min_insync_replicas).min(rf);
        let isr_len = i64::try_from(image.isr.len()).unwrap_or(i64::MAX);
        let candidates: Vec<i32> = image.isr.iter().chain(&image.elr).copied().collect();
        let hw = (replicas.iter())
            .filter_map(|r| r.replica.checkpointed_high_watermark)
            .max();
        let at = |r: &JoinedReplica| at_replica(r, topic, partition, several);
        if isr_len < effective {
            out.extend(held_under_min_isr(
                &at,
                replicas,
                image,
                &candidates,
                effective,
            ));
        }
        let joined: Vec<&JoinedReplica> = replicas.iter().map(|r| r.replica).collect();
        out.extend(diverging(&at, &joined, &candidates, hw));
        out.extend(epochs_diverge(&at, &joined, image));
    }
    out
}

fn held_under_min_isr(
    at: &dyn Fn(&JoinedReplica) -> Location,
    replicas: &[ResolvedReplica<'_>],
    image: &PartitionImage,
    candidates: &[i32],
    effective_min_isr: i64,
) -> Option<Finding> {
    let resolved = stuck_replica(replicas, image.leader, candidates)?;
    let r = resolved.replica;
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
    let (segments, bytes) = resolved.held_by_hw;
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
            at(r),
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

/// Replicas holding records their leader does not (an unclean election, or writes a new leader
/// never received): each truncates on its next fetch to where its latest leader epoch ends on
/// the leader (`rules::follower::epoch_truncation`). The leader is the image's, or with none
/// the one assumed elected on restart.
fn epochs_diverge(
    at: &dyn Fn(&JoinedReplica) -> Location,
    replicas: &[&JoinedReplica],
    image: &PartitionImage,
) -> Vec<Finding> {
    let leader_id = if image.leader >= 0 {
        Some(image.leader)
    } else {
        restart_leader(image)
    };
    let Some(leader) = leader_id.and_then(|id| replicas.iter().find(|r| r.node_id == Some(id)))
    else {
        return Vec::new();
    };
    let Some(leader_end) = leader.log_end_offset else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for r in replicas.iter().filter(|r| r.node_id != leader.node_id) {
        let (Some(node), Some(end)) = (r.node_id, r.log_end_offset) else {
            continue;
        };
        let Some(to) = epoch_truncation(&r.leader_epochs, end, &leader.leader_epochs, leader_end)
        else {
            continue;
        };
        let lost = end.get().saturating_sub(to.get());
        let latest = r.leader_epochs.last().map_or(-1, |(e, _)| *e);
        let leader_node = leader.node_id.unwrap_or(-1);
        let whose = if image.leader >= 0 {
            format!("its leader, node {leader_node},")
        } else {
            format!(
                "node {leader_node}, the leader assumed on restart (no leader in the metadata \
                 log; with unclean.leader.election.enable another replica that registers first \
                 may lead instead, and then the other's records go),"
            )
        };
        out.push(
            Finding::new(
                &catalog::PARTITION_REPLICAS_DIVERGE,
                at(r),
                format!(
                    "node {node}'s log holds {lost} record(s) at {to}..{end} that {whose} does \
                     not have: its leader epochs end at epoch {latest}, which ends at {to} there \
                     (an unclean election, or writes a new leader never received); on its next \
                     fetch from it, it truncates to {to} and those records are lost"
                ),
            )
            .evidence("leader_assumed", EvidenceValue::Flag(image.leader < 0))
            .evidence("node", EvidenceValue::Int(i64::from(node)))
            .evidence("leader", EvidenceValue::Int(i64::from(leader_node)))
            .evidence("log_end_offset", EvidenceValue::Offset(end.get()))
            .evidence("truncates_to", EvidenceValue::Offset(to.get()))
            .evidence(
                "records_lost",
                EvidenceValue::Count(u64::try_from(lost).unwrap_or(0)),
            )
            .evidence("latest_leader_epoch", EvidenceValue::Int(i64::from(latest))),
        );
    }
    out
}

fn diverging(
    at: &dyn Fn(&JoinedReplica) -> Location,
    replicas: &[&JoinedReplica],
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
                at(r),
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
                at(r),
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
