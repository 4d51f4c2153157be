//! What the read-only commands read after loading the log dirs, as values: the replays of
//! record contents (`__consumer_offsets`, `__transaction_state`, every data partition's producer
//! state, `__remote_log_metadata`) and what the filesystem says of each log dir (its blocks,
//! its free and total bytes). [`Replays`] is the one seam: a run on log dirs computes each
//! fact from the files where it needs it ([`Records::Files`]); a run on a facts snapshot takes
//! them all as they were when the snapshot was taken ([`Records::Carried`]), so that it gives
//! the answer the run on the dirs gave then. A new fact read after the load is one field here,
//! computed in [`Replays::take`] and read through [`Records`].

use crate::model::metadata_retention::{read_metadata_log, read_metadata_logs, MetadataLogFacts};
use crate::model::share_state::{replay_share_states, SharePartitionReplay};
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::cluster::DirFacts;
use super::coordinators::{first_live_copies, replay_groups, replay_transactions};
use super::disk_usage::{statvfs_space, walk_usage, DirUsage, FsSpace};
use super::file_bytes::ReadMode;
use super::groups::GroupState;
use super::log_dir::LogDir;
use super::metadata_log::{load_metadata_image, MetadataImage};
use super::partition::Partition;
use super::problem::FileProblem;
use super::producer_state::ProducerReplay;
use super::remote_tier::{replay_remote_tier, RemoteTier};
use super::segment::batch_positions;
use super::txn_state::TxnState;

/// Every fact read after the load, as the dirs gave them when taken.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Replays {
    /// `__consumer_offsets` replayed ([`replay_groups`]).
    pub groups: GroupsReplayed,
    /// `__transaction_state` and the data partitions' producer states replayed
    /// ([`replay_transactions`]).
    pub transactions: TransactionsReplayed,
    /// `__remote_log_metadata` replayed ([`replay_remote_tier`]).
    pub remote_tier: RemoteTier,
    /// Each log dir's blocks and filesystem, in the order of the dirs.
    pub disk: Vec<DirDisk>,
    /// `__share_group_state` replayed ([`replay_share_states`]).
    pub share_states: Vec<SharePartitionReplay>,
    /// Every metadata log's segments and snapshot headers ([`read_metadata_logs`]).
    pub metadata_logs: Vec<MetadataLogFacts>,
    /// The image of each KRaft metadata log held (`inspect` shows every one) but the one the
    /// snapshot's [`DirFacts`] holds already, by partition dir.
    #[serde(with = "crate::model::names::path_pairs_serde")]
    pub metadata_images: Vec<(PathBuf, MetadataImage)>,
    /// The batches of the `.log` files each log dir's next start recovers
    /// ([`walk_recovered`]), in the order of the dirs. Absent from snapshots written before
    /// it was carried: bytes to boot then bound the index entries by the segments' sizes.
    #[serde(default)]
    pub recovery_walks: Vec<RecoveryWalks>,
    /// Why the coordinators' replays are not carried (several snapshots joined: each holds its
    /// broker's replays, which are not joined across brokers); `None`: they are. Never written.
    #[serde(skip)]
    pub not_joined: Option<String>,
}

/// The groups' replay of every `__consumer_offsets` partition held.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct GroupsReplayed {
    /// The groups.
    pub state: GroupState,
    /// The partitions that could not be read to the end, in partition-dir order.
    pub unreadable: Vec<PartitionProblem>,
}

/// The transaction coordinator's replay and every data partition's producer state.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct TransactionsReplayed {
    /// The transaction coordinator's state.
    pub state: TxnState,
    /// The data partitions with producers, in partition-dir order (by their dir).
    #[serde(with = "crate::model::names::path_pairs_serde")]
    pub producers: Vec<(PathBuf, ProducerReplay)>,
    /// The partitions that could not be read, as [`replay_transactions`] orders them.
    pub unreadable: Vec<PartitionProblem>,
}

/// A partition (by its dir) whose replay could not read one of its files.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PartitionProblem {
    /// The partition dir.
    #[serde(with = "crate::model::names::path_serde")]
    pub partition: PathBuf,
    /// The file and what went wrong.
    pub problem: FileProblem,
}

/// One log dir on its filesystem.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DirDisk {
    /// The log dir.
    #[serde(with = "crate::model::names::path_serde")]
    pub path: PathBuf,
    /// Its entries' blocks ([`walk_usage`]).
    pub usage: DirUsage,
    /// Its filesystem's free and total bytes (`statvfs(2)`; `None`: it failed).
    pub fs: Option<FsSpace>,
}

/// The `.log` bytes of one log dir whose batches [`walk_recovered`] reads at most: the
/// segments a start recovers are normally few (those past the recovery point), but after a
/// crash without a recovery-point checkpoint they are every segment, and reading them all is
/// the deep read `diagnose` does not do. Past it, bytes to boot bound a segment's index
/// entries by its size.
pub const RECOVERY_WALK_BUDGET_BYTES: u64 = 256 * 1024 * 1024;

/// The batches of the `.log` files a log dir's next start recovers, read as the broker's
/// recovery reads them (`LogSegment.recover`: every batch from the start to the first invalid
/// one), for the index entries it appends.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RecoveryWalks {
    /// The log dir.
    #[serde(with = "crate::model::names::path_serde")]
    pub dir: PathBuf,
    /// Each `.log` walked, with where each of its batches starts, in the order asked.
    #[serde(with = "crate::model::names::path_pairs_serde")]
    pub logs: Vec<(PathBuf, Vec<u64>)>,
    /// The `.log` files asked for but not walked: past [`RECOVERY_WALK_BUDGET_BYTES`], or
    /// unreadable (the load reports those).
    pub not_walked: u64,
}

/// Walk the batch headers of `logs` (of log dir `dir`, in that order) while their sizes stay
/// within [`RECOVERY_WALK_BUDGET_BYTES`] in all; a file that does not fit, or cannot be read,
/// is counted in [`RecoveryWalks::not_walked`].
pub fn walk_recovered(dir: &Path, logs: &[PathBuf]) -> RecoveryWalks {
    let mut out = RecoveryWalks {
        dir: dir.to_path_buf(),
        ..RecoveryWalks::default()
    };
    let mut budget = RECOVERY_WALK_BUDGET_BYTES;
    for log in logs {
        let len = std::fs::metadata(log).map(|m| m.len());
        match len {
            Ok(len) if len <= budget => match batch_positions(log) {
                Ok(positions) => {
                    budget -= len;
                    out.logs.push((log.clone(), positions));
                }
                Err(_) => out.not_walked += 1,
            },
            _ => out.not_walked += 1,
        }
    }
    out
}

impl Replays {
    /// Read every fact of `dirs` (loaded as a snapshot loads them) from their files now;
    /// `recovered` names the `.log` files of a dir its next start recovers (a rule, given by
    /// the caller: the model does not decide it).
    pub fn take(
        dirs: &[LogDir],
        facts: &DirFacts,
        mode: ReadMode,
        recovered: &dyn Fn(&LogDir) -> Vec<PathBuf>,
    ) -> Replays {
        let g = replay_groups(dirs, Records::Files(mode));
        let t = replay_transactions(dirs, Records::Files(mode));
        Replays {
            groups: GroupsReplayed {
                state: g.state,
                unreadable: g.unreadable.iter().map(PartitionProblem::of).collect(),
            },
            transactions: TransactionsReplayed {
                state: t.state,
                producers: (t.partitions.into_iter())
                    .map(|r| (r.partition.path.clone(), r.replay))
                    .collect(),
                unreadable: t.unreadable.iter().map(PartitionProblem::of).collect(),
            },
            remote_tier: replay_remote_tier(dirs, mode),
            share_states: replay_share_states(dirs, mode),
            metadata_logs: read_metadata_logs(dirs, mode),
            recovery_walks: (dirs.iter())
                .map(|d| walk_recovered(&d.path, &recovered(d)))
                .collect(),
            not_joined: None,
            metadata_images: (dirs.iter())
                .flat_map(|d| &d.partitions)
                .filter(|p| p.name.as_ref().is_some_and(|n| n.is_metadata_log()))
                .filter(|p| facts.metadata_dir.as_ref() != Some(&p.path) || facts.image.is_none())
                .map(|p| (p.path.clone(), load_metadata_image(&p.path, mode)))
                .collect(),
            disk: (dirs.iter())
                .map(|d| DirDisk {
                    path: d.path.clone(),
                    usage: walk_usage(&d.path),
                    fs: statvfs_space(&d.path),
                })
                .collect(),
        }
    }

    /// The replays of several snapshots read together. One snapshot's are its own. Of several,
    /// only what joins exactly is kept: each dir's disk facts and recovery walks. The remote tier is left empty (a
    /// tiered partition's upload state is then unknown, and said so); the coordinators' and
    /// producer-state replays are marked [`Replays::not_joined`], and the commands that need
    /// them refuse.
    pub fn join(mut all: Vec<Replays>) -> Replays {
        if all.len() == 1 {
            return all.pop().unwrap_or_default();
        }
        let mut disk = Vec::new();
        let mut recovery_walks = Vec::new();
        for r in all {
            disk.extend(r.disk);
            recovery_walks.extend(r.recovery_walks);
        }
        Replays {
            disk,
            recovery_walks,
            not_joined: Some(
                "the groups', transactions' and remote tier's replays of several snapshots are \
                 not joined (one broker's snapshot at a time)"
                    .to_string(),
            ),
            ..Replays::default()
        }
    }

    /// The carried disk facts of log dir `path`.
    pub fn disk_of(&self, path: &Path) -> Option<&DirDisk> {
        self.disk.iter().find(|d| d.path == path)
    }
}

impl PartitionProblem {
    fn of(u: &super::coordinators::UnreadablePartition<'_>) -> PartitionProblem {
        PartitionProblem {
            partition: u.partition.path.clone(),
            problem: u.problem.clone(),
        }
    }
}

/// Where the facts read after the load come from.
#[derive(Debug, Clone, Copy)]
pub enum Records<'a> {
    /// The files, read now.
    Files(ReadMode),
    /// A facts snapshot's, as the files were when it was taken.
    Carried(&'a Replays),
}

impl<'a> Records<'a> {
    /// The image of the KRaft metadata log in partition dir `dir` ([`load_metadata_image`],
    /// or as carried with `facts`).
    pub fn metadata_image(self, dir: &Path, facts: Option<&DirFacts>) -> MetadataImage {
        match self {
            Records::Files(mode) => load_metadata_image(dir, mode),
            Records::Carried(r) => {
                let held = facts
                    .filter(|f| f.metadata_dir.as_deref() == Some(dir))
                    .and_then(|f| f.image.clone());
                let carried = || {
                    (r.metadata_images.iter())
                        .find(|(p, _)| p == dir)
                        .map(|(_, i)| i.clone())
                };
                held.or_else(carried)
                    .unwrap_or_else(|| MetadataImage::not_carried(dir))
            }
        }
    }

    /// From `carried` when the run reads a snapshot, else from the files (read as `mode`).
    pub fn of(carried: Option<&'a Replays>, mode: ReadMode) -> Records<'a> {
        carried.map_or(Records::Files(mode), Records::Carried)
    }

    /// The log dir at `path`'s blocks ([`walk_usage`], or as carried; a dir the snapshot does
    /// not hold is said to be unknown, never taken for empty).
    pub fn usage(self, path: &Path) -> Cow<'a, DirUsage> {
        match self {
            Records::Files(_) => Cow::Owned(walk_usage(path)),
            Records::Carried(r) => r.disk_of(path).map_or_else(
                || Cow::Owned(DirUsage::not_carried(path)),
                |d| Cow::Borrowed(&d.usage),
            ),
        }
    }

    /// Every `__share_group_state` partition replayed ([`replay_share_states`], or as carried).
    pub fn share_states(self, dirs: &[LogDir]) -> Cow<'a, [SharePartitionReplay]> {
        match self {
            Records::Files(mode) => Cow::Owned(replay_share_states(dirs, mode)),
            Records::Carried(r) => Cow::Borrowed(&r.share_states),
        }
    }

    /// The metadata log in partition dir `p` of `d` ([`read_metadata_log`], or as carried).
    pub fn metadata_log(self, d: &LogDir, p: &Partition) -> Option<Cow<'a, MetadataLogFacts>> {
        match self {
            Records::Files(mode) => read_metadata_log(d, p, mode).map(Cow::Owned),
            Records::Carried(r) => (r.metadata_logs.iter())
                .find(|m| m.path == p.path)
                .map(Cow::Borrowed),
        }
    }

    /// The batches of `logs`, the `.log` files log dir `dir`'s next start recovers
    /// ([`walk_recovered`] now, or as carried: nothing walked for a dir the snapshot does not
    /// carry them for).
    pub fn recovery_walks(self, dir: &Path, logs: &[PathBuf]) -> Cow<'a, RecoveryWalks> {
        match self {
            Records::Files(_) => Cow::Owned(walk_recovered(dir, logs)),
            Records::Carried(r) => (r.recovery_walks.iter())
                .find(|w| w.dir == dir)
                .map_or_else(
                    || {
                        Cow::Owned(RecoveryWalks {
                            dir: dir.to_path_buf(),
                            logs: Vec::new(),
                            not_walked: logs.len() as u64,
                        })
                    },
                    Cow::Borrowed,
                ),
        }
    }

    /// The filesystem figures of log dir `path` (statvfs now, or when the snapshot was taken).
    pub fn fs_space(self, path: &Path) -> Option<FsSpace> {
        match self {
            Records::Files(_) => statvfs_space(path),
            Records::Carried(r) => r.disk_of(path).and_then(|d| d.fs),
        }
    }
}

/// The first live copy of each partition of some dirs, by its dir: where a carried replay's
/// partition is in the dirs of the snapshot (built once, looked up per partition).
pub struct PartitionsByPath<'d>(HashMap<&'d Path, (&'d LogDir, &'d Partition)>);

impl<'d> PartitionsByPath<'d> {
    /// The first live copies of `dirs`.
    pub fn of(dirs: &'d [LogDir]) -> Self {
        PartitionsByPath(
            (first_live_copies(dirs).into_iter())
                .map(|(d, p, _)| (p.path.as_path(), (d, p)))
                .collect(),
        )
    }

    /// The partition whose dir is `path`, with its log dir.
    pub fn get(&self, path: &Path) -> Option<(&'d LogDir, &'d Partition)> {
        self.0.get(path).copied()
    }
}

/// Serde for a map whose keys are not text (a topic-partition, a topic id and partition): a
/// list of `[key, value]` pairs, since a JSON object's keys are strings. Use with
/// `#[serde(with = "crate::model::replays::map_pairs")]`.
pub mod map_pairs {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Serialize `m` as its pairs, in key order.
    pub fn serialize<K: Serialize, V: Serialize, S: Serializer>(
        m: &BTreeMap<K, V>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_seq(m.iter())
    }

    /// The map whose pairs were serialized (a key given twice: the last pair wins).
    pub fn deserialize<'de, K, V, D>(d: D) -> Result<BTreeMap<K, V>, D::Error>
    where
        K: Deserialize<'de> + Ord,
        V: Deserialize<'de>,
        D: Deserializer<'de>,
    {
        let pairs: Vec<(K, V)> = Vec::deserialize(d)?;
        Ok(pairs.into_iter().collect())
    }
}
