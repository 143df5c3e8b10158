//! The hallucination guard: `check_citations` over a whole text and `validate_citation` for one
//! citation. Both run the same scanner as the pipeline ([`extract::citations`]) and the same
//! verdict function ([`Checker::law_finding`], [`Checker::case_finding`]).
//!
//! Verdicts (closed set, seed 002): `verified_corpus`, `not_found`, `out_of_coverage`,
//! `ambiguous`, `unverifiable`, `discrepancy`. The rule that matters most: **`verified_corpus`
//! only when the exact § (and Absatz, where one is cited and could be checked) exists in the
//! current text of a law we hold, or when exactly one held decision matches the file number and
//! nothing the citation prints (court, date, decision kind) contradicts it.** Anything that
//! cannot be checked is `unverifiable` with its reason, never a guess.
//!
//! Offsets are Unicode code points into the exact input (CRLF, emoji and combining characters
//! count as what they are); `raw_text` is always `input[start..end]`.

use std::collections::BTreeMap;

use extract::citations::{
    CaseCitation, CaseKind, Extraction, LawCitation, LawVocabulary, RefusalReason, extract as scan,
};
use extract::courts::{CourtTable, cited_court_fits, fold};
use index::Generation;
use index::store::{ecli_norm, file_number_norm};
use model::{LawCitationStatus, Verdict};
use rusqlite::params;
use serde_json::{Map, Value, json};

use crate::contract::answer::{ErrorCode, ToolError};
use crate::contract::args::{CheckCitationsArgs, ValidateCitationArgs};
use crate::query::dating::TextDating;
use crate::query::identifiers::{BookLookup, lookup_book};
use crate::store::decisions::{Decision, decisions_citing_norm};
use crate::store::laws::Law;
use resolve::case_law::{Narrowed, narrow_by_court, narrow_by_date};

pub const MIN_CHARS: usize = 50;
pub const MAX_CHARS: usize = 20_000;
/// Losses listed at most; `extraction.losses_total` counts them all.
const MAX_LOSSES_LISTED: usize = 200;

fn is_eu_or_international(book: &str) -> bool {
    let b = book.replace(['(', ')'], " ");
    let words: Vec<&str> = b.split_whitespace().collect();
    words.iter().any(|w| {
        matches!(
            *w,
            "EG" | "EU"
                | "EWG"
                | "EGV"
                | "AEUV"
                | "EUV"
                | "GRCh"
                | "GRC"
                | "EMRK"
                | "VO"
                | "RL"
                | "Richtlinie"
                | "Verordnung"
        )
    }) || book.contains("/EG")
        || book.contains("/EU")
        || book.contains("/EWG")
}

/// One finding of the checker.
pub struct Finding {
    pub start: usize,
    pub end: usize,
    pub raw: String,
    pub kind: &'static str,
    pub verdict: Verdict,
    pub reason: Option<String>,
    /// Key of the distinct citation (the matched decision or law row, else the canonical form).
    pub key: String,
    pub body: Map<String, Value>,
}

impl Finding {
    fn json(&self) -> Value {
        let mut m = Map::new();
        m.insert("start".into(), json!(self.start));
        m.insert("end".into(), json!(self.end));
        m.insert("raw_text".into(), json!(self.raw));
        m.insert("kind".into(), json!(self.kind));
        m.insert("verdict".into(), json!(self.verdict));
        m.insert("reason".into(), json!(self.reason));
        m.insert("citation_key".into(), json!(self.key));
        m.extend(self.body.clone());
        Value::Object(m)
    }
}

pub struct Checker<'g> {
    g: &'g Generation,
    reference_date: Option<String>,
    /// What dates the checked text's law citations ([`Checker::dated_by`]).
    dating: TextDating,
}

impl<'g> Checker<'g> {
    pub fn new(g: &'g Generation, reference_date: Option<String>) -> Self {
        Checker { g, reference_date, dating: TextDating::default() }
    }

    /// Reads what dates the law citations of `text` (scanned as `ex`), so that
    /// [`Checker::law_finding`] can tell a citation dated before the law existed.
    pub fn dated_by(mut self, text: &str, ex: &Extraction) -> Self {
        self.dating = TextDating::new(text, ex);
        self
    }

    /// The date `l` is cited on, as the text or the reference date states it (see [`crate::query::dating`]).
    fn citation_date(&self, l: &LawCitation) -> Option<(String, &'static str)> {
        let reference = self.reference_date.as_deref().filter(|d| index::decision_writer::date_number(d).is_some());
        self.dating.date_of(l, reference).map(|(d, basis)| (d, basis.as_str()))
    }

    /// The verdict for one law citation (field names and subdivision rules of seed 002).
    pub fn law_finding(&self, l: &LawCitation) -> Result<Finding, ToolError> {
        let mut body = Map::new();
        body.insert("canonical".into(), json!(l.canonical));
        let book_raw = l.book_raw.clone().or_else(|| l.book.clone());
        let mut f = Finding {
            start: l.start,
            end: l.end,
            raw: l.raw.clone(),
            kind: "law",
            verdict: Verdict::Unverifiable,
            reason: None,
            key: l.canonical.clone(),
            body,
        };
        // What was actually checked: the Absatz question, whether a text is held for the §, and
        // whether this check read it. A statute finding never compares a court.
        let scope = |f: &mut Finding, subdivision: &str, available: Option<bool>, read: bool| {
            f.body.insert(
                "check_scope".into(),
                json!({"subdivision": subdivision, "article_text_available": available, "article_text_read": read, "court": "not_applicable"}),
            );
        };
        let cited_subdivision = if l.absatz.is_some() { "unchecked" } else { "not_applicable" };
        let evidence = |f: &mut Finding, reason: &str, extra: Value| {
            f.reason = Some(reason.into());
            let mut e = json!({"reason": reason});
            if let (Some(m), Some(x)) = (e.as_object_mut(), extra.as_object()) {
                m.extend(x.clone());
            }
            f.body.insert("evidence".into(), e);
        };
        let Some(book) = l.book.clone() else {
            evidence(&mut f, "law_not_named", json!({}));
            f.body.insert("advisory".into(), json!("Die Norm nennt kein Gesetz; ohne Gesetz ist sie nicht prüfbar."));
            scope(&mut f, cited_subdivision, None, false);
            return Ok(f);
        };
        // Land law (`IFG Bln`, `VwVfG-SH`, `BayBO`: the scanner's reading, the same table as the
        // pipeline's): we hold federal law only, so it is neither verified against nor
        // contradicted by the federal law of the same abbreviation.
        if let Some(sl) = &l.state_law {
            f.verdict = Verdict::NotFound;
            evidence(&mut f, "state_law_out_of_scope", json!({"instrument": sl.instrument, "state": sl.state}));
            f.body.insert(
                "coverage".into(),
                json!({"status": "out_of_scope", "scope": "no_state_law", "instrument": sl.instrument, "state": sl.state}),
            );
            f.body.insert(
                "coverage_advisory".into(),
                json!(format!(
                    "Landesrecht{} wird nicht gehalten: Dieses Werkzeug prüft nur Bundesrecht. Die Norm ist damit weder bestätigt noch widerlegt.",
                    sl.state.as_deref().map(|l| format!(" ({l})")).unwrap_or_default()
                )),
            );
            scope(&mut f, cited_subdivision, None, false);
            return Ok(f);
        }
        let old_version = l.version.as_deref().is_some_and(|v| v.to_lowercase().contains('a'))
            || fold(&l.raw).contains("a f")
            || book.contains("a.F.");
        let book = book.replace(" a.F.", "").replace(" aF", "");
        // A renamed or repealed law: the citation may be right for its time, but only the
        // current text is held, and numbers do not carry over to the successor.
        if let Some(raw) = &book_raw
            && let Some(rows) = self.superseded(raw)?
        {
            let first = rows.first().cloned().unwrap_or(Value::Null);
            evidence(&mut f, "statute_superseded_instrument", json!({"superseded_by": rows}));
            f.body.insert(
                "coverage".into(),
                json!({"status": "superseded", "scope": "current_consolidated_text_only", "instrument": raw,
                       "successor": first["successor"], "superseded_on": first["effective_date"]}),
            );
            f.body.insert(
                "coverage_advisory".into(),
                json!(format!(
                    "{raw} gilt so nicht mehr (Nachfolger: {}); gehalten wird nur die geltende Fassung, die Nummerierung geht nicht über. Die Norm ist weder bestätigt noch widerlegt.",
                    first["successor"].as_str().unwrap_or("unbekannt")
                )),
            );
            scope(&mut f, cited_subdivision, None, false);
            return Ok(f);
        }
        if old_version {
            evidence(&mut f, "old_version_cited", json!({}));
            f.body.insert(
                "advisory".into(),
                json!("Zitiert wird eine alte Fassung (a.F.); gehalten wird nur die geltende Fassung, die alte Fassung ist nicht prüfbar."),
            );
            scope(&mut f, cited_subdivision, None, false);
            return Ok(f);
        }
        let law: Law = match lookup_book(self.g, &book)? {
            BookLookup::Found(law) => *law,
            BookLookup::NotHeld => {
                f.verdict = Verdict::NotFound;
                if is_eu_or_international(&book) {
                    evidence(&mut f, "eu_or_international_law_out_of_scope", json!({"instrument": book}));
                    f.body.insert(
                        "coverage".into(),
                        json!({"status": "out_of_scope", "scope": "no_eu_or_international_law", "instrument": book}),
                    );
                    f.body.insert(
                        "coverage_advisory".into(),
                        json!(
                            "Unions- und Völkerrecht wird nicht gehalten; die Norm ist weder bestätigt noch widerlegt."
                        ),
                    );
                } else {
                    evidence(&mut f, LawCitationStatus::StatuteUnknown.as_str(), json!({"book": book}));
                    f.body.insert("coverage".into(), json!({"status": "unknown", "instrument": book}));
                }
                scope(&mut f, cited_subdivision, None, false);
                return Ok(f);
            }
            BookLookup::Ambiguous(ids) => {
                evidence(
                    &mut f,
                    LawCitationStatus::BookAmbiguous.as_str(),
                    json!({"book": book, "candidate_law_ids": ids}),
                );
                scope(&mut f, cited_subdivision, None, false);
                return Ok(f);
            }
        };
        f.body.insert("law".into(), law.summary());
        f.body.insert("law_id".into(), json!(law.id));
        // The same rule as index's binding: `§ 3 EGBGB` names nothing in a law of Artikel.
        let absaetze: Vec<String> =
            self.g.store.with(|c| Ok(index::store::cited_section_absaetze(c, law.id, &l.section, l.unit)?))?;
        let unit = if matches!(l.unit, extract::citations::LawUnit::Article) { "Art." } else { "§" };
        f.key = format!(
            "{unit} {}{} {}",
            l.section,
            l.absatz.as_deref().map(|a| format!(" Abs. {a}")).unwrap_or_default(),
            law.code
        );
        // A law cannot be cited before its Ausfertigung (gii keeps the original one, also for a
        // Neufassung): the sentence then means a predecessor or another law of that name.
        if let (Some((stated, basis)), Some(enacted)) = (self.citation_date(l), &law.ausfertigung_datum)
            && index::decision_writer::date_number(enacted).is_some()
            && stated < *enacted
        {
            f.verdict = Verdict::Discrepancy;
            evidence(
                &mut f,
                LawCitationStatus::PredatesLaw.as_str(),
                json!({"law": law.code, "law_enacted": enacted, "stated_date": stated, "date_basis": basis,
                       "section_in_current_text": !absaetze.is_empty()}),
            );
            f.body.insert(
                "advisory".into(),
                json!(format!(
                    "Der Text datiert die Norm auf den {stated}; {} wurde erst am {enacted} ausgefertigt. Gemeint ist eine Vorgängerregelung oder ein anderes Gesetz dieses Namens; der geltende Text bestätigt das Zitat nicht.",
                    law.code
                )),
            );
            scope(&mut f, cited_subdivision, Some(!absaetze.is_empty()), false);
            return Ok(f);
        }
        if absaetze.is_empty() {
            let cited_by = decisions_citing_norm(self.g, &format!("{unit} {} {}", l.section, book))?;
            evidence(
                &mut f,
                LawCitationStatus::SectionAbsentInCurrentText.as_str(),
                json!({"law": law.code, "section": l.section, "decisions_citing_it": cited_by}),
            );
            // Decisions still cite it: the § existed; the citation contradicts the current text.
            f.verdict = if cited_by > 0 { Verdict::Discrepancy } else { Verdict::NotFound };
            if cited_by > 0 {
                f.body.insert(
                    "section_absence_advisory".into(),
                    json!("Der § fehlt in der geltenden Fassung, wird aber in Entscheidungen zitiert: Er kann aufgehoben, umnummeriert oder verschoben worden sein."),
                );
            }
            scope(&mut f, cited_subdivision, Some(false), true);
            return Ok(f);
        }
        // Satz, Nr., lit., Alt. and Halbsatz are never checked; say so rather than imply it.
        let below: Vec<String> =
            [("Satz", &l.satz), ("Nr.", &l.nr), ("lit.", &l.lit), ("Alt.", &l.alt), ("Halbs.", &l.halbsatz)]
                .into_iter()
                .filter_map(|(n, v)| v.as_ref().map(|v| format!("{n} {v}")))
                .collect();
        let unchecked_note = (!below.is_empty()).then(|| format!("{} nicht geprüft", below.join(", ")));
        let Some(absatz) = l.absatz.as_deref() else {
            f.verdict = Verdict::VerifiedCorpus;
            scope(&mut f, "not_applicable", Some(true), true);
            f.body.insert("subdivision_check".into(), json!("not_checked"));
            f.body.insert("subdivision_advisory".into(), json!(unchecked_note));
            return Ok(f);
        };
        let numbers: Vec<String> = absaetze
            .iter()
            .flat_map(|j| serde_json::from_str::<Vec<extract::law::Absatz>>(j).unwrap_or_default())
            .map(|a| a.number)
            .collect();
        let absatz_n: Option<u32> = absatz.trim().parse().ok();
        if numbers.iter().any(|n| n == absatz) {
            f.verdict = Verdict::VerifiedCorpus;
            scope(&mut f, "checked", Some(true), true);
            f.body.insert(
                "subdivision_check".into(),
                json!(if below.is_empty() { "absatz_verified" } else { "not_checked" }),
            );
            f.body.insert(
                "subdivision_advisory".into(),
                json!(unchecked_note.map(|n| format!("Abs. {absatz} bestätigt; {n}"))),
            );
        } else if numbers.is_empty() && absatz_n.is_none_or(|n| n <= 1) {
            // A § without numbered Absätze cited as `Abs. 1`: undecidable, never verified.
            f.verdict = Verdict::Unverifiable;
            evidence(&mut f, "absatz_unverified", json!({"note": "the section has no numbered Absätze"}));
            scope(&mut f, "unchecked", Some(true), true);
            f.body.insert("subdivision_check".into(), json!("absatz_unverified"));
        } else {
            f.verdict = Verdict::Discrepancy;
            let cited_by = decisions_citing_norm(self.g, &l.canonical)?;
            evidence(
                &mut f,
                LawCitationStatus::AbsatzAbsentInCurrentText.as_str(),
                json!({"absaetze_present": numbers, "absatz_cited_by_decisions": cited_by}),
            );
            scope(&mut f, "checked", Some(true), true);
            f.body.insert("subdivision_check".into(), json!("absatz_absent"));
        }
        Ok(f)
    }

    /// The successors when `book` is a superseded code (AGBG, BBauG), else None.
    fn superseded(&self, book: &str) -> Result<Option<Vec<Value>>, ToolError> {
        let norm = resolve::book_codes::normalise_book_code(book);
        let rows: Vec<Value> = self.g.store.with(|c| {
            let mut st = c.prepare_cached(
                "SELECT s.code, s.successor, s.effective_date, s.note FROM superseded_codes s WHERE s.code_norm = ?1",
            )?;
            let rows = st
                .query_map(params![norm], |r| {
                    Ok(json!({"code": r.get::<_, String>(0)?, "successor": r.get::<_, String>(1)?,
                              "effective_date": r.get::<_, Option<String>>(2)?, "note": r.get::<_, String>(3)?}))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })?;
        Ok((!rows.is_empty()).then_some(rows))
    }

    /// The verdict for one case citation.
    pub fn case_finding(&self, c: &CaseCitation) -> Result<Finding, ToolError> {
        let mut f = Finding {
            start: c.start,
            end: c.end,
            raw: c.raw.clone(),
            kind: "case",
            verdict: Verdict::Unverifiable,
            reason: None,
            key: c.canonical.clone(),
            body: Map::new(),
        };
        f.body.insert("canonical".into(), json!(c.canonical));
        f.body.insert(
            "printed".into(),
            json!({"court": c.court, "decision_kind": c.decision_kind, "date": c.date, "file_number": c.file_number, "ecli": c.ecli}),
        );
        let candidates: Vec<Decision> = match c.kind {
            CaseKind::FileNumber | CaseKind::EuCase | CaseKind::EcthrApplication => match &c.file_number {
                Some(n) => crate::store::decisions::decisions_by_file_number(self.g, &file_number_norm(n))?,
                None => Vec::new(),
            },
            CaseKind::Ecli => match &c.ecli {
                Some(e) => crate::store::decisions::decisions_by_ecli(self.g, &ecli_norm(e))?,
                None => Vec::new(),
            },
            CaseKind::Reporter => {
                f.reason = Some("reporter_citation_not_resolvable".into());
                f.body.insert(
                    "evidence".into(),
                    json!({"reason": "reporter_citation_not_resolvable", "reporter": c.reporter}),
                );
                f.body.insert(
                    "advisory".into(),
                    json!("Fundstellen (Entscheidungssammlungen, Zeitschriften) werden nicht aufgelöst; das Zitat ist weder bestätigt noch widerlegt."),
                );
                self.case_scope(&mut f, "unchecked");
                return Ok(f);
            }
        };
        let court_fits = |d: &Decision, printed: &str| {
            let name = d.court.as_ref().and_then(|x| x["name"].as_str())?;
            cited_court_fits(printed, &CourtTable::shipped().canonical(name)?)
        };
        if candidates.is_empty() {
            self.case_scope(&mut f, if c.court.is_some() { "unchecked" } else { "not_applicable" });
            self.unheld_case(&mut f, c)?;
            return Ok(f);
        }
        // Was the court the citation names compared? Only when it names one we can read.
        let court_scope = match c.court.as_deref() {
            Some(printed) if candidates.iter().any(|d| court_fits(d, printed).is_some()) => "checked",
            Some(_) => "unchecked",
            None => "not_applicable",
        };
        // Narrow by the printed court, then by the printed date (as `resolve` does); what is
        // left must not contradict the printed decision kind.
        let court_of = |d: &&Decision| {
            d.court.as_ref().and_then(|x| x["name"].as_str()).and_then(|n| CourtTable::shipped().canonical(n))
        };
        let left: Vec<&Decision> = match narrow_by_court(candidates.iter().collect(), c.court.as_deref(), court_of) {
            Narrowed::Left(left) => left,
            Narrowed::Contradicted(all) => {
                let printed = json!({"printed_court": c.court});
                return Ok(self.discrepancy(f, "wrong_court", &all, printed, "checked"));
            }
        };
        let left: Vec<&Decision> = match narrow_by_date(left, c.date.as_deref(), |d| d.date.clone()) {
            Narrowed::Left(left) => left,
            Narrowed::Contradicted(all) => {
                let printed = json!({"printed_date": c.date});
                return Ok(self.discrepancy(f, "wrong_date", &all, printed, court_scope));
            }
        };
        if left.len() > 1 {
            f.verdict = Verdict::Ambiguous;
            f.reason = Some("several_decisions_match".into());
            let dates: Vec<String> = left.iter().filter_map(|d| d.date.clone()).collect();
            f.body.insert(
                "evidence".into(),
                json!({"reason": "several_decisions_match", "candidates": left.iter().map(|d| d.summary()).collect::<Vec<_>>()}),
            );
            f.body.insert(
                "ambiguity_advisory".into(),
                json!(format!(
                    "Unter diesem Aktenzeichen sind {} Entscheidungen im Bestand (Daten: {}); Gericht und Datum im Satz entscheiden, welche gemeint ist.",
                    left.len(),
                    dates.join(", ")
                )),
            );
            self.case_scope(&mut f, if c.court.is_some() { "checked" } else { "not_applicable" });
            return Ok(f);
        }
        let d = left[0];
        if let (Some(kind), Some(held)) = (c.decision_kind.as_deref(), d.document_type.as_deref())
            && !kinds_agree(kind, held)
        {
            return Ok(self.discrepancy(
                f,
                "wrong_document_type",
                &left,
                json!({"printed_kind": kind, "held_document_type": held}),
                court_scope,
            ));
        }
        // A text written on its reference date cannot cite a later decision.
        if let (Some(refd), Some(held)) = (self.reference_date.as_deref(), d.date.as_deref())
            && held > refd
        {
            return Ok(self.discrepancy(
                f,
                "decided_after_reference_date",
                &left,
                json!({"reference_date": refd}),
                court_scope,
            ));
        }
        f.verdict = Verdict::VerifiedCorpus;
        f.key = d.ext_id.clone();
        f.body.insert("matched".into(), d.summary());
        self.case_scope(&mut f, court_scope);
        // Say what could not be compared, rather than implying it was.
        let kind_check = match (c.decision_kind.is_some(), d.document_type.is_some()) {
            (true, true) => "checked",
            (true, false) => "not_checked: the held decision records no document type",
            (false, _) => "not_printed",
        };
        if let Some(scope) = f.body.get_mut("check_scope") {
            scope["decision_kind"] = json!(kind_check);
            scope["date"] = json!(if c.date.is_some() { "checked" } else { "not_printed" });
        }
        Ok(f)
    }

    /// `court`: was the court the citation names compared (`checked`), not (`unchecked`), or
    /// did it name none (`not_applicable`)? A case finding has no Absatz and no article text.
    fn case_scope(&self, f: &mut Finding, court: &str) {
        f.body.insert(
            "check_scope".into(),
            json!({"subdivision": "not_applicable", "article_text_available": Value::Null, "article_text_read": false, "court": court}),
        );
    }

    fn discrepancy(&self, mut f: Finding, reason: &str, found: &[&Decision], printed: Value, court: &str) -> Finding {
        f.verdict = Verdict::Discrepancy;
        f.reason = Some(reason.into());
        f.body.insert(
            "evidence".into(),
            json!({"reason": reason, "printed": printed, "held": found.iter().map(|d| d.summary()).collect::<Vec<_>>()}),
        );
        self.case_scope(&mut f, court);
        f
    }

    /// A case citation nothing held matches: `not_found` only inside a window measured
    /// exhaustive, else `out_of_coverage` with the boundary and its reason ([`crate::query::coverage`]).
    /// Held decisions that cite the same court and file number are named in
    /// `evidence.attested_by`: a pointer that the decision exists, never a verdict.
    fn unheld_case(&self, f: &mut Finding, c: &CaseCitation) -> Result<(), ToolError> {
        let attested = crate::query::coverage::attested_by(self.g, c)?;
        let mut evidence = match crate::query::coverage::place(self.g, c)? {
            crate::query::coverage::Placement::Exhaustive(window) => {
                f.verdict = Verdict::NotFound;
                f.reason = Some("no_decision_match".into());
                json!({"reason": "no_decision_match", "file_number": c.file_number, "ecli": c.ecli, "window": window})
            }
            crate::query::coverage::Placement::Outside(boundary) => {
                f.verdict = Verdict::OutOfCoverage;
                f.reason = Some("outside_coverage_map".into());
                let why = match boundary["reason"].as_str().unwrap_or("") {
                    "court_not_printed" => "das Zitat nennt kein lesbares Gericht".to_string(),
                    "date_not_printed" => "das Zitat nennt kein Datum".to_string(),
                    "no_window_for_court" => "für dieses Gericht wird nichts vollständig erfasst".to_string(),
                    "selection_only" => {
                        "von diesem Gericht ist nur eine Auswahl (Open-Legal-Data-Dumps) im Bestand".to_string()
                    }
                    "outside_window" => format!(
                        "{} ab {}",
                        boundary["label"].as_str().unwrap_or(""),
                        boundary["from"].as_str().unwrap_or("?")
                    ),
                    _ => format!(
                        "{}: die Vollständigkeit ist für diesen Stand nicht nachgemessen",
                        boundary["label"].as_str().unwrap_or("")
                    ),
                };
                f.body.insert(
                    "coverage_advisory".into(),
                    json!(format!(
                        "Außerhalb des vollständig erfassten Bereichs ({why}): Die Entscheidung ist nicht im Bestand, ihre Existenz ist damit weder bestätigt noch widerlegt."
                    )),
                );
                f.body.insert("coverage_boundary".into(), boundary);
                json!({"reason": "outside_coverage_map"})
            }
        };
        if !attested.is_empty() {
            evidence["attested_by"] = json!(attested);
            f.body.insert(
                "attestation_advisory".into(),
                json!("Entscheidungen im Bestand zitieren dieses Gericht mit diesem Aktenzeichen: ein Hinweis, dass es die Entscheidung gibt, keine Bestätigung des Zitats."),
            );
        }
        f.body.insert("evidence".into(), evidence);
        Ok(())
    }
}

/// Whether a printed decision kind (`Urteil`, `Beschl.`) agrees with a held document type.
fn kinds_agree(printed: &str, held: &str) -> bool {
    let p = fold(printed);
    let h = fold(held);
    let stem = |s: &str| -> &'static str {
        if s.starts_with("urt") {
            "urteil"
        } else if s.starts_with("beschl") || s.starts_with("vorlagebeschl") {
            "beschluss"
        } else if s.starts_with("gerichtsbescheid") {
            "gerichtsbescheid"
        } else {
            "other"
        }
    };
    let (a, b) = (stem(&p), stem(&h));
    a == "other" || b == "other" || a == b
}

/// Cost-schedule numbers (`Nr. 3104 VV RVG`, `Nr. 1210 KV GKG`): positions in a fee table,
/// not sections; reported as unverifiable.
fn cost_schedule_findings(text: &str, names: &[extract::citations::LawName]) -> Vec<Finding> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    for n in names.iter().filter(|n| matches!(n.book.as_str(), "RVG" | "GKG" | "FamGKG" | "GNotKG" | "JVEG")) {
        let before: String = chars[n.start.saturating_sub(20)..n.start].iter().collect();
        let Some(i) = before.rfind("Nr.") else { continue };
        let lead = before[..i].chars().count();
        let schedule = before[i..].contains("VV") || before[i..].contains("KV");
        if !schedule {
            continue;
        }
        let start = n.start.saturating_sub(20) + lead;
        let raw: String = chars[start..n.end].iter().collect();
        let mut body = Map::new();
        let schedule = if before[i..].contains("VV") { "VV" } else { "KV" };
        let number: String = before[i + 3..].chars().filter(char::is_ascii_digit).collect();
        body.insert(
            "evidence".into(),
            json!({"reason": "cost_schedule_number_unchecked", "instrument": n.book, "schedule": schedule, "schedule_number": number}),
        );
        body.insert(
            "check_scope".into(),
            json!({"subdivision": "unchecked", "article_text_available": Value::Null, "article_text_read": false, "court": "not_applicable"}),
        );
        body.insert(
            "subdivision_advisory".into(),
            json!("Nummern von Vergütungs- und Kostenverzeichnissen werden nicht geprüft."),
        );
        out.push(Finding {
            start,
            end: n.end,
            raw: raw.clone(),
            kind: "law",
            verdict: Verdict::Unverifiable,
            reason: Some("cost_schedule_number_unchecked".into()),
            key: raw,
            body,
        });
    }
    out
}

/// Legal signals for the input gate: citations found plus legal vocabulary.
fn legal_signals(text: &str, citations: usize) -> usize {
    const WORDS: &[&str] = &[
        "Urteil",
        "Beschluss",
        "Gericht",
        "Kläger",
        "Beklagte",
        "Senat",
        "Kammer",
        "gemäß",
        "Abs.",
        "Satz",
        "Revision",
        "Berufung",
        "Anspruch",
        "Verfahren",
        "Rechtsprechung",
        "Vorschrift",
        "Gesetz",
        "Verwaltungsakt",
        "Antrag",
        "Tenor",
        "Gründe",
        "zulässig",
        "begründet",
    ];
    citations + WORDS.iter().filter(|w| text.contains(*w)).count()
}

/// `§` and `Art.` markers not covered by any finding or refusal: citation-like text the
/// scanner could not read (never silently dropped).
fn losses(text: &str, covered: &[(usize, usize)]) -> Vec<Value> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let marker = if chars[i] == '§' {
            Some(1)
        } else if chars[i..].starts_with(&['A', 'r', 't', '.']) && (i == 0 || !chars[i - 1].is_alphanumeric()) {
            Some(4)
        } else {
            None
        };
        if let Some(len) = marker
            && !covered.iter().any(|&(s, e)| s <= i && i < e)
        {
            let end = (i + len + 24).min(chars.len());
            let end = chars[i + len..end].iter().position(|c| *c == '\n').map(|p| i + len + p).unwrap_or(end);
            out.push(json!({"start": i, "end": end, "raw_text": chars[i..end].iter().collect::<String>(), "why": "citation-like text the scanner could not read as a citation"}));
            i += len;
            continue;
        }
        i += 1;
    }
    out
}

/// `check_citations(text, reference_date?)`.
pub fn check_citations(g: &Generation, a: CheckCitationsArgs) -> Result<Map<String, Value>, ToolError> {
    check_text(g, &a.text, a.reference_date)
}

/// The whole check, shared by MCP `check_citations` and `POST /api/citations/check`.
pub fn check_text(g: &Generation, text: &str, reference_date: Option<String>) -> Result<Map<String, Value>, ToolError> {
    let n = text.chars().count();
    if n > MAX_CHARS {
        return Err(ToolError::new(
            ErrorCode::TextTooLong,
            format!("the text has {n} characters; at most {MAX_CHARS} are checked in one call"),
            "Split the text at paragraph boundaries and check the parts one by one.",
        )
        .with("max_chars", MAX_CHARS)
        .with("given_chars", n));
    }
    if n < MIN_CHARS {
        return Err(ToolError::new(
            ErrorCode::TextTooShort,
            format!(
                "the text has {n} characters; check_citations reads a passage of at least {MIN_CHARS} characters (a sentence or more around the citations)"
            ),
            "Send the whole sentence or paragraph; for one citation alone use validate_citation.",
        )
        .with("min_chars", MIN_CHARS));
    }
    let vocab = LawVocabulary::shipped();
    let ex = scan(text, vocab);
    let signals = legal_signals(text, ex.laws.len() + ex.cases.len() + ex.refused.len());
    if signals < 2 {
        return Err(ToolError::new(
            ErrorCode::NotGermanLegalText,
            format!(
                "the text shows {signals} sign(s) of German legal writing (citations, legal terms); at least 2 are needed"
            ),
            "Send German legal text with its citations (e.g. a paragraph of a brief or decision).",
        ));
    }
    let checker = Checker::new(g, reference_date.clone()).dated_by(text, &ex);
    let mut findings: Vec<Finding> = Vec::new();
    // Each finding is a few store look-ups; a text with thousands of citations stops at the
    // call's deadline instead of running on after the caller was answered `timeout`.
    for l in &ex.laws {
        crate::contract::deadline::check()?;
        findings.push(checker.law_finding(l)?);
    }
    for c in &ex.cases {
        crate::contract::deadline::check()?;
        findings.push(checker.case_finding(c)?);
    }
    findings.extend(cost_schedule_findings(text, &ex.law_names));
    findings.sort_by_key(|f| (f.start, f.end));
    let refused: Vec<Value> = ex
        .refused
        .iter()
        .map(|r| {
            let advisory = match r.reason {
                RefusalReason::ContractClause => "Sieht aus wie eine Vertrags- oder Tarifklausel (MV, TV, AGB), nicht wie ein Gesetz; nicht geprüft.",
                RefusalReason::InsideReporter => "Teil einer Fundstelle (z. B. Buchholz), kein eigenes Normzitat; nicht geprüft.",
            };
            json!({"start": r.start, "end": r.end, "raw_text": r.raw, "reason": format!("{:?}", r.reason).to_lowercase(), "advisory": advisory})
        })
        .collect();
    let mut covered: Vec<(usize, usize)> = findings.iter().map(|f| (f.start, f.end)).collect();
    covered.extend(ex.refused.iter().map(|r| (r.start, r.end)));
    covered.extend(ex.chains.iter().map(|c| (c.start, c.end)));
    covered.extend(ex.law_names.iter().map(|c| (c.start, c.end)));
    let lost = losses(text, &covered);
    // Distinct citations, in reading order: a resolved decision is keyed on its id (several
    // spellings count once), everything else on its canonical form. Counts are per distinct
    // citation; `findings` and `progress.citations_total` count occurrences.
    struct Unique<'a> {
        key: String,
        basis: &'static str,
        target: Option<String>,
        spellings: Vec<&'a str>,
        occurrences: usize,
        verdict: Verdict,
        reason: Option<&'a str>,
        kind: &'static str,
    }
    let mut unique: Vec<Unique<'_>> = Vec::new();
    for f in &findings {
        let resolved = f.kind == "case" && f.verdict == Verdict::VerifiedCorpus;
        match unique.iter_mut().find(|u| u.key == f.key) {
            Some(u) => {
                u.occurrences += 1;
                if !u.spellings.contains(&f.raw.as_str()) {
                    u.spellings.push(&f.raw);
                }
            }
            None => unique.push(Unique {
                key: f.key.clone(),
                basis: if resolved { "matched_decision" } else { "canonical" },
                target: resolved.then(|| f.key.clone()),
                spellings: vec![&f.raw],
                occurrences: 1,
                verdict: f.verdict,
                reason: f.reason.as_deref(),
                kind: if f.kind == "case" { "case" } else { "statute" },
            }),
        }
    }
    let mut verdict_counts: BTreeMap<&str, usize> = BTreeMap::new();
    let mut reason_counts: BTreeMap<&str, usize> = BTreeMap::new();
    for u in &unique {
        *verdict_counts.entry(u.verdict.as_str()).or_default() += 1;
        if let Some(r) = u.reason {
            *reason_counts.entry(r).or_default() += 1;
        }
    }
    let mut out = Map::new();
    out.insert("text_chars".into(), json!(n));
    out.insert("reference_date".into(), json!(reference_date));
    out.insert("progress".into(), json!({"citations_total": findings.len(), "unique_citations_total": unique.len()}));
    out.insert("findings".into(), json!(findings.iter().map(Finding::json).collect::<Vec<_>>()));
    out.insert(
        "unique_citations".into(),
        json!(unique
            .iter()
            .map(|u| json!({"key_basis": u.basis, "target_artifact_id": u.target, "canonical": u.key, "spellings": u.spellings,
                            "occurrences": u.occurrences, "verdict": u.verdict, "reference_type": u.kind}))
            .collect::<Vec<_>>()),
    );
    out.insert("verdict_counts".into(), json!(verdict_counts));
    out.insert("reason_counts".into(), json!(reason_counts));
    out.insert("refused_lookalikes".into(), json!(refused));
    out.insert(
        "extraction".into(),
        json!({
            "losses_total": lost.len(),
            "losses": lost.iter().take(MAX_LOSSES_LISTED).collect::<Vec<_>>(),
            "losses_truncated": lost.len() > MAX_LOSSES_LISTED,
        }),
    );
    out.insert(
        "verdict_meanings".into(),
        json!({
            "verified_corpus": "the § (and cited Absatz) exists in the current text of a federal law we hold, or exactly one held decision matches and nothing printed contradicts it",
            "not_found": "not in what we hold (see evidence.reason / coverage); for a decision only inside a window measured exhaustive (evidence.window)",
            "out_of_coverage": "the decision is not held and its court and date lie in no window measured exhaustive: absence says nothing (coverage_boundary.reason says why; evidence.attested_by names held decisions citing it)",
            "ambiguous": "several held decisions match; see candidates",
            "unverifiable": "a tooling limit (see reason): neither confirmed nor refuted",
            "discrepancy": "found, but the citation contradicts it (see reason and evidence)",
        }),
    );
    Ok(out)
}

/// `validate_citation(citation)`: one Aktenzeichen, ECLI or § reference, exact only.
pub fn validate_citation(g: &Generation, a: ValidateCitationArgs) -> Result<Map<String, Value>, ToolError> {
    let citation = a.citation;
    let vocab = LawVocabulary::shipped();
    let ex = scan(&citation, vocab);
    let checker = Checker::new(g, None);
    let finding = if let Some(l) = ex.laws.first() {
        Some(checker.law_finding(l)?)
    } else if let Some(c) = ex.cases.first() {
        Some(checker.case_finding(c)?)
    } else if crate::query::identifiers::looks_like_file_number(citation.trim())
        || crate::query::identifiers::looks_like_ecli(citation.trim())
    {
        // A bare Aktenzeichen or ECLI the scanner wants context for: look it up as such.
        let trimmed = citation.trim();
        let kind =
            if crate::query::identifiers::looks_like_ecli(trimmed) { CaseKind::Ecli } else { CaseKind::FileNumber };
        let mut bare = CaseCitation::empty(0, citation.chars().count(), kind, trimmed.to_string());
        bare.raw = citation.clone();
        bare.file_number = Some(trimmed.to_string());
        bare.ecli = Some(trimmed.to_string());
        Some(checker.case_finding(&bare)?)
    } else {
        None
    };
    let mut out = Map::new();
    out.insert("citation".into(), json!(citation));
    match finding {
        None => {
            out.insert("found".into(), json!(false));
            out.insert("verdict".into(), Value::Null);
            out.insert("reason".into(), json!("no_citation_recognised"));
            out.insert(
                "hint".into(),
                json!("Send one citation: \"§ 823 Abs. 1 BGB\", \"Art. 20 GG\", \"VIII ZR 231/07\" or an ECLI."),
            );
        }
        Some(f) => {
            let exact = f.raw.trim() == citation.trim()
                && f.body.get("canonical").and_then(Value::as_str) == Some(citation.trim());
            out.insert("found".into(), json!(f.verdict == Verdict::VerifiedCorpus));
            out.insert("match_type".into(), json!(if exact { "exact" } else { "normalised: spacing, spelling and abbreviations folded; the § / file number itself is matched exactly" }));
            out.insert("finding".into(), f.json());
            out.insert("verdict".into(), json!(f.verdict));
        }
    }
    Ok(out)
}
