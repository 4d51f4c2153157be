//! The broker's cleanup rules as pure functions over plain facts: no I/O, no clock (the
//! evaluation instant `now` is always an argument), no printing. Every answer carries typed
//! reasons with the numbers behind them, so `plan` and `diagnose` can explain it.
//!
//! Ground truth: `shared/spec/kafka-cleanup-rules.md` (its Errata override the sections they
//! name) and Kafka's own source, named in each module's doc. Kafka 4.x is the default; where
//! 3.x or 4.0 differ, functions take a [`KafkaVersion`].
//!
//! Module map:
//!
//! | module | concern | spec |
//! |---|---|---|
//! | [`facts`] | the per-segment facts every rule reads; the mtime fallback | §B1, G3, Errata 10 |
//! | [`retention`] | the delete passes of one replica: verdict per segment, new log start | §B, Errata 5, 6, 9 |
//! | [`high_watermark`] | the HW a replica holds when retention runs | §B6, F1, Errata 18 |
//! | [`recovery`] | which segments the next start recovers; their largest timestamp after it | §G, Errata 10, 20 |
//! | [`timing`] | when eligible files are renamed and gone (task cadence, delays) | §C1–C3 |
//! | [`roll`] | when the active segment rolls; projection at a write rate | §A, Errata 1, 2 |
//! | [`compaction`] | cleaner selection, dirty ratio, map capacity, horizons | §D1–D5, D7, Errata 3, 13, 19 |
//! | [`groups`] | group → partition mapping, offset expiry, what a moved log start costs a group | §C1 |
//! | [`transactions`] | last stable offset; open, open long or hanging | — |

pub mod compaction;
pub mod facts;
pub mod groups;
pub mod high_watermark;
pub mod recovery;
pub mod retention;
pub mod roll;
pub mod timing;
pub mod transactions;

#[cfg(test)]
mod fixture_cases;

use std::fmt;

/// The Kafka release whose rules apply, as `major.minor` (patch releases do not change them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KafkaVersion {
    /// Major version.
    pub major: u16,
    /// Minor version.
    pub minor: u16,
}

impl KafkaVersion {
    /// 3.9: the last 3.x release (Scala core).
    pub const V3_9: KafkaVersion = KafkaVersion::new(3, 9);
    /// 4.0.
    pub const V4_0: KafkaVersion = KafkaVersion::new(4, 0);
    /// 4.1: rolling base timestamp from the first batch, per-batch index interval (Errata 1, 2).
    pub const V4_1: KafkaVersion = KafkaVersion::new(4, 1);
    /// 4.2: empty `cleanup.policy` tiered branch, DeleteRecords rule change (Errata 5, 6).
    pub const V4_2: KafkaVersion = KafkaVersion::new(4, 2);
    /// 4.4: the release the conformance suite runs (the default).
    pub const V4_4: KafkaVersion = KafkaVersion::new(4, 4);

    /// `major.minor`.
    pub const fn new(major: u16, minor: u16) -> KafkaVersion {
        KafkaVersion { major, minor }
    }

    /// Whether this release is `other` or newer.
    pub fn at_least(self, other: KafkaVersion) -> bool {
        self >= other
    }
}

impl Default for KafkaVersion {
    fn default() -> Self {
        KafkaVersion::V4_4
    }
}

impl fmt::Display for KafkaVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_order_by_major_then_minor() {
        assert!(KafkaVersion::V4_1.at_least(KafkaVersion::V4_0));
        assert!(!KafkaVersion::V3_9.at_least(KafkaVersion::V4_0));
        assert!(KafkaVersion::new(10, 0) > KafkaVersion::new(4, 9));
        assert_eq!(KafkaVersion::default().to_string(), "4.4");
    }
}
