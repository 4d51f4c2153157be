//! The cluster view of replicated partitions (issue 21) as plain facts: per partition its
//! metadata image (replicas, leader, ISR, ELR), `min.insync.replicas`, and each replica whose
//! files were read (offsets, checkpointed HW, the [`HwStep`]s of its plan).
//!
//! Built from one run's dirs ([`ReplicationFacts::of`]) and written in `diagnose --format
//! json` as `replication`; read back from several brokers' reports and joined
//! ([`ReplicationFacts::join`]), they resolve ([`ReplicationFacts::resolve`]) with the same
//! rules as the facts of all those dirs read in one run: each replica's role from the image
//! ([`role_in_image`]), a follower's HW from its leader's files ([`assumed_high_watermark`]),
//! what its next retention run frees under that HW ([`freed_under_hw`]). So a fleet of brokers
//! is one local `diagnose` per host plus one small `logclean join`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::cluster::ClusterView;
use crate::model::metadata_log::PartitionImage;
use crate::model::mode::LogDirMode;
use crate::model::replica_join::{JoinedReplica, ReplicaJoin};
use crate::model::units::Offset;
use crate::rules::high_watermark::{assumed_high_watermark, HighWatermark, HwFacts};
use crate::rules::retention::{freed_under_hw, HwStep};

use super::adapter::{min_isr_of, role_in_image};
use super::Plan;

/// The replicated partitions of the dirs read, as facts another run can join.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReplicationFacts {
    /// The nodes whose dirs were read (their `meta.properties`), ascending.
    pub nodes: Vec<i32>,
    /// Every partition with a live replica in the dirs, by topic then partition.
    pub partitions: Vec<PartitionReplicas>,
}

/// One partition: what the metadata says of it, and its replicas read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartitionReplicas {
    /// The topic (by topic id when the image knows it).
    pub topic: String,
    /// The partition.
    pub partition: i32,
    /// Its image in the metadata log used (`None`: not there, or no metadata log).
    pub image: Option<PartitionImage>,
    /// How far that metadata log was applied (`MetadataImage::complete_up_to`): of several
    /// reports, the partition's image comes from the most advanced, as of several dirs.
    pub metadata_complete_up_to: Option<i64>,
    /// ZooKeeper mode: the dirs hold no roles.
    pub zookeeper: bool,
    /// The topic's `min.insync.replicas` (1 when unknown).
    pub min_insync_replicas: u32,
    /// The replicas read, in the order their dirs were given.
    pub replicas: Vec<ReplicaReport>,
}

/// One replica read: its files' facts and what its next retention run frees as the HW rises.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplicaReport {
    /// Node, log dir, offsets, checkpointed HW, size.
    #[serde(flatten)]
    pub replica: JoinedReplica,
    /// The plan's [`HwStep`]s (empty: nothing deletable, or not planned).
    pub hw_steps: Vec<HwStep>,
}

/// One replica with its HW resolved across every replica read.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedReplica<'a> {
    /// The replica.
    pub replica: &'a JoinedReplica,
    /// The HW its next retention run has, and why (`None`: its log was not loaded whole).
    pub high_watermark: Option<HighWatermark>,
    /// Where its role came from (`metadata_image_and_leader_dirs`, `leader_dirs_not_given`…).
    pub role_source: &'static str,
    /// (segments, bytes) its next retention run frees under that HW.
    pub freed: (u64, u64),
    /// (segments, bytes) retention would free but for the HW: held until it rises.
    pub held_by_hw: (u64, u64),
}

/// One partition resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedPartition<'a> {
    /// The facts it was resolved from.
    pub facts: &'a PartitionReplicas,
    /// Each replica, in the facts' order.
    pub replicas: Vec<ResolvedReplica<'a>>,
}

impl ReplicationFacts {
    /// The facts of the dirs `join` was built from, under `view`, with `plan`'s steps.
    pub fn of(view: &ClusterView, join: &ReplicaJoin, plan: &Plan) -> Self {
        let steps: BTreeMap<(&std::path::Path, &str), &Vec<HwStep>> = (plan.partitions.iter())
            .map(|p| ((p.log_dir.as_path(), p.dir_name.as_str()), &p.hw_steps))
            .collect();
        let zookeeper = view.mode == LogDirMode::ZooKeeper;
        let partitions = (join.iter())
            .map(|((topic, partition), replicas)| PartitionReplicas {
                topic: topic.clone(),
                partition: *partition,
                image: (view.image.topics.get(topic))
                    .and_then(|t| t.partitions.get(partition))
                    .cloned(),
                metadata_complete_up_to: view.image.complete_up_to,
                zookeeper,
                min_insync_replicas: min_isr_of(view, topic),
                replicas: (replicas.iter())
                    .map(|r| ReplicaReport {
                        replica: r.clone(),
                        hw_steps: (steps.get(&(r.log_dir.as_path(), r.dir_name.as_str())))
                            .map_or_else(Vec::new, |s| (*s).clone()),
                    })
                    .collect(),
            })
            .collect();
        ReplicationFacts {
            nodes: view.node_ids().into_iter().collect(),
            partitions,
        }
    }

    /// Several reports' facts as one: every replica of a partition together (a replica
    /// reported twice, same node and dir, once), its image from the most advanced metadata
    /// log (the first on a tie), as [`crate::model::cluster::DirFacts::join`] picks.
    pub fn join(parts: impl IntoIterator<Item = ReplicationFacts>) -> Self {
        let mut nodes: Vec<i32> = Vec::new();
        let mut by: BTreeMap<(String, i32), PartitionReplicas> = BTreeMap::new();
        for part in parts {
            nodes.extend(part.nodes);
            for p in part.partitions {
                let key = (p.topic.clone(), p.partition);
                let Some(have) = by.get_mut(&key) else {
                    by.insert(key, p);
                    continue;
                };
                let newer = match (have.image.is_some(), p.image.is_some()) {
                    (false, true) => true,
                    (true, true) => p.metadata_complete_up_to > have.metadata_complete_up_to,
                    _ => false,
                };
                if newer {
                    have.image = p.image;
                    have.metadata_complete_up_to = p.metadata_complete_up_to;
                    have.min_insync_replicas = p.min_insync_replicas;
                    have.zookeeper = p.zookeeper;
                }
                for r in p.replicas {
                    let known = (have.replicas.iter()).any(|h| {
                        h.replica.node_id == r.replica.node_id
                            && h.replica.log_dir == r.replica.log_dir
                            && h.replica.dir_name == r.replica.dir_name
                    });
                    if !known {
                        have.replicas.push(r);
                    }
                }
            }
        }
        nodes.sort_unstable();
        nodes.dedup();
        ReplicationFacts {
            nodes,
            partitions: by.into_values().collect(),
        }
    }

    /// Every partition with each replica's HW, what its next run frees, and what the HW holds.
    pub fn resolve(&self) -> Vec<ResolvedPartition<'_>> {
        self.partitions.iter().map(resolve_partition).collect()
    }
}

fn resolve_partition(p: &PartitionReplicas) -> ResolvedPartition<'_> {
    let joined: Vec<JoinedReplica> = p.replicas.iter().map(|r| r.replica.clone()).collect();
    let replicas = (p.replicas.iter())
        .map(|r| {
            let (role, role_source) = if p.zookeeper {
                (
                    crate::rules::high_watermark::ReplicaRole::Unknown,
                    "zookeeper_mode",
                )
            } else {
                role_in_image(
                    p.image.as_ref(),
                    r.replica.node_id,
                    p.min_insync_replicas,
                    &joined,
                )
            };
            let hw = match (r.replica.log_start_offset, r.replica.log_end_offset) {
                (Some(start), Some(end)) => Some(assumed_high_watermark(&HwFacts {
                    checkpoint: r.replica.checkpointed_high_watermark,
                    log_start_offset: start,
                    log_end_offset: end,
                    role,
                })),
                _ => None,
            };
            let all = r.hw_steps.last().map_or((0, 0), |s| (s.segments, s.bytes));
            let freed = hw.map_or((0, 0), |h| freed_under_hw(&r.hw_steps, h.value));
            ResolvedReplica {
                replica: &r.replica,
                high_watermark: hw,
                role_source,
                freed,
                held_by_hw: (all.0.saturating_sub(freed.0), all.1.saturating_sub(freed.1)),
            }
        })
        .collect();
    ResolvedPartition { facts: p, replicas }
}

impl ResolvedReplica<'_> {
    /// The HW value, or the checkpoint when unresolved.
    pub fn high_watermark_value(&self) -> Option<Offset> {
        (self.high_watermark.map(|h| h.value)).or(self.replica.checkpointed_high_watermark)
    }
}
