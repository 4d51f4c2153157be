//! The assumptions block a table opens with: which deciding config values logclean did not
//! read, for which topics, and how to supply them — a few lines fitted to the terminal, before
//! anything that rests on them.

use std::collections::BTreeMap;
use std::io::{self, Write};

use super::sanitize::escape;
use super::terminal::{fit_atoms, words};
use super::wire::assumptions::{AssumptionsDoc, KafkaVersionDoc};
use crate::model::kafka_version::KafkaVersion;

/// Topics named in full before the rest are counted.
const NAMED_TOPICS: usize = 4;

/// Groups of topics (by what they assume) shown before the rest are counted.
const NAMED_GROUPS: usize = 3;

/// Write `doc` as the opening block of a table `width` columns wide (nothing when no value is
/// assumed). Values are in the JSON; here the keys, where they came from, and the fix.
pub fn write_assumptions(
    doc: Option<&AssumptionsDoc>,
    width: usize,
    out: &mut dyn Write,
) -> io::Result<()> {
    // Said when it is not the default: another release than the latest, or an assumption
    // (4.4 dirs detected as such keep their tables as they were; the JSON always has it).
    if let Some(v) = doc
        .map(|d| &d.kafka_version)
        .filter(|v| v.assumption.is_some() || v.applied != KafkaVersion::LATEST.to_string())
    {
        write_kafka_version(v, width, out)?;
    }
    let Some(doc) = doc.filter(|d| !d.is_empty()) else {
        return Ok(());
    };
    let mut lines = Vec::new();
    let head = format!(
        "ASSUMED CONFIGS: {} topic(s) are judged on config values logclean did not read; the \
         broker may use others, and `delete` refuses them (--accept-assumed-configs overrides)",
        doc.topics.len()
    );
    lines.extend(fit_atoms(&words(&head), width, " ", "", "  "));
    for u in &doc.unread {
        lines.extend(fit_atoms(&words(&u.text), width, " ", "  ", "    "));
    }
    // Topics grouped by the keys assumed, each key set by where its values came from.
    let mut groups: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for t in &doc.topics {
        let mut by_source: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for v in &t.values {
            by_source.entry(v.source).or_default().push(v.key);
        }
        let shape = (by_source.iter())
            .map(|(source, keys)| format!("{} from {source}", keys.join(", ")))
            .collect::<Vec<_>>()
            .join("; ");
        groups.entry(shape).or_default().push(&t.topic);
    }
    for (shown, (shape, topics)) in groups.iter().enumerate() {
        if shown == NAMED_GROUPS {
            let rest: usize = groups.values().skip(NAMED_GROUPS).map(Vec::len).sum();
            lines.push(format!(
                "  and {rest} more topic(s): see --format json (assumptions)"
            ));
            break;
        }
        let mut names: Vec<String> = (topics.iter().take(NAMED_TOPICS))
            .map(|t| escape(t).into_owned())
            .collect();
        if topics.len() > NAMED_TOPICS {
            names.push(format!("and {} more", topics.len() - NAMED_TOPICS));
        }
        let text = format!("{}: {shape}", names.join(", "));
        lines.extend(fit_atoms(&words(&text), width, " ", "  ", "    "));
    }
    let fix = format!("fix: {}", doc.how_to_supply);
    lines.extend(fit_atoms(&words(&fix), width, " ", "  ", "    "));
    for l in lines {
        writeln!(out, "{l}")?;
    }
    writeln!(out)
}

/// The line naming the release whose rules were applied, and the assumption it rests on.
fn write_kafka_version(v: &KafkaVersionDoc, width: usize, out: &mut dyn Write) -> io::Result<()> {
    let mut text = format!("RULES: {}", v.text);
    if let Some(a) = &v.assumption {
        text.push_str(&format!("; ASSUMED: {a}"));
    }
    for l in fit_atoms(&words(&escape(&text)), width, " ", "", "  ") {
        writeln!(out, "{l}")?;
    }
    writeln!(out)
}
