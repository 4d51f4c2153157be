//! Read-only access to the bytes of a file in a log dir.
//!
//! Every open here is read only: nothing in `model/` can create, lock or change a file.
//!
//! Two ways to read:
//! - [`PositionedFile`]: positioned reads (`pread`) of the byte ranges a shallow scan needs
//!   (headers, index files, the tail after the last index entry). A file that a running broker
//!   truncates or deletes meanwhile yields a short read or an error, never a signal.
//! - [`read_file`]: the whole file, read into memory with positioned reads ([`ReadMode::Buffered`],
//!   the default of every command) or, only when asked for (`--mmap`, [`ReadMode::Mmap`]),
//!   memory-mapped when large. A mapped file truncated by another process makes the next access
//!   to a lost page a SIGBUS that kills the process with nothing printed; a live broker's `.lock`
//!   is honoured ([`super::lock`]), but a copy being rsynced or a broker on a file system without
//!   POSIX locks holds none, so nothing maps unless the user opts in.
//!
//! Small text files are read whole, up to a cap.

use std::cell::RefCell;
use std::ffi::OsStr;
use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::ops::Deref;
use std::os::fd::OwnedFd;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::disk_usage::EntryStat;
use super::lock::{probe_lock, LockState};

/// Files at or above this size are mapped rather than read.
const MAP_THRESHOLD: u64 = 64 * 1024;

/// Whether large files may be memory-mapped. Shallow scans (`Tail`, `Headers`) never map: they
/// use positioned reads of the ranges they need. By default nothing is mapped: whole files
/// (deep verification, `--records`, the metadata log, producer snapshots) are read into memory
/// with positioned reads, so a file truncated under the reader reads short and is reported as
/// such. `Mmap` (`--mmap`) maps large files instead, except in a log dir whose `.lock` a live
/// process holds; a file truncated while mapped then kills the process (SIGBUS).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReadMode {
    /// Memory-map large files for deep verification (opt-in: `--mmap`; SIGBUS if another
    /// process truncates a mapped file).
    Mmap,
    /// Never map: read files with positioned reads (the default; `--no-mmap` says it again).
    #[default]
    Buffered,
}

impl ReadMode {
    /// The mode for a command's `--mmap` flag.
    pub fn from_mmap_flag(mmap: bool) -> Self {
        if mmap {
            ReadMode::Mmap
        } else {
            ReadMode::Buffered
        }
    }
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

/// Open `path`, a file of a partition dir, read-only and return its bytes. In `Mmap` mode a
/// large file is mapped unless a live process holds (or may hold) the `.lock` of its log dir,
/// the partition dir's parent: every caller gets that guarantee, whatever mode it passes.
pub fn read_file(path: &Path, mode: ReadMode) -> io::Result<FileBytes> {
    let file = open_regular(path)?;
    let len = file.metadata()?.len();
    if mode == ReadMode::Mmap && len >= MAP_THRESHOLD && log_dir_unlocked(path) {
        if let Ok(map) = map_read_only(&file) {
            return Ok(FileBytes::Mapped(map));
        }
    }
    // Never read whole what Kafka never writes: a segment above 2 GiB is `log.too_large`, told
    // from its size; reading it would take more memory than any worker has.
    if len > OWNED_READ_CAP {
        return Err(TooLarge::error(len, OWNED_READ_CAP));
    }
    // The length is only a hint for the allocation: cap it, the read decides the real size.
    let mut buf = read_buffer(usize::try_from(len.min(1 << 30)).unwrap_or(0));
    file.take(OWNED_READ_CAP.saturating_add(1))
        .read_to_end(&mut buf)?;
    if buf.len() as u64 > OWNED_READ_CAP {
        return Err(TooLarge::error(buf.len() as u64, OWNED_READ_CAP));
    }
    Ok(FileBytes::Owned(buf))
}

/// A file read whole up to where its data ends ([`read_file_data`]).
#[derive(Debug)]
pub struct DataBytes {
    /// The bytes before the hole (all of the file when it has none, or when mapped).
    pub bytes: FileBytes,
    /// Bytes of the hole that runs to the end of the file, not read: they read as zeros.
    pub hole: u64,
}

/// [`read_file`], except that a hole running to the end of the file (a sparse `.log`'s
/// unwritten tail, found by `lseek(SEEK_HOLE/SEEK_DATA)`) is not read but counted: a 2 GiB
/// sparse segment costs its data, not 2 GiB of zeros. For readers that stop at the first
/// zero-filled batch header anyway (replays, dumps), where the zeros after the data can add
/// nothing but their length. Mapped (`Mmap`) files are mapped whole, their hole included.
pub fn read_file_data(path: &Path, mode: ReadMode) -> io::Result<DataBytes> {
    if mode == ReadMode::Buffered {
        let file = PositionedFile::open(path)?;
        if file.len() > OWNED_READ_CAP {
            return Err(TooLarge::error(file.len(), OWNED_READ_CAP));
        }
        let data_end = file.data_end();
        let bytes = file.read_range(0, data_end)?;
        let hole = file.len().saturating_sub(data_end);
        return Ok(DataBytes {
            bytes: FileBytes::Owned(bytes),
            hole,
        });
    }
    Ok(DataBytes {
        bytes: read_file(path, mode)?,
        hole: 0,
    })
}

/// The most [`read_file`] reads into memory: Kafka's largest segment (`Integer.MAX_VALUE`
/// bytes, `FileRecords`); a larger file is refused as [`TooLarge`].
pub const OWNED_READ_CAP: u64 = i32::MAX as u64;

/// A file refused because it is larger than its kind may be (the payload of an
/// [`io::ErrorKind::FileTooLarge`] error): it is reported as too large, never read whole and
/// never "unreadable".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge {
    /// The file's length (or the bytes read before the cap was passed).
    pub len: u64,
    /// The limit for this kind of file.
    pub cap: u64,
}

impl TooLarge {
    /// The I/O error carrying it.
    pub fn error(len: u64, cap: u64) -> io::Error {
        io::Error::new(io::ErrorKind::FileTooLarge, TooLarge { len, cap })
    }

    /// The `TooLarge` an error carries, if it is one.
    pub fn of(err: &io::Error) -> Option<TooLarge> {
        err.get_ref()
            .and_then(|e| e.downcast_ref::<TooLarge>())
            .copied()
    }
}

impl std::fmt::Display for TooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "too large: {} bytes, over the {}-byte limit for this kind of file (not read)",
            self.len, self.cap
        )
    }
}

impl std::error::Error for TooLarge {}

/// Whether no live process holds the `.lock` of the log dir holding the partition dir of
/// `path` (false when that cannot be told).
fn log_dir_unlocked(path: &Path) -> bool {
    path.parent()
        .and_then(Path::parent)
        .filter(|d| !d.as_os_str().is_empty())
        .is_some_and(|dir| probe_lock(dir).is_ok_and(LockState::allows_mapping))
}

/// Read a small file whole, refusing anything larger than `cap` bytes ([`TooLarge`]).
///
/// One open, one `fstat` and one positioned read of the length at open time: a snapshot or
/// checkpoint costs four syscalls, not a growing buffer's probe reads.
pub fn read_small_file(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    let file = PositionedFile::open(path)?;
    if file.len() > cap {
        return Err(TooLarge::error(file.len(), cap));
    }
    file.read_all()
}

/// A regular file opened read-only for positioned reads, with its length at open time.
#[derive(Debug)]
pub struct PositionedFile {
    file: File,
    len: u64,
    /// The modification time, when the open measured the file (`fstat`).
    mtime_ms: Option<i64>,
    /// The open's `fstat`, when it took one ([`Self::open`]).
    stat: Option<EntryStat>,
}

impl PositionedFile {
    /// Open `path` read-only. The listing has already classified it as a regular file by its
    /// metadata; the open is non-blocking so that a FIFO swapped in meanwhile cannot hang it,
    /// and anything but a regular file is refused before a byte is read.
    pub fn open(path: &Path) -> io::Result<Self> {
        let file = open_nonblocking(path)?;
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a regular file",
            ));
        }
        let mtime_ms = mtime_ms_of(&meta);
        Ok(PositionedFile {
            file,
            len: meta.len(),
            mtime_ms,
            stat: Some(EntryStat::of_meta(&meta)),
        })
    }

    /// Open a file the listing has just classified as regular and measured, taking its length
    /// from the listing instead of an `fstat` after the open: one syscall fewer per file, which
    /// is a fifth of what a shallow scan spends on each segment. Reads stay bounded by the
    /// listed length (a file grown since is read as listed, one shrunk since reads short). A
    /// FIFO or dir swapped in after the listing is still refused: the open is non-blocking,
    /// and the first positioned read fails on it (`ESPIPE`, `EISDIR`), reported as "not a
    /// regular file" as [`Self::open`] reports it.
    /// A file the listing did not measure (`None`) is opened as [`Self::open`] opens it.
    pub fn open_listed(path: &Path, listed_len: Option<u64>) -> io::Result<Self> {
        let Some(len) = listed_len else {
            return PositionedFile::open(path);
        };
        Ok(PositionedFile {
            file: open_nonblocking(path)?,
            len,
            mtime_ms: None,
            stat: None,
        })
    }

    /// Open a file the listing classified as regular but did not measure, reading its first
    /// `head` bytes at once, without an `fstat` when they are all it holds: a positioned read
    /// of a regular file returns fewer bytes than asked only at its end, so a short read is
    /// its length. A file that fills `head` is measured by an `fstat` (its mtime recorded).
    /// For files mostly smaller than `head` (a small segment's indexes) this is one syscall
    /// fewer per file. A FIFO or dir swapped in is refused as [`Self::open_listed`] refuses it.
    pub fn open_with_head(path: &Path, head: u64) -> io::Result<(Self, Vec<u8>)> {
        let mut probe = PositionedFile {
            file: open_nonblocking(path)?,
            len: head,
            mtime_ms: None,
            stat: None,
        };
        let bytes = probe.read_once(head)?;
        if (bytes.len() as u64) < head {
            probe.len = bytes.len() as u64;
            return Ok((probe, bytes));
        }
        let meta = probe.file.metadata()?;
        probe.len = meta.len();
        probe.mtime_ms = mtime_ms_of(&meta);
        probe.stat = Some(EntryStat::of_meta(&meta));
        Ok((probe, bytes))
    }

    /// The modification time the open measured (`None` for a file opened at its listed length).
    pub fn mtime_ms(&self) -> Option<i64> {
        self.mtime_ms
    }

    /// The `fstat` the open took, if it took one (for the disk usage: its blocks).
    pub(crate) fn stat(&self) -> Option<EntryStat> {
        self.stat
    }

    /// Where the file's data ends: the start of the hole that runs to its end (a sparse
    /// file's unwritten tail, as a broker's `setLength` leaves a preallocated active index),
    /// else its length (no such hole, or a filesystem that cannot tell). Bytes after it read
    /// as zeros. A few `lseek(SEEK_HOLE / SEEK_DATA)` calls, no read.
    pub fn data_end(&self) -> u64 {
        use nix::unistd::{lseek, Whence};
        let len = self.len;
        let mut at: i64 = 0;
        // A handful of extents is normal; a file shredded into more is read whole.
        for _ in 0..64 {
            let Ok(hole) = lseek(&self.file, at, Whence::SeekHole) else {
                return len;
            };
            let Ok(hole_at) = u64::try_from(hole) else {
                return len;
            };
            if hole_at >= len {
                return len;
            }
            match lseek(&self.file, hole, Whence::SeekData) {
                Err(nix::errno::Errno::ENXIO) => return hole_at,
                Ok(data) if data > hole => at = data,
                _ => return len,
            }
        }
        len
    }

    /// Where the next data at or after `from` starts (`lseek(SEEK_DATA)`): the length when only
    /// a hole follows (a sparse file's unwritten tail, which reads as zeros), `from` itself when
    /// it is in data or the file system cannot tell. No read.
    pub fn next_data(&self, from: u64) -> u64 {
        use nix::unistd::{lseek, Whence};
        if from >= self.len {
            return self.len;
        }
        let Ok(at) = i64::try_from(from) else {
            return from;
        };
        match lseek(&self.file, at, Whence::SeekData) {
            Err(nix::errno::Errno::ENXIO) => self.len,
            Ok(data) => u64::try_from(data).map_or(from, |d| d.clamp(from, self.len)),
            Err(_) => from,
        }
    }

    /// File length when it was opened (or listed: [`Self::open_listed`]).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file was empty when opened.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Up to `max` bytes from `start` (fewer at the end of the file, or if the file shrank).
    pub fn read_range(&self, start: u64, max: u64) -> io::Result<Vec<u8>> {
        let mut buf = Vec::new();
        let filled = self.read_range_into(start, max, &mut buf)?;
        buf.truncate(filled);
        Ok(buf)
    }

    /// [`Self::read_range`] into `buf`, grown as needed and never shrunk, so that a walk of
    /// chunks reuses one buffer (its pages faulted in once, not once per chunk): the bytes read
    /// are `buf[..n]` for the `n` returned.
    pub fn read_range_into(&self, start: u64, max: u64, buf: &mut Vec<u8>) -> io::Result<usize> {
        let want = max.min(self.len.saturating_sub(start));
        let want = usize::try_from(want).unwrap_or(usize::MAX);
        if buf.len() < want {
            if buf.capacity() < want {
                *buf = read_buffer(want);
            }
            buf.resize(want, 0);
        }
        let mut filled = 0usize;
        while let Some(rest) = buf.get_mut(filled..want).filter(|r| !r.is_empty()) {
            match self.read_at(rest, start.saturating_add(filled as u64))? {
                0 => break,
                n => filled += n,
            }
        }
        Ok(filled)
    }

    /// Up to `max` bytes from the start in one positioned read: fewer than `max` only at the
    /// end of a regular file.
    fn read_once(&self, max: u64) -> io::Result<Vec<u8>> {
        let mut buf = vec![0u8; usize::try_from(max).unwrap_or(usize::MAX)];
        let n = self.read_at(&mut buf, 0)?;
        buf.truncate(n);
        Ok(buf)
    }

    /// One positioned read (retried when interrupted); a pipe or dir swapped in for the file
    /// is "not a regular file".
    fn read_at(&self, buf: &mut [u8], at: u64) -> io::Result<usize> {
        loop {
            match self.file.read_at(buf, at) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if not_a_regular_file(&e) => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "not a regular file",
                    ))
                }
                other => return other,
            }
        }
    }

    /// The whole file (as long as it was when opened).
    pub fn read_all(&self) -> io::Result<Vec<u8>> {
        self.read_range(0, self.len)
    }
}

/// A file's modification time as `fs::Metadata::modified` gives it, in ms since the epoch
/// (none before it): Kafka's `lastModified`.
pub(crate) fn mtime_ms_of(meta: &std::fs::Metadata) -> Option<i64> {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::SystemTime::UNIX_EPOCH).ok())
        .and_then(|d| i64::try_from(d.as_millis()).ok())
}

/// What a positioned read of something other than a regular file fails with: a pipe or FIFO
/// (`ESPIPE`), a dir (`EISDIR`).
fn not_a_regular_file(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(nix::libc::ESPIPE | nix::libc::EISDIR)
    )
}

/// Counts scans ([`new_scan`]): a dir handle kept by [`open_nonblocking`] serves only the scan
/// that opened it, so a later scan never reads through a handle to a dir since replaced.
static SCAN_GENERATION: AtomicU64 = AtomicU64::new(0);

/// Start a new scan: dir handles kept from earlier scans are not used again.
pub(crate) fn new_scan() {
    SCAN_GENERATION.fetch_add(1, Ordering::Relaxed);
}

/// The dir of the last file [`open_nonblocking`] opened on this thread, as an `O_PATH` handle,
/// or the dir the listing read on this thread and handed over ([`keep_listed_dir`]).
struct CachedDir {
    generation: u64,
    path: PathBuf,
    fd: OwnedFd,
}

/// Keep `dir`, the open handle of the dir at `path` that the listing just read on this thread,
/// for the opens of its files that follow here ([`open_nonblocking`]): the listing, the stats
/// and the loads of a partition then share one handle, and no open looks its dir up again.
pub(crate) fn keep_listed_dir(path: &Path, dir: OwnedFd) {
    let generation = SCAN_GENERATION.load(Ordering::Relaxed);
    LAST_DIR.with(|cell| {
        if let Ok(mut slot) = cell.try_borrow_mut() {
            *slot = Some(CachedDir {
                generation,
                path: path.to_path_buf(),
                fd: dir,
            });
        }
    });
}

thread_local! {
    static LAST_DIR: RefCell<Option<CachedDir>> = const { RefCell::new(None) };
}

/// `open(path, O_RDONLY | O_NONBLOCK)`, done as an `openat` of the file name in a kept handle
/// of its dir when the previous open on this thread (in this scan) was in the same dir: the
/// kernel then looks up one path component instead of every component of the path, which is
/// most of the cost of opening the three files of each of a partition's segments. The result
/// and its errors are those of the open by path (the dir's handle is taken by path too; when
/// that fails the file is opened by path).
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use nix::fcntl::OFlag;
    let by_path = || {
        OpenOptions::new()
            .read(true)
            .custom_flags(nix::libc::O_NONBLOCK)
            .open(path)
    };
    in_kept_dir(path, by_path, |dir, name| {
        let flags = OFlag::O_RDONLY | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC;
        nix::fcntl::openat(dir, name, flags, nix::sys::stat::Mode::empty())
            .map(File::from)
            .map_err(io::Error::from)
    })
}

/// The `lstat` of `path` (links not followed, as the disk usage takes every entry), relative
/// to the kept handle of its dir as [`open_nonblocking`] opens.
pub(crate) fn entry_stat(path: &Path) -> io::Result<EntryStat> {
    use nix::fcntl::AtFlags;
    let by_path = || std::fs::symlink_metadata(path).map(|m| EntryStat::of_meta(&m));
    in_kept_dir(path, by_path, |dir, name| {
        nix::sys::stat::fstatat(dir, name, AtFlags::AT_SYMLINK_NOFOLLOW)
            .map(|st| EntryStat::of_stat(&st))
            .map_err(io::Error::from)
    })
}

/// `at(dir, name)` for the file at `path`, `dir` a kept handle of its dir: the one the
/// previous call on this thread (in this scan) kept, or the listing handed over, else one
/// opened here (`O_PATH`) and kept; `by_path()` when no handle can be had.
fn in_kept_dir<T>(
    path: &Path,
    by_path: impl FnOnce() -> io::Result<T>,
    at: impl FnOnce(std::os::fd::BorrowedFd<'_>, &std::ffi::OsStr) -> io::Result<T>,
) -> io::Result<T> {
    use nix::fcntl::OFlag;
    use std::os::fd::AsFd;
    let Some((dir, name)) = dir_and_name(path) else {
        return by_path();
    };
    let generation = SCAN_GENERATION.load(Ordering::Relaxed);
    LAST_DIR.with(|cell| {
        let Ok(mut slot) = cell.try_borrow_mut() else {
            return by_path();
        };
        // (Paths compared as bytes: `Path`'s `==` parses both into components, a tenth of a
        // shallow scan's user time. A dir spelt otherwise gets a handle of its own.)
        let kept = (slot.as_ref())
            .is_some_and(|c| c.generation == generation && c.path.as_os_str() == dir.as_os_str());
        if !kept {
            *slot = None;
            let flags = OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
            match nix::fcntl::open(dir, flags, nix::sys::stat::Mode::empty()) {
                Ok(fd) => {
                    *slot = Some(CachedDir {
                        generation,
                        path: dir.to_path_buf(),
                        fd,
                    })
                }
                Err(_) => return by_path(),
            }
        }
        let Some(kept) = slot.as_ref() else {
            return by_path();
        };
        at(kept.fd.as_fd(), name)
    })
}

/// The dir and the name of the file at `path`, `None` when it has no dir part. A path ending in
/// a plain name (as the listing joins them) is cut at its last `/`: `Path::parent` and
/// `file_name` parse its components from the end, twice per open of a segment file.
fn dir_and_name(path: &Path) -> Option<(&Path, &OsStr)> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    let cut = bytes.iter().rposition(|b| *b == b'/');
    let (dir, name) = match cut {
        Some(at) if at > 0 => (bytes.get(..at)?, bytes.get(at + 1..)?),
        _ => (&[][..], &[][..]),
    };
    if !dir.is_empty() && !matches!(name, b"" | b"." | b"..") {
        return Some((Path::new(OsStr::from_bytes(dir)), OsStr::from_bytes(name)));
    }
    let (dir, name) = (path.parent()?, path.file_name()?);
    (!dir.as_os_str().is_empty()).then_some((dir, name))
}

/// Buffers this large get transparent huge pages.
const HUGE_BUFFER_MIN: usize = 4 << 20;

/// An empty buffer with room for `len` bytes, for a file read whole. From
/// [`HUGE_BUFFER_MIN`] on, its pages are asked for as transparent huge pages
/// (`MADV_HUGEPAGE`; the kernel may say no, which changes nothing but speed): reading a segment
/// into fresh memory then takes a page fault per 2 MiB instead of per 4 KiB, which is what made
/// positioned reads several times slower than a memory map on a deep verify.
fn read_buffer(len: usize) -> Vec<u8> {
    let buf: Vec<u8> = Vec::with_capacity(len);
    if len >= HUGE_BUFFER_MIN {
        advise_huge_pages(&buf);
    }
    buf
}

#[allow(unsafe_code)]
fn advise_huge_pages(buf: &Vec<u8>) {
    const HUGE: usize = 2 << 20;
    let start = buf.as_ptr() as usize;
    let Some(first) = start.checked_next_multiple_of(HUGE) else {
        return;
    };
    let last = start.saturating_add(buf.capacity()) / HUGE * HUGE;
    let Some(ptr) = std::ptr::NonNull::new(first as *mut std::ffi::c_void) else {
        return;
    };
    if last > first {
        // SAFETY: [first, last) lies inside the allocation `buf` owns and keeps alive for the
        // call; MADV_HUGEPAGE only changes how the kernel backs those pages, never their
        // contents or the mapping's validity. A refusal (no THP support) is ignored.
        let _ = unsafe {
            nix::sys::mman::madvise(ptr, last - first, nix::sys::mman::MmapAdvise::MADV_HUGEPAGE)
        };
    }
}

#[allow(unsafe_code)]
fn map_read_only(file: &File) -> io::Result<memmap2::Mmap> {
    // SAFETY: the map is read-only and private to this process. The one hazard is another
    // process truncating the file while it is mapped (SIGBUS): files are mapped only when the
    // user asked for it (`--mmap`, whose documentation states that risk), never in a log dir
    // whose `.lock` a live process holds.
    unsafe { memmap2::Mmap::map(file) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// The cut at the last `/` gives what `Path::parent` and `file_name` give for the paths
    /// the listing joins, and defers to them for the rest.
    #[test]
    fn dir_and_name_agree_with_parent_and_file_name() {
        for p in [
            "/d/orders-0/00000000000000000000.log",
            "rel/orders-0/x.index",
            "/a.log",
            "a.log",
            "a/.",
            "a/b/..",
            "a/b/",
            "/",
            "",
            "a//b",
            "./x",
        ] {
            let path = Path::new(p);
            let std = (path.parent(), path.file_name());
            let std = match std {
                (Some(d), Some(n)) if !d.as_os_str().is_empty() => Some((d, n)),
                _ => None,
            };
            let ours = dir_and_name(path);
            // (`a//b`: the dir keeps its doubled `/`, which opens the same dir.)
            if p == "a//b" {
                assert_eq!(ours, Some((Path::new("a/"), OsStr::new("b"))));
                continue;
            }
            assert_eq!(ours, std, "{p}");
        }
    }

    #[test]
    fn opens_through_a_kept_dir_handle_read_what_opens_by_path_read() {
        let tmp = tempfile::tempdir().unwrap();
        let part = tmp.path().join("orders-0");
        std::fs::create_dir(&part).unwrap();
        for (name, body) in [("a.log", &b"first"[..]), ("b.index", b"second")] {
            std::fs::write(part.join(name), body).unwrap();
        }
        new_scan();
        let read = |p: &Path| PositionedFile::open(p).and_then(|f| f.read_all());
        assert_eq!(read(&part.join("a.log")).unwrap(), b"first");
        assert_eq!(read(&part.join("b.index")).unwrap(), b"second");
        // Errors as by path: a missing file, a dir, a path through a file.
        for bad in [
            part.join("missing.log"),
            part.clone(),
            part.join("a.log").join("x"),
        ] {
            let kept = read(&bad).map(|_| ()).unwrap_err();
            let by_path = std::fs::File::open(&bad)
                .and_then(|f| {
                    if f.metadata()?.is_file() {
                        Ok(())
                    } else {
                        Err(io::Error::new(
                            io::ErrorKind::InvalidInput,
                            "not a regular file",
                        ))
                    }
                })
                .unwrap_err();
            assert_eq!(kept.to_string(), by_path.to_string(), "{}", bad.display());
        }
        // The dir replaced by another at the same path: the next scan reads the new one.
        std::fs::rename(&part, tmp.path().join("orders-0.old")).unwrap();
        std::fs::create_dir(&part).unwrap();
        std::fs::write(part.join("a.log"), b"new").unwrap();
        new_scan();
        assert_eq!(read(&part.join("a.log")).unwrap(), b"new");
        // A relative path with no dir part is opened by path.
        assert!(read(Path::new("no-such-file-here.log")).is_err());
    }

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
    fn files_of_a_locked_log_dir_are_not_mapped() {
        use std::io::{BufRead, BufReader};
        let tmp = tempfile::tempdir().unwrap();
        let part = tmp.path().join("orders-0");
        std::fs::create_dir(&part).unwrap();
        let log = part.join("00000000000000000000.log");
        std::fs::write(&log, vec![7u8; 100_000]).unwrap();
        assert!(matches!(
            read_file(&log, ReadMode::Mmap).unwrap(),
            FileBytes::Mapped(_)
        ));
        let mut child = std::process::Command::new("python3")
            .arg("-c")
            .arg(
                "import fcntl,time,sys; f=open(sys.argv[1],'w'); fcntl.lockf(f, fcntl.LOCK_EX); \
                 print('locked', flush=True); time.sleep(30)",
            )
            .arg(tmp.path().join(".lock"))
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let bytes = read_file(&log, ReadMode::Mmap);
        child.kill().unwrap();
        child.wait().unwrap();
        let bytes = bytes.unwrap();
        assert!(matches!(bytes, FileBytes::Owned(_)));
        assert_eq!(bytes.len(), 100_000);
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
    fn positioned_reads_are_clipped_to_the_file() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(b"0123456789").unwrap();
        let p = PositionedFile::open(f.path()).unwrap();
        assert_eq!(p.len(), 10);
        assert_eq!(p.read_range(2, 3).unwrap(), b"234");
        assert_eq!(p.read_range(8, 100).unwrap(), b"89");
        assert!(p.read_range(10, 5).unwrap().is_empty());
        assert!(p.read_range(50, 5).unwrap().is_empty());
        assert_eq!(p.read_all().unwrap(), b"0123456789");
        // A file truncated under the reader gives a short read, not a signal.
        f.as_file().set_len(4).unwrap();
        assert_eq!(p.read_range(2, 8).unwrap(), b"23");
    }

    #[test]
    fn next_data_skips_a_sparse_tail_and_stays_in_data() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(&[1u8; 4096]).unwrap();
        f.as_file().set_len(64 << 20).unwrap();
        let p = PositionedFile::open(f.path()).unwrap();
        // In data: where it is asked. In the hole (or past the end): the length, where only a
        // file system that cannot tell would say the position itself.
        assert_eq!(p.next_data(0), 0);
        assert_eq!(p.next_data(100), 100);
        assert!([1 << 20, 64 << 20].contains(&p.next_data(1 << 20)));
        assert_eq!(p.next_data(64 << 20), 64 << 20);
        assert_eq!(p.next_data(u64::MAX), 64 << 20);
    }

    #[test]
    fn a_sparse_tail_is_counted_not_read() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(&[1u8; 4096]).unwrap();
        f.as_file().set_len(64 << 20).unwrap();
        let d = read_file_data(f.path(), ReadMode::Buffered).unwrap();
        // The data extent (whole blocks), then the hole; a file system that cannot tell has
        // everything read.
        assert_eq!(d.bytes.len() as u64 + d.hole, 64 << 20);
        assert!(d.bytes.len() >= 4096 && d.bytes.iter().take(4096).all(|&b| b == 1));
        assert!(d.bytes.iter().skip(4096).all(|&b| b == 0));
        let whole = read_file(f.path(), ReadMode::Buffered).unwrap();
        assert_eq!(&whole[..d.bytes.len()], &d.bytes[..]);
    }

    #[test]
    fn positioned_open_refuses_a_fifo_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("00000000000000000000.log");
        let ok = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(ok.success());
        let err = PositionedFile::open(&fifo).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn a_listed_file_is_read_as_listed_and_a_fifo_or_dir_swapped_in_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let log = tmp.path().join("00000000000000000000.log");
        std::fs::write(&log, b"0123456789").unwrap();
        new_scan();
        // Grown since the listing: read as listed; shrunk: read short.
        let grown = PositionedFile::open_listed(&log, Some(4)).unwrap();
        assert_eq!(grown.read_all().unwrap(), b"0123");
        let shrunk = PositionedFile::open_listed(&log, Some(64)).unwrap();
        assert_eq!(shrunk.read_all().unwrap(), b"0123456789");
        // A dir, then a FIFO, where the listing saw a regular file.
        refuses_a_dir_then_a_fifo_in_place_of(&log, |p| {
            PositionedFile::open_listed(p, Some(10)).and_then(|f| f.read_all())
        });
    }

    /// With `path` (a regular file) replaced by a dir, then by a FIFO (where `mkfifo` works),
    /// `read` refuses each as "not a regular file" (`InvalidInput`), without blocking.
    fn refuses_a_dir_then_a_fifo_in_place_of<T: std::fmt::Debug>(
        path: &Path,
        read: impl Fn(&Path) -> io::Result<T>,
    ) {
        std::fs::remove_file(path).unwrap();
        std::fs::create_dir(path).unwrap();
        let err = read(path).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{err}");
        std::fs::remove_dir(path).unwrap();
        let ok = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            let err = read(path).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{err}");
        }
    }

    #[test]
    fn a_head_open_measures_by_a_short_read_or_an_fstat_and_refuses_a_fifo_or_dir() {
        let tmp = tempfile::tempdir().unwrap();
        let index = tmp.path().join("00000000000000000000.index");
        std::fs::write(&index, b"0123456789").unwrap();
        new_scan();
        // Shorter than the head: its length is the read's, and nothing else measured it.
        let (f, head) = PositionedFile::open_with_head(&index, 64).unwrap();
        assert_eq!(
            (f.len(), &head[..], f.mtime_ms()),
            (10, &b"0123456789"[..], None)
        );
        // Filling the head: measured by an fstat, with its mtime.
        let (f, head) = PositionedFile::open_with_head(&index, 4).unwrap();
        assert_eq!((f.len(), &head[..]), (10, &b"0123"[..]));
        let stat = std::fs::metadata(&index).unwrap();
        assert_eq!(f.mtime_ms(), mtime_ms_of(&stat));
        assert_eq!(f.read_range(4, 100).unwrap(), b"456789");
        let (f, head) = PositionedFile::open_with_head(&index, 10).unwrap();
        assert_eq!(
            (f.len(), head.len(), f.mtime_ms().is_some()),
            (10, 10, true)
        );
        // A dir, then a FIFO, where the listing saw a regular file.
        refuses_a_dir_then_a_fifo_in_place_of(&index, |p| {
            PositionedFile::open_with_head(p, 64).map(|(_, head)| head)
        });
    }

    #[test]
    fn small_file_cap() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(b"0123456789").unwrap();
        assert_eq!(read_small_file(f.path(), 10).unwrap().len(), 10);
        assert!(read_small_file(f.path(), 9).is_err());
    }
}
