//! `partition.metadata` (`version: 0\ntopic_id: <uuid>`, no final newline) and Kafka's UUID text
//! form.
//!
//! Source: Kafka `storage/src/main/java/org/apache/kafka/storage/internals/checkpoint/PartitionMetadataReadBuffer.java`,
//! `PartitionMetadataFile.java`, and `clients/src/main/java/org/apache/kafka/common/Uuid.java`
//! (spec: kafka-on-disk-formats.md §0.1, §2.4).
//!
//! Reader rules reproduced (current trunk reader): each of the first two lines (Java
//! `readLine`) is split once on the regex `:\s+`; the key must be `version` then `topic_id`; the
//! version must be an int ≥ 0 (higher ones accepted for downgrades); the topic id must be a
//! valid [`Uuid`] other than all-zero. Anything after the second line is ignored. The older
//! reader (spec §2.4, Kafka ≤ 4.0) did not check key names and required version 0 exactly; both
//! accept every file Kafka writes.

use std::fmt;

use super::checkpoint::{decode_utf8, is_java_space, java_lines, java_parse_i32, JavaLine};
use super::error::{ErrorKind, FormatError, FormatResult};

/// A Kafka `Uuid`: 16 bytes, most-significant half first. Its text form is URL-safe base64
/// without padding (22 characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Uuid(pub [u8; 16]);

/// In a facts snapshot a `Uuid` is its text form (it is also a map key there).
impl serde::Serialize for Uuid {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_base64())
    }
}

impl<'de> serde::Deserialize<'de> for Uuid {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s: std::borrow::Cow<'de, str> = serde::Deserialize::deserialize(d)?;
        Uuid::from_base64(&s).map_err(serde::de::Error::custom)
    }
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Why a string is not a Kafka UUID (`Uuid.fromString` throws `IllegalArgumentException`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UuidError {
    /// Longer than 24 characters.
    #[error("uuid text longer than 24 characters")]
    TooLong,
    /// Not URL-safe base64, or not decoding to exactly 16 bytes.
    #[error("uuid text is not base64url for 16 bytes")]
    NotBase64,
}

impl Uuid {
    /// The all-zero id (`Uuid.ZERO_UUID`), invalid as a topic id.
    pub const ZERO: Uuid = Uuid([0; 16]);

    /// The id from its two 64-bit halves (as Kafka's `new Uuid(msb, lsb)`).
    pub fn from_halves(most: u64, least: u64) -> Self {
        let mut b = [0u8; 16];
        let (hi, lo) = b.split_at_mut(8);
        hi.copy_from_slice(&most.to_be_bytes());
        lo.copy_from_slice(&least.to_be_bytes());
        Uuid(b)
    }

    /// Whether all bytes are zero.
    pub fn is_zero(&self) -> bool {
        self.0 == [0; 16]
    }

    /// Kafka's `Uuid.toString`: URL-safe base64 without padding, 22 characters.
    pub fn to_base64(&self) -> String {
        let mut out = String::with_capacity(22);
        for chunk in self.0.chunks(3) {
            let mut n = [0u8; 3];
            for (d, s) in n.iter_mut().zip(chunk) {
                *d = *s;
            }
            let v = (u32::from(n[0]) << 16) | (u32::from(n[1]) << 8) | u32::from(n[2]);
            let chars = chunk.len() + 1;
            for i in 0..chars {
                let idx = ((v >> (18 - 6 * i)) & 0x3f) as usize;
                out.push(char::from(B64.get(idx).copied().unwrap_or(b'A')));
            }
        }
        out
    }

    /// Kafka's `Uuid.fromString`: at most 24 characters, Java's URL-safe base64 decoder
    /// (padding optional, so 22 characters or 22 plus `==`), exactly 16 bytes. Like Java's
    /// decoder, the 4 unused bits of the last character are ignored.
    pub fn from_base64(s: &str) -> Result<Self, UuidError> {
        if s.chars().count() > 24 {
            return Err(UuidError::TooLong);
        }
        let body = match s.len() {
            22 => s,
            24 => s.strip_suffix("==").ok_or(UuidError::NotBase64)?,
            _ => return Err(UuidError::NotBase64),
        };
        let mut bits: u32 = 0;
        let mut nbits = 0u32;
        let mut out = [0u8; 16];
        let mut n = 0usize;
        for c in body.bytes() {
            let v = B64
                .iter()
                .position(|&b| b == c)
                .ok_or(UuidError::NotBase64)? as u32;
            bits = (bits << 6) | v;
            nbits += 6;
            if nbits >= 8 {
                nbits -= 8;
                let byte = (bits >> nbits) as u8;
                if let Some(slot) = out.get_mut(n) {
                    *slot = byte;
                }
                n += 1;
                bits &= (1 << nbits) - 1;
            }
        }
        if n != 16 {
            return Err(UuidError::NotBase64);
        }
        Ok(Uuid(out))
    }
}

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_base64())
    }
}

/// The version `PartitionMetadataFile` writes.
pub const PARTITION_METADATA_VERSION: i32 = 0;

/// A parsed `partition.metadata`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PartitionMetadata {
    /// The `version` value (≥ 0; Kafka writes 0).
    pub version: i32,
    /// The topic id (never all-zero).
    pub topic_id: Uuid,
    /// Whether the bytes are exactly what Kafka writes for this id
    /// ([`encode_partition_metadata`]); false for accepted variants (extra spaces, `\r\n`, a
    /// final newline, trailing lines, padded uuid, higher version).
    pub canonical: bool,
}

/// Parse a `partition.metadata` file. Errors are [`ErrorKind::BadText`] naming the line, at the
/// byte offset of the line (or of the end of input for a missing line), or
/// [`ErrorKind::UnsupportedVersion`] for a negative version.
pub fn parse_partition_metadata(bytes: &[u8]) -> FormatResult<PartitionMetadata> {
    let text = decode_utf8(bytes)?;
    let mut lines = java_lines(text);
    let end = bytes.len() as u64;

    let l1 = lines.next().ok_or_else(|| missing(1, end))?;
    let value = split_key(&l1, "version")?;
    let version = java_parse_i32(value).ok_or_else(|| l1.error("bad version"))?;
    if version < PARTITION_METADATA_VERSION {
        return Err(FormatError::new(
            ErrorKind::UnsupportedVersion {
                what: "partition.metadata",
                version: i64::from(version),
            },
            l1.offset,
        ));
    }

    let l2 = lines.next().ok_or_else(|| missing(2, end))?;
    let value = split_key(&l2, "topic_id")?;
    let topic_id = Uuid::from_base64(value).map_err(|e| l2.error(&e.to_string()))?;
    if topic_id.is_zero() {
        return Err(l2.error("all-zero topic id"));
    }
    let canonical = bytes == encode_partition_metadata(topic_id).as_slice();
    Ok(PartitionMetadata {
        version,
        topic_id,
        canonical,
    })
}

/// The exact bytes Kafka writes: `version: 0\ntopic_id: <22 chars>`, no final newline.
pub fn encode_partition_metadata(topic_id: Uuid) -> Vec<u8> {
    format!("version: {PARTITION_METADATA_VERSION}\ntopic_id: {topic_id}").into_bytes()
}

fn missing(line: usize, end: u64) -> FormatError {
    FormatError::new(ErrorKind::BadText(format!("line {line}: missing")), end)
}

/// Java's `line.split(":\\s+", 2)` then the key check: the value after the first `:` that is
/// followed by whitespace.
fn split_key<'a>(line: &JavaLine<'a>, key: &str) -> FormatResult<&'a str> {
    let text = line.text;
    let mut search = 0usize;
    let found = loop {
        let Some(rel) = text.get(search..).and_then(|s| s.find(':')) else {
            break None;
        };
        let colon = search + rel;
        let after = text.get(colon + 1..).unwrap_or("");
        let value = after.trim_start_matches(is_java_space);
        if value.len() < after.len() {
            break Some((text.get(..colon).unwrap_or(""), value));
        }
        search = colon + 1;
    };
    match found {
        Some((k, v)) if k == key => Ok(v),
        _ => Err(line.error(&format!("expected `{key}: <value>`"))),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a panic is the failure report
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn uuid_known_values() {
        assert_eq!(
            Uuid::from_halves(0, 1).to_base64(),
            "AAAAAAAAAAAAAAAAAAAAAQ"
        );
        assert_eq!(
            Uuid::from_halves(0, 2).to_base64(),
            "AAAAAAAAAAAAAAAAAAAAAg"
        );
        assert_eq!(Uuid::ZERO.to_base64(), "AAAAAAAAAAAAAAAAAAAAAA");
        assert_eq!(
            Uuid::from_base64("AAAAAAAAAAAAAAAAAAAAAQ"),
            Ok(Uuid::from_halves(0, 1))
        );
        assert_eq!(
            Uuid::from_base64("AAAAAAAAAAAAAAAAAAAAAQ=="),
            Ok(Uuid::from_halves(0, 1))
        );
        let all = Uuid([0xff; 16]);
        assert_eq!(all.to_base64(), "_____________________w");
        assert_eq!(Uuid::from_base64("_____________________w"), Ok(all));
    }

    #[test]
    fn uuid_rejects() {
        assert_eq!(
            Uuid::from_base64("AAAAAAAAAAAAAAAAAAAAAAAAA"),
            Err(UuidError::TooLong)
        );
        for bad in [
            "",
            "AAAA",
            "AAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAQ=",
            "AAAAAAAAAAAAAAAAAAAA+Q",
            "AAAAAAAAAAAAAAAAAAAA/Q",
            "AAAAAAAAAAAAAAAAAAAAAAAA",
        ] {
            assert!(Uuid::from_base64(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn parses_what_kafka_writes() {
        let id = Uuid::from_halves(0x1234_5678_9abc_def0, 0x0fed_cba9_8765_4321);
        let bytes = encode_partition_metadata(id);
        assert_eq!(bytes, format!("version: 0\ntopic_id: {id}").into_bytes());
        let m = parse_partition_metadata(&bytes).unwrap();
        assert_eq!(
            m,
            PartitionMetadata {
                version: 0,
                topic_id: id,
                canonical: true
            }
        );
    }

    #[test]
    fn accepted_variants_are_not_canonical() {
        for text in [
            "version:  0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ",
            "version: 0\r\ntopic_id:\tAAAAAAAAAAAAAAAAAAAAAQ\n",
            "version: 3\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ\nextra",
            "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ==",
        ] {
            let m = parse_partition_metadata(text.as_bytes()).unwrap();
            assert!(!m.canonical, "{text:?}");
            assert_eq!(m.topic_id, Uuid::from_halves(0, 1));
        }
    }

    #[test]
    fn rejects_what_kafka_rejects() {
        let cases: [(&str, u64); 9] = [
            ("", 0),
            ("version: 0", 10),
            ("version:0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ", 0),
            ("Version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ", 0),
            ("version: x\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ", 0),
            ("version: 0 \ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ", 0),
            ("version: 0\ntopic: AAAAAAAAAAAAAAAAAAAAAQ", 11),
            ("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA", 11),
            ("version: 0\ntopic_id: not-a-uuid", 11),
        ];
        for (text, offset) in cases {
            let e = parse_partition_metadata(text.as_bytes()).unwrap_err();
            assert_eq!(e.offset, offset, "{text:?}: {e}");
        }
        let e =
            parse_partition_metadata(b"version: -1\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ").unwrap_err();
        assert!(matches!(
            e.kind,
            ErrorKind::UnsupportedVersion { version: -1, .. }
        ));
        assert!(parse_partition_metadata(b"version: 0\ntopic_id: \xff").is_err());
    }

    #[test]
    fn truncated_at_every_byte_never_panics() {
        let bytes = encode_partition_metadata(Uuid::from_halves(5, 6));
        for n in 0..bytes.len() {
            assert!(parse_partition_metadata(&bytes[..n]).is_err());
        }
    }

    proptest! {
        #[test]
        fn uuid_round_trip(b in any::<[u8; 16]>()) {
            let u = Uuid(b);
            let s = u.to_base64();
            prop_assert_eq!(s.len(), 22);
            prop_assert_eq!(Uuid::from_base64(&s), Ok(u));
            if !u.is_zero() {
                let m = parse_partition_metadata(&encode_partition_metadata(u)).unwrap();
                prop_assert!(m.canonical);
                prop_assert_eq!(m.topic_id, u);
            }
        }

        #[test]
        fn arbitrary_text_never_panics(s in "\\PC*") {
            let _ = parse_partition_metadata(s.as_bytes());
            let _ = Uuid::from_base64(&s);
        }
    }
}
