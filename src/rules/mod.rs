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
//! | [`follower`] | a follower's log start: the leader's, or a full truncation below it | issue 21 |
//! | [`recovery`] | which segments the next start recovers; their largest timestamp after it | §G, Errata 10, 20 |
//! | [`timing`] | when eligible files are renamed and gone (task cadence, delays) | §C1–C3 |
//! | [`roll`] | when the active segment rolls; projection at a write rate | §A, Errata 1, 2 |
//! | [`compaction`] | cleaner selection, dirty ratio, map capacity, horizons | §D1–D5, D7, Errata 3, 13, 19 |
//! | [`groups`] | group → partition mapping, offset expiry, what a moved log start costs a group | §C1 |
//! | [`tiered`] | the copy task's upload gate (LSO, copy lag, unfinished copies), remote retention | KIP-405, KIP-1241 |
//! | [`transactions`] | last stable offset; open, open long or hanging | — |

pub mod boot;
pub mod compaction;
pub mod facts;
pub mod follower;
pub mod groups;
pub mod high_watermark;
pub mod metadata_retention;
pub mod recovery;
pub mod retention;
pub mod roll;
pub mod share_state;
pub mod space;
pub mod tiered;
pub mod timing;
pub mod transactions;

#[cfg(test)]
mod fixture_cases;

pub mod versions;

/// The Kafka release whose rules apply ([`crate::model::kafka_version`]).
pub use crate::model::kafka_version::KafkaVersion;
