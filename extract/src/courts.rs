//! Courts: one canonical court for every way a source names it.
//!
//! The table is `reference/courts.tsv` (a copy of `shared/data/reference/ecli/courts.tsv`: ECLI
//! code, name, type, branch, level, Land, seat, citation name) plus the three European courts
//! that decide German cases. A name is matched, in order, by: its exact (folded) name,
//! citation name or ECLI code; a federal court's abbreviation at the start (`BFH 10. Senat`);
//! and finally by court type plus the remaining words, where Land adjectives count as the
//! Land (`Bayerischer Verwaltungsgerichtshof` = `Verwaltungsgerichtshof Bayern`) and every word
//! of the candidate must appear in the name (so `OVG Berlin` never becomes `OVG
//! Berlin-Brandenburg`). A name that matches nothing keeps its spelling and gets what its type
//! word tells (branch, level), with `in_reference_table: false` — never a guessed ECLI code.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// The shipped court table (`reference/courts.tsv`), as text: part of what extraction depends on.
pub const REFERENCE_TSV: &str = include_str!("../reference/courts.tsv");

/// The branch of jurisdiction a court belongs to: the shared closed set (European courts
/// and Vergabekammern are branches of their own).
pub use model::Branch;

/// A canonical court.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Court {
    pub name: String,
    /// `BGH`, `OVG`, `VG`, `EuGH` …; None when the name has no recognisable type word.
    pub court_type: Option<String>,
    pub branch: Branch,
    /// 1 federal, 2 higher Land court, 3 Land court, 4 local court; 0 European; None unknown.
    pub level: Option<u8>,
    /// ISO 3166-2 (`DE-BY`); None for federal and European courts or when unknown.
    pub land: Option<String>,
    pub city: Option<String>,
    pub ecli_code: Option<String>,
    pub citation_name: Option<String>,
    /// False when the name matched no row of the reference table and was kept as given.
    pub in_reference_table: bool,
}

/// Court type words, longest first so `Oberverwaltungsgericht` wins over `Verwaltungsgericht`.
const TYPE_WORDS: &[(&str, &str, Branch, u8)] = &[
    ("bundesverfassungsgericht", "BVerfG", Branch::Verfassung, 1),
    ("bundesverwaltungsgericht", "BVerwG", Branch::Verwaltung, 1),
    ("oberverwaltungsgericht", "OVG", Branch::Verwaltung, 2),
    ("verwaltungsgerichtshof", "VGH", Branch::Verwaltung, 2),
    ("verfassungsgerichtshof", "VerfGH", Branch::Verfassung, 2),
    ("landesverfassungsgericht", "LVerfG", Branch::Verfassung, 2),
    ("bundessozialgericht", "BSG", Branch::Sozial, 1),
    ("bundesarbeitsgericht", "BAG", Branch::Arbeit, 1),
    ("bundespatentgericht", "BPatG", Branch::Patent, 1),
    ("landesarbeitsgericht", "LAG", Branch::Arbeit, 2),
    ("landessozialgericht", "LSG", Branch::Sozial, 2),
    ("bundesgerichtshof", "BGH", Branch::Ordentlich, 1),
    ("verwaltungsgericht", "VG", Branch::Verwaltung, 3),
    ("oberlandesgericht", "OLG", Branch::Ordentlich, 2),
    ("staatsgerichtshof", "StGH", Branch::Verfassung, 2),
    ("bundesfinanzhof", "BFH", Branch::Finanz, 1),
    ("verfassungsgericht", "VerfG", Branch::Verfassung, 2),
    ("oberstes landesgericht", "BayObLG", Branch::Ordentlich, 2),
    ("anwaltsgerichtshof", "AGH", Branch::Ordentlich, 2),
    ("arbeitsgericht", "ArbG", Branch::Arbeit, 3),
    ("sozialgericht", "SG", Branch::Sozial, 3),
    ("finanzgericht", "FG", Branch::Finanz, 2),
    ("kammergericht", "KG", Branch::Ordentlich, 2),
    ("vergabekammer", "VK", Branch::Vergabe, 3),
    ("landgericht", "LG", Branch::Ordentlich, 3),
    ("amtsgericht", "AG", Branch::Ordentlich, 4),
];

/// Land adjectives and names → the folded Land name used as a token.
const LAND_WORDS: &[(&str, &str)] = &[
    ("bayerischer", "bayern"),
    ("bayerisches", "bayern"),
    ("bayerische", "bayern"),
    ("hessischer", "hessen"),
    ("hessisches", "hessen"),
    ("saechsisches", "sachsen"),
    ("saechsischer", "sachsen"),
    ("niedersaechsisches", "niedersachsen"),
    ("niedersaechsischer", "niedersachsen"),
    ("hamburgisches", "hamburg"),
    ("hamburgischer", "hamburg"),
    ("thueringer", "thueringen"),
    ("saarlaendisches", "saarland"),
    ("saarlandes", "saarland"),
    ("brandenburgisches", "brandenburg"),
    ("schleswig-holsteinisches", "schleswig-holstein"),
    ("schleswig-holsteinischer", "schleswig-holstein"),
    ("nrw", "nordrhein-westfalen"),
];

const STOP_WORDS: &[&str] =
    &["des", "der", "die", "das", "fuer", "im", "in", "land", "landes", "freistaat", "freistaates"];

/// The European courts, which the German ECLI table does not list.
fn european_courts() -> Vec<(Vec<&'static str>, Court)> {
    let eu = |name: &str, ty: &str, ecli: &str, cit: &str| Court {
        name: name.into(),
        court_type: Some(ty.into()),
        branch: Branch::Europaeisch,
        level: Some(0),
        land: None,
        city: Some("Luxemburg".into()),
        ecli_code: Some(ecli.into()),
        citation_name: Some(cit.into()),
        in_reference_table: true,
    };
    let mut egmr = eu("Europäischer Gerichtshof für Menschenrechte", "EGMR", "CE:ECHR", "EGMR");
    egmr.city = Some("Straßburg".into());
    vec![
        (
            vec!["europaeischer gerichtshof", "gerichtshof der europaeischen union", "eugh"],
            eu("Gerichtshof der Europäischen Union", "EuGH", "EU:C", "EuGH"),
        ),
        (
            vec!["gericht der europaeischen union", "gericht erster instanz", "eug"],
            eu("Gericht der Europäischen Union", "EuG", "EU:T", "EuG"),
        ),
        (vec!["europaeischer gerichtshof fuer menschenrechte", "egmr"], egmr),
    ]
}

/// Lower case, umlauts as digraphs, ß as ss, punctuation except `-` as space, spaces folded.
pub fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars().flat_map(char::to_lowercase) {
        match c {
            'ä' => out.push_str("ae"),
            'ö' => out.push_str("oe"),
            'ü' => out.push_str("ue"),
            'ß' => out.push_str("ss"),
            c if c.is_alphanumeric() || c == '-' => out.push(c),
            _ => out.push(' '),
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The type word in a folded name: (type, branch, level, the name without it).
fn split_type(folded: &str) -> Option<(&'static str, Branch, u8, String)> {
    TYPE_WORDS.iter().find_map(|(word, ty, branch, level)| {
        let i = folded.find(word)?;
        let rest = format!("{} {}", &folded[..i], &folded[i + word.len()..]);
        Some((*ty, *branch, *level, rest))
    })
}

fn tokens(rest: &str) -> Vec<String> {
    rest.split_whitespace()
        .filter(|w| !STOP_WORDS.contains(w))
        .map(|w| LAND_WORDS.iter().find(|(a, _)| *a == w).map(|(_, l)| l.to_string()).unwrap_or_else(|| w.to_string()))
        .collect()
}

const LAND_CODES: &[(&str, &str)] = &[
    ("baden-wuerttemberg", "DE-BW"),
    ("bayern", "DE-BY"),
    ("berlin", "DE-BE"),
    ("brandenburg", "DE-BB"),
    ("bremen", "DE-HB"),
    ("hamburg", "DE-HH"),
    ("hessen", "DE-HE"),
    ("mecklenburg-vorpommern", "DE-MV"),
    ("niedersachsen", "DE-NI"),
    ("nordrhein-westfalen", "DE-NW"),
    ("rheinland-pfalz", "DE-RP"),
    ("saarland", "DE-SL"),
    ("sachsen", "DE-SN"),
    ("sachsen-anhalt", "DE-ST"),
    ("schleswig-holstein", "DE-SH"),
    ("thueringen", "DE-TH"),
];

pub struct CourtTable {
    rows: Vec<Court>,
    by_key: HashMap<String, usize>,
    /// Per court type: (row, its folded name tokens without the type word).
    by_type: HashMap<String, Vec<(usize, Vec<String>)>>,
}

impl CourtTable {
    /// The shipped table (parsed once).
    pub fn shipped() -> &'static CourtTable {
        static TABLE: OnceLock<CourtTable> = OnceLock::new();
        TABLE.get_or_init(|| CourtTable::from_tsv(REFERENCE_TSV))
    }

    pub fn from_tsv(tsv: &str) -> CourtTable {
        let mut t = CourtTable { rows: Vec::new(), by_key: HashMap::new(), by_type: HashMap::new() };
        for line in tsv.lines().skip(1) {
            let f: Vec<&str> = line.split('\t').collect();
            if f.len() < 8 {
                continue;
            }
            let opt = |s: &str| (!s.trim().is_empty()).then(|| s.trim().to_string());
            t.push(
                Court {
                    name: f[1].trim().into(),
                    court_type: opt(f[2]),
                    // The ECLI table files Vergabekammern under `ordentlich`; they are review
                    // bodies of the administration, not courts of the ordinary branch.
                    branch: if f[2].trim() == "VK" {
                        Branch::Vergabe
                    } else {
                        Branch::parse(f[3].trim()).unwrap_or(Branch::Unbekannt)
                    },
                    level: f[4].trim().parse().ok(),
                    land: opt(f[5]),
                    city: opt(f[6]),
                    ecli_code: opt(f[0]),
                    citation_name: opt(f[7]),
                    in_reference_table: true,
                },
                &[],
            );
        }
        for (keys, court) in european_courts() {
            t.push(court, &keys);
        }
        t
    }

    fn push(&mut self, c: Court, extra_keys: &[&str]) {
        let i = self.rows.len();
        for k in [Some(&c.name), c.citation_name.as_ref(), c.ecli_code.as_ref()].into_iter().flatten() {
            self.by_key.entry(fold(k)).or_insert(i);
        }
        for k in extra_keys {
            self.by_key.entry(k.to_string()).or_insert(i);
        }
        if let Some(ty) = &c.court_type {
            let folded = fold(&c.name);
            let rest = split_type(&folded).map(|(_, _, _, r)| r).unwrap_or_default();
            self.by_type.entry(ty.clone()).or_default().push((i, tokens(&rest)));
        }
        self.rows.push(c);
    }

    pub fn rows(&self) -> &[Court] {
        &self.rows
    }

    /// The canonical court for a name as a source spells it; None for an empty or
    /// explicitly unknown name (`unbekannt …`).
    pub fn canonical(&self, raw: &str) -> Option<Court> {
        let folded = fold(raw);
        if folded.is_empty() || folded.starts_with("unbekannt") || folded == "unknown" {
            return None;
        }
        if let Some(&i) = self.by_key.get(&folded) {
            return Some(self.rows[i].clone());
        }
        // `BFH 10. Senat`, `BVerfG 2. Senat`: a federal abbreviation first, a chamber after it.
        if let Some(first) = folded.split(' ').next()
            && let Some(&i) = self.by_key.get(first)
            && self.rows[i].level == Some(1)
        {
            return Some(self.rows[i].clone());
        }
        let (ty, branch, level, rest) = match split_type(&folded) {
            Some(t) => t,
            None => return Some(unmatched(raw, None, Branch::Unbekannt, None, None)),
        };
        let raw_tokens = tokens(&rest);
        let best = self.by_type.get(ty).and_then(|cands| {
            let fitting: Vec<&(usize, Vec<String>)> =
                cands.iter().filter(|(_, ct)| !ct.is_empty() && ct.iter().all(|w| raw_tokens.contains(w))).collect();
            let most = fitting.iter().map(|(_, ct)| ct.len()).max()?;
            let top: Vec<_> = fitting.iter().filter(|(_, ct)| ct.len() == most).collect();
            (top.len() == 1).then(|| top[0].0)
        });
        // A type that exists once (BGH, KG, BayObLG) needs no place words.
        let single = self.by_type.get(ty).filter(|c| c.len() == 1).map(|c| c[0].0);
        match best.or(single) {
            Some(i) => Some(self.rows[i].clone()),
            None => {
                let land =
                    raw_tokens.iter().find_map(|w| LAND_CODES.iter().find(|(n, _)| n == w).map(|(_, c)| c.to_string()));
                Some(unmatched(raw, Some(ty), branch, Some(level), land))
            }
        }
    }
}

fn unmatched(raw: &str, ty: Option<&str>, branch: Branch, level: Option<u8>, land: Option<String>) -> Court {
    Court {
        name: raw.split_whitespace().collect::<Vec<_>>().join(" "),
        court_type: ty.map(str::to_string),
        branch,
        level,
        land,
        city: None,
        ecli_code: None,
        citation_name: None,
        in_reference_table: false,
    }
}

/// Abbreviated Land and place names in citations (`OVG NRW`, `OVG Rh.-Pf.`, `VGH Bad.-Württ.`).
const PLACE_ABBREVIATIONS: &[(&str, &str)] = &[
    ("nrw", "nordrhein-westfalen"),
    ("nw", "nordrhein-westfalen"),
    ("nordrheinwestfalen", "nordrhein-westfalen"),
    ("nordrhein-westphalen", "nordrhein-westfalen"),
    ("rh-pf", "rheinland-pfalz"),
    ("rp", "rheinland-pfalz"),
    ("rlp", "rheinland-pfalz"),
    ("bad-wuertt", "baden-wuerttemberg"),
    ("bw", "baden-wuerttemberg"),
    ("ba-wue", "baden-wuerttemberg"),
    ("schl-h", "schleswig-holstein"),
    ("sh", "schleswig-holstein"),
    ("berlinbrandenburg", "berlin-brandenburg"),
    ("bln-bbg", "berlin-brandenburg"),
    ("bb", "berlin-brandenburg"),
    ("lsa", "sachsen-anhalt"),
    ("m-v", "mecklenburg-vorpommern"),
    ("mv", "mecklenburg-vorpommern"),
    ("nds", "niedersachsen"),
    ("hess", "hessen"),
    ("bay", "bayern"),
    ("sachs", "sachsen"),
    ("thuer", "thueringen"),
    ("hbg", "hamburg"),
    ("hh", "hamburg"),
    ("brem", "bremen"),
    ("saarl", "saarland"),
    ("saechs", "sachsen"),
    ("nieders", "niedersachsen"),
];

/// Whether a court as a citation prints it (`OVG NRW`, `VG`, `VGH Baden-Württemberg`,
/// `BVerwG`, `Bundesverwaltungsgericht`) can be `held`. None when the citation names no
/// court type we know (then it says nothing about the court). A bare type (`VG`) fits every
/// court of that type; each place word must appear in the held court's name, seat or Land.
pub fn cited_court_fits(cited: &str, held: &Court) -> Option<bool> {
    let table = CourtTable::shipped();
    if let Some(c) = table.canonical(cited).filter(|c| c.in_reference_table) {
        return Some(c.name == held.name);
    }
    // Dots and hyphens of abbreviations folded: `Rh.-Pf.` → `rh-pf`.
    let folded = fold(&cited.replace('.', ""));
    let mut words: Vec<&str> = folded.split(' ').filter(|w| !w.is_empty()).collect();
    let type_of =
        |w: &str| TYPE_WORDS.iter().find(|(word, abbr, ..)| fold(abbr) == w || *word == w).map(|(_, a, ..)| *a);
    let land_word = |w: &str| {
        PLACE_ABBREVIATIONS.iter().map(|(a, _)| *a).chain(LAND_WORDS.iter().map(|(a, _)| *a)).find(|a| *a == w)
    };
    // The Land before the type (`Hess. VGH`, `Bayerischer VGH`) or glued to it (`BayVGH`,
    // `HessVGH`): read as the type followed by the Land.
    if words.len() >= 2 && land_word(words[0]).is_some() && type_of(words[1]).is_some() {
        words.swap(0, 1);
    } else if let Some(first) = words.first().copied()
        && type_of(first).is_none()
        && let Some((land, ty)) = PLACE_ABBREVIATIONS
            .iter()
            .chain(LAND_WORDS.iter())
            .find_map(|(a, _)| first.strip_prefix(a).filter(|rest| type_of(rest).is_some()).map(|rest| (*a, rest)))
    {
        words.splice(0..1, [ty, land]);
    }
    let mut words = words.into_iter();
    let first = words.next()?;
    let ty = type_of(first)?;
    if held.court_type.as_deref() != Some(ty) {
        return Some(false);
    }
    let land_name = held.land.as_deref().and_then(|l| LAND_CODES.iter().find(|(_, c)| *c == l).map(|(n, _)| *n));
    let held_text = format!(
        "{} {} {}",
        tokens(&fold(&held.name)).join(" "),
        held.city.as_deref().map(fold).unwrap_or_default(),
        land_name.unwrap_or("")
    );
    let held_words: Vec<&str> = held_text.split(' ').filter(|w| !w.is_empty()).collect();
    let fits = words.filter(|w| !STOP_WORDS.contains(w)).all(|w| {
        let w = PLACE_ABBREVIATIONS.iter().find(|(a, _)| *a == w).map(|(_, full)| *full).unwrap_or(w);
        let w = LAND_WORDS.iter().find(|(a, _)| *a == w).map(|(_, l)| *l).unwrap_or(w);
        held_words.iter().any(|h| *h == w || (w.len() >= 4 && h.starts_with(w)) || h.split('-').any(|p| p == w))
    });
    Some(fits)
}

/// Whether a printed court can be compared with courts at all (a court of the table, or a known
/// type word): `cited_court_fits` is then `Some` for every court, whichever it is.
pub fn cited_court_readable(cited: &str) -> bool {
    CourtTable::shipped().rows().first().is_some_and(|c| cited_court_fits(cited, c).is_some())
}

/// The branch an OLDP `court.jurisdiction` names, for courts the table cannot place.
pub fn branch_of_jurisdiction(j: &str) -> Option<Branch> {
    let f = fold(j);
    [
        ("verwaltung", Branch::Verwaltung),
        ("ordentlich", Branch::Ordentlich),
        ("arbeit", Branch::Arbeit),
        ("finanz", Branch::Finanz),
        ("sozial", Branch::Sozial),
        ("verfassung", Branch::Verfassung),
        ("patent", Branch::Patent),
        ("europaeisch", Branch::Europaeisch),
        ("international", Branch::Europaeisch),
        ("vergabe", Branch::Vergabe),
    ]
    .iter()
    .find(|(k, _)| f.contains(k))
    .map(|(_, b)| *b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(raw: &str) -> String {
        CourtTable::shipped().canonical(raw).map(|c| c.name).unwrap_or_default()
    }

    #[test]
    fn spellings_of_one_court_meet() {
        assert_eq!(name("Verwaltungsgerichtshof Bayern"), "Bayerischer Verwaltungsgerichtshof");
        assert_eq!(name("Bayerischer Verwaltungsgerichtshof"), "Bayerischer Verwaltungsgerichtshof");
        assert_eq!(name("Verwaltungsgerichtshof Hessen"), "Hessischer Verwaltungsgerichtshof");
        assert_eq!(name("BFH 10. Senat"), "Bundesfinanzhof");
        assert_eq!(name("BVerfG"), "Bundesverfassungsgericht");
        assert_eq!(name("Bundesverwaltungsgericht"), "Bundesverwaltungsgericht");
        assert_eq!(name("VG Berlin"), "Verwaltungsgericht Berlin");
        assert!(name("Oberverwaltungsgericht Sachsen-Anhalt").contains("Sachsen-Anhalt"));
        assert_eq!(name("Kammergericht Berlin"), "Kammergericht");
        assert_eq!(name("Europäischer Gerichtshof"), "Gerichtshof der Europäischen Union");
        assert_eq!(name("Gericht der Europäischen Union"), "Gericht der Europäischen Union");
    }

    #[test]
    fn european_courts_and_vergabekammern_have_their_own_branch() {
        let t = CourtTable::shipped();
        for n in ["EuGH", "Gericht der Europäischen Union", "EGMR"] {
            assert_eq!(t.canonical(n).unwrap().branch, Branch::Europaeisch, "{n}");
        }
        for n in ["Vergabekammer Südbayern", "Vergabekammer München"] {
            assert_eq!(t.canonical(n).unwrap().branch, Branch::Vergabe, "{n}");
        }
        assert_eq!(branch_of_jurisdiction("Europäische/internationale Gerichtsbarkeit"), Some(Branch::Europaeisch));
        assert_eq!(branch_of_jurisdiction("Vergabenachprüfung (Vergabekammer)"), Some(Branch::Vergabe));
        for &b in Branch::ALL {
            assert_eq!(serde_json::to_value(b).unwrap(), b.as_str());
        }
    }

    #[test]
    fn a_court_outside_the_table_is_kept_never_bent_onto_another() {
        let c = CourtTable::shipped().canonical("Oberverwaltungsgericht Berlin").unwrap();
        assert_eq!(c.name, "Oberverwaltungsgericht Berlin");
        assert!(!c.in_reference_table);
        assert_eq!(c.ecli_code, None);
        assert_eq!((c.branch, c.level, c.land.as_deref()), (Branch::Verwaltung, Some(2), Some("DE-BE")));
        assert_eq!(CourtTable::shipped().canonical("unbekannt (VG)"), None);
        assert_eq!(CourtTable::shipped().canonical("  "), None);
    }

    #[test]
    fn cited_courts_fit_the_courts_they_can_be() {
        let t = CourtTable::shipped();
        let c = |n: &str| t.canonical(n).unwrap();
        let ovg_nrw = c("Oberverwaltungsgericht Nordrhein-Westfalen");
        for cited in [
            "OVG NRW",
            "OVG NW",
            "OVG",
            "OVG Nordrhein-Westfalen",
            "OVGNRW",
            "Oberverwaltungsgericht Nordrhein-Westfalen",
        ] {
            assert_eq!(cited_court_fits(cited, &ovg_nrw), Some(true), "{cited}");
        }
        for cited in ["OVG Rh.-Pf.", "VG", "BVerwG", "OVG Berlin-Brandenburg"] {
            assert_eq!(cited_court_fits(cited, &ovg_nrw), Some(false), "{cited}");
        }
        assert_eq!(cited_court_fits("OVG Rh.-Pf.", &c("Oberverwaltungsgericht Rheinland-Pfalz")), Some(true));
        assert_eq!(cited_court_fits("VGH Bad.-Württ.", &c("Verwaltungsgerichtshof Baden-Württemberg")), Some(true));
        assert_eq!(cited_court_fits("VG Frankfurt", &c("Verwaltungsgericht Frankfurt am Main")), Some(true));
        assert_eq!(cited_court_fits("VG Neustadt", &c("Verwaltungsgericht Neustadt an der Weinstraße")), Some(true));
        assert_eq!(cited_court_fits("VG Berlin", &c("Verwaltungsgericht Potsdam")), Some(false));
        assert_eq!(cited_court_fits("Senat", &ovg_nrw), None);
        // The Land before the type, or glued to it.
        let hess = c("Hessischer Verwaltungsgerichtshof");
        let bay = c("Bayerischer Verwaltungsgerichtshof");
        for cited in ["Hess. VGH", "HessVGH", "Hessischer VGH", "VGH Hessen"] {
            assert_eq!(cited_court_fits(cited, &hess), Some(true), "{cited}");
            assert_eq!(cited_court_fits(cited, &bay), Some(false), "{cited}");
        }
        for cited in ["Bay. VGH", "Bay.VGH", "BayVGH", "Bayerischer VGH"] {
            assert_eq!(cited_court_fits(cited, &bay), Some(true), "{cited}");
            assert_eq!(cited_court_fits(cited, &hess), Some(false), "{cited}");
        }
        assert_eq!(cited_court_fits("Nds. OVG", &c("Niedersächsisches Oberverwaltungsgericht")), Some(true));
        assert_eq!(cited_court_fits("Sächs. OVG", &c("Sächsisches Oberverwaltungsgericht")), Some(true));
    }

    #[test]
    fn every_court_of_the_table_finds_itself() {
        let t = CourtTable::shipped();
        for c in t.rows() {
            let got = t.canonical(&c.name).unwrap();
            assert_eq!(got.name, c.name);
        }
    }
}
