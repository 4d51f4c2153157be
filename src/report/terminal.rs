//! Fitting the table output to the terminal.
//!
//! The width is the terminal's when stdout is one, else `COLUMNS` when set to a number, else
//! [`DEFAULT_WIDTH`]; never less than [`MIN_WIDTH`] ([`width_from`]). Every line the table
//! renderers print fits it, counted in terminal columns (unicode-width, so that box-drawing
//! borders and wide characters count right):
//!
//! - Text is made of *atoms*, values that are never split (a number, a timestamp with its zone,
//!   a word, a path). Lines break between atoms only.
//! - An atom wider than the room it has is shortened in the middle with `…`: a path keeps its
//!   first component and as many trailing components as fit (`/var/…/orders-0/…0042.log`).
//! - A table is given as [`Grid`]s from the fullest to the narrowest layout (columns dropped or
//!   merged in the order its renderer documents) and drawn by comfy-table (dynamic
//!   arrangement at the width, each column at least as wide as its widest atom, so comfy-table
//!   wraps between atoms only). The first layout whose short values fit unwrapped is used
//!   (prose may wrap); else the narrowest that fits; when none fits, the rows are printed as
//!   records, one `header: value` line per column.

use unicode_width::UnicodeWidthStr;

/// Width used when stdout is not a terminal and `COLUMNS` is not set.
pub const DEFAULT_WIDTH: usize = 100;
/// The narrowest width honoured (a smaller `COLUMNS` counts as this).
pub const MIN_WIDTH: usize = 40;

/// The output width: the terminal's when stdout is one, else `COLUMNS`, else 100.
pub fn detect_width() -> usize {
    let tty = terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| usize::from(w.0));
    width_from(tty, std::env::var("COLUMNS").ok().as_deref())
}

/// [`detect_width`]'s rule, from the terminal's width (if stdout is one) and `COLUMNS`.
pub fn width_from(tty: Option<usize>, columns: Option<&str>) -> usize {
    tty.filter(|w| *w > 0)
        .or_else(|| columns.and_then(|c| c.trim().parse::<usize>().ok()))
        .filter(|w| *w > 0)
        .unwrap_or(DEFAULT_WIDTH)
        .max(MIN_WIDTH)
}

/// Terminal columns `s` takes.
pub fn text_width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// The longest prefix of `s` (by chars) at most `max` columns wide.
fn prefix_within(s: &str, max: usize) -> &str {
    let mut used = 0;
    for (i, c) in s.char_indices() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > max {
            return s.get(..i).unwrap_or("");
        }
        used += w;
    }
    s
}

/// The longest suffix of `s` (by chars) at most `max` columns wide.
fn suffix_within(s: &str, max: usize) -> &str {
    let mut used = 0;
    for (i, c) in s.char_indices().rev() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > max {
            return s.get(i + c.len_utf8()..).unwrap_or("");
        }
        used += w;
    }
    s
}

/// `s` in at most `max` columns: whole when it fits, else its start and end around `…`.
pub fn shorten_middle(s: &str, max: usize) -> String {
    if text_width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let room = max - 1;
    let tail = room / 2;
    let head = room - tail;
    format!("{}…{}", prefix_within(s, head), suffix_within(s, tail))
}

/// A path in at most `max` columns: whole when it fits, else its first component, `…` and as
/// many trailing components as fit; a last component too long on its own is shortened in its
/// middle.
pub fn shorten_path(s: &str, max: usize) -> String {
    if text_width(s) <= max {
        return s.to_string();
    }
    let parts: Vec<&str> = s.split('/').collect();
    let absolute = s.starts_with('/');
    let first = if absolute {
        parts.get(1).map(|p| format!("/{p}"))
    } else {
        parts.first().map(|p| (*p).to_string())
    };
    let skip_front = if absolute { 2 } else { 1 };
    if let Some(first) = first.filter(|_| parts.len() > skip_front) {
        let mut tail = String::new();
        for part in parts.iter().skip(skip_front).rev() {
            let candidate = if tail.is_empty() {
                (*part).to_string()
            } else {
                format!("{part}/{tail}")
            };
            if text_width(&first) + text_width("/…/") + text_width(&candidate) > max {
                break;
            }
            tail = candidate;
        }
        if !tail.is_empty() {
            return format!("{first}/…/{tail}");
        }
        if let Some(last) = parts.last() {
            let room = max.saturating_sub(text_width("…/"));
            if room >= 8 {
                return format!("…/{}", shorten_middle(last, room));
            }
        }
    }
    shorten_middle(s, max)
}

/// An atom in at most `max` columns (paths keep their ends, see [`shorten_path`]).
pub fn shorten_atom(s: &str, max: usize) -> String {
    if s.contains('/') {
        shorten_path(s, max)
    } else {
        shorten_middle(s, max)
    }
}

/// Pack `atoms` into lines of at most `width` columns, `sep` between atoms on a line,
/// `first` before the first line and `indent` before the others; atoms too wide are shortened.
pub fn fit_atoms<S: AsRef<str>>(
    atoms: &[S],
    width: usize,
    sep: &str,
    first: &str,
    indent: &str,
) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    for atom in atoms {
        let atom = atom.as_ref();
        if !line.is_empty() && used + text_width(sep) + text_width(atom) > width {
            lines.push(std::mem::take(&mut line));
        }
        if line.is_empty() {
            let lead_text = if lines.is_empty() { first } else { indent };
            let lead = text_width(lead_text);
            line.push_str(lead_text);
            let fitted = shorten_atom(atom, width.saturating_sub(lead));
            used = lead + text_width(&fitted);
            line.push_str(&fitted);
        } else {
            line.push_str(sep);
            line.push_str(atom);
            used += text_width(sep) + text_width(atom);
        }
    }
    if !line.is_empty() || lines.is_empty() {
        if line.is_empty() {
            line.push_str(first);
        }
        lines.push(line);
    }
    lines
}

/// Words of `s` as atoms (split at whitespace).
pub fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

/// How a column's text is aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Flush left.
    Left,
    /// Flush right (numbers).
    Right,
}

/// One table cell: lines of atoms, and an optional SGR colour for its text.
#[derive(Debug, Clone, Default)]
pub struct Cell {
    /// Lines, each a list of atoms (broken further between atoms when narrow).
    pub lines: Vec<Vec<String>>,
    /// ANSI SGR parameter (`31` red), applied after padding so it never counts as width.
    pub color: Option<&'static str>,
}

impl Cell {
    /// A cell of one atom.
    pub fn atom(s: impl Into<String>) -> Cell {
        Cell {
            lines: vec![vec![s.into()]],
            color: None,
        }
    }

    /// A cell of text: each line of `s` split into words.
    pub fn text(s: &str) -> Cell {
        Cell {
            lines: s.lines().map(words).collect(),
            color: None,
        }
    }

    /// A cell of the given lines of atoms.
    pub fn lines(lines: Vec<Vec<String>>) -> Cell {
        Cell { lines, color: None }
    }

    /// The same cell coloured.
    pub fn colored(mut self, sgr: Option<&'static str>) -> Cell {
        self.color = sgr;
        self
    }

    /// The widest atom.
    pub(super) fn widest_atom(&self) -> usize {
        self.lines
            .iter()
            .flatten()
            .map(|a| text_width(a))
            .max()
            .unwrap_or(0)
    }

    /// The widest line, unwrapped.
    pub(super) fn natural(&self) -> usize {
        self.lines
            .iter()
            .map(|l| l.iter().map(|a| text_width(a)).sum::<usize>() + l.len().saturating_sub(1))
            .max()
            .unwrap_or(0)
    }

    /// The cell as comfy-table text: lines apart by `\n`, atoms by a space; the spaces inside an
    /// atom are [`NO_BREAK`] until rendered, so that comfy-table wraps between atoms only.
    pub(super) fn content(&self) -> String {
        let line = |l: &Vec<String>| {
            l.iter()
                .map(|a| a.replace(' ', NO_BREAK_STR))
                .collect::<Vec<_>>()
                .join(" ")
        };
        self.lines.iter().map(line).collect::<Vec<_>>().join("\n")
    }
}

/// Stands for a space inside an atom while comfy-table wraps (a private-use character, one
/// column wide, that no name or value shown here carries).
pub(super) const NO_BREAK: char = '\u{e000}';
/// [`NO_BREAK`] as a string.
pub(super) const NO_BREAK_STR: &str = "\u{e000}";

/// Terminal columns of a rendered line: its text without SGR colour sequences.
pub(super) fn visible_width(line: &str) -> usize {
    let mut width = 0;
    let mut rest = line;
    while let Some(i) = rest.find("\x1b[") {
        width += text_width(rest.get(..i).unwrap_or(""));
        let after = rest.get(i..).unwrap_or("");
        rest = after
            .find('m')
            .and_then(|m| after.get(m + 1..))
            .unwrap_or("");
    }
    width + text_width(rest)
}

/// The comfy-table colour of an SGR foreground parameter.
pub(super) fn color_of(sgr: &str) -> Option<comfy_table::Color> {
    use comfy_table::Color;
    Some(match sgr {
        "31" => Color::DarkRed,
        "33" => Color::DarkYellow,
        "36" => Color::DarkCyan,
        _ => return None,
    })
}

/// A table layout: headers, alignments and rows.
#[derive(Debug, Clone, Default)]
pub struct Grid {
    /// Column headers (words, wrapped like cells).
    pub headers: Vec<String>,
    /// Alignment of each column.
    pub align: Vec<Align>,
    /// Rows, one cell per column.
    pub rows: Vec<Vec<Cell>>,
    /// Narrowest width of each column beyond its atoms' (prose stays readable), by column.
    pub floor: Vec<usize>,
    /// Drawn without borders, columns two spaces apart (as Kafka's own tools print).
    pub plain: bool,
}

impl Grid {
    /// A grid with these columns and no rows.
    pub fn new(columns: &[(&str, Align)]) -> Grid {
        Grid {
            headers: columns.iter().map(|(h, _)| (*h).to_string()).collect(),
            align: columns.iter().map(|(_, a)| *a).collect(),
            rows: Vec::new(),
            floor: vec![0; columns.len()],
            plain: false,
        }
    }

    /// The same grid drawn without borders, columns two spaces apart, as
    /// `kafka-consumer-groups.sh` prints.
    pub fn plain(mut self) -> Grid {
        self.plain = true;
        self
    }

    /// Never make column `c` narrower than `w` (unless the whole table must be squeezed).
    pub fn floor(mut self, c: usize, w: usize) -> Grid {
        if let Some(f) = self.floor.get_mut(c) {
            *f = w;
        }
        self
    }

    /// Add a row (missing cells are empty, extra cells ignored).
    pub fn push(&mut self, mut row: Vec<Cell>) {
        row.resize_with(self.headers.len(), Cell::default);
        self.rows.push(row);
    }

    fn column_cells(&self, c: usize) -> impl Iterator<Item = &Cell> {
        self.rows.iter().filter_map(move |r| r.get(c))
    }

    /// Whether column `c` holds prose (a line of four words or more), which may wrap.
    fn is_prose(&self, c: usize) -> bool {
        self.column_cells(c)
            .any(|cell| cell.lines.iter().any(|l| l.len() >= 4))
    }

    /// The narrowest width of column `c`: its widest atom (and its floor, for prose); with
    /// `unwrapped`, a column of short values is as wide as its widest line.
    fn min_width(&self, c: usize, unwrapped: bool) -> usize {
        let header = Cell::text(self.headers.get(c).map_or("", String::as_str));
        let cells = || std::iter::once(&header).chain(self.column_cells(c));
        let natural = cells().map(Cell::natural).max().unwrap_or(0);
        if unwrapped && !self.is_prose(c) {
            return natural.max(1);
        }
        let floor = self.floor.get(c).copied().unwrap_or(0).min(natural);
        cells()
            .map(Cell::widest_atom)
            .max()
            .unwrap_or(0)
            .max(floor)
            .max(1)
    }

    /// The grid through comfy-table (dynamic arrangement at `width`, every column at least
    /// [`Grid::min_width`]), or None when a line would not fit `width`.
    fn render(&self, width: usize, unwrapped: bool) -> Option<String> {
        use comfy_table::{presets, CellAlignment, ColumnConstraint, ContentArrangement, Width};
        let n = self.headers.len();
        let mins: Vec<usize> = (0..n).map(|c| self.min_width(c, unwrapped)).collect();
        // comfy-table squeezes a column below its lower boundary when the boundaries do not
        // fit (splitting atoms): such a layout is not used. Borders: `│ a ┆ b │`, or two spaces.
        let frame = if self.plain {
            2 * n.saturating_sub(1)
        } else {
            3 * n + 1
        };
        if mins.iter().sum::<usize>() + frame > width {
            return None;
        }
        let mut t = comfy_table::Table::new();
        t.load_preset(if self.plain {
            presets::NOTHING
        } else {
            presets::UTF8_FULL_CONDENSED
        })
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(u16::try_from(width).unwrap_or(u16::MAX))
        .set_header(self.headers.iter().map(comfy_table::Cell::new));
        let mut colored = false;
        for row in &self.rows {
            t.add_row(row.iter().enumerate().map(|(c, cell)| {
                let mut x = comfy_table::Cell::new(cell.content());
                if self.align.get(c) == Some(&Align::Right) {
                    x = x.set_alignment(CellAlignment::Right);
                }
                if let Some(color) = cell.color.and_then(color_of) {
                    colored = true;
                    x = x.fg(color);
                }
                x
            }));
        }
        let last = self.headers.len().saturating_sub(1);
        for (c, col) in t.column_iter_mut().enumerate() {
            if self.plain {
                // Kafka's tools: flush left, columns two spaces apart.
                col.set_padding((0, if c == last { 0 } else { 2 }));
            }
            // A boundary counts the column's padding.
            let min = mins.get(c).copied().unwrap_or(1) + usize::from(col.padding_width());
            let min = u16::try_from(min).ok()?;
            col.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(min)));
        }
        if colored {
            t.enforce_styling();
        } else {
            t.force_no_tty();
        }
        let mut out = String::new();
        for line in t.lines() {
            let line = line.replace(NO_BREAK, " ");
            let line = line.trim_end();
            if visible_width(line) > width {
                return None;
            }
            out.push_str(line);
            out.push('\n');
        }
        Some(out)
    }
}

/// Render the first of `layouts` (fullest first) whose atoms fit `width` unwrapped (prose may
/// wrap), else the narrowest that fits with wrapping; when none does, the last as
/// records: for each row, one `header: value` line per column (continuations indented), rows
/// apart by a blank line. Lines end with `\n`.
pub fn render_layouts(layouts: &[Grid], width: usize) -> String {
    // A layout whose short values (atoms, not prose) all fit on one line beats a fuller one
    // that wraps them: a table of two-line rows is harder to scan than one with a column less.
    if let Some(t) = layouts.iter().find_map(|g| g.render(width, true)) {
        return t;
    }
    // Otherwise the narrowest layout that fits at all, so a narrower terminal never shows more
    // columns than a wider one.
    if let Some(t) = layouts.iter().rev().find_map(|g| g.render(width, false)) {
        return t;
    }
    let Some(g) = layouts.last() else {
        return String::new();
    };
    let mut out = String::new();
    for (i, row) in g.rows.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        for (c, header) in g.headers.iter().enumerate() {
            let Some(cell) = row.get(c) else {
                continue;
            };
            for l in record_lines(header, cell, width) {
                out.push_str(&l);
                out.push('\n');
            }
        }
    }
    out
}

/// One cell of a row printed as a record (no layout fits `width`): `header:` and the cell's
/// first line, its later lines indented, each wrapped to `width`.
pub(super) fn record_lines(header: &str, cell: &Cell, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    for (j, line) in cell.lines.iter().enumerate() {
        let mut atoms = Vec::with_capacity(line.len() + 1);
        if j == 0 {
            atoms.push(format!("{header}:"));
        }
        atoms.extend(line.iter().cloned());
        let first = if j == 0 { "" } else { "    " };
        lines.extend(fit_atoms(&atoms, width, " ", first, "    "));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_comes_from_the_tty_then_columns_then_100() {
        assert_eq!(width_from(Some(120), Some("80")), 120);
        assert_eq!(width_from(None, Some("80")), 80);
        assert_eq!(width_from(None, Some(" 132 ")), 132);
        assert_eq!(width_from(None, Some("wide")), 100);
        assert_eq!(width_from(None, None), 100);
        assert_eq!(width_from(None, Some("10")), MIN_WIDTH);
        assert_eq!(width_from(Some(0), Some("0")), 100);
    }

    #[test]
    fn shortening_keeps_both_ends() {
        assert_eq!(shorten_middle("abcdef", 6), "abcdef");
        assert_eq!(shorten_middle("abcdefghij", 5), "ab…ij");
        let cjk = shorten_middle("日本語のトピック名", 7);
        assert!(
            text_width(&cjk) <= 7 && cjk.starts_with("日") && cjk.ends_with("名"),
            "{cjk}"
        );
        let p = "/var/lib/kafka/data/logs-0/orders-0/00000000000000000042.log";
        let s = shorten_path(p, 47);
        assert_eq!(s, "/var/…/logs-0/orders-0/00000000000000000042.log");
        assert_eq!(
            shorten_path(p, 45),
            "/var/…/orders-0/00000000000000000042.log"
        );
        let s = shorten_path(p, 20);
        assert!(
            s.starts_with("…/") && s.ends_with("42.log") && text_width(&s) <= 20,
            "{s}"
        );
    }

    #[test]
    fn atoms_are_never_split() {
        let lines = fit_atoms(&["2026-11-30 13:22 UTC", "(3 d ago)"], 22, " ", "", "  ");
        assert_eq!(lines, ["2026-11-30 13:22 UTC", "  (3 d ago)"]);
        let lines = fit_atoms(&["a", "b", "c"], 10, "  ", "> ", "");
        assert_eq!(lines, ["> a  b  c"]);
    }

    #[test]
    fn layouts_fall_back_and_fit() {
        let mut wide = Grid::new(&[("segment", Align::Right), ("a long header", Align::Left)]);
        wide.push(vec![Cell::atom("42"), Cell::text(&"word ".repeat(40))]);
        let mut narrow = Grid::new(&[("segment", Align::Right)]);
        narrow.push(vec![Cell::atom("42")]);
        for width in [40, 60, 100, 300] {
            let out = render_layouts(&[wide.clone(), narrow.clone()], width);
            assert!(
                out.lines().all(|l| text_width(l) <= width),
                "{width}:\n{out}"
            );
            assert!(out.contains("a long"), "{out}");
        }
        let mut tight = Grid::new(&[("x", Align::Left), ("y", Align::Left)]);
        tight.push(vec![Cell::atom("a".repeat(30)), Cell::atom("b".repeat(30))]);
        let out = render_layouts(&[tight], 40);
        assert!(out.lines().all(|l| text_width(l) <= 40), "{out}");
        assert_eq!(
            out,
            format!("x: {}\ny: {}\n", "a".repeat(30), "b".repeat(30))
        );
    }
}
