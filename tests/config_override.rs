//! `--config TOPIC:KEY=VALUE` is checked as the dirs' Kafka release checks an `alterConfigs` (issue 20,
//! "never act on a guess"): in every command that takes it (`config`, `plan`, `delete`, `roll`,
//! `rebuild-index`), on copies of real broker log dirs, a value Kafka would refuse, a key that is
//! not a topic config, a topic that does not exist or a combination `LogConfig.validate`
//! rejects exits 3 naming the bad part, prints no report, and leaves the log dir bit-identical
//! even with `--execute`; a valid override still works.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;

use std::path::Path;

use serde_json::Value;
use support::scratch::{code, logclean, s, same, text, tree, Copy};

const COMMANDS: &[&str] = &["config", "plan", "delete", "roll", "rebuild-index"];

fn mutating(command: &str) -> bool {
    matches!(command, "delete" | "roll" | "rebuild-index")
}

/// Each bad `--config` (for a fixture whose topic is `topic`, with `typo` a near miss of it) and
/// what stderr must say.
fn bad_overrides(topic: &str, typo: &str) -> Vec<(Vec<String>, String)> {
    let one = |arg: String, msg: &str| (vec![arg], msg.to_string());
    vec![
        one(
            format!("{topic}:retention.ms=7d"),
            "`7d` is not a long; 7 days is 604800000",
        ),
        one(format!("{topic}:retention.ms=abc"), "`abc` is not a long"),
        one(
            format!("{topic}:retention.ms=-5"),
            "`-5` is not valid for `retention.ms`: Value must be at least -1",
        ),
        one(
            "nosuchtopic:retention.ms=1000".into(),
            "no topic `nosuchtopic` in the metadata log, the log dirs or the describe file",
        ),
        one(
            format!("{typo}:retention.ms=1000"),
            &format!("no topic `{typo}`"),
        ),
        one(
            "*:cleanup.policy=bogus".into(),
            "`bogus` is not valid for `cleanup.policy`: Invalid value bogus",
        ),
        one(
            format!("{topic}:retention.hours=1"),
            "`retention.hours` is not a Kafka 4.4.0 topic config",
        ),
        one(
            format!("{topic}:message.format.version=2.8"),
            "`message.format.version` was removed in Kafka 4.0",
        ),
        // KAFKA-19080 (4.1+): a topic's segment.bytes is at least 1 MiB.
        one(
            format!("{topic}:segment.bytes=1000"),
            "Value must be at least 1048576",
        ),
        (
            vec![
                format!("{topic}:min.compaction.lag.ms=7200000"),
                format!("{topic}:max.compaction.lag.ms=3600000"),
            ],
            format!(
                "bad --config for topic `{topic}`: `min.compaction.lag.ms=7200000` (OVERRIDE) is \
                 more than `max.compaction.lag.ms=3600000` (OVERRIDE)"
            ),
        ),
        (
            vec![
                format!("{topic}:retention.ms=1000"),
                format!("{topic}:retention.ms=2000"),
            ],
            "`retention.ms` is already given as `1000` for this topic".to_string(),
        ),
    ]
}

fn refused_everywhere(fixture: &str, topic: &str, typo: &str, did_you_mean: &str) {
    for (overrides, msg) in bad_overrides(topic, typo) {
        for command in COMMANDS {
            let copy = Copy::new(fixture, "logs-0");
            let before = tree(&copy.log_dir);
            let parent = copy.log_dir.parent().unwrap().to_path_buf();
            let mut args = vec!["--format", "json", command, s(&copy.log_dir)];
            for o in &overrides {
                args.extend(["--config", o.as_str()]);
            }
            if mutating(command) {
                args.push("--execute");
            }
            let o = logclean(&args, None);
            let what = format!("{fixture}: {command} {overrides:?}");
            assert_eq!(code(&o), Some(3), "{what}: {}", text(&o));
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains(&msg), "{what}: stderr lacks {msg:?}: {err}");
            if overrides[0].starts_with(typo) {
                assert!(err.contains(did_you_mean), "{what}: {err}");
            }
            assert!(o.stdout.is_empty(), "{what}: a report was printed");
            same(&before, &tree(&copy.log_dir), &what);
            assert!(
                !parent.join(".logclean-journal").exists(),
                "{what}: a journal was started"
            );
        }
    }
}

#[test]
fn bad_overrides_exit_3_in_every_command_basic_delete() {
    refused_everywhere("basic-delete", "orders", "ordres", "did you mean `orders`?");
}

#[test]
fn bad_overrides_exit_3_in_every_command_kraft_metadata() {
    refused_everywhere(
        "kraft-metadata",
        "kt-alpha",
        "kt-alhpa",
        "did you mean `kt-alpha`?",
    );
}

/// A cross-check that needs the broker's own config: `remote.storage.enable=true` on a broker
/// whose server.properties leaves tiered storage off, for `*` (every topic).
#[test]
fn tiered_storage_on_a_broker_without_it_is_refused() {
    let props = support::scratch::fixture("kraft-metadata").join("server.properties");
    for command in COMMANDS {
        let copy = Copy::new("kraft-metadata", "logs-0");
        let o = logclean(
            &[
                command,
                s(&copy.log_dir),
                "--server-properties",
                s(&props),
                "--config",
                "*:remote.storage.enable=true",
            ],
            None,
        );
        assert_eq!(code(&o), Some(3), "{command}: {}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("Tiered Storage functionality is disabled in the broker"),
            "{command}: {err}"
        );
    }
}

fn json(o: &std::process::Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(o)))
}

/// Files that `delete --execute` moved out of the log dir.
fn removed_files(before: &std::collections::BTreeMap<String, Vec<u8>>, dir: &Path) -> usize {
    let after = tree(dir);
    before.keys().filter(|k| !after.contains_key(*k)).count()
}

#[test]
fn a_valid_override_still_works() {
    let valid = "orders:retention.ms=604800000";
    let copy = Copy::new("basic-delete", "logs-0");
    // config: the value, from OVERRIDE.
    let o = logclean(
        &[
            "--format",
            "json",
            "config",
            s(&copy.log_dir),
            "--config",
            valid,
        ],
        None,
    );
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    let doc = json(&o);
    let orders = doc["topics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["topic"] == "orders")
        .unwrap();
    assert_eq!(orders["configs"]["retention.ms"]["value"], "604800000");
    assert_eq!(orders["configs"]["retention.ms"]["source"], "OVERRIDE");
    // plan: the proposed plan is there.
    let at = "2026-11-30T17:00:00Z";
    let o = logclean(
        &[
            "--format",
            "json",
            "plan",
            s(&copy.log_dir),
            "--at",
            at,
            "--config",
            valid,
        ],
        None,
    );
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    assert!(json(&o)["what_if"].is_object(), "{}", text(&o));
    // roll and rebuild-index dry runs take it.
    for command in ["roll", "rebuild-index"] {
        let o = logclean(&[command, s(&copy.log_dir), "--config", valid], None);
        assert_eq!(code(&o), Some(0), "{command}: {}", text(&o));
    }
    // delete: the override changes what is deleted (7 days keeps more than the topic's 6 hours),
    // and is applied.
    let before = tree(&copy.log_dir);
    let props = copy.props.as_str();
    let o = logclean(
        &[
            "delete",
            s(&copy.log_dir),
            "--server-properties",
            props,
            "--at",
            at,
            "--execute",
        ],
        None,
    );
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    let today = removed_files(&before, &copy.log_dir);
    let copy = Copy::new("basic-delete", "logs-0");
    let before = tree(&copy.log_dir);
    let o = logclean(
        &[
            "delete",
            s(&copy.log_dir),
            "--server-properties",
            copy.props.as_str(),
            "--at",
            at,
            "--config",
            valid,
            "--execute",
        ],
        None,
    );
    assert_eq!(code(&o), Some(0), "{}", text(&o));
    let proposed = removed_files(&before, &copy.log_dir);
    assert!(
        proposed > 0 && proposed < today,
        "retention.ms=604800000 removed {proposed} files, today's config {today}"
    );
}

/// `--config` is checked against the release whose rules apply (issue 22): on a Kafka 3.9.1
/// ZooKeeper-mode dir a key 4.0 removed is a topic config and `segment.bytes` below 1 MiB is
/// allowed (KAFKA-19080 is 4.1), while a key 4.4 added is refused; on a 4.4 dir the reverse.
#[test]
fn overrides_follow_the_release_of_the_dirs() {
    let run = |fixture: &str, arg: &str| {
        let copy = Copy::new(fixture, "logs-0");
        let o = logclean(
            &[
                "config",
                s(&copy.log_dir),
                "--config",
                arg,
                "--format",
                "json",
            ],
            None,
        );
        (code(&o), text(&o))
    };
    for arg in [
        "orders:message.format.version=2.8",
        "orders:segment.bytes=100000",
    ] {
        let (c, out) = run("zk391-basic-delete", arg);
        assert_eq!(c, Some(0), "3.9.1 takes {arg}: {out}");
        let (c, out) = run("basic-delete", arg);
        assert_eq!(c, Some(3), "4.4 refuses {arg}: {out}");
    }
    let (c, out) = run("zk391-basic-delete", "orders:remote.copy.lag.ms=1000");
    assert_eq!(c, Some(3), "{out}");
    assert!(
        out.contains("`remote.copy.lag.ms` is a topic config from Kafka 4.4 on; the Kafka 3.9"),
        "{out}"
    );
    let (c, out) = run("basic-delete", "orders:remote.copy.lag.ms=1000");
    assert_eq!(c, Some(0), "{out}");
}
