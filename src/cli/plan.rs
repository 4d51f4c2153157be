//! `logclean plan`: options → [`ClusterView::build`] and the log dirs → [`build_plan`] (twice
//! with `--config`: today and proposed, then [`diff`]) → [`PlanBody`] in the shared envelope →
//! JSON or the table. The exit code is 1 only when a CI gate trips.

use crate::report::assumptions::write_assumptions;
use crate::report::wire::assumptions::AssumptionsDoc;
use std::io::Write;

use crate::exit_codes::Outcome;
use crate::model::cluster::{ClusterInputs, ClusterView, FileInput};
use crate::model::file_bytes::ReadMode;
use crate::model::segment::{LoadOptions, ScanDepth};
use crate::model::units::TimestampMs;
use crate::plan::findings::plan_findings;
use crate::plan::{build_plan, diff, Plan, PlanOptions};
use crate::report::plan_doc::{GateDoc, GatesDoc, PlanBody};
use crate::report::plan_table::render_plan;
use crate::report::render_json;
use crate::report::wire::Envelope;

use super::common::{finish_render, load_targets, outcome_of};
use super::progress::Progress;
use super::run_config::RunConfig;
use super::{OutputFormat, PlanArgs};
use crate::checks::finding::Severity;
use crate::checks::inspect::sort_findings;
use crate::checks::unreadable::unreadable_findings;

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
    read_mode: ReadMode,
    run: &RunConfig,
) -> ClusterInputs {
    ClusterInputs {
        log_dirs: args.paths.clone(),
        server_properties: args.server_properties.clone().map(FileInput::Path),
        broker_id: args.broker_id,
        overrides,
        describe_file: args.config_file.clone().map(FileInput::Path),
        topics: args.topics.clone(),
        read_mode,
        kafka_version: run.kafka_version,
        describe_file_release: None,
    }
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

/// Run `plan`.
pub fn run(args: &PlanArgs, run: &RunConfig, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let now = args
        .at
        .unwrap_or_else(|| run.generated_at_ms.saturating_add(args.after.unwrap_or(0)));
    let read_mode = ReadMode::from_mmap_flag(args.mmap);
    let opts = LoadOptions::tail_with_internal_topics_at(ScanDepth::Headers, read_mode);
    let progress = Progress::new(run.output.progress, "reading partitions");
    // A wrong target (a parent of log dirs, ...) is a finding of the plan too.
    let (dirs, target_findings) = load_targets(&args.paths, &opts, &progress)?;
    // The view takes the partition dirs from the load: listed and read once, not twice.
    let view = ClusterView::build_over(&inputs(args, Vec::new(), read_mode, run), &dirs)?;
    let plan_opts = PlanOptions {
        now: TimestampMs(now),
        topics: args.topics.clone(),
        version: view.kafka_version.version,
    };
    let today = build_plan(&view, &dirs, &plan_opts);
    let proposed = if args.overrides.is_empty() {
        None
    } else {
        let view =
            ClusterView::build_over(&inputs(args, args.overrides.clone(), read_mode, run), &dirs)?;
        Some(build_plan(&view, &dirs, &plan_opts))
    };
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
    findings.extend(target_findings);
    findings.extend(unreadable);
    sort_findings(&mut findings);
    let body = PlanBody::new(
        &today,
        proposed
            .as_ref()
            .map(|p| (p, args.overrides.as_slice(), changes.as_slice())),
        gates,
    );
    let doc = Envelope::new(
        "plan",
        run.generated_at_ms,
        now,
        body,
        &findings,
        None,
        outcome,
    )
    .with_assumptions(AssumptionsDoc::of(&view, &args.topics));
    let style = run.output.table_style(now);
    let rendered = match run.output.format {
        OutputFormat::Json => render_json(&doc, out),
        OutputFormat::Table => write_assumptions(doc.assumptions.as_ref(), run.output.width, out)
            .and_then(|()| render_plan(&doc, &style, args.timeline, out)),
    };
    finish_render(outcome, rendered)
}
