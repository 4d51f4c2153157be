//! The transaction coordinator's state as it would load it from `__transaction_state`, replayed
//! from the files: each partition from its log start, the latest record per transactional id
//! winning, tombstones removing (`TransactionStateManager.loadTransactionMetadata`).
//!
//! What an open transaction on a data partition is against this state is a rule:
//! [`crate::rules::transactions`].

use std::collections::{BTreeMap, BTreeSet};

use crate::formats::record_walk::{RecordWalk, StopReason};
use crate::formats::txn_state_record::{decode_txn_state_record, TxnStateRecord, TxnStateValue};

use super::file_bytes::{read_file, ReadMode};
use super::names::SegmentFileKind;
use super::partition::Partition;
use super::problem::FileProblem;
use super::records::SegmentStop;

/// The transaction coordinator's state of every replayed `__transaction_state` partition.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct TxnState {
    /// The latest state per transactional id, with the partition holding it.
    pub ids: BTreeMap<String, (i32, TxnStateValue)>,
    /// Partitions replayed.
    pub partitions: BTreeSet<i32>,
    /// Records that do not decode: (partition, offset, error).
    pub bad_records: Vec<(i32, i64, String)>,
    /// Segments whose replay stopped before their end, by partition: at a batch that does not
    /// decode (also a bad record), or at a walk error, torn or zero tail.
    pub stops: Vec<(i32, SegmentStop)>,
}

impl TxnState {
    /// The transactional id whose current producer id is `producer_id`.
    pub fn by_producer(&self, producer_id: i64) -> Option<(&str, &TxnStateValue)> {
        self.ids
            .iter()
            .find(|(_, (_, v))| v.producer_id == producer_id)
            .map(|(id, (_, v))| (id.as_str(), v))
    }
}

/// Replay `__transaction_state` partition `p` (number `partition`) into `state`.
pub fn replay_txn_state(
    state: &mut TxnState,
    p: &Partition,
    partition: i32,
    mode: ReadMode,
) -> Result<(), FileProblem> {
    state.partitions.insert(partition);
    let log_start = p.log_start_offset().map_or(0, |o| o.get());
    for seg in p.log_segments() {
        let Some(path) = seg.path(&p.path, SegmentFileKind::Log) else {
            continue;
        };
        let bytes = read_file(&path, mode).map_err(|e| FileProblem::io(&path, &e))?;
        let mut walk = RecordWalk::new(&bytes);
        while let Some(batch) = walk.next() {
            let b = &batch.info;
            if b.last_offset < log_start || b.is_control {
                continue;
            }
            let result = batch.for_each_record(|r| {
                let Some(key) = r.key else {
                    state
                        .bad_records
                        .push((partition, r.offset, "record without a key".into()));
                    return Ok(());
                };
                match decode_txn_state_record(key, r.value) {
                    Ok(TxnStateRecord::Transaction {
                        transactional_id,
                        value: Some(v),
                    }) => {
                        state.ids.insert(transactional_id, (partition, v));
                    }
                    Ok(TxnStateRecord::Transaction {
                        transactional_id,
                        value: None,
                    }) => {
                        state.ids.remove(&transactional_id);
                    }
                    Ok(_) => {}
                    Err(e) => state.bad_records.push((partition, r.offset, e.to_string())),
                }
                Ok(())
            });
            if let Err(e) = result {
                state
                    .bad_records
                    .push((partition, b.base_offset, e.to_string()));
                walk.stop_at(b, StopReason::Decode(e));
            }
        }
        let stop = SegmentStop::short_of_end(&path, walk.into_stop());
        state.stops.extend(stop.map(|s| (partition, s)));
    }
    Ok(())
}
