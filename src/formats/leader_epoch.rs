//! leader_epoch (being written).
