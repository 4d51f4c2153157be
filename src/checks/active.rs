//! `segment.active_not_rolling`: an active segment that holds records older than
//! `retention.ms` which the next retention pass does not delete, and that will not roll (so
//! become deletable) within `retention.ms` at its write rate — or never, for an idle partition:
//! no timer rolls a segment, `segment.ms` is only checked on append ([`project_roll`]).

use crate::checks::catalog;
use crate::checks::finding::{EvidenceValue, Finding};
use crate::checks::location::at_plan;
use crate::model::text::age;
use crate::model::text::{segment_name, utc};
use crate::model::units::{Bytes, TimestampMs};
use crate::plan::{PartitionPlan, Plan};
use crate::rules::retention::{self, Verdict};
use crate::rules::roll::{
    max_segment_ms, project_roll, ActiveSegmentFacts, ProjectedReason, RollProjection, WriteRate,
};
use crate::rules::KafkaVersion;

/// The write rate the active segment shows: its bytes over the record-time span from its
/// first to its largest timestamp, in appends of its average bytes per offset. `None` when the
/// span is empty (one instant) or the segment is empty.
pub fn estimated_rate(
    size: Bytes,
    offsets: i64,
    first: TimestampMs,
    largest: TimestampMs,
) -> Option<WriteRate> {
    let span_ms = largest.get().checked_sub(first.get()).filter(|s| *s > 0)?;
    let size = size.get();
    if size == 0 || offsets <= 0 {
        return None;
    }
    let bytes_per_sec = u64::try_from(i128::from(size) * 1000 / i128::from(span_ms)).ok()?;
    let batch_bytes = size / u64::try_from(offsets).ok()?;
    Some(WriteRate {
        bytes_per_sec: bytes_per_sec.max(1),
        batch_bytes: batch_bytes.max(1),
    })
}

fn reason_name(r: ProjectedReason) -> &'static str {
    match r {
        ProjectedReason::Size => "segment.bytes",
        ProjectedReason::Time => "segment.ms",
        ProjectedReason::OffsetIndexFull => "a full offset index",
        ProjectedReason::TimeIndexFull => "a full time index",
    }
}

fn one(p: &PartitionPlan, now: TimestampMs, version: KafkaVersion) -> Option<Finding> {
    let retention_ms = p.time_retention_ms()?;
    let key = retention::time_limit_key(&p.config, &p.tiered);
    let active = p.segments.last()?;
    if matches!(active.verdict, Verdict::Delete { .. }) || active.size.get() == 0 {
        return None;
    }
    let first = active.first_timestamp.filter(|t| t.get() >= 0)?;
    if !p.expired_by_time(first, now) {
        return None;
    }
    let largest = active.largest_timestamp.0;
    let offsets = active.next_offset.get() - active.base_offset.get();
    let rate = estimated_rate(active.size, offsets, first, largest);
    let facts = ActiveSegmentFacts {
        base_offset: active.base_offset,
        size: active.size,
        first_batch_max_timestamp: first,
        first_append_max_timestamp: None,
        created_at: now,
        roll_jitter_ms: 0,
        offset_index_entries: 0,
        time_index_entries: 0,
    };
    let projection = project_roll(&facts, rate, &p.config, now, version);
    let deadline = now.get().saturating_add(retention_ms);
    let name = segment_name(active.base_offset);
    let topic = &p.topic;
    let seg_ms = max_segment_ms(&p.config);
    let (when, late) = match projection {
        RollProjection::Never => (
            "nothing is appended to it, and an idle partition never rolls on segment.ms (the \
             roll is checked only on append)"
                .to_string(),
            true,
        ),
        RollProjection::At { at, reason } => (
            format!(
                "at its write rate of {} B/s it rolls on {} at {} ({})",
                rate.map_or(0, |r| r.bytes_per_sec),
                reason_name(reason),
                utc(at),
                age(at.get(), now.get())
            ),
            at.get() > deadline,
        ),
    };
    if !late {
        return None;
    }
    let message = format!(
        "active segment {name} holds records from {} ({}), older than {key} {retention_ms}; \
         retention cannot delete it before it rolls: {when}",
        utc(first),
        age(first.get(), now.get()),
    );
    let fix = format!(
        "let it roll sooner: `kafka-configs.sh --bootstrap-server HOST:PORT --alter \
         --entity-type topics --entity-name {topic} --add-config segment.ms={retention_ms}` \
         (segment.ms is {seg_ms}; it only applies on the next append), or with the broker \
         stopped `logclean roll --execute {}`",
        p.log_dir.join(&p.dir_name).display()
    );
    let mut f = Finding::new(
        &catalog::SEGMENT_ACTIVE_NOT_ROLLING,
        at_plan(p, Some(active.base_offset.get())),
        message,
    )
    .evidence("first_timestamp", EvidenceValue::TimestampMs(first.get()))
    .evidence(
        "largest_timestamp",
        EvidenceValue::TimestampMs(largest.get()),
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
        EvidenceValue::Count(u64::try_from(offsets).unwrap_or(0)),
    );
    if let Some(r) = rate {
        f = f.evidence("bytes_per_sec", EvidenceValue::Count(r.bytes_per_sec));
    }
    if let RollProjection::At { at, .. } = projection {
        f = f.evidence("rolls_at", EvidenceValue::TimestampMs(at.get()));
    }
    Some(f.fix(fix))
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

    #[test]
    fn rate_is_bytes_over_the_record_time_span() {
        let r = estimated_rate(Bytes(6000), 60, TimestampMs(0), TimestampMs(60_000)).unwrap();
        assert_eq!((r.bytes_per_sec, r.batch_bytes), (100, 100));
        assert!(estimated_rate(Bytes(6000), 60, TimestampMs(5), TimestampMs(5)).is_none());
        assert!(estimated_rate(Bytes(0), 0, TimestampMs(0), TimestampMs(9)).is_none());
    }
}
