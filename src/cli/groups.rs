//! `logclean groups`: replay `__consumer_offsets`, describe each group's offsets against the
//! data partitions held here, and what the next retention pass and offset expiry do to them.
//!
//! Options → [`load_coordinator_inputs`] → [`build_plan`] (the next pass's log starts) →
//! [`check_groups`] → [`GroupsBody::new`] → [`write`] ([`render_groups`]).

use std::io::Write;

use crate::checks::groups::check_groups;
use crate::exit_codes::Outcome;
use crate::plan::{build_plan, PlanOptions};
use crate::report::groups_doc::GroupsBody;
use crate::report::groups_table::render_groups;

use super::common::{coordinator_document, load_coordinator_inputs, write, CoordinatorArgs};
use super::run_config::RunConfig;
use super::GroupsArgs;

/// Run `groups`.
pub fn run(args: &GroupsArgs, run: &RunConfig, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let (inputs, target_findings) = load_coordinator_inputs(
        CoordinatorArgs {
            paths: &args.paths,
            server_properties: args.server_properties.as_ref(),
            config_file: args.config_file.as_ref(),
        },
        run,
    )?;
    let opts = PlanOptions {
        now: run.now,
        topics: Vec::new(),
        version: inputs.view.kafka_version.version,
    };
    let plan = build_plan(&inputs.view, &inputs.dirs, &opts);
    // `groups` takes one --topic.
    let topic = run.filters.topics.first().cloned();
    let (dirs, view, mode) = (&inputs.dirs, &inputs.view, inputs.mode);
    let c = check_groups(
        dirs,
        view,
        &plan,
        mode,
        run.now.get(),
        run.filters.group.clone(),
        topic,
    );
    let report = (GroupsBody::new(&c.state, &c.facts, &c.verdicts), c.findings);
    let doc = coordinator_document("groups", &inputs, report, target_findings, run);
    write(run, doc, render_groups, out)
}
