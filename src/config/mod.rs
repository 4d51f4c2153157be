//! Effective configuration offline: for each topic, the value of each config the broker would
//! use and where it came from, computed from the files (server.properties, the KRaft metadata
//! log's topic and broker configs, a saved `kafka-configs.sh --describe` output, `--config`
//! overrides) with the broker down.
//!
//! * [`defaults`]: Kafka 4.4.0's topic configs (type, default, validator, broker synonyms) and
//!   the broker-only configs the cleanup rules read.
//! * [`value`]: Kafka's parse / validate / render of one value.
//! * [`sources`]: the inputs, as plain maps ([`ConfigSources`]).
//! * [`describe_file`]: the `kafka-configs.sh --describe` output parser.
//! * [`resolve`]: the broker's precedence and synonym rules ([`resolve_topic`]).
//! * [`log_config`]: the resolved values the cleanup rules read, typed ([`LogConfig`],
//!   [`BrokerCleanupConfig`]).
//! * [`removed`]: keys Kafka removed (4.0), with their replacements.
//! * [`versioned`]: the tables of releases 3.6–4.3 (keys, defaults, validators that changed).
//! * [`validate`]: `--config` checked as Kafka 4.4.0 checks an `alterConfigs` (names, values,
//!   `LogConfig`'s cross-checks) and against the topics that exist.
//!
//! Spec: `kafka-cleanup-rules.md` §E; where it and a real 4.4.0 broker disagree the broker
//! wins (see the module docs of [`resolve`]).

pub mod defaults;
pub mod describe_file;
pub mod internal_topics;
pub mod log_config;
pub mod provenance;
pub mod removed;
pub mod resolve;
pub mod sources;
pub mod validate;
pub mod value;
pub mod versioned;

use std::fmt;

pub use describe_file::{parse_describe_file, DescribeFile};
pub use log_config::{
    BrokerCleanupConfig, CleanupPolicy, Limit, LocalLimit, LogConfig, TimestampType,
};
pub use resolve::{
    resolve_all, resolve_broker, resolve_topic, BrokerEffectiveConfig, EffectiveConfig,
    ResolvedValue,
};
pub use sources::{
    from_metadata_maps, parse_config_override, parse_server_properties, ConfigSources,
};

/// A `DescribeConfigsResponse.ConfigSource` as Kafka names it (the five a topic or broker config
/// can have, plus the others `kafka-configs.sh` may print).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KafkaSource {
    /// `DYNAMIC_TOPIC_CONFIG`: a topic override.
    DynamicTopicConfig,
    /// `DYNAMIC_BROKER_CONFIG`: dynamic config of this broker.
    DynamicBrokerConfig,
    /// `DYNAMIC_DEFAULT_BROKER_CONFIG`: dynamic cluster-wide default.
    DynamicDefaultBrokerConfig,
    /// `STATIC_BROKER_CONFIG`: server.properties.
    StaticBrokerConfig,
    /// `DEFAULT_CONFIG`: Kafka's built-in default.
    DefaultConfig,
    /// `DYNAMIC_BROKER_LOGGER_CONFIG`.
    DynamicBrokerLoggerConfig,
    /// `DYNAMIC_CLIENT_METRICS_CONFIG`.
    DynamicClientMetricsConfig,
    /// `DYNAMIC_GROUP_CONFIG`.
    DynamicGroupConfig,
    /// `UNKNOWN`.
    Unknown,
}

impl KafkaSource {
    const ALL: [KafkaSource; 9] = [
        KafkaSource::DynamicTopicConfig,
        KafkaSource::DynamicBrokerConfig,
        KafkaSource::DynamicDefaultBrokerConfig,
        KafkaSource::StaticBrokerConfig,
        KafkaSource::DefaultConfig,
        KafkaSource::DynamicBrokerLoggerConfig,
        KafkaSource::DynamicClientMetricsConfig,
        KafkaSource::DynamicGroupConfig,
        KafkaSource::Unknown,
    ];

    /// Kafka's name, e.g. `DYNAMIC_TOPIC_CONFIG`.
    pub fn name(self) -> &'static str {
        match self {
            KafkaSource::DynamicTopicConfig => "DYNAMIC_TOPIC_CONFIG",
            KafkaSource::DynamicBrokerConfig => "DYNAMIC_BROKER_CONFIG",
            KafkaSource::DynamicDefaultBrokerConfig => "DYNAMIC_DEFAULT_BROKER_CONFIG",
            KafkaSource::StaticBrokerConfig => "STATIC_BROKER_CONFIG",
            KafkaSource::DefaultConfig => "DEFAULT_CONFIG",
            KafkaSource::DynamicBrokerLoggerConfig => "DYNAMIC_BROKER_LOGGER_CONFIG",
            KafkaSource::DynamicClientMetricsConfig => "DYNAMIC_CLIENT_METRICS_CONFIG",
            KafkaSource::DynamicGroupConfig => "DYNAMIC_GROUP_CONFIG",
            KafkaSource::Unknown => "UNKNOWN",
        }
    }

    /// The source named `name` (Kafka's spelling).
    pub fn from_name(name: &str) -> Option<KafkaSource> {
        KafkaSource::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl fmt::Display for KafkaSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a resolved value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ConfigSource {
    /// A `--config TOPIC:KEY=VALUE` override given to logclean (highest precedence).
    Override,
    /// A `kafka-configs.sh --describe` file given to logclean (the broker's own answer).
    DescribeFile,
    /// `DYNAMIC_TOPIC_CONFIG`: the topic's override in the KRaft metadata.
    DynamicTopicConfig,
    /// What the broker sets when it creates an internal topic ([`internal_topics`]), used when
    /// the topic's overrides were not read; a real broker reports it as
    /// `DYNAMIC_TOPIC_CONFIG`.
    InternalTopicCreation,
    /// `DYNAMIC_BROKER_CONFIG`: dynamic config of the broker (`--broker-id`).
    DynamicBrokerConfig,
    /// `DYNAMIC_DEFAULT_BROKER_CONFIG`: dynamic cluster-wide default.
    DynamicDefaultBrokerConfig,
    /// `STATIC_BROKER_CONFIG`: server.properties.
    StaticBrokerConfig,
    /// `DEFAULT_CONFIG`: Kafka's built-in default.
    DefaultConfig,
}

impl ConfigSource {
    /// Kafka's name for the five Kafka levels; `OVERRIDE`, `DESCRIBE_FILE` and
    /// `INTERNAL_TOPIC_CREATION` for logclean's.
    pub fn name(self) -> &'static str {
        match self {
            ConfigSource::Override => "OVERRIDE",
            ConfigSource::DescribeFile => "DESCRIBE_FILE",
            ConfigSource::DynamicTopicConfig => "DYNAMIC_TOPIC_CONFIG",
            ConfigSource::InternalTopicCreation => "INTERNAL_TOPIC_CREATION",
            ConfigSource::DynamicBrokerConfig => "DYNAMIC_BROKER_CONFIG",
            ConfigSource::DynamicDefaultBrokerConfig => "DYNAMIC_DEFAULT_BROKER_CONFIG",
            ConfigSource::StaticBrokerConfig => "STATIC_BROKER_CONFIG",
            ConfigSource::DefaultConfig => "DEFAULT_CONFIG",
        }
    }

    /// The Kafka source this is, if it is one of Kafka's five.
    pub fn kafka(self) -> Option<KafkaSource> {
        match self {
            ConfigSource::Override | ConfigSource::DescribeFile => None,
            ConfigSource::DynamicTopicConfig | ConfigSource::InternalTopicCreation => {
                Some(KafkaSource::DynamicTopicConfig)
            }
            ConfigSource::DynamicBrokerConfig => Some(KafkaSource::DynamicBrokerConfig),
            ConfigSource::DynamicDefaultBrokerConfig => {
                Some(KafkaSource::DynamicDefaultBrokerConfig)
            }
            ConfigSource::StaticBrokerConfig => Some(KafkaSource::StaticBrokerConfig),
            ConfigSource::DefaultConfig => Some(KafkaSource::DefaultConfig),
        }
    }

    /// The logclean source for a Kafka source (`None` for the non-log ones).
    pub fn from_kafka(k: KafkaSource) -> Option<ConfigSource> {
        match k {
            KafkaSource::DynamicTopicConfig => Some(ConfigSource::DynamicTopicConfig),
            KafkaSource::DynamicBrokerConfig => Some(ConfigSource::DynamicBrokerConfig),
            KafkaSource::DynamicDefaultBrokerConfig => {
                Some(ConfigSource::DynamicDefaultBrokerConfig)
            }
            KafkaSource::StaticBrokerConfig => Some(ConfigSource::StaticBrokerConfig),
            KafkaSource::DefaultConfig => Some(ConfigSource::DefaultConfig),
            _ => None,
        }
    }
}

impl fmt::Display for ConfigSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A configuration problem. Resolution never stops on one: a bad value is skipped (the next
/// source is used, as the broker ignores an invalid dynamic value) and the problem is recorded.
/// A bad `--config` is refused before resolution ([`validate`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A value that fails its type or validator.
    #[error("invalid value `{value}` for `{key}` from {level}: {reason}")]
    InvalidValue {
        /// The key as written at that level (a broker key for a broker synonym).
        key: String,
        /// The value as written.
        value: String,
        /// The level it was found at.
        level: ConfigSource,
        /// Why Kafka rejects it.
        reason: String,
    },
    /// A broker key Kafka does not accept dynamically, found in a dynamic source: the broker
    /// ignores it (`DynamicBrokerConfig.nonDynamicConfigs`).
    #[error("`{key}={value}` from {level} is ignored: `{key}` cannot be set dynamically")]
    NotDynamic {
        /// The broker key.
        key: String,
        /// The value as written.
        value: String,
        /// The dynamic level it was found at.
        level: ConfigSource,
    },
    /// A topic-level key that is not a Kafka 4.4.0 topic config.
    #[error("unknown topic config `{key}` for topic `{topic}` from {level}")]
    UnknownTopicConfig {
        /// The topic.
        topic: String,
        /// The key.
        key: String,
        /// Where it was found.
        level: ConfigSource,
    },
    /// A key Kafka removed, found in a source: it has no effect on a 4.x broker.
    #[error("{}", removed_text(.key, .value, *.level, .topic.as_deref(), .removed))]
    RemovedConfig {
        /// The key.
        key: String,
        /// The value as written.
        value: String,
        /// Where it was found.
        level: ConfigSource,
        /// The topic, for a topic-level key of one topic (`None`: broker level, or `--config *`).
        topic: Option<String>,
        /// What replaces it.
        removed: &'static removed::RemovedConfig,
    },
    /// A malformed `--config` argument.
    #[error("bad --config `{arg}`: {reason}")]
    BadOverride {
        /// The argument.
        arg: String,
        /// What is wrong.
        reason: String,
    },
    /// A `--config` for a topic that none of the inputs knows.
    #[error("bad --config: no topic `{topic}` in the metadata log, the log dirs or the describe file{}",
        .suggestion.as_ref().map(|s| format!("; did you mean `{s}`?")).unwrap_or_default())]
    UnknownOverrideTopic {
        /// The topic as given.
        topic: String,
        /// A known topic whose name is a likely typo of it.
        suggestion: Option<String>,
    },
    /// A `--config` that leaves a topic's effective config in a state Kafka 4.4.0 refuses
    /// (`LogConfig.validate`'s cross-checks).
    #[error("bad --config for topic `{topic}`: {reason}")]
    RefusedOverride {
        /// The topic.
        topic: String,
        /// What Kafka refuses, with the values and their sources.
        reason: String,
    },
    /// A malformed describe-file line.
    #[error("describe file, line {line}: {reason}")]
    DescribeFile {
        /// 1-based line.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// An unreadable server.properties.
    #[error("server.properties: {reason}")]
    Properties {
        /// What is wrong.
        reason: String,
    },
}

fn removed_text(
    key: &str,
    value: &str,
    level: ConfigSource,
    topic: Option<&str>,
    removed: &removed::RemovedConfig,
) -> String {
    let topic = topic
        .map(|t| format!(" for topic `{t}`"))
        .unwrap_or_default();
    format!(
        "`{key}={value}` from {level}{topic}: `{key}` was removed in Kafka {} and has no effect \
         on a 4.x broker; {}",
        removed.removed_in,
        removed.advice()
    )
}
