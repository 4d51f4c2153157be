//! File and directory names as the broker writes and parses them.
//!
//! Partition dirs follow `LocalLog.parseTopicPartitionName` (spec formats §1.2); segment files are
//! `<20-digit base offset><suffix>` as `LogFileUtils` builds them (§1.3). Each parser has a
//! builder twin and the pair is round-trip tested.

use std::fmt;

/// Topic of the KRaft metadata log, whose dir is `__cluster_metadata-0`.
pub const METADATA_TOPIC: &str = "__cluster_metadata";

/// The group coordinator's compacted topic (committed offsets, group metadata).
pub const CONSUMER_OFFSETS_TOPIC: &str = "__consumer_offsets";

/// The transaction coordinator's compacted topic (transaction states).
pub const TRANSACTION_STATE_TOPIC: &str = "__transaction_state";

/// The share coordinator's state topic (KIP-932, Kafka 4.x).
pub const SHARE_GROUP_STATE_TOPIC: &str = "__share_group_state";

/// What the suffix of a partition dir says about it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case", tag = "state", content = "uid")]
pub enum PartitionDirState {
    /// `<topic>-<partition>`: a live replica.
    Live,
    /// `<topic'>-<partition>.<uid>-delete`: the topic or replica was deleted; the broker removes
    /// the dir after `file.delete.delay.ms`.
    Delete(String),
    /// `<topic>-<partition>.<uid>-future`: the target of an alter-log-dirs move.
    Future(String),
    /// `<topic'>-<partition>.<uid>-stray`: a replica the controller no longer assigns here.
    Stray(String),
}

impl PartitionDirState {
    fn suffix(&self) -> Option<(&'static str, &str)> {
        match self {
            PartitionDirState::Live => None,
            PartitionDirState::Delete(uid) => Some(("-delete", uid)),
            PartitionDirState::Future(uid) => Some(("-future", uid)),
            PartitionDirState::Stray(uid) => Some(("-stray", uid)),
        }
    }
}

/// A partition dir name taken apart.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PartitionDirName {
    /// Topic name (for `-delete`/`-stray` dirs possibly a truncated prefix of the real name).
    pub topic: String,
    /// Partition number.
    pub partition: i32,
    /// Live, or which kind of set-aside dir.
    pub state: PartitionDirState,
}

impl PartitionDirName {
    /// Whether this is the KRaft metadata log dir.
    pub fn is_metadata_log(&self) -> bool {
        self.topic == METADATA_TOPIC && self.state == PartitionDirState::Live
    }
}

impl fmt::Display for PartitionDirName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&build_partition_dir_name(self))
    }
}

/// Parse a partition dir name the way the broker does; `None` where the broker would throw.
pub fn parse_partition_dir_name(name: &str) -> Option<PartitionDirName> {
    let mut state = PartitionDirState::Live;
    let mut base = name;
    for (suffix, make) in [
        (
            "-delete",
            PartitionDirState::Delete as fn(String) -> PartitionDirState,
        ),
        ("-future", PartitionDirState::Future),
        ("-stray", PartitionDirState::Stray),
    ] {
        if let Some(rest) = name.strip_suffix(suffix) {
            // `^(\S+)-(\S+)\.(\S+)<suffix>$`, then everything from the last '.' is dropped.
            let dot = rest.rfind('.')?;
            let (head, uid) = (&rest[..dot], &rest[dot + 1..]);
            if uid.is_empty() || !head.contains('-') {
                return None;
            }
            state = make(uid.to_string());
            base = head;
            break;
        }
    }
    if base.chars().any(char::is_whitespace) {
        return None;
    }
    let dash = base.rfind('-')?;
    let (topic, partition) = (&base[..dash], &base[dash + 1..]);
    if topic.is_empty() || partition.is_empty() {
        return None;
    }
    let partition = parse_java_int(partition)?;
    Some(PartitionDirName {
        topic: topic.to_string(),
        partition,
        state,
    })
}

/// The longest legal topic name (`Topic.MAX_NAME_LENGTH`).
pub const MAX_TOPIC_NAME_LENGTH: usize = 249;

/// Whether `topic` is a name Kafka lets a topic have (`org.apache.kafka.common.internals.Topic
/// .validate`): 1 to 249 of the ASCII letters, digits, `.`, `_` and `-`, and not `.` or `..`.
/// The broker's dir-name parser does not check this (a dir `evil\x1b-0` loads as a partition
/// of topic `evil\x1b`), but no broker creates such a dir, so the mutating commands never act
/// on one (a name read from disk that is not UTF-8 reaches here as [`name_text`], whose `\`
/// fails too).
pub fn is_legal_topic_name(topic: &str) -> bool {
    !topic.is_empty()
        && topic.len() <= MAX_TOPIC_NAME_LENGTH
        && topic != "."
        && topic != ".."
        && topic
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// Build the dir name the broker would use (no length capping of `-delete`/`-stray` topics).
pub fn build_partition_dir_name(name: &PartitionDirName) -> String {
    match name.state.suffix() {
        None => format!("{}-{}", name.topic, name.partition),
        Some((suffix, uid)) => format!("{}-{}.{}{}", name.topic, name.partition, uid, suffix),
    }
}

/// Java's `Integer.parseInt`: optional sign, ASCII digits, in range.
fn parse_java_int(s: &str) -> Option<i32> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Kind of a file inside a partition dir, by suffix.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum SegmentFileKind {
    /// `.log`: record batches.
    Log,
    /// `.index`: offset index.
    Index,
    /// `.timeindex`: time index.
    TimeIndex,
    /// `.txnindex`: aborted-transaction index.
    TxnIndex,
    /// `.snapshot`: producer-state snapshot.
    Snapshot,
}

impl SegmentFileKind {
    /// The file-name suffix, with its dot.
    pub fn suffix(self) -> &'static str {
        match self {
            SegmentFileKind::Log => ".log",
            SegmentFileKind::Index => ".index",
            SegmentFileKind::TimeIndex => ".timeindex",
            SegmentFileKind::TxnIndex => ".txnindex",
            SegmentFileKind::Snapshot => ".snapshot",
        }
    }

    const ALL: [SegmentFileKind; 5] = [
        SegmentFileKind::Log,
        SegmentFileKind::Index,
        SegmentFileKind::TimeIndex,
        SegmentFileKind::TxnIndex,
        SegmentFileKind::Snapshot,
    ];
}

/// A leftover suffix of an interrupted or pending operation.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum LeftoverKind {
    /// `.deleted`: scheduled for asynchronous deletion (`file.delete.delay.ms`).
    Deleted,
    /// `.cleaned`: cleaner or split output not yet swapped in.
    Cleaned,
    /// `.swap`: cleaned or split segment being swapped in.
    Swap,
}

impl LeftoverKind {
    /// The file-name suffix, with its dot.
    pub fn suffix(self) -> &'static str {
        match self {
            LeftoverKind::Deleted => ".deleted",
            LeftoverKind::Cleaned => ".cleaned",
            LeftoverKind::Swap => ".swap",
        }
    }
}

/// A segment file name taken apart: `00000000000000001234.log.deleted`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SegmentFileName {
    /// The offset in the name (segment base offset; for snapshots, the snapshot offset).
    pub offset: i64,
    /// What the file holds.
    pub kind: SegmentFileKind,
    /// Set when the name carries a pending-operation suffix.
    pub leftover: Option<LeftoverKind>,
}

/// Parse a segment file name; `None` if it is not one (the caller reports it as unknown).
///
/// Kafka reads the number before the first `.` with `Long.parseLong`; we also require the 20-digit
/// zero padding Kafka always writes, so a hand-made `123.log` is reported rather than trusted.
pub fn parse_segment_file_name(name: &str) -> Option<SegmentFileName> {
    let (number, rest) = name.split_at(name.find('.')?);
    if number.len() < 20 {
        return None;
    }
    // Checked and read in one pass (every file of a partition dir is parsed several times).
    let mut offset: i64 = 0;
    for b in number.bytes() {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        offset = offset.checked_mul(10)?.checked_add(i64::from(digit))?;
    }
    let (rest, leftover) = [
        LeftoverKind::Deleted,
        LeftoverKind::Cleaned,
        LeftoverKind::Swap,
    ]
    .into_iter()
    .find_map(|l| rest.strip_suffix(l.suffix()).map(|r| (r, Some(l))))
    .unwrap_or((rest, None));
    let kind = SegmentFileKind::ALL
        .into_iter()
        .find(|k| k.suffix() == rest)?;
    Some(SegmentFileName {
        offset,
        kind,
        leftover,
    })
}

/// Build a segment file name: the offset zero-padded to 20 digits, then the suffixes.
pub fn build_segment_file_name(name: &SegmentFileName) -> String {
    let leftover = name.leftover.map(LeftoverKind::suffix).unwrap_or("");
    format!("{:020}{}{}", name.offset, name.kind.suffix(), leftover)
}

/// A name read from disk as text, losslessly: valid UTF-8 as it is, except that a backslash is
/// written `\\`; each byte of a sequence that is not valid UTF-8 is written `\xNN` (two
/// lowercase hex digits). So `ord\xe9rs-5` is the dir whose name holds the byte 0xE9, and the
/// original bytes can always be recovered (README "JSON output"). Used for every path and dir
/// name in reports, so a name that is not UTF-8 neither aborts a document nor loses bytes.
pub fn name_text(name: &std::ffi::OsStr) -> String {
    use std::os::unix::ffi::OsStrExt;
    // (Nearly every name: one copy.)
    if let Some(plain) = name.to_str().filter(|s| !s.contains('\\')) {
        return plain.to_owned();
    }
    let mut out = String::with_capacity(name.len());
    for chunk in name.as_bytes().utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                out.push_str("\\\\");
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// [`name_text`] of a whole path.
pub fn path_text(path: &std::path::Path) -> String {
    name_text(path.as_os_str())
}

/// `bytes` as one POSIX shell word that a shell reads back as exactly these bytes, for a
/// command a finding asks the reader to copy: as they are when every byte is plainly safe
/// (`/srv/kafka/logs-0/orders-0`); in single quotes when some are not but all are printable
/// (`'/srv/my logs/orders-0'`, a quote as `'\''`); else ANSI-C quoted with every control or
/// non-UTF-8 byte as `\xNN` (`$'/srv/logs/a\x1bb-0'`), so no byte from disk ever reaches
/// the terminal raw.
pub fn shell_word(bytes: &[u8]) -> String {
    let plain = |b: u8| b.is_ascii_alphanumeric() || b"/._-+=:,@%".contains(&b);
    if !bytes.is_empty() && bytes.iter().all(|&b| plain(b)) {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    match std::str::from_utf8(bytes) {
        Ok(s) if !s.chars().any(char::is_control) => format!("'{}'", s.replace('\'', "'\\''")),
        _ => {
            let mut out = String::from("$'");
            for chunk in bytes.utf8_chunks() {
                for c in chunk.valid().chars() {
                    match c {
                        '\\' | '\'' => {
                            out.push('\\');
                            out.push(c);
                        }
                        c if c.is_control() => {
                            let mut buf = [0u8; 4];
                            for b in c.encode_utf8(&mut buf).bytes() {
                                out.push_str(&format!("\\x{b:02x}"));
                            }
                        }
                        c => out.push(c),
                    }
                }
                for b in chunk.invalid() {
                    out.push_str(&format!("\\x{b:02x}"));
                }
            }
            out.push('\'');
            out
        }
    }
}

/// [`shell_word`] of a path.
pub fn shell_path(path: &std::path::Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    shell_word(path.as_os_str().as_bytes())
}

/// The name [`name_text`] wrote as `text`: `\\` is a backslash, `\xNN` (two lowercase hex
/// digits) the byte 0xNN; any other backslash stands for itself.
pub fn name_from_text(text: &str) -> std::ffi::OsString {
    use std::os::unix::ffi::OsStringExt;
    let hex = |b: u8| match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    };
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let escaped = match (b, bytes.get(i + 1)) {
            (b'\\', Some(b'\\')) => Some((b'\\', 2)),
            (b'\\', Some(b'x')) => bytes
                .get(i + 2)
                .and_then(|&h| hex(h))
                .zip(bytes.get(i + 3).and_then(|&l| hex(l)))
                .map(|(h, l)| ((h << 4) | l, 4)),
            _ => None,
        };
        let (byte, len) = escaped.unwrap_or((b, 1));
        out.push(byte);
        i += len;
    }
    std::ffi::OsString::from_vec(out)
}

/// Serde for a path as its [`path_text`]: every path in a JSON document (and a journal) is
/// text, a name that is not UTF-8 included, and reads back as the same bytes
/// ([`name_from_text`]). Use with `#[serde(with = "path_serde")]`.
pub mod path_serde {
    use std::path::{Path, PathBuf};

    use serde::{Deserialize, Deserializer, Serializer};

    /// Serialize `path` as its [`super::path_text`].
    pub fn serialize<S: Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::path_text(path))
    }

    /// The path whose [`super::path_text`] was serialized.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<PathBuf, D::Error> {
        let text = String::deserialize(d)?;
        Ok(PathBuf::from(super::name_from_text(&text)))
    }
}

/// [`path_serde`] for an optional path. Use with `#[serde(with = "opt_path_serde")]`.
pub mod opt_path_serde {
    use std::path::PathBuf;

    use serde::{Deserialize, Deserializer, Serializer};

    /// Serialize `path` as its [`super::path_text`], or null.
    pub fn serialize<S: Serializer>(path: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
        match path {
            Some(p) => s.serialize_some(&super::path_text(p)),
            None => s.serialize_none(),
        }
    }

    /// The path whose [`super::path_text`] was serialized, or `None`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
        let text = Option::<String>::deserialize(d)?;
        Ok(text.map(|t| PathBuf::from(super::name_from_text(&t))))
    }
}

/// A borrowed path that serializes as its [`path_text`] (the containers' helpers below).
struct TextPathRef<'a>(&'a std::path::Path);

impl serde::Serialize for TextPathRef<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&path_text(self.0))
    }
}

/// A path deserialized from its [`path_text`].
#[derive(serde::Deserialize)]
#[serde(transparent)]
struct TextPath(#[serde(with = "path_serde")] std::path::PathBuf);

/// [`path_serde`] for a list of paths. Use with `#[serde(with = "paths_serde")]`.
pub mod paths_serde {
    use std::path::PathBuf;

    use serde::{Deserialize, Deserializer, Serializer};

    /// Serialize each path as its [`super::path_text`].
    pub fn serialize<S: Serializer>(paths: &[PathBuf], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(paths.iter().map(|p| super::TextPathRef(p)))
    }

    /// The paths whose [`super::path_text`]s were serialized.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<PathBuf>, D::Error> {
        let v = Vec::<super::TextPath>::deserialize(d)?;
        Ok(v.into_iter().map(|p| p.0).collect())
    }
}

/// [`path_serde`] for a list of `(path, value)` pairs. Use with
/// `#[serde(with = "path_pairs_serde")]`.
pub mod path_pairs_serde {
    use std::path::PathBuf;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Serialize each pair as `[path text, value]`.
    pub fn serialize<T: Serialize, S: Serializer>(
        pairs: &[(PathBuf, T)],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_seq(pairs.iter().map(|(p, t)| (super::TextPathRef(p), t)))
    }

    /// The pairs serialized.
    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<(PathBuf, T)>, D::Error> {
        let v = Vec::<(super::TextPath, T)>::deserialize(d)?;
        Ok(v.into_iter().map(|(p, t)| (p.0, t)).collect())
    }
}

/// [`path_serde`] for a list of `(path, a, b)` triples. Use with
/// `#[serde(with = "path_triples_serde")]`.
pub mod path_triples_serde {
    use std::path::PathBuf;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Serialize each triple as `[path text, a, b]`.
    pub fn serialize<A: Serialize, B: Serialize, S: Serializer>(
        triples: &[(PathBuf, A, B)],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_seq(
            triples
                .iter()
                .map(|(p, a, b)| (super::TextPathRef(p), a, b)),
        )
    }

    /// The triples serialized.
    pub fn deserialize<'de, A: Deserialize<'de>, B: Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<(PathBuf, A, B)>, D::Error> {
        let v = Vec::<(super::TextPath, A, B)>::deserialize(d)?;
        Ok(v.into_iter().map(|(p, a, b)| (p.0, a, b)).collect())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn shell_words_read_back_as_the_same_bytes() {
        use super::shell_word;
        assert_eq!(
            shell_word(b"/srv/kafka/logs-0/orders-0"),
            "/srv/kafka/logs-0/orders-0"
        );
        assert_eq!(
            shell_word(b"/srv/my logs/o'rders-0"),
            "'/srv/my logs/o'\\''rders-0'"
        );
        assert_eq!(shell_word(b"/srv/a\x1bb\xe9-0"), "$'/srv/a\\x1bb\\xe9-0'");
        assert_eq!(shell_word(b""), "''");
        // What a shell makes of each: the bytes back.
        for name in [
            &b"/srv/my logs/o'rders-0"[..],
            b"/srv/a\x1b\\b\xe9'-0",
            b"plain",
        ] {
            let out = std::process::Command::new("bash")
                .arg("-c")
                .arg(format!("printf %s {}", shell_word(name)))
                .output()
                .unwrap();
            assert_eq!(out.stdout, name, "{}", shell_word(name));
        }
    }

    use super::*;

    fn live(topic: &str, partition: i32) -> PartitionDirName {
        PartitionDirName {
            topic: topic.into(),
            partition,
            state: PartitionDirState::Live,
        }
    }

    #[test]
    fn topics_with_dashes_and_dots() {
        assert_eq!(
            parse_partition_dir_name("my-topic.v2-13"),
            Some(live("my-topic.v2", 13))
        );
        assert_eq!(
            parse_partition_dir_name("__consumer_offsets-49"),
            Some(live("__consumer_offsets", 49))
        );
        assert!(parse_partition_dir_name("__cluster_metadata-0")
            .unwrap()
            .is_metadata_log());
    }

    #[test]
    fn name_text_reads_back_as_the_same_bytes() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        let names: [&[u8]; 7] = [
            b"orders-0",
            b"ord\xe9rs-5",
            b"a\\b\\\\c",
            b"a\\xe9",
            b"\\x4",
            b"\xff\xfe\\\x00\x1b]0;x\x07",
            "gr\u{f6}\u{df}e\u{202e}".as_bytes(),
        ];
        for n in names {
            let text = name_text(OsStr::from_bytes(n));
            assert_eq!(name_from_text(&text).as_bytes(), n, "{text}");
        }
        // A backslash that starts no escape stands for itself.
        assert_eq!(name_from_text("a\\qb\\x4").as_bytes(), b"a\\qb\\x4");
        let p = std::path::PathBuf::from(OsStr::from_bytes(b"/d/r\xff/a\\b"));
        let json = serde_json::to_string(&Wrapped { p: p.clone() }).unwrap();
        assert_eq!(json, r#"{"p":"/d/r\\xff/a\\\\b"}"#);
        assert_eq!(serde_json::from_str::<Wrapped>(&json).unwrap().p, p);
    }

    #[derive(serde::Serialize, serde::Deserialize)]
    struct Wrapped {
        #[serde(with = "path_serde")]
        p: std::path::PathBuf,
    }

    #[test]
    fn legal_topic_names() {
        for ok in ["orders", "a.b_c-D9", "__consumer_offsets", &"x".repeat(249)] {
            assert!(is_legal_topic_name(ok), "{ok}");
        }
        for bad in [
            "",
            ".",
            "..",
            "orders\x1b]0;pwned\x07",
            "ord\\xe9rs",
            "ord\u{fffd}rs",
            "größe",
            "a b",
            "a/b",
            &"x".repeat(250),
        ] {
            assert!(!is_legal_topic_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn set_aside_dirs() {
        let uid = "0123456789abcdef0123456789abcdef";
        let d = parse_partition_dir_name(&format!("orders-3.{uid}-delete")).unwrap();
        assert_eq!((d.topic.as_str(), d.partition), ("orders", 3));
        assert_eq!(d.state, PartitionDirState::Delete(uid.into()));
        let f = parse_partition_dir_name(&format!("a.b-c-0.{uid}-future")).unwrap();
        assert_eq!(
            (f.topic.as_str(), f.state),
            ("a.b-c", PartitionDirState::Future(uid.into()))
        );
        let s = parse_partition_dir_name(&format!("t-1.{uid}-stray")).unwrap();
        assert_eq!(s.state, PartitionDirState::Stray(uid.into()));
    }

    #[test]
    fn rejects_what_the_broker_rejects() {
        for bad in [
            "",
            "lost+found",
            "orders",
            "-1",
            "orders-",
            "orders-x",
            "orders-1-delete",
            "orders-99999999999",
            "a b-1",
            "orders-1.-delete",
        ] {
            assert_eq!(parse_partition_dir_name(bad), None, "{bad}");
        }
        // Java's parseInt takes a leading '+', so the broker does too.
        assert_eq!(parse_partition_dir_name("t-+1"), Some(live("t", 1)));
    }

    #[test]
    fn partition_dir_names_round_trip() {
        let uid = "0123456789abcdef0123456789abcdef".to_string();
        for state in [
            PartitionDirState::Live,
            PartitionDirState::Delete(uid.clone()),
            PartitionDirState::Future(uid.clone()),
            PartitionDirState::Stray(uid),
        ] {
            let name = PartitionDirName {
                topic: "a-b.c".into(),
                partition: 7,
                state,
            };
            assert_eq!(
                parse_partition_dir_name(&build_partition_dir_name(&name)),
                Some(name)
            );
        }
    }

    #[test]
    fn segment_file_names_round_trip() {
        for kind in SegmentFileKind::ALL {
            for leftover in [
                None,
                Some(LeftoverKind::Deleted),
                Some(LeftoverKind::Cleaned),
                Some(LeftoverKind::Swap),
            ] {
                let name = SegmentFileName {
                    offset: 1234,
                    kind,
                    leftover,
                };
                let text = build_segment_file_name(&name);
                assert!(text.starts_with("00000000000000001234."));
                assert_eq!(parse_segment_file_name(&text), Some(name));
            }
        }
    }

    #[test]
    fn unknown_segment_like_names() {
        for bad in [
            "backup.log",
            "1234.log",
            "00000000000000001234.log.bak",
            "00000000000000001234",
            "0000000000000000123x.log",
            "00000000000000001234.snapshot.swap.deleted",
            // Past `i64::MAX`, signed, not ASCII digits.
            "09223372036854775808.log",
            "99999999999999999999.log",
            "+0000000000000001234.log",
            "-0000000000000001234.log",
            "0000000000000000１234.log",
        ] {
            assert_eq!(parse_segment_file_name(bad), None, "{bad}");
        }
        // The largest offset, and more than 20 digits (leading zeros) as Kafka's `offsetFromFile`
        // reads them.
        let max = parse_segment_file_name("09223372036854775807.index").map(|n| n.offset);
        assert_eq!(max, Some(i64::MAX));
        let long = parse_segment_file_name("0000000000000000000042.log").map(|n| n.offset);
        assert_eq!(long, Some(42));
    }

    #[test]
    fn names_as_text_are_lossless() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        let text = |b: &[u8]| name_text(OsStr::from_bytes(b));
        assert_eq!(text(b"orders-0"), "orders-0");
        assert_eq!(text("caf\u{e9}-1".as_bytes()), "caf\u{e9}-1");
        assert_eq!(text(b"ord\xe9rs-5"), "ord\\xe9rs-5");
        assert_eq!(text(b"notes-\xff\xfe"), "notes-\\xff\\xfe");
        // A backslash is doubled, so a literal `\xe9` in a valid name stays distinct.
        assert_eq!(text(b"a\\xe9"), "a\\\\xe9");
        assert_ne!(text(b"a\\xe9"), text(b"a\xe9"));
        assert_eq!(
            path_text(std::path::Path::new(OsStr::from_bytes(b"/d/\x80/x"))),
            "/d/\\x80/x"
        );
    }
}
