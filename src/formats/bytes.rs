//! A bounded big-endian cursor: the only place in `formats/` that turns bytes into integers.
//!
//! Every read checks the remaining length first and returns [`ErrorKind::Truncated`] with the
//! absolute position instead of panicking. Kafka writes every fixed-width integer big-endian
//! (Java `ByteBuffer` default); varints are zigzag LEB128 as in `ByteUtils.java`
//! (spec: kafka-on-disk-formats.md §0.1).

use super::error::{ErrorKind, FormatError, FormatResult};

/// A read position over a borrowed byte slice.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0 }
    }

    /// Current byte position from the start of the slice.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    /// Whether every byte was read.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The unread part of the slice, without consuming it.
    pub fn rest(&self) -> &'a [u8] {
        self.buf.get(self.pos..).unwrap_or(&[])
    }

    /// An error of `kind` at the current position.
    pub fn error(&self, kind: ErrorKind) -> FormatError {
        FormatError::new(kind, self.pos as u64)
    }

    fn truncated(&self, needed: usize) -> FormatError {
        self.error(ErrorKind::Truncated {
            needed: needed as u64,
            available: self.remaining() as u64,
        })
    }

    /// Consume and return the next `n` bytes.
    pub fn take(&mut self, n: usize) -> FormatResult<&'a [u8]> {
        let end = self.pos.checked_add(n).ok_or_else(|| self.truncated(n))?;
        let out = self
            .buf
            .get(self.pos..end)
            .ok_or_else(|| self.truncated(n))?;
        self.pos = end;
        Ok(out)
    }

    /// Skip `n` bytes.
    pub fn skip(&mut self, n: usize) -> FormatResult<()> {
        self.take(n).map(|_| ())
    }

    /// Consume exactly `N` bytes as an array.
    pub fn array<const N: usize>(&mut self) -> FormatResult<[u8; N]> {
        let bytes = self.take(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    /// Read an `i8`.
    pub fn i8(&mut self) -> FormatResult<i8> {
        Ok(i8::from_be_bytes(self.array()?))
    }

    /// Read a `u8`.
    pub fn u8(&mut self) -> FormatResult<u8> {
        Ok(u8::from_be_bytes(self.array()?))
    }

    /// Read a big-endian `i16`.
    pub fn i16(&mut self) -> FormatResult<i16> {
        Ok(i16::from_be_bytes(self.array()?))
    }

    /// Read a big-endian `u16`.
    pub fn u16(&mut self) -> FormatResult<u16> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    /// Read a big-endian `i32`.
    pub fn i32(&mut self) -> FormatResult<i32> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    /// Read a big-endian `u32`.
    pub fn u32(&mut self) -> FormatResult<u32> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    /// Read a big-endian `i64`.
    pub fn i64(&mut self) -> FormatResult<i64> {
        Ok(i64::from_be_bytes(self.array()?))
    }

    /// Read a big-endian `u64`.
    pub fn u64(&mut self) -> FormatResult<u64> {
        Ok(u64::from_be_bytes(self.array()?))
    }

    /// Read an unsigned LEB128 varint of at most 5 bytes (Kafka's `readUnsignedVarint`).
    pub fn unsigned_varint(&mut self) -> FormatResult<u32> {
        let start = self.pos;
        let mut value: u32 = 0;
        for i in 0..5u32 {
            let b = self.u8()?;
            // Bits above the 32-bit width in the 5th byte are dropped, as Java does.
            value |= u32::from(b & 0x7f).wrapping_shl(7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(FormatError::new(ErrorKind::VarintTooLong, start as u64))
    }

    /// Read a zigzag varint (`readVarint`): at most 5 bytes.
    pub fn varint(&mut self) -> FormatResult<i32> {
        let raw = self.unsigned_varint()?;
        Ok(((raw >> 1) as i32) ^ -((raw & 1) as i32))
    }

    /// Read an unsigned LEB128 varlong of at most 10 bytes.
    pub fn unsigned_varlong(&mut self) -> FormatResult<u64> {
        let start = self.pos;
        let mut value: u64 = 0;
        for i in 0..10u32 {
            let b = self.u8()?;
            value |= u64::from(b & 0x7f).wrapping_shl(7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(FormatError::new(ErrorKind::VarintTooLong, start as u64))
    }

    /// Read a zigzag varlong (`readVarlong`): at most 10 bytes.
    pub fn varlong(&mut self) -> FormatResult<i64> {
        let raw = self.unsigned_varlong()?;
        Ok(((raw >> 1) as i64) ^ -((raw & 1) as i64))
    }

    /// Read a varint length prefix (`-1` = null) and that many bytes.
    pub fn varint_bytes(&mut self) -> FormatResult<Option<&'a [u8]>> {
        let at = self.pos;
        let len = self.varint()?;
        if len < 0 {
            return Ok(None);
        }
        self.take(len as usize).map(Some).map_err(|e| FormatError {
            offset: at as u64,
            ..e
        })
    }
}

/// Encode `value` as a zigzag varint (test and writer helper).
pub fn encode_varint(value: i32, out: &mut Vec<u8>) {
    encode_unsigned_varlong(u64::from(((value << 1) ^ (value >> 31)) as u32), out);
}

/// Encode `value` as a zigzag varlong.
pub fn encode_varlong(value: i64, out: &mut Vec<u8>) {
    encode_unsigned_varlong(((value << 1) ^ (value >> 63)) as u64, out);
}

/// Encode `value` as unsigned LEB128.
pub fn encode_unsigned_varlong(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_big_endian() {
        let mut c = Cursor::new(&[0, 0, 0, 1, 0xff, 0xff]);
        assert_eq!(c.i32().unwrap(), 1);
        assert_eq!(c.i16().unwrap(), -1);
        assert!(c.is_empty());
    }

    #[test]
    fn truncation_reports_position_and_need() {
        let mut c = Cursor::new(&[1, 2, 3]);
        c.u8().unwrap();
        let err = c.i64().unwrap_err();
        assert_eq!(err.offset, 1);
        assert_eq!(
            err.kind,
            ErrorKind::Truncated {
                needed: 8,
                available: 2
            }
        );
        // A failed read consumes nothing.
        assert_eq!(c.remaining(), 2);
    }

    #[test]
    fn huge_take_does_not_overflow() {
        let mut c = Cursor::new(&[1, 2, 3]);
        c.u8().unwrap();
        assert!(c.take(usize::MAX).is_err());
    }

    #[test]
    fn varint_round_trips() {
        for v in [0, 1, -1, 63, -64, 64, 300, i32::MAX, i32::MIN] {
            let mut out = Vec::new();
            encode_varint(v, &mut out);
            assert!(out.len() <= 5);
            let mut c = Cursor::new(&out);
            assert_eq!(c.varint().unwrap(), v);
            assert!(c.is_empty());
        }
        for v in [0i64, -1, i64::MAX, i64::MIN, 1 << 40] {
            let mut out = Vec::new();
            encode_varlong(v, &mut out);
            let mut c = Cursor::new(&out);
            assert_eq!(c.varlong().unwrap(), v);
        }
    }

    #[test]
    fn overlong_varint_is_an_error() {
        let mut c = Cursor::new(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x01]);
        assert_eq!(c.varint().unwrap_err().kind, ErrorKind::VarintTooLong);
    }

    #[test]
    fn null_varint_bytes() {
        let mut out = Vec::new();
        encode_varint(-1, &mut out);
        assert_eq!(Cursor::new(&out).varint_bytes().unwrap(), None);
    }
}
