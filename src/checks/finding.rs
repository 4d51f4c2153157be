//! A finding: one thing logclean noticed, where, why it matters and what to do.

use std::path::PathBuf;

use serde::Serialize;

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth knowing; nothing is wrong.
    Info,
    /// Not what a healthy broker leaves; may cost disk or correctness later.
    Warning,
    /// Wrong now: data, an index or a checkpoint the broker will mis-read or reject.
    Error,
}

/// What class of problem a finding is; decides the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingClass {
    /// A state of the log dir (leftovers, unclean shutdown, retention facts, ...).
    Condition,
    /// Bytes that break their format (exit code 2).
    Corruption,
    /// A file or dir that could not be read (exit code 3).
    Io,
}

/// Where a finding is.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Location {
    /// The log dir.
    pub log_dir: PathBuf,
    /// The partition dir name, when the finding is about one partition.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
    /// The file, when the finding is about one file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    /// Byte position in that file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub byte_offset: Option<u64>,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Stable identifier, e.g. `log.crc_mismatch` (documented in the README).
    pub code: &'static str,
    /// How much it matters.
    pub severity: Severity,
    /// Condition, corruption or I/O.
    pub class: FindingClass,
    /// Where.
    pub location: Location,
    /// One sentence saying what is wrong.
    pub message: String,
    /// Facts behind it, as `name: value` lines.
    pub evidence: Vec<String>,
    /// What an operator should do, when there is something to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Finding {
    /// A finding with no evidence or fix yet.
    pub fn new(
        code: &'static str,
        severity: Severity,
        class: FindingClass,
        location: Location,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            code,
            severity,
            class,
            location,
            message: message.into(),
            evidence: Vec::new(),
            fix: None,
        }
    }

    /// Add an evidence line.
    pub fn evidence(mut self, line: impl Into<String>) -> Self {
        self.evidence.push(line.into());
        self
    }

    /// Set the suggested fix.
    pub fn fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }

    /// Sort key: location first, so reports are the same however the scan was parallelised.
    pub fn sort_key(&self) -> (&Location, &'static str) {
        (&self.location, self.code)
    }
}

impl Finding {
    /// The same finding at another severity.
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }
}
