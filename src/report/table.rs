//! Tables for people: one per partition, then the findings. Sizes with humansize, segment times
//! in the local time zone, evidence timestamps in RFC 3339 UTC. Every name or value read from
//! disk goes through [`escape`] first.

use std::io::{self, Write};

use comfy_table::{
    presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, Color, ContentArrangement, Table,
};
use humansize::{format_size, BINARY};

use super::sanitize::escape;
use super::wire::findings::{EvidenceDoc, EvidenceValueDoc, FindingDoc};
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

fn severity_cell(s: &str, color: bool) -> Cell {
    let c = Cell::new(s);
    if !color {
        return c;
    }
    match s {
        "error" => c.fg(Color::Red),
        "warning" => c.fg(Color::Yellow),
        _ => c.fg(Color::Cyan),
    }
}

/// An evidence value as people read it: sizes with humansize (and the exact count past 1 KiB),
/// timestamps in RFC 3339 UTC, CRCs in hex, text and paths escaped.
pub fn evidence_value(e: &EvidenceDoc) -> String {
    use EvidenceValueDoc as V;
    match (e.kind, &e.value) {
        ("bytes", V::Unsigned(b)) if *b >= 1024 => {
            format!("{} ({b} bytes)", format_size(*b, BINARY))
        }
        ("bytes", V::Unsigned(b)) => format!("{b} bytes"),
        ("timestamp_ms", V::Int(ms)) => utc_time(*ms),
        ("crc32", V::Unsigned(c)) => format!("0x{c:08x}"),
        (_, V::Int(v)) => v.to_string(),
        (_, V::Unsigned(v)) => v.to_string(),
        (_, V::Flag(b)) => if *b { "yes" } else { "no" }.to_string(),
        (_, V::Text(t)) => escape(t).into_owned(),
    }
}

/// Milliseconds since the epoch as RFC 3339 UTC (negative values are Kafka's "no timestamp").
pub fn utc_time(ms: i64) -> String {
    match chrono::DateTime::from_timestamp_millis(ms) {
        Some(t) if ms >= 0 => t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        _ => format!("{ms} (no timestamp)"),
    }
}

/// Evidence lines: `name: value`, one per item, except that the items after a `problem` item
/// (one example of a bounded summary) share its line.
pub fn evidence_lines(evidence: &[EvidenceDoc]) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut in_example = false;
    for e in evidence {
        let item = format!("{}: {}", e.name, evidence_value(e));
        match lines.last_mut() {
            Some(line) if in_example && e.kind != "problem" => {
                line.push_str(", ");
                line.push_str(&item);
            }
            _ => lines.push(item),
        }
        if e.kind == "problem" {
            in_example = true;
        }
    }
    lines
}

/// The findings table (None when there are none).
pub fn findings_table(findings: &[FindingDoc], style: TableStyle) -> Option<Table> {
    if findings.is_empty() {
        return None;
    }
    let mut t = new_table();
    t.set_header(["severity", "code", "where", "what", "fix"]);
    for f in findings {
        let l = &f.location;
        let mut place = match (&l.file, &l.dir) {
            (Some(file), _) => escape(file).into_owned(),
            (None, Some(dir)) => escape(dir).into_owned(),
            (None, None) => escape(&l.log_dir).into_owned(),
        };
        if let Some(b) = l.byte_offset {
            place.push_str(&format!(" @{b}"));
        }
        let mut what = escape(&f.message).into_owned();
        for line in evidence_lines(&f.evidence) {
            what.push_str("\n  ");
            what.push_str(&line);
        }
        t.add_row(vec![
            severity_cell(f.severity, style.color),
            Cell::new(f.code),
            Cell::new(place),
            Cell::new(what),
            Cell::new(escape(&f.fix)),
        ]);
    }
    Some(t)
}

/// Render an inspect document.
pub fn render_inspect(doc: &InspectDoc, style: TableStyle, out: &mut dyn Write) -> io::Result<()> {
    for d in &doc.body.log_dirs {
        writeln!(
            out,
            "log dir {}  cluster {}  node {}  {}",
            escape(&d.path),
            opt(d.cluster_id.as_deref().map(escape)),
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
                escape(&p.dir),
                p.state,
                opt(p.topic_id.as_deref().map(escape)),
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
                            .map(|e| format!("  ERROR {}", escape(e)))
                            .unwrap_or_default(),
                    )?;
                    for r in &b.records {
                        write!(
                            out,
                            "    {} {} key={} value={}",
                            r.offset,
                            local_time(Some(r.timestamp_ms)),
                            escape(r.key.as_deref().unwrap_or("null")),
                            escape(r.value.as_deref().unwrap_or("null")),
                        )?;
                        if let Some(c) = &r.control {
                            write!(out, " control={}", escape(c))?;
                        }
                        for h in &r.headers {
                            write!(out, " header:{}", escape(h))?;
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
    if let Some(t) = &s.scanned {
        write!(
            out,
            "{} log dir(s), {} partition(s), {} segment(s), {} of log data; ",
            t.log_dirs,
            t.partitions,
            t.segments,
            format_size(t.log_bytes, BINARY),
        )?;
    }
    writeln!(
        out,
        "findings: {} error, {} warning, {} info",
        s.error, s.warning, s.info
    )
}
