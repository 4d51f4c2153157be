//! `meta.properties` at the root of every log dir: a Java `.properties` file with `version`,
//! `cluster.id`, `node.id` (or `broker.id` in v0) and `directory.id`.
//!
//! Source: Kafka `metadata/src/main/java/org/apache/kafka/metadata/properties/MetaProperties.java`,
//! `MetaPropertiesVersion.java`, `PropertiesUtils.java` (which reads with
//! `java.util.Properties.load(InputStream)`); spec: kafka-on-disk-formats.md §2.5.
//!
//! The properties layer follows `Properties.load(InputStream)`: bytes are ISO-8859-1 (so any
//! byte sequence decodes; this file is not checked for UTF-8), lines end at `\n`, `\r` or `\r\n`,
//! leading spaces/tabs/form feeds are skipped, `#` and `!` start comments, a line ending in an odd
//! number of backslashes continues on the next, the key ends at the first unescaped `=`, `:` or
//! whitespace, and `\t \n \r \f \uNNNN` and `\<other>` escapes are decoded. A duplicate key
//! keeps its last value.
//!
//! The Kafka layer follows `MetaProperties.Builder(Properties)` and `build()`: `version` (trimmed
//! int, default 0) must be 0, 1 or 2 (2 exists in later trunk; its rules here, `node.id` and
//! `directory.id` required and `cluster.id` optional, come from `MetaPropertiesVersion`'s doc and
//! are unconfirmed for 4.x); v0 reads an optional `broker.id`, v1 and v2 a required `node.id`; v1
//! requires `cluster.id`; `directory.id`, when present, must be a [`Uuid`].
//!
//! Kafka reads an empty, NUL-filled or garbage file as a valid v0 file with no ids (and a KRaft
//! file without its `version` line as v0, dropping `node.id`); here those are errors, since no
//! broker writes them: they are what a torn write, a zero-filled block or a wrong file leaves.

use super::checkpoint::java_parse_i32;
use super::error::{ErrorKind, FormatError, FormatResult};
use super::partition_metadata::Uuid;

/// A `meta.properties` version (`MetaPropertiesVersion`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum MetaPropertiesVersion {
    /// ZooKeeper-era file (also the default when `version` is absent): `broker.id` optional.
    V0,
    /// KRaft: `node.id` and `cluster.id` required.
    V1,
    /// Later KRaft: `node.id` and `directory.id` required, `cluster.id` optional.
    V2,
}

/// One `key=value` of a properties file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Property {
    /// The key, escapes decoded.
    pub key: String,
    /// The value, escapes decoded (trailing whitespace kept, as Java does).
    pub value: String,
    /// 1-based number of the (first natural) line the property starts on.
    pub line: usize,
    /// Byte position of that line.
    pub offset: u64,
}

/// A parsed `meta.properties`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MetaProperties {
    /// The version.
    pub version: MetaPropertiesVersion,
    /// `cluster.id`, if present.
    pub cluster_id: Option<String>,
    /// `node.id` (v1, v2) or `broker.id` (v0), if present.
    pub node_id: Option<i32>,
    /// `directory.id`, if present.
    pub directory_id: Option<Uuid>,
    /// Every property in file order (duplicates included; Kafka uses the last one).
    pub properties: Vec<Property>,
}

impl MetaProperties {
    /// The value Java's `Properties` would return for `key` (the last occurrence).
    pub fn get(&self, key: &str) -> Option<&Property> {
        find(&self.properties, key)
    }
}

fn find<'a>(props: &'a [Property], key: &str) -> Option<&'a Property> {
    props.iter().rev().find(|p| p.key == key)
}

/// Parse a Java `.properties` file the way `Properties.load(InputStream)` does. Fails only on a
/// malformed `\uNNNN` escape ([`ErrorKind::BadText`] at the byte offset of its line).
pub fn parse_properties(bytes: &[u8]) -> FormatResult<Vec<Property>> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    let mut line_no = 0usize;
    while pos < bytes.len() {
        // One logical line: natural lines joined by continuations.
        let start = pos;
        line_no += 1;
        let first_line = line_no;
        let mut logical: Vec<char> = Vec::new();
        let mut first = true;
        loop {
            let (natural, next) = natural_line(bytes, pos);
            pos = next;
            let trimmed = skip_ws(natural);
            if first {
                if trimmed.is_empty() {
                    break;
                }
                if matches!(trimmed.first(), Some(b'#' | b'!')) {
                    break;
                }
            }
            first = false;
            logical.extend(trimmed.iter().map(|&b| char::from(b)));
            let trailing = logical.iter().rev().take_while(|&&c| c == '\\').count();
            if trailing % 2 == 1 {
                logical.pop();
                if pos >= bytes.len() {
                    break;
                }
                line_no += 1;
                continue;
            }
            break;
        }
        if logical.is_empty() && first {
            continue;
        }
        let (key, value) = split_property(&logical);
        let err = |why: &str| {
            FormatError::new(
                ErrorKind::BadText(format!("line {first_line}: {why}")),
                start as u64,
            )
        };
        out.push(Property {
            key: unescape(key).map_err(err)?,
            value: unescape(value).map_err(err)?,
            line: first_line,
            offset: start as u64,
        });
    }
    Ok(out)
}

/// The keys Kafka reads from `meta.properties`.
const KEYS: [&str; 5] = [
    "version",
    "cluster.id",
    "node.id",
    "broker.id",
    "directory.id",
];

/// Parse `meta.properties`. Beyond Kafka's own rules, a file Kafka never writes is an error: a
/// NUL byte anywhere, no property at all (empty, or only comments), none of Kafka's keys
/// (garbage), or `node.id` without `version`. Errors: [`ErrorKind::BadText`] (escapes),
/// [`ErrorKind::UnsupportedVersion`], or [`ErrorKind::InvalidField`] for a missing or bad field,
/// at the byte offset of the property's line (0 for a missing one).
pub fn parse_meta_properties(bytes: &[u8]) -> FormatResult<MetaProperties> {
    if let Some(at) = bytes.iter().position(|&b| b == 0) {
        return Err(FormatError::new(
            ErrorKind::BadText(format!(
                "NUL byte at byte {at}: Kafka never writes one (a torn write or a zero-filled file)"
            )),
            at as u64,
        ));
    }
    let properties = parse_properties(bytes)?;
    check_written_by_kafka(bytes, &properties)?;
    let version = meta_version(&properties)?;
    let node_id = meta_node_id(&properties, version)?;
    let cluster_id = find(&properties, "cluster.id").map(|p| p.value.clone());
    if cluster_id.is_none() && version == MetaPropertiesVersion::V1 {
        return Err(invalid("cluster.id", "missing".into(), 0));
    }
    let directory_id = match find(&properties, "directory.id") {
        None if version == MetaPropertiesVersion::V2 => {
            return Err(invalid("directory.id", "missing".into(), 0));
        }
        None => None,
        Some(p) => Some(
            Uuid::from_base64(&p.value)
                .map_err(|e| invalid("directory.id", format!("line {}: {e}", p.line), p.offset))?,
        ),
    };
    Ok(MetaProperties {
        version,
        cluster_id,
        node_id,
        directory_id,
        properties,
    })
}

/// A missing or bad `field`, reported at byte offset `at`.
fn invalid(field: &'static str, reason: String, at: u64) -> FormatError {
    FormatError::new(ErrorKind::InvalidField { field, reason }, at)
}

/// Reject what Kafka never writes although `Properties.load` accepts it: no property at all,
/// none of Kafka's keys, or `node.id` without the `version` that gives it meaning.
fn check_written_by_kafka(bytes: &[u8], properties: &[Property]) -> FormatResult<()> {
    if properties.is_empty() {
        let what = if bytes.is_empty() {
            "the file is empty"
        } else {
            "the file holds only comments or blank lines"
        };
        return Err(FormatError::new(
            ErrorKind::BadText(format!("no properties: {what}")),
            0,
        ));
    }
    if !properties.iter().any(|p| KEYS.contains(&p.key.as_str())) {
        return Err(FormatError::new(
            ErrorKind::BadText(format!(
                "none of {} is set: not a meta.properties file",
                KEYS.join(", ")
            )),
            0,
        ));
    }
    if find(properties, "version").is_none() {
        if let Some(p) = find(properties, "node.id") {
            return Err(invalid(
                "version",
                format!(
                    "missing, but line {} has node.id: a KRaft file that lost its version line \
                     (Kafka would read it as version 0 and ignore node.id)",
                    p.line
                ),
                0,
            ));
        }
    }
    Ok(())
}

/// The `version` property (0 when absent, as Kafka reads it).
fn meta_version(properties: &[Property]) -> FormatResult<MetaPropertiesVersion> {
    let Some(p) = find(properties, "version") else {
        return Ok(MetaPropertiesVersion::V0);
    };
    let n = java_parse_i32(p.value.trim_matches(|c: char| c <= ' ')).ok_or_else(|| {
        invalid(
            "version",
            format!("line {}: not an int: {:?}", p.line, p.value),
            p.offset,
        )
    })?;
    match n {
        0 => Ok(MetaPropertiesVersion::V0),
        1 => Ok(MetaPropertiesVersion::V1),
        2 => Ok(MetaPropertiesVersion::V2),
        _ => Err(FormatError::new(
            ErrorKind::UnsupportedVersion {
                what: "meta.properties",
                version: i64::from(n),
            },
            p.offset,
        )),
    }
}

/// The node id: `broker.id` in a version 0 file (optional there), `node.id` in later ones.
fn meta_node_id(
    properties: &[Property],
    version: MetaPropertiesVersion,
) -> FormatResult<Option<i32>> {
    let id_key = if version == MetaPropertiesVersion::V0 {
        "broker.id"
    } else {
        "node.id"
    };
    match find(properties, id_key) {
        None if version != MetaPropertiesVersion::V0 => {
            Err(invalid("node.id", "missing".into(), 0))
        }
        None => Ok(None),
        Some(p) => Ok(Some(java_parse_i32(&p.value).ok_or_else(|| {
            invalid(
                id_key,
                format!("line {}: not an int: {:?}", p.line, p.value),
                p.offset,
            )
        })?)),
    }
}

/// The natural line starting at `pos` (without terminator) and the position after it.
fn natural_line(bytes: &[u8], pos: usize) -> (&[u8], usize) {
    let rest = bytes.get(pos..).unwrap_or(&[]);
    let end = rest
        .iter()
        .position(|&b| b == b'\n' || b == b'\r')
        .unwrap_or(rest.len());
    let line = rest.get(..end).unwrap_or(&[]);
    let term = match (rest.get(end), rest.get(end + 1)) {
        (Some(b'\r'), Some(b'\n')) => 2,
        (Some(_), _) => 1,
        (None, _) => 0,
    };
    (line, pos + end + term)
}

fn is_prop_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | 0x0c)
}

fn skip_ws(line: &[u8]) -> &[u8] {
    let n = line.iter().take_while(|&&b| is_prop_ws(b)).count();
    line.get(n..).unwrap_or(&[])
}

/// Java's key/value split of `Properties.load0` over a logical line (still escaped).
fn split_property(line: &[char]) -> (&[char], &[char]) {
    let limit = line.len();
    let mut key_len = 0usize;
    let mut value_start = limit;
    let mut has_sep = false;
    let mut backslash = false;
    while let Some(&c) = line.get(key_len) {
        if (c == '=' || c == ':') && !backslash {
            value_start = key_len + 1;
            has_sep = true;
            break;
        } else if matches!(c, ' ' | '\t' | '\u{0c}') && !backslash {
            value_start = key_len + 1;
            break;
        }
        backslash = c == '\\' && !backslash;
        key_len += 1;
    }
    while let Some(&c) = line.get(value_start) {
        if !matches!(c, ' ' | '\t' | '\u{0c}') {
            if !has_sep && (c == '=' || c == ':') {
                has_sep = true;
            } else {
                break;
            }
        }
        value_start += 1;
    }
    (
        line.get(..key_len).unwrap_or(&[]),
        line.get(value_start..).unwrap_or(&[]),
    )
}

/// Java's `loadConvert`: decode backslash escapes.
fn unescape(s: &[char]) -> Result<String, &'static str> {
    let mut out = String::with_capacity(s.len());
    let mut it = s.iter().copied();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('u') => {
                let mut v = 0u32;
                for _ in 0..4 {
                    let d = it.next().and_then(|h| h.to_digit(16));
                    v = v * 16 + d.ok_or("malformed \\uxxxx escape")?;
                }
                // Lone surrogates cannot be a Rust char; Kafka never writes them.
                out.push(char::from_u32(v).ok_or("\\uxxxx escape is a lone surrogate")?);
            }
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('n') => out.push('\n'),
            Some('f') => out.push('\u{0c}'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a panic is the failure report
mod tests {
    use super::*;

    const KAFKA_4: &str = "#\n#Mon Jan 06 10:00:00 UTC 2025\nnode.id=1\ndirectory.id=AAAAAAAAAAAAAAAAAAAAAQ\nversion=1\ncluster.id=q1Sh-9_ISia_zwGINzRvyQ\n";

    #[test]
    fn parses_kafka_written_file() {
        let m = parse_meta_properties(KAFKA_4.as_bytes()).unwrap();
        assert_eq!(m.version, MetaPropertiesVersion::V1);
        assert_eq!(m.node_id, Some(1));
        assert_eq!(m.cluster_id.as_deref(), Some("q1Sh-9_ISia_zwGINzRvyQ"));
        assert_eq!(m.directory_id, Some(Uuid::from_halves(0, 1)));
        assert_eq!(m.properties.len(), 4);
        assert_eq!((m.properties[0].line, m.properties[0].offset), (3, 32));
    }

    #[test]
    fn properties_syntax() {
        let text = b"  ! comment\n\n a = b \nc:d\ne f\\\n   g\nh\\=i=j\\u0041\\tk\nempty\nlast=1\\";
        let p = parse_properties(text).unwrap();
        let kv: Vec<_> = p
            .iter()
            .map(|p| (p.key.as_str(), p.value.as_str()))
            .collect();
        assert_eq!(
            kv,
            vec![
                ("a", "b "),
                ("c", "d"),
                ("e", "fg"),
                ("h=i", "jA\tk"),
                ("empty", ""),
                ("last", "1")
            ]
        );
        assert_eq!(p[2].line, 5);
        assert_eq!(p[3].line, 7);
    }

    #[test]
    fn latin1_bytes_decode() {
        let p = parse_properties(b"k=\xe9").unwrap();
        assert_eq!(p[0].value, "\u{e9}");
    }

    #[test]
    fn bad_escape_names_line() {
        let e = parse_properties(b"a=1\nb=\\u12x4\n").unwrap_err();
        assert_eq!(e.offset, 4);
        assert!(matches!(&e.kind, ErrorKind::BadText(m) if m.starts_with("line 2")));
    }

    #[test]
    fn kafka_rules() {
        // v0 default, broker.id optional.
        let m = parse_meta_properties(b"cluster.id=x\n").unwrap();
        assert_eq!((m.version, m.node_id), (MetaPropertiesVersion::V0, None));
        let m = parse_meta_properties(b"version=0\nbroker.id=5\n").unwrap();
        assert_eq!(m.node_id, Some(5));
        // Version string is trimmed.
        assert_eq!(
            parse_meta_properties(b"version= 1 \nnode.id=1\ncluster.id=c")
                .unwrap()
                .version,
            MetaPropertiesVersion::V1
        );
        // v1 requires node.id and cluster.id.
        assert!(matches!(
            parse_meta_properties(b"version=1\ncluster.id=c")
                .unwrap_err()
                .kind,
            ErrorKind::InvalidField {
                field: "node.id",
                ..
            }
        ));
        assert!(matches!(
            parse_meta_properties(b"version=1\nnode.id=1")
                .unwrap_err()
                .kind,
            ErrorKind::InvalidField {
                field: "cluster.id",
                ..
            }
        ));
        // Bad values.
        let e = parse_meta_properties(b"version=1\ncluster.id=c\nnode.id=x\n").unwrap_err();
        assert_eq!(e.offset, 23);
        assert!(matches!(
            parse_meta_properties(b"version=7").unwrap_err().kind,
            ErrorKind::UnsupportedVersion { version: 7, .. }
        ));
        assert!(
            parse_meta_properties(b"version=1\ncluster.id=c\nnode.id=1\ndirectory.id=zz").is_err()
        );
        // Last duplicate wins.
        assert_eq!(
            parse_meta_properties(b"broker.id=1\nbroker.id=2")
                .unwrap()
                .node_id,
            Some(2)
        );
    }

    /// A real broker-written file (fixture), and damaged copies of it.
    #[test]
    fn damaged_fixture_files_are_errors() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/kraft-metadata/logs-0/meta.properties"
        );
        let real = std::fs::read(path).unwrap();
        let m = parse_meta_properties(&real).unwrap();
        assert_eq!((m.version, m.node_id), (MetaPropertiesVersion::V1, Some(1)));
        let text = |e: FormatError| e.kind.to_string();

        let e = parse_meta_properties(b"").unwrap_err();
        assert!(text(e).contains("the file is empty"));
        // Comments only (the two header lines Kafka writes, nothing after).
        let header: Vec<u8> = real
            .split(|&b| b == b'\n')
            .take(2)
            .collect::<Vec<_>>()
            .join(&b'\n');
        let e = parse_meta_properties(&header).unwrap_err();
        assert!(text(e).contains("only comments"));
        // Zero-filled, same length (delayed allocation after a crash).
        let e = parse_meta_properties(&vec![0u8; real.len()]).unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(text(e).contains("NUL byte at byte 0"));
        // A NUL block in the middle.
        let mut torn = real.clone();
        torn[40..48].fill(0);
        assert_eq!(parse_meta_properties(&torn).unwrap_err().offset, 40);
        // Garbage: no key=value line, none of Kafka's keys.
        let e = parse_meta_properties(b"\x89PNG\r\n\x1a\nIHDR garbage here\n").unwrap_err();
        assert!(text(e).contains("not a meta.properties file"));
        // Each required line removed in turn.
        let without = |key: &str| -> Vec<u8> {
            real.split(|&b| b == b'\n')
                .filter(|l| !l.starts_with(key.as_bytes()))
                .collect::<Vec<_>>()
                .join(&b'\n')
        };
        for (key, field) in [
            ("version=", "version"),
            ("node.id=", "node.id"),
            ("cluster.id=", "cluster.id"),
        ] {
            let e = parse_meta_properties(&without(key)).unwrap_err();
            assert!(
                matches!(&e.kind, ErrorKind::InvalidField { field: f, .. } if *f == field),
                "{key}: {e:?}"
            );
        }
        // A ZooKeeper-mode file (v0 with broker.id) is still fine.
        let zk = parse_meta_properties(
            b"#\nversion=0\nbroker.id=1\ncluster.id=TG9nQ2xlYW5GaXh0dXJlcw\n",
        )
        .unwrap();
        assert_eq!(
            (zk.version, zk.node_id),
            (MetaPropertiesVersion::V0, Some(1))
        );
    }

    #[test]
    fn garbage_and_truncation_never_panic() {
        let b = KAFKA_4.as_bytes();
        for n in 0..=b.len() {
            let _ = parse_meta_properties(&b[..n]);
        }
        let _ = parse_meta_properties(b"\\\\\\\n\\u\\u00\r\r\n=:= \\");
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200)) {
            let _ = parse_meta_properties(&bytes);
        }
    }
}
