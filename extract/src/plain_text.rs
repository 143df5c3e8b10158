//! The plain-text writer behind every normalised text (statutes now, decisions later).
//!
//! Rules (seed 000, "Text format"):
//! - whitespace in the markup (newlines, indentation, NBSP) counts as one space;
//! - a block element ends a line; empty lines are dropped, so a paragraph is one line;
//! - a list number stays on the line of its item ([`PlainText::glue_next_block`]);
//! - sentence numbers (`<sup>`) are separated from the following word;
//! - table cells of one row share a line, separated by ` | `.
//!
//! Offsets into the result are Unicode code points; the writer counts them as it goes so
//! callers can record positions without rescanning.

#[derive(Debug, Default)]
pub struct PlainText {
    out: String,
    chars: usize,
    line_has_content: bool,
    pending_space: bool,
    pending_cell_sep: bool,
    glue: bool,
}

impl PlainText {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends character data, collapsing whitespace.
    pub fn text(&mut self, s: &str) {
        for c in s.chars() {
            if c.is_whitespace() {
                if self.line_has_content {
                    self.pending_space = true;
                }
                continue;
            }
            self.push_content_char(c);
        }
    }

    /// Appends text in which a newline is a real line break (`<pre>`).
    pub fn preformatted(&mut self, s: &str) {
        for (i, line) in s.split('\n').enumerate() {
            if i > 0 {
                self.hard_break();
            }
            self.text(line);
        }
    }

    fn push_content_char(&mut self, c: char) {
        if self.line_has_content {
            if self.pending_cell_sep {
                self.out.push_str(" | ");
                self.chars += 3;
            } else if self.pending_space {
                self.out.push(' ');
                self.chars += 1;
            }
        }
        self.pending_space = false;
        self.pending_cell_sep = false;
        self.glue = false;
        self.out.push(c);
        self.chars += 1;
        self.line_has_content = true;
    }

    /// Ends the current line unless the next block is glued to it (list number + item).
    pub fn block_break(&mut self) {
        if self.glue {
            self.pending_space = true;
            return;
        }
        self.end_line();
    }

    /// A line break that ignores glue (`<BR/>`).
    pub fn hard_break(&mut self) {
        self.glue = false;
        self.end_line();
    }

    fn end_line(&mut self) {
        if self.line_has_content {
            self.out.push('\n');
            self.chars += 1;
        }
        self.line_has_content = false;
        self.pending_space = false;
        self.pending_cell_sep = false;
    }

    /// The next block continues this line (after a list number such as `1.` or `a)`).
    pub fn glue_next_block(&mut self) {
        if self.line_has_content {
            self.glue = true;
        }
    }

    /// Drops a glue that found no content (an empty list item).
    pub fn unglue(&mut self) {
        if self.glue {
            self.glue = false;
            self.end_line();
        }
    }

    /// Separates what follows from what came before with a space (`<sup>` boundaries).
    pub fn soft_space(&mut self) {
        if self.line_has_content {
            self.pending_space = true;
        }
    }

    /// Starts a new table cell: a ` | ` separator before its first character.
    pub fn cell(&mut self) {
        if self.line_has_content {
            self.pending_cell_sep = true;
        }
    }

    /// Code points written so far (the offset of the next character, ignoring a pending space).
    pub fn len_chars(&self) -> usize {
        self.chars
    }

    pub fn is_empty(&self) -> bool {
        self.out.is_empty()
    }

    /// The text without a trailing newline.
    pub fn finish(mut self) -> String {
        while self.out.ends_with('\n') {
            self.out.pop();
        }
        self.out
    }
}

/// Length in Unicode code points.
pub fn char_len(s: &str) -> usize {
    s.chars().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_collapses_and_blocks_end_lines() {
        let mut t = PlainText::new();
        t.block_break();
        t.text("  Die  Würde\n des\u{a0}Menschen ");
        t.block_break();
        t.block_break();
        t.text("ist unantastbar.");
        assert_eq!(t.finish(), "Die Würde des Menschen\nist unantastbar.");
    }

    #[test]
    fn list_numbers_stay_on_the_line_of_their_item() {
        let mut t = PlainText::new();
        t.text("Einleitung:");
        t.block_break();
        t.text("1.");
        t.glue_next_block();
        t.block_break(); // DD
        t.block_break(); // LA inside DD
        t.text("erster Punkt");
        t.block_break();
        t.text("2.");
        t.glue_next_block();
        t.block_break();
        t.text("zweiter");
        t.hard_break();
        t.text("Zeile");
        assert_eq!(t.finish(), "Einleitung:\n1. erster Punkt\n2. zweiter\nZeile");
    }

    #[test]
    fn cells_and_sup_are_separated_and_offsets_count_code_points() {
        let mut t = PlainText::new();
        t.cell();
        t.text("Ä");
        t.cell();
        t.text("ß");
        t.block_break();
        t.text("(1)");
        t.soft_space();
        t.text("1");
        t.soft_space();
        t.text("Satz");
        assert_eq!(t.len_chars(), "Ä | ß\n(1) 1 Satz".chars().count());
        assert_eq!(t.finish(), "Ä | ß\n(1) 1 Satz");
    }
}
