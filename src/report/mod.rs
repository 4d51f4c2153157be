//! Reports: serialise-only wire types and small renderers (table for people, JSON for tools);
//! terminal escaping of names and values read from disk; fitting tables to the terminal width.

pub mod assumptions;
pub mod config_doc;
pub mod config_table;
pub mod groups_doc;
pub mod groups_table;
pub mod human;
pub mod plan_doc;
pub mod plan_table;
pub mod prometheus;
pub mod sanitize;
pub mod table;
pub mod terminal;
pub mod txn_doc;
pub mod txn_table;
pub mod upgrade_doc;
pub mod wire;

use std::io::{self, Write};

/// Write any wire document as pretty JSON with a trailing newline.
pub fn render_json<T: serde::Serialize>(doc: &T, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, doc)?;
    writeln!(out)
}
