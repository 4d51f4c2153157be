//! `logclean resume` and `logclean undo`: finish or roll back a run from its journal (see
//! [`crate::actions::journal`]).

use std::io::Write;

use crate::actions::fsutil::RealFs;
use crate::actions::journal::{resume, undo, RunOptions};
use crate::actions::signals::defer_interrupts;
use crate::exit_codes::Outcome;
use crate::model::names::path_text;

use crate::report::render_json;
use crate::report::wire::Envelope;

use super::common::{finish_render, print_error};
use super::run_config::RunConfig;
use super::{JournalArgs, OutputFormat};
use crate::report::sanitize::{escape, escape_path};

/// Run `resume` (`undo` false) or `undo`.
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
        Err(e) => {
            print_error(&e);
            return Ok(e.outcome());
        }
    };
    let verb = if undo_it { "undone" } else { "resumed" };
    let rendered = match run.output.format {
        OutputFormat::Json => {
            let body = serde_json::json!({
                "journal": path_text(&report.journal),
                "quarantine": path_text(&report.quarantine),
                "steps_taken": report.steps_taken,
                "plan": journal.plan,
            });
            let command = if undo_it { "undo" } else { "resume" };
            let doc = Envelope::new(
                command,
                run.generated_at_ms,
                run.evaluated_at_ms,
                body,
                &[],
                None,
                Outcome::Clean,
            );
            render_json(&doc, out)
        }
        OutputFormat::Table => writeln!(
            out,
            "{verb}: {} run on {}: {} step(s) taken; journal {}",
            escape(&journal.plan.command),
            escape_path(&journal.plan.log_dir),
            report.steps_taken,
            escape_path(&report.journal)
        ),
    };
    finish_render(Outcome::Clean, rendered)
}
