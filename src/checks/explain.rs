//! Each answer of the plan (a retain reason, the HW assumed, a cleaner blocker, a note) as a
//! stable kind name, typed evidence (the same [`Evidence`] findings carry) and one plain
//! sentence with its numbers. The plan exposes the facts; checks build the evidence from them,
//! for their findings ([`super::plan`]) and for the plan's document (`report::plan_doc`).

use crate::model::units::{Bytes, Offset, TimestampMs};
use crate::plan::{Blocker, EpochTruncation, Note};
use crate::rules::follower::FollowerStart;
use crate::rules::high_watermark::{CheckpointAdjustment, HighWatermark, HwBasis};
use crate::rules::retention::{Pass, RetainReason};
use crate::rules::tiered::{UploadState, UploadWait};

use super::finding::{Evidence, EvidenceValue};

pub use crate::model::text::{segment_name, utc};

/// A typed explanation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    /// Stable `snake_case` kind.
    pub kind: &'static str,
    /// The numbers behind it.
    pub evidence: Vec<Evidence>,
    /// One sentence.
    pub text: String,
}

fn ev(name: &'static str, value: EvidenceValue) -> Evidence {
    Evidence { name, value }
}

/// The name of a pass on the wire and in tables.
pub fn pass_name(p: Pass) -> &'static str {
    match p {
        Pass::LogStartOffset => "log_start_offset",
        Pass::Size => "size",
        Pass::Time => "time",
    }
}

/// A segment the cleaner merges into the segment at `into` before retention runs; `fate` is
/// that cleaned segment's verdict in words (`deleted by the time pass`, `kept`).
pub fn merged_by_cleaner(into: Offset, fate: &str) -> Explanation {
    Explanation {
        kind: "merged_by_cleaner",
        evidence: vec![ev("merged_into", EvidenceValue::Offset(into.get()))],
        text: format!(
            "merged by the cleaner into segment {} before retention runs; {fate} with it",
            into.get()
        ),
    }
}

/// Why a segment is kept. `log_end` tells "next base" from "log end" in the HW gate.
pub fn retain_reason(r: &RetainReason, log_end: Offset, policy: &str) -> Explanation {
    use EvidenceValue::{Offset as O, Text, TimestampMs as T};
    let (kind, evidence, text) = match *r {
        RetainReason::HwBelowUpperBound { hw, upper_bound } => {
            hw_below(hw.value, upper_bound, log_end)
        }
        RetainReason::EmptyActive => {
            plain("empty_active", "the empty last segment is never deleted")
        }
        RetainReason::NotUploaded {
            upper_bound,
            highest_remote,
            wait,
        } => not_uploaded(upper_bound, highest_remote, wait),
        RetainReason::UploadUnknown {
            upper_bound,
            metadata_partition,
        } => (
            "upload_unknown",
            std::iter::once(ev("upper_bound", O(upper_bound.get())))
                .chain(
                    metadata_partition
                        .map(|n| ev("metadata_partition", EvidenceValue::Count(u64::from(n)))),
                )
                .collect(),
            match metadata_partition {
                Some(n) => format!(
                    "tiered: upload state unknown (__remote_log_metadata-{n} not given); not \
                     taken for uploaded"
                ),
                None => "tiered: upload state unknown; not taken for uploaded".to_string(),
            },
        ),
        RetainReason::RolledForUpload => plain(
            "rolled_for_upload",
            "tiered: the broker rolls it for upload and deletes it on a later run",
        ),
        RetainReason::NotBelowLogStart {
            log_start,
            next_base,
        } => not_below_log_start(log_start, next_base),
        RetainReason::WithinSize {
            remaining_if_deleted,
            limit,
        } => within_size(remaining_if_deleted, limit),
        RetainReason::NotExpired {
            largest_timestamp,
            expires_at,
        } => not_expired(largest_timestamp, expires_at),
        RetainReason::FutureTimestamp { ts, expires_at } => (
            "future_timestamp",
            vec![
                ev("largest_timestamp", T(ts.get())),
                ev("expires_at", T(expires_at.get())),
            ],
            format!("largest timestamp {} is in the future", utc(ts)),
        ),
        RetainReason::BlockedBehind { base_offset } => (
            "blocked_behind",
            vec![ev("blocking_segment", O(base_offset.get()))],
            format!("blocked behind {}", segment_name(base_offset)),
        ),
        RetainReason::NoLimit { pass } => (
            "no_limit",
            vec![ev("pass", Text(pass_name(pass).to_string()))],
            format!("the {} pass has no limit (-1)", pass_name(pass)),
        ),
        RetainReason::RetentionUnlimited => plain(
            "retention_unlimited",
            "retention.ms and retention.bytes are both -1",
        ),
        RetainReason::PolicyWithoutDelete { .. } => (
            "policy_without_delete",
            vec![ev("cleanup_policy", Text(policy.to_string()))],
            format!(
                "policy is {}: retention.ms/bytes do not apply (only the log start deletes)",
                if policy.is_empty() { "empty" } else { policy }
            ),
        ),
        RetainReason::NoRetentionThread {
            cleaner_enabled,
            cleaner_threads,
        } => no_retention_thread(cleaner_enabled, cleaner_threads, policy),
        RetainReason::Paused => plain(
            "paused",
            "the log is paused (a -future dir exists: an intra-broker move)",
        ),
        RetainReason::Uncleanable => plain(
            "uncleanable",
            "the log is marked uncleanable until the broker restarts",
        ),
    };
    Explanation {
        kind,
        evidence,
        text,
    }
}

/// A reason's kind, evidence and sentence.
type Parts = (&'static str, Vec<Evidence>, String);

/// A reason without numbers.
fn plain(kind: &'static str, text: &str) -> Parts {
    (kind, Vec::new(), text.to_string())
}

fn not_uploaded(
    upper_bound: Offset,
    highest_remote: Option<Offset>,
    wait: Option<UploadWait>,
) -> Parts {
    use EvidenceValue::Offset as O;
    let mut evidence = vec![
        ev("upper_bound", O(upper_bound.get())),
        ev(
            "highest_remote_offset",
            O(highest_remote.map_or(-1, Offset::get)),
        ),
    ];
    let why = match wait {
        Some(w) => {
            let e = upload_wait(w);
            evidence.extend(e.evidence);
            e.text
        }
        None => "not yet uploaded to remote storage".to_string(),
    };
    (
        "not_uploaded",
        evidence,
        format!("tiered: waits for upload: {why}"),
    )
}

/// A segment's upload state.
pub fn upload_state(u: UploadState) -> Explanation {
    match u {
        UploadState::Uploaded => {
            let (kind, evidence, text) = plain("uploaded", "in remote storage");
            Explanation {
                kind,
                evidence,
                text,
            }
        }
        UploadState::Active => {
            let (kind, evidence, text) =
                plain("active", "the active segment: uploaded only after it rolls");
            Explanation {
                kind,
                evidence,
                text,
            }
        }
        UploadState::Waits(w) => {
            let e = upload_wait(w);
            Explanation {
                text: format!("waits for upload: {}", e.text),
                ..e
            }
        }
    }
}

/// Why a segment is not in remote storage.
pub fn upload_wait(w: UploadWait) -> Explanation {
    use EvidenceValue::{Bytes as B, Count, Offset as O, TimestampMs as T};
    let (kind, evidence, text) = match w {
        UploadWait::NotCopiedYet => plain("not_copied_yet", "not copied yet"),
        UploadWait::CopyNeverFinished { started_at } => (
            "copy_never_finished",
            vec![ev("copy_started_at", T(started_at.get()))],
            format!("copy started at {} and never finished", utc(started_at)),
        ),
        UploadWait::BehindUnfinishedCopy {
            base_offset,
            started_at,
        } => (
            "behind_unfinished_copy",
            vec![
                ev("unfinished_copy_segment", O(base_offset.get())),
                ev("copy_started_at", T(started_at.get())),
            ],
            format!(
                "queued behind the copy of {} (started {}, never finished)",
                segment_name(base_offset),
                utc(started_at)
            ),
        ),
        UploadWait::CopyFailed {
            attempts,
            last_failed_at,
        } => (
            "copy_failed",
            vec![
                ev("failed_attempts", Count(u64::from(attempts))),
                ev("last_failed_at", T(last_failed_at.get())),
            ],
            format!(
                "{attempts} copy attempt(s) failed (the latest cleaned up at {}); retried",
                utc(last_failed_at)
            ),
        ),
        UploadWait::BehindFailedCopy {
            base_offset,
            attempts,
        } => (
            "behind_failed_copy",
            vec![
                ev("failing_copy_segment", O(base_offset.get())),
                ev("failed_attempts", Count(u64::from(attempts))),
            ],
            format!(
                "queued behind the copy of {}, which failed {attempts} time(s)",
                segment_name(base_offset)
            ),
        ),
        UploadWait::BlockedByLso {
            last_stable_offset,
            open_transaction,
        } => (
            "blocked_by_lso",
            vec![ev("last_stable_offset", O(last_stable_offset.get()))],
            format!(
                "blocked by the last stable offset {last_stable_offset}{}",
                if open_transaction {
                    " (an open transaction)"
                } else {
                    " (the high watermark)"
                }
            ),
        ),
        UploadWait::CopyLagNotReached {
            lag_ms,
            time_eligible_at,
            lag_bytes,
            newer_bytes,
        } => {
            let mut e = vec![ev("newer_local_bytes", B(newer_bytes.get()))];
            e.extend(
                lag_ms.map(|m| ev("remote_copy_lag_ms", Count(u64::try_from(m).unwrap_or(0)))),
            );
            e.extend(time_eligible_at.map(|t| ev("time_eligible_at", T(t.get()))));
            e.extend(
                lag_bytes.map(|b| ev("remote_copy_lag_bytes", B(u64::try_from(b).unwrap_or(0)))),
            );
            let mut parts = Vec::new();
            if let (Some(m), Some(t)) = (lag_ms, time_eligible_at) {
                parts.push(format!("remote.copy.lag.ms={m} reached at {}", utc(t)));
            }
            if let Some(b) = lag_bytes {
                parts.push(format!(
                    "remote.copy.lag.bytes={b} with {} newer bytes",
                    newer_bytes.get()
                ));
            }
            (
                "copy_lag_not_reached",
                e,
                format!("copy lag not reached ({})", parts.join("; ")),
            )
        }
        UploadWait::CopyDisabled => plain(
            "copy_disabled",
            "remote.log.copy.disable=true: never uploaded (total retention applies locally)",
        ),
        UploadWait::Unknown { metadata_partition } => (
            "upload_unknown",
            vec![ev(
                "metadata_partition",
                Count(u64::from(metadata_partition)),
            )],
            format!("unknown: __remote_log_metadata-{metadata_partition} not given"),
        ),
    };
    Explanation {
        kind,
        evidence,
        text,
    }
}

fn hw_below(hw: Offset, upper_bound: Offset, log_end: Offset) -> Parts {
    let what = if upper_bound == log_end {
        "log end"
    } else {
        "next base"
    };
    (
        "hw_below_upper_bound",
        vec![
            ev("high_watermark", EvidenceValue::Offset(hw.get())),
            ev("upper_bound", EvidenceValue::Offset(upper_bound.get())),
        ],
        format!("HW {hw} < {what} {upper_bound}"),
    )
}

fn not_below_log_start(log_start: Offset, next_base: Option<Offset>) -> Parts {
    use EvidenceValue::Offset as O;
    (
        "not_below_log_start",
        std::iter::once(ev("log_start_offset", O(log_start.get())))
            .chain(next_base.map(|n| ev("next_base_offset", O(n.get()))))
            .collect(),
        match next_base {
            Some(n) => format!("next base {n} > log start {log_start}"),
            None => format!("last segment; log start {log_start}"),
        },
    )
}

fn within_size(remaining_if_deleted: Bytes, limit: Bytes) -> Parts {
    (
        "within_size",
        vec![
            ev(
                "remaining_if_deleted",
                EvidenceValue::Bytes(remaining_if_deleted.get()),
            ),
            ev("retention_bytes", EvidenceValue::Bytes(limit.get())),
        ],
        format!(
            "deleting it would leave {} B < retention.bytes {} B",
            remaining_if_deleted.get(),
            limit.get()
        ),
    )
}

fn not_expired(largest_timestamp: TimestampMs, expires_at: TimestampMs) -> Parts {
    (
        "not_expired",
        vec![
            ev(
                "largest_timestamp",
                EvidenceValue::TimestampMs(largest_timestamp.get()),
            ),
            ev("expires_at", EvidenceValue::TimestampMs(expires_at.get())),
        ],
        format!(
            "largest timestamp {} expires at {}",
            utc(largest_timestamp),
            utc(expires_at)
        ),
    )
}

fn no_retention_thread(cleaner_enabled: bool, cleaner_threads: i32, policy: &str) -> Parts {
    (
        "no_retention_thread",
        vec![
            ev("log_cleaner_enable", EvidenceValue::Flag(cleaner_enabled)),
            ev(
                "log_cleaner_threads",
                EvidenceValue::Int(i64::from(cleaner_threads)),
            ),
        ],
        if cleaner_enabled {
            format!(
                "policy is {policy}: only the cleaner thread deletes here, and \
                 log.cleaner.threads={cleaner_threads}"
            )
        } else {
            format!(
                "policy is {policy}: only the cleaner thread deletes here, and \
                 log.cleaner.enable=false"
            )
        },
    )
}

/// Which HW an answer assumed, and why.
pub fn high_watermark(hw: &HighWatermark, role_source: &str) -> Explanation {
    use EvidenceValue::{Int, Offset as O, Text};
    let (kind, why) = match hw.basis {
        HwBasis::LeaderLogEnd if role_source == "restart_election_assumed" => (
            "leader_log_end",
            "no leader in the metadata log: assumed elected on restart (the first of the ISR, \
             else the ELR, in assignment order), alone in its ISR: HW rises to the log end at once",
        ),
        HwBasis::LeaderUnderMinIsr { .. } if role_source == "restart_election_assumed" => (
            "leader_under_min_isr",
            "no leader in the metadata log: assumed elected on restart (the first of the ISR, \
             else the ELR, in assignment order), alone under min.insync.replicas: HW stays at \
             the checkpoint",
        ),
        HwBasis::FollowerFromLeader { .. } if role_source == "restart_election_assumed" => (
            "follower_from_leader",
            "follower of the replica assumed elected on restart (no leader in the metadata log: \
             the first of the ISR, else the ELR, in assignment order): that leader's HW, from \
             its dirs",
        ),
        HwBasis::LeaderLogEnd => (
            "leader_log_end",
            "sole leader in its ISR (metadata log): HW rises to the log end at once",
        ),
        HwBasis::LeaderUnderMinIsr { .. } => (
            "leader_under_min_isr",
            "sole leader under min.insync.replicas: HW stays at the checkpoint",
        ),
        HwBasis::CheckpointAwaitingFollowers => (
            "checkpoint_awaiting_followers",
            "leader with followers in its ISR: HW stays at the checkpoint until they fetch",
        ),
        HwBasis::FollowerFromLeader { .. } => (
            "follower_from_leader",
            "follower: the leader's HW, from the leader's dirs",
        ),
        HwBasis::FollowerCheckpointAssumed if role_source == "leader_dirs_not_given" => (
            "follower_checkpoint_assumed",
            "follower, the leader's dirs not given: the checkpoint, assumed",
        ),
        HwBasis::FollowerCheckpointAssumed => (
            "follower_checkpoint_assumed",
            "follower, leader's HW unknown: the checkpoint, assumed",
        ),
        HwBasis::CheckpointAssumed if role_source == "zookeeper_mode" => (
            "checkpoint_assumed",
            "ZooKeeper-mode dir, role unknown: the checkpoint, assumed",
        ),
        HwBasis::CheckpointAssumed if role_source == "no_leader_in_metadata" => (
            "checkpoint_assumed",
            "no leader in the metadata log (the next is elected on restart): the checkpoint, \
             assumed",
        ),
        HwBasis::CheckpointAssumed => (
            "checkpoint_assumed",
            "role not in the metadata log: the checkpoint, assumed",
        ),
        HwBasis::Given => ("given", "given"),
        HwBasis::NotInitialised => (
            "not_initialised",
            "not assigned to this broker: HW stays at the log start",
        ),
    };
    let adjusted = match hw.checkpoint {
        CheckpointAdjustment::None => "",
        CheckpointAdjustment::Absent => " (no checkpoint entry)",
        CheckpointAdjustment::RaisedToLogStart => " (checkpoint raised to the log start)",
        CheckpointAdjustment::LoweredToLogEnd => " (checkpoint lowered to the log end)",
    };
    let mut evidence = vec![
        ev("high_watermark", O(hw.value.get())),
        ev("role_source", Text(role_source.to_string())),
    ];
    if let HwBasis::LeaderUnderMinIsr { effective_min_isr } = hw.basis {
        evidence.push(ev("effective_min_isr", Int(i64::from(effective_min_isr))));
    }
    Explanation {
        kind,
        evidence,
        text: format!("HW {}: {why}{adjusted}", hw.value),
    }
}

/// What stops the cleaner.
pub fn blocker(b: &Blocker) -> Explanation {
    use EvidenceValue::{Flag, Int, Offset as O, Text, TimestampMs as T};
    let (kind, evidence, text) = match *b {
        Blocker::CleanerDisabled { enabled, threads } => (
            "cleaner_disabled",
            vec![
                ev("log_cleaner_enable", Flag(enabled)),
                ev("log_cleaner_threads", Int(i64::from(threads))),
            ],
            if enabled {
                format!("log.cleaner.threads={threads}: no cleaner thread runs")
            } else {
                "log.cleaner.enable=false: no cleaner thread runs".to_string()
            },
        ),
        Blocker::Paused => (
            "paused",
            vec![],
            "paused by an intra-broker move (-future dir)".to_string(),
        ),
        Blocker::OpenTransaction {
            first_unstable_offset,
        } => (
            "open_transaction",
            vec![ev("first_unstable_offset", O(first_unstable_offset.get()))],
            format!("open transaction from offset {first_unstable_offset} holds the LSO"),
        ),
        Blocker::HighWatermark { high_watermark } => (
            "high_watermark",
            vec![ev("high_watermark", O(high_watermark.get()))],
            format!("HW {high_watermark} is below the active segment"),
        ),
        Blocker::MinCompactionLag {
            segment_base,
            largest_timestamp,
            lag_ms,
        } => (
            "min_compaction_lag",
            vec![
                ev("segment", O(segment_base.get())),
                ev("largest_timestamp", T(largest_timestamp.get())),
                ev("min_compaction_lag_ms", Int(lag_ms)),
            ],
            format!(
                "segment {} (largest timestamp {}) is younger than min.compaction.lag.ms",
                segment_name(segment_base),
                utc(largest_timestamp)
            ),
        ),
        Blocker::RatioNotAbove { ratio, min_ratio } => (
            "ratio_not_above",
            vec![
                ev("dirty_ratio", Text(format!("{ratio:.3}"))),
                ev("min_cleanable_dirty_ratio", Text(format!("{min_ratio}"))),
            ],
            format!("dirty ratio {ratio:.3} is not above min.cleanable.dirty.ratio {min_ratio}"),
        ),
        Blocker::EmptyLog => ("empty_log", vec![], "nothing to clean".to_string()),
    };
    Explanation {
        kind,
        evidence,
        text,
    }
}

fn cleaned_before_retention(merged: usize, groups: usize, exact: bool) -> Parts {
    use EvidenceValue::Count;
    (
        "cleaned_before_retention",
        vec![
            ev("merged_segments", Count(merged as u64)),
            ev("cleaned_groups", Count(groups as u64)),
            ev("exact", EvidenceValue::Flag(exact)),
        ],
        format!(
            "the cleaner takes this log first and cleans it before its retention pass \
             (same cleaner thread: clean, then delete old segments): {merged} segment(s) \
             merge into {groups} cleaned segment(s), whose largest timestamp is the newest \
             of their members{}",
            if exact {
                ""
            } else {
                " at most; approximate: compaction may drop the records carrying it, the \
                 pass may stop early on a full offset map, and cleaned sizes are at most \
                 their members' sum"
            }
        ),
    )
}

/// A follower's log start against its leader's (`rules::follower`).
fn follower_log_start(case: FollowerStart) -> (&'static str, Vec<Evidence>, String) {
    use EvidenceValue::Offset as O;
    match case {
        FollowerStart::LeaderNotGiven => (
            "follower_leader_not_given",
            vec![],
            "follower: the leader's dirs were not given, so its own log start is assumed; \
             a follower takes the leader's higher log start from fetch responses and deletes \
             below it"
                .to_string(),
        ),
        FollowerStart::Own { leader_log_start } => (
            "follower_own_log_start",
            vec![ev("leader_log_start_offset", O(leader_log_start.get()))],
            format!(
                "follower: the leader's log start after its pass, {leader_log_start}, is not \
                 above this replica's: its own passes decide"
            ),
        ),
        FollowerStart::FollowsLeader { leader_log_start } => (
            "follower_follows_leader_log_start",
            vec![ev("leader_log_start_offset", O(leader_log_start.get()))],
            format!(
                "follower: takes the leader's log start {leader_log_start} from fetch \
                 responses and deletes the segments wholly below it (log start offset \
                 {leader_log_start} breach), not by its own time check"
            ),
        ),
        FollowerStart::TruncatesFully {
            log_end,
            leader_log_start_now,
            leader_log_start,
        } => (
            "follower_truncates_fully",
            vec![
                ev("log_end_offset", O(log_end.get())),
                ev("leader_log_start_offset_now", O(leader_log_start_now.get())),
                ev("leader_log_start_offset", O(leader_log_start.get())),
            ],
            format!(
                "follower: its log end {log_end} is below the leader's log start \
                 {leader_log_start_now}: on its first fetch it truncates fully and restarts \
                 empty at {leader_log_start_now} (every segment goes; no retention pass), then \
                 follows the leader's log start {leader_log_start}"
            ),
        ),
    }
}

/// A follower's truncation on its first fetch (`plan::EpochTruncation`).
fn epoch_truncation(t: EpochTruncation) -> (&'static str, Vec<Evidence>, String) {
    use EvidenceValue::{Count, Flag, Int, Offset as O};
    let lost = t.log_end.get().saturating_sub(t.to.get());
    let leader = t.leader;
    let to = t.to;
    let whose = if t.leader_assumed {
        format!(
            "node {leader}, the leader assumed on restart (no leader in the metadata log; with \
             unclean.leader.election.enable another replica that registers first may lead \
             instead)"
        )
    } else {
        format!("its leader, node {leader}")
    };
    let cut = match t.truncated_segment {
        Some(base) => format!("segment {base} is cut at {to}, "),
        None => String::new(),
    };
    (
        "follower_epoch_truncation",
        vec![
            ev("leader", Int(i64::from(leader))),
            ev("leader_assumed", Flag(t.leader_assumed)),
            ev("log_end_offset", O(t.log_end.get())),
            ev("truncates_to", O(to.get())),
            ev("records_lost", Count(u64::try_from(lost).unwrap_or(0))),
            ev("segments_deleted", Count(t.segments_deleted as u64)),
            ev("leader_log_end_offset", O(t.leader_log_end.get())),
        ],
        format!(
            "follower: holds {lost} record(s) at {to}..{end} that {whose} does not have; on \
             its first fetch it truncates to {to} (UnifiedLog.truncateTo, before any retention \
             pass): {cut}{n} segment(s) above it are deleted and those records are lost; then \
             it refetches {to}..{lend} from the leader (segments at the leader's bases, \
             assumed)",
            end = t.log_end,
            n = t.segments_deleted,
            lend = t.leader_log_end,
        ),
    )
}

/// A note where folklore misleads, or where the answer is approximate.
pub fn note(n: &Note) -> Explanation {
    use EvidenceValue::{Bytes as B, Count, Offset as O, TimestampMs as T};
    let (kind, evidence, text) = match *n {
        Note::OffsetsDoNotHold { new_log_start } => (
            "offsets_do_not_hold",
            vec![ev("new_log_start_offset", O(new_log_start.get()))],
            format!(
                "consumer offsets do not hold segments: a group behind {new_log_start} resets \
                 by auto.offset.reset"
            ),
        ),
        Note::IdleDoesNotRoll {
            active_base,
            due_since,
        } => (
            "idle_does_not_roll",
            vec![
                ev("active_segment", O(active_base.get())),
                ev("due_since", T(due_since.get())),
            ],
            format!(
                "an idle partition does not roll on segment.ms: due since {}, the active segment \
                 rolls only on the next append",
                utc(due_since)
            ),
        ),
        Note::RetentionBytesPerReplica { limit } => (
            "retention_bytes_per_replica",
            vec![ev("retention_bytes", B(limit.get()))],
            format!(
                "retention.bytes={} is per partition replica, not per topic",
                limit.get()
            ),
        ),
        Note::TieredApproximate => (
            "tiered_approximate",
            vec![],
            "tiered storage: the upload state is unknown (the __remote_log_metadata partition \
             holding it was not given): no closed segment is taken for uploaded; each shows \
             what happens if it is"
                .to_string(),
        ),
        Note::RecoversOnStart { segments } => (
            "recovers_on_start",
            vec![ev("segments", Count(segments as u64))],
            format!(
                "the next start recovers {segments} segment(s) first; their largest timestamps \
                 are rebuilt from the batches"
            ),
        ),
        Note::CleanedBeforeRetention {
            merged,
            groups,
            exact,
        } => cleaned_before_retention(merged, groups, exact),
        Note::CleanerOrderUnknown { tied } => (
            "cleaner_order_unknown",
            vec![ev("tied_logs", Count(tied as u64))],
            format!(
                "{tied} logs tie for the highest dirty ratio: whether the cleaner cleans this \
                 one before its retention pass cannot be known from disk; verdicts assume it \
                 does not"
            ),
        ),
        Note::FollowerLogStart(case) => follower_log_start(case),
        Note::EpochTruncation(t) => epoch_truncation(t),
    };
    Explanation {
        kind,
        evidence,
        text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::high_watermark::HighWatermark;

    fn text(r: RetainReason, log_end: i64, policy: &str) -> String {
        retain_reason(&r, Offset(log_end), policy).text
    }

    #[test]
    fn reasons_read_as_the_issue_writes_them() {
        let hw = HighWatermark::given(Offset(1200));
        let gate = RetainReason::HwBelowUpperBound {
            hw,
            upper_bound: Offset(1500),
        };
        assert_eq!(text(gate, 2000, "delete"), "HW 1200 < next base 1500");
        assert_eq!(text(gate, 1500, "delete"), "HW 1200 < log end 1500");
        let future = RetainReason::FutureTimestamp {
            ts: TimestampMs(1_803_859_200_000),
            expires_at: TimestampMs(1_803_945_600_001),
        };
        assert_eq!(
            text(future, 0, "delete"),
            "largest timestamp 2027-03-01 00:00 UTC is in the future"
        );
        let behind = RetainReason::BlockedBehind {
            base_offset: Offset(4711),
        };
        assert_eq!(
            text(behind, 0, "delete"),
            "blocked behind 00000000000000004711"
        );
        let no_thread = RetainReason::NoRetentionThread {
            cleaner_enabled: false,
            cleaner_threads: 1,
        };
        assert_eq!(
            text(no_thread, 0, "compact"),
            "policy is compact: only the cleaner thread deletes here, and log.cleaner.enable=false"
        );
        let size = RetainReason::WithinSize {
            remaining_if_deleted: Bytes(800),
            limit: Bytes(1000),
        };
        let e = retain_reason(&size, Offset(0), "delete");
        assert_eq!(e.kind, "within_size");
        assert_eq!(
            e.evidence,
            vec![
                ev("remaining_if_deleted", EvidenceValue::Bytes(800)),
                ev("retention_bytes", EvidenceValue::Bytes(1000)),
            ]
        );
    }

    #[test]
    fn times_drop_zero_seconds_and_milliseconds() {
        assert_eq!(utc(TimestampMs(0)), "1970-01-01 00:00 UTC");
        assert_eq!(utc(TimestampMs(61_000)), "1970-01-01 00:01:01 UTC");
        assert_eq!(utc(TimestampMs(60_001)), "1970-01-01 00:01:00.001 UTC");
    }

    #[test]
    fn the_hw_says_what_it_assumed() {
        let mut hw = HighWatermark::given(Offset(8));
        hw.basis = HwBasis::CheckpointAssumed;
        let e = high_watermark(&hw, "zookeeper_mode");
        assert_eq!(e.kind, "checkpoint_assumed");
        assert!(e.text.contains("ZooKeeper-mode"), "{}", e.text);
        hw.basis = HwBasis::LeaderLogEnd;
        assert_eq!(high_watermark(&hw, "metadata_image").kind, "leader_log_end");
    }
}
