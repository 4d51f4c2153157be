//! Which Kafka release wrote a set of log dirs, read from their files, and which release's rules
//! a run applies: the one given (`--kafka-version`), else the one the files tell (a range when
//! they only bound it, with the evidence), else the latest this tool models, flagged as an
//! assumption.
//!
//! What the files tell, from Kafka's source:
//! * `meta.properties` `version=0` with `broker.id` and no `__cluster_metadata-0`: a ZooKeeper-mode
//!   broker ([`super::mode`]); ZooKeeper mode was removed in 4.0 (`docs/upgrade.html`, 4.0.0
//!   notes), so the release is at most 3.9.
//! * The metadata log's finalized `metadata.version` (`FeatureLevelRecord`): a broker runs only
//!   with a `metadata.version` its software knows (`MetadataVersion.fromFeatureLevel`), so the
//!   release is at least the level's (`3.9-IV0` → 3.9+). The software can be newer while an
//!   upgrade is not finalized (`kafka-features.sh upgrade`), so it is a lower bound only.
//! * `transaction.version` ≥ 2 (KIP-890 transactions v2): finalizable from 4.0 (`TransactionVersion.TV_2`).
//! * `__share_group_state` partitions: the share coordinator's topic (KIP-932: early access 4.0,
//!   preview 4.1, GA 4.2), so 4.0+ (3.9's `Topic.java` reserves the name, but no 3.9 broker
//!   writes it: the share coordinator came with 4.0).
//!
//! Record formats (v2 batches since 0.11), producer-snapshot (v1) and `.txnindex` (v0) versions
//! are the same in every release from 3.6 to 4.4 and bound nothing; `TransactionLogValue` v1 is
//! written only under transactions v2, which `transaction.version` already tells.

use std::fmt;

use super::metadata_log::metadata_version_name;
use super::mode::LogDirMode;

/// The Kafka release whose rules apply, as `major.minor` (patch releases do not change them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KafkaVersion {
    /// Major version.
    pub major: u16,
    /// Minor version.
    pub minor: u16,
}

impl KafkaVersion {
    /// 3.6: the oldest release this tool models (KIP-937's timestamp bounds, KIP-405 early access).
    pub const V3_6: KafkaVersion = KafkaVersion::new(3, 6);
    /// 3.9: the last 3.x release (Scala core, the last with ZooKeeper mode).
    pub const V3_9: KafkaVersion = KafkaVersion::new(3, 9);
    /// 4.0: KRaft only, KIP-1030 defaults, removed configs, transactions v2.
    pub const V4_0: KafkaVersion = KafkaVersion::new(4, 0);
    /// 4.1: topic-level `segment.bytes` ≥ 1 MiB (the rolling base timestamp from the first
    /// batch and the per-batch index interval, KAFKA-806, came with 4.1.0 and the 3.9.1 / 4.0.1
    /// backports: modelled from the 3.9 line).
    pub const V4_1: KafkaVersion = KafkaVersion::new(4, 1);
    /// 4.2: empty `cleanup.policy` tiered branch, DeleteRecords rule change (Errata 5, 6).
    pub const V4_2: KafkaVersion = KafkaVersion::new(4, 2);
    /// 4.4: the release the conformance suite runs (the default).
    pub const V4_4: KafkaVersion = KafkaVersion::new(4, 4);
    /// The newest release modelled.
    pub const LATEST: KafkaVersion = KafkaVersion::V4_4;
    /// Every release `--kafka-version` accepts.
    pub const SUPPORTED: [KafkaVersion; 9] = [
        KafkaVersion::new(3, 6),
        KafkaVersion::new(3, 7),
        KafkaVersion::new(3, 8),
        KafkaVersion::new(3, 9),
        KafkaVersion::new(4, 0),
        KafkaVersion::new(4, 1),
        KafkaVersion::new(4, 2),
        KafkaVersion::new(4, 3),
        KafkaVersion::new(4, 4),
    ];

    /// `major.minor`.
    pub const fn new(major: u16, minor: u16) -> KafkaVersion {
        KafkaVersion { major, minor }
    }

    /// Whether this release is `other` or newer.
    pub fn at_least(self, other: KafkaVersion) -> bool {
        self >= other
    }

    /// `3.9`, `3.9.1` or `4.4.0` (a patch is accepted and dropped) as one of
    /// [`Self::SUPPORTED`]; anything else is refused with the list.
    pub fn parse(s: &str) -> Result<KafkaVersion, String> {
        let mut parts = s.trim().split('.');
        let num = |p: Option<&str>| p.and_then(|p| p.parse::<u16>().ok());
        let parsed = match (num(parts.next()), num(parts.next()), parts.next()) {
            (Some(major), Some(minor), None) => Some(KafkaVersion::new(major, minor)),
            (Some(major), Some(minor), Some(patch)) if patch.parse::<u16>().is_ok() => {
                Some(KafkaVersion::new(major, minor))
            }
            _ => None,
        }
        .filter(|_| parts.next().is_none());
        match parsed {
            Some(v) if KafkaVersion::SUPPORTED.contains(&v) => Ok(v),
            _ => Err(format!(
                "`{s}`: give one of {} (a patch release such as 3.9.1 is accepted)",
                KafkaVersion::SUPPORTED
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// The release of a `metadata.version` name (`3.9-IV0` → 3.9).
    fn of_metadata_version(name: &str) -> Option<KafkaVersion> {
        let (release, _) = name.split_once('-')?;
        let (major, minor) = release.split_once('.')?;
        Some(KafkaVersion::new(major.parse().ok()?, minor.parse().ok()?))
    }

    /// The closest supported release (3.6 for anything older, 4.4 for anything newer).
    pub fn clamp_supported(self) -> KafkaVersion {
        self.clamp(KafkaVersion::V3_6, KafkaVersion::LATEST)
    }
}

impl Default for KafkaVersion {
    fn default() -> Self {
        KafkaVersion::LATEST
    }
}

impl fmt::Display for KafkaVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// The releases the files allow: `min` and `max` inclusive, `None` for unbounded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VersionRange {
    /// The oldest release that could have written the files.
    pub min: Option<KafkaVersion>,
    /// The newest.
    pub max: Option<KafkaVersion>,
}

impl VersionRange {
    /// Both bounds of `self` and `other` (the tighter of each).
    fn intersect(self, other: VersionRange) -> VersionRange {
        VersionRange {
            min: self.min.max(other.min),
            max: match (self.max, other.max) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }

    /// Whether the range is one release.
    pub fn is_exact(self) -> bool {
        self.min.is_some() && self.min == self.max
    }

    /// Whether `v` is in the range.
    pub fn contains(self, v: KafkaVersion) -> bool {
        self.min.is_none_or(|m| v >= m) && self.max.is_none_or(|m| v <= m)
    }
}

impl fmt::Display for VersionRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.min, self.max) {
            (Some(a), Some(b)) if a == b => write!(f, "{a}"),
            (Some(a), Some(b)) => write!(f, "{a}–{b}"),
            (Some(a), None) => write!(f, "{a}+"),
            (None, Some(b)) => write!(f, "up to {b}"),
            (None, None) => write!(f, "unknown"),
        }
    }
}

/// What the files of one run say about the release, gathered by the caller.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VersionFacts {
    /// The run's mode.
    pub mode: Option<LogDirMode>,
    /// Why the mode is what it is ([`super::mode::ModeEvidence::describe`]).
    pub mode_evidence: String,
    /// The metadata log's finalized features (`metadata.version`, `transaction.version`, …).
    pub features: Vec<(String, i16)>,
    /// Whether a `__share_group_state` partition is in the dirs.
    pub share_group_state: bool,
}

/// One fact and the range it allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionEvidence {
    /// The fact, in words (`metadata.version 3.9-IV0 (level 21) finalized`).
    pub fact: String,
    /// What it bounds.
    pub range: VersionRange,
}

/// The release range `facts` allow, with each fact that bounds it.
pub fn detect_version(facts: &VersionFacts) -> (VersionRange, Vec<VersionEvidence>) {
    let mut evidence = Vec::new();
    if facts.mode == Some(LogDirMode::ZooKeeper) {
        evidence.push(VersionEvidence {
            fact: format!("ZooKeeper mode ({}): removed in 4.0", facts.mode_evidence),
            range: VersionRange {
                min: None,
                max: Some(KafkaVersion::V3_9),
            },
        });
    }
    let feature = |name: &str| facts.features.iter().find(|(k, _)| k == name).map(|f| f.1);
    if let Some(level) = feature("metadata.version") {
        let name = metadata_version_name(level);
        let min = name.and_then(KafkaVersion::of_metadata_version);
        // A level past the table's end is newer than every release it names.
        let min = min.or_else(|| (level > 34).then_some(KafkaVersion::LATEST));
        evidence.push(VersionEvidence {
            fact: format!(
                "metadata.version {} (level {level}) finalized in the metadata log: the broker \
                 software is that release or newer",
                name.unwrap_or("unknown")
            ),
            range: VersionRange { min, max: None },
        });
    }
    if let Some(tv) = feature("transaction.version").filter(|&l| l >= 2) {
        evidence.push(VersionEvidence {
            fact: format!("transaction.version {tv} (KIP-890 transactions v2) finalized"),
            range: VersionRange {
                min: Some(KafkaVersion::V4_0),
                max: None,
            },
        });
    }
    if facts.share_group_state {
        evidence.push(VersionEvidence {
            fact: "__share_group_state partitions (KIP-932 share groups, from 4.0)".into(),
            range: VersionRange {
                min: Some(KafkaVersion::V4_0),
                max: None,
            },
        });
    }
    let range = (evidence.iter()).fold(VersionRange::default(), |r, e| r.intersect(e.range));
    (range, evidence)
}

/// How the applied release was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionBasis {
    /// `--kafka-version`.
    Given,
    /// From the files.
    Detected,
    /// Nothing told it: the latest release modelled.
    AssumedLatest,
}

impl VersionBasis {
    /// `given`, `detected` or `assumed_latest` (the JSON spelling).
    pub fn name(self) -> &'static str {
        match self {
            VersionBasis::Given => "given",
            VersionBasis::Detected => "detected",
            VersionBasis::AssumedLatest => "assumed_latest",
        }
    }
}

/// The release whose rules a run applies, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedVersion {
    /// The release.
    pub version: KafkaVersion,
    /// How it was chosen.
    pub basis: VersionBasis,
    /// What the files allow.
    pub detected: VersionRange,
    /// The facts behind `detected`.
    pub evidence: Vec<VersionEvidence>,
    /// Set when the choice rests on an assumption the files do not settle (the range spans
    /// several releases, or nothing bounds it), or when the given release contradicts them.
    pub assumption: Option<String>,
}

impl Default for AppliedVersion {
    fn default() -> Self {
        choose_version(None, &VersionFacts::default())
    }
}

impl AppliedVersion {
    /// One line for people: `3.9 (detected from ...: 3.9+)`.
    pub fn describe(&self) -> String {
        let why = match self.basis {
            VersionBasis::Given => "given with --kafka-version".to_string(),
            VersionBasis::Detected => format!(
                "detected: {} from {}",
                self.detected,
                (self.evidence.iter())
                    .map(|e| e.fact.as_str())
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            VersionBasis::AssumedLatest => {
                "assumed: the latest release modelled, nothing in the files bounds it".to_string()
            }
        };
        format!("Kafka {} rules ({why})", self.version)
    }
}

/// The release to apply: `given`, else the oldest the files allow (a `metadata.version` names
/// the release a cluster was formatted or last finalized with: software newer than that is an
/// unfinished upgrade), else the newest they allow (ZooKeeper mode: 3.9), else the latest.
pub fn choose_version(given: Option<KafkaVersion>, facts: &VersionFacts) -> AppliedVersion {
    let (detected, evidence) = detect_version(facts);
    let (version, basis) = match (given, detected.min, detected.max) {
        (Some(v), _, _) => (v, VersionBasis::Given),
        (None, Some(min), _) => (min.clamp_supported(), VersionBasis::Detected),
        (None, None, Some(max)) => (max.clamp_supported(), VersionBasis::Detected),
        (None, None, None) => (KafkaVersion::LATEST, VersionBasis::AssumedLatest),
    };
    let assumption = match basis {
        VersionBasis::Given if !detected.contains(version) => Some(format!(
            "--kafka-version {version} contradicts the files ({detected})"
        )),
        VersionBasis::Given => None,
        // Exact, or bounded below by the newest release modelled: nothing else to choose.
        VersionBasis::Detected
            if detected.is_exact() || detected.min.is_some_and(|m| m >= KafkaVersion::LATEST) =>
        {
            None
        }
        VersionBasis::Detected => Some(format!(
            "the files allow {detected}; {version}'s rules are applied (give --kafka-version \
             if the broker runs another release)"
        )),
        VersionBasis::AssumedLatest => Some(format!(
            "no file tells the release; {version}'s rules are applied (give --kafka-version)"
        )),
    };
    AppliedVersion {
        version,
        basis,
        detected,
        evidence,
        assumption,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a panic is the failure report
mod tests {
    use super::*;

    #[test]
    fn versions_order_and_parse() {
        assert!(KafkaVersion::V4_1.at_least(KafkaVersion::V4_0));
        assert!(!KafkaVersion::V3_9.at_least(KafkaVersion::V4_0));
        assert!(KafkaVersion::new(10, 0) > KafkaVersion::new(4, 9));
        assert_eq!(KafkaVersion::default().to_string(), "4.4");
        assert_eq!(KafkaVersion::parse("3.9.1"), Ok(KafkaVersion::V3_9));
        assert_eq!(KafkaVersion::parse("4.4"), Ok(KafkaVersion::V4_4));
        for bad in ["3.5", "4.5", "4", "4.x", "3.9.1.2", "", "3.9.x"] {
            let e = KafkaVersion::parse(bad).unwrap_err();
            assert!(e.contains("3.6, 3.7"), "{bad}: {e}");
        }
    }

    fn facts(mode: LogDirMode, features: &[(&str, i16)], share: bool) -> VersionFacts {
        VersionFacts {
            mode: Some(mode),
            mode_evidence: "meta.properties".into(),
            features: features.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            share_group_state: share,
        }
    }

    #[test]
    fn zookeeper_mode_is_up_to_3_9_and_an_assumption() {
        let a = choose_version(None, &facts(LogDirMode::ZooKeeper, &[], false));
        assert_eq!(a.version, KafkaVersion::V3_9);
        assert_eq!(a.basis, VersionBasis::Detected);
        assert_eq!(a.detected.to_string(), "up to 3.9");
        assert!(a.assumption.is_some());
    }

    #[test]
    fn metadata_version_bounds_from_below() {
        let a = choose_version(
            None,
            &facts(LogDirMode::KRaft, &[("metadata.version", 21)], false),
        );
        assert_eq!(
            (a.version, a.detected.to_string()),
            (KafkaVersion::V3_9, "3.9+".into())
        );
        assert!(a.evidence[0].fact.contains("3.9-IV0 (level 21)"));
        let a = choose_version(
            None,
            &facts(
                LogDirMode::KRaft,
                &[("metadata.version", 21), ("transaction.version", 2)],
                true,
            ),
        );
        assert_eq!(a.version, KafkaVersion::V4_0);
        assert_eq!(a.evidence.len(), 3);
        let a = choose_version(
            None,
            &facts(LogDirMode::KRaft, &[("metadata.version", 33)], false),
        );
        assert_eq!(a.version, KafkaVersion::V4_4);
        // 4.4+ with 4.4 the newest modelled: nothing else to choose.
        assert_eq!(a.assumption, None);
    }

    /// 3.9 reserves the name `__share_group_state` (`Topic.java`) but has no share coordinator
    /// to write it; 4.0 does (`ShareCoordinatorService`, KIP-932 early access): its partitions
    /// alone bound the release from below at 4.0.
    #[test]
    fn share_group_state_means_4_0_or_later() {
        let a = choose_version(
            None,
            &facts(LogDirMode::KRaft, &[("metadata.version", 21)], true),
        );
        assert_eq!(
            (a.version, a.detected.to_string()),
            (KafkaVersion::V4_0, "4.0+".into())
        );
        assert!(a
            .evidence
            .iter()
            .any(|e| e.fact.contains("__share_group_state")));
    }

    #[test]
    fn given_wins_and_a_contradiction_is_said() {
        let zk = facts(LogDirMode::ZooKeeper, &[], false);
        let a = choose_version(Some(KafkaVersion::V3_6), &zk);
        assert_eq!(
            (a.version, a.basis),
            (KafkaVersion::V3_6, VersionBasis::Given)
        );
        assert_eq!(a.assumption, None);
        let a = choose_version(Some(KafkaVersion::V4_4), &zk);
        assert!(a.assumption.unwrap().contains("contradicts"));
        let a = choose_version(None, &VersionFacts::default());
        assert_eq!(a.basis, VersionBasis::AssumedLatest);
        assert!(a.describe().starts_with("Kafka 4.4 rules (assumed"));
    }
}
