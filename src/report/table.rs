//! Tables for people: one per partition, then the findings. Sizes with humansize, times in the
//! local time zone.

use std::io::{self, Write};

use comfy_table::{
    presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, Color, ContentArrangement, Table,
};
use humansize::{format_size, BINARY};

use crate::checks::finding::{Finding, Severity};

use super::wire::{IndexDoc, InspectDoc, PartitionDoc};

/// Table rendering options.
#[derive(Debug, Clone, Copy)]
pub struct TableStyle {
    /// Colour severities.
    pub color: bool,
}

/// A timestamp in local time, or `-`.
pub fn local_time(ms: Option<i64>) -> String {
    use chrono::TimeZone;
    match ms.and_then(|ms| chrono::Local.timestamp_millis_opt(ms).single()) {
        Some(t) if ms.unwrap_or(-1) >= 0 => t.format("%Y-%m-%d %H:%M:%S").to_string(),
        _ => "-".to_string(),
    }
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

fn index_cell(i: &Option<IndexDoc>) -> String {
    match i {
        None => "missing".to_string(),
        Some(i) if i.zero_tail > 0 => format!("{} (+{} zero)", i.valid_entries, i.zero_tail),
        Some(i) if i.valid_entries < i.slots => format!("{} of {} valid", i.valid_entries, i.slots),
        Some(i) => i.valid_entries.to_string(),
    }
}

fn new_table() -> Table {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic);
    t
}

fn partition_table(p: &PartitionDoc) -> Table {
    let mut t = new_table();
    t.set_header([
        "segment",
        "size",
        "offsets",
        "first timestamp",
        "largest timestamp",
        "batches",
        "records",
        "index",
        "timeindex",
        "txn",
    ]);
    for s in &p.segments {
        let offsets = format!(
            "{}..{}{}",
            opt(s.first_offset),
            opt(s.next_offset.map(|n| n - 1)),
            if s.active { " (active)" } else { "" }
        );
        let largest = match s.largest_timestamp_source {
            Some(crate::model::segment::TimestampSource::LogMtime) => {
                format!("{} (mtime)", local_time(s.largest_timestamp_ms))
            }
            _ => local_time(s.largest_timestamp_ms),
        };
        t.add_row(vec![
            Cell::new(s.base_offset).set_alignment(CellAlignment::Right),
            Cell::new(format_size(s.size_bytes, BINARY)).set_alignment(CellAlignment::Right),
            Cell::new(offsets),
            Cell::new(local_time(s.first_timestamp_ms)),
            Cell::new(largest),
            Cell::new(opt(s.batches)).set_alignment(CellAlignment::Right),
            Cell::new(opt(s.records)).set_alignment(CellAlignment::Right),
            Cell::new(index_cell(&s.index)),
            Cell::new(index_cell(&s.time_index)),
            Cell::new(opt(s.aborted_transactions)),
        ]);
    }
    t
}

fn severity_cell(s: Severity, color: bool) -> Cell {
    let c = Cell::new(format!("{s:?}").to_lowercase());
    if !color {
        return c;
    }
    match s {
        Severity::Error => c.fg(Color::Red),
        Severity::Warning => c.fg(Color::Yellow),
        Severity::Info => c.fg(Color::Cyan),
    }
}

/// The findings table (empty string when there are none).
pub fn findings_table(findings: &[Finding], style: TableStyle) -> Option<Table> {
    if findings.is_empty() {
        return None;
    }
    let mut t = new_table();
    t.set_header(["severity", "code", "where", "what", "fix"]);
    for f in findings {
        let mut place = f
            .location
            .partition
            .clone()
            .unwrap_or_else(|| f.location.log_dir.display().to_string());
        if let Some(file) = &f.location.file {
            place = file.display().to_string();
        }
        if let Some(b) = f.location.byte_offset {
            place.push_str(&format!(" @{b}"));
        }
        let mut what = f.message.clone();
        for e in &f.evidence {
            what.push_str("\n  ");
            what.push_str(e);
        }
        t.add_row(vec![
            severity_cell(f.severity, style.color),
            Cell::new(f.code),
            Cell::new(place),
            Cell::new(what),
            Cell::new(f.fix.clone().unwrap_or_default()),
        ]);
    }
    Some(t)
}

/// Render an inspect document.
pub fn render_inspect(doc: &InspectDoc, style: TableStyle, out: &mut dyn Write) -> io::Result<()> {
    for d in &doc.log_dirs {
        writeln!(
            out,
            "log dir {}  cluster {}  node {}  {}",
            d.path,
            opt(d.cluster_id.as_ref()),
            opt(d.node_id),
            if d.clean_shutdown {
                "clean shutdown"
            } else {
                "NO clean-shutdown marker"
            }
        )?;
        for p in &d.partitions {
            writeln!(out)?;
            writeln!(
                out,
                "{}  [{}]  topic id {}  log start {}  log end {}  hw {}  recovery point {}  {}",
                p.dir,
                p.state,
                opt(p.topic_id.as_ref()),
                opt(p.log_start_offset),
                opt(p.log_end_offset),
                opt(p.high_watermark),
                opt(p.recovery_point),
                format_size(p.size_bytes, BINARY),
            )?;
            if !p.segments.is_empty() {
                writeln!(out, "{}", partition_table(p))?;
            }
            if let Some(batches) = &p.batches {
                for b in batches {
                    writeln!(
                        out,
                        "  batch {}..{} @{}:{} {} B magic {} {}{}{}{} max ts {}{}",
                        b.base_offset,
                        b.last_offset,
                        b.segment,
                        b.position,
                        b.size,
                        b.magic,
                        b.compression,
                        if b.transactional { " txn" } else { "" },
                        if b.control { " control" } else { "" },
                        if b.producer_id >= 0 {
                            format!(" pid {}", b.producer_id)
                        } else {
                            String::new()
                        },
                        local_time(Some(b.max_timestamp_ms)),
                        b.error
                            .as_ref()
                            .map(|e| format!("  ERROR {e}"))
                            .unwrap_or_default(),
                    )?;
                    for r in &b.records {
                        write!(
                            out,
                            "    {} {} key={} value={}",
                            r.offset,
                            local_time(Some(r.timestamp_ms)),
                            r.key.as_deref().unwrap_or("null"),
                            r.value.as_deref().unwrap_or("null"),
                        )?;
                        if let Some(c) = &r.control {
                            write!(out, " control={c}")?;
                        }
                        for h in &r.headers {
                            write!(out, " header:{h}")?;
                        }
                        writeln!(out)?;
                    }
                }
            }
        }
        writeln!(out)?;
    }
    if let Some(t) = findings_table(&doc.findings, style) {
        writeln!(out, "{t}")?;
    }
    let s = &doc.summary;
    writeln!(
        out,
        "{} log dir(s), {} partition(s), {} segment(s), {} of log data; findings: {} error, {} warning, {} info",
        s.log_dirs,
        s.partitions,
        s.segments,
        format_size(s.log_bytes, BINARY),
        s.error,
        s.warning,
        s.info
    )
}
