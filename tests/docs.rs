//! README.md and docs/*.md link to each other: every relative link names a file of the repository
//! and, with a `#fragment`, a heading of that file (GitHub's anchor of it).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files that link: README.md and docs/*.md.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![root().join("README.md")];
    for e in std::fs::read_dir(root().join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            pages.push(p);
        }
    }
    pages.sort();
    pages
}

/// Lines outside fenced code blocks.
fn prose(text: &str) -> Vec<&str> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push(line);
        }
    }
    out
}

/// GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(page: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(page).unwrap();
    prose(&text)
        .into_iter()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|l| anchor(l.trim_start_matches('#')))
        .collect()
}

/// Targets of inline links `[text](target)` on a line.
fn links(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        if let Some(end) = rest.find(')') {
            out.push(&rest[..end]);
            rest = &rest[end..];
        }
    }
    out
}

#[test]
fn relative_links_resolve_to_files_and_headings() {
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for line in prose(&text) {
            for target in links(line) {
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let (file, fragment) = target.split_once('#').unwrap_or((target, ""));
                let dest = if file.is_empty() {
                    page.clone()
                } else {
                    page.parent().unwrap().join(file)
                };
                assert!(
                    dest.exists(),
                    "{}: link to {target}: {} does not exist",
                    page.display(),
                    dest.display()
                );
                if !fragment.is_empty() {
                    assert!(
                        anchors(&dest).iter().any(|a| a == fragment),
                        "{}: link to {target}: no heading with that anchor in {}",
                        page.display(),
                        dest.display()
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(
        checked >= 10,
        "only {checked} links found: README lost its docs/ index?"
    );
}

#[test]
fn anchors_are_githubs() {
    assert_eq!(
        anchor("`--config` is checked as Kafka checks it"),
        "--config-is-checked-as-kafka-checks-it"
    );
    assert_eq!(anchor(" `logclean diagnose`"), "logclean-diagnose");
    assert_eq!(
        anchor("Assumed configs (every command that judges on topic configs)"),
        "assumed-configs-every-command-that-judges-on-topic-configs"
    );
}
