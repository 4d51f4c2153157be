//! Every finding code logclean emits, made to fire on a copy of a real Kafka 4.4 fixture that is
//! damaged or re-labelled the least way that makes the broker-relevant condition true, and shown
//! absent on an undamaged fixture where that condition does not hold.
//!
//! The one table is [`CASES`] (built by `cases!`): code, severity, exit code, the fixture and
//! command, the damage in words and as a function, and the healthy fixture. Each row becomes its
//! own test in `fires::`; `no_code_fires_on_its_healthy_fixture` checks every row's healthy side;
//! `docs_and_table_name_the_same_codes` keeps the table and docs/findings.md's finding table in step,
//! so a new code without a firing test breaks the build.
//!
//! Only `findings[].code`, `findings[].severity` and the exit code are read, so the tests survive
//! changes to the rest of the JSON document. Every run of the binary goes through
//! `prlimit --as` (1 GiB plus the largest file in the copy, which a memory map may take whole) to
//! show that memory stays bounded; without `prlimit` the runs are uncapped and a note says so.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code: a panic is a failed test

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Address-space cap for every run, on top of the largest file in the copy.
use support::MEMORY_CAP_BYTES;

mod support;
use support::scratch::{clone_partition, copy_dir_readable};

/// A `-delete`/`-future`/`-stray` dir suffix uid (32 hex digits, as the broker writes it).
const UID: &str = "0f1e2d3c4b5a69788796a5b4c3d2e1f0";

/// One finding code and how it is made to fire.
struct Case {
    /// The finding code.
    code: &'static str,
    /// Its severity in the damaged run.
    severity: &'static str,
    /// The exit code of the damaged run.
    exit: i32,
    /// The fixture copied (`fixtures/<name>`; the run's working dir is the copy).
    fixture: &'static str,
    /// Arguments after `--format json --no-progress`, relative to the copy.
    args: &'static [&'static str],
    /// Run as an unprivileged user (root reads any file).
    unprivileged: bool,
    /// The damage, in words.
    how: &'static str,
    /// The damage, applied to the copy.
    damage: fn(&Path),
    /// The fixture whose undamaged copy must not show the code.
    healthy: &'static str,
    /// Arguments for the healthy run when they differ from `args`.
    healthy_args: Option<&'static [&'static str]>,
}

/// `None`, or the healthy run's own arguments.
macro_rules! healthy_args {
    () => {
        None
    };
    ([$($arg:literal),*]) => {
        Some(&[$($arg),*])
    };
}

macro_rules! cases {
    ($(
        $name:ident: $code:literal, $severity:literal, exit $exit:literal,
        $fixture:literal [$($arg:literal),*] $(unprivileged $unpriv:literal)?,
        $how:literal, $damage:expr,
        healthy $healthy:literal $([$($harg:literal),*])?;
    )*) => {
        /// Every finding code with its trigger (see the module docs).
        const CASES: &[Case] = &[$(Case {
            code: $code,
            severity: $severity,
            exit: $exit,
            fixture: $fixture,
            args: &[$($arg),*],
            unprivileged: false $(|| $unpriv)?,
            how: $how,
            damage: $damage,
            healthy: $healthy,
            healthy_args: healthy_args!($([$($harg),*])?),
        }),*];

        /// One test per code: the damaged copy shows it.
        mod fires {
            $(
                #[test]
                fn $name() {
                    super::check_fires(super::case($code));
                }
            )*
        }
    };
}

cases! {
    // --- io -------------------------------------------------------------------------------
    file_unreadable: "file.unreadable", "error", exit 3,
        "basic-delete" ["inspect", "logs-0"] unprivileged true,
        "orders-0/00000000000000000004.log mode 000; logclean runs as nobody when root",
        |d| {
            let mode = fs::Permissions::from_mode(0o000);
            fs::set_permissions(seg(d, "orders-0", 4, "log"), mode).unwrap();
        },
        healthy "basic-delete";
    // --- log dir root -----------------------------------------------------------------------
    file_corrupt: "file.corrupt", "error", exit 2,
        "basic-delete" ["inspect", "logs-0"],
        "recovery-point-offset-checkpoint torn in its second entry line (a write without \
         tmp+rename)",
        |d| cut_after(&d.join("logs-0/recovery-point-offset-checkpoint"), "0\n3\nsized 0 24\nord"),
        healthy "basic-delete";
    dir_no_meta_properties: "dir.no_meta_properties", "warning", exit 1,
        "basic-delete" ["inspect", "logs-1"],
        "logs-1/meta.properties removed",
        |d| fs::remove_file(d.join("logs-1/meta.properties")).unwrap(),
        healthy "basic-delete";
    dir_unclean_shutdown: "dir.unclean_shutdown", "info", exit 0,
        "unclean-shutdown" ["inspect", "logs-0"],
        "none: the broker was killed, so the real fixture has no .kafka_cleanshutdown",
        |_| {},
        healthy "basic-delete";
    dir_leftover_tmp: "dir.leftover_tmp", "warning", exit 1,
        "basic-delete" ["inspect", "logs-0"],
        "recovery-point-offset-checkpoint.tmp beside the checkpoint (write interrupted before its \
         rename)",
        |d| {
            let name = "recovery-point-offset-checkpoint";
            copy_as(&d.join("logs-0"), name, &format!("{name}.tmp"));
        },
        healthy "basic-delete";
    dir_unknown_file: "dir.unknown_file", "warning", exit 1,
        "basic-delete" ["inspect", "logs-0"],
        "meta.properties.bak (an operator's backup) in the log dir root",
        |d| copy_as(&d.join("logs-0"), "meta.properties", "meta.properties.bak"),
        healthy "basic-delete";
    // --- partition dirs ---------------------------------------------------------------------
    partition_leftover_tmp: "partition.leftover_tmp", "warning", exit 1,
        "basic-delete" ["inspect", "logs-0"],
        "orders-0/leader-epoch-checkpoint.tmp (write interrupted before its rename)",
        |d| {
            let name = "leader-epoch-checkpoint";
            copy_as(&d.join("logs-0/orders-0"), name, &format!("{name}.tmp"));
        },
        healthy "basic-delete";
    partition_unknown_file: "partition.unknown_file", "warning", exit 1,
        "basic-delete" ["inspect", "logs-0"],
        "orders-0/00000000000000000004.log.bak (an operator's backup of a segment)",
        |d| {
            let name = "00000000000000000004.log";
            copy_as(&d.join("logs-0/orders-0"), name, &format!("{name}.bak"));
        },
        healthy "basic-delete";
    partition_bad_dir_name: "partition.bad_dir_name", "error", exit 1,
        "basic-delete" ["inspect", "logs-0"],
        "orders-2 copied to orders-2.bak (the broker cannot parse `2.bak` as a partition)",
        |d| copy_dir_readable(&d.join("logs-0/orders-2"), &d.join("logs-0/orders-2.bak")),
        healthy "basic-delete";
    partition_pending_delete: "partition.pending_delete", "info", exit 0,
        "kraft-metadata" ["inspect", "logs-0"],
        "none: the real fixture holds kt-gamma-0.<uid>-delete of a deleted topic",
        |_| {},
        healthy "basic-delete";
    partition_future_replica: "partition.future_replica", "info", exit 0,
        "basic-delete" ["inspect", "logs-0", "logs-1"],
        "logs-0/orders-2 copied to logs-1/orders-2.<uid>-future (an unfinished alter-log-dirs \
         move)",
        |d| copy_dir_readable(&d.join("logs-0/orders-2"), &d.join(format!("logs-1/orders-2.{UID}-future"))),
        healthy "basic-delete";
    partition_stray: "partition.stray", "warning", exit 1,
        "basic-delete" ["inspect", "logs-0"],
        "orders-2 renamed orders-2.<uid>-stray (the broker set the replica aside)",
        |d| rename(&d.join("logs-0"), "orders-2", &format!("orders-2.{UID}-stray")),
        healthy "basic-delete";
    partition_no_topic_id: "partition.no_topic_id", "warning", exit 1,
        "basic-delete" ["inspect", "logs-0"],
        "orders-2/partition.metadata removed",
        |d| fs::remove_file(d.join("logs-0/orders-2/partition.metadata")).unwrap(),
        healthy "basic-delete";
    partition_leftover_deleted: "partition.leftover_deleted", "info", exit 0,
        "compacted" ["inspect", "logs-0"],
        "none: the real fixture holds the cleaner's *.deleted segments",
        |_| {},
        healthy "basic-delete";
    partition_leftover_swap: "partition.leftover_swap", "warning", exit 1,
        "compacted" ["inspect", "logs-0"],
        "compacted-0/00000000000000000000.log.swap, a copy of the cleaned segment (compaction \
         interrupted mid-swap)",
        |d| {
            let name = "00000000000000000000.log";
            copy_as(&d.join("logs-0/compacted-0"), name, &format!("{name}.swap"));
        },
        healthy "compacted";
    partition_hw_beyond_log_end: "partition.hw_beyond_log_end", "warning", exit 1,
        "basic-delete" ["inspect", "logs-0"],
        "replication-offset-checkpoint: orders 0 high watermark 36 -> 40 (log end 36)",
        |d| {
            let path = d.join("logs-0/replication-offset-checkpoint");
            replace_text(&path, "orders 0 36", "orders 0 40");
        },
        healthy "basic-delete";
    partition_log_start_beyond_end: "partition.log_start_beyond_end", "error", exit 1,
        "basic-delete" ["inspect", "logs-0"],
        "log-start-offset-checkpoint: entry orders 0 40 added (log end 36)",
        |d| {
            let path = d.join("logs-0/log-start-offset-checkpoint");
            replace_text(&path, "0\n0\n", "0\n1\norders 0 40\n");
        },
        healthy "basic-delete";
    partition_duplicate: "partition.duplicate", "error", exit 1,
        "basic-delete" ["inspect", "logs-0", "logs-1"],
        "logs-0/orders-2 copied to logs-1/orders-2 (a move that left both copies live)",
        |d| copy_dir_readable(&d.join("logs-0/orders-2"), &d.join("logs-1/orders-2")),
        healthy "basic-delete";
    // --- several brokers' dirs (issue 21) ---------------------------------------------------
    partition_hw_held_under_min_isr: "partition.hw_held_under_min_isr", "warning", exit 1,
        "rf3-stuck-hw" ["diagnose", "node-1/logs-0", "node-2/logs-0", "node-3/logs-0", "--now",
            "2026-12-02T05:50:00Z"],
        "none: the real three-node fixture (ISR [1] under min.insync.replicas 2, acks=1 writes to 8, HW 4)",
        |_| {},
        healthy "rf3-retention" ["diagnose", "node-1/logs-0", "node-2/logs-0", "node-2/logs-1",
            "node-3/logs-0", "--now", "2026-12-02T05:48:00Z"];
    partition_replicas_diverge: "partition.replicas_diverge", "warning", exit 1,
        "rf3-retention" ["diagnose", "node-1/logs-0", "node-2/logs-0", "node-2/logs-1",
            "node-3/logs-0", "--now", "2026-12-02T05:48:00Z"],
        "node-2/logs-1/orders-0: the newest segment 18 removed (log end 18, below the HW 20; node 2 is in the ELR)",
        |d| {
            for ext in ["log", "index", "timeindex", "snapshot"] {
                let p = d.join(format!("node-2/logs-1/orders-0/{:020}.{ext}", 18));
                if p.exists() {
                    fs::remove_file(p).unwrap();
                }
            }
        },
        healthy "rf3-retention";
    // --- producer snapshots and segments ----------------------------------------------------
    // The broker deletes it and rebuilds producer state: no action, so info and exit 0.
    snapshot_crc_mismatch: "snapshot.crc_mismatch", "info", exit 0,
        "basic-delete" ["inspect", "logs-0"],
        "orders-0/00000000000000000004.snapshot: one bit of the stored CRC-32C (byte 2) flipped",
        |d| edit(&seg(d, "orders-0", 4, "snapshot"), |b| b[2] ^= 0x01),
        healthy "basic-delete";
    segment_orphan_index: "segment.orphan_index", "info", exit 0,
        "basic-delete" ["inspect", "logs-0"],
        "orders-0/00000000000000000000.log removed, its .index and .timeindex kept (a delete cut \
         short)",
        |d| fs::remove_file(seg(d, "orders-0", 0, "log")).unwrap(),
        healthy "basic-delete";
    // --- .log ---------------------------------------------------------------------------------
    log_corrupt_batch: "log.corrupt_batch", "error", exit 2,
        "basic-delete" ["inspect", "logs-0"],
        "orders-0/00000000000000000004.log: batchLength of the second batch set to 5 (below \
         Kafka's 14-byte minimum)",
        |d| edit(&seg(d, "orders-0", 4, "log"), |b| {
            let p = batch_positions(b)[1];
            b[p + 8..p + 12].copy_from_slice(&5i32.to_be_bytes());
        }),
        healthy "basic-delete";
    log_truncated_tail: "log.truncated_tail", "error", exit 2,
        "basic-delete" ["inspect", "logs-0"],
        "orders-0/00000000000000000004.log: last 10 bytes cut off (clean shutdown: no recovery, \
         so an error)",
        |d| edit(&seg(d, "orders-0", 4, "log"), |b| b.truncate(b.len() - 10)),
        healthy "basic-delete";
    log_zero_filled_tail: "log.zero_filled_tail", "error", exit 2,
        "basic-delete" ["inspect", "logs-0"],
        "orders-0 active segment 00000000000000000032.log: 4096 zero bytes appended \
         (preallocation left over)",
        |d| edit(&seg(d, "orders-0", 32, "log"), |b| b.extend_from_slice(&[0u8; 4096])),
        healthy "basic-delete";
    log_too_large: "log.too_large", "error", exit 2,
        "basic-delete" ["inspect", "logs-0"],
        "orders-0 active segment 00000000000000000032.log: one non-zero byte after its data, then \
         extended \
         (sparse) past 2 GiB; the byte ends the walk at once, so it also shows log.corrupt_batch",
        too_large_segment,
        healthy "basic-delete";
    log_verify_failed: "log.verify_failed", "error", exit 2,
        "basic-delete" ["inspect", "--verify", "logs-0"],
        "orders-0/00000000000000000004.log: one bit inside the second batch's records flipped \
         (CRC mismatch)",
        |d| edit(&seg(d, "orders-0", 4, "log"), |b| {
            let p = batch_positions(b)[1];
            b[p + 70] ^= 0x40;
        }),
        healthy "basic-delete";
    log_offset_below_base: "log.offset_below_base", "error", exit 2,
        "basic-delete" ["inspect", "logs-0"],
        "orders-0 segment 4 (.log, .index, .timeindex) renamed to base offset 5",
        |d| rebase_segment(d, "orders-0", 4, 5),
        healthy "basic-delete";
    log_overlapping_segments: "log.overlapping_segments", "error", exit 2,
        "basic-delete" ["inspect", "logs-0"],
        "orders-0 segment 4 (.log, .index, .timeindex) renamed to base offset 2 (segment 0 ends \
         at 4)",
        |d| rebase_segment(d, "orders-0", 4, 2),
        healthy "basic-delete";
    // --- offset and time indexes --------------------------------------------------------------
    // The broker rebuilds it: no action, so info and exit 0.
    index_missing: "index.missing", "info", exit 0,
        "basic-delete" ["inspect", "logs-0"],
        "orders-0/00000000000000000004.index removed",
        |d| fs::remove_file(seg(d, "orders-0", 4, "index")).unwrap(),
        healthy "basic-delete";
    timeindex_missing: "timeindex.missing", "warning", exit 1,
        "basic-delete" ["inspect", "logs-0"],
        "orders-0/00000000000000000004.timeindex removed",
        |d| fs::remove_file(seg(d, "orders-0", 4, "timeindex")).unwrap(),
        healthy "basic-delete";
    index_sanity_failed: "index.sanity_failed", "error", exit 2,
        "future-timestamps" ["inspect", "logs-0"],
        "ft-0/00000000000000000007.index: the first 4 bytes of an entry appended (length not a \
         multiple of 8)",
        |d| edit(&seg(d, "ft-0", 7, "index"), |b| {
            let half = b[..4].to_vec();
            b.extend_from_slice(&half);
        }),
        healthy "future-timestamps";
    timeindex_sanity_failed: "timeindex.sanity_failed", "error", exit 2,
        "basic-delete" ["inspect", "logs-0"],
        "orders-0/00000000000000000004.timeindex: the first 6 bytes of its entry appended (length \
         not a multiple of 12)",
        |d| edit(&seg(d, "orders-0", 4, "timeindex"), |b| {
            let half = b[..6].to_vec();
            b.extend_from_slice(&half);
        }),
        healthy "basic-delete";
    index_zero_tail: "index.zero_tail", "error", exit 2,
        "future-timestamps" ["inspect", "logs-0"],
        "ft-0/00000000000000000007.index (rolled): 10 zero slots appended (preallocation not \
         trimmed)",
        |d| edit(&seg(d, "ft-0", 7, "index"), |b| b.extend_from_slice(&[0u8; 80])),
        healthy "future-timestamps";
    timeindex_zero_tail: "timeindex.zero_tail", "error", exit 2,
        "basic-delete" ["inspect", "logs-0"],
        "orders-0/00000000000000000004.timeindex (rolled): 5 zero slots appended (preallocation \
         not trimmed)",
        |d| edit(&seg(d, "orders-0", 4, "timeindex"), |b| b.extend_from_slice(&[0u8; 60])),
        healthy "basic-delete";
    timeindex_empty: "timeindex.empty", "warning", exit 1,
        "basic-delete" ["inspect", "logs-0"],
        "orders-0/00000000000000000004.timeindex (rolled) truncated to 0 bytes",
        |d| edit(&seg(d, "orders-0", 4, "timeindex"), Vec::clear),
        healthy "basic-delete";
    index_bad_entries: "index.bad_entries", "error", exit 2,
        "future-timestamps" ["inspect", "logs-0"],
        "ft-0/00000000000000000007.index: entries 2 and 3 swapped",
        |d| edit(&seg(d, "ft-0", 7, "index"), |b| swap_entries(b, 8, 2, 3)),
        healthy "future-timestamps";
    timeindex_bad_entries: "timeindex.bad_entries", "error", exit 2,
        "future-timestamps" ["inspect", "logs-0"],
        "ft-0/00000000000000000000.timeindex: entries 2 and 3 swapped",
        |d| edit(&seg(d, "ft-0", 0, "timeindex"), |b| swap_entries(b, 12, 2, 3)),
        healthy "future-timestamps";
    index_disagrees_with_log: "index.disagrees_with_log", "error", exit 2,
        "future-timestamps" ["inspect", "logs-0"],
        "ft-0/00000000000000000007.index: position of its last entry (the one the broker reads on \
         load) \
         moved one byte on, off the batch start",
        |d| edit(&seg(d, "ft-0", 7, "index"), |b| {
            let at = b.len() - 4;
            let pos = i32::from_be_bytes(b[at..].try_into().unwrap());
            b[at..].copy_from_slice(&(pos + 1).to_be_bytes());
        }),
        healthy "future-timestamps";
    timeindex_disagrees_with_log: "timeindex.disagrees_with_log", "warning", exit 2,
        "basic-delete" ["inspect", "logs-0"],
        "orders-0/00000000000000000004.timeindex: its one entry's timestamp 1 ms earlier than the \
         largest batch timestamp",
        |d| edit(&seg(d, "orders-0", 4, "timeindex"), |b| {
            let ts = i64::from_be_bytes(b[..8].try_into().unwrap());
            b[..8].copy_from_slice(&(ts - 1).to_be_bytes());
        }),
        healthy "basic-delete";
    txnindex_corrupt: "txnindex.corrupt", "error", exit 2,
        "transactions" ["inspect", "logs-0"],
        "txn-0/00000000000000000004.txnindex: version byte of the first entry set to 1 (Kafka \
         throws on iteration)",
        |d| edit(&seg(d, "txn-0", 4, "txnindex"), |b| b[0] = 1),
        healthy "transactions";
    // --- config: metadata log and topic ids -----------------------------------------------------
    metadata_missing: "metadata.missing", "warning", exit 1,
        "basic-delete" ["config", "logs-1"],
        "none: logs-1 of the real two-dir broker holds no __cluster_metadata-0 (logs-0 does)",
        |_| {},
        healthy "basic-delete" ["config", "logs-0", "logs-1"];
    metadata_records_lost: "metadata.records_lost", "error", exit 1,
        "kraft-metadata" ["inspect", "logs-0"],
        "__cluster_metadata-0/00000000000000000000.log removed: its producer snapshot (68), \
         .index and .timeindex (57) go past the newest snapshot (60)",
        |d| fs::remove_file(d.join("logs-0/__cluster_metadata-0/00000000000000000000.log"))
            .unwrap(),
        healthy "kraft-metadata";
    metadata_problem: "metadata.problem", "warning", exit 1,
        "kraft-metadata" ["config", "logs-0"],
        "__cluster_metadata-0/00000000000000000000.log cut inside its last batch (offset 67, \
         after the latest snapshot)",
        |d| edit(&d.join("logs-0/__cluster_metadata-0/00000000000000000000.log"), |b| {
            let last = *batch_positions(b).last().unwrap();
            b.truncate(last + 30);
        }),
        healthy "kraft-metadata";
    partition_topic_id_mismatch: "partition.topic_id_mismatch", "error", exit 1,
        "kraft-metadata" ["config", "logs-0"],
        "kt-beta-0/partition.metadata copied over kt-alpha-1/partition.metadata",
        |d| {
            let d = d.join("logs-0");
            let (from, to) = ("kt-beta-0/partition.metadata", "kt-alpha-1/partition.metadata");
            fs::copy(d.join(from), d.join(to)).unwrap();
        },
        healthy "kraft-metadata";
    partition_unknown_topic_id: "partition.unknown_topic_id", "warning", exit 1,
        "kraft-metadata" ["config", "logs-0"],
        "kt-gamma-0.<uid>-delete of the deleted topic renamed back to a live kt-gamma-0",
        |d| {
            let d = d.join("logs-0");
            let del = fs::read_dir(&d)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .find(|n| n.starts_with("kt-gamma-0.") && n.ends_with("-delete"))
                .unwrap();
            rename(&d, &del, "kt-gamma-0");
        },
        healthy "kraft-metadata";
    // --- config: values ------------------------------------------------------------------------
    config_unknown_topic: "config.unknown_topic", "warning", exit 1,
        "kraft-metadata" ["config", "logs-0", "--topic", "kt-gamma"],
        "none: --topic kt-gamma, a topic the metadata log records as deleted",
        |_| {},
        healthy "kraft-metadata" ["config", "logs-0", "--topic", "kt-alpha"];
    config_ignored_dynamic: "config.ignored_dynamic", "info", exit 0,
        "kraft-metadata" ["config", "logs-0"],
        "metadata log and snapshots: broker 1's dynamic key log.retention.bytes re-labelled \
         log.retention.hours (not dynamic), batch CRCs recomputed",
        |d| relabel_metadata(d, "log.retention.bytes", "log.retention.hours"),
        healthy "kraft-metadata";
    config_unknown_key: "config.unknown_key", "warning", exit 1,
        "kraft-metadata" ["config", "logs-0"],
        "metadata log and snapshots: kt-alpha's override segment.ms re-labelled segmnet.ms \
         (a typo), batch CRCs recomputed",
        |d| relabel_metadata(d, "segment.ms", "segmnet.ms"),
        healthy "kraft-metadata";
    config_invalid_value: "config.invalid_value", "warning", exit 1,
        "kraft-metadata" ["config", "--server-properties", "server.properties", "logs-0"],
        "server.properties: log.segment.bytes=1gb appended (not an int)",
        |d| edit(&d.join("server.properties"), |b| b.extend_from_slice(b"log.segment.bytes=1gb\n")),
        healthy "kraft-metadata";
    config_removed_key: "config.removed_key", "warning", exit 1,
        "kraft-metadata" ["config", "--server-properties", "server.properties", "logs-0"],
        "server.properties: log.message.timestamp.difference.max.ms=1000 appended (removed in \
         Kafka 4.0, KIP-937)",
        |d| edit(&d.join("server.properties"), |b| {
            b.extend_from_slice(b"log.message.timestamp.difference.max.ms=1000\n")
        }),
        healthy "kraft-metadata";
    config_zookeeper_mode: "config.zookeeper_mode", "info", exit 0,
        "basic-delete" ["config", "logs-0"],
        "re-labelled as a ZooKeeper-mode (3.x) dir: meta.properties version=0 + broker.id, no \
         partition.metadata, no __cluster_metadata-0",
        |d| zookeeper_relabel(&d.join("logs-0")),
        healthy "basic-delete" ["config", "logs-0", "logs-1"];
    dir_cluster_mismatch: "dir.cluster_mismatch", "error", exit 1,
        "basic-delete" ["config", "logs-0", "logs-1"],
        "logs-1/meta.properties: cluster.id replaced by another cluster's",
        |d| replace_text(&d.join("logs-1/meta.properties"), "TG9nQ2xlYW5GaXh0dXJlcw", "T3RoZXJDbHVzdGVyMDAwMA"),
        healthy "basic-delete";
    partition_missing_replica: "partition.missing_replica", "warning", exit 1,
        "kraft-metadata" ["config", "logs-0"],
        "kt-alpha-1 removed: the metadata log still assigns it to this broker",
        |d| fs::remove_dir_all(d.join("logs-0/kt-alpha-1")).unwrap(),
        healthy "kraft-metadata";
    // --- groups ---------------------------------------------------------------------------
    group_behind_log_start: "group.behind_log_start", "warning", exit 1,
        "consumer-groups" ["groups", "logs-0", "--now", "2026-12-01T08:04:00Z"],
        "log-start-offset-checkpoint: events 0 4 (as DeleteRecords would leave it); g-behind is at 1",
        |d| fs::write(d.join("logs-0/log-start-offset-checkpoint"), "0\n1\nevents 0 4\n").unwrap(),
        healthy "consumer-groups";
    group_loses_data_next_retention: "group.loses_data_next_retention", "warning", exit 1,
        "consumer-groups" ["groups", "logs-0", "--now", "2026-12-01T11:04:00Z"],
        "none: at the base time retention.ms=6h deletes events up to offset 12; g-behind and \
         g-stale are below it",
        |_| {},
        healthy "consumer-groups" ["groups", "logs-0", "--now", "2026-12-01T08:04:00Z"];
    group_offsets_expire: "group.offsets_expire", "warning", exit 1,
        "consumer-groups" ["groups", "logs-0", "--now", "2026-12-09T00:00:00Z"],
        "none: --now past the commits + offsets.retention.minutes (7 days) of the empty groups",
        |_| {},
        healthy "consumer-groups" ["groups", "logs-0", "--now", "2026-12-01T08:04:00Z"];
    group_wrong_partition: "group.wrong_partition", "warning", exit 1,
        "consumer-groups" ["groups", "logs-0", "--now", "2026-12-01T08:04:00Z"],
        "__consumer_offsets-0 (g-behind, g-stale) renamed to __consumer_offsets-2 (the empty one \
         removed)",
        |d| {
            fs::remove_dir_all(d.join("logs-0/__consumer_offsets-2")).unwrap();
            rename(&d.join("logs-0"), "__consumer_offsets-0", "__consumer_offsets-2");
        },
        healthy "consumer-groups" ["groups", "logs-0", "--now", "2026-12-01T08:04:00Z"];
    group_bad_record: "group.bad_record", "error", exit 2,
        "consumer-groups" ["groups", "logs-0", "--now", "2026-12-01T08:04:00Z"],
        "__consumer_offsets-1: the group id length of g-current's offset key set to 127 (past \
         the key), batch CRCs recomputed",
        |d| edit(&d.join("logs-0/__consumer_offsets-1/00000000000000000000.log"), |b| {
            let i = b.windows(13).position(|w| w == b"\x00\x01\x00\x09g-current").unwrap();
            b[i + 3] = 0x7f;
            fix_batch_crcs(b);
        }),
        healthy "consumer-groups" ["groups", "logs-0", "--now", "2026-12-01T08:04:00Z"];
    // --- transactions -----------------------------------------------------------------------
    txn_hanging: "txn.hanging", "error", exit 1,
        "transactions" ["transactions", "logs-0", "--server-properties", "server.properties", "--now", "2026-12-01T14:04:00Z"],
        "__transaction_state-0 (tx-open's state) emptied: the coordinator no longer knows the \
         transaction open on txn-compacted-0 since base-2h, past transaction.max.timeout.ms 2h",
        |d| fs::write(d.join("logs-0/__transaction_state-0/00000000000000000000.log"), b"").unwrap(),
        healthy "transactions";
    txn_open_long: "txn.open_long", "warning", exit 1,
        "transactions" ["transactions", "logs-0", "--server-properties", "server.properties", "--now", "2026-12-01T11:04:00Z"],
        "none: at the base time tx-open's transaction has been open 2 h, past its 1 h timeout",
        |_| {},
        healthy "transactions" ["transactions", "logs-0", "--server-properties", "server.properties", "--now", "2026-12-01T09:34:00Z"];
    // --- plan -------------------------------------------------------------------------------
    plan_retains_expired: "plan.retains_expired", "warning", exit 0,
        "future-timestamps" ["plan", "logs-0", "--at", "2026-11-30T13:33:04Z"],
        "none: segments 27 and 34 are past retention.ms but kept behind the far-future segment 14",
        |_| {},
        healthy "basic-delete" ["plan", "logs-0", "logs-1", "--server-properties",
            "server.properties", "--at", "2026-11-30T13:32:33Z"];
    plan_future_timestamp_blocks: "plan.future_timestamp_blocks", "warning", exit 0,
        "future-timestamps" ["plan", "logs-0", "--at", "2026-11-30T13:33:04Z"],
        "none: segment 14 holds a record stamped base+365d",
        |_| {},
        healthy "basic-delete" ["plan", "logs-0", "logs-1", "--server-properties",
            "server.properties", "--at", "2026-11-30T13:32:33Z"];
    plan_compaction_blocked: "plan.compaction_blocked", "warning", exit 0,
        "compacted" ["plan", "logs-0", "--server-properties", "server.properties", "--at",
            "2026-11-30T13:42:20Z"],
        "server.properties: log.cleaner.enable=false appended (no cleaner thread runs)",
        |d| {
            let p = d.join("server.properties");
            let text = fs::read_to_string(&p).unwrap();
            fs::write(&p, format!("{text}\nlog.cleaner.enable=false\n")).unwrap();
        },
        healthy "compacted";
    // --- tiered storage (Kafka 4.4 with the harness's RemoteStorageManager) ------------------
    tiered_upload_stalled: "tiered.upload_stalled", "error", exit 1,
        "tiered-stalled" ["diagnose", "logs-0", "--server-properties", "server.properties",
            "--now", "2026-12-02T04:00:00Z"],
        "none: the RemoteStorageManager hung on its 4th copy (segment 12 of ts-0) at capture",
        |_| {},
        healthy "tiered-uploaded" ["diagnose", "logs-0", "--server-properties",
            "server.properties", "--now", "2026-12-02T04:00:00Z"];
    tiered_upload_failing: "tiered.upload_failing", "error", exit 1,
        "tiered-failed" ["diagnose", "logs-0", "--server-properties", "server.properties",
            "--now", "2026-12-02T14:00:00Z"],
        "none: the RemoteStorageManager failed every copy of segment 12 of tf-0 from its 4th on",
        |_| {},
        healthy "tiered-stalled" ["diagnose", "logs-0", "--server-properties",
            "server.properties", "--now", "2026-12-02T04:00:00Z"];
    tiered_index_cache_size: "tiered.index_cache_size", "info", exit 1,
        "tiered-metadata-elsewhere" ["diagnose", "logs-0", "logs-1", "--server-properties",
            "server.properties", "--now", "2026-12-02T14:00:00Z"],
        "none: a consumer's reads from offset 0 left 15 index files in \
         logs-0/remote-log-index-cache/",
        |_| {},
        healthy "tiered-uploaded" ["diagnose", "logs-0", "--server-properties",
            "server.properties", "--now", "2026-12-02T04:00:00Z"];
    tiered_local_over_limit: "tiered.local_over_limit", "warning", exit 1,
        "tiered-stalled" ["diagnose", "logs-0", "--server-properties", "server.properties",
            "--now", "2026-12-02T04:00:00Z"],
        "none: ts-0 keeps 2322 B locally over local.retention.bytes=1000 (not uploaded)",
        |_| {},
        healthy "tiered-uploaded" ["diagnose", "logs-0", "--server-properties",
            "server.properties", "--now", "2026-12-02T04:00:00Z"];
    tiered_upload_blocked_by_transaction: "tiered.upload_blocked_by_transaction", "warning", exit 1,
        "tiered-open-txn" ["diagnose", "logs-0", "--server-properties", "server.properties",
            "--now", "2026-12-02T04:00:00Z"],
        "none: the fixture's open transaction on tt-0 holds the last stable offset at 9",
        |_| {},
        healthy "tiered-uploaded" ["diagnose", "logs-0", "--server-properties",
            "server.properties", "--now", "2026-12-02T04:00:00Z"];
    tiered_upload_state_unknown: "tiered.upload_state_unknown", "info", exit 0,
        "tiered-stalled" ["plan", "logs-0", "--server-properties", "server.properties",
            "--at", "2026-12-02T04:00:00Z"],
        "logs-0/__remote_log_metadata-2 (the metadata partition of ts-0) removed",
        |d| fs::remove_dir_all(d.join("logs-0/__remote_log_metadata-2")).unwrap(),
        healthy "tiered-stalled" ["plan", "logs-0", "--server-properties", "server.properties",
            "--at", "2026-12-02T04:00:00Z"];
    tiered_system_disabled: "tiered.system_disabled", "warning", exit 1,
        "tiered-uploaded" ["diagnose", "logs-0", "--server-properties", "server.properties",
            "--now", "2026-12-02T04:00:00Z"],
        "server.properties: remote.log.storage.system.enable=false appended",
        |d| {
            let p = d.join("server.properties");
            let text = fs::read_to_string(&p).unwrap();
            fs::write(&p, format!("{text}\nremote.log.storage.system.enable=false\n")).unwrap();
        },
        healthy "tiered-uploaded" ["diagnose", "logs-0", "--server-properties",
            "server.properties", "--now", "2026-12-02T04:00:00Z"];
    group_share_state_prune_blocked: "group.share_state_prune_blocked", "warning", exit 1,
        "internal-topics" ["diagnose", "logs-0", "--server-properties", "server.properties",
            "--now", "2026-12-02T10:00:00Z"],
        "server.properties: share.coordinator.cold.partition.snapshot.interval.ms=1000 appended \
         (group auditors' snapshot is ~20 s older than the coordinator's newest write)",
        |d| {
            let p = d.join("server.properties");
            let text = fs::read_to_string(&p).unwrap();
            fs::write(
                &p,
                format!("{text}\nshare.coordinator.cold.partition.snapshot.interval.ms=1000\n"),
            )
            .unwrap();
        },
        healthy "kraft-metadata" ["diagnose", "logs-0", "--server-properties",
            "server.properties", "--now", "2026-12-02T10:00:00Z"];
    metadata_log_redundant: "metadata.log_redundant", "info", exit 0,
        "internal-topics" ["diagnose", "logs-0", "--server-properties", "server.properties",
            "--now", "2026-12-02T10:00:00Z"],
        "none: the metadata log rolled every 5 s below snapshots taken every 5 s",
        |_| {},
        healthy "kraft-metadata" ["diagnose", "logs-0", "--server-properties",
            "server.properties", "--now", "2026-12-02T10:00:00Z"];
    metadata_snapshot_stale: "metadata.snapshot_stale", "warning", exit 1,
        "internal-topics" ["diagnose", "logs-0", "--server-properties", "server.properties",
            "--now", "2026-12-02T10:00:00Z"],
        "every __cluster_metadata-0 snapshot after the first the node wrote removed: the log \
         runs ~40 s past it, with snapshots due every 5 s",
        |d| {
            let dir = d.join("logs-0/__cluster_metadata-0");
            let mut snaps: Vec<_> = fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "checkpoint"))
                .collect();
            snaps.sort();
            for p in &snaps[2..] {
                fs::remove_file(p).unwrap();
            }
        },
        healthy "internal-topics";
    tiered_metadata_topic_unbounded: "tiered.metadata_topic_unbounded", "warning", exit 1,
        "tiered-remote-retention" ["diagnose", "logs-0", "--server-properties",
            "server.properties", "--now", "2026-12-02T04:00:00Z"],
        "none: __remote_log_metadata keeps retention.ms=-1 while the tiered topic's retention \
         is finite",
        |_| {},
        healthy "kraft-metadata" ["diagnose", "logs-0", "--server-properties",
            "server.properties", "--now", "2026-12-02T04:00:00Z"];
    dir_not_a_log_dir: "dir.not_a_log_dir", "error", exit 1,
        "basic-delete" ["inspect", "."],
        "none: the fixture's root (no meta.properties) holds the log dirs logs-0 and logs-1",
        |_| {},
        healthy "basic-delete" ["inspect", "logs-0"];
    partition_data_lost: "partition.data_lost", "error", exit 1,
        "basic-delete" ["inspect", "logs-0"],
        "every orders-0/*.log removed (indexes and snapshots kept); the checkpoints still say \
         high watermark 36",
        |d| {
            for e in fs::read_dir(d.join("logs-0/orders-0")).unwrap() {
                let path = e.unwrap().path();
                if path.extension().is_some_and(|x| x == "log") {
                    fs::remove_file(path).unwrap();
                }
            }
        },
        healthy "basic-delete";
    segment_empty_log_with_index: "segment.empty_log_with_index", "error", exit 1,
        "basic-delete" ["inspect", "logs-0"],
        "orders-0/00000000000000000004.log (rolled) truncated to 0 bytes, its indexes kept",
        |d| fs::write(seg(d, "orders-0", 4, "log"), b"").unwrap(),
        healthy "basic-delete";
    segment_active_not_rolling: "segment.active_not_rolling", "warning", exit 1,
        "idle-active-segment" ["diagnose", "logs-0", "--now", "2026-11-30T14:30:00Z"],
        "none: trickle-0 (retention.ms 2 h, segment.ms 7 d) has one active segment with records \
         from base-5h written every 5 min: it holds expired records and rolls only in 6 d",
        |_| {},
        healthy "basic-delete" ["diagnose", "logs-0", "logs-1", "--server-properties",
            "server.properties", "--now", "2026-11-30T14:30:00Z"];
    // --- compaction (diagnose) ---------------------------------------------------------------
    compaction_backlog: "compaction.backlog", "info", exit 0,
        "compacted" ["diagnose", "logs-0", "--server-properties", "server.properties", "--now",
            "2026-11-30T13:42:20Z"],
        "none: compacted-0 got 40 records after the broker's pass (dirty ratio 0.642 > 0.5) and \
         compact-delete-0 was never cleaned (ratio 1.0)",
        |_| {},
        healthy "open-txn-compacted" ["diagnose", "logs-0", "--server-properties",
            "server.properties", "--now", "2026-12-01T10:59:43Z"];
    compaction_tombstones_past_horizon: "compaction.tombstones_past_horizon", "warning", exit 1,
        "compacted" ["diagnose", "logs-0", "--server-properties", "server.properties", "--deep",
            "--now", "2026-12-02T14:00:00Z"],
        "none: a day after the broker's pass stamped compacted-1's tombstones k12..k14 with \
         delete.retention.ms 1 d; its dirty ratio 0.05 makes no pass due",
        |_| {},
        healthy "compacted" ["diagnose", "logs-0", "--server-properties", "server.properties",
            "--deep", "--now", "2026-11-30T13:42:20Z"];
    compaction_offsets_topic_stuck: "compaction.offsets_topic_stuck", "error", exit 1,
        "compacted" ["diagnose", "logs-0", "--server-properties", "server.properties", "--now",
            "2026-11-30T13:42:20Z"],
        "compacted-0 re-labelled __consumer_offsets-0 (dir, cleaner-offset-checkpoint entry; no \
         partition.metadata, so the broker default log.cleanup.policy=compact applies); \
         server.properties: log.cleaner.enable=false",
        |d| {
            rename(&d.join("logs-0"), "compacted-0", "__consumer_offsets-0");
            fs::remove_file(d.join("logs-0/__consumer_offsets-0/partition.metadata")).unwrap();
            replace_text(
                &d.join("logs-0/cleaner-offset-checkpoint"),
                "compacted 0 35",
                "__consumer_offsets 0 35",
            );
            let p = d.join("server.properties");
            let text = fs::read_to_string(&p).unwrap();
            fs::write(
                &p,
                format!("{text}\nlog.cleaner.enable=false\nlog.cleanup.policy=compact\n"),
            )
            .unwrap();
        },
        healthy "consumer-groups" ["diagnose", "logs-0", "--server-properties",
            "server.properties", "--now", "2026-12-01T11:04:35Z"];
    compaction_cleaner_starved: "compaction.cleaner_starved", "warning", exit 1,
        "compacted" ["diagnose", "logs-0", "--server-properties", "server.properties",
            "--cleaner-rate", "0.000001", "--now", "2026-11-30T13:42:20Z"],
        "none: two logs to clean on one cleaner thread, at a given rate of 1 B/s (over 1 h)",
        |_| {},
        healthy "compacted" ["diagnose", "logs-0", "--server-properties", "server.properties",
            "--cleaner-rate", "100", "--now", "2026-11-30T13:42:20Z"];
    // --- diagnose: timestamps, startup cost, disk projection, config risk --------------------
    // `--disk-space` with a large free space keeps `dir.disk_full_soon` off the host's disk.
    partition_future_timestamps: "partition.future_timestamps", "warning", exit 1,
        "future-timestamps" ["diagnose", "logs-0", "--now", "2026-11-30T13:33:04Z",
            "--disk-space", "1000000000000,2000000000000"],
        "none: segment 14 holds a record stamped base+365d (message.timestamp.after.max.ms is \
         Long.MAX_VALUE on ft)",
        |_| {},
        healthy "basic-delete" ["diagnose", "logs-0", "logs-1", "--server-properties",
            "server.properties", "--now", "2026-11-30T13:32:33Z", "--disk-space",
            "1000000000000,2000000000000"];
    partition_timestamp_unit_suspect: "partition.timestamp_unit_suspect", "warning", exit 1,
        "basic-delete" ["diagnose", "logs-0", "logs-1", "--server-properties",
            "server.properties", "--now", "2026-11-30T13:32:33Z", "--disk-space",
            "1000000000000,2000000000000"],
        "orders-0/00000000000000000004.log: the first batch's first and max timestamps divided \
         by 1000 (a producer sending seconds), CRCs recomputed",
        |d| edit(&seg(d, "orders-0", 4, "log"), |b| {
            for at in [27, 35] {
                let ms = i64::from_be_bytes(b[at..at + 8].try_into().unwrap());
                b[at..at + 8].copy_from_slice(&(ms / 1000).to_be_bytes());
            }
            fix_batch_crcs(b);
        }),
        healthy "basic-delete" ["diagnose", "logs-0", "logs-1", "--server-properties",
            "server.properties", "--now", "2026-11-30T13:32:33Z", "--disk-space",
            "1000000000000,2000000000000"];
    dir_startup_recovery: "dir.startup_recovery", "info", exit 0,
        "unclean-shutdown" ["diagnose", "logs-0", "--server-properties", "server.properties",
            "--now", "2026-11-30T13:34:35Z", "--disk-space", "1000000000000,2000000000000"],
        "none: SIGKILL with recovery point 8: the next start recovers segments 8 and 12 of \
         crash-0 and crash-1",
        |_| {},
        healthy "basic-delete" ["diagnose", "logs-0", "logs-1", "--server-properties",
            "server.properties", "--now", "2026-11-30T13:32:33Z", "--disk-space",
            "1000000000000,2000000000000"];
    dir_disk_full_soon: "dir.disk_full_soon", "warning", exit 1,
        "unclean-shutdown" ["diagnose", "logs-0", "--server-properties", "server.properties",
            "--now", "2026-11-30T13:34:35Z", "--disk-space", "10000,1000000"],
        "none but --disk-space 10000,1000000: crash-0/1 grow (7 d retention, minutes of \
         records) and 10 kB free last under 24 h",
        |_| {},
        healthy "basic-delete" ["diagnose", "logs-0", "logs-1", "--server-properties",
            "server.properties", "--now", "2026-11-30T13:32:33Z", "--disk-space",
            "10000,1000000"];
    dir_disk_full: "dir.disk_full", "error", exit 1,
        "idle-active-segment" ["diagnose", "logs-0", "--server-properties", "server.properties",
            "--now", "2026-11-30T13:32:47Z", "--disk-space", "0,1000000000"],
        "none but --disk-space 0,1000000000: 0 B free (no growth measured, no disk_full_soon) and \
         the next start needs blocks for its checkpoints",
        |_| {},
        healthy "idle-active-segment" ["diagnose", "logs-0", "--server-properties",
            "server.properties", "--now", "2026-11-30T13:32:47Z", "--disk-space",
            "1000000000000,2000000000000"];
    config_retention_bytes_unlimited: "config.retention_bytes_unlimited", "warning", exit 1,
        "unclean-shutdown" ["diagnose", "logs-0", "--server-properties", "server.properties",
            "--now", "2026-11-30T13:34:35Z", "--disk-space", "1000000000000,2000000000000"],
        "server.properties: log.retention.ms=-1 appended (crash has no retention override, and \
         retention.bytes is -1: nothing bounds it)",
        |d| append(&d.join("server.properties"), "log.retention.ms=-1"),
        healthy "unclean-shutdown";
    config_segment_bytes_slow_roll: "config.segment_bytes_slow_roll", "info", exit 1,
        "idle-active-segment" ["diagnose", "logs-0", "--server-properties", "server.properties",
            "--now", "2026-11-30T13:32:47Z", "--disk-space", "1000000000000,2000000000000"],
        "server.properties: log.segment.bytes=1048576 and log.roll.ms=7776000000 (90 d) \
         appended: trickle (retention.ms 2 h) fills 1 MiB in about 33 d",
        |d| append(
            &d.join("server.properties"),
            "log.segment.bytes=1048576\nlog.roll.ms=7776000000",
        ),
        healthy "idle-active-segment";
    config_min_cleanable_ratio_low: "config.min_cleanable_ratio_low", "info", exit 0,
        "compacted" ["diagnose", "logs-0", "--server-properties", "server.properties", "--now",
            "2026-11-30T13:42:20Z", "--disk-space", "1000000000000,2000000000000"],
        "server.properties: log.cleaner.min.cleanable.ratio=0.05 appended (compact-delete has \
         no topic override)",
        |d| append(&d.join("server.properties"), "log.cleaner.min.cleanable.ratio=0.05"),
        healthy "compacted";
    config_file_delete_delay_zero: "config.file_delete_delay_zero", "info", exit 0,
        "basic-delete" ["diagnose", "logs-0", "logs-1", "--server-properties",
            "server.properties", "--now", "2026-11-30T13:32:33Z", "--disk-space",
            "1000000000000,2000000000000"],
        "server.properties: log.segment.delete.delay.ms=0 appended",
        |d| append(&d.join("server.properties"), "log.segment.delete.delay.ms=0"),
        healthy "basic-delete";
    config_cleaner_threads_few: "config.cleaner_threads_few", "info", exit 0,
        "compacted" ["diagnose", "logs-0", "--server-properties", "server.properties", "--now",
            "2026-11-30T13:42:20Z", "--disk-space", "1000000000000,2000000000000"],
        "compacted-0 (due for cleaning: dirty ratio 0.642) copied to compacted-2 .. \
         compacted-51 with its checkpoint entries: 52 compacted partitions due for one cleaner \
         thread (copies of compacted-1, which is not due, do not fire it)",
        |d| {
            for i in 2..=51 {
                clone_partition(&d.join("logs-0"), "compacted", 0, i);
            }
        },
        healthy "compacted";
    config_timestamp_after_unlimited: "config.timestamp_after_unlimited", "warning", exit 1,
        "future-timestamps" ["diagnose", "logs-0", "--now", "2026-11-30T13:33:04Z",
            "--disk-space", "1000000000000,2000000000000"],
        "none: ft sets message.timestamp.after.max.ms=9223372036854775807",
        |_| {},
        healthy "basic-delete" ["diagnose", "logs-0", "logs-1", "--server-properties",
            "server.properties", "--now", "2026-11-30T13:32:33Z", "--disk-space",
            "1000000000000,2000000000000"];
    // --- upgrade-check (issue 22) -------------------------------------------------------------
    upgrade_zookeeper_mode: "upgrade.zookeeper_mode", "warning", exit 1,
        "zk391-basic-delete" ["upgrade-check", "--to", "4.4", "--server-properties",
            "server.properties", "--config-file", "topic-configs.txt", "--now",
            "2026-12-02T02:45:00Z", "logs-0", "logs-1"],
        "none: a Kafka 3.9.1 ZooKeeper-mode dir upgraded to 4.4",
        |_| {},
        healthy "zk391-basic-delete" ["upgrade-check", "--to", "3.9", "--server-properties",
            "server.properties", "--config-file", "topic-configs.txt", "--now",
            "2026-12-02T02:45:00Z", "logs-0", "logs-1"];
    upgrade_removed_config: "upgrade.removed_config", "warning", exit 1,
        "kraft391-basic-delete" ["upgrade-check", "--to", "4.0", "--server-properties",
            "server.properties", "--now", "2026-12-02T02:45:15Z", "logs-0", "logs-1"],
        "server.properties: log.message.downconversion.enable=false appended (valid on 3.9, \
         removed in 4.0)",
        |d| append(&d.join("server.properties"), "log.message.downconversion.enable=false"),
        healthy "kraft391-basic-delete";
    upgrade_config_rejected: "upgrade.config_rejected", "warning", exit 1,
        "zk391-future-timestamps" ["upgrade-check", "--to", "4.1", "--server-properties",
            "server.properties", "--config-file", "topic-configs.txt", "--now",
            "2026-12-02T02:47:00Z", "logs-0"],
        "topic-configs.txt: ft overrides segment.bytes=524288 (valid on 3.9 and 4.0, below 4.1's \
         1 MiB minimum)",
        |d| replace_text(
            &d.join("topic-configs.txt"),
            "  segment.bytes=1073741824 sensitive=false synonyms={DEFAULT_CONFIG:log.segment.bytes=1073741824}",
            "  segment.bytes=524288 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:segment.bytes=524288, DEFAULT_CONFIG:log.segment.bytes=1073741824}",
        ),
        healthy "zk391-future-timestamps";
    upgrade_future_timestamps_rejected: "upgrade.future_timestamps_rejected", "warning", exit 1,
        "zk391-future-timestamps" ["upgrade-check", "--to", "4.0", "--server-properties",
            "server.properties", "--config-file", "topic-configs.txt", "--now",
            "2026-12-02T02:47:00Z", "logs-0"],
        "topic-configs.txt: ft no longer overrides message.timestamp.after.max.ms (takes the \
         default: Long.MAX on 3.9, 1 h on 4.0) and holds a record stamped base+365d",
        |d| replace_text(
            &d.join("topic-configs.txt"),
            "synonyms={DYNAMIC_TOPIC_CONFIG:message.timestamp.after.max.ms=9223372036854775807, ",
            "synonyms={",
        ),
        healthy "zk391-future-timestamps";
    upgrade_default_changes: "upgrade.default_changes", "info", exit 0,
        "kraft391-basic-delete" ["upgrade-check", "--to", "4.4", "--server-properties",
            "server.properties", "--now", "2026-12-02T02:45:15Z", "logs-0", "logs-1"],
        "none: every topic takes message.timestamp.after.max.ms from 3.9's default",
        |_| {},
        healthy "basic-delete" ["upgrade-check", "--to", "4.4", "--server-properties",
            "server.properties", "--now", "2026-11-30T13:32:33Z", "logs-0", "logs-1"];
    upgrade_transaction_markers: "upgrade.transaction_markers", "info", exit 0,
        "kraft391-transactions" ["upgrade-check", "--to", "4.4", "--server-properties",
            "server.properties", "--now", "2026-12-02T02:51:46Z", "logs-0"],
        "none: __transaction_state partitions written by 3.9.1 (transactions v1)",
        |_| {},
        healthy "transactions" ["upgrade-check", "--to", "4.4", "--server-properties",
            "server.properties", "--now", "2026-12-01T11:04:57Z", "logs-0"];
}

/// Re-label a real KRaft log dir as a ZooKeeper-mode one, as a 3.x broker leaves it.
fn zookeeper_relabel(dir: &Path) {
    fs::remove_dir_all(dir.join("__cluster_metadata-0")).unwrap();
    for e in fs::read_dir(dir).unwrap() {
        let pm = e.unwrap().path().join("partition.metadata");
        if pm.exists() {
            fs::remove_file(pm).unwrap();
        }
    }
    fs::write(
        dir.join("meta.properties"),
        "#\n#Tue Mar 05 10:00:00 UTC 2024\nversion=0\nbroker.id=1\ncluster.id=TG9nQ2xlYW5GaXh0dXJlcw\n",
    )
    .unwrap();
}

fn case(code: &str) -> &'static Case {
    CASES.iter().find(|c| c.code == code).unwrap()
}

// --- running logclean -------------------------------------------------------------------------

/// What a run gave: its exit code and `(code, severity)` of each finding.
struct Run {
    exit: i32,
    findings: Vec<(String, String)>,
    stderr: String,
}

impl Run {
    fn has(&self, code: &str) -> bool {
        self.findings.iter().any(|(c, _)| c == code)
    }

    fn severities(&self, code: &str) -> BTreeSet<&str> {
        self.findings
            .iter()
            .filter(|(c, _)| c == code)
            .map(|(_, s)| s.as_str())
            .collect()
    }

    fn codes(&self) -> BTreeSet<&str> {
        self.findings.iter().map(|(c, _)| c.as_str()).collect()
    }
}

/// The largest file under `dir` (a memory map may take a file whole).
fn largest_file(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.metadata().unwrap().len())
        .max()
        .unwrap_or(0)
}

/// Run `logclean --format json --no-progress <args>` in `dir`, under the memory cap, as nobody
/// when `unprivileged` and root.
fn run(dir: &Path, args: &[&str], unprivileged: bool) -> Run {
    let cap = MEMORY_CAP_BYTES + largest_file(dir);
    let mut cmd = support::logclean_capped(cap, unprivileged);
    let argv: Vec<String> = ["--format", "json", "--no-progress"]
        .iter()
        .map(|a| a.to_string())
        .chain(args.iter().map(|a| a.to_string()))
        .collect();
    let out = cmd.args(&argv).current_dir(dir).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let exit = out.status.code().unwrap_or_else(|| {
        panic!(
            "{argv:?} ended by a signal: {}\nstderr: {stderr}",
            out.status
        )
    });
    assert_ne!(exit, 101, "{argv:?} panicked: {stderr}");
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{argv:?}: bad JSON ({e}); exit {exit}; stderr: {stderr}"));
    let findings = doc["findings"]
        .as_array()
        .unwrap_or_else(|| panic!("{argv:?}: no findings array"))
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    Run {
        exit,
        findings,
        stderr,
    }
}

/// A private copy of `fixtures/<name>` (every log dir, server.properties, manifest), readable by
/// an unprivileged user: the tempdir guard and the copy's root.
fn copy_fixture(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let root = tmp.path().join(name);
    copy_dir_readable(&fixtures_dir().join(name), &root);
    (tmp, root)
}

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

fn check_fires(c: &Case) {
    let (_tmp, root) = copy_fixture(c.fixture);
    (c.damage)(&root);
    let r = run(&root, c.args, c.unprivileged);
    let ctx = format!(
        "{} on {} ({}): exit {}, findings {:?}, stderr: {}",
        c.code, c.fixture, c.how, r.exit, r.findings, r.stderr
    );
    assert!(r.has(c.code), "does not fire: {ctx}");
    assert_eq!(
        r.severities(c.code),
        BTreeSet::from([c.severity]),
        "severity: {ctx}"
    );
    assert_eq!(r.exit, c.exit, "exit code: {ctx}");
    // A re-labelled metadata log must still load: otherwise the code fired for another reason.
    if c.args.first() == Some(&"config") && c.code != "metadata.problem" {
        assert!(!r.has("metadata.problem"), "metadata log broken: {ctx}");
    }
}

// --- damage helpers ---------------------------------------------------------------------------

/// A segment file: `<root>/logs-0/<partition>/<base:020>.<ext>`.
fn seg(root: &Path, partition: &str, base: i64, ext: &str) -> PathBuf {
    root.join("logs-0")
        .join(partition)
        .join(format!("{base:020}.{ext}"))
}

fn edit(path: &Path, f: impl FnOnce(&mut Vec<u8>)) {
    let mut b = fs::read(path).unwrap();
    f(&mut b);
    fs::write(path, &b).unwrap();
}

fn copy_as(dir: &Path, from: &str, to: &str) {
    fs::copy(dir.join(from), dir.join(to)).unwrap();
}

fn rename(dir: &Path, from: &str, to: &str) {
    fs::rename(dir.join(from), dir.join(to)).unwrap();
}

/// Replace the one occurrence of `from` in a text file.
fn replace_text(path: &Path, from: &str, to: &str) {
    let text = fs::read_to_string(path).unwrap();
    assert_eq!(
        text.matches(from).count(),
        1,
        "{}: {text:?}",
        path.display()
    );
    fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// Keep a text file only up to and including `prefix`.
/// Append `line` to a text file, on a line of its own.
fn append(path: &Path, line: &str) {
    let text = fs::read_to_string(path).unwrap();
    fs::write(path, format!("{text}\n{line}\n")).unwrap();
}

fn cut_after(path: &Path, prefix: &str) {
    let text = fs::read_to_string(path).unwrap();
    assert!(text.starts_with(prefix), "{}: {text:?}", path.display());
    fs::write(path, prefix).unwrap();
}

/// Byte positions of the batches of a `.log` (offset i64, length i32, then `length` bytes).
fn batch_positions(log: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut p = 0;
    while p + 12 <= log.len() {
        out.push(p);
        let len = i32::from_be_bytes(log[p + 8..p + 12].try_into().unwrap()) as usize;
        p += 12 + len;
    }
    out
}

fn swap_entries(b: &mut [u8], size: usize, i: usize, j: usize) {
    assert!(
        (j + 1) * size <= b.len(),
        "index has fewer than {} entries",
        j + 1
    );
    let a = b[i * size..(i + 1) * size].to_vec();
    b.copy_within(j * size..(j + 1) * size, i * size);
    b[j * size..(j + 1) * size].copy_from_slice(&a);
}

/// Rename a segment's `.log`, `.index` and `.timeindex` to another base offset.
fn rebase_segment(root: &Path, partition: &str, from: i64, to: i64) {
    for ext in ["log", "index", "timeindex"] {
        fs::rename(
            seg(root, partition, from, ext),
            seg(root, partition, to, ext),
        )
        .unwrap();
    }
}

/// The active segment of orders-0 past 2 GiB: a non-zero byte right after its data (so the walk
/// stops there instead of reading 2 GiB of zeros), then a sparse hole to 2 GiB + 4 KiB.
fn too_large_segment(root: &Path) {
    let path = seg(root, "orders-0", 32, "log");
    edit(&path, |b| b.push(0x01));
    let f = fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len((1u64 << 31) + 4096).unwrap();
}

/// Re-label a config key in the metadata log and its snapshots (same length, so every record
/// keeps its size) and recompute the CRC-32C of every batch in each changed file.
fn relabel_metadata(root: &Path, from: &str, to: &str) {
    assert_eq!(from.len(), to.len());
    let dir = root.join("logs-0/__cluster_metadata-0");
    let mut replaced = 0;
    for e in fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let ext = path.extension().and_then(|e| e.to_str());
        if !matches!(ext, Some("log" | "checkpoint")) {
            continue;
        }
        let mut b = fs::read(&path).unwrap();
        let mut n = 0;
        let mut i = 0;
        while let Some(at) = b[i..]
            .windows(from.len())
            .position(|w| w == from.as_bytes())
        {
            let at = i + at;
            b[at..at + to.len()].copy_from_slice(to.as_bytes());
            n += 1;
            i = at + to.len();
        }
        if n > 0 {
            fix_batch_crcs(&mut b);
            fs::write(&path, &b).unwrap();
            replaced += n;
        }
    }
    assert!(replaced > 0, "`{from}` not found in {}", dir.display());
}

/// Recompute each v2 batch's CRC-32C (bytes 17..21; it covers attributes to the batch end).
fn fix_batch_crcs(b: &mut [u8]) {
    for p in batch_positions(b) {
        let end = p + 12 + i32::from_be_bytes(b[p + 8..p + 12].try_into().unwrap()) as usize;
        assert_eq!(b[p + 16], 2, "not a v2 batch at {p}");
        let crc = crc32c::crc32c(&b[p + 21..end]);
        b[p + 17..p + 21].copy_from_slice(&crc.to_be_bytes());
    }
}

// --- the healthy side and the table's completeness ----------------------------------------------

/// Each code is absent from its healthy fixture, undamaged, run the same way (one run per
/// distinct fixture and command).
#[test]
fn no_code_fires_on_its_healthy_fixture() {
    let mut runs: BTreeMap<(&str, Vec<&str>, bool), Run> = BTreeMap::new();
    let mut failures = Vec::new();
    for c in CASES {
        let args = c.healthy_args.unwrap_or(c.args);
        let key = (c.healthy, args.to_vec(), c.unprivileged);
        let r = runs.entry(key).or_insert_with(|| {
            let (_tmp, root) = copy_fixture(c.healthy);
            run(&root, args, c.unprivileged)
        });
        if r.has(c.code) {
            failures.push(format!(
                "{} fires on healthy {} ({args:?}): {:?}",
                c.code, c.healthy, r.findings
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// What the undamaged fixtures really hold: `inspect --verify` of every log dir and `config` of
/// each show only these codes (the conditions the broker really left), nothing else.
#[test]
fn undamaged_fixtures_show_only_their_real_conditions() {
    let expected: BTreeMap<&str, &[&str]> = BTreeMap::from([
        ("compacted", &["partition.leftover_deleted"][..]),
        ("kraft391-compacted", &["partition.leftover_deleted"][..]),
        ("zk391-compacted", &["partition.leftover_deleted"][..]),
        // The 3.9.1 cleaner cleaned txn-compacted-0 during the scenario (its replaced segment 0
        // is still there as *.deleted, file.delete.delay.ms 60 s); the 4.4.0 one had not.
        ("kraft391-transactions", &["partition.leftover_deleted"][..]),
        ("zk391-transactions", &["partition.leftover_deleted"][..]),
        ("kraft-metadata", &["partition.pending_delete"][..]),
        ("unclean-shutdown", &["dir.unclean_shutdown"][..]),
        // JBOD on three nodes: a move mid-way, a stray replica, -delete dirs (the scenario).
        (
            "rf3-jbod",
            &[
                "partition.future_replica",
                "partition.pending_delete",
                "partition.stray",
            ][..],
        ),
    ]);
    let mut fixtures: Vec<String> = fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_dir())
        .map(|e| e.file_name().into_string().unwrap())
        .collect();
    fixtures.sort();
    assert!(fixtures.len() >= 10, "{fixtures:?}");
    for f in &fixtures {
        let (_tmp, root) = copy_fixture(f);
        let mut dirs: Vec<String> = fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.starts_with("logs-"))
            .collect();
        // A three-node fixture (issue 21): every node's log dirs, read together.
        for node in ["node-1", "node-2", "node-3"] {
            if let Ok(rd) = fs::read_dir(root.join(node)) {
                dirs.extend(
                    rd.map(|e| e.unwrap().file_name().into_string().unwrap())
                        .filter(|n| n.starts_with("logs-"))
                        .map(|n| format!("{node}/{n}")),
                );
            }
        }
        dirs.sort();
        let dirs: Vec<&str> = dirs.iter().map(String::as_str).collect();
        let want: BTreeSet<&str> = expected
            .get(f.as_str())
            .copied()
            .unwrap_or(&[])
            .iter()
            .copied()
            .collect();
        let inspect = run(
            &root,
            &[&["inspect", "--verify"][..], &dirs].concat(),
            false,
        );
        assert_eq!(
            inspect.codes(),
            want,
            "inspect --verify {f}: {:?}",
            inspect.findings
        );
        let config = run(&root, &[&["config"][..], &dirs].concat(), false);
        // A ZooKeeper-mode dir (Kafka 3.9.1) holds no topic configs: `config` says so, nothing else.
        let want: BTreeSet<&str> = if f.starts_with("zk391-") {
            BTreeSet::from(["config.zookeeper_mode"])
        } else {
            BTreeSet::new()
        };
        assert_eq!(config.codes(), want, "config {f}: {:?}", config.findings);
        assert_eq!(config.exit, 0, "config {f}");
    }
}

/// docs/findings.md's finding table and [`CASES`] name the same codes, each once.
#[test]
fn docs_and_table_name_the_same_codes() {
    let doc =
        fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/findings.md"))
            .unwrap();
    let table: String = doc
        .lines()
        .skip_while(|l| !l.starts_with("# Finding codes"))
        .skip(1)
        .take_while(|l| !l.starts_with('#'))
        .filter(|l| l.starts_with("| `"))
        .map(|l| l.split('|').nth(1).unwrap().to_string() + " ")
        .collect();
    let documented: BTreeSet<&str> = table.split('`').skip(1).step_by(2).collect();
    assert!(
        documented.len() >= 40,
        "docs/findings.md table not found or shrunk: {documented:?}"
    );
    let tested: BTreeSet<&str> = CASES.iter().map(|c| c.code).collect();
    assert_eq!(tested.len(), CASES.len(), "a code appears twice in CASES");
    let untested: Vec<_> = documented.difference(&tested).collect();
    let undocumented: Vec<_> = tested.difference(&documented).collect();
    assert!(
        untested.is_empty() && undocumented.is_empty(),
        "in docs/findings.md but not in CASES: {untested:?}; in CASES but not in docs/findings.md: {undocumented:?}"
    );
}

/// Where the broker recovers the segment on start (unclean shutdown, at or past the recovery
/// point), a torn or zero-filled tail is info, not corruption: recovery truncates it, so its fix
/// needs no action (exit codes mean action).
#[test]
fn tail_findings_are_info_where_the_broker_recovers() {
    type Damage = fn(&mut Vec<u8>);
    let damages: [(&str, Damage); 2] = [
        ("log.truncated_tail", |b| b.truncate(b.len() - 10)),
        ("log.zero_filled_tail", |b| {
            b.extend_from_slice(&[0u8; 4096])
        }),
    ];
    for (code, damage) in damages {
        let (_tmp, root) = copy_fixture("unclean-shutdown");
        // crash-0's active segment 12 lies past its recovery point 8.
        edit(&seg(&root, "crash-0", 12, "log"), damage);
        let r = run(&root, &["inspect", "logs-0"], false);
        assert_eq!(
            r.severities(code),
            BTreeSet::from(["info"]),
            "{code}: {:?}",
            r.findings
        );
    }
}

/// `--mmap` (maps instead of read(2), the default) gives the same codes, severities and exit
/// code for every case but `log.too_large`, whose 2 GiB file a buffered read refuses.
#[test]
fn mapped_reads_give_the_same_findings() {
    let mut failures = Vec::new();
    for c in CASES.iter().filter(|c| c.code != "log.too_large") {
        let (_tmp, root) = copy_fixture(c.fixture);
        (c.damage)(&root);
        let buffered = run(&root, c.args, c.unprivileged);
        let mut args = c.args.to_vec();
        args.insert(1, "--mmap");
        let mapped = run(&root, &args, c.unprivileged);
        let sorted = |r: &Run| {
            let mut f = r.findings.clone();
            f.sort();
            (r.exit, f)
        };
        if sorted(&mapped) != sorted(&buffered) {
            failures.push(format!(
                "{}: mapped {:?}, buffered {:?}",
                c.code,
                sorted(&mapped),
                sorted(&buffered)
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
