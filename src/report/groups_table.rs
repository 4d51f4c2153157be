//! The `groups` document as tables for people: a header line, the groups, one row per group,
//! topic and partition as `kafka-consumer-groups.sh --describe` shows them (plus the last
//! commit, expiry and the next retention pass), which partitions are on other brokers, the
//! deleted groups and the findings.

use std::io::{self, Write};

use super::diagnostics::render_findings;
use super::groups_doc::{GroupDoc, GroupRowDoc, GroupsBody, GroupsDoc};
use super::human::{age, time, Precision};
use super::sanitize::escape;
use super::table::TableStyle;
use super::terminal::{fit_atoms, render_layouts, words, Align, Cell, Grid};

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

fn when(ms: Option<i64>, style: &TableStyle) -> String {
    ms.and_then(|ms| {
        let t = time(ms, style.zone, Precision::Minutes)?;
        Some(format!("{t} ({})", age(ms, style.evaluated_at_ms)))
    })
    .unwrap_or_else(|| "-".to_string())
}

/// Write `text` as lines fitted to the table width.
fn fit(out: &mut dyn Write, style: &TableStyle, text: &str) -> io::Result<()> {
    for line in fit_atoms(&words(text), style.width, " ", "", "  ") {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// One row per group.
fn groups_grid(groups: &[GroupDoc], style: &TableStyle) -> Grid {
    let mut grid = Grid::new(&[
        ("GROUP", Align::Left),
        ("KIND", Align::Left),
        ("STATE", Align::Left),
        ("MEMBERS", Align::Right),
        ("COORDINATOR", Align::Right),
        ("LAST-COMMIT", Align::Left),
    ]);
    for g in groups {
        grid.push(vec![
            Cell::atom(escape(&g.group).into_owned()),
            Cell::atom(format!("{:?}", g.kind).to_lowercase()),
            Cell::atom(g.state),
            Cell::atom(g.members.to_string()),
            Cell::atom(g.coordinator_partition.to_string()),
            Cell::text(&when(g.last_commit_ms, style)),
        ]);
    }
    grid
}

/// The columns of the offsets table (`full`: with the commit and expiry times).
fn offsets_head(full: bool) -> Grid {
    let mut cols = vec![
        ("GROUP", Align::Left),
        ("TOPIC", Align::Left),
        ("PARTITION", Align::Right),
        ("CURRENT-OFFSET", Align::Right),
        ("LOG-START-OFFSET", Align::Right),
        ("LOG-END-OFFSET", Align::Right),
        ("LAG", Align::Right),
    ];
    if full {
        cols.extend([("LAST-COMMIT", Align::Left), ("EXPIRES", Align::Left)]);
    }
    cols.push(("NEXT-RETENTION", Align::Left));
    Grid::new(&cols)
}

/// One row per group, topic and partition, in a full layout and a short one for narrow
/// terminals.
fn offsets_grids(rows: &[GroupRowDoc], style: &TableStyle) -> [Grid; 2] {
    let (mut full, mut short) = (offsets_head(true), offsets_head(false));
    let at = |ms: Option<i64>| opt(ms.and_then(|ms| time(ms, style.zone, Precision::Minutes)));
    for r in rows {
        let next = r
            .next_retention
            .as_ref()
            .map_or("-".to_string(), |n| match n.reset_to {
                Some(to) => format!(
                    "deletes up to {} by {}: resets to {to}, skips {}",
                    n.new_log_start_offset,
                    at(Some(n.by_ms)),
                    n.skipped
                ),
                None => format!("log start {} (not behind)", n.new_log_start_offset),
            });
        let mut cells = vec![
            Cell::atom(escape(&r.group).into_owned()),
            Cell::atom(escape(&r.topic).into_owned()),
            Cell::atom(r.partition.to_string()),
            Cell::atom(r.current_offset.to_string()),
            Cell::atom(opt(r.log_start_offset)),
            Cell::atom(opt(r.log_end_offset)),
            Cell::atom(opt(r.lag)),
        ];
        short.push([cells.clone(), vec![Cell::text(&next)]].concat());
        cells.extend([
            Cell::text(&at(Some(r.last_commit_ms))),
            Cell::text(&at(r.expires_at_ms)),
            Cell::text(&next),
        ]);
        full.push(cells);
    }
    [full, short]
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
    if !b.groups.is_empty() {
        writeln!(out)?;
        write!(
            out,
            "{}",
            render_layouts(&[groups_grid(&b.groups, style)], style.width)
        )?;
    }
    if !b.rows.is_empty() {
        writeln!(out)?;
        write!(
            out,
            "{}",
            render_layouts(&offsets_grids(&b.rows, style), style.width)
        )?;
    }
    write_elsewhere_and_deleted(b, style, out)?;
    if let Some(t) = render_findings(&doc.findings, style) {
        writeln!(out)?;
        write!(out, "{t}")?;
    }
    Ok(())
}
