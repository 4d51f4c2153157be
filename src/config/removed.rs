//! Topic and broker config keys Kafka removed, with what replaces them: a 3.x cluster's topic
//! overrides, `server.properties` and `kafka-configs.sh --describe` output still carry them, and
//! they are named as removed (with the replacement) rather than as unknown keys.
//!
//! Sources: Kafka 4.0 upgrade notes (`docs/upgrade.html`, "Notable changes in 4.0.0": "The
//! `log.message.format.version` and `message.format.version` configs were removed", "The
//! `log.message.timestamp.difference.max.ms` configuration was removed. Please use
//! `log.message.timestamp.before.max.ms` and `log.message.timestamp.after.max.ms` instead. See
//! KIP-937", `delegation.token.master.key`, `offsets.commit.required.acks`); KAFKA-18269 (4.0:
//! `message.downconversion.enable` and `log.message.downconversion.enable` made no-ops, since
//! down-conversion went with the old fetch versions); the topic config list of a real 4.4.0
//! broker (`fixtures/*/manifest.json`), which has none of the topic keys below.

/// A config key Kafka no longer has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RemovedConfig {
    /// The key.
    pub key: &'static str,
    /// A topic-level key (else a broker key).
    pub topic_level: bool,
    /// The release that removed it.
    pub removed_in: &'static str,
    /// The keys that replace it (empty: nothing does).
    pub replacement: &'static [&'static str],
    /// Why, or what the broker does instead.
    pub note: &'static str,
}

const fn removed(
    key: &'static str,
    topic_level: bool,
    replacement: &'static [&'static str],
    note: &'static str,
) -> RemovedConfig {
    RemovedConfig {
        key,
        topic_level,
        removed_in: "4.0",
        replacement,
        note,
    }
}

/// Every removed key this tool knows.
pub static REMOVED_CONFIGS: &[RemovedConfig] = &[
    removed(
        "message.timestamp.difference.max.ms",
        true,
        &[
            "message.timestamp.before.max.ms",
            "message.timestamp.after.max.ms",
        ],
        "KIP-937, deprecated since 3.6; a 3.6-3.9 broker still applies it where the two new keys are unset",
    ),
    removed(
        "message.format.version",
        true,
        &[],
        "4.x always writes record format v2 (KIP-724)",
    ),
    removed(
        "message.downconversion.enable",
        true,
        &[],
        "a no-op from 4.0 (KAFKA-18269: down-conversion is gone with the old fetch versions); not a 4.4.0 topic config",
    ),
    removed(
        "log.message.timestamp.difference.max.ms",
        false,
        &[
            "log.message.timestamp.before.max.ms",
            "log.message.timestamp.after.max.ms",
        ],
        "KIP-937, deprecated since 3.6",
    ),
    removed(
        "log.message.format.version",
        false,
        &[],
        "4.x always writes record format v2 (KIP-724)",
    ),
    removed(
        "log.message.downconversion.enable",
        false,
        &[],
        "a no-op from 4.0 (KAFKA-18269: down-conversion is gone with the old fetch versions)",
    ),
    removed(
        "delegation.token.master.key",
        false,
        &["delegation.token.secret.key"],
        "deprecated since 2.0",
    ),
    removed(
        "offsets.commit.required.acks",
        false,
        &[],
        "KIP-1041: offset commits always wait for all in-sync replicas",
    ),
];

/// The removed key `key`, if it is one.
pub fn removed_config(key: &str) -> Option<&'static RemovedConfig> {
    REMOVED_CONFIGS.iter().find(|r| r.key == key)
}

/// The removed topic-level key `key`, if it is one.
pub fn removed_topic_config(key: &str) -> Option<&'static RemovedConfig> {
    removed_config(key).filter(|r| r.topic_level)
}

impl RemovedConfig {
    /// `use a and b instead (note)` or `no replacement (note)`.
    pub fn advice(&self) -> String {
        if self.replacement.is_empty() {
            format!("no replacement: {}", self.note)
        } else {
            format!(
                "use {} instead ({})",
                self.replacement.join(" and "),
                self.note
            )
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a panic is the failure report
mod tests {
    use super::*;
    use crate::config::defaults::{broker_config, topic_config};

    #[test]
    fn removed_keys_are_not_4_4_configs_and_replacements_are() {
        for r in REMOVED_CONFIGS {
            assert!(topic_config(r.key).is_none(), "{}", r.key);
            assert!(broker_config(r.key).is_none(), "{}", r.key);
            for k in r.replacement {
                if r.topic_level {
                    assert!(topic_config(k).is_some(), "{k}");
                }
            }
        }
        let r = removed_topic_config("message.timestamp.difference.max.ms").unwrap();
        assert_eq!(r.removed_in, "4.0");
        assert!(r.advice().starts_with(
            "use message.timestamp.before.max.ms and message.timestamp.after.max.ms instead"
        ));
        assert!(removed_topic_config("log.message.format.version").is_none());
        assert!(removed_config("log.message.format.version").is_some());
        assert!(removed_config("retention.ms").is_none());
        assert!(removed_config("message.format.version")
            .unwrap()
            .advice()
            .starts_with("no replacement"));
    }
}
