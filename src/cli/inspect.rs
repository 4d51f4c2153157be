//! `logclean inspect`: load the given paths read-only, check them, render the report.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use crate::checks::file::problem_finding;
use crate::checks::finding::{Finding, FindingClass, Severity};
use crate::checks::inspect::{inspect_findings, sort_findings};
use crate::checks::location::at_partition;
use crate::exit_codes::Outcome;
use crate::model::file_bytes::ReadMode;
use std::collections::BTreeMap;

use crate::checks::log_dir::not_a_log_dir_finding;
use crate::model::listing::log_dirs_below;
use crate::model::log_dir::{classify_target, load_log_dir, LogDir, Selection, Target};
use crate::model::metadata_log::load_metadata_image;
use crate::model::mode::run_modes;
use crate::model::records::dump_partition;
use crate::model::segment::{LoadOptions, ScanDepth};
use crate::report::human::Zone;
use crate::report::render_json;
use crate::report::table::{render_inspect, TableStyle, VerifyTotals};
use crate::report::wire::{Envelope, InspectBody, LogDirDoc, MetadataLogDoc, ScanTotals};

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

/// What `--verify` checked in `dirs`: the segments whose batches were verified, their bytes,
/// the batches that passed, the CRCs computed, the indexes compared with the log.
pub fn verify_totals(dirs: &[LogDir]) -> VerifyTotals {
    let mut v = VerifyTotals::default();
    for s in dirs
        .iter()
        .flat_map(|d| &d.partitions)
        .flat_map(|p| &p.segments)
    {
        let Some(log) = s.log_summary() else {
            continue;
        };
        let Some(passed) = log.verified_batches else {
            continue;
        };
        v.segments += 1;
        v.bytes += log.size.get();
        v.batches += passed;
        v.crcs += passed + u64::from(log.verify_error.is_some());
        v.offset_indexes += u64::from(s.index.as_ref().is_some_and(|i| i.is_ok()));
        v.time_indexes += u64::from(s.time_index.as_ref().is_some_and(|i| i.is_ok()));
    }
    v
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

/// Run `inspect`; the report says it was made at `generated_at_ms`. The outcome is decided
/// before anything is written ([`finish_render`]).
pub fn run(
    args: &InspectArgs,
    output: Output,
    generated_at_ms: i64,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
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
    let (dirs, not_log_dirs) = load_targets(&args.paths, &opts, &progress)?;
    let mut findings = inspect_findings(&dirs);
    findings.extend(not_log_dirs);
    let mut log_dirs: Vec<LogDirDoc> = dirs
        .iter()
        .zip(run_modes(&dirs))
        .map(|(d, m)| LogDirDoc::new(d, &m))
        .collect();
    // The KRaft metadata log: its snapshots and the feature levels of the image it holds.
    for (doc, dir) in log_dirs.iter_mut().zip(&dirs) {
        for (pdoc, p) in doc.partitions.iter_mut().zip(&dir.partitions) {
            if p.name.as_ref().is_some_and(|n| n.is_metadata_log()) {
                let image = load_metadata_image(&p.path, read_mode);
                pdoc.metadata_log = Some(MetadataLogDoc::new(p, &image));
            }
        }
    }
    if args.records {
        for (doc, dir) in log_dirs.iter_mut().zip(&dirs) {
            for (pdoc, p) in doc.partitions.iter_mut().zip(&dir.partitions) {
                match dump_partition(p, read_mode, args.max_records, args.max_value_bytes) {
                    Ok(b) => pdoc.batches = Some(b),
                    // Unreadable, or refused for its size ("too large"), never read whole.
                    Err(e) => {
                        findings.push(problem_finding(at_partition(dir, p), "records", &e, ""))
                    }
                }
            }
        }
    }
    sort_findings(&mut findings);
    let outcome = outcome_of(&findings, args.fail_on);
    let doc = Envelope::new(
        "inspect",
        generated_at_ms,
        generated_at_ms,
        InspectBody { log_dirs },
        &findings,
        Some(ScanTotals::of(&dirs)),
        outcome,
    );
    let verify = args.verify.then(|| verify_totals(&dirs));
    let rendered = match output.format {
        OutputFormat::Json => render_json(&doc, out),
        OutputFormat::Table => render_inspect(
            &doc,
            &output.table_style(generated_at_ms),
            verify.as_ref(),
            out,
        ),
    };
    finish_render(outcome, rendered)
}
