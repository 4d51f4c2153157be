//! control (being written).
