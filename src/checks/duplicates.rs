//! Findings across log dirs: the same live partition in two log dirs of one run, which the
//! broker refuses to start with ("Duplicate log directories", `LogManager.loadLog`).

use crate::model::log_dir::{partitions_by_name, LogDir};
use crate::model::names::PartitionDirState;

use super::catalog;
use super::finding::{EvidenceValue, Finding};
use super::location::at_partition;

/// One `partition.duplicate` per partition live in more than one of `dirs`, at its first copy,
/// naming every log dir that holds it.
pub fn duplicate_partition_findings(dirs: &[LogDir], out: &mut Vec<Finding>) {
    for ((topic, partition), copies) in partitions_by_name(dirs) {
        let live: Vec<_> = copies
            .iter()
            .filter(|(_, p)| {
                p.name
                    .as_ref()
                    .is_some_and(|n| n.state == PartitionDirState::Live)
            })
            .collect();
        if let [(first_dir, first), rest @ ..] = live.as_slice() {
            if rest.is_empty() {
                continue;
            }
            let mut f = Finding::new(
                &catalog::PARTITION_DUPLICATE,
                at_partition(first_dir, first),
                format!(
                    "{topic}-{partition} is live in {} log dirs: the broker refuses to start",
                    live.len()
                ),
            );
            for (d, _) in &live {
                f = f.evidence("log_dir", EvidenceValue::Path(d.path.clone()));
            }
            out.push(f);
        }
    }
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
}
