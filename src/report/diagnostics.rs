//! Findings as diagnostics, the way rustc and ripgrep report (STYLE G22): a header line
//! `warning[code] place: one-line claim`, the evidence as short `key: value` lines in human
//! units (a config value as `retention.ms = 7200000 (2 h)`), then `fix:` with the whole command.
//!
//! Order ([`ordered_groups`]): most severe first, then most bytes at stake
//! (`checks::stake`), then place. The same code with the same message and fix (figures aside)
//! on several places is one diagnostic with the count and the first [`LISTED_PLACES`] places.
//!
//! Nothing a reader copies is shortened. The fix is wrapped between words; a command (a
//! backquoted span of several words) that does not fit on the rest of a line starts its own line
//! and is wrapped only between arguments, each broken line ending in a shell continuation ` \`.
//! So the fix lines joined with single spaces (dropping the ` \`) are the JSON `fix` exactly, and
//! a command selected from its opening to its closing backquote runs as is. Paths in commands
//! are shell-quoted by the checks that write them (`model::names::shell_word`); any other
//! unsafe byte is escaped ([`escape`]). A word longer than the line (a long path) overflows it
//! rather than being cut.

use humansize::{format_size, BINARY};

use super::human::{age, duration, time, Precision};
use super::sanitize::escape;
use super::table::TableStyle;
use super::terminal::{shorten_path, text_width};
use super::wire::findings::{EvidenceDoc, EvidenceValueDoc, FindingDoc};
use crate::config::log_config::{CLEANUP_BROKER_KEYS, CLEANUP_TOPIC_KEYS};

/// Places listed in a grouped diagnostic before `+K more`.
pub const LISTED_PLACES: usize = 5;

/// Indent of the evidence and the `fix:` line.
const ITEM: &str = "  ";
/// Indent of a wrapped message or fix line.
const WRAPPED: &str = "    ";
/// Indent of a command's continuation lines.
const CONTINUED: &str = "      ";

/// A severity's rank, most severe highest.
pub fn severity_rank(severity: &str) -> u8 {
    match severity {
        "error" => 2,
        "warning" => 1,
        _ => 0,
    }
}

/// Findings that share severity, code, message and fix (figures aside), in report order.
#[derive(Debug)]
pub struct FindingGroup<'a> {
    /// The first of them (its message, evidence and fix are shown).
    pub first: &'a FindingDoc,
    /// All of them, in place order.
    pub all: Vec<&'a FindingDoc>,
}

impl FindingGroup<'_> {
    /// The bytes at stake in all of them.
    pub fn bytes_at_stake(&self) -> u64 {
        self.all
            .iter()
            .filter_map(|f| f.bytes_at_stake)
            .fold(0u64, u64::saturating_add)
    }
}

/// A message with its figures blanked out: findings whose texts differ only in figures group.
fn template(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_digits = false;
    for c in s.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
            }
            in_digits = true;
        } else {
            in_digits = false;
            out.push(c);
        }
    }
    out
}

/// `findings` (in place order) grouped, most severe first, then most bytes at stake, then
/// place: the order every rendering for people shows them in.
pub fn ordered_groups(findings: &[FindingDoc]) -> Vec<FindingGroup<'_>> {
    let mut groups: Vec<(String, FindingGroup<'_>)> = Vec::new();
    for f in findings {
        let key = format!(
            "{}\u{0}{}\u{0}{}\u{0}{}",
            f.severity,
            f.code,
            template(&f.message),
            template(&f.fix)
        );
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => g.all.push(f),
            None => groups.push((
                key,
                FindingGroup {
                    first: f,
                    all: vec![f],
                },
            )),
        }
    }
    let mut groups: Vec<FindingGroup<'_>> = groups.into_iter().map(|(_, g)| g).collect();
    // Stable: groups of equal rank and stake keep their place order.
    groups.sort_by(|a, b| {
        severity_rank(&b.first.severity)
            .cmp(&severity_rank(&a.first.severity))
            .then_with(|| b.bytes_at_stake().cmp(&a.bytes_at_stake()))
    });
    groups
}

/// The last component of a path.
fn file_name(file: &str) -> String {
    std::path::Path::new(file)
        .file_name()
        .map_or_else(|| file.to_string(), |n| n.to_string_lossy().into_owned())
}

/// Where one finding is: partition dir, file name and `@byte`; the file or dir; the group; the
/// topic; else the log dir. A path too long for `max` columns is shortened in the middle (a
/// place is read, not copied: the evidence and the fix keep every path whole).
fn place(f: &FindingDoc, max: usize) -> String {
    let s = place_in_full(f);
    if text_width(&s) <= max {
        return s;
    }
    shorten_path(&s, max)
}

fn place_in_full(f: &FindingDoc) -> String {
    let l = &f.location;
    let mut s = match (&l.dir, &l.file) {
        (Some(dir), Some(file)) => format!("{} {}", escape(dir), escape(&file_name(file))),
        (Some(dir), None) => escape(dir).into_owned(),
        (None, Some(file)) => escape(file).into_owned(),
        (None, None) => match (&l.group, &l.topic) {
            (Some(g), _) => format!("group {}", escape(g)),
            (None, Some(t)) => format!("topic {}", escape(t)),
            (None, None) => escape(&l.log_dir).into_owned(),
        },
    };
    if let Some(b) = l.byte_offset {
        s.push_str(&format!(" @{b}"));
    }
    // Set only when the findings come from several brokers' dirs or reports.
    if let Some(n) = l.node {
        s.push_str(&format!(" (node {n})"));
    }
    s
}

/// A group's places: what the header names, and the `at:` line listing them (for several).
fn places(g: &FindingGroup<'_>, max: usize) -> (String, Option<String>) {
    let n = g.all.len();
    if n == 1 {
        return (place(g.first, max), None);
    }
    // A partition's replicas on several nodes are several places.
    let mut dirs: Vec<(&str, Option<i32>)> = g
        .all
        .iter()
        .filter_map(|f| Some((f.location.dir.as_deref()?, f.location.node)))
        .collect();
    dirs.sort_unstable();
    dirs.dedup();
    let files = g.all.iter().all(|f| f.location.file.is_some());
    let head = match dirs.len() {
        0 if files => format!("{n} files"),
        0 => format!("{n} places"),
        d if d == n => format!("{n} partitions"),
        1 if files => format!("{n} files in 1 partition"),
        d if files => format!("{n} files in {d} partitions"),
        d => format!("{n} places in {d} partitions"),
    };
    let mut listed: Vec<String> = g
        .all
        .iter()
        .take(LISTED_PLACES)
        .map(|f| place(f, max))
        .collect();
    if n > LISTED_PLACES {
        listed.push(format!(
            "+{} more (--format json lists all)",
            n - LISTED_PLACES
        ));
    }
    (head, Some(listed.join(", ")))
}

/// `name` as a config key when the evidence is one (`retention_ms` → `retention.ms`).
fn config_key(name: &str) -> Option<String> {
    let key = name.replace('_', ".");
    (CLEANUP_TOPIC_KEYS.contains(&key.as_str()) || CLEANUP_BROKER_KEYS.contains(&key.as_str()))
        .then_some(key)
}

/// A byte count in human units, with the exact count past 1 KiB.
fn bytes(b: u64) -> String {
    if b >= 1024 {
        format!("{} ({b} bytes)", format_size(b, BINARY))
    } else {
        format!("{b} bytes")
    }
}

/// A signed figure named `name` in human units, when its name says its unit.
fn int_in_units(name: &str, v: i64) -> String {
    let unlimited = v == i64::MAX || (v == -1 && config_key(name).is_some());
    if unlimited {
        return format!("{v} (unlimited)");
    }
    if name.ends_with("bytes_per_sec") && v >= 0 {
        return format!("{} B/s", v);
    }
    if name.ends_with("_ms") && v > 0 {
        return format!("{v} ({})", duration(v));
    }
    match u64::try_from(v) {
        Ok(b) if name.ends_with("_bytes") && b >= 1024 => {
            format!("{v} ({})", format_size(b, BINARY))
        }
        _ => v.to_string(),
    }
}

/// One evidence item as `name: value` (`key = value` for a config value).
fn evidence_item(e: &EvidenceDoc, style: &TableStyle) -> String {
    use EvidenceValueDoc as V;
    let value = match (&*e.kind, &e.value) {
        ("bytes", V::Unsigned(b)) => bytes(*b),
        ("timestamp_ms", V::Int(ms)) if *ms < 0 => format!("{ms} (no timestamp)"),
        ("timestamp_ms", V::Int(ms)) => match time(*ms, style.zone, Precision::Seconds) {
            Some(t) => format!("{t} ({})", age(*ms, style.evaluated_at_ms)),
            None => ms.to_string(),
        },
        ("crc32", V::Unsigned(c)) => format!("0x{c:08x}"),
        (_, V::Int(v)) => int_in_units(&e.name, *v),
        (_, V::Unsigned(v)) => u64_in_units(&e.name, *v),
        (_, V::Flag(b)) => if *b { "yes" } else { "no" }.to_string(),
        (_, V::Text(t)) => escape(t).into_owned(),
    };
    match config_key(&e.name) {
        Some(key) => format!("{key} = {value}"),
        None => format!("{}: {value}", e.name),
    }
}

fn u64_in_units(name: &str, v: u64) -> String {
    i64::try_from(v).map_or_else(|_| v.to_string(), |i| int_in_units(name, i))
}

/// The evidence lines: one item a line, except that the items after a `problem` item (one
/// example of a bounded summary) share its line.
fn evidence_lines(evidence: &[EvidenceDoc], style: &TableStyle) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut in_example = false;
    for e in evidence {
        let item = evidence_item(e, style);
        match lines.last_mut() {
            Some(line) if in_example && e.kind != "problem" => {
                line.push_str(", ");
                line.push_str(&item);
            }
            _ => lines.push(item),
        }
        if e.kind == "problem" {
            in_example = true;
        }
    }
    lines
}

/// The separator before the next word on `line`: none at the start of a line or after an
/// indent, else one space.
fn sep(line: &str) -> &'static str {
    if line.is_empty() || line.ends_with(' ') {
        ""
    } else {
        " "
    }
}

/// Whether `line` holds a word after its lead (`"    "`, `"  fix:"` hold none).
fn has_words(line: &str, lead: &str) -> bool {
    line.len() > lead.len() || !line.ends_with(' ') && line != lead
}

/// Words of `text` laid out after `first` (the start of the first line) and then after
/// `indent`, within `width`; a word wider than a line gets a line of its own, whole.
pub fn wrap(first: &str, text: &str, indent: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = first.to_string();
    for w in glued(text) {
        let w = w.as_str();
        // A lead with words of its own (a diagnostic's header) may end its line too.
        if !line.trim().is_empty()
            && !line.ends_with(' ')
            && text_width(&line) + 1 + text_width(w) > width
        {
            out.push(std::mem::replace(&mut line, indent.to_string()));
        }
        line.push_str(sep(&line));
        line.push_str(w);
    }
    out.push(line);
    out
}

/// Whether `w` is a unit a number before it must stay with (`6 d`, `1.2 KiB`, `3 B/s`).
fn is_unit(w: &str) -> bool {
    let w = w.trim_end_matches([',', ';', ':', ')', '.']);
    [
        "ms",
        "s",
        "min",
        "h",
        "d",
        "y",
        "B",
        "KiB",
        "MiB",
        "GiB",
        "TiB",
        "bytes",
        "B/s",
        "B/h",
        "KiB/h",
        "MiB/h",
        "GiB/h",
        "MiB/s",
        "MB/s",
        "segment(s)",
        "partition(s)",
    ]
    .contains(&w)
}

/// The words of `text`, a number kept with the unit after it.
fn glued(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut words = text.split_whitespace().peekable();
    while let Some(w) = words.next() {
        let number = w
            .trim_start_matches(['(', '>', '<', '~'])
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.')
            && w.chars().any(|c| c.is_ascii_digit());
        match words.peek() {
            Some(next) if number && is_unit(next) => {
                out.push(format!("{w} {next}"));
                words.next();
            }
            _ => out.push(w.to_string()),
        }
    }
    out
}

/// One word of a fix, and the backquoted span it is part of (if any).
struct Word<'a> {
    text: &'a str,
    span: Option<usize>,
}

/// The words of a fix: split at whitespace, except inside single quotes within a backquoted
/// span (a shell-quoted path with a space stays one argument).
fn fix_words(fix: &str) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    let (mut in_span, mut in_quote, mut escaped) = (false, false, false);
    let mut spans = 0usize;
    let mut start: Option<usize> = None;
    let mut span: Option<usize> = None;
    for (i, c) in fix.char_indices() {
        if c.is_whitespace() && !in_quote && !escaped {
            if let Some(s) = start.take() {
                out.push(Word {
                    text: fix.get(s..i).unwrap_or(""),
                    span: span.take(),
                });
            }
            span = in_span.then_some(spans);
            continue;
        }
        start.get_or_insert(i);
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '`' if !in_quote => {
                if !in_span {
                    spans += 1;
                }
                in_span = !in_span;
                span = Some(spans);
            }
            '\\' if in_span && !in_quote => escaped = true,
            '\'' if in_span => in_quote = !in_quote,
            _ => {}
        }
        if in_span {
            span = Some(spans);
        }
    }
    if let Some(s) = start {
        out.push(Word {
            text: fix.get(s..).unwrap_or(""),
            span,
        });
    }
    out
}

/// The `fix:` lines ([module docs](self)).
fn fix_lines(fix: &str, width: usize) -> Vec<String> {
    let fix = escape(fix);
    let words = fix_words(&fix);
    // A span of several words is a command.
    let span_len = |id: usize| words.iter().filter(|w| w.span == Some(id)).count();
    let lead = format!("{ITEM}fix:");
    let mut lines: Vec<String> = Vec::new();
    let mut line = lead.clone();
    let mut line_lead = lead.clone();
    let mut prev_span: Option<usize> = None;
    for (i, w) in words.iter().enumerate() {
        let command = w.span.filter(|&id| span_len(id) > 1);
        let fits = |line: &str, text: &str| text_width(line) + 1 + text_width(text) <= width;
        match command {
            // Inside a command: break only here, with a shell continuation.
            Some(id) if prev_span == Some(id) => {
                if !fits(&line, w.text)
                    || !fits(&line, &format!("{} \\", w.text)) && !last_of(&words, i, id)
                {
                    line.push_str(" \\");
                    lines.push(std::mem::replace(&mut line, CONTINUED.to_string()));
                    line_lead = CONTINUED.to_string();
                }
            }
            // A command's first word: the whole command on this line, else on a line of its own.
            Some(id) => {
                let whole: Vec<&str> = (words.iter().skip(i))
                    .take_while(|x| x.span == Some(id))
                    .map(|x| x.text)
                    .collect();
                if has_words(&line, &line_lead) && !fits(&line, &whole.join(" ")) {
                    lines.push(std::mem::replace(&mut line, WRAPPED.to_string()));
                    line_lead = WRAPPED.to_string();
                }
            }
            None => {
                if has_words(&line, &line_lead) && !fits(&line, w.text) {
                    lines.push(std::mem::replace(&mut line, WRAPPED.to_string()));
                    line_lead = WRAPPED.to_string();
                }
            }
        }
        line.push_str(sep(&line));
        line.push_str(w.text);
        prev_span = command;
    }
    lines.push(line);
    lines
}

/// Whether word `i` is the last of span `id`.
fn last_of(words: &[Word<'_>], i: usize, id: usize) -> bool {
    words.get(i + 1).is_none_or(|n| n.span != Some(id))
}

/// One group as a diagnostic.
fn diagnostic(g: &FindingGroup<'_>, style: &TableStyle) -> Vec<String> {
    let f = g.first;
    let severity = match (style.color, severity_rank(&f.severity)) {
        (false, _) => f.severity.to_string(),
        (true, 2) => format!("\x1b[31m{}\x1b[0m", f.severity),
        (true, 1) => format!("\x1b[33m{}\x1b[0m", f.severity),
        (true, _) => format!("\x1b[36m{}\x1b[0m", f.severity),
    };
    let prefix = text_width(&f.severity) + text_width(&f.code) + 4;
    let (head, at) = places(g, style.width.saturating_sub(prefix).max(20));
    // Width is counted without the colour codes.
    // The place and claim wrap as words after `severity[code]`, so a narrow terminal breaks
    // the header too.
    let plain = format!("{}[{}]", f.severity, f.code);
    let message = escape(&f.message);
    // A claim that opens with its own place ("topic ft: …") is not said twice.
    let claim = message
        .strip_prefix(&format!("{head}: "))
        .unwrap_or(&message);
    let text = format!("{head}: {claim}");
    let mut lines = wrap(&plain, &text, WRAPPED, style.width);
    if let Some(first) = lines.first_mut() {
        *first = first.replacen(&*f.severity, &severity, 1);
    }
    if let Some(at) = at {
        lines.extend(wrap(&format!("{ITEM}at:"), &at, WRAPPED, style.width));
        if g.all.iter().any(|x| x.message != f.message) {
            lines.extend(wrap(
                ITEM,
                "(figures differ by place; the first is shown)",
                WRAPPED,
                style.width,
            ));
        }
    }
    let evidence = evidence_lines(&f.evidence, style);
    if g.all.len() > 1 && !evidence.is_empty() {
        lines.extend(wrap(
            ITEM,
            "evidence at the first place:",
            WRAPPED,
            style.width,
        ));
    }
    for e in evidence {
        lines.extend(wrap(ITEM, &e, WRAPPED, style.width));
    }
    lines.extend(fix_lines(&f.fix, style.width));
    lines
}

/// `findings` as diagnostics, most severe first, a blank line between them (None when there
/// are none).
pub fn render_findings(findings: &[FindingDoc], style: &TableStyle) -> Option<String> {
    let groups = ordered_groups(findings);
    if groups.is_empty() {
        return None;
    }
    let mut out = String::new();
    for (i, g) in groups.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        for l in diagnostic(g, style) {
            out.push_str(&l);
            out.push('\n');
        }
    }
    Some(out)
}

/// The fix text of each diagnostic in `table` output: every `fix:` line joined with its
/// wrapped lines by single spaces, each shell continuation (` \`) dropped, in output order.
/// (What tests compare with the JSON `fix`.)
#[cfg(test)]
fn fixes_in(table: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current: Option<String> = None;
    for line in table.lines() {
        if let Some(rest) = line.strip_prefix(&format!("{ITEM}fix:")) {
            out.extend(current.take());
            current = Some(rest.trim().to_string());
            continue;
        }
        match current.as_mut() {
            Some(c) if line.starts_with(WRAPPED) => {
                let part = line.trim();
                let part = part.strip_suffix(" \\").unwrap_or(part);
                if c.ends_with(" \\") {
                    c.truncate(c.len() - 2);
                }
                if !c.is_empty() {
                    c.push(' ');
                }
                c.push_str(part);
                if line.trim_end().ends_with(" \\") {
                    c.push_str(" \\");
                }
            }
            _ => out.extend(current.take()),
        }
    }
    out.extend(current);
    out.into_iter()
        .map(|c| c.strip_suffix(" \\").map_or(c.clone(), str::to_string))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::human::Zone;

    fn style(width: usize) -> TableStyle {
        TableStyle {
            color: false,
            width,
            zone: Zone::Utc,
            evaluated_at_ms: 0,
        }
    }

    #[test]
    fn a_long_command_is_wrapped_between_arguments_and_joins_back() {
        let fix = "let it roll sooner: `kafka-configs.sh --bootstrap-server HOST:PORT --alter \
                   --entity-type topics --entity-name trickle --add-config segment.ms=7200000` \
                   (segment.ms is 604800000), or with the broker stopped `logclean roll \
                   --execute '/srv/my logs/kafka-logs-with-a-very-long-name-0/trickle-0'`";
        for width in [40, 60, 100, 200] {
            let lines = fix_lines(fix, width);
            let text = lines.join("\n");
            assert_eq!(fixes_in(&text), [fix], "{width}:\n{text}");
            // The quoted path is one argument, never split.
            assert!(
                lines
                    .iter()
                    .any(|l| l
                        .contains("'/srv/my logs/kafka-logs-with-a-very-long-name-0/trickle-0'`")),
                "{text}"
            );
            // Only an argument wider than the line overflows it, alone on its line.
            for l in &lines {
                assert!(
                    text_width(l) <= width || l.trim_start().starts_with("'/srv/my logs"),
                    "{width}: {l}"
                );
            }
        }
    }

    #[test]
    fn prose_with_inline_keys_and_no_command() {
        let fix = "raise `num.recovery.threads.per.data.dir` (now 1) for that start";
        assert_eq!(fix_lines(fix, 100), [format!("  fix: {fix}")]);
        assert_eq!(fixes_in(&fix_lines(fix, 30).join("\n")), [fix]);
    }

    #[test]
    fn config_evidence_reads_as_key_equals_value_in_units() {
        let e = |name: &'static str, kind: &'static str, value| EvidenceDoc {
            name: name.into(),
            kind: kind.into(),
            value,
        };
        let s = style(100);
        assert_eq!(
            evidence_item(
                &e("retention_ms", "int", EvidenceValueDoc::Int(7_200_000)),
                &s
            ),
            "retention.ms = 7200000 (2 h)"
        );
        assert_eq!(
            evidence_item(
                &e("segment_bytes", "int", EvidenceValueDoc::Int(1 << 30)),
                &s
            ),
            "segment.bytes = 1073741824 (1 GiB)"
        );
        assert_eq!(
            evidence_item(&e("size", "bytes", EvidenceValueDoc::Unsigned(6480)), &s),
            "size: 6.33 KiB (6480 bytes)"
        );
        assert_eq!(
            evidence_item(
                &e(
                    "first_timestamp",
                    "timestamp_ms",
                    EvidenceValueDoc::Int(7_200_000)
                ),
                &s
            ),
            "first_timestamp: 1970-01-01 02:00:00 UTC (in 2 h)"
        );
    }

    #[test]
    fn templates_blank_figures_only() {
        assert_eq!(template("12 of 4096 slots"), "# of # slots");
        assert_eq!(template("no figures"), "no figures");
    }

    #[test]
    fn severity_then_stake_then_place() {
        let f = |severity: &'static str, code: &'static str, stake: Option<u64>| FindingDoc {
            code: code.into(),
            severity: severity.into(),
            class: "condition".into(),
            location: crate::report::wire::findings::LocationDoc::new(
                &crate::checks::finding::Location::default(),
            ),
            message: code.to_string(),
            evidence: Vec::new(),
            fix: "x".to_string(),
            bytes_at_stake: stake,
            fix_frees_bytes: None,
        };
        let all = [
            f("info", "a.a", Some(100)),
            f("warning", "b.b", Some(1)),
            f("error", "c.c", None),
            f("warning", "d.d", Some(5)),
            f("warning", "e.e", None),
        ];
        let order: Vec<_> = ordered_groups(&all)
            .iter()
            .map(|g| g.first.code.clone())
            .collect();
        assert_eq!(order, ["c.c", "d.d", "b.b", "e.e", "a.a"]);
    }
}
