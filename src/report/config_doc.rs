//! The `config` JSON document: each resolved value with its source, per topic and for the
//! broker, built from a [`ClusterView`].

use std::collections::BTreeMap;

use serde::Serialize;

use crate::config::log_config::{CLEANUP_BROKER_KEYS, CLEANUP_TOPIC_KEYS};
use crate::config::{ConfigSource, ResolvedValue};
use crate::model::cluster::{ClusterView, TopicView};
use crate::model::mode::{version_number, LogDirMode};
use crate::model::names::path_text;

use super::wire::Envelope;

/// Which values a document shows.
#[derive(Debug, Clone, Copy, Default)]
pub struct KeyFilter {
    /// Every config, not only the cleanup-relevant ones.
    pub all_keys: bool,
    /// Only values that are not Kafka's defaults.
    pub diff: bool,
}

impl KeyFilter {
    fn keep(self, key: &str, v: &ResolvedValue, relevant: &[&str]) -> bool {
        (self.all_keys || relevant.contains(&key))
            && (!self.diff || v.source != ConfigSource::DefaultConfig)
    }

    fn values(
        self,
        values: &BTreeMap<String, ResolvedValue>,
        relevant: &[&str],
    ) -> BTreeMap<String, ValueDoc> {
        values
            .iter()
            .filter(|(k, v)| self.keep(k, v, relevant))
            .map(|(k, v)| (k.clone(), ValueDoc::new(v)))
            .collect()
    }
}

/// One resolved value on the wire.
#[derive(Debug, Serialize)]
pub struct ValueDoc {
    /// The value as Kafka renders it.
    pub value: String,
    /// Where it comes from (Kafka's source names, or OVERRIDE / DESCRIBE_FILE).
    pub source: &'static str,
    /// What `describeConfigs` would report as the source (differs for some hour/minute synonyms).
    pub reported_source: &'static str,
    /// The broker key the value was read from, when it came from a broker level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synonym: Option<String>,
}

impl ValueDoc {
    /// The wire form of a resolved value.
    pub fn new(v: &ResolvedValue) -> Self {
        ValueDoc {
            value: v.value.clone(),
            source: v.source.name(),
            reported_source: v.reported_source.name(),
            synonym: v.synonym_key_used.clone(),
        }
    }
}

/// A partition dir of a topic, found by topic id.
#[derive(Debug, Serialize)]
pub struct PartitionDirDoc {
    /// The log dir.
    pub log_dir: String,
    /// The dir name.
    pub dir: String,
}

/// One topic's effective config.
#[derive(Debug, Serialize)]
pub struct TopicDoc {
    /// Topic name.
    pub topic: String,
    /// Topic id from the metadata log (None when the topic is not there).
    pub topic_id: Option<String>,
    /// Partitions in the metadata log.
    pub partitions: Option<usize>,
    /// Partition dirs on disk that carry this topic's id.
    pub dirs: Vec<PartitionDirDoc>,
    /// Key → value and source.
    pub configs: BTreeMap<String, ValueDoc>,
}

impl TopicDoc {
    fn new(t: &TopicView, filter: KeyFilter) -> Self {
        TopicDoc {
            topic: t.name.clone(),
            topic_id: t.topic_id.map(|id| id.to_string()),
            partitions: t.partition_count,
            dirs: t
                .dirs
                .iter()
                .map(|d| PartitionDirDoc {
                    log_dir: path_text(&d.log_dir),
                    dir: d.dir_name.clone(),
                })
                .collect(),
            configs: filter.values(&t.resolved.values, CLEANUP_TOPIC_KEYS),
        }
    }
}

/// The metadata log that was read.
#[derive(Debug, Serialize)]
pub struct MetadataDoc {
    /// `__cluster_metadata-0` dir, if found.
    pub dir: Option<String>,
    /// The snapshot replayed first.
    pub snapshot: Option<String>,
    /// Last offset applied.
    pub complete_up_to: Option<i64>,
    /// Topics in the image.
    pub topics: usize,
}

/// A log dir read, with its mode and ids.
#[derive(Debug, Serialize)]
pub struct LogDirDoc {
    /// The log dir.
    pub path: String,
    /// `kraft`, `zookeeper` or `unknown`.
    pub mode: LogDirMode,
    /// What the mode was decided from.
    pub mode_evidence: String,
    /// `version` of its meta.properties (`None`: missing or unusable).
    pub meta_properties_version: Option<u8>,
    /// `cluster.id` of its meta.properties.
    pub cluster_id: Option<String>,
    /// `node.id` (`broker.id` in a v0 file).
    pub node_id: Option<i32>,
}

/// The `config` document: the shared envelope around [`ConfigBody`].
pub type ConfigDoc = Envelope<ConfigBody>;

/// The keys of the `config` document.
#[derive(Debug, Serialize)]
pub struct ConfigBody {
    /// The mode of the log dirs: `kraft`, `zookeeper` or `unknown`.
    pub mode: LogDirMode,
    /// The Kafka versions that run in that mode.
    pub kafka_versions: &'static str,
    /// The log dirs read.
    pub log_dirs: Vec<LogDirDoc>,
    /// The broker whose dynamic configs were applied.
    pub broker_id: Option<i32>,
    /// The metadata log read.
    pub metadata: MetadataDoc,
    /// Broker-only configs.
    pub broker: BTreeMap<String, ValueDoc>,
    /// Topics.
    pub topics: Vec<TopicDoc>,
    /// What `--topic` kept (absent without it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter: Option<super::wire::filter::TopicFilterDoc>,
}

impl ConfigBody {
    /// The keys of `view`'s document, showing the values `filter` keeps.
    pub fn new(view: &ClusterView, filter: KeyFilter) -> Self {
        let meta = &view.metadata;
        ConfigBody {
            mode: view.mode,
            kafka_versions: view.mode.kafka_versions(),
            log_dirs: view
                .log_dir_info
                .iter()
                .map(|i| LogDirDoc {
                    path: path_text(&i.path),
                    mode: i.mode.mode,
                    mode_evidence: i.mode.describe(),
                    meta_properties_version: i.mode.meta_version.map(version_number),
                    cluster_id: i.cluster_id.clone(),
                    node_id: i.node_id,
                })
                .collect(),
            broker_id: view.broker_id,
            metadata: MetadataDoc {
                dir: meta.dir.as_ref().map(|d| path_text(d)),
                snapshot: meta.snapshot_used.as_ref().map(|p| path_text(p)),
                complete_up_to: meta.complete_up_to,
                topics: meta.topic_count,
            },
            broker: filter.values(&view.broker.values, CLEANUP_BROKER_KEYS),
            topics: view
                .topics
                .values()
                .map(|t| TopicDoc::new(t, filter))
                .collect(),
            filter: None,
        }
    }
}
