//! What every command's CLI shares: rendering settings, the exit outcome of findings, a report
//! finished on a closed pipe, loading the targets given on the command line and the inputs of
//! the coordinator commands.

use std::path::PathBuf;

use crate::checks::finding::{Finding, FindingClass, Severity};
use crate::checks::inspect::sort_findings;
use crate::checks::log_dir::not_a_log_dir_finding;
use crate::checks::unreadable::{dedup_unreadable, unreadable_findings};
use crate::exit_codes::Outcome;
use crate::model::cluster::{ClusterInputs, ClusterView, FileInput};
use crate::model::file_bytes::ReadMode;
use crate::model::log_dir::LogDir;
use crate::model::segment::{LoadOptions, ScanDepth};
use crate::model::targets::{self, LoadProgress};
use crate::report::assumptions::write_assumptions;
use crate::report::human::Zone;
use crate::report::render_json;
use crate::report::sanitize::escape;
use crate::report::table::TableStyle;
use crate::report::wire::assumptions::AssumptionsDoc;
use crate::report::wire::{Envelope, ScanTotals};

use super::progress::Progress;
use super::run_config::RunConfig;
use super::OutputFormat;

/// Settings shared by every command's rendering.
#[derive(Debug, Clone, Copy)]
pub struct Output {
    /// Table or JSON.
    pub format: OutputFormat,
    /// Colour the table.
    pub color: bool,
    /// Show a progress bar (stderr is a terminal and not disabled).
    pub progress: bool,
    /// Terminal columns the table fits in ([`crate::report::terminal::detect_width`]).
    pub width: usize,
    /// Zone of the times in the table (`--local-time`).
    pub zone: Zone,
}

impl Output {
    /// The table settings for a run evaluated at `evaluated_at_ms` (ages count from it).
    pub fn table_style(&self, evaluated_at_ms: i64) -> TableStyle {
        TableStyle {
            color: self.color,
            width: self.width,
            zone: self.zone,
            evaluated_at_ms,
        }
    }
}

/// Print an error that ends (part of) a run on stderr as `logclean: {e}`, escaped: its message
/// quotes paths and names read from disk, which reach the terminal only through [`escape`].
pub fn print_error(e: &dyn std::fmt::Display) {
    eprintln!("logclean: {}", escape(&e.to_string()));
}

/// Finish a command whose outcome is known: a reader that closed the pipe while the report
/// was written does not change the exit code the run has.
pub fn finish_render(outcome: Outcome, rendered: std::io::Result<()>) -> anyhow::Result<Outcome> {
    match rendered {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(outcome),
        Err(e) => Err(e.into()),
        Ok(()) => Ok(outcome),
    }
}

/// The exit outcome implied by findings: I/O problems > corruption > findings at `fail_on`.
pub fn outcome_of(findings: &[Finding], fail_on: impl Into<Severity>) -> Outcome {
    let fail_on = fail_on.into();
    findings.iter().fold(Outcome::Clean, |acc, f| {
        acc.merge(match f.class {
            FindingClass::Io => Outcome::Error,
            // Corrupt data decides the code whatever --fail-on says; only info-level is spared.
            FindingClass::Corruption if f.severity >= Severity::Warning => Outcome::Corrupt,
            _ if f.severity >= fail_on => Outcome::Findings,
            _ => Outcome::Clean,
        })
    })
}

/// Load every target, each log dir once ([`crate::model::targets::load_targets`]); a target
/// that is a parent of log dirs, not one, is a `dir.not_a_log_dir` finding, returned beside the
/// loaded dirs.
pub fn load_targets(
    paths: &[PathBuf],
    opts: &LoadOptions,
    progress: &dyn LoadProgress,
) -> anyhow::Result<(Vec<LogDir>, Vec<Finding>)> {
    let loaded = targets::load_targets(paths, opts, progress)?;
    let findings = (loaded.not_log_dirs.iter())
        .map(|n| not_a_log_dir_finding(&n.dir, &n.log_dirs_below))
        .collect();
    Ok((loaded.dirs, findings))
}

/// What `groups` and `transactions` read: the cluster view of the named dirs and the dirs
/// themselves (data partitions at the tail, the coordinators' topics at headers).
pub struct CoordinatorInputs {
    /// How large files were read (`--mmap`).
    pub mode: ReadMode,
    /// Configs and the metadata image.
    pub view: ClusterView,
    /// The loaded log dirs.
    pub dirs: Vec<LogDir>,
}

/// The arguments `groups` and `transactions` share.
#[derive(Debug, Clone, Copy)]
pub struct CoordinatorArgs<'a> {
    /// The command's name in the envelope.
    pub command: &'static str,
    /// Log dirs (or partition dirs) to read.
    pub paths: &'a [PathBuf],
    /// The broker's static `server.properties`.
    pub server_properties: Option<&'a PathBuf>,
    /// `--config-file`.
    pub config_file: Option<&'a PathBuf>,
    /// `--mmap`.
    pub mmap: bool,
    /// `--fail-on`.
    pub fail_on: Severity,
}

/// Run a coordinator command (`groups`, `transactions`): build the cluster view and load the
/// dirs, let `report` make the document and findings at the evaluated instant, add the
/// wrong-target findings, sort, and write it with `table` for people.
pub fn run_coordinator_command<B: serde::Serialize>(
    args: CoordinatorArgs<'_>,
    run: &RunConfig,
    out: &mut dyn std::io::Write,
    report: impl FnOnce(&CoordinatorInputs, i64) -> (B, Vec<Finding>),
    table: impl FnOnce(&Envelope<B>, &TableStyle, &mut dyn std::io::Write) -> std::io::Result<()>,
) -> anyhow::Result<Outcome> {
    let mode = ReadMode::from_mmap_flag(args.mmap);
    let cluster = ClusterInputs {
        log_dirs: args.paths.to_vec(),
        server_properties: args.server_properties.cloned().map(FileInput::Path),
        describe_file: args.config_file.cloned().map(FileInput::Path),
        read_mode: mode,
        kafka_version: run.kafka_version,
        ..ClusterInputs::default()
    };
    // The named dirs must be usable before anything is loaded, as the view requires.
    ClusterView::resolve_log_dirs(&cluster)?;
    let opts = LoadOptions::tail_with_internal_topics_at(ScanDepth::Headers, mode);
    let progress = Progress::new(run.output.progress, "reading partitions");
    let (dirs, target_findings) = load_targets(args.paths, &opts, &progress)?;
    // The view takes the partition dirs from the load: listed and read once, not twice.
    let view = ClusterView::build_over(&cluster, &dirs)?;
    let inputs = CoordinatorInputs { mode, view, dirs };
    let now = run.evaluated_at_ms;
    let (body, mut findings) = report(&inputs, now);
    findings.extend(target_findings);
    // Partitions and configs that could not be read are left out of the report: said, exit 3.
    findings.extend(unreadable_findings(&inputs.dirs, Some(&inputs.view)));
    dedup_unreadable(&mut findings);
    sort_findings(&mut findings);
    let outcome = outcome_of(&findings, args.fail_on);
    write_document(
        args.command,
        run,
        now,
        body,
        &findings,
        Some(ScanTotals::of(&inputs.dirs)),
        Some(AssumptionsDoc::of(&inputs.view, &[])),
        outcome,
        out,
        table,
    )
}

/// Write a command's document: the shared envelope (`evaluated_at_ms` is the instant the rules
/// used) as JSON, or through `table` for people; the outcome is the run's even when the reader
/// closed the pipe.
#[allow(clippy::too_many_arguments)] // the envelope's parts, each named at the call site
pub fn write_document<B: serde::Serialize>(
    command: &'static str,
    run: &RunConfig,
    evaluated_at_ms: i64,
    body: B,
    findings: &[Finding],
    scanned: Option<ScanTotals>,
    assumptions: Option<AssumptionsDoc>,
    outcome: Outcome,
    out: &mut dyn std::io::Write,
    table: impl FnOnce(&Envelope<B>, &TableStyle, &mut dyn std::io::Write) -> std::io::Result<()>,
) -> anyhow::Result<Outcome> {
    let mut doc = Envelope::new(
        command,
        run.generated_at_ms,
        evaluated_at_ms,
        body,
        findings,
        scanned,
        outcome,
    );
    doc.assumptions = assumptions;
    let rendered = match run.output.format {
        OutputFormat::Json => render_json(&doc, out),
        OutputFormat::Table => write_assumptions(doc.assumptions.as_ref(), run.output.width, out)
            .and_then(|()| table(&doc, &run.output.table_style(evaluated_at_ms), out)),
    };
    finish_render(outcome, rendered)
}
