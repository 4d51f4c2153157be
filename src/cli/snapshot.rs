//! `logclean snapshot LOG_DIR... -o FILE`: load the log dirs as the read-only commands do,
//! read what a cluster view reads beside them, and write both as one facts snapshot
//! ([`crate::model::snapshot`], docs/snapshot.md); and reading snapshots back for `--snapshot`.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;

use crate::exit_codes::Outcome;
use crate::model::cluster::DirFacts;
use crate::model::names::path_text;
use crate::model::replays::Replays;
use crate::model::segment::{LoadOptions, ScanDepth};
use crate::model::snapshot::{
    BrokerIdentity, Parts, Snapshot, SnapshotInput, Snapshots, FORMAT_VERSION, LOAD_DESCRIPTION,
    LOAD_HEADERS,
};
use crate::model::targets::{self, ScanTotals};

use super::progress::Progress;
use super::run_config::RunConfig;

/// Arguments of `logclean snapshot`.
#[derive(Debug, Args)]
pub struct SnapshotArgs {
    /// The broker's log dirs (whole log dirs: not partition dirs or segment files).
    #[arg(required = true, value_name = "LOG_DIR")]
    pub paths: Vec<PathBuf>,
    /// The snapshot file to write (replaced if it exists; never inside a log dir read).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// How deep to read the data partitions: `tail` as `plan`, `diagnose`, `groups` and
    /// `transactions` read them (the snapshot those commands take), or every batch header as
    /// `inspect` reads them (the snapshot `inspect` takes; reading takes longer).
    #[arg(long, value_enum, default_value_t = SnapshotDepth::Tail)]
    pub depth: SnapshotDepth,
}

/// `snapshot --depth`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SnapshotDepth {
    /// Data partitions at their tail, the coordinators' topics at batch headers.
    Tail,
    /// Every partition's batch headers.
    Headers,
}

impl SnapshotDepth {
    /// The load options of this depth and how the snapshot names them.
    fn load(self) -> (LoadOptions, &'static str) {
        let mode = crate::model::file_bytes::ReadMode::Buffered;
        match self {
            SnapshotDepth::Tail => (
                LoadOptions::tail_with_internal_topics_at(ScanDepth::Headers, mode),
                LOAD_DESCRIPTION,
            ),
            SnapshotDepth::Headers => {
                (LoadOptions::uniform(ScanDepth::Headers, mode), LOAD_HEADERS)
            }
        }
    }
}

/// The `logclean` that writes snapshots, as the envelope names it.
fn logclean_version() -> String {
    format!(
        "logclean {} ({})",
        env!("CARGO_PKG_VERSION"),
        env!("LOGCLEAN_BUILD_COMMIT")
    )
}

/// Take a snapshot of `paths` at `taken_at_ms` loaded at `depth` (read(2) only: a snapshot may
/// be taken on a running broker's dirs).
pub fn take(
    paths: &[PathBuf],
    depth: SnapshotDepth,
    taken_at_ms: i64,
    progress: &Progress,
) -> anyhow::Result<Snapshot> {
    let (opts, load) = depth.load();
    let loaded = targets::load_targets(paths, &opts, progress)?;
    if let Some(n) = loaded.not_log_dirs.first() {
        let below: Vec<String> = n.log_dirs_below.iter().map(|d| path_text(d)).collect();
        anyhow::bail!(
            "`{}` is not a log dir but holds log dirs ({}): name them",
            path_text(&n.dir),
            below.join(", ")
        );
    }
    // Whole log dirs only: a snapshot of part of a dir would answer for the whole dir.
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let loaded_paths: Vec<PathBuf> = loaded.dirs.iter().map(|d| canonical(&d.path)).collect();
    if let Some(p) = paths.iter().find(|p| !loaded_paths.contains(&canonical(p))) {
        anyhow::bail!(
            "`{}` is not a log dir: a snapshot takes whole log dirs",
            path_text(p)
        );
    }
    let dir_facts = DirFacts::read(paths, None, opts.read_mode);
    let replays = Replays::take(
        &loaded.dirs,
        &dir_facts,
        opts.read_mode,
        &crate::rules::recovery::recovered_logs,
    );
    Ok(Snapshot {
        format_version: FORMAT_VERSION,
        logclean_version: logclean_version(),
        taken_at_ms,
        input: SnapshotInput {
            log_dirs: paths.to_vec(),
            load: load.to_string(),
            canonical_log_dirs: crate::diagnose::canonical_log_dirs(paths.to_vec()),
        },
        broker: BrokerIdentity::of(&dir_facts),
        dir_facts,
        dirs: loaded.dirs,
        replays,
    })
}

/// Write `snap` to `path`: a temporary file beside it, then renamed over it, so a reader never
/// sees half a snapshot.
fn write_file(snap: &Snapshot, path: &Path) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        name.unwrap_or_default(),
        std::process::id()
    ));
    let written = (|| -> anyhow::Result<()> {
        let file = std::fs::File::create(&tmp)?;
        let mut w = std::io::BufWriter::new(file);
        snap.write(&mut w)?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, path)?;
        Ok(())
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.with_context(|| format!("failed to write `{}`", path_text(path)))
}

/// Run `snapshot`: one line on stdout saying what was written.
pub fn run(args: &SnapshotArgs, run: &RunConfig, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    // Read-only on the log dirs: the file goes anywhere but inside one of them.
    let out_abs = std::path::absolute(&args.output).unwrap_or_else(|_| args.output.clone());
    for d in &args.paths {
        let d = std::path::absolute(d).unwrap_or_else(|_| d.clone());
        if out_abs.starts_with(&d) {
            anyhow::bail!(
                "refusing to write the snapshot inside log dir `{}`: logclean writes nothing in a \
                 log dir it reads",
                path_text(&d)
            );
        }
    }
    let progress = Progress::new(run.output.progress, "reading partitions");
    let snap = take(&args.paths, args.depth, run.generated_at.get(), &progress)?;
    write_file(&snap, &args.output)?;
    let totals = ScanTotals::of(&snap.dirs);
    let bytes = std::fs::metadata(&args.output)
        .map(|m| m.len())
        .unwrap_or(0);
    writeln!(
        out,
        "{}",
        crate::report::sanitize::escape(&format!(
            "wrote {} ({bytes} bytes, format {FORMAT_VERSION}): {} log dirs, {} partitions, {} \
             segments",
            path_text(&args.output),
            totals.log_dirs,
            totals.partitions,
            totals.segments
        ))
    )?;
    Ok(Outcome::Clean)
}

/// Read the snapshots of `--snapshot` (in order, keeping `parts` of each) and join them, or say
/// which one cannot be read and why.
pub fn read_snapshots(files: &[PathBuf], parts: Parts) -> anyhow::Result<Snapshots> {
    let mut snaps = Vec::new();
    for f in files {
        let file = std::fs::File::open(f)
            .with_context(|| format!("failed to open snapshot `{}`", path_text(f)))?;
        let snap = Snapshot::read_parts(std::io::BufReader::new(file), parts)
            .with_context(|| format!("failed to read snapshot `{}`", path_text(f)))?;
        snaps.push((f.clone(), snap));
    }
    Ok(Snapshots::join(snaps))
}

/// The refusal of a mutating command given a snapshot: it changes log dirs, which a snapshot
/// only describes.
pub const MUTATION_REFUSED: &str =
    "a facts snapshot describes log dirs; it cannot be changed: run this command on the broker's \
     log dirs themselves";
