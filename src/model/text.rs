//! Human units in the words findings and renderers share: instants (`2027-03-01 00:00 UTC`),
//! spans (`3 d`), ages relative to the evaluation instant (`3 d ago`, `in 2 h`) and segment
//! names. Pure text, no clock: the instant is always given. At the bottom of the house so that
//! a finding's message ([`crate::checks`]) and a table cell ([`crate::report`]) say it the same
//! way without one importing the other.

use super::units::{Offset, TimestampMs};

/// A time as `2027-03-01 00:00 UTC` (seconds and milliseconds only when not zero): the one
/// time format of messages, evidence and tables.
pub fn utc(t: TimestampMs) -> String {
    match chrono::DateTime::from_timestamp_millis(t.get()) {
        Some(d) if t.get() % 60_000 == 0 => d.format("%Y-%m-%d %H:%M UTC").to_string(),
        Some(d) if t.get() % 1_000 == 0 => d.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
        Some(d) => d.format("%Y-%m-%d %H:%M:%S%.3f UTC").to_string(),
        None => format!("{} ms", t.get()),
    }
}

/// A segment's file name stem: the base offset in 20 digits.
pub fn segment_name(base: Offset) -> String {
    format!("{:020}", base.get())
}

/// A duration of `ms` (≥ 0) in words: seconds under 90 s (`0 s` under a second), minutes under
/// 90 min, hours under 48 h, else days.
pub fn duration(ms: i64) -> String {
    match ms / 1000 {
        s if s < 90 => format!("{s} s"),
        s if s < 90 * 60 => format!("{} min", s / 60),
        s if s < 48 * 3600 => format!("{} h", s / 3600),
        s => format!("{} d", s / 86_400),
    }
}

/// How far `ms` is from `now_ms`: `3 d ago`, `in 2 h`, `now` (under a second); in seconds
/// under 90 s, minutes under 90 min, hours under 48 h, else days.
pub fn age(ms: i64, now_ms: i64) -> String {
    let delta = i128::from(now_ms) - i128::from(ms);
    let secs = delta.unsigned_abs() / 1000;
    if secs == 0 {
        return "now".to_string();
    }
    let amount = duration(i64::try_from(delta.unsigned_abs()).unwrap_or(i64::MAX));
    if delta > 0 {
        format!("{amount} ago")
    } else {
        format!("in {amount}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: i64 = 1_796_044_920_000; // 2026-11-30T13:22:00Z

    #[test]
    fn ages_in_both_directions() {
        assert_eq!(age(T, T), "now");
        assert_eq!(age(T, T + 30_000), "30 s ago");
        assert_eq!(age(T, T + 10 * 60_000), "10 min ago");
        assert_eq!(age(T, T + 5 * 3_600_000), "5 h ago");
        assert_eq!(age(T, T + 3 * 86_400_000 + 5), "3 d ago");
        assert_eq!(age(T + 2 * 3_600_000, T), "in 2 h");
        assert!(age(i64::MIN, i64::MAX).ends_with(" d ago"));
    }

    #[test]
    fn instants_drop_zero_seconds_and_millis() {
        assert_eq!(utc(TimestampMs(T)), "2026-11-30 13:22 UTC");
        assert_eq!(utc(TimestampMs(T + 5_000)), "2026-11-30 13:22:05 UTC");
        assert_eq!(utc(TimestampMs(T + 5_007)), "2026-11-30 13:22:05.007 UTC");
        assert_eq!(utc(TimestampMs(i64::MAX)), format!("{} ms", i64::MAX));
        assert_eq!(segment_name(Offset(42)), "00000000000000000042");
    }
}
