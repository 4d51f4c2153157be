//! `logclean groups`: replay `__consumer_offsets`, describe each group's offsets against the
//! data partitions held here, and what the next retention pass and offset expiry do to them.
//!
//! Options → [`run_coordinator_command`]: load → [`build_plan`] (the next pass's log starts) →
//! [`groups_report`] → render.

use std::io::Write;

use crate::coordinators::groups::groups_report;
use crate::exit_codes::Outcome;
use crate::model::units::TimestampMs;
use crate::plan::{build_plan, PlanOptions};
use crate::report::groups_table::render_groups;

use super::common::{run_coordinator_command, CoordinatorArgs, CoordinatorInputs};
use super::run_config::RunConfig;
use super::GroupsArgs;

/// Run `groups`.
pub fn run(args: &GroupsArgs, run: &RunConfig, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let shared = CoordinatorArgs {
        command: "groups",
        paths: &args.paths,
        server_properties: args.server_properties.as_ref(),
        config_file: args.config_file.as_ref(),
        mmap: args.mmap,
        fail_on: args.fail_on.into(),
    };
    let report = |inputs: &CoordinatorInputs, now| {
        let CoordinatorInputs { mode, view, dirs } = inputs;
        let opts = PlanOptions {
            now: TimestampMs(now),
            topics: Vec::new(),
            version: view.kafka_version.version,
        };
        let plan = build_plan(view, dirs, &opts);
        let (group, topic) = (args.group.clone(), args.topic.clone());
        groups_report(dirs, view, &plan, *mode, now, group, topic)
    };
    run_coordinator_command(shared, run, out, report, render_groups)
}
