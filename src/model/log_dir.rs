//! A log dir, loaded: identity, clean-shutdown marker, root checkpoints and partitions.
//!
//! Partitions load in parallel (rayon); the result is sorted by dir name so reports do not
//! depend on scheduling.

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::formats::checkpoint::{parse_offset_checkpoint, CheckpointFile, TopicPartitionOffset};
use crate::formats::clean_shutdown::{parse_clean_shutdown, CleanShutdownMarker};
use crate::formats::meta_properties::{parse_meta_properties, MetaProperties};

use super::listing::{list_log_dir, LogDirListing, PartitionEntry};
use super::names::{parse_partition_dir_name, parse_segment_file_name, SegmentFileKind};
use super::partition::{load_partition, parse_small, Partition, PartitionCheckpoints};
use super::problem::Parsed;
use super::segment::LoadOptions;

/// A parsed offset checkpoint file.
pub type OffsetCheckpoint = Parsed<CheckpointFile<TopicPartitionOffset>>;

/// The four root checkpoint files.
#[derive(Debug, Clone, Default)]
pub struct RootCheckpoints {
    /// `recovery-point-offset-checkpoint`
    pub recovery_point: Option<OffsetCheckpoint>,
    /// `log-start-offset-checkpoint`
    pub log_start_offset: Option<OffsetCheckpoint>,
    /// `replication-offset-checkpoint`
    pub replication_offset: Option<OffsetCheckpoint>,
    /// `cleaner-offset-checkpoint`
    pub cleaner_offset: Option<OffsetCheckpoint>,
}

impl RootCheckpoints {
    fn for_partition(&self, topic: &str, partition: i32) -> PartitionCheckpoints {
        let find = |c: &Option<OffsetCheckpoint>| {
            c.as_ref()?
                .as_ref()
                .ok()?
                .values()
                .find(|e| e.topic == topic && e.partition == partition)
                .map(|e| e.offset)
        };
        PartitionCheckpoints {
            recovery_point: find(&self.recovery_point),
            log_start_offset: find(&self.log_start_offset),
            high_watermark: find(&self.replication_offset),
            cleaner_offset: find(&self.cleaner_offset),
        }
    }
}

/// One log dir, loaded.
#[derive(Debug, Clone)]
pub struct LogDir {
    /// The dir.
    pub path: PathBuf,
    /// What was found by name in the root (its partition entries move into `partitions`).
    pub listing: LogDirListing,
    /// `meta.properties`.
    pub meta: Option<Parsed<MetaProperties>>,
    /// `.kafka_cleanshutdown`.
    pub clean_shutdown: Option<Parsed<CleanShutdownMarker>>,
    /// Root checkpoints.
    pub checkpoints: RootCheckpoints,
    /// Partitions (including `__cluster_metadata-0` and unparseable dirs), sorted by dir name.
    pub partitions: Vec<Partition>,
}

/// What part of a log dir to load.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// `None`: every partition. Otherwise only these partition dirs, each whole (`None`) or only
    /// the segment with the given base offset.
    pub partitions: Option<BTreeMap<String, Option<i64>>>,
}

impl Selection {
    /// The union of two selections of the same log dir.
    pub fn merge(self, other: Selection) -> Selection {
        let (Some(mut a), Some(b)) = (self.partitions, other.partitions) else {
            return Selection { partitions: None };
        };
        for (dir, seg) in b {
            a.entry(dir)
                .and_modify(|s| {
                    if *s != seg {
                        *s = None; // two different segments, or one and the whole: load it whole
                    }
                })
                .or_insert(seg);
        }
        Selection {
            partitions: Some(a),
        }
    }
}

/// Load a log dir (or the selected part of it). `progress` is called once per partition loaded.
pub fn load_log_dir(
    path: &Path,
    selection: &Selection,
    opts: &LoadOptions,
    progress: &(dyn Fn() + Sync),
) -> io::Result<LogDir> {
    let mut listing = list_log_dir(path)?;
    let dir_name = |p: &PartitionEntry| {
        p.listing
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
    };
    if let Some(wanted) = &selection.partitions {
        listing
            .partitions
            .retain(|p| dir_name(p).is_some_and(|n| wanted.contains_key(&n)));
    }
    let only_segment = |p: &PartitionEntry| {
        selection
            .partitions
            .as_ref()
            .and_then(|w| dir_name(p).and_then(|n| w.get(&n).copied().flatten()))
    };
    let root = &listing.root;
    let checkpoints = RootCheckpoints {
        recovery_point: root
            .recovery_point
            .as_ref()
            .map(|f| parse_small(f, parse_offset_checkpoint)),
        log_start_offset: root
            .log_start_offset
            .as_ref()
            .map(|f| parse_small(f, parse_offset_checkpoint)),
        replication_offset: root
            .replication_offset
            .as_ref()
            .map(|f| parse_small(f, parse_offset_checkpoint)),
        cleaner_offset: root
            .cleaner_offset
            .as_ref()
            .map(|f| parse_small(f, parse_offset_checkpoint)),
    };
    let meta = root
        .meta_properties
        .as_ref()
        .map(|f| parse_small(f, parse_meta_properties));
    let clean_shutdown = root
        .clean_shutdown
        .as_ref()
        .map(|f| parse_small(f, parse_clean_shutdown));
    // The partition listings move into the loaded partitions.
    let entries = std::mem::take(&mut listing.partitions);
    let mut partitions: Vec<Partition> = entries
        .into_par_iter()
        .map(|entry: PartitionEntry| {
            let ckpt = entry
                .name
                .as_ref()
                .map(|n| checkpoints.for_partition(&n.topic, n.partition))
                .unwrap_or_default();
            let only = only_segment(&entry);
            let p = load_partition(entry, ckpt, only, opts);
            progress();
            p
        })
        .collect();
    partitions.sort_by(|a, b| a.dir_name.cmp(&b.dir_name));
    let clean = clean_shutdown.is_some();
    for p in &mut partitions {
        p.mark_recovery(clean);
    }
    Ok(LogDir {
        path: path.to_path_buf(),
        listing,
        meta,
        clean_shutdown,
        checkpoints,
        partitions,
    })
}

/// What a path given on the command line is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A whole log dir.
    LogDir(PathBuf),
    /// One partition dir inside a log dir.
    Partition {
        /// The log dir.
        log_dir: PathBuf,
        /// The partition dir's name.
        dir: String,
    },
    /// One segment of a partition.
    Segment {
        /// The log dir.
        log_dir: PathBuf,
        /// The partition dir's name.
        dir: String,
        /// The segment's base offset.
        base_offset: i64,
    },
}

impl Target {
    /// The log dir and the selection within it.
    pub fn split(&self) -> (&Path, Selection) {
        let only = |dir: &str, seg: Option<i64>| Selection {
            partitions: Some(BTreeMap::from([(dir.to_string(), seg)])),
        };
        match self {
            Target::LogDir(p) => (p, Selection::default()),
            Target::Partition { log_dir, dir } => (log_dir, only(dir, None)),
            Target::Segment {
                log_dir,
                dir,
                base_offset,
            } => (log_dir, only(dir, Some(*base_offset))),
        }
    }
}

/// The parent of a canonical path (the root for `/`).
fn parent_of(path: &Path) -> PathBuf {
    path.parent()
        .map_or_else(|| PathBuf::from("/"), Path::to_path_buf)
}

/// Whether a dir holds what the broker keeps in a partition dir (segment files or its metadata).
fn looks_like_partition_dir(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.filter_map(Result::ok).any(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        parse_segment_file_name(&name).is_some()
            || name == "partition.metadata"
            || name == "leader-epoch-checkpoint"
    })
}

/// Decide what `path` is: a segment file, a partition dir, or a log dir. Paths are made absolute
/// first so that `.` and relative segment names find their log dir. A dir counts as a partition
/// dir when its name parses as one and it has no `meta.properties` of its own but partition
/// files, or a parent that is a log dir.
pub fn classify_target(path: &Path) -> io::Result<Target> {
    let path = std::fs::canonicalize(path)?;
    let meta = std::fs::metadata(&path)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let parent = parent_of(&path);
    if meta.is_file() {
        let seg = parse_segment_file_name(&name).filter(|s| s.leftover.is_none());
        let Some(seg) = seg.filter(|s| s.kind != SegmentFileKind::Snapshot) else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "`{}` is not a segment file (.log, .index, .timeindex, .txnindex)",
                    path.display()
                ),
            ));
        };
        let dir = parent
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        return Ok(Target::Segment {
            log_dir: parent_of(&parent),
            dir,
            base_offset: seg.offset,
        });
    }
    let is_partition = parse_partition_dir_name(&name).is_some()
        && !path.join("meta.properties").exists()
        && (looks_like_partition_dir(&path) || parent.join("meta.properties").is_file());
    if is_partition {
        return Ok(Target::Partition {
            log_dir: parent,
            dir: name,
        });
    }
    Ok(Target::LogDir(path))
}

/// Index partitions of several log dirs by topic-partition (for JBOD duplicates).
pub fn partitions_by_name(dirs: &[LogDir]) -> HashMap<(String, i32), Vec<(&LogDir, &Partition)>> {
    let mut out: HashMap<(String, i32), Vec<(&LogDir, &Partition)>> = HashMap::new();
    for d in dirs {
        for p in &d.partitions {
            if let Some(n) = &p.name {
                out.entry((n.topic.clone(), n.partition))
                    .or_default()
                    .push((d, p));
            }
        }
    }
    out
}
