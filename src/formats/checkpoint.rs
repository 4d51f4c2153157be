//! Kafka's generic checkpoint text format and the four offset checkpoints.
//!
//! Source: Kafka `server-common/src/main/java/org/apache/kafka/server/common/CheckpointFile.java`
//! and `storage/src/main/java/org/apache/kafka/storage/internals/checkpoint/OffsetCheckpointFile.java`
//! (spec: kafka-on-disk-formats.md §2.1, §2.2). Used by `recovery-point-offset-checkpoint`,
//! `log-start-offset-checkpoint`, `replication-offset-checkpoint` and `cleaner-offset-checkpoint`
//! (entries `topic partition offset`); `leader-epoch-checkpoint` reuses [`parse_checkpoint`] from
//! `leader_epoch.rs`.
//!
//! Reader rules reproduced from `CheckpointReadBuffer.read`:
//! - lines are split as Java's `BufferedReader.readLine` does (`\n`, `\r` or `\r\n`; a final line
//!   without terminator counts; a final terminator does not start an empty line);
//! - the input must be UTF-8 (Java's decoder reports malformed input);
//! - empty file, or a file with only the version line: no entries;
//! - version and count lines go through `Integer.parseInt` (optional sign, ASCII digits, no
//!   spaces); the version must equal the expected one; a negative count makes Java's
//!   `new ArrayList<>(count)` throw;
//! - every later line must parse as an entry (a blank line is malformed), then the number of
//!   entries must equal the count;
//! - entries are split with Java's `\s+` regex: runs of whitespace separate tokens, leading
//!   whitespace gives an empty first token (so a malformed line), trailing whitespace is dropped.
//!
//! One gap: Java's `Integer.parseInt` also accepts non-ASCII Unicode decimal digits; this parser
//! accepts ASCII digits only (Kafka never writes others).

use super::error::{ErrorKind, FormatError, FormatResult};

/// The version every checkpoint kind uses.
pub const CHECKPOINT_VERSION: i32 = 0;

/// What the header lines of a checkpoint held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum CheckpointHeader {
    /// The file was empty (Kafka's constructor creates it so): no entries.
    Empty,
    /// Only the version line was present: no entries.
    VersionOnly,
    /// Version and count lines were present.
    Counted {
        /// The declared number of entries (equal to the entries found, or parsing fails).
        count: i32,
    },
}

/// One parsed entry line.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CheckpointLine<T> {
    /// The entry.
    pub value: T,
    /// 1-based line number.
    pub line: usize,
    /// Byte position of the start of the line.
    pub offset: u64,
}

/// A parsed checkpoint file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CheckpointFile<T> {
    /// The header form.
    pub header: CheckpointHeader,
    /// The entries, in file order.
    pub entries: Vec<CheckpointLine<T>>,
}

impl<T> CheckpointFile<T> {
    /// The entry values, in file order.
    pub fn values(&self) -> impl Iterator<Item = &T> + '_ {
        self.entries.iter().map(|l| &l.value)
    }
}

/// An entry of an offset checkpoint: `topic partition offset`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct TopicPartitionOffset {
    /// Topic name (Kafka does not validate it on read: any token without whitespace).
    pub topic: String,
    /// Partition number (Java int; negative values parse).
    pub partition: i32,
    /// The offset (Java long; negative values parse).
    pub offset: i64,
}

/// Parse a checkpoint with `expected_version`, turning each entry line into a `T` with
/// `parse_entry`, which returns `Ok(None)` for Kafka's "Malformed line" (wrong token count) and
/// `Err(why)` for a token Kafka fails to convert (`NumberFormatException`).
///
/// Errors are [`ErrorKind::BadText`] (message names the 1-based line), or
/// [`ErrorKind::UnsupportedVersion`] / [`ErrorKind::LengthOutOfRange`], at the byte offset of the
/// offending line; a count mismatch points at the count line.
pub fn parse_checkpoint<T>(
    bytes: &[u8],
    expected_version: i32,
    parse_entry: impl Fn(&str) -> Result<Option<T>, String>,
) -> FormatResult<CheckpointFile<T>> {
    let text = decode_utf8(bytes)?;
    let mut lines = java_lines(text);
    let Some(version_line) = lines.next() else {
        return Ok(CheckpointFile {
            header: CheckpointHeader::Empty,
            entries: Vec::new(),
        });
    };
    let version = java_parse_i32(version_line.text)
        .ok_or_else(|| version_line.error("malformed version line"))?;
    if version != expected_version {
        return Err(FormatError::new(
            ErrorKind::UnsupportedVersion {
                what: "checkpoint",
                version: i64::from(version),
            },
            version_line.offset,
        ));
    }
    let Some(count_line) = lines.next() else {
        return Ok(CheckpointFile {
            header: CheckpointHeader::VersionOnly,
            entries: Vec::new(),
        });
    };
    let count =
        java_parse_i32(count_line.text).ok_or_else(|| count_line.error("malformed count line"))?;
    if count < 0 {
        return Err(FormatError::new(
            ErrorKind::LengthOutOfRange {
                field: "checkpoint entry count",
                value: i64::from(count),
                min: 0,
                max: i64::from(i32::MAX),
            },
            count_line.offset,
        ));
    }
    // Not sized by `count`: only by lines actually present.
    let mut entries = Vec::new();
    for line in lines {
        match parse_entry(line.text) {
            Ok(Some(value)) => entries.push(CheckpointLine {
                value,
                line: line.number,
                offset: line.offset,
            }),
            Ok(None) => return Err(line.error("malformed entry")),
            Err(why) => return Err(line.error(&why)),
        }
    }
    if entries.len() != count as usize {
        return Err(count_line.error(&format!(
            "count says {count} entries, found {}",
            entries.len()
        )));
    }
    Ok(CheckpointFile {
        header: CheckpointHeader::Counted { count },
        entries,
    })
}

/// Encode a checkpoint exactly as Kafka's `CheckpointWriteBuffer` does on Linux: version line,
/// count line, one line per entry, each ended by `\n`.
pub fn encode_checkpoint<'a>(
    version: i32,
    lines: impl ExactSizeIterator<Item = &'a str>,
) -> Vec<u8> {
    let mut out = format!("{version}\n{}\n", lines.len()).into_bytes();
    for l in lines {
        out.extend_from_slice(l.as_bytes());
        out.push(b'\n');
    }
    out
}

/// Parse one of the four offset checkpoints (`recovery-point-offset-checkpoint`,
/// `log-start-offset-checkpoint`, `replication-offset-checkpoint`, `cleaner-offset-checkpoint`).
pub fn parse_offset_checkpoint(bytes: &[u8]) -> FormatResult<CheckpointFile<TopicPartitionOffset>> {
    parse_checkpoint(bytes, CHECKPOINT_VERSION, |line| {
        let tokens = java_split_whitespace(line);
        let [topic, partition, offset] = tokens.as_slice() else {
            return Ok(None);
        };
        let partition =
            java_parse_i32(partition).ok_or_else(|| format!("bad partition {partition:?}"))?;
        let offset = java_parse_i64(offset).ok_or_else(|| format!("bad offset {offset:?}"))?;
        Ok(Some(TopicPartitionOffset {
            topic: (*topic).to_owned(),
            partition,
            offset,
        }))
    })
}

/// Encode an offset checkpoint byte-for-byte as Kafka writes it, entries in the given order
/// (Kafka's own order is hash-map order). Fails with [`ErrorKind::InvalidField`] (offset 0) for a
/// topic that could not be read back: empty, or containing whitespace or a line break.
pub fn encode_offset_checkpoint(entries: &[TopicPartitionOffset]) -> FormatResult<Vec<u8>> {
    let mut lines = Vec::with_capacity(entries.len());
    for e in entries {
        if e.topic.is_empty() || e.topic.chars().any(is_java_line_or_space) {
            return Err(FormatError::new(
                ErrorKind::InvalidField {
                    field: "topic",
                    reason: format!("{:?} cannot be written to a checkpoint", e.topic),
                },
                0,
            ));
        }
        lines.push(format!("{} {} {}", e.topic, e.partition, e.offset));
    }
    Ok(encode_checkpoint(
        CHECKPOINT_VERSION,
        lines.iter().map(String::as_str),
    ))
}

// ---- Java text helpers, shared with leader_epoch.rs and partition_metadata.rs ----

/// A line as `BufferedReader.readLine` returns it, with its position.
#[derive(Debug, Clone, Copy)]
pub(crate) struct JavaLine<'a> {
    /// The line without its terminator.
    pub text: &'a str,
    /// Byte position of the line start.
    pub offset: u64,
    /// 1-based line number.
    pub number: usize,
}

impl JavaLine<'_> {
    /// A [`ErrorKind::BadText`] naming this line, at its byte offset.
    pub fn error(&self, why: &str) -> FormatError {
        FormatError::new(
            ErrorKind::BadText(format!("line {}: {why}: {}", self.number, quote(self.text))),
            self.offset,
        )
    }
}

/// `s` quoted, cut to 80 characters.
pub(crate) fn quote(s: &str) -> String {
    let mut cut: String = s.chars().take(80).collect();
    if cut.len() < s.len() {
        cut.push('…');
    }
    format!("{cut:?}")
}

/// The bytes as UTF-8, or [`ErrorKind::BadText`] at the first invalid byte.
pub(crate) fn decode_utf8(bytes: &[u8]) -> FormatResult<&str> {
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let line = bytes
            .get(..at)
            .map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count())
            + 1;
        FormatError::new(
            ErrorKind::BadText(format!("line {line}: invalid UTF-8")),
            at as u64,
        )
    })
}

/// Lines as Java's `BufferedReader.readLine` yields them: terminated by `\n`, `\r` or `\r\n`; a
/// final unterminated line is yielded, a final terminator yields nothing more.
pub(crate) fn java_lines(text: &str) -> impl Iterator<Item = JavaLine<'_>> + '_ {
    let mut rest = text;
    let mut offset = 0u64;
    let mut number = 0usize;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest.find(['\n', '\r']).unwrap_or(rest.len());
        let (line, after) = rest.split_at(end);
        let term = if after.starts_with("\r\n") {
            2
        } else if after.is_empty() {
            0
        } else {
            1
        };
        let item = JavaLine {
            text: line,
            offset,
            number: number + 1,
        };
        number += 1;
        offset += (end + term) as u64;
        rest = after.get(term..).unwrap_or("");
        Some(item)
    })
}

/// Java regex `\s` (no UNICODE_CHARACTER_CLASS): space, `\t`, `\n`, `\x0B`, `\f`, `\r`.
pub(crate) fn is_java_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r')
}

fn is_java_line_or_space(c: char) -> bool {
    is_java_space(c) || c == '\u{85}' || c == '\u{2028}' || c == '\u{2029}'
}

/// Java's `line.split("\\s+")`: a leading separator gives an empty first token, trailing empty
/// tokens are removed, a line with no separator is one token (even when empty).
pub(crate) fn java_split_whitespace(line: &str) -> Vec<&str> {
    let mut tokens: Vec<&str> = line.split(is_java_space).collect();
    // `split` yields empty strings between adjacent separators; merge runs (keep the leading one).
    let leading_empty = tokens.first().is_some_and(|t| t.is_empty()) && tokens.len() > 1;
    tokens.retain(|t| !t.is_empty());
    if leading_empty {
        tokens.insert(0, "");
    }
    if tokens.is_empty() && !line.chars().any(is_java_space) {
        // No match at all: the whole (empty) input is the single token.
        tokens.push(line);
    }
    if tokens.len() == 1 && tokens.first() == Some(&"") && line.chars().any(is_java_space) {
        // Only whitespace: every token is a trailing empty one, Java returns none.
        tokens.clear();
    }
    tokens
}

/// Java's `Integer.parseInt` (ASCII digits only): optional `+`/`-`, at least one digit, in range.
pub(crate) fn java_parse_i32(s: &str) -> Option<i32> {
    java_parse_i64(s).and_then(|v| i32::try_from(v).ok())
}

/// Java's `Long.parseLong` (ASCII digits only).
pub(crate) fn java_parse_i64(s: &str) -> Option<i64> {
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, s.get(1..)?),
        Some(b'+') => (false, s.get(1..)?),
        _ => (false, s),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut v: i64 = 0;
    for b in digits.bytes() {
        let d = i64::from(b - b'0');
        v = v.checked_mul(10)?;
        v = if neg {
            v.checked_sub(d)?
        } else {
            v.checked_add(d)?
        };
    }
    Some(v)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a panic is the failure report
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tpo(topic: &str, partition: i32, offset: i64) -> TopicPartitionOffset {
        TopicPartitionOffset {
            topic: topic.into(),
            partition,
            offset,
        }
    }

    fn err(bytes: &[u8]) -> FormatError {
        parse_offset_checkpoint(bytes).unwrap_err()
    }

    #[test]
    fn parses_spec_example() {
        let f = parse_offset_checkpoint(b"0\n2\norders 0 1532\norders 1 1710\n").unwrap();
        assert_eq!(f.header, CheckpointHeader::Counted { count: 2 });
        assert_eq!(
            f.values().cloned().collect::<Vec<_>>(),
            vec![tpo("orders", 0, 1532), tpo("orders", 1, 1710)]
        );
        assert_eq!((f.entries[1].line, f.entries[1].offset), (4, 18));
    }

    #[test]
    fn topics_with_dots_dashes_underscores() {
        let f =
            parse_offset_checkpoint(b"0\n2\n__consumer_offsets 49 7\nmy.topic-a_b 3 0").unwrap();
        assert_eq!(f.entries[0].value, tpo("__consumer_offsets", 49, 7));
        assert_eq!(f.entries[1].value, tpo("my.topic-a_b", 3, 0));
    }

    #[test]
    fn empty_and_version_only() {
        assert_eq!(
            parse_offset_checkpoint(b"").unwrap().header,
            CheckpointHeader::Empty
        );
        assert_eq!(
            parse_offset_checkpoint(b"0").unwrap().header,
            CheckpointHeader::VersionOnly
        );
        assert_eq!(
            parse_offset_checkpoint(b"0\n").unwrap().header,
            CheckpointHeader::VersionOnly
        );
        assert!(parse_offset_checkpoint(b"0\n0\n")
            .unwrap()
            .entries
            .is_empty());
    }

    #[test]
    fn wrong_version() {
        let e = err(b"1\n0\n");
        assert_eq!(
            e.kind,
            ErrorKind::UnsupportedVersion {
                what: "checkpoint",
                version: 1
            }
        );
        assert_eq!(e.offset, 0);
        assert!(matches!(err(b" 0\n0\n").kind, ErrorKind::BadText(_)));
        assert!(matches!(err(b"0 \n0\n").kind, ErrorKind::BadText(_)));
        assert!(parse_offset_checkpoint(b"+0\n0\n").is_ok());
    }

    #[test]
    fn count_mismatch_points_at_count_line() {
        let e = err(b"0\n3\na 0 1\nb 0 2\n");
        assert_eq!(e.offset, 2);
        assert!(matches!(&e.kind, ErrorKind::BadText(m) if m.starts_with("line 2:")));
        assert_eq!(err(b"0\n1\n").offset, 2);
        assert!(matches!(
            err(b"0\n-1\n").kind,
            ErrorKind::LengthOutOfRange { value: -1, .. }
        ));
    }

    #[test]
    fn whitespace_rules_match_java_split() {
        // Runs of spaces and tabs separate; trailing whitespace is dropped.
        let f = parse_offset_checkpoint(b"0\n2\na  0\t5 \nb 1 6\t\n").unwrap();
        assert_eq!(f.entries[0].value, tpo("a", 0, 5));
        // Leading whitespace: empty first token, 4 tokens, malformed.
        let e = err(b"0\n1\n a 0 5\n");
        assert_eq!(e.offset, 4);
        assert!(
            matches!(&e.kind, ErrorKind::BadText(m) if m.starts_with("line 3: malformed entry"))
        );
        // Blank line and trailing blank line.
        assert_eq!(err(b"0\n1\n\na 0 5\n").offset, 4);
        assert_eq!(err(b"0\n1\na 0 5\n\n").offset, 10);
        assert_eq!(err(b"0\n1\na 0 5\n  \n").offset, 10);
        // Extra tokens, bad numbers.
        assert_eq!(err(b"0\n1\na 0 5 6\n").offset, 4);
        assert!(
            matches!(&err(b"0\n1\na x 5\n").kind, ErrorKind::BadText(m) if m.contains("bad partition"))
        );
        assert!(
            matches!(&err(b"0\n1\na 0 99999999999999999999\n").kind, ErrorKind::BadText(m) if m.contains("bad offset"))
        );
    }

    #[test]
    fn java_line_terminators() {
        let f = parse_offset_checkpoint(b"0\r\n2\ra 0 1\r\nb 0 2\r").unwrap();
        assert_eq!(f.entries.len(), 2);
        assert_eq!(f.entries[1].offset, 12);
    }

    #[test]
    fn invalid_utf8_and_garbage() {
        let e = err(b"0\n1\na\xff 0 1\n");
        assert_eq!(e.offset, 5);
        assert!(matches!(&e.kind, ErrorKind::BadText(m) if m.starts_with("line 3")));
        assert!(parse_offset_checkpoint(b"\x00\x01\x02garbage").is_err());
        assert!(parse_offset_checkpoint(b"\xef\xbb\xbf0\n0\n").is_err()); // BOM: not an int
    }

    #[test]
    fn negative_partition_and_offset_parse_as_kafka_does() {
        let f = parse_offset_checkpoint(b"0\n1\nt -1 -5\n").unwrap();
        assert_eq!(f.entries[0].value, tpo("t", -1, -5));
    }

    #[test]
    fn java_split_edge_cases() {
        assert_eq!(java_split_whitespace(""), vec![""]);
        assert!(java_split_whitespace("   ").is_empty());
        assert_eq!(java_split_whitespace(" a"), vec!["", "a"]);
        assert_eq!(java_split_whitespace("a b  "), vec!["a", "b"]);
    }

    #[test]
    fn java_parse_int_edges() {
        assert_eq!(java_parse_i32("-2147483648"), Some(i32::MIN));
        assert_eq!(java_parse_i32("2147483648"), None);
        assert_eq!(java_parse_i64("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(java_parse_i64("9223372036854775808"), None);
        for bad in ["", "-", "+", "1 ", "0x1", "1_000", "--1"] {
            assert_eq!(java_parse_i64(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn encoder_is_byte_exact() {
        let bytes =
            encode_offset_checkpoint(&[tpo("orders", 0, 1532), tpo("orders", 1, 1710)]).unwrap();
        assert_eq!(bytes, b"0\n2\norders 0 1532\norders 1 1710\n");
        assert_eq!(encode_offset_checkpoint(&[]).unwrap(), b"0\n0\n");
        assert!(encode_offset_checkpoint(&[tpo("a b", 0, 0)]).is_err());
        assert!(encode_offset_checkpoint(&[tpo("", 0, 0)]).is_err());
    }

    #[test]
    fn truncated_at_every_byte_never_panics() {
        let bytes = b"0\n2\norders 0 1532\norders 1 1710\n";
        for n in 0..=bytes.len() {
            let _ = parse_offset_checkpoint(&bytes[..n]);
        }
    }

    proptest! {
        #[test]
        fn round_trip(entries in proptest::collection::vec(
            ("[a-zA-Z0-9._-]{1,40}", any::<i32>(), any::<i64>()), 0..30)) {
            let entries: Vec<_> = entries.into_iter().map(|(t, p, o)| tpo(&t, p, o)).collect();
            let bytes = encode_offset_checkpoint(&entries).unwrap();
            let f = parse_offset_checkpoint(&bytes).unwrap();
            prop_assert_eq!(f.values().cloned().collect::<Vec<_>>(), entries);
            prop_assert_eq!(encode_offset_checkpoint(&f.values().cloned().collect::<Vec<_>>()).unwrap(), bytes);
        }

        #[test]
        fn arbitrary_text_never_panics(s in "\\PC*", bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = parse_offset_checkpoint(s.as_bytes());
            let _ = parse_offset_checkpoint(&bytes);
        }
    }
}

/// Every index, checkpoint, snapshot and small file a real broker wrote under `fixtures/` must
/// parse without error. Skips while `fixtures/` holds no files.
#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a panic is the failure report
mod fixture_tests {
    use crate::formats::{
        clean_shutdown, leader_epoch, meta_properties, offset_index, partition_metadata,
        producer_snapshot, time_index, txn_index,
    };
    use std::collections::BTreeMap;
    use std::path::Path;

    const OFFSET_CHECKPOINTS: [&str; 4] = [
        "recovery-point-offset-checkpoint",
        "log-start-offset-checkpoint",
        "replication-offset-checkpoint",
        "cleaner-offset-checkpoint",
    ];

    /// The base offset a file name gives: `<offset>.<kind>` in a partition dir,
    /// `<offset>_<remote segment id>.<kind>` in `remote-log-index-cache/` (`RemoteIndexCache`).
    fn base_offset(name: &str) -> i64 {
        let stem = name.split('.').next().unwrap();
        stem.split('_').next().unwrap().parse().unwrap()
    }

    #[test]
    fn real_broker_fixtures_parse() {
        // `LOGCLEAN_FIXTURES` points the test at another tree (e.g. `conformance/work`).
        let root = std::env::var_os("LOGCLEAN_FIXTURES")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"));
        let files: Vec<_> = walkdir::WalkDir::new(&root)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            // `tiered-*/remote-storage/` is the conformance harness's RemoteStorageManager store
            // (copies of uploaded segments under `<offset>-<segment id>.<kind>` names), not a log
            // dir: tests/remote_tier.rs checks it against the metadata records.
            .filter(|e| {
                !e.path()
                    .components()
                    .any(|c| c.as_os_str() == "remote-storage")
            })
            .collect();
        if files.is_empty() {
            eprintln!("no files under fixtures/ yet; skipping");
            return;
        }
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        for f in &files {
            let path = f.path();
            let name = f.file_name().to_string_lossy().into_owned();
            let ctx = path.display().to_string();
            let in_metadata_log = path.to_string_lossy().contains("__cluster_metadata");
            let kind = if name.ends_with(".index") {
                let bytes = std::fs::read(path).unwrap();
                let idx = offset_index::OffsetIndex::parse(&bytes, base_offset(&name)).unwrap();
                assert!(
                    idx.entry_problems().is_empty(),
                    "{ctx}: {:?}",
                    idx.entry_problems()
                );
                assert!(
                    idx.sanity_check().is_empty(),
                    "{ctx}: {:?}",
                    idx.sanity_check()
                );
                "index"
            } else if name.ends_with(".timeindex") {
                let bytes = std::fs::read(path).unwrap();
                let idx = time_index::TimeIndex::parse(&bytes, base_offset(&name)).unwrap();
                assert!(
                    idx.entry_problems().is_empty(),
                    "{ctx}: {:?}",
                    idx.entry_problems()
                );
                // An untrimmed (active) time index fails Kafka's own check; anything else must pass.
                assert!(
                    idx.sanity_check().is_empty() || !idx.zero_tail().is_empty(),
                    "{ctx}: {:?}",
                    idx.sanity_check()
                );
                "timeindex"
            } else if name.ends_with(".txnindex") {
                let bytes = std::fs::read(path).unwrap();
                let idx = txn_index::TxnIndex::parse(&bytes).unwrap();
                assert!(idx.sanity_check(base_offset(&name)).is_empty(), "{ctx}");
                assert!(
                    idx.entry_problems().is_empty(),
                    "{ctx}: {:?}",
                    idx.entry_problems()
                );
                "txnindex"
            } else if name.ends_with(".snapshot") && !in_metadata_log {
                let bytes = std::fs::read(path).unwrap();
                producer_snapshot::parse_producer_snapshot(&bytes)
                    .unwrap_or_else(|e| panic!("{ctx}: {e}"));
                "snapshot"
            } else if OFFSET_CHECKPOINTS.contains(&name.as_str()) {
                let bytes = std::fs::read(path).unwrap();
                let f =
                    super::parse_offset_checkpoint(&bytes).unwrap_or_else(|e| panic!("{ctx}: {e}"));
                let values: Vec<_> = f.values().cloned().collect();
                if !bytes.is_empty() {
                    assert_eq!(
                        super::encode_offset_checkpoint(&values).unwrap(),
                        bytes,
                        "{ctx}"
                    );
                }
                "offset checkpoint"
            } else if name == "leader-epoch-checkpoint" {
                let bytes = std::fs::read(path).unwrap();
                let f = leader_epoch::parse_leader_epoch_checkpoint(&bytes)
                    .unwrap_or_else(|e| panic!("{ctx}: {e}"));
                assert!(leader_epoch::leader_epoch_problems(&f).is_empty(), "{ctx}");
                let values: Vec<_> = f.values().copied().collect();
                if !bytes.is_empty() {
                    assert_eq!(
                        leader_epoch::encode_leader_epoch_checkpoint(&values),
                        bytes,
                        "{ctx}"
                    );
                }
                "leader-epoch-checkpoint"
            } else if name == "partition.metadata" {
                let bytes = std::fs::read(path).unwrap();
                let m = partition_metadata::parse_partition_metadata(&bytes)
                    .unwrap_or_else(|e| panic!("{ctx}: {e}"));
                assert!(m.canonical, "{ctx}");
                "partition.metadata"
            } else if name == "meta.properties" {
                let bytes = std::fs::read(path).unwrap();
                meta_properties::parse_meta_properties(&bytes)
                    .unwrap_or_else(|e| panic!("{ctx}: {e}"));
                "meta.properties"
            } else if name == ".kafka_cleanshutdown" {
                let bytes = std::fs::read(path).unwrap();
                let m = clean_shutdown::parse_clean_shutdown(&bytes)
                    .unwrap_or_else(|e| panic!("{ctx}: {e}"));
                if let Some(epoch) = m.broker_epoch() {
                    assert_eq!(clean_shutdown::encode_clean_shutdown(epoch), bytes, "{ctx}");
                }
                "clean shutdown"
            } else {
                continue;
            };
            *seen.entry(kind).or_default() += 1;
        }
        eprintln!("fixture files parsed: {seen:?}");
        for kind in [
            "index",
            "timeindex",
            "snapshot",
            "offset checkpoint",
            "leader-epoch-checkpoint",
            "partition.metadata",
            "meta.properties",
        ] {
            assert!(
                seen.contains_key(kind),
                "no {kind} file under fixtures/: {seen:?}"
            );
        }
    }
}
