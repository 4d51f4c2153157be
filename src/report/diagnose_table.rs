//! The `diagnose` table: the summary (scan, counts by severity and code, log dirs, top
//! partitions by retained bytes), then the findings table of every command
//! ([`findings_table`]: the same finding on many partitions shown once with the list).

use std::io::{self, Write};

use humansize::{format_size, BINARY};
use serde::Serialize;

use super::human::{age, time, Precision};
use super::sanitize::{escape, escape_path};
use super::table::{findings_table, write_fitted, TableStyle};
use super::terminal::{fit_atoms, render_layouts, shorten_path, words, Align, Cell, Grid};
use super::wire::Envelope;

use crate::diagnose::summary::{CodeCount, Hidden, LogDirTotals, PartitionBytes};
use crate::diagnose::Summary;

/// The `diagnose` document's own keys: the summary's parts at the top level.
#[derive(Debug, Serialize)]
pub struct DiagnoseBody {
    /// Per code: findings, highest severity, partitions.
    pub by_code: Vec<CodeCount>,
    /// Per log dir: bytes and what the next retention pass frees.
    pub log_dirs: Vec<LogDirTotals>,
    /// The partitions keeping the most bytes after the next pass.
    pub top_partitions: Vec<PartitionBytes>,
    /// Partitions holding bytes past those in `top_partitions`.
    pub more_partitions: usize,
    /// What `--kind`, `--topic` and `--min-severity` hid (absent without them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden: Option<Hidden>,
}

impl DiagnoseBody {
    /// The body of `summary`.
    pub fn new(summary: Summary) -> DiagnoseBody {
        DiagnoseBody {
            by_code: summary.by_code,
            log_dirs: summary.log_dirs,
            top_partitions: summary.top_partitions,
            more_partitions: summary.more_partitions,
            hidden: summary.hidden,
        }
    }
}

fn size(b: u64) -> String {
    format_size(b, BINARY)
}

fn grid(headers: &[(&str, Align)], rows: Vec<Vec<String>>, width: usize) -> String {
    let mut g = Grid::new(headers);
    for r in rows {
        g.push(r.into_iter().map(Cell::atom).collect());
    }
    render_layouts(&[g], width)
}

/// A duration in words (`3 h`, `2 d`, `4 y`, `> 100 y`).
fn span(ms: i64) -> String {
    const YEAR: i64 = 365 * 86_400_000;
    match ms / YEAR {
        0 => age(0, ms).trim_end_matches(" ago").to_string(),
        y if y > 100 => "> 100 y".to_string(),
        y => format!("{y} y"),
    }
}

/// One log dir's startup and disk figures.
fn figures_row(d: &LogDirTotals, width: usize) -> Vec<String> {
    let path = shorten_path(&escape_path(&d.path), width / 4);
    let (recovers, est) = d.startup.as_ref().map_or_else(
        || ("-".to_string(), "-".to_string()),
        |c| {
            (
                format!("{} seg, {}", c.segments(), size(c.recover_bytes)),
                format!("{:.1} s", c.estimated_ms as f64 / 1000.0),
            )
        },
    );
    let (space, growth, full) = d.disk.as_ref().map_or_else(
        || ("-".to_string(), "-".to_string(), "-".to_string()),
        |x| {
            let space = match (x.fs_free_bytes, x.fs_total_bytes) {
                (Some(f), Some(t)) => format!("{} / {}", size(f), size(t)),
                _ => "unknown".to_string(),
            };
            let growth = format!("{}/h", size(x.growth_bytes_per_hour));
            let full = x.ms_until_full.map_or_else(|| "never".to_string(), span);
            (space, growth, full)
        },
    );
    vec![path, recovers, est, space, growth, full]
}

/// Render the `diagnose` table.
pub fn render_diagnose(
    doc: &Envelope<DiagnoseBody>,
    style: &TableStyle,
    out: &mut dyn Write,
) -> io::Result<()> {
    let s = &doc.summary;
    let at = time(doc.evaluated_at_ms, style.zone, Precision::Seconds).unwrap_or_default();
    let mut head = vec!["diagnosis".to_string(), "at".to_string(), at];
    if let Some(t) = &s.scanned {
        head.push(format!("of {} log dir(s):", t.log_dirs));
        head.push(format!("{} partitions,", t.partitions));
        head.push(format!("{} segments,", t.segments));
        head.push(size(t.log_bytes));
    }
    write_fitted(out, &head, style, "", "  ")?;
    let counts = vec![
        "findings:".to_string(),
        format!("{} error,", s.error),
        format!("{} warning,", s.warning),
        format!("{} info", s.info),
    ];
    write_fitted(out, &counts, style, "", "  ")?;
    let b = &doc.body;
    if let Some(h) = b.hidden.as_ref().and_then(hidden_words) {
        write_words(out, &format!("filtered: {h}"), style)?;
    }
    write_code_and_dir_grids(b, style, out)?;
    write_figures_grid(b, style, out)?;
    write_top_partitions(b, style, out)?;
    if let Some(t) = findings_table(&doc.findings, style) {
        writeln!(out)?;
        write!(out, "{t}")?;
    } else {
        writeln!(out)?;
        match b.hidden.as_ref().and_then(hidden_words) {
            Some(h) => write_words(out, &format!("no findings: {h}"), style)?,
            None => writeln!(out, "no findings")?,
        }
    }
    Ok(())
}

/// `text` fitted to the width, words one space apart.
fn write_words(out: &mut dyn Write, text: &str, style: &TableStyle) -> io::Result<()> {
    for line in fit_atoms(&words(text), style.width, " ", "", "  ") {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// What the filters hid, in words (`12 of 30 findings hidden by --min-severity warning`), or
/// None when they hid nothing and kept everything there was.
fn hidden_words(h: &Hidden) -> Option<String> {
    let mut by = Vec::new();
    if h.by_kind > 0 {
        by.push(format!("{} by --kind {}", h.by_kind, h.kinds.join(",")));
    }
    if h.by_topic > 0 {
        by.push(format!(
            "{} by --topic {}",
            h.by_topic,
            escape(&h.topics.join(","))
        ));
    }
    if let (n @ 1.., Some(sev)) = (h.by_min_severity, h.min_severity) {
        by.push(format!("{n} by --min-severity {sev}"));
    }
    let hidden = h.by_kind + h.by_topic + h.by_min_severity;
    Some(match hidden {
        0 => format!("the filters hid none of {} finding(s)", h.total),
        _ => format!(
            "{hidden} of {} finding(s) hidden: {}",
            h.total,
            by.join(", ")
        ),
    })
}

/// Findings per code, then bytes per log dir.
fn write_code_and_dir_grids(
    b: &DiagnoseBody,
    style: &TableStyle,
    out: &mut dyn Write,
) -> io::Result<()> {
    if !b.by_code.is_empty() {
        writeln!(out)?;
        let rows = b
            .by_code
            .iter()
            .map(|c| {
                vec![
                    c.code.to_string(),
                    c.severity.to_string(),
                    c.findings.to_string(),
                    c.partitions.to_string(),
                ]
            })
            .collect();
        let h = [
            ("code", Align::Left),
            ("severity", Align::Left),
            ("findings", Align::Right),
            ("partitions", Align::Right),
        ];
        write!(out, "{}", grid(&h, rows, style.width))?;
    }
    if !b.log_dirs.is_empty() {
        writeln!(out)?;
        let rows = b
            .log_dirs
            .iter()
            .map(|d| {
                vec![
                    shorten_path(&escape_path(&d.path), style.width / 2),
                    d.partitions.to_string(),
                    size(d.bytes),
                    size(d.freed_bytes),
                    d.freed_segments.to_string(),
                ]
            })
            .collect();
        let h = [
            ("log dir", Align::Left),
            ("planned", Align::Right),
            ("bytes", Align::Right),
            ("next pass frees", Align::Right),
            ("segments", Align::Right),
        ];
        write!(out, "{}", grid(&h, rows, style.width))?;
    }
    Ok(())
}

/// The next start's recovery and the disk projection per log dir, when there are any.
fn write_figures_grid(b: &DiagnoseBody, style: &TableStyle, out: &mut dyn Write) -> io::Result<()> {
    if b.log_dirs
        .iter()
        .any(|d| d.startup.is_some() || d.disk.is_some())
    {
        writeln!(out)?;
        write_words(
            out,
            "next start and disk (recovery estimated at 45 MB/s per recovery thread):",
            style,
        )?;
        let rows = b
            .log_dirs
            .iter()
            .map(|d| figures_row(d, style.width))
            .collect();
        let h = [
            ("log dir", Align::Left),
            ("start recovers", Align::Right),
            ("est.", Align::Right),
            ("free / total", Align::Right),
            ("growth", Align::Right),
            ("full in", Align::Right),
        ];
        write!(out, "{}", grid(&h, rows, style.width))?;
    }
    Ok(())
}

/// The partitions keeping the most bytes after the next pass (at most ten, none of 0 bytes;
/// their log dir only when there are several), and how many more hold bytes.
fn write_top_partitions(
    b: &DiagnoseBody,
    style: &TableStyle,
    out: &mut dyn Write,
) -> io::Result<()> {
    if b.top_partitions.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(
        out,
        "top partitions by bytes kept after the next retention pass:"
    )?;
    let several_dirs = b.log_dirs.len() > 1;
    let rows = b
        .top_partitions
        .iter()
        .map(|p| {
            let mut row = vec![format!("{}-{}", escape(&p.topic), p.partition)];
            if several_dirs {
                row.push(shorten_path(&escape_path(&p.log_dir), style.width / 3));
            }
            row.extend([size(p.retained_bytes), size(p.bytes), size(p.freed_bytes)]);
            row
        })
        .collect();
    let mut h = vec![("partition", Align::Left)];
    if several_dirs {
        h.push(("log dir", Align::Left));
    }
    h.extend([
        ("kept", Align::Right),
        ("bytes", Align::Right),
        ("freed", Align::Right),
    ]);
    write!(out, "{}", grid(&h, rows, style.width))?;
    if b.more_partitions > 0 {
        writeln!(
            out,
            "  and {} more partition(s) holding bytes",
            b.more_partitions
        )?;
    }
    Ok(())
}
