//! When does a checked text cite a law? The dates that date a law citation, for the checker's
//! rule that a law cannot be cited before its Ausfertigung (`predates_law`).
//!
//! Measured on the decision corpus, a date merely standing in the same sentence does not date
//! the citation: decisions apply today's law to documents and events of earlier years
//! (`Dokument 60 (Schreiben vom 9. Oktober 2002) … § 3 IFG`), cite older precedent next to it
//! (`vgl. BVerfG, Beschluss vom 24. Februar 1971`) and name directives by their date
//! (`Richtlinie 77/388/EWG vom 17. Mai 1977`). Over 120 corpus decisions written after the laws
//! they cite, that rule flagged 33 citations, most of them wrongly. So a citation is dated
//! only by the following (over 300 corpus decisions they flag 14 of about 15,000 law citations:
//! 7 in decisions older than the law, 7 naming an earlier version, a draft, or a decision that
//! applied the predecessor):
//!
//! 1. the text's reference date (when it was written);
//! 2. a date written on the law itself: `§ 26 des Telekommunikationsgesetzes vom 22. Juni 2004`,
//!    `§ 3 Abs. 1 BDSG in der Fassung der Bekanntmachung vom 14. Januar 2003`;
//! 3. the date of a cited decision it is attached to: `BVerwG, Urteil vom 1.3.2002 – 7 C 1.02 –
//!    zu § 3 IFG` (not `vgl. zu § 4 Nr. 9 UWG BGH, Urt. v. 21.7.2001`: precedent on a topic);
//! 4. the dates of its own clause (no `,` `;` `:` or parenthesis between date and citation, the
//!    latest if several): `Der Kläger beantragte am 1.3.2002 Zugang nach § 3 IFG.`
//!
//! Dates of another instrument (`Richtlinie … vom …`) and of cited decisions not attached to the
//! citation date nothing. All offsets are code points.

use extract::citations::{Extraction, LawCitation, StatedDate, stated_dates};

/// What dates a law citation (the `evidence.date_basis` of a `predates_law` finding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DateBasis {
    ReferenceDate,
    DateOfTheLawAsCited,
    CitedDecision,
    SameClause,
}

impl DateBasis {
    pub fn as_str(self) -> &'static str {
        match self {
            DateBasis::ReferenceDate => "reference_date",
            DateBasis::DateOfTheLawAsCited => "date_of_the_law_as_cited",
            DateBasis::CitedDecision => "cited_decision",
            DateBasis::SameClause => "same_clause",
        }
    }
}

/// What ends a clause for dating: a date beyond one of these is not the citation's own.
const CLAUSE_MARKS: [char; 7] = [',', ';', ':', '(', ')', '[', ']'];

/// The dates of one checked text and what they belong to.
#[derive(Default)]
pub struct TextDating {
    chars: Vec<char>,
    /// `clause_marks[i]`: how many of `, ; : ( ) [ ]` stand in `chars[..i]` (so whether a
    /// stretch holds one is two look-ups, not a copy of the stretch).
    clause_marks: Vec<u32>,
    dates: Vec<StatedDate>,
    sentence_ends: Vec<usize>,
    /// Dated case citations: (start, end, ISO date).
    decisions: Vec<(usize, usize, String)>,
    /// Every law citation and law name (an instrument a following `vom …` may belong to).
    instruments: Vec<(usize, usize)>,
    /// Law citations: (start, Normenkette index).
    law_chains: Vec<(usize, usize)>,
}

impl TextDating {
    pub fn new(text: &str, ex: &Extraction) -> TextDating {
        let mut instruments: Vec<(usize, usize)> = ex.laws.iter().map(|l| (l.start, l.end)).collect();
        instruments.extend(ex.law_names.iter().map(|n| (n.start, n.end)));
        let chars: Vec<char> = text.chars().collect();
        let mut clause_marks = Vec::with_capacity(chars.len() + 1);
        clause_marks.push(0u32);
        for c in &chars {
            let last = *clause_marks.last().expect("starts with 0");
            clause_marks.push(last + u32::from(CLAUSE_MARKS.contains(c)));
        }
        TextDating {
            chars,
            clause_marks,
            dates: stated_dates(text),
            sentence_ends: sentence_ends(text),
            decisions: ex.cases.iter().filter_map(|c| Some((c.start, c.end, c.date.clone()?))).collect(),
            instruments,
            law_chains: ex.laws.iter().map(|l| (l.start, l.chain)).collect(),
        }
    }

    /// Whether `chars[a..b]` holds a clause mark (none when the stretch is empty or runs past
    /// the text, as [`Self::gap`] reads it).
    fn marks_between(&self, a: usize, b: usize) -> bool {
        let b = b.max(a);
        b < self.clause_marks.len() && self.clause_marks[b] > self.clause_marks[a]
    }

    fn gap(&self, a: usize, b: usize) -> String {
        self.chars.get(a..b.max(a)).map(|s| s.iter().collect()).unwrap_or_default()
    }

    /// Whether date `d` is written on the instrument ending at `end` (`… vom 22. Juni 2004`,
    /// `… (BDSG) in der Fassung der Bekanntmachung vom …`, `… i.d.F. v. …`).
    fn written_on(&self, end: usize, d: &StatedDate) -> bool {
        if d.start < end || d.start - end > 80 {
            return false;
        }
        let gap: String =
            self.gap(end, d.start).chars().filter(|c| !c.is_whitespace()).collect::<String>().to_lowercase();
        let Some(rest) = gap.strip_suffix("vom").or_else(|| gap.strip_suffix("v.")) else { return false };
        // An EU act's author before its date: `Richtlinie 96/61/EG des Rates vom …`, `… des
        // Europäischen Parlaments und des Rates vom …`.
        // Line-break debris may stand in it (`des Eu- -6ropäischen Parlaments`).
        if let Some(author) = ["desrates", "desrats", "derkommission"].iter().find_map(|o| rest.strip_suffix(o)) {
            return author.is_empty() || (author.starts_with("des") && author.chars().count() <= 45);
        }
        // An abbreviation in parentheses or dashes after a spelled-out name: `(BDSG)`, `- BDSG -`.
        let rest = match rest.as_bytes().first() {
            Some(b'(') => rest.find(')').map_or(rest, |i| &rest[i + 1..]),
            Some(b'-') => rest[1..].find('-').map_or(rest, |i| &rest[i + 2..]),
            _ => rest,
        };
        matches!(
            rest.trim_start_matches(','),
            "" | "inderfassung"
                | "inderfassungderbekanntmachung"
                | "inderneufassung"
                | "inderneufassungderbekanntmachung"
                | "i.d.f."
                | "i.d.f.d.bek."
                | "i.d.f.derbek."
                | "idf"
                | "idfd.bek."
        )
    }

    fn sentence_of(&self, start: usize, end: usize) -> (usize, usize) {
        let from = self.sentence_ends.iter().rev().find(|&&e| e <= start).copied().unwrap_or(0);
        let to = self.sentence_ends.iter().find(|&&e| e >= end).copied().unwrap_or(usize::MAX);
        (from, to)
    }

    /// The date `l` is cited on as the text states it, with what states it: the earliest of the
    /// reference date, a date written on the law, the attached decision's date and the latest
    /// date of its clause.
    pub fn date_of(&self, l: &LawCitation, reference: Option<&str>) -> Option<(String, DateBasis)> {
        let mut found: Vec<(String, DateBasis)> = Vec::new();
        if let Some(r) = reference {
            found.push((r.to_string(), DateBasis::ReferenceDate));
        }
        // Inside the citation (the scanner reads `Gesetz … vom 4. Dezember 1995` as the name) or
        // written right after it.
        let on_the_law = |d: &&StatedDate| (d.start >= l.start && d.end <= l.end) || self.written_on(l.end, d);
        if let Some(d) = self.dates.iter().filter(|d| d.end > l.start).find(on_the_law) {
            found.push((d.iso.clone(), DateBasis::DateOfTheLawAsCited));
        }
        // `BVerwG, Urteil vom … – 7 C 1.02 – zu § 3 IFG`: the decision applied the law. Not the
        // other order (`vgl. zu § 4 Nr. 9 UWG BGH, Urt. v. 21.7.2001`): that cites precedent on a
        // topic, and precedent older than the provision is common (the corpus has it).
        let (from, to) = self.sentence_of(l.start, l.end);
        for (_, ce, iso) in &self.decisions {
            // Cheap tests first: the gap is built only for a decision ending at most 80 code
            // points before the citation, in its sentence (a text of many citations stays linear).
            if *ce > l.start || *ce < from || l.start - *ce > 80 {
                continue;
            }
            let gap = self.gap(*ce, l.start);
            // The `zu` belongs to the citation after it: no other Normenkette stands between.
            let other_law_between =
                self.law_chains.iter().any(|&(s, chain)| s >= *ce && s < l.start && chain != l.chain);
            let attached = !gap.contains(';')
                && !other_law_between
                && gap.split(|c: char| !c.is_alphabetic()).any(|w| matches!(w, "zu" | "zur" | "zum"));
            if attached {
                found.push((iso.clone(), DateBasis::CitedDecision));
            }
        }
        let own_clause = |d: &StatedDate| {
            if d.start < from || d.end > to {
                return false;
            }
            let marked =
                if d.end <= l.start { self.marks_between(d.end, l.start) } else { self.marks_between(l.end, d.start) };
            !marked
        };
        let of_other = |d: &StatedDate| {
            self.instruments.iter().any(|&(s, e)| (s, e) != (l.start, l.end) && self.written_on(e, d))
                || self.decisions.iter().any(|(cs, ce, _)| *cs <= d.start && d.end <= *ce)
        };
        if let Some(d) = self.dates.iter().filter(|d| own_clause(d) && !of_other(d)).map(|d| d.iso.clone()).max() {
            found.push((d, DateBasis::SameClause));
        }
        found.into_iter().min_by(|a, b| a.0.cmp(&b.0))
    }
}

/// Abbreviations of three letters or more that end with a stop inside a sentence.
const ABBREVIATIONS: &[&str] = &[
    "Abs", "Art", "Artt", "Urt", "Beschl", "Rdn", "Rdnr", "Anm", "Nrn", "Aufl", "Bek", "Ziff", "Buchst", "Hrsg",
    "Rspr", "Slg", "Kap", "Bsp", "Vorbem", "vgl", "Vgl", "bzw", "usw", "etc", "ggf", "sog", "gem", "insb", "evtl",
    "inkl", "zzgl", "abzgl", "entspr", "vorl", "Alt", "Var", "Halbs", "Unterabs", "Bearb", "Verf", "Az", "Gesch",
];

/// Code points where a sentence of `text` ends: after `.`, `!` or `?` followed by a space and a
/// capital or `§` (a Randnummer may stand between), unless the word before the stop is an
/// abbreviation (`vgl.`, `Abs.`, `Urt.`, `ff.`) or a number (`1. März`) other than a year; and
/// at every paragraph break. Errs towards longer sentences.
pub fn sentence_ends(text: &str) -> Vec<usize> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    for i in 0..c.len() {
        if c[i] == '\n' && c.get(i + 1) == Some(&'\n') {
            // A paragraph break ends a sentence, unless a stop just ended it.
            if out.last().is_none_or(|&e: &usize| c[e.min(i)..i].iter().any(|x| !x.is_whitespace())) {
                out.push(i);
            }
            continue;
        }
        if !matches!(c[i], '.' | '!' | '?') {
            continue;
        }
        let skip_space = |mut k: usize| {
            while k < c.len() && c[k].is_whitespace() {
                k += 1;
            }
            k
        };
        let mut k = skip_space(i + 1);
        if k == i + 1 {
            continue;
        }
        // `ist.\n43\nWie`: a Randnummer between two sentences.
        let digits = c[k..].iter().take_while(|x| x.is_ascii_digit()).count();
        if digits > 0 && c.get(k + digits).is_some_and(|x| x.is_whitespace()) {
            k = skip_space(k + digits);
        }
        if !c.get(k).is_some_and(|x| x.is_uppercase() || *x == '§') {
            continue;
        }
        // `Emissionen“.`: a closing quote or bracket before the stop belongs to the word.
        let mut w = i;
        while w > 0 && matches!(c[w - 1], '“' | '”' | '"' | '\'' | '’' | '»' | '«' | ']') {
            w -= 1;
        }
        let close = w;
        while w > 0 && c[w - 1].is_alphanumeric() {
            w -= 1;
        }
        let word = &c[w..close];
        let letters = word.iter().all(|x| x.is_alphabetic());
        let year = word.len() == 4 && word.iter().all(|x| x.is_ascii_digit());
        let all_caps = word.len() >= 2 && letters && word.iter().all(|x| x.is_uppercase());
        let abbreviation = ABBREVIATIONS.contains(&word.iter().collect::<String>().as_str());
        let a_word = letters && word.len() >= 3 && !abbreviation;
        if c[i] != '.' || a_word || all_caps || year || (i > 0 && c[i - 1] == ')') {
            out.push(i + 1);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use extract::citations::{LawVocabulary, extract};

    /// The sentences of `text` as strings, cut at [`sentence_ends`].
    fn sentences(text: &str) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        let mut out = Vec::new();
        let mut from = 0;
        for e in sentence_ends(text).into_iter().chain([chars.len()]) {
            out.push(chars[from..e].iter().collect::<String>().trim().to_string());
            from = e;
        }
        out
    }

    #[test]
    fn sentences_end_at_a_stop_before_a_capital_not_after_abbreviations_or_numbers() {
        assert_eq!(
            sentences("Der Antrag vom 1.3.2002 nach § 3 IFG. Vgl. BVerwG, Urt. v. 3. März 2005 (Az.) Die Klage."),
            ["Der Antrag vom 1.3.2002 nach § 3 IFG.", "Vgl. BVerwG, Urt. v. 3. März 2005 (Az.) Die Klage."]
        );
        assert_eq!(
            sentences("Er beantragte Zugang. Heute gilt § 3 IFG."),
            ["Er beantragte Zugang.", "Heute gilt § 3 IFG."]
        );
        assert_eq!(
            sentences("Nach Art. 229 § 5 EGBGB gilt das.\n\nNeuer Absatz"),
            ["Nach Art. 229 § 5 EGBGB gilt das.", "Neuer Absatz"]
        );
        assert_eq!(sentences("Verfügungen vom 12.05.1997. Von"), ["Verfügungen vom 12.05.1997.", "Von"]);
        assert_eq!(sentences("über „Emissionen“. In diesem"), ["über „Emissionen“.", "In diesem"]);
        assert_eq!(sentences("entstanden ist.\n43\nWie § 9 UIG"), ["entstanden ist.", "43\nWie § 9 UIG"]);
        // `i.V.m. Art.`, `Abs. 1`, `Nr. 3`, `1. März`: no ends.
        assert_eq!(
            sentences("§ 1 Abs. 1 i.V.m. Art. 3 GG am 1. März 2002 Nr. 3 S. 2"),
            ["§ 1 Abs. 1 i.V.m. Art. 3 GG am 1. März 2002 Nr. 3 S. 2"]
        );
    }

    /// The date the `i`-th law citation of `text` is cited on.
    fn dated_at(text: &str, i: usize) -> Option<(String, &'static str)> {
        let ex = extract(text, LawVocabulary::shipped());
        let l = ex.laws.get(i).expect("a law citation");
        TextDating::new(text, &ex).date_of(l, None).map(|(d, b)| (d, b.as_str()))
    }

    fn dated(text: &str) -> Option<(String, &'static str)> {
        dated_at(text, 0)
    }

    #[test]
    fn what_dates_a_law_citation() {
        let d = |iso: &str, basis: &'static str| Some((iso.to_string(), basis));
        assert_eq!(
            dated("Der Kläger beantragte am 1.3.2002 Zugang zu den Akten nach § 3 IFG."),
            d("2002-03-01", "same_clause")
        );
        assert_eq!(
            dated("§ 26 des Telekommunikationsgesetzes vom 22. Juni 2004 gilt."),
            d("2004-06-22", "date_of_the_law_as_cited")
        );
        assert_eq!(
            dated(
                "nach § 3 Abs. 1 des Bundesdatenschutzgesetzes (BDSG) in der Fassung der Bekanntmachung vom 14. Januar 2003"
            ),
            d("2003-01-14", "date_of_the_law_as_cited")
        );
        assert_eq!(
            dated("vgl. BVerwG, Urteil vom 1.3.2002 - 7 C 1.02 - zu § 3 IFG"),
            d("2002-03-01", "cited_decision")
        );
        // Precedent on a topic (`zu § … : Gericht, Urteil vom …`) does not date the provision.
        assert_eq!(dated("Vgl. zu § 4 Nr. 9 UWG BGH, Urt. v. 21.7.2001 - I ZR 40/99, GRUR 2002, 86"), None);
        assert_eq!(
            dated(
                "BVerwG, Urteil vom 25. März 1999 - 7 C 21.98 - (zu § 3 Abs. 2 UIG a.F.). Auch das in § 2 Abs. 3 UIG Gesagte."
            ),
            d("1999-03-25", "cited_decision"),
            "the first citation, attached"
        );
        assert_eq!(
            dated_at(
                "BVerwG, Urteil vom 25. März 1999 - 7 C 21.98 - (zu § 3 Abs. 2 UIG a.F.). Auch das in § 2 Abs. 3 UIG Gesagte.",
                1
            ),
            None,
            "the next sentence's citation"
        );
        // Not dated: a document's date in parentheses, older precedent after `vgl.`, a directive's
        // own date, a later date in the same clause.
        assert_eq!(
            dated("Für Dokument 60 (Schreiben vom 9. Oktober 2002) besteht der Ausschlussgrund des § 3 IFG nicht."),
            None
        );
        assert_eq!(
            dated("Der Schutz gilt nach § 5 IFG fort, vgl. BVerfG, Beschluss vom 24. Februar 1971 - 1 BvR 435/68 -."),
            None
        );
        assert_eq!(dated("§ 15 UStG beruht auf Art. 17 der Sechsten Richtlinie 77/388/EWG vom 17. Mai 1977."), None);
        assert_eq!(
            dated("§ 15 UStG beruht auf Art. 17 Abs. 2 der Sechsten Richtlinie 77/388/EWG des Rates vom 17. Mai 1977."),
            None
        );
        // A Randnummer line between two sentences.
        assert_eq!(
            dated(
                "in der er entstanden ist.\n43 Wie § 9 Abs. 1 Satz 2 UIG spricht auch § 8 UIG von „Emissionen“. In diesem \
                 Zusammenhang bezog sich der Gesetzgeber auf Art. 2 Nr. 5 der Richtlinie 96/61/EG des Rates vom 24. September 1996."
            ),
            None
        );
        assert_eq!(
            dated("Der Antrag vom 1.3.2002 wurde am 2. Februar 2006 nach § 3 IFG beschieden."),
            d("2006-02-02", "same_clause")
        );
    }
}
