//! `__consumer_offsets` records: committed offsets and the state of classic, consumer-protocol
//! (KIP-848), share (KIP-932) and streams (KIP-1071) groups.
//!
//! Kafka sources (4.x): `coordinator-common/.../common/runtime/CoordinatorRecordSerde.java`
//! (framing, tombstones, the value-version check), `group-coordinator/.../group/
//! GroupCoordinatorRecordSerde.java` and the generated `CoordinatorRecordType` (record type =
//! the `apiKey` of each `coordinator-key` schema), `coordinator-common/.../runtime/
//! CoordinatorLoaderImpl.java` (what loading skips), `group-coordinator/.../group/
//! GroupCoordinatorRecordHelpers.java` (which versions a broker writes), and the schemas in
//! `group-coordinator/src/main/resources/common/message/`:
//! `LegacyOffsetCommitKey/Value.json` (0), `OffsetCommitKey/Value.json` (1),
//! `GroupMetadataKey/Value.json` (2), `ConsumerGroupMetadataKey/Value.json` (3),
//! `ConsumerGroupPartitionMetadataKey/Value.json` (4), `ConsumerGroupMemberMetadataKey/
//! Value.json` (5), `ConsumerGroupTargetAssignmentMetadataKey/Value.json` (6),
//! `ConsumerGroupTargetAssignmentMemberKey/Value.json` (7),
//! `ConsumerGroupCurrentMemberAssignmentKey/Value.json` (8),
//! `ConsumerGroupRegularExpressionKey/Value.json` (16), `ShareGroup*Key.json` (9-15),
//! `StreamsGroup*Key.json` (17-24); spec §7. Field encodings: `formats/message_wire.rs`.
//!
//! ```text
//! key:   recordType i16 | key fields (classic encoding, key schema version 0)
//! value: null (tombstone: delete what the key names) | version i16 | body at that version
//! ```
//!
//! Keys are always classic. `OffsetCommitValue` and `GroupMetadataValue` are classic in
//! v0-3 and flexible from v4; every other value is flexible from v0. Brokers from 4.1 write
//! `OffsetCommitValue` v4 with the topic id (KAFKA-19141; 4.0 wrote v3), v1 when the commit
//! carries an explicit expire timestamp, and `GroupMetadataValue` v3.
//!
//! Which releases know which types (from the schema files at the Confluent 8.0/8.1/8.3 release
//! tags, built on Kafka 4.0/4.1/4.3, and trunk): 0-16 in 4.0, where type 0 still read
//! `OffsetCommitValue` v0-4; from 4.1 type 0 is `LegacyOffsetCommitKey` with value v0 only,
//! type 9 is gone (KAFKA-17747, replaced by metadata hashes) and 17 and 19-23 (streams) are
//! new; 18 existed on trunk only between the streams records (KAFKA-18284) and KAFKA-17747; 24
//! is on apache/kafka trunk only. This decoder reads all of them: a 4.1+ broker skips 9 and 18
//! as unknown types.
//!
//! Decoding rules:
//! - A record type this module does not know decodes to [`GroupKey::Unknown`] without reading
//!   the key body, and its value to [`GroupValue::UnknownType`]: Kafka's loader skips such
//!   records with a warning ("left over from an aborted upgrade").
//! - A known type whose value version is outside [`supported_value_versions`] is an
//!   [`ErrorKind::UnsupportedVersion`] error: Kafka's serde throws and the coordinator fails to
//!   load the partition. [`decode_group_key`] still names what the record was about.
//! - Share-group and streams-group values are checked for their version and otherwise not
//!   decoded ([`GroupValue::NotDecoded`]).
//! - Subscription, assignment and protocol metadata blobs are skipped; only their lengths are
//!   kept.
//! - Unlike Kafka, bytes left after the key or the value body are an
//!   [`ErrorKind::TrailingBytes`] error. Error offsets are relative to the key or the value.

use std::ops::RangeInclusive;

use super::bytes::Cursor;
use super::error::{ErrorKind, FormatError, FormatResult};
use super::message_wire::{finish, tagged_struct_present, uuid, Wire, CLASSIC, FLEXIBLE};
use super::partition_metadata::Uuid;

/// Record types (the key's first i16; `apiKey` of the key schemas).
pub mod record_type {
    /// `LegacyOffsetCommitKey`: offset commits of brokers before 0.9 (value v0 only; Kafka 4.0
    /// read it as `OffsetCommitKey` with value v0-4).
    pub const LEGACY_OFFSET_COMMIT: i16 = 0;
    /// `OffsetCommitKey`.
    pub const OFFSET_COMMIT: i16 = 1;
    /// `GroupMetadataKey`: a classic group.
    pub const GROUP_METADATA: i16 = 2;
    /// `ConsumerGroupMetadataKey`.
    pub const CONSUMER_GROUP_METADATA: i16 = 3;
    /// `ConsumerGroupPartitionMetadataKey` (no longer written from 4.1, KIP-1101).
    pub const CONSUMER_GROUP_PARTITION_METADATA: i16 = 4;
    /// `ConsumerGroupMemberMetadataKey`.
    pub const CONSUMER_GROUP_MEMBER_METADATA: i16 = 5;
    /// `ConsumerGroupTargetAssignmentMetadataKey`.
    pub const CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA: i16 = 6;
    /// `ConsumerGroupTargetAssignmentMemberKey`.
    pub const CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER: i16 = 7;
    /// `ConsumerGroupCurrentMemberAssignmentKey`.
    pub const CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT: i16 = 8;
    /// `ShareGroupPartitionMetadataKey` (4.0 only; schema removed in 4.1).
    pub const SHARE_GROUP_PARTITION_METADATA: i16 = 9;
    /// `ShareGroupMemberMetadataKey`.
    pub const SHARE_GROUP_MEMBER_METADATA: i16 = 10;
    /// `ShareGroupMetadataKey`.
    pub const SHARE_GROUP_METADATA: i16 = 11;
    /// `ShareGroupTargetAssignmentMetadataKey`.
    pub const SHARE_GROUP_TARGET_ASSIGNMENT_METADATA: i16 = 12;
    /// `ShareGroupTargetAssignmentMemberKey`.
    pub const SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER: i16 = 13;
    /// `ShareGroupCurrentMemberAssignmentKey`.
    pub const SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT: i16 = 14;
    /// `ShareGroupStatePartitionMetadataKey`.
    pub const SHARE_GROUP_STATE_PARTITION_METADATA: i16 = 15;
    /// `ConsumerGroupRegularExpressionKey`.
    pub const CONSUMER_GROUP_REGULAR_EXPRESSION: i16 = 16;
    /// `StreamsGroupMetadataKey` (4.1+, like the other streams types).
    pub const STREAMS_GROUP_METADATA: i16 = 17;
    /// `StreamsGroupPartitionMetadataKey` (trunk only, never in a release).
    pub const STREAMS_GROUP_PARTITION_METADATA: i16 = 18;
    /// `StreamsGroupMemberMetadataKey`.
    pub const STREAMS_GROUP_MEMBER_METADATA: i16 = 19;
    /// `StreamsGroupTargetAssignmentMetadataKey`.
    pub const STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA: i16 = 20;
    /// `StreamsGroupTargetAssignmentMemberKey`.
    pub const STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER: i16 = 21;
    /// `StreamsGroupCurrentMemberAssignmentKey`.
    pub const STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT: i16 = 22;
    /// `StreamsGroupTopologyKey`.
    pub const STREAMS_GROUP_TOPOLOGY: i16 = 23;
    /// `StreamsGroupTargetAssignmentResolvedTopicIdsKey` (apache/kafka trunk only).
    pub const STREAMS_GROUP_TARGET_ASSIGNMENT_RESOLVED_TOPIC_IDS: i16 = 24;
}

use record_type as rt;

/// Which group protocol a record type belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GroupProtocol {
    /// Committed offsets (any group type).
    Offsets,
    /// Classic (`JoinGroup`/`SyncGroup`) groups.
    Classic,
    /// Consumer-protocol groups (KIP-848).
    Consumer,
    /// Share groups (KIP-932).
    Share,
    /// Streams groups (KIP-1071).
    Streams,
}

/// The key layout of a known record type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyShape {
    /// group, topic, partition.
    OffsetCommit,
    /// GroupId.
    Group,
    /// GroupId, MemberId.
    Member,
    /// GroupId, RegularExpression.
    Regex,
}

/// Everything the decoder knows about one record type.
struct TypeInfo {
    name: &'static str,
    protocol: GroupProtocol,
    key: KeyShape,
    value_versions: RangeInclusive<i16>,
    /// The first flexible value version (`flexibleVersions`).
    first_flexible: i16,
}

/// Per record type, indexed by the type: schema name, protocol, key layout, highest value
/// version, first flexible value version (`i16::MAX`: none). Every lowest version is 0.
#[rustfmt::skip]
const TYPES: [(&str, GroupProtocol, KeyShape, i16, i16); 25] = {
    use GroupProtocol::*;
    use KeyShape::*;
    [
        ("LegacyOffsetCommit",                           Offsets,  OffsetCommit, 0, i16::MAX),
        ("OffsetCommit",                                 Offsets,  OffsetCommit, 4, 4),
        ("GroupMetadata",                                Classic,  Group,        4, 4),
        ("ConsumerGroupMetadata",                        Consumer, Group,        0, 0),
        ("ConsumerGroupPartitionMetadata",               Consumer, Group,        0, 0),
        ("ConsumerGroupMemberMetadata",                  Consumer, Member,       0, 0),
        ("ConsumerGroupTargetAssignmentMetadata",        Consumer, Group,        0, 0),
        ("ConsumerGroupTargetAssignmentMember",          Consumer, Member,       0, 0),
        ("ConsumerGroupCurrentMemberAssignment",         Consumer, Member,       0, 0),
        ("ShareGroupPartitionMetadata",                  Share,    Group,        0, 0),
        ("ShareGroupMemberMetadata",                     Share,    Member,       0, 0),
        ("ShareGroupMetadata",                           Share,    Group,        0, 0),
        ("ShareGroupTargetAssignmentMetadata",           Share,    Group,        0, 0),
        ("ShareGroupTargetAssignmentMember",             Share,    Member,       0, 0),
        ("ShareGroupCurrentMemberAssignment",            Share,    Member,       0, 0),
        ("ShareGroupStatePartitionMetadata",             Share,    Group,        0, 0),
        ("ConsumerGroupRegularExpression",               Consumer, Regex,        0, 0),
        ("StreamsGroupMetadata",                         Streams,  Group,        0, 0),
        ("StreamsGroupPartitionMetadata",                Streams,  Group,        0, 0),
        ("StreamsGroupMemberMetadata",                   Streams,  Member,       0, 0),
        ("StreamsGroupTargetAssignmentMetadata",         Streams,  Group,        0, 0),
        ("StreamsGroupTargetAssignmentMember",           Streams,  Member,       0, 0),
        ("StreamsGroupCurrentMemberAssignment",          Streams,  Member,       0, 0),
        ("StreamsGroupTopology",                         Streams,  Group,        0, 0),
        ("StreamsGroupTargetAssignmentResolvedTopicIds", Streams,  Group,        0, 0),
    ]
};

fn type_info(t: i16) -> Option<TypeInfo> {
    let &(name, protocol, key, max_version, first_flexible) =
        TYPES.get(usize::try_from(t).ok()?)?;
    Some(TypeInfo {
        name,
        protocol,
        key,
        value_versions: 0..=max_version,
        first_flexible,
    })
}

/// The schema name of a record type without the `Key`/`Value` suffix, `None` if unknown.
pub fn record_type_name(t: i16) -> Option<&'static str> {
    type_info(t).map(|i| i.name)
}

/// The value versions this decoder reads for a record type, `None` if the type is unknown.
pub fn supported_value_versions(t: i16) -> Option<RangeInclusive<i16>> {
    type_info(t).map(|i| i.value_versions)
}

/// The group protocol of a record type, `None` if the type is unknown.
pub fn group_protocol(t: i16) -> Option<GroupProtocol> {
    type_info(t).map(|i| i.protocol)
}

/// A decoded record key: what the record is about.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum GroupKey {
    /// A committed offset (types 0 and 1).
    OffsetCommit {
        /// 0 (legacy) or 1.
        record_type: i16,
        /// Group id.
        group: String,
        /// Topic name.
        topic: String,
        /// Partition.
        partition: i32,
    },
    /// A record about a whole group: classic group metadata (2) or a group-level record of the
    /// consumer, share or streams protocol.
    Group {
        /// The record type.
        record_type: i16,
        /// Group id.
        group: String,
    },
    /// A record about one member of a group.
    Member {
        /// The record type.
        record_type: i16,
        /// Group id.
        group: String,
        /// Member id.
        member_id: String,
    },
    /// `ConsumerGroupRegularExpressionKey` (16): the topics a subscription regex resolved to.
    RegularExpression {
        /// Group id.
        group: String,
        /// The regular expression.
        regex: String,
    },
    /// A record type this decoder does not know (key body not read).
    Unknown {
        /// The record type.
        record_type: i16,
    },
}

impl GroupKey {
    /// The record type.
    pub fn record_type(&self) -> i16 {
        match self {
            GroupKey::OffsetCommit { record_type, .. }
            | GroupKey::Group { record_type, .. }
            | GroupKey::Member { record_type, .. }
            | GroupKey::Unknown { record_type } => *record_type,
            GroupKey::RegularExpression { .. } => rt::CONSUMER_GROUP_REGULAR_EXPRESSION,
        }
    }

    /// The group id, `None` for an unknown record type.
    pub fn group(&self) -> Option<&str> {
        match self {
            GroupKey::OffsetCommit { group, .. }
            | GroupKey::Group { group, .. }
            | GroupKey::Member { group, .. }
            | GroupKey::RegularExpression { group, .. } => Some(group),
            GroupKey::Unknown { .. } => None,
        }
    }
}

/// `OffsetCommitValue` (type 1, v0-4) or `LegacyOffsetCommitValue` (type 0, v0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetCommitValue {
    /// The value version.
    pub version: i16,
    /// The committed offset (the next record the group will read).
    pub offset: i64,
    /// v3+: leader epoch of the last consumed record (-1 none); `None` before v3.
    pub leader_epoch: Option<i32>,
    /// Client metadata (may be empty).
    pub metadata: String,
    /// When the commit was appended (epoch ms).
    pub commit_timestamp: i64,
    /// v1 only: the client-requested expiry (epoch ms); `None` in other versions.
    pub expire_timestamp: Option<i64>,
    /// v4 tag 0: the topic id; `None` when the tag is absent.
    pub topic_id: Option<Uuid>,
}

/// One member of a classic group (`GroupMetadataValue.MemberMetadata`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassicGroupMember {
    /// Member id.
    pub member_id: String,
    /// v3+: static membership id; `None` when null or before v3.
    pub group_instance_id: Option<String>,
    /// Client id.
    pub client_id: String,
    /// Client host.
    pub client_host: String,
    /// v1+: rebalance timeout (ms); `None` before v1.
    pub rebalance_timeout_ms: Option<i32>,
    /// Session timeout (ms).
    pub session_timeout_ms: i32,
    /// Length of the subscription blob (bytes not kept).
    pub subscription_len: usize,
    /// Length of the assignment blob (bytes not kept).
    pub assignment_len: usize,
}

/// `GroupMetadataValue` (type 2, v0-4): a classic group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupMetadataValue {
    /// The value version.
    pub version: i16,
    /// Protocol type, e.g. `consumer` (empty for a group with no members yet).
    pub protocol_type: String,
    /// Generation id.
    pub generation: i32,
    /// The chosen protocol (assignor), if any.
    pub protocol: Option<String>,
    /// The leader's member id, if any.
    pub leader: Option<String>,
    /// v2+: when the group last changed state (epoch ms, -1 none); `None` before v2.
    pub current_state_timestamp: Option<i64>,
    /// Members.
    pub members: Vec<ClassicGroupMember>,
}

/// `ConsumerGroupMetadataValue` (type 3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerGroupMetadataValue {
    /// Group epoch.
    pub epoch: i32,
    /// Tag 0 (4.1+, KIP-1101): hash of the subscribed topics' metadata, 0 when absent.
    pub metadata_hash: i64,
}

/// Rack information of one partition (`ConsumerGroupPartitionMetadataValue`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionRacks {
    /// Partition.
    pub partition: i32,
    /// Racks of its replicas.
    pub racks: Vec<String>,
}

/// One subscribed topic (`ConsumerGroupPartitionMetadataValue.TopicMetadata`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicMetadata {
    /// Topic id.
    pub topic_id: Uuid,
    /// Topic name.
    pub topic_name: String,
    /// Partition count.
    pub num_partitions: i32,
    /// Per-partition racks.
    pub partitions: Vec<PartitionRacks>,
}

/// `ConsumerGroupPartitionMetadataValue` (type 4): metadata of the subscribed topics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerGroupPartitionMetadataValue {
    /// Topics.
    pub topics: Vec<TopicMetadata>,
}

/// One protocol a classic member supports (`ClassicMemberMetadata.SupportedProtocols`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassicProtocol {
    /// Protocol (assignor) name.
    pub name: String,
    /// Length of its metadata blob (bytes not kept).
    pub metadata_len: usize,
}

/// Tag 0 of `ConsumerGroupMemberMetadataValue`: a classic-protocol member of a consumer group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassicMemberMetadata {
    /// Session timeout (ms).
    pub session_timeout_ms: i32,
    /// Supported protocols.
    pub supported_protocols: Vec<ClassicProtocol>,
}

/// `ConsumerGroupMemberMetadataValue` (type 5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerGroupMemberMetadataValue {
    /// Static membership id.
    pub instance_id: Option<String>,
    /// Rack.
    pub rack_id: Option<String>,
    /// Client id.
    pub client_id: String,
    /// Client host.
    pub client_host: String,
    /// Subscribed topic names.
    pub subscribed_topic_names: Vec<String>,
    /// Subscribed topic regex.
    pub subscribed_topic_regex: Option<String>,
    /// Rebalance timeout (ms).
    pub rebalance_timeout_ms: i32,
    /// Server-side assignor.
    pub server_assignor: Option<String>,
    /// Tag 0: set for members that use the classic protocol.
    pub classic_member_metadata: Option<ClassicMemberMetadata>,
}

/// `ConsumerGroupTargetAssignmentMetadataValue` (type 6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerGroupTargetAssignmentMetadataValue {
    /// The group epoch of the target assignment.
    pub assignment_epoch: i32,
    /// Tag 0 (4.3+, KIP-1263): when the assignment was computed (epoch ms), 0 when absent.
    pub assignment_timestamp: i64,
}

/// Partitions of one topic in an assignment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssignedPartitions {
    /// Topic id.
    pub topic_id: Uuid,
    /// Partitions.
    pub partitions: Vec<i32>,
    /// Tag 0 of `ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions`: the epoch at which
    /// each partition was assigned; always `None` in a target assignment.
    pub assignment_epochs: Option<Vec<i32>>,
}

/// `ConsumerGroupTargetAssignmentMemberValue` (type 7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerGroupTargetAssignmentMemberValue {
    /// The member's target partitions.
    pub topic_partitions: Vec<AssignedPartitions>,
}

/// `ConsumerGroupCurrentMemberAssignmentValue` (type 8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerGroupCurrentMemberAssignmentValue {
    /// Member epoch.
    pub member_epoch: i32,
    /// Previous member epoch.
    pub previous_member_epoch: i32,
    /// Member state (`MemberState` id).
    pub state: i8,
    /// Partitions owned.
    pub assigned_partitions: Vec<AssignedPartitions>,
    /// Partitions still to be revoked.
    pub partitions_pending_revocation: Vec<AssignedPartitions>,
}

/// `ConsumerGroupRegularExpressionValue` (type 16).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerGroupRegularExpressionValue {
    /// Topics the regex matched.
    pub topics: Vec<String>,
    /// Metadata image version the match was computed at.
    pub version: i64,
    /// When it was computed (epoch ms).
    pub timestamp: i64,
}

/// A decoded record value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupValue {
    /// Types 0 and 1.
    OffsetCommit(OffsetCommitValue),
    /// Type 2.
    GroupMetadata(GroupMetadataValue),
    /// Type 3.
    ConsumerGroupMetadata(ConsumerGroupMetadataValue),
    /// Type 4.
    ConsumerGroupPartitionMetadata(ConsumerGroupPartitionMetadataValue),
    /// Type 5.
    ConsumerGroupMemberMetadata(ConsumerGroupMemberMetadataValue),
    /// Type 6.
    ConsumerGroupTargetAssignmentMetadata(ConsumerGroupTargetAssignmentMetadataValue),
    /// Type 7.
    ConsumerGroupTargetAssignmentMember(ConsumerGroupTargetAssignmentMemberValue),
    /// Type 8.
    ConsumerGroupCurrentMemberAssignment(ConsumerGroupCurrentMemberAssignmentValue),
    /// Type 16.
    ConsumerGroupRegularExpression(ConsumerGroupRegularExpressionValue),
    /// A share or streams group value: version checked, body not decoded.
    NotDecoded {
        /// The value version.
        version: i16,
    },
    /// The value of an unknown record type: not read beyond its version.
    UnknownType {
        /// The first two bytes as a version, `None` if the value is shorter.
        version: Option<i16>,
    },
}

/// A decoded `__consumer_offsets` record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupRecord {
    /// What the record is about.
    pub key: GroupKey,
    /// The value; `None` is a tombstone (delete what the key names).
    pub value: Option<GroupValue>,
}

/// Decode a record key alone.
pub fn decode_group_key(key: &[u8]) -> FormatResult<GroupKey> {
    let mut c = Cursor::new(key);
    let record_type = c.i16()?;
    let Some(info) = type_info(record_type) else {
        return Ok(GroupKey::Unknown { record_type });
    };
    let w = CLASSIC;
    let out = match info.key {
        KeyShape::OffsetCommit => GroupKey::OffsetCommit {
            record_type,
            group: w.string(&mut c, "group")?,
            topic: w.string(&mut c, "topic")?,
            partition: c.i32()?,
        },
        KeyShape::Group => GroupKey::Group {
            record_type,
            group: w.string(&mut c, "group")?,
        },
        KeyShape::Member => GroupKey::Member {
            record_type,
            group: w.string(&mut c, "group")?,
            member_id: w.string(&mut c, "member_id")?,
        },
        KeyShape::Regex => GroupKey::RegularExpression {
            group: w.string(&mut c, "group")?,
            regex: w.string(&mut c, "regular_expression")?,
        },
    };
    finish(&c)?;
    Ok(out)
}

/// Decode a record from its key and value (`None` for a null value); see the module docs.
pub fn decode_group_record(key: &[u8], value: Option<&[u8]>) -> FormatResult<GroupRecord> {
    let key = decode_group_key(key)?;
    let Some(value) = value else {
        return Ok(GroupRecord { key, value: None });
    };
    let record_type = key.record_type();
    let mut c = Cursor::new(value);
    let Some(info) = type_info(record_type) else {
        let version = c.i16().ok();
        return Ok(GroupRecord {
            key,
            value: Some(GroupValue::UnknownType { version }),
        });
    };
    let version = c.i16()?;
    if !info.value_versions.contains(&version) {
        return Err(FormatError::new(
            ErrorKind::UnsupportedVersion {
                what: info.name,
                version: i64::from(version),
            },
            0,
        ));
    }
    let w = if version >= info.first_flexible {
        FLEXIBLE
    } else {
        CLASSIC
    };
    let Some(value) = value_body(&mut c, w, record_type, version)? else {
        // Share and streams groups: the body is not decoded, so not checked for trailing bytes.
        return Ok(GroupRecord {
            key,
            value: Some(GroupValue::NotDecoded { version }),
        });
    };
    finish(&c)?;
    Ok(GroupRecord {
        key,
        value: Some(value),
    })
}

/// The value body of a known `record_type` at `version`, one decoder per type; `None` for the
/// share and streams group types, whose bodies are not decoded.
fn value_body(
    c: &mut Cursor<'_>,
    w: Wire,
    record_type: i16,
    version: i16,
) -> FormatResult<Option<GroupValue>> {
    Ok(Some(match record_type {
        rt::LEGACY_OFFSET_COMMIT | rt::OFFSET_COMMIT => {
            GroupValue::OffsetCommit(offset_commit(c, w, version)?)
        }
        rt::GROUP_METADATA => GroupValue::GroupMetadata(group_metadata(c, w, version)?),
        rt::CONSUMER_GROUP_METADATA => {
            GroupValue::ConsumerGroupMetadata(consumer_group_metadata(c, w)?)
        }
        rt::CONSUMER_GROUP_PARTITION_METADATA => {
            GroupValue::ConsumerGroupPartitionMetadata(partition_metadata(c, w)?)
        }
        rt::CONSUMER_GROUP_MEMBER_METADATA => {
            GroupValue::ConsumerGroupMemberMetadata(member_metadata(c, w)?)
        }
        rt::CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA => {
            GroupValue::ConsumerGroupTargetAssignmentMetadata(target_assignment_metadata(c, w)?)
        }
        rt::CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER => {
            GroupValue::ConsumerGroupTargetAssignmentMember(target_assignment_member(c, w)?)
        }
        rt::CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT => {
            GroupValue::ConsumerGroupCurrentMemberAssignment(current_member_assignment(c, w)?)
        }
        rt::CONSUMER_GROUP_REGULAR_EXPRESSION => {
            GroupValue::ConsumerGroupRegularExpression(regular_expression(c, w)?)
        }
        _ => return Ok(None),
    }))
}

fn consumer_group_metadata(
    c: &mut Cursor<'_>,
    w: Wire,
) -> FormatResult<ConsumerGroupMetadataValue> {
    let mut v = ConsumerGroupMetadataValue {
        epoch: c.i32()?,
        metadata_hash: 0,
    };
    w.end_struct(c, |tag, f| {
        if tag == 0 {
            v.metadata_hash = f.i64()?;
            return Ok(true);
        }
        Ok(false)
    })?;
    Ok(v)
}

fn target_assignment_metadata(
    c: &mut Cursor<'_>,
    w: Wire,
) -> FormatResult<ConsumerGroupTargetAssignmentMetadataValue> {
    let mut v = ConsumerGroupTargetAssignmentMetadataValue {
        assignment_epoch: c.i32()?,
        assignment_timestamp: 0,
    };
    w.end_struct(c, |tag, f| {
        if tag == 0 {
            v.assignment_timestamp = f.i64()?;
            return Ok(true);
        }
        Ok(false)
    })?;
    Ok(v)
}

fn target_assignment_member(
    c: &mut Cursor<'_>,
    w: Wire,
) -> FormatResult<ConsumerGroupTargetAssignmentMemberValue> {
    let topic_partitions = assigned_partitions(c, w, "topic_partitions", false)?;
    w.skip_tags(c)?;
    Ok(ConsumerGroupTargetAssignmentMemberValue { topic_partitions })
}

fn current_member_assignment(
    c: &mut Cursor<'_>,
    w: Wire,
) -> FormatResult<ConsumerGroupCurrentMemberAssignmentValue> {
    let v = ConsumerGroupCurrentMemberAssignmentValue {
        member_epoch: c.i32()?,
        previous_member_epoch: c.i32()?,
        state: c.i8()?,
        assigned_partitions: assigned_partitions(c, w, "assigned_partitions", true)?,
        partitions_pending_revocation: assigned_partitions(
            c,
            w,
            "partitions_pending_revocation",
            true,
        )?,
    };
    w.skip_tags(c)?;
    Ok(v)
}

fn regular_expression(
    c: &mut Cursor<'_>,
    w: Wire,
) -> FormatResult<ConsumerGroupRegularExpressionValue> {
    let v = ConsumerGroupRegularExpressionValue {
        topics: w.string_array(c, "topics")?,
        version: c.i64()?,
        timestamp: c.i64()?,
    };
    w.skip_tags(c)?;
    Ok(v)
}

fn offset_commit(c: &mut Cursor<'_>, w: Wire, version: i16) -> FormatResult<OffsetCommitValue> {
    let offset = c.i64()?;
    let leader_epoch = if version >= 3 { Some(c.i32()?) } else { None };
    let metadata = w.string(c, "metadata")?;
    let commit_timestamp = c.i64()?;
    let expire_timestamp = if version == 1 { Some(c.i64()?) } else { None };
    let mut topic_id = None;
    w.end_struct(c, |tag, f| {
        if tag == 0 {
            topic_id = Some(uuid(f)?);
            return Ok(true);
        }
        Ok(false)
    })?;
    Ok(OffsetCommitValue {
        version,
        offset,
        leader_epoch,
        metadata,
        commit_timestamp,
        expire_timestamp,
        topic_id,
    })
}

fn group_metadata(c: &mut Cursor<'_>, w: Wire, version: i16) -> FormatResult<GroupMetadataValue> {
    let protocol_type = w.string(c, "protocol_type")?;
    let generation = c.i32()?;
    let protocol = w.nullable_string(c, "protocol")?;
    let leader = w.nullable_string(c, "leader")?;
    let current_state_timestamp = if version >= 2 { Some(c.i64()?) } else { None };
    // Smallest member: 3 strings, session timeout, 2 bytes fields (+ tags).
    let min = w.min_struct_size(3 * w.min_len_size(true) + 4 + 2 * w.min_len_size(false));
    let n = w.required_array_len(c, "members", min)?;
    let mut members = Vec::with_capacity(n);
    for _ in 0..n {
        let member_id = w.string(c, "member_id")?;
        let group_instance_id = if version >= 3 {
            w.nullable_string(c, "group_instance_id")?
        } else {
            None
        };
        let client_id = w.string(c, "client_id")?;
        let client_host = w.string(c, "client_host")?;
        let rebalance_timeout_ms = if version >= 1 { Some(c.i32()?) } else { None };
        let session_timeout_ms = c.i32()?;
        let subscription_len = w.bytes_len(c, "subscription")?;
        let assignment_len = w.bytes_len(c, "assignment")?;
        w.skip_tags(c)?;
        members.push(ClassicGroupMember {
            member_id,
            group_instance_id,
            client_id,
            client_host,
            rebalance_timeout_ms,
            session_timeout_ms,
            subscription_len,
            assignment_len,
        });
    }
    w.skip_tags(c)?;
    Ok(GroupMetadataValue {
        version,
        protocol_type,
        generation,
        protocol,
        leader,
        current_state_timestamp,
        members,
    })
}

fn partition_metadata(
    c: &mut Cursor<'_>,
    w: Wire,
) -> FormatResult<ConsumerGroupPartitionMetadataValue> {
    let min_topic = w.min_struct_size(16 + w.min_len_size(true) + 4 + w.min_len_size(false));
    let n = w.required_array_len(c, "topics", min_topic)?;
    let mut topics = Vec::with_capacity(n);
    for _ in 0..n {
        let topic_id = uuid(c)?;
        let topic_name = w.string(c, "topic_name")?;
        let num_partitions = c.i32()?;
        let min_partition = w.min_struct_size(4 + w.min_len_size(false));
        let m = w.required_array_len(c, "partition_metadata", min_partition)?;
        let mut partitions = Vec::with_capacity(m);
        for _ in 0..m {
            let partition = c.i32()?;
            let racks = w.string_array(c, "racks")?;
            w.skip_tags(c)?;
            partitions.push(PartitionRacks { partition, racks });
        }
        w.skip_tags(c)?;
        topics.push(TopicMetadata {
            topic_id,
            topic_name,
            num_partitions,
            partitions,
        });
    }
    w.skip_tags(c)?;
    Ok(ConsumerGroupPartitionMetadataValue { topics })
}

fn member_metadata(c: &mut Cursor<'_>, w: Wire) -> FormatResult<ConsumerGroupMemberMetadataValue> {
    let mut v = ConsumerGroupMemberMetadataValue {
        instance_id: w.nullable_string(c, "instance_id")?,
        rack_id: w.nullable_string(c, "rack_id")?,
        client_id: w.string(c, "client_id")?,
        client_host: w.string(c, "client_host")?,
        subscribed_topic_names: w.string_array(c, "subscribed_topic_names")?,
        subscribed_topic_regex: w.nullable_string(c, "subscribed_topic_regex")?,
        rebalance_timeout_ms: c.i32()?,
        server_assignor: w.nullable_string(c, "server_assignor")?,
        classic_member_metadata: None,
    };
    w.end_struct(c, |tag, f| {
        if tag != 0 {
            return Ok(false);
        }
        if tagged_struct_present(f)? {
            let session_timeout_ms = f.i32()?;
            let min = w.min_struct_size(2 * w.min_len_size(true));
            let n = w.required_array_len(f, "supported_protocols", min)?;
            let mut supported_protocols = Vec::with_capacity(n);
            for _ in 0..n {
                let name = w.string(f, "protocol name")?;
                let metadata_len = w.bytes_len(f, "protocol metadata")?;
                w.skip_tags(f)?;
                supported_protocols.push(ClassicProtocol { name, metadata_len });
            }
            w.skip_tags(f)?;
            v.classic_member_metadata = Some(ClassicMemberMetadata {
                session_timeout_ms,
                supported_protocols,
            });
        }
        Ok(true)
    })?;
    Ok(v)
}

/// An array of `{TopicId uuid, Partitions [int32] (, tag 0 AssignmentEpochs [int32])}`;
/// `with_epochs` says whether tag 0 is known (current assignments) or skipped (targets).
fn assigned_partitions(
    c: &mut Cursor<'_>,
    w: Wire,
    field: &'static str,
    with_epochs: bool,
) -> FormatResult<Vec<AssignedPartitions>> {
    let n = w.required_array_len(c, field, w.min_struct_size(16 + w.min_len_size(false)))?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let topic_id = uuid(c)?;
        let partitions = w.i32_array(c, "partitions")?;
        let mut assignment_epochs = None;
        w.end_struct(c, |tag, f| {
            if tag == 0 && with_epochs {
                // Nullable, default null: written only when non-null.
                assignment_epochs = w.nullable_i32_array(f, "assignment_epochs")?;
                return Ok(true);
            }
            Ok(false)
        })?;
        out.push(AssignedPartitions {
            topic_id,
            partitions,
            assignment_epochs,
        });
    }
    Ok(out)
}

/// Encode a record key and value as a broker would (tagged fields only when they differ from
/// their defaults). Test helper: fields absent in the value's version must be `None`;
/// [`GroupValue::NotDecoded`] and [`GroupValue::UnknownType`] encode to their version alone.
#[cfg(test)]
pub(crate) fn encode_group_record(
    key: &GroupKey,
    value: Option<&GroupValue>,
) -> (Vec<u8>, Option<Vec<u8>>) {
    use super::message_wire::encode::{field, Enc};
    let mut k = Enc::new(CLASSIC);
    k.i16(key.record_type());
    match key {
        GroupKey::OffsetCommit {
            group,
            topic,
            partition,
            ..
        } => {
            k.str(group).str(topic).i32(*partition);
        }
        GroupKey::Group { group, .. } => {
            k.str(group);
        }
        GroupKey::Member {
            group, member_id, ..
        } => {
            k.str(group).str(member_id);
        }
        GroupKey::RegularExpression { group, regex } => {
            k.str(group).str(regex);
        }
        GroupKey::Unknown { .. } => {}
    }
    let key_bytes = k.done();
    let Some(value) = value else {
        return (key_bytes, None);
    };
    let flexible_from = type_info(key.record_type()).map_or(0, |i| i.first_flexible);
    let version = match value {
        GroupValue::OffsetCommit(v) => v.version,
        GroupValue::GroupMetadata(v) => v.version,
        GroupValue::NotDecoded { version } => *version,
        GroupValue::UnknownType { version } => {
            return (
                key_bytes,
                Some(version.map_or(Vec::new(), |v| v.to_be_bytes().to_vec())),
            )
        }
        _ => 0,
    };
    let w = if version >= flexible_from {
        FLEXIBLE
    } else {
        CLASSIC
    };
    let mut e = Enc::new(w);
    e.i16(version);
    let assigned = |e: &mut Enc, parts: &[AssignedPartitions]| {
        e.len(Some(parts.len()), false);
        for p in parts {
            e.uuid(p.topic_id).i32s(&p.partitions);
            match &p.assignment_epochs {
                Some(epochs) => e.tags(&[(
                    0,
                    field(|f| {
                        f.i32s(epochs);
                    }),
                )]),
                None => e.tags(&[]),
            };
        }
    };
    match value {
        GroupValue::OffsetCommit(v) => {
            e.i64(v.offset);
            if let Some(epoch) = v.leader_epoch {
                e.i32(epoch);
            }
            e.str(&v.metadata).i64(v.commit_timestamp);
            if let Some(t) = v.expire_timestamp {
                e.i64(t);
            }
            match v.topic_id {
                Some(id) => e.tags(&[(
                    0,
                    field(|f| {
                        f.uuid(id);
                    }),
                )]),
                None => e.tags(&[]),
            };
        }
        GroupValue::GroupMetadata(v) => {
            e.str(&v.protocol_type)
                .i32(v.generation)
                .nstr(v.protocol.as_deref())
                .nstr(v.leader.as_deref());
            if let Some(t) = v.current_state_timestamp {
                e.i64(t);
            }
            e.len(Some(v.members.len()), false);
            for m in &v.members {
                e.str(&m.member_id);
                if v.version >= 3 {
                    e.nstr(m.group_instance_id.as_deref());
                }
                e.str(&m.client_id).str(&m.client_host);
                if let Some(t) = m.rebalance_timeout_ms {
                    e.i32(t);
                }
                e.i32(m.session_timeout_ms)
                    .bytes_of_len(m.subscription_len)
                    .bytes_of_len(m.assignment_len)
                    .tags(&[]);
            }
            e.tags(&[]);
        }
        GroupValue::ConsumerGroupMetadata(v) => {
            e.i32(v.epoch);
            let hash = v.metadata_hash;
            match hash {
                0 => e.tags(&[]),
                _ => e.tags(&[(
                    0,
                    field(|f| {
                        f.i64(hash);
                    }),
                )]),
            };
        }
        GroupValue::ConsumerGroupPartitionMetadata(v) => {
            e.len(Some(v.topics.len()), false);
            for t in &v.topics {
                e.uuid(t.topic_id)
                    .str(&t.topic_name)
                    .i32(t.num_partitions)
                    .len(Some(t.partitions.len()), false);
                for p in &t.partitions {
                    e.i32(p.partition).strs(&p.racks).tags(&[]);
                }
                e.tags(&[]);
            }
            e.tags(&[]);
        }
        GroupValue::ConsumerGroupMemberMetadata(v) => {
            e.nstr(v.instance_id.as_deref())
                .nstr(v.rack_id.as_deref())
                .str(&v.client_id)
                .str(&v.client_host)
                .strs(&v.subscribed_topic_names)
                .nstr(v.subscribed_topic_regex.as_deref())
                .i32(v.rebalance_timeout_ms)
                .nstr(v.server_assignor.as_deref());
            match &v.classic_member_metadata {
                None => e.tags(&[]),
                Some(m) => e.tags(&[(
                    0,
                    field(|f| {
                        f.uv(1).i32(m.session_timeout_ms);
                        f.len(Some(m.supported_protocols.len()), false);
                        for p in &m.supported_protocols {
                            f.str(&p.name).bytes_of_len(p.metadata_len).tags(&[]);
                        }
                        f.tags(&[]);
                    }),
                )]),
            };
        }
        GroupValue::ConsumerGroupTargetAssignmentMetadata(v) => {
            e.i32(v.assignment_epoch);
            let ts = v.assignment_timestamp;
            match ts {
                0 => e.tags(&[]),
                _ => e.tags(&[(
                    0,
                    field(|f| {
                        f.i64(ts);
                    }),
                )]),
            };
        }
        GroupValue::ConsumerGroupTargetAssignmentMember(v) => {
            assigned(&mut e, &v.topic_partitions);
            e.tags(&[]);
        }
        GroupValue::ConsumerGroupCurrentMemberAssignment(v) => {
            e.i32(v.member_epoch)
                .i32(v.previous_member_epoch)
                .i8(v.state);
            assigned(&mut e, &v.assigned_partitions);
            assigned(&mut e, &v.partitions_pending_revocation);
            e.tags(&[]);
        }
        GroupValue::ConsumerGroupRegularExpression(v) => {
            e.strs(&v.topics).i64(v.version).i64(v.timestamp).tags(&[]);
        }
        GroupValue::NotDecoded { .. } | GroupValue::UnknownType { .. } => {}
    }
    (key_bytes, Some(e.done()))
}

#[cfg(test)]
mod tests {
    use super::super::message_wire::encode::{field, Enc};
    use super::*;
    use proptest::prelude::*;

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.split_whitespace().collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn decode(key: &[u8], value: Option<&[u8]>) -> GroupRecord {
        decode_group_record(key, value).unwrap()
    }

    /// A cut-off record: `Truncated`, or `LengthOutOfRange` when the cut leaves an array
    /// count that no longer fits in the bytes left.
    fn is_cut(e: &FormatError) -> bool {
        matches!(
            e.kind,
            ErrorKind::Truncated { .. } | ErrorKind::LengthOutOfRange { .. }
        )
    }

    /// Every strict prefix of a valid key or value fails as cut off, never a panic or a value.
    fn assert_prefixes_truncated(key: &[u8], value: Option<&[u8]>) {
        for n in 0..key.len() {
            let e = decode_group_record(&key[..n], value).unwrap_err();
            assert!(
                matches!(e.kind, ErrorKind::Truncated { .. }),
                "key prefix {n}: {e}"
            );
        }
        if let Some(value) = value {
            for n in 0..value.len() {
                let e = decode_group_record(key, Some(&value[..n])).unwrap_err();
                assert!(is_cut(&e), "value prefix {n}: {e}");
            }
        }
    }

    fn round_trip(key: &GroupKey, value: Option<&GroupValue>) {
        let (k, v) = encode_group_record(key, value);
        let got = decode(&k, v.as_deref());
        assert_eq!(got.key, *key);
        assert_eq!(got.value.as_ref(), value);
        assert_prefixes_truncated(&k, v.as_deref());
    }

    #[test]
    fn real_offset_commit_v4_from_fixture() {
        // consumer-groups fixture, __consumer_offsets-1 offset 0: g-current events-0 = 30.
        let key = hex("0001 0009 672d63757272656e74 0006 6576656e7473 00000000");
        let value = hex("0004 000000000000001e 00000000 01 000001a22ca9585d \
             01 00 10 7080c465f0e54b68a3fc8ce628b899c6");
        let r = decode(&key, Some(&value));
        assert_eq!(
            r.key,
            GroupKey::OffsetCommit {
                record_type: 1,
                group: "g-current".into(),
                topic: "events".into(),
                partition: 0
            }
        );
        let Some(GroupValue::OffsetCommit(v)) = r.value else {
            panic!()
        };
        assert_eq!((v.version, v.offset, v.leader_epoch), (4, 30, Some(0)));
        assert_eq!(v.metadata, "");
        assert_eq!(v.commit_timestamp, 1_796_045_625_437);
        assert_eq!(v.expire_timestamp, None);
        assert_eq!(
            v.topic_id.map(|u| u.to_string()).as_deref(),
            Some("cIDEZfDlS2ij_IzmKLiZxg")
        );
        assert_prefixes_truncated(&key, Some(&value));
    }

    #[test]
    fn offset_commit_versions() {
        let key = GroupKey::OffsetCommit {
            record_type: 1,
            group: "g".into(),
            topic: "t".into(),
            partition: 3,
        };
        for version in 0..=4 {
            let v = OffsetCommitValue {
                version,
                offset: 42,
                leader_epoch: (version >= 3).then_some(7),
                metadata: "meta".into(),
                commit_timestamp: 1000,
                expire_timestamp: (version == 1).then_some(2000),
                topic_id: (version >= 4).then_some(Uuid([5; 16])),
            };
            round_trip(&key, Some(&GroupValue::OffsetCommit(v)));
        }
        // v1 by hand: offset, metadata, commit, expire (spec §7.3).
        let k = Enc::new(CLASSIC).i16(1).str("g").str("t").i32(0).done();
        let v = Enc::new(CLASSIC)
            .i16(1)
            .i64(9)
            .str("")
            .i64(10)
            .i64(11)
            .done();
        let Some(GroupValue::OffsetCommit(o)) = decode(&k, Some(&v)).value else {
            panic!()
        };
        assert_eq!(
            (o.offset, o.commit_timestamp, o.expire_timestamp),
            (9, 10, Some(11))
        );
        // The legacy key type reads value v0 only.
        let legacy = GroupKey::OffsetCommit {
            record_type: 0,
            group: "g".into(),
            topic: "t".into(),
            partition: 3,
        };
        let v0 = OffsetCommitValue {
            version: 0,
            offset: 1,
            leader_epoch: None,
            metadata: String::new(),
            commit_timestamp: 2,
            expire_timestamp: None,
            topic_id: None,
        };
        round_trip(&legacy, Some(&GroupValue::OffsetCommit(v0)));
        let (k, _) = encode_group_record(&legacy, None);
        let e = decode_group_record(&k, Some(&[0, 3])).unwrap_err();
        assert_eq!(
            e.kind,
            ErrorKind::UnsupportedVersion {
                what: "LegacyOffsetCommit",
                version: 3
            }
        );
    }

    #[test]
    fn tombstones_keep_the_key() {
        let key = GroupKey::OffsetCommit {
            record_type: 1,
            group: "g".into(),
            topic: "t".into(),
            partition: 0,
        };
        round_trip(&key, None);
        let member = GroupKey::Member {
            record_type: rt::CONSUMER_GROUP_MEMBER_METADATA,
            group: "g".into(),
            member_id: "m-1".into(),
        };
        round_trip(&member, None);
        round_trip(
            &GroupKey::Group {
                record_type: rt::GROUP_METADATA,
                group: "g".into(),
            },
            None,
        );
    }

    #[test]
    fn group_metadata_versions() {
        for version in 0..=4 {
            let members = vec![
                ClassicGroupMember {
                    member_id: "c-1".into(),
                    group_instance_id: (version >= 3).then(|| "static-1".into()),
                    client_id: "client".into(),
                    client_host: "/127.0.0.1".into(),
                    rebalance_timeout_ms: (version >= 1).then_some(300_000),
                    session_timeout_ms: 45_000,
                    subscription_len: 20,
                    assignment_len: 3,
                },
                ClassicGroupMember {
                    member_id: "c-2".into(),
                    group_instance_id: None,
                    client_id: String::new(),
                    client_host: "h".into(),
                    rebalance_timeout_ms: (version >= 1).then_some(-1),
                    session_timeout_ms: 10,
                    subscription_len: 0,
                    assignment_len: 0,
                },
            ];
            let v = GroupMetadataValue {
                version,
                protocol_type: "consumer".into(),
                generation: 5,
                protocol: Some("range".into()),
                leader: None,
                current_state_timestamp: (version >= 2).then_some(123),
                members,
            };
            round_trip(
                &GroupKey::Group {
                    record_type: rt::GROUP_METADATA,
                    group: "classic".into(),
                },
                Some(&GroupValue::GroupMetadata(v)),
            );
        }
        // A member count past the end is rejected before allocating.
        let k = Enc::new(CLASSIC).i16(2).str("g").done();
        let v = Enc::new(CLASSIC)
            .i16(3)
            .str("consumer")
            .i32(1)
            .nstr(None)
            .nstr(None)
            .i64(0)
            .i32(i32::MAX)
            .done();
        assert!(matches!(
            decode_group_record(&k, Some(&v)).unwrap_err().kind,
            ErrorKind::LengthOutOfRange {
                field: "members",
                ..
            }
        ));
    }

    fn tp(n: u8, parts: &[i32], epochs: Option<Vec<i32>>) -> AssignedPartitions {
        AssignedPartitions {
            topic_id: Uuid([n; 16]),
            partitions: parts.to_vec(),
            assignment_epochs: epochs,
        }
    }

    #[test]
    fn consumer_protocol_records() {
        let group = |t| GroupKey::Group {
            record_type: t,
            group: "cg".into(),
        };
        let member = |t| GroupKey::Member {
            record_type: t,
            group: "cg".into(),
            member_id: "m".into(),
        };
        round_trip(
            &group(rt::CONSUMER_GROUP_METADATA),
            Some(&GroupValue::ConsumerGroupMetadata(
                ConsumerGroupMetadataValue {
                    epoch: 4,
                    metadata_hash: -77,
                },
            )),
        );
        round_trip(
            &group(rt::CONSUMER_GROUP_PARTITION_METADATA),
            Some(&GroupValue::ConsumerGroupPartitionMetadata(
                ConsumerGroupPartitionMetadataValue {
                    topics: vec![TopicMetadata {
                        topic_id: Uuid([1; 16]),
                        topic_name: "events".into(),
                        num_partitions: 2,
                        partitions: vec![PartitionRacks {
                            partition: 0,
                            racks: vec!["r1".into(), "r2".into()],
                        }],
                    }],
                },
            )),
        );
        round_trip(
            &member(rt::CONSUMER_GROUP_MEMBER_METADATA),
            Some(&GroupValue::ConsumerGroupMemberMetadata(
                ConsumerGroupMemberMetadataValue {
                    instance_id: None,
                    rack_id: Some("r1".into()),
                    client_id: "c".into(),
                    client_host: "/10.0.0.1".into(),
                    subscribed_topic_names: vec!["events".into()],
                    subscribed_topic_regex: Some("ev.*".into()),
                    rebalance_timeout_ms: 5000,
                    server_assignor: Some("uniform".into()),
                    classic_member_metadata: Some(ClassicMemberMetadata {
                        session_timeout_ms: 45_000,
                        supported_protocols: vec![ClassicProtocol {
                            name: "range".into(),
                            metadata_len: 12,
                        }],
                    }),
                },
            )),
        );
        round_trip(
            &group(rt::CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA),
            Some(&GroupValue::ConsumerGroupTargetAssignmentMetadata(
                ConsumerGroupTargetAssignmentMetadataValue {
                    assignment_epoch: 9,
                    assignment_timestamp: 1_796_045_580_000,
                },
            )),
        );
        round_trip(
            &member(rt::CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER),
            Some(&GroupValue::ConsumerGroupTargetAssignmentMember(
                ConsumerGroupTargetAssignmentMemberValue {
                    topic_partitions: vec![tp(1, &[0, 1], None), tp(2, &[], None)],
                },
            )),
        );
        round_trip(
            &member(rt::CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT),
            Some(&GroupValue::ConsumerGroupCurrentMemberAssignment(
                ConsumerGroupCurrentMemberAssignmentValue {
                    member_epoch: 3,
                    previous_member_epoch: 2,
                    state: 0,
                    assigned_partitions: vec![tp(1, &[0], Some(vec![3]))],
                    partitions_pending_revocation: vec![tp(2, &[5, 6], None)],
                },
            )),
        );
        round_trip(
            &GroupKey::RegularExpression {
                group: "cg".into(),
                regex: "ev.*".into(),
            },
            Some(&GroupValue::ConsumerGroupRegularExpression(
                ConsumerGroupRegularExpressionValue {
                    topics: vec!["events".into(), "ev2".into()],
                    version: 17,
                    timestamp: 99,
                },
            )),
        );
    }

    #[test]
    fn tag_details() {
        // A null tagged ClassicMemberMetadata (marker 0) reads as absent.
        let k = Enc::new(CLASSIC).i16(5).str("g").str("m").done();
        let v = Enc::new(FLEXIBLE)
            .i16(0)
            .nstr(None)
            .nstr(None)
            .str("c")
            .str("h")
            .strs(&[])
            .nstr(None)
            .i32(1)
            .nstr(None)
            .tags(&[(0, vec![0]), (5, vec![1, 2])])
            .done();
        let Some(GroupValue::ConsumerGroupMemberMetadata(m)) = decode(&k, Some(&v)).value else {
            panic!()
        };
        assert_eq!(m.classic_member_metadata, None);
        // Tag 0 of a target-assignment partition entry is unknown there and skipped.
        let k = Enc::new(CLASSIC).i16(7).str("g").str("m").done();
        let v = Enc::new(FLEXIBLE)
            .i16(0)
            .len(Some(1), false)
            .uuid(Uuid([3; 16]))
            .i32s(&[1])
            .tags(&[(
                0,
                field(|f| {
                    f.i32s(&[4]);
                }),
            )])
            .tags(&[])
            .done();
        let Some(GroupValue::ConsumerGroupTargetAssignmentMember(t)) = decode(&k, Some(&v)).value
        else {
            panic!()
        };
        assert_eq!(t.topic_partitions, vec![tp(3, &[1], None)]);
        // A known tag with extra bytes in it.
        let k = Enc::new(CLASSIC).i16(3).str("g").done();
        let v = Enc::new(FLEXIBLE)
            .i16(0)
            .i32(1)
            .tags(&[(0, vec![0; 9])])
            .done();
        assert_eq!(
            decode_group_record(&k, Some(&v)).unwrap_err().kind,
            ErrorKind::TrailingBytes(1)
        );
    }

    #[test]
    fn share_and_streams_records_decode_to_key_and_version() {
        let share_types = [9, 10, 11, 12, 13, 14, 15];
        let streams_types = [17, 18, 19, 20, 21, 22, 23, 24];
        for t in share_types.into_iter().chain(streams_types) {
            let key = match type_info(t).unwrap().key {
                KeyShape::Member => GroupKey::Member {
                    record_type: t,
                    group: "sg".into(),
                    member_id: "m".into(),
                },
                KeyShape::Group => GroupKey::Group {
                    record_type: t,
                    group: "sg".into(),
                },
                other => panic!("{other:?}"),
            };
            let (k, _) = encode_group_record(&key, None);
            // Any body after version 0.
            let r = decode(&k, Some(&[0, 0, 1, 2, 3]));
            assert_eq!(r.key, key);
            assert_eq!(r.value, Some(GroupValue::NotDecoded { version: 0 }));
            round_trip(&key, None);
            let e = decode_group_record(&k, Some(&[0, 1])).unwrap_err();
            assert!(matches!(
                e.kind,
                ErrorKind::UnsupportedVersion { version: 1, .. }
            ));
            let protocol = group_protocol(t).unwrap();
            let expected = if share_types.contains(&t) {
                GroupProtocol::Share
            } else {
                GroupProtocol::Streams
            };
            assert_eq!(protocol, expected);
        }
    }

    #[test]
    fn unknown_types_and_versions() {
        // Type 25 and a negative type: key body not read, value version reported.
        for t in [25i16, -1, i16::MAX] {
            let mut k = t.to_be_bytes().to_vec();
            k.extend_from_slice(&[0xff; 3]);
            let r = decode(&k, Some(&[0, 7, 0xff]));
            assert_eq!(r.key, GroupKey::Unknown { record_type: t });
            assert_eq!(r.value, Some(GroupValue::UnknownType { version: Some(7) }));
            assert_eq!(
                decode(&k, Some(&[1])).value,
                Some(GroupValue::UnknownType { version: None })
            );
            assert_eq!(decode(&k, None).value, None);
            assert_eq!(record_type_name(t), None);
            assert_eq!(supported_value_versions(t), None);
        }
        // Known types at versions Kafka does not know: an error naming the schema.
        for (t, bad) in [(1i16, 5i16), (1, -1), (2, 5), (3, 1), (8, 2), (16, 1)] {
            let mut k = t.to_be_bytes().to_vec();
            k.extend(Enc::new(CLASSIC).str("g").done());
            match type_info(t).unwrap().key {
                KeyShape::OffsetCommit => k.extend(Enc::new(CLASSIC).str("t").i32(0).done()),
                KeyShape::Member | KeyShape::Regex => k.extend(Enc::new(CLASSIC).str("m").done()),
                KeyShape::Group => {}
            }
            let e = decode_group_record(&k, Some(&bad.to_be_bytes())).unwrap_err();
            assert_eq!(e.offset, 0);
            assert_eq!(
                e.kind,
                ErrorKind::UnsupportedVersion {
                    what: record_type_name(t).unwrap(),
                    version: i64::from(bad)
                }
            );
            // The key alone still decodes.
            assert_eq!(decode_group_key(&k).unwrap().record_type(), t);
        }
        assert_eq!(
            record_type_name(24),
            Some("StreamsGroupTargetAssignmentResolvedTopicIds")
        );
        assert_eq!(supported_value_versions(1), Some(0..=4));
    }

    #[test]
    fn type_table_matches_the_constants() {
        let named = [
            (rt::LEGACY_OFFSET_COMMIT, "LegacyOffsetCommit"),
            (rt::OFFSET_COMMIT, "OffsetCommit"),
            (rt::GROUP_METADATA, "GroupMetadata"),
            (rt::CONSUMER_GROUP_METADATA, "ConsumerGroupMetadata"),
            (
                rt::CONSUMER_GROUP_PARTITION_METADATA,
                "ConsumerGroupPartitionMetadata",
            ),
            (
                rt::CONSUMER_GROUP_MEMBER_METADATA,
                "ConsumerGroupMemberMetadata",
            ),
            (
                rt::CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA,
                "ConsumerGroupTargetAssignmentMetadata",
            ),
            (
                rt::CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER,
                "ConsumerGroupTargetAssignmentMember",
            ),
            (
                rt::CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT,
                "ConsumerGroupCurrentMemberAssignment",
            ),
            (
                rt::SHARE_GROUP_PARTITION_METADATA,
                "ShareGroupPartitionMetadata",
            ),
            (rt::SHARE_GROUP_MEMBER_METADATA, "ShareGroupMemberMetadata"),
            (rt::SHARE_GROUP_METADATA, "ShareGroupMetadata"),
            (
                rt::SHARE_GROUP_TARGET_ASSIGNMENT_METADATA,
                "ShareGroupTargetAssignmentMetadata",
            ),
            (
                rt::SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER,
                "ShareGroupTargetAssignmentMember",
            ),
            (
                rt::SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT,
                "ShareGroupCurrentMemberAssignment",
            ),
            (
                rt::SHARE_GROUP_STATE_PARTITION_METADATA,
                "ShareGroupStatePartitionMetadata",
            ),
            (
                rt::CONSUMER_GROUP_REGULAR_EXPRESSION,
                "ConsumerGroupRegularExpression",
            ),
            (rt::STREAMS_GROUP_METADATA, "StreamsGroupMetadata"),
            (
                rt::STREAMS_GROUP_PARTITION_METADATA,
                "StreamsGroupPartitionMetadata",
            ),
            (
                rt::STREAMS_GROUP_MEMBER_METADATA,
                "StreamsGroupMemberMetadata",
            ),
            (
                rt::STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA,
                "StreamsGroupTargetAssignmentMetadata",
            ),
            (
                rt::STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER,
                "StreamsGroupTargetAssignmentMember",
            ),
            (
                rt::STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT,
                "StreamsGroupCurrentMemberAssignment",
            ),
            (rt::STREAMS_GROUP_TOPOLOGY, "StreamsGroupTopology"),
            (
                rt::STREAMS_GROUP_TARGET_ASSIGNMENT_RESOLVED_TOPIC_IDS,
                "StreamsGroupTargetAssignmentResolvedTopicIds",
            ),
        ];
        assert_eq!(named.len(), TYPES.len());
        for (t, name) in named {
            assert_eq!(record_type_name(t), Some(name), "type {t}");
        }
        // Key layouts follow the schema names.
        for t in 0..TYPES.len() as i16 {
            let info = type_info(t).unwrap();
            let member = info.name.contains("Member");
            assert_eq!(info.key == KeyShape::Member, member, "{}", info.name);
        }
        assert_eq!(
            group_protocol(rt::GROUP_METADATA),
            Some(GroupProtocol::Classic)
        );
        assert_eq!(
            group_protocol(rt::OFFSET_COMMIT),
            Some(GroupProtocol::Offsets)
        );
    }

    #[test]
    fn bad_keys_and_values() {
        // Trailing bytes after a key and after a value.
        let (mut k, v) = encode_group_record(
            &GroupKey::Group {
                record_type: rt::CONSUMER_GROUP_METADATA,
                group: "g".into(),
            },
            Some(&GroupValue::ConsumerGroupMetadata(
                ConsumerGroupMetadataValue {
                    epoch: 1,
                    metadata_hash: 0,
                },
            )),
        );
        let mut v = v.unwrap();
        v.push(0);
        assert_eq!(
            decode_group_record(&k, Some(&v)).unwrap_err().kind,
            ErrorKind::TrailingBytes(1)
        );
        k.push(0);
        assert_eq!(
            decode_group_record(&k, None).unwrap_err().kind,
            ErrorKind::TrailingBytes(1)
        );
        // A null group id, and a group id that is not UTF-8.
        let e = decode_group_record(&[0, 2, 0xff, 0xff], None).unwrap_err();
        assert!(matches!(
            e.kind,
            ErrorKind::InvalidField { field: "group", .. }
        ));
        let e = decode_group_record(&[0, 2, 0, 1, 0xff], None).unwrap_err();
        assert_eq!(e.offset, 4);
        // A null subscription blob in a classic member.
        let k = Enc::new(CLASSIC).i16(2).str("g").done();
        let v = Enc::new(CLASSIC)
            .i16(0)
            .str("consumer")
            .i32(1)
            .nstr(None)
            .nstr(None)
            .i32(1)
            .str("m")
            .str("c")
            .str("h")
            .i32(10)
            .i32(-1)
            .i32(0)
            .done();
        assert!(matches!(
            decode_group_record(&k, Some(&v)).unwrap_err().kind,
            ErrorKind::InvalidField {
                field: "subscription",
                ..
            }
        ));
    }

    // ---- properties ----------------------------------------------------------------------

    fn s() -> impl Strategy<Value = String> {
        "\\PC{0,12}"
    }

    fn arb_key() -> impl Strategy<Value = GroupKey> {
        let group_only: Vec<i16> = (0..=24)
            .filter(|t| matches!(type_info(*t).map(|i| i.key), Some(KeyShape::Group)))
            .collect();
        let member: Vec<i16> = (0..=24)
            .filter(|t| matches!(type_info(*t).map(|i| i.key), Some(KeyShape::Member)))
            .collect();
        prop_oneof![
            (0i16..=1, s(), s(), any::<i32>()).prop_map(
                |(record_type, group, topic, partition)| {
                    GroupKey::OffsetCommit {
                        record_type,
                        group,
                        topic,
                        partition,
                    }
                }
            ),
            (proptest::sample::select(group_only), s())
                .prop_map(|(record_type, group)| GroupKey::Group { record_type, group }),
            (proptest::sample::select(member), s(), s()).prop_map(
                |(record_type, group, member_id)| GroupKey::Member {
                    record_type,
                    group,
                    member_id
                }
            ),
            (s(), s()).prop_map(|(group, regex)| GroupKey::RegularExpression { group, regex }),
        ]
    }

    fn arb_uuid() -> impl Strategy<Value = Uuid> {
        any::<[u8; 16]>().prop_map(Uuid)
    }

    fn arb_assigned(with_epochs: bool) -> impl Strategy<Value = Vec<AssignedPartitions>> {
        let epochs = if with_epochs {
            proptest::option::of(proptest::collection::vec(any::<i32>(), 0..3)).boxed()
        } else {
            Just(None).boxed()
        };
        proptest::collection::vec(
            (
                arb_uuid(),
                proptest::collection::vec(any::<i32>(), 0..4),
                epochs,
            )
                .prop_map(|(topic_id, partitions, assignment_epochs)| {
                    AssignedPartitions {
                        topic_id,
                        partitions,
                        assignment_epochs,
                    }
                }),
            0..3,
        )
    }

    /// A value valid for the key's record type.
    fn arb_value(key: &GroupKey) -> BoxedStrategy<GroupValue> {
        let strs = || proptest::collection::vec(s(), 0..3);
        match key.record_type() {
            t @ (rt::LEGACY_OFFSET_COMMIT | rt::OFFSET_COMMIT) => {
                let versions = if t == 0 { 0i16..=0 } else { 0i16..=4 };
                (
                    versions,
                    any::<(i64, i32, i64, i64)>(),
                    s(),
                    proptest::option::of(arb_uuid()),
                )
                    .prop_map(|(version, (offset, epoch, commit, expire), metadata, id)| {
                        GroupValue::OffsetCommit(OffsetCommitValue {
                            version,
                            offset,
                            leader_epoch: (version >= 3).then_some(epoch),
                            metadata,
                            commit_timestamp: commit,
                            expire_timestamp: (version == 1).then_some(expire),
                            topic_id: id.filter(|_| version >= 4),
                        })
                    })
                    .boxed()
            }
            rt::GROUP_METADATA => {
                let member = (
                    (s(), proptest::option::of(s()), s(), s()),
                    any::<(i32, i32)>(),
                    (0usize..40, 0usize..40),
                );
                (
                    0i16..=4,
                    (
                        s(),
                        any::<i32>(),
                        proptest::option::of(s()),
                        proptest::option::of(s()),
                    ),
                    any::<i64>(),
                    proptest::collection::vec(member, 0..3),
                )
                    .prop_map(
                        |(version, (protocol_type, generation, protocol, leader), ts, members)| {
                            GroupValue::GroupMetadata(GroupMetadataValue {
                                version,
                                protocol_type,
                                generation,
                                protocol,
                                leader,
                                current_state_timestamp: (version >= 2).then_some(ts),
                                members: members
                                    .into_iter()
                                    .map(
                                        |(
                                            (member_id, instance, client_id, client_host),
                                            (rebalance, session),
                                            (sub, asg),
                                        )| {
                                            ClassicGroupMember {
                                                member_id,
                                                group_instance_id: instance
                                                    .filter(|_| version >= 3),
                                                client_id,
                                                client_host,
                                                rebalance_timeout_ms: (version >= 1)
                                                    .then_some(rebalance),
                                                session_timeout_ms: session,
                                                subscription_len: sub,
                                                assignment_len: asg,
                                            }
                                        },
                                    )
                                    .collect(),
                            })
                        },
                    )
                    .boxed()
            }
            rt::CONSUMER_GROUP_METADATA => any::<(i32, i64)>()
                .prop_map(|(epoch, metadata_hash)| {
                    GroupValue::ConsumerGroupMetadata(ConsumerGroupMetadataValue {
                        epoch,
                        metadata_hash,
                    })
                })
                .boxed(),
            rt::CONSUMER_GROUP_PARTITION_METADATA => proptest::collection::vec(
                (
                    arb_uuid(),
                    s(),
                    any::<i32>(),
                    proptest::collection::vec((any::<i32>(), strs()), 0..3),
                ),
                0..3,
            )
            .prop_map(|topics| {
                GroupValue::ConsumerGroupPartitionMetadata(ConsumerGroupPartitionMetadataValue {
                    topics: topics
                        .into_iter()
                        .map(
                            |(topic_id, topic_name, num_partitions, parts)| TopicMetadata {
                                topic_id,
                                topic_name,
                                num_partitions,
                                partitions: parts
                                    .into_iter()
                                    .map(|(partition, racks)| PartitionRacks { partition, racks })
                                    .collect(),
                            },
                        )
                        .collect(),
                })
            })
            .boxed(),
            rt::CONSUMER_GROUP_MEMBER_METADATA => {
                let opt = || proptest::option::of(s());
                let classic = proptest::option::of((
                    any::<i32>(),
                    proptest::collection::vec((s(), 0usize..20), 0..3),
                ));
                (
                    (opt(), opt(), s(), s()),
                    (strs(), opt(), any::<i32>(), opt()),
                    classic,
                )
                    .prop_map(
                        |(
                            (instance_id, rack_id, client_id, client_host),
                            (names, regex, rebalance, assignor),
                            classic,
                        )| {
                            GroupValue::ConsumerGroupMemberMetadata(
                                ConsumerGroupMemberMetadataValue {
                                    instance_id,
                                    rack_id,
                                    client_id,
                                    client_host,
                                    subscribed_topic_names: names,
                                    subscribed_topic_regex: regex,
                                    rebalance_timeout_ms: rebalance,
                                    server_assignor: assignor,
                                    classic_member_metadata: classic.map(
                                        |(session_timeout_ms, protocols)| ClassicMemberMetadata {
                                            session_timeout_ms,
                                            supported_protocols: protocols
                                                .into_iter()
                                                .map(|(name, metadata_len)| ClassicProtocol {
                                                    name,
                                                    metadata_len,
                                                })
                                                .collect(),
                                        },
                                    ),
                                },
                            )
                        },
                    )
                    .boxed()
            }
            rt::CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA => any::<(i32, i64)>()
                .prop_map(|(assignment_epoch, assignment_timestamp)| {
                    GroupValue::ConsumerGroupTargetAssignmentMetadata(
                        ConsumerGroupTargetAssignmentMetadataValue {
                            assignment_epoch,
                            assignment_timestamp,
                        },
                    )
                })
                .boxed(),
            rt::CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER => arb_assigned(false)
                .prop_map(|topic_partitions| {
                    GroupValue::ConsumerGroupTargetAssignmentMember(
                        ConsumerGroupTargetAssignmentMemberValue { topic_partitions },
                    )
                })
                .boxed(),
            rt::CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT => (
                any::<(i32, i32, i8)>(),
                arb_assigned(true),
                arb_assigned(true),
            )
                .prop_map(
                    |((member_epoch, previous_member_epoch, state), assigned, pending)| {
                        GroupValue::ConsumerGroupCurrentMemberAssignment(
                            ConsumerGroupCurrentMemberAssignmentValue {
                                member_epoch,
                                previous_member_epoch,
                                state,
                                assigned_partitions: assigned,
                                partitions_pending_revocation: pending,
                            },
                        )
                    },
                )
                .boxed(),
            rt::CONSUMER_GROUP_REGULAR_EXPRESSION => (strs(), any::<(i64, i64)>())
                .prop_map(|(topics, (version, timestamp))| {
                    GroupValue::ConsumerGroupRegularExpression(
                        ConsumerGroupRegularExpressionValue {
                            topics,
                            version,
                            timestamp,
                        },
                    )
                })
                .boxed(),
            _ => Just(GroupValue::NotDecoded { version: 0 }).boxed(),
        }
    }

    fn arb_record() -> impl Strategy<Value = GroupRecord> {
        arb_key().prop_flat_map(|key| {
            let value = proptest::option::of(arb_value(&key));
            (Just(key), value).prop_map(|(key, value)| GroupRecord { key, value })
        })
    }

    proptest! {
        #[test]
        fn records_round_trip(r in arb_record()) {
            let (k, v) = encode_group_record(&r.key, r.value.as_ref());
            let got = decode_group_record(&k, v.as_deref()).unwrap();
            prop_assert_eq!(got, r);
            // Every byte is needed: each strict prefix of the key or the value is cut off.
            for n in 0..k.len() {
                prop_assert!(decode_group_record(&k[..n], v.as_deref()).is_err());
            }
            for n in 0..v.as_ref().map_or(0, Vec::len) {
                let e = decode_group_record(&k, v.as_ref().map(|v| &v[..n])).unwrap_err();
                prop_assert!(is_cut(&e), "{}", e);
            }
        }

        #[test]
        fn arbitrary_input_never_panics(
            key in proptest::collection::vec(any::<u8>(), 0..40),
            value in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..200)),
        ) {
            let _ = decode_group_record(&key, value.as_deref());
        }

        #[test]
        fn arbitrary_bodies_of_known_types_never_panic(
            key in arb_key(),
            version in 0i16..=5,
            body in proptest::collection::vec(any::<u8>(), 0..200),
        ) {
            let (k, _) = encode_group_record(&key, None);
            let mut value = version.to_be_bytes().to_vec();
            value.extend_from_slice(&body);
            let _ = decode_group_record(&k, Some(&value));
        }
    }
}
