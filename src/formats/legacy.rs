//! legacy (being written).
