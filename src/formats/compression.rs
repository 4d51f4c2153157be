//! compression (being written).
