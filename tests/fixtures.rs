//! Every fixture under `fixtures/` (real Kafka 4.4 output, see `conformance/README.md`) parses
//! with no corruption or I/O findings, and logclean's figures equal what the broker reported
//! through its admin API (`manifest.json`). `LOGCLEAN_FIXTURES_DIR` points the same checks at
//! freshly made fixtures (`conformance/run` does this).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

mod support;
use support::fixtures_root;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use logclean::checks::finding::{FindingClass, Severity};
use logclean::checks::inspect::inspect_findings;
use logclean::model::log_dir::{load_log_dir, LogDir, Selection};
use logclean::model::segment::{LoadOptions, ScanDepth};
use logclean::model::units::Offset;
use logclean::rules::facts::TimestampSource;
use logclean::rules::recovery::recovery_on_next_start;
use serde_json::Value;

fn scenarios() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(fixtures_root())
        .expect("fixtures dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("manifest.json").is_file())
        // Three-node fixtures (issue 21; per-node dirs, one manifest entry per replica):
        // tests/cluster.rs.
        .filter(|p| !p.join("node-1").is_dir())
        .collect();
    out.sort();
    assert!(
        out.len() >= 10,
        "expected the 10 scenarios, found {}",
        out.len()
    );
    out
}

fn manifest(dir: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap()
}

fn load(dir: &Path, m: &Value, depth: ScanDepth) -> Vec<LogDir> {
    let opts = LoadOptions {
        depth,
        ..Default::default()
    };
    m["log_dirs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            load_log_dir(
                &dir.join(d.as_str().unwrap()),
                &Selection::default(),
                &opts,
                &|| {},
            )
            .unwrap()
        })
        .collect()
}

#[test]
fn fixtures_have_no_corruption_or_io_findings() {
    for dir in scenarios() {
        let m = manifest(&dir);
        let dirs = load(&dir, &m, ScanDepth::Verify);
        let findings = inspect_findings(&dirs);
        let bad: Vec<_> = findings
            .iter()
            .filter(|f| f.class != FindingClass::Condition || f.severity >= Severity::Warning)
            .collect();
        assert!(
            bad.is_empty(),
            "{}: unexpected findings: {bad:#?}",
            dir.display()
        );
        // Unclean shutdown is the only thing an info finding may say about the dir itself.
        let codes: BTreeSet<_> = findings.iter().map(|f| f.code).collect();
        let crashed = m["shutdown"] == "crash";
        assert_eq!(
            codes.contains("dir.unclean_shutdown"),
            crashed,
            "{}: {codes:?}",
            dir.display()
        );
    }
}

#[test]
fn figures_match_what_the_broker_reported() {
    let mut checked = 0;
    for dir in scenarios() {
        let m = manifest(&dir);
        let dirs = load(&dir, &m, ScanDepth::Headers);
        let clean = m["shutdown"] == "clean";
        for p in m["partitions"].as_array().unwrap() {
            let topic = p["topic"].as_str().unwrap();
            let partition = p["partition"].as_i64().unwrap() as i32;
            let log_dir = dir.join(p["log_dir"].as_str().unwrap());
            let ours = dirs
                .iter()
                .filter(|d| d.path == log_dir)
                .flat_map(|d| &d.partitions)
                .find(|q| {
                    q.name.as_ref().is_some_and(|n| {
                        n.topic == topic
                            && n.partition == partition
                            && n.state == logclean::model::names::PartitionDirState::Live
                    })
                })
                .unwrap_or_else(|| {
                    panic!(
                        "{}: {topic}-{partition} not found in {}",
                        dir.display(),
                        log_dir.display()
                    )
                });
            let what = format!("{} {topic}-{partition}", dir.display());
            let bases: Vec<i64> = ours.segments.iter().map(|s| s.base_offset.get()).collect();
            let expected: Vec<i64> = p["segments_on_disk"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_i64().unwrap())
                .collect();
            assert_eq!(bases, expected, "{what}: segment base offsets");
            // With an RSM that fails from the Nth copy (tiered-failed) the broker retries every
            // task run, three metadata records each, until it stops: after the capture too.
            let retrying = m["broker_config"]
                .get("rsm.config.fail.from.copy")
                .is_some()
                && topic == "__remote_log_metadata";
            if retrying {
                assert!(
                    ours.log_end_offset().map(Offset::get) >= p["log_end_offset"].as_i64(),
                    "{what}: log end offset below the broker's at capture"
                );
            } else {
                assert_eq!(
                    ours.log_end_offset().map(Offset::get),
                    p["log_end_offset"].as_i64(),
                    "{what}: log end offset"
                );
            }
            // A tiered partition's log start is the total one (remote included): the
            // checkpoint holds it and it normally lies below the first local segment, which
            // `log_start_offset` (the non-tiered rule: raised to the first base) does not model
            // yet (issue 19, a later phase). Its checkpoint entry must equal the broker's.
            let tiered = m["topics"].as_array().unwrap().iter().any(|t| {
                t["name"] == topic && t["configs"]["remote.storage.enable"]["value"] == "true"
            });
            if clean && tiered {
                assert_eq!(
                    ours.checkpoints.log_start_offset.map(Offset::get),
                    p["log_start_offset"].as_i64(),
                    "{what}: tiered log start offset (checkpoint)"
                );
            } else if clean {
                assert_eq!(
                    ours.log_start_offset().map(Offset::get),
                    p["log_start_offset"].as_i64(),
                    "{what}: log start offset"
                );
            }
            if clean && !retrying {
                assert_eq!(
                    ours.checkpoints.high_watermark.map(Offset::get),
                    p["high_watermark"].as_i64(),
                    "{what}: high watermark"
                );
                assert_eq!(
                    Some(ours.size().get() as i64),
                    p["size_bytes"].as_i64(),
                    "{what}: size"
                );
            }
            if let Some(snaps) = p["producer_snapshots_on_disk"].as_array() {
                let ours_snaps: Vec<i64> = ours.snapshots.iter().map(|s| s.offset).collect();
                let expected: Vec<i64> = snaps.iter().map(|v| v.as_i64().unwrap()).collect();
                assert_eq!(ours_snaps, expected, "{what}: producer snapshots");
            }
            if let Some(txn) = p["txnindex_on_disk"].as_array() {
                let ours_txn: Vec<i64> = ours
                    .segments
                    .iter()
                    .filter(|s| s.files.txn_index.is_some())
                    .map(|s| s.base_offset.get())
                    .collect();
                let expected: Vec<i64> = txn.iter().map(|v| v.as_i64().unwrap()).collect();
                assert_eq!(ours_txn, expected, "{what}: txn indexes");
            }
            checked += 1;
        }
    }
    assert!(checked > 30, "only {checked} partitions checked");
}

#[test]
fn tail_scan_agrees_with_full_scan() {
    for dir in scenarios() {
        let m = manifest(&dir);
        let tail = load(&dir, &m, ScanDepth::Tail);
        let full = load(&dir, &m, ScanDepth::Headers);
        for (t, f) in tail.iter().zip(&full) {
            let (t_plan, f_plan) = (recovery_on_next_start(t), recovery_on_next_start(f));
            for (((tp, fp), tr), fr) in t
                .partitions
                .iter()
                .zip(&f.partitions)
                .zip(&t_plan.partitions)
                .zip(&f_plan.partitions)
            {
                assert_eq!(
                    tp.log_end_offset(),
                    fp.log_end_offset(),
                    "{}",
                    tp.path.display()
                );
                for (ts, fs) in tp.segments.iter().zip(&fp.segments) {
                    let (tl, fl) = (ts.log_summary().unwrap(), fs.log_summary().unwrap());
                    assert_eq!(tl.next_offset, fl.next_offset, "{}", ts.base_offset);
                    assert_eq!(tl.first_batch, fl.first_batch);
                    assert_eq!(tl.last_batch, fl.last_batch);
                    assert_eq!(
                        ts.largest_timestamp_on_disk(),
                        fs.largest_timestamp_on_disk()
                    );
                    assert_eq!(tr.largest_timestamp(ts), fr.largest_timestamp(fs));
                }
            }
        }
    }
}

/// The largest timestamp logclean reports (Kafka's rule: last time-index entry, else mtime) is the
/// largest batch timestamp of every data segment the broker wrote, crashed active ones included.
#[test]
fn largest_timestamp_is_the_largest_batch_timestamp() {
    let mut checked = 0;
    for dir in scenarios() {
        let m = manifest(&dir);
        for d in load(&dir, &m, ScanDepth::Headers) {
            let plan = recovery_on_next_start(&d);
            for (p, recovery) in d
                .partitions
                .iter()
                .zip(&plan.partitions)
                .filter(|(p, _)| p.name.as_ref().is_some_and(|n| !n.is_metadata_log()))
            {
                if p.name
                    .as_ref()
                    .is_some_and(|n| n.state != logclean::model::names::PartitionDirState::Live)
                {
                    continue;
                }
                for s in &p.segments {
                    let Some(max) = s
                        .log_summary()
                        .and_then(|l| l.stats.as_ref())
                        .and_then(|st| st.max_timestamp)
                    else {
                        continue;
                    };
                    let (ts, source) = recovery.largest_timestamp(s).unwrap();
                    // Segments the broker recovers on start get their timestamp from the batches.
                    let expected_source = if recovery.recovers(s) {
                        TimestampSource::Recovered
                    } else {
                        TimestampSource::TimeIndex
                    };
                    assert_eq!(source, expected_source, "{}", p.path.display());
                    assert_eq!(ts, max, "{} segment {}", p.path.display(), s.base_offset);
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100, "{checked}");
}
