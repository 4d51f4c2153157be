//! A file that could not be used: an I/O error, or bytes that break their format.

use std::path::{Path, PathBuf};

use crate::formats::FormatError;

/// The field a file refused for its size is reported under.
const TOO_LARGE_FIELD: &str = "file length";

/// Why a file's content is unavailable.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum FileProblem {
    /// The OS refused or failed the read (permission, I/O error): an operational error.
    Io {
        /// The file.
        #[serde(with = "crate::model::names::path_serde")]
        path: PathBuf,
        /// The OS error, as text.
        message: String,
    },
    /// The bytes break the file's format.
    Format {
        /// The file.
        #[serde(with = "crate::model::names::path_serde")]
        path: PathBuf,
        /// What is wrong, and where.
        error: FormatError,
    },
}

impl FileProblem {
    pub(crate) fn io(path: &Path, err: &std::io::Error) -> Self {
        // A file refused for its size is a format problem ("too large"), not an unreadable one.
        if let Some(t) = super::file_bytes::TooLarge::of(err) {
            return FileProblem::format(
                path,
                FormatError::new(
                    crate::formats::ErrorKind::InvalidField {
                        field: TOO_LARGE_FIELD,
                        reason: t.to_string(),
                    },
                    t.cap,
                ),
            );
        }
        FileProblem::Io {
            path: path.to_path_buf(),
            message: err.to_string(),
        }
    }

    pub(crate) fn format(path: &Path, error: FormatError) -> Self {
        FileProblem::Format {
            path: path.to_path_buf(),
            error,
        }
    }

    /// Whether the file was refused for its size ([`super::file_bytes::TooLarge`]), not read.
    pub fn is_too_large(&self) -> bool {
        matches!(
            self,
            FileProblem::Format {
                error: FormatError {
                    kind: crate::formats::ErrorKind::InvalidField {
                        field: TOO_LARGE_FIELD,
                        ..
                    },
                    ..
                },
                ..
            }
        )
    }

    /// The file concerned.
    pub fn path(&self) -> &Path {
        match self {
            FileProblem::Io { path, .. } | FileProblem::Format { path, .. } => path,
        }
    }
}

/// A parsed file, or why it could not be parsed.
pub type Parsed<T> = Result<T, FileProblem>;

/// An input that could not be read: what it is, where, and the OS error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unreadable<'a> {
    /// What the input is (`meta.properties`, `recovery-point-offset-checkpoint`, `entry` for a
    /// dir entry, ...).
    pub what: &'static str,
    /// The file or dir.
    pub path: &'a Path,
    /// The OS error.
    pub message: &'a str,
}

impl<'a> Unreadable<'a> {
    /// `problem` of the input `what`, when it is an I/O error.
    pub fn of<T>(what: &'static str, parsed: Option<&'a Parsed<T>>) -> Option<Unreadable<'a>> {
        match parsed? {
            Err(FileProblem::Io { path, message }) => Some(Unreadable {
                what,
                path,
                message,
            }),
            _ => None,
        }
    }
}
