//! `segment.active_not_rolling`: an active segment that holds records older than
//! `retention.ms` which the next retention pass does not delete, and that will not roll (so
//! become deletable) within `retention.ms` at its write rate — or never, for an idle partition:
//! no timer rolls a segment, `segment.ms` is only checked on append (the verdict:
//! [`roll_after_retention`]).

use super::commands;
use crate::checks::catalog;
use crate::checks::finding::{EvidenceValue, Finding};
use crate::checks::location::at_plan;
use crate::model::names::shell_path;
use crate::model::text::{age, duration, segment_name, utc};
use crate::model::units::TimestampMs;
use crate::plan::{PartitionPlan, Plan};
use crate::rules::retention::{self, Verdict};
use crate::rules::roll::late::{roll_after_retention, ActiveSpan, RollAfterRetention};
use crate::rules::roll::{max_segment_ms, ProjectedReason, RollProjection};
use crate::rules::KafkaVersion;

fn reason_name(r: ProjectedReason) -> &'static str {
    match r {
        ProjectedReason::Size => "segment.bytes",
        ProjectedReason::Time => "segment.ms",
        ProjectedReason::OffsetIndexFull => "a full offset index",
        ProjectedReason::TimeIndexFull => "a full time index",
    }
}

/// The active segment of `p` when its records are past time retention at `now` and the plan
/// does not delete it.
fn expired_active(p: &PartitionPlan, now: TimestampMs) -> Option<ActiveSpan> {
    let active = p.segments.last()?;
    if matches!(active.verdict, Verdict::Delete { .. }) || active.size.get() == 0 {
        return None;
    }
    let first = active.first_timestamp.filter(|t| t.get() >= 0)?;
    if !p.expired_by_time(first, now) {
        return None;
    }
    Some(ActiveSpan {
        base_offset: active.base_offset,
        size: active.size,
        offsets: active.next_offset.get() - active.base_offset.get(),
        first,
        largest: active.largest_timestamp.0,
    })
}

fn one(p: &PartitionPlan, now: TimestampMs, version: KafkaVersion) -> Option<Finding> {
    let retention_ms = p.time_retention_ms()?;
    let active = expired_active(p, now)?;
    let roll = roll_after_retention(&active, &p.config, retention_ms, now, version);
    if !roll.late {
        return None;
    }
    let key = retention::time_limit_key(&p.config, &p.tiered);
    let when = match roll.projection {
        RollProjection::Never => "nothing is appended to it, and an idle partition never rolls \
             on segment.ms (the roll is checked only on append)"
            .to_string(),
        RollProjection::At { at, reason } => format!(
            "at its write rate of {} B/s it rolls on {} at {} ({})",
            roll.rate.map_or(0, |r| r.bytes_per_sec),
            reason_name(reason),
            utc(at),
            age(at.get(), now.get())
        ),
    };
    let message = format!(
        "active segment {} holds records from {} ({}), older than {key} {retention_ms} ({}); \
         retention cannot delete it before it rolls: {when}",
        segment_name(active.base_offset),
        utc(active.first),
        age(active.first.get(), now.get()),
        duration(retention_ms),
    );
    Some(finding(p, &active, &roll, retention_ms, message))
}

fn finding(
    p: &PartitionPlan,
    active: &ActiveSpan,
    roll: &RollAfterRetention,
    retention_ms: i64,
    message: String,
) -> Finding {
    let seg_ms = max_segment_ms(&p.config);
    let fix = format!(
        "let it roll sooner: `{}` (segment.ms is {seg_ms}; it only applies on the next \
         append), or with the broker stopped `logclean roll --execute {}`",
        commands::alter_topic(&p.topic, "segment.ms", retention_ms),
        shell_path(&p.log_dir.join(&p.dir_name))
    );
    let mut f = Finding::new(
        &catalog::SEGMENT_ACTIVE_NOT_ROLLING,
        at_plan(p, Some(active.base_offset.get())),
        message,
    )
    .evidence(
        "first_timestamp",
        EvidenceValue::TimestampMs(active.first.get()),
    )
    .evidence(
        "largest_timestamp",
        EvidenceValue::TimestampMs(active.largest.get()),
    )
    .evidence("retention_ms", EvidenceValue::Int(retention_ms))
    .evidence("segment_ms", EvidenceValue::Int(seg_ms))
    .evidence(
        "segment_bytes",
        EvidenceValue::Int(i64::from(p.config.segment_bytes)),
    )
    .evidence("size", EvidenceValue::Bytes(active.size.get()))
    .evidence(
        "offsets",
        EvidenceValue::Count(u64::try_from(active.offsets).unwrap_or(0)),
    );
    if let Some(r) = roll.rate {
        f = f.evidence("bytes_per_sec", EvidenceValue::Count(r.bytes_per_sec));
    }
    if let RollProjection::At { at, .. } = roll.projection {
        f = f.evidence("rolls_at", EvidenceValue::TimestampMs(at.get()));
    }
    f.fix(fix)
}

/// The `segment.active_not_rolling` findings of `plan`.
pub fn active_segment_findings(plan: &Plan, version: KafkaVersion) -> Vec<Finding> {
    plan.partitions
        .iter()
        .filter_map(|p| one(p, plan.now, version))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::model::cluster::{ClusterInputs, ClusterView};
    use crate::model::file_bytes::ReadMode;
    use crate::model::log_dir::{load_log_dir, Selection};
    use crate::model::segment::{LoadOptions, ScanDepth};
    use crate::plan::{build_plan, PlanOptions};
    use crate::rules::retention::RetainReason;

    /// The plan of `fixtures/idle-active-segment` at `now`.
    fn fixture_plan(now: i64) -> Plan {
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/idle-active-segment/logs-0");
        let view = ClusterView::build(&ClusterInputs {
            log_dirs: vec![dir.clone()],
            ..ClusterInputs::default()
        })
        .unwrap();
        let opts = LoadOptions::tail_with_internal_topics_at(ScanDepth::Headers, ReadMode::Mmap);
        let d = load_log_dir(&dir, &Selection::default(), &opts, &|| {}).unwrap();
        let opts = PlanOptions {
            now: TimestampMs(now),
            topics: Vec::new(),
            version: KafkaVersion::default(),
        };
        build_plan(&view, &[d], &opts)
    }

    /// 2026-11-30T13:32:47Z, the fixture's capture.
    const CAPTURED: i64 = 1_796_045_567_000;

    #[test]
    fn trickle_fires_and_expired_idle_partitions_do_not() {
        let plan = fixture_plan(CAPTURED);
        let f = active_segment_findings(&plan, KafkaVersion::default());
        let at: Vec<_> = f.iter().map(|f| f.location.dir.clone().unwrap()).collect();
        // idle-0 and idle-rolled-0 expired whole: retention rolls and deletes them.
        assert_eq!(at, ["trickle-0"]);
        assert!(
            f[0].message.contains("rolls on segment.ms"),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn an_idle_partition_that_retention_keeps_never_rolls() {
        let mut plan = fixture_plan(CAPTURED);
        let p = plan
            .partitions
            .iter_mut()
            .find(|p| p.topic == "idle")
            .unwrap();
        // Kept (say by the HW gate) with one record time: no write rate, so no roll ever.
        let s = p.segments.last_mut().unwrap();
        s.verdict = Verdict::Retain {
            reason: RetainReason::RetentionUnlimited,
        };
        s.largest_timestamp.0 = s.first_timestamp.unwrap();
        let f = active_segment_findings(&plan, KafkaVersion::default());
        let idle = f
            .iter()
            .find(|f| f.location.topic.as_deref() == Some("idle"))
            .unwrap();
        assert!(
            idle.message.contains("never rolls on segment.ms"),
            "{}",
            idle.message
        );
        assert!(!idle.evidence.iter().any(|e| e.name == "rolls_at"));
    }
}
