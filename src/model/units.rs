//! Units of the quantities Kafka's rules compare: offsets, byte counts, byte positions,
//! timestamps and durations, each its own type so that a rule cannot compare an offset with a
//! byte count or add a timestamp to a timestamp.
//!
//! Arithmetic saturates: the values come from files, and an offset near `i64::MAX` must never
//! wrap into a negative number in any output (issue 7).

use std::fmt;
use std::ops::{Add, Sub};

/// A record offset in a partition (Kafka `long`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct Offset(pub i64);

/// A number of bytes (a file length, a sum of segment sizes, a retention limit).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct Bytes(pub u64);

/// A byte position in a file.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct FilePos(pub u64);

/// Milliseconds since the Unix epoch (record timestamps, file mtimes, the evaluation instant).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct TimestampMs(pub i64);

/// A span of milliseconds (retention.ms, segment.ms, a record's age). May be negative: a
/// timestamp in the future has a negative age.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct DurationMs(pub i64);

impl Offset {
    /// The raw value.
    pub const fn get(self) -> i64 {
        self.0
    }

    /// The offset after this one (saturating at `i64::MAX`).
    pub const fn next(self) -> Offset {
        Offset(self.0.saturating_add(1))
    }

    /// The offset before this one (saturating at `i64::MIN`).
    pub const fn prev(self) -> Offset {
        Offset(self.0.saturating_sub(1))
    }

    /// This offset moved by `n` records (saturating).
    pub const fn plus(self, n: i64) -> Offset {
        Offset(self.0.saturating_add(n))
    }

    /// Records from `self` up to (excluding) `end`; 0 when `end` is not after `self`.
    pub fn records_until(self, end: Offset) -> u64 {
        u64::try_from(i128::from(end.0) - i128::from(self.0)).unwrap_or(0)
    }
}

impl Bytes {
    /// The raw value.
    pub const fn get(self) -> u64 {
        self.0
    }

    /// Saturating sum.
    pub const fn plus(self, other: Bytes) -> Bytes {
        Bytes(self.0.saturating_add(other.0))
    }

    /// Saturating difference (0 when `other` is larger).
    pub const fn minus(self, other: Bytes) -> Bytes {
        Bytes(self.0.saturating_sub(other.0))
    }
}

impl FilePos {
    /// The raw value.
    pub const fn get(self) -> u64 {
        self.0
    }

    /// The position `len` bytes further on (saturating).
    pub const fn advance(self, len: Bytes) -> FilePos {
        FilePos(self.0.saturating_add(len.0))
    }

    /// Bytes from `self` to `end` (0 when `end` is not after `self`).
    pub const fn bytes_until(self, end: FilePos) -> Bytes {
        Bytes(end.0.saturating_sub(self.0))
    }
}

impl TimestampMs {
    /// The raw value.
    pub const fn get(self) -> i64 {
        self.0
    }

    /// Kafka's `RecordBatch.NO_TIMESTAMP` (-1): no timestamp.
    pub const NONE: TimestampMs = TimestampMs(-1);

    /// Whether this is a real timestamp (Kafka treats negative values as "none").
    pub const fn is_set(self) -> bool {
        self.0 >= 0
    }
}

impl DurationMs {
    /// The raw value.
    pub const fn get(self) -> i64 {
        self.0
    }

    /// A duration from whole seconds (saturating).
    pub const fn from_secs(s: i64) -> DurationMs {
        DurationMs(s.saturating_mul(1000))
    }
}

impl std::iter::Sum for Bytes {
    fn sum<I: Iterator<Item = Bytes>>(iter: I) -> Bytes {
        iter.fold(Bytes(0), Bytes::plus)
    }
}

impl<'a> std::iter::Sum<&'a Bytes> for Bytes {
    fn sum<I: Iterator<Item = &'a Bytes>>(iter: I) -> Bytes {
        iter.copied().sum()
    }
}

impl Add<DurationMs> for TimestampMs {
    type Output = TimestampMs;
    fn add(self, d: DurationMs) -> TimestampMs {
        TimestampMs(self.0.saturating_add(d.0))
    }
}

impl Sub<DurationMs> for TimestampMs {
    type Output = TimestampMs;
    fn sub(self, d: DurationMs) -> TimestampMs {
        TimestampMs(self.0.saturating_sub(d.0))
    }
}

impl Sub for TimestampMs {
    type Output = DurationMs;
    fn sub(self, earlier: TimestampMs) -> DurationMs {
        DurationMs(self.0.saturating_sub(earlier.0))
    }
}

impl Add for DurationMs {
    type Output = DurationMs;
    fn add(self, other: DurationMs) -> DurationMs {
        DurationMs(self.0.saturating_add(other.0))
    }
}

impl fmt::Display for Offset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} B", self.0)
    }
}

impl fmt::Display for FilePos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}", self.0)
    }
}

impl fmt::Display for TimestampMs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match chrono::DateTime::from_timestamp_millis(self.0) {
            Some(t) if self.is_set() => write!(f, "{}", t.format("%Y-%m-%dT%H:%M:%S%.3fZ")),
            _ => write!(f, "{} ms", self.0),
        }
    }
}

impl fmt::Display for DurationMs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ms", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_saturate_instead_of_wrapping() {
        assert_eq!(Offset(i64::MAX).next(), Offset(i64::MAX));
        assert_eq!(Offset(i64::MAX - 1).plus(5), Offset(i64::MAX));
        assert_eq!(Offset(i64::MIN).records_until(Offset(i64::MAX)), u64::MAX);
        assert_eq!(Offset(10).records_until(Offset(4)), 0);
        assert_eq!(Offset(4).records_until(Offset(10)), 6);
        assert_eq!(Offset(4).prev(), Offset(3));
        assert_eq!(Offset(i64::MIN).prev(), Offset(i64::MIN));
    }

    #[test]
    fn byte_arithmetic_saturates() {
        assert_eq!(Bytes(u64::MAX).plus(Bytes(1)), Bytes(u64::MAX));
        assert_eq!(Bytes(3).minus(Bytes(5)), Bytes(0));
        assert_eq!(FilePos(10).advance(Bytes(5)), FilePos(15));
        assert_eq!(FilePos(10).bytes_until(FilePos(4)), Bytes(0));
        assert_eq!(
            [Bytes(1), Bytes(u64::MAX)].iter().sum::<Bytes>(),
            Bytes(u64::MAX)
        );
        assert_eq!(Vec::<Bytes>::new().into_iter().sum::<Bytes>(), Bytes(0));
    }

    #[test]
    fn time_arithmetic() {
        let t = TimestampMs(1_000);
        assert_eq!(t + DurationMs(500), TimestampMs(1_500));
        assert_eq!(t - DurationMs(1_500), TimestampMs(-500));
        assert_eq!(TimestampMs(5_000) - t, DurationMs(4_000));
        assert_eq!(t - TimestampMs(5_000), DurationMs(-4_000));
        assert_eq!(TimestampMs(i64::MAX) + DurationMs(1), TimestampMs(i64::MAX));
        assert_eq!(DurationMs::from_secs(i64::MAX), DurationMs(i64::MAX));
        assert!(!TimestampMs::NONE.is_set());
    }

    #[test]
    fn display() {
        assert_eq!(TimestampMs(0).to_string(), "1970-01-01T00:00:00.000Z");
        assert_eq!(TimestampMs(-1).to_string(), "-1 ms");
        assert_eq!(Offset(42).to_string(), "42");
        assert_eq!(Bytes(7).to_string(), "7 B");
    }
}
