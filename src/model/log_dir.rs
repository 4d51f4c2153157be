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

use super::file_bytes::ReadMode;
use super::listing::{root_file, LogDirListing, PartitionEntry, PartitionListed, RootListing};
use super::lock::{probe_lock, LockState};
use super::names::{parse_partition_dir_name, parse_segment_file_name, SegmentFileKind};
use super::partition::{
    load_partition, parse_small, Partition, PartitionCheckpoints, PARTITIONS_PER_TASK,
};
use super::problem::{Parsed, Unreadable};
use super::segment::LoadOptions;
use super::units::Offset;

/// A parsed offset checkpoint file.
pub type OffsetCheckpoint = Parsed<CheckpointFile<TopicPartitionOffset>>;

/// The four root checkpoint files.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
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
    /// Read the four files of log dir `path` by name (an absent one is `None`).
    pub fn read(path: &Path) -> RootCheckpoints {
        let checkpoint = |name: &str| {
            root_file(path, name).map(|mut f| parse_small(&mut f, parse_offset_checkpoint))
        };
        RootCheckpoints {
            recovery_point: checkpoint("recovery-point-offset-checkpoint"),
            log_start_offset: checkpoint("log-start-offset-checkpoint"),
            replication_offset: checkpoint("replication-offset-checkpoint"),
            cleaner_offset: checkpoint("cleaner-offset-checkpoint"),
        }
    }

    /// The files that could not be read.
    pub fn unreadable(&self) -> Vec<Unreadable<'_>> {
        [
            Unreadable::of(
                "recovery-point-offset-checkpoint",
                self.recovery_point.as_ref(),
            ),
            Unreadable::of(
                "log-start-offset-checkpoint",
                self.log_start_offset.as_ref(),
            ),
            Unreadable::of(
                "replication-offset-checkpoint",
                self.replication_offset.as_ref(),
            ),
            Unreadable::of("cleaner-offset-checkpoint", self.cleaner_offset.as_ref()),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// Every partition's entries, indexed once by (topic, partition): one lookup per partition
    /// instead of a scan of each file (which made loading quadratic in the partition count).
    /// When a file names a partition twice, its first entry counts, as a scan would find it.
    fn index(&self) -> CheckpointIndex<'_> {
        let mut out: CheckpointIndex<'_> = HashMap::new();
        let files: [(&Option<OffsetCheckpoint>, CheckpointSlot); 4] = [
            (&self.recovery_point, |c| &mut c.recovery_point),
            (&self.log_start_offset, |c| &mut c.log_start_offset),
            (&self.replication_offset, |c| &mut c.high_watermark),
            (&self.cleaner_offset, |c| &mut c.cleaner_offset),
        ];
        for (file, slot) in files {
            let Some(Ok(file)) = file else { continue };
            for e in file.values() {
                let entry = out.entry((e.topic.as_str(), e.partition)).or_default();
                slot(entry).get_or_insert(Offset(e.offset));
            }
        }
        out
    }
}

/// Which field of [`PartitionCheckpoints`] a root checkpoint file fills.
type CheckpointSlot = fn(&mut PartitionCheckpoints) -> &mut Option<Offset>;

/// Root checkpoint entries by (topic, partition).
type CheckpointIndex<'a> = HashMap<(&'a str, i32), PartitionCheckpoints>;

/// One log dir, loaded.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct LogDir {
    /// The dir.
    #[serde(with = "crate::model::names::path_serde")]
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
    /// The `.lock` when the dir was loaded: held by a running broker, or not.
    pub lock: LockState,
}

impl LogDir {
    /// Every input of the log dir that could not be read, with the partition holding it (`None`:
    /// the root): root entries (a partition dir that cannot be listed is one), `meta.properties`,
    /// the four root checkpoints, and each partition's ([`Partition::unreadable`]).
    pub fn unreadable(&self) -> Vec<(Option<&Partition>, Unreadable<'_>)> {
        let entries = self.listing.io_problems.iter().map(|io| Unreadable {
            what: "entry",
            path: &io.path,
            message: &io.message,
        });
        let meta = Unreadable::of("meta.properties", self.meta.as_ref());
        let root = (entries.chain(meta).chain(self.checkpoints.unreadable())).map(|u| (None, u));
        let partitions = self
            .partitions
            .iter()
            .flat_map(|p| p.unreadable().into_iter().map(move |u| (Some(p), u)));
        root.chain(partitions).collect()
    }
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

impl Selection {
    /// Whether the partition dir `p` is selected.
    fn includes(&self, p: &PartitionEntry) -> bool {
        match &self.partitions {
            None => true,
            Some(wanted) => target_name(p).is_some_and(|n| wanted.contains_key(&n)),
        }
    }

    /// The base offset of the one segment selected in `p`, if only one is.
    fn only_segment(&self, p: &PartitionEntry) -> Option<i64> {
        self.partitions
            .as_ref()
            .and_then(|w| target_name(p).and_then(|n| w.get(&n).copied().flatten()))
    }
}

/// Targets name dirs as `name_text` does (see `classify_target`), so a dir whose name is not
/// UTF-8 is selected by the name the reports show.
fn target_name(p: &PartitionEntry) -> Option<String> {
    p.listing.path.file_name().map(super::names::name_text)
}

/// Load a log dir (or the selected part of it). `progress` is called once per partition loaded.
/// Files are never memory-mapped when a live process holds the dir's `.lock` (or when that
/// cannot be told): a running broker may truncate a segment under the map.
pub fn load_log_dir(
    path: &Path,
    selection: &Selection,
    opts: &LoadOptions,
    progress: &(dyn Fn() + Sync),
) -> io::Result<LogDir> {
    super::file_bytes::new_scan();
    let lock = probe_lock(path).unwrap_or(LockState::Unknown);
    let unmapped;
    let opts = if read_mode_for(lock, opts.read_mode) == opts.read_mode {
        opts
    } else {
        unmapped = LoadOptions {
            read_mode: ReadMode::Buffered,
            ..opts.clone()
        };
        &unmapped
    };
    // Partitions need the root checkpoints before they load, and the listing reaches them
    // only in name order: they are read by name first (as the listing classifies them).
    let checkpoints = RootCheckpoints::read(path);
    let by_partition = checkpoints.index();
    // Each partition dir is listed by the worker that loads it, with one handle of the dir
    // serving its listing, its stats and the opens of its files; the root's own listing
    // takes back, in name order, what the partitions' listings found for it.
    let root = RootListing::of(path)?;
    let dirs = root.partition_dirs();
    let (partitions, listed): (Vec<Option<Partition>>, Vec<PartitionListed>) = dirs
        .par_iter()
        .with_max_len(PARTITIONS_PER_TASK)
        .map(|dir| {
            let (entry, handle, mut listed) = dir.list(opts.disk_usage);
            if let Some(handle) = handle {
                super::file_bytes::keep_listed_dir(&entry.listing.path, handle);
            }
            if !selection.includes(&entry) {
                listed.settle(&entry.listing.path);
                return (None, listed);
            }
            let ckpt = entry
                .name
                .as_ref()
                .and_then(|n| by_partition.get(&(n.topic.as_str(), n.partition)))
                .copied()
                .unwrap_or_default();
            let only = selection.only_segment(&entry);
            let p = load_partition(entry, ckpt, only, opts, &mut |f| listed.take_stat(f));
            listed.settle(&p.path);
            progress();
            (Some(p), listed)
        })
        .unzip();
    // Sized first: `flatten` loses the length, and growing by doubling held up to 1.6 times
    // the partitions (912 B each) beside the list they move out of.
    let mut kept = Vec::with_capacity(partitions.iter().flatten().count());
    kept.extend(partitions.into_iter().flatten());
    let mut partitions = kept;
    let mut listing = root.finish(listed, opts.disk_usage);
    let root = &mut listing.root;
    let meta = root
        .meta_properties
        .as_mut()
        .map(|f| parse_small(f, parse_meta_properties));
    let clean_shutdown = root
        .clean_shutdown
        .as_mut()
        .map(|f| parse_small(f, parse_clean_shutdown));
    partitions.sort_by(|a, b| a.dir_name.cmp(&b.dir_name));
    Ok(LogDir {
        path: path.to_path_buf(),
        listing,
        meta,
        clean_shutdown,
        checkpoints,
        partitions,
        lock,
    })
}

/// The read mode for a log dir in `lock` state: never mapped while a live process may hold it.
fn read_mode_for(lock: LockState, wanted: ReadMode) -> ReadMode {
    if lock.allows_mapping() {
        wanted
    } else {
        ReadMode::Buffered
    }
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
        /// The partition dir's name, as [`super::names::name_text`] writes it.
        dir: String,
    },
    /// One segment of a partition.
    Segment {
        /// The log dir.
        log_dir: PathBuf,
        /// The partition dir's name, as [`super::names::name_text`] writes it.
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
        .map(super::names::name_text)
        .unwrap_or_default();
    let parent = parent_of(&path);
    if meta.is_file() {
        let seg = parse_segment_file_name(&name).filter(|s| s.leftover.is_none());
        let Some(seg) = seg.filter(|s| s.kind != SegmentFileKind::Snapshot) else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "`{}` is not a segment file (.log, .index, .timeindex, .txnindex)",
                    super::names::path_text(&path)
                ),
            ));
        };
        let dir = parent
            .file_name()
            .map(super::names::name_text)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::problem::FileProblem;

    fn ckpt(text: &str) -> Option<OffsetCheckpoint> {
        Some(
            parse_offset_checkpoint(text.as_bytes())
                .map_err(|e| FileProblem::format(Path::new("x"), e)),
        )
    }

    #[test]
    fn checkpoint_index_joins_the_four_files_by_partition() {
        let root = RootCheckpoints {
            recovery_point: ckpt("0\n3\na 0 10\nb 1 20\na 0 99\n"),
            log_start_offset: ckpt("0\n1\nb 1 5\n"),
            replication_offset: ckpt("0\n2\na 0 11\nc 0 7\n"),
            cleaner_offset: ckpt("not a checkpoint"),
        };
        let index = root.index();
        assert_eq!(index.len(), 3);
        assert_eq!(
            index[&("a", 0)],
            PartitionCheckpoints {
                recovery_point: Some(Offset(10)), // the first of two entries, as a scan finds it
                log_start_offset: None,
                high_watermark: Some(Offset(11)),
                cleaner_offset: None,
            }
        );
        assert_eq!(index[&("b", 1)].log_start_offset, Some(Offset(5)));
        assert_eq!(index[&("c", 0)].high_watermark, Some(Offset(7)));
        assert!(!index.contains_key(&("a", 1)));
        assert!(RootCheckpoints::default().index().is_empty());
    }

    #[test]
    fn a_dir_locked_by_a_live_process_is_never_mapped() {
        use std::io::{BufRead, BufReader};
        assert_eq!(
            read_mode_for(LockState::NoLockFile, ReadMode::Mmap),
            ReadMode::Mmap
        );
        assert_eq!(
            read_mode_for(LockState::Unlocked, ReadMode::Mmap),
            ReadMode::Mmap
        );
        let held = LockState::HeldBy { pid: Some(1) };
        assert_eq!(read_mode_for(held, ReadMode::Mmap), ReadMode::Buffered);
        assert_eq!(
            read_mode_for(LockState::Unknown, ReadMode::Mmap),
            ReadMode::Buffered
        );
        assert_eq!(
            read_mode_for(LockState::Unlocked, ReadMode::Buffered),
            ReadMode::Buffered
        );

        let dir = tempfile::tempdir().unwrap();
        let opts = LoadOptions::uniform(super::super::segment::ScanDepth::Verify, ReadMode::Mmap);
        let loaded = load_log_dir(dir.path(), &Selection::default(), &opts, &|| {}).unwrap();
        assert_eq!(loaded.lock, LockState::NoLockFile);
        let mut child = std::process::Command::new("python3")
            .arg("-c")
            .arg(
                "import fcntl,time,sys; f=open(sys.argv[1],'w'); fcntl.lockf(f, fcntl.LOCK_EX); \
                 print('locked', flush=True); time.sleep(30)",
            )
            .arg(dir.path().join(".lock"))
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let loaded = load_log_dir(dir.path(), &Selection::default(), &opts, &|| {});
        let pid = i32::try_from(child.id()).unwrap();
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(loaded.unwrap().lock, LockState::HeldBy { pid: Some(pid) });
    }
}
