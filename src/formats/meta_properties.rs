//! meta_properties (being written).
