//! The one entry point of the checks: every finding of a diagnosis ([`run_checks`]) from one
//! context ([`CheckContext`]: the loaded log dirs, the cluster view, the plan at the instant).
//!
//! The order findings are produced in is the order of the domains below; the caller filters,
//! sorts and deduplicates them. Adding a finding means adding it to its domain's module (and
//! that module here when it is a new domain), its catalog entry, the README table and a test.

use crate::model::cluster::ClusterView;
use crate::model::disk_usage::DirUsage;
use crate::model::file_bytes::ReadMode;
use crate::model::log_dir::LogDir;
use crate::model::targets::NotALogDir;
use crate::model::units::TimestampMs;
use crate::plan::space::{space_usage, SpaceUsage};
use crate::plan::Plan;
use crate::rules::KafkaVersion;

use super::active::active_segment_findings;
use super::compaction::compaction_findings;
use super::config::config_findings;
use super::config_risk::config_risk_findings;
use super::disk::{disk_projections, DiskProjection, FsSpace};
use super::finding::Finding;
use super::groups::check_groups;
use super::inspect::inspect_findings;
use super::internal_topics::internal_topic_findings;
use super::log_dir::not_a_log_dir_finding;
use super::plan::plan_findings;
use super::replication::replication_findings;
use super::startup::{startup_costs, StartupCost};
use super::tiered::{index_cache_findings, tiered_findings};
use super::timestamps::timestamp_findings;
use super::transactions::check_transactions;
use crate::plan::replication::ReplicationFacts;

/// Everything the checks read: the model, the cluster view and the plan built from them at one
/// instant, and the options that change what is read or claimed.
#[derive(Debug, Clone, Copy)]
pub struct CheckContext<'a> {
    /// The loaded log dirs.
    pub dirs: &'a [LogDir],
    /// Targets that hold log dirs instead of being one.
    pub not_log_dirs: &'a [NotALogDir],
    /// Configs and the metadata image.
    pub view: &'a ClusterView,
    /// The plan of `dirs` under `view` at [`Plan::now`], the instant every time rule uses.
    pub plan: &'a Plan,
    /// The Kafka version the rules follow.
    pub version: KafkaVersion,
    /// How large files are read (the coordinators' records, `deep` reads).
    pub read_mode: ReadMode,
    /// Read the compacted logs' records (`--deep`).
    pub deep: bool,
    /// `--cleaner-rate`: bytes per second one cleaner thread moves (read + written).
    pub cleaner_rate_bytes_per_sec: Option<f64>,
    /// The filesystem figures for the disk projection (`--disk-space`); `None`: statvfs.
    pub disk_space: Option<FsSpace>,
    /// The disk usage of each of `dirs` (by index) that its listing took
    /// ([`crate::model::listing::LogDirListing::usage`]); a dir without one is walked.
    pub listed_usage: &'a [Option<DirUsage>],
}

impl CheckContext<'_> {
    /// The instant every time-based rule is evaluated at: the plan's.
    pub fn now(&self) -> TimestampMs {
        self.plan.now
    }
}

/// What the checks found, and the figures two of them computed on the way (for the summary).
#[derive(Debug)]
pub struct Checked {
    /// Every finding, in domain order, neither filtered nor sorted.
    pub findings: Vec<Finding>,
    /// The startup recovery cost of each log dir.
    pub startup: Vec<StartupCost>,
    /// The disk projection of each log dir.
    pub disk: Vec<DiskProjection>,
    /// Why each byte of each log dir is there.
    pub space: Vec<SpaceUsage>,
    /// The replicated partitions' facts the cross-replica findings came from.
    pub replication: ReplicationFacts,
}

/// Every finding of `ctx`.
pub fn run_checks(ctx: &CheckContext<'_>) -> Checked {
    // The groups', transactions' and internal topics' findings read the coordinators' logs
    // alone: replayed beside the rest (on an idle worker), then put in their place in order.
    let (mut checked, coordinators) = rayon::join(
        || partition_checks(ctx),
        || {
            let mut found = coordinator_findings(ctx);
            found.extend(internal_topic_findings(
                ctx.dirs,
                ctx.view,
                &ctx.plan.remote_tier.tier,
                ctx.now(),
                ctx.read_mode,
            ));
            found
        },
    );
    checked.findings.extend(coordinators);
    tag_nodes(ctx, &mut checked.findings);
    checked
}

/// Every finding but the coordinators' ([`run_checks`]), with the figures they come with.
fn partition_checks(ctx: &CheckContext<'_>) -> Checked {
    // The files' and the plan's findings, and the space attribution with what reads it: side
    // by side (each has long stretches on one thread), their findings then in this order.
    let ((mut findings, replication), (space, startup, disk, space_findings)) =
        rayon::join(|| file_and_plan_checks(ctx), || space_checks(ctx));
    findings.extend(space_findings);
    findings.extend(config_risk_findings(ctx.view, ctx.plan));
    Checked {
        findings,
        startup,
        disk,
        space,
        replication,
    }
}

/// The findings of the files and of the plan, with the replication facts they came from.
fn file_and_plan_checks(ctx: &CheckContext<'_>) -> (Vec<Finding>, ReplicationFacts) {
    let mut findings: Vec<Finding> = (ctx.not_log_dirs.iter())
        .map(|n| not_a_log_dir_finding(&n.dir, &n.log_dirs_below))
        .collect();
    findings.extend(inspect_findings(ctx.dirs));
    super::partition::stray_placement(ctx.dirs, ctx.view, &mut findings);
    findings.extend(config_findings(ctx.view));
    findings.extend(plan_findings(ctx.plan));
    let replication = ReplicationFacts::of(ctx.view, &ctx.plan.replicas, ctx.plan);
    findings.extend(replication_findings(&replication));
    findings.extend(tiered_findings(ctx.plan));
    findings.extend(active_segment_findings(ctx.plan, ctx.version));
    findings.extend(compaction_findings(ctx));
    findings.extend(timestamp_findings(ctx.dirs, ctx.plan));
    (findings, replication)
}

/// Why each byte is there, and what reads it: the startup costs and the disk projections, with
/// their findings.
fn space_checks(
    ctx: &CheckContext<'_>,
) -> (
    Vec<SpaceUsage>,
    Vec<StartupCost>,
    Vec<DiskProjection>,
    Vec<Finding>,
) {
    let paths: Vec<_> = ctx.dirs.iter().map(|d| d.path.clone()).collect();
    let records = ctx.view.records(ctx.read_mode);
    let space = space_usage(ctx.plan, &paths, ctx.listed_usage, records);
    let mut findings = index_cache_findings(&space, ctx.view);
    let startup = startup_costs(ctx.dirs, ctx.view, ctx.plan, &space, records, &mut findings);
    let disk = disk_projections(
        ctx.plan,
        ctx.dirs,
        ctx.disk_space,
        records,
        &startup,
        &mut findings,
    );
    (space, startup, disk, findings)
}

/// With several brokers' dirs, each finding in a log dir names the dir's node (one broker's
/// dirs leave it unset: every finding is that broker's).
fn tag_nodes(ctx: &CheckContext<'_>, findings: &mut [Finding]) {
    if ctx.view.node_ids().len() < 2 {
        return;
    }
    let nodes: Vec<(&std::path::Path, Option<i32>)> = (ctx.dirs.iter())
        .map(|d| (d.path.as_path(), ctx.view.node_of(d)))
        .collect();
    for f in findings.iter_mut() {
        let l = &mut f.location;
        if l.node.is_none() {
            l.node = (nodes.iter())
                .find(|(p, _)| *p == l.log_dir.as_path())
                .and_then(|(_, n)| *n);
        }
    }
}

/// The groups' and the transactions' findings.
fn coordinator_findings(ctx: &CheckContext<'_>) -> Vec<Finding> {
    let now = ctx.now().get();
    let mut findings =
        check_groups(ctx.dirs, ctx.view, ctx.plan, ctx.read_mode, now, None, None).findings;
    findings.extend(check_transactions(ctx.dirs, ctx.view, ctx.read_mode, now).findings);
    findings
}
