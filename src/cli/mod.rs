//! Command-line definitions (clap) and their validation into typed options.
//!
//! The clap tree lives in the library so that the man page test and the completions generator
//! see exactly what the binary parses.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::checks::finding::Severity;

pub mod common;
pub mod config;
pub mod delete;
pub mod diagnose;
pub mod free;
pub mod groups;
pub mod inspect;
pub mod join;
pub mod mutate;
pub mod plan;
pub mod progress;
pub mod rebuild_index;
pub mod resume;
pub mod roll;
pub mod run_config;
pub mod snapshot;
pub mod time_arg;
pub mod transactions;
pub mod upgrade_check;

/// Offline diagnosis of Apache Kafka log cleanup, read from the log dirs themselves.
#[derive(Debug, Parser)]
#[command(
    name = "logclean",
    version,
    // `--version`: the version and the commit built from (build.rs); `-V` and the man pages
    // keep the version alone.
    long_version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("LOGCLEAN_BUILD_COMMIT"), ")"),
    about = "Offline diagnosis of Apache Kafka log cleanup, from the log dir files themselves",
    long_about = "logclean reads Kafka log dirs (segments, indexes, checkpoints, producer snapshots) \
        without a running broker and reports what it finds, using the broker's own rules.\n\n\
        Read-only commands never write, create or lock anything in a log dir.",
    after_help = "Exit codes: 0 fine; 1 findings at or above --fail-on; 2 corrupt data found; \
        3 usage error, I/O error or refused mutation; 130 interrupted. Exit codes mean action: a \
        finding whose fix is \"none needed\" is info, so it sets no exit code unless --fail-on info."
)]
pub struct Cli {
    /// Output format.
    #[arg(long, global = true, value_enum, default_value_t = FormatArg::Table)]
    pub format: FormatArg,
    /// When to colour the table output.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Never show a progress bar (it only shows on a terminal anyway).
    #[arg(long, global = true)]
    pub no_progress: bool,
    /// Show times in the host's time zone (with its UTC offset) instead of UTC, in tables.
    #[arg(long, global = true)]
    pub local_time: bool,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// `--format`: [`OutputFormat`], or the metrics only `diagnose` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Aligned tables for people.
    Table,
    /// One JSON document with a versioned schema (see README).
    Json,
    /// `diagnose` only: a node_exporter textfile (Prometheus text format) of counts and bytes.
    Prometheus,
    /// `diagnose` and `plan` only: one self-contained HTML page (inline CSS and SVG, nothing
    /// fetched) to attach to a ticket.
    Html,
}

pub use crate::report::OutputFormat;

impl Cli {
    /// The output format of the run: `--format prometheus` is refused for every command but
    /// `diagnose` (which reads [`Cli::format`] itself; its table settings are then unused).
    pub fn output_format(&self) -> anyhow::Result<OutputFormat> {
        match self.format {
            FormatArg::Table => Ok(OutputFormat::Table),
            FormatArg::Json => Ok(OutputFormat::Json),
            FormatArg::Prometheus if matches!(self.command, Command::Diagnose(_)) => {
                Ok(OutputFormat::Table)
            }
            FormatArg::Prometheus => anyhow::bail!(
                "--format prometheus is only offered by `logclean diagnose` (its counts and bytes \
                 as a node_exporter textfile); use --format json or table here"
            ),
            FormatArg::Html if matches!(self.command, Command::Diagnose(_) | Command::Plan(_)) => {
                Ok(OutputFormat::Html)
            }
            FormatArg::Html => anyhow::bail!(
                "--format html is only offered by `logclean diagnose` and `logclean plan` (a \
                 report to share); use --format json or table here"
            ),
        }
    }
}

/// `--fail-on`: the lowest severity that makes the exit code 1 (the CLI's mirror of
/// [`Severity`], which does not depend on clap).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Worth knowing; nothing is wrong.
    Info,
    /// Not what a healthy broker leaves; may cost disk or correctness later.
    Warning,
    /// Wrong now: data, an index or a checkpoint the broker will mis-read or reject.
    Error,
}

impl From<FailOn> for Severity {
    fn from(f: FailOn) -> Severity {
        match f {
            FailOn::Info => Severity::Info,
            FailOn::Warning => Severity::Warning,
            FailOn::Error => Severity::Error,
        }
    }
}

/// Colour choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour when stdout is a terminal.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// What is wrong with log cleanup in a broker's log dirs, why, the numbers behind each
    /// claim and the command that fixes it: a summary, then the findings of inspect, config,
    /// plan, groups and transactions from one read (and `segment.active_not_rolling`).
    Diagnose(diagnose::DiagnoseArgs),
    /// Show what is in log dirs, partition dirs or segment files: segments, offsets, times,
    /// indexes, checkpoints; with --verify, check every batch and index against the log.
    Inspect(InspectArgs),
    /// Effective value and source of each cleanup-relevant config, per topic, as the broker would
    /// resolve it: topic override > dynamic per-broker > dynamic cluster default >
    /// server.properties > default, read from the KRaft metadata log on disk.
    Config(ConfigArgs),
    /// Consumer groups as the coordinator would load them from `__consumer_offsets`: committed
    /// offsets, log start and end, lag, and what the next retention pass and offset expiry do.
    Groups(GroupsArgs),
    /// Transactional ids from `__transaction_state`, and per data partition the open
    /// transactions of the producer-state replay, the last stable offset they hold, and the
    /// abort command of each hanging one.
    Transactions(TransactionsArgs),
    /// What the broker's cleanup will delete, keep and compact, per segment, at an instant: the
    /// pass or the first failing condition with its numbers, when files are gone, new log start
    /// offsets, the cleaner's next log; with --config, the same plan under proposed values.
    Plan(PlanArgs),
    /// Rebuild .index, .timeindex and .txnindex from the .log exactly as the broker's segment
    /// recovery does (dry run unless --execute); --verify-only compares and explains.
    RebuildIndex(RebuildIndexArgs),
    /// Close the active segment of partitions offline as the broker does on roll (dry run
    /// unless --execute), so retention can act on it.
    Roll(RollArgs),
    /// Carry out the deletions of `logclean plan` offline as the broker's retention pass would
    /// (dry run unless --execute): segment files removed, log start offsets advanced, recovery
    /// points kept consistent; names the consumer groups that lose data.
    Delete(DeleteArgs),
    /// Reclaim space until the filesystem has --target free (dry run unless --execute), least
    /// harmful first: `.deleted` files and `-delete` dirs, `-stray` dirs the metadata assigns
    /// elsewhere, abandoned `-future` dirs, the remote index cache, what retention deletes
    /// now, and only with
    /// --beyond-retention TOPIC that topic's oldest segments; journaled like `delete`.
    Free(free::FreeArgs),
    /// Finish a mutating run that was interrupted or killed, from its journal.
    Resume(JournalArgs),
    /// Roll back a mutating run (finished or interrupted) from its journal and quarantine.
    Undo(JournalArgs),
    /// What changes for these log dirs on upgrading the broker to another Kafka release:
    /// producers writing more than 1 h ahead, removed or newly rejected configs, changed
    /// defaults, transaction-marker semantics, segments whose deletion changes at the same
    /// instant, ZooKeeper-mode dirs that must migrate to KRaft first. Exit 0: nothing to do;
    /// 1: changes that need action; 3: usage or I/O error.
    UpgradeCheck(upgrade_check::UpgradeCheckArgs),
    /// The cluster view of several brokers' `diagnose --format json` reports (one per host):
    /// each partition's replicas across nodes, a follower's HW from its leader's report, the
    /// cross-replica findings, and every report's findings with its node. Reads the reports
    /// (or each broker's facts snapshot, `--snapshot`) only, never log dirs.
    Join(join::JoinArgs),
    /// Write the facts the read-only commands decide from (segment and index summaries,
    /// checkpoints, producer-state summaries, meta.properties, the metadata image, the groups',
    /// transactions' and remote tier's replays, the disk figures; never record payloads, keys
    /// or values) as one compressed, versioned file that every read-only command reads with
    /// `--snapshot` in place of the log dirs (docs/snapshot.md).
    Snapshot(snapshot::SnapshotArgs),
    /// Print a shell completion script.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

impl Command {
    /// The command's instant arguments, for [`run_config::RunConfig`] (none for the commands
    /// that evaluate nothing at an instant).
    pub fn instant(&self) -> run_config::InstantArg {
        match self {
            Command::Diagnose(a) => (&a.now).into(),
            Command::Inspect(a) => (&a.now).into(),
            Command::Config(a) => (&a.now).into(),
            Command::Groups(a) => (&a.now).into(),
            Command::Transactions(a) => (&a.now).into(),
            Command::Plan(a) => (&a.now).into(),
            Command::RebuildIndex(a) => (&a.now).into(),
            Command::Roll(a) => (&a.now).into(),
            Command::Delete(a) => (&a.now).into(),
            Command::Free(a) => (&a.now).into(),
            Command::UpgradeCheck(a) => (&a.now).into(),
            Command::Join(a) => (&a.now).into(),
            Command::Resume(_)
            | Command::Undo(_)
            | Command::Snapshot(_)
            | Command::Completions { .. } => run_config::InstantArg::default(),
        }
    }

    /// The command's `--mmap` flags (the mutating commands read with read(2)).
    pub fn read_arg(&self) -> Option<&run_config::ReadArg> {
        match self {
            Command::Diagnose(a) => Some(&a.read),
            Command::Inspect(a) => Some(&a.read),
            Command::Config(a) => Some(&a.read),
            Command::Groups(a) => Some(&a.read),
            Command::Transactions(a) => Some(&a.read),
            Command::Plan(a) => Some(&a.read),
            Command::UpgradeCheck(a) => Some(&a.read),
            Command::RebuildIndex(_)
            | Command::Roll(_)
            | Command::Delete(_)
            | Command::Free(_)
            | Command::Resume(_)
            | Command::Undo(_)
            | Command::Snapshot(_)
            | Command::Join(_)
            | Command::Completions { .. } => None,
        }
    }

    /// `--snapshot` given to a mutating command (refused: [`snapshot::MUTATION_REFUSED`]).
    pub fn snapshot_given_to_mutation(&self) -> bool {
        match self {
            Command::RebuildIndex(a) => !a.mutate.snapshot.is_empty(),
            Command::Roll(a) => !a.mutate.snapshot.is_empty(),
            Command::Delete(a) => !a.mutate.snapshot.is_empty(),
            Command::Free(a) => !a.mutate.snapshot.is_empty(),
            _ => false,
        }
    }

    /// The command's filters and `--fail-on`.
    pub fn filters(&self) -> run_config::Filters {
        let fail_on = |f: FailOn| run_config::Filters {
            fail_on: f.into(),
            ..run_config::Filters::default()
        };
        match self {
            Command::Diagnose(a) => run_config::Filters {
                topics: a.topics.clone(),
                kinds: a.kinds.clone(),
                min_severity: a.min_severity.map(Severity::from),
                ..fail_on(a.fail_on)
            },
            Command::Inspect(a) => fail_on(a.fail_on),
            Command::Config(a) => run_config::Filters {
                topics: a.topics.clone(),
                ..fail_on(a.fail_on)
            },
            Command::Groups(a) => run_config::Filters {
                topics: a.topic.iter().cloned().collect(),
                group: a.group.clone(),
                ..fail_on(a.fail_on)
            },
            Command::Transactions(a) => fail_on(a.fail_on),
            Command::Join(a) => fail_on(a.fail_on),
            Command::Plan(a) => run_config::Filters {
                topics: a.topics.clone(),
                ..run_config::Filters::default()
            },
            Command::RebuildIndex(_)
            | Command::Roll(_)
            | Command::Delete(_)
            | Command::Free(_)
            | Command::UpgradeCheck(_)
            | Command::Resume(_)
            | Command::Undo(_)
            | Command::Snapshot(_)
            | Command::Completions { .. } => run_config::Filters::default(),
        }
    }

    /// The command's `--kafka-version`, for [`run_config::RunConfig`] (the commands that
    /// apply Kafka's rules take it).
    pub fn kafka_version_arg(&self) -> Option<&run_config::KafkaVersionArg> {
        match self {
            Command::Diagnose(a) => Some(&a.kafka_version),
            Command::Config(a) => Some(&a.kafka_version),
            Command::Groups(a) => Some(&a.kafka_version),
            Command::Transactions(a) => Some(&a.kafka_version),
            Command::Plan(a) => Some(&a.kafka_version),
            Command::Delete(a) => Some(&a.kafka_version),
            Command::Free(a) => Some(&a.kafka_version),
            Command::UpgradeCheck(a) => Some(&a.kafka_version),
            Command::Inspect(_)
            | Command::RebuildIndex(_)
            | Command::Roll(_)
            | Command::Resume(_)
            | Command::Undo(_)
            | Command::Snapshot(_)
            | Command::Join(_)
            | Command::Completions { .. } => None,
        }
    }
}

/// Arguments of `logclean inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// Log dirs, partition dirs or segment files (.log) to inspect.
    #[arg(
        required_unless_present = "snapshots",
        conflicts_with = "snapshots",
        value_name = "PATH"
    )]
    pub paths: Vec<PathBuf>,
    /// Facts snapshots instead of log dirs (taken with `snapshot --depth headers`).
    #[command(flatten)]
    pub snapshot: run_config::SnapshotArg,
    /// Print every batch and record (keys and values shown safely, truncated).
    #[arg(long)]
    pub records: bool,
    /// Deep check: CRC of every batch, decode every record, indexes against the log.
    #[arg(long)]
    pub verify: bool,
    /// With --records: bytes of each key and value to show.
    #[arg(long, default_value_t = 64, value_name = "BYTES")]
    pub max_value_bytes: usize,
    /// With --records: stop after this many records per partition (0: no limit).
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub max_records: usize,
    /// The instant ages and time-based rules are evaluated at.
    #[command(flatten)]
    pub now: run_config::NowArg,
    /// How large files are read (`--mmap`).
    #[command(flatten)]
    pub read: run_config::ReadArg,
    /// Lowest severity that makes the exit code 1.
    #[arg(long, value_enum, default_value_t = FailOn::Warning)]
    pub fail_on: FailOn,
}

/// A `--config TOPIC:KEY=VALUE`, checked before anything runs: a topic config of some release
/// modelled (3.6 to 4.4), a value of its type that passes its validator (no units: `7d` is
/// refused with its value in ms). The dirs' own release, whether the topic exists and Kafka's
/// cross-checks need the log dirs, and come when the configs are resolved.
pub(crate) fn parse_config_arg(arg: &str) -> Result<String, String> {
    match crate::config::parse_config_override(arg) {
        Ok(_) => Ok(arg.to_string()),
        Err(crate::config::ConfigError::BadOverride { reason, .. }) => Err(reason),
        Err(e) => Err(e.to_string()),
    }
}

/// Arguments of `logclean config`.
#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// Log dirs (the one holding `__cluster_metadata-0` gives topic overrides and dynamic
    /// configs). Default: `log.dirs` of --server-properties.
    #[arg(value_name = "LOG_DIR", conflicts_with = "snapshots")]
    pub paths: Vec<PathBuf>,
    /// Facts snapshots instead of log dirs.
    #[command(flatten)]
    pub snapshot: run_config::SnapshotArg,
    /// The broker's static `server.properties`.
    #[arg(long, value_name = "FILE")]
    pub server_properties: Option<PathBuf>,
    /// Only these topics (repeatable). Default: every topic in the metadata log.
    #[arg(long = "topic", value_name = "TOPIC")]
    pub topics: Vec<String>,
    /// Whose dynamic per-broker configs apply. Default: node.id in meta.properties.
    #[arg(long, value_name = "N")]
    pub broker_id: Option<i32>,
    /// Override a value, as a proposed change would (repeatable; topic `*` = every topic).
    ///
    /// Checked as the dirs' Kafka release (4.4 by default) checks an alterConfigs: a topic config
    /// of that release, a value of its type and range without units (`7d` is refused: give
    /// 604800000), a topic that exists, LogConfig's cross-checks on the result; a refused one
    /// exits 3, nothing planned or changed.
    #[arg(long = "config", value_name = "TOPIC:KEY=VALUE", value_parser = parse_config_arg)]
    pub overrides: Vec<String>,
    /// Output of `kafka-configs.sh --describe --all` from a live cluster, used as a source.
    #[arg(long, value_name = "FILE")]
    pub config_file: Option<PathBuf>,
    /// Only values that are not Kafka's defaults.
    #[arg(long)]
    pub diff: bool,
    /// Every topic config, not only those that decide rolling, retention and compaction.
    #[arg(long)]
    pub all_keys: bool,
    /// The instant ages and time-based rules are evaluated at.
    #[command(flatten)]
    pub now: run_config::NowArg,
    /// How large files are read (`--mmap`).
    #[command(flatten)]
    pub read: run_config::ReadArg,
    /// The Kafka release whose rules apply (default: the one the files tell).
    #[command(flatten)]
    pub kafka_version: run_config::KafkaVersionArg,
    /// Lowest severity that makes the exit code 1.
    #[arg(long, value_enum, default_value_t = FailOn::Warning)]
    pub fail_on: FailOn,
}

/// Arguments of `logclean groups`.
#[derive(Debug, Args)]
pub struct GroupsArgs {
    /// Log dirs: those holding `__consumer_offsets` partitions, the data partitions and
    /// `__cluster_metadata-0` (configs).
    #[arg(
        required_unless_present = "snapshots",
        conflicts_with = "snapshots",
        value_name = "LOG_DIR"
    )]
    pub paths: Vec<PathBuf>,
    /// Facts snapshots instead of log dirs.
    #[command(flatten)]
    pub snapshot: run_config::SnapshotArg,
    /// Only this group.
    #[arg(long, value_name = "GROUP")]
    pub group: Option<String>,
    /// Only offsets of this topic.
    #[arg(long, value_name = "TOPIC")]
    pub topic: Option<String>,
    /// The broker's static `server.properties` (offsets.retention.minutes and other broker
    /// values not set dynamically).
    #[arg(long, value_name = "FILE")]
    pub server_properties: Option<PathBuf>,
    /// Output of `kafka-configs.sh --describe --all --entity-type topics` (and `brokers`) from
    /// the live cluster: the topics' real configs where the dirs do not hold them (ZooKeeper
    /// mode, a missing metadata log).
    #[arg(long, value_name = "FILE")]
    pub config_file: Option<PathBuf>,
    /// The instant expiry and retention are evaluated at.
    #[command(flatten)]
    pub now: run_config::NowArg,
    /// How large files are read (`--mmap`).
    #[command(flatten)]
    pub read: run_config::ReadArg,
    /// The Kafka release whose rules apply (default: the one the files tell).
    #[command(flatten)]
    pub kafka_version: run_config::KafkaVersionArg,
    /// Lowest severity that makes the exit code 1.
    #[arg(long, value_enum, default_value_t = FailOn::Warning)]
    pub fail_on: FailOn,
}

/// Arguments of `logclean transactions`.
#[derive(Debug, Args)]
pub struct TransactionsArgs {
    /// Log dirs: those holding `__transaction_state` partitions, the data partitions and
    /// `__cluster_metadata-0` (configs).
    #[arg(
        required_unless_present = "snapshots",
        conflicts_with = "snapshots",
        value_name = "LOG_DIR"
    )]
    pub paths: Vec<PathBuf>,
    /// Facts snapshots instead of log dirs.
    #[command(flatten)]
    pub snapshot: run_config::SnapshotArg,
    /// The broker's static `server.properties` (transaction.max.timeout.ms when not set
    /// dynamically).
    #[arg(long, value_name = "FILE")]
    pub server_properties: Option<PathBuf>,
    /// Output of `kafka-configs.sh --describe --all --entity-type topics` (and `brokers`) from
    /// the live cluster: the topics' real configs where the dirs do not hold them (ZooKeeper
    /// mode, a missing metadata log).
    #[arg(long, value_name = "FILE")]
    pub config_file: Option<PathBuf>,
    /// The instant transaction ages are evaluated at.
    #[command(flatten)]
    pub now: run_config::NowArg,
    /// How large files are read (`--mmap`).
    #[command(flatten)]
    pub read: run_config::ReadArg,
    /// The Kafka release whose rules apply (default: the one the files tell).
    #[command(flatten)]
    pub kafka_version: run_config::KafkaVersionArg,
    /// Lowest severity that makes the exit code 1.
    #[arg(long, value_enum, default_value_t = FailOn::Warning)]
    pub fail_on: FailOn,
}

/// Arguments of `logclean plan`.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Log dirs (the one holding `__cluster_metadata-0` gives topic configs, leaders and ISRs).
    #[arg(
        required_unless_present = "snapshots",
        conflicts_with = "snapshots",
        value_name = "LOG_DIR"
    )]
    pub paths: Vec<PathBuf>,
    /// Facts snapshots instead of log dirs.
    #[command(flatten)]
    pub snapshot: run_config::SnapshotArg,
    /// The instant the plan is made at.
    #[command(flatten)]
    pub now: run_config::NowOrAfterArg,
    /// A proposed value (repeatable; topic `*` = every topic): the plan under it and the
    /// difference to today's.
    ///
    /// Checked as the dirs' Kafka release (4.4 by default) checks an alterConfigs: a topic config
    /// of that release, a value of its type and range without units (`7d` is refused: give
    /// 604800000), a topic that exists, LogConfig's cross-checks on the result; a refused one
    /// exits 3, nothing planned or changed.
    #[arg(long = "config", value_name = "TOPIC:KEY=VALUE", value_parser = parse_config_arg)]
    pub overrides: Vec<String>,
    /// Proposed values from a file, one `TOPIC:KEY=VALUE` per line (blank lines and lines
    /// starting with `#` skipped), each as a `--config` (after those): a pull request's
    /// proposed configs, gated in CI.
    #[arg(long, value_name = "FILE")]
    pub proposed_configs: Option<PathBuf>,
    /// Only these topics (repeatable).
    #[arg(long = "topic", value_name = "TOPIC")]
    pub topics: Vec<String>,
    /// The broker's static `server.properties` (check interval, delays, cleaner settings).
    #[arg(long, value_name = "FILE")]
    pub server_properties: Option<PathBuf>,
    /// Output of `kafka-configs.sh --describe --all --entity-type topics` (and `brokers`) from
    /// the live cluster: the topics' real configs where the dirs do not hold them (ZooKeeper
    /// mode, a missing metadata log).
    #[arg(long, value_name = "FILE")]
    pub config_file: Option<PathBuf>,
    /// Whose dynamic configs, leadership and ISR apply. Default: node.id in meta.properties.
    #[arg(long, value_name = "N")]
    pub broker_id: Option<i32>,
    /// Per partition, the segments on a time axis with the retention cut-off and the instant.
    #[arg(long)]
    pub timeline: bool,
    /// Exit 1 when the plan deletes more than SIZE bytes (suffixes K, M, G, T, KiB, MiB, ...).
    #[arg(long, value_name = "SIZE", value_parser = plan::parse_size)]
    pub fail_if_deletes_more_than: Option<u64>,
    /// Exit 1 when a segment past retention.ms stays on disk.
    #[arg(long)]
    pub fail_if_retains_expired: bool,
    /// How large files are read (`--mmap`).
    #[command(flatten)]
    pub read: run_config::ReadArg,
    /// The Kafka release whose rules apply (default: the one the files tell).
    #[command(flatten)]
    pub kafka_version: run_config::KafkaVersionArg,
}

/// Options every mutating command shares (issue 9 safety rules).
#[derive(Debug, Args)]
pub struct MutateArgs {
    /// Apply the plan. Without it the command is a dry run: it prints the actions and changes
    /// nothing.
    #[arg(long)]
    pub execute: bool,
    /// Journal root (default: `<log dir parent>/.logclean-journal/<log dir name>`).
    #[arg(long, value_name = "DIR")]
    pub journal: Option<PathBuf>,
    /// Where replaced and removed files go; must be on the log dir's filesystem (default: the
    /// run's journal dir).
    #[arg(long, value_name = "DIR")]
    pub quarantine: Option<PathBuf>,
    /// Remove files instead of keeping them in quarantine (the run cannot be undone).
    #[arg(long)]
    pub purge: bool,
    /// Partitions planned and executed in parallel (0: one per core); each partition dir's
    /// steps keep their order, the log dir's checkpoints are written after them.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub jobs: usize,
    /// The broker's static `server.properties` (for index.interval.bytes and
    /// segment.index.bytes; topic overrides come from the metadata log).
    #[arg(long, value_name = "FILE")]
    pub server_properties: Option<PathBuf>,
    /// Override a value (repeatable; topic `*` = every topic).
    ///
    /// Checked as the dirs' Kafka release (4.4 by default) checks an alterConfigs: a topic config
    /// of that release, a value of its type and range without units (`7d` is refused: give
    /// 604800000), a topic that exists, LogConfig's cross-checks on the result; a refused one
    /// exits 3, nothing planned or changed.
    #[arg(long = "config", value_name = "TOPIC:KEY=VALUE", value_parser = parse_config_arg)]
    pub overrides: Vec<String>,
    /// Output of `kafka-configs.sh --describe --all --entity-type topics` (and `brokers`) from
    /// the live cluster: the topics' real configs where the dirs do not hold them (ZooKeeper
    /// mode, a missing metadata log).
    #[arg(long, value_name = "FILE")]
    pub config_file: Option<PathBuf>,
    /// Refused: a facts snapshot cannot be changed (accepted only to say so).
    #[arg(long = "snapshot", value_name = "FILE", hide = true)]
    pub snapshot: Vec<PathBuf>,
}

/// Arguments of `logclean rebuild-index`.
#[derive(Debug, Args)]
pub struct RebuildIndexArgs {
    /// Log dirs, partition dirs or segment files.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Only compare the indexes on disk with rebuilt ones and explain the differences (reads
    /// only; allowed on a running broker's dir).
    #[arg(long, conflicts_with = "execute")]
    pub verify_only: bool,
    /// The instant the report is made at.
    #[command(flatten)]
    pub now: run_config::NowArg,
    /// Truncate the first segment with an invalid batch there and remove every later segment,
    /// as the broker's recovery would (otherwise such a segment is reported and left alone).
    #[arg(long)]
    pub truncate_invalid_tail: bool,
    /// Shared options of mutating commands.
    #[command(flatten)]
    pub mutate: MutateArgs,
}

/// Arguments of `logclean roll`.
#[derive(Debug, Args)]
pub struct RollArgs {
    /// Partition dirs (or log dirs: every partition in them).
    #[arg(required = true, value_name = "PARTITION_DIR")]
    pub paths: Vec<PathBuf>,
    /// The instant the report is made at.
    #[command(flatten)]
    pub now: run_config::NowArg,
    /// Shared options of mutating commands.
    #[command(flatten)]
    pub mutate: MutateArgs,
}

/// Arguments of `logclean delete`.
#[derive(Debug, Args)]
pub struct DeleteArgs {
    /// Log dirs (every partition in them; a partition's log start lives in its log dir's
    /// checkpoint).
    #[arg(required = true, value_name = "LOG_DIR")]
    pub paths: Vec<PathBuf>,
    /// The instant of the plan whose deletions are carried out.
    #[command(flatten)]
    pub now: run_config::NowOrAfterArg,
    /// Refuse (exit 3, nothing changed) when a consumer group's committed offset would fall
    /// below a new log start.
    #[arg(long)]
    pub fail_if_group_loses_data: bool,
    /// Delete also in partitions whose plan rests on config values logclean did not read
    /// (Kafka's defaults where server.properties or the topic's overrides were not given);
    /// without it such partitions are refused (exit 3, nothing changed).
    #[arg(long)]
    pub accept_assumed_configs: bool,
    /// The Kafka release whose rules apply (default: the one the files tell).
    #[command(flatten)]
    pub kafka_version: run_config::KafkaVersionArg,
    /// Shared options of mutating commands (`--config` and `--server-properties` also set the
    /// configs the plan is made with).
    #[command(flatten)]
    pub mutate: MutateArgs,
}

/// Arguments of `logclean resume` and `logclean undo`.
#[derive(Debug, Args)]
pub struct JournalArgs {
    /// The log dir the run changed.
    #[arg(value_name = "LOG_DIR")]
    pub log_dir: PathBuf,
    /// Journal root the run used (default: next to the log dir).
    #[arg(long, value_name = "DIR")]
    pub journal: Option<PathBuf>,
    /// One run's dir (default: the latest run that needs it).
    #[arg(long, value_name = "RUN_DIR")]
    pub run: Option<PathBuf>,
}

/// The clap command tree (for the man page and completions).
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_definition_is_consistent() {
        command().debug_assert();
    }

    #[test]
    fn inspect_flags_parse() {
        let cli = Cli::try_parse_from([
            "logclean",
            "--format",
            "json",
            "inspect",
            "/a",
            "/b",
            "--verify",
            "--fail-on",
            "error",
        ])
        .unwrap();
        assert_eq!(cli.format, FormatArg::Json);
        let Command::Inspect(args) = cli.command else {
            panic!("not inspect")
        };
        assert_eq!(args.paths.len(), 2);
        assert!(args.verify && !args.records);
        assert_eq!(args.fail_on, FailOn::Error);
        assert_eq!(Severity::from(args.fail_on), Severity::Error);
    }

    #[test]
    fn inspect_needs_a_path() {
        assert!(Cli::try_parse_from(["logclean", "inspect"]).is_err());
    }
}
