//! The saved output of `kafka-configs.sh --describe [--all] --entity-type topics|brokers`, as
//! Kafka's `tools/.../ConfigCommand.java` (`describeResourceConfig`) prints it:
//!
//! ```text
//! All configs for topic orders are:
//!   retention.ms=21600000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=21600000, STATIC_BROKER_CONFIG:log.retention.hours=6, DEFAULT_CONFIG:log.retention.hours=168}
//! Dynamic configs for broker 1 are:
//!   log.retention.ms=172800000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.retention.ms=172800000}
//! Default configs for brokers in the cluster are:
//!   log.retention.ms=259200000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=259200000}
//! ```
//!
//! The header is `All` with `--all`, `Dynamic` without; the broker-default entity prints
//! `Default configs for brokers in the cluster are:`. Each entry line is two spaces,
//! `name=value`, ` sensitive=<bool>`, ` synonyms={SOURCE:name=value, ...}`; a sensitive or
//! null value prints as `null`.

use std::collections::BTreeMap;

use super::{ConfigError, KafkaSource};

/// What a section describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entity {
    /// `... configs for topic NAME are:`.
    Topic(String),
    /// `... configs for broker ID are:`.
    Broker(String),
    /// `Default configs for brokers in the cluster are:`.
    BrokerDefault,
    /// Another entity type (`broker-logger`, `group`, `client-metric`...), kept but unused.
    Other {
        /// Singular entity type as printed.
        kind: String,
        /// Entity name.
        name: String,
    },
}

/// One synonym of an entry: `SOURCE:name=value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DescribedSynonym {
    /// The level it was set at.
    pub source: KafkaSource,
    /// The key at that level (a broker key for a topic entry's broker synonyms).
    pub name: String,
    /// The value, `None` when printed as `null`.
    pub value: Option<String>,
}

/// One config line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DescribedConfig {
    /// The key.
    pub name: String,
    /// The value, `None` when printed as `null` (sensitive or unset).
    pub value: Option<String>,
    /// `sensitive=`.
    pub sensitive: bool,
    /// The synonyms, highest precedence first; the first one is the entry's source.
    pub synonyms: Vec<DescribedSynonym>,
    /// 1-based line number in the file.
    pub line: usize,
}

impl DescribedConfig {
    /// The entry's source: its first synonym's, or `DEFAULT_CONFIG` without synonyms (how
    /// `ConfigHelper` sets `configSource`).
    pub fn source(&self) -> KafkaSource {
        self.synonyms
            .first()
            .map_or(KafkaSource::DefaultConfig, |s| s.source)
    }
}

/// One `... configs for ... are:` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DescribedEntity {
    /// What it describes.
    pub entity: Entity,
    /// `All` (`--all`) rather than `Dynamic`.
    pub all: bool,
    /// Its entries, in file order.
    pub configs: Vec<DescribedConfig>,
}

/// A parsed describe file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DescribeFile {
    /// Sections in file order.
    pub entities: Vec<DescribedEntity>,
    /// Non-empty lines that were neither a header nor an entry (e.g. `The topic 'x' doesn't
    /// exist...`), with their line numbers.
    pub skipped: Vec<(usize, String)>,
}

/// Broker-level values a describe file reveals, per level.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BrokerLayers {
    /// `DYNAMIC_BROKER_CONFIG` values.
    pub dynamic_broker: BTreeMap<String, String>,
    /// `DYNAMIC_DEFAULT_BROKER_CONFIG` values.
    pub dynamic_cluster_default: BTreeMap<String, String>,
    /// `STATIC_BROKER_CONFIG` values.
    pub static_props: BTreeMap<String, String>,
}

impl DescribeFile {
    /// The section for `topic` (the last one if it appears more than once).
    pub fn topic(&self, topic: &str) -> Option<&DescribedEntity> {
        self.entities
            .iter()
            .rev()
            .find(|e| matches!(&e.entity, Entity::Topic(t) if t == topic))
    }

    /// Every topic named in the file.
    pub fn topics(&self) -> impl Iterator<Item = &str> {
        self.entities.iter().filter_map(|e| match &e.entity {
            Entity::Topic(t) => Some(t.as_str()),
            _ => None,
        })
    }

    /// Whether the file describes any broker (a node or the cluster default): then the
    /// dynamic broker levels were read from it.
    pub fn has_broker_entities(&self) -> bool {
        self.entities
            .iter()
            .any(|e| matches!(e.entity, Entity::Broker(_) | Entity::BrokerDefault))
    }

    /// The broker-level values found in the file for `broker_id` (`None`: any broker section),
    /// taken from every entry's synonyms: a topic entry's broker synonyms show the broker keys
    /// behind it, a broker entry's synonyms show every level. Sensitive (`null`) values are
    /// left out.
    pub fn broker_layers(&self, broker_id: Option<&str>) -> BrokerLayers {
        let mut out = BrokerLayers::default();
        for e in &self.entities {
            let use_broker_level = match &e.entity {
                Entity::Broker(id) => broker_id.is_none_or(|b| b == id),
                Entity::Topic(_) => true,
                Entity::BrokerDefault => false,
                Entity::Other { .. } => continue,
            };
            for c in &e.configs {
                for s in &c.synonyms {
                    let Some(v) = &s.value else { continue };
                    let map = match s.source {
                        KafkaSource::DynamicBrokerConfig if use_broker_level => {
                            &mut out.dynamic_broker
                        }
                        KafkaSource::DynamicDefaultBrokerConfig => &mut out.dynamic_cluster_default,
                        KafkaSource::StaticBrokerConfig if use_broker_level => {
                            &mut out.static_props
                        }
                        _ => continue,
                    };
                    map.entry(s.name.clone()).or_insert_with(|| v.clone());
                }
            }
        }
        out
    }
}

/// Parse a describe file. Fails on an entry line outside any section or one that does not
/// have the ` sensitive=` / ` synonyms={...}` shape, naming the line.
pub fn parse_describe_file(text: &str) -> Result<DescribeFile, ConfigError> {
    let mut out = DescribeFile::default();
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        if let Some(section) = parse_header(line) {
            out.entities.push(section);
            continue;
        }
        if line.starts_with(' ') && line.contains(" sensitive=") {
            let Some(section) = out.entities.last_mut() else {
                return Err(bad(
                    line_no,
                    "config entry before any `configs for ... are:` line",
                ));
            };
            section
                .configs
                .push(parse_entry(line.trim_start(), line_no)?);
            continue;
        }
        out.skipped.push((line_no, line.to_string()));
    }
    Ok(out)
}

fn bad(line: usize, reason: &str) -> ConfigError {
    ConfigError::DescribeFile {
        line,
        reason: reason.to_string(),
    }
}

fn parse_header(line: &str) -> Option<DescribedEntity> {
    if line == "Default configs for brokers in the cluster are:" {
        return Some(DescribedEntity {
            entity: Entity::BrokerDefault,
            all: true,
            configs: vec![],
        });
    }
    let (all, rest) = if let Some(r) = line.strip_prefix("All configs for ") {
        (true, r)
    } else {
        (false, line.strip_prefix("Dynamic configs for ")?)
    };
    let rest = rest.strip_suffix(" are:")?;
    let (kind, name) = rest.split_once(' ')?;
    let entity = match kind {
        "topic" => Entity::Topic(name.to_string()),
        "broker" => Entity::Broker(name.to_string()),
        _ => Entity::Other {
            kind: kind.to_string(),
            name: name.to_string(),
        },
    };
    Some(DescribedEntity {
        entity,
        all,
        configs: vec![],
    })
}

fn null_or(v: &str) -> Option<String> {
    (v != "null").then(|| v.to_string())
}

fn parse_entry(line: &str, line_no: usize) -> Result<DescribedConfig, ConfigError> {
    // `value` may itself contain spaces or `=`, so cut from the right: the synonyms part, then
    // the last ` sensitive=` before it.
    let syn_at = line
        .rfind(" synonyms={")
        .ok_or_else(|| bad(line_no, "missing ` synonyms={...}`"))?;
    let head = &line[..syn_at];
    let syn_body = line[syn_at + " synonyms={".len()..]
        .strip_suffix('}')
        .ok_or_else(|| bad(line_no, "synonyms list does not end with `}`"))?;
    let sens_at = head
        .rfind(" sensitive=")
        .ok_or_else(|| bad(line_no, "missing ` sensitive=`"))?;
    let sensitive = match &head[sens_at + " sensitive=".len()..] {
        "true" => true,
        "false" => false,
        _ => return Err(bad(line_no, "`sensitive=` is neither true nor false")),
    };
    let (name, value) = head[..sens_at]
        .split_once('=')
        .ok_or_else(|| bad(line_no, "missing `name=value`"))?;
    Ok(DescribedConfig {
        name: name.to_string(),
        value: null_or(value),
        sensitive,
        synonyms: parse_synonyms(syn_body, line_no)?,
        line: line_no,
    })
}

/// Split `SRC:name=value, SRC:name=value` at each `, ` that is followed by a source name and a
/// colon (a list value such as `compact, delete` cannot start with one).
fn parse_synonyms(body: &str, line_no: usize) -> Result<Vec<DescribedSynonym>, ConfigError> {
    let mut out = Vec::new();
    if body.is_empty() {
        return Ok(out);
    }
    let mut starts = vec![0usize];
    for (at, _) in body.match_indices(", ") {
        let after = &body[at + 2..];
        if after
            .split_once(':')
            .is_some_and(|(src, _)| KafkaSource::from_name(src).is_some())
        {
            starts.push(at + 2);
        }
    }
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).map_or(body.len(), |&n| n - 2);
        let item = &body[start..end];
        let (src, rest) = item
            .split_once(':')
            .ok_or_else(|| bad(line_no, "synonym without `SOURCE:`"))?;
        let source = KafkaSource::from_name(src)
            .ok_or_else(|| bad(line_no, &format!("unknown config source `{src}`")))?;
        let (name, value) = rest
            .split_once('=')
            .ok_or_else(|| bad(line_no, "synonym without `name=value`"))?;
        out.push(DescribedSynonym {
            source,
            name: name.to_string(),
            value: null_or(value),
        });
    }
    Ok(out)
}
