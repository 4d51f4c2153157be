//! Synthetic Kafka log dirs that the real broker loads as its own (issue 13 item 1).
//!
//! One generator for the benches (`#[path]`-included by them) and `examples/gen.rs`
//! (`cargo run --release --example gen -- --help`). It writes, per log dir:
//! - every data partition as `segments` segments of v2 batches (realistic JSON-ish values of
//!   `record_bytes`, `batch_records` records per batch, create-time timestamps rising evenly over
//!   `[end_ms - span_ms, end_ms]`, optionally lz4/zstd), each segment with the `.index` and
//!   `.timeindex` exactly as `LogSegment.append` (4.1+, per batch, spec Errata 2) writes them for
//!   leader appends and trims them at roll or clean close: an entry for a batch starting more
//!   than `index_interval_bytes` after the previous entry (its last offset, its position), the
//!   time index's `maybeAppend(max so far)` at the same points and once more at close;
//! - idempotent producers (`producers` per partition, sequences per producer), with the
//!   `<offset>.snapshot` files a broker writes at each roll and at its clean shutdown;
//! - compacted topics: keys drawn from `compact_keys` distinct keys (repeated), every
//!   `tombstone_every`th record a tombstone;
//! - `__consumer_offsets` with `OffsetCommitKey`/`OffsetCommitValue` v3 records (several rounds
//!   of commits per group; a group lives in partition `abs(hashCode(group)) % partitions`);
//! - `partition.metadata` with the given topic ids, `leader-epoch-checkpoint` (epoch 0 at 0), the
//!   root checkpoints (recovery point = replication = log end offset), `meta.properties` and
//!   `.kafka_cleanshutdown` (unless an existing dir's are kept: [`GenSpec::into_existing`]).
//!
//! The shared encoders of `logclean::formats` write the indexes, checkpoints, snapshots,
//! partition.metadata and the clean-shutdown marker. The v2 batch and group-record encoders of
//! `src/formats` are test-only (`#[cfg(test)]`), so the batch and the two record shapes are
//! written here, in a few lines each (CRC-32C over the batch as the broker computes it).
//!
//! [`Summary`] says what was written (per partition: offsets, records, a checksum of every
//! record; per group: the last committed offsets), as JSON for conformance/generator-check.

// Generator code over data it makes itself: a panic here is a failed run, not bad input.
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    dead_code
)]

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use logclean::formats::bytes::{encode_varint, encode_varlong};
use logclean::formats::checkpoint::{
    encode_offset_checkpoint, parse_offset_checkpoint, TopicPartitionOffset,
};
use logclean::formats::clean_shutdown::{encode_clean_shutdown, parse_clean_shutdown};
use logclean::formats::leader_epoch::{encode_leader_epoch_checkpoint, EpochEntry};
use logclean::formats::offset_index::{encode_offset_index, OffsetIndexEntry};
use logclean::formats::partition_metadata::{encode_partition_metadata, Uuid};
use logclean::formats::producer_snapshot::{encode_producer_snapshot, ProducerEntry};
use logclean::formats::time_index::{encode_time_index, TimeIndexEntry};

/// The internal topic holding group commits.
pub const OFFSETS_TOPIC: &str = "__consumer_offsets";

/// Batch codecs the generator writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    None,
    Lz4,
    Zstd,
}

impl Codec {
    pub fn parse(s: &str) -> Result<Codec, String> {
        match s {
            "none" => Ok(Codec::None),
            "lz4" => Ok(Codec::Lz4),
            "zstd" => Ok(Codec::Zstd),
            other => Err(format!("unknown codec {other:?} (none, lz4, zstd)")),
        }
    }
    fn id(self) -> i16 {
        match self {
            Codec::None => 0,
            Codec::Lz4 => 3,
            Codec::Zstd => 4,
        }
    }
}

/// One topic to generate.
#[derive(Debug, Clone)]
pub struct TopicSpec {
    pub name: String,
    pub partitions: u32,
    /// `cleanup.policy=compact`: repeated keys and tombstones.
    pub compact: bool,
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct GenSpec {
    pub topics: Vec<TopicSpec>,
    /// Segments per data partition (the last one is the active segment).
    pub segments: u32,
    /// Target `.log` size per segment (a segment ends at the first batch reaching it).
    pub segment_bytes: u64,
    /// Uncompressed size of one record value.
    pub record_bytes: usize,
    /// Records per batch.
    pub batch_records: usize,
    pub codec: Codec,
    /// `index.interval.bytes`.
    pub index_interval_bytes: u64,
    /// Idempotent producers per data partition (0: plain producers, id -1).
    pub producers: u32,
    /// Distinct keys of a compacted topic.
    pub compact_keys: u64,
    /// Every n-th record of a compacted topic is a tombstone (0: none).
    pub tombstone_every: u64,
    /// Consumer groups committing offsets (0: no `__consumer_offsets` at all).
    pub groups: u32,
    /// Partitions of `__consumer_offsets` (`offsets.topic.num.partitions`).
    pub offsets_partitions: u32,
    /// Commit rounds per group (each round commits every data partition it consumes).
    pub commit_rounds: u32,
    /// Target `.log` size of a `__consumer_offsets` segment (0: each partition is one segment,
    /// as a coordinator's log between cleanings of a small cluster).
    pub offsets_segment_bytes: u64,
    /// Topic ids by name; topics without one get a deterministic id from their name.
    pub topic_ids: BTreeMap<String, Uuid>,
    /// Last record timestamp (epoch ms).
    pub end_ms: i64,
    /// Time covered by a partition's records.
    pub span_ms: i64,
    /// Keep `meta.properties`, `__cluster_metadata-0`, other partitions and an existing
    /// `.kafka_cleanshutdown` (a broker's own dir); root checkpoints are merged.
    pub into_existing: bool,
    /// Broker epoch written into `.kafka_cleanshutdown` (when none is kept); `None`: no marker
    /// (an unclean shutdown).
    pub clean_shutdown_epoch: Option<i64>,
    pub seed: u64,
}

impl Default for GenSpec {
    fn default() -> Self {
        GenSpec {
            topics: vec![TopicSpec {
                name: "bench".into(),
                partitions: 10,
                compact: false,
            }],
            segments: 10,
            segment_bytes: 64 * 1024,
            record_bytes: 300,
            batch_records: 16,
            codec: Codec::None,
            index_interval_bytes: 4096,
            producers: 2,
            compact_keys: 1000,
            tombstone_every: 50,
            groups: 0,
            offsets_partitions: 50,
            commit_rounds: 3,
            offsets_segment_bytes: 0,
            topic_ids: BTreeMap::new(),
            end_ms: 1_795_000_000_000,
            span_ms: 86_400_000,
            into_existing: false,
            clean_shutdown_epoch: Some(1),
            seed: 0x5eed,
        }
    }
}

/// What one partition holds after generation.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct PartitionSummary {
    pub topic: String,
    pub partition: u32,
    pub log_start_offset: i64,
    pub log_end_offset: i64,
    pub segments: u32,
    /// Base offset of the active (last) segment: the recovery point a crash leaves behind
    /// (the broker flushes a segment when it rolls it).
    pub active_segment_base: i64,
    pub records: u64,
    pub bytes: u64,
    /// Wrapping sum over records of `crc32c(key) << 32 | crc32c(value)`, a null key or value
    /// counting as `0xFFFFFFFF` (what GeneratorCheck.java computes from a consumer).
    pub checksum: u64,
}

/// The generator's account of a log dir.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Summary {
    pub partitions: Vec<PartitionSummary>,
    /// group → "topic-partition" → last committed offset.
    pub commits: BTreeMap<String, BTreeMap<String, i64>>,
    pub topic_ids: BTreeMap<String, String>,
    pub segments: u64,
    pub files: u64,
    pub bytes: u64,
}

/// The generator's xorshift64* (deterministic per seed).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Java's `String.hashCode` (UTF-16 code units), for the coordinator's partition of a group.
pub fn java_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// `Utils.abs(groupId.hashCode()) % partitions` (Kafka's `Utils.abs` maps MIN_VALUE to 0).
pub fn group_partition(group: &str, partitions: u32) -> u32 {
    let h = java_hash(group);
    let abs = if h == i32::MIN { 0 } else { h.abs() };
    (abs as u32) % partitions.max(1)
}

/// A deterministic non-zero topic id from a name (when none is given).
pub fn default_topic_id(name: &str) -> Uuid {
    let a = u64::from(crc32c::crc32c(name.as_bytes()));
    let b = u64::from(crc32c::crc32c_append(0x9e37_79b9, name.as_bytes()));
    Uuid::from_halves((a << 32) | b | 1, (b << 32) | a | 1)
}

/// One record to encode (offset deltas are positional).
pub struct Rec {
    pub ts: i64,
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
}

/// How a batch is stamped.
#[derive(Debug, Clone, Copy)]
pub struct BatchMeta {
    pub base_offset: i64,
    pub leader_epoch: i32,
    pub codec: Codec,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    /// Attribute bits besides the codec (0x10 transactional, 0x20 control).
    pub attributes: i16,
}

fn compress(codec: Codec, data: &[u8]) -> Vec<u8> {
    match codec {
        Codec::None => data.to_vec(),
        Codec::Lz4 => {
            // Kafka's Lz4BlockOutputStream: 64 KiB independent blocks.
            let info = lz4_flex::frame::FrameInfo::new()
                .block_size(lz4_flex::frame::BlockSize::Max64KB)
                .block_mode(lz4_flex::frame::BlockMode::Independent);
            let mut e = lz4_flex::frame::FrameEncoder::with_frame_info(info, Vec::new());
            e.write_all(data).expect("lz4");
            e.finish().expect("lz4")
        }
        // Kafka's default zstd level is 3.
        Codec::Zstd => zstd::bulk::compress(data, 3).expect("zstd"),
    }
}

/// Append one v2 batch (CRC-32C over attributes..end) of `records` to `out`; returns its size.
pub fn push_batch(out: &mut Vec<u8>, meta: &BatchMeta, records: &[Rec]) -> usize {
    let base_ts = records.first().map_or(-1, |r| r.ts);
    let max_ts = records.iter().map(|r| r.ts).max().unwrap_or(-1);
    let mut section = Vec::with_capacity(records.len() * 64);
    let mut body = Vec::with_capacity(256);
    for (i, r) in records.iter().enumerate() {
        body.clear();
        body.push(0); // record attributes
        encode_varlong(r.ts - base_ts, &mut body);
        encode_varint(i as i32, &mut body);
        for part in [&r.key, &r.value] {
            match part {
                Some(b) => {
                    encode_varint(b.len() as i32, &mut body);
                    body.extend_from_slice(b);
                }
                None => encode_varint(-1, &mut body),
            }
        }
        encode_varint(0, &mut body); // headers
        encode_varint(body.len() as i32, &mut section);
        section.extend_from_slice(&body);
    }
    let section = compress(meta.codec, &section);
    let mut tail = Vec::with_capacity(section.len() + 40);
    tail.extend_from_slice(&(meta.codec.id() | meta.attributes).to_be_bytes());
    tail.extend_from_slice(&(records.len() as i32 - 1).to_be_bytes());
    tail.extend_from_slice(&base_ts.to_be_bytes());
    tail.extend_from_slice(&max_ts.to_be_bytes());
    tail.extend_from_slice(&meta.producer_id.to_be_bytes());
    tail.extend_from_slice(&meta.producer_epoch.to_be_bytes());
    tail.extend_from_slice(&meta.base_sequence.to_be_bytes());
    tail.extend_from_slice(&(records.len() as i32).to_be_bytes());
    tail.extend_from_slice(&section);
    let start = out.len();
    out.extend_from_slice(&meta.base_offset.to_be_bytes());
    out.extend_from_slice(&((tail.len() + 9) as i32).to_be_bytes());
    out.extend_from_slice(&meta.leader_epoch.to_be_bytes());
    out.push(2);
    out.extend_from_slice(&crc32c::crc32c(&tail).to_be_bytes());
    out.extend_from_slice(&tail);
    out.len() - start
}

/// `OffsetCommitKey` (record type 1): group, topic, partition.
pub fn offset_commit_key(group: &str, topic: &str, partition: i32) -> Vec<u8> {
    let mut k = 1i16.to_be_bytes().to_vec();
    for s in [group, topic] {
        k.extend_from_slice(&(s.len() as i16).to_be_bytes());
        k.extend_from_slice(s.as_bytes());
    }
    k.extend_from_slice(&partition.to_be_bytes());
    k
}

/// `OffsetCommitValue` v3 (what 4.0 writes): offset, leader epoch, metadata "", commit time.
pub fn offset_commit_value(offset: i64, leader_epoch: i32, commit_ms: i64) -> Vec<u8> {
    let mut v = 3i16.to_be_bytes().to_vec();
    v.extend_from_slice(&offset.to_be_bytes());
    v.extend_from_slice(&leader_epoch.to_be_bytes());
    v.extend_from_slice(&0i16.to_be_bytes());
    v.extend_from_slice(&commit_ms.to_be_bytes());
    v
}

const WORDS: &[&str] = &[
    "order",
    "created",
    "updated",
    "cancelled",
    "shipped",
    "payment",
    "accepted",
    "declined",
    "customer",
    "account",
    "session",
    "checkout",
    "basket",
    "warehouse",
    "express",
    "standard",
    "priority",
    "retry",
    "timeout",
    "success",
    "pending",
    "eu-west-1",
    "us-east-2",
    "mobile",
    "desktop",
    "search",
    "click",
    "promo",
    "refund",
    "invoice",
    "delivered",
];

/// A ~`size`-byte JSON-ish event (compresses about as real events do).
pub fn json_value(rng: &mut Rng, size: usize) -> Vec<u8> {
    let mut s = format!(
        "{{\"id\":{},\"user\":\"user-{}\",\"session\":\"{:016x}\",\"amount\":{}.{:02},\"tags\":[",
        rng.below(1 << 40),
        rng.below(100_000),
        rng.next(),
        rng.below(10_000),
        rng.below(100)
    );
    let mut first = true;
    while s.len() + 4 < size {
        if !first {
            s.push(',');
        }
        first = false;
        s.push('"');
        s.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
        s.push('"');
    }
    s.push_str("]}");
    s.into_bytes()
}

fn record_hash(key: Option<&[u8]>, value: Option<&[u8]>) -> u64 {
    let h = |b: Option<&[u8]>| b.map_or(0xFFFF_FFFF, |b| u64::from(crc32c::crc32c(b)));
    (h(key) << 32) | h(value)
}

fn segment_name(base: i64, ext: &str) -> String {
    format!("{base:020}.{ext}")
}

/// Indexes of one segment as the broker's append path builds them (see the module docs).
#[derive(Default)]
struct IndexBuilder {
    base: i64,
    position: u64,
    since_last_entry: u64,
    max_ts: i64,
    max_ts_offset: i64,
    offsets: Vec<OffsetIndexEntry>,
    times: Vec<TimeIndexEntry>,
}

impl IndexBuilder {
    fn new(base: i64) -> Self {
        IndexBuilder {
            base,
            max_ts: -1,
            max_ts_offset: base,
            ..Default::default()
        }
    }
    fn time_maybe_append(&mut self, ts: i64, offset: i64) {
        if self.times.last().is_none_or(|l| ts > l.timestamp) {
            self.times.push(TimeIndexEntry {
                timestamp: ts,
                relative_offset: (offset - self.base) as i32,
            });
        }
    }
    fn batch(&mut self, last_offset: i64, max_ts: i64, size: u64, interval: u64) {
        if max_ts > self.max_ts {
            self.max_ts = max_ts;
            self.max_ts_offset = last_offset;
        }
        if self.since_last_entry > interval {
            self.offsets.push(OffsetIndexEntry {
                relative_offset: (last_offset - self.base) as i32,
                position: self.position as i32,
            });
            self.time_maybe_append(self.max_ts, self.max_ts_offset);
            self.since_last_entry = 0;
        }
        self.position += size;
        self.since_last_entry += size;
    }
    /// Roll or clean close: the final time-index entry, both files trimmed.
    fn finish(mut self) -> (Vec<u8>, Vec<u8>) {
        if self.max_ts >= 0 {
            self.time_maybe_append(self.max_ts, self.max_ts_offset);
        }
        (
            encode_offset_index(&self.offsets),
            encode_time_index(&self.times),
        )
    }
}

#[derive(Clone, Copy)]
struct ProducerState {
    id: i64,
    next_seq: i32,
    last: Option<ProducerEntry>,
}

fn snapshot_entries(producers: &[ProducerState]) -> Vec<ProducerEntry> {
    producers.iter().filter_map(|p| p.last).collect()
}

struct Writer {
    files: u64,
    bytes: u64,
}

impl Writer {
    fn write(&mut self, path: &Path, data: &[u8]) {
        std::fs::write(path, data).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        self.files += 1;
        self.bytes += data.len() as u64;
    }
}

/// A partition's records, batch by batch (data topics or `__consumer_offsets`).
trait BatchSource {
    /// The next batch's records and producer (index into the producer table, or none);
    /// `None` when the partition is complete.
    fn next_batch(
        &mut self,
        next_offset: i64,
        segment_full: bool,
    ) -> Option<(Vec<Rec>, Option<usize>)>;
}

struct DataSource<'a> {
    spec: &'a GenSpec,
    compact: bool,
    rng: Rng,
    segments_done: u32,
    /// Records per partition, estimated from the segment target, for even timestamps.
    total_records: u64,
    written: u64,
    keys_written: u64,
}

impl BatchSource for DataSource<'_> {
    fn next_batch(&mut self, _next: i64, segment_full: bool) -> Option<(Vec<Rec>, Option<usize>)> {
        if segment_full {
            self.segments_done += 1;
        }
        if self.segments_done >= self.spec.segments {
            return None;
        }
        let start = self.spec.end_ms - self.spec.span_ms;
        let mut recs = Vec::with_capacity(self.spec.batch_records);
        for _ in 0..self.spec.batch_records {
            let frac = (self.written.min(self.total_records) as f64) / (self.total_records as f64);
            let ts = start + (frac * self.spec.span_ms as f64) as i64;
            self.written += 1;
            let (key, value) = if self.compact {
                self.keys_written += 1;
                let k = format!("key-{:08}", self.rng.below(self.spec.compact_keys));
                let tomb = self.spec.tombstone_every > 0
                    && self.keys_written % self.spec.tombstone_every == 0;
                let v = (!tomb).then(|| json_value(&mut self.rng, self.spec.record_bytes));
                (Some(k.into_bytes()), v)
            } else {
                let k = (self.rng.below(4) != 0)
                    .then(|| format!("user-{}", self.rng.below(100_000)).into_bytes());
                (k, Some(json_value(&mut self.rng, self.spec.record_bytes)))
            };
            recs.push(Rec { ts, key, value });
        }
        let producer = if self.spec.producers > 0 {
            Some(self.rng.below(u64::from(self.spec.producers)) as usize)
        } else {
            None
        };
        Some((recs, producer))
    }
}

/// Commit batches of the groups living in one `__consumer_offsets` partition.
struct OffsetsSource {
    /// Batches still to write: (commit time, records).
    batches: std::vec::IntoIter<Vec<Rec>>,
}

impl BatchSource for OffsetsSource {
    fn next_batch(&mut self, _next: i64, _full: bool) -> Option<(Vec<Rec>, Option<usize>)> {
        self.batches.next().map(|b| (b, None))
    }
}

struct Written {
    summary: PartitionSummary,
    segments: u32,
}

/// Write one partition dir from `source`; segments end at `segment_bytes` (data topics) or never
/// (`roll = false`).
#[allow(clippy::too_many_arguments)]
fn write_partition(
    w: &mut Writer,
    dir: &Path,
    topic: &str,
    partition: u32,
    topic_id: Uuid,
    spec: &GenSpec,
    roll: bool,
    source: &mut dyn BatchSource,
    producer_base: i64,
) -> Written {
    let pdir = dir.join(format!("{topic}-{partition}"));
    if pdir.exists() {
        std::fs::remove_dir_all(&pdir).expect("remove old partition dir");
    }
    std::fs::create_dir_all(&pdir).expect("mkdir partition");
    let mut producers: Vec<ProducerState> = (0..spec.producers)
        .map(|i| ProducerState {
            id: producer_base + i64::from(i),
            next_seq: 0,
            last: None,
        })
        .collect();
    let mut summary = PartitionSummary {
        topic: topic.to_owned(),
        partition,
        ..Default::default()
    };
    let mut next_offset = 0i64;
    let mut segments = 0u32;
    let mut log = Vec::with_capacity(spec.segment_bytes as usize + 64 * 1024);
    let mut index = IndexBuilder::new(0);
    let mut full = false;
    let flush = |w: &mut Writer, log: &mut Vec<u8>, index: IndexBuilder| {
        let base = index.base;
        w.write(&pdir.join(segment_name(base, "log")), log);
        let (oi, ti) = index.finish();
        w.write(&pdir.join(segment_name(base, "index")), &oi);
        w.write(&pdir.join(segment_name(base, "timeindex")), &ti);
        log.clear();
    };
    loop {
        let batch = source.next_batch(next_offset, full);
        let Some((recs, producer)) = batch else { break };
        let n = recs.len() as i64;
        let mut meta = BatchMeta {
            base_offset: next_offset,
            leader_epoch: 0,
            codec: spec.codec,
            producer_id: -1,
            producer_epoch: -1,
            base_sequence: -1,
            attributes: 0,
        };
        if let Some(p) = producer.and_then(|i| producers.get_mut(i)) {
            meta.producer_id = p.id;
            meta.producer_epoch = 0;
            meta.base_sequence = p.next_seq;
        }
        if topic == OFFSETS_TOPIC {
            meta.codec = Codec::None;
        }
        let size = push_batch(&mut log, &meta, &recs) as u64;
        let last = next_offset + n - 1;
        let max_ts = recs.iter().map(|r| r.ts).max().unwrap_or(-1);
        index.batch(last, max_ts, size, spec.index_interval_bytes);
        if let Some(p) = producer.and_then(|i| producers.get_mut(i)) {
            p.next_seq = p.next_seq.wrapping_add(n as i32);
            p.last = Some(ProducerEntry {
                producer_id: p.id,
                epoch: 0,
                last_sequence: p.next_seq - 1,
                last_offset: last,
                offset_delta: (n - 1) as i32,
                timestamp: max_ts,
                coordinator_epoch: -1,
                current_txn_first_offset: -1,
            });
        }
        for r in &recs {
            summary.checksum = summary
                .checksum
                .wrapping_add(record_hash(r.key.as_deref(), r.value.as_deref()));
        }
        summary.records += n as u64;
        summary.bytes += size;
        next_offset = last + 1;
        full = roll && log.len() as u64 >= spec.segment_bytes;
        if full && segments + 1 < spec.segments {
            // Roll: close this segment, snapshot the producer state at the new base.
            let done = std::mem::replace(&mut index, IndexBuilder::new(next_offset));
            flush(w, &mut log, done);
            segments += 1;
            if spec.producers > 0 {
                w.write(
                    &pdir.join(segment_name(next_offset, "snapshot")),
                    &encode_producer_snapshot(&snapshot_entries(&producers)),
                );
            }
        }
    }
    // The active segment (the last one, or the only, possibly empty, one), closed cleanly.
    summary.active_segment_base = index.base;
    flush(w, &mut log, index);
    segments += 1;
    if spec.producers > 0 && next_offset > 0 {
        // Clean shutdown: a snapshot at the log end offset.
        w.write(
            &pdir.join(segment_name(next_offset, "snapshot")),
            &encode_producer_snapshot(&snapshot_entries(&producers)),
        );
    }
    let epochs: &[EpochEntry] = if next_offset > 0 {
        &[EpochEntry {
            epoch: 0,
            start_offset: 0,
        }]
    } else {
        &[]
    };
    w.write(
        &pdir.join("leader-epoch-checkpoint"),
        &encode_leader_epoch_checkpoint(epochs),
    );
    w.write(
        &pdir.join("partition.metadata"),
        &encode_partition_metadata(topic_id),
    );
    summary.log_end_offset = next_offset;
    summary.segments = segments;
    Written { summary, segments }
}

fn meta_properties(cluster_id: &str, node_id: u32, dir_seed: &str) -> String {
    let dir_id = default_topic_id(dir_seed).to_base64();
    format!(
        "#\n#Generated by logclean's generator\nnode.id={node_id}\ndirectory.id={dir_id}\n\
         version=1\ncluster.id={cluster_id}\n"
    )
}

/// The fixture harness's cluster id (base64 of "LogCleanFixtures").
pub const CLUSTER_ID: &str = "TG9nQ2xlYW5GaXh0dXJlcw";

/// Generate `spec` into `dir` (created if missing); returns the summary.
pub fn generate(dir: &Path, spec: &GenSpec) -> Summary {
    std::fs::create_dir_all(dir).expect("mkdir log dir");
    let mut w = Writer { files: 0, bytes: 0 };
    let mut summary = Summary::default();
    let mut data_tps: Vec<(String, u32)> = Vec::new();
    let mut producer_base = 1000i64;
    for (ti, t) in spec.topics.iter().enumerate() {
        let id = spec
            .topic_ids
            .get(&t.name)
            .copied()
            .unwrap_or_else(|| default_topic_id(&t.name));
        summary.topic_ids.insert(t.name.clone(), id.to_base64());
        // Enough records per partition to fill the segments, for evenly rising timestamps.
        let batch_guess = (spec.record_bytes as u64 + 20) * spec.batch_records as u64 + 61;
        let per_segment = spec.segment_bytes.div_ceil(batch_guess.max(1)).max(1);
        let total_records =
            per_segment * u64::from(spec.segments.max(1)) * spec.batch_records as u64;
        for p in 0..t.partitions {
            let mut src = DataSource {
                spec,
                compact: t.compact,
                rng: Rng(spec.seed ^ ((ti as u64) << 40) ^ (u64::from(p) << 8) ^ 0x9e37_79b9),
                segments_done: 0,
                total_records,
                written: 0,
                keys_written: 0,
            };
            let out = write_partition(
                &mut w,
                dir,
                &t.name,
                p,
                id,
                spec,
                true,
                &mut src,
                producer_base,
            );
            producer_base += i64::from(spec.producers);
            summary.segments += u64::from(out.segments);
            summary.partitions.push(out.summary);
            data_tps.push((t.name.clone(), p));
        }
    }
    if spec.groups > 0 {
        let id = spec
            .topic_ids
            .get(OFFSETS_TOPIC)
            .copied()
            .unwrap_or_else(|| default_topic_id(OFFSETS_TOPIC));
        summary
            .topic_ids
            .insert(OFFSETS_TOPIC.into(), id.to_base64());
        let leo: BTreeMap<(String, u32), i64> = summary
            .partitions
            .iter()
            .map(|p| ((p.topic.clone(), p.partition), p.log_end_offset))
            .collect();
        let mut by_partition: Vec<Vec<Vec<Rec>>> =
            (0..spec.offsets_partitions).map(|_| Vec::new()).collect();
        let mut rng = Rng(spec.seed ^ 0xc0ff_ee00);
        for g in 0..spec.groups {
            let group = format!("group-{g:04}");
            // Each group consumes a slice of the data partitions (at least one).
            let n = data_tps.len();
            let take = (n / 4).clamp(1, 200).min(n);
            let first = if n == 0 { 0 } else { (g as usize * 7) % n };
            let mine: Vec<&(String, u32)> = (0..take)
                .filter_map(|i| data_tps.get((first + i) % n))
                .collect();
            let gp = group_partition(&group, spec.offsets_partitions) as usize;
            let commits = summary.commits.entry(group.clone()).or_default();
            for round in 1..=spec.commit_rounds {
                let commit_ms = spec.end_ms - spec.span_ms
                    + spec.span_ms * i64::from(round) / i64::from(spec.commit_rounds.max(1));
                let mut recs = Vec::with_capacity(mine.len());
                for (topic, p) in &mine {
                    let end = leo.get(&(topic.clone(), *p)).copied().unwrap_or(0);
                    let offset = if round == spec.commit_rounds {
                        end - (rng.below(3) as i64).min(end)
                    } else {
                        end * i64::from(round) / i64::from(spec.commit_rounds) / 2
                    };
                    commits.insert(format!("{topic}-{p}"), offset);
                    recs.push(Rec {
                        ts: commit_ms,
                        key: Some(offset_commit_key(&group, topic, *p as i32)),
                        value: Some(offset_commit_value(offset, 0, commit_ms)),
                    });
                }
                if !recs.is_empty() {
                    by_partition[gp].push(recs);
                }
            }
        }
        // Batches in commit-time order within each partition (rounds interleave across groups).
        for (p, batches) in by_partition.into_iter().enumerate() {
            let mut batches = batches;
            batches.sort_by_key(|b| b.first().map_or(0, |r| r.ts));
            let mut src = OffsetsSource {
                batches: batches.into_iter(),
            };
            let no_producers = GenSpec {
                producers: 0,
                segments: u32::MAX,
                segment_bytes: spec.offsets_segment_bytes,
                ..spec.clone()
            };
            let out = write_partition(
                &mut w,
                dir,
                OFFSETS_TOPIC,
                p as u32,
                id,
                &no_producers,
                spec.offsets_segment_bytes > 0,
                &mut src,
                0,
            );
            summary.segments += u64::from(out.segments);
            summary.partitions.push(out.summary);
        }
    }
    write_root(&mut w, dir, spec, &summary);
    summary.files = w.files;
    summary.bytes = w.bytes;
    summary
}

fn write_root(w: &mut Writer, dir: &Path, spec: &GenSpec, summary: &Summary) {
    let generated: std::collections::BTreeSet<&str> = summary
        .partitions
        .iter()
        .map(|p| p.topic.as_str())
        .collect();
    let ours = |topic: &str| generated.contains(topic);
    let keep = |name: &str| -> Vec<TopicPartitionOffset> {
        if !spec.into_existing {
            return Vec::new();
        }
        std::fs::read(dir.join(name))
            .ok()
            .and_then(|b| parse_offset_checkpoint(&b).ok())
            .map(|f| f.values().filter(|e| !ours(&e.topic)).cloned().collect())
            .unwrap_or_default()
    };
    let ends: Vec<TopicPartitionOffset> = summary
        .partitions
        .iter()
        .map(|p| TopicPartitionOffset {
            topic: p.topic.clone(),
            partition: p.partition as i32,
            offset: p.log_end_offset,
        })
        .collect();
    // After a crash the recovery point is where the last flush left it: the active segment's
    // base (a segment is flushed when it rolls); after a clean shutdown, the log end.
    let recovery: Vec<TopicPartitionOffset> = summary
        .partitions
        .iter()
        .map(|p| TopicPartitionOffset {
            topic: p.topic.clone(),
            partition: p.partition as i32,
            offset: match spec.clean_shutdown_epoch {
                Some(_) => p.log_end_offset,
                None => p.active_segment_base,
            },
        })
        .collect();
    for (name, values) in [
        ("recovery-point-offset-checkpoint", &recovery),
        ("replication-offset-checkpoint", &ends),
    ] {
        let mut entries = keep(name);
        entries.extend(values.iter().cloned());
        w.write(
            &dir.join(name),
            &encode_offset_checkpoint(&entries).expect("checkpoint"),
        );
    }
    // Log start offsets are all 0 (= the first segment's base): Kafka writes no entry for them.
    let starts = keep("log-start-offset-checkpoint");
    w.write(
        &dir.join("log-start-offset-checkpoint"),
        &encode_offset_checkpoint(&starts).expect("checkpoint"),
    );
    let meta = dir.join("meta.properties");
    if !(spec.into_existing && meta.exists()) {
        w.write(
            &meta,
            meta_properties(CLUSTER_ID, 1, &dir.to_string_lossy()).as_bytes(),
        );
    }
    let marker = dir.join(".kafka_cleanshutdown");
    let kept_epoch = std::fs::read(&marker)
        .ok()
        .and_then(|b| parse_clean_shutdown(&b).ok())
        .and_then(|m| m.broker_epoch());
    match (spec.clean_shutdown_epoch, kept_epoch, spec.into_existing) {
        (None, _, _) => {
            let _ = std::fs::remove_file(&marker);
        }
        (Some(_), Some(epoch), true) => w.write(&marker, &encode_clean_shutdown(epoch)),
        (Some(epoch), _, _) => w.write(&marker, &encode_clean_shutdown(epoch)),
    }
}

/// Parse `{"topic": "base64 id", ...}`.
pub fn parse_topic_ids(json: &str) -> Result<BTreeMap<String, Uuid>, String> {
    let v: BTreeMap<String, String> =
        serde_json::from_str(json).map_err(|e| format!("topic ids JSON: {e}"))?;
    v.into_iter()
        .map(|(k, id)| {
            Uuid::from_base64(&id)
                .map(|u| (k.clone(), u))
                .map_err(|e| format!("topic id of {k}: {e:?}"))
        })
        .collect()
}

/// Where a partition dir of a generated log dir lives.
pub fn partition_dir(dir: &Path, topic: &str, partition: u32) -> PathBuf {
    dir.join(format!("{topic}-{partition}"))
}
