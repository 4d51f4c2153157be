//! Names read from disk in every command's output (issue 20, "never act on a guess"): a copy of
//! `fixtures/basic-delete/logs-0` under a parent dir whose name holds a byte that is not UTF-8
//! and an escape sequence, with `orders-2` renamed `orders\x1b]0;pwned\x07-2` (an OSC title
//! sequence: no legal topic name, but the broker's dir-name parser takes it) and `sized-0`
//! renamed `siz\xe9d-0` (not UTF-8). Every command's table, text and Prometheus output carries
//! no control character but line feeds, its JSON parses and names both dirs as `name_text`
//! writes them, and no command aborts the log dir: the mutating ones act on `orders-0` and leave
//! the two renamed dirs alone. Also: `completions` on a closed pipe ends quietly.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;

use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use support::scratch::{copy_dir_readable, fixture, same, tree};

/// The parent dir of the log dir: not UTF-8, and an escape sequence that clears the screen.
const PARENT: &[u8] = b"r\xff\x1b[2J";
/// `orders-2`, renamed.
const OSC: &str = "orders\x1b]0;pwned\x07-2";
/// `sized-0`, renamed.
const NOT_UTF8: &[u8] = b"siz\xe9d-0";
/// `OSC` as a table shows it.
const OSC_SHOWN: &str = "orders\\x1b]0;pwned\\x07-2";
/// `NOT_UTF8` as the reports write it (table and JSON alike).
const NOT_UTF8_SHOWN: &str = "siz\\xe9d-0";
/// When the plan deletes segments of every partition of the fixture.
const LATER: &str = "2026-11-30T17:00:00Z";

struct Scene {
    _tmp: tempfile::TempDir,
    log_dir: PathBuf,
}

fn scene() -> Scene {
    let tmp = tempfile::tempdir().unwrap();
    let log_dir = tmp.path().join(OsStr::from_bytes(PARENT)).join("logs-0");
    copy_dir_readable(&fixture("basic-delete").join("logs-0"), &log_dir);
    fs::rename(log_dir.join("orders-2"), log_dir.join(OSC)).unwrap();
    fs::rename(
        log_dir.join("sized-0"),
        log_dir.join(OsStr::from_bytes(NOT_UTF8)),
    )
    .unwrap();
    Scene { _tmp: tmp, log_dir }
}

/// The log dir as the reports write it (`name_text`), and as a table shows it.
fn shown(log_dir: &Path) -> (String, String) {
    let mut text = String::new();
    for chunk in log_dir.as_os_str().as_bytes().utf8_chunks() {
        text.push_str(&chunk.valid().replace('\\', "\\\\"));
        for b in chunk.invalid() {
            text.push_str(&format!("\\x{b:02x}"));
        }
    }
    let table = text.replace('\x1b', "\\x1b");
    (text, table)
}

fn run(args: &[&OsStr]) -> Output {
    let mut cmd = support::logclean_capped(support::MEMORY_CAP_BYTES, false);
    cmd.arg("--no-progress").args(args);
    cmd.output().unwrap()
}

fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

/// Output that is safe on a terminal: UTF-8 without a control character other than `\n` (C0,
/// DEL, C1) and without the bidi controls; and consistent: no name decoded lossily.
#[track_caller]
fn assert_terminal_safe(what: &str, bytes: &[u8]) -> String {
    let text = String::from_utf8(bytes.to_vec()).unwrap_or_else(|e| {
        panic!(
            "{what}: not UTF-8: {e}\n{:?}",
            String::from_utf8_lossy(bytes)
        )
    });
    if let Some(c) = text.chars().find(|&c| {
        (c.is_control() && c != '\n')
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    }) {
        panic!("{what}: raw {c:?} in the output:\n{text:?}");
    }
    assert!(
        !text.contains('\u{fffd}'),
        "{what}: a name decoded lossily (`\\xe9` expected):\n{text}"
    );
    text
}

/// A run that finished on its own with an exit code of a completed run (0, 1 or 2), never an
/// abort (3), a panic (101) or a signal.
#[track_caller]
fn assert_completed(what: &str, o: &Output) {
    let code = o.status.code();
    assert!(
        matches!(code, Some(0..=2)),
        "{what}: exit {code:?}\nstdout: {:?}\nstderr: {:?}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Every string in a JSON document.
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(m) => m.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

#[track_caller]
fn json(what: &str, o: &Output) -> (Value, Vec<String>) {
    assert_terminal_safe(&format!("{what} stderr"), &o.stderr);
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{what}: not JSON: {e}\n{}",
            String::from_utf8_lossy(&o.stdout)
        )
    });
    let mut all = Vec::new();
    strings(&doc, &mut all);
    assert!(
        !all.iter().any(|x| x.contains('\u{fffd}')),
        "{what}: a name decoded lossily: {all:?}"
    );
    (doc, all)
}

#[test]
fn read_only_commands_escape_every_name_and_name_both_dirs() {
    let s = scene();
    let dir = s.log_dir.as_os_str();
    let (dir_text, dir_table) = shown(&s.log_dir);
    for command in [
        "inspect",
        "diagnose",
        "plan",
        "groups",
        "transactions",
        "config",
    ] {
        let o = run(&[os("--format"), os("table"), os(command), dir]);
        assert_completed(command, &o);
        let table = assert_terminal_safe(command, &o.stdout);
        assert_terminal_safe(&format!("{command} stderr"), &o.stderr);
        let o = run(&[os("--format"), os("json"), os(command), dir]);
        assert_completed(command, &o);
        let (_, all) = json(command, &o);
        if matches!(command, "inspect" | "diagnose") {
            for name in [OSC_SHOWN, NOT_UTF8_SHOWN] {
                assert!(table.contains(name), "{command}: {name} not in\n{table}");
            }
            assert!(
                table.contains(&dir_table),
                "{command}: {dir_table} not in\n{table}"
            );
            assert!(
                all.iter().any(|x| x == OSC),
                "{command}: {OSC:?} not in {all:?}"
            );
            assert!(
                all.iter().any(|x| x == NOT_UTF8_SHOWN),
                "{command}: {all:?}"
            );
            assert!(
                all.iter().any(|x| x.starts_with(&dir_text)),
                "{command}: {all:?}"
            );
        }
    }
    let o = run(&[os("--format"), os("prometheus"), os("diagnose"), dir]);
    assert_completed("prometheus", &o);
    let text = assert_terminal_safe("prometheus", &o.stdout);
    // The label value is the table's text, whose backslashes the exposition format doubles.
    for name in ["orders\\\\x1b]0;pwned\\\\x07", "siz\\\\xe9d"] {
        assert!(
            text.contains(&format!("topic=\"{name}\"")),
            "{name} not in\n{text}"
        );
    }
    assert!(
        text.contains(&format!(
            "log_dir=\"{}\"",
            dir_text.replace('\\', "\\\\").replace('\x1b', "\\\\x1b")
        )),
        "{text}"
    );
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (_, value) = line.rsplit_once(' ').unwrap();
        assert!(value.parse::<f64>().is_ok(), "a forged sample: {line}");
    }
}

#[test]
fn mutating_commands_act_on_the_other_partitions_and_leave_the_named_dirs_alone() {
    let s = scene();
    let dir = s.log_dir.as_os_str();
    let (dir_text, dir_table) = shown(&s.log_dir);
    let before = tree(&s.log_dir);
    // The broker's own config (with the metadata log's topic configs: nothing assumed).
    let props = fixture("basic-delete").join("server.properties");
    let skipped = [
        format!("{OSC_SHOWN}: skipped (never acted on)"),
        format!("{NOT_UTF8_SHOWN}: skipped (never acted on)"),
    ];
    for command in ["roll", "rebuild-index"] {
        let o = run(&[os(command), dir]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{command}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let table = assert_terminal_safe(command, &o.stdout);
        assert!(
            table.starts_with(&format!("{command} in {dir_table}\n")),
            "{table}"
        );
        for note in &skipped {
            assert!(
                table.contains(&format!("note: {note}")),
                "{command}: {note} not in\n{table}"
            );
        }
        assert!(
            table.contains(&format!("{dir_table}/orders-0")),
            "{command}:\n{table}"
        );
        let o = run(&[os("--format"), os("json"), os(command), dir]);
        assert_eq!(o.status.code(), Some(0), "{command}");
        let (doc, all) = json(command, &o);
        let d = &doc["log_dirs"][0];
        assert_eq!(d["plan"]["log_dir"], dir_text.as_str(), "{command}");
        let notes: Vec<&str> = d["plan"]["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        assert!(
            notes.contains(&format!("{OSC}: skipped (never acted on)").as_str()),
            "{notes:?}"
        );
        assert!(notes.contains(&skipped[1].as_str()), "{notes:?}");
        assert!(
            !d["reports"].as_array().unwrap().is_empty(),
            "{command}: {d:#}"
        );
        assert!(
            all.iter()
                .any(|x| x.starts_with(&format!("{dir_text}/orders-0"))),
            "{all:?}"
        );
        assert!(
            !all.iter()
                .any(|x| x.contains("pwned") && !x.contains("skipped")),
            "{all:?}"
        );
    }

    // delete: orders-0 loses its segments, the two renamed dirs are refused by name.
    let o = run(&[
        os("delete"),
        dir,
        os("--at"),
        os(LATER),
        os("--server-properties"),
        props.as_os_str(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let table = assert_terminal_safe("delete", &o.stdout);
    assert!(
        table.contains("  orders-0: deletes 7 segment(s)"),
        "{table}"
    );
    for name in [OSC_SHOWN, NOT_UTF8_SHOWN] {
        assert!(
            table.contains(&format!(
                "  {name}: refused: `{name}` names a topic Kafka does not allow"
            )),
            "{table}"
        );
    }
    // Without the broker's config, every deletion rests on assumed values: refused as a whole,
    // in a complete document naming the log dir as text.
    let o = run(&[
        os("--format"),
        os("json"),
        os("delete"),
        dir,
        os("--at"),
        os(LATER),
    ]);
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let (doc, _) = json("delete without configs", &o);
    let refused = doc["refused_assumed_configs"].as_array().unwrap();
    assert!(!refused.is_empty(), "{doc:#}");
    assert!(
        refused.iter().all(|r| r["log_dir"] == dir_text.as_str()),
        "{refused:#?}"
    );
    let o = run(&[
        os("--format"),
        os("json"),
        os("delete"),
        dir,
        os("--at"),
        os(LATER),
        os("--server-properties"),
        props.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let (doc, _) = json("delete", &o);
    let parts = doc["log_dirs"][0]["partitions"].as_array().unwrap();
    let outcome = |name: &str| {
        parts
            .iter()
            .find(|p| p["partition"] == name)
            .unwrap_or_else(|| panic!("{name} not in {parts:#?}"))["outcome"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(outcome("orders-0").starts_with("deletes 7 segment(s)"));
    assert!(outcome(OSC).starts_with("refused: "));
    assert!(outcome(NOT_UTF8_SHOWN).starts_with("refused: "));
    same(&before, &tree(&s.log_dir), "dry runs change nothing");

    // Applied and undone through a journal whose paths are not UTF-8; the renamed dirs are
    // never touched.
    let o = run(&[
        os("delete"),
        dir,
        os("--at"),
        os(LATER),
        os("--server-properties"),
        props.as_os_str(),
        os("--execute"),
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let table = assert_terminal_safe("delete --execute", &o.stdout);
    assert!(
        table.contains(&format!(
            "journal: {}",
            dir_table.trim_end_matches("/logs-0")
        )),
        "{table}"
    );
    let after = tree(&s.log_dir);
    for name in [
        OSC.to_string(),
        String::from_utf8_lossy(NOT_UTF8).into_owned(),
    ] {
        let part = |t: &std::collections::BTreeMap<String, Vec<u8>>| -> Vec<(String, Vec<u8>)> {
            t.iter()
                .filter(|(k, _)| k.starts_with(&name))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        };
        assert!(!part(&before).is_empty(), "{name}");
        assert_eq!(part(&before), part(&after), "{name} was changed");
    }
    assert!(
        !after
            .keys()
            .any(|k| k == "orders-0/00000000000000000000.log"),
        "orders-0 was not deleted"
    );
    let o = run(&[os("undo"), dir]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = assert_terminal_safe("undo", &o.stdout);
    assert!(
        text.starts_with(&format!("undone: delete run on {dir_table}: ")),
        "{text}"
    );
    same(&before, &tree(&s.log_dir), "undo restores every file");

    // Nothing pending: resume refuses, and its message (naming the dir) is escaped.
    let o = run(&[os("resume"), dir]);
    assert_eq!(o.status.code(), Some(3));
    let err = assert_terminal_safe("resume stderr", &o.stderr);
    assert!(err.contains(&dir_table), "{err}");
}

#[test]
fn a_renamed_dir_named_on_the_command_line_is_refused_with_its_name_escaped() {
    let s = scene();
    for name in [OsString::from(OSC), OsString::from_vec(NOT_UTF8.to_vec())] {
        let target = s.log_dir.join(&name);
        for command in ["roll", "rebuild-index"] {
            let o = run(&[os(command), target.as_os_str()]);
            assert_eq!(o.status.code(), Some(3), "{command} {name:?}");
            assert!(o.stdout.is_empty());
            let err = assert_terminal_safe(command, &o.stderr);
            assert!(err.contains("names a topic Kafka does not allow"), "{err}");
            assert!(
                err.contains(OSC_SHOWN) || err.contains(NOT_UTF8_SHOWN),
                "{err}"
            );
        }
    }
}

/// `completions` generates into memory and writes once: a reader that is gone ends the run as
/// every other command's closed pipe does (it panicked inside the generator, 49 runs of 50).
#[test]
fn completions_on_a_closed_pipe_end_quietly() {
    for shell in ["bash", "zsh", "fish"] {
        let mut panics = 0;
        for _ in 0..50 {
            let mut child = Command::new(env!("CARGO_BIN_EXE_logclean"))
                .args(["completions", shell])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            drop(child.stdout.take());
            let o = child.wait_with_output().unwrap();
            if o.status.code() != Some(0) || !o.stderr.is_empty() {
                panics += 1;
                eprintln!(
                    "{shell}: {:?} {}",
                    o.status,
                    String::from_utf8_lossy(&o.stderr)
                );
            }
        }
        assert_eq!(panics, 0, "{shell}");
    }
    let o = Command::new(env!("CARGO_BIN_EXE_logclean"))
        .args(["completions", "bash"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8(o.stdout).unwrap().contains("logclean"));
}
