//! A facts snapshot: the loaded model of a broker's log dirs, serialised (docs/snapshot.md).
//!
//! What the read-only commands decide from is the model [`super::targets::load_targets`] loads
//! ([`LogDir`]: listings, segment summaries, index tails, checkpoints, producer snapshots), what
//! a cluster view reads beside the partitions ([`DirFacts`]: `meta.properties`, the metadata
//! image) and what is read after the load ([`Replays`]: the coordinators', producer-state and
//! remote-tier replays, the filesystem's blocks and free space). A snapshot is exactly those
//! three values, serialised with serde as JSON and gzip-compressed, under an envelope naming
//! its format version, the logclean that wrote it, the instant and the broker. Nothing else is
//! written: none of them holds record payloads, keys or values (group and transactional ids
//! are kept: the reports name them). A fact added to one of these structs is in the snapshot
//! without further work; a command that reads the dirs again through another path fails on a
//! snapshot run, whose dirs need not exist (docs/snapshot.md).
//!
//! The format is versioned by [`FORMAT_VERSION`]: a snapshot of another version is refused
//! with the versions named, never half-read. It is read as a stream ([`Snapshot::read`]): the
//! uncompressed JSON is never held whole, only the model built from it.

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::sync::Arc;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};

use crate::formats::partition_metadata::Uuid;

use super::cluster::DirFacts;
use super::log_dir::LogDir;
use super::replays::Replays;
use super::units::TimestampMs;

/// The version of the snapshot format this logclean writes and reads. Raise it whenever a
/// snapshot written before would be read differently (a field renamed, removed or whose meaning
/// changed); a field added with a default keeps it.
///
/// Version 2 added [`Snapshot::replays`]; version 1 (without them) is refused, not read with
/// the replays missing: `groups`, `transactions` and `diagnose` would have nothing to answer
/// from and a tiered plan would differ.
pub const FORMAT_VERSION: u32 = 2;

/// The largest snapshot read, uncompressed (a 1M-segment broker's is well under it).
pub const MAX_UNCOMPRESSED: u64 = 8 << 30;

/// How the log dirs were loaded for a snapshot: the load of `plan`, `groups`, `transactions`
/// and `diagnose` (data partitions at their tail, the internal topics' batch headers).
pub const LOAD_DESCRIPTION: &str = "tail; internal topics at batch headers";

/// The load of `inspect` (`logclean snapshot --depth headers`): every partition's batch headers.
pub const LOAD_HEADERS: &str = "batch headers";

/// One facts snapshot.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Snapshot {
    /// [`FORMAT_VERSION`] of the logclean that wrote it.
    pub format_version: u32,
    /// `logclean <version> (<commit>)` that wrote it.
    pub logclean_version: String,
    /// When it was taken (the wall clock at the start of the load), ms since the epoch.
    pub taken_at_ms: i64,
    /// What was read.
    pub input: SnapshotInput,
    /// Whose dirs they are (from their `meta.properties`).
    pub broker: BrokerIdentity,
    /// What the dirs held beside their partition dirs.
    pub dir_facts: DirFacts,
    /// The loaded log dirs.
    pub dirs: Vec<LogDir>,
    /// What is read after the load, as it was when taken.
    pub replays: Replays,
}

/// What a snapshot read.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SnapshotInput {
    /// The log dirs, as named on the command line.
    #[serde(with = "crate::model::names::paths_serde")]
    pub log_dirs: Vec<PathBuf>,
    /// How they were loaded ([`LOAD_DESCRIPTION`]).
    pub load: String,
    /// The log dirs canonical, each once, as `diagnose` names them on the dirs (empty in a
    /// snapshot written before this field: the dirs as named are used).
    #[serde(default, with = "crate::model::names::paths_serde")]
    pub canonical_log_dirs: Vec<PathBuf>,
}

/// The broker a snapshot's dirs belong to.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BrokerIdentity {
    /// `cluster.id` (the first log dir's that has one).
    pub cluster_id: Option<String>,
    /// `node.id` (`broker.id` in ZooKeeper mode), the first log dir's that has one.
    pub node_id: Option<i32>,
    /// Each log dir and its `directory.id`.
    pub dirs: Vec<DirIdentity>,
}

/// One log dir's identity.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DirIdentity {
    /// The log dir.
    #[serde(with = "crate::model::names::path_serde")]
    pub path: PathBuf,
    /// Its `directory.id` (KRaft, meta.properties v1 with JBOD).
    pub directory_id: Option<Uuid>,
}

impl BrokerIdentity {
    /// The identity the `meta.properties` of `facts` tell.
    pub fn of(facts: &DirFacts) -> Self {
        let metas = || facts.metas.iter().filter_map(|(_, m)| m.as_ref());
        BrokerIdentity {
            cluster_id: metas().find_map(|m| m.cluster_id.clone()),
            node_id: metas().find_map(|m| m.node_id),
            dirs: (facts.metas.iter())
                .map(|(path, m)| DirIdentity {
                    path: path.clone(),
                    directory_id: m.as_ref().and_then(|m| m.directory_id),
                })
                .collect(),
        }
    }
}

/// Why a snapshot cannot be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// The OS refused a read or write.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// Not gzip, or not JSON inside, or not a snapshot's JSON.
    #[error("not a logclean facts snapshot (gzip-compressed JSON, docs/snapshot.md): {0}")]
    NotASnapshot(String),
    /// Written by a logclean whose format this one does not read.
    #[error(
        "snapshot format version {found} (written by {writer}); this logclean reads version \
         {FORMAT_VERSION} only: {advice}"
    )]
    Version {
        /// The snapshot's `format_version`.
        found: u32,
        /// Its `logclean_version`.
        writer: String,
        /// What to do.
        advice: &'static str,
    },
    /// Larger than [`MAX_UNCOMPRESSED`] once uncompressed.
    #[error("the snapshot is larger than {MAX_UNCOMPRESSED} bytes uncompressed")]
    TooLarge,
}

/// What of a snapshot a command reads: the rest is skipped while parsing, never held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parts {
    /// Each log dir's blocks and filesystem figures ([`Replays::disk`]: one entry per file of
    /// the dirs, the largest replay); only `diagnose` reads them.
    pub disk: bool,
}

impl Parts {
    /// Every part.
    pub const ALL: Parts = Parts { disk: true };
    /// Every part but [`Parts::disk`]: what `plan`, `config`, `groups`, `transactions` and
    /// `inspect` read.
    pub const NO_DISK: Parts = Parts { disk: false };
}

/// What a reader found of the envelope's version before it stopped (the side channel of
/// [`SnapshotSeed`]: a snapshot of another version is refused by its version, not by the first
/// field that changed, and without reading its body).
#[derive(Default)]
struct Head {
    other_version: Option<(u32, String)>,
}

/// The seed that reads a snapshot's JSON as a stream, stopping at a version it does not read
/// and skipping the parts not wanted.
struct SnapshotSeed<'h>(&'h mut Head, Parts);

impl<'de> DeserializeSeed<'de> for SnapshotSeed<'_> {
    type Value = Snapshot;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Snapshot, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for SnapshotSeed<'_> {
    type Value = Snapshot;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a logclean facts snapshot (a JSON object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Snapshot, A::Error> {
        fn set<'de, A: MapAccess<'de>, T: de::Deserialize<'de>>(
            map: &mut A,
            slot: &mut Option<T>,
        ) -> Result<(), A::Error> {
            *slot = Some(map.next_value()?);
            Ok(())
        }
        let mut format_version = None;
        let mut logclean_version = None;
        let mut taken_at_ms = None;
        let mut input = None;
        let mut broker = None;
        let mut dir_facts = None;
        let mut dirs = None;
        let mut replays = None;
        while let Some(key) = map.next_key::<String>()? {
            if let Some(other) = self.0.other_version.as_mut() {
                // The writer's name, when it comes next, is said with its version.
                if key == "logclean_version" {
                    other.1 = map.next_value()?;
                }
                return Err(de::Error::custom("another format version"));
            }
            match key.as_str() {
                "format_version" => {
                    let v: u32 = map.next_value()?;
                    if v != FORMAT_VERSION {
                        self.0.other_version = Some((v, String::new()));
                    }
                    format_version = Some(v);
                }
                "logclean_version" => set(&mut map, &mut logclean_version)?,
                "taken_at_ms" => set(&mut map, &mut taken_at_ms)?,
                "input" => set(&mut map, &mut input)?,
                "broker" => set(&mut map, &mut broker)?,
                "dir_facts" => set(&mut map, &mut dir_facts)?,
                "dirs" => set(&mut map, &mut dirs)?,
                "replays" => replays = Some(map.next_value_seed(ReplaysSeed(self.1))?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if self.0.other_version.is_some() {
            return Err(de::Error::custom("another format version"));
        }
        let missing = |name| de::Error::missing_field(name);
        Ok(Snapshot {
            format_version: format_version.ok_or_else(|| missing("format_version"))?,
            logclean_version: logclean_version.ok_or_else(|| missing("logclean_version"))?,
            taken_at_ms: taken_at_ms.ok_or_else(|| missing("taken_at_ms"))?,
            input: input.ok_or_else(|| missing("input"))?,
            broker: broker.ok_or_else(|| missing("broker"))?,
            dir_facts: dir_facts.ok_or_else(|| missing("dir_facts"))?,
            dirs: dirs.ok_or_else(|| missing("dirs"))?,
            replays: replays.ok_or_else(|| missing("replays"))?,
        })
    }
}

/// The seed that reads [`Replays`], skipping [`Replays::disk`] unless `Parts::disk` (parsed
/// over and dropped as it comes: the entries are never held).
struct ReplaysSeed(Parts);

impl<'de> DeserializeSeed<'de> for ReplaysSeed {
    type Value = Replays;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Replays, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ReplaysSeed {
    type Value = Replays;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the replays of a facts snapshot (a JSON object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Replays, A::Error> {
        fn set<'de, A: MapAccess<'de>, T: de::Deserialize<'de>>(
            map: &mut A,
            slot: &mut Option<T>,
        ) -> Result<(), A::Error> {
            *slot = Some(map.next_value()?);
            Ok(())
        }
        let (mut groups, mut transactions, mut remote_tier, mut disk) = (None, None, None, None);
        let (mut share_states, mut metadata_logs, mut metadata_images) = (None, None, None);
        let mut recovery_walks = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "groups" => set(&mut map, &mut groups)?,
                "transactions" => set(&mut map, &mut transactions)?,
                "remote_tier" => set(&mut map, &mut remote_tier)?,
                "disk" if self.0.disk => set(&mut map, &mut disk)?,
                "disk" => {
                    map.next_value::<IgnoredAny>()?;
                    disk = Some(Vec::new());
                }
                "share_states" => set(&mut map, &mut share_states)?,
                "metadata_logs" => set(&mut map, &mut metadata_logs)?,
                "metadata_images" => set(&mut map, &mut metadata_images)?,
                "recovery_walks" => set(&mut map, &mut recovery_walks)?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let missing = |name| de::Error::missing_field(name);
        // Every field named: one added to `Replays` fails to build here until it is read.
        Ok(Replays {
            groups: groups.ok_or_else(|| missing("groups"))?,
            transactions: transactions.ok_or_else(|| missing("transactions"))?,
            remote_tier: remote_tier.ok_or_else(|| missing("remote_tier"))?,
            disk: disk.ok_or_else(|| missing("disk"))?,
            share_states: share_states.ok_or_else(|| missing("share_states"))?,
            metadata_logs: metadata_logs.ok_or_else(|| missing("metadata_logs"))?,
            metadata_images: metadata_images.ok_or_else(|| missing("metadata_images"))?,
            // Absent from snapshots written before it was carried (see the field).
            recovery_walks: recovery_walks.unwrap_or_default(),
            not_joined: None,
        })
    }
}

/// A reader that counts what it passed on and stops past [`MAX_UNCOMPRESSED`].
struct Capped<R> {
    inner: R,
    read: u64,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.read > MAX_UNCOMPRESSED {
            return Err(io::Error::other(SnapshotError::TooLarge.to_string()));
        }
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}

impl Snapshot {
    /// Write `self` as gzip-compressed JSON to `out`.
    pub fn write(&self, out: impl Write) -> Result<(), SnapshotError> {
        let mut gz = flate2::write::GzEncoder::new(out, flate2::Compression::default());
        serde_json::to_writer(&mut gz, self).map_err(io::Error::from)?;
        gz.finish()?.flush()?;
        Ok(())
    }

    /// Read a snapshot from `input` (gzip-compressed JSON) as a stream, refusing another
    /// format version.
    pub fn read(input: impl Read) -> Result<Snapshot, SnapshotError> {
        Snapshot::read_parts(input, Parts::ALL)
    }

    /// [`Snapshot::read`] keeping only `parts` (the others left empty).
    pub fn read_parts(input: impl Read, parts: Parts) -> Result<Snapshot, SnapshotError> {
        let capped = Capped {
            inner: flate2::read::GzDecoder::new(input),
            read: 0,
        };
        Snapshot::from_reader(
            io::BufReader::with_capacity(1 << 16, capped),
            |r| r.get_ref().read,
            parts,
        )
    }

    /// Parse the uncompressed JSON of a snapshot.
    pub fn from_json(json: &[u8]) -> Result<Snapshot, SnapshotError> {
        Snapshot::from_reader(json, |_| 0, Parts::ALL)
    }

    fn from_reader<R: Read>(
        mut input: R,
        read_so_far: impl Fn(&R) -> u64,
        parts: Parts,
    ) -> Result<Snapshot, SnapshotError> {
        let mut head = Head::default();
        let parsed = {
            let mut de = serde_json::Deserializer::from_reader(&mut input);
            SnapshotSeed(&mut head, parts)
                .deserialize(&mut de)
                .and_then(|s| de.end().map(|()| s))
        };
        if let Some((found, writer)) = head.other_version {
            let advice = if found > FORMAT_VERSION {
                "read it with that logclean or a later one"
            } else {
                "take the snapshot again with this logclean (`logclean snapshot LOG_DIR... -o FILE`)"
            };
            return Err(SnapshotError::Version {
                found,
                writer,
                advice,
            });
        }
        if read_so_far(&input) > MAX_UNCOMPRESSED {
            return Err(SnapshotError::TooLarge);
        }
        parsed.map_err(|e| {
            if e.is_io() {
                let e = io::Error::from(e);
                match e.kind() {
                    // Not gzip, or cut short (an empty file is too).
                    io::ErrorKind::InvalidInput
                    | io::ErrorKind::InvalidData
                    | io::ErrorKind::UnexpectedEof => SnapshotError::NotASnapshot(e.to_string()),
                    _ => SnapshotError::Io(e),
                }
            } else {
                SnapshotError::NotASnapshot(e.to_string())
            }
        })
    }
}

/// Several snapshots read together (one per broker, or one per log dir): the inputs of a
/// command run on all their dirs at once.
#[derive(Debug, Clone)]
pub struct Snapshots {
    /// Each file and its snapshot's envelope, in the order given.
    pub sources: Vec<(PathBuf, SnapshotSource)>,
    /// Every snapshot's log dirs as named when taken, in order.
    pub log_dirs: Vec<PathBuf>,
    /// Every snapshot's log dirs canonical ([`SnapshotInput::canonical_log_dirs`], or as named
    /// when it has none), in order.
    pub canonical_log_dirs: Vec<PathBuf>,
    /// Their facts, joined ([`DirFacts::join`]).
    pub dir_facts: Arc<DirFacts>,
    /// Every loaded log dir, in order.
    pub dirs: Vec<LogDir>,
    /// What was read after the load: the one snapshot's; of several, only what joins exactly
    /// ([`Replays::join`]).
    pub replays: Arc<Replays>,
}

/// What a run says about a snapshot it read (its input description).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SnapshotSource {
    /// The snapshot file.
    #[serde(with = "crate::model::names::path_serde")]
    pub file: PathBuf,
    /// When it was taken, ms since the epoch.
    #[serde(rename = "taken_at_ms")]
    pub taken_at: TimestampMs,
    /// The logclean that wrote it.
    pub logclean_version: String,
    /// Whose dirs.
    pub broker: BrokerIdentity,
    /// The log dirs it holds.
    #[serde(with = "crate::model::names::paths_serde")]
    pub log_dirs: Vec<PathBuf>,
    /// How they were loaded ([`LOAD_DESCRIPTION`], [`LOAD_HEADERS`]).
    pub load: String,
}

impl Snapshots {
    /// Join snapshots read from `files` (in this order).
    pub fn join(snaps: Vec<(PathBuf, Snapshot)>) -> Snapshots {
        let mut sources = Vec::new();
        let mut log_dirs = Vec::new();
        let mut canonical_log_dirs = Vec::new();
        let mut facts = Vec::new();
        let mut dirs = Vec::new();
        let mut replays = Vec::new();
        for (file, s) in snaps {
            sources.push((
                file.clone(),
                SnapshotSource {
                    file,
                    taken_at: TimestampMs(s.taken_at_ms),
                    logclean_version: s.logclean_version,
                    broker: s.broker,
                    log_dirs: s.input.log_dirs.clone(),
                    load: s.input.load.clone(),
                },
            ));
            if s.input.canonical_log_dirs.is_empty() {
                canonical_log_dirs.extend(s.input.log_dirs.iter().cloned());
            }
            canonical_log_dirs.extend(s.input.canonical_log_dirs);
            log_dirs.extend(s.input.log_dirs);
            facts.push(s.dir_facts);
            dirs.extend(s.dirs);
            replays.push(s.replays);
        }
        Snapshots {
            sources,
            log_dirs,
            canonical_log_dirs,
            dir_facts: Arc::new(DirFacts::join(facts)),
            dirs,
            replays: Arc::new(Replays::join(replays)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Snapshot {
        Snapshot {
            format_version: FORMAT_VERSION,
            logclean_version: "logclean test".into(),
            taken_at_ms: 5,
            input: SnapshotInput {
                log_dirs: vec!["/d".into()],
                load: LOAD_DESCRIPTION.into(),
                canonical_log_dirs: vec!["/d".into()],
            },
            broker: BrokerIdentity::default(),
            dir_facts: DirFacts::default(),
            dirs: Vec::new(),
            replays: Replays::default(),
        }
    }

    fn bytes_of(s: &Snapshot) -> Vec<u8> {
        let mut b = Vec::new();
        s.write(&mut b).unwrap();
        b
    }

    #[test]
    fn joined_facts_are_those_one_read_of_all_the_dirs_gives() {
        use crate::model::cluster::FileRole::{MetaProperties, MetadataLog};
        use crate::model::problem::FileProblem;
        let io = |p: &str| FileProblem::Io {
            path: p.into(),
            message: "denied".into(),
        };
        let facts = |dir: &str, problems: Vec<_>, found: bool| DirFacts {
            metas: vec![(dir.into(), None)],
            problems,
            metadata_dir: found.then(|| PathBuf::from(dir).join("__cluster_metadata-0")),
            image: found.then(Default::default),
        };
        let a = facts(
            "/a",
            vec![
                ("/a".into(), MetaProperties, io("/a/meta.properties")),
                ("/a".into(), MetadataLog, io("/a/__cluster_metadata-0")),
            ],
            false,
        );
        let b = facts(
            "/b",
            vec![("/b".into(), MetaProperties, io("/b/meta.properties"))],
            true,
        );
        // Looked for after the metadata log was found: one read never gets there.
        let c = facts(
            "/c",
            vec![("/c".into(), MetadataLog, io("/c/__cluster_metadata-0"))],
            true,
        );
        let j = DirFacts::join([a, b, c]);
        let order: Vec<(&str, _)> = (j.problems.iter())
            .map(|(d, role, _)| (d.to_str().unwrap(), *role))
            .collect();
        assert_eq!(
            order,
            [
                ("/a", MetaProperties),
                ("/b", MetaProperties),
                ("/a", MetadataLog)
            ]
        );
        assert_eq!(j.metas.len(), 3);
        assert_eq!(
            j.metadata_dir,
            Some(PathBuf::from("/b/__cluster_metadata-0"))
        );
        assert!(j.image.is_some());
    }

    #[test]
    fn replays_round_trip_with_keys_that_are_not_text() {
        use crate::model::disk_usage::{DirUsage, FsSpace, UsedEntry};
        use crate::model::groups::{Group, GroupKind};
        use crate::model::replays::DirDisk;
        let mut s = tiny();
        let entry = |c: &[&str], is_dir| UsedEntry {
            path: crate::model::disk_usage::EntryPath::from_text(&c.join("/")),
            is_dir,
            allocated: 4096,
            apparent: 10,
        };
        s.replays.disk.push(DirDisk {
            path: "/d".into(),
            usage: DirUsage {
                path: "/d".into(),
                entries: vec![entry(&[], true), entry(&["orders-0", "00.log"], false)],
                problems: Vec::new(),
            },
            fs: Some(FsSpace {
                free_bytes: 1,
                total_bytes: 2,
            }),
        });
        // A group's offsets are keyed by topic-partition, not text.
        let mut g = Group::new("g", 7);
        g.kind = GroupKind::Classic;
        g.offsets.insert(
            ("orders".into(), 3),
            crate::model::groups::CommittedOffset {
                offset: 42,
                leader_epoch: None,
                metadata: String::new(),
                commit_timestamp_ms: 5,
                expire_timestamp_ms: None,
                record_offset: 9,
                transactional: false,
            },
        );
        s.replays.groups.state.groups.insert("g".into(), g.clone());
        let back = Snapshot::read(bytes_of(&s).as_slice()).unwrap();
        assert_eq!(back.replays.disk, s.replays.disk);
        assert_eq!(back.replays.groups.state.groups.get("g"), Some(&g));
        // Without the disk part: the blocks are skipped, the rest read as before.
        let lean = Snapshot::read_parts(bytes_of(&s).as_slice(), Parts::NO_DISK).unwrap();
        assert!(lean.replays.disk.is_empty());
        assert_eq!(lean.replays.groups.state.groups.get("g"), Some(&g));
        assert_eq!(
            serde_json::to_value(&lean.dirs).unwrap(),
            serde_json::to_value(&back.dirs).unwrap()
        );
        // A replays object without one of its fields is not read as a default.
        let mut v = serde_json::to_value(&s).unwrap();
        v["replays"].as_object_mut().unwrap().remove("share_states");
        let e = Snapshot::from_json(v.to_string().as_bytes()).unwrap_err();
        assert!(e.to_string().contains("share_states"), "{e}");
    }

    #[test]
    fn round_trip() {
        let back = Snapshot::read(bytes_of(&tiny()).as_slice()).unwrap();
        assert_eq!(back.taken_at_ms, 5);
        assert_eq!(back.input.log_dirs, [PathBuf::from("/d")]);
    }

    #[test]
    fn other_versions_are_refused_by_their_version() {
        for (v, says) in [
            (3, "that logclean or a later one"),
            (1, "take the snapshot again"),
        ] {
            let s = Snapshot {
                format_version: v,
                ..tiny()
            };
            let e = Snapshot::read(bytes_of(&s).as_slice()).unwrap_err();
            let text = e.to_string();
            assert!(matches!(e, SnapshotError::Version { found, .. } if found == v));
            assert!(
                text.contains(&format!("version {v} (written by logclean test)")),
                "{text}"
            );
            assert!(
                text.contains("reads version 2 only") && text.contains(says),
                "{text}"
            );
        }
        // A newer snapshot whose body this logclean cannot parse is refused by its version too.
        let newer = br#"{"format_version":3,"logclean_version":"logclean 9.0","dirs":"other"}"#;
        let e = Snapshot::from_json(newer).unwrap_err();
        assert!(
            e.to_string()
                .contains("version 3 (written by logclean 9.0)"),
            "{e}"
        );
        // Read as a stream, it stops at the version: what follows is never parsed, even when
        // it is not JSON at all.
        let newer = b"{\"format_version\":3,\"logclean_version\":\"logclean 9.0\",\"dirs\":@@@";
        let e = Snapshot::from_json(newer).unwrap_err();
        assert!(matches!(e, SnapshotError::Version { found: 3, .. }), "{e}");
    }

    #[test]
    fn what_is_not_a_snapshot_is_said() {
        for junk in [&b"plain text"[..], b"", b"\x1f\x8b\x08\x00garbage"] {
            let e = Snapshot::read(junk).unwrap_err();
            assert!(
                e.to_string().starts_with("not a logclean facts snapshot"),
                "{e}"
            );
        }
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(br#"{"hello":1}"#).unwrap();
        let e = Snapshot::read(gz.finish().unwrap().as_slice()).unwrap_err();
        assert!(e.to_string().contains("format_version"), "{e}");
    }
}
