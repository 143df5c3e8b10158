//! The tokenizer under the citation scanner: one linear pass over the bytes of a text that
//! yields words, numbers, `§` signs and single punctuation characters with their byte ranges.
//!
//! Why tokens and not a regex: every citation rule below is a short walk over a few tokens
//! from a trigger (`§`, `Art.`, a court, a register code), so the whole document is read once
//! and nothing backtracks. Whitespace is not a token; [`Tok::gap_nl`] records whether a
//! newline separates a token from the previous one, which is where citations may not run on.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Letters (any alphabetic char); may contain digits after the first letter (`BVerfGE`, `SGB5`).
    Word,
    /// ASCII digits only (`823`, `2019`); a letter directly after is a separate, adjacent token.
    Num,
    /// `§` (one sign; `§§` is two adjacent tokens).
    Para,
    /// Any other single non-space character (`.`, `,`, `/`, `-`, `(`, `–`, emoji …).
    Punct,
}

/// One token: byte range into the text.
#[derive(Clone, Copy, Debug)]
pub struct Tok {
    pub start: u32,
    pub end: u32,
    pub kind: Kind,
    /// A paragraph break lies between the previous token and this one: an empty line, or a line
    /// that holds only a number (a Randnummer). A single line break (PDF text wraps lines
    /// anywhere) does not stop a citation.
    pub gap_nl: bool,
    /// Any whitespace lies between the previous token and this one.
    pub gap_sp: bool,
}

/// Tokenizes `text` into `out` (cleared first; reuse the vector across documents).
pub fn tokenize(text: &str, out: &mut Vec<Tok>) {
    out.clear();
    // Offsets are stored as u32: a text over 4 GiB is scanned up to the last char boundary
    // below 4 GiB, so every token range is valid (`Sc::s` relies on it).
    let mut cut = text.len().min(u32::MAX as usize);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let text = &text[..cut];
    // About one token per five bytes of German text; one reservation instead of regrowth.
    out.reserve(text.len() / 4 + 4);
    let b = text.as_bytes();
    let n = b.len();
    let mut i = 0usize;
    let mut gap_nl = false;
    let mut gap_sp = false;
    // Newlines seen in the current gap.
    let mut nls = 0u8;
    while i < n {
        let c = b[i];
        if c < 0x80 {
            if c == b' ' || c == b'\t' || c == b'\r' || c == b'\x0c' || c == b'\x0b' {
                gap_sp = true;
                i += 1;
                continue;
            }
            if c == b'\n' {
                gap_sp = true;
                nls = nls.saturating_add(1);
                if nls >= 2 {
                    gap_nl = true;
                }
                i += 1;
                continue;
            }
            let start = i;
            let kind = if c.is_ascii_digit() {
                while i < n && b[i].is_ascii_digit() {
                    i += 1;
                }
                Kind::Num
            } else if c.is_ascii_alphabetic() {
                i = word_end(text, i);
                Kind::Word
            } else {
                i += 1;
                Kind::Punct
            };
            out.push(Tok { start: start as u32, end: i as u32, kind, gap_nl, gap_sp });
            gap_nl = false;
            gap_sp = false;
            nls = 0;
            continue;
        }
        // Non-ASCII: decode one char (text is valid UTF-8, so `i` is on a char boundary).
        let ch = text[i..].chars().next().unwrap_or('\u{fffd}');
        let len = ch.len_utf8();
        if ch == '\u{a0}' || ch == '\u{2009}' || ch == '\u{202f}' || ch == '\u{2028}' || ch.is_whitespace() {
            gap_sp = true;
            if ch == '\u{2028}' || ch == '\u{2029}' || ch == '\u{85}' {
                gap_nl = true;
            }
            i += len;
            continue;
        }
        let start = i;
        let kind = if ch == '§' {
            i += len;
            Kind::Para
        } else if ch.is_alphabetic() {
            i = word_end(text, i);
            Kind::Word
        } else {
            i += len;
            Kind::Punct
        };
        out.push(Tok { start: start as u32, end: i as u32, kind, gap_nl, gap_sp });
        gap_nl = false;
        gap_sp = false;
        nls = 0;
    }
    mark_number_lines(text, out);
}

/// A line that holds only a number (a Randnummer, `\n5\n`) separates paragraphs like an
/// empty line: its token and the token after it get `gap_nl`.
fn mark_number_lines(text: &str, toks: &mut [Tok]) {
    let b = text.as_bytes();
    let nl_before = |t: &Tok| {
        t.gap_sp && b[..t.start as usize].iter().rev().take_while(|c| c.is_ascii_whitespace()).any(|&c| c == b'\n')
    };
    for k in 0..toks.len() {
        if toks[k].kind != Kind::Num || !nl_before(&toks[k]) {
            continue;
        }
        let end = toks[k].end as usize;
        let line_ends = b[end..].iter().take_while(|c| c.is_ascii_whitespace()).any(|&c| c == b'\n') || end == b.len();
        if line_ends {
            toks[k].gap_nl = true;
            if let Some(next) = toks.get_mut(k + 1) {
                next.gap_nl = true;
            }
        }
    }
}

/// Byte classes for the ASCII fast path: 0 other, 1 letter or digit.
static ALNUM: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 128 {
        t[c] = (c as u8).is_ascii_alphanumeric();
        c += 1;
    }
    t
};

/// End of a word starting at `i`: letters, combining marks and digits after the first letter.
fn word_end(text: &str, mut i: usize) -> usize {
    let b = text.as_bytes();
    let n = b.len();
    while i < n {
        // The ASCII run in one pass without per-byte bounds checks.
        i += b[i..].iter().position(|&c| !ALNUM[c as usize]).unwrap_or(n - i);
        if i >= n {
            break;
        }
        let c = b[i];
        if c < 0x80 {
            break;
        }
        // German letters (ä ö ü ß Ä Ö Ü and the rest of Latin-1 letters) without the Unicode table.
        if c == 0xC3 && i + 1 < n && b[i + 1] != 0x97 && b[i + 1] != 0xB7 {
            i += 2;
            continue;
        }
        let ch = text[i..].chars().next().unwrap_or(' ');
        // Combining marks (U+0300–U+036F) stay in the word so `ü` written as `u`+U+0308 is one word.
        if ch.is_alphabetic() || ('\u{300}'..='\u{36f}').contains(&ch) {
            i += ch.len_utf8();
        } else {
            break;
        }
    }
    i
}

/// Maps byte offsets to code-point offsets; built once per text, monotone queries are O(1)
/// amortised because it walks forward from the last answer.
pub struct CharIndex<'a> {
    text: &'a [u8],
    last_byte: usize,
    last_char: usize,
}

impl<'a> CharIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        CharIndex { text: text.as_bytes(), last_byte: 0, last_char: 0 }
    }

    /// Code-point offset of byte offset `byte` (must be a char boundary).
    pub fn char_of(&mut self, byte: usize) -> usize {
        let byte = byte.min(self.text.len());
        if byte < self.last_byte {
            self.last_byte = 0;
            self.last_char = 0;
        }
        // Count bytes that start a char (not UTF-8 continuation bytes 10xxxxxx).
        let n = self.text[self.last_byte..byte].iter().filter(|&&c| (c as i8) >= -0x40).count();
        self.last_char += n;
        self.last_byte = byte;
        self.last_char
    }
}
