//! `logclean inspect`: load the given paths read-only, check them, render the report.

use std::io::Write;

use crate::checks::file::problem_finding;
use crate::checks::inspect::{inspect_findings, sort_findings};
use crate::checks::location::at_partition;
use crate::checks::unreadable::{dedup_unreadable, metadata_image_findings};
use crate::exit_codes::Outcome;
use crate::model::file_bytes::ReadMode;
use crate::model::log_dir::LogDir;
use crate::model::metadata_log::load_metadata_image;
use crate::model::mode::run_modes;
use crate::model::records::dump_partition;
use crate::model::segment::{LoadOptions, ScanDepth};
use crate::report::render_json;
use crate::report::table::{render_inspect, VerifyTotals};
use crate::report::wire::{Envelope, InspectBody, LogDirDoc, MetadataLogDoc, ScanTotals};

use super::common::{finish_render, load_targets, outcome_of, Output};
use super::progress::Progress;
use super::{InspectArgs, OutputFormat};

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
    let read_mode = ReadMode::from_mmap_flag(args.mmap);
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
                // A snapshot the load does not read is read here: one it cannot is said.
                findings.extend(metadata_image_findings(&dir.path, &image));
                pdoc.metadata_log = Some(MetadataLogDoc::new(p, &image));
            }
        }
    }
    if args.records {
        for (doc, dir) in log_dirs.iter_mut().zip(&dirs) {
            for (pdoc, p) in doc.partitions.iter_mut().zip(&dir.partitions) {
                match dump_partition(p, read_mode, args.max_records, args.max_value_bytes) {
                    // Where a segment's walk stopped short (`d.stops`) is already a segment
                    // finding (walk error, torn or zero tail) or the record limit: not repeated.
                    Ok(d) => pdoc.batches = Some(d.batches),
                    // Unreadable, or refused for its size ("too large"), never read whole.
                    Err(e) => {
                        findings.push(problem_finding(at_partition(dir, p), "records", &e, ""))
                    }
                }
            }
        }
    }
    dedup_unreadable(&mut findings);
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
