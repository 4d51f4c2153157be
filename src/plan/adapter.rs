//! The one place where the model (log dirs, partitions, segments, the cluster view) becomes
//! the plain facts the rules read ([`crate::rules`]). Everything that knows both the model's
//! field types and the rules' inputs lives here, so a change of either touches this file only.
//!
//! What the broker does on its next start is folded in: a segment it recovers
//! ([`partition_recovery`]) carries its post-recovery largest timestamp
//! ([`PartitionRecovery::largest_timestamp`]); leftovers of unfinished operations are listed
//! with what loading does with them (spec §G2).

use std::collections::BTreeSet;
use std::path::Path;

use crate::config::LogConfig;
use crate::formats::partition_metadata::Uuid;
use crate::formats::remote_log_metadata::SegmentState;
use crate::model::cluster::ClusterView;
use crate::model::log_dir::LogDir;
use crate::model::metadata_log::PartitionImage;
use crate::model::mode::LogDirMode;
use crate::model::names::{LeftoverKind, PartitionDirState};
use crate::model::partition::Partition;
use crate::model::remote_tier::{Holding, RemoteTierView};
use crate::model::replica_join::{JoinedReplica, ReplicaJoin};
use crate::model::segment::Segment;
use crate::model::units::{Bytes, Offset, TimestampMs};
use crate::rules::compaction::CleanerSegmentFacts;
use crate::rules::facts::{MaxTimestampSource, SegmentFacts, TimestampSource};
use crate::rules::high_watermark::{assumed_high_watermark, HighWatermark, HwFacts, ReplicaRole};
use crate::rules::recovery::{partition_recovery, PartitionRecovery};
use crate::rules::retention::{
    local_size_limit, local_time_limit, remote_log_enabled, LogState, TieredFacts, UploadKnowledge,
};
use crate::rules::tiered::{effective_copy_lag, RemoteSegmentFacts};

/// What the next broker start does with a leftover file before retention runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartupAction {
    /// The file name.
    pub file: String,
    /// `.deleted`, `.cleaned`, `.swap` or `.tmp`.
    pub suffix: &'static str,
    /// What loading does with it.
    pub action: &'static str,
}

/// One live partition replica as the rules see it.
#[derive(Debug, Clone)]
pub struct ReplicaFacts {
    /// The topic (by topic id when the metadata image knows it, else the dir name).
    pub topic: String,
    /// The partition number.
    pub partition: i32,
    /// Segments with a `.log`, oldest first.
    pub segments: Vec<SegmentFacts>,
    /// What the cleaner's grouping reads of each segment (index sizes, last batch).
    pub cleaner_segments: Vec<CleanerSegmentFacts>,
    /// The oldest record time of each segment (first batch), for the timeline.
    pub first_timestamps: Vec<TimestampMs>,
    /// Whether the next start recovers each segment (its largest timestamp is then rebuilt).
    pub recovered: Vec<bool>,
    /// The log start offset after load.
    pub log_start_offset: Offset,
    /// The log end offset.
    pub log_end_offset: Offset,
    /// What decides the HW.
    pub hw: HwFacts,
    /// Whether the role came from the metadata image (`false`: ZooKeeper mode or not known).
    pub role_source: &'static str,
    /// The `cleaner-offset-checkpoint` entry.
    pub cleaner_checkpoint: Option<Offset>,
    /// The first offset of the oldest open transaction (latest producer snapshot), if any.
    pub first_unstable_offset: Option<Offset>,
    /// Tiered-storage context.
    pub tiered: TieredFacts,
    /// What the remote tier holds of this partition (remote-enabled topics only).
    pub remote: Option<ReplicaTier>,
    /// Paused (a `-future` dir of the same partition exists: an intra-broker move).
    pub state: LogState,
    /// Leftovers the next start handles first.
    pub startup: Vec<StartupAction>,
}

/// What the remote tier (`__remote_log_metadata`) holds of one remote-enabled partition.
#[derive(Debug, Clone)]
pub struct ReplicaTier {
    /// Its topic id (`partition.metadata`, else the metadata image).
    pub topic_id: Option<Uuid>,
    /// Whether its metadata partition was replayed (`None`: no topic id).
    pub holding: Option<Holding>,
    /// Whether the metadata partition count is an assumption (not in the metadata image).
    pub count_assumed: bool,
    /// Copies started and never finished: (start offset, started at).
    pub unfinished_copies: Vec<(Offset, TimestampMs)>,
    /// Copies that failed and were cleaned up: (start offset, attempts, latest at).
    pub failed_copies: Vec<(Offset, u32, TimestampMs)>,
    /// COPY_SEGMENT_FINISHED segments, ascending.
    pub remote_segments: Vec<RemoteSegmentFacts>,
    /// Bytes in remote storage (COPY_SEGMENT_FINISHED and DELETE_SEGMENT_STARTED).
    pub remote_bytes: Bytes,
    /// Effective `remote.copy.lag.ms` / `.bytes` (−1 → the effective local retention).
    pub copy_lag: (i64, i64),
    /// The highest offset in remote storage on the partition's lineage (`None`: nothing).
    pub highest: Option<i64>,
}

/// The facts of `s`, with the largest timestamp it has after the next start (`recovery` says
/// whether that start recovers it).
fn segment_facts(s: &Segment, recovery: &PartitionRecovery) -> SegmentFacts {
    let log = s.log_summary();
    let next = log.map_or(s.base_offset, |l| l.next_offset);
    let (max_timestamp, source) = match recovery.largest_timestamp(s) {
        Ok((ts, TimestampSource::TimeIndex)) => (ts, MaxTimestampSource::TimeIndex),
        Ok((ts, TimestampSource::Recovered)) => (ts, MaxTimestampSource::Recovered),
        // No record timestamp: the rules fall back to the `.log` mtime themselves.
        Ok((_, TimestampSource::LogMtime)) | Err(_) => {
            (TimestampMs::NONE, MaxTimestampSource::TimeIndex)
        }
    };
    SegmentFacts {
        base_offset: s.base_offset,
        next_offset: next,
        size: s.size(),
        max_timestamp,
        max_timestamp_source: source,
        log_mtime: s.log_mtime().unwrap_or(TimestampMs::NONE),
        first_batch_max_timestamp: log
            .and_then(|l| l.first_batch.as_ref())
            .map_or(TimestampMs::NONE, |b| b.max_timestamp),
    }
}

fn cleaner_segment_facts(s: &Segment) -> CleanerSegmentFacts {
    let len = |f: &Option<crate::model::segment::SegmentFile>, entry: u64| {
        Bytes(f.as_ref().map_or(0, |f| f.size.get() / entry * entry))
    };
    CleanerSegmentFacts {
        base_offset: s.base_offset,
        size: s.size(),
        offset_index_bytes: len(&s.files.index, 8),
        time_index_bytes: len(&s.files.time_index, 12),
        last_batch_max_timestamp: s
            .log_summary()
            .and_then(|l| l.last_batch.as_ref())
            .map_or(TimestampMs::NONE, |b| b.max_timestamp),
    }
}

/// The replica's role from the metadata image, for `node` (the replica's own node: with
/// several brokers' dirs, each dir's meta.properties says whose it is). A follower's leader HW
/// is the leader's own, from the leader's files in `join` when they were read.
fn role(
    view: &ClusterView,
    join: &ReplicaJoin,
    node: Option<i32>,
    topic: &str,
    partition: i32,
    min_isr: u32,
) -> (ReplicaRole, &'static str) {
    if view.mode == LogDirMode::ZooKeeper {
        return (ReplicaRole::Unknown, "zookeeper_mode");
    }
    let image = (view.image.topics.get(topic)).and_then(|t| t.partitions.get(&partition));
    role_in_image(image, node, min_isr, join.replicas(topic, partition))
}

/// The role of `node`'s replica of a partition whose image is `image` (`None`: not in the
/// metadata), `min_isr` its topic's `min.insync.replicas`, `replicas` its replicas whose files
/// were read (a follower's leader HW comes from the leader's among them). The one rule both a
/// plan and `logclean join` (several brokers' reports) follow.
pub fn role_in_image(
    image: Option<&PartitionImage>,
    node: Option<i32>,
    min_isr: u32,
    replicas: &[JoinedReplica],
) -> (ReplicaRole, &'static str) {
    let (Some(node), Some(image)) = (node, image) else {
        return (ReplicaRole::Unknown, "not_in_metadata");
    };
    let rf = u32::try_from(image.replicas.len()).unwrap_or(u32::MAX);
    // No leader (-1, as the shutdown of the last live replica leaves it; the ISR may be
    // empty then, its member kept as eligible leader): on restart the controller elects the
    // sole ISR member, or the only replica of a replication-factor-1 partition, with ISR = {it}.
    let sole = image.isr == [node] || (image.isr.is_empty() && image.replicas == [node]);
    let leads_alone = sole && (image.leader == node || image.leader < 0);
    // Several candidates and no leader: the controller elects the first that registers again
    // (`PartitionChangeBuilder.electLeader`: the first of the assignment in the ISR, else in
    // the ELR, that is unfenced), so which one is not in the files: assumed the first of them
    // in assignment order (the one a full restart in broker order brings back first).
    let elected = restart_leader(image);
    let leader = if image.leader >= 0 {
        image.leader
    } else {
        elected.unwrap_or(-1)
    };
    let assumed = image.leader < 0 && !leads_alone;
    let role = if !image.replicas.contains(&node) {
        ReplicaRole::NotCreated
    } else if leads_alone || (assumed && leader == node) {
        ReplicaRole::LeaderAlone {
            min_insync_replicas: min_isr,
            replication_factor: rf,
        }
    } else if image.leader == node {
        ReplicaRole::LeaderWithFollowers
    } else if leader < 0 {
        return (ReplicaRole::Unknown, "no_leader_in_metadata");
    } else {
        let leader_hw = (replicas.iter())
            .find(|r| r.node_id == Some(leader))
            .and_then(|l| leader_high_watermark(image, l, min_isr, replicas));
        let given = replicas.iter().any(|r| r.node_id == Some(leader));
        let source = match (assumed, leader_hw, given) {
            (true, Some(_), _) => "restart_election_assumed",
            (false, Some(_), _) => "metadata_image_and_leader_dirs",
            // The leader's dirs were not among those read (one broker's dirs alone, or
            // several brokers' without the leader's).
            (_, None, false) => "leader_dirs_not_given",
            (_, None, true) => "metadata_image",
        };
        return (
            ReplicaRole::Follower {
                leader_high_watermark: leader_hw,
            },
            source,
        );
    };
    if assumed {
        return (role, "restart_election_assumed");
    }
    (role, "metadata_image")
}

/// The replica a partition with no leader gets on restart, assumed: the first of its
/// assignment in the ISR, else in the ELR (`None`: neither has a member).
pub fn restart_leader(image: &PartitionImage) -> Option<i32> {
    (image.replicas.iter().find(|r| image.isr.contains(r)))
        .or_else(|| image.replicas.iter().find(|r| image.elr.contains(r)))
        .copied()
}

/// The HW the leader replica `leader` holds when retention first runs, from its own files
/// (its role is a leader's, so this does not recurse further).
fn leader_high_watermark(
    image: &PartitionImage,
    leader: &JoinedReplica,
    min_isr: u32,
    replicas: &[JoinedReplica],
) -> Option<Offset> {
    let (role, _) = role_in_image(Some(image), leader.node_id, min_isr, replicas);
    if matches!(role, ReplicaRole::Follower { .. } | ReplicaRole::Unknown) {
        return None;
    }
    let facts = HwFacts {
        checkpoint: leader.checkpointed_high_watermark,
        log_start_offset: leader.log_start_offset?,
        log_end_offset: leader.log_end_offset?,
        role,
    };
    Some(assumed_high_watermark(&facts).value)
}

/// `min.insync.replicas` of `topic` (1 when unknown).
pub fn min_isr_of(view: &ClusterView, topic: &str) -> u32 {
    view.topics
        .get(topic)
        .and_then(|t| t.resolved.get_i64("min.insync.replicas"))
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(1)
}

fn startup_actions(p: &Partition) -> Vec<StartupAction> {
    p.listing
        .leftovers
        .iter()
        .map(|l| {
            let (suffix, action) = match l.kind {
                Some(LeftoverKind::Deleted) => (".deleted", "removed at load"),
                Some(LeftoverKind::Cleaned) => (".cleaned", "removed at load (cleaning redone)"),
                Some(LeftoverKind::Swap) => (".swap", "renamed back in (the swap completes)"),
                None => (".tmp", "removed at load"),
            };
            let file = l
                .file
                .path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            StartupAction {
                file,
                suffix,
                action,
            }
        })
        .collect()
}

/// The first offset of the oldest open transaction in the latest producer snapshot.
fn first_unstable(p: &Partition) -> Option<Offset> {
    let snap = p.snapshots.iter().max_by_key(|s| s.offset)?;
    let parsed = snap.parsed.as_ref().ok()?;
    parsed
        .entries
        .iter()
        .map(|e| e.current_txn_first_offset)
        .filter(|o| *o >= 0)
        .min()
        .map(Offset)
}

/// Whether another log dir holds a `-future` dir of this partition (a move pauses cleanup).
/// The `-future` dirs of every log dir, by (topic, partition): collected once per plan, so that
/// each replica's "paused" lookup is not a scan of every partition (quadratic in partitions).
#[derive(Debug, Default)]
pub struct FutureDirs(BTreeSet<(Option<i32>, String, i32)>);

impl FutureDirs {
    /// The `-future` dirs of `dirs`, by the node whose dir holds each (`view`): a move is
    /// within one broker, so it pauses that broker's replica only (with several brokers'
    /// dirs, the other nodes' replicas of the partition run retention; rf3-jbod's replay).
    pub fn of(view: &ClusterView, dirs: &[LogDir]) -> Self {
        FutureDirs(
            (dirs.iter())
                .flat_map(|d| {
                    let node = view.node_of(d);
                    (d.partitions.iter()).map(move |p| (node, p))
                })
                .filter_map(|(node, p)| Some((node, p.name.as_ref()?)))
                .filter(|(_, n)| matches!(n.state, PartitionDirState::Future(_)))
                .map(|(node, n)| (node, n.topic.clone(), n.partition))
                .collect(),
        )
    }

    fn contains(&self, node: Option<i32>, topic: &str, partition: i32) -> bool {
        self.0.contains(&(node, topic.to_string(), partition))
    }
}

/// The topic a partition dir belongs to: by topic id when the image knows it.
pub fn topic_of(view: &ClusterView, log_dir: &Path, p: &Partition) -> Option<String> {
    let name = p.name.as_ref()?;
    Some(view.topic_of_dir(log_dir, &p.dir_name, &name.topic))
}

/// The HW facts of replica `p` of `topic`'s `partition` in `dir` (its role from the
/// metadata image, a follower's leader HW from `join`), and where the role came from.
#[allow(clippy::too_many_arguments)]
fn hw_facts(
    view: &ClusterView,
    join: &ReplicaJoin,
    dir: &LogDir,
    topic: &str,
    partition: i32,
    p: &Partition,
    log_start: Offset,
    log_end: Offset,
) -> (HwFacts, &'static str) {
    let node = view.node_of(dir);
    let (role, role_source) = role(view, join, node, topic, partition, min_isr_of(view, topic));
    let facts = HwFacts {
        checkpoint: p.checkpoints.high_watermark,
        log_start_offset: log_start,
        log_end_offset: log_end,
        role,
    };
    (facts, role_source)
}

/// The HW the plan assumes for live replica `p` of `dir` (the same rule for every reader of
/// it), and where its role came from; `None` where [`replica_facts`] has none.
pub fn replica_high_watermark(
    view: &ClusterView,
    join: &ReplicaJoin,
    dir: &LogDir,
    p: &Partition,
) -> Option<(HighWatermark, &'static str)> {
    let name = p.name.as_ref()?;
    if name.state != PartitionDirState::Live || name.is_metadata_log() {
        return None;
    }
    let topic = topic_of(view, &dir.path, p)?;
    let (facts, role_source) = hw_facts(
        view,
        join,
        dir,
        &topic,
        name.partition,
        p,
        p.log_start_offset()?,
        p.log_end_offset()?,
    );
    Some((assumed_high_watermark(&facts), role_source))
}

/// The partition's leader-epoch lineage (`leader-epoch-checkpoint` entries), if readable.
fn lineage(p: &Partition) -> Option<Vec<(i32, i64)>> {
    let f = p.leader_epochs.as_ref()?.as_ref().ok()?;
    Some(f.values().map(|e| (e.epoch, e.start_offset)).collect())
}

/// What is known of a remote-enabled partition's uploads: the highest offset in remote storage
/// on its lineage (`RemoteLogManager.findHighestRemoteOffset`) when its metadata partition was
/// replayed.
fn upload_knowledge(r: &ReplicaTier) -> UploadKnowledge {
    match r.holding {
        Some(Holding::Replayed(_)) => UploadKnowledge::Known {
            highest_offset: r.highest.map(Offset),
        },
        Some(Holding::NotGiven(n)) => UploadKnowledge::NotGiven {
            metadata_partition: n,
        },
        None => UploadKnowledge::Unknown,
    }
}

/// The remote tier's facts of remote-enabled replica `p` of `topic`.
fn replica_tier(
    view: &ClusterView,
    remote: &RemoteTierView,
    p: &Partition,
    topic: &str,
    config: &LogConfig,
    log_end: Offset,
) -> ReplicaTier {
    let topic_id = (p.metadata.as_ref())
        .and_then(|m| m.as_ref().ok())
        .map(|m| m.topic_id)
        .or_else(|| view.topics.get(topic).and_then(|t| t.topic_id));
    let partition = p.name.as_ref().map_or(-1, |n| n.partition);
    let holding = topic_id.and_then(|id| remote.holding(id, partition));
    let tier = topic_id.and_then(|id| remote.tier.partition(id, partition));
    let epochs = lineage(p);
    let highest = tier.and_then(|t| {
        t.highest_offset_in_remote_storage(epochs.as_deref().map(|e| (e, log_end.get())))
    });
    let resolved = view.topics.get(topic).map(|t| &t.resolved);
    let raw = |key: &str, default: i64| resolved.and_then(|r| r.get_i64(key)).unwrap_or(default);
    let local_ms = local_time_limit(config);
    let local_bytes = local_size_limit(config);
    ReplicaTier {
        topic_id,
        holding,
        count_assumed: remote.count.assumed(),
        unfinished_copies: tier.map_or_else(Vec::new, |t| {
            (t.unfinished_copies().iter())
                .map(|s| (Offset(s.start_offset), TimestampMs(s.copy_started_ms)))
                .collect()
        }),
        failed_copies: tier.map_or_else(Vec::new, |t| {
            (t.failed_copies().into_iter())
                .map(|(o, n, at)| (Offset(o), n, TimestampMs(at)))
                .collect()
        }),
        remote_segments: tier.map_or_else(Vec::new, |t| {
            (t.in_state(SegmentState::CopyFinished).iter())
                .map(|s| RemoteSegmentFacts {
                    start_offset: Offset(s.start_offset),
                    end_offset: Offset(s.end_offset),
                    size: Bytes(u64::try_from(s.size_bytes).unwrap_or(0)),
                    max_timestamp: TimestampMs(s.max_timestamp_ms),
                })
                .collect()
        }),
        remote_bytes: Bytes(tier.map_or(0, |t| u64::try_from(t.remote_size()).unwrap_or(0))),
        copy_lag: (
            effective_copy_lag(raw("remote.copy.lag.ms", 0), local_ms),
            effective_copy_lag(raw("remote.copy.lag.bytes", -1), local_bytes),
        ),
        highest,
    }
}

/// The facts of a live partition replica; `None` for the metadata log, set-aside dirs
/// (`-delete`, `-future`, `-stray`) and partitions not loaded whole.
pub fn replica_facts(
    view: &ClusterView,
    join: &ReplicaJoin,
    remote: &RemoteTierView,
    futures: &FutureDirs,
    dir: &LogDir,
    p: &Partition,
) -> Option<ReplicaFacts> {
    let name = p.name.as_ref()?;
    if name.state != PartitionDirState::Live || name.is_metadata_log() {
        return None;
    }
    let topic = topic_of(view, &dir.path, p)?;
    let mut tiered = TieredFacts {
        system_enabled: remote.system.enabled(),
        internal_topic: topic.starts_with("__"),
        ..TieredFacts::default()
    };
    let config = view.partition_log_config(&dir.path, &p.dir_name);
    let remote_enabled = config
        .as_ref()
        .is_some_and(|c| remote_log_enabled(c, &tiered));
    // A tiered log's checkpointed log start is the total one, below the first local segment.
    let log_start = p.total_log_start_offset(remote_enabled)?;
    let log_end = p.log_end_offset()?;
    let segs: Vec<&Segment> = p.log_segments().collect();
    let recovery = partition_recovery(dir.clean_shutdown.is_some(), p);
    let (hw, role_source) = hw_facts(
        view,
        join,
        dir,
        &topic,
        name.partition,
        p,
        log_start,
        log_end,
    );
    let remote_facts = match (&config, remote_enabled) {
        (Some(c), true) => Some(replica_tier(view, remote, p, &topic, c, log_end)),
        _ => None,
    };
    if let Some(r) = &remote_facts {
        tiered.upload = upload_knowledge(r);
    }
    Some(ReplicaFacts {
        partition: name.partition,
        segments: segs.iter().map(|s| segment_facts(s, &recovery)).collect(),
        cleaner_segments: segs.iter().map(|s| cleaner_segment_facts(s)).collect(),
        first_timestamps: segs
            .iter()
            .map(|s| {
                s.log_summary()
                    .and_then(|l| l.first_batch.as_ref())
                    .map_or(TimestampMs::NONE, |b| b.first_timestamp)
            })
            .collect(),
        recovered: segs.iter().map(|s| recovery.recovers(s)).collect(),
        log_start_offset: log_start,
        log_end_offset: log_end,
        hw,
        role_source,
        cleaner_checkpoint: p.checkpoints.cleaner_offset,
        first_unstable_offset: first_unstable(p),
        tiered,
        remote: remote_facts,
        state: LogState {
            paused: futures.contains(view.node_of(dir), &topic, name.partition),
            uncleanable: false,
        },
        startup: startup_actions(p),
        topic,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::model::segment::ScanDepth;
    use crate::model::test_support::Scratch;

    /// Segment 4 of `orders-0` without its `.index` and `.timeindex`, in a dir that shut down
    /// cleanly: the next start recovers it all the same (`loadSegmentFiles`), so the rules see
    /// the largest batch timestamp, not the `.log` mtime the files alone would give.
    #[test]
    fn a_segment_without_index_after_a_clean_shutdown_carries_its_recovered_timestamp() {
        let s = Scratch::new();
        std::fs::remove_file(s.path("orders-0/00000000000000000004.index")).unwrap();
        std::fs::remove_file(s.path("orders-0/00000000000000000004.timeindex")).unwrap();
        let d = s.load(ScanDepth::Headers);
        assert!(d.clean_shutdown.is_some());
        let p = d
            .partitions
            .iter()
            .find(|p| p.dir_name == "orders-0")
            .unwrap();
        let recovery = partition_recovery(true, p);
        let seg = |base: i64| p.segments.iter().find(|s| s.base_offset == Offset(base));
        let four = seg(4).unwrap();
        assert!(recovery.recovers(four));
        let f = segment_facts(four, &recovery);
        assert_eq!(f.max_timestamp_source, MaxTimestampSource::Recovered);
        assert_eq!(Some(f.max_timestamp), four.max_batch_timestamp_seen());
        assert!(f.max_timestamp.is_set());
        assert_eq!(f.largest_timestamp().1, TimestampSource::Recovered);

        // Its neighbour keeps its index and is not recovered: the value on disk.
        let eight = seg(8).unwrap();
        assert!(!recovery.recovers(eight));
        let f = segment_facts(eight, &recovery);
        assert_eq!(f.max_timestamp_source, MaxTimestampSource::TimeIndex);
        assert_eq!(
            Some(f.max_timestamp),
            eight.largest_timestamp_on_disk().known()
        );
    }
}
