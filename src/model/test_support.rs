//! Test support: a private, writable copy of a fixture log dir, loaded through the model.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::log_dir::{load_log_dir, LogDir, Selection};
use super::segment::{LoadOptions, ScanDepth};

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
