//! Bordered tables ([`Grid`]s drawn with box-drawing lines) written row by row.
//!
//! [`render_layouts`] holds every row of every layout as [`Grid`] cells, comfy-table holds them
//! again and the text comes back as one `String`: `inspect` on one partition of 16,000
//! segments peaked at 202 MB, five times its JSON. Here the rows come from a source read twice,
//! each row made, used and dropped:
//!
//! 1. one pass keeps, per column, what [`Grid`]'s choice of layout reads (its widest line and
//!    widest atom, whether it holds prose, whether a cell is coloured) and the *shapes* of its
//!    cells' lines: each line with every printable ASCII character but the space replaced by
//!    `x` (a handful per column: `0..8191` and `8192..16383` are one shape);
//! 2. the layout is chosen as [`render_layouts`] chooses it, comfy-table arranging the headers
//!    and one stand-in row that holds every shape of every column. comfy-table's dynamic
//!    arrangement reads a column's lines only through their widths and, split at a width, the
//!    byte lengths of their parts: a shape has its line's width, bytes and break points
//!    (characters of one column and one byte, none of which joins a neighbour into one
//!    grapheme), so the stand-in gives every column the width all rows would. Its top border
//!    gives the widths, its first lines are the header, its last the bottom border; every line
//!    of a bordered table is as wide as the border, so the stand-in says whether rows fit;
//! 3. a second pass writes the rows [`CHUNK`] at a time, each chunk a comfy-table of those rows
//!    at the widths found (absolute), without its borders: comfy-table lays a row out from the
//!    row and the widths alone, so every row is the whole table's row, byte for byte.
//!
//! A line holding another character (a topic name in Japanese, a variation selector) is kept
//! as it is, which is exact too and costs only memory. The output is [`render_layouts`]'s on
//! the same grids (tested); plain grids (no borders) are [`super::stream_grid`]'s.

use std::collections::BTreeSet;
use std::io::{self, Write};

use super::terminal::{color_of, record_lines, visible_width, Align, Cell, NO_BREAK};

#[cfg(doc)]
use super::terminal::{render_layouts, Grid};

/// Rows laid out by one comfy-table in the second pass.
const CHUNK: usize = 512;

/// comfy-table's style of [`Grid`]'s bordered tables.
const PRESET: &str = comfy_table::presets::UTF8_FULL_CONDENSED;

/// One column a layout may show: its header, alignment and floor (as [`Grid::floor`]).
#[derive(Debug, Clone)]
pub struct Column {
    /// The header (words, wrapped like cells).
    pub header: String,
    /// How its cells are aligned.
    pub align: Align,
    /// Narrowest width beyond its atoms', for prose ([`Grid::floor`]).
    pub floor: usize,
}

impl Column {
    /// A column with no floor.
    pub fn new(header: impl Into<String>, align: Align) -> Column {
        Column {
            header: header.into(),
            align,
            floor: 0,
        }
    }

    /// Never narrower than `w` (unless the whole table must be squeezed).
    pub fn floor(mut self, w: usize) -> Column {
        self.floor = w;
        self
    }
}

/// Write the first of `layouts` (indices into `columns`, fullest first) that fits `width`
/// as [`render_layouts`] on bordered grids of those layouts would; `rows` gives the rows (one
/// cell per column; missing cells are empty) afresh each time it is called.
pub fn write_layouts<F, I>(
    out: &mut dyn Write,
    width: usize,
    columns: &[Column],
    layouts: &[Vec<usize>],
    rows: F,
) -> io::Result<()>
where
    F: Fn() -> I,
    I: Iterator<Item = Vec<Cell>>,
{
    let stats = Stats::of(columns.len(), rows());
    let chosen = layouts
        .iter()
        .find_map(|l| stats.arrange(l, columns, width, true))
        .or_else(|| {
            layouts
                .iter()
                .rev()
                .find_map(|l| stats.arrange(l, columns, width, false))
        });
    match chosen {
        Some(a) => a.write(out, columns, width, rows()),
        None => match layouts.last() {
            Some(layout) => write_records(out, width, columns, layout, rows()),
            None => Ok(()),
        },
    }
}

/// No layout fits: each row of `layout` as records, as [`render_layouts`] prints them.
fn write_records(
    out: &mut dyn Write,
    width: usize,
    columns: &[Column],
    layout: &[usize],
    rows: impl Iterator<Item = Vec<Cell>>,
) -> io::Result<()> {
    let empty = Cell::default();
    for (i, row) in rows.enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        for &c in layout {
            let header = columns.get(c).map_or("", |h| h.header.as_str());
            let cell = row.get(c).unwrap_or(&empty);
            for l in record_lines(header, cell, width) {
                writeln!(out, "{l}")?;
            }
        }
    }
    Ok(())
}

/// What pass 1 keeps of one column.
#[derive(Debug, Default)]
struct ColumnStats {
    /// Widest line, unwrapped ([`Cell::natural`]).
    natural: usize,
    /// Widest atom.
    widest: usize,
    /// A line of four atoms or more ([`Grid`]'s prose, which may wrap).
    prose: bool,
    /// A cell has a colour.
    colored: bool,
    /// The shapes of its cells' lines as comfy-table reads them (module doc).
    shapes: BTreeSet<String>,
}

/// What pass 1 keeps: per column a few numbers and its lines' shapes.
struct Stats {
    columns: Vec<ColumnStats>,
    rows: usize,
}

/// `line` with every printable ASCII character but the space as `x`, when every other
/// character is one of a few one-column symbols (no character here joins its neighbours into
/// one grapheme, and each keeps its width and its bytes); else `line` as it is.
fn shape(line: &str) -> String {
    const KEPT: [char; 5] = [NO_BREAK, '→', '≤', '·', '…'];
    let plain = line
        .chars()
        .all(|c| c == ' ' || c.is_ascii_graphic() || KEPT.contains(&c));
    if !plain {
        return line.to_string();
    }
    line.chars()
        .map(|c| if c.is_ascii_graphic() { 'x' } else { c })
        .collect()
}

impl Stats {
    /// Pass 1 over the rows of `n` columns.
    fn of(n: usize, rows: impl Iterator<Item = Vec<Cell>>) -> Stats {
        let mut s = Stats {
            columns: (0..n).map(|_| ColumnStats::default()).collect(),
            rows: 0,
        };
        let empty = Cell::default();
        for row in rows {
            s.rows += 1;
            for (c, col) in s.columns.iter_mut().enumerate() {
                let cell = row.get(c).unwrap_or(&empty);
                col.natural = col.natural.max(cell.natural());
                col.widest = col.widest.max(cell.widest_atom());
                col.prose |= cell.lines.iter().any(|l| l.len() >= 4);
                col.colored |= cell.color.and_then(color_of).is_some();
                for line in cell.content().split('\n') {
                    let shaped = shape(line);
                    if !col.shapes.contains(&shaped) {
                        col.shapes.insert(shaped);
                    }
                }
            }
        }
        s
    }

    /// Column `c`'s narrowest width, as [`Grid`] counts it.
    fn min_width(&self, c: usize, column: &Column, unwrapped: bool) -> usize {
        let header = Cell::text(&column.header);
        let Some(s) = self.columns.get(c) else {
            return 1;
        };
        let natural = header.natural().max(s.natural);
        if unwrapped && !s.prose {
            return natural.max(1);
        }
        let floor = column.floor.min(natural);
        header.widest_atom().max(s.widest).max(floor).max(1)
    }

    /// `layout` arranged at `width` as [`Grid`]'s renderer would, or None when it does not fit.
    fn arrange<'a>(
        &self,
        layout: &'a [usize],
        columns: &[Column],
        width: usize,
        unwrapped: bool,
    ) -> Option<Arranged<'a>> {
        use comfy_table::{ColumnConstraint, ContentArrangement, Width};
        let column = |c: usize| columns.get(c);
        let mins: Vec<usize> = layout
            .iter()
            .map(|&c| column(c).map_or(1, |col| self.min_width(c, col, unwrapped)))
            .collect();
        let frame = 3 * layout.len() + 1;
        if mins.iter().sum::<usize>() + frame > width {
            return None;
        }
        let mut t = comfy_table::Table::new();
        t.load_preset(PRESET)
            .set_content_arrangement(ContentArrangement::Dynamic)
            .set_width(u16::try_from(width).unwrap_or(u16::MAX))
            .set_header(
                layout
                    .iter()
                    .map(|&c| comfy_table::Cell::new(column(c).map_or("", |h| h.header.as_str()))),
            );
        if self.rows > 0 {
            t.add_row(layout.iter().map(|&c| {
                let shapes = self.columns.get(c).map(|s| &s.shapes);
                let lines: Vec<&str> = shapes.into_iter().flatten().map(String::as_str).collect();
                comfy_table::Cell::new(lines.join("\n"))
            }));
        }
        for (j, col) in t.column_iter_mut().enumerate() {
            let min = mins.get(j).copied().unwrap_or(1) + usize::from(col.padding_width());
            let min = u16::try_from(min).ok()?;
            col.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(min)));
        }
        t.force_no_tty();
        let mut lines = Vec::new();
        for line in t.lines() {
            let line = line.replace(NO_BREAK, " ");
            let line = line.trim_end();
            if visible_width(line) > width {
                return None;
            }
            lines.push(line.to_string());
        }
        // `┌───┬──┐`: each column's width with its padding.
        let top = lines.first()?;
        let inner = top.strip_prefix('┌')?.strip_suffix('┐')?;
        let widths: Vec<u16> = inner
            .split('┬')
            .map(|s| u16::try_from(s.chars().count()).ok())
            .collect::<Option<_>>()?;
        if widths.len() != layout.len() {
            return None;
        }
        let separator = lines.iter().position(|l| l.starts_with('╞'))?;
        let bottom = lines.last()?.clone();
        lines.truncate(separator + 1);
        let colored = layout
            .iter()
            .any(|&c| self.columns.get(c).is_some_and(|s| s.colored));
        Some(Arranged {
            layout,
            header: lines,
            bottom,
            widths,
            colored,
        })
    }
}

/// A layout that fits: its columns, its lines down to the header's rule, its bottom border
/// and each column's width (with its padding).
struct Arranged<'a> {
    layout: &'a [usize],
    header: Vec<String>,
    bottom: String,
    widths: Vec<u16>,
    colored: bool,
}

impl Arranged<'_> {
    /// Pass 2: the header, the rows [`CHUNK`] at a time, the bottom border.
    fn write(
        &self,
        out: &mut dyn Write,
        columns: &[Column],
        width: usize,
        rows: impl Iterator<Item = Vec<Cell>>,
    ) -> io::Result<()> {
        for line in &self.header {
            writeln!(out, "{line}")?;
        }
        let mut chunk = Vec::with_capacity(CHUNK);
        for row in rows {
            chunk.push(row);
            if chunk.len() == CHUNK {
                self.write_rows(out, columns, width, &chunk)?;
                chunk.clear();
            }
        }
        if !chunk.is_empty() {
            self.write_rows(out, columns, width, &chunk)?;
        }
        writeln!(out, "{}", self.bottom)
    }

    /// `rows` as the whole table draws them: a table of them alone at the widths found,
    /// without its top and bottom borders.
    fn write_rows(
        &self,
        out: &mut dyn Write,
        columns: &[Column],
        width: usize,
        rows: &[Vec<Cell>],
    ) -> io::Result<()> {
        use comfy_table::{CellAlignment, ColumnConstraint, ContentArrangement, Width};
        let empty = Cell::default();
        let mut t = comfy_table::Table::new();
        t.load_preset(PRESET)
            .set_content_arrangement(ContentArrangement::Dynamic)
            .set_width(u16::try_from(width).unwrap_or(u16::MAX));
        for row in rows {
            t.add_row(self.layout.iter().map(|&c| {
                let cell = row.get(c).unwrap_or(&empty);
                let mut x = comfy_table::Cell::new(cell.content());
                if columns.get(c).map(|h| h.align) == Some(Align::Right) {
                    x = x.set_alignment(CellAlignment::Right);
                }
                if let Some(color) = cell.color.and_then(color_of) {
                    x = x.fg(color);
                }
                x
            }));
        }
        for (col, w) in t.column_iter_mut().zip(&self.widths) {
            col.set_constraint(ColumnConstraint::Absolute(Width::Fixed(*w)));
        }
        if self.colored {
            t.enforce_styling();
        } else {
            t.force_no_tty();
        }
        let lines: Vec<String> = t.lines().collect();
        let inner = lines.get(1..lines.len().saturating_sub(1)).unwrap_or(&[]);
        for line in inner {
            let line = line.replace(NO_BREAK, " ");
            writeln!(out, "{}", line.trim_end())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::terminal::{render_layouts, words, Grid, NO_BREAK_STR};
    use super::*;

    /// Bordered grids of `layouts` over `rows` (the renderer [`write_layouts`] stands for).
    fn grids(columns: &[Column], layouts: &[Vec<usize>], rows: &[Vec<Cell>]) -> Vec<Grid> {
        layouts
            .iter()
            .map(|layout| {
                let headers: Vec<(&str, Align)> = layout
                    .iter()
                    .map(|&c| (columns[c].header.as_str(), columns[c].align))
                    .collect();
                let mut g = Grid::new(&headers);
                for (j, &c) in layout.iter().enumerate() {
                    g = g.floor(j, columns[c].floor);
                }
                for r in rows {
                    g.push(
                        layout
                            .iter()
                            .map(|&c| r.get(c).cloned().unwrap_or_default())
                            .collect(),
                    );
                }
                g
            })
            .collect()
    }

    fn streamed(
        columns: &[Column],
        layouts: &[Vec<usize>],
        rows: &[Vec<Cell>],
        width: usize,
    ) -> String {
        let mut out = Vec::new();
        write_layouts(&mut out, width, columns, layouts, || rows.iter().cloned()).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn same_as_grids(columns: &[Column], layouts: &[Vec<usize>], rows: &[Vec<Cell>]) {
        for width in [40, 45, 52, 60, 68, 80, 100, 132, 200] {
            let want = render_layouts(&grids(columns, layouts, rows), width);
            assert_eq!(
                streamed(columns, layouts, rows, width),
                want,
                "width {width}"
            );
        }
    }

    fn segment_like_rows(n: usize) -> Vec<Vec<Cell>> {
        (0..n)
            .map(|i| {
                let base = i * 4093;
                let mut offsets = vec![format!("{base}..{}", base + 4092)];
                if i + 1 == n {
                    offsets.push("(active)".to_string());
                }
                vec![
                    Cell::atom(base.to_string()),
                    Cell::atom(format!("{}.{} KiB", 4 + i % 3, i % 10)),
                    Cell::lines(vec![offsets]),
                    Cell::lines(vec![vec![
                        format!("2026-11-{:02} 1{}:22", 1 + i % 28, i % 10),
                        format!("({} d ago)", i % 40),
                    ]]),
                    Cell::lines(vec![words(&if i % 7 == 0 {
                        format!("{} of {} valid", i % 13, 100 + i)
                    } else {
                        (i % 500).to_string()
                    })]),
                    Cell::atom(if i % 5 == 0 {
                        "-".to_string()
                    } else {
                        i.to_string()
                    }),
                ]
            })
            .collect()
    }

    fn segment_like_columns() -> Vec<Column> {
        vec![
            Column::new("segment", Align::Right),
            Column::new("size", Align::Right),
            Column::new("offsets", Align::Left),
            Column::new("largest timestamp (UTC)", Align::Left),
            Column::new("index", Align::Left),
            Column::new("txn", Align::Right),
        ]
    }

    #[test]
    fn segment_like_rows_match_the_grid_rendering_at_every_width() {
        let columns = segment_like_columns();
        let layouts = vec![
            vec![0, 1, 2, 3, 4, 5],
            vec![0, 1, 2, 3, 4],
            vec![0, 1, 2, 3],
        ];
        // Several chunks, and a last chunk that is not full.
        same_as_grids(&columns, &layouts, &segment_like_rows(CHUNK * 2 + 37));
        same_as_grids(&columns, &layouts, &segment_like_rows(1));
    }

    #[test]
    fn prose_with_a_floor_wraps_as_the_grid_wraps_it() {
        // The plan table's shape: a short verdict, then lines of prose kept 24 wide.
        let columns = vec![
            Column::new("segment", Align::Right),
            Column::new("size", Align::Right),
            Column::new("largest timestamp", Align::Left),
            Column::new("verdict", Align::Left),
            Column::new("why / when", Align::Left).floor(24),
            Column::new("segment", Align::Right),
        ];
        let layouts = vec![vec![0, 1, 2, 3, 4], vec![5, 3, 4]];
        let rows: Vec<Vec<Cell>> = (0..60)
            .map(|i| {
                let mut why = vec![words(&format!(
                    "its newest record is older than retention.ms ({} h) by {} min",
                    i % 48,
                    i * 7
                ))];
                if i % 3 == 0 {
                    why.push(words(
                        "eligible 2026-12-01 11:04 · gone by 2026-12-01 11:09",
                    ));
                }
                if i % 11 == 0 {
                    why.push(vec!["past retention.ms".to_string()]);
                }
                vec![
                    Cell::atom(i.to_string()),
                    Cell::atom(format!("{i} KiB")),
                    Cell::text(&if i % 4 == 0 {
                        "≤ 2026-12-01 11:04 UTC".to_string()
                    } else {
                        "2026-12-01 11:04 UTC".to_string()
                    }),
                    Cell::atom(if i % 2 == 0 {
                        format!("merge → {}", i * 100)
                    } else {
                        "delete (time)".to_string()
                    }),
                    Cell::lines(why),
                    Cell::lines(vec![vec![i.to_string()], vec![format!("{i} KiB")]]),
                ]
            })
            .collect();
        same_as_grids(&columns, &layouts, &rows);
    }

    #[test]
    fn escaped_wide_coloured_and_empty_cells_match() {
        let columns = vec![
            Column::new("TRANSACTIONAL-ID", Align::Left),
            Column::new("PRODUCER-ID", Align::Right),
            Column::new("PARTITIONS", Align::Left),
            Column::new("NOTE", Align::Left),
        ];
        let layouts = vec![vec![0, 1, 2, 3], vec![0, 1, 2]];
        let rows = vec![
            vec![
                Cell::atom(super::super::sanitize::escape("evil\x1b[31m\nid").into_owned()),
                Cell::atom("1000"),
                Cell::text("日本語のトピック-0 日本語のトピック-1 orders-2 orders-3"),
                Cell::default(),
            ],
            vec![
                Cell::atom("größe ✓ 1\u{fe0f}\u{20e3}"),
                Cell::atom("7").colored(Some("31")),
                Cell::text("a-0"),
                Cell::text("one two three four five six seven eight nine"),
            ],
            vec![Cell::atom("short")],
            vec![],
        ];
        same_as_grids(&columns, &layouts, &rows);
        same_as_grids(&columns, &layouts, &[]);
    }

    #[test]
    fn rows_too_wide_for_any_layout_are_records() {
        let columns = vec![
            Column::new("x", Align::Left),
            Column::new("y", Align::Right),
        ];
        let layouts = vec![vec![0, 1]];
        let rows = vec![
            vec![Cell::atom("a".repeat(30)), Cell::atom("b".repeat(30))],
            vec![
                Cell::atom("c"),
                Cell::lines(vec![vec!["d".repeat(45)], vec!["e".to_string()]]),
            ],
        ];
        same_as_grids(&columns, &layouts, &rows);
        assert!(streamed(&columns, &layouts, &rows, 40).starts_with("x: aaa"));
    }

    #[test]
    fn shapes_keep_width_bytes_and_breaks() {
        assert_eq!(shape("8192..16383 (active)"), "xxxxxxxxxxx xxxxxxxx");
        assert_eq!(shape("merge → 12"), "xxxxx → xx");
        assert_eq!(
            shape(&format!("2026-12-01{NO_BREAK_STR}11:04")),
            format!("xxxxxxxxxx{NO_BREAK_STR}xxxxx")
        );
        // A keycap: its digit and the selector make one wide grapheme.
        assert_eq!(shape("1\u{fe0f}\u{20e3} x"), "1\u{fe0f}\u{20e3} x");
        assert_eq!(shape("日本 1"), "日本 1");
    }
}
