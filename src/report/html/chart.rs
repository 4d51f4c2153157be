//! The disk projection chart: per log dir, the bytes over the next [`HORIZON_MS`] as the plan
//! sees them. The plan gives each segment the latest instant its files are gone (`gone_by_ms`:
//! now for what the next pass deletes, later for a segment that only waits for `retention.ms`);
//! the segments going at one instant are one retention pass, drawn as a drop and listed with
//! what it frees. Between passes the dir grows at the rate `diagnose` measured
//! (`log_dirs[].disk.growth_bytes_per_hour`; none for `plan`, which reads no rates). With the
//! filesystem's figures a second chart shows used and free against the total, and where the
//! growth fills it.

use std::collections::{BTreeMap, BTreeSet};

use super::super::diagnose_table::DiagnoseBody;
use super::super::plan_doc::PartitionPlanDoc;
use super::{esc, size, when, when_from};
use crate::model::names::path_text;

/// How far ahead the charts look at most (7 days).
pub const HORIZON_MS: i64 = 7 * 86_400_000;
const HOUR: i64 = 3_600_000;
const DAY: i64 = 24 * HOUR;
/// The spans a chart may cover, with the step of its ticks: the shortest that holds every pass
/// and the instant the filesystem is full within [`HORIZON_MS`] is chosen, so that passes an
/// hour apart are not drawn on top of each other.
const SPANS: [(i64, i64); 4] = [
    (6 * HOUR, HOUR),
    (DAY, 4 * HOUR),
    (3 * DAY, DAY),
    (HORIZON_MS, DAY),
];

/// The span of the page's charts and timelines from `now`: the shortest of [`SPANS`] holding
/// every instant of `events` up to [`HORIZON_MS`] ahead.
pub fn span(now: i64, events: impl Iterator<Item = i64>) -> i64 {
    let last = events
        .map(|t| t.saturating_sub(now))
        .filter(|d| *d <= HORIZON_MS)
        .max()
        .unwrap_or(HORIZON_MS);
    SPANS
        .iter()
        .map(|s| s.0)
        .find(|s| *s >= last)
        .unwrap_or(HORIZON_MS)
}

/// The tick step of a span and the part of a time its ticks show: `HH:MM` for a span of a day
/// or less (the caption gives the date), `MM-DD HH:MM` for 3 days, `MM-DD` for a week.
pub fn ticks(span: i64) -> (i64, std::ops::Range<usize>) {
    let step = SPANS.iter().find(|s| s.0 >= span).map_or(DAY, |s| s.1);
    let label = match span {
        s if s <= DAY => 11..16,
        s if s <= 3 * DAY => 5..16,
        _ => 5..10,
    };
    (step, label)
}
/// Passes listed under a chart; the rest are summed up.
const PASSES_LISTED: usize = 30;
/// Passes labelled with their bytes on the chart (the largest).
const PASSES_LABELLED: usize = 6;

/// The segments whose files go at one instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pass {
    /// The latest instant their files are gone.
    pub at_ms: i64,
    /// Segments.
    pub segments: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Partitions they belong to.
    pub partitions: usize,
}

/// One log dir's projection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Projection {
    /// The log dir.
    pub log_dir: String,
    /// The instant it starts at.
    pub now_ms: i64,
    /// `.log` bytes now.
    pub log_bytes: u64,
    /// The filesystem's (free, total) bytes, when known.
    pub fs: Option<(u64, u64)>,
    /// Bytes per hour the dir grows by.
    pub growth_bytes_per_hour: u64,
    /// When the filesystem is full at that growth, as `diagnose` computed it.
    pub full_at_ms: Option<i64>,
    /// Passes, by time (all of them, also past the horizon).
    pub passes: Vec<Pass>,
    /// How far ahead the charts look ([`span`]).
    pub span_ms: i64,
}

/// The passes of `partitions`: segments grouped by the instant their files are gone.
fn passes<'a>(partitions: impl Iterator<Item = &'a PartitionPlanDoc>, now: i64) -> Vec<Pass> {
    let mut by_time: BTreeMap<i64, (u64, u64, BTreeSet<&str>)> = BTreeMap::new();
    for p in partitions {
        for s in &p.segments {
            // A merged segment's bytes go at the cleaner's swap, not at a retention pass.
            let Some(gone) = s.gone_by_ms.filter(|_| s.verdict != "merge") else {
                continue;
            };
            let e = by_time.entry(gone.max(now)).or_default();
            e.0 += 1;
            e.1 += s.size_bytes;
            e.2.insert(p.dir.as_str());
        }
    }
    by_time
        .into_iter()
        .map(|(at_ms, (segments, bytes, parts))| Pass {
            at_ms,
            segments,
            bytes,
            partitions: parts.len(),
        })
        .collect()
}

fn log_dirs_of(partitions: &[PartitionPlanDoc]) -> Vec<&str> {
    let set: BTreeSet<&str> = partitions.iter().map(|p| p.log_dir.as_str()).collect();
    set.into_iter().collect()
}

impl Projection {
    /// The projections of a `diagnose` document: its disk figures per log dir, the passes
    /// from `partitions` (the plan it was made from).
    pub fn of_diagnose(
        body: &DiagnoseBody,
        partitions: &[PartitionPlanDoc],
        now: i64,
    ) -> Vec<Projection> {
        body.log_dirs
            .iter()
            .map(|d| {
                let dir = path_text(&d.path);
                let disk = d.disk.as_ref();
                let mine = partitions.iter().filter(|p| p.log_dir == dir);
                Projection {
                    now_ms: now,
                    log_bytes: d.bytes,
                    fs: disk.and_then(|x| Some((x.fs_free_bytes?, x.fs_total_bytes?))),
                    growth_bytes_per_hour: disk.map_or(0, |x| x.growth_bytes_per_hour),
                    full_at_ms: disk.and_then(|x| x.full_at_ms),
                    passes: passes(mine, now),
                    log_dir: dir,
                    span_ms: HORIZON_MS,
                }
            })
            .collect()
    }

    /// The projections of a `plan` document: planned bytes and passes, no filesystem figures
    /// and no growth.
    pub fn of_plan(partitions: &[PartitionPlanDoc], now: i64) -> Vec<Projection> {
        log_dirs_of(partitions)
            .into_iter()
            .map(|dir| {
                let mine = || partitions.iter().filter(move |p| p.log_dir == dir);
                Projection {
                    log_dir: dir.to_string(),
                    now_ms: now,
                    log_bytes: mine().flat_map(|p| &p.segments).map(|s| s.size_bytes).sum(),
                    fs: None,
                    growth_bytes_per_hour: 0,
                    full_at_ms: None,
                    passes: passes(mine(), now),
                    span_ms: HORIZON_MS,
                }
            })
            .collect()
    }

    /// The same projections, all looking as far ahead as the page does ([`span`] of every
    /// pass and full instant).
    pub fn with_page_span(mut all: Vec<Projection>, now: i64) -> (Vec<Projection>, i64) {
        let events = (all.iter())
            .flat_map(|p| p.passes.iter().map(|x| x.at_ms).chain(p.full_at_ms))
            .collect::<Vec<_>>();
        let span_ms = span(now, events.into_iter());
        for p in &mut all {
            p.span_ms = span_ms;
        }
        (all, span_ms)
    }

    fn grown(&self, t: i64) -> u64 {
        let ms = i128::from(t.saturating_sub(self.now_ms).max(0));
        let g = i128::from(self.growth_bytes_per_hour) * ms / 3_600_000;
        u64::try_from(g).unwrap_or(u64::MAX)
    }

    /// Bytes the passes up to and including `t` free.
    pub fn freed_by(&self, t: i64) -> u64 {
        (self.passes.iter())
            .take_while(|p| p.at_ms <= t)
            .map(|p| p.bytes)
            .sum()
    }

    /// `start` bytes at the projection's start, at `t`: grown, less what the passes freed.
    fn at(&self, start: u64, t: i64) -> u64 {
        start
            .saturating_add(self.grown(t))
            .saturating_sub(self.freed_by(t))
    }

    /// The `.log` bytes at `t`.
    pub fn log_bytes_at(&self, t: i64) -> u64 {
        self.at(self.log_bytes, t)
    }

    /// The filesystem's used bytes at `t` (at most its size), when its figures are known.
    pub fn used_at(&self, t: i64) -> Option<u64> {
        let (free, total) = self.fs?;
        Some(self.at(total.saturating_sub(free), t).min(total))
    }

    fn end(&self) -> i64 {
        self.now_ms.saturating_add(self.span_ms)
    }

    /// `(t, value)` corners of the step line of `value_at` from now to the horizon: at each pass
    /// the value just before it, then just after.
    fn corners(&self, value_at: impl Fn(i64) -> u64) -> Vec<(i64, u64)> {
        let end = self.end();
        let mut pts = vec![(self.now_ms, value_at(self.now_ms.saturating_sub(1)))];
        for p in self.passes.iter().filter(|p| p.at_ms <= end) {
            pts.push((p.at_ms, value_at(p.at_ms.saturating_sub(1))));
            pts.push((p.at_ms, value_at(p.at_ms)));
        }
        pts.push((end, value_at(end)));
        pts
    }
}

/// The section's HTML: per log dir its charts and its passes.
pub fn html(projections: &[Projection]) -> String {
    if projections.is_empty() {
        return "<p class=\"none\">No log dir was planned.</p>\n".to_string();
    }
    let mut h = String::new();
    for p in projections {
        h.push_str(&format!(
            "<div class=\"dir\">\n<h3><code>{}</code></h3>\n",
            esc(&p.log_dir)
        ));
        h.push_str(&format!(
            "<p class=\"hint\">Over the next {} from {}: the bytes grow at {}/h and drop at \
             each retention pass by the segments whose files are gone by then (the latest \
             instant the plan gives).</p>\n",
            esc(&crate::report::human::duration(p.span_ms)),
            esc(&when(p.now_ms)),
            esc(&size(p.growth_bytes_per_hour))
        ));
        h.push_str("<div class=\"charts\">\n");
        if p.fs.is_some() {
            h.push_str(&disk_chart(p));
        }
        h.push_str(&log_chart(p));
        h.push_str("</div>\n");
        h.push_str(&passes_table(p));
        h.push_str("</div>\n");
    }
    h
}

const W: f64 = 560.0;
const H: f64 = 240.0;
const LEFT: f64 = 78.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 24.0;
const BOTTOM: f64 = 40.0;

/// Maps time and bytes to the plot's coordinates.
struct Frame {
    start: i64,
    end: i64,
    max: u64,
}

impl Frame {
    fn x(&self, t: i64) -> f64 {
        let span = (self.end - self.start).max(1) as f64;
        LEFT + (t.clamp(self.start, self.end) - self.start) as f64 / span * (W - LEFT - RIGHT)
    }

    fn y(&self, v: u64) -> f64 {
        let max = self.max.max(1) as f64;
        TOP + (1.0 - (v.min(self.max) as f64 / max)) * (H - TOP - BOTTOM)
    }

    fn base(&self) -> f64 {
        H - BOTTOM
    }

    /// Axes: a tick per day with its date, the bytes at 0, half and the top.
    fn axes(&self) -> String {
        let mut s = String::new();
        s.push_str(&format!(
            "<line class=\"axis\" x1=\"{l}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\"/>\
             <line class=\"axis\" x1=\"{l}\" y1=\"{t}\" x2=\"{l}\" y2=\"{b}\"/>",
            l = LEFT,
            r = W - RIGHT,
            t = TOP,
            b = self.base()
        ));
        let (step, part) = ticks(self.end - self.start);
        let last = (self.end - self.start) / step;
        for i in 0..=last {
            let t = self.start + i * step;
            let x = self.x(t);
            let date = when(t);
            let label = date.get(part.clone()).unwrap_or("");
            // The last label ends at the plot's edge instead of running past it.
            let anchor = if i == last { "end" } else { "middle" };
            s.push_str(&format!(
                "<line class=\"tick\" x1=\"{x:.1}\" y1=\"{b}\" x2=\"{x:.1}\" y2=\"{b2}\"/>\
                 <text class=\"tl\" x=\"{x:.1}\" y=\"{ty}\" text-anchor=\"{anchor}\">{}</text>",
                esc(label),
                b = self.base(),
                b2 = self.base() + 4.0,
                ty = self.base() + 16.0,
            ));
        }
        for v in [0, self.max / 2, self.max] {
            let y = self.y(v);
            s.push_str(&format!(
                "<line class=\"grid\" x1=\"{l}\" y1=\"{y:.1}\" x2=\"{r}\" y2=\"{y:.1}\"/>\
                 <text class=\"tl\" x=\"{lx}\" y=\"{ty:.1}\" text-anchor=\"end\">{}</text>",
                esc(&size(v)),
                l = LEFT,
                r = W - RIGHT,
                lx = LEFT - 6.0,
                ty = y + 4.0,
            ));
        }
        s
    }

    /// A closed area under the step line through `pts`.
    fn area(&self, pts: &[(i64, u64)]) -> String {
        let mut d = format!("M{:.1},{:.1}", self.x(self.start), self.base());
        for (t, v) in pts {
            d.push_str(&format!(" L{:.1},{:.1}", self.x(*t), self.y(*v)));
        }
        d.push_str(&format!(" L{:.1},{:.1} Z", self.x(self.end), self.base()));
        d
    }

    /// The step line through `pts`.
    fn line(&self, pts: &[(i64, u64)]) -> String {
        let mut d = String::new();
        for (i, (t, v)) in pts.iter().enumerate() {
            d.push_str(&format!(
                "{}{:.1},{:.1}",
                if i == 0 { "M" } else { " L" },
                self.x(*t),
                self.y(*v)
            ));
        }
        d
    }
}

fn svg_open(class: &str, label: &str) -> String {
    format!(
        "<figure class=\"chart\"><svg class=\"{class}\" role=\"img\" aria-label=\"{l}\" \
         viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\"><title>{l}</title>",
        l = esc(label)
    )
}

/// Used and free against the filesystem's size.
fn disk_chart(p: &Projection) -> String {
    let Some((_, total)) = p.fs else {
        return String::new();
    };
    let f = Frame {
        start: p.now_ms,
        end: p.end(),
        max: total,
    };
    let pts = p.corners(|t| p.used_at(t).unwrap_or(0));
    let mut s = svg_open(
        "disk-chart",
        "filesystem used and free over the coming days",
    );
    s.push_str(&format!(
        "<rect class=\"free\" x=\"{LEFT}\" y=\"{TOP}\" width=\"{:.1}\" height=\"{:.1}\"/>",
        W - LEFT - RIGHT,
        H - TOP - BOTTOM
    ));
    s.push_str(&format!("<path class=\"used\" d=\"{}\"/>", f.area(&pts)));
    s.push_str(&f.axes());
    if let Some(full) = p.full_at_ms.filter(|t| *t <= p.end()) {
        let x = f.x(full);
        s.push_str(&format!(
            "<line class=\"full\" x1=\"{x:.1}\" y1=\"{TOP}\" x2=\"{x:.1}\" y2=\"{b}\"/>\
             <text class=\"full-label\" x=\"{x:.1}\" y=\"{ty}\" text-anchor=\"middle\">full</text>",
            b = f.base(),
            ty = TOP - 6.0
        ));
    }
    s.push_str(
        "</svg><figcaption><span class=\"k used\"></span>used \
                <span class=\"k free\"></span>free (filesystem)</figcaption></figure>\n",
    );
    s
}

/// The log segments' bytes with a marker per pass.
fn log_chart(p: &Projection) -> String {
    let pts = p.corners(|t| p.log_bytes_at(t));
    let peak = pts.iter().map(|x| x.1).max().unwrap_or(0);
    let f = Frame {
        start: p.now_ms,
        end: p.end(),
        // Headroom so that the labels above the line stay inside.
        max: peak.saturating_add(peak / 8).max(1),
    };
    let mut s = svg_open("log-chart", "log segment bytes over the coming days");
    s.push_str(&format!("<path class=\"log\" d=\"{}\"/>", f.area(&pts)));
    s.push_str(&format!("<path class=\"edge\" d=\"{}\"/>", f.line(&pts)));
    s.push_str(&f.axes());
    let shown: Vec<&Pass> = p.passes.iter().filter(|x| x.at_ms <= p.end()).collect();
    let mut by_bytes = shown.clone();
    by_bytes.sort_by_key(|x| std::cmp::Reverse(x.bytes));
    // The largest passes get a label, none closer than a label's width to another.
    let mut placed: Vec<f64> = Vec::new();
    let mut labelled: BTreeSet<i64> = BTreeSet::new();
    for x in by_bytes {
        let px = f.x(x.at_ms);
        if labelled.len() < PASSES_LABELLED && placed.iter().all(|q| (q - px).abs() >= 56.0) {
            placed.push(px);
            labelled.insert(x.at_ms);
        }
    }
    for x in shown {
        let px = f.x(x.at_ms);
        let after = f.y(p.log_bytes_at(x.at_ms));
        s.push_str(&format!(
            "<g class=\"pass\"><title>{}: {} segment(s) of {} partition(s), {}</title>\
             <line x1=\"{px:.1}\" y1=\"{TOP}\" x2=\"{px:.1}\" y2=\"{b}\"/>\
             <circle cx=\"{px:.1}\" cy=\"{after:.1}\" r=\"3\"/>",
            esc(&when(x.at_ms)),
            x.segments,
            x.partitions,
            esc(&size(x.bytes)),
            b = f.base()
        ));
        if labelled.contains(&x.at_ms) {
            s.push_str(&format!(
                "<text class=\"pl\" x=\"{px:.1}\" y=\"{ty:.1}\" text-anchor=\"start\">−{}</text>",
                esc(&size(x.bytes)),
                ty = (after - 6.0).max(TOP + 10.0)
            ));
        }
        s.push_str("</g>");
    }
    s.push_str(
        "</svg><figcaption><span class=\"k log\"></span>log segments; \
                <span class=\"k pass\"></span>a retention pass (bytes it frees)</figcaption>\
                </figure>\n",
    );
    s
}

/// What each pass frees, in time order.
fn passes_table(p: &Projection) -> String {
    if p.passes.is_empty() {
        return "<p class=\"none\">No segment is due to go: every one is kept (see the \
                timelines for what keeps them).</p>\n"
            .to_string();
    }
    let mut h = String::from(
        "<table class=\"passes\"><thead><tr><th>files gone by</th><th class=\"num\">segments</th>\
         <th class=\"num\">partitions</th><th class=\"num\">frees</th></tr></thead><tbody>\n",
    );
    for x in p.passes.iter().take(PASSES_LISTED) {
        h.push_str(&format!(
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td></tr>\n",
            esc(&when_from(x.at_ms, p.now_ms)),
            x.segments,
            x.partitions,
            esc(&size(x.bytes))
        ));
    }
    let rest: Vec<&Pass> = p.passes.iter().skip(PASSES_LISTED).collect();
    if let Some(last) = rest.last() {
        h.push_str(&format!(
            "<tr><td>{} later passes, the last {}</td><td class=\"num\">{}</td><td></td>\
             <td class=\"num\">{}</td></tr>\n",
            rest.len(),
            esc(&when_from(last.at_ms, p.now_ms)),
            rest.iter().map(|x| x.segments).sum::<u64>(),
            esc(&size(rest.iter().map(|x| x.bytes).sum()))
        ));
    }
    h.push_str("</tbody></table>\n");
    h
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn proj(passes: Vec<Pass>) -> Projection {
        Projection {
            log_dir: "/d".into(),
            now_ms: 0,
            log_bytes: 1000,
            fs: Some((5000, 10_000)),
            growth_bytes_per_hour: 100,
            full_at_ms: None,
            passes,
            span_ms: HORIZON_MS,
        }
    }

    fn pass(at_ms: i64, bytes: u64) -> Pass {
        Pass {
            at_ms,
            segments: 1,
            bytes,
            partitions: 1,
        }
    }

    #[test]
    fn bytes_grow_and_drop_at_each_pass() {
        let p = proj(vec![pass(0, 300), pass(7_200_000, 200)]);
        // The pass at now has run: 1000 - 300.
        assert_eq!(p.log_bytes_at(0), 700);
        assert_eq!(p.log_bytes_at(3_600_000), 800);
        assert_eq!(p.log_bytes_at(7_199_999), 899);
        assert_eq!(p.log_bytes_at(7_200_000), 700);
        assert_eq!(p.used_at(0), Some(4700));
        let c = p.corners(|t| p.log_bytes_at(t));
        assert_eq!(c.first(), Some(&(0, 1000)));
        assert!(c.contains(&(7_200_000, 899)) && c.contains(&(7_200_000, 700)));
        assert_eq!(c.last().unwrap().0, HORIZON_MS);
    }

    #[test]
    fn the_span_is_the_shortest_holding_every_event_within_a_week() {
        assert_eq!(span(0, [HOUR, 2 * HOUR].into_iter()), 6 * HOUR);
        assert_eq!(span(0, [7 * HOUR].into_iter()), DAY);
        assert_eq!(span(0, [2 * DAY].into_iter()), 3 * DAY);
        assert_eq!(span(0, [HOUR, 30 * DAY].into_iter()), 6 * HOUR);
        assert_eq!(span(0, std::iter::empty()), HORIZON_MS);
        assert_eq!(ticks(6 * HOUR), (HOUR, 11..16));
        assert_eq!(ticks(3 * DAY), (DAY, 5..16));
        assert_eq!(ticks(HORIZON_MS), (DAY, 5..10));
    }

    #[test]
    fn used_is_capped_at_the_size() {
        let mut p = proj(vec![]);
        p.growth_bytes_per_hour = 1_000_000;
        assert_eq!(p.used_at(HORIZON_MS), Some(10_000));
        p.fs = None;
        assert_eq!(p.used_at(0), None);
    }

    #[test]
    fn charts_draw_every_pass_in_the_horizon_and_list_the_rest() {
        let passes: Vec<Pass> = (0..40).map(|i| pass(i * 86_400_000, 10)).collect();
        let p = proj(passes);
        let h = html(std::slice::from_ref(&p));
        assert!(h.contains("class=\"disk-chart\"") && h.contains("class=\"log-chart\""));
        // Passes at day 0..=7 are drawn; all 40 are listed or summed.
        assert_eq!(h.matches("<g class=\"pass\">").count(), 8);
        assert!(h.contains("10 later passes"), "{h}");
    }
}
