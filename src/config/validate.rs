//! `--config TOPIC:KEY=VALUE` checked the way a Kafka broker of the dirs' release (4.4.0 by
//! default; issue 22: a 3.x dir is checked against that release's topic configs, types and
//! validators, [`super::versioned`]) checks an `alterConfigs` of a topic, so that logclean never
//! plans or acts under a value the broker would refuse (issue 20).
//!
//! Kafka's checks, in its order (`LogConfig.validate(existing, props, configuredProps,
//! isRemoteLogStorageSystemEnabled)` in `storage/.../internals/log/LogConfig.java`, 4.4.0):
//!
//! 1. `validateNames`: the key is a topic config ([`check_override`]; a key Kafka 4.0 removed is
//!    not one either, so it is refused with its replacement).
//! 2. `ConfigDef.parse`: the value parses as the key's type and passes its validator
//!    ([`check_override`], with [`super::value`]). Kafka takes no units: `7d` is refused, with
//!    the number of milliseconds (or bytes) it most likely meant.
//! 3. `validateTopicLogConfigValues` on the topic's config after the change combined with the
//!    broker's ([`cross_check`] on the effective config):
//!    `validateValues` (min ≤ max compaction lag); with `remote.storage.enable=true`:
//!    `validateRemoteStorageOnlyIfSystemEnabled`, `validateRemoteStorageRequiresDeleteCleanupPolicy`,
//!    `validateRemoteStorageRetentionSize`, `validateRemoteStorageRetentionTime`,
//!    `validateRemoteCopyLagSize`, `validateRemoteCopyLagTime`,
//!    `validateRetentionConfigsWhenRemoteCopyDisabled`; else
//!    `validateTurningOffRemoteStorageWithDelete`.
//!
//! Besides Kafka's checks, a topic named in `--config` must exist in what logclean read
//! ([`validate_overrides`]): a typo would otherwise plan nothing and say so with exit 0.
//!
//! Values read from the broker's own sources are not checked here: the broker ignores an
//! invalid dynamic value, and resolution does the same ([`super::resolve`]).

use std::collections::BTreeSet;

use super::defaults::{self, ConfigType, TopicConfigDef};
use super::removed::removed_topic_config;
use super::resolve::{resolve_broker, resolve_topic, EffectiveConfig};
use super::sources::ConfigSources;
use super::value;
use super::versioned::{removed_at, topic_config_added_in, topic_config_def, topic_config_defs};
use super::ConfigError;
use crate::model::kafka_version::KafkaVersion;

/// Check one `--config` key and value while reading the arguments, before the dirs tell which
/// release wrote them: accepted when some modelled release (3.6 to 4.4) takes it, else refused
/// with the reason Kafka 4.4 gives. [`validate_overrides`] checks it again against the
/// release whose rules apply ([`check_override_at`]).
pub fn check_override(key: &str, raw: &str) -> Result<(), String> {
    let latest = check_override_at(key, raw, KafkaVersion::LATEST);
    if latest.is_err()
        && (KafkaVersion::SUPPORTED.iter()).any(|v| check_override_at(key, raw, *v).is_ok())
    {
        return Ok(());
    }
    latest
}

/// Check one `--config` key and value as a broker of release `version` checks them
/// (`validateNames` over that release's topic configs, then `ConfigDef.parse` with its types
/// and validators, [`super::versioned`]). The error is the reason, in words, naming the bad part.
pub fn check_override_at(key: &str, raw: &str, version: KafkaVersion) -> Result<(), String> {
    let Some(def) = topic_config_def(key, version) else {
        return Err(unknown_key(key, version));
    };
    let parsed = value::parse(def.config_type, raw).map_err(|_| not_a(&def, raw))?;
    value::validate(def.validator, &parsed)
        .map_err(|reason| format!("`{}` is not valid for `{key}`: {reason}", raw.trim()))
}

/// Why `key` is refused by a broker of release `version`, with what the user most likely meant.
fn unknown_key(key: &str, version: KafkaVersion) -> String {
    if let Some(r) = removed_at(key, version).or_else(|| removed_topic_config(key)) {
        return format!(
            "`{key}` was removed in Kafka {} and is not a topic config of a {}.x broker; {}",
            r.removed_in,
            version.major,
            r.advice()
        );
    }
    if let Some(added) = topic_config_added_in(key).filter(|a| !version.at_least(*a)) {
        return format!(
            "`{key}` is a topic config from Kafka {added} on; the Kafka {version} rules applied \
             here do not have it (a {version} broker refuses it)"
        );
    }
    if let Some((def, _)) = defaults::synonym_of(key) {
        return format!(
            "`{key}` is a broker config; the topic config it sets the default of is `{}`",
            def.name
        );
    }
    let defs = topic_config_defs(version);
    let names = defs.iter().map(|d| d.name);
    let release = if version == KafkaVersion::LATEST {
        "4.4.0".to_string()
    } else {
        version.to_string()
    };
    match closest_name(key, names) {
        Some(near) => {
            format!("`{key}` is not a Kafka {release} topic config; did you mean `{near}`?")
        }
        None => format!("`{key}` is not a Kafka {release} topic config"),
    }
}

/// A value that does not parse as `def`'s type, with the plain number a unit was likely meant
/// for (`7d` for a `.ms` key, `1GiB` for a `.bytes` key).
fn not_a(def: &TopicConfigDef, raw: &str) -> String {
    let t = raw.trim();
    let article = match def.config_type {
        ConfigType::Int => "an",
        _ => "a",
    };
    let mut msg = format!("`{t}` is not {article} {}", def.config_type.name());
    let integer = matches!(
        def.config_type,
        ConfigType::Long | ConfigType::Int | ConfigType::Short
    );
    if integer {
        if def.name.ends_with(".ms") {
            if let Some((n, unit, ms)) = duration_ms(t) {
                msg += &format!("; {n} {unit} is {ms} (`{}` takes milliseconds)", def.name);
            }
        } else if def.name.ends_with(".bytes") {
            if let Some((n, unit, bytes)) = size_bytes(t) {
                msg += &format!("; {n} {unit} is {bytes} (`{}` takes bytes)", def.name);
            }
        }
    }
    msg
}

/// Split `12h` into (12, "h").
fn number_and_unit(t: &str) -> Option<(u64, String)> {
    let split = t.find(|c: char| !c.is_ascii_digit())?;
    let (num, unit) = t.split_at(split);
    let n = num.parse().ok()?;
    Some((n, unit.trim().to_ascii_lowercase()))
}

/// `7d` → (7, "days", 604800000).
fn duration_ms(t: &str) -> Option<(u64, &'static str, u64)> {
    let (n, unit) = number_and_unit(t)?;
    let (name, factor) = match unit.as_str() {
        "ms" => ("ms", 1),
        "s" | "sec" | "secs" | "second" | "seconds" => ("seconds", 1_000),
        "m" | "min" | "mins" | "minute" | "minutes" => ("minutes", 60_000),
        "h" | "hr" | "hrs" | "hour" | "hours" => ("hours", 3_600_000),
        "d" | "day" | "days" => ("days", 86_400_000),
        "w" | "week" | "weeks" => ("weeks", 604_800_000),
        _ => return None,
    };
    Some((n, name, n.checked_mul(factor)?))
}

/// `1GiB` → (1, "GiB", 1073741824); `K`/`M`/`G`/`T` (with or without `B`) are powers of 1000,
/// as `plan --fail-if-deletes-more-than` reads them.
fn size_bytes(t: &str) -> Option<(u64, &'static str, u64)> {
    let (n, unit) = number_and_unit(t)?;
    let (name, factor): (&str, u64) = match unit.as_str() {
        "k" | "kb" => ("KB", 1_000),
        "m" | "mb" => ("MB", 1_000_000),
        "g" | "gb" => ("GB", 1_000_000_000),
        "t" | "tb" => ("TB", 1_000_000_000_000),
        "kib" => ("KiB", 1 << 10),
        "mib" => ("MiB", 1 << 20),
        "gib" => ("GiB", 1 << 30),
        "tib" => ("TiB", 1 << 40),
        _ => return None,
    };
    Some((n, name, n.checked_mul(factor)?))
}

/// The candidate closest to `name` by edit distance (a swap of two neighbours counts as one
/// edit), if it is close enough to be a typo: at most 2 edits, and fewer than a third of the name.
pub fn closest_name<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).clamp(1, 2);
    candidates
        .into_iter()
        .filter(|c| *c != name)
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, c)| c)
}

/// Optimal string alignment distance (Levenshtein plus adjacent transpositions), row by row.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    // Rows i-2 and i-1 of the (|a|+1) × (|b|+1) table.
    let mut prev2: Vec<usize> = Vec::new();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut last_a: Option<char> = None;
    for (i, ca) in a.chars().enumerate() {
        let mut cur = Vec::with_capacity(b.len() + 1);
        cur.push(i + 1);
        for (j, &cb) in b.iter().enumerate() {
            let at = |row: &[usize], k: usize| row.get(k).copied().unwrap_or(usize::MAX);
            let left = cur.last().copied().unwrap_or(usize::MAX);
            let mut d = at(&prev, j + 1)
                .saturating_add(1)
                .min(left.saturating_add(1))
                .min(at(&prev, j).saturating_add(usize::from(ca != cb)));
            let swapped = j > 0 && last_a == Some(cb) && b.get(j - 1) == Some(&ca);
            if swapped {
                d = d.min(at(&prev2, j - 1).saturating_add(1));
            }
            cur.push(d);
        }
        prev2 = std::mem::replace(&mut prev, cur);
        last_a = Some(ca);
    }
    prev.last().copied().unwrap_or(0)
}

/// What [`cross_check`] needs besides the topic's effective config.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CrossCheckContext {
    /// The broker's `remote.log.storage.system.enable`, when known (`None`: no
    /// server.properties or describe file said, so `validateRemoteStorageOnlyIfSystemEnabled`
    /// is not applied rather than guessed).
    pub remote_storage_system_enabled: Option<bool>,
    /// The topic's `remote.storage.enable` before the change (Kafka's `existingConfigs`).
    pub was_remote_storage_enabled: bool,
}

/// Kafka 4.4.0's `LogConfig.validateTopicLogConfigValues` on a topic's effective config (the
/// override combined with every other source). The error names the values and their sources.
pub fn cross_check(eff: &EffectiveConfig, ctx: CrossCheckContext) -> Result<(), String> {
    let v = Values(eff);
    // validateValues
    let (min_lag, max_lag) = (
        v.long("min.compaction.lag.ms"),
        v.long("max.compaction.lag.ms"),
    );
    if min_lag > max_lag {
        return Err(format!(
            "{} is more than {}: Kafka refuses it (\"conflict topic config setting \
             min.compaction.lag.ms ({min_lag}) > max.compaction.lag.ms ({max_lag})\")",
            v.shown("min.compaction.lag.ms"),
            v.shown("max.compaction.lag.ms"),
        ));
    }
    let remote = v.flag("remote.storage.enable");
    if !remote {
        // validateTurningOffRemoteStorageWithDelete
        if ctx.was_remote_storage_enabled && !v.flag("remote.log.delete.on.disable") {
            return Err(format!(
                "{} turns tiered storage off without {}: Kafka refuses to disable remote storage \
                 without deleting remote data (keep it read-only with \
                 `remote.log.copy.disable=true` instead)",
                v.shown("remote.storage.enable"),
                v.shown("remote.log.delete.on.disable")
            ));
        }
        return Ok(());
    }
    // validateRemoteStorageOnlyIfSystemEnabled
    if ctx.remote_storage_system_enabled == Some(false) {
        return Err(format!(
            "{} but the broker's `remote.log.storage.system.enable` is false: \"Tiered Storage \
             functionality is disabled in the broker. Topic cannot be configured with remote log \
             storage.\"",
            v.shown("remote.storage.enable")
        ));
    }
    // validateRemoteStorageRequiresDeleteCleanupPolicy
    let policy = eff
        .get("cleanup.policy")
        .map(|v| v.as_list())
        .unwrap_or_default();
    if !policy.is_empty() && policy != ["delete"] {
        return Err(format!(
            "{} with {}: remote log storage only supports cleanup.policy=delete or an empty \
             cleanup.policy",
            v.shown("remote.storage.enable"),
            v.shown("cleanup.policy")
        ));
    }
    check_remote_retention(&v)?;
    check_remote_copy_lag(&v)?;
    check_retention_when_copy_disabled(&v)
}

/// A topic's effective config as the cross-checks read it: an unset or unparsable number is 0
/// and an unset flag false, as Kafka's defaults make them in the checks that matter.
struct Values<'a>(&'a EffectiveConfig);

impl Values<'_> {
    fn long(&self, k: &str) -> i64 {
        self.0.get_i64(k).unwrap_or_default()
    }

    fn flag(&self, k: &str) -> bool {
        self.0.get(k).and_then(|v| v.as_bool()).unwrap_or(false)
    }

    /// `key=value` and its source, for an error message.
    fn shown(&self, k: &str) -> String {
        match self.0.get(k) {
            Some(v) => format!("`{k}={}` ({})", v.value, v.source),
            None => format!("`{k}`"),
        }
    }
}

/// Kafka's `validateRemoteStorageRetentionSize` and `validateRemoteStorageRetentionTime`.
fn check_remote_retention(v: &Values<'_>) -> Result<(), String> {
    for (local_key, total_key, limited) in [
        (
            "local.retention.bytes",
            "retention.bytes",
            v.long("retention.bytes") > -1,
        ),
        (
            "local.retention.ms",
            "retention.ms",
            v.long("retention.ms") != -1,
        ),
    ] {
        let (local, total) = (v.long(local_key), v.long(total_key));
        if limited && local != -2 {
            if local == -1 {
                return Err(format!(
                    "{} (unlimited) with a limited {}: Kafka requires the local limit to be at \
                     most the total one",
                    v.shown(local_key),
                    v.shown(total_key)
                ));
            }
            if local > total {
                return Err(format!(
                    "{} is more than {}: Kafka requires the local limit to be at most the total one",
                    v.shown(local_key),
                    v.shown(total_key)
                ));
            }
        }
    }
    Ok(())
}

/// Kafka's `validateRemoteCopyLagSize` and `validateRemoteCopyLagTime`.
fn check_remote_copy_lag(v: &Values<'_>) -> Result<(), String> {
    for (lag_key, local_key, total_key) in [
        (
            "remote.copy.lag.bytes",
            "local.retention.bytes",
            "retention.bytes",
        ),
        ("remote.copy.lag.ms", "local.retention.ms", "retention.ms"),
    ] {
        let local = match v.long(local_key) {
            -2 => v.long(total_key),
            l => l,
        };
        let lag = v.long(lag_key);
        if lag > 0 && local >= 0 && lag > local {
            return Err(format!(
                "{} is more than the effective local retention ({local}, from {} and {})",
                v.shown(lag_key),
                v.shown(local_key),
                v.shown(total_key)
            ));
        }
    }
    Ok(())
}

/// Kafka's `validateRetentionConfigsWhenRemoteCopyDisabled`.
fn check_retention_when_copy_disabled(v: &Values<'_>) -> Result<(), String> {
    if !v.flag("remote.log.copy.disable") {
        return Ok(());
    }
    for (local_key, total_key) in [
        ("local.retention.bytes", "retention.bytes"),
        ("local.retention.ms", "retention.ms"),
    ] {
        let local = v.long(local_key);
        if local != -2 && local != v.long(total_key) {
            return Err(format!(
                "{} with {}: when `remote.log.copy.disable` is true, Kafka requires \
                 `{local_key}` to be -2 or equal to `{total_key}` ({})",
                v.shown("remote.log.copy.disable"),
                v.shown(local_key),
                v.shown(total_key)
            ));
        }
    }
    Ok(())
}

/// Check the `--config` overrides of `sources` against what was read: every topic named must be
/// one of `known` (the metadata image's topics, the partition dirs' and the describe file's),
/// and every topic an override applies to (each of `known` for `*`) must pass
/// [`cross_check`] with the overrides in effect.
pub fn validate_overrides(
    sources: &ConfigSources,
    known: &BTreeSet<String>,
) -> Result<(), ConfigError> {
    if sources.cli_overrides.is_empty() {
        return Ok(());
    }
    // The keys and values again, against the release whose rules apply (the arguments were
    // read before the dirs told it).
    for (topic, map) in &sources.cli_overrides {
        for (key, raw) in map {
            check_override_at(key, raw, sources.kafka_version).map_err(|reason| {
                ConfigError::RefusedOverride {
                    topic: topic.clone(),
                    reason,
                }
            })?;
        }
    }
    for topic in sources.cli_overrides.keys().filter(|t| *t != "*") {
        if !known.contains(topic) {
            return Err(ConfigError::UnknownOverrideTopic {
                topic: topic.clone(),
                suggestion: closest_name(topic, known.iter().map(String::as_str))
                    .map(str::to_string),
            });
        }
    }
    let broker = resolve_broker(sources);
    let system = broker
        .get("remote.log.storage.system.enable")
        .filter(|v| {
            v.source != super::ConfigSource::DefaultConfig || sources.static_props.is_some()
        })
        .and_then(|v| v.as_bool());
    // The sources without `--config` (Kafka's `existingConfigs`), made only if needed.
    let mut before: Option<ConfigSources> = None;
    let every = sources.cli_overrides.contains_key("*");
    let topics: Vec<&String> = if every {
        known.iter().collect()
    } else {
        sources.cli_overrides.keys().collect()
    };
    for topic in topics {
        let eff = resolve_topic(sources, topic);
        let sets_remote = [topic.as_str(), "*"].iter().any(|t| {
            sources
                .cli_overrides
                .get(*t)
                .is_some_and(|m| m.contains_key("remote.storage.enable"))
        });
        let was = sets_remote && {
            let before = before.get_or_insert_with(|| ConfigSources {
                cli_overrides: Default::default(),
                ..sources.clone()
            });
            resolve_topic(before, topic)
                .get("remote.storage.enable")
                .and_then(|v| v.as_bool())
                .unwrap_or(false)
        };
        let ctx = CrossCheckContext {
            remote_storage_system_enabled: system,
            was_remote_storage_enabled: was,
        };
        cross_check(&eff, ctx).map_err(|reason| ConfigError::RefusedOverride {
            topic: topic.clone(),
            reason,
        })?;
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a panic is the failure report
mod tests {
    use super::*;
    use crate::config::sources::ConfigMap;

    fn map(kv: &[(&str, &str)]) -> ConfigMap {
        kv.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn values_are_parsed_and_validated_as_kafka_does() {
        assert_eq!(check_override("retention.ms", "604800000"), Ok(()));
        assert_eq!(check_override("retention.ms", " -1 "), Ok(()));
        assert_eq!(check_override("cleanup.policy", "compact, delete"), Ok(()));
        assert_eq!(check_override("cleanup.policy", ""), Ok(()));
        assert_eq!(
            check_override("retention.ms", "7d").unwrap_err(),
            "`7d` is not a long; 7 days is 604800000 (`retention.ms` takes milliseconds)"
        );
        assert_eq!(
            check_override("segment.ms", "36h").unwrap_err(),
            "`36h` is not a long; 36 hours is 129600000 (`segment.ms` takes milliseconds)"
        );
        assert_eq!(
            check_override("segment.bytes", "1GiB").unwrap_err(),
            "`1GiB` is not an int; 1 GiB is 1073741824 (`segment.bytes` takes bytes)"
        );
        assert_eq!(
            check_override("retention.ms", "abc").unwrap_err(),
            "`abc` is not a long"
        );
        // A unit only hints where the key's unit is known.
        assert_eq!(
            check_override("min.insync.replicas", "2k").unwrap_err(),
            "`2k` is not an int"
        );
        assert_eq!(
            check_override("retention.ms", "-5").unwrap_err(),
            "`-5` is not valid for `retention.ms`: Value must be at least -1"
        );
        assert_eq!(
            check_override("cleanup.policy", "bogus").unwrap_err(),
            "`bogus` is not valid for `cleanup.policy`: Invalid value bogus: must be one of: \
             compact, delete"
        );
        // KAFKA-19080 (4.1+): a topic's segment.bytes is at least 1 MiB; 4.0 and 3.x take 14.
        let latest = KafkaVersion::LATEST;
        assert!(check_override_at("segment.bytes", "1048575", latest)
            .unwrap_err()
            .contains("at least 1048576"));
        assert_eq!(check_override("segment.bytes", "1048576"), Ok(()));
        assert_eq!(
            check_override_at("segment.bytes", "1000", KafkaVersion::V3_9),
            Ok(())
        );
        // While reading the arguments the release is not known yet: some release takes it.
        assert_eq!(check_override("segment.bytes", "1000"), Ok(()));
        assert!(check_override("segment.bytes", "10").is_err());
        assert!(check_override("segment.bytes", "3000000000")
            .unwrap_err()
            .contains("is not an int"));
        assert!(check_override("preallocate", "yes")
            .unwrap_err()
            .contains("is not a boolean"));
        assert!(check_override("min.cleanable.dirty.ratio", "1.5")
            .unwrap_err()
            .contains("between 0.0 and 1.0"));
    }

    #[test]
    fn keys_that_are_not_topic_configs_name_what_was_meant() {
        assert_eq!(
            check_override("retention.msec", "1").unwrap_err(),
            "`retention.msec` is not a Kafka 4.4.0 topic config; did you mean `retention.ms`?"
        );
        assert_eq!(
            check_override("log.retention.hours", "1").unwrap_err(),
            "`log.retention.hours` is a broker config; the topic config it sets the default of \
             is `retention.ms`"
        );
        let removed =
            check_override_at("message.format.version", "2.8", KafkaVersion::LATEST).unwrap_err();
        assert!(
            removed.starts_with("`message.format.version` was removed in Kafka 4.0"),
            "{removed}"
        );
        // A 3.x broker still has it, and lacks the keys later releases added.
        assert_eq!(
            check_override_at("message.format.version", "2.8", KafkaVersion::V3_9),
            Ok(())
        );
        assert_eq!(check_override("message.format.version", "2.8"), Ok(()));
        assert_eq!(
            check_override_at("remote.copy.lag.ms", "1000", KafkaVersion::V3_9).unwrap_err(),
            "`remote.copy.lag.ms` is a topic config from Kafka 4.4 on; the Kafka 3.9 rules \
             applied here do not have it (a 3.9 broker refuses it)"
        );
        assert_eq!(
            check_override_at("retention.msec", "1", KafkaVersion::V3_9).unwrap_err(),
            "`retention.msec` is not a Kafka 3.9 topic config; did you mean `retention.ms`?"
        );
        assert_eq!(
            check_override("no.such.key", "1").unwrap_err(),
            "`no.such.key` is not a Kafka 4.4.0 topic config"
        );
    }

    #[test]
    fn close_names() {
        let names = ["orders", "sized", "fresh", "__consumer_offsets"];
        assert_eq!(closest_name("ordres", names), Some("orders"));
        assert_eq!(closest_name("order", names), Some("orders"));
        assert_eq!(closest_name("Orders", names), Some("orders"));
        assert_eq!(closest_name("nosuchtopic", names), None);
        assert_eq!(closest_name("ab", ["xy"]), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("ab", "ba"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    fn effective(topic_overrides: &[(&str, &str)], cli: &[(&str, &str)]) -> EffectiveConfig {
        let mut s = ConfigSources::default();
        s.topic_overrides.insert("t".into(), map(topic_overrides));
        s.cli_overrides.insert("t".into(), map(cli));
        resolve_topic(&s, "t")
    }

    fn refused(
        topic_overrides: &[(&str, &str)],
        cli: &[(&str, &str)],
        ctx: CrossCheckContext,
    ) -> String {
        cross_check(&effective(topic_overrides, cli), ctx).unwrap_err()
    }

    const TIERED: CrossCheckContext = CrossCheckContext {
        remote_storage_system_enabled: Some(true),
        was_remote_storage_enabled: false,
    };

    #[test]
    fn compaction_lags_are_ordered() {
        let e = refused(
            &[("max.compaction.lag.ms", "3600000")],
            &[("min.compaction.lag.ms", "7200000")],
            CrossCheckContext::default(),
        );
        assert!(
            e.contains("`min.compaction.lag.ms=7200000` (OVERRIDE)"),
            "{e}"
        );
        assert!(
            e.contains("`max.compaction.lag.ms=3600000` (DYNAMIC_TOPIC_CONFIG)"),
            "{e}"
        );
        let ok = effective(
            &[],
            &[
                ("min.compaction.lag.ms", "3600000"),
                ("max.compaction.lag.ms", "3600000"),
            ],
        );
        assert_eq!(cross_check(&ok, CrossCheckContext::default()), Ok(()));
    }

    #[test]
    fn local_retention_is_at_most_the_total_when_tiered() {
        let tiered = [("remote.storage.enable", "true")];
        let e = refused(
            &tiered,
            &[
                ("retention.ms", "3600000"),
                ("local.retention.ms", "7200000"),
            ],
            TIERED,
        );
        assert!(
            e.contains(
                "`local.retention.ms=7200000` (OVERRIDE) is more than `retention.ms=3600000`"
            ),
            "{e}"
        );
        let e = refused(
            &tiered,
            &[("retention.bytes", "1000"), ("local.retention.bytes", "-1")],
            TIERED,
        );
        assert!(
            e.contains("(unlimited) with a limited `retention.bytes=1000`"),
            "{e}"
        );
        let e = refused(
            &tiered,
            &[
                ("retention.bytes", "1000"),
                ("local.retention.bytes", "2000"),
            ],
            TIERED,
        );
        assert!(
            e.contains("`local.retention.bytes=2000` (OVERRIDE) is more than"),
            "{e}"
        );
        // Unlimited totals, -2 (= the total), and equal values pass.
        for cli in [
            &[("retention.ms", "-1"), ("local.retention.ms", "7200000")][..],
            &[("retention.bytes", "-1"), ("local.retention.bytes", "-1")][..],
            &[("retention.ms", "3600000"), ("local.retention.ms", "-2")][..],
            &[
                ("retention.ms", "3600000"),
                ("local.retention.ms", "3600000"),
            ][..],
        ] {
            assert_eq!(
                cross_check(&effective(&tiered, cli), TIERED),
                Ok(()),
                "{cli:?}"
            );
        }
        // Without tiered storage the local limits are not checked (Kafka does not).
        let plain = effective(
            &[],
            &[
                ("retention.ms", "3600000"),
                ("local.retention.ms", "7200000"),
            ],
        );
        assert_eq!(cross_check(&plain, TIERED), Ok(()));
    }

    #[test]
    fn tiered_topic_rules() {
        let tiered = [("remote.storage.enable", "true")];
        let e = refused(&tiered, &[("cleanup.policy", "compact")], TIERED);
        assert!(e.contains("only supports cleanup.policy=delete"), "{e}");
        assert_eq!(
            cross_check(&effective(&tiered, &[("cleanup.policy", "")]), TIERED),
            Ok(())
        );
        let off = CrossCheckContext {
            remote_storage_system_enabled: Some(false),
            ..TIERED
        };
        let e = refused(&[], &[("remote.storage.enable", "true")], off);
        assert!(
            e.contains("Tiered Storage functionality is disabled in the broker"),
            "{e}"
        );
        // Unknown broker setting: not guessed.
        let unknown = CrossCheckContext {
            remote_storage_system_enabled: None,
            ..TIERED
        };
        assert_eq!(
            cross_check(
                &effective(&[], &[("remote.storage.enable", "true")]),
                unknown
            ),
            Ok(())
        );
        let e = refused(
            &tiered,
            &[
                ("retention.ms", "3600000"),
                ("remote.copy.lag.ms", "7200000"),
            ],
            TIERED,
        );
        assert!(e.contains("`remote.copy.lag.ms=7200000` (OVERRIDE) is more than the effective local retention (3600000"), "{e}");
        let e = refused(
            &tiered,
            &[
                ("retention.bytes", "5000"),
                ("local.retention.bytes", "1000"),
                ("remote.copy.lag.bytes", "2000"),
            ],
            TIERED,
        );
        assert!(e.contains("effective local retention (1000"), "{e}");
        let e = refused(
            &tiered,
            &[
                ("remote.log.copy.disable", "true"),
                ("retention.ms", "3600000"),
                ("local.retention.ms", "1000"),
            ],
            TIERED,
        );
        assert!(e.contains("to be -2 or equal to `retention.ms`"), "{e}");
        assert_eq!(
            cross_check(
                &effective(
                    &tiered,
                    &[
                        ("remote.log.copy.disable", "true"),
                        ("local.retention.ms", "-2")
                    ]
                ),
                TIERED
            ),
            Ok(())
        );
        // Turning tiered storage off needs remote.log.delete.on.disable.
        let was = CrossCheckContext {
            was_remote_storage_enabled: true,
            ..TIERED
        };
        let e = refused(&tiered, &[("remote.storage.enable", "false")], was);
        assert!(e.contains("without deleting remote data"), "{e}");
        let ok = effective(
            &tiered,
            &[
                ("remote.storage.enable", "false"),
                ("remote.log.delete.on.disable", "true"),
            ],
        );
        assert_eq!(cross_check(&ok, was), Ok(()));
    }

    #[test]
    fn overrides_name_known_topics() {
        let known: BTreeSet<String> = ["orders", "sized"].iter().map(|s| s.to_string()).collect();
        let mut s = ConfigSources::default();
        s.add_cli_overrides(["ordres:retention.ms=1000"]).unwrap();
        let e = validate_overrides(&s, &known).unwrap_err();
        assert_eq!(
            e.to_string(),
            "bad --config: no topic `ordres` in the metadata log, the log dirs or the describe \
             file; did you mean `orders`?"
        );
        let mut s = ConfigSources::default();
        s.add_cli_overrides(["*:retention.ms=1000", "orders:retention.ms=1000"])
            .unwrap();
        assert_eq!(validate_overrides(&s, &known), Ok(()));
        // `*` checks every known topic: one whose own override conflicts is named.
        s.topic_overrides
            .insert("sized".into(), map(&[("max.compaction.lag.ms", "10")]));
        let mut star = s.clone();
        star.add_cli_overrides(["*:min.compaction.lag.ms=100"])
            .unwrap();
        let e = validate_overrides(&star, &known).unwrap_err();
        assert!(
            matches!(&e, ConfigError::RefusedOverride { topic, .. } if topic == "sized"),
            "{e}"
        );
        // The broker's tiered-storage switch, when server.properties gives it.
        let mut tiered = ConfigSources {
            static_props: Some(map(&[])),
            ..Default::default()
        };
        tiered
            .add_cli_overrides(["orders:remote.storage.enable=true"])
            .unwrap();
        assert!(validate_overrides(&tiered, &known).is_err());
        tiered.static_props = Some(map(&[("remote.log.storage.system.enable", "true")]));
        assert_eq!(validate_overrides(&tiered, &known), Ok(()));
        tiered.static_props = None;
        assert_eq!(validate_overrides(&tiered, &known), Ok(()));
    }
}
