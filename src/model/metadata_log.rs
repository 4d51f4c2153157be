//! The cluster metadata image, rebuilt read-only from a `__cluster_metadata-0` dir: topics and
//! their ids, partitions, topic and broker configs, finalized features.
//!
//! Follows spec §8.5 "To reconstruct state offline": take the newest valid snapshot
//! `<endOffset>-<epoch>.checkpoint` (its records stand for every log offset below `endOffset`),
//! replay it, then replay the `.log` segments' records from `endOffset` on. Control batches are
//! skipped; metadata transactions (KIP-868) are honoured: records between
//! `BeginTransactionRecord` and `EndTransactionRecord` are applied at the end record, those
//! before an `AbortTransactionRecord` are dropped. Replay rules follow Kafka's `MetadataDelta`
//! (`metadata/.../image/*Delta.java`) and `PartitionRegistration.merge`.
//!
//! Nothing here panics or guesses. A snapshot that does not read cleanly (I/O error, bad CRC,
//! torn or missing batches, no footer, an undecodable record) is skipped with a problem and the
//! previous one is tried. The log replay stops at the first batch or record it cannot use (or at
//! a gap in the offsets) with a problem; [`MetadataImage::complete_up_to`] then names the last
//! log offset whose effect the image holds.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::formats::control::ControlKind;
use crate::formats::metadata_record::{
    decode_frame, decode_metadata_record, resource_type, MetadataRecord, PartitionChangeRecord,
    PartitionRecord,
};
use crate::formats::partition_metadata::Uuid;
use crate::formats::record_walk::{Batch, RecordWalk, StopReason, WalkStop};
use crate::formats::{ErrorKind, FormatError};

use super::file_bytes::{read_file, read_file_data, ReadMode};
use super::listing::{list_partition_dir, FileInfo};

/// One partition in the image.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PartitionImage {
    /// Replicas in preferred order.
    pub replicas: Vec<i32>,
    /// In-sync replicas.
    pub isr: Vec<i32>,
    /// The leader, -1 for none.
    pub leader: i32,
    /// The leader epoch.
    pub leader_epoch: i32,
    /// The partition epoch.
    pub partition_epoch: i32,
    /// 1 while recovering from an unclean leader election, else 0.
    pub leader_recovery_state: i8,
    /// The log directory id of each replica (same order as `replicas`); empty when the
    /// metadata version predates directory assignment (PartitionRecord v0).
    pub directories: Vec<Uuid>,
    /// Eligible leader replicas (KIP-966; empty when none or before `PartitionRecord` v2):
    /// replicas that left the ISR while it was below `min.insync.replicas`, with every
    /// committed record. A clean shutdown of the last ISR member leaves the ISR empty and the
    /// leader -1, its members here.
    pub elr: Vec<i32>,
}

impl PartitionImage {
    /// The log directory id the image assigns to `node`'s replica: `None` when `node` holds no
    /// replica or the metadata version predates directory assignment.
    pub fn replica_directory(&self, node: i32) -> Option<Uuid> {
        let i = self.replicas.iter().position(|&r| r == node)?;
        self.directories.get(i).copied()
    }
}

/// Whether `id` is one of Kafka's reserved directory ids (`DirectoryId.reserved`: most
/// significant half 0, least below 100), e.g. `UNASSIGNED` (0), `LOST` (1), `MIGRATING` (2), which
/// name no real log dir.
pub fn is_reserved_directory(id: &Uuid) -> bool {
    (0..100u64).any(|least| *id == Uuid::from_halves(0, least))
}

/// One topic in the image.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TopicImage {
    /// The topic id.
    pub topic_id: Uuid,
    /// Partitions by number.
    pub partitions: BTreeMap<i32, PartitionImage>,
}

/// Something that kept the image from being complete or certain.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MetadataProblem {
    /// The file concerned (the metadata dir itself for listing errors).
    #[serde(with = "crate::model::names::path_serde")]
    pub path: PathBuf,
    /// Byte position in the file, when known.
    pub byte_offset: Option<u64>,
    /// Log offset (or, in a snapshot, offset inside the snapshot), when known.
    pub offset: Option<i64>,
    /// What is wrong (lowercase, no path).
    pub message: String,
    /// The parse error behind the problem, if it is one.
    pub error: Option<FormatError>,
    /// The file or dir could not be read (the OS refused or failed the read; `message` holds
    /// its error): an operational error, not a broken log.
    pub unreadable: bool,
}

/// The metadata image rebuilt from snapshot and log.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MetadataImage {
    /// Topics by name.
    pub topics: BTreeMap<String, TopicImage>,
    /// Topic names by id.
    pub topics_by_id: BTreeMap<Uuid, String>,
    /// Dynamic topic configs (`ConfigRecord` type 2) by topic name, then key.
    pub topic_configs: BTreeMap<String, BTreeMap<String, String>>,
    /// Dynamic broker configs (`ConfigRecord` type 4) by resource name: `""` for the cluster
    /// default, the node id in decimal (`"1"`) for one node.
    pub broker_configs: BTreeMap<String, BTreeMap<String, String>>,
    /// Finalized feature levels (`metadata.version`, `transaction.version`, …).
    pub features: BTreeMap<String, i16>,
    /// The snapshot replayed, if any.
    #[serde(with = "crate::model::names::opt_path_serde")]
    pub snapshot_used: Option<PathBuf>,
    /// The last log offset whose effect the image holds (records of an unfinished metadata
    /// transaction are not counted). `None` when no log offset is covered: no snapshot with an
    /// end offset above 0 and no log record applied.
    pub complete_up_to: Option<i64>,
    /// Record counts by `(apiKey, version)`, over the snapshot and log records replayed
    /// (control records excluded).
    #[serde(with = "records_seen_pairs")]
    pub records_seen: BTreeMap<(u16, u16), u64>,
    /// Everything that went wrong, in order.
    pub problems: Vec<MetadataProblem>,
}

/// `records_seen` in a facts snapshot: a list of `[apiKey, version, count]` (JSON keys are
/// strings, not pairs).
mod records_seen_pairs {
    use std::collections::BTreeMap;

    pub fn serialize<S: serde::Serializer>(
        m: &BTreeMap<(u16, u16), u64>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_seq(m.iter().map(|(&(k, v), &n)| (k, v, n)))
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<(u16, u16), u64>, D::Error> {
        let v: Vec<(u16, u16, u64)> = serde::Deserialize::deserialize(d)?;
        Ok(v.into_iter().map(|(k, ver, n)| ((k, ver), n)).collect())
    }
}

impl MetadataImage {
    /// The image of a metadata log a facts snapshot does not hold: nothing known, said as an
    /// unreadable input.
    pub fn not_carried(dir: &Path) -> MetadataImage {
        let mut r = Replay::default();
        r.io_problem(dir, None, "not in the facts snapshot read".to_string());
        r.image
    }

    /// The dynamic configs of `topic`, if it has any.
    pub fn topic_config(&self, topic: &str) -> Option<&BTreeMap<String, String>> {
        self.topic_configs.get(topic)
    }

    /// The topic with id `id`.
    pub fn topic_by_id(&self, id: &Uuid) -> Option<(&str, &TopicImage)> {
        let name = self.topics_by_id.get(id)?;
        self.topics.get(name).map(|t| (name.as_str(), t))
    }
}

/// A snapshot file name `<endOffset 20 digits>-<epoch 10 digits>.checkpoint` as
/// `(end_offset, epoch)`.
pub fn parse_snapshot_name(name: &str) -> Option<(i64, i32)> {
    let stem = name.strip_suffix(".checkpoint")?;
    let (offset, epoch) = stem.split_once('-')?;
    if offset.len() != 20
        || epoch.len() != 10
        || !offset
            .bytes()
            .chain(epoch.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    Some((offset.parse().ok()?, epoch.parse().ok()?))
}

/// The `metadata.version` feature level's name as Kafka's `MetadataVersion` enum spells it
/// (`server-common/.../MetadataVersion.java`, up to Kafka 4.5): level 21 is `3.9-IV0`, 22 to
/// 25 are `4.0-IV0` to `4.0-IV3`, 33 is `4.4-IV2`. `None` for a level this table does not know.
pub fn metadata_version_name(level: i16) -> Option<&'static str> {
    const NAMES: &[&str] = &[
        "3.0-IV1", "3.1-IV0", "3.2-IV0", "3.3-IV0", "3.3-IV1", "3.3-IV2", "3.3-IV3", "3.4-IV0",
        "3.5-IV0", "3.5-IV1", "3.5-IV2", "3.6-IV0", "3.6-IV1", "3.6-IV2", "3.7-IV0", "3.7-IV1",
        "3.7-IV2", "3.7-IV3", "3.7-IV4", "3.8-IV0", "3.9-IV0", "4.0-IV0", "4.0-IV1", "4.0-IV2",
        "4.0-IV3", "4.1-IV0", "4.1-IV1", "4.2-IV0", "4.2-IV1", "4.3-IV0", "4.4-IV0", "4.4-IV1",
        "4.4-IV2", "4.5-IV0",
    ];
    let index = usize::try_from(level).ok()?.checked_sub(1)?;
    NAMES.get(index).copied()
}

/// Rebuild the metadata image from `dir`, a `__cluster_metadata-0` directory. Never fails:
/// whatever could not be read is in [`MetadataImage::problems`].
pub fn load_metadata_image(dir: &Path, read_mode: ReadMode) -> MetadataImage {
    let mut r = Replay::default();
    let listing = match list_partition_dir(dir) {
        Ok(l) => l,
        Err(e) => {
            r.io_problem(dir, None, format!("cannot list directory: {e}"));
            return r.image;
        }
    };
    for p in &listing.io_problems {
        r.io_problem(&p.path, None, p.message.clone());
    }
    let mut next = r.replay_newest_snapshot(&listing.metadata_snapshots, read_mode);
    let segments: Vec<(i64, &Path)> = listing
        .segments
        .values()
        .filter_map(|s| s.log.as_ref().map(|l| (s.base_offset, l.path.as_path())))
        .collect();
    if next.is_none() {
        match segments.first() {
            Some(&(0, _)) => next = Some(0),
            Some(&(base, path)) => {
                r.problem(
                    path,
                    None,
                    Some(base),
                    format!(
                        "no usable snapshot and the log starts at offset {base}: the state \
                         before it is unknown, the log is not replayed"
                    ),
                    None,
                );
                return r.finish();
            }
            None => {
                r.problem(
                    dir,
                    None,
                    None,
                    "no usable snapshot and no log segment".into(),
                    None,
                );
                return r.finish();
            }
        }
    }
    for (i, &(_, path)) in segments.iter().enumerate() {
        // A segment whose successor starts at or below the next offset needed holds nothing new.
        if let (Some(n), Some(&(next_base, _))) = (next, segments.get(i + 1)) {
            if next_base <= n {
                continue;
            }
        }
        if !r.replay_segment(path, read_mode, &mut next) {
            break;
        }
    }
    r.finish()
}

impl Replay {
    /// Replay the newest snapshot that reads cleanly (by end offset, then epoch), reporting each
    /// newer one that does not; the log offset the replay continues from, `None` if no snapshot
    /// was usable.
    fn replay_newest_snapshot(&mut self, files: &[FileInfo], read_mode: ReadMode) -> Option<i64> {
        let mut snapshots: Vec<(i64, i32, &Path)> = files
            .iter()
            .filter_map(|f| {
                let name = f.path.file_name()?.to_str()?;
                let (end, epoch) = parse_snapshot_name(name)?;
                Some((end, epoch, f.path.as_path()))
            })
            .collect();
        snapshots.sort();
        for &(end, _, path) in snapshots.iter().rev() {
            match read_snapshot(path, read_mode) {
                Ok(records) => {
                    for (offset, kv, record) in records {
                        self.apply(path, None, offset, kv, record);
                    }
                    if let Some(begin) = self.txn.take() {
                        self.problem(
                            path,
                            None,
                            Some(begin.begin_offset),
                            "snapshot ends inside a metadata transaction; its records are not \
                             applied"
                                .into(),
                            None,
                        );
                    }
                    self.image.snapshot_used = Some(path.to_path_buf());
                    self.image.complete_up_to = end.checked_sub(1).filter(|o| *o >= 0);
                    return Some(end);
                }
                Err(p) => self.image.problems.push(*p),
            }
        }
        None
    }

    /// Replay one log segment from `next` on, advancing it; whether the replay goes on with the
    /// next segment (false once a problem has ended it).
    fn replay_segment(&mut self, path: &Path, read_mode: ReadMode, next: &mut Option<i64>) -> bool {
        // A sparse tail is not read: the walk ends at the data's end, and the hole is added to
        // the zeros it ends with (a batch cut by the hole is incomplete here; the broker reads
        // it as a batch of zeros failing its CRC: the replay stops at it either way).
        let (bytes, hole) = match read_file_data(path, read_mode) {
            Ok(d) => (d.bytes, d.hole),
            Err(e) => {
                self.io_problem(path, *next, format!("cannot read segment: {e}"));
                return false;
            }
        };
        let mut walk = RecordWalk::new(&bytes);
        if !self.replay_batches(path, &mut walk, next) {
            return false;
        }
        // The walk stopped by itself (the checks in `replay_batches` end the replay at once).
        let Some(stop) = walk.into_stop() else {
            return false;
        };
        self.segment_ended_cleanly(path, stop, hole, bytes.len() as u64, *next)
    }

    /// Apply the batches `walk` yields from `next` on; false at a gap in the offsets, a bad CRC
    /// or an undecodable record (each reported), which end the replay.
    fn replay_batches(
        &mut self,
        path: &Path,
        walk: &mut RecordWalk<'_>,
        next: &mut Option<i64>,
    ) -> bool {
        for batch in walk.by_ref() {
            let info = &batch.info;
            let expected = next.unwrap_or(info.base_offset);
            if info.last_offset < expected {
                continue;
            }
            if info.base_offset > expected {
                self.problem(
                    path,
                    Some(info.position),
                    Some(expected),
                    format!(
                        "offsets {expected}..{} are missing from the log",
                        info.base_offset - 1
                    ),
                    None,
                );
                return false;
            }
            if let Err(e) = batch.verify_crc() {
                self.format_problem(path, Some(info.base_offset), "corrupt batch", e);
                return false;
            }
            if info.is_control {
                if self.txn.is_none() {
                    self.image.complete_up_to = Some(info.last_offset);
                }
                *next = info.last_offset.checked_add(1);
                continue;
            }
            match decode_batch(&batch, expected) {
                Ok(records) => {
                    for (offset, kv, record) in records {
                        self.apply(path, Some(info.position), offset, kv, record);
                    }
                    *next = info.last_offset.checked_add(1);
                }
                Err((offset, e)) => {
                    self.format_problem(path, Some(offset), "undecodable metadata record", e);
                    return false;
                }
            }
        }
        true
    }

    /// Whether a segment's walk, stopped at `stop` with a sparse tail of `hole` bytes after its
    /// `data_len` bytes of data, ended where the next segment may take over; a bad batch, a torn
    /// tail or trailing zeros are reported and end the replay.
    fn segment_ended_cleanly(
        &mut self,
        path: &Path,
        stop: WalkStop,
        hole: u64,
        data_len: u64,
        next: Option<i64>,
    ) -> bool {
        let zeros = match (stop.reason, hole) {
            (StopReason::BadBatch(e) | StopReason::BadCrc(e) | StopReason::Decode(e), _) => {
                self.format_problem(path, next, "unreadable batch", e);
                return false;
            }
            (StopReason::End | StopReason::Cap, 0) => None,
            (StopReason::End | StopReason::Cap, len) => Some((data_len, len)),
            (StopReason::ZeroFilled { len }, hole) => {
                Some((stop.position, len.saturating_add(hole)))
            }
            (
                StopReason::TornTail {
                    declared_size,
                    available,
                },
                _,
            ) => {
                self.problem(
                    path,
                    Some(stop.position),
                    next,
                    format!(
                        "incomplete batch at the end of the segment ({available} of \
                         {declared_size} bytes)"
                    ),
                    None,
                );
                return false;
            }
        };
        if let Some((position, len)) = zeros {
            self.problem(
                path,
                Some(position),
                next,
                format!("{len} zero bytes at the end of the segment"),
                None,
            );
            return false;
        }
        true
    }
}

/// A decoded data record: offset, `(apiKey, version)`, record.
type Decoded = (i64, (u16, u16), MetadataRecord);

/// Decode the data records of `info` with offsets at or above `from`; on failure, the offset of
/// the record (or the batch base offset) and the error, rebased to the file.
fn decode_batch(batch: &Batch<'_>, from: i64) -> Result<Vec<Decoded>, (i64, FormatError)> {
    let info = &batch.info;
    let mut out = Vec::new();
    // The record whose value failed to decode; a framing error inside the batch is reported at
    // the batch's base offset.
    let mut failed_at = None;
    batch
        .for_each_record(|rec| {
            if rec.offset < from {
                return Ok(());
            }
            let decoded = rec
                .value
                .ok_or_else(|| {
                    FormatError::new(
                        ErrorKind::InvalidField {
                            field: "value",
                            reason: "metadata record with a null value".into(),
                        },
                        0,
                    )
                })
                .and_then(|value| {
                    let frame = decode_frame(value)?;
                    Ok((frame, decode_metadata_record(value)?))
                });
            match decoded {
                Ok((frame, record)) => {
                    out.push((rec.offset, (frame.api_key, frame.version), record));
                    Ok(())
                }
                Err(e) => {
                    failed_at = Some(rec.offset);
                    // Value-relative positions mean nothing in the file: point at the batch.
                    Err(FormatError {
                        offset: info.position,
                        ..e
                    })
                }
            }
        })
        .map_err(|e| (failed_at.unwrap_or(info.base_offset), e))?;
    Ok(out)
}

/// Read a snapshot whole: every batch CRC-checked and decoded, a SNAPSHOT_HEADER control record
/// first and a SNAPSHOT_FOOTER last, no torn tail. Returns the data records in order.
fn read_snapshot(path: &Path, read_mode: ReadMode) -> Result<Vec<Decoded>, Box<MetadataProblem>> {
    let bytes = read_file(path, read_mode).map_err(|e| {
        let mut p = snapshot_problem(path, None, None, format!("cannot read: {e}"), None);
        p.unreadable = true;
        p
    })?;
    let mut walk = RecordWalk::new(&bytes).checking_crc();
    let records = snapshot_records(path, &mut walk)?;
    let valid_end = walk.valid_end();
    check_snapshot_walk_end(path, walk.into_stop())?;
    if records.first_control != Some(ControlKind::SnapshotHeader) {
        return Err(snapshot_problem(
            path,
            Some(0),
            None,
            "does not start with a snapshot header".into(),
            None,
        ));
    }
    if records.last_control != Some(ControlKind::SnapshotFooter) {
        return Err(snapshot_problem(
            path,
            Some(valid_end),
            None,
            "does not end with a snapshot footer (truncated?)".into(),
            None,
        ));
    }
    Ok(records.data)
}

/// Why the snapshot at `path` cannot be used.
fn snapshot_problem(
    path: &Path,
    byte_offset: Option<u64>,
    offset: Option<i64>,
    message: String,
    error: Option<FormatError>,
) -> Box<MetadataProblem> {
    Box::new(MetadataProblem {
        path: path.to_path_buf(),
        byte_offset,
        offset,
        message: format!("snapshot not usable: {message}"),
        error,
        unreadable: false,
    })
}

/// What a snapshot's batches hold: its data records, and the control records that open and
/// close it.
struct SnapshotRecords {
    data: Vec<Decoded>,
    /// The first control record of the first batch, if that batch is a control batch.
    first_control: Option<ControlKind>,
    /// The last control record of the last batch, if that batch is a control batch.
    last_control: Option<ControlKind>,
}

/// Decode every batch `walk` yields; a corrupt control batch, a first batch that is not a
/// control batch, or an undecodable record make the snapshot unusable.
fn snapshot_records(
    path: &Path,
    walk: &mut RecordWalk<'_>,
) -> Result<SnapshotRecords, Box<MetadataProblem>> {
    let mut out = SnapshotRecords {
        data: Vec::new(),
        first_control: None,
        last_control: None,
    };
    for (batch_index, batch) in walk.by_ref().enumerate() {
        let info = &batch.info;
        let first_batch = batch_index == 0;
        out.last_control = None;
        if info.is_control {
            batch
                .for_each_record(|rec| {
                    let kind = rec.control.map(|c| c.kind);
                    if first_batch && out.first_control.is_none() {
                        out.first_control = kind;
                    }
                    out.last_control = kind;
                    Ok(())
                })
                .map_err(|e| {
                    snapshot_problem(
                        path,
                        Some(e.offset),
                        Some(info.base_offset),
                        format!("corrupt control batch: {}", e.kind),
                        Some(e),
                    )
                })?;
            continue;
        }
        if first_batch {
            return Err(snapshot_problem(
                path,
                Some(info.position),
                Some(info.base_offset),
                "does not start with a snapshot header".into(),
                None,
            ));
        }
        let records = decode_batch(&batch, i64::MIN).map_err(|(offset, e)| {
            snapshot_problem(
                path,
                Some(e.offset),
                Some(offset),
                format!("undecodable record: {}", e.kind),
                Some(e),
            )
        })?;
        out.data.extend(records);
    }
    Ok(out)
}

/// A snapshot's walk must end at the end of the file: anything else makes it unusable.
fn check_snapshot_walk_end(
    path: &Path,
    stop: Option<WalkStop>,
) -> Result<(), Box<MetadataProblem>> {
    let problem = |byte_offset, offset, message, error| {
        Err(snapshot_problem(path, byte_offset, offset, message, error))
    };
    match stop.map(|s| (s.position, s.base_offset, s.reason)) {
        Some((_, _, StopReason::End)) => Ok(()),
        Some((_, _, StopReason::BadBatch(e))) => problem(
            Some(e.offset),
            None,
            format!("unreadable batch: {}", e.kind),
            Some(e),
        ),
        Some((_, base_offset, StopReason::BadCrc(e))) => problem(
            Some(e.offset),
            base_offset,
            format!("corrupt batch: {}", e.kind),
            Some(e),
        ),
        Some((position, _, StopReason::TornTail { .. } | StopReason::ZeroFilled { .. })) => {
            problem(
                Some(position),
                None,
                "truncated (incomplete batch at the end)".into(),
                None,
            )
        }
        // Nothing here ends the walk for a decode error or a cap.
        Some((_, _, StopReason::Decode(_) | StopReason::Cap)) | None => {
            problem(None, None, "walk did not finish".into(), None)
        }
    }
}

/// An open metadata transaction.
#[derive(Debug)]
struct PendingTxn {
    path: PathBuf,
    begin_offset: i64,
    records: Vec<(i64, Option<u64>, MetadataRecord)>,
}

#[derive(Debug, Default)]
struct Replay {
    image: MetadataImage,
    txn: Option<PendingTxn>,
}

impl Replay {
    /// Report an unfinished metadata transaction and return the image.
    fn finish(mut self) -> MetadataImage {
        if let Some(t) = self.txn.take() {
            self.problem(
                &t.path,
                None,
                Some(t.begin_offset),
                format!(
                    "metadata transaction begun at offset {} has no end record; its {} records \
                     are not applied",
                    t.begin_offset,
                    t.records.len()
                ),
                None,
            );
        }
        self.image
    }

    fn problem(
        &mut self,
        path: &Path,
        byte_offset: Option<u64>,
        offset: Option<i64>,
        message: String,
        error: Option<FormatError>,
    ) {
        self.image.problems.push(MetadataProblem {
            path: path.to_path_buf(),
            byte_offset,
            offset,
            message,
            error,
            unreadable: false,
        });
    }

    /// A file or dir that could not be read (`message` names the OS error).
    fn io_problem(&mut self, path: &Path, offset: Option<i64>, message: String) {
        self.image.problems.push(MetadataProblem {
            path: path.to_path_buf(),
            byte_offset: None,
            offset,
            message,
            error: None,
            unreadable: true,
        });
    }

    fn format_problem(&mut self, path: &Path, offset: Option<i64>, what: &str, e: FormatError) {
        self.problem(
            path,
            Some(e.offset),
            offset,
            format!("{what}: {}", e.kind),
            Some(e),
        );
    }

    /// Replay one record read at `offset` (a log offset, or the offset inside a snapshot).
    fn apply(
        &mut self,
        path: &Path,
        byte: Option<u64>,
        offset: i64,
        kv: (u16, u16),
        record: MetadataRecord,
    ) {
        *self.image.records_seen.entry(kv).or_default() += 1;
        let in_log = byte.is_some();
        match record {
            MetadataRecord::BeginTransaction { .. } => {
                if let Some(open) = self.txn.take() {
                    self.problem(
                        path,
                        byte,
                        Some(offset),
                        format!(
                            "metadata transaction begun at offset {} was not ended before a new \
                             one began; its {} records are dropped",
                            open.begin_offset,
                            open.records.len()
                        ),
                        None,
                    );
                }
                self.txn = Some(PendingTxn {
                    path: path.to_path_buf(),
                    begin_offset: offset,
                    records: Vec::new(),
                });
            }
            MetadataRecord::EndTransaction => match self.txn.take() {
                Some(t) => {
                    for (o, b, r) in t.records {
                        self.mutate(&t.path, b, o, r);
                    }
                    if in_log {
                        self.image.complete_up_to = Some(offset);
                    }
                }
                None => self.problem(
                    path,
                    byte,
                    Some(offset),
                    "end of a metadata transaction that was not begun".into(),
                    None,
                ),
            },
            MetadataRecord::AbortTransaction { .. } => {
                if self.txn.take().is_none() {
                    self.problem(
                        path,
                        byte,
                        Some(offset),
                        "abort of a metadata transaction that was not begun".into(),
                        None,
                    );
                }
                if in_log {
                    self.image.complete_up_to = Some(offset);
                }
            }
            other => {
                if let Some(t) = self.txn.as_mut() {
                    t.records.push((offset, byte, other));
                } else {
                    self.mutate(path, byte, offset, other);
                    if in_log {
                        self.image.complete_up_to = Some(offset);
                    }
                }
            }
        }
    }

    /// Apply a record's effect to the image.
    fn mutate(&mut self, path: &Path, byte: Option<u64>, offset: i64, record: MetadataRecord) {
        let img = &mut self.image;
        match record {
            MetadataRecord::Topic { name, topic_id } => put_topic(img, name, topic_id),
            MetadataRecord::Partition(p) => {
                let Some(topic) = topic_mut(img, &p.topic_id) else {
                    return self.unknown_topic(path, byte, offset, "PartitionRecord", p.topic_id);
                };
                topic.partitions.insert(p.partition_id, partition_image(p));
            }
            MetadataRecord::PartitionChange(c) => {
                let Some(topic) = topic_mut(img, &c.topic_id) else {
                    return self.unknown_topic(
                        path,
                        byte,
                        offset,
                        "PartitionChangeRecord",
                        c.topic_id,
                    );
                };
                let Some(part) = topic.partitions.get_mut(&c.partition_id) else {
                    let msg = format!(
                        "PartitionChangeRecord for partition {} of topic id {}, which has no \
                         PartitionRecord",
                        c.partition_id, c.topic_id
                    );
                    return self.problem(path, byte, Some(offset), msg, None);
                };
                merge(part, c);
            }
            MetadataRecord::RemoveTopic { topic_id } => match img.topics_by_id.remove(&topic_id) {
                Some(name) => {
                    img.topics.remove(&name);
                    img.topic_configs.remove(&name);
                }
                None => self.unknown_topic(path, byte, offset, "RemoveTopicRecord", topic_id),
            },
            MetadataRecord::Config {
                resource_type,
                resource_name,
                name,
                value,
            } => set_config(img, resource_type, resource_name, name, value),
            MetadataRecord::FeatureLevel {
                name,
                feature_level,
            } => {
                // FeaturesDelta: level 0 removes the feature.
                if feature_level == 0 {
                    img.features.remove(&name);
                } else {
                    img.features.insert(name, feature_level);
                }
            }
            MetadataRecord::RegisterBroker(_)
            | MetadataRecord::NoOp
            | MetadataRecord::Unknown { .. }
            | MetadataRecord::BeginTransaction { .. }
            | MetadataRecord::EndTransaction
            | MetadataRecord::AbortTransaction { .. } => {}
        }
    }

    fn unknown_topic(&mut self, path: &Path, byte: Option<u64>, offset: i64, what: &str, id: Uuid) {
        self.problem(
            path,
            byte,
            Some(offset),
            format!("{what} for unknown topic id {id}"),
            None,
        );
    }
}

/// A `TopicRecord`: `name` now has id `topic_id`. A topic renamed under its id, or a name
/// taken by a new id, drops the old entry; the same name and id keep their partitions.
fn put_topic(img: &mut MetadataImage, name: String, topic_id: Uuid) {
    if let Some(old) = img.topics_by_id.get(&topic_id) {
        if *old != name {
            let old = old.clone();
            img.topics.remove(&old);
        }
    }
    match img.topics.get_mut(&name) {
        Some(t) if t.topic_id == topic_id => {}
        _ => {
            if let Some(t) = img.topics.get(&name) {
                img.topics_by_id.remove(&t.topic_id);
            }
            img.topics.insert(
                name.clone(),
                TopicImage {
                    topic_id,
                    partitions: BTreeMap::new(),
                },
            );
        }
    }
    img.topics_by_id.insert(topic_id, name);
}

/// A `ConfigRecord`: set (or, with no value, remove) a topic or broker config; other resource
/// types are not kept.
fn set_config(
    img: &mut MetadataImage,
    resource_type: i8,
    resource_name: String,
    name: String,
    value: Option<String>,
) {
    let map = match resource_type {
        resource_type::TOPIC => &mut img.topic_configs,
        resource_type::BROKER => &mut img.broker_configs,
        _ => return,
    };
    match value {
        Some(v) => {
            map.entry(resource_name).or_default().insert(name, v);
        }
        None => {
            if let Some(m) = map.get_mut(&resource_name) {
                m.remove(&name);
                if m.is_empty() {
                    map.remove(&resource_name);
                }
            }
        }
    }
}

fn topic_mut<'a>(img: &'a mut MetadataImage, id: &Uuid) -> Option<&'a mut TopicImage> {
    let name = img.topics_by_id.get(id)?;
    img.topics.get_mut(name)
}

fn partition_image(p: PartitionRecord) -> PartitionImage {
    PartitionImage {
        replicas: p.replicas,
        isr: p.isr,
        leader: p.leader,
        leader_epoch: p.leader_epoch,
        partition_epoch: p.partition_epoch,
        leader_recovery_state: p.leader_recovery_state,
        directories: p.directories.unwrap_or_default(),
        elr: p.eligible_leader_replicas.unwrap_or_default(),
    }
}

/// `DirectoryId.UNASSIGNED`: a replica with no directory assigned yet.
const DIR_UNASSIGNED: Uuid = Uuid([0; 16]);

/// Kafka's `PartitionRegistration.merge`.
fn merge(p: &mut PartitionImage, c: PartitionChangeRecord) {
    match (c.directories, &c.replicas) {
        (Some(d), _) if !d.is_empty() => p.directories = d,
        (_, Some(new_replicas)) if !p.directories.is_empty() => {
            // DirectoryId.createDirectoriesFrom: keep each surviving replica's directory.
            p.directories = new_replicas
                .iter()
                .map(|r| {
                    p.replicas
                        .iter()
                        .position(|old| old == r)
                        .and_then(|i| p.directories.get(i).copied())
                        .unwrap_or(DIR_UNASSIGNED)
                })
                .collect();
        }
        _ => {}
    }
    if let Some(r) = c.replicas {
        p.replicas = r;
    }
    if let Some(isr) = c.isr {
        p.isr = isr;
    }
    if let Some(leader) = c.leader {
        p.leader = leader;
        p.leader_epoch = p.leader_epoch.wrapping_add(1);
    }
    if let Some(state) = c.leader_recovery_state {
        p.leader_recovery_state = state;
    }
    if let Some(elr) = c.eligible_leader_replicas {
        p.elr = elr;
    }
    p.partition_epoch = p.partition_epoch.wrapping_add(1);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::control::encode::key as control_key;
    use crate::formats::metadata_record::encode as md;
    use crate::formats::partition_metadata::parse_partition_metadata;
    use crate::formats::record::encode::{encode_batch, BatchSpec};
    use crate::formats::record::Record;
    use crate::formats::walk::{BatchInfo, ShallowWalker};
    use std::fs;

    fn fixtures() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
    }

    fn manifest(scenario: &str) -> serde_json::Value {
        let text = fs::read_to_string(fixtures().join(scenario).join("manifest.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    fn metadata_dir(scenario: &str) -> PathBuf {
        fixtures()
            .join(scenario)
            .join("logs-0")
            .join("__cluster_metadata-0")
    }

    /// Copy a fixture's metadata dir into a temp dir (same dir name, as the listing needs it).
    fn copy_metadata_dir(scenario: &str) -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let dst = tmp.path().join("__cluster_metadata-0");
        fs::create_dir(&dst).unwrap();
        for e in fs::read_dir(metadata_dir(scenario)).unwrap() {
            let e = e.unwrap();
            let target = dst.join(e.file_name());
            fs::write(&target, fs::read(e.path()).unwrap()).unwrap();
        }
        (tmp, dst)
    }

    /// Check the image against a fixture's manifest: topic names and ids, partition counts,
    /// dynamic topic and broker configs, and every `partition.metadata` on disk.
    fn check_against_manifest(scenario: &str, img: &MetadataImage) {
        let m = manifest(scenario);
        let topics = m["topics"].as_array().unwrap();
        let names: Vec<&str> = topics.iter().map(|t| t["name"].as_str().unwrap()).collect();
        let image_names: Vec<&str> = img.topics.keys().map(String::as_str).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(image_names, sorted, "{scenario}: topic names");
        for t in topics {
            let name = t["name"].as_str().unwrap();
            let topic = &img.topics[name];
            assert_eq!(
                topic.topic_id.to_string(),
                t["topic_id"].as_str().unwrap(),
                "{scenario}: id of {name}"
            );
            assert_eq!(img.topics_by_id[&topic.topic_id], name);
            assert_eq!(
                topic.partitions.len() as u64,
                t["partitions"].as_u64().unwrap(),
                "{scenario}: partitions of {name}"
            );
            let want: BTreeMap<String, String> = t["configs"]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(_, v)| v["source"] == "DYNAMIC_TOPIC_CONFIG")
                .map(|(k, v)| (k.clone(), v["value"].as_str().unwrap().to_owned()))
                .collect();
            let got = img.topic_config(name).cloned().unwrap_or_default();
            assert_eq!(got, want, "{scenario}: configs of {name}");
        }
        let mut want_broker = BTreeMap::new();
        for (k, v) in m["dynamic_broker_configs"].as_object().unwrap() {
            let resource = match k.as_str() {
                "cluster_default" => String::new(),
                other => other.strip_prefix("broker_").unwrap().to_owned(),
            };
            let configs: BTreeMap<String, String> = v
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
                .collect();
            want_broker.insert(resource, configs);
        }
        // `kafka-storage format` (Kafka 4.x, ELR enabled) writes the static
        // `min.insync.replicas` as a cluster-default ConfigRecord in the bootstrap records; the
        // manifest lists only the broker configs the harness set. Kafka 3.9.1's format (no ELR)
        // writes no such record.
        if m["kafka_version"]
            .as_str()
            .is_some_and(|v| !v.starts_with("3."))
        {
            let min_isr = m["broker_config"]["min.insync.replicas"].as_str().unwrap();
            want_broker
                .entry(String::new())
                .or_default()
                .insert("min.insync.replicas".to_owned(), min_isr.to_owned());
        }
        assert_eq!(
            img.broker_configs, want_broker,
            "{scenario}: broker configs"
        );
        // partition.metadata of every partition dir of a live topic, in every log dir.
        let mut checked = 0;
        for log_dir in fs::read_dir(fixtures().join(scenario)).unwrap() {
            let log_dir = log_dir.unwrap().path();
            if !log_dir.is_dir() {
                continue;
            }
            for part in fs::read_dir(&log_dir).unwrap() {
                let part = part.unwrap().path();
                let dir_name = part.file_name().unwrap().to_str().unwrap().to_owned();
                let Some((topic, p)) = dir_name.rsplit_once('-') else {
                    continue;
                };
                let (Some(t), Ok(p)) = (img.topics.get(topic), p.parse::<i32>()) else {
                    continue;
                };
                let Ok(bytes) = fs::read(part.join("partition.metadata")) else {
                    continue;
                };
                let pm = parse_partition_metadata(&bytes).unwrap();
                assert_eq!(pm.topic_id, t.topic_id, "{scenario}: {dir_name}");
                assert!(t.partitions.contains_key(&p), "{scenario}: {dir_name}");
                checked += 1;
            }
        }
        assert!(checked > 0, "{scenario}: no partition.metadata checked");
    }

    #[test]
    fn kraft_metadata_fixture() {
        let dir = metadata_dir("kraft-metadata");
        let img = load_metadata_image(&dir, ReadMode::Buffered);
        assert!(img.problems.is_empty(), "{:#?}", img.problems);
        assert_eq!(
            img.snapshot_used.as_deref(),
            Some(
                dir.join("00000000000000000060-0000000001.checkpoint")
                    .as_path()
            )
        );
        let names: Vec<&str> = img.topics.keys().map(String::as_str).collect();
        assert_eq!(names, ["kt-alpha", "kt-beta"]);
        assert_eq!(img.topics["kt-alpha"].partitions.len(), 3);
        assert!(!img.topics.contains_key("kt-gamma"));
        assert!(!img.topic_configs.contains_key("kt-gamma"));
        check_against_manifest("kraft-metadata", &img);
        // Set, changed and deleted keys (steps: max.message.bytes set then deleted).
        let alpha = img.topic_config("kt-alpha").unwrap();
        assert_eq!(
            alpha.get("retention.ms").map(String::as_str),
            Some("7200000")
        );
        assert!(!alpha.contains_key("max.message.bytes"));
        assert_eq!(
            img.broker_configs["1"]
                .get("log.retention.ms")
                .map(String::as_str),
            Some("172800000")
        );
        assert_eq!(img.features.get("metadata.version"), Some(&33));
        // The log goes past the snapshot: the image covers its last offset.
        let bytes = fs::read(dir.join("00000000000000000000.log")).unwrap();
        let last = ShallowWalker::new(&bytes)
            .map(|b| b.unwrap().last_offset)
            .max();
        assert_eq!(img.complete_up_to, last);
        let p = &img.topics["kt-alpha"].partitions[&0];
        assert_eq!(p.replicas, vec![1]);
        assert_eq!(p.directories.len(), 1);
    }

    #[test]
    fn every_fixture_metadata_log_matches_its_manifest() {
        let mut seen = 0;
        for entry in fs::read_dir(fixtures()).unwrap() {
            let scenario = entry.unwrap().file_name().into_string().unwrap();
            let dir = metadata_dir(&scenario);
            if !dir.is_dir() {
                continue;
            }
            for mode in [ReadMode::Mmap, ReadMode::Buffered] {
                let img = load_metadata_image(&dir, mode);
                assert!(img.problems.is_empty(), "{scenario}: {:#?}", img.problems);
                // Kafka 3.9.1 with a static quorum (kraft391-*): `format` writes
                // bootstrap.checkpoint at the log dir's root, not a snapshot in the metadata log,
                // and no runtime snapshot was taken: the log from offset 0 is the whole image.
                let with_snapshot = !scenario.starts_with("kraft391-");
                assert_eq!(img.snapshot_used.is_some(), with_snapshot, "{scenario}");
                assert!(img.complete_up_to.is_some(), "{scenario}");
                check_against_manifest(&scenario, &img);
            }
            seen += 1;
        }
        assert!(seen >= 10, "only {seen} fixtures");
    }

    #[test]
    fn only_bootstrap_snapshot_gives_the_same_image() {
        let (_tmp, dir) = copy_metadata_dir("kraft-metadata");
        let full = load_metadata_image(&metadata_dir("kraft-metadata"), ReadMode::Buffered);
        for name in [
            "00000000000000000023-0000000001.checkpoint",
            "00000000000000000052-0000000001.checkpoint",
            "00000000000000000060-0000000001.checkpoint",
        ] {
            fs::remove_file(dir.join(name)).unwrap();
        }
        let img = load_metadata_image(&dir, ReadMode::Buffered);
        assert!(img.problems.is_empty(), "{:#?}", img.problems);
        assert_eq!(
            img.snapshot_used.as_deref(),
            Some(
                dir.join("00000000000000000000-0000000000.checkpoint")
                    .as_path()
            )
        );
        assert_eq!(img.topics, full.topics);
        assert_eq!(img.topic_configs, full.topic_configs);
        assert_eq!(img.broker_configs, full.broker_configs);
        assert_eq!(img.features, full.features);
        assert_eq!(img.complete_up_to, full.complete_up_to);
    }

    #[test]
    fn truncated_snapshot_falls_back_to_the_previous_one() {
        let (_tmp, dir) = copy_metadata_dir("kraft-metadata");
        let full = load_metadata_image(&metadata_dir("kraft-metadata"), ReadMode::Buffered);
        let newest = dir.join("00000000000000000060-0000000001.checkpoint");
        let bytes = fs::read(&newest).unwrap();
        // Cut at every batch boundary (no footer) and inside batches (torn batch).
        let boundaries: Vec<u64> = ShallowWalker::new(&bytes)
            .map(|b| b.unwrap().position)
            .collect();
        let mut cuts: Vec<usize> = boundaries.iter().skip(1).map(|b| *b as usize).collect();
        cuts.extend([bytes.len() - 1, bytes.len() / 2, 10]);
        for cut in cuts {
            fs::write(&newest, &bytes[..cut]).unwrap();
            let img = load_metadata_image(&dir, ReadMode::Buffered);
            assert_eq!(img.problems.len(), 1, "cut {cut}: {:#?}", img.problems);
            assert_eq!(img.problems[0].path, newest);
            assert!(img.problems[0].message.contains("snapshot"));
            assert_eq!(
                img.snapshot_used.as_deref(),
                Some(
                    dir.join("00000000000000000052-0000000001.checkpoint")
                        .as_path()
                ),
                "cut {cut}"
            );
            // The log still holds everything after the previous snapshot.
            assert_eq!(img.topics, full.topics);
            assert_eq!(img.topic_configs, full.topic_configs);
            assert_eq!(img.complete_up_to, full.complete_up_to);
        }
        // A flipped byte in a record (CRC mismatch) is also a broken snapshot.
        let mut flipped = bytes.clone();
        let mid = boundaries[2] as usize + 70;
        flipped[mid] ^= 0x55;
        fs::write(&newest, &flipped).unwrap();
        let img = load_metadata_image(&dir, ReadMode::Buffered);
        assert_eq!(img.problems.len(), 1, "{:#?}", img.problems);
        assert!(matches!(
            img.problems[0].error.as_ref().map(|e| &e.kind),
            Some(ErrorKind::CrcMismatch { .. })
        ));
        assert_eq!(img.topics, full.topics);
    }

    /// Log offsets of the first batch at or above `offset` in a segment.
    fn batch_at(bytes: &[u8], offset: i64) -> BatchInfo {
        ShallowWalker::new(bytes)
            .map(|b| b.unwrap())
            .find(|b| b.last_offset >= offset)
            .unwrap()
    }

    #[test]
    fn garbage_in_the_log_stops_the_replay_with_its_offset() {
        let (_tmp, dir) = copy_metadata_dir("kraft-metadata");
        // Keep only the bootstrap snapshot so the log is replayed from offset 0.
        for name in [
            "00000000000000000023-0000000001.checkpoint",
            "00000000000000000052-0000000001.checkpoint",
            "00000000000000000060-0000000001.checkpoint",
        ] {
            fs::remove_file(dir.join(name)).unwrap();
        }
        let log = dir.join("00000000000000000000.log");
        let clean = fs::read(&log).unwrap();
        // The RemoveTopicRecord of kt-gamma (offset 45).
        let b = batch_at(&clean, 45);
        assert_eq!(b.base_offset, 45);

        // Garbage inside the batch's records: CRC mismatch.
        let mut bytes = clean.clone();
        for x in bytes.iter_mut().skip(b.position as usize + 61).take(8) {
            *x = 0xAB;
        }
        fs::write(&log, &bytes).unwrap();
        let img = load_metadata_image(&dir, ReadMode::Buffered);
        assert_eq!(img.problems.len(), 1, "{:#?}", img.problems);
        let p = &img.problems[0];
        assert_eq!(p.path, log);
        assert_eq!(p.offset, Some(45));
        assert_eq!(p.byte_offset, Some(b.position + 17));
        assert!(matches!(
            p.error.as_ref().map(|e| &e.kind),
            Some(ErrorKind::CrcMismatch { .. })
        ));
        assert_eq!(img.complete_up_to, Some(44));
        // Not a silently wrong image: kt-gamma is still there, because its removal was not read.
        assert!(img.topics.contains_key("kt-gamma"));

        // Garbage over the batch header: the walk cannot go on.
        let mut bytes = clean.clone();
        for x in bytes.iter_mut().skip(b.position as usize).take(24) {
            *x = 0xAB;
        }
        fs::write(&log, &bytes).unwrap();
        let img = load_metadata_image(&dir, ReadMode::Buffered);
        assert_eq!(img.problems.len(), 1, "{:#?}", img.problems);
        assert_eq!(
            img.problems[0].byte_offset.map(|o| o >= b.position),
            Some(true)
        );
        assert_eq!(img.problems[0].offset, Some(45));
        assert_eq!(img.complete_up_to, Some(44));

        // Garbage appended after the last batch: everything is applied, the tail reported.
        let mut bytes = clean.clone();
        bytes.extend_from_slice(&[0xAB; 40]);
        fs::write(&log, &bytes).unwrap();
        let img = load_metadata_image(&dir, ReadMode::Buffered);
        let full = load_metadata_image(&metadata_dir("kraft-metadata"), ReadMode::Buffered);
        assert_eq!(img.problems.len(), 1, "{:#?}", img.problems);
        // The error is at the garbage's size field (negative), 8 bytes into it.
        assert_eq!(img.problems[0].byte_offset, Some(clean.len() as u64 + 8));
        assert_eq!(img.complete_up_to, full.complete_up_to);
        assert_eq!(img.topics, full.topics);
    }

    // ---- synthetic metadata dirs ----------------------------------------------------------

    fn data_batch(base: i64, values: &[Vec<u8>]) -> Vec<u8> {
        let records: Vec<Record> = values
            .iter()
            .enumerate()
            .map(|(i, v)| Record {
                offset: base + i as i64,
                timestamp: 1000,
                key: None,
                value: Some(v.clone()),
                headers: vec![],
                control: None,
            })
            .collect();
        encode_batch(
            &BatchSpec {
                base_offset: base,
                ..BatchSpec::default()
            },
            &records,
        )
    }

    fn control_batch(base: i64, kind: ControlKind) -> Vec<u8> {
        let mut value = 0i16.to_be_bytes().to_vec();
        if kind == ControlKind::SnapshotHeader {
            value.extend_from_slice(&0i64.to_be_bytes());
        }
        value.push(0);
        let rec = Record {
            offset: base,
            timestamp: 1000,
            key: Some(control_key(kind)),
            value: Some(value),
            headers: vec![],
            control: None,
        };
        encode_batch(
            &BatchSpec {
                base_offset: base,
                control: true,
                ..BatchSpec::default()
            },
            &[rec],
        )
    }

    fn snapshot(values: &[Vec<u8>]) -> Vec<u8> {
        let mut out = control_batch(0, ControlKind::SnapshotHeader);
        out.extend(data_batch(1, values));
        out.extend(control_batch(
            1 + values.len() as i64,
            ControlKind::SnapshotFooter,
        ));
        out
    }

    fn id(n: u8) -> Uuid {
        Uuid([n; 16])
    }

    /// A metadata dir with one snapshot ending at `snap_end` (if any) and one segment.
    fn synthetic(
        snap: Option<(i64, Vec<Vec<u8>>)>,
        segment_base: i64,
        log: &[u8],
    ) -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("__cluster_metadata-0");
        fs::create_dir(&dir).unwrap();
        if let Some((end, values)) = snap {
            fs::write(
                dir.join(format!("{end:020}-{:010}.checkpoint", 1)),
                snapshot(&values),
            )
            .unwrap();
        }
        fs::write(dir.join(format!("{segment_base:020}.log")), log).unwrap();
        (tmp, dir)
    }

    #[test]
    fn metadata_transactions_commit_abort_and_unfinished() {
        let mut log = data_batch(0, &[md::begin_txn(), md::topic("a", id(1)), md::end_txn()]);
        log.extend(data_batch(
            3,
            &[md::begin_txn(), md::topic("b", id(2)), md::abort_txn()],
        ));
        log.extend(data_batch(6, &[md::topic("c", id(3))]));
        log.extend(control_batch(7, ControlKind::LeaderChange));
        log.extend(data_batch(8, &[md::begin_txn(), md::topic("d", id(4))]));
        let (_tmp, dir) = synthetic(None, 0, &log);
        let img = load_metadata_image(&dir, ReadMode::Buffered);
        let names: Vec<&str> = img.topics.keys().map(String::as_str).collect();
        assert_eq!(names, ["a", "c"]);
        assert_eq!(img.complete_up_to, Some(7));
        assert_eq!(img.snapshot_used, None);
        assert_eq!(img.problems.len(), 1, "{:#?}", img.problems);
        assert_eq!(img.problems[0].offset, Some(8));
        assert!(img.problems[0].message.contains("no end record"));
        assert_eq!(img.records_seen[&(2, 0)], 4);
    }

    #[test]
    fn replay_rules_configs_removal_features_partition_changes() {
        use crate::formats::metadata_record::encode::{field, Enc};
        let snap = vec![
            md::feature("metadata.version", 20),
            md::feature("group.version", 1),
            md::topic("t", id(1)),
            md::partition(id(1), 0, &[1, 2, 3], 1, 4),
            md::config(2, "t", "retention.ms", Some("1")),
            md::config(2, "t", "segment.ms", Some("2")),
            md::config(4, "", "log.retention.ms", Some("3")),
            md::topic("gone", id(2)),
            md::config(2, "gone", "retention.ms", Some("4")),
        ];
        let change = Enc::frame(5, 1)
            .i32(0)
            .uuid(id(1))
            .tags(&[
                (
                    1,
                    field(|e| {
                        e.i32(3);
                    }),
                ),
                (
                    2,
                    field(|e| {
                        e.i32s(Some(&[3, 4]));
                    }),
                ),
            ])
            .done();
        let isr_only = Enc::frame(5, 0)
            .i32(0)
            .uuid(id(1))
            .tags(&[(
                0,
                field(|e| {
                    e.i32s(Some(&[3]));
                }),
            )])
            .done();
        let log = data_batch(
            10,
            &[
                md::config(2, "t", "retention.ms", None),
                md::remove_topic(id(2)),
                md::feature("group.version", 0),
                md::config(4, "1", "log.retention.ms", Some("5")),
                change,
                isr_only,
            ],
        );
        let (_tmp, dir) = synthetic(Some((10, snap)), 10, &log);
        let img = load_metadata_image(&dir, ReadMode::Buffered);
        assert!(img.problems.is_empty(), "{:#?}", img.problems);
        assert_eq!(img.complete_up_to, Some(15));
        let names: Vec<&str> = img.topics.keys().map(String::as_str).collect();
        assert_eq!(names, ["t"]);
        assert_eq!(img.topics_by_id.len(), 1);
        assert_eq!(
            img.topic_config("t").unwrap().keys().collect::<Vec<_>>(),
            ["segment.ms"]
        );
        assert_eq!(img.topic_config("gone"), None);
        assert_eq!(img.broker_configs[""]["log.retention.ms"], "3");
        assert_eq!(img.broker_configs["1"]["log.retention.ms"], "5");
        assert_eq!(
            img.features.iter().collect::<Vec<_>>(),
            [(&"metadata.version".to_owned(), &20)]
        );
        let p = &img.topics["t"].partitions[&0];
        assert_eq!(p.replicas, vec![3, 4]);
        assert_eq!(p.isr, vec![3]);
        assert_eq!(p.leader, 3);
        assert_eq!(p.leader_epoch, 5, "a leader change bumps the epoch once");
        assert_eq!(p.partition_epoch, 2);
        // Replica 3 keeps its directory, the new replica 4 has none assigned yet.
        assert_eq!(p.directories, vec![Uuid([7; 16]), DIR_UNASSIGNED]);
    }

    #[test]
    fn records_below_the_snapshot_end_are_not_replayed_again() {
        let snap = vec![md::topic("t", id(1))];
        // The log still holds offsets 0..=2 (already in the snapshot) and then 3.
        let mut log = data_batch(0, &[md::topic("old", id(9)), md::remove_topic(id(9))]);
        log.extend(data_batch(
            2,
            &[md::remove_topic(id(1)), md::topic("u", id(2))],
        ));
        let (_tmp, dir) = synthetic(Some((3, snap)), 0, &log);
        let img = load_metadata_image(&dir, ReadMode::Buffered);
        assert!(img.problems.is_empty(), "{:#?}", img.problems);
        let names: Vec<&str> = img.topics.keys().map(String::as_str).collect();
        assert_eq!(names, ["t", "u"]);
        assert_eq!(img.complete_up_to, Some(3));
    }

    #[test]
    fn unsupported_record_version_stops_the_replay() {
        let mut log = data_batch(0, &[md::topic("a", id(1))]);
        log.extend(data_batch(1, &[vec![1, 2, 7, 0]])); // TopicRecord v7
        log.extend(data_batch(2, &[md::topic("b", id(2))]));
        let (_tmp, dir) = synthetic(None, 0, &log);
        let img = load_metadata_image(&dir, ReadMode::Buffered);
        assert_eq!(img.problems.len(), 1, "{:#?}", img.problems);
        assert_eq!(img.problems[0].offset, Some(1));
        assert!(matches!(
            img.problems[0].error.as_ref().map(|e| &e.kind),
            Some(ErrorKind::UnsupportedVersion {
                what: "TopicRecord",
                version: 7
            })
        ));
        assert_eq!(img.topics.keys().collect::<Vec<_>>(), ["a"]);
        assert_eq!(img.complete_up_to, Some(0));
    }

    #[test]
    fn a_bad_record_drops_its_whole_batch() {
        // Offset 1 is fine, offset 2 has a null value: the batch is not applied.
        let record = |offset, value| Record {
            offset,
            timestamp: 1000,
            key: None,
            value,
            headers: vec![],
            control: None,
        };
        let bad = encode_batch(
            &BatchSpec {
                base_offset: 1,
                ..BatchSpec::default()
            },
            &[record(1, Some(md::topic("b", id(2)))), record(2, None)],
        );
        let mut full = data_batch(0, &[md::topic("a", id(1))]);
        let first_len = full.len();
        full.extend(&bad);
        full.extend(data_batch(3, &[md::topic("d", id(4))]));
        let (_tmp, dir) = synthetic(None, 0, &full);
        let img = load_metadata_image(&dir, ReadMode::Buffered);
        assert_eq!(img.problems.len(), 1, "{:#?}", img.problems);
        assert_eq!(img.problems[0].offset, Some(2));
        assert_eq!(img.problems[0].byte_offset, Some(first_len as u64));
        assert_eq!(img.topics.keys().collect::<Vec<_>>(), ["a"]);
        assert_eq!(img.complete_up_to, Some(0));
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(48))]
        #[test]
        fn arbitrary_log_and_snapshot_bytes_never_panic(
            log in proptest::collection::vec(proptest::num::u8::ANY, 0..600),
            snap in proptest::collection::vec(proptest::num::u8::ANY, 0..300),
            cut in 0usize..2000,
        ) {
            // Arbitrary bytes, and a valid log with arbitrary bytes spliced in.
            let mut valid = data_batch(0, &[md::topic("a", id(1)), md::feature("x", 1)]);
            valid.extend(data_batch(2, &[md::remove_topic(id(1))]));
            let at = cut.min(valid.len());
            valid.splice(at..at, log.iter().copied().take(40));
            for bytes in [&log, &valid] {
                let (_tmp, dir) = synthetic(None, 0, bytes);
                fs::write(dir.join("00000000000000000001-0000000001.checkpoint"), &snap).unwrap();
                let img = load_metadata_image(&dir, ReadMode::Buffered);
                // A garbage snapshot is never used.
                proptest::prop_assert!(img.snapshot_used.is_none());
            }
        }
    }

    #[test]
    fn unknown_record_types_are_counted_and_skipped() {
        let log = data_batch(0, &[vec![1, 15, 0, 0xde, 0xad], md::topic("a", id(1))]);
        let (_tmp, dir) = synthetic(None, 0, &log);
        let img = load_metadata_image(&dir, ReadMode::Buffered);
        assert!(img.problems.is_empty(), "{:#?}", img.problems);
        assert_eq!(img.records_seen[&(15, 0)], 1);
        assert_eq!(img.complete_up_to, Some(1));
    }

    #[test]
    fn gaps_and_missing_history_are_problems() {
        // A gap between the snapshot end and the log.
        let log = data_batch(5, &[md::topic("a", id(1))]);
        let (_tmp, dir) = synthetic(Some((3, vec![md::topic("t", id(2))])), 5, &log);
        let img = load_metadata_image(&dir, ReadMode::Buffered);
        assert_eq!(img.problems.len(), 1, "{:#?}", img.problems);
        assert_eq!(img.problems[0].offset, Some(3));
        assert!(img.problems[0].message.contains("missing"));
        assert_eq!(img.complete_up_to, Some(2));
        assert_eq!(img.topics.keys().collect::<Vec<_>>(), ["t"]);

        // No snapshot and a log that does not start at 0.
        let (_tmp, dir) = synthetic(None, 5, &log);
        let img = load_metadata_image(&dir, ReadMode::Buffered);
        assert_eq!(img.problems.len(), 1, "{:#?}", img.problems);
        assert!(img.topics.is_empty());
        assert_eq!(img.complete_up_to, None);

        // Partition records for an unknown topic id are reported, not invented.
        let log = data_batch(0, &[md::partition(id(3), 0, &[1], 1, 0)]);
        let (_tmp, dir) = synthetic(None, 0, &log);
        let img = load_metadata_image(&dir, ReadMode::Buffered);
        assert_eq!(img.problems.len(), 1, "{:#?}", img.problems);
        assert!(img.problems[0].message.contains("unknown topic id"));

        // A missing directory.
        let img = load_metadata_image(
            Path::new("/nonexistent/__cluster_metadata-0"),
            ReadMode::Mmap,
        );
        assert_eq!(img.problems.len(), 1);
    }

    #[test]
    fn snapshot_names() {
        assert_eq!(
            parse_snapshot_name("00000000000000000060-0000000001.checkpoint"),
            Some((60, 1))
        );
        assert_eq!(
            parse_snapshot_name("00000000000000000060-0000000001.checkpoint.part"),
            None
        );
        assert_eq!(parse_snapshot_name("60-1.checkpoint"), None);
        assert_eq!(parse_snapshot_name("bootstrap.checkpoint"), None);
    }

    #[test]
    fn metadata_version_levels_are_named_as_kafka_names_them() {
        assert_eq!(metadata_version_name(1), Some("3.0-IV1"));
        assert_eq!(metadata_version_name(7), Some("3.3-IV3"));
        assert_eq!(metadata_version_name(21), Some("3.9-IV0"));
        assert_eq!(metadata_version_name(22), Some("4.0-IV0"));
        assert_eq!(metadata_version_name(33), Some("4.4-IV2"));
        assert_eq!(metadata_version_name(34), Some("4.5-IV0"));
        assert_eq!(metadata_version_name(0), None);
        assert_eq!(metadata_version_name(35), None);
        assert_eq!(metadata_version_name(-1), None);
    }
}
