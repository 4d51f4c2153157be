//! `logclean transactions`: the transaction coordinator's state from `__transaction_state`,
//! and per data partition the producer-state replay (newest snapshot, then the batches after
//! it) with its open transactions, the last stable offset they hold, and how long each has been
//! open against `transaction.max.timeout.ms`.
//!
//! Options → [`ClusterView::build`] (configs) + [`load_targets`] → [`replay_txn_state`] and
//! [`replay_producer_state`] → [`TxnBody`] → [`txn_findings`] → render.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use crate::checks::catalog;
use crate::checks::finding::Finding;
use crate::checks::inspect::sort_findings;
use crate::checks::location::at_partition;
use crate::checks::transactions::txn_findings;
use crate::exit_codes::Outcome;
use crate::model::cluster::{ClusterInputs, ClusterView, FileInput};
use crate::model::file_bytes::ReadMode;
use crate::model::log_dir::LogDir;
use crate::model::names::{PartitionDirState, CONSUMER_OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC};
use crate::model::producer_state::{replay_producer_state, replay_txn_state, TxnState};
use crate::model::segment::{LoadOptions, ScanDepth};
use crate::report::txn_doc::{ReplayedPartition, TxnBody};
use crate::report::txn_table::render_transactions;
use crate::report::wire::ScanTotals;

use super::common::{load_targets, outcome_of, write_document};
use super::progress::Progress;
use super::run_config::RunConfig;
use super::TransactionsArgs;

/// The transactions document and its findings for loaded `dirs` at `now` (`logclean
/// transactions` and `logclean diagnose`).
pub fn transactions_report(
    dirs: &[LogDir],
    view: &ClusterView,
    mode: ReadMode,
    now: i64,
) -> (TxnBody, Vec<Finding>) {
    let mut state = TxnState::default();
    let mut replayed: Vec<ReplayedPartition> = Vec::new();
    let mut where_: BTreeMap<(String, i32), PathBuf> = BTreeMap::new();
    let mut unreadable = Vec::new();
    for d in dirs {
        for p in &d.partitions {
            let Some(n) = p
                .name
                .as_ref()
                .filter(|n| n.state == PartitionDirState::Live)
            else {
                continue;
            };
            let tp = (n.topic.clone(), n.partition);
            if n.topic == CONSUMER_OFFSETS_TOPIC || where_.contains_key(&tp) {
                continue;
            }
            where_.insert(tp.clone(), d.path.clone());
            let result = if n.topic == TRANSACTION_STATE_TOPIC {
                replay_txn_state(&mut state, p, n.partition, mode)
            } else {
                replay_producer_state(p, mode).map(|ps| {
                    if ps.producers > 0 {
                        let leo = p.log_end_offset().map(|o| o.get());
                        let hw = p.checkpoints.high_watermark.map(|o| o.get()).or(leo);
                        replayed.push((tp, ps, hw, leo));
                    }
                })
            };
            if let Err(e) = result {
                let mut loc = at_partition(d, p);
                loc.file = Some(e.path().to_path_buf());
                unreadable.push(Finding::new(
                    &catalog::FILE_UNREADABLE,
                    loc,
                    "cannot read records",
                ));
            }
        }
    }
    let count = view
        .topics
        .get(TRANSACTION_STATE_TOPIC)
        .and_then(|t| t.partition_count);
    let max_timeout = i64::from(view.broker_config.transaction_max_timeout_ms);
    let body = TxnBody::new(&state, &replayed, count, max_timeout, now);
    let mut findings = txn_findings(&body, |t, p| {
        where_.get(&(t.to_string(), p)).cloned().unwrap_or_default()
    });
    findings.extend(unreadable);
    (body, findings)
}

/// Run `transactions`.
pub fn run(
    args: &TransactionsArgs,
    run: &RunConfig,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let mode = if args.no_mmap {
        ReadMode::Buffered
    } else {
        ReadMode::Mmap
    };
    let view = ClusterView::build(&ClusterInputs {
        log_dirs: args.paths.clone(),
        server_properties: args.server_properties.clone().map(FileInput::Path),
        read_mode: mode,
        ..ClusterInputs::default()
    })?;
    let opts = LoadOptions::tail_with_internal_topics_at(ScanDepth::Headers, mode);
    let progress = Progress::new(run.output.progress, "reading partitions");
    let (dirs, target_findings) = load_targets(&args.paths, &opts, &progress)?;
    let now = run.evaluated_at_ms;
    let (body, mut findings) = transactions_report(&dirs, &view, mode, now);
    findings.extend(target_findings);
    sort_findings(&mut findings);
    let outcome = outcome_of(&findings, args.fail_on);
    write_document(
        "transactions",
        run,
        now,
        body,
        &findings,
        Some(ScanTotals::of(&dirs)),
        outcome,
        out,
        render_transactions,
    )
}
