//! Every cleanup rule and default that differs between the releases logclean models (3.6–4.4),
//! as data: the release that changed it, the Kafka source, and the test that pins it. The rules
//! themselves take the release as a value ([`KafkaVersion`]); this table is what `upgrade-check`
//! lists for a span of releases and what the README's version table is checked against.

use super::KafkaVersion;

/// One change between releases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionChange {
    /// Stable id (`snake_case`).
    pub id: &'static str,
    /// The first release with the new behaviour.
    pub release: KafkaVersion,
    /// What changed, before → after.
    pub what: &'static str,
    /// Where in Kafka (and the spec) it changed.
    pub source: &'static str,
    /// The test that pins logclean's rule to it.
    pub pinned_by: &'static str,
}

const fn change(
    id: &'static str,
    release: KafkaVersion,
    what: &'static str,
    source: &'static str,
    pinned_by: &'static str,
) -> VersionChange {
    VersionChange {
        id,
        release,
        what,
        source,
        pinned_by,
    }
}

/// Every change modelled, oldest release first.
pub static VERSION_CHANGES: &[VersionChange] = &[
    change(
        "remote_log_copy_disable",
        KafkaVersion::V3_9,
        "topic configs `remote.log.copy.disable` and `remote.log.delete.on.disable` exist (KIP-950); before, a topic has neither key",
        "KIP-950; 3.9.1's describeConfigs (fixtures/*391-*/manifest.json)",
        "config::versioned::tests::the_3_9_key_set_is_4_4_s_minus_the_new_keys_plus_the_removed_ones",
    ),
    change(
        "zookeeper_removed",
        KafkaVersion::V4_0,
        "ZooKeeper mode removed: a `meta.properties` v0 dir without a metadata log must be migrated to KRaft (on 3.9) before the upgrade",
        "docs/upgrade.html 4.0.0 notes; spec kafka-4x-changes §1.1",
        "tests/upgrade_check.rs::zookeeper_and_kraft_3_9_1_fixtures_to_4_4",
    ),
    change(
        "timestamp_after_max_default",
        KafkaVersion::V4_0,
        "`message.timestamp.after.max.ms` default Long.MAX_VALUE → 3600000 (1 h): records more than 1 h ahead of the broker clock are rejected unless the topic sets the key",
        "KIP-1030; ServerLogConfigs.LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS_DEFAULT (4.0)",
        "tests/config.rs::every_fixture_topic_config_matches_the_broker (3.9.1 fixtures: Long.MAX)",
    ),
    change(
        "removed_configs",
        KafkaVersion::V4_0,
        "`message.format.version`, `message.downconversion.enable`, `message.timestamp.difference.max.ms` and their `log.` broker keys, `delegation.token.master.key`, `offsets.commit.required.acks` removed",
        "docs/upgrade.html 4.0.0 notes; KIP-724, KIP-937, KAFKA-18269, KIP-1041 (src/config/removed.rs)",
        "config::versioned::tests::changed_defaults_and_validators_follow_the_release",
    ),
    change(
        "broker_segment_bytes_min",
        KafkaVersion::V4_0,
        "broker `log.segment.bytes` minimum 14 → 1048576 (1 MiB)",
        "KAFKA-16368 (PR #18140), KIP-1030",
        "config::versioned::tests::changed_defaults_and_validators_follow_the_release",
    ),
    change(
        "recovery_threads_default",
        KafkaVersion::V4_0,
        "`num.recovery.threads.per.data.dir` default 1 → 2",
        "KIP-1030",
        "config::versioned::tests::changed_defaults_and_validators_follow_the_release",
    ),
    change(
        "transactions_v2",
        KafkaVersion::V4_0,
        "transactions v2 once `transaction.version=2` is finalized: the epoch is bumped every transaction and markers carry an epoch above the data's; `__transaction_state` values become v1",
        "KIP-890; 4.4 ProducerAppendInfo.checkProducerEpoch, TransactionMetadata; spec kafka-4x-changes §1.1",
        "tests/coordinator_fixtures.rs (TransactionLogValue v0 on 3.9.1, v1 on 4.4)",
    ),
    change(
        "rolling_base_timestamp",
        KafkaVersion::V4_1,
        "the roll base timestamp is the first batch's max timestamp (was the first append's max); the index interval is checked per batch (was per append)",
        "KAFKA-806 (LogSegment.append), spec Errata 1, 2",
        "rules::roll::tests (rolling_base_timestamp under 4.0 and 4.1)",
    ),
    change(
        "topic_segment_bytes_min",
        KafkaVersion::V4_1,
        "topic `segment.bytes` minimum 14 → 1048576 (1 MiB): smaller topic values are refused",
        "KAFKA-19080 (PR #19371), spec Errata 4",
        "config::versioned::tests::changed_defaults_and_validators_follow_the_release",
    ),
    change(
        "delete_records_compact_only",
        KafkaVersion::V4_2,
        "DeleteRecords refused only for compact-without-delete (was: any policy without delete); the empty `cleanup.policy` runs the tiered local passes",
        "Partition.deleteRecordsOnLeader; KIP-1161; spec Errata 5, 6",
        "rules::retention::tests (delete_records_allowed, passes under 4.1 and 4.2)",
    ),
    change(
        "cleaner_empty_batches",
        KafkaVersion::V4_4,
        "the cleaner drops empty batches below the high watermark (was: below the first uncleanable offset)",
        "KAFKA-20452 (commit 7480345230); spec kafka-4x-changes §1.1",
        "none: logclean's compaction model keeps no empty-batch output (not modelled)",
    ),
    change(
        "remote_copy_lag",
        KafkaVersion::V4_4,
        "topic configs `remote.copy.lag.ms` / `.bytes` (delayed upload, KIP-1241), `errors.deadletterqueue.group.enable`, `max.decompressed.message.bytes` exist",
        "KIP-1241 (RemoteLogManagerConfig 4.4); 4.4.0's describeConfigs",
        "config::versioned::tests::the_3_9_key_set_is_4_4_s_minus_the_new_keys_plus_the_removed_ones",
    ),
];

/// The changes an upgrade from `from` to `to` crosses (`from` < release ≤ `to`).
pub fn changes_between(from: KafkaVersion, to: KafkaVersion) -> Vec<&'static VersionChange> {
    VERSION_CHANGES
        .iter()
        .filter(|c| c.release > from && c.release <= to)
        .collect()
}

/// The change `id`.
pub fn change_by_id(id: &str) -> Option<&'static VersionChange> {
    VERSION_CHANGES.iter().find(|c| c.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_ordered_unique_and_spanned() {
        assert!(VERSION_CHANGES
            .windows(2)
            .all(|w| w[0].release <= w[1].release));
        for c in VERSION_CHANGES {
            assert_eq!(change_by_id(c.id), Some(c), "{} listed twice", c.id);
            assert!(KafkaVersion::SUPPORTED.contains(&c.release), "{}", c.id);
        }
        let ids = |f, t| -> Vec<&str> { changes_between(f, t).iter().map(|c| c.id).collect() };
        assert!(
            ids(KafkaVersion::V3_9, KafkaVersion::V4_4).contains(&"timestamp_after_max_default")
        );
        assert!(!ids(KafkaVersion::V3_9, KafkaVersion::V4_4).contains(&"remote_log_copy_disable"));
        assert!(ids(KafkaVersion::V4_4, KafkaVersion::V4_4).is_empty());
        assert_eq!(ids(KafkaVersion::V4_0, KafkaVersion::V4_1).len(), 2);
    }
}
