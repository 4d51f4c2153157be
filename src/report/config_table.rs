//! The `config` document as tables for people.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};

use super::config_doc::{ConfigDoc, ValueDoc};
use super::table::{findings_table, TableStyle};

fn values_table(values: &BTreeMap<String, ValueDoc>) -> Table {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic);
    t.set_header(["key", "value", "source", "from broker key"]);
    for (k, v) in values {
        t.add_row(vec![
            k.as_str(),
            v.value.as_str(),
            v.source,
            v.synonym.as_deref().unwrap_or(""),
        ]);
    }
    t
}

/// Write `doc` as a header line, the broker's values, each topic's values and the findings.
pub fn render_config(doc: &ConfigDoc, style: TableStyle, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "mode {}: {}; values follow Kafka 4.4.0's config defaults and precedence",
        doc.body.mode.name(),
        doc.body.kafka_versions
    )?;
    for d in &doc.body.log_dirs {
        writeln!(
            out,
            "log dir {}: {} ({}), cluster.id {}, node id {}",
            d.path,
            d.mode.name(),
            d.mode_evidence,
            d.cluster_id.as_deref().unwrap_or("-"),
            d.node_id.map_or("-".to_string(), |n| n.to_string()),
        )?;
    }
    let meta = &doc.body.metadata;
    writeln!(
        out,
        "metadata log {} (snapshot {}, complete up to offset {}), broker id {}",
        meta.dir.as_deref().unwrap_or("-"),
        meta.snapshot
            .as_deref()
            .and_then(|s| Path::new(s).file_name()?.to_str())
            .unwrap_or("-"),
        meta.complete_up_to
            .map_or("-".to_string(), |o| o.to_string()),
        doc.body
            .broker_id
            .map_or("-".to_string(), |b| b.to_string()),
    )?;
    if !doc.body.broker.is_empty() {
        writeln!(out, "\nbroker")?;
        writeln!(out, "{}", values_table(&doc.body.broker))?;
    }
    for t in &doc.body.topics {
        writeln!(
            out,
            "\ntopic {}  id {}  partitions {}  dirs on disk {}",
            t.topic,
            t.topic_id.as_deref().unwrap_or("-"),
            t.partitions.map_or("-".to_string(), |p| p.to_string()),
            t.dirs.len()
        )?;
        if t.configs.is_empty() {
            writeln!(out, "  (all defaults)")?;
        } else {
            writeln!(out, "{}", values_table(&t.configs))?;
        }
    }
    if let Some(table) = findings_table(&doc.findings, style) {
        writeln!(out, "\n{table}")?;
    }
    Ok(())
}
