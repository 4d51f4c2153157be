//! Batches and records of a partition for `inspect --records`: a structured dump whose keys,
//! values and headers are shown safely (printable text or hex, truncated); and
//! [`SegmentStop`], where a record walk ([`RecordWalk`]) of one segment stopped short of its
//! end, for every replay that walks records.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::formats::batch::BatchInfo;
use crate::formats::control::ControlKind;
use crate::formats::record::RecordRef;
use crate::formats::record_walk::{RecordWalk, StopReason, WalkStop};

use super::file_bytes::{read_file_data, ReadMode};
use super::names::SegmentFileKind;
use super::partition::Partition;
use super::problem::FileProblem;

/// Where and why the record walk of one segment's `.log` stopped before its end.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SegmentStop {
    /// The `.log` file.
    #[serde(with = "crate::model::names::path_serde")]
    pub path: PathBuf,
    /// Where (file position, batch base offset) and why.
    pub stop: WalkStop,
}

impl SegmentStop {
    /// The stop of a finished walk of `path`, unless the walk read every batch to the end.
    pub fn short_of_end(path: &Path, stop: Option<WalkStop>) -> Option<SegmentStop> {
        stop.filter(|s| !s.reason.is_end()).map(|stop| SegmentStop {
            path: path.to_path_buf(),
            stop,
        })
    }
}

/// The dump of one partition's records.
#[derive(Debug, Clone, Default)]
pub struct RecordsDump {
    /// The batches read, in log order.
    pub batches: Vec<BatchDump>,
    /// Segments whose walk stopped before their end: a walk error, a torn or zero tail (which
    /// the segment checks report), or the record limit.
    pub stops: Vec<SegmentStop>,
}

/// One batch in the dump.
#[derive(Debug, Clone, Serialize)]
pub struct BatchDump {
    /// Segment base offset.
    pub segment: i64,
    /// Byte position in the segment.
    pub position: u64,
    /// Bytes.
    pub size: u64,
    /// Magic byte.
    pub magic: i8,
    /// First offset.
    pub base_offset: i64,
    /// Last offset.
    pub last_offset: i64,
    /// Max timestamp.
    pub max_timestamp_ms: i64,
    /// Codec name.
    pub compression: String,
    /// Transactional batch.
    pub transactional: bool,
    /// Control batch.
    pub control: bool,
    /// Producer id (-1: none).
    pub producer_id: i64,
    /// Records (may stop early at the record limit).
    pub records: Vec<RecordDump>,
    /// A decode error, if the batch could not be decoded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One record in the dump.
#[derive(Debug, Clone, Serialize)]
pub struct RecordDump {
    /// Offset.
    pub offset: i64,
    /// Timestamp.
    pub timestamp_ms: i64,
    /// Key, shown safely (`null` for none).
    pub key: Option<String>,
    /// Value, shown safely (`null` for a tombstone).
    pub value: Option<String>,
    /// Headers as `name=value`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<String>,
    /// Control record type (`commit`, `abort`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub control: Option<String>,
}

/// Show bytes safely: printable UTF-8 as text, anything else as `0x` hex; at most `max` bytes.
pub fn show_bytes(bytes: &[u8], max: usize) -> String {
    let (shown, cut) = if bytes.len() > max {
        (bytes.get(..max).unwrap_or(bytes), true)
    } else {
        (bytes, false)
    };
    let printable = std::str::from_utf8(shown)
        .ok()
        .filter(|s| s.chars().all(|c| !c.is_control() || c == ' '));
    let mut out = match printable {
        Some(s) => s.to_string(),
        None => {
            let mut h = String::from("0x");
            for b in shown {
                h.push_str(&format!("{b:02x}"));
            }
            h
        }
    };
    if cut {
        out.push_str(&format!("…(+{} bytes)", bytes.len() - max));
    }
    out
}

fn control_name(kind: ControlKind) -> String {
    format!("{kind:?}").to_lowercase()
}

/// Dump the batches and records of `p`, at most `max_records` records (0: no limit). Segments
/// are read whole (records need their bytes), mapped only in `Mmap` mode and only when no live
/// process holds the log dir's `.lock` ([`read_file_data`]; a sparse tail is not read).
pub fn dump_partition(
    p: &Partition,
    read_mode: ReadMode,
    max_records: usize,
    max_value_bytes: usize,
) -> Result<RecordsDump, FileProblem> {
    let mut out = RecordsDump::default();
    let mut budget = if max_records == 0 {
        usize::MAX
    } else {
        max_records
    };
    for seg in &p.segments {
        let Some(path) = seg.path(&p.path, SegmentFileKind::Log) else {
            continue;
        };
        // A sparse tail is not read: the dump stops at its first zero header.
        let bytes = read_file_data(&path, read_mode)
            .map_err(|e| FileProblem::io(&path, &e))?
            .bytes;
        let mut walk = RecordWalk::new(&bytes);
        while let Some(b) = walk.next() {
            if budget == 0 {
                walk.stop_at(&b.info, StopReason::Cap);
                out.stops
                    .extend(SegmentStop::short_of_end(&path, walk.into_stop()));
                return Ok(out);
            }
            let mut dump = batch_dump(seg.base_offset.get(), &b.info);
            let result = b.for_each_record(|r: RecordRef<'_>| {
                if budget == 0 {
                    return Ok(());
                }
                budget -= 1;
                dump.records.push(record_dump(&r, max_value_bytes));
                Ok(())
            });
            // A batch that does not decode is shown with its error; the dump goes on.
            if let Err(e) = result {
                dump.error = Some(e.to_string());
            }
            out.batches.push(dump);
        }
        let stop = walk.into_stop();
        // At the limit, a walk error ends the dump (as it always has); any other end reads the
        // next segment, whose first batch ends it.
        let done = budget == 0
            && stop
                .as_ref()
                .is_some_and(|s| matches!(s.reason, StopReason::BadBatch(_)));
        out.stops.extend(SegmentStop::short_of_end(&path, stop));
        if done {
            return Ok(out);
        }
    }
    Ok(out)
}

/// A batch's header fields, with no records yet.
fn batch_dump(segment: i64, b: &BatchInfo) -> BatchDump {
    BatchDump {
        segment,
        position: b.position,
        size: b.size,
        magic: b.magic,
        base_offset: b.base_offset,
        last_offset: b.last_offset,
        max_timestamp_ms: b.max_timestamp,
        compression: b.compression.to_string(),
        transactional: b.is_transactional,
        control: b.is_control,
        producer_id: b.producer_id,
        records: Vec::new(),
        error: None,
    }
}

/// A record shown safely.
fn record_dump(r: &RecordRef<'_>, max_value_bytes: usize) -> RecordDump {
    RecordDump {
        offset: r.offset,
        timestamp_ms: r.timestamp,
        key: r.key.map(|k| show_bytes(k, max_value_bytes)),
        value: r.value.map(|v| show_bytes(v, max_value_bytes)),
        headers: r
            .headers
            .iter()
            .map(|(k, v)| {
                format!(
                    "{}={}",
                    show_bytes(k, max_value_bytes),
                    v.map_or("null".to_string(), |v| show_bytes(v, max_value_bytes))
                )
            })
            .collect(),
        control: r.control.map(|c| control_name(c.kind)),
    }
}

#[cfg(test)]
mod tests {
    use super::show_bytes;

    #[test]
    fn shows_text_or_hex_truncated() {
        assert_eq!(show_bytes(b"key-1", 64), "key-1");
        assert_eq!(show_bytes(&[0, 1, 0xff], 64), "0x0001ff");
        assert_eq!(show_bytes(b"abcdef", 3), "abc…(+3 bytes)");
        assert_eq!(show_bytes(b"a\x1b[31m", 64), "0x611b5b33316d");
    }
}
