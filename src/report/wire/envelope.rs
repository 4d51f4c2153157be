//! The document envelope every command shares (schema version [`SCHEMA_VERSION`]): `tool`,
//! `command`, `schema_version`, `generated_at_ms`, `evaluated_at_ms`, the command's own keys,
//! `findings` and `summary`. Documented in README.md ("JSON output").

use serde::Serialize;

use crate::checks::finding::{Finding, Severity};
use crate::exit_codes::Outcome;
use crate::model::snapshot::SnapshotSource;
use crate::model::units::TimestampMs;

use super::assumptions::AssumptionsDoc;
use super::findings::FindingDoc;

/// Version of the JSON schema; bumped on any incompatible change (2: envelope with
/// `evaluated_at_ms`, typed evidence, locations with topic/partition/dir/segment, every finding
/// with a fix).
pub const SCHEMA_VERSION: u32 = 2;

/// One command's document.
#[derive(Debug, Serialize)]
pub struct Envelope<B> {
    /// `logclean <version>`.
    pub tool: String,
    /// The command (`inspect`, `config`, ...).
    pub command: &'static str,
    /// Schema version.
    pub schema_version: u32,
    /// When the report was made, ms since the epoch.
    pub generated_at_ms: i64,
    /// The "now" the rules were evaluated at (retention ages etc.), ms since the epoch.
    pub evaluated_at_ms: i64,
    /// The deciding config values logclean did not read (commands that resolve topic configs;
    /// empty lists when nothing is assumed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assumptions: Option<AssumptionsDoc>,
    /// Where the facts came from when not from log dirs: the facts snapshots read
    /// (`--snapshot`), in order. Absent for a run on log dirs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<Vec<SnapshotSource>>,
    /// The command's own keys, flattened into the document.
    #[serde(flatten)]
    pub body: B,
    /// Findings, sorted by location.
    pub findings: Vec<FindingDoc>,
    /// Totals.
    pub summary: SummaryDoc,
}

/// What a log-dir scan covered, counted by the model (the summary's `log_dirs`, `partitions`,
/// `segments`, `log_bytes`).
pub use crate::model::targets::ScanTotals;

/// Totals of every document: what was covered (when the command scans log dirs), findings per
/// severity and the exit code.
#[derive(Debug, Serialize)]
pub struct SummaryDoc {
    /// What was scanned.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub scanned: Option<ScanTotals>,
    /// Findings at severity info.
    pub info: usize,
    /// Findings at severity warning.
    pub warning: usize,
    /// Findings at severity error.
    pub error: usize,
    /// The process exit code.
    pub exit_code: u8,
}

impl SummaryDoc {
    /// Totals over findings.
    pub fn new(scanned: Option<ScanTotals>, findings: &[Finding], outcome: Outcome) -> Self {
        let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
        SummaryDoc {
            scanned,
            info: count(Severity::Info),
            warning: count(Severity::Warning),
            error: count(Severity::Error),
            exit_code: outcome.code(),
        }
    }
}

impl<B> Envelope<B> {
    /// The same document, saying what it assumed.
    pub fn with_assumptions(mut self, assumptions: AssumptionsDoc) -> Self {
        self.assumptions = Some(assumptions);
        self
    }

    /// The document of `command`: `body`, `findings` and their summary. The clock is the
    /// caller's (read once per run): `generated_at` is when, `evaluated_at` the "now" the rules
    /// used (written as the wire's `generated_at_ms` and `evaluated_at_ms`). Commands reach it
    /// through [`crate::report::write_document`].
    pub fn new(
        command: &'static str,
        generated_at: TimestampMs,
        evaluated_at: TimestampMs,
        body: B,
        findings: &[Finding],
        scanned: Option<ScanTotals>,
        outcome: Outcome,
    ) -> Self {
        Envelope {
            tool: format!("logclean {}", env!("CARGO_PKG_VERSION")),
            command,
            schema_version: SCHEMA_VERSION,
            generated_at_ms: generated_at.get(),
            evaluated_at_ms: evaluated_at.get(),
            assumptions: None,
            input: None,
            body,
            findings: FindingDoc::all(findings),
            summary: SummaryDoc::new(scanned, findings, outcome),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::catalog;
    use crate::checks::finding::Location;

    #[derive(Serialize)]
    struct Body {
        things: u32,
    }

    #[test]
    fn envelope_keys_and_flattened_body() {
        let f = [Finding::new(
            &catalog::DIR_UNKNOWN_FILE,
            Location::default(),
            "m",
        )];
        let doc = Envelope::new(
            "test",
            TimestampMs(5),
            TimestampMs(6),
            Body { things: 2 },
            &f,
            None,
            Outcome::Findings,
        );
        let text = serde_json::to_string(&doc).unwrap();
        let at = |k: &str| text.find(&format!("\"{k}\":")).unwrap();
        let keys = [
            "tool",
            "command",
            "schema_version",
            "generated_at_ms",
            "evaluated_at_ms",
            "things",
            "findings",
            "summary",
        ];
        assert!(keys.windows(2).all(|w| at(w[0]) < at(w[1])), "{text}");
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["schema_version"], 2);
        assert_eq!(v["evaluated_at_ms"], 6);
        assert_eq!(
            v["summary"],
            serde_json::json!({"info": 0, "warning": 1, "error": 0, "exit_code": 1})
        );
        let scanned = ScanTotals {
            log_dirs: 1,
            partitions: 2,
            segments: 3,
            log_bytes: 4,
        };
        let doc = Envelope::new(
            "test",
            TimestampMs(5),
            TimestampMs(6),
            Body { things: 2 },
            &[],
            Some(scanned),
            Outcome::Clean,
        );
        let v = serde_json::to_value(&doc).unwrap();
        assert_eq!(v["summary"]["segments"], 3);
        assert_eq!(v["summary"]["exit_code"], 0);
    }
}
