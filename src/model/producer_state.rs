//! Transactions as the broker knows them after a restart, from the files:
//!
//! - per data partition, the producer-state replay of `ProducerStateManager`: the newest
//!   producer snapshot at or below the log end (and not below the log start, with a good CRC),
//!   then every batch after it (`UnifiedLog.rebuildProducerState`). After a clean shutdown with
//!   no snapshot file at all the broker replays nothing (its upgrade case: it writes empty
//!   snapshots instead), so neither does the replay here. A transactional batch opens
//!   its producer's transaction at its base offset; a control batch (COMMIT/ABORT marker) closes
//!   it. What stays open gives the first unstable offset, which holds the last stable offset.
//! - the transaction coordinator's state, from `__transaction_state`: the latest record per
//!   transactional id, tombstones removing ([`replay_txn_state`]).

use std::collections::{BTreeMap, BTreeSet};

use crate::formats::record_walk::{RecordWalk, StopReason};
use crate::formats::txn_state_record::{decode_txn_state_record, TxnStateRecord, TxnStateValue};

use super::file_bytes::{read_file, ReadMode};
use super::names::SegmentFileKind;
use super::partition::Partition;
use super::problem::FileProblem;
use super::records::SegmentStop;

/// One open transaction on a data partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenTxn {
    /// Producer id.
    pub producer_id: i64,
    /// Producer epoch of its last batch.
    pub producer_epoch: i16,
    /// The transaction's first offset (the first unstable offset it holds).
    pub first_offset: i64,
    /// The first batch's timestamp, ms (`None` when that batch is not on disk).
    pub first_timestamp_ms: Option<i64>,
    /// The producer's last batch's max timestamp, ms (describeProducers' `lastTimestamp`).
    pub last_timestamp_ms: i64,
    /// The producer's last offset.
    pub last_offset: i64,
}

/// The producer state of one partition.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProducerState {
    /// The snapshot the replay starts from (`None`: from the log start).
    pub snapshot_offset: Option<i64>,
    /// Batches replayed after it.
    pub batches_replayed: u64,
    /// Producers known (from the snapshot and the batches).
    pub producers: usize,
    /// Open transactions, by first offset.
    pub open: Vec<OpenTxn>,
    /// Segments whose replay stopped before their end (a walk error, a torn or zero tail: the
    /// segment checks' findings).
    pub stops: Vec<SegmentStop>,
}

impl ProducerState {
    /// The first unstable offset: the first offset of the oldest open transaction.
    pub fn first_unstable_offset(&self) -> Option<i64> {
        self.open.iter().map(|t| t.first_offset).min()
    }
}

#[derive(Debug, Clone, Copy)]
struct Producer {
    epoch: i16,
    last_offset: i64,
    last_timestamp: i64,
    txn_first: Option<i64>,
    txn_first_ts: Option<i64>,
}

/// Replay the producer state of `p`, a partition of a log dir whose last shutdown was clean
/// when `clean_shutdown` (its `.kafka_cleanshutdown` is there; see the module docs).
pub fn replay_producer_state(
    p: &Partition,
    clean_shutdown: bool,
    mode: ReadMode,
) -> Result<ProducerState, FileProblem> {
    if clean_shutdown && p.snapshots.is_empty() {
        return Ok(ProducerState::default());
    }
    let log_start = p.log_start_offset().map_or(0, |o| o.get());
    let log_end = p.log_end_offset().map_or(i64::MAX, |o| o.get());
    let snapshot = p
        .snapshots
        .iter()
        .filter(|s| s.offset <= log_end && s.offset >= log_start)
        .filter_map(|s| {
            let parsed = s.parsed.as_ref().ok();
            Some((s.offset, parsed.filter(|x| x.crc_ok())?))
        })
        .max_by_key(|(o, _)| *o);
    let mut producers: BTreeMap<i64, Producer> = BTreeMap::new();
    let mut out = ProducerState::default();
    let from = match snapshot {
        Some((offset, snap)) => {
            out.snapshot_offset = Some(offset);
            for e in &snap.entries {
                producers.insert(
                    e.producer_id,
                    Producer {
                        epoch: e.epoch,
                        last_offset: e.last_offset,
                        last_timestamp: e.timestamp,
                        txn_first: e.open_txn_first_offset(),
                        txn_first_ts: None,
                    },
                );
            }
            offset
        }
        None => log_start,
    };
    for seg in p.log_segments() {
        let Some(path) = seg.path(&p.path, SegmentFileKind::Log) else {
            continue;
        };
        let end = seg.log_summary().map_or(i64::MAX, |l| l.next_offset.get());
        let needs_start = producers.values().any(|x| {
            x.txn_first_ts.is_none()
                && x.txn_first
                    .is_some_and(|f| f >= seg.base_offset.get() && f < end)
        });
        if end <= from && !needs_start {
            continue;
        }
        let bytes = read_file(&path, mode).map_err(|e| FileProblem::io(&path, &e))?;
        let mut walk = RecordWalk::new(&bytes);
        for batch in walk.by_ref() {
            let b = &batch.info;
            if b.last_offset < from {
                // Before the snapshot: only the first batches of open transactions are read.
                if let Some(x) = producers.get_mut(&b.producer_id) {
                    if x.txn_first == Some(b.base_offset) {
                        x.txn_first_ts = Some(b.first_timestamp);
                    }
                }
                continue;
            }
            out.batches_replayed += 1;
            if b.producer_id < 0 {
                continue;
            }
            let x = producers.entry(b.producer_id).or_insert(Producer {
                epoch: b.producer_epoch,
                last_offset: b.last_offset,
                last_timestamp: b.max_timestamp,
                txn_first: None,
                txn_first_ts: None,
            });
            x.epoch = b.producer_epoch;
            x.last_offset = b.last_offset;
            x.last_timestamp = b.max_timestamp;
            if b.is_control {
                let mut marker = false;
                // A control batch of a producer is a transaction marker (COMMIT or ABORT).
                let _ = batch.for_each_record(|r| {
                    marker |= r.control.is_some();
                    Ok(())
                });
                if marker {
                    x.txn_first = None;
                    x.txn_first_ts = None;
                }
            } else if b.is_transactional && x.txn_first.is_none() {
                x.txn_first = Some(b.base_offset);
                x.txn_first_ts = Some(b.first_timestamp);
            } else if x.txn_first == Some(b.base_offset) {
                x.txn_first_ts = Some(b.first_timestamp);
            }
        }
        out.stops
            .extend(SegmentStop::short_of_end(&path, walk.into_stop()));
    }
    out.producers = producers.len();
    out.open = producers
        .iter()
        .filter_map(|(&producer_id, x)| {
            Some(OpenTxn {
                producer_id,
                producer_epoch: x.epoch,
                first_offset: x.txn_first?,
                first_timestamp_ms: x.txn_first_ts,
                last_timestamp_ms: x.last_timestamp,
                last_offset: x.last_offset,
            })
        })
        .collect();
    out.open.sort_by_key(|t| t.first_offset);
    Ok(out)
}

/// The transaction coordinator's state of every replayed `__transaction_state` partition.
#[derive(Debug, Clone, Default)]
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

/// What an open transaction is, by `kafka-transactions.sh find-hanging`'s rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TxnVerdict {
    /// Open within its timeout.
    Open,
    /// Open longer than its timeout (the coordinator's `transaction.timeout.ms` for it, else
    /// `transaction.max.timeout.ms`), still tracked or with its coordinator's state not here.
    OpenLong,
    /// Open longer than `transaction.max.timeout.ms` and not in the coordinator's state as an
    /// in-flight transaction over this partition: nothing will ever abort it.
    Hanging,
}

/// Classify `t`, open on `tp`, at `now_ms`. The age is `now - lastTimestamp` of the producer,
/// as find-hanging measures it. `all_state_partitions`: every `__transaction_state` partition
/// was replayed, so a producer id absent from `state` is known to be untracked.
pub fn classify<'s>(
    t: &OpenTxn,
    tp: &(String, i32),
    state: &'s TxnState,
    all_state_partitions: bool,
    max_timeout_ms: i64,
    now_ms: i64,
) -> (TxnVerdict, Option<&'s str>) {
    let age = now_ms.saturating_sub(t.last_timestamp_ms);
    let coord = state.by_producer(t.producer_id);
    let tracked = coord.is_some_and(|(_, v)| {
        v.status.is_in_flight()
            && v.partitions.as_ref().is_some_and(|ps| {
                ps.iter()
                    .any(|x| x.topic == tp.0 && x.partitions.contains(&tp.1))
            })
    });
    let id = coord.map(|(id, _)| id);
    if age > max_timeout_ms && !tracked && (coord.is_some() || all_state_partitions) {
        return (TxnVerdict::Hanging, id);
    }
    let timeout = coord.map_or(max_timeout_ms, |(_, v)| i64::from(v.transaction_timeout_ms));
    if age > timeout {
        return (TxnVerdict::OpenLong, id);
    }
    (TxnVerdict::Open, id)
}
