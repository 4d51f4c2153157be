//! `logclean roll`: close the active segment of each partition offline (see
//! [`crate::actions::roll`]); dry run unless `--execute`.

use std::io::Write;

use crate::actions::roll::{plan_roll, RollReport};
use crate::actions::ActionError;
use crate::exit_codes::Outcome;

use super::inspect::Output;
use super::rebuild_index::run_mutation;
use super::{OutputFormat, RollArgs};

/// Run `roll`.
pub fn run(args: &RollArgs, output: Output, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let result = run_mutation(
        "roll",
        &args.paths,
        &args.mutate,
        false,
        output,
        out,
        |t, i, plan| {
            let p = t
                .partitions
                .get(i)
                .ok_or_else(|| ActionError::Refused("no partition".into()))?;
            plan_roll(&t.path_of(p), p.sizing, plan).map(|r| vec![r])
        },
    );
    let (outcome, reports): (Outcome, Vec<RollReport>) = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("logclean: {e}");
            return Ok(e.outcome());
        }
    };
    if output.format == OutputFormat::Table {
        for r in &reports {
            writeln!(out, "  {}: {}", r.partition.display(), r.outcome)?;
        }
    }
    let refused = reports.iter().any(|r| r.outcome.starts_with("refused"));
    Ok(if refused {
        outcome.merge(Outcome::Findings)
    } else {
        outcome
    })
}
