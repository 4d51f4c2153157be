//! Checks: run the broker's rules over the model and the plan, and produce every finding.
//! Never mutate.
//!
//! One module per domain: the files ([`log_dir`], [`partition`], [`snapshot`], [`segment`],
//! [`index`], [`time_index`], [`txn_index`], [`duplicates`], [`file`], [`lost`]; [`inspect`]
//! composes them), the configs ([`config`], [`config_risk`]), the plan's verdicts ([`plan`],
//! [`active`], [`compaction`], [`timestamps`]), the next start and the disk ([`startup`],
//! [`disk`]), the coordinators ([`groups`], [`transactions`]); [`unreadable`] gathers the inputs a
//! command could not read, [`upgrade`] what changes on upgrading to another release. [`run`] is the one entry point over all of them, from one context.
//! Every finding is built from a kind of the [`catalog`]; [`explain`] words the plan's answers
//! (kind, evidence, sentence) for findings and the plan's document alike.

pub mod active;
pub mod catalog;
pub mod commands;
pub mod compaction;
pub mod config;
pub mod config_risk;
pub mod disk;
pub mod duplicates;
pub mod explain;
pub mod file;
pub mod finding;
pub mod groups;
pub mod index;
pub mod inspect;
pub mod internal_topics;
pub mod location;
pub mod log_dir;
pub mod lost;
pub mod partition;
pub mod plan;
pub mod problems;
pub mod replication;
pub mod run;
pub mod segment;
pub mod snapshot;
pub mod stake;
pub mod startup;
#[cfg(test)]
pub(crate) mod test_support;
pub mod tiered;
pub mod time_index;
pub mod timestamps;
pub mod transactions;
pub mod txn_index;
pub mod unreadable;
pub mod upgrade;
