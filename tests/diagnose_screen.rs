//! The first screen of `diagnose` (issue 26): the headline first, findings as diagnostics most
//! severe first, every fix whole (wrapped only between arguments, joined back it is the JSON
//! fix), and exit codes that mean action (a copy of a running broker's dir whose findings all
//! need no action exits 0).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;
use support::scratch::{code, copy_dir, fixture, text};

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// Every fixture scenario: its dir, its log dirs, `--now` (its capture instant).
fn scenarios() -> Vec<(String, Vec<PathBuf>, String)> {
    let mut out = Vec::new();
    for e in fs::read_dir(support::fixtures_root()).unwrap() {
        let dir = e.unwrap().path();
        let Ok(m) = fs::read_to_string(dir.join("manifest.json")) else {
            continue;
        };
        let m: Value = serde_json::from_str(&m).unwrap();
        let dirs = (support::manifest_log_dirs(&m).iter())
            .map(|d| dir.join(d))
            .collect();
        let now = format!("{}Z", &m["captured_at"].as_str().unwrap()[..19]);
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        out.push((name, dirs, now));
    }
    out.sort();
    out
}

fn diagnose(dirs: &[PathBuf], now: &str, format: &str, columns: usize, extra: &[&str]) -> Output {
    let props = dirs[0].parent().unwrap().join("server.properties");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_logclean"));
    cmd.env("COLUMNS", columns.to_string())
        .args([
            "diagnose",
            "--no-progress",
            "--color",
            "never",
            "--format",
            format,
        ])
        .args(["--now", now, "--disk-space", "1000000000,2000000000"])
        .args(extra);
    if props.exists() {
        cmd.arg("--server-properties").arg(props);
    }
    cmd.args(dirs).output().unwrap()
}

/// The findings part of a table: from the `findings:` line on (the assumptions block above it
/// has a `fix:` of its own).
fn findings_part(table: &str) -> &str {
    let part = table.find("\nfindings:").map_or(table, |i| &table[i..]);
    // The assumptions block follows the findings (its `fix:` is not a finding's).
    let end = ["\nRULES: ", "\nASSUMED CONFIGS: "]
        .iter()
        .filter_map(|m| part.find(m))
        .min()
        .unwrap_or(part.len());
    &part[..end]
}

/// The diagnostic headers (`warning[code] place: …`) of a table, with their line numbers.
fn headers(table: &str) -> Vec<(usize, &'static str)> {
    table
        .lines()
        .enumerate()
        .filter_map(|(i, l)| {
            ["error", "warning", "info"]
                .into_iter()
                .find(|s| l.starts_with(&format!("{s}[")))
                .map(|s| (i, s))
        })
        .collect()
}

/// Each `fix:` of a table joined across its wrapped lines (single spaces, each shell
/// continuation ` \` dropped), with the line it ends on.
fn fixes(table: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = table.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if let Some(rest) = lines[i].strip_prefix("  fix:") {
            let mut parts = vec![rest.trim()];
            while i + 1 < lines.len() && lines[i + 1].starts_with("    ") {
                i += 1;
                parts.push(lines[i].trim());
            }
            let parts: Vec<&str> = parts
                .into_iter()
                .map(|p| p.strip_suffix(" \\").unwrap_or(p))
                .filter(|p| !p.is_empty())
                .collect();
            out.push((parts.join(" "), i));
        }
        i += 1;
    }
    out
}

fn rank(s: &str) -> u8 {
    match s {
        "error" => 2,
        "warning" => 1,
        _ => 0,
    }
}

#[test]
fn every_fix_of_every_fixture_is_whole_and_findings_come_most_severe_first() {
    let mut checked = 0;
    for (name, dirs, now) in scenarios() {
        let json = diagnose(&dirs, &now, "json", 100, &[]);
        let doc: Value =
            serde_json::from_slice(&json.stdout).unwrap_or_else(|e| panic!("{name}: {e}"));
        let json_fixes: Vec<&str> = doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["fix"].as_str().unwrap())
            .collect();
        for columns in [100, 60] {
            let out = diagnose(&dirs, &now, "table", columns, &[]);
            let table = String::from_utf8(out.stdout).unwrap();
            let heads = headers(findings_part(&table));
            let table_fixes = fixes(findings_part(&table));
            assert_eq!(
                heads.len(),
                table_fixes.len(),
                "{name}: one fix per diagnostic\n{table}"
            );
            for (fix, _) in &table_fixes {
                assert!(
                    json_fixes.contains(&fix.as_str()),
                    "{name} at {columns} columns: the table's fix\n  {fix}\nis no JSON fix of\n  {json_fixes:#?}\n{table}"
                );
                checked += 1;
            }
            assert!(!table.contains('…') || !table_fixes.iter().any(|(f, _)| f.contains('…')));
            let ranks: Vec<u8> = heads.iter().map(|(_, s)| rank(s)).collect();
            assert!(
                ranks.windows(2).all(|w| w[0] >= w[1]),
                "{name}: not most severe first: {heads:?}"
            );
        }
    }
    assert!(checked > 50, "only {checked} fixes checked");
}

#[test]
fn the_first_screen_holds_the_headline_and_the_most_severe_finding_with_its_whole_fix() {
    for name in [
        "idle-active-segment",
        "future-timestamps",
        "consumer-groups",
        "unclean-shutdown",
    ] {
        let (_, dirs, now) = scenarios().into_iter().find(|s| s.0 == name).unwrap();
        let out = diagnose(&dirs, &now, "table", 100, &[]);
        let table = String::from_utf8(out.stdout).unwrap();
        let screen: Vec<&str> = table.lines().take(50).collect();
        let screen_text = screen.join("\n");
        for d in &dirs {
            assert!(
                screen_text.contains(&*d.canonicalize().unwrap().to_string_lossy()),
                "{name}"
            );
        }
        for part in [
            "logs ",
            "next retention pass frees",
            "assumes:",
            "findings:",
        ] {
            assert!(
                screen_text.contains(part),
                "{name}: no `{part}` on the first screen\n{screen_text}"
            );
        }
        assert!(
            !screen_text.contains("never"),
            "{name}: time to full is never `never`"
        );
        let json: Value =
            serde_json::from_slice(&diagnose(&dirs, &now, "json", 100, &[]).stdout).unwrap();
        let worst = json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| rank(f["severity"].as_str().unwrap()))
            .max()
            .unwrap();
        let heads = headers(&table);
        assert_eq!(
            rank(heads[0].1),
            worst,
            "{name}: the first diagnostic is the most severe"
        );
        let (_, fix_ends) = fixes(&table[table.find("\nfindings:").unwrap()..])[0];
        let fix_ends = fix_ends
            + table[..table.find("\nfindings:").unwrap() + 1]
                .lines()
                .count();
        assert!(
            fix_ends < 50,
            "{name}: the first fix ends on line {}\n{table}",
            fix_ends + 1
        );
        assert!(
            json["headline"]["log_dirs"].as_array().unwrap().len() == dirs.len(),
            "{name}"
        );
    }
}

/// Reshape a copy of `basic-delete` as a running broker leaves it when copied: no clean-shutdown
/// marker, a `.lock` file, and the active segments' indexes missing (the broker preallocates
/// them; copies often leave them out). Every finding then needs no action.
fn running_broker_copy(root: &Path) -> PathBuf {
    copy_dir(&fixture("basic-delete"), root);
    let logs = root.join("logs-0");
    fs::remove_file(logs.join(".kafka_cleanshutdown")).unwrap();
    fs::write(logs.join(".lock"), b"").unwrap();
    for p in fs::read_dir(&logs).unwrap() {
        let p = p.unwrap().path();
        if !p.is_dir() {
            continue;
        }
        let mut logs_in: Vec<PathBuf> = fs::read_dir(&p)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|f| f.extension().is_some_and(|x| x == "log"))
            .collect();
        logs_in.sort();
        if let Some(active) = logs_in.last() {
            for ext in ["index", "timeindex"] {
                let _ = fs::remove_file(active.with_extension(ext));
            }
        }
    }
    logs
}

#[test]
fn a_running_broker_copy_whose_findings_need_no_action_exits_0() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = running_broker_copy(tmp.path());
    let now = "2026-11-30T13:33:00Z";
    let json = diagnose(std::slice::from_ref(&logs), now, "json", 100, &[]);
    let doc: Value = serde_json::from_slice(&json.stdout).unwrap();
    let findings = doc["findings"].as_array().unwrap();
    let codes: Vec<&str> = findings
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"index.missing"), "{codes:?}");
    assert!(codes.contains(&"timeindex.missing"), "{codes:?}");
    assert!(
        findings.iter().all(|f| f["severity"] == "info"),
        "{findings:#?}"
    );
    assert_eq!(code(&json), Some(0), "{}", text(&json));
    let table = diagnose(std::slice::from_ref(&logs), now, "table", 100, &[]);
    assert_eq!(code(&table), Some(0), "{}", text(&table));
    // --fail-on keeps every finding for CI.
    let ci = diagnose(
        std::slice::from_ref(&logs),
        now,
        "json",
        100,
        &["--fail-on", "info"],
    );
    assert_eq!(code(&ci), Some(1), "{}", text(&ci));
}

#[test]
fn segments_kept_behind_a_future_stamp_get_the_delete_records_command_that_frees_them() {
    let (_, dirs, now) = scenarios()
        .into_iter()
        .find(|s| s.0 == "future-timestamps")
        .unwrap();
    let json: Value =
        serde_json::from_slice(&diagnose(&dirs, &now, "json", 100, &[]).stdout).unwrap();
    let fix_of = |code: &str| -> String {
        json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["code"] == code)
            .unwrap_or_else(|| panic!("no {code}"))["fix"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // The offset past the future-stamped segment, as the partition finding computes it.
    let command = |fix: &str| fix[fix.find("`echo").unwrap()..].to_string();
    let reference = command(&fix_of("partition.future_timestamps"));
    assert!(reference.contains("kafka-delete-records.sh --bootstrap-server HOST:PORT"));
    for code in ["plan.retains_expired", "plan.future_timestamp_blocks"] {
        let fix = fix_of(code);
        assert_eq!(command(&fix), reference, "{code}: {fix}");
    }
}
