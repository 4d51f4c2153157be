//! The `transactions` document as tables for people: the transactional ids, the partitions'
//! first unstable and last stable offsets, the open transactions with the abort command of each
//! hanging one, and the findings.

use std::io::{self, Write};

use super::diagnostics::render_findings;
use super::human::{age, time, Precision};
use super::sanitize::escape;
use super::table::TableStyle;
use super::terminal::{fit_atoms, render_layouts, words, Align, Cell, Grid};
use super::txn_doc::{OpenTxnDoc, TxnDoc, TxnIdDoc, TxnPartitionDoc};

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

/// One row per transactional id.
fn ids_grid(ids_doc: &[TxnIdDoc]) -> Grid {
    let mut ids = Grid::new(&[
        ("TRANSACTIONAL-ID", Align::Left),
        ("PRODUCER-ID", Align::Right),
        ("EPOCH", Align::Right),
        ("STATE", Align::Left),
        ("TIMEOUT-MS", Align::Right),
        ("PARTITIONS", Align::Left),
    ]);
    for t in ids_doc {
        ids.push(vec![
            Cell::atom(escape(&t.transactional_id).into_owned()),
            Cell::atom(t.producer_id.to_string()),
            Cell::atom(t.producer_epoch.to_string()),
            Cell::atom(t.state),
            Cell::atom(t.transaction_timeout_ms.to_string()),
            Cell::text(&escape(&t.partitions.join(" "))),
        ]);
    }
    ids
}

/// One row per partition: its first unstable and last stable offsets.
fn partitions_grid(partitions: &[TxnPartitionDoc]) -> Grid {
    let mut parts = Grid::new(&[
        ("PARTITION", Align::Left),
        ("SNAPSHOT", Align::Right),
        ("BATCHES-AFTER", Align::Right),
        ("FIRST-UNSTABLE", Align::Right),
        ("HW", Align::Right),
        ("LAST-STABLE", Align::Right),
        ("LOG-END", Align::Right),
    ]);
    for p in partitions {
        parts.push(vec![
            Cell::atom(escape(&format!("{}-{}", p.topic, p.partition)).into_owned()),
            Cell::atom(opt(p.snapshot_offset)),
            Cell::atom(p.batches_replayed.to_string()),
            Cell::atom(opt(p.first_unstable_offset)),
            Cell::atom(opt(p.high_watermark)),
            Cell::atom(opt(p.last_stable_offset)),
            Cell::atom(opt(p.log_end_offset)),
        ]);
    }
    parts
}

/// One row per open transaction.
fn open_grid(open_doc: &[OpenTxnDoc], style: &TableStyle) -> Grid {
    let at = |ms: i64| opt(time(ms, style.zone, Precision::Minutes));
    let mut open = Grid::new(&[
        ("PARTITION", Align::Left),
        ("PRODUCER", Align::Left),
        ("START-OFFSET", Align::Right),
        ("OPEN-SINCE", Align::Left),
        ("LAST-BATCH", Align::Left),
        ("VERDICT", Align::Left),
    ]);
    for t in open_doc {
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
        open.push(vec![
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
        ]);
    }
    open
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
    for (grid, any) in [
        (
            ids_grid(&b.transactional_ids),
            !b.transactional_ids.is_empty(),
        ),
        (partitions_grid(&b.partitions), !b.partitions.is_empty()),
        (
            open_grid(&b.open_transactions, style),
            !b.open_transactions.is_empty(),
        ),
    ] {
        if any {
            writeln!(out)?;
            write!(out, "{}", render_layouts(&[grid], style.width))?;
        }
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
