//! What every command's CLI shares: rendering settings, the exit outcome of findings, the one way
//! a document is written ([`write`]), loading the targets given on the command line and the
//! inputs of the coordinator commands.

use std::io::Write;
use std::path::PathBuf;

use crate::actions::delete_run::{DeleteOptions, DeleteStop};
use crate::checks::finding::{Finding, FindingClass, Severity};
use crate::checks::inspect::sort_findings;
use crate::checks::log_dir::not_a_log_dir_finding;
use crate::checks::unreadable::{dedup_unreadable, unreadable_findings};
use crate::exit_codes::Outcome;
use crate::model::cluster::{Assumptions, ClusterInputs, ClusterView, FileInput};
use crate::model::file_bytes::ReadMode;
use crate::model::log_dir::LogDir;
use crate::model::segment::{LoadOptions, ScanDepth};
use crate::model::targets::{self, LoadProgress};
use crate::model::units::TimestampMs;
use crate::report::human::Zone;
use crate::report::mutation::SortedKeys;
use crate::report::sanitize::escape;
use crate::report::table::TableStyle;
use crate::report::wire::assumptions::AssumptionsDoc;
use crate::report::wire::{Envelope, ScanTotals};
use crate::report::{write_document, Document};
use crate::rules::groups::Loss;

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
    /// The table settings for a run evaluated at `now` (ages count from it).
    pub fn table_style(&self, now: TimestampMs) -> TableStyle {
        TableStyle {
            color: self.color,
            width: self.width,
            zone: self.zone,
            evaluated_at_ms: now.get(),
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

/// The snapshots of `--snapshot`, read (keeping `parts`, what the command reads) and joined,
/// and the run saying it read them (`None` and the run unchanged without `--snapshot`).
pub fn with_snapshots(
    arg: &super::run_config::SnapshotArg,
    run: &RunConfig,
    parts: crate::model::snapshot::Parts,
) -> anyhow::Result<(Option<crate::model::snapshot::Snapshots>, RunConfig)> {
    let mut run = run.clone();
    if arg.snapshots.is_empty() {
        return Ok((None, run));
    }
    let snaps = super::snapshot::read_snapshots(&arg.snapshots, parts)?;
    run.input = Some(snaps.sources.iter().map(|(_, s)| s.clone()).collect());
    Ok((Some(snaps), run))
}

/// Refuse snapshots `command` cannot answer from exactly: taken with another load than its own
/// (`load`, [`crate::model::snapshot::SnapshotInput::load`]), or several whose replays it needs
/// (`needs_replays`) and which are not joined.
pub fn check_snapshots(
    snaps: &crate::model::snapshot::Snapshots,
    command: &str,
    load: &str,
    needs_replays: bool,
) -> anyhow::Result<()> {
    use crate::model::names::path_text;
    for (file, s) in &snaps.sources {
        if s.load != load {
            anyhow::bail!(
                "--snapshot `{}` was taken loading the dirs as `{}`; `{command}` loads them as \
                 `{load}`: take one with `logclean snapshot {}LOG_DIR... -o FILE`",
                path_text(file),
                s.load,
                if load == crate::model::snapshot::LOAD_HEADERS {
                    "--depth headers "
                } else {
                    ""
                }
            );
        }
    }
    if let (true, Some(why)) = (needs_replays, &snaps.replays.not_joined) {
        anyhow::bail!("--snapshot: `{command}` reads one snapshot at a time: {why}");
    }
    Ok(())
}

/// Write `doc` as the run renders ([`crate::report::write_document`]: JSON, or the assumptions
/// and `table` for people). The outcome is the document's, even when the reader closed the pipe.
pub fn write<B: serde::Serialize>(
    run: &RunConfig,
    doc: Document<B>,
    table: impl FnOnce(&Envelope<B>, &TableStyle, &mut dyn Write) -> std::io::Result<()>,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let outcome = doc.outcome;
    finish_render(outcome, write_document(doc, &run.rendering(), table, out))
}

/// The `delete` options of a `delete`-like run (`delete`, `free`) on `paths` with the shared
/// mutating options `mutate`, at the run's instant.
pub fn delete_options(
    paths: &[PathBuf],
    mutate: &super::MutateArgs,
    run: &RunConfig,
    accept_assumed_configs: bool,
    fail_if_group_loses_data: bool,
) -> DeleteOptions {
    DeleteOptions {
        mutate: mutate.options(),
        cluster: ClusterInputs {
            log_dirs: paths.to_vec(),
            server_properties: mutate.server_properties.clone().map(FileInput::Path),
            overrides: mutate.overrides.clone(),
            describe_file: mutate.config_file.clone().map(FileInput::Path),
            read_mode: run.read_mode,
            kafka_version: run.kafka_version,
            ..ClusterInputs::default()
        },
        now: run.now,
        accept_assumed_configs,
        fail_if_group_loses_data,
    }
}

/// The end of a `delete`-like run that stopped before it planned: a refusal (said on stderr;
/// its outcome), or an error.
pub fn deletion_stopped(stop: DeleteStop) -> anyhow::Result<Outcome> {
    match stop {
        DeleteStop::Refused(e) => Ok(super::mutate::refused(e)),
        DeleteStop::Load(e) => Err(e.into()),
        DeleteStop::Config(e) => Err(e.into()),
    }
}

/// Write a `delete`-like run's document: `body` (keys sorted), the configs it assumed, its
/// outcome, and `table` for the table format (given the body and the terminal width).
pub fn write_deletion<B: serde::Serialize>(
    run: &RunConfig,
    command: &'static str,
    body: B,
    assumptions: &Assumptions,
    outcome: Outcome,
    table: impl FnOnce(&B, usize, &mut dyn Write) -> std::io::Result<()>,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let doc = Document {
        assumptions: Some(AssumptionsDoc::new(assumptions)),
        ..Document::new(command, SortedKeys(body), outcome)
    };
    let width = run.output.width;
    let table = |doc: &Envelope<SortedKeys<B>>, _: &TableStyle, out: &mut dyn Write| {
        table(&doc.body.0, width, out)
    };
    write(run, doc, table, out)
}

/// Say on stderr that `--fail-if-group-loses-data` refused a run: the groups that would lose
/// data.
pub fn say_group_loss_refusal(lost: &[Loss]) {
    let mut names: Vec<&str> = lost.iter().map(|l| l.group.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    print_error(&format!(
        "refused: --fail-if-group-loses-data: group(s) {} would lose data; nothing changed",
        names.join(", ")
    ));
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
    /// Log dirs (or partition dirs) to read.
    pub paths: &'a [PathBuf],
    /// The broker's static `server.properties`.
    pub server_properties: Option<&'a PathBuf>,
    /// `--config-file`.
    pub config_file: Option<&'a PathBuf>,
}

/// Build the cluster view of a coordinator command (`groups`, `transactions`) and load its dirs
/// (or take them from the facts snapshots `snaps`); the wrong targets found on the way are
/// returned beside them.
pub fn load_coordinator_inputs(
    args: CoordinatorArgs<'_>,
    run: &RunConfig,
    snaps: Option<crate::model::snapshot::Snapshots>,
) -> anyhow::Result<(CoordinatorInputs, Vec<Finding>)> {
    let mode = run.read_mode;
    let cluster = ClusterInputs {
        log_dirs: args.paths.to_vec(),
        server_properties: args.server_properties.cloned().map(FileInput::Path),
        describe_file: args.config_file.cloned().map(FileInput::Path),
        read_mode: mode,
        kafka_version: run.kafka_version,
        ..ClusterInputs::default()
    };
    if let Some(s) = snaps {
        // A snapshot holds the dirs as this load would have loaded them, and what is read
        // after it.
        let cluster = ClusterInputs {
            log_dirs: s.log_dirs,
            facts: Some(s.dir_facts),
            replays: Some(s.replays),
            ..cluster
        };
        let view = ClusterView::build_over(&cluster, &s.dirs)?;
        let dirs = s.dirs;
        return Ok((CoordinatorInputs { mode, view, dirs }, Vec::new()));
    }
    // The named dirs must be usable before anything is loaded, as the view requires.
    ClusterView::resolve_log_dirs(&cluster)?;
    let opts = LoadOptions::tail_with_internal_topics_at(ScanDepth::Headers, mode);
    let progress = Progress::new(run.output.progress, "reading partitions");
    let (dirs, target_findings) = load_targets(args.paths, &opts, &progress)?;
    // The view takes the partition dirs from the load: listed and read once, not twice.
    let view = ClusterView::build_over(&cluster, &dirs)?;
    Ok((CoordinatorInputs { mode, view, dirs }, target_findings))
}

/// The document of a coordinator command: its body and findings, with the wrong targets and
/// what could not be read (left out of the report: said, exit 3), sorted.
pub fn coordinator_document<B>(
    command: &'static str,
    inputs: &CoordinatorInputs,
    (body, mut findings): (B, Vec<Finding>),
    target_findings: Vec<Finding>,
    run: &RunConfig,
) -> Document<B> {
    findings.extend(target_findings);
    findings.extend(unreadable_findings(&inputs.dirs, Some(&inputs.view)));
    dedup_unreadable(&mut findings);
    sort_findings(&mut findings);
    let outcome = outcome_of(&findings, run.filters.fail_on);
    Document {
        command,
        body,
        scanned: Some(ScanTotals::of(&inputs.dirs)),
        assumptions: Some(AssumptionsDoc::of(&inputs.view, &[])),
        findings,
        outcome,
    }
}
