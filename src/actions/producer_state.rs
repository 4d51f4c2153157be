//! Producer and transaction state replayed from batch headers, as the broker's
//! `ProducerStateManager` builds it during recovery (`LogSegment.updateProducerState`,
//! `ProducerAppendInfo`): per producer its epoch, last batch and open transaction; the ongoing
//! transactions by first offset; and, when an ABORT marker completes a transaction, the
//! `.txnindex` entry with its last stable offset (spec §4.6, §5).
//!
//! Producer expiry (`producer.id.expiration.ms`) is not applied: the broker drops expired
//! producers when it loads a snapshot, whatever the snapshot holds.

use std::collections::BTreeMap;

use crate::formats::batch::BatchInfo;
use crate::formats::control::ControlKind;
use crate::formats::producer_snapshot::ProducerEntry;
use crate::formats::record::for_each_record;
use crate::formats::txn_index::AbortedTxn;

/// The largest control batch decompressed to read its marker.
const MAX_CONTROL_BYTES: usize = 1 << 20;

/// Producer state at some offset.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProducerState {
    /// Per producer id.
    pub producers: BTreeMap<i64, ProducerEntry>,
    /// Ongoing transactions: first offset → producer id.
    pub ongoing: BTreeMap<i64, i64>,
}

impl ProducerState {
    /// The state a snapshot holds.
    pub fn from_snapshot(entries: &[ProducerEntry]) -> ProducerState {
        let mut s = ProducerState::default();
        for e in entries {
            if let Some(first) = e.open_txn_first_offset() {
                s.ongoing.insert(first, e.producer_id);
            }
            s.producers.insert(e.producer_id, *e);
        }
        s
    }

    /// The snapshot entries, ordered by producer id.
    pub fn snapshot_entries(&self) -> Vec<ProducerEntry> {
        self.producers.values().cloned().collect()
    }

    /// Apply one batch (`file` holds it). Returns the `.txnindex` entry when the batch is an
    /// ABORT marker that completes a transaction.
    pub fn apply(&mut self, file: &[u8], b: &BatchInfo) -> Option<AbortedTxn> {
        if b.magic < 2 || b.producer_id < 0 {
            return None;
        }
        let pid = b.producer_id;
        let entry = self.producers.entry(pid).or_insert(ProducerEntry {
            producer_id: pid,
            epoch: -1,
            last_sequence: -1,
            last_offset: -1,
            offset_delta: 0,
            timestamp: -1,
            coordinator_epoch: -1,
            current_txn_first_offset: -1,
        });
        if entry.epoch != b.producer_epoch {
            // A new epoch drops the batch metadata (`maybeUpdateProducerEpoch`).
            entry.epoch = b.producer_epoch;
            entry.last_sequence = -1;
            entry.last_offset = -1;
            entry.offset_delta = 0;
        }
        if b.is_control {
            let mut marker = None;
            let _ = for_each_record(file, b, MAX_CONTROL_BYTES, |r| {
                if marker.is_none() {
                    marker = r.control;
                }
                Ok(())
            });
            let marker = marker?;
            if !marker.kind.is_transaction_marker() {
                return None;
            }
            let first = entry.open_txn_first_offset().unwrap_or(b.last_offset);
            entry.current_txn_first_offset = -1;
            entry.coordinator_epoch = marker.coordinator_epoch.unwrap_or(-1);
            entry.timestamp = b.max_timestamp;
            let lso = self
                .ongoing
                .iter()
                .find(|(_, p)| **p != pid)
                .map_or(b.last_offset.saturating_add(1), |(first, _)| *first);
            self.ongoing.retain(|_, p| *p != pid);
            return (marker.kind == ControlKind::Abort).then_some(AbortedTxn {
                version: 0,
                producer_id: pid,
                first_offset: first,
                last_offset: b.last_offset,
                last_stable_offset: lso,
            });
        }
        let delta = b.last_offset.wrapping_sub(b.base_offset);
        entry.last_sequence = if b.base_sequence < 0 {
            b.base_sequence
        } else {
            // Sequences wrap at i32::MAX (`DefaultRecordBatch.incrementSequence`).
            let d = i64::from(b.base_sequence) + delta;
            i32::try_from(d)
                .unwrap_or_else(|_| i32::try_from(d - i64::from(i32::MAX) - 1).unwrap_or(i32::MAX))
        };
        entry.last_offset = b.last_offset;
        entry.offset_delta = i32::try_from(delta).unwrap_or(i32::MAX);
        entry.timestamp = b.max_timestamp;
        if b.is_transactional && entry.open_txn_first_offset().is_none() {
            entry.current_txn_first_offset = b.base_offset;
            self.ongoing.insert(b.base_offset, pid);
        }
        None
    }
}
