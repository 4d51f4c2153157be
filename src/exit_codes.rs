//! Process exit codes, the same for every command (STYLE.md, issue 3).

use std::process::ExitCode;

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// Ran fine; nothing at or above `--fail-on`.
    Clean = 0,
    /// Ran fine; findings at or above `--fail-on`.
    Findings = 1,
    /// Corrupt data was found.
    Corrupt = 2,
    /// Usage error, I/O error, or a refused mutation.
    Error = 3,
    /// Interrupted (SIGINT).
    Interrupted = 130,
}

impl Outcome {
    /// The numeric code.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The more serious of two outcomes (an I/O error outranks corruption, which outranks findings).
    pub fn merge(self, other: Outcome) -> Outcome {
        self.max(other)
    }
}

impl From<Outcome> for ExitCode {
    fn from(o: Outcome) -> ExitCode {
        ExitCode::from(o.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_documented_values() {
        assert_eq!(Outcome::Clean.code(), 0);
        assert_eq!(Outcome::Findings.code(), 1);
        assert_eq!(Outcome::Corrupt.code(), 2);
        assert_eq!(Outcome::Error.code(), 3);
        assert_eq!(Outcome::Interrupted.code(), 130);
    }

    #[test]
    fn merge_keeps_the_worst() {
        assert_eq!(Outcome::Findings.merge(Outcome::Corrupt), Outcome::Corrupt);
        assert_eq!(Outcome::Error.merge(Outcome::Corrupt), Outcome::Error);
        assert_eq!(Outcome::Clean.merge(Outcome::Clean), Outcome::Clean);
    }
}
