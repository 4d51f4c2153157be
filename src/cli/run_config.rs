//! The validated settings of one run, resolved once before any command runs (ripgrep's
//! `HiArgs` pattern): how to render, the instant rules are evaluated at, how large files are
//! read, and which findings and partitions a command keeps.
//!
//! `main` reads the wall clock once and hands it to [`RunConfig::new`]; nothing else in the
//! crate reads the clock. Every command that evaluates anything at an instant takes `--now`
//! ([`NowArg`]; `plan` and `delete` also take it as `--at`, or `--after` a duration from the
//! clock: [`NowOrAfterArg`]); [`RunConfig::now`] is that instant, else the wall clock, and the
//! only one any command passes down.

use clap::Args;

use crate::checks::catalog;
use crate::checks::finding::Severity;
use crate::model::file_bytes::ReadMode;
use crate::model::kafka_version::KafkaVersion;
use crate::model::snapshot::SnapshotSource;
use crate::model::units::{DurationMs, TimestampMs};
use crate::report::Rendering;

use super::common::Output;
use super::time_arg::{parse_duration_ms, parse_time_ms};
use super::Command;

/// `--now TIME`, for commands that evaluate rules at an instant (flatten it into their args).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Args)]
pub struct NowArg {
    /// Evaluate time-based rules as of this instant instead of the wall clock: RFC 3339
    /// (2026-11-30T12:00:00Z) or ms since the epoch.
    #[arg(long, value_name = "TIME", value_parser = parse_now)]
    pub now: Option<TimestampMs>,
}

/// `--now TIME` (also `--at TIME`) or `--after DURATION`: `plan` and `delete`, which look ahead.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Args)]
pub struct NowOrAfterArg {
    /// Evaluate at this instant instead of the wall clock: RFC 3339 (2026-11-30T12:00:00Z) or
    /// ms since the epoch (`--at` is the same).
    #[arg(long, visible_alias = "at", value_name = "TIME", value_parser = parse_now, conflicts_with = "after")]
    pub now: Option<TimestampMs>,
    /// Evaluate this long after the wall clock: 7d, 12h, 30m, 45s, 500ms.
    #[arg(long, value_name = "DURATION", value_parser = parse_after)]
    pub after: Option<DurationMs>,
}

/// `--mmap` (and the hidden `--no-mmap` that undoes it): how large files are read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Args)]
pub struct ReadArg {
    /// Memory-map large files for deep verification instead of reading them. Risky: a file
    /// another process truncates while it is mapped (a copy being synced, a broker without
    /// POSIX locks) kills logclean with SIGBUS, printing nothing. Default: read(2).
    #[arg(long, overrides_with = "no_mmap")]
    pub mmap: bool,
    /// Read files with read(2), the default (kept for scripts; undoes --mmap).
    #[arg(long, hide = true, overrides_with = "mmap")]
    pub no_mmap: bool,
}

impl ReadArg {
    /// The read mode these flags choose.
    pub fn mode(&self) -> ReadMode {
        ReadMode::from_mmap_flag(self.mmap)
    }
}

/// `--snapshot FILE` (repeatable), for the read-only commands that can decide from a facts
/// snapshot instead of log dirs (flatten it into their args; their log dirs are then not
/// required).
#[derive(Debug, Clone, Default, PartialEq, Eq, Args)]
pub struct SnapshotArg {
    /// Read the facts from this snapshot (`logclean snapshot`) instead of log dirs; repeat it
    /// for several (one per broker): the same answer as on all their dirs at the instants they
    /// were taken.
    #[arg(long = "snapshot", value_name = "FILE")]
    pub snapshots: Vec<std::path::PathBuf>,
}

/// `--kafka-version VERSION`, for commands that apply Kafka's rules (flatten it into their
/// args).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Args)]
pub struct KafkaVersionArg {
    /// Apply this Kafka release's rules and defaults (3.6 to 4.4; a patch such as 3.9.1 is
    /// accepted) instead of the release the files tell (meta.properties, the metadata log's
    /// metadata.version and features; the latest when nothing tells).
    #[arg(long, value_name = "VERSION", value_parser = KafkaVersion::parse)]
    pub kafka_version: Option<KafkaVersion>,
}

/// `--now`'s parser: a time, not before the epoch (Kafka's timestamps are never negative).
pub fn parse_now(s: &str) -> Result<TimestampMs, String> {
    let ms = parse_time_ms(s)?;
    if ms < 0 {
        return Err(format!("`{s}` is before 1970-01-01T00:00:00Z"));
    }
    Ok(TimestampMs(ms))
}

/// `--after`'s parser: a duration with its unit.
fn parse_after(s: &str) -> Result<DurationMs, String> {
    parse_duration_ms(s).map(DurationMs)
}

/// A command's instant arguments: `--now`/`--at`, or `--after` the clock.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InstantArg {
    /// `--now` (`--at`).
    pub now: Option<TimestampMs>,
    /// `--after`.
    pub after: Option<DurationMs>,
}

impl InstantArg {
    /// The instant: `--now`, else the wall clock plus `--after`.
    pub fn resolve(self, wall_clock: TimestampMs) -> TimestampMs {
        self.now
            .unwrap_or_else(|| wall_clock + self.after.unwrap_or_default())
    }
}

impl From<&NowArg> for InstantArg {
    fn from(a: &NowArg) -> Self {
        InstantArg {
            now: a.now,
            after: None,
        }
    }
}

impl From<&NowOrAfterArg> for InstantArg {
    fn from(a: &NowOrAfterArg) -> Self {
        InstantArg {
            now: a.now,
            after: a.after,
        }
    }
}

/// Which findings and partitions a command keeps, and which findings fail the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filters {
    /// `--topic` (repeatable; `groups` takes one).
    pub topics: Vec<String>,
    /// `--group` (`groups`).
    pub group: Option<String>,
    /// `--kind`: finding codes or domains (`diagnose`), checked against the catalog.
    pub kinds: Vec<String>,
    /// `--min-severity` (`diagnose`).
    pub min_severity: Option<Severity>,
    /// `--fail-on`: the lowest severity that makes the exit code 1 (warning where a command
    /// has no such flag).
    pub fail_on: Severity,
}

impl Default for Filters {
    fn default() -> Self {
        Filters {
            topics: Vec::new(),
            group: None,
            kinds: Vec::new(),
            min_severity: None,
            fail_on: Severity::Warning,
        }
    }
}

impl Filters {
    /// The one `--topic` of a command that takes one (`groups`).
    pub fn topic_arg(&self) -> Option<&str> {
        self.topics.first().map(String::as_str)
    }

    /// Refuse a `--kind` that is neither a finding code nor a domain.
    fn validate(&self) -> anyhow::Result<()> {
        if let Some(k) = (self.kinds.iter())
            .find(|k| catalog::by_code(k).is_none() && !catalog::DOMAINS.contains(&k.as_str()))
        {
            anyhow::bail!(
                "--kind `{k}` is neither a finding code nor a domain (README: Finding codes)"
            );
        }
        Ok(())
    }
}

/// The settings of one run.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// How to render.
    pub output: Output,
    /// When the report was made: the wall clock at start.
    pub generated_at: TimestampMs,
    /// The instant rules are evaluated at: `--now` (`--at`, `--after`) if given, else
    /// `generated_at`.
    pub now: TimestampMs,
    /// How large files are read (`--mmap`; read(2) for commands without it).
    pub read_mode: ReadMode,
    /// What the command keeps, and its `--fail-on`.
    pub filters: Filters,
    /// `--kafka-version`, if the command takes it and it was given; `None`: the release the
    /// files tell.
    pub kafka_version: Option<KafkaVersion>,
    /// The facts snapshots read instead of log dirs (`--snapshot`), said in the output; set
    /// by the command once it has read them.
    pub input: Option<Vec<SnapshotSource>>,
}

impl RunConfig {
    /// The run of `command`, from the wall clock read once by the caller.
    pub fn new(
        output: Output,
        wall_clock: TimestampMs,
        command: &Command,
    ) -> anyhow::Result<RunConfig> {
        if command.snapshot_given_to_mutation() {
            anyhow::bail!("--snapshot: {}", super::snapshot::MUTATION_REFUSED);
        }
        let filters = command.filters();
        filters.validate()?;
        Ok(RunConfig {
            output,
            generated_at: wall_clock,
            now: command.instant().resolve(wall_clock),
            read_mode: command.read_arg().map_or(ReadMode::Buffered, ReadArg::mode),
            kafka_version: command.kafka_version_arg().and_then(|a| a.kafka_version),
            filters,
            input: None,
        })
    }

    /// How the run's document is rendered.
    pub fn rendering(&self) -> Rendering {
        Rendering {
            format: self.output.format,
            style: self.output.table_style(self.now),
            generated_at: self.generated_at,
            now: self.now,
            input: self.input.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, OutputFormat};
    use clap::Parser;

    const OUTPUT: Output = Output {
        format: OutputFormat::Json,
        color: false,
        progress: false,
        width: 100,
        zone: crate::report::human::Zone::Utc,
    };

    fn run_of(args: &[&str]) -> RunConfig {
        let cli = Cli::try_parse_from(["logclean"].iter().chain(args)).unwrap();
        RunConfig::new(OUTPUT, TimestampMs(1_000), &cli.command).unwrap()
    }

    #[test]
    fn now_defaults_to_the_wall_clock() {
        for cmd in [
            "inspect",
            "config",
            "groups",
            "transactions",
            "plan",
            "diagnose",
        ] {
            let run = run_of(&[cmd, "/d"]);
            assert_eq!(
                (run.generated_at, run.now),
                (TimestampMs(1_000), TimestampMs(1_000))
            );
        }
        for cmd in ["rebuild-index", "roll", "delete"] {
            assert_eq!(run_of(&[cmd, "/d"]).now, TimestampMs(1_000), "{cmd}");
        }
    }

    #[test]
    fn every_evaluating_command_takes_now_in_either_form() {
        let commands = [
            "inspect",
            "config",
            "groups",
            "transactions",
            "plan",
            "diagnose",
            "rebuild-index",
            "roll",
            "delete",
        ];
        for cmd in commands {
            for arg in ["1767225600000", "2026-01-01T00:00:00Z"] {
                let run = run_of(&[cmd, "--now", arg, "/d"]);
                assert_eq!(run.now, TimestampMs(1_767_225_600_000), "{cmd} {arg}");
                assert_eq!(run.generated_at, TimestampMs(1_000));
            }
        }
    }

    #[test]
    fn at_and_after_fold_into_now_for_plan_and_delete() {
        for cmd in ["plan", "delete"] {
            let at = run_of(&[cmd, "--at", "2026-01-01T00:00:00Z", "/d"]);
            assert_eq!(at.now, TimestampMs(1_767_225_600_000), "{cmd}");
            assert_eq!(
                run_of(&[cmd, "--after", "2s", "/d"]).now,
                TimestampMs(3_000)
            );
            let both = ["logclean", cmd, "--now", "5", "--after", "1s", "/d"];
            assert!(Cli::try_parse_from(both).is_err(), "{cmd}");
        }
        // Only the commands that look ahead take --at and --after.
        assert!(Cli::try_parse_from(["logclean", "groups", "--at", "5", "/d"]).is_err());
        assert!(Cli::try_parse_from(["logclean", "inspect", "--after", "1s", "/d"]).is_err());
    }

    #[test]
    fn kafka_version_is_resolved_once() {
        let commands = [
            "config",
            "groups",
            "transactions",
            "plan",
            "diagnose",
            "delete",
        ];
        for cmd in commands {
            assert_eq!(run_of(&[cmd, "/d"]).kafka_version, None, "{cmd}");
            let run = run_of(&[cmd, "--kafka-version", "3.9.1", "/d"]);
            assert_eq!(run.kafka_version, Some(KafkaVersion::V3_9), "{cmd}");
        }
        let run = run_of(&[
            "upgrade-check",
            "--to",
            "4.4",
            "--kafka-version",
            "3.9",
            "/d",
        ]);
        assert_eq!(run.kafka_version, Some(KafkaVersion::V3_9));
        // The commands that apply no release's rules do not take it.
        assert!(
            Cli::try_parse_from(["logclean", "inspect", "--kafka-version", "3.9", "/d"]).is_err()
        );
    }

    #[test]
    fn bad_now_is_a_usage_error() {
        for arg in ["yesterday", "-5", "1969-12-31T23:59:59Z"] {
            let argv = [
                "logclean".to_string(),
                "inspect".into(),
                format!("--now={arg}"),
                "/d".into(),
            ];
            let e = Cli::try_parse_from(argv).unwrap_err();
            assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation, "{arg}");
        }
    }

    #[test]
    fn read_mode_and_filters_are_resolved_once() {
        assert_eq!(run_of(&["inspect", "/d"]).read_mode, ReadMode::Buffered);
        assert_eq!(
            run_of(&["inspect", "--mmap", "/d"]).read_mode,
            ReadMode::Mmap
        );
        let undone = run_of(&["plan", "--mmap", "--no-mmap", "/d"]);
        assert_eq!(undone.read_mode, ReadMode::Buffered);
        let run = run_of(&[
            "diagnose",
            "--topic",
            "a",
            "--kind",
            "plan",
            "--fail-on",
            "error",
            "/d",
        ]);
        assert_eq!(run.filters.topics, ["a"]);
        assert_eq!(run.filters.fail_on, Severity::Error);
        let groups = run_of(&["groups", "--topic", "t", "--group", "g", "/d"]);
        assert_eq!(
            (groups.filters.topics, groups.filters.group),
            (vec!["t".to_string()], Some("g".to_string()))
        );
        let cli =
            Cli::try_parse_from(["logclean", "diagnose", "--kind", "nonsense", "/d"]).unwrap();
        let e = RunConfig::new(OUTPUT, TimestampMs(0), &cli.command).unwrap_err();
        assert!(e.to_string().contains("--kind `nonsense`"), "{e}");
    }
}
