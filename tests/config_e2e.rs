//! `logclean config` end to end on every fixture: reading the stopped broker's files (the KRaft
//! metadata log on disk plus `server.properties`), every topic config's value and source equal
//! what the running broker's `describeConfigs` reported (`manifest.json`), key by key.
//! `LOGCLEAN_FIXTURES_DIR` points it at freshly made fixtures (`conformance/run`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;
use support::fixtures_root;

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

#[test]
fn effective_topic_configs_equal_the_brokers_describe_configs() {
    let mut scenarios: Vec<PathBuf> = std::fs::read_dir(fixtures_root())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("manifest.json").is_file())
        // Three-node fixtures (issue 21) keep a server.properties per node: tests/cluster.rs.
        .filter(|p| !p.join("node-1").is_dir())
        .collect();
    scenarios.sort();
    assert!(scenarios.len() >= 10);
    let mut compared = 0;
    for dir in scenarios {
        let m: Value =
            serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
        // ZooKeeper-mode fixtures hold no metadata log: their configs are in ZooKeeper (and the
        // describe file, checked by tests/config.rs). KRaft 3.9.1 fixtures are compared here:
        // logclean detects 3.9 from metadata.version and resolves 3.9.1's keys and defaults.
        if m["mode"] == "zookeeper" {
            continue;
        }
        let mut cmd = support::logclean_capped(support::MEMORY_CAP_BYTES, false);
        cmd.args([
            "--format",
            "json",
            "config",
            "--all-keys",
            "--server-properties",
        ]);
        cmd.arg(dir.join("server.properties"));
        for d in m["log_dirs"].as_array().unwrap() {
            cmd.arg(dir.join(d.as_str().unwrap()));
        }
        let out = cmd.output().unwrap();
        assert!(
            matches!(out.status.code(), Some(0)),
            "{}: exit {:?}: {}",
            dir.display(),
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(
            doc["metadata"]["dir"].is_string(),
            "{}: no metadata log found",
            dir.display()
        );
        for topic in m["topics"].as_array().unwrap() {
            let name = topic["name"].as_str().unwrap();
            let ours = doc["topics"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["topic"] == name)
                .unwrap_or_else(|| panic!("{}: topic {name} missing from `config`", dir.display()));
            assert_eq!(
                ours["topic_id"],
                topic["topic_id"],
                "{}: {name} topic id",
                dir.display()
            );
            for (key, expected) in topic["configs"].as_object().unwrap() {
                let got = &ours["configs"][key];
                assert_eq!(
                    got["value"],
                    expected["value"],
                    "{}: {name} {key}",
                    dir.display()
                );
                assert_eq!(
                    got["reported_source"],
                    expected["source"],
                    "{}: {name} {key} source",
                    dir.display()
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 500, "only {compared} values compared");
}

fn kraft_fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/kraft-metadata")
}

fn run_config(args: &[&str]) -> (i32, Value) {
    let out = support::logclean_capped(support::MEMORY_CAP_BYTES, false)
        .args(["--format", "json", "config"])
        .args(args)
        .output()
        .unwrap();
    let code = out.status.code().unwrap();
    assert_ne!(code, 101, "panic: {}", String::from_utf8_lossy(&out.stderr));
    let doc = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (code, doc)
}

fn topic<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["topics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["topic"] == name)
        .unwrap()
}

/// `config` with `args`: exit code, stdout, stderr.
fn run_config_raw(args: &[&str]) -> (i32, String, String) {
    let out = support::logclean_capped(support::MEMORY_CAP_BYTES, false)
        .args(["--format", "json", "config"])
        .args(args)
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        out.status.code().unwrap(),
        text(&out.stdout),
        text(&out.stderr),
    )
}

/// A `--config` value Kafka would refuse is a usage error, not a value skipped for the next
/// source (the broker's own invalid values are: `config.invalid_value`).
#[test]
fn invalid_override_is_refused_naming_key_and_value() {
    let dir = kraft_fixture();
    let (code, out, err) = run_config_raw(&[
        dir.join("logs-0").to_str().unwrap(),
        "--server-properties",
        dir.join("server.properties").to_str().unwrap(),
        "--config",
        "kt-alpha:retention.ms=soon",
        "--topic",
        "kt-alpha",
    ]);
    assert_eq!(code, 3, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("kt-alpha:retention.ms=soon") && err.contains("`soon` is not a long"),
        "{err}"
    );
}

#[test]
fn valid_override_wins() {
    let dir = kraft_fixture();
    let (code, doc) = run_config(&[
        dir.join("logs-0").to_str().unwrap(),
        "--config",
        "*:segment.ms=1000",
        "--diff",
    ]);
    assert_eq!(code, 0);
    for t in doc["topics"].as_array().unwrap() {
        assert_eq!(
            t["configs"]["segment.ms"]["source"], "OVERRIDE",
            "{}",
            t["topic"]
        );
    }
}

#[test]
fn broken_latest_snapshot_is_a_finding_and_an_older_one_is_used() {
    let tmp = tempfile::tempdir().unwrap();
    let src = kraft_fixture().join("logs-0");
    let copy = tmp.path().join("logs-0");
    let status = Command::new("cp")
        .arg("-r")
        .arg(&src)
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    let meta = copy.join("__cluster_metadata-0");
    let mut snaps: Vec<PathBuf> = std::fs::read_dir(&meta)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "checkpoint"))
        .collect();
    snaps.sort();
    let latest = snaps.last().unwrap();
    let bytes = std::fs::read(latest).unwrap();
    std::fs::set_permissions(latest, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    std::fs::write(latest, &bytes[..bytes.len() / 2]).unwrap();
    let (code, doc) = run_config(&[copy.to_str().unwrap(), "--topic", "kt-beta"]);
    assert_eq!(code, 1, "{doc:#}");
    assert!(doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["code"] == "metadata.problem"));
    assert_ne!(
        doc["metadata"]["snapshot"].as_str().unwrap(),
        latest.to_str().unwrap()
    );
    // Replaying the older snapshot plus the log still gives the topic's overrides.
    assert_eq!(
        topic(&doc, "kt-beta")["configs"]["cleanup.policy"]["value"],
        "compact,delete"
    );
}

#[test]
fn describe_file_is_a_source() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("describe.txt");
    std::fs::write(
        &file,
        "All configs for topic kt-beta are:\n  retention.ms=5000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=5000, DEFAULT_CONFIG:log.retention.hours=168}\n",
    )
    .unwrap();
    let dir = kraft_fixture();
    let (code, doc) = run_config(&[
        dir.join("logs-0").to_str().unwrap(),
        "--config-file",
        file.to_str().unwrap(),
        "--topic",
        "kt-beta",
    ]);
    assert_eq!(code, 0, "{doc:#}");
    let v = &topic(&doc, "kt-beta")["configs"]["retention.ms"];
    assert_eq!(v["value"], "5000");
    assert_eq!(v["source"], "DESCRIBE_FILE");
}

#[test]
fn config_needs_log_dirs() {
    let (code, _) = run_config(&[]);
    assert_eq!(code, 3);
}

#[test]
fn unreadable_meta_and_partition_metadata_are_io_findings() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("logs-0");
    let status = Command::new("cp")
        .arg("-r")
        .arg(kraft_fixture().join("logs-0"))
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    // Let an unprivileged user walk the copy, then take read access away from two files.
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let hidden = [
        copy.join("meta.properties"),
        copy.join("kt-alpha-0/partition.metadata"),
    ];
    for f in &hidden {
        std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o000)).unwrap();
    }
    // Root reads any file, so as root run logclean as `nobody`.
    let uid = Command::new("id").arg("-u").output().unwrap();
    let mut cmd = if String::from_utf8_lossy(&uid.stdout).trim() == "0" {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"]);
        c.arg(env!("CARGO_BIN_EXE_logclean"));
        c
    } else {
        support::logclean_capped(support::MEMORY_CAP_BYTES, false)
    };
    let out = cmd
        .args(["--format", "json", "config", "--topic", "kt-alpha"])
        .arg(&copy)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let files: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "file.unreadable" && f["class"] == "io")
        .map(|f| f["location"]["file"].as_str().unwrap())
        .collect();
    let want: Vec<String> = hidden.iter().map(|p| p.display().to_string()).collect();
    assert_eq!(files.len(), 2, "{:#}", doc["findings"]);
    for w in &want {
        assert!(files.contains(&w.as_str()), "{w} not in {files:?}");
    }
    // The rest is still read: the other two dirs of the topic are found by id.
    assert_eq!(topic(&doc, "kt-alpha")["dirs"].as_array().unwrap().len(), 2);
}

/// A copy of a fixture's log dir under `tmp`, writable.
fn copy_log_dir(tmp: &std::path::Path, fixture: &str, name: &str) -> PathBuf {
    let copy = tmp.join(name);
    let status = Command::new("cp")
        .arg("-r")
        .arg(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures")
                .join(fixture)
                .join("logs-0"),
        )
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    let status = Command::new("chmod")
        .arg("-R")
        .arg("u+w")
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    copy
}

fn codes(doc: &Value) -> Vec<&str> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect()
}

fn finding<'a>(doc: &'a Value, code: &str) -> &'a Value {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == code)
        .unwrap_or_else(|| panic!("no {code} in {:#}", doc["findings"]))
}

/// A key Kafka 4.0 removed is not a topic config of a 4.x broker: `--config` refuses it (as
/// Kafka's `LogConfig.validateNames` does), naming what replaces it.
#[test]
fn removed_key_in_config_is_refused_with_its_replacement() {
    let dir = kraft_fixture();
    let (code, out, err) = run_config_raw(&[
        dir.join("logs-0").to_str().unwrap(),
        "--config",
        "kt-alpha:message.timestamp.difference.max.ms=1000",
        "--topic",
        "kt-alpha",
    ]);
    assert_eq!(code, 3, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("`message.timestamp.difference.max.ms` was removed in Kafka 4.0")
            && err.contains("message.timestamp.before.max.ms and message.timestamp.after.max.ms"),
        "{err}"
    );
}

/// The fixture re-labelled as a 3.x ZooKeeper-mode dir: v0 meta.properties with broker.id and
/// cluster.id (no node.id, no directory.id), no partition.metadata, no metadata log.
fn zookeeper_copy(tmp: &std::path::Path) -> PathBuf {
    let copy = copy_log_dir(tmp, "basic-delete", "zk-logs");
    std::fs::remove_dir_all(copy.join("__cluster_metadata-0")).unwrap();
    for e in std::fs::read_dir(&copy).unwrap() {
        let pm = e.unwrap().path().join("partition.metadata");
        if pm.exists() {
            std::fs::remove_file(pm).unwrap();
        }
    }
    std::fs::write(
        copy.join("meta.properties"),
        "#\n#Tue Mar 05 10:00:00 UTC 2024\nversion=0\nbroker.id=1\ncluster.id=TG9nQ2xlYW5GaXh0dXJlcw\n",
    )
    .unwrap();
    copy
}

#[test]
fn zookeeper_mode_dir_says_where_overrides_live() {
    let tmp = tempfile::tempdir().unwrap();
    let copy = zookeeper_copy(tmp.path());
    let (code, doc) = run_config(&[copy.to_str().unwrap()]);
    assert_eq!(codes(&doc), vec!["config.zookeeper_mode"], "{doc:#}");
    assert_eq!(code, 0);
    let f = finding(&doc, "config.zookeeper_mode");
    assert_eq!(f["severity"], "info");
    assert!(f["message"]
        .as_str()
        .unwrap()
        .contains("/config/topics/<topic>"));
    assert!(f["fix"].as_str().unwrap().contains("--config-file"));
    assert_eq!(doc["mode"], "zookeeper");
    assert!(doc["kafka_versions"].as_str().unwrap().contains("3.9"));
    let d = &doc["log_dirs"][0];
    assert_eq!(d["mode"], "zookeeper");
    assert_eq!(d["meta_properties_version"], 0);
    assert_eq!(d["node_id"], 1);
    assert_eq!(d["cluster_id"], "TG9nQ2xlYW5GaXh0dXJlcw");
    assert_eq!(doc["broker_id"], 1);
    // Topics come from the dir names.
    assert_eq!(topic(&doc, "orders")["dirs"].as_array().unwrap().len(), 2);
    assert_eq!(topic(&doc, "sized")["topic_id"], Value::Null);
    // With a describe file, its overrides apply.
    let file = tmp.path().join("describe.txt");
    std::fs::write(
        &file,
        "All configs for topic orders are:\n  retention.ms=5000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=5000, DEFAULT_CONFIG:log.retention.hours=168}\n  message.format.version=2.8-IV1 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:message.format.version=2.8-IV1, DEFAULT_CONFIG:log.message.format.version=3.0-IV1}\n",
    )
    .unwrap();
    let (code, doc) = run_config(&[
        copy.to_str().unwrap(),
        "--config-file",
        file.to_str().unwrap(),
    ]);
    assert_eq!(
        topic(&doc, "orders")["configs"]["retention.ms"]["value"],
        "5000"
    );
    // ZooKeeper mode tells a 3.x broker, which still has the key 4.0 removed: a topic config
    // with its override, not a removed key (issue 22).
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(doc["assumptions"]["kafka_version"]["applied"], "3.9");
    assert!(!codes(&doc).contains(&"config.removed_key"), "{doc:#}");
    let (_, all) = run_config(&[
        copy.to_str().unwrap(),
        "--config-file",
        file.to_str().unwrap(),
        "--all-keys",
    ]);
    assert_eq!(
        topic(&all, "orders")["configs"]["message.format.version"]["value"],
        "2.8-IV1"
    );
    // Under 4.x's rules it is a removed key: info, not a warning, in ZooKeeper mode.
    let (code, doc4) = run_config(&[
        copy.to_str().unwrap(),
        "--config-file",
        file.to_str().unwrap(),
        "--kafka-version",
        "4.4",
    ]);
    let f = finding(&doc4, "config.removed_key");
    assert_eq!(f["severity"], "info");
    assert_eq!(code, 0, "{doc4:#}");
    // The table opens with the release applied, what it assumed (topic overrides live in
    // ZooKeeper), then the mode.
    let out = support::logclean_capped(support::MEMORY_CAP_BYTES, false)
        .args(["--color", "never", "config"])
        .arg(&copy)
        .output()
        .unwrap();
    let full = String::from_utf8_lossy(&out.stdout);
    assert!(full.starts_with("RULES: Kafka 3.9 rules"), "{full}");
    let (_, text) = full.split_once("\n\n").unwrap();
    assert!(text.starts_with("ASSUMED CONFIGS: "), "{text}");
    assert!(
        text.contains("  topic overrides not read (ZooKeeper mode: they live in ZooKeeper)\n"),
        "{text}"
    );
    let (_, after) = text.split_once("\n\n").unwrap();
    assert!(
        after.starts_with("mode zookeeper: Kafka up to 3.9 (ZooKeeper mode was removed in 4.0)"),
        "{text}"
    );
}

#[test]
fn dirs_of_different_clusters_are_said_once() {
    let tmp = tempfile::tempdir().unwrap();
    let a = copy_log_dir(tmp.path(), "kraft-metadata", "a");
    let b = copy_log_dir(tmp.path(), "compacted", "b");
    let meta = std::fs::read_to_string(b.join("meta.properties")).unwrap();
    std::fs::write(
        b.join("meta.properties"),
        meta.replace("TG9nQ2xlYW5GaXh0dXJlcw", "T3RoZXJDbHVzdGVyMDAwMA"),
    )
    .unwrap();
    let (code, doc) = run_config(&[a.to_str().unwrap(), b.to_str().unwrap()]);
    let n = codes(&doc)
        .iter()
        .filter(|c| **c == "dir.cluster_mismatch")
        .count();
    assert_eq!(n, 1, "{doc:#}");
    // The other cluster's topic ids are not this metadata log's to know.
    assert_eq!(codes(&doc), vec!["dir.cluster_mismatch"], "{doc:#}");
    assert_eq!(code, 1);
    let f = finding(&doc, "dir.cluster_mismatch");
    assert_eq!(f["severity"], "error");
    let ev: Vec<(String, String)> = f["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["value"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let pair = |name: &str, value: String| (name.to_string(), value);
    assert_eq!(
        ev,
        vec![
            pair("log_dir", a.display().to_string()),
            pair("cluster_id", "TG9nQ2xlYW5GaXh0dXJlcw".into()),
            pair("log_dir", b.display().to_string()),
            pair("cluster_id", "T3RoZXJDbHVzdGVyMDAwMA".into()),
        ]
    );
    assert_eq!(doc["log_dirs"][1]["cluster_id"], "T3RoZXJDbHVzdGVyMDAwMA");
}

#[test]
fn partitions_of_this_broker_without_a_dir_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let copy = copy_log_dir(tmp.path(), "kraft-metadata", "logs-0");
    let (_, doc) = run_config(&[copy.to_str().unwrap()]);
    assert!(
        !codes(&doc).contains(&"partition.missing_replica"),
        "{doc:#}"
    );
    std::fs::remove_dir_all(copy.join("kt-alpha-1")).unwrap();
    let (code, doc) = run_config(&[copy.to_str().unwrap()]);
    assert_eq!(codes(&doc), vec!["partition.missing_replica"], "{doc:#}");
    assert_eq!(code, 1);
    let msg = finding(&doc, "partition.missing_replica")["message"]
        .as_str()
        .unwrap();
    assert!(
        msg.contains("`kt-alpha`")
            && msg.contains("3 of its partitions to broker 1")
            && msg.ends_with(": 1"),
        "{msg}"
    );
}

#[test]
fn damaged_meta_properties_is_a_corruption_finding() {
    let tmp = tempfile::tempdir().unwrap();
    let copy = copy_log_dir(tmp.path(), "kraft-metadata", "logs-0");
    let real = std::fs::read(copy.join("meta.properties")).unwrap();
    for (what, bytes, says) in [
        ("empty", Vec::new(), "empty"),
        ("NUL-filled", vec![0u8; real.len()], "NUL byte"),
        (
            "garbage",
            b"<html>not found</html>\n".to_vec(),
            "not a meta.properties file",
        ),
    ] {
        std::fs::write(copy.join("meta.properties"), &bytes).unwrap();
        let (code, doc) = run_config(&[copy.to_str().unwrap(), "--topic", "kt-beta"]);
        let f = finding(&doc, "file.corrupt");
        assert_eq!(f["class"], "corruption", "{what}");
        assert!(
            f["message"].as_str().unwrap().contains(says),
            "{what}: {f:#}"
        );
        assert!(
            f["location"]["file"]
                .as_str()
                .unwrap()
                .ends_with("meta.properties"),
            "{what}"
        );
        assert_eq!(code, 2, "{what}: {doc:#}");
        // The rest is still read (the metadata log says KRaft).
        assert_eq!(doc["mode"], "kraft", "{what}");
        assert_eq!(doc["log_dirs"][0]["meta_properties_version"], Value::Null);
    }
}
