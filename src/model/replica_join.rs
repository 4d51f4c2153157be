//! The replicas of each partition across several brokers' log dirs, joined by topic id and
//! partition (issue 21): given the dirs of more than one node, a follower's high watermark is
//! the leader's, read from the leader's own files, and replicas can be compared with each other.
//!
//! The node of a replica is its log dir's `meta.properties` `node.id`; its topic is the one its
//! `partition.metadata` topic id has in the metadata image ([`ClusterView::topic_of_dir`]), so
//! two brokers' dirs of a topic deleted and re-created under the same name never join. Nothing
//! here judges: [`crate::plan::adapter`] and `checks/` read the join.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::cluster::ClusterView;
use super::log_dir::LogDir;
use super::names::PartitionDirState;
use super::units::{Bytes, Offset};

/// One live replica of a partition, as its broker's files describe it (the same fields in
/// `diagnose --format json`'s `replication`, which `logclean join` reads back).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct JoinedReplica {
    /// The node whose log dir holds it (`None`: its meta.properties gives none).
    pub node_id: Option<i32>,
    /// The log dir (as its `path_text`: a name that is not UTF-8 reads back as its bytes).
    #[serde(with = "crate::model::names::path_serde")]
    pub log_dir: PathBuf,
    /// The partition dir name.
    pub dir_name: String,
    /// The log start offset after load (`None`: not loaded whole).
    pub log_start_offset: Option<Offset>,
    /// The log end offset (`None`: not loaded whole).
    pub log_end_offset: Option<Offset>,
    /// The partition's `replication-offset-checkpoint` entry.
    pub checkpointed_high_watermark: Option<Offset>,
    /// Bytes of its segments.
    pub size: Bytes,
    /// Its `leader-epoch-checkpoint` as (epoch, start offset), in file order (empty: none, or
    /// unreadable; absent in reports of earlier releases).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub leader_epochs: Vec<(i32, i64)>,
}

/// Every live replica of every partition in the dirs read, by (topic, partition), in the order
/// the dirs were given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplicaJoin {
    by_partition: BTreeMap<(String, i32), Vec<JoinedReplica>>,
}

impl ReplicaJoin {
    /// The join of the live partition dirs of `dirs` (not the metadata log, not `-delete`,
    /// `-future` or `-stray` dirs), topics by id per `view`.
    pub fn of(view: &ClusterView, dirs: &[LogDir]) -> Self {
        let mut by_partition: BTreeMap<(String, i32), Vec<JoinedReplica>> = BTreeMap::new();
        for dir in dirs {
            let node_id = view.node_of(dir);
            for p in &dir.partitions {
                let Some(name) = p.name.as_ref() else {
                    continue;
                };
                if name.state != PartitionDirState::Live || name.is_metadata_log() {
                    continue;
                }
                let topic = view.topic_of_dir(&dir.path, &p.dir_name, &name.topic);
                by_partition
                    .entry((topic, name.partition))
                    .or_default()
                    .push(JoinedReplica {
                        node_id,
                        log_dir: dir.path.clone(),
                        dir_name: p.dir_name.clone(),
                        log_start_offset: p.log_start_offset(),
                        log_end_offset: p.log_end_offset(),
                        checkpointed_high_watermark: p.checkpoints.high_watermark,
                        size: p.size(),
                        leader_epochs: (p.leader_epochs.as_ref())
                            .and_then(|e| e.as_ref().ok())
                            .map(|f| f.values().map(|e| (e.epoch, e.start_offset)).collect())
                            .unwrap_or_default(),
                    });
            }
        }
        ReplicaJoin { by_partition }
    }

    /// The replicas of `topic`'s `partition` found (empty when none).
    pub fn replicas(&self, topic: &str, partition: i32) -> &[JoinedReplica] {
        (self.by_partition.get(&(topic.to_string(), partition))).map_or(&[], Vec::as_slice)
    }

    /// The replica of `topic`'s `partition` on `node`, if its dirs were read.
    pub fn on_node(&self, topic: &str, partition: i32, node: i32) -> Option<&JoinedReplica> {
        (self.replicas(topic, partition).iter()).find(|r| r.node_id == Some(node))
    }

    /// Add `replica` of `topic`'s `partition` (a join of several brokers' reports).
    pub fn push(&mut self, topic: &str, partition: i32, replica: JoinedReplica) {
        (self
            .by_partition
            .entry((topic.to_string(), partition))
            .or_default())
        .push(replica);
    }

    /// Every partition with its replicas, by topic then partition.
    pub fn iter(&self) -> impl Iterator<Item = (&(String, i32), &Vec<JoinedReplica>)> {
        self.by_partition.iter()
    }
}
