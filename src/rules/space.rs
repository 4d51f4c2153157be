//! Why a byte is on disk: the reason each file of a log dir is there, from its place and name
//! and, for a segment, the retention verdict the plan already reached (never decided again here).
//!
//! The broker's own rules for the leftovers (spec formats §1.4, cleanup rules §G1–G2,
//! `LogLoader.removeTempFilesAndCollectSwapFiles`, `loadSegmentFiles`, `removeStraySnapshots`):
//! - deleted by the broker itself: `.deleted` files (at the next start, or after
//!   `file.delete.delay.ms`), `-delete` dirs (after `file.delete.delay.ms`), `.cleaned` files and
//!   index files without a `.log` (at the next start), producer snapshots at no segment base
//!   except the largest one above the last base (at the next start);
//! - never deleted: `-stray` dirs, `.tmp` files of an interrupted checkpoint write;
//! - completed at the next start: a `.swap` file becomes a segment;
//! - a `-future` dir is the target of an intra-broker move: kept until the move completes or is
//!   given up.

use std::collections::BTreeSet;

use crate::model::disk_usage::EntryPath;
use crate::model::names::{
    parse_partition_dir_name, LeftoverKind, PartitionDirName, PartitionDirState, SegmentFileKind,
    SegmentFileName,
};
use crate::rules::retention::{RetainReason, Verdict};

/// The dir of the remote index cache under a log dir (`RemoteIndexCache.DIR_NAME`).
pub const REMOTE_INDEX_CACHE_DIR: &str = "remote-log-index-cache";

/// Why some bytes are on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SpaceReason {
    /// A segment (and its indexes) the next retention pass deletes.
    DeletedNextPass,
    /// Kept by retention: not expired, within `retention.bytes`, not below the log start, or no
    /// limit.
    WithinRetention,
    /// Kept although expired: a future timestamp, or an older segment's recent one, stops the
    /// time pass.
    BlockedByTimestamp,
    /// Kept: the segment ends above the high watermark.
    AboveHighWatermark,
    /// Kept: tiered and not uploaded yet.
    WaitingForUpload,
    /// Kept: compacted only, the cleaner has not run over it or cannot (no thread, paused,
    /// uncleanable).
    CompactionPending,
    /// Kept: a compacted log's cleaner is held below it by an open transaction.
    OpenTransaction,
    /// The KRaft metadata log's segments and snapshots (the Raft layer's own retention).
    MetadataLog,
    /// Leftovers the broker deletes itself (`.deleted`, `-delete` dirs, `.cleaned`, orphan
    /// indexes, stray producer snapshots).
    LeftoverBrokerDeletes,
    /// Leftovers the broker never deletes (`-stray` dirs, `.tmp` files).
    LeftoverNeverDeleted,
    /// A `.swap` file the broker completes at its next start.
    SwapCompletedAtStart,
    /// A `-future` dir: an intra-broker move's target.
    FutureReplica,
    /// Index, time-index, txn-index and producer-snapshot files of kept segments.
    IndexOverhead,
    /// Checkpoints, `meta.properties`, `partition.metadata`, the lock and markers.
    Bookkeeping,
    /// The remote index cache (`remote-log-index-cache/`).
    RemoteIndexCache,
    /// The directories' own blocks.
    Directories,
    /// A live partition's `.log` the plan did not cover (not loaded or not planned).
    NotPlanned,
    /// Files the broker does not know.
    Unknown,
}

impl SpaceReason {
    /// Every reason, in report order.
    pub const ALL: [SpaceReason; 18] = [
        SpaceReason::DeletedNextPass,
        SpaceReason::WithinRetention,
        SpaceReason::BlockedByTimestamp,
        SpaceReason::AboveHighWatermark,
        SpaceReason::WaitingForUpload,
        SpaceReason::CompactionPending,
        SpaceReason::OpenTransaction,
        SpaceReason::MetadataLog,
        SpaceReason::LeftoverBrokerDeletes,
        SpaceReason::LeftoverNeverDeleted,
        SpaceReason::SwapCompletedAtStart,
        SpaceReason::FutureReplica,
        SpaceReason::IndexOverhead,
        SpaceReason::Bookkeeping,
        SpaceReason::RemoteIndexCache,
        SpaceReason::Directories,
        SpaceReason::NotPlanned,
        SpaceReason::Unknown,
    ];

    /// The stable name (JSON, metrics label).
    pub fn name(self) -> &'static str {
        match self {
            SpaceReason::DeletedNextPass => "deleted_next_pass",
            SpaceReason::WithinRetention => "within_retention",
            SpaceReason::BlockedByTimestamp => "blocked_by_timestamp",
            SpaceReason::AboveHighWatermark => "above_high_watermark",
            SpaceReason::WaitingForUpload => "waiting_for_upload",
            SpaceReason::CompactionPending => "compaction_pending",
            SpaceReason::OpenTransaction => "open_transaction",
            SpaceReason::MetadataLog => "metadata_log",
            SpaceReason::LeftoverBrokerDeletes => "leftover_broker_deletes",
            SpaceReason::LeftoverNeverDeleted => "leftover_never_deleted",
            SpaceReason::SwapCompletedAtStart => "swap_completed_at_start",
            SpaceReason::FutureReplica => "future_replica",
            SpaceReason::IndexOverhead => "index_overhead",
            SpaceReason::Bookkeeping => "bookkeeping",
            SpaceReason::RemoteIndexCache => "remote_index_cache",
            SpaceReason::Directories => "directories",
            SpaceReason::NotPlanned => "not_planned",
            SpaceReason::Unknown => "unknown",
        }
    }

    /// Whether retention kept these bytes by one of its rules.
    pub fn kept_by_retention(self) -> bool {
        matches!(
            self,
            SpaceReason::WithinRetention
                | SpaceReason::BlockedByTimestamp
                | SpaceReason::AboveHighWatermark
                | SpaceReason::WaitingForUpload
                | SpaceReason::CompactionPending
                | SpaceReason::OpenTransaction
        )
    }
}

/// What a file is, before the plan is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileClass {
    /// The `.log` of the segment with this base in a live partition dir: its reason is its
    /// verdict's ([`verdict_reason`]).
    SegmentLog(i64),
    /// An `.index`/`.timeindex`/`.txnindex` of the live segment with this base: deleted with it,
    /// else index overhead.
    SegmentIndex(i64),
    /// Decided by place and name alone.
    Reason(SpaceReason),
}

/// The facts of one entry below a log dir that decide its class.
#[derive(Debug, Clone, Copy)]
pub struct EntryFacts<'a> {
    /// Where it lies below the log dir.
    pub path: &'a EntryPath,
    /// A directory.
    pub is_dir: bool,
    /// Base offsets of the `.log` files in the entry's partition dir (live ones, no suffix).
    pub log_bases: &'a BTreeSet<i64>,
    /// Offsets of the `.snapshot` files there.
    pub snapshot_offsets: &'a BTreeSet<i64>,
    /// An entry of a partition dir (depth 2): its name as a segment file's
    /// ([`crate::model::names::parse_segment_file_name`]; `None`: not one), parsed once by the caller, who has
    /// parsed it already for `log_bases`.
    pub segment_name: Option<SegmentFileName>,
}

/// Root files the broker writes and reads (KRaft and ZooKeeper modes).
const ROOT_BOOKKEEPING: &[&str] = &[
    "meta.properties",
    "recovery-point-offset-checkpoint",
    "log-start-offset-checkpoint",
    "replication-offset-checkpoint",
    "cleaner-offset-checkpoint",
    "bootstrap.checkpoint",
    ".lock",
    ".kafka_cleanshutdown",
];

/// Partition files the broker writes and reads besides segments.
const PARTITION_BOOKKEEPING: &[&str] = &[
    "leader-epoch-checkpoint",
    "partition.metadata",
    "quorum-state",
];

/// The class of one entry (see the module docs).
pub fn classify(f: &EntryFacts<'_>) -> FileClass {
    let top = f.path.top().map(parse_partition_dir_name);
    classify_in(f, top.as_ref().and_then(Option::as_ref))
}

/// [`classify`], with the entry's top-level name already parsed (`top_dir`: what
/// [`parse_partition_dir_name`] makes of its first component), so that the entries of one
/// partition dir parse its name once, not once each.
pub fn classify_in(f: &EntryFacts<'_>, top_dir: Option<&PartitionDirName>) -> FileClass {
    use FileClass::Reason;
    if f.is_dir {
        return Reason(SpaceReason::Directories);
    }
    let (top, name) = match (f.path.top(), f.path.name()) {
        (Some(t), Some(n)) => (t, n),
        _ => return Reason(SpaceReason::Directories),
    };
    if f.path.depth() == 1 {
        return Reason(if ROOT_BOOKKEEPING.contains(&name) {
            SpaceReason::Bookkeeping
        } else if name.ends_with(".tmp") {
            SpaceReason::LeftoverNeverDeleted
        } else {
            SpaceReason::Unknown
        });
    }
    if top == REMOTE_INDEX_CACHE_DIR {
        return Reason(SpaceReason::RemoteIndexCache);
    }
    let Some(dir) = top_dir else {
        return Reason(SpaceReason::Unknown);
    };
    match dir.state {
        PartitionDirState::Delete(_) => return Reason(SpaceReason::LeftoverBrokerDeletes),
        PartitionDirState::Stray(_) => return Reason(SpaceReason::LeftoverNeverDeleted),
        PartitionDirState::Future(_) => return Reason(SpaceReason::FutureReplica),
        PartitionDirState::Live => {}
    }
    if f.path.depth() > 2 {
        return Reason(SpaceReason::Unknown);
    }
    if PARTITION_BOOKKEEPING.contains(&name) {
        return Reason(SpaceReason::Bookkeeping);
    }
    if dir.is_metadata_log() && is_metadata_log_data(name) {
        return Reason(SpaceReason::MetadataLog);
    }
    live_partition_file(name, f)
}

/// `.log` files and KRaft snapshots (`<offset>-<epoch>.checkpoint`, and their `.deleted` and
/// `.part` forms) of the metadata log.
fn is_metadata_log_data(name: &str) -> bool {
    name.ends_with(".log")
        || name.ends_with(".checkpoint")
        || name.ends_with(".checkpoint.deleted")
        || name.ends_with(".checkpoint.part")
}

fn live_partition_file(name: &str, f: &EntryFacts<'_>) -> FileClass {
    use FileClass::Reason;
    let Some(parsed) = f.segment_name else {
        return Reason(if name.ends_with(".tmp") {
            SpaceReason::LeftoverNeverDeleted
        } else {
            SpaceReason::Unknown
        });
    };
    match parsed.leftover {
        Some(LeftoverKind::Deleted | LeftoverKind::Cleaned) => {
            return Reason(SpaceReason::LeftoverBrokerDeletes)
        }
        Some(LeftoverKind::Swap) => return Reason(SpaceReason::SwapCompletedAtStart),
        None => {}
    }
    match parsed.kind {
        SegmentFileKind::Log => FileClass::SegmentLog(parsed.offset),
        SegmentFileKind::Index | SegmentFileKind::TimeIndex | SegmentFileKind::TxnIndex => {
            if f.log_bases.contains(&parsed.offset) {
                FileClass::SegmentIndex(parsed.offset)
            } else {
                // An orphaned index: the loader deletes it.
                Reason(SpaceReason::LeftoverBrokerDeletes)
            }
        }
        SegmentFileKind::Snapshot => {
            if stray_snapshot(parsed.offset, f.log_bases, f.snapshot_offsets) {
                Reason(SpaceReason::LeftoverBrokerDeletes)
            } else {
                Reason(SpaceReason::IndexOverhead)
            }
        }
    }
}

/// Whether the loader deletes the producer snapshot at `offset` (`removeStraySnapshots`): its
/// offset is no segment base, and it is not the largest snapshot lying above the last base.
pub fn stray_snapshot(offset: i64, log_bases: &BTreeSet<i64>, snapshots: &BTreeSet<i64>) -> bool {
    if log_bases.contains(&offset) {
        return false;
    }
    let last_base = log_bases.last().copied();
    let largest_stray = snapshots
        .iter()
        .rev()
        .find(|o| !log_bases.contains(o))
        .copied();
    let kept = largest_stray == Some(offset) && last_base.is_none_or(|b| offset > b);
    !kept
}

/// The reason of a segment from the plan's verdict on it. `blocker` gives the reason of the
/// segment with a base offset (for a segment the pass stopped behind an older one);
/// `expired` says whether its own timestamp is past time retention (the plan's
/// `retained_expired`); `pinned` whether an open transaction holds the cleaner below it.
pub fn verdict_reason(
    verdict: &Verdict,
    expired: bool,
    pinned: bool,
    blocker: &dyn Fn(i64) -> Option<SpaceReason>,
) -> SpaceReason {
    let reason = match verdict {
        Verdict::Delete { .. } => return SpaceReason::DeletedNextPass,
        Verdict::Retain { reason } => reason,
    };
    match reason {
        RetainReason::FutureTimestamp { .. } => SpaceReason::BlockedByTimestamp,
        RetainReason::BlockedBehind { base_offset } => {
            if expired {
                SpaceReason::BlockedByTimestamp
            } else {
                blocker(base_offset.0).unwrap_or(SpaceReason::WithinRetention)
            }
        }
        RetainReason::NotExpired { .. } if expired => SpaceReason::BlockedByTimestamp,
        RetainReason::NotExpired { .. }
        | RetainReason::EmptyActive
        | RetainReason::NotBelowLogStart { .. }
        | RetainReason::WithinSize { .. }
        | RetainReason::NoLimit { .. }
        | RetainReason::RetentionUnlimited => SpaceReason::WithinRetention,
        RetainReason::HwBelowUpperBound { .. } => SpaceReason::AboveHighWatermark,
        RetainReason::NotUploaded { .. }
        | RetainReason::UploadUnknown { .. }
        | RetainReason::RolledForUpload => SpaceReason::WaitingForUpload,
        RetainReason::PolicyWithoutDelete { .. }
        | RetainReason::NoRetentionThread { .. }
        | RetainReason::Paused
        | RetainReason::Uncleanable => {
            if pinned {
                SpaceReason::OpenTransaction
            } else {
                SpaceReason::CompactionPending
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::names::parse_segment_file_name;
    use crate::model::units::{Offset, TimestampMs};
    use crate::rules::retention::Pass;

    fn class(components: &[&str], bases: &[i64], snaps: &[i64]) -> FileClass {
        let path = crate::model::disk_usage::EntryPath::from_text(&components.join("/"));
        classify(&EntryFacts {
            path: &path,
            is_dir: false,
            log_bases: &bases.iter().copied().collect(),
            snapshot_offsets: &snaps.iter().copied().collect(),
            segment_name: (path.depth() == 2)
                .then(|| path.name().and_then(parse_segment_file_name))
                .flatten(),
        })
    }

    const SEG: &str = "00000000000000000100";

    #[test]
    fn places_and_names() {
        use SpaceReason::*;
        let r = |c: &[&str]| class(c, &[100], &[]);
        assert_eq!(r(&["meta.properties"]), FileClass::Reason(Bookkeeping));
        assert_eq!(r(&["core.1234"]), FileClass::Reason(Unknown));
        assert_eq!(
            r(&["t-0", &format!("{SEG}.log")]),
            FileClass::SegmentLog(100)
        );
        assert_eq!(
            r(&["t-0", &format!("{SEG}.index")]),
            FileClass::SegmentIndex(100)
        );
        assert_eq!(
            r(&["t-0", "00000000000000000007.timeindex"]),
            FileClass::Reason(LeftoverBrokerDeletes),
            "orphan index"
        );
        assert_eq!(
            r(&["t-0", &format!("{SEG}.log.deleted")]),
            FileClass::Reason(LeftoverBrokerDeletes)
        );
        assert_eq!(
            r(&["t-0", &format!("{SEG}.log.cleaned")]),
            FileClass::Reason(LeftoverBrokerDeletes)
        );
        assert_eq!(
            r(&["t-0", &format!("{SEG}.log.swap")]),
            FileClass::Reason(SwapCompletedAtStart)
        );
        let uid = "0123456789abcdef0123456789abcdef";
        assert_eq!(
            r(&[&format!("t-0.{uid}-delete"), &format!("{SEG}.log")]),
            FileClass::Reason(LeftoverBrokerDeletes)
        );
        assert_eq!(
            r(&[&format!("t-0.{uid}-stray"), &format!("{SEG}.log")]),
            FileClass::Reason(LeftoverNeverDeleted)
        );
        assert_eq!(
            r(&[&format!("t-0.{uid}-future"), &format!("{SEG}.log")]),
            FileClass::Reason(FutureReplica)
        );
        assert_eq!(
            r(&["__cluster_metadata-0", &format!("{SEG}.log")]),
            FileClass::Reason(MetadataLog)
        );
        assert_eq!(
            r(&["__cluster_metadata-0", "quorum-state"]),
            FileClass::Reason(Bookkeeping)
        );
        assert_eq!(
            r(&[REMOTE_INDEX_CACHE_DIR, "x.index"]),
            FileClass::Reason(RemoteIndexCache)
        );
        assert_eq!(r(&["t-0", "notes.txt"]), FileClass::Reason(Unknown));
        assert_eq!(r(&["t-0", "x", "y"]), FileClass::Reason(Unknown));
    }

    #[test]
    fn stray_snapshots_follow_the_loader() {
        let bases: BTreeSet<i64> = [0, 100].into_iter().collect();
        let snaps: BTreeSet<i64> = [50, 100, 150, 180].into_iter().collect();
        assert!(!stray_snapshot(100, &bases, &snaps), "at a base");
        assert!(
            !stray_snapshot(180, &bases, &snaps),
            "largest above the last base"
        );
        assert!(stray_snapshot(150, &bases, &snaps));
        assert!(stray_snapshot(50, &bases, &snaps));
        let below: BTreeSet<i64> = [50].into_iter().collect();
        assert!(stray_snapshot(50, &bases, &below), "below the last base");
    }

    #[test]
    fn verdicts_map_to_reasons() {
        let none = |_: i64| None;
        let del = Verdict::Delete {
            pass: Pass::Time,
            eligible_at: TimestampMs(0),
        };
        assert_eq!(
            verdict_reason(&del, true, false, &none),
            SpaceReason::DeletedNextPass
        );
        let keep = |reason| Verdict::Retain { reason };
        let future = keep(RetainReason::FutureTimestamp {
            ts: TimestampMs(9),
            expires_at: TimestampMs(10),
        });
        assert_eq!(
            verdict_reason(&future, false, false, &none),
            SpaceReason::BlockedByTimestamp
        );
        let behind = keep(RetainReason::BlockedBehind {
            base_offset: Offset(0),
        });
        assert_eq!(
            verdict_reason(&behind, true, false, &none),
            SpaceReason::BlockedByTimestamp,
            "expired itself, held by an older recent one"
        );
        let hw = |_: i64| Some(SpaceReason::AboveHighWatermark);
        assert_eq!(
            verdict_reason(&behind, false, false, &hw),
            SpaceReason::AboveHighWatermark
        );
        assert_eq!(
            verdict_reason(&keep(RetainReason::Paused), false, true, &none),
            SpaceReason::OpenTransaction
        );
        assert_eq!(
            verdict_reason(&keep(RetainReason::RolledForUpload), false, false, &none),
            SpaceReason::WaitingForUpload
        );
    }

    #[test]
    fn names_are_distinct() {
        let names: BTreeSet<&str> = SpaceReason::ALL.iter().map(|r| r.name()).collect();
        assert_eq!(names.len(), SpaceReason::ALL.len());
    }
}
