//! Parsing of time arguments (`--now`, later `--at`): RFC 3339 or milliseconds since the epoch.

/// Parse an RFC 3339 time or a plain integer of ms since the epoch into epoch ms.
pub fn parse_time_ms(s: &str) -> Result<i64, String> {
    if let Ok(ms) = s.parse::<i64>() {
        return Ok(ms);
    }
    chrono::DateTime::parse_from_rfc3339(s)
        .map(|t| t.timestamp_millis())
        .map_err(|e| format!("`{s}` is neither RFC 3339 (2026-11-30T12:00:00Z) nor epoch ms: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

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
