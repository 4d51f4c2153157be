//! Findings of `logclean config`: the [`ClusterView`]'s problems, each as a finding.

use std::path::{Path, PathBuf};

use crate::checks::finding::{Finding, FindingClass, Location, Severity};
use crate::config::removed::RemovedConfig;
use crate::config::ConfigError;
use crate::model::cluster::{ClusterProblem, ClusterView, FileRole};
use crate::model::mode::LogDirMode;
use crate::model::names::METADATA_TOPIC;
use crate::model::problem::FileProblem;

fn at(log_dir: &Path, partition: Option<&str>) -> Location {
    Location {
        log_dir: log_dir.to_path_buf(),
        partition: partition.map(str::to_string),
        ..Default::default()
    }
}

fn condition(code: &'static str, severity: Severity, loc: Location, msg: String) -> Finding {
    Finding::new(code, severity, FindingClass::Condition, loc, msg)
}

fn config_problem(e: &ConfigError, log_dir: &Path, mode: LogDirMode) -> Finding {
    let (code, severity) = match e {
        ConfigError::NotDynamic { .. } => ("config.ignored_dynamic", Severity::Info),
        ConfigError::UnknownTopicConfig { .. } => ("config.unknown_key", Severity::Warning),
        // A 3.x ZooKeeper-mode broker still reads a key 4.0 removed: only news for an upgrade.
        ConfigError::RemovedConfig { .. } if mode == LogDirMode::ZooKeeper => {
            ("config.removed_key", Severity::Info)
        }
        ConfigError::RemovedConfig { .. } => ("config.removed_key", Severity::Warning),
        _ => ("config.invalid_value", Severity::Warning),
    };
    let f = condition(code, severity, at(log_dir, None), e.to_string());
    match e {
        ConfigError::RemovedConfig { removed, .. } if mode == LogDirMode::ZooKeeper => {
            f.fix(format!(
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

/// A file that could not be used: unreadable (I/O, exit 3) or corrupt, as `inspect` says it.
fn file_problem(loc: Location, role: FileRole, problem: &FileProblem) -> Finding {
    match problem {
        FileProblem::Io { path, message } => {
            let what = match role {
                FileRole::DirEntry => String::new(),
                r => format!(" {}", r.name()),
            };
            Finding::new(
                "file.unreadable",
                Severity::Error,
                FindingClass::Io,
                Location {
                    file: Some(path.clone()),
                    ..loc
                },
                format!("cannot read{what}: {message}"),
            )
            .fix("check permissions and the disk; the broker fails this log dir on the same error")
        }
        FileProblem::Format { path, error } => Finding::new(
            "file.corrupt",
            Severity::Error,
            FindingClass::Corruption,
            Location {
                file: Some(path.clone()),
                byte_offset: Some(error.offset),
                ..loc
            },
            format!("{} is corrupt: {}", role.name(), error.kind),
        ),
    }
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
        "config.zookeeper_mode",
        Severity::Info,
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
        "defaults shown are Kafka 4.4.0's; a 3.x broker's differ for message.timestamp.after.max.ms \
         (9223372036854775807 before 4.0, 3600000 from 4.0: KIP-1030) and \
         num.recovery.threads.per.data.dir (1 before 4.0, 2 from 4.0)",
    )
    .fix(
        "take them from the running cluster: kafka-configs.sh --bootstrap-server HOST:PORT \
         --describe --all --entity-type topics (and --entity-type brokers) > FILE, then \
         --config-file FILE; or give single values with --config TOPIC:KEY=VALUE",
    )
}

/// `dir.cluster_mismatch`: log dirs of different clusters, once for the whole set.
fn cluster_mismatch(dirs: &[(PathBuf, Option<String>)], first_dir: &Path) -> Finding {
    let mut ids: Vec<&str> = dirs.iter().filter_map(|(_, c)| c.as_deref()).collect();
    ids.sort_unstable();
    ids.dedup();
    let mut f = condition(
        "dir.cluster_mismatch",
        Severity::Error,
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
        f = f.evidence(format!(
            "{}: cluster.id {}",
            d.display(),
            c.as_deref().unwrap_or("(none)")
        ));
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
    condition(
        "partition.missing_replica",
        Severity::Warning,
        at(first_dir, None),
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

/// Every problem of `view` as a finding, sorted by location and deduplicated.
pub fn config_findings(view: &ClusterView) -> Vec<Finding> {
    let first_dir = view.log_dirs.first().cloned().unwrap_or_default();
    let mut out: Vec<Finding> = view
        .problems
        .iter()
        .map(|p| match p {
            ClusterProblem::MetadataMissing => condition(
                "metadata.missing",
                Severity::Warning,
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
                let loc = Location {
                    log_dir: first_dir.clone(),
                    partition: Some(format!("{METADATA_TOPIC}-0")),
                    file: Some(m.path.clone()),
                    byte_offset: m.byte_offset,
                };
                let mut f = condition("metadata.problem", Severity::Warning, loc, m.message.clone());
                if let Some(o) = m.offset {
                    f = f.evidence(format!("metadata offset: {o}"));
                }
                if let Some(upto) = view.metadata.complete_up_to {
                    f = f.evidence(format!(
                        "image complete up to offset {upto}; later changes are not applied"
                    ));
                }
                f
            }
            ClusterProblem::TopicIdMismatch { log_dir, dir_name, dir_topic, id_topic } => condition(
                "partition.topic_id_mismatch",
                Severity::Error,
                at(log_dir, Some(dir_name)),
                format!("dir names topic `{dir_topic}` but its topic id belongs to `{id_topic}`: the broker raises InconsistentTopicIdException"),
            ),
            ClusterProblem::UnknownTopicId { log_dir, dir_name, topic_id } => condition(
                "partition.unknown_topic_id",
                Severity::Warning,
                at(log_dir, Some(dir_name)),
                format!("topic id {topic_id} is not in the metadata log: the broker sets this replica aside as stray"),
            )
            .fix("if the topic was deleted, the dir's data is no longer served; remove it once you are sure"),
            ClusterProblem::UnknownTopic { topic } => condition(
                "config.unknown_topic",
                Severity::Warning,
                at(&first_dir, None),
                format!("topic `{topic}` is not in the metadata log; showing broker-level values"),
            ),
            ClusterProblem::Config { error, .. } => config_problem(error, &first_dir, view.mode),
            ClusterProblem::File { log_dir, partition, role, problem } => {
                file_problem(at(log_dir, partition.as_deref()), *role, problem)
            }
        })
        .collect();
    out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    out.dedup();
    out
}
