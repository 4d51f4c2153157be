//! `logclean config`: the value of each cleanup-relevant config the broker would use for each
//! topic, and where it comes from, read offline: built-in defaults, `server.properties`, the KRaft
//! metadata log (topic overrides, dynamic broker configs), `--config` and `--config-file`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};
use serde::Serialize;

use crate::checks::catalog::{self, FindingKind};
use crate::checks::finding::{EvidenceValue, Finding, Location};
use crate::config::describe_file::parse_describe_file;
use crate::config::resolve::{resolve_broker, resolve_topic, ResolvedValue};
use crate::config::sources::{from_metadata_maps, parse_server_properties};
use crate::config::{ConfigError, ConfigSource};
use crate::exit_codes::Outcome;
use crate::formats::meta_properties::parse_meta_properties;
use crate::formats::partition_metadata::parse_partition_metadata;
use crate::model::file_bytes::{read_small_file, ReadMode};
use crate::model::listing::list_log_dir;
use crate::model::metadata_log::{load_metadata_image, MetadataImage};
use crate::model::names::{PartitionDirState, METADATA_TOPIC};
use crate::report::render_json;
use crate::report::wire::{FindingDoc, SCHEMA_VERSION};

use super::inspect::{outcome_of, Output};
use super::{ConfigArgs, OutputFormat};

/// Topic configs that decide rolling, retention, compaction, timestamps and indexes: what the
/// table shows unless `--all-keys`.
pub const CLEANUP_TOPIC_KEYS: &[&str] = &[
    "cleanup.policy",
    "retention.ms",
    "retention.bytes",
    "local.retention.ms",
    "local.retention.bytes",
    "remote.storage.enable",
    "segment.ms",
    "segment.bytes",
    "segment.jitter.ms",
    "segment.index.bytes",
    "index.interval.bytes",
    "preallocate",
    "min.cleanable.dirty.ratio",
    "min.compaction.lag.ms",
    "max.compaction.lag.ms",
    "delete.retention.ms",
    "file.delete.delay.ms",
    "message.timestamp.type",
    "message.timestamp.before.max.ms",
    "message.timestamp.after.max.ms",
    "max.message.bytes",
];

/// Broker-only configs that decide when and how cleanup runs.
pub const CLEANUP_BROKER_KEYS: &[&str] = &[
    "log.dirs",
    "log.dir",
    "metadata.log.dir",
    "log.retention.check.interval.ms",
    "log.initial.task.delay.ms",
    "log.cleaner.enable",
    "log.cleaner.threads",
    "log.cleaner.backoff.ms",
    "log.cleaner.dedupe.buffer.size",
    "log.cleaner.io.buffer.load.factor",
    "log.cleaner.io.max.bytes.per.second",
    "num.recovery.threads.per.data.dir",
    "offsets.retention.minutes",
    "offsets.retention.check.interval.ms",
    "offsets.topic.num.partitions",
    "offsets.topic.segment.bytes",
    "transaction.max.timeout.ms",
    "producer.id.expiration.ms",
];

/// One resolved value on the wire.
#[derive(Debug, Serialize)]
pub struct ValueDoc {
    /// The value as Kafka renders it.
    pub value: String,
    /// Where it comes from (Kafka's source names, or OVERRIDE / DESCRIBE_FILE).
    pub source: &'static str,
    /// What `describeConfigs` would report as the source (differs for some hour/minute synonyms).
    pub reported_source: &'static str,
    /// The broker key the value was read from, when it came from a broker level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synonym: Option<String>,
}

impl ValueDoc {
    fn new(v: &ResolvedValue) -> Self {
        ValueDoc {
            value: v.value.clone(),
            source: v.source.name(),
            reported_source: v.reported_source.name(),
            synonym: v.synonym_key_used.clone(),
        }
    }
}

/// A partition dir of a topic, found by topic id.
#[derive(Debug, Serialize)]
pub struct PartitionDirDoc {
    /// The log dir.
    pub log_dir: String,
    /// The dir name.
    pub dir: String,
}

/// One topic's effective config.
#[derive(Debug, Serialize)]
pub struct TopicDoc {
    /// Topic name.
    pub topic: String,
    /// Topic id from the metadata log (None when the topic is not there).
    pub topic_id: Option<String>,
    /// Partitions in the metadata log.
    pub partitions: Option<usize>,
    /// Partition dirs on disk that carry this topic's id.
    pub dirs: Vec<PartitionDirDoc>,
    /// Key → value and source.
    pub configs: BTreeMap<String, ValueDoc>,
}

/// The metadata log that was read.
#[derive(Debug, Serialize)]
pub struct MetadataDoc {
    /// `__cluster_metadata-0` dir, if found.
    pub dir: Option<String>,
    /// The snapshot replayed first.
    pub snapshot: Option<String>,
    /// Last offset applied.
    pub complete_up_to: Option<i64>,
    /// Topics in the image.
    pub topics: usize,
}

/// The `config` document.
#[derive(Debug, Serialize)]
pub struct ConfigDoc {
    /// Schema version.
    pub schema_version: u32,
    /// `logclean <version>`.
    pub tool: String,
    /// Always `config`.
    pub command: &'static str,
    /// The broker whose dynamic configs were applied.
    pub broker_id: Option<i32>,
    /// The metadata log read.
    pub metadata: MetadataDoc,
    /// Broker-only configs.
    pub broker: BTreeMap<String, ValueDoc>,
    /// Topics.
    pub topics: Vec<TopicDoc>,
    /// Findings.
    pub findings: Vec<FindingDoc>,
}

fn finding(kind: &'static FindingKind, log_dir: &Path, message: String) -> Finding {
    let location = Location {
        log_dir: log_dir.to_path_buf(),
        ..Default::default()
    };
    Finding::new(kind, location, message)
}

fn config_problem(e: &ConfigError, log_dir: &Path) -> Finding {
    let kind = match e {
        ConfigError::NotDynamic { .. } => &catalog::CONFIG_IGNORED_DYNAMIC,
        ConfigError::UnknownTopicConfig { .. } => &catalog::CONFIG_UNKNOWN_KEY,
        _ => &catalog::CONFIG_INVALID_VALUE,
    };
    finding(kind, log_dir, e.to_string())
}

/// The `__cluster_metadata-0` dir: under `metadata.log.dir` if set, else in one of the log dirs.
fn find_metadata_dir(log_dirs: &[PathBuf], metadata_log_dir: Option<&str>) -> Option<PathBuf> {
    let name = format!("{METADATA_TOPIC}-0");
    metadata_log_dir
        .map(|d| Path::new(d).join(&name))
        .into_iter()
        .chain(log_dirs.iter().map(|d| d.join(&name)))
        .find(|p| p.is_dir())
}

/// Run `config`.
pub fn run(args: &ConfigArgs, output: Output, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let static_props = match &args.server_properties {
        Some(path) => {
            let bytes = read_small_file(path, 16 << 20)
                .with_context(|| format!("failed to read `{}`", path.display()))?;
            Some(
                parse_server_properties(&bytes)
                    .with_context(|| format!("in `{}`", path.display()))?,
            )
        }
        None => None,
    };
    let mut sources = crate::config::sources::ConfigSources {
        static_props,
        ..Default::default()
    };
    let mut log_dirs = args.paths.clone();
    if log_dirs.is_empty() {
        if sources
            .static_props
            .as_ref()
            .is_some_and(|p| p.contains_key("log.dirs") || p.contains_key("log.dir"))
        {
            log_dirs = resolve_broker(&sources)
                .log_dirs()
                .into_iter()
                .map(PathBuf::from)
                .collect();
        } else {
            bail!("name the log dirs, or give --server-properties with log.dirs");
        }
    }
    for d in &log_dirs {
        std::fs::read_dir(d)
            .with_context(|| format!("failed to read log dir `{}`", d.display()))?;
    }
    let first_dir = log_dirs.first().cloned().unwrap_or_default();
    let mut findings = Vec::new();

    // Which broker's dynamic config applies: --broker-id, else node.id of the log dir.
    let broker_id = args.broker_id.or_else(|| {
        log_dirs.iter().find_map(|d| {
            let bytes = read_small_file(&d.join("meta.properties"), 1 << 20).ok()?;
            parse_meta_properties(&bytes).ok()?.node_id
        })
    });

    let static_metadata_dir = sources
        .static_props
        .as_ref()
        .and_then(|p| p.get("metadata.log.dir"))
        .cloned();
    let metadata_dir = find_metadata_dir(&log_dirs, static_metadata_dir.as_deref());
    let read_mode = if args.no_mmap {
        ReadMode::Buffered
    } else {
        ReadMode::Mmap
    };
    let image = match &metadata_dir {
        Some(dir) => load_metadata_image(dir, read_mode),
        None => {
            findings.push(finding(
                &catalog::METADATA_MISSING,
                &first_dir,
                "no __cluster_metadata-0 in these log dirs: topic overrides and dynamic broker \
                     configs are unknown (give the metadata.log.dir, or --config-file)"
                    .to_string(),
            ));
            MetadataImage::default()
        }
    };
    for p in &image.problems {
        let mut f = Finding::new(
            &catalog::METADATA_PROBLEM,
            Location {
                log_dir: first_dir.clone(),
                topic: Some(METADATA_TOPIC.to_string()),
                partition: Some(0),
                dir: Some(format!("{METADATA_TOPIC}-0")),
                file: Some(p.path.clone()),
                byte_offset: p.byte_offset,
                ..Default::default()
            },
            p.message.clone(),
        );
        if let Some(o) = p.offset {
            f = f.evidence("metadata_offset", EvidenceValue::Offset(o));
        }
        if let Some(upto) = image.complete_up_to {
            f = f.evidence("image_complete_up_to", EvidenceValue::Offset(upto));
        }
        findings.push(f);
    }

    let metadata_sources =
        from_metadata_maps(&image.topic_configs, &image.broker_configs, broker_id);
    sources.topic_overrides = metadata_sources.topic_overrides;
    sources.dynamic_cluster_default = metadata_sources.dynamic_cluster_default;
    sources.dynamic_broker = metadata_sources.dynamic_broker;
    sources
        .add_cli_overrides(args.overrides.iter().map(String::as_str))
        .context("in --config")?;
    if let Some(path) = &args.config_file {
        let bytes = read_small_file(path, 64 << 20)
            .with_context(|| format!("failed to read `{}`", path.display()))?;
        let text = String::from_utf8_lossy(&bytes);
        sources.describe_file =
            Some(parse_describe_file(&text).with_context(|| format!("in `{}`", path.display()))?);
        sources.merge_describe_broker_layers(broker_id.map(|id| id.to_string()).as_deref());
    }

    // Partition dirs on disk, mapped to topics by topic id (names of -delete/-stray dirs may be
    // truncated; the id is what the broker trusts).
    let mut dirs_by_topic: BTreeMap<String, Vec<PartitionDirDoc>> = BTreeMap::new();
    for log_dir in &log_dirs {
        let Ok(listing) = list_log_dir(log_dir) else {
            continue;
        };
        for p in &listing.partitions {
            let (Some(name), Some(meta)) = (&p.name, &p.listing.partition_metadata) else {
                continue;
            };
            if name.is_metadata_log() {
                continue;
            }
            let Ok(bytes) = read_small_file(&meta.path, 1 << 20) else {
                continue;
            };
            let Ok(pm) = parse_partition_metadata(&bytes) else {
                continue;
            };
            let dir_name = p
                .listing
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let location = Location {
                log_dir: log_dir.clone(),
                topic: Some(name.topic.clone()),
                partition: Some(name.partition),
                dir: Some(dir_name.clone()),
                ..Default::default()
            };
            match image.topic_by_id(&pm.topic_id) {
                Some((topic, _)) => {
                    if name.state == PartitionDirState::Live && name.topic != topic {
                        findings.push(Finding::new(
                            &catalog::PARTITION_TOPIC_ID_MISMATCH,
                            location,
                            format!("dir names topic `{}` but its topic id belongs to `{topic}`: the broker raises InconsistentTopicIdException", name.topic),
                        ));
                    }
                    dirs_by_topic.entry(topic.to_string()).or_default().push(PartitionDirDoc {
                        log_dir: log_dir.display().to_string(),
                        dir: dir_name,
                    });
                }
                None if metadata_dir.is_some() && name.state == PartitionDirState::Live => findings.push(
                    Finding::new(
                        &catalog::PARTITION_UNKNOWN_TOPIC_ID,
                        location,
                        format!("topic id {} is not in the metadata log: the broker sets this replica aside as stray", pm.topic_id),
                    )
                    .fix("if the topic was deleted, the dir's data is no longer served; remove it once you are sure"),
                ),
                None => {}
            }
        }
    }

    let mut topics: Vec<String> = if args.topics.is_empty() {
        let mut t: Vec<String> = image.topics.keys().cloned().collect();
        if let Some(f) = &sources.describe_file {
            t.extend(f.entities.iter().filter_map(|e| match &e.entity {
                crate::config::describe_file::Entity::Topic(name) => Some(name.clone()),
                _ => None,
            }));
        }
        t
    } else {
        args.topics.clone()
    };
    topics.sort();
    topics.dedup();
    for t in &args.topics {
        if metadata_dir.is_some() && !image.topics.contains_key(t) {
            findings.push(finding(
                &catalog::CONFIG_UNKNOWN_TOPIC,
                &first_dir,
                format!("topic `{t}` is not in the metadata log; showing broker-level values"),
            ));
        }
    }

    let keep = |key: &str, v: &ResolvedValue, relevant: &[&str]| {
        (args.all_keys || relevant.contains(&key))
            && (!args.diff || v.source != ConfigSource::DefaultConfig)
    };
    let mut topic_docs = Vec::new();
    for topic in &topics {
        let eff = resolve_topic(&sources, topic);
        findings.extend(eff.problems.iter().map(|e| config_problem(e, &first_dir)));
        let image_topic = image.topics.get(topic);
        topic_docs.push(TopicDoc {
            topic: topic.clone(),
            topic_id: image_topic.map(|t| t.topic_id.to_string()),
            partitions: image_topic.map(|t| t.partitions.len()),
            dirs: dirs_by_topic.remove(topic).unwrap_or_default(),
            configs: eff
                .values
                .iter()
                .filter(|(k, v)| keep(k, v, CLEANUP_TOPIC_KEYS))
                .map(|(k, v)| (k.clone(), ValueDoc::new(v)))
                .collect(),
        });
    }
    let broker = resolve_broker(&sources);
    findings.extend(
        broker
            .problems
            .iter()
            .map(|e| config_problem(e, &first_dir)),
    );
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    findings.dedup();
    let outcome = outcome_of(&findings, args.fail_on);
    let doc = ConfigDoc {
        schema_version: SCHEMA_VERSION,
        tool: format!("logclean {}", env!("CARGO_PKG_VERSION")),
        command: "config",
        broker_id,
        metadata: MetadataDoc {
            dir: metadata_dir.as_ref().map(|d| d.display().to_string()),
            snapshot: image
                .snapshot_used
                .as_ref()
                .map(|p| p.display().to_string()),
            complete_up_to: image.complete_up_to,
            topics: image.topics.len(),
        },
        broker: broker
            .values
            .iter()
            .filter(|(k, v)| keep(k, v, CLEANUP_BROKER_KEYS))
            .map(|(k, v)| (k.clone(), ValueDoc::new(v)))
            .collect(),
        topics: topic_docs,
        findings: FindingDoc::all(&findings),
    };
    match output.format {
        OutputFormat::Json => render_json(&doc, out)?,
        OutputFormat::Table => render_table(&doc, output, out)?,
    }
    Ok(outcome)
}

fn values_table(values: &BTreeMap<String, ValueDoc>) -> Table {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic);
    t.set_header(["key", "value", "source", "from broker key"]);
    for (k, v) in values {
        t.add_row(vec![
            k.as_str(),
            v.value.as_str(),
            v.source,
            v.synonym.as_deref().unwrap_or(""),
        ]);
    }
    t
}

fn render_table(doc: &ConfigDoc, output: Output, out: &mut dyn Write) -> std::io::Result<()> {
    let meta = &doc.metadata;
    writeln!(
        out,
        "metadata log {} (snapshot {}, complete up to offset {}), broker id {}",
        meta.dir.as_deref().unwrap_or("-"),
        meta.snapshot
            .as_deref()
            .and_then(|s| Path::new(s).file_name()?.to_str())
            .unwrap_or("-"),
        meta.complete_up_to
            .map_or("-".to_string(), |o| o.to_string()),
        doc.broker_id.map_or("-".to_string(), |b| b.to_string()),
    )?;
    if !doc.broker.is_empty() {
        writeln!(out, "\nbroker")?;
        writeln!(out, "{}", values_table(&doc.broker))?;
    }
    for t in &doc.topics {
        writeln!(
            out,
            "\ntopic {}  id {}  partitions {}  dirs on disk {}",
            t.topic,
            t.topic_id.as_deref().unwrap_or("-"),
            t.partitions.map_or("-".to_string(), |p| p.to_string()),
            t.dirs.len()
        )?;
        if t.configs.is_empty() {
            writeln!(out, "  (all defaults)")?;
        } else {
            writeln!(out, "{}", values_table(&t.configs))?;
        }
    }
    if let Some(table) = crate::report::table::findings_table(
        &doc.findings,
        crate::report::table::TableStyle {
            color: output.color,
        },
    ) {
        writeln!(out, "\n{table}")?;
    }
    Ok(())
}
