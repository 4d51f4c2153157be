//! One `deletableSegments` scan and its `deleteSegments`, on the state the passes share.
//! Kafka: `UnifiedLog.deletableSegments`, `isSegmentEligibleForDeletion`, `deleteSegments`,
//! `deleteLogStartOffsetBreachedSegments`, `deleteRetentionSizeBreachedSegments`,
//! `deleteRetentionMsBreachedSegments`. Spec §B3–B5.

use crate::model::units::{Bytes, Offset, TimestampMs};
use crate::rules::facts::SegmentFacts;

use super::policy::{
    copy_enabled, expires_at, older_than, remote_log_enabled, size_limit, time_limit,
};
use super::{Pass, RetainReason, RetentionInput, UploadKnowledge};

/// What one scan found.
struct Scanned {
    /// The deletable prefix of the live segments, each with the time it has been eligible since.
    deletable: Vec<(usize, TimestampMs)>,
    /// The segment that stopped the scan, and why it is kept.
    stopper: Option<(usize, RetainReason)>,
}

/// `out[i]` = the sum of the sizes of `segments[i..]`, with one extra 0 at the end. The sums
/// saturate, as `Bytes`' `Sum` does; saturating sums of non-negative terms are order-independent,
/// so each equals the forward sum over the same segments.
fn suffix_sums(segments: &[SegmentFacts]) -> Vec<Bytes> {
    let mut out = vec![Bytes(0); segments.len() + 1];
    for (i, s) in segments.iter().enumerate().rev() {
        let after = out.get(i + 1).copied().unwrap_or(Bytes(0));
        if let Some(o) = out.get_mut(i) {
            *o = s.size.plus(after);
        }
    }
    out
}

/// The mutable state the passes share (spec §B5: each pass sees what the previous one left).
pub(super) struct Scan<'a> {
    pub(super) input: &'a RetentionInput<'a>,
    /// Index of the first live segment (deletion always removes a prefix).
    pub(super) first: usize,
    pub(super) log_start: Offset,
    pub(super) local_log_start: Offset,
    pub(super) remote: bool,
    pub(super) copy: bool,
    pub(super) rolled_new_active: bool,
    pub(super) rolled_for_upload: bool,
    pub(super) deleted: Vec<Option<(Pass, TimestampMs)>>,
    pub(super) reasons: Vec<Vec<(Pass, RetainReason)>>,
    /// `suffix_bytes[i]`: the bytes of segments `i..`, so each pass's size figures cost one
    /// look-up rather than a walk over the newer segments (linear in segments, not quadratic).
    suffix_bytes: Vec<Bytes>,
}

impl<'a> Scan<'a> {
    /// The state before the first pass.
    pub(super) fn new(input: &'a RetentionInput<'a>) -> Scan<'a> {
        let n = input.segments.len();
        let first_base = input
            .segments
            .first()
            .map_or(input.log_start_offset, |s| s.base_offset);
        // Remote retention's log start (leader's RLMExpirationTask) raises the local one with
        // it (`maybeIncrementLogStartOffset`, remote-enabled).
        let log_start = input
            .log_start_offset
            .max(input.tiered.remote_log_start.unwrap_or(Offset(i64::MIN)));
        Scan {
            input,
            first: 0,
            log_start,
            // UnifiedLog starts the local log start at max(log start, first local base).
            local_log_start: first_base.max(log_start),
            remote: remote_log_enabled(input.config, &input.tiered),
            copy: copy_enabled(input.config, &input.tiered),
            rolled_new_active: false,
            rolled_for_upload: false,
            deleted: vec![None; n],
            reasons: vec![Vec::new(); n],
            suffix_bytes: suffix_sums(input.segments),
        }
    }

    pub(super) fn seg(&self, i: usize) -> Option<&SegmentFacts> {
        self.input.segments.get(i)
    }

    pub(super) fn upper_bound(&self, i: usize) -> Offset {
        self.seg(i + 1)
            .map_or(self.input.log_end_offset, |n| n.base_offset)
    }

    /// `isSegmentEligibleForDeletion`: the tiered upload condition.
    pub(super) fn tiered_eligible(&self, i: usize, upper: Offset) -> bool {
        if !self.copy {
            return true;
        }
        let next = self.seg(i + 1);
        let start_passed = next.is_some_and(|n| self.log_start >= n.base_offset);
        let uploaded = match self.input.tiered.upload {
            UploadKnowledge::Known {
                highest_offset: Some(h),
            } => upper > Offset(0) && upper.prev() <= h,
            UploadKnowledge::Known {
                highest_offset: None,
            }
            | UploadKnowledge::Unknown
            | UploadKnowledge::NotGiven { .. } => false,
            // The what-if of an unknown state: every closed segment uploaded.
            UploadKnowledge::AssumedUploaded => next.is_some(),
        };
        uploaded || start_passed
    }

    /// The pass's predicate on live segment `i`: `Ok(eligible_since)` or the failing reason.
    fn predicate(
        &self,
        pass: Pass,
        i: usize,
        size_diff: &mut i128,
    ) -> Result<TimestampMs, RetainReason> {
        let s = self.seg(i).copied().ok_or(RetainReason::EmptyActive)?;
        let next = self.seg(i + 1);
        let now = self.input.now;
        match pass {
            Pass::LogStartOffset => {
                let l = if self.remote {
                    self.local_log_start
                } else {
                    self.log_start
                };
                match next {
                    Some(n) if n.base_offset <= l => Ok(now),
                    _ => Err(RetainReason::NotBelowLogStart {
                        log_start: l,
                        next_base: next.map(|n| n.base_offset),
                    }),
                }
            }
            Pass::Size => {
                let size = i128::from(s.size.get());
                if *size_diff - size >= 0 {
                    *size_diff -= size;
                    Ok(now)
                } else {
                    let limit = size_limit(self.input.config, &self.input.tiered)
                        .max()
                        .unwrap_or(0);
                    Err(RetainReason::WithinSize {
                        remaining_if_deleted: self.bytes_after(i),
                        limit: Bytes(u64::try_from(limit).unwrap_or(0)),
                    })
                }
            }
            Pass::Time => {
                let m = time_limit(self.input.config, &self.input.tiered)
                    .max()
                    .unwrap_or(i64::MAX);
                let (ts, _) = s.largest_timestamp();
                let at = expires_at(ts, m);
                if older_than(ts, now, m) {
                    Ok(at)
                } else if ts > now {
                    Err(RetainReason::FutureTimestamp { ts, expires_at: at })
                } else {
                    Err(RetainReason::NotExpired {
                        largest_timestamp: ts,
                        expires_at: at,
                    })
                }
            }
        }
    }

    /// The bytes of segments `i..` (0 past the end).
    fn bytes_from(&self, i: usize) -> Bytes {
        self.suffix_bytes.get(i).copied().unwrap_or(Bytes(0))
    }

    fn live_bytes(&self) -> Bytes {
        self.bytes_from(self.first)
    }

    fn bytes_after(&self, i: usize) -> Bytes {
        self.bytes_from(i.saturating_add(1))
    }

    fn retain_all_live(&mut self, pass: Pass, reason: RetainReason) {
        for r in self.reasons.iter_mut().skip(self.first) {
            r.push((pass, reason));
        }
    }

    /// How many bytes the size pass is over its limit (0 for the other passes), or `None` when
    /// the pass retains every live segment without a scan: no limit, or within the size limit.
    fn size_excess(&mut self, pass: Pass) -> Option<i128> {
        match pass {
            Pass::Size => match size_limit(self.input.config, &self.input.tiered).max() {
                None => {
                    self.retain_all_live(pass, RetainReason::NoLimit { pass });
                    None
                }
                Some(r) => {
                    let total = self.live_bytes();
                    if i128::from(total.get()) < i128::from(r) {
                        for i in self.first..self.input.segments.len() {
                            let reason = RetainReason::WithinSize {
                                remaining_if_deleted: self.bytes_after(i),
                                limit: Bytes(u64::try_from(r).unwrap_or(0)),
                            };
                            if let Some(v) = self.reasons.get_mut(i) {
                                v.push((pass, reason));
                            }
                        }
                        return None;
                    }
                    Some(i128::from(total.get()) - i128::from(r))
                }
            },
            Pass::Time => {
                if time_limit(self.input.config, &self.input.tiered)
                    .max()
                    .is_none()
                {
                    self.retain_all_live(pass, RetainReason::NoLimit { pass });
                    return None;
                }
                Some(0)
            }
            Pass::LogStartOffset => Some(0),
        }
    }

    /// Why segment `i` (`s`, the last one when `is_last`, ending at `upper`) is kept although
    /// the pass's predicate says `pred`; `None`: it is deletable.
    fn kept_because(
        &self,
        i: usize,
        s: &SegmentFacts,
        is_last: bool,
        upper: Offset,
        pred: Result<TimestampMs, RetainReason>,
    ) -> Option<RetainReason> {
        if is_last && s.is_empty() {
            return Some(RetainReason::EmptyActive);
        }
        match pred {
            Err(r) => Some(r),
            Ok(_) if !self.tiered_eligible(i, upper) => Some(match self.input.tiered.upload {
                _ if is_last => RetainReason::RolledForUpload,
                UploadKnowledge::Known { highest_offset } => RetainReason::NotUploaded {
                    upper_bound: upper,
                    highest_remote: highest_offset,
                    wait: None,
                },
                UploadKnowledge::NotGiven { metadata_partition } => RetainReason::UploadUnknown {
                    upper_bound: upper,
                    metadata_partition: Some(metadata_partition),
                },
                UploadKnowledge::Unknown | UploadKnowledge::AssumedUploaded => {
                    RetainReason::UploadUnknown {
                        upper_bound: upper,
                        metadata_partition: None,
                    }
                }
            }),
            Ok(_) => None,
        }
    }

    /// The scan proper: the deletable prefix of the live segments (each with the time it has
    /// been eligible since), and the segment that stopped it, with why.
    fn scan(&mut self, pass: Pass, size_diff: &mut i128) -> Scanned {
        let n = self.input.segments.len();
        let hw = self.input.high_watermark;
        let mut deletable: Vec<(usize, TimestampMs)> = Vec::new();
        let mut eligible_since = TimestampMs(i64::MIN);
        for i in self.first..n {
            let Some(s) = self.seg(i).copied() else { break };
            let is_last = i + 1 == n;
            let upper = self.upper_bound(i);
            if hw.value < upper {
                let reason = RetainReason::HwBelowUpperBound {
                    hw,
                    upper_bound: upper,
                };
                return Scanned {
                    deletable,
                    stopper: Some((i, reason)),
                };
            }
            let pred = self.predicate(pass, i, size_diff);
            if pred.is_ok() && self.remote && is_last && !s.is_empty() {
                self.rolled_for_upload = true;
            }
            match (self.kept_because(i, &s, is_last, upper, pred), pred) {
                (None, Ok(since)) => {
                    eligible_since = eligible_since.max(since);
                    deletable.push((i, eligible_since));
                }
                (Some(r), _) | (None, Err(r)) => {
                    return Scanned {
                        deletable,
                        stopper: Some((i, r)),
                    }
                }
            }
        }
        Scanned {
            deletable,
            stopper: None,
        }
    }

    /// The segment `i` that stopped the scan is kept for `r`, every later one behind it.
    fn retain_from(&mut self, pass: Pass, i: usize, r: RetainReason) {
        let base = self.seg(i).map_or(Offset(0), |s| s.base_offset);
        if let Some(v) = self.reasons.get_mut(i) {
            v.push((pass, r));
        }
        for v in self.reasons.iter_mut().skip(i + 1) {
            v.push((pass, RetainReason::BlockedBehind { base_offset: base }));
        }
    }

    /// One `deletableSegments` scan plus `deleteSegments`.
    pub(super) fn run_pass(&mut self, pass: Pass) {
        if self.rolled_new_active {
            return; // only the new empty active segment is left: never deletable
        }
        let Some(mut size_diff) = self.size_excess(pass) else {
            return;
        };
        let scanned = self.scan(pass, &mut size_diff);
        if let Some((i, r)) = scanned.stopper {
            self.retain_from(pass, i, r);
        }
        self.delete(pass, &scanned.deletable);
    }

    /// `deleteSegments`: roll if everything goes, then raise the (local) log start.
    fn delete(&mut self, pass: Pass, deletable: &[(usize, TimestampMs)]) {
        let Some(&(last, _)) = deletable.last() else {
            return;
        };
        for &(i, at) in deletable {
            if let Some(d) = self.deleted.get_mut(i) {
                *d = Some((pass, at));
            }
        }
        let new_start = match self.seg(last + 1) {
            Some(n) => n.base_offset,
            None => {
                self.rolled_new_active = true;
                self.input.log_end_offset
            }
        };
        self.first = last + 1;
        if self.copy {
            self.local_log_start = self.local_log_start.max(new_start);
        } else {
            self.log_start = self.log_start.max(new_start);
            self.local_log_start = self.local_log_start.max(new_start);
        }
    }
}
