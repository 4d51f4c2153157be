//! `logclean transactions`: the transaction coordinator's state from `__transaction_state`,
//! and per data partition the producer-state replay with its open transactions, the last stable
//! offset they hold, and how long each has been open against `transaction.max.timeout.ms`.
//!
//! Options → [`run_coordinator_command`]: load → [`check_transactions`] → [`TxnBody::new`] →
//! render.

use std::io::Write;

use crate::checks::transactions::check_transactions;
use crate::exit_codes::Outcome;
use crate::report::txn_doc::TxnBody;
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
    let report = |i: &CoordinatorInputs, now| {
        let c = check_transactions(&i.dirs, &i.view, i.mode, now);
        let body = TxnBody::new(
            &c.state,
            c.state_partition_count,
            c.max_timeout_ms,
            &c.partitions,
            &c.verdicts,
        );
        (body, c.findings)
    };
    run_coordinator_command(shared, run, out, report, render_transactions)
}
