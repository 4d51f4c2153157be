//! `assumptions`: the config values a command's verdicts rest on that logclean did not read
//! ([`crate::config::provenance`]), so that a consumer sees what to supply before it trusts the
//! plan. Every command that resolves topic configs writes it, empty when nothing is assumed.

use serde::Serialize;

use crate::config::provenance::{UnreadSource, SUPPLY_CONFIGS};
use crate::model::cluster::{Assumptions, ClusterView};
use crate::model::kafka_version::AppliedVersion;

/// The assumptions of one run.
#[derive(Debug, Clone, Serialize)]
pub struct AssumptionsDoc {
    /// Source levels not read for any topic, and why.
    pub unread: Vec<UnreadDoc>,
    /// Per topic, the deciding values an unread level could override (topics with none are
    /// left out).
    pub topics: Vec<AssumedTopicDoc>,
    /// How to give logclean the real values.
    pub how_to_supply: &'static str,
    /// The Kafka release whose rules and defaults were applied, and why.
    pub kafka_version: KafkaVersionDoc,
}

/// The release whose rules a run applied (`--kafka-version`, detected from the files, or
/// assumed), with the facts behind it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KafkaVersionDoc {
    /// `major.minor`, e.g. `3.9`.
    pub applied: String,
    /// `given` (`--kafka-version`), `detected` (from the files) or `assumed_latest`.
    pub basis: &'static str,
    /// The releases the files allow: `3.9+`, `up to 3.9`, `4.4`, `unknown`.
    pub detected: String,
    /// Each fact that bounds it.
    pub evidence: Vec<String>,
    /// Set when the choice rests on something the files do not settle (a range, nothing at
    /// all, or a given release they contradict): what was assumed.
    pub assumption: Option<String>,
    /// The same in one line.
    pub text: String,
}

impl KafkaVersionDoc {
    /// The wire form of `v`.
    pub fn new(v: &AppliedVersion) -> KafkaVersionDoc {
        KafkaVersionDoc {
            applied: v.version.to_string(),
            basis: v.basis.name(),
            detected: v.detected.to_string(),
            evidence: v.evidence.iter().map(|e| e.fact.clone()).collect(),
            assumption: v.assumption.clone(),
            text: v.describe(),
        }
    }
}

/// A source level not read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnreadDoc {
    /// `topic_overrides`, `dynamic_broker_configs` or `server_properties`.
    pub level: &'static str,
    /// `zookeeper_mode`, `metadata_log_missing`, `metadata_log_incomplete`,
    /// `not_in_metadata_image` or `not_given`.
    pub why: &'static str,
    /// The same in words.
    pub text: String,
}

impl From<&UnreadSource> for UnreadDoc {
    fn from(u: &UnreadSource) -> Self {
        UnreadDoc {
            level: u.level.name(),
            why: u.why.name(),
            text: u.to_string(),
        }
    }
}

/// One topic's assumed values.
#[derive(Debug, Clone, Serialize)]
pub struct AssumedTopicDoc {
    /// The topic.
    pub topic: String,
    /// Its assumed deciding values.
    pub values: Vec<AssumedValueDoc>,
}

/// One assumed value.
#[derive(Debug, Clone, Serialize)]
pub struct AssumedValueDoc {
    /// The topic config.
    pub key: &'static str,
    /// The value used.
    pub value: String,
    /// Where it came from (`DEFAULT_CONFIG`, `INTERNAL_TOPIC_CREATION`, ...).
    pub source: &'static str,
    /// The unread levels (`level` names) that could override it.
    pub overridable_by: Vec<&'static str>,
}

impl AssumptionsDoc {
    /// The wire form of `a`.
    pub fn new(a: &Assumptions) -> AssumptionsDoc {
        AssumptionsDoc {
            unread: a.unread.iter().map(UnreadDoc::from).collect(),
            topics: (a.topics.iter())
                .map(|(topic, values)| AssumedTopicDoc {
                    topic: topic.clone(),
                    values: (values.iter())
                        .map(|a| AssumedValueDoc {
                            key: a.key,
                            value: a.value.clone(),
                            source: a.source.name(),
                            overridable_by: a.unread.iter().map(|u| u.level.name()).collect(),
                        })
                        .collect(),
                })
                .collect(),
            how_to_supply: SUPPLY_CONFIGS,
            kafka_version: KafkaVersionDoc::new(&a.kafka_version),
        }
    }

    /// The assumptions of `view`'s topics (all of them, or those in `topics` when not empty).
    pub fn of(view: &ClusterView, topics: &[String]) -> AssumptionsDoc {
        AssumptionsDoc::new(&view.assumptions(topics))
    }

    /// Whether any verdict rests on an assumed value.
    pub fn is_empty(&self) -> bool {
        self.topics.is_empty()
    }
}
