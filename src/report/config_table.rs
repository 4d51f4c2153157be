//! The `config` document as tables for people, fitted to the terminal width
//! ([`super::terminal`]). Values table layouts, fullest first: `key`, `value`, `source`,
//! `from broker key`; then the broker key below the source (`via …`); then the source below
//! the value. Keys are never shortened below 40 columns; names read from disk are escaped.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

use super::config_doc::{ConfigBody, ConfigDoc, LogDirDoc, TopicDoc, ValueDoc};
use super::diagnostics::render_findings;
use super::sanitize::escape;
use super::table::{write_fitted, TableStyle};
use super::terminal::{render_layouts, shorten_path, words, Align, Cell, Grid};

/// A value as atoms: split after commas so that lists wrap between their items.
fn value_atoms(v: &str) -> Vec<String> {
    let v = escape(v);
    let mut atoms = Vec::new();
    for word in v.split_whitespace() {
        let mut rest = word;
        while let Some(i) = rest.find(',') {
            let (item, tail) = rest.split_at(i + 1);
            atoms.push(item.to_string());
            rest = tail;
        }
        if !rest.is_empty() {
            atoms.push(rest.to_string());
        }
    }
    if atoms.is_empty() {
        atoms.push("\"\"".to_string());
    }
    atoms
}

fn values_table(values: &BTreeMap<String, ValueDoc>, style: &TableStyle) -> String {
    let mut full = Grid::new(&[
        ("key", Align::Left),
        ("value", Align::Left),
        ("source", Align::Left),
        ("from broker key", Align::Left),
    ]);
    let mut via = Grid::new(&[
        ("key", Align::Left),
        ("value", Align::Left),
        ("source", Align::Left),
    ]);
    let mut stacked = Grid::new(&[("key", Align::Left), ("value / source", Align::Left)]);
    for (k, v) in values {
        let key = Cell::atom(escape(k).into_owned());
        let value = value_atoms(&v.value);
        let synonym = v.synonym.as_deref().map(|s| escape(s).into_owned());
        full.push(vec![
            key.clone(),
            Cell::lines(vec![value.clone()]),
            Cell::atom(v.source),
            Cell::atom(synonym.clone().unwrap_or_default()),
        ]);
        let mut source = vec![vec![v.source.to_string()]];
        if let Some(s) = &synonym {
            source.push(vec!["via".to_string(), s.clone()]);
        }
        via.push(vec![
            key.clone(),
            Cell::lines(vec![value.clone()]),
            Cell::lines(source.clone()),
        ]);
        let mut lines = vec![value];
        lines.extend(source);
        stacked.push(vec![key, Cell::lines(lines)]);
    }
    render_layouts(&[full, via, stacked], style.width)
}

/// Write `atoms` as lines fitted to the table width.
fn fit(out: &mut dyn Write, style: &TableStyle, atoms: &[String]) -> io::Result<()> {
    for line in super::terminal::fit_atoms(atoms, style.width, " ", "", "  ") {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// A log dir's line: its path, mode and why, cluster and node id.
fn log_dir_atoms(d: &LogDirDoc, style: &TableStyle) -> Vec<String> {
    let mut atoms = vec![
        "log dir".to_string(),
        format!(
            "{}:",
            shorten_path(&escape(&d.path), style.width.saturating_sub(9))
        ),
        d.mode.name().to_string(),
    ];
    atoms.extend(words(&format!("({}),", escape(&d.mode_evidence))));
    atoms.push(format!(
        "cluster.id {},",
        d.cluster_id.as_deref().map_or("-".into(), escape)
    ));
    atoms.push(format!(
        "node id {}",
        d.node_id.map_or("-".to_string(), |n| n.to_string())
    ));
    atoms
}

/// The metadata log's line: its dir, snapshot, how far it is complete, the broker id.
fn metadata_atoms(body: &ConfigBody, style: &TableStyle) -> Vec<String> {
    let meta = &body.metadata;
    let dir = meta
        .dir
        .as_deref()
        .map_or("-".to_string(), |d| escape(d).into_owned());
    vec![
        format!(
            "metadata log {}",
            shorten_path(&dir, style.width.saturating_sub(13))
        ),
        format!(
            "(snapshot {},",
            meta.snapshot
                .as_deref()
                .and_then(|s| Path::new(s).file_name()?.to_str())
                .map_or("-".to_string(), |s| escape(s).into_owned())
        ),
        format!(
            "complete up to offset {}),",
            meta.complete_up_to
                .map_or("-".to_string(), |o| o.to_string())
        ),
        format!(
            "broker id {}",
            body.broker_id.map_or("-".to_string(), |b| b.to_string())
        ),
    ]
}

/// A topic's line, then its values unless all are defaults.
fn write_topic(t: &TopicDoc, style: &TableStyle, out: &mut dyn Write) -> io::Result<()> {
    let atoms = vec![
        format!("topic {}", escape(&t.topic)),
        format!("id {}", t.topic_id.as_deref().map_or("-".into(), escape)),
        format!(
            "partitions {}",
            t.partitions.map_or("-".to_string(), |p| p.to_string())
        ),
        format!("dirs on disk {}", t.dirs.len()),
    ];
    if t.configs.is_empty() {
        let mut atoms = atoms;
        atoms.push("(all defaults)".to_string());
        write_fitted(out, &atoms, style, "", "  ")?;
    } else {
        write_fitted(out, &atoms, style, "", "  ")?;
        write!(out, "{}", values_table(&t.configs, style))?;
    }
    Ok(())
}

/// Write `doc` as a header line, the broker's values, each topic's values and the findings.
pub fn render_config(doc: &ConfigDoc, style: &TableStyle, out: &mut dyn Write) -> io::Result<()> {
    fit(
        out,
        style,
        &words(&format!(
            "mode {}: {}; values follow Kafka {}'s config defaults and precedence",
            doc.body.mode.name(),
            doc.body.kafka_versions,
            // The release whose rules apply (detected or given), not always the latest.
            (doc.assumptions.as_ref()).map_or("4.4", |a| a.kafka_version.applied.as_str())
        )),
    )?;
    for d in &doc.body.log_dirs {
        fit(out, style, &log_dir_atoms(d, style))?;
    }
    fit(out, style, &metadata_atoms(&doc.body, style))?;
    if let Some(f) = &doc.body.filter {
        fit(out, style, &words(&f.words()))?;
    }
    if !doc.body.broker.is_empty() {
        writeln!(out, "\nbroker")?;
        write!(out, "{}", values_table(&doc.body.broker, style))?;
    }
    for t in &doc.body.topics {
        writeln!(out)?;
        write_topic(t, style, out)?;
    }
    if let Some(table) = render_findings(&doc.findings, style) {
        write!(out, "\n{table}")?;
    }
    Ok(())
}
