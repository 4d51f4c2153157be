//! The blocks a log dir holds on its filesystem, entry by entry: every file and dir below the
//! log dir with its allocated bytes (`st_blocks × 512`, what the filesystem charges for it:
//! a preallocated, mostly sparse index costs little) and its apparent length.
//!
//! The walk `lstat`s every entry (links are not followed, as `du` does not follow them), counts a
//! hard-linked inode once, and reads nothing but directory entries: it opens no file, so it is
//! safe on a live or read-only log dir. What cannot be listed or stat'ed is kept as a problem,
//! never skipped in silence. The sum of [`DirUsage::entries`] is what `du -B1 -s` reports for the
//! dir (the dirs' own blocks included).

use std::collections::HashSet;
use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::names::name_text;

/// Below the log dir, the broker's layout is two levels deep (`<partition dir>/<file>`); a
/// deeper tree is not the broker's, and it is walked only this far (what lies deeper is counted
/// as a problem, so that the sum is never silently short).
pub const MAX_DEPTH: usize = 8;

/// One entry below (or of) a log dir. In a facts snapshot it is one array,
/// `["<partition dir>/<file>", allocated, apparent, is_dir]` (a snapshot holds one per file).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(into = "EntryRow", from = "EntryRow")]
pub struct UsedEntry {
    /// Where it lies below the log dir.
    pub path: EntryPath,
    /// A directory (its own blocks: the entries' table).
    pub is_dir: bool,
    /// Allocated bytes (`st_blocks × 512`); 0 for the second and later names of a hard-linked
    /// inode.
    pub allocated: u64,
    /// Apparent length (`st_size`).
    pub apparent: u64,
}

/// Where an entry lies below a log dir: the top-level entry it lies in (a partition dir or a
/// root entry: one allocation shared by a dir's entries) and the rest of its path below that
/// (components joined by `/`, which no name holds): a million files' paths cost one small
/// allocation each, not a list of two copied names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EntryPath {
    /// `None`: the log dir itself.
    top: Option<Arc<str>>,
    /// Empty: the top-level entry itself.
    below: BelowName,
}

/// The bytes a [`BelowName`] holds in place: every name the broker gives a partition dir's
/// files fits (`00000000000000000000.timeindex` is 30).
const INLINE_NAME: usize = 30;

/// The path below the top-level entry: up to [`INLINE_NAME`] bytes in place (no allocation
/// for the name of nearly every file of a log dir: a million files, a million allocations
/// fewer), a longer one boxed. A name that fits is always in place, so the derived `==` is
/// the text's.
#[derive(Clone, PartialEq, Eq)]
enum BelowName {
    /// `len`: the length, with [`SLASHED`] set when the text holds a `/` (an entry deeper than
    /// a partition dir's files): depth and name are told without reading the text again.
    Inline {
        len: u8,
        bytes: [u8; INLINE_NAME],
    },
    Boxed(Box<str>),
}

/// The flag of an inline [`BelowName`]'s `len` byte: the text holds a `/`.
const SLASHED: u8 = 0x80;

impl BelowName {
    fn new(text: &str) -> BelowName {
        let mut bytes = [0u8; INLINE_NAME];
        match bytes.get_mut(..text.len()) {
            Some(slot) => {
                slot.copy_from_slice(text.as_bytes());
                let slashed = if text.contains('/') { SLASHED } else { 0 };
                BelowName::Inline {
                    len: text.len() as u8 | slashed,
                    bytes,
                }
            }
            None => BelowName::Boxed(text.into()),
        }
    }

    fn as_str(&self) -> &str {
        match self {
            // (Copied from a `&str` whole: always valid UTF-8.)
            BelowName::Inline { len, bytes } => bytes
                .get(..usize::from(*len & !SLASHED))
                .and_then(|b| std::str::from_utf8(b).ok())
                .unwrap_or_default(),
            BelowName::Boxed(text) => text,
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            BelowName::Inline { len, .. } => *len == 0,
            BelowName::Boxed(text) => text.is_empty(),
        }
    }

    /// Whether the text holds a `/`.
    fn has_slash(&self) -> bool {
        match self {
            BelowName::Inline { len, .. } => *len & SLASHED != 0,
            BelowName::Boxed(text) => text.contains('/'),
        }
    }
}

impl Default for BelowName {
    fn default() -> BelowName {
        BelowName::new("")
    }
}

impl std::fmt::Debug for BelowName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_str().fmt(f)
    }
}

impl std::fmt::Display for BelowName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_str().fmt(f)
    }
}

impl EntryPath {
    /// The top-level entry `name` itself.
    pub fn root(name: &str) -> EntryPath {
        EntryPath {
            top: Some(Arc::from(name)),
            below: BelowName::default(),
        }
    }

    /// The entry `name` in the top-level dir `top`.
    pub fn in_dir(top: &Arc<str>, name: &str) -> EntryPath {
        EntryPath {
            top: Some(Arc::clone(top)),
            below: BelowName::new(name),
        }
    }

    /// The entry `name` below this one.
    pub fn child(&self, name: &str) -> EntryPath {
        match (&self.top, self.below.is_empty()) {
            (None, _) => EntryPath::root(name),
            (Some(top), true) => EntryPath::in_dir(top, name),
            (Some(top), false) => EntryPath::in_dir(top, &format!("{}/{name}", self.below)),
        }
    }

    /// From its components joined by `/` (empty: the log dir).
    pub fn from_text(path: &str) -> EntryPath {
        match path.split_once('/') {
            _ if path.is_empty() => EntryPath::default(),
            Some((top, below)) => EntryPath::in_dir(&Arc::from(top), below),
            None => EntryPath::root(path),
        }
    }

    /// Its components joined by `/` (empty: the log dir).
    pub fn to_text(&self) -> String {
        match (&self.top, self.below.is_empty()) {
            (None, _) => String::new(),
            (Some(top), true) => top.to_string(),
            (Some(top), false) => format!("{top}/{}", self.below),
        }
    }

    /// The first component (the partition dir or root entry it lies in), `None` for the log
    /// dir.
    pub fn top(&self) -> Option<&str> {
        self.top.as_deref()
    }

    /// The last component (the entry's own name), `None` for the log dir.
    pub fn name(&self) -> Option<&str> {
        if self.below.is_empty() {
            return self.top();
        }
        let below = self.below.as_str();
        if !self.below.has_slash() {
            return Some(below);
        }
        match below.rsplit('/').next() {
            Some(last) if !last.is_empty() => Some(last),
            _ => self.top(),
        }
    }

    /// Components below the log dir: 0 for the log dir, 1 for a root entry, 2 for a file in a
    /// partition dir.
    pub fn depth(&self) -> usize {
        match (&self.top, self.below.is_empty()) {
            (None, _) => 0,
            (Some(_), true) => 1,
            (Some(_), false) if !self.below.has_slash() => 2,
            (Some(_), false) => 2 + self.below.as_str().matches('/').count(),
        }
    }
}

impl UsedEntry {
    /// The first component (the partition dir or root file it lies in), `None` for the log dir.
    pub fn top(&self) -> Option<&str> {
        self.path.top()
    }

    /// The last component (the file's own name), `None` for the log dir.
    pub fn name(&self) -> Option<&str> {
        self.path.name()
    }

    /// The entry at `path` of an inode with one name (`st.nlink` ≤ 1), which needs no walk's
    /// record of the inodes seen: what a partition's lister builds on its own thread.
    pub(crate) fn of_single(path: EntryPath, st: &EntryStat) -> Option<UsedEntry> {
        (st.nlink <= 1).then(|| entry(path, st, &mut HashSet::new()))
    }

    /// The entry at `path` of a file whose stat comes later (its figures 0 until then).
    pub(crate) fn waiting(path: EntryPath) -> UsedEntry {
        UsedEntry {
            path,
            is_dir: false,
            allocated: 0,
            apparent: 0,
        }
    }
}

/// [`UsedEntry`] as a facts snapshot holds it.
#[derive(serde::Serialize, serde::Deserialize)]
struct EntryRow(String, u64, u64, bool);

impl From<UsedEntry> for EntryRow {
    fn from(e: UsedEntry) -> EntryRow {
        EntryRow(e.path.to_text(), e.allocated, e.apparent, e.is_dir)
    }
}

impl From<EntryRow> for UsedEntry {
    fn from(EntryRow(path, allocated, apparent, is_dir): EntryRow) -> UsedEntry {
        UsedEntry {
            path: EntryPath::from_text(&path),
            is_dir,
            allocated,
            apparent,
        }
    }
}

/// An entry the walk could not list or stat.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct UsageProblem {
    /// The path.
    #[serde(with = "crate::model::names::path_serde")]
    pub path: PathBuf,
    /// The OS error, or why it was not walked.
    pub message: String,
}

/// Every entry of one log dir with its blocks.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DirUsage {
    /// The log dir.
    #[serde(with = "crate::model::names::path_serde")]
    pub path: PathBuf,
    /// Its entries, the log dir itself first, then in walk order (names sorted per dir).
    pub entries: Vec<UsedEntry>,
    /// What could not be walked.
    pub problems: Vec<UsageProblem>,
}

impl DirUsage {
    /// The usage of a log dir a facts snapshot does not hold: nothing known, said as a problem.
    pub fn not_carried(dir: &Path) -> DirUsage {
        DirUsage {
            path: dir.to_path_buf(),
            entries: Vec::new(),
            problems: vec![UsageProblem {
                path: dir.to_path_buf(),
                message: "not in the facts snapshot read".to_string(),
            }],
        }
    }

    /// Allocated bytes of every entry (the `du -B1 -s` of the dir).
    pub fn allocated(&self) -> u64 {
        self.entries.iter().map(|e| e.allocated).sum()
    }
}

/// A filesystem's free and total bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FsSpace {
    /// Bytes available to an unprivileged writer (`f_bavail × f_frsize`).
    pub free_bytes: u64,
    /// Size of the filesystem (`f_blocks × f_frsize`).
    pub total_bytes: u64,
}

/// `statvfs(2)` of the filesystem holding `path` (opens nothing, writes nothing); `None` when
/// it fails.
pub fn statvfs_space(path: &Path) -> Option<FsSpace> {
    let s = nix::sys::statvfs::statvfs(path).ok()?;
    let frsize = s.fragment_size();
    Some(FsSpace {
        free_bytes: s.blocks_available().saturating_mul(frsize),
        total_bytes: s.blocks().saturating_mul(frsize),
    })
}

/// Walk `dir` (see the module docs). A log dir that cannot be stat'ed gives an empty usage with
/// the problem.
pub fn walk_usage(dir: &Path) -> DirUsage {
    match UsageWalk::new(dir) {
        Ok(mut walk) => {
            if walk.root_is_dir {
                walk.walk_below(dir, &EntryPath::default());
            }
            walk.finish()
        }
        Err(e) => DirUsage {
            path: dir.to_path_buf(),
            entries: Vec::new(),
            problems: vec![UsageProblem {
                path: dir.to_path_buf(),
                message: e.to_string(),
            }],
        },
    }
}

/// What the walk keeps of an entry's `lstat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EntryStat {
    /// A directory.
    pub is_dir: bool,
    /// `st_blocks`.
    pub blocks: u64,
    /// `st_size`.
    pub len: u64,
    /// `st_dev`, `st_ino`, `st_nlink`.
    pub dev: u64,
    /// (See `dev`.)
    pub ino: u64,
    /// (See `dev`.)
    pub nlink: u64,
}

impl EntryStat {
    pub(crate) fn of_meta(meta: &fs::Metadata) -> Self {
        EntryStat {
            is_dir: meta.is_dir(),
            blocks: meta.blocks(),
            len: meta.len(),
            dev: meta.dev(),
            ino: meta.ino(),
            nlink: meta.nlink(),
        }
    }

    /// From an `fstatat(…, AT_SYMLINK_NOFOLLOW)` (an `lstat`).
    pub(crate) fn of_stat(st: &nix::sys::stat::FileStat) -> Self {
        EntryStat {
            is_dir: st.st_mode & nix::libc::S_IFMT == nix::libc::S_IFDIR,
            blocks: u64::try_from(st.st_blocks).unwrap_or(0),
            len: u64::try_from(st.st_size).unwrap_or(0),
            #[allow(clippy::useless_conversion)]
            dev: u64::from(st.st_dev),
            #[allow(clippy::useless_conversion)]
            ino: u64::from(st.st_ino),
            #[allow(clippy::useless_conversion)]
            nlink: u64::from(st.st_nlink),
        }
    }
}

/// The walk of [`walk_usage`], for a caller that lists the log dir itself and hands over the
/// entries it has `lstat`'ed (the listing, [`super::listing`]): the result is the same as
/// [`walk_usage`]'s when the entries come in its order (names sorted per dir, depth first).
#[derive(Debug)]
pub(crate) struct UsageWalk {
    usage: DirUsage,
    seen: HashSet<(u64, u64)>,
    /// Whether the log dir itself is a dir (by `lstat`).
    pub root_is_dir: bool,
}

impl UsageWalk {
    /// The walk of `dir`, its own entry taken; fails when `dir` cannot be stat'ed.
    pub(crate) fn new(dir: &Path) -> io::Result<Self> {
        let meta = fs::symlink_metadata(dir)?;
        let mut walk = UsageWalk {
            usage: DirUsage {
                path: dir.to_path_buf(),
                ..DirUsage::default()
            },
            seen: HashSet::new(),
            root_is_dir: meta.is_dir(),
        };
        walk.push(EntryPath::default(), &EntryStat::of_meta(&meta));
        Ok(walk)
    }

    /// An entry at `path` below the log dir, by its `lstat`.
    pub(crate) fn push(&mut self, path: EntryPath, st: &EntryStat) {
        let e = entry(path, st, &mut self.seen);
        self.usage.entries.push(e);
    }

    /// An entry stat'ed here by its path (`lstat`); what cannot be stat'ed is a problem.
    /// Whether it is a dir.
    pub(crate) fn push_path(&mut self, path: &Path, at: EntryPath) -> bool {
        match fs::symlink_metadata(path) {
            Ok(meta) => {
                let st = EntryStat::of_meta(&meta);
                self.push(at, &st);
                st.is_dir
            }
            Err(e) => {
                self.usage.problems.push(UsageProblem {
                    path: path.to_path_buf(),
                    message: e.to_string(),
                });
                false
            }
        }
    }

    /// Everything below the dir `dir` at `below`, walked here.
    pub(crate) fn walk_below(&mut self, dir: &Path, below: &EntryPath) {
        walk_children(dir, below, &mut self.usage, &mut self.seen);
    }

    /// Entries built elsewhere by [`UsedEntry::of_single`] (files with one name each), in
    /// walk order.
    pub(crate) fn extend(&mut self, entries: Vec<UsedEntry>) {
        self.usage.entries.extend(entries);
    }

    /// Room for `n` more entries (one growth instead of many copies of a large walk).
    pub(crate) fn reserve(&mut self, n: usize) {
        self.usage.entries.reserve(n);
    }

    /// Entries so far.
    pub(crate) fn len(&self) -> usize {
        self.usage.entries.len()
    }

    /// Drop the entries after the first `len` (none of them may have been a second name of an
    /// inode: see [`Self::push`]).
    pub(crate) fn truncate(&mut self, len: usize) {
        self.usage.entries.truncate(len);
    }

    /// The usage walked.
    pub(crate) fn finish(self) -> DirUsage {
        self.usage
    }
}

fn entry(path: EntryPath, st: &EntryStat, seen: &mut HashSet<(u64, u64)>) -> UsedEntry {
    // A second name of an inode costs nothing more (du counts an inode once).
    let first = st.nlink <= 1 || seen.insert((st.dev, st.ino));
    UsedEntry {
        path,
        is_dir: st.is_dir,
        allocated: if first {
            st.blocks.saturating_mul(512)
        } else {
            0
        },
        apparent: st.len,
    }
}

fn walk_children(
    dir: &Path,
    below: &EntryPath,
    usage: &mut DirUsage,
    seen: &mut HashSet<(u64, u64)>,
) {
    if below.depth() >= MAX_DEPTH {
        usage.problems.push(UsageProblem {
            path: dir.to_path_buf(),
            message: format!("deeper than {MAX_DEPTH} levels below the log dir: not walked"),
        });
        return;
    }
    let read = match fs::read_dir(dir) {
        Ok(r) => r,
        Err(e) => {
            usage.problems.push(UsageProblem {
                path: dir.to_path_buf(),
                message: e.to_string(),
            });
            return;
        }
    };
    let mut names = Vec::new();
    for item in read {
        match item {
            Ok(i) => names.push(i.file_name()),
            Err(e) => usage.problems.push(UsageProblem {
                path: dir.to_path_buf(),
                message: e.to_string(),
            }),
        }
    }
    names.sort();
    for name in names {
        let path = dir.join(&name);
        let at = below.child(&name_text(&name));
        match fs::symlink_metadata(&path) {
            Ok(meta) => {
                let st = EntryStat::of_meta(&meta);
                usage.entries.push(entry(at.clone(), &st, seen));
                if st.is_dir {
                    walk_children(&path, &at, usage, seen);
                }
            }
            Err(e) => usage.problems.push(UsageProblem {
                path,
                message: e.to_string(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_blocks_not_length_and_links_once() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("t-0");
        fs::create_dir(&p).unwrap();
        // A sparse file: a long length, no data blocks.
        let f = fs::File::create(p.join("00000000000000000000.index")).unwrap();
        f.set_len(10 * 1024 * 1024).unwrap();
        fs::write(p.join("00000000000000000000.log"), vec![1u8; 10_000]).unwrap();
        fs::hard_link(
            p.join("00000000000000000000.log"),
            tmp.path().join("link.log"),
        )
        .unwrap();
        let u = walk_usage(tmp.path());
        assert!(u.problems.is_empty(), "{:?}", u.problems);
        let idx = u
            .entries
            .iter()
            .find(|e| e.name() == Some("00000000000000000000.index"))
            .unwrap();
        assert_eq!(idx.apparent, 10 * 1024 * 1024);
        assert!(idx.allocated < 64 * 1024, "sparse: {}", idx.allocated);
        let logs: Vec<_> = u
            .entries
            .iter()
            .filter(|e| e.name().is_some_and(|n| n.ends_with(".log")))
            .collect();
        assert_eq!(logs.len(), 2);
        assert_eq!(
            logs.iter().filter(|e| e.allocated > 0).count(),
            1,
            "a hard link is counted once"
        );
        assert_eq!(u.entries[0].path.depth(), 0);
        assert_eq!(u.entries[1].top(), Some("link.log"));
    }

    /// Names up to 30 bytes are held in place, longer ones boxed; either way the path reads and
    /// compares as its text.
    #[test]
    fn entry_paths_read_as_their_text_whatever_their_length() {
        let short = "00000000000000000000.timeindex";
        let long = "00000000000000000000.timeindex.deleted";
        let deep = format!("{long}/a/{short}");
        let nested = format!("{short}/b");
        for (text, depth, name) in [
            (String::new(), 0, None),
            ("orders-0".to_string(), 1, Some("orders-0")),
            (format!("orders-0/{short}"), 2, Some(short)),
            (format!("orders-0/{long}"), 2, Some(long)),
            (format!("orders-0/{deep}"), 4, Some(short)),
            (format!("orders-0/{nested}"), 3, Some("b")),
            ("orders-0/é".to_string(), 2, Some("é")),
            // In place with a '/': told by the length byte's flag.
            ("orders-0/a/b".to_string(), 3, Some("b")),
            ("orders-0/a/".to_string(), 3, Some("orders-0")),
        ] {
            let p = EntryPath::from_text(&text);
            assert_eq!(p.to_text(), text);
            assert_eq!(p.depth(), depth, "{text}");
            assert_eq!(p.name(), name, "{text}");
            assert_eq!(p, EntryPath::from_text(&text));
            assert!(format!("{p:?}").contains(text.split_once('/').map_or("", |t| t.1)));
        }
        assert!(matches!(BelowName::new(short), BelowName::Inline { .. }));
        assert!(matches!(BelowName::new(long), BelowName::Boxed(_)));
        let top: Arc<str> = Arc::from("orders-0");
        let child = EntryPath::in_dir(&top, short).child("x");
        assert_eq!(child.to_text(), format!("orders-0/{short}/x"));
        assert_ne!(
            EntryPath::in_dir(&top, short),
            EntryPath::in_dir(&top, long)
        );
    }

    #[test]
    fn a_missing_dir_is_a_problem() {
        let u = walk_usage(Path::new("/no/such/log/dir"));
        assert!(u.entries.is_empty());
        assert_eq!(u.problems.len(), 1);
    }
}
