//! Findings of `logclean config`: the [`ClusterView`]'s problems, each as a finding.

use std::path::Path;

use crate::checks::finding::{Finding, FindingClass, Location, Severity};
use crate::config::ConfigError;
use crate::model::cluster::{ClusterProblem, ClusterView, FileRole};
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

fn config_problem(e: &ConfigError, log_dir: &Path) -> Finding {
    let (code, severity) = match e {
        ConfigError::NotDynamic { .. } => ("config.ignored_dynamic", Severity::Info),
        ConfigError::UnknownTopicConfig { .. } => ("config.unknown_key", Severity::Warning),
        _ => ("config.invalid_value", Severity::Warning),
    };
    condition(code, severity, at(log_dir, None), e.to_string())
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
            ClusterProblem::Config { error, .. } => config_problem(error, &first_dir),
            ClusterProblem::File { log_dir, partition, role, problem } => {
                file_problem(at(log_dir, partition.as_deref()), *role, problem)
            }
        })
        .collect();
    out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    out.dedup();
    out
}
