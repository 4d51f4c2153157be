//! The finding catalog: every code logclean can report, with its class, default severity, a
//! one-line meaning and a default fix. Checks build findings from these kinds
//! ([`Finding::new`](super::finding::Finding::new)); the README's "Finding codes" table is
//! tested against [`ALL`] (`tests/catalog.rs`).
//!
//! Naming rule for codes: `<domain>.<snake_case_condition>`, lower case ASCII, where `<domain>` is
//! one of [`DOMAINS`] (what the finding is about: a log dir root, a partition dir, a segment, its
//! `.log`, one of its indexes, a producer snapshot, any file, the KRaft metadata log, a config;
//! later `group`, `txn`, `plan`) and the condition names the state, not the check ("`zero_tail`",
//! not "`check_tail`"). A code never changes meaning once released; a new meaning is a new code.
//!
//! A rule may override the default severity or class when what the broker does next decides
//! it (a truncated tail is a warning when the broker recovers the segment on start, an error
//! otherwise), and a more specific fix when it knows the numbers.

use super::finding::{FindingClass, Severity};

/// One kind of finding.
#[derive(Debug, PartialEq, Eq)]
pub struct FindingKind {
    /// Stable code, `<domain>.<snake_case_condition>`.
    pub code: &'static str,
    /// Condition, corruption or I/O.
    pub class: FindingClass,
    /// Default severity.
    pub severity: Severity,
    /// One line: what it means.
    pub meaning: &'static str,
    /// What to do by default (may name a `logclean` or Kafka command).
    pub fix: &'static str,
}

/// The domains a code may start with.
pub const DOMAINS: &[&str] = &[
    "dir",
    "partition",
    "segment",
    "log",
    "index",
    "timeindex",
    "txnindex",
    "snapshot",
    "file",
    "metadata",
    "config",
    "group",
    "txn",
    "plan",
    "compaction",
    "upgrade",
    "tiered",
];

use FindingClass::{Condition, Corruption, Io};
use Severity::{Error, Info, Warning};

macro_rules! kinds {
    ($( $name:ident = $code:literal, $class:ident, $sev:ident, $meaning:literal, $fix:literal; )*) => {
        $(
            #[doc = $meaning]
            pub const $name: FindingKind = FindingKind {
                code: $code,
                class: $class,
                severity: $sev,
                meaning: $meaning,
                fix: $fix,
            };
        )*
        /// Every kind, in README order.
        pub const ALL: &[&FindingKind] = &[$(&$name),*];
    };
}

kinds! {
    FILE_UNREADABLE = "file.unreadable", Io, Error,
        "a file or dir could not be read, with its path and the OS error (exit 3, in every command)",
        "check permissions and the disk; the broker fails this log dir on the same error";
    FILE_CORRUPT = "file.corrupt", Corruption, Error,
        "a checkpoint, `meta.properties`, `partition.metadata`, `leader-epoch-checkpoint`, producer snapshot, index or `.log` breaks its format; the byte offset is the bad line or field",
        "restore the file from a replica or a backup with the broker stopped; for a segment, see `logclean inspect --verify` for where the broker's recovery would truncate";
    DIR_NO_META_PROPERTIES = "dir.no_meta_properties", Condition, Warning,
        "no `meta.properties`: not a formatted Kafka log dir",
        "point logclean at a log dir named in log.dirs; a KRaft broker refuses to start on an unformatted dir (`kafka-storage.sh format` formats one)";
    DIR_UNCLEAN_SHUTDOWN = "dir.unclean_shutdown", Condition, Info,
        "no `.kafka_cleanshutdown`: on start the broker recovers each partition from the segment holding its recovery point on (the metadata log always); those segments show `recovered_on_start`",
        "none needed if the broker is running; otherwise expect recovery on the next start (stop the broker cleanly to avoid it)";
    DIR_LEFTOVER_TMP = "dir.leftover_tmp", Condition, Warning,
        "temporary file of an interrupted atomic write in the log dir root",
        "remove it while the broker is stopped; the real file beside it is the one in use";
    DIR_UNKNOWN_FILE = "dir.unknown_file", Condition, Warning,
        "a file the broker does not write in a log dir root",
        "move it out of the log dir";
    PARTITION_BAD_DIR_NAME = "partition.bad_dir_name", Condition, Error,
        "a dir the broker cannot parse as `<topic>-<partition>`: broker startup fails on this log dir",
        "move the directory out of the log dir";
    PARTITION_DUPLICATE = "partition.duplicate", Condition, Error,
        "the same live partition in two log dirs of one cluster: the broker refuses to start (dirs of different clusters are `dir.cluster_mismatch` instead)",
        "keep the copy with the higher log end offset; move the other out of the log dir";
    PARTITION_PENDING_DELETE = "partition.pending_delete", Condition, Info,
        "a `-delete` dir: the broker removes it `file.delete.delay.ms` after start",
        "none needed: the broker deletes it; delete it yourself with the broker stopped to free the space now";
    PARTITION_FUTURE_REPLICA = "partition.future_replica", Condition, Info,
        "a `-future` dir: target of an unfinished alter-log-dirs move",
        "none needed: the broker resumes the move; `kafka-log-dirs.sh --describe` shows its progress";
    PARTITION_STRAY = "partition.stray", Condition, Warning,
        "a `-stray` dir: a replica set aside by the broker, never deleted automatically; with a metadata log, where the metadata now places the partition (its replicas and leader, by the dir's topic id), or that the topic id is gone",
        "once you are sure no data is needed from it, delete the dir with the broker stopped";
    PARTITION_NO_TOPIC_ID = "partition.no_topic_id", Condition, Warning,
        "no `partition.metadata` in a KRaft-mode log dir: the broker treats the log as stray and sets it aside (not reported in ZooKeeper mode, where the file is optional, nor when the dir could not be listed)",
        "restore partition.metadata (version: 0, topic_id from the metadata log, see `logclean config`) before starting the broker";
    PARTITION_LEFTOVER_DELETED = "partition.leftover_deleted", Condition, Info,
        "`*.deleted` files, deleted by the broker on start",
        "none needed: the broker deletes them on start";
    PARTITION_LEFTOVER_SWAP = "partition.leftover_swap", Condition, Warning,
        "`*.cleaned` / `*.swap` of an interrupted compaction or segment split; the broker resolves it on start",
        "start the broker to let it finish or roll back the swap; do not rename these by hand";
    PARTITION_LEFTOVER_TMP = "partition.leftover_tmp", Condition, Warning,
        "temporary file of an interrupted atomic write in a partition dir",
        "remove it while the broker is stopped";
    PARTITION_UNKNOWN_FILE = "partition.unknown_file", Condition, Warning,
        "a file or dir the broker does not write in a partition dir",
        "move it out of the log dir";
    PARTITION_HW_BEYOND_LOG_END = "partition.hw_beyond_log_end", Condition, Warning,
        "checkpointed high watermark past the log end: acknowledged data is missing",
        "compare with the other replicas (`kafka-topics.sh --describe`); if this one lost data, let it re-replicate from the leader";
    PARTITION_HW_HELD_UNDER_MIN_ISR = "partition.hw_held_under_min_isr", Condition, Warning,
        "the ISR (metadata log) is below min(`min.insync.replicas`, replication factor) and the leader's log runs past its HW: Kafka 4.x does not advance the HW under min ISR (KIP-966), so acks=0/1 writes stay uncommitted and retention frees nothing above the HW; names the ISR, the replicas out of it and the bytes held",
        "bring the replicas out of the ISR back (start their brokers; `kafka-topics.sh --describe --under-min-isr-partitions` lists such partitions); lowering the topic's min.insync.replicas also lets the HW advance, with weaker durability";
    PARTITION_REPLICAS_DIVERGE = "partition.replicas_diverge", Condition, Warning,
        "given several brokers' dirs, replicas of one partition differ beyond replication lag: an ISR/ELR member whose log ends below the HW another replica checkpointed (warning), or a replica whose log ends below another's log start, which truncates fully and refetches from the leader's log start (info), or a replica holding records its leader does not: its latest leader epoch ends below its log end on the leader, so it truncates there on its next fetch and those records are lost (warning; an unclean election)",
        "compare the replicas (`kafka-log-dirs.sh --describe`, `kafka-topics.sh --describe`); a replica missing committed records must not become leader (keep unclean.leader.election.enable=false) and re-replicates once the leader is back";
    PARTITION_LOG_START_BEYOND_END = "partition.log_start_beyond_end", Condition, Error,
        "checkpointed log start offset past the log end: the broker deletes every segment on start",
        "correct the partition's line in log-start-offset-checkpoint with the broker stopped";
    PARTITION_TOPIC_ID_MISMATCH = "partition.topic_id_mismatch", Condition, Error,
        "a dir whose name and topic id disagree: the broker raises `InconsistentTopicIdException` (`config`)",
        "find which topic the data belongs to and rename the dir or rewrite its partition.metadata with the broker stopped";
    PARTITION_UNKNOWN_TOPIC_ID = "partition.unknown_topic_id", Condition, Warning,
        "a live dir whose topic id is not in the metadata log: the broker sets it aside as stray (`config`)",
        "if the topic was deleted, the dir's data is no longer served; remove it once you are sure";
    SNAPSHOT_CRC_MISMATCH = "snapshot.crc_mismatch", Corruption, Info,
        "producer snapshot fails its CRC-32C; the broker deletes it and rebuilds producer state",
        "none needed: the broker rebuilds producer state from an older snapshot or the log (a slower start)";
    SEGMENT_ORPHAN_INDEX = "segment.orphan_index", Condition, Info,
        "an index file (`.index`, `.timeindex`, `.txnindex`) without its `.log`, deleted by the broker on start; one finding per file, never counted as a segment",
        "none needed: the broker deletes it on start";
    LOG_TOO_LARGE = "log.too_large", Condition, Error,
        "a `.log` over 2 GiB, which the broker cannot open (`FileRecords`)",
        "split or restore the segment from a replica with the broker stopped; check `segment.bytes` with `logclean config`";
    LOG_CORRUPT_BATCH = "log.corrupt_batch", Corruption, Error,
        "a batch header Kafka rejects (size, magic); the byte offset is the batch start, where recovery truncates (the bad field is in the evidence)",
        "restore the segment from a replica; the broker's recovery truncates it at this batch";
    LOG_TRUNCATED_TAIL = "log.truncated_tail", Corruption, Error,
        "incomplete last batch: a warning (condition) when the broker recovers the segment on start (it truncates the tail), an error (corruption) when it does not (it would append after the bad bytes)",
        "truncate the segment at the byte offset with the broker stopped, or remove .kafka_cleanshutdown so the broker's recovery does";
    LOG_ZERO_FILLED_TAIL = "log.zero_filled_tail", Corruption, Error,
        "zero-filled tail (preallocation or a crash): a warning (condition) when the broker recovers the segment on start, an error (corruption) when it does not (it would read into the zeros)",
        "truncate the segment at the byte offset with the broker stopped, or remove .kafka_cleanshutdown so the broker's recovery does";
    LOG_VERIFY_FAILED = "log.verify_failed", Corruption, Error,
        "`--verify`: CRC mismatch, bad record, offset overflow or disorder, at the failing batch's start (where `DumpLogSegments` and the broker's recovery point; the bad field's position is evidence)",
        "restore the segment from a replica; the broker's recovery stops at the first bad batch and truncates there";
    LOG_OFFSET_BELOW_BASE = "log.offset_below_base", Corruption, Error,
        "the first batch starts below the segment's base offset",
        "restore the segment from a replica with the broker stopped (its file name or its batches are wrong)";
    LOG_OVERLAPPING_SEGMENTS = "log.overlapping_segments", Corruption, Error,
        "a segment starts before the previous segment ends",
        "restore the partition from a replica with the broker stopped; compare the segments with `logclean inspect --records`";
    INDEX_MISSING = "index.missing", Condition, Info,
        "missing `.index`: the broker recovers (re-reads and re-indexes) the segment on start",
        "none needed; the broker rebuilds it at the cost of reading the segment";
    INDEX_SANITY_FAILED = "index.sanity_failed", Corruption, Error,
        "the offset index fails Kafka's own `sanityCheck` (the broker skips it at load; tiered storage and DumpLogSegments reject the file)",
        "delete the .index with the broker stopped: the broker then recovers the segment and rebuilds it";
    INDEX_ZERO_TAIL = "index.zero_tail", Corruption, Error,
        "zero-filled slots the broker reads as entries: the offset index reads as full (forcing a roll); a warning on the active segment; not reported where the broker rebuilds or ignores them (segments recovered on start, the metadata log's active segment, `-delete` and `-stray` dirs)",
        "delete the .index with the broker stopped: the broker then recovers the segment and rebuilds it";
    INDEX_BAD_ENTRIES = "index.bad_entries", Corruption, Error,
        "offset index entries out of order (counts, first and last position, the first few examples)",
        "delete the .index with the broker stopped: the broker then recovers the segment and rebuilds it";
    INDEX_DISAGREES_WITH_LOG = "index.disagrees_with_log", Corruption, Error,
        "offset-index entries that point past the log, not at a batch, or at the wrong offset (one finding per file, at the first; counts and the first few examples)",
        "delete the .index with the broker stopped: the broker then recovers the segment and rebuilds it";
    TIMEINDEX_MISSING = "timeindex.missing", Condition, Warning,
        "missing `.timeindex`: the broker creates an empty one and does not rebuild it, so time retention falls back to the `.log` mtime; on a segment recovered on start, recovery rebuilds it (said so, no fix needed)",
        "rebuild the time index with the broker stopped (or delete the .index too, so the broker recovers the segment and rebuilds both)";
    TIMEINDEX_SANITY_FAILED = "timeindex.sanity_failed", Corruption, Error,
        "the time index fails Kafka's own `sanityCheck` (the broker skips it at load; tiered storage and DumpLogSegments reject the file)",
        "rebuild the time index with the broker stopped (or delete the .index too, so the broker recovers the segment and rebuilds both)";
    TIMEINDEX_ZERO_TAIL = "timeindex.zero_tail", Corruption, Error,
        "zero-filled slots the broker reads as entries: the last slot reads as timestamp 0 (retention deletes the segment at once); a warning on the active segment; not reported where the broker rebuilds or ignores them",
        "rebuild the time index with the broker stopped (or delete the .index too, so the broker recovers the segment and rebuilds both)";
    TIMEINDEX_BAD_ENTRIES = "timeindex.bad_entries", Corruption, Error,
        "time index entries out of order (counts, first and last position, the first few examples)",
        "rebuild the time index with the broker stopped (or delete the .index too, so the broker recovers the segment and rebuilds both)";
    TIMEINDEX_EMPTY = "timeindex.empty", Condition, Warning,
        "empty time index on a rolled segment with timestamps: retention uses the `.log` mtime",
        "rebuild the time index with the broker stopped (or delete the .index too, so the broker recovers the segment and rebuilds both)";
    TIMEINDEX_DISAGREES_WITH_LOG = "timeindex.disagrees_with_log", Corruption, Warning,
        "the last time-index entry is not the segment's largest batch timestamp, or its offset is past the segment's end",
        "rebuild the time index with the broker stopped (or delete the .index too, so the broker recovers the segment and rebuilds both)";
    TXNINDEX_CORRUPT = "txnindex.corrupt", Corruption, Error,
        "`.txnindex` fails Kafka's checks (counts, first and last position, the first few examples); the broker recovers the segment on start",
        "none needed if the broker recovers the segment; otherwise delete the .txnindex and the .index with the broker stopped so it does";
    METADATA_MISSING = "metadata.missing", Condition, Warning,
        "no `__cluster_metadata-0` in the log dirs: topic overrides and dynamic broker configs are unknown (`config`)",
        "name the metadata.log.dir too, or give --config-file with `kafka-configs.sh --describe --all` output";
    METADATA_RECORDS_LOST = "metadata.records_lost", Condition, Error,
        "the KRaft metadata log has no `.log` left while its producer snapshot, orphan `.index`/`.timeindex` or an orphan's base offset show it reached past its newest `.checkpoint` snapshot: the committed metadata records between the two are lost (the offsets are in the evidence)",
        "restore the metadata log's .log files from a backup before starting the broker; a controller or broker that is not the only voter re-fetches them from the quorum leader, a sole voter's records are lost (recreate what they did: topics, configs, ACLs)";
    METADATA_SNAPSHOT_STALE = "metadata.snapshot_stale", Condition, Warning,
        "the KRaft metadata log ran past its newest `.checkpoint` snapshot by more than twice `metadata.log.max.record.bytes.between.snapshots` or `metadata.log.max.snapshot.interval.ms` (record time from the snapshot header's last contained timestamp to the newest batch): snapshot generation stopped, every start replays the records after it and the metadata log cleaner cannot delete below it (`diagnose`)",
        "look for `SnapshotGenerator` / `MetadataLoader` errors in the controller's and broker's log (a failing metadata publisher stops snapshots), and check that neither threshold is set to a huge value; a restart of the node resumes generation";
    METADATA_LOG_REDUNDANT = "metadata.log_redundant", Condition, Info,
        "closed metadata log segments lie wholly below the newest snapshot: a node starts from the snapshot without them, yet they stay until the metadata log cleaner's `metadata.max.retention.bytes`/`metadata.max.retention.ms` condemn an older snapshot (the bytes, what the next cleaner run deletes, and when time retention acts are in the evidence) (`diagnose`)",
        "none needed: the cleaner (every 60 s on a running node) deletes them once retention condemns the snapshots before them; lower `metadata.max.retention.ms` / `metadata.max.retention.bytes` to keep fewer";
    METADATA_PROBLEM = "metadata.problem", Condition, Warning,
        "a broken metadata log (truncated batch, CRC, unknown record version): the image stops there and says up to which offset it is complete (`config`)",
        "read later changes from a live cluster: `kafka-configs.sh --describe --all`, then --config-file";
    CONFIG_INVALID_VALUE = "config.invalid_value", Condition, Warning,
        "a value the broker's files or `--config-file` give that fails its type or range, naming key, value and source; the next source is used, as the broker does (a `--config` value is refused instead, exit 3) (`config`)",
        "correct the value with `kafka-configs.sh --alter` (or in server.properties)";
    CONFIG_UNKNOWN_KEY = "config.unknown_key", Condition, Warning,
        "an unknown topic config (`config`)",
        "check the key's spelling; remove it with `kafka-configs.sh --alter --delete-config`";
    CONFIG_IGNORED_DYNAMIC = "config.ignored_dynamic", Condition, Info,
        "a broker key the broker ignores when set dynamically (`config`)",
        "set it in server.properties instead and restart the broker";
    CONFIG_UNKNOWN_TOPIC = "config.unknown_topic", Condition, Warning,
        "a `--topic` not in the metadata log; broker-level values are shown (`config`)",
        "check the topic name (`kafka-topics.sh --list`)";
    CONFIG_REMOVED_KEY = "config.removed_key", Condition, Warning,
        "a key Kafka 4.0 removed (`message.timestamp.difference.max.ms` → `message.timestamp.before.max.ms` / `.after.max.ms`, `message.format.version`, their `log.` broker keys, ...), named with its replacement; info on a ZooKeeper-mode (3.x) dir, which still reads it (`config`)",
        "set the replacement keys to the value you need and remove the old key";
    CONFIG_ZOOKEEPER_MODE = "config.zookeeper_mode", Condition, Info,
        "ZooKeeper-mode log dirs (Kafka up to 3.9): topic overrides and dynamic broker configs live in ZooKeeper (`/config/topics/<topic>`), not on disk (`config`)",
        "take them from the running cluster: `kafka-configs.sh --bootstrap-server HOST:PORT --describe --all --entity-type topics > FILE`, then `--config-file FILE`; or give single values with `--config TOPIC:KEY=VALUE`";
    DIR_CLUSTER_MISMATCH = "dir.cluster_mismatch", Condition, Error,
        "the log dirs' `meta.properties` carry different `cluster.id`s: a broker refuses to start on them (\"Invalid cluster.id\", `MetaPropertiesEnsemble.verify`); said once, listing each dir (`config` and `inspect`)",
        "give the log dirs of one broker at a time; if a dir was copied from another cluster, move it out";
    PARTITION_MISSING_REPLICA = "partition.missing_replica", Condition, Warning,
        "per topic, the partitions the metadata log assigns to this broker that have no partition dir in the log dirs given (replicas placed in a directory id none of them carries are not counted) (`config`)",
        "if the broker has more log dirs, give them all; if a dir was moved or deleted, put it back before starting the broker: it otherwise starts the replica empty and re-fetches it from the leader (a sole replica's data is gone)";
    GROUP_BEHIND_LOG_START = "group.behind_log_start", Condition, Warning,
        "a committed offset below its partition's log start: the group's next fetch gets OFFSET_OUT_OF_RANGE and `auto.offset.reset` decides (earliest skips the deleted records, none fails the consumer) (`groups`)",
        "reset the group deliberately while it is empty: `kafka-consumer-groups.sh --bootstrap-server HOST:PORT --group G --topic T --reset-offsets --to-earliest --execute`";
    GROUP_LOSES_DATA_NEXT_RETENTION = "group.loses_data_next_retention", Condition, Warning,
        "the next retention pass deletes records a group has not consumed yet: its committed offset falls below the new log start (`groups`)",
        "let the group catch up before the pass, or raise `retention.ms` / `retention.bytes` of the topic (`kafka-configs.sh --alter`)";
    GROUP_OFFSETS_EXPIRE = "group.offsets_expire", Condition, Warning,
        "an empty group whose committed offsets are past `offsets.retention.minutes`: the coordinator's next expiry check (every `offsets.retention.check.interval.ms`) deletes them, and the group with them (`groups`)",
        "restart the group's consumers (they commit again), or raise `offsets.retention.minutes` if the group must survive idle periods";
    GROUP_WRONG_PARTITION = "group.wrong_partition", Condition, Warning,
        "a group's records are in a `__consumer_offsets` partition other than `abs(hashCode(group)) % partitions`: its coordinator never loads them (`groups`)",
        "check that `__consumer_offsets` kept its partition count (`kafka-topics.sh --describe --topic __consumer_offsets`) and that the partition dirs were not renamed";
    GROUP_SHARE_STATE_PRUNE_BLOCKED = "group.share_state_prune_blocked", Condition, Warning,
        "one share partition's latest snapshot holds back the share coordinator's prune of `__share_group_state` (cleanup.policy=delete, retention.ms=-1: only the coordinator deletes it, below the oldest latest snapshot over all share partitions): the closed segments after it are kept for that key alone; a warning when its snapshot is older than `share.coordinator.cold.partition.snapshot.interval.ms` before the coordinator's newest write (the cold-partition snapshot did not move it: the topic grows without bound), else info (the group, topic, partition and bytes are in the evidence) (`diagnose`)",
        "make the coordinator write a new snapshot of that share partition or drop it: `kafka-share-groups.sh --reset-offsets` or `--delete-offsets` / `--delete` for the group (the line logclean prints); keep `share.coordinator.cold.partition.snapshot.interval.ms` at its default";
    GROUP_BAD_RECORD = "group.bad_record", Corruption, Error,
        "a `__consumer_offsets` record that does not decode: the coordinator fails to load the partition (`groups`)",
        "find the record with `logclean inspect --records`; restore the partition from a replica with the broker stopped";
    TXN_HANGING = "txn.hanging", Condition, Error,
        "a transaction open on a data partition longer than `transaction.max.timeout.ms` that the coordinator no longer tracks (or never will abort): it holds the last stable offset, so read_committed consumers and compaction stop there (`transactions`)",
        "abort it: `kafka-transactions.sh --bootstrap-server HOST:PORT abort --topic T --partition P --start-offset O` (the line logclean prints)";
    TXN_OPEN_LONG = "txn.open_long", Condition, Warning,
        "a transaction open longer than its own timeout but under `transaction.max.timeout.ms`: the coordinator should abort it soon; until then it holds the last stable offset (`transactions`)",
        "check the producer (`kafka-transactions.sh describe --transactional-id ID`); if its coordinator is gone, abort it as for `txn.hanging`";
    PLAN_RETAINS_EXPIRED = "plan.retains_expired", Condition, Warning,
        "segments whose largest timestamp is older than `retention.ms` stay on disk, with the first condition that keeps them (HW gate, a future timestamp, a blocking segment, no retention thread) (`plan`; `--fail-if-retains-expired` exits 1)",
        "remove what the reason names: let followers catch up (HW), fix the producer clock and wait out or delete the future-stamped segment's data (`kafka-delete-records.sh`), or enable the cleaner";
    PLAN_FUTURE_TIMESTAMP_BLOCKS = "plan.future_timestamp_blocks", Condition, Warning,
        "a segment's largest timestamp is in the future: time retention stops at it and keeps every newer segment (`plan`)",
        "fix the producer's clock or set `message.timestamp.after.max.ms`; to free the space now, `kafka-delete-records.sh` past the segment (the log-start pass ignores timestamps)";
    PLAN_COMPACTION_BLOCKED = "plan.compaction_blocked", Condition, Warning,
        "a compacted log the cleaner cannot clean past a point: no cleaner thread, a paused log, an open transaction holding the last stable offset, or a HW below the active segment (`plan`)",
        "enable the cleaner (`log.cleaner.enable=true`, `log.cleaner.threads` ≥ 1); end or abort the open transaction (`kafka-transactions.sh abort`); let the ISR catch up";
    TIERED_UPLOAD_STALLED = "tiered.upload_stalled", Condition, Error,
        "a tiered partition's upload stalled: a copy to remote storage started (COPY_SEGMENT_STARTED in `__remote_log_metadata`) and never finished, or a segment eligible for upload has had no copy, for more than 30 min; that segment and every later one stay local whatever `local.retention.*` says (the segment, since when, and the bytes waiting are in the evidence) (`diagnose`, `plan`)",
        "look for the RemoteStorageManager's errors in the broker log (`RemoteLogManager`, the plugin's logger) and fix the remote store or the plugin; a hung copy is retried only after the leader's copy task is restarted (a leader election: `kafka-leader-election.sh`, or a broker restart)";
    TIERED_UPLOAD_FAILING = "tiered.upload_failing", Condition, Error,
        "the RemoteStorageManager fails the copy of a tiered partition's segment: `__remote_log_metadata` holds copies of it that started and were deleted without COPY_SEGMENT_FINISHED (the broker's cleanup of a failed copy, retried under a new segment id every copy-task run); unlike a hang the copy task is not blocked, it fails again on the same segment, so that segment and every later one stay local (the segment, attempts, latest failure and bytes waiting are in the evidence) (`diagnose`, `plan`)",
        "read the broker log for `Copy failed, cleaning segment` and the plugin's exception, and fix the remote store or the plugin's credentials, quota or configuration; the broker retries by itself and uploads once a copy succeeds (no restart needed)";
    TIERED_INDEX_CACHE_SIZE = "tiered.index_cache_size", Condition, Info,
        "`remote-log-index-cache/` (in the broker's first log dir) holds indexes fetched from remote storage to serve reads below the local log start: its bytes on disk against `remote.log.index.file.cache.total.size.bytes` (default 1 GiB); info within the cap (the bytes show as `remote_index_cache` in the disk attribution, not freed by retention), a warning above it (files the cache does not account for) (`diagnose`)",
        "within the cap nothing: the cache evicts at the cap (and, from 4.4, entries idle longer than `remote.log.index.file.cache.ttl.ms`); above it, empty the dir with the broker stopped or raise the cap";
    TIERED_LOCAL_OVER_LIMIT = "tiered.local_over_limit", Condition, Warning,
        "a tiered partition keeps more local bytes than `local.retention.bytes` after the next retention run, and why: a segment not uploaded yet (with the copy task's reason), the HW, or no retention pass (`diagnose`, `plan`)",
        "remove what the reason names (see `tiered.upload_stalled`, `tiered.upload_failing`, `tiered.upload_blocked_by_transaction`); local segments go only once uploaded or below the log start";
    TIERED_UPLOAD_BLOCKED_BY_TRANSACTION = "tiered.upload_blocked_by_transaction", Condition, Warning,
        "an open transaction holds the last stable offset of a tiered partition: the copy task uploads only segments whose next segment starts at or below it, so every later segment stays local (`diagnose`, `plan`)",
        "end the producer's transaction, or abort it: `kafka-transactions.sh --bootstrap-server HOST:PORT abort --topic T --partition P --start-offset O` (the line logclean prints)";
    TIERED_UPLOAD_STATE_UNKNOWN = "tiered.upload_state_unknown", Condition, Info,
        "the `__remote_log_metadata` partition that holds a tiered partition's upload state is not among the log dirs given: no closed segment is taken for uploaded, and each shows what happens if it is (`plan`)",
        "give logclean the log dir (or the broker) that holds that metadata partition, as named in the evidence";
    TIERED_SYSTEM_DISABLED = "tiered.system_disabled", Condition, Warning,
        "a topic has `remote.storage.enable=true` while the broker's `remote.log.storage.system.enable` is false: the broker neither uploads nor serves its remote data, and local retention uses `retention.ms/bytes` (`diagnose`)",
        "set `remote.log.storage.system.enable=true` (with the RemoteStorageManager configs) in server.properties and restart, or turn tiering off for the topic as KIP-950 describes";
    TIERED_METADATA_TOPIC_UNBOUNDED = "tiered.metadata_topic_unbounded", Condition, Warning,
        "a `__remote_log_metadata` partition holds records and nothing deletes them (`retention.ms` -1, the default of `remote.log.metadata.topic.retention.ms`, and no `retention.bytes`): every copy and delete of a remote segment adds records forever and every broker start re-reads them; a warning when every tiered topic's retention is finite (a safe bound exists), else info (records, bytes, growth per day in the evidence) (`diagnose`)",
        "set the metadata topic's `retention.ms` above the longest `retention.ms` of any tiered topic (the line logclean prints), never below it: the broker would lose the metadata of remote segments still in use";
    DIR_NOT_A_LOG_DIR = "dir.not_a_log_dir", Condition, Error,
        "a dir without `meta.properties` whose subdirs are log dirs (a parent of `log.dirs` entries): nothing in it is read as partitions; the log dirs found below are listed (exit 1)",
        "run logclean on the log dirs listed in the evidence (all of one broker at once)";
    PARTITION_DATA_LOST = "partition.data_lost", Condition, Error,
        "no `.log` file left in a partition whose checkpoints (high watermark, recovery point, log start) say it held records: the broker starts it empty at the log start offset and the data is gone (the offsets are in the evidence)",
        "restore the partition's .log files from a backup or another replica before starting the broker; a follower re-fetches them from the leader, a sole replica's data is lost";
    SEGMENT_EMPTY_LOG_WITH_INDEX = "segment.empty_log_with_index", Condition, Error,
        "a rolled segment whose `.log` is empty while its offset or time index points at records: those records are gone (the indexed offsets are in the evidence)",
        "restore the segment's .log from a backup or another replica before starting the broker; the broker would otherwise serve the offsets as missing";
    SEGMENT_ACTIVE_NOT_ROLLING = "segment.active_not_rolling", Condition, Warning,
        "the active segment holds records older than `retention.ms` that retention cannot delete until it rolls, and at its write rate (its bytes over its record-time span) it does not roll within `retention.ms`; an idle partition never rolls on `segment.ms`, which is checked only on append (`diagnose`)",
        "lower the topic's `segment.ms` (or `segment.bytes`) so it rolls sooner (`kafka-configs.sh --alter`; applies on the next append), or with the broker stopped close it with `logclean roll --execute`";
    COMPACTION_BACKLOG = "compaction.backlog", Condition, Info,
        "a compacted log the cleaner takes on its next passes (dirty ratio above `min.cleanable.dirty.ratio`, or `max.compaction.lag.ms` due): its dirty ratio, cleanable bytes, dirty records (at most the dirty offsets; distinct keys with `--deep`), keys per pass, passes and how far the cleaner checkpoint is behind the log end; a warning when one pass cannot map the dirty section (`diagnose`)",
        "nothing while one pass covers it: the cleaner takes it after `log.cleaner.backoff.ms`; when it needs several passes, raise `log.cleaner.dedupe.buffer.size` to the figure in the fix (`kafka-configs.sh --alter --entity-type brokers --entity-default`)";
    COMPACTION_TOMBSTONES_PAST_HORIZON = "compaction.tombstones_past_horizon", Condition, Warning,
        "tombstones in batches whose delete horizon (`delete.retention.ms` after the pass that stamped it) has passed are still in a compacted log the cleaner does not take: only a cleaning pass drops them, and nothing triggers one for an expired horizon (`diagnose --deep`)",
        "let a pass run: lower the topic's `min.cleanable.dirty.ratio` or set `max.compaction.lag.ms` so the log becomes due (`kafka-configs.sh --alter`; a pass needs cleanable data, i.e. a rolled dirty segment), or remove what blocks the cleaner";
    COMPACTION_OFFSETS_TOPIC_STUCK = "compaction.offsets_topic_stuck", Condition, Error,
        "a `__consumer_offsets` partition whose dirty section would make the cleaner take it, but something blocks the cleaner (no thread, paused, an open transaction, the HW, `min.compaction.lag.ms`): it keeps growing, and the coordinator reads all of it on every load (`diagnose`)",
        "remove the blocker named in the evidence: enable the cleaner (`log.cleaner.enable=true`, `log.cleaner.threads` ≥ 1), abort the hanging transactional offset commit (`kafka-transactions.sh abort`), let the ISR catch up; then check `kafka.log:type=LogCleanerManager` metrics";
    COMPACTION_CLEANER_STARVED = "compaction.cleaner_starved", Condition, Warning,
        "more compacted logs need cleaning than there are cleaner threads, and clearing their backlog takes at least the threshold in the evidence (the smallest `max.compaction.lag.ms` of those logs, else 1 h) at the cleaner's rate (`log.cleaner.io.max.bytes.per.second`, or `--cleaner-rate`); one log is cleaned by one thread at a time, so the largest log bounds what more threads gain (`diagnose`)",
        "raise `log.cleaner.threads` (dynamic: `kafka-configs.sh --alter --entity-type brokers --entity-default --add-config log.cleaner.threads=N`; each thread gets `log.cleaner.dedupe.buffer.size` / threads) or `log.cleaner.io.max.bytes.per.second` when it throttles";
    // diagnose: timestamps, startup cost, disk projection, config risk (src/checks/{timestamps,startup,disk,config_risk}.rs)
    PARTITION_FUTURE_TIMESTAMPS = "partition.future_timestamps", Condition, Warning,
        "segments whose timestamps are more than 1 h ahead of now: the worst, how far ahead and when it can expire (timestamp + the time limit retention applies: `retention.ms`, `local.retention.ms` on tiered topics, never without a time pass such as compact-only); until then time retention of that segment and every newer one waits (`diagnose`; the plan's blocking segment is `plan.future_timestamp_blocks`)",
        "fix the producers' clocks and set `message.timestamp.after.max.ms=3600000` on the topic; to free the space now, `kafka-delete-records.sh` past the segment";
    PARTITION_TIMESTAMP_UNIT_SUSPECT = "partition.timestamp_unit_suspect", Condition, Warning,
        "record timestamps that look like seconds (below 1e11, before 1973: retention deletes the segment as soon as it rolls) or microseconds/nanoseconds (above 1e14: it never expires) instead of milliseconds (`diagnose`)",
        "fix the producer to send milliseconds; meanwhile set `message.timestamp.type=LogAppendTime` or bound `message.timestamp.before.max.ms` / `message.timestamp.after.max.ms` on the topic";
    DIR_STARTUP_RECOVERY = "dir.startup_recovery", Condition, Info,
        "the next broker start recovers segments of this log dir (unclean shutdown from the recovery point's floor segment, missing `.index`, `.swap` logs): their count, partitions (empty ones too), bytes and an estimated time at 45 MB/s per `num.recovery.threads.per.data.dir` thread (configured, else the default of the Kafka that wrote the dirs: 1 for ZooKeeper mode, 2 from 4.0); warning from 10 min (`diagnose`)",
        "expect the longer start; raise `num.recovery.threads.per.data.dir` for it, rebuild missing indexes offline with `logclean rebuild-index --execute`, and stop brokers cleanly (SIGTERM)";
    DIR_DISK_FULL_SOON = "dir.disk_full_soon", Condition, Warning,
        "at the growth rate from record timestamps (partitions retention does not yet hold at a bound) the log dir's filesystem is full within 24 h (error: 6 h); free and total bytes from statvfs or `--disk-space` (`diagnose`)",
        "lower `retention.ms` / set `retention.bytes` on the growing topics, delete what the next pass frees now (`logclean plan`, `logclean delete`), or add disk";
    DIR_DISK_FULL = "dir.disk_full", Condition, Error,
        "the log dir's filesystem is full or nearly full whatever the growth rate: error under 2 % free or below the free space the next start needs (its producer snapshots, rebuilt index pages, checkpoint tmp files, metadata-log appends: `needs at least N bytes free to start`); warning under 5 % (`diagnose`)",
        "with the broker stopped, `logclean free LOG_DIR --target 15% --purge --journal DIR` (DIR on another filesystem): the least harmful reclaim first (`.deleted` files and `-delete` dirs, `-stray`/`-future` dirs no one needs, then what retention deletes now), or grow the filesystem; see the README's disk-full runbook";
    CONFIG_RETENTION_BYTES_UNLIMITED = "config.retention_bytes_unlimited", Condition, Warning,
        "`retention.bytes=-1` on a busy delete-policy topic: at its busiest partition's write rate `retention.ms` alone keeps 10 GiB or more per partition, or `retention.ms` is -1 too (`diagnose`)",
        "set `retention.bytes` on the topic (`kafka-configs.sh --alter --add-config retention.bytes=N`; the suggested value is in the evidence)";
    CONFIG_SEGMENT_BYTES_SLOW_ROLL = "config.segment_bytes_slow_roll", Condition, Info,
        "at the write rate filling `segment.bytes` takes longer than `retention.ms` (and `segment.ms` does not roll sooner): records live up to `retention.ms` + that fill time (`diagnose`)",
        "lower `segment.bytes` (suggested: what a quarter of `retention.ms` writes) or `segment.ms` on the topic (`kafka-configs.sh --alter`)";
    CONFIG_MIN_CLEANABLE_RATIO_LOW = "config.min_cleanable_ratio_low", Condition, Info,
        "`min.cleanable.dirty.ratio` below 0.1 on a compacted topic: the cleaner re-copies the whole log for little gain, over and over (`diagnose`)",
        "set `min.cleanable.dirty.ratio=0.5` (Kafka's default), or use `max.compaction.lag.ms` to bound how long dirty records wait";
    CONFIG_FILE_DELETE_DELAY_ZERO = "config.file_delete_delay_zero", Condition, Info,
        "`file.delete.delay.ms=0`: deleted and cleaned segments' files are removed at once, under fetches, replication and the cleaner still reading them (`diagnose`)",
        "set `file.delete.delay.ms=60000` (Kafka's default) on the topic";
    CONFIG_CLEANER_THREADS_FEW = "config.cleaner_threads_few", Condition, Info,
        "`log.cleaner.threads` is 1 and more than 50 compacted partition replicas are due for cleaning (the plan's verdict: the cleaner takes them on its next passes): the cleaner cleans one log at a time, so each waits for all the others; compacted logs with nothing due do not count (`diagnose`)",
        "raise `log.cleaner.threads` (one per 50 logs due) and `log.cleaner.dedupe.buffer.size`, which the threads share";
    CONFIG_TIMESTAMP_AFTER_UNLIMITED = "config.timestamp_after_unlimited", Condition, Warning,
        "`message.timestamp.after.max.ms` is unlimited (Long.MAX_VALUE, Kafka 3.x's default; 1 h since 4.0) on a CreateTime topic: records stamped far ahead are accepted and block time retention (`diagnose`)",
        "set `message.timestamp.after.max.ms=3600000` on the topic (`kafka-configs.sh --alter`)";
    UPGRADE_ZOOKEEPER_MODE = "upgrade.zookeeper_mode", Condition, Warning,
        "a ZooKeeper-mode log dir (`meta.properties` v0, no metadata log) and a target release of 4.0 or later, which runs in KRaft mode only (`upgrade-check`)",
        "migrate the cluster to KRaft on 3.9 first (KIP-866: `zookeeper.metadata.migration.enable`, then finalize), then upgrade";
    UPGRADE_REMOVED_CONFIG = "upgrade.removed_config", Condition, Warning,
        "a config key the target release removed is set (server.properties, a dynamic broker config, a topic override): the broker ignores or refuses it after the upgrade (`upgrade-check`)",
        "delete the key (`kafka-configs.sh --alter --delete-config KEY`, or edit server.properties) and set its replacement where one exists";
    UPGRADE_CONFIG_REJECTED = "upgrade.config_rejected", Condition, Warning,
        "a config value the current release accepts and the target release's validator refuses (e.g. `segment.bytes` below 1 MiB from 4.1): the topic falls back to the broker value (`upgrade-check`)",
        "set a valid value before upgrading (`kafka-configs.sh --alter --add-config KEY=VALUE`)";
    UPGRADE_FUTURE_TIMESTAMPS_REJECTED = "upgrade.future_timestamps_rejected", Condition, Warning,
        "records stamped further ahead of their append than the target release's `message.timestamp.after.max.ms` allows (1 h by default from 4.0): the producers writing them get `InvalidTimestampException` after the upgrade (`upgrade-check`)",
        "fix the producers' clocks or timestamps, or set `message.timestamp.after.max.ms` on the topic to keep accepting them";
    UPGRADE_DEFAULT_CHANGES = "upgrade.default_changes", Condition, Info,
        "a config the topics or the broker take from Kafka's default has another default in the target release (`upgrade-check`)",
        "none needed if the new default suits; else set the old value explicitly before upgrading";
    UPGRADE_TRANSACTION_MARKERS = "upgrade.transaction_markers", Condition, Info,
        "transactional data and a target release of 4.0 or later: once `transaction.version=2` is finalized, each transaction bumps the producer epoch and its marker carries an epoch above the data's (KIP-890) (`upgrade-check`)",
        "finish or abort open transactions before finalizing `transaction.version`; tools that pair markers by equal epoch must pair by producer id and epoch ≤ the marker's";
}

/// The kind with this code.
pub fn by_code(code: &str) -> Option<&'static FindingKind> {
    ALL.iter().copied().find(|k| k.code == code)
}

/// Whether a code follows the naming rule of this module.
pub fn code_follows_rule(code: &str) -> bool {
    let Some((domain, condition)) = code.split_once('.') else {
        return false;
    };
    DOMAINS.contains(&domain)
        && !condition.is_empty()
        && condition
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && !condition.starts_with('_')
        && !condition.ends_with('_')
        && !condition.contains("__")
}

/// The README's "Finding codes" table, rendered from the catalog.
pub fn markdown_table() -> String {
    let mut out =
        String::from("| code | class | default severity | meaning |\n|---|---|---|---|\n");
    for k in ALL {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            k.code,
            k.class.name(),
            k.severity.name(),
            k.meaning
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn codes_are_unique_and_follow_the_rule() {
        let mut seen = BTreeSet::new();
        for k in ALL {
            assert!(seen.insert(k.code), "duplicate code {}", k.code);
            assert!(
                code_follows_rule(k.code),
                "{} breaks the naming rule",
                k.code
            );
        }
        assert!(
            !code_follows_rule("Log.x") && !code_follows_rule("log.") && !code_follows_rule("x.y")
        );
        assert!(!code_follows_rule("log.Truncated") && !code_follows_rule("log.a__b"));
    }

    #[test]
    fn every_kind_has_a_one_line_meaning_and_a_fix() {
        for k in ALL {
            for (what, text) in [("meaning", k.meaning), ("fix", k.fix)] {
                assert!(!text.trim().is_empty(), "{}: empty {what}", k.code);
                assert!(
                    !text.contains('\n') && !text.contains('|'),
                    "{}: {what} must be one table cell",
                    k.code
                );
            }
        }
    }

    #[test]
    fn lookup_by_code() {
        assert_eq!(by_code("log.truncated_tail"), Some(&LOG_TRUNCATED_TAIL));
        assert_eq!(by_code("log.nope"), None);
    }
}
