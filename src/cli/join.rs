//! `logclean join REPORT.json...`: the cluster view of several brokers' `diagnose --format
//! json` reports (issue 21; [`join_reports`]). Each host runs `diagnose` on its own dirs; the
//! join needs those documents only, never the dirs. Or each host writes a facts snapshot
//! (`logclean snapshot`) and the join diagnoses each (`--snapshot`), as `diagnose --snapshot`
//! would, then joins those reports.

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, FromArgMatches};
use serde::Serialize;

use crate::checks::finding::Severity;
use crate::exit_codes::Outcome;
use crate::model::names::path_text;
use crate::report::join_doc::{join_reports, parse_report, render_join, JoinDoc};
use crate::report::wire::envelope::SCHEMA_VERSION;
use crate::report::{render_json, OutputFormat};

use super::common::finish_render;
use super::diagnose::DiagnoseArgs;
use super::run_config::RunConfig;
use super::FailOn;

/// Arguments of `logclean join`.
#[derive(Debug, Args)]
pub struct JoinArgs {
    /// `logclean diagnose --format json` reports, one (or more) per broker.
    #[arg(required_unless_present = "snapshots", value_name = "REPORT")]
    pub reports: Vec<PathBuf>,
    /// Facts snapshots (`logclean snapshot`), one per broker, joined as the reports of
    /// `diagnose --format json --snapshot FILE` are (repeatable; with reports or instead).
    #[command(flatten)]
    pub snapshot: super::run_config::SnapshotArg,
    /// The instant the snapshots are diagnosed at.
    #[command(flatten)]
    pub now: super::run_config::NowOrAfterArg,
    /// Lowest severity that makes the exit code 1.
    #[arg(long, value_enum, default_value_t = FailOn::Warning)]
    pub fail_on: FailOn,
}

/// The JSON document: the shared envelope's keys around the join's own.
#[derive(Serialize)]
struct JoinEnvelope<'a> {
    tool: String,
    command: &'static str,
    schema_version: u32,
    #[serde(flatten)]
    body: &'a JoinDoc,
    summary: JoinSummary,
}

#[derive(Serialize)]
struct JoinSummary {
    info: usize,
    warning: usize,
    error: usize,
    exit_code: u8,
}

fn severity_of(name: &str) -> Severity {
    match name {
        "error" => Severity::Error,
        "warning" => Severity::Warning,
        _ => Severity::Info,
    }
}

/// The `diagnose --format json` report of snapshot `file` at the run's instant (what
/// `logclean --format json diagnose --snapshot FILE --now ...` prints).
fn diagnose_snapshot(file: &Path, run: &RunConfig) -> anyhow::Result<String> {
    let argv = [
        OsStr::new("diagnose"),
        OsStr::new("--snapshot"),
        file.as_os_str(),
    ];
    let matches =
        DiagnoseArgs::augment_args(clap::Command::new("diagnose")).try_get_matches_from(argv)?;
    let args = DiagnoseArgs::from_arg_matches(&matches)?;
    let mut run = run.clone();
    run.output.format = OutputFormat::Json;
    run.output.progress = false;
    let mut text = Vec::new();
    super::diagnose::run(&args, &run, super::FormatArg::Json, &mut text)?;
    Ok(String::from_utf8(text)?)
}

/// Run `join`.
pub fn run(args: &JoinArgs, run: &RunConfig, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let mut reports = Vec::new();
    for path in &args.reports {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("failed to read `{}`: {e}", path_text(path)))?;
        reports.push((path.clone(), parse_report(path, &text)?));
    }
    for file in &args.snapshot.snapshots {
        let text = diagnose_snapshot(file, run)?;
        reports.push((file.clone(), parse_report(file, &text)?));
    }
    let doc = join_reports(reports);
    let fail_on: Severity = args.fail_on.into();
    let count = |s: &str| doc.findings.iter().filter(|f| f.severity == s).count();
    let outcome = (doc.findings.iter()).fold(Outcome::Clean, |acc, f| {
        let corrupt = f.class == "corruption" && severity_of(&f.severity) >= Severity::Warning;
        acc.merge(match () {
            () if f.class == "io" => Outcome::Error,
            () if corrupt => Outcome::Corrupt,
            () if severity_of(&f.severity) >= fail_on => Outcome::Findings,
            () => Outcome::Clean,
        })
    });
    let rendered = match run.output.format {
        OutputFormat::Json => render_json(
            &JoinEnvelope {
                tool: format!("logclean {}", env!("CARGO_PKG_VERSION")),
                command: "join",
                schema_version: SCHEMA_VERSION,
                body: &doc,
                summary: JoinSummary {
                    info: count("info"),
                    warning: count("warning"),
                    error: count("error"),
                    exit_code: outcome.code(),
                },
            },
            out,
        ),
        _ => render_join(&doc, &run.rendering().style, out),
    };
    finish_render(outcome, rendered)
}
