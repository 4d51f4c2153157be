//! `leader-epoch-checkpoint`: the generic checkpoint format with entries `epoch startOffset`.
//!
//! Source: Kafka `storage/src/main/java/org/apache/kafka/storage/internals/checkpoint/LeaderEpochCheckpointFile.java`
//! (format) and `storage/.../internals/epoch/LeaderEpochFileCache.java` (what loading does with
//! the entries); spec: kafka-on-disk-formats.md §2.1, §2.3. Entry lines split on `\s+` into
//! exactly 2 tokens, an int then a long; everything else follows [`parse_checkpoint`].

use super::checkpoint::{
    encode_checkpoint, java_parse_i32, java_parse_i64, java_split_whitespace, parse_checkpoint,
    CheckpointFile, CHECKPOINT_VERSION,
};
use super::error::FormatResult;

/// One leader epoch and the first offset written in it (Kafka's `EpochEntry`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct EpochEntry {
    /// Leader epoch (Java int).
    pub epoch: i32,
    /// First offset of that epoch (Java long).
    pub start_offset: i64,
}

/// What Kafka's `LeaderEpochFileCache` does on load with an entry it does not simply append
/// (spec §2.3). Entries of a correct file are strictly increasing in both columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeaderEpochProblem {
    /// Negative epoch or start offset: Kafka throws `IllegalArgumentException` on load.
    Negative {
        /// 1-based line number.
        line: usize,
        /// Byte position of the line.
        offset: u64,
        /// The entry.
        entry: EpochEntry,
    },
    /// Same epoch as the previous entry with a start offset not lower: Kafka ignores the entry.
    Ignored {
        /// 1-based line number.
        line: usize,
        /// Byte position of the line.
        offset: u64,
        /// The entry.
        entry: EpochEntry,
    },
    /// Not above the previous entry in epoch or start offset: Kafka drops the earlier
    /// conflicting entries (truncation) and keeps this one.
    Conflicts {
        /// 1-based line number.
        line: usize,
        /// Byte position of the line.
        offset: u64,
        /// The entry.
        entry: EpochEntry,
        /// The previous entry.
        previous: EpochEntry,
    },
}

/// Parse a `leader-epoch-checkpoint` (version 0).
pub fn parse_leader_epoch_checkpoint(bytes: &[u8]) -> FormatResult<CheckpointFile<EpochEntry>> {
    parse_checkpoint(bytes, CHECKPOINT_VERSION, |line| {
        let tokens = java_split_whitespace(line);
        let [epoch, start] = tokens.as_slice() else {
            return Ok(None);
        };
        let epoch = java_parse_i32(epoch).ok_or_else(|| format!("bad epoch {epoch:?}"))?;
        let start_offset =
            java_parse_i64(start).ok_or_else(|| format!("bad start offset {start:?}"))?;
        Ok(Some(EpochEntry {
            epoch,
            start_offset,
        }))
    })
}

/// Encode a `leader-epoch-checkpoint` byte-for-byte as Kafka writes it.
pub fn encode_leader_epoch_checkpoint(entries: &[EpochEntry]) -> Vec<u8> {
    let lines: Vec<String> = entries
        .iter()
        .map(|e| format!("{} {}", e.epoch, e.start_offset))
        .collect();
    encode_checkpoint(CHECKPOINT_VERSION, lines.iter().map(String::as_str))
}

/// Entries Kafka's epoch cache would reject, ignore or use to truncate on load, in file order.
/// Compares each entry with the previous one in the file (not with the cache after
/// truncation), which is enough to tell a file is not strictly increasing.
pub fn leader_epoch_problems(file: &CheckpointFile<EpochEntry>) -> Vec<LeaderEpochProblem> {
    let mut out = Vec::new();
    let mut prev: Option<EpochEntry> = None;
    for l in &file.entries {
        let e = l.value;
        if e.epoch < 0 || e.start_offset < 0 {
            out.push(LeaderEpochProblem::Negative {
                line: l.line,
                offset: l.offset,
                entry: e,
            });
            continue;
        }
        if let Some(p) = prev {
            if e.epoch == p.epoch && e.start_offset >= p.start_offset {
                out.push(LeaderEpochProblem::Ignored {
                    line: l.line,
                    offset: l.offset,
                    entry: e,
                });
                continue;
            }
            if e.epoch <= p.epoch || e.start_offset <= p.start_offset {
                out.push(LeaderEpochProblem::Conflicts {
                    line: l.line,
                    offset: l.offset,
                    entry: e,
                    previous: p,
                });
            }
        }
        prev = Some(e);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a panic is the failure report
mod tests {
    use super::*;
    use crate::formats::checkpoint::CheckpointHeader;
    use crate::formats::ErrorKind;
    use proptest::prelude::*;

    fn ep(epoch: i32, start_offset: i64) -> EpochEntry {
        EpochEntry {
            epoch,
            start_offset,
        }
    }

    #[test]
    fn parses_entries() {
        let f = parse_leader_epoch_checkpoint(b"0\n2\n0 0\n3 1532\n").unwrap();
        assert_eq!(f.header, CheckpointHeader::Counted { count: 2 });
        assert_eq!(
            f.values().copied().collect::<Vec<_>>(),
            vec![ep(0, 0), ep(3, 1532)]
        );
        assert!(leader_epoch_problems(&f).is_empty());
    }

    #[test]
    fn rejects_what_kafka_rejects() {
        let e = parse_leader_epoch_checkpoint(b"0\n1\n0 0 0\n").unwrap_err();
        assert_eq!(e.offset, 4);
        assert!(
            matches!(&e.kind, ErrorKind::BadText(m) if m.starts_with("line 3: malformed entry"))
        );
        assert!(parse_leader_epoch_checkpoint(b"0\n1\nx 0\n").is_err());
        assert!(parse_leader_epoch_checkpoint(b"0\n1\n2147483648 0\n").is_err());
        assert!(parse_leader_epoch_checkpoint(b"0\n2\n0 0\n").is_err());
        assert!(parse_leader_epoch_checkpoint(b"1\n0\n").is_err());
    }

    #[test]
    fn load_problems() {
        let f = parse_leader_epoch_checkpoint(b"0\n5\n1 10\n1 12\n-1 20\n2 5\n4 30\n").unwrap();
        let p = leader_epoch_problems(&f);
        assert_eq!(p.len(), 3);
        assert!(matches!(p[0], LeaderEpochProblem::Ignored { line: 4, .. }));
        assert!(matches!(p[1], LeaderEpochProblem::Negative { line: 5, .. }));
        assert!(
            matches!(p[2], LeaderEpochProblem::Conflicts { line: 6, previous, .. } if previous == ep(1, 10))
        );
    }

    #[test]
    fn encoder_is_byte_exact() {
        assert_eq!(
            encode_leader_epoch_checkpoint(&[ep(0, 0), ep(7, 99)]),
            b"0\n2\n0 0\n7 99\n"
        );
    }

    #[test]
    fn truncated_at_every_byte_never_panics() {
        let b = b"0\n2\n0 0\n3 1532\n";
        for n in 0..=b.len() {
            let _ = parse_leader_epoch_checkpoint(&b[..n]);
        }
    }

    proptest! {
        #[test]
        fn round_trip(raw in proptest::collection::vec(any::<(i32, i64)>(), 0..30)) {
            let entries: Vec<_> = raw.into_iter().map(|(e, o)| ep(e, o)).collect();
            let bytes = encode_leader_epoch_checkpoint(&entries);
            let f = parse_leader_epoch_checkpoint(&bytes).unwrap();
            prop_assert_eq!(f.values().copied().collect::<Vec<_>>(), entries);
        }
    }
}
