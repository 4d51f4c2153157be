//! The files of a partition dir that a mutation plans over (live segments, producer snapshots),
//! from the model's listing ([`list_partition_dir`]): the same names, links followed and
//! non-regular files left out as every read-only command sees them. An entry the listing could
//! not read refuses the plan, since it may be a segment or a snapshot the plan must account for.

use std::io;
use std::path::{Path, PathBuf};

use crate::model::listing::{list_partition_dir, PartitionListing};

use super::ActionError;

/// A segment's files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentFiles {
    /// Base offset.
    pub base: i64,
    /// The `.log`.
    pub log: PathBuf,
}

impl SegmentFiles {
    /// A sibling file with another suffix.
    pub fn with(&self, suffix: &str) -> PathBuf {
        self.log
            .with_file_name(format!("{:020}{suffix}", self.base))
    }
}

/// The listing of `partition_dir`; the first entry it could not read is the error.
fn listing(partition_dir: &Path) -> Result<PartitionListing, ActionError> {
    let listing =
        list_partition_dir(partition_dir).map_err(|e| ActionError::io(partition_dir, e))?;
    if let Some(p) = listing.io_problems.first() {
        return Err(ActionError::io(
            &p.path,
            io::Error::other(p.message.clone()),
        ));
    }
    Ok(listing)
}

/// The live segments (`.log` files) of a partition dir, by base offset.
pub fn list_segments(partition_dir: &Path) -> Result<Vec<SegmentFiles>, ActionError> {
    Ok(listing(partition_dir)?
        .segments
        .into_values()
        .filter_map(|s| {
            s.log.map(|log| SegmentFiles {
                base: s.base_offset,
                log: log.path,
            })
        })
        .collect())
}

/// The producer snapshots (`.snapshot` files) of a partition dir, by offset.
pub fn list_snapshots(partition_dir: &Path) -> Result<Vec<(i64, PathBuf)>, ActionError> {
    Ok(listing(partition_dir)?
        .snapshots
        .into_iter()
        .map(|(offset, f)| (offset, f.path))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn segments_and_snapshots_by_offset_and_an_unreadable_entry_refuses() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("orders-0");
        fs::create_dir(&dir).unwrap();
        for name in [
            "00000000000000000042.log",
            "00000000000000000000.log",
            "00000000000000000000.index",
            "00000000000000000007.index",
            "00000000000000000042.snapshot",
            "00000000000000000003.snapshot",
            "00000000000000000000.log.deleted",
            "00000000000000000050.snapshot.deleted",
        ] {
            fs::write(dir.join(name), b"").unwrap();
        }
        // A dir named like a segment is not one.
        fs::create_dir(dir.join("00000000000000000060.log")).unwrap();
        let segments = list_segments(&dir).unwrap();
        assert_eq!(
            segments,
            [0, 42].map(|base| SegmentFiles {
                base,
                log: dir.join(format!("{base:020}.log")),
            })
        );
        assert_eq!(
            segments[1].with(".index"),
            dir.join("00000000000000000042.index")
        );
        let snapshots: Vec<i64> = list_snapshots(&dir).unwrap().iter().map(|s| s.0).collect();
        assert_eq!(snapshots, [3, 42]);
        // A dangling link named like a segment file: both listings refuse.
        std::os::unix::fs::symlink("/nonexistent/x", dir.join("00000000000000000070.log")).unwrap();
        assert!(matches!(list_segments(&dir), Err(ActionError::Io { .. })));
        assert!(matches!(list_snapshots(&dir), Err(ActionError::Io { .. })));
        assert!(list_segments(&tmp.path().join("missing-0")).is_err());
    }
}
