//! Running the `logclean` binary in tests: every run goes through `prlimit --as` (an address
//! space cap) so that a test also shows memory stays bounded, and through `setpriv` as `nobody`
//! when it must not read what root could. Without `prlimit` the runs are uncapped and a note on
//! stderr says so.

#![allow(dead_code)] // each test crate uses its own part of this module
#![allow(clippy::unwrap_used)] // test code: a panic is a failed test

pub mod crash;
pub mod scratch;

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// The fixture scenarios: `fixtures/`, or `LOGCLEAN_FIXTURES_DIR` (conformance/run points it at
/// the dirs a fresh broker just wrote).
pub fn fixtures_root() -> PathBuf {
    std::env::var_os("LOGCLEAN_FIXTURES_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures"))
}

/// The default address-space cap of a run (a memory map of a large file comes on top).
pub const MEMORY_CAP_BYTES: u64 = 1 << 30;

/// Whether `prlimit` can be run.
pub fn prlimit_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        let ok = Command::new("prlimit")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            eprintln!("note: prlimit not found; logclean runs without a memory cap");
        }
        ok
    })
}

/// Whether the tests run as root (who reads any file).
pub fn euid_is_root() -> bool {
    static ROOT: OnceLock<bool> = OnceLock::new();
    *ROOT.get_or_init(|| {
        let out = Command::new("id").arg("-u").output().unwrap();
        String::from_utf8_lossy(&out.stdout).trim() == "0"
    })
}

/// The `logclean` binary under an address-space cap of `cap_bytes`, as `nobody` when
/// `unprivileged` and root. Arguments for logclean itself are added by the caller.
pub fn logclean_capped(cap_bytes: u64, unprivileged: bool) -> Command {
    let bin = env!("CARGO_BIN_EXE_logclean");
    let mut argv: Vec<String> = Vec::new();
    if prlimit_available() {
        argv.extend(["prlimit".into(), format!("--as={cap_bytes}")]);
    }
    if unprivileged && euid_is_root() {
        argv.extend(
            [
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
            ]
            .map(String::from),
        );
    }
    argv.push(bin.into());
    let (program, args) = argv.split_first().unwrap();
    let mut c = Command::new(program);
    c.args(args);
    c
}

/// A ZooKeeper-mode copy of the real log dir `src` (a fixture's `logs-N`), as a Kafka 3.x
/// ZooKeeper-mode broker leaves one: in a temp dir (readable, see
/// [`scratch::copy_dir_readable`]), without `__cluster_metadata-0` (only KRaft has a metadata
/// log) and with `meta.properties` rewritten as a v0 file (`version=0`, `broker.id` and
/// `cluster.id` taken from the original, the layout `MetaProperties` writes, see
/// `src/formats/meta_properties.rs`). Partition dirs, their `partition.metadata` (3.x
/// ZooKeeper brokers write it too, KIP-516) and the checkpoints are kept as they are. Returns
/// the temp dir (dropping it deletes the copy) and the copied log dir, named as `src` is.
pub fn zookeeper_mode_copy(src: &std::path::Path) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(src.file_name().unwrap());
    scratch::copy_dir_readable(src, &dir);
    to_zookeeper_mode(&dir);
    (tmp, dir)
}

/// [`zookeeper_mode_copy`]'s relabelling, in place: `dir` (a copy of a KRaft log dir) loses its
/// `__cluster_metadata-0` and gets a v0 `meta.properties` with its own ids.
pub fn to_zookeeper_mode(dir: &std::path::Path) {
    let metadata = dir.join("__cluster_metadata-0");
    if metadata.exists() {
        std::fs::remove_dir_all(&metadata).unwrap();
    }
    let meta = std::fs::read_to_string(dir.join("meta.properties")).unwrap();
    let value = |key: &str| {
        meta.lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
            .map(str::trim)
            .unwrap_or_else(|| panic!("no {key} in {}", dir.display()))
            .to_string()
    };
    let (cluster_id, node_id) = (value("cluster.id"), value("node.id"));
    std::fs::write(
        dir.join("meta.properties"),
        format!(
            "#\n#Mon Nov 30 13:32:22 UTC 2026\ncluster.id={cluster_id}\nversion=0\nbroker.id={node_id}\n"
        ),
    )
    .unwrap();
}

/// Whether the fixture scenario `dir` was written by a Kafka 3.x broker (`zk391-*`,
/// `kraft391-*`: `manifest.json` `kafka_version` 3.9.1, issue 22).
///
/// logclean applies the release the files tell (issue 22's version-pinned rules), so config
/// and rule assertions hold on these fixtures too; what remains here are facts of the files
/// that differ by release (e.g. the `__transaction_state` value version 3.9.1 writes).
pub fn kafka3_fixture(dir: &std::path::Path) -> bool {
    let Ok(bytes) = std::fs::read(dir.join("manifest.json")) else {
        return false;
    };
    let m: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    m["kafka_version"]
        .as_str()
        .is_some_and(|v| v.starts_with("3."))
}

/// A fixture manifest's log dirs, relative to the fixture: its `log_dirs`, or for a multi-broker
/// fixture every node's (`nodes[].log_dirs`), node by node.
#[allow(dead_code)]
pub fn manifest_log_dirs(m: &serde_json::Value) -> Vec<String> {
    let listed = |v: &serde_json::Value| -> Vec<String> {
        (v.as_array().into_iter().flatten())
            .filter_map(|d| d.as_str().map(str::to_string))
            .collect()
    };
    match m["nodes"].as_array() {
        Some(nodes) => nodes.iter().flat_map(|n| listed(&n["log_dirs"])).collect(),
        None => listed(&m["log_dirs"]),
    }
}
