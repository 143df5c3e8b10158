//! Golden tests on real corpus records (one per kind), the whole-corpus run and bad input.
//!
//! The corpus is `../shared/data/decisions/corpus.oldp.jsonl.gz` (966 real records); the
//! golden expectations pin specific lines, Randnummern and sections of real decisions.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::sync::OnceLock;

use super::*;

const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared");

/// All corpus lines by record id (each line is parsed once per test binary).
fn corpus() -> &'static BTreeMap<u64, String> {
    static C: OnceLock<BTreeMap<u64, String>> = OnceLock::new();
    C.get_or_init(|| {
        let path = format!("{SHARED}/data/decisions/corpus.oldp.jsonl.gz");
        let f = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let r = BufReader::new(flate2::read::GzDecoder::new(f));
        let mut m = BTreeMap::new();
        for (i, line) in r.lines().enumerate() {
            let line = line.expect("gzip line");
            // Ids are 1..=966 in line order; the one null id in the source was assigned here.
            m.insert(i as u64 + 1, line);
        }
        m
    })
}

fn record(id: u64) -> OldpRecord {
    parse_oldp_line(&corpus()[&id]).expect("corpus line parses")
}

fn doc(id: u64) -> DecisionDoc {
    normalise_oldp(&record(id)).unwrap_or_else(|e| panic!("record {id}: {e}"))
}

fn slice(d: &DecisionDoc, start: usize, end: usize) -> String {
    d.text.chars().skip(start).take(end - start).collect()
}

fn section<'a>(d: &'a DecisionDoc, name: &str) -> &'a Section {
    d.sections.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("no section {name}: {:?}", d.sections))
}

fn rn_text(d: &DecisionDoc, rn: u32) -> String {
    let b = d.randnummern.iter().find(|b| b.rn == rn).unwrap_or_else(|| panic!("no Rn {rn}"));
    slice(d, b.start, b.end)
}

fn names(d: &DecisionDoc) -> Vec<&str> {
    d.sections.iter().map(|s| s.name.as_str()).collect()
}

/// Invariants every document must hold.
fn check_invariants(id: u64, d: &DecisionDoc) {
    let n = d.text.chars().count();
    for s in &d.sections {
        assert!(s.start <= s.end && s.end <= n, "record {id}: section {s:?} out of range {n}");
    }
    let mut prev_end = 0;
    for b in &d.randnummern {
        assert!(b.start < b.end && b.end <= n, "record {id}: block {b:?} out of range {n}");
        assert!(b.start >= prev_end, "record {id}: blocks overlap at {b:?}");
        prev_end = b.end;
    }
    assert!(!d.text.contains(lines::RN_MARK), "record {id}: mark left in text");
    assert!(!d.text.contains("\n\n") && !d.text.starts_with('\n'), "record {id}: empty line");
}

#[test]
fn golden_oldp_markdown_bgh() {
    // Id 4: BGH VIII ZR 127/17, OLDP legacy markdown with `N| ` Randnummern.
    let d = doc(4);
    let lines: Vec<&str> = d.text.lines().collect();
    assert_eq!(lines[0], "Tenor");
    assert_eq!(lines[1], "Das Ablehnungsgesuch des Klägers gegen den Richter Dr. S. wird zurückgewiesen.");
    assert_eq!(lines[2], "Gründe");
    assert_eq!(lines[3], "I.");
    assert!(lines[4].starts_with("1 Der Kläger ist auf die Widerklage der Beklagten zu 1"));
    assert_eq!(lines[6], "II.");
    assert_eq!(lines[7], "3 Das Ablehnungsgesuch ist unbegründet.");
    assert_eq!(*lines.last().unwrap(), "Dr. Milger Dr. Achilles Dr. Fetzer Dr. Bünger Kosziol");
    assert_eq!(names(&d), ["Tenor", "Gründe"]);
    assert_eq!(slice(&d, section(&d, "Tenor").start, section(&d, "Tenor").end), lines[1]);
    assert_eq!(d.randnummern.len(), 7);
    assert!(d.randnummern.iter().all(|b| b.printed));
    assert!(rn_text(&d, 7).starts_with("7 Vorinstanzen materiell handgreiflich richtig"));
    assert_eq!(rn_text(&d, 2).lines().nth(1), Some("II."), "the outline line belongs to the block before");
    assert_eq!(d.meta.file_numbers, ["VIII ZR 127/17"]);
    assert_eq!(d.meta.source_format, "oldp-markdown");
    assert_eq!(d.meta.chamber.as_deref(), Some("VIII. Zivilsenat"));
    check_invariants(4, &d);
}

#[test]
fn golden_portal_html_bfh() {
    // Id 40: BFH VII R 57/20, portal container with `<li data-rd="N">` Randnummern.
    let d = doc(40);
    let lines: Vec<&str> = d.text.lines().collect();
    assert_eq!(lines[0], "ECLI:DE:BFH:2024:B.240424.VIIR57.20.0");
    assert_eq!(lines[1], "BFH VII. Senat");
    assert!(lines[2].starts_with("AO § 191 Abs 1 S 2, AnfG § 1, AnfG § 2,"));
    assert_eq!(lines[4], "Leitsätze");
    assert!(lines[5].starts_with("1. Für einen Duldungsbescheid gemäß § 191 Abs. 1 Satz 2"));
    assert_eq!(names(&d), ["Leitsatz", "Tenor", "Tatbestand", "Entscheidungsgründe"]);
    let tenor = section(&d, "Tenor");
    assert!(slice(&d, tenor.start, tenor.end).starts_with("Die Revision der Klägerin gegen das Urteil"));
    assert!(rn_text(&d, 1).starts_with("1 Die Beteiligten streiten darüber, ob ein Duldungsbescheid"));
    assert!(d.randnummern.iter().all(|b| b.printed));
    let rns: Vec<u32> = d.randnummern.iter().map(|b| b.rn).collect();
    assert_eq!(rns, (1..=rns.len() as u32).collect::<Vec<_>>(), "consecutive from 1");
    assert!(rns.len() >= 30, "{}", rns.len());
    assert_eq!(d.meta.document_type.as_deref(), Some("Beschluss"));
    assert_eq!(d.meta.ecli_date_agrees, Some(true));
    check_invariants(40, &d);
}

#[test]
fn golden_portal_html_bag_dl_randnummern() {
    // Id 44: BAG 1 AZR 62/23, `<dl><dt>N</dt><dd>…` Randnummern and a layout table.
    let d = doc(44);
    let lines: Vec<&str> = d.text.lines().collect();
    assert_eq!(lines[0], "Tenor");
    assert!(lines[1].starts_with("1. Auf die Revision der Beklagten wird das Urteil"));
    assert!(lines.contains(&"1 Die Parteien streiten über eine Sozialplanabfindung."));
    assert!(lines.contains(&"8 Der Kläger hat beantragt,"));
    assert_eq!(rn_text(&d, 1), "1 Die Parteien streiten über eine Sozialplanabfindung.");
    assert_eq!(names(&d)[..2], ["Tenor", "Tatbestand"]);
    check_invariants(44, &d);
}

#[test]
fn golden_pdf_derived_bverwg() {
    // Id 197: BVerwG 7 C 12.13 (IFG collection), pdftotext with `-2-` page numbers.
    let d = doc(197);
    assert!(d.flags.pdf_derived);
    assert!(d.flags.page_furniture_removed >= 20, "{}", d.flags.page_furniture_removed);
    assert!(!d.text.lines().any(|l| l == "-2-" || l == "- 10 -"));
    let lines: Vec<&str> = d.text.lines().collect();
    assert!(lines.contains(&"Gründe:"), "heading kept as its own line");
    assert!(lines.contains(
        &"1 Der Kläger begehrt von der Beklagten Einsicht in Akten, die den Verkauf eines Grundstücks betreffen."
    ));
    assert!(names(&d).contains(&"Gründe"));
    assert!(d.randnummern.iter().all(|b| b.printed));
    assert!(rn_text(&d, 2).starts_with(
        "2 Die Beklagte, eine bundesunmittelbare rechtsfähige Anstalt des öffentlichen Rechts, hat die Aufgabe, das Liegenschaftsvermögen des Bundes"
    ));
    assert!(d.randnummern.len() >= 20);
    check_invariants(197, &d);
}

#[test]
fn golden_pdf_derived_hyphenation_and_letter_spaced_heading() {
    // Id 157: BVerwG 1 B 126.95 (1995), letter-spaced `G r ü n d e :`, hyphens at line ends.
    let d = doc(157);
    let lines: Vec<&str> = d.text.lines().collect();
    assert!(lines.contains(&"G r ü n d e :"));
    assert_eq!(section(&d, "Gründe").heading, "G r ü n d e :");
    assert!(d.text.contains("vom 13. Dezember 1935 (RGBl I S. 1451)"), "De- / page break / zember joined");
    assert!(d.text.contains("Schleswig-Holsteinischen Oberverwaltungsgerichts"));
    assert!(d.flags.dehyphenated >= 1);
    assert!(!d.randnummern.is_empty() && d.randnummern.iter().all(|b| !b.printed));
    check_invariants(157, &d);
}

#[test]
fn golden_rii_xml_and_its_oldp_conversion_agree() {
    let bytes = std::fs::read(format!("{SHARED}/data/decisions/rii/KVRE427811801.xml")).unwrap();
    let x = parse_rii_xml(&bytes).unwrap();
    assert_eq!(x.meta.file_numbers.len(), 17);
    assert_eq!(x.meta.file_numbers[0], "2 BvQ 53/18");
    assert_eq!(x.meta.file_numbers[16], "2 BvQ 70/18");
    assert_eq!(x.meta.date.as_deref(), Some("2018-08-22"));
    assert_eq!(x.meta.date_raw.as_deref(), Some("20180822"));
    assert_eq!(x.meta.ecli.as_deref(), Some("ECLI:DE:BVerfG:2018:qs20180822.2bvq005318"));
    assert_eq!(x.meta.ecli_date_agrees, Some(true));
    assert_eq!(x.meta.chamber.as_deref(), Some("2. Senat"));
    assert_eq!(x.meta.document_type.as_deref(), Some("Beschluss"));
    assert_eq!(x.meta.document_type_raw.as_deref(), Some("Ablehnung einstweilige Anordnung"));
    assert!(x.meta.norms_raw.as_deref().unwrap().starts_with("Art 19 Abs 4 GG"));
    assert_eq!(x.meta.source_format, "rii-xml");
    assert_eq!(names(&x), ["Titelzeile", "Tenor", "Gründe"]);
    let tenor = section(&x, "Tenor");
    assert_eq!(
        slice(&x, tenor.start, tenor.end),
        "Die Verfahren werden zur gemeinsamen Entscheidung verbunden.\nDie Anträge auf Erlass einstweiliger Anordnungen werden abgelehnt."
    );
    assert!(rn_text(&x, 1).starts_with("1 1. Die Antragsteller haben gegen die Wahl zum Deutschen Bundestag"));
    assert!(x.randnummern.iter().all(|b| b.printed));

    // Id 37 is the same decision, converted to HTML sections by oldp-ingestor.
    let o = doc(37);
    assert_eq!(o.meta.file_numbers, x.meta.file_numbers);
    assert_eq!(o.text, x.text);
    assert_eq!(o.sections, x.sections);
    assert_eq!(o.randnummern, x.randnummern);
    check_invariants(37, &o);
}

#[test]
fn golden_double_encoded_openjur() {
    // Id 8: openJur crawl record, Python bytes repr with double-encoded UTF-8 entities.
    let d = doc(8);
    assert!(d.flags.mojibake_repaired);
    assert_eq!(d.meta.source_format, "html-python-bytes");
    let lines: Vec<&str> = d.text.lines().collect();
    assert_eq!(lines[0], "Tenor");
    assert!(lines[1].starts_with(
        "Die sofortige Beschwerde der Antragsgegner gegen den Beschluss des Landgerichts Hamburg, Zivilkammer 27, vom 9. 4. 2008 (Geschäfts-Nr. 327 O 527/07) wird mit der Maßgabe zurückgewiesen"
    ));
    assert!(d.text.contains("„Neuer Schwung fürs Öl-Dorado“"));
    assert!(!d.text.contains('Ã') && !d.text.contains("\\n") && !d.text.contains("b'"));
    assert!(names(&d).starts_with(&["Tenor", "Gründe"]));
    assert!(!d.randnummern.is_empty() && d.randnummern.iter().all(|b| !b.printed));
    assert_eq!(d.meta.date_confidence, "missing");
    check_invariants(8, &d);
}

#[test]
fn golden_byrecht_xml_latin1_mojibake() {
    // Id 38: gesetze-bayern XML decoded as ISO-8859-1 (`MÃ¼nchen`), `<rd nr="N"/>`, doktyp `Bes`.
    let d = doc(38);
    assert!(d.flags.mojibake_repaired);
    assert_eq!(d.meta.source_format, "byrecht-xml");
    assert_eq!(d.meta.document_type.as_deref(), Some("Beschluss"));
    assert!(d.meta.norms_raw.as_deref().unwrap().starts_with("BGB § 894"));
    assert_eq!(names(&d)[..2], ["Tenor", "Gründe"]);
    assert!(
        rn_text(&d, 1).starts_with("1 Gegenstand des Verfahrens ist der Antrag des Beteiligten auf „Berichtigung“")
    );
    assert!(d.text.contains("Geschäftswert des Beschwerdeverfahrens wird auf 5.000 € festgesetzt."));
    check_invariants(38, &d);
}

#[test]
fn invalid_openjur_json_record_is_read_leniently() {
    // Id 15: an openJur crawl record whose JSON is invalid, kept verbatim as text.
    let d = doc(15);
    assert_eq!(d.meta.source_format, "openjur-json-text");
    assert_eq!(d.meta.file_numbers, ["VII ZR 255/08"]);
    assert_eq!(d.meta.date.as_deref(), Some("2009-09-10"));
    assert_eq!(d.meta.court_name_raw.as_deref(), Some("BGH"));
    assert_eq!(names(&d), ["Tenor", "Tatbestand", "Gründe"]);
    let tenor = section(&d, "Tenor");
    assert_eq!(
        slice(&d, tenor.start, tenor.end),
        "Die Revision der Klägerin gegen das Urteil des 10. Zivilsenats des Oberlandesgerichts Stuttgart vom 24. \
         November 2008 wird zurückgewiesen.\nDie Klägerin trägt die Kosten des Revisionsverfahrens.\nVon Rechts wegen."
    );
    check_invariants(15, &d);
}

#[test]
fn old_file_number_in_parentheses_is_a_second_number() {
    // Id 42: BFH `I R 49/21 (I R 39/10)`.
    let d = doc(42);
    assert_eq!(d.meta.file_numbers, ["I R 49/21", "I R 39/10"]);
    assert_eq!(d.meta.file_number_raw.as_deref(), Some("I R 49/21 (I R 39/10)"));
    assert!(d.meta.notes.iter().any(|n| n.contains("I R 39/10")), "{:?}", d.meta.notes);
    // Id 1: NBSP in the dump's file number.
    assert_eq!(doc(1).meta.file_numbers, ["VI ZR 194/17"]);
}

#[test]
fn id_37_joined_proceeding() {
    let d = doc(37);
    assert_eq!(d.meta.file_numbers.len(), 17);
    assert_eq!(d.meta.file_numbers[1], "2 BvQ 54/18");
    let tenor = section(&d, "Tenor");
    assert!(
        slice(&d, tenor.start, tenor.end).starts_with("Die Verfahren werden zur gemeinsamen Entscheidung verbunden.")
    );
}

#[test]
fn all_corpus_records_normalise_or_fail_with_a_reason() {
    let mut docs = 0;
    let mut errors: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut empty_reasons: BTreeMap<String, usize> = BTreeMap::new();
    let mut empty_content = 0;
    let mut formats: BTreeMap<String, usize> = BTreeMap::new();
    let mut printed = 0;
    let mut unprinted = 0;
    let mut mojibake = 0;
    // Same court, first file number and date (or both without a date): candidates for one decision in two records.
    let mut same: BTreeMap<(String, String, String), Vec<u64>> = BTreeMap::new();
    let mut confidence: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let mut ecli_agrees: BTreeMap<Option<bool>, usize> = BTreeMap::new();
    for (&id, line) in corpus() {
        let rec = match parse_oldp_line(line) {
            Ok(r) => r,
            Err(e) => {
                *errors.entry(e.reason()).or_default() += 1;
                continue;
            }
        };
        if rec.content.as_deref().unwrap_or("").trim().is_empty() {
            empty_content += 1;
        }
        match normalise_oldp(&rec) {
            Ok(d) => {
                docs += 1;
                check_invariants(id, &d);
                if d.text.is_empty() {
                    let reason = d.flags.text_empty_reason.clone();
                    *empty_reasons
                        .entry(reason.unwrap_or_else(|| panic!("record {id}: empty without reason")))
                        .or_default() += 1;
                } else {
                    assert!(d.flags.text_empty_reason.is_none());
                }
                *formats.entry(d.meta.source_format.clone()).or_default() += 1;
                if d.randnummern.iter().any(|b| b.printed) {
                    printed += 1;
                } else if !d.randnummern.is_empty() {
                    unprinted += 1;
                }
                mojibake += d.flags.mojibake_repaired as usize;
                confidence.entry(d.meta.date_confidence.clone()).or_default().push(id);
                *ecli_agrees.entry(d.meta.ecli_date_agrees).or_default() += 1;
                if let (Some(c), Some(f)) = (&d.meta.court_name_raw, d.meta.file_numbers.first()) {
                    let dt = d.meta.date.clone().unwrap_or_default();
                    same.entry((c.clone(), f.clone(), dt)).or_default().push(id);
                }
            }
            Err(e) => *errors.entry(e.reason()).or_default() += 1,
        }
    }
    let groups: Vec<&Vec<u64>> = same.values().filter(|v| v.len() > 1).collect();
    let second_copies: usize = groups.iter().map(|v| v.len() - 1).sum();
    eprintln!(
        "docs {docs}, errors {errors:?}, empty {empty_reasons:?}, formats {formats:?}, \
         Randnummern printed {printed}, numbered by us {unprinted}, mojibake repaired {mojibake}, \
         merge candidates (court+file number+date) {} groups / {second_copies} second records",
        groups.len()
    );
    // The README counts 68 second copies; all share court, file number and date with the first.
    assert_eq!(second_copies, 68, "{groups:?}");
    // Dates: the five fixtures with placeholder dates are kept and flagged; 10 records have none
    // (the invalid openJur record's date is recovered from its content).
    assert_eq!(confidence["suspicious"], [31, 32, 33, 34, 35]);
    assert_eq!(confidence["missing"].len(), 10);
    assert_eq!(confidence["exact"].len(), 951);
    assert_eq!(ecli_agrees.get(&Some(true)), Some(&82));
    assert_eq!(ecli_agrees.get(&Some(false)), None);
    assert_eq!(docs + errors.values().sum::<usize>(), 966);
    assert_eq!(docs, 966, "every real record normalises: {errors:?}");
    // 84 records have no content at all; id 537 holds only page breaks of a scan, id 377 is a
    // PDF whose text layer is control characters (broken font encoding), id 90 is a BVerwG
    // page whose container held only an HTML comment.
    assert_eq!(empty_content, 84);
    assert_eq!(empty_reasons.get("scanned_pdf_without_text_layer"), Some(&85));
    assert_eq!(empty_reasons.get("pdf_text_layer_unreadable"), Some(&1));
    assert_eq!(empty_reasons.get("no_text_in_content"), Some(&1));
    assert_eq!(empty_reasons.values().sum::<usize>(), 87);
    assert_eq!(formats.get("pdf-text"), Some(&(810 - 86)));
    assert_eq!(formats.get("empty"), Some(&86));
    assert_eq!(formats.get("oldp-markdown"), Some(&5));
    assert_eq!(formats.get("html-python-bytes"), Some(&7));
    assert_eq!(formats.get("html"), Some(&127));
    assert_eq!(formats.get("plain-text"), Some(&15));
    assert_eq!(formats.get("openjur-json-text"), Some(&1));
    assert_eq!(formats.get("byrecht-xml"), Some(&1));
    assert_eq!(mojibake, 8, "7 openJur records and the gesetze-bayern XML");
}

#[test]
#[ignore = "writes every normalised record to /tmp/decisions-dump for inspection"]
fn dump_corpus() {
    let dir = std::path::Path::new("/tmp/decisions-dump");
    std::fs::create_dir_all(dir).unwrap();
    for (&id, line) in corpus() {
        let rec = parse_oldp_line(line).unwrap();
        match normalise_oldp(&rec) {
            Ok(d) => {
                let mut s = format!("{:?}\n{:?}\n", d.meta, d.flags);
                for sec in &d.sections {
                    s.push_str(&format!("SECTION {} [{}] {}..{}\n", sec.name, sec.heading, sec.start, sec.end));
                }
                s.push_str(&format!(
                    "RN {} printed={}\n",
                    d.randnummern.len(),
                    d.randnummern.iter().filter(|b| b.printed).count()
                ));
                s.push_str("-----\n");
                s.push_str(&d.text);
                std::fs::write(dir.join(format!("{id}.txt")), s).unwrap();
            }
            Err(e) => std::fs::write(dir.join(format!("{id}.err")), e.to_string()).unwrap(),
        }
    }
}

// ---- bad input ----

#[test]
fn invalid_json_lines_are_errors_with_a_reason() {
    let e = parse_oldp_line("{\"id\": 1, \"content\": \"unterminated").unwrap_err();
    assert_eq!(e.reason(), "invalid_json");
    assert!(e.to_string().contains("EOF"), "{e}");
    // The corpus keeps one record that was not valid JSON in its source, as raw text (id 15);
    // a line truncated midway (as a broken gzip stream leaves it) fails to parse.
    let line = &corpus()[&15];
    assert_eq!(parse_oldp_line(&line[..line.len() / 2]).unwrap_err().reason(), "invalid_json");
    assert_eq!(parse_oldp_line("\u{0}\u{1}\u{2}garbage").unwrap_err().reason(), "invalid_json");
    assert_eq!(parse_oldp_line("").unwrap_err().reason(), "invalid_json");
}

#[test]
fn dump_lines_are_read_leniently_about_types() {
    let r = parse_oldp_line(
        r#"{"id": 7, "court": 12, "file_number": 1234, "date": null, "type": ["x"], "content": "<p>Text</p>", "quirks": "x", "new_field": {}}"#,
    )
    .unwrap();
    assert_eq!(r.court.unwrap().id, Some(serde_json::json!(12)));
    assert_eq!(r.file_number.as_deref(), Some("1234"));
    assert_eq!((r.date, r.type_), (None, None));
    assert!(r.quirks.is_empty());
    let r = parse_oldp_line(r#"{"court": "Bundesgerichtshof"}"#).unwrap();
    assert_eq!(r.court.unwrap().name.as_deref(), Some("Bundesgerichtshof"));
}

fn with_content(content: String) -> OldpRecord {
    OldpRecord { content: Some(content), ..Default::default() }
}

#[test]
fn html_bombs_are_refused_or_bounded() {
    let t = std::time::Instant::now();
    let deep = format!("<html><body>{}x", "<div>".repeat(100_000));
    assert_eq!(normalise_oldp(&with_content(deep)).unwrap_err().reason(), "markup_too_deep");
    let deep_inline = format!("<p>{}", "<b><i>".repeat(60_000));
    assert_eq!(normalise_oldp(&with_content(deep_inline)).unwrap_err().reason(), "markup_too_deep");
    // 50 MB of one tag: over the content cap.
    let huge = format!("<div class=\"{}\">", "a".repeat(50 * 1024 * 1024));
    assert_eq!(normalise_oldp(&with_content(huge)).unwrap_err().reason(), "content_too_large");
    // One tag just under the cap (4 MB in this debug test) is read in bounded time.
    let big = format!("<p>Tenor</p><div title=\"{}\">Die Klage wird abgewiesen.</div>", "a".repeat(4 * 1024 * 1024));
    let d = normalise_oldp(&with_content(big)).unwrap();
    assert_eq!(d.text, "Tenor\nDie Klage wird abgewiesen.");
    // Many flat paragraphs are fine.
    let flat = "<p>Satz.".repeat(200_000);
    assert_eq!(normalise_oldp(&with_content(flat)).unwrap().text.lines().count(), 200_000);
    assert!(t.elapsed().as_secs() < 30, "{:?}", t.elapsed());
}

#[test]
fn pathological_shapes_stay_linear() {
    let t = std::time::Instant::now();
    // A page of two million blank lines in PDF text.
    let rec = OldpRecord {
        content: Some(format!("Tenor\u{c}{}x", "\n".repeat(2_000_000))),
        content_format: Some("text/plain (pdf-derived)".into()),
        ..Default::default()
    };
    assert_eq!(normalise_oldp(&rec).unwrap().text, "Tenor\nx");
    // A deep (but allowed) stack, then a flood of stray end tags and paragraphs.
    let html = format!("{}{}", "<span>".repeat(1000), "</b><p>x".repeat(200_000));
    assert!(normalise_oldp(&with_content(html)).is_ok());
    // One 3 MB line of text.
    let line = "Wort ".repeat(600_000);
    assert!(normalise_oldp(&with_content(line)).is_ok());
    assert!(t.elapsed().as_secs() < 30, "{:?}", t.elapsed());
}

#[test]
fn truncated_and_malformed_xml_are_errors() {
    let bytes = std::fs::read(format!("{SHARED}/data/decisions/rii/KVRE427811801.xml")).unwrap();
    let cut = &bytes[..bytes.len() / 2];
    let e = parse_rii_xml(cut).unwrap_err();
    assert_eq!(e.reason(), "malformed_xml", "{e}");
    let e = parse_rii_xml(b"<dokument><tenor><p>x</tenor></dokument>").unwrap_err();
    assert_eq!(e.reason(), "malformed_xml", "{e}");
    assert_eq!(parse_rii_xml(b"<html><body>nope</body></html>").unwrap_err().reason(), "not_decision_xml");
    assert_eq!(parse_rii_xml(b"\xff\xfe\x00\x01binary").unwrap_err().reason(), "invalid_encoding");
    let deep = format!("<dokument>{}", "<a>".repeat(5000));
    assert_eq!(parse_rii_xml(deep.as_bytes()).unwrap_err().reason(), "markup_too_deep");
    // Truncated XML inside a dump record.
    let rec = record(38);
    let c = rec.content.clone().unwrap();
    let cut = OldpRecord { content: Some(c[..c.len() / 2].to_string()), ..rec };
    assert_eq!(normalise_oldp(&cut).unwrap_err().reason(), "malformed_xml");
}

#[test]
fn binary_junk_is_refused() {
    let junk: String = (0..5000u32).map(|i| char::from_u32(i % 32).unwrap()).collect();
    assert_eq!(normalise_oldp(&with_content(junk)).unwrap_err().reason(), "binary_content");
}

/// Random mixes of the constructs the renderers react to (tags, entities, marks, Randnummern,
/// headings, page breaks, hyphens, mojibake, control characters) under every content hint:
/// nothing may panic and every document keeps the invariants.
#[test]
fn random_inputs_never_panic() {
    const PIECES: &[&str] = &[
        "<p>",
        "</p>",
        "<div class=\"rd\">",
        "</div>",
        "<dl><dt>",
        "</dt><dd>",
        "</dd></dl>",
        "<li data-rd=\"3\">",
        "<sup>",
        "</sup>",
        "<br>",
        "<table><tr><td>",
        "</td><td>",
        "<script>",
        "</script>",
        "<rd nr=\"2\"/>",
        "&#195;&#188;",
        "&#226;&#128;",
        "&amp;",
        "&#xFFFFFFFF;",
        "&",
        "\u{e000}",
        "\u{e000}7",
        "12",
        "1| ",
        "## ",
        ":| ",
        "Tenor",
        "Gründe:",
        "Tenor: x",
        "G r ü n d e",
        "\n",
        "\n\n",
        "\u{c}",
        "- 2 -",
        "Seite 3 von 9",
        "Verwal-",
        "tungs",
        "und",
        "Ã¼",
        "Â§",
        "ä",
        "𝔘",
        "\u{0}",
        "\u{1}",
        "\\x",
        "b'",
        "'",
        "\"",
        "[ref=1]",
        "[/ref]",
        "<?xml",
        "<dokument>",
        "<tenor>",
        "</tenor>",
        "{",
        "\"tenor\": \"",
        "2019-01-0ä",
        " ",
        "I.",
        "a)",
        "x",
    ];
    const HINTS: &[&str] = &["", "text/html", "text/plain (pdf-derived)", "text/markdown", "application/xml"];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for round in 0..3000 {
        let n = (next() % 60) as usize;
        let mut content = String::new();
        for _ in 0..n {
            content.push_str(PIECES[(next() % PIECES.len() as u64) as usize]);
        }
        let rec = OldpRecord {
            content: Some(content.clone()),
            content_format: Some(HINTS[round % HINTS.len()].to_string()),
            date: Some(content.chars().take(12).collect()),
            file_number: Some(content.chars().rev().take(20).collect()),
            ..Default::default()
        };
        if let Ok(d) = normalise_oldp(&rec) {
            check_invariants(round as u64, &d);
        }
        let _ = parse_rii_xml(content.as_bytes());
        let _ = parse_oldp_line(&content);
    }
}
