//! Book codes: what a user or a citation writes (`AO`, `SGB V`, `EGBGB`, `AsylVfG`) → the law.
//!
//! gii's `jurabk` is not always the usual abbreviation (`AO 1977`, `BBauG` for the BauGB,
//! `SGB 5`, `BGBEG`), so each law gets several codes, each with a tier; a lookup takes the
//! lowest tier that matches and is ambiguous only when that tier names several laws:
//!
//! | tier | code                                                   |
//! |------|--------------------------------------------------------|
//! | 0    | every `jurabk`                                         |
//! | 1    | `amtabk`                                               |
//! | 2    | `jurabk` without a trailing year (`AO 1977` → `AO`); an Einführungsgesetz's code with `EG` first (`StPOEG` → `EGStPO`) |
//! | 3    | aliases of the same law from `law-aliases.tsv` (`rename`, `spelling`) |
//! | 4    | the law's title and short title                        |
//!
//! `replaced` rows of `law-aliases.tsv` (AGBG → BGB) are *not* codes of the successor: the
//! numbering does not carry over. They are kept as [`SupersededCode`]s so a lookup can say so.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};

/// The alias table shipped with the code (a copy of `shared/data/reference/law-aliases.tsv`).
pub const LAW_ALIASES_TSV: &str = include_str!("../reference/law-aliases.tsv");

/// Normalises a book code for comparison: case, umlauts (ä → ae, ß → ss), spaces and dots are
/// ignored, and a Roman book number after a word becomes Arabic (`SGB V` = `SGB 5` = `sgb5`).
pub fn normalise_book_code(s: &str) -> String {
    let folded: String = s
        .chars()
        .flat_map(|c| {
            let lower: Vec<char> = c.to_lowercase().collect();
            lower.into_iter()
        })
        .map(|c| match c {
            '\u{a0}' | '.' | '_' => ' ',
            c => c,
        })
        .collect();
    let mut out = String::with_capacity(folded.len());
    for (i, tok) in folded.split_whitespace().enumerate() {
        let tok = match roman_to_arabic(tok) {
            Some(n) if i > 0 => n.to_string(),
            _ => tok.to_string(),
        };
        for c in tok.chars() {
            match c {
                'ä' => out.push_str("ae"),
                'ö' => out.push_str("oe"),
                'ü' => out.push_str("ue"),
                'ß' => out.push_str("ss"),
                c => out.push(c),
            }
        }
    }
    out
}

fn roman_to_arabic(tok: &str) -> Option<u32> {
    const TABLE: [&str; 20] = [
        "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii", "xiii", "xiv", "xv", "xvi", "xvii",
        "xviii", "xix", "xx",
    ];
    TABLE.iter().position(|r| *r == tok).map(|i| i as u32 + 1)
}

/// `AO 1977` → `Some("AO")`; `SGB 9 2018` → `Some("SGB 9")`; `BGB` → `None`.
pub fn strip_trailing_year(code: &str) -> Option<String> {
    let (head, last) = code.trim().rsplit_once(' ')?;
    let is_year = last.len() == 4
        && last.bytes().all(|b| b.is_ascii_digit())
        && (last.starts_with("18") || last.starts_with("19") || last.starts_with("20"));
    (is_year && !head.trim().is_empty()).then(|| head.trim().to_string())
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct BookCode {
    /// As written (`AO`, `SGB 5`, `Bürgerliches Gesetzbuch`).
    pub code: String,
    /// [`normalise_book_code`] of `code`.
    pub code_norm: String,
    pub slug: String,
    pub tier: u8,
    /// `jurabk`, `amtabk`, `jurabk_without_year`, `alias_rename`, `alias_spelling`, `title`.
    pub kind: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct SupersededCode {
    pub code: String,
    pub code_norm: String,
    /// Successor abbreviation as the alias table writes it (`BGB`, `UKlaG`).
    pub successor: String,
    /// Slug of the successor when we hold it.
    pub successor_slug: Option<String>,
    pub effective_date: Option<String>,
    pub note: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct BookCodeTable {
    pub codes: Vec<BookCode>,
    pub superseded: Vec<SupersededCode>,
}

/// What a law contributes: its slug and the names gii gives it.
pub struct LawNames<'a> {
    pub slug: &'a str,
    pub jurabk: &'a [String],
    pub amtabk: Option<&'a str>,
    pub title: &'a str,
    pub short_title: Option<&'a str>,
}

struct AliasRow<'a> {
    old: &'a str,
    new: &'a str,
    date: &'a str,
    note: &'a str,
    kind: &'a str,
}

fn alias_rows(tsv: &str) -> impl Iterator<Item = AliasRow<'_>> {
    tsv.lines().skip(1).filter_map(|l| {
        let f: Vec<&str> = l.split('\t').collect();
        (f.len() >= 5).then(|| AliasRow { old: f[0], new: f[1], date: f[2], note: f[3], kind: f[4] })
    })
}

/// Builds the code table for `laws` with the aliases in `aliases_tsv`.
pub fn build_table(laws: &[LawNames<'_>], aliases_tsv: &str) -> BookCodeTable {
    let mut codes: Vec<BookCode> = Vec::new();
    let mut seen: HashSet<(String, String)> = HashSet::new();
    let mut push = |codes: &mut Vec<BookCode>, code: &str, slug: &str, tier: u8, kind: &str| {
        let norm = normalise_book_code(code);
        if norm.is_empty() || !seen.insert((norm.clone(), slug.to_string())) {
            return;
        }
        codes.push(BookCode {
            code: code.trim().to_string(),
            code_norm: norm,
            slug: slug.to_string(),
            tier,
            kind: kind.into(),
        });
    };
    for law in laws {
        for j in law.jurabk {
            push(&mut codes, j, law.slug, 0, "jurabk");
        }
        if let Some(a) = law.amtabk {
            push(&mut codes, a, law.slug, 1, "amtabk");
        }
        for j in law.jurabk {
            if let Some(s) = strip_trailing_year(j) {
                push(&mut codes, &s, law.slug, 2, "jurabk_without_year");
            }
        }
    }
    // Einführungsgesetze: gii writes the stem first (`BGBEG`, `StPOEG`, `AOEG 1977`), citations
    // write `EG` first (`EGBGB`, `EGStPO`, `EGAO`). Derived only when the title says Einführung and
    // the stem is itself the code of a law we hold, so `WEG` or `BEEG` never become `EGW`, `EGBE`.
    let held: HashSet<String> = codes.iter().map(|c| c.code_norm.clone()).collect();
    for law in laws.iter().filter(|l| l.title.contains("Einführung")) {
        for j in law.jurabk {
            let base = strip_trailing_year(j).unwrap_or_else(|| j.trim().to_string());
            if let Some(stem) = base.strip_suffix("EG").filter(|s| held.contains(&normalise_book_code(s))) {
                push(&mut codes, &format!("EG{stem}"), law.slug, 2, "einfuehrungsgesetz_eg_first");
            }
        }
    }
    // Codes of tiers 0–2 and titles, for matching alias rows to laws.
    let mut by_norm: HashMap<String, Vec<String>> = HashMap::new();
    for c in &codes {
        by_norm.entry(c.code_norm.clone()).or_default().push(c.slug.clone());
    }
    let mut by_title: HashMap<String, Vec<String>> = HashMap::new();
    for law in laws {
        by_title.entry(normalise_book_code(law.title)).or_default().push(law.slug.to_string());
        if let Some(s) = law.short_title {
            by_title.entry(normalise_book_code(s)).or_default().push(law.slug.to_string());
        }
    }
    let unique = |m: &HashMap<String, Vec<String>>, k: &str| -> Option<String> {
        let v = m.get(k)?;
        let set: HashSet<&String> = v.iter().collect();
        (set.len() == 1).then(|| v[0].clone())
    };
    let mut superseded = Vec::new();
    for row in alias_rows(aliases_tsv) {
        let (old_n, new_n) = (normalise_book_code(row.old), normalise_book_code(row.new));
        match row.kind {
            "rename" | "spelling" => {
                if let Some(slug) = unique(&by_norm, &new_n).or_else(|| unique(&by_title, &new_n)) {
                    push(&mut codes, row.old, &slug, 3, &format!("alias_{}", row.kind));
                } else if let Some(slug) = unique(&by_title, &old_n).or_else(|| unique(&by_norm, &old_n)) {
                    push(&mut codes, row.new, &slug, 3, &format!("alias_{}", row.kind));
                }
            }
            "replaced" => superseded.push(SupersededCode {
                code: row.old.to_string(),
                code_norm: old_n,
                successor: row.new.to_string(),
                successor_slug: unique(&by_norm, &new_n),
                effective_date: (!row.date.is_empty()).then(|| row.date.to_string()),
                note: row.note.to_string(),
            }),
            _ => {}
        }
    }
    for law in laws {
        push(&mut codes, law.title, law.slug, 4, "title");
        if let Some(s) = law.short_title {
            push(&mut codes, s, law.slug, 4, "title");
        }
    }
    BookCodeTable { codes, superseded }
}

/// The outcome of looking a code up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    Found { slug: String, via: BookCode },
    Ambiguous { candidates: Vec<BookCode> },
    NotFound,
}

impl BookCodeTable {
    /// Resolves a code: the lowest matching tier wins; several laws at that tier is ambiguous.
    pub fn lookup(&self, code: &str) -> Lookup {
        let norm = normalise_book_code(code);
        let matches: Vec<&BookCode> = self.codes.iter().filter(|c| c.code_norm == norm).collect();
        let Some(best) = matches.iter().map(|c| c.tier).min() else { return Lookup::NotFound };
        let at_best: Vec<&BookCode> = matches.into_iter().filter(|c| c.tier == best).collect();
        let slugs: BTreeMap<&str, &BookCode> = at_best.iter().map(|c| (c.slug.as_str(), *c)).collect();
        if slugs.len() == 1 {
            let c = at_best[0].clone();
            Lookup::Found { slug: c.slug.clone(), via: c }
        } else {
            Lookup::Ambiguous { candidates: slugs.into_values().cloned().collect() }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names<'a>(slug: &'a str, jurabk: &'a [String], amtabk: Option<&'a str>, title: &'a str) -> LawNames<'a> {
        LawNames { slug, jurabk, amtabk, title, short_title: None }
    }

    #[test]
    fn normalisation_folds_case_umlauts_spaces_and_roman_book_numbers() {
        assert_eq!(normalise_book_code("SGB V"), "sgb5");
        assert_eq!(normalise_book_code("SGB 5"), "sgb5");
        assert_eq!(normalise_book_code("sgb  v"), "sgb5");
        assert_eq!(normalise_book_code("ÜAG"), "ueag");
        assert_eq!(normalise_book_code("V"), "v", "a lone V is not a book number");
        assert_eq!(strip_trailing_year("AO 1977").as_deref(), Some("AO"));
        assert_eq!(strip_trailing_year("SGB 9 2018").as_deref(), Some("SGB 9"));
        assert_eq!(strip_trailing_year("BGB"), None);
    }

    #[test]
    fn usual_abbreviations_find_the_gii_laws() {
        let j = |s: &str| vec![s.to_string()];
        let (ao, ustg, bbaug, asyl, weg, sgb5, bgbeg, bgb) = (
            j("AO 1977"),
            j("UStG 1980"),
            j("BBauG"),
            j("AsylVfG 1992"),
            j("WoEigG"),
            j("SGB 5"),
            j("BGBEG"),
            j("BGB"),
        );
        let laws = vec![
            names("ao_1977", &ao, Some("AO"), "Abgabenordnung"),
            names("ustg_1980", &ustg, Some("UStG"), "Umsatzsteuergesetz"),
            names("bbaug", &bbaug, Some("BauGB"), "Baugesetzbuch"),
            names("asylvfg_1992", &asyl, Some("AsylG"), "Asylgesetz"),
            names("woeigg", &weg, Some("WEG"), "Gesetz über das Wohnungseigentum und das Dauerwohnrecht"),
            names("sgb_5", &sgb5, None, "Sozialgesetzbuch (SGB) Fünftes Buch (V)"),
            names("bgbeg", &bgbeg, None, "Einführungsgesetz zum Bürgerlichen Gesetzbuche"),
            names("bgb", &bgb, Some("BGB"), "Bürgerliches Gesetzbuch"),
        ];
        let t = build_table(&laws, LAW_ALIASES_TSV);
        for (code, slug) in [
            ("AO", "ao_1977"),
            ("UStG", "ustg_1980"),
            ("BauGB", "bbaug"),
            ("AsylG", "asylvfg_1992"),
            ("AsylVfG", "asylvfg_1992"),
            ("WEG", "woeigg"),
            ("SGB V", "sgb_5"),
            ("SGB 5", "sgb_5"),
            ("EGBGB", "bgbeg"),
            ("bgb", "bgb"),
            ("Bürgerliches Gesetzbuch", "bgb"),
        ] {
            match t.lookup(code) {
                Lookup::Found { slug: s, .. } => assert_eq!(s, slug, "{code}"),
                other => panic!("{code}: {other:?}"),
            }
        }
        assert_eq!(t.lookup("XYZG"), Lookup::NotFound);
        // AGBG was replaced by the BGB: not a code of the BGB, but known as superseded.
        assert_eq!(t.lookup("AGBG"), Lookup::NotFound);
        assert!(t.superseded.iter().any(|s| s.code == "AGBG" && s.successor_slug.as_deref() == Some("bgb")));
    }

    #[test]
    fn einfuehrungsgesetze_are_found_with_eg_first() {
        let (stpo, stpoeg, weg, aoeg, ao) = (
            vec!["StPO".to_string()],
            vec!["StPOEG".to_string()],
            vec!["WEG".to_string()],
            vec!["AOEG 1977".to_string()],
            vec!["AO 1977".to_string()],
        );
        let laws = vec![
            names("stpo", &stpo, Some("StPO"), "Strafprozeßordnung"),
            names("stpoeg", &stpoeg, None, "Einführungsgesetz zur Strafprozeßordnung"),
            names("woeigg", &weg, Some("WEG"), "Wohnungseigentumsgesetz"),
            names("aoeg_1977", &aoeg, None, "Einführungsgesetz zur Abgabenordnung"),
            names("ao_1977", &ao, Some("AO"), "Abgabenordnung"),
        ];
        let t = build_table(&laws, "old\tnew\tdate\tnote\tkind\tsource\n");
        for (code, slug) in [("EGStPO", "stpoeg"), ("StPOEG", "stpoeg"), ("EGAO", "aoeg_1977"), ("AO", "ao_1977")] {
            match t.lookup(code) {
                Lookup::Found { slug: s, .. } => assert_eq!(s, slug, "{code}"),
                other => panic!("{code}: {other:?}"),
            }
        }
        // Not an Einführungsgesetz: no `EG` code is made up.
        assert_eq!(t.lookup("EGW"), Lookup::NotFound);
    }

    #[test]
    fn the_same_code_on_two_laws_at_one_tier_is_ambiguous() {
        let a = vec!["XG".to_string()];
        let b = vec!["XG".to_string()];
        let laws = vec![names("x1", &a, None, "Eins"), names("x2", &b, None, "Zwei")];
        let t = build_table(&laws, "old\tnew\tdate\tnote\tkind\tsource\n");
        assert!(matches!(t.lookup("XG"), Lookup::Ambiguous { candidates } if candidates.len() == 2));
    }
}
