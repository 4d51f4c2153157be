//! `logclean resume` and `logclean undo`: options → [`resume`] or [`undo`] of a run from its
//! journal (see [`crate::actions::journal`]) → [`write`] ([`write_journal`]).

use std::io::Write;

use crate::actions::fsutil::RealFs;
use crate::actions::journal::{resume, undo, RunOptions};
use crate::actions::signals::defer_interrupts;
use crate::exit_codes::Outcome;
use crate::report::mutation::{write_journal, JournalBody, SortedKeys};
use crate::report::table::TableStyle;
use crate::report::wire::Envelope;
use crate::report::Document;

use super::common::write;
use super::mutate::refused;
use super::run_config::RunConfig;
use super::JournalArgs;

/// Run `resume` (`undo_it` false) or `undo`.
pub fn run(
    args: &JournalArgs,
    undo_it: bool,
    run: &RunConfig,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    defer_interrupts();
    let opts = RunOptions {
        journal_root: args.journal.clone(),
        ..RunOptions::default()
    };
    let result = if undo_it {
        undo(&args.log_dir, &opts, args.run.as_deref(), &RealFs)
    } else {
        resume(&args.log_dir, &opts, args.run.as_deref(), &RealFs)
    };
    let (journal, report) = match result {
        Ok(r) => r,
        Err(e) => return Ok(refused(e)),
    };
    let command = if undo_it { "undo" } else { "resume" };
    let body = SortedKeys(JournalBody::new(&journal, &report, undo_it));
    let table = |doc: &Envelope<SortedKeys<JournalBody<'_>>>,
                 _: &TableStyle,
                 out: &mut dyn Write| { write_journal(&doc.body.0, out) };
    write(
        run,
        Document::new(command, body, Outcome::Clean),
        table,
        out,
    )
}
