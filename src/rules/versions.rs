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
        "rolling_base_timestamp",
        KafkaVersion::V3_9,
        "the roll base timestamp (and the `max.compaction.lag.ms` anchor of a segment written since the start) is the first batch's max timestamp, was the first append's; appends index per batch, was per append (KAFKA-806). In 4.1.0 and backported to 3.9.1 and 4.0.1: 3.9.0 and 4.0.0 keep the old rule (logclean models a line's latest patch)",
        "KAFKA-806: PR #18012 (4.1.0, LogSegment.append), #18843 (3.9 branch, commit 27a3e5560e, after 3.9.0), #18842 (4.0 branch, commit 4dd893ba21, after 4.0.0); spec Errata 1, 2",
        "rules::roll::tests::errata_1_rolling_base_is_the_first_batch_from_kafka_806_and_the_first_append_before",
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
        "share_group_state_topic",
        KafkaVersion::V4_0,
        "the share coordinator writes `__share_group_state` (KIP-932 share groups: early access 4.0, preview 4.1, GA 4.2); 3.9 only reserves the name (`Topic.SHARE_GROUP_STATE_TOPIC_NAME`) and has no share coordinator, so the topic's partitions on disk mean 4.0+",
        "KIP-932; 4.0 share-coordinator/ShareCoordinatorService.java, AutoTopicCreationManager (SHARE_GROUP_STATE_TOPIC_NAME); 3.9 clients/.../internals/Topic.java only",
        "model::kafka_version::tests::share_group_state_means_4_0_or_later",
    ),
    change(
        "transactions_v2",
        KafkaVersion::V4_0,
        "transactions v2 once `transaction.version=2` is finalized: the epoch is bumped every transaction and markers carry an epoch above the data's; `__transaction_state` values become v1",
        "KIP-890; 4.4 ProducerAppendInfo.checkProducerEpoch, TransactionMetadata; spec kafka-4x-changes §1.1",
        "tests/coordinator_fixtures.rs::transaction_state_decodes_and_matches_the_scenario (TransactionLogValue v0 on 3.9.1, v1 on 4.4)",
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
        "rules::retention::tests::errata_5_delete_records_is_refused_on_compact_only_topics and errata_6_empty_policy_with_tiered_copy_runs_all_passes_from_4_2",
    ),
    change(
        "cleaner_empty_batches",
        KafkaVersion::V4_4,
        "the batch the cleaner keeps even when it empties it ends at the high watermark (was: at the round's first uncleanable offset): a round ending below the HW drops its emptied last batch, so the cleaned segment's max timestamp is no longer known exactly",
        "KAFKA-20452 (PR #22089, commit 7480345230: Cleaner.cleanInto takes log.highWatermark(), was upperBoundOffsetOfCleaningRound); on the 4.4 branch, not 4.3",
        "rules::compaction::tests::the_emptied_last_batch_survives_by_release and tests/plan.rs::compact_delete_taken_first_is_cleaned_before_its_retention_pass_as_the_broker_does (compacted fixture: an upper bound on 4.4, exact with --kafka-version 4.3)",
    ),
    change(
        "remote_copy_lag",
        KafkaVersion::V4_4,
        "topic configs `remote.copy.lag.ms` / `remote.copy.lag.bytes` exist (delayed upload)",
        "KIP-1241, KAFKA-19893 (commit edcada2a48, TopicConfig.REMOTE_COPY_LAG_MS_CONFIG); on the 4.4 branch, not 4.3; 4.4.0's describeConfigs",
        "config::versioned::tests::the_3_9_key_set_is_4_4_s_minus_the_new_keys_plus_the_removed_ones",
    ),
    change(
        "share_dlq_config",
        KafkaVersion::V4_4,
        "topic config `errors.deadletterqueue.group.enable` exists (share-group dead-letter queues)",
        "KIP-1191, KAFKA-20410 (commit b6d2503710, TopicConfig.ERRORS_DEADLETTERQUEUE_GROUP_ENABLE_CONFIG); on the 4.4 branch, not 4.3",
        "config::versioned::tests::the_3_9_key_set_is_4_4_s_minus_the_new_keys_plus_the_removed_ones",
    ),
    change(
        "max_decompressed_message_bytes",
        KafkaVersion::V4_4,
        "topic config `max.decompressed.message.bytes` exists (a per-record bound on decompressed size)",
        "TopicConfig.MAX_DECOMPRESSED_MESSAGE_BYTES_CONFIG in the 4.4.0 release (kafka-clients-4.4.0.jar); absent from the 4.3 branch head (confluentinc/kafka 4.3, Aug 2026) and from 3.9.1",
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

    /// The test names a `pinned_by` cites (`path::fn_name`, `a and b`): the words that look
    /// like a test function (lower snake case with at least two underscores).
    fn cited_tests(pinned_by: &str) -> Vec<&str> {
        pinned_by
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
            .filter_map(|w| w.rsplit("::").next())
            .filter(|w| {
                w.matches('_').count() >= 2
                    && w.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            })
            .collect()
    }

    fn sources(dir: &std::path::Path, out: &mut String) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                sources(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push_str(&std::fs::read_to_string(&p).unwrap_or_default());
            }
        }
    }

    /// Every change cites a test that exists, and docs/versions.md has a row per change with
    /// its id, release and test.
    #[test]
    fn every_change_is_pinned_by_a_test_that_exists_and_documented() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut code = String::new();
        sources(&root.join("src"), &mut code);
        sources(&root.join("tests"), &mut code);
        let doc = std::fs::read_to_string(root.join("docs/versions.md")).unwrap_or_default();
        for c in VERSION_CHANGES {
            let cited = cited_tests(c.pinned_by);
            assert!(
                !cited.is_empty(),
                "{}: no test named in {:?}",
                c.id,
                c.pinned_by
            );
            for t in cited {
                assert!(
                    code.contains(&format!("fn {t}(")),
                    "{}: no test `{t}`",
                    c.id
                );
            }
            let row = doc
                .lines()
                .find(|l| l.starts_with(&format!("| `{}` |", c.id)))
                .unwrap_or_else(|| panic!("docs/versions.md has no row for {}", c.id));
            assert!(
                row.contains(&format!("| {} |", c.release)),
                "{}: {row}",
                c.id
            );
            for t in cited_tests(c.pinned_by) {
                assert!(row.contains(t), "{}: docs/versions.md row lacks {t}", c.id);
            }
        }
    }

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
        assert_eq!(ids(KafkaVersion::V4_0, KafkaVersion::V4_1).len(), 1);
        assert!(
            ids(KafkaVersion::new(3, 8), KafkaVersion::V3_9).contains(&"rolling_base_timestamp")
        );
    }
}
