//! `--format html` of `diagnose` and `plan` on every fixture scenario: the page parses with an
//! HTML5 parser (html5ever, the parser of Servo) without a single parse error, holds the five
//! sections in order and the charts, refers to nothing outside itself (no `src`/`href`, no
//! script, no `@import` or `url(` in its style), shows every finding of the JSON document with
//! its fix whole; and names read from disk that look like markup stay text.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;
use support::scratch::copy_dir_readable;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use html5ever::tendril::TendrilSink;
use html5ever::{parse_document, ParseOpts};
use markup5ever_rcdom::{Handle, NodeData, RcDom};
use serde_json::Value;

const SECTIONS: [&str; 5] = ["headline", "disk", "timelines", "findings", "inputs"];
const DISK_SPACE: &str = "1000000000,2000000000";

fn run(args: &[String]) -> Output {
    let mut cmd = support::logclean_capped(support::MEMORY_CAP_BYTES, false);
    cmd.args(args);
    cmd.output().unwrap()
}

/// `command` on `fixture` at its capture instant: (its arguments up to the format, the rest).
fn args(fixture: &Path, command: &str, format: &str) -> Vec<String> {
    let m: Value =
        serde_json::from_str(&fs::read_to_string(fixture.join("manifest.json")).unwrap()).unwrap();
    let at = if command == "plan" { "--at" } else { "--now" };
    let mut a: Vec<String> = vec![
        command.into(),
        "--format".into(),
        format.into(),
        at.into(),
        m["captured_at"].as_str().unwrap().into(),
    ];
    // A multi-broker fixture has one server.properties per node: none is the broker's.
    let props = fixture.join("server.properties");
    if props.is_file() {
        a.extend(["--server-properties".into(), props.display().to_string()]);
    }
    if let Some(f) = m["topic_configs_file"].as_str() {
        a.extend([
            "--config-file".into(),
            fixture.join(f).display().to_string(),
        ]);
    }
    if command == "diagnose" {
        a.extend(["--disk-space".into(), DISK_SPACE.into()]);
    }
    for d in support::manifest_log_dirs(&m) {
        a.push(fixture.join(d).display().to_string());
    }
    a
}

fn scenarios() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(support::fixtures_root())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("manifest.json").is_file())
        .collect();
    v.sort();
    assert!(v.len() >= 20, "fixtures not found");
    v
}

/// A parsed page: the tree and the parser's errors.
struct Page {
    dom: RcDom,
    source: String,
}

fn parse(source: &str) -> Page {
    let opts = ParseOpts {
        tree_builder: html5ever::tree_builder::TreeBuilderOpts {
            exact_errors: true,
            ..Default::default()
        },
        ..Default::default()
    };
    let dom = parse_document(RcDom::default(), opts).one(source);
    Page {
        dom,
        source: source.to_string(),
    }
}

/// An element: its name, its attributes, its node.
type Element = (String, Vec<(String, String)>, Handle);

/// Every element under `h`, depth first.
fn elements(h: &Handle, out: &mut Vec<Element>) {
    if let NodeData::Element { name, attrs, .. } = &h.data {
        let attrs = attrs
            .borrow()
            .iter()
            .map(|a| (a.name.local.to_string(), a.value.to_string()))
            .collect();
        out.push((name.local.to_string(), attrs, h.clone()));
    }
    for c in h.children.borrow().iter() {
        elements(c, out);
    }
}

/// The text under `h`, entities decoded.
fn text(h: &Handle) -> String {
    let mut s = String::new();
    if let NodeData::Text { contents } = &h.data {
        s.push_str(&contents.borrow());
    }
    for c in h.children.borrow().iter() {
        s.push_str(&text(c));
    }
    s
}

fn attr<'a>(attrs: &'a [(String, String)], k: &str) -> Option<&'a str> {
    attrs.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str())
}

/// The checks every page passes; returns its elements for more.
fn check_page(page: &Page, what: &str) -> Vec<Element> {
    let errors = page.dom.errors.borrow();
    assert!(errors.is_empty(), "{what}: parse errors {errors:?}");
    assert!(page.source.starts_with("<!DOCTYPE html>"), "{what}");
    let mut els = Vec::new();
    elements(&page.dom.document, &mut els);
    let sections: Vec<&str> = els
        .iter()
        .filter(|e| e.0 == "section")
        .filter_map(|e| attr(&e.1, "id"))
        .collect();
    assert_eq!(sections, SECTIONS, "{what}");
    for (name, attrs, h) in &els {
        assert!(
            !matches!(
                name.as_str(),
                "script" | "img" | "link" | "iframe" | "object" | "embed" | "base"
            ),
            "{what}: <{name}>"
        );
        for (k, v) in attrs {
            assert!(
                !matches!(k.as_str(), "src" | "href" | "srcset" | "action" | "data")
                    && !k.starts_with("on")
                    && !v.contains("url("),
                "{what}: <{name} {k}={v:?}>"
            );
        }
        if name == "style" {
            let css = text(h);
            assert!(
                !css.contains("@import") && !css.contains("url(") && !css.contains("@font-face"),
                "{what}: style fetches"
            );
        }
    }
    let svg_class = |c: &str| {
        els.iter()
            .filter(|e| e.0 == "svg" && attr(&e.1, "class") == Some(c))
            .count()
    };
    assert!(svg_class("log-chart") >= 1, "{what}: no disk chart");
    let csp = els.iter().any(|e| {
        e.0 == "meta"
            && attr(&e.1, "http-equiv") == Some("Content-Security-Policy")
            && attr(&e.1, "content").is_some_and(|c| c.starts_with("default-src 'none'"))
    });
    assert!(csp, "{what}: no Content-Security-Policy");
    els
}

/// The findings of the JSON document are the page's diagnostics, each fix whole in a `<pre>`.
fn check_findings(els: &[Element], json: &Value, what: &str) {
    let findings = json["findings"].as_array().unwrap();
    let diags = els
        .iter()
        .filter(|e| e.0 == "div" && attr(&e.1, "class").is_some_and(|c| c.starts_with("diag ")))
        .count();
    assert_eq!(
        diags,
        findings.len(),
        "{what}: diagnostics vs JSON findings"
    );
    let fixes: Vec<String> = els
        .iter()
        .filter(|e| e.0 == "pre")
        .map(|e| text(&e.2))
        .collect();
    for f in findings {
        let fix = f["fix"].as_str().unwrap();
        assert!(
            fixes.iter().any(|x| x == fix),
            "{what}: fix not shown whole: {fix}"
        );
    }
    // Most severe first.
    let rank = |s: &str| ["error", "warning", "info"].iter().position(|x| *x == s);
    let order: Vec<usize> = els
        .iter()
        .filter_map(|e| attr(&e.1, "class"))
        .filter_map(|c| c.strip_prefix("diag sev-"))
        .filter_map(rank)
        .collect();
    assert!(order.windows(2).all(|w| w[0] <= w[1]), "{what}: {order:?}");
}

#[test]
fn every_fixture_report_is_valid_self_contained_html_with_every_finding() {
    // Four runs per scenario: four threads, each a share of the scenarios.
    let all = scenarios();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4)
            .map(|i| {
                let mine: Vec<&PathBuf> = all.iter().skip(i).step_by(4).collect();
                scope.spawn(move || mine.into_iter().for_each(|fx| check_scenario(fx)))
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
    });
}

fn check_scenario(fx: &Path) {
    let name = fx.file_name().unwrap().to_string_lossy().into_owned();
    for command in ["diagnose", "plan"] {
        let what = format!("{name} {command}");
        let html = run(&args(fx, command, "html"));
        let json = run(&args(fx, command, "json"));
        assert_eq!(html.status.code(), json.status.code(), "{what}: exit codes");
        assert!(
            html.stderr.is_empty(),
            "{what}: {}",
            String::from_utf8_lossy(&html.stderr)
        );
        let page = parse(&String::from_utf8(html.stdout).unwrap());
        let els = check_page(&page, &what);
        let doc: Value = serde_json::from_slice(&json.stdout).unwrap();
        check_findings(&els, &doc, &what);
        // A timeline per partition with bytes.
        let planned = els
            .iter()
            .filter(|e| e.0 == "svg" && attr(&e.1, "class") == Some("timeline"))
            .count();
        assert!(planned >= 1, "{what}: no timeline");
        if command == "plan" {
            let with_bytes = doc["partitions"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|p| {
                    p["segments"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|s| s["size_bytes"].as_u64().unwrap() > 0)
                })
                .count();
            assert_eq!(planned, with_bytes, "{what}: timelines");
        }
        if command == "diagnose" {
            assert!(
                els.iter()
                    .any(|e| e.0 == "svg" && attr(&e.1, "class") == Some("disk-chart")),
                "{what}: --disk-space given, no used/free chart"
            );
        }
    }
}

#[test]
fn names_from_disk_that_look_like_markup_stay_text() {
    let fx = support::scratch::fixture("idle-active-segment");
    let tmp = tempfile::tempdir().unwrap();
    // The log dir's own path, a stray file in it and a file in a partition look like markup.
    let root = tmp.path().join("a<b>&\"c'");
    copy_dir_readable(&fx, &root);
    let logs = root.join("logs-0");
    // (A file name holds no `/`, so no closing tag.)
    let evil = "<script>alert(\"x\")<script>";
    fs::write(logs.join(evil), b"x").unwrap();
    fs::write(
        logs.join("trickle-0").join("<img src=x onerror=alert(1)>"),
        b"y",
    )
    .unwrap();
    for command in ["diagnose", "plan"] {
        let what = format!("hostile {command}");
        let out = run(&args(&root, command, "html"));
        let source = String::from_utf8(out.stdout).unwrap();
        let page = parse(&source);
        let els = check_page(&page, &what);
        assert!(
            !source.contains("<script") && !source.contains("<img"),
            "{what}"
        );
        assert!(source.contains("a&lt;b&gt;&amp;&quot;c&#39;"), "{what}");
        let body = text(&page.dom.document);
        assert!(
            body.contains("a<b>&\"c'"),
            "{what}: the path is shown as text"
        );
        if command == "diagnose" {
            let json: Value =
                serde_json::from_slice(&run(&args(&root, command, "json")).stdout).unwrap();
            let named = json["findings"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| f.to_string().contains("<script>") || f.to_string().contains("<img"))
                .count();
            assert!(named >= 1, "the stray files are findings: {json}");
            check_findings(&els, &json, &what);
            assert!(
                body.contains(evil),
                "{what}: the file name is shown as text"
            );
        }
    }
}

#[test]
fn other_commands_refuse_html() {
    let fx = support::scratch::fixture("idle-active-segment");
    let out = run(&[
        "inspect".into(),
        "--format".into(),
        "html".into(),
        fx.join("logs-0").display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--format html is only offered"));
    assert!(out.stdout.is_empty());
}
