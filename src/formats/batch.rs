//! batch (being written).
