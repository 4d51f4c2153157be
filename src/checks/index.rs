//! Findings of domain `index` (the `.index`), plus what the offset and time index share: Kafka's
//! sanity check, a zero-filled tail where Kafka would read it, entries out of order, and a
//! missing file (spec formats §3; cleanup §5). The time index's own rules are in
//! [`super::time_index`].

use std::path::PathBuf;

use crate::formats::offset_index::OffsetPosition;
use crate::model::log_dir::LogDir;
use crate::model::names::{PartitionDirState, SegmentFileKind};
use crate::model::partition::Partition;
use crate::model::segment::{IndexLogMismatch, IndexShape, Segment};
use crate::rules::recovery::PartitionRecovery;

use super::catalog::{self, FindingKind};
use super::file::problem_finding;
use super::finding::{Evidence, EvidenceValue, Finding, Location, Severity};
use super::location::{at_segment, at_segment_file};
use super::problems::{summarise, Problem};

/// Whether a zero-filled index tail is what the broker normally leaves or repairs itself: a
/// segment it recovers on the next start (`recovered`: its indexes are rebuilt), the metadata log's active
/// segment (the Raft layer leaves its indexes preallocated even on a clean shutdown), or any
/// segment of a `-delete` dir (renamed while active, never loaded again) or a `-stray` dir
/// (renamed while active at start, never appended to; rf3-jbod: the broker restarted with it).
/// Seen with Kafka 4.4.
pub fn zero_tail_expected(p: &Partition, seg: &Segment, recovered: bool) -> bool {
    let set_aside = p.name.as_ref().is_some_and(|n| {
        matches!(
            n.state,
            PartitionDirState::Delete(_) | PartitionDirState::Stray(_)
        )
    });
    let metadata_log = p.name.as_ref().is_some_and(|n| n.is_metadata_log());
    set_aside || recovered || (seg.active && metadata_log)
}

/// What differs between the offset index and the time index in their findings.
pub struct IndexKind {
    /// Name in messages.
    pub name: &'static str,
    /// Bytes per slot.
    pub entry_size: u64,
    /// The file is missing.
    pub missing: &'static FindingKind,
    /// Kafka's sanity check fails.
    pub sanity_failed: &'static FindingKind,
    /// A zero tail Kafka reads.
    pub zero_tail: &'static FindingKind,
    /// Entries out of order.
    pub bad_entries: &'static FindingKind,
    /// What a zero tail does.
    pub zero_tail_effect: &'static str,
}

/// The `.index`.
pub const OFFSET_INDEX: IndexKind = IndexKind {
    name: "offset index",
    entry_size: 8,
    missing: &catalog::INDEX_MISSING,
    sanity_failed: &catalog::INDEX_SANITY_FAILED,
    zero_tail: &catalog::INDEX_ZERO_TAIL,
    bad_entries: &catalog::INDEX_BAD_ENTRIES,
    zero_tail_effect:
        "Kafka counts those slots as entries: the index reads as full, which forces a roll on \
                       the next append, and lookups scan the log from further back",
};

/// The `.timeindex`.
pub const TIME_INDEX: IndexKind = IndexKind {
    name: "time index",
    entry_size: 12,
    missing: &catalog::TIMEINDEX_MISSING,
    sanity_failed: &catalog::TIMEINDEX_SANITY_FAILED,
    zero_tail: &catalog::TIMEINDEX_ZERO_TAIL,
    bad_entries: &catalog::TIMEINDEX_BAD_ENTRIES,
    zero_tail_effect: "Kafka reads its last slot, so it sees a largest timestamp of 0",
};

/// The path of `seg`'s file of `kind` in `p` (empty when absent).
pub fn path_of(p: &Partition, seg: &Segment, kind: SegmentFileKind) -> PathBuf {
    seg.path(&p.path, kind).unwrap_or_default()
}

fn slots(n: u32) -> EvidenceValue {
    EvidenceValue::Count(u64::from(n))
}

/// Findings every index shares: Kafka's sanity check, a zero tail where Kafka would read it, and
/// entries out of order, each with bounded evidence. `expected_zero_tail`: the broker itself
/// leaves this tail (see [`zero_tail_expected`]); its sanity failure is then expected too.
/// `loc` makes the file's location, only for a finding (most indexes have none: building it
/// for each would cost a path per index file).
pub fn index_shape_findings(
    kind: &IndexKind,
    shape: &IndexShape,
    loc: &dyn Fn() -> Location,
    active: bool,
    expected_zero_tail: bool,
    out: &mut Vec<Finding>,
) {
    let at = |slot: u32| Location {
        byte_offset: Some(u64::from(slot) * kind.entry_size),
        ..loc()
    };
    if let Some(first) = shape
        .sanity()
        .first()
        .filter(|_| !(expected_zero_tail && shape.zero_tail > 0))
    {
        out.push(
            Finding::new(
                kind.sanity_failed,
                Location {
                    byte_offset: Some(first.offset()),
                    ..loc()
                },
                format!(
                    "{} fails Kafka's sanity check (the broker skips it at load, but tiered storage and \
                     DumpLogSegments reject the file)",
                    kind.name
                ),
            )
            .with_evidence(summarise(shape.sanity())),
        );
    }
    if shape.zero_tail > 0 && !expected_zero_tail {
        let mut message = format!(
            "{} has a zero-filled tail; {}",
            kind.name, kind.zero_tail_effect
        );
        if !active && kind.entry_size == TIME_INDEX.entry_size {
            message.push_str("; time retention will treat this segment as expired at once");
        }
        let f = Finding::new(kind.zero_tail, at(shape.slots - shape.zero_tail), message)
            .evidence("slots", slots(shape.slots))
            .evidence("valid_entries", slots(shape.valid_entries))
            .evidence("zero_slots", slots(shape.zero_tail));
        let f = not_read_evidence(f, shape);
        out.push(if active {
            f.with_severity(Severity::Warning)
        } else {
            f
        });
    }
    if shape.garbage > 0 || !shape.entry_problems().is_empty() {
        let f = Finding::new(
            kind.bad_entries,
            at(shape.valid_entries),
            format!("{} holds entries that break its ordering", kind.name),
        )
        .evidence("slots", slots(shape.slots))
        .evidence("valid_entries", slots(shape.valid_entries))
        .evidence("garbage_slots", slots(shape.garbage))
        .with_evidence(summarise(shape.entry_problems()));
        out.push(not_read_evidence(f, shape));
    }
}

/// A shallow scan's finding about an index it read only the tail of says how many slots it
/// took on trust (`valid_entries` counts them).
fn not_read_evidence(f: Finding, shape: &IndexShape) -> Finding {
    match shape.slots_not_read {
        0 => f,
        n => f.evidence("slots_not_read", slots(n)),
    }
}

/// Findings about the `.index` of `seg`. Its entries are not compared with the log when
/// `recovery` recovers the segment: the broker rebuilds the index from the batches.
pub fn offset_index_findings(
    dir: &LogDir,
    p: &Partition,
    seg: &Segment,
    recovery: &PartitionRecovery,
    out: &mut Vec<Finding>,
) {
    let recovered = recovery.recovers(seg);
    let base = seg.base_offset.get();
    let ix = match &seg.index {
        None => {
            out.push(Finding::new(
                OFFSET_INDEX.missing,
                at_segment_file(dir, p, base, &path_of(p, seg, SegmentFileKind::Log), None),
                "no .index: the broker recovers (re-reads and re-indexes) this segment on start",
            ));
            return;
        }
        Some(Err(e)) => {
            out.push(problem_finding(
                at_segment(dir, p, base),
                OFFSET_INDEX.name,
                e,
                catalog::INDEX_SANITY_FAILED.fix,
            ));
            return;
        }
        Some(Ok(ix)) => ix,
    };
    let loc = || at_segment_file(dir, p, base, &path_of(p, seg, SegmentFileKind::Index), None);
    index_shape_findings(
        &OFFSET_INDEX,
        &ix.shape,
        &loc,
        seg.active,
        zero_tail_expected(p, seg, recovered),
        out,
    );
    if recovered {
        return;
    }
    // One finding per file, at its first disagreeing entry; the rest are counted (bounded).
    if let Some(first) = ix.log_mismatches.first() {
        let (slot, entry) = mismatch_entry(first);
        let mut message = format!(
            "offset index entry {slot} (offset {}, position {}) {}",
            entry.offset,
            entry.position,
            mismatch_what(first)
        );
        if ix.log_mismatches.len() > 1 {
            message.push_str(&format!(
                "; {} entries disagree with the log",
                ix.log_mismatches.len()
            ));
        }
        out.push(
            Finding::new(
                &catalog::INDEX_DISAGREES_WITH_LOG,
                Location {
                    byte_offset: Some(slot as u64 * OFFSET_INDEX.entry_size),
                    ..loc()
                },
                message,
            )
            .with_evidence(summarise(&ix.log_mismatches)),
        );
    }
}

fn mismatch_entry(m: &IndexLogMismatch) -> (usize, OffsetPosition) {
    match m {
        IndexLogMismatch::PositionPastLog { slot, entry, .. }
        | IndexLogMismatch::NotABatchStart { slot, entry }
        | IndexLogMismatch::OffsetDisagrees { slot, entry, .. } => (*slot, *entry),
    }
}

fn mismatch_what(m: &IndexLogMismatch) -> String {
    match m {
        IndexLogMismatch::PositionPastLog { log_valid_end, .. } => {
            format!(
                "points past the end of the log data ({} bytes)",
                log_valid_end.get()
            )
        }
        IndexLogMismatch::NotABatchStart { .. } => {
            "does not point at the start of a batch".to_string()
        }
        IndexLogMismatch::OffsetDisagrees {
            batch_last_offset, ..
        } => format!(
            "names an offset the log does not put there (batch at that position ends at \
             {batch_last_offset})"
        ),
    }
}

impl Problem for IndexLogMismatch {
    fn name(&self) -> &'static str {
        match self {
            IndexLogMismatch::PositionPastLog { .. } => "position_past_log",
            IndexLogMismatch::NotABatchStart { .. } => "not_a_batch_start",
            IndexLogMismatch::OffsetDisagrees { .. } => "offset_disagrees",
        }
    }
    fn at(&self) -> u64 {
        mismatch_entry(self).0 as u64 * OFFSET_INDEX.entry_size
    }
    fn fields(&self) -> Vec<Evidence> {
        let (slot, entry) = mismatch_entry(self);
        let mut v = vec![
            Evidence {
                name: "slot",
                value: EvidenceValue::Slot(slot as u64),
            },
            Evidence {
                name: "entry_offset",
                value: EvidenceValue::Offset(entry.offset),
            },
            Evidence {
                name: "entry_position",
                value: EvidenceValue::Int(i64::from(entry.position)),
            },
        ];
        match self {
            IndexLogMismatch::PositionPastLog { log_valid_end, .. } => v.push(Evidence {
                name: "log_valid_end",
                value: EvidenceValue::Bytes(log_valid_end.get()),
            }),
            IndexLogMismatch::OffsetDisagrees {
                batch_last_offset, ..
            } => v.push(Evidence {
                name: "batch_last_offset",
                value: EvidenceValue::Offset(*batch_last_offset),
            }),
            IndexLogMismatch::NotABatchStart { .. } => {}
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::test_support::{codes, orders_segment_findings, Scratch};
    use crate::model::segment::ScanDepth;

    const INDEX: &str = "orders-0/00000000000000000004.index";

    fn findings(s: &Scratch, depth: ScanDepth) -> Vec<Finding> {
        orders_segment_findings(s, depth, &mut offset_index_findings)
    }

    #[test]
    fn healthy_indexes_have_no_findings() {
        assert!(findings(&Scratch::new(), ScanDepth::Verify).is_empty());
    }

    #[test]
    fn zero_tail_on_a_rolled_segment_is_an_error_with_slot_counts() {
        let s = Scratch::new();
        let mut b = std::fs::read(s.path(INDEX)).unwrap();
        let entries = b.len() / 8;
        b.extend([0u8; 80]);
        std::fs::write(s.path(INDEX), &b).unwrap();
        let f = findings(&s, ScanDepth::Headers);
        assert_eq!(codes(&f), ["index.zero_tail"], "{f:#?}");
        assert_eq!(f[0].severity, Severity::Error);
        assert_eq!(f[0].location.byte_offset, Some(entries as u64 * 8));
        assert!(f[0]
            .evidence
            .iter()
            .any(|e| e.name == "zero_slots" && e.value == EvidenceValue::Count(10)));
    }

    #[test]
    fn many_entries_disagreeing_with_the_log_are_one_bounded_finding() {
        // 1000 ordered entries at odd positions, none at a batch start (most past the log end):
        // at --verify each disagrees with the log.
        let s = Scratch::new();
        let n = 1000usize;
        let mut b = Vec::new();
        for i in 0..n as i32 {
            b.extend(i.to_be_bytes());
            b.extend((1 + 2 * i).to_be_bytes());
        }
        std::fs::write(s.path(INDEX), &b).unwrap();
        let f = findings(&s, ScanDepth::Verify);
        assert_eq!(codes(&f), ["index.disagrees_with_log"], "{f:#?}");
        assert_eq!(f[0].evidence[0].value, EvidenceValue::Count(n as u64));
        assert_eq!(f[0].location.byte_offset, Some(0));
        assert!(
            f[0].message.contains(&format!("{n} entries disagree")),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn a_segment_recovered_on_start_has_no_index_disagreement() {
        // Unclean shutdown, recovery point 8: segment 12 is recovered, its index rebuilt. A cut
        // tail is `log.truncated_tail` (a warning), not an index that disagrees with the log.
        let s = Scratch::of("unclean-shutdown/logs-0");
        let log = s.path("crash-0/00000000000000000012.log");
        let b = std::fs::read(&log).unwrap();
        std::fs::write(&log, &b[..b.len() - 10]).unwrap();
        for depth in [ScanDepth::Tail, ScanDepth::Headers, ScanDepth::Verify] {
            let d = s.load(depth);
            let all = crate::checks::inspect::inspect_findings(std::slice::from_ref(&d));
            let at_12: Vec<_> = all
                .iter()
                .filter(|f| f.location.segment == Some(12))
                .collect();
            assert_eq!(
                at_12.iter().map(|f| f.code).collect::<Vec<_>>(),
                ["log.truncated_tail"],
                "{depth:?}: {at_12:#?}"
            );
            // Its fix needs no action (recovery truncates it): info.
            assert_eq!(at_12[0].severity, Severity::Info);
            assert!(all.iter().all(|f| f.severity < Severity::Error), "{all:#?}");
        }
        // Were the segment not recovered, its last index entry would disagree with the log.
        let d = s.load(ScanDepth::Headers);
        let p = d
            .partitions
            .iter()
            .find(|p| p.dir_name == "crash-0")
            .unwrap();
        let seg = p
            .segments
            .iter()
            .find(|s| s.base_offset.get() == 12)
            .unwrap();
        let not_recovered = PartitionRecovery {
            from: None,
            loaded: true,
        };
        let mut out = Vec::new();
        offset_index_findings(&d, p, seg, &not_recovered, &mut out);
        assert!(
            codes(&out).contains(&"index.disagrees_with_log"),
            "{out:#?}"
        );
    }

    #[test]
    fn missing_index_is_info_at_the_log() {
        let s = Scratch::new();
        std::fs::remove_file(s.path(INDEX)).unwrap();
        let f = findings(&s, ScanDepth::Headers);
        assert_eq!(codes(&f), ["index.missing"]);
        // The broker rebuilds it: nothing to do, so info (exit codes mean action).
        assert_eq!(f[0].severity, Severity::Info);
        assert!(f[0]
            .location
            .file
            .as_ref()
            .unwrap()
            .ends_with("00000000000000000004.log"));
    }

    #[test]
    fn garbage_index_evidence_is_bounded() {
        // 50 000 slots with increasing offsets and negative positions: one problem per slot in
        // the model, a constant amount of evidence in the finding.
        let s = Scratch::new();
        let mut b = Vec::new();
        for i in 1..=50_000i32 {
            b.extend(i.to_be_bytes());
            b.extend((-i).to_be_bytes());
        }
        std::fs::write(s.path(INDEX), &b).unwrap();
        let d = s.load(ScanDepth::Headers);
        let p = d
            .partitions
            .iter()
            .find(|p| p.dir_name == "orders-0")
            .unwrap();
        let seg = p
            .segments
            .iter()
            .find(|s| s.base_offset.get() == 4)
            .unwrap();
        let Some(Ok(ix)) = &seg.index else {
            panic!("index not parsed")
        };
        assert!(
            ix.shape.entry_problems().len() >= 50_000,
            "{}",
            ix.shape.entry_problems().len()
        );
        let f = findings(&s, ScanDepth::Headers);
        let bad = f.iter().find(|f| f.code == "index.bad_entries").unwrap();
        assert!(
            bad.evidence.len() <= 20,
            "{} evidence items",
            bad.evidence.len()
        );
        assert!(bad.evidence.contains(&crate::checks::finding::Evidence {
            name: "problems",
            value: EvidenceValue::Count(ix.shape.entry_problems().len() as u64)
        }));
        for f in &f {
            assert!(
                f.evidence.len() <= 20,
                "{}: {} evidence items",
                f.code,
                f.evidence.len()
            );
        }
    }
}
