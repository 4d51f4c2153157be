//! `logclean join REPORT.json...`: the cluster view of several brokers' `diagnose --format
//! json` reports (issue 21; [`join_reports`]). Each host runs `diagnose` on its own dirs; the
//! join needs those documents only, never the dirs.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use crate::checks::finding::Severity;
use crate::exit_codes::Outcome;
use crate::report::join_doc::{join_reports, parse_report, render_join, JoinDoc};
use crate::report::wire::envelope::SCHEMA_VERSION;
use crate::report::{render_json, OutputFormat};

use super::common::finish_render;
use super::run_config::RunConfig;
use super::FailOn;

/// Arguments of `logclean join`.
#[derive(Debug, Args)]
pub struct JoinArgs {
    /// `logclean diagnose --format json` reports, one (or more) per broker.
    #[arg(required = true, value_name = "REPORT")]
    pub reports: Vec<PathBuf>,
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

/// Run `join`.
pub fn run(args: &JoinArgs, run: &RunConfig, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let mut reports = Vec::new();
    for path in &args.reports {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("failed to read `{}`: {e}", path.display()))?;
        reports.push((path.clone(), parse_report(path, &text)?));
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
