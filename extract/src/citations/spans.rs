//! Benchmark conventions: turn an [`Extraction`] into the flat, non-overlapping span list that a
//! gold set of a given convention marks (see `../shared/benchmarks/README.md`).
//!
//! - [`Convention::Refex`]: one span per `§` with the law on the last; a list member that is not
//!   the last and starts with `§` is cut after its number (`[§§ 92] Abs. 1, [97 Abs. 1], [269 Abs.
//!   3 ZPO]`); case spans from the court (if written) through the file number, each reporter its
//!   own span; sections inside loose-leaf reporters and bare law names (except EU directives) are
//!   not marked.
//! - [`Convention::Ler`]: one span per law name (a list or `i.V.m.` chain up to the law that
//!   names it), bare law names included, `a.F.` inside; a case span is the whole citation —
//!   court, kind, date, file number, parallel reporters and pinpoints (`Rn.`, `juris`).

use serde::{Deserialize, Serialize};

use super::{CaseKind, Extraction, LawUnit};

/// Which gold set's conventions to emit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Convention {
    Refex,
    Ler,
}

/// One predicted span (code points, end exclusive) in the scorer's format.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    #[serde(rename = "type")]
    pub kind: String,
}

/// The spans of `ex` (extracted from `text`) in the given convention, sorted, non-overlapping.
pub fn spans(text: &str, ex: &Extraction, conv: Convention) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::new();
    let law = |s: usize, e: usize, out: &mut Vec<Span>| {
        if e > s {
            out.push(Span { start: s, end: e, kind: "law".into() });
        }
    };
    match conv {
        Convention::Refex => {
            for l in &ex.laws {
                if l.book.is_none() {
                    continue;
                }
                let sign = matches!(text_at(text, l.start), Some('§'))
                    || (l.unit == LawUnit::Article && starts_with_art(text, l.start));
                if l.book_inherited && sign {
                    law(l.start, l.head_end, &mut out);
                } else {
                    law(l.start, l.end, &mut out);
                }
            }
            for n in &ex.law_names {
                if n.book.starts_with("RL ") {
                    law(n.start, n.end, &mut out);
                }
            }
            for c in &ex.cases {
                let loose = matches!(c.reporter.as_deref(), Some("Buchholz" | "SozR" | "AP" | "EzA" | "Slg." | "Slg"));
                if loose {
                    continue;
                }
                let (s, e) = match (c.kind, c.court_span, c.file_number_span) {
                    (CaseKind::FileNumber | CaseKind::EuCase, Some((cs, _)), Some((_, fe))) => (cs, fe),
                    (CaseKind::FileNumber | CaseKind::EuCase, None, Some((fs, fe))) => (fs, fe),
                    (CaseKind::Reporter, Some((cs, _)), _) => (cs, c.end),
                    _ => (c.start, c.end),
                };
                out.push(Span { start: s, end: e, kind: "case".into() });
                // refex's gold marks a margin pinpoint right after a reporter (`GRUR 2009, 881
                // Tz. 11`) as a case span of its own.
                if c.kind == CaseKind::Reporter
                    && let Some((ps, pe)) = margin_pinpoint(text, c.end)
                {
                    out.push(Span { start: ps, end: pe, kind: "case".into() });
                }
            }
        }
        Convention::Ler => {
            for ch in &ex.chains {
                let mut run_start: Option<usize> = None;
                for &m in &ch.members {
                    let Some(l) = ex.laws.get(m) else { continue };
                    if l.book.is_none() {
                        run_start = None;
                        continue;
                    }
                    let s = *run_start.get_or_insert(l.start);
                    if !l.book_inherited {
                        law(s, l.end, &mut out);
                        run_start = None;
                    }
                }
            }
            for n in &ex.law_names {
                law(n.start, n.end, &mut out);
            }
            let chars: Vec<char> = text.chars().collect();
            let mut cases: Vec<(usize, usize)> = ex.cases.iter().map(|c| (c.start, c.end)).collect();
            cases.sort();
            let mut k = 0;
            while k < cases.len() {
                let (s, mut e) = cases[k];
                k += 1;
                loop {
                    e = pinpoints(&chars, e);
                    // The next citation joined by `,` `=` `-`: a parallel citation of the same decision.
                    let j = skip_joiners(&chars, e);
                    if k < cases.len() && cases[k].0 >= e && cases[k].0 <= j && j > e {
                        e = e.max(cases[k].1);
                        k += 1;
                        continue;
                    }
                    if k < cases.len() && cases[k].0 < e {
                        e = e.max(cases[k].1);
                        k += 1;
                        continue;
                    }
                    break;
                }
                out.push(Span { start: s, end: e, kind: "case".into() });
            }
        }
    }
    out.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
    let mut res: Vec<Span> = Vec::with_capacity(out.len());
    for s in out {
        if res.last().is_some_and(|p| s.start < p.end) {
            continue;
        }
        res.push(s);
    }
    res
}

/// ` Tz. 11`, ` Rz 25`, ` RdNr 28` directly after code point `e` → its span.
fn margin_pinpoint(text: &str, e: usize) -> Option<(usize, usize)> {
    let rest: Vec<char> = text.chars().skip(e).take(16).collect();
    if rest.first() != Some(&' ') {
        return None;
    }
    let word: String = rest[1..].iter().take_while(|c| c.is_alphabetic()).collect();
    if !matches!(word.as_str(), "Tz" | "Rz" | "RdNr") {
        return None;
    }
    let mut k = 1 + word.chars().count();
    if rest.get(k) == Some(&'.') {
        k += 1;
    }
    if rest.get(k) == Some(&' ') {
        k += 1;
    }
    let d0 = k;
    while rest.get(k).is_some_and(|c| c.is_ascii_digit()) {
        k += 1;
    }
    (k > d0).then_some((e + 1, e + k))
}

fn text_at(text: &str, cp: usize) -> Option<char> {
    text.chars().nth(cp)
}

fn starts_with_art(text: &str, cp: usize) -> bool {
    text.chars().skip(cp).take(3).eq("Art".chars())
}

/// After a case citation at `e`: pinpoints and source notes LER keeps inside (`, Rn. 12`,
/// ` - Rn. 3`, `, juris`, `, RdNr 7`, `Tz. 11`, `, S. 5`, ` f.`).
fn pinpoints(c: &[char], mut e: usize) -> usize {
    loop {
        let mut j = e;
        while j < c.len() && matches!(c[j], ' ' | ',' | '-' | '–') && j < e + 4 {
            j += 1;
        }
        let w0 = j;
        while j < c.len() && c[j].is_alphabetic() {
            j += 1;
        }
        let word: String = c[w0..j].iter().collect();
        let numbered = matches!(word.as_str(), "Rn" | "Rz" | "RdNr" | "Tz" | "Randnr" | "Randnummer" | "Nr" | "S");
        if word == "juris" {
            e = j;
            continue;
        }
        if word == "f" || word == "ff" {
            if j < c.len() && c[j] == '.' {
                j += 1;
            }
            if w0 > e && c[w0 - 1] == ' ' && !c[e..w0].contains(&',') {
                e = j;
                continue;
            }
            return e;
        }
        if !numbered {
            return e;
        }
        if j < c.len() && c[j] == '.' {
            j += 1;
        }
        while j < c.len() && c[j] == ' ' {
            j += 1;
        }
        let n0 = j;
        while j < c.len() && (c[j].is_ascii_digit() || c[j] == '.') {
            j += 1;
        }
        if j == n0 {
            return e;
        }
        // Lists: `Rn. 30, 31`, `Rn. 24 f.`
        loop {
            let mut k = j;
            while k < c.len() && matches!(c[k], ',' | ' ' | '-' | '–') && k < j + 3 {
                k += 1;
            }
            let d0 = k;
            while k < c.len() && c[k].is_ascii_digit() {
                k += 1;
            }
            if k > d0 && !(k < c.len() && c[k] == '/') {
                j = k;
            } else {
                break;
            }
        }
        while j > n0 && c[j - 1] == '.' {
            j -= 1;
        }
        e = j;
    }
}

/// Skips `, ` `; `? (no) ` = ` ` - ` between parallel citations; returns where the next may start.
fn skip_joiners(c: &[char], e: usize) -> usize {
    let mut j = e;
    let mut seen = false;
    while j < c.len() && j < e + 5 {
        match c[j] {
            ' ' => {}
            ',' | '=' | '-' | '–' => seen = true,
            '(' if seen || j == e || c[j - 1] == ' ' => seen = true,
            _ => break,
        }
        j += 1;
    }
    if seen || j > e { j } else { e }
}
