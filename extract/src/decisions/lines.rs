//! The format-independent second half of normalisation: rendered lines → final text with
//! Randnummern joined to their paragraphs, section headings found, and offsets computed.
//!
//! Every renderer (HTML, markdown, PDF text, XML, plain text) produces one paragraph per line.
//! A line starting with [`RN_MARK`] holds what a Randnummer element printed: a number (an
//! explicit Randnummer, trusted) or a label (`a)`, `1.`) that stays on the line of its item.
//! A line that is only a number without the mark is a Randnummer only if it continues the
//! sequence (see [`accept_implicit`]).

use super::{DecisionDoc, DocFlags, Rendered, RnBlock, Section};
use crate::plain_text::PlainText;

/// Private-use character the renderers put before a Randnummer element's content.
pub(crate) const RN_MARK: char = '\u{e000}';

struct Line {
    text: String,
    rn: Option<u32>,
    /// Bytes of `text` taken by the Randnummer prefix (`12 `).
    rn_prefix: usize,
}

/// Plain text: each input line is a paragraph; whitespace collapses.
pub(crate) fn render_plain(s: &str) -> Rendered {
    let mut pt = PlainText::new();
    for line in s.lines() {
        pt.text(line);
        pt.block_break();
    }
    Rendered { text: pt.finish(), flags: DocFlags::default() }
}

fn parse_rn(s: &str) -> Option<u32> {
    if s.is_empty() || s.len() > 5 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok().filter(|&n| n > 0)
}

/// A bare number is taken as a Randnummer only when it continues the sequence: the first
/// must be 1 or 2, each later one at most 3 above the last (sources skip a number now and
/// then). Page numbers, list numbers and table figures rarely fit, and when they do they are
/// indistinguishable from a Randnummer anyway.
fn accept_implicit(n: u32, last: Option<u32>) -> bool {
    match last {
        None => n <= 2,
        Some(l) => n > l && n <= l + 3,
    }
}

/// Removes OLDP reference markers (`[ref=…]§ 500a BGB[/ref]` keeps `§ 500a BGB`) and control
/// characters (a stray backspace in a source), which seed 000 drops from the text.
fn clean_line(l: &str) -> std::borrow::Cow<'_, str> {
    if !l.contains("[ref") && !l.contains("[/ref]") && !l.chars().any(|c| c.is_control()) {
        return std::borrow::Cow::Borrowed(l);
    }
    let mut out = String::with_capacity(l.len());
    let mut rest = l;
    while let Some(i) = rest.find('[') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if let Some(after) = tail.strip_prefix("[/ref]") {
            rest = after;
        } else if tail.starts_with("[ref=")
            && let Some(end) = tail.find(']')
            && end <= 80
        {
            rest = &tail[end + 1..];
        } else {
            out.push('[');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out.retain(|c| !c.is_control());
    std::borrow::Cow::Owned(out.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// `Randnummer 12`, `Rn. 12`, `Rdnr. 12` → `12` (the label some portals print in the cell).
fn strip_rn_label(s: &str) -> &str {
    for label in ["Randnummer", "Randnr.", "Rdnr.", "Rdn.", "Rn.", "Rz."] {
        if let Some(r) = s.strip_prefix(label) {
            return r.trim_start();
        }
    }
    s
}

fn build_lines(text: &str) -> Vec<Line> {
    let cleaned: Vec<std::borrow::Cow<'_, str>> = text.split('\n').map(|l| clean_line(l.trim())).collect();
    let raw: Vec<&str> = cleaned.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect();
    let mut out: Vec<Line> = Vec::with_capacity(raw.len());
    let mut last: Option<u32> = None;
    let mut i = 0;
    while i < raw.len() {
        let line = raw[i];
        let next = raw.get(i + 1).copied().filter(|n| !n.starts_with(RN_MARK));
        if let Some(rest) = line.strip_prefix(RN_MARK) {
            let rest = strip_rn_label(rest.trim());
            if rest.is_empty() {
                i += 1;
                continue;
            }
            if let Some(n) = parse_rn(rest) {
                last = Some(n);
                out.push(join_rn(n, next));
                i += if next.is_some() { 2 } else { 1 };
                continue;
            }
            // A label (`a)`, `I.`): stays on the line of its item.
            match next {
                Some(nx) => {
                    out.push(Line { text: format!("{rest} {nx}"), rn: None, rn_prefix: 0 });
                    i += 2;
                }
                None => {
                    out.push(Line { text: rest.to_string(), rn: None, rn_prefix: 0 });
                    i += 1;
                }
            }
            continue;
        }
        if let (Some(n), Some(_)) = (parse_rn(line), next)
            && line.len() <= 4
            && accept_implicit(n, last)
        {
            last = Some(n);
            out.push(join_rn(n, next));
            i += 2;
            continue;
        }
        out.push(Line { text: line.to_string(), rn: None, rn_prefix: 0 });
        i += 1;
    }
    out
}

fn join_rn(n: u32, next: Option<&str>) -> Line {
    let prefix = format!("{n} ");
    match next {
        Some(nx) => Line { rn_prefix: prefix.len(), text: format!("{prefix}{nx}"), rn: Some(n) },
        None => Line { text: n.to_string(), rn: Some(n), rn_prefix: 0 },
    }
}

/// Canonical section headings: (lower-case spelling, canonical name).
const HEADINGS: &[(&str, &str)] = &[
    ("leitsatz", "Leitsatz"),
    ("leitsätze", "Leitsatz"),
    ("amtlicher leitsatz", "Leitsatz"),
    ("leitsatz/-sätze", "Leitsatz"),
    ("orientierungssatz", "Orientierungssatz"),
    ("orientierungssätze", "Orientierungssatz"),
    ("sonstiger orientierungssatz", "Orientierungssatz"),
    ("tenor", "Tenor"),
    ("tatbestand", "Tatbestand"),
    ("entscheidungsgründe", "Entscheidungsgründe"),
    ("gründe", "Gründe"),
    ("titelzeile", "Titelzeile"),
    ("abweichende meinung", "Abweichende Meinung"),
    ("sonstiger langtext", "Sonstiger Langtext"),
];

/// Rubric labels of portal pages (`Schlagworte:`): they end the section before them and are
/// reported as sections of their own, but only with the colon the portals print.
const RUBRICS: &[(&str, &str)] = &[
    ("titel", "Titel"),
    ("normenkette", "Normenkette"),
    ("normenketten", "Normenkette"),
    ("schlagworte", "Schlagworte"),
    ("vorinstanz", "Vorinstanz"),
    ("fundstellen", "Fundstellen"),
    ("fundstelle", "Fundstellen"),
    ("rechtsmittelinstanz", "Rechtsmittelinstanz"),
    ("normen", "Normenkette"),
    ("rechtsquelle/n", "Normenkette"),
    ("rechtsquellen", "Normenkette"),
    ("stichwort/e", "Schlagworte"),
    ("stichworte", "Schlagworte"),
    ("zitiervorschlag", "Zitiervorschlag"),
];

/// Rubrics a portal prints as a bare heading without a colon (BVerwG `<h5>Rechtsquellen</h5>`).
const BARE_RUBRICS: &[&str] = &["rechtsquellen", "zitiervorschlag"];

/// Strips an outline number (`I.`, `A.`, `2.`) before a heading word.
fn strip_outline(s: &str) -> &str {
    if let Some((first, rest)) = s.split_once(' ') {
        let f = first.trim_end_matches(['.', ')']);
        let roman = !f.is_empty() && f.chars().all(|c| matches!(c, 'I' | 'V' | 'X'));
        let letter = f.len() == 1 && f.chars().all(|c| c.is_ascii_uppercase());
        let digit = !f.is_empty() && f.len() <= 2 && f.chars().all(|c| c.is_ascii_digit());
        if first.len() > f.len() && (roman || letter || digit) {
            return rest.trim_start();
        }
    }
    s
}

/// `G r ü n d e` → `Gründe` when every token is one letter.
fn unspace(s: &str) -> Option<String> {
    let toks: Vec<&str> = s.split_whitespace().collect();
    if toks.len() >= 4 && toks.iter().all(|t| t.chars().count() == 1) { Some(toks.concat()) } else { None }
}

/// A heading line → (canonical name, printed heading, byte offset where the section's text
/// starts within the line, or None when it starts on the next line).
pub(crate) fn heading_of(line: &str) -> Option<(&'static str, String, Option<usize>)> {
    let line = line.trim();
    // Fast reject for the common case, a long line without an early colon: called for every
    // line of every document.
    let short = line.len() <= 60 || (line.len() <= 4 * 60 && line.chars().count() <= 60);
    if !short && !line.as_bytes().iter().take(31).any(|&b| b == b':') {
        return None;
    }
    if !line.starts_with(|c: char| c.is_alphabetic()) {
        return None;
    }
    if short {
        let had_colon = line.trim_end().ends_with(':');
        let core = line.trim_end_matches([':', ' ']).trim();
        let core_owned = unspace(core);
        let core = core_owned.as_deref().unwrap_or(core);
        let core = strip_outline(core);
        let lower = core.to_lowercase();
        if let Some((_, canon)) = HEADINGS.iter().find(|(l, _)| *l == lower) {
            return Some((canon, line.to_string(), None));
        }
        if (had_colon || BARE_RUBRICS.contains(&lower.as_str()))
            && let Some((_, canon)) = RUBRICS.iter().find(|(l, _)| *l == lower)
        {
            return Some((canon, line.to_string(), None));
        }
    }
    // `Tenor: Die Beschwerde wird verworfen.`
    if let Some((head, rest)) = line.split_once(':')
        && !rest.trim().is_empty()
        && head.len() <= 30
    {
        let lower = strip_outline(head.trim()).to_lowercase();
        if let Some((_, canon)) = HEADINGS.iter().find(|(l, _)| *l == lower) {
            let start = head.len() + 1 + (rest.len() - rest.trim_start().len());
            return Some((canon, line[..head.len() + 1].to_string(), Some(start)));
        }
    }
    None
}

/// An outline line that only numbers what follows (`I.`, `2.`, `a)`, `aa)`).
fn is_outline_only(s: &str) -> bool {
    let s = s.trim();
    let Some(body) = s.strip_suffix('.').or_else(|| s.strip_suffix(')')) else { return false };
    !body.is_empty()
        && body.len() <= 5
        && (body.chars().all(|c| c.is_ascii_digit())
            || body.chars().all(|c| matches!(c, 'I' | 'V' | 'X' | 'L'))
            || body.chars().all(|c| c.is_ascii_lowercase())
            || (body.len() == 1 && body.chars().all(|c| c.is_ascii_uppercase())))
}

/// Rendered text → the document's text, sections and Randnummer blocks.
pub(crate) fn finish(r: Rendered) -> DecisionDoc {
    let lines = build_lines(&r.text);
    let mut text = String::with_capacity(r.text.len());
    let mut starts = Vec::with_capacity(lines.len());
    let mut pos = 0usize;
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            text.push('\n');
            pos += 1;
        }
        starts.push(pos);
        text.push_str(&l.text);
        pos += l.text.chars().count();
    }
    let total = pos;
    let line_end = |i: usize| if i + 1 < lines.len() { starts[i + 1] - 1 } else { total };

    // Sections.
    let heads: Vec<(usize, &'static str, String, Option<usize>)> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let body = &l.text[l.rn_prefix..];
            heading_of(body).map(|(c, h, off)| (i, c, h, off.map(|o| o + l.rn_prefix)))
        })
        .collect();
    let is_head: Vec<bool> = {
        let mut v = vec![false; lines.len()];
        for h in &heads {
            // A one-line `Tenor: …` is content too; only whole-line headings end blocks.
            if h.3.is_none() {
                v[h.0] = true;
            }
        }
        v
    };
    let mut sections = Vec::with_capacity(heads.len());
    for (k, (i, canon, heading, off)) in heads.iter().enumerate() {
        let start = match off {
            Some(b) => starts[*i] + lines[*i].text[..*b].chars().count(),
            None if i + 1 < lines.len() => starts[i + 1],
            None => total,
        };
        let end = match heads.get(k + 1) {
            Some(next) => starts[next.0].saturating_sub(1).max(start),
            None => total,
        };
        sections.push(Section { name: canon.to_string(), heading: heading.clone(), start, end });
    }

    // Randnummern: printed ones where the source has them, else numbered paragraphs.
    let block_end = |i: usize, is_start: &dyn Fn(usize) -> bool| {
        let mut j = i + 1;
        while j < lines.len() && !is_start(j) && !is_head[j] {
            j += 1;
        }
        line_end(j - 1)
    };
    let mut randnummern = Vec::new();
    if lines.iter().any(|l| l.rn.is_some()) {
        let is_start = |j: usize| lines[j].rn.is_some();
        for (i, l) in lines.iter().enumerate() {
            if let Some(rn) = l.rn {
                randnummern.push(RnBlock { rn, start: starts[i], end: block_end(i, &is_start), printed: true });
            }
        }
    } else if !lines.is_empty() {
        let main = heads
            .iter()
            .find(|h| matches!(h.1, "Tatbestand" | "Gründe" | "Entscheidungsgründe"))
            .or(heads.first())
            .map(|h| h.0 + 1)
            .unwrap_or(0);
        let numbered: Vec<bool> =
            (0..lines.len()).map(|j| j >= main && !is_head[j] && !is_outline_only(&lines[j].text)).collect();
        let is_start = |j: usize| numbered[j];
        let mut rn = 0;
        for i in 0..lines.len() {
            if numbered[i] {
                rn += 1;
                randnummern.push(RnBlock { rn, start: starts[i], end: block_end(i, &is_start), printed: false });
            }
        }
    }
    DecisionDoc { text, sections, randnummern, meta: Default::default(), flags: r.flags }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(s: &str) -> DecisionDoc {
        finish(Rendered { text: s.replace('#', &RN_MARK.to_string()), flags: DocFlags::default() })
    }

    fn slice(d: &DecisionDoc, a: usize, b: usize) -> String {
        d.text.chars().skip(a).take(b - a).collect()
    }

    #[test]
    fn headings_only_on_their_own_line() {
        assert_eq!(heading_of("Gründe").unwrap().0, "Gründe");
        assert_eq!(heading_of("G r ü n d e :").unwrap().0, "Gründe");
        assert_eq!(heading_of("II. Entscheidungsgründe").unwrap().0, "Entscheidungsgründe");
        assert_eq!(heading_of("Leitsätze:").unwrap().0, "Leitsatz");
        assert_eq!(heading_of("Tenor: Die Beschwerde wird verworfen.").unwrap().2, Some(7));
        assert!(heading_of("Die Gründe des Urteils tragen.").is_none());
        assert!(heading_of("Aus diesen Gründen").is_none());
        assert!(heading_of("Schlagworte").is_none());
        assert_eq!(heading_of("Schlagworte:").unwrap().0, "Schlagworte");
    }

    #[test]
    fn printed_randnummern_join_their_paragraph_and_tile_the_body() {
        let d = doc(
            "Tenor\nDie Klage wird abgewiesen.\nGründe\nI.\n#1\nErster.\n#2\nZweiter.\nII.\n3\nDritter.\n17\nSiebzehn.",
        );
        assert_eq!(
            d.text,
            "Tenor\nDie Klage wird abgewiesen.\nGründe\nI.\n1 Erster.\n2 Zweiter.\nII.\n3 Dritter.\n17\nSiebzehn."
        );
        let names: Vec<_> = d.sections.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["Tenor", "Gründe"]);
        assert_eq!(slice(&d, d.sections[0].start, d.sections[0].end), "Die Klage wird abgewiesen.");
        assert_eq!(d.randnummern.len(), 3);
        assert!(d.randnummern.iter().all(|b| b.printed));
        assert_eq!(slice(&d, d.randnummern[1].start, d.randnummern[1].end), "2 Zweiter.\nII.");
        assert_eq!(slice(&d, d.randnummern[2].start, d.randnummern[2].end), "3 Dritter.\n17\nSiebzehn.");
    }

    #[test]
    fn unprinted_paragraphs_are_numbered_from_the_main_section() {
        let d = doc("Leitsatz\nSatz.\nTenor\nAbgewiesen.\nGründe\nI.\nEins.\nZwei.");
        assert_eq!(d.randnummern.len(), 2);
        assert!(!d.randnummern[0].printed);
        assert_eq!(slice(&d, d.randnummern[0].start, d.randnummern[0].end), "Eins.");
    }
}
