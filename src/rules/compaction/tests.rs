//! Compaction tests: every §D1 case by name, D2/D5 arithmetic, horizons, Errata 3 and 19.

use super::*;
use crate::rules::KafkaVersion;

/// The release most layout tests run under (the rule that differs has its own test).
const V: KafkaVersion = KafkaVersion::LATEST;
use crate::rules::facts::test_support::seg;

const HOUR: i64 = 3_600_000;
const NOW: i64 = 10_000 * HOUR;

struct Log {
    segments: Vec<SegmentFacts>,
    log_start: i64,
    leo: i64,
    lso: i64,
    checkpoint: Option<i64>,
    config: LogConfig,
}

impl Log {
    /// Segments of `sizes` bytes, 10 offsets each, old timestamps; the last is active.
    fn new(sizes: &[u64]) -> Log {
        let segments: Vec<_> = sizes
            .iter()
            .zip(0i64..)
            .map(|(&size, i)| seg(i * 10, i * 10 + 10, size, NOW - 100 * HOUR))
            .collect();
        let leo = i64::try_from(segments.len()).unwrap() * 10;
        Log {
            segments,
            log_start: 0,
            leo,
            lso: leo,
            checkpoint: None,
            config: LogConfig {
                cleanup_policy: CleanupPolicy::COMPACT,
                ..LogConfig::default()
            },
        }
    }

    fn input(&self) -> CompactionInput<'_> {
        CompactionInput {
            segments: &self.segments,
            log_start_offset: Offset(self.log_start),
            log_end_offset: Offset(self.leo),
            last_stable_offset: Offset(self.lso),
            checkpoint: self.checkpoint.map(Offset),
            config: &self.config,
            now: TimestampMs(NOW),
        }
    }

    fn clean(&self) -> LogToClean {
        log_to_clean(&self.input())
    }
}

#[test]
fn first_dirty_is_the_checkpoint_entry() {
    let mut l = Log::new(&[100; 4]);
    l.checkpoint = Some(20);
    let r = l.clean().range;
    assert_eq!(r.first_dirty.offset, Offset(20));
    assert_eq!(r.first_dirty.source, FirstDirtySource::Checkpoint);
    assert!(!r.first_dirty.source.rewrites_checkpoint());
}

#[test]
fn first_dirty_without_checkpoint_is_the_log_start() {
    let mut l = Log::new(&[100; 4]);
    l.log_start = 5;
    let r = l.clean().range;
    assert_eq!(r.first_dirty.offset, Offset(5));
    assert_eq!(r.first_dirty.source, FirstDirtySource::NoCheckpoint);
    assert_eq!(r.first_dirty.source.broker_warning(), None);
}

#[test]
fn checkpoint_below_log_start_resets_and_warns_unless_compact_delete() {
    let f = first_dirty_offset(
        Some(Offset(3)),
        Offset(10),
        Offset(40),
        CleanupPolicy::COMPACT,
    );
    assert_eq!(f.offset, Offset(10));
    assert_eq!(
        f.source,
        FirstDirtySource::ResetBelowLogStart {
            checkpoint: Offset(3),
            warns: true
        }
    );
    assert!(f.source.rewrites_checkpoint());
    assert!(f
        .source
        .broker_warning()
        .unwrap()
        .starts_with("Resetting first dirty offset"));
    let f = first_dirty_offset(
        Some(Offset(3)),
        Offset(10),
        Offset(40),
        CleanupPolicy::COMPACT_DELETE,
    );
    assert!(f.source.rewrites_checkpoint());
    assert_eq!(f.source.broker_warning(), None);
}

#[test]
fn the_checkpoint_follows_a_log_start_that_retention_raised_past_it() {
    let after = |entry, written, start| {
        checkpoint_after_passes(
            entry,
            written,
            Offset(start),
            Offset(40),
            CleanupPolicy::COMPACT_DELETE,
        )
    };
    // The pass wrote 23; retention then deleted every segment to 24: reset to 24.
    assert_eq!(after(None, Some(Offset(23)), 24), Some(Offset(24)));
    // Retention kept the pass's end: the entry is the pass's.
    assert_eq!(
        after(Some(Offset(5)), Some(Offset(23)), 10),
        Some(Offset(23))
    );
    // No pass: an entry below the new start is reset, one in range stays.
    assert_eq!(after(Some(Offset(5)), None, 10), Some(Offset(10)));
    assert_eq!(after(Some(Offset(15)), None, 10), Some(Offset(15)));
    // No entry and no pass: none is written.
    assert_eq!(after(None, None, 10), None);
}

#[test]
fn checkpoint_above_log_end_resets_to_log_start_and_warns() {
    let f = first_dirty_offset(
        Some(Offset(41)),
        Offset(10),
        Offset(40),
        CleanupPolicy::COMPACT_DELETE,
    );
    assert_eq!(f.offset, Offset(10));
    assert_eq!(
        f.source,
        FirstDirtySource::ResetAboveLogEnd {
            checkpoint: Offset(41)
        }
    );
    assert!(f.source.broker_warning().is_some());
    // Equal to the LEO is in range.
    let f = first_dirty_offset(
        Some(Offset(40)),
        Offset(10),
        Offset(40),
        CleanupPolicy::COMPACT,
    );
    assert_eq!(f.source, FirstDirtySource::Checkpoint);
}

#[test]
fn active_segment_is_never_cleanable() {
    let l = Log::new(&[100; 4]);
    let t = l.clean();
    assert_eq!(t.range.first_uncleanable_dirty, Offset(30));
    assert_eq!(t.range.bound, UncleanableBound::ActiveSegment);
    assert_eq!(t.range.first_uncleanable_offset, Offset(30));
    assert_eq!(t.stats.cleanable_bytes, Bytes(300));
    assert_eq!(t.stats.clean_bytes, Bytes(0));
    assert_eq!(t.stats.ratio, 1.0);
}

#[test]
fn open_transaction_lso_bounds_the_range_at_its_segment_base() {
    let mut l = Log::new(&[100; 4]);
    l.lso = 15; // open transaction starting at 15
    let t = l.clean();
    assert_eq!(t.range.first_uncleanable_dirty, Offset(15));
    assert_eq!(t.range.bound, UncleanableBound::LastStableOffset);
    // The range ends on the boundary of the segment holding the LSO.
    assert_eq!(t.range.first_uncleanable_offset, Offset(10));
    assert_eq!(t.stats.cleanable_bytes, Bytes(100));
}

#[test]
fn last_stable_offset_is_the_first_unstable_offset_capped_at_the_hw() {
    assert_eq!(last_stable_offset(Offset(40), None), Offset(40));
    assert_eq!(last_stable_offset(Offset(40), Some(Offset(15))), Offset(15));
    assert_eq!(last_stable_offset(Offset(40), Some(Offset(50))), Offset(40));
}

#[test]
fn errata_13_a_pass_ends_past_the_maps_latest_offset_or_at_the_uncleanable_boundary() {
    let l = Log::new(&[100; 4]);
    let r = l.clean().range;
    assert_eq!(pass_end_offset(&r, None), Offset(30));
    // The map filled at offset 17 (mid-segment): the next pass starts at 18.
    assert_eq!(pass_end_offset(&r, Some(Offset(17))), Offset(18));
}

#[test]
fn min_compaction_lag_stops_at_the_first_young_segment() {
    let mut l = Log::new(&[100; 5]);
    l.config.min_compaction_lag_ms = 10 * HOUR;
    l.segments[2].max_timestamp = TimestampMs(NOW - HOUR);
    let t = l.clean();
    assert_eq!(
        t.range.bound,
        UncleanableBound::MinCompactionLag {
            segment_base: Offset(20),
            largest_timestamp: TimestampMs(NOW - HOUR)
        }
    );
    assert_eq!(t.range.first_uncleanable_offset, Offset(20));
    assert_eq!(t.stats.cleanable_bytes, Bytes(200));
}

#[test]
fn min_compaction_lag_zero_ignores_segment_age() {
    let mut l = Log::new(&[100; 3]);
    l.segments[0].max_timestamp = TimestampMs(NOW + HOUR);
    assert_eq!(l.clean().range.bound, UncleanableBound::ActiveSegment);
}

#[test]
fn future_timestamps_block_compaction_under_min_lag() {
    let mut l = Log::new(&[100; 4]);
    l.config.min_compaction_lag_ms = 1;
    l.segments[0].max_timestamp = TimestampMs(NOW + 1_000 * HOUR);
    let t = l.clean();
    assert_eq!(t.range.first_uncleanable_offset, Offset(0));
    assert_eq!(t.stats.cleanable_bytes, Bytes(0));
}

#[test]
fn min_compaction_lag_uses_the_mtime_fallback() {
    let mut l = Log::new(&[100; 3]);
    l.config.min_compaction_lag_ms = 10 * HOUR;
    l.segments[1].max_timestamp = TimestampMs::NONE;
    l.segments[1].log_mtime = TimestampMs(NOW - HOUR);
    assert_eq!(l.clean().range.first_uncleanable_offset, Offset(10));
}

#[test]
fn first_dirty_past_the_bounds_wins() {
    let mut l = Log::new(&[100; 4]);
    l.checkpoint = Some(25);
    l.lso = 12;
    let t = l.clean();
    assert_eq!(t.range.first_uncleanable_dirty, Offset(25));
    assert_eq!(t.range.bound, UncleanableBound::FirstDirty);
    assert_eq!(t.range.first_uncleanable_offset, Offset(20));
    // cleanable = segments from floor(min(25, 20)) = [20,30) up to 20: none.
    assert_eq!(t.stats.cleanable_bytes, Bytes(0));
    assert_eq!(t.stats.clean_bytes, Bytes(300));
}

#[test]
fn first_dirty_inside_a_segment_counts_it_in_clean_and_cleanable_bytes() {
    // Spec §D1 quirk, LogToClean: cleanBytes takes bases < firstDirty, cleanableBytes starts
    // at floor(firstDirty).
    let mut l = Log::new(&[100, 200, 300, 50]);
    l.checkpoint = Some(15);
    let s = l.clean().stats;
    assert_eq!(s.clean_bytes, Bytes(300)); // [0,10) + [10,20)
    assert_eq!(s.cleanable_bytes, Bytes(500)); // [10,20) + [20,30)
    assert_eq!(s.total_bytes, Bytes(800));
    assert_eq!(s.counted_twice, Some(Offset(10)));
    assert_eq!(s.ratio, 500.0 / 800.0);
    // On a boundary nothing is counted twice.
    l.checkpoint = Some(10);
    let s = l.clean().stats;
    assert_eq!((s.clean_bytes, s.cleanable_bytes), (Bytes(100), Bytes(500)));
    assert_eq!(s.counted_twice, None);
}

#[test]
fn first_dirty_inside_the_active_segment_counts_it_as_clean() {
    let mut l = Log::new(&[100, 100, 70]);
    l.checkpoint = Some(25);
    let t = l.clean();
    assert_eq!(t.range.first_uncleanable_offset, Offset(20));
    assert_eq!(t.stats.clean_bytes, Bytes(270));
    assert_eq!(t.stats.cleanable_bytes, Bytes(0));
    assert!(!t.eligibility.is_eligible());
}

#[test]
fn max_compaction_lag_makes_a_log_due_by_the_first_batch_timestamp() {
    let mut l = Log::new(&[100, 100, 100, 100]);
    l.checkpoint = Some(10);
    l.config.max_compaction_lag_ms = 10 * HOUR;
    l.config.min_cleanable_dirty_ratio = 0.9;
    for s in &mut l.segments {
        s.first_batch_max_timestamp = TimestampMs(NOW - HOUR);
    }
    l.segments[2].first_batch_max_timestamp = TimestampMs(NOW - 12 * HOUR);
    l.segments[0].first_batch_max_timestamp = TimestampMs(NOW - 99 * HOUR); // clean: ignored
    let t = l.clean();
    assert_eq!(t.stats.max_compaction_delay, DurationMs(2 * HOUR));
    assert!(t.stats.need_compaction_now());
    assert_eq!(
        t.eligibility,
        Eligibility::MaxCompactionLagDue {
            delay: DurationMs(2 * HOUR)
        }
    );
}

#[test]
fn max_compaction_lag_ignores_non_positive_first_batch_timestamps_and_the_active_segment() {
    let mut l = Log::new(&[100, 100, 100]);
    l.config.max_compaction_lag_ms = HOUR;
    l.segments[0].first_batch_max_timestamp = TimestampMs(0);
    l.segments[1].first_batch_max_timestamp = TimestampMs(-1);
    l.segments[2].first_batch_max_timestamp = TimestampMs(1); // active
    assert_eq!(l.clean().stats.max_compaction_delay, DurationMs(0));
    // Exactly at the deadline is not due (strict).
    l.segments[0].first_batch_max_timestamp = TimestampMs(NOW - HOUR);
    assert_eq!(l.clean().stats.max_compaction_delay, DurationMs(0));
}

#[test]
fn max_compaction_lag_due_without_cleanable_bytes_is_not_eligible() {
    let mut l = Log::new(&[100, 100, 100]);
    l.checkpoint = Some(10);
    l.lso = 10;
    l.config.max_compaction_lag_ms = HOUR;
    l.segments[1].first_batch_max_timestamp = TimestampMs(NOW - 5 * HOUR);
    let t = l.clean();
    assert_eq!(t.stats.cleanable_bytes, Bytes(0));
    assert!(matches!(
        t.eligibility,
        Eligibility::NotEligible { lag_due: true, .. }
    ));
}

#[test]
fn dirty_ratio_must_exceed_the_minimum_strictly() {
    let mut l = Log::new(&[100, 100, 100, 100, 7]);
    l.checkpoint = Some(20); // clean 200, cleanable 200
    let t = l.clean();
    assert_eq!(t.stats.ratio, 0.5);
    assert!(matches!(t.eligibility, Eligibility::NotEligible { .. }));
    l.config.min_cleanable_dirty_ratio = 0.49;
    assert!(matches!(
        l.clean().eligibility,
        Eligibility::RatioAbove { .. }
    ));
}

#[test]
fn empty_logs_are_dropped() {
    let l = Log::new(&[0, 0]);
    assert_eq!(l.clean().eligibility, Eligibility::EmptyLog);
    assert_eq!(l.clean().stats.ratio, 0.0);
}

#[test]
fn the_cleaner_picks_the_highest_ratio_and_max_lag_gives_no_priority() {
    let mut a = Log::new(&[100, 100, 100, 100, 1]);
    a.checkpoint = Some(10); // 300 / 400
    let mut b = Log::new(&[100, 100, 1]);
    b.checkpoint = Some(10); // 100 / 200, but due by max lag
    b.config.max_compaction_lag_ms = HOUR;
    b.segments[1].first_batch_max_timestamp = TimestampMs(NOW - 5 * HOUR);
    let c = Log::new(&[0]);
    let logs = [("a", a.clean()), ("b", b.clean()), ("c", c.clean())];
    assert_eq!(pick_filthiest(&logs), CleanerPick::Log("a"));
    assert_eq!(pick_filthiest(&logs[1..]), CleanerPick::Log("b"));
    assert_eq!(pick_filthiest(&logs[2..]), CleanerPick::Nothing);
    assert_eq!(pick_filthiest::<&str>(&[]), CleanerPick::Nothing);
}

#[test]
fn errata_19_equal_ratios_make_the_order_unknown() {
    let mut a = Log::new(&[100, 100, 100, 1]);
    a.checkpoint = Some(10);
    let mut b = Log::new(&[300, 300, 300, 1]);
    b.checkpoint = Some(10);
    let mut c = Log::new(&[300, 300, 1]);
    c.checkpoint = Some(10); // ratio 0.5: not eligible
    let logs = [("a", a.clean()), ("b", b.clean()), ("c", c.clean())];
    assert_eq!(
        pick_filthiest(&logs),
        CleanerPick::OrderUnknown(vec!["a", "b"])
    );
}

#[test]
fn candidates_are_compacted_not_paused_not_uncleanable() {
    let ok = LogState::default();
    assert!(is_cleaner_candidate(CleanupPolicy::COMPACT, ok));
    assert!(is_cleaner_candidate(CleanupPolicy::COMPACT_DELETE, ok));
    assert!(!is_cleaner_candidate(CleanupPolicy::DELETE, ok));
    let paused = LogState { paused: true, ..ok };
    let uncleanable = LogState {
        uncleanable: true,
        ..ok
    };
    assert!(!is_cleaner_candidate(CleanupPolicy::COMPACT, paused));
    assert!(!is_cleaner_candidate(CleanupPolicy::COMPACT, uncleanable));
}

#[test]
fn errata_3_offset_map_holds_5_033_164_keys_per_pass_at_defaults() {
    let b = BrokerCleanupConfig::default();
    let m = offset_map_capacity(&b).unwrap();
    assert_eq!(m.memory_per_thread, 134_217_728);
    assert_eq!(m.slots, 5_592_405);
    assert_eq!(m.keys_per_pass, 5_033_164);
    assert!(!m.capped);
    let two = BrokerCleanupConfig {
        log_cleaner_threads: 2,
        ..b.clone()
    };
    assert_eq!(
        offset_map_capacity(&two).unwrap().memory_per_thread,
        67_108_864
    );
    let huge = BrokerCleanupConfig {
        log_cleaner_dedupe_buffer_size: 8 << 30,
        ..b.clone()
    };
    let m = offset_map_capacity(&huge).unwrap();
    assert!(m.capped);
    assert_eq!(m.memory_per_thread, u64::from(i32::MAX.unsigned_abs()));
    let none = BrokerCleanupConfig {
        log_cleaner_threads: 0,
        ..b
    };
    assert_eq!(offset_map_capacity(&none), None);
}

#[test]
fn passes_needed_is_keys_over_capacity_rounded_up() {
    assert_eq!(passes_needed(0, 5_033_164), Some(0));
    assert_eq!(passes_needed(5_033_164, 5_033_164), Some(1));
    assert_eq!(passes_needed(5_033_165, 5_033_164), Some(2));
    assert_eq!(passes_needed(1, 0), None);
}

#[test]
fn trigger_threshold_at_ratio_half_is_dirty_above_clean() {
    assert_eq!(
        dirty_bytes_to_trigger(Bytes(1_000), 0.5),
        Some(Bytes(1_000))
    );
    assert_eq!(
        dirty_bytes_to_trigger(Bytes(1_000), 0.75),
        Some(Bytes(3_000))
    );
    assert_eq!(dirty_bytes_to_trigger(Bytes(1_000), 1.0), None);
}

#[test]
fn a_blocked_log_is_due_when_its_waiting_segments_pass_the_trigger() {
    // Segments at 0, 100, 200 (600 B each) and the active one at 300.
    let segs: Vec<(Offset, Bytes)> = [0, 100, 200, 300]
        .into_iter()
        .map(|b| (Offset(b), Bytes(600)))
        .collect();
    // A thread runs and stops at 150: only segment 200 waits (600 B > 500 B at ratio 0.5).
    let d = due_while_blocked(&segs, Offset(50), Offset(150), true, Bytes(500), 0.5).unwrap();
    assert_eq!(
        (d.stuck, d.segments, d.trigger),
        (Bytes(600), 1, Bytes(500))
    );
    // Not above the trigger: not due.
    assert_eq!(
        due_while_blocked(&segs, Offset(50), Offset(150), true, Bytes(600), 0.5),
        None
    );
    // No thread: the whole dirty section from the segment holding 150 (100 and 200).
    let d = due_while_blocked(&segs, Offset(150), Offset(150), false, Bytes(500), 0.5).unwrap();
    assert_eq!((d.stuck, d.segments), (Bytes(1_200), 2));
    // Only the active segment is dirty: nothing waits.
    assert_eq!(
        due_while_blocked(&segs, Offset(300), Offset(300), true, Bytes(0), 0.5),
        None
    );
    // A ratio of 1 never triggers.
    assert_eq!(
        due_while_blocked(&segs, Offset(0), Offset(0), false, Bytes(0), 1.0),
        None
    );
}

#[test]
fn tombstones_are_stamped_then_dropped_by_a_pass_after_the_horizon() {
    let c = LogConfig::default();
    let day = 86_400_000;
    let h = delete_horizon(TimestampMs(1_000), &c);
    assert_eq!(h, TimestampMs(1_000 + day));
    assert_eq!(
        tombstone_fate(None, TimestampMs(1_000), &c),
        TombstoneFate::Stamped(h)
    );
    assert_eq!(
        tombstone_fate(Some(h), TimestampMs(999 + day), &c),
        TombstoneFate::Kept
    );
    assert_eq!(tombstone_fate(Some(h), h, &c), TombstoneFate::Dropped);
}

#[test]
fn legacy_tombstone_horizon_is_the_last_clean_segment_mtime_minus_delete_retention() {
    let c = LogConfig::default();
    let mut segs = vec![seg(0, 10, 1, -1), seg(10, 20, 1, -1), seg(20, 30, 1, -1)];
    segs[1].log_mtime = TimestampMs(500_000_000);
    assert_eq!(
        legacy_tombstone_horizon(&segs, Offset(15), &c),
        TimestampMs(500_000_000 - 86_400_000)
    );
    assert_eq!(
        legacy_tombstone_horizon(&segs, Offset(0), &c),
        TimestampMs(0)
    );
}

#[test]
fn keyless_records_are_lost_when_compaction_is_turned_on() {
    use CleanupPolicy as P;
    assert_eq!(keyless_records_lost(P::DELETE, P::COMPACT, 42), 42);
    assert_eq!(keyless_records_lost(P::DELETE, P::COMPACT_DELETE, 42), 42);
    assert_eq!(keyless_records_lost(P::COMPACT, P::COMPACT_DELETE, 42), 0);
    assert_eq!(keyless_records_lost(P::COMPACT, P::DELETE, 42), 0);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn range_ends_on_a_boundary_and_bytes_add_up(
            sizes in proptest::collection::vec(0u64..500, 1..8),
            checkpoint in proptest::option::of(-5i64..90),
            lso in 0i64..90,
        ) {
            let mut l = Log::new(&sizes);
            l.checkpoint = checkpoint;
            l.lso = lso.min(l.leo);
            let t = l.clean();
            let fuo = t.range.first_uncleanable_offset;
            prop_assert!(l.segments.iter().any(|s| s.base_offset == fuo));
            prop_assert!(fuo <= l.segments.last().unwrap().base_offset);
            prop_assert_eq!(t.stats.total_bytes, t.stats.clean_bytes.plus(t.stats.cleanable_bytes));
            let all: u64 = sizes.iter().sum();
            let twice = t.stats.counted_twice.map_or(0, |b| {
                l.segments.iter().find(|s| s.base_offset == b).unwrap().size.get()
            });
            prop_assert!(t.stats.total_bytes.get() <= all + twice);
            prop_assert!((0.0..=1.0).contains(&t.stats.ratio));
        }
    }
}

fn cseg(base: i64, size: u64, index: u64, time_index: u64) -> CleanerSegmentFacts {
    CleanerSegmentFacts {
        base_offset: Offset(base),
        size: Bytes(size),
        offset_index_bytes: Bytes(index),
        time_index_bytes: Bytes(time_index),
        last_batch_max_timestamp: TimestampMs::NONE,
    }
}

#[test]
fn grouping_merges_while_the_log_bytes_fit_in_segment_bytes() {
    // Kafka LogCleanerTest.testSegmentGrouping: groups never exceed the max size.
    let segs: Vec<_> = (0..6).map(|i| cseg(i * 10, 400, 8, 12)).collect();
    let g = group_segments_by_size(&segs, 1_000, 1_000, Offset(60));
    assert_eq!(g, vec![0..2, 2..4, 4..6]);
    // Exactly at the limit still merges (≤).
    let g = group_segments_by_size(&segs, 1_200, 1_000, Offset(60));
    assert_eq!(g, vec![0..3, 3..6]);
}

#[test]
fn grouping_keeps_a_segment_larger_than_segment_bytes_alone() {
    // A segment above segment.bytes (e.g. segment.bytes lowered later) starts its own group
    // and takes nothing after it; the next one starts a new group.
    let segs = vec![
        cseg(0, 100, 8, 12),
        cseg(10, 5_000, 8, 12),
        cseg(20, 100, 8, 12),
    ];
    let g = group_segments_by_size(&segs, 1_000, 1_000, Offset(30));
    assert_eq!(g, vec![0..1, 1..2, 2..3]);
    // Alone it is a group of one, whatever its size.
    assert_eq!(
        group_segments_by_size(&segs[1..2], 1_000, 1_000, Offset(30)),
        vec![0..1]
    );
}

#[test]
fn grouping_is_bounded_by_each_index_size() {
    // Kafka testSegmentGroupingWithSparseOffsets' index half: offset index bytes ≤ maxIndexSize.
    let segs: Vec<_> = (0..4).map(|i| cseg(i * 10, 10, 400, 12)).collect();
    assert_eq!(
        group_segments_by_size(&segs, 1_000_000, 1_000, Offset(40)),
        vec![0..2, 2..4]
    );
    // The time index is bounded separately by the same limit.
    let segs: Vec<_> = (0..4).map(|i| cseg(i * 10, 10, 8, 600)).collect();
    assert_eq!(
        group_segments_by_size(&segs, 1_000_000, 1_000, Offset(40)),
        vec![0..1, 1..2, 2..3, 3..4]
    );
}

#[test]
fn grouping_keeps_the_offset_range_of_a_group_within_an_int() {
    // Kafka testSegmentGroupingWithSparseOffsets: the next segment's last offset is estimated
    // as the following base − 1 (the first uncleanable offset − 1 for the last one).
    let max = i64::from(i32::MAX);
    let segs = vec![
        cseg(0, 10, 8, 12),
        cseg(max - 10, 10, 8, 12),
        cseg(max + 1, 10, 8, 12),
        cseg(max + 5, 10, 8, 12),
    ];
    // Segment 1's estimated last offset is max: max − 0 ≤ max, it joins; segment 2's is
    // max + 4: too far from base 0.
    let g = group_segments_by_size(&segs, 1_000_000, 1_000_000, Offset(max + 10));
    assert_eq!(g, vec![0..2, 2..4]);
    // The last segment's estimate comes from the first uncleanable offset.
    let g = group_segments_by_size(&segs[..2], 1_000_000, 1_000_000, Offset(max + 2));
    assert_eq!(g, vec![0..1, 1..2]);
    // An empty next segment skips the range check.
    let mut empty = segs.clone();
    if let Some(s) = empty.get_mut(2) {
        s.size = Bytes(0);
    }
    let g = group_segments_by_size(&empty, 1_000_000, 1_000_000, Offset(max + 10));
    assert_eq!(g, vec![0..3, 3..4]);
}

#[test]
fn grouping_of_nothing_is_nothing() {
    assert!(group_segments_by_size(&[], 1_000, 1_000, Offset(0)).is_empty());
}

fn layout_case() -> (Vec<SegmentFacts>, Vec<CleanerSegmentFacts>) {
    // Old segments 0..3, a young one at 30, the active one at 40.
    let mut segs = vec![
        seg(0, 10, 100, 1_000),
        seg(10, 20, 100, 2_000),
        seg(20, 30, 100, 3_000),
        seg(30, 40, 100, 90_000),
        seg(40, 45, 50, 95_000),
    ];
    for (i, s) in segs.iter_mut().enumerate() {
        s.log_mtime = TimestampMs(100_000 + i as i64);
    }
    let cleaner = segs
        .iter()
        .map(|s| CleanerSegmentFacts {
            last_batch_max_timestamp: s.max_timestamp,
            ..cseg(s.base_offset.get(), s.size.get(), 16, 24)
        })
        .collect();
    (segs, cleaner)
}

#[test]
fn cleaned_layout_merges_from_the_log_start_up_to_the_pass_end() {
    let (segs, cleaner) = layout_case();
    let config = LogConfig {
        segment_bytes: 1_000,
        ..LogConfig::default()
    };
    let l = cleaned_layout(
        &segs,
        &cleaner,
        Offset(40),
        Offset(40),
        Offset(40),
        V,
        &config,
    );
    assert_eq!(l.len(), 2);
    let g = &l[0];
    assert_eq!(g.members, 0..4);
    assert!(g.cleaned);
    assert_eq!(g.facts.base_offset, Offset(0));
    assert_eq!(g.facts.next_offset, Offset(40));
    assert_eq!(g.facts.size, Bytes(400));
    // The young member's timestamp is the group's, and it is the pass's last batch: exact.
    assert_eq!(g.facts.max_timestamp, TimestampMs(90_000));
    assert!(g.largest_timestamp_exact);
    // The cleaned segment keeps the mtime of the group's last segment.
    assert_eq!(g.facts.log_mtime, TimestampMs(100_003));
    assert_eq!(l[1].members, 4..5);
    assert!(!l[1].cleaned);
    assert_eq!(l[1].facts, segs[4]);
}

#[test]
fn cleaned_layout_timestamp_is_an_upper_bound_unless_the_last_batch_carries_it() {
    let (segs, mut cleaner) = layout_case();
    // The young segment's max is not in its last batch: compaction may drop it.
    cleaner[3].last_batch_max_timestamp = TimestampMs(80_000);
    let config = LogConfig {
        segment_bytes: 1_000,
        ..LogConfig::default()
    };
    let l = cleaned_layout(
        &segs,
        &cleaner,
        Offset(40),
        Offset(40),
        Offset(40),
        V,
        &config,
    );
    assert!(!l[0].largest_timestamp_exact);
    // A pass that stops early (full map) ends mid-log: only the segments below its end merge.
    let l = cleaned_layout(
        &segs,
        &cleaner,
        Offset(25),
        Offset(40),
        Offset(40),
        V,
        &config,
    );
    assert_eq!(
        l.iter().map(|c| c.members.clone()).collect::<Vec<_>>(),
        vec![0..3, 3..4, 4..5]
    );
    assert_eq!(l[0].facts.max_timestamp, TimestampMs(3_000));
    assert!(!l[0].largest_timestamp_exact);
    // segment.bytes bounds the groups.
    let small = LogConfig {
        segment_bytes: 250,
        ..LogConfig::default()
    };
    let l = cleaned_layout(
        &segs,
        &cleaner,
        Offset(40),
        Offset(40),
        Offset(40),
        V,
        &small,
    );
    assert_eq!(
        l.iter().map(|c| c.members.clone()).collect::<Vec<_>>(),
        vec![0..2, 2..4, 4..5]
    );
}

#[test]
fn dedupe_buffer_for_keys_inverts_the_offset_map_capacity() {
    let b = BrokerCleanupConfig::default();
    // 5,033,164 keys at 0.9: 5,592,405 slots × 24 B = 134,217,720 B, one thread.
    let need = dedupe_buffer_for_keys(5_033_164, &b).unwrap();
    assert_eq!(need, 134_217_720);
    let back = BrokerCleanupConfig {
        log_cleaner_dedupe_buffer_size: i64::try_from(need).unwrap(),
        ..b.clone()
    };
    assert_eq!(offset_map_capacity(&back).unwrap().keys_per_pass, 5_033_164);
    let two = BrokerCleanupConfig {
        log_cleaner_threads: 2,
        ..b.clone()
    };
    assert_eq!(dedupe_buffer_for_keys(9, &two), Some(10 * 24 * 2));
    let none = BrokerCleanupConfig {
        log_cleaner_threads: 0,
        ..b
    };
    assert_eq!(dedupe_buffer_for_keys(9, &none), None);
}

#[test]
fn a_pass_reads_the_dirty_section_and_copies_the_whole_log_at_least() {
    let mut log = Log::new(&[100, 200, 300, 50]);
    log.checkpoint = Some(10);
    let c = log.clean();
    // clean 100 (segment 0), cleanable 200 + 300: map reads 500, copy reads 600.
    assert_eq!(pass_io_at_least(&c.stats), Bytes(1100));
}

#[test]
fn clear_time_is_bounded_by_the_largest_log_and_the_shared_rate() {
    let rate = CleanerThroughput {
        per_thread: 100.0,
        shared_limit: None,
    };
    let work = [Bytes(1000), Bytes(100), Bytes(100)];
    // One thread: 1200 B at 100 B/s.
    assert_eq!(
        clear_time_at_least(&work, 1, rate),
        Some(DurationMs(12_000))
    );
    // Three threads: the largest log alone takes 10 s.
    assert_eq!(
        clear_time_at_least(&work, 3, rate),
        Some(DurationMs(10_000))
    );
    assert_eq!(
        clear_time_at_least(&work, 9, rate),
        Some(DurationMs(10_000))
    );
    // A shared throttle of 100 B/s: more threads gain nothing.
    let throttled = CleanerThroughput {
        per_thread: 1000.0,
        shared_limit: Some(100.0),
    };
    assert_eq!(
        clear_time_at_least(&work, 3, throttled),
        Some(DurationMs(12_000))
    );
    assert_eq!(clear_time_at_least(&[], 1, rate), None);
    assert_eq!(clear_time_at_least(&work, 0, rate), None);
    let stopped = CleanerThroughput {
        per_thread: 0.0,
        shared_limit: None,
    };
    assert_eq!(clear_time_at_least(&work, 1, stopped), None);
}

/// KAFKA-20452 (4.4, commit 7480345230): the batch the cleaner keeps emptied ends at the high
/// watermark, not at the round's first uncleanable offset (3.6–4.3: `upperBoundOffsetOfCleaningRound`
/// = `cleanable.firstUncleanableOffset`). With records above the pass (HW 45 > 40), 3.9 keeps
/// the pass's last batch and its max timestamp: the cleaned segment's timestamp is exact; 4.4 may
/// drop that batch once emptied: an upper bound. With the HW at the pass's end both keep it.
#[test]
fn the_emptied_last_batch_survives_by_release() {
    let (segs, cleaner) = layout_case();
    let config = LogConfig {
        segment_bytes: 1_000,
        ..LogConfig::default()
    };
    let exact = |hw: i64, v: KafkaVersion| {
        cleaned_layout(
            &segs,
            &cleaner,
            Offset(40),
            Offset(40),
            Offset(hw),
            v,
            &config,
        )[0]
        .largest_timestamp_exact
    };
    for v in [
        KafkaVersion::V3_6,
        KafkaVersion::V3_9,
        KafkaVersion::new(4, 3),
    ] {
        assert!(exact(45, v), "{v}");
        assert!(exact(40, v), "{v}");
        assert_eq!(empty_batch_bound(v, Offset(40), Offset(45)), Offset(40));
    }
    assert!(!exact(45, KafkaVersion::V4_4));
    assert!(exact(40, KafkaVersion::V4_4));
    assert_eq!(
        empty_batch_bound(KafkaVersion::V4_4, Offset(40), Offset(45)),
        Offset(45)
    );
}
