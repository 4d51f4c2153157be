//! `__share_group_state` records: the share coordinator's state per share partition
//! (group, topic id, partition), Kafka 4.x (KIP-932).
//!
//! Kafka sources (4.4): `share-coordinator/src/main/resources/common/message/
//! ShareSnapshotKey.json`, `ShareSnapshotValue.json`, `ShareUpdateKey.json`,
//! `ShareUpdateValue.json` (the layouts); `coordinator-common/.../runtime/
//! CoordinatorRecordSerde.java` and `clients/.../common/protocol/MessageUtil.java`
//! (`toCoordinatorTypePrefixedBytes`: the key's i16 record type, then the key at version 0;
//! `toVersionPrefixedBytes`: the value's i16 version); `ShareCoordinatorRecordHelpers.java`
//! (a tombstone is a `ShareSnapshotKey` with a null value). Field encodings:
//! `formats/message_wire.rs`.
//!
//! ```text
//! key:   recordType i16 (0 ShareSnapshot, 1 ShareUpdate) | GroupId string | TopicId uuid
//!        | Partition i32                                    (version 0, classic encodings)
//! value: null (tombstone: the share partition's state was deleted) | version i16 (= 0) | body
//! ShareSnapshotValue v0 (flexible): SnapshotEpoch i32 | StateEpoch i32 | LeaderEpoch i32
//!   | StartOffset i64 | CreateTimestamp i64 | WriteTimestamp i64 | StateBatches [batch] | tags
//!   (tag 0: DeliveryCompleteCount i32, default -1)
//! ShareUpdateValue v0 (flexible): SnapshotEpoch i32 | LeaderEpoch i32 | StartOffset i64
//!   | StateBatches [batch] | tags (tag 0: DeliveryCompleteCount i32, default -1)
//! batch: FirstOffset i64 | LastOffset i64 | DeliveryState i8 | DeliveryCount i16 | tags
//! ```
//!
//! Kafka's `CoordinatorRecordSerde.deserialize` throws on an unknown record type or value
//! version (the shard's loader then fails the load); here both decode to typed variants so
//! the caller decides. Unlike Kafka, bytes left after the key or the value are an
//! [`ErrorKind::TrailingBytes`](super::ErrorKind::TrailingBytes) error. Error offsets are
//! relative to the key or the value.

use super::bytes::Cursor;
use super::error::FormatResult;
#[cfg(test)]
use super::error::{ErrorKind, FormatError};
use super::message_wire::{finish, uuid, Wire, CLASSIC, FLEXIBLE};
use super::partition_metadata::Uuid;

/// The key's record type of a `ShareSnapshot` (`ShareSnapshotKey.json` `apiKey`).
pub const SHARE_SNAPSHOT_RECORD_TYPE: i16 = 0;
/// The key's record type of a `ShareUpdate` (`ShareUpdateKey.json` `apiKey`).
pub const SHARE_UPDATE_RECORD_TYPE: i16 = 1;
/// Highest value version this decoder reads (both values have `validVersions: 0`).
pub const MAX_VALUE_VERSION: i16 = 0;

/// The share partition a record is about: a share group's view of one topic partition.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct SharePartitionKey {
    /// The share group.
    pub group_id: String,
    /// The topic's id.
    pub topic_id: Uuid,
    /// The partition index.
    pub partition: i32,
}

/// One state batch: the delivery state of a range of offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateBatch {
    /// First offset of the range.
    pub first_offset: i64,
    /// Last offset of the range (inclusive).
    pub last_offset: i64,
    /// 0 available, 2 acknowledged, 4 archived.
    pub delivery_state: i8,
    /// How many times the records were delivered.
    pub delivery_count: i16,
}

/// The fields of a `ShareSnapshotValue` or a `ShareUpdateValue` (those an update lacks are
/// `None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShareStateValue {
    /// The value version (0).
    pub version: i16,
    /// The snapshot epoch (an update carries the epoch of the snapshot it follows).
    pub snapshot_epoch: i32,
    /// The state epoch; `None` in an update.
    pub state_epoch: Option<i32>,
    /// The share partition's leader epoch.
    pub leader_epoch: i32,
    /// The share-partition start offset (-1 in an update that does not move it).
    pub start_offset: i64,
    /// Tag 0: offsets at or above the start offset whose delivery completed (-1 unknown).
    pub delivery_complete_count: i32,
    /// When the state was created (epoch ms); `None` in an update.
    pub create_timestamp_ms: Option<i64>,
    /// When the state was written (epoch ms); `None` in an update.
    pub write_timestamp_ms: Option<i64>,
    /// The state batches, in stored order.
    pub state_batches: Vec<StateBatch>,
}

/// Which of the two record types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShareRecordType {
    /// A complete snapshot of the share partition's state.
    Snapshot,
    /// An incremental update on the last snapshot.
    Update,
}

/// A decoded `__share_group_state` record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShareStateRecord {
    /// A snapshot or update; `value` `None` is a tombstone (only Kafka's snapshot key carries
    /// one: the share partition's state was deleted).
    State {
        /// Snapshot or update.
        kind: ShareRecordType,
        /// The share partition.
        key: SharePartitionKey,
        /// The value, or `None` for a tombstone.
        value: Option<ShareStateValue>,
    },
    /// A value version above [`MAX_VALUE_VERSION`] (or negative): Kafka's serde throws.
    UnknownValueVersion {
        /// Snapshot or update.
        kind: ShareRecordType,
        /// The share partition.
        key: SharePartitionKey,
        /// The version read.
        version: i16,
    },
    /// A key record type other than 0 and 1: Kafka's serde throws.
    UnknownKeyVersion {
        /// The record type read.
        version: i16,
    },
}

/// Decode a `__share_group_state` record from its key and value (`None` for a null value).
pub fn decode_share_state_record(
    key: &[u8],
    value: Option<&[u8]>,
) -> FormatResult<ShareStateRecord> {
    let mut c = Cursor::new(key);
    let key_version = c.i16()?;
    let kind = match key_version {
        SHARE_SNAPSHOT_RECORD_TYPE => ShareRecordType::Snapshot,
        SHARE_UPDATE_RECORD_TYPE => ShareRecordType::Update,
        version => return Ok(ShareStateRecord::UnknownKeyVersion { version }),
    };
    let group_id = CLASSIC.string(&mut c, "group_id")?;
    let topic_id = uuid(&mut c)?;
    let partition = c.i32()?;
    finish(&c)?;
    let key = SharePartitionKey {
        group_id,
        topic_id,
        partition,
    };
    let Some(value) = value else {
        return Ok(ShareStateRecord::State {
            kind,
            key,
            value: None,
        });
    };
    let mut c = Cursor::new(value);
    let version = c.i16()?;
    if !(0..=MAX_VALUE_VERSION).contains(&version) {
        return Ok(ShareStateRecord::UnknownValueVersion { kind, key, version });
    }
    let value = decode_body(&mut c, kind, version)?;
    finish(&c)?;
    Ok(ShareStateRecord::State {
        kind,
        key,
        value: Some(value),
    })
}

fn decode_body(
    c: &mut Cursor<'_>,
    kind: ShareRecordType,
    version: i16,
) -> FormatResult<ShareStateValue> {
    let w = FLEXIBLE;
    let snapshot = kind == ShareRecordType::Snapshot;
    let snapshot_epoch = c.i32()?;
    let state_epoch = if snapshot { Some(c.i32()?) } else { None };
    let leader_epoch = c.i32()?;
    let start_offset = c.i64()?;
    let (create_timestamp_ms, write_timestamp_ms) = if snapshot {
        (Some(c.i64()?), Some(c.i64()?))
    } else {
        (None, None)
    };
    let state_batches = state_batches(c, w)?;
    let mut value = ShareStateValue {
        version,
        snapshot_epoch,
        state_epoch,
        leader_epoch,
        start_offset,
        delivery_complete_count: -1,
        create_timestamp_ms,
        write_timestamp_ms,
        state_batches,
    };
    w.end_struct(c, |tag, f| {
        match tag {
            0 => value.delivery_complete_count = f.i32()?,
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(value)
}

/// Bytes of a state batch's fixed fields (i64, i64, i8, i16).
const STATE_BATCH_FIXED: usize = 8 + 8 + 1 + 2;

fn state_batches(c: &mut Cursor<'_>, w: Wire) -> FormatResult<Vec<StateBatch>> {
    let n = w.required_array_len(c, "state_batches", w.min_struct_size(STATE_BATCH_FIXED))?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let first_offset = c.i64()?;
        let last_offset = c.i64()?;
        let delivery_state = c.i8()?;
        let delivery_count = c.i16()?;
        w.skip_tags(c)?;
        out.push(StateBatch {
            first_offset,
            last_offset,
            delivery_state,
            delivery_count,
        });
    }
    Ok(out)
}

/// Encode a record key and value the way the broker does (`CoordinatorRecordSerde`); the tag
/// is written only when it differs from its default. Test helper.
#[cfg(test)]
pub(crate) fn encode_share_state_record(
    kind: ShareRecordType,
    key: &SharePartitionKey,
    value: Option<&ShareStateValue>,
) -> (Vec<u8>, Option<Vec<u8>>) {
    use super::message_wire::encode::{field, Enc};
    let record_type = match kind {
        ShareRecordType::Snapshot => SHARE_SNAPSHOT_RECORD_TYPE,
        ShareRecordType::Update => SHARE_UPDATE_RECORD_TYPE,
    };
    let k = Enc::new(CLASSIC)
        .i16(record_type)
        .str(&key.group_id)
        .uuid(key.topic_id)
        .i32(key.partition)
        .done();
    let v = value.map(|v| {
        let mut e = Enc::new(FLEXIBLE);
        e.i16(v.version).i32(v.snapshot_epoch);
        if let Some(se) = v.state_epoch {
            e.i32(se);
        }
        e.i32(v.leader_epoch).i64(v.start_offset);
        if let (Some(ct), Some(wt)) = (v.create_timestamp_ms, v.write_timestamp_ms) {
            e.i64(ct).i64(wt);
        }
        e.len(Some(v.state_batches.len()), false);
        for b in &v.state_batches {
            e.i64(b.first_offset)
                .i64(b.last_offset)
                .i8(b.delivery_state)
                .i16(b.delivery_count)
                .tags(&[]);
        }
        let mut tags = Vec::new();
        if v.delivery_complete_count != -1 {
            tags.push((
                0,
                field(|f| {
                    f.i32(v.delivery_complete_count);
                }),
            ));
        }
        e.tags(&tags);
        e.done()
    });
    (k, v)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn key() -> SharePartitionKey {
        SharePartitionKey {
            group_id: "workers".into(),
            topic_id: Uuid([7; 16]),
            partition: 3,
        }
    }

    fn snapshot() -> ShareStateValue {
        ShareStateValue {
            version: 0,
            snapshot_epoch: 4,
            state_epoch: Some(1),
            leader_epoch: 2,
            start_offset: 17,
            delivery_complete_count: 5,
            create_timestamp_ms: Some(1_700_000_000_000),
            write_timestamp_ms: Some(1_700_000_060_000),
            state_batches: vec![
                StateBatch {
                    first_offset: 17,
                    last_offset: 20,
                    delivery_state: 2,
                    delivery_count: 1,
                },
                StateBatch {
                    first_offset: 21,
                    last_offset: 21,
                    delivery_state: 0,
                    delivery_count: 3,
                },
            ],
        }
    }

    fn update() -> ShareStateValue {
        ShareStateValue {
            state_epoch: None,
            create_timestamp_ms: None,
            write_timestamp_ms: None,
            start_offset: -1,
            delivery_complete_count: -1,
            ..snapshot()
        }
    }

    #[test]
    fn snapshot_and_update_round_trip() {
        for (kind, v) in [
            (ShareRecordType::Snapshot, snapshot()),
            (ShareRecordType::Update, update()),
        ] {
            let (k, val) = encode_share_state_record(kind, &key(), Some(&v));
            let got = decode_share_state_record(&k, val.as_deref()).unwrap();
            assert_eq!(
                got,
                ShareStateRecord::State {
                    kind,
                    key: key(),
                    value: Some(v)
                }
            );
        }
    }

    #[test]
    fn tombstone_and_unknown_versions() {
        let (k, _) = encode_share_state_record(ShareRecordType::Snapshot, &key(), None);
        assert_eq!(
            decode_share_state_record(&k, None).unwrap(),
            ShareStateRecord::State {
                kind: ShareRecordType::Snapshot,
                key: key(),
                value: None
            }
        );
        let mut k2 = k.clone();
        k2[1] = 9;
        assert_eq!(
            decode_share_state_record(&k2, None).unwrap(),
            ShareStateRecord::UnknownKeyVersion { version: 9 }
        );
        let (_, v) =
            encode_share_state_record(ShareRecordType::Snapshot, &key(), Some(&snapshot()));
        let mut v = v.unwrap();
        v[1] = 1;
        assert!(matches!(
            decode_share_state_record(&k, Some(&v)).unwrap(),
            ShareStateRecord::UnknownValueVersion { version: 1, .. }
        ));
    }

    #[test]
    fn every_truncation_is_an_error_never_a_panic() {
        for kind in [ShareRecordType::Snapshot, ShareRecordType::Update] {
            let v = if kind == ShareRecordType::Snapshot {
                snapshot()
            } else {
                update()
            };
            let (k, val) = encode_share_state_record(kind, &key(), Some(&v));
            let val = val.unwrap();
            for cut in 0..k.len() {
                assert!(decode_share_state_record(&k[..cut], Some(&val)).is_err());
            }
            for cut in 0..val.len() {
                assert!(
                    decode_share_state_record(&k, Some(&val[..cut])).is_err(),
                    "{kind:?} cut at {cut}"
                );
            }
        }
    }

    #[test]
    fn trailing_bytes_and_huge_counts_are_errors() {
        let (k, v) = encode_share_state_record(ShareRecordType::Update, &key(), Some(&update()));
        let mut v = v.unwrap();
        v.push(0);
        let e: FormatError = decode_share_state_record(&k, Some(&v)).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::TrailingBytes(1)), "{e:?}");
        // An update: version, snapshot epoch, leader epoch, start offset, then the batch count.
        let mut v = Enc16::header();
        v.extend_from_slice(&[0xff, 0xff, 0xff, 0x0f]);
        let e = decode_share_state_record(&k, Some(&v)).unwrap_err();
        assert!(
            matches!(e.kind, ErrorKind::LengthOutOfRange { .. }),
            "{e:?}"
        );
    }

    /// An update value's fixed head: version 0, snapshot epoch, leader epoch, start offset.
    struct Enc16;
    impl Enc16 {
        fn header() -> Vec<u8> {
            let mut v = vec![0, 0];
            v.extend_from_slice(&1i32.to_be_bytes());
            v.extend_from_slice(&1i32.to_be_bytes());
            v.extend_from_slice(&(-1i64).to_be_bytes());
            v
        }
    }
}
