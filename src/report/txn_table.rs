//! The `transactions` document as tables for people: the transactional ids, the partitions'
//! first unstable and last stable offsets, the open transactions with the abort command of each
//! hanging one, and the findings. The three tables are written row by row ([`write_layouts`]).

use std::io::{self, Write};

use super::diagnostics::render_findings;
use super::human::{age, time, Precision};
use super::sanitize::escape;
use super::stream_table::{write_layouts, Column};
use super::table::TableStyle;
use super::terminal::{fit_atoms, words, Align, Cell};
use super::txn_doc::{OpenTxnDoc, TxnDoc, TxnIdDoc, TxnPartitionDoc};

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

/// One row per transactional id.
fn write_ids(ids_doc: &[TxnIdDoc], style: &TableStyle, out: &mut dyn Write) -> io::Result<()> {
    let columns = [
        Column::new("TRANSACTIONAL-ID", Align::Left),
        Column::new("PRODUCER-ID", Align::Right),
        Column::new("EPOCH", Align::Right),
        Column::new("STATE", Align::Left),
        Column::new("TIMEOUT-MS", Align::Right),
        Column::new("PARTITIONS", Align::Left),
    ];
    write_layouts(
        out,
        style.width,
        &columns,
        &[vec![0, 1, 2, 3, 4, 5]],
        || {
            ids_doc.iter().map(|t| {
                vec![
                    Cell::atom(escape(&t.transactional_id).into_owned()),
                    Cell::atom(t.producer_id.to_string()),
                    Cell::atom(t.producer_epoch.to_string()),
                    Cell::atom(t.state),
                    Cell::atom(t.transaction_timeout_ms.to_string()),
                    Cell::text(&escape(&t.partitions.join(" "))),
                ]
            })
        },
    )
}

/// One row per partition: its first unstable and last stable offsets.
fn write_partitions(
    partitions: &[TxnPartitionDoc],
    style: &TableStyle,
    out: &mut dyn Write,
) -> io::Result<()> {
    let columns = [
        Column::new("PARTITION", Align::Left),
        Column::new("SNAPSHOT", Align::Right),
        Column::new("BATCHES-AFTER", Align::Right),
        Column::new("FIRST-UNSTABLE", Align::Right),
        Column::new("HW", Align::Right),
        Column::new("LAST-STABLE", Align::Right),
        Column::new("LOG-END", Align::Right),
    ];
    write_layouts(out, style.width, &columns, &[(0..7).collect()], || {
        partitions.iter().map(|p| {
            vec![
                Cell::atom(escape(&format!("{}-{}", p.topic, p.partition)).into_owned()),
                Cell::atom(opt(p.snapshot_offset)),
                Cell::atom(p.batches_replayed.to_string()),
                Cell::atom(opt(p.first_unstable_offset)),
                Cell::atom(opt(p.high_watermark)),
                Cell::atom(opt(p.last_stable_offset)),
                Cell::atom(opt(p.log_end_offset)),
            ]
        })
    })
}

/// One row per open transaction.
fn write_open(open_doc: &[OpenTxnDoc], style: &TableStyle, out: &mut dyn Write) -> io::Result<()> {
    let at = |ms: i64| opt(time(ms, style.zone, Precision::Minutes));
    let columns = [
        Column::new("PARTITION", Align::Left),
        Column::new("PRODUCER", Align::Left),
        Column::new("START-OFFSET", Align::Right),
        Column::new("OPEN-SINCE", Align::Left),
        Column::new("LAST-BATCH", Align::Left),
        Column::new("VERDICT", Align::Left),
    ];
    write_layouts(out, style.width, &columns, &[(0..6).collect()], || {
        open_doc.iter().map(|t| {
            let who = t.transactional_id.as_deref().map_or_else(
                || format!("{} epoch {}", t.producer_id, t.producer_epoch),
                |id| {
                    format!(
                        "{} ({} epoch {})",
                        escape(id),
                        t.producer_id,
                        t.producer_epoch
                    )
                },
            );
            vec![
                Cell::atom(escape(&format!("{}-{}", t.topic, t.partition)).into_owned()),
                Cell::text(&who),
                Cell::atom(t.first_offset.to_string()),
                Cell::text(&t.open_since_ms.map_or("-".to_string(), at)),
                Cell::text(&format!(
                    "{} ({})",
                    at(t.last_timestamp_ms),
                    age(t.last_timestamp_ms, style.evaluated_at_ms)
                )),
                Cell::atom(format!("{:?}", t.verdict)),
            ]
        })
    })
}

/// Write `doc`.
pub fn render_transactions(
    doc: &TxnDoc,
    style: &TableStyle,
    out: &mut dyn Write,
) -> io::Result<()> {
    let b = &doc.body;
    let parts: Vec<String> = b
        .transaction_state_partitions
        .iter()
        .map(i32::to_string)
        .collect();
    for line in
        fit_atoms(
            &words(&format!(
            "__transaction_state partitions replayed here: {} of {}; transaction.max.timeout.ms {}",
            if parts.is_empty() { "none".to_string() } else { parts.join(",") },
            opt(b.transaction_state_partition_count),
            b.transaction_max_timeout_ms
        )),
            style.width,
            " ",
            "",
            "  ",
        )
    {
        writeln!(out, "{line}")?;
    }
    if !b.transactional_ids.is_empty() {
        writeln!(out)?;
        write_ids(&b.transactional_ids, style, out)?;
    }
    if !b.partitions.is_empty() {
        writeln!(out)?;
        write_partitions(&b.partitions, style, out)?;
    }
    if !b.open_transactions.is_empty() {
        writeln!(out)?;
        write_open(&b.open_transactions, style, out)?;
    }
    for cmd in b
        .open_transactions
        .iter()
        .filter_map(|t| t.abort_command.as_deref())
    {
        writeln!(out, "{}", escape(cmd))?;
    }
    if let Some(t) = render_findings(&doc.findings, style) {
        writeln!(out)?;
        write!(out, "{t}")?;
    }
    Ok(())
}
