//! Test support of the checks: the codes of findings, and running one per-segment check over a
//! private copy of a fixture log dir ([`Scratch`], the model's).

use crate::model::log_dir::LogDir;
use crate::model::partition::Partition;
use crate::model::segment::{ScanDepth, Segment};
use crate::rules::recovery::{partition_recovery, PartitionRecovery};

use super::finding::Finding;

pub use crate::model::test_support::Scratch;

/// The codes of `findings`, in order.
pub fn codes(findings: &[Finding]) -> Vec<&'static str> {
    findings.iter().map(|f| f.code).collect()
}

/// What one per-segment check sees: the log dir, the partition, the segment, what the next start
/// recovers, and where findings go.
pub type SegmentCheck<'a> =
    &'a mut dyn FnMut(&LogDir, &Partition, &Segment, &PartitionRecovery, &mut Vec<Finding>);

/// Run `check` over every segment of the copy's `orders-0` loaded at `depth`.
pub fn orders_segment_findings(s: &Scratch, depth: ScanDepth, check: SegmentCheck) -> Vec<Finding> {
    let d = s.load(depth);
    let p = d
        .partitions
        .iter()
        .find(|p| p.dir_name == "orders-0")
        .unwrap();
    let recovery = partition_recovery(d.clean_shutdown.is_some(), p);
    let mut out = Vec::new();
    for seg in &p.segments {
        check(&d, p, seg, &recovery, &mut out);
    }
    out
}
