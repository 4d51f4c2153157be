//! `logclean inspect`: load the given paths read-only, check them, render the report.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use crate::checks::finding::{Finding, FindingClass, Location, Severity};
use crate::checks::inspect::inspect_findings;
use crate::exit_codes::Outcome;
use crate::model::file_bytes::ReadMode;
use std::collections::BTreeMap;

use crate::model::log_dir::{classify_target, load_log_dir, LogDir, Selection};
use crate::model::records::dump_partition;
use crate::model::segment::{LoadOptions, ScanDepth};
use crate::report::render_json;
use crate::report::table::{render_inspect, TableStyle};
use crate::report::wire::{InspectDoc, LogDirDoc, SummaryDoc, SCHEMA_VERSION};

use super::progress::Progress;
use super::{InspectArgs, OutputFormat};

/// Settings shared by every command's rendering.
#[derive(Debug, Clone, Copy)]
pub struct Output {
    /// Table or JSON.
    pub format: OutputFormat,
    /// Colour the table.
    pub color: bool,
    /// Show a progress bar (stderr is a terminal and not disabled).
    pub progress: bool,
}

/// The exit outcome implied by findings: I/O problems > corruption > findings at `fail_on`.
pub fn outcome_of(findings: &[Finding], fail_on: Severity) -> Outcome {
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

/// Load every target, each log dir once: targets inside the same log dir are merged.
pub fn load_targets(
    paths: &[PathBuf],
    opts: &LoadOptions,
    progress: &Progress,
) -> anyhow::Result<Vec<LogDir>> {
    let mut by_dir: BTreeMap<PathBuf, Selection> = BTreeMap::new();
    let mut order = Vec::new();
    for path in paths {
        let target = classify_target(path)
            .with_context(|| format!("failed to open `{}`", path.display()))?;
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
    Ok(dirs)
}

/// Run `inspect`.
pub fn run(args: &InspectArgs, output: Output, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let depth = if args.verify {
        ScanDepth::Verify
    } else {
        ScanDepth::Headers
    };
    let read_mode = if args.no_mmap {
        ReadMode::Buffered
    } else {
        ReadMode::Mmap
    };
    let opts = LoadOptions::uniform(depth, read_mode);
    let progress = Progress::new(output.progress, "reading partitions");
    let dirs = load_targets(&args.paths, &opts, &progress)?;
    let mut findings = inspect_findings(&dirs, depth);
    let mut log_dirs: Vec<LogDirDoc> = dirs.iter().map(LogDirDoc::new).collect();
    if args.records {
        for (doc, dir) in log_dirs.iter_mut().zip(&dirs) {
            for (pdoc, p) in doc.partitions.iter_mut().zip(&dir.partitions) {
                match dump_partition(p, read_mode, args.max_records, args.max_value_bytes) {
                    Ok(b) => pdoc.batches = Some(b),
                    Err(e) => findings.push(Finding::new(
                        "file.unreadable",
                        Severity::Error,
                        FindingClass::Io,
                        Location {
                            log_dir: dir.path.clone(),
                            partition: Some(p.dir_name.clone()),
                            file: Some(e.path().to_path_buf()),
                            byte_offset: None,
                        },
                        "cannot read records",
                    )),
                }
            }
        }
    }
    let outcome = outcome_of(&findings, args.fail_on);
    let summary = SummaryDoc::new(&dirs, &findings, outcome.code());
    let doc = InspectDoc {
        schema_version: SCHEMA_VERSION,
        tool: format!("logclean {}", env!("CARGO_PKG_VERSION")),
        command: "inspect",
        generated_at_ms: chrono::Utc::now().timestamp_millis(),
        log_dirs,
        findings,
        summary,
    };
    match output.format {
        OutputFormat::Json => render_json(&doc, out)?,
        OutputFormat::Table => render_inspect(
            &doc,
            TableStyle {
                color: output.color,
            },
            out,
        )?,
    }
    Ok(outcome)
}
