//! `.kafka_cleanshutdown`: the marker a broker leaves in a log dir when every log closed cleanly.
//!
//! Source: Kafka `storage/src/main/java/org/apache/kafka/storage/internals/checkpoint/CleanShutdownFileHandler.java`
//! (spec: kafka-on-disk-formats.md §2.6). Since 3.7 it holds one line of Jackson JSON,
//! `{"version":0,"brokerEpoch":<long>}` (unknown properties ignored); before, it was empty.
//!
//! Only the file's **existence** decides whether Kafka skips recovery; Kafka reads the content
//! only for the broker epoch and treats any read or parse failure as "epoch unknown". So a parse
//! error here is worth a note, never a reason to think the dir will be recovered.

use super::checkpoint::decode_utf8;
use super::error::{ErrorKind, FormatError, FormatResult};

/// The version Kafka writes.
pub const CLEAN_SHUTDOWN_VERSION: i32 = 0;

/// A parsed clean-shutdown marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum CleanShutdownMarker {
    /// Zero bytes, as brokers before 3.7 wrote it.
    Empty,
    /// The JSON form.
    Json {
        /// `version`, if present (Kafka's field defaults to 0).
        version: Option<i32>,
        /// `brokerEpoch`, if present and not null (ZooKeeper-mode brokers wrote -1).
        broker_epoch: Option<i64>,
    },
}

impl CleanShutdownMarker {
    /// The broker epoch Kafka's `read()` would return (`None` = `OptionalLong.empty()`).
    pub fn broker_epoch(&self) -> Option<i64> {
        match self {
            CleanShutdownMarker::Empty => None,
            CleanShutdownMarker::Json { broker_epoch, .. } => *broker_epoch,
        }
    }
}

/// Parse a `.kafka_cleanshutdown` file: empty, or a JSON object. Errors
/// ([`ErrorKind::BadText`] with the JSON error's line, [`ErrorKind::InvalidField`]) carry the
/// byte offset of the problem where known, else 0.
pub fn parse_clean_shutdown(bytes: &[u8]) -> FormatResult<CleanShutdownMarker> {
    if bytes.is_empty() {
        return Ok(CleanShutdownMarker::Empty);
    }
    let text = decode_utf8(bytes)?;
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        let at = line_col_to_offset(text, e.line(), e.column());
        FormatError::new(
            ErrorKind::BadText(format!("line {}: json: {e}", e.line().max(1))),
            at,
        )
    })?;
    let Some(obj) = value.as_object() else {
        return Err(FormatError::new(
            ErrorKind::BadText("line 1: not a json object".into()),
            0,
        ));
    };
    let int_field = |name: &'static str| -> FormatResult<Option<i64>> {
        match obj.get(name) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(v) => v.as_i64().map(Some).ok_or_else(|| {
                FormatError::new(
                    ErrorKind::InvalidField {
                        field: name,
                        reason: format!("not an integer: {v}"),
                    },
                    0,
                )
            }),
        }
    };
    let version = match int_field("version")? {
        None => None,
        Some(v) => Some(i32::try_from(v).map_err(|_| {
            FormatError::new(
                ErrorKind::InvalidField {
                    field: "version",
                    reason: format!("{v} is not an int"),
                },
                0,
            )
        })?),
    };
    let broker_epoch = int_field("brokerEpoch")?;
    Ok(CleanShutdownMarker::Json {
        version,
        broker_epoch,
    })
}

/// The bytes Kafka 3.7+ writes for `broker_epoch` (Jackson, declared field order, no newline).
pub fn encode_clean_shutdown(broker_epoch: i64) -> Vec<u8> {
    format!("{{\"version\":{CLEAN_SHUTDOWN_VERSION},\"brokerEpoch\":{broker_epoch}}}").into_bytes()
}

/// Byte offset of serde_json's 1-based line / column (0 when unknown).
fn line_col_to_offset(text: &str, line: usize, column: usize) -> u64 {
    let mut offset = 0usize;
    for (i, l) in text.split('\n').enumerate() {
        if i + 1 == line {
            return offset
                .saturating_add(column.saturating_sub(1))
                .min(text.len()) as u64;
        }
        offset = offset.saturating_add(l.len() + 1);
    }
    0
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a panic is the failure report
mod tests {
    use super::*;

    #[test]
    fn empty_file_is_the_old_marker() {
        assert_eq!(
            parse_clean_shutdown(b"").unwrap(),
            CleanShutdownMarker::Empty
        );
        assert_eq!(CleanShutdownMarker::Empty.broker_epoch(), None);
    }

    #[test]
    fn json_marker() {
        let m = parse_clean_shutdown(b"{\"version\":0,\"brokerEpoch\":12884901890}").unwrap();
        assert_eq!(
            m,
            CleanShutdownMarker::Json {
                version: Some(0),
                broker_epoch: Some(12884901890)
            }
        );
        let m = parse_clean_shutdown(b"{\"brokerEpoch\":-1,\"extra\":true}").unwrap();
        assert_eq!(m.broker_epoch(), Some(-1));
        let m = parse_clean_shutdown(b"{\"version\":0,\"brokerEpoch\":null}\n").unwrap();
        assert_eq!(m.broker_epoch(), None);
    }

    #[test]
    fn round_trip() {
        for epoch in [-1i64, 0, 42, i64::MAX] {
            let b = encode_clean_shutdown(epoch);
            assert_eq!(
                parse_clean_shutdown(&b).unwrap().broker_epoch(),
                Some(epoch)
            );
        }
        assert_eq!(
            encode_clean_shutdown(7),
            b"{\"version\":0,\"brokerEpoch\":7}"
        );
    }

    #[test]
    fn garbage() {
        assert!(parse_clean_shutdown(b" ").is_err());
        assert!(parse_clean_shutdown(b"[1]").is_err());
        assert!(parse_clean_shutdown(b"{\"brokerEpoch\":\"x\"}").is_err());
        assert!(parse_clean_shutdown(b"{\"version\":99999999999}").is_err());
        let e = parse_clean_shutdown(b"{\n\"brokerEpoch\": x}").unwrap_err();
        assert!(matches!(&e.kind, ErrorKind::BadText(m) if m.starts_with("line 2")));
        assert_eq!(e.offset, 17);
        assert!(parse_clean_shutdown(b"\xff").is_err());
    }

    #[test]
    fn truncated_at_every_byte_never_panics() {
        let b = encode_clean_shutdown(123456);
        for n in 1..b.len() {
            assert!(parse_clean_shutdown(&b[..n]).is_err());
        }
    }
}
