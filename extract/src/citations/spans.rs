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

use super::{CaseCitation, CaseKind, Extraction, LawUnit};

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
            let chars: Vec<char> = text.chars().collect();
            for l in &ex.laws {
                if l.book.is_none() {
                    continue;
                }
                // The whole list or `i.V.m.` chain the citation belongs to.
                let (cs, ce) = ex.chains.get(l.chain).map_or((l.start, l.end), |c| (c.start, c.end));
                // refex's gold marks statute citations, not the two forms that only name a section
                // as a subject: commentary references, where a margin note of the commentary on
                // that section follows (`Köhler/Bornkamm aaO § 5 UWG Rdn. 2.92`; the README's
                // "most commentary references" are not gold), and topic references after `zu`
                // (`vgl. zu § 4 Nr. 9 UWG BGH, Urt. …`, `die zu Art. 80 Abs. 1 GG entwickelten
                // Rechtsgrundsätze`, the same form as `AP Nr 1 zu § 74a HGB`).
                if commentary_note(&chars, ce) || after_zu(&chars, cs) {
                    continue;
                }
                let sign = matches!(text_at(text, l.start), Some('§'))
                    || (l.unit == LawUnit::Article && starts_with_art(text, l.start));
                if l.book_inherited && sign {
                    law(l.start, l.head_end, &mut out);
                } else if l.following.is_some() && !sign && l.book_raw.as_deref().is_some_and(|b| l.raw.starts_with(b))
                {
                    // Law-first with `ff` last: refex's gold leaves it out (`[HGB §§ 74] ff`).
                    let cut = l.raw.trim_end_matches('.').trim_end_matches('f').trim_end();
                    law(l.start, l.start + cut.chars().count(), &mut out);
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
                let loose =
                    matches!(c.reporter.as_deref(), Some("Buchholz" | "SozR" | "AP" | "EzA" | "LM" | "Slg." | "Slg"));
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
            // Literature (`Kleiber, ZfBR 1996, 131`) is not a case citation in LER.
            let mut cases: Vec<&CaseCitation> = ex.cases.iter().filter(|c| !c.literature).collect();
            cases.sort_by_key(|c| (c.start, c.end));
            let mut k = 0;
            while k < cases.len() {
                let (s, mut e) = (cases[k].start, cases[k].end);
                k += 1;
                loop {
                    e = pinpoints(&chars, e);
                    e = close_pinpoint(&chars, e);
                    if k < cases.len() && cases[k].start < e {
                        e = e.max(cases[k].end);
                        k += 1;
                        continue;
                    }
                    // The next citation joined by `,` `=` `-` `(`: a parallel citation of the same
                    // decision (a reporter, an ECLI), not the next decision (a file number).
                    let j = skip_joiners(&chars, e);
                    if k < cases.len()
                        && cases[k].start >= e
                        && cases[k].start <= j
                        && j > e
                        && matches!(cases[k].kind, CaseKind::Reporter | CaseKind::Ecli)
                    {
                        e = e.max(cases[k].end);
                        k += 1;
                        continue;
                    }
                    // Volume-only follow-ups of an official collection: `BVerfGE 8, 332 <343>; 46, 97`.
                    if k < cases.len()
                        && cases[k].kind == CaseKind::Reporter
                        && chars.get(cases[k].start).is_some_and(|c| c.is_ascii_digit())
                        && gap_is(&chars, e, cases[k].start, &[';', ' '])
                    {
                        e = e.max(cases[k].end);
                        k += 1;
                        continue;
                    }
                    // The case name: ` – Weinkaraffe`, ` - zu II 3 c der Gründe`.
                    let next = cases.get(k).map_or(usize::MAX, |c| c.start);
                    let n = case_name(&chars, e, next);
                    if n > e {
                        e = n;
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

/// A commentary's margin note right after code point `e`: ` Rdn. 2.92`, ` Rn. 4`, ` Rz 7`,
/// ` Anm. 3`.
fn commentary_note(c: &[char], e: usize) -> bool {
    let mut j = e;
    while j < c.len() && c[j] == ' ' && j < e + 2 {
        j += 1;
    }
    if j == e {
        return false;
    }
    let w0 = j;
    while j < c.len() && c[j].is_alphabetic() {
        j += 1;
    }
    let word: String = c[w0..j].iter().collect();
    if !matches!(word.as_str(), "Rn" | "Rdn" | "Rdnr" | "RdNr" | "Rz" | "Randnr" | "Randnummer" | "Anm") {
        return false;
    }
    if c.get(j) == Some(&'.') {
        j += 1;
    }
    while j < c.len() && c[j] == ' ' {
        j += 1;
    }
    c.get(j).is_some_and(|x| x.is_ascii_digit())
}

/// The word `zu` right before code point `s` (`zu § 4 UWG`).
fn after_zu(c: &[char], s: usize) -> bool {
    let mut j = s;
    while j > 0 && c[j - 1] == ' ' {
        j -= 1;
    }
    j < s && j >= 2 && c[j - 2..j] == ['z', 'u'] && (j == 2 || !c[j - 3].is_alphanumeric())
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
        if word == "juris" || word == "Juris" {
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

/// Only characters of `allowed` between `a` and `b`.
fn gap_is(c: &[char], a: usize, b: usize, allowed: &[char]) -> bool {
    a < b && b <= c.len() && c[a..b].iter().all(|x| allowed.contains(x)) && c[a..b].contains(&allowed[0])
}

/// The rest of an open pinpoint: ` f.>`, ` ff.)`, `>`.
fn close_pinpoint(c: &[char], e: usize) -> usize {
    let mut j = e;
    if c.get(j) == Some(&' ') && matches!(c.get(j + 1), Some('f')) {
        j += 2;
        if c.get(j) == Some(&'f') {
            j += 1;
        }
        if c.get(j) == Some(&'.') {
            j += 1;
        }
    }
    if j > e && matches!(c.get(j), Some('>' | ')')) {
        return j + 1;
    }
    if j == e && c.get(j) == Some(&'>') {
        return j + 1;
    }
    if j > e { j } else { e }
}

/// A case name or a location after ` – ` / ` - ` (`– Weinkaraffe`, `- zu II 3 c der Gründe`), up
/// to `;` `)` or the end of the sentence, and never into the next citation (`next`).
fn case_name(c: &[char], e: usize, next: usize) -> usize {
    if !(c.get(e) == Some(&' ') && matches!(c.get(e + 1), Some('–' | '-')) && c.get(e + 2) == Some(&' ')) {
        return e;
    }
    let s = e + 3;
    if !c.get(s).is_some_and(|x| x.is_alphabetic() || *x == '„' || *x == '"') {
        return e;
    }
    let mut j = s;
    let mut at_next = false;
    while j < c.len() && j < s + 90 && !matches!(c[j], ';' | ')' | '(' | '\n') {
        if j + 2 >= next {
            at_next = true;
            break;
        }
        j += 1;
    }
    if j >= s + 90 {
        return e;
    }
    // `- zu Art. 2 Abs. 2 GG` names a norm, not the case.
    if c[s..j].contains(&'§') || c[s..j].windows(3).any(|w| w == ['A', 'r', 't']) {
        return e;
    }
    // Do not swallow `, BAGE 108, 55`: stop before the comma that precedes the next citation.
    let mut end = j;
    if at_next {
        while end > s && c[end - 1] != ',' {
            end -= 1;
        }
        if end > s {
            end -= 1;
        } else {
            return e;
        }
    }
    while end > s && c[end - 1] == ' ' {
        end -= 1;
    }
    // A sentence end: `– Lego.` keeps its words, not the full stop.
    if end == c.len() || (end > s && c[end - 1] == '.' && end + 1 >= c.len()) {
        while end > s && c[end - 1] == '.' {
            end -= 1;
        }
    }
    if end > s { end } else { e }
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

#[cfg(test)]
mod tests {
    use super::{Convention, spans};
    use crate::citations::{LawVocabulary, extract};

    fn refex_texts(text: &str) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        spans(text, &extract(text, LawVocabulary::shipped()), Convention::Refex)
            .into_iter()
            .map(|s| chars[s.start..s.end].iter().collect())
            .collect()
    }

    #[test]
    fn refex_leaves_out_commentary_and_topic_references() {
        // Commentary: a margin note of the commentary follows the section.
        assert!(refex_texts("(Bornkamm in Köhler/Bornkamm aaO § 5 UWG Rdn. 2.92 und 6.6)").is_empty());
        assert!(refex_texts("(Köhler/Bornkamm, UWG, 28. Aufl., § 3 UWG Rn. 4)").is_empty());
        // Topic: `zu § …` names the subject, not a cited norm.
        let t = refex_texts("(vgl. zu § 4 Nr. 9 UWG BGH, Urt. v. 28.10.2004 - I ZR 326/01)");
        assert_eq!(t, ["BGH, Urt. v. 28.10.2004 - I ZR 326/01"]);
        assert!(refex_texts("am Maßstab der zu Art. 80 Abs. 1 GG entwickelten Grundsätze").is_empty());
        // Plain citations, and `zu` ending another word, stay.
        assert_eq!(refex_texts("nach § 5 UWG (Rn.23) und § 3 UWG."), ["§ 5 UWG", "§ 3 UWG"]);
        assert_eq!(refex_texts("Sie kam dazu § 5 UWG."), ["§ 5 UWG"]);
        // The extraction itself and the LER convention keep them.
        let text = "zu § 4 Nr. 9 UWG und § 5 UWG Rdn. 2";
        let e = extract(text, LawVocabulary::shipped());
        assert_eq!(e.laws.len(), 2);
        assert_eq!(spans(text, &e, Convention::Ler).len(), 2);
    }
}
