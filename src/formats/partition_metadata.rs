//! partition_metadata (being written).
