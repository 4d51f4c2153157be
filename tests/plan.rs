//! `logclean plan` on the real Kafka 4.4 fixtures: the verdicts the spec predicts at the
//! manifest's capture time (`captured_at`) and at later instants, what-if diffs, the CI gates'
//! exit codes, the JSON shape the README documents, and tables that fit 100 columns.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;
use support::scratch::copy_dir;

use std::path::{Path, PathBuf};

use serde_json::Value;
use unicode_width::UnicodeWidthStr;

const HOUR: i64 = 3_600_000;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// The manifest's capture time in ms, truncated to the second.
fn captured_at(name: &str) -> i64 {
    let m: Value =
        serde_json::from_slice(&std::fs::read(fixture(name).join("manifest.json")).unwrap())
            .unwrap();
    let at = m["captured_at"].as_str().unwrap();
    chrono::DateTime::parse_from_rfc3339(at)
        .unwrap()
        .timestamp()
        .checked_mul(1000)
        .unwrap()
}

/// `logclean [--format json] plan <fixture's log dirs> --server-properties ... args`, run in
/// the fixture dir: exit code and stdout.
fn run(name: &str, json: bool, columns: usize, args: &[&str]) -> (i32, String) {
    let dir = fixture(name);
    let mut c = support::logclean_capped(support::MEMORY_CAP_BYTES, false);
    c.current_dir(&dir)
        .env("COLUMNS", columns.to_string())
        .env("TZ", "UTC")
        .arg("--no-progress");
    if json {
        c.args(["--format", "json"]);
    }
    c.arg("plan");
    for d in ["logs-0", "logs-1"] {
        if dir.join(d).is_dir() {
            c.arg(d);
        }
    }
    if !args.contains(&"--server-properties") {
        c.args(["--server-properties", "server.properties"]);
    }
    let out = c.args(args).output().unwrap();
    let code = out.status.code().expect("killed by a signal");
    assert_ne!(code, 101, "panic: {}", String::from_utf8_lossy(&out.stderr));
    (code, String::from_utf8(out.stdout).unwrap())
}

fn plan_at(name: &str, at_ms: i64, args: &[&str]) -> (i32, Value) {
    let at = at_ms.to_string();
    let mut all = vec!["--at", at.as_str()];
    all.extend_from_slice(args);
    let (code, out) = run(name, true, 100, &all);
    (code, serde_json::from_str(&out).unwrap())
}

fn partition<'a>(doc: &'a Value, topic: &str, p: i64) -> &'a Value {
    doc["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["topic"] == topic && x["partition"] == p)
        .unwrap_or_else(|| panic!("no {topic}-{p}"))
}

/// `(base_offset, "delete:<pass>" | "retain:<reason kind>")` per segment.
fn verdicts(p: &Value) -> Vec<(i64, String)> {
    p["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let v = match s["verdict"].as_str().unwrap() {
                "delete" => format!("delete:{}", s["pass"].as_str().unwrap()),
                "merge" => format!("merge:{}", s["merged_into"].as_i64().unwrap()),
                _ => format!("retain:{}", s["reason"]["kind"].as_str().unwrap()),
            };
            (s["base_offset"].as_i64().unwrap(), v)
        })
        .collect()
}

fn v(items: &[(i64, &str)]) -> Vec<(i64, String)> {
    items.iter().map(|(o, s)| (*o, (*s).to_string())).collect()
}

fn codes(doc: &Value) -> Vec<String> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn basic_delete_at_capture_deletes_the_expired_segments_the_harness_kept() {
    let at = captured_at("basic-delete");
    let (code, doc) = plan_at("basic-delete", at, &[]);
    assert_eq!(code, 0);
    let orders = partition(&doc, "orders", 0);
    let blocked = "retain:blocked_behind";
    assert_eq!(
        verdicts(orders),
        v(&[
            (0, "delete:time"),
            (4, "delete:time"),
            (8, "delete:time"),
            (12, "delete:time"),
            (16, "retain:not_expired"),
            (20, blocked),
            (24, blocked),
            (28, blocked),
            (32, blocked),
        ])
    );
    assert_eq!(orders["log_start_offset_after"], 16);
    // Errata 18: a sole leader (RF 1; no leader in the image after the shutdown) raises its HW
    // to the log end at once.
    assert_eq!(orders["high_watermark"]["kind"], "leader_log_end");
    let s0 = &orders["segments"][0];
    let largest = s0["largest_timestamp_ms"].as_i64().unwrap();
    assert_eq!(s0["eligible_at_ms"], largest + 6 * HOUR + 1);
    // No broker holds the dir: a start at the instant, the first retention run after
    // log.initial.task.delay.ms (1 h), then file.delete.delay.ms (60 s).
    assert_eq!(s0["gone_by_ms"], at + HOUR + 60_000);
    let blocked_by = &orders["segments"][5]["reason"];
    assert_eq!(blocked_by["text"], "blocked behind 00000000000000000016");
    assert_eq!(blocked_by["evidence"][0]["kind"], "offset");

    let sized = partition(&doc, "sized", 0);
    let kinds: Vec<String> = verdicts(sized).into_iter().map(|(_, k)| k).collect();
    assert_eq!(
        &kinds[..6],
        ["delete:size"; 5]
            .iter()
            .chain(&["retain:within_size"])
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
    );
    let notes: Vec<&str> = sized["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["kind"].as_str().unwrap())
        .collect();
    assert!(notes.contains(&"retention_bytes_per_replica"), "{notes:?}");
    assert!(notes.contains(&"offsets_do_not_hold"), "{notes:?}");

    let fresh = partition(&doc, "fresh", 0);
    assert!(verdicts(fresh)
        .iter()
        .all(|(_, k)| k.starts_with("retain:")));
    assert_eq!(fresh["freed"]["segments"], 0);
    // Totals per log dir add up to the whole.
    let per_dir: u64 = doc["totals"]["per_log_dir"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(per_dir, doc["totals"]["bytes_freed"].as_u64().unwrap());
    assert!(codes(&doc).is_empty(), "{:?}", codes(&doc));
}

#[test]
fn basic_delete_two_hours_later_also_deletes_what_expired_since() {
    let (_, doc) = plan_at("basic-delete", captured_at("basic-delete") + 2 * HOUR, &[]);
    let orders = partition(&doc, "orders", 0);
    // Segment 16's newest record (base-5h30) and 20's (base-4h10) are now past 6 h.
    assert_eq!(orders["log_start_offset_after"], 24);
    assert_eq!(verdicts(orders)[5], (20, "delete:time".to_string()));
    assert_eq!(verdicts(orders)[6], (24, "retain:not_expired".to_string()));
}

#[test]
fn after_sets_the_instant_from_the_wall_clock() {
    let (_, out) = run("basic-delete", true, 100, &["--after", "7d"]);
    let doc: Value = serde_json::from_str(&out).unwrap();
    let gen = doc["generated_at_ms"].as_i64().unwrap();
    assert_eq!(
        doc["evaluated_at_ms"].as_i64().unwrap() - gen,
        7 * 24 * HOUR
    );
    let (code, _) = run("basic-delete", true, 100, &["--after", "7d", "--at", "0"]);
    assert_eq!(code, 3, "--at and --after conflict");
    let (code, _) = run("basic-delete", true, 100, &["--after", "7 weeks"]);
    assert_eq!(code, 3);
}

#[test]
fn future_timestamp_blocks_time_retention_of_every_newer_segment() {
    let (code, doc) = plan_at("future-timestamps", captured_at("future-timestamps"), &[]);
    assert_eq!(code, 0);
    let ft = partition(&doc, "ft", 0);
    let b = "retain:blocked_behind";
    assert_eq!(
        verdicts(ft),
        v(&[
            (0, "delete:time"),
            (7, "delete:time"),
            (14, "retain:future_timestamp"),
            (27, b),
            (34, b),
            (41, b),
        ])
    );
    let text = ft["segments"][2]["reason"]["text"].as_str().unwrap();
    assert!(text.starts_with("largest timestamp 2027-") && text.ends_with("is in the future"));
    assert_eq!(ft["log_start_offset_after"], 14);
    let c = codes(&doc);
    assert!(
        c.contains(&"plan.future_timestamp_blocks".to_string()),
        "{c:?}"
    );
    assert!(c.contains(&"plan.retains_expired".to_string()), "{c:?}");
    // The gate trips on the two expired segments kept behind the future one.
    let (code, doc) = plan_at(
        "future-timestamps",
        captured_at("future-timestamps"),
        &["--fail-if-retains-expired"],
    );
    assert_eq!(code, 1);
    assert_eq!(doc["gates"]["retains_expired"]["value"], 2);
    assert_eq!(doc["summary"]["exit_code"], 1);
}

#[test]
fn delete_records_segments_below_the_log_start_go_in_the_log_start_pass() {
    let (_, doc) = plan_at("delete-records", captured_at("delete-records"), &[]);
    let dr0 = partition(&doc, "dr", 0);
    assert_eq!(verdicts(dr0)[0], (0, "delete:log_start_offset".to_string()));
    assert_eq!(verdicts(dr0)[1].1, "retain:not_expired");
    assert_eq!(dr0["log_start_offset_after"], 6);
    let dr1 = partition(&doc, "dr", 1);
    let deleted: Vec<i64> = verdicts(dr1)
        .into_iter()
        .filter(|(_, k)| k == "delete:log_start_offset")
        .map(|(o, _)| o)
        .collect();
    assert_eq!(deleted, [0, 4, 8]);
    // dr-2: log start = HW = LEO 24; the last segment has no next base to pass, so it stays.
    let dr2 = partition(&doc, "dr", 2);
    assert_eq!(dr2["freed"]["segments"], 5);
    assert_eq!(dr2["segments"][5]["verdict"], "retain");
    assert_eq!(dr2["log_start_offset_after"], 24);
}

#[test]
fn compact_only_segments_never_expire_by_time() {
    // Ten years on every record is far past retention.ms (7 d), but a compact-only policy runs
    // no time pass: nothing is retained-expired, every segment waits on the policy.
    let at = captured_at("compacted") + 10 * 365 * 24 * HOUR;
    let (_, doc) = plan_at("compacted", at, &[]);
    for p in [0, 1] {
        let part = partition(&doc, "compacted", p);
        assert_eq!(part["cleanup_policy"], "compact");
        assert_eq!(part["retention_ms"], 604_800_000);
        for s in part["segments"].as_array().unwrap() {
            assert_eq!(s["retained_expired"], false, "compacted-{p}: {s:#}");
            assert_eq!(s["reason"]["kind"], "policy_without_delete", "{s:#}");
        }
    }
}

#[test]
fn compacted_cleaner_view_and_first_pick() {
    let at = captured_at("compacted");
    let (_, doc) = plan_at("compacted", at, &[]);
    let c0 = &partition(&doc, "compacted", 0)["compaction"];
    // Phase 1 left cleaner-offset-checkpoint 35; phase 2's records make the ratio > 0.5.
    assert_eq!(c0["first_dirty_offset"], 35);
    assert_eq!(c0["first_uncleanable_offset"], 69);
    assert!(c0["dirty_ratio"].as_f64().unwrap() > 0.5);
    assert_eq!(c0["min_cleanable_dirty_ratio"], 0.5);
    assert_eq!(c0["will_clean"], true);
    assert_eq!(c0["clean_up_to"], 69);
    assert!(c0["blocked_by"].is_null());
    let c1 = &partition(&doc, "compacted", 1)["compaction"];
    assert_eq!(c1["will_clean"], false);
    assert!(c1["clean_up_to"].is_null());
    // The active segment is never cleaned, and an idle partition does not roll on segment.ms.
    assert!(partition(&doc, "compacted", 1)["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n["kind"] == "idle_does_not_roll"));
    assert_eq!(c1["blocked_by"]["kind"], "ratio_not_above");
    // compact,delete was never cleaned: ratio 1, the cleaner takes it first; its retention
    // runs in the cleaner threads, after that cleaning (see the next test).
    let cd = partition(&doc, "compact-delete", 0);
    assert_eq!(cd["runner"], "cleaner_threads");
    assert_eq!(cd["compaction"]["first_in_line"], true);
    assert_eq!(doc["cleaner_first"]["pick"], "log");
    assert!(doc["cleaner_first"]["logs"][0]
        .as_str()
        .unwrap()
        .ends_with("compact-delete-0"));
    // compact only: retention.ms does not apply.
    let kinds = verdicts(partition(&doc, "compacted", 0));
    assert!(kinds
        .iter()
        .all(|(_, k)| k == "retain:policy_without_delete"));
    assert!(codes(&doc).is_empty());
}

#[test]
fn compact_delete_taken_first_is_cleaned_before_its_retention_pass_as_the_broker_does() {
    // Kafka 4.4.0 on this fixture (conformance/oracle/compacted.replay.json): the cleaner
    // thread cleans the filthiest log, then runs deleteOldSegments; compact-delete-0 was first,
    // so 0..18 were merged into segment 0 (checkpoint 23) with segment 18's recent records and
    // retention found nothing old enough: log start 0, segments 0 and 23.
    let (_, doc) = plan_at("compacted", captured_at("compacted"), &[]);
    let cd = partition(&doc, "compact-delete", 0);
    assert_eq!(cd["compaction"]["clean_up_to"], 23);
    assert_eq!(cd["log_start_offset_after"], 0);
    assert_eq!(cd["freed"]["segments"], 0);
    let segs = cd["segments"].as_array().unwrap();
    let by_base = |b: i64| segs.iter().find(|s| s["base_offset"] == b).unwrap();
    let s0 = by_base(0);
    assert_eq!(s0["verdict"], "retain");
    // The cleaned segment's largest timestamp is segment 18's (its members' newest). On 4.4 it
    // is an upper bound: the pass ends at 23, below the HW, and since KAFKA-20452 the cleaner
    // keeps an emptied batch only when it ends at the HW, so the batch carrying it may go.
    assert_eq!(
        s0["largest_timestamp_ms"],
        by_base(18)["largest_timestamp_ms"]
    );
    assert_eq!(s0["largest_timestamp_upper_bound"], true);
    // Up to 4.3 the pass's last batch (ending at the first uncleanable offset, 23) is kept even
    // emptied: exact.
    let (_, doc43) = plan_at(
        "compacted",
        captured_at("compacted"),
        &["--kafka-version", "4.3"],
    );
    let s0_43 = (partition(&doc43, "compact-delete", 0)["segments"]
        .as_array()
        .unwrap()
        .iter())
    .find(|s| s["base_offset"] == 0)
    .unwrap()
    .clone();
    assert_eq!(s0_43["largest_timestamp_ms"], s0["largest_timestamp_ms"]);
    assert_eq!(s0_43["largest_timestamp_upper_bound"], false);
    assert!(s0["merged_into"].is_null());
    for b in [4, 8, 12, 16, 18] {
        let s = by_base(b);
        assert_eq!(s["verdict"], "merge", "{b}");
        assert_eq!(s["merged_into"], 0, "{b}");
        assert!(s["pass"].is_null() && s["gone_by_ms"].is_null(), "{b}");
        assert_eq!(s["reason"]["kind"], "merged_by_cleaner", "{b}");
    }
    assert_eq!(by_base(23)["verdict"], "retain");
    let note = cd["notes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["kind"] == "cleaned_before_retention")
        .unwrap();
    assert!(note["text"]
        .as_str()
        .unwrap()
        .contains("5 segment(s) merge into 1"));
    assert_eq!(note["evidence"][2]["name"], "exact");
    // Not exact on 4.4 (the cleaned segment's timestamp is an upper bound, above); on 4.3 it is.
    assert_eq!(note["evidence"][2]["value"], false);
    let note43 = (partition(&doc43, "compact-delete", 0)["notes"]
        .as_array()
        .unwrap()
        .iter())
    .find(|n| n["kind"] == "cleaned_before_retention")
    .unwrap()
    .clone();
    assert_eq!(note43["evidence"][2]["value"], true);
    // Two days on the cleaned segment has expired too: it goes by time with its merged
    // members' records (freed counts them all), and the active segment after it.
    let (_, later) = plan_at("compacted", captured_at("compacted") + 2 * 86_400_000, &[]);
    let cd2 = partition(&later, "compact-delete", 0);
    assert_eq!(
        verdicts(cd2),
        v(&[
            (0, "delete:time"),
            (4, "merge:0"),
            (8, "merge:0"),
            (12, "merge:0"),
            (16, "merge:0"),
            (18, "merge:0"),
            (23, "delete:time"),
        ])
    );
    assert_eq!(cd2["freed"]["segments"], 7);
    assert_eq!(cd2["log_start_offset_after"], 24);
    // The pass writes 23, then retention moves the log start to 24: the cleaner's next look
    // resets the entry to the log start (`forceUpdateCheckpoint`; Kafka 4.4.0 wrote 24 replaying
    // this fixture two days after its capture). On the day of capture the entry stays at the pass end.
    assert_eq!(cd2["compaction"]["clean_up_to"], 23);
    assert_eq!(cd2["compaction"]["checkpoint_after"], 24);
    assert_eq!(cd["compaction"]["checkpoint_after"], 23);
    // The compact-only log is cleaned later (second iteration): its layout is planned as is.
    let c0 = partition(&doc, "compacted", 0);
    assert!(verdicts(c0).iter().all(|(_, k)| !k.starts_with("merge")));
    // Without the cleaner first, the same files lose 0..16 by time.
    let tmp = tempfile::tempdir().unwrap();
    let props = std::fs::read_to_string(fixture("compacted").join("server.properties")).unwrap();
    let sp = tmp.path().join("server.properties");
    std::fs::write(
        &sp,
        format!("{props}\nlog.cleaner.min.cleanable.ratio=1.0\n"),
    )
    .unwrap();
    let (_, doc) = plan_at(
        "compacted",
        captured_at("compacted"),
        &["--server-properties", sp.to_str().unwrap()],
    );
    let cd = partition(&doc, "compact-delete", 0);
    assert_eq!(cd["compaction"]["will_clean"], false);
    assert_eq!(cd["log_start_offset_after"], 18);
}

#[test]
fn open_transaction_mid_segment_rounds_the_clean_limit_down_to_its_segment() {
    // Kafka 4.4.0 cleaned nothing here (conformance/oracle/open-txn-compacted.replay.json):
    // the LSO 5 lies inside segment 0, and the cleanable range ends at the base of the segment
    // holding it (LogCleanerManager.calculateCleanableBytes), so nothing is cleanable.
    let (_, doc) = plan_at("open-txn-compacted", captured_at("open-txn-compacted"), &[]);
    let c = &partition(&doc, "otx", 0)["compaction"];
    assert_eq!(c["last_stable_offset"], 5);
    assert_eq!(c["first_uncleanable_offset"], 0);
    assert_eq!(c["cleanable_bytes"], 0);
    assert_eq!(c["will_clean"], false);
    assert_eq!(c["blocked_by"]["kind"], "open_transaction");
    let kinds = verdicts(partition(&doc, "otx", 0));
    assert!(kinds.iter().all(|(_, k)| !k.starts_with("merge")));
}

#[test]
fn compacted_without_cleaner_keeps_everything_and_says_why() {
    let tmp = tempfile::tempdir().unwrap();
    let props = std::fs::read_to_string(fixture("compacted").join("server.properties")).unwrap();
    let sp = tmp.path().join("server.properties");
    std::fs::write(&sp, format!("{props}\nlog.cleaner.enable=false\n")).unwrap();
    let (_, doc) = plan_at(
        "compacted",
        captured_at("compacted"),
        &["--server-properties", sp.to_str().unwrap()],
    );
    let cd = partition(&doc, "compact-delete", 0);
    assert_eq!(cd["freed"]["segments"], 0);
    assert_eq!(
        cd["segments"][0]["reason"]["text"],
        "policy is compact,delete: only the cleaner thread deletes here, and \
         log.cleaner.enable=false"
    );
    assert_eq!(cd["compaction"]["blocked_by"]["kind"], "cleaner_disabled");
    let c = codes(&doc);
    assert!(c.contains(&"plan.compaction_blocked".to_string()), "{c:?}");
    assert!(c.contains(&"plan.retains_expired".to_string()), "{c:?}");
}

#[test]
fn open_transaction_holds_the_last_stable_offset() {
    let (_, doc) = plan_at(
        "transactions",
        captured_at("transactions"),
        &["--topic", "txn-compacted"],
    );
    assert_eq!(doc["partitions"].as_array().unwrap().len(), 1);
    let c = &partition(&doc, "txn-compacted", 0)["compaction"];
    // tx-open's first record follows tx-main's 5 records and their commit marker.
    assert_eq!(c["last_stable_offset"], 6);
    // The active segment (base 5) bounds the range before the LSO does.
    assert_eq!(c["first_uncleanable_offset"], 5);
    assert_eq!(c["clean_up_to"], 5);
}

#[test]
fn idle_active_segment_expired_is_rolled_and_deleted_trickle_is_kept() {
    let (_, doc) = plan_at(
        "idle-active-segment",
        captured_at("idle-active-segment"),
        &[],
    );
    let idle = partition(&doc, "idle", 0);
    assert_eq!(verdicts(idle), v(&[(0, "delete:time")]));
    assert_eq!(idle["rolls_new_active"], true);
    assert_eq!(idle["log_start_offset_after"], 7);
    // Most of trickle's records are older than 2 h, but its newest is recent.
    let trickle = partition(&doc, "trickle", 0);
    assert_eq!(verdicts(trickle), v(&[(0, "retain:not_expired")]));
    let kinds = |p: &Value| -> Vec<String> {
        p["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["kind"].as_str().unwrap().to_string())
            .collect()
    };
    // Under the default segment.ms (7 d) no roll is due yet.
    assert!(!kinds(trickle).contains(&"idle_does_not_roll".to_string()));
    // With segment.ms=1h a roll is due, but only an append rolls it: the records past
    // retention.ms stay with the recent ones.
    let (_, doc) = plan_at(
        "idle-active-segment",
        captured_at("idle-active-segment"),
        &["--config", "trickle:segment.ms=3600000"],
    );
    let proposed = partition(&doc["what_if"], "trickle", 0);
    assert!(kinds(proposed).contains(&"idle_does_not_roll".to_string()));
    assert!(doc["what_if"]["changes"].as_array().unwrap().is_empty());
}

#[test]
fn unclean_shutdown_plans_with_the_recovered_timestamps() {
    let (_, doc) = plan_at("unclean-shutdown", captured_at("unclean-shutdown"), &[]);
    let p = partition(&doc, "crash", 0);
    let recovered: Vec<bool> = p["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["recovered_on_start"].as_bool().unwrap())
        .collect();
    assert!(recovered.iter().any(|r| *r), "{recovered:?}");
    assert!(p["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n["kind"] == "recovers_on_start"));
    for s in p["segments"].as_array().unwrap() {
        if s["recovered_on_start"] == true {
            assert_eq!(s["largest_timestamp_source"], "recovered");
        }
    }
}

#[test]
fn what_if_shows_the_proposed_plan_and_the_difference() {
    let at = captured_at("basic-delete");
    let (_, today) = plan_at("basic-delete", at, &[]);
    let (_, doc) = plan_at(
        "basic-delete",
        at,
        &["--config", "orders:retention.ms=3600000"],
    );
    assert_eq!(
        doc["partitions"], today["partitions"],
        "today's plan is unchanged"
    );
    let w = &doc["what_if"];
    assert_eq!(w["config"][0], "orders:retention.ms=3600000");
    // Per orders partition, segments 16..28 now expire; 32 (newest record base-10min) not.
    let changes = w["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 12);
    assert!(changes.iter().all(|c| c["topic"] == "orders"
        && c["before"]["verdict"] == "retain"
        && c["after"]["verdict"] == "delete"
        && c["after"]["pass"] == "time"));
    let moved: i64 = changes
        .iter()
        .map(|c| c["size_bytes"].as_i64().unwrap())
        .sum();
    assert_eq!(w["bytes_freed_delta"], moved);
    assert_eq!(partition(w, "orders", 0)["log_start_offset_after"], 32);
    assert!(today["what_if"].is_null());
}

#[test]
fn deletes_more_than_gate() {
    let at = captured_at("basic-delete");
    let (_, doc) = plan_at("basic-delete", at, &[]);
    let freed = doc["totals"]["bytes_freed"].as_u64().unwrap();
    let above = (freed + 1).to_string();
    let below = (freed - 1).to_string();
    let (code, doc) = plan_at("basic-delete", at, &["--fail-if-deletes-more-than", &above]);
    assert_eq!(code, 0);
    assert_eq!(doc["gates"]["deletes_more_than"]["tripped"], false);
    let (code, doc) = plan_at("basic-delete", at, &["--fail-if-deletes-more-than", &below]);
    assert_eq!(code, 1);
    assert_eq!(doc["gates"]["deletes_more_than"]["value"], freed);
    // Under --config the gates judge the proposed plan.
    let (code, _) = plan_at(
        "basic-delete",
        at,
        &[
            "--fail-if-deletes-more-than",
            &above,
            "--config",
            "orders:retention.ms=3600000",
        ],
    );
    assert_eq!(code, 1);
    let (code, _) = plan_at(
        "basic-delete",
        at,
        &["--fail-if-deletes-more-than", "10KiB"],
    );
    assert_eq!(code, i32::from(freed > 10 * 1024));
    let (code, out) = run(
        "basic-delete",
        true,
        100,
        &["--fail-if-deletes-more-than", "lots"],
    );
    assert_eq!((code, out.as_str()), (3, ""));
}

#[test]
fn json_has_the_documented_shape() {
    let (_, doc) = plan_at("compacted", captured_at("compacted"), &[]);
    assert_eq!(doc["command"], "plan");
    assert_eq!(doc["schema_version"], 2);
    for key in [
        "partitions",
        "totals",
        "cleaner_first",
        "gates",
        "findings",
        "summary",
    ] {
        assert!(!doc[key].is_null(), "{key}");
    }
    for p in doc["partitions"].as_array().unwrap() {
        for key in [
            "log_dir",
            "topic",
            "partition",
            "log_start_offset_after",
            "segments",
        ] {
            assert!(!p[key].is_null(), "{key}");
        }
        for s in p["segments"].as_array().unwrap() {
            for key in [
                "base_offset",
                "verdict",
                "pass",
                "reason",
                "eligible_at_ms",
                "gone_by_ms",
            ] {
                assert!(s.get(key).is_some(), "{key}");
            }
            match s["verdict"].as_str().unwrap() {
                "delete" => assert!(s["pass"].is_string() && s["reason"].is_null()),
                "retain" => assert!(s["pass"].is_null() && s["reason"]["kind"].is_string()),
                "merge" => assert!(
                    s["pass"].is_null()
                        && s["reason"]["kind"] == "merged_by_cleaner"
                        && s["merged_into"].is_i64()
                ),
                other => panic!("verdict {other}"),
            }
        }
        let c = &p["compaction"];
        if !c.is_null() {
            for key in [
                "dirty_ratio",
                "min_cleanable_dirty_ratio",
                "first_dirty_offset",
                "first_uncleanable_offset",
                "will_clean",
                "clean_up_to",
                "blocked_by",
            ] {
                assert!(c.get(key).is_some(), "{key}");
            }
        }
    }
}

#[test]
fn tables_and_timelines_fit_100_columns() {
    for name in [
        "basic-delete",
        "compacted",
        "delete-records",
        "future-timestamps",
        "idle-active-segment",
        "transactions",
        "unclean-shutdown",
        "consumer-groups",
    ] {
        let at = captured_at(name).to_string();
        let (code, out) = run(name, false, 100, &["--at", &at, "--timeline"]);
        assert_eq!(code, 0, "{name}");
        let widest = out
            .lines()
            .map(|l| (UnicodeWidthStr::width(l), l))
            .max_by_key(|(w, _)| *w)
            .unwrap();
        assert!(
            widest.0 <= 100,
            "{name}: {} columns: {}",
            widest.0,
            widest.1
        );
        assert!(out.contains("timeline"), "{name}");
        assert!(!out.contains('\x1b'), "{name}: no colour on a pipe");
    }
}

#[test]
fn timeline_marks_what_goes_what_stays_and_the_blocker() {
    let at = captured_at("future-timestamps").to_string();
    let (_, out) = run(
        "future-timestamps",
        false,
        100,
        &["--at", &at, "--timeline"],
    );
    let axis: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.contains("timeline ("))
        .skip(1)
        .take(7)
        .collect();
    assert!(
        axis[0].contains('=') && axis[0].ends_with("delete"),
        "{axis:?}"
    );
    // The future segment's newest record lies past the axis end.
    assert!(
        axis[2].contains('>') && axis[2].ends_with("retain"),
        "{axis:?}"
    );
    assert!(axis[3].contains('-'), "{axis:?}");
    assert!(axis[6].contains('C') && axis[6].contains('N'), "{axis:?}");
}

#[test]
fn zookeeper_mode_dirs_assume_the_checkpointed_hw_and_say_so() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("logs-0");
    copy_dir(&fixture("basic-delete").join("logs-0"), &dir);
    // Re-labelled as a 3.x ZooKeeper-mode dir: no metadata log, no partition.metadata.
    std::fs::remove_dir_all(dir.join("__cluster_metadata-0")).unwrap();
    for e in std::fs::read_dir(&dir).unwrap() {
        let pm = e.unwrap().path().join("partition.metadata");
        if pm.exists() {
            std::fs::remove_file(pm).unwrap();
        }
    }
    std::fs::write(
        dir.join("meta.properties"),
        "version=0\nbroker.id=1\ncluster.id=TG9nQ2xlYW5GaXh0dXJlcw\n",
    )
    .unwrap();
    let out = support::logclean_capped(support::MEMORY_CAP_BYTES, false)
        .args(["--format", "json", "--no-progress", "plan"])
        .arg(&dir)
        .args(["--at", &captured_at("basic-delete").to_string()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let hw = &partition(&doc, "orders", 0)["high_watermark"];
    assert_eq!(hw["kind"], "checkpoint_assumed");
    assert!(
        hw["text"].as_str().unwrap().contains("ZooKeeper-mode"),
        "{hw}"
    );
    assert!(hw["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["name"] == "role_source" && e["value"] == "zookeeper_mode"));
}

#[test]
fn tiered_topics_are_marked_approximate() {
    let tmp = tempfile::tempdir().unwrap();
    let props =
        std::fs::read_to_string(fixture("future-timestamps").join("server.properties")).unwrap();
    let sp = tmp.path().join("server.properties");
    std::fs::write(
        &sp,
        format!("{props}\nremote.log.storage.system.enable=true\n"),
    )
    .unwrap();
    let (_, doc) = plan_at(
        "future-timestamps",
        captured_at("future-timestamps"),
        &[
            "--server-properties",
            sp.to_str().unwrap(),
            "--config",
            "ft:remote.storage.enable=true",
        ],
    );
    assert_eq!(partition(&doc, "ft", 0)["approximate"], false);
    let proposed = partition(&doc["what_if"], "ft", 0);
    assert_eq!(proposed["approximate"], true);
    assert!(proposed["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n["kind"] == "tiered_approximate"));
}
