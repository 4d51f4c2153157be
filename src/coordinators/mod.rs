//! The coordinators' views of the dirs held here, built from the files alone: the group
//! coordinator's (`__consumer_offsets` replayed, [`groups::groups_report`]) and the transaction
//! coordinator's with every data partition's producer state ([`transactions::transactions_report`]).
//!
//! These compose the model's replays, the report documents and the checks' findings; `logclean
//! groups`, `logclean transactions` and [`crate::diagnose`] all call them, and only render.

pub mod groups;
pub mod transactions;

use std::path::Path;

use crate::checks::catalog;
use crate::checks::finding::Finding;
use crate::checks::location::at_partition;
use crate::model::log_dir::LogDir;
use crate::model::names::{PartitionDirName, PartitionDirState};
use crate::model::partition::Partition;

/// The live partition dirs of `dirs`, the first copy of each topic-partition (a partition held in
/// two log dirs is read from the first), each with its log dir.
pub fn first_live_copies(dirs: &[LogDir]) -> Vec<(&LogDir, &Partition, &PartitionDirName)> {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for d in dirs {
        for p in &d.partitions {
            let Some(name) = p
                .name
                .as_ref()
                .filter(|n| n.state == PartitionDirState::Live)
            else {
                continue;
            };
            if seen.insert((name.topic.as_str(), name.partition)) {
                out.push((d, p, name));
            }
        }
    }
    out
}

/// The `file.unreadable` finding of a replay that could not read `file` of partition `p`.
fn unreadable(d: &LogDir, p: &Partition, file: &Path) -> Finding {
    let mut loc = at_partition(d, p);
    loc.file = Some(file.to_path_buf());
    Finding::new(&catalog::FILE_UNREADABLE, loc, "cannot read records")
}
