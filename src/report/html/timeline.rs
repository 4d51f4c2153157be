//! Per-partition segment timelines: one SVG row per segment from now to the page's span ahead
//! ([`super::chart::span`]),
//! the bar ending when its files are gone (`gone_by_ms`), running past the edge when it goes
//! later, and grey to the end when nothing schedules it (then the table beside says what keeps
//! it: the plan's reason). The table lists every segment with its verdict, times and reason.
//! Partitions with no bytes are named in one line, not drawn.

use super::super::plan_doc::{PartitionPlanDoc, SegmentPlanDoc};
use super::chart::ticks;
use super::{esc, size, when, when_from};
use crate::report::human::duration;

/// Segments drawn per partition (the oldest, which go first); the table lists them all up to
/// [`ROWS_LISTED`].
const ROWS_DRAWN: usize = 40;
/// Segments listed per partition.
const ROWS_LISTED: usize = 200;
/// Partitions drawn; the rest are named.
const PARTITIONS_DRAWN: usize = 200;

const W: f64 = 760.0;
const LABEL: f64 = 200.0;
const LATER: f64 = 70.0;
const ROW: f64 = 16.0;
const HEAD: f64 = 22.0;

/// How a segment's row is drawn and named.
fn fate(s: &SegmentPlanDoc, now: i64) -> (&'static str, String) {
    match (s.verdict, s.gone_by_ms) {
        ("merge", _) => (
            "merge",
            format!(
                "merged into {} by the cleaner",
                s.merged_into.map_or("-".to_string(), |m| m.to_string())
            ),
        ),
        ("delete", Some(t)) => (
            "delete",
            format!(
                "deleted by the {} pass; files gone by {}",
                s.pass.unwrap_or("retention"),
                when_from(t, now)
            ),
        ),
        (_, Some(t)) => ("wait", format!("kept until {}", when_from(t, now))),
        (_, None) => ("kept", "kept: nothing schedules it".to_string()),
    }
}

/// The section's HTML.
pub fn html(partitions: &[PartitionPlanDoc], now: i64, span: i64) -> String {
    if partitions.is_empty() {
        return "<p class=\"none\">No partition was planned.</p>\n".to_string();
    }
    let (full, empty): (Vec<&PartitionPlanDoc>, Vec<&PartitionPlanDoc>) = partitions
        .iter()
        .partition(|p| p.segments.iter().any(|s| s.size_bytes > 0));
    let mut h = String::from(
        "<p class=\"legend\"><span class=\"k delete\"></span>deleted by the next pass \
         <span class=\"k wait\"></span>waits for its time <span class=\"k kept\"></span>kept \
         (see why) <span class=\"k merge\"></span>merged by the cleaner</p>\n",
    );
    for p in full.iter().take(PARTITIONS_DRAWN) {
        h.push_str(&partition_html(p, now, span));
    }
    let undrawn: Vec<&str> = (full.iter().skip(PARTITIONS_DRAWN))
        .map(|p| p.dir.as_str())
        .collect();
    if !undrawn.is_empty() {
        h.push_str(&format!(
            "<p class=\"hint\">{} more partitions not drawn: {}</p>\n",
            undrawn.len(),
            esc(&undrawn.join(", "))
        ));
    }
    if !empty.is_empty() {
        let names: Vec<&str> = empty.iter().map(|p| p.dir.as_str()).collect();
        h.push_str(&format!(
            "<p class=\"empty\">{} empty partition(s): {}</p>\n",
            names.len(),
            esc(&names.join(", "))
        ));
    }
    h
}

fn retention(ms: Option<i64>, bytes: Option<i64>) -> String {
    let ms = ms.map_or("unlimited".to_string(), |m| {
        format!("{m} ({})", duration(m))
    });
    let bytes = bytes.map_or("unlimited".to_string(), |b| {
        format!("{b} ({})", size(u64::try_from(b).unwrap_or(0)))
    });
    format!("retention.ms = {ms}, retention.bytes = {bytes}")
}

fn partition_html(p: &PartitionPlanDoc, now: i64, span: i64) -> String {
    let mut h = format!(
        "<div class=\"partition\">\n<h3>{} <small>{}</small></h3>\n<p class=\"facts-line\">\
         cleanup.policy = {} · {} · log start {} → {} after the passes, end {} · frees {} in {} \
         segment(s)</p>\n",
        esc(&p.dir),
        esc(&p.log_dir),
        esc(&p.cleanup_policy),
        esc(&retention(p.retention_ms, p.retention_bytes)),
        p.log_start_offset,
        p.log_start_offset_after,
        p.log_end_offset,
        esc(&size(p.freed.bytes)),
        p.freed.segments,
    );
    h.push_str(&format!(
        "<p class=\"hint\">high watermark: {}</p>\n",
        esc(&p.high_watermark.text)
    ));
    if let Some(c) = &p.compaction {
        let blocked = c
            .blocked_by
            .as_ref()
            .map_or("only the active segment bounds it".to_string(), |b| {
                b.text.clone()
            });
        h.push_str(&format!(
            "<p class=\"blocker\">cleaner: dirty ratio {:.2} (threshold {:.2}), {} · blocked: \
             {}</p>\n",
            c.dirty_ratio,
            c.min_cleanable_dirty_ratio,
            if c.will_clean {
                "takes this log"
            } else {
                "does not take this log"
            },
            esc(&blocked)
        ));
    }
    for n in &p.notes {
        h.push_str(&format!("<p class=\"note\">{}</p>\n", esc(&n.text)));
    }
    h.push_str(&svg(p, now, span));
    h.push_str(&table(p, now));
    h.push_str("</div>\n");
    h
}

fn svg(p: &PartitionPlanDoc, now: i64, span: i64) -> String {
    let rows: Vec<&SegmentPlanDoc> = p.segments.iter().take(ROWS_DRAWN).collect();
    let height = HEAD + ROW * rows.len() as f64 + 4.0;
    let plot = W - LABEL - LATER;
    let end = now.saturating_add(span);
    let x = |t: i64| LABEL + (t.clamp(now, end) - now) as f64 / span.max(1) as f64 * plot;
    let mut s = format!(
        "<svg class=\"timeline\" role=\"img\" aria-label=\"segment timeline of {d}\" \
         viewBox=\"0 0 {W} {height}\" width=\"{W}\" height=\"{height}\"><title>segment timeline \
         of {d}</title>",
        d = esc(&p.dir)
    );
    let (step, part) = ticks(span);
    let last = span / step.max(1);
    for i in 0..=last {
        let t = now + i * step;
        let label = when(t);
        // The last label ends at the axis' end, clear of `later`.
        let anchor = if i == last { "end" } else { "middle" };
        s.push_str(&format!(
            "<line class=\"grid\" x1=\"{xx:.1}\" y1=\"{HEAD}\" x2=\"{xx:.1}\" y2=\"{height}\"/>\
             <text class=\"tl\" x=\"{xx:.1}\" y=\"14\" text-anchor=\"{anchor}\">{}</text>",
            esc(label.get(part.clone()).unwrap_or("")),
            xx = x(t)
        ));
    }
    s.push_str(&format!(
        "<text class=\"tl\" x=\"{:.1}\" y=\"14\" text-anchor=\"middle\">later</text>",
        W - LATER / 2.0
    ));
    for (i, seg) in rows.iter().enumerate() {
        let y = HEAD + ROW * i as f64;
        let (class, words) = fate(seg, now);
        let to = match (class, seg.gone_by_ms) {
            ("delete" | "wait", Some(t)) if t <= end => x(t).max(LABEL + 3.0),
            ("delete" | "wait", Some(_)) => W - LATER / 2.0,
            _ => W - 4.0,
        };
        s.push_str(&format!(
            "<g class=\"seg {class}\"><title>segment {base}: {sz}; {}</title>\
             <text class=\"sl\" x=\"{lx}\" y=\"{ty:.1}\" text-anchor=\"end\">{base} · {sz}</text>\
             <rect x=\"{LABEL}\" y=\"{ry:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" rx=\"2\"/></g>",
            esc(&words),
            base = seg.base_offset,
            sz = esc(&size(seg.size_bytes)),
            lx = LABEL - 6.0,
            ty = y + ROW - 4.0,
            ry = y + 2.0,
            w = to - LABEL,
            h = ROW - 4.0,
        ));
    }
    s.push_str("</svg>\n");
    if p.segments.len() > ROWS_DRAWN {
        s.push_str(&format!(
            "<p class=\"hint\">the oldest {ROWS_DRAWN} of {} segments drawn</p>\n",
            p.segments.len()
        ));
    }
    s
}

fn table(p: &PartitionPlanDoc, now: i64) -> String {
    let open = if p.segments.len() <= 12 { " open" } else { "" };
    let mut h = format!(
        "<details{open}><summary>{} segment(s): what goes when, what keeps it</summary>\n\
         <table class=\"segments\"><thead><tr><th class=\"num\">base offset</th>\
         <th class=\"num\">size</th><th>newest record</th><th>fate</th><th>why</th></tr></thead>\
         <tbody>\n",
        p.segments.len()
    );
    for s in p.segments.iter().take(ROWS_LISTED) {
        let (class, words) = fate(s, now);
        let why = s.reason.as_ref().map_or(String::new(), |r| r.text.clone());
        h.push_str(&format!(
            "<tr class=\"{class}\"><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td>\
             <td>{}</td><td>{}</td></tr>\n",
            s.base_offset,
            esc(&size(s.size_bytes)),
            esc(&when(s.largest_timestamp_ms)),
            esc(&words),
            esc(&why)
        ));
    }
    if p.segments.len() > ROWS_LISTED {
        h.push_str(&format!(
            "<tr><td colspan=\"5\">{} more segments (see `logclean plan --format json`)</td></tr>\n",
            p.segments.len() - ROWS_LISTED
        ));
    }
    h.push_str("</tbody></table></details>\n");
    h
}
