//! The hallucination guard on a labelled set built here from the corpus: real citations taken
//! from the decisions' own texts (bound by the pipeline) and from the statutes, and mutations
//! of them (one digit of the file number, the year, the court, the date, the decision kind, an
//! Absatz the § lacks, a § the law lacks, a made-up law, a Land law). No mutation may ever be
//! `verified_corpus`; the confusion table is printed. Also: offsets on awkward input, bad
//! input, and arbitrary Unicode.

use std::collections::BTreeMap;
use std::path::Path;

use legal_tests::procs::Server;
use serde_json::Value;

fn store(data: &Path) -> rusqlite::Connection {
    let id = std::fs::read_to_string(data.join("CURRENT")).unwrap();
    index::citation_rows::open_store_with_citations(&data.join("generations").join(id.trim())).unwrap()
}

#[derive(Debug, Clone)]
struct Case {
    citation: String,
    /// Verdicts this case may get.
    expect: &'static [&'static str],
    label: &'static str,
    mutation: bool,
}

fn real(citation: String, label: &'static str) -> Case {
    Case { citation, expect: &["verified_corpus"], label, mutation: false }
}

fn mutated(citation: String, label: &'static str, expect: &'static [&'static str]) -> Case {
    Case { citation, expect, label, mutation: true }
}

/// Changes the last digit of the first number found after `from` (code points).
fn bump_digit(s: &str, skip_prefix: usize) -> Option<String> {
    let chars: Vec<char> = s.chars().collect();
    let i = (skip_prefix..chars.len()).rev().find(|&i| chars[i].is_ascii_digit())?;
    let mut out = chars.clone();
    out[i] = if chars[i] == '9' { '1' } else { char::from(chars[i] as u8 + 1) };
    Some(out.into_iter().collect())
}

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

/// Replaces whole words only (`Urteil`, not the `Urteil` in `Urteile`).
fn replace_word(s: &str, word: &str, with: &str) -> Option<String> {
    let mut from = 0;
    while let Some(i) = s[from..].find(word).map(|i| from + i) {
        let before = s[..i].chars().next_back();
        let after = s[i + word.len()..].chars().next();
        if !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric) {
            return Some(format!("{}{with}{}", &s[..i], &s[i + word.len()..]));
        }
        from = i + word.len();
    }
    None
}

fn build_set(data: &Path) -> Vec<Case> {
    let db = store(data);
    let mut cases = Vec::new();
    // A mutation that lands on something we hold is no mutation: it names a real decision.
    let held_number = |raw: &str| -> bool {
        let fns: Vec<String> = db
            .prepare("SELECT fn_norm FROM decision_file_numbers")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let folded: String = raw
            .chars()
            .filter(|c| !c.is_whitespace())
            .map(|c| if c == '.' { '/' } else { c })
            .flat_map(char::to_uppercase)
            .collect();
        fns.iter().any(|f| folded.contains(f.as_str()))
    };
    // Real decision citations, as the decisions print them, with everything the pipeline bound.
    let mut st = db
        .prepare(
            "SELECT dc.raw, dc.court_raw, dc.date, dc.file_number, t.document_type FROM decision_citations dc
             JOIN decisions t ON t.id = dc.target_id
             WHERE dc.kind = 'case' AND dc.status = 'resolved' AND dc.withheld IS NULL AND dc.case_kind = 'file_number'
               AND length(dc.raw) < 120
             ORDER BY dc.decision_id, dc.start",
        )
        .unwrap();
    // (raw, printed court, printed date, file number, held document type)
    type Row = (String, Option<String>, Option<String>, String, Option<String>);
    let rows: Vec<Row> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut seen = std::collections::BTreeSet::new();
    for (raw, court, date, fnum, held_type) in rows {
        if !seen.insert(raw.clone()) {
            continue;
        }
        // A real citation whose printed kind contradicts the held type is not "real and right".
        let printed_kind = ["Urteil", "Beschluss"].into_iter().find(|k| raw.contains(k));
        if let (Some(k), Some(h)) = (printed_kind, held_type.as_deref())
            && k != h
        {
            continue;
        }
        cases.push(real(raw.clone(), "decision"));
        let at = raw.find(&fnum).map(|b| raw[..b].chars().count()).unwrap_or(0);
        if let Some(m) = bump_digit(&raw, at).filter(|m| !held_number(m)) {
            cases.push(mutated(m, "file number digit", &["not_found", "discrepancy", "out_of_coverage"]));
        }
        if let Some(y) = fnum.rfind(['/', '.']).map(|i| &fnum[i + 1..])
            && y.len() == 2
            && let Ok(n) = y.parse::<u32>()
        {
            let new_fnum = format!("{}{:02}", &fnum[..fnum.len() - 2], (n + 3) % 100);
            let m = raw.replace(&fnum, &new_fnum);
            if !held_number(&m) {
                cases.push(mutated(m, "file number year", &["not_found", "discrepancy", "out_of_coverage"]));
            }
        }
        if let Some(c) = court.as_deref().filter(|c| raw.contains(*c)) {
            let other = if c.contains("BVerwG") || c.contains("Bundesverwaltungsgericht") { "BGH" } else { "BVerwG" };
            // Every mention of the court (also a `BVerwG` before the file number).
            cases.push(mutated(raw.replace(c, other), "court", &["discrepancy", "not_found", "out_of_coverage"]));
        }
        if let Some(d) = date.as_deref() {
            // The printed date, in either German spelling, shifted by a day.
            let (y, m, dd) = (&d[..4], &d[5..7], &d[8..10]);
            let day: u32 = dd.parse().unwrap();
            let new_day = if day >= 28 { day - 1 } else { day + 1 };
            let month: usize = m.parse().unwrap();
            for (printed, shifted) in [
                (format!("{dd}.{m}.{y}"), format!("{new_day:02}.{m}.{y}")),
                (format!("{day}. {} {y}", MONTHS[month - 1]), format!("{new_day}. {} {y}", MONTHS[month - 1])),
            ] {
                if raw.contains(&printed) {
                    cases.push(mutated(
                        raw.replace(&printed, &shifted),
                        "decision date",
                        &["discrepancy", "not_found"],
                    ));
                    break;
                }
            }
        }
        // Only where the held decision records its type can a changed kind be caught.
        if let Some(k) = printed_kind.filter(|_| held_type.is_some()) {
            let other = if k == "Urteil" { "Beschluss" } else { "Urteil" };
            if let Some(m) = replace_word(&raw, k, other) {
                cases.push(mutated(m, "document type", &["discrepancy"]));
            }
        }
    }
    // Real statute citations, from the statutes themselves: each § of some laws, with and
    // without an Absatz it has; mutations: an Absatz it lacks, a § the law lacks.
    let mut st = db
        .prepare(
            "SELECT l.code, s.label, s.absaetze FROM sections s JOIN laws l ON l.id = s.law_id
             WHERE s.kind = 'paragraph' AND s.label LIKE '§ %' AND s.label NOT LIKE '%-%' AND s.label NOT LIKE '%bis%'
               AND l.code IN ('BGB', 'StGB', 'ZPO', 'VwGO', 'IFG', 'UWG', 'GVG', 'KSchG', 'BDSG', 'UrhG')
             ORDER BY l.code, s.ordinal",
        )
        .unwrap();
    let sections: Vec<(String, String, String)> =
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect();
    // Past the last § of each law: numbers the law does not have.
    let mut last: BTreeMap<String, u32> = BTreeMap::new();
    for (code, label, _) in &sections {
        let n: u32 = label.trim_start_matches("§ ").trim_end_matches(char::is_alphabetic).trim().parse().unwrap_or(0);
        let e = last.entry(code.clone()).or_default();
        *e = (*e).max(n);
    }
    for (i, (code, label, absaetze)) in sections.iter().enumerate().filter(|(i, _)| i % 25 == 0) {
        let numbers: Vec<String> = serde_json::from_str::<Vec<Value>>(absaetze)
            .unwrap()
            .iter()
            .filter_map(|a| a["number"].as_str().map(str::to_string))
            .collect();
        cases.push(real(format!("{label} {code}"), "statute section"));
        if let Some(n) = numbers.last() {
            cases.push(real(format!("{label} Abs. {n} {code}"), "statute Absatz"));
            cases.push(mutated(
                format!("{label} Abs. {} {code}", numbers.len() + 7),
                "Absatz the § lacks",
                &["discrepancy"],
            ));
        }
        cases.push(mutated(
            format!("§ {} {code}", last[code] + 3 + (i as u32 % 40)),
            "§ the law lacks",
            &["not_found", "discrepancy"],
        ));
        cases.push(mutated(
            format!("{label} {}G", ["XQZ", "ZVWK", "QBRT", "KLMPQ"][i % 4]),
            "made-up law",
            &["not_found"],
        ));
        cases.push(mutated(
            format!("{label} {}", ["BauO LSA", "BayBO", "IFG NRW", "PolG NRW", "HBO"][i % 5]),
            "Land law",
            &["not_found"],
        ));
    }
    cases.extend(pre_enactment_cases(&db));
    cases.extend(compound_article_cases(&db));
    cases.extend(land_federal_confusion_cases(&db));
    cases
}

// ---- pre-enactment citations and `Art. X § Y` addresses (issue 14, items 2 and 4) ------------

/// `YYYY-MM-DD` → (y, m, d).
fn ymd(iso: &str) -> (i32, u32, u32) {
    (iso[..4].parse().unwrap(), iso[5..7].parse().unwrap(), iso[8..10].parse().unwrap())
}

/// The day before `(y, m, d)` (the 28th stands in for a month's last day: only "before" matters).
fn day_before((y, m, d): (i32, u32, u32)) -> (i32, u32, u32) {
    match (m, d) {
        (1, 1) => (y - 1, 12, 28),
        (_, 1) => (y, m - 1, 28),
        _ => (y, m, d - 1),
    }
}

/// A date as German texts print it, alternating `4. September 2005` and `04.09.2005`.
fn german_date((y, m, d): (i32, u32, u32), spelled: bool) -> String {
    if spelled { format!("{d}. {} {y}", MONTHS[m as usize - 1]) } else { format!("{d:02}.{m:02}.{y}") }
}

/// The date of the Bekanntmachung in a `Neugefasst durch Bek. v. 2.1.2002 I 42` note.
fn neufassung_date(stand: &str) -> Option<(i32, u32, u32)> {
    let rest = &stand[stand.find("Neugefasst durch Bek. v.")? + "Neugefasst durch Bek. v.".len()..];
    let date: Vec<u32> = rest.split_whitespace().next()?.split('.').filter_map(|p| p.parse().ok()).collect();
    (date.len() == 3).then(|| (date[2] as i32, date[1], date[0]))
}

/// Citations the text dates before the law's Ausfertigung (`serve::dating`: the law's own
/// version date, or the citation's clause) (a law cannot be cited before it
/// existed: never `verified_corpus`), and the same §§ dated after a Neufassung's original
/// Ausfertigung but before its Bekanntmachung (a re-promulgated law is the same law: real).
fn pre_enactment_cases(db: &rusqlite::Connection) -> Vec<Case> {
    let mut st = db
        .prepare(
            "SELECT l.code, l.ausfertigung_datum, l.stand, s.label FROM sections s JOIN laws l ON l.id = s.law_id
             WHERE s.kind = 'paragraph' AND s.label LIKE '§ %' AND s.label NOT LIKE '%-%' AND s.label NOT LIKE '%bis%'
               AND l.ausfertigung_datum IS NOT NULL
               AND l.code IN ('BGB', 'StGB', 'ZPO', 'VwGO', 'IFG', 'UWG', 'GVG', 'KSchG', 'BDSG', 'UrhG')
             ORDER BY l.code, s.ordinal",
        )
        .unwrap();
    let rows: Vec<(String, String, String, String)> =
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))).unwrap().map(Result::unwrap).collect();
    let mut cases = Vec::new();
    for (i, (code, enacted, stand, label)) in rows.iter().enumerate().filter(|(i, _)| i % 30 == 0) {
        let before = german_date(day_before(ymd(enacted)), i % 60 == 0);
        let forms = [
            format!("{label} {code} in der am {before} geltenden Fassung"),
            format!("{label} {code} in der Fassung vom {before}"),
        ];
        cases.push(mutated(forms[i % 2].clone(), "dated before the law", &["discrepancy"]));
        if let Some(bek) = neufassung_date(stand).filter(|b| format!("{:04}-{:02}-{:02}", b.0, b.1, b.2) > *enacted) {
            let dated = german_date(day_before(bek), i % 60 == 0);
            cases.push(real(format!("{label} {code} am {dated}"), "dated before a Neufassung"));
        }
    }
    cases
}

// ---- Land law written like the federal law it shares a code with (issue 14, item 3) ----------

/// Sections of the held federal IFG, BDSG and VwGO cited with a Land mark however attached
/// (`§ 3 IFG Bln`, `§ 3 IFG-SH`, `§ 4 IFG M-V`, `§ 1 Abs. 2 IFG NRW`) or as the Land's own law
/// (`§ 3 BlnDSG`, `§ 3 HmbTG`): Land law, never verified against (nor contradicted by) the
/// federal text; the same sections unmarked verify.
fn land_federal_confusion_cases(db: &rusqlite::Connection) -> Vec<Case> {
    const MARKS: [&str; 12] = [" Bln", " BE", "-SH", " SH", " M-V", " MV", " NRW", " NW", " LSA", " RP", " HH", "-NRW"];
    const LAND_NAMES: [&str; 6] = ["BlnDSG", "BbgDSG", "HmbTG", "SächsDSG", "Nds. DSG", "HDSG"];
    let mut st = db
        .prepare(
            "SELECT l.code, s.label, s.absaetze FROM sections s JOIN laws l ON l.id = s.law_id
             WHERE s.kind = 'paragraph' AND s.label LIKE '§ %' AND s.label NOT LIKE '%-%' AND s.label NOT LIKE '%bis%'
               AND l.code IN ('IFG', 'BDSG', 'VwGO')
             ORDER BY l.code, s.ordinal",
        )
        .unwrap();
    let sections: Vec<(String, String, String)> =
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect();
    let mut cases = Vec::new();
    for (i, (code, label, absaetze)) in sections.iter().enumerate().filter(|(i, _)| i % 3 == 0) {
        let first_absatz = serde_json::from_str::<Vec<Value>>(absaetze)
            .unwrap()
            .first()
            .and_then(|a| a["number"].as_str().map(str::to_string));
        let cited = match &first_absatz {
            Some(n) if i % 2 == 0 => format!("{label} Abs. {n}"),
            _ => label.clone(),
        };
        cases.push(real(format!("{cited} {code}"), "federal look-alike"));
        cases.push(mutated(format!("{cited} {code}{}", MARKS[i % MARKS.len()]), "Land law, marked", &["not_found"]));
        if code == "BDSG" {
            cases.push(mutated(
                format!("{cited} {}", LAND_NAMES[i % LAND_NAMES.len()]),
                "Land law, named",
                &["not_found"],
            ));
        }
    }
    cases
}

/// The `Art. X § Y` rows of EGBGB (key `229§5`), cited as one address: real with and without an
/// Absatz it has; mutations: an Absatz it lacks, a § the article lacks.
fn compound_article_cases(db: &rusqlite::Connection) -> Vec<Case> {
    let mut st = db
        .prepare(
            "SELECT s.key, s.absaetze FROM sections s JOIN laws l ON l.id = s.law_id
             WHERE l.slug = 'bgbeg' AND s.key GLOB '[0-9]*§[0-9]*' ORDER BY s.ordinal",
        )
        .unwrap();
    let rows: Vec<(String, String)> =
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect();
    let mut last: BTreeMap<String, u32> = BTreeMap::new();
    for (key, _) in &rows {
        let (article, paragraph) = key.split_once('§').unwrap();
        let n: u32 = paragraph.trim_end_matches(char::is_alphabetic).parse().unwrap_or(0);
        let e = last.entry(article.to_string()).or_default();
        *e = (*e).max(n);
    }
    let mut cases = Vec::new();
    for (i, (key, absaetze)) in rows.iter().enumerate().filter(|(i, _)| i % 3 == 0) {
        let (article, paragraph) = key.split_once('§').unwrap();
        let numbers: Vec<String> = serde_json::from_str::<Vec<Value>>(absaetze)
            .unwrap()
            .iter()
            .filter_map(|a| a["number"].as_str().map(str::to_string))
            .collect();
        let spelled = if i % 2 == 0 { "Art." } else { "Artikel" };
        cases.push(real(format!("{spelled} {article} § {paragraph} EGBGB"), "EGBGB Art. § address"));
        if let Some(n) = numbers.last() {
            cases.push(real(format!("Art. {article} § {paragraph} Abs. {n} EGBGB"), "EGBGB Art. § Absatz"));
        }
        cases.push(mutated(
            format!("Art. {article} § {paragraph} Abs. {} EGBGB", numbers.len() + 7),
            "EGBGB Absatz it lacks",
            &["discrepancy"],
        ));
        cases.push(mutated(
            format!("Art. {article} § {} EGBGB", last[article] + 3),
            "EGBGB § the Art. lacks",
            &["not_found", "discrepancy"],
        ));
    }
    cases
}

/// The two new parts of the set on their own, with the fields a lawyer reads: EGBGB's
/// `Art. 229 § 5` verifies, an Absatz it lacks is a discrepancy; a citation the text
/// dates before the law is a `predates_law` discrepancy; a Neufassung is not a new law.
#[test]
fn compound_articles_verify_and_pre_enactment_citations_do_not() {
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &[]);
    let http = legal_tests::http::Client::new();
    let db = store(data.path());
    let first = |text: &str| -> Value {
        let (status, v) = http.check_citations(&server.base_url, text);
        assert_eq!(status, 200, "{text}: {v}");
        v["findings"].as_array().unwrap().iter().find(|f| f["kind"] == "law").cloned().unwrap_or(Value::Null)
    };
    let f = first("Die Verjährung richtet sich nach Art. 229 § 5 EGBGB. Dem folgt der Senat ohne Weiteres.");
    assert_eq!(f["verdict"], "verified_corpus", "{f}");
    assert_eq!(f["raw_text"], "Art. 229 § 5 EGBGB", "one citation, one address: {f}");
    let f = first("Die Verjährung richtet sich nach Art. 229 § 5 Abs. 9 EGBGB. Dem folgt der Senat ohne Weiteres.");
    assert_eq!(f["verdict"], "discrepancy", "Art. 229 § 5 has no Abs. 9: {f}");
    // The unit is part of the address: EGBGB has an Art. 3 and no § 3 (both are key `3`).
    let f = first("Das anwendbare Recht bestimmt sich nach Art. 3 EGBGB. Dem folgt der Senat ohne Weiteres.");
    assert_eq!(f["verdict"], "verified_corpus", "{f}");
    let f = first("Das anwendbare Recht bestimmt sich nach § 3 EGBGB. Dem folgt der Senat ohne Weiteres.");
    assert_ne!(f["verdict"], "verified_corpus", "§ 3 EGBGB does not exist; Art. 3 does: {f}");
    assert_eq!(f["reason"], "section_absent_in_current_text", "{f}");
    let f = first("Der Kläger beantragte am 1.3.2002 Zugang zu den Akten nach § 3 IFG. Der Antrag wurde abgelehnt.");
    assert_eq!((f["verdict"].as_str(), f["reason"].as_str()), (Some("discrepancy"), Some("predates_law")), "{f}");
    assert_eq!(f["evidence"]["law_enacted"], "2005-09-05", "{f}");
    assert_eq!(f["evidence"]["stated_date"], "2002-03-01", "{f}");
    // A later date in the same sentence: not dated before the law.
    let f = first("Der Antrag vom 1.3.2002 wurde am 2. Februar 2006 nach § 3 IFG beschieden. Die Klage folgte.");
    assert_eq!(f["verdict"], "verified_corpus", "{f}");
    // A date in another sentence does not date this one.
    let f = first("Der Kläger beantragte am 1.3.2002 Zugang. Heute gilt § 3 IFG für jeden Antrag auf Zugang.");
    assert_eq!(f["verdict"], "verified_corpus", "{f}");
    // Nor does a document's date in parentheses: today's law applies to older documents.
    let f = first(
        "Für Dokument 60 (Schreiben vom 9. Oktober 2002) besteht der Ausschlussgrund des § 3 IFG nicht; der Antrag ist begründet.",
    );
    assert_eq!(f["verdict"], "verified_corpus", "{f}");
    // A cited decision that applied the law dates it.
    let f = first("So schon BVerwG, Urteil vom 1.3.2002 - 7 C 1.02 - zu § 3 IFG. Dem folgt der Senat ohne Weiteres.");
    assert_eq!(
        (f["reason"].as_str(), f["evidence"]["date_basis"].as_str()),
        (Some("predates_law"), Some("cited_decision"))
    );
    // BGB: Ausfertigung 1896, Neufassung bekanntgemacht 2002 – a 1990 citation is of the same law.
    let f = first("Der Schaden entstand am 1. März 1990; der Anspruch folgt aus § 823 BGB. Das Gericht gab statt.");
    assert_eq!(f["verdict"], "verified_corpus", "a Neufassung is not a new law: {f}");
    // A text written (reference date) before the law cannot cite it either.
    let body = serde_json::json!({"text": "Heute gilt § 3 IFG für jeden Antrag auf Zugang zu amtlichen Informationen.",
                                  "reference_date": "2004-06-30"});
    let v = legal_tests::http::post_json(&format!("{}/api/citations/check", server.base_url), &body);
    let f = &v["findings"][0];
    assert_eq!(
        (f["verdict"].as_str(), f["evidence"]["date_basis"].as_str()),
        (Some("discrepancy"), Some("reference_date")),
        "{v}"
    );
    let pre = pre_enactment_cases(&db);
    let compound = compound_article_cases(&db);
    let n = |set: &[Case], m: bool| set.iter().filter(|c| c.mutation == m).count();
    assert!(n(&pre, true) >= 15 && n(&pre, false) >= 5, "pre-enactment set: {} / {}", n(&pre, true), n(&pre, false));
    assert!(n(&compound, false) >= 50, "EGBGB's Art. § rows are cited: {}", n(&compound, false));
}

/// Every occurrence of a citation repeated in one text gets the finding a text holding only its
/// sentence gets, at its own offsets: the same § dated before the law and today differ.
#[test]
fn a_repeated_citation_gets_the_finding_of_its_own_sentence_at_its_own_offsets() {
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &[]);
    let http = legal_tests::http::Client::new();
    let sentences = [
        "Der Kläger beantragte am 1.3.2002 Zugang zu den Akten nach § 3 IFG.",
        "Heute gilt § 3 IFG für jeden Antrag auf Zugang zu amtlichen Informationen.",
        "Der Anspruch folgt aus § 823 Abs. 1 BGB und aus § 3 IFG.",
    ];
    let findings = |text: &str| -> Vec<Value> {
        let (status, v) = http.check_citations(&server.base_url, text);
        assert_eq!(status, 200, "{text}: {v}");
        v["findings"].as_array().unwrap().clone()
    };
    let without_offsets = |f: &Value| {
        let mut f = f.clone();
        let m = f.as_object_mut().unwrap();
        m.remove("start");
        m.remove("end");
        f
    };
    // Each sentence alone, then all of them three times over in one text.
    let alone: Vec<Vec<Value>> = sentences.iter().map(|s| findings(s)).collect();
    let mut text = String::new();
    let mut expected = Vec::new();
    for _ in 0..3 {
        for (s, fs) in sentences.iter().zip(&alone) {
            let at = text.chars().count();
            for f in fs {
                let mut f = f.clone();
                f["start"] = serde_json::json!(f["start"].as_u64().unwrap() as usize + at);
                f["end"] = serde_json::json!(f["end"].as_u64().unwrap() as usize + at);
                expected.push(f);
            }
            text.push_str(s);
            text.push(' ');
        }
    }
    let together = findings(&text);
    assert_eq!(together.len(), expected.len(), "{together:?}");
    for (got, want) in together.iter().zip(&expected) {
        assert_eq!((&got["start"], &got["end"]), (&want["start"], &want["end"]), "offsets of {got}");
        let chars: Vec<char> = text.chars().collect();
        let (a, b) = (got["start"].as_u64().unwrap() as usize, got["end"].as_u64().unwrap() as usize);
        assert_eq!(chars[a..b].iter().collect::<String>(), got["raw_text"].as_str().unwrap());
        assert_eq!(
            without_offsets(got),
            without_offsets(want),
            "a repeated citation's finding differs from its sentence alone"
        );
    }
    let verdicts: Vec<&str> =
        together.iter().filter(|f| f["raw_text"] == "§ 3 IFG").map(|f| f["verdict"].as_str().unwrap()).collect();
    assert!(verdicts.contains(&"discrepancy") && verdicts.contains(&"verified_corpus"), "{verdicts:?}");
}

#[test]
fn the_guard_never_verifies_a_mutation_and_verifies_the_real_citations() {
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &[]);
    let http = legal_tests::http::Client::new();
    let set = build_set(data.path());
    let reals = set.iter().filter(|c| !c.mutation).count();
    let mutations = set.len() - reals;
    assert!(reals >= 300 && mutations >= 300, "labelled set too small: {reals} real, {mutations} mutations");
    let mut table: BTreeMap<(&str, String), usize> = BTreeMap::new();
    let (mut real_ok, mut mut_ok, mut false_verified) = (0, 0, Vec::new());
    for c in &set {
        let text = format!(
            "Die Beteiligten streiten um die Auslegung. Das Gericht verweist auf {}. Dem folgt der Senat.",
            c.citation
        );
        let (status, v) = http.check_citations(&server.base_url, &text);
        assert_eq!(status, 200, "{text}: {v}");
        let start = "Die Beteiligten streiten um die Auslegung. Das Gericht verweist auf ".chars().count();
        let finding = v["findings"].as_array().unwrap().iter().find(|f| {
            let (s, e) = (f["start"].as_u64().unwrap() as usize, f["end"].as_u64().unwrap() as usize);
            s < start + c.citation.chars().count() && e > start
        });
        let verdict =
            finding.map(|f| f["verdict"].as_str().unwrap().to_string()).unwrap_or_else(|| "no_finding".into());
        *table.entry((c.label, verdict.clone())).or_default() += 1;
        if c.mutation && verdict == "verified_corpus" {
            false_verified.push(c.citation.clone());
        }
        if c.expect.contains(&verdict.as_str()) {
            if c.mutation { mut_ok += 1 } else { real_ok += 1 }
        }
    }
    eprintln!("labelled set: {reals} real, {mutations} mutations; confusion (label, verdict) -> count:");
    for ((label, verdict), n) in &table {
        eprintln!("  {label:22} {verdict:18} {n}");
    }
    eprintln!("real verified: {real_ok}/{reals}; mutations with the implied verdict: {mut_ok}/{mutations}");
    assert!(false_verified.is_empty(), "mutations verified (the worst answer): {false_verified:?}");
    assert!(real_ok * 100 >= reals * 95, "at least 95% of the real citations verify: {real_ok}/{reals}");
    assert!(
        mut_ok * 100 >= mutations * 95,
        "at least 95% of the mutations get their implied verdict: {mut_ok}/{mutations}"
    );
}

#[test]
fn offsets_are_code_points_and_no_input_breaks_the_checker() {
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &[]);
    let http = legal_tests::http::Client::new();
    let base = &server.base_url;
    // Awkward input: emoji, combining characters, CRLF line ends.
    let text = "Gru\u{308}ße 👩‍⚖️ an das Gericht.\r\nNach § 823 Abs. 1 BGB 😀 und Art. 20 GG\r\nsowie BGH, Beschluss vom 09.04.2018 - VI ZR 194/17 ist der Antrag begründet. e\u{301}";
    let (status, v) = http.check_citations(base, text);
    assert_eq!(status, 200, "{v}");
    let chars: Vec<char> = text.chars().collect();
    let findings = v["findings"].as_array().unwrap();
    assert!(findings.len() >= 3, "{v}");
    for f in findings {
        let (s, e) = (f["start"].as_u64().unwrap() as usize, f["end"].as_u64().unwrap() as usize);
        assert_eq!(chars[s..e].iter().collect::<String>(), f["raw_text"].as_str().unwrap());
    }
    // Bad input: a clear refusal or a complete answer, never a failure.
    let cases: Vec<(String, &[&str])> = vec![
        (String::new(), &["text_too_short", "invalid_argument"]),
        ("§ 823 BGB und das Gericht, aber zu kurz hier!!!!!".chars().take(49).collect(), &["text_too_short"]),
        (format!("Das Gericht: § 823 BGB. {}", "x".repeat(20_001)), &["text_too_long"]),
        ("§".repeat(20_000), &["ok", "not_german_legal_text"]),
        (format!("Das Gericht wendet §§ {} BGB an.", ["1", "2"].repeat(2_500).join(",")), &["ok"]),
        (
            (0..3000u32).map(|i| char::from_u32((i * 7919) % 0xD7FF + 1).unwrap_or('x')).collect(),
            &["ok", "not_german_legal_text"],
        ),
    ];
    for (input, allowed) in cases {
        let (status, v) = http.check_citations(base, &input);
        let got = v["error_code"].as_str().unwrap_or("ok");
        assert!(
            allowed.contains(&got),
            "{} chars: got {got} (HTTP {status}): {}",
            input.chars().count(),
            v.to_string().chars().take(300).collect::<String>()
        );
        assert!(status < 500, "no input is a server failure");
        if got == "ok" {
            let chars: Vec<char> = input.chars().collect();
            for f in v["findings"].as_array().unwrap() {
                let (s, e) = (f["start"].as_u64().unwrap() as usize, f["end"].as_u64().unwrap() as usize);
                assert_eq!(chars[s..e].iter().collect::<String>(), f["raw_text"].as_str().unwrap());
            }
        }
    }
    // Arbitrary Unicode with legal fragments spliced in (a deterministic generator).
    let pieces = [
        "§ ",
        "Art. ",
        "Abs. ",
        "BGB",
        "GG",
        " i.V.m. ",
        "VIII ZR ",
        "231/07",
        "BGH, Urteil vom ",
        "08.04.2009",
        " - ",
        "\r\n",
        "😀",
        "e\u{301}",
        "Gericht ",
        "§§ ",
        "ff.",
        "Nr. 3104 VV RVG",
        "\u{0}",
        "\u{feff}",
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..120 {
        let len = 20 + (next() % 400) as usize;
        let mut s = String::new();
        while s.chars().count() < len {
            if next() % 3 == 0 {
                s.push_str(pieces[(next() % pieces.len() as u64) as usize]);
            } else if let Some(c) = char::from_u32((next() % 0x2_FFFF) as u32) {
                s.push(c);
            }
        }
        let (status, v) = http.check_citations(base, &s);
        assert!(status < 500, "{s:?}: {v}");
        if let Some(fs) = v["findings"].as_array() {
            let chars: Vec<char> = s.chars().collect();
            for f in fs {
                let (a, b) = (f["start"].as_u64().unwrap() as usize, f["end"].as_u64().unwrap() as usize);
                assert_eq!(chars[a..b].iter().collect::<String>(), f["raw_text"].as_str().unwrap(), "{s:?}");
            }
        }
    }
}

// ---- decisions we do not hold: out_of_coverage, measured windows, attested_by (issue 14, item 5) ----

/// Whether a printed court is a Land court (VG, OVG, VGH, OLG, LG, AG): the coverage map has no
/// window for any of them, the dumps hold only a selection.
fn names_land_court(printed: &str) -> bool {
    const TYPES: &[&str] = &[
        "VG",
        "OVG",
        "VGH",
        "OLG",
        "LG",
        "AG",
        "Verwaltungsgericht",
        "Oberverwaltungsgericht",
        "Verwaltungsgerichtshof",
        "Oberlandesgericht",
        "Landgericht",
        "Amtsgericht",
    ];
    let first = printed.split_whitespace().next().unwrap_or("");
    TYPES.contains(&first) || printed.split_whitespace().any(|w| w.ends_with("VGH"))
}

/// Real citations of Land-court decisions we do not hold, as the corpus decisions print them
/// (resolve found no held decision under their file number), and each with one digit of the
/// file number changed (a fabricated decision of the same court).
fn land_court_cases(db: &rusqlite::Connection) -> Vec<Case> {
    let held: std::collections::BTreeSet<String> = db
        .prepare("SELECT fn_norm FROM decision_file_numbers UNION SELECT fn_norm FROM unheld_case_citations")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut st = db
        .prepare(
            "SELECT DISTINCT raw, court_raw, file_number FROM decision_citations
             WHERE kind = 'case' AND case_kind = 'file_number' AND target_id IS NULL AND candidates = '[]'
               AND status IN ('unresolved_no_match', 'unresolved_out_of_coverage') AND court_raw IS NOT NULL
               AND length(raw) < 120 AND raw NOT LIKE '%' || char(10) || '%'
             ORDER BY raw",
        )
        .unwrap();
    let rows: Vec<(String, String, String)> =
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect();
    let mut cases = Vec::new();
    for (raw, court, number) in rows.into_iter().filter(|(_, court, _)| names_land_court(court)) {
        cases.push(Case {
            citation: raw.clone(),
            expect: &["out_of_coverage"],
            label: "Land court, not held",
            mutation: false,
        });
        let at = raw.find(&number).map(|b| raw[..b].chars().count()).unwrap_or(0);
        let fabricated = bump_digit(&raw, at).filter(|m| {
            let n = bump_digit(&number, 0).unwrap_or_default();
            m.contains(&n) && !held.contains(&resolve::case_law::file_number_key(&n))
        });
        if let Some(m) = fabricated {
            cases.push(mutated(m, "Land court, fabricated", &["out_of_coverage"]));
        }
        let _ = court;
    }
    cases
}

/// Checks many citations in few calls: each in its own sentence of one text (at most ~40 per
/// text); returns, per case, the case finding that covers it (None when none does).
fn check_batched(http: &legal_tests::http::Client, base: &str, set: &[Case]) -> Vec<Option<Value>> {
    let mut out = Vec::new();
    for chunk in set.chunks(40) {
        let mut text = String::from("Die Beteiligten streiten um die Auslegung der Vorschrift.");
        let mut spans = Vec::new();
        for c in chunk {
            text.push_str(" Das Gericht verweist auf ");
            let start = text.chars().count();
            text.push_str(&c.citation);
            spans.push((start, start + c.citation.chars().count()));
            text.push_str(". Dem folgt der Senat.");
        }
        let (status, v) = http.check_citations(base, &text);
        assert_eq!(status, 200, "{v}");
        let findings = v["findings"].as_array().unwrap();
        for (s, e) in spans {
            out.push(
                findings
                    .iter()
                    .find(|f| {
                        f["kind"] == "case"
                            && (f["start"].as_u64().unwrap() as usize) < e
                            && (f["end"].as_u64().unwrap() as usize) > s
                    })
                    .cloned(),
            );
        }
    }
    out
}

/// On the whole shared corpus: real and fabricated citations of VG, OVG, VGH, OLG, LG and AG
/// decisions we do not hold are `out_of_coverage` with the reason (a selection only when the
/// dumps hold decisions of that court, else no window), never `not_found`; every `not_found`
/// of the set lies inside a window measured exhaustive. Held decisions citing a decision we do
/// not hold are named in `evidence.attested_by`, exactly those resolve left unbound.
#[test]
fn decisions_we_do_not_hold_are_out_of_coverage_unless_a_measured_window_says_otherwise() {
    let Some(data) = legal_tests::full_corpus_data_dir() else { return };
    let server = Server::start(data.path(), &[]);
    let http = legal_tests::http::Client::new();
    let db = store(data.path());
    let set = land_court_cases(&db);
    let reals = set.iter().filter(|c| !c.mutation).count();
    assert!(reals >= 300 && set.len() - reals >= 200, "{reals} real, {} fabricated", set.len() - reals);
    let mut table: BTreeMap<(&str, String, String), usize> = BTreeMap::new();
    let mut wrong = Vec::new();
    for (c, f) in set.iter().zip(check_batched(&http, &server.base_url, &set)) {
        let Some(f) = f else {
            *table.entry((c.label, "no_finding".into(), String::new())).or_default() += 1;
            continue;
        };
        let verdict = f["verdict"].as_str().unwrap().to_string();
        let reason = f["coverage_boundary"]["reason"].as_str().unwrap_or("").to_string();
        *table.entry((c.label, verdict.clone(), reason.clone())).or_default() += 1;
        if verdict == "not_found" {
            assert_eq!(
                f["evidence"]["window"]["measured"]["measured_exhaustive"], true,
                "not_found outside a measured window: {f}"
            );
        }
        // The reason says what is held of the court: a selection, or nothing at all.
        let held_of_court = f["coverage_boundary"]["decisions_held_of_court"].as_u64();
        let reason_fits = match reason.as_str() {
            "selection_only" => held_of_court > Some(0) && f["coverage_boundary"]["bucket"] == "oldp-dumps",
            "no_window_for_court" => held_of_court == Some(0),
            _ => false,
        };
        if verdict != "out_of_coverage" || !reason_fits {
            wrong.push(format!("{} -> {verdict} {reason}", c.citation));
        }
    }
    eprintln!("Land courts not held ({} citations): (label, verdict, coverage reason) -> count", set.len());
    for ((label, verdict, reason), n) in &table {
        eprintln!("  {label:24} {verdict:16} {reason:20} {n}");
    }
    let not_found = table.iter().filter(|((_, v, _), _)| v == "not_found").map(|(_, n)| n).sum::<usize>();
    assert_eq!(not_found, 0, "a decision of a court without a window is never not_found");
    let verified = table.iter().filter(|((_, v, _), _)| v == "verified_corpus").map(|(_, n)| n).sum::<usize>();
    assert_eq!(verified, 0, "nothing held, nothing verified");
    assert!(
        wrong.len() * 100 <= set.len() * 2,
        "{} of {} without out_of_coverage and its reason: {wrong:?}",
        wrong.len(),
        set.len()
    );
    // Known courts: VG Berlin (110 decisions held) is a selection; a court nothing is held of has no window.
    let one =
        |citation: &str| check_batched(&http, &server.base_url, &[real(citation.into(), "probe")]).remove(0).unwrap();
    let f = one("VG Berlin, Urteil vom 12.03.2015 - 2 K 917.13");
    assert_eq!(
        (f["verdict"].as_str(), f["coverage_boundary"]["reason"].as_str()),
        (Some("out_of_coverage"), Some("selection_only")),
        "{f}"
    );
    let f = one("AG Castrop-Rauxel, Urteil vom 12.03.2015 - 4 C 917/13");
    assert_eq!(
        (f["verdict"].as_str(), f["coverage_boundary"]["reason"].as_str()),
        (Some("out_of_coverage"), Some("no_window_for_court")),
        "{f}"
    );

    // attested_by, measured independently from resolve's output: the decision most often cited
    // (same canonical court, file number and printed date) that resolve bound to nothing held.
    let citations: Vec<Value> =
        legal_tests::citation_lines(data.path()).iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut citing: BTreeMap<(String, String, String, String), std::collections::BTreeSet<String>> = BTreeMap::new();
    for d in &citations {
        for k in d["cases"].as_array().unwrap() {
            let unbound = ["unresolved_no_match", "unresolved_out_of_coverage"]
                .contains(&k["status"].as_str().unwrap_or(""))
                && k["candidates"].as_array().is_some_and(|c| c.is_empty());
            if let (true, Some(court), Some(raw_court), Some(number), Some(date)) =
                (unbound, k["court"].as_str(), k["court_raw"].as_str(), k["file_number"].as_str(), k["date"].as_str())
                && names_land_court(raw_court)
            {
                let key = (
                    resolve::case_law::file_number_key(number),
                    court.to_string(),
                    date.to_string(),
                    format!("{raw_court}\t{number}"),
                );
                citing.entry(key).or_default().insert(d["id"].as_str().unwrap().to_string());
            }
        }
    }
    // Group the printed spellings of one (file number, court, date).
    let mut groups: BTreeMap<(String, String, String), (std::collections::BTreeSet<String>, String)> = BTreeMap::new();
    for ((key, court, date, printed), ids) in citing {
        let g = groups.entry((key, court, date)).or_insert_with(|| (Default::default(), printed));
        g.0.extend(ids);
    }
    let ((_, _, date), (expected, printed)) = groups.into_iter().max_by_key(|(_, (ids, _))| ids.len()).unwrap();
    assert!(expected.len() >= 3, "a decision we do not hold, cited by several: {expected:?}");
    let (court, number) = printed.split_once('\t').unwrap();
    let german = format!("{}.{}.{}", &date[8..10], &date[5..7], &date[..4]);
    let f = one(&format!("{court}, Beschluss vom {german} - {number}"));
    assert_eq!(f["verdict"], "out_of_coverage", "a pointer, never a verdict: {f}");
    let attested: std::collections::BTreeSet<String> = f["evidence"]["attested_by"]
        .as_array()
        .unwrap_or_else(|| panic!("{f}"))
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect();
    assert_eq!(attested, expected, "{court} {number}: the citing decisions");
    // Counted in full, and said whether every one is named (at most 20 are).
    assert_eq!(f["evidence"]["attested_by_total"].as_u64(), Some(expected.len() as u64), "{f}");
    assert_eq!(f["evidence"]["attested_by_truncated"].as_bool(), Some(expected.len() > 20), "{f}");
    eprintln!("attested_by: {court} {number} ({date}) cited by {} held decisions", attested.len());
    // The same number at another date, or a number nobody cites: no attestation.
    let f = one(&format!("{court}, Beschluss vom 01.01.1999 - {number}"));
    assert!(f["evidence"]["attested_by"].is_null(), "{f}");
    let f = one(&format!("{court}, Beschluss vom {german} - {}", bump_digit(number, 0).unwrap()));
    assert!(f["evidence"]["attested_by"].is_null(), "{f}");
}
