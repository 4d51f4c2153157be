//! One broker's view of its cluster, offline: the log dirs, the KRaft metadata image found in
//! them, and the effective config of every topic and of the broker, joined to the partition
//! dirs on disk by topic id.
//!
//! [`ClusterView::build`] does all the reading (meta.properties, `server.properties`, the
//! metadata log, `partition.metadata`, a describe file) and keeps whatever went wrong as
//! [`ClusterProblem`]s for `checks/` to turn into findings. Nothing here prints or judges.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::config::describe_file::parse_describe_file;
use crate::config::provenance::{
    assumed_values, AssumedValue, UnreadLevel, UnreadSource, WhyUnread,
};
use crate::config::resolve::{resolve_broker, resolve_topic};
use crate::config::sources::{from_metadata_maps, parse_server_properties};
use crate::config::validate::validate_overrides;
use crate::config::{
    BrokerCleanupConfig, BrokerEffectiveConfig, ConfigError, ConfigSources, EffectiveConfig,
    LogConfig,
};
use crate::formats::meta_properties::{parse_meta_properties, MetaProperties};
use crate::formats::partition_metadata::{parse_partition_metadata, Uuid};

use super::file_bytes::{read_small_file, ReadMode};
use super::kafka_version::{choose_version, AppliedVersion, KafkaVersion, VersionFacts};
use super::listing::{list_partition_dirs, IoProblem};
use super::log_dir::LogDir;
use super::metadata_log::{
    is_reserved_directory, load_metadata_image, MetadataImage, MetadataProblem,
};
use super::mode::{different_clusters, mode_evidence, LogDirMode, ModeEvidence};
use super::names::{
    parse_partition_dir_name, PartitionDirName, PartitionDirState, METADATA_TOPIC,
    SHARE_GROUP_STATE_TOPIC,
};
use super::partition::PARTITIONS_PER_TASK;
use super::problem::FileProblem;

/// A file given to [`ClusterView::build`]: a path to read, or bytes already in hand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileInput {
    /// Read this file.
    Path(PathBuf),
    /// These bytes, named `name` in errors.
    Bytes {
        /// What to call the input in errors.
        name: String,
        /// The content.
        bytes: Vec<u8>,
    },
}

impl FileInput {
    fn name(&self) -> String {
        match self {
            FileInput::Path(p) => super::names::path_text(p),
            FileInput::Bytes { name, .. } => name.clone(),
        }
    }

    fn read(&self, cap: u64) -> Result<Vec<u8>, ClusterError> {
        match self {
            FileInput::Path(p) => read_small_file(p, cap).map_err(|source| ClusterError::Read {
                path: p.clone(),
                source,
            }),
            FileInput::Bytes { bytes, .. } => Ok(bytes.clone()),
        }
    }
}

/// What a view reads from the log dirs themselves beside their partition dirs: each dir's
/// `meta.properties`, where the metadata log is and the image replayed from it. Read from disk
/// ([`DirFacts::read`]), or carried by a facts snapshot ([`super::snapshot`]) in its place.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct DirFacts {
    /// Each log dir with its `meta.properties` (`None`: absent or unusable), in order.
    #[serde(with = "crate::model::names::path_pairs_serde")]
    pub metas: Vec<(PathBuf, Option<MetaProperties>)>,
    /// What went wrong reading them and looking for the metadata log, in the order met: the
    /// log dir, the file, the problem.
    #[serde(with = "crate::model::names::path_triples_serde")]
    pub problems: Vec<(PathBuf, FileRole, FileProblem)>,
    /// The `__cluster_metadata-0` dir found (in `metadata.log.dir`, else the first log dir
    /// holding one).
    #[serde(with = "crate::model::names::opt_path_serde")]
    pub metadata_dir: Option<PathBuf>,
    /// The image replayed from it (`None`: no metadata log found).
    pub image: Option<MetadataImage>,
}

impl DirFacts {
    /// Read them from `log_dirs` (and `metadata_log_dir`, the broker's `metadata.log.dir`).
    pub fn read(log_dirs: &[PathBuf], metadata_log_dir: Option<&str>, mode: ReadMode) -> Self {
        let mut problems = Vec::new();
        let metas = read_meta(log_dirs, &mut problems);
        let metadata_dir = find_metadata_dir(log_dirs, metadata_log_dir, &mut problems);
        // Several brokers' dirs: each node keeps its own copy of the metadata log, and the one
        // that has applied the most records is the cluster's latest word on leaders and ISRs.
        let several = (metadata_dir.is_some() && metadata_log_dir.is_none())
            .then(|| several_nodes_metadata(&log_dir_info(metas.clone(), None), mode))
            .flatten();
        let (metadata_dir, image) = match several {
            Some((dir, image)) => (Some(dir), Some(image)),
            None => {
                let image = (metadata_dir.as_deref()).map(|dir| load_metadata_image(dir, mode));
                (metadata_dir, image)
            }
        };
        DirFacts {
            metas,
            problems,
            metadata_dir,
            image,
        }
    }

    /// The facts of several brokers' dirs read together, in order, as [`Self::read`] would
    /// have read them in one go: every dir's `meta.properties`, the first metadata log found
    /// (the problems met looking for it before, none after).
    pub fn join(parts: impl IntoIterator<Item = DirFacts>) -> Self {
        let mut out = DirFacts::default();
        // One read meets every dir's meta.properties first, then looks for the metadata log.
        let mut lookups = Vec::new();
        for p in parts {
            out.metas.extend(p.metas);
            for problem in p.problems {
                if problem.1 != FileRole::MetadataLog {
                    out.problems.push(problem);
                } else if out.metadata_dir.is_none() {
                    lookups.push(problem);
                }
            }
            // As one read of several nodes' dirs: the copy that has applied the most records
            // (the first on a tie); with one node there is one copy.
            let newer = match (&out.image, &p.image) {
                (None, _) => true,
                (Some(a), Some(b)) => b.complete_up_to > a.complete_up_to,
                (Some(_), None) => false,
            };
            if out.metadata_dir.is_none() || (newer && p.metadata_dir.is_some()) {
                out.metadata_dir = p.metadata_dir;
                out.image = p.image;
            }
        }
        out.problems.extend(lookups);
        out
    }
}

/// What [`ClusterView::build`] reads.
#[derive(Debug, Clone, Default)]
pub struct ClusterInputs {
    /// Log dirs. Empty: `log.dirs` (else `log.dir`) of `server_properties`.
    pub log_dirs: Vec<PathBuf>,
    /// The broker's static `server.properties`.
    pub server_properties: Option<FileInput>,
    /// Whose dynamic per-broker configs apply. `None`: `node.id` of the log dirs'
    /// meta.properties.
    pub broker_id: Option<i32>,
    /// `--config TOPIC:KEY=VALUE` overrides (topic `*`: every topic).
    pub overrides: Vec<String>,
    /// A saved `kafka-configs.sh --describe --all` output, used as a source.
    pub describe_file: Option<FileInput>,
    /// Topics to resolve. Empty: every topic of the metadata image and of the describe file.
    pub topics: Vec<String>,
    /// How to read the metadata log.
    pub read_mode: ReadMode,
    /// `--kafka-version`: the release whose rules apply. `None`: the one the files tell
    /// ([`super::kafka_version::choose_version`]).
    pub kafka_version: Option<KafkaVersion>,
    /// The release whose broker printed `describe_file`, when it is known to differ from the
    /// view's (`upgrade-check`'s target view); `None`: the view's own.
    pub describe_file_release: Option<KafkaVersion>,
    /// What the log dirs held beside their partitions, taken before (a facts snapshot): used
    /// instead of reading the dirs, which need not exist here. `None`: read them.
    pub facts: Option<std::sync::Arc<DirFacts>>,
    /// What a facts snapshot carries of what is read after the load (record replays, the
    /// filesystem): used instead of reading the dirs. `None`: read them.
    pub replays: Option<std::sync::Arc<super::replays::Replays>>,
}

/// Why no view could be built at all (everything else is a [`ClusterProblem`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClusterError {
    /// No log dir named, and no `log.dirs` in `server.properties`.
    #[error("name the log dirs, or give --server-properties with log.dirs")]
    NoLogDirs,
    /// A log dir that cannot be listed.
    #[error("failed to read log dir `{}`", super::names::path_text(path))]
    LogDir {
        /// The log dir.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// An input file that cannot be read.
    #[error("failed to read `{}`", super::names::path_text(path))]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// An input file that does not parse.
    #[error("in `{name}`")]
    Parse {
        /// The input.
        name: String,
        /// What is wrong.
        #[source]
        source: ConfigError,
    },
    /// A `--config` override Kafka would refuse, or for a topic that does not exist.
    #[error(transparent)]
    Override(ConfigError),
}

/// Which file a [`ClusterProblem::File`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum FileRole {
    /// A log dir's `meta.properties` (node id).
    MetaProperties,
    /// A partition dir's `partition.metadata` (topic id).
    PartitionMetadata,
    /// An entry of a log dir that could not be listed.
    DirEntry,
    /// A `__cluster_metadata-0` dir that could not be looked up.
    MetadataLog,
}

impl FileRole {
    /// The file's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            FileRole::MetaProperties => "meta.properties",
            FileRole::PartitionMetadata => "partition.metadata",
            FileRole::DirEntry => "dir entry",
            FileRole::MetadataLog => "metadata log dir",
        }
    }
}

/// Something that keeps the view from being complete or consistent, as data.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ClusterProblem {
    /// No `__cluster_metadata-0` found: topic overrides and dynamic broker configs are unknown.
    MetadataMissing,
    /// The log dirs are ZooKeeper-mode dirs (no metadata log): topic overrides and dynamic
    /// broker configs live in ZooKeeper.
    ZooKeeperMode,
    /// The log dirs' `meta.properties` name more than one `cluster.id`: the broker refuses to
    /// start on them together.
    ClusterIdMismatch {
        /// Every log dir read and its `cluster.id` (`None`: none in its meta.properties).
        dirs: Vec<(PathBuf, Option<String>)>,
    },
    /// Partitions the metadata image assigns to this broker that have no partition dir in any
    /// of the log dirs read.
    MissingReplicas {
        /// The topic.
        topic: String,
        /// The broker.
        node_id: i32,
        /// The partitions missing, ascending.
        partitions: Vec<i32>,
        /// Partitions the image assigns to this broker.
        assigned: usize,
    },
    /// A problem replaying the metadata log (the image stops before it or skips it).
    Metadata(MetadataProblem),
    /// A live partition dir whose name and topic id disagree.
    TopicIdMismatch {
        /// The log dir.
        log_dir: PathBuf,
        /// The partition dir name.
        dir_name: String,
        /// The topic the dir name says.
        dir_topic: String,
        /// The topic the id belongs to in the image.
        id_topic: String,
    },
    /// A live partition dir whose topic id is not in the metadata image.
    UnknownTopicId {
        /// The log dir.
        log_dir: PathBuf,
        /// The partition dir name.
        dir_name: String,
        /// Its topic id.
        topic_id: Uuid,
    },
    /// A topic asked for that is not in the metadata image.
    UnknownTopic {
        /// The topic.
        topic: String,
    },
    /// A config value skipped or ignored while resolving.
    Config {
        /// The topic being resolved; `None` for the broker's own configs.
        topic: Option<String>,
        /// What was wrong.
        error: ConfigError,
    },
    /// A file that could not be read or parsed.
    File {
        /// The log dir.
        log_dir: PathBuf,
        /// The partition dir name, for a file in one.
        partition: Option<String>,
        /// Which file.
        role: FileRole,
        /// Why.
        problem: FileProblem,
    },
}

/// The metadata log that was read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MetadataSummary {
    /// The `__cluster_metadata-0` dir, if found.
    pub dir: Option<PathBuf>,
    /// The snapshot replayed first.
    pub snapshot_used: Option<PathBuf>,
    /// Last offset applied.
    pub complete_up_to: Option<i64>,
    /// Topics in the image.
    pub topic_count: usize,
}

impl MetadataSummary {
    /// What `image`, read from `dir`, holds.
    fn of(dir: Option<PathBuf>, image: &MetadataImage) -> Self {
        MetadataSummary {
            dir,
            snapshot_used: image.snapshot_used.clone(),
            complete_up_to: image.complete_up_to,
            topic_count: image.topics.len(),
        }
    }
}

/// A partition dir on disk.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PartitionDirRef {
    /// The log dir.
    pub log_dir: PathBuf,
    /// The dir name.
    pub dir_name: String,
}

/// One topic's effective config and its dirs on disk.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicView {
    /// Topic name.
    pub name: String,
    /// Topic id from the metadata image (`None`: not there).
    pub topic_id: Option<Uuid>,
    /// Partitions in the metadata image.
    pub partition_count: Option<usize>,
    /// Partition dirs on disk carrying this topic's id (log dir order, then dir name); without a
    /// metadata log (ZooKeeper mode), the live dirs named after the topic.
    pub dirs: Vec<PartitionDirRef>,
    /// Every topic config's value and source.
    pub resolved: EffectiveConfig,
    /// The cleanup-relevant configs, typed.
    pub log_config: LogConfig,
    /// The deciding values a source logclean did not read could override.
    pub assumed: Vec<AssumedValue>,
}

/// One log dir as its `meta.properties` and the metadata log describe it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogDirInfo {
    /// The log dir.
    pub path: PathBuf,
    /// KRaft or ZooKeeper mode, and why.
    pub mode: ModeEvidence,
    /// `cluster.id` of its meta.properties.
    pub cluster_id: Option<String>,
    /// `node.id` (or `broker.id` of a v0 file).
    pub node_id: Option<i32>,
    /// `directory.id`.
    pub directory_id: Option<Uuid>,
}

/// What a view's verdicts assume ([`ClusterView::assumptions`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Assumptions {
    /// Source levels not read, and why.
    pub unread: Vec<UnreadSource>,
    /// Per topic (by name), its deciding values an unread level could override; topics with
    /// none are left out.
    pub topics: Vec<(String, Vec<AssumedValue>)>,
    /// The release whose rules were applied, and why.
    pub kafka_version: AppliedVersion,
}

impl Assumptions {
    /// The assumed values of `topic` (empty when none).
    pub fn of_topic(&self, topic: &str) -> &[AssumedValue] {
        (self.topics.iter())
            .find(|(t, _)| t == topic)
            .map_or(&[], |(_, v)| v.as_slice())
    }
}

/// The joined view. Build it with [`ClusterView::build`].
#[derive(Debug, Clone)]
pub struct ClusterView {
    /// The log dirs read (as given, or from `log.dirs`).
    pub log_dirs: Vec<PathBuf>,
    /// Each log dir's mode and ids, in the order of [`ClusterView::log_dirs`].
    pub log_dir_info: Vec<LogDirInfo>,
    /// The mode of the whole set: KRaft if any dir is, else ZooKeeper if any dir is.
    pub mode: LogDirMode,
    /// The broker whose dynamic configs were applied.
    pub broker_id: Option<i32>,
    /// The metadata log read.
    pub metadata: MetadataSummary,
    /// The full metadata image (empty when no metadata log was found).
    pub image: MetadataImage,
    /// Every config source, for resolving topics not in [`ClusterView::topics`].
    pub sources: ConfigSources,
    /// The broker-only configs' values and sources.
    pub broker: BrokerEffectiveConfig,
    /// The broker-only configs, typed.
    pub broker_config: BrokerCleanupConfig,
    /// The resolved topics, by name.
    pub topics: BTreeMap<String, TopicView>,
    /// Every partition dir mapped to a topic by its id, → topic name.
    pub partition_topics: BTreeMap<PartitionDirRef, String>,
    /// What went wrong, in the order found.
    pub problems: Vec<ClusterProblem>,
    /// The release whose rules the view's configs (and the commands using it) apply, and why.
    pub kafka_version: AppliedVersion,
    /// What a facts snapshot carries of what is read after the load (`None`: the files are).
    pub replays: Option<std::sync::Arc<super::replays::Replays>>,
}

/// One node's log dirs and the replicas present in them.
struct NodePresent {
    node: i32,
    dirs: Vec<LogDirInfo>,
    present: BTreeSet<(String, i32)>,
}

/// With the dirs of more than one node: per node, its log dirs and the replicas present in
/// them; empty with one node.
fn present_per_node(
    info: &[LogDirInfo],
    ids: &[DirTopicId],
    held_dirs: &[(PartitionDirRef, PartitionDirName)],
    image: &MetadataImage,
) -> Vec<NodePresent> {
    let nodes = node_ids(info);
    if nodes.len() < 2 {
        return Vec::new();
    }
    (nodes.into_iter())
        .map(|n| {
            let mine: Vec<LogDirInfo> = (info.iter())
                .filter(|i| i.node_id == Some(n))
                .cloned()
                .collect();
            // The loaded dirs' paths are canonical; the ones given may be relative.
            let paths: Vec<PathBuf> = (mine.iter())
                .map(|i| std::fs::canonicalize(&i.path).unwrap_or_else(|_| i.path.clone()))
                .collect();
            let held: Vec<_> = (held_dirs.iter())
                .filter(|(d, _)| {
                    (mine.iter().zip(&paths)).any(|(i, c)| i.path == d.log_dir || *c == d.log_dir)
                })
                .cloned()
                .collect();
            let present = present_replicas(ids, &held, image);
            NodePresent {
                node: n,
                dirs: mine,
                present,
            }
        })
        .collect()
}

/// The distinct node ids of the log dirs' meta.properties, ascending.
fn node_ids(info: &[LogDirInfo]) -> BTreeSet<i32> {
    info.iter().filter_map(|i| i.node_id).collect()
}

/// With the dirs of more than one node: the `__cluster_metadata-0` of each log dir that has
/// one, loaded, and the one that has applied the most records (highest
/// [`MetadataImage::complete_up_to`]; the first given on a tie). `None` with one node or fewer
/// than two copies (the single-broker search applies).
fn several_nodes_metadata(
    info: &[LogDirInfo],
    read_mode: ReadMode,
) -> Option<(PathBuf, MetadataImage)> {
    if node_ids(info).len() < 2 {
        return None;
    }
    let name = format!("{METADATA_TOPIC}-0");
    let copies: Vec<PathBuf> = (info.iter())
        .map(|i| i.path.join(&name))
        .filter(|p| p.is_dir())
        .collect();
    if copies.len() < 2 {
        return None;
    }
    let mut best: Option<(PathBuf, MetadataImage)> = None;
    for dir in copies {
        let image = load_metadata_image(&dir, read_mode);
        let newer = best
            .as_ref()
            .is_none_or(|(_, b)| image.complete_up_to > b.complete_up_to);
        if newer {
            best = Some((dir, image));
        }
    }
    best
}

/// `metadata.log.dir` of `server.properties`, if set.
fn static_metadata_log_dir(sources: &ConfigSources) -> Option<&str> {
    let props = sources.static_props.as_ref()?;
    props.get("metadata.log.dir").map(String::as_str)
}

/// The `__cluster_metadata-0` dir: under `metadata.log.dir` if set, else in one of the log dirs.
/// A candidate that cannot be looked up (other than absent) is a problem, not taken for absent:
/// a view built without it would show defaults in place of the topic overrides.
fn find_metadata_dir(
    log_dirs: &[PathBuf],
    metadata_log_dir: Option<&str>,
    problems: &mut Vec<(PathBuf, FileRole, FileProblem)>,
) -> Option<PathBuf> {
    let name = format!("{METADATA_TOPIC}-0");
    let candidates = metadata_log_dir
        .map(PathBuf::from)
        .into_iter()
        .chain(log_dirs.iter().cloned());
    for parent in candidates {
        let path = parent.join(&name);
        match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() => return Some(path),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => problems.push((parent, FileRole::MetadataLog, FileProblem::io(&path, &e))),
        }
    }
    None
}

/// Each log dir's parsed `meta.properties` (`None`: missing or unusable); unreadable or corrupt
/// files go to `problems` (a missing one is not a problem here).
fn read_meta(
    log_dirs: &[PathBuf],
    problems: &mut Vec<(PathBuf, FileRole, FileProblem)>,
) -> Vec<(PathBuf, Option<MetaProperties>)> {
    let mut out = Vec::new();
    for d in log_dirs {
        let path = d.join("meta.properties");
        let problem = match read_small_file(&path, 1 << 20) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                out.push((d.clone(), None));
                continue;
            }
            Err(e) => FileProblem::io(&path, &e),
            Ok(bytes) => match parse_meta_properties(&bytes) {
                Ok(m) => {
                    out.push((d.clone(), Some(m)));
                    continue;
                }
                Err(e) => FileProblem::format(&path, e),
            },
        };
        out.push((d.clone(), None));
        problems.push((d.clone(), FileRole::MetaProperties, problem));
    }
    out
}

/// Each log dir's mode and ids. The metadata log found counts for every dir of its cluster (a
/// KRaft broker keeps one, in `metadata.log.dir`, for all its log dirs).
fn log_dir_info(
    metas: Vec<(PathBuf, Option<MetaProperties>)>,
    metadata_dir: Option<&Path>,
) -> Vec<LogDirInfo> {
    let holder_cluster = metadata_dir.and_then(|m| {
        let holder = m.parent()?;
        metas
            .iter()
            .find(|(d, _)| d == holder)
            .and_then(|(_, meta)| meta.as_ref()?.cluster_id.clone())
    });
    metas
        .into_iter()
        .map(|(path, meta)| {
            let cluster_id = meta.as_ref().and_then(|m| m.cluster_id.clone());
            let metadata_log = metadata_dir.is_some()
                && !different_clusters(cluster_id.as_deref(), holder_cluster.as_deref());
            LogDirInfo {
                mode: mode_evidence(meta.as_ref(), metadata_log),
                node_id: meta.as_ref().and_then(|m| m.node_id),
                directory_id: meta.as_ref().and_then(|m| m.directory_id),
                cluster_id,
                path,
            }
        })
        .collect()
}

/// KRaft if any dir is, else ZooKeeper if any dir is, else unknown.
fn overall_mode(info: &[LogDirInfo]) -> LogDirMode {
    let has = |m| info.iter().any(|i| i.mode.mode == m);
    if has(LogDirMode::KRaft) {
        LogDirMode::KRaft
    } else if has(LogDirMode::ZooKeeper) {
        LogDirMode::ZooKeeper
    } else {
        LogDirMode::Unknown
    }
}

/// One problem listing every dir when the dirs carry more than one `cluster.id`.
fn cluster_id_mismatch(info: &[LogDirInfo]) -> Option<ClusterProblem> {
    let mut ids: Vec<&str> = info
        .iter()
        .filter_map(|i| i.cluster_id.as_deref())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    (ids.len() > 1).then(|| ClusterProblem::ClusterIdMismatch {
        dirs: info
            .iter()
            .map(|i| (i.path.clone(), i.cluster_id.clone()))
            .collect(),
    })
}

/// Partitions of the image whose replicas include `node` but that have no live (or `-future`)
/// partition dir in the log dirs read, one problem per topic. `present` holds (topic,
/// partition) of every such dir on disk. A replica the image places in a directory id that none
/// of the log dirs carries is in a log dir not given, and not counted.
fn missing_replicas(
    image: &MetadataImage,
    node: i32,
    present: &BTreeSet<(String, i32)>,
    info: &[LogDirInfo],
) -> Vec<ClusterProblem> {
    let dir_ids: Vec<Uuid> = info.iter().filter_map(|i| i.directory_id).collect();
    let mut out = Vec::new();
    for (topic, t) in &image.topics {
        let mut assigned = 0;
        let mut missing = Vec::new();
        for (&n, p) in &t.partitions {
            if !p.replicas.contains(&node) {
                continue;
            }
            let elsewhere = p
                .replica_directory(node)
                .is_some_and(|d| !is_reserved_directory(&d) && !dir_ids.contains(&d));
            if elsewhere {
                continue;
            }
            assigned += 1;
            if !present.contains(&(topic.clone(), n)) {
                missing.push(n);
            }
        }
        if !missing.is_empty() {
            out.push(ClusterProblem::MissingReplicas {
                topic: topic.clone(),
                node_id: node,
                partitions: missing,
                assigned,
            });
        }
    }
    out
}

/// A partition dir with its parsed name and the topic id of its `partition.metadata`.
struct DirTopicId {
    dir: PartitionDirRef,
    name: PartitionDirName,
    topic_id: Uuid,
}

/// Partition dirs of every log dir with their topic id (`partition.metadata`), and every live
/// and `-future` dir (the replicas the broker holds) with its parsed name.
fn partition_ids(
    log_dirs: &[PathBuf],
    problems: &mut Vec<ClusterProblem>,
) -> (Vec<DirTopicId>, Vec<(PartitionDirRef, PartitionDirName)>) {
    let mut out = Vec::new();
    let mut held_dirs = Vec::new();
    for log_dir in log_dirs {
        let file_problem = |partition: Option<String>, role, problem| ClusterProblem::File {
            log_dir: log_dir.clone(),
            partition,
            role,
            problem,
        };
        // Root entries only: of each partition dir only `partition.metadata` is read.
        let listing = match list_partition_dirs(log_dir) {
            Ok(l) => l,
            Err(e) => {
                let p = FileProblem::io(log_dir, &e);
                problems.push(file_problem(None, FileRole::DirEntry, p));
                continue;
            }
        };
        dir_entry_problems(log_dir, &listing.io_problems, problems);
        let dirs: Vec<(PartitionDirRef, &PartitionDirName, PathBuf)> = (listing.partitions)
            .iter()
            .filter_map(|p| {
                let name = p.name.as_ref().filter(|n| !n.is_metadata_log())?;
                let dir_name = p
                    .listing
                    .path
                    .file_name()
                    .map(super::names::name_text)
                    .unwrap_or_default();
                let dir = PartitionDirRef {
                    log_dir: log_dir.clone(),
                    dir_name,
                };
                Some((dir, name, p.listing.path.join("partition.metadata")))
            })
            .collect();
        // One small read per partition dir: in parallel, collected in listing order.
        let topic_ids: Vec<Option<Result<Uuid, FileProblem>>> = dirs
            .par_iter()
            .with_max_len(PARTITIONS_PER_TASK)
            .map(|(_, _, meta)| match read_small_file(meta, 1 << 20) {
                // Absent, or not a regular file (a dir, a FIFO: the broker does not read it
                // either; inspect names it): no topic id.
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::NotFound | io::ErrorKind::InvalidInput
                    ) =>
                {
                    None
                }
                Err(e) => Some(Err(FileProblem::io(meta, &e))),
                Ok(b) => Some(
                    parse_partition_metadata(&b)
                        .map(|pm| pm.topic_id)
                        .map_err(|e| FileProblem::format(meta, e)),
                ),
            })
            .collect();
        for ((dir, name, _), topic_id) in dirs.into_iter().zip(topic_ids) {
            record_partition_dir(dir, name, topic_id, &mut out, &mut held_dirs, problems);
        }
    }
    (out, held_dirs)
}

/// The problems of a log dir's root entries (a partition dir that cannot be listed, ...).
fn dir_entry_problems(log_dir: &Path, listed: &[IoProblem], problems: &mut Vec<ClusterProblem>) {
    problems.extend(listed.iter().map(|p| ClusterProblem::File {
        log_dir: log_dir.to_path_buf(),
        partition: None,
        role: FileRole::DirEntry,
        problem: FileProblem::Io {
            path: p.path.clone(),
            message: p.message.clone(),
        },
    }));
}

/// What [`partition_ids`] and [`loaded_partition_ids`] keep of one partition dir: the dir if
/// the broker holds it (live or `-future`), and its topic id, or the problem reading it
/// (`None`: no `partition.metadata` to read).
fn record_partition_dir(
    dir: PartitionDirRef,
    name: &PartitionDirName,
    topic_id: Option<Result<Uuid, FileProblem>>,
    out: &mut Vec<DirTopicId>,
    held_dirs: &mut Vec<(PartitionDirRef, PartitionDirName)>,
    problems: &mut Vec<ClusterProblem>,
) {
    if matches!(
        name.state,
        PartitionDirState::Live | PartitionDirState::Future(_)
    ) {
        held_dirs.push((dir.clone(), name.clone()));
    }
    match topic_id {
        None => {}
        Some(Ok(topic_id)) => out.push(DirTopicId {
            dir,
            name: name.clone(),
            topic_id,
        }),
        Some(Err(problem)) => problems.push(ClusterProblem::File {
            log_dir: dir.log_dir,
            partition: Some(dir.dir_name),
            role: FileRole::PartitionMetadata,
            problem,
        }),
    }
}

/// [`partition_ids`] of log dirs already loaded: the same dirs, ids and problems, from the
/// loaded partitions (their listing and `partition.metadata`) instead of a second listing.
fn loaded_partition_ids(
    dirs: &[LogDir],
    problems: &mut Vec<ClusterProblem>,
) -> (Vec<DirTopicId>, Vec<(PartitionDirRef, PartitionDirName)>) {
    let mut out = Vec::new();
    let mut held_dirs = Vec::new();
    for d in dirs {
        dir_entry_problems(&d.path, &d.listing.io_problems, problems);
        for p in &d.partitions {
            let Some(name) = p.name.as_ref().filter(|n| !n.is_metadata_log()) else {
                continue;
            };
            let dir = PartitionDirRef {
                log_dir: d.path.clone(),
                dir_name: p.dir_name.clone(),
            };
            let topic_id = (p.metadata.as_ref())
                .map(|m| m.as_ref().map(|pm| pm.topic_id).map_err(Clone::clone));
            record_partition_dir(dir, name, topic_id, &mut out, &mut held_dirs, problems);
        }
    }
    (out, held_dirs)
}

/// Partition dirs mapped to topics by topic id (names of -delete/-stray dirs may be truncated;
/// the id is what the broker trusts): dir → topic, and topic → its dirs in the order given.
/// Live dirs whose name and id disagree, or whose id is unknown in a dir of the metadata log's
/// cluster (`same_cluster_dirs`), are problems.
fn join_by_topic_id(
    ids: Vec<DirTopicId>,
    image: &MetadataImage,
    same_cluster_dirs: &[&Path],
    problems: &mut Vec<ClusterProblem>,
) -> (
    BTreeMap<PartitionDirRef, String>,
    BTreeMap<String, Vec<PartitionDirRef>>,
) {
    let mut partition_topics = BTreeMap::new();
    let mut dirs_by_topic: BTreeMap<String, Vec<PartitionDirRef>> = BTreeMap::new();
    for DirTopicId {
        dir,
        name,
        topic_id,
    } in ids
    {
        let live = name.state == PartitionDirState::Live;
        match image.topic_by_id(&topic_id) {
            Some((topic, _)) => {
                if live && name.topic != topic {
                    problems.push(ClusterProblem::TopicIdMismatch {
                        log_dir: dir.log_dir.clone(),
                        dir_name: dir.dir_name.clone(),
                        dir_topic: name.topic,
                        id_topic: topic.to_string(),
                    });
                }
                partition_topics.insert(dir.clone(), topic.to_string());
                dirs_by_topic
                    .entry(topic.to_string())
                    .or_default()
                    .push(dir);
            }
            None if live && same_cluster_dirs.contains(&dir.log_dir.as_path()) => {
                problems.push(ClusterProblem::UnknownTopicId {
                    log_dir: dir.log_dir,
                    dir_name: dir.dir_name,
                    topic_id,
                })
            }
            None => {}
        }
    }
    (partition_topics, dirs_by_topic)
}

/// `server.properties` parsed into config sources, and the log dirs of `inputs` (named, else
/// that file's `log.dirs`), each checked to be listable.
fn static_sources(inputs: &ClusterInputs) -> Result<(ConfigSources, Vec<PathBuf>), ClusterError> {
    let static_props = match &inputs.server_properties {
        Some(f) => Some(
            parse_server_properties(&f.read(16 << 20)?).map_err(|source| ClusterError::Parse {
                name: f.name(),
                source,
            })?,
        ),
        None => None,
    };
    let sources = ConfigSources {
        static_props,
        ..Default::default()
    };
    let mut log_dirs = inputs.log_dirs.clone();
    if log_dirs.is_empty() {
        let has_dirs =
            |p: &BTreeMap<String, String>| p.contains_key("log.dirs") || p.contains_key("log.dir");
        if !sources.static_props.as_ref().is_some_and(has_dirs) {
            return Err(ClusterError::NoLogDirs);
        }
        log_dirs = resolve_broker(&sources)
            .log_dirs()
            .into_iter()
            .map(PathBuf::from)
            .collect();
    }
    // A snapshot's dirs are not on this host: what they held comes with the snapshot.
    for d in log_dirs.iter().filter(|_| inputs.facts.is_none()) {
        std::fs::read_dir(d).map_err(|source| ClusterError::LogDir {
            path: d.clone(),
            source,
        })?;
    }
    Ok((sources, log_dirs))
}

/// The levels no topic's values could be read from: topic overrides and dynamic broker configs
/// without a metadata log replayed whole (unless a describe file gives the broker levels),
/// `server.properties` when not given (nor its values in a describe file).
fn unread_sources(
    sources: &ConfigSources,
    metadata_log: bool,
    mode: LogDirMode,
    image: &MetadataImage,
) -> Vec<UnreadSource> {
    let mut unread = Vec::new();
    let metadata_why = if !metadata_log {
        Some(if mode == LogDirMode::ZooKeeper {
            WhyUnread::ZooKeeperMode
        } else {
            WhyUnread::MetadataLogMissing
        })
    } else if !image.problems.is_empty() {
        Some(WhyUnread::MetadataLogIncomplete)
    } else {
        None
    };
    if let Some(why) = metadata_why {
        unread.push(UnreadSource {
            level: UnreadLevel::TopicOverrides,
            why,
        });
        let described_brokers = sources
            .describe_file
            .as_ref()
            .is_some_and(|f| f.has_broker_entities());
        if !described_brokers {
            unread.push(UnreadSource {
                level: UnreadLevel::DynamicBrokerConfigs,
                why,
            });
        }
    }
    if sources.static_props.is_none() {
        unread.push(UnreadSource {
            level: UnreadLevel::ServerProperties,
            why: WhyUnread::NotGiven,
        });
    }
    unread
}

/// The unread levels that concern `topic`: the view-wide ones (topic overrides only when no
/// describe-file entry gives them), and its overrides when a metadata image read whole does not
/// name it.
fn topic_unread(sources: &ConfigSources, image: &MetadataImage, topic: &str) -> Vec<UnreadSource> {
    let overrides_unread = sources.topic_overrides_unread(topic);
    let mut out: Vec<UnreadSource> = (sources.unread.iter())
        .filter(|u| u.level != UnreadLevel::TopicOverrides || overrides_unread)
        .copied()
        .collect();
    let view_wide = sources
        .unread
        .iter()
        .any(|u| u.level == UnreadLevel::TopicOverrides);
    let described = sources
        .describe_file
        .as_ref()
        .is_some_and(|f| f.topic(topic).is_some());
    if !view_wide && !described && !image.topics.contains_key(topic) {
        out.insert(
            0,
            UnreadSource {
                level: UnreadLevel::TopicOverrides,
                why: WhyUnread::NotInMetadataImage,
            },
        );
    }
    out
}

/// The metadata image from `metadata_dir`, its problems added to `problems`; without a metadata
/// dir an empty image, and why there is none.
fn load_image(
    image: Option<MetadataImage>,
    mode: LogDirMode,
    problems: &mut Vec<ClusterProblem>,
) -> MetadataImage {
    let image = match image {
        Some(image) => image,
        None => {
            problems.push(if mode == LogDirMode::ZooKeeper {
                ClusterProblem::ZooKeeperMode
            } else {
                ClusterProblem::MetadataMissing
            });
            MetadataImage::default()
        }
    };
    problems.extend(image.problems.iter().cloned().map(ClusterProblem::Metadata));
    image
}

/// Layer onto the static `sources` what is read at run time: the image's dynamic configs, the
/// `--config` overrides and the describe file.
fn add_dynamic_sources(
    sources: &mut ConfigSources,
    inputs: &ClusterInputs,
    image: &MetadataImage,
    broker_id: Option<i32>,
) -> Result<(), ClusterError> {
    let from_image = from_metadata_maps(&image.topic_configs, &image.broker_configs, broker_id);
    sources.topic_overrides = from_image.topic_overrides;
    sources.dynamic_cluster_default = from_image.dynamic_cluster_default;
    sources.dynamic_broker = from_image.dynamic_broker;
    sources
        .add_cli_overrides(inputs.overrides.iter().map(String::as_str))
        .map_err(ClusterError::Override)?;
    if let Some(f) = &inputs.describe_file {
        let bytes = f.read(64 << 20)?;
        let parsed = parse_describe_file(&String::from_utf8_lossy(&bytes)).map_err(|source| {
            ClusterError::Parse {
                name: f.name(),
                source,
            }
        })?;
        sources.describe_file = Some(parsed);
        sources.merge_describe_broker_layers(broker_id.map(|id| id.to_string()).as_deref());
    }
    Ok(())
}

/// The replicas on disk, by the topic their id names (else their dir name); ids looked up by
/// dir in a map, not by a scan per dir (quadratic in partitions).
fn present_replicas(
    ids: &[DirTopicId],
    held_dirs: &[(PartitionDirRef, PartitionDirName)],
    image: &MetadataImage,
) -> BTreeSet<(String, i32)> {
    let id_of: HashMap<&PartitionDirRef, &Uuid> =
        ids.iter().map(|d| (&d.dir, &d.topic_id)).collect();
    held_dirs
        .iter()
        .map(|(dir, name)| {
            let by_id = id_of.get(dir).and_then(|id| image.topic_by_id(id));
            let topic = by_id.map_or(name.topic.as_str(), |(t, _)| t);
            (topic.to_string(), name.partition)
        })
        .collect()
}

/// Every topic some input knows: the image's, those with a replica here, the describe file's.
fn known_topics(
    image: &MetadataImage,
    present: &BTreeSet<(String, i32)>,
    sources: &ConfigSources,
) -> BTreeSet<String> {
    (image.topics.keys().cloned())
        .chain(present.iter().map(|(t, _)| t.clone()))
        .chain(
            sources
                .describe_file
                .iter()
                .flat_map(|f| f.topics())
                .map(str::to_string),
        )
        .collect()
}

/// Add each live partition dir to its dir name's topic in `dirs_by_topic`; the topics named,
/// once per dir.
fn live_dirs_by_name(
    held_dirs: Vec<(PartitionDirRef, PartitionDirName)>,
    dirs_by_topic: &mut BTreeMap<String, Vec<PartitionDirRef>>,
) -> Vec<String> {
    let mut dir_topics = Vec::new();
    for (dir, name) in held_dirs {
        if name.state == PartitionDirState::Live {
            dir_topics.push(name.topic.clone());
            dirs_by_topic.entry(name.topic).or_default().push(dir);
        }
    }
    dir_topics
}

/// Whether `problem` concerns the topics asked for (a missing replica of another topic is not
/// reported when topics are named).
fn asked_about(inputs: &ClusterInputs, problem: &ClusterProblem) -> bool {
    match problem {
        ClusterProblem::MissingReplicas { topic, .. } => {
            inputs.topics.is_empty() || inputs.topics.contains(topic)
        }
        _ => true,
    }
}

/// The topics the view covers, sorted: those asked for, else every topic the image, the
/// describe file or (without a metadata log) the dir names know.
fn topic_names(
    inputs: &ClusterInputs,
    sources: &ConfigSources,
    image: &MetadataImage,
    dir_topics: Vec<String>,
) -> Vec<String> {
    let mut names: Vec<String> = if inputs.topics.is_empty() {
        let described = sources.describe_file.iter().flat_map(|f| f.topics());
        image
            .topics
            .keys()
            .cloned()
            .chain(described.map(str::to_string))
            .chain(dir_topics)
            .collect()
    } else {
        inputs.topics.clone()
    };
    names.sort();
    names.dedup();
    names
}

/// Resolve each of `names`' configs and join them with the image and the dirs held; the
/// configs' problems go to `problems`.
fn topic_views(
    names: Vec<String>,
    sources: &ConfigSources,
    image: &MetadataImage,
    mut dirs_by_topic: BTreeMap<String, Vec<PartitionDirRef>>,
    problems: &mut Vec<ClusterProblem>,
) -> BTreeMap<String, TopicView> {
    let mut topics = BTreeMap::new();
    for name in names {
        let resolved = resolve_topic(sources, &name);
        problems.extend(resolved.problems.iter().map(|e| ClusterProblem::Config {
            topic: Some(name.clone()),
            error: e.clone(),
        }));
        let image_topic = image.topics.get(&name);
        let assumed = assumed_values(&resolved, &topic_unread(sources, image, &name));
        let view = TopicView {
            assumed,
            topic_id: image_topic.map(|t| t.topic_id),
            partition_count: image_topic.map(|t| t.partitions.len()),
            dirs: dirs_by_topic.remove(&name).unwrap_or_default(),
            log_config: LogConfig::from_effective(&resolved),
            resolved,
            name: name.clone(),
        };
        topics.insert(name, view);
    }
    topics
}

/// Where the view finds the partition dirs of its log dirs.
enum PartitionSource<'a> {
    /// Listed and their `partition.metadata` read here.
    Listed,
    /// Taken from log dirs already loaded.
    Loaded(&'a [LogDir]),
}

impl ClusterView {
    /// Where the facts read after the load come from: the files (read as `mode`), or the
    /// facts snapshot the view was built from.
    pub fn records(&self, mode: ReadMode) -> super::replays::Records<'_> {
        super::replays::Records::of(self.replays.as_deref(), mode)
    }

    /// Read everything `inputs` names and join it. Fails only when an input named explicitly
    /// cannot be used (no log dirs, an unlistable log dir, an unreadable or malformed
    /// `server.properties`, `--config` or describe file; a `--config` Kafka would refuse or for
    /// a topic none of the inputs knows, see [`validate_overrides`]); everything else is a
    /// problem.
    pub fn build(inputs: &ClusterInputs) -> Result<ClusterView, ClusterError> {
        ClusterView::build_with(inputs, PartitionSource::Listed)
    }

    /// [`Self::build`] over log dirs already loaded (their partition dirs and
    /// `partition.metadata` are taken from `dirs` instead of being listed and read again):
    /// `inputs.log_dirs` must be [`Self::resolve_log_dirs`]'s, and `dirs` what loading them gave.
    pub fn build_over(
        inputs: &ClusterInputs,
        dirs: &[LogDir],
    ) -> Result<ClusterView, ClusterError> {
        ClusterView::build_with(inputs, PartitionSource::Loaded(dirs))
    }

    /// The log dirs a view of `inputs` covers: those named, else `log.dirs` (or `log.dir`) of
    /// `server.properties`; each must be listable. Fails as [`Self::build`] does.
    pub fn resolve_log_dirs(inputs: &ClusterInputs) -> Result<Vec<PathBuf>, ClusterError> {
        Ok(static_sources(inputs)?.1)
    }

    fn build_with(
        inputs: &ClusterInputs,
        partitions: PartitionSource<'_>,
    ) -> Result<ClusterView, ClusterError> {
        let mut problems = Vec::new();
        let (mut sources, log_dirs) = static_sources(inputs)?;
        let read;
        let facts = match &inputs.facts {
            Some(facts) => facts.as_ref(),
            None => {
                read = DirFacts::read(
                    &log_dirs,
                    static_metadata_log_dir(&sources),
                    inputs.read_mode,
                );
                &read
            }
        };
        problems.extend(facts.problems.iter().map(|(log_dir, role, problem)| {
            ClusterProblem::File {
                log_dir: log_dir.clone(),
                partition: None,
                role: *role,
                problem: problem.clone(),
            }
        }));
        let metadata_dir = facts.metadata_dir.clone();
        let log_dir_info = log_dir_info(facts.metas.clone(), metadata_dir.as_deref());
        let mode = overall_mode(&log_dir_info);
        problems.extend(cluster_id_mismatch(&log_dir_info));
        let disk_node_id = log_dir_info.iter().find_map(|i| i.node_id);
        let broker_id = inputs.broker_id.or(disk_node_id);

        let image = load_image(facts.image.clone(), mode, &mut problems);
        add_dynamic_sources(&mut sources, inputs, &image, broker_id)?;
        sources.unread = unread_sources(&sources, metadata_dir.is_some(), mode, &image);

        let (ids, held_dirs) = match partitions {
            PartitionSource::Listed => partition_ids(&log_dirs, &mut problems),
            PartitionSource::Loaded(dirs) => loaded_partition_ids(dirs, &mut problems),
        };
        let kafka_version = choose_version(
            inputs.kafka_version,
            &VersionFacts {
                mode: Some(mode),
                mode_evidence: (log_dir_info.first())
                    .map(|i| i.mode.describe())
                    .unwrap_or_default(),
                features: (image.features.iter())
                    .map(|(k, v)| (k.clone(), *v))
                    .collect(),
                share_group_state: (held_dirs.iter())
                    .any(|(_, name)| name.topic == SHARE_GROUP_STATE_TOPIC),
            },
        );
        sources.kafka_version = kafka_version.version;
        sources.describe_file_release = inputs.describe_file_release;
        let present = present_replicas(&ids, &held_dirs, &image);
        let per_node_present = present_per_node(&log_dir_info, &ids, &held_dirs, &image);
        // A `--config` names a topic that exists, and leaves configs Kafka would accept.
        validate_overrides(&sources, &known_topics(&image, &present, &sources))
            .map_err(ClusterError::Override)?;
        // Dirs whose ids the image should know: those of the metadata log's cluster.
        let same_cluster_dirs: Vec<&Path> = (log_dir_info.iter())
            .filter(|i| i.mode.metadata_log)
            .map(|i| i.path.as_path())
            .collect();
        let (partition_topics, mut dirs_by_topic) =
            join_by_topic_id(ids, &image, &same_cluster_dirs, &mut problems);
        // Without a metadata log (ZooKeeper mode) the dir names are the only topic list.
        let dir_topics = match metadata_dir {
            None => live_dirs_by_name(held_dirs, &mut dirs_by_topic),
            Some(_) => Vec::new(),
        };
        if let (Some(_), Some(node)) = (&metadata_dir, broker_id) {
            if !per_node_present.is_empty() {
                // Several brokers: each node's replicas are looked for in its own dirs.
                for n in &per_node_present {
                    let missing = missing_replicas(&image, n.node, &n.present, &n.dirs);
                    problems.extend(missing.into_iter().filter(|p| asked_about(inputs, p)));
                }
            } else {
                let missing = missing_replicas(&image, node, &present, &log_dir_info);
                problems.extend(missing.into_iter().filter(|p| asked_about(inputs, p)));
            }
        }
        let names = topic_names(inputs, &sources, &image, dir_topics);
        if metadata_dir.is_some() {
            let unknown = inputs
                .topics
                .iter()
                .filter(|t| !image.topics.contains_key(*t));
            problems.extend(unknown.map(|t| ClusterProblem::UnknownTopic { topic: t.clone() }));
        }
        let topics = topic_views(names, &sources, &image, dirs_by_topic, &mut problems);
        let broker = resolve_broker(&sources);
        problems.extend(broker.problems.iter().map(|e| ClusterProblem::Config {
            topic: None,
            error: e.clone(),
        }));
        Ok(ClusterView {
            log_dirs,
            log_dir_info,
            mode,
            broker_id,
            metadata: MetadataSummary::of(metadata_dir, &image),
            image,
            broker_config: BrokerCleanupConfig::from_effective(&broker),
            broker,
            sources,
            topics,
            partition_topics,
            problems,
            kafka_version,
            replays: inputs.replays.clone(),
        })
    }

    /// The node ids of the log dirs read, ascending: more than one when several brokers' dirs
    /// are read together.
    pub fn node_ids(&self) -> BTreeSet<i32> {
        node_ids(&self.log_dir_info)
    }

    /// The node whose loaded log dir `dir` is (its meta.properties), else the view's broker.
    pub fn node_of(&self, dir: &LogDir) -> Option<i32> {
        (dir.meta.as_ref())
            .and_then(|m| m.as_ref().ok())
            .and_then(|m| m.node_id)
            .or(self.broker_id)
    }

    /// The topic partition dir `dir_name` of `log_dir` belongs to: by topic id when the image
    /// knows it, else `name_topic` (the dir name's).
    pub fn topic_of_dir(&self, log_dir: &Path, dir_name: &str, name_topic: &str) -> String {
        let key = PartitionDirRef {
            log_dir: log_dir.to_path_buf(),
            dir_name: dir_name.to_string(),
        };
        (self.partition_topics.get(&key).cloned()).unwrap_or_else(|| name_topic.to_string())
    }

    /// What the verdicts on `topics` (all when empty) assume: the levels not read and each
    /// topic's deciding values they could override.
    pub fn assumptions(&self, topics: &[String]) -> Assumptions {
        let mut unread = self.sources.unread.clone();
        let mut assumed = Vec::new();
        for t in self.topics.values() {
            if !topics.is_empty() && !topics.contains(&t.name) {
                continue;
            }
            for u in t.assumed.iter().flat_map(|a| &a.unread) {
                if !unread.contains(u) {
                    unread.push(*u);
                }
            }
            if !t.assumed.is_empty() {
                assumed.push((t.name.clone(), t.assumed.clone()));
            }
        }
        Assumptions {
            unread,
            topics: assumed,
            kafka_version: self.kafka_version.clone(),
        }
    }

    /// Every input the view could not read, as (path, OS error): a log dir entry,
    /// `meta.properties`, `partition.metadata`, the metadata log's dir, segments or snapshots.
    /// A view with any is incomplete, whatever it resolved: its configs may be defaults in place
    /// of what the broker uses.
    pub fn unreadable(&self) -> Vec<(&Path, &str)> {
        self.problems
            .iter()
            .filter_map(|p| match p {
                ClusterProblem::File {
                    problem: FileProblem::Io { path, message },
                    ..
                } => Some((path.as_path(), message.as_str())),
                ClusterProblem::Metadata(m) if m.unreadable => {
                    Some((m.path.as_path(), m.message.as_str()))
                }
                _ => None,
            })
            .collect()
    }

    /// The resolved topic whose id the partition dir `dir_name` in `log_dir` carries.
    pub fn config_for_partition(&self, log_dir: &Path, dir_name: &str) -> Option<&TopicView> {
        let key = PartitionDirRef {
            log_dir: log_dir.to_path_buf(),
            dir_name: dir_name.to_string(),
        };
        self.topics.get(self.partition_topics.get(&key)?)
    }

    /// The typed config of `topic`: its resolved view, or, for a topic not resolved (not in the
    /// metadata image, e.g. a ZooKeeper-mode dir), the broker-level values (plus `--config` and
    /// describe-file entries for it).
    pub fn log_config(&self, topic: &str) -> LogConfig {
        match self.topics.get(topic) {
            Some(t) => t.log_config.clone(),
            None => LogConfig::from_effective(&resolve_topic(&self.sources, topic)),
        }
    }

    /// The typed config of a partition dir: by its topic id when the image knows it, else by the
    /// topic its name says; `None` when the name is not a partition dir name.
    pub fn partition_log_config(&self, log_dir: &Path, dir_name: &str) -> Option<LogConfig> {
        if let Some(t) = self.config_for_partition(log_dir, dir_name) {
            return Some(t.log_config.clone());
        }
        let key = PartitionDirRef {
            log_dir: log_dir.to_path_buf(),
            dir_name: dir_name.to_string(),
        };
        let topic = match self.partition_topics.get(&key) {
            Some(t) => t.clone(),
            None => parse_partition_dir_name(dir_name)?.topic,
        };
        Some(self.log_config(&topic))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{CleanupPolicy, ConfigSource, Limit};
    use crate::formats::meta_properties::MetaPropertiesVersion;

    fn copy_of_kraft_fixture() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/kraft-metadata/logs-0");
        let dst = tmp.path().join("logs-0");
        let status = std::process::Command::new("cp")
            .arg("-r")
            .arg(&src)
            .arg(&dst)
            .status()
            .unwrap();
        assert!(status.success());
        (tmp, dst)
    }

    fn inputs(log_dir: &Path) -> ClusterInputs {
        ClusterInputs {
            log_dirs: vec![log_dir.to_path_buf()],
            ..Default::default()
        }
    }

    #[test]
    fn joins_dirs_image_and_config() {
        let (_tmp, dir) = copy_of_kraft_fixture();
        let v = ClusterView::build(&inputs(&dir)).unwrap();
        assert_eq!(v.broker_id, Some(1));
        assert!(v.metadata.dir.is_some());
        assert_eq!(v.metadata.topic_count, v.image.topics.len());
        assert_eq!(
            v.topics.keys().collect::<Vec<_>>(),
            v.image.topics.keys().collect::<Vec<_>>()
        );
        let alpha = v.config_for_partition(&dir, "kt-alpha-1").unwrap();
        assert_eq!(alpha.name, "kt-alpha");
        assert_eq!(alpha.dirs.len(), 3);
        assert_eq!(alpha.log_config.retention_ms, Limit::Max(7_200_000));
        assert_eq!(
            alpha.resolved.get("retention.ms").map(|r| r.source),
            Some(ConfigSource::DynamicTopicConfig)
        );
        let beta = v.config_for_partition(&dir, "kt-beta-0").unwrap();
        assert_eq!(
            beta.log_config.cleanup_policy,
            CleanupPolicy::COMPACT_DELETE
        );
        assert_eq!(v.log_config("kt-beta"), beta.log_config);
        // A topic the image does not know (a ZooKeeper-mode dir) gets the broker-level values.
        let zk = v.log_config("zk-topic");
        assert_eq!(zk.cleanup_policy, CleanupPolicy::DELETE);
        assert_eq!(v.partition_log_config(&dir, "zk-topic-0"), Some(zk.clone()));
        assert_eq!(v.partition_log_config(&dir, "not a partition"), None);
        assert!(v.config_for_partition(&dir, "zk-topic-0").is_none());
        assert!(
            !v.problems
                .iter()
                .any(|p| matches!(p, ClusterProblem::File { .. })),
            "{:?}",
            v.problems
        );
    }

    #[test]
    fn bad_files_are_problems_not_skipped() {
        let (_tmp, dir) = copy_of_kraft_fixture();
        let pm = dir.join("kt-alpha-0/partition.metadata");
        std::fs::set_permissions(&pm, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
        std::fs::write(&pm, b"version: 0\ntopic_id: nonsense\n").unwrap();
        let mut i = inputs(&dir);
        i.topics = vec!["kt-alpha".into(), "ghost".into()];
        i.broker_id = Some(9);
        i.server_properties = Some(FileInput::Bytes {
            name: "props".into(),
            bytes: b"log.retention.bytes=1000\n".to_vec(),
        });
        let v = ClusterView::build(&i).unwrap();
        assert_eq!(v.broker_id, Some(9));
        assert!(v.problems.iter().any(|p| matches!(p,
            ClusterProblem::File { partition: Some(d), role: FileRole::PartitionMetadata,
                problem: FileProblem::Format { .. }, .. } if d == "kt-alpha-0")));
        assert!(v
            .problems
            .iter()
            .any(|p| matches!(p, ClusterProblem::UnknownTopic { topic } if topic == "ghost")));
        // The corrupt dir is no longer mapped; the others are.
        assert!(v.config_for_partition(&dir, "kt-alpha-0").is_none());
        assert_eq!(v.topics["kt-alpha"].dirs.len(), 2);
        assert_eq!(
            v.topics["ghost"].log_config.retention_bytes,
            Limit::Max(1000)
        );
        assert_eq!(v.topics["ghost"].topic_id, None);
        assert_eq!(v.topics.len(), 2);
    }

    fn write(path: &Path, bytes: &[u8]) {
        std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o644)).ok();
        std::fs::write(path, bytes).unwrap();
    }

    /// The fixture re-labelled as a ZooKeeper-mode dir: v0 meta.properties with broker.id, no
    /// metadata log, no partition.metadata.
    fn zookeeper_copy(dir: &Path) {
        std::fs::remove_dir_all(dir.join("__cluster_metadata-0")).unwrap();
        for e in std::fs::read_dir(dir).unwrap() {
            let pm = e.unwrap().path().join("partition.metadata");
            if pm.exists() {
                std::fs::remove_file(pm).unwrap();
            }
        }
        write(
            &dir.join("meta.properties"),
            b"#\n#Tue Mar 05 10:00:00 UTC 2024\nbroker.id=1\nversion=0\ncluster.id=TG9nQ2xlYW5GaXh0dXJlcw\n",
        );
    }

    #[test]
    fn modes_of_the_log_dirs() {
        let (_tmp, dir) = copy_of_kraft_fixture();
        let v = ClusterView::build(&inputs(&dir)).unwrap();
        assert_eq!(v.mode, LogDirMode::KRaft);
        let info = &v.log_dir_info[0];
        assert_eq!(info.mode.meta_version, Some(MetaPropertiesVersion::V1));
        assert_eq!(info.cluster_id.as_deref(), Some("TG9nQ2xlYW5GaXh0dXJlcw"));
        assert_eq!(info.node_id, Some(1));
        assert!(info.directory_id.is_some() && info.mode.metadata_log);

        zookeeper_copy(&dir);
        let v = ClusterView::build(&inputs(&dir)).unwrap();
        assert_eq!(v.mode, LogDirMode::ZooKeeper);
        assert_eq!(v.broker_id, Some(1));
        assert_eq!(v.problems, vec![ClusterProblem::ZooKeeperMode]);
        // Topics come from the dir names; their dirs are joined by name.
        assert_eq!(
            v.topics.keys().collect::<Vec<_>>(),
            vec!["kt-alpha", "kt-beta"]
        );
        assert_eq!(v.topics["kt-alpha"].dirs.len(), 3);
        assert_eq!(v.topics["kt-alpha"].topic_id, None);
        assert_eq!(
            v.log_config("kt-alpha").cleanup_policy,
            CleanupPolicy::DELETE
        );
    }

    #[test]
    fn dirs_of_different_clusters_are_one_problem() {
        let (_tmp, dir) = copy_of_kraft_fixture();
        let other_tmp = tempfile::tempdir().unwrap();
        let other = other_tmp.path().join("logs-0");
        let status = std::process::Command::new("cp")
            .arg("-r")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/compacted/logs-0"))
            .arg(&other)
            .status()
            .unwrap();
        assert!(status.success());
        let meta = std::fs::read_to_string(other.join("meta.properties")).unwrap();
        write(
            &other.join("meta.properties"),
            meta.replace("TG9nQ2xlYW5GaXh0dXJlcw", "T3RoZXJDbHVzdGVyMDAwMA")
                .as_bytes(),
        );
        let mut i = inputs(&dir);
        i.log_dirs.push(other.clone());
        let v = ClusterView::build(&i).unwrap();
        let mismatches: Vec<_> = v
            .problems
            .iter()
            .filter_map(|p| match p {
                ClusterProblem::ClusterIdMismatch { dirs } => Some(dirs),
                _ => None,
            })
            .collect();
        assert_eq!(
            mismatches,
            vec![&vec![
                (dir.clone(), Some("TG9nQ2xlYW5GaXh0dXJlcw".to_string())),
                (other.clone(), Some("T3RoZXJDbHVzdGVyMDAwMA".to_string())),
            ]]
        );
        // The metadata log found is the first cluster's: the other dir's v1 file still says KRaft,
        // but the metadata log is not counted for it.
        assert!(v.log_dir_info[0].mode.metadata_log);
        assert!(!v.log_dir_info[1].mode.metadata_log);
        assert_eq!(v.log_dir_info[1].mode.mode, LogDirMode::KRaft);
    }

    #[test]
    fn partitions_assigned_here_without_a_dir() {
        let (_tmp, dir) = copy_of_kraft_fixture();
        let v = ClusterView::build(&inputs(&dir)).unwrap();
        assert!(!v
            .problems
            .iter()
            .any(|p| matches!(p, ClusterProblem::MissingReplicas { .. })));
        std::fs::remove_dir_all(dir.join("kt-alpha-1")).unwrap();
        // A dir without partition.metadata still holds its replica (its own finding is inspect's).
        std::fs::remove_file(dir.join("kt-alpha-2/partition.metadata")).unwrap();
        let v = ClusterView::build(&inputs(&dir)).unwrap();
        let missing: Vec<_> = v
            .problems
            .iter()
            .filter(|p| matches!(p, ClusterProblem::MissingReplicas { .. }))
            .collect();
        assert_eq!(
            missing,
            vec![&ClusterProblem::MissingReplicas {
                topic: "kt-alpha".into(),
                node_id: 1,
                partitions: vec![1],
                assigned: 3,
            }]
        );
        // Another broker holds none of them.
        let mut i = inputs(&dir);
        i.broker_id = Some(2);
        let v = ClusterView::build(&i).unwrap();
        assert!(!v
            .problems
            .iter()
            .any(|p| matches!(p, ClusterProblem::MissingReplicas { .. })));
        // --topic limits the check to the topics asked for.
        let mut i = inputs(&dir);
        i.topics = vec!["kt-beta".into()];
        let v = ClusterView::build(&i).unwrap();
        assert!(!v
            .problems
            .iter()
            .any(|p| matches!(p, ClusterProblem::MissingReplicas { .. })));
    }

    #[test]
    fn damaged_meta_properties_are_corrupt_files() {
        let (_tmp, dir) = copy_of_kraft_fixture();
        let real = std::fs::read(dir.join("meta.properties")).unwrap();
        let damaged: [(&str, Vec<u8>); 4] = [
            ("empty", Vec::new()),
            ("NUL-filled", vec![0; real.len()]),
            ("garbage", b"this is not\na properties file\n".to_vec()),
            (
                "no node.id",
                String::from_utf8(real.clone())
                    .unwrap()
                    .replace("node.id=1\n", "")
                    .into_bytes(),
            ),
        ];
        for (what, bytes) in damaged {
            write(&dir.join("meta.properties"), &bytes);
            let v = ClusterView::build(&inputs(&dir)).unwrap();
            assert!(
                v.problems.iter().any(|p| matches!(
                    p,
                    ClusterProblem::File {
                        role: FileRole::MetaProperties,
                        problem: FileProblem::Format { .. },
                        ..
                    }
                )),
                "{what}: {:?}",
                v.problems
            );
            // The metadata log still says KRaft.
            assert_eq!(v.mode, LogDirMode::KRaft, "{what}");
            assert_eq!(v.log_dir_info[0].mode.meta_version, None, "{what}");
        }
    }

    /// `metadata.log.dir` that cannot be looked up (a file on its path: ENOTDIR, even for root)
    /// is not taken for absent: it is an unreadable input.
    #[test]
    fn a_metadata_log_that_cannot_be_read_is_unreadable() {
        let (_tmp, dir) = copy_of_kraft_fixture();
        let v = ClusterView::build(&inputs(&dir)).unwrap();
        assert!(v.unreadable().is_empty(), "{:?}", v.problems);
        let mut i = inputs(&dir);
        let through_a_file = dir.join("meta.properties").join("x");
        i.server_properties = Some(FileInput::Bytes {
            name: "props".into(),
            bytes: format!("metadata.log.dir={}\n", through_a_file.display()).into_bytes(),
        });
        let v = ClusterView::build(&i).unwrap();
        let expected = through_a_file.join("__cluster_metadata-0");
        assert!(
            v.unreadable().iter().any(|(p, _)| *p == expected),
            "{:?}",
            v.problems
        );
    }

    #[test]
    fn inputs_that_cannot_be_used_are_errors() {
        assert!(matches!(
            ClusterView::build(&ClusterInputs::default()),
            Err(ClusterError::NoLogDirs)
        ));
        let missing = inputs(Path::new("/nonexistent/logclean"));
        assert!(matches!(
            ClusterView::build(&missing),
            Err(ClusterError::LogDir { .. })
        ));
        let (_tmp, dir) = copy_of_kraft_fixture();
        let mut i = inputs(&dir);
        i.overrides = vec!["no-colon".into()];
        assert!(matches!(
            ClusterView::build(&i),
            Err(ClusterError::Override(_))
        ));
        let mut i = inputs(&dir);
        i.describe_file = Some(FileInput::Bytes {
            name: "describe".into(),
            bytes: b"  a=b sensitive=false synonyms={}\n".to_vec(),
        });
        let e = ClusterView::build(&i).unwrap_err();
        assert_eq!(e.to_string(), "in `describe`");
        let no_meta = tempfile::tempdir().unwrap();
        let v = ClusterView::build(&inputs(no_meta.path())).unwrap();
        assert_eq!(v.problems, vec![ClusterProblem::MetadataMissing]);
        assert_eq!(v.broker_id, None);
    }
}
