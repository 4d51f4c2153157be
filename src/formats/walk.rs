//! walk (being written).
