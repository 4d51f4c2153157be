//! The transaction rules over a partition's replayed producer state and the transaction
//! coordinator's state: the last stable offset an open transaction holds, and whether it is open,
//! open past its timeout, or hanging (nothing will ever abort it).
//!
//! Kafka: `UnifiedLog` (`lastStableOffset`: the first unstable offset, else the high watermark,
//! never above it), `ProducerStateManager.firstUnstableOffset`, and `kafka-transactions.sh
//! find-hanging` (`TransactionsCommand.FindHangingTransactionsCommand`, KIP-664): a producer's
//! open transaction is a candidate when `now - lastTimestamp` exceeds
//! `transaction.max.timeout.ms`; it hangs when the coordinator does not track it as an in-flight
//! transaction over that partition. The remedy is KIP-664's `kafka-transactions.sh abort`.
//!
//! [`assess`] gives every verdict of `logclean transactions`: `checks::transactions` turns them
//! into findings, `report::txn_doc` into rows.

use crate::model::groups::TopicPartition;
use crate::model::producer_state::{OpenTxn, ProducerReplay};
use crate::model::txn_state::TxnState;

/// What an open transaction is, by `kafka-transactions.sh find-hanging`'s rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    tp: &TopicPartition,
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

/// The last stable offset: where `read_committed` consumers stop, min(first unstable offset,
/// high watermark), either alone when the other is unknown.
pub fn last_stable_offset(first_unstable: Option<i64>, high_watermark: Option<i64>) -> Option<i64> {
    match (first_unstable, high_watermark) {
        (Some(f), Some(h)) => Some(f.min(h)),
        (f, h) => f.or(h),
    }
}

/// The command that aborts a hanging transaction starting at `first_offset` (KIP-664).
pub fn abort_command(tp: &TopicPartition, first_offset: i64) -> String {
    format!(
        "kafka-transactions.sh --bootstrap-server HOST:PORT abort --topic {} --partition {} --start-offset {}",
        crate::model::names::shell_word(tp.0.as_bytes()),
        tp.1,
        first_offset
    )
}

/// A data partition with producers: its replayed producer state and the offsets around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionFacts {
    /// The partition.
    pub tp: TopicPartition,
    /// Its producer-state replay.
    pub replay: ProducerReplay,
    /// The high watermark assumed for it (the one the plan assumes).
    pub high_watermark: Option<i64>,
    /// The log end offset.
    pub log_end_offset: Option<i64>,
}

/// The facts besides the partitions.
#[derive(Debug, Clone, Copy)]
pub struct TxnFacts<'s> {
    /// The coordinator's state replayed from `__transaction_state`.
    pub state: &'s TxnState,
    /// `__transaction_state`'s partition count in the metadata log (`None`: unknown).
    pub state_partition_count: Option<usize>,
    /// `transaction.max.timeout.ms`.
    pub max_timeout_ms: i64,
    /// The evaluation instant, ms.
    pub now_ms: i64,
}

/// The verdicts on one partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionVerdict {
    /// The first offset of the oldest open transaction.
    pub first_unstable_offset: Option<i64>,
    /// [`last_stable_offset`].
    pub last_stable_offset: Option<i64>,
}

/// The verdict on one open transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenTxnVerdict {
    /// The partition it is open on.
    pub tp: TopicPartition,
    /// The transaction.
    pub txn: OpenTxn,
    /// Its transactional id, when the coordinator's state names this producer id.
    pub transactional_id: Option<String>,
    /// `now - last_timestamp_ms`.
    pub age_ms: i64,
    /// [`classify`].
    pub verdict: TxnVerdict,
    /// For a hanging one, [`abort_command`].
    pub abort_command: Option<String>,
}

/// Every verdict: one per partition (in the order given) and one per open transaction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TxnVerdicts {
    /// Per partition, in the order of the facts.
    pub partitions: Vec<PartitionVerdict>,
    /// Per open transaction, partition after partition, by first offset.
    pub open: Vec<OpenTxnVerdict>,
}

/// The verdicts on `partitions` with `facts`.
pub fn assess(partitions: &[PartitionFacts], facts: &TxnFacts<'_>) -> TxnVerdicts {
    let all = (facts.state_partition_count).is_some_and(|n| facts.state.partitions.len() >= n);
    let mut out = TxnVerdicts::default();
    for p in partitions {
        let fuo = p.replay.first_unstable_offset();
        out.partitions.push(PartitionVerdict {
            first_unstable_offset: fuo,
            last_stable_offset: last_stable_offset(fuo, p.high_watermark),
        });
        for t in &p.replay.open {
            let (verdict, id) = classify(
                t,
                &p.tp,
                facts.state,
                all,
                facts.max_timeout_ms,
                facts.now_ms,
            );
            out.open.push(OpenTxnVerdict {
                tp: p.tp.clone(),
                txn: t.clone(),
                transactional_id: id.map(str::to_string),
                age_ms: facts.now_ms.saturating_sub(t.last_timestamp_ms),
                verdict,
                abort_command: (verdict == TxnVerdict::Hanging)
                    .then(|| abort_command(&p.tp, t.first_offset)),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::txn_state_record::{TxnStateValue, TxnStatus, TxnTopicPartitions};

    fn open(producer_id: i64, first_offset: i64, last_timestamp_ms: i64) -> OpenTxn {
        OpenTxn {
            producer_id,
            producer_epoch: 0,
            first_offset,
            first_timestamp_ms: Some(last_timestamp_ms),
            last_timestamp_ms,
            last_offset: first_offset,
        }
    }

    fn coordinator(producer_id: i64, status: TxnStatus, on: Option<(&str, i32)>) -> TxnState {
        let mut state = TxnState::default();
        state.partitions.insert(0);
        let value = TxnStateValue {
            version: 0,
            producer_id,
            previous_producer_id: None,
            next_producer_id: None,
            producer_epoch: 0,
            next_producer_epoch: None,
            transaction_timeout_ms: 60_000,
            status,
            partitions: Some(
                on.map(|(t, p)| TxnTopicPartitions {
                    topic: t.to_string(),
                    partitions: vec![p],
                })
                .into_iter()
                .collect(),
            ),
            last_update_timestamp_ms: 0,
            start_timestamp_ms: 0,
            client_transaction_version: None,
        };
        state.ids.insert("tx".into(), (0, value));
        state
    }

    #[test]
    fn the_last_stable_offset_is_the_lower_of_the_two() {
        assert_eq!(last_stable_offset(Some(5), Some(9)), Some(5));
        assert_eq!(last_stable_offset(Some(9), Some(5)), Some(5));
        assert_eq!(last_stable_offset(None, Some(5)), Some(5));
        assert_eq!(last_stable_offset(Some(5), None), Some(5));
        assert_eq!(last_stable_offset(None, None), None);
    }

    #[test]
    fn hanging_needs_the_max_timeout_and_no_in_flight_transaction_over_the_partition() {
        let tp = ("t".to_string(), 0);
        let t = open(7, 10, 0);
        let max = 900_000;
        // Tracked as ongoing over this partition: only open long, past its own timeout.
        let tracked = coordinator(7, TxnStatus::Ongoing, Some(("t", 0)));
        assert_eq!(
            classify(&t, &tp, &tracked, false, max, 60_001).0,
            TxnVerdict::OpenLong
        );
        assert_eq!(
            classify(&t, &tp, &tracked, false, max, 60_000).0,
            TxnVerdict::Open
        );
        assert_eq!(
            classify(&t, &tp, &tracked, false, max, max + 1).0,
            TxnVerdict::OpenLong
        );
        // Ongoing over another partition: hanging once past the max timeout, named.
        let elsewhere = coordinator(7, TxnStatus::Ongoing, Some(("u", 0)));
        let (v, id) = classify(&t, &tp, &elsewhere, false, max, max + 1);
        assert_eq!((v, id), (TxnVerdict::Hanging, Some("tx")));
        // Unknown to the coordinator: hanging only when every state partition was read.
        let empty = TxnState::default();
        assert_eq!(
            classify(&t, &tp, &empty, false, max, max + 1).0,
            TxnVerdict::OpenLong
        );
        assert_eq!(
            classify(&t, &tp, &empty, true, max, max + 1).0,
            TxnVerdict::Hanging
        );
    }

    #[test]
    fn assess_gives_a_verdict_per_partition_and_per_open_transaction() {
        let state = TxnState::default();
        let replay = ProducerReplay {
            producers: 2,
            open: vec![open(7, 10, 0), open(8, 20, 0)],
            ..ProducerReplay::default()
        };
        let parts = [PartitionFacts {
            tp: ("t".to_string(), 3),
            replay,
            high_watermark: Some(15),
            log_end_offset: Some(30),
        }];
        let facts = TxnFacts {
            state: &state,
            state_partition_count: Some(0),
            max_timeout_ms: 100,
            now_ms: 101,
        };
        let v = assess(&parts, &facts);
        assert_eq!(
            v.partitions,
            vec![PartitionVerdict {
                first_unstable_offset: Some(10),
                last_stable_offset: Some(10)
            }]
        );
        assert_eq!(v.open.len(), 2);
        assert!(v
            .open
            .iter()
            .all(|o| o.verdict == TxnVerdict::Hanging && o.age_ms == 101));
        assert_eq!(
            v.open[1].abort_command.as_deref(),
            Some("kafka-transactions.sh --bootstrap-server HOST:PORT abort --topic t --partition 3 --start-offset 20")
        );
    }
}
