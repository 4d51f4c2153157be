//! The topic configs Kafka itself sets when it creates an internal topic, and the broker keys
//! they derive from.
//!
//! A KRaft broker records them as the topic's overrides in the metadata log, so with the
//! metadata log read they arrive as `DYNAMIC_TOPIC_CONFIG`. Without it (ZooKeeper mode, where
//! overrides live in ZooKeeper; a KRaft dir whose metadata log is missing or incomplete) they
//! are the best value logclean has: [`ConfigSource::InternalTopicCreation`], below every
//! source it read and above the broker's defaults. They are still assumed (an operator may have
//! altered them): [`super::provenance`] says so.
//!
//! The keys that decide cleanup (`cleanup.policy`, `retention.ms`, `segment.bytes`) are the
//! same in every release from 2.x to 4.4 for each topic below; what differs
//! (`__transaction_state`'s `compression.type` was `none` before 2.8's `uncompressed`;
//! `__remote_log_metadata` gained `min.insync.replicas` in 4.3) decides nothing logclean
//! computes, so one table serves every release.
//!
//! [`ConfigSource::InternalTopicCreation`]: super::ConfigSource::InternalTopicCreation

/// Where one creation config's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreationValue {
    /// A constant.
    Fixed(&'static str),
    /// The broker's value of this broker key (its default when unset).
    Broker(&'static str),
}

/// One config the broker sets on an internal topic it creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CreationConfig {
    /// The topic key.
    pub key: &'static str,
    /// Its value.
    pub value: CreationValue,
}

/// An internal topic and the configs its creator sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InternalTopic {
    /// The topic.
    pub name: &'static str,
    /// What creates it and where (Kafka source), for the output and the spec.
    pub created_by: &'static str,
    /// The configs set at creation.
    pub configs: &'static [CreationConfig],
}

const fn fixed(key: &'static str, value: &'static str) -> CreationConfig {
    CreationConfig {
        key,
        value: CreationValue::Fixed(value),
    }
}

const fn broker(key: &'static str, broker_key: &'static str) -> CreationConfig {
    CreationConfig {
        key,
        value: CreationValue::Broker(broker_key),
    }
}

/// Every internal topic a 2.x–4.4 broker creates with configs of its own.
pub static INTERNAL_TOPICS: &[InternalTopic] = &[
    InternalTopic {
        name: "__consumer_offsets",
        // 4.x: group-coordinator/.../GroupCoordinatorService.java groupMetadataTopicConfigs;
        // 2.x-3.x: core/.../coordinator/group/GroupCoordinator.scala offsetsTopicConfigs.
        created_by: "GroupCoordinatorService.groupMetadataTopicConfigs (4.x), \
                     GroupCoordinator.offsetsTopicConfigs (2.x-3.x)",
        configs: &[
            fixed("cleanup.policy", "compact"),
            fixed("compression.type", "producer"),
            broker("segment.bytes", "offsets.topic.segment.bytes"),
        ],
    },
    InternalTopic {
        name: "__transaction_state",
        // core/.../coordinator/transaction/TransactionStateManager.scala transactionTopicConfigs.
        created_by: "TransactionStateManager.transactionTopicConfigs",
        configs: &[
            fixed("unclean.leader.election.enable", "false"),
            fixed("compression.type", "uncompressed"),
            fixed("cleanup.policy", "compact"),
            broker("min.insync.replicas", "transaction.state.log.min.isr"),
            broker("segment.bytes", "transaction.state.log.segment.bytes"),
        ],
    },
    InternalTopic {
        name: "__share_group_state",
        // share-coordinator/.../ShareCoordinatorService.java shareGroupStateTopicConfigs (4.1+;
        // the 4.0 early-access coordinator set no retention.ms).
        created_by: "ShareCoordinatorService.shareGroupStateTopicConfigs (4.1+)",
        configs: &[
            fixed("cleanup.policy", "delete"),
            fixed("compression.type", "producer"),
            broker(
                "segment.bytes",
                "share.coordinator.state.topic.segment.bytes",
            ),
            broker(
                "min.insync.replicas",
                "share.coordinator.state.topic.min.isr",
            ),
            fixed("retention.ms", "-1"),
        ],
    },
    InternalTopic {
        name: "__remote_log_metadata",
        // storage/.../remote/metadata/storage/TopicBasedRemoteLogMetadataManager.java
        // newRemoteLogMetadataTopic (min.insync.replicas from 4.3, KIP-1235).
        created_by: "TopicBasedRemoteLogMetadataManager.newRemoteLogMetadataTopic",
        configs: &[
            broker("retention.ms", "remote.log.metadata.topic.retention.ms"),
            fixed("cleanup.policy", "delete"),
            fixed("remote.storage.enable", "false"),
        ],
    },
];

/// The internal topic `name`, if Kafka creates it with configs of its own.
pub fn internal_topic(name: &str) -> Option<&'static InternalTopic> {
    INTERNAL_TOPICS.iter().find(|t| t.name == name)
}

/// The creation config of `key` on internal topic `topic`, if its creator sets one.
pub fn creation_config(topic: &str, key: &str) -> Option<&'static CreationConfig> {
    internal_topic(topic)?.configs.iter().find(|c| c.key == key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::defaults::{broker_config, topic_config};

    #[test]
    fn every_key_is_a_topic_config_and_every_broker_key_is_known() {
        for t in INTERNAL_TOPICS {
            for c in t.configs {
                assert!(topic_config(c.key).is_some(), "{}: {}", t.name, c.key);
                if let CreationValue::Broker(b) = c.value {
                    assert!(broker_config(b).is_some(), "{}: {b}", t.name);
                }
            }
        }
    }

    #[test]
    fn offsets_and_transactions_are_compacted_share_state_kept_forever() {
        let policy = |t| creation_config(t, "cleanup.policy").map(|c| c.value);
        assert_eq!(
            policy("__consumer_offsets"),
            Some(CreationValue::Fixed("compact"))
        );
        assert_eq!(
            policy("__transaction_state"),
            Some(CreationValue::Fixed("compact"))
        );
        assert_eq!(
            creation_config("__share_group_state", "retention.ms").map(|c| c.value),
            Some(CreationValue::Fixed("-1"))
        );
        assert!(creation_config("orders", "cleanup.policy").is_none());
        assert!(creation_config("__consumer_offsets", "retention.ms").is_none());
    }
}
