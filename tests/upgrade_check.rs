//! `logclean upgrade-check --to VERSION` on the Kafka 3.9.1 fixtures (ZooKeeper and KRaft mode)
//! and a 4.4.0 one, and on a reshaped copy of a 3.9.1 describe file (issue 22); and the release
//! every command applies, detected from the files or given with `--kafka-version`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;

use std::path::{Path, PathBuf};

use serde_json::Value;

fn manifest(dir: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap()
}

/// `logclean --format json ARGS` on fixture `dir` (its log dirs, server.properties, describe
/// file when it has one, the capture instant): exit code and document.
fn run_on(dir: &Path, configs: Option<&Path>, args: &[&str]) -> (i32, Value) {
    let m = manifest(dir);
    let mut cmd = support::logclean_capped(support::MEMORY_CAP_BYTES, false);
    cmd.args(["--format", "json"]).args(args);
    // plan sets its instant with --at; config evaluates no time-based rule.
    match args[0] {
        "config" => {}
        "plan" => {
            cmd.arg("--at").arg(m["captured_at"].as_str().unwrap());
        }
        _ => {
            cmd.arg("--now").arg(m["captured_at"].as_str().unwrap());
        }
    }
    cmd.arg("--server-properties")
        .arg(dir.join("server.properties"));
    let described = dir.join("topic-configs.txt");
    if let Some(f) = configs.or(described.is_file().then_some(described.as_path())) {
        cmd.arg("--config-file").arg(f);
    }
    for d in m["log_dirs"].as_array().unwrap() {
        cmd.arg(dir.join(d.as_str().unwrap()));
    }
    let out = cmd.output().unwrap();
    let code = out.status.code().unwrap();
    assert_ne!(code, 101, "panic: {}", String::from_utf8_lossy(&out.stderr));
    let doc = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (code, doc)
}

fn codes(doc: &Value) -> Vec<&str> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect()
}

fn fixture(name: &str) -> PathBuf {
    support::fixtures_root().join(name)
}

#[test]
fn zookeeper_and_kraft_3_9_1_fixtures_to_4_4() {
    let (code, doc) = run_on(
        &fixture("zk391-basic-delete"),
        None,
        &["upgrade-check", "--to", "4.4"],
    );
    assert_eq!(code, 1, "{doc:#}");
    let from = &doc["from"];
    assert_eq!(
        (&from["applied"], &from["basis"]),
        (&"3.9".into(), &"detected".into())
    );
    assert_eq!(from["detected"], "up to 3.9");
    assert!(
        from["assumption"].is_string(),
        "ZooKeeper mode bounds 3.x only from above"
    );
    assert_eq!(doc["to"], "4.4");
    let ids: Vec<&str> = (doc["release_changes"].as_array().unwrap().iter())
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"timestamp_after_max_default") && ids.contains(&"zookeeper_removed"));
    assert!(
        !ids.contains(&"remote_log_copy_disable"),
        "3.9 has it already"
    );
    let c = codes(&doc);
    assert_eq!(
        c.iter().filter(|c| **c == "upgrade.zookeeper_mode").count(),
        2,
        "{c:?}"
    );
    // Every topic takes message.timestamp.after.max.ms from the 3.x default.
    let defaults = (doc["findings"].as_array().unwrap().iter())
        .find(|f| f["code"] == "upgrade.default_changes")
        .unwrap();
    assert!(defaults["message"].as_str().unwrap().starts_with(
        "`message.timestamp.after.max.ms` default 9223372036854775807 → 3600000 for 3 topic(s)"
    ));
    assert_eq!(doc["plan_changes"].as_array().unwrap().len(), 0);
    assert_eq!(doc["summary"]["exit_code"], 1);

    let (code, doc) = run_on(
        &fixture("kraft391-basic-delete"),
        None,
        &["upgrade-check", "--to", "4.4"],
    );
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(doc["from"]["detected"], "3.9+");
    assert!(doc["from"]["evidence"][0]
        .as_str()
        .unwrap()
        .contains("metadata.version 3.9-IV0 (level 21)"));
    assert_eq!(codes(&doc), ["upgrade.default_changes"]);

    // Transactional data crossing 4.0: transactions v2 named (info).
    let (code, doc) = run_on(
        &fixture("kraft391-transactions"),
        None,
        &["upgrade-check", "--to", "4.4"],
    );
    assert_eq!(code, 0);
    assert!(
        codes(&doc).contains(&"upgrade.transaction_markers"),
        "{:?}",
        codes(&doc)
    );
}

#[test]
fn a_4_4_fixture_has_nothing_to_do_on_4_4() {
    let (code, doc) = run_on(
        &fixture("transactions"),
        None,
        &["upgrade-check", "--to", "4.4.0"],
    );
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(doc["from"]["applied"], "4.4");
    assert_eq!(doc["from"]["basis"], "detected");
    assert!(doc["from"]["assumption"].is_null());
    assert!(doc["release_changes"].as_array().unwrap().is_empty());
    assert!(codes(&doc).is_empty(), "{:?}", codes(&doc));
}

/// A reshaped copy of zk391-future-timestamps' describe file: the topic no longer sets
/// `message.timestamp.after.max.ms` (so it takes the default), sets `segment.bytes` below 1 MiB
/// and the removed `message.downconversion.enable`.
#[test]
fn future_records_removed_keys_and_rejected_values_need_action() {
    let dir = fixture("zk391-future-timestamps");
    let text = std::fs::read_to_string(dir.join("topic-configs.txt")).unwrap();
    let mut reshaped = Vec::new();
    for line in text.lines() {
        let key = line.trim_start().split('=').next().unwrap();
        match key {
            "message.timestamp.after.max.ms" => reshaped.push(
                "  message.timestamp.after.max.ms=9223372036854775807 sensitive=false synonyms={DEFAULT_CONFIG:log.message.timestamp.after.max.ms=9223372036854775807}".to_string(),
            ),
            "segment.bytes" => reshaped.push(
                "  segment.bytes=524288 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:segment.bytes=524288, DEFAULT_CONFIG:log.segment.bytes=1073741824}".to_string(),
            ),
            "message.downconversion.enable" => reshaped.push(
                "  message.downconversion.enable=false sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:message.downconversion.enable=false, DEFAULT_CONFIG:log.message.downconversion.enable=true}".to_string(),
            ),
            _ => reshaped.push(line.to_string()),
        }
    }
    assert_ne!(
        reshaped.join("\n"),
        text.trim_end(),
        "the describe file changed shape"
    );
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("topic-configs.txt");
    std::fs::write(&file, reshaped.join("\n") + "\n").unwrap();

    // On 3.9 itself the values are valid and the key exists: config says so.
    let (_, doc) = run_on(&dir, Some(&file), &["config", "--all-keys"]);
    let ft = (doc["topics"].as_array().unwrap().iter())
        .find(|t| t["topic"] == "ft")
        .unwrap();
    assert_eq!(ft["configs"]["segment.bytes"]["value"], "524288");
    assert_eq!(
        ft["configs"]["message.downconversion.enable"]["value"],
        "false"
    );

    let (code, doc) = run_on(&dir, Some(&file), &["upgrade-check", "--to", "4.4"]);
    assert_eq!(code, 1, "{doc:#}");
    let c = codes(&doc);
    for want in [
        "upgrade.future_timestamps_rejected",
        "upgrade.config_rejected",
        "upgrade.removed_config",
    ] {
        assert!(c.contains(&want), "{want} missing: {c:?}");
    }
    let future = (doc["findings"].as_array().unwrap().iter())
        .find(|f| f["code"] == "upgrade.future_timestamps_rejected")
        .unwrap();
    assert_eq!(future["location"]["topic"], "ft");
    // The base+365d record: a year ahead of the segment's last write.
    let ahead = (future["evidence"].as_array().unwrap().iter())
        .find(|e| e["name"] == "ahead_ms")
        .unwrap()["value"]
        .as_i64()
        .unwrap();
    assert!(ahead > 364 * 86_400_000, "{ahead}");
    // 4.0: the topic's 512 KiB segment.bytes is still valid (1 MiB minimum from 4.1).
    let (_, doc) = run_on(&dir, Some(&file), &["upgrade-check", "--to", "4.0"]);
    assert!(
        !codes(&doc).contains(&"upgrade.config_rejected"),
        "{:?}",
        codes(&doc)
    );
}

#[test]
fn every_rule_applying_command_names_its_release() {
    let zk = fixture("zk391-basic-delete");
    for cmd in [
        &["plan"][..],
        &["diagnose"],
        &["config"],
        &["groups"],
        &["transactions"],
    ] {
        let (_, doc) = run_on(&zk, None, cmd);
        let v = &doc["assumptions"]["kafka_version"];
        assert_eq!(v["applied"], "3.9", "{cmd:?}");
        assert_eq!(v["basis"], "detected", "{cmd:?}");
        let mut given = cmd.to_vec();
        given.extend(["--kafka-version", "3.6"]);
        let (_, doc) = run_on(&zk, None, &given);
        let v = &doc["assumptions"]["kafka_version"];
        assert_eq!(
            (&v["applied"], &v["basis"]),
            (&"3.6".into(), &"given".into()),
            "{cmd:?}"
        );
        assert!(v["assumption"].is_null());
    }
    // A release the files rule out is applied as given, and said.
    let (_, doc) = run_on(&zk, None, &["config", "--kafka-version", "4.4"]);
    let a = doc["assumptions"]["kafka_version"]["assumption"]
        .as_str()
        .unwrap();
    assert!(a.contains("contradicts the files (up to 3.9)"), "{a}");
    // 4.4 fixtures: detected exactly, no assumption.
    let (_, doc) = run_on(&fixture("basic-delete"), None, &["plan"]);
    let v = &doc["assumptions"]["kafka_version"];
    assert_eq!(
        (&v["applied"], &v["assumption"]),
        (&"4.4".into(), &Value::Null)
    );
}

#[test]
fn unknown_releases_are_usage_errors() {
    for args in [
        &["upgrade-check", "--to", "5.0", "x"][..],
        &[
            "upgrade-check",
            "--to",
            "4.4",
            "--kafka-version",
            "3.5",
            "x",
        ],
        &["plan", "--kafka-version", "three", "x"],
        &["upgrade-check", "x"],
    ] {
        let out = support::logclean_capped(support::MEMORY_CAP_BYTES, false)
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "{args:?}");
    }
}
