//! The `plan` table for people: per partition a header line (policy, log start before → after,
//! the HW assumed), one row per segment (verdict and why, or when its files are gone), the
//! cleaner's view of compacted logs, notes where folklore misleads, then totals, the what-if
//! difference, the gates and the findings. `--timeline` adds a time axis per partition in
//! plain ASCII (no colour unless colour is on), fitted to the width like every table. Each
//! segments table is written row by row ([`write_layouts`]), never held whole.

use std::io::{self, Write};

use humansize::{format_size, BINARY};

use super::diagnostics::render_findings;
use super::human::{time, Precision};
use super::plan_doc::{
    CompactionDoc, GatesDoc, PartitionPlanDoc, PlanBody, SegmentPlanDoc, ShortDoc, TieredDoc,
    TotalsDoc, WhatIfDoc,
};
use super::sanitize::escape;
use super::stream_table::{write_layouts, Column};
use super::table::{write_fitted, TableStyle};
use super::terminal::{fit_atoms, words, Align, Cell};
use super::wire::Envelope;

/// Write prose (`label` then the words of `text`) fitted to the width, one space apart.
fn prose(out: &mut dyn Write, style: &TableStyle, label: &str, text: &str) -> io::Result<()> {
    let mut atoms = vec![label.to_string()];
    atoms.extend(words(&escape(text)));
    for line in fit_atoms(&atoms, style.width, " ", "  ", "    ") {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

fn t(style: &TableStyle, ms: Option<i64>) -> String {
    ms.and_then(|ms| time(ms, style.zone, Precision::Minutes))
        .unwrap_or_else(|| "-".to_string())
}

fn verdict(s: &SegmentPlanDoc) -> String {
    match (s.merged_into, s.pass) {
        (Some(into), _) => format!("merge → {into}"),
        (None, Some(p)) => format!("delete ({p})"),
        (None, None) => "retain".to_string(),
    }
}

fn why(s: &SegmentPlanDoc, style: &TableStyle) -> Vec<Vec<String>> {
    let mut lines = Vec::new();
    if let Some(r) = &s.reason {
        lines.push(words(&escape(&r.text)));
    }
    if let Some(p) = s.if_uploaded {
        lines.push(words(&format!("if uploaded: delete ({p})")));
    }
    if let Some(t) = &s.truncation {
        let text = match (t.truncated_to, t.refetched) {
            (Some(to), _) => format!("follower truncation: cut at {to}, the refetch appends here"),
            (None, Some(true)) => {
                "follower truncation: deleted; the refetch creates it again (the leader's base)"
                    .to_string()
            }
            (None, _) => "follower truncation: deleted, its records lost".to_string(),
        };
        lines.push(words(&text));
    }
    if s.eligible_at_ms.is_some() {
        let mut when = words(&format!("eligible {}", t(style, s.eligible_at_ms)));
        if s.gone_by_ms.is_some() {
            when.extend(words(&format!("· gone by {}", t(style, s.gone_by_ms))));
        }
        lines.push(when);
    }
    if s.retained_expired {
        lines.push(vec!["past retention.ms".to_string()]);
    }
    if s.recovered_on_start {
        lines.push(words("recovered on next start"));
    }
    lines
}

/// The segments table, written row by row ([`write_layouts`]): the full layout, or `segment`
/// (its size below it), `verdict` and `why / when`.
fn write_segment_table(
    p: &PartitionPlanDoc,
    style: &TableStyle,
    out: &mut dyn Write,
) -> io::Result<()> {
    let columns = [
        Column::new("segment", Align::Right),
        Column::new("size", Align::Right),
        Column::new("largest timestamp", Align::Left),
        Column::new("verdict", Align::Left),
        Column::new("why / when", Align::Left).floor(24),
        // The narrow layout's first column: the segment, its size below it.
        Column::new("segment", Align::Right),
    ];
    let layouts = [vec![0, 1, 2, 3, 4], vec![5, 3, 4]];
    write_layouts(out, style.width, &columns, &layouts, || {
        p.segments.iter().map(|s| {
            let mut ts = t(style, Some(s.largest_timestamp_ms));
            if s.largest_timestamp_upper_bound {
                ts = format!("≤ {ts}");
            }
            let size = format_size(s.size_bytes, BINARY);
            vec![
                Cell::atom(s.base_offset.to_string()),
                Cell::atom(size.clone()),
                Cell::text(&ts),
                Cell::atom(verdict(s)),
                Cell::lines(why(s, style)),
                Cell::lines(vec![vec![s.base_offset.to_string()], vec![size]]),
            ]
        })
    })
}

fn compaction_line(c: &CompactionDoc) -> Vec<String> {
    let mut head = vec![
        "compaction:".to_string(),
        format!("dirty ratio {:.3}", c.dirty_ratio),
        format!("(min {})", c.min_cleanable_dirty_ratio),
        format!("cleanable {}", format_size(c.cleanable_bytes, BINARY)),
        format!(
            "dirty {}..{}",
            c.first_dirty_offset, c.first_uncleanable_offset
        ),
    ];
    match c.clean_up_to {
        Some(o) => head.push(format!("cleans up to {o}")),
        None => head.push("not cleaned next".to_string()),
    }
    if let Some(n) = c.passes_at_most {
        head.push(format!("≤ {n} pass(es)"));
    }
    if c.first_in_line {
        head.push("(the cleaner takes it first)".to_string());
    }
    head
}

/// Local vs remote bytes and the KIP-1257 percentages of a remote-enabled partition.
fn tiered_line(t: &TieredDoc) -> Vec<String> {
    let opt = |b: Option<u64>| b.map_or_else(|| "unknown".to_string(), |b| format_size(b, BINARY));
    let mut atoms = vec![
        "tiered:".to_string(),
        format!("local {}", format_size(t.local_bytes, BINARY)),
        format!("remote {}", opt(t.remote_bytes)),
        format!("waiting for upload {}", opt(t.waiting_for_upload_bytes)),
    ];
    if let Some(h) = t.highest_offset_in_remote_storage {
        atoms.push(format!("highest remote offset {h}"));
    }
    if let Some(n) = t.metadata_partition {
        atoms.push(format!(
            "(__remote_log_metadata-{n}{})",
            if t.upload_state == "known" {
                ""
            } else {
                " not given"
            }
        ));
    }
    if let Some(v) = t.retention_size_in_percent {
        atoms.push(format!("RetentionSizeInPercent {v}"));
    }
    if let Some(v) = t.local_retention_size_in_percent {
        atoms.push(format!("LocalRetentionSizeInPercent {v}"));
    }
    atoms
}

fn partition_header(p: &PartitionPlanDoc) -> Vec<String> {
    let mut atoms = vec![
        format!("{}/{}", escape(&p.log_dir), escape(&p.dir)),
        format!("policy {}", p.cleanup_policy),
        format!(
            "log start {} → {}",
            p.log_start_offset, p.log_start_offset_after
        ),
        format!("log end {}", p.log_end_offset),
        format!(
            "frees {} in {} segment(s)",
            format_size(p.freed.bytes, BINARY),
            p.freed.segments
        ),
    ];
    if p.approximate {
        atoms.push("(approximate)".to_string());
    }
    atoms
}

/// The time axis of a timeline: `width` columns from `start` to `end` (ms).
struct Axis {
    start: i64,
    end: i64,
    width: usize,
}

impl Axis {
    /// From the oldest record time (or the cut-off) to the newest one not in the future, the
    /// evaluation instant `now` always included.
    fn of(p: &PartitionPlanDoc, cutoff: Option<i64>, now: i64, width: usize) -> Axis {
        let start = p
            .segments
            .iter()
            .map(|s| s.first_timestamp_ms.unwrap_or(s.largest_timestamp_ms))
            .chain(cutoff)
            .filter(|t| *t >= 0)
            .min()
            .unwrap_or(now)
            .min(now);
        let end = p
            .segments
            .iter()
            .map(|s| s.largest_timestamp_ms)
            .filter(|t| *t <= now)
            .chain([now])
            .max()
            .unwrap_or(now);
        Axis { start, end, width }
    }

    /// The column of `ms`, clamped to the axis.
    fn col(&self, ms: i64) -> usize {
        let span = i128::from(self.end.saturating_sub(self.start)).max(1);
        let x = (i128::from(ms.clamp(self.start, self.end)) - i128::from(self.start))
            * (self.width as i128 - 1);
        usize::try_from(x / span).unwrap_or(0)
    }
}

fn mark(row: &mut [char], c: usize, ch: char) {
    if let Some(x) = row.get_mut(c) {
        *x = ch;
    }
}

/// The base offset of the segment the others are kept behind, from the reasons' evidence.
fn blocking_segment(p: &PartitionPlanDoc) -> Option<i64> {
    p.segments.iter().find_map(|s| {
        let r = s.reason.as_ref()?;
        r.evidence
            .iter()
            .find(|e| e.name == "blocking_segment")
            .and_then(|e| serde_json::to_value(&e.value).ok())
            .and_then(|v| v.as_i64())
    })
}

/// One segment's bar, between the `|` of the cut-off and of the instant.
fn segment_bar(
    s: &SegmentPlanDoc,
    axis: &Axis,
    cutoff: Option<i64>,
    now: i64,
    blocker: Option<i64>,
) -> String {
    let mut row = vec![' '; axis.width];
    if let Some(c) = cutoff {
        mark(&mut row, axis.col(c), '|');
    }
    mark(&mut row, axis.col(now), '|');
    let fill = match s.pass {
        Some(_) => '=',
        None if Some(s.base_offset) == blocker => '#',
        None => '-',
    };
    let from = axis.col(s.first_timestamp_ms.unwrap_or(s.largest_timestamp_ms));
    let to = axis.col(s.largest_timestamp_ms);
    for c in from..=to.max(from) {
        mark(&mut row, c, fill);
    }
    if s.largest_timestamp_ms > axis.end {
        mark(&mut row, axis.width - 1, '>');
    }
    row.into_iter().collect()
}

/// The `--timeline` axis of one partition: each segment from its oldest to its newest record
/// time, `=` deleted, `-` kept, `#` the segment the others are kept behind; `C` marks the
/// retention cut-off (the instant minus the time limit the rules apply: `retention.ms`, or
/// `local.retention.ms` where the tiered local limits apply), `N` the evaluation instant, `>` a
/// newest record past the axis (a future timestamp).
pub fn timeline(p: &PartitionPlanDoc, retention_ms: Option<i64>, now: i64, width: usize) -> String {
    let label_w = p
        .segments
        .iter()
        .map(|s| s.base_offset.to_string().len())
        .max()
        .unwrap_or(1);
    let axis_w = width.saturating_sub(label_w + 10).max(10);
    let cutoff = retention_ms.map(|r| now.saturating_sub(r));
    let axis = Axis::of(p, cutoff, now, axis_w);
    let blocker = blocking_segment(p);
    let mut out = String::new();
    for s in &p.segments {
        let bar = segment_bar(s, &axis, cutoff, now, blocker);
        let v = if s.pass.is_some() { "delete" } else { "retain" };
        out.push_str(&format!(
            "{:>label_w$} {} {v}\n",
            s.base_offset,
            bar.trim_end()
        ));
    }
    let mut marks = vec![' '; axis_w];
    if let Some(c) = cutoff {
        mark(&mut marks, axis.col(c), 'C');
    }
    mark(&mut marks, axis.col(now), 'N');
    let marks: String = marks.into_iter().collect();
    out.push_str(&format!("{:>label_w$} {}\n", "", marks.trim_end()));
    out
}

fn short(s: &ShortDoc) -> String {
    match (s.pass, s.reason) {
        (Some(p), _) => format!("delete ({p})"),
        (None, Some(r)) => format!("retain ({r})"),
        (None, None) => "retain".to_string(),
    }
}

fn write_partition(
    p: &PartitionPlanDoc,
    style: &TableStyle,
    show_timeline: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    if p.segments.iter().all(|s| s.size_bytes == 0) {
        // An empty partition is one line (as in `inspect`): no table, no timeline, nothing
        // to clean; only what it still says (notes, the next start) follows.
        let mut atoms = vec![
            format!("{}/{}", escape(&p.log_dir), escape(&p.dir)),
            format!("policy {}", p.cleanup_policy),
        ];
        atoms.extend(empty_words(
            p.segments.len(),
            p.log_start_offset,
            p.log_end_offset,
        ));
        write_fitted(out, &atoms, style, "", "    ")?;
        return write_partition_notes(p, style, out);
    }
    write_fitted(out, &partition_header(p), style, "", "    ")?;
    prose(out, style, "assumes", &p.high_watermark.text)?;
    write_segment_table(p, style, out)?;
    if let Some(c) = &p.compaction {
        write_fitted(out, &compaction_line(c), style, "  ", "    ")?;
        if let Some(b) = &c.blocked_by {
            prose(out, style, "blocked by:", &b.text)?;
        }
    }
    if let Some(t) = &p.tiered {
        write_fitted(out, &tiered_line(t), style, "  ", "    ")?;
    }
    if show_timeline {
        write_partition_notes_only(p, style, out)?;
        writeln!(
            out,
            "  timeline (oldest to newest record time; C cut-off, N now):"
        )?;
        out.write_all(
            timeline(p, p.time_retention_ms, style.evaluated_at_ms, style.width).as_bytes(),
        )?;
        return writeln!(out);
    }
    write_partition_notes(p, style, out)
}

/// An empty partition's atoms: `empty: N segment(s) of 0 B` and where its log starts and ends.
pub fn empty_words(segments: usize, log_start: i64, log_end: i64) -> [String; 2] {
    let what = match segments {
        0 => "empty: no segments".to_string(),
        1 => "empty: 1 segment of 0 B".to_string(),
        n => format!("empty: {n} segments of 0 B"),
    };
    let ends = if log_start == log_end {
        format!("log start = log end = {log_start}")
    } else {
        format!("log start {log_start}  log end {log_end}")
    };
    [what, ends]
}

/// A partition's notes and next-start lines, then the blank line that ends it.
fn write_partition_notes(
    p: &PartitionPlanDoc,
    style: &TableStyle,
    out: &mut dyn Write,
) -> io::Result<()> {
    write_partition_notes_only(p, style, out)?;
    writeln!(out)
}

/// A partition's notes and next-start lines.
fn write_partition_notes_only(
    p: &PartitionPlanDoc,
    style: &TableStyle,
    out: &mut dyn Write,
) -> io::Result<()> {
    for n in &p.notes {
        prose(out, style, "note:", &n.text)?;
    }
    let mut groups: Vec<(&str, &str, Vec<&str>)> = Vec::new();
    for s in &p.next_start {
        match groups.iter_mut().find(|g| g.0 == s.suffix) {
            Some(g) => g.2.push(&s.file),
            None => groups.push((s.suffix, s.action, vec![&s.file])),
        }
    }
    for (suffix, action, files) in groups {
        let first = files.first().copied().unwrap_or_default();
        let more = match files.len() {
            1 => first.to_string(),
            n => format!("{n} {suffix} files ({first}, ...)"),
        };
        prose(out, style, "next start:", &format!("{more} {action}"))?;
    }
    Ok(())
}

/// The totals freed, per log dir and per topic.
fn write_totals(totals_doc: &TotalsDoc, style: &TableStyle, out: &mut dyn Write) -> io::Result<()> {
    let mut totals = vec![
        "total:".to_string(),
        format!(
            "frees {} in {} segment(s)",
            format_size(totals_doc.bytes_freed, BINARY),
            totals_doc.segments_deleted
        ),
    ];
    for d in &totals_doc.per_log_dir {
        totals.push(format!(
            "· {}: {} in {};",
            escape(&d.log_dir),
            format_size(d.bytes, BINARY),
            d.segments
        ));
    }
    write_fitted(out, &totals, style, "", "    ")?;
    let mut topics = vec!["per topic:".to_string()];
    for tp in &totals_doc.per_topic {
        topics.push(format!(
            "{}: {} in {};",
            escape(&tp.topic),
            format_size(tp.bytes, BINARY),
            tp.segments
        ));
    }
    write_fitted(out, &topics, style, "", "    ")?;
    Ok(())
}

/// What a `--config` change would free, and which segments change their verdict.
fn write_what_if(w: &WhatIfDoc, style: &TableStyle, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out)?;
    let mut l = vec!["what if".to_string()];
    l.extend(w.config.iter().map(|c| escape(c).into_owned()));
    l.push(format!(
        ": frees {} in {} segment(s) ({:+} B vs today)",
        format_size(w.totals.bytes_freed, BINARY),
        w.totals.segments_deleted,
        w.bytes_freed_delta
    ));
    write_fitted(out, &l, style, "", "    ")?;
    if w.changes.is_empty() {
        writeln!(out, "  no segment changes its verdict")?;
    }
    for c in &w.changes {
        let l = vec![
            format!("  {}-{}", escape(&c.topic), c.partition),
            format!("segment {}", c.base_offset),
            format_size(c.size_bytes, BINARY),
            format!("{} → {}", short(&c.before), short(&c.after)),
        ];
        write_fitted(out, &l, style, "", "    ")?;
    }
    Ok(())
}

/// The `--fail-if-*` gates given, and whether each tripped.
fn write_gates(gates_doc: &GatesDoc, out: &mut dyn Write) -> io::Result<()> {
    for (name, g) in [
        ("--fail-if-deletes-more-than", gates_doc.deletes_more_than),
        ("--fail-if-retains-expired", gates_doc.retains_expired),
    ] {
        if let Some(g) = g {
            let state = if g.tripped { "TRIPPED" } else { "ok" };
            writeln!(
                out,
                "gate {name}: {state} (value {}, limit {})",
                g.value, g.limit
            )?;
        }
    }
    Ok(())
}

/// Render a plan document.
pub fn render_plan(
    doc: &Envelope<PlanBody>,
    style: &TableStyle,
    show_timeline: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    let b = &doc.body;
    let at = vec![
        "plan at".to_string(),
        t(style, Some(doc.evaluated_at_ms)),
        format!("({} partition replica(s))", b.partitions.len()),
    ];
    write_fitted(out, &at, style, "", "    ")?;
    if let Some(f) = &b.filter {
        for l in fit_atoms(&words(&f.words()), style.width, " ", "", "  ") {
            writeln!(out, "{l}")?;
        }
    }
    writeln!(out)?;
    for p in &b.partitions {
        write_partition(p, style, show_timeline, out)?;
    }
    write_totals(&b.totals, style, out)?;
    if b.cleaner_first.by_node.is_empty() && b.cleaner_first.pick != "nothing" {
        let mut l = vec![format!("cleaner takes first ({}):", b.cleaner_first.pick)];
        l.extend(b.cleaner_first.logs.iter().map(|x| escape(x).into_owned()));
        write_fitted(out, &l, style, "", "    ")?;
    }
    // Several brokers: each one's cleaner picks its own.
    for n in b
        .cleaner_first
        .by_node
        .iter()
        .filter(|n| n.pick != "nothing")
    {
        let node = n
            .node
            .map_or("node unknown".to_string(), |id| format!("node {id}"));
        let mut l = vec![format!("{node}'s cleaner takes first ({}):", n.pick)];
        l.extend(n.logs.iter().map(|x| escape(x).into_owned()));
        write_fitted(out, &l, style, "", "    ")?;
    }
    if let Some(w) = &b.what_if {
        write_what_if(w, style, out)?;
    }
    write_gates(&b.gates, out)?;
    if let Some(f) = render_findings(&doc.findings, style) {
        writeln!(out)?;
        out.write_all(f.as_bytes())?;
    }
    Ok(())
}
