//! The config-risk checklist (`config.*_risk` codes below), from the cluster view's resolved
//! configs (value and source) and the write rates of the plan's partitions
//! ([`write_rate`]: kept bytes over their record-time window, 10 min at least). One finding per
//! topic (at its busiest partition's rate) or, for broker keys, per broker.
//!
//! Rules (each finding names the key, its value and source, and a suggested value):
//! - `config.retention_bytes_unlimited` (warning): `retention.bytes=-1` on a delete-policy
//!   topic whose busiest partition, at its measured rate, keeps at least [`BUSY_KEPT_BYTES`]
//!   (10 GiB) under `retention.ms` alone, or any measured writes with `retention.ms=-1` too
//!   (nothing bounds it). Suggested: the bytes `retention.ms` keeps at that rate.
//! - `config.segment_bytes_slow_roll` (info): at the measured rate filling `segment.bytes`
//!   takes longer than `retention.ms` but less than `segment.ms` (so `segment.bytes` is what
//!   rolls): records live up to `retention.ms` + that fill time. Suggested: the bytes written in
//!   a quarter of `retention.ms` (at least 1 MiB, Kafka's minimum).
//! - `config.min_cleanable_ratio_low` (info): `min.cleanable.dirty.ratio` < [`LOW_DIRTY_RATIO`]
//!   (0.1) on a compacted topic: the cleaner re-copies the whole log for little gain, again and
//!   again. Suggested 0.5 (Kafka's default).
//! - `config.file_delete_delay_zero` (info): `file.delete.delay.ms=0`: a deleted segment's files
//!   go at once, under readers (fetches, the cleaner) that still have them. Suggested 60000.
//! - `config.cleaner_threads_few` (info): `log.cleaner.threads` ≤ 1 with more than
//!   [`COMPACTED_PER_THREAD`] (50) compacted partition replicas in these log dirs that the
//!   cleaner has work for (the plan's verdict: it takes them on its next passes): the cleaner
//!   cleans one log at a time, each waits for all the others. Compacted logs with nothing due
//!   wait for nothing. Suggested: one thread per 50 due.
//! - `config.timestamp_after_unlimited` (warning): `message.timestamp.after.max.ms` is
//!   `Long.MAX_VALUE` (unlimited; Kafka 3.x's default, 1 h since 4.0,
//!   `ServerLogConfigs.LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS_DEFAULT`) on a `CreateTime` topic: a
//!   producer with a wrong clock can stamp records far ahead, and those block time retention.
//!   Suggested 3600000.

use super::commands;
use std::collections::BTreeMap;

use crate::checks::catalog::{self, FindingKind};
use crate::checks::finding::{EvidenceValue, Finding, Location};
use crate::config::log_config::TimestampType;
use crate::model::cluster::ClusterView;
use crate::model::text::age;
use crate::plan::{PartitionPlan, Plan};

use super::disk::{write_rate, WriteRate};

/// Bytes a partition keeps under `retention.ms` that make a topic busy (10 GiB).
pub const BUSY_KEPT_BYTES: u64 = 10 * 1024 * 1024 * 1024;
/// `min.cleanable.dirty.ratio` below this is very low.
pub const LOW_DIRTY_RATIO: f64 = 0.1;
/// Compacted partition replicas one cleaner thread is expected to keep up with.
pub const COMPACTED_PER_THREAD: usize = 50;
/// Kafka's minimum `segment.bytes` (1 MiB).
const MIN_SEGMENT_BYTES: u64 = 1024 * 1024;

/// A duration in words (`3 h`, `2 d`).
fn span(ms: i64) -> String {
    age(0, ms).trim_end_matches(" ago").to_string()
}

/// One topic's partitions in the plan.
struct Topic<'a> {
    name: &'a str,
    first: &'a PartitionPlan,
    /// The busiest partition's rate.
    rate: Option<WriteRate>,
}

fn topics(plan: &Plan) -> Vec<Topic<'_>> {
    let now = plan.now.get();
    let mut by: BTreeMap<&str, Topic<'_>> = BTreeMap::new();
    for p in &plan.partitions {
        let rate = write_rate(p, now);
        let t = by.entry(p.topic.as_str()).or_insert(Topic {
            name: &p.topic,
            first: p,
            rate: None,
        });
        if let Some(r) = rate {
            if t.rate.is_none_or(|old| r.per_hour() > old.per_hour()) {
                t.rate = Some(r);
            }
        }
    }
    by.into_values().collect()
}

/// The key's value and source as the view resolved them for `topic`.
fn source(view: &ClusterView, topic: &str, key: &str) -> (String, &'static str) {
    view.topics
        .get(topic)
        .and_then(|t| t.resolved.get(key))
        .map_or_else(
            || (String::new(), "DEFAULT_CONFIG"),
            |v| (v.value.clone(), v.source.name()),
        )
}

fn finding(
    kind: &'static FindingKind,
    view: &ClusterView,
    t: &Topic<'_>,
    key: &'static str,
    suggested: String,
    message: String,
) -> Finding {
    let (value, src) = source(view, t.name, key);
    Finding::new(
        kind,
        Location {
            log_dir: t.first.log_dir.clone(),
            topic: Some(t.name.to_string()),
            ..Location::default()
        },
        message,
    )
    .evidence("key", EvidenceValue::Text(key.to_string()))
    .evidence("value", EvidenceValue::Text(value))
    .evidence("source", EvidenceValue::Text(src.to_string()))
    .evidence("suggested", EvidenceValue::Text(suggested.clone()))
    .fix(format!(
        "`{}` (or the broker default `log.*` key)",
        commands::alter_topic(t.name, key, &suggested)
    ))
}

fn retention_bytes(view: &ClusterView, t: &Topic<'_>) -> Option<Finding> {
    let c = &t.first.config;
    if !c.cleanup_policy.delete || c.retention_bytes.max().is_some() {
        return None;
    }
    let rate = t.rate.filter(|r| r.bytes > 0)?;
    let kept = c.retention_ms.max().map(|ms| {
        let v = i128::from(rate.per_hour()) * i128::from(ms) / 3_600_000;
        u64::try_from(v).unwrap_or(u64::MAX)
    });
    if kept.is_some_and(|k| k < BUSY_KEPT_BYTES) {
        return None;
    }
    let week = rate.per_hour().saturating_mul(168);
    let suggested = kept.unwrap_or(week);
    let what = kept.map_or_else(
        || {
            format!(
                "retention.ms is -1 too: nothing bounds the partitions ({} B/h, {week} B a week)",
                rate.per_hour()
            )
        },
        |k| {
            format!(
                "at {} B/h retention.ms alone keeps {k} B per partition",
                rate.per_hour()
            )
        },
    );
    Some(
        finding(
            &catalog::CONFIG_RETENTION_BYTES_UNLIMITED,
            view,
            t,
            "retention.bytes",
            suggested.to_string(),
            format!(
                "no retention.bytes and busy: {what}; a burst fills the disk before time \
                 retention deletes anything"
            ),
        )
        .evidence("bytes_per_hour", EvidenceValue::Bytes(rate.per_hour()))
        .evidence(
            "kept_bytes",
            // retention.ms -1 too: nothing bounds it (not u64::MAX bytes).
            kept.map_or(
                EvidenceValue::Text("unbounded".to_string()),
                EvidenceValue::Bytes,
            ),
        ),
    )
}

fn segment_bytes(view: &ClusterView, t: &Topic<'_>) -> Option<Finding> {
    let c = &t.first.config;
    if !c.cleanup_policy.delete {
        return None;
    }
    let retention = c.retention_ms.max()?;
    let rate = t.rate.filter(|r| r.per_hour() > 0)?;
    let seg = u64::try_from(c.segment_bytes).ok()?;
    let fill_ms = i64::try_from(i128::from(seg) * 3_600_000 / i128::from(rate.per_hour()))
        .unwrap_or(i64::MAX);
    if fill_ms <= retention || fill_ms >= c.segment_ms {
        return None;
    }
    let quarter = i128::from(rate.per_hour()) * i128::from(retention) / 4 / 3_600_000;
    let suggested = u64::try_from(quarter)
        .unwrap_or(u64::MAX)
        .div_ceil(MIN_SEGMENT_BYTES)
        .max(1)
        .saturating_mul(MIN_SEGMENT_BYTES);
    let lives = retention.saturating_add(fill_ms);
    Some(
        finding(
            &catalog::CONFIG_SEGMENT_BYTES_SLOW_ROLL,
            view,
            t,
            "segment.bytes",
            suggested.to_string(),
            format!(
                "topic {}: at {} B/h a {seg} B segment takes {} to fill, longer than \
                 retention.ms ({}), and segment.ms ({}) does not roll it sooner: records live up \
                 to {} (retention + fill time)",
                t.name,
                rate.per_hour(),
                span(fill_ms),
                span(retention),
                span(c.segment_ms),
                span(lives)
            ),
        )
        .evidence("bytes_per_hour", EvidenceValue::Bytes(rate.per_hour()))
        .evidence("fill_ms", EvidenceValue::Int(fill_ms))
        .evidence("retention_ms", EvidenceValue::Int(retention))
        .evidence("lives_up_to_ms", EvidenceValue::Int(lives)),
    )
}

fn dirty_ratio(view: &ClusterView, t: &Topic<'_>) -> Option<Finding> {
    let c = &t.first.config;
    if !c.cleanup_policy.compact || c.min_cleanable_dirty_ratio >= LOW_DIRTY_RATIO {
        return None;
    }
    Some(finding(
        &catalog::CONFIG_MIN_CLEANABLE_RATIO_LOW,
        view,
        t,
        "min.cleanable.dirty.ratio",
        "0.5".to_string(),
        format!(
            "topic {}: min.cleanable.dirty.ratio {} is below 0.1: the cleaner re-copies the whole \
             log as soon as a tenth of it is dirty, again and again, for little gain",
            t.name, c.min_cleanable_dirty_ratio
        ),
    ))
}

fn delete_delay(view: &ClusterView, t: &Topic<'_>) -> Option<Finding> {
    if t.first.config.file_delete_delay_ms != 0 {
        return None;
    }
    Some(finding(
        &catalog::CONFIG_FILE_DELETE_DELAY_ZERO,
        view,
        t,
        "file.delete.delay.ms",
        "60000".to_string(),
        format!(
            "topic {}: file.delete.delay.ms is 0: a deleted or cleaned segment's files are removed \
             at once, under fetches, replication and the cleaner that still read them",
            t.name
        ),
    ))
}

fn timestamp_after(view: &ClusterView, t: &Topic<'_>) -> Option<Finding> {
    let c = &t.first.config;
    if c.message_timestamp_after_max_ms != i64::MAX
        || c.message_timestamp_type == TimestampType::LogAppendTime
    {
        return None;
    }
    Some(finding(
        &catalog::CONFIG_TIMESTAMP_AFTER_UNLIMITED,
        view,
        t,
        "message.timestamp.after.max.ms",
        "3600000".to_string(),
        format!(
            "topic {}: message.timestamp.after.max.ms is unlimited (Long.MAX_VALUE; Kafka 4.x's \
             default is 1 h): records stamped any time ahead are accepted, and a future \
             timestamp stops time retention of its segment and every newer one",
            t.name
        ),
    ))
}

fn cleaner_threads(view: &ClusterView, plan: &Plan) -> Option<Finding> {
    let threads = plan.broker.log_cleaner_threads;
    let compacted = plan
        .partitions
        .iter()
        .filter(|p| p.config.cleanup_policy.compact)
        .count();
    // Only logs the cleaner has work for wait for each other: the plan's verdicts say which.
    let due = plan
        .partitions
        .iter()
        .filter(|p| p.compaction.as_ref().is_some_and(|c| c.will_clean))
        .count();
    if threads > 1 || due <= COMPACTED_PER_THREAD {
        return None;
    }
    let suggested = due.div_ceil(COMPACTED_PER_THREAD);
    let (value, src) = view.broker.get("log.cleaner.threads").map_or_else(
        || (threads.to_string(), "DEFAULT_CONFIG"),
        |v| (v.value.clone(), v.source.name()),
    );
    let log_dir = plan.partitions.first()?.log_dir.clone();
    Some(
        Finding::new(
            &catalog::CONFIG_CLEANER_THREADS_FEW,
            Location {
                log_dir,
                ..Location::default()
            },
            format!(
                "log.cleaner.threads is {threads} and {due} of {compacted} compacted partition \
                 replicas are due for cleaning (more than {COMPACTED_PER_THREAD} per thread): \
                 the cleaner cleans one log at a time, so each waits for all the others"
            ),
        )
        .evidence(
            "key",
            EvidenceValue::Text("log.cleaner.threads".to_string()),
        )
        .evidence("value", EvidenceValue::Text(value))
        .evidence("source", EvidenceValue::Text(src.to_string()))
        .evidence("suggested", EvidenceValue::Text(suggested.to_string()))
        .evidence(
            "compacted_partitions",
            EvidenceValue::Count(compacted as u64),
        )
        .evidence("logs_due", EvidenceValue::Count(due as u64))
        .fix(format!(
            "set `log.cleaner.threads={suggested}` (server.properties, or `{}`; also raise \
             `log.cleaner.dedupe.buffer.size`, which the threads share)",
            commands::alter_broker_default("log.cleaner.threads", suggested)
        )),
    )
}

/// Every config-risk finding of `plan`'s topics and broker.
pub fn config_risk_findings(view: &ClusterView, plan: &Plan) -> Vec<Finding> {
    let mut out: Vec<Finding> = topics(plan)
        .iter()
        .flat_map(|t| {
            [
                retention_bytes(view, t),
                segment_bytes(view, t),
                dirty_ratio(view, t),
                delete_delay(view, t),
                timestamp_after(view, t),
            ]
        })
        .flatten()
        .collect();
    out.extend(cleaner_threads(view, plan));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::disk::fixture;
    use crate::config::log_config::Limit;

    /// 2026-11-30T13:32:47Z, idle-active-segment's capture.
    const CAPTURED: i64 = 1_796_045_567_000;

    fn codes(view: &ClusterView, plan: &Plan) -> Vec<(&'static str, Option<String>)> {
        config_risk_findings(view, plan)
            .into_iter()
            .map(|f| (f.code, f.location.topic))
            .collect()
    }

    fn trickle(plan: &mut Plan) -> &mut PartitionPlan {
        plan.partitions
            .iter_mut()
            .find(|p| p.topic == "trickle")
            .unwrap()
    }

    #[test]
    fn the_fixture_as_captured_has_no_risk() {
        let (view, _, plan) = fixture::load("idle-active-segment", CAPTURED);
        assert_eq!(codes(&view, &plan), []);
    }

    #[test]
    fn retention_bytes_busy_rule() {
        let (view, _, mut plan) = fixture::load("idle-active-segment", CAPTURED);
        let rate = write_rate(trickle(&mut plan), CAPTURED).unwrap().per_hour();
        // Exactly the retention.ms that keeps 10 GiB at trickle's rate: fires; 1 h less: not.
        let ms = i64::try_from(u128::from(BUSY_KEPT_BYTES) * 3_600_000 / u128::from(rate)).unwrap()
            + 3_600_000;
        trickle(&mut plan).config.retention_ms = Limit::Max(ms);
        let got = codes(&view, &plan);
        assert!(got.contains(&("config.retention_bytes_unlimited", Some("trickle".into()))));
        trickle(&mut plan).config.retention_ms = Limit::Max(ms - 2 * 3_600_000);
        assert!(!codes(&view, &plan)
            .iter()
            .any(|c| c.0 == "config.retention_bytes_unlimited"));
        trickle(&mut plan).config.retention_ms = Limit::Unlimited;
        let f = config_risk_findings(&view, &plan);
        let f = f
            .iter()
            .find(|f| f.code == "config.retention_bytes_unlimited")
            .unwrap();
        assert!(
            f.message.contains("retention.ms is -1 too"),
            "{}",
            f.message
        );
        let week = rate * 168;
        assert!(f
            .evidence
            .iter()
            .any(|e| e.name == "suggested" && e.value == EvidenceValue::Text(week.to_string())));
        // A size limit: nothing to say.
        trickle(&mut plan).config.retention_bytes = Limit::Max(1);
        assert!(!codes(&view, &plan)
            .iter()
            .any(|c| c.0 == "config.retention_bytes_unlimited"));
    }

    #[test]
    fn segment_bytes_rolls_slower_than_retention() {
        let (view, _, mut plan) = fixture::load("idle-active-segment", CAPTURED);
        let rate = write_rate(trickle(&mut plan), CAPTURED).unwrap().per_hour();
        let p = trickle(&mut plan);
        p.config.segment_bytes = 1024 * 1024;
        let fill = i64::try_from(1024 * 1024 * 3_600_000 / u128::from(rate)).unwrap();
        // segment.ms rolls first: segment.bytes is not the problem.
        p.config.segment_ms = fill - 1;
        assert!(!codes(&view, &plan)
            .iter()
            .any(|c| c.0 == "config.segment_bytes_slow_roll"));
        trickle(&mut plan).config.segment_ms = fill + 1;
        let f = config_risk_findings(&view, &plan);
        let f = f
            .iter()
            .find(|f| f.code == "config.segment_bytes_slow_roll")
            .unwrap();
        assert!(f
            .evidence
            .iter()
            .any(|e| e.name == "fill_ms" && e.value == EvidenceValue::Int(fill)));
        assert!(
            f.evidence
                .iter()
                .any(|e| e.name == "lives_up_to_ms"
                    && e.value == EvidenceValue::Int(fill + 7_200_000))
        );
        // A quarter of 2 h of trickle is far below 1 MiB: Kafka's minimum is suggested.
        assert!(f.fix.contains("segment.bytes=1048576"), "{}", f.fix);
    }

    #[test]
    fn ratio_delay_and_timestamp_rules() {
        let (view, _, mut plan) = fixture::load("idle-active-segment", CAPTURED);
        let p = trickle(&mut plan);
        p.config.cleanup_policy.compact = true;
        p.config.min_cleanable_dirty_ratio = 0.1;
        p.config.file_delete_delay_ms = 1;
        p.config.message_timestamp_after_max_ms = i64::MAX - 1;
        assert_eq!(codes(&view, &plan), [], "at the thresholds: quiet");
        let p = trickle(&mut plan);
        p.config.min_cleanable_dirty_ratio = 0.09;
        p.config.file_delete_delay_ms = 0;
        p.config.message_timestamp_after_max_ms = i64::MAX;
        let got: Vec<_> = codes(&view, &plan).into_iter().map(|c| c.0).collect();
        assert_eq!(
            got,
            [
                "config.min_cleanable_ratio_low",
                "config.file_delete_delay_zero",
                "config.timestamp_after_unlimited"
            ]
        );
        trickle(&mut plan).config.message_timestamp_type = TimestampType::LogAppendTime;
        assert!(!codes(&view, &plan)
            .iter()
            .any(|c| c.0 == "config.timestamp_after_unlimited"));
    }

    /// 2026-11-30T13:42:20Z, compacted's capture: compacted-0 (dirty ratio 0.642) is due for
    /// cleaning, compacted-1 (0.05, under min.cleanable.dirty.ratio 0.5) is not.
    const COMPACTED_CAPTURED: i64 = 1_796_046_140_000;

    fn threads_few(view: &ClusterView, plan: &Plan) -> Option<Finding> {
        config_risk_findings(view, plan)
            .into_iter()
            .find(|f| f.code == "config.cleaner_threads_few")
    }

    fn count(f: &Finding, name: &str) -> Option<u64> {
        f.evidence
            .iter()
            .find(|e| e.name == name)
            .and_then(|e| match e.value {
                EvidenceValue::Count(n) => Some(n),
                _ => None,
            })
    }

    #[test]
    fn cleaner_threads_rule_is_more_than_50_due_logs_per_thread() {
        let (view, _, mut plan) = fixture::load("compacted", COMPACTED_CAPTURED);
        let verdict = |name: &str| {
            let p = plan.partitions.iter().find(|p| p.dir_name == name).unwrap();
            (p.clone(), p.compaction.as_ref().unwrap().will_clean)
        };
        let ((due, due_cleans), (idle, idle_cleans)) =
            (verdict("compacted-0"), verdict("compacted-1"));
        assert!(due_cleans && !idle_cleans, "the fixture's verdicts");
        assert_eq!(plan.broker.log_cleaner_threads, 1);
        fn copies(template: &PartitionPlan, from: i32, n: i32) -> Vec<PartitionPlan> {
            (from..from + n)
                .map(|i| {
                    let mut p = template.clone();
                    p.partition = i;
                    p
                })
                .collect()
        }
        // 60 compacted logs, none with work for the cleaner: nothing waits (it fired before).
        plan.partitions = copies(&idle, 0, 60);
        assert!(threads_few(&view, &plan).is_none());
        // 50 due: one thread keeps up.
        plan.partitions.extend(copies(&due, 100, 50));
        assert!(threads_few(&view, &plan).is_none());
        plan.partitions.extend(copies(&due, 200, 1));
        let f = threads_few(&view, &plan).unwrap();
        assert_eq!(count(&f, "logs_due"), Some(51));
        assert_eq!(count(&f, "compacted_partitions"), Some(111));
        assert!(f.fix.contains("log.cleaner.threads=2"), "{}", f.fix);
        assert!(f.message.contains("51 of 111"), "{}", f.message);
        plan.broker.log_cleaner_threads = 2;
        assert!(threads_few(&view, &plan).is_none());
    }
}
