//! producer_snapshot (being written).
