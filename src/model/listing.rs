//! What is in a log dir, by name alone: partition dirs, segment files grouped by base offset,
//! leftovers of interrupted operations, and files the broker would not expect.
//!
//! Listing reads directory entries and file metadata only; parsing happens in [`super::load`].
//! Broker rules: spec formats §1.1 (root), §1.3 (partition files), §1.4 (leftovers).

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::names::{
    parse_partition_dir_name, parse_segment_file_name, LeftoverKind, PartitionDirName,
    SegmentFileKind, METADATA_TOPIC,
};

/// Size and modification time of a file (links followed, as the broker follows them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileInfo {
    /// Full path.
    pub path: PathBuf,
    /// Length in bytes.
    pub size: u64,
    /// Modification time in ms since the epoch (Kafka's `lastModified`), if the OS gives one.
    pub mtime_ms: Option<i64>,
}

impl FileInfo {
    fn of(path: PathBuf, meta: &fs::Metadata) -> Self {
        let mtime_ms = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
            .and_then(|d| i64::try_from(d.as_millis()).ok());
        FileInfo {
            path,
            size: meta.len(),
            mtime_ms,
        }
    }
}

/// The files of one segment, found by base offset.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SegmentFiles {
    /// Base offset from the file names.
    pub base_offset: i64,
    /// `.log`
    pub log: Option<FileInfo>,
    /// `.index`
    pub index: Option<FileInfo>,
    /// `.timeindex`
    pub time_index: Option<FileInfo>,
    /// `.txnindex`
    pub txn_index: Option<FileInfo>,
}

/// A file left by an operation that has not finished (`.deleted`, `.cleaned`, `.swap`, `.tmp`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leftover {
    /// The file.
    pub file: FileInfo,
    /// Which suffix; `None` for a `.tmp` file of an atomic write.
    pub kind: Option<LeftoverKind>,
    /// The segment file kind under the suffix and its offset, when the name is a segment name.
    pub segment: Option<(i64, SegmentFileKind)>,
}

/// An entry the broker would not expect where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownEntry {
    /// Full path.
    pub path: PathBuf,
    /// Whether it is a directory.
    pub is_dir: bool,
}

/// A problem reading a directory or a file's metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IoProblem {
    /// The path that could not be read.
    pub path: PathBuf,
    /// The OS error, as text.
    pub message: String,
}

impl IoProblem {
    pub(crate) fn new(path: &Path, err: &io::Error) -> Self {
        IoProblem {
            path: path.to_path_buf(),
            message: err.to_string(),
        }
    }
}

/// Everything found in one partition dir.
#[derive(Debug, Clone, Default)]
pub struct PartitionListing {
    /// The dir.
    pub path: PathBuf,
    /// Segments by base offset, ascending.
    pub segments: BTreeMap<i64, SegmentFiles>,
    /// Producer-state snapshots by offset.
    pub snapshots: BTreeMap<i64, FileInfo>,
    /// `leader-epoch-checkpoint`
    pub leader_epoch_checkpoint: Option<FileInfo>,
    /// `partition.metadata`
    pub partition_metadata: Option<FileInfo>,
    /// KRaft metadata log only: `quorum-state`.
    pub quorum_state: Option<FileInfo>,
    /// KRaft metadata log only: `<offset>-<epoch>.checkpoint` snapshots.
    pub metadata_snapshots: Vec<FileInfo>,
    /// Files of unfinished operations.
    pub leftovers: Vec<Leftover>,
    /// Files and dirs the broker does not write here.
    pub unknown: Vec<UnknownEntry>,
    /// Entries that could not be read.
    pub io_problems: Vec<IoProblem>,
}

/// Root-level files of a log dir.
#[derive(Debug, Clone, Default)]
pub struct RootFiles {
    /// `meta.properties`
    pub meta_properties: Option<FileInfo>,
    /// `.kafka_cleanshutdown`
    pub clean_shutdown: Option<FileInfo>,
    /// `.lock` (present while a broker runs or after a crash; deleted on clean shutdown).
    pub lock: Option<FileInfo>,
    /// `recovery-point-offset-checkpoint`
    pub recovery_point: Option<FileInfo>,
    /// `log-start-offset-checkpoint`
    pub log_start_offset: Option<FileInfo>,
    /// `replication-offset-checkpoint`
    pub replication_offset: Option<FileInfo>,
    /// `cleaner-offset-checkpoint`
    pub cleaner_offset: Option<FileInfo>,
    /// `bootstrap.checkpoint` (metadata dir only, written by `kafka-storage format`).
    pub bootstrap_checkpoint: Option<FileInfo>,
}

/// A partition dir with its parsed name (`None` when the broker could not parse it).
#[derive(Debug, Clone)]
pub struct PartitionEntry {
    /// Parsed dir name.
    pub name: Option<PartitionDirName>,
    /// Contents.
    pub listing: PartitionListing,
}

/// Everything found in one log dir.
#[derive(Debug, Clone, Default)]
pub struct LogDirListing {
    /// The log dir.
    pub path: PathBuf,
    /// Root files.
    pub root: RootFiles,
    /// Partition dirs (including `__cluster_metadata-0`), sorted by dir name.
    pub partitions: Vec<PartitionEntry>,
    /// `.tmp` files and other leftovers in the root.
    pub leftovers: Vec<Leftover>,
    /// Entries the broker would not expect in the root.
    pub unknown: Vec<UnknownEntry>,
    /// Entries that could not be read.
    pub io_problems: Vec<IoProblem>,
}

/// Read the entries of a directory, sorted by name, with their metadata; entries whose metadata
/// cannot be read (a dangling link, a loop, a permission error) go to `problems`.
fn read_dir_sorted(
    dir: &Path,
    problems: &mut Vec<IoProblem>,
) -> io::Result<Vec<(String, PathBuf, fs::Metadata)>> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        // Follow links as the broker's File.isDirectory/isFile do (symlinked partition dirs are
        // a real practice); a dangling link or a loop becomes a read problem.
        match fs::metadata(&path) {
            Ok(meta) => out.push((name, path, meta)),
            Err(e) => problems.push(IoProblem::new(&path, &e)),
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// List a log dir. Fails only if the dir itself cannot be read.
pub fn list_log_dir(dir: &Path) -> io::Result<LogDirListing> {
    let mut out = LogDirListing {
        path: dir.to_path_buf(),
        ..Default::default()
    };
    for (name, path, meta) in read_dir_sorted(dir, &mut out.io_problems)? {
        if meta.is_dir() {
            if name == "remote-log-index-cache" {
                continue; // tiered-storage cache; the loader skips it too
            }
            let listing = match list_partition_dir(&path) {
                Ok(l) => l,
                Err(e) => {
                    out.io_problems.push(IoProblem::new(&path, &e));
                    PartitionListing {
                        path: path.clone(),
                        ..Default::default()
                    }
                }
            };
            out.partitions.push(PartitionEntry {
                name: parse_partition_dir_name(&name),
                listing,
            });
            continue;
        }
        if !meta.is_file() {
            // A FIFO or device named like a checkpoint would block or mislead a read.
            out.unknown.push(UnknownEntry {
                path,
                is_dir: false,
            });
            continue;
        }
        let info = FileInfo::of(path.clone(), &meta);
        let slot = match name.as_str() {
            "meta.properties" => &mut out.root.meta_properties,
            ".kafka_cleanshutdown" => &mut out.root.clean_shutdown,
            ".lock" => &mut out.root.lock,
            "recovery-point-offset-checkpoint" => &mut out.root.recovery_point,
            "log-start-offset-checkpoint" => &mut out.root.log_start_offset,
            "replication-offset-checkpoint" => &mut out.root.replication_offset,
            "cleaner-offset-checkpoint" => &mut out.root.cleaner_offset,
            "bootstrap.checkpoint" => &mut out.root.bootstrap_checkpoint,
            _ if name.ends_with(".tmp") => {
                out.leftovers.push(Leftover {
                    file: info,
                    kind: None,
                    segment: None,
                });
                continue;
            }
            _ => {
                out.unknown.push(UnknownEntry {
                    path,
                    is_dir: false,
                });
                continue;
            }
        };
        *slot = Some(info);
    }
    Ok(out)
}

/// List one partition dir.
pub fn list_partition_dir(dir: &Path) -> io::Result<PartitionListing> {
    let is_metadata = dir
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n == format!("{METADATA_TOPIC}-0"));
    let mut out = PartitionListing {
        path: dir.to_path_buf(),
        ..Default::default()
    };
    for (name, path, meta) in read_dir_sorted(dir, &mut out.io_problems)? {
        if !meta.is_file() {
            out.unknown.push(UnknownEntry {
                path,
                is_dir: meta.is_dir(),
            });
            continue;
        }
        let info = FileInfo::of(path.clone(), &meta);
        if let Some(seg) = parse_segment_file_name(&name) {
            if let Some(kind) = seg.leftover {
                out.leftovers.push(Leftover {
                    file: info,
                    kind: Some(kind),
                    segment: Some((seg.offset, seg.kind)),
                });
                continue;
            }
            if seg.kind == SegmentFileKind::Snapshot {
                out.snapshots.insert(seg.offset, info);
                continue;
            }
            let files = out
                .segments
                .entry(seg.offset)
                .or_insert_with(|| SegmentFiles {
                    base_offset: seg.offset,
                    ..Default::default()
                });
            let slot = match seg.kind {
                SegmentFileKind::Log => &mut files.log,
                SegmentFileKind::Index => &mut files.index,
                SegmentFileKind::TimeIndex => &mut files.time_index,
                SegmentFileKind::TxnIndex => &mut files.txn_index,
                SegmentFileKind::Snapshot => continue,
            };
            *slot = Some(info);
            continue;
        }
        match name.as_str() {
            "leader-epoch-checkpoint" => out.leader_epoch_checkpoint = Some(info),
            "partition.metadata" => out.partition_metadata = Some(info),
            "quorum-state" if is_metadata => out.quorum_state = Some(info),
            _ if is_metadata && is_metadata_snapshot_name(&name) => {
                out.metadata_snapshots.push(info)
            }
            _ if name.ends_with(".tmp") || (is_metadata && name.ends_with(".checkpoint.part")) => {
                out.leftovers.push(Leftover {
                    file: info,
                    kind: None,
                    segment: None,
                })
            }
            _ if is_metadata && name.ends_with(".checkpoint.deleted") => {
                out.leftovers.push(Leftover {
                    file: info,
                    kind: Some(LeftoverKind::Deleted),
                    segment: None,
                })
            }
            _ => out.unknown.push(UnknownEntry {
                path,
                is_dir: false,
            }),
        }
    }
    Ok(out)
}

/// `<20-digit offset>-<10-digit epoch>.checkpoint` (KRaft snapshot names, spec formats §8.5).
fn is_metadata_snapshot_name(name: &str) -> bool {
    let Some(stem) = name.strip_suffix(".checkpoint") else {
        return false;
    };
    let Some((offset, epoch)) = stem.split_once('-') else {
        return false;
    };
    offset.len() == 20
        && epoch.len() == 10
        && offset
            .bytes()
            .chain(epoch.bytes())
            .all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_files_and_reports_the_unexpected() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        fs::write(root.join("meta.properties"), "version=1\n").unwrap();
        fs::write(root.join("recovery-point-offset-checkpoint.tmp"), "").unwrap();
        fs::write(root.join("notes.txt"), "").unwrap();
        let p = root.join("orders-0");
        fs::create_dir(&p).unwrap();
        fs::create_dir(root.join("lost+found")).unwrap();
        for f in [
            "00000000000000000000.log",
            "00000000000000000000.index",
            "00000000000000000000.timeindex",
            "00000000000000000042.log",
            "00000000000000000042.snapshot",
            "00000000000000000007.log.deleted",
            "partition.metadata",
            "leader-epoch-checkpoint",
            "core.1234",
        ] {
            fs::write(p.join(f), b"").unwrap();
        }
        let l = list_log_dir(root).unwrap();
        assert!(l.root.meta_properties.is_some());
        assert_eq!(l.leftovers.len(), 1);
        assert_eq!(l.unknown.len(), 1);
        assert_eq!(l.partitions.len(), 2);
        let bad = l.partitions.iter().find(|p| p.name.is_none()).unwrap();
        assert!(bad.listing.path.ends_with("lost+found"));
        let orders = l.partitions.iter().find(|p| p.name.is_some()).unwrap();
        let segs: Vec<_> = orders.listing.segments.keys().copied().collect();
        assert_eq!(segs, [0, 42]);
        assert!(orders.listing.segments[&0].time_index.is_some());
        assert!(orders.listing.segments[&42].index.is_none());
        assert_eq!(
            orders.listing.snapshots.keys().copied().collect::<Vec<_>>(),
            [42]
        );
        assert_eq!(
            orders.listing.leftovers[0].segment,
            Some((7, SegmentFileKind::Log))
        );
        assert_eq!(orders.listing.unknown.len(), 1);
    }

    #[test]
    fn metadata_snapshot_names() {
        assert!(is_metadata_snapshot_name(
            "00000000000000000123-0000000001.checkpoint"
        ));
        assert!(!is_metadata_snapshot_name(
            "00000000000000000123.checkpoint"
        ));
    }
}
