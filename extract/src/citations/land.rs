//! Land law: which cited instruments are laws of a Land (`IFG Bln`, `VwVfG-SH`, `KAG M-V`,
//! `BayBO`, `Nds. SOG`, `Berliner Straßengesetz`, `ASOG`), so that they are never bound to the
//! federal law whose abbreviation they share (`IFG`, `VwVfG`). We hold federal law only; a Land
//! law citation is out of scope, and binding it to the federal text verifies the wrong norm.
//!
//! The Land marks and Land-law names are reference data, `extract/reference/land-law.tsv`
//! (form, kind, state, meaning, source), loaded once ([`LandTable::shipped`]). The table also
//! lists the few held federal codes that carry a Land mark (`BRüG-Saar`, `NSUnrG HE`): a code the
//! federal corpus holds as its own jurabk/amtabk stays federal.

use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

pub(crate) const LAND_LAW_TSV: &str = include_str!("../../reference/land-law.tsv");

/// A cited instrument that is Land law: as the citation writes it, and the Land when told.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateLaw {
    /// The instrument as written, whitespace collapsed (`IFG Bln`, `VwVfG-SH`, `Nds. SOG`).
    pub instrument: String,
    /// The Land (`Berlin`); None when the name is used by several Länder and no mark tells which.
    pub state: Option<String>,
}

/// How a form of the table attaches to an instrument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MarkKind {
    Suffix,
    Prefix,
    Adjective,
    Name,
    Federal,
}

/// The Land marks and Land-law names of `land-law.tsv`. `Send + Sync`; see [`LandTable::shipped`].
#[derive(Debug, Default)]
pub struct LandTable {
    /// Mark written after an instrument → Land.
    suffixes: HashMap<&'static str, &'static str>,
    /// Mark written before an instrument → Land (longest first, for glued prefixes).
    prefixes: Vec<(&'static str, &'static str)>,
    /// Adjective stem before a spelled-out law → Land.
    adjectives: Vec<(&'static str, &'static str)>,
    /// Land-law abbreviation → Land ("" = several Länder).
    names: HashMap<&'static str, &'static str>,
    /// Held federal codes that look like Land law.
    federal: HashMap<&'static str, ()>,
}

/// The Land marks of the table that may be glued to an instrument's end (`VwVfGBbg`): only
/// those of three letters or more, so that `…SH`/`…ST` endings of federal codes never count.
const MIN_GLUED_MARK: usize = 3;

impl LandTable {
    /// The shipped table, parsed on first use.
    pub fn shipped() -> &'static LandTable {
        static T: OnceLock<LandTable> = OnceLock::new();
        T.get_or_init(|| LandTable::from_tsv(LAND_LAW_TSV))
    }

    /// Parses a table in the shipped format; comment lines (`#`) and the header are skipped, as
    /// are lines of an unknown kind.
    pub fn from_tsv(tsv: &'static str) -> LandTable {
        let mut t = LandTable::default();
        for line in tsv.lines().filter(|l| !l.starts_with('#') && !l.is_empty()).skip(1) {
            let mut p = line.split('\t');
            let (Some(form), Some(kind), Some(state)) = (p.next(), p.next(), p.next()) else { continue };
            let kind = match kind {
                "suffix" => MarkKind::Suffix,
                "prefix" => MarkKind::Prefix,
                "adjective" => MarkKind::Adjective,
                "name" => MarkKind::Name,
                "federal" => MarkKind::Federal,
                _ => continue,
            };
            match kind {
                MarkKind::Suffix => drop(t.suffixes.insert(form, state)),
                MarkKind::Prefix => t.prefixes.push((form, state)),
                MarkKind::Adjective => t.adjectives.push((form, state)),
                MarkKind::Name => drop(t.names.insert(form, state)),
                MarkKind::Federal => drop(t.federal.insert(form, ())),
            }
        }
        t.prefixes.sort_by_key(|(f, _)| std::cmp::Reverse(f.len()));
        t
    }

    /// The Land of a mark written after an instrument (`Bln`, `M-V`, `NRW`).
    pub fn suffix_mark(&self, w: &str) -> Option<&'static str> {
        self.suffixes.get(w).copied()
    }

    /// The Land of a mark written before an instrument, apart from it (`Nds.`, `Bbg`).
    pub fn prefix_mark(&self, w: &str) -> Option<&'static str> {
        let w = w.strip_suffix('.').unwrap_or(w);
        self.prefixes.iter().find(|(f, _)| *f == w).map(|(_, s)| *s)
    }

    /// Whether `instrument` (as a citation writes it) is Land law, and of which Land:
    /// `Some(Some(land))`, `Some(None)` (a Land-law name several Länder use), or None (federal,
    /// EU or unknown). A held federal code listed in the table is never Land law.
    pub fn land_of(&self, instrument: &str) -> Option<Option<&'static str>> {
        let words: Vec<&str> = instrument.split_whitespace().collect();
        if self.federal.contains_key(words.join(" ").as_str()) {
            return None;
        }
        // A year after the instrument (`IFG Bln 2006`) does not hide its mark.
        let end = match words.last() {
            Some(y) if words.len() > 1 && y.len() == 4 && y.bytes().all(|b| b.is_ascii_digit()) => words.len() - 1,
            _ => words.len(),
        };
        let words = &words[..end];
        let (first, last) = (*words.first()?, *words.last()?);
        let told = |s: &'static str| if s.is_empty() { None } else { Some(s) };
        // Suffix apart (`IFG Bln`, `KAG M-V`), hyphenated (`IFG-SH`, `IFG-M-V`) or glued (`VwVfGBbg`).
        if words.len() > 1
            && let Some(s) = self.suffix_mark(last)
        {
            return Some(told(s));
        }
        for (i, _) in last.match_indices('-') {
            if i > 0
                && let Some(s) = self.suffix_mark(&last[i + 1..])
            {
                return Some(told(s));
            }
        }
        for (mark, s) in self.suffixes.iter().filter(|(m, _)| m.len() >= MIN_GLUED_MARK) {
            if let Some(base) = last.strip_suffix(mark)
                && base.chars().count() >= 2
                && base.chars().last().is_some_and(char::is_uppercase)
            {
                return Some(told(s));
            }
        }
        // Prefix glued (`BayBO`, `SächsUIG`, `NRW.Bank-G`) or apart (`Nds. SOG`, `Bbg DSG`).
        for (mark, s) in &self.prefixes {
            if let Some(rest) = first.strip_prefix(mark) {
                let rest = rest.strip_prefix('.').unwrap_or(rest);
                let glued = rest.chars().next().is_some_and(char::is_uppercase);
                if glued || (rest.is_empty() && words.len() > 1) {
                    return Some(told(s));
                }
            }
        }
        // An adjective of the Land before a spelled-out law (`Berliner Straßengesetz`).
        if words.len() > 1
            && let Some((_, s)) = self.adjectives.iter().find(|(a, _)| first.starts_with(a))
        {
            return Some(told(s));
        }
        // A Land-law name (`ASOG`, `LVwG`, `HVwVfG`), also hyphenated on (`IZG-…`).
        let head = first.split('-').next().unwrap_or(first);
        self.names.get(first).or_else(|| self.names.get(head)).map(|s| told(s))
    }

    /// [`LandTable::land_of`] as the scanner's record, with the instrument whitespace-collapsed.
    pub fn state_law(&self, instrument: &str) -> Option<StateLaw> {
        let state = self.land_of(instrument)?;
        // The instrument without what the scanner reads after it: a year, a date (`vom …`).
        let mut words: Vec<&str> = instrument.split_whitespace().collect();
        if let Some(v) = words.iter().position(|w| *w == "vom").filter(|&v| v > 0) {
            words.truncate(v);
        }
        if words.len() > 1 && words.last().is_some_and(|y| y.len() == 4 && y.bytes().all(|b| b.is_ascii_digit())) {
            words.pop();
        }
        let instrument = words.join(" ");
        Some(StateLaw { instrument, state: state.map(str::to_string) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn land(s: &str) -> Option<Option<&'static str>> {
        LandTable::shipped().land_of(s)
    }

    #[test]
    fn marks_however_attached() {
        assert_eq!(land("IFG Bln"), Some(Some("Berlin")));
        assert_eq!(land("VwVfG Bln"), Some(Some("Berlin")));
        assert_eq!(land("VwVfG-SH"), Some(Some("Schleswig-Holstein")));
        assert_eq!(land("IFG M-V"), Some(Some("Mecklenburg-Vorpommern")));
        assert_eq!(land("IFG-M-V"), Some(Some("Mecklenburg-Vorpommern")));
        assert_eq!(land("IFG MV"), Some(Some("Mecklenburg-Vorpommern")));
        assert_eq!(land("IFG-SH"), Some(Some("Schleswig-Holstein")));
        assert_eq!(land("KAG-LSA"), Some(Some("Sachsen-Anhalt")));
        assert_eq!(land("VwVfGBbg"), Some(Some("Brandenburg")));
        assert_eq!(land("IFG NRW 2002"), Some(Some("Nordrhein-Westfalen")));
        assert_eq!(land("PolG BW"), Some(Some("Baden-Württemberg")));
        assert_eq!(land("ASOG Bln"), Some(Some("Berlin")));
        assert_eq!(land("SchulG Bln"), Some(Some("Berlin")));
        assert_eq!(land("LVwG SH"), Some(Some("Schleswig-Holstein")));
    }

    #[test]
    fn prefixes_adjectives_and_names() {
        assert_eq!(land("BayBO"), Some(Some("Bayern")));
        assert_eq!(land("SächsUIG"), Some(Some("Sachsen")));
        assert_eq!(land("Nds. SOG"), Some(Some("Niedersachsen")));
        assert_eq!(land("Bbg DSG"), Some(Some("Brandenburg")));
        assert_eq!(land("NRW.Bank-G"), Some(Some("Nordrhein-Westfalen")));
        assert_eq!(land("HmbTG"), Some(Some("Hamburg")));
        assert_eq!(land("Berliner Straßengesetz"), Some(Some("Berlin")));
        assert_eq!(land("Bayerischen Verwaltungsverfahrensgesetzes"), Some(Some("Bayern")));
        assert_eq!(land("HVwVfG"), Some(Some("Hessen")));
        assert_eq!(land("IZG-SH"), Some(Some("Schleswig-Holstein")));
        assert_eq!(land("ASOG"), Some(Some("Berlin")));
        assert_eq!(land("LBO"), Some(None));
        assert_eq!(land("KAG"), Some(None));
    }

    #[test]
    fn federal_look_alikes_stay_federal() {
        for f in [
            "IFG",
            "VwVfG",
            "HGB",
            "SGB",
            "SGB X",
            "BNatSchG",
            "SHG",
            "BBG",
            "LBG",
            "WG",
            "VwVG",
            "BRüG-Saar",
            "NSUnrG HE",
            "HmbNSGBefV",
            "Bayern",
            "BWahlG",
            "HHG",
            "StGB",
            "BGB",
            "Bundesnaturschutzgesetz",
        ] {
            assert_eq!(land(f), None, "{f} is federal");
        }
    }

    /// The scanner's book and Land for the first law citation of `text`.
    fn scanned(text: &str) -> (Option<String>, Option<StateLaw>, String) {
        let ex = crate::citations::extract(text, crate::citations::LawVocabulary::shipped());
        let l = ex.laws.first().unwrap_or_else(|| panic!("no law citation in {text:?}"));
        (l.book.clone(), l.state_law.clone(), l.canonical.clone())
    }

    #[test]
    fn scanner_reads_land_law_as_land_law() {
        for (text, instrument, state) in [
            ("nach § 3 IFG Bln ist", "IFG Bln", Some("Berlin")),
            ("gemäß § 35 VwVfG Bln liegt", "VwVfG Bln", Some("Berlin")),
            ("nach § 28 VwVfG-SH anzuhören", "VwVfG-SH", Some("Schleswig-Holstein")),
            ("nach § 4 IFG M-V besteht", "IFG M-V", Some("Mecklenburg-Vorpommern")),
            ("§ 3 Abs. 2 IFG-SH schließt", "IFG-SH", Some("Schleswig-Holstein")),
            ("§ 7 Abs. 3 IFG NRW regelt", "IFG NRW", Some("Nordrhein-Westfalen")),
            ("§ 2 Nr. 1 Satz 1 IZG LSA nennt", "IZG LSA", Some("Sachsen-Anhalt")),
            ("§ 14 IZG-SH", "IZG-SH", Some("Schleswig-Holstein")),
            ("Art. 14 Abs. 2 BayBO verlangt", "BayBO", Some("Bayern")),
            ("§ 4 Abs. 1 SächsUIG gibt", "SächsUIG", Some("Sachsen")),
            ("§ 17 ASOG Bln erlaubt", "ASOG Bln", Some("Berlin")),
            ("§ 3 PolG BW", "PolG BW", Some("Baden-Württemberg")),
            ("§ 327 LVwG SH", "LVwG SH", Some("Schleswig-Holstein")),
            ("§ 8 HVwVfG regelt", "HVwVfG", Some("Hessen")),
            ("§ 11 Nds. SOG gilt", "Nds. SOG", Some("Niedersachsen")),
            ("§ 3 Abs. 1 Bbg DSG", "Bbg DSG", Some("Brandenburg")),
            ("§ 5 des Berliner Straßengesetzes gilt", "Berliner Straßengesetzes", Some("Berlin")),
            ("§ 47 BauO LSA", "BauO LSA", Some("Sachsen-Anhalt")),
            ("§ 5 LBO gilt", "LBO", None),
            ("IFG Bln § 3 Abs. 1", "IFG Bln", Some("Berlin")),
            ("§ 34 Abs. 4 KV M-V", "KV M-V", Some("Mecklenburg-Vorpommern")),
            ("nach § 69 LG NRW", "LG NRW", Some("Nordrhein-Westfalen")),
            ("Art. 54 Verf LSA", "Verf LSA", Some("Sachsen-Anhalt")),
            ("§ 18 Abs. 3 BbgDSD", "BbgDSD", Some("Brandenburg")),
            ("§ 2 IfG M-V", "IfG M-V", Some("Mecklenburg-Vorpommern")),
            ("§ 4 Abs. 1 Pressegesetz NRW", "Pressegesetz NRW", Some("Nordrhein-Westfalen")),
        ] {
            let (book, sl, canonical) = scanned(text);
            let sl = sl.unwrap_or_else(|| panic!("{text:?}: not read as Land law (book {book:?})"));
            assert_eq!(sl.instrument, instrument, "{text:?}");
            assert_eq!(sl.state.as_deref(), state, "{text:?}");
            assert_eq!(book.as_deref(), Some(instrument), "{text:?}: the book is the Land instrument");
            assert!(canonical.ends_with(instrument), "{text:?}: {canonical}");
        }
        // A list shares its book's Land.
        let ex = crate::citations::extract("§§ 3, 4 IFG Bln", crate::citations::LawVocabulary::shipped());
        assert_eq!(ex.laws.len(), 2);
        assert!(ex.laws.iter().all(|l| l.state_law.as_ref().is_some_and(|s| s.state.as_deref() == Some("Berlin"))));
    }

    #[test]
    fn scanner_keeps_federal_law_federal() {
        for (text, book) in [
            ("nach § 3 IFG ist", "IFG"),
            ("§ 35 VwVfG regelt", "VwVfG"),
            ("§ 1 BNatSchG", "BNatSchG"),
            ("§ 343 HGB", "HGB"),
            ("§ 613a BGB BB 2005, 1234", "BGB"),
            ("§ 21 BRüG-Saar", "BRüG-Saar"),
        ] {
            let (b, sl, _) = scanned(text);
            assert_eq!(sl, None, "{text:?} is federal law");
            assert_eq!(b.as_deref(), Some(book), "{text:?}");
        }
        // A Bavarian court is a court, not a Land law (`BayObLG` starts with the Land prefix).
        let ex = crate::citations::extract(
            "vgl. BayObLG, Beschluss vom 12.03.2001 - 3Z BR 1/01 - und § 3 VwGO",
            crate::citations::LawVocabulary::shipped(),
        );
        assert!(ex.laws.iter().all(|l| l.state_law.is_none() && l.book.as_deref() == Some("VwGO")), "{:?}", ex.laws);
    }
}
