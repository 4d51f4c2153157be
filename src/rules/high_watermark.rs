//! The high watermark a replica holds when its first retention run comes, from what is on disk
//! and what is known of its role.
//!
//! Kafka: `Partition.scala` (`createLog`, `makeLeader`, `maybeIncrementLeaderHW`,
//! `isUnderMinIsr`), `Replica.scala` (`resetReplicaState`), `UnifiedLog.java`
//! (`updateHighWatermark`), `ReplicaFetcherThread.scala`. Spec §B6, §F1 and Errata 18 (verified
//! against a 4.4.0 broker): after load the HW is the log start offset; creating the partition
//! sets it from `replication-offset-checkpoint` (0 if absent) clamped to [log start, LEO]; a
//! leader then recomputes it at once as the min LEO over the ISR, unless the ISR is smaller
//! than min(`min.insync.replicas`, replication factor). A new leader resets its followers' LEOs
//! to unknown, so with followers in the ISR the HW stays at the checkpoint until they fetch. A
//! follower takes min(leader's HW from fetch responses, own LEO). The leader HW only rises
//! (`maybeIncrementHighWatermark`).
//!
//! The under-min-ISR guard in `maybeIncrementLeaderHW` (`if (isUnderMinIsr) return false`, with
//! `effectiveMinIsr` = min(`min.insync.replicas`, replicas)) is the 4.x code (KIP-966); a
//! release without it raises a sole leader's HW to the LEO even under min ISR.

use crate::model::units::Offset;

/// What is known of the replica's role (the ISR and leader are in the KRaft metadata log).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplicaRole {
    /// The leader, with the ISR = {itself} (every replication-factor-1 partition, or a shrunk
    /// ISR).
    LeaderAlone {
        /// `min.insync.replicas` of the topic.
        min_insync_replicas: u32,
        /// The partition's replication factor.
        replication_factor: u32,
    },
    /// The leader, with other replicas in the ISR.
    LeaderWithFollowers,
    /// A follower; the leader's HW if known (from the leader's own files).
    Follower {
        /// The leader's high watermark, if known.
        leader_high_watermark: Option<Offset>,
    },
    /// Not known (no metadata log, or it does not say).
    Unknown,
    /// The log is loaded but the broker creates no partition for it (not assigned to this
    /// broker in the metadata): the HW keeps its initial value, the log start offset.
    NotCreated,
}

/// Why the HW has the value it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HwBasis {
    /// Leader with ISR = {self}: `maybeIncrementLeaderHW` raises the HW to the LEO at once.
    LeaderLogEnd,
    /// Leader with ISR = {self} but under min ISR: the HW stays at the checkpoint value.
    LeaderUnderMinIsr {
        /// min(`min.insync.replicas`, replication factor).
        effective_min_isr: u32,
    },
    /// Leader with followers in the ISR: the checkpoint value until they fetch.
    CheckpointAwaitingFollowers,
    /// Follower: min(leader's HW, own LEO).
    FollowerFromLeader {
        /// The leader's HW.
        leader_high_watermark: Offset,
    },
    /// Follower whose leader's HW is unknown: the checkpoint value, assumed.
    FollowerCheckpointAssumed,
    /// Role unknown: the checkpoint value, assumed.
    CheckpointAssumed,
    /// Supplied by the caller (a live broker's figure, a test).
    Given,
    /// Never initialised from the checkpoint: the log start offset, so nothing at or above it
    /// is deletable (spec §B6, Errata 9).
    NotInitialised,
}

/// How the checkpointed value was adjusted before use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckpointAdjustment {
    /// Used as is.
    None,
    /// No entry: 0, then raised to the log start offset.
    Absent,
    /// Below the log start offset: raised to it.
    RaisedToLogStart,
    /// Above the LEO: lowered to it.
    LoweredToLogEnd,
}

/// The HW value assumed for retention, with where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HighWatermark {
    /// The value.
    pub value: Offset,
    /// Why.
    pub basis: HwBasis,
    /// What happened to the checkpoint value.
    pub checkpoint: CheckpointAdjustment,
}

impl HighWatermark {
    /// Whether the value is an assumption (role or leader HW unknown).
    pub fn is_assumed(&self) -> bool {
        matches!(
            self.basis,
            HwBasis::CheckpointAssumed | HwBasis::FollowerCheckpointAssumed
        )
    }

    /// A HW known by other means (a live broker's figure, a test), taken as is.
    pub fn given(value: Offset) -> HighWatermark {
        HighWatermark {
            value,
            basis: HwBasis::Given,
            checkpoint: CheckpointAdjustment::None,
        }
    }
}

/// Facts about the replica read from disk and metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HwFacts {
    /// The partition's `replication-offset-checkpoint` entry, if any.
    pub checkpoint: Option<Offset>,
    /// The log start offset after load.
    pub log_start_offset: Offset,
    /// The log end offset.
    pub log_end_offset: Offset,
    /// The replica's role.
    pub role: ReplicaRole,
}

/// The checkpoint value as `Partition.createLog` installs it: 0 if absent, clamped to
/// [log start, LEO].
fn installed_checkpoint(f: &HwFacts) -> (Offset, CheckpointAdjustment) {
    let raw = f.checkpoint.unwrap_or(Offset(0));
    let adj = if f.checkpoint.is_none() {
        CheckpointAdjustment::Absent
    } else if raw < f.log_start_offset {
        CheckpointAdjustment::RaisedToLogStart
    } else if raw > f.log_end_offset {
        CheckpointAdjustment::LoweredToLogEnd
    } else {
        CheckpointAdjustment::None
    };
    (raw.max(f.log_start_offset).min(f.log_end_offset), adj)
}

/// The HW the broker holds when retention first runs after a (re)start.
pub fn assumed_high_watermark(f: &HwFacts) -> HighWatermark {
    let (installed, checkpoint) = installed_checkpoint(f);
    let (value, basis) = match f.role {
        ReplicaRole::LeaderAlone {
            min_insync_replicas,
            replication_factor,
        } => {
            let effective_min_isr = min_insync_replicas.min(replication_factor);
            if effective_min_isr > 1 {
                (installed, HwBasis::LeaderUnderMinIsr { effective_min_isr })
            } else {
                // Only rises: max(installed, LEO) = LEO since installed ≤ LEO.
                (f.log_end_offset.max(installed), HwBasis::LeaderLogEnd)
            }
        }
        ReplicaRole::LeaderWithFollowers => (installed, HwBasis::CheckpointAwaitingFollowers),
        ReplicaRole::Follower {
            leader_high_watermark: Some(leader),
        } => (
            leader.min(f.log_end_offset),
            HwBasis::FollowerFromLeader {
                leader_high_watermark: leader,
            },
        ),
        ReplicaRole::Follower {
            leader_high_watermark: None,
        } => (installed, HwBasis::FollowerCheckpointAssumed),
        ReplicaRole::Unknown => (installed, HwBasis::CheckpointAssumed),
        ReplicaRole::NotCreated => (f.log_start_offset, HwBasis::NotInitialised),
    };
    HighWatermark {
        value,
        basis,
        checkpoint,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(checkpoint: Option<i64>, start: i64, leo: i64, role: ReplicaRole) -> HwFacts {
        HwFacts {
            checkpoint: checkpoint.map(Offset),
            log_start_offset: Offset(start),
            log_end_offset: Offset(leo),
            role,
        }
    }

    const ALONE: ReplicaRole = ReplicaRole::LeaderAlone {
        min_insync_replicas: 1,
        replication_factor: 1,
    };

    #[test]
    fn errata_18_restarted_sole_leader_holds_hw_equal_to_leo() {
        // The verified case: killed with checkpointed HW 8 and LEO 18.
        let hw = assumed_high_watermark(&facts(Some(8), 0, 18, ALONE));
        assert_eq!(hw.value, Offset(18));
        assert_eq!(hw.basis, HwBasis::LeaderLogEnd);
        assert!(!hw.is_assumed());
    }

    #[test]
    fn errata_18_sole_leader_under_min_isr_keeps_the_checkpoint() {
        let role = ReplicaRole::LeaderAlone {
            min_insync_replicas: 2,
            replication_factor: 3,
        };
        let hw = assumed_high_watermark(&facts(Some(8), 0, 18, role));
        assert_eq!(hw.value, Offset(8));
        assert_eq!(
            hw.basis,
            HwBasis::LeaderUnderMinIsr {
                effective_min_isr: 2
            }
        );
        // min.insync.replicas 2 with replication factor 1: the effective min ISR is 1.
        let role = ReplicaRole::LeaderAlone {
            min_insync_replicas: 2,
            replication_factor: 1,
        };
        assert_eq!(
            assumed_high_watermark(&facts(Some(8), 0, 18, role)).value,
            Offset(18)
        );
    }

    #[test]
    fn errata_18_leader_with_followers_waits_at_the_checkpoint() {
        let hw = assumed_high_watermark(&facts(Some(8), 0, 18, ReplicaRole::LeaderWithFollowers));
        assert_eq!(hw.value, Offset(8));
        assert_eq!(hw.basis, HwBasis::CheckpointAwaitingFollowers);
    }

    #[test]
    fn errata_18_follower_takes_min_of_leader_hw_and_own_leo() {
        let f = |l| ReplicaRole::Follower {
            leader_high_watermark: l,
        };
        assert_eq!(
            assumed_high_watermark(&facts(Some(3), 0, 18, f(Some(Offset(30))))).value,
            Offset(18)
        );
        assert_eq!(
            assumed_high_watermark(&facts(Some(3), 0, 18, f(Some(Offset(12))))).value,
            Offset(12)
        );
        let unknown = assumed_high_watermark(&facts(Some(3), 0, 18, f(None)));
        assert_eq!(unknown.value, Offset(3));
        assert!(unknown.is_assumed());
    }

    #[test]
    fn unknown_role_assumes_the_checkpoint() {
        let hw = assumed_high_watermark(&facts(Some(8), 0, 18, ReplicaRole::Unknown));
        assert_eq!(hw.value, Offset(8));
        assert_eq!(hw.basis, HwBasis::CheckpointAssumed);
        assert!(hw.is_assumed());
    }

    #[test]
    fn errata_9_a_replica_without_partition_keeps_hw_at_log_start() {
        let hw = assumed_high_watermark(&facts(Some(8), 3, 18, ReplicaRole::NotCreated));
        assert_eq!(hw.value, Offset(3));
        assert_eq!(hw.basis, HwBasis::NotInitialised);
    }

    #[test]
    fn checkpoint_is_clamped_to_log_start_and_leo() {
        let r = ReplicaRole::Unknown;
        let hw = assumed_high_watermark(&facts(None, 5, 18, r));
        assert_eq!(
            (hw.value, hw.checkpoint),
            (Offset(5), CheckpointAdjustment::Absent)
        );
        let hw = assumed_high_watermark(&facts(Some(2), 5, 18, r));
        assert_eq!(
            (hw.value, hw.checkpoint),
            (Offset(5), CheckpointAdjustment::RaisedToLogStart)
        );
        let hw = assumed_high_watermark(&facts(Some(99), 5, 18, r));
        assert_eq!(
            (hw.value, hw.checkpoint),
            (Offset(18), CheckpointAdjustment::LoweredToLogEnd)
        );
    }
}
