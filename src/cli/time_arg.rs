//! Parsing of time arguments (`--now`, `--at`): RFC 3339 or milliseconds since the epoch; and of
//! durations (`--after`): a number with a unit `ms`, `s`, `m`, `h` or `d`.

/// Parse an RFC 3339 time or a plain integer of ms since the epoch into epoch ms.
pub fn parse_time_ms(s: &str) -> Result<i64, String> {
    if let Ok(ms) = s.parse::<i64>() {
        return Ok(ms);
    }
    chrono::DateTime::parse_from_rfc3339(s)
        .map(|t| t.timestamp_millis())
        .map_err(|e| format!("`{s}` is neither RFC 3339 (2026-11-30T12:00:00Z) nor epoch ms: {e}"))
}

/// Parse a duration such as `7d`, `12h`, `30m`, `45s` or `500ms` into ms (not negative).
pub fn parse_duration_ms(s: &str) -> Result<i64, String> {
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: i64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a duration like 7d, 12h, 30m, 45s or 500ms"))?;
    let scale: i64 = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return Err(format!("`{s}`: the unit must be ms, s, m, h or d")),
    };
    n.checked_mul(scale)
        .ok_or_else(|| format!("`{s}` is too long"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ms("7d"), Ok(7 * 86_400_000));
        assert_eq!(parse_duration_ms("12h"), Ok(12 * 3_600_000));
        assert_eq!(parse_duration_ms("30m"), Ok(1_800_000));
        assert_eq!(parse_duration_ms("45s"), Ok(45_000));
        assert_eq!(parse_duration_ms("500ms"), Ok(500));
        for bad in ["", "d", "7", "7w", "-1d", "1.5h", "99999999999999999d"] {
            assert!(parse_duration_ms(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn both_forms() {
        assert_eq!(parse_time_ms("1767225600000"), Ok(1_767_225_600_000));
        assert_eq!(
            parse_time_ms("2026-01-01T01:00:00+01:00"),
            Ok(1_767_225_600_000)
        );
        assert!(parse_time_ms("yesterday").is_err());
    }
}
