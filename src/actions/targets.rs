//! Which partitions (and segments) of which log dirs a command acts on, checked by the guards,
//! and the index sizing of each from the effective config.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::model::cluster::{ClusterError, ClusterInputs, ClusterView, FileInput};
use crate::model::file_bytes::ReadMode;
use crate::model::log_dir::{classify_target, RootCheckpoints, Target};
use crate::model::names::{
    name_text, parse_partition_dir_name, path_text, PartitionDirState, METADATA_TOPIC,
};

use super::guard::{check_log_dir, check_partition_name, CheckedLogDir};
use super::rebuild_index::IndexSizing;
use super::ActionError;

/// One partition to act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionTarget {
    /// The partition dir's name. Only a name [`check_partition_name`] passes gets here: ASCII,
    /// so the text is the name on disk and [`LogDirTarget::path_of`] finds the dir.
    pub dir: String,
    /// Only these segments (`None`: all).
    pub segments: Option<Vec<i64>>,
    /// `index.interval.bytes` and `segment.index.bytes` in effect for it.
    pub sizing: IndexSizing,
}

/// A log dir and what to do in it.
#[derive(Debug, Clone)]
pub struct LogDirTarget {
    /// The checked log dir.
    pub log_dir: CheckedLogDir,
    /// Partitions by name.
    pub partitions: Vec<PartitionTarget>,
    /// What was skipped and why.
    pub notes: Vec<String>,
}

impl LogDirTarget {
    /// A partition's dir.
    pub fn path_of(&self, p: &PartitionTarget) -> PathBuf {
        self.log_dir.path.join(&p.dir)
    }
}

/// Where the effective configs come from.
#[derive(Debug, Clone, Default)]
pub struct ConfigSource {
    /// `--server-properties`.
    pub server_properties: Option<PathBuf>,
    /// `--config` overrides.
    pub overrides: Vec<String>,
    /// `--config-file`.
    pub config_file: Option<PathBuf>,
}

/// The partitions named in one log dir, each with its selected segments (`None`: all).
type Selection = BTreeMap<String, Option<Vec<i64>>>;

/// A checked log dir, its selection and what was skipped.
type CheckedSelection = (CheckedLogDir, Selection, Vec<String>);

/// `paths` grouped by log dir.
struct Grouped {
    /// The selection in each log dir.
    by_dir: BTreeMap<PathBuf, Selection>,
    /// The log dirs named whole.
    whole: BTreeMap<PathBuf, bool>,
}

/// `paths` classified and grouped by log dir.
fn group_by_log_dir(paths: &[PathBuf]) -> Result<Grouped, ActionError> {
    let mut by_dir: BTreeMap<PathBuf, Selection> = BTreeMap::new();
    let mut whole: BTreeMap<PathBuf, bool> = BTreeMap::new();
    for p in paths {
        let target = classify_target(p).map_err(|e| ActionError::io(p, e))?;
        match target {
            Target::LogDir(d) => {
                whole.insert(d.clone(), true);
                by_dir.entry(d).or_default();
            }
            Target::Partition { log_dir, dir } => {
                by_dir.entry(log_dir).or_default().insert(dir, None);
            }
            Target::Segment {
                log_dir,
                dir,
                base_offset,
            } => {
                let parts = by_dir.entry(log_dir).or_default();
                if let Some(v) = parts.entry(dir).or_insert_with(|| Some(Vec::new())) {
                    v.push(base_offset);
                }
            }
        }
    }
    Ok(Grouped { by_dir, whole })
}

/// Check each log dir (`lock`: also refuse a held `.lock`) and every partition name; a log dir
/// named whole gets all its partition dirs, those with a name never acted on noted.
fn check_log_dirs(
    by_dir: BTreeMap<PathBuf, Selection>,
    whole: &BTreeMap<PathBuf, bool>,
    lock: bool,
) -> Result<Vec<CheckedSelection>, ActionError> {
    let mut checked_dirs = Vec::new();
    for (dir, mut parts) in by_dir {
        let checked = if lock {
            check_log_dir(&dir)?
        } else {
            check_meta_only(&dir)?
        };
        let mut notes = Vec::new();
        for name in parts.keys() {
            check_partition_name(name)?;
        }
        if whole.contains_key(&dir) {
            let (live, skipped) = partition_dirs(&checked.path)?;
            notes.extend(skipped);
            for name in live {
                if check_partition_name(&name).is_err() {
                    let why = if name == format!("{METADATA_TOPIC}-0") {
                        ": the KRaft metadata log, which logclean never changes"
                    } else {
                        ""
                    };
                    notes.push(format!("{name}: skipped (never acted on){why}"));
                    continue;
                }
                parts.entry(name).or_insert(None);
            }
        }
        checked_dirs.push((checked, parts, notes));
    }
    Ok(checked_dirs)
}

/// One view of all the log dirs: the metadata log in one of them gives the topic configs of
/// all, and a `--config` topic is looked for in all of them.
fn cluster_view(
    checked_dirs: &[CheckedSelection],
    config: &ConfigSource,
) -> Result<ClusterView, ActionError> {
    let view = ClusterView::build(&ClusterInputs {
        log_dirs: checked_dirs
            .iter()
            .map(|(c, _, _)| c.path.clone())
            .collect(),
        server_properties: config.server_properties.clone().map(FileInput::Path),
        overrides: config.overrides.clone(),
        describe_file: config.config_file.clone().map(FileInput::Path),
        read_mode: ReadMode::Buffered,
        ..ClusterInputs::default()
    });
    // A `--config` Kafka would refuse, or configs that cannot be resolved, are refused here,
    // before anything is planned: acting under Kafka's defaults instead would be acting on a
    // guess.
    match view {
        Err(ClusterError::Override(e)) => Err(ActionError::Config(e)),
        Err(e) => Err(ActionError::Refused(format!(
            "configs not resolved: {}; nothing changed",
            error_chain(&e)
        ))),
        Ok(v) => Ok(v),
    }
}

/// Classify `paths`, group them by log dir, check each log dir (`lock`: also refuse a held
/// `.lock`) and every partition name, and look up each partition's index sizing.
pub fn resolve(
    paths: &[PathBuf],
    config: &ConfigSource,
    lock: bool,
) -> Result<Vec<LogDirTarget>, ActionError> {
    let grouped = group_by_log_dir(paths)?;
    let checked_dirs = check_log_dirs(grouped.by_dir, &grouped.whole, lock)?;
    let view = cluster_view(&checked_dirs, config)?;
    // Nothing is changed on a guess: configs that may be defaults in place of the topic's
    // (metadata log), a partition dir or checkpoint that could not be read.
    refuse_unreadable(view.unreadable())?;
    let mut out = Vec::new();
    for (checked, parts, notes) in checked_dirs {
        let checkpoints = RootCheckpoints::read(&checked.path);
        refuse_unreadable((checkpoints.unreadable().into_iter()).map(|u| (u.path, u.message)))?;
        let partitions = parts
            .into_iter()
            .map(|(name, segments)| {
                let config = view
                    .partition_log_config(&checked.path, &name)
                    .unwrap_or_default();
                PartitionTarget {
                    dir: name,
                    segments,
                    sizing: IndexSizing::of(&config),
                }
            })
            .collect();
        out.push(LogDirTarget {
            log_dir: checked,
            partitions,
            notes,
        });
    }
    Ok(out)
}

/// Refuse (nothing changed) when any input was unreadable, naming each path and OS error.
pub fn refuse_unreadable<'a>(
    unreadable: impl IntoIterator<Item = (&'a Path, &'a str)>,
) -> Result<(), ActionError> {
    let listed: Vec<String> = unreadable
        .into_iter()
        .map(|(path, message)| format!("cannot read `{}`: {message}", path_text(path)))
        .collect();
    if listed.is_empty() {
        return Ok(());
    }
    Err(ActionError::Refused(format!(
        "{}; what to change depends on it, nothing changed",
        listed.join("; ")
    )))
}

/// An error and its sources, `: `-separated.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(&format!(": {s}"));
        source = s.source();
    }
    out
}

/// The log-dir checks without the lock (read-only modes).
fn check_meta_only(dir: &Path) -> Result<CheckedLogDir, ActionError> {
    let path = fs::canonicalize(dir).map_err(|e| ActionError::io(dir, e))?;
    if !path.join("meta.properties").is_file() {
        return Err(ActionError::Refused(format!(
            "`{}` has no meta.properties; {}",
            path_text(&path),
            super::guard::NOT_A_LOG_DIR
        )));
    }
    Ok(CheckedLogDir { path })
}

/// The partition-looking dirs of a log dir, by name ([`name_text`]: a name that is not UTF-8 is
/// carried escaped, fails [`check_partition_name`] and is noted as skipped, never opened by a
/// lossy copy of its name).
fn partition_dirs(log_dir: &Path) -> Result<(Vec<String>, Vec<String>), ActionError> {
    let entries = fs::read_dir(log_dir).map_err(|e| ActionError::io(log_dir, e))?;
    let mut out: Vec<String> = Vec::new();
    let mut skipped: Vec<String> = Vec::new();
    for e in entries {
        // An entry that cannot be read may be a partition dir: not skipped.
        let e = e.map_err(|err| ActionError::io(log_dir, err))?;
        let name = name_text(&e.file_name());
        let Some(parsed) = parse_partition_dir_name(&name) else {
            continue;
        };
        // The broker's own dirs in passing are named, with why they are left alone.
        let why = match parsed.state {
            PartitionDirState::Live => None,
            PartitionDirState::Future(_) => Some(
                "the target of a replica move between log dirs (alter-log-dirs); the broker \
                 copies into it and swaps it in",
            ),
            PartitionDirState::Delete(_) => {
                Some("a deleted replica the broker removes after file.delete.delay.ms")
            }
            PartitionDirState::Stray(_) => {
                Some("a stray replica the controller no longer assigns here")
            }
        };
        if let Some(why) = why {
            skipped.push(format!("{name}: skipped: {why}"));
            continue;
        }
        // Symlinked partition dirs count (the broker follows them); writes through them are
        // refused by the write guard when they lead outside the log dir.
        let path = e.path();
        match fs::metadata(&path) {
            Ok(m) if m.is_dir() => out.push(name),
            Ok(_) => {}
            Err(err) => return Err(ActionError::io(&path, err)),
        }
    }
    out.sort();
    skipped.sort();
    Ok((out, skipped))
}
