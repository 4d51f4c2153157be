//! Policy dispatch: which thread runs retention, which passes run, which limits they use, and
//! when a log is skipped. Kafka: `UnifiedLog.deleteOldSegments()`, `localRetentionMs`,
//! `localRetentionSize`, `remoteLogEnabled`, `LogManager.cleanupLogs`,
//! `LogCleanerManager.deletableLogs`, `Partition.deleteRecordsOnLeader`. Spec §B2, §C1, §C3,
//! Errata 5, 6, 16.

use crate::config::{CleanupPolicy, Limit, LogConfig};
use crate::model::units::{DurationMs, TimestampMs};

use super::{Pass, RetainReason, RetentionInput, Runner, TieredFacts};
use crate::rules::KafkaVersion;

/// The thread that runs retention for `policy` (spec §C1).
pub fn runner(policy: CleanupPolicy) -> Runner {
    if policy.compact {
        Runner::CleanerThreads
    } else {
        Runner::RetentionTask
    }
}

/// Whether the topic is remote-enabled (`UnifiedLog.remoteLogEnabled`): broker gate, topic
/// flag, not compacted, not internal.
pub fn remote_log_enabled(config: &LogConfig, tiered: &TieredFacts) -> bool {
    tiered.system_enabled
        && config.remote_storage_enable
        && !config.cleanup_policy.compact
        && !tiered.internal_topic
}

/// Whether the local limits apply (`remoteLogEnabledAndRemoteCopyEnabled`).
pub fn copy_enabled(config: &LogConfig, tiered: &TieredFacts) -> bool {
    remote_log_enabled(config, tiered) && !config.remote_log_copy_disable
}

/// The passes `deleteOldSegments()` runs for a policy, in order (spec §B2, Errata 6).
pub fn passes(config: &LogConfig, tiered: &TieredFacts, version: KafkaVersion) -> Vec<Pass> {
    let all = vec![Pass::LogStartOffset, Pass::Size, Pass::Time];
    let p = config.cleanup_policy;
    if p.delete {
        all
    } else if p.compact {
        vec![Pass::LogStartOffset]
    } else if version.at_least(KafkaVersion::V4_2) && copy_enabled(config, tiered) {
        all
    } else {
        vec![Pass::LogStartOffset]
    }
}

/// Whether the leader accepts DeleteRecords for this policy (`Partition.deleteRecordsOnLeader`,
/// Errata 5): 4.0/4.1 refuse without `delete`; 4.2+ refuse only compact-without-delete.
pub fn delete_records_allowed(policy: CleanupPolicy, version: KafkaVersion) -> bool {
    if version.at_least(KafkaVersion::V4_2) {
        policy.delete || !policy.compact
    } else {
        policy.delete
    }
}

/// The size limit of the size pass (`UnifiedLog.localRetentionSize`).
pub(super) fn size_limit(config: &LogConfig, tiered: &TieredFacts) -> Limit {
    if copy_enabled(config, tiered) {
        config
            .local_retention_bytes
            .effective(config.retention_bytes)
    } else {
        config.retention_bytes
    }
}

/// The time limit of the time pass (`UnifiedLog.localRetentionMs`).
pub(super) fn time_limit(config: &LogConfig, tiered: &TieredFacts) -> Limit {
    if copy_enabled(config, tiered) {
        config.local_retention_ms.effective(config.retention_ms)
    } else {
        config.retention_ms
    }
}

/// The first instant `now - ts > retention` holds.
pub(super) fn expires_at(ts: TimestampMs, retention_ms: i64) -> TimestampMs {
    ts + DurationMs(retention_ms) + DurationMs(1)
}

/// The time predicate of `deleteRetentionMsBreachedSegments`: `now - ts > retention`.
pub(super) fn older_than(ts: TimestampMs, now: TimestampMs, retention_ms: i64) -> bool {
    (now - ts).get() > retention_ms
}

/// The limit the time pass compares a segment's largest timestamp with: `retention.ms`, or
/// `local.retention.ms` where the local limits apply (`UnifiedLog.localRetentionMs`). `None`
/// when no time pass runs for the policy (compact without delete, the empty policy except
/// tiered on 4.2+; spec §B2, Errata 6) or the limit is `-1`.
pub fn time_retention_ms(
    config: &LogConfig,
    tiered: &TieredFacts,
    version: KafkaVersion,
) -> Option<i64> {
    if !passes(config, tiered, version).contains(&Pass::Time) {
        return None;
    }
    time_limit(config, tiered).max()
}

/// The limit the size pass keeps a log's bytes under: `retention.bytes`, or
/// `local.retention.bytes` where the local limits apply (`UnifiedLog.localRetentionSize`).
/// `None` when no size pass runs for the policy or the limit is `-1`.
pub fn size_retention_bytes(
    config: &LogConfig,
    tiered: &TieredFacts,
    version: KafkaVersion,
) -> Option<i64> {
    if !passes(config, tiered, version).contains(&Pass::Size) {
        return None;
    }
    size_limit(config, tiered).max()
}

/// The config key whose value [`time_retention_ms`] is: `local.retention.ms` where the local
/// limits apply, else `retention.ms` (for messages).
pub fn time_limit_key(config: &LogConfig, tiered: &TieredFacts) -> &'static str {
    if copy_enabled(config, tiered) {
        "local.retention.ms"
    } else {
        "retention.ms"
    }
}

/// Whether a segment whose largest timestamp is `ts` is past time retention at `now` under
/// `config`: the one answer to "older than retention" (the time pass's predicate, with the
/// policy and the tiered local limit applied as [`time_retention_ms`] does). It says nothing
/// of the gates that can still keep the segment (HW, active segment, upload, skipped log).
pub fn expired_by_time(
    config: &LogConfig,
    tiered: &TieredFacts,
    version: KafkaVersion,
    ts: TimestampMs,
    now: TimestampMs,
) -> bool {
    time_retention_ms(config, tiered, version).is_some_and(|m| older_than(ts, now, m))
}

/// Why the whole log is skipped, if it is (spec §B7 steps 1–2, §C1, §C3, Errata 16).
pub(super) fn skip_reason(input: &RetentionInput<'_>, runner: Runner) -> Option<RetainReason> {
    let b = input.broker;
    let cleaner_exists = b.log_cleaner_enable;
    match runner {
        Runner::CleanerThreads if !cleaner_exists || b.log_cleaner_threads <= 0 => {
            Some(RetainReason::NoRetentionThread {
                cleaner_enabled: b.log_cleaner_enable,
                cleaner_threads: b.log_cleaner_threads,
            })
        }
        Runner::CleanerThreads if input.state.uncleanable => Some(RetainReason::Uncleanable),
        // Without a cleaner object `abortAndPauseCleaning` does nothing (Errata 16).
        _ if input.state.paused && cleaner_exists => Some(RetainReason::Paused),
        _ => None,
    }
}

/// The effective local time limit of a copy-enabled partition (`LogConfig.localRetentionMs`,
/// −2 → `retention.ms`); `None` when unlimited.
pub fn local_time_limit(config: &LogConfig) -> Option<i64> {
    config
        .local_retention_ms
        .effective(config.retention_ms)
        .max()
}

/// The effective local size limit (`LogConfig.localRetentionBytes`, −2 → `retention.bytes`);
/// `None` when unlimited.
pub fn local_size_limit(config: &LogConfig) -> Option<i64> {
    config
        .local_retention_bytes
        .effective(config.retention_bytes)
        .max()
}
