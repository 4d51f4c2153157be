//! The `plan.*` findings of a plan.

use crate::model::text::{segment_name, utc};
use crate::model::units::Offset;
use crate::plan::{Blocker, PartitionPlan, Plan};
use crate::rules::retention::{RetainReason, Verdict};

use super::catalog;
use super::commands;
use super::explain::{high_watermark, retain_reason};
use super::finding::{Evidence, EvidenceValue, Finding};
use super::location::at_plan;

fn ev(name: &'static str, value: EvidenceValue) -> Evidence {
    Evidence { name, value }
}

fn retains_expired(p: &PartitionPlan) -> Option<Finding> {
    let kept: Vec<_> = p.segments.iter().filter(|s| s.retained_expired).collect();
    let first = kept.first()?;
    let Verdict::Retain { reason } = first.verdict else {
        return None;
    };
    let policy = p.config.cleanup_policy.to_string();
    let why = retain_reason(&reason, p.log_end_offset, &policy);
    let bytes: u64 = kept.iter().map(|s| s.size.get()).sum();
    // A verdict on a HW nobody wrote down says so.
    let hw_assumed =
        matches!(reason, RetainReason::HwBelowUpperBound { .. }) && p.high_watermark.is_assumed();
    let assumed = if hw_assumed {
        format!(
            " ({}; the real HW may differ)",
            high_watermark(&p.high_watermark, p.role_source).text
        )
    } else {
        String::new()
    };
    let mut f = Finding::new(
        &catalog::PLAN_RETAINS_EXPIRED,
        at_plan(p, Some(first.base_offset.get())),
        format!(
            "{} expired segment(s), {bytes} B, stay on disk: {}{assumed}",
            kept.len(),
            why.text
        ),
    )
    .evidence("segments", EvidenceValue::Count(kept.len() as u64))
    .evidence("bytes", EvidenceValue::Bytes(bytes))
    .evidence("reason", EvidenceValue::Text(why.kind.to_string()))
    .with_evidence(why.evidence);
    if hw_assumed {
        f = f.evidence("high_watermark_assumed", EvidenceValue::Flag(true));
    }
    // Behind a future-stamped segment the way out is one command, not prose.
    if let RetainReason::BlockedBehind { base_offset } = reason {
        let blocker = p.segments.iter().find(|s| s.base_offset == base_offset);
        let future = blocker.is_some_and(|s| {
            matches!(
                s.verdict,
                Verdict::Retain {
                    reason: RetainReason::FutureTimestamp { .. }
                }
            )
        });
        if future {
            f = f.fix(past_future_segment_fix(
                p,
                base_offset,
                &format!(
                    "the {} expired segment(s) behind it then go in the next retention pass",
                    kept.len()
                ),
            ));
        }
    }
    Some(f)
}

/// The fix for what the future-stamped segment based at `base` in `p` holds back: move the log
/// start past it (the log-start pass ignores timestamps); `then` says what follows.
fn past_future_segment_fix(p: &PartitionPlan, base: Offset, then: &str) -> String {
    let past = p.offset_past(base).get();
    format!(
        "fix the producer's clock; to free the space now, delete the records before offset \
         {past} (the log-start pass ignores timestamps; {then}): `{}`",
        commands::delete_records(&p.topic, p.partition, past)
    )
}

fn future_blocks(p: &PartitionPlan) -> Option<Finding> {
    let (i, s, ts) = p
        .segments
        .iter()
        .enumerate()
        .find_map(|(i, s)| match s.verdict {
            Verdict::Retain {
                reason: RetainReason::FutureTimestamp { ts, .. },
            } => Some((i, s, ts)),
            _ => None,
        })?;
    let behind = p.segments.iter().skip(i + 1).count();
    Some(
        Finding::new(
            &catalog::PLAN_FUTURE_TIMESTAMP_BLOCKS,
            at_plan(p, Some(s.base_offset.get())),
            format!(
                "segment {} has largest timestamp {}, in the future: time retention stops there \
                 and keeps the {behind} newer segment(s)",
                segment_name(s.base_offset),
                utc(ts)
            ),
        )
        .evidence("largest_timestamp", EvidenceValue::TimestampMs(ts.get()))
        .evidence("blocked_segments", EvidenceValue::Count(behind as u64))
        .fix(past_future_segment_fix(
            p,
            s.base_offset,
            &format!(
                "time retention then judges the {behind} newer segment(s) by their own timestamps"
            ),
        )),
    )
}

fn compaction_blocked(p: &PartitionPlan) -> Option<Finding> {
    let c = p.compaction.as_ref()?;
    let (what, evidence): (String, Vec<Evidence>) = match c.blocked_by? {
        Blocker::CleanerDisabled { enabled, threads } => (
            format!(
                "no cleaner thread runs (log.cleaner.enable={enabled}, log.cleaner.threads=\
                 {threads}): nothing is compacted and no retention runs"
            ),
            vec![
                ev("log_cleaner_enable", EvidenceValue::Flag(enabled)),
                ev(
                    "log_cleaner_threads",
                    EvidenceValue::Int(i64::from(threads)),
                ),
            ],
        ),
        Blocker::Paused => (
            "the log is paused by an intra-broker move".to_string(),
            vec![],
        ),
        Blocker::OpenTransaction {
            first_unstable_offset,
        } => (
            format!(
                "an open transaction from offset {first_unstable_offset} holds the last stable \
                 offset: the cleaner stops there"
            ),
            vec![ev(
                "first_unstable_offset",
                EvidenceValue::Offset(first_unstable_offset.get()),
            )],
        ),
        Blocker::HighWatermark { high_watermark } => (
            format!("the HW {high_watermark} is below the active segment: the cleaner stops there"),
            vec![ev(
                "high_watermark",
                EvidenceValue::Offset(high_watermark.get()),
            )],
        ),
        Blocker::MinCompactionLag { .. } | Blocker::RatioNotAbove { .. } | Blocker::EmptyLog => {
            return None
        }
    };
    Some(
        Finding::new(
            &catalog::PLAN_COMPACTION_BLOCKED,
            at_plan(p, None),
            format!("compaction blocked: {what}"),
        )
        .evidence(
            "first_uncleanable_offset",
            EvidenceValue::Offset(c.log.range.first_uncleanable_offset.get()),
        )
        .with_evidence(evidence),
    )
}

/// Every `plan.*` finding of `plan`, in partition order.
pub fn plan_findings(plan: &Plan) -> Vec<Finding> {
    plan.partitions
        .iter()
        .flat_map(|p| [future_blocks(p), retains_expired(p), compaction_blocked(p)])
        .flatten()
        .collect()
}
