//! Lost data: a partition whose checkpoints say it held records but whose `.log` files are
//! gone, a KRaft metadata log whose `.log` files are gone past its newest snapshot, and a rolled segment whose `.log` is empty while its indexes point at records. The
//! broker loads both without complaint and serves the data as never written (`LogLoader` opens
//! a fresh segment when none is left; an empty `.log` holds no batches whatever the index says).

use crate::model::log_dir::LogDir;
use crate::model::metadata_log::parse_snapshot_name;
use crate::model::names::PartitionDirState;
use crate::model::names::SegmentFileKind;
use crate::model::partition::Partition;
use crate::model::units::{Bytes, Offset};

use super::catalog;
use super::finding::{EvidenceValue, Finding};
use super::index::path_of;
use super::location::{at_partition, at_segment_file};
use super::partition::listed_whole;

/// `partition.data_lost` for a live, fully loaded partition without a single `.log` whose high
/// watermark, recovery point or log start checkpoint is above 0.
pub fn data_lost_findings(dir: &LogDir, p: &Partition, out: &mut Vec<Finding>) {
    let live = p
        .name
        .as_ref()
        .is_some_and(|n| n.state == PartitionDirState::Live);
    if !live || !p.complete() || !listed_whole(dir, p) || !p.segments.is_empty() {
        return;
    }
    let c = &p.checkpoints;
    let held: Vec<(&'static str, Offset)> = [
        ("high_watermark", c.high_watermark),
        ("recovery_point", c.recovery_point),
        ("log_start_offset_checkpoint", c.log_start_offset),
    ]
    .into_iter()
    .filter_map(|(name, v)| v.filter(|v| *v > Offset(0)).map(|v| (name, v)))
    .collect();
    let Some(highest) = held.iter().map(|(_, v)| *v).max() else {
        return;
    };
    let mut f = Finding::new(
        &catalog::PARTITION_DATA_LOST,
        at_partition(dir, p),
        format!(
            "no .log file left, but the checkpoints say the log reached offset {highest}: the \
             broker starts this partition empty and the records before that offset are gone"
        ),
    );
    for (name, v) in held {
        f = f.evidence(name, EvidenceValue::Offset(v.get()));
    }
    // What is left of the segments: index files without their `.log` (no segment).
    out.push(f.evidence(
        "segment_files_left",
        EvidenceValue::Count(p.orphan_indexes.len() as u64),
    ));
}

/// `metadata.records_lost` for the KRaft metadata log (`__cluster_metadata-0`, listed whole)
/// without a single `.log` whose other files show the log reached further than its newest
/// `<endOffset>-<epoch>.checkpoint` snapshot: a producer snapshot (named after the log end
/// offset when it was taken), the last entry of an orphan `.index` or `.timeindex` (an offset the
/// log held), an orphan's base offset (the log end when that segment was rolled). The broker
/// starts the metadata log at the newest snapshot, so the records between its end offset and
/// where the log reached are gone. Only files every depth reads are used: at depth `Tail` the
/// producer snapshots of a partition without `.log` are all listed, orphan indexes are read as
/// any index is.
pub fn metadata_lost_findings(dir: &LogDir, p: &Partition, out: &mut Vec<Finding>) {
    let metadata = p
        .name
        .as_ref()
        .is_some_and(|n| n.is_metadata_log() && n.state == PartitionDirState::Live);
    if !metadata || !p.complete() || !listed_whole(dir, p) || !p.segments.is_empty() {
        return;
    }
    let max = |it: &mut dyn Iterator<Item = i64>| it.max();
    let sources: [(&'static str, Option<i64>); 4] = [
        (
            "producer_snapshot_offset",
            max(&mut p.snapshots.iter().map(|s| s.offset)),
        ),
        (
            "index_last_offset",
            max(&mut p.orphan_indexes.iter().filter_map(|s| {
                let i = s.index.as_ref()?.as_ref().ok()?;
                Some(i.last_valid?.offset)
            })),
        ),
        (
            "time_index_last_offset",
            max(&mut p.orphan_indexes.iter().filter_map(|s| {
                let t = s.time_index.as_ref()?.as_ref().ok()?;
                Some(t.last_valid?.offset)
            })),
        ),
        (
            "orphan_segment_base_offset",
            max(&mut p.orphan_indexes.iter().map(|s| s.base_offset.get())),
        ),
    ];
    // The log end each source proves: a producer snapshot and a base offset name an end
    // offset, an index entry an offset the log held (so its end is past it).
    let reached = sources
        .iter()
        .filter_map(|(name, v)| {
            let v = (*v)?;
            Some(if name.ends_with("_last_offset") {
                v.saturating_add(1)
            } else {
                v
            })
        })
        .max();
    let snapshot_end = p
        .listing
        .metadata_snapshots
        .iter()
        .filter_map(|f| parse_snapshot_name(&f.path.file_name()?.to_string_lossy()))
        .map(|(end, _)| end)
        .max();
    let Some(reached) = reached.filter(|r| *r > snapshot_end.unwrap_or(0)) else {
        return;
    };
    let from = snapshot_end.unwrap_or(0);
    let mut f = Finding::new(
        &catalog::METADATA_RECORDS_LOST,
        at_partition(dir, p),
        format!(
            "no .log file left in the metadata log, but its files show it reached offset \
             {reached} while the newest snapshot ends at {from}: the committed metadata records \
             at offsets {from}..{} are lost, and the broker starts from the snapshot without them",
            reached - 1
        ),
    )
    .evidence("log_reached", EvidenceValue::Offset(reached));
    f = match snapshot_end {
        Some(end) => f.evidence("newest_snapshot_end_offset", EvidenceValue::Offset(end)),
        None => f.evidence("checkpoint_snapshots", EvidenceValue::Count(0)),
    };
    for (name, v) in sources {
        if let Some(v) = v {
            f = f.evidence(name, EvidenceValue::Offset(v));
        }
    }
    out.push(f.evidence(
        "offsets_lost",
        EvidenceValue::Count(u64::try_from(reached - from).unwrap_or(0)),
    ));
}

/// `segment.empty_log_with_index` for each rolled segment whose `.log` is 0 bytes while its
/// offset index or time index has valid entries.
pub fn empty_log_findings(dir: &LogDir, p: &Partition, out: &mut Vec<Finding>) {
    for seg in p.segments.iter().filter(|s| !s.active) {
        if seg.files.log.as_ref().is_none_or(|l| l.size != Bytes(0)) {
            continue;
        }
        let index = seg
            .index
            .as_ref()
            .and_then(|r| r.as_ref().ok())
            .filter(|i| i.shape.valid_entries > 0);
        let time_index = seg
            .time_index
            .as_ref()
            .and_then(|r| r.as_ref().ok())
            .filter(|t| t.shape.valid_entries > 0);
        if index.is_none() && time_index.is_none() {
            continue;
        }
        let mut f = Finding::new(
            &catalog::SEGMENT_EMPTY_LOG_WITH_INDEX,
            at_segment_file(
                dir,
                p,
                seg.base_offset.get(),
                &path_of(p, seg, SegmentFileKind::Log),
                None,
            ),
            "rolled segment with an empty .log whose indexes point at records: those records \
             are gone",
        )
        .evidence("log_size", EvidenceValue::Bytes(0));
        if let Some(i) = index {
            f = f.evidence(
                "index_entries",
                EvidenceValue::Count(i.shape.valid_entries as u64),
            );
            if let Some(last) = i.last_valid {
                f = f.evidence("index_last_offset", EvidenceValue::Offset(last.offset));
            }
        }
        if let Some(t) = time_index {
            f = f.evidence(
                "time_index_entries",
                EvidenceValue::Count(t.shape.valid_entries as u64),
            );
            if let Some(last) = t.last_valid {
                f = f.evidence("time_index_last_offset", EvidenceValue::Offset(last.offset));
            }
        }
        out.push(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::test_support::{codes, Scratch};
    use crate::model::segment::ScanDepth;

    fn findings(s: &Scratch) -> Vec<Finding> {
        let d = s.load(ScanDepth::Headers);
        let mut out = Vec::new();
        for p in &d.partitions {
            data_lost_findings(&d, p, &mut out);
            empty_log_findings(&d, p, &mut out);
        }
        out
    }

    #[test]
    fn healthy_copy_has_no_lost_data() {
        assert_eq!(codes(&findings(&Scratch::new())), Vec::<&str>::new());
    }

    #[test]
    fn logs_gone_under_checkpoints_is_data_lost_with_the_offsets() {
        let s = Scratch::new();
        for e in std::fs::read_dir(s.path("orders-0")).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == "log") {
                std::fs::remove_file(path).unwrap();
            }
        }
        let f = findings(&s);
        assert_eq!(codes(&f), ["partition.data_lost"], "{f:#?}");
        assert_eq!(f[0].location.dir.as_deref(), Some("orders-0"));
        let hw = f[0]
            .evidence
            .iter()
            .find(|e| e.name == "high_watermark")
            .unwrap();
        assert_eq!(hw.value, EvidenceValue::Offset(36));
        assert!(f[0].message.contains("offset 36"), "{}", f[0].message);
    }

    #[test]
    fn emptied_rolled_log_with_its_indexes_is_lost() {
        let s = Scratch::new();
        std::fs::write(s.path("orders-0/00000000000000000004.log"), "").unwrap();
        let f = findings(&s);
        assert_eq!(codes(&f), ["segment.empty_log_with_index"], "{f:#?}");
        assert_eq!(f[0].location.segment, Some(4));
        let names: Vec<&str> = f[0].evidence.iter().map(|e| e.name).collect();
        assert!(names.contains(&"time_index_last_offset"), "{names:?}");
    }
}
