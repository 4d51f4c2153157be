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
use std::ffi::OsString;
use std::fs;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use nix::dir::Dir;
use nix::errno::Errno;
use nix::fcntl::{openat, AtFlags, OFlag};
use nix::sys::stat::{fstatat, Mode};
use rayon::prelude::*;

use super::names::name_text;

/// Below the log dir, the broker's layout is two levels deep (`<partition dir>/<file>`); a
/// deeper tree is not the broker's, and it is walked only this far (what lies deeper is counted
/// as a problem, so that the sum is never silently short).
pub const MAX_DEPTH: usize = 8;

/// One entry below (or of) a log dir.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsedEntry {
    /// Path components below the log dir (empty for the log dir itself), as text.
    pub components: Vec<String>,
    /// A directory (its own blocks: the entries' table).
    pub is_dir: bool,
    /// Allocated bytes (`st_blocks × 512`); 0 for the second and later names of a hard-linked
    /// inode.
    pub allocated: u64,
    /// Apparent length (`st_size`).
    pub apparent: u64,
}

impl UsedEntry {
    /// The first component (the partition dir or root file it lies in), `None` for the log dir.
    pub fn top(&self) -> Option<&str> {
        self.components.first().map(String::as_str)
    }

    /// The last component (the file's own name), `None` for the log dir.
    pub fn name(&self) -> Option<&str> {
        self.components.last().map(String::as_str)
    }
}

/// An entry the walk could not list or stat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageProblem {
    /// The path.
    pub path: PathBuf,
    /// The OS error, or why it was not walked.
    pub message: String,
}

/// Every entry of one log dir with its blocks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DirUsage {
    /// The log dir.
    pub path: PathBuf,
    /// Its entries, the log dir itself first, then in walk order (names sorted per dir).
    pub entries: Vec<UsedEntry>,
    /// What could not be walked.
    pub problems: Vec<UsageProblem>,
}

impl DirUsage {
    /// Allocated bytes of every entry (the `du -B1 -s` of the dir).
    pub fn allocated(&self) -> u64 {
        self.entries.iter().map(|e| e.allocated).sum()
    }
}

/// Walk `dir` (see the module docs). A log dir that cannot be stat'ed gives an empty usage with
/// the problem.
///
/// Each dir is opened once: that handle lists its entries and `fstatat`s each by its name (no
/// lookup of the whole path per file). The log dir's subtrees (its partition dirs) are walked in
/// parallel; entries and problems keep the order of a sequential walk (names sorted per dir),
/// and a hard-linked inode is charged to its first name in that order.
pub fn walk_usage(dir: &Path) -> DirUsage {
    let mut usage = DirUsage {
        path: dir.to_path_buf(),
        ..DirUsage::default()
    };
    let meta = match fs::symlink_metadata(dir) {
        Ok(meta) => meta,
        Err(e) => {
            usage.problems.push(UsageProblem {
                path: dir.to_path_buf(),
                message: e.to_string(),
            });
            return usage;
        }
    };
    let mut found = vec![Found {
        components: Vec::new(),
        is_dir: meta.is_dir(),
        stat: Stat::of_meta(&meta),
    }];
    if meta.is_dir() {
        match nix::fcntl::open(dir, DIR_FLAGS, Mode::empty()) {
            Ok(fd) => {
                let mut root = Walk::default();
                let listed = list_dir(&fd, dir, &mut root);
                usage.problems.append(&mut root.problems);
                // Each root entry with its subtree, on whichever thread is free; joined in order.
                let subtrees: Vec<Walk> = listed
                    .into_par_iter()
                    .map(|(name, stat)| {
                        let mut w = Walk::default();
                        visit(&fd, dir, &[], name, stat, &mut w);
                        w
                    })
                    .collect();
                for mut w in subtrees {
                    found.append(&mut w.found);
                    usage.problems.append(&mut w.problems);
                }
            }
            Err(e) => usage.problems.push(problem(dir, e)),
        }
    }
    // A second name of an inode costs nothing more (du counts an inode once).
    let mut seen = HashSet::new();
    usage.entries = found
        .into_iter()
        .map(|f| {
            let first = f.stat.nlink <= 1 || seen.insert((f.stat.dev, f.stat.ino));
            UsedEntry {
                components: f.components,
                is_dir: f.is_dir,
                allocated: if first { f.stat.allocated } else { 0 },
                apparent: f.stat.apparent,
            }
        })
        .collect();
    usage
}

/// How the walk opens a dir: to list it, and as the base of its entries' `fstatat`.
const DIR_FLAGS: OFlag = OFlag::O_RDONLY
    .union(OFlag::O_DIRECTORY)
    .union(OFlag::O_CLOEXEC);

/// What the walk keeps of an entry's `lstat`.
#[derive(Debug, Clone, Copy)]
struct Stat {
    dev: u64,
    ino: u64,
    nlink: u64,
    allocated: u64,
    apparent: u64,
    is_dir: bool,
}

impl Stat {
    fn of_meta(meta: &fs::Metadata) -> Self {
        Stat {
            dev: meta.dev(),
            ino: meta.ino(),
            nlink: meta.nlink(),
            allocated: meta.blocks().saturating_mul(512),
            apparent: meta.len(),
            is_dir: meta.is_dir(),
        }
    }

    fn of_stat(st: &nix::sys::stat::FileStat) -> Self {
        let u = |v: i64| u64::try_from(v).unwrap_or(0);
        Stat {
            dev: st.st_dev,
            ino: st.st_ino,
            nlink: st.st_nlink,
            allocated: u(st.st_blocks).saturating_mul(512),
            apparent: u(st.st_size),
            is_dir: st.st_mode & nix::libc::S_IFMT == nix::libc::S_IFDIR,
        }
    }
}

/// An entry found, before hard links are counted.
struct Found {
    components: Vec<String>,
    is_dir: bool,
    stat: Stat,
}

/// What (one thread's part of) the walk found, in walk order.
#[derive(Default)]
struct Walk {
    found: Vec<Found>,
    problems: Vec<UsageProblem>,
}

fn problem(path: &Path, e: Errno) -> UsageProblem {
    UsageProblem {
        path: path.to_path_buf(),
        message: std::io::Error::from(e).to_string(),
    }
}

/// The names in the dir `fd` (at `path`), sorted, each with its `lstat` through `fd` or the
/// error of it; a failure to list goes to `walk`.
fn list_dir(fd: &OwnedFd, path: &Path, walk: &mut Walk) -> Vec<(OsString, Result<Stat, Errno>)> {
    // `Dir` owns the handle it reads: it reads a duplicate, the stats go through `fd`.
    let listed = fd
        .try_clone()
        .map_err(|e| Errno::from_raw(e.raw_os_error().unwrap_or(nix::libc::EIO)))
        .and_then(Dir::from_fd);
    let mut names = Vec::new();
    match listed {
        Ok(mut d) => {
            for item in d.iter() {
                match item {
                    Ok(e) => {
                        let name = e.file_name().to_bytes();
                        if name != b"." && name != b".." {
                            names.push(OsString::from_vec(name.to_vec()));
                        }
                    }
                    Err(e) => walk.problems.push(problem(path, e)),
                }
            }
        }
        Err(e) => walk.problems.push(problem(path, e)),
    }
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let stat = fstatat(fd, name.as_os_str(), AtFlags::AT_SYMLINK_NOFOLLOW);
            (name, stat.map(|st| Stat::of_stat(&st)))
        })
        .collect()
}

/// The entry `name` of the dir `parent` (at `parent_path`, `below` the log dir), and below it
/// when it is a dir.
fn visit(
    parent: &OwnedFd,
    parent_path: &Path,
    below: &[String],
    name: OsString,
    stat: Result<Stat, Errno>,
    walk: &mut Walk,
) {
    let path = parent_path.join(&name);
    let stat = match stat {
        Ok(stat) => stat,
        Err(e) => {
            walk.problems.push(problem(&path, e));
            return;
        }
    };
    let mut components = below.to_vec();
    components.push(name_text(&name));
    walk.found.push(Found {
        components: components.clone(),
        is_dir: stat.is_dir,
        stat,
    });
    if !stat.is_dir {
        return;
    }
    if components.len() >= MAX_DEPTH {
        walk.problems.push(UsageProblem {
            path,
            message: format!("deeper than {MAX_DEPTH} levels below the log dir: not walked"),
        });
        return;
    }
    // Not following a link: the entry was a dir by its `lstat` (a swap for a link since then
    // fails here, and is reported).
    let fd = match openat(
        parent,
        name.as_os_str(),
        DIR_FLAGS | OFlag::O_NOFOLLOW,
        Mode::empty(),
    ) {
        Ok(fd) => fd,
        Err(e) => {
            walk.problems.push(problem(&path, e));
            return;
        }
    };
    for (child, stat) in list_dir(&fd, &path, walk) {
        visit(&fd, &path, &components, child, stat, walk);
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
        assert_eq!(u.entries[0].components, Vec::<String>::new());
        assert_eq!(u.entries[1].top(), Some("link.log"));
    }

    #[test]
    fn a_missing_dir_is_a_problem() {
        let u = walk_usage(Path::new("/no/such/log/dir"));
        assert!(u.entries.is_empty());
        assert_eq!(u.problems.len(), 1);
    }
}
