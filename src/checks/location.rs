//! Where findings are: log dir, partition dir (with its topic and partition number when the
//! name parses), segment, file and byte.

use std::path::Path;

use crate::model::log_dir::LogDir;
use crate::model::partition::Partition;

use super::finding::Location;

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
