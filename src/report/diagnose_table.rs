//! The `diagnose` table: the headline (per log dir: space, time to full, what frees it, who
//! holds it; what it assumes), the findings as diagnostics ([`render_findings`], most severe
//! first), then the details (counts by code, log dirs, next start and disk, top partitions).

use std::io::{self, Write};

use humansize::{format_size, BINARY};
use serde::Serialize;

use crate::plan::replication::ReplicationFacts;

use super::diagnostics::{render_findings, wrap};
use super::human::{age, time, Precision};
use super::sanitize::{escape, escape_path};
use super::table::{write_fitted, TableStyle};
use super::terminal::{fit_atoms, render_layouts, shorten_path, words, Align, Cell, Grid};
use super::wire::Envelope;

use crate::diagnose::headline::{HeadlineAssumptions, TimeToFull};
use crate::diagnose::summary::{CodeCount, Hidden, LogDirTotals, PartitionBytes};
use crate::diagnose::{Headline, Summary};
use crate::model::lock::LockState;

/// The `diagnose` document's own keys: the headline, then the summary's parts at the top level.
#[derive(Debug, Serialize)]
pub struct DiagnoseBody {
    /// Per log dir the answer first, and what it assumes (docs/json.md).
    pub headline: Headline,
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
    /// The replicated partitions' facts: what `logclean join` reads from each broker's report
    /// (absent from a body not made for JSON).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replication: Option<ReplicationFacts>,
}

impl DiagnoseBody {
    /// The body of `headline` and `summary`.
    pub fn new(headline: Headline, summary: Summary) -> DiagnoseBody {
        DiagnoseBody {
            headline,
            by_code: summary.by_code,
            log_dirs: summary.log_dirs,
            top_partitions: summary.top_partitions,
            more_partitions: summary.more_partitions,
            hidden: summary.hidden,
            replication: None,
        }
    }

    /// With the replication facts `logclean join` reads.
    pub fn with_replication(mut self, facts: ReplicationFacts) -> DiagnoseBody {
        self.replication = Some(facts);
        self
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
                match d.disk.as_ref().filter(|x| x.start_lacks_space()) {
                    Some(_) => format!("fails: needs {} free", size(c.boot.needs_bytes)),
                    None => format!("{:.1} s", c.estimated_ms as f64 / 1000.0),
                },
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
            let growth = match &x.growth_unknown {
                Some(_) => "unknown".to_string(),
                None => format!("{}/h", size(x.growth_bytes_per_hour)),
            };
            // Without a time it is unknown, not "never" (the headline says why).
            let full = x.ms_until_full.map_or_else(|| "unknown".to_string(), span);
            (space, growth, full)
        },
    );
    vec![path, recovers, est, space, growth, full]
}

/// How a broker's hold on a log dir reads.
fn lock_text(l: LockState) -> String {
    match l {
        LockState::NoLockFile => "no broker holds it (no .lock)".to_string(),
        LockState::Unlocked => "no broker holds it (.lock not locked)".to_string(),
        LockState::HeldBy { pid: Some(pid) } => {
            format!("a running broker holds it (.lock locked by pid {pid}): repairs refuse it")
        }
        LockState::HeldBy { pid: None } => {
            "a running broker holds it (.lock locked): repairs refuse it".to_string()
        }
        LockState::Unknown => "whether a broker holds it is unknown (.lock not probed)".to_string(),
    }
}

/// Time to full in words.
fn full_text(t: &TimeToFull, style: &TableStyle) -> String {
    match t {
        TimeToFull::Known {
            ms,
            at_ms,
            growth_bytes_per_hour,
        } => format!(
            "full in {} ({}) at {}/h",
            span(*ms),
            time(*at_ms, style.zone, Precision::Minutes).unwrap_or_default(),
            size(*growth_bytes_per_hour)
        ),
        TimeToFull::Unknown { because } => format!("time to full unknown: {because}"),
    }
}

/// What the answers assume, in one sentence.
fn assumes_text(a: &HeadlineAssumptions) -> String {
    let configs = match (a.topics_on_assumed_configs, a.unread_config_sources) {
        (0, 0) => "every deciding config read".to_string(),
        (0, n) => format!("{n} config source(s) not read (no topic depends on them)"),
        (t, _) => {
            format!("{t} topic(s) on assumed config values (ASSUMED CONFIGS after the findings)")
        }
    };
    let mut hw = match a.partitions_with_assumed_hw {
        0 => "HW from the checkpoints and roles".to_string(),
        n => format!(
            "HW assumed from the checkpoint for {n} partition(s) (leader HW or role unknown)"
        ),
    };
    if a.followers_without_leader_dirs > 0 {
        hw.push_str(&format!(
            ", the leader's dirs not given for {} follower(s) (the leader's log start unknown: \
             a follower deletes below it, so the next pass may free more)",
            a.followers_without_leader_dirs
        ));
    }
    // Disjoint from the checkpoint-assumed count: "more" when both are there.
    match (
        a.partitions_with_assumed_hw,
        a.partitions_with_assumed_leader,
    ) {
        (_, 0) => {}
        (0, l) => hw.push_str(&format!(
            ", the leader assumed elected on restart for {l} partition(s) (no leader in the \
             metadata log)"
        )),
        (_, l) => hw.push_str(&format!(
            ", the leader assumed elected on restart for {l} more (no leader in the metadata \
             log)"
        )),
    }
    let upload = match (a.tiered_partitions, a.partitions_with_unknown_upload_state) {
        (0, _) => "no tiered partitions".to_string(),
        (t, 0) => format!("upload state read for {t} tiered partition(s)"),
        (t, n) => format!("upload state unknown for {n} of {t} tiered partition(s)"),
    };
    let mut version = a.kafka_version.clone();
    if let Some(x) = &a.kafka_version_assumption {
        version.push_str(&format!(" (assumed: {x})"));
    }
    format!("assumes: {configs}; {hw}; {upload}; {version}")
}

/// The headline: per log dir its space, time to full, what frees it and who holds it; then what
/// it all assumes.
fn write_headline(h: &Headline, style: &TableStyle, out: &mut dyn Write) -> io::Result<()> {
    let w = style.width;
    for d in &h.log_dirs {
        writeln!(out, "{}", escape_path(&d.path))?;
        let space = match (d.fs_free_bytes, d.fs_total_bytes) {
            (Some(f), Some(t)) => format!("free {} of {}", size(f), size(t)),
            _ => "free space unknown".to_string(),
        };
        let used = match d.on_disk_bytes {
            Some(b) => format!("logs {} ({} on disk)", size(d.used_bytes), size(b)),
            None => format!("logs {}", size(d.used_bytes)),
        };
        let line = format!("{used}, {space}; {}", full_text(&d.time_to_full, style));
        let fixes = match d.fixes_freeing {
            0 => "no fix below frees space at once".to_string(),
            n => format!(
                "the fixes below free {} ({n} finding(s))",
                size(d.fixes_free_bytes)
            ),
        };
        let frees = format!(
            "next retention pass frees {} ({} segment(s)); {fixes}",
            size(d.next_pass_frees_bytes),
            d.next_pass_frees_segments
        );
        for text in [line, frees, lock_text(d.lock)] {
            for l in wrap("  ", &text, "    ", w) {
                writeln!(out, "{l}")?;
            }
        }
    }
    for l in wrap("", &escape(&assumes_text(&h.assumes)), "  ", w) {
        writeln!(out, "{l}")?;
    }
    Ok(())
}

/// Render the `diagnose` table: the scan line, the headline, the findings as diagnostics (most
/// severe first), then the details (findings per code, per log dir, next start and disk, top
/// partitions). The details come after the findings rather than behind a flag: the first screen
/// answers, and the rest is still there for a ticket.
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
    let b = &doc.body;
    write_headline(&b.headline, style, out)?;
    writeln!(
        out,
        "findings: {} error, {} warning, {} info{}",
        s.error,
        s.warning,
        s.info,
        if s.error + s.warning + s.info > 1 {
            " (most severe first)"
        } else {
            ""
        }
    )?;
    if let Some(h) = b.hidden.as_ref().and_then(hidden_words) {
        write_words(out, &format!("filtered: {h}"), style)?;
    }
    writeln!(out)?;
    match render_findings(&doc.findings, style) {
        Some(t) => write!(out, "{t}")?,
        None => match b.hidden.as_ref().and_then(hidden_words) {
            Some(h) => write_words(out, &format!("no findings: {h}"), style)?,
            None => writeln!(out, "no findings")?,
        },
    }
    if doc.assumptions.as_ref().is_some_and(|a| !a.is_empty()) {
        writeln!(out)?;
    }
    super::assumptions::write_assumptions(doc.assumptions.as_ref(), style.width, out)?;
    write_code_and_dir_grids(b, style, out)?;
    write_figures_grid(b, style, out)?;
    write_space_grid(b, style, out)?;
    write_top_partitions(b, style, out)
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
        for d in &b.log_dirs {
            let path = shorten_path(&escape_path(&d.path), style.width / 3);
            if let Some(c) = &d.startup {
                let free = d.disk.as_ref().and_then(|x| x.fs_free_bytes);
                let needs = format!(
                    "{path}: the next start needs at least {} free{}; it writes {} producer \
                     snapshot(s), {} of index pages, {} of checkpoints",
                    size(c.boot.needs_bytes),
                    free.map_or_else(String::new, |f| format!(" ({} free)", size(f))),
                    c.boot.snapshot_files,
                    size(c.boot.index_bytes),
                    size(c.boot.other_bytes),
                );
                for line in wrap("  ", &needs, "    ", style.width) {
                    writeln!(out, "{line}")?;
                }
            }
            if let Some(why) = d.disk.as_ref().and_then(|x| x.growth_unknown.as_ref()) {
                for line in wrap(
                    "  ",
                    &format!("{path}: growth unknown: {why}"),
                    "    ",
                    style.width,
                ) {
                    writeln!(out, "{line}")?;
                }
            }
        }
    }
    Ok(())
}

/// Why each byte is there, per log dir (allocated bytes; the reasons sum to `du -s`).
pub fn write_space_grid(
    b: &DiagnoseBody,
    style: &TableStyle,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut rows = Vec::new();
    for d in &b.log_dirs {
        let Some(s) = &d.space else { continue };
        let path = shorten_path(&escape_path(&d.path), style.width / 3);
        for r in &s.by_reason {
            rows.push(vec![
                path.clone(),
                r.reason.replace('_', " "),
                size(r.bytes),
                r.files.to_string(),
            ]);
        }
        rows.push(vec![
            path,
            "total (du -s)".to_string(),
            size(s.allocated_bytes),
            String::new(),
        ]);
    }
    if rows.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(out, "why every byte is here (allocated blocks):")?;
    let h = [
        ("log dir", Align::Left),
        ("reason", Align::Left),
        ("bytes", Align::Right),
        ("entries", Align::Right),
    ];
    write!(out, "{}", grid(&h, rows, style.width))
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
