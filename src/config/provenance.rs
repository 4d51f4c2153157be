//! Which resolved values logclean assumed: a value is *assumed* when a source that outranks the
//! one it came from was not read, so the broker may use another value. Read-only commands say
//! so; nothing that removes data acts on it (`delete` refuses such partitions).
//!
//! Sources not read, and what they can override ([`resolve`](super::resolve)'s precedence):
//! * topic overrides (ZooKeeper mode: they live in ZooKeeper; a KRaft dir whose metadata log is
//!   missing or was not replayed whole; a topic the image does not name): every value below
//!   them, i.e. any value not from `--config`, a describe file or the metadata log's topic
//!   config;
//! * dynamic broker configs (ZooKeeper mode, a missing metadata log): static and default
//!   values of keys with a broker synonym;
//! * `server.properties` (not given): default values of keys with a broker synonym.
//!
//! A describe file's entry for a topic (`kafka-configs.sh --describe --entity-type topics`) is
//! the topic level read; with `--all` it gives every key's value outright.

use std::fmt;

use super::defaults::topic_config;
use super::resolve::{EffectiveConfig, ResolvedValue};
use super::ConfigSource;

/// The topic configs a cleanup verdict rests on: the policy, the retention limits (total and
/// local) and the segment limits that decide when the active segment rolls.
pub const DECIDING_KEYS: &[&str] = &[
    "cleanup.policy",
    "retention.ms",
    "retention.bytes",
    "local.retention.ms",
    "local.retention.bytes",
    "remote.storage.enable",
    "segment.ms",
    "segment.bytes",
];

/// A level of config sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UnreadLevel {
    /// The topic's own overrides (`DYNAMIC_TOPIC_CONFIG`).
    TopicOverrides,
    /// Dynamic per-broker and cluster-default configs.
    DynamicBrokerConfigs,
    /// The broker's `server.properties`.
    ServerProperties,
}

impl UnreadLevel {
    /// Its name in the output.
    pub fn name(self) -> &'static str {
        match self {
            UnreadLevel::TopicOverrides => "topic_overrides",
            UnreadLevel::DynamicBrokerConfigs => "dynamic_broker_configs",
            UnreadLevel::ServerProperties => "server_properties",
        }
    }

    /// Whether a value from `source` for a key with (`has_synonym`) or without a broker synonym
    /// could be overridden by this level.
    fn outranks(self, source: ConfigSource, has_synonym: bool) -> bool {
        use ConfigSource as S;
        match self {
            UnreadLevel::TopicOverrides => !matches!(
                source,
                S::Override | S::DescribeFile | S::DynamicTopicConfig
            ),
            UnreadLevel::DynamicBrokerConfigs => {
                has_synonym && matches!(source, S::StaticBrokerConfig | S::DefaultConfig)
            }
            UnreadLevel::ServerProperties => has_synonym && source == S::DefaultConfig,
        }
    }
}

/// Why a level was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WhyUnread {
    /// ZooKeeper-mode dirs: topic overrides and dynamic broker configs live in ZooKeeper.
    ZooKeeperMode,
    /// No `__cluster_metadata-0` among the dirs read.
    MetadataLogMissing,
    /// The metadata log could not be replayed whole (unreadable or corrupt).
    MetadataLogIncomplete,
    /// The metadata image does not name the topic.
    NotInMetadataImage,
    /// `--server-properties` was not given.
    NotGiven,
}

impl WhyUnread {
    /// Its name in the output.
    pub fn name(self) -> &'static str {
        match self {
            WhyUnread::ZooKeeperMode => "zookeeper_mode",
            WhyUnread::MetadataLogMissing => "metadata_log_missing",
            WhyUnread::MetadataLogIncomplete => "metadata_log_incomplete",
            WhyUnread::NotInMetadataImage => "not_in_metadata_image",
            WhyUnread::NotGiven => "not_given",
        }
    }
}

/// A source level logclean did not read, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UnreadSource {
    /// The level.
    pub level: UnreadLevel,
    /// Why.
    pub why: WhyUnread,
}

impl fmt::Display for UnreadSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.level {
            UnreadLevel::TopicOverrides => "topic overrides",
            UnreadLevel::DynamicBrokerConfigs => "dynamic broker configs",
            UnreadLevel::ServerProperties => "server.properties",
        };
        let why = match self.why {
            WhyUnread::ZooKeeperMode => "ZooKeeper mode: they live in ZooKeeper",
            WhyUnread::MetadataLogMissing => "no metadata log (__cluster_metadata-0) found",
            WhyUnread::MetadataLogIncomplete => "the metadata log could not be replayed whole",
            WhyUnread::NotInMetadataImage => "the topic is not in the metadata image",
            WhyUnread::NotGiven => "--server-properties not given",
        };
        write!(f, "{what} not read ({why})")
    }
}

/// One deciding value that rests on an assumption.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssumedValue {
    /// The topic key.
    pub key: &'static str,
    /// The value used.
    pub value: String,
    /// Where it came from.
    pub source: ConfigSource,
    /// The unread levels that could override it.
    pub unread: Vec<UnreadSource>,
}

/// The unread levels of `unread` that outrank `value` of `key`.
pub fn outranking(key: &str, value: &ResolvedValue, unread: &[UnreadSource]) -> Vec<UnreadSource> {
    let has_synonym = topic_config(key).is_some_and(|d| !d.synonyms.is_empty());
    unread
        .iter()
        .copied()
        .filter(|u| u.level.outranks(value.source, has_synonym))
        .collect()
}

/// The deciding values of `resolved` that an unread level could override.
pub fn assumed_values(resolved: &EffectiveConfig, unread: &[UnreadSource]) -> Vec<AssumedValue> {
    DECIDING_KEYS
        .iter()
        .filter_map(|&key| {
            let value = resolved.get(key)?;
            let unread = outranking(key, value, unread);
            (!unread.is_empty()).then(|| AssumedValue {
                key,
                value: value.value.clone(),
                source: value.source,
                unread,
            })
        })
        .collect()
}

/// How to give logclean the values it assumed (one line, copyable parts).
pub const SUPPLY_CONFIGS: &str = "give the broker's own values: --config-file FILE (the output of \
     `kafka-configs.sh --bootstrap-server HOST:PORT --describe --all --entity-type topics`) and \
     --server-properties /path/to/server.properties, or --config TOPIC:KEY=VALUE";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::resolve_topic;
    use crate::config::sources::ConfigSources;

    const TOPIC: UnreadSource = UnreadSource {
        level: UnreadLevel::TopicOverrides,
        why: WhyUnread::ZooKeeperMode,
    };
    const PROPS: UnreadSource = UnreadSource {
        level: UnreadLevel::ServerProperties,
        why: WhyUnread::NotGiven,
    };

    #[test]
    fn nothing_unread_nothing_assumed() {
        let r = resolve_topic(&ConfigSources::default(), "orders");
        assert!(assumed_values(&r, &[]).is_empty());
    }

    #[test]
    fn defaults_are_assumed_while_server_properties_are_unread() {
        let r = resolve_topic(&ConfigSources::default(), "orders");
        let a = assumed_values(&r, &[PROPS]);
        let keys: Vec<&str> = a.iter().map(|v| v.key).collect();
        // remote.storage.enable has no broker synonym: server.properties cannot change it.
        assert!(keys.contains(&"retention.ms") && !keys.contains(&"remote.storage.enable"));
        assert!(a.iter().all(|v| v.unread == vec![PROPS]));
    }

    #[test]
    fn a_topic_override_or_cli_value_is_never_assumed() {
        let mut s = ConfigSources::default();
        s.topic_overrides.insert(
            "orders".into(),
            [("retention.ms".to_string(), "1000".to_string())].into(),
        );
        s.cli_overrides.insert(
            "orders".into(),
            [("segment.bytes".to_string(), "1048576".to_string())].into(),
        );
        let r = resolve_topic(&s, "orders");
        let a = assumed_values(&r, &[TOPIC, PROPS]);
        assert!(a
            .iter()
            .all(|v| v.key != "retention.ms" && v.key != "segment.bytes"));
        assert!(a.iter().any(|v| v.key == "cleanup.policy"));
    }

    #[test]
    fn static_values_are_assumed_only_under_unread_topic_or_dynamic_levels() {
        let s = ConfigSources {
            static_props: Some([("log.retention.hours".to_string(), "1".to_string())].into()),
            ..Default::default()
        };
        let r = resolve_topic(&s, "orders");
        let v = r.get("retention.ms").unwrap();
        assert_eq!(v.source, ConfigSource::StaticBrokerConfig);
        assert!(outranking("retention.ms", v, &[PROPS]).is_empty());
        assert_eq!(outranking("retention.ms", v, &[TOPIC]), vec![TOPIC]);
    }
}
