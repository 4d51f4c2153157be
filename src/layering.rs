//! Test: the library below the CLI never names `crate::cli` (STYLE G1: dependencies point down;
//! `cli/` is the top, only `main.rs` and `cli/` itself may use it).
//!
//! Every `.rs` file under `src/` except `main.rs` and `src/cli/` is read as tokens (comments and
//! string literals dropped, test items kept: a test of a library module has no business with the
//! CLI either); a path that resolves to the crate root's `cli` (through `crate::`, `self::`,
//! enough `super::`, or bare `cli::` in the crate root, one `{...}` group deep) fails the test.

use std::path::{Path, PathBuf};

use crate::formats::module_graph::{first_segments, tokens, Token};

/// The module path of a file below `src/` (`diagnose/mod.rs` → `[diagnose]`, `lib.rs` → `[]`).
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs");
        if stem != "mod" && stem != "lib" {
            parts.push(stem.to_string());
        }
    }
    parts
}

/// The places (token index, for the message) where `src`, the file of module `module`, names the
/// crate root's `cli`.
fn names_of_cli(module: &[String], src: &str) -> Vec<usize> {
    let toks = tokens(src);
    let ident = |k: usize| match toks.get(k) {
        Some(Token::Ident(s)) => Some(s.as_str()),
        _ => None,
    };
    let sep = |k: usize| toks.get(k) == Some(&Token::PathSep);
    // Brace nesting, with the name of the inline `mod name {` each brace opened, if any.
    let mut braces: Vec<Option<String>> = Vec::new();
    let mut hits = Vec::new();
    for k in 0..toks.len() {
        match toks.get(k) {
            Some(Token::Punct('{')) => {
                let inline_mod = k
                    .checked_sub(2)
                    .filter(|&m| ident(m) == Some("mod"))
                    .and_then(|_| ident(k - 1))
                    .map(str::to_string);
                braces.push(inline_mod);
            }
            Some(Token::Punct('}')) => {
                braces.pop();
            }
            _ => {}
        }
        if k > 0 && sep(k - 1) {
            continue;
        }
        let mut here: Vec<String> = module.to_vec();
        here.extend(braces.iter().flatten().cloned());
        // Where the path's segments after the keyword(s) start (the `::` before them), and the
        // module they are relative to.
        let (at, base) = match ident(k) {
            Some("crate") if sep(k + 1) => (k + 1, Vec::new()),
            Some("self") if sep(k + 1) => (k + 1, here),
            Some("super") if sep(k + 1) => {
                let mut j = k;
                let mut base = here;
                while ident(j) == Some("super") && sep(j + 1) {
                    base.pop();
                    j += 2;
                }
                (j - 1, base)
            }
            // A bare path in the crate root (2018 uniform paths): `cli::run(..)`.
            Some("cli") if sep(k + 1) && here.is_empty() => {
                hits.push(k);
                continue;
            }
            _ => continue,
        };
        let names_cli = match base.first() {
            Some(top) => top == "cli",
            None => first_segments(&toks, at).iter().any(|n| n == "cli"),
        };
        if names_cli {
            hits.push(k);
        }
    }
    hits
}

/// Every `.rs` file below `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_library_module_names_the_cli() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut offenders = Vec::new();
    let mut read = 0;
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        if rel == Path::new("main.rs") || rel.starts_with("cli") {
            continue;
        }
        read += 1;
        let text = std::fs::read_to_string(file).unwrap();
        if !names_of_cli(&module_path(rel), &text).is_empty() {
            offenders.push(rel.display().to_string());
        }
    }
    assert!(read > 50, "only {read} library files found under src/");
    assert!(
        offenders.is_empty(),
        "library modules that use `crate::cli` (move what they need below the CLI): {offenders:?}"
    );
}

#[test]
fn every_way_of_naming_the_cli_is_found() {
    let m = |s: &str| -> Vec<String> { s.split('/').map(str::to_string).collect() };
    let found = |module: &[String], src: &str| !names_of_cli(module, src).is_empty();
    let diagnose = m("diagnose");
    for src in [
        "use crate::cli::common::load_targets;",
        "use crate::{checks, cli::progress::Progress};",
        "fn f() { crate::cli::groups::run(); }",
        "use super::cli::common;",
        "mod inner { use super::super::cli::X; }",
    ] {
        assert!(found(&diagnose, src), "not found in diagnose: {src}");
    }
    assert!(found(&m("diagnose/render"), "use super::super::cli::X;"));
    assert!(found(&[], "use self::cli::X; fn f() { cli::run() }"));
    for src in [
        "//! [`crate::cli::common`] in a doc comment",
        "const S: &str = \"crate::cli\";",
        "use crate::client::X; use super::cli::Y;",
        "use crate::checks::cli::X;",
        "mod inner { use super::cli::X; }",
    ] {
        // `super::cli` from `diagnose/render` is `diagnose::cli`, from `diagnose`'s inline
        // module `diagnose::cli`: not the crate's.
        let module = if src.contains("client") {
            m("diagnose/render")
        } else {
            diagnose.clone()
        };
        assert!(!found(&module, src), "wrongly found: {src}");
    }
}
