//! `__remote_log_metadata` record values (tiered storage, KIP-405) and the partitioner that
//! places a user partition's records in one of that topic's partitions.
//!
//! Kafka sources (4.4): `storage/src/main/resources/message/RemoteLogSegmentMetadataRecord.json`,
//! `RemoteLogSegmentMetadataUpdateRecord.json`, `RemotePartitionDeleteMetadataRecord.json`,
//! `RemoteLogSegmentMetadataSnapshotRecord.json` (the bodies, apiKeys 0-3, `validVersions` 0,
//! `flexibleVersions` 0+); `storage/.../metadata/storage/serialization/RemoteLogMetadataSerde.java`
//! (a `BytesApiMessageSerde`: key null, value framed); `server-common/.../common/serialization/
//! AbstractApiMessageSerde.java` (the frame, shared with `__cluster_metadata`:
//! [`super::metadata_record::decode_frame`]); `storage/api/.../RemoteLogSegmentState.java` and
//! `RemotePartitionDeleteState.java` (state ids); `storage/.../metadata/storage/
//! RemoteLogMetadataTopicPartitioner.java` ([`metadata_partition`]); `clients/.../common/utils/
//! Utils.java` (`murmur2`, `toPositive`).
//!
//! ```text
//! value: frameVersion uvarint (= 1) | apiKey uvarint | version uvarint (= 0) | body (flexible)
//! TopicIdPartition  = Name compact-string | Id uuid | Partition i32 | tags
//! RemoteLogSegmentId = TopicIdPartition | Id uuid | tags
//! SegmentLeaderEpoch = LeaderEpoch i32 | Offset i64 | tags
//! 0 RemoteLogSegmentMetadataRecord: RemoteLogSegmentId | StartOffset i64 | EndOffset i64
//!     | BrokerId i32 | MaxTimestampMs i64 | EventTimestampMs i64 | SegmentLeaderEpochs [..]
//!     | SegmentSizeInBytes i32 | CustomMetadata nullable compact-bytes | RemoteLogSegmentState i8
//!     | tags (0: TxnIndexEmpty bool)
//! 1 RemoteLogSegmentMetadataUpdateRecord: RemoteLogSegmentId | BrokerId i32
//!     | EventTimestampMs i64 | CustomMetadata nullable compact-bytes | RemoteLogSegmentState i8 | tags
//! 2 RemotePartitionDeleteMetadataRecord: TopicIdPartition | BrokerId i32 | EventTimestampMs i64
//!     | RemotePartitionDeleteState i8 | tags
//! 3 RemoteLogSegmentMetadataSnapshotRecord: SegmentId uuid | StartOffset i64 | EndOffset i64
//!     | BrokerId i32 | MaxTimestampMs i64 | EventTimestampMs i64 | SegmentLeaderEpochs [..]
//!     | SegmentSizeInBytes i32 | CustomMetadata nullable compact-bytes | RemoteLogSegmentState i8
//!     | tags (0: TxnIndexEmpty bool)
//! ```
//!
//! Decoding rules (those of [`super::message_wire`]): lengths are checked against the bytes left
//! before anything is allocated; strings must be UTF-8; a known tagged field must fill exactly
//! its size; unknown tags are skipped as Kafka does; the body must be consumed exactly (Kafka's
//! "garbage after" check). An apiKey other than 0-3 is an error, as in Kafka
//! (`RemoteLogMetadataSerde.apiMessageFor` throws), and so is a version other than 0 (no other
//! layout exists). A state byte Kafka does not know (its `forId` returns null and the manager
//! fails on it) is an [`ErrorKind::InvalidField`]. Error offsets are relative to the value.

use super::bytes::Cursor;
use super::error::{ErrorKind, FormatError, FormatResult};
use super::message_wire::{finish, invalid, uuid, FLEXIBLE};
use super::metadata_record::decode_frame;
use super::partition_metadata::Uuid;

/// The topic's name.
pub const REMOTE_LOG_METADATA_TOPIC: &str = "__remote_log_metadata";
/// Its default partition count (`remote.log.metadata.topic.num.partitions`,
/// `TopicBasedRemoteLogMetadataManagerConfig.DEFAULT_REMOTE_LOG_METADATA_TOPIC_PARTITIONS`).
pub const DEFAULT_NUM_PARTITIONS: u32 = 50;

/// apiKeys of the record types.
pub mod api_key {
    /// `RemoteLogSegmentMetadataRecord`.
    pub const SEGMENT: u16 = 0;
    /// `RemoteLogSegmentMetadataUpdateRecord`.
    pub const SEGMENT_UPDATE: u16 = 1;
    /// `RemotePartitionDeleteMetadataRecord`.
    pub const PARTITION_DELETE: u16 = 2;
    /// `RemoteLogSegmentMetadataSnapshotRecord`.
    pub const SNAPSHOT: u16 = 3;
}

/// `RemoteLogSegmentState` with Kafka's ids.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum SegmentState {
    /// 0: the leader started copying the segment.
    CopyStarted,
    /// 1: the copy finished; the segment is readable from remote storage.
    CopyFinished,
    /// 2: deletion of the remote segment started.
    DeleteStarted,
    /// 3: the remote segment is deleted.
    DeleteFinished,
}

impl SegmentState {
    /// The state for a stored id (`RemoteLogSegmentState.forId`), `None` for an unknown one.
    pub fn from_id(id: i8) -> Option<SegmentState> {
        match id {
            0 => Some(SegmentState::CopyStarted),
            1 => Some(SegmentState::CopyFinished),
            2 => Some(SegmentState::DeleteStarted),
            3 => Some(SegmentState::DeleteFinished),
            _ => None,
        }
    }

    /// The stored id.
    pub fn id(self) -> i8 {
        self as i8
    }

    /// Kafka's name.
    pub fn name(self) -> &'static str {
        match self {
            SegmentState::CopyStarted => "COPY_SEGMENT_STARTED",
            SegmentState::CopyFinished => "COPY_SEGMENT_FINISHED",
            SegmentState::DeleteStarted => "DELETE_SEGMENT_STARTED",
            SegmentState::DeleteFinished => "DELETE_SEGMENT_FINISHED",
        }
    }
}

/// `RemotePartitionDeleteState` with Kafka's ids.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum PartitionDeleteState {
    /// 0: the controller marked the partition's remote data for deletion.
    Marked,
    /// 1: deletion started.
    Started,
    /// 2: every remote segment of the partition is deleted.
    Finished,
}

impl PartitionDeleteState {
    /// The state for a stored id (`RemotePartitionDeleteState.forId`), `None` for an unknown one.
    pub fn from_id(id: i8) -> Option<PartitionDeleteState> {
        match id {
            0 => Some(PartitionDeleteState::Marked),
            1 => Some(PartitionDeleteState::Started),
            2 => Some(PartitionDeleteState::Finished),
            _ => None,
        }
    }

    /// The stored id.
    pub fn id(self) -> i8 {
        self as i8
    }

    /// Kafka's name.
    pub fn name(self) -> &'static str {
        match self {
            PartitionDeleteState::Marked => "DELETE_PARTITION_MARKED",
            PartitionDeleteState::Started => "DELETE_PARTITION_STARTED",
            PartitionDeleteState::Finished => "DELETE_PARTITION_FINISHED",
        }
    }
}

/// A user partition: topic name, topic id and partition number.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct TopicIdPartition {
    /// Topic name.
    pub topic: String,
    /// Topic id.
    pub topic_id: Uuid,
    /// Partition number.
    pub partition: i32,
}

/// A leader epoch and the first offset written in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SegmentLeaderEpoch {
    /// The leader epoch.
    pub leader_epoch: i32,
    /// Its start offset in the segment.
    pub offset: i64,
}

/// The fields a segment record and a snapshot record share.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SegmentFields {
    /// First offset of the segment.
    pub start_offset: i64,
    /// Last offset of the segment (inclusive).
    pub end_offset: i64,
    /// The broker that wrote the event.
    pub broker_id: i32,
    /// Largest record timestamp in the segment.
    pub max_timestamp_ms: i64,
    /// When the event was generated (broker wall clock).
    pub event_timestamp_ms: i64,
    /// Leader epoch → start offset, in stored order.
    pub segment_leader_epochs: Vec<SegmentLeaderEpoch>,
    /// Bytes of the segment's `.log`.
    pub segment_size_in_bytes: i32,
    /// Length of the plugin's custom metadata, `None` when null.
    pub custom_metadata_len: Option<usize>,
    /// The state.
    pub state: SegmentState,
    /// Tag 0: whether the segment's transaction index is empty (`None`: tag absent).
    pub txn_index_empty: Option<bool>,
}

/// apiKey 0: a remote segment's metadata (written with COPY_SEGMENT_STARTED).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentRecord {
    /// The user partition.
    pub topic_id_partition: TopicIdPartition,
    /// The remote segment's id.
    pub segment_id: Uuid,
    /// The rest.
    pub fields: SegmentFields,
}

/// apiKey 1: a state change of a remote segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentUpdateRecord {
    /// The user partition.
    pub topic_id_partition: TopicIdPartition,
    /// The remote segment's id.
    pub segment_id: Uuid,
    /// The broker that wrote the event.
    pub broker_id: i32,
    /// When the event was generated (broker wall clock).
    pub event_timestamp_ms: i64,
    /// Length of the plugin's custom metadata, `None` when null.
    pub custom_metadata_len: Option<usize>,
    /// The new state.
    pub state: SegmentState,
}

/// apiKey 2: a state change of the deletion of a whole partition's remote data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionDeleteRecord {
    /// The user partition.
    pub topic_id_partition: TopicIdPartition,
    /// The broker (or controller) that wrote the event.
    pub broker_id: i32,
    /// When the event was generated (broker wall clock).
    pub event_timestamp_ms: i64,
    /// The state.
    pub state: PartitionDeleteState,
}

/// apiKey 3: a segment in a metadata snapshot (no partition: the snapshot file names it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotRecord {
    /// The remote segment's id.
    pub segment_id: Uuid,
    /// The rest.
    pub fields: SegmentFields,
}

/// One decoded `__remote_log_metadata` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemoteLogMetadataRecord {
    /// apiKey 0.
    Segment(SegmentRecord),
    /// apiKey 1.
    SegmentUpdate(SegmentUpdateRecord),
    /// apiKey 2.
    PartitionDelete(PartitionDeleteRecord),
    /// apiKey 3.
    Snapshot(SnapshotRecord),
}

impl RemoteLogMetadataRecord {
    /// The record's apiKey.
    pub fn api_key(&self) -> u16 {
        match self {
            RemoteLogMetadataRecord::Segment(_) => api_key::SEGMENT,
            RemoteLogMetadataRecord::SegmentUpdate(_) => api_key::SEGMENT_UPDATE,
            RemoteLogMetadataRecord::PartitionDelete(_) => api_key::PARTITION_DELETE,
            RemoteLogMetadataRecord::Snapshot(_) => api_key::SNAPSHOT,
        }
    }

    /// The record type's name in Kafka.
    pub fn type_name(&self) -> &'static str {
        match self {
            RemoteLogMetadataRecord::Segment(_) => "RemoteLogSegmentMetadataRecord",
            RemoteLogMetadataRecord::SegmentUpdate(_) => "RemoteLogSegmentMetadataUpdateRecord",
            RemoteLogMetadataRecord::PartitionDelete(_) => "RemotePartitionDeleteMetadataRecord",
            RemoteLogMetadataRecord::Snapshot(_) => "RemoteLogSegmentMetadataSnapshotRecord",
        }
    }
}

/// Decode one record value of `__remote_log_metadata` (see the module docs for the rules).
pub fn decode_remote_log_metadata(value: &[u8]) -> FormatResult<RemoteLogMetadataRecord> {
    let frame = decode_frame(value)?;
    if frame.api_key > api_key::SNAPSHOT {
        return Err(invalid(
            "apiKey",
            format!("unknown remote log metadata type {}", frame.api_key),
            1,
        ));
    }
    if frame.version != 0 {
        return Err(FormatError::new(
            ErrorKind::UnsupportedVersion {
                what: "remote log metadata record",
                version: i64::from(frame.version),
            },
            frame.body_start.saturating_sub(1) as u64,
        ));
    }
    let mut c = Cursor::new(value);
    c.skip(frame.body_start)?;
    let record = match frame.api_key {
        api_key::SEGMENT => {
            let (topic_id_partition, segment_id) = segment_id(&mut c)?;
            RemoteLogMetadataRecord::Segment(SegmentRecord {
                topic_id_partition,
                segment_id,
                fields: segment_fields(&mut c)?,
            })
        }
        api_key::SEGMENT_UPDATE => {
            let (topic_id_partition, segment_id) = segment_id(&mut c)?;
            let broker_id = c.i32()?;
            let event_timestamp_ms = c.i64()?;
            let custom_metadata_len = nullable_bytes_len(&mut c)?;
            let state = segment_state(&mut c)?;
            FLEXIBLE.skip_tags(&mut c)?;
            RemoteLogMetadataRecord::SegmentUpdate(SegmentUpdateRecord {
                topic_id_partition,
                segment_id,
                broker_id,
                event_timestamp_ms,
                custom_metadata_len,
                state,
            })
        }
        api_key::PARTITION_DELETE => {
            let topic_id_partition = topic_id_partition(&mut c)?;
            let broker_id = c.i32()?;
            let event_timestamp_ms = c.i64()?;
            let at = c.position();
            let id = c.i8()?;
            let state = PartitionDeleteState::from_id(id).ok_or_else(|| {
                invalid(
                    "RemotePartitionDeleteState",
                    format!("unknown state {id}"),
                    at,
                )
            })?;
            FLEXIBLE.skip_tags(&mut c)?;
            RemoteLogMetadataRecord::PartitionDelete(PartitionDeleteRecord {
                topic_id_partition,
                broker_id,
                event_timestamp_ms,
                state,
            })
        }
        _ => {
            let segment_id = uuid(&mut c)?;
            RemoteLogMetadataRecord::Snapshot(SnapshotRecord {
                segment_id,
                fields: segment_fields(&mut c)?,
            })
        }
    };
    finish(&c)?;
    Ok(record)
}

fn topic_id_partition(c: &mut Cursor<'_>) -> FormatResult<TopicIdPartition> {
    let topic = FLEXIBLE.string(c, "TopicIdPartition.Name")?;
    let topic_id = uuid(c)?;
    let partition = c.i32()?;
    FLEXIBLE.skip_tags(c)?;
    Ok(TopicIdPartition {
        topic,
        topic_id,
        partition,
    })
}

/// A `RemoteLogSegmentIdEntry`: the partition and the segment's id.
fn segment_id(c: &mut Cursor<'_>) -> FormatResult<(TopicIdPartition, Uuid)> {
    let tp = topic_id_partition(c)?;
    let id = uuid(c)?;
    FLEXIBLE.skip_tags(c)?;
    Ok((tp, id))
}

fn segment_state(c: &mut Cursor<'_>) -> FormatResult<SegmentState> {
    let at = c.position();
    let id = c.i8()?;
    SegmentState::from_id(id)
        .ok_or_else(|| invalid("RemoteLogSegmentState", format!("unknown state {id}"), at))
}

/// A nullable compact bytes field, skipped: its length, `None` for null.
fn nullable_bytes_len(c: &mut Cursor<'_>) -> FormatResult<Option<usize>> {
    let raw = c.unsigned_varint()?;
    let Some(len) = raw.checked_sub(1) else {
        return Ok(None);
    };
    let len = usize::try_from(len).unwrap_or(usize::MAX);
    c.skip(len)?;
    Ok(Some(len))
}

/// From StartOffset to the end of a segment or snapshot record (the two share these fields).
fn segment_fields(c: &mut Cursor<'_>) -> FormatResult<SegmentFields> {
    let start_offset = c.i64()?;
    let end_offset = c.i64()?;
    let broker_id = c.i32()?;
    let max_timestamp_ms = c.i64()?;
    let event_timestamp_ms = c.i64()?;
    // An entry takes at least 13 bytes (i32, i64, an empty tagged section).
    let n = FLEXIBLE.required_array_len(c, "SegmentLeaderEpochs", FLEXIBLE.min_struct_size(12))?;
    let mut segment_leader_epochs = Vec::with_capacity(n);
    for _ in 0..n {
        let leader_epoch = c.i32()?;
        let offset = c.i64()?;
        FLEXIBLE.skip_tags(c)?;
        segment_leader_epochs.push(SegmentLeaderEpoch {
            leader_epoch,
            offset,
        });
    }
    let segment_size_in_bytes = c.i32()?;
    let custom_metadata_len = nullable_bytes_len(c)?;
    let state = segment_state(c)?;
    let mut txn_index_empty = None;
    FLEXIBLE.end_struct(c, |tag, f| {
        if tag != 0 {
            return Ok(false);
        }
        txn_index_empty = Some(f.i8()? != 0);
        Ok(true)
    })?;
    Ok(SegmentFields {
        start_offset,
        end_offset,
        broker_id,
        max_timestamp_ms,
        event_timestamp_ms,
        segment_leader_epochs,
        segment_size_in_bytes,
        custom_metadata_len,
        state,
        txn_index_empty,
    })
}

// ---- the partitioner ------------------------------------------------------------------------

/// Kafka's `Utils.murmur2` (32-bit MurmurHash2, seed `0x9747b28c`; 4-byte blocks read
/// little-endian, as the Java code assembles them).
pub fn murmur2(data: &[u8]) -> i32 {
    const M: u32 = 0x5bd1_e995;
    const R: u32 = 24;
    let len = data.len();
    // Java's `int length` wraps the same way for inputs over 2 GiB (none here).
    let mut h: u32 = 0x9747_b28c ^ (len as u32);
    let mut blocks = data.chunks_exact(4);
    for b in blocks.by_ref() {
        let mut k = b
            .iter()
            .rev()
            .fold(0u32, |acc, &x| (acc << 8) | u32::from(x));
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        let k = tail
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &x)| acc ^ (u32::from(x) << (8 * i)));
        h ^= k;
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h as i32
}

/// Java's `Long.hashCode`.
fn java_long_hash(v: i64) -> i32 {
    let u = v as u64;
    (u ^ (u >> 32)) as u32 as i32
}

/// The `__remote_log_metadata` partition that holds the records of user partition
/// (`topic_id`, `partition`) when the topic has `num_partitions` partitions
/// (`RemoteLogMetadataTopicPartitioner.metadataPartition`):
/// `toPositive(murmur2(BE-int32(Objects.hash(lsb, msb, partition)))) % num_partitions`, with
/// `lsb`/`msb` the topic id's halves as Java longs. `None` when `num_partitions` is 0.
pub fn metadata_partition(topic_id: Uuid, partition: i32, num_partitions: u32) -> Option<u32> {
    if num_partitions == 0 {
        return None;
    }
    let half = |bytes: &[u8]| bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b)) as i64;
    let (hi, lo) = topic_id.0.split_at(8);
    let (msb, lsb) = (half(hi), half(lo));
    // Objects.hash(a, b, c) = Arrays.hashCode: ((31 + h(a)) * 31 + h(b)) * 31 + h(c).
    let hash = [java_long_hash(lsb), java_long_hash(msb), partition]
        .iter()
        .fold(1i32, |acc, &h| acc.wrapping_mul(31).wrapping_add(h));
    let positive = (murmur2(&hash.to_be_bytes()) & 0x7fff_ffff) as u32;
    Some(positive % num_partitions)
}

// ---- encoding (tests only) -------------------------------------------------------------------

/// Byte builders for record values, used by the tests here and in `model/`.
#[cfg(test)]
pub(crate) mod encode {
    use super::super::message_wire::encode::Enc;
    use super::super::message_wire::FLEXIBLE;
    use super::*;

    fn frame(api_key: u16) -> Enc {
        let mut e = Enc::new(FLEXIBLE);
        e.uv(1).uv(u64::from(api_key)).uv(0);
        e
    }

    fn tip(e: &mut Enc, tp: &TopicIdPartition) {
        e.str(&tp.topic)
            .uuid(tp.topic_id)
            .i32(tp.partition)
            .tags(&[]);
    }

    fn custom(e: &mut Enc, len: Option<usize>) {
        match len {
            None => {
                e.uv(0);
            }
            Some(n) => {
                e.bytes_of_len(n);
            }
        }
    }

    fn fields(e: &mut Enc, f: &SegmentFields) {
        e.i64(f.start_offset)
            .i64(f.end_offset)
            .i32(f.broker_id)
            .i64(f.max_timestamp_ms)
            .i64(f.event_timestamp_ms);
        e.len(Some(f.segment_leader_epochs.len()), false);
        for le in &f.segment_leader_epochs {
            e.i32(le.leader_epoch).i64(le.offset).tags(&[]);
        }
        e.i32(f.segment_size_in_bytes);
        custom(e, f.custom_metadata_len);
        e.i8(f.state.id());
        let tags: Vec<(u32, Vec<u8>)> = f
            .txn_index_empty
            .map(|b| (0, vec![u8::from(b)]))
            .into_iter()
            .collect();
        e.tags(&tags);
    }

    /// The value Kafka writes for `r`.
    pub fn encode(r: &RemoteLogMetadataRecord) -> Vec<u8> {
        let mut e = frame(r.api_key());
        match r {
            RemoteLogMetadataRecord::Segment(s) => {
                tip(&mut e, &s.topic_id_partition);
                e.uuid(s.segment_id).tags(&[]);
                fields(&mut e, &s.fields);
            }
            RemoteLogMetadataRecord::SegmentUpdate(u) => {
                tip(&mut e, &u.topic_id_partition);
                e.uuid(u.segment_id)
                    .tags(&[])
                    .i32(u.broker_id)
                    .i64(u.event_timestamp_ms);
                custom(&mut e, u.custom_metadata_len);
                e.i8(u.state.id()).tags(&[]);
            }
            RemoteLogMetadataRecord::PartitionDelete(d) => {
                tip(&mut e, &d.topic_id_partition);
                e.i32(d.broker_id)
                    .i64(d.event_timestamp_ms)
                    .i8(d.state.id())
                    .tags(&[]);
            }
            RemoteLogMetadataRecord::Snapshot(s) => {
                e.uuid(s.segment_id);
                fields(&mut e, &s.fields);
            }
        }
        e.done()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a panic is the failure report
mod tests {
    use super::encode::encode;
    use super::*;

    fn tp() -> TopicIdPartition {
        TopicIdPartition {
            topic: "tu".into(),
            topic_id: Uuid::from_base64("7NkeFLXdRDy9sgRn9AbeDw").unwrap(),
            partition: 3,
        }
    }

    fn fields(state: SegmentState, txn: Option<bool>) -> SegmentFields {
        SegmentFields {
            start_offset: 4,
            end_offset: 7,
            broker_id: 1,
            max_timestamp_ms: 1_700_000_000_000,
            event_timestamp_ms: 1_700_000_100_000,
            segment_leader_epochs: vec![
                SegmentLeaderEpoch {
                    leader_epoch: 0,
                    offset: 4,
                },
                SegmentLeaderEpoch {
                    leader_epoch: 2,
                    offset: 6,
                },
            ],
            segment_size_in_bytes: 512,
            custom_metadata_len: None,
            state,
            txn_index_empty: txn,
        }
    }

    fn samples() -> Vec<RemoteLogMetadataRecord> {
        let seg = Uuid::from_base64("q0Vp4A0vQHaaBuDbhmrSyg").unwrap();
        vec![
            RemoteLogMetadataRecord::Segment(SegmentRecord {
                topic_id_partition: tp(),
                segment_id: seg,
                fields: fields(SegmentState::CopyStarted, Some(true)),
            }),
            RemoteLogMetadataRecord::Segment(SegmentRecord {
                topic_id_partition: tp(),
                segment_id: seg,
                fields: SegmentFields {
                    custom_metadata_len: Some(3),
                    ..fields(SegmentState::CopyStarted, None)
                },
            }),
            RemoteLogMetadataRecord::SegmentUpdate(SegmentUpdateRecord {
                topic_id_partition: tp(),
                segment_id: seg,
                broker_id: 1,
                event_timestamp_ms: 5,
                custom_metadata_len: Some(0),
                state: SegmentState::DeleteFinished,
            }),
            RemoteLogMetadataRecord::PartitionDelete(PartitionDeleteRecord {
                topic_id_partition: tp(),
                broker_id: 1,
                event_timestamp_ms: 9,
                state: PartitionDeleteState::Finished,
            }),
            RemoteLogMetadataRecord::Snapshot(SnapshotRecord {
                segment_id: seg,
                fields: fields(SegmentState::CopyFinished, Some(false)),
            }),
        ]
    }

    #[test]
    fn every_type_round_trips() {
        for r in samples() {
            let b = encode(&r);
            assert_eq!(
                decode_remote_log_metadata(&b).unwrap(),
                r,
                "{}",
                r.type_name()
            );
        }
    }

    #[test]
    fn every_truncation_is_an_error_never_a_panic() {
        for r in samples() {
            let b = encode(&r);
            for cut in 0..b.len() {
                assert!(
                    decode_remote_log_metadata(b.get(..cut).unwrap()).is_err(),
                    "{} cut at {cut}",
                    r.type_name()
                );
            }
            let mut longer = b.clone();
            longer.push(0);
            assert_eq!(
                decode_remote_log_metadata(&longer).unwrap_err().kind,
                ErrorKind::TrailingBytes(1)
            );
        }
    }

    #[test]
    fn frame_type_version_and_states_are_checked() {
        let ok = encode(&samples().remove(3));
        // Frame version 0 (the 2.8 preview) and 2 are refused, as Kafka does.
        for fv in [0u8, 2] {
            let mut b = ok.clone();
            *b.first_mut().unwrap() = fv;
            assert!(matches!(
                decode_remote_log_metadata(&b).unwrap_err().kind,
                ErrorKind::UnsupportedVersion { .. }
            ));
        }
        let mut b = ok.clone();
        *b.get_mut(1).unwrap() = 4;
        assert!(matches!(
            decode_remote_log_metadata(&b).unwrap_err().kind,
            ErrorKind::InvalidField {
                field: "apiKey",
                ..
            }
        ));
        let mut b = ok.clone();
        *b.get_mut(2).unwrap() = 1;
        assert!(matches!(
            decode_remote_log_metadata(&b).unwrap_err().kind,
            ErrorKind::UnsupportedVersion { version: 1, .. }
        ));
        // The state byte is the one before the final (empty) tagged section.
        let mut b = ok.clone();
        let at = b.len() - 2;
        *b.get_mut(at).unwrap() = 3;
        let e = decode_remote_log_metadata(&b).unwrap_err();
        assert_eq!(e.offset, at as u64);
        assert!(matches!(
            e.kind,
            ErrorKind::InvalidField {
                field: "RemotePartitionDeleteState",
                ..
            }
        ));
    }

    #[test]
    fn leader_epoch_count_is_bounded_before_allocating() {
        let r = samples().remove(4);
        let b = encode(&r);
        // Snapshot: frame 3 bytes, uuid 16, then 8+8+4+8+8 = 36 bytes before the count.
        let mut bad = b.get(..55).unwrap().to_vec();
        bad.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
        assert!(matches!(
            decode_remote_log_metadata(&bad).unwrap_err().kind,
            ErrorKind::LengthOutOfRange {
                field: "SegmentLeaderEpochs",
                ..
            }
        ));
    }

    #[test]
    fn murmur2_matches_kafka() {
        // Values printed by Kafka 4.4's Utils.murmur2.
        assert_eq!(murmur2(b""), 275_646_681);
        assert_eq!(murmur2(b"hello"), 2_132_663_229);
        assert_eq!(murmur2(b"abcdefg"), -346_467_175);
    }

    #[test]
    fn metadata_partition_matches_kafka() {
        // (topic id, partition, partitions, RemoteLogMetadataTopicPartitioner.metadataPartition) as
        // printed by Kafka 4.4's class.
        let cases: &[(&str, i32, u32, u32)] = &[
            ("AAAAAAAAAAAAAAAAAAAAAQ", 0, 50, 35),
            ("AAAAAAAAAAAAAAAAAAAAAQ", 1, 5, 1),
            ("AAAAAAAAAAAAAAAAAAAAAQ", 7, 50, 46),
            ("AAAAAAAAAAAAAAAAAAAAAQ", i32::MAX, 50, 45),
            ("hcvbJHdKS8yxWHs6Ku2WSA", 0, 5, 3),
            ("hcvbJHdKS8yxWHs6Ku2WSA", 7, 50, 28),
            ("hcvbJHdKS8yxWHs6Ku2WSA", i32::MAX, 5, 4),
            ("hcvbJHdKS8yxWHs6Ku2WSA", i32::MAX, 50, 9),
            ("_____________________w", 1, 50, 30),
            ("_____________________w", 7, 50, 31),
            ("_____________________w", i32::MAX, 50, 10),
            ("q0Vp4A0vQHaaBuDbhmrSyg", 1, 50, 13),
            ("q0Vp4A0vQHaaBuDbhmrSyg", 7, 5, 2),
            ("q0Vp4A0vQHaaBuDbhmrSyg", 7, 50, 27),
            ("q0Vp4A0vQHaaBuDbhmrSyg", i32::MAX, 50, 42),
            ("q0Vp4A0vQHaaBuDbhmrSyg", 0, 1, 0),
        ];
        for &(id, p, n, want) in cases {
            let id = Uuid::from_base64(id).unwrap();
            assert_eq!(metadata_partition(id, p, n), Some(want), "{id:?} {p} {n}");
        }
        assert_eq!(metadata_partition(Uuid::ZERO, 0, 0), None);
    }

    /// Every `__remote_log_metadata` record the real broker wrote in the `tiered-*` fixtures
    /// (every scenario, every `logs-N`) decodes, and encodes back to the same bytes; per
    /// metadata partition the offsets decoded run without a gap from the first batch, and cover
    /// at least what the broker reported at capture (the manifest's log start to log end; the
    /// broker may write more before it stops, as `tiered-failed`'s retries do). Returns the
    /// counts per apiKey and the (scenario, partition, records) checked.
    fn fixture_records() -> ([u64; 4], Vec<(String, String, u64)>) {
        use crate::formats::compression::DEFAULT_MAX_DECOMPRESSED;
        use crate::formats::record::for_each_record;
        use crate::formats::walk::ShallowWalker;
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut counts = [0u64; 4];
        let mut seen = Vec::new();
        let mut scenarios: Vec<_> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("tiered-")
            })
            .collect();
        scenarios.sort();
        assert!(!scenarios.is_empty(), "no tiered-* fixture under {root:?}");
        for s in scenarios {
            let scenario = s.file_name().unwrap().to_string_lossy().into_owned();
            let manifest: serde_json::Value =
                serde_json::from_slice(&std::fs::read(s.join("manifest.json")).unwrap()).unwrap();
            let reported = |partition: i64| {
                let p = manifest["partitions"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|p| {
                        p["topic"] == REMOTE_LOG_METADATA_TOPIC && p["partition"] == partition
                    })
                    .unwrap_or_else(|| {
                        panic!("{scenario}: partition {partition} not in the manifest")
                    });
                p["log_end_offset"].as_i64().unwrap() - p["log_start_offset"].as_i64().unwrap()
            };
            for logs in std::fs::read_dir(&s).unwrap().map(|e| e.unwrap().path()) {
                if !logs
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("logs-")
                {
                    continue;
                }
                for pd in std::fs::read_dir(&logs).unwrap().map(|e| e.unwrap().path()) {
                    let name = pd.file_name().unwrap().to_string_lossy().into_owned();
                    let Some(n) = name.strip_prefix("__remote_log_metadata-") else {
                        continue;
                    };
                    let mut files: Vec<_> = std::fs::read_dir(&pd)
                        .unwrap()
                        .map(|e| e.unwrap().path())
                        .filter(|f| f.extension().is_some_and(|e| e == "log"))
                        .collect();
                    files.sort();
                    let mut next: Option<i64> = None;
                    let mut records = 0u64;
                    for f in files {
                        let bytes = std::fs::read(&f).unwrap();
                        for b in ShallowWalker::new(&bytes) {
                            let b = b.unwrap();
                            for_each_record(&bytes, &b, DEFAULT_MAX_DECOMPRESSED, |r| {
                                if let Some(want) = next {
                                    assert_eq!(r.offset, want, "{f:?}: a gap in the offsets");
                                }
                                next = Some(r.offset + 1);
                                let v = r.value.unwrap();
                                let rec = decode_remote_log_metadata(v)
                                    .unwrap_or_else(|e| panic!("{f:?} offset {}: {e}", r.offset));
                                assert_eq!(encode(&rec), v, "{f:?} offset {}", r.offset);
                                counts[usize::from(rec.api_key())] += 1;
                                records += 1;
                                Ok(())
                            })
                            .unwrap();
                        }
                    }
                    let want = reported(n.parse().unwrap());
                    assert!(
                        records as i64 >= want,
                        "{scenario} {name}: {records} records decoded, the broker reported {want}"
                    );
                    if scenario != "tiered-failed" {
                        assert_eq!(records as i64, want, "{scenario} {name}");
                    }
                    seen.push((scenario.clone(), name, records));
                }
            }
        }
        (counts, seen)
    }

    #[test]
    fn real_broker_records_round_trip() {
        let (counts, seen) = fixture_records();
        eprintln!(
            "round-tripped per apiKey (segment, update, partition delete, snapshot): {counts:?}"
        );
        for (s, p, n) in &seen {
            eprintln!("  {s} {p}: {n} records");
        }
        // Every scenario's five metadata partitions (tiered-metadata-elsewhere: over two dirs).
        let scenarios: std::collections::BTreeSet<&str> =
            seen.iter().map(|(s, _, _)| s.as_str()).collect();
        assert_eq!(seen.len(), scenarios.len() * 5, "{seen:?}");
        // A failed copy's cleanup: deletes without COPY_SEGMENT_FINISHED (tiered-failed).
        assert!(scenarios.contains("tiered-failed"), "{scenarios:?}");
        // Kafka 4.4 writes segment and update records; deletes appear in the retention scenarios.
        assert!(counts[0] > 0 && counts[1] > 0, "{counts:?}");
    }
}
