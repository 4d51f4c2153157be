//! Findings of `logclean transactions`: hanging transactions (with the exact abort command) and
//! transactions open past their timeout, both holding their partition's last stable offset.

use std::path::PathBuf;

use crate::model::producer_state::TxnVerdict;
use crate::report::txn_doc::TxnBody;

use super::catalog;
use super::finding::{EvidenceValue as E, Finding, Location};

/// The findings for `body`; `log_dir_of` names the log dir holding a partition.
pub fn txn_findings(body: &TxnBody, log_dir_of: impl Fn(&str, i32) -> PathBuf) -> Vec<Finding> {
    let mut out = Vec::new();
    for t in &body.open_transactions {
        let kind = match t.verdict {
            TxnVerdict::Hanging => &catalog::TXN_HANGING,
            TxnVerdict::OpenLong => &catalog::TXN_OPEN_LONG,
            TxnVerdict::Open => continue,
        };
        let loc = Location {
            log_dir: log_dir_of(&t.topic, t.partition),
            topic: Some(t.topic.clone()),
            partition: Some(t.partition),
            dir: Some(format!("{}-{}", t.topic, t.partition)),
            ..Location::default()
        };
        let who = t.transactional_id.as_deref().map_or_else(
            || format!("producer {}", t.producer_id),
            |id| format!("`{id}` (producer {})", t.producer_id),
        );
        let mut f = Finding::new(
            kind,
            loc,
            format!(
                "{who} has had a transaction open from offset {} for {} min since its last batch (transaction.max.timeout.ms {} min): the last stable offset stays at {}",
                t.first_offset,
                t.age_ms / 60_000,
                body.transaction_max_timeout_ms / 60_000,
                t.first_offset
            ),
        )
        .evidence("producer_id", E::Int(t.producer_id))
        .evidence("first_offset", E::Offset(t.first_offset))
        .evidence("last_timestamp", E::TimestampMs(t.last_timestamp_ms));
        if let Some(cmd) = &t.abort_command {
            f = f.fix(cmd.clone());
        }
        out.push(f);
    }
    out
}
