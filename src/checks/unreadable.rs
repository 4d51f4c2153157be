//! `file.unreadable` findings of every input a command decides from: the loaded log dirs'
//! ([`LogDir::unreadable`]: root entries, `meta.properties`, the root checkpoints, partition
//! dirs and their files) and the cluster view's ([`ClusterView::unreadable`]: the metadata log,
//! `partition.metadata`), and the root checkpoints of a command that reads only those
//! ([`checkpoint_findings`]). A command that plans without one of them plans on a guess (a default
//! config, a partition left out), so each is a finding of class `Io`: the run exits 3.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::model::cluster::ClusterView;
use crate::model::log_dir::{LogDir, RootCheckpoints};
use crate::model::metadata_log::MetadataImage;
use crate::model::problem::FileProblem;

use super::catalog;
use super::config::{config_findings, metadata_problem};
use super::file::problem_finding;
use super::finding::{Finding, FindingClass, Location};
use super::location::{at_dir, at_partition};

/// A `file.unreadable` finding for every input of `dirs` and of `view` that could not be read,
/// one per path.
pub fn unreadable_findings(dirs: &[LogDir], view: Option<&ClusterView>) -> Vec<Finding> {
    let mut out = Vec::new();
    for dir in dirs {
        for (p, u) in dir.unreadable() {
            let loc = p.map_or_else(|| at_dir(dir), |p| at_partition(dir, p));
            let problem = FileProblem::Io {
                path: u.path.to_path_buf(),
                message: u.message.to_string(),
            };
            out.push(problem_finding(loc, u.what, &problem, ""));
        }
    }
    if let Some(view) = view {
        // The view's problems become findings in one place (`config`'s); its I/O ones are these.
        out.extend(
            config_findings(view)
                .into_iter()
                .filter(|f| f.class == FindingClass::Io),
        );
    }
    dedup_unreadable(&mut out);
    out
}

/// A `file.unreadable` finding for each of the root checkpoints of `log_dir` that could not be
/// read (for a command that reads them without loading the log dir).
pub fn checkpoint_findings(log_dir: &Path, checkpoints: &RootCheckpoints) -> Vec<Finding> {
    let at = Location {
        log_dir: log_dir.to_path_buf(),
        ..Location::default()
    };
    (checkpoints.unreadable().into_iter())
        .map(|u| {
            let problem = FileProblem::Io {
                path: u.path.to_path_buf(),
                message: u.message.to_string(),
            };
            problem_finding(at.clone(), u.what, &problem, "")
        })
        .collect()
}

/// A `file.unreadable` finding for each file of the metadata log in `log_dir` that `image` could
/// not read (for a command that replays it without a cluster view).
pub fn metadata_image_findings(log_dir: &Path, image: &MetadataImage) -> Vec<Finding> {
    (image.problems.iter())
        .filter(|m| m.unreadable)
        .map(|m| metadata_problem(m, log_dir, image.complete_up_to))
        .collect()
}

/// Keep the first `file.unreadable` finding of each path (a dir both listed by the load and
/// read by the cluster view is one unreadable input, not two); other findings stay as they are.
/// Paths compare made absolute (the load names them absolute, the view as given), lexically:
/// nothing is read here.
pub fn dedup_unreadable(findings: &mut Vec<Finding>) {
    let mut seen: HashSet<PathBuf> = HashSet::new();
    findings.retain(|f| {
        if f.code != catalog::FILE_UNREADABLE.code {
            return true;
        }
        match &f.location.file {
            Some(path) => seen.insert(std::path::absolute(path).unwrap_or_else(|_| path.clone())),
            None => true,
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::test_support::{codes, Scratch};
    use crate::model::segment::ScanDepth;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_readable_dir_has_none() {
        let s = Scratch::new();
        assert!(unreadable_findings(&[s.load(ScanDepth::Headers)], None).is_empty());
    }

    /// A checkpoint replaced by a dir: unreadable even for root.
    #[test]
    fn a_checkpoint_that_cannot_be_read_is_named_with_its_error() {
        let s = Scratch::new();
        let ckpt = s.path("recovery-point-offset-checkpoint");
        std::fs::remove_file(&ckpt).unwrap();
        std::fs::create_dir(&ckpt).unwrap();
        std::fs::set_permissions(&ckpt, std::fs::Permissions::from_mode(0o755)).unwrap();
        let f = unreadable_findings(&[s.load(ScanDepth::Headers)], None);
        assert_eq!(codes(&f), ["file.unreadable"], "{f:#?}");
        assert_eq!(f[0].class, FindingClass::Io);
        assert_eq!(f[0].location.file.as_deref(), Some(ckpt.as_path()));
        assert!(
            f[0].message.contains("recovery-point-offset-checkpoint")
                && f[0].message.contains("not a regular file"),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn one_finding_per_path() {
        let loc = |file: &str| crate::checks::finding::Location {
            file: Some(PathBuf::from(file)),
            ..Default::default()
        };
        let io = |file: &str, msg: &str| {
            Finding::new(&catalog::FILE_UNREADABLE, loc(file), msg.to_string())
        };
        let mut f = vec![
            io("/d/a", "cannot read: denied"),
            Finding::new(&catalog::FILE_CORRUPT, loc("/d/a"), "x"),
            io("/d/a", "cannot read entry: denied"),
            io("/d/b", "cannot read: denied"),
        ];
        dedup_unreadable(&mut f);
        let kept: Vec<(&str, &str)> = f.iter().map(|f| (f.code, f.message.as_str())).collect();
        assert_eq!(
            kept,
            [
                ("file.unreadable", "cannot read: denied"),
                ("file.corrupt", "x"),
                ("file.unreadable", "cannot read: denied"),
            ]
        );
    }
}
