//! The private adapter from a loaded partition to [`retention::evaluate`]: the log start the
//! broker's next retention pass leaves. Replaced by `src/plan/` once that lands on main.

use crate::config::{BrokerCleanupConfig, LogConfig};
use crate::model::partition::Partition;
use crate::model::units::{Bytes, Offset, TimestampMs};
use crate::rules::facts::{MaxTimestampSource, SegmentFacts};
use crate::rules::high_watermark::HighWatermark;
use crate::rules::retention::{self, RetentionInput};
use crate::rules::KafkaVersion;

/// The log start after the broker's retention pass at `now_ms` on `p` (topic config `config`),
/// when it moves: the adapter onto [`retention::evaluate`].
pub(super) fn next_log_start(
    p: &Partition,
    config: &LogConfig,
    broker: &BrokerCleanupConfig,
    now_ms: i64,
) -> Option<Offset> {
    let (start, end) = (p.log_start_offset()?, p.log_end_offset()?);
    let segs: Vec<&_> = p.log_segments().collect();
    let mut facts = Vec::new();
    for (i, s) in segs.iter().enumerate() {
        let log = s.log_summary()?;
        let next = segs.get(i + 1).map_or(log.next_offset, |n| n.base_offset);
        facts.push(SegmentFacts {
            base_offset: Offset(s.base_offset),
            next_offset: Offset(next),
            size: Bytes(s.size()),
            max_timestamp: TimestampMs(s.largest_timestamp.map_or(-1, |t| t.0)),
            max_timestamp_source: if s.active || s.recovered_on_start {
                MaxTimestampSource::Recovered
            } else {
                MaxTimestampSource::TimeIndex
            },
            log_mtime: TimestampMs(s.files.log.as_ref()?.mtime_ms.unwrap_or(-1)),
            first_batch_max_timestamp: TimestampMs(
                log.first_batch.as_ref().map_or(-1, |b| b.max_timestamp),
            ),
        });
    }
    let hw = p
        .checkpoints
        .high_watermark
        .unwrap_or(end)
        .clamp(start, end);
    let outcome = retention::evaluate(&RetentionInput {
        segments: &facts,
        log_start_offset: Offset(start),
        log_end_offset: Offset(end),
        high_watermark: HighWatermark::given(Offset(hw)),
        config,
        broker,
        tiered: Default::default(),
        state: Default::default(),
        now: TimestampMs(now_ms),
        version: KafkaVersion::V4_4,
    });
    (outcome.new_log_start_offset.get() > start).then_some(outcome.new_log_start_offset)
}
