//! Findings of domains `segment` and `log`: a segment's `.log` (size, batch headers, its tail,
//! `--verify` results, offsets against the base offset and the previous segment) and index
//! files left without a `.log` (spec formats §1.4, §2; cleanup §5).

use crate::formats::walk::WalkEnd;
use crate::model::log_dir::LogDir;
use crate::model::names::SegmentFileKind;
use crate::model::partition::Partition;
use crate::model::segment::{LogSummary, Segment};
use crate::model::units::FilePos;
use crate::rules::recovery::PartitionRecovery;

use super::catalog;
use super::file::problem_finding;
use super::finding::{EvidenceValue, Finding, FindingClass, Location};
use super::location::{at_segment, at_segment_file};

/// `segment.orphan_index` for each index file (`.index`, `.timeindex`, `.txnindex`) without
/// its `.log`: the broker's load deletes each one (`LogLoader.loadSegmentFiles`, "Found an
/// orphaned index file"); they are no segment.
pub fn orphan_index_findings(dir: &LogDir, p: &Partition, out: &mut Vec<Finding>) {
    for seg in &p.orphan_indexes {
        let base = seg.base_offset.get();
        for kind in [
            SegmentFileKind::Index,
            SegmentFileKind::TimeIndex,
            SegmentFileKind::TxnIndex,
        ] {
            let (Some(path), Some(file)) = (seg.path(&p.path, kind), seg.files.get(kind)) else {
                continue;
            };
            out.push(
                Finding::new(
                    &catalog::SEGMENT_ORPHAN_INDEX,
                    at_segment_file(dir, p, base, &path, None),
                    format!(
                        "{} without its .log: no segment; the broker deletes it on start",
                        kind.suffix()
                    ),
                )
                .evidence("size", EvidenceValue::Bytes(file.size.get())),
            );
        }
    }
}

/// `log.corrupt_batch`: a batch whose header fails its checks; what happens next depends on
/// whether the broker's recovery reaches this segment.
fn corrupt_batch_finding(
    log: &LogSummary,
    recovered: bool,
    at: &dyn Fn(Option<u64>) -> Location,
    out: &mut Vec<Finding>,
) {
    if let Some(e) = &log.walk_error {
        out.push(
            Finding::new(
                &catalog::LOG_CORRUPT_BATCH,
                at(Some(log.valid_end.get())),
                format!("corrupt batch: {}", e.kind),
            )
            .evidence("bad_field_at", EvidenceValue::Position(e.offset))
            .evidence(
                "unverifiable",
                EvidenceValue::Bytes(log.size.get().saturating_sub(log.valid_end.get())),
            )
            .fix(if recovered {
                format!(
                    "the broker's recovery on the next start truncates this segment to {} bytes and \
                     deletes later segments; copy the partition aside first if that data matters",
                    log.valid_end.get()
                )
            } else {
                "the broker will not recover this segment (clean shutdown, below the recovery point): \
                 reads stop at this batch; restore it from a replica, or remove .kafka_cleanshutdown to \
                 make the broker recover (and truncate) it"
                    .to_string()
            }),
        );
    }
}

/// `log.truncated_tail` / `log.zero_filled_tail`: a harmless condition when recovery cuts it.
fn tail_finding(
    log: &LogSummary,
    recovered: bool,
    at: &dyn Fn(Option<u64>) -> Location,
    out: &mut Vec<Finding>,
) {
    let tail = match &log.end {
        Some(WalkEnd::PartialBatch {
            position,
            declared_size,
            available,
        }) => Some(
            Finding::new(
                &catalog::LOG_TRUNCATED_TAIL,
                at(Some(*position)),
                "incomplete batch at the end of the segment",
            )
            .evidence("declared", EvidenceValue::Bytes(*declared_size))
            .evidence("present", EvidenceValue::Bytes(*available)),
        ),
        Some(WalkEnd::ZeroFilled { position, len }) => Some(
            Finding::new(
                &catalog::LOG_ZERO_FILLED_TAIL,
                at(Some(*position)),
                "zero-filled tail at the end of the segment (preallocation or a crash)",
            )
            .evidence("zero_bytes", EvidenceValue::Bytes(*len)),
        ),
        _ => None,
    };
    if let Some(f) = tail {
        // Recovery cuts such a tail; without recovery the broker appends after it (or reads
        // into it), which turns it into corruption in the middle of the log.
        let position = f.location.byte_offset.unwrap_or(0);
        out.push(if recovered {
            // Its "none needed" fix makes it info (`Finding::fix`).
            f.with_class(FindingClass::Condition)
                .fix(format!(
                    "none needed: the broker's recovery truncates the segment to {position} bytes on the next start"
                ))
        } else {
            f.fix(format!(
                "the broker will not recover this segment: truncate it to {position} bytes with the \
                 broker stopped, or remove .kafka_cleanshutdown so its recovery does"
            ))
        });
    }
}

/// `log.verify_failed` (`--verify`), unless the header walk already stopped at the same place.
fn verify_finding(log: &LogSummary, at: &dyn Fn(Option<u64>) -> Location, out: &mut Vec<Finding>) {
    if let Some(e) = &log.verify_error {
        if log.walk_error.as_ref() != Some(e) {
            // The batch's start, where DumpLogSegments and the broker's recovery point (and
            // recovery truncates); the bad field is evidence.
            let batch_at = log.verify_failed_batch.map_or(e.offset, FilePos::get);
            out.push(
                Finding::new(
                    &catalog::LOG_VERIFY_FAILED,
                    at(Some(batch_at)),
                    format!(
                        "batch at position {batch_at} fails verification: {}",
                        e.kind
                    ),
                )
                .evidence("batch_position", EvidenceValue::Position(batch_at))
                .evidence("bad_field_at", EvidenceValue::Position(e.offset))
                .evidence(
                    "batches_verified_before",
                    EvidenceValue::Count(log.verified_batches.unwrap_or(0)),
                ),
            );
        }
    }
}

/// Offsets against the segment's base (`log.offset_below_base`) and against the previous
/// segment's next offset `prev_next` (`log.overlapping_segments`).
fn offset_findings(
    log: &LogSummary,
    base: i64,
    prev_next: Option<i64>,
    at: &dyn Fn(Option<u64>) -> Location,
    out: &mut Vec<Finding>,
) {
    if let Some(first) = log.first_batch {
        if first.base_offset.get() < base {
            out.push(
                Finding::new(
                    &catalog::LOG_OFFSET_BELOW_BASE,
                    at(Some(first.position.get())),
                    "first batch starts below the segment's base offset",
                )
                .evidence("segment_base_offset", EvidenceValue::Offset(base))
                .evidence(
                    "batch_base_offset",
                    EvidenceValue::Offset(first.base_offset.get()),
                ),
            );
        }
    }
    if let Some(prev) = prev_next {
        if log.first_batch.is_some() && base < prev {
            out.push(
                Finding::new(
                    &catalog::LOG_OVERLAPPING_SEGMENTS,
                    at(None),
                    "segment starts before the previous segment ends",
                )
                .evidence("previous_next_offset", EvidenceValue::Offset(prev))
                .evidence("base_offset", EvidenceValue::Offset(base)),
            );
        }
    }
}

/// Findings about the `.log` of `seg`, judged by whether `recovery` (the partition's recovery
/// on the next start) recovers it. `prev_next` is the next offset of the previous segment
/// with batches (updated here). Returns false when the segment has no `.log` (never for a
/// loaded partition's segments: index files without one are its `orphan_indexes`).
pub fn log_findings(
    dir: &LogDir,
    p: &Partition,
    seg: &Segment,
    recovery: &PartitionRecovery,
    prev_next: &mut Option<i64>,
    out: &mut Vec<Finding>,
) -> bool {
    let files = &seg.files;
    let base = seg.base_offset.get();
    // The model keeps index files without a `.log` apart ([`orphan_index_findings`]).
    if files.log.is_none() {
        return false;
    }
    let recovered = recovery.recovers(seg);
    let log = match &seg.log {
        Some(Err(e)) => {
            out.push(problem_finding(
                at_segment(dir, p, base),
                "segment log",
                e,
                "",
            ));
            return true;
        }
        None => return true,
        Some(Ok(log)) => log,
    };
    // (The path is made only for a finding: most segments have none.)
    let at = |byte: Option<u64>| {
        let path = seg.path(&p.path, SegmentFileKind::Log).unwrap_or_default();
        at_segment_file(dir, p, base, &path, byte)
    };
    if log.size.get() > i32::MAX as u64 {
        out.push(
            Finding::new(
                &catalog::LOG_TOO_LARGE,
                at(None),
                "segment is larger than 2 GiB: the broker cannot open it (FileRecords)",
            )
            .evidence("size", EvidenceValue::Bytes(log.size.get())),
        );
    }
    corrupt_batch_finding(log, recovered, &at, out);
    tail_finding(log, recovered, &at, out);
    verify_finding(log, &at, out);
    offset_findings(log, base, *prev_next, &at, out);
    *prev_next = Some(log.next_offset.get());
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::finding::Severity;
    use crate::checks::test_support::{codes, orders_segment_findings, Scratch};
    use crate::model::segment::ScanDepth;

    fn findings(s: &Scratch, depth: ScanDepth) -> Vec<Finding> {
        let mut prev = None;
        orders_segment_findings(s, depth, &mut |d, p, seg, recovery, out| {
            log_findings(d, p, seg, recovery, &mut prev, out);
        })
    }

    const LOG: &str = "orders-0/00000000000000000004.log";

    #[test]
    fn healthy_logs_have_no_findings() {
        assert!(findings(&Scratch::new(), ScanDepth::Verify).is_empty());
    }

    #[test]
    fn truncated_tail_below_the_recovery_point_is_a_corruption_error() {
        let s = Scratch::new();
        let b = std::fs::read(s.path(LOG)).unwrap();
        std::fs::write(s.path(LOG), &b[..b.len() - 10]).unwrap();
        let f = findings(&s, ScanDepth::Headers);
        assert_eq!(codes(&f), ["log.truncated_tail"]);
        assert_eq!(f[0].severity, Severity::Error);
        assert_eq!(f[0].class, FindingClass::Corruption);
        assert_eq!(f[0].location.segment, Some(4));
        assert_eq!(f[0].location.topic.as_deref(), Some("orders"));
        assert!(f[0].fix.contains("truncate it to"), "{}", f[0].fix);
        assert_eq!(f[0].evidence[0].name, "declared");
    }

    #[test]
    fn truncated_tail_recovered_on_start_is_info() {
        let s = Scratch::new();
        std::fs::remove_file(s.path(".kafka_cleanshutdown")).unwrap();
        std::fs::write(s.path("recovery-point-offset-checkpoint"), "0\n0\n").unwrap();
        let b = std::fs::read(s.path(LOG)).unwrap();
        std::fs::write(s.path(LOG), &b[..b.len() - 10]).unwrap();
        let f = findings(&s, ScanDepth::Headers);
        assert_eq!(codes(&f), ["log.truncated_tail"]);
        // Recovery truncates it: nothing to do, so info (exit codes mean action).
        assert_eq!(f[0].severity, Severity::Info);
        assert_eq!(f[0].class, FindingClass::Condition);
        assert!(f[0].fix.starts_with("none needed"), "{}", f[0].fix);
    }

    #[test]
    fn zero_filled_tail_counts_its_bytes() {
        let s = Scratch::new();
        let mut b = std::fs::read(s.path(LOG)).unwrap();
        b.extend([0u8; 100]);
        std::fs::write(s.path(LOG), &b).unwrap();
        let f = findings(&s, ScanDepth::Headers);
        assert_eq!(codes(&f), ["log.zero_filled_tail"]);
        assert_eq!(f[0].evidence[0].value, EvidenceValue::Bytes(100));
    }

    #[test]
    fn each_index_file_without_its_log_is_an_orphan_not_a_segment() {
        let s = Scratch::new();
        std::fs::remove_file(s.path(LOG)).unwrap();
        let d = s.load(ScanDepth::Headers);
        let p = d
            .partitions
            .iter()
            .find(|p| p.dir_name == "orders-0")
            .unwrap();
        assert!(p.segments.iter().all(|s| s.base_offset.get() != 4));
        assert_eq!(p.segment_count, p.segments.len());
        let mut out = Vec::new();
        orphan_index_findings(&d, p, &mut out);
        assert_eq!(
            codes(&out),
            ["segment.orphan_index", "segment.orphan_index"]
        );
        let files: Vec<String> = out
            .iter()
            .map(|f| f.location.file.as_ref().unwrap().display().to_string())
            .collect();
        assert!(
            files[0].ends_with("00000000000000000004.index"),
            "{files:?}"
        );
        assert!(
            files[1].ends_with("00000000000000000004.timeindex"),
            "{files:?}"
        );
        assert!(out.iter().all(|f| f.location.segment == Some(4)));
        // The segments that remain say nothing about it.
        assert!(findings(&s, ScanDepth::Headers).is_empty());
    }
}
