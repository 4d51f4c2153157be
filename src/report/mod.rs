//! Reports: serialise-only wire types and small renderers (table for people, JSON for tools);
//! terminal escaping of names and values read from disk; fitting tables to the terminal width.
//!
//! Every command's output goes through [`write_document`]: the shared envelope as JSON, or the
//! assumptions and the command's table for people. `diagnose` and `plan` also render the same
//! envelope as one self-contained HTML page ([`html`]).

pub mod assumptions;
pub mod config_doc;
pub mod config_table;
pub mod diagnose_metrics;
pub mod diagnose_table;
pub mod diagnostics;
pub mod free;
pub mod groups_doc;
pub mod groups_table;
pub mod html;
pub mod human;
pub mod join_doc;
pub mod mutation;
pub mod plan_doc;
pub mod plan_table;
pub mod prometheus;
pub mod sanitize;
pub mod stream_grid;
pub mod stream_table;
pub mod table;
pub mod terminal;
pub mod txn_doc;
pub mod txn_table;
pub mod upgrade_doc;
pub mod wire;

use std::io::{self, Write};

use crate::checks::finding::Finding;
use crate::exit_codes::Outcome;
use crate::model::names::path_text;
use crate::model::release::drop_aside;
use crate::model::snapshot::SnapshotSource;
use crate::model::units::TimestampMs;
use sanitize::escape;

use assumptions::write_assumptions;
use table::TableStyle;
use wire::assumptions::AssumptionsDoc;
use wire::{Envelope, ScanTotals};

/// Output format of every command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// Aligned tables for people.
    Table,
    /// One JSON document with a versioned schema (see README).
    Json,
    /// One self-contained HTML page (`diagnose` and `plan`: [`html`]).
    Html,
}

/// Write any wire document as pretty JSON with a trailing newline.
pub fn render_json<T: serde::Serialize>(doc: &T, out: &mut dyn Write) -> io::Result<()> {
    // serde_json writes a token at a time: buffered here, each is a copy into a 64 KiB buffer
    // rather than a call through `dyn Write`.
    let mut buffered = io::BufWriter::with_capacity(64 * 1024, out);
    serde_json::to_writer_pretty(&mut buffered, doc)?;
    writeln!(buffered)?;
    buffered.flush()
}

/// A command's result, ready to be written: the parts of its [`Envelope`].
#[derive(Debug)]
pub struct Document<B> {
    /// The command's name in the envelope.
    pub command: &'static str,
    /// The command's own keys.
    pub body: B,
    /// Its findings, sorted.
    pub findings: Vec<Finding>,
    /// What the command scanned, for commands that scan log dirs.
    pub scanned: Option<ScanTotals>,
    /// The config values it assumed, for commands that resolve topic configs.
    pub assumptions: Option<AssumptionsDoc>,
    /// The run's outcome (the summary's exit code).
    pub outcome: Outcome,
}

impl<B> Document<B> {
    /// A document of `command` with `body` and `outcome` and nothing else.
    pub fn new(command: &'static str, body: B, outcome: Outcome) -> Self {
        Document {
            command,
            body,
            findings: Vec::new(),
            scanned: None,
            assumptions: None,
            outcome,
        }
    }

    /// The document in the shared envelope, stamped with `how`'s instants.
    pub fn into_envelope(self, how: &Rendering) -> Envelope<B> {
        let envelope = Envelope::new(
            self.command,
            how.generated_at,
            how.now,
            self.body,
            &self.findings,
            self.scanned,
            self.outcome,
        );
        let mut envelope = match self.assumptions {
            Some(a) => envelope.with_assumptions(a),
            None => envelope,
        };
        envelope.input.clone_from(&how.input);
        envelope
    }
}

/// How and when a run renders its document.
#[derive(Debug, Clone)]
pub struct Rendering {
    /// Table, JSON or HTML.
    pub format: OutputFormat,
    /// The table settings (their instant is the run's evaluation instant).
    pub style: TableStyle,
    /// When the document was made (the wall clock at start).
    pub generated_at: TimestampMs,
    /// The instant the rules were evaluated at.
    pub now: TimestampMs,
    /// The facts snapshots the run read instead of log dirs (`None`: log dirs).
    pub input: Option<Vec<SnapshotSource>>,
}

/// For people: the facts snapshots a run read instead of log dirs, one line each (nothing for
/// a run on log dirs).
fn write_input(
    input: Option<&[SnapshotSource]>,
    style: &TableStyle,
    out: &mut dyn Write,
) -> io::Result<()> {
    for s in input.unwrap_or_default() {
        let node = (s.broker.node_id).map_or_else(|| "unknown".to_string(), |n| n.to_string());
        let dirs: Vec<String> = s.log_dirs.iter().map(|d| path_text(d)).collect();
        writeln!(
            out,
            "{}",
            escape(&format!(
                "input: snapshot {} taken {} by {} (node {node}; {}); every fact, disk space too, as of then",
                path_text(&s.file),
                human::time(s.taken_at.get(), style.zone, human::Precision::Seconds)
                    .unwrap_or_else(|| s.taken_at.get().to_string()),
                s.logclean_version,
                dirs.join(", ")
            ))
        )?;
    }
    Ok(())
}

/// Write `doc` in the shared envelope: as JSON, or for people the assumptions then `table`.
pub fn write_document<B: serde::Serialize>(
    doc: Document<B>,
    how: &Rendering,
    table: impl FnOnce(&Envelope<B>, &TableStyle, &mut dyn Write) -> io::Result<()>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let command = doc.command;
    render_envelope(command, &doc.into_envelope(how), how, table, out)
}

/// [`write_document`] of a document whose envelope is freed on a thread of its own once
/// rendered (`diagnose`'s: every partition's figures, freed beside the process's exit).
pub fn write_document_freed_aside<B: serde::Serialize + Send + 'static>(
    doc: Document<B>,
    how: &Rendering,
    table: impl FnOnce(&Envelope<B>, &TableStyle, &mut dyn Write) -> io::Result<()>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let command = doc.command;
    let envelope = doc.into_envelope(how);
    let written = render_envelope(command, &envelope, how, table, out);
    drop_aside(envelope);
    written
}

/// [`write_document`]'s rendering of `envelope` (of `command`'s document).
fn render_envelope<B: serde::Serialize>(
    command: &str,
    envelope: &Envelope<B>,
    how: &Rendering,
    table: impl FnOnce(&Envelope<B>, &TableStyle, &mut dyn Write) -> io::Result<()>,
    out: &mut dyn Write,
) -> io::Result<()> {
    match how.format {
        OutputFormat::Json => render_json(envelope, out),
        // `diagnose` answers first: its table places the assumptions after the findings (its
        // headline says what they are); every other table opens with them.
        OutputFormat::Table if command == "diagnose" => {
            write_input(how.input.as_deref(), &how.style, out)
                .and_then(|()| table(envelope, &how.style, out))
        }
        OutputFormat::Table => write_input(how.input.as_deref(), &how.style, out)
            .and_then(|()| write_assumptions(envelope.assumptions.as_ref(), how.style.width, out))
            .and_then(|()| table(envelope, &how.style, out)),
        // The CLI offers HTML only where the command renders it itself (`diagnose`, `plan`).
        OutputFormat::Html => Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("`{command}` has no HTML rendering; use --format json or table"),
        )),
    }
}
