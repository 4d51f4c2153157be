//! `logclean roll`: options → [`run_mutation`] with [`plan_roll`] (close the active segment of
//! each partition offline; dry run unless `--execute`) → [`write`] ([`write_roll`]).

use std::io::Write;

use crate::actions::roll::{plan_roll, RollReport};
use crate::actions::run::run_mutation;
use crate::actions::ActionError;
use crate::exit_codes::Outcome;
use crate::report::mutation::{write_roll, MutationBody};
use crate::report::table::TableStyle;
use crate::report::wire::Envelope;
use crate::report::Document;

use super::common::write;
use super::mutate::refused;
use super::progress::Progress;
use super::run_config::RunConfig;
use super::RollArgs;

/// Run `roll`.
pub fn run(args: &RollArgs, run: &RunConfig, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let progress = Progress::new(run.output.progress, "roll");
    let result = run_mutation(
        "roll",
        &args.paths,
        &args.mutate.options(),
        false,
        &progress,
        |t, i, plan| {
            let p = t
                .partitions
                .get(i)
                .ok_or_else(|| ActionError::Refused("no partition".into()))?;
            plan_roll(&t.path_of(p), p.sizing, plan).map(|r| vec![r])
        },
    );
    let mut m = match result {
        Ok(m) => m,
        Err(e) => return Ok(refused(e)),
    };
    if m.executed {
        for d in &mut m.log_dirs {
            d.reports = std::mem::take(&mut d.reports)
                .into_iter()
                .map(RollReport::applied)
                .collect();
        }
    }
    let outcome = if m.reports().any(|r| r.outcome.starts_with("refused")) {
        Outcome::Findings
    } else {
        Outcome::Clean
    };
    let doc = Document::new(m.command, MutationBody::new(&m), outcome);
    let table = |doc: &Envelope<MutationBody<'_, RollReport>>,
                 _: &TableStyle,
                 out: &mut dyn Write| { write_roll(&doc.body, out) };
    write(run, doc, table, out)
}
