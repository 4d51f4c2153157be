//! Build script: names the commit the binary is built from, for `logclean --version`.
//!
//! Sets `LOGCLEAN_BUILD_COMMIT` to `commit <12 hex digits> <commit date>` (with `-dirty` when a
//! file that goes into the binary differs from that commit), from, in this order:
//! - the `LOGCLEAN_BUILD_COMMIT` environment variable (a packager building from a tarball);
//! - git, when the package root is the top of a git work tree;
//! - `.cargo_vcs_info.json`, which `cargo package` writes into the crates.io package;
//! - else `unknown commit`.
//!
//! It never fails the build: without git, or outside a repository, the binary says so.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=LOGCLEAN_BUILD_COMMIT");
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let commit = std::env::var("LOGCLEAN_BUILD_COMMIT")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .or_else(|| from_git(&root))
        .or_else(|| from_vcs_info(&root))
        .unwrap_or_else(|| "unknown commit".to_string());
    println!("cargo:rustc-env=LOGCLEAN_BUILD_COMMIT={commit}");
}

/// Runs git in `root`; its trimmed stdout when it succeeds.
fn git(root: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("--no-optional-locks")
        .args(args)
        .current_dir(root)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The commit of the git work tree whose top is `root` (not of an enclosing repository, as
/// when the crates.io package is unpacked under some other project's checkout).
fn from_git(root: &Path) -> Option<String> {
    let top = PathBuf::from(git(root, &["rev-parse", "--show-toplevel"])?);
    if top.canonicalize().ok()? != root.canonicalize().ok()? {
        return None;
    }
    // Rebuild when HEAD moves (a commit, a checkout) and when the sources change (dirty flag).
    for p in ["HEAD", "packed-refs"] {
        rerun_if_git_path(root, p);
    }
    if let Some(r) = git(root, &["symbolic-ref", "-q", "HEAD"]) {
        rerun_if_git_path(root, &r);
    }
    for p in ["src", "Cargo.toml", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={p}");
    }
    let line = git(root, &["log", "-1", "--format=%H %cs"])?;
    let (hash, date) = line.split_once(' ')?;
    let short = hash.get(..12)?;
    let dirty = git(
        root,
        &[
            "status",
            "--porcelain",
            "--untracked-files=no",
            "--",
            "src",
            "build.rs",
            "Cargo.toml",
            "Cargo.lock",
        ],
    )
    .is_some_and(|s| !s.is_empty());
    Some(format!(
        "commit {short}{} {date}",
        if dirty { "-dirty" } else { "" }
    ))
}

/// Asks cargo to rerun the script when a file under the git dir changes (a worktree's HEAD is
/// in its own git dir, refs in the common one).
fn rerun_if_git_path(root: &Path, name: &str) {
    if let Some(p) = git(root, &["rev-parse", "--git-path", name]) {
        let p = root.join(p);
        if p.exists() {
            println!("cargo:rerun-if-changed={}", p.display());
        }
    }
}

/// The commit `cargo package` recorded: `{"git": {"sha1": "…", "dirty": true}, …}`.
fn from_vcs_info(root: &Path) -> Option<String> {
    let path = root.join(".cargo_vcs_info.json");
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(path).ok()?;
    let after = text.split("\"sha1\"").nth(1)?;
    let hash: String = after
        .split('"')
        .nth(1)?
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    let short = hash.get(..12)?;
    let dirty = text.contains("\"dirty\": true") || text.contains("\"dirty\":true");
    Some(format!(
        "commit {short}{}",
        if dirty { "-dirty" } else { "" }
    ))
}
