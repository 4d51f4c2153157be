//! Findings of `inspect`: what is unreadable, corrupt, left over or unexpected in a log dir,
//! judged by what the broker does with it (spec formats §1.4, §3.7–3.9, §4.4, §5).

use std::path::Path;

use crate::formats::walk::WalkEnd;
use crate::model::listing::IoProblem;
use crate::model::log_dir::{partitions_by_name, LogDir, OffsetCheckpoint};
use crate::model::names::{LeftoverKind, PartitionDirState};
use crate::model::partition::Partition;
use crate::model::problem::FileProblem;
use crate::model::segment::{IndexLogMismatch, IndexShape, ScanDepth, Segment};

use super::finding::{Finding, FindingClass, Location, Severity};

/// Everything `inspect` can say about loaded log dirs, sorted by location.
pub fn inspect_findings(dirs: &[LogDir], depth: ScanDepth) -> Vec<Finding> {
    let mut out = Vec::new();
    for dir in dirs {
        log_dir_findings(dir, &mut out);
        for p in &dir.partitions {
            partition_findings(dir, p, depth, &mut out);
        }
    }
    duplicate_partition_findings(dirs, &mut out);
    out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    out
}

/// The same live partition in two log dirs of one run: the broker refuses to start
/// ("Duplicate log directories", `LogManager.loadLog`).
fn duplicate_partition_findings(dirs: &[LogDir], out: &mut Vec<Finding>) {
    for ((topic, partition), copies) in partitions_by_name(dirs) {
        let live: Vec<_> = copies
            .iter()
            .filter(|(_, p)| {
                p.name
                    .as_ref()
                    .is_some_and(|n| n.state == PartitionDirState::Live)
            })
            .collect();
        if let [(first_dir, first), rest @ ..] = live.as_slice() {
            if rest.is_empty() {
                continue;
            }
            let mut f = Finding::new(
                "partition.duplicate",
                Severity::Error,
                FindingClass::Condition,
                at_partition(first_dir, first),
                format!(
                    "{topic}-{partition} is live in {} log dirs: the broker refuses to start",
                    live.len()
                ),
            );
            for (d, _) in &live {
                f = f.evidence(format!("in: {}", d.path.display()));
            }
            out.push(f.fix(
                "keep the copy with the higher log end offset; move the other out of the log dir",
            ));
        }
    }
}

fn at_dir(dir: &LogDir) -> Location {
    Location {
        log_dir: dir.path.clone(),
        ..Default::default()
    }
}

fn at_partition(dir: &LogDir, p: &Partition) -> Location {
    Location {
        partition: Some(p.dir_name.clone()),
        ..at_dir(dir)
    }
}

fn at_file(dir: &LogDir, p: &Partition, file: &Path, byte: Option<u64>) -> Location {
    Location {
        file: Some(file.to_path_buf()),
        byte_offset: byte,
        ..at_partition(dir, p)
    }
}

/// A finding for a file that could not be used.
fn problem_finding(loc: Location, what: &str, problem: &FileProblem, fix: &str) -> Finding {
    match problem {
        FileProblem::Io { path, message } => Finding::new(
            "file.unreadable",
            Severity::Error,
            FindingClass::Io,
            Location {
                file: Some(path.clone()),
                ..loc
            },
            format!("cannot read {what}: {message}"),
        )
        .fix("check permissions and the disk; the broker fails this log dir on the same error"),
        FileProblem::Format { path, error } => {
            let f = Finding::new(
                "file.corrupt",
                Severity::Error,
                FindingClass::Corruption,
                Location {
                    file: Some(path.clone()),
                    byte_offset: Some(error.offset),
                    ..loc
                },
                format!("{what} is corrupt: {}", error.kind),
            );
            if fix.is_empty() {
                f
            } else {
                f.fix(fix)
            }
        }
    }
}

/// Entries that could not be read: an operational error, never a corruption finding.
fn io_findings(problems: &[IoProblem], loc: &Location, out: &mut Vec<Finding>) {
    for io in problems {
        out.push(
            Finding::new(
                "file.unreadable",
                Severity::Error,
                FindingClass::Io,
                Location {
                    file: Some(io.path.clone()),
                    ..loc.clone()
                },
                format!("cannot read: {}", io.message),
            )
            .fix("check permissions and the disk; the broker fails this log dir on the same error"),
        );
    }
}

fn log_dir_findings(dir: &LogDir, out: &mut Vec<Finding>) {
    io_findings(&dir.listing.io_problems, &at_dir(dir), out);
    match &dir.meta {
        None => out.push(
            Finding::new(
                "dir.no_meta_properties",
                Severity::Warning,
                FindingClass::Condition,
                at_dir(dir),
                "no meta.properties: this is not a formatted Kafka log dir",
            )
            .fix("point logclean at a log dir named in log.dirs; a KRaft broker refuses to start on an unformatted dir"),
        ),
        Some(Err(p)) => out.push(problem_finding(
            at_dir(dir),
            "meta.properties",
            p,
            "restore meta.properties from another log dir of the same broker (same cluster.id and node.id, its own directory.id)",
        )),
        Some(Ok(_)) => {}
    }
    match &dir.clean_shutdown {
        None if dir.meta.is_some() => out.push(
            Finding::new(
                "dir.unclean_shutdown",
                Severity::Info,
                FindingClass::Condition,
                at_dir(dir),
                "no .kafka_cleanshutdown marker: the broker did not shut down cleanly (or is running); \
                 on start it recovers each partition from the segment holding its recovery point on",
            )
            .evidence(format!("lock file present: {}", dir.listing.root.lock.is_some())),
        ),
        Some(Err(p)) => out.push(
            problem_finding(at_dir(dir), ".kafka_cleanshutdown", p, "harmless: only the file's existence matters")
                .with_severity(Severity::Info),
        ),
        _ => {}
    }
    for (name, ckpt) in [
        (
            "recovery-point-offset-checkpoint",
            &dir.checkpoints.recovery_point,
        ),
        (
            "log-start-offset-checkpoint",
            &dir.checkpoints.log_start_offset,
        ),
        (
            "replication-offset-checkpoint",
            &dir.checkpoints.replication_offset,
        ),
        ("cleaner-offset-checkpoint", &dir.checkpoints.cleaner_offset),
    ] {
        if let Some(Err(p)) = ckpt as &Option<OffsetCheckpoint> {
            out.push(problem_finding(
                at_dir(dir),
                name,
                p,
                "the broker marks the whole log dir offline on an unreadable checkpoint: \
                 rewrite the file or remove it (an absent checkpoint means full recovery / offset 0)",
            ));
        }
    }
    for l in &dir.listing.leftovers {
        out.push(
            Finding::new(
                "dir.leftover_tmp",
                Severity::Warning,
                FindingClass::Condition,
                Location {
                    file: Some(l.file.path.clone()),
                    ..at_dir(dir)
                },
                "temporary file of an interrupted atomic write",
            )
            .evidence(format!("size: {} bytes", l.file.size))
            .fix(
                "remove it while the broker is stopped; the real file beside it is the one in use",
            ),
        );
    }
    for u in &dir.listing.unknown {
        out.push(
            Finding::new(
                "dir.unknown_file",
                Severity::Warning,
                FindingClass::Condition,
                Location {
                    file: Some(u.path.clone()),
                    ..at_dir(dir)
                },
                "file the broker does not write in a log dir root",
            )
            .fix("move it out of the log dir"),
        );
    }
}

fn partition_findings(dir: &LogDir, p: &Partition, depth: ScanDepth, out: &mut Vec<Finding>) {
    let Some(name) = &p.name else {
        out.push(
            Finding::new(
                "partition.bad_dir_name",
                Severity::Error,
                FindingClass::Condition,
                at_partition(dir, p),
                "directory name is not <topic>-<partition>: the broker fails to start on this log dir",
            )
            .fix("move the directory out of the log dir"),
        );
        return;
    };
    let loc = at_partition(dir, p);
    match &name.state {
        PartitionDirState::Live => {}
        PartitionDirState::Delete(_) => out.push(
            Finding::new(
                "partition.pending_delete",
                Severity::Info,
                FindingClass::Condition,
                loc.clone(),
                "partition dir marked for deletion; the broker removes it file.delete.delay.ms after start",
            )
            .evidence(format!("size: {} bytes", p.size())),
        ),
        PartitionDirState::Future(_) => out.push(Finding::new(
            "partition.future_replica",
            Severity::Info,
            FindingClass::Condition,
            loc.clone(),
            "target of an unfinished alter-log-dirs move",
        )),
        PartitionDirState::Stray(_) => out.push(
            Finding::new(
                "partition.stray",
                Severity::Warning,
                FindingClass::Condition,
                loc.clone(),
                "stray replica set aside by the broker; it is never deleted automatically",
            )
            .evidence(format!("size: {} bytes", p.size()))
            .fix("once you are sure no data is needed from it, delete the dir with the broker stopped"),
        ),
    }
    io_findings(&p.listing.io_problems, &loc, out);
    match &p.metadata {
        None if name.state == PartitionDirState::Live => out.push(
            Finding::new(
                "partition.no_topic_id",
                Severity::Warning,
                FindingClass::Condition,
                loc.clone(),
                "no partition.metadata: a KRaft broker treats a log without topic id as stray and sets it aside",
            )
            .fix("restore partition.metadata (version: 0, topic_id from the metadata log) before starting the broker"),
        ),
        Some(Err(e)) => out.push(problem_finding(
            loc.clone(),
            "partition.metadata",
            e,
            "rewrite it with the topic id from the metadata log",
        )),
        _ => {}
    }
    if let Some(Err(e)) = &p.leader_epochs {
        out.push(problem_finding(
            loc.clone(),
            "leader-epoch-checkpoint",
            e,
            "remove it with the broker stopped; the broker rebuilds epochs from the batches on recovery",
        ));
    }
    for l in &p.listing.leftovers {
        let (code, severity, message, fix) = match l.kind {
            Some(LeftoverKind::Deleted) => (
                "partition.leftover_deleted",
                Severity::Info,
                "file scheduled for deletion; the broker deletes it on start",
                None,
            ),
            Some(LeftoverKind::Cleaned) | Some(LeftoverKind::Swap) => (
                "partition.leftover_swap",
                Severity::Warning,
                "output of an interrupted compaction or segment split; the broker resolves it on start (spec §1.4)",
                Some("start the broker to let it finish or roll back the swap; do not rename these by hand"),
            ),
            None => (
                "partition.leftover_tmp",
                Severity::Warning,
                "temporary file of an interrupted atomic write",
                Some("remove it while the broker is stopped"),
            ),
        };
        let mut f = Finding::new(
            code,
            severity,
            FindingClass::Condition,
            at_file(dir, p, &l.file.path, None),
            message,
        )
        .evidence(format!("size: {} bytes", l.file.size));
        if let Some(fix) = fix {
            f = f.fix(fix);
        }
        out.push(f);
    }
    for u in &p.listing.unknown {
        out.push(
            Finding::new(
                "partition.unknown_file",
                Severity::Warning,
                FindingClass::Condition,
                Location {
                    file: Some(u.path.clone()),
                    ..loc.clone()
                },
                if u.is_dir {
                    "directory inside a partition dir"
                } else {
                    "file the broker does not write here"
                },
            )
            .fix("move it out of the log dir"),
        );
    }
    for s in &p.snapshots {
        match &s.parsed {
            Err(e) => out.push(problem_finding(
                loc.clone(),
                "producer snapshot",
                e,
                "none needed: the broker deletes it and rebuilds producer state from an older snapshot or the log",
            )),
            Ok(snap) if !snap.crc_ok() => out.push(
                Finding::new(
                    "snapshot.crc_mismatch",
                    Severity::Warning,
                    FindingClass::Corruption,
                    at_file(dir, p, &s.file.path, Some(2)),
                    "producer snapshot fails its CRC-32C; the broker deletes it and rebuilds producer state",
                )
                .evidence(format!("stored: 0x{:08x}, computed: 0x{:08x}", snap.stored_crc, snap.computed_crc)),
            ),
            Ok(_) => {}
        }
    }
    let mut prev_next: Option<i64> = None;
    for seg in &p.segments {
        segment_findings(dir, p, seg, depth, &mut prev_next, out);
    }
    if let (Some(start), Some(leo)) = (p.checkpoints.log_start_offset, p.log_end_offset()) {
        if start > leo {
            out.push(
                Finding::new(
                    "partition.log_start_beyond_end",
                    Severity::Error,
                    FindingClass::Condition,
                    loc.clone(),
                    "checkpointed log start offset is past the log end: on start the broker deletes \
                     every segment of this partition",
                )
                .evidence(format!("log-start-offset-checkpoint: {start}"))
                .evidence(format!("log end offset: {leo}"))
                .fix("correct the partition's line in log-start-offset-checkpoint with the broker stopped"),
            );
        }
    }
    if let (Some(hw), Some(leo)) = (p.checkpoints.high_watermark, p.log_end_offset()) {
        if hw > leo {
            out.push(
                Finding::new(
                    "partition.hw_beyond_log_end",
                    Severity::Warning,
                    FindingClass::Condition,
                    loc.clone(),
                    "checkpointed high watermark is past the end of the log: acknowledged data is missing",
                )
                .evidence(format!("high watermark: {hw}"))
                .evidence(format!("log end offset: {leo}")),
            );
        }
    }
}

fn segment_findings(
    dir: &LogDir,
    p: &Partition,
    seg: &Segment,
    depth: ScanDepth,
    prev_next: &mut Option<i64>,
    out: &mut Vec<Finding>,
) {
    let files = &seg.files;
    let Some(log_file) = &files.log else {
        let any = [&files.index, &files.time_index, &files.txn_index]
            .into_iter()
            .flatten()
            .next();
        if let Some(f) = any {
            out.push(Finding::new(
                "segment.orphan_index",
                Severity::Info,
                FindingClass::Condition,
                at_file(dir, p, &f.path, None),
                "index file without its .log; the broker deletes it on start",
            ));
        }
        return;
    };
    let recovered = seg.recovered_on_start;
    match &seg.log {
        Some(Err(e)) => out.push(problem_finding(at_partition(dir, p), "segment log", e, "")),
        Some(Ok(log)) => {
            let path = &log_file.path;
            if log.size > i32::MAX as u64 {
                out.push(
                    Finding::new(
                        "log.too_large",
                        Severity::Error,
                        FindingClass::Condition,
                        at_file(dir, p, path, None),
                        "segment is larger than 2 GiB: the broker cannot open it (FileRecords)",
                    )
                    .evidence(format!("size: {} bytes", log.size)),
                );
            }
            if let Some(e) = &log.walk_error {
                out.push(
                    Finding::new(
                        "log.corrupt_batch",
                        Severity::Error,
                        FindingClass::Corruption,
                        at_file(dir, p, path, Some(log.valid_end)),
                        format!("corrupt batch: {}", e.kind),
                    )
                    .evidence(format!("bad field at byte {}", e.offset))
                    .evidence(format!("unverifiable from here: {} bytes", log.size.saturating_sub(log.valid_end)))
                    .fix(if recovered {
                        format!(
                            "the broker's recovery on the next start truncates this segment to {} bytes and \
                             deletes later segments; copy the partition aside first if that data matters",
                            log.valid_end
                        )
                    } else {
                        "the broker will not recover this segment (clean shutdown, below the recovery point): \
                         reads stop at this batch; restore it from a replica, or remove .kafka_cleanshutdown to \
                         make the broker recover (and truncate) it"
                            .to_string()
                    }),
                );
            }
            let tail = match &log.end {
                Some(WalkEnd::PartialBatch {
                    position,
                    declared_size,
                    available,
                }) => Some((
                    "log.truncated_tail",
                    *position,
                    "incomplete batch at the end of the segment",
                    format!("declared: {declared_size} bytes, present: {available} bytes"),
                )),
                Some(WalkEnd::ZeroFilled { position, len }) => Some((
                    "log.zero_filled_tail",
                    *position,
                    "zero-filled tail at the end of the segment (preallocation or a crash)",
                    format!("zero bytes: {len}"),
                )),
                _ => None,
            };
            if let Some((code, position, what, evidence)) = tail {
                // Recovery cuts such a tail; without recovery the broker appends after it (or reads
                // into it), which turns it into corruption in the middle of the log.
                let (severity, class, fix) = if recovered {
                    (
                        Severity::Warning,
                        FindingClass::Condition,
                        format!("none needed: the broker's recovery truncates the segment to {position} bytes on the next start"),
                    )
                } else {
                    (
                        Severity::Error,
                        FindingClass::Corruption,
                        format!(
                            "the broker will not recover this segment: truncate it to {position} bytes with the \
                             broker stopped, or remove .kafka_cleanshutdown so its recovery does"
                        ),
                    )
                };
                out.push(
                    Finding::new(
                        code,
                        severity,
                        class,
                        at_file(dir, p, path, Some(position)),
                        what,
                    )
                    .evidence(evidence)
                    .fix(fix),
                );
            }
            if let Some(e) = &log.verify_error {
                if log.walk_error.as_ref() != Some(e) {
                    out.push(
                        Finding::new(
                            "log.verify_failed",
                            Severity::Error,
                            FindingClass::Corruption,
                            at_file(dir, p, path, Some(e.offset)),
                            format!("batch fails verification: {}", e.kind),
                        )
                        .evidence(format!(
                            "batches verified before it: {}",
                            log.verified_batches.unwrap_or(0)
                        ))
                        .fix("the broker's recovery stops at the first bad batch and truncates there"),
                    );
                }
            }
            if let Some(first) = log.first_batch {
                if first.base_offset < seg.base_offset {
                    out.push(
                        Finding::new(
                            "log.offset_below_base",
                            Severity::Error,
                            FindingClass::Corruption,
                            at_file(dir, p, path, Some(first.position)),
                            "first batch starts below the segment's base offset",
                        )
                        .evidence(format!(
                            "segment base: {}, batch base: {}",
                            seg.base_offset, first.base_offset
                        )),
                    );
                }
            }
            if let Some(prev) = *prev_next {
                if log.first_batch.is_some() && seg.base_offset < prev {
                    out.push(
                        Finding::new(
                            "log.overlapping_segments",
                            Severity::Error,
                            FindingClass::Corruption,
                            at_file(dir, p, path, None),
                            "segment starts before the previous segment ends",
                        )
                        .evidence(format!(
                            "previous next offset: {prev}, base offset: {}",
                            seg.base_offset
                        )),
                    );
                }
            }
            *prev_next = Some(log.next_offset);
        }
        None => {}
    }
    index_findings(dir, p, seg, out);
    time_index_findings(dir, p, seg, depth, out);
    if let Some(t) = &seg.txn_index {
        match t {
            Err(e) => out.push(problem_finding(
                at_partition(dir, p),
                "transaction index",
                e,
                "",
            )),
            Ok(t) if !t.problems.is_empty() => {
                let mut f = Finding::new(
                    "txnindex.corrupt",
                    Severity::Error,
                    FindingClass::Corruption,
                    at_file(dir, p, &seg.files.txn_index.as_ref().map(|f| f.path.clone()).unwrap_or_default(), t.problems.first().map(|p| p.offset())),
                    "transaction index fails Kafka's checks; the broker recovers the segment on start",
                );
                for pr in &t.problems {
                    f = f.evidence(format!("{pr:?}"));
                }
                out.push(f);
            }
            Ok(_) => {}
        }
    }
}

/// Whether a zero-filled index tail is what the broker normally leaves or repairs itself: a
/// segment it recovers on the next start (its indexes are rebuilt), the metadata log's active
/// segment (the Raft layer leaves its indexes preallocated even on a clean shutdown), or any
/// segment of a `-delete` dir (renamed while active, never loaded again). Seen with Kafka 4.4.
fn zero_tail_expected(p: &Partition, seg: &Segment) -> bool {
    let set_aside = p
        .name
        .as_ref()
        .is_some_and(|n| matches!(n.state, PartitionDirState::Delete(_)));
    let metadata_log = p.name.as_ref().is_some_and(|n| n.is_metadata_log());
    set_aside || seg.recovered_on_start || (seg.active && metadata_log)
}

/// What differs between the offset index and the time index in their findings.
struct IndexKind {
    name: &'static str,
    entry_size: u64,
    missing: &'static str,
    sanity_failed: &'static str,
    zero_tail: &'static str,
    bad_entries: &'static str,
    zero_tail_effect: &'static str,
    fix: &'static str,
}

const OFFSET_INDEX: IndexKind = IndexKind {
    name: "offset index",
    entry_size: 8,
    missing: "index.missing",
    sanity_failed: "index.sanity_failed",
    zero_tail: "index.zero_tail",
    bad_entries: "index.bad_entries",
    zero_tail_effect: "Kafka counts those slots as entries: the index reads as full, which forces a roll on \
                       the next append, and lookups scan the log from further back",
    fix: "delete the .index with the broker stopped: the broker then recovers the segment and rebuilds it",
};

const TIME_INDEX: IndexKind = IndexKind {
    name: "time index",
    entry_size: 12,
    missing: "timeindex.missing",
    sanity_failed: "timeindex.sanity_failed",
    zero_tail: "timeindex.zero_tail",
    bad_entries: "timeindex.bad_entries",
    zero_tail_effect: "Kafka reads its last slot, so it sees a largest timestamp of 0",
    fix: "rebuild the time index with the broker stopped (or delete the .index too, so the broker \
          recovers the segment and rebuilds both)",
};

fn path_of(f: &Option<crate::model::listing::FileInfo>) -> std::path::PathBuf {
    f.as_ref().map(|f| f.path.clone()).unwrap_or_default()
}

/// Findings every index shares: Kafka's sanity check, a zero tail where Kafka would read it, and
/// entries out of order. `expected_zero_tail`: the broker itself leaves this tail (see
/// [`zero_tail_expected`]); its sanity failure is then expected too.
fn index_shape_findings(
    kind: &IndexKind,
    shape: &IndexShape,
    loc: &Location,
    active: bool,
    expected_zero_tail: bool,
    out: &mut Vec<Finding>,
) {
    let at = |slot: usize| Location {
        byte_offset: Some(slot as u64 * kind.entry_size),
        ..loc.clone()
    };
    if let Some(first) = shape
        .sanity
        .first()
        .filter(|_| !(expected_zero_tail && shape.zero_tail > 0))
    {
        let mut f = Finding::new(
            kind.sanity_failed,
            Severity::Error,
            FindingClass::Corruption,
            Location {
                byte_offset: Some(first.offset()),
                ..loc.clone()
            },
            format!(
                "{} fails Kafka's sanity check (the broker skips it at load, but tiered storage and \
                 DumpLogSegments reject the file)",
                kind.name
            ),
        );
        for s in &shape.sanity {
            f = f.evidence(format!("{s:?}"));
        }
        out.push(f.fix(kind.fix));
    }
    if shape.zero_tail > 0 && !expected_zero_tail {
        let mut f = Finding::new(
            kind.zero_tail,
            if active {
                Severity::Warning
            } else {
                Severity::Error
            },
            FindingClass::Corruption,
            at(shape.slots - shape.zero_tail),
            format!(
                "{} has a zero-filled tail; {}",
                kind.name, kind.zero_tail_effect
            ),
        )
        .evidence(format!(
            "slots: {}, valid: {}, zero: {}",
            shape.slots, shape.valid_entries, shape.zero_tail
        ));
        if !active && kind.entry_size == 12 {
            f = f.evidence("time retention will treat this segment as expired at once");
        }
        out.push(f.fix(kind.fix));
    }
    if shape.garbage > 0 || !shape.entry_problems.is_empty() {
        let mut f = Finding::new(
            kind.bad_entries,
            Severity::Error,
            FindingClass::Corruption,
            at(shape.valid_entries),
            format!("{} holds entries that break its ordering", kind.name),
        )
        .evidence(format!(
            "slots: {}, valid prefix: {}, garbage: {}",
            shape.slots, shape.valid_entries, shape.garbage
        ));
        for e in &shape.entry_problems {
            f = f.evidence(format!("{e:?}"));
        }
        out.push(f.fix(kind.fix));
    }
}

/// A finding for a missing index file.
fn missing_index(kind: &IndexKind, loc: Location, why: &str, fix: &str) -> Finding {
    Finding::new(
        kind.missing,
        Severity::Warning,
        FindingClass::Condition,
        loc,
        why,
    )
    .fix(fix)
}

fn index_findings(dir: &LogDir, p: &Partition, seg: &Segment, out: &mut Vec<Finding>) {
    let log_path = path_of(&seg.files.log);
    let ix = match &seg.index {
        None => {
            out.push(missing_index(
                &OFFSET_INDEX,
                at_file(dir, p, &log_path, None),
                "no .index: the broker recovers (re-reads and re-indexes) this segment on start",
                "none needed; the broker rebuilds it at the cost of reading the segment",
            ));
            return;
        }
        Some(Err(e)) => {
            out.push(problem_finding(
                at_partition(dir, p),
                OFFSET_INDEX.name,
                e,
                OFFSET_INDEX.fix,
            ));
            return;
        }
        Some(Ok(ix)) => ix,
    };
    let path = path_of(&seg.files.index);
    let loc = at_file(dir, p, &path, None);
    index_shape_findings(
        &OFFSET_INDEX,
        &ix.shape,
        &loc,
        seg.active,
        zero_tail_expected(p, seg),
        out,
    );
    for m in &ix.log_mismatches {
        let (slot, entry, what) = match m {
            IndexLogMismatch::PositionPastLog {
                slot,
                entry,
                log_valid_end,
            } => (
                slot,
                entry,
                format!("points past the end of the log data ({log_valid_end} bytes)"),
            ),
            IndexLogMismatch::NotABatchStart { slot, entry } => (
                slot,
                entry,
                "does not point at the start of a batch".to_string(),
            ),
            IndexLogMismatch::OffsetDisagrees {
                slot,
                entry,
                batch_last_offset,
            } => (
                slot,
                entry,
                format!(
                    "names an offset the log does not put there (batch at that position ends at \
                     {batch_last_offset})"
                ),
            ),
        };
        out.push(
            Finding::new(
                "index.disagrees_with_log",
                Severity::Error,
                FindingClass::Corruption,
                Location {
                    byte_offset: Some(*slot as u64 * 8),
                    ..loc.clone()
                },
                format!(
                    "offset index entry {slot} (offset {}, position {}) {what}",
                    entry.offset, entry.position
                ),
            )
            .fix(OFFSET_INDEX.fix),
        );
    }
}

fn time_index_findings(
    dir: &LogDir,
    p: &Partition,
    seg: &Segment,
    depth: ScanDepth,
    out: &mut Vec<Finding>,
) {
    let ti = match &seg.time_index {
        None => {
            out.push(missing_index(
                &TIME_INDEX,
                at_file(dir, p, &path_of(&seg.files.log), None),
                "no .timeindex: the broker creates an empty one and does not rebuild it, so time \
                 retention falls back to the .log file's mtime",
                TIME_INDEX.fix,
            ));
            return;
        }
        Some(Err(e)) => {
            out.push(problem_finding(
                at_partition(dir, p),
                TIME_INDEX.name,
                e,
                TIME_INDEX.fix,
            ));
            return;
        }
        Some(Ok(t)) => t,
    };
    let loc = at_file(dir, p, &path_of(&seg.files.time_index), None);
    index_shape_findings(
        &TIME_INDEX,
        &ti.shape,
        &loc,
        seg.active,
        zero_tail_expected(p, seg),
        out,
    );
    // The broker rebuilds the indexes of a recovered segment; nothing below matters for it.
    if seg.recovered_on_start {
        return;
    }
    let Some(log) = seg.log_summary() else { return };
    let metadata_log = p.name.as_ref().is_some_and(|n| n.is_metadata_log());
    if ti.shape.slots == 0 && !seg.active && log.max_timestamp_seen.is_some_and(|t| t >= 0) {
        out.push(
            Finding::new(
                "timeindex.empty",
                Severity::Warning,
                FindingClass::Condition,
                loc.clone(),
                "empty time index on a rolled segment with timestamps: time retention uses the .log \
                 file's mtime instead of the records' timestamps",
            )
            .fix(TIME_INDEX.fix),
        );
    }
    // With every header read, the index's last entry must be the log's largest timestamp (Kafka
    // appends it on roll and close) at an offset inside the segment. The metadata log's Raft
    // layer does not append the final entry on close; a walk that stopped early proves nothing.
    let tidy = ti.shape.garbage == 0 && ti.shape.zero_tail == 0;
    if depth < ScanDepth::Headers || metadata_log || !tidy || log.walk_error.is_some() {
        return;
    }
    let Some(last) = ti.last_valid else { return };
    let log_max = log
        .stats
        .as_ref()
        .and_then(|s| s.max_timestamp)
        .filter(|t| *t >= 0);
    let last_offset = log.last_batch.map(|b| b.last_offset);
    let mut problems = Vec::new();
    if let Some(log_max) = log_max.filter(|m| *m != last.timestamp) {
        problems.push(format!(
            "index last timestamp {} but largest batch timestamp {log_max}",
            last.timestamp
        ));
    }
    if let Some(last_offset) = last_offset.filter(|o| last.offset > *o) {
        problems.push(format!(
            "index last offset {} past the segment's last offset {last_offset}",
            last.offset
        ));
    }
    if problems.is_empty() {
        return;
    }
    let mut f = Finding::new(
        "timeindex.disagrees_with_log",
        Severity::Warning,
        FindingClass::Corruption,
        Location {
            byte_offset: Some(ti.shape.valid_entries.saturating_sub(1) as u64 * 12),
            ..loc
        },
        "time index's last entry disagrees with the log: time retention uses the index",
    );
    for e in problems {
        f = f.evidence(e);
    }
    out.push(f.fix(TIME_INDEX.fix));
}
