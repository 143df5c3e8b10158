//! openJur crawl records kept as raw text because their JSON is invalid (an unescaped quote
//! inside a value). Each field sits on its own line (`"tenor": "…\n…",`), so a line-wise,
//! lenient read recovers the text fields and the metadata the dump record lacks.

use super::lines::RN_MARK;
use super::meta::{Extra, normal_spaces};
use super::{DocFlags, Rendered};
use crate::plain_text::PlainText;

/// Text fields in order → the heading we print.
const FIELDS: &[(&str, &str)] = &[
    ("leitsatz", "Leitsatz"),
    ("tenor", "Tenor"),
    ("tatbestand", "Tatbestand"),
    ("entscheidungsgruende", "Entscheidungsgründe"),
    ("gruende", "Gründe"),
];

/// `"key": "value",` → (key, raw value) on one line.
fn field(line: &str) -> Option<(&str, &str)> {
    let l = line.trim().strip_prefix('"')?;
    let (key, rest) = l.split_once("\":")?;
    let v = rest.trim().trim_end_matches(',').trim_end();
    let v = v.strip_prefix('"')?.strip_suffix('"')?;
    Some((key, v))
}

fn unescape(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    let mut it = v.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => {}
            Some(o) => out.push(o),
            None => {}
        }
    }
    out
}

/// Some((rendered, metadata)) when `s` is such a record.
pub(crate) fn render(s: &str) -> Option<(Rendered, Extra)> {
    let head = s.trim_start();
    if !head.starts_with('{') {
        return None;
    }
    let fields: Vec<(&str, &str)> = s.lines().filter_map(field).collect();
    if !fields.iter().any(|(k, _)| FIELDS.iter().any(|(f, _)| f == k)) {
        return None;
    }
    let get = |k: &str| fields.iter().find(|(f, _)| *f == k).map(|(_, v)| normal_spaces(&unescape(v)));
    let extra = Extra {
        file_number: get("aktenzeichen"),
        court: get("gericht"),
        date: get("datum"),
        doktyp: get("dokumenttyp"),
        ..Default::default()
    };
    let mut pt = PlainText::new();
    for (key, heading) in FIELDS {
        let Some((_, v)) = fields.iter().find(|(f, _)| f == key) else { continue };
        let v = unescape(v).replace(RN_MARK, "");
        if v.trim().is_empty() {
            continue;
        }
        pt.block_break();
        pt.text(heading);
        pt.block_break();
        for line in v.lines() {
            pt.text(line);
            pt.block_break();
        }
    }
    Some((Rendered { text: pt.finish(), flags: DocFlags::default() }, extra))
}
