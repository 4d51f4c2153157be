//! When a segment that has become deletable is renamed `.deleted` and when its files are gone.
//!
//! Kafka: `LogManager` (`startupWithConfigOverrides` schedules `kafka-log-retention` after
//! `log.initial.task.delay.ms`, then at the fixed rate `log.retention.check.interval.ms`
//! (`KafkaScheduler.schedule` is fixed-rate); `cleanupLogs`), `UnifiedLog.deleteSegments` →
//! `LocalLog.deleteSegmentFiles` (rename to `.deleted`, one-shot `delete-file` task after the
//! topic's `file.delete.delay.ms`), `LogCleaner.CleanerThread.doWork` (retention of compacted
//! logs after every loop iteration, sleeping `log.cleaner.backoff.ms` when nothing was
//! cleaned). Spec §C1–C3.
//!
//! A run at instant t deletes a segment whose predicate holds at t, so the rename happens at
//! the first run at or after the eligibility instant (spec §C2 writes "t_k > E(S)", which is
//! the same run once E is the first instant the strict predicate holds). Every instant here is
//! a lower bound in practice: a run's own duration and scheduler queueing come on top.

use crate::config::{BrokerCleanupConfig, CleanupPolicy, Limit, LogConfig};
use crate::model::units::{DurationMs, TimestampMs};

use super::retention::{runner, Runner};
use super::roll::max_segment_ms;

/// What is known of the broker's run when the timeline starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrokerClock {
    /// The broker finished loading its logs at this instant (retention's phase is known).
    LoadedAt(TimestampMs),
    /// The broker runs, but when it started is not known.
    PhaseUnknown,
}

/// An instant known exactly, or only within bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// At this instant (plus the run's duration and scheduler queueing).
    At(TimestampMs),
    /// Somewhere in [earliest, latest].
    Between {
        /// Earliest.
        earliest: TimestampMs,
        /// Latest.
        latest: TimestampMs,
    },
    /// Not before `earliest`; by `latest_if_idle` only while the cleaner threads are idle (a
    /// long cleaning pass on another log delays it without bound, spec §C1).
    CleanerLoop {
        /// Earliest.
        earliest: TimestampMs,
        /// Latest when every cleaner thread is idle.
        latest_if_idle: TimestampMs,
    },
}

impl Bound {
    /// The same bound moved by `d`.
    pub fn shifted(self, d: DurationMs) -> Bound {
        match self {
            Bound::At(t) => Bound::At(t + d),
            Bound::Between { earliest, latest } => Bound::Between {
                earliest: earliest + d,
                latest: latest + d,
            },
            Bound::CleanerLoop {
                earliest,
                latest_if_idle,
            } => Bound::CleanerLoop {
                earliest: earliest + d,
                latest_if_idle: latest_if_idle + d,
            },
        }
    }

    /// The earliest instant.
    pub fn earliest(self) -> TimestampMs {
        match self {
            Bound::At(t) => t,
            Bound::Between { earliest, .. } | Bound::CleanerLoop { earliest, .. } => earliest,
        }
    }
}

/// From eligibility to files gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileTimeline {
    /// When every condition of the delete pass holds.
    pub eligible_at: TimestampMs,
    /// When the segment's files are renamed `<name>.deleted` (gone from readers).
    pub renamed: Bound,
    /// When the files are removed from disk (renamed + the topic's `file.delete.delay.ms`).
    /// A broker restart before that removes `.deleted` files at load at once (spec §G2).
    pub gone_by: Bound,
}

/// The retention task's fixed-rate schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetentionSchedule {
    /// The first run: log loading done + `log.initial.task.delay.ms`.
    pub first_run_at: TimestampMs,
    /// `log.retention.check.interval.ms` (at least 1).
    pub interval: DurationMs,
}

impl RetentionSchedule {
    /// The schedule of a broker that finished loading its logs at `loaded_at`.
    pub fn new(loaded_at: TimestampMs, broker: &BrokerCleanupConfig) -> RetentionSchedule {
        RetentionSchedule {
            first_run_at: loaded_at + DurationMs(broker.log_initial_task_delay_ms.max(0)),
            interval: DurationMs(broker.log_retention_check_interval_ms.max(1)),
        }
    }

    /// The first run at or after `t`.
    pub fn run_at_or_after(&self, t: TimestampMs) -> TimestampMs {
        if t <= self.first_run_at {
            return self.first_run_at;
        }
        let since = i128::from((t - self.first_run_at).get());
        let step = i128::from(self.interval.get());
        let k = (since + step - 1) / step;
        let offset = i64::try_from(k * step).unwrap_or(i64::MAX);
        self.first_run_at + DurationMs(offset)
    }
}

/// The timeline of a segment of a log whose retention the `kafka-log-retention` task runs
/// (policy without `compact`).
pub fn retention_task_timeline(
    eligible_at: TimestampMs,
    clock: BrokerClock,
    broker: &BrokerCleanupConfig,
    topic: &LogConfig,
) -> FileTimeline {
    let renamed = match clock {
        BrokerClock::LoadedAt(loaded) => {
            Bound::At(RetentionSchedule::new(loaded, broker).run_at_or_after(eligible_at))
        }
        BrokerClock::PhaseUnknown => Bound::Between {
            earliest: eligible_at,
            latest: eligible_at + DurationMs(broker.log_retention_check_interval_ms.max(1)),
        },
    };
    timeline(eligible_at, renamed, topic)
}

/// The timeline of a segment of a compacted log (`compact` or `compact,delete`): retention
/// runs in the cleaner threads after each loop iteration, so the cadence is
/// `log.cleaner.backoff.ms` while they are idle. Cleaner threads start with the log manager,
/// without the initial task delay.
pub fn cleaner_timeline(
    eligible_at: TimestampMs,
    broker: &BrokerCleanupConfig,
    topic: &LogConfig,
) -> FileTimeline {
    let renamed = Bound::CleanerLoop {
        earliest: eligible_at,
        latest_if_idle: eligible_at + DurationMs(broker.log_cleaner_backoff_ms.max(0)),
    };
    timeline(eligible_at, renamed, topic)
}

/// The timeline for the thread that runs the topic's retention ([`runner`]). `None` when no
/// thread runs it (a compacted log without cleaner threads).
pub fn deletion_timeline(
    eligible_at: TimestampMs,
    clock: BrokerClock,
    broker: &BrokerCleanupConfig,
    topic: &LogConfig,
) -> Option<FileTimeline> {
    match runner(topic.cleanup_policy) {
        Runner::RetentionTask => Some(retention_task_timeline(eligible_at, clock, broker, topic)),
        Runner::CleanerThreads if broker.log_cleaner_enable && broker.log_cleaner_threads > 0 => {
            Some(cleaner_timeline(eligible_at, broker, topic))
        }
        Runner::CleanerThreads => None,
    }
}

fn timeline(eligible_at: TimestampMs, renamed: Bound, topic: &LogConfig) -> FileTimeline {
    FileTimeline {
        eligible_at,
        renamed,
        gone_by: renamed.shifted(DurationMs(topic.file_delete_delay_ms.max(0))),
    }
}

/// The worst-case age of a record on disk under time retention, when timestamps are monotonic,
/// the HW does not lag and the partition keeps receiving appends (spec §C2): up to the roll
/// interval spent in its segment after it, then `retention.ms`, one check interval (or the
/// cleaner backoff for compacted logs) and `file.delete.delay.ms`. `None` when time retention
/// is off or the policy has no `delete`. Without appends the active segment never rolls and
/// the bound does not hold (spec §A1).
pub fn worst_case_record_age(
    topic: &LogConfig,
    broker: &BrokerCleanupConfig,
) -> Option<DurationMs> {
    let Limit::Max(retention) = topic.retention_ms else {
        return None;
    };
    if !topic.cleanup_policy.delete {
        return None;
    }
    let cadence = if topic.cleanup_policy == CleanupPolicy::COMPACT_DELETE {
        broker.log_cleaner_backoff_ms
    } else {
        broker.log_retention_check_interval_ms
    };
    Some(
        DurationMs(max_segment_ms(topic))
            + DurationMs(retention)
            + DurationMs(cadence.max(0))
            + DurationMs(topic.file_delete_delay_ms.max(0)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: i64 = 60_000;

    #[test]
    fn first_run_waits_for_the_initial_task_delay_after_load() {
        let b = BrokerCleanupConfig::default();
        let s = RetentionSchedule::new(TimestampMs(1_000_000), &b);
        assert_eq!(s.first_run_at, TimestampMs(1_030_000));
        // Eligible before the first run: renamed at the first run.
        assert_eq!(s.run_at_or_after(TimestampMs(0)), TimestampMs(1_030_000));
    }

    #[test]
    fn runs_follow_the_fixed_rate_check_interval() {
        let b = BrokerCleanupConfig::default();
        let s = RetentionSchedule::new(TimestampMs(0), &b);
        let first = 30_000;
        assert_eq!(s.run_at_or_after(TimestampMs(first)), TimestampMs(first));
        assert_eq!(
            s.run_at_or_after(TimestampMs(first + 1)),
            TimestampMs(first + 5 * MIN)
        );
        assert_eq!(
            s.run_at_or_after(TimestampMs(first + 5 * MIN)),
            TimestampMs(first + 5 * MIN)
        );
        assert_eq!(
            s.run_at_or_after(TimestampMs(first + 11 * MIN)),
            TimestampMs(first + 15 * MIN)
        );
    }

    #[test]
    fn files_are_gone_file_delete_delay_after_the_rename() {
        let b = BrokerCleanupConfig::default();
        let t = LogConfig::default();
        let tl = retention_task_timeline(
            TimestampMs(40_000),
            BrokerClock::LoadedAt(TimestampMs(0)),
            &b,
            &t,
        );
        assert_eq!(tl.renamed, Bound::At(TimestampMs(30_000 + 5 * MIN)));
        assert_eq!(tl.gone_by, Bound::At(TimestampMs(30_000 + 6 * MIN)));
    }

    #[test]
    fn unknown_phase_gives_one_check_interval_of_uncertainty() {
        let b = BrokerCleanupConfig::default();
        let t = LogConfig::default();
        let tl = retention_task_timeline(TimestampMs(0), BrokerClock::PhaseUnknown, &b, &t);
        assert_eq!(
            tl.gone_by,
            Bound::Between {
                earliest: TimestampMs(MIN),
                latest: TimestampMs(6 * MIN)
            }
        );
        assert_eq!(tl.gone_by.earliest(), TimestampMs(MIN));
    }

    #[test]
    fn compacted_logs_follow_the_cleaner_backoff_not_the_check_interval() {
        let b = BrokerCleanupConfig::default();
        let t = LogConfig {
            cleanup_policy: CleanupPolicy::COMPACT_DELETE,
            ..LogConfig::default()
        };
        let tl = deletion_timeline(TimestampMs(0), BrokerClock::PhaseUnknown, &b, &t).unwrap();
        assert_eq!(
            tl.renamed,
            Bound::CleanerLoop {
                earliest: TimestampMs(0),
                latest_if_idle: TimestampMs(15_000)
            }
        );
        assert_eq!(tl.gone_by.earliest(), TimestampMs(MIN));
        let off = BrokerCleanupConfig {
            log_cleaner_enable: false,
            ..b
        };
        assert_eq!(
            deletion_timeline(TimestampMs(0), BrokerClock::PhaseUnknown, &off, &t),
            None
        );
    }

    proptest::proptest! {
        #[test]
        fn run_at_or_after_is_the_first_grid_point_not_before_t(
            loaded in -1_000_000i64..1_000_000,
            interval in 1i64..10_000,
            t in -2_000_000i64..2_000_000,
        ) {
            let b = BrokerCleanupConfig {
                log_retention_check_interval_ms: interval,
                ..BrokerCleanupConfig::default()
            };
            let s = RetentionSchedule::new(TimestampMs(loaded), &b);
            let r = s.run_at_or_after(TimestampMs(t));
            proptest::prop_assert!(r >= TimestampMs(t) && r >= s.first_run_at);
            let since = (r - s.first_run_at).get();
            proptest::prop_assert_eq!(since % interval, 0);
            if since > 0 {
                proptest::prop_assert!(r.get() - interval < t);
            }
        }
    }

    #[test]
    fn worst_case_age_at_defaults_is_fourteen_days_and_six_minutes() {
        let b = BrokerCleanupConfig::default();
        let t = LogConfig::default();
        let day = 86_400_000;
        assert_eq!(
            worst_case_record_age(&t, &b),
            Some(DurationMs(14 * day + 6 * MIN))
        );
        let unlimited = LogConfig {
            retention_ms: Limit::Unlimited,
            ..LogConfig::default()
        };
        assert_eq!(worst_case_record_age(&unlimited, &b), None);
        let compact = LogConfig {
            cleanup_policy: CleanupPolicy::COMPACT,
            ..LogConfig::default()
        };
        assert_eq!(worst_case_record_age(&compact, &b), None);
    }
}
