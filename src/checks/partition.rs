//! Findings of domain `partition`: the partition dir's name and state, its metadata files,
//! leftovers and unknown files, and its checkpointed offsets against the log (spec formats §1.4,
//! §3.7–3.9).

use crate::model::cluster::ClusterView;
use crate::model::log_dir::LogDir;
use crate::model::mode::LogDirMode;
use crate::model::names::{LeftoverKind, PartitionDirState};
use crate::model::partition::Partition;

use super::catalog;
use super::file::{io_findings, problem_finding};
use super::finding::{EvidenceValue, Finding, Location};
use super::location::{at_file, at_partition};
use super::lost::{data_lost_findings, empty_log_findings, metadata_lost_findings};

/// A partition dir the broker has set aside or is moving (its name's suffix).
fn state_findings(
    p: &Partition,
    state: &PartitionDirState,
    loc: &Location,
    out: &mut Vec<Finding>,
) {
    match state {
        PartitionDirState::Live => {}
        PartitionDirState::Delete(_) => out.push(
            Finding::new(
                &catalog::PARTITION_PENDING_DELETE,
                loc.clone(),
                "partition dir marked for deletion; the broker removes it file.delete.delay.ms after start",
            )
            .evidence("size", EvidenceValue::Bytes(p.size().get())),
        ),
        PartitionDirState::Future(_) => out.push(Finding::new(
            &catalog::PARTITION_FUTURE_REPLICA,
            loc.clone(),
            "target of an unfinished alter-log-dirs move",
        )),
        PartitionDirState::Stray(_) => out.push(
            Finding::new(
                &catalog::PARTITION_STRAY,
                loc.clone(),
                "stray replica set aside by the broker; it is never deleted automatically",
            )
            .evidence("size", EvidenceValue::Bytes(p.size().get())),
        ),
    }
}

/// `partition.metadata` (only where the broker needs it) and `leader-epoch-checkpoint`.
fn metadata_findings(
    dir: &LogDir,
    p: &Partition,
    state: &PartitionDirState,
    mode: LogDirMode,
    loc: &Location,
    out: &mut Vec<Finding>,
) {
    match &p.metadata {
        None if *state == PartitionDirState::Live
            && mode.requires_topic_id()
            && listed_whole(dir, p) =>
        {
            out.push(Finding::new(
            &catalog::PARTITION_NO_TOPIC_ID,
            loc.clone(),
            "no partition.metadata: a KRaft broker treats a log without topic id as stray and sets it aside",
        ))
        }
        Some(Err(e)) => out.push(problem_finding(
            loc.clone(),
            "partition.metadata",
            e,
            "rewrite it with the topic id from the metadata log",
        )),
        _ => {}
    }
    if let Some(Err(e)) = &p.leader_epochs {
        out.push(problem_finding(
            loc.clone(),
            "leader-epoch-checkpoint",
            e,
            "remove it with the broker stopped; the broker rebuilds epochs from the batches on recovery",
        ));
    }
}

/// Leftovers of interrupted writes, and files the broker does not write here.
fn leftover_findings(
    dir: &LogDir,
    p: &Partition,
    partition_loc: &Location,
    out: &mut Vec<Finding>,
) {
    for l in &p.listing.leftovers {
        let (kind, message) = match l.kind {
            Some(LeftoverKind::Deleted) => (
                &catalog::PARTITION_LEFTOVER_DELETED,
                "file scheduled for deletion; the broker deletes it on start",
            ),
            Some(LeftoverKind::Cleaned) | Some(LeftoverKind::Swap) => (
                &catalog::PARTITION_LEFTOVER_SWAP,
                "output of an interrupted compaction or segment split; the broker resolves it on start (spec §1.4)",
            ),
            None => (
                &catalog::PARTITION_LEFTOVER_TMP,
                "temporary file of an interrupted atomic write",
            ),
        };
        let mut loc = at_file(dir, p, &l.file.path, None);
        loc.segment = l.segment.map(|(base, _)| base);
        out.push(
            Finding::new(kind, loc, message)
                .evidence("size", EvidenceValue::Bytes(l.file.len_or_zero())),
        );
    }
    for u in &p.listing.unknown {
        out.push(Finding::new(
            &catalog::PARTITION_UNKNOWN_FILE,
            Location {
                file: Some(u.path.clone()),
                ..partition_loc.clone()
            },
            if u.is_dir {
                "directory inside a partition dir"
            } else {
                "file the broker does not write here"
            },
        ));
    }
}

/// Where the metadata image places each `-stray` dir's partition now (issue 21): its
/// `partition.stray` finding gains the replicas the metadata assigns (by the dir's own topic id,
/// from its `partition.metadata`), or says that topic id is no longer in the metadata (the
/// topic was deleted, or recreated under a new id). Nothing is added without a metadata image.
pub fn stray_placement(dirs: &[LogDir], view: &ClusterView, findings: &mut [Finding]) {
    if view.image.topics.is_empty() {
        return;
    }
    for dir in dirs {
        let node = view.node_of(dir);
        for p in &dir.partitions {
            let Some(name) = p.name.as_ref() else {
                continue;
            };
            if !matches!(name.state, PartitionDirState::Stray(_)) {
                continue;
            }
            let Some(f) = findings.iter_mut().find(|f| {
                f.code == catalog::PARTITION_STRAY.code
                    && f.location.log_dir == dir.path
                    && f.location.dir.as_deref() == Some(p.dir_name.as_str())
            }) else {
                continue;
            };
            let topic_id = p
                .metadata
                .as_ref()
                .and_then(|m| m.as_ref().ok())
                .map(|m| m.topic_id);
            let topic = topic_id.and_then(|id| view.image.topics_by_id.get(&id));
            let image = topic
                .and_then(|t| view.image.topics.get(t))
                .and_then(|t| t.partitions.get(&name.partition));
            let place = |ids: &[i32]| {
                let list: Vec<String> = ids.iter().map(i32::to_string).collect();
                format!("[{}]", list.join(", "))
            };
            let placement = match (topic_id, image) {
                (None, _) => continue,
                (Some(_), Some(img)) => {
                    let here = node.is_some_and(|n| img.replicas.contains(&n));
                    f.evidence.push(super::finding::Evidence {
                        name: "assigned_replicas",
                        value: EvidenceValue::Text(place(&img.replicas)),
                    });
                    f.evidence.push(super::finding::Evidence {
                        name: "leader",
                        value: EvidenceValue::Int(i64::from(img.leader)),
                    });
                    format!(
                        "; the metadata now places {}-{} on node(s) {} (leader {}){}",
                        name.topic,
                        name.partition,
                        place(&img.replicas),
                        img.leader,
                        if here {
                            ", this node among them: its live replica is the one in use"
                        } else {
                            ", not on this node"
                        }
                    )
                }
                (Some(id), None) => {
                    f.evidence.push(super::finding::Evidence {
                        name: "assigned_replicas",
                        value: EvidenceValue::Text("none: topic id not in the metadata".into()),
                    });
                    format!(
                        "; its topic id {id} is not in the metadata (the topic was deleted or \
                         recreated): no broker holds this partition under that id"
                    )
                }
            };
            f.message.push_str(&placement);
        }
    }
}

/// Findings about the partition dir itself, in a log dir of `mode`. Returns false when its name
/// does not parse, in which case nothing else about it is checked (the broker fails on the dir
/// before reading it). A missing `partition.metadata` is a finding only where the broker needs
/// it (KRaft: [`LogDirMode::requires_topic_id`]) and the dir could be listed whole.
pub fn partition_dir_findings(
    dir: &LogDir,
    p: &Partition,
    mode: LogDirMode,
    out: &mut Vec<Finding>,
) -> bool {
    let Some(name) = &p.name else {
        out.push(Finding::new(
            &catalog::PARTITION_BAD_DIR_NAME,
            at_partition(dir, p),
            "directory name is not <topic>-<partition>: the broker fails to start on this log dir",
        ));
        return false;
    };
    let loc = at_partition(dir, p);
    state_findings(p, &name.state, &loc, out);
    io_findings(&p.listing.io_problems, &loc, out);
    metadata_findings(dir, p, &name.state, mode, &loc, out);
    leftover_findings(dir, p, &loc, out);
    true
}

/// Whether every entry of the partition dir could be listed: neither the dir itself (reported
/// in the log dir's listing) nor an entry in it failed. Absent files prove nothing otherwise.
pub(crate) fn listed_whole(dir: &LogDir, p: &Partition) -> bool {
    p.listing.io_problems.is_empty() && !dir.listing.io_problems.iter().any(|i| i.path == p.path)
}

/// Checkpointed offsets of the partition against its log end, and data they say is lost
/// ([`super::lost`]).
pub fn partition_offset_findings(dir: &LogDir, p: &Partition, out: &mut Vec<Finding>) {
    data_lost_findings(dir, p, out);
    metadata_lost_findings(dir, p, out);
    empty_log_findings(dir, p, out);
    // A last .log that could not be read (or was refused as too large) has no known end: its
    // own finding says so, and the checkpoints cannot be judged against a guess.
    let last_log = p.log_segments().last();
    if last_log.is_some_and(|s| s.log.as_ref().is_some_and(|l| l.is_err())) {
        return;
    }
    let loc = at_partition(dir, p);
    if let (Some(start), Some(leo)) = (p.checkpoints.log_start_offset, p.log_end_offset()) {
        if start > leo {
            out.push(
                Finding::new(
                    &catalog::PARTITION_LOG_START_BEYOND_END,
                    loc.clone(),
                    "checkpointed log start offset is past the log end: on start the broker deletes \
                     every segment of this partition",
                )
                .evidence("log_start_offset_checkpoint", EvidenceValue::Offset(start.get()))
                .evidence("log_end_offset", EvidenceValue::Offset(leo.get())),
            );
        }
    }
    if let (Some(hw), Some(leo)) = (p.checkpoints.high_watermark, p.log_end_offset()) {
        if hw > leo {
            out.push(
                Finding::new(
                    &catalog::PARTITION_HW_BEYOND_LOG_END,
                    loc,
                    "checkpointed high watermark is past the end of the log: acknowledged data is missing",
                )
                .evidence("high_watermark", EvidenceValue::Offset(hw.get()))
                .evidence("log_end_offset", EvidenceValue::Offset(leo.get())),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::test_support::{codes, Scratch};
    use crate::model::segment::ScanDepth;

    fn dir_findings(s: &Scratch, dir_name: &str) -> (bool, Vec<Finding>) {
        let d = s.load(ScanDepth::Tail);
        let p = d
            .partitions
            .iter()
            .find(|p| p.dir_name == dir_name)
            .unwrap();
        let mut out = Vec::new();
        let parsed = partition_dir_findings(&d, p, LogDirMode::KRaft, &mut out);
        partition_offset_findings(&d, p, &mut out);
        (parsed, out)
    }

    #[test]
    fn healthy_partition_has_no_findings_and_a_full_location() {
        let s = Scratch::new();
        let (parsed, f) = dir_findings(&s, "orders-0");
        assert!(parsed);
        assert_eq!(codes(&f), Vec::<&str>::new());
        let d = s.load(ScanDepth::Tail);
        let p = d
            .partitions
            .iter()
            .find(|p| p.dir_name == "orders-0")
            .unwrap();
        let loc = at_partition(&d, p);
        assert_eq!(loc.topic.as_deref(), Some("orders"));
        assert_eq!(loc.partition, Some(0));
        assert_eq!(loc.dir.as_deref(), Some("orders-0"));
    }

    #[test]
    fn bad_name_stops_the_partition() {
        let s = Scratch::new();
        std::fs::create_dir(s.path("no_number")).unwrap();
        let (parsed, f) = dir_findings(&s, "no_number");
        assert!(!parsed);
        assert_eq!(codes(&f), ["partition.bad_dir_name"]);
        assert_eq!(f[0].location.topic, None);
    }

    #[test]
    fn leftovers_unknown_files_and_missing_metadata() {
        let s = Scratch::new();
        std::fs::write(s.path("orders-0/00000000000000000004.log.deleted"), "x").unwrap();
        std::fs::write(s.path("orders-0/00000000000000000004.log.swap"), "xy").unwrap();
        std::fs::write(s.path("orders-0/notes"), "").unwrap();
        std::fs::remove_file(s.path("orders-0/partition.metadata")).unwrap();
        let (_, f) = dir_findings(&s, "orders-0");
        let mut c = codes(&f);
        c.sort();
        assert_eq!(
            c,
            [
                "partition.leftover_deleted",
                "partition.leftover_swap",
                "partition.no_topic_id",
                "partition.unknown_file"
            ]
        );
        let swap = f
            .iter()
            .find(|f| f.code == "partition.leftover_swap")
            .unwrap();
        assert_eq!(swap.evidence[0].value, EvidenceValue::Bytes(2));
    }

    #[test]
    fn stray_dir_carries_its_size() {
        let s = Scratch::new();
        std::fs::create_dir(s.path("orders-9.0123456789abcdef0123456789abcdef-stray")).unwrap();
        let (_, f) = dir_findings(&s, "orders-9.0123456789abcdef0123456789abcdef-stray");
        assert_eq!(codes(&f), ["partition.stray"]);
        assert_eq!(f[0].evidence[0].name, "size");
    }

    #[test]
    fn missing_metadata_is_no_finding_in_zookeeper_mode() {
        let s = Scratch::new();
        std::fs::remove_file(s.path("orders-0/partition.metadata")).unwrap();
        let d = s.load(ScanDepth::Tail);
        let p = d
            .partitions
            .iter()
            .find(|p| p.dir_name == "orders-0")
            .unwrap();
        for (mode, expected) in [
            (LogDirMode::KRaft, vec!["partition.no_topic_id"]),
            (LogDirMode::ZooKeeper, vec![]),
            (LogDirMode::Unknown, vec![]),
        ] {
            let mut out = Vec::new();
            partition_dir_findings(&d, p, mode, &mut out);
            assert_eq!(codes(&out), expected, "{mode:?}");
        }
    }
}
