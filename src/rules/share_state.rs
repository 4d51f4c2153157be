//! What the share coordinator's prune frees in a `__share_group_state` partition, and which
//! share partition (group, topic, partition) holds the rest back. Pure: the replay comes in as
//! facts ([`crate::model::share_state`], which cites the Kafka 4.4 sources).
//!
//! - The prune job deletes records below `lastRedundantOffset` (the oldest latest snapshot over
//!   the keys) with DeleteRecords; the next retention pass deletes the segments lying wholly
//!   below it (`UnifiedLog.deleteOldSegments`' log-start pass: the next segment's base ≤ the log
//!   start; never the active segment).
//! - The key whose latest snapshot is that oldest one *blocks* the prune: were it snapshotted
//!   again (a write to it, or the cold-partition snapshot), the offset would rise to the next
//!   key's latest snapshot (or, with no other key, to the log end).
//! - `ShareCoordinatorShard.snapshotColdPartitions` re-snapshots a key whose last snapshot is
//!   older than `share.coordinator.cold.partition.snapshot.interval.ms` (default 5 min); a key
//!   whose snapshot stayed older than that while the coordinator went on writing others was not
//!   re-snapshotted: the prune stays where it is and the topic grows without bound.

use crate::formats::share_state_record::SharePartitionKey;
use crate::model::share_state::{SharePartitionReplay, StateSegment};

/// `ShareCoordinatorConfig.COLD_PARTITION_SNAPSHOT_INTERVAL_MS_DEFAULT` (Kafka 4.4).
pub const COLD_PARTITION_SNAPSHOT_INTERVAL_MS_DEFAULT: i64 = 5 * 60 * 1000;
/// The broker key of the cold-partition snapshot interval (an internal config in 4.4).
pub const COLD_PARTITION_SNAPSHOT_INTERVAL_KEY: &str =
    "share.coordinator.cold.partition.snapshot.interval.ms";

/// The key holding the prune back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PruneBlock {
    /// The share partition.
    pub key: SharePartitionKey,
    /// Offset of its latest snapshot (the prune's offset).
    pub snapshot_offset: i64,
    /// That snapshot's write time (epoch ms).
    pub snapshot_write_ms: Option<i64>,
    /// Where the prune would go were this key snapshotted again.
    pub unblocked_offset: i64,
    /// The closed segments only this key keeps: wholly below `unblocked_offset`, not wholly
    /// below the prune's offset.
    pub held: Vec<StateSegment>,
    /// Whether its snapshot is older than the cold-partition interval before the newest write
    /// in the partition: the cold-partition snapshot should have moved it and did not.
    pub stale: bool,
}

impl PruneBlock {
    /// Bytes of [`Self::held`].
    pub fn held_bytes(&self) -> u64 {
        self.held.iter().map(|s| s.size).sum()
    }
}

/// The prune of one partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharePrune {
    /// Where the next prune sets the log start (`None`: it deletes nothing).
    pub prune_offset: Option<i64>,
    /// The closed segments that go once pruned (wholly below the prune's offset), including
    /// any already below the log start.
    pub prunable: Vec<StateSegment>,
    /// The key holding the rest back, when only it keeps at least one closed segment.
    pub blocked_by: Option<PruneBlock>,
}

impl SharePrune {
    /// Bytes of [`Self::prunable`].
    pub fn prunable_bytes(&self) -> u64 {
        self.prunable.iter().map(|s| s.size).sum()
    }
}

/// The prune of `r` with the cold-partition snapshot interval `cold_interval_ms`.
pub fn share_prune(r: &SharePartitionReplay, cold_interval_ms: i64) -> SharePrune {
    let floor = r.last_redundant_offset.unwrap_or(0);
    let below = |o: i64| move |s: &&StateSegment| !s.active && s.upper_bound <= o;
    let prunable: Vec<StateSegment> = r.segments.iter().filter(below(floor)).copied().collect();
    // The oldest latest snapshot, and the next one.
    let mut snaps: Vec<(i64, &SharePartitionKey)> = (r.keys.iter())
        .filter_map(|(k, s)| s.snapshot_offset.map(|o| (o, k)))
        .collect();
    snaps.sort();
    let blocked_by = snaps.first().and_then(|&(offset, key)| {
        let unblocked_offset = snaps.get(1).map_or(r.log_end_offset, |&(o, _)| o);
        let held: Vec<StateSegment> = (r.segments.iter())
            .filter(below(unblocked_offset))
            .filter(|s| s.upper_bound > floor)
            .copied()
            .collect();
        if held.is_empty() {
            return None;
        }
        let write_ms = r.keys.get(key).and_then(|s| s.snapshot_write_ms);
        let stale = match (write_ms, r.newest_write_ms) {
            (Some(w), Some(newest)) => newest.saturating_sub(w) >= cold_interval_ms,
            _ => false,
        };
        Some(PruneBlock {
            key: key.clone(),
            snapshot_offset: offset,
            snapshot_write_ms: write_ms,
            unblocked_offset,
            held,
            stale,
        })
    });
    SharePrune {
        prune_offset: r.last_redundant_offset,
        prunable,
        blocked_by,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::partition_metadata::Uuid;
    use crate::model::share_state::ShareKeyState;
    use std::collections::BTreeMap;

    fn key(g: &str) -> SharePartitionKey {
        SharePartitionKey {
            group_id: g.into(),
            topic_id: Uuid([2; 16]),
            partition: 0,
        }
    }

    fn state(snapshot: i64, write_ms: i64) -> ShareKeyState {
        ShareKeyState {
            snapshot_offset: Some(snapshot),
            snapshot_write_ms: Some(write_ms),
            snapshot_epoch: Some(0),
            last_offset: snapshot,
            records: 1,
        }
    }

    fn replay(keys: Vec<(&str, ShareKeyState)>, redundant: Option<i64>) -> SharePartitionReplay {
        let seg = |b, u, active| StateSegment {
            base_offset: b,
            upper_bound: u,
            size: 100,
            active,
        };
        SharePartitionReplay {
            partition: 0,
            log_dir: "d".into(),
            path: "d/__share_group_state-0".into(),
            log_start_offset: 0,
            log_end_offset: 40,
            segments: vec![
                seg(0, 10, false),
                seg(10, 20, false),
                seg(20, 30, false),
                seg(30, 40, true),
            ],
            keys: keys
                .into_iter()
                .map(|(k, s)| (key(k), s))
                .collect::<BTreeMap<_, _>>(),
            last_redundant_offset: redundant,
            newest_write_ms: Some(1_000_000),
            records: 40,
            bad_records: vec![],
            stops: vec![],
            unreadable: None,
        }
    }

    #[test]
    fn an_idle_key_holds_every_segment_after_its_snapshot() {
        let r = replay(
            vec![("idle", state(5, 0)), ("busy", state(35, 999_000))],
            Some(5),
        );
        let p = share_prune(&r, 300_000);
        assert!(p.prunable.is_empty());
        let b = p.blocked_by.unwrap();
        assert_eq!(b.key.group_id, "idle");
        assert_eq!(b.unblocked_offset, 35);
        assert_eq!(
            b.held.iter().map(|s| s.base_offset).collect::<Vec<_>>(),
            [0, 10, 20]
        );
        assert_eq!(b.held_bytes(), 300);
        assert!(b.stale);
        // Its snapshot is younger than the cold-partition interval: held, not stale.
        assert!(!share_prune(&r, 2_000_000).blocked_by.unwrap().stale);
    }

    #[test]
    fn keys_close_together_hold_nothing() {
        let r = replay(vec![("a", state(22, 0)), ("b", state(25, 0))], Some(22));
        let p = share_prune(&r, 300_000);
        assert_eq!(
            p.prunable.iter().map(|s| s.base_offset).collect::<Vec<_>>(),
            [0, 10]
        );
        assert_eq!(p.prunable_bytes(), 200);
        assert_eq!(p.blocked_by, None);
    }
}
