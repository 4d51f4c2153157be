//! The batches of a `.log` read with positioned reads through a bounded window, so that
//! rebuilding the indexes of a segment of any size holds at most [`CHUNK`] bytes plus one batch
//! in memory. Each step is the [`ShallowWalker`]'s step on the whole file: the window always
//! holds the complete batch (or, near the end, everything up to the end of the file), and the
//! two decisions that look further ahead are made here over the file: an all-zero rest (a
//! preallocated tail, scanned chunk by chunk) and an incomplete last batch (its declared size
//! against the bytes left).

use std::io;
use std::path::Path;

use crate::formats::batch::HEADER_SIZE_UP_TO_MAGIC;
use crate::formats::error::{ErrorKind, FormatError};
use crate::formats::legacy::RECORD_OVERHEAD_V0;
use crate::formats::walk::{BatchInfo, ShallowWalker, WalkEnd};
use crate::model::file_bytes::PositionedFile;

/// Bytes read at once.
pub const CHUNK: u64 = 4 << 20;

/// The next thing in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// A batch whose header checks passed (positions in the file).
    Batch(BatchInfo),
    /// The walk ended without an error.
    End(WalkEnd),
    /// A header failed its checks (offset in the file).
    Invalid(FormatError),
}

enum Source<'a> {
    Memory(&'a [u8]),
    File {
        file: PositionedFile,
        buf: Vec<u8>,
        start: u64,
    },
}

/// A `.log` walked batch by batch.
pub struct LogStream<'a> {
    source: Source<'a>,
    len: u64,
    position: u64,
}

impl<'a> LogStream<'a> {
    /// Over bytes already in memory.
    pub fn memory(bytes: &'a [u8]) -> LogStream<'a> {
        LogStream {
            source: Source::Memory(bytes),
            len: bytes.len() as u64,
            position: 0,
        }
    }

    /// Over a file, read in chunks.
    pub fn open(path: &Path) -> io::Result<LogStream<'static>> {
        let file = PositionedFile::open(path)?;
        let len = file.len();
        Ok(LogStream {
            source: Source::File {
                file,
                buf: Vec::new(),
                start: 0,
            },
            len,
            position: 0,
        })
    }

    /// The file's length (as opened; less if it shrank while read).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The window: its bytes and the file position of its first byte.
    fn window(&self) -> (&[u8], u64) {
        match &self.source {
            Source::Memory(b) => (b, 0),
            Source::File { buf, start, .. } => (buf, *start),
        }
    }

    /// Make the window hold `[p, p + n)` (cut at the end of the file).
    fn ensure(&mut self, p: u64, n: u64) -> io::Result<()> {
        let want_end = p.saturating_add(n).min(self.len);
        let Source::File { file, buf, start } = &mut self.source else {
            return Ok(());
        };
        let have_end = start.saturating_add(buf.len() as u64);
        if p >= *start && want_end <= have_end {
            return Ok(());
        }
        if p >= *start && p <= have_end {
            buf.drain(
                ..usize::try_from(p - *start)
                    .unwrap_or(usize::MAX)
                    .min(buf.len()),
            );
        } else {
            buf.clear();
        }
        *start = p;
        let from = start.saturating_add(buf.len() as u64);
        let read_end = want_end.max(p.saturating_add(CHUNK).min(self.len));
        let more = file.read_range(from, read_end.saturating_sub(from))?;
        buf.extend_from_slice(&more);
        let end = start.saturating_add(buf.len() as u64);
        if end < read_end {
            // The file shrank while we read it: it ends here now.
            self.len = end;
        }
        Ok(())
    }

    /// The bytes of the batch [`LogStream::next_batch`] just returned, with a copy of its info
    /// positioned at 0 in them (for CRC checks and record reads).
    pub fn batch(&self, info: &BatchInfo) -> (&[u8], BatchInfo) {
        let (w, start) = self.window();
        let from = usize::try_from(info.position.saturating_sub(start)).unwrap_or(usize::MAX);
        let to = from.saturating_add(usize::try_from(info.size).unwrap_or(usize::MAX));
        let local = BatchInfo {
            position: 0,
            ..info.clone()
        };
        (w.get(from..to).unwrap_or(&[]), local)
    }

    /// Whether every byte from `p` to the end is zero.
    fn zero_from(&mut self, p: u64) -> io::Result<bool> {
        let mut q = p;
        while q < self.len {
            self.ensure(q, CHUNK)?;
            let (w, start) = self.window();
            let rest = w
                .get(usize::try_from(q.saturating_sub(start)).unwrap_or(usize::MAX)..)
                .unwrap_or(&[]);
            if rest.is_empty() {
                break;
            }
            if rest.iter().any(|b| *b != 0) {
                return Ok(false);
            }
            q = q.saturating_add(rest.len() as u64);
        }
        Ok(true)
    }

    /// The next batch, or how the walk ends.
    pub fn next_batch(&mut self) -> io::Result<Next> {
        let p = self.position;
        let remaining = self.len.saturating_sub(p);
        if remaining == 0 {
            return Ok(Next::End(WalkEnd::Clean));
        }
        let header = HEADER_SIZE_UP_TO_MAGIC as u64 + 1;
        self.ensure(p, header)?;
        if remaining >= header {
            let (w, start) = self.window();
            let at = usize::try_from(p.saturating_sub(start)).unwrap_or(usize::MAX);
            let size = w
                .get(at.saturating_add(8)..at.saturating_add(12))
                .and_then(|b| <[u8; 4]>::try_from(b).ok())
                .map_or(-1, i32::from_be_bytes);
            if size == 0 {
                if self.zero_from(p)? {
                    return Ok(Next::End(WalkEnd::ZeroFilled {
                        position: p,
                        len: remaining,
                    }));
                }
                return Ok(Next::Invalid(FormatError::new(
                    ErrorKind::LengthOutOfRange {
                        field: "size",
                        value: 0,
                        min: RECORD_OVERHEAD_V0 as i64,
                        max: i64::from(i32::MAX),
                    },
                    p.saturating_add(8),
                )));
            }
            if let Ok(size) = u64::try_from(size) {
                let total = size.saturating_add(12);
                if total > remaining {
                    return Ok(Next::End(WalkEnd::PartialBatch {
                        position: p,
                        declared_size: total,
                        available: remaining,
                    }));
                }
                self.ensure(p, total)?;
            }
        }
        let (w, start) = self.window();
        let mut walker = ShallowWalker::starting_at(w, p.saturating_sub(start));
        let step = walker.next();
        Ok(match step {
            Some(Ok(info)) => {
                let info = BatchInfo {
                    position: p,
                    ..info
                };
                self.position = info.end();
                Next::Batch(info)
            }
            Some(Err(e)) => Next::Invalid(e.at_base(start)),
            // Window positions → file positions.
            None => Next::End(match walker.end().cloned() {
                Some(WalkEnd::PartialBatch {
                    declared_size,
                    available,
                    ..
                }) => WalkEnd::PartialBatch {
                    position: p,
                    declared_size,
                    available,
                },
                Some(WalkEnd::ZeroFilled { len, .. }) => WalkEnd::ZeroFilled { position: p, len },
                Some(WalkEnd::Clean) | None => WalkEnd::Clean,
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::batch::Record;
    use crate::formats::record::encode::{encode_batch, BatchSpec};

    fn log(n: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for i in 0..n {
            out.extend(encode_batch(
                &BatchSpec {
                    base_offset: i as i64,
                    ..BatchSpec::default()
                },
                &[Record {
                    offset: i as i64,
                    timestamp: i as i64,
                    key: None,
                    value: Some(vec![7; 100 + i % 50]),
                    headers: Vec::new(),
                    control: None,
                }],
            ));
        }
        out
    }

    fn walk(s: &mut LogStream) -> (Vec<BatchInfo>, Next) {
        let mut out = Vec::new();
        loop {
            match s.next_batch().unwrap() {
                Next::Batch(b) => {
                    let (bytes, local) = s.batch(&b);
                    crate::formats::verify::verify_crc(bytes, &local).unwrap();
                    out.push(b);
                }
                end => return (out, end),
            }
        }
    }

    fn whole(bytes: &[u8]) -> (Vec<BatchInfo>, Next) {
        let mut w = ShallowWalker::new(bytes);
        let batches: Vec<BatchInfo> = w.by_ref().map_while(Result::ok).collect();
        let mut again = ShallowWalker::new(bytes);
        let err = again.find_map(Result::err);
        let end = match (err, w.end()) {
            (Some(e), _) => Next::Invalid(e),
            (None, e) => Next::End(e.cloned().unwrap()),
        };
        (batches, end)
    }

    #[test]
    fn a_file_walks_as_the_whole_file_does_across_chunk_edges() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("0.log");
        let good = log(60_000); // ~9 MB: batches straddle the 4 MiB chunk edges
        let mut cases: Vec<Vec<u8>> = vec![good.clone(), Vec::new()];
        let mut zero_tail = good.clone();
        zero_tail.extend(vec![0u8; 9 << 20]);
        cases.push(zero_tail);
        let mut zero_then_data = good.clone();
        zero_then_data.extend(vec![0u8; 5 << 20]);
        zero_then_data.push(1);
        cases.push(zero_then_data);
        let mut partial = good.clone();
        partial.extend_from_slice(&good[..40]);
        cases.push(partial);
        let mut short = good.clone();
        short.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 2]);
        cases.push(short);
        let mut bad_size = good.clone();
        bad_size.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 3, 0, 0, 0, 0, 2, 0, 0]);
        cases.push(bad_size);
        for (i, bytes) in cases.iter().enumerate() {
            std::fs::write(&path, bytes).unwrap();
            let mut s = LogStream::open(&path).unwrap();
            assert_eq!(walk(&mut s), whole(bytes), "case {i}");
            assert_eq!(
                walk(&mut LogStream::memory(bytes)),
                whole(bytes),
                "case {i}"
            );
        }
    }
}
