//! The one error type of the pure parsers: what is wrong, and at which byte.
//!
//! Parsers report offsets relative to the slice they were given; callers that parse a slice cut
//! out of a larger file rebase them with [`FormatError::at_base`] so findings name the byte
//! position in the file. Checks turn [`ErrorKind`]s into finding codes, so kinds carry data
//! rather than prose.

use std::fmt;

/// A parse failure at a byte position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
#[error("{kind} at byte {offset}")]
pub struct FormatError {
    /// What is wrong.
    pub kind: ErrorKind,
    /// Byte position of the problem, from the start of the input (or of the file once rebased).
    pub offset: u64,
}

impl FormatError {
    /// A new error of `kind` at byte `offset`.
    pub fn new(kind: ErrorKind, offset: u64) -> Self {
        Self { kind, offset }
    }

    /// The same error with its offset moved by `base` (for slices cut out of a file).
    pub fn at_base(mut self, base: u64) -> Self {
        self.offset = self.offset.saturating_add(base);
        self
    }
}

/// What a parser found wrong. Messages are lowercase and name no path: the caller adds context.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ended before a field or a length-delimited section was complete.
    Truncated {
        /// Bytes the field needed.
        needed: u64,
        /// Bytes that were left.
        available: u64,
    },
    /// A record batch or message with a magic byte we do not know.
    BadMagic(i8),
    /// A stored checksum that does not match the bytes it covers.
    CrcMismatch {
        /// Checksum stored in the data.
        stored: u32,
        /// Checksum computed over the covered bytes.
        computed: u32,
    },
    /// A length or count field outside the range the format allows.
    LengthOutOfRange {
        /// Which field (spec name).
        #[serde(deserialize_with = "static_str")]
        field: SpecName,
        /// The value read.
        value: i64,
        /// Smallest allowed value.
        min: i64,
        /// Largest allowed value.
        max: i64,
    },
    /// Offsets that should increase did not.
    NonMonotonicOffset {
        /// The earlier offset.
        prev: i64,
        /// The later offset that is not greater.
        next: i64,
    },
    /// Bytes left over after the structure ended where the format says nothing follows.
    TrailingBytes(u64),
    /// A varint or varlong longer than its type allows.
    VarintTooLong,
    /// A version field with a value this parser does not know.
    UnsupportedVersion {
        /// Which structure.
        #[serde(deserialize_with = "static_str")]
        what: SpecName,
        /// The version read.
        version: i64,
    },
    /// A text file (checkpoint, properties, JSON) that does not follow its grammar.
    BadText(String),
    /// A compressed records section that does not decompress.
    Compression(String),
    /// Any other field whose value breaks the format's rules.
    InvalidField {
        /// Which field (spec name).
        #[serde(deserialize_with = "static_str")]
        field: SpecName,
        /// Why it is invalid.
        reason: String,
    },
}

/// A field or structure name as the spec spells it (an alias, so that serde's derive does not
/// take the `'static` for a borrow from its input).
pub type SpecName = &'static str;

/// A field or structure name read back from a facts snapshot (`model::snapshot`). The parsers
/// name them with literals; a snapshot's are few (one per problem it carries) and live as long
/// as the run, so they are leaked rather than copied into every error type as `String`s.
fn static_str<'de, D: serde::Deserializer<'de>>(d: D) -> Result<SpecName, D::Error> {
    let s: String = serde::Deserialize::deserialize(d)?;
    Ok(Box::leak(s.into_boxed_str()))
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Truncated { needed, available } => {
                write!(f, "truncated: needed {needed} bytes, {available} left")
            }
            ErrorKind::BadMagic(m) => write!(f, "unknown magic byte {m}"),
            ErrorKind::CrcMismatch { stored, computed } => {
                write!(
                    f,
                    "crc mismatch: stored 0x{stored:08x}, computed 0x{computed:08x}"
                )
            }
            ErrorKind::LengthOutOfRange {
                field,
                value,
                min,
                max,
            } => {
                write!(f, "{field} {value} outside {min}..={max}")
            }
            ErrorKind::NonMonotonicOffset { prev, next } => {
                write!(f, "offset {next} does not increase after {prev}")
            }
            ErrorKind::TrailingBytes(n) => write!(f, "{n} trailing bytes"),
            ErrorKind::VarintTooLong => write!(f, "varint too long"),
            ErrorKind::UnsupportedVersion { what, version } => {
                write!(f, "unsupported {what} version {version}")
            }
            ErrorKind::BadText(why) => write!(f, "malformed text: {why}"),
            ErrorKind::Compression(why) => write!(f, "decompression failed: {why}"),
            ErrorKind::InvalidField { field, reason } => write!(f, "invalid {field}: {reason}"),
        }
    }
}

/// Result of a parser.
pub type FormatResult<T> = Result<T, FormatError>;
