//! txn_index (being written).
