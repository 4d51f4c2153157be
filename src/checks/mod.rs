//! Checks: run the broker's rules over the model and produce findings. Never mutate.

pub mod config;
pub mod finding;
pub mod inspect;
