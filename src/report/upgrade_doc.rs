//! `upgrade-check`'s document: the release upgraded from (and why), the release upgraded to,
//! the release changes crossed, and the segments whose verdict differs at the same instant;
//! the findings are the envelope's. The table renders the same.

use std::io::{self, Write};

use serde::Serialize;

use crate::checks::upgrade::UpgradeReport;
use crate::model::cluster::ClusterView;
use crate::plan::Plan;

use super::diagnostics::render_findings;
use super::plan_doc::{ChangeDoc, ShortDoc};
use super::sanitize::escape;
use super::stream_table::{write_layouts, Column};
use super::table::TableStyle;
use super::terminal::{fit_atoms, words, Align, Cell};
use super::wire::assumptions::KafkaVersionDoc;
use super::wire::Envelope;

/// One release change crossed.
#[derive(Debug, Clone, Serialize)]
pub struct ReleaseChangeDoc {
    /// Stable id.
    pub id: &'static str,
    /// The release that made it.
    pub release: String,
    /// What changed.
    pub what: &'static str,
    /// Kafka source.
    pub source: &'static str,
}

/// The body of `upgrade-check`.
#[derive(Debug, Clone, Serialize)]
pub struct UpgradeBody {
    /// The release upgraded from: `--kafka-version`, or what the files tell.
    pub from: KafkaVersionDoc,
    /// The release upgraded to (`--to`).
    pub to: String,
    /// The release changes between them (`from` < release ≤ `to`).
    pub release_changes: Vec<ReleaseChangeDoc>,
    /// Segments whose verdict at the evaluated instant differs (before: `from`, after: `to`).
    pub plan_changes: Vec<ChangeDoc>,
}

impl UpgradeBody {
    /// The body of `r`, its plan changes located in `to_plan`.
    pub fn new(r: &UpgradeReport, from_view: &ClusterView, to_plan: &Plan) -> UpgradeBody {
        let plan_changes = (r.plan_changes.iter())
            .filter_map(|c| {
                let p = (to_plan.partitions.iter()).find(|p| {
                    p.log_dir == c.log_dir && p.topic == c.topic && p.partition == c.partition
                })?;
                Some(ChangeDoc {
                    log_dir: c.log_dir.display().to_string(),
                    topic: c.topic.clone(),
                    partition: c.partition,
                    base_offset: c.base_offset.get(),
                    size_bytes: c.size.get(),
                    before: ShortDoc::new(c.before, p),
                    after: ShortDoc::new(c.after, p),
                })
            })
            .collect();
        UpgradeBody {
            from: KafkaVersionDoc::new(&from_view.kafka_version),
            to: r.to.to_string(),
            release_changes: (r.changes.iter())
                .map(|c| ReleaseChangeDoc {
                    id: c.id,
                    release: c.release.to_string(),
                    what: c.what,
                    source: c.source,
                })
                .collect(),
            plan_changes,
        }
    }
}

fn short(s: &ShortDoc) -> String {
    match (s.pass, s.reason) {
        (Some(p), _) => format!("{} ({p})", s.verdict),
        (_, Some(r)) => format!("{} ({r})", s.verdict),
        _ => s.verdict.to_string(),
    }
}

/// The table: the two releases, the changes crossed, the plan differences, the findings.
pub fn render_upgrade(
    doc: &Envelope<UpgradeBody>,
    style: &TableStyle,
    out: &mut dyn Write,
) -> io::Result<()> {
    let b = &doc.body;
    let head = format!(
        "UPGRADE Kafka {} → {}: {} release change(s) crossed, {} segment verdict(s) differ, \
         exit {}",
        b.from.applied,
        b.to,
        b.release_changes.len(),
        b.plan_changes.len(),
        doc.summary.exit_code
    );
    for l in fit_atoms(&words(&head), style.width, " ", "", "  ") {
        writeln!(out, "{l}")?;
    }
    for c in &b.release_changes {
        let text = format!("{} {}: {} [{}]", c.release, c.id, c.what, c.source);
        for l in fit_atoms(&words(&text), style.width, " ", "  ", "    ") {
            writeln!(out, "{l}")?;
        }
    }
    if !b.plan_changes.is_empty() {
        let columns = [
            Column::new("PARTITION", Align::Left),
            Column::new("SEGMENT", Align::Right),
            Column::new("BYTES", Align::Right),
            Column::new("FROM", Align::Left),
            Column::new("TO", Align::Left),
        ];
        writeln!(out)?;
        // One row per segment that changes: written row by row, never held whole.
        write_layouts(out, style.width, &columns, &[(0..5).collect()], || {
            b.plan_changes.iter().map(|c| {
                vec![
                    Cell::atom(escape(&format!("{}-{}", c.topic, c.partition)).into_owned()),
                    Cell::atom(c.base_offset.to_string()),
                    Cell::atom(c.size_bytes.to_string()),
                    Cell::text(&short(&c.before)),
                    Cell::text(&short(&c.after)),
                ]
            })
        })?;
    }
    match render_findings(&doc.findings, style) {
        Some(t) => {
            writeln!(out)?;
            write!(out, "{t}")
        }
        None => writeln!(out, "\nnothing to do for these dirs on this upgrade"),
    }
}
