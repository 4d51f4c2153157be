//! The inputs of config resolution, as plain maps: server.properties, the dynamic broker
//! configs and topic overrides from the KRaft metadata (filled by the caller, e.g. from
//! `model::metadata_log`, through [`from_metadata_maps`]), `--config TOPIC:KEY=VALUE`
//! overrides, and a parsed describe file.

use std::collections::BTreeMap;

use super::describe_file::DescribeFile;
use super::provenance::{UnreadLevel, UnreadSource};
use super::ConfigError;
use crate::formats::meta_properties::parse_properties;

/// A `key → value` map.
pub type ConfigMap = BTreeMap<String, String>;

/// Everything resolution reads. Kafka's built-in defaults are the tables in
/// [`super::defaults`] and need no field.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConfigSources {
    /// server.properties (`None`: not available; then static values count as unset).
    pub static_props: Option<ConfigMap>,
    /// Dynamic cluster-wide default broker config (BROKER resource `""`).
    pub dynamic_cluster_default: ConfigMap,
    /// Dynamic config of the broker whose view is computed (BROKER resource `<id>`).
    pub dynamic_broker: ConfigMap,
    /// Topic overrides (`DYNAMIC_TOPIC_CONFIG`), topic → key → value.
    pub topic_overrides: BTreeMap<String, ConfigMap>,
    /// `--config` overrides, topic → key → value (topic `*`: every topic).
    pub cli_overrides: BTreeMap<String, ConfigMap>,
    /// A parsed `kafka-configs.sh --describe` output.
    pub describe_file: Option<DescribeFile>,
    /// The levels the caller could not read, for every topic
    /// ([`super::provenance`]); while topic overrides are unread, an internal topic takes the
    /// configs its creator sets ([`super::internal_topics`]).
    pub unread: Vec<UnreadSource>,
    /// The release whose config tables apply (its keys, defaults and validators,
    /// [`super::versioned`]); Kafka 4.4 by default.
    pub kafka_version: crate::model::kafka_version::KafkaVersion,
    /// The release whose broker printed `describe_file`, when known: its `DEFAULT_CONFIG`
    /// entries are that release's defaults, and under another `kafka_version` resolution uses
    /// that release's own default instead (`upgrade-check`).
    pub describe_file_release: Option<crate::model::kafka_version::KafkaVersion>,
}

impl ConfigSources {
    /// Add `--config` arguments (each `TOPIC:KEY=VALUE`), each checked by
    /// [`parse_config_override`]; the same topic and key given twice with different values is
    /// refused (which one was meant?).
    pub fn add_cli_overrides<'a>(
        &mut self,
        args: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), ConfigError> {
        for arg in args {
            let (topic, key, value) = parse_config_override(arg)?;
            let keys = self.cli_overrides.entry(topic).or_default();
            if let Some(earlier) = keys.get(&key).filter(|v| v.trim() != value.trim()) {
                return Err(ConfigError::BadOverride {
                    arg: arg.into(),
                    reason: format!(
                        "`{key}` is already given as `{}` for this topic",
                        earlier.trim()
                    ),
                });
            }
            keys.insert(key, value);
        }
        Ok(())
    }

    /// Whether `topic`'s own overrides are unread: a level-wide [`UnreadLevel::TopicOverrides`]
    /// that no describe-file entry for the topic makes up for.
    pub fn topic_overrides_unread(&self, topic: &str) -> bool {
        self.unread
            .iter()
            .any(|u| u.level == UnreadLevel::TopicOverrides)
            && self
                .describe_file
                .as_ref()
                .and_then(|f| f.topic(topic))
                .is_none()
    }

    /// Fill the broker levels (dynamic per broker, dynamic default, static) from the describe
    /// file where the maps lack a key; values already present (from the files) win.
    pub fn merge_describe_broker_layers(&mut self, broker_id: Option<&str>) {
        let Some(file) = &self.describe_file else {
            return;
        };
        let layers = file.broker_layers(broker_id);
        for (k, v) in layers.dynamic_broker {
            self.dynamic_broker.entry(k).or_insert(v);
        }
        for (k, v) in layers.dynamic_cluster_default {
            self.dynamic_cluster_default.entry(k).or_insert(v);
        }
        if !layers.static_props.is_empty() {
            let s = self.static_props.get_or_insert_with(BTreeMap::new);
            for (k, v) in layers.static_props {
                s.entry(k).or_insert(v);
            }
        }
    }
}

/// Sources from the KRaft metadata image's maps: `topic_configs` (topic → overrides) and
/// `broker_configs` (`""` → cluster default, `"<id>"` → that node), keeping the dynamic config
/// of `broker_id` only. Static props, overrides and describe file are left empty.
pub fn from_metadata_maps(
    topic_configs: &BTreeMap<String, BTreeMap<String, String>>,
    broker_configs: &BTreeMap<String, BTreeMap<String, String>>,
    broker_id: Option<i32>,
) -> ConfigSources {
    ConfigSources {
        topic_overrides: topic_configs.clone(),
        dynamic_cluster_default: broker_configs.get("").cloned().unwrap_or_default(),
        dynamic_broker: broker_id
            .and_then(|id| broker_configs.get(&id.to_string()).cloned())
            .unwrap_or_default(),
        ..ConfigSources::default()
    }
}

/// Parse server.properties (Java `Properties.load`; a duplicate key keeps its last value).
pub fn parse_server_properties(bytes: &[u8]) -> Result<ConfigMap, ConfigError> {
    let props = parse_properties(bytes).map_err(|e| ConfigError::Properties {
        reason: e.to_string(),
    })?;
    Ok(props.into_iter().map(|p| (p.key, p.value)).collect())
}

/// Parse one `--config TOPIC:KEY=VALUE` (the topic ends at the first `:`, which no topic name
/// contains; the key at the first `=`) and check key and value as Kafka 4.4.0 does
/// ([`super::validate::check_override`]: a topic config, of its type, passing its validator; a
/// key Kafka removed is refused with its replacement). Returns `(topic, key, value)`.
pub fn parse_config_override(arg: &str) -> Result<(String, String, String), ConfigError> {
    let err = |reason: &str| ConfigError::BadOverride {
        arg: arg.into(),
        reason: reason.into(),
    };
    let (topic, rest) = arg
        .split_once(':')
        .ok_or_else(|| err("expected TOPIC:KEY=VALUE"))?;
    let (key, value) = rest
        .split_once('=')
        .ok_or_else(|| err("expected TOPIC:KEY=VALUE"))?;
    let (topic, key) = (topic.trim(), key.trim());
    if topic.is_empty() {
        return Err(err("empty topic"));
    }
    if key.is_empty() {
        return Err(err("empty key"));
    }
    super::validate::check_override(key, value).map_err(|reason| err(&reason))?;
    Ok((topic.to_string(), key.to_string(), value.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn override_parsing() {
        assert_eq!(
            parse_config_override("orders:retention.ms=3600000").ok(),
            Some(("orders".into(), "retention.ms".into(), "3600000".into()))
        );
        assert_eq!(
            parse_config_override("t:cleanup.policy=compact,delete").ok(),
            Some(("t".into(), "cleanup.policy".into(), "compact,delete".into()))
        );
        assert!(parse_config_override("orders=retention.ms").is_err());
        assert!(parse_config_override(":retention.ms=1").is_err());
        assert!(parse_config_override("t:retention.hours=1").is_err());
        let e = parse_config_override("orders:retention.ms=7d").unwrap_err();
        assert_eq!(
            e.to_string(),
            "bad --config `orders:retention.ms=7d`: `7d` is not a long; 7 days is 604800000 \
             (`retention.ms` takes milliseconds)"
        );
        // A key Kafka 4.0 removed is a 3.x topic config: taken here, checked against the dir's
        // release later (`validate::validate_overrides`).
        assert!(parse_config_override("t:message.format.version=2.8").is_ok());
    }

    #[test]
    fn one_value_per_topic_and_key() {
        let mut s = ConfigSources::default();
        s.add_cli_overrides(["t:retention.ms=1", "t:retention.ms= 1", "*:retention.ms=2"])
            .unwrap();
        let e = s.add_cli_overrides(["t:retention.ms=3"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "bad --config `t:retention.ms=3`: `retention.ms` is already given as `1` for this topic"
        );
    }

    #[test]
    fn metadata_maps() {
        let mut b = BTreeMap::new();
        b.insert(
            "".to_string(),
            BTreeMap::from([("a".to_string(), "1".to_string())]),
        );
        b.insert(
            "1".to_string(),
            BTreeMap::from([("b".to_string(), "2".to_string())]),
        );
        b.insert(
            "2".to_string(),
            BTreeMap::from([("c".to_string(), "3".to_string())]),
        );
        let s = from_metadata_maps(&BTreeMap::new(), &b, Some(1));
        assert_eq!(
            s.dynamic_cluster_default.get("a").map(String::as_str),
            Some("1")
        );
        assert_eq!(s.dynamic_broker.len(), 1);
        assert_eq!(s.dynamic_broker.get("b").map(String::as_str), Some("2"));
    }

    #[test]
    fn server_properties() {
        let m = parse_server_properties(b"# c\nlog.retention.hours = 24\nlog.retention.hours=12\n")
            .unwrap();
        assert_eq!(m.get("log.retention.hours").map(String::as_str), Some("12"));
    }
}
