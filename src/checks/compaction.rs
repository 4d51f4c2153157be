//! The compaction part of `diagnose`, from the plan's compaction verdicts
//! ([`CompactionPlan`]: the cleaner's own `LogToClean` accounting at `now`) and, with `--deep`,
//! the records of the compacted logs:
//!
//! - `compaction.backlog`: a log the cleaner takes on its next passes, with its dirty ratio,
//!   cleanable bytes, dirty records (at most the dirty offsets; distinct keys with `--deep`),
//!   keys per pass ([`offset_map_capacity`]: `log.cleaner.dedupe.buffer.size` / threads over
//!   24 B MD5 entries, times `log.cleaner.io.buffer.load.factor`), passes, how far the cleaner
//!   checkpoint is behind the log end and the least I/O of its pass ([`pass_io_at_least`]).
//! - `compaction.tombstones_past_horizon` (`--deep`): tombstones whose batch's delete horizon
//!   has passed, in a log the cleaner does not take: nothing triggers a pass for an expired
//!   horizon (spec §D4), so they stay.
//! - `compaction.offsets_topic_stuck`: a `__consumer_offsets` partition whose dirty section
//!   would trigger the cleaner while a blocker of the plan stops it ([`due_while_blocked`]).
//! - `compaction.cleaner_starved`: more logs to clean than cleaner threads, and clearing them
//!   takes at least [`STARVATION_THRESHOLD_MS`] (or the smallest `max.compaction.lag.ms` of those
//!   logs) at the cleaner's rate: `--cleaner-rate` per thread (capped by
//!   `log.cleaner.io.max.bytes.per.second`, one throttler for all threads), else that limit;
//!   with neither (the default is unlimited) no time is claimed. One log is cleaned by one thread
//!   at a time, so the largest log bounds what more threads gain ([`clear_time_at_least`]).
//!
//! `plan.compaction_blocked` (the blocker itself) stays in the plan's findings.

use super::commands;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};

use humansize::{format_size, BINARY};

use super::explain::blocker;
use crate::checks::catalog;
use crate::checks::finding::{EvidenceValue, Finding, Severity};
use crate::checks::location::at_plan;
use crate::formats::batch::parse_batch_header;
use crate::formats::record::RecordRef;
use crate::formats::record_walk::RecordWalk;
use crate::model::file_bytes::{read_file_data, ReadMode};
use crate::model::log_dir::LogDir;
use crate::model::names::{SegmentFileKind, CONSUMER_OFFSETS_TOPIC};
use crate::model::partition::Partition;
use crate::model::records::SegmentStop;
use crate::model::text::duration;
use crate::model::text::utc;
use crate::model::units::{Bytes, DurationMs, Offset, TimestampMs};
use crate::plan::{Blocker, CompactionPlan, PartitionPlan, Plan};
use crate::rules::compaction::{
    clear_time_at_least, dedupe_buffer_for_keys, due_while_blocked, offset_map_capacity,
    pass_io_at_least, passes_needed, CleanerThroughput, DueWhileBlocked, Eligibility,
};

use super::run::CheckContext;

/// The time to clear the cleaner's backlog above which its logs are starved, when none of them
/// sets a smaller `max.compaction.lag.ms`: one hour (a choice of logclean, not a Kafka setting).
pub const STARVATION_THRESHOLD_MS: i64 = 3_600_000;

/// At most this many distinct keys are counted per log with `--deep` (8 B each); above it the
/// count is "more than" and passes fall back to the dirty offsets.
pub const DISTINCT_KEYS_CAP: usize = 8 << 20;

/// Bytes per MiB: `--cleaner-rate` is in MiB/s, the unit of the cleaner's own log line
/// ("Processed … MB in … seconds (… MB/sec)", 1024 × 1024 bytes).
pub const MIB: f64 = 1_048_576.0;

/// What `--deep` reads of one compacted log's records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeepFacts {
    /// Distinct keys of the keyed, non-control records from the first dirty offset to the first
    /// uncleanable offset (what one pass would map); `None` above [`DISTINCT_KEYS_CAP`].
    pub distinct_keys: Option<u64>,
    /// Tombstones (keyed records with a null value) in batches whose delete horizon ≤ now.
    pub tombstones_past_horizon: u64,
    /// The first of them.
    pub first_tombstone_offset: Option<i64>,
    /// The latest horizon among their batches.
    pub latest_horizon: Option<i64>,
    /// Segments whose records were read only up to a walk error, a torn or zero tail (the
    /// segment checks' findings): the counts above cover the batches before it.
    pub stops: Vec<SegmentStop>,
}

fn key_hash(key: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}

/// Read every `.log` of `part` once: the distinct keys in `[from, to)` and the tombstones past
/// their horizon at `now`. `None` when a segment cannot be read (inspect reports why).
pub fn scan_records(
    part: &Partition,
    from: Offset,
    to: Offset,
    now: TimestampMs,
    mode: ReadMode,
) -> Option<DeepFacts> {
    let mut keys: HashSet<u64> = HashSet::new();
    let mut capped = false;
    let mut facts = DeepFacts::default();
    for seg in &part.segments {
        let Some(path) = seg.path(&part.path, SegmentFileKind::Log) else {
            continue;
        };
        // A sparse tail is not read: the walk stops at its first zero header.
        let bytes = read_file_data(&path, mode).ok()?.bytes;
        let mut walk = RecordWalk::new(&bytes);
        for batch in walk.by_ref() {
            let b = &batch.info;
            if b.is_control {
                continue;
            }
            let horizon = batch
                .bytes()
                .ok()
                .and_then(|slice| parse_batch_header(slice).ok())
                .and_then(|h| h.delete_horizon())
                .filter(|h| *h <= now.get());
            let dirty = b.last_offset >= from.get() && b.base_offset < to.get();
            if horizon.is_none() && !dirty {
                continue;
            }
            // A batch that does not decode is inspect's finding; its records are not counted.
            let _ = batch.for_each_record(|r: RecordRef<'_>| {
                let Some(key) = r.key else { return Ok(()) };
                if dirty && (from.get()..to.get()).contains(&r.offset) && !capped {
                    keys.insert(key_hash(key));
                    capped = keys.len() > DISTINCT_KEYS_CAP;
                }
                if let (Some(h), None) = (horizon, r.value) {
                    facts.tombstones_past_horizon += 1;
                    facts.first_tombstone_offset.get_or_insert(r.offset);
                    facts.latest_horizon = facts.latest_horizon.max(Some(h));
                }
                Ok(())
            });
        }
        facts
            .stops
            .extend(SegmentStop::short_of_end(&path, walk.into_stop()));
    }
    facts.distinct_keys = (!capped).then_some(keys.len() as u64);
    Some(facts)
}

/// The cleaner's rate and where it comes from, or `None` when nothing gives one.
pub fn throughput(
    limit: f64,
    cleaner_rate: Option<f64>,
) -> Option<(CleanerThroughput, &'static str)> {
    let limit = Some(limit).filter(|l| l.is_finite() && *l > 0.0 && *l < f64::MAX);
    match (cleaner_rate.filter(|r| r.is_finite() && *r > 0.0), limit) {
        (Some(r), l) => Some((
            CleanerThroughput {
                per_thread: r,
                shared_limit: l,
            },
            "cleaner_rate_option",
        )),
        (None, Some(l)) => Some((
            CleanerThroughput {
                per_thread: l,
                shared_limit: Some(l),
            },
            "log_cleaner_io_max_bytes_per_second",
        )),
        (None, None) => None,
    }
}

/// A duration in words: `40 s`, `12 min`, `5 h`, `3 d` ([`duration`]'s units).
pub fn span(d: DurationMs) -> String {
    duration(d.get())
}

fn size(b: Bytes) -> String {
    format_size(b.get(), BINARY)
}

/// One compacted log's backlog, as the cleaner counts it.
#[derive(Debug, Clone)]
struct Backlog<'a> {
    p: &'a PartitionPlan,
    c: &'a CompactionPlan,
    deep: Option<DeepFacts>,
    dirty_records: u64,
    keys_per_pass: Option<u64>,
    passes: Option<u64>,
    work: Bytes,
}

impl Backlog<'_> {
    /// The keys one pass must map: the distinct keys when read, else the dirty offsets.
    fn keys(&self) -> u64 {
        self.deep
            .as_ref()
            .and_then(|d| d.distinct_keys)
            .unwrap_or(self.dirty_records)
    }
}

fn backlog<'a>(
    p: &'a PartitionPlan,
    c: &'a CompactionPlan,
    plan: &Plan,
    deep: Option<DeepFacts>,
) -> Backlog<'a> {
    let range = c.log.range;
    let dirty_records = range
        .first_dirty
        .offset
        .records_until(range.first_uncleanable_offset);
    let keys_per_pass = offset_map_capacity(&plan.broker).map(|m| m.keys_per_pass);
    let mut b = Backlog {
        p,
        c,
        deep,
        dirty_records,
        keys_per_pass,
        passes: None,
        work: pass_io_at_least(&c.log.stats),
    };
    b.passes = keys_per_pass.and_then(|k| passes_needed(b.keys(), k));
    b
}

/// The `compaction.backlog` sentence of `b`.
fn backlog_message(b: &Backlog<'_>, rate: Option<(CleanerThroughput, &'static str)>) -> String {
    let (p, c) = (b.p, b.c);
    let s = &c.log.stats;
    let range = &c.log.range;
    let first_dirty = range.first_dirty.offset;
    let lag = first_dirty.records_until(p.log_end_offset);
    let distinct = b.deep.as_ref().and_then(|d| d.distinct_keys);
    let why = match c.log.eligibility {
        Eligibility::MaxCompactionLagDue { delay } => format!(
            "max.compaction.lag.ms {} is due by {}",
            p.config.max_compaction_lag_ms,
            span(delay)
        ),
        _ => format!(
            "dirty ratio {:.3} is above min.cleanable.dirty.ratio {}",
            s.ratio, c.min_ratio
        ),
    };
    let records = match (distinct, &b.deep) {
        (Some(k), _) => format!("{k} distinct keys"),
        (None, Some(_)) => format!("over {DISTINCT_KEYS_CAP} distinct keys"),
        (None, None) => format!("at most {} records (--deep: keys)", b.dirty_records),
    };
    let passes = match (b.passes, b.keys_per_pass) {
        (Some(n), Some(k)) => format!("{k} keys per pass: {n} pass(es)"),
        _ => "no cleaner thread".to_string(),
    };
    let time = rate
        .and_then(|(r, _)| clear_time_at_least(&[b.work], 1, r))
        .map_or(String::new(), |t| format!(", at least {}", span(t)));
    format!(
        "the cleaner takes it on its next passes: {why}; {} cleanable of {}, offsets \
         {first_dirty}..{}: {records}, {passes}; the cleaner checkpoint is {lag} offsets behind \
         the log end {}; a pass reads at least {}{time}",
        size(s.cleanable_bytes),
        size(s.total_bytes),
        range.first_uncleanable_offset,
        p.log_end_offset,
        size(b.work),
    )
}

/// What to do about `b` (`several`: it takes more than one pass).
fn backlog_fix(b: &Backlog<'_>, plan: &Plan, several: bool) -> String {
    match dedupe_buffer_for_keys(b.keys(), &plan.broker).filter(|_| several) {
        Some(need) => format!(
            "one pass maps {} keys, the dirty section has up to {}: raise \
             log.cleaner.dedupe.buffer.size to {need} (`{}`), or let the passes run",
            b.keys_per_pass.unwrap_or(0),
            b.keys(),
            commands::alter_broker_default("log.cleaner.dedupe.buffer.size", need)
        ),
        None => format!(
            "nothing: one pass covers it; the cleaner takes it after log.cleaner.backoff.ms ({} \
             ms) when it is the dirtiest log",
            plan.broker.log_cleaner_backoff_ms
        ),
    }
}

fn backlog_finding(
    b: &Backlog<'_>,
    plan: &Plan,
    rate: Option<(CleanerThroughput, &'static str)>,
) -> Finding {
    let (p, c) = (b.p, b.c);
    let s = &c.log.stats;
    let range = &c.log.range;
    let first_dirty = range.first_dirty.offset;
    let lag = first_dirty.records_until(p.log_end_offset);
    let distinct = b.deep.as_ref().and_then(|d| d.distinct_keys);
    let message = backlog_message(b, rate);
    let several = b.passes.is_some_and(|n| n > 1);
    let fix = backlog_fix(b, plan, several);
    let mut f = Finding::new(&catalog::COMPACTION_BACKLOG, at_plan(p, None), message)
        .evidence(
            "dirty_ratio",
            EvidenceValue::Text(format!("{:.3}", s.ratio)),
        )
        .evidence(
            "min_cleanable_dirty_ratio",
            EvidenceValue::Text(format!("{}", c.min_ratio)),
        )
        .evidence("clean_bytes", EvidenceValue::Bytes(s.clean_bytes.get()))
        .evidence(
            "cleanable_bytes",
            EvidenceValue::Bytes(s.cleanable_bytes.get()),
        )
        .evidence("total_bytes", EvidenceValue::Bytes(s.total_bytes.get()))
        .evidence(
            "first_dirty_offset",
            EvidenceValue::Offset(first_dirty.get()),
        )
        .evidence(
            "first_uncleanable_offset",
            EvidenceValue::Offset(range.first_uncleanable_offset.get()),
        )
        .evidence(
            "log_end_offset",
            EvidenceValue::Offset(p.log_end_offset.get()),
        )
        .evidence("checkpoint_lag_offsets", EvidenceValue::Count(lag))
        .evidence(
            "dirty_records_at_most",
            EvidenceValue::Count(b.dirty_records),
        );
    if let Some(k) = distinct {
        f = f.evidence("distinct_keys", EvidenceValue::Count(k));
    }
    if let Some(k) = b.keys_per_pass {
        f = f.evidence("keys_per_pass", EvidenceValue::Count(k));
    }
    if let Some(n) = b.passes {
        f = f.evidence("passes", EvidenceValue::Count(n)).evidence(
            "passes_upper_bound",
            EvidenceValue::Flag(distinct.is_none()),
        );
    }
    f = f.evidence("pass_io_bytes_at_least", EvidenceValue::Bytes(b.work.get()));
    if let Some(t) = rate.and_then(|(r, _)| clear_time_at_least(&[b.work], 1, r)) {
        f = f.evidence("clear_ms_at_least", EvidenceValue::Int(t.get()));
    }
    if s.need_compaction_now() {
        f = f.evidence(
            "max_compaction_delay_ms",
            EvidenceValue::Int(s.max_compaction_delay.get()),
        );
    }
    if several {
        f = f.with_severity(Severity::Warning);
    }
    f.fix(fix)
}

/// Why the cleaner does not take `c`'s log, in words.
fn not_taken(c: &CompactionPlan) -> String {
    match &c.blocked_by {
        Some(b) => blocker(b).text,
        None => "the cleaner does not take it".to_string(),
    }
}

fn tombstone_finding(b: &Backlog<'_>, now: TimestampMs) -> Option<Finding> {
    let d = b.deep.as_ref()?;
    if d.tombstones_past_horizon == 0 || b.c.will_clean {
        return None;
    }
    let (p, c) = (b.p, b.c);
    let latest = TimestampMs(d.latest_horizon.unwrap_or(now.get()));
    let message = format!(
        "{} tombstone(s) from offset {} are past their delete horizon (latest {}, \
         delete.retention.ms {}) and still in the log: only a cleaning pass drops them, none is \
         due ({}), and nothing triggers one for an expired horizon",
        d.tombstones_past_horizon,
        d.first_tombstone_offset.unwrap_or(0),
        utc(latest),
        p.config.delete_retention_ms,
        not_taken(c)
    );
    let mut f = Finding::new(
        &catalog::COMPACTION_TOMBSTONES_PAST_HORIZON,
        at_plan(p, None),
        message,
    )
    .evidence(
        "tombstones",
        EvidenceValue::Count(d.tombstones_past_horizon),
    )
    .evidence(
        "first_offset",
        EvidenceValue::Offset(d.first_tombstone_offset.unwrap_or(0)),
    )
    .evidence("latest_horizon", EvidenceValue::TimestampMs(latest.get()))
    .evidence(
        "delete_retention_ms",
        EvidenceValue::Int(p.config.delete_retention_ms),
    )
    .evidence(
        "dirty_ratio",
        EvidenceValue::Text(format!("{:.3}", c.log.stats.ratio)),
    )
    .evidence(
        "min_cleanable_dirty_ratio",
        EvidenceValue::Text(format!("{}", c.min_ratio)),
    );
    if let Some(blk) = &c.blocked_by {
        let e = blocker(blk);
        let fresh: Vec<_> = e
            .evidence
            .into_iter()
            .filter(|x| !f.evidence.iter().any(|y| y.name == x.name))
            .collect();
        f = f
            .evidence("blocked_by", EvidenceValue::Text(e.kind.to_string()))
            .with_evidence(fresh);
    }
    Some(f)
}

fn offsets_topic_finding(p: &PartitionPlan) -> Option<Finding> {
    let c = p.compaction.as_ref()?;
    if p.topic != CONSUMER_OFFSETS_TOPIC {
        return None;
    }
    let blk = c
        .blocked_by
        .filter(|b| !matches!(b, Blocker::RatioNotAbove { .. } | Blocker::EmptyLog))?;
    let segs: Vec<(Offset, Bytes)> = p.segments.iter().map(|s| (s.base_offset, s.size)).collect();
    let cleaner_runs = !matches!(blk, Blocker::CleanerDisabled { .. } | Blocker::Paused);
    let DueWhileBlocked {
        stuck,
        segments,
        trigger,
    } = due_while_blocked(
        &segs,
        c.log.range.first_dirty.offset,
        c.log.range.first_uncleanable_offset,
        cleaner_runs,
        c.log.stats.clean_bytes,
        c.min_ratio,
    )?;
    let e = blocker(&blk);
    let fix = match blk {
        Blocker::CleanerDisabled { .. } => format!(
            "enable the cleaner: log.cleaner.enable=true and log.cleaner.threads ≥ 1 in \
             server.properties (restart), or `{}`",
            commands::alter_broker_default("log.cleaner.threads", 1)
        ),
        Blocker::Paused => "let the intra-broker move (-future dir) finish or cancel it".into(),
        Blocker::OpenTransaction { .. } => format!(
            "abort the hanging transactional offset commit: `logclean transactions {}` prints \
             the `kafka-transactions.sh abort` line for it",
            crate::model::names::shell_path(&p.log_dir)
        ),
        Blocker::HighWatermark { .. } => {
            "let the followers catch up so the HW reaches the log end".into()
        }
        Blocker::MinCompactionLag { lag_ms, .. } => format!(
            "lower the topic's min.compaction.lag.ms (now {lag_ms}): `{}`",
            commands::alter_topic(&p.topic, "min.compaction.lag.ms", 0)
        ),
        _ => "lower the topic's min.cleanable.dirty.ratio".into(),
    };
    let message = format!(
        "{} grows: {} in {segments} dirty segment(s) wait for the cleaner (it takes a log once \
         its dirty bytes pass {} at min.cleanable.dirty.ratio {} over {} clean), but {}; the \
         group coordinator reads all of it on every load",
        p.dir_name,
        size(stuck),
        size(trigger),
        c.min_ratio,
        size(c.log.stats.clean_bytes),
        e.text
    );
    Some(
        Finding::new(
            &catalog::COMPACTION_OFFSETS_TOPIC_STUCK,
            at_plan(p, None),
            message,
        )
        .evidence("stuck_bytes", EvidenceValue::Bytes(stuck.get()))
        .evidence("stuck_segments", EvidenceValue::Count(segments))
        .evidence(
            "clean_bytes",
            EvidenceValue::Bytes(c.log.stats.clean_bytes.get()),
        )
        .evidence("trigger_bytes", EvidenceValue::Bytes(trigger.get()))
        .evidence("blocked_by", EvidenceValue::Text(e.kind.to_string()))
        .with_evidence(e.evidence)
        .fix(format!(
            "{fix}; the cleaner then takes it (kafka.log:type=LogCleanerManager shows it)"
        )),
    )
}

fn starvation_finding(
    logs: &[Backlog<'_>],
    plan: &Plan,
    rate: Option<(CleanerThroughput, &'static str)>,
) -> Option<Finding> {
    let threads = u64::try_from(plan.broker.log_cleaner_threads).ok()?;
    let n = logs.len() as u64;
    if n <= threads {
        return None;
    }
    let (r, source) = rate?;
    let work: Vec<Bytes> = logs.iter().map(|b| b.work).collect();
    let now_time = clear_time_at_least(&work, threads, r)?;
    let per_log = clear_time_at_least(&work, n, r)?;
    let lag = logs
        .iter()
        .map(|b| b.p.config.max_compaction_lag_ms)
        .filter(|l| *l > 0 && *l < i64::MAX)
        .min();
    let threshold = lag.unwrap_or(STARVATION_THRESHOLD_MS);
    if now_time.get() < threshold {
        return None;
    }
    let largest = logs.iter().max_by_key(|b| b.work)?;
    let total: Bytes = work.iter().copied().sum();
    let threshold_name = if lag.is_some() {
        format!(
            "the smallest max.compaction.lag.ms of these logs, {}",
            span(DurationMs(threshold))
        )
    } else {
        "logclean's threshold of 1 h".to_string()
    };
    let message = format!(
        "{n} compacted logs need cleaning and {threads} cleaner thread(s) take one log each at a \
         time: at least {} of cleaning I/O ({}{}), which at {}/s per thread takes at least {} \
         (over {threshold_name}); with {n} threads (one per log) at least {}, bounded by the \
         largest log",
        size(total),
        largest_three(logs),
        if logs.len() > 3 { ", …" } else { "" },
        size(Bytes(r.per_thread as u64)),
        span(now_time),
        span(per_log),
    );
    let fix = starvation_fix(&work, threads, threshold, per_log, largest, r);
    Some(
        Finding::new(
            &catalog::COMPACTION_CLEANER_STARVED,
            at_plan(largest.p, None),
            message,
        )
        .evidence("logs_needing_cleaning", EvidenceValue::Count(n))
        .evidence(
            "log_cleaner_threads",
            EvidenceValue::Int(i64::from(plan.broker.log_cleaner_threads)),
        )
        .evidence("io_bytes_at_least", EvidenceValue::Bytes(total.get()))
        .evidence(
            "largest_log_io_bytes",
            EvidenceValue::Bytes(largest.work.get()),
        )
        .evidence(
            "rate_bytes_per_sec",
            EvidenceValue::Count(r.per_thread as u64),
        )
        .evidence("rate_source", EvidenceValue::Text(source.to_string()))
        .evidence("clear_ms_at_least", EvidenceValue::Int(now_time.get()))
        .evidence(
            "clear_ms_one_thread_per_log",
            EvidenceValue::Int(per_log.get()),
        )
        .evidence("threshold_ms", EvidenceValue::Int(threshold))
        .fix(fix),
    )
}

/// The three logs with the most cleaning I/O, `dir size` each, most first.
fn largest_three(logs: &[Backlog<'_>]) -> String {
    let mut listed: Vec<&Backlog<'_>> = logs.iter().collect();
    listed.sort_by_key(|b| std::cmp::Reverse(b.work));
    let top: Vec<String> = listed
        .iter()
        .take(3)
        .map(|b| format!("{} {}", b.p.dir_name, size(b.work)))
        .collect();
    top.join(", ")
}

/// How many cleaner threads clear the logs' `work` within `threshold` at `r` (now `threads`),
/// and what the `largest` log still takes alone.
fn starvation_fix(
    work: &[Bytes],
    threads: u64,
    threshold: i64,
    per_log: DurationMs,
    largest: &Backlog<'_>,
    r: CleanerThroughput,
) -> String {
    let n = work.len() as u64;
    // The fewest threads that clear it within the threshold, else one per log.
    let enough = (threads + 1..=n)
        .find(|t| clear_time_at_least(work, *t, r).is_some_and(|d| d.get() < threshold))
        .unwrap_or(n);
    let with_enough = clear_time_at_least(work, enough, r).unwrap_or(per_log);
    format!(
        "raise log.cleaner.threads to {enough} (at least {} then; `{}`; each thread gets \
         log.cleaner.dedupe.buffer.size / threads); more threads than logs gain nothing and {} \
         alone takes at least {}{}",
        span(with_enough),
        commands::alter_broker_default("log.cleaner.threads", enough),
        largest.p.dir_name,
        span(clear_time_at_least(&[largest.work], 1, r).unwrap_or(per_log)),
        if r.shared_limit.is_some() {
            "; log.cleaner.io.max.bytes.per.second throttles all threads together: raise it too"
        } else {
            ""
        }
    )
}

fn partition_of<'a>(dirs: &'a [LogDir], p: &PartitionPlan) -> Option<&'a Partition> {
    dirs.iter()
        .filter(|d| d.path == p.log_dir)
        .flat_map(|d| d.partitions.iter())
        .find(|x| x.dir_name == p.dir_name)
}

/// Every `compaction.*` finding of the plan of `ctx` (and, with `ctx.deep`, of the compacted
/// logs' records in its dirs).
pub fn compaction_findings(ctx: &CheckContext<'_>) -> Vec<Finding> {
    let (plan, dirs) = (ctx.plan, ctx.dirs);
    let rate = throughput(
        plan.broker.log_cleaner_io_max_bytes_per_second,
        ctx.cleaner_rate_bytes_per_sec,
    );
    let logs: Vec<Backlog<'_>> = plan
        .partitions
        .iter()
        .filter_map(|p| {
            let c = p.compaction.as_ref()?;
            let deep = if ctx.deep {
                partition_of(dirs, p).and_then(|part| {
                    scan_records(
                        part,
                        c.log.range.first_dirty.offset,
                        c.log.range.first_uncleanable_offset,
                        plan.now,
                        ctx.read_mode,
                    )
                })
            } else {
                None
            };
            Some(backlog(p, c, plan, deep))
        })
        .collect();
    let mut out = Vec::new();
    for b in &logs {
        if b.c.will_clean {
            out.push(backlog_finding(b, plan, rate));
        }
        out.extend(tombstone_finding(b, plan.now));
        out.extend(offsets_topic_finding(b.p));
    }
    let needing: Vec<Backlog<'_>> = logs.into_iter().filter(|b| b.c.will_clean).collect();
    out.extend(starvation_finding(&needing, plan, rate));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::model::cluster::{ClusterInputs, ClusterView, FileInput};
    use crate::model::log_dir::{load_log_dir, Selection};
    use crate::model::segment::{LoadOptions, ScanDepth};
    use crate::plan::{build_plan, PlanOptions};
    use crate::rules::KafkaVersion;

    /// 2026-11-30T13:42:20Z, the `compacted` fixture's capture.
    const CAPTURED: i64 = 1_796_046_140_000;

    fn fixture(now: i64) -> (Plan, Vec<LogDir>, ClusterView) {
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/compacted");
        let dir = root.join("logs-0");
        let view = ClusterView::build(&ClusterInputs {
            log_dirs: vec![dir.clone()],
            server_properties: Some(FileInput::Path(root.join("server.properties"))),
            ..ClusterInputs::default()
        })
        .unwrap();
        let opts = LoadOptions::tail_with_internal_topics_at(ScanDepth::Headers, ReadMode::Mmap);
        let d = load_log_dir(&dir, &Selection::default(), &opts, &|| {}).unwrap();
        let dirs = vec![d];
        let plan = build_plan(
            &view,
            &dirs,
            &PlanOptions {
                now: TimestampMs(now),
                topics: Vec::new(),
                version: KafkaVersion::default(),
            },
        );
        (plan, dirs, view)
    }

    /// The compaction findings of `plan` with `--deep` (buffered reads) or not, at `rate`.
    fn findings_of(
        plan: &Plan,
        dirs: &[LogDir],
        view: &ClusterView,
        deep: bool,
        rate: Option<f64>,
    ) -> Vec<Finding> {
        compaction_findings(&CheckContext {
            dirs,
            not_log_dirs: &[],
            view,
            plan,
            version: KafkaVersion::default(),
            read_mode: if deep {
                ReadMode::Buffered
            } else {
                ReadMode::Mmap
            },
            deep,
            cleaner_rate_bytes_per_sec: rate,
            disk_space: None,
            listed_usage: &[],
        })
    }

    fn part<'a>(dirs: &'a [LogDir], name: &str) -> &'a Partition {
        dirs[0]
            .partitions
            .iter()
            .find(|p| p.dir_name == name)
            .unwrap()
    }

    #[test]
    fn records_give_distinct_keys_of_the_range_and_tombstones_past_their_horizon() {
        let (_, dirs, _) = fixture(CAPTURED);
        let p = part(&dirs, "compacted-1");
        // Segment 0 is the broker's cleaned output: keys k00..k19 once each, k12..k14 as
        // tombstones stamped at the pass (2026-11-30T13:42:14.947Z) + 1 d.
        let all = scan_records(
            p,
            Offset(0),
            Offset(35),
            TimestampMs(CAPTURED),
            ReadMode::Mmap,
        )
        .unwrap();
        assert_eq!(all.distinct_keys, Some(20));
        assert_eq!(all.tombstones_past_horizon, 0);
        let later = TimestampMs(1_796_132_534_947);
        let at = scan_records(p, Offset(35), Offset(36), later, ReadMode::Buffered).unwrap();
        assert_eq!(at.distinct_keys, Some(1));
        assert_eq!(at.tombstones_past_horizon, 3);
        assert_eq!(at.first_tombstone_offset, Some(32));
        assert_eq!(at.latest_horizon, Some(later.get()));
        let empty = scan_records(p, Offset(5), Offset(5), later, ReadMode::Mmap).unwrap();
        assert_eq!(empty.distinct_keys, Some(0));
    }

    #[test]
    fn the_rate_is_the_option_capped_by_the_throttle_or_the_throttle() {
        assert_eq!(throughput(f64::MAX, None), None);
        assert_eq!(throughput(f64::INFINITY, Some(0.0)), None);
        let (r, src) = throughput(f64::MAX, Some(10.0)).unwrap();
        assert_eq!(
            (r.per_thread, r.shared_limit, src),
            (10.0, None, "cleaner_rate_option")
        );
        let (r, src) = throughput(4.0, Some(10.0)).unwrap();
        assert_eq!((r.of_threads(3), src), (4.0, "cleaner_rate_option"));
        let (r, src) = throughput(4.0, None).unwrap();
        assert_eq!(
            (r.per_thread, r.shared_limit, src),
            (4.0, Some(4.0), "log_cleaner_io_max_bytes_per_second")
        );
    }

    #[test]
    fn spans_read_in_the_largest_sensible_unit() {
        assert_eq!(span(DurationMs(40_000)), "40 s");
        assert_eq!(span(DurationMs(3_600_000)), "60 min");
        assert_eq!(span(DurationMs(5 * 3_600_000)), "5 h");
        assert_eq!(span(DurationMs(3 * 86_400_000)), "3 d");
    }

    #[test]
    fn several_passes_make_the_backlog_a_warning_with_the_buffer_that_fits() {
        let (mut plan, dirs, view) = fixture(CAPTURED);
        // 240 B of dedupe buffer: 10 slots, 9 keys per pass; compacted-0 has 34 dirty offsets.
        plan.broker.log_cleaner_dedupe_buffer_size = 240;
        let f = findings_of(&plan, &dirs, &view, false, None);
        let b = f
            .iter()
            .find(|f| {
                f.code == "compaction.backlog" && f.location.dir.as_deref() == Some("compacted-0")
            })
            .unwrap();
        assert_eq!(b.severity, Severity::Warning);
        let passes = b.evidence.iter().find(|e| e.name == "passes").unwrap();
        assert_eq!(passes.value, EvidenceValue::Count(4));
        // ceil(34 / 0.9) = 38 slots × 24 B.
        assert!(
            b.fix.contains("log.cleaner.dedupe.buffer.size=912"),
            "{}",
            b.fix
        );
        // With --deep the 20 distinct keys need 3 passes.
        let f = findings_of(&plan, &dirs, &view, true, None);
        let b = f
            .iter()
            .find(|f| {
                f.code == "compaction.backlog" && f.location.dir.as_deref() == Some("compacted-0")
            })
            .unwrap();
        let passes = b.evidence.iter().find(|e| e.name == "passes").unwrap();
        assert_eq!(passes.value, EvidenceValue::Count(3));
    }

    #[test]
    fn no_starvation_when_every_log_has_a_thread() {
        let (mut plan, dirs, view) = fixture(CAPTURED);
        let starved = |plan: &Plan| {
            findings_of(plan, &dirs, &view, false, Some(1.0))
                .iter()
                .any(|f| f.code == "compaction.cleaner_starved")
        };
        assert!(starved(&plan));
        // Two threads for the two logs: slow, but nobody waits for another log.
        plan.broker.log_cleaner_threads = 2;
        assert!(!starved(&plan));
    }
}
