//! The config tables of the releases before 4.4: which topic configs a release has, and the
//! defaults and validators that changed. [`super::defaults`] holds 4.4.0's; this module derives
//! an older release's from them, one row per change, each citing the release and the Kafka
//! source that changed it.
//!
//! | change | releases | source |
//! |---|---|---|
//! | `message.timestamp.after.max.ms` default `Long.MAX_VALUE` → 1 h | 4.0 | KIP-1030; `ServerLogConfigs.LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS_DEFAULT` (4.0 upgrade notes) |
//! | `message.format.version`, `message.downconversion.enable`, `message.timestamp.difference.max.ms` (and their `log.` synonyms) removed | 4.0 | [`super::removed`] (KIP-724, KAFKA-18269, KIP-937) |
//! | broker `log.segment.bytes` ≥ 1 MiB (was ≥ 14, `LegacyRecord.RECORD_OVERHEAD_V0`) | 4.0 | KAFKA-16368 (PR #18140), KIP-1030 |
//! | topic `segment.bytes` ≥ 1 MiB (was ≥ 14) | 4.1 | KAFKA-19080 (PR #19371, merged 2025-04); spec Errata 4 |
//! | `num.recovery.threads.per.data.dir` default 1 → 2 | 4.0 | KIP-1030 |
//! | `remote.log.copy.disable`, `remote.log.delete.on.disable` added | 3.9 | KIP-950 |
//! | `remote.copy.lag.ms` / `.bytes` added | 4.4 | KIP-1241, KAFKA-19893 (`TopicConfig`, commit edcada2a48: on the 4.4 branch, not 4.3) |
//! | `errors.deadletterqueue.group.enable` added | 4.4 | KIP-1191, KAFKA-20410 (`TopicConfig`, commit b6d2503710: on the 4.4 branch, not 4.3) |
//! | `max.decompressed.message.bytes` added | 4.4 | `TopicConfig.MAX_DECOMPRESSED_MESSAGE_BYTES_CONFIG` in the 4.4.0 release; not on the 4.3 branch |
//!
//! The 3.9.1 values of the removed keys are those a real 3.9.1 broker reported
//! (`fixtures/zk391-*/manifest.json`): `message.format.version=3.0-IV1`,
//! `message.downconversion.enable=true`, `message.timestamp.difference.max.ms=Long.MAX_VALUE`.

use super::defaults::{
    BrokerConfigDef, ConfigType, Synonym, TopicConfigDef, Validator, LONG_MAX, TOPIC_CONFIGS,
};
use super::removed::{removed_config, RemovedConfig};
use crate::model::kafka_version::KafkaVersion;

use super::defaults::{same, topic};

/// `LegacyRecord.RECORD_OVERHEAD_V0`: the minimum `segment.bytes` before 4.1 (topic) and 4.0
/// (broker).
const LEGACY_SEGMENT_MIN: i64 = 14;

/// Topic configs of 3.x that 4.0 removed, as 3.9.1 defines them.
static REMOVED_IN_4_0: &[TopicConfigDef] = &[
    topic(
        "message.downconversion.enable",
        ConfigType::Boolean,
        "true",
        Validator::None,
        &[same(
            "log.message.downconversion.enable",
            ConfigType::Boolean,
            "true",
            Validator::None,
        )],
    ),
    topic(
        "message.format.version",
        ConfigType::String,
        "3.0-IV1",
        Validator::None,
        &[same(
            "log.message.format.version",
            ConfigType::String,
            "3.0-IV1",
            Validator::None,
        )],
    ),
    topic(
        "message.timestamp.difference.max.ms",
        ConfigType::Long,
        LONG_MAX,
        Validator::AtLeast(0),
        &[same(
            "log.message.timestamp.difference.max.ms",
            ConfigType::Long,
            LONG_MAX,
            Validator::AtLeast(0),
        )],
    ),
];

static AFTER_MAX_3X: &[Synonym] = &[same(
    "log.message.timestamp.after.max.ms",
    ConfigType::Long,
    LONG_MAX,
    Validator::AtLeast(0),
)];

static SEGMENT_BYTES_3X: &[Synonym] = &[same(
    "log.segment.bytes",
    ConfigType::Int,
    "1073741824",
    Validator::AtLeast(LEGACY_SEGMENT_MIN),
)];

/// The release that added a topic config newer than 3.6 (`None`: in every release modelled).
pub fn topic_config_added_in(name: &str) -> Option<KafkaVersion> {
    match name {
        "remote.log.copy.disable" | "remote.log.delete.on.disable" => Some(KafkaVersion::V3_9),
        "remote.copy.lag.ms"
        | "remote.copy.lag.bytes"
        | "errors.deadletterqueue.group.enable"
        | "max.decompressed.message.bytes" => Some(KafkaVersion::V4_4),
        _ => None,
    }
}

/// `def` as release `version` defines it (default, validator, synonyms).
fn at_version(def: &TopicConfigDef, version: KafkaVersion) -> TopicConfigDef {
    let mut d = *def;
    match def.name {
        // KIP-1030 (4.0): the 3.x default accepted any future timestamp.
        "message.timestamp.after.max.ms" if !version.at_least(KafkaVersion::V4_0) => {
            d.default = LONG_MAX;
            d.synonyms = AFTER_MAX_3X;
        }
        // KAFKA-19080 (4.1) for the topic key; KAFKA-16368 (4.0) for the broker synonym.
        "segment.bytes" if !version.at_least(KafkaVersion::V4_1) => {
            d.validator = Validator::AtLeast(LEGACY_SEGMENT_MIN);
            if !version.at_least(KafkaVersion::V4_0) {
                d.synonyms = SEGMENT_BYTES_3X;
            }
        }
        _ => {}
    }
    d
}

/// Every topic config of release `version`, sorted by name, as that release defines it.
pub fn topic_config_defs(version: KafkaVersion) -> Vec<TopicConfigDef> {
    let mut defs: Vec<TopicConfigDef> = (TOPIC_CONFIGS.iter())
        .filter(|d| topic_config_added_in(d.name).is_none_or(|v| version.at_least(v)))
        .map(|d| at_version(d, version))
        .collect();
    if !version.at_least(KafkaVersion::V4_0) {
        defs.extend(REMOVED_IN_4_0.iter().copied());
        defs.sort_by_key(|d| d.name);
    }
    defs
}

/// The topic config `name` of release `version`.
pub fn topic_config_def(name: &str, version: KafkaVersion) -> Option<TopicConfigDef> {
    topic_config_defs(version)
        .into_iter()
        .find(|d| d.name == name)
}

/// The removed key `key` if release `version` no longer has it (a 3.x release still has the
/// keys 4.0 removed).
pub fn removed_at(key: &str, version: KafkaVersion) -> Option<&'static RemovedConfig> {
    removed_config(key).filter(|r| {
        KafkaVersion::parse(r.removed_in).is_ok_and(|removed| version.at_least(removed))
    })
}

/// The default of broker-only config `def` in release `version`.
pub fn broker_default(def: &BrokerConfigDef, version: KafkaVersion) -> Option<&'static str> {
    match def.name {
        // KIP-1030 (4.0): 1 → 2 recovery threads per log dir.
        "num.recovery.threads.per.data.dir" if !version.at_least(KafkaVersion::V4_0) => Some("1"),
        _ => def.default,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a panic is the failure report
mod tests {
    use super::*;
    use crate::config::defaults::broker_config;

    #[test]
    fn the_3_9_key_set_is_4_4_s_minus_the_new_keys_plus_the_removed_ones() {
        let v39: Vec<&str> = topic_config_defs(KafkaVersion::V3_9)
            .iter()
            .map(|d| d.name)
            .collect();
        let v44: Vec<&str> = topic_config_defs(KafkaVersion::V4_4)
            .iter()
            .map(|d| d.name)
            .collect();
        assert_eq!(v44.len(), TOPIC_CONFIGS.len());
        assert!(v39.contains(&"message.downconversion.enable"));
        assert!(!v39.contains(&"remote.copy.lag.ms"));
        assert!(v39.windows(2).all(|w| w[0] < w[1]), "sorted");
        assert_eq!(v39.len(), v44.len() - 4 + 3);
        let v36 = topic_config_defs(KafkaVersion::new(3, 6));
        assert!(v36.iter().all(|d| d.name != "remote.log.copy.disable"));
    }

    #[test]
    fn changed_defaults_and_validators_follow_the_release() {
        let after = |v| topic_config_def("message.timestamp.after.max.ms", v).unwrap();
        assert_eq!(
            after(KafkaVersion::V3_9).synonyms[0].default,
            Some(LONG_MAX)
        );
        assert_eq!(
            after(KafkaVersion::V4_0).synonyms[0].default,
            Some("3600000")
        );
        let seg = |v| topic_config_def("segment.bytes", v).unwrap();
        assert_eq!(seg(KafkaVersion::V4_0).validator, Validator::AtLeast(14));
        assert_eq!(
            seg(KafkaVersion::V4_0).synonyms[0].validator,
            Validator::AtLeast(1 << 20)
        );
        assert_eq!(
            seg(KafkaVersion::V3_9).synonyms[0].validator,
            Validator::AtLeast(14)
        );
        assert_eq!(
            seg(KafkaVersion::V4_1).validator,
            Validator::AtLeast(1 << 20)
        );
        let threads = broker_config("num.recovery.threads.per.data.dir").unwrap();
        assert_eq!(broker_default(threads, KafkaVersion::V3_9), Some("1"));
        assert_eq!(broker_default(threads, KafkaVersion::V4_0), Some("2"));
        assert!(removed_at("message.downconversion.enable", KafkaVersion::V3_9).is_none());
        assert!(removed_at("message.downconversion.enable", KafkaVersion::V4_0).is_some());
    }
}
