//! `logclean inspect`: options → load the given paths read-only ([`load_targets`]) →
//! [`inspect_findings`] and the documents of the dirs, their metadata logs and records →
//! [`write`] ([`render_inspect`]).

use std::collections::BTreeSet;
use std::io::Write;

use crate::checks::file::problem_finding;
use crate::checks::finding::Finding;
use crate::checks::inspect::{inspect_findings, sort_findings};
use crate::checks::location::at_partition;
use crate::checks::unreadable::{dedup_unreadable, metadata_image_findings};
use crate::exit_codes::Outcome;
use crate::formats::remote_log_metadata::REMOTE_LOG_METADATA_TOPIC;
use crate::model::cluster::DirFacts;
use crate::model::file_bytes::ReadMode;
use crate::model::log_dir::LogDir;
use crate::model::mode::run_modes;
use crate::model::names::PartitionDirState;
use crate::model::records::dump_partition;
use crate::model::replays::Records;
use crate::model::segment::{LoadOptions, ScanDepth};
use crate::model::snapshot::Parts;
use crate::model::snapshot::LOAD_HEADERS;
use crate::report::table::{render_inspect, TableStyle, VerifyTotals};
use crate::report::wire::{InspectBody, InspectDoc, LogDirDoc, MetadataLogDoc, ScanTotals};
use crate::report::Document;

use super::common::{check_snapshots, load_targets, outcome_of, with_snapshots, write};
use super::progress::Progress;
use super::run_config::RunConfig;
use super::InspectArgs;

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

/// Load `args.paths` at the depth `--verify` asks; the wrong targets come beside the dirs.
fn load(args: &InspectArgs, run: &RunConfig) -> anyhow::Result<(Vec<LogDir>, Vec<Finding>)> {
    let depth = if args.verify {
        ScanDepth::Verify
    } else {
        ScanDepth::Headers
    };
    let opts = LoadOptions::uniform(depth, run.read_mode);
    let progress = Progress::new(run.output.progress, "reading partitions");
    load_targets(&args.paths, &opts, &progress)
}

/// The KRaft metadata log of each dir: its snapshots and the feature levels of the image it
/// holds (a snapshot the load does not read is read here: one it cannot is said).
fn add_metadata_logs(
    docs: &mut [LogDirDoc],
    dirs: &[LogDir],
    (records, facts): (Records<'_>, Option<&DirFacts>),
    findings: &mut Vec<Finding>,
) {
    let mut tiered_topics: BTreeSet<String> = BTreeSet::new();
    let mut remote_metadata = (dirs.iter().flat_map(|d| &d.partitions))
        .any(|p| (p.name.as_ref()).is_some_and(|n| n.topic == REMOTE_LOG_METADATA_TOPIC));
    for (doc, dir) in docs.iter_mut().zip(dirs) {
        for (pdoc, p) in doc.partitions.iter_mut().zip(&dir.partitions) {
            if p.name.as_ref().is_some_and(|n| n.is_metadata_log()) {
                let image = records.metadata_image(&p.path, facts);
                findings.extend(metadata_image_findings(&dir.path, &image));
                pdoc.metadata_log = Some(MetadataLogDoc::new(p, &image));
                remote_metadata |= image.topics.contains_key(REMOTE_LOG_METADATA_TOPIC);
                tiered_topics.extend(
                    (image.topic_configs.iter())
                        .filter(|(_, c)| {
                            c.get("remote.storage.enable")
                                .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
                        })
                        .map(|(t, _)| t.clone()),
                );
            }
        }
    }
    if !remote_metadata {
        return;
    }
    // A tiered log loads its checkpointed log start as is: the total log start
    // (`Partition::total_log_start_offset`), which the document names apart from the local one.
    for (doc, dir) in docs.iter_mut().zip(dirs) {
        for (pdoc, p) in doc.partitions.iter_mut().zip(&dir.partitions) {
            let tiered = (p.name.as_ref()).is_some_and(|n| {
                n.state == PartitionDirState::Live && tiered_topics.contains(&n.topic)
            });
            if tiered {
                pdoc.remote_log_enabled = true;
                pdoc.total_log_start_offset = p.total_log_start_offset(true).map(|o| o.get());
            }
        }
    }
}

/// `--records`: every partition's batches and records, shown safely and truncated.
fn add_records(
    args: &InspectArgs,
    docs: &mut [LogDirDoc],
    dirs: &[LogDir],
    mode: ReadMode,
    findings: &mut Vec<Finding>,
) {
    for (doc, dir) in docs.iter_mut().zip(dirs) {
        for (pdoc, p) in doc.partitions.iter_mut().zip(&dir.partitions) {
            match dump_partition(p, mode, args.max_records, args.max_value_bytes) {
                // Where a segment's walk stopped short (`d.stops`) is already a segment finding
                // (walk error, torn or zero tail) or the record limit: not repeated.
                Ok(d) => pdoc.batches = Some(d.batches),
                // Unreadable, or refused for its size ("too large"), never read whole.
                Err(e) => findings.push(problem_finding(at_partition(dir, p), "records", &e, "")),
            }
        }
    }
}

/// Run `inspect`. The outcome is decided before anything is written ([`write`]).
pub fn run(args: &InspectArgs, run: &RunConfig, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let (snaps, run) = with_snapshots(&args.snapshot, run, Parts::NO_DISK)?;
    let run = &run;
    let (dirs, not_log_dirs, carried) = match snaps {
        Some(s) => {
            check_snapshots(&s, "inspect", LOAD_HEADERS, true)?;
            if args.verify || args.records {
                anyhow::bail!(
                    "--{} reads every record's bytes, which a facts snapshot does not hold: run \
                     it on the log dirs",
                    if args.verify { "verify" } else { "records" }
                );
            }
            (s.dirs, Vec::new(), Some((s.replays, s.dir_facts)))
        }
        None => {
            let (dirs, not_log_dirs) = load(args, run)?;
            (dirs, not_log_dirs, None)
        }
    };
    let records = Records::of(carried.as_ref().map(|c| c.0.as_ref()), run.read_mode);
    let facts = carried.as_ref().map(|c| c.1.as_ref());
    let mut findings = inspect_findings(&dirs);
    findings.extend(not_log_dirs);
    let mut log_dirs: Vec<LogDirDoc> = dirs
        .iter()
        .zip(run_modes(&dirs))
        .map(|(d, m)| LogDirDoc::new(d, &m))
        .collect();
    add_metadata_logs(&mut log_dirs, &dirs, (records, facts), &mut findings);
    if args.records {
        add_records(args, &mut log_dirs, &dirs, run.read_mode, &mut findings);
    }
    dedup_unreadable(&mut findings);
    sort_findings(&mut findings);
    let outcome = outcome_of(&findings, run.filters.fail_on);
    let doc = Document {
        scanned: Some(ScanTotals::of(&dirs)),
        findings,
        ..Document::new("inspect", InspectBody { log_dirs }, outcome)
    };
    let verify = args.verify.then(|| verify_totals(&dirs));
    let table = |doc: &InspectDoc, style: &TableStyle, out: &mut dyn Write| {
        render_inspect(doc, style, verify.as_ref(), out)
    };
    write(run, doc, table, out)
}
