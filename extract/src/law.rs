//! Law records: one [`LawBook`] per gii law, one [`LawSection`] per § / Artikel / Anlage.
//! These are the records `extract` writes and `resolve`/`index` read.

use serde::{Deserialize, Serialize};

/// Bumped whenever the extracted shape or text rules change, so old outputs are redone.
pub const LAW_EXTRACT_VERSION: u32 = 1;

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
    /// Lookup key derived from `enbez` by [`section_key`] (`823`, `20`, `anlage 1`).
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

/// Normalises a section designation to its lookup key, for the stored `enbez` and for what a
/// user types alike: `§ 823`, `§823`, `823` → `823`; `Art. 20`, `Art 20`, `Artikel 20` → `20`;
/// `§ 823 a` → `823a`; anything else lowercased with single spaces (`Anlage 1` → `anlage 1`).
pub fn section_key(designation: &str) -> String {
    let s = designation.trim();
    let lower = s.to_lowercase();
    let rest = ["§§", "§", "artikel", "art.", "art"]
        .iter()
        .find_map(|p| lower.strip_prefix(p).map(str::trim_start))
        .filter(|r| r.chars().next().is_some_and(|c| c.is_ascii_digit()));
    match rest {
        Some(r) => r.chars().filter(|c| !c.is_whitespace() && *c != '.').collect(),
        None if lower.chars().next().is_some_and(|c| c.is_ascii_digit()) => {
            lower.chars().filter(|c| !c.is_whitespace()).collect()
        }
        None => lower.split_whitespace().collect::<Vec<_>>().join(" "),
    }
}

/// The kind of a section from its `enbez`.
pub fn section_kind(enbez: Option<&str>) -> SectionKind {
    let Some(e) = enbez.map(str::trim) else { return SectionKind::Other };
    let lower = e.to_lowercase();
    let digit_after = |p: &str| {
        lower.strip_prefix(p).map(str::trim_start).is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
    };
    if digit_after("§§") || digit_after("§") {
        SectionKind::Paragraph
    } else if digit_after("artikel") || digit_after("art.") || digit_after("art") {
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
