//! Findings of `logclean config`: the [`ClusterView`]'s problems, each as a finding.

use std::path::Path;

use crate::checks::catalog::{self, FindingKind};
use crate::checks::file::problem_finding;
use crate::checks::finding::{EvidenceValue, Finding, Location};
use crate::config::ConfigError;
use crate::model::cluster::{ClusterProblem, ClusterView, FileRole};
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

fn config_problem(e: &ConfigError, log_dir: &Path) -> Finding {
    let kind = match e {
        ConfigError::NotDynamic { .. } => &catalog::CONFIG_IGNORED_DYNAMIC,
        ConfigError::UnknownTopicConfig { .. } => &catalog::CONFIG_UNKNOWN_KEY,
        _ => &catalog::CONFIG_INVALID_VALUE,
    };
    condition(kind, at(log_dir, None), e.to_string())
}

/// A file that could not be used: unreadable (I/O, exit 3) or corrupt, worded as `inspect` words it.
fn file_problem(loc: Location, role: FileRole, problem: &FileProblem) -> Finding {
    let what = match (role, problem) {
        (FileRole::DirEntry, FileProblem::Io { .. }) => "entry",
        (r, _) => r.name(),
    };
    problem_finding(loc, what, problem, "")
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
            ClusterProblem::Metadata(m) => {
                let loc = Location {
                    file: Some(m.path.clone()),
                    byte_offset: m.byte_offset,
                    ..at(&first_dir, Some(&format!("{METADATA_TOPIC}-0")))
                };
                let mut f = condition(&catalog::METADATA_PROBLEM, loc, m.message.clone());
                if let Some(o) = m.offset {
                    f = f.evidence("metadata_offset", EvidenceValue::Offset(o));
                }
                if let Some(upto) = view.metadata.complete_up_to {
                    f = f.evidence("image_complete_up_to", EvidenceValue::Offset(upto));
                }
                f
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
