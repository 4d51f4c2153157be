//! Findings of domain `txnindex` (the `.txnindex`): entries that fail Kafka's sanity check or
//! the stricter ones, summarised with bounded evidence (spec formats §3.5).

use crate::model::log_dir::LogDir;
use crate::model::names::SegmentFileKind;
use crate::model::partition::Partition;
use crate::model::segment::Segment;

use super::catalog;
use super::file::problem_finding;
use super::finding::Finding;
use super::index::path_of;
use super::location::{at_segment, at_segment_file};
use super::problems::summarise;

/// Findings about the `.txnindex` of `seg` (none when it has none).
pub fn txn_index_findings(dir: &LogDir, p: &Partition, seg: &Segment, out: &mut Vec<Finding>) {
    let base = seg.base_offset.get();
    match seg.txn_index.as_deref() {
        None => {}
        Some(Err(e)) => out.push(problem_finding(
            at_segment(dir, p, base),
            "transaction index",
            e,
            "",
        )),
        Some(Ok(t)) if !t.problems.is_empty() => out.push(
            Finding::new(
                &catalog::TXNINDEX_CORRUPT,
                at_segment_file(
                    dir,
                    p,
                    base,
                    &path_of(p, seg, SegmentFileKind::TxnIndex),
                    t.problems.first().map(|p| p.offset()),
                ),
                "transaction index fails Kafka's checks; the broker recovers the segment on start",
            )
            .with_evidence(summarise(&t.problems)),
        ),
        Some(Ok(_)) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::finding::EvidenceValue;
    use crate::checks::problems::MAX_EXAMPLES;
    use crate::checks::test_support::{codes, orders_segment_findings, Scratch};
    use crate::model::segment::ScanDepth;

    fn findings(s: &Scratch) -> Vec<Finding> {
        orders_segment_findings(s, ScanDepth::Headers, &mut |d, p, seg, _, out| {
            txn_index_findings(d, p, seg, out)
        })
    }

    #[test]
    fn no_txn_index_no_findings() {
        assert!(findings(&Scratch::new()).is_empty());
    }

    #[test]
    fn zero_filled_txnindex_is_one_bounded_finding() {
        // 30 000 zero entries: each has last offset 0 < base 4 and none increases, so the model
        // holds about 60 000 problems; the finding holds a constant number of evidence items.
        let s = Scratch::new();
        let path = s.path("orders-0/00000000000000000004.txnindex");
        std::fs::write(&path, vec![0u8; 34 * 30_000]).unwrap();
        let f = findings(&s);
        assert_eq!(codes(&f), ["txnindex.corrupt"]);
        let ev = &f[0].evidence;
        assert!(
            ev.len() <= 4 + MAX_EXAMPLES * 4,
            "{} items: {ev:?}",
            ev.len()
        );
        let EvidenceValue::Count(n) = ev[0].value else {
            panic!("{ev:?}")
        };
        assert!(n >= 30_000, "{n}");
        assert_eq!(f[0].location.byte_offset, Some(0));
        assert_eq!(f[0].location.segment, Some(4));
    }
}
