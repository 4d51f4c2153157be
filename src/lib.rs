//! logclean: offline diagnosis of Apache Kafka log cleanup, from the files of a log dir.
//!
//! The modules follow the pipeline: [`formats`] (pure parsers) → `model` (log dir, partition,
//! segment) → rules → checks / plans → report, with mutations apart in `actions`.
#![deny(missing_docs)]

pub mod actions;
pub mod checks;
pub mod cli;
pub mod config;
pub mod diagnose;
pub mod exit_codes;
pub mod formats;
#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a panic is the failure report
mod layering;
pub mod model;
pub mod plan;
pub mod report;
pub mod rules;
