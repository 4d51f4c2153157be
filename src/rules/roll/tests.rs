//! Roll tests: spec §A3 conditions, Errata 1 (rolling base) and 2 (index-full arithmetic), and
//! the idle-partition fact.

use super::*;
use crate::config::CleanupPolicy;

const HOUR: i64 = 3_600_000;
const NOW: i64 = 1_000 * HOUR;

fn active(size: u64, first_ts: i64) -> ActiveSegmentFacts {
    ActiveSegmentFacts {
        base_offset: Offset(1_000),
        size: Bytes(size),
        first_batch_max_timestamp: TimestampMs(first_ts),
        first_append_max_timestamp: None,
        created_at: TimestampMs(NOW - HOUR),
        roll_jitter_ms: 0,
        offset_index_entries: 0,
        time_index_entries: 0,
    }
}

fn batch(size: u64, ts: i64) -> IncomingBatch {
    IncomingBatch {
        size: Bytes(size),
        max_timestamp: TimestampMs(ts),
        last_offset: Offset(2_000),
    }
}

fn roll(a: &ActiveSegmentFacts, b: &IncomingBatch, c: &LogConfig) -> Option<RollReason> {
    should_roll(a, b, c, TimestampMs(NOW), KafkaVersion::V4_4)
}

#[test]
fn size_roll_counts_the_incoming_batch_and_is_strict() {
    let c = LogConfig {
        segment_bytes: 1_000,
        ..LogConfig::default()
    };
    // 900 + 100 = 1000: may reach segment.bytes exactly.
    assert_eq!(roll(&active(900, NOW), &batch(100, NOW), &c), None);
    assert_eq!(
        roll(&active(901, NOW), &batch(100, NOW), &c),
        Some(RollReason::Size {
            active: Bytes(901),
            incoming: Bytes(100),
            limit: Bytes(1_000)
        })
    );
}

#[test]
fn time_roll_uses_record_time_from_the_rolling_base_minus_jitter() {
    let c = LogConfig {
        segment_ms: 10 * HOUR,
        ..LogConfig::default()
    };
    let a = active(100, NOW - 10 * HOUR);
    assert_eq!(roll(&a, &batch(10, NOW), &c), None); // waited = limit: strict
    assert_eq!(
        roll(&a, &batch(10, NOW + 1), &c),
        Some(RollReason::Time {
            waited: DurationMs(10 * HOUR + 1),
            limit: DurationMs(10 * HOUR)
        })
    );
    let jittered = ActiveSegmentFacts {
        roll_jitter_ms: HOUR,
        ..a
    };
    assert!(matches!(
        roll(&jittered, &batch(10, NOW - HOUR + 1), &c),
        Some(RollReason::Time { .. })
    ));
    // Old producer timestamps delay the roll; a far-future one forces it.
    assert_eq!(roll(&a, &batch(10, NOW - 5 * HOUR), &c), None);
    assert!(roll(&a, &batch(10, NOW + 1_000 * HOUR), &c).is_some());
}

#[test]
fn an_empty_segment_never_rolls_by_time() {
    let c = LogConfig {
        segment_ms: 1,
        ..LogConfig::default()
    };
    assert_eq!(roll(&active(0, -1), &batch(10, NOW + HOUR), &c), None);
}

#[test]
fn without_a_first_batch_timestamp_wall_clock_since_creation_counts() {
    let c = LogConfig {
        segment_ms: HOUR - 1,
        ..LogConfig::default()
    };
    // created one hour ago, waited = now − created = 1 h > 1 h − 1 ms.
    assert!(matches!(
        roll(&active(100, -1), &batch(10, -1), &c),
        Some(RollReason::Time {
            waited: DurationMs(HOUR),
            ..
        })
    ));
}

/// KAFKA-806: the first batch's max timestamp from 4.1.0 and the 3.9.1 / 4.0.1 backports
/// (modelled as the 3.9 and 4.0 lines), the first append's before (3.6–3.8).
#[test]
fn errata_1_rolling_base_is_the_first_batch_from_kafka_806_and_the_first_append_before() {
    let mut a = active(100, NOW - 10 * HOUR);
    a.first_append_max_timestamp = Some(TimestampMs(NOW - 2 * HOUR));
    for v in [KafkaVersion::V3_9, KafkaVersion::V4_0, KafkaVersion::V4_1] {
        assert_eq!(
            rolling_base_timestamp(&a, v),
            TimestampMs(NOW - 10 * HOUR),
            "{v}"
        );
    }
    let v3_8 = KafkaVersion::new(3, 8);
    assert_eq!(
        rolling_base_timestamp(&a, v3_8),
        TimestampMs(NOW - 2 * HOUR)
    );
    let c = LogConfig {
        segment_ms: 5 * HOUR,
        ..LogConfig::default()
    };
    let b = batch(10, NOW);
    assert!(should_roll(&a, &b, &c, TimestampMs(NOW), KafkaVersion::V3_9).is_some());
    assert_eq!(should_roll(&a, &b, &c, TimestampMs(NOW), v3_8), None);
    // After a restart 3.8 reads the first batch too.
    a.first_append_max_timestamp = None;
    assert_eq!(
        rolling_base_timestamp(&a, v3_8),
        TimestampMs(NOW - 10 * HOUR)
    );
}

#[test]
fn compacted_topics_roll_by_max_compaction_lag_when_smaller() {
    let mut c = LogConfig {
        segment_ms: 10 * HOUR,
        max_compaction_lag_ms: HOUR,
        ..LogConfig::default()
    };
    assert_eq!(max_segment_ms(&c), 10 * HOUR); // delete policy: segment.ms
    c.cleanup_policy = CleanupPolicy::COMPACT;
    assert_eq!(max_segment_ms(&c), HOUR);
}

#[test]
fn index_full_rolls() {
    let c = LogConfig::default();
    assert_eq!(offset_index_max_entries(&c), 1_310_720);
    assert_eq!(time_index_max_entries(&c), 873_813);
    let mut a = active(100, NOW);
    a.offset_index_entries = 1_310_720;
    assert!(matches!(
        roll(&a, &batch(10, NOW), &c),
        Some(RollReason::OffsetIndexFull { .. })
    ));
    let mut a = active(100, NOW);
    a.time_index_entries = 873_811;
    assert_eq!(roll(&a, &batch(10, NOW), &c), None);
    a.time_index_entries = 873_812; // full at max − 1
    assert_eq!(
        roll(&a, &batch(10, NOW), &c),
        Some(RollReason::TimeIndexFull {
            entries: 873_812,
            max_entries: 873_813
        })
    );
}

#[test]
fn offset_overflow_rolls() {
    let c = LogConfig::default();
    let a = active(100, NOW);
    let mut b = batch(10, NOW);
    b.last_offset = Offset(1_000 + i64::from(i32::MAX));
    assert_eq!(roll(&a, &b, &c), None);
    b.last_offset = Offset(1_001 + i64::from(i32::MAX));
    assert!(matches!(
        roll(&a, &b, &c),
        Some(RollReason::OffsetOverflow { .. })
    ));
}

#[test]
fn jitter_is_bounded_by_segment_ms() {
    let mut c = LogConfig::default();
    assert_eq!(jitter_range(&c), (0, 0));
    c.segment_jitter_ms = 10 * HOUR;
    c.segment_ms = HOUR;
    assert_eq!(jitter_range(&c), (0, HOUR - 1));
}

#[test]
fn idle_partition_never_rolls_on_segment_ms() {
    // Folklore says segment.ms rolls a quiet partition; the broker only checks on append.
    let c = LogConfig {
        segment_ms: 1,
        ..LogConfig::default()
    };
    let a = active(100, NOW - 1_000 * HOUR);
    for rate in [
        None,
        Some(WriteRate {
            bytes_per_sec: 0,
            batch_bytes: 100,
        }),
    ] {
        assert_eq!(
            project_roll(&a, rate, &c, TimestampMs(NOW), KafkaVersion::V4_4),
            RollProjection::Never
        );
    }
    // The first append after that rolls it at once.
    let r = WriteRate {
        bytes_per_sec: 1_000,
        batch_bytes: 1_000,
    };
    assert_eq!(
        project_roll(&a, Some(r), &c, TimestampMs(NOW), KafkaVersion::V4_4),
        RollProjection::At {
            at: TimestampMs(NOW + 1_000),
            reason: ProjectedReason::Time
        }
    );
}

#[test]
fn projection_by_size_and_time() {
    let c = LogConfig {
        segment_bytes: 10_000,
        segment_ms: HOUR,
        ..LogConfig::default()
    };
    let r = WriteRate {
        bytes_per_sec: 1_000,
        batch_bytes: 1_000,
    };
    // 0 bytes: appends 1..10 fill it exactly; append 11 rolls, 11 s from now.
    assert_eq!(
        project_roll(
            &active(0, -1),
            Some(r),
            &c,
            TimestampMs(NOW),
            KafkaVersion::V4_4
        ),
        RollProjection::At {
            at: TimestampMs(NOW + 11_000),
            reason: ProjectedReason::Size
        }
    );
    // Slow writes: the time limit from the first batch fires first.
    let slow = WriteRate {
        bytes_per_sec: 1,
        batch_bytes: 100,
    };
    let a = active(100, NOW - HOUR + 50_000);
    assert_eq!(
        project_roll(&a, Some(slow), &c, TimestampMs(NOW), KafkaVersion::V4_4),
        RollProjection::At {
            at: TimestampMs(NOW + 100_000),
            reason: ProjectedReason::Time
        }
    );
}

#[test]
fn errata_2_time_index_sets_the_index_full_threshold_at_one_gib() {
    // One index entry per batch (index.interval.bytes 0) with rising timestamps: the time
    // index (873 812 usable entries) fills before 1 GiB when batches are under ~1229 B.
    let c = LogConfig {
        index_interval_bytes: 0,
        segment_ms: i64::MAX,
        ..LogConfig::default()
    };
    let at = |batch_bytes| {
        let r = WriteRate {
            bytes_per_sec: 1_000_000,
            batch_bytes,
        };
        match project_roll(
            &active(0, -1),
            Some(r),
            &c,
            TimestampMs(NOW),
            KafkaVersion::V4_4,
        ) {
            RollProjection::At { reason, .. } => reason,
            RollProjection::Never => unreachable!(),
        }
    };
    assert_eq!(at(1_200), ProjectedReason::TimeIndexFull);
    assert_eq!(at(1_300), ProjectedReason::Size);
    // At the default 4096-byte interval neither index can fill before 1 GiB.
    let d = LogConfig::default();
    let r = WriteRate {
        bytes_per_sec: 1_000_000,
        batch_bytes: 100,
    };
    assert!(matches!(
        project_roll(
            &active(0, -1),
            Some(r),
            &d,
            TimestampMs(NOW),
            KafkaVersion::V4_4
        ),
        RollProjection::At {
            reason: ProjectedReason::Size,
            ..
        }
    ));
}
