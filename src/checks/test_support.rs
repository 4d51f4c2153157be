//! Test support: a private, writable copy of a fixture log dir, loaded through the model.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::model::log_dir::{load_log_dir, LogDir, Selection};
use crate::model::partition::Partition;
use crate::model::segment::{LoadOptions, ScanDepth, Segment};
use crate::rules::recovery::{partition_recovery, PartitionRecovery};

use super::finding::Finding;

/// A copy of `fixtures/basic-delete/logs-0` (clean shutdown, healthy) in a temp dir.
pub struct Scratch {
    _tmp: tempfile::TempDir,
    /// The copied log dir.
    pub log_dir: PathBuf,
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            fs::copy(e.path(), &target).unwrap();
            fs::set_permissions(&target, fs::Permissions::from_mode(0o644)).unwrap();
        }
    }
}

impl Scratch {
    /// A fresh copy.
    pub fn new() -> Self {
        Scratch::of("basic-delete/logs-0")
    }

    /// A fresh copy of another fixture log dir (`<scenario>/logs-0`).
    pub fn of(fixture_log_dir: &str) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(fixture_log_dir);
        let log_dir = tmp.path().join("logs-0");
        copy_dir(&src, &log_dir);
        Scratch { _tmp: tmp, log_dir }
    }

    /// A path inside the copy.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.log_dir.join(rel)
    }

    /// Load the copy at `depth`.
    pub fn load(&self, depth: ScanDepth) -> LogDir {
        let opts = LoadOptions {
            depth,
            ..Default::default()
        };
        load_log_dir(&self.log_dir, &Selection::default(), &opts, &|| {}).unwrap()
    }
}

/// The codes of `findings`, in order.
pub fn codes(findings: &[Finding]) -> Vec<&'static str> {
    findings.iter().map(|f| f.code).collect()
}

/// What one per-segment check sees: the log dir, the partition, the segment, what the next start
/// recovers, and where findings go.
pub type SegmentCheck<'a> =
    &'a mut dyn FnMut(&LogDir, &Partition, &Segment, &PartitionRecovery, &mut Vec<Finding>);

/// Run `check` over every segment of the copy's `orders-0` loaded at `depth`.
pub fn orders_segment_findings(s: &Scratch, depth: ScanDepth, check: SegmentCheck) -> Vec<Finding> {
    let d = s.load(depth);
    let p = d
        .partitions
        .iter()
        .find(|p| p.dir_name == "orders-0")
        .unwrap();
    let recovery = partition_recovery(d.clean_shutdown.is_some(), p);
    let mut out = Vec::new();
    for seg in &p.segments {
        check(&d, p, seg, &recovery, &mut out);
    }
    out
}
