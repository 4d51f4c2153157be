//! Tables for people: one line per log dir, one per partition and its segments table, the
//! summary (findings are diagnostics: [`super::diagnostics`]). Every line fits [`TableStyle::width`] ([`super::terminal`]); every
//! name or value read from disk goes through [`escape`] first.
//!
//! Segment times name their zone in the header (`largest timestamp (UTC)`), or, with
//! `--local-time`, each carries its UTC offset. Segments table, fullest layout first; when it does not fit, in this order: drop `txn`; merge
//! `index` and `timeindex` into `index / time` (`3 / 3`); drop `records`; drop
//! `first timestamp`; drop `batches`; drop `index / time`. `segment`, `size`, `offsets` and
//! `largest timestamp` always stay; narrower still, each segment is a record of
//! `header: value` lines. The table is written row by row ([`write_layouts`]), never held
//! whole.

use std::io::{self, Write};

use humansize::{format_size, BINARY};

use super::human::{age, time, time_without_zone, Precision, Zone};
use super::sanitize::escape;
use super::stream_table::{write_layouts, Column};
use super::terminal::{fit_atoms, shorten_path, words, Align, Cell};
use super::wire::{IndexDoc, InspectDoc, MetadataLogDoc, PartitionDoc, SegmentDoc};
use crate::model::mode::LogDirMode;

/// Table rendering settings of one run.
#[derive(Debug, Clone, Copy)]
pub struct TableStyle {
    /// Colour severities.
    pub color: bool,
    /// Terminal columns every line fits in ([`super::terminal::detect_width`]).
    pub width: usize,
    /// Zone times are shown in.
    pub zone: Zone,
    /// The instant ages are counted from (the run's `evaluated_at_ms`).
    pub evaluated_at_ms: i64,
}

/// What `--verify` checked, for the summary line (counted by the command from the model).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VerifyTotals {
    /// Segments whose batches were verified.
    pub segments: u64,
    /// Bytes of those segments' `.log` files.
    pub bytes: u64,
    /// Batches that passed (CRC, offsets, records decoded).
    pub batches: u64,
    /// CRCs computed: the batches that passed and the first that failed in each segment.
    pub crcs: u64,
    /// Offset indexes checked against the log.
    pub offset_indexes: u64,
    /// Time indexes checked against the log.
    pub time_indexes: u64,
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

impl TableStyle {
    /// A segment-table timestamp (minutes) or `-`: without its zone when the header names it
    /// ([`TableStyle::header_zone`]).
    fn table_time(&self, ms: Option<i64>) -> Option<String> {
        let ms = ms?;
        match self.header_zone() {
            Some(_) => time_without_zone(ms, Precision::Minutes),
            None => time(ms, self.zone, Precision::Minutes),
        }
    }

    /// The zone a table header names (UTC), or None when each time carries its own offset.
    pub fn header_zone(&self) -> Option<&'static str> {
        (self.zone == Zone::Utc).then_some("UTC")
    }

    /// A timestamp with seconds, or `-`.
    fn time_s(&self, ms: i64) -> String {
        time(ms, self.zone, Precision::Seconds).unwrap_or_else(|| "-".to_string())
    }

    /// A timestamp and its age as atoms (`-` alone when there is none).
    /// `table`: as the segment table shows times ([`TableStyle::table_time`]).
    fn time_and_age(
        &self,
        ms: Option<i64>,
        note: Option<&str>,
        precision: Precision,
        table: bool,
    ) -> Vec<String> {
        let shown = |ms| {
            if table {
                self.table_time(Some(ms))
            } else {
                time(ms, self.zone, precision)
            }
        };
        match ms.and_then(|ms| Some((ms, shown(ms)?))) {
            Some((ms, t)) => {
                let age = age(ms, self.evaluated_at_ms);
                let tail = match note {
                    Some(n) => format!("({age}, {n})"),
                    None => format!("({age})"),
                };
                vec![t, tail]
            }
            None => vec!["-".to_string()],
        }
    }
}

fn index_cell(i: &Option<IndexDoc>) -> String {
    match i {
        None => "missing".to_string(),
        Some(i) if i.zero_tail > 0 => format!("{} (+{} zero)", i.valid_entries, i.zero_tail),
        Some(i) if i.valid_entries < i.slots => format!("{} of {} valid", i.valid_entries, i.slots),
        Some(i) => i.valid_entries.to_string(),
    }
}

/// The offsets a segment holds, `first..last`, or `-` when it holds none (an empty segment, or
/// one whose first batch cannot be read); never wraps near `i64::MAX`.
pub fn offsets_cell(s: &SegmentDoc) -> String {
    match (s.first_offset, s.next_offset) {
        (Some(first), Some(next)) if next > first => format!("{first}..{}", next.saturating_sub(1)),
        (Some(first), _) => first.to_string(),
        (None, _) => "-".to_string(),
    }
}

/// Segment table columns, one per [`SegmentColumn`] kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SegmentColumn {
    Segment,
    Size,
    Offsets,
    FirstTimestamp,
    LargestTimestamp,
    Batches,
    Records,
    Index,
    TimeIndex,
    Idx,
    Txn,
}

/// The segment layouts, fullest first (the documented drop order).
const SEGMENT_LAYOUTS: &[&[SegmentColumn]] = {
    use SegmentColumn::*;
    &[
        &[
            Segment,
            Size,
            Offsets,
            FirstTimestamp,
            LargestTimestamp,
            Batches,
            Records,
            Index,
            TimeIndex,
            Txn,
        ],
        &[
            Segment,
            Size,
            Offsets,
            FirstTimestamp,
            LargestTimestamp,
            Batches,
            Records,
            Index,
            TimeIndex,
        ],
        &[
            Segment,
            Size,
            Offsets,
            FirstTimestamp,
            LargestTimestamp,
            Batches,
            Records,
            Idx,
        ],
        &[
            Segment,
            Size,
            Offsets,
            FirstTimestamp,
            LargestTimestamp,
            Batches,
            Idx,
        ],
        &[Segment, Size, Offsets, LargestTimestamp, Batches, Idx],
        &[Segment, Size, Offsets, LargestTimestamp, Idx],
        &[Segment, Size, Offsets, LargestTimestamp],
    ]
};

fn segment_header(c: SegmentColumn, style: &TableStyle) -> (String, Align) {
    use SegmentColumn::*;
    let (name, align) = segment_header_name(c);
    let name = match (c, style.header_zone()) {
        (FirstTimestamp | LargestTimestamp, Some(zone)) => format!("{name} ({zone})"),
        _ => name.to_string(),
    };
    (name, align)
}

fn segment_header_name(c: SegmentColumn) -> (&'static str, Align) {
    use SegmentColumn::*;
    match c {
        Segment => ("segment", Align::Right),
        Size => ("size", Align::Right),
        Offsets => ("offsets", Align::Left),
        FirstTimestamp => ("first timestamp", Align::Left),
        LargestTimestamp => ("largest timestamp", Align::Left),
        Batches => ("batches", Align::Right),
        Records => ("records", Align::Right),
        Index => ("index", Align::Left),
        TimeIndex => ("timeindex", Align::Left),
        Idx => ("index / time", Align::Left),
        Txn => ("txn", Align::Right),
    }
}

fn segment_cell(c: SegmentColumn, s: &SegmentDoc, style: &TableStyle) -> Cell {
    use SegmentColumn::*;
    match c {
        Segment => Cell::atom(s.base_offset.to_string()),
        Size => Cell::atom(format_size(s.size_bytes, BINARY)),
        Offsets => {
            let mut atoms = vec![offsets_cell(s)];
            if s.active {
                atoms.push("(active)".to_string());
            }
            Cell::lines(vec![atoms])
        }
        FirstTimestamp => Cell::atom(
            style
                .table_time(s.first_timestamp_ms)
                .unwrap_or_else(|| "-".to_string()),
        ),
        LargestTimestamp => {
            let mtime = matches!(
                s.largest_timestamp_source,
                Some(crate::report::wire::TimestampSourceDoc::LogMtime)
            );
            let note = mtime.then_some(".log mtime");
            Cell::lines(vec![style.time_and_age(
                s.largest_timestamp_ms,
                note,
                Precision::Minutes,
                true,
            )])
        }
        Batches => Cell::atom(opt(s.batches)),
        Records => Cell::atom(opt(s.records)),
        Index => Cell::lines(vec![words(&index_cell(&s.index))]),
        TimeIndex => Cell::lines(vec![words(&index_cell(&s.time_index))]),
        Idx => {
            let mut atoms = words(&index_cell(&s.index));
            atoms.push("/".to_string());
            atoms.extend(words(&index_cell(&s.time_index)));
            Cell::lines(vec![atoms])
        }
        Txn => Cell::atom(opt(s.aborted_transactions)),
    }
}

/// Every segment column, in the order of the fullest layout ([`SEGMENT_LAYOUTS`] picks from it).
const SEGMENT_COLUMNS: [SegmentColumn; 11] = {
    use SegmentColumn::*;
    [
        Segment,
        Size,
        Offsets,
        FirstTimestamp,
        LargestTimestamp,
        Batches,
        Records,
        Index,
        TimeIndex,
        Idx,
        Txn,
    ]
};

/// The segments table, written row by row ([`write_layouts`]): never held whole.
fn write_segments_table(
    p: &PartitionDoc,
    style: &TableStyle,
    out: &mut dyn Write,
) -> io::Result<()> {
    let columns: Vec<Column> = SEGMENT_COLUMNS
        .iter()
        .map(|c| {
            let (header, align) = segment_header(*c, style);
            Column::new(header, align)
        })
        .collect();
    let layouts: Vec<Vec<usize>> = SEGMENT_LAYOUTS
        .iter()
        .map(|cols| {
            cols.iter()
                .filter_map(|c| SEGMENT_COLUMNS.iter().position(|a| a == c))
                .collect()
        })
        .collect();
    write_layouts(out, style.width, &columns, &layouts, || {
        p.segments.iter().map(|s| {
            SEGMENT_COLUMNS
                .iter()
                .map(|c| segment_cell(*c, s, style))
                .collect()
        })
    })
}

/// Write `atoms` fitted to `style.width`, two spaces apart, continuation lines indented.
pub fn write_fitted(
    out: &mut dyn Write,
    atoms: &[String],
    style: &TableStyle,
    first: &str,
    indent: &str,
) -> io::Result<()> {
    for line in fit_atoms(atoms, style.width, "  ", first, indent) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

fn partition_is_empty(p: &PartitionDoc) -> bool {
    p.segments.iter().all(|s| s.size_bytes == 0)
}

/// The metadata log's line: what it is, its snapshots, the features of its image.
fn metadata_log_line(m: &MetadataLogDoc) -> Vec<String> {
    let mut atoms = vec!["KRaft metadata log".to_string()];
    atoms.push(match m.snapshots.as_slice() {
        [] => "no snapshots".to_string(),
        snaps => format!(
            "snapshots at {}",
            snaps
                .iter()
                .map(|s| s.end_offset.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    });
    if let Some(up_to) = m.complete_up_to {
        atoms.push(format!("image up to offset {up_to}"));
    }
    for (name, level) in &m.features {
        atoms.push(match (name.as_str(), m.metadata_version) {
            ("metadata.version", Some(release)) => format!("metadata.version {level} ({release})"),
            _ => format!("{} {level}", escape(name)),
        });
    }
    if !m.problems.is_empty() {
        atoms.push(format!("{} replay problem(s)", m.problems.len()));
    }
    atoms
}

fn partition_line(p: &PartitionDoc, style: &TableStyle) -> Vec<String> {
    let dir = shorten_path(&escape(&p.dir), style.width);
    let state = format!("[{}]", p.state);
    if partition_is_empty(p) {
        // One short line: no table, and no offsets but where the log starts and ends.
        let what = match p.segments.len() {
            0 => "empty: no segments".to_string(),
            1 => "empty: 1 segment of 0 B".to_string(),
            n => format!("empty: {n} segments of 0 B"),
        };
        let ends = match (p.log_start_offset, p.log_end_offset) {
            (Some(a), Some(b)) if a == b => format!("log start = log end = {a}"),
            (a, b) => format!("log start {}  log end {}", opt(a), opt(b)),
        };
        return vec![dir, state, what, ends];
    }
    vec![
        dir,
        state,
        format!("topic id {}", opt(p.topic_id.as_deref().map(escape))),
        format!("log start {}", opt(p.log_start_offset)),
        format!("log end {}", opt(p.log_end_offset)),
        format!("hw {}", opt(p.high_watermark)),
        format!("recovery point {}", opt(p.recovery_point)),
        format_size(p.size_bytes, BINARY),
    ]
}

fn write_batches(p: &PartitionDoc, style: &TableStyle, out: &mut dyn Write) -> io::Result<()> {
    let Some(batches) = &p.batches else {
        return Ok(());
    };
    for b in batches {
        let mut atoms = vec![
            format!("batch {}..{}", b.base_offset, b.last_offset),
            format!("@{}:{}", b.segment, b.position),
            format!("{} B", b.size),
            format!("magic {}", b.magic),
            b.compression.to_string(),
        ];
        if b.transactional {
            atoms.push("txn".into());
        }
        if b.control {
            atoms.push("control".into());
        }
        if b.producer_id >= 0 {
            atoms.push(format!("pid {}", b.producer_id));
        }
        atoms.push(format!("max ts {}", style.time_s(b.max_timestamp_ms)));
        if let Some(e) = &b.error {
            atoms.push("ERROR".into());
            atoms.extend(words(&escape(e)));
        }
        write_fitted(out, &atoms, style, "  ", "      ")?;
        for r in &b.records {
            let mut atoms = vec![
                r.offset.to_string(),
                style.time_s(r.timestamp_ms),
                format!("key={}", escape(r.key.as_deref().unwrap_or("null"))),
                format!("value={}", escape(r.value.as_deref().unwrap_or("null"))),
            ];
            if let Some(c) = &r.control {
                atoms.push(format!("control={}", escape(c)));
            }
            for h in &r.headers {
                atoms.push(format!("header:{}", escape(h)));
            }
            write_fitted(out, &atoms, style, "    ", "        ")?;
        }
    }
    Ok(())
}

/// The `--verify` line: what was checked, said even when nothing was found.
pub fn verify_line(v: &VerifyTotals) -> Vec<String> {
    vec![
        "verified:".to_string(),
        format!("{} batches,", v.batches),
        format!("{} CRCs,", v.crcs),
        format!("{} of log data", format_size(v.bytes, BINARY)),
        format!("in {} segments;", v.segments),
        format!("{} offset and", v.offset_indexes),
        format!("{} time indexes", v.time_indexes),
        "against the log".to_string(),
    ]
}

/// Render an inspect document (`verify`: what `--verify` checked, when it ran).
pub fn render_inspect(
    doc: &InspectDoc,
    style: &TableStyle,
    verify: Option<&VerifyTotals>,
    out: &mut dyn Write,
) -> io::Result<()> {
    for d in &doc.body.log_dirs {
        let path = shorten_path(&escape(&d.path), style.width.saturating_sub(8));
        let atoms = vec![
            format!("log dir {path}"),
            format!("cluster {}", opt(d.cluster_id.as_deref().map(escape))),
            format!("node {}", opt(d.node_id)),
            match d.mode {
                LogDirMode::KRaft => "KRaft mode (Kafka 3.3+)".to_string(),
                LogDirMode::ZooKeeper => "ZooKeeper mode (Kafka up to 3.9)".to_string(),
                LogDirMode::Unknown => "mode unknown".to_string(),
            },
            if d.clean_shutdown {
                "clean shutdown".to_string()
            } else {
                "NO clean-shutdown marker".to_string()
            },
            match (d.lock.state, d.lock.pid) {
                ("held", Some(pid)) => format!("LOCKED by a running broker (pid {pid})"),
                ("held", None) => "LOCKED by a running broker".to_string(),
                ("unknown", _) => "lock state unknown".to_string(),
                _ => "not locked".to_string(),
            },
        ];
        write_fitted(out, &atoms, style, "", "  ")?;
        for p in &d.partitions {
            let empty = partition_is_empty(p);
            if !empty {
                writeln!(out)?;
            }
            write_fitted(out, &partition_line(p, style), style, "", "  ")?;
            if let Some(m) = &p.metadata_log {
                write_fitted(out, &metadata_log_line(m), style, "  ", "    ")?;
            }
            if !empty {
                write_segments_table(p, style, out)?;
            }
            write_batches(p, style, out)?;
        }
        writeln!(out)?;
    }
    if let Some(t) = super::diagnostics::render_findings(&doc.findings, style) {
        write!(out, "{t}")?;
    }
    let s = &doc.summary;
    let mut atoms = Vec::new();
    if let Some(t) = &s.scanned {
        atoms.extend([
            format!("{} log dir(s),", t.log_dirs),
            format!("{} partition(s),", t.partitions),
            format!("{} segment(s),", t.segments),
            format!("{} of log data;", format_size(t.log_bytes, BINARY)),
        ]);
    }
    atoms.extend([
        "findings:".to_string(),
        format!("{} error,", s.error),
        format!("{} warning,", s.warning),
        format!("{} info", s.info),
    ]);
    for line in fit_atoms(&atoms, style.width, " ", "", "  ") {
        writeln!(out, "{line}")?;
    }
    if let Some(v) = verify {
        for line in fit_atoms(&verify_line(v), style.width, " ", "", "  ") {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segment(first: Option<i64>, next: Option<i64>) -> SegmentDoc {
        SegmentDoc {
            base_offset: first.unwrap_or(0),
            active: false,
            recovered_on_start: false,
            size_bytes: 0,
            first_offset: first,
            next_offset: next,
            first_timestamp_ms: None,
            first_batch_max_timestamp_ms: None,
            largest_timestamp_ms: None,
            largest_timestamp_source: None,
            largest_timestamp_on_disk_ms: None,
            batches: None,
            records: None,
            codecs: Vec::new(),
            transactional_batches: None,
            control_batches: None,
            log_end: "clean",
            index: None,
            time_index: None,
            aborted_transactions: None,
        }
    }

    #[test]
    fn offsets_of_empty_and_extreme_segments() {
        assert_eq!(offsets_cell(&segment(None, Some(0))), "-");
        assert_eq!(offsets_cell(&segment(None, Some(42))), "-");
        assert_eq!(offsets_cell(&segment(Some(0), Some(4))), "0..3");
        assert_eq!(offsets_cell(&segment(Some(7), Some(7))), "7");
        let max = i64::MAX;
        assert_eq!(
            offsets_cell(&segment(Some(max - 1), Some(max))),
            format!("{}..{}", max - 1, max - 1)
        );
        assert_eq!(
            offsets_cell(&segment(Some(max), Some(i64::MIN))),
            max.to_string()
        );
    }
}
