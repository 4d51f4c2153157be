//! Plain tables (no borders, columns two spaces apart) of one-atom cells, written row by row.
//!
//! [`render_layouts`] holds every row of every layout as [`Grid`] cells, comfy-table holds
//! them again, and the text comes back as one `String`: at 300,800 consumer groups that was
//! 3.1 GB. Here the rows come from a source read twice, each row made, used and dropped:
//!
//! 1. one pass takes, for each column, its widest cell and its cell longest in bytes, and for
//!    each layout where its rows' trimmed lines end;
//! 2. the layout is chosen as [`render_layouts`] chooses it, comfy-table arranging only the
//!    headers and two stand-in rows (a filler as wide as the widest cell, and the longest
//!    cell): its dynamic arrangement sees a column's cells only through the widest (content
//!    widths) and, below the average width, their byte lengths (every cell here is at most as
//!    wide as its column's lower boundary, which the arrangement keeps under the average), so
//!    the stand-ins give every column the width all rows would; the headers' lines are
//!    comfy-table's;
//! 3. a second pass writes each row as comfy-table pads it (left or right in its column, two
//!    spaces after every column but the last, the line's end trimmed).
//!
//! The output is [`render_layouts`]'s on the same grids, byte for byte (tested). A source
//! whose cells are not one-line atoms, or a table of more than 26 columns, is handed to
//! [`render_layouts`] whole.

use std::io::{self, Write};

use super::terminal::{
    fit_atoms, render_layouts, text_width, visible_width, Align, Cell, Grid, NO_BREAK, NO_BREAK_STR,
};

/// Columns two spaces apart, as [`Grid::plain`] draws them.
const GAP: usize = 2;

/// Write a plain table of `columns` (header, alignment) in the first of `layouts` (indices
/// into `columns`, fullest first) that fits `width`, as [`render_layouts`] on plain grids of
/// those layouts would; `rows` gives the rows (one cell per column, each one atom) afresh
/// each time it is called.
pub fn write_plain_layouts<F, I>(
    out: &mut dyn Write,
    width: usize,
    columns: &[(String, Align)],
    layouts: &[Vec<usize>],
    rows: F,
) -> io::Result<()>
where
    F: Fn() -> I,
    I: Iterator<Item = Vec<String>>,
{
    let Some(stats) = Stats::of(columns, layouts, rows()) else {
        return write_whole(out, width, columns, layouts, rows());
    };
    let chosen = layouts
        .iter()
        .enumerate()
        .find_map(|(l, layout)| stats.arrange(l, layout, columns, width, true))
        .or_else(|| {
            layouts
                .iter()
                .enumerate()
                .rev()
                .find_map(|(l, layout)| stats.arrange(l, layout, columns, width, false))
        });
    match chosen {
        Some(Arranged::Fits {
            layout,
            header,
            widths,
        }) => {
            for line in header {
                writeln!(out, "{line}")?;
            }
            let mut line = String::new();
            for row in rows() {
                line.clear();
                for (j, &c) in layout.iter().enumerate() {
                    let atom = row.get(c).map_or("", String::as_str);
                    let pad = widths
                        .get(j)
                        .copied()
                        .unwrap_or(0)
                        .saturating_sub(text_width(atom));
                    let right = align(columns, c) == Align::Right;
                    if right {
                        line.extend(std::iter::repeat_n(' ', pad));
                    }
                    line.push_str(atom);
                    if !right {
                        line.extend(std::iter::repeat_n(' ', pad));
                    }
                    if j + 1 < layout.len() {
                        line.extend(std::iter::repeat_n(' ', GAP));
                    }
                }
                writeln!(out, "{}", line.trim_end())?;
            }
            Ok(())
        }
        Some(Arranged::Squeezed) => write_whole(out, width, columns, layouts, rows()),
        None => {
            let Some(layout) = layouts.last() else {
                return Ok(());
            };
            for (i, row) in rows().enumerate() {
                if i > 0 {
                    writeln!(out)?;
                }
                for &c in layout {
                    let header = columns.get(c).map_or("", |h| h.0.as_str());
                    let atoms = [
                        format!("{header}:"),
                        row.get(c).cloned().unwrap_or_default(),
                    ];
                    for l in fit_atoms(&atoms, width, " ", "", "    ") {
                        writeln!(out, "{l}")?;
                    }
                }
            }
            Ok(())
        }
    }
}

/// The rows as whole grids through [`render_layouts`].
fn write_whole(
    out: &mut dyn Write,
    width: usize,
    columns: &[(String, Align)],
    layouts: &[Vec<usize>],
    rows: impl Iterator<Item = Vec<String>>,
) -> io::Result<()> {
    let mut grids: Vec<Grid> = layouts
        .iter()
        .map(|layout| {
            let headers: Vec<(&str, Align)> = layout
                .iter()
                .filter_map(|&c| columns.get(c).map(|(h, a)| (h.as_str(), *a)))
                .collect();
            Grid::new(&headers).plain()
        })
        .collect();
    for row in rows {
        for (grid, layout) in grids.iter_mut().zip(layouts) {
            grid.push(
                layout
                    .iter()
                    .map(|&c| Cell::atom(row.get(c).cloned().unwrap_or_default()))
                    .collect(),
            );
        }
    }
    write!(out, "{}", render_layouts(&grids, width))
}

/// A layout that fits: its columns, its header lines and each column's content width.
enum Arranged<'a> {
    Fits {
        layout: &'a [usize],
        header: Vec<String>,
        widths: Vec<usize>,
    },
    /// comfy-table made a column narrower than a cell (its rows would wrap): not streamed.
    Squeezed,
}

/// What pass 1 keeps: per column and per layout, a few numbers and one cell.
struct Stats {
    /// Widest cell of each column (terminal columns).
    widest: Vec<usize>,
    /// Each column's cell longest in bytes as comfy-table counts them (spaces as [`NO_BREAK`]).
    longest: Vec<String>,
    /// Per layout, per column position: for rows whose last non-blank cell is there, the widest
    /// such cell without its trailing whitespace (left-aligned), or the least trailing
    /// whitespace (right-aligned).
    tails: Vec<Vec<Option<usize>>>,
    rows: usize,
}

/// Column `c`'s alignment.
fn align(columns: &[(String, Align)], c: usize) -> Align {
    columns.get(c).map_or(Align::Left, |h| h.1)
}

impl Stats {
    /// Column `c`'s widest cell.
    fn widest(&self, c: usize) -> usize {
        self.widest.get(c).copied().unwrap_or(0)
    }

    /// Pass 1, or None when a cell is not a one-line atom or there are too many columns.
    fn of(
        columns: &[(String, Align)],
        layouts: &[Vec<usize>],
        rows: impl Iterator<Item = Vec<String>>,
    ) -> Option<Stats> {
        let n = columns.len();
        if n > 26 || layouts.iter().flatten().any(|&c| c >= n) {
            return None;
        }
        let mut s = Stats {
            widest: vec![0; n],
            longest: vec![String::new(); n],
            tails: layouts.iter().map(|l| vec![None; l.len()]).collect(),
            rows: 0,
        };
        let mut longest_len = vec![0; n];
        for row in rows {
            s.rows += 1;
            let per_column = s
                .widest
                .iter_mut()
                .zip(&mut s.longest)
                .zip(&mut longest_len);
            for (atom, ((widest, longest), longest_len)) in row.iter().zip(per_column) {
                if atom.contains(['\n', '\r']) {
                    return None;
                }
                *widest = (*widest).max(text_width(atom));
                // comfy-table's byte length of the content: each space is a NO_BREAK.
                let len = atom.len() + atom.matches(' ').count() * (NO_BREAK.len_utf8() - 1);
                if len > *longest_len {
                    *longest_len = len;
                    *longest = atom.replace(' ', NO_BREAK_STR);
                }
            }
            for (layout, tails) in layouts.iter().zip(&mut s.tails) {
                let last = layout.iter().enumerate().rev().find_map(|(j, &c)| {
                    let atom = row.get(c).map_or("", String::as_str);
                    let kept = atom.trim_end();
                    (!kept.is_empty()).then(|| (j, c, text_width(kept), text_width(atom)))
                });
                let Some((j, c, kept, whole)) = last else {
                    continue;
                };
                let Some(t) = tails.get_mut(j) else {
                    continue;
                };
                *t = Some(if align(columns, c) == Align::Right {
                    t.map_or(whole - kept, |t| t.min(whole - kept))
                } else {
                    t.map_or(kept, |t| t.max(kept))
                });
            }
        }
        (s.rows > 0).then_some(s)
    }

    /// Layout `l` arranged at `width` as [`Grid`]'s renderer would (see the module doc), or
    /// None when it does not fit.
    fn arrange<'a>(
        &self,
        l: usize,
        layout: &'a [usize],
        columns: &[(String, Align)],
        width: usize,
        unwrapped: bool,
    ) -> Option<Arranged<'a>> {
        use comfy_table::{presets, ColumnConstraint, ContentArrangement, Width};
        let header = |c: usize| columns.get(c).map_or("", |h| h.0.as_str());
        // Grid::min_width for one-atom cells (no prose, no floor).
        let mins: Vec<usize> = layout
            .iter()
            .map(|&c| {
                let h = header(c);
                let natural = h.split_whitespace().map(text_width).sum::<usize>()
                    + h.split_whitespace().count().saturating_sub(1);
                let word = h.split_whitespace().map(text_width).max().unwrap_or(0);
                let head = if unwrapped { natural } else { word };
                head.max(self.widest(c)).max(1)
            })
            .collect();
        if mins.iter().sum::<usize>() + GAP * layout.len().saturating_sub(1) > width {
            return None;
        }
        let filler = |j: usize, c: usize| {
            let ch = char::from(b'a' + u8::try_from(j).unwrap_or(0));
            std::iter::repeat_n(ch, self.widest(c).max(1)).collect::<String>()
        };
        let mut t = comfy_table::Table::new();
        t.load_preset(presets::NOTHING)
            .set_content_arrangement(ContentArrangement::Dynamic)
            .set_width(u16::try_from(width).unwrap_or(u16::MAX))
            .set_header(layout.iter().map(|&c| comfy_table::Cell::new(header(c))))
            .add_row(
                layout
                    .iter()
                    .enumerate()
                    .map(|(j, &c)| comfy_table::Cell::new(filler(j, c))),
            )
            .add_row(
                layout.iter().map(|&c| {
                    comfy_table::Cell::new(self.longest.get(c).map_or("", String::as_str))
                }),
            );
        let last = layout.len().saturating_sub(1);
        for (j, col) in t.column_iter_mut().enumerate() {
            col.set_padding((0, if j == last { 0 } else { 2 }));
            let min = mins.get(j).copied().unwrap_or(1) + usize::from(col.padding_width());
            let min = u16::try_from(min).ok()?;
            col.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(min)));
        }
        t.force_no_tty();
        let mut lines: Vec<String> = t.lines().collect();
        let fillers = lines.len().checked_sub(2)?;
        let filler_line = lines.get(fillers)?.clone();
        lines.truncate(fillers);
        // Each column's content width, from where the fillers start.
        let starts: Vec<usize> = (0..layout.len())
            .map(|j| {
                let ch = char::from(b'a' + u8::try_from(j).unwrap_or(0));
                filler_line.chars().position(|x| x == ch)
            })
            .collect::<Option<_>>()?;
        let end = filler_line.chars().count();
        let widths: Vec<usize> = starts
            .iter()
            .enumerate()
            .map(|(j, s)| match starts.get(j + 1) {
                Some(next) => next.saturating_sub(*s + GAP),
                None => end.saturating_sub(*s),
            })
            .collect();
        if layout
            .iter()
            .zip(&widths)
            .any(|(&c, w)| *w < self.widest(c))
        {
            return Some(Arranged::Squeezed);
        }
        let mut header_lines = Vec::with_capacity(lines.len());
        for line in &lines {
            let line = line.replace(NO_BREAK, " ");
            let line = line.trim_end();
            if visible_width(line) > width {
                return None;
            }
            header_lines.push(line.to_string());
        }
        // The rows' trimmed lines: each ends in its last non-blank cell.
        let tails = self.tails.get(l)?;
        for (((&c, tail), start), w) in layout.iter().zip(tails).zip(&starts).zip(&widths) {
            let Some(t) = *tail else {
                continue;
            };
            let cell_end = if align(columns, c) == Align::Right {
                w.saturating_sub(t)
            } else {
                t
            };
            if start + cell_end > width {
                return None;
            }
        }
        Some(Arranged::Fits {
            layout,
            header: header_lines,
            widths,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grids(
        columns: &[(String, Align)],
        layouts: &[Vec<usize>],
        rows: &[Vec<String>],
    ) -> Vec<Grid> {
        layouts
            .iter()
            .map(|layout| {
                let headers: Vec<(&str, Align)> = layout
                    .iter()
                    .map(|&c| (columns[c].0.as_str(), columns[c].1))
                    .collect();
                let mut g = Grid::new(&headers).plain();
                for r in rows {
                    g.push(layout.iter().map(|&c| Cell::atom(r[c].clone())).collect());
                }
                g
            })
            .collect()
    }

    fn streamed(
        columns: &[(String, Align)],
        layouts: &[Vec<usize>],
        rows: &[Vec<String>],
        width: usize,
    ) -> String {
        let mut out = Vec::new();
        write_plain_layouts(&mut out, width, columns, layouts, || rows.iter().cloned()).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn same_as_grids(columns: &[(String, Align)], layouts: &[Vec<usize>], rows: &[Vec<String>]) {
        for width in [40, 48, 55, 60, 72, 80, 100, 132, 200] {
            let want = render_layouts(&grids(columns, layouts, rows), width);
            assert_eq!(
                streamed(columns, layouts, rows, width),
                want,
                "width {width}"
            );
        }
    }

    fn cols(spec: &[(&str, Align)]) -> Vec<(String, Align)> {
        spec.iter().map(|(h, a)| ((*h).to_string(), *a)).collect()
    }

    #[test]
    fn offsets_like_rows_match_the_grid_rendering_at_every_width() {
        let columns = cols(&[
            ("GROUP", Align::Left),
            ("TOPIC", Align::Left),
            ("PARTITION", Align::Right),
            ("CURRENT-OFFSET", Align::Right),
            ("LOG-END-OFFSET", Align::Right),
            ("NEXT-RETENTION", Align::Left),
            ("LAST-COMMIT (UTC)", Align::Left),
        ]);
        let layouts = vec![
            vec![0, 1, 2, 3, 4, 5, 6],
            vec![0, 1, 2, 3, 4, 5],
            vec![0, 1, 2, 3, 5],
        ];
        let rows: Vec<Vec<String>> = (0..40)
            .map(|i| {
                vec![
                    format!("group-{}", i % 7),
                    format!("orders{}", "-x".repeat(i % 5)),
                    (i % 12).to_string(),
                    (i * 1000).to_string(),
                    if i % 3 == 0 {
                        "-".to_string()
                    } else {
                        (i * 1001).to_string()
                    },
                    if i % 4 == 0 {
                        format!("resets to {}, skips {}", i * 9, i)
                    } else {
                        "ok (log start 0)".to_string()
                    },
                    "2026-12-01 11:04".to_string(),
                ]
            })
            .collect();
        same_as_grids(&columns, &layouts, &rows);
    }

    #[test]
    fn a_header_wider_than_its_cells_wraps_as_comfy_table_wraps_it() {
        // The groups table's short layout: `LAST-COMMIT (UTC)` is wider than its cells when
        // no layout fits unwrapped.
        let columns = cols(&[
            ("GROUP", Align::Left),
            ("KIND", Align::Left),
            ("STATE", Align::Left),
            ("MEMBERS", Align::Right),
            ("A VERY LONG HEADER OF MANY WORDS", Align::Right),
            ("LAST-COMMIT (UTC)", Align::Left),
        ]);
        let layouts = vec![vec![0, 1, 2, 3, 4, 5], vec![0, 2, 3, 4, 5]];
        let rows: Vec<Vec<String>> = (0..12)
            .map(|i| {
                vec![
                    format!("a-consumer-group-name-{i}"),
                    "classic".to_string(),
                    "Empty".to_string(),
                    i.to_string(),
                    (i % 50).to_string(),
                    "2026-12-01 11:04".to_string(),
                ]
            })
            .collect();
        same_as_grids(&columns, &layouts, &rows);
        // At 72 the headers wrap (the stand-ins' arrangement, not the rows', decides it).
        let out = streamed(&columns, &layouts, &rows, 72);
        let second = out.lines().nth(1).unwrap_or("");
        assert!(second.trim_start().starts_with("HEADER OF"), "{out}");
    }

    #[test]
    fn escaped_wide_and_blank_cells_match() {
        let columns = cols(&[
            ("GROUP", Align::Left),
            ("TOPIC", Align::Left),
            ("LAG", Align::Right),
            ("NOTE", Align::Left),
        ]);
        let layouts = vec![vec![0, 1, 2, 3], vec![0, 1, 2]];
        let rows = vec![
            vec![
                super::super::sanitize::escape("evil\x1b[31m\ngroup").into_owned(),
                "日本語のトピック".to_string(),
                "12".to_string(),
                String::new(),
            ],
            vec![
                "g two words".to_string(),
                "t".to_string(),
                String::new(),
                "  ".to_string(),
            ],
            vec![
                "größe ✓".to_string(),
                "orders".to_string(),
                "7".to_string(),
                "x y ".to_string(),
            ],
            vec![String::new(), String::new(), String::new(), String::new()],
        ];
        same_as_grids(&columns, &layouts, &rows);
    }

    #[test]
    fn rows_too_wide_for_any_layout_are_records() {
        let columns = cols(&[("x", Align::Left), ("y", Align::Right)]);
        let layouts = vec![vec![0, 1]];
        let rows = vec![
            vec!["a".repeat(30), "b".repeat(30)],
            vec!["c".to_string(), "d".repeat(45)],
        ];
        same_as_grids(&columns, &layouts, &rows);
        assert!(streamed(&columns, &layouts, &rows, 40).starts_with("x: aaa"));
    }

    #[test]
    fn cells_of_several_lines_go_through_the_grids() {
        let columns = cols(&[("x", Align::Left), ("y", Align::Left)]);
        let layouts = vec![vec![0, 1]];
        let rows = vec![vec!["one\ntwo".to_string(), "b".to_string()]];
        same_as_grids(&columns, &layouts, &rows);
    }
}
