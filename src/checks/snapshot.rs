//! Findings of domain `snapshot`: producer snapshots (`.snapshot`) that do not parse or fail
//! their CRC-32C (spec formats §4.4).

use crate::model::log_dir::LogDir;
use crate::model::partition::Partition;

use super::catalog;
use super::file::problem_finding;
use super::finding::{EvidenceValue, Finding};
use super::location::{at_file, at_partition};

/// Findings about the producer snapshots of `p`.
pub fn snapshot_findings(dir: &LogDir, p: &Partition, out: &mut Vec<Finding>) {
    for s in &p.snapshots {
        match &s.parsed {
            Err(e) => out.push(problem_finding(
                at_partition(dir, p),
                "producer snapshot",
                e,
                "none needed: the broker deletes it and rebuilds producer state from an older snapshot or the log",
            )),
            Ok(snap) if !snap.crc_ok() => out.push(
                Finding::new(
                    &catalog::SNAPSHOT_CRC_MISMATCH,
                    at_file(dir, p, &s.file.path, Some(2)),
                    "producer snapshot fails its CRC-32C; the broker deletes it and rebuilds producer state",
                )
                .evidence("stored_crc", EvidenceValue::Crc(snap.stored_crc))
                .evidence("computed_crc", EvidenceValue::Crc(snap.computed_crc)),
            ),
            Ok(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::test_support::{codes, Scratch};
    use crate::model::segment::ScanDepth;

    fn findings_at(s: &Scratch, depth: ScanDepth) -> Vec<Finding> {
        let d = s.load(depth);
        let mut out = Vec::new();
        for p in &d.partitions {
            snapshot_findings(&d, p, &mut out);
        }
        out
    }

    fn findings(s: &Scratch) -> Vec<Finding> {
        findings_at(s, ScanDepth::Headers)
    }

    #[test]
    fn healthy_snapshots_have_no_findings() {
        assert!(findings(&Scratch::new()).is_empty());
        assert!(findings_at(&Scratch::new(), ScanDepth::Tail).is_empty());
    }

    /// The offsets of the snapshots of orders-0 loaded at `Tail`.
    fn read_at_tail(s: &Scratch) -> Vec<i64> {
        let d = s.load(ScanDepth::Tail);
        let p = d.partitions.iter().find(|p| p.dir_name == "orders-0");
        p.unwrap().snapshots.iter().map(|x| x.offset).collect()
    }

    /// At depth `Tail` only the snapshots the broker's load reads are read: the newest (36 of
    /// orders-0's 4..36), and the next older ones while the newer are corrupt.
    #[test]
    fn at_tail_only_the_snapshots_the_broker_loads_are_read() {
        let s = Scratch::new();
        std::fs::write(s.path("orders-0/00000000000000000008.snapshot"), [0u8, 1]).unwrap();
        assert_eq!(codes(&findings(&s)), ["file.corrupt"]);
        assert!(findings_at(&s, ScanDepth::Tail).is_empty());
        assert_eq!(read_at_tail(&s), [36]);
        std::fs::write(s.path("orders-0/00000000000000000036.snapshot"), [0u8, 1]).unwrap();
        assert_eq!(codes(&findings_at(&s, ScanDepth::Tail)), ["file.corrupt"]);
        assert_eq!(read_at_tail(&s), [32, 36]);
    }

    #[test]
    fn flipped_byte_fails_the_crc_with_both_values_typed() {
        let s = Scratch::new();
        let path = s.path("orders-0/00000000000000000008.snapshot");
        let mut b = std::fs::read(&path).unwrap();
        let last = b.len() - 1;
        b[last] ^= 0xff;
        std::fs::write(&path, b).unwrap();
        let f = findings(&s);
        assert_eq!(codes(&f), ["snapshot.crc_mismatch"], "{f:#?}");
        assert!(matches!(f[0].evidence[0].value, EvidenceValue::Crc(_)));
        assert_ne!(f[0].evidence[0].value, f[0].evidence[1].value);
    }

    #[test]
    fn truncated_snapshot_is_corrupt() {
        let s = Scratch::new();
        std::fs::write(s.path("orders-0/00000000000000000008.snapshot"), [0u8, 1]).unwrap();
        assert_eq!(codes(&findings(&s)), ["file.corrupt"]);
    }
}
