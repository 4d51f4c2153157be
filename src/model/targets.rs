//! The targets a command is given (log dirs, partition dirs, segment files), loaded: each log dir
//! once, the selections of targets inside the same log dir merged.
//!
//! [`load_targets`] is what every command that reads log dirs calls (the CLI and
//! [`crate::diagnose`]); it reports progress through [`LoadProgress`], which the caller
//! implements (the CLI draws a bar, a library caller may pass [`NoProgress`]). A target that is a
//! parent of log dirs, not one ([`log_dirs_below`]), is not loaded but returned as a
//! [`NotALogDir`], for the caller to turn into a finding.

use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;

use super::listing::log_dirs_below;
use super::log_dir::{classify_target, load_log_dir, LogDir, Selection, Target};
use super::segment::LoadOptions;

/// What a log-dir scan covered (serialised as the document summary's counts).
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct ScanTotals {
    /// Log dirs read.
    pub log_dirs: usize,
    /// Partition dirs.
    pub partitions: usize,
    /// Segments.
    pub segments: usize,
    /// Bytes of `.log` files.
    pub log_bytes: u64,
}

impl ScanTotals {
    /// What `dirs` hold.
    pub fn of(dirs: &[LogDir]) -> Self {
        ScanTotals {
            log_dirs: dirs.len(),
            partitions: dirs.iter().map(|d| d.partitions.len()).sum(),
            segments: dirs
                .iter()
                .flat_map(|d| &d.partitions)
                .map(|p| p.segments.len())
                .sum(),
            log_bytes: dirs
                .iter()
                .flat_map(|d| &d.partitions)
                .map(|p| p.size().get())
                .sum(),
        }
    }
}

/// Where loading reports its progress: the number of partitions to load, then one call per
/// partition loaded (from the loading threads).
pub trait LoadProgress: Sync {
    /// `n` more partitions will be loaded.
    fn add_length(&self, n: u64);
    /// One partition is loaded.
    fn inc(&self);
    /// Loading is over.
    fn finish(&self);
}

/// Progress nobody watches.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl LoadProgress for NoProgress {
    fn add_length(&self, _: u64) {}
    fn inc(&self) {}
    fn finish(&self) {}
}

/// A target that is no log dir but holds log dirs below it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotALogDir {
    /// The target, canonical.
    pub dir: PathBuf,
    /// The log dirs found below it.
    pub log_dirs_below: Vec<PathBuf>,
}

/// The loaded targets.
#[derive(Debug, Default)]
pub struct LoadedTargets {
    /// One per log dir, in the order the targets named them first.
    pub dirs: Vec<LogDir>,
    /// Targets that were not loaded because they hold log dirs instead of being one.
    pub not_log_dirs: Vec<NotALogDir>,
}

/// Why targets could not be loaded (an operational error, never a finding).
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    /// A target does not exist, cannot be read or is no log dir, partition dir or segment.
    #[error("failed to open `{}`", super::names::path_text(path))]
    Open {
        /// The target as given.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// A log dir could not be listed.
    #[error("failed to read log dir `{}`", super::names::path_text(path))]
    Read {
        /// The log dir.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
}

/// Load every target in `paths` with `opts`, each log dir once: targets inside the same log dir
/// are merged into one selection.
pub fn load_targets(
    paths: &[PathBuf],
    opts: &LoadOptions,
    progress: &dyn LoadProgress,
) -> Result<LoadedTargets, TargetError> {
    let mut by_dir: BTreeMap<PathBuf, Selection> = BTreeMap::new();
    let mut order = Vec::new();
    let mut not_log_dirs = Vec::new();
    for path in paths {
        let target = classify_target(path).map_err(|source| TargetError::Open {
            path: path.clone(),
            source,
        })?;
        if let Target::LogDir(dir) = &target {
            let below = log_dirs_below(dir);
            if !below.is_empty() {
                not_log_dirs.push(NotALogDir {
                    dir: dir.clone(),
                    log_dirs_below: below,
                });
                continue;
            }
        }
        let (log_dir, selection) = target.split();
        let log_dir = log_dir.to_path_buf();
        match by_dir.remove(&log_dir) {
            Some(existing) => by_dir.insert(log_dir, existing.merge(selection)),
            None => {
                order.push(log_dir.clone());
                by_dir.insert(log_dir, selection)
            }
        };
    }
    let mut dirs = Vec::new();
    for log_dir in order {
        let selection = by_dir.remove(&log_dir).unwrap_or_default();
        let count = match &selection.partitions {
            // The dirs by their entries' types (no stat), a link by its target's.
            None => std::fs::read_dir(&log_dir)
                .map(|r| {
                    r.filter_map(Result::ok)
                        .filter(|e| {
                            e.file_type()
                                .is_ok_and(|t| t.is_dir() || (t.is_symlink() && e.path().is_dir()))
                        })
                        .count()
                })
                .unwrap_or(0),
            Some(p) => p.len(),
        };
        progress.add_length(count as u64);
        let dir =
            load_log_dir(&log_dir, &selection, opts, &|| progress.inc()).map_err(|source| {
                TargetError::Read {
                    path: log_dir.clone(),
                    source,
                }
            })?;
        dirs.push(dir);
    }
    progress.finish();
    Ok(LoadedTargets { dirs, not_log_dirs })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;
    use crate::model::file_bytes::ReadMode;
    use crate::model::segment::ScanDepth;

    /// Counts what loading reports.
    #[derive(Default)]
    struct Counted {
        length: AtomicU64,
        done: AtomicU64,
        finished: AtomicU64,
    }

    impl LoadProgress for Counted {
        fn add_length(&self, n: u64) {
            self.length.fetch_add(n, Ordering::Relaxed);
        }
        fn inc(&self) {
            self.done.fetch_add(1, Ordering::Relaxed);
        }
        fn finish(&self) {
            self.finished.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn fixture(rel: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(rel)
    }

    #[test]
    fn a_log_dir_named_twice_loads_once_and_progress_counts_its_partitions() {
        let dir = fixture("basic-delete/logs-0");
        let progress = Counted::default();
        let opts = LoadOptions::uniform(ScanDepth::Headers, ReadMode::Buffered);
        let loaded = load_targets(&[dir.clone(), dir], &opts, &progress).unwrap();
        assert_eq!(loaded.dirs.len(), 1);
        assert!(loaded.not_log_dirs.is_empty());
        let partitions = loaded.dirs[0].partitions.len() as u64;
        assert!(partitions > 0);
        assert_eq!(progress.length.load(Ordering::Relaxed), partitions);
        assert_eq!(progress.done.load(Ordering::Relaxed), partitions);
        assert_eq!(progress.finished.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn a_parent_of_log_dirs_is_not_loaded() {
        let parent = fixture("basic-delete");
        let opts = LoadOptions::uniform(ScanDepth::Headers, ReadMode::Buffered);
        let loaded = load_targets(std::slice::from_ref(&parent), &opts, &NoProgress).unwrap();
        assert!(loaded.dirs.is_empty());
        assert_eq!(loaded.not_log_dirs.len(), 1);
        assert_eq!(loaded.not_log_dirs[0].dir, parent.canonicalize().unwrap());
        assert!(!loaded.not_log_dirs[0].log_dirs_below.is_empty());
    }

    #[test]
    fn a_missing_target_is_an_open_error_naming_it() {
        let missing = fixture("no-such-dir");
        let opts = LoadOptions::uniform(ScanDepth::Headers, ReadMode::Buffered);
        let err = load_targets(std::slice::from_ref(&missing), &opts, &NoProgress).unwrap_err();
        assert!(matches!(err, TargetError::Open { .. }));
        assert_eq!(
            err.to_string(),
            format!(
                "failed to open `{}`",
                crate::model::names::path_text(&missing)
            )
        );
    }
}
