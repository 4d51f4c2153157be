//! Findings of `logclean groups`, from the replayed group state and its rows: offsets behind
//! the log start, data the next retention pass deletes before a group reads it, offsets the
//! coordinator's expiry deletes, groups in the wrong `__consumer_offsets` partition, records
//! that do not decode.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::model::groups::{GroupState, TopicPartition};
use crate::model::units::Offset;
use crate::report::groups_doc::GroupsBody;

use super::catalog;
use super::finding::{EvidenceValue as E, Finding, Location};

/// Where a partition's dir is: the log dir holding it.
pub type DirsByPartition = BTreeMap<TopicPartition, PathBuf>;

fn at(dirs: &DirsByPartition, topic: &str, partition: i32, group: Option<&str>) -> Location {
    Location {
        log_dir: dirs
            .get(&(topic.to_string(), partition))
            .cloned()
            .unwrap_or_default(),
        topic: Some(topic.to_string()),
        partition: Some(partition),
        dir: Some(format!("{topic}-{partition}")),
        group: group.map(str::to_string),
        ..Location::default()
    }
}

/// The findings for `body` evaluated at `now_ms`.
pub fn group_findings(
    state: &GroupState,
    body: &GroupsBody,
    dirs: &DirsByPartition,
    now_ms: i64,
) -> Vec<Finding> {
    const OFFSETS: &str = crate::model::names::CONSUMER_OFFSETS_TOPIC;
    let mut out = Vec::new();
    for b in &state.bad_records {
        out.push(
            Finding::new(
                &catalog::GROUP_BAD_RECORD,
                at(dirs, OFFSETS, b.partition, None),
                format!("record at offset {} does not decode: {}", b.offset, b.error),
            )
            .evidence("offset", E::Offset(b.offset)),
        );
    }
    for g in &body.groups {
        if g.expected_partition
            .is_some_and(|p| p != g.coordinator_partition)
        {
            out.push(
                Finding::new(
                    &catalog::GROUP_WRONG_PARTITION,
                    at(dirs, OFFSETS, g.coordinator_partition, Some(&g.group)),
                    format!(
                        "group `{}` is in partition {} but {} partitions map it to {}",
                        g.group,
                        g.coordinator_partition,
                        body.offsets_topic_partitions,
                        g.expected_partition.unwrap_or_default()
                    ),
                )
                .evidence(
                    "partitions",
                    E::Int(i64::from(body.offsets_topic_partitions)),
                ),
            );
        }
    }
    let mut expiring: BTreeMap<&str, (usize, i64)> = BTreeMap::new();
    for r in &body.rows {
        let loc = || at(dirs, &r.topic, r.partition, Some(&r.group));
        if let Some(start) = r.log_start_offset.filter(|s| r.current_offset < *s) {
            out.push(
                Finding::new(
                    &catalog::GROUP_BEHIND_LOG_START,
                    loc(),
                    format!(
                        "group `{}` is at {} but the log starts at {start}: it resets, skipping {} records with auto.offset.reset=earliest",
                        r.group,
                        r.current_offset,
                        start - r.current_offset
                    ),
                )
                .evidence("committed", E::Offset(r.current_offset))
                .evidence("log_start", E::Offset(start)),
            );
        }
        if let Some(n) = r.next_retention.as_ref().filter(|n| n.skipped > 0) {
            {
                out.push(
                    Finding::new(
                        &catalog::GROUP_LOSES_DATA_NEXT_RETENTION,
                        loc(),
                        format!(
                            "retention deletes up to offset {} by the next pass; group `{}` is at {}: it will be reset to {} (earliest) and skip {} records",
                            n.new_log_start_offset, r.group, r.current_offset, n.new_log_start_offset, n.skipped
                        ),
                    )
                    .evidence("committed", E::Offset(r.current_offset))
                    .evidence("new_log_start", E::Offset(n.new_log_start_offset))
                    .evidence("pass_by", E::TimestampMs(n.by_ms)),
                );
            }
        }
        if let Some(at_ms) = r.expires_at_ms.filter(|t| *t <= now_ms) {
            let e = expiring.entry(r.group.as_str()).or_insert((0, at_ms));
            e.0 += 1;
            e.1 = e.1.max(at_ms);
        }
    }
    // The first group of each name, as a scan of `body.groups` would find it: one look-up per
    // expiring group instead of a walk over every group.
    let mut by_name: BTreeMap<&str, _> = BTreeMap::new();
    for g in &body.groups {
        by_name.entry(g.group.as_str()).or_insert(g);
    }
    for (group, (n, at_ms)) in expiring {
        let Some(g) = by_name.get(group) else {
            continue;
        };
        out.push(
            Finding::new(
                &catalog::GROUP_OFFSETS_EXPIRE,
                at(dirs, OFFSETS, g.coordinator_partition, Some(group)),
                format!(
                    "{n} committed offsets of empty group `{group}` are past offsets.retention.minutes ({}): the next expiry check deletes them",
                    body.offsets_retention_minutes
                ),
            )
            .evidence("offsets", E::Count(n as u64))
            .evidence("due", E::TimestampMs(at_ms)),
        );
    }
    out
}

/// The log start offsets the next retention pass leaves, for partitions where it moves
/// (a convenience for callers that have the pass's per-partition answers).
pub fn moved_starts(
    current: &BTreeMap<TopicPartition, i64>,
    after: impl IntoIterator<Item = (TopicPartition, Offset)>,
) -> BTreeMap<TopicPartition, Offset> {
    after
        .into_iter()
        .filter(|(tp, o)| current.get(tp).is_none_or(|c| o.get() > *c))
        .collect()
}
