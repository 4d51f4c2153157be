//! Test: the modules of `formats/` depend on each other without a cycle, so that each can be
//! read, tested and changed from the bottom (`bytes`, `error`, `batch`) up.
//!
//! A module depends on a sibling when its non-test code names it through `super::` or
//! `crate::formats::` (in a `use` line, a `pub use` re-export or an inline path); comments and
//! `#[cfg(test)]` items do not count, since test modules may use the encoders of modules above
//! them. An item of `mod.rs` (such as `super::FormatResult`) is a dependency on `mod`, whose own
//! edges are its `use` lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Dependency graph: module name → the sibling modules it names.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// A token of Rust source, as far as paths are concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token {
    /// An identifier or keyword.
    Ident(String),
    /// `::`.
    PathSep,
    /// Any other punctuation character.
    Punct(char),
}

/// The tokens of `src`, without comments, string and character literals.
pub(crate) fn tokens(src: &str) -> Vec<Token> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let at = |k: usize| chars.get(k).copied();
    let hashes_at = |k: usize| (k..).take_while(|&j| at(j) == Some('#')).count();
    while let Some(c) = at(i) {
        match c {
            '/' if at(i + 1) == Some('/') => {
                while at(i).is_some_and(|c| c != '\n') {
                    i += 1;
                }
            }
            '/' if at(i + 1) == Some('*') => {
                let mut depth = 0;
                while let Some(c) = at(i) {
                    if c == '/' && at(i + 1) == Some('*') {
                        depth += 1;
                        i += 1;
                    } else if c == '*' && at(i + 1) == Some('/') {
                        depth -= 1;
                        i += 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    i += 1;
                }
            }
            '"' => {
                i += 1;
                while let Some(c) = at(i) {
                    i += if c == '\\' { 2 } else { 1 };
                    if c == '"' {
                        break;
                    }
                }
            }
            'r' if at(i + 1 + hashes_at(i + 1)) == Some('"') => {
                // Raw string r"..." or r#"..."# (not a raw identifier r#name).
                let hashes = hashes_at(i + 1);
                i += hashes + 2;
                while let Some(c) = at(i) {
                    i += 1;
                    if c == '"' && (0..hashes).all(|h| at(i + h) == Some('#')) {
                        i += hashes;
                        break;
                    }
                }
            }
            '\'' if at(i + 1) == Some('\\') || at(i + 2) == Some('\'') => {
                // A character literal ('x', '\n', '\'', '\u{..}'); otherwise a lifetime. Skip the
                // quote and one character (two when escaped), then up to the closing quote.
                i += if at(i + 1) == Some('\\') { 3 } else { 2 };
                while at(i).is_some_and(|c| c != '\'') {
                    i += 1;
                }
                i += 1;
            }
            ':' if at(i + 1) == Some(':') => {
                out.push(Token::PathSep);
                i += 2;
            }
            c if c.is_alphanumeric() || c == '_' => {
                let start = i;
                while at(i).is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    i += 1;
                }
                out.push(Token::Ident(chars[start..i].iter().collect()));
            }
            c if c.is_whitespace() => i += 1,
            c => {
                out.push(Token::Punct(c));
                i += 1;
            }
        }
    }
    out
}

/// `tokens` without the items marked `#[cfg(test)]` (the attribute, any further attributes,
/// and the item up to its `;` or its closing brace).
pub(crate) fn without_test_items(tokens: &[Token]) -> Vec<Token> {
    let is = |t: Option<&Token>, c: char| t == Some(&Token::Punct(c));
    let cfg_test = |k: usize| {
        let want = ["#", "[", "cfg", "(", "test", ")", "]"];
        want.iter()
            .enumerate()
            .all(|(j, w)| match tokens.get(k + j) {
                Some(Token::Punct(c)) => c.to_string() == *w,
                Some(Token::Ident(s)) => s == w,
                _ => false,
            })
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if !cfg_test(i) {
            out.push(tokens[i].clone());
            i += 1;
            continue;
        }
        // Skip the attribute and the ones after it.
        while is(tokens.get(i), '#') {
            let mut depth = 0;
            i += 1;
            while let Some(t) = tokens.get(i) {
                i += 1;
                match t {
                    Token::Punct('[') => depth += 1,
                    Token::Punct(']') => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
            }
        }
        // Skip the item.
        let mut depth = 0;
        while let Some(t) = tokens.get(i) {
            i += 1;
            match t {
                Token::Punct('{' | '(' | '[') => depth += 1,
                Token::Punct('}' | ')' | ']') => {
                    depth -= 1;
                    if depth == 0 && t == &Token::Punct('}') {
                        break;
                    }
                }
                Token::Punct(';') if depth == 0 => break,
                _ => {}
            }
        }
    }
    out
}

/// The names a path names at its first segment after `tokens[start]` (`::` expected there):
/// one name, or the top-level names of a `{...}` group.
pub(crate) fn first_segments(tokens: &[Token], start: usize) -> Vec<String> {
    match tokens.get(start + 1) {
        Some(Token::Ident(name)) => vec![name.clone()],
        Some(Token::Punct('*')) => vec!["*".to_string()],
        Some(Token::Punct('{')) => {
            let mut names = Vec::new();
            let mut depth = 0;
            let mut expect_name = true;
            for t in tokens.get(start + 1..).unwrap_or(&[]) {
                match t {
                    Token::Punct('{') => {
                        depth += 1;
                        continue;
                    }
                    Token::Punct('}') => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    Token::Punct(',') if depth == 1 => {
                        expect_name = true;
                        continue;
                    }
                    Token::Ident(name) if depth == 1 && expect_name => names.push(name.clone()),
                    Token::Punct('*') if depth == 1 && expect_name => names.push("*".into()),
                    _ => {}
                }
                expect_name = false;
            }
            names
        }
        _ => Vec::new(),
    }
}

/// The sibling modules `module`'s non-test code in `src` names (`modules`: every module of the
/// directory, `mod` included). Panics where it cannot tell: a `super::` inside an inline module
/// (which would mean the file's own module).
fn dependencies(module: &str, src: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let toks = without_test_items(&tokens(src));
    let ident = |k: usize| match toks.get(k) {
        Some(Token::Ident(s)) => Some(s.as_str()),
        _ => None,
    };
    let sep = |k: usize| toks.get(k) == Some(&Token::PathSep);
    let mut names = Vec::new();
    // Brace nesting; true where the brace opened an inline `mod name {`.
    let mut braces: Vec<bool> = Vec::new();
    for k in 0..toks.len() {
        match &toks[k] {
            Token::Punct('{') => {
                let inline_mod = k >= 2 && ident(k - 2) == Some("mod");
                braces.push(inline_mod);
            }
            Token::Punct('}') => {
                braces.pop();
            }
            _ => {}
        }
        let starts_path = k == 0 || !sep(k - 1);
        if !starts_path {
            continue;
        }
        match ident(k) {
            Some("super") if sep(k + 1) => {
                assert!(
                    !braces.iter().any(|&m| m),
                    "{module}.rs: `super::` inside an inline module; name the sibling through \
                     `crate::formats::` there"
                );
                names.extend(first_segments(&toks, k + 1));
            }
            Some("crate") if sep(k + 1) && ident(k + 2) == Some("formats") && sep(k + 3) => {
                names.extend(first_segments(&toks, k + 3));
            }
            // In mod.rs the submodules are in scope by their bare names (`pub use error::...`).
            Some("use") if module == "mod" => {
                let name_at = k + 1;
                if let Some(name) = ident(name_at).filter(|n| modules.contains(*n)) {
                    if sep(name_at + 1) {
                        names.push(name.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    names
        .into_iter()
        .filter(|n| n != "self")
        .map(|n| {
            if modules.contains(&n) {
                n
            } else {
                "mod".to_string()
            }
        })
        .filter(|n| n != module)
        .collect()
}

/// A cycle in `graph`, as the modules along it (the first repeated at the end), if there is one.
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &Graph,
        done: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, done, path) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|start| visit(start, graph, &mut done, &mut Vec::new()))
}

/// The dependency graph of the `.rs` files directly in `dir`.
fn graph_of(dir: &Path) -> Graph {
    let mut sources = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        assert!(
            !path.is_dir(),
            "{}: submodule directories are not read by this test; extend it",
            path.display()
        );
        if path.extension().is_some_and(|e| e == "rs") {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            sources.insert(name, std::fs::read_to_string(&path).unwrap());
        }
    }
    let modules: BTreeSet<String> = sources.keys().cloned().collect();
    sources
        .iter()
        .map(|(name, src)| (name.clone(), dependencies(name, src, &modules)))
        .collect()
}

fn edges(pairs: &[(&str, &str)]) -> Graph {
    let mut g = Graph::new();
    for (from, to) in pairs {
        g.entry(from.to_string())
            .or_default()
            .insert(to.to_string());
        g.entry(to.to_string()).or_default();
    }
    g
}

#[test]
fn formats_modules_have_no_import_cycle() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/formats");
    let graph = graph_of(&dir);
    // The parser must see the dependencies that are known to exist.
    for (from, to) in [
        ("verify", "walk"),
        ("verify", "record"),
        ("record", "legacy"),
        ("legacy", "batch"),
        ("offset_index", "slot_index"),
        ("time_index", "slot_index"),
        ("mod", "error"),
    ] {
        assert!(
            graph.get(from).is_some_and(|d| d.contains(to)),
            "{from} -> {to} not found in {graph:?}"
        );
    }
    if let Some(cycle) = find_cycle(&graph) {
        panic!("import cycle in src/formats: {}", cycle.join(" -> "));
    }
}

#[test]
fn dependencies_skip_comments_strings_and_test_items() {
    let modules: BTreeSet<String> = ["a", "b", "c", "d", "e", "mod"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let src = r##"
        //! See [`super::c`] and /* super::c */ too.
        use super::{a::{X, Y}, b as bee};
        pub use crate::formats::FormatResult;
        const S: &str = "super::c";
        const R: &str = r#"super::c"#;
        const Q: char = '"';
        const P: char = '\'';
        const T: &str = "\"super::c\"";
        fn g(r#type: u8) -> u8 { super::a::h(r#type) }
        fn f<'x>(v: &'x u8) -> u8 { super::d::g(*v) }
        #[cfg(test)]
        #[allow(dead_code)]
        mod tests { use super::e::*; }
        #[cfg(test)]
        use super::e::Z;
        mod inner { pub const N: u8 = 1; }
    "##;
    let deps = dependencies("x", src, &modules);
    let want: BTreeSet<String> = ["a", "b", "d", "mod"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(deps, want);
}

#[test]
#[should_panic(expected = "inside an inline module")]
fn super_inside_an_inline_module_is_refused() {
    let modules: BTreeSet<String> = ["a", "mod"].iter().map(|s| s.to_string()).collect();
    dependencies("x", "mod inner { use super::a::X; }", &modules);
}

#[test]
fn cycles_are_found() {
    assert_eq!(
        find_cycle(&edges(&[("a", "b"), ("b", "c"), ("a", "c")])),
        None
    );
    let cycle = find_cycle(&edges(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])).unwrap();
    assert_eq!(cycle, ["a", "b", "c", "a"]);
}
