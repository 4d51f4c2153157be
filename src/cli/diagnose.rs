//! `logclean diagnose`: options → [`diagnose`] (one load, one cluster view, one plan, every
//! reader's findings) at the run's instant → [`write`] ([`render_diagnose`]), or the metrics as
//! a node_exporter textfile (`--format prometheus`), or one HTML page with the plan's timelines
//! (`--format html`).

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::checks::compaction::MIB;
use crate::checks::disk::FsSpace;
use crate::checks::finding::Severity;
use crate::diagnose::{diagnose, DiagnoseInputs, Filter};
use crate::exit_codes::Outcome;
use crate::model::release::drop_aside;
use crate::model::snapshot::Parts;
use crate::report::diagnose_metrics::render_prometheus;
use crate::report::diagnose_table::{render_diagnose, DiagnoseBody};
use crate::report::html::render_diagnose as render_html;
use crate::report::plan_doc::PartitionPlanDoc;
use crate::report::wire::assumptions::AssumptionsDoc;
use crate::report::{write_document_freed_aside, Document, OutputFormat};

use super::common::{check_snapshots, finish_render, outcome_of, with_snapshots};
use super::progress::Progress;
use super::run_config::{KafkaVersionArg, NowArg, ReadArg, RunConfig};
use super::{FailOn, FormatArg};
use crate::model::snapshot::LOAD_DESCRIPTION;

/// `--min-severity`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MinSeverity {
    /// Everything.
    Info,
    /// Warnings and errors.
    Warning,
    /// Errors only.
    Error,
}

/// Arguments of `logclean diagnose`.
#[derive(Debug, Args)]
pub struct DiagnoseArgs {
    /// Log dirs of one broker. Default: `log.dirs` of --server-properties.
    #[arg(
        value_name = "LOG_DIR",
        required_unless_present_any = ["server_properties", "snapshots"],
        conflicts_with = "snapshots"
    )]
    pub paths: Vec<PathBuf>,
    /// Facts snapshots instead of log dirs.
    #[command(flatten)]
    pub snapshot: super::run_config::SnapshotArg,
    /// The broker's static `server.properties` (its log.dirs when no LOG_DIR is given).
    #[arg(long, value_name = "FILE")]
    pub server_properties: Option<PathBuf>,
    /// Output of `kafka-configs.sh --describe --all --entity-type topics` (and `brokers`) from
    /// the live cluster: the topics' real configs where the dirs do not hold them (ZooKeeper
    /// mode, a missing metadata log).
    #[arg(long, value_name = "FILE")]
    pub config_file: Option<PathBuf>,
    /// The instant every rule is evaluated at (results on a saved dir are reproducible).
    #[command(flatten)]
    pub now: NowArg,
    /// The Kafka release whose rules apply (default: the one the files tell).
    #[command(flatten)]
    pub kafka_version: KafkaVersionArg,
    /// Verify every batch and index entry; without it only headers, index tails and
    /// checkpoints are read (cost O(segments)).
    #[arg(long)]
    pub deep: bool,
    /// Only findings of this code (`plan.retains_expired`) or domain (`plan`) (repeatable).
    #[arg(long = "kind", value_name = "CODE_OR_DOMAIN")]
    pub kinds: Vec<String>,
    /// Only findings and partitions of this topic (repeatable).
    #[arg(long = "topic", value_name = "TOPIC")]
    pub topics: Vec<String>,
    /// Only findings at or above this severity.
    #[arg(long, value_enum, value_name = "SEVERITY")]
    pub min_severity: Option<MinSeverity>,
    /// How large files are read (`--mmap`).
    #[command(flatten)]
    pub read: ReadArg,
    /// Lowest severity that makes the exit code 1.
    #[arg(long, value_enum, default_value_t = FailOn::Warning)]
    pub fail_on: FailOn,
    /// MiB/s one cleaner thread reads + writes, for the time to clear the compaction backlog
    /// (log.cleaner.io.max.bytes.per.second still caps all threads together). Without it and
    /// without that limit no time is estimated.
    #[arg(long, value_name = "MIB_PER_SEC", value_parser = parse_rate)]
    pub cleaner_rate: Option<f64>,

    /// The filesystem's free and total bytes for the disk projection, for every log dir,
    /// instead of statvfs of each dir (a saved copy's filesystem is not the broker's).
    #[arg(long, value_name = "FREE,TOTAL", value_parser = parse_disk_space)]
    pub disk_space: Option<FsSpace>,
}

/// `--disk-space FREE,TOTAL` (bytes; FREE ≤ TOTAL).
pub fn parse_disk_space(s: &str) -> Result<FsSpace, String> {
    let (free, total) = s
        .split_once(',')
        .ok_or_else(|| "expected FREE,TOTAL in bytes".to_string())?;
    let n = |v: &str| v.trim().parse::<u64>().map_err(|e| format!("`{v}`: {e}"));
    let (free_bytes, total_bytes) = (n(free)?, n(total)?);
    if free_bytes > total_bytes {
        return Err("FREE is larger than TOTAL".to_string());
    }
    Ok(FsSpace {
        free_bytes,
        total_bytes,
    })
}

/// `--cleaner-rate`: a positive, finite number of MiB/s.
fn parse_rate(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(r) if r.is_finite() && r > 0.0 => Ok(r),
        _ => Err(format!("`{s}` is not a positive number of MiB/s")),
    }
}

impl From<MinSeverity> for Severity {
    fn from(m: MinSeverity) -> Severity {
        match m {
            MinSeverity::Info => Severity::Info,
            MinSeverity::Warning => Severity::Warning,
            MinSeverity::Error => Severity::Error,
        }
    }
}

/// Run `diagnose`, writing `format` (`--format prometheus`: [`render_prometheus`]).
pub fn run(
    args: &DiagnoseArgs,
    run: &RunConfig,
    format: FormatArg,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let (snaps, run) = with_snapshots(&args.snapshot, run, Parts::ALL)?;
    let run = &run;
    if let Some(s) = &snaps {
        check_snapshots(s, "diagnose", LOAD_DESCRIPTION, true)?;
        if args.deep {
            anyhow::bail!(
                "--deep reads every record's bytes, which a facts snapshot does not hold: run it \
                 on the log dirs"
            );
        }
    }
    let inputs = DiagnoseInputs {
        log_dirs: args.paths.clone(),
        server_properties: args.server_properties.clone(),
        config_file: args.config_file.clone(),
        now_ms: run.now.get(),
        deep: args.deep,
        read_mode: run.read_mode,
        cleaner_rate_bytes_per_sec: args.cleaner_rate.map(|r| r * MIB),
        disk_space: args.disk_space,
        kafka_version: run.kafka_version,
    };
    let filter = Filter {
        kinds: run.filters.kinds.clone(),
        topics: run.filters.topics.clone(),
        min_severity: run.filters.min_severity,
    };
    let progress = Progress::new(run.output.progress, "reading partitions");
    let d = diagnose(&inputs, snaps, &filter, &progress)?;
    let outcome = outcome_of(&d.findings, run.filters.fail_on);
    if format == FormatArg::Prometheus {
        return finish_render(
            outcome,
            render_prometheus(&d, outcome.code(), run.input.as_deref(), out),
        );
    }
    let partitions: Vec<PartitionPlanDoc> = if run.output.format == OutputFormat::Html {
        (d.partitions.iter())
            .filter(|p| filter.keeps_topic(Some(&p.topic)))
            .map(PartitionPlanDoc::new)
            .collect()
    } else {
        Vec::new()
    };
    let doc = Document {
        command: "diagnose",
        body: DiagnoseBody::new(d.headline, d.summary).with_replication(d.replication),
        findings: d.findings,
        scanned: Some(d.scanned),
        assumptions: Some(AssumptionsDoc::new(&d.assumptions)),
        outcome,
    };
    if run.output.format == OutputFormat::Html {
        let envelope = doc.into_envelope(&run.rendering());
        return finish_render(outcome, render_html(&envelope, &partitions, out));
    }
    // The plans and the document are freed beside the process's end, not before it.
    drop_aside(d.partitions);
    let written = write_document_freed_aside(doc, &run.rendering(), render_diagnose, out);
    finish_render(outcome, written)
}
