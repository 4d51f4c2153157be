//! What changes for a set of log dirs on upgrading the broker from one release to another
//! (`logclean upgrade-check`): the same files read twice, once under each release's config
//! tables ([`crate::config::versioned`]) and rules, and the differences turned into findings.
//!
//! * ZooKeeper-mode dirs and a 4.0+ target: migrate first (`upgrade.zookeeper_mode`).
//! * Removed keys that are set, and values the target's validators refuse (the config
//!   resolution of the target view reports both; the current view does not).
//! * Defaults that change for keys the topics or the broker take from Kafka's default.
//! * Records stamped further ahead of their append than the target's
//!   `message.timestamp.after.max.ms` allows: `maxTimestamp − min(.log mtime, now)`; the `.log`
//!   was last written at or after each batch's append, so this is a lower bound of how far
//!   ahead the batch was when appended.
//! * Transactional data crossing 4.0 (KIP-890 transactions v2).
//! * The plan at the same instant under both: segments whose delete/retain verdict differs
//!   ([`crate::plan::diff`]), listed in the report (the caller's exit code counts them).
//!
//! Release data: [`crate::rules::versions`].

use std::collections::BTreeMap;

use crate::checks::catalog;
use crate::checks::finding::{EvidenceValue, Finding, Location};
use crate::checks::location::{at_dir, at_partition};
use crate::config::ConfigError;
use crate::model::cluster::{ClusterProblem, ClusterView};
use crate::model::log_dir::LogDir;
use crate::model::mode::LogDirMode;
use crate::model::units::TimestampMs;
use crate::rules::versions::{change_by_id, changes_between, VersionChange};
use crate::rules::KafkaVersion;

use crate::plan::{diff, Change, Plan};

/// The transaction coordinator's topic.
const TRANSACTION_STATE_TOPIC: &str = "__transaction_state";

/// What `upgrade-check` found.
#[derive(Debug, Clone)]
pub struct UpgradeReport {
    /// The release upgraded from.
    pub from: KafkaVersion,
    /// The release upgraded to.
    pub to: KafkaVersion,
    /// The release changes crossed.
    pub changes: Vec<&'static VersionChange>,
    /// Segments whose verdict differs at the same instant.
    pub plan_changes: Vec<Change>,
    /// The findings.
    pub findings: Vec<Finding>,
}

fn cite(id: &str) -> String {
    change_by_id(id).map_or_else(String::new, |c| {
        format!("Kafka {}: {} ({})", c.release, c.what, c.source)
    })
}

fn config_errors(view: &ClusterView) -> Vec<(Option<String>, &ConfigError)> {
    (view.problems.iter())
        .filter_map(|p| match p {
            ClusterProblem::Config { topic, error } => Some((topic.clone(), error)),
            _ => None,
        })
        .collect()
}

fn at_log_dir(view: &ClusterView, topic: Option<&str>) -> Location {
    Location {
        log_dir: view.log_dirs.first().cloned().unwrap_or_default(),
        topic: topic.map(str::to_string),
        ..Default::default()
    }
}

/// Removed keys set and values refused under `to` but not under `from`.
fn config_findings(from: &ClusterView, to: &ClusterView) -> Vec<Finding> {
    let before = config_errors(from);
    let mut out = Vec::new();
    let mut seen = Vec::new();
    for (topic, e) in config_errors(to) {
        if before.iter().any(|(t, b)| *t == topic && *b == e) || seen.contains(&(topic.clone(), e))
        {
            continue;
        }
        seen.push((topic.clone(), e));
        match e {
            ConfigError::RemovedConfig {
                key,
                value,
                level,
                removed,
                ..
            } => out.push(
                Finding::new(
                    &catalog::UPGRADE_REMOVED_CONFIG,
                    at_log_dir(to, topic.as_deref()),
                    format!(
                        "`{key}={value}` ({}) is removed in Kafka {}: {}",
                        level.name(),
                        removed.removed_in,
                        removed.advice()
                    ),
                )
                .evidence("key", EvidenceValue::Text(key.clone()))
                .evidence("source", EvidenceValue::Text(cite("removed_configs"))),
            ),
            ConfigError::InvalidValue {
                key,
                value,
                reason,
                level,
            } => out.push(
                Finding::new(
                    &catalog::UPGRADE_CONFIG_REJECTED,
                    at_log_dir(to, topic.as_deref()),
                    format!(
                        "`{key}={value}` ({}) is refused by Kafka {}: {reason}",
                        level.name(),
                        to.kafka_version.version
                    ),
                )
                .evidence("key", EvidenceValue::Text(key.clone())),
            ),
            _ => {}
        }
    }
    out
}

/// Keys taken from Kafka's default whose default differs, one finding per key and change.
fn default_findings(from: &ClusterView, to: &ClusterView) -> Vec<Finding> {
    let mut changed: BTreeMap<(String, String, String), Vec<String>> = BTreeMap::new();
    for (name, t) in &to.topics {
        let Some(f) = from.topics.get(name) else {
            continue;
        };
        for (key, v) in &t.resolved.values {
            let Some(old) = f.resolved.values.get(key) else {
                continue;
            };
            let is_default = |s| s == crate::config::ConfigSource::DefaultConfig;
            if old.value != v.value
                && is_default(v.reported_source)
                && is_default(old.reported_source)
            {
                (changed.entry((key.clone(), old.value.clone(), v.value.clone())))
                    .or_default()
                    .push(name.clone());
            }
        }
    }
    for (key, v) in &to.broker.values {
        if let Some(old) = from.broker.values.get(key) {
            if old.value != v.value && v.source == crate::config::ConfigSource::DefaultConfig {
                (changed.entry((key.clone(), old.value.clone(), v.value.clone()))).or_default();
            }
        }
    }
    (changed.into_iter())
        .map(|((key, old, new), topics)| {
            let whom = if topics.is_empty() {
                "the broker".to_string()
            } else {
                format!("{} topic(s)", topics.len())
            };
            let id = match key.as_str() {
                "message.timestamp.after.max.ms" => "timestamp_after_max_default",
                "num.recovery.threads.per.data.dir" => "recovery_threads_default",
                _ => "",
            };
            Finding::new(
                &catalog::UPGRADE_DEFAULT_CHANGES,
                at_log_dir(to, None),
                format!("`{key}` default {old} → {new} for {whom} that take the default"),
            )
            .evidence("key", EvidenceValue::Text(key))
            .evidence("topics", EvidenceValue::Count(topics.len() as u64))
            .with_evidence((!id.is_empty()).then(|| {
                crate::checks::finding::Evidence {
                    name: "source",
                    value: EvidenceValue::Text(cite(id)),
                }
            }))
        })
        .collect()
}

/// Partitions with records further ahead of their append than `to` allows and `from` allowed.
fn future_findings(
    from: &ClusterView,
    to: &ClusterView,
    dirs: &[LogDir],
    now: TimestampMs,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for dir in dirs {
        for p in &dir.partitions {
            let Some(name) = &p.name else { continue };
            let (Some(old), Some(new)) = (
                from.partition_log_config(&dir.path, &p.dir_name),
                to.partition_log_config(&dir.path, &p.dir_name),
            ) else {
                continue;
            };
            let limit = new.message_timestamp_after_max_ms;
            if limit >= old.message_timestamp_after_max_ms
                || new.message_timestamp_type != crate::config::TimestampType::CreateTime
            {
                continue;
            }
            let mut count = 0u64;
            let mut worst: Option<(i64, i64)> = None;
            for s in &p.segments {
                let written = s.log_mtime().map_or(now, |m| m.min(now)).get();
                let Some(ts) = super::timestamps::segment_timestamps(s).into_iter().max() else {
                    continue;
                };
                let ahead = ts.saturating_sub(written);
                if ahead > limit {
                    count += 1;
                    if worst.is_none_or(|(a, _)| ahead > a) {
                        worst = Some((ahead, s.base_offset.get()));
                    }
                }
            }
            let Some((ahead, base)) = worst else { continue };
            out.push(
                Finding::new(
                    &catalog::UPGRADE_FUTURE_TIMESTAMPS_REJECTED,
                    at_partition(dir, p),
                    format!(
                        "{count} segment(s) of {}-{} hold records stamped up to {} ms ahead of \
                         their append; Kafka {} rejects records more than {limit} ms ahead \
                         (`message.timestamp.after.max.ms`, was {} ms)",
                        name.topic,
                        name.partition,
                        ahead,
                        to.kafka_version.version,
                        old.message_timestamp_after_max_ms
                    ),
                )
                .evidence("segments", EvidenceValue::Count(count))
                .evidence("worst_segment", EvidenceValue::Offset(base))
                .evidence("ahead_ms", EvidenceValue::Int(ahead))
                .evidence("limit_ms", EvidenceValue::Int(limit))
                .evidence(
                    "source",
                    EvidenceValue::Text(cite("timestamp_after_max_default")),
                )
                .fix(format!(
                    "fix the producers' clocks, or keep accepting them: `{}`",
                    super::commands::alter_topic(
                        &name.topic,
                        "message.timestamp.after.max.ms",
                        old.message_timestamp_after_max_ms
                    )
                )),
            );
        }
    }
    out
}

/// The upgrade from `from_view`'s release to `to_view`'s, with both plans at the same instant.
pub fn upgrade_report(
    from_view: &ClusterView,
    to_view: &ClusterView,
    dirs: &[LogDir],
    from_plan: &Plan,
    to_plan: &Plan,
    now: TimestampMs,
) -> UpgradeReport {
    let (from, to) = (
        from_view.kafka_version.version,
        to_view.kafka_version.version,
    );
    let mut findings = Vec::new();
    if to.at_least(KafkaVersion::V4_0) {
        for info in &from_view.log_dir_info {
            if info.mode.mode == LogDirMode::ZooKeeper {
                findings.push(
                    Finding::new(
                        &catalog::UPGRADE_ZOOKEEPER_MODE,
                        Location {
                            log_dir: info.path.clone(),
                            ..Default::default()
                        },
                        format!(
                            "ZooKeeper-mode log dir ({}): Kafka {to} runs in KRaft mode only",
                            info.mode.describe()
                        ),
                    )
                    .evidence("source", EvidenceValue::Text(cite("zookeeper_removed"))),
                );
            }
        }
    }
    findings.extend(config_findings(from_view, to_view));
    findings.extend(default_findings(from_view, to_view));
    findings.extend(future_findings(from_view, to_view, dirs, now));
    if !from.at_least(KafkaVersion::V4_0) && to.at_least(KafkaVersion::V4_0) {
        let txn_dirs = (dirs.iter())
            .flat_map(|d| d.partitions.iter().map(move |p| (d, p)))
            .filter(|(_, p)| {
                p.name
                    .as_ref()
                    .is_some_and(|n| n.topic == TRANSACTION_STATE_TOPIC)
            })
            .count();
        if let Some(dir) = dirs.first().filter(|_| txn_dirs > 0) {
            findings.push(
                Finding::new(
                    &catalog::UPGRADE_TRANSACTION_MARKERS,
                    at_dir(dir),
                    format!(
                        "{txn_dirs} {TRANSACTION_STATE_TOPIC} partition(s) here: transactions \
                         run as v1 until `transaction.version=2` is finalized on {to}"
                    ),
                )
                .evidence(
                    "transaction_state_partitions",
                    EvidenceValue::Count(txn_dirs as u64),
                )
                .evidence("source", EvidenceValue::Text(cite("transactions_v2"))),
            );
        }
    }
    let plan_changes = diff(from_plan, to_plan);
    UpgradeReport {
        from,
        to,
        changes: changes_between(from, to),
        plan_changes,
        findings,
    }
}
