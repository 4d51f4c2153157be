//! The `transactions` document: the transactional ids of `__transaction_state`, per data
//! partition the producer-state replay's first unstable and last stable offset, and one row per
//! open transaction with how long it has been open and, when it hangs, the abort command. Mapped
//! from the replays and the verdicts on them ([`crate::rules::transactions::assess`]).

use serde::Serialize;

use crate::model::txn_state::TxnState;
use crate::rules::transactions::{PartitionFacts, TxnVerdict, TxnVerdicts};

use super::wire::Envelope;

/// The `transactions` document.
pub type TxnDoc = Envelope<TxnBody>;

/// One transactional id.
#[derive(Debug, Clone, Serialize)]
pub struct TxnIdDoc {
    /// Transactional id.
    pub transactional_id: String,
    /// The `__transaction_state` partition holding it.
    pub coordinator_partition: i32,
    /// Producer id.
    pub producer_id: i64,
    /// Producer epoch.
    pub producer_epoch: i16,
    /// `Empty`, `Ongoing`, `PrepareCommit`, ... (Kafka's names).
    pub state: &'static str,
    /// `transaction.timeout.ms` of the producer.
    pub transaction_timeout_ms: i32,
    /// When the current transaction started, ms (-1: none).
    pub start_timestamp_ms: i64,
    /// Last update, ms.
    pub last_update_timestamp_ms: i64,
    /// Partitions in the transaction, `topic-partition`.
    pub partitions: Vec<String>,
}

/// One data partition with producer state.
#[derive(Debug, Clone, Serialize)]
pub struct TxnPartitionDoc {
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// The snapshot the replay started from.
    pub snapshot_offset: Option<i64>,
    /// Batches replayed after it.
    pub batches_replayed: u64,
    /// Producers known.
    pub producers: usize,
    /// The first offset of the oldest open transaction.
    pub first_unstable_offset: Option<i64>,
    /// The high watermark the plan assumes (`plan`'s `high_watermark`: the checkpoint, or the
    /// log end for a sole leader in its ISR, by the metadata image's role).
    pub high_watermark: Option<i64>,
    /// min(first unstable offset, high watermark): where read_committed consumers stop.
    pub last_stable_offset: Option<i64>,
    /// The log end offset.
    pub log_end_offset: Option<i64>,
}

/// One open transaction.
#[derive(Debug, Clone, Serialize)]
pub struct OpenTxnDoc {
    /// Transactional id, when the coordinator state names this producer id.
    pub transactional_id: Option<String>,
    /// Producer id.
    pub producer_id: i64,
    /// Producer epoch.
    pub producer_epoch: i16,
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// First offset (`--start-offset` of the abort command).
    pub first_offset: i64,
    /// The first batch's timestamp, ms (`null`: not on disk).
    pub open_since_ms: Option<i64>,
    /// The producer's last batch's timestamp, ms (what find-hanging ages).
    pub last_timestamp_ms: i64,
    /// `now - last_timestamp_ms`.
    pub age_ms: i64,
    /// `open`, `open_long` or `hanging`.
    pub verdict: TxnVerdictDoc,
    /// For a hanging one: the command that aborts it.
    pub abort_command: Option<String>,
}

/// The command's keys.
#[derive(Debug, Clone, Serialize)]
pub struct TxnBody {
    /// `transaction.max.timeout.ms`.
    pub transaction_max_timeout_ms: i64,
    /// `__transaction_state` partitions replayed.
    pub transaction_state_partitions: Vec<i32>,
    /// Its partition count in the metadata log (`null`: unknown).
    pub transaction_state_partition_count: Option<usize>,
    /// Transactional ids.
    pub transactional_ids: Vec<TxnIdDoc>,
    /// Data partitions.
    pub partitions: Vec<TxnPartitionDoc>,
    /// Open transactions.
    pub open_transactions: Vec<OpenTxnDoc>,
}

/// What an open transaction is (`kafka-transactions.sh find-hanging`'s rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TxnVerdictDoc {
    /// Open within its timeout.
    Open,
    /// Open longer than its timeout.
    OpenLong,
    /// Open longer than `transaction.max.timeout.ms` and not tracked by its coordinator.
    Hanging,
}

impl From<TxnVerdict> for TxnVerdictDoc {
    fn from(v: TxnVerdict) -> Self {
        match v {
            TxnVerdict::Open => TxnVerdictDoc::Open,
            TxnVerdict::OpenLong => TxnVerdictDoc::OpenLong,
            TxnVerdict::Hanging => TxnVerdictDoc::Hanging,
        }
    }
}

impl TxnBody {
    /// The body for the coordinator's `state`, the data `partitions` with producers and the
    /// `verdicts` on them.
    pub fn new(
        state: &TxnState,
        state_partition_count: Option<usize>,
        max_timeout_ms: i64,
        partitions: &[PartitionFacts],
        verdicts: &TxnVerdicts,
    ) -> TxnBody {
        let docs = (partitions.iter().zip(&verdicts.partitions))
            .map(|(p, v)| TxnPartitionDoc {
                topic: p.tp.0.clone(),
                partition: p.tp.1,
                snapshot_offset: p.replay.snapshot_offset,
                batches_replayed: p.replay.batches_replayed,
                producers: p.replay.producers,
                first_unstable_offset: v.first_unstable_offset,
                high_watermark: p.high_watermark,
                last_stable_offset: v.last_stable_offset,
                log_end_offset: p.log_end_offset,
            })
            .collect();
        let open = (verdicts.open.iter())
            .map(|v| OpenTxnDoc {
                transactional_id: v.transactional_id.clone(),
                producer_id: v.txn.producer_id,
                producer_epoch: v.txn.producer_epoch,
                topic: v.tp.0.clone(),
                partition: v.tp.1,
                first_offset: v.txn.first_offset,
                open_since_ms: v.txn.first_timestamp_ms,
                last_timestamp_ms: v.txn.last_timestamp_ms,
                age_ms: v.age_ms,
                verdict: v.verdict.into(),
                abort_command: v.abort_command.clone(),
            })
            .collect();
        TxnBody {
            transaction_max_timeout_ms: max_timeout_ms,
            transaction_state_partitions: state.partitions.iter().copied().collect(),
            transaction_state_partition_count: state_partition_count,
            transactional_ids: state
                .ids
                .iter()
                .map(|(id, (p, v))| TxnIdDoc {
                    transactional_id: id.clone(),
                    coordinator_partition: *p,
                    producer_id: v.producer_id,
                    producer_epoch: v.producer_epoch,
                    state: v.status.name(),
                    transaction_timeout_ms: v.transaction_timeout_ms,
                    start_timestamp_ms: v.start_timestamp_ms,
                    last_update_timestamp_ms: v.last_update_timestamp_ms,
                    partitions: v
                        .partitions
                        .iter()
                        .flatten()
                        .flat_map(|t| t.partitions.iter().map(move |p| format!("{}-{p}", t.topic)))
                        .collect(),
                })
                .collect(),
            partitions: docs,
            open_transactions: open,
        }
    }
}
