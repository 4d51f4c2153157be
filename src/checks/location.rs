//! Where findings are: log dir, partition dir (with its topic and partition number when the
//! name parses), segment, file and byte; and the one form of a place ([`Location::canonical`]) that
//! findings of different readers are deduplicated on ([`dedup_findings`]).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::model::log_dir::LogDir;
use crate::model::names::parse_partition_dir_name;
use crate::model::partition::Partition;
use crate::plan::PartitionPlan;

use super::finding::{Finding, Location};

/// The log dir itself.
pub fn at_dir(dir: &LogDir) -> Location {
    Location {
        log_dir: dir.path.clone(),
        ..Default::default()
    }
}

/// A partition dir of the log dir.
pub fn at_partition(dir: &LogDir, p: &Partition) -> Location {
    Location {
        topic: p.name.as_ref().map(|n| n.topic.clone()),
        partition: p.name.as_ref().map(|n| n.partition),
        dir: Some(p.dir_name.clone()),
        ..at_dir(dir)
    }
}

/// A planned partition replica (or one of its segments, by base offset).
pub fn at_plan(p: &PartitionPlan, segment: Option<i64>) -> Location {
    Location {
        log_dir: p.log_dir.clone(),
        topic: Some(p.topic.clone()),
        partition: Some(p.partition),
        dir: Some(p.dir_name.clone()),
        segment,
        ..Default::default()
    }
}

/// A file of a partition dir, at a byte position.
pub fn at_file(dir: &LogDir, p: &Partition, file: &Path, byte: Option<u64>) -> Location {
    Location {
        file: Some(file.to_path_buf()),
        byte_offset: byte,
        ..at_partition(dir, p)
    }
}

/// A segment (by base offset) of a partition dir, no file yet.
pub fn at_segment(dir: &LogDir, p: &Partition, base_offset: i64) -> Location {
    Location {
        segment: Some(base_offset),
        ..at_partition(dir, p)
    }
}

/// A file of a segment, at a byte position.
pub fn at_segment_file(
    dir: &LogDir,
    p: &Partition,
    base_offset: i64,
    file: &Path,
    byte: Option<u64>,
) -> Location {
    Location {
        file: Some(file.to_path_buf()),
        byte_offset: byte,
        ..at_segment(dir, p, base_offset)
    }
}

/// `path` made absolute against the working directory, without touching the filesystem (`.`
/// components dropped); as it is when the working directory is unknown.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

impl Location {
    /// This place in its one form, whichever reader built it: the log dir made absolute (a log
    /// dir named `logs-0` and `/srv/logs-0` is one place), the topic and partition (from the
    /// partition dir's name when the reader gave only the dir), then the most specific thing it
    /// is about: the file, made absolute, and the byte in it; else the partition dir name and
    /// the segment. The consumer group stays part of the place (two groups are two findings).
    pub fn canonical(&self) -> Location {
        let log_dir = absolute(&self.log_dir);
        let parsed = self.dir.as_deref().and_then(parse_partition_dir_name);
        let topic = (self.topic.clone()).or_else(|| parsed.as_ref().map(|n| n.topic.clone()));
        let partition = self.partition.or(parsed.map(|n| n.partition));
        let file = self.file.as_deref().map(|f| match f.is_absolute() {
            true => absolute(f),
            // A bare file name is relative to its partition dir, else to the log dir.
            false if f.components().count() == 1 => {
                let parent = self
                    .dir
                    .as_deref()
                    .map_or(log_dir.clone(), |d| log_dir.join(d));
                parent.join(f)
            }
            false => absolute(f),
        });
        let (dir, segment) = match file {
            Some(_) => (None, None),
            None => (self.dir.clone(), self.segment),
        };
        Location {
            log_dir,
            topic,
            partition,
            dir,
            segment,
            byte_offset: file.as_ref().and(self.byte_offset),
            file,
            group: self.group.clone(),
            node: self.node,
        }
    }
}

/// Keep the first finding of each code at each canonical place: the same fact reported by two
/// readers (`config` and `inspect` both see log dirs of different clusters) is one finding,
/// however each named the log dir; findings at different places (one topic each, one file
/// each) all stay.
pub fn dedup_findings(findings: &mut Vec<Finding>) {
    let mut seen = BTreeSet::new();
    findings.retain(|f| seen.insert((f.code, f.location.canonical())));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::catalog;

    fn at(log_dir: &str) -> Location {
        Location {
            log_dir: PathBuf::from(log_dir),
            ..Location::default()
        }
    }

    #[test]
    fn relative_and_absolute_log_dirs_are_one_place() {
        let cwd = std::env::current_dir().unwrap();
        let abs = cwd.join("logs-0");
        assert_eq!(
            at("logs-0").canonical(),
            at(abs.to_str().unwrap()).canonical()
        );
        assert_eq!(at("./logs-0").canonical(), at("logs-0").canonical());
        let file = Location {
            dir: Some("orders-0".into()),
            file: Some(PathBuf::from("00000000000000000000.log")),
            ..at("logs-0")
        };
        let full = Location {
            topic: Some("orders".into()),
            partition: Some(0),
            dir: Some("orders-0".into()),
            segment: Some(0),
            file: Some(abs.join("orders-0/00000000000000000000.log")),
            ..at(abs.to_str().unwrap())
        };
        assert_eq!(file.canonical(), full.canonical());
    }

    #[test]
    fn topics_files_and_groups_are_different_places() {
        let topic = |t: &str| Location {
            topic: Some(t.into()),
            ..at("/d")
        };
        assert_ne!(topic("a").canonical(), topic("b").canonical());
        assert_ne!(topic("a").canonical(), at("/d").canonical());
        let group = |g: &str| Location {
            group: Some(g.into()),
            ..topic("__consumer_offsets")
        };
        assert_ne!(group("g1").canonical(), group("g2").canonical());
        let leftover = |d: &str| Location {
            dir: Some(d.into()),
            ..at("/d")
        };
        assert_ne!(
            leftover("t-0.0123456789abcdef0123456789abcdef-delete").canonical(),
            leftover("t-0").canonical()
        );
    }

    #[test]
    fn dedup_keeps_one_per_code_and_place() {
        let kind = &catalog::CONFIG_REMOVED_KEY;
        let cwd = std::env::current_dir().unwrap();
        let mut findings: Vec<Finding> = ["a", "b", "c"]
            .iter()
            .map(|t| {
                let loc = Location {
                    topic: Some((*t).into()),
                    ..at("logs-0")
                };
                Finding::new(kind, loc, format!("topic {t}"))
            })
            .collect();
        findings.push(Finding::new(
            kind,
            Location {
                topic: Some("a".into()),
                ..at(cwd.join("logs-0").to_str().unwrap())
            },
            "topic a again",
        ));
        dedup_findings(&mut findings);
        let kept: Vec<&str> = findings.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(kept, ["topic a", "topic b", "topic c"]);
    }
}
