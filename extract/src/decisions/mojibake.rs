//! Repairs for text that went through a wrong decoding, and the Python bytes-repr wrapper.
//!
//! - `b'<section…'`: an openJur crawl stored `repr(bytes)`; we undo the Python escapes.
//! - Double-encoded UTF-8 as character references: `Gr&#195;&#188;nde` is the two UTF-8 bytes of
//!   `ü` written as two references. A run of references 0x80–0xFF that forms a valid UTF-8
//!   sequence is replaced by that character; anything else is left alone.
//! - UTF-8 read as ISO-8859-1/Windows-1252 (`MÃ¼nchen`): only when such pairs occur at least
//!   [`MIN_LATIN1_PAIRS`] times, each valid sequence is re-decoded; a lone `Ã` stays.

use std::borrow::Cow;

const MIN_LATIN1_PAIRS: usize = 3;

/// `b'…'` / `b"…"` → the decoded bytes (UTF-8, lossy). None when `s` is not such a literal.
pub(crate) fn python_bytes_repr(s: &str) -> Option<String> {
    let s = s.trim_end();
    let quote = if s.starts_with("b'") {
        '\''
    } else if s.starts_with("b\"") {
        '"'
    } else {
        return None;
    };
    let inner = s[2..].strip_suffix(quote).unwrap_or(&s[2..]);
    let mut bytes = Vec::with_capacity(inner.len());
    let mut it = inner.char_indices().peekable();
    let b = inner.as_bytes();
    while let Some((i, c)) = it.next() {
        if c != '\\' {
            let mut buf = [0u8; 4];
            bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        match it.next() {
            Some((_, 'n')) => bytes.push(b'\n'),
            Some((_, 'r')) => bytes.push(b'\r'),
            Some((_, 't')) => bytes.push(b'\t'),
            Some((_, '\\')) => bytes.push(b'\\'),
            Some((_, '\'')) => bytes.push(b'\''),
            Some((_, '"')) => bytes.push(b'"'),
            Some((_, 'x')) if i + 4 <= b.len() => {
                let hex = std::str::from_utf8(&b[i + 2..i + 4]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(v) => {
                        bytes.push(v);
                        it.next();
                        it.next();
                    }
                    None => bytes.extend_from_slice(b"\\x"),
                }
            }
            Some((_, o)) => {
                bytes.push(b'\\');
                let mut buf = [0u8; 4];
                bytes.extend_from_slice(o.encode_utf8(&mut buf).as_bytes());
            }
            None => bytes.push(b'\\'),
        }
    }
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Parses `&#NNN;` / `&#xHH;` at the start of `s` → (value, length).
fn numeric_ref(s: &[u8]) -> Option<(u32, usize)> {
    if s.len() < 4 || s[0] != b'&' || s[1] != b'#' {
        return None;
    }
    let (hex, mut i) = if s[2] == b'x' || s[2] == b'X' { (true, 3) } else { (false, 2) };
    let start = i;
    let mut v: u32 = 0;
    while i < s.len() && i - start < 7 {
        let d = match s[i] {
            c @ b'0'..=b'9' => (c - b'0') as u32,
            c @ b'a'..=b'f' if hex => (c - b'a' + 10) as u32,
            c @ b'A'..=b'F' if hex => (c - b'A' + 10) as u32,
            _ => break,
        };
        v = v * if hex { 16 } else { 10 } + d;
        i += 1;
    }
    if i == start || i >= s.len() || s[i] != b';' {
        return None;
    }
    Some((v, i + 1))
}

fn utf8_len(lead: u8) -> usize {
    match lead {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => 0,
    }
}

/// Replaces runs of byte-valued character references that form UTF-8 by the characters.
pub(crate) fn repair_entity_mojibake(html: &str) -> (Cow<'_, str>, bool) {
    if !html.contains("&#") {
        return (Cow::Borrowed(html), false);
    }
    let b = html.as_bytes();
    let mut out = String::with_capacity(html.len());
    let mut copied = 0;
    let mut repaired = 0usize;
    let mut i = 0;
    while let Some(off) = memchr_amp(&b[i..]) {
        i += off;
        let Some((lead, l0)) = numeric_ref(&b[i..]) else {
            i += 1;
            continue;
        };
        let need = if lead <= 0xFF { utf8_len(lead as u8) } else { 0 };
        if need == 0 {
            i += l0;
            continue;
        }
        let mut bytes = vec![lead as u8];
        let mut j = i + l0;
        while bytes.len() < need {
            match numeric_ref(&b[j..]) {
                Some((v, l)) if (0x80..=0xBF).contains(&v) => {
                    bytes.push(v as u8);
                    j += l;
                }
                _ => break,
            }
        }
        if bytes.len() == need
            && let Ok(s) = std::str::from_utf8(&bytes)
        {
            out.push_str(&html[copied..i]);
            out.push_str(s);
            copied = j;
            repaired += 1;
            i = j;
        } else {
            i += l0;
        }
    }
    if repaired == 0 {
        return (Cow::Borrowed(html), false);
    }
    out.push_str(&html[copied..]);
    (Cow::Owned(out), true)
}

fn memchr_amp(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'&')
}

/// The byte a character stood for when UTF-8 was decoded as ISO-8859-1 or Windows-1252.
fn as_byte(c: char) -> Option<u8> {
    let v = c as u32;
    if v <= 0xFF {
        return Some(v as u8);
    }
    Some(match c {
        '€' => 0x80,
        '‚' => 0x82,
        'ƒ' => 0x83,
        '„' => 0x84,
        '…' => 0x85,
        '†' => 0x86,
        '‡' => 0x87,
        'ˆ' => 0x88,
        '‰' => 0x89,
        'Š' => 0x8A,
        '‹' => 0x8B,
        'Œ' => 0x8C,
        'Ž' => 0x8E,
        '‘' => 0x91,
        '’' => 0x92,
        '“' => 0x93,
        '”' => 0x94,
        '•' => 0x95,
        '–' => 0x96,
        '—' => 0x97,
        '˜' => 0x98,
        '™' => 0x99,
        'š' => 0x9A,
        '›' => 0x9B,
        'œ' => 0x9C,
        'ž' => 0x9E,
        'Ÿ' => 0x9F,
        _ => return None,
    })
}

/// Re-decodes UTF-8 that was read as ISO-8859-1/Windows-1252, when it clearly was.
pub(crate) fn repair_latin1_mojibake(s: &str) -> (Cow<'_, str>, bool) {
    let pairs = count_latin1_pairs(s, MIN_LATIN1_PAIRS);
    if pairs < MIN_LATIN1_PAIRS {
        return (Cow::Borrowed(s), false);
    }
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let need = as_byte(c).map(utf8_len).unwrap_or(0);
        if need > 0 && i + need <= chars.len() {
            let mut bytes = Vec::with_capacity(need);
            bytes.push(as_byte(c).unwrap_or(0));
            for &d in &chars[i + 1..i + need] {
                match as_byte(d) {
                    Some(v) if (0x80..=0xBF).contains(&v) => bytes.push(v),
                    _ => break,
                }
            }
            if bytes.len() == need
                && let Ok(t) = std::str::from_utf8(&bytes)
            {
                out.push_str(t);
                i += need;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    (Cow::Owned(out), true)
}

/// Counts `Ã¼`-like pairs (a UTF-8 lead byte as Latin-1 followed by a continuation byte), up to
/// `enough`.
fn count_latin1_pairs(s: &str, enough: usize) -> usize {
    let mut n = 0;
    let mut prev_lead = false;
    for c in s.chars() {
        let b = as_byte(c);
        if prev_lead && b.is_some_and(|v| (0x80..=0xBF).contains(&v)) {
            n += 1;
            if n >= enough {
                return n;
            }
        }
        prev_lead = matches!(c, 'Ã' | 'Â' | 'â');
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_bytes_literal_is_unescaped() {
        assert_eq!(python_bytes_repr(r"b'<p>a\r\n\tb \'c\' \xc3\xbc</p>'").unwrap(), "<p>a\r\n\tb 'c' ü</p>");
        assert!(python_bytes_repr("<p>b'</p>").is_none());
    }

    #[test]
    fn entity_mojibake_is_repaired_and_other_references_stay() {
        let (s, r) = repair_entity_mojibake("Gr&#195;&#188;nde &#226;&#128;&#147; &#252; &amp; &#195;x");
        assert!(r);
        assert_eq!(s, "Gründe – &#252; &amp; &#195;x");
        let (s, r) = repair_entity_mojibake("&#252;ber");
        assert!(!r);
        assert_eq!(s, "&#252;ber");
    }

    #[test]
    fn latin1_mojibake_is_repaired_only_when_clear() {
        let (s, r) = repair_latin1_mojibake("MÃ¼nchen, GeschÃ¤ftswert, auÃ\u{9f}erhalb, Â§ 894");
        assert!(r);
        assert_eq!(s, "München, Geschäftswert, außerhalb, § 894");
        let (s, r) = repair_latin1_mojibake("Ã¼ber alles");
        assert!(!r);
        assert_eq!(s, "Ã¼ber alles");
    }
}
