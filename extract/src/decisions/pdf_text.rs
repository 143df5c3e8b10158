//! PDF-derived text (`pdftotext` output): page furniture removed, line-end hyphenation undone
//! and hard-wrapped lines reflowed into paragraphs — each only where it is recognised safely.
//!
//! - Page furniture: pages are split at `\f`. A bare page number (`- 2 -`, `-2-`, `2`,
//!   `Seite 2 von 9`, `2/9`) among the first or last two lines of a page (not on page 1's top)
//!   is removed; so is a line that recurs (digits ignored) at the top or bottom of at least
//!   three pages and of half of them (running headers such as `VG 2 K 12.10`).
//! - Hyphenation: `Verwal-` + `tungsgericht` → `Verwaltungsgericht` only when the hyphen
//!   follows a letter and the next line starts with a lower-case letter that does not begin
//!   a coordinating word (`Betriebs- und …`, `Sach- bzw. …` keep their hyphen). Upper-case
//!   continuations (`Schleswig-` + `Holstein`) keep the hyphen and lose the line break.
//! - Reflow: a line joins the next when it is nearly full (at least 70 % of the document's
//!   typical line width) or when the next starts lower-case after no sentence end; never
//!   across a blank line, a heading line, a bare number (a Randnummer) or before a line that
//!   starts like an outline item (`1.`, `a)`, `(2)`, `-`).

use std::collections::HashMap;

use super::lines::heading_of;
use super::{DocFlags, Rendered};
use crate::plain_text::PlainText;

const ZONE: usize = 2;

/// A page number line. A bare number (`3`, no dashes) is only taken when it is the page's own
/// index (± 1, for a cover page) and the page has no other page number: otherwise it is more
/// likely a Randnummer at the top of the page.
fn is_page_number(l: &str, page_index: usize, already: bool) -> bool {
    let t = l.trim();
    if t.is_empty() || t.len() > 20 {
        return false;
    }
    let core = t.trim_matches(|c: char| c == '-' || c == '–' || c == ' ');
    let decorated = core.len() != t.len() || core.starts_with("Seite");
    let core = core.strip_prefix("Seite").map(str::trim).unwrap_or(core);
    let digits_only = |s: &str| !s.is_empty() && s.len() <= 4 && s.bytes().all(|b| b.is_ascii_digit());
    if digits_only(core) {
        if decorated {
            return true;
        }
        let n: usize = core.parse().unwrap_or(0);
        return !already && n.abs_diff(page_index + 1) <= 1;
    }
    if let Some((a, b)) = core.split_once(" von ").or_else(|| core.split_once('/')) {
        return digits_only(a.trim()) && digits_only(b.trim());
    }
    false
}

/// `Titel … Seite 2 von 24` → `Titel …`: a running header that ends in its page number
/// (a browser's print header) has the same shape as the same header without it.
fn strip_page_suffix(l: &str) -> &str {
    let mut t = l.trim_end();
    if let Some(i) = t.rfind("Seite ") {
        let tail = &t[i + 6..];
        if tail.split(" von ").all(|p| !p.is_empty() && p.len() <= 4 && p.bytes().all(|b| b.is_ascii_digit())) {
            t = t[..i].trim_end();
        }
    }
    // A title the browser cut to fit (`Informationsfreihei...`) is cut at different letters
    // on different pages: drop the cut word.
    if t.ends_with("...") || t.ends_with('…') {
        t = t.rfind(' ').map(|i| &t[..i]).unwrap_or(t);
    }
    t
}

/// A line with whitespace collapsed, a trailing page number dropped and every run of digits as
/// one `#`, so `Seite 9 von 24` and `Seite 10 von 24` are the same running header.
fn shape(l: &str) -> String {
    let l = strip_page_suffix(l);
    let mut out = String::with_capacity(l.len());
    for w in l.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        let mut prev_digit = false;
        for c in w.chars() {
            if c.is_ascii_digit() {
                if !prev_digit {
                    out.push('#');
                }
                prev_digit = true;
            } else {
                out.push(c);
                prev_digit = false;
            }
        }
    }
    out
}

fn zone_indices(lines: &[&str]) -> Vec<usize> {
    let nonblank: Vec<usize> = (0..lines.len()).filter(|&i| !lines[i].trim().is_empty()).collect();
    let mut z: Vec<usize> = nonblank.iter().take(ZONE).copied().collect();
    for &i in nonblank.iter().rev().take(ZONE) {
        if !z.contains(&i) {
            z.push(i);
        }
    }
    z
}

pub(crate) fn render(s: &str) -> Rendered {
    let s = s.replace("\r\n", "\n");
    let pages: Vec<Vec<&str>> = s.split('\u{c}').map(|p| p.split('\n').collect()).collect();
    let mut flags = DocFlags { pdf_derived: true, ..Default::default() };

    // Running headers/footers: shapes recurring in the zones of many pages.
    let mut counts: HashMap<String, usize> = HashMap::new();
    for p in &pages {
        let mut seen = Vec::new();
        for i in zone_indices(p) {
            let sh = shape(p[i]);
            if sh.chars().count() >= 4 && !seen.contains(&sh) {
                seen.push(sh.clone());
                *counts.entry(sh).or_default() += 1;
            }
        }
    }
    let real_pages = pages.iter().filter(|p| p.iter().any(|l| !l.trim().is_empty())).count();
    let recurring = |sh: &str| {
        real_pages >= 3 && counts.get(sh).is_some_and(|&n| n >= 3 && n * 2 >= real_pages && heading_of(sh).is_none())
    };

    // Lines of all pages without furniture; `None` is a blank line (a paragraph break).
    let mut lines: Vec<Option<&str>> = Vec::new();
    for (pi, p) in pages.iter().enumerate() {
        let zone = zone_indices(p);
        let mut kept: Vec<Option<&str>> = Vec::new();
        let mut numbered = false;
        for (i, l) in p.iter().enumerate() {
            let in_zone = zone.contains(&i);
            let top_of_first = pi == 0 && zone.first() == Some(&i);
            if in_zone && !top_of_first {
                let page_no = is_page_number(l, pi, numbered);
                if page_no || recurring(&shape(l)) {
                    numbered |= page_no;
                    flags.page_furniture_removed += 1;
                    continue;
                }
            }
            kept.push(if l.trim().is_empty() { None } else { Some(l.trim_end()) });
        }
        // Blank lines at a page edge are layout, not paragraph breaks.
        let lead = kept.iter().take_while(|l| l.is_none()).count();
        kept.drain(..lead);
        while kept.last().is_some_and(Option::is_none) {
            kept.pop();
        }
        lines.extend(kept);
    }

    let width = typical_width(lines.iter().flatten().copied());
    let mut pt = PlainText::new();
    let mut cur = String::new();
    let mut prev_line: Option<&str> = None;
    // A blank line seen since `prev_line`: a paragraph break unless the next line plainly
    // continues the sentence (lower-case start after no sentence end) or a word was split.
    let mut blank = false;
    for l in &lines {
        let Some(l) = *l else {
            blank = true;
            continue;
        };
        let t = l.trim();
        match prev_line {
            None => {}
            Some(p) => {
                let kind = join_kind(p, t, width);
                let continues = matches!(kind, Join::Dehyphenate | Join::KeepHyphen)
                    || (t.starts_with(char::is_lowercase)
                        && !p.ends_with(['.', ':', ';', '!', '?'])
                        && !matches!(kind, Join::Break));
                match kind {
                    _ if blank && !continues => flush(&mut pt, &mut cur),
                    Join::Dehyphenate => {
                        cur.pop();
                        flags.dehyphenated += 1;
                    }
                    Join::KeepHyphen => {}
                    Join::Space => cur.push(' '),
                    Join::Break => flush(&mut pt, &mut cur),
                }
            }
        }
        blank = false;
        cur.push_str(t);
        prev_line = Some(t);
    }
    flush(&mut pt, &mut cur);
    Rendered { text: pt.finish(), flags }
}

fn flush(pt: &mut PlainText, cur: &mut String) {
    if !cur.is_empty() {
        pt.text(cur);
        pt.block_break();
        cur.clear();
    }
}

/// The width of a full line: the median length of lines of 20 characters or more. (pdftotext
/// sometimes merges two visual lines, so a high percentile would overestimate it.)
fn typical_width<'a>(lines: impl Iterator<Item = &'a str>) -> usize {
    let mut w: Vec<usize> = lines.map(|l| l.trim().chars().count()).filter(|&n| n >= 20).collect();
    if w.is_empty() {
        return 80;
    }
    w.sort_unstable();
    w[w.len() / 2]
}

enum Join {
    Dehyphenate,
    KeepHyphen,
    Space,
    Break,
}

/// `Verwal-` → Some('l'): the letter before a line-end hyphen.
fn hyphen_split(p: &str) -> Option<char> {
    let body = p.strip_suffix('-')?;
    let c = body.chars().last()?;
    c.is_alphabetic().then_some(c)
}

const COORDINATORS: &[&str] = &["und", "oder", "bzw", "bzw.", "sowie", "bis", "als", "wie", "noch", "u.", "o."];

fn is_bare_number(s: &str) -> bool {
    !s.is_empty() && s.len() <= 4 && s.bytes().all(|b| b.is_ascii_digit())
}

fn starts_like_item(s: &str) -> bool {
    let first = s.split_whitespace().next().unwrap_or("");
    if matches!(first, "-" | "–" | "•" | "*") {
        return true;
    }
    let core = first.trim_start_matches('(');
    let body = core.strip_suffix('.').or_else(|| core.strip_suffix(')'));
    match body {
        Some(b) if !b.is_empty() && b.len() <= 4 => {
            b.chars().all(|c| c.is_ascii_digit())
                || b.chars().all(|c| matches!(c, 'I' | 'V' | 'X'))
                || (b.len() <= 2 && b.chars().all(|c| c.is_ascii_lowercase()))
        }
        _ => false,
    }
}

/// A list label alone on a line: `a)`, `bb)`, `1.`, `2)`, `(3)`. Roman numerals and capital
/// letters (`II.`, `B.`) are outline headings and keep their own line.
fn is_item_label(s: &str) -> bool {
    if matches!(s.trim(), "-" | "–" | "•" | "*") {
        return true;
    }
    let core = s.trim().trim_start_matches('(');
    let Some(body) = core.strip_suffix(')').or_else(|| core.strip_suffix('.')) else { return false };
    !body.is_empty()
        && body.len() <= 3
        && (body.bytes().all(|b| b.is_ascii_digit()) || body.bytes().all(|b| b.is_ascii_lowercase()))
}

fn join_kind(prev: &str, next: &str, width: usize) -> Join {
    let next_first = next.chars().next().unwrap_or(' ');
    if is_bare_number(prev) || is_bare_number(next) || heading_of(prev).is_some() || heading_of(next).is_some() {
        return Join::Break;
    }
    if is_item_label(prev) {
        // `a)` / `1.` alone on its line: the item's text follows and stays on its line.
        return Join::Space;
    }
    if prev.ends_with('\u{ad}') {
        // pdftotext keeps the soft hyphen of a word broken at the line end.
        return Join::Dehyphenate;
    }
    if hyphen_split(prev).is_some() {
        let word = next.split_whitespace().next().unwrap_or("");
        if next_first.is_lowercase() && !COORDINATORS.contains(&word.trim_end_matches([',', ';'])) {
            return Join::Dehyphenate;
        }
        if next_first.is_uppercase() {
            return Join::KeepHyphen;
        }
        return Join::Space;
    }
    if starts_like_item(next) {
        return Join::Break;
    }
    let ends_sentence = prev.ends_with(['.', ':', ';', '!', '?']);
    let full = prev.chars().count() * 10 >= width * 7;
    if full || (next_first.is_lowercase() && !ends_sentence) { Join::Space } else { Join::Break }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn furniture_hyphens_and_wrapping() {
        let body = "Die Beschwerde der Klägerin gegen die Nichtzulassung der Revision\nin dem Urteil des Schleswig-Holsteinischen Oberverwal-\ntungsgerichts vom 13. Dezember 1994 und des Verwaltungs-\ngerichts wird zurückgewiesen.\nKurz.\n";
        let mut s = String::from("VG 1 K 1/10\nBESCHLUSS\n");
        for (p, land) in [(2, "Landes"), (3, "Amtes"), (4, "Gerichts"), (5, "Hauses")] {
            s.push_str(&format!(
                "\u{c}VG 1 K 1/10\n- {p} -\n\n{body}Betriebs-\nund {land}geheimnisse des Schleswig-\nHolsteinischen {land}.\n"
            ));
        }
        let r = render(&s);
        assert_eq!(r.flags.page_furniture_removed, 8);
        assert_eq!(r.flags.dehyphenated, 8);
        let lines: Vec<&str> = r.text.lines().collect();
        assert_eq!(lines[0], "VG 1 K 1/10");
        assert_eq!(
            lines[2],
            "Die Beschwerde der Klägerin gegen die Nichtzulassung der Revision in dem Urteil des Schleswig-Holsteinischen \
             Oberverwaltungsgerichts vom 13. Dezember 1994 und des Verwaltungsgerichts wird zurückgewiesen."
        );
        assert_eq!(lines[3], "Kurz.");
        assert_eq!(lines[4], "Betriebs- und Landesgeheimnisse des Schleswig-Holsteinischen Landes.");
        let r = render(
            "Gründe:\nI.\na)\nDie Klage ist zulässig.\n1.\nSie ist begründet.\n-\nwenn es so ist,\n-\nwenn nicht.",
        );
        assert_eq!(
            r.text,
            "Gründe:\nI.\na) Die Klage ist zulässig.\n1. Sie ist begründet.\n- wenn es so ist,\n- wenn nicht."
        );
        // Soft hyphens at line ends, and words that pdftotext put on lines of their own.
        let r = render("Gerichtskostenge\u{ad}\nsetzes.\n\nDaraus\n\nfolge,\n\ndass es geht.\n\nNeu.");
        assert_eq!(r.text, "Gerichtskostengesetzes.\nDaraus folge, dass es geht.\nNeu.");
        assert_eq!(r.flags.dehyphenated, 1);
    }
}
