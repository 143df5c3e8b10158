//! Case citations: Aktenzeichen (with the court, decision kind and date written before them),
//! reporter citations (with follow-ups and pinpoints; loose-leaf collections whose `§` is refused
//! as a statute), ECLI, EU and ECtHR case numbers, and dates.
//!
//! An Aktenzeichen is recognised forward from its first token (`VIII ZR 231/07`, `6 C 1.20`,
//! `B 1 KR 2/20 R`, `I-5 U 12/19`, `2 BvR 1/19`, `L 5 KR 222/14 B ER`, `25 W (pat) 14/14`); the
//! court, decision kind and date are then found by a short backward walk (`BGH, Urteil vom
//! 08.04.2009 - `), which stops at the previous citation.

use super::law::is_court_abbrev;
use super::scan::Kind;
use super::{CaseCitation, CaseKind, RefusalReason, RefusedLookalike, Sc};

const MONTHS: [&str; 12] = [
    "Januar",
    "Februar",
    "März",
    "April",
    "Mai",
    "Juni",
    "Juli",
    "August",
    "September",
    "Oktober",
    "November",
    "Dezember",
];

fn month_of(w: &str) -> Option<u32> {
    if w == "Jänner" {
        return Some(1);
    }
    MONTHS.iter().position(|m| *m == w).map(|p| p as u32 + 1)
}

/// Registers of BGH special senates, written without a senate number.
fn special_register(w: &str) -> bool {
    matches!(
        w,
        "StB"
            | "AnwZ"
            | "AnwSt"
            | "KZR"
            | "KVR"
            | "KZB"
            | "KRB"
            | "KVZ"
            | "EnZR"
            | "EnVR"
            | "EnZB"
            | "EnVZ"
            | "EnRB"
            | "NotZ"
            | "NotSt"
            | "RiZ"
            | "RiSt"
            | "LwZR"
            | "LwZB"
            | "LwZA"
            | "GSZ"
            | "GSSt"
            | "PatAnwZ"
            | "PatAnwSt"
            | "BLw"
            | "ARs"
            | "StbSt"
            | "WpSt"
    )
}

fn roman(w: &str) -> bool {
    !w.is_empty() && w.len() <= 5 && w.bytes().all(|c| matches!(c, b'I' | b'V' | b'X'))
}

/// Roman senate numbers with a letter (`IXa`, `Ib`).
pub(crate) fn roman_senate(w: &str) -> bool {
    let core = w.trim_end_matches(|c: char| c.is_ascii_lowercase());
    roman(core) && w.len() - core.len() <= 1
}

/// Words that are never a Registerzeichen even though they have its shape.
fn not_register(w: &str) -> bool {
    matches!(
        w,
        "Nr" | "Nrn"
            | "Abs"
            | "Art"
            | "Rn"
            | "Rz"
            | "Tz"
            | "Az"
            | "Bl"
            | "BGBl"
            | "Satz"
            | "Ziff"
            | "Fn"
            | "Anm"
            | "Anl"
            | "Aufl"
            | "Bd"
            | "Kap"
            | "Teil"
            | "Seite"
            | "Jahr"
            | "Jahre"
            | "Mio"
            | "Mrd"
            | "Euro"
            | "EUR"
            | "DM"
            | "Uhr"
            | "Std"
            | "Tage"
            | "Tag"
            | "RdNr"
    )
}

/// Suffixes written after the year of an Aktenzeichen (`B 1 KR 2/20 R`, `L 5 KR 222/14 B ER`).
fn fn_suffix(w: &str) -> bool {
    matches!(
        w,
        "R" | "B"
            | "ER"
            | "RH"
            | "BH"
            | "KL"
            | "KLH"
            | "S"
            | "C"
            | "GS"
            | "AR"
            | "PKH"
            | "NZB"
            | "SF"
            | "WF"
            | "BG"
            | "EK"
            | "NE"
            | "AK"
            | "P"
            | "OA"
            | "ES"
            | "E"
            | "A"
    )
}

pub(crate) fn is_court_word(w: &str) -> bool {
    is_court_abbrev(w)
        || matches!(
            w,
            "BVerfGK"
                | "LAG"
                | "OVGE"
                | "VerfGH"
                | "LVerfG"
                | "GmS-OGB"
                | "Bundesgerichtshof"
                | "Bundesverfassungsgericht"
                | "Bundesverwaltungsgericht"
                | "Bundesfinanzhof"
                | "Bundesarbeitsgericht"
                | "Bundessozialgericht"
                | "Bundespatentgericht"
                | "Reichsgericht"
                | "BayLSG"
                | "HessVGH"
                | "HessLAG"
                | "NdsOVG"
                | "SächsOVG"
                | "ThürOVG"
                | "OVGNRW"
                | "VGHBW"
                | "BayVerfGH"
                | "EGH"
                | "AGH"
                | "Kammergericht"
                | "EKMR"
                | "EuGöD"
        )
}

/// Courts usually followed by their seat or Land (`OLG Hamm`, `LSG NRW`, `VG Berlin`).
fn court_with_place(w: &str) -> bool {
    matches!(
        w,
        "OLG"
            | "LG"
            | "AG"
            | "VG"
            | "OVG"
            | "VGH"
            | "LSG"
            | "SG"
            | "LAG"
            | "ArbG"
            | "FG"
            | "VerfGH"
            | "LVerfG"
            | "StGH"
    )
}

fn decision_kind(w: &str) -> bool {
    let l = w;
    matches!(
        l,
        "Urteil"
            | "Urteile"
            | "Urteilen"
            | "Urteils"
            | "Urt"
            | "Beschluss"
            | "Beschluß"
            | "Beschlüsse"
            | "Beschlüssen"
            | "Beschl"
            | "Gerichtsbescheid"
            | "Entscheidung"
            | "Kammerbeschluss"
            | "Senatsurteil"
            | "Senatsurteile"
            | "Senatsbeschluss"
            | "Senatsbeschlüsse"
            | "Senatsbeschluß"
            | "Vorlagebeschluss"
            | "Teilurteil"
            | "Versäumnisurteil"
            | "Endurteil"
            | "Schlussurteil"
            | "Zwischenurteil"
            | "Grundsatzurteil"
            | "Revisionsurteil"
            | "Verfügung"
            | "Anerkenntnisurteil"
            | "Hinweisbeschluss"
            | "Nichtannahmebeschluss"
            | "Vorabentscheidungsersuchen"
    )
}

impl<'a> Sc<'a> {
    /// Adds a case citation (byte offsets).
    fn push_case(&mut self, start: usize, end: usize, kind: CaseKind, canonical: String) -> &mut CaseCitation {
        self.out.cases.push(CaseCitation::empty(start, end, kind, canonical));
        let n = self.out.cases.len() - 1;
        &mut self.out.cases[n]
    }

    /// `ECLI:DE:BGH:2009:080409UVIIIZR231.07.0`.
    pub(super) fn ecli_at(&mut self, i: usize) -> Option<usize> {
        if self.s(i + 1) != ":" || !self.adj(i + 1) {
            return None;
        }
        let mut j = i + 1;
        while j < self.t.len() && self.adj(j) && (matches!(self.s(j), ":" | ".") || self.is_word(j) || self.is_num(j)) {
            j += 1;
        }
        while j > i + 2 && self.s(j - 1) == "." {
            j -= 1;
        }
        if j < i + 6 {
            return None;
        }
        let (s, e) = (self.start_of(i), self.end_before(j));
        let ecli = self.slice(s, e).to_string();
        let c = self.push_case(s, e, CaseKind::Ecli, ecli.clone());
        c.ecli = Some(ecli);
        Some(j)
    }

    /// `C-459/99`, `T-1/20`, `Rs. C-515/07`, `C‑459/99 P`; and an ECtHR application number
    /// introduced as such (`Beschwerde-Nr. 41723/06`, `no. 41723/06`).
    pub(super) fn eu_case_at(&mut self, i: usize) -> Option<usize> {
        let w = self.s(i);
        if matches!(w, "C" | "T" | "F")
            && matches!(self.s(i + 1), "-" | "\u{2011}" | "\u{2010}" | "–")
            && self.adj(i + 1)
            && self.is_num(i + 2)
            && self.adj(i + 2)
            && self.s(i + 3) == "/"
            && self.adj(i + 3)
            && self.is_num(i + 4)
            && self.adj(i + 4)
        {
            let mut e = i + 5;
            if self.s(e) == "P" && self.same_line(e) && !self.is_word(e + 1) {
                e += 1;
            }
            let num = format!("{}-{}/{}", w, self.s(i + 2), self.s(i + 4));
            let (mut s, end) = (self.start_of(i), self.end_before(e));
            // `EuGH-Urteil vom 12. Februar 2009 Rs. C-515/07`: the court and date belong to it.
            let mut k = i;
            if k >= 2 && self.s(k - 1) == "." && self.s(k - 2) == "Rs" && k - 2 >= self.done {
                k -= 2;
                if k >= 1 && self.s(k - 1) == "verb" {
                    k -= 1;
                }
            }
            let back = self.back_context(k);
            let court = back.court.clone().or_else(|| Some(if w == "T" { "EuG".into() } else { "EuGH".into() }));
            if back.start < k {
                s = self.start_of(back.start);
            }
            let fs = self.start_of(i);
            let c = self.push_case(s, end, CaseKind::EuCase, format!("{} {}", court.clone().unwrap_or_default(), num));
            c.court = court;
            c.court_span = back.court_span;
            c.decision_kind = back.kind;
            c.date = back.date;
            c.file_number = Some(num);
            c.file_number_span = Some((fs, end));
            return Some(e);
        }
        // ECtHR application numbers: only after `Beschwerde-Nr.`, `Beschwerdenummer`, `no.`.
        let intro = match w {
            "Beschwerdenummer" | "Beschwerdenr" | "Individualbeschwerde" => Some(i + 1),
            "no" | "No" | "Nr" if self.s(i + 1) == "." && self.s(i + 3) == "/" && self.is_num(i + 2) => {
                let egmr = (i.saturating_sub(25)..i)
                    .any(|k| matches!(self.s(k), "EGMR" | "Beschwerde" | "ECHR" | "Menschenrechte"));
                egmr.then_some(i + 2)
            }
            "Beschwerde" if self.s(i + 1) == "-" && self.s(i + 2) == "Nr" => {
                Some(if self.s(i + 3) == "." { i + 4 } else { i + 3 })
            }
            _ => None,
        };
        let j = intro?;
        let j = if self.s(j) == "." { j + 1 } else { j };
        if self.is_num(j)
            && self.s(j + 1) == "/"
            && (3..=6).contains(&self.s(j).len())
            && self.s(j + 1) == "/"
            && self.adj(j + 1)
            && self.is_num(j + 2)
            && self.adj(j + 2)
            && self.s(j + 2).len() == 2
        {
            let e = j + 3;
            let (s, end) = (self.start_of(j), self.end_before(e));
            let num = self.slice(s, end).to_string();
            let c = self.push_case(s, end, CaseKind::EcthrApplication, format!("EGMR {num}"));
            c.court = Some("EGMR".into());
            c.file_number = Some(num);
            c.file_number_span = Some((s, end));
            return Some(e);
        }
        None
    }

    /// A case number without register: an ECtHR application after a dated EGMR citation
    /// (`EGMR, Urteil vom 9. Juli 2013 - 66069/09`) or an old EuGH number after `Rs.`
    /// (`Rs. 35/82`).
    pub(super) fn bare_case_number_at(&mut self, i: usize) -> Option<usize> {
        if !(self.s(i + 1) == "/"
            && self.adj(i + 1)
            && self.is_num(i + 2)
            && self.adj(i + 2)
            && self.s(i + 2).len() == 2)
        {
            return None;
        }
        if i > 0 && self.adj(i) {
            return None;
        }
        let e = i + 3;
        let (fs, fe) = (self.start_of(i), self.end_before(e));
        let num = self.slice(fs, fe).to_string();
        if i >= 2 && self.s(i - 1) == "." && self.s(i - 2) == "Rs" && i - 2 >= self.done {
            let back = self.back_context(i - 2);
            let start = if back.start < i - 2 { self.start_of(back.start) } else { self.start_of(i - 2) };
            let c = self.push_case(start, fe, CaseKind::EuCase, format!("EuGH {num}"));
            c.court = back.court.or(Some("EuGH".into()));
            c.court_span = back.court_span;
            c.decision_kind = back.kind;
            c.date = back.date;
            c.file_number = Some(num);
            c.file_number_span = Some((fs, fe));
            return Some(e);
        }
        if !(3..=6).contains(&self.s(i).len()) || i == 0 || !matches!(self.s(i - 1), "-" | "–" | ",") {
            return None;
        }
        let back = self.back_context(i);
        if back.court.as_deref() != Some("EGMR") {
            return None;
        }
        let start = self.start_of(back.start);
        let c = self.push_case(start, fe, CaseKind::EcthrApplication, format!("EGMR {num}"));
        c.court = back.court;
        c.court_span = back.court_span;
        c.decision_kind = back.kind;
        c.date = back.date;
        c.file_number = Some(num);
        c.file_number_span = Some((fs, fe));
        Some(e)
    }

    /// An Aktenzeichen starting at token `i` → (register, end token).
    fn file_number_shape(&self, i: usize) -> Option<(String, usize)> {
        let w = self.s(i);
        // Part of a longer number (`Nr. 4.2.3 BV 2003.13`, `1/2 …`): not a file number.
        if i > 0 && self.adj(i) && matches!(self.s(i - 1), "." | "/" | "-" | ",") {
            return None;
        }
        // BGH special senates have no number: `StB 4/03`, `AnwZ (B) 21/04`, `KZR 12/19`.
        if self.is_word(i) && special_register(w) {
            let mut k = i + 1;
            if self.s(k) == "(" && self.is_word(k + 1) && self.s(k + 2) == ")" {
                k += 3;
            }
            if self.is_num(k)
                && self.same_line(k)
                && self.s(k + 1) == "/"
                && self.adj(k + 1)
                && self.is_num(k + 2)
                && self.adj(k + 2)
                && matches!(self.s(k + 2).len(), 2 | 4)
            {
                return Some((w.to_string(), k + 3));
            }
            return None;
        }
        let mut j = i;
        // Prefixes: BSG `B 1 KR …`, LSG/SG `L 5 KR …`/`S 12 KR …`, BayObLG `BReg. 3 Z 53/96`.
        let lead = matches!(w, "B" | "L" | "S") && self.is_word(i) && self.is_num(i + 1) && self.same_line(i + 1);
        let breg = w == "BReg" && self.is_word(i);
        if lead {
            j = i + 1;
        } else if breg {
            j = if self.s(i + 1) == "." { i + 2 } else { i + 1 };
            if !self.is_num(j) {
                return None;
            }
        } else if self.is_num(i) && self.s(i + 1) == "Z" && self.adj(i + 1) && self.s(i).len() <= 2 {
            // BayObLG civil senates: `3Z BR 64/01`.
            j = i + 1;
        } else if self.is_word(i) {
            if !roman_senate(w) {
                if w == "GmS" && self.s(i + 1) == "-" && self.s(i + 2) == "OGB" && self.is_num(i + 3) {
                    let k = i + 3;
                    if self.s(k + 1) == "/" && self.is_num(k + 2) && self.adj(k + 1) && self.adj(k + 2) {
                        return Some(("GmS-OGB".into(), k + 3));
                    }
                }
                return None;
            }
            // NRW `I-5 U 12/19`.
            if self.s(i + 1) == "-" && self.adj(i + 1) && self.is_num(i + 2) && self.adj(i + 2) {
                j = i + 2;
            }
        } else if !self.is_num(i) || self.s(i).len() > 3 {
            return None;
        }
        // Register: one or two words (`ZR`, `BvR`, `W (pat)`, `ZR (Ü)`, `Ss (OWi)`).
        let r = j + 1;
        if !self.is_word(r) || !self.same_line(r) || !self.t[r].gap_sp {
            return None;
        }
        let reg = self.s(r);
        let reg_ok = self.v.is_register(reg)
            || (reg.len() <= 5
                && reg.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && reg.chars().all(|c| c.is_ascii_alphabetic())
                && !not_register(reg));
        if !reg_ok || not_register(reg) {
            return None;
        }
        let mut k = r + 1;
        let mut reg = reg.to_string();
        // `1 WDS-VR 9.17`: a hyphenated register.
        if self.s(k) == "-" && self.adj(k) && self.is_word(k + 1) && self.adj(k + 1) && self.s(k + 1).len() <= 4 {
            reg = format!("{reg}-{}", self.s(k + 1));
            k += 2;
        }
        if self.s(k) == "(" && self.is_word(k + 1) && self.s(k + 2) == ")" && self.s(k + 1).len() <= 5 {
            k += 3;
        }
        if !self.is_num(k) || !self.same_line(k) || self.s(k).len() > 5 {
            return None;
        }
        let sep = self.s(k + 1);
        if !(self.adj(k + 1) && self.adj(k + 2) && self.is_num(k + 2)) {
            return None;
        }
        let yl = self.s(k + 2).len();
        let ok = match sep {
            "/" => yl == 2 || yl == 4,
            // BVerwG `6 C 1.20` (number.year) and BayVGH `10 CS 19.1234` (year.number): only
            // with a known register.
            "." => {
                let before = self.s(k).len();
                (yl == 2 || (before == 2 && yl <= 5))
                    && (self.v.is_register(&reg) || reg.contains('-') || matches!(reg.as_str(), "NB" | "BN" | "CN"))
            }
            _ => false,
        };
        if !ok {
            return None;
        }
        // A register that is also a law book (`3 SGB 12/13`) is not one.
        if !self.v.is_register(&reg) && self.v.book_at(self.text, self.t, r).is_some() {
            return None;
        }
        let mut e = k + 3;
        // Suffixes: `R`, `B ER`, `.A`.
        for _ in 0..2 {
            if self.is_word(e)
                && self.same_line(e)
                && self.t[e].gap_sp
                && fn_suffix(self.s(e))
                && (!self.is_word(e + 1) || fn_suffix(self.s(e + 1)))
            {
                e += 1;
            } else if self.s(e) == "."
                && self.adj(e)
                && self.is_word(e + 1)
                && self.adj(e + 1)
                && fn_suffix(self.s(e + 1))
            {
                e += 2;
            } else {
                break;
            }
        }
        if lead && !matches!(w, "B" | "L" | "S") {
            return None;
        }
        Some((reg, e))
    }

    /// An Aktenzeichen at `i`, with court/kind/date found before it.
    pub(super) fn file_number_at(&mut self, i: usize) -> Option<usize> {
        let (reg, e) = self.file_number_shape(i)?;
        let fs = self.start_of(i);
        let fe = self.end_before(e);
        let number = self.slice(fs, fe).to_string();
        let mut k = i;
        // `Az.`, `Aktenzeichen`, `-` between the context and the number.
        if k >= 2 && self.s(k - 1) == "." && self.s(k - 2) == "Az" {
            k -= 2;
        } else if k >= 1 && matches!(self.s(k - 1), "Az" | "Aktenzeichen") {
            k -= 1;
        }
        let back = self.back_context(k);
        let start = if back.start < k { self.start_of(back.start) } else { fs };
        let court = back.court.clone();
        let canonical = match &court {
            Some(c) => format!("{c} {number}"),
            None => number.clone(),
        };
        let c = self.push_case(start, fe, CaseKind::FileNumber, canonical);
        c.court = court;
        c.court_span = back.court_span;
        c.decision_kind = back.kind;
        c.date = back.date;
        c.file_number = Some(number);
        c.file_number_span = Some((fs, fe));
        c.register = Some(reg);
        Some(e)
    }

    /// Walks back from token `k` over `[court][,] [kind] [vom|v.] [date] [,|-]` and a court
    /// written directly before (`BVerwG 4 C 19.85`). Never before `self.done`.
    fn back_context(&self, k: usize) -> Back {
        let mut b = Back { start: k, ..Default::default() };
        let lo = self.done;
        let mut j = k;
        // `im Verfahren 1 BvR 2821/11`, `Verfassungsbeschwerdeverfahren 1 BvR …`.
        if j > lo && self.is_word(j - 1) && (self.s(j - 1).ends_with("verfahren") || self.s(j - 1) == "Verfahren") {
            b.start = j - 1;
            return b;
        }
        let prev = |j: usize| if j > lo { Some(j - 1) } else { None };
        // Court directly before (`BVerwG 4 NB 43.93`, `BGH X ZB 6/71`).
        if let Some((cs, name)) = self.court_ending_at(j, lo) {
            b.court = Some(name);
            b.court_span = Some((self.start_of(cs), self.end_before(j)));
            b.start = cs;
            j = cs;
        }
        // Separator, then a date.
        let mut p = match prev(j) {
            Some(p) => p,
            None => return b,
        };
        if !self.same_line(j) && j < self.t.len() && j != k {
            return b;
        }
        if matches!(self.s(p), "-" | "–" | "," | ":") {
            p = match prev(p) {
                Some(x) => x,
                None => return b,
            };
        }
        let Some((ds, iso)) = self.date_backward(p, lo) else {
            // Court + separator + number: `BGH, VIII ZR 1/20`.
            if b.court.is_none()
                && let Some((cs, name)) = self.court_ending_at(p + 1, lo)
                && matches!(self.s(p + 1), "," | "-" | "–")
            {
                b.court = Some(name);
                b.court_span = Some((self.start_of(cs), self.end_before(p + 1)));
                b.start = cs;
            }
            return b;
        };
        b.date = Some(iso);
        b.start = ds;
        j = ds;
        // `vom` / `v.`
        if j > lo + 1 && self.s(j - 1) == "." && self.s(j - 2) == "v" {
            j -= 2;
        } else if j > lo && self.s(j - 1) == "vom" {
            j -= 1;
        } else if j > lo && self.s(j - 1) == "," {
            // `BVerfG, 1967-12-19, 2 BvL 4/65`
            if let Some((cs, name)) = self.court_ending_at(j - 1, lo) {
                if b.court.is_none() {
                    b.court = Some(name);
                    b.court_span = Some((self.start_of(cs), self.end_before(j - 1)));
                }
                b.start = cs;
            }
            return b;
        }
        b.start = j;
        // Words between kind and `vom`: `Beschluss der 1. Kammer des Zweiten Senats vom`.
        let mut q = j;
        let mut steps = 0;
        while q > lo && steps < 8 {
            let w = self.s(q - 1);
            if decision_kind(w) || (w == "." && q >= 2 && decision_kind(self.s(q - 2))) {
                break;
            }
            if matches!(w, "der" | "des" | "Kammer" | "Senats" | "." | "Zivilsenats" | "Strafsenats")
                || self.is_num(q - 1)
                || w.ends_with("en")
            {
                q -= 1;
                steps += 1;
            } else {
                break;
            }
        }
        let mut kind_start = None;
        if q > lo {
            let (kw, kidx) =
                if self.s(q - 1) == "." && q >= 2 { (self.s(q - 2), q - 2) } else { (self.s(q - 1), q - 1) };
            if decision_kind(kw) {
                kind_start = Some(kidx);
                b.kind = Some(kw.to_string());
            }
        }
        let Some(ks) = kind_start else {
            // Court + date without kind: `BAG 1. Oktober 2003 - …`, `BSG vom 21. 7. 2014`.
            if let Some((cs, name)) = self.court_ending_at(j, lo) {
                if b.court.is_none() {
                    b.court = Some(name);
                    b.court_span = Some((self.start_of(cs), self.end_before(j)));
                }
                b.start = cs;
            }
            return b;
        };
        b.start = ks;
        // `BFH-Urteil`: court joined to the kind by a hyphen.
        if ks > lo + 1 && self.s(ks - 1) == "-" && self.adj(ks) && self.adj(ks - 1) && is_court_word(self.s(ks - 2)) {
            if b.court.is_none() {
                b.court = Some(self.s(ks - 2).to_string());
                b.court_span = Some((self.start_of(ks - 2), self.end_before(ks - 1)));
            }
            b.start = ks - 2;
            return b;
        }
        // `BGH, Urteil vom`, `BGH Urteil vom`.
        let mut c = ks;
        if c > lo && self.s(c - 1) == "," {
            c -= 1;
        }
        if let Some((cs, name)) = self.court_ending_at(c, lo) {
            if b.court.is_none() {
                b.court = Some(name);
                b.court_span = Some((self.start_of(cs), self.end_before(c)));
            }
            b.start = cs;
        }
        b
    }

    /// A court name whose last token is `e - 1` → (first token, name). `BGH`, `OLG Hamm`,
    /// `LSG NRW`, `Hessisches FG`, `VG Frankfurt am Main`, `OLG Schleswig-Holstein`.
    fn court_ending_at(&self, e: usize, lo: usize) -> Option<(usize, String)> {
        if e == 0 || e <= lo {
            return None;
        }
        let last = e - 1;
        let w = self.s(last);
        if is_court_word(w) && self.is_word(last) {
            let mut s = last;
            // `Hessisches FG`, `Bayerisches LSG`, `Bay. LSG`, `Schleswig-Holsteinisches OLG`.
            if s > lo && self.is_word(s - 1) && (self.s(s - 1).ends_with("isches") || self.s(s - 1).ends_with("ischer"))
            {
                s -= 1;
                if s > lo + 1 && self.s(s - 1) == "-" && self.adj(s) && self.adj(s - 1) && self.is_word(s - 2) {
                    s -= 2;
                }
            } else if s > lo + 1
                && self.s(s - 1) == "."
                && self.adj(s - 1)
                && matches!(self.s(s - 2), "Bay" | "Hess" | "Nds" | "Sächs" | "Thür" | "Schl" | "Bad" | "Brandenb")
            {
                s -= 2;
            }
            return Some((s, self.slice(self.start_of(s), self.end_before(e)).to_string()));
        }
        // Place after a court type: walk back over up to 4 place tokens.
        let mut s = last;
        let mut n = 0;
        while s > lo && n < 5 {
            let t = self.s(s);
            let place_tok = (self.is_word(s)
                && (t.chars().next().is_some_and(|c| c.is_uppercase())
                    || matches!(t, "am" | "an" | "der" | "in" | "im")))
                || (t == "-" && self.adj(s) && self.adj(s + 1))
                || t == "."
                || t == "/";
            if !place_tok || !self.same_line(s + 1) && s != last {
                return None;
            }
            if court_with_place(self.s(s - 1)) && self.is_word(s) && s != last + 1 {
                let cs = s - 1;
                let name = self.slice(self.start_of(cs), self.end_before(e)).to_string();
                return Some((cs, name));
            }
            s -= 1;
            n += 1;
        }
        None
    }

    /// A date whose last token is `e` (inclusive) → (first token, ISO).
    fn date_backward(&self, e: usize, lo: usize) -> Option<(usize, String)> {
        if !self.is_num(e) {
            return None;
        }
        // Try start positions a few tokens back and parse forward to exactly `e + 1`.
        for back in [4usize, 3, 5] {
            if e < back || e - back < lo {
                continue;
            }
            let s = e - back;
            if let Some((iso, end)) = self.date_forward(s)
                && end == e + 1
            {
                return Some((s, iso));
            }
        }
        None
    }

    /// A date at `s`: `08.04.2009`, `23. 9. 1986`, `29. April 2015`, `1967-12-19` → (ISO, end).
    pub(super) fn date_forward(&self, s: usize) -> Option<(String, usize)> {
        if !self.is_num(s) {
            return None;
        }
        let a = self.s(s);
        // ISO
        if a.len() == 4
            && self.s(s + 1) == "-"
            && self.adj(s + 1)
            && self.is_num(s + 2)
            && self.adj(s + 2)
            && self.s(s + 3) == "-"
            && self.adj(s + 3)
            && self.is_num(s + 4)
            && self.adj(s + 4)
        {
            let (m, d) = (self.s(s + 2).parse::<u32>().ok()?, self.s(s + 4).parse::<u32>().ok()?);
            return valid(a.parse().ok()?, m, d).map(|iso| (iso, s + 5));
        }
        if a.len() > 2 || self.s(s + 1) != "." || !self.adj(s + 1) {
            return None;
        }
        let d: u32 = a.parse().ok()?;
        let (m, yi) = if self.is_num(s + 2) && self.same_line(s + 2) {
            if self.s(s + 3) != "." || self.s(s + 2).len() > 2 {
                return None;
            }
            (self.s(s + 2).parse::<u32>().ok()?, s + 4)
        } else {
            (month_of(self.s(s + 2))?, s + 3)
        };
        if !self.is_num(yi) || !self.same_line(yi) {
            return None;
        }
        let ys = self.s(yi);
        let y: i32 = match ys.len() {
            4 => ys.parse().ok()?,
            2 => {
                let v: i32 = ys.parse().ok()?;
                if v > 40 { 1900 + v } else { 2000 + v }
            }
            _ => return None,
        };
        valid(y, m, d).map(|iso| (iso, yi + 1))
    }

    /// A reporter citation at `i` (`BVerfGE 90, 22 (24)`, `NJW 2019, 1234, 1236`, `BStBl II
    /// 1972, 85`, `Buchholz 406.11 § 9 BauGB Nr. 74`), with follow-ups (`; 61, 138 (149)`).
    pub(super) fn reporter_case_at(&mut self, i: usize) -> Option<usize> {
        // Cheap reject: a reporter is followed by its volume, or by the rest of a multi-token
        // name (`BStBl II`, `BFH/NV`, `NJW-RR`, `GRUR Int.`, `Slg.`).
        let next_ok = match self.kind(i + 1) {
            Some(Kind::Num) => true,
            // `BFH/NV`, `NJW-RR`, `Slg. 2003`; not the comma or full stop after any word.
            Some(Kind::Punct) => {
                self.adj(i + 1)
                    && match self.s(i + 1) {
                        "/" | "-" => true,
                        "." => self.is_num(i + 2),
                        _ => false,
                    }
            }
            Some(Kind::Word) => {
                self.s(i + 1).len() <= 3 && matches!(self.s(i + 1), "I" | "II" | "III" | "Int" | "n" | "Nr")
            }
            _ => false,
        };
        if !next_ok {
            return None;
        }
        let r = self.v.reporter_at(self.text, self.t, i)?;
        let abbrev = r.abbrev;
        let mut j = r.end_tok;
        // `Slg. 2003`, `Mitt. 2016`: an abbreviation dot before the volume.
        if self.s(j) == "." && self.adj(j) && self.is_num(j + 1) {
            j += 1;
        }
        // `AP Nr 1 zu § 74a HGB` starts with its number; the others with a volume.
        if matches!(abbrev, "AP" | "LM") && self.abbr(j, "Nr", true).is_some_and(|k| self.is_num(k)) {
            return self.loose_leaf(i, j, abbrev);
        }
        if !self.is_num(j) || !self.same_line(j) {
            return None;
        }
        if matches!(abbrev, "Buchholz" | "SozR" | "AP" | "EzA" | "LM") {
            return self.loose_leaf(i, j, abbrev);
        }
        let official = r.court.is_some();
        let vol = self.s(j);
        let back = self.reporter_back(i);
        // Journals are cited by year; old series by volume only after a court (`KG, VRS 37, 445`).
        if !official && !(vol.len() == 4 && (vol.starts_with("19") || vol.starts_with("20"))) && back.is_none() {
            return None;
        }
        let (page, mut e) = self.page_after(j + 1)?;
        let volume = vol.to_string();
        let (pin, e2) = self.pinpoint(e);
        e = e2;
        // Court (and date) before: `BGH WuM 2004, 25`, `BVerwG vom 15.12.1994 NVwZ 1995, 897`,
        // `BFH-Urteil BFH/NV 2000, 852`.
        let literature = !official && back.is_none() && self.author_before(i);
        let rs = self.start_of(i);
        let start = back.as_ref().map_or(rs, |b| self.start_of(b.start));
        let end = self.end_before(e);
        let court = back.as_ref().and_then(|b| b.court.clone()).or(r.court.map(str::to_string));
        let c = self.push_case(start, end, CaseKind::Reporter, format!("{abbrev} {volume}, {page}"));
        c.court = court;
        if let Some(b) = &back {
            c.court_span = b.court_span;
            c.date = b.date.clone();
            c.decision_kind = b.kind.clone();
        }
        c.reporter = Some(abbrev.to_string());
        c.volume = Some(volume);
        c.page = Some(page);
        c.pinpoint = pin;
        c.literature = literature;
        // Follow-ups with the volume only: `BVerfGE 59, 36 (49); 61, 138 (149)`.
        if official {
            loop {
                // `BVerfGE 68, 287 (310 f.); 70, 219`: step over the open pinpoint's rest.
                let mut f = e;
                if matches!(self.s(f), "f" | "ff") {
                    f += 1;
                    if self.s(f) == "." {
                        f += 1;
                    }
                }
                if self.s(f) == ")" {
                    f += 1;
                }
                if !matches!(self.s(f), ";" | ",") || !self.is_num(f + 1) || !self.same_line(f + 1) {
                    break;
                }
                let v = f + 1;
                if self.s(v + 1) != "," || self.s(v).len() > 3 {
                    break;
                }
                let Some((page, pe)) = self.page_after(v + 1) else { break };
                let (pin, pe2) = self.pinpoint(pe);
                let s = self.start_of(v);
                let en = self.end_before(pe2);
                let volume = self.s(v).to_string();
                let c = self.push_case(s, en, CaseKind::Reporter, format!("{abbrev} {volume}, {page}"));
                c.court = r.court.map(str::to_string);
                c.reporter = Some(abbrev.to_string());
                c.volume = Some(volume);
                c.page = Some(page);
                c.pinpoint = pin;
                e = pe2;
            }
        }
        Some(e)
    }

    /// An author's name right before a journal citation (`Kleiber, ZfBR`, `Blumenberg/Lechner,
    /// DB`, `Prittwitz StV`): capitalised, not a court, a decision kind or a reporter.
    fn author_before(&self, i: usize) -> bool {
        let lo = self.done;
        let mut k = i;
        if k > lo && self.s(k - 1) == "," {
            k -= 1;
        }
        if k <= lo || !self.is_word(k - 1) || !self.same_line(k) {
            return false;
        }
        let w = self.s(k - 1);
        let cap = w.chars().next().is_some_and(|c| c.is_uppercase());
        cap && w.chars().skip(1).any(|c| c.is_lowercase())
            && !is_court_word(w)
            && !decision_kind(w)
            && !matches!(w, "In" | "Vgl" | "Siehe" | "Auch" | "Ebenso" | "Zuletzt" | "Zeitschrift" | "Dazu")
            && self.v.reporter_at(self.text, self.t, k - 1).is_none()
    }

    /// `, 22` or `,22` or `, S. 172` or `, I-4101` after a volume → (page, next).
    fn page_after(&self, j: usize) -> Option<(String, usize)> {
        if self.s(j) != "," {
            return None;
        }
        let mut k = j + 1;
        if self.s(k) == "S" && self.s(k + 1) == "." {
            k += 2;
        }
        if self.is_num(k) && self.same_line(k) {
            return Some((self.s(k).to_string(), k + 1));
        }
        if roman(self.s(k)) && self.s(k + 1) == "-" && self.is_num(k + 2) && self.adj(k + 1) && self.adj(k + 2) {
            return Some((format!("{}-{}", self.s(k), self.s(k + 2)), k + 3));
        }
        None
    }

    /// Page pinpoints: `, 719`, ` (24)`, ` <255>`, `/386`; an open `(271 f.)` keeps `(271`.
    fn pinpoint(&self, e: usize) -> (Option<String>, usize) {
        let s = self.s(e);
        if s == "," && self.is_num(e + 1) && self.same_line(e + 1) && !(self.s(e + 2) == "," && self.is_num(e + 3)) {
            // `, 719` but not the next `, 12, 34` volume-page pair.
            let nx = self.s(e + 2);
            if !(nx == "/" || nx == "." && self.is_num(e + 3)) {
                return (Some(self.s(e + 1).to_string()), e + 2);
            }
        }
        if s == "," && self.is_num(e + 1) && self.s(e + 2) == "," && self.is_num(e + 3) {
            // `GRUR 2002, 717, 719, 720`? take one pinpoint only when followed by non-number.
            return (Some(self.s(e + 1).to_string()), e + 2);
        }
        if (s == "(" || s == "<") && self.is_num(e + 1) && self.adj(e + 1) && self.same_line(e) {
            let close = if s == "(" { ")" } else { ">" };
            if self.s(e + 2) == close {
                return (Some(self.s(e + 1).to_string()), e + 3);
            }
            return (Some(self.s(e + 1).to_string()), e + 2);
        }
        (None, e)
    }

    /// Court and date before a reporter citation (refex marks `BGH WuM 2004, 25` as one span).
    fn reporter_back(&self, i: usize) -> Option<Back> {
        let lo = self.done;
        let mut j = i;
        if j > lo && self.s(j - 1) == "in" {
            j -= 1;
        }
        let mut b = Back::default();
        // `vom 15.12.1994`
        if j > lo + 1
            && let Some((ds, iso)) = self.date_backward(j - 1, lo)
            && ds > lo
            && self.s(ds - 1) == "vom"
        {
            b.date = Some(iso);
            j = ds - 1;
        }
        // `BFH-Urteil`
        if j > lo + 2 && decision_kind(self.s(j - 1)) && self.s(j - 2) == "-" && is_court_word(self.s(j - 3)) {
            b.kind = Some(self.s(j - 1).to_string());
            b.court = Some(self.s(j - 3).to_string());
            b.court_span = Some((self.start_of(j - 3), self.end_before(j - 2)));
            b.start = j - 3;
            return Some(b);
        }
        let c = if j > lo && self.s(j - 1) == "," { j - 1 } else { j };
        let (cs, name) = self.court_ending_at(c, lo)?;
        if !self.same_line(c) && c < self.t.len() {
            return None;
        }
        b.court = Some(name);
        b.court_span = Some((self.start_of(cs), self.end_before(c)));
        b.start = cs;
        Some(b)
    }

    /// Loose-leaf collections: `Buchholz 406.11 § 9 BauGB Nr. 74`, `SozR 3-2500 § 240 Nr 6`,
    /// `AP Nr 1 zu § 74a HGB`. The `§` inside is refused as a statute.
    fn loose_leaf(&mut self, i: usize, mut j: usize, abbrev: &'static str) -> Option<usize> {
        let vol_start = j;
        // Volume: `406.11`, `3-2500`, `4 - 1750`.
        while j < vol_start + 5 && (self.is_num(j) || matches!(self.s(j), "." | "-" | "–")) && self.same_line(j) {
            j += 1;
        }
        let volume = self.slice(self.start_of(vol_start), self.end_before(j)).trim().to_string();
        let mut nr = None;
        if matches!(abbrev, "AP" | "LM")
            && let Some(k) = self.abbr(j, "Nr", true)
            && self.is_num(k)
        {
            nr = Some(self.s(k).to_string());
            j = k + 1;
            if self.s(j) == "zu" {
                j += 1;
            }
        }
        // `Buchholz 404 IFG Nr. 19`: the law of the section without a `§`.
        if self.is_word(j) && self.abbrev_like(self.s(j)) && self.abbr(j + 1, "Nr", true).is_some() {
            j += 1;
        }
        if self.kind(j) == Some(Kind::Para) && self.same_line(j) {
            let ps = self.start_of(j);
            let mut k = j + 1;
            if self.is_num(k) {
                k += 1;
                if self.is_word(k) && self.adj(k) && self.s(k).len() <= 2 {
                    k += 1;
                }
            }
            if let Some(b) = self.v.book_at(self.text, self.t, k) {
                k = b.end_tok;
            } else if self.is_word(k) && self.abbrev_like(self.s(k)) {
                k += 1;
            }
            self.out.refused.push(RefusedLookalike {
                start: ps,
                end: self.end_before(k),
                raw: String::new(),
                reason: RefusalReason::InsideReporter,
            });
            j = k;
        }
        if let Some(k) = self.abbr(j, "Nr", true)
            && self.is_num(k)
            && self.same_line(k)
        {
            nr = Some(self.s(k).to_string());
            j = k + 1;
        }
        // `S 2` page of the sheet.
        if self.s(j) == "S" && self.is_num(j + 1) && self.same_line(j + 1) {
            j += 2;
        }
        let back = self.reporter_back(i);
        let s = back.as_ref().map_or(self.start_of(i), |b| self.start_of(b.start));
        let e = self.end_before(j);
        let page = nr.unwrap_or_default();
        let c = self.push_case(s, e, CaseKind::Reporter, format!("{abbrev} {volume} Nr. {page}"));
        c.reporter = Some(abbrev.to_string());
        c.volume = Some(volume);
        c.page = Some(page);
        if let Some(b) = &back {
            c.court_span = b.court_span;
        }
        c.court = match abbrev {
            "Buchholz" => Some("BVerwG".into()),
            "SozR" => Some("BSG".into()),
            "AP" => Some("BAG".into()),
            "LM" => Some("BGH".into()),
            _ => None,
        };
        Some(j)
    }
}

#[derive(Default, Clone)]
struct Back {
    start: usize,
    court: Option<String>,
    court_span: Option<(usize, usize)>,
    kind: Option<String>,
    date: Option<String>,
}

fn valid(y: i32, m: u32, d: u32) -> Option<String> {
    if !(1800..=2100).contains(&y) || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    Some(format!("{y:04}-{m:02}-{d:02}"))
}
