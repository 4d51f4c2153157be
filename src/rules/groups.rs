//! The group coordinator's rules over a replayed `__consumer_offsets` ([`GroupState`]): which
//! partition a group belongs in, when a committed offset expires, and what a group loses when a
//! partition's log start moves past its committed offset (now, or at the next retention pass).
//!
//! Kafka: `GroupCoordinatorService.partitionFor` (`Utils.abs(groupId.hashCode()) %
//! numPartitions`), `OffsetMetadataManager.cleanupExpiredOffsets` with
//! `OffsetExpirationConditionImpl` (`ClassicGroup.offsetExpirationCondition`,
//! `ConsumerGroup.offsetExpirationCondition`; an offset expires when `currentTimestamp -
//! baseTimestamp >= offsets.retention.ms`, or at its explicit expire timestamp), the consumer's
//! `OFFSET_OUT_OF_RANGE` handling with `auto.offset.reset=earliest` (it resumes at the log start),
//! and `LogManager`'s retention task every `log.retention.check.interval.ms` (spec §C1).
//!
//! [`assess`] takes the replayed state and the facts around it ([`GroupFacts`]) to every verdict
//! of `logclean groups`: `checks::groups` turns them into findings, `report::groups_doc` into rows.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::model::groups::{
    CommitKey, CommittedOffset, Group, GroupKind, GroupState, HeldPartition, TopicPartition,
};
use crate::model::names::CONSUMER_OFFSETS_TOPIC;
use crate::model::units::Offset;

/// Java's `String.hashCode` (over UTF-16 code units).
pub fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// The `__consumer_offsets` partition of `group`: Kafka's
/// `Utils.abs(group.hashCode()) % offsets.topic.num.partitions` (`abs(MIN_VALUE)` is 0).
pub fn coordinator_partition(group: &str, num_partitions: i32) -> Option<i32> {
    if num_partitions <= 0 {
        return None;
    }
    let h = java_string_hash(group);
    let abs = if h == i32::MIN { 0 } else { h.abs() };
    Some(abs % num_partitions)
}

/// When the coordinator's offset expiry removes a committed offset, ms (`None`: never while the
/// group stays as it is). Kafka's `OffsetExpirationConditionImpl`: an explicit expire
/// timestamp wins; else `base + offsets.retention.minutes`, where the base is the commit
/// time, or for an empty classic group with a protocol type the time it became empty. Offsets
/// of a topic a consumer-protocol member subscribes to, of a non-empty classic group, and with
/// a pending transactional commit do not expire.
pub fn expires_at_ms(g: &Group, tp: &CommitKey, retention_ms: i64) -> Option<i64> {
    expiry_of(g, tp, g.offsets.get(tp)?, retention_ms)
}

/// [`expires_at_ms`] of `o`, the offset `g` committed for `tp`.
fn expiry_of(g: &Group, tp: &CommitKey, o: &CommittedOffset, retention_ms: i64) -> Option<i64> {
    if g.pending_transactional.contains(tp) {
        return None;
    }
    let base = match g.kind {
        GroupKind::Simple => o.commit_timestamp_ms,
        GroupKind::Classic if g.members.is_empty() => g
            .current_state_timestamp_ms
            .unwrap_or(o.commit_timestamp_ms),
        GroupKind::Classic | GroupKind::Other => return None,
        GroupKind::Consumer if g.subscribed_topics().contains(&*tp.0) => return None,
        GroupKind::Consumer => o.commit_timestamp_ms,
    };
    Some(match o.expire_timestamp_ms {
        Some(at) => at,
        None => base.saturating_add(retention_ms),
    })
}

/// Whether an offset expiring at `expires_at_ms` is gone at the coordinator's expiry check at
/// `now_ms` (`cleanupExpiredOffsets`: `currentTimestamp >= expireTimestamp`).
pub fn is_expired(expires_at_ms: Option<i64>, now_ms: i64) -> bool {
    expires_at_ms.is_some_and(|t| t <= now_ms)
}

/// What a group loses when a partition's log start moves past its committed offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loss {
    /// Group id.
    pub group: String,
    /// The data partition.
    pub tp: TopicPartition,
    /// The committed offset.
    pub committed: i64,
    /// Where a consumer with `auto.offset.reset=earliest` resumes: the new log start.
    pub reset_to: i64,
    /// Records between the two it never reads.
    pub skipped: i64,
}

/// The records a group committed at `committed` skips when the log starts at `log_start`
/// (`None`: it is not behind).
pub fn skipped_below(committed: i64, log_start: i64) -> Option<i64> {
    (committed < log_start).then(|| log_start.saturating_sub(committed))
}

/// `map` keyed by topic name and partition borrowed: looked up by a [`CommitKey`] without a
/// copy of the name.
fn by_name<V>(map: &BTreeMap<TopicPartition, V>) -> HashMap<(&str, i32), &V> {
    map.iter()
        .map(|((t, p), v)| ((t.as_str(), *p), v))
        .collect()
}

/// Every group partition whose committed offset is below the given log start offsets (the
/// current ones, or those a retention plan computes).
pub fn losses(state: &GroupState, log_starts: &BTreeMap<TopicPartition, Offset>) -> Vec<Loss> {
    let log_starts = by_name(log_starts);
    let mut out = Vec::new();
    for g in state.groups.values() {
        for ((topic, partition), o) in &g.offsets {
            let Some(start) = log_starts.get(&(&**topic, *partition)) else {
                continue;
            };
            if let Some(skipped) = skipped_below(o.offset, start.get()) {
                out.push(Loss {
                    group: g.name.to_string(),
                    tp: (topic.to_string(), *partition),
                    committed: o.offset,
                    reset_to: start.get(),
                    skipped,
                });
            }
        }
    }
    out
}

/// The facts around a replayed group state that the verdicts need.
#[derive(Debug, Clone, Default)]
pub struct GroupFacts {
    /// The data partitions held, by topic partition.
    pub held: BTreeMap<TopicPartition, HeldPartition>,
    /// The log starts after the next retention pass, for partitions where it moves.
    pub next_log_starts: BTreeMap<TopicPartition, Offset>,
    /// Partition counts from the metadata log.
    pub topic_partitions: BTreeMap<String, usize>,
    /// `offsets.retention.minutes`.
    pub offsets_retention_minutes: i32,
    /// The mapping's partition count (`__consumer_offsets` in the metadata log, else
    /// `offsets.topic.num.partitions`).
    pub offsets_topic_partitions: i32,
    /// The evaluation instant, ms.
    pub now_ms: i64,
    /// The next retention pass runs by then: `now` + `log.retention.check.interval.ms`.
    pub next_pass_by_ms: i64,
    /// Only this group (`--group`).
    pub group: Option<String>,
    /// Only this topic's offsets (`--topic`).
    pub topic: Option<String>,
}

/// The verdicts on one group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupVerdict {
    /// Group id.
    pub group: Arc<str>,
    /// The `__consumer_offsets` partition holding it.
    pub coordinator_partition: i32,
    /// The partition the mapping gives; `None` without `__consumer_offsets` in a metadata log
    /// (its real partition count is unknown, so no claim about the mapping).
    pub expected_partition: Option<i32>,
}

impl GroupVerdict {
    /// Whether the group is in another partition than the mapping gives.
    pub fn in_wrong_partition(&self) -> bool {
        self.expected_partition
            .is_some_and(|p| p != self.coordinator_partition)
    }
}

/// What the next retention pass does to one group partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NextRetention {
    /// The log start after the pass.
    pub new_log_start_offset: i64,
    /// The pass runs by then, ms.
    pub by_ms: i64,
    /// Records the group never reads (0: it is not behind the new log start).
    pub skipped: i64,
}

impl NextRetention {
    /// Where `auto.offset.reset=earliest` resets the group, when the pass leaves it behind.
    pub fn reset_to(&self) -> Option<i64> {
        (self.skipped > 0).then_some(self.new_log_start_offset)
    }
}

/// The verdicts on one committed offset (one group, topic and partition).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetVerdict {
    /// Group id.
    pub group: Arc<str>,
    /// The data partition.
    pub tp: CommitKey,
    /// The committed offset.
    pub committed: i64,
    /// The partition as held here (`None`: not in these log dirs).
    pub held: Option<HeldPartition>,
    /// When the coordinator's expiry removes it ([`expires_at_ms`]).
    pub expires_at_ms: Option<i64>,
    /// Expired at the evaluation instant ([`is_expired`]).
    pub expired: bool,
    /// The next retention pass, when it moves the log start.
    pub next_retention: Option<NextRetention>,
}

impl OffsetVerdict {
    /// The current log start, when the committed offset is below it (the group resets).
    pub fn behind_log_start(&self) -> Option<i64> {
        self.held
            .map(|h| h.log_start_offset)
            .filter(|s| skipped_below(self.committed, *s).is_some())
    }

    /// The next retention pass, when it leaves the group behind its new log start.
    pub fn loses_data_next_pass(&self) -> Option<&NextRetention> {
        self.next_retention.as_ref().filter(|n| n.skipped > 0)
    }
}

/// The verdicts on the groups and offsets [`GroupFacts`] selects, in the state's order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupVerdicts {
    /// The groups selected (with `--topic`, only those with an offset of it).
    pub groups: Vec<GroupVerdict>,
    /// Their committed offsets selected, group after group.
    pub offsets: Vec<OffsetVerdict>,
    /// Deleted groups selected.
    pub deleted: Vec<String>,
}

/// The verdicts on `state` with `facts`.
pub fn assess(state: &GroupState, facts: &GroupFacts) -> GroupVerdicts {
    let retention_ms = i64::from(facts.offsets_retention_minutes).saturating_mul(60_000);
    let wanted_group = |g: &str| facts.group.as_deref().is_none_or(|w| w == g);
    let wanted_topic = |t: &str| facts.topic.as_deref().is_none_or(|w| w == t);
    // Only the metadata log knows the topic's real partition count (`offsets.topic.num.partitions`
    // applied when it was created, maybe with another value): without it, no mapping.
    let mapping_known = facts.topic_partitions.contains_key(CONSUMER_OFFSETS_TOPIC);
    let (held, next_log_starts) = (by_name(&facts.held), by_name(&facts.next_log_starts));
    let mut out = GroupVerdicts::default();
    for g in state.groups.values().filter(|g| wanted_group(&g.name)) {
        let mut any = false;
        for (tp, o) in g.offsets.iter().filter(|(tp, _)| wanted_topic(&tp.0)) {
            any = true;
            let expires_at_ms = expiry_of(g, tp, o, retention_ms);
            let name = (&*tp.0, tp.1);
            let next_retention = next_log_starts.get(&name).map(|start| NextRetention {
                new_log_start_offset: start.get(),
                by_ms: facts.next_pass_by_ms,
                skipped: skipped_below(o.offset, start.get()).unwrap_or(0),
            });
            out.offsets.push(OffsetVerdict {
                group: g.name.clone(),
                tp: tp.clone(),
                committed: o.offset,
                held: held.get(&name).copied().copied(),
                expires_at_ms,
                expired: is_expired(expires_at_ms, facts.now_ms),
                next_retention,
            });
        }
        if any || facts.topic.is_none() {
            out.groups.push(GroupVerdict {
                group: g.name.clone(),
                coordinator_partition: g.coordinator_partition,
                expected_partition: mapping_known
                    .then(|| coordinator_partition(&g.name, facts.offsets_topic_partitions))
                    .flatten(),
            });
        }
    }
    out.deleted = (state.deleted.iter())
        .filter(|g| wanted_group(g))
        .cloned()
        .collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_hash_and_partition_match_kafka() {
        // "hello".hashCode() == 99162322; "polygenelubricants".hashCode() == Integer.MIN_VALUE.
        assert_eq!(java_string_hash("hello"), 99_162_322);
        assert_eq!(java_string_hash(""), 0);
        assert_eq!(java_string_hash("polygenelubricants"), i32::MIN);
        assert_eq!(coordinator_partition("polygenelubricants", 50), Some(0));
        assert_eq!(coordinator_partition("hello", 50), Some(99_162_322 % 50));
        let h = java_string_hash("zzzzzzzz");
        assert_eq!(coordinator_partition("zzzzzzzz", 7), Some(h.abs() % 7));
        assert_eq!(coordinator_partition("x", 0), None);
    }

    fn group(kind: GroupKind) -> Group {
        let mut g = Group::new("g", 0);
        g.kind = kind;
        g.offsets.insert(
            ("t".into(), 0),
            CommittedOffset {
                offset: 10,
                leader_epoch: None,
                metadata: String::new(),
                commit_timestamp_ms: 1_000,
                expire_timestamp_ms: None,
                record_offset: 0,
                transactional: false,
            },
        );
        g
    }

    #[test]
    fn expiry_follows_the_coordinators_conditions() {
        let tp: CommitKey = ("t".into(), 0);
        assert_eq!(
            expires_at_ms(&group(GroupKind::Simple), &tp, 50),
            Some(1_050)
        );
        let mut classic = group(GroupKind::Classic);
        classic.current_state_timestamp_ms = Some(3_000);
        assert_eq!(expires_at_ms(&classic, &tp, 50), Some(3_050));
        classic.members.insert("m".into());
        assert_eq!(expires_at_ms(&classic, &tp, 50), None);
        let mut consumer = group(GroupKind::Consumer);
        assert_eq!(expires_at_ms(&consumer, &tp, 50), Some(1_050));
        consumer.subscriptions.insert("m".into(), vec!["t".into()]);
        assert_eq!(expires_at_ms(&consumer, &tp, 50), None);
        let mut explicit = group(GroupKind::Simple);
        explicit.offsets.get_mut(&tp).unwrap().expire_timestamp_ms = Some(2_000);
        assert_eq!(expires_at_ms(&explicit, &tp, 50), Some(2_000));
        let mut pending = group(GroupKind::Simple);
        pending.pending_transactional.insert(tp.clone());
        assert_eq!(expires_at_ms(&pending, &tp, 50), None);
        assert_eq!(expires_at_ms(&pending, &("u".into(), 0), 50), None);
    }

    #[test]
    fn an_offset_is_expired_from_its_expiry_instant_on() {
        assert!(!is_expired(Some(1_050), 1_049));
        assert!(is_expired(Some(1_050), 1_050));
        assert!(!is_expired(None, i64::MAX));
    }

    #[test]
    fn losses_below_the_new_log_start() {
        let mut state = GroupState::default();
        state.groups.insert("g".into(), group(GroupKind::Simple));
        let mut starts = BTreeMap::new();
        starts.insert(("t".to_string(), 0), Offset(10));
        assert!(losses(&state, &starts).is_empty());
        starts.insert(("t".to_string(), 0), Offset(48));
        let l = losses(&state, &starts);
        assert_eq!(l.len(), 1);
        assert_eq!((l[0].committed, l[0].reset_to, l[0].skipped), (10, 48, 38));
    }

    #[test]
    fn assess_gives_expiry_loss_behind_and_mapping_per_offset() {
        let mut state = GroupState::default();
        let mut g = group(GroupKind::Simple);
        g.coordinator_partition = 3;
        state.groups.insert("g".into(), g);
        state.deleted.insert("gone".into());
        let tp = ("t".to_string(), 0);
        let mut facts = GroupFacts {
            offsets_retention_minutes: 1,
            offsets_topic_partitions: 50,
            now_ms: 61_000,
            next_pass_by_ms: 361_000,
            ..GroupFacts::default()
        };
        facts.held.insert(
            tp.clone(),
            HeldPartition {
                log_start_offset: 12,
                log_end_offset: 40,
            },
        );
        facts.next_log_starts.insert(tp.clone(), Offset(30));
        let v = assess(&state, &facts);
        assert_eq!(v.deleted, vec!["gone".to_string()]);
        // No `__consumer_offsets` in the metadata log: no claim about the mapping.
        assert_eq!(v.groups[0].expected_partition, None);
        assert!(!v.groups[0].in_wrong_partition());
        let o = &v.offsets[0];
        assert_eq!(o.expires_at_ms, Some(61_000));
        assert!(o.expired);
        assert_eq!(o.behind_log_start(), Some(12));
        let n = o.loses_data_next_pass().unwrap();
        assert_eq!((n.skipped, n.reset_to(), n.by_ms), (20, Some(30), 361_000));

        facts
            .topic_partitions
            .insert(CONSUMER_OFFSETS_TOPIC.into(), 50);
        facts.now_ms = 60_999;
        let v = assess(&state, &facts);
        assert_eq!(
            v.groups[0].expected_partition,
            coordinator_partition("g", 50)
        );
        assert_eq!(
            v.groups[0].in_wrong_partition(),
            coordinator_partition("g", 50) != Some(3)
        );
        assert!(!v.offsets[0].expired);

        facts.topic = Some("other".into());
        let v = assess(&state, &facts);
        assert!(v.groups.is_empty() && v.offsets.is_empty());
        facts.topic = None;
        facts.group = Some("h".into());
        let v = assess(&state, &facts);
        assert!(v.groups.is_empty() && v.deleted.is_empty());
    }
}
