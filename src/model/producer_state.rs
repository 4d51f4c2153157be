//! Producer state as the broker's `ProducerStateManager` builds it, from the files:
//!
//! - [`ProducerState`]: the state itself, batch by batch (`LogSegment.updateProducerState`,
//!   `ProducerAppendInfo`): per producer its epoch, last batch and open transaction; the ongoing
//!   transactions by first offset; and, when an ABORT marker completes a transaction, the
//!   `.txnindex` entry with its last stable offset (spec §4.6, §5). `actions/` writes snapshots
//!   and rebuilds `.txnindex` files from it.
//! - [`replay_producer_state`]: one partition's state after a restart, as
//!   `UnifiedLog.rebuildProducerState` loads it: the newest producer snapshot at or below the log
//!   end (and not below the log start, with a good CRC), then every batch after it. After a clean
//!   shutdown with no snapshot file at all the broker replays nothing (its upgrade case: it
//!   writes empty snapshots instead), so neither does the replay here. What stays open gives the
//!   first unstable offset, which holds the last stable offset ([`crate::rules::transactions`]).
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
use crate::formats::producer_snapshot::{ProducerEntry, ProducerSnapshot};
use crate::formats::record::for_each_record;
use crate::formats::record_walk::RecordWalk;
use crate::formats::txn_index::AbortedTxn;

use super::file_bytes::{read_file, ReadMode};
use super::names::SegmentFileKind;
use super::partition::Partition;
use super::problem::FileProblem;
use super::records::SegmentStop;

/// One open transaction on a data partition.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

/// What the replay of one partition found: where it started, what it read, the producers
/// and their open transactions.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProducerReplay {
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

impl ProducerReplay {
    /// The first unstable offset: the first offset of the oldest open transaction.
    pub fn first_unstable_offset(&self) -> Option<i64> {
        self.open.iter().map(|t| t.first_offset).min()
    }
}

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

/// The newest producer snapshot of `p` the broker's load starts from: at or below the log end,
/// not below `log_start`, with a good CRC.
fn newest_snapshot(p: &Partition, log_start: i64) -> Option<(i64, &ProducerSnapshot)> {
    let log_end = p.log_end_offset().map_or(i64::MAX, |o| o.get());
    p.snapshots
        .iter()
        .filter(|s| s.offset <= log_end && s.offset >= log_start)
        .filter_map(|s| {
            let parsed = s.parsed.as_ref().ok();
            Some((s.offset, parsed.filter(|x| x.crc_ok())?))
        })
        .max_by_key(|(o, _)| *o)
}

/// Replay the producer state of `p`, a partition of a log dir whose last shutdown was clean
/// when `clean_shutdown` (its `.kafka_cleanshutdown` is there; see the module docs).
pub fn replay_producer_state(
    p: &Partition,
    clean_shutdown: bool,
    mode: ReadMode,
) -> Result<ProducerReplay, FileProblem> {
    if clean_shutdown && p.snapshots.is_empty() {
        return Ok(ProducerReplay::default());
    }
    let log_start = p.log_start_offset().map_or(0, |o| o.get());
    let mut out = ProducerReplay::default();
    let (mut state, from) = match newest_snapshot(p, log_start) {
        Some((offset, snap)) => {
            out.snapshot_offset = Some(offset);
            (ProducerState::from_snapshot(&snap.entries), offset)
        }
        None => (ProducerState::default(), log_start),
    };
    // The first batch's timestamp of each open transaction, by producer: not in the state (nor
    // in a snapshot), read from the batch when it is on disk.
    let mut first_ts: BTreeMap<i64, i64> = BTreeMap::new();
    for seg in p.log_segments() {
        let end = seg.log_summary().map_or(i64::MAX, |l| l.next_offset.get());
        let needs_start = state.producers.values().any(|e| {
            !first_ts.contains_key(&e.producer_id)
                && e.open_txn_first_offset()
                    .is_some_and(|f| f >= seg.base_offset.get() && f < end)
        });
        if end <= from && !needs_start {
            continue;
        }
        let Some(path) = seg.path(&p.path, SegmentFileKind::Log) else {
            continue;
        };
        let bytes = read_file(&path, mode).map_err(|e| FileProblem::io(&path, &e))?;
        let mut walk = RecordWalk::new(&bytes);
        for batch in walk.by_ref() {
            let b = &batch.info;
            let open = |s: &ProducerState| {
                (s.producers.get(&b.producer_id)).and_then(ProducerEntry::open_txn_first_offset)
            };
            if b.last_offset < from {
                // Before the snapshot: only the first batches of open transactions are read.
                if open(&state) == Some(b.base_offset) {
                    first_ts.insert(b.producer_id, b.first_timestamp);
                }
                continue;
            }
            out.batches_replayed += 1;
            state.apply(&bytes, b);
            if b.producer_id < 0 {
                continue;
            }
            match open(&state) {
                None if b.is_control => {
                    first_ts.remove(&b.producer_id);
                }
                Some(first) if !b.is_control && first == b.base_offset => {
                    first_ts.insert(b.producer_id, b.first_timestamp);
                }
                _ => {}
            }
        }
        out.stops
            .extend(SegmentStop::short_of_end(&path, walk.into_stop()));
    }
    out.producers = state.producers.len();
    out.open = open_transactions(&state, &first_ts);
    Ok(out)
}

/// The transactions `state` leaves open, by first offset, with the first batch's timestamp
/// where `first_ts` has it.
fn open_transactions(state: &ProducerState, first_ts: &BTreeMap<i64, i64>) -> Vec<OpenTxn> {
    let mut open: Vec<OpenTxn> = (state.producers.values())
        .filter_map(|e| {
            Some(OpenTxn {
                producer_id: e.producer_id,
                producer_epoch: e.epoch,
                first_offset: e.open_txn_first_offset()?,
                first_timestamp_ms: first_ts.get(&e.producer_id).copied(),
                last_timestamp_ms: e.timestamp,
                last_offset: e.last_offset,
            })
        })
        .collect();
    open.sort_by_key(|t| t.first_offset);
    open
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
