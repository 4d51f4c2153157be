//! The page's first section: per log dir, disk used / free / total (with a bar), the time until
//! the filesystem is full, what the next retention pass frees, whether a broker holds the dir;
//! then what the answer assumes. [`Headline`] is the one view the section is drawn from, built
//! here from the document's figures ([`Headline::of_diagnose`], [`Headline::of_plan`]); a
//! document that carries its own headline object fills the same fields, and a figure the data
//! does not hold (`None`) is left out rather than guessed.

use std::collections::BTreeMap;

use super::super::diagnose_table::DiagnoseBody;
use super::super::plan_doc::PlanBody;
use super::super::wire::Envelope;
use super::{esc, size, when_from};
use crate::diagnose::headline::TimeToFull;

/// The headline of one log dir.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DirHeadline {
    /// The log dir as the document writes it.
    pub log_dir: String,
    /// `.log` bytes logclean planned in it.
    pub log_bytes: u64,
    /// The filesystem's free bytes (`None`: not known).
    pub free_bytes: Option<u64>,
    /// The filesystem's size.
    pub total_bytes: Option<u64>,
    /// Bytes per hour the dir still grows by.
    pub growth_bytes_per_hour: Option<u64>,
    /// When the filesystem is full at that growth, or why that is unknown: the `diagnose`
    /// headline's own answer (`None`: not in the report, e.g. a plan).
    pub time_to_full: Option<TimeToFull>,
    /// Segments and bytes the next retention pass frees.
    pub next_pass: Option<(u64, u64)>,
    /// Bytes the fixes in the report would free.
    pub fixes_free_bytes: Option<u64>,
    /// Who holds the dir's `.lock` (`a running broker holds the lock`, ...).
    pub lock: Option<String>,
}

impl DirHeadline {
    /// Bytes used on the filesystem.
    pub fn used_bytes(&self) -> Option<u64> {
        Some(self.total_bytes?.saturating_sub(self.free_bytes?))
    }
}

/// The headline of a document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Headline {
    /// Per log dir.
    pub dirs: Vec<DirHeadline>,
    /// Document-wide lines (`label`, `value`): what the next passes free in all, the cleaner's
    /// first pick, the what-if, the gates.
    pub lines: Vec<(String, String)>,
    /// What the answer assumes, one line each.
    pub assumptions: Vec<String>,
    /// The partitions holding the most bytes after the next pass: (partition, bytes kept,
    /// bytes freed).
    pub top_partitions: Vec<(String, u64, u64)>,
    /// The instant evaluated at.
    pub now_ms: i64,
}

fn assumed<B>(doc: &Envelope<B>) -> Vec<String> {
    let Some(a) = &doc.assumptions else {
        return Vec::new();
    };
    let mut out = vec![format!("Kafka release: {}", a.kafka_version.text)];
    out.extend(a.unread.iter().map(|u| format!("not read: {}", u.text)));
    let values: usize = a.topics.iter().map(|t| t.values.len()).sum();
    if values > 0 {
        out.push(format!(
            "{values} config value(s) of {} topic(s) assumed (see Inputs and assumptions)",
            a.topics.len()
        ));
    }
    out
}

impl Headline {
    /// The headline of a `diagnose` document: its per-log-dir disk and startup figures.
    pub fn of_diagnose(doc: &Envelope<DiagnoseBody>) -> Headline {
        let dirs = (doc.body.log_dirs.iter())
            .map(|d| {
                let disk = d.disk.as_ref();
                DirHeadline {
                    log_dir: crate::model::names::path_text(&d.path),
                    log_bytes: d.bytes,
                    free_bytes: disk.and_then(|x| x.fs_free_bytes),
                    total_bytes: disk.and_then(|x| x.fs_total_bytes),
                    growth_bytes_per_hour: disk
                        .filter(|x| x.growth_unknown.is_none())
                        .map(|x| x.growth_bytes_per_hour),
                    time_to_full: (doc.body.headline.log_dirs.iter())
                        .find(|h| h.path == d.path)
                        .map(|h| h.time_to_full.clone()),
                    next_pass: Some((d.freed_segments, d.freed_bytes)),
                    // The diagnose headline's figure (what the fixes in this report free).
                    fixes_free_bytes: (doc.body.headline.log_dirs.iter())
                        .find(|h| h.path == d.path)
                        .map(|h| h.fixes_free_bytes),
                    lock: d.startup.as_ref().map(|s| {
                        if s.locked {
                            "held: a running broker holds the dir (figures are what a crash now \
                             would cost)"
                        } else if s.clean_shutdown {
                            "not held; the broker shut down cleanly"
                        } else {
                            "not held; no clean-shutdown marker (the next start recovers)"
                        }
                        .to_string()
                    }),
                }
            })
            .collect();
        Headline {
            dirs,
            lines: Vec::new(),
            assumptions: assumed(doc),
            top_partitions: (doc.body.top_partitions.iter())
                .map(|p| {
                    (
                        format!("{}-{}", p.topic, p.partition),
                        p.retained_bytes,
                        p.freed_bytes,
                    )
                })
                .collect(),
            now_ms: doc.evaluated_at_ms,
        }
    }

    /// The headline of a `plan` document: per log dir the planned bytes and what the passes
    /// free (a plan reads no filesystem figures).
    pub fn of_plan(doc: &Envelope<PlanBody>) -> Headline {
        let b = &doc.body;
        let mut bytes: BTreeMap<&str, u64> = BTreeMap::new();
        for p in &b.partitions {
            *bytes.entry(p.log_dir.as_str()).or_default() +=
                p.segments.iter().map(|s| s.size_bytes).sum::<u64>();
        }
        let dirs: Vec<DirHeadline> = (bytes.iter())
            .map(|(dir, log_bytes)| {
                let freed = (b.totals.per_log_dir.iter()).find(|f| f.log_dir == *dir);
                DirHeadline {
                    log_dir: (*dir).to_string(),
                    log_bytes: *log_bytes,
                    next_pass: Some(freed.map_or((0, 0), |f| (f.segments, f.bytes))),
                    ..DirHeadline::default()
                }
            })
            .collect();
        let mut lines = Vec::new();
        // One log dir says it already.
        if dirs.len() > 1 {
            lines.push((
                "next passes free in all".to_string(),
                format!(
                    "{} segment(s), {}",
                    b.totals.segments_deleted,
                    size(b.totals.bytes_freed)
                ),
            ));
        }
        let first = match b.cleaner_first.pick {
            "log" => b.cleaner_first.logs.join(", "),
            "order_unknown" => format!("one of {}", b.cleaner_first.logs.join(", ")),
            _ => "nothing to clean".to_string(),
        };
        lines.push(("cleaner takes first".to_string(), first));
        if let Some(w) = &b.what_if {
            lines.push((
                format!("under {}", w.config.join(" ")),
                format!(
                    "{} segment(s) change verdict; {} {} freed than today",
                    w.changes.len(),
                    size(w.bytes_freed_delta.unsigned_abs()),
                    if w.bytes_freed_delta >= 0 {
                        "more"
                    } else {
                        "less"
                    }
                ),
            ));
        }
        let gates = [
            ("--fail-if-deletes-more-than", b.gates.deletes_more_than),
            ("--fail-if-retains-expired", b.gates.retains_expired),
        ];
        for (flag, g) in gates {
            if let Some(g) = g {
                lines.push((
                    flag.to_string(),
                    format!(
                        "{} (value {}, limit {})",
                        if g.tripped { "tripped" } else { "passed" },
                        g.value,
                        g.limit
                    ),
                ));
            }
        }
        Headline {
            dirs,
            lines,
            assumptions: assumed(doc),
            top_partitions: Vec::new(),
            now_ms: doc.evaluated_at_ms,
        }
    }

    /// The log dirs, as the document writes them.
    pub fn log_dirs(&self) -> Vec<String> {
        self.dirs.iter().map(|d| d.log_dir.clone()).collect()
    }

    /// The section's HTML.
    pub fn html(&self) -> String {
        let mut h = String::new();
        for d in &self.dirs {
            h.push_str(&self.dir_html(d));
        }
        if !self.lines.is_empty() {
            h.push_str("<dl class=\"facts\">\n");
            for (k, v) in &self.lines {
                h.push_str(&format!("<dt>{}</dt><dd>{}</dd>\n", esc(k), esc(v)));
            }
            h.push_str("</dl>\n");
        }
        if !self.assumptions.is_empty() {
            h.push_str("<h3>The answer assumes</h3>\n<ul class=\"assumes\">");
            for a in &self.assumptions {
                h.push_str(&format!("<li>{}</li>", esc(a)));
            }
            h.push_str("</ul>\n");
        }
        if !self.top_partitions.is_empty() {
            h.push_str(
                "<h3>Where the bytes are</h3>\n<table><thead><tr><th>partition</th>\
                 <th class=\"num\">kept after the next pass</th><th class=\"num\">freed by it</th>\
                 </tr></thead><tbody>\n",
            );
            for (p, kept, freed) in &self.top_partitions {
                h.push_str(&format!(
                    "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
                    esc(p),
                    esc(&size(*kept)),
                    esc(&size(*freed))
                ));
            }
            h.push_str("</tbody></table>\n");
        }
        h
    }

    fn dir_html(&self, d: &DirHeadline) -> String {
        let mut h = format!(
            "<div class=\"dir\">\n<h3><code>{}</code></h3>\n",
            esc(&d.log_dir)
        );
        if let (Some(used), Some(free), Some(total)) = (d.used_bytes(), d.free_bytes, d.total_bytes)
        {
            h.push_str(&format!(
                "<p class=\"big\"><b>{}</b> used · <b>{}</b> free · <b>{}</b> total</p>\n",
                esc(&size(used)),
                esc(&size(free)),
                esc(&size(total))
            ));
            h.push_str(&usage_bar(d.log_bytes, used, total));
        } else {
            h.push_str(&format!(
                "<p class=\"big\"><b>{}</b> of log segments (the filesystem's free and total \
                 bytes are not in this report)</p>\n",
                esc(&size(d.log_bytes))
            ));
        }
        h.push_str("<dl class=\"facts\">\n");
        let mut fact = |k: &str, v: String| {
            h.push_str(&format!("<dt>{}</dt><dd>{}</dd>\n", esc(k), esc(&v)));
        };
        fact("log segments", size(d.log_bytes));
        if let Some(g) = d.growth_bytes_per_hour {
            fact("grows by", format!("{}/h", size(g)));
        }
        match &d.time_to_full {
            Some(TimeToFull::Known { at_ms, .. }) => fact("full", when_from(*at_ms, self.now_ms)),
            Some(TimeToFull::Unknown { because }) => fact("full", format!("unknown: {because}")),
            None => {}
        }
        if let Some((segments, bytes)) = d.next_pass {
            fact(
                "next retention pass frees",
                format!("{} in {segments} segment(s)", size(bytes)),
            );
        }
        if let Some(b) = d.fixes_free_bytes {
            fact("the fixes below free", size(b));
        }
        if let Some(l) = &d.lock {
            fact("broker lock", l.clone());
        }
        h.push_str("</dl>\n</div>\n");
        h
    }
}

/// A horizontal bar of the filesystem: log segments, other used bytes, free.
fn usage_bar(log_bytes: u64, used: u64, total: u64) -> String {
    let pct = |b: u64| {
        if total == 0 {
            0.0
        } else {
            (b as f64 / total as f64 * 100.0).clamp(0.0, 100.0)
        }
    };
    let log = pct(log_bytes.min(used));
    let other = pct(used) - log;
    format!(
        "<svg class=\"bar\" role=\"img\" aria-label=\"disk usage\" viewBox=\"0 0 100 4\" \
         preserveAspectRatio=\"none\" width=\"100%\" height=\"14\">\
         <rect class=\"free\" x=\"0\" y=\"0\" width=\"100\" height=\"4\"/>\
         <rect class=\"used\" x=\"0\" y=\"0\" width=\"{:.3}\" height=\"4\"/>\
         <rect class=\"log\" x=\"{:.3}\" y=\"0\" width=\"{:.3}\" height=\"4\"/></svg>\n\
         <p class=\"legend\"><span class=\"k log\"></span>log segments \
         <span class=\"k used\"></span>other used <span class=\"k free\"></span>free</p>\n",
        other + log,
        other,
        log
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn used_is_total_minus_free_and_missing_figures_are_left_out() {
        let d = DirHeadline {
            log_dir: "/d<x>".into(),
            log_bytes: 10,
            free_bytes: Some(1000),
            total_bytes: Some(3000),
            time_to_full: Some(TimeToFull::Unknown {
                because: "no partition grows".into(),
            }),
            ..DirHeadline::default()
        };
        assert_eq!(d.used_bytes(), Some(2000));
        let h = Headline {
            dirs: vec![d],
            ..Headline::default()
        }
        .html();
        assert!(h.contains("<code>/d&lt;x&gt;</code>"), "{h}");
        // Never "never": a dir that does not grow now may grow later.
        assert!(h.contains("unknown: no partition grows"), "{h}");
        assert!(!h.contains("broker lock"), "{h}");
        let unknown = DirHeadline {
            log_bytes: 5,
            ..DirHeadline::default()
        };
        assert_eq!(unknown.used_bytes(), None);
    }
}
