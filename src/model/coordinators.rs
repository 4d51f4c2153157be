//! The coordinators' inputs across loaded log dirs: `__consumer_offsets` replayed into one
//! [`GroupState`] with the data partitions held ([`replay_groups`]), and `__transaction_state`
//! with every data partition's producer state ([`replay_transactions`]). Each reads the first
//! copy of a partition held twice ([`first_live_copies`]) and keeps every file it could not read.
//!
//! The verdicts on them are in [`crate::rules::groups`] and [`crate::rules::transactions`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use rayon::prelude::*;

use super::file_bytes::ReadMode;
use super::groups::{replay_partition, GroupState, HeldPartition, TopicPartition};
use super::log_dir::LogDir;
use super::names::{
    PartitionDirName, PartitionDirState, CONSUMER_OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC,
};
use super::partition::Partition;
use super::problem::FileProblem;
use super::producer_state::{replay_producer_state, ProducerReplay};
use super::replays::{PartitionProblem, PartitionsByPath, Records};
use super::txn_state::{replay_txn_state, TxnState};

/// The live partition dirs of `dirs`, the first copy of each topic-partition (a partition held in
/// two log dirs is read from the first), each with its log dir.
pub fn first_live_copies(dirs: &[LogDir]) -> Vec<(&LogDir, &Partition, &PartitionDirName)> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for d in dirs {
        for p in &d.partitions {
            let Some(name) = p
                .name
                .as_ref()
                .filter(|n| n.state == PartitionDirState::Live)
            else {
                continue;
            };
            if seen.insert((name.topic.as_str(), name.partition)) {
                out.push((d, p, name));
            }
        }
    }
    out
}

/// A partition whose replay could not read one of its files.
#[derive(Debug)]
pub struct UnreadablePartition<'d> {
    /// Its log dir.
    pub log_dir: &'d LogDir,
    /// The partition.
    pub partition: &'d Partition,
    /// The file and what went wrong.
    pub problem: FileProblem,
}

/// `__consumer_offsets` replayed, and the data partitions beside it.
#[derive(Debug, Default)]
pub struct GroupsReplay<'d> {
    /// The groups of every `__consumer_offsets` partition held.
    pub state: GroupState,
    /// The data partitions held (first copies with a log start and end).
    pub held: BTreeMap<TopicPartition, HeldPartition>,
    /// The log dir of the copy of each partition read (data and `__consumer_offsets`).
    pub log_dirs: BTreeMap<TopicPartition, PathBuf>,
    /// The `__consumer_offsets` partitions that could not be read to the end (the groups they
    /// hold are missing from the state), in partition-dir order.
    pub unreadable: Vec<UnreadablePartition<'d>>,
}

/// Replay every `__consumer_offsets` partition of `dirs` (the first copy of each) and collect
/// the data partitions held with their log starts and ends.
pub fn replay_groups<'d>(dirs: &'d [LogDir], records: Records<'_>) -> GroupsReplay<'d> {
    let mut out = GroupsReplay::default();
    let mut offsets_partitions = Vec::new();
    for (d, p, name) in first_live_copies(dirs) {
        let tp = (name.topic.clone(), name.partition);
        out.log_dirs.insert(tp.clone(), d.path.clone());
        if name.topic == CONSUMER_OFFSETS_TOPIC {
            offsets_partitions.push((d, p, name.partition));
            continue;
        }
        if let (Some(log_start_offset), Some(log_end_offset)) =
            (p.log_start_offset(), p.log_end_offset())
        {
            out.held.insert(
                tp,
                HeldPartition {
                    log_start_offset: log_start_offset.get(),
                    log_end_offset: log_end_offset.get(),
                },
            );
        }
    }
    (out.state, out.unreadable) = match records {
        Records::Files(mode) => replay_offsets_partitions(&offsets_partitions, mode),
        Records::Carried(r) => (
            r.groups.state.clone(),
            relink(&PartitionsByPath::of(dirs), &r.groups.unreadable),
        ),
    };
    out
}

/// The carried problems of partitions, each with its partition among `dirs` (a snapshot's
/// dirs hold every partition its replays name).
fn relink<'d>(
    at: &PartitionsByPath<'d>,
    carried: &[PartitionProblem],
) -> Vec<UnreadablePartition<'d>> {
    (carried.iter())
        .filter_map(|c| {
            let (log_dir, partition) = at.get(&c.partition)?;
            Some(UnreadablePartition {
                log_dir,
                partition,
                problem: c.problem.clone(),
            })
        })
        .collect()
}

/// Replay `__consumer_offsets` partitions `parts` (in this order) into one state, with those
/// that could not be read to the end.
///
/// Each partition is replayed into a state of its own in parallel; these are merged in order
/// when no group id occurs in two of them (the coordinator's layout: a group lives in the
/// partition its id hashes to), which gives exactly the state of replaying them one after
/// another into one. Otherwise (a group seen in two partitions, where a later replay updates an
/// earlier one's group) they are replayed serially.
fn replay_offsets_partitions<'d>(
    parts: &[(&'d LogDir, &'d Partition, i32)],
    mode: ReadMode,
) -> (GroupState, Vec<UnreadablePartition<'d>>) {
    let replays: Vec<(GroupState, Result<(), FileProblem>)> = parts
        .par_iter()
        .map(|&(_, p, n)| {
            let mut one = GroupState::default();
            let result = replay_partition(&mut one, p, n, mode);
            (one, result)
        })
        .collect();
    let ids = |s: &GroupState| s.groups.len() + s.deleted.len();
    let total: usize = replays.iter().map(|(s, _)| ids(s)).sum();
    let distinct: BTreeSet<&str> = replays
        .iter()
        .flat_map(|(s, _)| {
            let deleted = s.deleted.iter().map(String::as_str);
            s.groups.keys().map(|k| &**k).chain(deleted)
        })
        .collect();
    let mut state = GroupState::default();
    let mut unreadable = Vec::new();
    let mut failed = |log_dir, partition, problem| {
        unreadable.push(UnreadablePartition {
            log_dir,
            partition,
            problem,
        });
    };
    if distinct.len() == total {
        for ((d, p, _), (one, result)) in parts.iter().zip(replays) {
            state.groups.extend(one.groups);
            state.deleted.extend(one.deleted);
            state.bad_records.extend(one.bad_records);
            state.stops.extend(one.stops);
            state.partitions.extend(one.partitions);
            state.records += one.records;
            state.bytes += one.bytes;
            if let Err(e) = result {
                failed(d, p, e);
            }
        }
    } else {
        for &(d, p, n) in parts {
            if let Err(e) = replay_partition(&mut state, p, n, mode) {
                failed(d, p, e);
            }
        }
    }
    (state, unreadable)
}

/// A data partition with producers, as replayed.
#[derive(Debug)]
pub struct ReplayedProducers<'d> {
    /// Its log dir.
    pub log_dir: &'d LogDir,
    /// The partition.
    pub partition: &'d Partition,
    /// Its topic and number.
    pub tp: TopicPartition,
    /// The replay.
    pub replay: ProducerReplay,
}

/// `__transaction_state` replayed, and every data partition's producer state.
#[derive(Debug, Default)]
pub struct TxnReplay<'d> {
    /// The transaction coordinator's state.
    pub state: TxnState,
    /// The data partitions with producers, in partition-dir order.
    pub partitions: Vec<ReplayedProducers<'d>>,
    /// The log dir of the copy of each partition read (but `__consumer_offsets`).
    pub log_dirs: BTreeMap<TopicPartition, PathBuf>,
    /// The partitions that could not be read: `__transaction_state` ones first, then data ones,
    /// each in partition-dir order.
    pub unreadable: Vec<UnreadablePartition<'d>>,
}

/// Replay every `__transaction_state` partition of `dirs` and every data partition's producer
/// state (the first copy of each).
pub fn replay_transactions<'d>(dirs: &'d [LogDir], records: Records<'_>) -> TxnReplay<'d> {
    let copies = first_live_copies(dirs);
    let mut out = TxnReplay {
        log_dirs: (copies.iter())
            .filter(|(_, _, n)| n.topic != CONSUMER_OFFSETS_TOPIC)
            .map(|(d, _, n)| ((n.topic.clone(), n.partition), d.path.clone()))
            .collect(),
        ..TxnReplay::default()
    };
    let mode = match records {
        Records::Files(mode) => mode,
        Records::Carried(r) => {
            let t = &r.transactions;
            let at = PartitionsByPath::of(dirs);
            out.state = t.state.clone();
            out.partitions = (t.producers.iter())
                .filter_map(|(path, replay)| {
                    let (log_dir, partition) = at.get(path)?;
                    let n = partition.name.as_ref()?;
                    Some(ReplayedProducers {
                        log_dir,
                        partition,
                        tp: (n.topic.clone(), n.partition),
                        replay: replay.clone(),
                    })
                })
                .collect();
            out.unreadable = relink(&at, &t.unreadable);
            return out;
        }
    };
    for &(d, p, n) in copies
        .iter()
        .filter(|(_, _, n)| n.topic == TRANSACTION_STATE_TOPIC)
    {
        if let Err(problem) = replay_txn_state(&mut out.state, p, n.partition, mode) {
            out.unreadable.push(UnreadablePartition {
                log_dir: d,
                partition: p,
                problem,
            });
        }
    }
    // Each data partition's replay reads only its own files: in parallel, collected in the
    // order of `copies` (an indexed map keeps it) so the result does not depend on scheduling.
    // A partition without producers is dropped where it was replayed, not held until the end.
    let data_partitions: Vec<_> = (copies.iter())
        .filter(|(_, _, n)| n.topic != CONSUMER_OFFSETS_TOPIC && n.topic != TRANSACTION_STATE_TOPIC)
        .collect();
    let data: Vec<Option<Result<ReplayedProducers, UnreadablePartition>>> = data_partitions
        .par_iter()
        .map(
            |&&(d, p, n)| match replay_producer_state(p, d.clean_shutdown.is_some(), mode) {
                Ok(replay) if replay.producers > 0 => Some(Ok(ReplayedProducers {
                    log_dir: d,
                    partition: p,
                    tp: (n.topic.clone(), n.partition),
                    replay,
                })),
                Ok(_) => None,
                Err(problem) => Some(Err(UnreadablePartition {
                    log_dir: d,
                    partition: p,
                    problem,
                })),
            },
        )
        .collect();
    for result in data.into_iter().flatten() {
        match result {
            Ok(r) => out.partitions.push(r),
            Err(u) => out.unreadable.push(u),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::log_dir::{load_log_dir, Selection};
    use crate::model::segment::{LoadOptions, ScanDepth};
    use std::path::Path;

    /// A writable copy of the fixture log dir `consumer-groups/logs-0`.
    struct Scratch {
        _tmp: tempfile::TempDir,
        log_dir: PathBuf,
    }

    impl Scratch {
        fn of(fixture_log_dir: &str) -> Scratch {
            let tmp = tempfile::tempdir().unwrap();
            let src = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures")
                .join(fixture_log_dir);
            let log_dir = tmp.path().join("logs-0");
            for e in walk(&src) {
                let to = log_dir.join(e.strip_prefix(&src).unwrap());
                std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                std::fs::copy(&e, &to).unwrap();
            }
            Scratch { _tmp: tmp, log_dir }
        }

        fn path(&self, rel: &str) -> PathBuf {
            self.log_dir.join(rel)
        }

        fn load(&self, depth: ScanDepth) -> LogDir {
            let opts = LoadOptions {
                depth,
                ..Default::default()
            };
            load_log_dir(&self.log_dir, &Selection::default(), &opts, &|| {}).unwrap()
        }
    }

    /// The files below `dir`.
    fn walk(dir: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                out.extend(walk(&path));
            } else {
                out.push(path);
            }
        }
        out
    }

    /// The `__consumer_offsets` partitions of `d`, in dir order, as `replay_groups` takes them.
    fn offsets_partitions(d: &LogDir) -> Vec<(&LogDir, &Partition, i32)> {
        first_live_copies(std::slice::from_ref(d))
            .into_iter()
            .filter(|(_, _, n)| n.topic == CONSUMER_OFFSETS_TOPIC)
            .map(|(d, p, n)| (d, p, n.partition))
            .collect()
    }

    /// One state replayed partition after partition, the way `replay_offsets_partitions` must
    /// match.
    fn serial(parts: &[(&LogDir, &Partition, i32)]) -> GroupState {
        let mut state = GroupState::default();
        for &(_, p, n) in parts {
            replay_partition(&mut state, p, n, ReadMode::Buffered).unwrap();
        }
        state
    }

    #[test]
    fn parallel_replay_equals_the_serial_one_when_groups_are_apart_and_when_not() {
        let s = Scratch::of("consumer-groups/logs-0");
        let d = s.load(ScanDepth::Headers);
        let parts = offsets_partitions(&d);
        let (state, unreadable) = replay_offsets_partitions(&parts, ReadMode::Buffered);
        assert!(unreadable.is_empty());
        assert!(!state.groups.is_empty(), "the fixture has groups");
        assert_eq!(format!("{state:?}"), format!("{:?}", serial(&parts)));

        // Every group twice: a copy of each partition under another number, so the later
        // replay updates the earlier one's groups and the states cannot simply be merged
        // (merging them anyway gives another state: checked when this test was written).
        for n in 0..3 {
            copy_partition(&s, n, n + 10);
        }
        let d = s.load(ScanDepth::Headers);
        let parts = offsets_partitions(&d);
        assert_eq!(parts.len(), 6);
        let (state, unreadable) = replay_offsets_partitions(&parts, ReadMode::Buffered);
        assert!(unreadable.is_empty());
        assert_eq!(state.partitions.len(), 6);
        assert_eq!(format!("{state:?}"), format!("{:?}", serial(&parts)));
    }

    fn copy_partition(s: &Scratch, from: i32, to: i32) {
        let src = s.path(&format!("{CONSUMER_OFFSETS_TOPIC}-{from}"));
        let dst = s.path(&format!("{CONSUMER_OFFSETS_TOPIC}-{to}"));
        std::fs::create_dir_all(&dst).unwrap();
        for e in std::fs::read_dir(&src).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), dst.join(e.file_name())).unwrap();
        }
    }
}
