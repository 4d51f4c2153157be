//! Findings of domain `dir`: the log dir root (meta.properties, the clean-shutdown marker, the
//! root checkpoints, leftovers and unknown files). Spec formats §1.4, §5.

use std::path::{Path, PathBuf};

use crate::model::log_dir::{LogDir, OffsetCheckpoint};
use crate::model::names::shell_path;

use super::catalog;
use super::file::{io_findings, problem_finding};
use super::finding::{EvidenceValue, Finding, Location, Severity};
use super::location::at_dir;

/// `meta.properties` (missing or unreadable) and the clean-shutdown marker.
fn marker_findings(dir: &LogDir, out: &mut Vec<Finding>) {
    match &dir.meta {
        None => out.push(Finding::new(
            &catalog::DIR_NO_META_PROPERTIES,
            at_dir(dir),
            "no meta.properties: this is not a formatted Kafka log dir",
        )),
        Some(Err(p)) => out.push(problem_finding(
            at_dir(dir),
            "meta.properties",
            p,
            "restore meta.properties from another log dir of the same broker (same cluster.id and node.id, its own directory.id)",
        )),
        Some(Ok(_)) => {}
    }
    match &dir.clean_shutdown {
        None if dir.meta.is_some() => out.push(
            Finding::new(
                &catalog::DIR_UNCLEAN_SHUTDOWN,
                at_dir(dir),
                "no .kafka_cleanshutdown marker: the broker did not shut down cleanly (or is running); \
                 on start it recovers each partition from the segment holding its recovery point on",
            )
            .evidence("lock_file", EvidenceValue::Flag(dir.listing.root.lock.is_some())),
        ),
        Some(Err(p)) => out.push(
            problem_finding(
                at_dir(dir),
                ".kafka_cleanshutdown",
                p,
                "harmless: only the file's existence matters",
            )
            .with_severity(Severity::Info),
        ),
        _ => {}
    }
}

/// The root checkpoints that could not be read.
fn checkpoint_findings(dir: &LogDir, out: &mut Vec<Finding>) {
    for (name, ckpt) in [
        (
            "recovery-point-offset-checkpoint",
            &dir.checkpoints.recovery_point,
        ),
        (
            "log-start-offset-checkpoint",
            &dir.checkpoints.log_start_offset,
        ),
        (
            "replication-offset-checkpoint",
            &dir.checkpoints.replication_offset,
        ),
        ("cleaner-offset-checkpoint", &dir.checkpoints.cleaner_offset),
    ] {
        if let Some(Err(p)) = ckpt as &Option<OffsetCheckpoint> {
            out.push(problem_finding(
                at_dir(dir),
                name,
                p,
                "the broker marks the whole log dir offline on an unreadable checkpoint: \
                 rewrite the file or remove it (an absent checkpoint means full recovery / offset 0)",
            ));
        }
    }
}

/// Findings about the log dir root of `dir`.
pub fn log_dir_findings(dir: &LogDir, out: &mut Vec<Finding>) {
    io_findings(&dir.listing.io_problems, &at_dir(dir), out);
    marker_findings(dir, out);
    checkpoint_findings(dir, out);
    for l in &dir.listing.leftovers {
        out.push(
            Finding::new(
                &catalog::DIR_LEFTOVER_TMP,
                Location {
                    file: Some(l.file.path.clone()),
                    ..at_dir(dir)
                },
                "temporary file of an interrupted atomic write",
            )
            .evidence("size", EvidenceValue::Bytes(l.file.len_or_zero())),
        );
    }
    for u in &dir.listing.unknown {
        out.push(Finding::new(
            &catalog::DIR_UNKNOWN_FILE,
            Location {
                file: Some(u.path.clone()),
                ..at_dir(dir)
            },
            "file the broker does not write in a log dir root",
        ));
    }
}

/// `dir.not_a_log_dir`: `path` has no `meta.properties` and `below` (not empty) are the log dirs
/// in it ([`crate::model::listing::log_dirs_below`]); nothing in it was read as partitions.
pub fn not_a_log_dir_finding(path: &Path, below: &[PathBuf]) -> Finding {
    let mut f = Finding::new(
        &catalog::DIR_NOT_A_LOG_DIR,
        Location {
            log_dir: path.to_path_buf(),
            ..Location::default()
        },
        format!(
            "not a log dir (no meta.properties) but a dir holding {} log dir(s): its subdirs were \
             not read as partitions",
            below.len()
        ),
    )
    .evidence("log_dirs_found", EvidenceValue::Count(below.len() as u64));
    for d in below {
        f = f.evidence("log_dir", EvidenceValue::Path(d.clone()));
    }
    let args: Vec<String> = below.iter().map(|d| shell_path(d)).collect();
    f.fix(format!(
        "run logclean on the log dirs themselves: {}",
        args.join(" ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::finding::FindingClass;
    use crate::checks::test_support::{codes, Scratch};
    use crate::model::segment::ScanDepth;

    fn findings(s: &Scratch) -> Vec<Finding> {
        let mut out = Vec::new();
        log_dir_findings(&s.load(ScanDepth::Tail), &mut out);
        out
    }

    #[test]
    fn healthy_root_has_no_findings() {
        assert_eq!(codes(&findings(&Scratch::new())), Vec::<&str>::new());
    }

    #[test]
    fn missing_marker_is_an_unclean_shutdown_with_the_lock_flag() {
        let s = Scratch::new();
        std::fs::remove_file(s.path(".kafka_cleanshutdown")).ok();
        let f = findings(&s);
        assert_eq!(codes(&f), ["dir.unclean_shutdown"]);
        assert_eq!(f[0].severity, Severity::Info);
        assert_eq!(f[0].evidence[0].name, "lock_file");
    }

    #[test]
    fn corrupt_checkpoint_unknown_file_and_leftover() {
        let s = Scratch::new();
        std::fs::write(s.path("recovery-point-offset-checkpoint"), "x\n").unwrap();
        std::fs::write(s.path("notes.txt"), "hi").unwrap();
        std::fs::write(s.path("meta.properties.tmp"), "abc").unwrap();
        let f = findings(&s);
        let c = codes(&f);
        assert!(c.contains(&"file.corrupt"), "{c:?}");
        assert!(c.contains(&"dir.unknown_file"), "{c:?}");
        let tmp = f.iter().find(|f| f.code == "dir.leftover_tmp").unwrap();
        assert_eq!(tmp.evidence[0].value, EvidenceValue::Bytes(3));
        let corrupt = f.iter().find(|f| f.code == "file.corrupt").unwrap();
        assert_eq!(corrupt.class, FindingClass::Corruption);
        assert!(corrupt.fix.contains("offline"), "{}", corrupt.fix);
    }

    #[test]
    fn no_meta_properties() {
        let s = Scratch::new();
        std::fs::remove_file(s.path("meta.properties")).unwrap();
        assert!(codes(&findings(&s)).contains(&"dir.no_meta_properties"));
    }
}
