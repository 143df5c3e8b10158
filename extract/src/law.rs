//! Law records: one [`LawBook`] per gii law, one [`LawSection`] per § / Artikel / Anlage.
//! These are the records `extract` writes and `resolve`/`index` read.

use std::collections::BTreeMap;

pub use model::NormDropReason;
use serde::{Deserialize, Serialize};

/// Bumped whenever the extracted shape or text rules change, so old outputs are redone.
/// 2: every text-bearing norm is a row (heading units with text, `Art. 229 § 5`), norm account.
pub const LAW_EXTRACT_VERSION: u32 = 2;

/// The most plain text one section may hold: UTF-8 bytes of its text plus its footnotes.
/// The largest real norm of the whole gii corpus (a table of `nordsbefv`) is 0.68 MB, so 4 MiB
/// leaves room and still stops a hostile document; a norm over it is dropped whole with
/// [`NormDropReason::SectionTooLarge`] in the norm account (never cut).
pub const MAX_SECTION_TEXT_BYTES: usize = 4 * 1024 * 1024;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LawBook {
    /// The gii slug (`bgb`, `ao_1977`): the stable key of a law.
    pub slug: String,
    pub doknr: String,
    /// `builddate` of the XML root (`YYYYMMDDhhmmss`), when present.
    pub builddate: Option<String>,
    /// Every `<jurabk>` of the header norm, in order (usually one; `fsbetrv` has two).
    pub jurabk: Vec<String>,
    pub amtabk: Option<String>,
    /// `<langue>`, whitespace-collapsed; falls back to the toc title.
    pub title: String,
    /// `<kurzue>`, when present.
    pub short_title: Option<String>,
    /// The toc's title for this law.
    pub toc_title: String,
    pub ausfertigung_datum: Option<String>,
    /// `periodikum zitstelle` of the official publication, e.g. `RGBl 1896, 195`.
    pub fundstelle: Option<String>,
    /// `standangabe` comments (`Neugefasst durch …`, `zuletzt geändert durch …`).
    pub stand: Vec<String>,
    /// Footnotes of the header norm.
    pub notes: Option<String>,
    pub xml_sha256: String,
    pub zip_sha256: String,
    pub sections: Vec<LawSection>,
    /// What became of every `<norm>` of the XML.
    pub norm_account: NormAccount,
    /// The norms counted in `norm_account.dropped`, one by one.
    pub dropped_norms: Vec<DroppedNorm>,
}

/// Every `<norm>` of a law's XML is exactly one of: a section row, the law header (when its own
/// text is no row), a pure heading, or dropped with a reason. `norms` equals their sum.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct NormAccount {
    /// `<norm>` elements in the XML.
    pub norms: usize,
    /// Norms that became a section row (the header norm's own text, when it has some, included).
    pub section_rows: usize,
    /// 1 when the header norm (the law's metadata) became no row, 0 when its text is a row.
    pub law_header: usize,
    /// Headings without text or footnotes (`<gliederungseinheit>` only): they feed breadcrumbs.
    pub headings: usize,
    /// Norms that became no row, by reason; every reason is listed, 0 when none.
    pub dropped: BTreeMap<NormDropReason, usize>,
    /// Norms with non-empty text or footnotes (header: text), whichever category they fell in;
    /// a law with some and no row has lost text.
    pub text_bearing: usize,
}

impl Default for NormAccount {
    fn default() -> Self {
        NormAccount {
            norms: 0,
            section_rows: 0,
            law_header: 0,
            headings: 0,
            dropped: NormDropReason::ALL.iter().map(|r| (*r, 0)).collect(),
            text_bearing: 0,
        }
    }
}

impl NormAccount {
    pub fn dropped_total(&self) -> usize {
        self.dropped.values().sum()
    }

    /// The categories' sum; equals `norms` when every norm is accounted for.
    pub fn accounted(&self) -> usize {
        self.section_rows + self.law_header + self.headings + self.dropped_total()
    }

    pub fn drop(&mut self, reason: NormDropReason) {
        *self.dropped.entry(reason).or_default() += 1;
    }

    /// Adds another law's account (totals over a run or a generation).
    pub fn add(&mut self, other: &NormAccount) {
        self.norms += other.norms;
        self.section_rows += other.section_rows;
        self.law_header += other.law_header;
        self.headings += other.headings;
        self.text_bearing += other.text_bearing;
        for (r, n) in &other.dropped {
            *self.dropped.entry(*r).or_default() += n;
        }
    }
}

/// One norm the extraction dropped, with why.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct DroppedNorm {
    pub doknr: String,
    /// What it would have been cited as, if it has a designation.
    pub designation: Option<String>,
    pub reason: NormDropReason,
    /// UTF-8 bytes of its plain text plus footnotes.
    pub text_bytes: usize,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SectionKind {
    /// `§ 823`
    Paragraph,
    /// `Art 20`, `Artikel 1`
    Article,
    /// `Anlage 1`, `Anhang`
    Annex,
    /// Präambel, Eingangsformel, Schlussformel, Inhaltsübersicht, `(XXXX)` placeholders, unlabelled text.
    Other,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LawSection {
    /// The norm's own doknr: unique within the law, unlike `enbez`.
    pub doknr: String,
    /// `<enbez>` as printed (`§ 823`, `Art 20`, `Anlage 1`), if any.
    pub enbez: Option<String>,
    /// What the section is cited as: the `enbez`; `Art. 229 § 5` for a § inside an article's
    /// heading unit (EGBGB, EGInsO, EGAO); the unit's own designation (`Art 22`, `Abschnitt 2`)
    /// for a heading unit that carries text and no enbez.
    pub designation: Option<String>,
    /// Lookup key derived from `designation` by [`section_key`] (`823`, `20`, `229§5`, `anlage 1`).
    pub key: Option<String>,
    pub kind: SectionKind,
    /// `<titel>` as plain text (`Schadensersatzpflicht`), if any.
    pub heading: Option<String>,
    /// The gliederungseinheiten above this norm, outermost first (`Buch 2 Recht der Schuldverhältnisse`).
    pub breadcrumb: Vec<String>,
    /// Plain text per the seed-000 rules.
    pub text: String,
    pub footnotes: Option<String>,
    /// Absätze found as lines starting with `(1)`, `(2a)` …; offsets in code points into `text`.
    pub absaetze: Vec<Absatz>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Absatz {
    pub number: String,
    pub start: usize,
    pub end: usize,
}

/// Normalises a section designation to its lookup key, for the stored designation and for what a
/// user types alike: `§ 823`, `§823`, `823` → `823`; `Art. 20`, `Art 20`, `Artikel 20` → `20`;
/// `§ 823 a` → `823a`; `Art. 229 § 5`, `Art 229 §5` → `229§5`; `Art II`, `Art. II § 10` → `ii`,
/// `ii§10`; anything else lowercased with single spaces (`Anlage 1` → `anlage 1`).
pub fn section_key(designation: &str) -> String {
    let s = designation.trim();
    let lower = s.to_lowercase();
    let compact = |r: &str| r.chars().filter(|c| !c.is_whitespace() && *c != '.').collect::<String>();
    let paragraph = ["§§", "§"].iter().find_map(|p| lower.strip_prefix(p).map(str::trim_start));
    if let Some(r) = paragraph.filter(|r| starts_with_digit(r)) {
        return compact(r);
    }
    if let Some(r) = strip_article_prefix(&lower).filter(|r| starts_with_digit(r) || roman_token_len(r).is_some()) {
        return compact(r);
    }
    if starts_with_digit(&lower) {
        return lower.chars().filter(|c| !c.is_whitespace()).collect();
    }
    lower.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn starts_with_digit(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_digit())
}

/// What follows `Artikel` / `Art.` / `Art` at the start of a lowercased designation, trimmed.
fn strip_article_prefix(lower: &str) -> Option<&str> {
    ["artikel", "art.", "art"].iter().find_map(|p| lower.strip_prefix(p)).map(str::trim_start)
}

/// Length of a Roman article number (`ii`, `xiv`, lowercased) at the start of `r`, when it is a
/// well-formed numeral from 1 to 399 followed by the end, a space, `.` or `§`.
fn roman_token_len(r: &str) -> Option<usize> {
    let n = r.chars().take_while(|c| matches!(c, 'i' | 'v' | 'x' | 'l' | 'c')).count();
    let (token, after) = r.split_at(n);
    let ends = after.is_empty() || after.starts_with([' ', '.', '§']);
    (n > 0 && ends && roman_value(token).is_some_and(|v| to_roman(v) == token)).then_some(n)
}

fn roman_value(token: &str) -> Option<u32> {
    let digit = |c: char| match c {
        'i' => 1,
        'v' => 5,
        'x' => 10,
        'l' => 50,
        'c' => 100,
        _ => 0,
    };
    let vals: Vec<u32> = token.chars().map(digit).collect();
    let mut total = 0u32;
    for (i, v) in vals.iter().enumerate() {
        if vals.get(i + 1).is_some_and(|next| next > v) { total = total.checked_sub(*v)? } else { total += v }
    }
    (1..400).contains(&total).then_some(total)
}

/// Canonical lowercase Roman numeral of `v` (< 400): the well-formedness check of [`roman_token_len`].
fn to_roman(mut v: u32) -> String {
    let table = [(100, "c"), (90, "xc"), (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")];
    let mut out = String::new();
    for (n, s) in table {
        while v >= n {
            out.push_str(s);
            v -= n;
        }
    }
    out
}

/// The designation of a `§` norm inside an article's heading unit, as it is cited:
/// `<gliederungsbez>Art 229</gliederungsbez>` + `<enbez>§ 5</enbez>` → `Art. 229 § 5`
/// (EGBGB, EGInsO `Art. 102 § 1`, EGAO `Art. 97 § 1`, `Art. II § 10`). None when the unit is
/// not one article (`Abschnitt V`, `Art 3 u. 4`, `-`) or the enbez is not one § (`§§ 1 bis 5`,
/// `Inhaltsverzeichnis`).
pub fn article_paragraph_designation(gliederungsbez: &str, enbez: &str) -> Option<String> {
    let unit = gliederungsbez.trim();
    let lower = unit.to_lowercase();
    let number_lower = strip_article_prefix(&lower)?;
    // The prefixes are ASCII, so the number starts at the same byte in the printed unit.
    let number = unit[lower.len() - number_lower.len()..].trim();
    let single_token = !number.is_empty() && number.chars().all(|c| c.is_alphanumeric());
    let is_number = starts_with_digit(number) || roman_token_len(number_lower) == Some(number_lower.len());
    if !(single_token && is_number) {
        return None;
    }
    let par = enbez.trim().strip_prefix('§').filter(|r| !r.starts_with('§'))?.trim();
    let one_par = starts_with_digit(par) && par.chars().all(|c| c.is_ascii_alphanumeric());
    one_par.then(|| format!("Art. {number} § {par}"))
}

/// The kind of a section from its designation.
pub fn section_kind(designation: Option<&str>) -> SectionKind {
    let Some(e) = designation.map(str::trim) else { return SectionKind::Other };
    let lower = e.to_lowercase();
    let paragraph = ["§§", "§"].iter().find_map(|p| lower.strip_prefix(p).map(str::trim_start));
    if paragraph.is_some_and(starts_with_digit) {
        SectionKind::Paragraph
    } else if strip_article_prefix(&lower).is_some_and(|r| starts_with_digit(r) || roman_token_len(r).is_some()) {
        SectionKind::Article
    } else if lower.starts_with("anlage") || lower.starts_with("anhang") {
        SectionKind::Annex
    } else {
        SectionKind::Other
    }
}

/// Absätze are lines that start with `(N)` or `(Na)` followed by a space or the end.
pub fn find_absaetze(text: &str) -> Vec<Absatz> {
    let mut found: Vec<(String, usize)> = Vec::new();
    let mut offset = 0usize;
    for line in text.split('\n') {
        if let Some(n) = absatz_number(line) {
            found.push((n, offset));
        }
        offset += line.chars().count() + 1;
    }
    let total = text.chars().count();
    let mut out = Vec::with_capacity(found.len());
    for i in 0..found.len() {
        let end = found.get(i + 1).map(|x| x.1 - 1).unwrap_or(total);
        out.push(Absatz { number: found[i].0.clone(), start: found[i].1, end });
    }
    out
}

fn absatz_number(line: &str) -> Option<String> {
    let rest = line.strip_prefix('(')?;
    let close = rest.find(')')?;
    let inner = &rest[..close];
    let digits = inner.chars().take_while(|c| c.is_ascii_digit()).count();
    let suffix = &inner[digits..];
    let after = &rest[close + 1..];
    let ok = (1..=3).contains(&digits)
        && suffix.chars().count() <= 1
        && suffix.chars().all(|c| c.is_ascii_lowercase())
        && (after.is_empty() || after.starts_with(' '));
    ok.then(|| inner.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn section_keys_accept_every_spelling_and_stay_exact() {
        for s in ["823", "§ 823", "§823", " § 823 "] {
            assert_eq!(section_key(s), "823", "{s}");
        }
        for s in ["Art. 20", "Art 20", "Artikel 20", "art 20"] {
            assert_eq!(section_key(s), "20", "{s}");
        }
        assert_eq!(section_key("§ 823a"), "823a");
        assert_eq!(section_key("§ 823 a"), "823a");
        assert_eq!(section_key("Anlage 1"), "anlage 1");
        assert_eq!(section_key("Schlußformel"), "schlußformel");
        assert_ne!(section_key("§ 1823"), section_key("823"));
    }

    #[test]
    fn article_paragraphs_are_one_designation_and_one_key() {
        assert_eq!(article_paragraph_designation("Art 229", "§ 5").as_deref(), Some("Art. 229 § 5"));
        assert_eq!(article_paragraph_designation("Art 102c", "§ 1a").as_deref(), Some("Art. 102c § 1a"));
        assert_eq!(article_paragraph_designation("Artikel 97", "§ 1").as_deref(), Some("Art. 97 § 1"));
        assert_eq!(article_paragraph_designation("Art II", "§ 10").as_deref(), Some("Art. II § 10"));
        for (unit, enbez) in [
            ("-", "§ 3"),
            ("Abschnitt V", "Art 1"),
            ("Unterartikel 5", "§ 1"),
            ("Art 3 u. 4", "§ 1"),
            ("Art 1", "(XXXX) §§ 1 bis 5"),
            ("Art 2", "Inhaltsverzeichnis"),
            ("Art 1", "I."),
            ("Vierter Teil", "§ 5"),
        ] {
            assert_eq!(article_paragraph_designation(unit, enbez), None, "{unit} + {enbez}");
        }
        // The key a citation `Art. 229 § 5 EGBGB` is looked up by, however it is typed.
        for typed in ["Art. 229 § 5", "Art 229 § 5", "Art. 229 §5", "Artikel 229 § 5", " art. 229  §  5 "] {
            assert_eq!(section_key(typed), "229§5", "{typed}");
        }
        assert_ne!(section_key("Art. 229 § 5"), section_key("Art. 229 § 52"));
        assert_ne!(section_key("Art. 229 § 5"), section_key("§ 5"));
        assert_ne!(section_key("Art. 229 § 5"), section_key("Art. 229"));
        assert_eq!(section_key("Art. 102c § 1a"), "102c§1a");
        // Roman article numbers: the same key with or without the dot, also as a compound.
        for typed in ["Art II", "Art. II", "Artikel II"] {
            assert_eq!(section_key(typed), "ii", "{typed}");
        }
        assert_eq!(section_key("Art. II § 10"), "ii§10");
        assert_eq!(section_key("Art II §10"), "ii§10");
        // Not Roman numerals: words after `Art` stay words.
        assert_eq!(section_key("Art civil"), "art civil");
        assert_eq!(section_key("Artenschutz"), "artenschutz");
        assert_eq!(section_kind(Some("Art. 229 § 5")), SectionKind::Article);
        assert_eq!(section_kind(Some("Art II")), SectionKind::Article);
    }

    #[test]
    fn kinds_follow_enbez() {
        assert_eq!(section_kind(Some("§ 1")), SectionKind::Paragraph);
        assert_eq!(section_kind(Some("Art 20")), SectionKind::Article);
        assert_eq!(section_kind(Some("Anlage 3")), SectionKind::Annex);
        assert_eq!(section_kind(Some("Eingangsformel")), SectionKind::Other);
        assert_eq!(section_kind(Some("(XXXX) §§ 1 und 2")), SectionKind::Other);
        assert_eq!(section_kind(None), SectionKind::Other);
    }

    #[test]
    fn absaetze_are_lines_with_a_number_in_parentheses() {
        let text = "(1) Wer eine Tat begeht, handelt nicht rechtswidrig.\n(2) Notwehr ist …\n1. keine\n(2a) neu";
        let a = find_absaetze(text);
        let nums: Vec<&str> = a.iter().map(|x| x.number.as_str()).collect();
        assert_eq!(nums, ["1", "2", "2a"]);
        let chars: Vec<char> = text.chars().collect();
        let first: String = chars[a[0].start..a[0].end].iter().collect();
        assert_eq!(first, "(1) Wer eine Tat begeht, handelt nicht rechtswidrig.");
        assert_eq!(a[2].end, chars.len());
        assert!(find_absaetze("(vgl. § 5) Text").is_empty());
    }
}
