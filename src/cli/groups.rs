//! `logclean groups`: replay `__consumer_offsets`, describe each group's offsets against the
//! data partitions held here, and what the next retention pass and offset expiry do to them.
//!
//! Options → [`load_coordinator_inputs`] → [`build_plan`] (the next pass's log starts) →
//! [`check_groups`] → [`GroupsBody::new`] → [`write`] ([`render_groups`]).

use std::io::Write;

use crate::checks::groups::{check_groups, GroupsChecked};
use crate::exit_codes::Outcome;
use crate::model::cluster::ClusterView;
use crate::model::snapshot::Parts;
use crate::plan::{build_plan, PlanOptions};
use crate::report::groups_doc::GroupsBody;
use crate::report::groups_table::render_groups;

use super::common::{
    check_snapshots, coordinator_document, load_coordinator_inputs, with_snapshots, write,
    CoordinatorArgs,
};
use super::run_config::RunConfig;
use super::GroupsArgs;
use crate::model::snapshot::LOAD_DESCRIPTION;

/// Run `groups`.
pub fn run(args: &GroupsArgs, run: &RunConfig, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let (snaps, run) = with_snapshots(&args.snapshot, run, Parts::NO_DISK)?;
    let run = &run;
    if let Some(s) = &snaps {
        check_snapshots(s, "groups", LOAD_DESCRIPTION, true)?;
    }
    let (inputs, target_findings) = load_coordinator_inputs(
        CoordinatorArgs {
            paths: &args.paths,
            server_properties: args.server_properties.as_ref(),
            config_file: args.config_file.as_ref(),
        },
        run,
        snaps,
    )?;
    let opts = PlanOptions {
        now: run.now,
        topics: Vec::new(),
        version: inputs.view.kafka_version.version,
    };
    let plan = build_plan(&inputs.view, &inputs.dirs, &opts);
    let topic = run.filters.topic_arg().map(str::to_string);
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
    refuse_unknown(
        &c,
        view,
        run.filters.group.as_deref(),
        run.filters.topic_arg(),
    )?;
    let report = (GroupsBody::new(&c.state, &c.facts, &c.verdicts), c.findings);
    let doc = coordinator_document("groups", &inputs, report, target_findings, run);
    write(run, doc, render_groups, out)
}

/// A `--group` or `--topic` that names nothing here is an error, as `kafka-consumer-groups.sh
/// --describe --group` says a group does not exist: not an empty table.
fn refuse_unknown(
    c: &GroupsChecked,
    view: &ClusterView,
    group: Option<&str>,
    topic: Option<&str>,
) -> anyhow::Result<()> {
    let replayed = c.state.partitions.len();
    let all = usize::try_from(c.facts.offsets_topic_partitions).unwrap_or(0);
    // Groups on coordinator partitions that are not in these dirs may exist on another broker.
    let partial = if replayed < all {
        format!(
            " in the {replayed} of {all} `__consumer_offsets` partitions here (the others are in \
             other brokers' log dirs)"
        )
    } else {
        String::new()
    };
    if let Some(g) = group.filter(|g| !c.state.groups.contains_key(*g)) {
        if c.state.deleted.contains(g) {
            anyhow::bail!("consumer group `{g}` was deleted (its offsets are tombstoned){partial}");
        }
        let known: Vec<&str> = c.state.groups.keys().map(|k| &**k).collect();
        anyhow::bail!(
            "consumer group `{g}` does not exist{partial}; groups: {}",
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        );
    }
    if let Some(t) = topic {
        let named = c
            .state
            .groups
            .values()
            .any(|g| g.offsets.keys().any(|tp| &*tp.0 == t));
        let held = c.facts.held.keys().any(|tp| tp.0 == t);
        if !named && !held && !view.topics.contains_key(t) {
            anyhow::bail!(
                "topic `{t}` does not exist: not in the metadata log, not held in these log \
                 dirs, and no group commits offsets of it"
            );
        }
    }
    Ok(())
}
