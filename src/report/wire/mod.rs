//! The JSON wire format (schema version [`SCHEMA_VERSION`]), kept apart from the model so
//! internal changes do not break consumers: the shared [`Envelope`], findings
//! ([`findings`]) and `inspect`'s log dirs, partitions and segments (here). Documented in
//! README.md ("JSON output").

use serde::Serialize;

use crate::model::lock::LockState;
use crate::model::log_dir::LogDir;
use crate::model::metadata_log::{metadata_version_name, parse_snapshot_name, MetadataImage};
use crate::model::mode::{LogDirMode, ModeEvidence};
use crate::model::names::{path_text, PartitionDirState};
use crate::model::partition::Partition;
use crate::model::segment::{IndexShape, LogEnd, LogSummary, Segment};
use crate::model::units::Offset;
use crate::rules::facts::TimestampSource;
use crate::rules::recovery::{recovery_on_next_start, PartitionRecovery};
use std::collections::BTreeMap;

pub mod assumptions;
pub mod envelope;
pub mod filter;
pub mod findings;

pub use envelope::{Envelope, ScanTotals, SummaryDoc, SCHEMA_VERSION};
pub use findings::{EvidenceDoc, FindingDoc, LocationDoc};

/// The keys `inspect` adds to the [`Envelope`].
#[derive(Debug, Serialize)]
pub struct InspectBody {
    /// Log dirs.
    pub log_dirs: Vec<LogDirDoc>,
}

/// The `inspect` document.
pub type InspectDoc = Envelope<InspectBody>;

/// One log dir.
#[derive(Debug, Serialize)]
pub struct LogDirDoc {
    /// Path as given.
    pub path: String,
    /// `cluster.id` from meta.properties.
    pub cluster_id: Option<String>,
    /// `node.id` from meta.properties.
    pub node_id: Option<i32>,
    /// `directory.id` from meta.properties.
    pub directory_id: Option<String>,
    /// `kraft`, `zookeeper` or `unknown` (`model::mode`).
    pub mode: LogDirMode,
    /// What the mode was decided from (`meta.properties v1 with node.id, ...`).
    pub mode_evidence: String,
    /// The Kafka releases that run in that mode (the rules applied are Kafka 4.x's).
    pub kafka_versions: &'static str,
    /// Whether `.kafka_cleanshutdown` exists.
    pub clean_shutdown: bool,
    /// Whether a `.lock` file exists (a running or crashed broker).
    pub lock_file: bool,
    /// The broker's lock on `.lock`, probed with `fcntl(F_GETLK)` without taking it.
    pub lock: LockDoc,
    /// Partitions.
    pub partitions: Vec<PartitionDoc>,
}

/// The state of a log dir's `.lock` (`model::lock::LockState`).
#[derive(Debug, Serialize)]
pub struct LockDoc {
    /// `absent` (no `.lock` file), `free` (no process holds it: a crashed or stopped broker),
    /// `held` (a running broker holds it) or `unknown` (the probe failed).
    pub state: &'static str,
    /// The holder's process id, when `held` and the kernel names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<i32>,
}

impl LockDoc {
    /// Wire form of a probed lock.
    pub fn new(lock: &LockState) -> Self {
        let (state, pid) = match lock {
            LockState::NoLockFile => ("absent", None),
            LockState::Unlocked => ("free", None),
            LockState::HeldBy { pid } => ("held", *pid),
            LockState::Unknown => ("unknown", None),
        };
        LockDoc { state, pid }
    }
}

/// One partition dir.
#[derive(Debug, Serialize)]
pub struct PartitionDoc {
    /// Dir name.
    pub dir: String,
    /// Topic (None when the dir name does not parse).
    pub topic: Option<String>,
    /// Partition number.
    pub partition: Option<i32>,
    /// `live`, `delete`, `future`, `stray` or `unparseable`.
    pub state: &'static str,
    /// Topic id from partition.metadata.
    pub topic_id: Option<String>,
    /// Log start offset as the broker would load it for a local log: the checkpoint raised to
    /// the first segment (for a tiered log this is the local log start; see
    /// `total_log_start_offset`).
    pub log_start_offset: Option<i64>,
    /// Whether the log is tiered (`remote.storage.enable=true` in the metadata log and a remote
    /// log metadata topic present): its log start checkpoint is the total one.
    pub remote_log_enabled: bool,
    /// The local log start offset: the first local record (the same as `log_start_offset`).
    pub local_log_start_offset: Option<i64>,
    /// The total log start offset, remote segments included: for a tiered log the checkpoint
    /// value as the broker loads it (0 without an entry), normally below the first local
    /// segment; otherwise the same as `log_start_offset`.
    pub total_log_start_offset: Option<i64>,
    /// Log end offset.
    pub log_end_offset: Option<i64>,
    /// Bytes of `.log` files.
    pub size_bytes: u64,
    /// recovery-point-offset-checkpoint entry.
    pub recovery_point: Option<i64>,
    /// replication-offset-checkpoint entry.
    pub high_watermark: Option<i64>,
    /// log-start-offset-checkpoint entry.
    pub log_start_offset_checkpoint: Option<i64>,
    /// cleaner-offset-checkpoint entry.
    pub cleaner_offset: Option<i64>,
    /// leader-epoch-checkpoint entries as `[epoch, start_offset]`.
    pub leader_epochs: Vec<[i64; 2]>,
    /// Segments, ascending.
    pub segments: Vec<SegmentDoc>,
    /// Producer snapshots, ascending.
    pub snapshots: Vec<SnapshotDoc>,
    /// With `--records`: batches and records.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batches: Option<Vec<crate::model::records::BatchDump>>,
    /// `__cluster_metadata-0` only: what the KRaft metadata log holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata_log: Option<MetadataLogDoc>,
}

/// The KRaft metadata log (`__cluster_metadata-0`): its snapshots and the finalized feature
/// levels of the image rebuilt from the newest valid snapshot and the log after it.
#[derive(Debug, Serialize)]
pub struct MetadataLogDoc {
    /// Snapshot files (`<end offset>-<epoch>.checkpoint`), by end offset.
    pub snapshots: Vec<MetadataSnapshotDoc>,
    /// The snapshot file the image starts from (null: none valid, the log from its start).
    pub snapshot_used: Option<String>,
    /// The last offset whose effect the image holds.
    pub complete_up_to: Option<i64>,
    /// Feature name → finalized level (`metadata.version`, `kraft.version`, `group.version`, ...).
    pub features: BTreeMap<String, i16>,
    /// `metadata.version` as Kafka names it (`4.4-IV2`), when the level is known.
    pub metadata_version: Option<&'static str>,
    /// Problems of the replay (also the findings of `config`), as text.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

/// One metadata snapshot file.
#[derive(Debug, Serialize)]
pub struct MetadataSnapshotDoc {
    /// File name.
    pub file: String,
    /// The offset it ends at (exclusive: the image holds offsets below it).
    pub end_offset: i64,
    /// The leader epoch in its name.
    pub epoch: i32,
    /// File size.
    pub size_bytes: u64,
}

impl MetadataLogDoc {
    /// The wire form of the metadata log listed in `p`, with the image rebuilt from it.
    pub fn new(p: &Partition, image: &MetadataImage) -> Self {
        let mut snapshots: Vec<MetadataSnapshotDoc> = p
            .listing
            .metadata_snapshots
            .iter()
            .filter_map(|f| {
                let file = f.path.file_name()?;
                let (end_offset, epoch) = parse_snapshot_name(file.to_str()?)?;
                Some(MetadataSnapshotDoc {
                    file: crate::model::names::name_text(file),
                    end_offset,
                    epoch,
                    size_bytes: f.len_or_zero(),
                })
            })
            .collect();
        snapshots.sort_by_key(|s| (s.end_offset, s.epoch));
        MetadataLogDoc {
            snapshots,
            snapshot_used: image
                .snapshot_used
                .as_deref()
                .and_then(std::path::Path::file_name)
                .map(crate::model::names::name_text),
            complete_up_to: image.complete_up_to,
            metadata_version: image
                .features
                .get("metadata.version")
                .and_then(|l| metadata_version_name(*l)),
            features: image.features.clone(),
            problems: image
                .problems
                .iter()
                .map(|p| {
                    let file = p.path.file_name().map(crate::model::names::name_text);
                    format!("{}: {}", file.unwrap_or_default(), p.message)
                })
                .collect(),
        }
    }
}

/// One segment.
#[derive(Debug, Serialize)]
pub struct SegmentDoc {
    /// Base offset.
    pub base_offset: i64,
    /// Whether it is the active (last) segment.
    pub active: bool,
    /// Whether the broker recovers it on its next start (unclean shutdown, at or after the
    /// segment holding the recovery point; the metadata log always; a segment without `.index`).
    pub recovered_on_start: bool,
    /// `.log` bytes.
    pub size_bytes: u64,
    /// First batch's base offset.
    pub first_offset: Option<i64>,
    /// Offset after the last batch.
    pub next_offset: Option<i64>,
    /// First batch's first timestamp.
    pub first_timestamp_ms: Option<i64>,
    /// First batch's max timestamp (what time-based rolling counts from).
    pub first_batch_max_timestamp_ms: Option<i64>,
    /// Largest timestamp the broker uses after its next start (rebuilt from the batches when it
    /// recovers the segment).
    pub largest_timestamp_ms: Option<i64>,
    /// `time_index`, `log_mtime` or `recovery`.
    pub largest_timestamp_source: Option<TimestampSourceDoc>,
    /// Largest timestamp as the files hold it, before any recovery: the last time-index slot by
    /// count if ≥ 0, else the `.log` mtime.
    pub largest_timestamp_on_disk_ms: Option<i64>,
    /// Batches (depth headers and up).
    pub batches: Option<u64>,
    /// Records (depth headers and up).
    pub records: Option<u64>,
    /// Codecs seen.
    pub codecs: Vec<String>,
    /// Transactional data batches (depth headers and up).
    pub transactional_batches: Option<u64>,
    /// Control batches: transaction markers (depth headers and up).
    pub control_batches: Option<u64>,
    /// `clean`, `partial_batch`, `zero_filled`, `corrupt` or `unread`.
    pub log_end: &'static str,
    /// Offset index state.
    pub index: Option<IndexDoc>,
    /// Time index state.
    pub time_index: Option<IndexDoc>,
    /// Aborted transactions in the txn index (None: no file).
    pub aborted_transactions: Option<usize>,
}

/// Where `largest_timestamp_ms` comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TimestampSourceDoc {
    /// The last time-index entry.
    TimeIndex,
    /// The `.log` file's mtime.
    LogMtime,
    /// The batches: the broker recovers the segment on its next start.
    Recovery,
}

impl From<TimestampSource> for TimestampSourceDoc {
    fn from(s: TimestampSource) -> Self {
        match s {
            TimestampSource::TimeIndex => TimestampSourceDoc::TimeIndex,
            TimestampSource::LogMtime => TimestampSourceDoc::LogMtime,
            TimestampSource::Recovered => TimestampSourceDoc::Recovery,
        }
    }
}

/// An index's shape.
#[derive(Debug, Serialize)]
pub struct IndexDoc {
    /// File bytes.
    pub file_bytes: u64,
    /// Slots as Kafka counts them.
    pub slots: u32,
    /// Valid entries.
    pub valid_entries: u32,
    /// Zero-filled tail slots.
    pub zero_tail: u32,
}

impl IndexDoc {
    fn new(shape: &IndexShape) -> Self {
        IndexDoc {
            file_bytes: shape.file_len,
            slots: shape.slots,
            valid_entries: shape.valid_entries,
            zero_tail: shape.zero_tail,
        }
    }
}

/// One producer snapshot.
#[derive(Debug, Serialize)]
pub struct SnapshotDoc {
    /// Offset in its name.
    pub offset: i64,
    /// Producers recorded (None when unreadable).
    pub producers: Option<usize>,
    /// Producers with an open transaction.
    pub open_transactions: Option<usize>,
    /// Whether the CRC matches.
    pub crc_ok: bool,
}

impl LogDirDoc {
    /// Wire form of a loaded log dir of `mode` ([`crate::model::mode::run_modes`]).
    pub fn new(d: &LogDir, mode: &ModeEvidence) -> Self {
        let meta = d.meta.as_ref().and_then(|m| m.as_ref().ok());
        LogDirDoc {
            path: path_text(&d.path),
            cluster_id: meta.and_then(|m| m.cluster_id.clone()),
            node_id: meta.and_then(|m| m.node_id),
            directory_id: meta.and_then(|m| m.directory_id).map(|u| u.to_string()),
            mode: mode.mode,
            mode_evidence: mode.describe(),
            kafka_versions: mode.mode.kafka_versions(),
            clean_shutdown: d.clean_shutdown.is_some(),
            lock_file: d.listing.root.lock.is_some(),
            lock: LockDoc::new(&d.lock),
            partitions: d
                .partitions
                .iter()
                .zip(&recovery_on_next_start(d).partitions)
                .map(|(p, r)| PartitionDoc::new(p, r))
                .collect(),
        }
    }
}

impl PartitionDoc {
    /// Wire form of a loaded partition, with its recovery on the broker's next start.
    pub fn new(p: &Partition, recovery: &PartitionRecovery) -> Self {
        let state = match p.name.as_ref().map(|n| &n.state) {
            None => "unparseable",
            Some(PartitionDirState::Live) => "live",
            Some(PartitionDirState::Delete(_)) => "delete",
            Some(PartitionDirState::Future(_)) => "future",
            Some(PartitionDirState::Stray(_)) => "stray",
        };
        let leader_epochs = p
            .leader_epochs
            .as_ref()
            .and_then(|r| r.as_ref().ok())
            .map(|f| {
                f.values()
                    .map(|e| [i64::from(e.epoch), e.start_offset])
                    .collect()
            })
            .unwrap_or_default();
        PartitionDoc {
            dir: p.dir_name.clone(),
            topic: p.name.as_ref().map(|n| n.topic.clone()),
            partition: p.name.as_ref().map(|n| n.partition),
            state,
            topic_id: p
                .metadata
                .as_ref()
                .and_then(|m| m.as_ref().ok())
                .map(|m| m.topic_id.to_string()),
            log_start_offset: p.log_start_offset().map(Offset::get),
            remote_log_enabled: false,
            local_log_start_offset: p.log_start_offset().map(Offset::get),
            total_log_start_offset: p.log_start_offset().map(Offset::get),
            log_end_offset: p.log_end_offset().map(Offset::get),
            size_bytes: p.size().get(),
            recovery_point: p.checkpoints.recovery_point.map(Offset::get),
            high_watermark: p.checkpoints.high_watermark.map(Offset::get),
            log_start_offset_checkpoint: p.checkpoints.log_start_offset.map(Offset::get),
            cleaner_offset: p.checkpoints.cleaner_offset.map(Offset::get),
            leader_epochs,
            segments: p
                .segments
                .iter()
                .map(|s| SegmentDoc::new(s, recovery))
                .collect(),
            snapshots: p
                .snapshots
                .iter()
                .map(|s| {
                    let ok = s.parsed.as_ref().ok();
                    SnapshotDoc {
                        offset: s.offset,
                        producers: ok.map(|s| s.entries.len()),
                        open_transactions: ok.map(|s| {
                            s.entries
                                .iter()
                                .filter(|e| e.open_txn_first_offset().is_some())
                                .count()
                        }),
                        crc_ok: ok.is_some_and(|s| s.crc_ok()),
                    }
                })
                .collect(),
            batches: None,
            metadata_log: None,
        }
    }
}

impl SegmentDoc {
    /// Wire form of a loaded segment, with its recovery on the broker's next start.
    pub fn new(s: &Segment, recovery: &PartitionRecovery) -> Self {
        let largest = recovery.largest_timestamp(s).ok();
        let log = s.log_summary();
        let stats = log.and_then(|l| l.stats.as_ref());
        let log_end = match log.map(LogSummary::log_end) {
            None => "unread",
            Some(LogEnd::Corrupt) => "corrupt",
            Some(LogEnd::PartialBatch) => "partial_batch",
            Some(LogEnd::ZeroFilled) => "zero_filled",
            Some(LogEnd::Clean) => "clean",
        };
        SegmentDoc {
            base_offset: s.base_offset.get(),
            active: s.active,
            recovered_on_start: recovery.recovers(s),
            size_bytes: s.size().get(),
            first_offset: log.and_then(|l| l.first_batch).map(|b| b.base_offset.get()),
            next_offset: log.map(|l| l.next_offset.get()),
            first_timestamp_ms: log
                .and_then(|l| l.first_batch)
                .map(|b| b.first_timestamp.get()),
            first_batch_max_timestamp_ms: log
                .and_then(|l| l.first_batch)
                .map(|b| b.max_timestamp.get()),
            largest_timestamp_ms: largest.map(|t| t.0.get()),
            largest_timestamp_source: largest.map(|t| t.1.into()),
            largest_timestamp_on_disk_ms: s.largest_timestamp_on_disk().known().map(|t| t.get()),
            batches: stats.map(|s| s.batches),
            records: stats.map(|s| s.records),
            codecs: stats.map(|s| s.codecs.clone()).unwrap_or_default(),
            transactional_batches: stats.map(|s| s.transactional_batches),
            control_batches: stats.map(|s| s.control_batches),
            log_end,
            index: s
                .index
                .as_ref()
                .and_then(|r| r.as_ref().ok())
                .map(|i| IndexDoc::new(&i.shape)),
            time_index: s
                .time_index
                .as_ref()
                .and_then(|r| r.as_ref().ok())
                .map(|i| IndexDoc::new(&i.shape)),
            aborted_transactions: s
                .txn_index
                .as_deref()
                .and_then(|r| r.as_ref().ok())
                .map(|t| t.entries),
        }
    }
}
