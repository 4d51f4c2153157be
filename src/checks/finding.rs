//! A finding: one thing logclean noticed, where, why it matters and what to do. Domain types
//! only: the JSON shape is `report::wire::findings`, the table is `report::table`.

use std::path::PathBuf;

use super::catalog::FindingKind;

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Worth knowing; nothing is wrong.
    Info,
    /// Not what a healthy broker leaves; may cost disk or correctness later.
    Warning,
    /// Wrong now: data, an index or a checkpoint the broker will mis-read or reject.
    Error,
}

impl Severity {
    /// Every severity, lowest first.
    pub const ALL: [Severity; 3] = [Severity::Info, Severity::Warning, Severity::Error];

    /// The name used in JSON, tables and the README.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// What class of problem a finding is; decides the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FindingClass {
    /// A state of the log dir (leftovers, unclean shutdown, retention facts, ...).
    Condition,
    /// Bytes that break their format (exit code 2).
    Corruption,
    /// A file or dir that could not be read (exit code 3).
    Io,
}

impl FindingClass {
    /// The name used in JSON, tables and the README.
    pub fn name(self) -> &'static str {
        match self {
            FindingClass::Condition => "condition",
            FindingClass::Corruption => "corruption",
            FindingClass::Io => "io",
        }
    }
}

/// Where a finding is. Every field but `log_dir` is optional: absent means not applicable.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Location {
    /// The log dir.
    pub log_dir: PathBuf,
    /// The topic, when the finding is about one topic (from the dir name or the metadata log).
    pub topic: Option<String>,
    /// The partition number.
    pub partition: Option<i32>,
    /// The partition dir name, as on disk.
    pub dir: Option<String>,
    /// The segment's base offset, when the finding is about one segment.
    pub segment: Option<i64>,
    /// The file, when the finding is about one file.
    pub file: Option<PathBuf>,
    /// Byte position in that file.
    pub byte_offset: Option<u64>,
    /// The consumer group, for group findings.
    pub group: Option<String>,
    /// The node (broker id) whose log dir it is, from the dir's `meta.properties`: what tells
    /// replicas of one partition apart when several brokers' dirs or reports are read together.
    pub node: Option<i32>,
}

/// One typed fact behind a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence {
    /// Stable `snake_case` name, e.g. `declared_bytes`.
    pub name: &'static str,
    /// The value, typed so each renderer can show it its own way.
    pub value: EvidenceValue,
}

/// A typed evidence value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EvidenceValue {
    /// A Kafka offset.
    Offset(i64),
    /// A size in bytes.
    Bytes(u64),
    /// A byte position in a file.
    Position(u64),
    /// A number of things.
    Count(u64),
    /// A slot number of an index.
    Slot(u64),
    /// A plain integer read from disk (a version, a relative offset, a raw field).
    Int(i64),
    /// Milliseconds since the epoch.
    TimestampMs(i64),
    /// A CRC-32/CRC-32C value.
    Crc(u32),
    /// A file or dir.
    Path(PathBuf),
    /// Free text (may come from disk: renderers escape it for terminals).
    Text(String),
    /// Yes or no.
    Flag(bool),
    /// The name of a problem kind: starts one example in a bounded summary (see
    /// `checks::problems`); the evidence after it, up to the next `Problem`, describes it.
    Problem(&'static str),
}

impl EvidenceValue {
    /// The kind name used on the wire.
    pub fn kind(&self) -> &'static str {
        match self {
            EvidenceValue::Offset(_) => "offset",
            EvidenceValue::Bytes(_) => "bytes",
            EvidenceValue::Position(_) => "position",
            EvidenceValue::Count(_) => "count",
            EvidenceValue::Slot(_) => "slot",
            EvidenceValue::Int(_) => "int",
            EvidenceValue::TimestampMs(_) => "timestamp_ms",
            EvidenceValue::Crc(_) => "crc32",
            EvidenceValue::Path(_) => "path",
            EvidenceValue::Text(_) => "text",
            EvidenceValue::Flag(_) => "flag",
            EvidenceValue::Problem(_) => "problem",
        }
    }
}

/// Whether `fix` says, without condition, that nothing needs doing (`none needed: …`,
/// `none needed; …`; not `none needed if …`, which asks the reader to check something).
pub fn fix_needs_no_action(fix: &str) -> bool {
    fix.strip_prefix("none needed")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([':', ';', '.']))
}

/// One finding. Exit codes mean action: a finding whose fix is "none needed"
/// ([`fix_needs_no_action`]) is info, whatever its kind or rule says, so it never makes the
/// exit code 1 (or 2) unless `--fail-on info`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The catalog entry this finding is an instance of.
    pub kind: &'static FindingKind,
    /// Stable identifier, `kind.code` (documented in the README).
    pub code: &'static str,
    /// How much it matters (the kind's default unless a rule overrides it).
    pub severity: Severity,
    /// Condition, corruption or I/O (the kind's unless a rule overrides it).
    pub class: FindingClass,
    /// Where.
    pub location: Location,
    /// One sentence saying what is wrong.
    pub message: String,
    /// Facts behind it, typed.
    pub evidence: Vec<Evidence>,
    /// What an operator should do (the kind's fix unless the rule knows better).
    pub fix: String,
}

impl Finding {
    /// A finding of `kind` at its default severity, class and fix, with no evidence yet.
    pub fn new(kind: &'static FindingKind, location: Location, message: impl Into<String>) -> Self {
        Finding {
            kind,
            code: kind.code,
            severity: kind.severity,
            class: kind.class,
            location,
            message: message.into(),
            evidence: Vec::new(),
            fix: kind.fix.to_string(),
        }
        .settled()
    }

    /// The same finding at info when its fix needs no action (the one place that rule lives).
    fn settled(mut self) -> Self {
        if fix_needs_no_action(&self.fix) {
            self.severity = Severity::Info;
        }
        self
    }

    /// Add one fact.
    pub fn evidence(mut self, name: &'static str, value: EvidenceValue) -> Self {
        self.evidence.push(Evidence { name, value });
        self
    }

    /// Add several facts.
    pub fn with_evidence(mut self, items: impl IntoIterator<Item = Evidence>) -> Self {
        self.evidence.extend(items);
        self
    }

    /// A fix more specific than the kind's (ignored when empty).
    pub fn fix(mut self, fix: impl Into<String>) -> Self {
        let fix = fix.into();
        if !fix.is_empty() {
            self.fix = fix;
        }
        self.settled()
    }

    /// The same finding at another severity (a rule that depends on what the broker does next).
    /// (A fix that needs no action keeps it at info.)
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self.settled()
    }

    /// The same finding in another class (a rule that depends on what the broker does next).
    pub fn with_class(mut self, class: FindingClass) -> Self {
        self.class = class;
        self
    }

    /// Sort key: location first, so reports are the same however the scan was parallelised.
    /// Log dir, partition dir, file and byte decide; the code breaks ties.
    #[allow(clippy::type_complexity)]
    pub fn sort_key(
        &self,
    ) -> (
        &PathBuf,
        &Option<String>,
        &Option<PathBuf>,
        Option<u64>,
        &'static str,
        &Location,
    ) {
        let l = &self.location;
        (
            &l.log_dir,
            &l.dir,
            &l.file,
            l.byte_offset,
            self.code,
            &self.location,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::catalog;

    #[test]
    fn new_takes_the_kinds_defaults() {
        let f = Finding::new(&catalog::LOG_TRUNCATED_TAIL, Location::default(), "m");
        assert_eq!(f.code, "log.truncated_tail");
        assert_eq!(f.severity, Severity::Error);
        assert_eq!(f.class, FindingClass::Corruption);
        assert_eq!(f.fix, catalog::LOG_TRUNCATED_TAIL.fix);
        let f = f
            .with_severity(Severity::Warning)
            .with_class(FindingClass::Condition)
            .fix("")
            .evidence("declared", EvidenceValue::Bytes(3));
        assert_eq!(f.severity, Severity::Warning);
        assert_eq!(f.class, FindingClass::Condition);
        assert_eq!(
            f.fix,
            catalog::LOG_TRUNCATED_TAIL.fix,
            "an empty fix keeps the kind's"
        );
        assert_eq!(f.evidence.len(), 1);
    }

    #[test]
    fn a_fix_that_needs_no_action_makes_the_finding_info() {
        let loc = Location::default;
        let f = Finding::new(&catalog::LOG_TRUNCATED_TAIL, loc(), "m")
            .with_severity(Severity::Warning)
            .fix("none needed: the broker's recovery truncates it");
        assert_eq!(f.severity, Severity::Info);
        let f = f.with_severity(Severity::Error);
        assert_eq!(f.severity, Severity::Info, "raising it again keeps it info");
        let f = Finding::new(&catalog::LOG_TRUNCATED_TAIL, loc(), "m")
            .fix("none needed if the broker recovers it; otherwise restore it");
        assert_eq!(
            f.severity,
            Severity::Error,
            "a conditional fix may need action"
        );
        assert!(fix_needs_no_action("none needed; the broker rebuilds it"));
        assert!(!fix_needs_no_action("none needed if the new default suits"));
        assert!(!fix_needs_no_action("restore it (none needed: no)"));
    }

    #[test]
    fn severities_order_and_name() {
        assert!(Severity::Info < Severity::Warning && Severity::Warning < Severity::Error);
        let names: Vec<_> = Severity::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(names, ["info", "warning", "error"]);
    }
}
