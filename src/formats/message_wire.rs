//! Field encodings of Kafka's generated messages, classic and flexible, for the coordinator
//! records of `__consumer_offsets` ([`super::group_record`]) and `__transaction_state`
//! ([`super::txn_state_record`]).
//!
//! Kafka sources: `generator/src/main/java/org/apache/kafka/message/MessageDataGenerator.java`
//! (how each field type is read and written, tagged sections, nullable structs),
//! `clients/.../common/protocol/ByteBufferAccessor.java` and `Readable.java`; spec §0.1.
//!
//! ```text
//! classic (non-flexible) versions            flexible versions
//! string   i16 length (-1 null) | utf-8      uvarint length+1 (0 null) | utf-8
//! bytes    i32 length (-1 null) | bytes      uvarint length+1 (0 null) | bytes
//! array    i32 count  (-1 null) | elements   uvarint count+1  (0 null) | elements
//! struct   fields                            fields | tagged section
//! tagged section (flexible only): uvarint count | (uvarint tag | uvarint size | size bytes)*
//! ```
//!
//! Rules shared by both decoders (the same as `metadata_record`'s): every length and count is
//! checked against the bytes left before anything is allocated, with each element assumed to
//! take at least its smallest encoding; strings must be UTF-8 ([`ErrorKind::InvalidField`],
//! where Kafka would decode replacement characters); a null in a non-nullable field is an
//! [`ErrorKind::InvalidField`] (Kafka throws there too); a known tagged field must fill exactly
//! its declared size; unknown tags are skipped, as Kafka does.
//!
//! `metadata_record` reads its (always flexible) fields with [`FLEXIBLE`] too.

use super::bytes::Cursor;
use super::error::{ErrorKind, FormatError, FormatResult};
use super::partition_metadata::Uuid;

/// Whether a message version uses the flexible encodings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Wire {
    /// Compact lengths and tagged sections (the version is in the schema's `flexibleVersions`).
    pub flexible: bool,
}

/// The classic encodings (keys, and values below their first flexible version).
pub(crate) const CLASSIC: Wire = Wire { flexible: false };
/// The flexible encodings.
pub(crate) const FLEXIBLE: Wire = Wire { flexible: true };

pub(crate) fn invalid(field: &'static str, reason: impl Into<String>, at: usize) -> FormatError {
    FormatError::new(
        ErrorKind::InvalidField {
            field,
            reason: reason.into(),
        },
        at as u64,
    )
}

fn null_in_required(field: &'static str, at: usize) -> FormatError {
    invalid(field, "null in a non-nullable field", at)
}

/// [`ErrorKind::TrailingBytes`] unless every byte was read (Kafka itself does not check).
pub(crate) fn finish(c: &Cursor<'_>) -> FormatResult<()> {
    if c.is_empty() {
        Ok(())
    } else {
        Err(c.error(ErrorKind::TrailingBytes(c.remaining() as u64)))
    }
}

pub(crate) fn uuid(c: &mut Cursor<'_>) -> FormatResult<Uuid> {
    Ok(Uuid(c.array::<16>()?))
}

/// A length or count field: `Ok(None)` for null, else the length, checked to need at most the
/// bytes left when each element takes at least `min_element_size` bytes.
fn checked_len(
    c: &Cursor<'_>,
    field: &'static str,
    raw: i64,
    min_element_size: usize,
    at: usize,
) -> FormatResult<Option<usize>> {
    if raw < 0 {
        // Classic encodings use -1 for null; Kafka reads any negative length as null.
        return Ok(None);
    }
    let len = usize::try_from(raw).unwrap_or(usize::MAX);
    if len.saturating_mul(min_element_size) > c.remaining() {
        return Err(FormatError::new(
            ErrorKind::LengthOutOfRange {
                field,
                value: raw,
                min: -1,
                max: (c.remaining() / min_element_size.max(1)) as i64,
            },
            at as u64,
        ));
    }
    Ok(Some(len))
}

impl Wire {
    /// The length prefix of a string, bytes or array field: i16 (strings) or i32 (bytes,
    /// arrays) in classic versions, `uvarint(len + 1)` in flexible ones.
    fn len(
        self,
        c: &mut Cursor<'_>,
        field: &'static str,
        classic_i16: bool,
        min_element_size: usize,
    ) -> FormatResult<Option<usize>> {
        let at = c.position();
        let raw = if self.flexible {
            i64::from(c.unsigned_varint()?) - 1
        } else if classic_i16 {
            i64::from(c.i16()?)
        } else {
            i64::from(c.i32()?)
        };
        checked_len(c, field, raw, min_element_size, at)
    }

    /// A nullable string.
    pub fn nullable_string(
        self,
        c: &mut Cursor<'_>,
        field: &'static str,
    ) -> FormatResult<Option<String>> {
        // Not bounded up front: `take` fails with `Truncated` before anything is copied.
        let Some(len) = self.len(c, field, true, 0)? else {
            return Ok(None);
        };
        let at = c.position();
        let bytes = c.take(len)?;
        match std::str::from_utf8(bytes) {
            Ok(s) => Ok(Some(s.to_owned())),
            Err(e) => Err(invalid(field, format!("not utf-8: {e}"), at)),
        }
    }

    /// A non-nullable string.
    pub fn string(self, c: &mut Cursor<'_>, field: &'static str) -> FormatResult<String> {
        let at = c.position();
        self.nullable_string(c, field)?
            .ok_or_else(|| null_in_required(field, at))
    }

    /// A non-nullable bytes field, skipped: only its length is returned.
    pub fn bytes_len(self, c: &mut Cursor<'_>, field: &'static str) -> FormatResult<usize> {
        let at = c.position();
        let len = self
            .len(c, field, false, 0)?
            .ok_or_else(|| null_in_required(field, at))?;
        c.skip(len)?;
        Ok(len)
    }

    /// The count of a nullable array whose elements take at least `min_element_size` bytes.
    pub fn array_len(
        self,
        c: &mut Cursor<'_>,
        field: &'static str,
        min_element_size: usize,
    ) -> FormatResult<Option<usize>> {
        self.len(c, field, false, min_element_size)
    }

    /// The count of a non-nullable array.
    pub fn required_array_len(
        self,
        c: &mut Cursor<'_>,
        field: &'static str,
        min_element_size: usize,
    ) -> FormatResult<usize> {
        let at = c.position();
        self.array_len(c, field, min_element_size)?
            .ok_or_else(|| null_in_required(field, at))
    }

    /// Smallest encoding of a string, bytes or array: its length prefix.
    pub fn min_len_size(self, classic_i16: bool) -> usize {
        match (self.flexible, classic_i16) {
            (true, _) => 1,
            (false, true) => 2,
            (false, false) => 4,
        }
    }

    /// Smallest encoding of a struct with `fixed` bytes of fields (plus its tagged section).
    pub fn min_struct_size(self, fixed: usize) -> usize {
        fixed + usize::from(self.flexible)
    }

    /// A nullable array of i32.
    pub fn nullable_i32_array(
        self,
        c: &mut Cursor<'_>,
        field: &'static str,
    ) -> FormatResult<Option<Vec<i32>>> {
        let Some(n) = self.array_len(c, field, 4)? else {
            return Ok(None);
        };
        // `array_len` checked that n * 4 bytes are present.
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(c.i32()?);
        }
        Ok(Some(out))
    }

    /// A non-nullable array of i32.
    pub fn i32_array(self, c: &mut Cursor<'_>, field: &'static str) -> FormatResult<Vec<i32>> {
        let at = c.position();
        self.nullable_i32_array(c, field)?
            .ok_or_else(|| null_in_required(field, at))
    }

    /// A nullable array of UUIDs.
    pub fn nullable_uuid_array(
        self,
        c: &mut Cursor<'_>,
        field: &'static str,
    ) -> FormatResult<Option<Vec<Uuid>>> {
        let Some(n) = self.array_len(c, field, 16)? else {
            return Ok(None);
        };
        // `array_len` checked that n * 16 bytes are present.
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(uuid(c)?);
        }
        Ok(Some(out))
    }

    /// A non-nullable array of UUIDs.
    pub fn uuid_array(self, c: &mut Cursor<'_>, field: &'static str) -> FormatResult<Vec<Uuid>> {
        let at = c.position();
        self.nullable_uuid_array(c, field)?
            .ok_or_else(|| null_in_required(field, at))
    }

    /// A non-nullable array of non-nullable strings.
    pub fn string_array(
        self,
        c: &mut Cursor<'_>,
        field: &'static str,
    ) -> FormatResult<Vec<String>> {
        let n = self.required_array_len(c, field, self.min_len_size(true))?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(self.string(c, field)?);
        }
        Ok(out)
    }

    /// The end of a struct: the tagged section in flexible versions (each field handed to
    /// `known(tag, cursor)`, which returns `Ok(false)` for a tag it does not know), nothing in
    /// classic ones.
    pub fn end_struct<F>(self, c: &mut Cursor<'_>, known: F) -> FormatResult<()>
    where
        F: FnMut(u32, &mut Cursor<'_>) -> FormatResult<bool>,
    {
        if self.flexible {
            tagged(c, known)
        } else {
            Ok(())
        }
    }

    /// The end of a struct without known tagged fields.
    pub fn skip_tags(self, c: &mut Cursor<'_>) -> FormatResult<()> {
        self.end_struct(c, |_, _| Ok(false))
    }
}

/// Read a tagged-field section; a known field must use exactly its declared size.
fn tagged<F>(c: &mut Cursor<'_>, mut known: F) -> FormatResult<()>
where
    F: FnMut(u32, &mut Cursor<'_>) -> FormatResult<bool>,
{
    let count_at = c.position();
    let count = c.unsigned_varint()?;
    // Each field takes at least 2 bytes (tag and size).
    checked_len(c, "tagged field count", i64::from(count), 2, count_at)?;
    for _ in 0..count {
        let tag = c.unsigned_varint()?;
        let size_at = c.position();
        let size = usize::try_from(c.unsigned_varint()?).unwrap_or(usize::MAX);
        let start = c.position();
        let bytes = c.take(size).map_err(|e| FormatError {
            offset: size_at as u64,
            ..e
        })?;
        let mut f = Cursor::new(bytes);
        let rebase = |e: FormatError| e.at_base(start as u64);
        if known(tag, &mut f).map_err(rebase)? && !f.is_empty() {
            return Err(FormatError::new(
                ErrorKind::TrailingBytes(f.remaining() as u64),
                (start + f.position()) as u64,
            ));
        }
    }
    Ok(())
}

/// Read the marker of a tagged nullable struct (`MessageDataGenerator.generateStructReader`):
/// an unsigned varint, 0 for null, else the struct follows.
pub(crate) fn tagged_struct_present(c: &mut Cursor<'_>) -> FormatResult<bool> {
    Ok(c.unsigned_varint()? > 0)
}

// ---- encoding (tests only) -------------------------------------------------------------------

/// Byte builders for generated-message bodies, used by the tests of both record decoders.
#[cfg(test)]
pub(crate) mod encode {
    use super::super::bytes::encode_unsigned_varlong;
    use super::{Uuid, Wire};

    /// A message under construction.
    pub struct Enc {
        pub buf: Vec<u8>,
        pub wire: Wire,
    }

    impl Enc {
        pub fn new(wire: Wire) -> Self {
            Enc {
                buf: Vec::new(),
                wire,
            }
        }
        pub fn uv(&mut self, v: u64) -> &mut Self {
            encode_unsigned_varlong(v, &mut self.buf);
            self
        }
        pub fn raw(&mut self, b: &[u8]) -> &mut Self {
            self.buf.extend_from_slice(b);
            self
        }
        pub fn i8(&mut self, v: i8) -> &mut Self {
            self.raw(&v.to_be_bytes())
        }
        pub fn i16(&mut self, v: i16) -> &mut Self {
            self.raw(&v.to_be_bytes())
        }
        pub fn i32(&mut self, v: i32) -> &mut Self {
            self.raw(&v.to_be_bytes())
        }
        pub fn i64(&mut self, v: i64) -> &mut Self {
            self.raw(&v.to_be_bytes())
        }
        pub fn uuid(&mut self, u: Uuid) -> &mut Self {
            self.raw(&u.0)
        }
        /// A length prefix: i16 (`short`) or i32 classic, uvarint+1 flexible; `None` = null.
        pub fn len(&mut self, n: Option<usize>, short: bool) -> &mut Self {
            match (self.wire.flexible, n) {
                (true, None) => self.uv(0),
                (true, Some(n)) => self.uv(n as u64 + 1),
                (false, None) if short => self.i16(-1),
                (false, None) => self.i32(-1),
                (false, Some(n)) if short => self.i16(n as i16),
                (false, Some(n)) => self.i32(n as i32),
            }
        }
        pub fn nstr(&mut self, s: Option<&str>) -> &mut Self {
            self.len(s.map(str::len), true);
            if let Some(s) = s {
                self.raw(s.as_bytes());
            }
            self
        }
        pub fn str(&mut self, s: &str) -> &mut Self {
            self.nstr(Some(s))
        }
        pub fn bytes_of_len(&mut self, n: usize) -> &mut Self {
            self.len(Some(n), false);
            self.raw(&vec![0xab; n])
        }
        pub fn i32s(&mut self, a: &[i32]) -> &mut Self {
            self.len(Some(a.len()), false);
            for v in a {
                self.i32(*v);
            }
            self
        }
        pub fn strs(&mut self, a: &[String]) -> &mut Self {
            self.len(Some(a.len()), false);
            for s in a {
                self.str(s);
            }
            self
        }
        /// A tagged section (flexible only; nothing in classic versions).
        pub fn tags(&mut self, fields: &[(u32, Vec<u8>)]) -> &mut Self {
            if self.wire.flexible {
                self.uv(fields.len() as u64);
                for (tag, bytes) in fields {
                    self.uv(u64::from(*tag)).uv(bytes.len() as u64).raw(bytes);
                }
            }
            self
        }
        pub fn done(&mut self) -> Vec<u8> {
            std::mem::take(&mut self.buf)
        }
    }

    /// The bytes of one tagged field built with `f` (flexible encodings).
    pub fn field(f: impl FnOnce(&mut Enc)) -> Vec<u8> {
        let mut e = Enc::new(super::FLEXIBLE);
        f(&mut e);
        e.done()
    }
}

#[cfg(test)]
mod tests {
    use super::encode::Enc;
    use super::*;

    #[test]
    fn classic_and_compact_strings() {
        let b = Enc::new(CLASSIC).str("ab").nstr(None).done();
        assert_eq!(b, [0, 2, b'a', b'b', 0xff, 0xff]);
        let mut c = Cursor::new(&b);
        assert_eq!(CLASSIC.string(&mut c, "s").unwrap(), "ab");
        assert_eq!(CLASSIC.nullable_string(&mut c, "s").unwrap(), None);
        assert!(c.is_empty());

        let b = Enc::new(FLEXIBLE).str("ab").nstr(None).done();
        assert_eq!(b, [3, b'a', b'b', 0]);
        let mut c = Cursor::new(&b);
        assert_eq!(FLEXIBLE.string(&mut c, "s").unwrap(), "ab");
        let e = FLEXIBLE.string(&mut c, "s").unwrap_err();
        assert_eq!(e.offset, 3);
        assert!(matches!(e.kind, ErrorKind::InvalidField { field: "s", .. }));
    }

    #[test]
    fn lengths_are_bounded_before_allocating() {
        // An i32 array claiming i32::MAX elements in 4 bytes.
        let b = Enc::new(CLASSIC).i32(i32::MAX).done();
        let e = CLASSIC.i32_array(&mut Cursor::new(&b), "a").unwrap_err();
        assert!(matches!(
            e.kind,
            ErrorKind::LengthOutOfRange { field: "a", .. }
        ));
        let b = Enc::new(FLEXIBLE).uv(u64::from(u32::MAX)).done();
        assert!(FLEXIBLE.string_array(&mut Cursor::new(&b), "a").is_err());
        // Bytes: a length past the end.
        let b = Enc::new(CLASSIC).i32(5).raw(&[1, 2]).done();
        assert!(CLASSIC.bytes_len(&mut Cursor::new(&b), "b").is_err());
        // A tagged section claiming more fields than bytes.
        let b = Enc::new(FLEXIBLE).uv(100).done();
        assert!(FLEXIBLE.skip_tags(&mut Cursor::new(&b)).is_err());
    }

    #[test]
    fn invalid_utf8_is_an_error() {
        let b = Enc::new(CLASSIC).i16(2).raw(&[0xff, 0xfe]).done();
        let e = CLASSIC.string(&mut Cursor::new(&b), "g").unwrap_err();
        assert_eq!(e.offset, 2);
        assert!(matches!(e.kind, ErrorKind::InvalidField { field: "g", .. }));
    }

    #[test]
    fn known_tags_must_fill_their_size() {
        let b = Enc::new(FLEXIBLE)
            .tags(&[(0, vec![0, 0, 0, 1, 9]), (7, vec![1])])
            .done();
        let e = FLEXIBLE
            .end_struct(&mut Cursor::new(&b), |tag, f| {
                if tag == 0 {
                    f.i32()?;
                    Ok(true)
                } else {
                    Ok(false)
                }
            })
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::TrailingBytes(1));
        assert_eq!(e.offset, 7);
        // Classic structs have no tagged section.
        CLASSIC.skip_tags(&mut Cursor::new(&[])).unwrap();
    }
}
