//! The startup cost of a log dir (`dir.startup_recovery`): what the broker reads again at its
//! next start, from [`recovery_on_next_start`] and the partitions' leftovers.
//!
//! Counted per log dir:
//! - segments the rule recovers (read whole, indexes rebuilt): after an unclean shutdown every
//!   segment from the floor segment of the recovery point on; after any shutdown a segment
//!   whose `.index` is missing;
//! - `.swap` `.log` files (`LogLoader`: the indexes of the base file are deleted and the swap is
//!   renamed in, so the segment is rebuilt; a `.swap` at or above the lowest `.cleaned` offset
//!   is deleted instead, KAFKA-6264), `.cleaned` and `.deleted` files (deleted at load, no read);
//! - the metadata log, which `KafkaMetadataLog` recovers from 0 on every start: reported apart
//!   (it is the normal cost of every start, read by the raft layer, not the recovery threads),
//!   and not a reason for the finding; only a dir that holds `__cluster_metadata-0` has one (a
//!   ZooKeeper-mode dir never does).
//!
//! A partition counts when any of its segments is recovered, an empty one too: recovering an
//! empty segment still truncates and rewrites its indexes (`LogSegment.recover`), and the
//! partition takes a recovery thread's turn like any other (`LogManager.loadLogs` submits one
//! job per partition dir).
//!
//! The time is an estimate: the bytes over [`RECOVERY_BYTES_PER_SEC`] (the broker's measured
//! rebuild rate, 45 MB/s per recovery thread, benches/README.md, "Current figures")
//! times `num.recovery.threads.per.data.dir`, and never less than the largest partition's bytes
//! at one thread's rate (one partition is recovered by one thread). The thread count is the
//! configured value when a source sets it; unset, it is the default of the Kafka the dirs come
//! from ([`recovery_threads`]): 2 since 4.0 (KIP-1030), 1 before, so 1 for ZooKeeper-mode dirs
//! (ZooKeeper mode ended with 3.9). The evidence says which value was assumed and why.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::checks::catalog;
use crate::checks::finding::{EvidenceValue, Finding, Location, Severity};
use crate::config::ConfigSource;
use crate::model::cluster::ClusterView;
use crate::model::lock::LockState;
use crate::model::log_dir::LogDir;
use crate::model::mode::LogDirMode;
use crate::model::names::LeftoverKind;
use crate::model::names::SegmentFileKind;
use crate::model::replays::{Records, RecoveryWalks};
use crate::plan::space::SpaceUsage;
use crate::plan::Plan;
use crate::rules::boot::{
    index_entries_of, log_dir_boot_writes, BootWrites, PartitionBootFacts, RecoveredSegment,
};
use crate::rules::recovery::{recovered_logs, recovery_on_next_start, RecoveryCause};
use crate::rules::space::SpaceReason;

/// The broker's recovery rate per thread, bytes per second (measured: 45 MB/s).
pub const RECOVERY_BYTES_PER_SEC: u64 = 45_000_000;
/// A startup estimated at this long or longer (10 min) is a warning.
pub const WARN_STARTUP_MS: i64 = 600_000;
/// `num.recovery.threads.per.data.dir`'s default since Kafka 4.0 (KIP-1030).
pub const RECOVERY_THREADS_DEFAULT_4X: i32 = 2;
/// Its default up to Kafka 3.9, which includes every ZooKeeper-mode broker.
pub const RECOVERY_THREADS_DEFAULT_3X: i32 = 1;

/// The `num.recovery.threads.per.data.dir` the estimate uses, and why that value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecoveryThreads {
    /// The thread count.
    pub threads: i32,
    /// Where it comes from, in words (the evidence `recovery_threads_basis`).
    pub basis: String,
}

/// The `num.recovery.threads.per.data.dir` of the broker `view` describes: the value a source
/// sets (server.properties, a dynamic broker config); unset, the default of the Kafka that
/// wrote the dirs: 1 for ZooKeeper-mode dirs (Kafka 3.9 or older), else 4.x's 2.
pub fn recovery_threads(view: &ClusterView) -> RecoveryThreads {
    const KEY: &str = "num.recovery.threads.per.data.dir";
    let configured = view
        .broker
        .get(KEY)
        .filter(|v| v.source != ConfigSource::DefaultConfig);
    if let Some(v) = configured {
        return RecoveryThreads {
            threads: view.broker_config.num_recovery_threads_per_data_dir,
            basis: format!("{KEY}={} from {}", v.value, v.source.name()),
        };
    }
    match view.mode {
        LogDirMode::ZooKeeper => RecoveryThreads {
            threads: RECOVERY_THREADS_DEFAULT_3X,
            basis: format!(
                "{KEY} is not set: Kafka 3.x's default, {RECOVERY_THREADS_DEFAULT_3X}, assumed \
                 because ZooKeeper-mode dirs come from a Kafka 3.9 or older broker (the default \
                 is {RECOVERY_THREADS_DEFAULT_4X} only since 4.0, KIP-1030)"
            ),
        },
        LogDirMode::KRaft | LogDirMode::Unknown => RecoveryThreads {
            threads: view.broker_config.num_recovery_threads_per_data_dir,
            basis: format!(
                "{KEY} is not set: Kafka 4.x's default, {}, assumed (KIP-1030; a 3.x broker's \
                 default is {RECOVERY_THREADS_DEFAULT_3X})",
                view.broker_config.num_recovery_threads_per_data_dir
            ),
        },
    }
}

/// One log dir's startup cost (`log_dirs[].startup` in JSON).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct StartupCost {
    /// The log dir.
    #[serde(skip)]
    pub path: PathBuf,
    /// Whether `.kafka_cleanshutdown` is there.
    pub clean_shutdown: bool,
    /// Whether a process holds the dir's `.lock` (a running broker: the figures are what a
    /// crash now would cost).
    pub locked: bool,
    /// Segments recovered because of the unclean shutdown.
    pub unclean_segments: u64,
    /// Of those, the segments without an `.index` (recovered either way).
    pub unclean_missing_index_segments: u64,
    /// Segments recovered only because their `.index` is missing (before the recovery point's
    /// floor segment, or after a clean shutdown).
    pub missing_index_segments: u64,
    /// `.swap` logs renamed in and rebuilt.
    pub swap_segments: u64,
    /// Bytes of all these (the recovery threads read them whole).
    pub recover_bytes: u64,
    /// Partitions with anything to recover (empty segments too).
    pub partitions: u64,
    /// The largest partition's bytes to recover.
    pub largest_partition_bytes: u64,
    /// `.cleaned`, `.deleted` and discarded `.swap` files deleted at load.
    pub deleted_files: u64,
    /// Their bytes (not read).
    pub deleted_bytes: u64,
    /// Metadata-log segments and bytes (recovered on every start; apart).
    pub metadata_log_segments: u64,
    /// Their bytes.
    pub metadata_log_bytes: u64,
    /// `num.recovery.threads.per.data.dir` (configured, else the default assumed).
    pub recovery_threads: i32,
    /// Why that value: its source, or which Kafka's default was assumed.
    pub recovery_threads_basis: String,
    /// The assumed rate per thread, bytes per second.
    pub assumed_bytes_per_sec_per_thread: u64,
    /// The estimated recovery time, ms (see the module docs).
    pub estimated_ms: i64,
    /// What the start writes before it serves, and the free space it needs at least
    /// ([`crate::rules::boot`]).
    pub boot: BootBytes,
}

/// The bytes the next start writes before it serves (`log_dirs[].startup.boot` in JSON).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct BootBytes {
    /// The free space the start needs at least.
    pub needs_bytes: u64,
    /// Producer snapshots it writes.
    pub snapshot_files: u64,
    /// Their blocks.
    pub snapshot_bytes: u64,
    /// New blocks of rebuilt `.index`/`.timeindex` files.
    pub index_bytes: u64,
    /// Checkpoint tmp files, metadata-log appends, `quorum-state.tmp`.
    pub other_bytes: u64,
    /// Blocks the loader deletes first (credited per partition).
    pub freed_at_load: u64,
    /// The filesystem block size assumed.
    pub block_bytes: u64,
    /// Recovered segments whose index entries were counted from every batch (exact).
    pub index_exact_segments: u64,
    /// Recovered segments whose index entries were bounded by their size instead (their
    /// batches not read: past the read budget, or unreadable).
    pub index_bounded_segments: u64,
}

impl BootBytes {
    fn of(w: BootWrites, block: u64) -> BootBytes {
        BootBytes {
            needs_bytes: w.needs_bytes,
            snapshot_files: w.snapshot_files,
            snapshot_bytes: w.snapshot_bytes,
            index_bytes: w.index_bytes,
            other_bytes: w.other_bytes,
            freed_at_load: w.freed_at_load,
            block_bytes: block,
            index_exact_segments: 0,
            index_bounded_segments: 0,
        }
    }
}

/// The filesystem block size of `path` (`statvfs` `f_bsize`), 4096 when it cannot be read.
pub fn block_size(path: &std::path::Path) -> u64 {
    nix::sys::statvfs::statvfs(path)
        .ok()
        .map(|s| s.block_size())
        .filter(|b| *b > 0)
        .unwrap_or(4096)
}

/// The bytes `dir`'s next start writes, from its recovery rule, the blocks its files hold now
/// (`space`), the index interval of each partition (`plan`) and the batches of the recovered
/// segments (`walks`: their index entries exactly, where read).
pub fn boot_bytes(
    dir: &LogDir,
    space: Option<&SpaceUsage>,
    plan: &Plan,
    walks: &RecoveryWalks,
    block: u64,
) -> BootBytes {
    let recovery = recovery_on_next_start(dir);
    let top = |dir_name: &str| space.and_then(|s| s.dir(dir_name));
    // The leftovers the loader deletes before it recovers (a live partition dir's files: its
    // dirs are `Directories`, deeper entries `Unknown`).
    let freed_in = |dir_name: &str| -> u64 {
        top(dir_name).map_or(0, |d| d.by_reason.bytes(SpaceReason::LeftoverBrokerDeletes))
    };
    let intervals: HashMap<&str, _> = (plan.partitions.iter())
        .filter(|x| x.log_dir == dir.path)
        .map(|x| (x.dir_name.as_str(), x.config.index_interval_bytes))
        .collect();
    let walked: HashMap<&Path, &[u64]> = (walks.logs.iter())
        .map(|(log, positions)| (log.as_path(), positions.as_slice()))
        .collect();
    let mut facts = Vec::new();
    let mut holds_metadata_log = false;
    let (mut exact, mut bounded) = (0u64, 0u64);
    for (p, r) in dir.partitions.iter().zip(&recovery.partitions) {
        if !r.loaded {
            continue;
        }
        holds_metadata_log |= p.name.as_ref().is_some_and(|n| n.is_metadata_log());
        let interval = intervals.get(p.dir_name.as_str()).copied().unwrap_or(4096);
        let segs: Vec<_> = p.log_segments().collect();
        let mut recovered = Vec::new();
        for (i, s) in segs.iter().enumerate() {
            if r.cause(s).is_none() {
                continue;
            }
            let next = match segs.get(i + 1) {
                Some(n) => n.base_offset.get(),
                None => s
                    .log_summary()
                    .map_or(s.base_offset, |l| l.next_offset)
                    .get(),
            };
            let interval_bytes = u64::try_from(interval).unwrap_or(4096);
            let index_blocks = top(&p.dir_name)
                .map(|d| d.index_blocks_of(s.base_offset.get()))
                .unwrap_or_default();
            let walked_entries = (s.path(&p.path, SegmentFileKind::Log))
                .and_then(|log| walked.get(log.as_path()).copied())
                .map(|positions| index_entries_of(positions, interval_bytes));
            exact += u64::from(walked_entries.is_some());
            bounded += u64::from(walked_entries.is_none());
            recovered.push(RecoveredSegment {
                walked_entries,
                next_offset: next,
                log_bytes: s.size().get(),
                index_allocated: index_blocks.index,
                time_index_allocated: index_blocks.time_index,
                last_batch_position: (s.log_summary())
                    .and_then(|l| l.last_batch.as_ref())
                    .map(|b| b.position.get()),
                batches: (s.log_summary())
                    .filter(|l| l.every_batch_read)
                    .and_then(|l| l.stats.as_ref())
                    .map(|st| st.batches),
            });
        }
        facts.push(PartitionBootFacts {
            recovered,
            snapshot_offsets: p.snapshots.iter().map(|s| s.offset).collect(),
            segment_bases: segs.iter().map(|s| s.base_offset.get()).collect(),
            log_end: p.log_end_offset().map(|o| o.get()),
            clean_shutdown: dir.clean_shutdown.is_some(),
            freed_at_load: freed_in(&p.dir_name),
            index_interval_bytes: u64::try_from(interval).unwrap_or(4096),
        });
    }
    let root = &dir.listing.root;
    let largest_checkpoint = [
        &root.recovery_point,
        &root.log_start_offset,
        &root.replication_offset,
        &root.cleaner_offset,
    ]
    .iter()
    .filter_map(|f| f.as_ref().map(|f| f.len_or_zero()))
    .max()
    .unwrap_or(0);
    // The empty root checkpoints a start fills (missing ones are created empty first).
    let empty_checkpoints = [&root.replication_offset, &root.log_start_offset]
        .iter()
        .filter(|f| f.as_ref().is_none_or(|f| f.len_or_zero() == 0))
        .count() as u64;
    BootBytes {
        index_exact_segments: exact,
        index_bounded_segments: bounded,
        ..BootBytes::of(
            log_dir_boot_writes(
                &facts,
                largest_checkpoint,
                empty_checkpoints,
                holds_metadata_log,
                block,
            ),
            block,
        )
    }
}

impl StartupCost {
    /// Segments the recovery threads read again.
    pub fn segments(&self) -> u64 {
        self.unclean_segments + self.missing_index_segments + self.swap_segments
    }
}

/// The estimated time to read `bytes` (largest partition `largest`) with `threads` threads.
pub fn estimate_ms(bytes: u64, largest: u64, threads: i32) -> i64 {
    let threads = u64::try_from(threads.max(1)).unwrap_or(1);
    let per_thread = bytes.div_ceil(threads).max(largest);
    let ms = u128::from(per_thread) * 1000 / u128::from(RECOVERY_BYTES_PER_SEC);
    i64::try_from(ms).unwrap_or(i64::MAX)
}

/// The startup cost of `dir` recovered by `threads` threads.
pub fn startup_cost(dir: &LogDir, threads: &RecoveryThreads) -> StartupCost {
    let recovery = recovery_on_next_start(dir);
    let mut c = StartupCost {
        path: dir.path.clone(),
        clean_shutdown: dir.clean_shutdown.is_some(),
        locked: matches!(dir.lock, LockState::HeldBy { .. }),
        recovery_threads: threads.threads,
        recovery_threads_basis: threads.basis.clone(),
        assumed_bytes_per_sec_per_thread: RECOVERY_BYTES_PER_SEC,
        ..StartupCost::default()
    };
    for (p, r) in dir.partitions.iter().zip(&recovery.partitions) {
        let metadata = p.name.as_ref().is_some_and(|n| n.is_metadata_log());
        let mut bytes = 0u64;
        let mut recovered = false;
        for s in p.log_segments() {
            match r.cause(s) {
                Some(RecoveryCause::MetadataLog) => {
                    c.metadata_log_segments += 1;
                    c.metadata_log_bytes += s.size().get();
                }
                Some(RecoveryCause::UncleanShutdown) => {
                    c.unclean_segments += 1;
                    c.unclean_missing_index_segments += u64::from(s.files.index.is_none());
                    bytes += s.size().get();
                    recovered = true;
                }
                Some(RecoveryCause::MissingOffsetIndex) => {
                    c.missing_index_segments += 1;
                    bytes += s.size().get();
                    recovered = true;
                }
                None => {}
            }
        }
        if r.loaded && !metadata {
            let min_cleaned = p
                .listing
                .leftovers
                .iter()
                .filter(|l| l.kind == Some(LeftoverKind::Cleaned))
                .filter_map(|l| l.segment.map(|(o, _)| o))
                .min();
            let mut swaps: BTreeMap<i64, u64> = BTreeMap::new();
            for l in &p.listing.leftovers {
                match (l.kind, l.segment) {
                    (Some(LeftoverKind::Swap), Some((o, SegmentFileKind::Log)))
                        if min_cleaned.is_none_or(|m| o < m) =>
                    {
                        swaps.insert(o, l.file.len_or_zero());
                    }
                    // A swapped index is deleted (rebuilt from its log).
                    (Some(_), _) => {
                        c.deleted_files += 1;
                        c.deleted_bytes += l.file.len_or_zero();
                    }
                    (None, _) => {}
                }
            }
            c.swap_segments += swaps.len() as u64;
            bytes += swaps.values().sum::<u64>();
            recovered |= !swaps.is_empty();
        }
        c.partitions += u64::from(recovered);
        c.recover_bytes += bytes;
        c.largest_partition_bytes = c.largest_partition_bytes.max(bytes);
    }
    c.estimated_ms = estimate_ms(
        c.recover_bytes,
        c.largest_partition_bytes,
        c.recovery_threads,
    );
    c
}

/// The startup cost of every dir of the broker `view` describes, with their findings added to
/// `findings`; the recovered segments' batches read through `records`.
pub fn startup_costs(
    dirs: &[LogDir],
    view: &ClusterView,
    plan: &Plan,
    space: &[SpaceUsage],
    records: Records<'_>,
    findings: &mut Vec<Finding>,
) -> Vec<StartupCost> {
    let threads = recovery_threads(view);
    let costs: Vec<StartupCost> = dirs
        .iter()
        .map(|d| {
            let mut c = startup_cost(d, &threads);
            let space = space.iter().find(|s| s.path == d.path);
            let walks = records.recovery_walks(&d.path, &recovered_logs(d));
            c.boot = boot_bytes(d, space, plan, &walks, block_size(&d.path));
            c
        })
        .collect();
    findings.extend(startup_findings(&costs));
    costs
}

/// `dir.startup_recovery` when the next start reads segments again (the metadata log alone is
/// every start's cost: no finding).
pub fn startup_finding(c: &StartupCost) -> Option<Finding> {
    let segments = c.segments();
    if segments == 0 {
        return None;
    }
    let secs = c.estimated_ms as f64 / 1000.0;
    let severity = if c.estimated_ms >= WARN_STARTUP_MS {
        Severity::Warning
    } else {
        Severity::Info
    };
    let f = Finding::new(
        &catalog::DIR_STARTUP_RECOVERY,
        Location {
            log_dir: c.path.clone(),
            ..Location::default()
        },
        startup_message(c, segments, secs),
    )
    .with_severity(severity);
    Some(with_cost_evidence(f, c, segments).fix(format!(
        "expect the next start to take {} longer (an estimate); to shorten it \
         raise `num.recovery.threads.per.data.dir` (now {}) for that start, rebuild missing \
         indexes offline first with `logclean rebuild-index --execute`, and stop brokers with \
         SIGTERM (controlled shutdown writes `.kafka_cleanshutdown`) rather than SIGKILL",
        about_seconds(secs),
        c.recovery_threads
    )))
}

/// An estimate in seconds as words: "about 1.5 s", or "under 0.1 s" where one decimal would
/// print a misleading 0.0.
fn about_seconds(secs: f64) -> String {
    if secs < 0.05 {
        "under 0.1 s".to_string()
    } else {
        format!("about {secs:.1} s")
    }
}

/// What the next start of `c`'s dir recovers and why, in one sentence.
fn startup_message(c: &StartupCost, segments: u64, secs: f64) -> String {
    let mut parts = Vec::new();
    if c.unclean_segments > 0 {
        parts.push(format!(
            "{} from the recovery point on{}",
            c.unclean_segments,
            match c.unclean_missing_index_segments {
                0 => String::new(),
                n if n == c.unclean_segments => ", none with an .index".to_string(),
                n => format!(", {n} of them without .index"),
            }
        ));
    }
    if c.missing_index_segments > 0 {
        parts.push(format!(
            "{} because their .index is missing",
            c.missing_index_segments
        ));
    }
    if c.swap_segments > 0 {
        parts.push(format!("{} .swap renamed in", c.swap_segments));
    }
    let metadata_log = if c.metadata_log_segments > 0 {
        format!(
            "; plus this dir's metadata log, {} B, as on every start",
            c.metadata_log_bytes
        )
    } else {
        String::new()
    };
    let why = if c.clean_shutdown {
        "after a clean shutdown"
    } else if c.locked {
        "a broker holds the dir's .lock (running): if it crashed now,"
    } else {
        "after the unclean shutdown (no .kafka_cleanshutdown)"
    };
    format!(
        "{why} the next start recovers {segments} segment(s), {} B in {} partition(s) \
         ({}): {} at an assumed 45 MB/s per thread × {} thread(s) \
         (estimate; {}){metadata_log}",
        c.recover_bytes,
        c.partitions,
        parts.join("; "),
        about_seconds(secs),
        c.recovery_threads,
        c.recovery_threads_basis,
    )
}

/// `f` with the figures of `c`.
fn with_cost_evidence(f: Finding, c: &StartupCost, segments: u64) -> Finding {
    f.evidence("segments", EvidenceValue::Count(segments))
        .evidence("bytes", EvidenceValue::Bytes(c.recover_bytes))
        .evidence("partitions", EvidenceValue::Count(c.partitions))
        .evidence("unclean_segments", EvidenceValue::Count(c.unclean_segments))
        .evidence(
            "unclean_missing_index_segments",
            EvidenceValue::Count(c.unclean_missing_index_segments),
        )
        .evidence(
            "missing_index_segments",
            EvidenceValue::Count(c.missing_index_segments),
        )
        .evidence("swap_segments", EvidenceValue::Count(c.swap_segments))
        .evidence(
            "largest_partition_bytes",
            EvidenceValue::Bytes(c.largest_partition_bytes),
        )
        .evidence("deleted_files", EvidenceValue::Count(c.deleted_files))
        .evidence(
            "metadata_log_bytes",
            EvidenceValue::Bytes(c.metadata_log_bytes),
        )
        .evidence(
            "recovery_threads",
            EvidenceValue::Int(i64::from(c.recovery_threads)),
        )
        .evidence(
            "recovery_threads_basis",
            EvidenceValue::Text(c.recovery_threads_basis.clone()),
        )
        .evidence(
            "assumed_bytes_per_sec_per_thread",
            EvidenceValue::Bytes(RECOVERY_BYTES_PER_SEC),
        )
        .evidence("estimated_ms", EvidenceValue::Int(c.estimated_ms))
}

/// The findings of `costs`.
pub fn startup_findings(costs: &[StartupCost]) -> Vec<Finding> {
    costs.iter().filter_map(startup_finding).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimate_uses_threads_and_the_largest_partition() {
        assert_eq!(estimate_ms(45_000_000, 0, 1), 1000);
        assert_eq!(estimate_ms(90_000_000, 10, 2), 1000);
        // One partition holds it all: more threads do not help.
        assert_eq!(estimate_ms(90_000_000, 90_000_000, 4), 2000);
        assert_eq!(estimate_ms(45_000_000, 0, 0), 1000, "0 threads read as 1");
    }

    #[test]
    fn finding_only_when_segments_are_recovered() {
        let mut c = StartupCost {
            metadata_log_segments: 1,
            metadata_log_bytes: 100,
            recovery_threads: 1,
            ..StartupCost::default()
        };
        assert!(startup_finding(&c).is_none(), "metadata log alone");
        c.unclean_segments = 2;
        c.recover_bytes = 27_000_000_000;
        c.largest_partition_bytes = 27_000_000_000;
        c.estimated_ms = estimate_ms(c.recover_bytes, c.largest_partition_bytes, 1);
        let f = startup_finding(&c).unwrap();
        assert_eq!(f.severity, Severity::Warning, "600 s");
        assert!(f.message.contains("600.0 s"), "{}", f.message);
    }
}
