//! What the broker recovers on its next start, and the largest timestamp each segment has after
//! that start. The model keeps what is on disk ([`Segment::largest_timestamp_on_disk`]); this is
//! the rule that says what the broker will make of it.
//!
//! Kafka: `LogLoader.loadSegmentFiles` (a segment whose `.index` is missing is recovered at
//! once, after a clean shutdown too), `LogLoader.recoverLog` (after an unclean shutdown, every
//! segment from the one holding the recovery point on: `LogSegments.values(recoveryPoint, MAX)`
//! starts at the floor segment), `KafkaMetadataLog` (the metadata log is recovered from 0 on
//! every start) and `LogSegment.recover` (the offset, time and txn indexes are rebuilt from the
//! batches, so the largest timestamp becomes the largest batch timestamp). Spec §G1, §G2.3,
//! §G2.4, §G3, Errata 10 and 20 (a missing or empty recovery point means recovery from 0).
//!
//! Not modelled: a `.txnindex` failing Kafka's sanity check (`CorruptIndexException`, also a
//! reason to recover), and the deletion of later segments when recovery truncates one.

use std::path::PathBuf;

use crate::model::log_dir::LogDir;
use crate::model::names::PartitionDirState;
use crate::model::names::SegmentFileKind;
use crate::model::partition::Partition;
use crate::model::segment::{DiskTimestamp, Segment, UnknownTimestamp};
use crate::model::units::{Offset, TimestampMs};

use super::facts::TimestampSource;

/// Why the broker recovers a segment on its next start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecoveryCause {
    /// No `.kafka_cleanshutdown`: the segment is at or after the floor segment of the
    /// partition's recovery point (`LogLoader.recoverLog`).
    UncleanShutdown,
    /// `__cluster_metadata-0`: recovered from offset 0 on every start.
    MetadataLog,
    /// Its `.index` is missing (`LogSegment.sanityCheck` throws `NoSuchFileException`, and
    /// `loadSegmentFiles` recovers the segment, whatever the shutdown was).
    MissingOffsetIndex,
}

/// One partition's recovery on the next start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionRecovery {
    /// The base offset of the first segment the partition-wide rule recovers, with its cause
    /// (`None`: the rule recovers nothing; a segment may still be recovered for its own sake).
    pub from: Option<(Offset, RecoveryCause)>,
    /// Whether the broker loads this dir's segments at all (`false` for a `-delete` dir or one
    /// whose name it cannot parse: nothing in it is recovered).
    pub loaded: bool,
}

/// The recovery of every partition of a log dir, in the order of [`LogDir::partitions`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecoveryPlan {
    /// One per partition, same order.
    pub partitions: Vec<PartitionRecovery>,
}

/// Which segments the broker recovers on its next start, per partition of `dir`
/// (`LogLoader.recoverLog`, `LogLoader.loadSegmentFiles`, `LogSegment.recover`; see the
/// module doc): after an unclean shutdown, every segment from the floor segment of the
/// recovery point on; the metadata log always from 0; a segment without `.index` always;
/// nothing in a `-delete` dir.
pub fn recovery_on_next_start(dir: &LogDir) -> RecoveryPlan {
    let clean = dir.clean_shutdown.is_some();
    RecoveryPlan {
        partitions: dir
            .partitions
            .iter()
            .map(|p| partition_recovery(clean, p))
            .collect(),
    }
}

/// [`recovery_on_next_start`] for one partition of a log dir that did (`dir_shut_down_cleanly`)
/// or did not shut down cleanly.
pub fn partition_recovery(dir_shut_down_cleanly: bool, p: &Partition) -> PartitionRecovery {
    let Some(name) = &p.name else {
        return PartitionRecovery {
            from: None,
            loaded: false,
        };
    };
    if matches!(name.state, PartitionDirState::Delete(_)) {
        return PartitionRecovery {
            from: None,
            loaded: false,
        };
    }
    let (recovery_point, cause) = if name.is_metadata_log() {
        (Offset(0), RecoveryCause::MetadataLog)
    } else if !dir_shut_down_cleanly {
        let point = p.checkpoints.recovery_point.unwrap_or(Offset(0));
        (point, RecoveryCause::UncleanShutdown)
    } else {
        return PartitionRecovery {
            from: None,
            loaded: true,
        };
    };
    // The floor segment of the recovery point; none at or below it: every segment.
    let floor = p
        .log_segments()
        .map(|s| s.base_offset)
        .filter(|b| *b <= recovery_point)
        .max()
        .unwrap_or(Offset(i64::MIN));
    PartitionRecovery {
        from: Some((floor, cause)),
        loaded: true,
    }
}

impl PartitionRecovery {
    /// Why the broker recovers `seg` on its next start (`None`: it does not). Segments without
    /// a `.log` are orphan index files the broker deletes, never recovered.
    pub fn cause(&self, seg: &Segment) -> Option<RecoveryCause> {
        if !self.loaded || seg.files.log.is_none() {
            return None;
        }
        match self.from {
            Some((floor, cause)) if seg.base_offset >= floor => Some(cause),
            _ => seg
                .files
                .index
                .is_none()
                .then_some(RecoveryCause::MissingOffsetIndex),
        }
    }

    /// Whether the broker recovers `seg` on its next start.
    pub fn recovers(&self, seg: &Segment) -> bool {
        self.cause(seg).is_some()
    }

    /// The largest timestamp the broker uses for `seg` after its next start, with its source
    /// (see [`largest_timestamp_after_start`]).
    pub fn largest_timestamp(
        &self,
        seg: &Segment,
    ) -> Result<(TimestampMs, TimestampSource), UnknownTimestamp> {
        largest_timestamp_after_start(seg, self.recovers(seg))
    }
}

/// The `.log` files of `dir` its next start recovers, the data partitions' (an unclean
/// shutdown's, a missing index's) first, then the metadata log's (recovered on every start,
/// and its index pages are normally held already): what bytes to boot reads the batches of,
/// in the order its read budget takes them.
pub fn recovered_logs(dir: &LogDir) -> Vec<PathBuf> {
    let recovery = recovery_on_next_start(dir);
    let mut data = Vec::new();
    let mut metadata = Vec::new();
    for (p, r) in dir.partitions.iter().zip(&recovery.partitions) {
        for s in p.log_segments() {
            let Some(cause) = r.cause(s) else { continue };
            let Some(path) = s.path(&p.path, SegmentFileKind::Log) else {
                continue;
            };
            match cause {
                RecoveryCause::MetadataLog => metadata.push(path),
                RecoveryCause::UncleanShutdown | RecoveryCause::MissingOffsetIndex => {
                    data.push(path);
                }
            }
        }
    }
    data.extend(metadata);
    data
}

/// The largest timestamp the broker uses for `seg` after its next start. A recovered segment
/// (`LogSegment.recover`) has its time index rebuilt from the batches: max(last valid
/// time-index entry, largest batch timestamp seen), if ≥ 0, else the `.log` mtime. Any other
/// segment keeps the value on disk ([`Segment::largest_timestamp_on_disk`]).
pub fn largest_timestamp_after_start(
    seg: &Segment,
    recovered: bool,
) -> Result<(TimestampMs, TimestampSource), UnknownTimestamp> {
    if recovered {
        let rebuilt = seg
            .last_valid_time_index_timestamp()
            .max(seg.max_batch_timestamp_seen())
            .filter(|ts| ts.is_set());
        return match (rebuilt, seg.log_mtime()) {
            (Some(ts), _) => Ok((ts, TimestampSource::Recovered)),
            (None, Some(ms)) => Ok((ms, TimestampSource::LogMtime)),
            (None, None) => Err(UnknownTimestamp::NoTimeIndexEntryAndNoMtime),
        };
    }
    match seg.largest_timestamp_on_disk() {
        DiskTimestamp::TimeIndex(ts) => Ok((ts, TimestampSource::TimeIndex)),
        DiskTimestamp::LogMtime(ms) => Ok((ms, TimestampSource::LogMtime)),
        DiskTimestamp::Unknown(why) => Err(why),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::model::log_dir::{load_log_dir, Selection};
    use crate::model::segment::{LoadOptions, ScanDepth};
    use std::path::{Path, PathBuf};

    fn fixture(rel: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(rel)
    }

    fn load(path: &Path) -> LogDir {
        let opts = LoadOptions::uniform(ScanDepth::Headers, Default::default());
        load_log_dir(path, &Selection::default(), &opts, &|| {}).unwrap()
    }

    /// `(base offset, cause)` of every segment of partition dir `name`.
    fn causes(dir: &LogDir, name: &str) -> Vec<(i64, Option<RecoveryCause>)> {
        let plan = recovery_on_next_start(dir);
        let (i, p) = dir
            .partitions
            .iter()
            .enumerate()
            .find(|(_, p)| p.dir_name == name)
            .unwrap();
        p.segments
            .iter()
            .map(|s| (s.base_offset.get(), plan.partitions[i].cause(s)))
            .collect()
    }

    fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                copy_dir(&e.path(), &to.join(e.file_name()));
            } else {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    }

    const UNCLEAN: Option<RecoveryCause> = Some(RecoveryCause::UncleanShutdown);

    #[test]
    fn unclean_shutdown_recovers_from_the_floor_segment_of_the_recovery_point() {
        // Recovery point 8 for crash-0 and crash-1; segments 0, 4, 8, 12.
        let dir = load(&fixture("unclean-shutdown/logs-0"));
        assert!(dir.clean_shutdown.is_none());
        for name in ["crash-0", "crash-1"] {
            assert_eq!(
                causes(&dir, name),
                [(0, None), (4, None), (8, UNCLEAN), (12, UNCLEAN)],
                "{name}"
            );
        }
        let plan = recovery_on_next_start(&dir);
        assert_eq!(plan.partitions.len(), dir.partitions.len());
    }

    #[test]
    fn recovery_point_inside_a_segment_floors_to_its_base_and_none_means_zero() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("logs-0");
        copy_dir(&fixture("unclean-shutdown/logs-0"), &root);
        // 10 lies inside segment 8; crash-1 has no entry (recovery from 0, Errata 20).
        std::fs::write(
            root.join("recovery-point-offset-checkpoint"),
            "0\n1\ncrash 0 10\n",
        )
        .unwrap();
        let dir = load(&root);
        assert_eq!(
            causes(&dir, "crash-0"),
            [(0, None), (4, None), (8, UNCLEAN), (12, UNCLEAN)]
        );
        assert!(causes(&dir, "crash-1").iter().all(|(_, c)| *c == UNCLEAN));
    }

    #[test]
    fn clean_shutdown_recovers_nothing_but_the_metadata_log() {
        let dir = load(&fixture("kraft-metadata/logs-0"));
        assert!(dir.clean_shutdown.is_some());
        let plan = recovery_on_next_start(&dir);
        let mut metadata_segments = 0;
        for (p, r) in dir.partitions.iter().zip(&plan.partitions) {
            let metadata = p.name.as_ref().unwrap().is_metadata_log();
            for s in p.log_segments() {
                if metadata {
                    assert_eq!(r.cause(s), Some(RecoveryCause::MetadataLog));
                    metadata_segments += 1;
                } else {
                    assert_eq!(r.cause(s), None, "{} {}", p.dir_name, s.base_offset);
                }
            }
        }
        assert!(metadata_segments > 0);
    }

    #[test]
    fn a_delete_dir_is_never_recovered() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("logs-0");
        copy_dir(&fixture("kraft-metadata/logs-0"), &root);
        std::fs::remove_file(root.join(".kafka_cleanshutdown")).unwrap();
        std::fs::write(root.join("recovery-point-offset-checkpoint"), "0\n0\n").unwrap();
        let dir = load(&root);
        let name = "kt-gamma-0.dd82c3f3d56d4b83947303620b9f7946-delete";
        let c = causes(&dir, name);
        assert!(!c.is_empty());
        assert!(c.iter().all(|(_, c)| c.is_none()), "{c:?}");
        // The live partitions of the same dir are recovered from 0.
        assert!(causes(&dir, "kt-alpha-0")
            .iter()
            .all(|(_, c)| *c == UNCLEAN));
    }

    #[test]
    fn a_missing_offset_index_is_recovered_after_a_clean_shutdown() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("logs-0");
        copy_dir(&fixture("kraft-metadata/logs-0"), &root);
        let p = root.join("kt-alpha-0");
        let first = std::fs::read_dir(&p)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".index"))
            .min()
            .unwrap();
        std::fs::remove_file(p.join(&first)).unwrap();
        let dir = load(&root);
        assert!(dir.clean_shutdown.is_some());
        let c = causes(&dir, "kt-alpha-0");
        assert_eq!(c[0].1, Some(RecoveryCause::MissingOffsetIndex), "{c:?}");
        assert!(c[1..].iter().all(|(_, c)| c.is_none()), "{c:?}");
    }

    #[test]
    fn recovered_segments_take_their_timestamp_from_the_batches() {
        let dir = load(&fixture("unclean-shutdown/logs-0"));
        let plan = recovery_on_next_start(&dir);
        let (p, r) = dir
            .partitions
            .iter()
            .zip(&plan.partitions)
            .find(|(p, _)| p.dir_name == "crash-0")
            .unwrap();
        for s in &p.segments {
            let (ts, source) = r.largest_timestamp(s).unwrap();
            let batches = s.log_summary().unwrap().stats.as_ref().unwrap();
            assert_eq!(Some(ts), batches.max_timestamp, "{}", s.base_offset);
            let expected = if r.recovers(s) {
                TimestampSource::Recovered
            } else {
                TimestampSource::TimeIndex
            };
            assert_eq!(source, expected, "{}", s.base_offset);
            // Not recovered: the value on disk, unchanged.
            let on_disk = largest_timestamp_after_start(s, false).unwrap();
            assert_eq!(
                on_disk.0,
                s.largest_timestamp_on_disk().known().unwrap(),
                "{}",
                s.base_offset
            );
        }
    }

    #[test]
    fn a_recovered_segment_without_batch_timestamps_falls_back_to_the_mtime() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("logs-0");
        copy_dir(&fixture("kraft-metadata/logs-0"), &root);
        let p = root.join("kt-alpha-0");
        // An empty segment after the others: no batch, no time-index entry.
        let names: Vec<String> = std::fs::read_dir(&p)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".log"))
            .collect();
        assert!(!names.is_empty());
        std::fs::write(p.join("09000000000000000000.log"), b"").unwrap();
        let dir = load(&root);
        let part = dir
            .partitions
            .iter()
            .find(|p| p.dir_name == "kt-alpha-0")
            .unwrap();
        let seg = part.segments.last().unwrap();
        assert_eq!(seg.base_offset, Offset(9_000_000_000_000_000_000));
        let (ts, source) = largest_timestamp_after_start(seg, true).unwrap();
        assert_eq!(source, TimestampSource::LogMtime);
        assert_eq!(Some(ts), seg.log_mtime());
        assert_eq!(
            seg.largest_timestamp_on_disk(),
            DiskTimestamp::LogMtime(ts),
            "no time index: the mtime on disk too"
        );
    }
}
