//! `logclean transactions`: the transaction coordinator's state from `__transaction_state`,
//! and per data partition the producer-state replay with its open transactions, the last stable
//! offset they hold, and how long each has been open against `transaction.max.timeout.ms`.
//!
//! Options → [`run_coordinator_command`]: load → [`transactions_report`] → render.

use std::io::Write;

use crate::coordinators::transactions::transactions_report;
use crate::exit_codes::Outcome;
use crate::report::txn_table::render_transactions;

use super::common::{run_coordinator_command, CoordinatorArgs, CoordinatorInputs};
use super::run_config::RunConfig;
use super::TransactionsArgs;

/// Run `transactions`.
pub fn run(
    args: &TransactionsArgs,
    run: &RunConfig,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let shared = CoordinatorArgs {
        command: "transactions",
        paths: &args.paths,
        server_properties: args.server_properties.as_ref(),
        config_file: args.config_file.as_ref(),
        mmap: args.mmap,
        fail_on: args.fail_on.into(),
    };
    let report = |i: &CoordinatorInputs, now| transactions_report(&i.dirs, &i.view, i.mode, now);
    run_coordinator_command(shared, run, out, report, render_transactions)
}
