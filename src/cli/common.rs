//! What every command's CLI shares: rendering settings, the exit outcome of findings, a report
//! finished on a closed pipe, and loading the targets given on the command line.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Context;

use crate::checks::finding::{Finding, FindingClass, Severity};
use crate::checks::log_dir::not_a_log_dir_finding;
use crate::exit_codes::Outcome;
use crate::model::listing::log_dirs_below;
use crate::model::log_dir::{classify_target, load_log_dir, LogDir, Selection, Target};
use crate::model::segment::LoadOptions;
use crate::report::human::Zone;
use crate::report::render_json;
use crate::report::table::TableStyle;
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

/// Load every target, each log dir once: targets inside the same log dir are merged. A target
/// that is a parent of log dirs, not one ([`log_dirs_below`]), is not loaded: it is a
/// `dir.not_a_log_dir` finding, returned beside the loaded dirs.
pub fn load_targets(
    paths: &[PathBuf],
    opts: &LoadOptions,
    progress: &Progress,
) -> anyhow::Result<(Vec<LogDir>, Vec<Finding>)> {
    let mut by_dir: BTreeMap<PathBuf, Selection> = BTreeMap::new();
    let mut order = Vec::new();
    let mut not_log_dirs = Vec::new();
    for path in paths {
        let target = classify_target(path)
            .with_context(|| format!("failed to open `{}`", path.display()))?;
        if let Target::LogDir(dir) = &target {
            let below = log_dirs_below(dir);
            if !below.is_empty() {
                not_log_dirs.push(not_a_log_dir_finding(dir, &below));
                continue;
            }
        }
        let (log_dir, selection) = target.split();
        let log_dir = log_dir.to_path_buf();
        match by_dir.remove(&log_dir) {
            Some(existing) => by_dir.insert(log_dir, existing.merge(selection)),
            None => {
                order.push(log_dir.clone());
                by_dir.insert(log_dir, selection)
            }
        };
    }
    let mut dirs = Vec::new();
    for log_dir in order {
        let selection = by_dir.remove(&log_dir).unwrap_or_default();
        let count = match &selection.partitions {
            None => std::fs::read_dir(&log_dir)
                .map(|r| {
                    r.filter(|e| e.as_ref().is_ok_and(|e| e.path().is_dir()))
                        .count()
                })
                .unwrap_or(0),
            Some(p) => p.len(),
        };
        progress.add_length(count as u64);
        let dir = load_log_dir(&log_dir, &selection, opts, &|| progress.inc())
            .with_context(|| format!("failed to read log dir `{}`", log_dir.display()))?;
        dirs.push(dir);
    }
    progress.finish();
    Ok((dirs, not_log_dirs))
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
    outcome: Outcome,
    out: &mut dyn std::io::Write,
    table: impl FnOnce(&Envelope<B>, &TableStyle, &mut dyn std::io::Write) -> std::io::Result<()>,
) -> anyhow::Result<Outcome> {
    let doc = Envelope::new(
        command,
        run.generated_at_ms,
        evaluated_at_ms,
        body,
        findings,
        scanned,
        outcome,
    );
    let rendered = match run.output.format {
        OutputFormat::Json => render_json(&doc, out),
        OutputFormat::Table => table(&doc, &run.output.table_style(evaluated_at_ms), out),
    };
    finish_render(outcome, rendered)
}
