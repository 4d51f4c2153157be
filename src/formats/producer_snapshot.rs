//! Producer-state snapshot `<offset>.snapshot`.
//!
//! Source: Kafka `storage/src/main/java/org/apache/kafka/storage/internals/log/ProducerStateManager.java`
//! (`readSnapshot`, `writeSnapshot`) and the generated message
//! `storage/src/main/resources/message/ProducerSnapshot.json` (spec: kafka-on-disk-formats.md §5).
//!
//! Layout: `version i16` (only 1), `crc u32` = CRC-32C of bytes `[6, EOF)`, then a classic
//! non-nullable array (`i32` count) of 46-byte entries. Kafka rejects (and deletes, then falls
//! back to an older snapshot) a file with another version, a structure that does not parse, or a
//! CRC mismatch. Kafka does not check for bytes after the array; since the CRC runs to EOF,
//! stale trailing bytes (the writer does not truncate) almost always show up as a CRC mismatch.

use super::bytes::Cursor;
use super::error::{ErrorKind, FormatError, FormatResult};

/// The only version Kafka reads and writes.
pub const SNAPSHOT_VERSION: i16 = 1;

/// Bytes before the entries array's count (`version` + `crc`); the CRC covers from here to EOF.
pub const CRC_START: usize = 6;

/// Size of one producer entry.
pub const ENTRY_SIZE: usize = 46;

/// One producer's state (`ProducerSnapshot.ProducerEntry`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProducerEntry {
    /// Producer id.
    pub producer_id: i64,
    /// Producer epoch.
    pub epoch: i16,
    /// Last sequence written.
    pub last_sequence: i32,
    /// Last offset written; ≥ 0 means the entry has last-batch metadata, else none.
    pub last_offset: i64,
    /// `lastSeq - firstSeq` of the last batch.
    pub offset_delta: i32,
    /// Max timestamp of the last batch (producer expiry is measured from it).
    pub timestamp: i64,
    /// Epoch of the last transaction coordinator that wrote a marker.
    pub coordinator_epoch: i32,
    /// First offset of the open transaction, -1 (any negative) when there is none.
    pub current_txn_first_offset: i64,
}

impl ProducerEntry {
    /// The open transaction's first offset, as Kafka reads it (`>= 0`).
    pub fn open_txn_first_offset(&self) -> Option<i64> {
        (self.current_txn_first_offset >= 0).then_some(self.current_txn_first_offset)
    }
}

/// A parsed producer snapshot.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProducerSnapshot {
    /// The version (always [`SNAPSHOT_VERSION`] once parsed).
    pub version: i16,
    /// The stored CRC.
    pub stored_crc: u32,
    /// CRC-32C computed over bytes `[6, EOF)`.
    pub computed_crc: u32,
    /// The producer entries, in file order.
    pub entries: Vec<ProducerEntry>,
    /// Bytes after the entries array (Kafka ignores them; they are inside the CRC).
    pub trailing_bytes: u64,
}

impl ProducerSnapshot {
    /// Whether the stored CRC matches.
    pub fn crc_ok(&self) -> bool {
        self.stored_crc == self.computed_crc
    }
}

/// Parse and verify a snapshot as Kafka's loader does: version 1, a well-formed entries array,
/// and a matching CRC ([`ErrorKind::CrcMismatch`] at byte 2 otherwise).
pub fn parse_producer_snapshot(bytes: &[u8]) -> FormatResult<ProducerSnapshot> {
    let snap = parse_producer_snapshot_unverified(bytes)?;
    if !snap.crc_ok() {
        return Err(FormatError::new(
            ErrorKind::CrcMismatch {
                stored: snap.stored_crc,
                computed: snap.computed_crc,
            },
            2,
        ));
    }
    Ok(snap)
}

/// Parse a snapshot without rejecting a CRC mismatch (for dumps of a corrupt file); version and
/// structure are still checked. Errors: [`ErrorKind::Truncated`], [`ErrorKind::UnsupportedVersion`]
/// (byte 0), [`ErrorKind::LengthOutOfRange`] for a negative count or one the remaining bytes cannot
/// hold (byte 6).
pub fn parse_producer_snapshot_unverified(bytes: &[u8]) -> FormatResult<ProducerSnapshot> {
    let mut c = Cursor::new(bytes);
    let version = c.i16()?;
    if version != SNAPSHOT_VERSION {
        return Err(FormatError::new(
            ErrorKind::UnsupportedVersion {
                what: "producer snapshot",
                version: i64::from(version),
            },
            0,
        ));
    }
    let stored_crc = c.u32()?;
    let computed_crc = crc32c::crc32c(c.rest());
    let count_at = c.position();
    let count = c.i32()?;
    let max = c.remaining() / ENTRY_SIZE;
    let n = usize::try_from(count)
        .ok()
        .filter(|&n| n <= max)
        .ok_or_else(|| {
            FormatError::new(
                ErrorKind::LengthOutOfRange {
                    field: "producer entry count",
                    value: i64::from(count),
                    min: 0,
                    max: max as i64,
                },
                count_at as u64,
            )
        })?;
    let mut entries = Vec::with_capacity(n);
    for _ in 0..n {
        entries.push(ProducerEntry {
            producer_id: c.i64()?,
            epoch: c.i16()?,
            last_sequence: c.i32()?,
            last_offset: c.i64()?,
            offset_delta: c.i32()?,
            timestamp: c.i64()?,
            coordinator_epoch: c.i32()?,
            current_txn_first_offset: c.i64()?,
        });
    }
    Ok(ProducerSnapshot {
        version,
        stored_crc,
        computed_crc,
        entries,
        trailing_bytes: c.remaining() as u64,
    })
}

/// Encode a snapshot exactly as Kafka's `writeSnapshot` does (version 1, CRC filled in).
pub fn encode_producer_snapshot(entries: &[ProducerEntry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.len().saturating_mul(ENTRY_SIZE).saturating_add(10));
    out.extend_from_slice(&SNAPSHOT_VERSION.to_be_bytes());
    out.extend_from_slice(&[0; 4]);
    // A Java array cannot hold more than i32::MAX elements; saturate rather than wrap.
    let count = i32::try_from(entries.len()).unwrap_or(i32::MAX);
    out.extend_from_slice(&count.to_be_bytes());
    for e in entries {
        out.extend_from_slice(&e.producer_id.to_be_bytes());
        out.extend_from_slice(&e.epoch.to_be_bytes());
        out.extend_from_slice(&e.last_sequence.to_be_bytes());
        out.extend_from_slice(&e.last_offset.to_be_bytes());
        out.extend_from_slice(&e.offset_delta.to_be_bytes());
        out.extend_from_slice(&e.timestamp.to_be_bytes());
        out.extend_from_slice(&e.coordinator_epoch.to_be_bytes());
        out.extend_from_slice(&e.current_txn_first_offset.to_be_bytes());
    }
    let crc = crc32c::crc32c(out.get(CRC_START..).unwrap_or(&[]));
    if let Some(slot) = out.get_mut(2..CRC_START) {
        slot.copy_from_slice(&crc.to_be_bytes());
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a panic is the failure report
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn entry() -> ProducerEntry {
        ProducerEntry {
            producer_id: 1000,
            epoch: 3,
            last_sequence: 41,
            last_offset: 500,
            offset_delta: 9,
            timestamp: 1_700_000_000_000,
            coordinator_epoch: 2,
            current_txn_first_offset: -1,
        }
    }

    #[test]
    fn hand_built_bytes() {
        let mut b = vec![0, 1, 0, 0, 0, 0, 0, 0, 0, 1];
        b.extend_from_slice(&1000i64.to_be_bytes());
        b.extend_from_slice(&3i16.to_be_bytes());
        b.extend_from_slice(&41i32.to_be_bytes());
        b.extend_from_slice(&500i64.to_be_bytes());
        b.extend_from_slice(&9i32.to_be_bytes());
        b.extend_from_slice(&1_700_000_000_000i64.to_be_bytes());
        b.extend_from_slice(&2i32.to_be_bytes());
        b.extend_from_slice(&(-1i64).to_be_bytes());
        let crc = crc32c::crc32c(&b[6..]);
        b[2..6].copy_from_slice(&crc.to_be_bytes());
        assert_eq!(b.len(), 10 + 46);
        assert_eq!(b, encode_producer_snapshot(&[entry()]));
        let s = parse_producer_snapshot(&b).unwrap();
        assert_eq!(s.entries, vec![entry()]);
        assert_eq!(s.entries[0].open_txn_first_offset(), None);
        assert_eq!(s.trailing_bytes, 0);
    }

    #[test]
    fn empty_snapshot() {
        let b = encode_producer_snapshot(&[]);
        assert_eq!(b.len(), 10);
        assert!(parse_producer_snapshot(&b).unwrap().entries.is_empty());
    }

    #[test]
    fn crc_mismatch() {
        let mut b = encode_producer_snapshot(&[entry()]);
        b[20] ^= 1;
        let e = parse_producer_snapshot(&b).unwrap_err();
        assert_eq!(e.offset, 2);
        assert!(matches!(e.kind, ErrorKind::CrcMismatch { .. }));
        let s = parse_producer_snapshot_unverified(&b).unwrap();
        assert!(!s.crc_ok());
    }

    #[test]
    fn stale_trailing_bytes_fail_the_crc() {
        let mut b = encode_producer_snapshot(&[entry()]);
        b.extend_from_slice(&[7; 46]);
        assert!(matches!(
            parse_producer_snapshot(&b).unwrap_err().kind,
            ErrorKind::CrcMismatch { .. }
        ));
        assert_eq!(
            parse_producer_snapshot_unverified(&b)
                .unwrap()
                .trailing_bytes,
            46
        );
    }

    #[test]
    fn bad_version_and_counts() {
        let mut b = encode_producer_snapshot(&[entry()]);
        b[1] = 2;
        assert!(matches!(
            parse_producer_snapshot(&b).unwrap_err().kind,
            ErrorKind::UnsupportedVersion { version: 2, .. }
        ));
        let mut b = encode_producer_snapshot(&[]);
        b[6..10].copy_from_slice(&(-1i32).to_be_bytes());
        let e = parse_producer_snapshot_unverified(&b).unwrap_err();
        assert_eq!(e.offset, 6);
        b[6..10].copy_from_slice(&i32::MAX.to_be_bytes());
        assert!(matches!(
            parse_producer_snapshot_unverified(&b).unwrap_err().kind,
            ErrorKind::LengthOutOfRange {
                value: 2147483647,
                max: 0,
                ..
            }
        ));
    }

    #[test]
    fn truncated_at_every_byte_never_panics() {
        let b = encode_producer_snapshot(&[entry(), entry()]);
        for n in 0..b.len() {
            assert!(parse_producer_snapshot(&b[..n]).is_err(), "len {n}");
        }
    }

    proptest! {
        #[test]
        fn round_trip(raw in proptest::collection::vec(
            any::<(i64, i16, i32, i64, i32, i64, i32, i64)>(), 0..20)) {
            let entries: Vec<_> = raw.into_iter().map(|(a, b, c, d, e, f, g, h)| ProducerEntry {
                producer_id: a, epoch: b, last_sequence: c, last_offset: d, offset_delta: e,
                timestamp: f, coordinator_epoch: g, current_txn_first_offset: h }).collect();
            let s = parse_producer_snapshot(&encode_producer_snapshot(&entries)).unwrap();
            prop_assert_eq!(s.entries, entries);
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = parse_producer_snapshot(&bytes);
        }
    }
}
