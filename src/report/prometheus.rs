//! The Prometheus text exposition format (version 0.0.4), as node_exporter's textfile collector
//! reads it: per metric family a `# HELP` and a `# TYPE` line, then its samples
//! `name{label="value",...} value`, one a line.
//!
//! Label values escape `\`, `"` and line feeds (`\\`, `\"`, `\n`); help texts escape `\` and
//! line feeds. A label value is a name read from disk, so it first goes through the terminal
//! escaping of [`super::sanitize::escape`] (a textfile is also read by people, with `cat`): a
//! control character is written as the text `\x1b` (whose backslash the format then escapes),
//! never raw. Families are written in the order given, samples sorted by their labels, so the
//! same input gives the same bytes. Reference:
//! <https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format>.

use std::collections::BTreeMap;
use std::io::{self, Write};

use super::sanitize::escape;

/// A sample's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricValue {
    /// A count or a number of bytes.
    Count(u64),
    /// An instant or a duration in milliseconds, written in seconds (up to three decimals).
    Millis(i64),
}

impl MetricValue {
    fn text(self) -> String {
        match self {
            MetricValue::Count(n) => n.to_string(),
            MetricValue::Millis(ms) => {
                let sign = if ms < 0 { "-" } else { "" };
                let abs = ms.unsigned_abs();
                let (s, frac) = (abs / 1000, abs % 1000);
                if frac == 0 {
                    format!("{sign}{s}")
                } else {
                    let digits = format!("{frac:03}");
                    format!("{sign}{s}.{}", digits.trim_end_matches('0'))
                }
            }
        }
    }
}

/// A sample's labels, in the order written.
pub type Labels = Vec<(&'static str, String)>;

/// One gauge family: its name, help and samples by labels.
#[derive(Debug, Clone)]
pub struct Gauge {
    name: &'static str,
    help: &'static str,
    samples: BTreeMap<Labels, MetricValue>,
}

impl Gauge {
    /// An empty family. `name` must match `[a-zA-Z_:][a-zA-Z0-9_:]*` (the callers' names are
    /// constants, checked by tests).
    pub fn new(name: &'static str, help: &'static str) -> Gauge {
        Gauge {
            name,
            help,
            samples: BTreeMap::new(),
        }
    }

    /// The family's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Set the sample with `labels` to `value`.
    pub fn set(&mut self, labels: Labels, value: MetricValue) {
        self.samples.insert(labels, value);
    }

    /// Add `n` to the count with `labels` (0 when new).
    pub fn add(&mut self, labels: Labels, n: u64) {
        let v = self.samples.entry(labels).or_insert(MetricValue::Count(0));
        if let MetricValue::Count(c) = v {
            *c = c.saturating_add(n);
        }
    }
}

/// `s` as a label value between double quotes: control and bidi characters as the text of
/// [`escape`], then `\`, `"` and line feeds as the exposition format wants them.
pub fn escape_label_value(s: &str) -> String {
    let s = escape(s);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// `s` as a help text.
fn escape_help(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\n', "\\n")
}

/// Write `families` in the text exposition format.
pub fn write_exposition(families: &[Gauge], out: &mut dyn Write) -> io::Result<()> {
    for f in families {
        writeln!(out, "# HELP {} {}", f.name, escape_help(f.help))?;
        writeln!(out, "# TYPE {} gauge", f.name)?;
        for (labels, value) in &f.samples {
            out.write_all(f.name.as_bytes())?;
            if !labels.is_empty() {
                let inner: Vec<String> = labels
                    .iter()
                    .map(|(k, v)| format!("{k}=\"{}\"", escape_label_value(v)))
                    .collect();
                write!(out, "{{{}}}", inner.join(","))?;
            }
            writeln!(out, " {}", value.text())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_and_help_are_escaped() {
        assert_eq!(escape_label_value("a\\b\"c"), "a\\\\b\\\"c");
        // A line feed is escaped text first (`\n`), whose backslash the format escapes again.
        assert_eq!(escape_label_value("c\nd"), "c\\\\nd");
        assert_eq!(
            escape_label_value("orders\x1b]0;pwned\x07\u{9b}\u{202e}"),
            "orders\\\\x1b]0;pwned\\\\x07\\\\x9b\\\\u{202e}"
        );
        assert_eq!(escape_help("x\\y\nz \"q\""), "x\\\\y\\nz \"q\"");
    }

    #[test]
    fn millis_are_written_as_seconds() {
        assert_eq!(MetricValue::Millis(1_796_045_567_000).text(), "1796045567");
        assert_eq!(MetricValue::Millis(1_500).text(), "1.5");
        assert_eq!(MetricValue::Millis(1_005).text(), "1.005");
        assert_eq!(MetricValue::Millis(-250).text(), "-0.25");
        assert_eq!(MetricValue::Count(u64::MAX).text(), "18446744073709551615");
    }

    #[test]
    fn families_keep_their_order_and_samples_sort_by_labels() {
        let mut b = Gauge::new("b_total", "B.");
        b.add(vec![("t", "z".into())], 2);
        b.add(vec![("t", "a\"".into())], 1);
        b.add(vec![("t", "z".into())], 3);
        let mut a = Gauge::new("a_seconds", "A\nline.");
        a.set(Vec::new(), MetricValue::Millis(2_000));
        let mut out = Vec::new();
        write_exposition(&[b, a], &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "# HELP b_total B.\n# TYPE b_total gauge\nb_total{t=\"a\\\"\"} 1\nb_total{t=\"z\"} 5\n\
             # HELP a_seconds A\\nline.\n# TYPE a_seconds gauge\na_seconds 2\n"
        );
    }
}
