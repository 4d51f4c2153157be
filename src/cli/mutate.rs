//! What every mutating command's CLI shares: its options as [`MutateOptions`], and a refusal
//! said on stderr with its exit outcome.

use crate::actions::journal::RunOptions;
use crate::actions::run::MutateOptions;
use crate::actions::targets::ConfigSource;
use crate::actions::ActionError;
use crate::exit_codes::Outcome;

use super::common::print_error;
use super::MutateArgs;

impl MutateArgs {
    /// The options [`crate::actions::run::run_mutation`] takes.
    pub fn options(&self) -> MutateOptions {
        MutateOptions {
            execute: self.execute,
            run: RunOptions {
                journal_root: self.journal.clone(),
                quarantine_root: self.quarantine.clone(),
                purge: self.purge,
            },
            jobs: self.jobs,
            config: ConfigSource {
                server_properties: self.server_properties.clone(),
                overrides: self.overrides.clone(),
                config_file: self.config_file.clone(),
            },
        }
    }
}

/// A mutation that did not happen (or stopped): said on stderr; its outcome is the run's.
pub fn refused(e: ActionError) -> Outcome {
    print_error(&e);
    e.outcome()
}
