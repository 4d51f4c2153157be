//! Lost data: a partition whose checkpoints say it held records but whose `.log` files are
//! gone, and a rolled segment whose `.log` is empty while its indexes point at records. The
//! broker loads both without complaint and serves the data as never written (`LogLoader` opens
//! a fresh segment when none is left; an empty `.log` holds no batches whatever the index says).

use crate::model::log_dir::LogDir;
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
    if !live
        || !p.complete()
        || !listed_whole(dir, p)
        || !p.segments.is_empty()
    {
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
