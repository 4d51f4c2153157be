//! The `groups` document as tables for people: a header line, the groups, one row per group,
//! topic and partition as `kafka-consumer-groups.sh --describe` shows them (plus the last
//! commit, expiry and the next retention pass), which partitions are on other brokers, the
//! deleted groups and the findings.

use std::io::{self, Write};

use super::groups_doc::GroupsDoc;
use super::human::{age, time, Precision};
use super::sanitize::escape;
use super::table::{findings_table, TableStyle};
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

/// Write `doc`.
pub fn render_groups(doc: &GroupsDoc, style: &TableStyle, out: &mut dyn Write) -> io::Result<()> {
    let b = &doc.body;
    let fit = |out: &mut dyn Write, atoms: &[String]| {
        for line in fit_atoms(atoms, style.width, " ", "", "  ") {
            writeln!(out, "{line}")?;
        }
        Ok::<(), io::Error>(())
    };
    let parts: Vec<String> = b
        .coordinator_partitions
        .iter()
        .map(i32::to_string)
        .collect();
    fit(
        out,
        &words(&format!(
            "__consumer_offsets partitions replayed here: {} of {} ({} records); offsets.retention.minutes {}",
            if parts.is_empty() { "none".to_string() } else { parts.join(",") },
            b.offsets_topic_partitions,
            b.records_replayed,
            b.offsets_retention_minutes
        )),
    )?;
    let mut groups = Grid::new(&[
        ("GROUP", Align::Left),
        ("KIND", Align::Left),
        ("STATE", Align::Left),
        ("MEMBERS", Align::Right),
        ("COORDINATOR", Align::Right),
        ("LAST-COMMIT", Align::Left),
    ]);
    for g in &b.groups {
        groups.push(vec![
            Cell::atom(escape(&g.group).into_owned()),
            Cell::atom(format!("{:?}", g.kind).to_lowercase()),
            Cell::atom(g.state),
            Cell::atom(g.members.to_string()),
            Cell::atom(g.coordinator_partition.to_string()),
            Cell::text(&when(g.last_commit_ms, style)),
        ]);
    }
    if !b.groups.is_empty() {
        writeln!(out)?;
        write!(out, "{}", render_layouts(&[groups], style.width))?;
    }
    let head = |full: bool| {
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
    };
    let (mut full, mut short) = (head(true), head(false));
    let at = |ms: Option<i64>| opt(ms.and_then(|ms| time(ms, style.zone, Precision::Minutes)));
    for r in &b.rows {
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
    if !b.rows.is_empty() {
        writeln!(out)?;
        write!(out, "{}", render_layouts(&[full, short], style.width))?;
    }
    for t in b.topics.iter().filter(|t| !t.elsewhere.is_empty()) {
        let list = |v: &[i32]| v.iter().map(i32::to_string).collect::<Vec<_>>().join(",");
        fit(
            out,
            &words(&format!(
                "topic {}: this broker holds partitions {} of {}; partitions {} need the other brokers' log dirs",
                escape(&t.topic),
                if t.held.is_empty() { "none".to_string() } else { list(&t.held) },
                opt(t.partitions),
                list(&t.elsewhere)
            )),
        )?;
    }
    if !b.deleted_groups.is_empty() {
        let names: Vec<String> = b
            .deleted_groups
            .iter()
            .map(|g| escape(g).into_owned())
            .collect();
        fit(
            out,
            &words(&format!("deleted groups: {}", names.join(", "))),
        )?;
    }
    if let Some(t) = findings_table(&doc.findings, style) {
        writeln!(out)?;
        write!(out, "{t}")?;
    }
    Ok(())
}
