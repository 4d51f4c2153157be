//! Never act on a guess (issue 20): on a ZooKeeper-mode copy of a real broker's dir (no metadata
//! log, `meta.properties` v0) the internal topics keep the configs Kafka creates them with, every
//! read-only command says which values it assumed, and `delete` refuses (exit 3, nothing
//! changed) what rests on them until the broker's own configs are given: a describe file made
//! from the broker's own `describeConfigs` answer (the fixture's manifest) and its
//! `server.properties`, or `--accept-assumed-configs`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use support::scratch::{code, fixture, logclean, s, same, text, tree, Copy};

/// Past every segment of consumer-groups' events partitions, active ones included.
const ALL_GONE: &str = "2026-12-30T00:00:00Z";

fn json(args: &[&str]) -> (Option<i32>, Value) {
    let o = logclean(args, None);
    let doc = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    (code(&o), doc)
}

/// The broker's own `describeConfigs` answer for every topic of `fixture` (its manifest), as
/// `kafka-configs.sh --describe --all --entity-type topics` prints it.
fn describe_file(fixture_name: &str, dir: &Path) -> PathBuf {
    let manifest: Value =
        serde_json::from_slice(&fs::read(fixture(fixture_name).join("manifest.json")).unwrap())
            .unwrap();
    let mut text = String::new();
    for t in manifest["topics"].as_array().unwrap() {
        text.push_str(&format!(
            "All configs for topic {} are:\n",
            t["name"].as_str().unwrap()
        ));
        for (key, c) in t["configs"].as_object().unwrap() {
            let (value, source) = (c["value"].as_str().unwrap(), c["source"].as_str().unwrap());
            text.push_str(&format!(
                "  {key}={value} sensitive=false synonyms={{{source}:{key}={value}}}\n"
            ));
        }
    }
    let path = dir.join("describe.txt");
    fs::write(&path, text).unwrap();
    path
}

fn partitions_of<'a>(plan: &'a Value, topic: &str) -> Vec<&'a Value> {
    (plan["partitions"].as_array().unwrap().iter())
        .filter(|p| p["topic"] == topic)
        .collect()
}

fn deleted(p: &Value) -> usize {
    (p["segments"].as_array().unwrap().iter())
        .filter(|g| g["verdict"] == "delete")
        .count()
}

fn assumed_topics(doc: &Value) -> Vec<&str> {
    (doc["assumptions"]["topics"].as_array().unwrap().iter())
        .map(|t| t["topic"].as_str().unwrap())
        .collect()
}

fn refused(doc: &Value) -> Vec<&str> {
    (doc["refused_assumed_configs"].as_array().unwrap().iter())
        .map(|r| r["dir"].as_str().unwrap())
        .collect()
}

#[test]
fn zookeeper_mode_keeps_internal_topics_compacted_and_says_what_it_assumed() {
    let c = Copy::new("consumer-groups", "logs-0");
    support::to_zookeeper_mode(&c.log_dir);
    let (code, plan) = json(&["--format", "json", "plan", s(&c.log_dir), "--at", ALL_GONE]);
    assert_eq!(code, Some(0), "{plan:#}");
    // Kafka creates both compacted: retention never deletes them, however old.
    for topic in ["__consumer_offsets", "__transaction_state"] {
        let parts = partitions_of(&plan, topic);
        assert_eq!(parts.len(), 3, "{topic}");
        for p in parts {
            assert_eq!(deleted(p), 0, "{topic}: {p:#}");
        }
    }
    assert!(partitions_of(&plan, "events")
        .iter()
        .all(|p| deleted(p) > 0));
    let a = &plan["assumptions"];
    let unread: Vec<(&str, &str)> = (a["unread"].as_array().unwrap().iter())
        .map(|u| (u["level"].as_str().unwrap(), u["why"].as_str().unwrap()))
        .collect();
    assert_eq!(
        unread,
        [
            ("topic_overrides", "zookeeper_mode"),
            ("dynamic_broker_configs", "zookeeper_mode"),
            ("server_properties", "not_given")
        ]
    );
    assert_eq!(
        assumed_topics(&plan),
        ["__consumer_offsets", "__transaction_state", "events"]
    );
    // `config` names the source of the creation configs and the broker key behind a value.
    let (_, config) = json(&["--format", "json", "config", s(&c.log_dir)]);
    let offsets = (config["topics"].as_array().unwrap().iter())
        .find(|t| t["topic"] == "__consumer_offsets")
        .unwrap();
    let policy = &offsets["configs"]["cleanup.policy"];
    assert_eq!(policy["value"], "compact", "{offsets:#}");
    assert_eq!(policy["source"], "INTERNAL_TOPIC_CREATION");
    let segment = &offsets["configs"]["segment.bytes"];
    assert_eq!(segment["value"], "104857600");
    assert_eq!(segment["synonym"], "offsets.topic.segment.bytes");
    // The table opens with the assumptions, for every command that judges on configs;
    // `diagnose` answers first: its headline names them, the block follows the findings.
    for cmd in ["plan", "diagnose", "groups", "transactions", "config"] {
        let o = logclean(&["--color", "never", cmd, s(&c.log_dir)], None);
        let out = String::from_utf8_lossy(&o.stdout);
        // After the release applied: ZooKeeper mode tells 3.x (issue 22).
        let rules = "RULES: Kafka 3.9 rules (detected: up to 3.9 from ZooKeeper mode";
        if cmd == "diagnose" {
            assert!(out.starts_with("diagnosis "), "{out}");
            assert!(
                out.contains("(ASSUMED CONFIGS after the findings)"),
                "{out}"
            );
            assert!(out.contains(&format!("\n\n{rules}")), "{out}");
        } else {
            assert!(out.starts_with(rules), "{cmd}: {out}");
        }
        assert!(
            out.contains("\n\nASSUMED CONFIGS: 3 topic(s)"),
            "{cmd}: {out}"
        );
        assert!(
            out.contains("topic overrides not read (ZooKeeper mode: they live in ZooKeeper)"),
            "{cmd}: {out}"
        );
        let (_, doc) = json(&["--format", "json", cmd, s(&c.log_dir)]);
        assert_eq!(assumed_topics(&doc).len(), 3, "{cmd}");
    }
}

#[test]
fn delete_refuses_what_rests_on_assumed_configs_until_the_real_ones_are_given() {
    let c = Copy::new("consumer-groups", "logs-0");
    support::to_zookeeper_mode(&c.log_dir);
    let before = tree(&c.log_dir);
    let props = c.props.as_str();
    let base = [
        "--format",
        "json",
        "delete",
        s(&c.log_dir),
        "--at",
        ALL_GONE,
    ];
    // server.properties alone is not enough in ZooKeeper mode: the topics' overrides are unread.
    for extra in [
        &["--server-properties", props][..],
        &["--server-properties", props, "--execute"],
    ] {
        let (code, doc) = json(&[&base[..], extra].concat());
        assert_eq!(code, Some(3), "{extra:?}: {doc:#}");
        assert_eq!(refused(&doc), ["events-0", "events-1"], "{doc:#}");
        assert_eq!(doc["executed"], false);
        same(&tree(&c.log_dir), &before, "refused delete");
    }
    let o = logclean(&["delete", s(&c.log_dir), "--at", ALL_GONE], None);
    assert_eq!(code(&o), Some(3), "{}", text(&o));
    assert!(text(&o).contains("refused: "), "{}", text(&o));
    assert!(
        text(&o).contains("--accept-assumed-configs"),
        "{}",
        text(&o)
    );
    // The broker's own configs: everything is known, and delete runs.
    let described = describe_file("consumer-groups", c.log_dir.parent().unwrap());
    let known = ["--server-properties", props, "--config-file", s(&described)];
    let (code, doc) = json(&[&base[..], &known[..]].concat());
    assert_eq!(code, Some(0), "{doc:#}");
    assert!(refused(&doc).is_empty());
    assert!(assumed_topics(&doc).is_empty(), "{doc:#}");
    let (code, plan) = json(
        &[
            &["--format", "json", "plan", s(&c.log_dir), "--at", ALL_GONE][..],
            &known[..],
        ]
        .concat(),
    );
    assert_eq!(code, Some(0));
    assert!(assumed_topics(&plan).is_empty(), "{plan:#}");
    let (code, doc) = json(&[&base[..], &known[..], &["--execute"]].concat());
    assert_eq!(code, Some(0), "{doc:#}");
    let after = tree(&c.log_dir);
    for (name, bytes) in &before {
        if name.starts_with("__consumer_offsets-") || name.starts_with("__transaction_state-") {
            assert_eq!(after.get(name), Some(bytes), "{name} changed");
        }
    }
    assert!(!c.p("events-0/00000000000000000000.log").exists());
}

#[test]
fn an_acknowledgement_lets_delete_act_on_defaults() {
    let c = Copy::new("consumer-groups", "logs-0");
    support::to_zookeeper_mode(&c.log_dir);
    let (code, doc) = json(&[
        "--format",
        "json",
        "delete",
        s(&c.log_dir),
        "--at",
        ALL_GONE,
        "--accept-assumed-configs",
    ]);
    assert_eq!(code, Some(0), "{doc:#}");
    assert!(refused(&doc).is_empty());
    // Still said: the acknowledgement does not make the values known.
    assert_eq!(assumed_topics(&doc).len(), 3);
}

#[test]
fn kraft_without_server_properties_is_refused_and_with_it_is_not() {
    let c = Copy::new("basic-delete", "logs-0");
    let later = "2026-11-30T17:00:00Z";
    let (code, doc) = json(&["--format", "json", "delete", s(&c.log_dir), "--at", later]);
    assert_eq!(code, Some(3), "{doc:#}");
    assert_eq!(
        refused(&doc),
        ["orders-0", "orders-2", "sized-0"],
        "{doc:#}"
    );
    let unread: Vec<&str> = (doc["assumptions"]["unread"].as_array().unwrap().iter())
        .map(|u| u["level"].as_str().unwrap())
        .collect();
    assert_eq!(unread, ["server_properties"]);
    let (code, doc) = json(&[
        "--format",
        "json",
        "delete",
        s(&c.log_dir),
        "--at",
        later,
        "--server-properties",
        c.props.as_str(),
    ]);
    assert_eq!(code, Some(0), "{doc:#}");
    assert!(assumed_topics(&doc).is_empty(), "{doc:#}");
}

/// The HW evidence of a plan partition.
fn plan_hw(p: &Value) -> i64 {
    (p["high_watermark"]["evidence"].as_array().unwrap().iter())
        .find(|e| e["name"] == "high_watermark")
        .unwrap()["value"]
        .as_i64()
        .unwrap()
}

#[test]
fn transactions_and_plan_assume_one_hw_per_partition() {
    for fx in ["transactions", "expired-hanging", "open-txn-compacted"] {
        let c = Copy::new(fx, "logs-0");
        // A checkpoint below the log end: a sole leader's HW is the log end all the same.
        let rp = c.p("replication-offset-checkpoint");
        let lowered: String = (fs::read_to_string(&rp).unwrap().lines())
            .enumerate()
            .map(|(i, l)| match l.rsplit_once(' ') {
                Some((tp, _)) if i >= 2 => format!("{tp} 1\n"),
                _ => format!("{l}\n"),
            })
            .collect();
        fs::write(&rp, lowered).unwrap();
        for dir in [fixture(fx).join("logs-0"), c.log_dir.clone()] {
            let (_, plan) = json(&["--format", "json", "plan", s(&dir)]);
            let (_, txns) = json(&["--format", "json", "transactions", s(&dir)]);
            let parts = txns["partitions"].as_array().unwrap();
            assert!(!parts.is_empty(), "{fx}");
            for t in parts {
                let p = (plan["partitions"].as_array().unwrap().iter())
                    .find(|p| p["topic"] == t["topic"] && p["partition"] == t["partition"])
                    .unwrap();
                assert_eq!(t["high_watermark"].as_i64(), Some(plan_hw(p)), "{fx}: {t}");
            }
        }
    }
}

#[test]
fn expired_segments_kept_by_an_assumed_hw_say_it_is_assumed() {
    let c = Copy::new("basic-delete", "logs-0");
    support::to_zookeeper_mode(&c.log_dir);
    let rp = c.p("replication-offset-checkpoint");
    let lowered: String = (fs::read_to_string(&rp).unwrap().lines())
        .map(|l| match l.strip_prefix("orders 0 ") {
            Some(_) => "orders 0 0\n".to_string(),
            None => format!("{l}\n"),
        })
        .collect();
    fs::write(&rp, lowered).unwrap();
    let (_, doc) = json(&[
        "--format",
        "json",
        "diagnose",
        s(&c.log_dir),
        "--now",
        ALL_GONE,
    ]);
    let f = (doc["findings"].as_array().unwrap().iter())
        .find(|f| f["code"] == "plan.retains_expired" && f["location"]["dir"] == "orders-0")
        .unwrap_or_else(|| panic!("{doc:#}"));
    let message = f["message"].as_str().unwrap();
    assert!(message.contains("HW 0 < "), "{message}");
    assert!(
        message.contains("ZooKeeper-mode dir, role unknown: the checkpoint, assumed"),
        "{message}"
    );
    assert!(
        (f["evidence"].as_array().unwrap().iter())
            .any(|e| e["name"] == "high_watermark_assumed" && e["value"] == true),
        "{f:#}"
    );
}

#[test]
fn tiered_segments_on_an_upload_state_not_read_are_kept() {
    // `orders` made tiered, and no `__remote_log_metadata` partition in the dir: whether its
    // segments are uploaded is unknown, so the plan takes none for uploaded and `delete` leaves
    // every file of it (the other topic is deleted as planned).
    let c = Copy::new("basic-delete", "logs-0");
    let props = c.log_dir.parent().unwrap().join("server.properties");
    let mut text = fs::read_to_string(&c.props).unwrap();
    text.push_str("remote.log.storage.system.enable=true\n");
    fs::write(&props, text).unwrap();
    let orders_before: Vec<_> = ["orders-0", "orders-2"]
        .iter()
        .map(|d| tree(&c.log_dir.join(d)))
        .collect();
    let (code, doc) = json(&[
        "--format",
        "json",
        "delete",
        s(&c.log_dir),
        "--at",
        "2026-11-30T17:00:00Z",
        "--server-properties",
        s(&props),
        "--config",
        "orders:remote.storage.enable=true",
        "--accept-assumed-configs",
        "--execute",
    ]);
    assert_eq!(code, Some(0), "{doc:#}");
    let outcomes: Vec<(String, String)> = doc["log_dirs"][0]["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["partition"].as_str().unwrap_or_default().to_string(),
                p["outcome"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    for d in ["orders-0", "orders-2"] {
        assert!(
            outcomes
                .iter()
                .any(|(p, o)| p == d && o == "nothing to delete"),
            "{outcomes:?}"
        );
    }
    assert!(
        outcomes
            .iter()
            .any(|(p, o)| p == "sized-0" && o.starts_with("deletes")),
        "{outcomes:?}"
    );
    for (d, before) in ["orders-0", "orders-2"].iter().zip(&orders_before) {
        same(
            &tree(&c.log_dir.join(d)),
            before,
            "a tiered partition of unknown upload state",
        );
    }
}
