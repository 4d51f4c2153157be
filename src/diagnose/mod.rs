//! `diagnose`: everything logclean knows about log cleanup in some log dirs, from one load. It
//! only composes: it reads, runs the checks, and sums up; the findings are the checks', the
//! renderings (`report::diagnose_table`, `report::diagnose_metrics`) the report's.
//!
//! [`diagnose`]: the log dirs (named, else `log.dirs` of `server.properties`; canonicalized once) →
//! [`load_targets`] once (data partitions at `Tail`, the coordinators' topics at `Headers`;
//! `--deep`: everything at `Verify`) → [`ClusterView::build_over`] them once (configs, metadata
//! image; the partition dirs from the load, not listed again) → one [`build_plan`] at `now` →
//! [`run_checks`] over all three → filtered, deduplicated (code and canonical place:
//! [`dedup_findings`]), sorted → [`Diagnosis`] with its [`Summary`].

pub mod headline;
pub mod summary;

use std::path::PathBuf;

use crate::checks::disk::FsSpace;
use crate::checks::finding::{Finding, Severity};
use crate::checks::inspect::sort_findings;
use crate::checks::location::dedup_findings;
use crate::checks::run::{run_checks, CheckContext};
use crate::checks::unreadable::dedup_unreadable;
use crate::model::cluster::{Assumptions, ClusterError, ClusterInputs, ClusterView, FileInput};
use crate::model::file_bytes::ReadMode;
use crate::model::release::drop_aside;
use crate::model::segment::{LoadOptions, ScanDepth};
use crate::model::snapshot::Snapshots;
use crate::model::targets::{load_targets, LoadProgress, LoadedTargets, ScanTotals};
use crate::model::units::TimestampMs;
use crate::plan::replication::ReplicationFacts;
use crate::plan::{build_plan, PartitionPlan, PlanOptions};
use crate::rules::KafkaVersion;

pub use headline::Headline;
pub use summary::Summary;

/// What to read and when to evaluate it.
#[derive(Debug, Clone, Default)]
pub struct DiagnoseInputs {
    /// Log dirs; empty: `log.dirs` of `server_properties`.
    pub log_dirs: Vec<PathBuf>,
    /// The broker's static `server.properties`.
    pub server_properties: Option<PathBuf>,
    /// A saved `kafka-configs.sh --describe --all` output.
    pub config_file: Option<PathBuf>,
    /// The instant every time-based rule is evaluated at, ms since the epoch.
    pub now_ms: i64,
    /// Verify every batch and index entry (`--deep`); else headers, index tails, checkpoints.
    pub deep: bool,
    /// How large files are read.
    pub read_mode: ReadMode,
    /// `--cleaner-rate`: bytes per second one cleaner thread moves (read + written).
    pub cleaner_rate_bytes_per_sec: Option<f64>,
    /// The filesystem figures for the disk projection (`--disk-space`); `None`: statvfs.
    pub disk_space: Option<FsSpace>,
    /// `--kafka-version`; `None`: the release the files tell.
    pub kafka_version: Option<KafkaVersion>,
}

/// Which findings to keep.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Codes (`plan.retains_expired`) or domains (`plan`); empty: all.
    pub kinds: Vec<String>,
    /// Topics; empty: all (with a topic, findings about no topic are left out).
    pub topics: Vec<String>,
    /// The lowest severity kept.
    pub min_severity: Option<Severity>,
}

impl Filter {
    /// Whether `code` is kept by `--kind`.
    pub fn keeps_code(&self, code: &str) -> bool {
        self.kinds.is_empty()
            || self
                .kinds
                .iter()
                .any(|k| k == code || code.split_once('.').is_some_and(|(domain, _)| domain == k))
    }

    /// Whether `topic` is kept by `--topic`.
    pub fn keeps_topic(&self, topic: Option<&str>) -> bool {
        self.topics.is_empty() || topic.is_some_and(|t| self.topics.iter().any(|x| x == t))
    }

    /// Whether `f` is kept.
    pub fn keeps(&self, f: &Finding) -> bool {
        self.keeps_code(f.code)
            && self.keeps_topic(f.location.topic.as_deref())
            && self.min_severity.is_none_or(|s| f.severity >= s)
    }

    /// What this filter hid of `findings`: each hidden finding counted once, under the first
    /// of `--kind`, `--topic`, `--min-severity` that drops it. `None` without any filter.
    pub fn hidden(&self, findings: &[Finding]) -> Option<summary::Hidden> {
        if self.kinds.is_empty() && self.topics.is_empty() && self.min_severity.is_none() {
            return None;
        }
        let mut h = summary::Hidden {
            kinds: self.kinds.clone(),
            topics: self.topics.clone(),
            min_severity: self.min_severity.map(Severity::name),
            total: findings.len(),
            by_kind: 0,
            by_topic: 0,
            by_min_severity: 0,
        };
        for f in findings {
            if !self.keeps_code(f.code) {
                h.by_kind += 1;
            } else if !self.keeps_topic(f.location.topic.as_deref()) {
                h.by_topic += 1;
            } else if self.min_severity.is_some_and(|s| f.severity < s) {
                h.by_min_severity += 1;
            }
        }
        Some(h)
    }
}

/// The result of one diagnosis.
#[derive(Debug)]
pub struct Diagnosis {
    /// The instant evaluated at.
    pub now_ms: i64,
    /// The findings kept by the filter, deduplicated and sorted by place.
    pub findings: Vec<Finding>,
    /// Counts, top partitions and per-log-dir totals.
    pub summary: Summary,
    /// Per log dir the answer first: space, time to full, what frees it; and what it assumes.
    pub headline: Headline,
    /// What was read.
    pub scanned: ScanTotals,
    /// Bytes per log dir and topic (of the topics `--topic` keeps), for the metrics.
    pub topics: Vec<summary::TopicBytes>,
    /// Remote-enabled partitions: local vs remote bytes, for the metrics.
    pub tiered: Vec<summary::TieredBytes>,
    /// The config values the verdicts on the topics `--topic` keeps rest on without having
    /// been read.
    pub assumptions: Assumptions,
    /// The plan's partitions the findings and figures were made from (all of them; the HTML
    /// report draws its timelines from them).
    pub partitions: Vec<PartitionPlan>,
    /// The replicated partitions' facts (of the topics `--topic` keeps), for `logclean join`.
    pub replication: ReplicationFacts,
}

/// `dirs` canonical, each once (first place kept), so that every reader names a log dir the
/// same way however it was given (`logs-0`, `./logs-0`, `/srv/kafka/logs-0`, a symlink). What
/// cannot be canonicalized stays as given: loading it reports why.
pub fn canonical_log_dirs(dirs: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::with_capacity(dirs.len());
    for d in dirs {
        let d = std::fs::canonicalize(&d).unwrap_or(d);
        if !out.contains(&d) {
            out.push(d);
        }
    }
    out
}

/// Diagnose the log dirs of `inputs` (or the facts `snapshots` took of them: the dirs as
/// loaded, and what is read after the load), keeping what `filter` keeps.
pub fn diagnose(
    inputs: &DiagnoseInputs,
    snapshots: Option<Snapshots>,
    filter: &Filter,
    progress: &dyn LoadProgress,
) -> anyhow::Result<Diagnosis> {
    let cluster = ClusterInputs {
        log_dirs: inputs.log_dirs.clone(),
        server_properties: inputs.server_properties.clone().map(FileInput::Path),
        describe_file: inputs.config_file.clone().map(FileInput::Path),
        read_mode: inputs.read_mode,
        kafka_version: inputs.kafka_version,
        ..ClusterInputs::default()
    };
    let (cluster, log_dirs, loaded) = match snapshots {
        // The dirs as a snapshot loaded them, and what it read after the load.
        Some(s) => (
            ClusterInputs {
                facts: Some(s.dir_facts),
                replays: Some(s.replays),
                ..cluster
            },
            // Canonical as when taken (a snapshot run reads nothing of the dirs, not even
            // their canonical names): named as a run on the dirs names them.
            s.canonical_log_dirs,
            LoadedTargets {
                dirs: s.dirs,
                not_log_dirs: Vec::new(),
            },
        ),
        None => {
            let log_dirs = canonical_log_dirs(
                ClusterView::resolve_log_dirs(&cluster).map_err(|e| anyhow::anyhow!(e))?,
            );
            let opts = if inputs.deep {
                LoadOptions::uniform(ScanDepth::Verify, inputs.read_mode)
            } else {
                LoadOptions::tail_with_internal_topics_at(ScanDepth::Headers, inputs.read_mode)
            };
            // The space attribution's blocks come from the listing's stats (one walk).
            let opts = LoadOptions {
                disk_usage: true,
                ..opts
            };
            let loaded = load_targets(&log_dirs, &opts, progress)?;
            (cluster, log_dirs, loaded)
        }
    };
    // The view takes the partition dirs from the load: listed and read once, not twice.
    let view = ClusterView::build_over(
        &ClusterInputs {
            log_dirs,
            ..cluster
        },
        &loaded.dirs,
    )
    .map_err(|e: ClusterError| anyhow::anyhow!(e))?;
    let mut dirs = loaded.dirs;
    // Held apart from the model, and dropped once the attribution is made of them.
    let listed_usage: Vec<_> = (dirs.iter_mut()).map(|d| d.listing.usage.take()).collect();
    let version = view.kafka_version.version;
    let plan = build_plan(
        &view,
        &dirs,
        &PlanOptions {
            now: TimestampMs(inputs.now_ms),
            topics: Vec::new(),
            version,
        },
    );
    let checked = run_checks(&CheckContext {
        dirs: &dirs,
        not_log_dirs: &loaded.not_log_dirs,
        view: &view,
        plan: &plan,
        version,
        read_mode: inputs.read_mode,
        deep: inputs.deep,
        cleaner_rate_bytes_per_sec: inputs.cleaner_rate_bytes_per_sec,
        disk_space: inputs.disk_space,
        listed_usage: &listed_usage,
    });
    drop_aside(listed_usage);
    let mut findings = checked.findings;
    // A dir both listed by the load and read by the cluster view is one unreadable input.
    dedup_unreadable(&mut findings);
    sort_findings(&mut findings);
    dedup_findings(&mut findings);
    let hidden = filter.hidden(&findings);
    findings.retain(|f| filter.keeps(f));
    let paths: Vec<_> = dirs.iter().map(|d| d.path.clone()).collect();
    // The summaries read the plan and the attribution alone: made side by side.
    let ((summary, topics), (spaces, (assumptions, tiered, scanned))) = rayon::join(
        || {
            let summary = Summary::new(&findings, &plan, &paths, filter)
                .with_figures(&checked.startup, &checked.disk);
            (summary, summary::topic_bytes(&plan, filter))
        },
        || {
            let spaces = summary::SpaceSummary::of_each(&checked.space);
            let assumptions = view.assumptions(&filter.topics);
            let tiered = summary::tiered_bytes(&plan, filter);
            (spaces, (assumptions, tiered, ScanTotals::of(&dirs)))
        },
    );
    let mut summary = summary.with_space(spaces);
    summary.hidden = hidden;
    let locks: Vec<_> = dirs.iter().map(|d| (d.path.clone(), d.lock)).collect();
    let headline = Headline::new(&summary.log_dirs, &locks, &findings, &plan, &assumptions);
    let mut replication = checked.replication;
    (replication.partitions).retain(|p| filter.keeps_topic(Some(&p.topic)));
    // The loaded model and the space attribution (an entry per file) are done with: freed
    // beside the rendering, not before it.
    drop_aside((dirs, view, checked.space));
    Ok(Diagnosis {
        replication,
        assumptions,
        headline,
        now_ms: inputs.now_ms,
        findings,
        summary,
        scanned,
        topics,
        partitions: plan.partitions,
        tiered,
    })
}
