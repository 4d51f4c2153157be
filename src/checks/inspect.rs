//! Findings of `inspect`: what is unreadable, corrupt, left over or unexpected in a log dir,
//! judged by what the broker does with it (spec formats §1.4, §3.7–3.9, §4.4, §5). Composes the
//! domain checks; `diagnose` composes the same functions.

use rayon::prelude::*;

use crate::model::log_dir::LogDir;
use crate::model::mode::{run_modes, LogDirMode};
use crate::model::partition::{Partition, PARTITIONS_PER_TASK};
use crate::rules::recovery::{recovery_on_next_start, PartitionRecovery};

use super::duplicates::duplicate_partition_findings;
use super::finding::Finding;
use super::index::offset_index_findings;
use super::log_dir::log_dir_findings;
use super::partition::{partition_dir_findings, partition_offset_findings};
use super::segment::{log_findings, orphan_index_findings};
use super::snapshot::snapshot_findings;
use super::time_index::time_index_findings;
use super::txn_index::txn_index_findings;

/// Everything `inspect` can say about loaded log dirs, sorted by location. Each partition is
/// judged at the depth it was read ([`crate::model::partition::Partition::depth`]) and by what
/// the broker's next start recovers ([`recovery_on_next_start`]).
pub fn inspect_findings(dirs: &[LogDir]) -> Vec<Finding> {
    let mut out = Vec::new();
    for (dir, mode) in dirs.iter().zip(run_modes(dirs)) {
        log_dir_findings(dir, &mut out);
        let recovery = recovery_on_next_start(dir);
        // Each partition is judged alone: judged in parallel, its findings kept in the
        // partitions' order (the sort below is stable).
        let per_partition: Vec<Vec<Finding>> = (dir.partitions.par_iter())
            .zip(recovery.partitions.par_iter())
            .with_max_len(PARTITIONS_PER_TASK)
            .map(|(p, recovery)| {
                let mut out = Vec::new();
                partition_findings(dir, p, mode.mode, recovery, &mut out);
                out
            })
            .collect();
        out.extend(per_partition.into_iter().flatten());
    }
    duplicate_partition_findings(dirs, &mut out);
    sort_findings(&mut out);
    out
}

/// The findings of one partition of `dir`.
fn partition_findings(
    dir: &LogDir,
    p: &Partition,
    mode: LogDirMode,
    recovery: &PartitionRecovery,
    out: &mut Vec<Finding>,
) {
    if !partition_dir_findings(dir, p, mode, out) {
        return;
    }
    snapshot_findings(dir, p, out);
    orphan_index_findings(dir, p, out);
    let mut prev_next: Option<i64> = None;
    for seg in &p.segments {
        if log_findings(dir, p, seg, recovery, &mut prev_next, out) {
            offset_index_findings(dir, p, seg, recovery, out);
            time_index_findings(dir, p, seg, recovery, out);
            txn_index_findings(dir, p, seg, out);
        }
    }
    partition_offset_findings(dir, p, out);
}

/// Sort findings by location (then code), as every report shows them.
pub fn sort_findings(findings: &mut [Finding]) {
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::test_support::{codes, Scratch};
    use crate::model::segment::ScanDepth;

    #[test]
    fn healthy_copy_has_no_findings_at_any_depth() {
        let s = Scratch::new();
        for depth in [ScanDepth::Tail, ScanDepth::Headers, ScanDepth::Verify] {
            assert_eq!(
                codes(&inspect_findings(&[s.load(depth)])),
                Vec::<&str>::new()
            );
        }
    }

    #[test]
    fn findings_are_sorted_by_location_whatever_the_push_order() {
        let s = Scratch::new();
        std::fs::write(s.path("zz-notes"), "").unwrap();
        std::fs::write(s.path("orders-0/notes"), "").unwrap();
        std::fs::remove_file(s.path("orders-0/00000000000000000004.index")).unwrap();
        let f = inspect_findings(&[s.load(ScanDepth::Headers)]);
        assert_eq!(
            codes(&f),
            [
                "dir.unknown_file",
                "index.missing",
                "partition.unknown_file"
            ],
            "{f:#?}"
        );
    }
}
