//! The terminal's frame, one for every form (as `media::html::Page` is report.html's): the
//! header, the answer and what follows it, the tables, and the run directory. Each form fills
//! a `Screen`; `write` fits it to the terminal's width.

use crate::report::media::table::{self, Table};
use crate::report::media::term::{width, wrap};
use anyhow::Result;
use std::io::Write;
use std::path::PathBuf;

/// What the terminal shows after the answer: a table, or text already laid out.
#[derive(Debug)]
pub enum Block {
    Table(Table),
    Text(String),
}

/// A run on the terminal.
#[derive(Debug)]
pub struct Screen {
    /// The lines before the answer: what was run.
    pub header: Vec<String>,
    /// The answer, first.
    pub answer: Vec<String>,
    /// The lines after the answer: where the details are, what the data left out.
    pub after: Vec<String>,
    pub blocks: Vec<Block>,
    /// The run directory (None: `analyze`, which writes none).
    pub dir: Option<PathBuf>,
}

/// Writes `screen`, every line fitted to the terminal's width.
pub fn write(screen: &Screen, w: &mut dyn Write) -> Result<()> {
    let width = width();
    for line in &screen.header {
        writeln!(w, "{}", wrap(line, width, ""))?;
    }
    // Without an answer (`analyze` on one column), the first table's own blank line follows.
    if !(screen.answer.is_empty() && screen.after.is_empty()) {
        writeln!(w)?;
    }
    for line in screen.answer.iter().chain(&screen.after) {
        writeln!(w, "{}", wrap(line, width, ""))?;
    }
    for block in &screen.blocks {
        match block {
            Block::Table(t) => print_table(w, t, width)?,
            Block::Text(text) => write!(w, "{text}")?,
        }
    }
    if let Some(dir) = &screen.dir {
        writeln!(w, "\nrun directory: {}", dir.display())?;
    }
    Ok(())
}

/// A table under its title, fitted to `width` (a table of notes only has no grid), its notes
/// after it.
pub fn print_table(w: &mut dyn Write, t: &Table, width: Option<usize>) -> Result<()> {
    writeln!(w, "\n{}", wrap(&t.title, width, ""))?;
    if !t.headers.is_empty() {
        writeln!(w, "{}", table::render_at(t, width))?;
    }
    for note in &t.notes {
        writeln!(w, "{}", wrap(note, width, "  "))?;
    }
    Ok(())
}
