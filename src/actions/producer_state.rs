//! Producer and transaction state replayed from batch headers, as the broker's
//! `ProducerStateManager` builds it during recovery (`LogSegment.updateProducerState`,
//! `ProducerAppendInfo`): per producer its epoch, last batch and open transaction; the ongoing
//! transactions by first offset; and, when an ABORT marker completes a transaction, the
//! `.txnindex` entry with its last stable offset (spec §4.6, §5).
//!
//! Producer expiry (`producer.id.expiration.ms`) is not applied: the broker drops expired
//! producers when it loads a snapshot, whatever the snapshot holds.
//!
//! The order of the producers is the broker's: `ProducerStateManager.producers` is a
//! `java.util.HashMap<Long, ProducerStateEntry>` and `writeSnapshot` lists it in its iteration
//! order ([`java_map`]), which depends on the order of the puts. A broker's map holds what its
//! load inserted (the snapshot's entries in file order, then per replayed segment the producers
//! new to it, in the iteration order of that segment's own `HashMap` of append infos:
//! `UnifiedLog.loadProducersFromRecords`) and then what it appended and expired while it ran.
//! That runtime history is not on disk, so [`ProducerState`] reproduces the load: what a broker
//! restarted on these files holds, and writes when it next takes a snapshot.

mod java_map;

use std::collections::BTreeMap;

use crate::formats::batch::BatchInfo;
use crate::formats::control::ControlKind;
use crate::formats::producer_snapshot::ProducerEntry;
use crate::formats::record::for_each_record;
use crate::formats::txn_index::AbortedTxn;

/// The largest control batch decompressed to read its marker.
const MAX_CONTROL_BYTES: usize = 1 << 20;

pub use java_map::{java_hash, JavaHashOrder};

/// Producer state at some offset.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProducerState {
    /// Per producer id.
    pub producers: BTreeMap<i64, ProducerEntry>,
    /// Ongoing transactions: first offset → producer id.
    pub ongoing: BTreeMap<i64, i64>,
    /// The broker's map of the same producers, for its iteration order.
    order: JavaHashOrder,
    /// While a segment is replayed as `loadProducersFromRecords` does: its producers in the
    /// order of that call's own map, put into `order` when the segment ends.
    segment: Option<JavaHashOrder>,
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
            s.order.put(e.producer_id);
        }
        s
    }

    /// The snapshot entries in the order the broker's `writeSnapshot` lists them.
    pub fn snapshot_entries(&self) -> Vec<ProducerEntry> {
        self.order
            .keys()
            .into_iter()
            .filter_map(|pid| self.producers.get(&pid).copied())
            .collect()
    }

    /// The producer ids in the broker's map order.
    pub fn producer_order(&self) -> Vec<i64> {
        self.order.keys()
    }

    /// Start replaying one segment as the broker's load does (one `loadProducersFromRecords`
    /// call: the producers it meets are put into the state's map only at
    /// [`ProducerState::end_segment`], in the order of a map of their own). Without it, each
    /// batch's producer is put at once, as `LogSegment.recover` does.
    pub fn begin_segment(&mut self) {
        self.end_segment();
        self.segment = Some(JavaHashOrder::default());
    }

    /// End the segment [`ProducerState::begin_segment`] started.
    pub fn end_segment(&mut self) {
        if let Some(seg) = self.segment.take() {
            for pid in seg.keys() {
                self.order.put(pid);
            }
        }
    }

    /// Apply one batch (`file` holds it). Returns the `.txnindex` entry when the batch is an
    /// ABORT marker that completes a transaction.
    pub fn apply(&mut self, file: &[u8], b: &BatchInfo) -> Option<AbortedTxn> {
        if b.magic < 2 || b.producer_id < 0 {
            return None;
        }
        let pid = b.producer_id;
        match &mut self.segment {
            Some(seg) => seg.put(pid),
            None => self.order.put(pid),
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::batch::Record;
    use crate::formats::record::encode::{encode_batch, BatchSpec};
    use crate::formats::walk::ShallowWalker;

    /// One one-record idempotent batch per producer id, at offsets 0...
    fn log_of(pids: &[i64]) -> Vec<u8> {
        let mut log = Vec::new();
        for (i, pid) in pids.iter().enumerate() {
            let off = i as i64;
            log.extend(encode_batch(
                &BatchSpec {
                    base_offset: off,
                    producer_id: *pid,
                    producer_epoch: 0,
                    base_sequence: 0,
                    ..BatchSpec::default()
                },
                &[Record {
                    offset: off,
                    timestamp: 1000 + off,
                    key: None,
                    value: Some(b"v".to_vec()),
                    headers: Vec::new(),
                    control: None,
                }],
            ));
        }
        log
    }

    /// What Kafka 4.4 wrote in conformance/repairs-check (b) for 30 producers 1000..=1029:
    /// capacity 64, so 1024.. (buckets 0..5) come before 1000.. (buckets 40..63).
    fn broker_order() -> Vec<i64> {
        (1024..1030).chain(1000..1024).collect()
    }

    #[test]
    fn the_snapshot_lists_producers_in_the_brokers_map_order() {
        let pids: Vec<i64> = (0..30).map(|i| 1000 + (i * 7) % 30).collect();
        let log = log_of(&pids);
        let mut state = ProducerState::default();
        state.begin_segment();
        for b in ShallowWalker::new(&log).map_while(Result::ok) {
            state.apply(&log, &b);
        }
        state.end_segment();
        assert_eq!(state.producer_order(), broker_order());
        let entries = state.snapshot_entries();
        let listed: Vec<i64> = entries.iter().map(|e| e.producer_id).collect();
        assert_eq!(listed, broker_order());
        // A snapshot loaded in that order lists it again.
        let reloaded = ProducerState::from_snapshot(&entries);
        assert_eq!(reloaded.snapshot_entries(), entries);
    }

    #[test]
    fn a_segments_new_producers_are_put_in_the_order_of_its_own_map() {
        // 14 producers: the map has grown to 32 slots, so 32 (bucket 0) comes first and 16
        // (bucket 16) after 1..=12. The producers stay out of the state's map until the
        // segment ends. Per batch (as segment recovery does) gives the same here: the two
        // orders differ only in tree bins.
        let mut pids: Vec<i64> = (1..=12).collect();
        pids.extend([32, 16]);
        let log = log_of(&pids);
        let mut per_segment = ProducerState::default();
        per_segment.begin_segment();
        let mut per_batch = ProducerState::default();
        for b in ShallowWalker::new(&log).map_while(Result::ok) {
            per_segment.apply(&log, &b);
            per_batch.apply(&log, &b);
        }
        assert!(per_segment.producer_order().is_empty());
        per_segment.end_segment();
        let mut want = vec![32];
        want.extend(1..=12);
        want.push(16);
        assert_eq!(per_segment.producer_order(), want);
        assert_eq!(per_batch.producer_order(), want);
    }
}
