//! Bytes to boot: what the broker writes to a log dir before it serves, by its own rules, and so
//! the free space its next start needs at least (spec formats §1.4, §4.3, §5, §6.1; cleanup
//! rules §G1–G2; `LogLoader.load`, `recoverSegment`, `recoverLog`, `UnifiedLog
//! .rebuildProducerState`, `ProducerStateManager.takeSnapshot`, `AbstractIndex.resize`,
//! `CheckpointFile.write`):
//!
//! - per partition, the loader first deletes `.deleted`/`.cleaned` files, orphan indexes and
//!   stray snapshots (space it gets back before it writes in that partition);
//! - every recovered segment is read whole; its `.index`/`.timeindex` are reset to the
//!   preallocated size (sparse: no blocks) and rewritten through a memory map, one offset entry
//!   (8 B) and one time entry (12 B) per `index.interval.bytes` of `.log`: the pages beyond what
//!   the files hold already need new blocks (a page write into a hole on a full disk is the
//!   `InternalError` in a mapped index write);
//! - after each recovered segment a producer snapshot is written at its next offset
//!   (`takeSnapshot` in `recoverSegment`), and after loading one at the log end: one block each
//!   where no snapshot exists at that offset yet (a snapshot is never empty: its header alone is
//!   10 bytes). After a clean shutdown with no snapshot at all, empty snapshots at the last two
//!   segment bases and the log end;
//! - recovery ends with the time index's final entry (`maybeAppend(.., skipFullCheck)`): a
//!   recovered segment with records whose `.timeindex` holds no block yet gets one;
//! - checkpoint files (root checkpoints, `leader-epoch-checkpoint`, `quorum-state`) are
//!   rewritten through `<file>.tmp` and a rename, one at a time per thread: the largest of them
//!   needs its blocks once more while its tmp exists (the peak, not the sum: they do not
//!   coexist); a root checkpoint that is empty now (`replication-offset-checkpoint` before the
//!   first high watermark) gets content once partitions come online: a block each, for good;
//! - the metadata log (KRaft) appends on start (leader change, registrations: one new block of
//!   `.log` at least).
//!
//! Measured on the `unclean-shutdown` fixture with the real 4.4.0 broker (killed at its first
//! accepted connection): 28672 B written (three producer snapshots, the metadata log's
//! time-index page and append, a `leader-epoch-checkpoint.tmp`, the first
//! `replication-offset-checkpoint` content), which is what these rules give.
//!
//! The figure is a lower bound: blocks of the filesystem's own metadata (extents, journal) and
//! what the broker appends once it serves are not in it.

use std::collections::BTreeSet;

/// One segment the next start recovers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecoveredSegment {
    /// Its next offset (the next segment's base, or the log end).
    pub next_offset: i64,
    /// Its `.log` bytes.
    pub log_bytes: u64,
    /// Allocated bytes of its `.index` now.
    pub index_allocated: u64,
    /// Allocated bytes of its `.timeindex` now.
    pub time_index_allocated: u64,
    /// Where its last batch starts, when read.
    pub last_batch_position: Option<u64>,
    /// Its batches, when every batch was read.
    pub batches: Option<u64>,
    /// The index entries its recovery appends, counted from where each of its batches starts
    /// ([`index_entries_of`]), when they were read.
    pub walked_entries: Option<u64>,
}

/// Index entries `LogSegment.recover` appends over batches starting at `positions`
/// (ascending, the first at 0): an entry at a batch whose start lies more than `interval`
/// bytes past the last entry's (`validBytes - lastIndexEntry > indexIntervalBytes`; the
/// first batch, at 0, none).
pub fn index_entries_of(positions: &[u64], interval: u64) -> u64 {
    let mut last = 0u64;
    let mut entries = 0u64;
    for &p in positions {
        if p.saturating_sub(last) > interval {
            entries += 1;
            last = p;
        }
    }
    entries
}

/// Index entries `LogSegment.recover` appends to a segment: one at the start of a batch that
/// lies more than `index.interval.bytes` past the previous entry (none for the first batch:
/// it starts at 0). So at most one per batch but the first, and each entry's position at least
/// `interval + 1` past the last: bounded by the last batch's start. Without either, one per
/// interval of the `.log` (an upper bound). Exact when its batches were read
/// ([`RecoveredSegment::walked_entries`]).
pub fn recovered_index_entries(s: &RecoveredSegment, interval: u64) -> u64 {
    if let Some(n) = s.walked_entries {
        return n;
    }
    let interval = interval.max(1);
    let by_size = match s.last_batch_position {
        Some(last) => last / (interval + 1),
        None => s.log_bytes / interval,
    };
    s.batches
        .map_or(by_size, |b| by_size.min(b.saturating_sub(1)))
}

/// What decides one partition's writes at start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartitionBootFacts {
    /// The segments its next start recovers, oldest first.
    pub recovered: Vec<RecoveredSegment>,
    /// Offsets of its producer snapshots.
    pub snapshot_offsets: BTreeSet<i64>,
    /// Base offsets of its segments.
    pub segment_bases: Vec<i64>,
    /// Its log end offset (`None`: not known).
    pub log_end: Option<i64>,
    /// Its log dir shut down cleanly.
    pub clean_shutdown: bool,
    /// Allocated bytes the loader deletes first (`.deleted`, `.cleaned`, orphans, stray
    /// snapshots).
    pub freed_at_load: u64,
    /// `index.interval.bytes`.
    pub index_interval_bytes: u64,
}

/// What the start writes, in allocated bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BootWrites {
    /// Producer snapshots written.
    pub snapshot_files: u64,
    /// Their blocks.
    pub snapshot_bytes: u64,
    /// New blocks of rebuilt `.index`/`.timeindex` files.
    pub index_bytes: u64,
    /// Checkpoint tmp files, metadata-log appends, `quorum-state.tmp`.
    pub other_bytes: u64,
    /// Blocks the loader frees before writing (credited per partition only: one partition's
    /// deletions do not make room for another's writes, which may run first).
    pub freed_at_load: u64,
    /// The free space the start needs at least.
    pub needs_bytes: u64,
}

impl BootWrites {
    fn plus(self, o: BootWrites) -> BootWrites {
        BootWrites {
            snapshot_files: self.snapshot_files + o.snapshot_files,
            snapshot_bytes: self.snapshot_bytes + o.snapshot_bytes,
            index_bytes: self.index_bytes + o.index_bytes,
            other_bytes: self.other_bytes + o.other_bytes,
            freed_at_load: self.freed_at_load + o.freed_at_load,
            needs_bytes: self.needs_bytes + o.needs_bytes,
        }
    }

    /// Bytes written in all.
    pub fn written(&self) -> u64 {
        self.snapshot_bytes + self.index_bytes + self.other_bytes
    }
}

fn blocks(bytes: u64, block: u64) -> u64 {
    bytes.div_ceil(block.max(1)) * block.max(1)
}

/// One partition's writes at start on a filesystem of `block`-byte blocks.
pub fn partition_boot_writes(p: &PartitionBootFacts, block: u64) -> BootWrites {
    let mut snapshots: BTreeSet<i64> = BTreeSet::new();
    let mut index_bytes = 0u64;
    let interval = p.index_interval_bytes.max(1);
    for s in &p.recovered {
        snapshots.insert(s.next_offset);
        let entries = recovered_index_entries(s, interval);
        index_bytes += blocks(entries * 8, block).saturating_sub(s.index_allocated);
        // At least the final time-index entry of a segment with records.
        let time_entries = entries.max(u64::from(s.log_bytes > 0));
        index_bytes += blocks(time_entries * 12, block).saturating_sub(s.time_index_allocated);
    }
    if let Some(end) = p.log_end {
        if !p.recovered.is_empty() || !p.clean_shutdown {
            snapshots.insert(end);
        } else if p.snapshot_offsets.is_empty() {
            // The upgrade path: empty snapshots at the last two bases and the log end.
            snapshots.extend(p.segment_bases.iter().rev().take(2));
            snapshots.insert(end);
        }
    }
    let new: u64 = snapshots
        .iter()
        .filter(|o| !p.snapshot_offsets.contains(o))
        .count() as u64;
    let written = new * block + index_bytes;
    BootWrites {
        snapshot_files: new,
        snapshot_bytes: new * block,
        index_bytes,
        other_bytes: 0,
        freed_at_load: p.freed_at_load,
        needs_bytes: written.saturating_sub(p.freed_at_load),
    }
}

/// A log dir's writes at start: its partitions' plus the root's (the largest checkpoint
/// rewritten through a tmp file, `largest_checkpoint` bytes; `empty_checkpoints` root
/// checkpoints that get their first content; the metadata log's append when the dir holds it).
pub fn log_dir_boot_writes(
    partitions: &[PartitionBootFacts],
    largest_checkpoint: u64,
    empty_checkpoints: u64,
    holds_metadata_log: bool,
    block: u64,
) -> BootWrites {
    let mut w = partitions
        .iter()
        .map(|p| partition_boot_writes(p, block))
        .fold(BootWrites::default(), BootWrites::plus);
    let mut other = blocks(largest_checkpoint.max(1), block);
    if !partitions.is_empty() {
        other += empty_checkpoints * block;
    }
    if holds_metadata_log {
        other += block;
    }
    w.other_bytes += other;
    w.needs_bytes += other;
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: u64 = 4096;

    fn seg(next: i64, log: u64, idx: u64) -> RecoveredSegment {
        RecoveredSegment {
            next_offset: next,
            log_bytes: log,
            index_allocated: idx,
            time_index_allocated: idx,
            last_batch_position: None,
            batches: None,
            walked_entries: None,
        }
    }

    #[test]
    fn index_entries_follow_the_batches_recovery_walks() {
        // The full-disk scenario's `kept-0`: 16,456-byte batches, interval 4096: one entry per
        // batch but the first, not four per batch.
        let s = RecoveredSegment {
            last_batch_position: Some(16_456 * 9),
            batches: Some(10),
            ..seg(10, 16_456 * 10, 0)
        };
        assert_eq!(recovered_index_entries(&s, 4096), 9);
        // Small batches: the positions bound it (an entry needs more than 4096 B past the last).
        let s = RecoveredSegment {
            last_batch_position: Some(40_960),
            batches: Some(400),
            ..seg(10, 41_000, 0)
        };
        assert_eq!(recovered_index_entries(&s, 4096), 9);
        // Nothing read: one per interval of the `.log`.
        assert_eq!(recovered_index_entries(&seg(10, 41_000, 0), 4096), 10);
    }

    #[test]
    fn walked_batches_give_the_entries_recovery_appends() {
        // 3000-byte batches: an entry at every second batch (6000 > 4096; 3000 is not), where
        // the position bound says one per 4097 bytes.
        let positions: Vec<u64> = (0..100).map(|i| i * 3000).collect();
        assert_eq!(index_entries_of(&positions, 4096), 49);
        let s = RecoveredSegment {
            last_batch_position: Some(99 * 3000),
            batches: Some(100),
            walked_entries: Some(index_entries_of(&positions, 4096)),
            ..seg(100, 300_000, 0)
        };
        assert_eq!(recovered_index_entries(&s, 4096), 49);
        let bound = RecoveredSegment {
            walked_entries: None,
            ..s
        };
        assert_eq!(recovered_index_entries(&bound, 4096), 72);
        // Exactly the interval past the last entry is not more than it: no entry.
        assert_eq!(index_entries_of(&[0, 4096, 8193], 4096), 1);
        // 16,456-byte batches: one per batch but the first.
        let big: Vec<u64> = (0..10).map(|i| i * 16_456).collect();
        assert_eq!(index_entries_of(&big, 4096), 9);
        assert_eq!(index_entries_of(&[], 4096), 0);
    }

    #[test]
    fn unclean_recovery_writes_a_snapshot_per_segment_and_at_the_end() {
        let p = PartitionBootFacts {
            recovered: vec![seg(4, 100, 0), seg(8, 100, 0)],
            snapshot_offsets: [4].into_iter().collect(),
            segment_bases: vec![0, 4],
            log_end: Some(8),
            clean_shutdown: false,
            freed_at_load: 0,
            index_interval_bytes: 4096,
        };
        let w = partition_boot_writes(&p, B);
        // Snapshots at 4 (exists) and 8 (new, also the log end): one new file; each segment's
        // final time-index entry in a time index that holds no block: two pages.
        assert_eq!(
            (w.snapshot_files, w.snapshot_bytes, w.index_bytes),
            (1, B, 2 * B)
        );
        assert_eq!(w.needs_bytes, 3 * B);
    }

    #[test]
    fn rebuilt_index_pages_beyond_the_allocated_ones() {
        // 10 MiB of log: 2560 offset entries (20 KiB) and 2560 time entries (30 KiB).
        let mut p = PartitionBootFacts {
            recovered: vec![seg(9, 10 * 1024 * 1024, 0)],
            log_end: Some(9),
            index_interval_bytes: 4096,
            ..PartitionBootFacts::default()
        };
        let w = partition_boot_writes(&p, B);
        assert_eq!(w.index_bytes, 20 * 1024 + 32 * 1024);
        p.recovered[0] = seg(9, 10 * 1024 * 1024, 64 * 1024);
        assert_eq!(
            partition_boot_writes(&p, B).index_bytes,
            0,
            "pages already held"
        );
        p.freed_at_load = 1 << 20;
        assert_eq!(partition_boot_writes(&p, B).needs_bytes, 0, "deleted first");
    }

    #[test]
    fn clean_start_writes_nothing_but_the_upgrade_snapshots() {
        let mut p = PartitionBootFacts {
            snapshot_offsets: [12].into_iter().collect(),
            segment_bases: vec![0, 4, 8],
            log_end: Some(12),
            clean_shutdown: true,
            index_interval_bytes: 4096,
            ..PartitionBootFacts::default()
        };
        assert_eq!(partition_boot_writes(&p, B).needs_bytes, 0);
        p.snapshot_offsets.clear();
        assert_eq!(partition_boot_writes(&p, B).snapshot_files, 3);
        let d = log_dir_boot_writes(&[p], 24, 1, true, B);
        assert_eq!(d.other_bytes, 3 * B);
        assert_eq!(d.needs_bytes, 6 * B);
    }
}
