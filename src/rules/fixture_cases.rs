//! The rules on the facts of the real-broker fixtures (`fixtures/<scenario>`, Kafka 4.4.0):
//! segment bases and `.log` sizes from the files, largest timestamps from the last
//! `.timeindex` entry, offsets from `manifest.json`, timestamps relative to its `base_time_ms`.
//! The facts are copied here by hand so that these tests do not depend on the model; the
//! expected answers are the ones the manifests' notes describe. The compacted scenario's
//! phase 1 is broker-observed: the cleaner wrote `cleaner-offset-checkpoint` 35.

use crate::config::{BrokerCleanupConfig, CleanupPolicy, Limit, LogConfig};
use crate::model::units::{Bytes, Offset, TimestampMs};

use super::compaction::{self, CleanerPick, CompactionInput};
use super::facts::test_support::seg;
use super::facts::SegmentFacts;
use super::high_watermark::HighWatermark;
use super::retention::{self, Pass, RetainReason, RetentionInput, Runner, Verdict};
use super::KafkaVersion;

const MIN: i64 = 60_000;
const HOUR: i64 = 60 * MIN;
const DAY: i64 = 24 * HOUR;

/// Segments `(base, .log bytes, last .timeindex timestamp in minutes from base time)`; the
/// next segment's base (or `leo`) ends each.
fn segments(base_time: i64, leo: i64, s: &[(i64, u64, i64)]) -> Vec<SegmentFacts> {
    s.iter()
        .enumerate()
        .map(|(i, &(base, size, min))| {
            let next = s.get(i + 1).map_or(leo, |n| n.0);
            seg(base, next, size, base_time + min * MIN)
        })
        .collect()
}

fn topic(policy: CleanupPolicy, retention_ms: i64) -> LogConfig {
    LogConfig {
        cleanup_policy: policy,
        retention_ms: Limit::Max(retention_ms),
        segment_ms: HOUR,
        ..LogConfig::default()
    }
}

fn retain(
    segs: &[SegmentFacts],
    log_start: i64,
    leo: i64,
    config: &LogConfig,
    now: i64,
) -> retention::RetentionOutcome {
    retention::evaluate(&RetentionInput {
        segments: segs,
        log_start_offset: Offset(log_start),
        log_end_offset: Offset(leo),
        high_watermark: HighWatermark::given(Offset(leo)),
        config,
        broker: &BrokerCleanupConfig::default(),
        tiered: Default::default(),
        state: Default::default(),
        now: TimestampMs(now),
        version: KafkaVersion::V4_4,
    })
}

fn deleted(o: &retention::RetentionOutcome) -> Vec<bool> {
    o.segments
        .iter()
        .map(|s| matches!(s.verdict, Verdict::Delete { .. }))
        .collect()
}

#[test]
fn future_timestamps_ft_0_time_retention_stops_at_the_far_future_segment() {
    let base = 1_796_045_520_000;
    let segs = segments(
        base,
        43,
        &[
            (0, 784, -4740),
            (7, 784, -4670),
            (14, 1447, 525_600),
            (27, 784, -2940),
            (34, 784, -2870),
            (41, 224, -20),
        ],
    );
    let o = retain(&segs, 0, 43, &topic(CleanupPolicy::DELETE, DAY), base + MIN);
    assert_eq!(deleted(&o), [true, true, false, false, false, false]);
    let future = TimestampMs(base + 525_600 * MIN);
    assert_eq!(
        o.segments[2].verdict,
        Verdict::Retain {
            reason: RetainReason::FutureTimestamp {
                ts: future,
                expires_at: TimestampMs(future.get() + DAY + 1)
            }
        }
    );
    for s in &o.segments[3..] {
        assert_eq!(
            s.verdict,
            Verdict::Retain {
                reason: RetainReason::BlockedBehind {
                    base_offset: Offset(14)
                }
            }
        );
    }
    assert_eq!(o.new_log_start_offset, Offset(14));
}

#[test]
fn idle_active_segment_idle_0_expired_active_segment_is_rolled_and_deleted() {
    let base = 1_796_045_520_000;
    let segs = segments(base, 7, &[(0, 784, -240)]);
    let o = retain(&segs, 0, 7, &topic(CleanupPolicy::DELETE, HOUR), base + MIN);
    assert_eq!(deleted(&o), [true]);
    assert!(o.rolled_new_active);
    assert_eq!(o.new_log_start_offset, Offset(7));
}

#[test]
fn idle_active_segment_idle_rolled_0_every_segment_expires() {
    let base = 1_796_045_520_000;
    let segs = segments(
        base,
        13,
        &[
            (0, 448, -420),
            (4, 448, -340),
            (8, 448, -260),
            (12, 112, -240),
        ],
    );
    let o = retain(
        &segs,
        0,
        13,
        &topic(CleanupPolicy::DELETE, HOUR),
        base + MIN,
    );
    assert_eq!(deleted(&o), [true; 4]);
    assert_eq!(o.new_log_start_offset, Offset(13));
}

#[test]
fn idle_active_segment_trickle_0_one_recent_record_keeps_the_segment() {
    let base = 1_796_045_520_000;
    let segs = segments(base, 60, &[(0, 6480, -5)]);
    let o = retain(
        &segs,
        0,
        60,
        &topic(CleanupPolicy::DELETE, 2 * HOUR),
        base + MIN,
    );
    assert_eq!(
        o.segments[0].verdict,
        Verdict::Retain {
            reason: RetainReason::NotExpired {
                largest_timestamp: TimestampMs(base - 5 * MIN),
                expires_at: TimestampMs(base - 5 * MIN + 2 * HOUR + 1)
            }
        }
    );
}

#[test]
fn delete_records_dr_segments_wholly_below_the_log_start_go_the_active_one_stays() {
    let base = 1_796_045_640_000;
    let segs = segments(
        base,
        24,
        &[
            (0, 448, -410),
            (4, 448, -330),
            (8, 448, -250),
            (12, 448, -170),
            (16, 448, -90),
            (20, 448, -10),
        ],
    );
    let c = topic(CleanupPolicy::DELETE, 7 * DAY);
    let o = retain(&segs, 6, 24, &c, base + MIN);
    assert_eq!(deleted(&o), [true, false, false, false, false, false]);
    assert_eq!(o.new_log_start_offset, Offset(6));
    let o = retain(&segs, 13, 24, &c, base + MIN);
    assert_eq!(deleted(&o), [true, true, true, false, false, false]);
    // dr-2: log start = LEO, but the log-start pass never deletes the last segment.
    let o = retain(&segs, 24, 24, &c, base + MIN);
    assert_eq!(deleted(&o), [true, true, true, true, true, false]);
    assert_eq!(
        o.segments[5].pass_reasons.first(),
        Some(&(
            Pass::LogStartOffset,
            RetainReason::NotBelowLogStart {
                log_start: Offset(24),
                next_base: None
            }
        ))
    );
    assert_eq!(o.new_log_start_offset, Offset(24));
}

fn compact_delete_0() -> Vec<SegmentFacts> {
    segments(
        1_796_046_060_000,
        24,
        &[
            (0, 444, -2340),
            (4, 444, -2260),
            (8, 444, -2180),
            (12, 444, -2100),
            (16, 222, -2060),
            (18, 555, -60),
            (23, 111, -45),
        ],
    )
}

#[test]
fn compacted_compact_delete_0_time_retention_runs_in_the_cleaner_threads() {
    let base = 1_796_046_060_000;
    let segs = compact_delete_0();
    let o = retain(
        &segs,
        0,
        24,
        &topic(CleanupPolicy::COMPACT_DELETE, DAY),
        base + MIN,
    );
    assert_eq!(o.runner, Runner::CleanerThreads);
    assert_eq!(deleted(&o), [true, true, true, true, true, false, false]);
    assert_eq!(o.new_log_start_offset, Offset(18));
}

fn clean(
    segs: &[SegmentFacts],
    leo: i64,
    checkpoint: Option<i64>,
    config: &LogConfig,
) -> compaction::LogToClean {
    compaction::log_to_clean(&CompactionInput {
        segments: segs,
        log_start_offset: Offset(0),
        log_end_offset: Offset(leo),
        last_stable_offset: Offset(leo),
        checkpoint: checkpoint.map(Offset),
        config,
        now: TimestampMs(1_796_046_060_000 + MIN),
    })
}

#[test]
fn compacted_0_phase_1_pass_ends_at_the_checkpoint_the_broker_wrote() {
    // Before cleaning (sizes and timestamps of the .deleted files): 36 records, active [35, 36).
    let base = 1_796_046_060_000;
    let segs = segments(
        base,
        36,
        &[
            (0, 777, -660),
            (7, 777, -590),
            (14, 777, -520),
            (21, 777, -450),
            (28, 657, -380),
            (35, 111, -370),
        ],
    );
    let c = topic(CleanupPolicy::COMPACT, 7 * DAY);
    let t = clean(&segs, 36, None, &c);
    assert_eq!(t.stats.cleanable_bytes, Bytes(3765));
    assert_eq!(t.stats.ratio, 1.0);
    assert!(t.eligibility.is_eligible());
    assert_eq!(compaction::pass_end_offset(&t.range, None), Offset(35));
}

#[test]
fn compacted_phase_2_ratios_and_the_cleaners_pick() {
    let base = 1_796_046_060_000;
    let c = topic(CleanupPolicy::COMPACT, 7 * DAY);
    let c0 = segments(
        base,
        76,
        &[
            (0, 2109, -380),
            (35, 111, -370),
            (36, 1221, -240),
            (47, 1221, -174),
            (58, 1221, -108),
            (69, 777, -66),
        ],
    );
    let t0 = clean(&c0, 76, Some(35), &c);
    assert_eq!(
        (t0.stats.clean_bytes, t0.stats.cleanable_bytes),
        (Bytes(2109), Bytes(3774))
    );
    assert!(t0.eligibility.is_eligible()); // 0.64: "well above the 0.5 ratio"
    let c1 = segments(
        base,
        38,
        &[(0, 2109, -380), (35, 111, -370), (36, 222, -295)],
    );
    let t1 = clean(&c1, 38, Some(35), &c);
    assert_eq!(t1.stats.cleanable_bytes, Bytes(111));
    assert!(!t1.eligibility.is_eligible()); // "dirty ratio below 0.5"
                                            // compact-delete-0 was never cleaned (no checkpoint entry): ratio 1, picked first.
    let cd = topic(CleanupPolicy::COMPACT_DELETE, DAY);
    let t2 = clean(&compact_delete_0(), 24, None, &cd);
    assert_eq!(t2.stats.ratio, 1.0);
    let logs = [
        ("compacted-0", t0),
        ("compacted-1", t1),
        ("compact-delete-0", t2),
    ];
    assert_eq!(
        compaction::pick_filthiest(&logs),
        CleanerPick::Log("compact-delete-0")
    );
    assert_eq!(
        compaction::pick_filthiest(&logs[..2]),
        CleanerPick::Log("compacted-0")
    );
}
