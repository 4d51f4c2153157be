//! A follower's log start follows its leader's (issue 21).
//!
//! Kafka 4.4: every fetch response carries the leader's log start offset, and the follower
//! raises its own to it (`ReplicaFetcherThread.processPartitionData` →
//! `UnifiedLog.maybeIncrementLogStartOffset(leaderLogStartOffset, LeaderOffsetIncremented)`;
//! the fetch session answers when the leader's log start changed). The follower's retention
//! then deletes the segments wholly below it in its log-start pass ("log start offset N
//! breach"), bounded by its own HW like every pass; a paused log (an intra-broker move) takes
//! the new log start but deletes nothing.
//!
//! A follower whose log end is below the leader's log start (it was down while the leader
//! deleted) gets OFFSET_OUT_OF_RANGE on its first fetch: `AbstractFetcherThread.
//! fetchOffsetAndTruncate` asks the leader for its earliest offset and, when that is above the
//! follower's log end, `truncateFullyAndStartAt(leaderStartOffset)`: every segment goes, the log
//! restarts empty at that offset and refetches from there — no retention pass is involved.
//!
//! The leader's log start the follower meets first is the one it has on load (it answers the
//! first fetch within a second of the follower's start; its own retention runs later); the one
//! the follower ends with is the leader's after its retention pass.

use crate::model::units::Offset;

/// Which case a follower's log start is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FollowerStart {
    /// The leader's replica was not among the dirs read: the follower's own log start and
    /// retention, assumed (the leader's may be higher).
    LeaderNotGiven,
    /// The leader's log start (after its own retention) is at or below the follower's: the
    /// follower's own passes decide.
    Own {
        /// The leader's log start after its retention pass.
        leader_log_start: Offset,
    },
    /// The follower adopts the leader's higher log start from fetch responses; its log-start
    /// pass deletes the segments wholly below it.
    FollowsLeader {
        /// The leader's log start after its retention pass.
        leader_log_start: Offset,
    },
    /// The follower's log end is below the leader's log start: it truncates fully and restarts
    /// empty at the leader's log start (every segment goes, no retention pass).
    TruncatesFully {
        /// The follower's log end offset.
        log_end: Offset,
        /// The leader's log start when the follower first fetches (on load).
        leader_log_start_now: Offset,
        /// The leader's log start after its retention pass (the follower's in the end).
        leader_log_start: Offset,
    },
}

impl FollowerStart {
    /// The follower's log start after the leader's and its own passes, given its own planned
    /// one (`own`).
    pub fn log_start_after(self, own: Offset) -> Offset {
        match self {
            FollowerStart::LeaderNotGiven | FollowerStart::Own { .. } => own,
            FollowerStart::FollowsLeader { leader_log_start } => own.max(leader_log_start),
            FollowerStart::TruncatesFully {
                leader_log_start, ..
            } => leader_log_start,
        }
    }
}

/// The case of a follower whose own retention leaves its log start at `own_planned`, whose log
/// ends at `own_log_end`, and whose leader's log start is `leader_now` on load and
/// `leader_planned` after the leader's retention pass.
pub fn follower_start(
    own_planned: Offset,
    own_log_end: Offset,
    leader_now: Offset,
    leader_planned: Offset,
) -> FollowerStart {
    if own_log_end < leader_now {
        FollowerStart::TruncatesFully {
            log_end: own_log_end,
            leader_log_start_now: leader_now,
            leader_log_start: leader_planned.max(leader_now),
        }
    } else if leader_planned > own_planned {
        FollowerStart::FollowsLeader {
            leader_log_start: leader_planned,
        }
    } else {
        FollowerStart::Own {
            leader_log_start: leader_planned,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_follower_below_the_leaders_log_start_truncates_fully() {
        // rf3-follower-restart: node 3 stopped at log end 4, DeleteRecords took the leader to 6.
        let c = follower_start(Offset(0), Offset(4), Offset(6), Offset(6));
        assert_eq!(
            c,
            FollowerStart::TruncatesFully {
                log_end: Offset(4),
                leader_log_start_now: Offset(6),
                leader_log_start: Offset(6)
            }
        );
        assert_eq!(c.log_start_after(Offset(0)), Offset(6));
    }

    #[test]
    fn at_the_leaders_log_start_exactly_the_follower_fetches_on() {
        // Log end 6 = leader's log start 6: the fetch at 6 is in range.
        let c = follower_start(Offset(0), Offset(6), Offset(6), Offset(6));
        assert_eq!(
            c,
            FollowerStart::FollowsLeader {
                leader_log_start: Offset(6)
            }
        );
    }

    #[test]
    fn a_follower_takes_the_leaders_higher_log_start_after_its_retention() {
        // rf3-jbod: the leader's retention moves its log start 0 -> 4; the follower's is 0.
        let c = follower_start(Offset(0), Offset(4), Offset(0), Offset(4));
        assert_eq!(c.log_start_after(Offset(0)), Offset(4));
        assert!(matches!(c, FollowerStart::FollowsLeader { .. }));
    }

    #[test]
    fn a_follower_ahead_of_its_leader_keeps_its_own() {
        let c = follower_start(Offset(5), Offset(9), Offset(2), Offset(4));
        assert_eq!(
            c,
            FollowerStart::Own {
                leader_log_start: Offset(4)
            }
        );
        assert_eq!(c.log_start_after(Offset(5)), Offset(5));
        assert_eq!(
            FollowerStart::LeaderNotGiven.log_start_after(Offset(5)),
            Offset(5)
        );
    }
}
