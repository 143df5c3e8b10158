//! The hallucination guard on a labelled set built here from the corpus: real citations taken
//! from the decisions' own texts (bound by the pipeline) and from the statutes, and mutations
//! of them (one digit of the file number, the year, the court, the date, the decision kind, an
//! Absatz the § lacks, a § the law lacks, a made-up law, a Land law). No mutation may ever be
//! `verified_corpus`; the confusion table is printed. Also: offsets on awkward input, bad
//! input, and arbitrary Unicode.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use legal_tests::procs::Server;
use serde_json::Value;

struct Http {
    rt: tokio::runtime::Runtime,
    client: reqwest::Client,
}

impl Http {
    fn new() -> Http {
        let _ = rustls::crypto::ring::default_provider().install_default();
        Http {
            rt: tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap(),
            // A hang guard only: the server must answer every input, refusing or not.
            client: reqwest::Client::builder().timeout(Duration::from_secs(120)).build().unwrap(),
        }
    }

    fn check(&self, base: &str, text: &str) -> (u16, Value) {
        self.rt.block_on(async {
            let r = self
                .client
                .post(format!("{base}/api/citations/check"))
                .header("content-type", "text/plain; charset=utf-8")
                .body(text.to_string())
                .send()
                .await
                .expect("the server answers");
            let status = r.status().as_u16();
            let body = r.text().await.unwrap();
            (status, serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}")))
        })
    }
}

fn store(data: &Path) -> rusqlite::Connection {
    let id = std::fs::read_to_string(data.join("CURRENT")).unwrap();
    rusqlite::Connection::open(data.join("generations").join(id.trim()).join("store.sqlite")).unwrap()
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
             WHERE dc.kind = 'case' AND dc.status = 'resolved' AND dc.withheld IS NULL AND dc.case_kind = 'filenumber'
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
    cases
}

#[test]
fn the_guard_never_verifies_a_mutation_and_verifies_the_real_citations() {
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &[]);
    let http = Http::new();
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
        let (status, v) = http.check(&server.base_url, &text);
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
    let http = Http::new();
    let base = &server.base_url;
    // Awkward input: emoji, combining characters, CRLF line ends.
    let text = "Gru\u{308}ße 👩‍⚖️ an das Gericht.\r\nNach § 823 Abs. 1 BGB 😀 und Art. 20 GG\r\nsowie BGH, Beschluss vom 09.04.2018 - VI ZR 194/17 ist der Antrag begründet. e\u{301}";
    let (status, v) = http.check(base, text);
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
        let (status, v) = http.check(base, &input);
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
        let (status, v) = http.check(base, &s);
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
