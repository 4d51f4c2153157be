//! Typed configs: what the cleanup rules read, as numbers and enums instead of strings.
//!
//! [`LogConfig`] is a topic's effective configuration ([`resolve_topic`] output) for every key
//! that decides rolling, retention, compaction, timestamps and indexes; [`BrokerCleanupConfig`]
//! the broker-only keys that decide when and how cleanup runs ([`resolve_broker`] output).
//!
//! Resolution already skipped invalid values the way the broker does (an invalid dynamic value
//! falls back to the next source, ending at Kafka's default), so every resolved value parses. A
//! value that does not (a hand-built map) or is absent gets Kafka 4.4.0's default, which is what
//! [`Default`] holds for both types (tested against the tables in [`super::defaults`]).
//!
//! [`resolve_topic`]: super::resolve_topic
//! [`resolve_broker`]: super::resolve_broker

use std::collections::BTreeMap;
use std::fmt;

use super::defaults::{self, ConfigType, Validator};
use super::resolve::{BrokerEffectiveConfig, EffectiveConfig, ResolvedValue};
use super::value::{self, Typed};

/// Topic configs that decide rolling, retention, compaction, timestamps and indexes: the fields
/// of [`LogConfig`], and what `logclean config` shows unless `--all-keys`.
pub const CLEANUP_TOPIC_KEYS: &[&str] = &[
    "cleanup.policy",
    "retention.ms",
    "retention.bytes",
    "local.retention.ms",
    "local.retention.bytes",
    "remote.storage.enable",
    "segment.ms",
    "segment.bytes",
    "segment.jitter.ms",
    "segment.index.bytes",
    "index.interval.bytes",
    "preallocate",
    "min.cleanable.dirty.ratio",
    "min.compaction.lag.ms",
    "max.compaction.lag.ms",
    "delete.retention.ms",
    "file.delete.delay.ms",
    "message.timestamp.type",
    "message.timestamp.before.max.ms",
    "message.timestamp.after.max.ms",
    "max.message.bytes",
];

/// Broker-only configs that decide when and how cleanup runs: the fields of
/// [`BrokerCleanupConfig`], and what `logclean config` shows unless `--all-keys`.
pub const CLEANUP_BROKER_KEYS: &[&str] = &[
    "log.dirs",
    "log.dir",
    "metadata.log.dir",
    "log.retention.check.interval.ms",
    "log.initial.task.delay.ms",
    "log.cleaner.enable",
    "log.cleaner.threads",
    "log.cleaner.backoff.ms",
    "log.cleaner.dedupe.buffer.size",
    "log.cleaner.io.buffer.load.factor",
    "log.cleaner.io.max.bytes.per.second",
    "num.recovery.threads.per.data.dir",
    "offsets.retention.minutes",
    "offsets.retention.check.interval.ms",
    "offsets.topic.num.partitions",
    "offsets.topic.segment.bytes",
    "transaction.max.timeout.ms",
    "producer.id.expiration.ms",
];

/// `cleanup.policy`: a list of `delete` and `compact`, possibly empty (neither: only the
/// log-start-offset pass runs, spec errata 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CleanupPolicy {
    /// `delete` is in the list: retention by time and size.
    pub delete: bool,
    /// `compact` is in the list: the log cleaner compacts the log.
    pub compact: bool,
}

impl CleanupPolicy {
    /// `delete`, Kafka's default.
    pub const DELETE: CleanupPolicy = CleanupPolicy {
        delete: true,
        compact: false,
    };
    /// `compact`.
    pub const COMPACT: CleanupPolicy = CleanupPolicy {
        delete: false,
        compact: true,
    };
    /// `compact,delete`.
    pub const COMPACT_DELETE: CleanupPolicy = CleanupPolicy {
        delete: true,
        compact: true,
    };

    fn from_list(items: &[String]) -> CleanupPolicy {
        CleanupPolicy {
            delete: items.iter().any(|i| i == "delete"),
            compact: items.iter().any(|i| i == "compact"),
        }
    }
}

impl fmt::Display for CleanupPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match (self.compact, self.delete) {
            (true, true) => "compact,delete",
            (true, false) => "compact",
            (false, true) => "delete",
            (false, false) => "",
        })
    }
}

/// A retention limit where a negative value means none (`retention.ms`, `retention.bytes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Limit {
    /// No limit (Kafka: any negative value, written `-1`).
    Unlimited,
    /// At most this many ms or bytes.
    Max(i64),
}

impl Limit {
    /// Kafka's reading of a `long` limit: negative → none.
    pub fn from_kafka(n: i64) -> Limit {
        if n < 0 {
            Limit::Unlimited
        } else {
            Limit::Max(n)
        }
    }

    /// The limit, `None` when unlimited.
    pub fn max(self) -> Option<i64> {
        match self {
            Limit::Unlimited => None,
            Limit::Max(n) => Some(n),
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::Unlimited => f.write_str("-1"),
            Limit::Max(n) => write!(f, "{n}"),
        }
    }
}

/// A tiered-storage local retention limit (`local.retention.ms`, `local.retention.bytes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LocalLimit {
    /// `-2`: the total limit (`retention.ms` / `retention.bytes`) applies locally too.
    SameAsTotal,
    /// `-1` (any negative but −2): no local limit.
    Unlimited,
    /// At most this many ms or bytes locally.
    Max(i64),
}

impl LocalLimit {
    /// Kafka's reading: −2 → the total, other negatives → none.
    pub fn from_kafka(n: i64) -> LocalLimit {
        match n {
            -2 => LocalLimit::SameAsTotal,
            n if n < 0 => LocalLimit::Unlimited,
            n => LocalLimit::Max(n),
        }
    }

    /// The local limit given the total one.
    pub fn effective(self, total: Limit) -> Limit {
        match self {
            LocalLimit::SameAsTotal => total,
            LocalLimit::Unlimited => Limit::Unlimited,
            LocalLimit::Max(n) => Limit::Max(n),
        }
    }
}

/// `message.timestamp.type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimestampType {
    /// `CreateTime`: the producer's timestamp.
    CreateTime,
    /// `LogAppendTime`: the broker's clock at append.
    LogAppendTime,
}

impl fmt::Display for TimestampType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TimestampType::CreateTime => "CreateTime",
            TimestampType::LogAppendTime => "LogAppendTime",
        })
    }
}

/// A topic's cleanup-relevant effective configuration, typed (Java `int` configs as `i32`,
/// `long` as `i64`).
#[derive(Debug, Clone, PartialEq)]
pub struct LogConfig {
    /// `cleanup.policy`.
    pub cleanup_policy: CleanupPolicy,
    /// `retention.ms`.
    pub retention_ms: Limit,
    /// `retention.bytes` (per partition replica).
    pub retention_bytes: Limit,
    /// `local.retention.ms`.
    pub local_retention_ms: LocalLimit,
    /// `local.retention.bytes`.
    pub local_retention_bytes: LocalLimit,
    /// `remote.storage.enable`.
    pub remote_storage_enable: bool,
    /// `remote.log.copy.disable` (decides whether the local limits apply).
    pub remote_log_copy_disable: bool,
    /// `segment.bytes`.
    pub segment_bytes: i32,
    /// `segment.ms`.
    pub segment_ms: i64,
    /// `segment.jitter.ms`.
    pub segment_jitter_ms: i64,
    /// `segment.index.bytes`.
    pub segment_index_bytes: i32,
    /// `index.interval.bytes`.
    pub index_interval_bytes: i32,
    /// `preallocate`.
    pub preallocate: bool,
    /// `min.cleanable.dirty.ratio`.
    pub min_cleanable_dirty_ratio: f64,
    /// `min.compaction.lag.ms`.
    pub min_compaction_lag_ms: i64,
    /// `max.compaction.lag.ms`.
    pub max_compaction_lag_ms: i64,
    /// `delete.retention.ms`.
    pub delete_retention_ms: i64,
    /// `file.delete.delay.ms`.
    pub file_delete_delay_ms: i64,
    /// `message.timestamp.type`.
    pub message_timestamp_type: TimestampType,
    /// `message.timestamp.before.max.ms`.
    pub message_timestamp_before_max_ms: i64,
    /// `message.timestamp.after.max.ms`.
    pub message_timestamp_after_max_ms: i64,
    /// `max.message.bytes`.
    pub max_message_bytes: i32,
}

impl Default for LogConfig {
    /// Kafka 4.4.0's defaults (what a topic gets with nothing set anywhere).
    fn default() -> Self {
        LogConfig {
            cleanup_policy: CleanupPolicy::DELETE,
            retention_ms: Limit::Max(604_800_000),
            retention_bytes: Limit::Unlimited,
            local_retention_ms: LocalLimit::SameAsTotal,
            local_retention_bytes: LocalLimit::SameAsTotal,
            remote_storage_enable: false,
            remote_log_copy_disable: false,
            segment_bytes: 1_073_741_824,
            segment_ms: 604_800_000,
            segment_jitter_ms: 0,
            segment_index_bytes: 10_485_760,
            index_interval_bytes: 4096,
            preallocate: false,
            min_cleanable_dirty_ratio: 0.5,
            min_compaction_lag_ms: 0,
            max_compaction_lag_ms: i64::MAX,
            delete_retention_ms: 86_400_000,
            file_delete_delay_ms: 60_000,
            message_timestamp_type: TimestampType::CreateTime,
            message_timestamp_before_max_ms: i64::MAX,
            message_timestamp_after_max_ms: 3_600_000,
            max_message_bytes: 1_048_588,
        }
    }
}

/// Parse and validate a resolved value as `ty` with `validator`; `None` if it does not pass.
fn typed(v: Option<&ResolvedValue>, ty: ConfigType, validator: Validator) -> Option<Typed> {
    let parsed = value::parse(ty, &v?.value).ok()?;
    value::validate(validator, &parsed).ok()?;
    Some(parsed)
}

/// Typed reads of a resolved map, each key checked against its definition.
struct Reader<'a> {
    values: &'a BTreeMap<String, ResolvedValue>,
    def: fn(&str) -> Option<(ConfigType, Validator)>,
}

impl Reader<'_> {
    fn get(&self, key: &str) -> Option<Typed> {
        let (ty, validator) = (self.def)(key)?;
        typed(self.values.get(key), ty, validator)
    }

    fn int(&self, key: &str) -> Option<i64> {
        match self.get(key)? {
            Typed::Integer(n) => Some(n),
            _ => None,
        }
    }

    fn long(&self, key: &str, default: i64) -> i64 {
        self.int(key).unwrap_or(default)
    }

    fn int32(&self, key: &str, default: i32) -> i32 {
        self.int(key)
            .and_then(|n| i32::try_from(n).ok())
            .unwrap_or(default)
    }

    fn double(&self, key: &str, default: f64) -> f64 {
        match self.get(key) {
            Some(Typed::Double(d)) => d,
            _ => default,
        }
    }

    fn boolean(&self, key: &str, default: bool) -> bool {
        match self.get(key) {
            Some(Typed::Boolean(b)) => b,
            _ => default,
        }
    }

    fn text(&self, key: &str) -> Option<String> {
        match self.get(key)? {
            Typed::Text(s) => Some(s),
            _ => None,
        }
    }

    fn list(&self, key: &str) -> Option<Vec<String>> {
        match self.get(key)? {
            Typed::List(l) => Some(l),
            _ => None,
        }
    }
}

fn topic_def(key: &str) -> Option<(ConfigType, Validator)> {
    defaults::topic_config(key).map(|d| (d.config_type, d.validator))
}

fn broker_def(key: &str) -> Option<(ConfigType, Validator)> {
    defaults::broker_config(key).map(|d| (d.config_type, d.validator))
}

impl LogConfig {
    /// The typed config of resolved topic values (`EffectiveConfig::values`).
    pub fn from_values(values: &BTreeMap<String, ResolvedValue>) -> LogConfig {
        let d = LogConfig::default();
        let r = Reader {
            values,
            def: topic_def,
        };
        LogConfig {
            cleanup_policy: r
                .list("cleanup.policy")
                .map_or(d.cleanup_policy, |l| CleanupPolicy::from_list(&l)),
            retention_ms: r
                .int("retention.ms")
                .map_or(d.retention_ms, Limit::from_kafka),
            retention_bytes: r
                .int("retention.bytes")
                .map_or(d.retention_bytes, Limit::from_kafka),
            local_retention_ms: r
                .int("local.retention.ms")
                .map_or(d.local_retention_ms, LocalLimit::from_kafka),
            local_retention_bytes: r
                .int("local.retention.bytes")
                .map_or(d.local_retention_bytes, LocalLimit::from_kafka),
            remote_storage_enable: r.boolean("remote.storage.enable", d.remote_storage_enable),
            remote_log_copy_disable: r
                .boolean("remote.log.copy.disable", d.remote_log_copy_disable),
            segment_bytes: r.int32("segment.bytes", d.segment_bytes),
            segment_ms: r.long("segment.ms", d.segment_ms),
            segment_jitter_ms: r.long("segment.jitter.ms", d.segment_jitter_ms),
            segment_index_bytes: r.int32("segment.index.bytes", d.segment_index_bytes),
            index_interval_bytes: r.int32("index.interval.bytes", d.index_interval_bytes),
            preallocate: r.boolean("preallocate", d.preallocate),
            min_cleanable_dirty_ratio: r
                .double("min.cleanable.dirty.ratio", d.min_cleanable_dirty_ratio),
            min_compaction_lag_ms: r.long("min.compaction.lag.ms", d.min_compaction_lag_ms),
            max_compaction_lag_ms: r.long("max.compaction.lag.ms", d.max_compaction_lag_ms),
            delete_retention_ms: r.long("delete.retention.ms", d.delete_retention_ms),
            file_delete_delay_ms: r.long("file.delete.delay.ms", d.file_delete_delay_ms),
            message_timestamp_type: match r.text("message.timestamp.type").as_deref() {
                Some("LogAppendTime") => TimestampType::LogAppendTime,
                Some("CreateTime") => TimestampType::CreateTime,
                _ => d.message_timestamp_type,
            },
            message_timestamp_before_max_ms: r.long(
                "message.timestamp.before.max.ms",
                d.message_timestamp_before_max_ms,
            ),
            message_timestamp_after_max_ms: r.long(
                "message.timestamp.after.max.ms",
                d.message_timestamp_after_max_ms,
            ),
            max_message_bytes: r.int32("max.message.bytes", d.max_message_bytes),
        }
    }

    /// The typed config of a resolved topic.
    pub fn from_effective(eff: &EffectiveConfig) -> LogConfig {
        LogConfig::from_values(&eff.values)
    }
}

/// The broker-only configs that decide when and how cleanup runs, typed.
#[derive(Debug, Clone, PartialEq)]
pub struct BrokerCleanupConfig {
    /// The log dirs: `log.dirs` if set, else `log.dir` (`KafkaConfig.logDirs`).
    pub log_dirs: Vec<String>,
    /// `metadata.log.dir` (`None`: the first log dir holds the metadata log).
    pub metadata_log_dir: Option<String>,
    /// `log.retention.check.interval.ms`.
    pub log_retention_check_interval_ms: i64,
    /// `log.initial.task.delay.ms`.
    pub log_initial_task_delay_ms: i64,
    /// `log.cleaner.enable`.
    pub log_cleaner_enable: bool,
    /// `log.cleaner.threads`.
    pub log_cleaner_threads: i32,
    /// `log.cleaner.backoff.ms`.
    pub log_cleaner_backoff_ms: i64,
    /// `log.cleaner.dedupe.buffer.size` (total over the threads).
    pub log_cleaner_dedupe_buffer_size: i64,
    /// `log.cleaner.io.buffer.load.factor`.
    pub log_cleaner_io_buffer_load_factor: f64,
    /// `log.cleaner.io.buffer.size` (total over the threads).
    pub log_cleaner_io_buffer_size: i32,
    /// `log.cleaner.io.max.bytes.per.second`.
    pub log_cleaner_io_max_bytes_per_second: f64,
    /// `num.recovery.threads.per.data.dir`.
    pub num_recovery_threads_per_data_dir: i32,
    /// `offsets.retention.minutes`.
    pub offsets_retention_minutes: i32,
    /// `offsets.retention.check.interval.ms`.
    pub offsets_retention_check_interval_ms: i64,
    /// `offsets.topic.num.partitions`.
    pub offsets_topic_num_partitions: i32,
    /// `offsets.topic.segment.bytes`.
    pub offsets_topic_segment_bytes: i32,
    /// `transaction.max.timeout.ms`.
    pub transaction_max_timeout_ms: i32,
    /// `producer.id.expiration.ms`.
    pub producer_id_expiration_ms: i32,
}

impl Default for BrokerCleanupConfig {
    /// Kafka 4.4.0's defaults.
    fn default() -> Self {
        BrokerCleanupConfig {
            log_dirs: vec!["/tmp/kafka-logs".to_string()],
            metadata_log_dir: None,
            log_retention_check_interval_ms: 300_000,
            log_initial_task_delay_ms: 30_000,
            log_cleaner_enable: true,
            log_cleaner_threads: 1,
            log_cleaner_backoff_ms: 15_000,
            log_cleaner_dedupe_buffer_size: 134_217_728,
            log_cleaner_io_buffer_load_factor: 0.9,
            log_cleaner_io_buffer_size: 524_288,
            log_cleaner_io_max_bytes_per_second: f64::MAX,
            num_recovery_threads_per_data_dir: 2,
            offsets_retention_minutes: 10_080,
            offsets_retention_check_interval_ms: 600_000,
            offsets_topic_num_partitions: 50,
            offsets_topic_segment_bytes: 104_857_600,
            transaction_max_timeout_ms: 900_000,
            producer_id_expiration_ms: 86_400_000,
        }
    }
}

impl BrokerCleanupConfig {
    /// The typed config of resolved broker values (`BrokerEffectiveConfig::values`).
    pub fn from_values(values: &BTreeMap<String, ResolvedValue>) -> BrokerCleanupConfig {
        let d = BrokerCleanupConfig::default();
        let r = Reader {
            values,
            def: broker_def,
        };
        BrokerCleanupConfig {
            log_dirs: r
                .list("log.dirs")
                .or_else(|| r.list("log.dir"))
                .unwrap_or(d.log_dirs),
            metadata_log_dir: r.text("metadata.log.dir"),
            log_retention_check_interval_ms: r.long(
                "log.retention.check.interval.ms",
                d.log_retention_check_interval_ms,
            ),
            log_initial_task_delay_ms: r
                .long("log.initial.task.delay.ms", d.log_initial_task_delay_ms),
            log_cleaner_enable: r.boolean("log.cleaner.enable", d.log_cleaner_enable),
            log_cleaner_threads: r.int32("log.cleaner.threads", d.log_cleaner_threads),
            log_cleaner_backoff_ms: r.long("log.cleaner.backoff.ms", d.log_cleaner_backoff_ms),
            log_cleaner_dedupe_buffer_size: r.long(
                "log.cleaner.dedupe.buffer.size",
                d.log_cleaner_dedupe_buffer_size,
            ),
            log_cleaner_io_buffer_load_factor: r.double(
                "log.cleaner.io.buffer.load.factor",
                d.log_cleaner_io_buffer_load_factor,
            ),
            log_cleaner_io_buffer_size: r
                .int32("log.cleaner.io.buffer.size", d.log_cleaner_io_buffer_size),
            log_cleaner_io_max_bytes_per_second: r.double(
                "log.cleaner.io.max.bytes.per.second",
                d.log_cleaner_io_max_bytes_per_second,
            ),
            num_recovery_threads_per_data_dir: r.int32(
                "num.recovery.threads.per.data.dir",
                d.num_recovery_threads_per_data_dir,
            ),
            offsets_retention_minutes: r
                .int32("offsets.retention.minutes", d.offsets_retention_minutes),
            offsets_retention_check_interval_ms: r.long(
                "offsets.retention.check.interval.ms",
                d.offsets_retention_check_interval_ms,
            ),
            offsets_topic_num_partitions: r.int32(
                "offsets.topic.num.partitions",
                d.offsets_topic_num_partitions,
            ),
            offsets_topic_segment_bytes: r
                .int32("offsets.topic.segment.bytes", d.offsets_topic_segment_bytes),
            transaction_max_timeout_ms: r
                .int32("transaction.max.timeout.ms", d.transaction_max_timeout_ms),
            producer_id_expiration_ms: r
                .int32("producer.id.expiration.ms", d.producer_id_expiration_ms),
        }
    }

    /// The typed config of the resolved broker.
    pub fn from_effective(eff: &BrokerEffectiveConfig) -> BrokerCleanupConfig {
        BrokerCleanupConfig::from_values(&eff.values)
    }

    /// `offsets.retention.minutes` in ms.
    pub fn offsets_retention_ms(&self) -> i64 {
        i64::from(self.offsets_retention_minutes) * 60_000
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{resolve_broker, resolve_topic, ConfigSources};

    fn static_only(kv: &[(&str, &str)]) -> ConfigSources {
        ConfigSources {
            static_props: Some(
                kv.iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
            ..ConfigSources::default()
        }
    }

    #[test]
    fn defaults_equal_an_empty_resolution() {
        let s = ConfigSources::default();
        assert_eq!(
            LogConfig::from_effective(&resolve_topic(&s, "t")),
            LogConfig::default()
        );
        assert_eq!(
            BrokerCleanupConfig::from_effective(&resolve_broker(&s)),
            BrokerCleanupConfig::default()
        );
        // And an empty map (nothing parses) falls back to the same defaults.
        assert_eq!(
            LogConfig::from_values(&BTreeMap::new()),
            LogConfig::default()
        );
    }

    #[test]
    fn keys_are_topic_and_broker_configs() {
        for k in CLEANUP_TOPIC_KEYS {
            assert!(defaults::topic_config(k).is_some(), "{k}");
        }
        for k in CLEANUP_BROKER_KEYS {
            assert!(defaults::broker_config(k).is_some(), "{k}");
        }
    }

    #[test]
    fn typed_values() {
        let s = static_only(&[
            ("log.cleanup.policy", "compact, delete"),
            ("log.retention.hours", "-3"),
            ("log.retention.bytes", "-7"),
            ("log.local.retention.ms", "-1"),
            ("log.local.retention.bytes", "1000"),
            ("log.message.timestamp.type", "LogAppendTime"),
            ("log.cleaner.min.cleanable.ratio", "0.25"),
            ("log.roll.hours", "2"),
            ("log.cleaner.enable", "false"),
            ("log.dir", "/a,/b"),
            ("metadata.log.dir", "/m"),
            ("offsets.retention.minutes", "3"),
        ]);
        let c = LogConfig::from_effective(&resolve_topic(&s, "t"));
        assert_eq!(c.cleanup_policy, CleanupPolicy::COMPACT_DELETE);
        assert_eq!(c.cleanup_policy.to_string(), "compact,delete");
        assert_eq!(c.retention_ms, Limit::Unlimited);
        assert_eq!(c.retention_bytes, Limit::Unlimited);
        assert_eq!(c.local_retention_ms, LocalLimit::Unlimited);
        assert_eq!(c.local_retention_bytes, LocalLimit::Max(1000));
        assert_eq!(c.message_timestamp_type, TimestampType::LogAppendTime);
        assert_eq!(c.min_cleanable_dirty_ratio, 0.25);
        assert_eq!(c.segment_ms, 7_200_000);
        let b = BrokerCleanupConfig::from_effective(&resolve_broker(&s));
        assert!(!b.log_cleaner_enable);
        assert_eq!(b.log_dirs, ["/a", "/b"]);
        assert_eq!(b.metadata_log_dir.as_deref(), Some("/m"));
        assert_eq!(b.offsets_retention_ms(), 180_000);

        let tiered = static_only(&[("log.retention.bytes", "5000")]);
        let mut tiered = tiered;
        tiered
            .add_cli_overrides(["t:remote.storage.enable=true", "t:cleanup.policy="])
            .unwrap();
        let c = LogConfig::from_effective(&resolve_topic(&tiered, "t"));
        assert_eq!(
            c.cleanup_policy,
            CleanupPolicy {
                delete: false,
                compact: false
            }
        );
        assert!(c.remote_storage_enable);
        assert_eq!(c.local_retention_bytes, LocalLimit::SameAsTotal);
    }

    #[test]
    fn unparsable_values_fall_back_to_kafka_defaults() {
        let mut values = resolve_topic(&ConfigSources::default(), "t").values;
        for (k, v) in [
            ("segment.bytes", "12"),
            ("retention.ms", "soon"),
            ("message.timestamp.type", "Wallclock"),
            ("min.cleanable.dirty.ratio", "2.0"),
        ] {
            if let Some(r) = values.get_mut(k) {
                r.value = v.to_string();
            }
        }
        assert_eq!(LogConfig::from_values(&values), LogConfig::default());
    }
}
