//! Scratch copies of real fixture log dirs for the mutating commands' tests: copy, snapshot the
//! whole tree byte for byte, compare two snapshots, run the capped binary.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failed test

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// [`copy_dir`] with dirs 0755 and files 0644: the fixtures' metadata snapshots are 0400, and a
/// run as `nobody` or a test that rewrites files needs them readable and writable.
pub fn copy_dir_readable(from: &Path, to: &Path) {
    use std::os::unix::fs::PermissionsExt;
    fs::create_dir_all(to).unwrap();
    fs::set_permissions(to, fs::Permissions::from_mode(0o755)).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir_readable(&e.path(), &target);
        } else {
            fs::copy(e.path(), &target).unwrap();
            fs::set_permissions(&target, fs::Permissions::from_mode(0o644)).unwrap();
        }
    }
}

/// Copy partition `topic-from` of log dir `logs` to `topic-to`, with its entries in the log
/// dir's checkpoints (high watermark, recovery point, cleaner offset) copied too.
pub fn clone_partition(logs: &Path, topic: &str, from: i32, to: i32) {
    copy_dir_readable(
        &logs.join(format!("{topic}-{from}")),
        &logs.join(format!("{topic}-{to}")),
    );
    for name in [
        "replication-offset-checkpoint",
        "recovery-point-offset-checkpoint",
        "cleaner-offset-checkpoint",
        "log-start-offset-checkpoint",
    ] {
        let path = logs.join(name);
        let text = fs::read_to_string(&path).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        let prefix = format!("{topic} {from} ");
        let Some(offset) = lines.iter().find_map(|l| l.strip_prefix(&prefix)) else {
            continue;
        };
        let entry = format!("{topic} {to} {offset}");
        lines.push(entry);
        let count = lines.len() - 2;
        lines[1] = count.to_string();
        fs::write(&path, lines.join("\n") + "\n").unwrap();
    }
}

/// The exit code of a run (`None`: killed by a signal).
pub fn code(o: &Output) -> Option<i32> {
    o.status.code()
}

/// A run's stdout and stderr, for assertion messages.
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A private copy of one fixture log dir, in a temp dir that also receives the journal.
pub struct Copy {
    _tmp: tempfile::TempDir,
    /// The copied log dir.
    pub log_dir: PathBuf,
    /// The fixture's `server.properties` (the broker's static config).
    pub props: String,
}

impl Copy {
    pub fn new(fixture_name: &str, log_dir: &str) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path().join(log_dir);
        copy_dir(&fixture(fixture_name).join(log_dir), &dest);
        Copy {
            _tmp: tmp,
            log_dir: dest,
            props: fixture(fixture_name)
                .join("server.properties")
                .to_string_lossy()
                .into_owned(),
        }
    }

    pub fn p(&self, rel: &str) -> PathBuf {
        self.log_dir.join(rel)
    }
}

/// Every file under `dir` with its bytes (the bit-identity check).
pub fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let e = e.unwrap();
        let rel = e
            .path()
            .strip_prefix(dir)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if e.file_type().is_file() {
            out.insert(rel, fs::read(e.path()).unwrap());
        } else {
            out.insert(format!("{rel}/"), Vec::new());
        }
    }
    out
}

/// Assert two trees are equal, naming the files that differ.
#[track_caller]
pub fn same(a: &BTreeMap<String, Vec<u8>>, b: &BTreeMap<String, Vec<u8>>, what: &str) {
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let diff: Vec<String> = keys
        .into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .map(|k| {
            format!(
                "{k} ({:?} vs {:?} bytes)",
                a.get(k).map(Vec::len),
                b.get(k).map(Vec::len)
            )
        })
        .collect();
    assert!(diff.is_empty(), "{what}: {diff:?}");
}

pub fn logclean(args: &[&str], env: Option<(&str, String)>) -> Output {
    let mut cmd = super::logclean_capped(super::MEMORY_CAP_BYTES, false);
    cmd.args(args);
    if let Some((k, v)) = env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// The JSON document a run wrote on stdout (a run whose stdout is not one fails the test,
/// showing what it wrote).
pub fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(o)))
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}
