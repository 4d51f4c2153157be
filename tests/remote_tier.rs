//! The remote-tier model against real Kafka 4.4 tiered-storage brokers (`fixtures/tiered-*`,
//! written by `conformance/` with its own RemoteStorageManager): the `__remote_log_metadata`
//! replay gives the remote segments the RSM held at capture, the highest offset in remote storage
//! the broker reported (ListOffsets latest-tiered), the copy the RSM hung on, the remote deletes
//! and the log start remote retention raised; Kafka's partitioner puts each partition's records
//! where the broker did; a missing metadata partition and an unreadable one are reported.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;
use support::fixtures_root;

use std::path::{Path, PathBuf};

use logclean::formats::partition_metadata::Uuid;
use logclean::formats::remote_log_metadata::SegmentState;
use logclean::model::file_bytes::ReadMode;
use logclean::model::log_dir::{load_log_dir, LogDir, Selection};
use logclean::model::remote_tier::{replay_remote_tier, Holding, RemoteTier};
use logclean::model::segment::{LoadOptions, ScanDepth};
use serde_json::Value;

fn scenarios() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(fixtures_root())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("tiered-")
        })
        .collect();
    v.sort();
    assert_eq!(v.len(), 7, "the seven tiered scenarios: {v:?}");
    v
}

fn manifest(dir: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap()
}

fn load(dir: &Path) -> Vec<LogDir> {
    let opts = LoadOptions {
        depth: ScanDepth::Tail,
        ..Default::default()
    };
    let mut logs: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("logs-")
        })
        .collect();
    logs.sort();
    logs.iter()
        .map(|l| load_log_dir(l, &Selection::default(), &opts, &|| {}).unwrap())
        .collect()
}

/// The one data partition of the scenario: (topic, partition, topic id).
fn data_partition(m: &Value) -> (String, i32, Uuid) {
    let t = m["topics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| !t["name"].as_str().unwrap().starts_with("__"))
        .unwrap();
    let name = t["name"].as_str().unwrap().to_string();
    let id = Uuid::from_base64(t["topic_id"].as_str().unwrap()).unwrap();
    (name, 0, id)
}

fn metadata_partition_count(m: &Value) -> u32 {
    let t = m["topics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "__remote_log_metadata")
        .unwrap();
    t["partitions"].as_u64().unwrap() as u32
}

/// The broker's ListOffsets at the scenario's last snapshot of the partition.
fn last_snapshot<'a>(m: &'a Value, tp: &str) -> &'a Value {
    let p = m["tiered"]["partitions"][tp].as_object().unwrap();
    [
        "after_local_retention",
        "after_retention",
        "after_remote_retention",
        "at_capture",
    ]
    .iter()
    .find_map(|k| p.get(*k))
    .unwrap()
}

#[test]
fn replay_matches_what_the_broker_and_its_rsm_did() {
    for dir in scenarios() {
        let s = dir.file_name().unwrap().to_string_lossy().into_owned();
        let m = manifest(&dir);
        let dirs = load(&dir);
        let tier = replay_remote_tier(&dirs, ReadMode::Buffered);
        assert!(tier.problems.is_empty(), "{s}: {:?}", tier.problems);
        let (topic, p, id) = data_partition(&m);
        let tp = format!("{topic}-{p}");
        let n = metadata_partition_count(&m);
        assert_eq!(n, 5, "{s}: the harness sets 5 metadata partitions");
        assert_eq!(tier.metadata_partitions.len(), 5, "{s}");

        // Kafka's partitioner: the records of the partition are in the metadata partition it
        // names, and only there.
        let Some(Holding::Replayed(mp)) = tier.holding(id, p, n) else {
            panic!("{s}: metadata partition of {tp} not replayed")
        };
        let part = tier.partition(id, p).unwrap();
        assert_eq!(part.topic, topic);
        for seg in part.segments.values() {
            assert_eq!(
                seg.last_record.0, mp as i32,
                "{s}: {tp} records outside partition {mp}"
            );
        }
        for (k, read) in &tier.metadata_partitions {
            let records: u64 = read.records_by_type.iter().sum();
            if *k != mp as i32 {
                assert_eq!(records, 0, "{s}: records in metadata partition {k}");
            }
        }

        // The remote segments readable at capture are the RSM's files.
        let rsm = m["tiered"]["remote_storage"]["segments"][&tp]
            .as_array()
            .unwrap();
        let finished = part.in_state(SegmentState::CopyFinished);
        let got: Vec<(i64, i64)> = finished
            .iter()
            .map(|x| (x.start_offset, i64::from(x.size_bytes)))
            .collect();
        let want: Vec<(i64, i64)> = rsm
            .iter()
            .map(|x| {
                (
                    x["start_offset"].as_i64().unwrap(),
                    x["size_bytes"].as_i64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            got, want,
            "{s}: COPY_SEGMENT_FINISHED segments vs the RSM's files"
        );
        for (x, r) in finished.iter().zip(rsm) {
            assert_eq!(
                x.segment_id.to_base64(),
                r["segment_id"].as_str().unwrap(),
                "{s}"
            );
        }
        assert_eq!(
            part.remote_size(),
            want.iter().map(|w| w.1).sum::<i64>(),
            "{s}"
        );

        // Highest offset in remote storage = ListOffsets latest-tiered, with and without the
        // partition's leader-epoch lineage.
        let snap = last_snapshot(&m, &tp);
        let latest_tiered = snap["latest_tiered"].as_i64().unwrap();
        let expect = (latest_tiered >= 0).then_some(latest_tiered);
        assert_eq!(part.highest_offset_in_remote_storage(None), expect, "{s}");
        let data = (dirs.iter().flat_map(|d| &d.partitions))
            .find(|x| x.dir_name == tp)
            .unwrap();
        let epochs: Vec<(i32, i64)> = data
            .leader_epochs
            .as_ref()
            .and_then(|e| e.as_ref().ok())
            .map(|f| f.values().map(|e| (e.epoch, e.start_offset)).collect())
            .unwrap();
        let leo = data.log_end_offset().unwrap().get();
        assert_eq!(
            part.highest_offset_in_remote_storage(Some((&epochs, leo))),
            expect,
            "{s}"
        );

        // Journal facts.
        let journal: Vec<&str> = m["tiered"]["remote_storage"]["journal"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap())
            .collect();
        let hung: Vec<i64> = journal
            .iter()
            .filter(|l| l.split(' ').nth(1) == Some("copy-hang"))
            .map(|l| l.split(' ').nth(3).unwrap().parse().unwrap())
            .collect();
        let unfinished: Vec<i64> = part
            .unfinished_copies()
            .iter()
            .map(|x| x.start_offset)
            .collect();
        assert_eq!(unfinished, hung, "{s}: the copy the RSM hung on");
        let deletes = journal
            .iter()
            .filter(|l| l.split(' ').nth(1) == Some("delete"))
            .count();
        let failed: Vec<i64> = journal
            .iter()
            .filter(|l| l.split(' ').nth(1) == Some("copy-fail"))
            .map(|l| l.split(' ').nth(3).unwrap().parse().unwrap())
            .collect();
        if failed.is_empty() {
            assert_eq!(
                part.in_state(SegmentState::DeleteFinished).len(),
                deletes,
                "{s}: remote deletes"
            );
            assert!(part.failed_copies().is_empty(), "{s}");
        } else {
            // Each failed copy is cleaned up (a remote delete) and retried; the broker goes on
            // retrying between the journal's capture and its stop, so the metadata holds at
            // least the journal's attempts, all of the one segment the RSM failed on.
            let got = part.failed_copies();
            assert_eq!(got.len(), 1, "{s}: {got:?}");
            let (start, attempts, last) = got[0];
            assert!(
                failed.iter().all(|f| *f == start),
                "{s}: {failed:?} vs {start}"
            );
            assert!(
                attempts as usize >= failed.len(),
                "{s}: {attempts} < {}",
                failed.len()
            );
            assert!(last > m["base_time_ms"].as_i64().unwrap(), "{s}");
            assert!(
                part.in_state(SegmentState::DeleteFinished).len() >= deletes,
                "{s}: remote deletes"
            );
        }
        assert!(part.deletes_in_flight().is_empty(), "{s}");
        if deletes > 0 && failed.is_empty() {
            // Remote retention raised the log start to the first remaining remote segment, or
            // past the highest uploaded offset when none remains (tiered-copy-disabled).
            let after_remote = part.remote_log_start().or(expect.map(|h| h + 1));
            assert_eq!(
                after_remote,
                snap["earliest"].as_i64(),
                "{s}: log start after remote retention"
            );
        }
        match s.as_str() {
            "tiered-stalled" => {
                let c = part.unfinished_copies()[0];
                assert!(
                    c.copy_started_ms > m["base_time_ms"].as_i64().unwrap(),
                    "{s}"
                );
                assert_eq!(c.state_since_ms, c.copy_started_ms, "{s}");
            }
            "tiered-remote-retention" | "tiered-copy-disabled" => assert!(deletes > 0, "{s}"),
            "tiered-failed" => {
                assert!(hung.is_empty() && failed.len() >= 3, "{s}: {journal:?}");
                // A failed copy never counts as uploaded: the highest offset stays below it.
                assert_eq!(expect, Some(failed[0] - 1), "{s}");
            }
            _ => assert!(hung.is_empty(), "{s}"),
        }
    }
}

#[test]
fn a_metadata_partition_not_given_is_reported_as_such() {
    let dir = fixtures_root().join("tiered-uploaded");
    let m = manifest(&dir);
    let (_, p, id) = data_partition(&m);
    let mut dirs = load(&dir);
    let full = replay_remote_tier(&dirs, ReadMode::Buffered);
    let Some(Holding::Replayed(mp)) = full.holding(id, p, 5) else {
        panic!("not replayed")
    };
    dirs[0]
        .partitions
        .retain(|x| x.dir_name != format!("__remote_log_metadata-{mp}"));
    let partial = replay_remote_tier(&dirs, ReadMode::Buffered);
    assert_eq!(partial.holding(id, p, 5), Some(Holding::NotGiven(mp)));
    assert!(partial.partition(id, p).is_none());
    assert_eq!(partial.holding(id, p, 0), None);
}

#[test]
fn an_unreadable_metadata_segment_is_a_problem_not_a_silent_gap() {
    let src = fixtures_root().join("tiered-stalled");
    let tmp = tempfile::tempdir().unwrap();
    support::scratch::copy_dir(&src, tmp.path());
    let m = manifest(tmp.path());
    let (_, p, id) = data_partition(&m);
    let tier = replay_remote_tier(&load(tmp.path()), ReadMode::Buffered);
    let Some(Holding::Replayed(mp)) = tier.holding(id, p, 5) else {
        panic!("not replayed")
    };
    let log = tmp.path().join(format!(
        "logs-0/__remote_log_metadata-{mp}/00000000000000000000.log"
    ));
    // A second batch whose length runs past the end of the file.
    let mut bytes = std::fs::read(&log).unwrap();
    let first_len = u32::from_be_bytes(bytes[8..12].try_into().unwrap()) as usize + 12;
    bytes[first_len + 8..first_len + 12].copy_from_slice(&0x7fff_0000u32.to_be_bytes());
    std::fs::write(&log, &bytes).unwrap();
    let tier: RemoteTier = replay_remote_tier(&load(tmp.path()), ReadMode::Buffered);
    assert_eq!(tier.problems.len(), 1, "{:?}", tier.problems);
    assert_eq!(tier.problems[0].path, log);
    assert_eq!(tier.problems[0].metadata_partition, mp as i32);
    // What came before the damage is still replayed.
    assert_eq!(tier.partition(id, p).unwrap().segments.len(), 1);
}
