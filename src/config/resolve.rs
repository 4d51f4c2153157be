//! The value a Kafka 4.4.0 broker uses for each topic config, and its source, from
//! [`ConfigSources`].
//!
//! Precedence (`ConfigHelper.describeConfigs` → `LogConfig.fromProps(config.extractLogConfigMap,
//! topicProps)`; `DynamicBrokerConfig` merges the broker levels key by key):
//!
//! 1. `--config` override ([`ConfigSource::Override`]), then a describe file's topic entry
//!    ([`ConfigSource::DescribeFile`]), then the topic override (`DYNAMIC_TOPIC_CONFIG`);
//! 2. else the broker value of the topic's synonyms: synonyms in Kafka's order (outer loop),
//!    levels dynamic-per-broker > dynamic-cluster-default > static (inner loop). The first
//!    synonym found at any level wins: a static `log.retention.ms` beats a dynamic
//!    `log.retention.hours` (which the broker ignores anyway: only the first synonym of each
//!    topic config is dynamically settable). Unit conversion: minutes × 60 000, hours ×
//!    3 600 000; for `retention.ms` any negative broker value becomes −1
//!    (`KafkaConfig.logRetentionTimeMillis`).
//! 3. else the default of the last synonym (`log.retention.hours=168` → 604800000), or the
//!    topic config's own default when it has no synonym (`DEFAULT_CONFIG`).
//!
//! A value failing its type or validator is skipped with a [`ConfigError`] recorded, and the
//! next candidate is used (the broker drops an invalid dynamic value the same way).
//!
//! [`ResolvedValue::reported_source`] reproduces what `describeConfigs` reports, including its
//! quirk: the broker-level synonym list is built level by level and then everything before the
//! first entry named like the *first* synonym is dropped (`configSynonyms`' `dropWhile`), so a
//! `retention.ms` that comes from `log.retention.hours` or `.minutes` (static) is reported as
//! `DEFAULT_CONFIG`, though its value is the converted broker value.

use std::collections::{BTreeMap, BTreeSet};

use super::defaults::{self, BrokerConfigDef, ConfigType, Synonym, TopicConfigDef, Validator};
use super::internal_topics::{self, CreationValue};
use super::removed::RemovedConfig;
use super::sources::{ConfigMap, ConfigSources};
use super::value::{self, Typed};
use super::versioned;
use super::{ConfigError, ConfigSource};

/// One resolved config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedValue {
    /// The value, rendered as Kafka renders it in `describeConfigs`.
    pub value: String,
    /// Where it came from.
    pub source: ConfigSource,
    /// The broker key whose value was used (with unit conversion), for a broker-level source
    /// or a synonym default; `None` for a topic-level value or a synonym-less default.
    pub synonym_key_used: Option<String>,
    /// The source `describeConfigs` would report (see the module docs for where it differs).
    pub reported_source: ConfigSource,
}

impl ResolvedValue {
    /// The value as a Java `long` / `int`.
    pub fn as_i64(&self) -> Option<i64> {
        self.value.parse().ok()
    }

    /// The value as a Java `double`.
    pub fn as_f64(&self) -> Option<f64> {
        self.value.parse().ok()
    }

    /// The value as a boolean.
    pub fn as_bool(&self) -> Option<bool> {
        self.value.parse().ok()
    }

    /// The value as a list (empty for an empty value).
    pub fn as_list(&self) -> Vec<&str> {
        if self.value.is_empty() {
            Vec::new()
        } else {
            self.value.split(',').collect()
        }
    }
}

/// A topic's effective configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EffectiveConfig {
    /// The topic.
    pub topic: String,
    /// Every Kafka 4.4.0 topic config, by key.
    pub values: BTreeMap<String, ResolvedValue>,
    /// Problems met on the way (bad values skipped, ignored keys).
    pub problems: Vec<ConfigError>,
}

impl EffectiveConfig {
    /// The resolved `key`.
    pub fn get(&self, key: &str) -> Option<&ResolvedValue> {
        self.values.get(key)
    }

    /// The resolved `key` as an integer.
    pub fn get_i64(&self, key: &str) -> Option<i64> {
        self.get(key).and_then(ResolvedValue::as_i64)
    }
}

/// The broker-only configs' effective values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerEffectiveConfig {
    /// Each broker-only config with a value (`log.dirs` and `metadata.log.dir` are absent when
    /// unset, their default being null).
    pub values: BTreeMap<String, ResolvedValue>,
    /// Problems met on the way.
    pub problems: Vec<ConfigError>,
}

impl BrokerEffectiveConfig {
    /// The resolved `key`.
    pub fn get(&self, key: &str) -> Option<&ResolvedValue> {
        self.values.get(key)
    }

    /// The log dirs the broker uses: `log.dirs` if set, else `log.dir` (`KafkaConfig.logDirs`).
    pub fn log_dirs(&self) -> Vec<String> {
        self.get("log.dirs")
            .or_else(|| self.get("log.dir"))
            .map(|v| v.as_list().into_iter().map(str::to_string).collect())
            .unwrap_or_default()
    }
}

/// The broker levels, highest precedence first.
fn broker_levels(sources: &ConfigSources) -> [(ConfigSource, Option<&ConfigMap>); 3] {
    [
        (
            ConfigSource::DynamicBrokerConfig,
            Some(&sources.dynamic_broker),
        ),
        (
            ConfigSource::DynamicDefaultBrokerConfig,
            Some(&sources.dynamic_cluster_default),
        ),
        (
            ConfigSource::StaticBrokerConfig,
            sources.static_props.as_ref(),
        ),
    ]
}

fn is_dynamic(level: ConfigSource) -> bool {
    matches!(
        level,
        ConfigSource::DynamicBrokerConfig | ConfigSource::DynamicDefaultBrokerConfig
    )
}

/// A topic-level value: parse and validate as the topic config.
fn topic_level(
    def: &TopicConfigDef,
    raw: &str,
    level: ConfigSource,
) -> Result<String, ConfigError> {
    checked_value(def.name, def.config_type, def.validator, raw, level)
}

/// Parse `raw` as `ty`, validate it, and render it as Kafka does; an error names key, value and
/// level.
fn checked_value(
    key: &str,
    ty: ConfigType,
    validator: Validator,
    raw: &str,
    level: ConfigSource,
) -> Result<String, ConfigError> {
    value::parse(ty, raw)
        .and_then(|v| value::validate(validator, &v).map(|()| value::render(&v)))
        .map_err(|reason| ConfigError::InvalidValue {
            key: key.into(),
            value: raw.into(),
            level,
            reason,
        })
}

/// A broker synonym's value converted into the topic config's value.
fn broker_level(
    def: &TopicConfigDef,
    syn: &Synonym,
    raw: &str,
    level: ConfigSource,
) -> Result<String, ConfigError> {
    let invalid = |reason: String| ConfigError::InvalidValue {
        key: syn.name.into(),
        value: raw.into(),
        level,
        reason,
    };
    if is_dynamic(level) && !syn.dynamic {
        return Err(ConfigError::NotDynamic {
            key: syn.name.into(),
            value: raw.into(),
            level,
        });
    }
    let parsed = value::parse(syn.config_type, raw).map_err(invalid)?;
    value::validate(syn.validator, &parsed).map_err(invalid)?;
    let converted = match parsed {
        Typed::Integer(n) => {
            let ms = n
                .checked_mul(syn.unit.factor())
                .ok_or_else(|| invalid("value overflows a long after unit conversion".into()))?;
            // KafkaConfig.logRetentionTimeMillis: any negative broker retention means "no limit".
            Typed::Integer(if def.name == "retention.ms" && ms < 0 {
                -1
            } else {
                ms
            })
        }
        other => other,
    };
    value::validate(def.validator, &converted)
        .map_err(|r| invalid(format!("as `{}`: {r}", def.name)))?;
    Ok(value::render(&converted))
}

/// Kafka's default for a synonym (its default converted), for the last synonym only.
fn synonym_default(def: &TopicConfigDef) -> Option<(&'static Synonym, String)> {
    let syn = def.synonyms.last()?;
    let raw = syn.default?;
    broker_level(def, syn, raw, ConfigSource::DefaultConfig)
        .ok()
        .map(|v| (syn, v))
}

/// What `describeConfigs` reports for a topic config resolved at broker level or default:
/// synonyms present level by level, then `dropWhile(name != first synonym)`.
fn kafka_reported_broker_source(def: &TopicConfigDef, sources: &ConfigSources) -> ConfigSource {
    let Some(primary) = def.synonyms.first() else {
        return ConfigSource::DefaultConfig;
    };
    let mut list: Vec<(ConfigSource, &str)> = Vec::new();
    for (level, map) in broker_levels(sources) {
        let Some(map) = map else { continue };
        for syn in def.synonyms {
            if let Some(raw) = map.get(syn.name) {
                if broker_level(def, syn, raw, level).is_ok() {
                    list.push((level, syn.name));
                }
            }
        }
    }
    for syn in def.synonyms {
        if syn.default.is_some() {
            list.push((ConfigSource::DefaultConfig, syn.name));
        }
    }
    list.into_iter()
        .find(|(_, name)| *name == primary.name)
        .map_or(ConfigSource::DefaultConfig, |(level, _)| level)
}

fn resolve_key(
    def: &TopicConfigDef,
    topic: &str,
    sources: &ConfigSources,
    problems: &mut Vec<ConfigError>,
) -> ResolvedValue {
    // 1. Topic-level candidates.
    if let Some(v) = topic_level_value(def, topic, sources, problems) {
        return v;
    }
    // An internal topic whose overrides were not read: what its creator sets.
    if let Some(v) = internal_topic_value(def, topic, sources, problems) {
        return v;
    }
    // 2. Broker synonyms.
    let reported = kafka_reported_broker_source(def, sources);
    if let Some(v) = broker_synonym_value(def, sources, problems, reported) {
        return v;
    }
    // 3. Defaults.
    if let Some((syn, v)) = synonym_default(def) {
        return ResolvedValue {
            value: v,
            source: ConfigSource::DefaultConfig,
            synonym_key_used: Some(syn.name.into()),
            reported_source: reported,
        };
    }
    topic_value(
        def.default.into(),
        ConfigSource::DefaultConfig,
        ConfigSource::DefaultConfig,
    )
}

/// A value set under the topic's own key, by no synonym.
fn topic_value(value: String, source: ConfigSource, reported: ConfigSource) -> ResolvedValue {
    ResolvedValue {
        value,
        source,
        synonym_key_used: None,
        reported_source: reported,
    }
}

/// The first valid topic-level value of `def` for `topic`: `--config`, then the describe file,
/// then the topic's overrides. Each invalid one is added to `problems` and skipped.
fn topic_level_value(
    def: &TopicConfigDef,
    topic: &str,
    sources: &ConfigSources,
    problems: &mut Vec<ConfigError>,
) -> Option<ResolvedValue> {
    let cli = [topic, "*"]
        .into_iter()
        .find_map(|t| sources.cli_overrides.get(t).and_then(|m| m.get(def.name)));
    if let Some(raw) = cli {
        match topic_level(def, raw, ConfigSource::Override) {
            Ok(v) => {
                return Some(topic_value(
                    v,
                    ConfigSource::Override,
                    ConfigSource::Override,
                ))
            }
            Err(e) => problems.push(e),
        }
    }
    if let Some(v) = described_value(def, topic, sources, problems) {
        return Some(v);
    }
    if let Some(raw) = sources
        .topic_overrides
        .get(topic)
        .and_then(|m| m.get(def.name))
    {
        match topic_level(def, raw, ConfigSource::DynamicTopicConfig) {
            Ok(v) => {
                let s = ConfigSource::DynamicTopicConfig;
                return Some(topic_value(v, s, s));
            }
            Err(e) => problems.push(e),
        }
    }
    None
}

/// The value of `def` for `topic` in the describe file, with the source and synonym Kafka
/// reported for it; an invalid one is added to `problems`.
fn described_value(
    def: &TopicConfigDef,
    topic: &str,
    sources: &ConfigSources,
    problems: &mut Vec<ConfigError>,
) -> Option<ResolvedValue> {
    let entry = sources
        .describe_file
        .as_ref()
        .and_then(|f| f.topic(topic))
        .and_then(|e| e.configs.iter().rev().find(|c| c.name == def.name))
        // Another release's default is not this release's (`upgrade-check`).
        .filter(|c| {
            c.source() != super::KafkaSource::DefaultConfig
                || sources
                    .describe_file_release
                    .is_none_or(|r| r == sources.kafka_version)
        })?;
    let raw = entry.value.as_ref()?;
    match topic_level(def, raw, ConfigSource::DescribeFile) {
        Ok(v) => {
            let reported =
                ConfigSource::from_kafka(entry.source()).unwrap_or(ConfigSource::DescribeFile);
            let used = entry
                .synonyms
                .first()
                .filter(|s| s.name != def.name)
                .map(|s| s.name.clone());
            Some(ResolvedValue {
                value: v,
                source: ConfigSource::DescribeFile,
                synonym_key_used: used,
                reported_source: reported,
            })
        }
        Err(e) => {
            problems.push(e);
            None
        }
    }
}

/// The first valid broker-level value of one of `def`'s synonyms: synonym order outside, level
/// order inside. Invalid values are added to `problems` and skipped.
fn broker_synonym_value(
    def: &TopicConfigDef,
    sources: &ConfigSources,
    problems: &mut Vec<ConfigError>,
    reported: ConfigSource,
) -> Option<ResolvedValue> {
    for syn in def.synonyms {
        for (level, map) in broker_levels(sources) {
            let Some(raw) = map.and_then(|m| m.get(syn.name)) else {
                continue;
            };
            match broker_level(def, syn, raw, level) {
                Ok(v) => {
                    return Some(ResolvedValue {
                        value: v,
                        source: level,
                        synonym_key_used: Some(syn.name.into()),
                        reported_source: reported,
                    })
                }
                // Reported once per topic by `ignored_dynamic_keys`.
                Err(ConfigError::NotDynamic { .. }) => {}
                Err(e) => problems.push(e),
            }
        }
    }
    None
}

/// The value the creator of internal topic `topic` sets for `def`, when the topic's overrides
/// were not read ([`super::internal_topics`]); a broker-derived value is the broker key's
/// effective value.
fn internal_topic_value(
    def: &TopicConfigDef,
    topic: &str,
    sources: &ConfigSources,
    problems: &mut Vec<ConfigError>,
) -> Option<ResolvedValue> {
    if !sources.topic_overrides_unread(topic) {
        return None;
    }
    let created = internal_topics::creation_config(topic, def.name)?;
    let (raw, broker_key) = match created.value {
        CreationValue::Fixed(v) => (v.to_string(), None),
        CreationValue::Broker(key) => {
            let bdef = defaults::broker_config(key)?;
            let v = resolve_broker_key(bdef, sources, problems)
                .map(|r| r.value)
                .or_else(|| {
                    versioned::broker_default(bdef, sources.kafka_version).map(str::to_string)
                })?;
            (v, Some(key.to_string()))
        }
    };
    match topic_level(def, &raw, ConfigSource::InternalTopicCreation) {
        Ok(value) => Some(ResolvedValue {
            value,
            source: ConfigSource::InternalTopicCreation,
            synonym_key_used: broker_key,
            reported_source: ConfigSource::DynamicTopicConfig,
        }),
        Err(e) => {
            problems.push(e);
            None
        }
    }
}

/// Broker synonyms of topic configs that sit in a dynamic source but cannot be set
/// dynamically (`log.retention.hours`, `log.roll.hours`...): the broker ignores them.
fn ignored_dynamic_keys(sources: &ConfigSources) -> Vec<ConfigError> {
    let mut out = Vec::new();
    for (level, map) in broker_levels(sources).into_iter().take(2) {
        for (key, value) in map.into_iter().flatten() {
            if let Some((_, syn)) = defaults::synonym_of(key) {
                if !syn.dynamic {
                    out.push(ConfigError::NotDynamic {
                        key: key.clone(),
                        value: value.clone(),
                        level,
                    });
                }
            }
        }
    }
    out
}

/// Removed topic keys given for `topic` by `--config` (its own, or `*`, reported once for all
/// topics) and by topic overrides in a describe file.
fn removed_topic_keys(sources: &ConfigSources, topic: &str) -> Vec<ConfigError> {
    let removed_topic_config = |key: &str| removed_topic_config(key, sources);
    let mut out = Vec::new();
    for (t, for_topic) in [(topic, Some(topic)), ("*", None)] {
        for (key, value) in sources.cli_overrides.get(t).into_iter().flatten() {
            if let Some(removed) = removed_topic_config(key) {
                out.push(ConfigError::RemovedConfig {
                    key: key.clone(),
                    value: value.clone(),
                    level: ConfigSource::Override,
                    topic: for_topic.map(str::to_string),
                    removed,
                });
            }
        }
    }
    let described = sources.describe_file.as_ref().and_then(|f| f.topic(topic));
    for c in described.into_iter().flat_map(|e| &e.configs) {
        // Only the topic's own overrides: a 3.x `--describe --all` lists every removed key with
        // its broker or default value, which are reported once at broker level.
        if c.source() != crate::config::KafkaSource::DynamicTopicConfig {
            continue;
        }
        if let Some(removed) = removed_topic_config(&c.name) {
            out.push(ConfigError::RemovedConfig {
                key: c.name.clone(),
                value: c.value.clone().unwrap_or_default(),
                level: ConfigSource::DescribeFile,
                topic: Some(topic.into()),
                removed,
            });
        }
    }
    out
}

/// The topic-level key `key` if the release of `sources` no longer has it.
fn removed_topic_config(key: &str, sources: &ConfigSources) -> Option<&'static RemovedConfig> {
    versioned::removed_at(key, sources.kafka_version).filter(|r| r.topic_level)
}

/// The effective configuration of `topic`: every topic config of the release of `sources`
/// (Kafka 4.4.0's by default; [`versioned`]).
pub fn resolve_topic(sources: &ConfigSources, topic: &str) -> EffectiveConfig {
    let mut problems = Vec::new();
    let mut values = BTreeMap::new();
    let defs = versioned::topic_config_defs(sources.kafka_version);
    for def in &defs {
        values.insert(
            def.name.to_string(),
            resolve_key(def, topic, sources, &mut problems),
        );
    }
    problems.extend(ignored_dynamic_keys(sources));
    if let Some(over) = sources.topic_overrides.get(topic) {
        for (key, value) in over
            .iter()
            .filter(|(k, _)| defs.iter().all(|d| d.name != k.as_str()))
        {
            problems.push(match removed_topic_config(key, sources) {
                Some(removed) => ConfigError::RemovedConfig {
                    key: key.clone(),
                    value: value.clone(),
                    level: ConfigSource::DynamicTopicConfig,
                    topic: Some(topic.into()),
                    removed,
                },
                None => ConfigError::UnknownTopicConfig {
                    topic: topic.into(),
                    key: key.clone(),
                    level: ConfigSource::DynamicTopicConfig,
                },
            });
        }
    }
    problems.extend(removed_topic_keys(sources, topic));
    EffectiveConfig {
        topic: topic.into(),
        values,
        problems,
    }
}

/// The effective configuration of every topic the sources name (topic overrides, `--config`
/// other than `*`, describe-file topic sections). Topics known only from the log dirs need
/// [`resolve_topic`].
pub fn resolve_all(sources: &ConfigSources) -> BTreeMap<String, EffectiveConfig> {
    let mut topics: BTreeSet<&str> = sources.topic_overrides.keys().map(String::as_str).collect();
    topics.extend(
        sources
            .cli_overrides
            .keys()
            .map(String::as_str)
            .filter(|t| *t != "*"),
    );
    if let Some(f) = &sources.describe_file {
        topics.extend(f.topics());
    }
    topics
        .into_iter()
        .map(|t| (t.to_string(), resolve_topic(sources, t)))
        .collect()
}

fn resolve_broker_key(
    def: &BrokerConfigDef,
    sources: &ConfigSources,
    problems: &mut Vec<ConfigError>,
) -> Option<ResolvedValue> {
    let check = |raw: &str, level: ConfigSource| {
        checked_value(def.name, def.config_type, def.validator, raw, level)
    };
    for (level, map) in broker_levels(sources) {
        let Some(raw) = map.and_then(|m| m.get(def.name)) else {
            continue;
        };
        if is_dynamic(level) && !def.dynamic {
            problems.push(ConfigError::NotDynamic {
                key: def.name.into(),
                value: raw.clone(),
                level,
            });
            continue;
        }
        match check(raw, level) {
            Ok(v) => {
                return Some(ResolvedValue {
                    value: v,
                    source: level,
                    synonym_key_used: None,
                    reported_source: level,
                })
            }
            Err(e) => problems.push(e),
        }
    }
    versioned::broker_default(def, sources.kafka_version).map(|d| ResolvedValue {
        value: d.into(),
        source: ConfigSource::DefaultConfig,
        synonym_key_used: None,
        reported_source: ConfigSource::DefaultConfig,
    })
}

/// The effective broker-only configs (spec §E2) of the broker the sources describe.
pub fn resolve_broker(sources: &ConfigSources) -> BrokerEffectiveConfig {
    let mut problems = Vec::new();
    let values = defaults::BROKER_CONFIGS
        .iter()
        .filter_map(|d| {
            resolve_broker_key(d, sources, &mut problems).map(|v| (d.name.to_string(), v))
        })
        .collect();
    for (level, map) in broker_levels(sources) {
        for (key, value) in map.into_iter().flatten() {
            if let Some(removed) =
                versioned::removed_at(key, sources.kafka_version).filter(|r| !r.topic_level)
            {
                problems.push(ConfigError::RemovedConfig {
                    key: key.clone(),
                    value: value.clone(),
                    level,
                    topic: None,
                    removed,
                });
            }
        }
    }
    BrokerEffectiveConfig { values, problems }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(kv: &[(&str, &str)]) -> ConfigMap {
        kv.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn empty_sources_give_defaults() {
        let e = resolve_topic(&ConfigSources::default(), "t");
        assert_eq!(e.values.len(), defaults::TOPIC_CONFIGS.len());
        let r = e.get("retention.ms").unwrap();
        assert_eq!(r.value, "604800000");
        assert_eq!(r.source, ConfigSource::DefaultConfig);
        assert_eq!(r.synonym_key_used.as_deref(), Some("log.retention.hours"));
        assert!(e.problems.is_empty());
    }

    #[test]
    fn broker_log_dirs() {
        let mut s = ConfigSources::default();
        assert_eq!(
            resolve_broker(&s).log_dirs(),
            vec!["/tmp/kafka-logs".to_string()]
        );
        s.static_props = Some(map(&[("log.dirs", "a, b")]));
        assert_eq!(
            resolve_broker(&s).log_dirs(),
            vec!["a".to_string(), "b".to_string()]
        );
    }
}
