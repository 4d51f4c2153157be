//! The log-dir model: log dirs → partitions → segments, as the broker sees them.
//!
//! [`listing`] finds files by name; [`load`] parses them read-only with `formats/` and keeps
//! every problem as data for `checks/` to turn into findings.

pub mod cluster;
pub mod coordinators;
pub mod disk_usage;
pub mod file_bytes;
pub mod groups;
pub mod kafka_version;
pub mod listing;
pub mod lock;
pub mod log_dir;
pub mod metadata_log;
pub mod metadata_retention;
pub mod mode;
pub mod names;
pub mod partition;
pub mod problem;
pub mod producer_state;
pub mod records;
pub mod release;
pub mod remote_tier;
pub mod replays;
pub mod replica_join;
pub mod segment;
pub mod share_state;
pub mod snapshot;
pub mod targets;
#[cfg(test)]
pub(crate) mod test_support;
pub mod text;
pub mod txn_state;
pub mod units;
