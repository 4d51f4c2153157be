//! The `groups` document as tables for people: a header line, what `--group` / `--topic` kept,
//! the groups, one line per group, topic and partition as `kafka-consumer-groups.sh --describe`
//! prints them (no borders, Kafka's column names) plus what the next retention pass does to it,
//! which partitions are on other brokers, the deleted groups and the findings.
//!
//! Offsets table, fullest layout first; when it does not fit, in this order: drop `EXPIRES`;
//! drop `LAST-COMMIT`; drop `LOG-START-OFFSET`; drop `LOG-END-OFFSET`. `GROUP`, `TOPIC`,
//! `PARTITION`, `CURRENT-OFFSET`, `LAG` and `NEXT-RETENTION` always stay; narrower still, each
//! row is a record of `HEADER: value` lines. Every cell is one atom: a row is one line. Both
//! tables are written row by row ([`write_plain_layouts`]), never held whole.

use std::io::{self, Write};

use super::diagnostics::render_findings;
use super::groups_doc::{GroupDoc, GroupRowDoc, GroupsBody, GroupsDoc};
use super::human::{age, time, time_without_zone, Precision};
use super::sanitize::escape;
use super::stream_grid::write_plain_layouts;
use super::table::TableStyle;
use super::terminal::{fit_atoms, words, Align};

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

/// A time in a column whose header names the zone (`2026-12-01 11:04`), or with its zone under
/// `--local-time`; `age`: followed by its age (`(55 min ago)`). One atom: never split.
fn at(ms: Option<i64>, style: &TableStyle, with_age: bool) -> String {
    let Some(ms) = ms else {
        return "-".to_string();
    };
    let t = match style.header_zone() {
        Some(_) => time_without_zone(ms, Precision::Minutes),
        None => time(ms, style.zone, Precision::Minutes),
    };
    match (t, with_age) {
        (Some(t), true) => format!("{t} ({})", age(ms, style.evaluated_at_ms)),
        (Some(t), false) => t,
        (None, _) => "-".to_string(),
    }
}

/// A time column's header: `NAME (UTC)`, or `NAME` when each time carries its offset.
fn time_header(name: &str, style: &TableStyle) -> String {
    match style.header_zone() {
        Some(zone) => format!("{name} ({zone})"),
        None => name.to_string(),
    }
}

/// Write `text` as lines fitted to the table width.
fn fit(out: &mut dyn Write, style: &TableStyle, text: &str) -> io::Result<()> {
    for line in fit_atoms(&words(text), style.width, " ", "", "  ") {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// The groups table: one row per group; narrower, without `KIND` and `COORDINATOR`.
fn write_groups_table(
    groups: &[GroupDoc],
    style: &TableStyle,
    out: &mut dyn Write,
) -> io::Result<()> {
    let columns = [
        ("GROUP".to_string(), Align::Left),
        ("KIND".to_string(), Align::Left),
        ("STATE".to_string(), Align::Left),
        ("MEMBERS".to_string(), Align::Right),
        ("COORDINATOR".to_string(), Align::Right),
        (time_header("LAST-COMMIT", style), Align::Left),
    ];
    let layouts = [vec![0, 1, 2, 3, 4, 5], vec![0, 2, 3, 5]];
    write_plain_layouts(out, style.width, &columns, &layouts, || {
        groups.iter().map(|g| {
            vec![
                escape(&g.group).into_owned(),
                format!("{:?}", g.kind).to_lowercase(),
                g.state.to_string(),
                g.members.to_string(),
                g.coordinator_partition.to_string(),
                at(g.last_commit_ms, style, true),
            ]
        })
    })
}

/// A column of the offsets table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OffsetColumn {
    Group,
    Topic,
    Partition,
    CurrentOffset,
    LogStartOffset,
    LogEndOffset,
    Lag,
    NextRetention,
    LastCommit,
    Expires,
}

/// The offsets layouts, fullest first: the documented drop order (module doc).
const OFFSET_LAYOUTS: &[&[OffsetColumn]] = {
    use OffsetColumn::*;
    const CORE: [OffsetColumn; 4] = [Group, Topic, Partition, CurrentOffset];
    &[
        &[
            CORE[0],
            CORE[1],
            CORE[2],
            CORE[3],
            LogStartOffset,
            LogEndOffset,
            Lag,
            NextRetention,
            LastCommit,
            Expires,
        ],
        &[
            CORE[0],
            CORE[1],
            CORE[2],
            CORE[3],
            LogStartOffset,
            LogEndOffset,
            Lag,
            NextRetention,
            LastCommit,
        ],
        &[
            CORE[0],
            CORE[1],
            CORE[2],
            CORE[3],
            LogStartOffset,
            LogEndOffset,
            Lag,
            NextRetention,
        ],
        &[
            CORE[0],
            CORE[1],
            CORE[2],
            CORE[3],
            LogEndOffset,
            Lag,
            NextRetention,
        ],
        &[CORE[0], CORE[1], CORE[2], CORE[3], Lag, NextRetention],
    ]
};

fn offset_header(c: OffsetColumn, style: &TableStyle) -> (String, Align) {
    use OffsetColumn::*;
    let (name, align) = match c {
        Group => ("GROUP", Align::Left),
        Topic => ("TOPIC", Align::Left),
        Partition => ("PARTITION", Align::Right),
        CurrentOffset => ("CURRENT-OFFSET", Align::Right),
        LogStartOffset => ("LOG-START-OFFSET", Align::Right),
        LogEndOffset => ("LOG-END-OFFSET", Align::Right),
        Lag => ("LAG", Align::Right),
        NextRetention => ("NEXT-RETENTION", Align::Left),
        LastCommit => return (time_header("LAST-COMMIT", style), Align::Left),
        Expires => return (time_header("EXPIRES", style), Align::Left),
    };
    (name.to_string(), align)
}

/// What the next retention pass does to the row, in one atom: where the group is reset and
/// how many records it skips, or the new log start when the group is not behind it.
fn next_retention(r: &GroupRowDoc) -> String {
    match &r.next_retention {
        None => "-".to_string(),
        Some(n) => match n.reset_to {
            Some(to) => format!("resets to {to}, skips {}", n.skipped),
            None => format!("ok (log start {})", n.new_log_start_offset),
        },
    }
}

fn offset_cell(c: OffsetColumn, r: &GroupRowDoc, style: &TableStyle) -> String {
    use OffsetColumn::*;
    match c {
        Group => escape(&r.group).into_owned(),
        Topic => escape(&r.topic).into_owned(),
        Partition => r.partition.to_string(),
        CurrentOffset => r.current_offset.to_string(),
        LogStartOffset => opt(r.log_start_offset),
        LogEndOffset => opt(r.log_end_offset),
        Lag => opt(r.lag),
        NextRetention => next_retention(r),
        LastCommit => at(Some(r.last_commit_ms), style, false),
        Expires => at(r.expires_at_ms, style, false),
    }
}

/// One line per group, topic and partition, in the layouts of [`OFFSET_LAYOUTS`] (the first
/// holds every column).
fn write_offsets_table(
    rows: &[GroupRowDoc],
    style: &TableStyle,
    out: &mut dyn Write,
) -> io::Result<()> {
    let all: &[OffsetColumn] = OFFSET_LAYOUTS.first().copied().unwrap_or_default();
    let columns: Vec<(String, Align)> = all.iter().map(|c| offset_header(*c, style)).collect();
    let layouts: Vec<Vec<usize>> = OFFSET_LAYOUTS
        .iter()
        .map(|cols| {
            cols.iter()
                .filter_map(|c| all.iter().position(|a| a == c))
                .collect()
        })
        .collect();
    write_plain_layouts(out, style.width, &columns, &layouts, || {
        rows.iter()
            .map(|r| all.iter().map(|c| offset_cell(*c, r, style)).collect())
    })
}

/// The line that says when the next retention pass runs (the rows' NEXT-RETENTION column), if
/// it moves any log start.
fn next_pass_line(rows: &[GroupRowDoc], style: &TableStyle) -> Option<String> {
    let by = rows
        .iter()
        .filter_map(|r| r.next_retention.as_ref())
        .map(|n| n.by_ms)
        .min()?;
    let when = time(by, style.zone, Precision::Minutes)?;
    Some(format!(
        "NEXT-RETENTION: what the next retention pass (by {when}, {}) does to each group",
        age(by, style.evaluated_at_ms)
    ))
}

/// What `--group` / `--topic` kept, and of how much.
fn filter_line(b: &GroupsBody) -> Option<String> {
    let f = b.filter.as_ref()?;
    let mut by = Vec::new();
    if let Some(g) = &f.group {
        by.push(format!("--group {}", escape(g)));
    }
    if let Some(t) = &f.topic {
        by.push(format!("--topic {}", escape(t)));
    }
    Some(format!(
        "filtered by {}: {} of {} group(s), {} of {} offset row(s) shown",
        by.join(" "),
        b.groups.len(),
        f.groups_total,
        b.rows.len(),
        f.rows_total
    ))
}

/// The topics with partitions on other brokers, then the deleted groups.
fn write_elsewhere_and_deleted(
    b: &GroupsBody,
    style: &TableStyle,
    out: &mut dyn Write,
) -> io::Result<()> {
    for t in b.topics.iter().filter(|t| !t.elsewhere.is_empty()) {
        let list = |v: &[i32]| v.iter().map(i32::to_string).collect::<Vec<_>>().join(",");
        fit(
            out,
            style,
            &format!(
                "topic {}: this broker holds partitions {} of {}; partitions {} need the other brokers' log dirs",
                escape(&t.topic),
                if t.held.is_empty() { "none".to_string() } else { list(&t.held) },
                opt(t.partitions),
                list(&t.elsewhere)
            ),
        )?;
    }
    if !b.deleted_groups.is_empty() {
        let names: Vec<String> = b
            .deleted_groups
            .iter()
            .map(|g| escape(g).into_owned())
            .collect();
        fit(out, style, &format!("deleted groups: {}", names.join(", ")))?;
    }
    Ok(())
}

/// Write `doc`.
pub fn render_groups(doc: &GroupsDoc, style: &TableStyle, out: &mut dyn Write) -> io::Result<()> {
    let b = &doc.body;
    let parts: Vec<String> = b
        .coordinator_partitions
        .iter()
        .map(i32::to_string)
        .collect();
    fit(
        out,
        style,
        &format!(
            "__consumer_offsets partitions replayed here: {} of {} ({} records); offsets.retention.minutes {}",
            if parts.is_empty() { "none".to_string() } else { parts.join(",") },
            b.offsets_topic_partitions,
            b.records_replayed,
            b.offsets_retention_minutes
        ),
    )?;
    if let Some(line) = filter_line(b) {
        fit(out, style, &line)?;
    }
    if !b.groups.is_empty() {
        writeln!(out)?;
        write_groups_table(&b.groups, style, out)?;
    }
    if !b.rows.is_empty() {
        writeln!(out)?;
        if let Some(line) = next_pass_line(&b.rows, style) {
            fit(out, style, &line)?;
        }
        write_offsets_table(&b.rows, style, out)?;
    }
    write_elsewhere_and_deleted(b, style, out)?;
    if let Some(t) = render_findings(&doc.findings, style) {
        writeln!(out)?;
        write!(out, "{t}")?;
    }
    Ok(())
}
