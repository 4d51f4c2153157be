//! `diagnose --format prometheus`: the diagnosis as a node_exporter textfile ([`crate::report::
//! prometheus`]): findings per code, severity and topic, bytes per log dir and per topic, what
//! the next retention pass frees, scan totals, the instant evaluated at and the exit code.
//!
//! Memory is bounded by topics × log dirs, never segments: the diagnosis folds the plan's
//! partitions into one row per topic and log dir ([`crate::diagnose::summary::topic_bytes`]). The
//! metric names are [`METRIC_NAMES`] (docs/metrics.md lists each; a test checks it).

use std::io::{self, Write};

use crate::checks::finding::{FindingClass, Severity};
use crate::diagnose::summary::{LogDirTotals, TieredBytes, TopicBytes};
use crate::diagnose::Diagnosis;
use crate::model::names::path_text;
use crate::model::targets::ScanTotals;

use super::prometheus::{write_exposition, Gauge, Labels, MetricValue};

/// Every metric family `diagnose --format prometheus` writes, in the order written.
pub const METRIC_NAMES: &[&str] = &[
    "logclean_diagnose_timestamp_seconds",
    "logclean_diagnose_exit_code",
    "logclean_findings",
    "logclean_findings_by_severity",
    "logclean_findings_by_class",
    "logclean_scan_log_dirs",
    "logclean_scan_partitions",
    "logclean_scan_segments",
    "logclean_scan_log_bytes",
    "logclean_log_dir_bytes",
    "logclean_log_dir_partitions",
    "logclean_next_retention_freed_bytes",
    "logclean_next_retention_freed_segments",
    "logclean_fs_free_bytes",
    "logclean_fs_total_bytes",
    "logclean_log_dir_growth_bytes_per_hour",
    "logclean_log_dir_full_in_seconds",
    "logclean_startup_recovery_segments",
    "logclean_startup_recovery_bytes",
    "logclean_startup_recovery_estimate_seconds",
    "logclean_topic_bytes",
    "logclean_topic_retained_bytes",
    "logclean_topic_partitions",
    "logclean_space_bytes",
    "logclean_topic_space_bytes",
    "logclean_tiered_local_bytes",
    "logclean_tiered_remote_bytes",
    "logclean_tiered_waiting_for_upload_bytes",
    "logclean_tiered_retention_size_in_percent",
    "logclean_tiered_local_retention_size_in_percent",
];

fn count(n: impl TryInto<u64>) -> MetricValue {
    MetricValue::Count(n.try_into().unwrap_or(u64::MAX))
}

fn dir_label(log_dir: &std::path::Path) -> Labels {
    vec![("log_dir", path_text(log_dir))]
}

fn topic_labels(t: &TopicBytes) -> Labels {
    vec![
        ("log_dir", path_text(&t.log_dir)),
        ("topic", t.topic.clone()),
    ]
}

/// A family with one sample per row of `rows`.
fn gauge_of<T>(
    name: &'static str,
    help: &'static str,
    rows: &[T],
    labels: impl Fn(&T) -> Labels,
    value: impl Fn(&T) -> MetricValue,
) -> Gauge {
    some_of(name, help, rows, labels, |r| Some(value(r)))
}

/// A family with one sample per row of `rows` that has a value.
fn some_of<T>(
    name: &'static str,
    help: &'static str,
    rows: &[T],
    labels: impl Fn(&T) -> Labels,
    value: impl Fn(&T) -> Option<MetricValue>,
) -> Gauge {
    let mut g = Gauge::new(name, help);
    for r in rows {
        if let Some(v) = value(r) {
            g.set(labels(r), v);
        }
    }
    g
}

/// The metric families of diagnosis `d`, whose run exits with `exit_code`.
pub fn diagnose_metrics(d: &Diagnosis, exit_code: u8) -> Vec<Gauge> {
    let mut out = run_gauges(d, exit_code);
    out.extend(finding_gauges(d));
    out.extend(scan_gauges(&d.scanned));
    out.extend(log_dir_gauges(&d.summary.log_dirs));
    out.extend(log_dir_projection_gauges(&d.summary.log_dirs));
    out.extend(topic_gauges(&d.topics));
    out.extend(space_gauges(&d.summary.log_dirs));
    out.extend(tiered_gauges(&d.tiered));
    out
}

/// Allocated bytes per log dir and reason, and per topic and reason.
fn space_gauges(dirs: &[LogDirTotals]) -> Vec<Gauge> {
    let mut per_dir = Gauge::new(
        "logclean_space_bytes",
        "Allocated bytes (st_blocks x 512) of the log dir per reason they are there; the reasons sum to the filesystem's usage of the dir.",
    );
    let mut per_topic = Gauge::new(
        "logclean_topic_space_bytes",
        "Allocated bytes of a topic's partition dirs in the log dir, per reason.",
    );
    for d in dirs {
        let Some(s) = &d.space else { continue };
        for r in &s.by_reason {
            per_dir.set(
                vec![
                    ("log_dir", path_text(&d.path)),
                    ("reason", r.reason.to_string()),
                ],
                count(r.bytes),
            );
        }
        for t in &s.topics {
            for (reason, bytes) in &t.by_reason {
                per_topic.set(
                    vec![
                        ("log_dir", path_text(&d.path)),
                        ("topic", t.name.clone()),
                        ("reason", reason.to_string()),
                    ],
                    count(*bytes),
                );
            }
        }
    }
    vec![per_dir, per_topic]
}

fn tiered_labels(t: &TieredBytes) -> Labels {
    vec![
        ("log_dir", path_text(&t.log_dir)),
        ("topic", t.topic.clone()),
        ("partition", t.partition.to_string()),
    ]
}

/// Local vs remote bytes per remote-enabled partition and Kafka's KIP-1257 percentages.
fn tiered_gauges(rows: &[TieredBytes]) -> Vec<Gauge> {
    vec![
        gauge_of(
            "logclean_tiered_local_bytes",
            "Bytes of local .log files per remote-enabled partition.",
            rows,
            tiered_labels,
            |t| count(t.local_bytes),
        ),
        some_of(
            "logclean_tiered_remote_bytes",
            "Bytes in remote storage (COPY_SEGMENT_FINISHED) per remote-enabled partition, when its __remote_log_metadata partition was read.",
            rows,
            tiered_labels,
            |t| t.remote_bytes.map(count),
        ),
        some_of(
            "logclean_tiered_waiting_for_upload_bytes",
            "Bytes of closed local segments not yet in remote storage, when known.",
            rows,
            tiered_labels,
            |t| t.waiting_bytes.map(count),
        ),
        some_of(
            "logclean_tiered_retention_size_in_percent",
            "Kafka's RetentionSizeInPercent (KIP-1257): (only-local + remote bytes) * 100 / retention.bytes, as the broker computes it.",
            rows,
            tiered_labels,
            |t| t.retention_size_in_percent.map(count),
        ),
        some_of(
            "logclean_tiered_local_retention_size_in_percent",
            "Kafka's LocalRetentionSizeInPercent (KIP-1257): local bytes * 100 / effective local.retention.bytes, as the broker computes it.",
            rows,
            tiered_labels,
            |t| t.local_retention_size_in_percent.map(count),
        ),
    ]
}

/// The instant and the exit code.
fn run_gauges(d: &Diagnosis, exit_code: u8) -> Vec<Gauge> {
    let mut at = Gauge::new(
        "logclean_diagnose_timestamp_seconds",
        "The instant the diagnosis was evaluated at (the run's wall clock, or --now), seconds since the epoch.",
    );
    at.set(Vec::new(), MetricValue::Millis(d.now_ms));
    let mut exit = Gauge::new(
        "logclean_diagnose_exit_code",
        "Exit code of the run that wrote these metrics: 0 fine, 1 findings at or above --fail-on, 2 corrupt data found.",
    );
    exit.set(Vec::new(), count(exit_code));
    vec![at, exit]
}

/// Findings per code, severity and topic; per severity; per class.
fn finding_gauges(d: &Diagnosis) -> Vec<Gauge> {
    let mut findings = Gauge::new(
        "logclean_findings",
        "Findings kept by the filters, per code, severity and topic (topic empty: about a log dir or a config).",
    );
    let mut by_severity = Gauge::new(
        "logclean_findings_by_severity",
        "Findings kept by the filters, per severity.",
    );
    let mut by_class = Gauge::new(
        "logclean_findings_by_class",
        "Findings kept by the filters, per class: condition, corruption (bytes that break their format), io (files or dirs that could not be read).",
    );
    for s in [Severity::Info, Severity::Warning, Severity::Error] {
        by_severity.add(vec![("severity", s.name().to_string())], 0);
    }
    for c in [
        FindingClass::Condition,
        FindingClass::Corruption,
        FindingClass::Io,
    ] {
        by_class.add(vec![("class", c.name().to_string())], 0);
    }
    for f in &d.findings {
        findings.add(
            vec![
                ("code", f.code.to_string()),
                ("severity", f.severity.name().to_string()),
                ("topic", f.location.topic.clone().unwrap_or_default()),
            ],
            1,
        );
        by_severity.add(vec![("severity", f.severity.name().to_string())], 1);
        by_class.add(vec![("class", f.class.name().to_string())], 1);
    }
    vec![findings, by_severity, by_class]
}

/// What was read.
fn scan_gauges(scanned: &ScanTotals) -> Vec<Gauge> {
    let s = std::slice::from_ref(scanned);
    let none = |_: &ScanTotals| Labels::new();
    vec![
        gauge_of("logclean_scan_log_dirs", "Log dirs read.", s, none, |s| {
            count(s.log_dirs)
        }),
        gauge_of(
            "logclean_scan_partitions",
            "Partition dirs read.",
            s,
            none,
            |s| count(s.partitions),
        ),
        gauge_of("logclean_scan_segments", "Segments read.", s, none, |s| {
            count(s.segments)
        }),
        gauge_of(
            "logclean_scan_log_bytes",
            "Bytes of .log files read.",
            s,
            none,
            |s| count(s.log_bytes),
        ),
    ]
}

/// Per log dir: bytes, partitions, what the next pass frees.
fn log_dir_gauges(dirs: &[LogDirTotals]) -> Vec<Gauge> {
    let dir = |l: &LogDirTotals| dir_label(&l.path);
    vec![
        gauge_of(
            "logclean_log_dir_bytes",
            "Bytes of .log files per log dir (of the topics kept by --topic).",
            dirs,
            dir,
            |l| count(l.bytes),
        ),
        gauge_of(
            "logclean_log_dir_partitions",
            "Partition replicas planned per log dir.",
            dirs,
            dir,
            |l| count(l.partitions),
        ),
        gauge_of(
            "logclean_next_retention_freed_bytes",
            "Bytes the broker's next retention pass deletes, per log dir.",
            dirs,
            dir,
            |l| count(l.freed_bytes),
        ),
        gauge_of(
            "logclean_next_retention_freed_segments",
            "Segments the broker's next retention pass deletes, per log dir.",
            dirs,
            dir,
            |l| count(l.freed_segments),
        ),
    ]
}

/// Per log dir: the filesystem, the growth, the next start's recovery.
fn log_dir_projection_gauges(dirs: &[LogDirTotals]) -> Vec<Gauge> {
    let dir = |l: &LogDirTotals| dir_label(&l.path);
    vec![
        some_of(
            "logclean_fs_free_bytes",
            "Free bytes of the log dir's filesystem (statvfs, or --disk-space).",
            dirs,
            dir,
            |l| l.disk.as_ref()?.fs_free_bytes.map(count),
        ),
        some_of(
            "logclean_fs_total_bytes",
            "Total bytes of the log dir's filesystem (statvfs, or --disk-space).",
            dirs,
            dir,
            |l| l.disk.as_ref()?.fs_total_bytes.map(count),
        ),
        some_of(
            "logclean_log_dir_growth_bytes_per_hour",
            "Growth of the log dir from record timestamps: write rates of the partitions retention does not yet hold.",
            dirs,
            dir,
            |l| Some(count(l.disk.as_ref()?.growth_bytes_per_hour)),
        ),
        some_of(
            "logclean_log_dir_full_in_seconds",
            "Time until the log dir's filesystem is full at its growth rate (absent: it does not grow).",
            dirs,
            dir,
            |l| l.disk.as_ref()?.ms_until_full.map(MetricValue::Millis),
        ),
        some_of(
            "logclean_startup_recovery_segments",
            "Segments the broker's next start recovers (unclean shutdown, missing indexes, .swap), metadata log apart.",
            dirs,
            dir,
            |l| Some(count(l.startup.as_ref()?.segments())),
        ),
        some_of(
            "logclean_startup_recovery_bytes",
            "Bytes the broker's next start recovers, metadata log apart.",
            dirs,
            dir,
            |l| Some(count(l.startup.as_ref()?.recover_bytes)),
        ),
        some_of(
            "logclean_startup_recovery_estimate_seconds",
            "Estimated time of that recovery (45 MB/s per num.recovery.threads.per.data.dir thread).",
            dirs,
            dir,
            |l| Some(MetricValue::Millis(l.startup.as_ref()?.estimated_ms)),
        ),
    ]
}

/// Per topic and log dir: bytes now and after the next pass, partitions.
fn topic_gauges(topics: &[TopicBytes]) -> Vec<Gauge> {
    vec![
        gauge_of(
            "logclean_topic_bytes",
            "Bytes of .log files per topic and log dir.",
            topics,
            topic_labels,
            |t| count(t.bytes),
        ),
        gauge_of(
            "logclean_topic_retained_bytes",
            "Bytes per topic and log dir that stay after the next retention pass.",
            topics,
            topic_labels,
            |t| count(t.retained_bytes),
        ),
        gauge_of(
            "logclean_topic_partitions",
            "Partition replicas planned per topic and log dir.",
            topics,
            topic_labels,
            |t| count(t.partitions),
        ),
    ]
}

/// Write diagnosis `d` (its run exiting with `exit_code`) as a node_exporter textfile.
///
/// A run on facts snapshots names each first, as a comment line (`# input: snapshot FILE taken
/// TIME by VERSION`): the exposition format ignores it, a person reading the file sees what the
/// figures are of.
pub fn render_prometheus(
    d: &Diagnosis,
    exit_code: u8,
    input: Option<&[crate::model::snapshot::SnapshotSource]>,
    out: &mut dyn Write,
) -> io::Result<()> {
    for s in input.unwrap_or_default() {
        let line = format!(
            "# input: snapshot {} taken {} by {}",
            crate::model::names::path_text(&s.file),
            crate::model::text::utc(s.taken_at),
            s.logclean_version
        );
        // One line: a name read from disk cannot start another.
        writeln!(out, "{}", line.replace(['\n', '\r'], " "))?;
    }
    write_exposition(&diagnose_metrics(d, exit_code), out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_are_the_listed_names_in_order_and_the_readme_lists_each() {
        let d = Diagnosis {
            replication: Default::default(),
            now_ms: 0,
            findings: Vec::new(),
            summary: crate::diagnose::Summary::default(),
            headline: crate::diagnose::Headline::default(),
            scanned: ScanTotals {
                log_dirs: 0,
                partitions: 0,
                segments: 0,
                log_bytes: 0,
            },
            topics: Vec::new(),
            tiered: Vec::new(),
            assumptions: Default::default(),
            partitions: Vec::new(),
        };
        let names: Vec<&str> = diagnose_metrics(&d, 0).iter().map(Gauge::name).collect();
        assert_eq!(names, METRIC_NAMES);
        let readme = include_str!("../../docs/metrics.md");
        for n in METRIC_NAMES {
            assert!(
                readme.contains(&format!("`{n}`")),
                "docs/metrics.md does not list `{n}`"
            );
        }
    }
}
