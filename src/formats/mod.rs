//! Pure parsers: bytes in, typed values or a [`FormatError`] with a byte offset out.
//!
//! Nothing here touches a path, prints, or depends on `model/` and above. The byte layouts follow
//! `shared/spec/kafka-on-disk-formats.md`, which cites the Kafka source file behind each fact.
// Untrusted bytes: no panicking index or unwrap outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::indexing_slicing, clippy::unwrap_used, clippy::expect_used)
)]

pub mod bytes;
pub mod error;

// Record data in `.log` files.
pub mod batch;
pub mod compression;
pub mod control;
pub mod legacy;
pub mod record;
pub mod record_walk;
pub mod verify;
pub mod walk;

// KRaft metadata records.
pub mod metadata_record;

// Tiered storage: `__remote_log_metadata` records.
pub mod remote_log_metadata;

// Coordinator records: `__consumer_offsets`, `__transaction_state` and `__share_group_state`.
pub mod group_record;
pub(crate) mod message_wire;
pub mod share_state_record;
pub mod txn_state_record;

// Indexes.
pub mod offset_index;
pub mod slot_index;
pub mod time_index;
pub mod txn_index;

// Checkpoints and small files.
pub mod checkpoint;
pub mod clean_shutdown;
pub mod leader_epoch;
pub mod meta_properties;
pub mod partition_metadata;
pub mod producer_snapshot;

pub use error::{ErrorKind, FormatError, FormatResult};

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a panic is the failure report
pub(crate) mod module_graph;
