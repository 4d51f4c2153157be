//! Wire form of findings (schema version 2): serialise-only mirrors of the domain
//! [`Finding`], [`Location`] and [`Evidence`], so the checks can change without breaking
//! consumers. Documented in README.md ("JSON output").

use std::borrow::Cow;

use crate::model::names::path_text;
use serde::{Deserialize, Serialize};

use crate::checks::finding::{Evidence, EvidenceValue, Finding, Location};

/// One finding on the wire; read back too (`logclean join` takes several brokers' reports).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FindingDoc {
    /// Catalog code, e.g. `log.truncated_tail`.
    pub code: Cow<'static, str>,
    /// `info`, `warning` or `error`.
    pub severity: Cow<'static, str>,
    /// `condition`, `corruption` or `io`.
    pub class: Cow<'static, str>,
    /// Where.
    pub location: LocationDoc,
    /// One sentence.
    pub message: String,
    /// Typed facts.
    pub evidence: Vec<EvidenceDoc>,
    /// What to do.
    pub fix: String,
    /// The bytes the finding is about (`checks::stake`): reports order findings of one
    /// severity by it, most first. Absent when it is about no bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_at_stake: Option<u64>,
    /// The bytes its fix frees (deleting them, or letting retention delete them); absent when
    /// the fix frees nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix_frees_bytes: Option<u64>,
}

/// A location on the wire; absent keys mean not applicable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocationDoc {
    /// The log dir.
    pub log_dir: String,
    /// Topic.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    /// Partition number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<i32>,
    /// Partition dir name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
    /// Segment base offset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segment: Option<i64>,
    /// File path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Byte position in the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub byte_offset: Option<u64>,
    /// Consumer group.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The node (broker id) whose log dir it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<i32>,
}

/// One typed fact on the wire: `{"name", "kind", "value"}`; `value` is a number for the
/// numeric kinds, a string for `path`, `text` and `problem`, a boolean for `flag`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "RawEvidenceDoc")]
pub struct EvidenceDoc {
    /// `snake_case` name.
    pub name: Cow<'static, str>,
    /// `offset`, `bytes`, `position`, `count`, `slot`, `int`, `timestamp_ms`, `crc32`, `path`,
    /// `text`, `flag` or `problem`.
    pub kind: Cow<'static, str>,
    /// The value.
    pub value: EvidenceValueDoc,
}

/// An evidence fact as read back, before its number takes the variant its kind names.
#[derive(Deserialize)]
struct RawEvidenceDoc {
    name: String,
    kind: String,
    value: EvidenceValueDoc,
}

impl From<RawEvidenceDoc> for EvidenceDoc {
    fn from(r: RawEvidenceDoc) -> Self {
        // Untagged, a number reads back as `Int` whenever it fits; the unsigned kinds are
        // `Unsigned` when written, so they are again.
        let unsigned = matches!(
            r.kind.as_str(),
            "bytes" | "position" | "count" | "slot" | "crc32"
        );
        let value = match r.value {
            EvidenceValueDoc::Int(v) if unsigned => {
                u64::try_from(v).map_or(EvidenceValueDoc::Int(v), EvidenceValueDoc::Unsigned)
            }
            v => v,
        };
        EvidenceDoc {
            name: Cow::Owned(r.name),
            kind: Cow::Owned(r.kind),
            value,
        }
    }
}

/// An evidence value on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EvidenceValueDoc {
    /// Signed numbers.
    Int(i64),
    /// Unsigned numbers.
    Unsigned(u64),
    /// Text.
    Text(String),
    /// Booleans.
    Flag(bool),
}

impl EvidenceDoc {
    /// Wire form of one fact.
    pub fn new(e: &Evidence) -> Self {
        use EvidenceValueDoc as V;
        let value = match &e.value {
            EvidenceValue::Offset(v) | EvidenceValue::Int(v) | EvidenceValue::TimestampMs(v) => {
                V::Int(*v)
            }
            EvidenceValue::Bytes(v)
            | EvidenceValue::Position(v)
            | EvidenceValue::Count(v)
            | EvidenceValue::Slot(v) => V::Unsigned(*v),
            EvidenceValue::Crc(v) => V::Unsigned(u64::from(*v)),
            EvidenceValue::Path(p) => V::Text(path_text(p)),
            EvidenceValue::Text(t) => V::Text(t.clone()),
            EvidenceValue::Flag(b) => V::Flag(*b),
            EvidenceValue::Problem(p) => V::Text((*p).to_string()),
        };
        EvidenceDoc {
            name: Cow::Borrowed(e.name),
            kind: Cow::Borrowed(e.value.kind()),
            value,
        }
    }
}

impl LocationDoc {
    /// Wire form of a location.
    pub fn new(l: &Location) -> Self {
        LocationDoc {
            log_dir: path_text(&l.log_dir),
            topic: l.topic.clone(),
            partition: l.partition,
            dir: l.dir.clone(),
            segment: l.segment,
            file: l.file.as_deref().map(path_text),
            byte_offset: l.byte_offset,
            group: l.group.clone(),
            node: l.node,
        }
    }
}

impl FindingDoc {
    /// Wire form of a finding.
    pub fn new(f: &Finding) -> Self {
        let stake = crate::checks::stake::stake(f);
        FindingDoc {
            code: Cow::Borrowed(f.code),
            severity: Cow::Borrowed(f.severity.name()),
            class: Cow::Borrowed(f.class.name()),
            location: LocationDoc::new(&f.location),
            message: f.message.clone(),
            evidence: f.evidence.iter().map(EvidenceDoc::new).collect(),
            fix: f.fix.clone(),
            bytes_at_stake: stake.map(|s| s.bytes),
            fix_frees_bytes: stake.filter(|s| s.freed_by_fix).map(|s| s.bytes),
        }
    }

    /// Wire form of many findings, in order.
    pub fn all(findings: &[Finding]) -> Vec<FindingDoc> {
        findings.iter().map(FindingDoc::new).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::catalog;
    use std::path::PathBuf;

    #[test]
    fn finding_wire_shape() {
        let f = Finding::new(
            &catalog::LOG_TRUNCATED_TAIL,
            Location {
                log_dir: PathBuf::from("/d"),
                topic: Some("t".into()),
                partition: Some(3),
                dir: Some("t-3".into()),
                segment: Some(10),
                file: Some(PathBuf::from("/d/t-3/00000000000000000010.log")),
                byte_offset: Some(7),
                group: None,
                node: None,
            },
            "m",
        )
        .evidence("declared", EvidenceValue::Bytes(512))
        .evidence("first_timestamp", EvidenceValue::TimestampMs(-1))
        .evidence("lock_file", EvidenceValue::Flag(true))
        .evidence("problem", EvidenceValue::Problem("partial_tail"));
        let v = serde_json::to_value(FindingDoc::new(&f)).unwrap();
        assert_eq!(
            v,
            serde_json::json!({
                "code": "log.truncated_tail",
                "severity": "error",
                "class": "corruption",
                "location": {
                    "log_dir": "/d", "topic": "t", "partition": 3, "dir": "t-3", "segment": 10,
                    "file": "/d/t-3/00000000000000000010.log", "byte_offset": 7
                },
                "message": "m",
                "evidence": [
                    {"name": "declared", "kind": "bytes", "value": 512},
                    {"name": "first_timestamp", "kind": "timestamp_ms", "value": -1},
                    {"name": "lock_file", "kind": "flag", "value": true},
                    {"name": "problem", "kind": "problem", "value": "partial_tail"}
                ],
                "fix": catalog::LOG_TRUNCATED_TAIL.fix,
                // Its largest bytes evidence; the fix of a truncated tail frees nothing.
                "bytes_at_stake": 512
            })
        );
    }
}
