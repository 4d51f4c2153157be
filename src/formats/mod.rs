//! Pure parsers: bytes in, typed values or a [`FormatError`] with a byte offset out.
//!
//! Nothing here touches a path, prints, or depends on `model/` and above. The byte layouts follow
//! `shared/spec/kafka-on-disk-formats.md`, which cites the Kafka source file behind each fact.

pub mod bytes;
pub mod error;

pub use error::{ErrorKind, FormatError, FormatResult};
