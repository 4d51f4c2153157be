//! Findings of `logclean transactions`, from the transaction verdicts
//! ([`crate::rules::transactions`]): hanging transactions (with the exact abort command) and
//! transactions open past their timeout, both holding their partition's last stable offset;
//! partitions that could not be read.
//!
//! [`check_transactions`]: [`replay_transactions`] → [`PartitionFacts`] (with the high
//! watermark the plan assumes) → [`assess`] → [`txn_findings`].

use std::path::PathBuf;

use crate::model::cluster::ClusterView;
use crate::model::coordinators::replay_transactions;
use crate::model::file_bytes::ReadMode;
use crate::model::log_dir::LogDir;
use crate::model::names::TRANSACTION_STATE_TOPIC;
use crate::model::replica_join::ReplicaJoin;
use crate::model::txn_state::TxnState;
use crate::plan::adapter::replica_high_watermark;
use crate::rules::transactions::{assess, PartitionFacts, TxnFacts, TxnVerdict, TxnVerdicts};

use super::catalog;
use super::finding::{EvidenceValue as E, Finding, Location};
use super::groups::unreadable;

/// The transaction coordinator's view of loaded dirs: its state, the data partitions with
/// producers, the verdicts on them, and their findings.
#[derive(Debug)]
pub struct TxnChecked {
    /// The coordinator's state from `__transaction_state`.
    pub state: TxnState,
    /// `__transaction_state`'s partition count in the metadata log (`None`: unknown).
    pub state_partition_count: Option<usize>,
    /// `transaction.max.timeout.ms`.
    pub max_timeout_ms: i64,
    /// The data partitions with producers.
    pub partitions: Vec<PartitionFacts>,
    /// The verdicts.
    pub verdicts: TxnVerdicts,
    /// The findings.
    pub findings: Vec<Finding>,
}

/// The transactions of loaded `dirs` at `now` (`logclean transactions` and `logclean
/// diagnose`).
pub fn check_transactions(
    dirs: &[LogDir],
    view: &ClusterView,
    mode: ReadMode,
    now: i64,
) -> TxnChecked {
    let replay = replay_transactions(dirs, view.records(mode));
    // Joined only when some transaction state partition needs it (most dirs hold none).
    let join = std::cell::OnceCell::new();
    let partitions: Vec<PartitionFacts> = (replay.partitions.into_iter())
        .map(|r| PartitionFacts {
            // The HW the plan assumes (role from the metadata image), so that both say the
            // same of one partition.
            high_watermark: replica_high_watermark(
                view,
                join.get_or_init(|| ReplicaJoin::of(view, dirs)),
                r.log_dir,
                r.partition,
            )
            .map(|(hw, _)| hw.value.get()),
            log_end_offset: r.partition.log_end_offset().map(|o| o.get()),
            tp: r.tp,
            replay: r.replay,
        })
        .collect();
    let state_partition_count = view
        .topics
        .get(TRANSACTION_STATE_TOPIC)
        .and_then(|t| t.partition_count);
    let max_timeout_ms = i64::from(view.broker_config.transaction_max_timeout_ms);
    let verdicts = assess(
        &partitions,
        &TxnFacts {
            state: &replay.state,
            state_partition_count,
            max_timeout_ms,
            now_ms: now,
        },
    );
    let mut findings = txn_findings(&verdicts, max_timeout_ms, |t, p| {
        (replay.log_dirs.get(&(t.to_string(), p)).cloned()).unwrap_or_default()
    });
    findings.extend(replay.unreadable.iter().map(unreadable));
    TxnChecked {
        state: replay.state,
        state_partition_count,
        max_timeout_ms,
        partitions,
        verdicts,
        findings,
    }
}

/// The findings of `verdicts`; `log_dir_of` names the log dir holding a partition.
pub fn txn_findings(
    verdicts: &TxnVerdicts,
    max_timeout_ms: i64,
    log_dir_of: impl Fn(&str, i32) -> PathBuf,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for v in &verdicts.open {
        let kind = match v.verdict {
            TxnVerdict::Hanging => &catalog::TXN_HANGING,
            TxnVerdict::OpenLong => &catalog::TXN_OPEN_LONG,
            TxnVerdict::Open => continue,
        };
        let (topic, partition) = (&v.tp.0, v.tp.1);
        let t = &v.txn;
        let loc = Location {
            log_dir: log_dir_of(topic, partition),
            topic: Some(topic.clone()),
            partition: Some(partition),
            dir: Some(format!("{topic}-{partition}")),
            ..Location::default()
        };
        let who = v.transactional_id.as_deref().map_or_else(
            || format!("producer {}", t.producer_id),
            |id| format!("`{id}` (producer {})", t.producer_id),
        );
        let mut f = Finding::new(
            kind,
            loc,
            format!(
                "{who} has had a transaction open from offset {} for {} min since its last batch (transaction.max.timeout.ms {} min): the last stable offset stays at {}",
                t.first_offset,
                v.age_ms / 60_000,
                max_timeout_ms / 60_000,
                t.first_offset
            ),
        )
        .evidence("producer_id", E::Int(t.producer_id))
        .evidence("first_offset", E::Offset(t.first_offset))
        .evidence("last_timestamp", E::TimestampMs(t.last_timestamp_ms));
        if let Some(cmd) = &v.abort_command {
            f = f.fix(cmd.clone());
        }
        out.push(f);
    }
    out
}
