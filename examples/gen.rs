//! Write a synthetic Kafka log dir (benches/support/generator.rs): a developer tool for the
//! benches and conformance/generator-check, not part of the logclean binary.
//!
//! `cargo run --release --example gen -- --out DIR --partitions 20 --segments 5 --groups 4`
//! `... --topic orders:20 --topic users:4:compact --topic-ids ids.json --into-existing`
//! Prints the summary JSON (partitions, offsets, record counts and checksums, commits) to
//! `--summary FILE` or, without it, a one-line account to stdout.

#[path = "../benches/support/generator.rs"]
mod generator;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use generator::{generate, parse_topic_ids, Codec, GenSpec, TopicSpec};

#[derive(Parser)]
#[command(about = "Generate a synthetic Kafka log dir the broker loads as its own")]
struct Args {
    /// The log dir to write (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Topic as NAME:PARTITIONS or NAME:PARTITIONS:compact (repeatable); default one topic
    /// "bench" of --partitions partitions.
    #[arg(long = "topic")]
    topics: Vec<String>,
    /// Partitions of the default topic "bench" (when no --topic is given).
    #[arg(long, default_value_t = 10)]
    partitions: u32,
    /// Segments per data partition.
    #[arg(long, default_value_t = 10)]
    segments: u32,
    /// Target .log bytes per segment.
    #[arg(long, default_value_t = 65536)]
    segment_bytes: u64,
    /// Total .log bytes of the data partitions (overrides --segment-bytes).
    #[arg(long)]
    bytes: Option<u64>,
    /// Record value bytes.
    #[arg(long, default_value_t = 300)]
    record_bytes: usize,
    /// Records per batch.
    #[arg(long, default_value_t = 16)]
    batch_records: usize,
    /// none, lz4 or zstd.
    #[arg(long, default_value = "none")]
    codec: String,
    /// index.interval.bytes.
    #[arg(long, default_value_t = 4096)]
    index_interval_bytes: u64,
    /// Idempotent producers per partition (0: none).
    #[arg(long, default_value_t = 2)]
    producers: u32,
    /// Distinct keys per compacted partition.
    #[arg(long, default_value_t = 1000)]
    compact_keys: u64,
    /// Every n-th record of a compacted topic is a tombstone (0: none).
    #[arg(long, default_value_t = 50)]
    tombstone_every: u64,
    /// Consumer groups committing offsets into __consumer_offsets (0: no such topic).
    #[arg(long, default_value_t = 0)]
    groups: u32,
    /// Partitions of __consumer_offsets.
    #[arg(long, default_value_t = 50)]
    offsets_partitions: u32,
    /// Commit rounds per group.
    #[arg(long, default_value_t = 3)]
    commit_rounds: u32,
    /// Target .log bytes per __consumer_offsets segment (0: one segment per partition).
    #[arg(long, default_value_t = 0)]
    offsets_segment_bytes: u64,
    /// JSON file {"topic": "base64 topic id"}.
    #[arg(long)]
    topic_ids: Option<PathBuf>,
    /// Last record timestamp, epoch ms (default: now).
    #[arg(long)]
    end_ms: Option<i64>,
    /// Time covered by each partition's records, ms.
    #[arg(long, default_value_t = 86_400_000)]
    span_ms: i64,
    /// Keep meta.properties, the metadata log, other partitions and .kafka_cleanshutdown of an
    /// existing broker dir; merge the root checkpoints.
    #[arg(long)]
    into_existing: bool,
    /// Leave no .kafka_cleanshutdown (as after a crash).
    #[arg(long)]
    unclean: bool,
    /// Broker epoch in .kafka_cleanshutdown (when none is kept).
    #[arg(long, default_value_t = 1)]
    broker_epoch: i64,
    #[arg(long, default_value_t = 0x5eed)]
    seed: u64,
    /// Write the summary JSON here.
    #[arg(long)]
    summary: Option<PathBuf>,
}

fn spec(a: &Args) -> Result<GenSpec, String> {
    let mut topics = Vec::new();
    for t in &a.topics {
        let parts: Vec<&str> = t.split(':').collect();
        let (name, n, compact) = match parts.as_slice() {
            [name, n] => (*name, *n, false),
            [name, n, "compact"] => (*name, *n, true),
            _ => return Err(format!("--topic {t:?}: NAME:PARTITIONS[:compact]")),
        };
        let partitions = n.parse().map_err(|e| format!("--topic {t:?}: {e}"))?;
        topics.push(TopicSpec {
            name: name.to_owned(),
            partitions,
            compact,
        });
    }
    if topics.is_empty() {
        topics.push(TopicSpec {
            name: "bench".into(),
            partitions: a.partitions,
            compact: false,
        });
    }
    let topic_ids = match &a.topic_ids {
        Some(p) => parse_topic_ids(
            &std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?,
        )?,
        None => Default::default(),
    };
    let data_partitions: u64 = topics.iter().map(|t| u64::from(t.partitions)).sum();
    let segment_bytes = match a.bytes {
        Some(total) => (total / (data_partitions * u64::from(a.segments)).max(1)).max(1),
        None => a.segment_bytes,
    };
    let end_ms = a
        .end_ms
        .unwrap_or_else(|| chrono::Utc::now().timestamp_millis());
    Ok(GenSpec {
        topics,
        segments: a.segments.max(1),
        segment_bytes,
        record_bytes: a.record_bytes,
        batch_records: a.batch_records.max(1),
        codec: Codec::parse(&a.codec)?,
        index_interval_bytes: a.index_interval_bytes,
        producers: a.producers,
        compact_keys: a.compact_keys.max(1),
        tombstone_every: a.tombstone_every,
        groups: a.groups,
        offsets_partitions: a.offsets_partitions.max(1),
        commit_rounds: a.commit_rounds.max(1),
        offsets_segment_bytes: a.offsets_segment_bytes,
        topic_ids,
        end_ms,
        span_ms: a.span_ms,
        into_existing: a.into_existing,
        clean_shutdown_epoch: (!a.unclean).then_some(a.broker_epoch),
        seed: a.seed,
    })
}

fn main() -> ExitCode {
    let args = Args::parse();
    let spec = match spec(&args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("gen: {e}");
            return ExitCode::from(2);
        }
    };
    let t0 = std::time::Instant::now();
    let summary = generate(&args.out, &spec);
    let records: u64 = summary.partitions.iter().map(|p| p.records).sum();
    println!(
        "gen: {} partitions, {} segments, {} records, {} files, {} bytes in {:.1} s -> {}",
        summary.partitions.len(),
        summary.segments,
        records,
        summary.files,
        summary.bytes,
        t0.elapsed().as_secs_f64(),
        args.out.display()
    );
    if let Some(path) = &args.summary {
        let json = match serde_json::to_string_pretty(&summary) {
            Ok(j) => j,
            Err(e) => {
                eprintln!("gen: summary: {e}");
                return ExitCode::FAILURE;
            }
        };
        if let Err(e) = std::fs::write(path, json) {
            eprintln!("gen: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::generator::{generate, Codec, GenSpec, TopicSpec};
    use logclean::actions::rebuild_index::{recover_segment, IndexSizing};
    use logclean::model::file_bytes::ReadMode;
    use logclean::model::log_dir::{load_log_dir, Selection};
    use logclean::model::producer_state::ProducerState;
    use logclean::model::segment::{LoadOptions, ScanDepth};

    fn spec(codec: Codec) -> GenSpec {
        GenSpec {
            topics: vec![
                TopicSpec {
                    name: "orders".into(),
                    partitions: 3,
                    compact: false,
                },
                TopicSpec {
                    name: "users".into(),
                    partitions: 2,
                    compact: true,
                },
            ],
            segments: 4,
            segment_bytes: 20_000,
            // ~1 KB batches: several per index interval, so the interval rule decides.
            batch_records: 3,
            codec,
            groups: 3,
            offsets_partitions: 3,
            ..GenSpec::default()
        }
    }

    /// Every generated `.index`/`.timeindex` equals what logclean's `LogSegment.recover`
    /// (rebuild-index, checked byte for byte against the broker in repairs-check) builds from the
    /// `.log`, for each codec.
    #[test]
    fn indexes_equal_the_brokers_rebuild() {
        for codec in [Codec::None, Codec::Lz4, Codec::Zstd] {
            let tmp = tempfile::tempdir().unwrap();
            let summary = generate(tmp.path(), &spec(codec));
            assert_eq!(summary.partitions.len(), 8);
            let mut checked = 0;
            for p in &summary.partitions {
                let pdir = tmp.path().join(format!("{}-{}", p.topic, p.partition));
                let mut state = ProducerState::default();
                let mut logs: Vec<_> = std::fs::read_dir(&pdir)
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .filter(|f| f.extension().is_some_and(|e| e == "log"))
                    .collect();
                logs.sort();
                for log in logs {
                    let base: i64 = log.file_stem().unwrap().to_str().unwrap().parse().unwrap();
                    let rec = recover_segment(
                        &std::fs::read(&log).unwrap(),
                        base,
                        IndexSizing::default(),
                        &mut state,
                    );
                    assert!(
                        rec.tail.is_none() && rec.fatal.is_none(),
                        "{}",
                        log.display()
                    );
                    let index = std::fs::read(log.with_extension("index")).unwrap();
                    let time = std::fs::read(log.with_extension("timeindex")).unwrap();
                    assert_eq!(index, rec.offset_index_bytes(), "{}", log.display());
                    assert_eq!(time, rec.time_index_bytes(), "{}", log.display());
                    checked += usize::from(!index.is_empty());
                }
            }
            assert!(checked >= 20, "{checked} segments with index entries");
        }
    }

    /// logclean's deep load finds nothing wrong in a generated dir.
    #[test]
    fn deep_inspect_finds_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let summary = generate(tmp.path(), &spec(Codec::Zstd));
        let opts = LoadOptions::uniform(ScanDepth::Verify, ReadMode::Mmap);
        let dir = load_log_dir(tmp.path(), &Selection::default(), &opts, &|| {}).unwrap();
        assert_eq!(dir.partitions.len(), summary.partitions.len());
        let findings = logclean::checks::inspect::inspect_findings(&[dir]);
        let codes: Vec<&str> = findings.iter().map(|f| f.code).collect();
        assert!(codes.is_empty(), "{codes:?}");
    }
}
