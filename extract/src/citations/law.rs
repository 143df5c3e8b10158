//! Law citations: `§`/`Art.` groups with their structure (Abs., Satz, Nr., lit., Alt., Halbs.,
//! f./ff.), lists and ranges, `i.V.m.` chains, the law book after (or, law-first, before) the
//! group, spelled-out names, EU acts, bare law names, and the contract-clause look-alikes that
//! are refused.
//!
//! Grammar walked from a `§`/`Art` trigger (every step a few tokens, nothing backtracks further
//! than one member):
//! ```text
//! chain  := group (IVM group)*
//! group  := ('§' | '§§' | 'Art.' | 'Artikel') member (sep member)* [book [year] [version]]
//! member := ['§'] NUM[letter] qualifier*      qualifier := Abs. v | Satz v | Nr. v | lit. x | …
//! sep    := ',' | 'und' | 'oder' | 'sowie' | 'bis' | '-'
//! ```

use super::land::{LandTable, StateLaw};
use super::scan::Kind;
use super::vocab::{BookMatch, FormKind, stem};
use super::{Connector, LawCitation, LawName, LawUnit, Normenkette, RefusalReason, RefusedLookalike, Sc};

/// One member while parsing (byte offsets).
#[derive(Default, Clone)]
struct Member {
    start: usize,
    head_end: usize,
    end: usize,
    article: bool,
    section: String,
    absatz: Option<String>,
    satz: Option<String>,
    nr: Option<String>,
    lit: Option<String>,
    alt: Option<String>,
    halbsatz: Option<String>,
    following: Option<String>,
    connector: Option<Connector>,
    /// The article number of an `Art. 229 § 5` compound (`229`; `section` is then `229 § 5`):
    /// later `§` members of the same list belong to that article.
    compound_article: Option<String>,
    /// Set on the member that carries the book: (canonical, raw start, raw end, known).
    book: Option<Book>,
    version: Option<String>,
}

#[derive(Clone)]
pub(crate) struct Book {
    canonical: String,
    start: usize,
    end: usize,
    known: bool,
    /// The book is Land law (see [`Sc::book`]); `canonical` is then the instrument as written.
    state_law: Option<StateLaw>,
}

/// Abbreviations and words of contracts, collective agreements and terms that look like a law
/// book after `§` but are not statutes.
fn contract_lookalike(w: &str) -> bool {
    // Collective agreements: `TVöD`, `BBTV`, `MTV`, `TV-L`.
    (w.len() >= 2 && (w.starts_with("TV") && !w.starts_with("TVG") || w.ends_with("TV")) && w != "TVG")
        || matches!(
            w,
            "MV" | "TV"
                | "TVöD"
                | "TV-L"
                | "TV-V"
                | "TVÜ"
                | "BAT"
                | "MTV"
                | "AGB"
                | "AVB"
                | "ARB"
                | "AUB"
                | "AKB"
                | "VVaG"
                | "GV"
                | "KV"
                | "AV"
                | "DV"
                | "BV"
                | "GesV"
                | "PV"
        )
        || {
            let s = stem(w);
            matches!(
                s,
                "Mietvertrag"
                    | "Mietvertrags"
                    | "Arbeitsvertrag"
                    | "Arbeitsvertrags"
                    | "Vertrag"
                    | "Vertrags"
                    | "Tarifvertrag"
                    | "Tarifvertrags"
                    | "Gesellschaftsvertrag"
                    | "Gesellschaftsvertrags"
                    | "Kaufvertrag"
                    | "Kaufvertrags"
                    | "Satzung"
                    | "Vereinbarung"
                    | "Dienstvereinbarung"
                    | "Betriebsvereinbarung"
                    | "Geschäftsbedingung"
                    | "Versicherungsbedingung"
                    | "Manteltarifvertrag"
                    | "Manteltarifvertrags"
            )
        }
}

/// A Roman Absatz number (`I` … `XII`) → its value.
fn roman_value(w: &str) -> Option<u32> {
    const R: [&str; 12] = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"];
    if w.is_empty() || w.len() > 4 || !w.bytes().all(|c| matches!(c, b'I' | b'V' | b'X')) {
        return None;
    }
    R.iter().position(|r| *r == w).map(|p| p as u32 + 1)
}

/// Court abbreviations that must never be read as a law book.
pub(crate) fn is_court_abbrev(w: &str) -> bool {
    matches!(
        w,
        "BGH"
            | "BVerfG"
            | "BVerwG"
            | "BFH"
            | "BAG"
            | "BSG"
            | "BPatG"
            | "EuGH"
            | "EuG"
            | "EGMR"
            | "RG"
            | "OLG"
            | "LG"
            | "AG"
            | "KG"
            | "VG"
            | "OVG"
            | "VGH"
            | "LSG"
            | "SG"
            | "LAG"
            | "ArbG"
            | "FG"
            | "BayObLG"
            | "BayVGH"
            | "VerfGH"
            | "StGH"
            | "GmSOGB"
            | "RAG"
            | "BVerfGE"
            | "BGHZ"
    )
}

/// A word of a spelled-out law that the vocabulary lacks (`Sozialversicherungs-Rechengrößenverordnung`,
/// `Anhörungsrügengesetzes`); `strict` excludes `…ordnung` (too many non-laws: `Rechtsordnung`).
pub(crate) fn law_like_word(w: &str, strict: bool) -> bool {
    // Cheap reject first: every accepted word is long and ends in z, h, g, n or a case ending.
    if w.len() < 6 || !matches!(w.as_bytes()[w.len() - 1], b'z' | b'h' | b'g' | b's' | b'n' | b'e') {
        return false;
    }
    if !w.as_bytes()[0].is_ascii_uppercase() && !w.starts_with(['Ä', 'Ö', 'Ü']) {
        return false;
    }
    let s = stem(w);
    let sb = s.as_bytes();
    let ends = |e: &str| sb.len() >= e.len() && &sb[sb.len() - e.len()..] == e.as_bytes();
    let law_end = match sb[sb.len() - 1] {
        b'z' => ends("gesetz"),
        b'h' => ends("gesetzbuch"),
        b'g' => ends("verordnung") || ends("verfassung") || (!strict && ends("ordnung")),
        b'n' => ends("konvention"),
        _ => false,
    };
    // Words with such an ending that name no particular law.
    law_end
        && !matches!(
            s,
            "Gesetz"
                | "Gesetzbuch"
                | "Verordnung"
                | "Ordnung"
                | "Bundesgesetz"
                | "Landesgesetz"
                | "Änderungsgesetz"
                | "Rechtsordnung"
                | "Grundordnung"
                | "Geschäftsordnung"
                | "Hausordnung"
                | "Rechtsverordnung"
                | "Einzelgesetz"
                | "Fachgesetz"
                | "Spezialgesetz"
                | "Ausführungsgesetz"
                | "Parlamentsgesetz"
                | "Haushaltsgesetz"
                | "Vertragsgesetz"
                | "Zustimmungsgesetz"
                | "Artikelgesetz"
                | "Verordnungen"
                | "Strafgesetz"
                | "Denkgesetz"
                | "Naturgesetz"
                | "Verfassung"
                | "Konvention"
                | "Landesverfassung"
                | "Bundesverfassung"
                | "Änderungsverordnung"
        )
}

impl<'a> Sc<'a> {
    /// Law-first form `HGB § 59`, `GG Art 80 Abs 1`: a book directly before `§`/`Art NUM`.
    pub(super) fn law_first_at(&mut self, i: usize, b: BookMatch) -> Option<usize> {
        if b.kind == FormKind::Title || is_court_abbrev(self.s(i)) {
            return None;
        }
        // `IFG Bln § 3`: the Land mark belongs to the book.
        let j = self.land_after(b.end_tok);
        if !self.same_line(j) {
            return None;
        }
        let starts_group =
            self.kind(j) == Some(Kind::Para) || (matches!(self.s(j), "Art" | "Artikel") && self.unit_at(j).is_some());
        if !starts_group {
            return None;
        }
        let book = self.book(b.canonical.to_string(), i, j, true);
        self.law_at(j, Some(book))
    }

    /// The index of the token starting at byte `b` (binary search; `b` is a token start).
    fn tok_at(&self, b: usize) -> usize {
        self.t.partition_point(|t| (t.start as usize) < b)
    }

    /// `§`, `§§`, `Art.`, `Artikel` at `i`: returns (article, index of the first number).
    fn unit_at(&self, i: usize) -> Option<(bool, usize)> {
        if self.kind(i) == Some(Kind::Para) {
            let mut j = i + 1;
            while self.kind(j) == Some(Kind::Para) && j < i + 3 {
                j += 1;
            }
            return self.is_num(j).then_some((false, j));
        }
        let j = match self.s(i) {
            "Art" | "Artt" => {
                if self.s(i + 1) == "." && self.adj(i + 1) {
                    i + 2
                } else {
                    i + 1
                }
            }
            "Artikel" => i + 1,
            _ => return None,
        };
        (self.is_num(j) && self.same_line(j)).then_some((true, j))
    }

    /// A chain of `§`/`Art` groups at `i` (`preset`: the book of a law-first form).
    pub(super) fn law_at(&mut self, i: usize, preset: Option<Book>) -> Option<usize> {
        let (article, _) = self.unit_at(i)?;
        let mut members: Vec<Member> = Vec::new();
        let mut refused = false;
        let mut j = i;
        let mut connector = Connector::None;
        loop {
            let before = members.len();
            let Some(nj) = self.group(j, &mut members, connector) else { break };
            j = nj;
            if members.len() == before {
                break;
            }
            // The book of this group.
            if let Some(ref pb) = preset {
                if let Some(last) = members.last_mut() {
                    last.book = Some(pb.clone());
                }
                if let Some(m) = members.first_mut() {
                    m.start = pb.start;
                }
            } else {
                match self.book_after(j, members.last().is_some_and(|m| m.article)) {
                    BookAfter::Book(book, nj) => {
                        j = nj;
                        let (v, nj) = self.version_at(j);
                        let vend = self.end_before(nj);
                        j = nj;
                        if let Some(last) = members.last_mut() {
                            last.end = book.end.max(last.end);
                            if let Some(v) = v {
                                // `a.F.` belongs to the citation: it says which text is meant.
                                last.version = Some(v);
                                last.end = vend;
                            }
                            last.book = Some(book);
                        }
                    }
                    BookAfter::Refused(end, nj) => {
                        let start = members[before].start;
                        self.out.refused.push(RefusedLookalike {
                            start,
                            end,
                            raw: String::new(),
                            reason: RefusalReason::ContractClause,
                        });
                        members.truncate(before);
                        refused = true;
                        j = nj;
                        break;
                    }
                    BookAfter::None => {}
                }
            }
            // `§§ 167 VwGO, 708 Nr. 11, 711 ZPO`: a plural list goes on after its first book.
            if preset.is_none()
                && self.s(j) == ","
                && self.is_num(j + 1)
                && members.last().is_some_and(|m| m.book.is_some())
                && members.first().is_some_and(|m| self.kind(self.tok_at(m.start) + 1) == Some(Kind::Para))
            {
                let mut probe = Member::default();
                if let Some(after) = self.section(j + 1, &mut probe) {
                    let after = self.qualifiers(after, &mut probe, true);
                    if matches!(self.book_after(after, false), BookAfter::Book(..)) || self.s(after) == "," {
                        j += 1;
                        connector = Connector::List;
                        continue;
                    }
                }
            }
            // `i.V.m.` → another group (or a qualifier of the same section) follows.
            let Some(nj) = self.ivm_at(j) else { break };
            if self.unit_at(nj).is_some() {
                j = nj;
                connector = Connector::InVerbindungMit;
                continue;
            }
            if let Some(prev) = members.last().cloned()
                && self.qualifier_kw(nj).is_some()
            {
                let mut m = Member {
                    start: self.start_of(nj),
                    head_end: self.start_of(nj),
                    end: self.start_of(nj),
                    article: prev.article,
                    section: prev.section.clone(),
                    compound_article: prev.compound_article.clone(),
                    connector: Some(Connector::InVerbindungMit),
                    ..Default::default()
                };
                let after = self.qualifiers(nj, &mut m, false);
                if after > nj {
                    members.push(m);
                    j = after;
                    if let BookAfter::Book(book, nj2) = self.book_after(j, article) {
                        j = nj2;
                        if let Some(last) = members.last_mut() {
                            last.end = book.end;
                            last.book = Some(book);
                        }
                    }
                    if let Some(nj3) = self.ivm_at(j)
                        && self.unit_at(nj3).is_some()
                    {
                        j = nj3;
                        connector = Connector::InVerbindungMit;
                        continue;
                    }
                }
            }
            break;
        }
        if members.is_empty() {
            return refused.then_some(j);
        }
        self.emit_chain(members);
        Some(j)
    }

    /// One group at `i` (a `§`/`Art` and its list); pushes members, returns the index after.
    fn group(&self, i: usize, members: &mut Vec<Member>, first_conn: Connector) -> Option<usize> {
        // A group normally starts at its `§`/`Art`; after a book, a bare number continues the
        // list with the next book (`§§ 167 VwGO, 708 Nr. 11, 711 ZPO`).
        let (article, mut j, cont) = match self.unit_at(i) {
            Some((a, j)) => (a, j, false),
            None if self.is_num(i) => (members.last()?.article, i, true),
            None => return None,
        };
        // After `§§` a bare `und 2` is the next section, not the next Absatz.
        let mut plural = cont || self.kind(i + 1) == Some(Kind::Para) || self.s(i) == "Artt";
        let mut m = Member { start: self.start_of(i), article, connector: Some(first_conn), ..Default::default() };
        j = self.article_section(j, &mut m, &mut plural)?;
        j = self.qualifiers(j, &mut m, plural);
        members.push(m);
        // Further members of the list.
        while let Some((conn, k)) = self.separator(j) {
            let has_unit = self.unit_at(k);
            // `Art. 229 §§ 5, 6` and `Art. 229 § 5 und § 6`: the `§`s of the article before.
            let compound = members.last().and_then(|p| p.compound_article.clone());
            let num_at = match has_unit {
                Some((art, n)) if art == article => n,
                Some((false, n)) if compound.is_some() => n,
                Some(_) => break,
                None if self.is_num(k) => k,
                None => break,
            };
            if has_unit.is_some() && self.kind(k + 1) == Some(Kind::Para) {
                plural = true;
            }
            let mut m = Member { start: self.start_of(k), article, connector: Some(conn), ..Default::default() };
            let new_article = has_unit.is_some_and(|(art, _)| art);
            let after_sec = if new_article {
                self.article_section(num_at, &mut m, &mut plural)
            } else {
                self.section(num_at, &mut m)
            };
            let Some(after_sec) = after_sec else { break };
            if !new_article && let Some(a) = compound {
                m.section = format!("{a} § {}", m.section);
                m.compound_article = Some(a);
            }
            let after = self.qualifiers(after_sec, &mut m, plural);
            if has_unit.is_none() && !self.member_follow_ok(after) {
                break;
            }
            members.push(m);
            j = after;
        }
        Some(j)
    }

    /// After a bare-number list member: what may follow so that the number was a section.
    fn member_follow_ok(&self, j: usize) -> bool {
        let s = self.s(j);
        if j >= self.t.len() {
            return true;
        }
        if matches!(
            s,
            "," | ";" | ")" | "]" | "." | "und" | "oder" | "bis" | "sowie" | "-" | "–" | "i" | "iVm" | "in" | ":"
        ) {
            return true;
        }
        if self.kind(j) == Some(Kind::Para) || matches!(s, "Art" | "Artikel") {
            return true;
        }
        !matches!(self.book_after(j, false), BookAfter::None)
    }

    /// The section number at `j` of an `Art.` or `§` member; an article followed on the same
    /// line by `§`/`§§` and a number is one address of an Einführungsgesetz or Artikelgesetz
    /// (`Art. 229 § 5 EGBGB`, `Art. 97 § 1 EGAO`): `section` becomes `229 § 5`, whose
    /// `section_key` is the statute row's key `229§5`. `§§` makes the list plural.
    fn article_section(&self, j: usize, m: &mut Member, plural: &mut bool) -> Option<usize> {
        let k = self.section(j, m)?;
        // A line break before the `§` ends the article: Normenketten print one norm per line
        // (`KAG Art. 8` / `§ 99 Abs. 1 Satz 1 VwGO`).
        if !m.article
            || self.kind(k) != Some(Kind::Para)
            || self.slice(self.end_before(k), self.start_of(k)).contains('\n')
        {
            return Some(k);
        }
        let many = self.kind(k + 1) == Some(Kind::Para);
        let n = if many { k + 2 } else { k + 1 };
        let article = m.section.clone();
        // `section` fails before it writes anything: without a number the article stands alone.
        let Some(after) = self.section(n, m) else { return Some(k) };
        m.section = format!("{article} § {}", m.section);
        m.compound_article = Some(article);
        *plural |= many;
        Some(after)
    }

    /// The section number at `j` (`823`, `74a`, `74 a`, `1908i`); fills head/end, returns next.
    fn section(&self, j: usize, m: &mut Member) -> Option<usize> {
        if !self.is_num(j) || self.s(j).len() > 5 || !self.same_line(j) {
            return None;
        }
        let mut sec = self.s(j).to_string();
        let mut k = j + 1;
        let w = self.s(k);
        // `§ 650f`, `§ 68f` are sections with a letter; `§ 650 f.` / `§ 650f.` / `§ 12ff` mean
        // "and following", which an adjacent `f` only does with its dot.
        let following = w == "ff" || (w == "f" && self.s(k + 1) == "." && self.adj(k + 1));
        if self.is_word(k) && self.adj(k) && w.len() <= 2 && !following && w.bytes().all(|c| c.is_ascii_alphabetic()) {
            sec.push_str(w);
            k += 1;
        } else if self.is_word(k)
            && w.len() == 1
            && w.as_bytes()[0].is_ascii_lowercase()
            && w != "f"
            && self.same_line(k)
            && !(matches!(self.s(k + 1), "." | ")") && self.adj(k + 1))
        {
            // `§ 74 a HGB`: a section letter written apart.
            sec.push_str(w);
            k += 1;
        }
        m.section = sec;
        m.head_end = self.end_before(k);
        m.end = m.head_end;
        Some(k)
    }

    /// A qualifier keyword at `j`: (field, index of its value).
    fn qualifier_kw(&self, j: usize) -> Option<(u8, usize)> {
        if !self.same_line(j) {
            return None;
        }
        let w = self.s(j);
        let dot = |k: usize| if self.s(k + 1) == "." && self.adj(k + 1) { k + 2 } else { k + 1 };
        let (f, k) = match w {
            "Abs" | "Absatz" | "Absätze" | "Abse" => (b'a', dot(j)),
            "S" | "Satz" | "Sätze" | "Sätzen" => (b's', dot(j)),
            "Nr" | "Nrn" | "Nummer" | "Nummern" | "Ziff" | "Ziffer" | "Ziffern" => (b'n', dot(j)),
            "lit" | "Buchst" | "Buchstabe" | "Buchstaben" => (b'l', dot(j)),
            "Alt" | "Alternative" | "Var" | "Variante" => (b't', dot(j)),
            "Halbs" | "Halbsatz" | "Hs" | "HS" | "Halbsätze" => (b'h', dot(j)),
            "UAbs" | "Unterabs" | "Unterabsatz" | "Spiegelstrich" | "Gedankenstrich" | "Doppelbuchst"
            | "Doppelbuchstabe" => (b'u', dot(j)),
            _ => {
                // Ordinal before the keyword: `2. Alt.`, `1. Halbsatz`.
                if self.is_num(j) && self.s(j + 1) == "." && self.adj(j + 1) && self.same_line(j + 2) {
                    let w2 = self.s(j + 2);
                    if matches!(w2, "Alt" | "Alternative" | "Var" | "Variante") {
                        return Some((b'T', j));
                    }
                    if matches!(w2, "Halbs" | "Halbsatz" | "Hs" | "HS") {
                        return Some((b'H', j));
                    }
                }
                return None;
            }
        };
        // `S` and `Nr` only count before a value (`S. 123` of a page is not reached here).
        let ok = match f {
            b'l' => self.is_word(k) || self.is_num(k),
            _ => self.is_num(k) && self.same_line(k),
        };
        ok.then_some((f, k))
    }

    /// A value at `k`: number with letter (`3a`, `3 a)`), or a letter for `lit.`; returns (text, next).
    fn value(&self, k: usize, letter: bool) -> Option<(String, usize)> {
        if letter && self.is_word(k) && self.s(k).len() <= 2 {
            let mut v = self.s(k).to_string();
            let mut n = k + 1;
            if self.s(n) == ")" && self.adj(n) {
                n += 1;
            }
            if v.chars().all(|c| c.is_ascii_lowercase()) {
                return Some((std::mem::take(&mut v), n));
            }
            return None;
        }
        if !self.is_num(k) || self.s(k).len() > 4 {
            return None;
        }
        let mut v = self.s(k).to_string();
        let mut n = k + 1;
        let w = self.s(n);
        if self.is_word(n)
            && self.adj(n)
            && w.len() <= 2
            && w.bytes().all(|c| c.is_ascii_lowercase())
            && !matches!(w, "f" | "ff")
        {
            v.push_str(w);
            n += 1;
        } else if self.is_word(n)
            && w.len() == 1
            && w.as_bytes()[0].is_ascii_lowercase()
            && w != "f"
            && self.same_line(n)
            && self.s(n + 1) == ")"
        {
            // `Nr. 3 a)`.
            v.push_str(w);
            n += 2;
        } else if self.is_word(n)
            && w.len() == 1
            && w.as_bytes()[0].is_ascii_lowercase()
            && !matches!(w, "f" | "i" | "u" | "s" | "v" | "z")
            && self.same_line(n)
            && !(self.s(n + 1) == "." && self.adj(n + 1))
        {
            // `Nr. 1 b UStG`: a value letter written apart (not `a.F.`, `i.V.m.`, `u.`, `s.`).
            v.push_str(w);
            n += 1;
        }
        Some((v, n))
    }

    /// The qualifiers after a section; returns the index after them (and after `f.`/`ff.`).
    fn qualifiers(&self, mut j: usize, m: &mut Member, plural: bool) -> usize {
        // Roman Absatz right after the section: `§ 823 I BGB`, `§ 823 II 1 BGB`, `Art. 2 I GG`.
        if let Some(abs) = roman_value(self.s(j))
            && self.is_word(j)
            && self.same_line(j)
            && (self.is_num(j + 1)
                || self.ivm_at(j + 1).is_some()
                || matches!(self.s(j + 1), "," | ")" | ";" | "Nr" | "S" | "Satz" | "Alt" | "Hs" | "Halbs")
                || matches!(self.book_after(j + 1, m.article), BookAfter::Book(..)))
        {
            m.absatz = Some(abs.to_string());
            let mut n = j + 1;
            // `§ 823 II 1 BGB`: the Satz as a bare number.
            if self.is_num(n)
                && self.s(n).len() <= 2
                && self.same_line(n)
                && !(self.s(n + 1) == "/" || self.s(n + 1) == ".")
            {
                m.satz = Some(self.s(n).to_string());
                n += 1;
            }
            m.end = self.end_before(n);
            j = n;
        }
        loop {
            // `, Abs. 2` and `und Satz 2` continue the same member.
            let mut k = j;
            if matches!(self.s(j), "," | "und" | "sowie" | "oder") && self.qualifier_kw(j + 1).is_some() {
                k = j + 1;
            }
            let Some((f, vk)) = self.qualifier_kw(k) else { break };
            let (val, mut n) = match f {
                b'T' | b'H' => (self.s(vk).to_string(), vk + 3),
                _ => match self.value(vk, f == b'l') {
                    Some(x) => x,
                    None => break,
                },
            };
            // Dotted keyword after an ordinal: `2. Alt.` → skip its dot.
            if matches!(f, b'T' | b'H') && self.s(n) == "." && self.adj(n) {
                n += 1;
            }
            // Lists and ranges of values: `Abs. 1 und 2`, `Nr. 9 und 10`, `Satz 1 bis 3`.
            while !plural && matches!(self.s(n), "und" | "oder" | "bis" | "-" | "–" | "sowie") && self.same_line(n + 1)
            {
                match self.value(n + 1, f == b'l') {
                    // `Nr 1 und 210 DM`: an amount, not a value.
                    Some((_, nn))
                        if self.qualifier_kw(n + 1).is_none()
                            && !matches!(
                                self.s(nn),
                                "DM" | "EUR" | "Euro" | "€" | "%" | "Prozent" | "Jahre" | "Monate"
                            ) =>
                    {
                        n = nn
                    }
                    // `Nr. 3 a) und b)`: lettered items.
                    _ if self.is_word(n + 1)
                        && self.s(n + 1).len() == 1
                        && self.s(n + 2) == ")"
                        && self.adj(n + 2)
                        && self.s(n + 1).as_bytes()[0].is_ascii_lowercase() =>
                    {
                        n += 3
                    }
                    _ => break,
                }
            }
            let slot = match f {
                b'a' => &mut m.absatz,
                b's' => &mut m.satz,
                b'n' => &mut m.nr,
                b'l' => &mut m.lit,
                b't' | b'T' => &mut m.alt,
                b'h' | b'H' => &mut m.halbsatz,
                _ => &mut m.absatz,
            };
            if slot.is_none() {
                *slot = Some(val);
            }
            m.end = self.end_before(n);
            j = n;
        }
        // `f.` / `ff.`
        if self.same_line(j) {
            let w = self.s(j);
            if (w == "f" || w == "ff") && self.is_word(j) {
                let n = if self.s(j + 1) == "." && self.adj(j + 1) { j + 2 } else { j + 1 };
                m.following = Some(format!("{w}."));
                m.end = self.end_before(n);
                j = n;
            }
        }
        j
    }

    /// A list separator at `j` and the index after it.
    fn separator(&self, j: usize) -> Option<(Connector, usize)> {
        if !self.same_line(j + 1) && self.s(j) != "," {
            return None;
        }
        let c = match self.s(j) {
            "," => Connector::List,
            "und" | "oder" | "sowie" | "bzw" => Connector::And,
            "bis" | "-" | "–" => Connector::Range,
            _ => return None,
        };
        let mut k = j + 1;
        if self.s(j) == "bzw" && self.s(k) == "." {
            k += 1;
        }
        Some((c, k))
    }

    /// `i.V.m.`, `i. V. m.`, `iVm`, `in Verbindung mit` at `j`: index after.
    fn ivm_at(&self, j: usize) -> Option<usize> {
        if !self.same_line(j) {
            return None;
        }
        let k = match self.s(j) {
            "iVm" | "ivm" => {
                if self.s(j + 1) == "." && self.adj(j + 1) {
                    j + 2
                } else {
                    j + 1
                }
            }
            "i" if self.s(j + 1) == "." && self.s(j + 2) == "V" && self.s(j + 3) == "." && self.s(j + 4) == "m" => {
                if self.s(j + 5) == "." {
                    j + 6
                } else {
                    j + 5
                }
            }
            "in" if self.s(j + 1) == "Verbindung" && self.s(j + 2) == "mit" => j + 3,
            "iV" if self.s(j + 1) == "." && self.s(j + 2) == "m" => {
                if self.s(j + 3) == "." {
                    j + 4
                } else {
                    j + 3
                }
            }
            _ => return None,
        };
        // `i.V.m. den §§ …`, `in Verbindung mit dem Art. …`
        if matches!(self.s(k), "den" | "dem" | "der" | "des") && self.unit_at(k + 1).is_some() {
            return Some(k + 1);
        }
        Some(k)
    }

    /// `a.F.`, `aF`, `a. F.`, `n.F.`, `nF` at `j` → (normalised, next).
    fn version_at(&self, j: usize) -> (Option<String>, usize) {
        if !self.same_line(j) {
            return (None, j);
        }
        let w = self.s(j);
        match w {
            "aF" | "nF" => {
                let n = if self.s(j + 1) == "." && self.adj(j + 1) { j + 2 } else { j + 1 };
                (Some(format!("{}.F.", &w[..1])), n)
            }
            "a" | "n" if self.s(j + 1) == "." && self.adj(j + 1) && self.s(j + 2) == "F" => {
                let n = if self.s(j + 3) == "." && self.adj(j + 3) { j + 4 } else { j + 3 };
                (Some(format!("{w}.F.")), n)
            }
            _ => (None, j),
        }
    }

    /// The law book after a group, at `j`.
    fn book_after(&self, j: usize, unit_article: bool) -> BookAfter {
        if !self.same_line(j) || j >= self.t.len() {
            return BookAfter::None;
        }
        let mut k = j;
        let article = matches!(self.s(j), "des" | "der" | "dem" | "den");
        if article {
            k += 1;
            if !self.same_line(k) {
                return BookAfter::None;
            }
        }
        let w = self.s(k);
        if !self.is_word(k) && !self.is_num(k) {
            return BookAfter::None;
        }
        // `Art. 100 BV` is the Bavarian constitution; `§ 3 BV` a Betriebsvereinbarung; `Artikel
        // 190 des Vertrages` in an EU judgment is the Treaty, not a contract.
        let treaty = unit_article && (w == "BV" || stem(w).starts_with("Vertrag") || stem(w) == "Satzung");
        // Any capitalised word with a Land mark after it names a Land law, also one that alone
        // would be a contract or a court (`KV M-V` Kommunalverfassung, `LG NRW` Landschaftsgesetz,
        // `Verf LSA`, `Pressegesetz NRW`), unless the vocabulary reads a longer form from here.
        if let Some(b) = self.land_marked_book(k) {
            return b;
        }
        if self.is_word(k) && contract_lookalike(w) && !treaty {
            let end = self.end_before(k + 1);
            return BookAfter::Refused(end, k + 1);
        }
        // A Land prefix written apart from its instrument: `Nds. SOG`, `Bbg DSG`, `Hess. VwVfG`.
        if let Some(b) = self.land_prefix_book(k) {
            return b;
        }
        // EU acts: `VO (EG) Nr. 261/2004`, `Richtlinie 2008/50/EG` (only directly or after `der`).
        if let Some((canon, end)) = self.eu_act(k) {
            return BookAfter::Book(self.book(canon, k, end, true), end);
        }
        if self.is_num(k) {
            return BookAfter::None;
        }
        if let Some(b) = self.v.book_at(self.text, self.t, k)
            && (!is_court_abbrev(w) || matches!(w, "SG" | "AG"))
        {
            // A bare abbreviation needs no article; a title may have one.
            if !(article && b.kind != FormKind::Title && w.len() <= 1) {
                let mut end = self.land_after(b.end_tok);
                end = self.year_after(end);
                if b.kind == FormKind::Title {
                    end = self.date_after_title(end);
                }
                return BookAfter::Book(self.book(b.canonical.to_string(), k, end, true), end);
            }
        }
        // `des Gesetzes über die Rechtsverhältnisse der Steuerberater … (StBerG)`: a long title
        // the vocabulary lacks, named by the abbreviation in parentheses at its end.
        if article && matches!(stem(w), "Gesetz" | "Verordnung" | "Abkommen" | "Übereinkomm" | "Vertrag") {
            let mut e = k + 1;
            while e < k + 25 && e < self.t.len() && self.same_line(e) && !matches!(self.s(e), "(" | ";" | "." | ",") {
                e += 1;
            }
            if self.s(e) == "(" && self.is_word(e + 1) && self.s(e + 2) == ")" {
                let abbr = self.s(e + 1);
                let canon = match self.v.book_at(self.text, self.t, e + 1) {
                    Some(b) if b.end_tok == e + 2 => Some((b.canonical.to_string(), true)),
                    _ if self.abbrev_like(abbr) => Some((abbr.to_string(), false)),
                    _ => None,
                };
                if let Some((canon, known)) = canon {
                    return BookAfter::Book(self.book(canon, k, e + 3, known), e + 3);
                }
            }
        }
        // Unknown spelled-out law (`Sozialversicherungs-Rechengrößenverordnung 1996`).
        let mut e = k;
        while self.is_word(e) || (matches!(self.s(e), "-") && self.adj(e) && self.adj(e + 1)) {
            e += 1;
            if !self.adj(e) {
                break;
            }
        }
        // An adjective before it: `Berliner Straßengesetz`, `Hamburgisches Transparenzgesetz`.
        let adj_first = e == k + 1
            && w.chars().next().is_some_and(char::is_uppercase)
            && (w.ends_with("er") || w.ends_with("es") || w.ends_with("en") || w.ends_with('e'))
            && self.is_word(k + 1)
            && self.same_line(k + 1)
            && law_like_word(self.s(k + 1), false);
        if adj_first {
            e = k + 2;
        }
        let last = if adj_first { self.s(k + 1) } else { self.slice(self.start_of(k), self.end_before(e)) };
        if e > k && law_like_word(last, false) {
            let canon = self.slice(self.start_of(k), self.end_before(e)).to_string();
            let mut end = self.year_after(e);
            end = self.date_after_title(end);
            return BookAfter::Book(self.book(canon, k, end, false), end);
        }
        // Unknown abbreviation (Land laws, foreign codes): `BbgHG`, `SächsPersVG`, `CPP`.
        if !article
            && (self.abbrev_like(w) || LandTable::shipped().land_of(w).is_some())
            && !is_court_abbrev(w)
            && self.v.reporter_at(self.text, self.t, k).is_none()
        {
            // Hyphenated parts belong to it: `IHK-G`, `KAG-LSA`.
            let mut e = k + 1;
            while self.s(e) == "-" && self.adj(e) && self.is_word(e + 1) && self.adj(e + 1) && self.s(e + 1).len() <= 5
            {
                e += 2;
            }
            let name = self.slice(self.start_of(k), self.end_before(e)).to_string();
            let end = self.year_after(self.land_after(e));
            return BookAfter::Book(self.book(name, k, end, false), end);
        }
        BookAfter::None
    }

    /// The book written at tokens `k..end`. When it is Land law (a Land mark however attached,
    /// a Land prefix or adjective, a Land-law name: [`LandTable::land_of`] on the text as written)
    /// its canonical form is the instrument as written (`IFG Bln`, not the federal `IFG`).
    fn book(&self, canonical: String, k: usize, end: usize, known: bool) -> Book {
        let (start, end) = (self.start_of(k), self.end_before(end));
        let written = self.slice(start, end);
        let state_law = LandTable::shipped().state_law(written).or_else(|| LandTable::shipped().state_law(&canonical));
        match state_law {
            Some(sl) => {
                // A vocabulary form that already names the Land law (`BauO NRW`) stays known.
                let known = known && sl.instrument == canonical;
                Book { canonical: sl.instrument.clone(), start, end, known, state_law: Some(sl) }
            }
            None => Book { canonical, start, end, known, state_law: None },
        }
    }

    /// Looks like a law abbreviation: 2–12 chars, starts upper case, ≥ 2 capitals, and ends
    /// the way German law abbreviations do.
    pub(super) fn abbrev_like(&self, w: &str) -> bool {
        if matches!(w, "DM" | "EUR" | "USD" | "GBP" | "CHF" | "RM" | "EG" | "EU" | "EWG" | "II" | "III" | "IV" | "VI") {
            return false;
        }
        let n = w.chars().count();
        if !(2..=12).contains(&n) {
            return false;
        }
        let caps = w.chars().filter(|c| c.is_uppercase()).count();
        let first_up = w.chars().next().is_some_and(|c| c.is_uppercase());
        first_up
            && caps >= 2
            && (w.ends_with('G')
                || w.ends_with('O')
                || w.ends_with("VO")
                || w.ends_with('V')
                || w.ends_with("GB")
                || w.ends_with("Verf")
                || w.ends_with("RL")
                || caps == n)
    }

    /// A Land mark written after a book (`IFG Bln`, `UVollzG NRW`, `KAG M-V`, `IFG-SH`,
    /// `VwVfG-M-V`; the marks of `land-law.tsv`): the token after it, else `k`.
    fn land_after(&self, k: usize) -> usize {
        if !self.same_line(k) {
            return k;
        }
        let table = LandTable::shipped();
        // A hyphen glues the mark on (`IFG-SH`); apart, a space separates it.
        let first = if self.s(k) == "-" && self.adj(k) && self.adj(k + 1) { k + 1 } else { k };
        if !self.is_word(first) || (first == k && !self.t.get(k).is_some_and(|t| t.gap_sp)) {
            return k;
        }
        // Two-part marks: `M-V`, `S-H`.
        let end = if self.s(first + 1) == "-"
            && self.adj(first + 1)
            && self.is_word(first + 2)
            && self.adj(first + 2)
            && table.suffix_mark(self.slice(self.start_of(first), self.end_before(first + 3))).is_some()
        {
            first + 3
        } else if table.suffix_mark(self.s(first)).is_some() {
            first + 1
        } else {
            return k;
        };
        // `BB 2005, 1234` after a book is a journal citation, not Brandenburg.
        if self.is_num(end) && self.s(end + 1) == "," {
            return k;
        }
        end
    }

    /// A capitalised word at `k` directly followed by a Land mark (`KV M-V`, `Verf LSA`): the
    /// book up to the mark; None when there is no mark or the vocabulary matches past `k + 1`.
    fn land_marked_book(&self, k: usize) -> Option<BookAfter> {
        if !self.is_word(k) || !self.s(k).chars().next().is_some_and(char::is_uppercase) {
            return None;
        }
        let end = self.land_after(k + 1);
        if end == k + 1 || self.v.book_at(self.text, self.t, k).is_some_and(|b| b.end_tok > k + 1) {
            return None;
        }
        let end = self.year_after(end);
        Some(BookAfter::Book(self.book(self.s(k).to_string(), k, end, false), end))
    }

    /// `Nds. SOG`, `Bbg DSG` at `k`: a Land prefix (`land-law.tsv`), apart from an instrument
    /// that looks like a law (not a court: `Hess. VGH`).
    fn land_prefix_book(&self, k: usize) -> Option<BookAfter> {
        if !self.is_word(k) {
            return None;
        }
        LandTable::shipped().prefix_mark(self.s(k))?;
        let mut n = k + 1;
        if self.s(n) == "." && self.adj(n) {
            n += 1;
        }
        let w = self.s(n);
        if !self.is_word(n)
            || !self.same_line(n)
            || is_court_abbrev(w)
            || !(self.abbrev_like(w) || law_like_word(w, false))
        {
            return None;
        }
        let mut e = n + 1;
        while self.s(e) == "-" && self.adj(e) && self.is_word(e + 1) && self.adj(e + 1) {
            e += 2;
        }
        let instrument = self.slice(self.start_of(k), self.end_before(e)).to_string();
        let end = self.year_after(e);
        Some(BookAfter::Book(self.book(instrument, k, end, false), end))
    }

    /// A year written after a book (`UWG 2004`, `BauNVO 1977`), not a reporter year (`2004, 12`).
    fn year_after(&self, k: usize) -> usize {
        let y = self.s(k);
        if self.is_num(k)
            && y.len() == 4
            && (y.starts_with("19") || y.starts_with("20"))
            && self.same_line(k)
            && self.t[k].gap_sp
            && !(self.s(k + 1) == "," && self.is_num(k + 2))
        {
            k + 1
        } else {
            k
        }
    }

    /// `vom 4. Dezember 1995` after a spelled-out law name belongs to the name.
    fn date_after_title(&self, k: usize) -> usize {
        if self.s(k) == "vom"
            && let Some((_, e)) = self.date_forward(k + 1)
        {
            return e;
        }
        k
    }

    /// EU act at `k` → (canonical, end token). `Richtlinie 2008/50/EG`, `RL 2004/38/EG`,
    /// `VO (EG) Nr. 261/2004`, `Verordnung (EU) 2016/679`, bare `77/388/EWG`.
    pub(super) fn eu_act(&self, k: usize) -> Option<(String, usize)> {
        let w = self.s(k);
        match w {
            "Richtlinie" | "RL" | "Richtlinien" | "Rahmenbeschluss" => {
                let (num, e) = self.directive_number(k + 1)?;
                Some((format!("RL {num}"), e))
            }
            "Verordnung" | "VO" | "Verordnungen" => {
                let mut j = k + 1;
                let mut org = "";
                if self.s(j) == "(" && matches!(self.s(j + 1), "EG" | "EU" | "EWG" | "Euratom") && self.s(j + 2) == ")"
                {
                    org = self.s(j + 1);
                    j += 3;
                }
                if let Some(n) = self.abbr(j, "Nr", true) {
                    j = n;
                }
                if self.is_num(j) && self.s(j + 1) == "/" && self.adj(j + 1) && self.is_num(j + 2) && self.adj(j + 2) {
                    let num = format!("{}/{}", self.s(j), self.s(j + 2));
                    let canon = if org.is_empty() { format!("VO {num}") } else { format!("VO ({org}) {num}") };
                    return Some((canon, j + 3));
                }
                let (num, e) = self.directive_number(j)?;
                Some((format!("VO {num}"), e))
            }
            _ => {
                let (num, e) = self.directive_number(k)?;
                Some((format!("RL {num}"), e))
            }
        }
    }

    /// `2008/50/EG` at `j` → (text, end token).
    fn directive_number(&self, j: usize) -> Option<(String, usize)> {
        if self.is_num(j)
            && self.s(j + 1) == "/"
            && self.adj(j + 1)
            && self.is_num(j + 2)
            && self.adj(j + 2)
            && self.s(j + 3) == "/"
            && self.adj(j + 3)
            && matches!(self.s(j + 4), "EG" | "EWG" | "EU" | "EGKS" | "Euratom" | "GASP" | "JI")
            && self.adj(j + 4)
        {
            let e = j + 5;
            return Some((self.slice(self.start_of(j), self.end_before(e)).to_string(), e));
        }
        None
    }

    /// A bare EU act (`Richtlinie 2008/50/EG`, `77/388/EWG`) as a law name.
    pub(super) fn eu_act_name_at(&mut self, i: usize) -> Option<usize> {
        let (canon, e) = self.eu_act(i)?;
        self.out.law_names.push(LawName {
            start: self.start_of(i),
            end: self.end_before(e),
            raw: String::new(),
            book: canon,
            known: true,
        });
        Some(e)
    }

    /// A law named without a section: `Grundgesetzes`, `EMRK`, `SGB II`, `Atomgesetzes`.
    pub(super) fn law_name_at(&mut self, i: usize, book: Option<BookMatch>) -> Option<usize> {
        let w = self.s(i);
        if book.is_none() && !law_like_word(w, true) && !(self.s(i + 1) == "-" && self.adj(i + 1)) {
            return None;
        }
        if is_court_abbrev(w) || contract_lookalike(w) {
            return None;
        }
        let (canon, end, known) = match book {
            Some(b) => {
                let ok = match b.kind {
                    FormKind::Title => true,
                    _ => {
                        let n = w.chars().count();
                        (n >= 3 || matches!(w, "GG" | "AO")) && w.chars().filter(|c| c.is_uppercase()).count() >= 2
                    }
                };
                if !ok {
                    return None;
                }
                (b.canonical.to_string(), b.end_tok, true)
            }
            None if self.abbrev_like(w)
                && w.chars().any(|c| c.is_lowercase())
                && (w.ends_with('G') || w.ends_with("VO") || w.ends_with("RL"))
                && w.len() >= 4 =>
            {
                // An unknown law abbreviation (`BilMoG`, `StVereinfG`, `MwStSystRL`): mixed
                // case, ends like one.
                (w.to_string(), i + 1, false)
            }
            None if w.len() >= 2
                && w.bytes().all(|c| c.is_ascii_uppercase())
                && self.s(i + 1) == "-"
                && self.adj(i + 1)
                && self.is_word(i + 2)
                && self.adj(i + 2)
                && self.abbrev_like(self.s(i + 2))
                && self.s(i + 2).ends_with('G') =>
            {
                // `GKV-WSG`, `GKV-VStG`: an amending act named by its programme.
                (self.slice(self.start_of(i), self.end_before(i + 3)).to_string(), i + 3, false)
            }
            None => {
                // Compound law names the vocabulary lacks (hyphenated parts joined).
                let mut e = i + 1;
                while self.s(e) == "-" && self.adj(e) && self.is_word(e + 1) && self.adj(e + 1) {
                    e += 2;
                }
                let name = self.slice(self.start_of(i), self.end_before(e));
                if !law_like_word(name, true) {
                    return None;
                }
                (name.to_string(), e, false)
            }
        };
        let mut end = self.year_after(self.land_after(end));
        let (_, e2) = self.version_at(end);
        end = e2;
        let mut start = i;
        let mut canon = canon;
        let mut known = known;
        if i > self.done && self.is_word(i - 1) && self.same_line(i) {
            let p = self.s(i - 1);
            // An adjective that belongs to the title (`Allgemeinen Gleichbehandlungsgesetzes`,
            // `Europäischen Menschenrechtskonvention`); looked up only here, for found names.
            if let Some(b) = self.v.book_at(self.text, self.t, i - 1)
                && b.end_tok > i
                && b.kind == FormKind::Title
            {
                start = i - 1;
                end = end.max(b.end_tok);
                canon = b.canonical.to_string();
                known = true;
            } else if ["ischen", "ischem", "isches", "ischer", "ische"].iter().any(|e| p.ends_with(e)) {
                // A foreign or Land law (`tunesischen Strafgesetzbuch`, `Sächsischen
                // Reisekostengesetz`) is not the federal law of that name: its book is the name
                // as written.
                start = i - 1;
                canon = self.slice(self.start_of(start), self.end_before(end)).to_string();
                known = false;
            }
        }
        // `Teilzeit- und Befristungsgesetzes`: a coordinated first part.
        if start == i
            && i >= self.done + 3
            && self.s(i - 1) == "und"
            && self.s(i - 2) == "-"
            && self.adj(i - 2)
            && self.is_word(i - 3)
            && self.s(i - 3).chars().next().is_some_and(char::is_uppercase)
        {
            start = i - 3;
            canon = self.slice(self.start_of(start), self.end_before(end)).to_string();
        }
        self.out.law_names.push(LawName {
            start: self.start_of(start),
            end: self.end_before(end),
            raw: String::new(),
            book: canon,
            known,
        });
        Some(end)
    }

    /// Turns parsed members into citations and one Normenkette.
    fn emit_chain(&mut self, members: Vec<Member>) {
        let chain_idx = self.out.chains.len();
        let first = self.out.laws.len();
        // A book written on a member applies to the bookless members before it: for each member,
        // the index of the member that carries its book.
        let mut carrier: Vec<Option<usize>> = vec![None; members.len()];
        let mut cur = None;
        for (k, m) in members.iter().enumerate().rev() {
            if m.book.is_some() {
                cur = Some(k);
            }
            carrier[k] = cur;
        }
        let mut chain_canon = String::with_capacity(members.len() * 24);
        // Members are moved out one by one; the books are read from a parallel slice of refs.
        let mut members = members;
        let books: Vec<Option<Book>> = members.iter_mut().map(|m| m.book.take()).collect();
        for (k, m) in members.into_iter().enumerate() {
            let b = carrier[k].and_then(|c| books[c].as_ref());
            let inherited = carrier[k].is_some_and(|c| c != k);
            let unit = if m.article { LawUnit::Article } else { LawUnit::Paragraph };
            // `§ 823 Abs. 1 Satz 2`, with the cut after each part for the parents.
            let mut core = String::with_capacity(32);
            core.push_str(if m.article { "Art. " } else { "§ " });
            let mut cuts = [0usize; 8];
            let mut ncuts = 0;
            // `Art. 229 § 5 EGBGB` has the whole article `Art. 229 EGBGB` as its coarsest parent.
            if let Some(a) = &m.compound_article {
                cuts[ncuts] = core.len() + a.len();
                ncuts += 1;
            }
            core.push_str(&m.section);
            cuts[ncuts] = core.len();
            ncuts += 1;
            for (label, v) in [
                (" Abs. ", &m.absatz),
                (" Satz ", &m.satz),
                (" Nr. ", &m.nr),
                (" lit. ", &m.lit),
                (" Alt. ", &m.alt),
                (" Halbs. ", &m.halbsatz),
            ] {
                if let Some(v) = v {
                    core.push_str(label);
                    core.push_str(v);
                    cuts[ncuts] = core.len();
                    ncuts += 1;
                }
            }
            let with_book = |n: usize| {
                let bc = b.map_or("", |b| b.canonical.as_str());
                let mut s = String::with_capacity(n + 1 + bc.len());
                s.push_str(&core[..n]);
                if !bc.is_empty() {
                    s.push(' ');
                    s.push_str(bc);
                }
                s
            };
            let canonical = with_book(core.len());
            let parents: Vec<String> = cuts[..ncuts - 1].iter().rev().map(|&c| with_book(c)).collect();
            if k > 0 {
                chain_canon.push_str(if m.connector == Some(Connector::InVerbindungMit) { " i.V.m. " } else { ", " });
            }
            chain_canon.push_str(&canonical);
            let (book_raw, book_known) = match b {
                Some(b) if !inherited => (Some(self.slice(b.start, b.end).to_string()), b.known),
                Some(b) => (None, b.known),
                None => (None, false),
            };
            self.out.laws.push(LawCitation {
                start: m.start,
                end: m.end.max(m.head_end),
                raw: String::new(),
                head_end: m.head_end,
                unit,
                section: m.section,
                absatz: m.absatz,
                satz: m.satz,
                nr: m.nr,
                lit: m.lit,
                alt: m.alt,
                halbsatz: m.halbsatz,
                following: m.following,
                book: b.map(|b| b.canonical.clone()),
                book_raw,
                book_inherited: inherited,
                book_known,
                version: m.version,
                state_law: b.and_then(|b| b.state_law.clone()),
                connector: m.connector.unwrap_or(Connector::None),
                chain: chain_idx,
                canonical,
                parents,
            });
        }
        let last = self.out.laws.len();
        let start = self.out.laws[first].start;
        let end = self.out.laws[first..last].iter().map(|l| l.end).max().unwrap_or(start);
        self.out.chains.push(Normenkette {
            start,
            end,
            raw: String::new(),
            members: (first..last).collect(),
            canonical: chain_canon,
        });
    }
}

enum BookAfter {
    None,
    /// A book and the token after it.
    Book(Book, usize),
    /// A contract look-alike ending at byte `.0`, token after `.1`.
    Refused(usize, usize),
}
