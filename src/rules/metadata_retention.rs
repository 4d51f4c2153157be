//! The KRaft metadata log's own retention: which segments the newest snapshot makes redundant,
//! what the metadata log cleaner deletes, and whether snapshots stopped being taken. Pure: the
//! facts come from [`crate::model::metadata_retention`].
//!
//! Kafka 4.4 sources:
//! - `raft/.../internals/KafkaRaftLog.java` `maybeClean` (run every 60 s by
//!   `KafkaRaftClient`'s `RaftMetadataLogCleanerManager`): first `cleanSnapshotsRetentionSize`,
//!   then `cleanSnapshotsRetentionMs`; `cleanSnapshots` walks the snapshots oldest first, never
//!   the newest, and for each one the predicate condemns calls `deleteBeforeSnapshot(next)`:
//!   the log start rises to the next snapshot's end offset and `deleteOldSegments` deletes the
//!   segments wholly below it; the walk stops at the first snapshot kept. By size: while the log
//!   size plus the snapshots still counted exceed `metadata.max.retention.bytes` (default 100
//!   MiB; −1 off). By time: while `now − LastContainedLogTimestamp > metadata.max.retention.ms`
//!   (default 7 d; −1 off). `createLog` forces the log's own `retention.ms/bytes` to −1.
//! - `metadata/.../image/publisher/SnapshotGenerator.java`: a snapshot is generated once
//!   `metadata.log.max.record.bytes.between.snapshots` (default 20 MiB) of records arrived since
//!   the last one, or `metadata.log.max.snapshot.interval.ms` (default 1 h; 0 off) passed with
//!   new records (the controller appends a NoOp record every `metadata.max.idle.interval.ms`,
//!   500 ms, so there are always new records).

use crate::model::metadata_retention::{MetadataLogFacts, MetadataSnapshotFile};
use crate::model::share_state::StateSegment;

/// `MetadataLogConfig` defaults (Kafka 4.4).
pub const MAX_RETENTION_BYTES_DEFAULT: i64 = 100 * 1024 * 1024;
/// `metadata.max.retention.ms` default: 7 days.
pub const MAX_RETENTION_MS_DEFAULT: i64 = 7 * 24 * 60 * 60 * 1000;
/// `metadata.log.max.snapshot.interval.ms` default: 1 h.
pub const SNAPSHOT_INTERVAL_MS_DEFAULT: i64 = 60 * 60 * 1000;
/// `metadata.log.max.record.bytes.between.snapshots` default: 20 MiB.
pub const SNAPSHOT_BYTES_DEFAULT: i64 = 20 * 1024 * 1024;

/// A snapshot is called stale once the log ran past it by this many times either threshold:
/// the generator runs on the controller's event queue and a healthy one is at most one interval
/// (or one threshold's bytes) behind.
pub const STALE_FACTOR: i64 = 2;

/// The configs the rules read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetadataRetentionConfig {
    /// `metadata.max.retention.bytes`.
    pub max_retention_bytes: i64,
    /// `metadata.max.retention.ms`.
    pub max_retention_ms: i64,
    /// `metadata.log.max.snapshot.interval.ms`.
    pub snapshot_interval_ms: i64,
    /// `metadata.log.max.record.bytes.between.snapshots`.
    pub snapshot_bytes: i64,
}

impl Default for MetadataRetentionConfig {
    fn default() -> Self {
        MetadataRetentionConfig {
            max_retention_bytes: MAX_RETENTION_BYTES_DEFAULT,
            max_retention_ms: MAX_RETENTION_MS_DEFAULT,
            snapshot_interval_ms: SNAPSHOT_INTERVAL_MS_DEFAULT,
            snapshot_bytes: SNAPSHOT_BYTES_DEFAULT,
        }
    }
}

/// What the cleaner does and what the snapshots make redundant, at one instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataRetention {
    /// The newest snapshot's end offset.
    pub newest_snapshot_end: Option<i64>,
    /// Closed segments wholly below the newest snapshot: a node can start without them.
    pub redundant: Vec<StateSegment>,
    /// Where the cleaner's next run sets the log start (`None`: it deletes nothing).
    pub cleaner_log_start: Option<i64>,
    /// The closed segments that run deletes.
    pub cleaner_deletes: Vec<StateSegment>,
    /// The snapshots it deletes with them (all before the one at the new log start).
    pub cleaner_deletes_snapshots: usize,
    /// When time retention next condemns the oldest snapshot it keeps (epoch ms), if it does.
    pub next_expiry_ms: Option<i64>,
    /// Why snapshots look stopped, if they do.
    pub stale: Option<StaleSnapshot>,
}

impl MetadataRetention {
    /// Bytes of [`Self::redundant`].
    pub fn redundant_bytes(&self) -> u64 {
        self.redundant.iter().map(|s| s.size).sum()
    }

    /// Bytes of [`Self::cleaner_deletes`].
    pub fn cleaner_bytes(&self) -> u64 {
        self.cleaner_deletes.iter().map(|s| s.size).sum()
    }
}

/// The log ran past the newest snapshot by more than [`STALE_FACTOR`] times a threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StaleSnapshot {
    /// The record bytes after the newest snapshot.
    pub bytes_since: u64,
    /// The time from the newest snapshot's last contained record to the log's newest batch
    /// (`None` when either is unknown).
    pub ms_since: Option<i64>,
    /// Whether the bytes exceed the threshold (else the time does).
    pub by_bytes: bool,
}

fn closed_below(segments: &[StateSegment], offset: i64) -> Vec<StateSegment> {
    (segments.iter())
        .filter(|s| !s.active && s.upper_bound <= offset)
        .copied()
        .collect()
}

/// The metadata log's retention at `now` under `cfg`.
pub fn metadata_retention(
    f: &MetadataLogFacts,
    cfg: MetadataRetentionConfig,
    now: i64,
) -> MetadataRetention {
    let snaps = &f.snapshots;
    let newest_snapshot_end = snaps.last().map(|s| s.end_offset);
    let redundant = newest_snapshot_end.map_or_else(Vec::new, |e| closed_below(&f.segments, e));
    let (kept, next_expiry_ms) = cleaner_pass(f, cfg, now);
    // The cleaner moves the log start only forward (`startOffset() < snapshotId.offset()`).
    let cleaner_log_start = (kept > 0)
        .then(|| snaps.get(kept).map(|s| s.end_offset))
        .flatten()
        .filter(|o| *o > f.log_start_offset);
    let cleaner_deletes = cleaner_log_start.map_or_else(Vec::new, |o| {
        closed_below(&f.segments, o)
            .into_iter()
            .filter(|s| s.upper_bound > f.log_start_offset)
            .collect()
    });
    let stale = newest_snapshot_end.and_then(|_| stale(f, snaps.last(), cfg));
    MetadataRetention {
        newest_snapshot_end,
        redundant,
        cleaner_log_start,
        cleaner_deletes,
        cleaner_deletes_snapshots: if cleaner_log_start.is_some() { kept } else { 0 },
        next_expiry_ms,
        stale,
    }
}

/// `maybeClean`: the index of the first snapshot the cleaner keeps (0: none deleted), and when
/// time retention condemns that one next.
fn cleaner_pass(
    f: &MetadataLogFacts,
    cfg: MetadataRetentionConfig,
    now: i64,
) -> (usize, Option<i64>) {
    let snaps = &f.snapshots;
    let last = snaps.len().saturating_sub(1);
    let mut i = 0;
    if cfg.max_retention_bytes >= 0 {
        let limit = u64::try_from(cfg.max_retention_bytes).unwrap_or(0);
        let mut snapshot_total: u64 = snaps.iter().map(|s| s.size).sum();
        while let Some(s) = snaps.get(i).filter(|_| i < last) {
            // `log.size()` after the segments below the current log start went.
            let start = if i == 0 {
                f.log_start_offset
            } else {
                s.end_offset
            };
            let log_size: u64 = (f.segments.iter())
                .filter(|seg| seg.active || seg.upper_bound > start)
                .map(|seg| seg.size)
                .sum();
            if log_size.saturating_add(snapshot_total) <= limit {
                break;
            }
            snapshot_total = snapshot_total.saturating_sub(s.size);
            i += 1;
        }
    }
    let mut next_expiry_ms = None;
    if cfg.max_retention_ms >= 0 {
        while let Some(s) = snaps.get(i).filter(|_| i < last) {
            let Some(ts) = s.last_contained_log_ms else {
                break;
            };
            if now.saturating_sub(ts) > cfg.max_retention_ms {
                i += 1;
            } else {
                next_expiry_ms = Some(ts.saturating_add(cfg.max_retention_ms));
                break;
            }
        }
    }
    (i, next_expiry_ms)
}

fn stale(
    f: &MetadataLogFacts,
    newest: Option<&MetadataSnapshotFile>,
    cfg: MetadataRetentionConfig,
) -> Option<StaleSnapshot> {
    let newest = newest?;
    let bytes_since = f.bytes_after_newest_snapshot;
    let ms_since = match (f.newest_batch_ms, newest.last_contained_log_ms) {
        (Some(n), Some(s)) => Some(n.saturating_sub(s)),
        _ => None,
    };
    let by_bytes = cfg.snapshot_bytes > 0
        && i64::try_from(bytes_since).unwrap_or(i64::MAX)
            > cfg.snapshot_bytes.saturating_mul(STALE_FACTOR);
    let by_time = cfg.snapshot_interval_ms > 0
        && ms_since.is_some_and(|ms| ms > cfg.snapshot_interval_ms.saturating_mul(STALE_FACTOR));
    (by_bytes || by_time).then_some(StaleSnapshot {
        bytes_since,
        ms_since,
        by_bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(b: i64, u: i64, active: bool) -> StateSegment {
        StateSegment {
            base_offset: b,
            upper_bound: u,
            size: 1000,
            active,
        }
    }

    fn snap(end: i64, ts: i64) -> MetadataSnapshotFile {
        MetadataSnapshotFile {
            name: format!("{end:020}-0000000001.checkpoint"),
            end_offset: end,
            epoch: 1,
            size: 500,
            last_contained_log_ms: Some(ts),
            problem: None,
        }
    }

    fn facts() -> MetadataLogFacts {
        MetadataLogFacts {
            log_dir: "d".into(),
            path: "d/__cluster_metadata-0".into(),
            log_start_offset: 0,
            log_end_offset: 40,
            segments: vec![
                seg(0, 10, false),
                seg(10, 20, false),
                seg(20, 30, false),
                seg(30, 40, true),
            ],
            snapshots: vec![snap(0, 0), snap(15, 1_000), snap(25, 2_000)],
            newest_batch_ms: Some(2_500),
            bytes_after_newest_snapshot: 900,
        }
    }

    #[test]
    fn redundant_is_below_the_newest_snapshot_and_stays_until_retention() {
        let f = facts();
        let cfg = MetadataRetentionConfig {
            max_retention_ms: 10_000,
            ..MetadataRetentionConfig::default()
        };
        let r = metadata_retention(&f, cfg, 5_000);
        assert_eq!(r.newest_snapshot_end, Some(25));
        assert_eq!(r.redundant_bytes(), 2000);
        assert_eq!(r.cleaner_log_start, None);
        assert_eq!(r.next_expiry_ms, Some(10_000));
        assert_eq!(r.stale, None);
        // 10.5 s later the two older snapshots are past retention: the start goes to 25, never
        // past the newest snapshot.
        let r = metadata_retention(&f, cfg, 13_000);
        assert_eq!(r.cleaner_log_start, Some(25));
        assert_eq!(r.cleaner_bytes(), 2000);
        assert_eq!(r.cleaner_deletes_snapshots, 2);
    }

    #[test]
    fn size_retention_counts_the_log_and_the_snapshots() {
        let f = facts();
        // 4000 B of log + 1500 B of snapshots over 5000: the oldest snapshot goes (start 15,
        // segment 0 deleted), then 3000 + 1000 fits.
        let cfg = MetadataRetentionConfig {
            max_retention_bytes: 5000,
            max_retention_ms: -1,
            ..MetadataRetentionConfig::default()
        };
        let r = metadata_retention(&f, cfg, 0);
        assert_eq!(r.cleaner_log_start, Some(15));
        assert_eq!(
            r.cleaner_deletes
                .iter()
                .map(|s| s.base_offset)
                .collect::<Vec<_>>(),
            [0]
        );
    }

    #[test]
    fn a_snapshot_far_behind_the_log_is_stale() {
        let mut f = facts();
        let cfg = MetadataRetentionConfig {
            snapshot_interval_ms: 100,
            snapshot_bytes: 1000,
            ..MetadataRetentionConfig::default()
        };
        assert_eq!(
            metadata_retention(&f, cfg, 0).stale,
            Some(StaleSnapshot {
                bytes_since: 900,
                ms_since: Some(500),
                by_bytes: false
            })
        );
        f.bytes_after_newest_snapshot = 2001;
        assert!(metadata_retention(&f, cfg, 0).stale.unwrap().by_bytes);
        f.bytes_after_newest_snapshot = 2000;
        f.newest_batch_ms = Some(2_200);
        assert_eq!(metadata_retention(&f, cfg, 0).stale, None);
    }
}
