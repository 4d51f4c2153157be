//! Control records: the records of a batch with the control attribute (bit 5) set.
//!
//! Kafka sources: `clients/src/main/java/org/apache/kafka/common/record/ControlRecordType.java`
//! (key: i16 version, i16 type; a negative version is corruption, a higher one is read as v0)
//! and `EndTransactionMarker.java` (ABORT/COMMIT value: i16 version, i32 coordinatorEpoch);
//! spec §3.5. The KRaft control values (leader change, snapshot header/footer, kraft.version,
//! voters) are generated messages that this module identifies but does not decode.

use super::bytes::Cursor;
use super::error::{ErrorKind, FormatError, FormatResult};

/// The type id in a control record's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ControlKind {
    /// 0: transaction abort marker.
    Abort,
    /// 1: transaction commit marker.
    Commit,
    /// 2: KRaft `LeaderChangeMessage`.
    LeaderChange,
    /// 3: KRaft `SnapshotHeaderRecord`.
    SnapshotHeader,
    /// 4: KRaft `SnapshotFooterRecord`.
    SnapshotFooter,
    /// 5: KRaft `KRaftVersionRecord`.
    KRaftVersion,
    /// 6: KRaft `VotersRecord` (`KRAFT_VOTERS`).
    VotersRecord,
    /// Any other type id; Kafka readers ignore these.
    Unknown(i16),
}

impl ControlKind {
    /// The kind for a type id (`ControlRecordType.fromTypeId`).
    pub fn from_type_id(id: i16) -> Self {
        match id {
            0 => ControlKind::Abort,
            1 => ControlKind::Commit,
            2 => ControlKind::LeaderChange,
            3 => ControlKind::SnapshotHeader,
            4 => ControlKind::SnapshotFooter,
            5 => ControlKind::KRaftVersion,
            6 => ControlKind::VotersRecord,
            other => ControlKind::Unknown(other),
        }
    }

    /// The type id stored in the key.
    pub fn type_id(self) -> i16 {
        match self {
            ControlKind::Abort => 0,
            ControlKind::Commit => 1,
            ControlKind::LeaderChange => 2,
            ControlKind::SnapshotHeader => 3,
            ControlKind::SnapshotFooter => 4,
            ControlKind::KRaftVersion => 5,
            ControlKind::VotersRecord => 6,
            ControlKind::Unknown(id) => id,
        }
    }

    /// Whether this is a transaction marker (ABORT or COMMIT).
    pub fn is_transaction_marker(self) -> bool {
        matches!(self, ControlKind::Abort | ControlKind::Commit)
    }
}

/// A decoded control record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ControlRecord {
    /// The type from the key.
    pub kind: ControlKind,
    /// The key's version (0 today; higher versions are read as 0, as Kafka does).
    pub version: i16,
    /// For ABORT/COMMIT markers, the transaction coordinator's epoch from the value.
    pub coordinator_epoch: Option<i32>,
}

/// Decode a control record from its key and value.
///
/// The key must hold at least 4 bytes with a non-negative version. For ABORT and COMMIT the
/// value must hold at least 6 bytes (i16 version ≥ 0, i32 coordinator epoch). Other kinds keep
/// their value undecoded. Errors carry offsets relative to the start of the key (or of the value
/// for value errors, which name the field `control_value`); callers rebase them.
pub fn parse_control_record(
    key: Option<&[u8]>,
    value: Option<&[u8]>,
) -> FormatResult<ControlRecord> {
    let key = key.ok_or_else(|| invalid("control_key", "control record has a null key"))?;
    let mut c = Cursor::new(key);
    let version = c.i16()?;
    if version < 0 {
        return Err(FormatError::new(
            ErrorKind::UnsupportedVersion {
                what: "control record key",
                version: i64::from(version),
            },
            0,
        ));
    }
    let kind = ControlKind::from_type_id(c.i16()?);
    let coordinator_epoch = if kind.is_transaction_marker() {
        let value =
            value.ok_or_else(|| invalid("control_value", "transaction marker has a null value"))?;
        let mut v = Cursor::new(value);
        let marker_version = v.i16()?;
        if marker_version < 0 {
            return Err(FormatError::new(
                ErrorKind::UnsupportedVersion {
                    what: "end transaction marker",
                    version: i64::from(marker_version),
                },
                0,
            ));
        }
        Some(v.i32()?)
    } else {
        None
    };
    Ok(ControlRecord {
        kind,
        version,
        coordinator_epoch,
    })
}

/// A KRaft `SnapshotHeaderRecord` (`raft/src/main/resources/common/message/
/// SnapshotHeaderRecord.json`, flexible from version 0): the first record of every metadata
/// snapshot. `KafkaRaftLog.cleanSnapshotsRetentionMs` ages a snapshot by its
/// `LastContainedLogTimestamp` (`Snapshots.lastContainedLogTimestamp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotHeader {
    /// The record's `Version` field.
    pub version: i16,
    /// The append time of the last log record the snapshot contains (epoch ms).
    pub last_contained_log_timestamp: i64,
}

/// Decode a snapshot header control record's value: `Version i16 | LastContainedLogTimestamp
/// i64 | tagged fields`. Offsets in errors are relative to the value.
pub fn parse_snapshot_header(value: &[u8]) -> FormatResult<SnapshotHeader> {
    let mut c = Cursor::new(value);
    let version = c.i16()?;
    let last_contained_log_timestamp = c.i64()?;
    super::message_wire::FLEXIBLE.skip_tags(&mut c)?;
    super::message_wire::finish(&c)?;
    Ok(SnapshotHeader {
        version,
        last_contained_log_timestamp,
    })
}

fn invalid(field: &'static str, reason: &str) -> FormatError {
    FormatError::new(
        ErrorKind::InvalidField {
            field,
            reason: reason.to_owned(),
        },
        0,
    )
}

/// Test-only encoders for control keys and values.
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod encode {
    use super::*;

    /// The key Kafka writes: version 0, then the type id.
    pub(crate) fn key(kind: ControlKind) -> Vec<u8> {
        let mut k = 0i16.to_be_bytes().to_vec();
        k.extend_from_slice(&kind.type_id().to_be_bytes());
        k
    }

    /// An end-transaction marker value: version 0, then the coordinator epoch.
    pub(crate) fn marker_value(coordinator_epoch: i32) -> Vec<u8> {
        let mut v = 0i16.to_be_bytes().to_vec();
        v.extend_from_slice(&coordinator_epoch.to_be_bytes());
        v
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::encode::*;
    use super::*;

    #[test]
    fn snapshot_header_as_kafka_4_4_writes_it() {
        // The value of the header record of fixtures/internal-topics' snapshot
        // 00000000000000000000-0000000000.checkpoint.
        let v = [0, 0, 0, 0, 0x01, 0xa2, 0x36, 0x0a, 0x27, 0x3c, 0];
        assert_eq!(
            parse_snapshot_header(&v).unwrap(),
            SnapshotHeader {
                version: 0,
                last_contained_log_timestamp: 0x01a2_360a_273c
            }
        );
        for cut in 0..v.len() {
            assert!(parse_snapshot_header(&v[..cut]).is_err());
        }
        let mut long = v.to_vec();
        long.push(0);
        assert!(parse_snapshot_header(&long).is_err());
    }

    #[test]
    fn commit_and_abort_markers() {
        for kind in [ControlKind::Abort, ControlKind::Commit] {
            let r = parse_control_record(Some(&key(kind)), Some(&marker_value(17))).unwrap();
            assert_eq!(
                r,
                ControlRecord {
                    kind,
                    version: 0,
                    coordinator_epoch: Some(17)
                }
            );
        }
    }

    #[test]
    fn kraft_kinds_and_unknown() {
        for id in 2..=8i16 {
            let kind = ControlKind::from_type_id(id);
            assert_eq!(kind.type_id(), id);
            let r = parse_control_record(Some(&key(kind)), None).unwrap();
            assert_eq!(r.coordinator_epoch, None);
        }
        assert_eq!(ControlKind::from_type_id(7), ControlKind::Unknown(7));
    }

    #[test]
    fn higher_key_version_is_accepted_negative_is_not() {
        let mut k = key(ControlKind::Commit);
        k[1] = 3;
        let r = parse_control_record(Some(&k), Some(&marker_value(1))).unwrap();
        assert_eq!(r.version, 3);
        k[0] = 0xff;
        let e = parse_control_record(Some(&k), Some(&marker_value(1))).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::UnsupportedVersion { .. }));
    }

    #[test]
    fn short_or_null_key_and_value_are_errors() {
        let k = key(ControlKind::Abort);
        let v = marker_value(5);
        for n in 0..k.len() {
            assert!(parse_control_record(Some(&k[..n]), Some(&v)).is_err());
        }
        for n in 0..v.len() {
            assert!(parse_control_record(Some(&k), Some(&v[..n])).is_err());
        }
        assert!(parse_control_record(None, Some(&v)).is_err());
        assert!(parse_control_record(Some(&k), None).is_err());
    }
}
