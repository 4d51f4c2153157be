//! Tiered storage (KIP-405) on the leader of a copy-enabled partition: which local segments the
//! remote log manager's copy task uploads, which wait and why, and where remote (total)
//! retention moves the log start. Pure: the remote tier's state comes in as facts
//! ([`crate::model::remote_tier`] replays it from `__remote_log_metadata`).
//!
//! Kafka 4.4.0 (read from the release's `kafka-storage-4.4.0.jar`, `RemoteLogManager.java`):
//! - `RLMCopyTask.copyLogSegmentsToRemote`: `fromOffset = max(copiedOffset + 1,
//!   log.localLogStartOffset())`, where `copiedOffset` is the highest offset in remote storage
//!   (−1 when nothing was copied); candidates are `candidateLogSegments(log, fromOffset,
//!   log.lastStableOffset())`, copied one after another (the task blocks on a hung copy).
//! - `candidateLogSegments`: over `log.logSegments(fromOffset, MAX)` in pairs (segment, next):
//!   a segment is a candidate only if `next.baseOffset <= lastStableOffset` (the active segment
//!   never is); the walk returns at the first segment `isEligibleForUpload` refuses.
//! - `isEligibleForUpload` (KIP-1241): `copyLagMs == 0 || copyLagBytes == 0` → eligible; else
//!   eligible when (`copyLagMs > 0` and `now - largestTimestamp >= copyLagMs`, age ≥ 0) or
//!   (`copyLagBytes > 0` and the bytes of the newer local segments, active included,
//!   `>= copyLagBytes`). `LogConfig.remoteCopyLagMs/Bytes`: −1 → the effective local retention
//!   (`localRetentionMs/Bytes`, itself −2 → the total); default 0 (upload at once).
//! - `RLMExpirationTask` (`RemoteLogRetentionHandler.isSegmentBreachedByRetentionTime`): a remote
//!   segment is past `retention.ms` when `maxTimestampMs < now - retention.ms`; by size while
//!   `remote bytes + only-local bytes - retention.bytes` still covers it; the walk stops at the
//!   first segment kept; the log start becomes the last deleted segment's end offset + 1
//!   (`updateLogStartOffsetFromRemoteTier`), and `UnifiedLog.maybeIncrementLogStartOffset`
//!   raises the local log start with it when remote storage is enabled.

use crate::model::units::{Bytes, Offset, TimestampMs};

use super::facts::SegmentFacts;

/// Why a local segment of a copy-enabled partition is not (yet) in remote storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UploadWait {
    /// Eligible for upload; the copy task has not copied it yet.
    NotCopiedYet,
    /// COPY_SEGMENT_STARTED at `started_at` and no COPY_SEGMENT_FINISHED (a hung or failed
    /// copy, or one in progress).
    CopyNeverFinished {
        /// The event time of COPY_SEGMENT_STARTED.
        started_at: TimestampMs,
    },
    /// Eligible, but the copy task copies in order and is held by an earlier segment's
    /// unfinished copy.
    BehindUnfinishedCopy {
        /// That segment's base offset.
        base_offset: Offset,
        /// When its copy started.
        started_at: TimestampMs,
    },
    /// The RemoteStorageManager threw on its copy: `copyLogSegment` wrote COPY_SEGMENT_STARTED,
    /// the plugin failed, and the broker cleaned the attempt up (DELETE_SEGMENT_STARTED,
    /// FINISHED; "Copy failed, cleaning segment") and retries it on the next task run under a
    /// new segment id. Not a hang: the copy task is not blocked.
    CopyFailed {
        /// Failed attempts recorded.
        attempts: u32,
        /// Event time of the latest attempt's cleanup.
        last_failed_at: TimestampMs,
    },
    /// Eligible, but the copy task copies in order and an earlier segment's copy keeps failing.
    BehindFailedCopy {
        /// That segment's base offset.
        base_offset: Offset,
        /// Its failed attempts.
        attempts: u32,
    },
    /// The next segment starts above the last stable offset (an open transaction or the HW).
    BlockedByLso {
        /// The last stable offset.
        last_stable_offset: Offset,
        /// Whether an open transaction sets it (else the high watermark).
        open_transaction: bool,
    },
    /// `remote.copy.lag.ms` / `remote.copy.lag.bytes` not reached yet (KIP-1241, 4.4).
    CopyLagNotReached {
        /// The effective time lag (`None`: the time check is off).
        lag_ms: Option<i64>,
        /// When the time check passes (`None`: it is off).
        time_eligible_at: Option<TimestampMs>,
        /// The effective size lag (`None`: the size check is off).
        lag_bytes: Option<i64>,
        /// Bytes of the newer local segments now.
        newer_bytes: Bytes,
    },
    /// `remote.log.copy.disable=true`: never uploaded.
    CopyDisabled,
    /// The `__remote_log_metadata` partition that holds this partition was not among the
    /// inputs: whether it is uploaded is unknown.
    Unknown {
        /// That metadata partition.
        metadata_partition: u32,
    },
}

/// A local segment's upload state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UploadState {
    /// Wholly in remote storage (`upperBound - 1 <= highestOffsetInRemoteStorage`).
    Uploaded,
    /// The active segment: never uploaded while active.
    Active,
    /// Not in remote storage, and why.
    Waits(UploadWait),
}

/// What the copy task reads of one partition.
#[derive(Debug, Clone)]
pub struct UploadInput<'a> {
    /// Local segments, oldest first; the last is the active one.
    pub segments: &'a [SegmentFacts],
    /// The log end offset.
    pub log_end_offset: Offset,
    /// The local log start offset.
    pub local_log_start: Offset,
    /// The highest offset in remote storage (`None`: nothing copied, Kafka's −1).
    pub highest_offset: Option<Offset>,
    /// The high watermark assumed.
    pub high_watermark: Offset,
    /// The first offset of the oldest open transaction, if any.
    pub first_unstable_offset: Option<Offset>,
    /// Effective `remote.copy.lag.ms` (after −1 → local retention; −1 then: check off).
    pub copy_lag_ms: i64,
    /// Effective `remote.copy.lag.bytes`.
    pub copy_lag_bytes: i64,
    /// Copies started and never finished: (start offset, started at).
    pub unfinished_copies: &'a [(Offset, TimestampMs)],
    /// Copies the RemoteStorageManager failed and the broker cleaned up: (start offset,
    /// attempts, latest cleanup at).
    pub failed_copies: &'a [(Offset, u32, TimestampMs)],
    /// The evaluation instant.
    pub now: TimestampMs,
}

/// `UnifiedLog.lastStableOffset`: the first unstable offset when below the HW, else the HW.
pub fn last_stable_offset(hw: Offset, first_unstable: Option<Offset>) -> (Offset, bool) {
    match first_unstable {
        Some(u) if u < hw => (u, true),
        _ => (hw, false),
    }
}

/// Effective copy lag (`LogConfig.remoteCopyLagMs/Bytes`): −1 → `local` (the effective local
/// retention, `None` when unlimited), else the value.
pub fn effective_copy_lag(raw: i64, local: Option<i64>) -> i64 {
    if raw == -1 {
        local.unwrap_or(-1)
    } else {
        raw
    }
}

fn lag_wait(input: &UploadInput<'_>, s: &SegmentFacts, newer: Bytes) -> Option<UploadWait> {
    let (ms, bytes) = (input.copy_lag_ms, input.copy_lag_bytes);
    if ms == 0 || bytes == 0 {
        return None;
    }
    let ts = s.largest_timestamp().0;
    let age = (input.now - ts).get();
    let by_time = ms > 0 && age >= 0 && age >= ms;
    let by_size = bytes > 0 && i128::from(newer.get()) >= i128::from(bytes);
    if by_time || by_size {
        return None;
    }
    Some(UploadWait::CopyLagNotReached {
        lag_ms: (ms > 0).then_some(ms),
        time_eligible_at: (ms > 0).then(|| TimestampMs(ts.get().saturating_add(ms))),
        lag_bytes: (bytes > 0).then_some(bytes),
        newer_bytes: newer,
    })
}

/// The upload state of every local segment (same order as `input.segments`), as the copy task
/// sees the partition at `input.now`.
pub fn upload_states(input: &UploadInput<'_>) -> Vec<UploadState> {
    let segs = input.segments;
    let n = segs.len();
    let upper = |i: usize| {
        segs.get(i + 1)
            .map_or(input.log_end_offset, |s| s.base_offset)
    };
    let uploaded = |i: usize| {
        (input.highest_offset).is_some_and(|h| upper(i) > Offset(0) && upper(i).prev() <= h)
    };
    let from = input
        .highest_offset
        .map_or(Offset(0), |h| Offset(h.get().saturating_add(1)))
        .max(input.local_log_start);
    let (lso, open_txn) = last_stable_offset(input.high_watermark, input.first_unstable_offset);
    let total: u64 = segs
        .iter()
        .enumerate()
        .filter(|(i, _)| upper(*i) > from)
        .map(|(_, s)| s.size.get())
        .sum();
    let mut cumulative = 0u64;
    // Once the walk stops, every later segment waits for the same reason.
    let mut stopped: Option<UploadWait> = None;
    let mut unfinished_ahead: Option<(Offset, TimestampMs)> = None;
    let mut failed_ahead: Option<(Offset, u32)> = None;
    let mut out = Vec::with_capacity(n);
    for (i, s) in segs.iter().enumerate() {
        if i + 1 == n {
            out.push(UploadState::Active);
            continue;
        }
        if uploaded(i) {
            out.push(UploadState::Uploaded);
            continue;
        }
        if upper(i) <= from {
            // Below the local log start or the copied offset without being uploaded: the
            // copy task never looks at it again (only the log start can remove it).
            out.push(UploadState::Waits(UploadWait::NotCopiedYet));
            continue;
        }
        cumulative = cumulative.saturating_add(s.size.get());
        if stopped.is_none() {
            if upper(i) > lso {
                stopped = Some(UploadWait::BlockedByLso {
                    last_stable_offset: lso,
                    open_transaction: open_txn,
                });
            } else if let Some(w) = lag_wait(input, s, Bytes(total.saturating_sub(cumulative))) {
                stopped = Some(w);
            }
        }
        if let Some(w) = stopped {
            out.push(UploadState::Waits(w));
            continue;
        }
        let started = (input.unfinished_copies.iter())
            .filter(|(o, _)| *o == s.base_offset)
            .map(|(_, t)| *t)
            .max();
        // Failed attempts name the segment the copy task keeps failing on (a retry in flight
        // at capture is one more attempt of it, not a hang).
        let failed = (input.failed_copies.iter())
            .find(|(o, _, _)| *o == s.base_offset)
            .map(|&(_, n, t)| (n, t));
        let wait = match (unfinished_ahead, failed_ahead, failed, started) {
            (Some((base_offset, started_at)), _, _, _) => UploadWait::BehindUnfinishedCopy {
                base_offset,
                started_at,
            },
            (None, Some((base_offset, attempts)), _, _) => UploadWait::BehindFailedCopy {
                base_offset,
                attempts,
            },
            (None, None, Some((attempts, last_failed_at)), _) => {
                failed_ahead = Some((s.base_offset, attempts));
                UploadWait::CopyFailed {
                    attempts,
                    last_failed_at,
                }
            }
            (None, None, None, Some(started_at)) => {
                unfinished_ahead = Some((s.base_offset, started_at));
                UploadWait::CopyNeverFinished { started_at }
            }
            (None, None, None, None) => UploadWait::NotCopiedYet,
        };
        out.push(UploadState::Waits(wait));
    }
    out
}

/// One remote segment as remote retention reads it (COPY_SEGMENT_FINISHED ones, on the
/// partition's lineage), ascending by start offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RemoteSegmentFacts {
    /// First offset.
    pub start_offset: Offset,
    /// Last offset (inclusive).
    pub end_offset: Offset,
    /// Bytes.
    pub size: Bytes,
    /// Largest record timestamp.
    pub max_timestamp: TimestampMs,
}

/// The log start remote retention leaves at `now` (`None`: it deletes nothing), given
/// `retention.ms` / `retention.bytes` (`None`: unlimited) and the bytes of the local segments
/// not in remote storage (`onlyLocalLogSegmentsSize`).
pub fn remote_retention_log_start(
    remote: &[RemoteSegmentFacts],
    retention_ms: Option<i64>,
    retention_bytes: Option<i64>,
    only_local_bytes: Bytes,
    now: TimestampMs,
) -> Option<Offset> {
    let remote_bytes: u64 = remote.iter().map(|s| s.size.get()).sum();
    let mut breached_size = retention_bytes.map(|limit| {
        i128::from(remote_bytes) + i128::from(only_local_bytes.get()) - i128::from(limit)
    });
    let cleanup_until = retention_ms.map(|ms| now.get().saturating_sub(ms));
    let mut new_start = None;
    for s in remote {
        let by_time = cleanup_until.is_some_and(|u| s.max_timestamp.get() < u);
        let size = i128::from(s.size.get());
        let by_size = breached_size.is_some_and(|b| b - size >= 0);
        if !(by_time || by_size) {
            break;
        }
        if let Some(b) = breached_size.as_mut() {
            *b = (*b - size).max(0);
        }
        new_start = Some(Offset(s.end_offset.get().saturating_add(1)));
    }
    new_start
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::rules::facts::test_support::seg;

    fn input<'a>(segs: &'a [SegmentFacts], copies: &'a [(Offset, TimestampMs)]) -> UploadInput<'a> {
        UploadInput {
            segments: segs,
            log_end_offset: Offset(16),
            local_log_start: Offset(0),
            highest_offset: Some(Offset(3)),
            high_watermark: Offset(16),
            first_unstable_offset: None,
            copy_lag_ms: 0,
            copy_lag_bytes: 0,
            unfinished_copies: copies,
            failed_copies: &[],
            now: TimestampMs(10_000),
        }
    }

    #[test]
    fn the_copy_task_order_and_its_stops() {
        let segs = [
            seg(0, 4, 100, 1000),
            seg(4, 8, 100, 2000),
            seg(8, 12, 100, 3000),
            seg(12, 16, 100, 4000),
        ];
        let copies = [(Offset(4), TimestampMs(5000))];
        let st = upload_states(&input(&segs, &copies));
        assert_eq!(
            st,
            [
                UploadState::Uploaded,
                UploadState::Waits(UploadWait::CopyNeverFinished {
                    started_at: TimestampMs(5000)
                }),
                UploadState::Waits(UploadWait::BehindUnfinishedCopy {
                    base_offset: Offset(4),
                    started_at: TimestampMs(5000)
                }),
                UploadState::Active,
            ]
        );
        // An open transaction at offset 6: segment 4's next base (8) is above the LSO.
        let mut i = input(&segs, &[]);
        i.first_unstable_offset = Some(Offset(6));
        let st = upload_states(&i);
        let lso = UploadState::Waits(UploadWait::BlockedByLso {
            last_stable_offset: Offset(6),
            open_transaction: true,
        });
        assert_eq!(st[1..3], [lso, lso]);
        // Copy lag 7.5 s or 250 bytes: segment 4 (ts 2000) is 8 s old, eligible by time;
        // segment 8 (ts 3000) is 7 s old and has 100 newer bytes: neither, and the walk stops.
        let mut i = input(&segs, &[]);
        (i.copy_lag_ms, i.copy_lag_bytes) = (7_500, 250);
        let st = upload_states(&i);
        assert_eq!(st[1], UploadState::Waits(UploadWait::NotCopiedYet));
        assert!(matches!(
            st[2],
            UploadState::Waits(UploadWait::CopyLagNotReached {
                time_eligible_at: Some(TimestampMs(10_500)),
                newer_bytes: Bytes(100),
                ..
            })
        ));
    }

    #[test]
    fn remote_retention_moves_the_log_start_past_expired_segments() {
        let r = |s: i64, e: i64, ts: i64| RemoteSegmentFacts {
            start_offset: Offset(s),
            end_offset: Offset(e),
            size: Bytes(100),
            max_timestamp: TimestampMs(ts),
        };
        let remote = [r(0, 3, 100), r(4, 7, 200), r(8, 11, 900)];
        let now = TimestampMs(1000);
        assert_eq!(
            remote_retention_log_start(&remote, Some(799), None, Bytes(0), now),
            Some(Offset(8))
        );
        assert_eq!(
            remote_retention_log_start(&remote, Some(900), None, Bytes(0), now),
            None
        );
        // Size: 300 remote + 50 local over a 60-byte limit (290 over): two segments go, the
        // third would take it below the limit (`remainingBreachedSize - size >= 0`).
        assert_eq!(
            remote_retention_log_start(&remote, None, Some(60), Bytes(50), now),
            Some(Offset(8))
        );
        assert_eq!(
            remote_retention_log_start(&remote, None, Some(160), Bytes(50), now),
            Some(Offset(4))
        );
    }
}
