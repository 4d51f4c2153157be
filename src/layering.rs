//! Tests: dependencies point down the pipeline (STYLE G1).
//!
//! - The library below the CLI never names `crate::cli`: `cli/` is the top, only `main.rs` and
//!   `cli/` itself may use it. Test items count here: a test of a library module has no business
//!   with the CLI either.
//! - The floors import only what lies below them: formats → model → rules → plan → checks →
//!   report, with actions beside them (`FORBIDDEN`). Test items and test-only files do not count:
//!   a test may borrow a helper from anywhere.
//!
//! Every `.rs` file under `src/` except `main.rs` and `src/cli/` is read as tokens (comments and
//! string literals dropped); a path that resolves to a crate-root module (through `crate::`,
//! `self::`, enough `super::`, or bare `cli::` in the crate root, one `{...}` group deep) is an
//! import of that module.

use std::path::{Path, PathBuf};

use crate::formats::module_graph::{first_segments, tokens, without_test_items, Token};

/// (importing floor, floor it must not import, why). A floor is a crate-root module.
const FORBIDDEN: &[(&str, &str, &str)] = &[
    (
        "model",
        "rules",
        "the model holds facts; rules decide from them",
    ),
    (
        "model",
        "plan",
        "the model holds facts; the plan is built from them",
    ),
    (
        "model",
        "checks",
        "findings are made from the model, not in it",
    ),
    ("model", "report", "rendering comes last"),
    ("rules", "plan", "rules are pure and below the plan"),
    ("rules", "checks", "rules are pure and below the findings"),
    ("rules", "report", "rendering comes last"),
    (
        "plan",
        "checks",
        "the plan gives facts; checks turn them into findings",
    ),
    ("plan", "report", "rendering comes last"),
    (
        "checks",
        "report",
        "findings are made before they are rendered",
    ),
    (
        "diagnose",
        "report",
        "diagnose composes; report renders what it composed",
    ),
    (
        "report",
        "formats",
        "report renders the model's and the rules' values, not raw formats",
    ),
    (
        "actions",
        "report",
        "mutations return values; report renders them",
    ),
    ("formats", "model", "formats are pure parsers at the bottom"),
    ("formats", "rules", "formats are pure parsers at the bottom"),
    ("formats", "plan", "formats are pure parsers at the bottom"),
    (
        "formats",
        "checks",
        "formats are pure parsers at the bottom",
    ),
    (
        "formats",
        "report",
        "formats are pure parsers at the bottom",
    ),
];

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

/// The crate-root modules that `toks`, the tokens of the file of module `module`, name, with the
/// token index of each naming (for the message).
fn named_floors(module: &[String], toks: &[Token]) -> Vec<(usize, String)> {
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
                hits.push((k, "cli".to_string()));
                continue;
            }
            _ => continue,
        };
        match base.first() {
            Some(top) => hits.push((k, top.clone())),
            None => hits.extend(first_segments(toks, at).into_iter().map(|n| (k, n))),
        }
    }
    hits
}

/// The places where `src`, the file of module `module`, names the crate root's `cli`.
fn names_of_cli(module: &[String], src: &str) -> Vec<usize> {
    named_floors(module, &tokens(src))
        .into_iter()
        .filter(|(_, floor)| floor == "cli")
        .map(|(k, _)| k)
        .collect()
}

/// The forbidden imports of `src`, the non-test code of the file of module `module`:
/// `(floor it names, why that is forbidden)`, once each.
fn forbidden_imports(module: &[String], src: &str) -> Vec<(String, &'static str)> {
    let Some(own) = module.first() else {
        return Vec::new();
    };
    let mut out: Vec<(String, &'static str)> = Vec::new();
    for (_, floor) in named_floors(module, &without_test_items(&tokens(src))) {
        let rule = FORBIDDEN
            .iter()
            .find(|(from, to, _)| from == own && *to == floor);
        if let Some((_, to, why)) = rule {
            if !out.iter().any(|(f, _)| f == to) {
                out.push((to.to_string(), why));
            }
        }
    }
    out
}

/// Whether the file of module `module` is compiled for tests only: its parent declares it
/// `#[cfg(test)] mod name;` (as `checks/test_support.rs` or `rules/compaction/tests.rs`).
fn is_test_only(src_root: &Path, module: &[String]) -> bool {
    let Some((name, parent)) = module.split_last() else {
        return false;
    };
    let parent_dir: PathBuf = parent.iter().collect();
    let candidates = if parent.is_empty() {
        vec![src_root.join("lib.rs")]
    } else {
        vec![
            src_root.join(&parent_dir).join("mod.rs"),
            src_root.join(&parent_dir).with_extension("rs"),
        ]
    };
    candidates.iter().any(|file| {
        let Ok(text) = std::fs::read_to_string(file) else {
            return false;
        };
        let toks = tokens(&text);
        let kept = without_test_items(&toks);
        let declared = |ts: &[Token]| {
            ts.windows(3).any(|w| {
                w[0] == Token::Ident("mod".into())
                    && w[1] == Token::Ident(name.clone())
                    && w[2] == Token::Punct(';')
            })
        };
        declared(&toks) && !declared(&kept)
    })
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
fn every_floor_imports_only_what_lies_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut offenders = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let module = module_path(rel);
        if rel.starts_with("cli") || is_test_only(&src, &module) {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        for (floor, why) in forbidden_imports(&module, &text) {
            offenders.push(format!("{} imports {floor}: {why}", rel.display()));
        }
    }
    assert!(
        offenders.is_empty(),
        "imports against the pipeline:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn forbidden_imports_are_found_and_test_items_are_not() {
    let m = |s: &str| -> Vec<String> { s.split('/').map(str::to_string).collect() };
    let floors = |module: &str, src: &str| -> Vec<String> {
        forbidden_imports(&m(module), src)
            .into_iter()
            .map(|(f, _)| f)
            .collect()
    };
    assert_eq!(
        floors("checks/groups", "use crate::report::groups_doc::X;"),
        ["report"]
    );
    assert_eq!(
        floors("diagnose", "use crate::{checks, report::human};"),
        ["report"]
    );
    assert_eq!(
        floors(
            "plan/explain",
            "fn f() { crate::checks::finding::Evidence::new() }"
        ),
        ["checks"]
    );
    assert_eq!(
        floors("model/records", "use super::super::rules::X;"),
        ["rules"]
    );
    assert!(floors(
        "checks/groups",
        "#[cfg(test)] mod tests { use crate::report::X; }"
    )
    .is_empty());
    assert!(floors(
        "checks/groups",
        "use crate::model::X; use super::finding::Y;"
    )
    .is_empty());
    assert!(floors("report/wire", "// crate::formats::walk in a comment").is_empty());
    assert!(floors("report/wire", "use crate::formats::walk::WalkEnd;") == ["formats"]);
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    assert!(is_test_only(&src, &m("checks/test_support")));
    assert!(!is_test_only(&src, &m("checks/groups")));
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
