//! The README's "Finding codes" table and the finding catalog (`checks::catalog`) agree: the
//! same codes both ways, each with the same class, default severity and meaning.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

use std::collections::BTreeMap;

use logclean::checks::catalog::{self, ALL};

/// Rows of the table under `### Finding codes`: code → (class, severity, meaning).
fn readme_rows() -> BTreeMap<String, (String, String, String)> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let section = readme
        .split("### Finding codes")
        .nth(1)
        .expect("README has a Finding codes section");
    let section = section.split("\n#").next().unwrap();
    let mut rows = BTreeMap::new();
    for line in section.lines().filter(|l| l.starts_with("| `")) {
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
fn readme_finding_table_equals_the_catalog() {
    let rows = readme_rows();
    for k in ALL {
        let row = rows.get(k.code).unwrap_or_else(|| {
            panic!(
                "{} missing from the README; rows:\n{}",
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
            "README lists {code}, the catalog does not"
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
