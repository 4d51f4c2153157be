//! What is in a log dir, by name alone: partition dirs, segment files grouped by base offset,
//! leftovers of interrupted operations, and files the broker would not expect.
//!
//! Listing reads directory entries and file metadata only; parsing happens in [`super::load`].
//! Broker rules: spec formats §1.1 (root), §1.3 (partition files), §1.4 (leftovers).

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use nix::dir::Type;
use nix::sys::stat::Mode;

use super::disk_usage::{walk_usage, DirUsage, EntryPath, EntryStat, UsageWalk, UsedEntry};
use super::file_bytes::{mtime_ms_of, PositionedFile, TooLarge};
use super::names::{
    parse_partition_dir_name, parse_segment_file_name, LeftoverKind, PartitionDirName,
    SegmentFileKind, METADATA_TOPIC,
};

/// Size and modification time of a file (links followed, as the broker follows them).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileInfo {
    /// Full path.
    #[serde(with = "crate::model::names::path_serde")]
    pub path: PathBuf,
    /// Length in bytes; `None` when the listing did not stat the file: a segment file,
    /// snapshot or partition file that its dir entry says is a regular file, whose reader
    /// measures it with an `fstat` when it opens it (one syscall without a path lookup instead
    /// of an `fstatat` here, and none for a file never opened).
    pub size: Option<u64>,
    /// Modification time in ms since the epoch (Kafka's `lastModified`), if the OS gives one
    /// (`None` too while `size` is).
    pub mtime_ms: Option<i64>,
    /// The stat of the file's blocks that a usage row of the listing waits for (not part of a
    /// facts snapshot).
    #[serde(skip)]
    pub(crate) usage: UsageStat,
}

/// A file's `fstat` for the log dir's disk usage, when the listing wants its blocks and left
/// them to the file's opener ([`FileInfo::open`]): the open's `fstat` of the fd it opened
/// costs no path lookup, where an `fstatat` by name in the listing cost one per file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum UsageStat {
    /// No usage row waits for it (none is taken, or the listing stat'ed the file).
    #[default]
    NotWanted,
    /// A usage row waits for the open's `fstat`.
    Wanted,
    /// The open's `fstat`.
    Taken(EntryStat),
}

impl FileInfo {
    fn of(path: PathBuf, meta: &Meta) -> Self {
        FileInfo {
            path,
            size: meta.len,
            mtime_ms: meta.mtime_ms,
            usage: UsageStat::NotWanted,
        }
    }

    /// The length, 0 while unknown (a file the listing did not stat and nothing opened).
    pub fn len_or_zero(&self) -> u64 {
        self.size.unwrap_or(0)
    }

    /// Open the file for positioned reads at its listed length, or, when the listing did not
    /// measure it, with an `fstat` whose size and mtime are recorded here. When that open
    /// fails the file is stat'ed by path, so that its size is known all the same (a file
    /// without read permission has one).
    pub(crate) fn open(&mut self) -> io::Result<PositionedFile> {
        let opened = PositionedFile::open_listed(&self.path, self.size);
        match &opened {
            Ok(f) if self.size.is_none() => {
                self.size = Some(f.len());
                self.mtime_ms = f.mtime_ms();
                if let (UsageStat::Wanted, Some(st)) = (self.usage, f.stat()) {
                    self.usage = UsageStat::Taken(st);
                }
            }
            Err(_) => self.measure(),
            Ok(_) => {}
        }
        opened
    }

    /// Stat the file by path (links followed, as the listing does) if it is not measured yet.
    pub(crate) fn measure(&mut self) {
        if self.size.is_some() {
            return;
        }
        if let Ok(m) = fs::metadata(&self.path) {
            let meta = Meta::of(&m);
            self.size = meta.len;
            self.mtime_ms = meta.mtime_ms;
        }
    }

    /// An index file of `entry_size`-byte slots: its length, and its bytes up to the end of
    /// the slot where its data ends ([`PositionedFile::data_end`]); the rest are zeros, not
    /// read. Refuses anything larger than `cap` bytes as [`Self::read_small`] does.
    pub(crate) fn read_index(&mut self, cap: u64, entry_size: u64) -> io::Result<(Vec<u8>, u64)> {
        let file = self.open_capped(cap)?;
        let held = slots_held(&file, entry_size);
        Ok((file.read_range(0, held)?, file.len()))
    }

    /// An index file as [`Self::read_index`] reads it, but of its data only slot 0 and the
    /// last `window` bytes (whole slots) when it holds more than twice that: what a shallow
    /// scan checks (Kafka's sanity check compares the last slot with slot 0; the valid
    /// prefix's end, the zero tail and the last entries are at the tail).
    pub(crate) fn read_index_tail(
        &mut self,
        cap: u64,
        entry_size: u64,
        window: u64,
    ) -> io::Result<IndexRead> {
        let (file, mut head) = self.open_capped_with_head(cap, INDEX_HEAD)?;
        let held = slots_held(&file, entry_size);
        let window_slots = window.checked_div(entry_size).unwrap_or(0);
        let gap_end = (held / entry_size.max(1)).saturating_sub(window_slots);
        let head_or_read = |head: Vec<u8>, want: u64| -> io::Result<Vec<u8>> {
            match head.len() as u64 {
                n if n >= want => Ok(head),
                _ => file.read_range(0, want),
            }
        };
        if held <= window.saturating_mul(2) || gap_end < 2 {
            head = head_or_read(head, held)?;
            head.truncate(usize::try_from(held).unwrap_or(usize::MAX));
            return Ok(IndexRead::Whole {
                bytes: head,
                len: file.len(),
            });
        }
        let mut bytes = head_or_read(head, entry_size)?;
        bytes.truncate(usize::try_from(entry_size).unwrap_or(usize::MAX));
        let from = gap_end * entry_size;
        bytes.extend(file.read_range(from, held - from)?);
        Ok(IndexRead::Tail {
            bytes,
            gap_end: usize::try_from(gap_end).unwrap_or(usize::MAX),
            len: file.len(),
        })
    }

    /// [`Self::open_capped`], with the file's first `head` bytes read; a file the listing did
    /// not measure is opened by [`PositionedFile::open_with_head`] (no `fstat` when it is
    /// shorter than `head`), and measured by it, unless its blocks are wanted (an `fstat`).
    fn open_capped_with_head(
        &mut self,
        cap: u64,
        head: u64,
    ) -> io::Result<(PositionedFile, Vec<u8>)> {
        if self.size.is_some() || self.usage == UsageStat::Wanted {
            let file = self.open_capped(cap)?;
            let bytes = file.read_range(0, head)?;
            return Ok((file, bytes));
        }
        let (file, bytes) = match PositionedFile::open_with_head(&self.path, head) {
            Ok(opened) => opened,
            Err(e) => {
                self.measure();
                return Err(e);
            }
        };
        self.size = Some(file.len());
        self.mtime_ms = file.mtime_ms();
        if file.len() > cap {
            return Err(TooLarge::error(file.len(), cap));
        }
        Ok((file, bytes))
    }

    /// The whole file, refusing anything larger than `cap` bytes
    /// ([`super::file_bytes::TooLarge`]), before it is opened when its size is known.
    pub(crate) fn read_small(&mut self, cap: u64) -> io::Result<Vec<u8>> {
        self.open_capped(cap)?.read_all()
    }

    /// [`Self::open`], refusing a file larger than `cap` bytes: before the open when the
    /// listing measured it, else after.
    fn open_capped(&mut self, cap: u64) -> io::Result<PositionedFile> {
        if let Some(len) = self.size.filter(|&l| l > cap) {
            return Err(TooLarge::error(len, cap));
        }
        let file = self.open()?;
        if file.len() > cap {
            return Err(TooLarge::error(file.len(), cap));
        }
        Ok(file)
    }
}

/// An index file as [`FileInfo::read_index_tail`] read it.
#[derive(Debug)]
pub(crate) enum IndexRead {
    /// Every slot up to where its data ends.
    Whole {
        /// The bytes read.
        bytes: Vec<u8>,
        /// File length.
        len: u64,
    },
    /// Slot 0, then the slots from `gap_end` up to where its data ends.
    Tail {
        /// The bytes read.
        bytes: Vec<u8>,
        /// First slot read after slot 0.
        gap_end: usize,
        /// File length.
        len: u64,
    },
}

/// What a shallow scan reads first of an index file: a page, all a small segment's index
/// holds (512 offset entries), so that most are read without an `fstat`; of a big one, the
/// page holding slot 0.
const INDEX_HEAD: u64 = 4096;

/// How much of an index file holds slots to read: up to the end of the slot where its data
/// ends ([`PositionedFile::data_end`], asked only of files over 64 KiB; the rest are zeros).
fn slots_held(file: &PositionedFile, entry_size: u64) -> u64 {
    /// Files up to this size are read whole, without asking where their data ends.
    const PROBE_ABOVE: u64 = 64 << 10;
    let len = file.len();
    if len > PROBE_ABOVE && entry_size > 0 {
        let end = file.data_end();
        end.div_ceil(entry_size).saturating_mul(entry_size).min(len)
    } else {
        len
    }
}

/// What the listing keeps of an entry's metadata (links followed where the broker follows
/// them): from `std::fs::Metadata`, or from an `fstatat` relative to the dir being listed.
#[derive(Debug, Clone, Copy)]
struct Meta {
    is_dir: bool,
    is_file: bool,
    /// `None`: not stat'ed (see [`FileInfo::size`]).
    len: Option<u64>,
    /// As `fs::Metadata::modified` gives it: ms since the epoch, none before it.
    mtime_ms: Option<i64>,
    /// `(st_dev, st_ino)`; zeros while not stat'ed.
    id: (u64, u64),
}

impl Meta {
    /// A regular file by its dir entry's type, not stat'ed.
    const UNMEASURED_FILE: Meta = Meta {
        is_dir: false,
        is_file: true,
        len: None,
        mtime_ms: None,
        id: (0, 0),
    };

    /// A dir by its dir entry's type, not stat'ed (its lister takes its `fstat`).
    const UNMEASURED_DIR: Meta = Meta {
        is_dir: true,
        is_file: false,
        ..Meta::UNMEASURED_FILE
    };

    fn of(meta: &fs::Metadata) -> Self {
        Meta {
            is_dir: meta.is_dir(),
            is_file: meta.is_file(),
            len: Some(meta.len()),
            mtime_ms: mtime_ms_of(meta),
            id: (
                std::os::unix::fs::MetadataExt::dev(meta),
                std::os::unix::fs::MetadataExt::ino(meta),
            ),
        }
    }

    fn of_stat(st: &nix::sys::stat::FileStat) -> Self {
        let kind = st.st_mode & nix::libc::S_IFMT;
        // `SystemTime` from (seconds, nanoseconds): before the epoch `duration_since` fails.
        let mtime_ms = u64::try_from(st.st_mtime)
            .ok()
            .zip(u64::try_from(st.st_mtime_nsec).ok())
            .and_then(|(secs, nanos)| {
                secs.checked_mul(1000)
                    .and_then(|ms| ms.checked_add(nanos / 1_000_000))
            })
            .and_then(|ms| i64::try_from(ms).ok());
        Meta {
            is_dir: kind == nix::libc::S_IFDIR,
            is_file: kind == nix::libc::S_IFREG,
            len: Some(u64::try_from(st.st_size).unwrap_or(0)),
            mtime_ms,
            #[allow(clippy::useless_conversion)]
            id: (u64::from(st.st_dev), u64::from(st.st_ino)),
        }
    }
}

/// The files of one segment, found by base offset.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SegmentFiles {
    /// Base offset from the file names.
    pub base_offset: i64,
    /// `.log`
    pub log: Option<FileInfo>,
    /// `.index`
    pub index: Option<FileInfo>,
    /// `.timeindex`
    pub time_index: Option<FileInfo>,
    /// `.txnindex`
    pub txn_index: Option<FileInfo>,
}

/// A file left by an operation that has not finished (`.deleted`, `.cleaned`, `.swap`, `.tmp`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Leftover {
    /// The file.
    pub file: FileInfo,
    /// Which suffix; `None` for a `.tmp` file of an atomic write.
    pub kind: Option<LeftoverKind>,
    /// The segment file kind under the suffix and its offset, when the name is a segment name.
    pub segment: Option<(i64, SegmentFileKind)>,
}

/// An entry the broker would not expect where it was found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct UnknownEntry {
    /// Full path.
    #[serde(with = "crate::model::names::path_serde")]
    pub path: PathBuf,
    /// Whether it is a directory.
    pub is_dir: bool,
}

/// A problem reading a directory or a file's metadata.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IoProblem {
    /// The path that could not be read.
    #[serde(with = "crate::model::names::path_serde")]
    pub path: PathBuf,
    /// The OS error, as text.
    pub message: String,
}

impl IoProblem {
    pub(crate) fn new(path: &Path, err: &io::Error) -> Self {
        IoProblem {
            path: path.to_path_buf(),
            message: err.to_string(),
        }
    }
}

/// Everything found in one partition dir.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct PartitionListing {
    /// The dir.
    #[serde(with = "crate::model::names::path_serde")]
    pub path: PathBuf,
    /// Segments by base offset, ascending.
    pub segments: BTreeMap<i64, SegmentFiles>,
    /// Producer-state snapshots by offset.
    pub snapshots: BTreeMap<i64, FileInfo>,
    /// `leader-epoch-checkpoint`
    pub leader_epoch_checkpoint: Option<FileInfo>,
    /// `partition.metadata`
    pub partition_metadata: Option<FileInfo>,
    /// KRaft metadata log only: `quorum-state`.
    pub quorum_state: Option<FileInfo>,
    /// KRaft metadata log only: `<offset>-<epoch>.checkpoint` snapshots.
    pub metadata_snapshots: Vec<FileInfo>,
    /// Files of unfinished operations.
    pub leftovers: Vec<Leftover>,
    /// Files and dirs the broker does not write here.
    pub unknown: Vec<UnknownEntry>,
    /// Entries that could not be read.
    pub io_problems: Vec<IoProblem>,
    /// Whether this is the KRaft metadata log's dir (`__cluster_metadata-0`).
    pub is_metadata: bool,
}

/// Root-level files of a log dir.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct RootFiles {
    /// `meta.properties`
    pub meta_properties: Option<FileInfo>,
    /// `.kafka_cleanshutdown`
    pub clean_shutdown: Option<FileInfo>,
    /// `.lock` (present while a broker runs or after a crash; deleted on clean shutdown).
    pub lock: Option<FileInfo>,
    /// `recovery-point-offset-checkpoint`
    pub recovery_point: Option<FileInfo>,
    /// `log-start-offset-checkpoint`
    pub log_start_offset: Option<FileInfo>,
    /// `replication-offset-checkpoint`
    pub replication_offset: Option<FileInfo>,
    /// `cleaner-offset-checkpoint`
    pub cleaner_offset: Option<FileInfo>,
    /// `bootstrap.checkpoint` (metadata dir only, written by `kafka-storage format`).
    pub bootstrap_checkpoint: Option<FileInfo>,
}

/// A partition dir with its parsed name (`None` when the broker could not parse it).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct PartitionEntry {
    /// Parsed dir name.
    pub name: Option<PartitionDirName>,
    /// Contents.
    pub listing: PartitionListing,
}

/// Everything found in one log dir.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct LogDirListing {
    /// The log dir.
    #[serde(with = "crate::model::names::path_serde")]
    pub path: PathBuf,
    /// Root files.
    pub root: RootFiles,
    /// Partition dirs (including `__cluster_metadata-0`), sorted by dir name.
    pub partitions: Vec<PartitionEntry>,
    /// `.tmp` files and other leftovers in the root.
    pub leftovers: Vec<Leftover>,
    /// Entries the broker would not expect in the root.
    pub unknown: Vec<UnknownEntry>,
    /// Entries that could not be read.
    pub io_problems: Vec<IoProblem>,
    /// The blocks of every entry below the log dir ([`walk_usage`]'s answer), taken from the
    /// listing's own stats when the listing was asked for them
    /// ([`RootListing::finish`]'s `with_usage`); not part of a facts snapshot (which
    /// carries its own).
    #[serde(skip)]
    pub usage: Option<DirUsage>,
}

/// One entry found by the listing: its name, path and metadata (links followed).
struct Found {
    name: String,
    path: PathBuf,
    meta: Meta,
    /// Its own `lstat`, when the listing took one (an entry that is not a link).
    lstat: Option<EntryStat>,
    /// A symlink (followed for `meta`).
    is_symlink: bool,
}

/// A dir above an entry being listed (or the entry's own dir): a link that leads back to one is
/// a loop, never followed (what walkdir's loop check found when the listing used it).
#[derive(Clone, Copy)]
struct Ancestor<'a> {
    path: &'a Path,
    /// `(st_dev, st_ino)`, links followed.
    id: (u64, u64),
}

/// The entries of the open dir `dir` at `path` (a log dir's root or a partition dir), sorted by
/// name, each to `visit` with its metadata: links followed, as
/// the broker's `File.isDirectory`/`isFile` follow them (symlinked partition dirs are a real
/// practice). Nothing but dirs is opened: a FIFO or device is classified by its metadata. A
/// plain file or dir is stat'ed (relative to `dir`: one path component to look up) unless
/// `unmeasured(name, type)` says that whoever opens it measures it ([`FileInfo::size`]; a
/// partition dir's lister, [`PartitionDirItem::list`]). An entry
/// that cannot be read (a dangling link, a link loop, a permission error) goes to `visit` as a
/// problem, or as a junk link ([`is_junk_link`]).
/// `ancestors`: the dirs from the log dir down to `dir` itself.
fn read_entries(
    dir: &OwnedFd,
    path: &Path,
    ancestors: &[Ancestor<'_>],
    unmeasured: &dyn Fn(&str, Type) -> bool,
    visit: &mut dyn FnMut(Walked),
) {
    // The names in one buffer (`names`: where each lies in it): no allocation per entry.
    let mut bytes: Vec<u8> = Vec::new();
    let mut names: Vec<(std::ops::Range<usize>, Option<Type>)> = Vec::new();
    // `getdents64` straight into this buffer: `fdopendir` would cost an `fstat` and two
    // `fcntl`s per dir, and its iterator a `rewinddir` after it.
    let mut buf: Vec<u8> = Vec::with_capacity(DIRENT_BUFFER);
    let mut entries = rustix::fs::RawDir::new(dir, buf.spare_capacity_mut());
    while let Some(item) = entries.next() {
        match item {
            Ok(e) => {
                let name = e.file_name().to_bytes();
                if name != b"." && name != b".." {
                    let start = bytes.len();
                    bytes.extend_from_slice(name);
                    names.push((start..bytes.len(), entry_type(e.file_type())));
                }
            }
            Err(errno) => {
                // (A failed `readdir` ends the listing, as `std::fs::ReadDir` ends it.)
                let problem = IoProblem::new(path, &io::Error::from(errno));
                visit(Walked::Problem(problem));
                break;
            }
        }
    }
    let name_of =
        |at: &std::ops::Range<usize>| OsStr::from_bytes(bytes.get(at.clone()).unwrap_or_default());
    names.sort_unstable_by(|a, b| name_of(&a.0).cmp(name_of(&b.0)));
    for (at, kind) in names {
        let name = name_of(&at);
        let entry_path = path.join(name);
        let text = super::names::name_text(name);
        match entry_meta(dir, name, &text, kind, unmeasured) {
            Ok((meta, lstat, is_symlink)) => {
                let looped = (is_symlink && meta.is_dir)
                    .then(|| ancestors.iter().find(|a| a.id == meta.id))
                    .flatten();
                if let Some(ancestor) = looped {
                    visit(unreadable_entry(
                        entry_path.clone(),
                        None,
                        format!(
                            "File system loop found: {} points to an ancestor {}",
                            entry_path.display(),
                            ancestor.path.display()
                        ),
                    ));
                    continue;
                }
                visit(Walked::Entry(Found {
                    name: text,
                    path: entry_path,
                    meta,
                    lstat,
                    is_symlink,
                }));
            }
            Err(e) => {
                let errno = e.raw_os_error();
                let message = e.to_string();
                visit(unreadable_entry(entry_path, errno, message));
            }
        }
    }
}

/// The buffer a dir's entries are read into (what glibc's `readdir` takes): an entry is at
/// most 280 bytes.
const DIRENT_BUFFER: usize = 32 << 10;

/// A dir entry's type as the entry gives it (`None`: the filesystem does not say).
fn entry_type(t: rustix::fs::FileType) -> Option<Type> {
    use rustix::fs::FileType;
    Some(match t {
        FileType::RegularFile => Type::File,
        FileType::Directory => Type::Directory,
        FileType::Symlink => Type::Symlink,
        FileType::Fifo => Type::Fifo,
        FileType::Socket => Type::Socket,
        FileType::CharacterDevice => Type::CharacterDevice,
        FileType::BlockDevice => Type::BlockDevice,
        FileType::Unknown => return None,
    })
}

/// An entry's metadata (a followed link: its target's; anything else: the entry's own, with
/// that `lstat`), and whether it is a link, by `fstatat` on its name in `dir`; none for a plain
/// file or dir `unmeasured` names. `kind`: its type by its dir entry, when the filesystem gives
/// one.
fn entry_meta(
    dir: &OwnedFd,
    name: &OsStr,
    text: &str,
    kind: Option<Type>,
    unmeasured: &dyn Fn(&str, Type) -> bool,
) -> io::Result<(Meta, Option<EntryStat>, bool)> {
    use nix::fcntl::AtFlags;
    let lstat = || nix::sys::stat::fstatat(dir, name, AtFlags::AT_SYMLINK_NOFOLLOW);
    // A filesystem that does not give the type in the entry: the entry's own stat tells it.
    let (kind, own) = match kind {
        Some(k) => (k, None),
        None => {
            let st = lstat()?;
            let k = match st.st_mode & nix::libc::S_IFMT {
                nix::libc::S_IFLNK => Type::Symlink,
                nix::libc::S_IFREG => Type::File,
                _ => Type::Directory, // (any other kind: stat'ed below as it is)
            };
            (k, Some(st))
        }
    };
    if kind == Type::Symlink {
        let st = nix::sys::stat::fstatat(dir, name, AtFlags::empty())?;
        return Ok((Meta::of_stat(&st), None, true));
    }
    if own.is_none() && unmeasured(text, kind) {
        match kind {
            Type::File => return Ok((Meta::UNMEASURED_FILE, None, false)),
            Type::Directory => return Ok((Meta::UNMEASURED_DIR, None, false)),
            _ => {}
        }
    }
    let st = match own {
        Some(st) => st,
        None => lstat()?,
    };
    Ok((Meta::of_stat(&st), Some(EntryStat::of_stat(&st)), false))
}

/// An entry that could not be read: a junk link, or a problem
/// with `message` (the OS error's text, or the loop found).
fn unreadable_entry(path: PathBuf, errno: Option<i32>, message: String) -> Walked {
    if is_junk_link(&path, errno.is_none(), errno) {
        return Walked::JunkLink(path);
    }
    Walked::Problem(IoProblem { path, message })
}

/// Whether a partition dir's file of this name is one every load opens and measures itself
/// (segment files and producer snapshots that are not leftovers, `leader-epoch-checkpoint`,
/// `partition.metadata`), so the listing need not stat it.
fn measured_on_open(name: &str) -> bool {
    match parse_segment_file_name(name) {
        Some(seg) => seg.leftover.is_none(),
        None => matches!(name, "leader-epoch-checkpoint" | "partition.metadata"),
    }
}

/// Whether the listing left the entry to whoever opens it: a regular file by its dir entry,
/// not stat'ed ([`measured_on_open`]).
fn left_to_opener(f: &Found) -> bool {
    !f.is_symlink && f.meta.is_file && f.meta.len.is_none()
}

/// What the listing found.
enum Walked {
    /// An entry.
    Entry(Found),
    /// An entry that could not be read.
    Problem(IoProblem),
    /// A symlink that loops or dangles, named like nothing the broker reads: the broker skips
    /// it (`File.isFile` is false), so it is an unknown entry of its dir, not an unreadable one.
    JunkLink(PathBuf),
}

/// Whether the entry at `path` that could not be followed (`looped`: it leads to a dir above
/// it; else `errno`) is a symlink that loops (to itself, another link or an ancestor dir) or
/// dangles, whose name the broker does not read (a broker file, or a link named like a
/// partition dir, behind such a link stays an unreadable entry).
fn is_junk_link(path: &Path, looped: bool, errno: Option<i32>) -> bool {
    let is_link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let unresolvable =
        looped || errno.is_some_and(|c| c == nix::libc::ELOOP || c == nix::libc::ENOENT);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // A link named like a partition dir is one the broker would try to load.
    let broker_name = parse_segment_file_name(&name).is_some()
        || parse_partition_dir_name(&name).is_some()
        || LOG_DIR_ROOT_FILES.contains(&name.as_str())
        || [
            "partition.metadata",
            "leader-epoch-checkpoint",
            "quorum-state",
            "cleaner-offset-checkpoint",
        ]
        .contains(&name.as_str());
    is_link && unresolvable && !broker_name
}

/// The tiered-storage index cache below a log dir: no partition dir (the loader skips it too).
const INDEX_CACHE_DIR: &str = "remote-log-index-cache";

/// Whether a root entry is a dir listed as a partition dir (every dir but the index cache).
fn is_partition_dir(walked: &Walked) -> bool {
    matches!(walked, Walked::Entry(f) if f.meta.is_dir && f.name != INDEX_CACHE_DIR)
}

/// Open `path` as a dir to list (links followed).
fn open_dir(path: &Path) -> io::Result<OwnedFd> {
    nix::fcntl::open(path, DIR_FLAGS, Mode::empty()).map_err(io::Error::from)
}

const DIR_FLAGS: nix::fcntl::OFlag = nix::fcntl::OFlag::O_RDONLY
    .union(nix::fcntl::OFlag::O_DIRECTORY)
    .union(nix::fcntl::OFlag::O_CLOEXEC);

/// `(st_dev, st_ino)` of an open dir.
fn dir_id(dir: &OwnedFd) -> io::Result<(u64, u64)> {
    let st = nix::sys::stat::fstat(dir).map_err(io::Error::from)?;
    Ok(Meta::of_stat(&st).id)
}

/// A log dir's root, listed: its entries in name order, the partition dirs among them not yet
/// listed. Each partition dir is listed on its own ([`Self::list_partition`], from any thread:
/// a loader lists a partition and loads it with the same dir handle), and
/// [`Self::finish`] takes what they found back, in order, into the log dir's listing.
pub struct RootListing {
    path: PathBuf,
    /// The log dir, open: partition dirs are opened relative to it.
    fd: OwnedFd,
    id: (u64, u64),
    /// The root's entries in name order.
    items: Vec<Walked>,
    /// Indexes in `items` of the partition dirs (every dir but the tiered index cache).
    partition_items: Vec<usize>,
}

/// A partition dir of a [`RootListing`], to be listed.
pub struct PartitionDirItem<'a> {
    root: &'a RootListing,
    found: &'a Found,
}

/// What listing a partition dir leaves for [`RootListing::finish`].
#[derive(Default)]
pub struct PartitionListed {
    /// The dir could not be opened or read: a problem of the log dir (its listing is empty).
    dir_problem: Option<IoProblem>,
    /// The dir's own `fstat` (its root entry is not stat'ed: [`RootListing::of`]).
    dir_stat: Option<EntryStat>,
    /// Its entries' usage in name order, built from their `lstat`s here (when asked for).
    usage: Vec<UsedEntry>,
    /// Something the entries' `lstat`s do not stand for (a subdir, a link, a second name of an
    /// inode, an unreadable entry): the usage walks the dir again.
    usage_redo: bool,
    /// The rows of `usage` (indexes, in name order) that wait for their file's stat from the
    /// file's opener ([`UsageStat`]), each with whether it came.
    pending: Vec<(usize, bool)>,
    /// Where in `pending` the next stat likely goes: loads take a dir's files in name order.
    next_pending: usize,
}

impl PartitionListed {
    /// Take the `fstat` that `file`'s open took for its usage row, if one waits for it.
    pub fn take_stat(&mut self, file: &FileInfo) {
        let UsageStat::Taken(st) = file.usage else {
            return;
        };
        let Some(name) = file.path.file_name().and_then(OsStr::to_str) else {
            return;
        };
        let name_at = |at: usize| self.row_name(self.pending.get(at)?.0);
        // The next few rows first (a segment's rows lie together, its snapshot's among them).
        let near = (self.next_pending..self.next_pending + 3).find(|&at| name_at(at) == Some(name));
        let found = near.or_else(|| {
            (self.pending)
                .binary_search_by(|(row, _)| self.row_name(*row).unwrap_or_default().cmp(name))
                .ok()
        });
        if let Some(at) = found {
            self.next_pending = at + 1;
            self.fill(at, &st);
        }
    }

    /// Stat the files whose usage rows still wait (files no load opened), by name in their
    /// dir `dir`, as the listing would have.
    pub fn settle(&mut self, dir: &Path) {
        for at in 0..self.pending.len() {
            let Some(&(row, false)) = self.pending.get(at) else {
                continue;
            };
            let Some(name) = self.row_name(row) else {
                continue;
            };
            match super::file_bytes::entry_stat(&dir.join(name)) {
                Ok(st) => self.fill(at, &st),
                // (gone or unreadable since it was listed: the dir is walked again, and the
                // walk reports what it finds)
                Err(_) => self.redo(),
            }
        }
        self.pending = Vec::new();
    }

    /// The file name of usage row `row`.
    fn row_name(&self, row: usize) -> Option<&str> {
        self.usage.get(row).and_then(UsedEntry::name)
    }

    /// The `at`th waiting row, from its file's stat.
    fn fill(&mut self, at: usize, st: &EntryStat) {
        let Some((row, taken)) = self.pending.get_mut(at) else {
            return;
        };
        *taken = true;
        let Some(entry) = self.usage.get_mut(*row) else {
            return;
        };
        match UsedEntry::of_single(std::mem::take(&mut entry.path), st) {
            Some(e) if !st.is_dir => *entry = e,
            _ => self.redo(),
        }
    }

    /// The dir's usage is not what its entries' stats say: it is walked again.
    fn redo(&mut self) {
        self.usage_redo = true;
        self.usage = Vec::new();
        self.pending = Vec::new();
    }
}

impl RootListing {
    /// List the root of the log dir `dir`. Fails only when `dir` itself cannot be listed.
    pub fn of(dir: &Path) -> io::Result<RootListing> {
        let fd = open_dir(dir)?;
        let id = dir_id(&fd)?;
        let mut items = Vec::new();
        let ancestors = [Ancestor { path: dir, id }];
        // A partition dir (not a link) is stat'ed by its lister, on its fd, on a worker.
        let by_lister = |name: &str, kind| kind == Type::Directory && name != INDEX_CACHE_DIR;
        read_entries(&fd, dir, &ancestors, &by_lister, &mut |w| items.push(w));
        let partition_items = (items.iter().enumerate())
            .filter(|(_, w)| is_partition_dir(w))
            .map(|(i, _)| i)
            .collect();
        Ok(RootListing {
            path: dir.to_path_buf(),
            fd,
            id,
            items,
            partition_items,
        })
    }

    /// The partition dirs, in name order.
    pub fn partition_dirs(&self) -> Vec<PartitionDirItem<'_>> {
        (self.partition_items.iter())
            .filter_map(|&i| match self.items.get(i) {
                Some(Walked::Entry(found)) => Some(PartitionDirItem { root: self, found }),
                _ => None,
            })
            .collect()
    }

    /// The log dir's listing: the root's entries, with what listing each partition dir found
    /// (`listed`: one per [`Self::partition_dirs`], in their order); its partitions are not
    /// in it (they went to whoever listed them). `with_usage`: the listing carries the log
    /// dir's disk usage ([`LogDirListing::usage`], what [`walk_usage`] finds) from the
    /// listing's own stats.
    pub fn finish(self, listed: Vec<PartitionListed>, with_usage: bool) -> LogDirListing {
        let mut out = LogDirListing {
            path: self.path.clone(),
            ..Default::default()
        };
        let mut usage = with_usage.then(|| UsageTrack::new(&self.path));
        if let Some(walk) = usage.as_mut().and_then(|u| u.walk.as_mut()) {
            walk.reserve(self.items.len() + listed.iter().map(|p| p.usage.len()).sum::<usize>());
        }
        let mut listed = listed.into_iter();
        for walked in self.items {
            let part = is_partition_dir(&walked).then(|| listed.next().unwrap_or_default());
            if let Some(u) = usage.as_mut() {
                u.see(&walked, part.as_ref().and_then(|p| p.dir_stat));
            }
            match walked {
                Walked::Problem(problem) => out.io_problems.push(problem),
                Walked::JunkLink(path) => out.unknown.push(UnknownEntry {
                    path,
                    is_dir: false,
                }),
                Walked::Entry(found) if found.meta.is_dir => {
                    let Some(part) = part else {
                        continue; // (the tiered index cache)
                    };
                    if let Some(problem) = part.dir_problem {
                        if let Some(u) = usage.as_mut() {
                            u.walk = None; // (the whole dir is walked again at the end)
                        }
                        out.io_problems.push(problem);
                    } else if let Some(u) = usage.as_mut() {
                        u.partition(part.usage, part.usage_redo);
                    }
                }
                Walked::Entry(found) => add_root_entry(&mut out, found),
            }
        }
        out.usage = usage.map(|u| u.finish(&self.path));
        out
    }
}

impl PartitionDirItem<'_> {
    /// List the partition dir: its entry (parsed name, files), the open handle of the dir (for
    /// the loader's opens: one handle serves the listing, the stats and the opens), and what
    /// [`RootListing::finish`] takes back. `stat_all`: every entry is stat'ed (the disk usage
    /// is wanted), also the files a loader measures as it opens them (which it then need not).
    pub fn list(&self, stat_all: bool) -> (PartitionEntry, Option<OwnedFd>, PartitionListed) {
        let found = self.found;
        let mut entry = PartitionEntry {
            name: parse_partition_dir_name(&found.name),
            listing: PartitionListing {
                is_metadata: is_metadata_dir_name(&found.name),
                path: found.path.clone(),
                ..Default::default()
            },
        };
        let mut listed = PartitionListed::default();
        let opened = match found.path.file_name() {
            Some(name) => nix::fcntl::openat(&self.root.fd, name, DIR_FLAGS, Mode::empty())
                .map_err(io::Error::from),
            None => open_dir(&found.path),
        };
        let dir = match opened {
            Ok(d) => d,
            Err(e) => {
                listed.dir_problem = Some(IoProblem::new(&found.path, &e));
                return (entry, None, listed);
            }
        };
        // The dir's own stat, on its fd: the root listing took none of a dir (by its entry's
        // type), a link's is the target's (as `found.meta`).
        let own = nix::sys::stat::fstat(&dir).ok();
        listed.dir_stat = own.as_ref().map(EntryStat::of_stat);
        let id = (own.as_ref().map(|st| Meta::of_stat(st).id)).unwrap_or(found.meta.id);
        let ancestors = [
            Ancestor {
                path: &self.root.path,
                id: self.root.id,
            },
            Ancestor {
                path: &found.path,
                id,
            },
        ];
        // A file a load opens is measured by the open (its `fstat`), also for the usage.
        let unmeasured = |name: &str, kind| kind == Type::File && measured_on_open(name);
        let top: std::sync::Arc<str> = found.name.as_str().into();
        let out = &mut entry.listing;
        read_entries(
            &dir,
            &found.path,
            &ancestors,
            &unmeasured,
            &mut |w| match w {
                Walked::Entry(f) => {
                    let mut usage = UsageStat::NotWanted;
                    match f.lstat.filter(|st| !st.is_dir) {
                        Some(st) if stat_all && !listed.usage_redo => {
                            match UsedEntry::of_single(EntryPath::in_dir(&top, &f.name), &st) {
                                Some(e) => listed.usage.push(e),
                                None => listed.usage_redo = true,
                            }
                        }
                        Some(st) if st.nlink <= 1 => {}
                        None if stat_all && left_to_opener(&f) => {
                            usage = UsageStat::Wanted;
                            if !listed.usage_redo {
                                let at = EntryPath::in_dir(&top, &f.name);
                                listed.pending.push((listed.usage.len(), false));
                                listed.usage.push(UsedEntry::waiting(at));
                            }
                        }
                        _ => listed.usage_redo = true,
                    }
                    add_partition_entry(out, f, usage);
                }
                Walked::Problem(problem) => {
                    listed.usage_redo = true;
                    out.io_problems.push(problem);
                }
                Walked::JunkLink(path) => {
                    listed.usage_redo = true;
                    out.unknown.push(UnknownEntry {
                        path,
                        is_dir: false,
                    });
                }
            },
        );
        if listed.usage_redo {
            listed.redo();
        }
        (entry, Some(dir), listed)
    }
}

/// List a log dir (its root entries and, for each partition dir, that dir's entries).
/// Fails only if the dir itself cannot be read. (The loader lists and loads partitions in
/// parallel with [`RootListing`] itself.)
pub fn list_log_dir(dir: &Path) -> io::Result<LogDirListing> {
    list_log_dir_with(dir, false)
}

/// [`list_log_dir`]; `with_usage`: as [`RootListing::finish`] takes it.
fn list_log_dir_with(dir: &Path, with_usage: bool) -> io::Result<LogDirListing> {
    let root = RootListing::of(dir)?;
    let (partitions, listed): (Vec<PartitionEntry>, Vec<PartitionListed>) =
        (root.partition_dirs().iter())
            .map(|p| {
                let (entry, _, mut listed) = p.list(with_usage);
                listed.settle(&entry.listing.path);
                (entry, listed)
            })
            .unzip();
    let mut out = root.finish(listed, with_usage);
    out.partitions = partitions;
    Ok(out)
}

/// A log dir's root entries only: its partition dirs come with empty listings (none of them is
/// opened), for callers that need the dirs' names, not their files.
pub fn list_partition_dirs(dir: &Path) -> io::Result<LogDirListing> {
    let root = RootListing::of(dir)?;
    let partitions: Vec<PartitionEntry> = (root.partition_dirs().iter())
        .map(|p| PartitionEntry {
            name: parse_partition_dir_name(&p.found.name),
            listing: PartitionListing {
                is_metadata: is_metadata_dir_name(&p.found.name),
                path: p.found.path.clone(),
                ..Default::default()
            },
        })
        .collect();
    let listed = partitions
        .iter()
        .map(|_| PartitionListed::default())
        .collect();
    let mut out = root.finish(listed, false);
    out.partitions = partitions;
    Ok(out)
}

/// The disk usage of a log dir taken along its listing: each entry as the listing `lstat`ed
/// it, in the listing's order, which is [`walk_usage`]'s (names sorted per dir, depth first).
/// What the listing does not stand for is walked here as [`walk_usage`] walks it: a partition
/// dir holding anything but files that are not links or second names of an inode (a subdir,
/// a link, an entry that cannot be read) is walked again whole, and the tiered index cache
/// (which the listing does not enter) is walked; a root entry the listing could not read
/// makes the whole dir walked again at the end.
struct UsageTrack {
    /// `None`: the log dir could not be stat'ed: walked again at the end.
    walk: Option<UsageWalk>,
    /// The partition dir whose entries are coming.
    part: Option<PartTrack>,
}

/// A partition dir in [`UsageTrack`].
struct PartTrack {
    path: PathBuf,
    name: String,
    /// Its first entry's index in the walk.
    start: usize,
    /// Walk it again (an entry the listing's stat does not stand for).
    redo: bool,
    /// A link to a dir: the listing enters it, [`walk_usage`] does not (its entries are not
    /// below the log dir).
    link: bool,
}

impl UsageTrack {
    fn new(dir: &Path) -> Self {
        UsageTrack {
            walk: UsageWalk::new(dir).ok().filter(|w| w.root_is_dir),
            part: None,
        }
    }

    /// A root entry of the log dir; `dir_stat`: a partition dir's own stat, taken by its
    /// lister when the root listing took none.
    fn see(&mut self, walked: &Walked, dir_stat: Option<EntryStat>) {
        if self.walk.is_none() {
            return;
        }
        match walked {
            Walked::Entry(found) => {
                self.end_part();
                let Some(walk) = self.walk.as_mut() else {
                    return;
                };
                let at = EntryPath::root(&found.name);
                let is_dir = match (found.is_symlink, found.lstat.or(dir_stat)) {
                    (false, Some(st)) => {
                        walk.push(at, &st);
                        st.is_dir
                    }
                    (true, _) => walk.push_path(&found.path, at),
                    // (Stat'ed by path, links followed: not an `lstat`.)
                    (false, None) => {
                        self.walk = None;
                        return;
                    }
                };
                if is_dir && found.name == INDEX_CACHE_DIR {
                    // The listing does not enter it.
                    walk.walk_below(&found.path, &EntryPath::root(&found.name));
                } else if is_dir || (found.is_symlink && found.meta.is_dir) {
                    self.part = Some(PartTrack {
                        path: found.path.clone(),
                        name: found.name.clone(),
                        start: walk.len(),
                        redo: false,
                        link: !is_dir,
                    });
                }
            }
            Walked::Problem(..) | Walked::JunkLink(..) => self.walk = None,
        }
    }

    /// The entries of the partition dir just seen, as its listing `lstat`ed them (file names
    /// in name order), or `redo`: something they do not stand for is in it.
    fn partition(&mut self, entries: Vec<UsedEntry>, redo: bool) {
        let (Some(walk), Some(p)) = (self.walk.as_mut(), self.part.as_mut()) else {
            return;
        };
        if p.link {
            return;
        }
        if redo {
            p.redo = true;
            return;
        }
        walk.extend(entries);
    }

    /// The partition dir whose entries have all come: walked again when it must be.
    fn end_part(&mut self) {
        let (Some(p), Some(walk)) = (self.part.take(), self.walk.as_mut()) else {
            return;
        };
        if p.redo && !p.link {
            walk.truncate(p.start);
            walk.walk_below(&p.path, &EntryPath::root(&p.name));
        }
    }

    fn finish(mut self, dir: &Path) -> DirUsage {
        self.end_part();
        self.walk.map_or_else(|| walk_usage(dir), UsageWalk::finish)
    }
}

/// A root file by name: present when its name leads (links followed) to a regular file or a
/// dir.
pub(crate) fn root_file(dir: &Path, name: &str) -> Option<FileInfo> {
    let path = dir.join(name);
    // A dir in its place is returned too: reading it fails (EISDIR) as the broker's read does,
    // instead of taking the file for absent. (An entry that cannot be stat'ed is the listing's
    // problem; a FIFO or device is never read.)
    let meta = fs::metadata(&path)
        .ok()
        .filter(|m| m.is_file() || m.is_dir())?;
    Some(FileInfo::of(path, &Meta::of(&meta)))
}

/// A root entry that is not a dir.
fn add_root_entry(out: &mut LogDirListing, found: Found) {
    let Found {
        name, path, meta, ..
    } = found;
    if !meta.is_file {
        // A FIFO or device named like a checkpoint would block or mislead a read.
        out.unknown.push(UnknownEntry {
            path,
            is_dir: false,
        });
        return;
    }
    let slot = match name.as_str() {
        "meta.properties" => &mut out.root.meta_properties,
        ".kafka_cleanshutdown" => &mut out.root.clean_shutdown,
        ".lock" => &mut out.root.lock,
        "recovery-point-offset-checkpoint" => &mut out.root.recovery_point,
        "log-start-offset-checkpoint" => &mut out.root.log_start_offset,
        "replication-offset-checkpoint" => &mut out.root.replication_offset,
        "cleaner-offset-checkpoint" => &mut out.root.cleaner_offset,
        "bootstrap.checkpoint" => &mut out.root.bootstrap_checkpoint,
        _ if name.ends_with(".tmp") => {
            out.leftovers.push(Leftover {
                file: FileInfo::of(path, &meta),
                kind: None,
                segment: None,
            });
            return;
        }
        _ => {
            out.unknown.push(UnknownEntry {
                path,
                is_dir: false,
            });
            return;
        }
    };
    *slot = Some(FileInfo::of(path, &meta));
}

/// Whether a partition dir name is the KRaft metadata log's.
fn is_metadata_dir_name(name: &str) -> bool {
    name.strip_prefix(METADATA_TOPIC) == Some("-0")
}

/// List one partition dir.
pub fn list_partition_dir(dir: &Path) -> io::Result<PartitionListing> {
    let is_metadata = dir
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(is_metadata_dir_name);
    let mut out = PartitionListing {
        path: dir.to_path_buf(),
        is_metadata,
        ..Default::default()
    };
    let opened = open_dir(dir)?;
    let ancestors = [Ancestor {
        path: dir,
        id: dir_id(&opened)?,
    }];
    read_entries(
        &opened,
        dir,
        &ancestors,
        &|name: &str, kind| kind == Type::File && measured_on_open(name),
        &mut |w| match w {
            Walked::Entry(found) => add_partition_entry(&mut out, found, UsageStat::NotWanted),
            Walked::Problem(problem) => out.io_problems.push(problem),
            Walked::JunkLink(path) => out.unknown.push(UnknownEntry {
                path,
                is_dir: false,
            }),
        },
    );
    Ok(out)
}

/// One entry of a partition dir.
fn add_partition_entry(out: &mut PartitionListing, found: Found, usage: UsageStat) {
    let Found {
        name, path, meta, ..
    } = found;
    let is_metadata = out.is_metadata;
    if !meta.is_file {
        out.unknown.push(UnknownEntry {
            path,
            is_dir: meta.is_dir,
        });
        return;
    }
    let info = FileInfo {
        usage,
        ..FileInfo::of(path, &meta)
    };
    if let Some(seg) = parse_segment_file_name(&name) {
        if let Some(kind) = seg.leftover {
            out.leftovers.push(Leftover {
                file: info,
                kind: Some(kind),
                segment: Some((seg.offset, seg.kind)),
            });
            return;
        }
        if seg.kind == SegmentFileKind::Snapshot {
            out.snapshots.insert(seg.offset, info);
            return;
        }
        let files = out
            .segments
            .entry(seg.offset)
            .or_insert_with(|| SegmentFiles {
                base_offset: seg.offset,
                ..Default::default()
            });
        let slot = match seg.kind {
            SegmentFileKind::Log => &mut files.log,
            SegmentFileKind::Index => &mut files.index,
            SegmentFileKind::TimeIndex => &mut files.time_index,
            SegmentFileKind::TxnIndex => &mut files.txn_index,
            SegmentFileKind::Snapshot => return,
        };
        *slot = Some(info);
        return;
    }
    match name.as_str() {
        "leader-epoch-checkpoint" => out.leader_epoch_checkpoint = Some(info),
        "partition.metadata" => out.partition_metadata = Some(info),
        "quorum-state" if is_metadata => out.quorum_state = Some(info),
        _ if is_metadata && is_metadata_snapshot_name(&name) => out.metadata_snapshots.push(info),
        _ if name.ends_with(".tmp") || (is_metadata && name.ends_with(".checkpoint.part")) => {
            out.leftovers.push(Leftover {
                file: info,
                kind: None,
                segment: None,
            })
        }
        _ if is_metadata && name.ends_with(".checkpoint.deleted") => out.leftovers.push(Leftover {
            file: info,
            kind: Some(LeftoverKind::Deleted),
            segment: None,
        }),
        _ => out.unknown.push(UnknownEntry {
            path: info.path,
            is_dir: false,
        }),
    }
}

/// `<20-digit offset>-<10-digit epoch>.checkpoint` (KRaft snapshot names, spec formats §8.5).
fn is_metadata_snapshot_name(name: &str) -> bool {
    let Some(stem) = name.strip_suffix(".checkpoint") else {
        return false;
    };
    let Some((offset, epoch)) = stem.split_once('-') else {
        return false;
    };
    offset.len() == 20
        && epoch.len() == 10
        && offset
            .bytes()
            .chain(epoch.bytes())
            .all(|b| b.is_ascii_digit())
}

/// Files only a log dir root holds: a subdir with one of them is a log dir.
const LOG_DIR_ROOT_FILES: &[&str] = &[
    "meta.properties",
    ".kafka_cleanshutdown",
    "recovery-point-offset-checkpoint",
    "replication-offset-checkpoint",
    "log-start-offset-checkpoint",
];

/// The log dirs directly below `dir` when `dir` is not one itself (no `meta.properties`): its
/// subdirs holding a file only a log dir root holds, sorted. Empty for a log dir, for a dir
/// whose subdirs are partition dirs, and when `dir` cannot be listed (the caller's load says
/// why). Symlinked subdirs are followed, as the broker follows a symlinked log dir.
pub fn log_dirs_below(dir: &Path) -> Vec<PathBuf> {
    if dir.join("meta.properties").exists() {
        return Vec::new();
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir() && LOG_DIR_ROOT_FILES.iter().any(|f| p.join(f).is_file()))
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The usage taken along the listing is what a walk of its own finds.
    fn usage_as_walked(dir: &Path) {
        let listed = list_log_dir_with(dir, true).unwrap();
        assert_eq!(listed.usage, Some(walk_usage(dir)), "{dir:?}");
    }

    /// Every committed fixture log dir (a real broker's), every scenario.
    #[test]
    fn the_listing_takes_the_usage_a_walk_takes_of_every_fixture() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut dirs = 0;
        for scenario in fs::read_dir(&root).unwrap() {
            let scenario = scenario.unwrap().path();
            for d in fs::read_dir(&scenario).into_iter().flatten() {
                let d = d.unwrap().path();
                if d.join("meta.properties").is_file() {
                    usage_as_walked(&d);
                    dirs += 1;
                }
            }
        }
        assert!(dirs >= 30, "{dirs} fixture log dirs");
    }

    /// What the listing's stats do not stand for, walked as the walk walks it: a subdir and a
    /// link in a partition dir, a hard link (counted once), a partition dir that is a link to
    /// a dir outside, the tiered index cache, a FIFO, a dangling link, a root link to a file.
    #[test]
    fn the_listing_usage_walks_what_its_stats_do_not_stand_for() {
        let tmp = tempfile::tempdir().unwrap();
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/basic-delete/logs-0");
        let dir = tmp.path().join("logs-0");
        let out = tmp.path().join("elsewhere");
        let copy = std::process::Command::new("cp")
            .arg("-a")
            .arg(&src)
            .arg(&dir)
            .status()
            .unwrap();
        assert!(copy.success());
        usage_as_walked(&dir);
        let part = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.join("partition.metadata").is_file())
            .unwrap();
        let log = fs::read_dir(&part)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|x| x == "log"))
            .unwrap();
        fs::create_dir_all(part.join("sub/deeper")).unwrap();
        fs::write(part.join("sub/deeper/f"), b"x").unwrap();
        usage_as_walked(&dir);
        fs::hard_link(&log, part.join("00000000000000099999.log.deleted")).unwrap();
        usage_as_walked(&dir);
        std::os::unix::fs::symlink(&log, part.join("link.log")).unwrap();
        std::os::unix::fs::symlink("/no/such/file", part.join("dangling")).unwrap();
        usage_as_walked(&dir);
        fs::create_dir_all(&out).unwrap();
        fs::write(out.join("00000000000000000000.log"), b"").unwrap();
        std::os::unix::fs::symlink(&out, dir.join("linked-0")).unwrap();
        std::os::unix::fs::symlink(&log, dir.join("root-link")).unwrap();
        fs::create_dir_all(dir.join("remote-log-index-cache/x")).unwrap();
        fs::write(dir.join("remote-log-index-cache/x/1.index"), [1u8; 5000]).unwrap();
        nix::unistd::mkfifo(&part.join("fifo"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        usage_as_walked(&dir);
        std::os::unix::fs::symlink("/no/such/dir", dir.join("dangling-root")).unwrap();
        usage_as_walked(&dir);
    }

    /// An index read for a shallow scan: a small one whole, with its length from the read
    /// (no `fstat`); a big one as slot 0 and its tail window, measured by `fstat`.
    #[test]
    fn an_index_tail_read_measures_the_file_and_keeps_slot_0_and_the_window() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("00000000000000000000.index");
        let unmeasured = || FileInfo {
            path: path.clone(),
            size: None,
            mtime_ms: None,
            usage: UsageStat::NotWanted,
        };
        // Within the head: one read, measured by it.
        let small: Vec<u8> = (0..=255u8).cycle().take(800).collect();
        fs::write(&path, &small).unwrap();
        let mut f = unmeasured();
        let IndexRead::Whole { bytes, len } = f.read_index_tail(1 << 20, 8, 8192).unwrap() else {
            panic!("a small index is read whole")
        };
        assert_eq!(
            (&bytes[..], len, f.size, f.mtime_ms),
            (&small[..], 800, Some(800), None)
        );
        // Over twice the window: slot 0, then the window's whole slots; measured by fstat.
        let big: Vec<u8> = (0..=255u8).cycle().take(100_000).collect();
        fs::write(&path, &big).unwrap();
        for mut f in [
            unmeasured(),
            FileInfo {
                size: Some(100_000),
                ..unmeasured()
            },
        ] {
            let IndexRead::Tail {
                bytes,
                gap_end,
                len,
            } = f.read_index_tail(1 << 20, 8, 8192).unwrap()
            else {
                panic!("a big index is read as its tail")
            };
            assert_eq!(
                (gap_end, len, f.size),
                (12_500 - 1024, 100_000, Some(100_000))
            );
            assert_eq!(&bytes[..8], &big[..8]);
            assert_eq!(&bytes[8..], &big[gap_end * 8..]);
        }
        // Refused over the cap, measured all the same.
        let mut f = unmeasured();
        let err = f.read_index_tail(50_000, 8, 8192).unwrap_err();
        assert!(TooLarge::of(&err).is_some(), "{err}");
        assert_eq!(f.size, Some(100_000));
    }

    /// The files a loader opens anyway are listed unmeasured (their dir entry says regular);
    /// opening one measures it as a stat would; leftovers and root files are stat'ed.
    #[test]
    fn files_a_loader_opens_are_listed_unmeasured_and_measured_on_open() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        fs::write(root.join("meta.properties"), "version=1\n").unwrap();
        let p = root.join("orders-0");
        fs::create_dir(&p).unwrap();
        for (name, body) in [
            ("00000000000000000000.log", &b"0123456789"[..]),
            ("00000000000000000000.index", b""),
            ("00000000000000000007.snapshot", b"snap"),
            ("00000000000000000000.log.deleted", b"gone"),
            ("partition.metadata", b"version: 0\n"),
        ] {
            fs::write(p.join(name), body).unwrap();
        }
        let l = list_log_dir(root).unwrap();
        assert_eq!(l.root.meta_properties.as_ref().unwrap().size, Some(10));
        let orders = &l.partitions[0].listing;
        let seg = &orders.segments[&0];
        assert_eq!(
            (
                seg.log.as_ref().unwrap().size,
                seg.index.as_ref().unwrap().size
            ),
            (None, None)
        );
        assert_eq!(orders.snapshots[&7].size, None);
        assert_eq!(orders.partition_metadata.as_ref().unwrap().size, None);
        assert_eq!(orders.leftovers[0].file.size, Some(4));
        let mut log = seg.log.clone().unwrap();
        let opened = log.open().unwrap();
        let stat = fs::metadata(&log.path).unwrap();
        assert_eq!((opened.len(), log.size), (10, Some(10)));
        assert_eq!(log.mtime_ms, Meta::of(&stat).mtime_ms);
        // A file that cannot be opened is still measured, by path.
        let mut gone = FileInfo {
            path: p.join("00000000000000000000.log.deleted").join("x"),
            size: None,
            mtime_ms: None,
            usage: UsageStat::NotWanted,
        };
        assert!(gone.open().is_err());
        assert_eq!(gone.size, None);
        // Listed larger than the cap: refused before it is opened.
        let mut big = seg.log.clone().unwrap();
        big.size = Some(11);
        assert_eq!(
            big.read_small(10).unwrap_err().kind(),
            io::ErrorKind::FileTooLarge
        );
        let mut fifo_like = seg.index.clone().unwrap();
        fs::remove_file(&fifo_like.path).unwrap();
        fs::create_dir(&fifo_like.path).unwrap();
        let err = fifo_like.read_small(1 << 20).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{err}");
        assert_eq!(
            fifo_like.size,
            Some(fs::metadata(&fifo_like.path).unwrap().len())
        );
    }

    #[test]
    fn groups_files_and_reports_the_unexpected() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        fs::write(root.join("meta.properties"), "version=1\n").unwrap();
        fs::write(root.join("recovery-point-offset-checkpoint.tmp"), "").unwrap();
        fs::write(root.join("notes.txt"), "").unwrap();
        let p = root.join("orders-0");
        fs::create_dir(&p).unwrap();
        fs::create_dir(root.join("lost+found")).unwrap();
        for f in [
            "00000000000000000000.log",
            "00000000000000000000.index",
            "00000000000000000000.timeindex",
            "00000000000000000042.log",
            "00000000000000000042.snapshot",
            "00000000000000000007.log.deleted",
            "partition.metadata",
            "leader-epoch-checkpoint",
            "core.1234",
        ] {
            fs::write(p.join(f), b"").unwrap();
        }
        let l = list_log_dir(root).unwrap();
        assert!(l.root.meta_properties.is_some());
        assert_eq!(l.leftovers.len(), 1);
        assert_eq!(l.unknown.len(), 1);
        assert_eq!(l.partitions.len(), 2);
        let bad = l.partitions.iter().find(|p| p.name.is_none()).unwrap();
        assert!(bad.listing.path.ends_with("lost+found"));
        let orders = l.partitions.iter().find(|p| p.name.is_some()).unwrap();
        let segs: Vec<_> = orders.listing.segments.keys().copied().collect();
        assert_eq!(segs, [0, 42]);
        assert!(orders.listing.segments[&0].time_index.is_some());
        assert!(orders.listing.segments[&42].index.is_none());
        assert_eq!(
            orders.listing.snapshots.keys().copied().collect::<Vec<_>>(),
            [42]
        );
        assert_eq!(
            orders.listing.leftovers[0].segment,
            Some((7, SegmentFileKind::Log))
        );
        assert_eq!(orders.listing.unknown.len(), 1);
    }

    #[test]
    fn links_followed_fifos_not_opened_problems_where_found() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("logs");
        let elsewhere = tmp.path().join("elsewhere-3");
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(&elsewhere).unwrap();
        fs::write(elsewhere.join("00000000000000000000.log"), b"").unwrap();
        symlink(&elsewhere, root.join("linked-3")).unwrap();
        let p = root.join("orders-0");
        fs::create_dir(&p).unwrap();
        fs::create_dir(p.join("subdir")).unwrap();
        fs::write(p.join("subdir").join("00000000000000000005.log"), b"").unwrap();
        symlink("/nonexistent/x", p.join("00000000000000000007.index")).unwrap();
        symlink("/nonexistent/y", root.join("replication-offset-checkpoint")).unwrap();
        fs::create_dir(root.join("remote-log-index-cache")).unwrap();
        fs::write(root.join("remote-log-index-cache").join("a.tmp"), b"").unwrap();
        symlink(".", root.join("self-0")).unwrap();
        symlink("junk", p.join("junk")).unwrap();
        for fifo in [
            root.join("recovery-point-offset-checkpoint"),
            p.join("00000000000000000000.log"),
        ] {
            let ok = std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap();
            assert!(ok.success());
        }
        let l = list_log_dir(&root).unwrap();
        let names: Vec<_> = l
            .partitions
            .iter()
            .map(|p| p.listing.path.file_name().unwrap().to_owned())
            .collect();
        assert_eq!(names, ["linked-3", "orders-0"]);
        // The symlinked partition dir is followed; its path stays the link's.
        let linked = &l.partitions[0].listing;
        assert_eq!(linked.path, root.join("linked-3"));
        assert!(linked.segments[&0].log.is_some());
        // A FIFO is an unknown entry, never a checkpoint or a segment.
        assert!(l.root.recovery_point.is_none());
        let orders = &l.partitions[1].listing;
        assert!(orders.segments.is_empty());
        let unknown: Vec<_> = orders.unknown.iter().map(|u| (&u.path, u.is_dir)).collect();
        assert_eq!(
            unknown,
            [
                (&p.join("00000000000000000000.log"), false),
                (&p.join("junk"), false),
                (&p.join("subdir"), true)
            ]
        );
        assert_eq!(
            l.unknown.iter().map(|u| &u.path).collect::<Vec<_>>(),
            [&root.join("recovery-point-offset-checkpoint")]
        );
        // Dangling links are read problems of the dir they are in; the link to an ancestor is
        // a problem of the root (walkdir's loop check).
        assert_eq!(orders.io_problems.len(), 1);
        assert_eq!(
            orders.io_problems[0].path,
            p.join("00000000000000000007.index")
        );
        let root_problems: Vec<_> = l.io_problems.iter().map(|p| &p.path).collect();
        assert_eq!(
            root_problems,
            [
                &root.join("replication-offset-checkpoint"),
                &root.join("self-0")
            ]
        );
        assert!(l.io_problems[0].message.contains("No such file"));
        // Root files read by name before the walk (the loader's checkpoints) agree with it.
        for name in [
            "recovery-point-offset-checkpoint",
            "replication-offset-checkpoint",
        ] {
            assert!(root_file(&root, name).is_none(), "{name}");
        }
        fs::write(root.join("cleaner-offset-checkpoint"), b"0\n0\n").unwrap();
        let by_name = root_file(&root, "cleaner-offset-checkpoint").unwrap();
        let listed = list_log_dir(&root).unwrap().root.cleaner_offset.unwrap();
        assert_eq!(by_name, listed);
        // The tiered-storage cache is skipped whole.
        assert!(l.leftovers.is_empty());
        // A file is not a log dir.
        assert!(list_log_dir(&p.join("00000000000000000000.log")).is_err());
        assert!(list_log_dir(&root.join("missing")).is_err());
        assert_eq!(
            list_partition_dir(&root.join("linked-3"))
                .unwrap()
                .segments
                .len(),
            1
        );
    }

    #[test]
    fn metadata_snapshot_names() {
        assert!(is_metadata_snapshot_name(
            "00000000000000000123-0000000001.checkpoint"
        ));
        assert!(!is_metadata_snapshot_name(
            "00000000000000000123.checkpoint"
        ));
    }

    #[test]
    fn log_dirs_below_a_parent_of_log_dirs() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let parent = fixtures.join("basic-delete");
        assert_eq!(
            log_dirs_below(&parent),
            [parent.join("logs-0"), parent.join("logs-1")]
        );
        assert!(log_dirs_below(&parent.join("logs-0")).is_empty());
        assert!(log_dirs_below(&parent.join("logs-0/orders-0")).is_empty());
        assert!(log_dirs_below(&fixtures.join("no-such-dir")).is_empty());
    }
}
