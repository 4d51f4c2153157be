//! Future and suspicious record timestamps, per partition (`partition.future_timestamps`,
//! `partition.timestamp_unit_suspect`), from what the shallow load already read of each
//! segment: the first and last batch's max timestamp, the largest seen by the walk, and the
//! time index's last entry (no new reads).
//!
//! `plan.future_timestamp_blocks` stays the plan's word on retention (the one segment where time
//! retention stops now); `partition.future_timestamps` is about the timestamps themselves: how
//! many segments hold one beyond [`FUTURE_TOLERANCE_MS`] (1 h, Kafka 4.x's default
//! `message.timestamp.after.max.ms`), the worst one, how far ahead it is, and when the segment
//! holding it can expire (that timestamp + `retention.ms`): until then it blocks time
//! retention of itself and every newer segment. Both fire on the same partition when the plan
//! is blocked now; this one also names the later future segments the plan does not reach.
//!
//! A timestamp in (0, [`SECONDS_BELOW_MS`]) (before 1973-03-03 as ms) looks like seconds: the
//! segment looks expired from the start and time retention deletes it as soon as it is not
//! the active one. One above [`MICROS_ABOVE_MS`] (after year 5138 as ms) looks like
//! microseconds (above [`NANOS_ABOVE_MS`]: nanoseconds): it never expires. These are reported
//! as a unit mistake, not as future timestamps. 0 and negative values (no timestamp, a zeroed
//! index slot) are ignored.

use super::commands;
use std::collections::HashMap;
use std::path::Path;

use rayon::prelude::*;

use crate::checks::catalog;
use crate::checks::finding::{EvidenceValue, Finding};
use crate::checks::location::at_plan;
use crate::model::log_dir::LogDir;
use crate::model::partition::{Partition, PARTITIONS_PER_TASK};
use crate::model::segment::Segment;
use crate::model::text::age;
use crate::model::text::{segment_name, utc};
use crate::model::units::TimestampMs;
use crate::plan::{PartitionPlan, Plan};
use crate::rules::retention::{self, Pass};

/// How far ahead of `now` a timestamp may be before it is reported (1 h).
pub const FUTURE_TOLERANCE_MS: i64 = 3_600_000;
/// Below this (1e11 ms, 1973-03-03) a timestamp looks like seconds.
pub const SECONDS_BELOW_MS: i64 = 100_000_000_000;
/// Above this (1e14 ms, year 5138) a timestamp looks like microseconds.
pub const MICROS_ABOVE_MS: i64 = 100_000_000_000_000;
/// Above this (1e17 ms) a timestamp looks like nanoseconds.
pub const NANOS_ABOVE_MS: i64 = 100_000_000_000_000_000;

/// The timestamps the shallow load read of `s` (0 and negative left out).
pub fn segment_timestamps(s: &Segment) -> Vec<i64> {
    let mut out = Vec::new();
    if let Some(log) = s.log_summary() {
        out.extend(log.first_batch.as_ref().map(|b| b.max_timestamp.get()));
        out.extend(log.last_batch.as_ref().map(|b| b.max_timestamp.get()));
        out.extend(log.max_timestamp_seen.map(TimestampMs::get));
    }
    if let Some(Ok(t)) = &s.time_index {
        out.push(t.kafka_last_entry.timestamp);
        out.extend(t.last_valid.map(|e| e.timestamp));
    }
    out.retain(|t| *t > 0);
    out
}

/// What a suspicious value looks like.
fn unit_of(ts: i64) -> Option<&'static str> {
    if ts < SECONDS_BELOW_MS {
        Some("seconds")
    } else if ts > NANOS_ABOVE_MS {
        Some("nanoseconds")
    } else if ts > MICROS_ABOVE_MS {
        Some("microseconds")
    } else {
        None
    }
}

/// `partition.future_timestamps` for `p` (its files `part`) at `now`.
fn future(p: &PartitionPlan, part: &Partition, now: i64) -> Option<Finding> {
    let limit = now.saturating_add(FUTURE_TOLERANCE_MS);
    let ahead: Vec<(i64, i64)> = part
        .log_segments()
        .filter_map(|s| {
            let worst = segment_timestamps(s)
                .into_iter()
                .filter(|t| *t > limit && unit_of(*t).is_none())
                .max()?;
            Some((s.base_offset.get(), worst))
        })
        .collect();
    let (first, _) = *ahead.first()?;
    let (worst_seg, worst) = ahead.iter().copied().max_by_key(|(_, t)| *t)?;
    let ahead_ms = worst.saturating_sub(now);
    let retention = p.time_retention_ms();
    let expires = retention.map(|r| worst.saturating_add(r));
    let never = if retention::passes(&p.config, &p.tiered, p.version).contains(&Pass::Time) {
        format!(
            "never by time ({} -1)",
            retention::time_limit_key(&p.config, &p.tiered)
        )
    } else {
        format!("never by time (cleanup.policy {})", p.config.cleanup_policy)
    };
    let newer = part
        .log_segments()
        .filter(|s| s.base_offset.get() > first)
        .count();
    let when = expires.map_or_else(
        || never,
        |e| format!("from {} ({})", utc(TimestampMs(e)), age(e, now)),
    );
    let mut f = Finding::new(
        &catalog::PARTITION_FUTURE_TIMESTAMPS,
        at_plan(p, Some(worst_seg)),
        format!(
            "{} segment(s) hold timestamps more than 1 h in the future; the worst, {} in segment \
             {}, is {} ahead: time retention of segment {} and the {newer} newer one(s) waits on \
             them; the worst can expire {when}",
            ahead.len(),
            utc(TimestampMs(worst)),
            segment_name(crate::model::units::Offset(worst_seg)),
            age(now, worst).trim_end_matches(" ago"),
            segment_name(crate::model::units::Offset(first)),
        ),
    )
    .evidence("segments", EvidenceValue::Count(ahead.len() as u64))
    .evidence("first_segment", EvidenceValue::Offset(first))
    .evidence("worst_segment", EvidenceValue::Offset(worst_seg))
    .evidence("worst_timestamp", EvidenceValue::TimestampMs(worst))
    .evidence("ahead_ms", EvidenceValue::Int(ahead_ms))
    .evidence("newer_segments", EvidenceValue::Count(newer as u64))
    .evidence(
        "message_timestamp_after_max_ms",
        EvidenceValue::Int(p.config.message_timestamp_after_max_ms),
    );
    if let Some(e) = expires {
        f = f.evidence("expires_at", EvidenceValue::TimestampMs(e));
    }
    let past = p.offset_past(crate::model::units::Offset(worst_seg)).get();
    // Records more than an hour ahead are rejected from here on (KIP-1030's 4.0 default).
    let cap = 3_600_000;
    let cap_them = if p.config.message_timestamp_after_max_ms > cap {
        format!(
            " and cap future timestamps on topic {}: `{}` (now {})",
            p.topic,
            commands::alter_topic(&p.topic, "message.timestamp.after.max.ms", cap),
            p.config.message_timestamp_after_max_ms
        )
    } else {
        String::new()
    };
    let fix = format!(
        "fix the producers' clocks{cap_them}; to free the space before then, delete the records \
         before offset {past} (the log-start pass ignores timestamps): `{}`",
        commands::delete_records(&p.topic, p.partition, past),
    );
    Some(f.fix(fix))
}

/// `partition.timestamp_unit_suspect` for `p`.
fn unit(p: &PartitionPlan, part: &Partition) -> Option<Finding> {
    let odd: Vec<(i64, i64, &'static str)> = part
        .log_segments()
        .filter_map(|s| {
            let t = segment_timestamps(s)
                .into_iter()
                .find(|t| unit_of(*t).is_some())?;
            Some((s.base_offset.get(), t, unit_of(t)?))
        })
        .collect();
    let (seg, ts, what) = *odd.first()?;
    let effect = if what == "seconds" {
        "the segment looks expired since 1970: time retention deletes it as soon as it is not \
         the active segment, whatever retention.ms says"
    } else {
        "the segment never expires by time and blocks time retention of every newer segment"
    };
    Some(
        Finding::new(
            &catalog::PARTITION_TIMESTAMP_UNIT_SUSPECT,
            at_plan(p, Some(seg)),
            format!(
                "{} segment(s) hold timestamps that look like {what}, not milliseconds (segment \
                 {}: {ts}): {effect}",
                odd.len(),
                segment_name(crate::model::units::Offset(seg)),
            ),
        )
        .evidence("segments", EvidenceValue::Count(odd.len() as u64))
        .evidence("first_segment", EvidenceValue::Offset(seg))
        .evidence("timestamp", EvidenceValue::Int(ts))
        .evidence("looks_like", EvidenceValue::Text(what.to_string()))
        .fix(format!(
            "fix the producer to send milliseconds since the epoch; until then let the broker \
             stamp the records: `{}`, or bound `message.timestamp.before.max.ms` / \
             `message.timestamp.after.max.ms` so the broker rejects such records",
            commands::alter_topic(&p.topic, "message.timestamp.type", "LogAppendTime")
        )),
    )
}

/// The timestamp findings of every planned partition.
pub fn timestamp_findings(dirs: &[LogDir], plan: &Plan) -> Vec<Finding> {
    // Keyed by borrowed paths and names (no copy per partition); a key given twice keeps its
    // last partition, as a map collected in order does.
    let parts: HashMap<(&Path, &str), &Partition> = dirs
        .iter()
        .flat_map(|d| {
            d.partitions
                .iter()
                .map(move |p| ((d.path.as_path(), p.dir_name.as_str()), p))
        })
        .collect();
    let now = plan.now.get();
    // Each partition is judged alone: in parallel, the findings in the plan's order (only
    // those found held: a slot per partition held 15 MB on 10,000 partitions).
    (plan.partitions.par_iter())
        .with_max_len(PARTITIONS_PER_TASK)
        .flat_map_iter(|p| {
            let part = parts.get(&(p.log_dir.as_path(), p.dir_name.as_str()));
            part.into_iter()
                .flat_map(|part| [future(p, part, now), unit(p, part)])
                .flatten()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_by_magnitude() {
        assert_eq!(unit_of(1_700_000_000), Some("seconds"));
        assert_eq!(unit_of(1_700_000_000_000), None);
        assert_eq!(unit_of(1_700_000_000_000_000), Some("microseconds"));
        assert_eq!(unit_of(1_700_000_000_000_000_000), Some("nanoseconds"));
    }
}

#[cfg(test)]
mod fixture_tests {
    use super::*;
    use crate::checks::disk::fixture;

    /// 2026-11-30T13:33:04Z, future-timestamps' capture; base 2026-11-30T13:32:00Z.
    const CAPTURED: i64 = 1_796_045_584_000;
    const BASE: i64 = 1_796_045_520_000;

    #[test]
    fn the_far_future_segment_is_the_worst() {
        let (_, dirs, plan) = fixture::load("future-timestamps", CAPTURED);
        let f = timestamp_findings(&dirs, &plan);
        assert_eq!(f.len(), 1, "{f:#?}");
        assert_eq!(f[0].code, "partition.future_timestamps");
        assert_eq!(f[0].location.segment, Some(14));
        let ev = |n: &str| {
            f[0].evidence
                .iter()
                .find(|e| e.name == n)
                .unwrap()
                .value
                .clone()
        };
        assert_eq!(
            ev("worst_timestamp"),
            EvidenceValue::TimestampMs(BASE + 365 * 86_400_000)
        );
        assert_eq!(ev("segments"), EvidenceValue::Count(1));
        // At the record's own time it is no longer ahead.
        let (_, dirs, plan) = fixture::load("future-timestamps", BASE + 365 * 86_400_000);
        assert!(timestamp_findings(&dirs, &plan).is_empty());
        // Less than the tolerance ahead: quiet.
        let (_, dirs, plan) = fixture::load(
            "future-timestamps",
            BASE + 365 * 86_400_000 - FUTURE_TOLERANCE_MS,
        );
        assert!(timestamp_findings(&dirs, &plan).is_empty());
    }

    #[test]
    fn healthy_fixture_is_quiet() {
        let (_, dirs, plan) = fixture::load("basic-delete", 1_796_045_553_000);
        assert!(timestamp_findings(&dirs, &plan).is_empty());
    }
}
