//! Findings across log dirs: log dirs of different clusters given together, and the same live
//! partition in two log dirs of one broker (dirs of different `node.id`s are different
//! brokers' replicas), which it refuses to start with ("Duplicate log
//! directories", `LogManager.loadLog`).

use crate::model::log_dir::{partitions_by_name, LogDir};
use crate::model::mode::different_clusters;
use crate::model::names::PartitionDirState;
use crate::model::partition::Partition;

use super::catalog;
use super::config::cluster_mismatch;
use super::finding::{EvidenceValue, Finding};
use super::location::at_partition;

/// The `cluster.id` of `dir`'s readable `meta.properties`.
fn cluster_id(dir: &LogDir) -> Option<&str> {
    dir.meta
        .as_ref()
        .and_then(|m| m.as_ref().ok())
        .and_then(|m| m.cluster_id.as_deref())
}

/// `dir.cluster_mismatch` once when `dirs` carry different `cluster.id`s (as `config` says it),
/// then one `partition.duplicate` per partition live in more than one log dir of the same
/// cluster, at its first copy, naming every log dir that holds it. Copies in dirs of different
/// clusters are not duplicates: no broker loads both.
pub fn duplicate_partition_findings(dirs: &[LogDir], out: &mut Vec<Finding>) {
    let ids: Vec<Option<&str>> = dirs.iter().map(cluster_id).collect();
    let mismatch = ids
        .iter()
        .any(|a| ids.iter().any(|b| different_clusters(*a, *b)));
    if let (true, Some(first)) = (mismatch, dirs.first()) {
        let listed: Vec<_> = dirs
            .iter()
            .map(|d| (d.path.clone(), cluster_id(d).map(str::to_string)))
            .collect();
        out.push(cluster_mismatch(&listed, &first.path));
    }
    for ((topic, partition), copies) in partitions_by_name(dirs) {
        let live: Vec<(&LogDir, &Partition)> = copies
            .iter()
            .filter(|(_, p)| {
                p.name
                    .as_ref()
                    .is_some_and(|n| n.state == PartitionDirState::Live)
            })
            .copied()
            .collect();
        for group in same_cluster_groups(&live)
            .iter()
            .flat_map(|g| same_node_groups(g))
        {
            let [(first_dir, first), _, ..] = group.as_slice() else {
                continue;
            };
            let live = group.as_slice();
            let mut f = Finding::new(
                &catalog::PARTITION_DUPLICATE,
                at_partition(first_dir, first),
                format!(
                    "{topic}-{partition} is live in {} log dirs: the broker refuses to start",
                    live.len()
                ),
            );
            for (d, _) in live {
                f = f.evidence("log_dir", EvidenceValue::Path(d.path.clone()));
            }
            out.push(f);
        }
    }
}

/// The `node.id` of `dir`'s readable `meta.properties`.
fn node_id(dir: &LogDir) -> Option<i32> {
    dir.meta
        .as_ref()
        .and_then(|m| m.as_ref().ok())
        .and_then(|m| m.node_id)
}

/// `copies` grouped by broker: several brokers' dirs read together (issue 21) hold one
/// replica each of a partition, not duplicates. One group per known `node.id` (a copy in a
/// dir without one joins every group), or one group when no id is known.
fn same_node_groups<'a>(
    copies: &[(&'a LogDir, &'a Partition)],
) -> Vec<Vec<(&'a LogDir, &'a Partition)>> {
    let mut nodes: Vec<i32> = copies.iter().filter_map(|(d, _)| node_id(d)).collect();
    nodes.sort_unstable();
    nodes.dedup();
    if nodes.is_empty() {
        return vec![copies.to_vec()];
    }
    (nodes.into_iter())
        .map(|n| {
            (copies.iter())
                .filter(|(d, _)| node_id(d).is_none_or(|m| m == n))
                .copied()
                .collect()
        })
        .collect()
}

/// `copies` grouped by cluster: one group per known `cluster.id` (a copy in a dir without one
/// joins every group), or one group when no id is known.
fn same_cluster_groups<'a>(
    copies: &[(&'a LogDir, &'a Partition)],
) -> Vec<Vec<(&'a LogDir, &'a Partition)>> {
    let mut clusters: Vec<&str> = copies.iter().filter_map(|(d, _)| cluster_id(d)).collect();
    clusters.sort_unstable();
    clusters.dedup();
    if clusters.is_empty() {
        return vec![copies.to_vec()];
    }
    clusters
        .into_iter()
        .map(|c| {
            copies
                .iter()
                .filter(|(d, _)| !different_clusters(cluster_id(d), Some(c)))
                .copied()
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::test_support::Scratch;
    use crate::model::segment::ScanDepth;

    #[test]
    fn one_dir_has_no_duplicates() {
        let mut out = Vec::new();
        duplicate_partition_findings(&[Scratch::new().load(ScanDepth::Tail)], &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn the_same_partition_in_two_dirs() {
        let (a, b) = (Scratch::new(), Scratch::new());
        let dirs = [a.load(ScanDepth::Tail), b.load(ScanDepth::Tail)];
        let mut out = Vec::new();
        duplicate_partition_findings(&dirs, &mut out);
        let orders0 = out
            .iter()
            .find(|f| f.location.dir.as_deref() == Some("orders-0"))
            .unwrap();
        assert_eq!(orders0.location.topic.as_deref(), Some("orders"));
        assert_eq!(
            orders0.evidence,
            dirs.iter()
                .map(|d| crate::checks::finding::Evidence {
                    name: "log_dir",
                    value: EvidenceValue::Path(d.path.clone())
                })
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn dirs_of_different_clusters_are_a_mismatch_not_duplicates() {
        let (a, b) = (Scratch::new(), Scratch::new());
        let meta = std::fs::read_to_string(b.path("meta.properties")).unwrap();
        std::fs::write(
            b.path("meta.properties"),
            meta.replace("TG9nQ2xlYW5GaXh0dXJlcw", "T3RoZXJDbHVzdGVyMDAwMA"),
        )
        .unwrap();
        let dirs = [a.load(ScanDepth::Tail), b.load(ScanDepth::Tail)];
        let mut out = Vec::new();
        duplicate_partition_findings(&dirs, &mut out);
        let codes: Vec<&str> = out.iter().map(|f| f.code).collect();
        assert_eq!(codes, ["dir.cluster_mismatch"], "{out:#?}");
        assert_eq!(out[0].location.log_dir, dirs[0].path);
    }
}
