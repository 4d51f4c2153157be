//! `logclean roll`: close the active segment of each partition offline (see
//! [`crate::actions::roll`]); dry run unless `--execute`.

use std::io::Write;

use crate::actions::roll::{plan_roll, RollReport};
use crate::actions::ActionError;
use crate::exit_codes::Outcome;

use super::common::{finish_render, print_error};
use super::mutate::{render_mutation, run_mutation};
use super::run_config::RunConfig;
use super::{OutputFormat, RollArgs};
use crate::report::sanitize::{escape, escape_path};

/// Run `roll`.
pub fn run(args: &RollArgs, run: &RunConfig, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let result = run_mutation(
        "roll",
        &args.paths,
        &args.mutate,
        false,
        run.output,
        |t, i, plan| {
            let p = t
                .partitions
                .get(i)
                .ok_or_else(|| ActionError::Refused("no partition".into()))?;
            plan_roll(&t.path_of(p), p.sizing, plan).map(|r| vec![r])
        },
    );
    let m = match result {
        Ok(m) => m,
        Err(e) => {
            print_error(&e);
            return Ok(e.outcome());
        }
    };
    let reports: &[RollReport] = &m.reports;
    let refused = reports.iter().any(|r| r.outcome.starts_with("refused"));
    let outcome = if refused {
        Outcome::Findings
    } else {
        Outcome::Clean
    };
    let mut rendered = render_mutation(&m, false, run, outcome, out);
    if rendered.is_ok() && run.output.format == OutputFormat::Table {
        rendered = reports.iter().try_for_each(|r| {
            writeln!(
                out,
                "  {}: {}",
                escape_path(&r.partition),
                escape(&r.outcome)
            )
        });
    }
    finish_render(outcome, rendered)
}
