//! `logclean upgrade-check --to VERSION`: options → the log dirs read once, the cluster view
//! built under the current release (`--kafka-version`, else what the files tell) and under
//! `--to`, the plan made under each at the run's instant → [`upgrade_report`] → [`UpgradeBody`]
//! → [`write`] ([`render_upgrade`]). Exit 0: nothing to do; 1: a change that needs action (a
//! warning, or a segment whose verdict differs); 3: usage or I/O error.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::checks::inspect::sort_findings;
use crate::checks::unreadable::unreadable_findings;
use crate::checks::upgrade::upgrade_report;
use crate::exit_codes::Outcome;
use crate::model::cluster::{ClusterInputs, ClusterView, FileInput};
use crate::model::kafka_version::KafkaVersion;
use crate::model::segment::{LoadOptions, ScanDepth};
use crate::plan::{build_plan, PlanOptions};
use crate::report::upgrade_doc::{render_upgrade, UpgradeBody};
use crate::report::wire::assumptions::AssumptionsDoc;
use crate::report::wire::ScanTotals;
use crate::report::Document;

use super::common::{load_targets, outcome_of, write};
use super::progress::Progress;
use super::run_config::{KafkaVersionArg, NowArg, ReadArg, RunConfig};

/// Arguments of `logclean upgrade-check`.
#[derive(Debug, Args)]
pub struct UpgradeCheckArgs {
    /// Log dirs of one broker. Default: `log.dirs` of --server-properties.
    #[arg(value_name = "LOG_DIR", required_unless_present = "server_properties")]
    pub paths: Vec<PathBuf>,
    /// The release to upgrade to (3.6 to 4.4; a patch such as 4.4.0 is accepted).
    #[arg(long, value_name = "VERSION", value_parser = KafkaVersion::parse)]
    pub to: KafkaVersion,
    /// The broker's static `server.properties` (removed keys set there are reported).
    #[arg(long, value_name = "FILE")]
    pub server_properties: Option<PathBuf>,
    /// Output of `kafka-configs.sh --describe --all --entity-type topics` (and `brokers`) from
    /// the live cluster: the topics' real configs where the dirs do not hold them (ZooKeeper
    /// mode, a missing metadata log).
    #[arg(long, value_name = "FILE")]
    pub config_file: Option<PathBuf>,
    /// The instant both plans are made at.
    #[command(flatten)]
    pub now: NowArg,
    /// How large files are read (`--mmap`).
    #[command(flatten)]
    pub read: ReadArg,
    /// The release upgraded from (default: the one the files tell).
    #[command(flatten)]
    pub kafka_version: KafkaVersionArg,
}

/// What `args` ask [`ClusterView::build_over`] to read, under `version` (`None`: what the files
/// tell).
fn inputs(
    args: &UpgradeCheckArgs,
    run: &RunConfig,
    version: Option<KafkaVersion>,
    log_dirs: Vec<PathBuf>,
) -> ClusterInputs {
    ClusterInputs {
        log_dirs,
        server_properties: args.server_properties.clone().map(FileInput::Path),
        describe_file: args.config_file.clone().map(FileInput::Path),
        read_mode: run.read_mode,
        kafka_version: version,
        describe_file_release: None,
        ..ClusterInputs::default()
    }
}

/// Run `upgrade-check`.
pub fn run(
    args: &UpgradeCheckArgs,
    run: &RunConfig,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let log_dirs = ClusterView::resolve_log_dirs(&inputs(args, run, None, args.paths.clone()))?;
    let opts = LoadOptions::tail_with_internal_topics_at(ScanDepth::Headers, run.read_mode);
    let progress = Progress::new(run.output.progress, "reading partitions");
    let (dirs, target_findings) = load_targets(&log_dirs, &opts, &progress)?;
    let from_view = ClusterView::build_over(
        &inputs(args, run, run.kafka_version, log_dirs.clone()),
        &dirs,
    )?;
    // The describe file is the current release's: its defaults are not the target's.
    let to_inputs = ClusterInputs {
        describe_file_release: Some(from_view.kafka_version.version),
        ..inputs(args, run, Some(args.to), log_dirs)
    };
    let to_view = ClusterView::build_over(&to_inputs, &dirs)?;
    let plan = |view: &ClusterView| {
        let opts = PlanOptions {
            now: run.now,
            topics: Vec::new(),
            version: view.kafka_version.version,
        };
        build_plan(view, &dirs, &opts)
    };
    let (from_plan, to_plan) = (plan(&from_view), plan(&to_view));
    let report = upgrade_report(&from_view, &to_view, &dirs, &from_plan, &to_plan, run.now);
    let mut findings = report.findings.clone();
    findings.extend(target_findings);
    findings.extend(unreadable_findings(&dirs, Some(&from_view)));
    sort_findings(&mut findings);
    // A segment deleted sooner or kept longer after the upgrade needs a look, as a warning does.
    let outcome =
        outcome_of(&findings, run.filters.fail_on).merge(if report.plan_changes.is_empty() {
            Outcome::Clean
        } else {
            Outcome::Findings
        });
    let doc = Document {
        command: "upgrade-check",
        body: UpgradeBody::new(&report, &from_view, &to_plan),
        findings,
        scanned: Some(ScanTotals::of(&dirs)),
        assumptions: Some(AssumptionsDoc::of(&from_view, &[])),
        outcome,
    };
    write(run, doc, render_upgrade, out)
}
