//! Findings of domain `timeindex` (the `.timeindex`): the shared index rules of
//! [`super::index`], plus an empty index on a rolled segment and a last entry that disagrees
//! with the log (spec formats §3; cleanup §5: time retention reads the last entry).

use crate::formats::time_index::TimestampOffset;
use crate::model::log_dir::LogDir;
use crate::model::names::SegmentFileKind;
use crate::model::partition::Partition;
use crate::model::segment::{LogSummary, ScanDepth, Segment, TimeIndexSummary};
use crate::model::units::TimestampMs;
use crate::rules::recovery::PartitionRecovery;

use super::catalog;
use super::file::problem_finding;
use super::finding::{EvidenceValue, Finding, Location};
use super::index::{index_shape_findings, path_of, zero_tail_expected, TIME_INDEX};
use super::location::{at_segment, at_segment_file};

/// `timeindex.missing`: harmless when recovery rebuilds it, else time retention loses it.
fn missing_finding(loc: Location, recovered: bool) -> Finding {
    if recovered {
        // Recovery re-reads the batches and rebuilds both indexes (`LogSegment.recover`).
        Finding::new(
            TIME_INDEX.missing,
            loc,
            "no .timeindex: the broker recovers this segment on start, which rebuilds \
             its time index from the batches",
        )
        .fix("none needed: the broker rebuilds it when it recovers the segment on start")
    } else {
        Finding::new(
            TIME_INDEX.missing,
            loc,
            "no .timeindex: the broker creates an empty one and does not rebuild it, so \
             time retention falls back to the .log file's mtime",
        )
    }
}

/// Where the index's `last` entry disagrees with the batches read (`every_batch`: all of
/// them): its timestamp against the largest one, its offset against the segment's last.
/// Empty when they agree.
fn last_entry_evidence(
    last: TimestampOffset,
    log: &LogSummary,
    every_batch: bool,
) -> Vec<(&'static str, EvidenceValue)> {
    let seen_max = log
        .max_timestamp_seen
        .filter(|t| t.is_set())
        .map(TimestampMs::get);
    let last_offset = log.last_batch.map(|b| b.last_offset.get());
    let mut evidence = Vec::new();
    let timestamp_disagrees = seen_max.filter(|m| {
        if every_batch {
            *m != last.timestamp
        } else {
            *m > last.timestamp
        }
    });
    if let Some(log_max) = timestamp_disagrees {
        evidence.push((
            "index_last_timestamp",
            EvidenceValue::TimestampMs(last.timestamp),
        ));
        evidence.push((
            if every_batch {
                "largest_batch_timestamp"
            } else {
                "largest_batch_timestamp_read"
            },
            EvidenceValue::TimestampMs(log_max),
        ));
    }
    if let Some(last_offset) = last_offset.filter(|o| last.offset > *o) {
        evidence.push(("index_last_offset", EvidenceValue::Offset(last.offset)));
        evidence.push(("segment_last_offset", EvidenceValue::Offset(last_offset)));
    }
    evidence
}

/// `timeindex.disagrees_with_log`, at the index's last valid entry.
fn disagreement_finding(
    ti: &TimeIndexSummary,
    evidence: Vec<(&'static str, EvidenceValue)>,
    loc: Location,
) -> Finding {
    let mut f = Finding::new(
        &catalog::TIMEINDEX_DISAGREES_WITH_LOG,
        Location {
            byte_offset: Some(
                ti.shape.valid_entries.saturating_sub(1) as u64 * TIME_INDEX.entry_size,
            ),
            ..loc
        },
        "time index's last entry disagrees with the log: time retention uses the index",
    );
    for (name, value) in evidence {
        f = f.evidence(name, value);
    }
    f
}

/// Findings about the `.timeindex` of `seg`, at the depth its partition was read. Only its
/// shape is checked when `recovery` recovers the segment (the broker rebuilds the index).
pub fn time_index_findings(
    dir: &LogDir,
    p: &Partition,
    seg: &Segment,
    recovery: &PartitionRecovery,
    out: &mut Vec<Finding>,
) {
    let recovered = recovery.recovers(seg);
    let depth = p.depth;
    let base = seg.base_offset.get();
    let ti = match &seg.time_index {
        None => {
            let loc = at_segment_file(dir, p, base, &path_of(p, seg, SegmentFileKind::Log), None);
            out.push(missing_finding(loc, recovered));
            return;
        }
        Some(Err(e)) => {
            out.push(problem_finding(
                at_segment(dir, p, base),
                TIME_INDEX.name,
                e,
                catalog::TIMEINDEX_SANITY_FAILED.fix,
            ));
            return;
        }
        Some(Ok(t)) => t,
    };
    let loc = || {
        at_segment_file(
            dir,
            p,
            base,
            &path_of(p, seg, SegmentFileKind::TimeIndex),
            None,
        )
    };
    index_shape_findings(
        &TIME_INDEX,
        &ti.shape,
        &loc,
        seg.active,
        zero_tail_expected(p, seg, recovered),
        out,
    );
    // The broker rebuilds the indexes of a recovered segment; nothing below matters for it.
    if recovered {
        return;
    }
    let Some(log) = seg.log_summary() else { return };
    let metadata_log = p.name.as_ref().is_some_and(|n| n.is_metadata_log());
    if ti.shape.slots == 0 && !seg.active && log.max_timestamp_seen.is_some_and(TimestampMs::is_set)
    {
        out.push(Finding::new(
            &catalog::TIMEINDEX_EMPTY,
            loc(),
            "empty time index on a rolled segment with timestamps: time retention uses the .log \
             file's mtime instead of the records' timestamps",
        ));
    }
    // The index's last entry must be the log's largest timestamp (Kafka appends it on roll and
    // close) at an offset inside the segment. Judged on the batches the depth read (the
    // contract on `ScanDepth`): with every header read, the largest timestamp must equal the
    // entry's; with only the first batch and the tail read, none of them may be above it (the
    // largest may lie in the unread middle). The last batch is read at every depth. The
    // metadata log's Raft layer does not append the final entry on close; a walk that stopped
    // early proves nothing.
    let tidy = ti.shape.garbage == 0 && ti.shape.zero_tail == 0;
    if metadata_log || !tidy || log.walk_error.is_some() {
        return;
    }
    let Some(last) = ti.last_valid else { return };
    let every_batch = depth >= ScanDepth::Headers || log.every_batch_read;
    let evidence = last_entry_evidence(last, log, every_batch);
    if !evidence.is_empty() {
        out.push(disagreement_finding(ti, evidence, loc()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::finding::Severity;
    use crate::checks::test_support::{codes, orders_segment_findings, Scratch};

    const TIMEINDEX: &str = "orders-0/00000000000000000004.timeindex";

    fn findings(s: &Scratch, depth: ScanDepth) -> Vec<Finding> {
        orders_segment_findings(s, depth, &mut time_index_findings)
    }

    #[test]
    fn healthy_time_indexes_have_no_findings() {
        assert!(findings(&Scratch::new(), ScanDepth::Verify).is_empty());
    }

    #[test]
    fn missing_time_index() {
        let s = Scratch::new();
        std::fs::remove_file(s.path(TIMEINDEX)).unwrap();
        let f = findings(&s, ScanDepth::Headers);
        assert_eq!(codes(&f), ["timeindex.missing"]);
        assert_eq!(f[0].severity, Severity::Warning);
    }

    #[test]
    fn missing_time_index_of_a_recovered_segment_is_rebuilt() {
        let s = Scratch::new();
        std::fs::remove_file(s.path(TIMEINDEX)).unwrap();
        std::fs::remove_file(s.path(".kafka_cleanshutdown")).ok();
        std::fs::write(
            s.path("recovery-point-offset-checkpoint"),
            "0\n3\nsized 0 24\norders 0 0\norders 2 36\n",
        )
        .unwrap();
        let f = findings(&s, ScanDepth::Headers);
        assert_eq!(codes(&f), ["timeindex.missing"]);
        assert!(f[0].message.contains("rebuilds"), "{}", f[0].message);
        assert!(!f[0].message.contains("does not"), "{}", f[0].message);
        assert!(f[0].fix.contains("none needed"), "{}", f[0].fix);
    }

    #[test]
    fn missing_time_index_of_a_segment_without_index_is_rebuilt_after_a_clean_shutdown() {
        // No .index: the broker recovers the segment on start whatever the shutdown was, and
        // recovery rebuilds the time index too.
        let s = Scratch::new();
        std::fs::remove_file(s.path(TIMEINDEX)).unwrap();
        std::fs::remove_file(s.path("orders-0/00000000000000000004.index")).unwrap();
        assert!(s.path(".kafka_cleanshutdown").exists());
        let f = findings(&s, ScanDepth::Headers);
        assert_eq!(codes(&f), ["timeindex.missing"]);
        assert!(f[0].message.contains("rebuilds"), "{}", f[0].message);
        assert!(f[0].fix.contains("none needed"), "{}", f[0].fix);
    }

    #[test]
    fn zero_tail_on_a_rolled_segment_says_retention_expires_it() {
        let s = Scratch::new();
        let mut b = std::fs::read(s.path(TIMEINDEX)).unwrap();
        b.extend([0u8; 24]);
        std::fs::write(s.path(TIMEINDEX), &b).unwrap();
        let f = findings(&s, ScanDepth::Headers);
        let z = f.iter().find(|f| f.code == "timeindex.zero_tail").unwrap();
        assert!(z.message.contains("expired at once"), "{}", z.message);
    }

    #[test]
    fn wrong_last_timestamp_is_typed_evidence() {
        let s = Scratch::new();
        let mut b = std::fs::read(s.path(TIMEINDEX)).unwrap();
        let n = b.len();
        // Raise the last entry's timestamp by one: still ordered, no longer the log's largest.
        let ts = i64::from_be_bytes(b[n - 12..n - 4].try_into().unwrap()) + 1;
        b[n - 12..n - 4].copy_from_slice(&ts.to_be_bytes());
        std::fs::write(s.path(TIMEINDEX), &b).unwrap();
        // The segment's index has no entry past its first batch: `Tail` reads every batch too.
        for depth in [ScanDepth::Tail, ScanDepth::Headers] {
            let f = findings(&s, depth);
            assert_eq!(
                codes(&f),
                ["timeindex.disagrees_with_log"],
                "{depth:?}: {f:#?}"
            );
            assert_eq!(
                f[0].evidence[0].value,
                EvidenceValue::TimestampMs(ts),
                "{:?}",
                f[0].evidence
            );
            assert_eq!(f[0].evidence[1].name, "largest_batch_timestamp");
        }
    }
}
