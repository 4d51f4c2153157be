//! Issue 28: the bordered tables that grow with segments, partitions or transactional ids
//! (`inspect`'s and `plan`'s per-segment tables, `transactions`' three tables) are written row
//! by row (`report/stream_table.rs`), no longer built whole; their text at 40, 60, 100 and 200
//! columns is the text the whole-grid renderer printed (`tests/expected/<case>-<columns>.txt`,
//! written by the build before the change; `LOGCLEAN_UPDATE_EXPECTED=1` rewrites them from
//! this build).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;

use std::fs;
use std::path::{Path, PathBuf};

use support::scratch::fixture;

/// The instant every case is evaluated at.
const NOW: &str = "2026-12-01T00:00:00Z";

/// Copy `from` to `to`, each file with its modification time (a `.log`'s mtime can be a
/// segment's largest timestamp).
fn copy_with_mtimes(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_with_mtimes(&e.path(), &dest);
        } else {
            fs::copy(e.path(), &dest).unwrap();
            let mtime = e.metadata().unwrap().modified().unwrap();
            fs::File::options()
                .write(true)
                .open(&dest)
                .unwrap()
                .set_modified(mtime)
                .unwrap();
        }
    }
}

/// `logclean ARGS` on a copy of fixture `name` at `columns` columns, its stdout with the
/// copy's path (of one length wherever the tests run, so lines break alike) as `/tmp/FIXTURE`.
fn run(name: &str, args: &[&str], columns: usize) -> String {
    let tmp = tempfile::Builder::new()
        .prefix("lc-tables-")
        .rand_bytes(8)
        .tempdir_in("/tmp")
        .unwrap();
    copy_with_mtimes(&fixture(name), tmp.path());
    let out = support::logclean_capped(support::MEMORY_CAP_BYTES, false)
        .current_dir(tmp.path())
        .env("COLUMNS", columns.to_string())
        .env("TZ", "UTC")
        .args(["--color", "never", "--no-progress"])
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let path = tmp.path().to_str().unwrap();
    assert_eq!(path.len(), "/tmp/lc-tables-XXXXXXXX".len(), "{path}");
    text.replace(path, "/tmp/lc-tables-FIXTURE!")
}

#[test]
fn the_streamed_tables_print_what_the_whole_grids_printed() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let update = std::env::var_os("LOGCLEAN_UPDATE_EXPECTED").is_some();
    let props = ["--server-properties", "server.properties"];
    let cases: [(&str, &str, Vec<&str>); 5] = [
        (
            "inspect-transactions",
            "transactions",
            vec!["inspect", "logs-0", "--now", NOW],
        ),
        (
            "inspect-future-timestamps",
            "future-timestamps",
            vec!["inspect", "logs-0", "--now", NOW],
        ),
        (
            "plan-compacted",
            "compacted",
            [&["plan", "logs-0", "--at", NOW][..], &props].concat(),
        ),
        (
            "plan-basic-delete",
            "basic-delete",
            [&["plan", "logs-0", "logs-1", "--at", NOW][..], &props].concat(),
        ),
        (
            "transactions",
            "transactions",
            [&["transactions", "logs-0", "--now", NOW][..], &props].concat(),
        ),
    ];
    for (case, name, args) in &cases {
        for columns in [40, 60, 100, 200] {
            let text = run(name, args, columns);
            assert!(
                text.contains('┌') || text.contains(": "),
                "{case} at {columns}: no table\n{text}"
            );
            let path = repo.join(format!("tests/expected/{case}-{columns}.txt"));
            if update {
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                fs::write(&path, &text).unwrap();
                continue;
            }
            let want = fs::read_to_string(&path).unwrap();
            assert_eq!(
                text,
                want,
                "{case}: {columns} columns differ from {}",
                path.display()
            );
        }
    }
}
