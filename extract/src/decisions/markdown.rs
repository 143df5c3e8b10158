//! OLDP legacy markdown (the BGH fixtures): `## Tenor` headings, `12| …` Randnummern,
//! `| I.` / `:| II.` outline and signature lines, `\.` escapes. Every source line is its own
//! paragraph, as the OLDP writer emitted it.

use super::lines::RN_MARK;
use super::{DocFlags, Rendered};
use crate::plain_text::PlainText;

/// True when several lines look like OLDP markdown (`## ` headings or `N| ` Randnummern).
pub(crate) fn looks_like_oldp_markdown(s: &str) -> bool {
    let mut hits = 0;
    for line in s.lines().take(400) {
        if line.starts_with("## ") || rn_prefix(line).is_some() {
            hits += 1;
        }
    }
    hits >= 2
}

/// `12| text` → (12, "text").
fn rn_prefix(line: &str) -> Option<(u32, &str)> {
    let (num, rest) = line.split_once("| ")?;
    if num.is_empty() || num.len() > 5 || !num.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((num.parse().ok()?, rest))
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\\'
            && let Some(&n) = it.peek()
            && n.is_ascii_punctuation()
        {
            out.push(n);
            it.next();
            continue;
        }
        out.push(c);
    }
    out
}

pub(crate) fn render(s: &str) -> Rendered {
    let mut pt = PlainText::new();
    for line in s.lines() {
        let line = line.trim_end();
        if let Some(h) = line.strip_prefix('#') {
            pt.block_break();
            pt.text(&unescape(h.trim_start_matches('#')));
        } else if let Some((n, rest)) = rn_prefix(line) {
            pt.block_break();
            pt.text(&format!("{RN_MARK}{n}"));
            pt.block_break();
            pt.text(&unescape(rest));
        } else if let Some(rest) = line.strip_prefix(":|").or_else(|| line.strip_prefix('|')) {
            pt.block_break();
            pt.text(&unescape(rest));
        } else {
            pt.block_break();
            pt.text(&unescape(line));
        }
        pt.block_break();
    }
    Rendered { text: pt.finish(), flags: DocFlags::default() }
}
