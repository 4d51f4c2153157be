//! The validated settings of one run, resolved once before any command runs (ripgrep's
//! `HiArgs` pattern): output settings and the two instants every report records.
//!
//! `main` reads the wall clock once and hands it to [`RunConfig::new`]; nothing else in the
//! crate reads the clock. Rules take `evaluated_at_ms` as an argument: it is `--now` when a
//! command accepts it and it was given, else the wall clock.

use clap::Args;

use super::common::Output;
use super::time_arg::parse_time_ms;
use crate::model::kafka_version::KafkaVersion;

/// `--now TIME`, for commands that evaluate time-based rules (flatten it into their args).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Args)]
pub struct NowArg {
    /// Evaluate time-based rules as of this instant instead of the wall clock: RFC 3339
    /// (2026-11-30T12:00:00Z) or ms since the epoch.
    #[arg(long, value_name = "TIME", value_parser = parse_now)]
    pub now: Option<i64>,
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
pub fn parse_now(s: &str) -> Result<i64, String> {
    let ms = parse_time_ms(s)?;
    if ms < 0 {
        return Err(format!("`{s}` is before 1970-01-01T00:00:00Z"));
    }
    Ok(ms)
}

/// The settings of one run.
#[derive(Debug, Clone, Copy)]
pub struct RunConfig {
    /// How to render.
    pub output: Output,
    /// When the report was made: the wall clock at start, ms since the epoch.
    pub generated_at_ms: i64,
    /// The instant rules are evaluated at: `--now` if given, else `generated_at_ms`.
    pub evaluated_at_ms: i64,
    /// `--kafka-version`, if the command takes it and it was given.
    pub kafka_version: Option<KafkaVersion>,
}

impl RunConfig {
    /// The run's settings, from the wall clock read once by the caller and the command's
    /// `--now` (`None` for a command without one).
    pub fn new(output: Output, wall_clock_ms: i64, now: Option<&NowArg>) -> RunConfig {
        RunConfig {
            output,
            generated_at_ms: wall_clock_ms,
            evaluated_at_ms: now.and_then(|n| n.now).unwrap_or(wall_clock_ms),
            kafka_version: None,
        }
    }

    /// The run with the command's `--kafka-version` (`None` for a command without one).
    pub fn with_kafka_version(mut self, arg: Option<&KafkaVersionArg>) -> RunConfig {
        self.kafka_version = arg.and_then(|a| a.kafka_version);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::OutputFormat;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cmd {
        #[command(flatten)]
        now: NowArg,
    }

    const OUTPUT: Output = Output {
        format: OutputFormat::Json,
        color: false,
        progress: false,
        width: 100,
        zone: crate::report::human::Zone::Utc,
    };

    #[test]
    fn now_defaults_to_the_wall_clock() {
        let cmd = Cmd::try_parse_from(["x"]).unwrap();
        assert_eq!(cmd.now, NowArg::default());
        let run = RunConfig::new(OUTPUT, 1_000, Some(&cmd.now));
        assert_eq!((run.generated_at_ms, run.evaluated_at_ms), (1_000, 1_000));
        let run = RunConfig::new(OUTPUT, 1_000, None);
        assert_eq!(run.evaluated_at_ms, 1_000);
    }

    #[test]
    fn now_is_parsed_once_in_either_form() {
        for arg in ["1767225600000", "2026-01-01T00:00:00Z"] {
            let cmd = Cmd::try_parse_from(["x", "--now", arg]).unwrap();
            let run = RunConfig::new(OUTPUT, 5, Some(&cmd.now));
            assert_eq!(run.evaluated_at_ms, 1_767_225_600_000, "{arg}");
            assert_eq!(run.generated_at_ms, 5);
        }
    }

    #[test]
    fn bad_now_is_a_usage_error() {
        for arg in ["yesterday", "-5", "1969-12-31T23:59:59Z"] {
            let e = Cmd::try_parse_from(["x".to_string(), format!("--now={arg}")]).unwrap_err();
            assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation, "{arg}");
        }
    }
}
