//! Times and ages for people: `2026-11-30 13:22 UTC` by default (a table may name the zone
//! once in its header instead), the host's zone with its offset on every time under
//! `--local-time` (`2026-11-30 14:22 +01:00`), and ages relative to the run's
//! evaluation instant (`3 d ago`, `in 2 h`). Renderers never read the clock: the instant comes
//! from [`crate::cli::run_config::RunConfig`].

use chrono::{DateTime, Local, TimeZone, Utc};

/// Which zone times are shown in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Zone {
    /// UTC (the default).
    #[default]
    Utc,
    /// The host's zone (`--local-time`), shown as its UTC offset.
    Local,
}

/// How precise a shown time is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// `2026-11-30 13:22 UTC`.
    Minutes,
    /// `2026-11-30 13:22:05 UTC`.
    Seconds,
}

/// Milliseconds since the epoch in `zone` with the zone shown (`UTC` or the UTC offset), or
/// None for Kafka's "no timestamp" (negative) and values chrono cannot represent.
pub fn time(ms: i64, zone: Zone, precision: Precision) -> Option<String> {
    let (t, label) = time_parts(ms, zone, precision)?;
    Some(format!("{t} {label}"))
}

/// [`time`] without its zone, for a table whose header names the zone: only for
/// [`Zone::Utc`] (a local zone's offset can change from one timestamp to the next).
pub fn time_without_zone(ms: i64, precision: Precision) -> Option<String> {
    time_parts(ms, Zone::Utc, precision).map(|(t, _)| t)
}

fn time_parts(ms: i64, zone: Zone, precision: Precision) -> Option<(String, String)> {
    if ms < 0 {
        return None;
    }
    let utc: DateTime<Utc> = DateTime::from_timestamp_millis(ms)?;
    let fmt = match precision {
        Precision::Minutes => "%Y-%m-%d %H:%M",
        Precision::Seconds => "%Y-%m-%d %H:%M:%S",
    };
    Some(match zone {
        Zone::Utc => (utc.format(fmt).to_string(), "UTC".to_string()),
        Zone::Local => {
            let local = Local.from_utc_datetime(&utc.naive_utc());
            (
                local.format(fmt).to_string(),
                local.format("%:z").to_string(),
            )
        }
    })
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
    fn utc_by_default_with_the_zone_shown() {
        assert_eq!(
            time(T, Zone::Utc, Precision::Minutes).unwrap(),
            "2026-11-30 13:22 UTC"
        );
        assert_eq!(
            time(T + 5_000, Zone::Utc, Precision::Seconds).unwrap(),
            "2026-11-30 13:22:05 UTC"
        );
        assert_eq!(time(-1, Zone::Utc, Precision::Minutes), None);
        assert_eq!(
            time_without_zone(T, Precision::Minutes).unwrap(),
            "2026-11-30 13:22"
        );
        assert_eq!(time(i64::MAX, Zone::Utc, Precision::Minutes), None);
        let local = time(T, Zone::Local, Precision::Minutes).unwrap();
        assert!(
            local.ends_with(":00") && (local.contains(" +") || local.contains(" -")),
            "{local}"
        );
    }

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
}
