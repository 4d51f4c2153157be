//! `logclean --version` names the version and the commit the binary was built from (build.rs);
//! `-V` prints the version alone, as the man pages do.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

use std::path::Path;
use std::process::Command;

fn run(arg: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_logclean"))
        .arg(arg)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "logclean {arg} exited {:?}",
        out.status
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The commit of this checkout when git can tell it (as build.rs asks), else `None`.
fn head_commit() -> Option<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let top = git(&["rev-parse", "--show-toplevel"])?;
    if Path::new(&top).canonicalize().ok()? != root.canonicalize().ok()? {
        return None;
    }
    git(&["rev-parse", "HEAD"])
}

#[test]
fn long_version_names_the_version_and_the_commit() {
    let long = run("--version");
    let version = env!("CARGO_PKG_VERSION");
    let rest = long
        .trim_end()
        .strip_prefix(&format!("logclean {version} ("))
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("--version printed {long:?}"));
    match head_commit() {
        // Built in this checkout: the first 12 digits of HEAD, then (after an optional -dirty)
        // the commit date.
        Some(head) => {
            let (commit, date) = rest
                .strip_prefix("commit ")
                .and_then(|r| r.split_once(' '))
                .unwrap_or_else(|| panic!("no `commit HASH DATE` in {long:?}"));
            assert_eq!(commit.trim_end_matches("-dirty"), &head[..12], "{long:?}");
            assert!(
                date.len() == 10 && date.bytes().filter(|b| *b == b'-').count() == 2,
                "commit date {date:?} in {long:?}"
            );
        }
        // No git (a source tarball): build.rs says so or names what .cargo_vcs_info.json holds.
        None => assert!(
            rest == "unknown commit"
                || rest.strip_prefix("commit ").is_some_and(|c| c
                    .trim_end_matches("-dirty")
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit())),
            "{long:?}"
        ),
    }
}

#[test]
fn short_version_is_the_version_alone() {
    assert_eq!(
        run("-V"),
        format!("logclean {}\n", env!("CARGO_PKG_VERSION"))
    );
}
