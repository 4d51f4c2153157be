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

/// The end offset of the largest epoch at or below `epoch` in `chain` ((epoch, start offset)
/// ascending; the last epoch ends at `log_end`), with that epoch: what a leader answers
/// OffsetsForLeaderEpoch with (`LeaderEpochFileCache.endOffsetFor`). `None`: no such epoch
/// (Kafka's UNDEFINED_EPOCH).
pub fn epoch_end(chain: &[(i32, i64)], log_end: Offset, epoch: i32) -> Option<(i32, Offset)> {
    let i = chain.iter().rposition(|(e, _)| *e <= epoch)?;
    let end = chain
        .get(i + 1)
        .map_or(log_end, |(_, start)| Offset(*start));
    chain.get(i).map(|(e, _)| (*e, end))
}

/// Where a follower truncates on its next fetch from the leader, when that is below its log
/// end (records the leader does not have: an unclean election, or writes a new leader never
/// received): `AbstractFetcherThread.truncateToEpochEndOffsets` sends the follower's latest
/// epoch, the leader answers the end of its largest epoch at or below it, and the follower
/// truncates to min(that end, its own end for the epoch the leader named). `None`: the
/// follower keeps its log (or the chains say nothing: no epochs, or the leader has none at or
/// below the follower's latest; Kafka then truncates to the HW).
pub fn epoch_truncation(
    follower: &[(i32, i64)],
    follower_end: Offset,
    leader: &[(i32, i64)],
    leader_end: Offset,
) -> Option<Offset> {
    let (latest, _) = *follower.last()?;
    let (epoch, leader_said) = epoch_end(leader, leader_end, latest)?;
    let own = epoch_end(follower, follower_end, epoch).map_or(follower_end, |(_, end)| end);
    Some(leader_said.min(own)).filter(|t| *t < follower_end)
}

/// What a follower's truncation to `to` does to one of its segments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentCut {
    /// Wholly below `to`: kept as it is.
    Kept,
    /// It holds `to` (or starts there): its records from `to` on go, it becomes the active
    /// segment and the refetch appends to it.
    TruncatedTo(Offset),
    /// Wholly at or above `to` but not the one holding it: deleted (renamed `.deleted`, gone
    /// after `file.delete.delay.ms`).
    Deleted,
}

/// What Kafka 4.4's `UnifiedLog.truncateTo(to)` does to a log whose segments are `segments`
/// ((base offset, next offset), ascending), one cut per segment: when the first segment starts
/// above `to`, `truncateFullyAndStartAt(to)` (every segment goes); else
/// `LocalLog.truncateTo` deletes every segment whose base is above `to` and truncates the one
/// holding `to` (the last with base at or below it: its `.log` cut at `to`'s position, its
/// indexes trimmed) to `to`; a log ending at or below `to` is left alone.
pub fn truncation_cuts(segments: &[(Offset, Offset)], to: Offset) -> Vec<SegmentCut> {
    let end = segments.last().map(|(_, next)| *next);
    if end.is_none_or(|e| e <= to) {
        return vec![SegmentCut::Kept; segments.len()];
    }
    if segments.first().is_some_and(|(base, _)| *base > to) {
        return vec![SegmentCut::Deleted; segments.len()];
    }
    let holder = segments.iter().rposition(|(base, _)| *base <= to);
    (segments.iter().enumerate())
        .map(|(i, (base, next))| match Some(i) == holder {
            true if *next > to => SegmentCut::TruncatedTo(to),
            true => SegmentCut::Kept,
            false if *base > to => SegmentCut::Deleted,
            false => SegmentCut::Kept,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs(bounds: &[(i64, i64)]) -> Vec<(Offset, Offset)> {
        bounds
            .iter()
            .map(|&(b, n)| (Offset(b), Offset(n)))
            .collect()
    }

    #[test]
    fn truncation_deletes_the_segments_above_and_cuts_the_one_holding_the_offset() {
        use SegmentCut::*;
        // One record per segment 0..7, truncated to 4: segment 4 is cut to its base (empty,
        // the new active one), 5-7 go.
        let one_each: Vec<(i64, i64)> = (0..8).map(|b| (b, b + 1)).collect();
        assert_eq!(
            truncation_cuts(&segs(&one_each), Offset(4)),
            vec![
                Kept,
                Kept,
                Kept,
                Kept,
                TruncatedTo(Offset(4)),
                Deleted,
                Deleted,
                Deleted
            ]
        );
        // rf3-unclean's node 2: segment 3 holds 3-4, truncated to 4: cut inside it, 5-7 go.
        assert_eq!(
            truncation_cuts(
                &segs(&[(0, 1), (1, 2), (2, 3), (3, 5), (5, 6), (6, 7), (7, 8)]),
                Offset(4)
            ),
            vec![
                Kept,
                Kept,
                Kept,
                TruncatedTo(Offset(4)),
                Deleted,
                Deleted,
                Deleted
            ]
        );
        // Inside a segment: 0..10 and 10..20, truncated to 15: the second is cut at 15.
        assert_eq!(
            truncation_cuts(&segs(&[(0, 10), (10, 20)]), Offset(15)),
            vec![Kept, TruncatedTo(Offset(15))]
        );
        // At a boundary that is the log end of the first: the second starts at 10 = `to`.
        assert_eq!(
            truncation_cuts(&segs(&[(0, 10), (10, 20), (20, 30)]), Offset(10)),
            vec![Kept, TruncatedTo(Offset(10)), Deleted]
        );
        // Below the first segment: truncateFullyAndStartAt.
        assert_eq!(
            truncation_cuts(&segs(&[(5, 10), (10, 20)]), Offset(3)),
            vec![Deleted, Deleted]
        );
        // At or beyond the log end: nothing to cut.
        assert_eq!(truncation_cuts(&segs(&[(0, 10)]), Offset(10)), vec![Kept]);
        assert!(truncation_cuts(&[], Offset(0)).is_empty());
    }

    #[test]
    fn an_uncleanly_replaced_leader_truncates_to_where_its_epoch_ends_on_the_new_leader() {
        // rf3-unclean: node 2 wrote 4-7 in epoch 0 alone; node 3, elected uncleanly at log end
        // 4, wrote 4-5 in epoch 2. Node 2 asks for epoch 0: it ends at 4 on node 3.
        let t = epoch_truncation(&[(0, 0)], Offset(8), &[(0, 0), (2, 4)], Offset(6));
        assert_eq!(t, Some(Offset(4)));
        // A follower merely behind its leader truncates nothing.
        assert_eq!(
            epoch_truncation(&[(0, 0)], Offset(4), &[(0, 0), (2, 4)], Offset(6)),
            None
        );
        // Same chains, the follower ahead in the same epoch (writes the leader lost): to its end.
        assert_eq!(
            epoch_truncation(&[(0, 0), (2, 4)], Offset(9), &[(0, 0), (2, 4)], Offset(6)),
            Some(Offset(6))
        );
        // No epoch at or below the follower's latest on the leader: not decidable here.
        assert_eq!(
            epoch_truncation(&[(0, 0)], Offset(8), &[(3, 0)], Offset(6)),
            None
        );
        assert_eq!(epoch_truncation(&[], Offset(8), &[(0, 0)], Offset(6)), None);
    }

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
