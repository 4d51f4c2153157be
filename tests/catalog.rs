//! docs/findings.md's table and the finding catalog (`checks::catalog`) agree: the same codes
//! both ways, each with the same class, default severity and meaning, and the table is the one
//! `catalog::markdown_table` renders. `LOGCLEAN_UPDATE_DOCS=1 cargo test --test catalog` rewrites
//! the table from the catalog.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

use std::collections::BTreeMap;

use logclean::checks::catalog::{self, ALL};

const FINDINGS_DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/findings.md");

/// The lines of docs/findings.md before the table, the table, and the lines after it.
fn split_doc(doc: &str) -> (String, String, String) {
    let lines: Vec<&str> = doc.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("| code | class |"))
        .expect("docs/findings.md has the finding table");
    let len = lines[start..]
        .iter()
        .take_while(|l| l.starts_with('|'))
        .count();
    let join = |ls: &[&str]| ls.iter().map(|l| format!("{l}\n")).collect::<String>();
    (
        join(&lines[..start]),
        join(&lines[start..start + len]),
        join(&lines[start + len..]),
    )
}

/// Rows of the finding table of docs/findings.md: code → (class, severity, meaning).
fn doc_rows() -> BTreeMap<String, (String, String, String)> {
    let doc = std::fs::read_to_string(FINDINGS_DOC).unwrap();
    let (_, table, _) = split_doc(&doc);
    let mut rows = BTreeMap::new();
    for line in table.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        assert_eq!(
            cells.len(),
            4,
            "row must be | code | class | severity | meaning |: {line}"
        );
        let code = cells[0].trim_matches('`').to_string();
        let row = (cells[1].into(), cells[2].into(), cells[3].into());
        assert!(
            rows.insert(code.clone(), row).is_none(),
            "{code} listed twice"
        );
    }
    rows
}

#[test]
fn findings_doc_table_is_the_rendered_catalog() {
    let doc = std::fs::read_to_string(FINDINGS_DOC).unwrap();
    let (before, table, after) = split_doc(&doc);
    let rendered = catalog::markdown_table();
    if std::env::var_os("LOGCLEAN_UPDATE_DOCS").is_some() {
        std::fs::write(FINDINGS_DOC, format!("{before}{rendered}{after}")).unwrap();
        return;
    }
    assert!(
        table == rendered,
        "docs/findings.md's table is not the catalog's: run LOGCLEAN_UPDATE_DOCS=1 cargo test --test catalog"
    );
}

#[test]
fn findings_doc_table_equals_the_catalog() {
    let rows = doc_rows();
    for k in ALL {
        let row = rows.get(k.code).unwrap_or_else(|| {
            panic!(
                "{} missing from docs/findings.md; rows:\n{}",
                k.code,
                catalog::markdown_table()
            )
        });
        assert_eq!(row.0, k.class.name(), "{}: class", k.code);
        assert_eq!(row.1, k.severity.name(), "{}: default severity", k.code);
        assert_eq!(row.2, k.meaning, "{}: meaning", k.code);
    }
    for code in rows.keys() {
        assert!(
            catalog::by_code(code).is_some(),
            "docs/findings.md lists {code}, the catalog does not"
        );
    }
    assert_eq!(rows.len(), ALL.len());
}

#[test]
fn every_kind_has_a_meaning_and_a_fix() {
    for k in ALL {
        assert!(!k.meaning.trim().is_empty(), "{}: no meaning", k.code);
        assert!(!k.fix.trim().is_empty(), "{}: no fix", k.code);
        assert!(
            catalog::code_follows_rule(k.code),
            "{}: breaks the naming rule",
            k.code
        );
    }
}

/// Exit codes mean action: a kind whose default fix needs no action is info by default (the
/// finding would be made info anyway; the docs must not promise a warning).
#[test]
fn a_kind_whose_fix_needs_no_action_is_info() {
    use logclean::checks::finding::{fix_needs_no_action, Severity};
    for k in ALL {
        if fix_needs_no_action(k.fix) {
            assert_eq!(k.severity, Severity::Info, "{}: fix `{}`", k.code, k.fix);
        }
    }
}
