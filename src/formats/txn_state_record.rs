//! `__transaction_state` records: the transaction coordinator's state per transactional id.
//!
//! Kafka sources (4.x): `transaction-coordinator/src/main/resources/common/message/
//! TransactionLogKey.json` and `TransactionLogValue.json` (the layouts),
//! `transaction-coordinator/.../coordinator/transaction/TransactionLog.java` (`read`: what is
//! skipped), `TransactionState.java` (the status ids), `coordinator-common/.../runtime/
//! CoordinatorRecordSerde.java` and `clients/.../common/protocol/MessageUtil.java` (the i16
//! prefixes), `server-common/.../common/TransactionVersion.java` (`transactionLogValueVersion`:
//! v1 once `transaction.version` ≥ 1); spec §7.6. Field encodings: `formats/message_wire.rs`.
//!
//! ```text
//! key:   recordType i16 (= 0) | TransactionalId string (classic)
//! value: null (tombstone: the transactional id expired) | version i16 | body
//! body v0 (classic) and v1 (flexible, compact encodings, tagged sections):
//!   ProducerId i64 | ProducerEpoch i16 | TransactionTimeoutMs i32 | TransactionStatus i8
//!   | TransactionPartitions nullable [Topic string, PartitionIds [i32] (| tags)]
//!   | TransactionLastUpdateTimestampMs i64 | TransactionStartTimestampMs i64 (| tags)
//! v1 tags: 0 PreviousProducerId i64 (-1), 1 NextProducerId i64 (-1),
//!          2 ClientTransactionVersion i16 (0), 3 NextProducerEpoch i16 (-1)
//! ```
//!
//! Kafka's loader (`TransactionStateManager.loadTransactionMetadata`) skips a record whose key
//! type or value version it does not know, with a warning: both decode to typed variants
//! ([`TxnStateRecord::UnknownKeyVersion`], [`TxnStateRecord::UnknownValueVersion`]). A status
//! byte outside 0-7 makes Kafka's `TransactionState.fromId` throw, so it is an
//! [`ErrorKind::InvalidField`](super::ErrorKind::InvalidField). Unlike Kafka, bytes left after the key or the body are an
//! [`ErrorKind::TrailingBytes`](super::ErrorKind::TrailingBytes) error. Error offsets are relative to the key or the value.

use super::bytes::Cursor;
use super::error::FormatResult;
#[cfg(test)]
use super::error::{ErrorKind, FormatError};
use super::message_wire::{finish, invalid, Wire, CLASSIC, FLEXIBLE};

/// The key's record type (`TransactionLogKey.json` `apiKey`).
pub const TRANSACTION_LOG_RECORD_TYPE: i16 = 0;
/// Highest `TransactionLogValue` version this decoder reads.
pub const MAX_VALUE_VERSION: i16 = 1;

/// `TransactionState` with Kafka's byte ids.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum TxnStatus {
    /// 0: no transaction in progress.
    Empty,
    /// 1: a transaction is open (partitions added).
    Ongoing,
    /// 2: the producer asked to commit; markers are being written.
    PrepareCommit,
    /// 3: the producer (or a timeout) asked to abort; markers are being written.
    PrepareAbort,
    /// 4: commit markers written.
    CompleteCommit,
    /// 5: abort markers written.
    CompleteAbort,
    /// 6: the transactional id expired and is being removed.
    Dead,
    /// 7: a timed-out transaction is being aborted with a bumped epoch.
    PrepareEpochFence,
}

impl TxnStatus {
    /// All states, in id order.
    pub const ALL: [TxnStatus; 8] = [
        TxnStatus::Empty,
        TxnStatus::Ongoing,
        TxnStatus::PrepareCommit,
        TxnStatus::PrepareAbort,
        TxnStatus::CompleteCommit,
        TxnStatus::CompleteAbort,
        TxnStatus::Dead,
        TxnStatus::PrepareEpochFence,
    ];

    /// The state for a stored status byte, `None` for an id Kafka does not know.
    pub fn from_id(id: i8) -> Option<TxnStatus> {
        usize::try_from(id)
            .ok()
            .and_then(|i| Self::ALL.get(i))
            .copied()
    }

    /// The stored status byte.
    pub fn id(self) -> i8 {
        self as i8
    }

    /// Kafka's name (`TransactionState.stateName`).
    pub fn name(self) -> &'static str {
        match self {
            TxnStatus::Empty => "Empty",
            TxnStatus::Ongoing => "Ongoing",
            TxnStatus::PrepareCommit => "PrepareCommit",
            TxnStatus::PrepareAbort => "PrepareAbort",
            TxnStatus::CompleteCommit => "CompleteCommit",
            TxnStatus::CompleteAbort => "CompleteAbort",
            TxnStatus::Dead => "Dead",
            TxnStatus::PrepareEpochFence => "PrepareEpochFence",
        }
    }

    /// Whether a transaction is open or its markers are not all written yet (Kafka's
    /// "ongoing or pending" states).
    pub fn is_in_flight(self) -> bool {
        matches!(
            self,
            TxnStatus::Ongoing
                | TxnStatus::PrepareCommit
                | TxnStatus::PrepareAbort
                | TxnStatus::PrepareEpochFence
        )
    }
}

/// The partitions of one topic in a transaction.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TxnTopicPartitions {
    /// Topic name.
    pub topic: String,
    /// Partition ids, in stored order.
    pub partitions: Vec<i32>,
}

/// A `TransactionLogValue` (v0 or v1).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TxnStateValue {
    /// The value version (0 classic, 1 flexible).
    pub version: i16,
    /// The producer id in use.
    pub producer_id: i64,
    /// v1 tag 0: the producer id of the last committed transaction (-1 none); `None` in v0.
    pub previous_producer_id: Option<i64>,
    /// v1 tag 1: the next producer id handed to the producer (-1 none); `None` in v0.
    pub next_producer_id: Option<i64>,
    /// The producer epoch.
    pub producer_epoch: i16,
    /// v1 tag 3: the epoch that goes with `next_producer_id` (-1 none); `None` in v0.
    pub next_producer_epoch: Option<i16>,
    /// `transaction.timeout.ms` of the producer.
    pub transaction_timeout_ms: i32,
    /// The state.
    pub status: TxnStatus,
    /// Partitions in the transaction; `None` when stored as null (Kafka writes null for
    /// [`TxnStatus::Empty`]).
    pub partitions: Option<Vec<TxnTopicPartitions>>,
    /// When the state last changed (epoch ms).
    pub last_update_timestamp_ms: i64,
    /// When the transaction started (epoch ms, -1 none).
    pub start_timestamp_ms: i64,
    /// v1 tag 2: the client's transaction protocol version (0 default); `None` in v0.
    pub client_transaction_version: Option<i16>,
}

/// A decoded `__transaction_state` record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TxnStateRecord {
    /// The state of a transactional id; `value` `None` is a tombstone (the id was removed).
    Transaction {
        /// The transactional id.
        transactional_id: String,
        /// The state, or `None` for a tombstone.
        value: Option<TxnStateValue>,
    },
    /// A value version above [`MAX_VALUE_VERSION`] (or negative): Kafka skips the record.
    UnknownValueVersion {
        /// The transactional id.
        transactional_id: String,
        /// The version read.
        version: i16,
    },
    /// A key record type other than [`TRANSACTION_LOG_RECORD_TYPE`]: Kafka skips the record
    /// without reading further.
    UnknownKeyVersion {
        /// The record type read.
        version: i16,
    },
}

/// Decode a `__transaction_state` record from its key and value (`None` for a null value).
pub fn decode_txn_state_record(key: &[u8], value: Option<&[u8]>) -> FormatResult<TxnStateRecord> {
    let mut c = Cursor::new(key);
    let key_version = c.i16()?;
    if key_version != TRANSACTION_LOG_RECORD_TYPE {
        return Ok(TxnStateRecord::UnknownKeyVersion {
            version: key_version,
        });
    }
    let transactional_id = CLASSIC.string(&mut c, "transactional_id")?;
    finish(&c)?;
    let Some(value) = value else {
        return Ok(TxnStateRecord::Transaction {
            transactional_id,
            value: None,
        });
    };
    let mut c = Cursor::new(value);
    let version = c.i16()?;
    if !(0..=MAX_VALUE_VERSION).contains(&version) {
        return Ok(TxnStateRecord::UnknownValueVersion {
            transactional_id,
            version,
        });
    }
    let value = decode_body(&mut c, version)?;
    finish(&c)?;
    Ok(TxnStateRecord::Transaction {
        transactional_id,
        value: Some(value),
    })
}

fn decode_body(c: &mut Cursor<'_>, version: i16) -> FormatResult<TxnStateValue> {
    let w = if version >= 1 { FLEXIBLE } else { CLASSIC };
    let producer_id = c.i64()?;
    let producer_epoch = c.i16()?;
    let transaction_timeout_ms = c.i32()?;
    let status_at = c.position();
    let status_id = c.i8()?;
    let status = TxnStatus::from_id(status_id).ok_or_else(|| {
        invalid(
            "transaction_status",
            format!("unknown transaction state id {status_id}"),
            status_at,
        )
    })?;
    let partitions = partitions(c, w)?;
    let last_update_timestamp_ms = c.i64()?;
    let start_timestamp_ms = c.i64()?;
    let v1 = version >= 1;
    let mut value = TxnStateValue {
        version,
        producer_id,
        previous_producer_id: v1.then_some(-1),
        next_producer_id: v1.then_some(-1),
        producer_epoch,
        next_producer_epoch: v1.then_some(-1),
        transaction_timeout_ms,
        status,
        partitions,
        last_update_timestamp_ms,
        start_timestamp_ms,
        client_transaction_version: v1.then_some(0),
    };
    w.end_struct(c, |tag, f| {
        match tag {
            0 => value.previous_producer_id = Some(f.i64()?),
            1 => value.next_producer_id = Some(f.i64()?),
            2 => value.client_transaction_version = Some(f.i16()?),
            3 => value.next_producer_epoch = Some(f.i16()?),
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(value)
}

fn partitions(c: &mut Cursor<'_>, w: Wire) -> FormatResult<Option<Vec<TxnTopicPartitions>>> {
    // Smallest element: an empty topic name and an empty partition array (+ tags).
    let min = w.min_struct_size(w.min_len_size(true) + w.min_len_size(false));
    let Some(n) = w.array_len(c, "transaction_partitions", min)? else {
        return Ok(None);
    };
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let topic = w.string(c, "topic")?;
        let partitions = w.i32_array(c, "partition_ids")?;
        w.skip_tags(c)?;
        out.push(TxnTopicPartitions { topic, partitions });
    }
    Ok(Some(out))
}

/// Encode a record key and value the way the broker does (`TransactionLog.keyToBytes`,
/// `valueToBytes`); tagged fields are written only when they differ from their defaults.
/// Test and fixture helper; `version` must be 0 or 1 and fields absent in that version `None`.
#[cfg(test)]
pub(crate) fn encode_txn_state_record(
    transactional_id: &str,
    value: Option<&TxnStateValue>,
) -> (Vec<u8>, Option<Vec<u8>>) {
    use super::message_wire::encode::{field, Enc};
    let key = Enc::new(CLASSIC)
        .i16(TRANSACTION_LOG_RECORD_TYPE)
        .str(transactional_id)
        .done();
    let value = value.map(|v| {
        let w = if v.version >= 1 { FLEXIBLE } else { CLASSIC };
        let mut e = Enc::new(w);
        e.i16(v.version)
            .i64(v.producer_id)
            .i16(v.producer_epoch)
            .i32(v.transaction_timeout_ms)
            .i8(v.status.id());
        e.len(v.partitions.as_ref().map(Vec::len), false);
        for p in v.partitions.iter().flatten() {
            e.str(&p.topic).i32s(&p.partitions).tags(&[]);
        }
        e.i64(v.last_update_timestamp_ms).i64(v.start_timestamp_ms);
        let mut tags = Vec::new();
        if let Some(id) = v.previous_producer_id.filter(|id| *id != -1) {
            tags.push((
                0,
                field(|f| {
                    f.i64(id);
                }),
            ));
        }
        if let Some(id) = v.next_producer_id.filter(|id| *id != -1) {
            tags.push((
                1,
                field(|f| {
                    f.i64(id);
                }),
            ));
        }
        if let Some(tv) = v.client_transaction_version.filter(|tv| *tv != 0) {
            tags.push((
                2,
                field(|f| {
                    f.i16(tv);
                }),
            ));
        }
        if let Some(epoch) = v.next_producer_epoch.filter(|e| *e != -1) {
            tags.push((
                3,
                field(|f| {
                    f.i16(epoch);
                }),
            ));
        }
        e.tags(&tags).done()
    });
    (key, value)
}

#[cfg(test)]
mod tests {
    use super::super::message_wire::encode::Enc;
    use super::*;
    use proptest::prelude::*;

    /// A cut-off record: `Truncated`, or `LengthOutOfRange` when the cut leaves an array
    /// count that no longer fits in the bytes left.
    fn is_truncation(err: &FormatError) -> bool {
        matches!(
            err.kind,
            ErrorKind::Truncated { .. } | ErrorKind::LengthOutOfRange { .. }
        )
    }

    fn sample(version: i16) -> TxnStateValue {
        let v1 = version >= 1;
        TxnStateValue {
            version,
            producer_id: 1000,
            previous_producer_id: v1.then_some(999),
            next_producer_id: v1.then_some(-1),
            producer_epoch: 3,
            next_producer_epoch: v1.then_some(-1),
            transaction_timeout_ms: 60_000,
            status: TxnStatus::Ongoing,
            partitions: Some(vec![
                TxnTopicPartitions {
                    topic: "txn".into(),
                    partitions: vec![0, 2],
                },
                TxnTopicPartitions {
                    topic: "t2".into(),
                    partitions: vec![],
                },
            ]),
            last_update_timestamp_ms: 1_796_045_580_000,
            start_timestamp_ms: 1_796_045_570_000,
            client_transaction_version: v1.then_some(2),
        }
    }

    /// Every strict prefix of a valid value (and key) fails with a truncation, never a panic.
    fn assert_prefixes_truncated(key: &[u8], value: &[u8]) {
        for n in 0..value.len() {
            let e = decode_txn_state_record(key, Some(&value[..n])).unwrap_err();
            assert!(is_truncation(&e), "value prefix {n}: {e}");
        }
        for n in 0..key.len() {
            let e = decode_txn_state_record(&key[..n], Some(value)).unwrap_err();
            assert!(is_truncation(&e), "key prefix {n}: {e}");
        }
    }

    #[test]
    fn v0_and_v1_layouts() {
        for version in [0, 1] {
            let v = sample(version);
            let (key, value) = encode_txn_state_record("tx-main", Some(&v));
            let value = value.unwrap();
            assert_eq!(
                decode_txn_state_record(&key, Some(&value)).unwrap(),
                TxnStateRecord::Transaction {
                    transactional_id: "tx-main".into(),
                    value: Some(v)
                }
            );
            assert_prefixes_truncated(&key, &value);
        }
        // v0 by hand: the field order of TransactionLogValue.json.
        let value = Enc::new(CLASSIC)
            .i16(0)
            .i64(7)
            .i16(1)
            .i32(100)
            .i8(0)
            .i32(-1)
            .i64(5)
            .i64(-1)
            .done();
        let key = Enc::new(CLASSIC).i16(0).str("a").done();
        let TxnStateRecord::Transaction { value: Some(v), .. } =
            decode_txn_state_record(&key, Some(&value)).unwrap()
        else {
            panic!()
        };
        assert_eq!(
            (v.producer_id, v.producer_epoch, v.transaction_timeout_ms),
            (7, 1, 100)
        );
        assert_eq!((v.status, v.partitions), (TxnStatus::Empty, None));
        assert_eq!((v.last_update_timestamp_ms, v.start_timestamp_ms), (5, -1));
        assert_eq!(v.previous_producer_id, None);
    }

    #[test]
    fn v1_tag_defaults_and_unknown_tags() {
        // No tags: the defaults; an unknown tag 9 is skipped.
        let value = Enc::new(FLEXIBLE)
            .i16(1)
            .i64(7)
            .i16(1)
            .i32(100)
            .i8(4)
            .len(Some(0), false)
            .i64(5)
            .i64(4)
            .tags(&[(9, vec![1, 2, 3])])
            .done();
        let key = Enc::new(CLASSIC).i16(0).str("a").done();
        let TxnStateRecord::Transaction { value: Some(v), .. } =
            decode_txn_state_record(&key, Some(&value)).unwrap()
        else {
            panic!()
        };
        assert_eq!(v.status, TxnStatus::CompleteCommit);
        assert_eq!(v.partitions, Some(vec![]));
        assert_eq!(v.previous_producer_id, Some(-1));
        assert_eq!(v.next_producer_id, Some(-1));
        assert_eq!(v.next_producer_epoch, Some(-1));
        assert_eq!(v.client_transaction_version, Some(0));
    }

    #[test]
    fn tombstones_and_unknown_versions() {
        let key = Enc::new(CLASSIC).i16(0).str("gone").done();
        assert_eq!(
            decode_txn_state_record(&key, None).unwrap(),
            TxnStateRecord::Transaction {
                transactional_id: "gone".into(),
                value: None
            }
        );
        for version in [2i16, 300, -1] {
            assert_eq!(
                decode_txn_state_record(&key, Some(&version.to_be_bytes())).unwrap(),
                TxnStateRecord::UnknownValueVersion {
                    transactional_id: "gone".into(),
                    version
                }
            );
        }
        // Another key type: nothing after it is read.
        assert_eq!(
            decode_txn_state_record(&[0, 1, 0xff], Some(&[0xff])).unwrap(),
            TxnStateRecord::UnknownKeyVersion { version: 1 }
        );
    }

    #[test]
    fn bad_fields() {
        let key = Enc::new(CLASSIC).i16(0).str("a").done();
        // Status 8 is unknown (TransactionState.fromId throws).
        let mut v = sample(0);
        v.status = TxnStatus::Empty;
        let (_, value) = encode_txn_state_record("a", Some(&v));
        let mut value = value.unwrap();
        value[16] = 8;
        let e = decode_txn_state_record(&key, Some(&value)).unwrap_err();
        assert_eq!(e.offset, 16);
        assert!(matches!(
            e.kind,
            ErrorKind::InvalidField {
                field: "transaction_status",
                ..
            }
        ));
        // Trailing bytes after the key and after the value.
        let mut long_key = key.clone();
        long_key.push(0);
        assert_eq!(
            decode_txn_state_record(&long_key, None).unwrap_err().kind,
            ErrorKind::TrailingBytes(1)
        );
        let (_, value) = encode_txn_state_record("a", Some(&sample(1)));
        let mut value = value.unwrap();
        value.push(0);
        assert_eq!(
            decode_txn_state_record(&key, Some(&value))
                .unwrap_err()
                .kind,
            ErrorKind::TrailingBytes(1)
        );
        // A partitions array claiming 2^30 topics.
        let value = Enc::new(CLASSIC)
            .i16(0)
            .i64(7)
            .i16(1)
            .i32(100)
            .i8(1)
            .i32(1 << 30)
            .done();
        assert!(matches!(
            decode_txn_state_record(&key, Some(&value))
                .unwrap_err()
                .kind,
            ErrorKind::LengthOutOfRange {
                field: "transaction_partitions",
                ..
            }
        ));
        // A null transactional id.
        let e = decode_txn_state_record(&[0, 0, 0xff, 0xff], None).unwrap_err();
        assert!(matches!(
            e.kind,
            ErrorKind::InvalidField {
                field: "transactional_id",
                ..
            }
        ));
    }

    #[test]
    fn status_ids_match_kafka() {
        for (i, s) in TxnStatus::ALL.iter().enumerate() {
            assert_eq!(s.id(), i as i8);
            assert_eq!(TxnStatus::from_id(i as i8), Some(*s));
        }
        assert_eq!(TxnStatus::from_id(8), None);
        assert_eq!(TxnStatus::from_id(-1), None);
        assert_eq!(TxnStatus::PrepareEpochFence.name(), "PrepareEpochFence");
        assert!(TxnStatus::PrepareAbort.is_in_flight());
        assert!(!TxnStatus::CompleteAbort.is_in_flight());
    }

    fn arb_value() -> impl Strategy<Value = TxnStateValue> {
        let partitions = proptest::option::of(proptest::collection::vec(
            (
                "[a-z._-]{0,12}",
                proptest::collection::vec(any::<i32>(), 0..4),
            )
                .prop_map(|(topic, partitions)| TxnTopicPartitions { topic, partitions }),
            0..4,
        ));
        (
            0i16..=1,
            any::<(i64, i64, i64, i16, i16)>(),
            any::<(i32, i64, i64, i16)>(),
            proptest::sample::select(TxnStatus::ALL.to_vec()),
            partitions,
        )
            .prop_map(
                |(
                    version,
                    (pid, prev, next, epoch, next_epoch),
                    (timeout, upd, start, tv),
                    status,
                    partitions,
                )| {
                    let v1 = version >= 1;
                    TxnStateValue {
                        version,
                        producer_id: pid,
                        previous_producer_id: v1.then_some(prev),
                        next_producer_id: v1.then_some(next),
                        producer_epoch: epoch,
                        next_producer_epoch: v1.then_some(next_epoch),
                        transaction_timeout_ms: timeout,
                        status,
                        partitions,
                        last_update_timestamp_ms: upd,
                        start_timestamp_ms: start,
                        client_transaction_version: v1.then_some(tv),
                    }
                },
            )
    }

    proptest! {
        #[test]
        fn round_trip(id in "\\PC{0,20}", value in proptest::option::of(arb_value())) {
            let (key, bytes) = encode_txn_state_record(&id, value.as_ref());
            let decoded = decode_txn_state_record(&key, bytes.as_deref()).unwrap();
            prop_assert_eq!(decoded, TxnStateRecord::Transaction { transactional_id: id, value });
            // Every byte is needed: each strict prefix of the key or the value is cut off.
            for n in 0..key.len() {
                let e = decode_txn_state_record(&key[..n], bytes.as_deref()).unwrap_err();
                prop_assert!(is_truncation(&e), "{}", e);
            }
            for n in 0..bytes.as_ref().map_or(0, Vec::len) {
                let e = decode_txn_state_record(&key, bytes.as_ref().map(|v| &v[..n])).unwrap_err();
                prop_assert!(is_truncation(&e), "{}", e);
            }
        }

        #[test]
        fn arbitrary_input_never_panics(
            key in proptest::collection::vec(any::<u8>(), 0..40),
            value in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..200)),
        ) {
            let _ = decode_txn_state_record(&key, value.as_deref());
        }

        #[test]
        fn arbitrary_bodies_never_panic(
            version in 0i16..=1,
            body in proptest::collection::vec(any::<u8>(), 0..200),
        ) {
            let mut value = version.to_be_bytes().to_vec();
            value.extend_from_slice(&body);
            let _ = decode_txn_state_record(&[0, 0, 0, 1, b'x'], Some(&value));
        }
    }
}
