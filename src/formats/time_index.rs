//! time_index (being written).
