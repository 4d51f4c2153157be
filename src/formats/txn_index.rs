//! The transaction index `.txnindex`: a sequence of 34-byte `AbortedTxn` entries, no header, no
//! preallocation.
//!
//! Source: Kafka `storage/src/main/java/org/apache/kafka/storage/internals/log/AbortedTxn.java`
//! and `TransactionIndex.java` (spec: kafka-on-disk-formats.md §4.4, §4.6).
//!
//! Kafka's reader quirks, reproduced: `version()` reads only the **first byte** of the i16
//! version field, and iteration throws when that signed byte is > 0; iteration stops when fewer
//! than 34 bytes remain, so a partial tail is silently ignored. `sanityCheck` (run at every
//! segment load) fails when an entry's `lastOffset` is below the segment base offset.

use super::bytes::Cursor;
use super::error::FormatResult;

/// Size of one entry in bytes.
pub const ENTRY_SIZE: usize = 34;

/// The only version Kafka writes.
pub const CURRENT_VERSION: i16 = 0;

/// One aborted transaction (`AbortedTxn`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AbortedTxn {
    /// The full i16 version field as stored (Kafka writes 0).
    pub version: i16,
    /// Producer id.
    pub producer_id: i64,
    /// First offset of the aborted transaction.
    pub first_offset: i64,
    /// Offset of the ABORT marker.
    pub last_offset: i64,
    /// Last stable offset when the abort completed.
    pub last_stable_offset: i64,
}

impl AbortedTxn {
    /// The version as Kafka reads it: the first byte of the field, as a signed byte.
    pub fn kafka_version(&self) -> i8 {
        self.version.to_be_bytes().first().map_or(0, |b| *b as i8)
    }
}

/// An entry with its byte position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxnIndexEntry {
    /// Byte position of the entry in the file.
    pub at: u64,
    /// The entry.
    pub txn: AbortedTxn,
}

/// A parsed `.txnindex` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnIndex {
    /// Every whole entry, in file order (including ones Kafka would reject for their version).
    pub entries: Vec<TxnIndexEntry>,
    /// Length of a trailing partial entry (fewer than 34 bytes) Kafka ignores, 0 if none.
    pub partial_tail_len: u64,
    /// Byte position of that partial entry (the file length when there is none).
    pub partial_tail_at: u64,
}

/// Something wrong in a transaction index. [`TxnIndex::sanity_check`] returns the first two
/// kinds in Kafka's order; [`TxnIndex::entry_problems`] the stricter rest.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TxnIndexProblem {
    /// Kafka: the version byte is > 0, so iterating throws `KafkaException` ("Unexpected aborted
    /// transaction version").
    UnsupportedVersion {
        /// Byte position of the entry.
        at: u64,
        /// The version byte as Kafka reads it.
        version: i8,
    },
    /// Kafka `sanityCheck`: `lastOffset` < segment base offset (`CorruptIndexException`; the
    /// segment is then recovered at load).
    LastOffsetBelowBase {
        /// Byte position of the entry.
        at: u64,
        /// The entry's last offset.
        last_offset: i64,
        /// The segment base offset.
        base_offset: i64,
    },
    /// Stricter: `lastOffset` not greater than the previous entry's (Kafka's append forbids it).
    LastOffsetNotIncreasing {
        /// Byte position of the entry.
        at: u64,
        /// Previous last offset.
        prev: i64,
        /// This last offset.
        next: i64,
    },
    /// Stricter: `firstOffset` > `lastOffset`.
    FirstAfterLast {
        /// Byte position of the entry.
        at: u64,
        /// First offset.
        first_offset: i64,
        /// Last offset.
        last_offset: i64,
    },
    /// Stricter: a version field other than 0 that Kafka still accepts (first byte ≤ 0).
    NonZeroVersion {
        /// Byte position of the entry.
        at: u64,
        /// The i16 read.
        version: i16,
    },
    /// Stricter: a partial entry at the end, which Kafka ignores.
    PartialTail {
        /// Byte position of the partial entry.
        at: u64,
        /// Its length.
        len: u64,
    },
}

impl TxnIndexProblem {
    /// Byte position the problem points at.
    pub fn offset(&self) -> u64 {
        match self {
            TxnIndexProblem::UnsupportedVersion { at, .. }
            | TxnIndexProblem::LastOffsetBelowBase { at, .. }
            | TxnIndexProblem::LastOffsetNotIncreasing { at, .. }
            | TxnIndexProblem::FirstAfterLast { at, .. }
            | TxnIndexProblem::NonZeroVersion { at, .. }
            | TxnIndexProblem::PartialTail { at, .. } => *at,
        }
    }
}

impl TxnIndex {
    /// Parse a whole `.txnindex` file. Never fails on content: every whole 34-byte chunk is an
    /// entry, a shorter tail is recorded in `partial_tail_len`. (The `Result` is kept for
    /// symmetry with the other parsers.)
    pub fn parse(bytes: &[u8]) -> FormatResult<Self> {
        let mut c = Cursor::new(bytes);
        // Capacity bounded by what the bytes can hold.
        let mut entries = Vec::with_capacity(bytes.len() / ENTRY_SIZE);
        while c.remaining() >= ENTRY_SIZE {
            let at = c.position() as u64;
            let txn = AbortedTxn {
                version: c.i16()?,
                producer_id: c.i64()?,
                first_offset: c.i64()?,
                last_offset: c.i64()?,
                last_stable_offset: c.i64()?,
            };
            entries.push(TxnIndexEntry { at, txn });
        }
        Ok(Self {
            entries,
            partial_tail_len: c.remaining() as u64,
            partial_tail_at: c.position() as u64,
        })
    }

    /// Kafka's `TransactionIndex.sanityCheck` for a segment at `base_offset`, in Kafka's order:
    /// per entry, the version check (thrown while iterating) then `lastOffset < base`. Kafka
    /// stops at the first; all are returned. Empty when Kafka accepts the file.
    pub fn sanity_check(&self, base_offset: i64) -> Vec<TxnIndexProblem> {
        let mut out = Vec::new();
        for e in &self.entries {
            let v = e.txn.kafka_version();
            if i16::from(v) > CURRENT_VERSION {
                out.push(TxnIndexProblem::UnsupportedVersion {
                    at: e.at,
                    version: v,
                });
            }
            if e.txn.last_offset < base_offset {
                out.push(TxnIndexProblem::LastOffsetBelowBase {
                    at: e.at,
                    last_offset: e.txn.last_offset,
                    base_offset,
                });
            }
        }
        out
    }

    /// Problems Kafka does not check but its writer never produces.
    pub fn entry_problems(&self) -> Vec<TxnIndexProblem> {
        let mut out = Vec::new();
        let mut prev: Option<i64> = None;
        for e in &self.entries {
            let t = &e.txn;
            if t.version != CURRENT_VERSION && i16::from(t.kafka_version()) <= CURRENT_VERSION {
                out.push(TxnIndexProblem::NonZeroVersion {
                    at: e.at,
                    version: t.version,
                });
            }
            if t.first_offset > t.last_offset {
                out.push(TxnIndexProblem::FirstAfterLast {
                    at: e.at,
                    first_offset: t.first_offset,
                    last_offset: t.last_offset,
                });
            }
            if let Some(p) = prev {
                if t.last_offset <= p {
                    out.push(TxnIndexProblem::LastOffsetNotIncreasing {
                        at: e.at,
                        prev: p,
                        next: t.last_offset,
                    });
                }
            }
            prev = Some(t.last_offset);
        }
        if self.partial_tail_len != 0 {
            out.push(TxnIndexProblem::PartialTail {
                at: self.partial_tail_at,
                len: self.partial_tail_len,
            });
        }
        out
    }
}

/// Encode entries as a `.txnindex` file (test and rebuild helper; writes each `version` as given).
pub fn encode_txn_index(entries: &[AbortedTxn]) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.len().saturating_mul(ENTRY_SIZE));
    for t in entries {
        out.extend_from_slice(&t.version.to_be_bytes());
        out.extend_from_slice(&t.producer_id.to_be_bytes());
        out.extend_from_slice(&t.first_offset.to_be_bytes());
        out.extend_from_slice(&t.last_offset.to_be_bytes());
        out.extend_from_slice(&t.last_stable_offset.to_be_bytes());
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests: a panic is the failure report
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn t(first: i64, last: i64) -> AbortedTxn {
        AbortedTxn {
            version: 0,
            producer_id: 7,
            first_offset: first,
            last_offset: last,
            last_stable_offset: last + 1,
        }
    }

    #[test]
    fn reads_each_field() {
        let mut b = vec![0, 0];
        b.extend_from_slice(&1234i64.to_be_bytes());
        b.extend_from_slice(&10i64.to_be_bytes());
        b.extend_from_slice(&20i64.to_be_bytes());
        b.extend_from_slice(&21i64.to_be_bytes());
        let idx = TxnIndex::parse(&b).unwrap();
        assert_eq!(
            idx.entries,
            vec![TxnIndexEntry {
                at: 0,
                txn: AbortedTxn {
                    version: 0,
                    producer_id: 1234,
                    first_offset: 10,
                    last_offset: 20,
                    last_stable_offset: 21
                }
            }]
        );
        assert_eq!(idx.partial_tail_len, 0);
        assert!(idx.sanity_check(0).is_empty());
        assert!(idx.entry_problems().is_empty());
    }

    #[test]
    fn partial_tail_is_detected() {
        let mut b = encode_txn_index(&[t(1, 2)]);
        b.extend_from_slice(&[0; 10]);
        let idx = TxnIndex::parse(&b).unwrap();
        assert_eq!(idx.entries.len(), 1);
        assert_eq!((idx.partial_tail_at, idx.partial_tail_len), (34, 10));
        assert!(idx.sanity_check(0).is_empty());
        assert_eq!(
            idx.entry_problems(),
            vec![TxnIndexProblem::PartialTail { at: 34, len: 10 }]
        );
    }

    #[test]
    fn version_check_reads_first_byte_only() {
        let mut a = t(1, 2);
        a.version = 0x0100; // first byte 1 -> Kafka rejects
        let mut b = t(3, 4);
        b.version = 0x0001; // first byte 0 -> Kafka accepts
        let mut c = t(5, 6);
        c.version = -1; // first byte 0xff = -1 -> Kafka accepts
        let idx = TxnIndex::parse(&encode_txn_index(&[a, b, c])).unwrap();
        assert_eq!(
            idx.sanity_check(0),
            vec![TxnIndexProblem::UnsupportedVersion { at: 0, version: 1 }]
        );
        assert_eq!(
            idx.entry_problems(),
            vec![
                TxnIndexProblem::NonZeroVersion { at: 34, version: 1 },
                TxnIndexProblem::NonZeroVersion {
                    at: 68,
                    version: -1
                }
            ]
        );
    }

    #[test]
    fn sanity_and_strict_checks() {
        let idx =
            TxnIndex::parse(&encode_txn_index(&[t(90, 95), t(120, 110), t(100, 105)])).unwrap();
        assert_eq!(
            idx.sanity_check(100),
            vec![TxnIndexProblem::LastOffsetBelowBase {
                at: 0,
                last_offset: 95,
                base_offset: 100
            }]
        );
        let p = idx.entry_problems();
        assert!(p.contains(&TxnIndexProblem::FirstAfterLast {
            at: 34,
            first_offset: 120,
            last_offset: 110
        }));
        assert!(p.contains(&TxnIndexProblem::LastOffsetNotIncreasing {
            at: 68,
            prev: 110,
            next: 105
        }));
    }

    #[test]
    fn truncated_at_every_byte_never_panics() {
        let b = encode_txn_index(&[t(1, 2), t(3, 4)]);
        for n in 0..=b.len() {
            let idx = TxnIndex::parse(&b[..n]).unwrap();
            assert_eq!(idx.entries.len(), n / 34);
            assert_eq!(idx.partial_tail_len, (n % 34) as u64);
        }
    }

    proptest! {
        #[test]
        fn round_trip(raw in proptest::collection::vec(any::<(i16, i64, i64, i64, i64)>(), 0..20)) {
            let txns: Vec<_> = raw.iter().map(|&(version, producer_id, first_offset, last_offset, last_stable_offset)|
                AbortedTxn { version, producer_id, first_offset, last_offset, last_stable_offset }).collect();
            let idx = TxnIndex::parse(&encode_txn_index(&txns)).unwrap();
            let back: Vec<_> = idx.entries.iter().map(|e| e.txn).collect();
            prop_assert_eq!(back, txns);
            prop_assert_eq!(idx.partial_tail_len, 0);
        }
    }
}
