//! Bounded evidence for repeated problems of one file (bad index slots, txn-index entries):
//! counts per problem kind, the last position, and the first [`MAX_EXAMPLES`] examples, never
//! one line per slot. The evidence of one finding is at most a constant whatever the file holds.

use crate::formats::offset_index::{IndexEntryProblem, IndexSanityProblem};
use crate::formats::txn_index::TxnIndexProblem;

use super::finding::{Evidence, EvidenceValue};

/// Examples listed in full.
pub const MAX_EXAMPLES: usize = 3;

/// One problem of a repeated kind, described by typed fields.
pub trait Problem {
    /// `snake_case` name of the problem kind.
    fn name(&self) -> &'static str;
    /// Byte position it points at.
    fn at(&self) -> u64;
    /// Its facts (without the position).
    fn fields(&self) -> Vec<Evidence>;
}

fn ev(name: &'static str, value: EvidenceValue) -> Evidence {
    Evidence { name, value }
}

/// Summarise `problems`: `problems` (total count), a count per problem kind when there is more
/// than one kind, `last_at` when not every problem is an example, then each example as a
/// `problem` item followed by its `at` and fields.
pub fn summarise<P: Problem>(problems: &[P]) -> Vec<Evidence> {
    let mut out = vec![ev("problems", EvidenceValue::Count(problems.len() as u64))];
    // At most one entry per problem kind: bounded by the enum, not by the file.
    let mut per_kind: Vec<(&'static str, u64)> = Vec::new();
    for p in problems {
        match per_kind.iter_mut().find(|(n, _)| *n == p.name()) {
            Some((_, c)) => *c += 1,
            None => per_kind.push((p.name(), 1)),
        }
    }
    if per_kind.len() > 1 {
        out.extend(
            per_kind
                .iter()
                .map(|(n, c)| ev(n, EvidenceValue::Count(*c))),
        );
    }
    if problems.len() > MAX_EXAMPLES {
        if let Some(last) = problems.last() {
            out.push(ev("last_at", EvidenceValue::Position(last.at())));
        }
    }
    for p in problems.iter().take(MAX_EXAMPLES) {
        out.push(ev("problem", EvidenceValue::Problem(p.name())));
        out.push(ev("at", EvidenceValue::Position(p.at())));
        out.extend(p.fields());
    }
    out
}

fn slot(s: usize) -> EvidenceValue {
    EvidenceValue::Slot(s as u64)
}

impl Problem for IndexSanityProblem {
    fn name(&self) -> &'static str {
        match self {
            IndexSanityProblem::LastTimestampBelowFirst { .. } => "last_timestamp_below_first",
            IndexSanityProblem::LastOffsetBelowBase { .. } => "last_offset_below_base",
            IndexSanityProblem::LengthNotMultiple { .. } => "length_not_multiple",
        }
    }
    fn at(&self) -> u64 {
        self.offset()
    }
    fn fields(&self) -> Vec<Evidence> {
        match self {
            IndexSanityProblem::LastTimestampBelowFirst {
                slot: s,
                last_timestamp,
                first_timestamp,
                ..
            } => vec![
                ev("slot", slot(*s)),
                ev(
                    "last_timestamp",
                    EvidenceValue::TimestampMs(*last_timestamp),
                ),
                ev(
                    "first_timestamp",
                    EvidenceValue::TimestampMs(*first_timestamp),
                ),
            ],
            IndexSanityProblem::LastOffsetBelowBase {
                slot: s,
                last_offset,
                base_offset,
                ..
            } => vec![
                ev("slot", slot(*s)),
                ev("last_offset", EvidenceValue::Offset(*last_offset)),
                ev("base_offset", EvidenceValue::Offset(*base_offset)),
            ],
            IndexSanityProblem::LengthNotMultiple {
                length, entry_size, ..
            } => vec![
                ev("file_length", EvidenceValue::Bytes(*length)),
                ev("entry_size", EvidenceValue::Bytes(*entry_size as u64)),
            ],
        }
    }
}

impl Problem for IndexEntryProblem {
    fn name(&self) -> &'static str {
        match self {
            IndexEntryProblem::GarbageSlots { .. } => "garbage_slots",
            IndexEntryProblem::NegativeRelativeOffset { .. } => "negative_relative_offset",
            IndexEntryProblem::NegativePosition { .. } => "negative_position",
            IndexEntryProblem::PositionNotIncreasing { .. } => "position_not_increasing",
            IndexEntryProblem::NegativeTimestamp { .. } => "negative_timestamp",
        }
    }
    fn at(&self) -> u64 {
        match self {
            IndexEntryProblem::GarbageSlots { at, .. }
            | IndexEntryProblem::NegativeRelativeOffset { at, .. }
            | IndexEntryProblem::NegativePosition { at, .. }
            | IndexEntryProblem::PositionNotIncreasing { at, .. }
            | IndexEntryProblem::NegativeTimestamp { at, .. } => *at,
        }
    }
    fn fields(&self) -> Vec<Evidence> {
        match self {
            IndexEntryProblem::GarbageSlots {
                first_slot, count, ..
            } => vec![
                ev("first_slot", slot(*first_slot)),
                ev("slots", EvidenceValue::Count(*count as u64)),
            ],
            IndexEntryProblem::NegativeRelativeOffset {
                slot: s,
                relative_offset,
                ..
            } => vec![
                ev("slot", slot(*s)),
                ev(
                    "relative_offset",
                    EvidenceValue::Int(i64::from(*relative_offset)),
                ),
            ],
            IndexEntryProblem::NegativePosition {
                slot: s, position, ..
            } => vec![
                ev("slot", slot(*s)),
                ev("position", EvidenceValue::Int(i64::from(*position))),
            ],
            IndexEntryProblem::PositionNotIncreasing {
                slot: s,
                prev,
                next,
                ..
            } => vec![
                ev("slot", slot(*s)),
                ev("previous_position", EvidenceValue::Int(i64::from(*prev))),
                ev("position", EvidenceValue::Int(i64::from(*next))),
            ],
            IndexEntryProblem::NegativeTimestamp {
                slot: s, timestamp, ..
            } => vec![
                ev("slot", slot(*s)),
                ev("timestamp", EvidenceValue::TimestampMs(*timestamp)),
            ],
        }
    }
}

impl Problem for TxnIndexProblem {
    fn name(&self) -> &'static str {
        match self {
            TxnIndexProblem::UnsupportedVersion { .. } => "unsupported_version",
            TxnIndexProblem::LastOffsetBelowBase { .. } => "last_offset_below_base",
            TxnIndexProblem::LastOffsetNotIncreasing { .. } => "last_offset_not_increasing",
            TxnIndexProblem::FirstAfterLast { .. } => "first_after_last",
            TxnIndexProblem::NonZeroVersion { .. } => "non_zero_version",
            TxnIndexProblem::PartialTail { .. } => "partial_tail",
        }
    }
    fn at(&self) -> u64 {
        self.offset()
    }
    fn fields(&self) -> Vec<Evidence> {
        match self {
            TxnIndexProblem::UnsupportedVersion { version, .. } => {
                vec![ev("version", EvidenceValue::Int(i64::from(*version)))]
            }
            TxnIndexProblem::LastOffsetBelowBase {
                last_offset,
                base_offset,
                ..
            } => vec![
                ev("last_offset", EvidenceValue::Offset(*last_offset)),
                ev("base_offset", EvidenceValue::Offset(*base_offset)),
            ],
            TxnIndexProblem::LastOffsetNotIncreasing { prev, next, .. } => vec![
                ev("previous_last_offset", EvidenceValue::Offset(*prev)),
                ev("last_offset", EvidenceValue::Offset(*next)),
            ],
            TxnIndexProblem::FirstAfterLast {
                first_offset,
                last_offset,
                ..
            } => vec![
                ev("first_offset", EvidenceValue::Offset(*first_offset)),
                ev("last_offset", EvidenceValue::Offset(*last_offset)),
            ],
            TxnIndexProblem::NonZeroVersion { version, .. } => {
                vec![ev("version", EvidenceValue::Int(i64::from(*version)))]
            }
            TxnIndexProblem::PartialTail { len, .. } => {
                vec![ev("partial_bytes", EvidenceValue::Bytes(*len))]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn not_increasing(n: usize) -> Vec<TxnIndexProblem> {
        (0..n)
            .map(|i| TxnIndexProblem::LastOffsetNotIncreasing {
                at: i as u64 * 34,
                prev: 0,
                next: 0,
            })
            .collect()
    }

    #[test]
    fn a_few_problems_are_all_examples() {
        let ev = summarise(&not_increasing(2));
        assert_eq!(ev[0].value, EvidenceValue::Count(2));
        assert_eq!(
            ev.iter().filter(|e| e.name == "problem").count(),
            2,
            "{ev:?}"
        );
        assert!(ev.iter().all(|e| e.name != "last_at"));
    }

    #[test]
    fn many_problems_are_bounded() {
        let small = summarise(&not_increasing(MAX_EXAMPLES + 1)).len();
        let mut many = not_increasing(100_000);
        many.push(TxnIndexProblem::PartialTail {
            at: 3_400_000,
            len: 5,
        });
        let ev = summarise(&many);
        // One more kind adds two counts; the size does not grow with the file.
        assert_eq!(ev.len(), small + 2, "{ev:?}");
        assert_eq!(ev[0].value, EvidenceValue::Count(100_001));
        assert!(ev.contains(&Evidence {
            name: "last_offset_not_increasing",
            value: EvidenceValue::Count(100_000)
        }));
        assert!(ev.contains(&Evidence {
            name: "last_at",
            value: EvidenceValue::Position(3_400_000)
        }));
        assert_eq!(
            ev.iter().filter(|e| e.name == "problem").count(),
            MAX_EXAMPLES
        );
    }
}
