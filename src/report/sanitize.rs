//! Escaping for terminals: names and values read from disk (dir and file names, topic names,
//! ids, keys and values, error texts quoting them) reach the table output only through
//! [`escape`], so an escape sequence or a newline in a dir name cannot move the cursor, colour
//! the screen or forge table rows. JSON escapes on its own and is not touched. (Issue 7: the
//! table is escaped whatever `--color` says, not only on a TTY.)

use std::borrow::Cow;
use std::path::Path;

use crate::model::names::path_text;

/// Whether `c` must not reach a terminal raw: C0 and C1 controls, DEL, and the Unicode format
/// characters that reorder or break lines (bidi embeddings, overrides and isolates, LS, PS).
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// `s` with every unsafe character written as an escape: `\n`, `\r`, `\t`, `\xHH` for the others
/// below U+0100, `\u{H}` above.
/// Borrowed when nothing needs escaping.
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.chars().any(unsafe_char) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if unsafe_char(c) && (c as u32) < 0x100 => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if unsafe_char(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A path as the reports write it ([`path_text`]: a byte that is not UTF-8 is `\xNN`, a
/// backslash `\\`), escaped.
pub fn escape_path(p: &Path) -> String {
    escape(&path_text(p)).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(escape("orders-0 größe ✓"), Cow::Borrowed(_)));
    }

    #[test]
    fn controls_and_escape_sequences_are_escaped() {
        assert_eq!(escape("a\x1b[31mb\nc"), "a\\x1b[31mb\\nc");
        assert_eq!(escape("\r\t\x7f\u{9b}"), "\\r\\t\\x7f\\x9b");
        assert_eq!(escape("x\u{202e}y\u{2028}"), "x\\u{202e}y\\u{2028}");
        assert!(!escape("\x00\x07\x08\x1b").chars().any(|c| c.is_control()));
    }

    #[test]
    fn paths_are_escaped() {
        assert_eq!(
            escape_path(Path::new("/d/evil\x1b]0;x\x07-0")),
            "/d/evil\\x1b]0;x\\x07-0"
        );
        use std::os::unix::ffi::OsStrExt;
        let not_utf8 = Path::new(std::ffi::OsStr::from_bytes(b"/d/r\xff\x1b/a\\b"));
        assert_eq!(escape_path(not_utf8), "/d/r\\xff\\x1b/a\\\\b");
    }
}
