//! Findings of domain `file`: a file that could not be read (`file.unreadable`, an operational
//! error, never corruption) or that breaks its format (`file.corrupt`).

use crate::model::listing::IoProblem;
use crate::model::problem::FileProblem;

use super::catalog;
use super::finding::{Finding, Location};

/// A finding for a file that could not be used; `fix` (empty: the kind's) says what to do
/// about this particular file when it is corrupt.
pub fn problem_finding(loc: Location, what: &str, problem: &FileProblem, fix: &str) -> Finding {
    match problem {
        FileProblem::Io { path, message } => Finding::new(
            &catalog::FILE_UNREADABLE,
            Location {
                file: Some(path.clone()),
                ..loc
            },
            format!("cannot read {what}: {message}"),
        ),
        FileProblem::Format { path, error } => Finding::new(
            &catalog::FILE_CORRUPT,
            Location {
                file: Some(path.clone()),
                // A file refused for its size is wrong as a whole: no byte of it is named.
                byte_offset: (!problem.is_too_large()).then_some(error.offset),
                ..loc
            },
            format!("{what} is corrupt: {}", error.kind),
        )
        .fix(fix),
    }
}

/// Entries that could not be read: an operational error, never a corruption finding.
pub fn io_findings(problems: &[IoProblem], loc: &Location, out: &mut Vec<Finding>) {
    for io in problems {
        out.push(Finding::new(
            &catalog::FILE_UNREADABLE,
            Location {
                file: Some(io.path.clone()),
                ..loc.clone()
            },
            format!("cannot read: {}", io.message),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::finding::{FindingClass, Severity};
    use std::path::PathBuf;

    #[test]
    fn io_problems_are_io_errors_at_their_file() {
        let mut out = Vec::new();
        let loc = Location {
            log_dir: PathBuf::from("/d"),
            ..Default::default()
        };
        let problems = [IoProblem {
            path: PathBuf::from("/d/x"),
            message: "denied".into(),
        }];
        io_findings(&problems, &loc, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].code, "file.unreadable");
        assert_eq!(out[0].class, FindingClass::Io);
        assert_eq!(out[0].severity, Severity::Error);
        assert_eq!(out[0].location.file, Some(PathBuf::from("/d/x")));
        assert!(!out[0].fix.is_empty());
    }

    #[test]
    fn io_file_problem_keeps_the_kinds_fix() {
        let p = FileProblem::Io {
            path: PathBuf::from("/d/meta.properties"),
            message: "denied".into(),
        };
        let f = problem_finding(Location::default(), "meta.properties", &p, "restore it");
        assert_eq!(f.code, "file.unreadable");
        assert_eq!(f.fix, catalog::FILE_UNREADABLE.fix);
        assert!(f.message.contains("meta.properties") && f.message.contains("denied"));
    }
}
