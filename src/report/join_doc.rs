//! `logclean join`: the cluster view of several brokers' `diagnose --format json` reports
//! (issue 21). At fleet scale nobody copies log dirs: each host runs `diagnose` on its own dirs
//! and one small join gives what one `diagnose` over every node's dirs gives: the replicas of
//! each partition across nodes, a follower's HW from its leader's files
//! ([`ReplicationFacts::resolve`]), the cross-replica findings made again from the joined facts
//! ([`replication_findings`]), and every other finding of each report with its node.

use std::borrow::Cow;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::checks::catalog;
use crate::checks::replication::replication_findings;
use crate::plan::replication::{ReplicationFacts, ResolvedPartition};
use crate::rules::high_watermark::HwBasis;

use super::diagnostics::{render_findings, severity_rank};
use super::sanitize::escape;
use super::stream_table::{write_layouts, Column};
use super::table::TableStyle;
use super::terminal::{Align, Cell};
use super::wire::findings::FindingDoc;

/// The codes made across replicas: a report's own are partial (one node's replicas), so the
/// join makes them again from every report's facts.
const CROSS_REPLICA: [&str; 2] = [
    catalog::PARTITION_HW_HELD_UNDER_MIN_ISR.code,
    catalog::PARTITION_REPLICAS_DIVERGE.code,
];

/// What `join` reads of one report.
#[derive(Debug, Clone, Deserialize)]
pub struct Report {
    /// `diagnose` (anything else is refused).
    pub command: String,
    /// The instant its rules were evaluated at.
    pub evaluated_at_ms: i64,
    /// Its findings.
    pub findings: Vec<FindingDoc>,
    /// Its replication facts (absent from a report of a logclean before `join`).
    pub replication: Option<ReplicationFacts>,
}

/// Why a report cannot be joined.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// Not JSON of the expected shape.
    #[error("`{path}` is not a `logclean diagnose --format json` report: {reason}")]
    NotAReport {
        /// The file.
        path: PathBuf,
        /// What did not parse.
        reason: String,
    },
    /// Of another command, or without replication facts.
    #[error("`{path}`: {reason}")]
    Unusable {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

/// Parse one report read from `path`.
pub fn parse_report(path: &Path, text: &str) -> Result<Report, ReportError> {
    let report: Report = serde_json::from_str(text).map_err(|e| ReportError::NotAReport {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    let reason = if report.command != "diagnose" {
        format!(
            "a `{}` report; join reads `diagnose --format json` reports",
            report.command
        )
    } else if report.replication.is_none() {
        "no `replication` facts (written by a logclean older than `join`): rerun diagnose"
            .to_string()
    } else {
        return Ok(report);
    };
    Err(ReportError::Unusable {
        path: path.to_path_buf(),
        reason,
    })
}

/// One report as the joined document names it.
#[derive(Debug, Clone, Serialize)]
pub struct InputDoc {
    /// The file.
    pub path: String,
    /// The nodes whose dirs it read.
    pub nodes: Vec<i32>,
    /// Its evaluation instant.
    pub evaluated_at_ms: i64,
    /// Its findings (before the join).
    pub findings: usize,
}

/// One replica in the joined view.
#[derive(Debug, Clone, Serialize)]
pub struct ReplicaDoc {
    /// Its node.
    pub node: Option<i32>,
    /// Its log dir.
    pub log_dir: String,
    /// `leader`, `follower`, `not_assigned` or `unknown`.
    pub role: &'static str,
    /// Log start offset.
    pub log_start_offset: Option<i64>,
    /// Log end offset.
    pub log_end_offset: Option<i64>,
    /// The HW its next retention run has.
    pub high_watermark: Option<i64>,
    /// Why: `leader_log_end`, `follower_from_leader`, `checkpoint_assumed`…
    pub high_watermark_basis: &'static str,
    /// Where its role came from.
    pub role_source: &'static str,
    /// Bytes of its segments.
    pub size_bytes: u64,
    /// Segments and bytes its next retention run frees under that HW.
    pub freed_segments: u64,
    /// (bytes)
    pub freed_bytes: u64,
    /// Bytes retention would free but for the HW.
    pub held_by_hw_bytes: u64,
}

/// One partition in the joined view.
#[derive(Debug, Clone, Serialize)]
pub struct PartitionDoc {
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// The metadata's replicas, leader, ISR and ELR (absent: not in the metadata).
    pub assigned: Option<Vec<i32>>,
    /// Leader (-1: none).
    pub leader: Option<i32>,
    /// In-sync replicas.
    pub isr: Option<Vec<i32>>,
    /// Eligible leader replicas.
    pub elr: Option<Vec<i32>>,
    /// Assigned replicas whose report was not given.
    pub not_reported: Vec<i32>,
    /// The replicas reported.
    pub replicas: Vec<ReplicaDoc>,
}

/// The `join` document's own keys.
#[derive(Debug, Clone, Serialize)]
pub struct JoinDoc {
    /// The reports joined.
    pub inputs: Vec<InputDoc>,
    /// The nodes they cover.
    pub nodes: Vec<i32>,
    /// Each replicated partition across nodes.
    pub partitions: Vec<PartitionDoc>,
    /// Every finding: each report's with its node, the cross-replica ones made again.
    pub findings: Vec<FindingDoc>,
}

fn basis_name(b: HwBasis) -> &'static str {
    match b {
        HwBasis::LeaderLogEnd => "leader_log_end",
        HwBasis::LeaderUnderMinIsr { .. } => "leader_under_min_isr",
        HwBasis::CheckpointAwaitingFollowers => "leader_checkpoint_awaiting_followers",
        HwBasis::FollowerFromLeader { .. } => "follower_from_leader",
        HwBasis::FollowerCheckpointAssumed => "follower_checkpoint_assumed",
        HwBasis::CheckpointAssumed => "checkpoint_assumed",
        HwBasis::Given => "given",
        HwBasis::NotInitialised => "not_initialised",
    }
}

fn role_name(b: Option<HwBasis>) -> &'static str {
    match b {
        Some(
            HwBasis::LeaderLogEnd
            | HwBasis::LeaderUnderMinIsr { .. }
            | HwBasis::CheckpointAwaitingFollowers,
        ) => "leader",
        Some(HwBasis::FollowerFromLeader { .. } | HwBasis::FollowerCheckpointAssumed) => "follower",
        Some(HwBasis::NotInitialised) => "not_assigned",
        _ => "unknown",
    }
}

fn partition_doc(p: &ResolvedPartition<'_>) -> PartitionDoc {
    let image = p.facts.image.as_ref();
    let reported: Vec<i32> = p
        .replicas
        .iter()
        .filter_map(|r| r.replica.node_id)
        .collect();
    PartitionDoc {
        topic: p.facts.topic.clone(),
        partition: p.facts.partition,
        assigned: image.map(|i| i.replicas.clone()),
        leader: image.map(|i| i.leader),
        isr: image.map(|i| i.isr.clone()),
        elr: image.map(|i| i.elr.clone()),
        not_reported: (image.map_or(&[][..], |i| &i.replicas[..]).iter())
            .filter(|n| !reported.contains(n))
            .copied()
            .collect(),
        replicas: (p.replicas.iter())
            .map(|r| ReplicaDoc {
                node: r.replica.node_id,
                log_dir: crate::model::names::path_text(&r.replica.log_dir),
                role: role_name(r.high_watermark.map(|h| h.basis)),
                log_start_offset: r.replica.log_start_offset.map(|o| o.get()),
                log_end_offset: r.replica.log_end_offset.map(|o| o.get()),
                high_watermark: r.high_watermark.map(|h| h.value.get()),
                high_watermark_basis: r.high_watermark.map_or("unknown", |h| basis_name(h.basis)),
                role_source: r.role_source,
                size_bytes: r.replica.size.get(),
                freed_segments: r.freed.0,
                freed_bytes: r.freed.1,
                held_by_hw_bytes: r.held_by_hw.1,
            })
            .collect(),
    }
}

/// The order findings are listed in: place, then code.
fn place_key(f: &FindingDoc) -> impl Ord + '_ {
    let l = &f.location;
    (
        std::cmp::Reverse(severity_rank(&f.severity)),
        l.log_dir.as_str(),
        l.dir.as_deref(),
        l.segment,
        l.file.as_deref(),
        f.code.as_ref(),
        f.message.as_str(),
    )
}

/// Join `reports` (each with the path it was read from) into one document.
pub fn join_reports(reports: Vec<(PathBuf, Report)>) -> JoinDoc {
    let mut inputs = Vec::new();
    let mut findings: Vec<FindingDoc> = Vec::new();
    let mut facts = Vec::new();
    for (path, r) in reports {
        let Some(rep) = r.replication else { continue };
        inputs.push(InputDoc {
            path: crate::model::names::path_text(&path),
            nodes: rep.nodes.clone(),
            evaluated_at_ms: r.evaluated_at_ms,
            findings: r.findings.len(),
        });
        let own_node = match rep.nodes.as_slice() {
            [n] => Some(*n),
            _ => None,
        };
        for mut f in r.findings {
            if CROSS_REPLICA.contains(&f.code.as_ref()) {
                continue;
            }
            f.location.node = f.location.node.or(own_node);
            findings.push(f);
        }
        facts.push(rep);
    }
    let facts = ReplicationFacts::join(facts);
    findings.extend(replication_findings(&facts).iter().map(FindingDoc::new));
    if facts.nodes.len() < 2 {
        // One node: nothing to tell apart.
        for f in &mut findings {
            f.location.node = None;
        }
    }
    findings.sort_by(|a, b| place_key(a).cmp(&place_key(b)));
    // The same report given twice, or one dir in two reports: one finding.
    findings.dedup();
    let partitions = facts.resolve().iter().map(partition_doc).collect();
    JoinDoc {
        inputs,
        nodes: facts.nodes.clone(),
        partitions,
        findings,
    }
}

fn offset(o: Option<i64>) -> String {
    o.map_or_else(|| "?".to_string(), |v| v.to_string())
}

/// The table: the reports, each partition's replicas across nodes, then the findings.
pub fn render_join(doc: &JoinDoc, style: &TableStyle, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "cluster view of {} report(s) over node(s) {:?}",
        doc.inputs.len(),
        doc.nodes
    )?;
    for i in &doc.inputs {
        writeln!(
            out,
            "  {} (nodes {:?}, {} finding(s))",
            escape(&i.path),
            i.nodes,
            i.findings
        )?;
    }
    writeln!(out)?;
    let columns = [
        Column::new("PARTITION", Align::Left),
        Column::new("NODE", Align::Right),
        Column::new("ROLE", Align::Left),
        Column::new("LOG START", Align::Right),
        Column::new("LOG END", Align::Right),
        Column::new("HW", Align::Right),
        Column::new("HW FROM", Align::Left),
        Column::new("FREES", Align::Right),
        Column::new("HELD BY HW", Align::Right),
    ];
    // One row per replica: written row by row, never held whole.
    write_layouts(out, style.width, &columns, &[(0..9).collect()], || {
        doc.partitions.iter().flat_map(|p| {
            let name = format!("{}-{}", escape(&p.topic), p.partition);
            let replicas = p.replicas.iter().map({
                let name = name.clone();
                move |r| {
                    vec![
                        Cell::atom(name.clone()),
                        Cell::atom(offset(r.node.map(i64::from))),
                        Cell::atom(r.role),
                        Cell::atom(offset(r.log_start_offset)),
                        Cell::atom(offset(r.log_end_offset)),
                        Cell::atom(offset(r.high_watermark)),
                        Cell::atom(r.high_watermark_basis),
                        Cell::atom(format!("{} B", r.freed_bytes)),
                        Cell::atom(format!("{} B", r.held_by_hw_bytes)),
                    ]
                }
            });
            let missing = p.not_reported.iter().map(move |n| {
                vec![
                    Cell::atom(name.clone()),
                    Cell::atom(n.to_string()),
                    Cell::atom("no report"),
                ]
            });
            replicas.chain(missing)
        })
    })?;
    let n = doc.findings.len();
    writeln!(out)?;
    if let Some(t) = render_findings(&doc.findings, style) {
        writeln!(out, "findings: {n}")?;
        writeln!(out)?;
        write!(out, "{t}")?;
    } else {
        writeln!(out, "findings: none")?;
    }
    Ok(())
}

/// `Cow` names of the severities, for the outcome.
pub fn severities(doc: &JoinDoc) -> impl Iterator<Item = &Cow<'static, str>> {
    doc.findings.iter().map(|f| &f.severity)
}
