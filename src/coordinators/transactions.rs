//! The transaction coordinator's view: its state from `__transaction_state`, and per data
//! partition the producer-state replay (newest snapshot, then the batches after it) with its open
//! transactions, the last stable offset they hold, and how long each has been open against
//! `transaction.max.timeout.ms`.
//!
//! [`first_live_copies`] → [`replay_txn_state`] and [`replay_producer_state`] (the data
//! partitions in parallel) → [`TxnBody`] → [`txn_findings`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use rayon::prelude::*;

use crate::checks::finding::Finding;
use crate::checks::transactions::txn_findings;
use crate::model::cluster::ClusterView;
use crate::model::file_bytes::ReadMode;
use crate::model::log_dir::LogDir;
use crate::model::names::{CONSUMER_OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC};
use crate::model::producer_state::{replay_producer_state, replay_txn_state, TxnState};
use crate::plan::adapter::replica_high_watermark;
use crate::report::txn_doc::{ReplayedPartition, TxnBody};

use super::{first_live_copies, unreadable};

/// The transactions document and its findings for loaded `dirs` at `now` (`logclean
/// transactions` and `logclean diagnose`).
pub fn transactions_report(
    dirs: &[LogDir],
    view: &ClusterView,
    mode: ReadMode,
    now: i64,
) -> (TxnBody, Vec<Finding>) {
    let copies = first_live_copies(dirs);
    let where_: BTreeMap<(String, i32), PathBuf> = copies
        .iter()
        .filter(|(_, _, n)| n.topic != CONSUMER_OFFSETS_TOPIC)
        .map(|(d, _, n)| ((n.topic.clone(), n.partition), d.path.clone()))
        .collect();
    let mut state = TxnState::default();
    let mut unreadable_files = Vec::new();
    for (d, p, n) in copies
        .iter()
        .filter(|(_, _, n)| n.topic == TRANSACTION_STATE_TOPIC)
    {
        if let Err(e) = replay_txn_state(&mut state, p, n.partition, mode) {
            unreadable_files.push(unreadable(d, p, e.path()));
        }
    }
    // Each data partition's replay reads only its own files: in parallel, collected in the
    // order of `copies` (an indexed map keeps it) so the document does not depend on scheduling.
    // A partition without producers is dropped where it was replayed, not held until the end.
    let data_partitions: Vec<_> = (copies.iter())
        .filter(|(_, _, n)| n.topic != CONSUMER_OFFSETS_TOPIC && n.topic != TRANSACTION_STATE_TOPIC)
        .collect();
    let data: Vec<Option<Result<ReplayedPartition, Finding>>> = data_partitions
        .par_iter()
        .map(
            |&&(d, p, n)| match replay_producer_state(p, d.clean_shutdown.is_some(), mode) {
                Ok(ps) if ps.producers > 0 => {
                    let leo = p.log_end_offset().map(|o| o.get());
                    // The HW the plan assumes (role from the metadata image), so that both
                    // say the same of one partition.
                    let hw = replica_high_watermark(view, d, p).map(|(hw, _)| hw.value.get());
                    Some(Ok(((n.topic.clone(), n.partition), ps, hw, leo)))
                }
                Ok(_) => None,
                Err(e) => Some(Err(unreadable(d, p, e.path()))),
            },
        )
        .collect();
    let mut replayed: Vec<ReplayedPartition> = Vec::new();
    for result in data.into_iter().flatten() {
        match result {
            Ok(r) => replayed.push(r),
            Err(f) => unreadable_files.push(f),
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
    findings.extend(unreadable_files);
    (body, findings)
}
