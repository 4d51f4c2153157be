//! Parsing a config value the way Kafka's `ConfigDef.parseType` does, checking it with the
//! config's validator, and rendering it the way `ConfigDef.convertToString` does (which is what
//! `describeConfigs` shows).

use super::defaults::{ConfigType, Validator};

/// A parsed value.
#[derive(Debug, Clone, PartialEq)]
pub enum Typed {
    /// `LONG`, `INT`, `SHORT`.
    Integer(i64),
    /// `DOUBLE`.
    Double(f64),
    /// `BOOLEAN`.
    Boolean(bool),
    /// `STRING`, `CLASS`, `PASSWORD`.
    Text(String),
    /// `LIST`.
    List(Vec<String>),
}

/// Parse `raw` as `ty` (Kafka trims the value first). The error is the reason, in words.
pub fn parse(ty: ConfigType, raw: &str) -> Result<Typed, String> {
    let t = raw.trim();
    let int = |min: i64, max: i64, what: &str| -> Result<Typed, String> {
        t.parse::<i64>()
            .ok()
            .filter(|v| *v >= min && *v <= max)
            .map(Typed::Integer)
            .ok_or_else(|| format!("expected value to be a {what}"))
    };
    match ty {
        ConfigType::Long => int(i64::MIN, i64::MAX, "64-bit integer (long)"),
        ConfigType::Int => int(
            i64::from(i32::MIN),
            i64::from(i32::MAX),
            "32-bit integer (int)",
        ),
        ConfigType::Short => int(
            i64::from(i16::MIN),
            i64::from(i16::MAX),
            "16-bit integer (short)",
        ),
        ConfigType::Double => parse_java_double(t)
            .map(Typed::Double)
            .ok_or_else(|| "expected value to be a double".to_string()),
        ConfigType::Boolean => {
            if t.eq_ignore_ascii_case("true") {
                Ok(Typed::Boolean(true))
            } else if t.eq_ignore_ascii_case("false") {
                Ok(Typed::Boolean(false))
            } else {
                Err("expected value to be either true or false".to_string())
            }
        }
        ConfigType::String | ConfigType::Class | ConfigType::Password => Ok(Typed::Text(t.into())),
        ConfigType::List => {
            if t.is_empty() {
                Ok(Typed::List(Vec::new()))
            } else {
                Ok(Typed::List(
                    t.split(',').map(|s| s.trim().to_string()).collect(),
                ))
            }
        }
    }
}

/// `Double.parseDouble` on a trimmed string: decimal or exponent forms, an optional `d`/`f`
/// suffix, `Infinity` and `NaN` (case-sensitive, as Java).
fn parse_java_double(t: &str) -> Option<f64> {
    let body = t.strip_suffix(['d', 'D', 'f', 'F']).unwrap_or(t);
    let unsigned = body.trim_start_matches(['+', '-']);
    if unsigned == "Infinity" || unsigned == "NaN" {
        return body.replace("Infinity", "inf").parse().ok();
    }
    if unsigned.is_empty()
        || !unsigned
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
    {
        return None;
    }
    body.parse().ok()
}

/// Check `v` against `validator`. The error is Kafka's reason, in words.
pub fn validate(validator: Validator, v: &Typed) -> Result<(), String> {
    match (validator, v) {
        (Validator::None, _) => Ok(()),
        (Validator::AtLeast(min), Typed::Integer(n)) => {
            if *n < min {
                Err(format!("Value must be at least {min}"))
            } else {
                Ok(())
            }
        }
        (Validator::Between(min, max), Typed::Integer(n)) => {
            if *n < min || *n > max {
                Err(format!("Value must be between {min} and {max}"))
            } else {
                Ok(())
            }
        }
        (Validator::BetweenF(min, max), Typed::Double(n)) => {
            // Java's `n < min || n > max` lets NaN through; so do we.
            if *n < min || *n > max {
                Err(format!(
                    "Value must be between {} and {}",
                    render_java_double(min),
                    render_java_double(max)
                ))
            } else {
                Ok(())
            }
        }
        (Validator::OneOf(allowed), Typed::Text(s)) => {
            if allowed.contains(&s.as_str()) {
                Ok(())
            } else {
                Err(format!("String must be one of: {}", allowed.join(", ")))
            }
        }
        (Validator::ListOf(allowed), Typed::List(items)) => {
            match items.iter().find(|i| !allowed.contains(&i.as_str())) {
                None => Ok(()),
                Some(bad) => Err(format!(
                    "Invalid value {bad}: must be one of: {}",
                    allowed.join(", ")
                )),
            }
        }
        (Validator::GzipLevel, Typed::Integer(n)) => {
            if *n == -1 || (1..=9).contains(n) {
                Ok(())
            } else {
                Err("Value must be between 1 and 9, or -1 (default level)".into())
            }
        }
        (Validator::ThrottledReplicas, Typed::List(items)) => {
            let ok = matches!(items.as_slice(), [only] if only == "*")
                || items.iter().all(|i| {
                    let mut parts = i.split(':');
                    matches!(
                        (parts.next(), parts.next(), parts.next()),
                        (Some(p), Some(b), None)
                            if p.trim().parse::<i32>().is_ok() && b.trim().parse::<i32>().is_ok()
                    )
                });
            if ok {
                Ok(())
            } else {
                Err(
                    "must be the literal '*' or a list of replicas in the format \
                     [PartitionId]:[BrokerId],..."
                        .into(),
                )
            }
        }
        // A validator that does not fit the type cannot happen with the tables; accept.
        _ => Ok(()),
    }
}

/// Render `v` as `ConfigDef.convertToString` does.
pub fn render(v: &Typed) -> String {
    match v {
        Typed::Integer(n) => n.to_string(),
        Typed::Double(d) => render_java_double(*d),
        Typed::Boolean(b) => b.to_string(),
        Typed::Text(s) => s.clone(),
        Typed::List(items) => items.join(","),
    }
}

/// Java's `Double.toString`: shortest round-trip digits, plain between 10⁻³ and 10⁷, otherwise
/// computerized scientific notation (`1.0E-4`), always with a fraction digit.
pub fn render_java_double(d: f64) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    let a = d.abs();
    if a == 0.0 || (1e-3..1e7).contains(&a) {
        // Rust's Debug form is the shortest round-trip and keeps `.0` on integers.
        return format!("{d:?}");
    }
    let s = format!("{d:e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let mant = if mant.contains('.') {
        mant.to_string()
    } else {
        format!("{mant}.0")
    };
    format!("{mant}E{exp}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_double_rendering() {
        assert_eq!(render_java_double(0.5), "0.5");
        assert_eq!(render_java_double(1.0), "1.0");
        assert_eq!(render_java_double(0.0), "0.0");
        assert_eq!(render_java_double(0.1), "0.1");
        assert_eq!(render_java_double(1e-4), "1.0E-4");
        assert_eq!(render_java_double(1.5e-5), "1.5E-5");
        assert_eq!(render_java_double(f64::MAX), "1.7976931348623157E308");
        assert_eq!(render_java_double(1e7), "1.0E7");
    }

    #[test]
    fn parse_and_render() {
        assert_eq!(
            parse(ConfigType::Long, " +0042 ").map(|v| render(&v)),
            Ok("42".into())
        );
        assert!(parse(ConfigType::Int, "3000000000").is_err());
        assert!(parse(ConfigType::Long, "1h").is_err());
        assert_eq!(
            parse(ConfigType::Boolean, "TRUE").map(|v| render(&v)),
            Ok("true".into())
        );
        assert_eq!(
            parse(ConfigType::List, " compact , delete ").map(|v| render(&v)),
            Ok("compact,delete".into())
        );
        assert_eq!(
            parse(ConfigType::List, "").map(|v| render(&v)),
            Ok(String::new())
        );
        assert_eq!(
            parse(ConfigType::Double, "1").map(|v| render(&v)),
            Ok("1.0".into())
        );
        assert_eq!(
            parse(ConfigType::Double, ".25d").map(|v| render(&v)),
            Ok("0.25".into())
        );
        assert!(parse(ConfigType::Double, "inf").is_err());
    }

    #[test]
    fn validators() {
        assert!(validate(Validator::AtLeast(-1), &Typed::Integer(-2)).is_err());
        assert!(validate(Validator::BetweenF(0.0, 1.0), &Typed::Double(1.5)).is_err());
        assert!(validate(Validator::OneOf(&["a"]), &Typed::Text("A".into())).is_err());
        assert!(validate(
            Validator::ListOf(&["compact", "delete"]),
            &Typed::List(vec![])
        )
        .is_ok());
        assert!(validate(Validator::GzipLevel, &Typed::Integer(0)).is_err());
        assert!(validate(Validator::GzipLevel, &Typed::Integer(-1)).is_ok());
        let l = |s: &[&str]| Typed::List(s.iter().map(|x| x.to_string()).collect());
        assert!(validate(Validator::ThrottledReplicas, &l(&["*"])).is_ok());
        assert!(validate(Validator::ThrottledReplicas, &l(&["0:1", "1:2"])).is_ok());
        assert!(validate(Validator::ThrottledReplicas, &l(&["0-1"])).is_err());
    }
}
