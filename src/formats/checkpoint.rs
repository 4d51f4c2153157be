//! checkpoint (being written).
