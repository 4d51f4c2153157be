//! The configuration tables of Apache Kafka 4.4.0 that decide roll, retention and compaction:
//! every topic-level config `describeConfigs` returns for a topic, with its type, default,
//! validator and broker synonyms; and the broker-only configs the cleanup rules read.
//!
//! Sources: `storage/.../log/LogConfig.java` (topic `ConfigDef` and `SERVER_CONFIG_DEF`),
//! `server-common/.../config/ServerTopicConfigSynonyms.java` (synonym order and unit
//! converters), `ServerLogConfigs.java`, `CleanerConfig.java`, `GroupCoordinatorConfig.java`,
//! `TransactionLogConfig.java`, `RemoteLogManagerConfig.java`, `core/.../KafkaConfig.scala`
//! (`logRetentionTimeMillis`, `logRollTimeMillis`, `logRollTimeJitterMillis`,
//! `logFlushIntervalMs`), `DynamicBrokerConfig` (which broker keys may be set dynamically).
//! The key list, defaults and rendering were checked against what a real 4.4.0 broker reported
//! (`fixtures/*/manifest.json`); spec: `kafka-cleanup-rules.md` §E.
//!
//! Rows marked `unconfirmed` were not found in a 4.4.0 copy of Kafka's source: their key and
//! default match the fixtures, their synonym and validator come from a trunk mirror.

/// A `ConfigDef.Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConfigType {
    /// `LONG` (Java `long`).
    Long,
    /// `INT` (Java `int`).
    Int,
    /// `SHORT` (Java `short`).
    Short,
    /// `DOUBLE`, rendered with Java's `Double.toString`.
    Double,
    /// `BOOLEAN`: `true` / `false`, case-insensitive on input.
    Boolean,
    /// `STRING`: trimmed.
    String,
    /// `LIST`: comma-separated, whitespace around commas dropped, rendered joined by `,`.
    List,
    /// `CLASS`: a class name.
    Class,
    /// `PASSWORD`: never shown.
    Password,
}

impl ConfigType {
    /// Kafka's name for the type (`ConfigDef.Type` in lower case).
    pub fn name(self) -> &'static str {
        match self {
            ConfigType::Long => "long",
            ConfigType::Int => "int",
            ConfigType::Short => "short",
            ConfigType::Double => "double",
            ConfigType::Boolean => "boolean",
            ConfigType::String => "string",
            ConfigType::List => "list",
            ConfigType::Class => "class",
            ConfigType::Password => "password",
        }
    }
}

/// A `ConfigDef` validator.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Validator {
    /// No validator.
    None,
    /// `Range.atLeast(min)` on an integer.
    AtLeast(i64),
    /// `Range.between(min, max)` on an integer.
    Between(i64, i64),
    /// `Range.between(min, max)` on a double.
    BetweenF(f64, f64),
    /// `ValidString.in(...)` (case-sensitive).
    OneOf(&'static [&'static str]),
    /// `ValidList.in(...)`: every element one of these (case-sensitive); empty list allowed.
    ListOf(&'static [&'static str]),
    /// Gzip's level validator: −1 (the JDK default) or 1..=9.
    GzipLevel,
    /// `ThrottledReplicaListValidator`: `*`, or entries `partition:brokerId`.
    ThrottledReplicas,
}

/// How a broker synonym's value converts into the topic config's unit
/// (`ConfigSynonym.HOURS_TO_MILLISECONDS`, `MINUTES_TO_MILLISECONDS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Same unit as the topic config.
    Same,
    /// Minutes → × 60 000.
    Minutes,
    /// Hours → × 3 600 000.
    Hours,
}

impl Unit {
    /// The factor to milliseconds (1 for [`Unit::Same`]).
    pub fn factor(self) -> i64 {
        match self {
            Unit::Same => 1,
            Unit::Minutes => 60_000,
            Unit::Hours => 3_600_000,
        }
    }
}

/// A broker config that sets the default of a topic config.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Synonym {
    /// The broker key, e.g. `log.retention.hours`.
    pub name: &'static str,
    /// Unit conversion into the topic config's unit.
    pub unit: Unit,
    /// The broker key's own type (e.g. `INT` for `log.retention.hours`).
    pub config_type: ConfigType,
    /// The broker key's default as a string, `None` for a `null` default (in a family of
    /// synonyms only the last one has a default).
    pub default: Option<&'static str>,
    /// The broker key's own validator (the topic's validator also applies after conversion).
    pub validator: Validator,
    /// Whether `DynamicBrokerConfig` accepts it as a dynamic config (only the first synonym of
    /// each topic config is in `DynamicLogConfig.ReconfigurableConfigs`); a non-dynamic key
    /// found in a dynamic source is ignored by the broker.
    pub dynamic: bool,
}

/// One topic-level config.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TopicConfigDef {
    /// The topic key.
    pub name: &'static str,
    /// Its type.
    pub config_type: ConfigType,
    /// Kafka's default, rendered as `describeConfigs` shows it.
    pub default: &'static str,
    /// Its validator.
    pub validator: Validator,
    /// Broker synonyms, highest priority first (`ServerTopicConfigSynonyms`).
    pub synonyms: &'static [Synonym],
    /// Whether the row could not be checked against a 4.4.0 copy of Kafka's source.
    pub unconfirmed: bool,
}

/// One broker-only config the cleanup rules read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BrokerConfigDef {
    /// The broker key.
    pub name: &'static str,
    /// Its type.
    pub config_type: ConfigType,
    /// Kafka's default, rendered; `None` for a `null` default.
    pub default: Option<&'static str>,
    /// Its validator.
    pub validator: Validator,
    /// Whether it can be changed dynamically (per broker or cluster default).
    pub dynamic: bool,
}

/// Java `Long.MAX_VALUE`, rendered.
pub const LONG_MAX: &str = "9223372036854775807";

pub(super) const fn same(
    name: &'static str,
    config_type: ConfigType,
    default: &'static str,
    validator: Validator,
) -> Synonym {
    Synonym {
        name,
        unit: Unit::Same,
        config_type,
        default: Some(default),
        validator,
        dynamic: true,
    }
}

const fn first(name: &'static str, config_type: ConfigType) -> Synonym {
    Synonym {
        name,
        unit: Unit::Same,
        config_type,
        default: None,
        validator: Validator::None,
        dynamic: true,
    }
}

const fn later(
    name: &'static str,
    unit: Unit,
    default: Option<&'static str>,
    validator: Validator,
) -> Synonym {
    Synonym {
        name,
        unit,
        config_type: ConfigType::Int,
        default,
        validator,
        dynamic: false,
    }
}

pub(super) const fn topic(
    name: &'static str,
    config_type: ConfigType,
    default: &'static str,
    validator: Validator,
    synonyms: &'static [Synonym],
) -> TopicConfigDef {
    TopicConfigDef {
        name,
        config_type,
        default,
        validator,
        synonyms,
        unconfirmed: false,
    }
}

const fn topic_unconfirmed(
    name: &'static str,
    config_type: ConfigType,
    default: &'static str,
    validator: Validator,
    synonyms: &'static [Synonym],
) -> TopicConfigDef {
    TopicConfigDef {
        name,
        config_type,
        default,
        validator,
        synonyms,
        unconfirmed: true,
    }
}

use ConfigType as T;
use Validator as V;

const CLEANUP_POLICIES: &[&str] = &["compact", "delete"];
const COMPRESSION_TYPES: &[&str] = &["uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"];
const TIMESTAMP_TYPES: &[&str] = &["CreateTime", "LogAppendTime"];

/// Every topic config a Kafka 4.4.0 broker returns from `describeConfigs` for a topic, sorted by
/// name (37 keys, the set every fixture manifest holds).
pub static TOPIC_CONFIGS: &[TopicConfigDef] = &[
    topic(
        "cleanup.policy",
        T::List,
        "delete",
        V::ListOf(CLEANUP_POLICIES),
        &[same(
            "log.cleanup.policy",
            T::List,
            "delete",
            V::ListOf(CLEANUP_POLICIES),
        )],
    ),
    topic(
        "compression.gzip.level",
        T::Int,
        "-1",
        V::GzipLevel,
        &[same("compression.gzip.level", T::Int, "-1", V::GzipLevel)],
    ),
    topic(
        "compression.lz4.level",
        T::Int,
        "9",
        V::Between(1, 17),
        &[same(
            "compression.lz4.level",
            T::Int,
            "9",
            V::Between(1, 17),
        )],
    ),
    topic(
        "compression.type",
        T::String,
        "producer",
        V::OneOf(COMPRESSION_TYPES),
        &[same(
            "compression.type",
            T::String,
            "producer",
            V::OneOf(COMPRESSION_TYPES),
        )],
    ),
    topic(
        "compression.zstd.level",
        T::Int,
        "3",
        V::Between(-131_072, 22),
        &[same(
            "compression.zstd.level",
            T::Int,
            "3",
            V::Between(-131_072, 22),
        )],
    ),
    topic(
        "delete.retention.ms",
        T::Long,
        "86400000",
        V::AtLeast(0),
        &[same(
            "log.cleaner.delete.retention.ms",
            T::Long,
            "86400000",
            V::AtLeast(0),
        )],
    ),
    topic_unconfirmed(
        "errors.deadletterqueue.group.enable",
        T::Boolean,
        "false",
        V::None,
        &[],
    ),
    topic(
        "file.delete.delay.ms",
        T::Long,
        "60000",
        V::AtLeast(0),
        &[same(
            "log.segment.delete.delay.ms",
            T::Long,
            "60000",
            V::AtLeast(0),
        )],
    ),
    topic(
        "flush.messages",
        T::Long,
        LONG_MAX,
        V::AtLeast(1),
        &[same(
            "log.flush.interval.messages",
            T::Long,
            LONG_MAX,
            V::AtLeast(1),
        )],
    ),
    topic(
        "flush.ms",
        T::Long,
        LONG_MAX,
        V::AtLeast(0),
        &[
            first("log.flush.interval.ms", T::Long),
            Synonym {
                name: "log.flush.scheduler.interval.ms",
                unit: Unit::Same,
                config_type: T::Long,
                default: Some(LONG_MAX),
                validator: V::None,
                dynamic: false,
            },
        ],
    ),
    topic(
        "follower.replication.throttled.replicas",
        T::List,
        "",
        V::ThrottledReplicas,
        &[],
    ),
    topic(
        "index.interval.bytes",
        T::Int,
        "4096",
        V::AtLeast(0),
        &[same(
            "log.index.interval.bytes",
            T::Int,
            "4096",
            V::AtLeast(0),
        )],
    ),
    topic(
        "leader.replication.throttled.replicas",
        T::List,
        "",
        V::ThrottledReplicas,
        &[],
    ),
    topic(
        "local.retention.bytes",
        T::Long,
        "-2",
        V::AtLeast(-2),
        &[same(
            "log.local.retention.bytes",
            T::Long,
            "-2",
            V::AtLeast(-2),
        )],
    ),
    topic(
        "local.retention.ms",
        T::Long,
        "-2",
        V::AtLeast(-2),
        &[same(
            "log.local.retention.ms",
            T::Long,
            "-2",
            V::AtLeast(-2),
        )],
    ),
    topic(
        "max.compaction.lag.ms",
        T::Long,
        LONG_MAX,
        V::AtLeast(1),
        &[same(
            "log.cleaner.max.compaction.lag.ms",
            T::Long,
            LONG_MAX,
            V::AtLeast(1),
        )],
    ),
    topic_unconfirmed(
        "max.decompressed.message.bytes",
        T::Int,
        "2147483639",
        V::AtLeast(0),
        &[same(
            "max.decompressed.message.bytes",
            T::Int,
            "2147483639",
            V::AtLeast(0),
        )],
    ),
    topic(
        "max.message.bytes",
        T::Int,
        "1048588",
        V::AtLeast(0),
        &[same("message.max.bytes", T::Int, "1048588", V::AtLeast(0))],
    ),
    topic(
        "message.timestamp.after.max.ms",
        T::Long,
        "3600000",
        V::AtLeast(0),
        &[same(
            "log.message.timestamp.after.max.ms",
            T::Long,
            "3600000",
            V::AtLeast(0),
        )],
    ),
    topic(
        "message.timestamp.before.max.ms",
        T::Long,
        LONG_MAX,
        V::AtLeast(0),
        &[same(
            "log.message.timestamp.before.max.ms",
            T::Long,
            LONG_MAX,
            V::AtLeast(0),
        )],
    ),
    topic(
        "message.timestamp.type",
        T::String,
        "CreateTime",
        V::OneOf(TIMESTAMP_TYPES),
        &[same(
            "log.message.timestamp.type",
            T::String,
            "CreateTime",
            V::OneOf(TIMESTAMP_TYPES),
        )],
    ),
    topic(
        "min.cleanable.dirty.ratio",
        T::Double,
        "0.5",
        V::BetweenF(0.0, 1.0),
        &[same(
            "log.cleaner.min.cleanable.ratio",
            T::Double,
            "0.5",
            V::BetweenF(0.0, 1.0),
        )],
    ),
    topic(
        "min.compaction.lag.ms",
        T::Long,
        "0",
        V::AtLeast(0),
        &[same(
            "log.cleaner.min.compaction.lag.ms",
            T::Long,
            "0",
            V::AtLeast(0),
        )],
    ),
    topic(
        "min.insync.replicas",
        T::Int,
        "1",
        V::AtLeast(1),
        &[same("min.insync.replicas", T::Int, "1", V::AtLeast(1))],
    ),
    topic(
        "preallocate",
        T::Boolean,
        "false",
        V::None,
        &[same("log.preallocate", T::Boolean, "false", V::None)],
    ),
    topic_unconfirmed(
        "remote.copy.lag.bytes",
        T::Long,
        "-1",
        V::AtLeast(-1),
        &[same(
            "log.remote.copy.lag.bytes",
            T::Long,
            "-1",
            V::AtLeast(-1),
        )],
    ),
    topic_unconfirmed(
        "remote.copy.lag.ms",
        T::Long,
        "0",
        V::AtLeast(-1),
        &[same("log.remote.copy.lag.ms", T::Long, "0", V::AtLeast(-1))],
    ),
    topic("remote.log.copy.disable", T::Boolean, "false", V::None, &[]),
    topic(
        "remote.log.delete.on.disable",
        T::Boolean,
        "false",
        V::None,
        &[],
    ),
    topic("remote.storage.enable", T::Boolean, "false", V::None, &[]),
    topic(
        "retention.bytes",
        T::Long,
        "-1",
        V::None,
        &[same("log.retention.bytes", T::Long, "-1", V::None)],
    ),
    topic(
        "retention.ms",
        T::Long,
        "604800000",
        V::AtLeast(-1),
        &[
            first("log.retention.ms", T::Long),
            later("log.retention.minutes", Unit::Minutes, None, V::None),
            later("log.retention.hours", Unit::Hours, Some("168"), V::None),
        ],
    ),
    topic(
        "segment.bytes",
        T::Int,
        "1073741824",
        V::AtLeast(1_048_576),
        &[same(
            "log.segment.bytes",
            T::Int,
            "1073741824",
            V::AtLeast(1_048_576),
        )],
    ),
    topic(
        "segment.index.bytes",
        T::Int,
        "10485760",
        V::AtLeast(4),
        &[same(
            "log.index.size.max.bytes",
            T::Int,
            "10485760",
            V::AtLeast(4),
        )],
    ),
    topic(
        "segment.jitter.ms",
        T::Long,
        "0",
        V::AtLeast(0),
        &[
            first("log.roll.jitter.ms", T::Long),
            later(
                "log.roll.jitter.hours",
                Unit::Hours,
                Some("0"),
                V::AtLeast(0),
            ),
        ],
    ),
    topic(
        "segment.ms",
        T::Long,
        "604800000",
        V::AtLeast(1),
        &[
            first("log.roll.ms", T::Long),
            later("log.roll.hours", Unit::Hours, Some("168"), V::AtLeast(1)),
        ],
    ),
    topic(
        "unclean.leader.election.enable",
        T::Boolean,
        "false",
        V::None,
        &[same(
            "unclean.leader.election.enable",
            T::Boolean,
            "false",
            V::None,
        )],
    ),
];

const fn broker(
    name: &'static str,
    config_type: ConfigType,
    default: Option<&'static str>,
    validator: Validator,
    dynamic: bool,
) -> BrokerConfigDef {
    BrokerConfigDef {
        name,
        config_type,
        default,
        validator,
        dynamic,
    }
}

/// Broker-only configs that drive cleanup (spec §E2), plus the log-dir keys. Sorted by name.
pub static BROKER_CONFIGS: &[BrokerConfigDef] = &[
    broker(
        "background.threads",
        T::Int,
        Some("10"),
        V::AtLeast(1),
        true,
    ),
    broker(
        "log.cleaner.backoff.ms",
        T::Long,
        Some("15000"),
        V::AtLeast(0),
        true,
    ),
    broker(
        "log.cleaner.dedupe.buffer.size",
        T::Long,
        Some("134217728"),
        V::None,
        true,
    ),
    broker(
        "log.cleaner.enable",
        T::Boolean,
        Some("true"),
        V::None,
        false,
    ),
    broker(
        "log.cleaner.io.buffer.load.factor",
        T::Double,
        Some("0.9"),
        V::None,
        true,
    ),
    broker(
        "log.cleaner.io.buffer.size",
        T::Int,
        Some("524288"),
        V::AtLeast(0),
        true,
    ),
    broker(
        "log.cleaner.io.max.bytes.per.second",
        T::Double,
        Some("1.7976931348623157E308"),
        V::None,
        true,
    ),
    broker(
        "log.cleaner.threads",
        T::Int,
        Some("1"),
        V::AtLeast(0),
        true,
    ),
    broker("log.dir", T::List, Some("/tmp/kafka-logs"), V::None, false),
    broker(
        "log.dir.failure.timeout.ms",
        T::Long,
        Some("30000"),
        V::AtLeast(1),
        false,
    ),
    broker("log.dirs", T::List, None, V::None, false),
    broker(
        "log.flush.offset.checkpoint.interval.ms",
        T::Int,
        Some("60000"),
        V::AtLeast(0),
        false,
    ),
    broker(
        "log.flush.start.offset.checkpoint.interval.ms",
        T::Int,
        Some("60000"),
        V::AtLeast(0),
        false,
    ),
    broker(
        "log.initial.task.delay.ms",
        T::Long,
        Some("30000"),
        V::AtLeast(0),
        false,
    ),
    broker(
        "log.retention.check.interval.ms",
        T::Long,
        Some("300000"),
        V::AtLeast(1),
        false,
    ),
    broker("metadata.log.dir", T::String, None, V::None, false),
    broker(
        "num.recovery.threads.per.data.dir",
        T::Int,
        Some("2"),
        V::AtLeast(1),
        true,
    ),
    broker(
        "offsets.retention.check.interval.ms",
        T::Long,
        Some("600000"),
        V::AtLeast(1),
        false,
    ),
    broker(
        "offsets.retention.minutes",
        T::Int,
        Some("10080"),
        V::AtLeast(1),
        false,
    ),
    broker(
        "offsets.topic.compression.codec",
        T::Int,
        Some("0"),
        V::None,
        false,
    ),
    broker(
        "offsets.topic.num.partitions",
        T::Int,
        Some("50"),
        V::AtLeast(1),
        false,
    ),
    broker(
        "offsets.topic.replication.factor",
        T::Short,
        Some("3"),
        V::AtLeast(1),
        false,
    ),
    broker(
        "offsets.topic.segment.bytes",
        T::Int,
        Some("104857600"),
        V::AtLeast(1),
        false,
    ),
    broker(
        "producer.id.expiration.ms",
        T::Int,
        Some("86400000"),
        V::AtLeast(1),
        true,
    ),
    broker(
        "remote.log.index.file.cache.total.size.bytes",
        T::Long,
        Some("1073741824"),
        V::AtLeast(1),
        true,
    ),
    broker(
        "remote.log.manager.task.interval.ms",
        T::Long,
        Some("30000"),
        V::AtLeast(1),
        false,
    ),
    broker(
        "remote.log.metadata.topic.retention.ms",
        T::Long,
        Some("-1"),
        V::None,
        false,
    ),
    broker(
        "remote.log.storage.system.enable",
        T::Boolean,
        Some("false"),
        V::None,
        false,
    ),
    broker(
        "replica.high.watermark.checkpoint.interval.ms",
        T::Long,
        Some("5000"),
        V::AtLeast(1),
        false,
    ),
    broker(
        "share.coordinator.state.topic.min.isr",
        T::Short,
        Some("2"),
        V::AtLeast(1),
        false,
    ),
    broker(
        "share.coordinator.state.topic.segment.bytes",
        T::Int,
        Some("104857600"),
        V::AtLeast(1),
        false,
    ),
    broker(
        "transaction.max.timeout.ms",
        T::Int,
        Some("900000"),
        V::AtLeast(1),
        false,
    ),
    broker(
        "transaction.state.log.min.isr",
        T::Int,
        Some("2"),
        V::AtLeast(1),
        false,
    ),
    broker(
        "transaction.state.log.num.partitions",
        T::Int,
        Some("50"),
        V::AtLeast(1),
        false,
    ),
    broker(
        "transaction.state.log.segment.bytes",
        T::Int,
        Some("104857600"),
        V::AtLeast(1),
        false,
    ),
    broker(
        "transactional.id.expiration.ms",
        T::Int,
        Some("604800000"),
        V::AtLeast(1),
        true,
    ),
];

/// The topic config named `name`.
pub fn topic_config(name: &str) -> Option<&'static TopicConfigDef> {
    TOPIC_CONFIGS.iter().find(|d| d.name == name)
}

/// The broker-only config named `name`.
pub fn broker_config(name: &str) -> Option<&'static BrokerConfigDef> {
    BROKER_CONFIGS.iter().find(|d| d.name == name)
}

/// The topic config whose broker synonym is `broker_key`, with that synonym.
pub fn synonym_of(broker_key: &str) -> Option<(&'static TopicConfigDef, &'static Synonym)> {
    TOPIC_CONFIGS.iter().find_map(|d| {
        d.synonyms
            .iter()
            .find(|s| s.name == broker_key)
            .map(|s| (d, s))
    })
}

/// Whether `DynamicBrokerConfig` accepts `broker_key` as a dynamic config, as far as these
/// tables know (`None` for a key they do not list).
pub fn is_dynamic_broker_key(broker_key: &str) -> Option<bool> {
    if let Some((_, s)) = synonym_of(broker_key) {
        return Some(s.dynamic);
    }
    broker_config(broker_key).map(|d| d.dynamic)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted_and_unique() {
        for w in TOPIC_CONFIGS.windows(2) {
            assert!(w[0].name < w[1].name, "{} / {}", w[0].name, w[1].name);
        }
        for w in BROKER_CONFIGS.windows(2) {
            assert!(w[0].name < w[1].name, "{} / {}", w[0].name, w[1].name);
        }
        assert_eq!(TOPIC_CONFIGS.len(), 37);
    }

    #[test]
    fn only_first_synonym_is_dynamic_and_last_has_default() {
        for d in TOPIC_CONFIGS {
            for (i, s) in d.synonyms.iter().enumerate() {
                assert_eq!(s.dynamic, i == 0, "{}", s.name);
            }
            if let Some(last) = d.synonyms.last() {
                assert!(last.default.is_some(), "{}", last.name);
            }
        }
    }

    #[test]
    fn lookups() {
        assert_eq!(
            synonym_of("log.retention.minutes").map(|(d, _)| d.name),
            Some("retention.ms")
        );
        assert_eq!(is_dynamic_broker_key("log.retention.hours"), Some(false));
        assert_eq!(is_dynamic_broker_key("log.retention.ms"), Some(true));
        assert_eq!(is_dynamic_broker_key("log.cleaner.backoff.ms"), Some(true));
        assert_eq!(is_dynamic_broker_key("no.such.key"), None);
    }
}
