//! The bytes a finding is about ("at stake"): what reports order findings of one severity by
//! (most bytes first), and, for the findings whose fix deletes or lets retention delete those
//! bytes, what the fixes in a report would free (the `diagnose` headline).
//!
//! One table, by code: the evidence that names the bytes a fix frees. Every other finding's
//! stake is its largest bytes evidence (the segment, file or backlog it is about), which orders
//! it but frees nothing.

use super::finding::{EvidenceValue, Finding};

/// Codes whose fix frees the bytes of one evidence item at once, and that item's name.
/// `plan.retains_expired`: expired segments retention keeps; the leftovers and stray replicas:
/// deleting them is the fix. Not `segment.active_not_rolling`: its segment still takes writes,
/// so once rolled retention deletes it only `retention.ms` after its last record — later, not
/// at the pass the headline's "next pass frees" speaks of.
const FREED_BY_FIX: &[(&str, &str)] = &[
    ("plan.retains_expired", "bytes"),
    ("partition.stray", "size"),
    ("partition.leftover_swap", "size"),
    ("partition.leftover_tmp", "size"),
    ("dir.leftover_tmp", "size"),
    ("segment.orphan_index", "size"),
];

/// The bytes at stake in one finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stake {
    /// Bytes the finding is about.
    pub bytes: u64,
    /// Whether its fix frees them.
    pub freed_by_fix: bool,
}

fn bytes_named(f: &Finding, name: &str) -> Option<u64> {
    f.evidence.iter().find_map(|e| match e.value {
        EvidenceValue::Bytes(b) if e.name == name => Some(b),
        _ => None,
    })
}

/// The bytes at stake in `f` (None: it is about no bytes).
pub fn stake(f: &Finding) -> Option<Stake> {
    if let Some((_, name)) = FREED_BY_FIX.iter().find(|(code, _)| *code == f.code) {
        if let Some(bytes) = bytes_named(f, name) {
            return Some(Stake {
                bytes,
                freed_by_fix: true,
            });
        }
    }
    // Rates and filesystem figures are not bytes a finding is about.
    let not_at_stake = |n: &str| {
        n.ends_with("_per_hour") || n.starts_with("fs_") || n.ends_with("per_sec_per_thread")
    };
    f.evidence
        .iter()
        .filter_map(|e| match e.value {
            EvidenceValue::Bytes(b) if !not_at_stake(e.name) => Some(b),
            _ => None,
        })
        .max()
        .map(|bytes| Stake {
            bytes,
            freed_by_fix: false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::catalog;
    use crate::checks::finding::Location;

    #[test]
    fn freed_by_fix_names_its_evidence_else_the_largest_bytes() {
        let f = Finding::new(&catalog::PLAN_RETAINS_EXPIRED, Location::default(), "m")
            .evidence("bytes", EvidenceValue::Bytes(7))
            .evidence("other", EvidenceValue::Bytes(9));
        assert_eq!(
            stake(&f),
            Some(Stake {
                bytes: 7,
                freed_by_fix: true
            })
        );
        let f = Finding::new(&catalog::LOG_TRUNCATED_TAIL, Location::default(), "m")
            .evidence("declared", EvidenceValue::Bytes(7))
            .evidence("present", EvidenceValue::Bytes(3))
            .evidence("fs_total_bytes", EvidenceValue::Bytes(99));
        assert_eq!(
            stake(&f),
            Some(Stake {
                bytes: 7,
                freed_by_fix: false
            })
        );
        let f = Finding::new(&catalog::LOG_TRUNCATED_TAIL, Location::default(), "m");
        assert_eq!(stake(&f), None);
    }

    #[test]
    fn every_freeing_code_is_in_the_catalog() {
        for (code, _) in FREED_BY_FIX {
            assert!(catalog::ALL.iter().any(|k| k.code == *code), "{code}");
        }
    }
}
