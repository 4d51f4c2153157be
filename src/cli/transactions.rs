//! `logclean transactions`: the transaction coordinator's state from `__transaction_state`,
//! and per data partition the producer-state replay with its open transactions, the last stable
//! offset they hold, and how long each has been open against `transaction.max.timeout.ms`.
//!
//! Options → [`load_coordinator_inputs`] → [`check_transactions`] → [`TxnBody::new`] →
//! [`write`] ([`render_transactions`]).

use std::io::Write;

use crate::checks::transactions::check_transactions;
use crate::exit_codes::Outcome;
use crate::model::snapshot::Parts;
use crate::report::txn_doc::TxnBody;
use crate::report::txn_table::render_transactions;

use super::common::{
    check_snapshots, coordinator_document, load_coordinator_inputs, with_snapshots, write,
    CoordinatorArgs,
};
use super::run_config::RunConfig;
use super::TransactionsArgs;
use crate::model::snapshot::LOAD_DESCRIPTION;

/// Run `transactions`.
pub fn run(
    args: &TransactionsArgs,
    run: &RunConfig,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let (snaps, run) = with_snapshots(&args.snapshot, run, Parts::NO_DISK)?;
    let run = &run;
    if let Some(s) = &snaps {
        check_snapshots(s, "transactions", LOAD_DESCRIPTION, true)?;
    }
    let (inputs, target_findings) = load_coordinator_inputs(
        CoordinatorArgs {
            paths: &args.paths,
            server_properties: args.server_properties.as_ref(),
            config_file: args.config_file.as_ref(),
        },
        run,
        snaps,
    )?;
    let c = check_transactions(&inputs.dirs, &inputs.view, inputs.mode, run.now.get());
    let body = TxnBody::new(
        &c.state,
        c.state_partition_count,
        c.max_timeout_ms,
        &c.partitions,
        &c.verdicts,
    );
    let report = (body, c.findings);
    let doc = coordinator_document("transactions", &inputs, report, target_findings, run);
    write(run, doc, render_transactions, out)
}
