//! The coordinator-record decoders against real Kafka 4.4 output: every record of every
//! `__consumer_offsets-*` and `__transaction_state-*` partition in `fixtures/` (or
//! `LOGCLEAN_FIXTURES_DIR`) decodes to a known type, the committed offsets replayed from the
//! log equal the group offsets the broker reported (`manifest.json` `groups`), and the
//! transaction states match the scenario's steps; the tombstones the coordinator's own offset
//! expiry wrote (`fixtures/expired-hanging`) are those of Kafka 4.4's group-coordinator.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;
use support::fixtures_root;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use logclean::formats::compression::DEFAULT_MAX_DECOMPRESSED;
use logclean::formats::control::ControlKind;
use logclean::formats::group_record::{decode_group_record, record_type, GroupKey, GroupValue};
use logclean::formats::record::for_each_record;
use logclean::formats::txn_state_record::{decode_txn_state_record, TxnStateRecord, TxnStatus};
use logclean::formats::walk::ShallowWalker;
use serde_json::Value;

fn manifest(dir: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap()
}

/// One record of a coordinator topic, in log order.
struct Rec {
    offset: i64,
    timestamp: i64,
    producer_id: i64,
    transactional: bool,
    /// `Some(true)` for a COMMIT marker, `Some(false)` for ABORT.
    marker: Option<bool>,
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
}

/// Every record of every segment of the partition directories of `topic` in the scenario,
/// per partition number, with the `log_end_offset` the manifest reports.
fn partitions(dir: &Path, m: &Value, topic: &str) -> Vec<(u64, i64, Vec<Rec>)> {
    let mut out = Vec::new();
    for p in m["partitions"].as_array().unwrap() {
        if p["topic"] != topic {
            continue;
        }
        let n = p["partition"].as_u64().unwrap();
        let pdir = dir
            .join(p["log_dir"].as_str().unwrap())
            .join(format!("{topic}-{n}"));
        let mut logs: Vec<PathBuf> = std::fs::read_dir(&pdir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "log"))
            .collect();
        logs.sort();
        let mut recs = Vec::new();
        for log in logs {
            let bytes = std::fs::read(&log).unwrap();
            for batch in ShallowWalker::new(&bytes) {
                let b = batch.unwrap_or_else(|e| panic!("{}: {e}", log.display()));
                for_each_record(&bytes, &b, DEFAULT_MAX_DECOMPRESSED, |r| {
                    recs.push(Rec {
                        offset: r.offset,
                        timestamp: r.timestamp,
                        producer_id: b.producer_id,
                        transactional: b.is_transactional,
                        marker: r.control.map(|c| c.kind == ControlKind::Commit),
                        key: r.key.map(<[u8]>::to_vec),
                        value: r.value.map(<[u8]>::to_vec),
                    });
                    Ok(())
                })
                .unwrap_or_else(|e| panic!("{}: {e}", log.display()));
            }
        }
        out.push((n, p["log_end_offset"].as_i64().unwrap(), recs));
    }
    out
}

fn scenarios_with(topic: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(fixtures_root())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|d| d.join("manifest.json").is_file())
        .filter(|d| {
            manifest(d)["partitions"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["topic"] == topic)
        })
        .collect();
    out.sort();
    out
}

type Offsets = BTreeMap<String, BTreeMap<(String, i32), i64>>;

#[test]
fn consumer_offsets_decode_and_match_the_reported_group_offsets() {
    let scenarios = scenarios_with("__consumer_offsets");
    assert!(
        scenarios.iter().any(|d| d.ends_with("consumer-groups")),
        "{scenarios:?}"
    );
    for dir in scenarios {
        let m = manifest(&dir);
        let mut committed: Offsets = BTreeMap::new();
        let mut decoded = 0;
        for (n, log_end, recs) in partitions(&dir, &m, "__consumer_offsets") {
            // Transactional offset commits take effect at their producer's COMMIT marker.
            let mut pending: HashMap<i64, Vec<(GroupKey, Option<i64>)>> = HashMap::new();
            let apply = |committed: &mut Offsets, key: GroupKey, offset: Option<i64>| {
                if let GroupKey::OffsetCommit {
                    group,
                    topic,
                    partition,
                    ..
                } = key
                {
                    let g = committed.entry(group).or_default();
                    match offset {
                        Some(o) => g.insert((topic, partition), o),
                        None => g.remove(&(topic, partition)),
                    };
                }
            };
            if let Some(last) = recs.last() {
                assert_eq!(last.offset + 1, log_end, "{}: partition {n}", dir.display());
            }
            for r in recs {
                if let Some(commit) = r.marker {
                    for (key, offset) in pending.remove(&r.producer_id).unwrap_or_default() {
                        if commit {
                            apply(&mut committed, key, offset);
                        }
                    }
                    continue;
                }
                let rec = decode_group_record(r.key.as_deref().unwrap(), r.value.as_deref())
                    .unwrap_or_else(|e| panic!("{} offset {}: {e}", dir.display(), r.offset));
                decoded += 1;
                // Share-group records (fixtures/internal-topics) are version-checked only, by
                // the decoder's contract; every other value decodes in full.
                let share = (record_type::SHARE_GROUP_PARTITION_METADATA
                    ..=record_type::SHARE_GROUP_STATE_PARTITION_METADATA)
                    .contains(&rec.key.record_type());
                assert!(
                    !matches!(rec.key, GroupKey::Unknown { .. })
                        && !matches!(rec.value, Some(GroupValue::UnknownType { .. }))
                        && (share || !matches!(rec.value, Some(GroupValue::NotDecoded { .. }))),
                    "{} offset {}: {rec:?}",
                    dir.display(),
                    r.offset
                );
                let offset = match &rec.value {
                    Some(GroupValue::OffsetCommit(v)) => Some(v.offset),
                    _ => None,
                };
                if !matches!(rec.key, GroupKey::OffsetCommit { .. }) {
                    continue;
                }
                if r.transactional {
                    pending
                        .entry(r.producer_id)
                        .or_default()
                        .push((rec.key, offset));
                } else {
                    apply(&mut committed, rec.key, offset);
                }
            }
        }
        let mut expected: Offsets = BTreeMap::new();
        for g in m["groups"].as_array().unwrap() {
            let offsets = expected
                .entry(g["group"].as_str().unwrap().to_owned())
                .or_default();
            for o in g["offsets"].as_array().unwrap() {
                offsets.insert(
                    (
                        o["topic"].as_str().unwrap().to_owned(),
                        i32::try_from(o["partition"].as_i64().unwrap()).unwrap(),
                    ),
                    o["offset"].as_i64().unwrap(),
                );
            }
        }
        committed.retain(|_, offsets| !offsets.is_empty());
        // Share groups commit no offsets (their start offsets live in __share_group_state).
        expected.retain(|_, offsets| !offsets.is_empty());
        assert_eq!(committed, expected, "{}", dir.display());
        if !expected.is_empty() {
            assert!(decoded > 0);
        }
    }
}

/// `expired-hanging` (offsets.retention.minutes=1): the broker's expiry of an empty group
/// (`OffsetMetadataManager.cleanupExpiredOffsets`, then `GroupMetadataManager.maybeDeleteGroup`
/// once no offset is left) wrote, one retention or more after the group's last commit, a
/// tombstone for every offset and the group's tombstones: `ClassicGroup` (also the simple group of
/// Admin commits, which never had a GroupMetadata value) the GroupMetadata key (2);
/// `ConsumerGroup` without members the target assignment epoch (6), subscription metadata (4) and
/// group epoch (3) keys; the member's records (5, 7, 8) were tombstoned when it left. Every key
/// of an expired group ends in a tombstone.
#[test]
fn the_brokers_offset_expiry_writes_offset_and_group_tombstones() {
    let dir = fixtures_root().join("expired-hanging");
    let m = manifest(&dir);
    // group -> (record type, tombstone, timestamp) in log order, and key bytes -> last is a tombstone
    let mut by_group: BTreeMap<String, Vec<(i16, bool, i64)>> = BTreeMap::new();
    let mut last: BTreeMap<(String, Vec<u8>), bool> = BTreeMap::new();
    for (_, _, recs) in partitions(&dir, &m, "__consumer_offsets") {
        for r in recs.into_iter().filter(|r| r.marker.is_none()) {
            let key = r.key.unwrap();
            let rec = decode_group_record(&key, r.value.as_deref()).unwrap();
            let group = rec.key.group().unwrap().to_string();
            let tomb = r.value.is_none();
            by_group.entry(group.clone()).or_default().push((
                rec.key.record_type(),
                tomb,
                r.timestamp,
            ));
            last.insert((group, key), tomb);
        }
    }
    let expired: Vec<&str> = m["expired_groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_str().unwrap())
        .collect();
    assert_eq!(
        expired,
        ["g-expired-848", "g-expired-classic", "g-expired-simple"]
    );
    for g in expired {
        let recs = &by_group[g];
        let last_commit = recs
            .iter()
            .filter(|(t, tomb, _)| *t == 1 && !tomb)
            .map(|r| r.2)
            .max()
            .unwrap();
        let at_expiry: BTreeSet<i16> = recs
            .iter()
            // Expiry is due 60 s after the last commit; the commit's timestamp and the
            // tombstone's come from different reads of the broker's clock (a fresh run wrote the
            // tombstones 59,982 ms after the commit), so allow a second of slack.
            .filter(|(_, tomb, ts)| *tomb && *ts >= last_commit + 59_000)
            .map(|r| r.0)
            .collect();
        let want: BTreeSet<i16> = if g == "g-expired-848" {
            [1, 3, 4, 6].into()
        } else {
            [1, 2].into()
        };
        assert_eq!(at_expiry, want, "{g}: {recs:?}");
        assert!(
            last.iter()
                .filter(|((grp, _), _)| grp == g)
                .all(|(_, t)| *t),
            "{g}: a key without a tombstone"
        );
    }
    // g-live, committed seconds before capture, is live: its one key holds a value.
    assert!(last.iter().any(|((g, _), t)| g == "g-live" && !t));
}

#[test]
fn transaction_state_decodes_and_matches_the_scenario() {
    let scenarios = scenarios_with("__transaction_state");
    assert!(
        scenarios.iter().any(|d| d.ends_with("transactions")),
        "{scenarios:?}"
    );
    for dir in scenarios {
        let m = manifest(&dir);
        let mut last: BTreeMap<String, TxnStateRecord> = BTreeMap::new();
        let mut statuses = BTreeSet::new();
        for (n, log_end, recs) in partitions(&dir, &m, "__transaction_state") {
            if let Some(r) = recs.last() {
                assert_eq!(r.offset + 1, log_end, "{}: partition {n}", dir.display());
            }
            for r in recs {
                assert!(r.marker.is_none(), "no markers in __transaction_state");
                let rec = decode_txn_state_record(r.key.as_deref().unwrap(), r.value.as_deref())
                    .unwrap_or_else(|e| panic!("{} offset {}: {e}", dir.display(), r.offset));
                let TxnStateRecord::Transaction {
                    transactional_id,
                    value,
                } = &rec
                else {
                    panic!("{} offset {}: {rec:?}", dir.display(), r.offset);
                };
                if let Some(v) = value {
                    statuses.insert(v.status);
                    // Kafka 4.4 with transaction.version 2 writes v1 values; 3.9.1 (no
                    // transactions v2, KIP-890) writes v0.
                    let want = if support::kafka3_fixture(&dir) { 0 } else { 1 };
                    assert_eq!(v.version, want, "{}", dir.display());
                }
                last.insert(transactional_id.clone(), rec);
            }
        }
        if !dir.ends_with("transactions") {
            continue;
        }
        // tx-main committed and aborted five times and finished with a commit; tx-open was
        // killed inside a transaction on txn-compacted-0 with transaction.timeout.ms=1h.
        assert_eq!(
            last.keys().map(String::as_str).collect::<Vec<_>>(),
            ["tx-main", "tx-open"]
        );
        let value = |id: &str| match &last[id] {
            TxnStateRecord::Transaction { value: Some(v), .. } => v.clone(),
            other => panic!("{other:?}"),
        };
        let main = value("tx-main");
        assert_eq!(main.status, TxnStatus::CompleteCommit);
        let open = value("tx-open");
        assert_eq!(open.status, TxnStatus::Ongoing);
        assert_eq!(open.transaction_timeout_ms, 3_600_000);
        let parts = open.partitions.unwrap();
        assert_eq!(parts.len(), 1);
        assert_eq!(
            (parts[0].topic.as_str(), parts[0].partitions.as_slice()),
            ("txn-compacted", &[0][..])
        );
        assert!(open.start_timestamp_ms > 0);
        assert_ne!(main.producer_id, open.producer_id);
        for s in [
            TxnStatus::Empty,
            TxnStatus::Ongoing,
            TxnStatus::PrepareCommit,
            TxnStatus::PrepareAbort,
            TxnStatus::CompleteCommit,
            TxnStatus::CompleteAbort,
        ] {
            assert!(statuses.contains(&s), "{s:?} not seen: {statuses:?}");
        }
    }
}
