//! The internal logs nothing but their own owner frees, read from their files: the share
//! coordinator's `__share_group_state` (`group.share_state_prune_blocked`), the KRaft metadata
//! log beside its snapshots (`metadata.snapshot_stale`, `metadata.log_redundant`) and the
//! remote log metadata topic (`tiered.metadata_topic_unbounded`). The verdicts are in
//! [`crate::rules::share_state`] and [`crate::rules::metadata_retention`].

use crate::config::ConfigSource;
use crate::formats::remote_log_metadata::REMOTE_LOG_METADATA_TOPIC;
use crate::model::cluster::ClusterView;
use crate::model::coordinators::first_live_copies;
use crate::model::file_bytes::ReadMode;
use crate::model::log_dir::LogDir;
use crate::model::names::METADATA_TOPIC;
use crate::model::remote_tier::RemoteTier;
use crate::model::replays::PartitionsByPath;
use crate::model::text::{duration, segment_name, utc};
use crate::model::units::{Offset, TimestampMs};
use crate::rules::metadata_retention::{metadata_retention, MetadataRetentionConfig};
use crate::rules::share_state::{
    share_prune, COLD_PARTITION_SNAPSHOT_INTERVAL_KEY, COLD_PARTITION_SNAPSHOT_INTERVAL_MS_DEFAULT,
};

use super::catalog;
use super::finding::{EvidenceValue, Finding, Severity};
use super::location::{at_partition, at_segment};

/// A broker config as a number, with where it came from: the resolved broker config (when it
/// knows the key), else `server.properties`, else `default` (Kafka's).
fn broker_i64(view: &ClusterView, key: &str, default: i64) -> (i64, &'static str) {
    if let Some(v) = view
        .broker
        .get(key)
        .filter(|v| v.source != ConfigSource::DefaultConfig)
    {
        if let Some(n) = v.as_i64() {
            return (n, "broker config");
        }
    }
    let from_props = (view.sources.static_props.as_ref())
        .and_then(|p| p.get(key))
        .and_then(|v| v.trim().parse().ok());
    match from_props {
        Some(n) => (n, "server.properties"),
        None => (default, "Kafka default"),
    }
}

/// Every finding of this module.
pub fn internal_topic_findings(
    dirs: &[LogDir],
    view: &ClusterView,
    tier: &RemoteTier,
    now: TimestampMs,
    mode: ReadMode,
) -> Vec<Finding> {
    let mut out = share_state_findings(dirs, view, mode);
    out.extend(metadata_log_findings(dirs, view, now, mode));
    out.extend(remote_log_metadata_findings(dirs, view, tier));
    out
}

/// `group.share_state_prune_blocked`.
fn share_state_findings(dirs: &[LogDir], view: &ClusterView, mode: ReadMode) -> Vec<Finding> {
    let (cold, cold_source) = broker_i64(
        view,
        COLD_PARTITION_SNAPSHOT_INTERVAL_KEY,
        COLD_PARTITION_SNAPSHOT_INTERVAL_MS_DEFAULT,
    );
    let mut out = Vec::new();
    // Replayed now, or carried by a snapshot (the dirs may be gone).
    let states = view.records(mode).share_states(dirs);
    // The index of every partition is built only when some share state needs it.
    if states.is_empty() {
        return out;
    }
    let parts = PartitionsByPath::of(dirs);
    for r in states.iter() {
        let Some((d, p)) = parts.get(&r.path) else {
            continue;
        };
        let prune = share_prune(r, cold);
        let Some(b) = prune.blocked_by else {
            continue;
        };
        let topic = view.image.topic_by_id(&b.key.topic_id).map_or_else(
            || format!("topic id {}", b.key.topic_id),
            |(n, _)| n.to_string(),
        );
        let held = b.held_bytes();
        let first = b.held.first().map_or(0, |s| s.base_offset);
        let written = b.snapshot_write_ms.map_or_else(
            || "at an unknown time".into(),
            |w| format!("at {}", utc(TimestampMs(w))),
        );
        let age = match (b.snapshot_write_ms, r.newest_write_ms) {
            (Some(w), Some(n)) => Some(n.saturating_sub(w)),
            _ => None,
        };
        let severity = if b.stale {
            Severity::Warning
        } else {
            Severity::Info
        };
        let why = if b.stale {
            format!(
                "its snapshot is {} older than the coordinator's newest write, past the \
                 cold-partition snapshot interval ({}): it was not snapshotted again and the \
                 topic grows without bound (cleanup.policy=delete, retention.ms=-1: only the \
                 coordinator's prune deletes it)",
                age.map_or_else(|| "?".into(), duration),
                duration(cold)
            )
        } else {
            format!(
                "it holds them until the cold-partition snapshot ({} after its last snapshot) \
                 writes a new one",
                duration(cold)
            )
        };
        let prune_text = prune.prune_offset.map_or_else(
            || "the coordinator prunes nothing (its redundant offset is 0)".to_string(),
            |o| format!("the coordinator prunes only below offset {o}"),
        );
        let mut f = Finding::new(
            &catalog::GROUP_SHARE_STATE_PRUNE_BLOCKED,
            at_segment(d, p, first),
            format!(
                "share group {} on {}-{} holds {} segment(s), {} B: its latest share snapshot \
                 is at offset {} (written {written}), so {prune_text}; {why}",
                b.key.group_id,
                topic,
                b.key.partition,
                b.held.len(),
                held,
                b.snapshot_offset,
            ),
        )
        .with_severity(severity)
        .evidence("group", EvidenceValue::Text(b.key.group_id.clone()))
        .evidence("topic", EvidenceValue::Text(topic.clone()))
        .evidence("partition", EvidenceValue::Int(i64::from(b.key.partition)))
        .evidence("snapshot_offset", EvidenceValue::Offset(b.snapshot_offset));
        if let Some(w) = b.snapshot_write_ms {
            f = f.evidence("snapshot_written_at", EvidenceValue::TimestampMs(w));
        }
        if let Some(n) = r.newest_write_ms {
            f = f.evidence("newest_write_at", EvidenceValue::TimestampMs(n));
        }
        f = f
            .evidence(
                "unblocked_offset",
                EvidenceValue::Offset(b.unblocked_offset),
            )
            .evidence("held_segments", EvidenceValue::Count(b.held.len() as u64))
            .evidence("held_bytes", EvidenceValue::Bytes(held))
            .evidence(
                "share_partitions",
                EvidenceValue::Count(r.keys.len() as u64),
            )
            .evidence(
                COLD_PARTITION_SNAPSHOT_INTERVAL_KEY,
                EvidenceValue::Text(format!("{cold} ({cold_source})")),
            )
            .fix(format!(
                "make the coordinator write a new snapshot of the key, or drop it: reset the \
                 group's start offset (`kafka-share-groups.sh --bootstrap-server HOST:PORT \
                 --reset-offsets --group {g} --topic {topic} --to-latest --execute`, the group \
                 empty) or delete its state (`kafka-share-groups.sh --bootstrap-server HOST:PORT \
                 --delete-offsets --group {g} --topic {topic}`, or `--delete --group {g}`); \
                 keep `{COLD_PARTITION_SNAPSHOT_INTERVAL_KEY}` at its default (5 min)",
                g = b.key.group_id
            ));
        out.push(f);
    }
    out
}

/// The metadata log's configs.
fn metadata_config(
    view: &ClusterView,
) -> (
    MetadataRetentionConfig,
    [(&'static str, i64, &'static str); 4],
) {
    let d = MetadataRetentionConfig::default();
    let bytes = broker_i64(view, "metadata.max.retention.bytes", d.max_retention_bytes);
    let ms = broker_i64(view, "metadata.max.retention.ms", d.max_retention_ms);
    let interval = broker_i64(
        view,
        "metadata.log.max.snapshot.interval.ms",
        d.snapshot_interval_ms,
    );
    let between = broker_i64(
        view,
        "metadata.log.max.record.bytes.between.snapshots",
        d.snapshot_bytes,
    );
    (
        MetadataRetentionConfig {
            max_retention_bytes: bytes.0,
            max_retention_ms: ms.0,
            snapshot_interval_ms: interval.0,
            snapshot_bytes: between.0,
        },
        [
            ("metadata.max.retention.bytes", bytes.0, bytes.1),
            ("metadata.max.retention.ms", ms.0, ms.1),
            (
                "metadata.log.max.snapshot.interval.ms",
                interval.0,
                interval.1,
            ),
            (
                "metadata.log.max.record.bytes.between.snapshots",
                between.0,
                between.1,
            ),
        ],
    )
}

/// `metadata.snapshot_stale` and `metadata.log_redundant`.
fn metadata_log_findings(
    dirs: &[LogDir],
    view: &ClusterView,
    now: TimestampMs,
    mode: ReadMode,
) -> Vec<Finding> {
    let (cfg, keys) = metadata_config(view);
    let config_text = |i: usize| {
        keys.get(i)
            .map(|(k, v, s)| (*k, EvidenceValue::Text(format!("{v} ({s})"))))
    };
    let mut out = Vec::new();
    for d in dirs {
        for p in &d.partitions {
            if p.name.as_ref().is_none_or(|n| n.topic != METADATA_TOPIC) {
                continue;
            }
            // Read now, or carried by a snapshot (the dirs may be gone).
            let Some(facts) = view.records(mode).metadata_log(d, p) else {
                continue;
            };
            let r = metadata_retention(&facts, cfg, now.get());
            let newest = facts.newest_snapshot();
            if let (Some(stale), Some(s)) = (r.stale, newest) {
                let since = stale.ms_since.map_or_else(|| "?".into(), duration);
                let mut f = Finding::new(
                    &catalog::METADATA_SNAPSHOT_STALE,
                    at_partition(d, p),
                    format!(
                        "the newest metadata snapshot {} is {} B and {since} of records behind the \
                         log (offsets {}..{}): snapshots are generated every {} or {} B of new \
                         records, so they stopped; a restart replays everything after it, and \
                         the log below it cannot be cleaned",
                        s.name,
                        stale.bytes_since,
                        s.end_offset,
                        facts.log_end_offset,
                        duration(cfg.snapshot_interval_ms),
                        cfg.snapshot_bytes
                    ),
                )
                .evidence("snapshot", EvidenceValue::Text(s.name.clone()))
                .evidence("snapshot_end_offset", EvidenceValue::Offset(s.end_offset))
                .evidence(
                    "log_end_offset",
                    EvidenceValue::Offset(facts.log_end_offset),
                )
                .evidence(
                    "bytes_since_snapshot",
                    EvidenceValue::Bytes(stale.bytes_since),
                );
                if let Some(ms) = stale.ms_since {
                    f = f.evidence("ms_since_snapshot", EvidenceValue::Int(ms));
                }
                for (k, v) in [config_text(2), config_text(3)].into_iter().flatten() {
                    f = f.evidence(k, v);
                }
                out.push(f);
            }
            let redundant = r.redundant_bytes();
            let Some(s) = newest.filter(|_| redundant > 0) else {
                continue;
            };
            let when = match (r.cleaner_log_start, r.next_expiry_ms) {
                (Some(start), _) => format!(
                    "the metadata log cleaner's next run (every 60 s) moves the log start to {start} \
                     and deletes {} segment(s), {} B, with {} older snapshot(s)",
                    r.cleaner_deletes.len(),
                    r.cleaner_bytes(),
                    r.cleaner_deletes_snapshots
                ),
                (None, Some(t)) => format!(
                    "the cleaner keeps them until the oldest snapshot passes \
                     metadata.max.retention.ms at {}",
                    utc(TimestampMs(t))
                ),
                (None, None) => "the cleaner keeps them until metadata.max.retention.bytes is \
                                 exceeded (time retention is off or has no older snapshot)"
                    .into(),
            };
            let mut f = Finding::new(
                &catalog::METADATA_LOG_REDUNDANT,
                at_segment(d, p, r.redundant.first().map_or(0, |s| s.base_offset)),
                format!(
                    "{} metadata log segment(s), {redundant} B of {} B, lie wholly below the newest \
                     snapshot {} (a node starts from the snapshot without them); {when}",
                    r.redundant.len(),
                    facts.log_bytes(),
                    s.name
                ),
            )
            .evidence("snapshot", EvidenceValue::Text(s.name.clone()))
            .evidence("snapshot_end_offset", EvidenceValue::Offset(s.end_offset))
            .evidence("snapshots", EvidenceValue::Count(facts.snapshots.len() as u64))
            .evidence(
                "redundant_segments",
                EvidenceValue::Text(
                    (r.redundant.iter())
                        .map(|s| segment_name(Offset(s.base_offset)))
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
            )
            .evidence("redundant_bytes", EvidenceValue::Bytes(redundant))
            .evidence("log_bytes", EvidenceValue::Bytes(facts.log_bytes()));
            if let Some(o) = r.cleaner_log_start {
                f = f
                    .evidence("cleaner_log_start", EvidenceValue::Offset(o))
                    .evidence(
                        "cleaner_deletes_bytes",
                        EvidenceValue::Bytes(r.cleaner_bytes()),
                    );
            }
            if let Some(t) = r.next_expiry_ms {
                f = f.evidence("next_expiry_at", EvidenceValue::TimestampMs(t));
            }
            for (k, v) in [config_text(0), config_text(1)].into_iter().flatten() {
                f = f.evidence(k, v);
            }
            out.push(f);
        }
    }
    out
}

/// `part` × 100 / `whole`, rounded down (0 for an empty whole).
fn percent(part: u64, whole: u64) -> u64 {
    (u128::from(part) * 100)
        .checked_div(u128::from(whole))
        .map_or(0, |v| u64::try_from(v).unwrap_or(u64::MAX))
}

/// `tiered.metadata_topic_unbounded`: `__remote_log_metadata` with `retention.ms=-1` (its
/// default, `remote.log.metadata.topic.retention.ms`) and no size limit, holding records; with
/// the partition replayed, the share of its records that describe remote segments already
/// deleted (what nothing will ever need again).
fn remote_log_metadata_findings(
    dirs: &[LogDir],
    view: &ClusterView,
    tier: &RemoteTier,
) -> Vec<Finding> {
    let config = view.log_config(REMOTE_LOG_METADATA_TOPIC);
    if config.retention_ms.max().is_some() || config.retention_bytes.max().is_some() {
        return Vec::new();
    }
    // The remote retention of every tiered topic: the metadata must outlive the longest.
    let tiered: Vec<(&str, Option<i64>)> = (view.topics.iter())
        .filter(|(_, t)| t.log_config.remote_storage_enable)
        .map(|(n, t)| (n.as_str(), t.log_config.retention_ms.max()))
        .collect();
    let longest = tiered.iter().filter_map(|(_, ms)| *ms).max();
    let unbounded: Vec<&str> = (tiered.iter())
        .filter(|(_, ms)| ms.is_none())
        .map(|(n, _)| *n)
        .collect();
    let mut out = Vec::new();
    for (d, p, name) in first_live_copies(dirs) {
        if name.topic != REMOTE_LOG_METADATA_TOPIC {
            continue;
        }
        let (Some(start), Some(end)) = (p.log_start_offset(), p.log_end_offset()) else {
            continue;
        };
        let records = end.get().saturating_sub(start.get());
        if records <= 0 {
            continue;
        }
        let bytes = p.size().get();
        let first_ts = (p.log_segments())
            .filter_map(|s| {
                s.log_summary()?
                    .first_batch
                    .as_ref()
                    .map(|b| b.max_timestamp.get())
            })
            .next();
        let newest_ts = (p.log_segments())
            .filter_map(|s| s.log_summary()?.max_timestamp_seen.map(|t| t.get()))
            .max();
        // A rate over less than an hour of record time says little about a day.
        let span = match (first_ts, newest_ts) {
            (Some(a), Some(b)) if b - a >= 3_600_000 => Some(b - a),
            _ => None,
        };
        let per_day =
            span.map(|ms| (u128::from(bytes) * 86_400_000 / u128::from(ms.unsigned_abs())) as u64);
        let (severity, what_to_do) = match (unbounded.is_empty(), longest) {
            (true, Some(ms)) => (
                Severity::Warning,
                format!(
                    "every tiered topic's data expires within {} (the longest retention.ms), so \
                     its metadata can go after that",
                    duration(ms)
                ),
            ),
            (true, None) => (
                Severity::Info,
                "no topic of the metadata read is tiered now; the records describe remote \
                 segments of earlier ones"
                    .to_string(),
            ),
            (false, _) => (
                Severity::Info,
                format!(
                    "tiered topic(s) {} keep their data forever (retention.ms=-1), so no \
                     retention on the metadata topic is safe",
                    unbounded.join(", ")
                ),
            ),
        };
        let dead = tier.finished_deletes(name.partition);
        let dead_text = dead
            .filter(|x| x.records > 0)
            .map_or_else(String::new, |x| {
                format!(
                    ", {} of them ({}%) about {} remote segment(s) already deleted{}",
                    x.records,
                    percent(x.records, records.unsigned_abs()),
                    x.segments,
                    if x.never_copied > 0 {
                        format!(" ({} failed copies cleaned up)", x.never_copied)
                    } else {
                        String::new()
                    }
                )
            });
        let mut f = Finding::new(
            &catalog::TIERED_METADATA_TOPIC_UNBOUNDED,
            at_partition(d, p),
            format!(
                "{records} record(s), {bytes} B{}{dead_text}, and nothing deletes them \
                 (retention.ms=-1, retention.bytes=-1): every broker start re-reads them all; \
                 {what_to_do}",
                per_day.map_or_else(String::new, |b| format!(", growing {b} B a day"))
            ),
        )
        .with_severity(severity)
        .evidence("records", EvidenceValue::Count(records.unsigned_abs()))
        .evidence("bytes", EvidenceValue::Bytes(bytes));
        if let Some(x) = dead {
            f = f
                .evidence(
                    "records_of_deleted_segments",
                    EvidenceValue::Count(x.records),
                )
                .evidence(
                    "deleted_share_percent",
                    EvidenceValue::Count(percent(x.records, records.unsigned_abs())),
                )
                .evidence("deleted_segments", EvidenceValue::Count(x.segments))
                .evidence(
                    "failed_copies_cleaned_up",
                    EvidenceValue::Count(x.never_copied),
                );
        }
        if let Some(b) = per_day {
            f = f.evidence("bytes_per_day", EvidenceValue::Bytes(b));
        }
        if let Some(t) = first_ts {
            f = f.evidence("oldest_record_at", EvidenceValue::TimestampMs(t));
        }
        if let Some(ms) = longest {
            f = f.evidence("longest_tiered_retention_ms", EvidenceValue::Int(ms));
        }
        if !unbounded.is_empty() {
            f = f.fix(format!(
                "nothing can bound it while {} keep(s) remote data forever: give those topics a \
                 finite retention.ms first, then set the metadata topic's retention.ms above the \
                 longest tiered retention.ms",
                unbounded.join(", ")
            ));
        }
        if severity == Severity::Warning {
            if let Some(ms) = longest {
                // One day over the longest retention: "more than the maximum retention period".
                let v = ms.saturating_add(86_400_000);
                f = f.fix(format!(
                    "bound it above the longest tiered retention: `kafka-configs.sh \
                     --bootstrap-server HOST:PORT --alter --entity-type topics --entity-name \
                     {REMOTE_LOG_METADATA_TOPIC} --add-config retention.ms={v}` (and \
                     `remote.log.metadata.topic.retention.ms={v}` in server.properties for a new \
                     cluster); never below a tiered topic's retention.ms, or the broker loses \
                     the metadata of remote segments still in use"
                ));
            }
        }
        out.push(f);
    }
    out
}
