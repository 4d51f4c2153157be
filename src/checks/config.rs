//! Findings of `logclean config`: the [`ClusterView`]'s problems, each as a finding.

use std::path::{Path, PathBuf};

use crate::checks::catalog::{self, FindingKind};
use crate::checks::file::problem_finding;
use crate::checks::finding::{EvidenceValue, Finding, Location, Severity};
use crate::config::removed::RemovedConfig;
use crate::config::{ConfigError, ConfigSource};
use crate::model::cluster::{ClusterProblem, ClusterView, FileRole};
use crate::model::metadata_log::MetadataProblem;
use crate::model::mode::LogDirMode;
use crate::model::names::{parse_partition_dir_name, METADATA_TOPIC};
use crate::model::problem::FileProblem;

fn at(log_dir: &Path, dir: Option<&str>) -> Location {
    let name = dir.and_then(parse_partition_dir_name);
    Location {
        log_dir: log_dir.to_path_buf(),
        topic: name.as_ref().map(|n| n.topic.clone()),
        partition: name.as_ref().map(|n| n.partition),
        dir: dir.map(str::to_string),
        ..Default::default()
    }
}

fn condition(kind: &'static FindingKind, loc: Location, msg: String) -> Finding {
    Finding::new(kind, loc, msg)
}

/// The topic a config problem is about: the one its key was set for (a topic override, a
/// `--config TOPIC:` or a describe file's topic entry); `None` for a broker-level key or
/// `--config *`, which is one problem however many topics are resolved (`resolved` is the topic
/// being resolved when it was met).
fn problem_topic<'a>(e: &'a ConfigError, resolved: Option<&'a str>) -> Option<&'a str> {
    match e {
        ConfigError::RemovedConfig { topic, .. } => topic.as_deref(),
        ConfigError::UnknownTopicConfig { topic, .. } => Some(topic),
        ConfigError::InvalidValue {
            level: ConfigSource::DynamicTopicConfig | ConfigSource::DescribeFile,
            ..
        } => resolved,
        _ => None,
    }
}

fn config_problem(
    e: &ConfigError,
    resolved: Option<&str>,
    log_dir: &Path,
    mode: LogDirMode,
) -> Finding {
    let kind = match e {
        ConfigError::NotDynamic { .. } => &catalog::CONFIG_IGNORED_DYNAMIC,
        ConfigError::UnknownTopicConfig { .. } => &catalog::CONFIG_UNKNOWN_KEY,
        ConfigError::RemovedConfig { .. } => &catalog::CONFIG_REMOVED_KEY,
        _ => &catalog::CONFIG_INVALID_VALUE,
    };
    let loc = Location {
        topic: problem_topic(e, resolved).map(str::to_string),
        ..at(log_dir, None)
    };
    let f = condition(kind, loc, e.to_string());
    match e {
        // A 3.x ZooKeeper-mode broker still reads a key 4.0 removed: only news for an upgrade.
        ConfigError::RemovedConfig { removed, .. } if mode == LogDirMode::ZooKeeper => {
            f.with_severity(Severity::Info).fix(format!(
                "a ZooKeeper-mode (3.x) broker still reads it; before moving to Kafka 4.x, {}",
                removed_fix(removed)
            ))
        }
        ConfigError::RemovedConfig { removed, .. } => f.fix(removed_fix(removed)),
        _ => f,
    }
}

fn removed_fix(r: &RemovedConfig) -> String {
    match r.replacement {
        [] => format!(
            "remove `{}` where it is set (server.properties, or the topic override)",
            r.key
        ),
        keys => format!(
            "set {} to the value you need and remove `{}`",
            keys.join(" and "),
            r.key
        ),
    }
}

/// A file that could not be used: unreadable (I/O, exit 3) or corrupt, worded as `inspect` words it.
fn file_problem(loc: Location, role: FileRole, problem: &FileProblem) -> Finding {
    let what = match (role, problem) {
        (FileRole::DirEntry, FileProblem::Io { .. }) => "entry",
        (r, _) => r.name(),
    };
    problem_finding(loc, what, problem, "")
}

/// How many partition numbers a finding lists before it says "and N more".
const LIST_MAX: usize = 20;

/// `config.zookeeper_mode`: the dirs are a ZooKeeper-mode broker's; its topic overrides and
/// dynamic configs are in ZooKeeper, not in any file here.
fn zookeeper_mode(view: &ClusterView, first_dir: &Path) -> Finding {
    let evidence = view
        .log_dir_info
        .iter()
        .find(|i| i.mode.mode == LogDirMode::ZooKeeper)
        .map(|i| i.mode.describe())
        .unwrap_or_default();
    condition(
        &catalog::CONFIG_ZOOKEEPER_MODE,
        at(first_dir, None),
        format!(
            "ZooKeeper-mode log dirs ({evidence}; {}): topic overrides and dynamic broker configs \
             live in ZooKeeper (/config/topics/<topic>, /config/brokers/<id>, \
             /config/brokers/<default>), so the values shown come from server.properties and \
             Kafka's defaults only",
            LogDirMode::ZooKeeper.kafka_versions()
        ),
    )
    .evidence(
        "defaults",
        EvidenceValue::Text(
            "defaults shown are Kafka 4.4.0's; a 3.x broker's differ for message.timestamp.after.max.ms \
         (9223372036854775807 before 4.0, 3600000 from 4.0: KIP-1030) and \
         num.recovery.threads.per.data.dir (1 before 4.0, 2 from 4.0)"
                .to_string(),
        ),
    )
    .fix(
        "take them from the running cluster: kafka-configs.sh --bootstrap-server HOST:PORT \
         --describe --all --entity-type topics (and --entity-type brokers) > FILE, then \
         --config-file FILE; or give single values with --config TOPIC:KEY=VALUE",
    )
}

/// `dir.cluster_mismatch`: log dirs of different clusters, once for the whole set.
pub(crate) fn cluster_mismatch(dirs: &[(PathBuf, Option<String>)], first_dir: &Path) -> Finding {
    let mut ids: Vec<&str> = dirs.iter().filter_map(|(_, c)| c.as_deref()).collect();
    ids.sort_unstable();
    ids.dedup();
    let mut f = condition(
        &catalog::DIR_CLUSTER_MISMATCH,
        at(first_dir, None),
        format!(
            "these log dirs belong to {} different clusters (cluster.id in meta.properties): one \
             broker refuses to start on them (\"Invalid cluster.id in ...\", \
             MetaPropertiesEnsemble.verify; ZooKeeper mode: InconsistentClusterIdException), and \
             the same partition in dirs of different clusters is not a duplicate",
            ids.len()
        ),
    );
    for (d, c) in dirs {
        f = f
            .evidence("log_dir", EvidenceValue::Path(d.clone()))
            .evidence(
                "cluster_id",
                EvidenceValue::Text(c.clone().unwrap_or_else(|| "(none)".to_string())),
            );
    }
    f.fix("give the log dirs of one broker at a time; if a dir was copied from another cluster, move it out")
}

/// `partition.missing_replica`: partitions the metadata log assigns to this broker with no dir.
fn missing_replicas(
    topic: &str,
    node_id: i32,
    partitions: &[i32],
    assigned: usize,
    first_dir: &Path,
) -> Finding {
    let mut list: Vec<String> = partitions
        .iter()
        .take(LIST_MAX)
        .map(i32::to_string)
        .collect();
    if partitions.len() > LIST_MAX {
        list.push(format!("and {} more", partitions.len() - LIST_MAX));
    }
    let loc = Location {
        topic: Some(topic.to_string()),
        ..at(first_dir, None)
    };
    condition(
        &catalog::PARTITION_MISSING_REPLICA,
        loc,
        format!(
            "topic `{topic}`: the metadata log assigns {assigned} of its partitions to broker \
             {node_id}, and {} of them have no partition dir in the log dirs given: {}",
            partitions.len(),
            list.join(", ")
        ),
    )
    .fix(
        "if the broker has more log dirs, give them all; if a dir was moved or deleted, put it \
         back before starting the broker: it otherwise starts the replica empty and re-fetches it \
         from the leader (a sole replica's data is gone)",
    )
}

/// A problem replaying the metadata log of `log_dir`: `file.unreadable` for a file or dir that
/// could not be read (an I/O error, exit 3), else `metadata.problem`.
pub(crate) fn metadata_problem(
    m: &MetadataProblem,
    log_dir: &Path,
    complete_up_to: Option<i64>,
) -> Finding {
    let loc = Location {
        file: Some(m.path.clone()),
        byte_offset: m.byte_offset,
        ..at(log_dir, Some(&format!("{METADATA_TOPIC}-0")))
    };
    let kind = if m.unreadable {
        &catalog::FILE_UNREADABLE
    } else {
        &catalog::METADATA_PROBLEM
    };
    let mut f = condition(kind, loc, m.message.clone());
    if let Some(o) = m.offset {
        f = f.evidence("metadata_offset", EvidenceValue::Offset(o));
    }
    if let Some(upto) = complete_up_to {
        f = f.evidence("image_complete_up_to", EvidenceValue::Offset(upto));
    }
    f
}

/// Every problem of `view` as a finding, sorted by location and deduplicated.
pub fn config_findings(view: &ClusterView) -> Vec<Finding> {
    let first_dir = view.log_dirs.first().cloned().unwrap_or_default();
    let mut out: Vec<Finding> = view
        .problems
        .iter()
        .map(|p| match p {
            ClusterProblem::MetadataMissing => condition(
                &catalog::METADATA_MISSING,
                at(&first_dir, None),
                "no __cluster_metadata-0 in these log dirs: topic overrides and dynamic broker \
                     configs are unknown (give the metadata.log.dir, or --config-file)"
                    .to_string(),
            ),
            ClusterProblem::ZooKeeperMode => zookeeper_mode(view, &first_dir),
            ClusterProblem::ClusterIdMismatch { dirs } => cluster_mismatch(dirs, &first_dir),
            ClusterProblem::MissingReplicas { topic, node_id, partitions, assigned } => {
                missing_replicas(topic, *node_id, partitions, *assigned, &first_dir)
            }
            ClusterProblem::Metadata(m) => {
                metadata_problem(m, &first_dir, view.metadata.complete_up_to)
            }
            ClusterProblem::TopicIdMismatch { log_dir, dir_name, dir_topic, id_topic } => condition(
                &catalog::PARTITION_TOPIC_ID_MISMATCH,
                at(log_dir, Some(dir_name)),
                format!("dir names topic `{dir_topic}` but its topic id belongs to `{id_topic}`: the broker raises InconsistentTopicIdException"),
            ),
            ClusterProblem::UnknownTopicId { log_dir, dir_name, topic_id } => condition(
                &catalog::PARTITION_UNKNOWN_TOPIC_ID,
                at(log_dir, Some(dir_name)),
                format!("topic id {topic_id} is not in the metadata log: the broker sets this replica aside as stray"),
            ),
            ClusterProblem::UnknownTopic { topic } => condition(
                &catalog::CONFIG_UNKNOWN_TOPIC,
                at(&first_dir, None),
                format!("topic `{topic}` is not in the metadata log; showing broker-level values"),
            ),
            ClusterProblem::Config { topic, error } => {
                config_problem(error, topic.as_deref(), &first_dir, view.mode)
            }
            ClusterProblem::File { log_dir, partition, role, problem } => {
                file_problem(at(log_dir, partition.as_deref()), *role, problem)
            }
        })
        .collect();
    out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    out.dedup();
    out
}
