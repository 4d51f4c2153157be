//! Read-only access to the bytes of a file in a log dir.
//!
//! Every open here is `File::open` (read only): nothing in `model/` can create, lock or change a
//! file. Large files are memory-mapped so that walking batch headers touches only the pages that
//! hold them; small text files are read whole, up to a cap.

use std::fs::File;
use std::io::{self, Read};
use std::ops::Deref;
use std::path::Path;

/// Files at or above this size are mapped rather than read.
const MAP_THRESHOLD: u64 = 64 * 1024;

/// How to read large files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReadMode {
    /// Memory-map large files (the default; fast, O(pages touched)).
    #[default]
    Mmap,
    /// Read whole files into memory (for file systems where mapping is unsafe or unsupported).
    Buffered,
}

/// The bytes of one file, mapped or owned.
#[derive(Debug)]
pub enum FileBytes {
    /// A read-only memory map.
    Mapped(memmap2::Mmap),
    /// Bytes read into memory.
    Owned(Vec<u8>),
}

impl Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(m) => m,
            FileBytes::Owned(v) => v,
        }
    }
}

/// Open a regular file read-only. Anything else (a FIFO would block the open, a device would
/// stream forever) is refused before it is opened.
fn open_regular(path: &Path) -> io::Result<File> {
    if !std::fs::metadata(path)?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    File::open(path)
}

/// Open `path` read-only and return its bytes.
pub fn read_file(path: &Path, mode: ReadMode) -> io::Result<FileBytes> {
    let file = open_regular(path)?;
    let len = file.metadata()?.len();
    if mode == ReadMode::Mmap && len >= MAP_THRESHOLD {
        if let Ok(map) = map_read_only(&file) {
            return Ok(FileBytes::Mapped(map));
        }
    }
    // The length is only a hint for the allocation: cap it, the read decides the real size.
    let mut buf = Vec::with_capacity(usize::try_from(len.min(1 << 30)).unwrap_or(0));
    (&file).read_to_end(&mut buf)?;
    Ok(FileBytes::Owned(buf))
}

/// Read a small file whole, refusing anything larger than `cap` bytes.
pub fn read_small_file(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    let mut buf = Vec::new();
    file.take(cap.saturating_add(1)).read_to_end(&mut buf)?;
    if buf.len() as u64 > cap {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("file is larger than the {cap}-byte limit for this kind of file"),
        ));
    }
    Ok(buf)
}

#[allow(unsafe_code)]
fn map_read_only(file: &File) -> io::Result<memmap2::Mmap> {
    // SAFETY: the map is read-only and private to this process. The one hazard is another
    // process truncating the file while it is mapped (SIGBUS): logclean reads log dirs of
    // stopped brokers, refuses to mutate a locked dir, and `--no-mmap` avoids maps altogether
    // for inspection of a live broker's files.
    unsafe { memmap2::Mmap::map(file) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn mapped_and_buffered_agree() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        let data: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        f.write_all(&data).unwrap();
        let a = read_file(f.path(), ReadMode::Mmap).unwrap();
        let b = read_file(f.path(), ReadMode::Buffered).unwrap();
        assert!(matches!(a, FileBytes::Mapped(_)));
        assert_eq!(&*a, &*b);
        assert_eq!(&*a, &data[..]);
    }

    #[test]
    fn fifo_is_refused_not_opened() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("recovery-point-offset-checkpoint");
        let ok = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(ok.success());
        assert_eq!(
            read_small_file(&fifo, 100).unwrap_err().kind(),
            io::ErrorKind::InvalidInput
        );
        assert!(read_file(&fifo, ReadMode::Mmap).is_err());
    }

    #[test]
    fn small_file_cap() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(b"0123456789").unwrap();
        assert_eq!(read_small_file(f.path(), 10).unwrap().len(), 10);
        assert!(read_small_file(f.path(), 9).is_err());
    }
}
