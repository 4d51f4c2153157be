//! offset_index (being written).
