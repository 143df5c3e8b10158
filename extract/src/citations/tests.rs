//! Tests of the citation scanner: every citation form, refusals, offsets in code points, canonical
//! tokens, the benchmark conventions, a property test (never panics, offsets match `raw`) and
//! no-panic runs over every benchmark text and the decision corpus.

use super::spans::{Convention, Span, spans};
use super::*;

fn ex(text: &str) -> Extraction {
    let e = extract(text, LawVocabulary::shipped());
    check_offsets(text, &e);
    e
}

/// `[start, end)` in code points equals `raw` for every span of every kind.
fn check_offsets(text: &str, e: &Extraction) {
    let chars: Vec<char> = text.chars().collect();
    let sub = |s: usize, t: usize| -> String {
        assert!(s <= t && t <= chars.len(), "span {s}..{t} out of range {}", chars.len());
        chars[s..t].iter().collect()
    };
    for l in &e.laws {
        assert_eq!(sub(l.start, l.end), l.raw, "law {l:?}");
        assert!(l.start <= l.head_end && l.head_end <= l.end, "head_end {l:?}");
    }
    for c in &e.chains {
        assert_eq!(sub(c.start, c.end), c.raw);
    }
    for n in &e.law_names {
        assert_eq!(sub(n.start, n.end), n.raw);
    }
    for c in &e.cases {
        assert_eq!(sub(c.start, c.end), c.raw, "case {c:?}");
        for (a, b) in [c.court_span, c.file_number_span].into_iter().flatten() {
            assert!(c.start <= a && a <= b && b <= c.end, "sub-span of {c:?}");
        }
    }
    for r in &e.refused {
        assert_eq!(sub(r.start, r.end), r.raw);
    }
}

fn laws(text: &str) -> Vec<String> {
    ex(text).laws.into_iter().map(|l| l.canonical).collect()
}

fn one_law(text: &str) -> LawCitation {
    let e = ex(text);
    assert_eq!(e.laws.len(), 1, "{text}: {:?}", e.laws);
    e.laws.into_iter().next().unwrap()
}

fn one_case(text: &str) -> CaseCitation {
    let e = ex(text);
    assert_eq!(e.cases.len(), 1, "{text}: {:?}", e.cases);
    e.cases.into_iter().next().unwrap()
}

// ---- law citations -----------------------------------------------------------------------

#[test]
fn paragraph_with_absatz_canonical_and_parents() {
    let l = one_law("Der Anspruch folgt aus § 823 Abs. 1 BGB.");
    assert_eq!(l.raw, "§ 823 Abs. 1 BGB");
    assert_eq!(l.canonical, "§ 823 Abs. 1 BGB");
    assert_eq!(l.parents, vec!["§ 823 BGB".to_string()]);
    assert_eq!(l.section, "823");
    assert_eq!(l.absatz.as_deref(), Some("1"));
    assert_eq!(l.book.as_deref(), Some("BGB"));
    assert_eq!(l.unit, LawUnit::Paragraph);
}

#[test]
fn full_structure_satz_nr_lit_alt_halbsatz() {
    let l = one_law("gemäß § 540 Abs. 1 Satz 1 Nr. 1 ZPO");
    assert_eq!(l.canonical, "§ 540 Abs. 1 Satz 1 Nr. 1 ZPO");
    assert_eq!(l.parents, vec!["§ 540 Abs. 1 Satz 1 ZPO", "§ 540 Abs. 1 ZPO", "§ 540 ZPO"]);
    assert_eq!(one_law("§ 12 Abs. 2 Nr. 1 a UStG").nr.as_deref(), Some("1a"));
    let l = one_law("nach § 4 Nr. 12 Buchst. a UStG");
    assert_eq!(l.lit.as_deref(), Some("a"));
    assert_eq!(l.canonical, "§ 4 Nr. 12 lit. a UStG");
    let l = one_law("Art. 6 Abs. 1 lit. f DSGVO");
    assert_eq!(l.lit.as_deref(), Some("f"));
    assert_eq!(l.unit, LawUnit::Article);
    let l = one_law("(§ 574 Abs. 2 Nr. 2 Alt. 2 ZPO)");
    assert_eq!(l.alt.as_deref(), Some("2"));
    assert_eq!(l.raw, "§ 574 Abs. 2 Nr. 2 Alt. 2 ZPO");
    let l = one_law("§ 15 Abs. 1 Satz 1 Nr. 2 Satz 1 Halbs. 2 EStG");
    assert_eq!(l.halbsatz.as_deref(), Some("2"));
    let l = one_law("§ 823 Abs. 1 2. Alt. BGB");
    assert_eq!(l.alt.as_deref(), Some("2"));
    assert_eq!(l.book.as_deref(), Some("BGB"));
}

#[test]
fn undotted_bsg_style_and_s_for_satz() {
    let l = one_law("entspricht § 240 Abs 4 S 1 SGB V nicht");
    assert_eq!(l.raw, "§ 240 Abs 4 S 1 SGB V");
    assert_eq!(l.satz.as_deref(), Some("1"));
    assert_eq!(l.canonical, "§ 240 Abs. 4 Satz 1 SGB V");
    let l = one_law("§ 13 Abs 3a S 6 SGB V");
    assert_eq!(l.absatz.as_deref(), Some("3a"));
    // `SGB 5` is the same book as `SGB V`.
    assert_eq!(one_law("§ 118 Abs 4 SGB 5").book.as_deref(), Some("SGB V"));
}

#[test]
fn roman_absatz_notation() {
    let l = one_law("Anspruch aus § 823 I BGB");
    assert_eq!(l.canonical, "§ 823 Abs. 1 BGB");
    assert_eq!(l.raw, "§ 823 I BGB");
    let l = one_law("§ 823 II 1 BGB");
    assert_eq!(l.canonical, "§ 823 Abs. 2 Satz 1 BGB");
    let e = ex("Art. 2 I iVm Art. 1 I GG");
    let c: Vec<_> = e.laws.iter().map(|l| l.canonical.as_str()).collect();
    assert_eq!(c, vec!["Art. 2 Abs. 1 GG", "Art. 1 Abs. 1 GG"]);
    // `SGB V` stays a book, not an Absatz.
    assert_eq!(one_law("§ 5 SGB V").canonical, "§ 5 SGB V");
}

#[test]
fn articles() {
    assert_eq!(laws("Art. 3 Abs. 1 GG"), vec!["Art. 3 Abs. 1 GG"]);
    assert_eq!(laws("Artikel 20 Abs. 3 GG"), vec!["Art. 20 Abs. 3 GG"]);
    assert_eq!(laws("Art 38 Abs 1 S 2 GG"), vec!["Art. 38 Abs. 1 Satz 2 GG"]);
}

#[test]
fn section_letters_and_following() {
    assert_eq!(one_law("§ 74a HGB").section, "74a");
    assert_eq!(one_law("§ 79 a FGO").section, "79a");
    let l = one_law("die §§ 74 ff. HGB");
    assert_eq!(l.following.as_deref(), Some("ff."));
    assert_eq!(l.raw, "§§ 74 ff. HGB");
    assert_eq!(one_law("§ 433 f. BGB").following.as_deref(), Some("f."));
}

#[test]
fn version_notes() {
    let l = one_law("§ 2 Abs. 5a BetrAVG aF, sondern");
    assert_eq!(l.version.as_deref(), Some("a.F."));
    assert_eq!(l.raw, "§ 2 Abs. 5a BetrAVG aF");
    let l = one_law("nach § 85 Abs. 1 Satz 1 EStG a. F. zu erlangen");
    assert_eq!(l.version.as_deref(), Some("a.F."));
    assert_eq!(l.raw, "§ 85 Abs. 1 Satz 1 EStG a. F.");
    assert_eq!(one_law("§ 5 BGB n.F.").version.as_deref(), Some("n.F."));
}

#[test]
fn lists_share_the_book_of_the_last_member() {
    let e = ex("gemäß §§ 21, 15 Abs. 2 TzBfG ist");
    let c: Vec<_> = e.laws.iter().map(|l| l.canonical.as_str()).collect();
    assert_eq!(c, vec!["§ 21 TzBfG", "§ 15 Abs. 2 TzBfG"]);
    assert!(e.laws[0].book_inherited && !e.laws[1].book_inherited);
    assert_eq!(e.laws[1].connector, Connector::List);
    assert_eq!(e.chains.len(), 1);
    assert_eq!(e.chains[0].members, vec![0, 1]);
    assert_eq!(e.chains[0].raw, "§§ 21, 15 Abs. 2 TzBfG");
    let e = ex("beruht auf § 25, § 13 Abs. 1, § 14 Abs. 3 GKG.");
    let c: Vec<_> = e.laws.iter().map(|l| l.canonical.as_str()).collect();
    assert_eq!(c, vec!["§ 25 GKG", "§ 13 Abs. 1 GKG", "§ 14 Abs. 3 GKG"]);
}

#[test]
fn ranges_and_und() {
    let e = ex("der §§ 184 bis 187 SGG");
    assert_eq!(e.laws.len(), 2);
    assert_eq!(e.laws[1].connector, Connector::Range);
    assert_eq!(e.laws[0].canonical, "§ 184 SGG");
    assert_eq!(e.laws[1].canonical, "§ 187 SGG");
    let e = ex("der §§ 236 und 245 SGB V");
    assert_eq!(e.laws[1].connector, Connector::And);
    assert_eq!(e.laws[0].book.as_deref(), Some("SGB V"));
    // After a single §, `und 2` continues the Absatz list, it is not a second section.
    let l = one_law("§ 5 Abs. 1 und 2 UWG 2004");
    assert_eq!(l.raw, "§ 5 Abs. 1 und 2 UWG 2004");
    // An amount is not a value.
    let e = ex("(500 DM gemäß § 13 Abs 1 Nr 1 und 210 DM gemäß § 13 Abs 2 BAföG)");
    assert_eq!(e.laws.iter().filter(|l| l.raw.contains("210")).count(), 0);
}

#[test]
fn ivm_chain_is_one_unit_and_its_members() {
    let e = ex("Anspruch aus § 280 Abs. 1 i.V.m. § 241 Abs. 2 BGB.");
    let c: Vec<_> = e.laws.iter().map(|l| l.canonical.as_str()).collect();
    assert_eq!(c, vec!["§ 280 Abs. 1 BGB", "§ 241 Abs. 2 BGB"]);
    assert_eq!(e.laws[1].connector, Connector::InVerbindungMit);
    assert_eq!(e.chains.len(), 1);
    assert_eq!(e.chains[0].canonical, "§ 280 Abs. 1 BGB i.V.m. § 241 Abs. 2 BGB");
    assert_eq!(e.chains[0].raw, "§ 280 Abs. 1 i.V.m. § 241 Abs. 2 BGB");
    let e = ex("Art. 2 Abs. 1 in Verbindung mit Art. 1 Abs. 1 GG");
    assert_eq!(e.laws.len(), 2);
    assert_eq!(e.laws[0].book.as_deref(), Some("GG"));
    let e = ex("§ 26 Abs. 1 SGB X i. V. m. § 187 Abs. 1 BGB");
    assert_eq!(e.laws[0].book.as_deref(), Some("SGB X"));
    assert_eq!(e.laws[1].book.as_deref(), Some("BGB"));
    assert!(!e.laws[0].book_inherited);
}

#[test]
fn law_first_forms() {
    let l = one_law("Leitsatz: HGB § 59 gilt");
    assert_eq!(l.raw, "HGB § 59");
    assert_eq!(l.canonical, "§ 59 HGB");
    let l = one_law("3. GG Art 80 Abs 1 S 2 verlangt");
    assert_eq!(l.raw, "GG Art 80 Abs 1 S 2");
    assert_eq!(l.canonical, "Art. 80 Abs. 1 Satz 2 GG");
}

#[test]
fn spelled_out_law_names() {
    let l = one_law("Tenor: § 184 des Sozialgerichtsgesetzes in der Fassung");
    assert_eq!(l.raw, "§ 184 des Sozialgerichtsgesetzes");
    assert_eq!(l.book.as_deref(), Some("SGG"));
    assert_eq!(l.book_raw.as_deref(), Some("Sozialgerichtsgesetzes"));
    let l = one_law("des § 236 Abs 1 Fünftes Buch Sozialgesetzbuch (SGB V)");
    assert_eq!(l.book.as_deref(), Some("SGB V"));
    assert_eq!(l.raw, "§ 236 Abs 1 Fünftes Buch Sozialgesetzbuch");
    assert_eq!(one_law("Art 3 Abs 1 Grundgesetz").book.as_deref(), Some("GG"));
    assert_eq!(one_law("nach Art. 5 des Grundgesetzes").book.as_deref(), Some("GG"));
    let e = ex("Das ist mit dem Grundgesetz vereinbar und verletzt nicht die Vorgaben des Grundgesetzes.");
    let names: Vec<_> = e.law_names.iter().map(|n| (n.raw.as_str(), n.book.as_str())).collect();
    assert_eq!(names, vec![("Grundgesetz", "GG"), ("Grundgesetzes", "GG")]);
}

#[test]
fn adjectives_of_law_names() {
    let e = ex("im Sinne des Allgemeinen Gleichbehandlungsgesetzes als");
    assert_eq!(e.law_names.len(), 1);
    assert_eq!(e.law_names[0].raw, "Allgemeinen Gleichbehandlungsgesetzes");
    assert_eq!(e.law_names[0].book, "AGG");
    let e = ex("Auch wenn im tunesischen Strafgesetzbuch die Todesstrafe vorgesehen sei");
    assert_eq!(e.law_names[0].raw, "tunesischen Strafgesetzbuch");
    let e = ex("nach der Europäischen Menschenrechtskonvention");
    assert_eq!(e.law_names[0].book, "EMRK");
}

#[test]
fn aliases_map_to_the_current_book() {
    assert_eq!(one_law("§ 26a AsylVfG").book.as_deref(), Some("AsylG"));
    assert_eq!(one_law("Art. 6 MRK").book.as_deref(), Some("EMRK"));
    assert_eq!(one_law("Art. 8 EMRK").canonical, "Art. 8 EMRK");
}

#[test]
fn eu_acts() {
    let e = ex("die Richtlinie 2008/50/EG über Luftqualität");
    assert_eq!(e.law_names.len(), 1);
    assert_eq!(e.law_names[0].raw, "Richtlinie 2008/50/EG");
    assert_eq!(e.law_names[0].book, "RL 2008/50/EG");
    let l = one_law("Ausgleich nach Art. 7 VO (EG) Nr. 261/2004 verlangt");
    assert_eq!(l.book.as_deref(), Some("VO (EG) 261/2004"));
    assert_eq!(l.raw, "Art. 7 VO (EG) Nr. 261/2004");
    assert_eq!(l.canonical, "Art. 7 VO (EG) 261/2004");
    let e = ex("bare 69/335/EWG");
    assert_eq!(e.law_names[0].book, "RL 69/335/EWG");
}

#[test]
fn contract_clauses_are_refused() {
    let e = ex("Nach § 13 MV hat der Mieter die Schönheitsreparaturen zu tragen.");
    assert!(e.laws.is_empty(), "{:?}", e.laws);
    assert_eq!(e.refused.len(), 1);
    assert_eq!(e.refused[0].reason, RefusalReason::ContractClause);
    assert_eq!(e.refused[0].raw, "§ 13 MV");
    for t in ["§ 5 TV-L", "§ 5 TVöD", "§ 3 AGB", "§ 4 des Arbeitsvertrags"] {
        let e = ex(t);
        assert!(e.laws.is_empty(), "{t}: {:?}", e.laws);
        assert_eq!(e.refused.len(), 1, "{t}");
    }
    // The statute about collective agreements is a law.
    assert_eq!(one_law("§ 4 Abs. 1 TVG").book.as_deref(), Some("TVG"));
}

#[test]
fn sections_inside_reporter_citations_are_refused() {
    let e = ex("(BVerwG, Beschluss vom 1. 2. 2001 - 6 B 1.01 - Buchholz 310 § 132 VwGO Nr. 129)");
    assert!(e.laws.is_empty(), "{:?}", e.laws);
    assert_eq!(e.refused.len(), 1);
    assert_eq!(e.refused[0].reason, RefusalReason::InsideReporter);
    assert_eq!(e.refused[0].raw, "§ 132 VwGO");
    let r: Vec<_> = e.cases.iter().filter(|c| c.kind == CaseKind::Reporter).collect();
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].raw, "Buchholz 310 § 132 VwGO Nr. 129");
    let e = ex("BSGE 70, 13 = SozR 3-2500 § 240 Nr 6");
    assert!(e.laws.is_empty());
    assert_eq!(e.cases.len(), 2);
    assert_eq!(e.cases[1].raw, "SozR 3-2500 § 240 Nr 6");
}

#[test]
fn norm_field_of_the_shared_rii_file() {
    let xml = std::fs::read_to_string(format!("{SHARED}/data/decisions/rii/KVRE427811801.xml")).expect("rii sample");
    let field = xml.split("<norm>").nth(1).and_then(|r| r.split("</norm>").next()).expect("a <norm> field");
    let t = norm_field_tokens(field, LawVocabulary::shipped());
    assert_eq!(
        t,
        vec!["Art. 19 Abs. 4 GG", "Art. 38 Abs. 1 Satz 1 GG", "Art. 41 GG", "§ 32 Abs. 1 BVerfGG", "§ 48 BVerfGG"]
    );
}

#[test]
fn decision_norms_join_the_norm_field_and_the_text() {
    let text = ex("Die Beschwerde ist nach § 32 Abs. 1 BVerfGG unzulässig; Art. 19 Abs. 4 GG gilt.");
    let t = decision_norm_tokens(Some("§ 32 Abs 1 BVerfGG, Art 38 Abs 1 S 1 GG"), &text, LawVocabulary::shipped());
    assert_eq!(t, vec!["§ 32 Abs. 1 BVerfGG", "Art. 38 Abs. 1 Satz 1 GG", "Art. 19 Abs. 4 GG"]);
}

#[test]
fn plural_list_goes_on_after_a_book() {
    let e = ex("beruhen auf §§ 167 VwGO, 708 Nr. 11, 711 ZPO.");
    let c: Vec<_> = e.laws.iter().map(|l| l.canonical.as_str()).collect();
    assert_eq!(c, vec!["§ 167 VwGO", "§ 708 Nr. 11 ZPO", "§ 711 ZPO"]);
    assert_eq!(e.chains.len(), 1);
    assert_eq!(one_law("gemäß Artikel 169 EG-Vertrag").book.as_deref(), Some("EGV"));
    assert_eq!(one_law("§ 3 DSG NRW").raw, "§ 3 DSG NRW");
}

#[test]
fn readme_forms_in_refex_convention() {
    let t = |text: &str| -> Vec<String> { span_texts(text, Convention::Refex).into_iter().map(|(t, _)| t).collect() };
    assert_eq!(t("§ 543 Abs. 2 Satz 1 Nr. 3 a) und b) BGB"), vec!["§ 543 Abs. 2 Satz 1 Nr. 3 a) und b) BGB"]);
    assert_eq!(
        t("§ 1 Abs. 2 des Gesetzes über die Rechtsverhältnisse der Steuerberater und Steuerbevollmächtigten (StBerG)"),
        vec![
            "§ 1 Abs. 2 des Gesetzes über die Rechtsverhältnisse der Steuerberater und Steuerbevollmächtigten (StBerG)"
        ]
    );
    assert_eq!(t("HGB §§ 74 ff"), vec!["HGB §§ 74"]);
    assert!(t("AP Nr 1 zu § 74a HGB").is_empty());
    assert!(t("Jansen FGG 2.Aufl. § 5").is_empty());
    assert_eq!(t("BAG 1956-12-12 2 AZR 11/56 = BAGE 3, 321"), vec!["BAG 1956-12-12 2 AZR 11/56", "BAGE 3, 321"]);
    assert_eq!(t("OLG Hamm RNotZ 2001, 242"), vec!["OLG Hamm RNotZ 2001, 242"]);
    assert_eq!(t("Art. 17 Abs. 2 der Sechsten Richtlinie 77/388/EWG"), vec!["Richtlinie 77/388/EWG"]);
    assert_eq!(t("BVerfGE 35, 263 (271 f.)"), vec!["BVerfGE 35, 263 (271"]);
    let e = ex("BGH LM Nr. 5 zu § 823 BGB");
    assert!(e.laws.is_empty(), "{:?}", e.laws);
    assert_eq!(e.cases[0].raw, "BGH LM Nr. 5 zu § 823 BGB");
    let e = ex("AP Nr 1 zu § 74a HGB");
    assert!(e.laws.is_empty());
    assert_eq!(e.refused[0].reason, RefusalReason::InsideReporter);
}

#[test]
fn norm_field_of_rii() {
    let t = norm_field_tokens("§ 32 Abs 1 BVerfGG, Art 38 Abs 1 S 2 GG", LawVocabulary::shipped());
    assert_eq!(t, vec!["§ 32 Abs. 1 BVerfGG", "Art. 38 Abs. 1 Satz 2 GG"]);
    let t = norm_field_tokens("§ 823 Abs 1 BGB, § 823 Abs 1 BGB, § 1004 BGB", LawVocabulary::shipped());
    assert_eq!(t, vec!["§ 823 Abs. 1 BGB", "§ 1004 BGB"]);
}

// ---- case citations ----------------------------------------------------------------------

#[test]
fn dated_citation_fields() {
    let c = one_case("(vgl. BGH, Urteil vom 08.04.2009 - VIII ZR 231/07, juris).");
    assert_eq!(c.raw, "BGH, Urteil vom 08.04.2009 - VIII ZR 231/07");
    assert_eq!(c.court.as_deref(), Some("BGH"));
    assert_eq!(c.decision_kind.as_deref(), Some("Urteil"));
    assert_eq!(c.date.as_deref(), Some("2009-04-08"));
    assert_eq!(c.file_number.as_deref(), Some("VIII ZR 231/07"));
    assert_eq!(c.register.as_deref(), Some("ZR"));
    assert_eq!(c.canonical, "BGH VIII ZR 231/07");
    let c = one_case("BGH, Beschluss vom 29. April 2015 - XII ZB 214/14");
    assert_eq!(c.date.as_deref(), Some("2015-04-29"));
    assert_eq!(c.decision_kind.as_deref(), Some("Beschluss"));
    let c = one_case("BVerfG, 1967-12-19, 2 BvL 4/65");
    assert_eq!(c.date.as_deref(), Some("1967-12-19"));
    assert_eq!(c.court.as_deref(), Some("BVerfG"));
    let c = one_case("BFH-Urteil vom 1. September 1998 VIII R 3/97");
    assert_eq!(c.court.as_deref(), Some("BFH"));
    assert_eq!(c.decision_kind.as_deref(), Some("Urteil"));
    let c = one_case("OLG Hamm, Beschluss vom 3. 5. 2010 - I-5 U 12/19");
    assert_eq!(c.court.as_deref(), Some("OLG Hamm"));
    assert_eq!(c.file_number.as_deref(), Some("I-5 U 12/19"));
    // A continuation without court: the fields it has, no court.
    let c = one_case("; Urt. v. 25.10.2001 - I ZR 29/99");
    assert_eq!(c.court, None);
    assert_eq!(c.date.as_deref(), Some("2001-10-25"));
    assert_eq!(c.file_number_span.map(|(a, b)| b - a), Some("I ZR 29/99".len()));
}

#[test]
fn structured_fields_have_no_line_breaks() {
    let c = one_case("(VG\nHamburg, Urt. v. 20.6.2005, 3 K\n4480/03, n. v.)");
    assert_eq!(c.court.as_deref(), Some("VG Hamburg"));
    assert_eq!(c.file_number.as_deref(), Some("3 K 4480/03"));
    assert_eq!(c.raw, "VG\nHamburg, Urt. v. 20.6.2005, 3 K\n4480/03");
    let e = ex("- 7 C 3.15 - Buchholz 404 IFG Nr. 19 Rn. 11");
    assert_eq!(e.cases.len(), 2);
    assert_eq!(e.cases[0].kind, CaseKind::FileNumber);
    assert_eq!(e.cases[1].raw, "Buchholz 404 IFG Nr. 19");
}

#[test]
fn file_numbers_of_the_courts() {
    for (text, number) in [
        ("BVerwG, Urteil vom 1. 2. 2020 - 6 C 1.20 -", "6 C 1.20"),
        ("Beschluss vom 20. Januar 1995 - BVerwG 4 NB 43.93 -", "4 NB 43.93"),
        ("BSG, Urteil vom 2. 3. 2020 - B 1 KR 2/20 R", "B 1 KR 2/20 R"),
        ("der Beschluss 2 BvR 1/19 des Zweiten Senats", "2 BvR 1/19"),
        ("LSG NRW, Beschluss vom 23.05.2014, Az. L 5 KR 222/14 B ER", "L 5 KR 222/14 B ER"),
        ("BPatG, Beschluss vom 6. 8. 2015 25 W (pat) 14/14", "25 W (pat) 14/14"),
        ("BGH, Beschluss vom 25. April 2003 - StB 4/03", "StB 4/03"),
        ("BGH, Urt. v. 27.11.1963 - Ib ZR 60/62", "Ib ZR 60/62"),
        ("BayVGH, Beschluss vom 3. 4. 2019 - 10 CS 19.1234", "10 CS 19.1234"),
        ("BayObLG, Beschluss vom 17. Mai 2001 - 3Z BR 64/01", "3Z BR 64/01"),
        ("BayObLG, Beschluss vom 2. 5. 1996 - BReg. 3 Z 53/96", "BReg. 3 Z 53/96"),
    ] {
        let c = one_case(text);
        assert_eq!(c.file_number.as_deref(), Some(number), "{text}");
        assert_eq!(c.kind, CaseKind::FileNumber);
    }
    let c = one_case("Beschluss vom 20. Januar 1995 - BVerwG 4 NB 43.93 -");
    assert_eq!(c.court.as_deref(), Some("BVerwG"));
    assert_eq!(one_case("Bay. LSG, Urteil vom 1. 2. 2017 - L 5 KR 1/16").court.as_deref(), Some("Bay. LSG"));
    assert_eq!(
        one_case("Schleswig-Holsteinisches OLG, Beschluss vom 1. 2. 2017 - 3 U 1/16").court.as_deref(),
        Some("Schleswig-Holsteinisches OLG")
    );
    // Not file numbers.
    assert!(ex("Nr. 4.2.3 BV 2003.13 setzt").cases.is_empty());
    assert!(ex("§ 5 Nr 12/13 und Art 3/4").cases.is_empty());
}

#[test]
fn ecli_eu_and_ecthr_numbers() {
    let c = one_case("ECLI:DE:BGH:2009:080409UVIIIZR231.07.0.");
    assert_eq!(c.kind, CaseKind::Ecli);
    assert_eq!(c.ecli.as_deref(), Some("ECLI:DE:BGH:2009:080409UVIIIZR231.07.0"));
    let c = one_case("EuGH, Urteil vom 12. Februar 2009 - C-459/99 -");
    assert_eq!(c.kind, CaseKind::EuCase);
    assert_eq!(c.file_number.as_deref(), Some("C-459/99"));
    assert_eq!(c.court.as_deref(), Some("EuGH"));
    let c = one_case("EuGH-Urteil vom 12. Februar 2009 Rs. C-515/07 --VNLTO--");
    assert_eq!(c.raw, "EuGH-Urteil vom 12. Februar 2009 Rs. C-515/07");
    let c = one_case("(Beschwerde-Nr. 41723/06)");
    assert_eq!(c.kind, CaseKind::EcthrApplication);
    assert_eq!(c.file_number.as_deref(), Some("41723/06"));
    let c = one_case("EGMR, Urteil vom 9. Juli 2013 - 66069/09 -");
    assert_eq!(c.kind, CaseKind::EcthrApplication);
    assert_eq!(c.court.as_deref(), Some("EGMR"));
    // A bare number/year is not introduced as an application.
    assert!(ex("im Jahr 2006 wurden 41723/06 Anträge").cases.is_empty());
}

#[test]
fn reporter_citations() {
    let c = one_case("vgl. BVerfGE 90, 22 (24).");
    assert_eq!(c.raw, "BVerfGE 90, 22 (24)");
    assert_eq!(
        (c.reporter.as_deref(), c.volume.as_deref(), c.page.as_deref()),
        (Some("BVerfGE"), Some("90"), Some("22"))
    );
    assert_eq!(c.pinpoint.as_deref(), Some("24"));
    assert_eq!(c.court.as_deref(), Some("BVerfG"));
    assert_eq!(c.canonical, "BVerfGE 90, 22");
    assert_eq!(one_case("BGHZ 154, 1").court.as_deref(), Some("BGH"));
    let c = one_case("NJW 2019, 1234, 1236");
    assert_eq!(c.pinpoint.as_deref(), Some("1236"));
    assert_eq!(one_case("BStBl II 1972, 85").reporter.as_deref(), Some("BStBl II"));
    assert_eq!(one_case("BFH/NV 2000, 852").reporter.as_deref(), Some("BFH/NV"));
    assert_eq!(one_case("vgl. BPatG Mitt. 2016, 192, 195").raw, "BPatG Mitt. 2016, 192, 195");
    let c = one_case("BGH WuM 2004, 25");
    assert_eq!(c.court.as_deref(), Some("BGH"));
    assert_eq!(c.raw, "BGH WuM 2004, 25");
    // Follow-ups with the volume only.
    let e = ex("(vgl. BVerfGE 59, 36 (49); 61, 138 (149)).");
    let raws: Vec<_> = e.cases.iter().map(|c| c.raw.as_str()).collect();
    assert_eq!(raws, vec!["BVerfGE 59, 36 (49)", "61, 138 (149)"]);
    assert_eq!(e.cases[1].reporter.as_deref(), Some("BVerfGE"));
    // A journal needs a year as volume; an author before marks literature.
    assert!(ex("NJW 12, 5").cases.is_empty());
    assert!(one_case("vgl. Kleiber, ZfBR 1996, 131").literature);
    assert!(!one_case("BGH NJW 1996, 131").literature);
}

// ---- offsets -----------------------------------------------------------------------------

#[test]
fn offsets_are_code_points_with_emoji_combining_and_crlf() {
    // 🙂 is 1 code point (4 bytes), `u\u{308}` 2 code points, CRLF 2 code points.
    let text = "🙂 Gru\u{308}nde:\r\nnach § 823 Abs. 1 BGB 🙂 und BGH, Urteil vom 08.04.2009 - VIII ZR 231/07.";
    let e = ex(text);
    let chars: Vec<char> = text.chars().collect();
    let pos = |needle: &str| {
        let b = text.find(needle).unwrap();
        text[..b].chars().count()
    };
    let l = &e.laws[0];
    assert_eq!(l.start, pos("§ 823"));
    assert_eq!(l.end, l.start + "§ 823 Abs. 1 BGB".chars().count());
    assert_eq!(chars[l.start..l.end].iter().collect::<String>(), "§ 823 Abs. 1 BGB");
    let c = &e.cases[0];
    assert_eq!(c.start, pos("BGH,"));
    assert_eq!(c.raw, "BGH, Urteil vom 08.04.2009 - VIII ZR 231/07");
    let (fs, fe) = c.file_number_span.unwrap();
    assert_eq!(chars[fs..fe].iter().collect::<String>(), "VIII ZR 231/07");
}

#[test]
fn citations_do_not_run_across_paragraphs_but_across_wrapped_lines() {
    // An empty line or a Randnummer line ends a paragraph; a citation never runs across.
    let e = ex("nach § 5\n\nBGB ist");
    assert!(e.laws.iter().all(|l| l.book.is_none()), "{:?}", e.laws);
    let e = ex("nach § 5\n12\nBGB ist");
    assert!(e.laws.iter().all(|l| l.book.is_none()), "{:?}", e.laws);
    // PDF text wraps lines inside sentences.
    assert_eq!(one_law("gemäß § 80 Abs. 2 Nr.\n4 VwGO die").canonical, "§ 80 Abs. 2 Nr. 4 VwGO");
}

// ---- conventions -------------------------------------------------------------------------

fn span_texts(text: &str, conv: Convention) -> Vec<(String, String)> {
    let chars: Vec<char> = text.chars().collect();
    spans(text, &ex(text), conv)
        .into_iter()
        .map(|Span { start, end, kind }| (chars[start..end].iter().collect(), kind))
        .collect()
}

#[test]
fn refex_convention_cuts_list_heads() {
    let s = span_texts("(§§ 92 Abs. 1, 97 Abs. 1, 269 Abs. 3 ZPO)", Convention::Refex);
    let t: Vec<_> = s.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(t, vec!["§§ 92", "97 Abs. 1", "269 Abs. 3 ZPO"]);
    let s = span_texts("§ 1908i Abs.1 Satz 1 i.V.m. § 1846 BGB", Convention::Refex);
    let t: Vec<_> = s.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(t, vec!["§ 1908i", "§ 1846 BGB"]);
    let s = span_texts("BGH, Urt. v. 2.4.2009 - I ZR 209/06, GRUR 2009, 678 Tz. 28 = WRP 2009, 839", Convention::Refex);
    let t: Vec<_> = s.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(t, vec!["BGH, Urt. v. 2.4.2009 - I ZR 209/06", "GRUR 2009, 678", "Tz. 28", "WRP 2009, 839"]);
    let s = span_texts("Urt. v. 25.10.2001 - I ZR 29/99, GRUR 2002, 717, 719", Convention::Refex);
    assert_eq!(s[0].0, "I ZR 29/99");
    assert_eq!(s[1].0, "GRUR 2002, 717, 719");
}

#[test]
fn ler_convention_one_span_per_law_and_whole_case_citations() {
    let s = span_texts("Gemäß §§ 119, 124, 113 MarkenG in Verbindung mit Art. 5 PMMA", Convention::Ler);
    let t: Vec<_> = s.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(t, vec!["§§ 119, 124, 113 MarkenG", "Art. 5 PMMA"]);
    let s = span_texts("aus Art. 2 Abs. 1 i. V. m. Art. 1 Abs. 1 GG.", Convention::Ler);
    assert_eq!(s[0].0, "Art. 2 Abs. 1 i. V. m. Art. 1 Abs. 1 GG");
    let s = span_texts("(BAG 18. Mai 2016 - 7 AZR 533/14 - Rn. 18, BAGE 155, 101).", Convention::Ler);
    assert_eq!(s, vec![("BAG 18. Mai 2016 - 7 AZR 533/14 - Rn. 18, BAGE 155, 101".to_string(), "case".to_string())]);
    let s = span_texts(
        "(vgl. BGH, GRUR 2011, 158 Rn. 8 – Hefteinband; GRUR 2005, 257, 258 – Bürogebäude)",
        Convention::Ler,
    );
    let t: Vec<_> = s.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(t, vec!["BGH, GRUR 2011, 158 Rn. 8 – Hefteinband", "GRUR 2005, 257, 258 – Bürogebäude"]);
}

// ---- never panics ------------------------------------------------------------------------

const FRAGMENTS: &[&str] = &[
    "§ ",
    "§§ ",
    "Art. ",
    "Abs. ",
    "S. ",
    "Satz ",
    "Nr. ",
    "lit. ",
    "Buchst. ",
    "Alt. ",
    "Halbs. ",
    "f. ",
    "ff. ",
    "a.F. ",
    "i.V.m. ",
    "i. V. m. ",
    "BGB ",
    "SGB V ",
    "des Sozialgerichtsgesetzes ",
    "Fünftes Buch Sozialgesetzbuch ",
    "HGB § 59 ",
    "Richtlinie 2008/50/EG ",
    "VO (EG) Nr. 261/2004 ",
    "BGH, Urteil vom 08.04.2009 - VIII ZR 231/07",
    "6 C 1.20",
    "B 1 KR 2/20 R",
    "I-5 U 12/19",
    "2 BvR 1/19",
    "ECLI:DE:BGH:2009:",
    "BVerfGE 90, 22 (24",
    "NJW 2019, 1234",
    "C-459/99",
    "Beschwerde-Nr. 41723/06",
    "Buchholz 310 § 132 VwGO Nr. ",
    "SozR 3-2500 § ",
    "; 61, 138 (",
    "1",
    "23",
    "a",
    ", ",
    " und ",
    " bis ",
    "-",
    "/",
    ".",
    "(",
    ")",
    "<",
    "\n",
    "\r\n",
    "🙂",
    "u\u{308}",
    "ß",
    "\u{a0}",
    "–",
    "vom 1. Januar 2020",
    "1967-12-19",
];

fn splice() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    proptest::collection::vec(
        prop_oneof![proptest::sample::select(FRAGMENTS).prop_map(str::to_string), "\\PC{0,3}"],
        0..40,
    )
    .prop_map(|v| v.concat())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 1000, ..Default::default() })]

    #[test]
    fn never_panics_on_arbitrary_unicode(text in "\\PC*|.*") {
        let e = extract(&text, LawVocabulary::shipped());
        check_offsets(&text, &e);
        let _ = spans(&text, &e, Convention::Refex);
        let _ = spans(&text, &e, Convention::Ler);
    }

    #[test]
    fn never_panics_on_spliced_legal_text(text in splice()) {
        let e = extract(&text, LawVocabulary::shipped());
        check_offsets(&text, &e);
        let _ = spans(&text, &e, Convention::Refex);
        let _ = spans(&text, &e, Convention::Ler);
    }
}

#[test]
fn long_lists_and_chains_stay_linear() {
    // Pathological inputs: one huge list, one huge i.V.m. chain, number soup. Each must finish
    // fast (quadratic work would take minutes at this size in the debug profile).
    let t0 = std::time::Instant::now();
    let list = format!("§§ {}1 BGB", "1, ".repeat(30_000));
    assert_eq!(ex(&list).laws.len(), 30_001);
    let chain = format!("{}§ 1 BGB", "§ 1 i.V.m. ".repeat(20_000));
    assert_eq!(ex(&chain).chains.len(), 1);
    let soup = "1/1/1 2 BvR 1/19 ".repeat(20_000);
    let _ = ex(&soup);
    let signs = "§".repeat(50_000);
    assert!(ex(&signs).laws.is_empty());
    assert!(t0.elapsed().as_secs() < 15, "took {:?}", t0.elapsed());
}

#[test]
fn vocabulary_and_results_are_send_sync_and_serialise() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<LawVocabulary>();
    send_sync::<Extraction>();
    // Many documents on many threads share one vocabulary (rayon at the call site).
    let texts: Vec<String> = (0..64).map(|k| format!("nach § {k} Abs. 1 BGB und BVerfGE {k}, 1")).collect();
    let found: Vec<usize> = std::thread::scope(|s| {
        let hs: Vec<_> = texts
            .chunks(16)
            .map(|c| s.spawn(move || c.iter().map(|t| extract(t, LawVocabulary::shipped()).laws.len()).sum::<usize>()))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(found.iter().sum::<usize>(), 64);
    let e = ex("§ 823 Abs. 1 BGB; BGH, Urteil vom 08.04.2009 - VIII ZR 231/07");
    let json = serde_json::to_string(&e).unwrap();
    let back: Extraction = serde_json::from_str(&json).unwrap();
    assert_eq!(back, e);
}

const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared");

fn benchmark_texts(name: &str) -> Vec<(String, String)> {
    let path = format!("{SHARED}/benchmarks/{name}");
    let Ok(data) = std::fs::read_to_string(&path) else {
        panic!("benchmark file {path} is missing");
    };
    data.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("gold line is JSON");
            (v["id"].as_str().unwrap_or_default().to_string(), v["text"].as_str().unwrap_or_default().to_string())
        })
        .collect()
}

#[test]
fn every_benchmark_text_scans_without_panic() {
    // The test split only runs for "no panic"; nothing about its contents is asserted or printed.
    for name in ["refex-dev.jsonl", "refex-test.jsonl", "ler-dev.jsonl"] {
        for (_, text) in benchmark_texts(name) {
            let e = extract(&text, LawVocabulary::shipped());
            check_offsets(&text, &e);
            let _ = spans(&text, &e, Convention::Refex);
        }
    }
}

#[test]
fn dev_sets_find_most_gold_spans() {
    // A floor far below the tuned scores: catches a scanner that silently stops finding things.
    for (name, conv) in [("refex-dev.jsonl", Convention::Refex), ("ler-dev.jsonl", Convention::Ler)] {
        let path = format!("{SHARED}/benchmarks/{name}");
        let data = std::fs::read_to_string(&path).expect("dev set present");
        let (mut gold, mut hit) = (0usize, 0usize);
        for line in data.lines().filter(|l| !l.trim().is_empty()) {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let text = v["text"].as_str().unwrap_or_default();
            let pred = spans(text, &extract(text, LawVocabulary::shipped()), conv);
            for g in v["spans"].as_array().into_iter().flatten() {
                let (s, e) = (g["start"].as_u64().unwrap() as usize, g["end"].as_u64().unwrap() as usize);
                let t = g["type"].as_str().unwrap_or_default();
                gold += 1;
                if pred.iter().any(|p| p.kind == t && p.start < e && s < p.end) {
                    hit += 1;
                }
            }
        }
        let recall = hit as f64 / gold as f64;
        assert!(recall > 0.9, "{name}: overlap recall {recall:.3}");
    }
}

#[test]
fn decision_corpus_scans_without_panic() {
    use std::io::BufRead;
    let path = format!("{SHARED}/data/decisions/corpus.oldp.jsonl.gz");
    let f = std::fs::File::open(&path).expect("decision corpus present");
    let r = std::io::BufReader::new(flate2::read::GzDecoder::new(f));
    let mut n = 0;
    let mut found = 0;
    for line in r.lines() {
        let line = line.expect("readable corpus");
        let v: serde_json::Value = serde_json::from_str(&line).expect("corpus line is JSON");
        let content = v["content"].as_str().unwrap_or_default();
        let e = extract(content, LawVocabulary::shipped());
        check_offsets(content, &e);
        found += e.laws.len() + e.cases.len();
        n += 1;
    }
    assert_eq!(n, 966);
    assert!(found > 10_000, "only {found} citations in the corpus");
}

#[test]
fn a_section_letter_f_is_not_and_following() {
    let v = LawVocabulary::shipped();
    let ex = extract("Nach § 650f Abs. 7 BGB und § 68f Abs. 2 StGB, vgl. § 650 f. BGB.", v);
    let canon: Vec<&str> = ex.laws.iter().map(|l| l.canonical.as_str()).collect();
    assert_eq!(canon, ["§ 650f Abs. 7 BGB", "§ 68f Abs. 2 StGB", "§ 650 BGB"]);
    assert_eq!(ex.laws[2].following.as_deref(), Some("f."));
}

// ---- `Art. X § Y`: one address of an Einführungsgesetz ---------------------------------

#[test]
fn article_and_paragraph_are_one_citation() {
    let l = one_law("Die Übergangsregel des Art. 229 § 5 EGBGB greift.");
    assert_eq!((l.unit, l.section.as_str(), l.canonical.as_str()), (LawUnit::Article, "229 § 5", "Art. 229 § 5 EGBGB"));
    assert_eq!(l.parents, ["Art. 229 EGBGB"]);
    assert_eq!(l.raw, "Art. 229 § 5 EGBGB");
    assert_eq!(crate::law::section_key(&format!("Art. {}", l.section)), "229§5", "the statute row's key");
    let l = one_law("nach Art. 246a § 1 Abs. 2 EGBGB zu belehren");
    assert_eq!((l.section.as_str(), l.absatz.as_deref()), ("246a § 1", Some("2")));
    assert_eq!(l.canonical, "Art. 246a § 1 Abs. 2 EGBGB");
    assert_eq!(l.parents, ["Art. 246a § 1 EGBGB", "Art. 246a EGBGB"]);
    let l = one_law("gemäß Art. 229 § 6 Abs. 1 S. 2 EGBGB verjährt");
    assert_eq!(l.canonical, "Art. 229 § 6 Abs. 1 Satz 2 EGBGB");
    let l = one_law("nach Artikel 229 § 5 Satz 1 EGBGB ist");
    assert_eq!((l.canonical.as_str(), l.raw.as_str()), ("Art. 229 § 5 Satz 1 EGBGB", "Artikel 229 § 5 Satz 1 EGBGB"));
    assert_eq!(one_law("Art. 97 § 1 EGAO gilt").canonical, "Art. 97 § 1 EGAO");
    // Law first.
    assert_eq!(one_law("EGBGB Art. 229 § 5 regelt").canonical, "Art. 229 § 5 EGBGB");
}

#[test]
fn lists_of_paragraphs_of_one_article() {
    assert_eq!(laws("nach Art. 229 §§ 5, 6 EGBGB"), ["Art. 229 § 5 EGBGB", "Art. 229 § 6 EGBGB"]);
    assert_eq!(laws("nach Art. 229 §§ 5 und 6 EGBGB"), ["Art. 229 § 5 EGBGB", "Art. 229 § 6 EGBGB"]);
    assert_eq!(laws("nach Art. 229 § 5 und § 6 Abs. 1 EGBGB"), ["Art. 229 § 5 EGBGB", "Art. 229 § 6 Abs. 1 EGBGB"]);
    // A new article in the list starts its own address.
    assert_eq!(laws("Art. 229 § 5, Art. 232 § 1 EGBGB"), ["Art. 229 § 5 EGBGB", "Art. 232 § 1 EGBGB"]);
    assert_eq!(laws("Art. 229 § 5, Art. 230 EGBGB"), ["Art. 229 § 5 EGBGB", "Art. 230 EGBGB"]);
    // `i.V.m.` chains of compounds (the corpus's EGAO citation, record 40).
    assert_eq!(
        laws(
            "in der nach Art. 97 § 14 Abs. 5 i.V.m. Art. 97 § 1 Abs. 12 Satz 1 des Einführungsgesetzes zur Abgabenordnung"
        ),
        ["Art. 97 § 14 Abs. 5 EGAO", "Art. 97 § 1 Abs. 12 Satz 1 EGAO"]
    );
    // The Verfahrensordnung of the EU courts numbers its paragraphs with `§` as well.
    let l = one_law("Nach Art. 87 § 2 der Verfahrensordnung ist die unterliegende Partei");
    assert_eq!(l.section, "87 § 2");
}

#[test]
fn a_line_break_before_the_sign_ends_the_article() {
    // Normenketten print one norm per line (corpus records 878, 879).
    assert_eq!(laws("Normenketten:\nKAG Art. 8\n§ 99 Abs. 1 Satz 1 VwGO"), ["Art. 8 KAG", "§ 99 Abs. 1 Satz 1 VwGO"]);
    // An article with its Absatz is no compound; the `§` after a book is its own citation.
    assert_eq!(laws("Art. 3 Abs. 1 GG, § 5 BGB"), ["Art. 3 Abs. 1 GG", "§ 5 BGB"]);
    assert_eq!(laws("Art. 20 GG § 5 BGB"), ["Art. 20 GG", "§ 5 BGB"]);
}

/// Every `Art. N § M` written on one line in the decision corpus is one citation starting at
/// the `Art` whose section is `N § M` (the shared data, when present).
#[test]
fn every_article_paragraph_of_the_corpus_is_one_citation() {
    use std::io::BufRead;
    let path = format!("{SHARED}/data/decisions/corpus.oldp.jsonl.gz");
    let Ok(f) = std::fs::File::open(&path) else {
        eprintln!("skipped: {path} not present");
        return;
    };
    let r = std::io::BufReader::new(flate2::read::GzDecoder::new(f));
    let (mut seen, mut egao) = (0, 0);
    for line in r.lines() {
        let v: serde_json::Value = serde_json::from_str(&line.expect("readable corpus")).expect("JSON line");
        let text = v["content"].as_str().unwrap_or_default();
        if !text.contains('§') || !text.contains("Art") {
            continue;
        }
        let e = extract(text, LawVocabulary::shipped());
        for (start, article, paragraph) in article_paragraphs(text) {
            seen += 1;
            let expected = format!("{article} § {paragraph}");
            let hit = e.laws.iter().find(|l| l.start == start);
            assert!(
                hit.is_some_and(|l| l.section == expected && l.unit == LawUnit::Article),
                "record {}: Art. {expected} at {start} read as {hit:?}",
                v["id"]
            );
            assert!(!e.laws.iter().any(|l| l.start > start && l.start < start + 12 && l.section == paragraph));
            egao += hit.is_some_and(|l| l.book.as_deref() == Some("EGAO")) as usize;
        }
    }
    assert!(seen >= 100, "the corpus holds more than 100 `Art. N § M` (EU rules of procedure, EGAO): {seen}");
    assert_eq!(egao, 2, "record 40 cites Art. 97 §§ 14 and 1 EGAO");
}

/// `(code-point start, article, paragraph)` of each `Art[.]|Artikel N[a-z] §[§] M[a-z]` with no
/// line break inside (independent of the scanner: a plain walk over the characters).
fn article_paragraphs(text: &str) -> Vec<(usize, String, String)> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let spaces = |mut k: usize| {
        while k < c.len() && c[k] != '\n' && c[k].is_whitespace() {
            k += 1;
        }
        k
    };
    let number = |k: usize| {
        let mut e = k;
        while e < c.len() && c[e].is_ascii_digit() {
            e += 1;
        }
        if e > k && e < c.len() && c[e].is_ascii_lowercase() && !c.get(e + 1).is_some_and(|x| x.is_alphabetic()) {
            e += 1;
        }
        (e > k && !c.get(e).is_some_and(|x| x.is_alphanumeric())).then(|| (c[k..e].iter().collect::<String>(), e))
    };
    for i in 0..c.len() {
        if i > 0 && c[i - 1].is_alphanumeric() {
            continue;
        }
        let rest: String = c[i..(i + 7).min(c.len())].iter().collect();
        let k = if rest.starts_with("Artikel") {
            i + 7
        } else if rest.starts_with("Art.") {
            i + 4
        } else if rest.starts_with("Art ") {
            i + 3
        } else {
            continue;
        };
        let Some((article, k)) = number(spaces(k)) else { continue };
        let mut k = spaces(k);
        if c.get(k) != Some(&'§') {
            continue;
        }
        k += 1;
        if c.get(k) == Some(&'§') {
            k += 1;
        }
        let Some((paragraph, _)) = number(spaces(k)) else { continue };
        out.push((i, article, paragraph));
    }
    out
}
