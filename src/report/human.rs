//! Times and ages for people: `2026-11-30 13:22 UTC` by default (a table may name the zone
//! once in its header instead), the host's zone with its offset on every time under
//! `--local-time` (`2026-11-30 14:22 +01:00`), and ages relative to the run's
//! evaluation instant (`3 d ago`, `in 2 h`). Renderers never read the clock: the instant comes
//! from [`crate::cli::run_config::RunConfig`].

use chrono::{DateTime, Local, TimeZone, Utc};

/// Spans and ages: the same words findings use ([`crate::model::text`]).
pub use crate::model::text::{age, duration};

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
}
