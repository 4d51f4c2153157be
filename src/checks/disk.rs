//! Disk projection per log dir (`dir.disk_full_soon`): the `.log` bytes on disk, the
//! filesystem's free and total bytes (`statvfs(2)` of the log dir, read-only; or the figures
//! given with `--disk-space`), the write rate from record timestamps, the growth rate, the time
//! until the filesystem is full at that growth rate, and the bytes the next retention pass frees
//! (from the plan).
//!
//! Rates:
//! - A partition's write rate is the bytes of the segments the next pass keeps over their
//!   record-time window: from the oldest kept segment's first timestamp to the newest largest
//!   timestamp, capped at `now` (future timestamps do not shrink the window). Timestamps below
//!   [`SANE_MIN_MS`] (seconds, not milliseconds) are skipped. A window under
//!   [`MIN_RATE_WINDOW_MS`] gives no rate: a burst says nothing about the hours to come.
//! - Growth counts only the partitions retention does not hold at a bound yet: a delete-policy
//!   partition whose kept window already spans `retention.ms`, or whose kept bytes reach
//!   `retention.bytes`, deletes about what it writes (steady state, growth 0). Compacted-only
//!   partitions count at their write rate (an upper bound: compaction reclaims some).
//! - Time until full = free bytes / growth per hour. Thresholds: under [`WARN_FULL_MS`] (24 h)
//!   a warning, under [`ERROR_FULL_MS`] (6 h) an error.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::checks::catalog;
use crate::checks::finding::{EvidenceValue, Finding, Location, Severity};
use crate::checks::startup::StartupCost;
use crate::model::disk_usage::statvfs_space;
use crate::model::log_dir::LogDir;
use crate::model::replays::Records;
use crate::model::text::age;
use crate::model::text::utc;
use crate::plan::{PartitionPlan, Plan};
use crate::rules::retention::Verdict;

/// A rate needs at least this much record time (10 min).
pub const MIN_RATE_WINDOW_MS: i64 = 600_000;
/// A filesystem full sooner than this (24 h) is a warning.
pub const WARN_FULL_MS: i64 = 24 * 3_600_000;
/// A filesystem full sooner than this (6 h) is an error.
pub const ERROR_FULL_MS: i64 = 6 * 3_600_000;
/// Timestamps below this (1e11 ms, 1973-03-03) are taken for seconds and skipped.
pub const SANE_MIN_MS: i64 = 100_000_000_000;

pub use crate::model::disk_usage::FsSpace;

/// Where the filesystem figures come from (a trait so tests do not depend on the host).
pub trait FsStats {
    /// The figures of the filesystem holding `path`, `None` when they cannot be read.
    fn space(&self, path: &Path) -> Option<FsSpace>;
}

/// `statvfs(2)` of the dir itself (opens nothing, writes nothing).
#[derive(Debug, Clone, Copy, Default)]
pub struct Statvfs;

impl FsStats for Statvfs {
    fn space(&self, path: &Path) -> Option<FsSpace> {
        statvfs_space(path)
    }
}

/// The figures read now, or those a facts snapshot carries (statvfs when it was taken).
impl FsStats for Records<'_> {
    fn space(&self, path: &Path) -> Option<FsSpace> {
        self.fs_space(path)
    }
}

/// The same figures for every dir (`--disk-space FREE,TOTAL`: a saved copy's filesystem is not
/// the broker's).
#[derive(Debug, Clone, Copy)]
pub struct Given(pub FsSpace);

impl FsStats for Given {
    fn space(&self, _path: &Path) -> Option<FsSpace> {
        Some(self.0)
    }
}

/// A partition's write rate: kept bytes over their record-time window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteRate {
    /// Bytes of the kept segments.
    pub bytes: u64,
    /// Their record-time window, ms (≥ [`MIN_RATE_WINDOW_MS`]).
    pub window_ms: i64,
}

impl WriteRate {
    /// Bytes per hour.
    pub fn per_hour(self) -> u64 {
        let v = i128::from(self.bytes) * 3_600_000 / i128::from(self.window_ms.max(1));
        u64::try_from(v).unwrap_or(u64::MAX)
    }

    /// Bytes per second.
    pub fn per_sec(self) -> u64 {
        self.per_hour() / 3600
    }
}

/// The write rate of `p` at `now` (see the module docs), `None` without a window of at least
/// [`MIN_RATE_WINDOW_MS`].
pub fn write_rate(p: &PartitionPlan, now: i64) -> Option<WriteRate> {
    let kept: Vec<_> = p
        .segments
        .iter()
        .filter(|s| !matches!(s.verdict, Verdict::Delete { .. }) && s.size.get() > 0)
        .collect();
    let sane = |t: i64| t >= SANE_MIN_MS;
    let first = kept
        .iter()
        .filter_map(|s| s.first_timestamp.map(|t| t.get()))
        .filter(|t| sane(*t))
        .min()?;
    let last = kept
        .iter()
        .map(|s| s.largest_timestamp.0.get())
        .filter(|t| sane(*t))
        .max()?
        .min(now);
    let window_ms = last.checked_sub(first)?;
    if window_ms < MIN_RATE_WINDOW_MS {
        return None;
    }
    Some(WriteRate {
        bytes: kept.iter().map(|s| s.size.get()).sum(),
        window_ms,
    })
}

/// Whether `p` still grows at `rate`: retention does not hold it at a bound yet (the limits the
/// rules apply: `retention.ms`/`retention.bytes`, or the local ones where they apply).
pub fn grows(p: &PartitionPlan, rate: WriteRate) -> bool {
    if !p.config.cleanup_policy.delete {
        return true;
    }
    let at_time_bound = p.time_retention_ms().is_some_and(|ms| rate.window_ms >= ms);
    let at_size_bound = p
        .size_retention_bytes()
        .is_some_and(|b| i128::from(rate.bytes) >= i128::from(b));
    !(at_time_bound || at_size_bound)
}

/// One log dir's projection (`log_dirs[].disk` in JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiskProjection {
    /// The log dir.
    #[serde(skip)]
    pub path: PathBuf,
    /// `.log` bytes of its planned partitions.
    pub bytes: u64,
    /// The filesystem's free bytes (`None`: statvfs failed).
    pub fs_free_bytes: Option<u64>,
    /// The filesystem's size.
    pub fs_total_bytes: Option<u64>,
    /// Bytes written per hour, summed over the partitions with a rate.
    pub write_bytes_per_hour: u64,
    /// Bytes per hour of the partitions that still grow.
    pub growth_bytes_per_hour: u64,
    /// Partitions with a rate (a record-time window of at least 10 min).
    pub partitions_with_rate: usize,
    /// Of these, the ones still growing.
    pub partitions_growing: usize,
    /// Milliseconds until the filesystem is full at the growth rate (`None`: no growth or no
    /// filesystem figures).
    pub ms_until_full: Option<i64>,
    /// The instant it is full.
    pub full_at_ms: Option<i64>,
    /// Bytes the next retention pass frees.
    pub freed_by_next_pass: u64,
    /// Why no growth rate could be measured (`None`: measured, or nothing to measure): a
    /// rate that cannot be measured is unknown, never "no growth".
    pub growth_unknown: Option<String>,
    /// Planned partitions with bytes but no rate (under 10 min of record time kept).
    pub partitions_without_rate: usize,
    /// The free space the next start needs at least (`startup.boot.needs_bytes`).
    pub start_needs_bytes: Option<u64>,
}

impl DiskProjection {
    /// Whether the next start cannot succeed for lack of space (free below what it writes).
    pub fn start_lacks_space(&self) -> bool {
        matches!((self.fs_free_bytes, self.start_needs_bytes), (Some(f), Some(n)) if f < n)
    }

    /// Free bytes as a share of the filesystem, in hundredths of a percent.
    pub fn free_basis_points(&self) -> Option<u64> {
        let (f, t) = (self.fs_free_bytes?, self.fs_total_bytes?);
        (t > 0).then(|| u64::try_from(u128::from(f) * 10_000 / u128::from(t)).unwrap_or(0))
    }
}

/// Under this share free (2 %), the filesystem is full: an error.
pub const FULL_BASIS_POINTS: u64 = 200;
/// Under this share free (5 %), it is nearly full: a warning.
pub const NEARLY_FULL_BASIS_POINTS: u64 = 500;

/// The projection of each of `log_dirs` from `plan`, with the filesystem figures of `stats`.
pub fn projections_with(
    plan: &Plan,
    log_dirs: &[PathBuf],
    stats: &dyn FsStats,
) -> Vec<DiskProjection> {
    let now = plan.now.get();
    log_dirs
        .iter()
        .map(|dir| {
            let parts: Vec<&PartitionPlan> = plan
                .partitions
                .iter()
                .filter(|p| &p.log_dir == dir)
                .collect();
            let mut d = DiskProjection {
                path: dir.clone(),
                bytes: parts
                    .iter()
                    .flat_map(|p| &p.segments)
                    .map(|s| s.size.get())
                    .sum(),
                fs_free_bytes: None,
                fs_total_bytes: None,
                write_bytes_per_hour: 0,
                growth_bytes_per_hour: 0,
                partitions_with_rate: 0,
                partitions_growing: 0,
                ms_until_full: None,
                full_at_ms: None,
                freed_by_next_pass: parts.iter().map(|p| p.freed().bytes.get()).sum(),
                growth_unknown: None,
                partitions_without_rate: 0,
                start_needs_bytes: None,
            };
            for p in &parts {
                let has_bytes = p.segments.iter().any(|s| s.size.get() > 0);
                let rate = write_rate(p, now);
                d.partitions_without_rate += usize::from(has_bytes && rate.is_none());
                if let Some(rate) = rate {
                    d.partitions_with_rate += 1;
                    d.write_bytes_per_hour = d.write_bytes_per_hour.saturating_add(rate.per_hour());
                    if grows(p, rate) {
                        d.partitions_growing += 1;
                        d.growth_bytes_per_hour =
                            d.growth_bytes_per_hour.saturating_add(rate.per_hour());
                    }
                }
            }
            if d.partitions_with_rate == 0 && d.partitions_without_rate > 0 {
                d.growth_unknown = Some(format!(
                    "{} partition(s) keep under the 10 min of record time a rate needs",
                    d.partitions_without_rate
                ));
            }
            if let Some(space) = stats.space(dir) {
                d.fs_free_bytes = Some(space.free_bytes);
                d.fs_total_bytes = Some(space.total_bytes);
                if d.growth_bytes_per_hour > 0 {
                    let ms = i128::from(space.free_bytes) * 3_600_000
                        / i128::from(d.growth_bytes_per_hour);
                    let ms = i64::try_from(ms).unwrap_or(i64::MAX);
                    d.ms_until_full = Some(ms);
                    d.full_at_ms = Some(now.saturating_add(ms));
                }
            }
            d
        })
        .collect()
}

/// The projections of `dirs` with the `--disk-space` figures when given, else statvfs of each
/// dir (now, or when the facts snapshot `records` come from was taken), and what their next start needs (`startup`), with their findings added to `findings`.
pub fn disk_projections(
    plan: &Plan,
    dirs: &[LogDir],
    given: Option<FsSpace>,
    records: Records<'_>,
    startup: &[StartupCost],
    findings: &mut Vec<Finding>,
) -> Vec<DiskProjection> {
    let paths: Vec<PathBuf> = dirs.iter().map(|d| d.path.clone()).collect();
    let mut projections = match given {
        Some(space) => projections_with(plan, &paths, &Given(space)),
        None => projections_with(plan, &paths, &records),
    };
    for d in &mut projections {
        d.start_needs_bytes = (startup.iter())
            .find(|c| c.path == d.path)
            .map(|c| c.boot.needs_bytes);
    }
    findings.extend(projections.iter().filter_map(full_finding));
    findings.extend(disk_findings(&projections, plan.now.get()));
    projections
}

/// `dir.disk_full`: the filesystem is full or nearly full, or below what the next start needs,
/// whatever the growth rate.
pub fn full_finding(d: &DiskProjection) -> Option<Finding> {
    let (free, total) = (d.fs_free_bytes?, d.fs_total_bytes?);
    let bp = d.free_basis_points()?;
    let lacks = d.start_lacks_space();
    let severity = if lacks || bp < FULL_BASIS_POINTS {
        Severity::Error
    } else if bp < NEARLY_FULL_BASIS_POINTS {
        Severity::Warning
    } else {
        return None;
    };
    let pct = format!("{}.{:02} %", bp / 100, bp % 100);
    let start = match d.start_needs_bytes {
        Some(n) if lacks => format!(
            "; the next start cannot succeed: it needs at least {n} B free to start and {free} B \
             are free"
        ),
        Some(n) => format!("; the next start needs at least {n} B free"),
        None => String::new(),
    };
    let growth = match &d.growth_unknown {
        Some(why) => format!("growth unknown ({why})"),
        None => format!("growth {} B/h", d.growth_bytes_per_hour),
    };
    let mut f =
        Finding::new(
            &catalog::DIR_DISK_FULL,
            Location {
                log_dir: d.path.clone(),
                ..Location::default()
            },
            format!(
            "the filesystem is {}: {free} B free of {total} B ({pct}){start}; {growth}; the next \
             retention pass frees {} B",
            if bp < FULL_BASIS_POINTS || lacks { "full" } else { "nearly full" },
            d.freed_by_next_pass
        ),
        )
        .with_severity(severity)
        .evidence("fs_free_bytes", EvidenceValue::Bytes(free))
        .evidence("fs_total_bytes", EvidenceValue::Bytes(total))
        .evidence("free_percent", EvidenceValue::Text(pct));
    if let Some(n) = d.start_needs_bytes {
        f = f.evidence("start_needs_bytes", EvidenceValue::Bytes(n));
    }
    Some(
        f.evidence(
            "freed_by_next_pass",
            EvidenceValue::Bytes(d.freed_by_next_pass),
        )
        .fix(format!(
            "with the broker stopped, `logclean free {} --target {} --purge --journal DIR` \
             (DIR on another filesystem; dry run, then --execute) frees the least harmful first: \
             `.deleted` files and `-delete` dirs, `-stray`/`-future` dirs no one needs, the \
             remote index cache (refetched on demand), then what the next retention pass deletes ({} B); or grow the filesystem",
            crate::model::names::shell_word(std::os::unix::ffi::OsStrExt::as_bytes(
                d.path.as_os_str()
            )),
            d.start_needs_bytes.unwrap_or(0).max(total / 20),
            d.freed_by_next_pass
        )),
    )
}

/// `dir.disk_full_soon` for a projection full within [`WARN_FULL_MS`].
pub fn disk_finding(d: &DiskProjection, now: i64) -> Option<Finding> {
    let ms = d.ms_until_full?;
    if ms >= WARN_FULL_MS {
        return None;
    }
    let severity = if ms < ERROR_FULL_MS {
        Severity::Error
    } else {
        Severity::Warning
    };
    let free = d.fs_free_bytes.unwrap_or(0);
    let full_at = now.saturating_add(ms);
    let in_time = age(full_at, now);
    Some(
        Finding::new(
            &catalog::DIR_DISK_FULL_SOON,
            Location {
                log_dir: d.path.clone(),
                ..Location::default()
            },
            format!(
                "the filesystem is full {in_time} ({}) at {} B/h of growth over {} partition(s): \
                 {free} B free; the next retention pass frees {} B",
                utc(crate::model::units::TimestampMs(full_at)),
                d.growth_bytes_per_hour,
                d.partitions_growing,
                d.freed_by_next_pass
            ),
        )
        .with_severity(severity)
        .evidence("fs_free_bytes", EvidenceValue::Bytes(free))
        .evidence(
            "fs_total_bytes",
            EvidenceValue::Bytes(d.fs_total_bytes.unwrap_or(0)),
        )
        .evidence("log_bytes", EvidenceValue::Bytes(d.bytes))
        .evidence(
            "growth_bytes_per_hour",
            EvidenceValue::Bytes(d.growth_bytes_per_hour),
        )
        .evidence(
            "partitions_growing",
            EvidenceValue::Count(d.partitions_growing as u64),
        )
        .evidence("ms_until_full", EvidenceValue::Int(ms))
        .evidence("full_at", EvidenceValue::TimestampMs(full_at))
        .evidence(
            "freed_by_next_pass",
            EvidenceValue::Bytes(d.freed_by_next_pass),
        )
        .fix(format!(
            "free space before {}: lower `retention.ms` / set `retention.bytes` on the growing \
             topics (`kafka-configs.sh --bootstrap-server HOST:PORT --alter --entity-type topics \
             --entity-name TOPIC --add-config retention.bytes=BYTES`), run the \
             retention pass now (`logclean plan` shows what it frees; `logclean delete` applies \
             it with the broker stopped), or add disk / another entry to `log.dirs`",
            utc(crate::model::units::TimestampMs(full_at))
        )),
    )
}

/// The projections' findings.
pub fn disk_findings(projections: &[DiskProjection], now: i64) -> Vec<Finding> {
    projections
        .iter()
        .filter_map(|d| disk_finding(d, now))
        .collect()
}

/// Test support: a fixture's first log dir loaded as diagnose loads it, its view and plan.
#[cfg(test)]
pub(crate) mod fixture {
    use crate::model::cluster::{ClusterInputs, ClusterView};
    use crate::model::file_bytes::ReadMode;
    use crate::model::log_dir::{load_log_dir, LogDir, Selection};
    use crate::model::segment::{LoadOptions, ScanDepth};
    use crate::model::units::TimestampMs;
    use crate::plan::{build_plan, Plan, PlanOptions};
    use crate::rules::KafkaVersion;

    /// `fixtures/<scenario>/logs-0` (with its `server.properties`) at `now`.
    pub(crate) fn load(scenario: &str, now: i64) -> (ClusterView, Vec<LogDir>, Plan) {
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(scenario);
        let dir = root.join("logs-0");
        let view = ClusterView::build(&ClusterInputs {
            log_dirs: vec![dir.clone()],
            server_properties: Some(crate::model::cluster::FileInput::Path(
                root.join("server.properties"),
            )),
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
        let plan = build_plan(&view, std::slice::from_ref(&d), &opts);
        (view, vec![d], plan)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::file_bytes::ReadMode;

    fn projection(free: u64, growth: u64) -> DiskProjection {
        let ms = i64::try_from(u128::from(free) * 3_600_000 / u128::from(growth)).unwrap();
        DiskProjection {
            path: PathBuf::from("/kafka"),
            bytes: 5_000,
            fs_free_bytes: Some(free),
            fs_total_bytes: Some(free * 10),
            write_bytes_per_hour: growth,
            growth_bytes_per_hour: growth,
            partitions_with_rate: 1,
            partitions_growing: 1,
            ms_until_full: Some(ms),
            full_at_ms: Some(ms),
            freed_by_next_pass: 7,
            growth_unknown: None,
            partitions_without_rate: 0,
            start_needs_bytes: None,
        }
    }

    #[test]
    fn thresholds_24_and_6_hours() {
        assert!(
            disk_finding(&projection(25_000, 1_000), 0).is_none(),
            "25 h"
        );
        let f = disk_finding(&projection(23_000, 1_000), 0).unwrap();
        assert_eq!(
            (f.code, f.severity),
            ("dir.disk_full_soon", Severity::Warning)
        );
        let f = disk_finding(&projection(5_000, 1_000), 0).unwrap();
        assert_eq!(f.severity, Severity::Error);
        assert!(f
            .evidence
            .iter()
            .any(|e| e.name == "ms_until_full" && e.value == EvidenceValue::Int(5 * 3_600_000)));
        let mut none = projection(5_000, 1_000);
        none.ms_until_full = None;
        assert!(disk_finding(&none, 0).is_none(), "no growth, no finding");
    }

    #[test]
    fn rate_per_hour() {
        let r = WriteRate {
            bytes: 1_000,
            window_ms: 1_800_000,
        };
        assert_eq!((r.per_hour(), r.per_sec()), (2_000, 0));
    }

    #[test]
    fn given_figures_are_used_for_every_dir() {
        let g = Given(FsSpace {
            free_bytes: 1,
            total_bytes: 2,
        });
        assert_eq!(g.space(Path::new("/nowhere")).unwrap().total_bytes, 2);
    }

    /// 2026-11-30T13:32:47Z, idle-active-segment's capture.
    const CAPTURED: i64 = 1_796_045_567_000;

    #[test]
    fn trickle_rate_and_steady_state() {
        let (_, dirs, plan) = fixture::load("idle-active-segment", CAPTURED);
        let trickle = plan
            .partitions
            .iter()
            .find(|p| p.topic == "trickle")
            .unwrap();
        // 60 records from base-5h to base-5min, kept whole: a 5 h window.
        let r = write_rate(trickle, CAPTURED).unwrap();
        assert!(
            r.window_ms >= 4 * 3_600_000 && r.window_ms <= 5 * 3_600_000,
            "{r:?}"
        );
        assert_eq!(
            r.bytes,
            trickle.segments.iter().map(|s| s.size.get()).sum::<u64>()
        );
        // retention.ms is 2 h: its window spans more, so retention holds it (no growth).
        assert!(!grows(trickle, r));
        let mut unbounded = trickle.clone();
        unbounded.config.retention_ms = crate::config::log_config::Limit::Unlimited;
        assert!(grows(&unbounded, r));
        // Tiered: the local limit (1 h) holds the local bytes although retention.ms is -1.
        let mut tiered = unbounded.clone();
        tiered.tiered.system_enabled = true;
        tiered.config.remote_storage_enable = true;
        tiered.config.local_retention_ms = crate::config::log_config::LocalLimit::Max(3_600_000);
        assert!(!grows(&tiered, r));
        let mut findings = Vec::new();
        let d = disk_projections(
            &plan,
            &dirs,
            Some(FsSpace {
                free_bytes: 100,
                total_bytes: 1000,
            }),
            Records::Files(ReadMode::Mmap),
            &[],
            &mut findings,
        );
        assert!(findings.is_empty());
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].fs_free_bytes, Some(100));
        assert_eq!(d[0].partitions_growing, 0);
        assert_eq!(d[0].ms_until_full, None, "nothing grows: never full");
        assert!(disk_findings(&d, CAPTURED).is_empty());
    }

    #[test]
    fn a_full_disk_is_an_error_whatever_the_growth() {
        let mut d = projection(5_000, 1);
        d.ms_until_full = None;
        d.growth_unknown = Some("no window".to_string());
        d.fs_total_bytes = Some(1_000_000);
        d.fs_free_bytes = Some(0);
        let f = full_finding(&d).unwrap();
        assert_eq!((f.code, f.severity), ("dir.disk_full", Severity::Error));
        assert!(
            f.message.contains("growth unknown (no window)"),
            "{}",
            f.message
        );
        d.fs_free_bytes = Some(40_000);
        assert_eq!(full_finding(&d).unwrap().severity, Severity::Warning, "4 %");
        d.start_needs_bytes = Some(50_000);
        let f = full_finding(&d).unwrap();
        assert_eq!(f.severity, Severity::Error, "below what the start needs");
        assert!(f.message.contains("cannot succeed"), "{}", f.message);
        d.fs_free_bytes = Some(100_000);
        assert!(full_finding(&d).is_none(), "10 % free, start fits");
    }

    #[test]
    fn a_burst_gives_no_rate() {
        let (_, _, plan) = fixture::load("idle-active-segment", CAPTURED);
        let mut p = plan
            .partitions
            .iter()
            .find(|p| p.topic == "trickle")
            .unwrap()
            .clone();
        for s in &mut p.segments {
            s.largest_timestamp.0 = s.first_timestamp.unwrap();
        }
        assert_eq!(write_rate(&p, CAPTURED), None);
        let mut plan = plan.clone();
        plan.partitions = vec![p];
        let d = projections_with(
            &plan,
            &[plan.partitions[0].log_dir.clone()],
            &Given(FsSpace {
                free_bytes: 0,
                total_bytes: 1000,
            }),
        );
        assert_eq!(d[0].ms_until_full, None);
        assert!(
            d[0].growth_unknown.as_ref().unwrap().contains("10 min"),
            "{d:?}"
        );
    }

    #[test]
    fn statvfs_reads_the_dir() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let s = Statvfs.space(here).unwrap();
        assert!(s.total_bytes > 0 && s.free_bytes <= s.total_bytes);
        assert_eq!(Statvfs.space(Path::new("/no/such/dir")), None);
    }
}
