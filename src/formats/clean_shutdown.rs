//! clean_shutdown (being written).
