//! Retention tests: every §B6 edge case by name, the errata that are rules, and properties.

use super::*;
use crate::config::Limit;
use crate::rules::facts::test_support::seg;
use crate::rules::high_watermark::HighWatermark;

const DAY: i64 = 86_400_000;
const NOW: i64 = 100 * DAY;

fn cfg(retention_ms: i64, retention_bytes: i64) -> LogConfig {
    LogConfig {
        retention_ms: Limit::from_kafka(retention_ms),
        retention_bytes: Limit::from_kafka(retention_bytes),
        ..LogConfig::default()
    }
}

#[derive(Debug)]
struct Case {
    segments: Vec<SegmentFacts>,
    log_start: i64,
    leo: i64,
    hw: i64,
    config: LogConfig,
    broker: BrokerCleanupConfig,
    tiered: TieredFacts,
    state: LogState,
    version: KafkaVersion,
}

impl Case {
    /// Segments of 100 bytes each covering 10 offsets, with the given max timestamps; HW = LEO.
    fn new(timestamps: &[i64], config: LogConfig) -> Case {
        let segments: Vec<_> = timestamps
            .iter()
            .zip(0i64..)
            .map(|(&ts, i)| seg(i * 10, i * 10 + 10, 100, ts))
            .collect();
        let leo = i64::try_from(segments.len()).unwrap() * 10;
        Case {
            segments,
            log_start: 0,
            leo,
            hw: leo,
            config,
            broker: BrokerCleanupConfig::default(),
            tiered: TieredFacts::default(),
            state: LogState::default(),
            version: KafkaVersion::default(),
        }
    }

    fn run(&self) -> RetentionOutcome {
        evaluate(&RetentionInput {
            segments: &self.segments,
            log_start_offset: Offset(self.log_start),
            log_end_offset: Offset(self.leo),
            high_watermark: HighWatermark::given(Offset(self.hw)),
            config: &self.config,
            broker: &self.broker,
            tiered: self.tiered,
            state: self.state,
            now: TimestampMs(NOW),
            version: self.version,
        })
    }
}

fn old() -> i64 {
    NOW - 30 * DAY
}

fn fresh() -> i64 {
    NOW - DAY
}

/// The pass that deleted each segment, `None` for kept ones.
fn deleted_by(o: &RetentionOutcome) -> Vec<Option<Pass>> {
    o.segments
        .iter()
        .map(|s| match s.verdict {
            Verdict::Delete { pass, .. } => Some(pass),
            Verdict::Retain { .. } => None,
        })
        .collect()
}

fn reason(o: &RetentionOutcome, i: usize) -> RetainReason {
    match o.segments[i].verdict {
        Verdict::Retain { reason } => reason,
        v => panic!("segment {i} not retained: {v:?}"),
    }
}

const T: Option<Pass> = Some(Pass::Time);
const S: Option<Pass> = Some(Pass::Size);
const L: Option<Pass> = Some(Pass::LogStartOffset);

#[test]
fn hw_gate_keeps_every_segment_whose_upper_bound_is_above_the_hw() {
    let mut c = Case::new(&[old(), old(), old(), old()], cfg(7 * DAY, -1));
    c.hw = 25; // inside segment [20, 30)
    let o = c.run();
    assert_eq!(deleted_by(&o), [T, T, None, None]);
    assert!(matches!(
        reason(&o, 2),
        RetainReason::HwBelowUpperBound { upper_bound: Offset(30), hw } if hw.value == Offset(25)
    ));
    assert_eq!(
        reason(&o, 3),
        RetainReason::BlockedBehind {
            base_offset: Offset(20)
        }
    );
    assert_eq!(o.new_log_start_offset, Offset(20));
}

#[test]
fn hw_equal_to_next_base_allows_deletion() {
    let mut c = Case::new(&[old(), old(), old()], cfg(7 * DAY, -1));
    c.hw = 20;
    assert_eq!(deleted_by(&c.run()), [T, T, None]);
}

#[test]
fn hw_not_initialised_deletes_nothing_at_or_above_log_start() {
    // Before the partition is initialised the HW equals the log start offset.
    let mut c = Case::new(&[old(), old(), old()], cfg(7 * DAY, 0));
    c.hw = 0;
    let o = c.run();
    assert_eq!(deleted_by(&o), [None, None, None]);
    assert!(matches!(
        reason(&o, 0),
        RetainReason::HwBelowUpperBound { .. }
    ));
}

#[test]
fn errata_9_segments_wholly_below_log_start_are_deleted_with_an_uninitialised_hw() {
    let mut c = Case::new(&[old(), old(), old(), old()], cfg(7 * DAY, -1));
    c.log_start = 25;
    c.hw = 25; // HW = log start
    let o = c.run();
    assert_eq!(deleted_by(&o), [L, L, None, None]);
    assert_eq!(o.new_log_start_offset, Offset(25));
    assert!(matches!(
        reason(&o, 2),
        RetainReason::HwBelowUpperBound {
            upper_bound: Offset(30),
            ..
        }
    ));
}

#[test]
fn one_non_deletable_segment_stops_its_pass() {
    let c = Case::new(&[old(), fresh(), old(), old()], cfg(7 * DAY, -1));
    let o = c.run();
    assert_eq!(deleted_by(&o), [T, None, None, None]);
    assert!(matches!(reason(&o, 1), RetainReason::NotExpired { .. }));
    assert_eq!(
        reason(&o, 2),
        RetainReason::BlockedBehind {
            base_offset: Offset(10)
        }
    );
    assert_eq!(
        reason(&o, 3),
        RetainReason::BlockedBehind {
            base_offset: Offset(10)
        }
    );
}

#[test]
fn future_timestamp_blocks_time_deletion_of_all_newer_segments() {
    let future = NOW + DAY;
    let o = Case::new(&[old(), future, old(), old()], cfg(7 * DAY, -1)).run();
    assert_eq!(deleted_by(&o), [T, None, None, None]);
    assert_eq!(
        reason(&o, 1),
        RetainReason::FutureTimestamp {
            ts: TimestampMs(future),
            expires_at: TimestampMs(future + 7 * DAY + 1)
        }
    );
    for i in 2..4 {
        assert_eq!(
            reason(&o, i),
            RetainReason::BlockedBehind {
                base_offset: Offset(10)
            }
        );
        // Waiting only for time: eligible when the future segment expires.
        assert_eq!(
            o.segments[i].time_eligible_at,
            Some(TimestampMs(future + 7 * DAY + 1))
        );
    }
}

#[test]
fn future_timestamp_does_not_block_the_size_and_log_start_passes() {
    let future = NOW + DAY;
    let mut c = Case::new(&[future, future, future, future], cfg(7 * DAY, 250));
    c.log_start = 10;
    let o = c.run();
    // Log start removes [0,10); size 300 ≥ 250 → delete one more (200 left ≥ ... no: 200 < 250).
    assert_eq!(deleted_by(&o), [L, None, None, None]);
    assert!(matches!(
        reason(&o, 1),
        RetainReason::FutureTimestamp { .. }
    ));
    let o = Case::new(&[future, future, future, future], cfg(7 * DAY, 200)).run();
    assert_eq!(deleted_by(&o), [S, S, None, None]);
}

#[test]
fn passes_are_sequential_each_sees_what_the_previous_left() {
    // Log start removes two segments first; the size pass then sees 200 bytes, not 400.
    let mut c = Case::new(&[fresh(), fresh(), fresh(), fresh()], cfg(7 * DAY, 200));
    c.log_start = 20;
    let o = c.run();
    assert_eq!(deleted_by(&o), [L, L, None, None]);
    assert!(matches!(reason(&o, 2), RetainReason::NotExpired { .. }));
    assert_eq!(
        o.segments[2].pass_reasons,
        [
            (
                Pass::LogStartOffset,
                RetainReason::NotBelowLogStart {
                    log_start: Offset(20),
                    next_base: Some(Offset(30))
                }
            ),
            (
                Pass::Size,
                RetainReason::WithinSize {
                    remaining_if_deleted: Bytes(100),
                    limit: Bytes(200)
                }
            ),
            (
                Pass::Time,
                RetainReason::NotExpired {
                    largest_timestamp: TimestampMs(fresh()),
                    expires_at: TimestampMs(fresh() + 7 * DAY + 1)
                }
            ),
        ]
    );
    // And the time pass sees the list the size pass left.
    let o = Case::new(&[fresh(), fresh(), old(), fresh()], cfg(7 * DAY, 200)).run();
    assert_eq!(deleted_by(&o), [S, S, T, None]);
}

#[test]
fn a_segment_lives_until_its_newest_record_expires() {
    // Whole-segment granularity: one fresh record keeps the whole segment.
    let mut s = seg(0, 10, 100, fresh());
    s.first_batch_max_timestamp = TimestampMs(old());
    let mut c = Case::new(&[old()], cfg(7 * DAY, -1));
    c.segments.insert(0, s);
    c.segments[1].base_offset = Offset(10);
    c.segments[1].next_offset = Offset(20);
    c.leo = 20;
    c.hw = 20;
    let o = c.run();
    assert_eq!(deleted_by(&o), [None, None]);
}

#[test]
fn delete_records_below_a_segment_boundary_keeps_the_file() {
    let mut c = Case::new(&[fresh(), fresh(), fresh()], cfg(7 * DAY, -1));
    c.log_start = 15; // inside [10, 20): only [0, 10) is wholly below
    let o = c.run();
    assert_eq!(deleted_by(&o), [L, None, None]);
    assert_eq!(o.new_log_start_offset, Offset(15));
}

#[test]
fn retention_bytes_counts_only_log_bytes_of_this_replica_active_included() {
    // 3 × 100 bytes, limit 200: the active segment's bytes count, so one segment goes.
    let o = Case::new(&[fresh(), fresh(), fresh()], cfg(-1, 200)).run();
    assert_eq!(deleted_by(&o), [S, None, None]);
    assert_eq!(
        reason(&o, 1),
        RetainReason::WithinSize {
            remaining_if_deleted: Bytes(100),
            limit: Bytes(200)
        }
    );
}

#[test]
fn size_pass_running_counter_deletes_while_the_rest_stays_at_least_the_limit() {
    let mut c = Case::new(&[fresh(); 5], cfg(-1, 250));
    c.segments[0].size = Bytes(50);
    c.segments[1].size = Bytes(120);
    // total 50+120+300 = 470, diff 220: delete 50 (170 left), 120 (50 left), not 100.
    let o = c.run();
    assert_eq!(deleted_by(&o), [S, S, None, None, None]);
}

#[test]
fn size_pass_is_skipped_when_the_log_is_below_the_limit() {
    let o = Case::new(&[fresh(); 3], cfg(-1, 301)).run();
    assert_eq!(deleted_by(&o), [None, None, None]);
    assert_eq!(
        reason(&o, 0),
        RetainReason::WithinSize {
            remaining_if_deleted: Bytes(200),
            limit: Bytes(301)
        }
    );
    // Exactly at the limit the pass runs with diff 0: only empty segments can go.
    let mut c = Case::new(&[fresh(); 3], cfg(-1, 300));
    c.segments.insert(0, seg(-10, 0, 0, -1));
    c.log_start = -10;
    assert_eq!(deleted_by(&c.run()), [S, None, None, None]);
}

#[test]
fn retention_bytes_zero_deletes_everything_when_hw_equals_leo() {
    let o = Case::new(&[fresh(); 3], cfg(-1, 0)).run();
    assert_eq!(deleted_by(&o), [S, S, S]);
    assert!(o.rolled_new_active);
    assert_eq!(o.new_log_start_offset, Offset(30));
}

#[test]
fn expired_non_empty_active_segment_is_rolled_and_deleted_when_hw_equals_leo() {
    let o = Case::new(&[old(), old(), old()], cfg(7 * DAY, -1)).run();
    assert_eq!(deleted_by(&o), [T, T, T]);
    assert!(o.rolled_new_active);
    assert_eq!(o.new_log_start_offset, Offset(30));
    assert_eq!(
        o.segments[2].verdict,
        Verdict::Delete {
            pass: Pass::Time,
            eligible_at: TimestampMs(old() + 7 * DAY + 1)
        }
    );
}

#[test]
fn expired_active_segment_is_kept_while_hw_is_below_leo() {
    let mut c = Case::new(&[old(), old(), old()], cfg(7 * DAY, -1));
    c.hw = 29;
    let o = c.run();
    assert_eq!(deleted_by(&o), [T, T, None]);
    assert!(!o.rolled_new_active);
    assert_eq!(o.segments[2].time_eligible_at, None); // waiting for the HW, not for time
}

#[test]
fn empty_last_segment_is_never_deleted() {
    let mut c = Case::new(&[old(), old()], cfg(7 * DAY, 0));
    c.segments.push(seg(20, 20, 0, -1));
    c.segments[2].log_mtime = TimestampMs(old());
    let o = c.run();
    assert_eq!(deleted_by(&o), [S, S, None]);
    assert_eq!(reason(&o, 2), RetainReason::EmptyActive);
    assert!(!o.rolled_new_active);
    assert_eq!(o.new_log_start_offset, Offset(20));
}

#[test]
fn zero_byte_middle_segments_from_cleaning_do_not_stop_the_passes() {
    let mut c = Case::new(&[old(), old(), old(), fresh()], cfg(7 * DAY, -1));
    c.segments[1].size = Bytes(0);
    c.segments[1].max_timestamp = TimestampMs::NONE;
    c.segments[1].log_mtime = TimestampMs(old());
    let o = c.run();
    assert_eq!(deleted_by(&o), [T, T, T, None]);
}

#[test]
fn no_timestamp_segment_ages_by_its_log_mtime() {
    let mut c = Case::new(&[-1, -1, fresh()], cfg(7 * DAY, -1));
    c.segments[0].log_mtime = TimestampMs(old());
    c.segments[1].log_mtime = TimestampMs(fresh()); // copied without preserving mtime
    let o = c.run();
    assert_eq!(deleted_by(&o), [T, None, None]);
    assert_eq!(
        o.segments[1].largest_timestamp,
        (TimestampMs(fresh()), TimestampSource::LogMtime)
    );
    assert!(matches!(reason(&o, 1), RetainReason::NotExpired { .. }));
}

#[test]
fn empty_time_index_falls_back_to_mtime() {
    // An empty .timeindex gives no max timestamp: the rule reads the mtime.
    let mut c = Case::new(&[fresh(), fresh()], cfg(7 * DAY, -1));
    c.segments[0].max_timestamp = TimestampMs::NONE;
    c.segments[0].log_mtime = TimestampMs(old());
    let o = c.run();
    assert_eq!(deleted_by(&o), [T, None]);
}

#[test]
fn followers_delete_through_the_adopted_log_start_with_their_own_hw() {
    // A follower whose HW lags still deletes what lies below the leader's log start.
    let mut c = Case::new(&[fresh(); 4], cfg(7 * DAY, -1));
    c.log_start = 20;
    c.hw = 20;
    assert_eq!(deleted_by(&c.run()), [L, L, None, None]);
}

#[test]
fn compacted_topics_still_run_the_log_start_pass() {
    let mut c = Case::new(&[old(); 4], cfg(7 * DAY, 0));
    c.config.cleanup_policy = CleanupPolicy::COMPACT;
    c.log_start = 20;
    let o = c.run();
    assert_eq!(o.runner, Runner::CleanerThreads);
    assert_eq!(o.passes, [Pass::LogStartOffset]);
    assert_eq!(deleted_by(&o), [L, L, None, None]);
    assert_eq!(
        reason(&o, 2),
        RetainReason::PolicyWithoutDelete {
            policy: CleanupPolicy::COMPACT
        }
    );
    assert_eq!(o.segments[2].time_eligible_at, None);
    // Blocked behind a segment kept for the policy: kept for the policy too.
    assert_eq!(reason(&o, 3), reason(&o, 2));
    // Blocked behind the HW gate: the HW stays the reason.
    c.hw = 25;
    let o = c.run();
    assert_eq!(deleted_by(&o), [L, L, None, None]);
    assert!(matches!(
        reason(&o, 2),
        RetainReason::HwBelowUpperBound { .. }
    ));
    assert_eq!(
        reason(&o, 3),
        RetainReason::BlockedBehind {
            base_offset: Offset(20)
        }
    );
}

#[test]
fn compacted_topics_get_no_retention_when_the_cleaner_is_disabled() {
    for (enable, threads) in [(false, 1), (true, 0)] {
        let mut c = Case::new(&[old(); 3], cfg(7 * DAY, 0));
        c.config.cleanup_policy = CleanupPolicy::COMPACT_DELETE;
        c.log_start = 20;
        c.broker.log_cleaner_enable = enable;
        c.broker.log_cleaner_threads = threads;
        let o = c.run();
        assert!(o.passes.is_empty());
        assert_eq!(deleted_by(&o), [None, None, None]);
        assert_eq!(
            reason(&o, 0),
            RetainReason::NoRetentionThread {
                cleaner_enabled: enable,
                cleaner_threads: threads
            }
        );
    }
}

#[test]
fn compact_delete_runs_all_three_passes_in_the_cleaner_threads() {
    let mut c = Case::new(&[old(), old(), fresh()], cfg(7 * DAY, -1));
    c.config.cleanup_policy = CleanupPolicy::COMPACT_DELETE;
    let o = c.run();
    assert_eq!(o.runner, Runner::CleanerThreads);
    assert_eq!(o.passes, [Pass::LogStartOffset, Pass::Size, Pass::Time]);
    assert_eq!(deleted_by(&o), [T, T, None]);
}

#[test]
fn delete_policy_without_limits_only_frees_below_log_start() {
    let mut c = Case::new(&[old(); 3], cfg(-1, -1));
    c.log_start = 10;
    let o = c.run();
    assert_eq!(o.runner, Runner::RetentionTask);
    assert_eq!(deleted_by(&o), [L, None, None]);
    assert_eq!(reason(&o, 1), RetainReason::RetentionUnlimited);
    assert_eq!(reason(&o, 2), RetainReason::RetentionUnlimited);
}

#[test]
fn errata_6_empty_policy_runs_only_the_log_start_pass() {
    let empty = CleanupPolicy {
        delete: false,
        compact: false,
    };
    for version in [KafkaVersion::V3_9, KafkaVersion::V4_0, KafkaVersion::V4_4] {
        let mut c = Case::new(&[old(); 3], cfg(7 * DAY, 0));
        c.config.cleanup_policy = empty;
        c.version = version;
        let o = c.run();
        assert_eq!(o.runner, Runner::RetentionTask, "{version}");
        assert_eq!(o.passes, [Pass::LogStartOffset], "{version}");
        assert_eq!(deleted_by(&o), [None, None, None]);
        assert_eq!(
            reason(&o, 0),
            RetainReason::PolicyWithoutDelete { policy: empty }
        );
    }
}

#[test]
fn errata_6_empty_policy_with_tiered_copy_runs_all_passes_from_4_2() {
    let mut c = Case::new(&[old(); 3], cfg(7 * DAY, -1));
    c.config.cleanup_policy = CleanupPolicy {
        delete: false,
        compact: false,
    };
    c.config.remote_storage_enable = true;
    c.tiered.system_enabled = true;
    c.version = KafkaVersion::V4_2;
    assert_eq!(
        c.run().passes,
        [Pass::LogStartOffset, Pass::Size, Pass::Time]
    );
    c.version = KafkaVersion::V4_1;
    assert_eq!(c.run().passes, [Pass::LogStartOffset]);
}

#[test]
fn errata_5_delete_records_is_refused_on_compact_only_topics() {
    use CleanupPolicy as P;
    let empty = P {
        delete: false,
        compact: false,
    };
    for v in [KafkaVersion::V4_0, KafkaVersion::V4_1] {
        assert!(delete_records_allowed(P::DELETE, v));
        assert!(delete_records_allowed(P::COMPACT_DELETE, v));
        assert!(!delete_records_allowed(P::COMPACT, v));
        assert!(!delete_records_allowed(empty, v));
    }
    for v in [KafkaVersion::V4_2, KafkaVersion::V4_4] {
        assert!(delete_records_allowed(P::COMPACT_DELETE, v));
        assert!(!delete_records_allowed(P::COMPACT, v));
        assert!(delete_records_allowed(empty, v));
    }
}

#[test]
fn paused_logs_are_skipped_unless_the_cleaner_is_disabled() {
    let mut c = Case::new(&[old(); 3], cfg(7 * DAY, -1));
    c.state.paused = true;
    let o = c.run();
    assert_eq!(deleted_by(&o), [None, None, None]);
    assert_eq!(reason(&o, 0), RetainReason::Paused);
    // Errata 16: without a cleaner object nothing is paused.
    c.broker.log_cleaner_enable = false;
    assert_eq!(deleted_by(&c.run()), [T, T, T]);
}

#[test]
fn uncleanable_compacted_logs_get_no_cleaner_run_retention() {
    let mut c = Case::new(&[old(); 3], cfg(7 * DAY, -1));
    c.state.uncleanable = true;
    // Not compacted: the mark does not matter.
    assert_eq!(deleted_by(&c.run()), [T, T, T]);
    c.config.cleanup_policy = CleanupPolicy::COMPACT_DELETE;
    assert_eq!(reason(&c.run(), 0), RetainReason::Uncleanable);
}

#[test]
fn tiered_local_limits_apply_and_the_answer_is_approximate() {
    let mut c = Case::new(&[old(), old(), fresh(), fresh()], cfg(-1, -1));
    c.config.remote_storage_enable = true;
    c.config.local_retention_bytes = crate::config::LocalLimit::Max(200);
    c.tiered.system_enabled = true;
    // Upload state unknown: no segment is taken for uploaded.
    let o = c.run();
    assert_eq!(deleted_by(&o), [None; 4]);
    assert_eq!(
        reason(&o, 0),
        RetainReason::UploadUnknown {
            upper_bound: Offset(10),
            metadata_partition: None
        }
    );
    assert_eq!(
        o.approximation,
        Some(Approximation::TieredStorage {
            upload_state_known: false
        })
    );
    // The other outcome: every closed segment uploaded.
    c.tiered.upload = UploadKnowledge::AssumedUploaded;
    let o = c.run();
    assert_eq!(deleted_by(&o), [S, S, None, None]);
    // Only the local log start moves.
    assert_eq!(o.new_log_start_offset, Offset(0));
    assert_eq!(o.new_local_log_start_offset, Offset(20));
    // Without the broker gate the topic flag does nothing.
    c.tiered.system_enabled = false;
    let o = c.run();
    assert_eq!(deleted_by(&o), [None; 4]);
    assert_eq!(o.approximation, None);
}

#[test]
fn tiered_segments_wait_for_upload() {
    let mut c = Case::new(&[old(); 4], cfg(7 * DAY, -1));
    c.config.remote_storage_enable = true;
    c.tiered.system_enabled = true;
    c.tiered.upload = UploadKnowledge::Known {
        highest_offset: Some(Offset(19)),
    };
    let o = c.run();
    assert_eq!(deleted_by(&o), [T, T, None, None]);
    assert_eq!(
        reason(&o, 2),
        RetainReason::NotUploaded {
            upper_bound: Offset(30),
            highest_remote: Some(Offset(19)),
            wait: None,
        }
    );
    // Remote retention moved the total log start to 30: segment 20 goes although it is not
    // uploaded (`allowDeletionDueToLogStartOffsetIncremented`), by the log-start pass.
    c.tiered.remote_log_start = Some(Offset(30));
    let o = c.run();
    assert_eq!(o.new_log_start_offset, Offset(30));
    assert_eq!(deleted_by(&o)[2], Some(Pass::LogStartOffset));
    // Nothing uploaded: nothing goes.
    c.tiered.remote_log_start = None;
    c.tiered.upload = UploadKnowledge::Known {
        highest_offset: None,
    };
    assert_eq!(deleted_by(&c.run()), [None; 4]);
}

#[test]
fn tiered_expired_active_segment_is_rolled_for_upload_not_deleted() {
    let mut c = Case::new(&[old(); 2], cfg(7 * DAY, -1));
    c.config.remote_storage_enable = true;
    c.tiered.system_enabled = true;
    c.tiered.upload = UploadKnowledge::Known {
        highest_offset: Some(Offset(9)),
    };
    let o = c.run();
    assert_eq!(deleted_by(&o), [T, None]);
    assert_eq!(reason(&o, 1), RetainReason::RolledForUpload);
    assert!(o.rolled_for_upload);
    assert!(!o.rolled_new_active);
}

#[test]
fn time_eligible_at_is_the_max_over_older_kept_segments() {
    let a = fresh();
    let b = fresh() - DAY;
    let o = Case::new(&[a, b, fresh() + 1], cfg(7 * DAY, -1)).run();
    assert_eq!(deleted_by(&o), [None, None, None]);
    assert_eq!(
        o.segments[0].time_eligible_at,
        Some(TimestampMs(a + 7 * DAY + 1))
    );
    assert_eq!(
        o.segments[1].time_eligible_at,
        Some(TimestampMs(a + 7 * DAY + 1))
    );
    assert_eq!(
        o.segments[2].time_eligible_at,
        Some(TimestampMs(a + 7 * DAY + 2))
    );
}

#[test]
fn time_predicate_is_strict() {
    let c = Case::new(&[NOW - 7 * DAY, NOW - 7 * DAY - 1, 0], cfg(7 * DAY, -1));
    let o = c.run();
    assert_eq!(deleted_by(&o), [None, None, None]);
    assert_eq!(
        reason(&o, 0),
        RetainReason::NotExpired {
            largest_timestamp: TimestampMs(NOW - 7 * DAY),
            expires_at: TimestampMs(NOW + 1)
        }
    );
}

/// `expired_by_time` at `NOW` for a segment whose largest timestamp is `ts`.
fn expired(c: &Case, ts: i64) -> bool {
    expired_by_time(
        &c.config,
        &c.tiered,
        c.version,
        TimestampMs(ts),
        TimestampMs(NOW),
    )
}

#[test]
fn expired_by_time_is_the_time_pass_predicate() {
    let c = Case::new(&[], cfg(7 * DAY, -1));
    assert!(!expired(&c, NOW - 7 * DAY));
    assert!(expired(&c, NOW - 7 * DAY - 1));
    assert!(!expired(&c, NOW + DAY));
    assert_eq!(
        time_retention_ms(&c.config, &c.tiered, c.version),
        Some(7 * DAY)
    );
    // Unlimited: nothing expires by time.
    let c = Case::new(&[], cfg(-1, -1));
    assert!(!expired(&c, 0));
}

#[test]
fn compact_only_topics_never_expire_by_time() {
    let mut c = Case::new(&[], cfg(DAY, -1));
    c.config.cleanup_policy = CleanupPolicy::COMPACT;
    assert!(!expired(&c, 0));
    assert!(!expired(&c, old()));
    assert_eq!(time_retention_ms(&c.config, &c.tiered, c.version), None);
    // With delete it does: the cleaner threads run the time pass too.
    c.config.cleanup_policy = CleanupPolicy::COMPACT_DELETE;
    assert!(expired(&c, old()));
    // The empty policy runs no time pass unless tiered copy is on (Errata 6).
    c.config.cleanup_policy = CleanupPolicy {
        delete: false,
        compact: false,
    };
    assert!(!expired(&c, old()));
    c.config.remote_storage_enable = true;
    c.tiered.system_enabled = true;
    assert!(expired(&c, old()));
}

#[test]
fn expired_by_time_uses_the_local_limit_where_the_time_pass_does() {
    let mut c = Case::new(&[], cfg(60 * DAY, -1));
    c.config.remote_storage_enable = true;
    c.config.local_retention_ms = crate::config::LocalLimit::Max(7 * DAY);
    // Without the broker gate the totals apply.
    assert!(!expired(&c, old()));
    assert_eq!(time_limit_key(&c.config, &c.tiered), "retention.ms");
    c.tiered.system_enabled = true;
    assert!(expired(&c, old()));
    assert_eq!(
        time_retention_ms(&c.config, &c.tiered, c.version),
        Some(7 * DAY)
    );
    assert_eq!(time_limit_key(&c.config, &c.tiered), "local.retention.ms");
    // Copy disabled, internal or compacted topics: the totals again.
    c.config.remote_log_copy_disable = true;
    assert!(!expired(&c, old()));
    c.config.remote_log_copy_disable = false;
    c.tiered.internal_topic = true;
    assert!(!expired(&c, old()));
    // The rule and the time pass agree (segment 0 uploaded).
    c.tiered.internal_topic = false;
    c.tiered.upload = UploadKnowledge::Known {
        highest_offset: Some(Offset(9)),
    };
    c.segments = vec![seg(0, 10, 100, old()), seg(10, 20, 100, fresh())];
    c.leo = 20;
    c.hw = 20;
    assert_eq!(deleted_by(&c.run()), [T, None]);
    assert!(!expired(&c, fresh()));
}

#[test]
fn no_segments_is_no_verdicts() {
    let mut c = Case::new(&[], cfg(7 * DAY, 0));
    c.log_start = 5;
    let o = c.run();
    assert!(o.segments.is_empty());
    assert_eq!(o.new_log_start_offset, Offset(5));
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn arb_case() -> impl Strategy<Value = Case> {
        (
            proptest::collection::vec((0u64..300, -2i64..40), 1..8),
            -1i64..1200,
            -1i64..20,
            0i64..90,
            0i64..90,
        )
            .prop_map(|(segs, bytes, days, start, hw)| {
                let mut c = Case::new(&[], cfg(days * DAY, bytes));
                for (i, (size, age)) in (0i64..).zip(segs) {
                    let ts = if age < 0 { -1 } else { NOW - age * DAY };
                    let mut s = seg(i * 10, i * 10 + 10, size, ts);
                    s.log_mtime = TimestampMs(NOW - 3 * DAY);
                    c.segments.push(s);
                }
                c.leo = i64::try_from(c.segments.len()).unwrap() * 10;
                c.log_start = start.min(c.leo);
                c.hw = hw.clamp(c.log_start, c.leo);
                c
            })
    }

    proptest! {
        #[test]
        fn verdicts_are_monotone_deleted_then_retained(c in arb_case()) {
            let o = c.run();
            let kept = o.segments.iter().position(|s| matches!(s.verdict, Verdict::Retain { .. }));
            if let Some(k) = kept {
                for s in &o.segments[k..] {
                    let retained = matches!(s.verdict, Verdict::Retain { .. });
                    prop_assert!(retained);
                }
            }
            // The new log start is the first kept segment's base (or the LEO).
            let deleted = kept.unwrap_or(o.segments.len());
            if deleted > 0 {
                let expect = o.segments.get(deleted).map_or(Offset(c.leo), |s| s.base_offset);
                prop_assert_eq!(o.new_log_start_offset, expect.max(Offset(c.log_start)));
            }
        }

        #[test]
        fn deletions_were_eligible_by_now_and_waits_end_after_now(c in arb_case()) {
            let o = c.run();
            for s in &o.segments {
                if let Verdict::Delete { eligible_at, .. } = s.verdict {
                    prop_assert!(eligible_at <= TimestampMs(NOW));
                }
                if let Some(at) = s.time_eligible_at {
                    prop_assert!(at > TimestampMs(NOW));
                }
            }
        }

        /// The per-segment figures, computed in one walk, equal their definitions recomputed
        /// segment by segment: the bytes after a segment kept within size, and the instant a
        /// kept segment waiting only for time is deleted.
        #[test]
        fn size_and_time_figures_equal_their_definitions(c in arb_case()) {
            let o = c.run();
            let n = c.segments.len();
            let first_kept = o.segments.iter()
                .position(|v| matches!(v.verdict, Verdict::Retain { .. }))
                .unwrap_or(n);
            for (i, v) in o.segments.iter().enumerate() {
                let after: u64 = c.segments[i + 1..].iter().map(|s| s.size.get()).sum();
                for (_, r) in &v.pass_reasons {
                    if let RetainReason::WithinSize { remaining_if_deleted, .. } = r {
                        prop_assert_eq!(remaining_if_deleted.get(), after);
                    }
                }
                if !matches!(v.verdict, Verdict::Retain { .. }) {
                    continue;
                }
                let expect = c.config.retention_ms.max().and_then(|m| {
                    let mut at = TimestampMs(i64::MIN);
                    for j in first_kept..=i {
                        let s = &c.segments[j];
                        let upper = c.segments.get(j + 1).map_or(c.leo, |x| x.base_offset.get());
                        if c.hw < upper || (j + 1 == n && s.is_empty()) {
                            return None;
                        }
                        at = at.max(policy::expires_at(s.largest_timestamp().0, m));
                    }
                    Some(at)
                });
                prop_assert_eq!(v.time_eligible_at, expect, "segment {}", i);
            }
        }

        #[test]
        fn nothing_above_the_hw_is_ever_deleted(c in arb_case()) {
            let o = c.run();
            for (i, s) in o.segments.iter().enumerate() {
                if matches!(s.verdict, Verdict::Delete { .. }) {
                    let upper = c.segments.get(i + 1).map_or(c.leo, |n| n.base_offset.get());
                    prop_assert!(upper <= c.hw);
                }
            }
        }

        #[test]
        fn size_pass_never_deletes_more_than_needed(mut c in arb_case()) {
            c.config.retention_ms = Limit::Unlimited;
            c.log_start = 0;
            let o = c.run();
            let Some(r) = c.config.retention_bytes.max() else { return Ok(()) };
            let r = u64::try_from(r).unwrap();
            let kept: u64 = c.segments.iter().zip(&o.segments)
                .filter(|(_, v)| matches!(v.verdict, Verdict::Retain { .. }))
                .map(|(s, _)| s.size.get()).sum();
            let total: u64 = c.segments.iter().map(|s| s.size.get()).sum();
            if total >= r {
                prop_assert!(kept >= r, "kept {} < limit {}", kept, r);
            } else {
                prop_assert_eq!(kept, total);
            }
            // Deleting the oldest kept non-empty segment as well would undercut the limit,
            // unless something other than size stopped the pass.
            let first_kept = o.segments.iter().position(|v| matches!(v.verdict, Verdict::Retain { .. }));
            if let Some(k) = first_kept {
                if matches!(o.segments[k].pass_reasons.last(), Some((Pass::Size, RetainReason::WithinSize { .. }))) {
                    prop_assert!(kept - c.segments[k].size.get() < r);
                }
            }
        }
    }
}
