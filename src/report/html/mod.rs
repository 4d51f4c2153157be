//! `--format html` of `diagnose` and `plan`: one self-contained page to attach to an incident
//! ticket, rendered from the same wire documents as the JSON output (the [`Envelope`] with
//! [`DiagnoseBody`] or [`PlanBody`], and the plan's [`PartitionPlanDoc`]s).
//!
//! Sections, in order (each a `<section id=...>`): `headline` (the answer first: disk used,
//! free and total, time to full, what the next retention pass frees; [`headline`]), `disk` (a
//! projection chart per log dir: used and free over the next days and what each retention pass
//! frees; [`chart`]), `timelines` (per partition: when each segment goes and what keeps it;
//! [`timeline`]), `findings` (most severe first, each with its complete fix command), `inputs`
//! (what was read and what the answer assumes).
//!
//! The page fetches nothing: inline CSS and SVG only, no script, and a Content-Security-Policy
//! of `default-src 'none'` so that even a browser that found a reference would not follow it.
//! Every text read from disk (paths, dir and file names, topics, messages quoting them) reaches
//! the page only through [`esc`]: terminal-unsafe characters made visible as
//! [`crate::report::sanitize`] does for tables, then the five HTML metacharacters escaped.

pub mod chart;
pub mod headline;
pub mod timeline;

use std::io::{self, Write};

use humansize::{format_size, BINARY};

use super::diagnose_table::DiagnoseBody;
use super::human::{duration, time, Precision, Zone};
use super::plan_doc::{PartitionPlanDoc, PlanBody};
use super::sanitize::escape;
use super::wire::assumptions::AssumptionsDoc;
use super::wire::findings::{EvidenceValueDoc, FindingDoc, LocationDoc};
use super::wire::Envelope;

/// The page's inline style sheet (no fonts fetched: the system's sans-serif and monospace).
const STYLE: &str = include_str!("style.css");

/// `s` safe inside HTML text and attribute values: terminal-unsafe characters written as
/// visible escapes ([`escape`]), then `&`, `<`, `>`, `"` and `'` as character references.
pub fn esc(s: &str) -> String {
    let visible = escape(s);
    let mut out = String::with_capacity(visible.len() + 8);
    for c in visible.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Bytes in binary units (`1.5 MiB`).
pub(crate) fn size(b: u64) -> String {
    format_size(b, BINARY)
}

/// A time in UTC to the minute (`2026-11-30 13:22 UTC`), `-` when unset.
pub(crate) fn when(ms: i64) -> String {
    time(ms, Zone::Utc, Precision::Minutes).unwrap_or_else(|| "-".to_string())
}

/// A time and its distance from `now` (`2026-11-30 13:22 UTC (in 2 h)`).
pub(crate) fn when_from(ms: i64, now: i64) -> String {
    let delta = ms.saturating_sub(now);
    let rel = if delta >= 0 {
        format!("in {}", duration(delta))
    } else {
        format!("{} ago", duration(delta.saturating_neg()))
    };
    format!("{} ({rel})", when(ms))
}

/// Render the `diagnose` document as one HTML page; `partitions` is the plan the diagnosis was
/// made from (its timelines and the disk chart's passes).
pub fn render_diagnose(
    doc: &Envelope<DiagnoseBody>,
    partitions: &[PartitionPlanDoc],
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut page = Page::new(doc);
    let headline = headline::Headline::of_diagnose(doc);
    page.section("headline", "Answer first", &headline.html());
    let now = doc.evaluated_at_ms;
    let (projections, span) = chart::Projection::with_page_span(
        chart::Projection::of_diagnose(&doc.body, partitions, now),
        now,
    );
    page.section("disk", "Disk projection", &chart::html(&projections));
    page.section(
        "timelines",
        "Segment timelines",
        &timeline::html(partitions, now, span),
    );
    page.section("findings", "Findings", &findings_html(&doc.findings));
    page.section(
        "inputs",
        "Inputs and assumptions",
        &inputs_html(doc, &headline.log_dirs()),
    );
    out.write_all(page.finish().as_bytes())
}

/// Render the `plan` document as one HTML page.
pub fn render_plan(doc: &Envelope<PlanBody>, out: &mut dyn Write) -> io::Result<()> {
    let mut page = Page::new(doc);
    let headline = headline::Headline::of_plan(doc);
    page.section("headline", "Answer first", &headline.html());
    let now = doc.evaluated_at_ms;
    let (projections, span) = chart::Projection::with_page_span(
        chart::Projection::of_plan(&doc.body.partitions, now),
        now,
    );
    page.section("disk", "Disk projection", &chart::html(&projections));
    page.section(
        "timelines",
        "Segment timelines",
        &timeline::html(&doc.body.partitions, now, span),
    );
    page.section("findings", "Findings", &findings_html(&doc.findings));
    page.section(
        "inputs",
        "Inputs and assumptions",
        &inputs_html(doc, &headline.log_dirs()),
    );
    out.write_all(page.finish().as_bytes())
}

/// The page being built: head, header, then sections.
struct Page {
    html: String,
}

impl Page {
    fn new<B>(doc: &Envelope<B>) -> Page {
        let s = &doc.summary;
        let title = format!(
            "logclean {} — {} error, {} warning, {} info — {}",
            doc.command,
            s.error,
            s.warning,
            s.info,
            when(doc.evaluated_at_ms)
        );
        let mut html = String::with_capacity(64 * 1024);
        html.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
        // Nothing on the page is fetched; this says so to the browser too.
        html.push_str(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
             style-src 'unsafe-inline'\">\n",
        );
        html.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
        html.push_str(&format!("<title>{}</title>\n", esc(&title)));
        html.push_str(&format!("<style>\n{STYLE}</style>\n</head>\n<body>\n"));
        html.push_str(&format!(
            "<header><h1>logclean {cmd}</h1><p class=\"meta\">evaluated at \
             <b>{at}</b> · generated {gen} by {tool} · schema {schema} · exit code \
             <b>{code}</b></p><p class=\"counts\"><span class=\"sev-error\">{e} error</span> \
             <span class=\"sev-warning\">{w} warning</span> <span class=\"sev-info\">{i} \
             info</span></p></header>\n<main>\n",
            cmd = esc(doc.command),
            at = esc(&when(doc.evaluated_at_ms)),
            gen = esc(&when(doc.generated_at_ms)),
            tool = esc(&doc.tool),
            schema = doc.schema_version,
            code = s.exit_code,
            e = s.error,
            w = s.warning,
            i = s.info,
        ));
        Page { html }
    }

    fn section(&mut self, id: &str, title: &str, body: &str) {
        self.html.push_str(&format!(
            "<section id=\"{id}\">\n<h2>{}</h2>\n{body}</section>\n",
            esc(title)
        ));
    }

    fn finish(mut self) -> String {
        self.html.push_str("</main>\n</body>\n</html>\n");
        self.html
    }
}

/// Severity rank: error first.
fn rank(severity: &str) -> u8 {
    match severity {
        "error" => 0,
        "warning" => 1,
        _ => 2,
    }
}

/// Where a finding is, in short: the partition dir (or topic), segment, group, file name, byte.
fn place(l: &LocationDoc) -> String {
    let mut parts = Vec::new();
    match (&l.dir, &l.topic, l.partition) {
        (Some(d), _, _) => parts.push(d.clone()),
        (None, Some(t), Some(p)) => parts.push(format!("{t}-{p}")),
        (None, Some(t), None) => parts.push(t.clone()),
        _ => {}
    }
    if let Some(s) = l.segment {
        parts.push(format!("segment {s}"));
    }
    if let Some(g) = &l.group {
        parts.push(format!("group {g}"));
    }
    if let Some(f) = &l.file {
        // The file's name: the full path is in the tooltip.
        parts.push(f.rsplit('/').next().unwrap_or(f).to_string());
    }
    if let Some(b) = l.byte_offset {
        parts.push(format!("byte {b}"));
    }
    if parts.is_empty() {
        parts.push(l.log_dir.clone());
    }
    parts.join(" · ")
}

/// One evidence value for people: bytes in units with the raw count, times in UTC.
fn evidence_value(kind: &str, v: &EvidenceValueDoc) -> String {
    match (kind, v) {
        ("bytes", EvidenceValueDoc::Unsigned(b)) => format!("{} ({b} B)", size(*b)),
        ("timestamp_ms", EvidenceValueDoc::Int(t)) if *t >= 0 => format!("{} ({t})", when(*t)),
        ("crc32", EvidenceValueDoc::Unsigned(c)) => format!("0x{c:08x}"),
        (_, EvidenceValueDoc::Int(i)) => i.to_string(),
        (_, EvidenceValueDoc::Unsigned(u)) => u.to_string(),
        (_, EvidenceValueDoc::Text(t)) => t.clone(),
        (_, EvidenceValueDoc::Flag(b)) => b.to_string(),
    }
}

/// One finding as a diagnostic: `severity[code] place: message`, evidence, the fix in full.
fn finding_html(f: &FindingDoc) -> String {
    let mut h = format!(
        "<div class=\"diag sev-{sev}\">\n<p class=\"claim\"><span class=\"sev\">{sev}[{code}]</span> \
         <span class=\"place\" title=\"{full}\">{place}</span>: {msg}</p>\n",
        sev = esc(&f.severity),
        code = esc(&f.code),
        full = esc(&location_text(&f.location)),
        place = esc(&place(&f.location)),
        msg = esc(&f.message),
    );
    if !f.evidence.is_empty() {
        h.push_str("<dl class=\"evidence\">");
        for e in &f.evidence {
            h.push_str(&format!(
                "<dt>{}</dt><dd>{}</dd>",
                esc(&e.name),
                esc(&evidence_value(&e.kind, &e.value))
            ));
        }
        h.push_str("</dl>\n");
    }
    h.push_str(&format!(
        "<div class=\"fix\"><span class=\"label\">fix:</span><pre><code>{}</code></pre></div>\n</div>\n",
        esc(&f.fix)
    ));
    h
}

/// A location in full (log dir, file path), for the place's tooltip.
fn location_text(l: &LocationDoc) -> String {
    let mut t = format!("log dir {}", l.log_dir);
    if let Some(f) = &l.file {
        t.push_str(&format!(", file {f}"));
    }
    t
}

/// How many findings of one code are shown before the rest fold away.
const SHOWN_PER_CODE: usize = 3;

/// The findings, most severe first (then by place, as the document sorts them); the same code on
/// many places shows its first [`SHOWN_PER_CODE`] and folds the rest into one `<details>`.
fn findings_html(findings: &[FindingDoc]) -> String {
    if findings.is_empty() {
        return "<p class=\"none\">No findings.</p>\n".to_string();
    }
    let mut order: Vec<&FindingDoc> = findings.iter().collect();
    // Stable: within a severity the document's order (code and place) stays.
    order.sort_by_key(|f| (rank(&f.severity), f.code.clone()));
    let mut h = String::new();
    let mut i = 0;
    while let Some(first) = order.get(i) {
        let same = order
            .iter()
            .skip(i)
            .take_while(|f| f.code == first.code && f.severity == first.severity)
            .count();
        let group = order.get(i..i + same).unwrap_or_default();
        for f in group.iter().take(SHOWN_PER_CODE) {
            h.push_str(&finding_html(f));
        }
        if same > SHOWN_PER_CODE {
            h.push_str(&format!(
                "<details class=\"more\"><summary>{} more {}[{}]</summary>\n",
                same - SHOWN_PER_CODE,
                esc(&first.severity),
                esc(&first.code)
            ));
            for f in group.iter().skip(SHOWN_PER_CODE) {
                h.push_str(&finding_html(f));
            }
            h.push_str("</details>\n");
        }
        i += same;
    }
    h
}

/// What was read and what the answer assumes: the log dirs, the scan, the Kafka release applied
/// and why, the config levels not read and the values assumed for each topic.
fn inputs_html<B>(doc: &Envelope<B>, log_dirs: &[String]) -> String {
    let mut h = String::from("<dl class=\"facts\">\n");
    let mut fact = |k: &str, v: &str| {
        h.push_str(&format!("<dt>{}</dt><dd>{}</dd>\n", esc(k), esc(v)));
    };
    for d in log_dirs {
        fact("log dir", d);
    }
    if let Some(t) = &doc.summary.scanned {
        fact(
            "scanned",
            &format!(
                "{} log dir(s), {} partitions, {} segments, {}",
                t.log_dirs,
                t.partitions,
                t.segments,
                size(t.log_bytes)
            ),
        );
    }
    fact(
        "evaluated at",
        &format!("{} ({} ms)", when(doc.evaluated_at_ms), doc.evaluated_at_ms),
    );
    fact("generated at", &when(doc.generated_at_ms));
    fact("tool", &doc.tool);
    h.push_str("</dl>\n");
    match &doc.assumptions {
        Some(a) => h.push_str(&assumptions_html(a)),
        None => h.push_str("<p class=\"none\">This command assumes no config values.</p>\n"),
    }
    h
}

fn assumptions_html(a: &AssumptionsDoc) -> String {
    let v = &a.kafka_version;
    let mut h = format!("<h3>Kafka release</h3>\n<p>{}</p>\n", esc(&v.text));
    if !v.evidence.is_empty() {
        h.push_str("<ul>");
        for e in &v.evidence {
            h.push_str(&format!("<li>{}</li>", esc(e)));
        }
        h.push_str("</ul>\n");
    }
    if let Some(x) = &v.assumption {
        h.push_str(&format!("<p class=\"assumed\">assumed: {}</p>\n", esc(x)));
    }
    h.push_str("<h3>Config sources not read</h3>\n");
    if a.unread.is_empty() {
        h.push_str("<p class=\"none\">Every config source was read.</p>\n");
    } else {
        h.push_str("<ul>");
        for u in &a.unread {
            h.push_str(&format!("<li>{}</li>", esc(&u.text)));
        }
        h.push_str("</ul>\n");
    }
    h.push_str("<h3>Values assumed</h3>\n");
    if a.topics.is_empty() {
        h.push_str("<p class=\"none\">No verdict rests on an assumed value.</p>\n");
    } else {
        h.push_str(
            "<table><thead><tr><th>topic</th><th>config</th><th>value used</th>\
             <th>source</th><th>could be overridden by</th></tr></thead><tbody>\n",
        );
        for t in &a.topics {
            for x in &t.values {
                h.push_str(&format!(
                    "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                    esc(&t.topic),
                    esc(x.key),
                    esc(&x.value),
                    esc(x.source),
                    esc(&x.overridable_by.join(", "))
                ));
            }
        }
        h.push_str("</tbody></table>\n");
        h.push_str(&format!("<p class=\"hint\">{}</p>\n", esc(a.how_to_supply)));
    }
    h
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn metacharacters_and_controls_are_escaped() {
        assert_eq!(
            esc("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
        // Controls become visible escapes first, then nothing raw is left.
        assert_eq!(esc("a\x1b[31m<b>\n"), "a\\x1b[31m&lt;b&gt;\\n");
        assert_eq!(esc("größe ✓"), "größe ✓");
        let all: String = (0u8..=0x7f).map(char::from).collect();
        let e = esc(&all);
        assert!(!e.contains('<') && !e.contains('>') && !e.contains('"') && !e.contains('\''));
        assert!(!e.chars().any(|c| c.is_control()));
        assert!(e
            .split('&')
            .skip(1)
            .all(|r| ["amp;", "lt;", "gt;", "quot;", "#39;"]
                .iter()
                .any(|x| r.starts_with(x))));
    }

    #[test]
    fn places_and_evidence_read_like_diagnostics() {
        let l = LocationDoc {
            log_dir: "/d".into(),
            topic: Some("t".into()),
            partition: Some(0),
            dir: Some("t-0".into()),
            segment: Some(12),
            file: None,
            byte_offset: None,
            group: None,
            node: None,
        };
        assert_eq!(place(&l), "t-0 · segment 12");
        assert_eq!(
            evidence_value("bytes", &EvidenceValueDoc::Unsigned(2048)),
            "2 KiB (2048 B)"
        );
        assert_eq!(
            evidence_value("timestamp_ms", &EvidenceValueDoc::Int(1_796_044_920_000)),
            "2026-11-30 13:22 UTC (1796044920000)"
        );
        assert_eq!(
            evidence_value("timestamp_ms", &EvidenceValueDoc::Int(-1)),
            "-1"
        );
    }
}
