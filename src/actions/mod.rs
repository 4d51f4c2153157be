//! Offline repairs: every mutation is a plan ([`plan::ActionPlan`]), then a dry run, then an
//! apply through a journal (STYLE.md G11–G14, issue 9).
//!
//! - [`guard`]: is this a log dir (meta.properties), is its `.lock` free, does a write stay
//!   inside it, did a file change since planning.
//! - [`fsutil`]: the one durable-write helper and the filesystem seam, with failpoints.
//! - [`plan`]: typed steps and their (idempotent) apply and undo (`report::mutation` renders
//!   them).
//! - [`journal`]: records each step before it is taken, so that `resume` finishes and `undo`
//!   rolls back an interrupted run; [`quarantine`] is where replaced and removed files go.
//! - Commands that build plans: [`rebuild_index`], [`roll`], [`delete`] (a retention plan's
//!   deletions: [`plan::Step::Quarantine`] steps and checkpoint [`plan::Step::WriteFile`]s, run
//!   by [`journal::execute`]; [`delete_run`] is the whole run, refusals and group losses
//!   included); [`run`] plans partitions in parallel and applies each log dir's plan, for
//!   `rebuild-index` and `roll`.
//!
//! `checks/` never depends on this module.

use std::io;
use std::path::{Path, PathBuf};

use crate::exit_codes::Outcome;

pub mod budget;
pub mod delete;
pub mod delete_run;
pub mod free;
pub mod fsutil;
pub mod guard;
pub mod journal;
pub mod listing;
pub mod plan;
pub mod quarantine;
pub mod rebuild_index;
pub mod roll;
pub mod run;
pub mod signals;
pub mod targets;

/// Why an action did not (fully) happen.
#[derive(Debug, thiserror::Error)]
pub enum ActionError {
    /// A safety rule refused the change (held lock, not a log dir, symlink escape, stale plan,
    /// pending journal). Nothing was changed by this run.
    #[error("refused: {0}")]
    Refused(String),
    /// A `--config` override Kafka would refuse (a bad value, an unknown key or topic, a
    /// combination `LogConfig.validate` rejects). Nothing was read-then-changed.
    #[error(transparent)]
    Config(crate::config::ConfigError),
    /// A filesystem call failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or dir.
        path: PathBuf,
        /// The error.
        #[source]
        source: io::Error,
    },
    /// The journal could not be read or is not one logclean wrote.
    #[error("journal {path}: {message}")]
    Journal {
        /// The journal file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// SIGINT arrived: the current step was finished and the journal is resumable.
    #[error(
        "interrupted after {done} of {total} steps; the journal {journal} is resumable: run \
         `logclean resume` or `logclean undo`"
    )]
    Interrupted {
        /// Steps finished.
        done: usize,
        /// Steps in the plan.
        total: usize,
        /// The run's journal file.
        journal: PathBuf,
    },
}

impl ActionError {
    /// An I/O error on `path`.
    pub fn io(path: &Path, source: io::Error) -> ActionError {
        ActionError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// The exit code this error ends the run with.
    pub fn outcome(&self) -> Outcome {
        match self {
            ActionError::Interrupted { .. } => Outcome::Interrupted,
            _ => Outcome::Error,
        }
    }
}
