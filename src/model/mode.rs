//! Which kind of broker wrote a log dir: a KRaft node or a ZooKeeper-mode broker, and so which
//! Kafka versions and which rules apply to it. Pure functions of the parsed `meta.properties` and
//! of whether a KRaft metadata log (`__cluster_metadata-0`) belongs to the same broker.
//!
//! What tells them apart, from Kafka's source:
//! * `meta.properties` `version=1` (or `2`) with `node.id`: written only by `kafka-storage.sh
//!   format` or a KRaft node (`MetaProperties.toProperties` writes `node.id` for every version but
//!   0). A ZooKeeper broker that is not migrating refuses anything but version 0
//!   (`MetaPropertiesEnsemble.verify`, flag `REQUIRE_V0`: "ZK-based brokers that are not migrating
//!   only support version 0"). → KRaft.
//! * `version=0` (or no `version`, which is 0) with `broker.id`: written by a ZooKeeper-mode
//!   `KafkaServer` (`checkpointBrokerMetadata`, Kafka up to 3.9). A KRaft node accepts such a file
//!   too (`KafkaRaftServer` verifies with `REQUIRE_AT_LEAST_ONE_VALID`, `REQUIRE_METADATA_LOG_DIR`
//!   and not `REQUIRE_V0`): a dir migrated from ZooKeeper keeps its v0 file. So a v0 file is KRaft
//!   when the broker's `__cluster_metadata-0` is there, ZooKeeper otherwise.
//! * No usable `meta.properties`: KRaft when the metadata log is there, else unknown.
//!
//! Versions: ZooKeeper mode is Kafka 0.8 to 3.9 (removed in 4.0); KRaft is 2.8 to 3.2 as a
//! preview, production-ready from 3.3, and the only mode from 4.0.

use std::path::Path;

use serde::Serialize;

use crate::formats::meta_properties::{
    parse_meta_properties, MetaProperties, MetaPropertiesVersion,
};

use super::file_bytes::read_small_file;
use super::log_dir::LogDir;
use super::names::METADATA_TOPIC;

/// The kind of broker a log dir belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LogDirMode {
    /// A KRaft node's dir: topic ids in `partition.metadata` required, configs in the metadata log.
    KRaft,
    /// A ZooKeeper-mode broker's dir (Kafka up to 3.9): `partition.metadata` optional, configs in
    /// ZooKeeper.
    ZooKeeper,
    /// Neither a usable `meta.properties` nor a metadata log says.
    Unknown,
}

impl LogDirMode {
    /// `kraft`, `zookeeper` or `unknown` (the JSON spelling).
    pub fn name(self) -> &'static str {
        match self {
            LogDirMode::KRaft => "kraft",
            LogDirMode::ZooKeeper => "zookeeper",
            LogDirMode::Unknown => "unknown",
        }
    }

    /// The Kafka versions that run in this mode.
    pub fn kafka_versions(self) -> &'static str {
        match self {
            LogDirMode::KRaft => "Kafka 3.3+ (2.8-3.2 as preview; the only mode from 4.0)",
            LogDirMode::ZooKeeper => "Kafka up to 3.9 (ZooKeeper mode was removed in 4.0)",
            LogDirMode::Unknown => "unknown",
        }
    }

    /// Whether a live partition dir needs `partition.metadata` (topic id): a KRaft broker sets a
    /// log without one aside as stray; a ZooKeeper broker writes it only from
    /// inter.broker.protocol.version 2.8 and runs without it.
    pub fn requires_topic_id(self) -> bool {
        self == LogDirMode::KRaft
    }
}

/// A log dir's mode and what it was decided from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModeEvidence {
    /// The mode.
    pub mode: LogDirMode,
    /// `meta.properties` version, if the file was read.
    pub meta_version: Option<MetaPropertiesVersion>,
    /// The id key it holds: `node.id` (v1, v2), `broker.id` (v0), or `None`.
    pub id_key: Option<&'static str>,
    /// Whether the broker's `__cluster_metadata-0` was found.
    pub metadata_log: bool,
}

impl ModeEvidence {
    /// One line for people: `meta.properties v0 with broker.id, no __cluster_metadata-0` (the
    /// metadata log may be found in another log dir of the broker).
    pub fn describe(&self) -> String {
        let meta = match (self.meta_version, self.id_key) {
            (None, _) => "no usable meta.properties".to_string(),
            (Some(v), Some(k)) => format!("meta.properties v{} with {k}", version_number(v)),
            (Some(v), None) => format!("meta.properties v{} without an id", version_number(v)),
        };
        let log = if self.metadata_log {
            format!("{METADATA_TOPIC}-0 found")
        } else {
            format!("no {METADATA_TOPIC}-0")
        };
        format!("{meta}, {log}")
    }
}

/// The number Kafka writes in `version=`.
pub fn version_number(v: MetaPropertiesVersion) -> u8 {
    match v {
        MetaPropertiesVersion::V0 => 0,
        MetaPropertiesVersion::V1 => 1,
        MetaPropertiesVersion::V2 => 2,
    }
}

/// The mode of a log dir whose parsed `meta.properties` is `meta` (`None`: missing or unusable),
/// `metadata_log` telling whether this broker's `__cluster_metadata-0` exists (in this dir, in
/// another of its log dirs, or under `metadata.log.dir`).
pub fn log_dir_mode(meta: Option<&MetaProperties>, metadata_log: bool) -> LogDirMode {
    mode_evidence(meta, metadata_log).mode
}

/// [`log_dir_mode`] with its evidence.
pub fn mode_evidence(meta: Option<&MetaProperties>, metadata_log: bool) -> ModeEvidence {
    let meta_version = meta.map(|m| m.version);
    let id_key = meta.and_then(|m| {
        m.node_id.map(|_| match m.version {
            MetaPropertiesVersion::V0 => "broker.id",
            _ => "node.id",
        })
    });
    let mode = match meta_version {
        Some(MetaPropertiesVersion::V1 | MetaPropertiesVersion::V2) => LogDirMode::KRaft,
        _ if metadata_log => LogDirMode::KRaft,
        Some(MetaPropertiesVersion::V0) => LogDirMode::ZooKeeper,
        None => LogDirMode::Unknown,
    };
    ModeEvidence {
        mode,
        meta_version,
        id_key,
        metadata_log,
    }
}

/// The mode of the log dir `log_dir`, reading its `meta.properties` and looking for
/// `__cluster_metadata-0` in it and in `metadata_log_dir` (the broker's `metadata.log.dir`, if
/// known). An unreadable or corrupt `meta.properties` counts as missing (its finding is the
/// caller's).
pub fn read_log_dir_mode(log_dir: &Path, metadata_log_dir: Option<&Path>) -> ModeEvidence {
    let meta = read_small_file(&log_dir.join("meta.properties"), 1 << 20)
        .ok()
        .and_then(|b| parse_meta_properties(&b).ok());
    let name = format!("{METADATA_TOPIC}-0");
    let metadata_log =
        log_dir.join(&name).is_dir() || metadata_log_dir.is_some_and(|d| d.join(&name).is_dir());
    mode_evidence(meta.as_ref(), metadata_log)
}

/// The mode of each loaded log dir of one run (in order). The broker's metadata log found in any
/// of them counts for every dir of the same cluster (a KRaft broker keeps one, in
/// `metadata.log.dir`, for all its log dirs), as `config` decides it.
pub fn run_modes(dirs: &[LogDir]) -> Vec<ModeEvidence> {
    let name = format!("{METADATA_TOPIC}-0");
    let cluster = |d: &LogDir| -> Option<String> {
        d.meta
            .as_ref()
            .and_then(|m| m.as_ref().ok())
            .and_then(|m| m.cluster_id.clone())
    };
    let holders: Vec<Option<String>> = dirs
        .iter()
        // The loaded partitions tell it (a whole dir's load, a facts snapshot's); a load of a
        // few partitions of the dir does not hold it, and the dir is looked at.
        .filter(|d| d.partitions.iter().any(|p| p.dir_name == name) || d.path.join(&name).is_dir())
        .map(cluster)
        .collect();
    dirs.iter()
        .map(|d| {
            let own = cluster(d);
            let metadata_log = holders
                .iter()
                .any(|h| !different_clusters(own.as_deref(), h.as_deref()));
            let meta = d.meta.as_ref().and_then(|m| m.as_ref().ok());
            mode_evidence(meta, metadata_log)
        })
        .collect()
}

/// Whether two log dirs belong to different clusters: both `cluster.id`s known and different.
/// The broker refuses to start on such a set (`MetaPropertiesEnsemble.verify`: "Invalid
/// cluster.id in ... Expected X, but read Y"; ZooKeeper mode: `InconsistentClusterIdException`),
/// so a partition found in both is not a duplicate of one broker.
pub fn different_clusters(a: Option<&str>, b: Option<&str>) -> bool {
    matches!((a, b), (Some(a), Some(b)) if a != b)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a panic is the failure report
mod tests {
    use super::*;

    fn meta(text: &str) -> MetaProperties {
        parse_meta_properties(text.as_bytes()).unwrap()
    }

    #[test]
    fn modes_from_meta_properties_and_metadata_log() {
        let kraft = meta("version=1\nnode.id=1\ncluster.id=c\n");
        let zk = meta("version=0\nbroker.id=1\ncluster.id=c\n");
        let zk_implicit = meta("broker.id=1\ncluster.id=c\n");
        assert_eq!(log_dir_mode(Some(&kraft), true), LogDirMode::KRaft);
        // A KRaft data dir without the metadata log (it lives in metadata.log.dir).
        assert_eq!(log_dir_mode(Some(&kraft), false), LogDirMode::KRaft);
        assert_eq!(log_dir_mode(Some(&zk), false), LogDirMode::ZooKeeper);
        assert_eq!(
            log_dir_mode(Some(&zk_implicit), false),
            LogDirMode::ZooKeeper
        );
        // Migrated from ZooKeeper: v0 file kept, metadata log present.
        assert_eq!(log_dir_mode(Some(&zk), true), LogDirMode::KRaft);
        assert_eq!(log_dir_mode(None, true), LogDirMode::KRaft);
        assert_eq!(log_dir_mode(None, false), LogDirMode::Unknown);
        let e = mode_evidence(Some(&zk), false);
        assert_eq!(e.id_key, Some("broker.id"));
        assert_eq!(
            e.describe(),
            "meta.properties v0 with broker.id, no __cluster_metadata-0"
        );
        assert_eq!(
            mode_evidence(Some(&kraft), true).describe(),
            "meta.properties v1 with node.id, __cluster_metadata-0 found"
        );
        assert!(LogDirMode::KRaft.requires_topic_id());
        assert!(!LogDirMode::ZooKeeper.requires_topic_id());
        assert!(!LogDirMode::Unknown.requires_topic_id());
    }

    #[test]
    fn cluster_ids_differ_only_when_both_known() {
        assert!(different_clusters(Some("a"), Some("b")));
        assert!(!different_clusters(Some("a"), Some("a")));
        assert!(!different_clusters(None, Some("a")));
        assert!(!different_clusters(None, None));
    }

    #[test]
    fn reads_a_fixture_dir() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let e = read_log_dir_mode(&fixtures.join("basic-delete/logs-0"), None);
        assert_eq!(e.mode, LogDirMode::KRaft);
        assert!(e.metadata_log);
        // logs-1 holds no metadata log, but its v1 file says KRaft.
        let e = read_log_dir_mode(&fixtures.join("basic-delete/logs-1"), None);
        assert_eq!((e.mode, e.metadata_log), (LogDirMode::KRaft, false));
        let e = read_log_dir_mode(
            &fixtures.join("basic-delete/logs-1"),
            Some(&fixtures.join("basic-delete/logs-0")),
        );
        assert!(e.metadata_log);
    }
}
