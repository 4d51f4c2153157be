//! `logclean plan`: options → [`ClusterView::build_over`] the loaded log dirs → [`build_plan`] at
//! the run's instant (twice with `--config`: today and proposed, then [`diff`]) → [`PlanBody`] →
//! [`write`] ([`render_plan`]). The exit code is 1 only when a CI gate trips.

use std::io::Write;

use crate::checks::finding::{Finding, Severity};
use crate::checks::inspect::sort_findings;
use crate::checks::plan::plan_findings;
use crate::checks::tiered::tiered_findings;
use crate::checks::unreadable::unreadable_findings;
use crate::exit_codes::Outcome;
use crate::model::cluster::{ClusterInputs, ClusterView, FileInput};
use crate::model::log_dir::LogDir;
use crate::model::names::PartitionDirState;
use crate::model::segment::{LoadOptions, ScanDepth};
use crate::model::snapshot::Parts;
use crate::model::snapshot::Snapshots;
use crate::plan::{build_plan, diff, Plan, PlanOptions};
use crate::report::html::render_plan as render_html;
use crate::report::plan_doc::{GateDoc, GatesDoc, PlanBody};
use crate::report::plan_table::render_plan;
use crate::report::table::TableStyle;
use crate::report::wire::assumptions::AssumptionsDoc;
use crate::report::wire::filter::TopicFilterDoc;
use crate::report::wire::Envelope;
use crate::report::{Document, OutputFormat};

use super::common::{
    check_snapshots, finish_render, load_targets, outcome_of, with_snapshots, write,
};
use super::progress::Progress;
use super::run_config::RunConfig;
use super::PlanArgs;
use crate::model::snapshot::LOAD_DESCRIPTION;

/// Parse a size: bytes, or a number with `K`/`M`/`G`/`T` (powers of 1000, `B` optional) or
/// `KiB`/`MiB`/`GiB`/`TiB` (powers of 1024).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a size like 500MB, 2GiB or 1000"))?;
    let scale: u64 = match unit.to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" => 1_000,
        "M" | "MB" => 1_000_000,
        "G" | "GB" => 1_000_000_000,
        "T" | "TB" => 1_000_000_000_000,
        "KIB" => 1 << 10,
        "MIB" => 1 << 20,
        "GIB" => 1 << 30,
        "TIB" => 1 << 40,
        _ => return Err(format!("`{s}`: unknown unit `{unit}`")),
    };
    n.checked_mul(scale)
        .ok_or_else(|| format!("`{s}` is too large"))
}

fn inputs(
    args: &PlanArgs,
    overrides: Vec<String>,
    run: &RunConfig,
    snaps: Option<&Snapshots>,
) -> ClusterInputs {
    ClusterInputs {
        log_dirs: snaps.map_or_else(|| args.paths.clone(), |s| s.log_dirs.clone()),
        facts: snaps.map(|s| s.dir_facts.clone()),
        replays: snaps.map(|s| s.replays.clone()),
        server_properties: args.server_properties.clone().map(FileInput::Path),
        broker_id: args.broker_id,
        overrides,
        describe_file: args.config_file.clone().map(FileInput::Path),
        topics: run.filters.topics.clone(),
        read_mode: run.read_mode,
        kafka_version: run.kafka_version,
        describe_file_release: None,
    }
}

/// The proposed values: `--config`, then the lines of `--proposed-configs` (each checked as a
/// `--config` is; a bad line is refused with its file and line number).
fn proposed_overrides(args: &PlanArgs) -> anyhow::Result<Vec<String>> {
    let mut out = args.overrides.clone();
    let Some(file) = &args.proposed_configs else {
        return Ok(out);
    };
    let name = crate::model::names::path_text(file);
    let bytes = std::fs::read(file)
        .map_err(|e| anyhow::anyhow!("--proposed-configs: failed to read `{name}`: {e}"))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| anyhow::anyhow!("--proposed-configs `{name}`: not UTF-8 text: {e}"))?;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let value = super::parse_config_arg(line).map_err(|why| {
            anyhow::anyhow!(
                "--proposed-configs `{name}` line {}: `{}`: {why}",
                i + 1,
                crate::report::sanitize::escape(line)
            )
        })?;
        out.push(value);
    }
    Ok(out)
}

fn gates(args: &PlanArgs, plan: &Plan) -> GatesDoc {
    let freed = plan.totals.all.bytes.get();
    let expired = plan
        .partitions
        .iter()
        .flat_map(|p| &p.segments)
        .filter(|s| s.retained_expired)
        .count() as u64;
    GatesDoc {
        deletes_more_than: args.fail_if_deletes_more_than.map(|limit| GateDoc {
            limit,
            value: freed,
            tripped: freed > limit,
        }),
        retains_expired: args.fail_if_retains_expired.then_some(GateDoc {
            limit: 0,
            value: expired,
            tripped: expired > 0,
        }),
    }
}

/// Today's plan and, with `--config`, the plan under the proposed values; the view of today's
/// configs and the wrong targets come beside them.
struct Plans {
    view: ClusterView,
    today: Plan,
    proposed: Option<Plan>,
    dirs: Vec<LogDir>,
    target_findings: Vec<Finding>,
}

fn build_plans(
    args: &PlanArgs,
    overrides: &[String],
    run: &RunConfig,
    snaps: Option<Snapshots>,
) -> anyhow::Result<Plans> {
    if let Some(s) = &snaps {
        check_snapshots(s, "plan", LOAD_DESCRIPTION, false)?;
    }
    let mut snaps = snaps;
    let (dirs, target_findings) = match &mut snaps {
        // A snapshot holds the dirs as this load would have loaded them (moved, not copied).
        Some(s) => (std::mem::take(&mut s.dirs), Vec::new()),
        None => {
            let opts = LoadOptions::tail_with_internal_topics_at(ScanDepth::Headers, run.read_mode);
            let progress = Progress::new(run.output.progress, "reading partitions");
            // A wrong target (a parent of log dirs, ...) is a finding of the plan too.
            load_targets(&args.paths, &opts, &progress)?
        }
    };
    let snaps = snaps.as_ref();
    // The view takes the partition dirs from the load: listed and read once, not twice.
    let view = ClusterView::build_over(&inputs(args, Vec::new(), run, snaps), &dirs)?;
    let plan_opts = PlanOptions {
        now: run.now,
        topics: run.filters.topics.clone(),
        version: view.kafka_version.version,
    };
    let today = build_plan(&view, &dirs, &plan_opts);
    let proposed = if overrides.is_empty() {
        None
    } else {
        let proposed = inputs(args, overrides.to_vec(), run, snaps);
        let view = ClusterView::build_over(&proposed, &dirs)?;
        Some(build_plan(&view, &dirs, &plan_opts))
    };
    Ok(Plans {
        view,
        today,
        proposed,
        dirs,
        target_findings,
    })
}

/// What `--topic` kept of the live partition replicas in `dirs`.
fn topic_filter(dirs: &[LogDir], plan: &Plan, run: &RunConfig) -> Option<TopicFilterDoc> {
    let live: Vec<&str> = (dirs.iter().flat_map(|d| &d.partitions))
        .filter_map(|p| p.name.as_ref())
        .filter(|n| n.state == PartitionDirState::Live)
        .map(|n| n.topic.as_str())
        .collect();
    TopicFilterDoc::of(
        &run.filters.topics,
        live.iter().copied(),
        plan.partitions.len(),
        live.len(),
        "partition replica(s)",
    )
}

/// Run `plan`.
pub fn run(args: &PlanArgs, run: &RunConfig, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let overrides = proposed_overrides(args)?;
    let (snaps, run) = with_snapshots(&args.snapshot, run, Parts::NO_DISK)?;
    let run = &run;
    let Plans {
        view,
        today,
        proposed,
        dirs,
        target_findings,
    } = build_plans(args, &overrides, run, snaps)?;
    let changes = proposed
        .as_ref()
        .map(|p| diff(&today, p))
        .unwrap_or_default();
    let gates = gates(args, proposed.as_ref().unwrap_or(&today));
    let tripped = gates.deletes_more_than.is_some_and(|g| g.tripped)
        || gates.retains_expired.is_some_and(|g| g.tripped);
    let outcome = if tripped {
        Outcome::Findings
    } else {
        Outcome::Clean
    }
    .merge(outcome_of(&target_findings, Severity::Warning));
    // What could not be read is planned without (a partition left out, defaults for the
    // metadata log's configs): said, and the run exits 3.
    let unreadable = unreadable_findings(&dirs, Some(&view));
    let outcome = outcome.merge(outcome_of(&unreadable, Severity::Warning));
    let mut findings = plan_findings(&today);
    findings.extend(tiered_findings(&today));
    findings.extend(target_findings);
    findings.extend(unreadable);
    sort_findings(&mut findings);
    let proposal = (proposed.as_ref()).map(|p| (p, overrides.as_slice(), changes.as_slice()));
    let doc = Document {
        command: "plan",
        body: PlanBody::new(&today, proposal, gates, topic_filter(&dirs, &today, run)),
        findings,
        scanned: None,
        assumptions: Some(AssumptionsDoc::of(&view, &run.filters.topics)),
        outcome,
    };
    let table = |doc: &Envelope<PlanBody>, style: &TableStyle, out: &mut dyn Write| {
        render_plan(doc, style, args.timeline, out)
    };
    if run.output.format == OutputFormat::Html {
        let outcome = doc.outcome;
        let envelope = doc.into_envelope(&run.rendering());
        return finish_render(outcome, render_html(&envelope, out));
    }
    write(run, doc, table, out)
}
