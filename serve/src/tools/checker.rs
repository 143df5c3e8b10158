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

use extract::citations::{
    CaseCitation, CaseKind, Extraction, LawCitation, LawVocabulary, RefusalReason, extract as scan,
};
use extract::courts::{CourtTable, cited_court_fits, fold};
use index::Generation;
use index::store::{ecli_norm, file_number_norm};
use model::Verdict;
use rusqlite::params;

use crate::contract::answer::{ErrorCode, ToolError};
use crate::contract::answers::{
    BoundaryReason, CheckCitationsAnswer, CheckProgress, CheckScope, Contradiction, Counts, CoverageNote,
    CoverageStatus, DecisionSummary, Evidence, ExtractionLoss, ExtractionReport, Finding, FindingKind, KeyBasis,
    LookalikeReason, PrintedCase, ReferenceType, RefusedLookalike, ScopeCheck, SubdivisionCheck, SupersededCode,
    UniqueCitation, ValidateCitationAnswer, VerdictMeanings,
};
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

/// A finding with nothing decided yet: `unverifiable`, no evidence, the scope to be set.
fn blank_finding(start: usize, end: usize, raw: &str, kind: FindingKind, canonical: &str) -> Finding {
    Finding {
        start,
        end,
        raw_text: raw.to_string(),
        kind,
        verdict: Verdict::Unverifiable,
        reason: None,
        citation_key: canonical.to_string(),
        canonical: canonical.to_string(),
        check_scope: case_scope(ScopeCheck::NotApplicable),
        evidence: None,
        law: None,
        law_id: None,
        printed: None,
        matched: None,
        coverage: None,
        coverage_boundary: None,
        subdivision_check: None,
        subdivision_advisory: None,
        advisory: None,
        coverage_advisory: None,
        section_absence_advisory: None,
        ambiguity_advisory: None,
        attestation_advisory: None,
    }
}

/// Sets the evidence and, from it, the finding's reason: the two never disagree.
fn set_evidence(f: &mut Finding, evidence: Evidence) {
    f.reason = Some(evidence.reason());
    f.evidence = Some(evidence);
}

/// What a statute check compared: the Absatz question, whether a text is held for the §, and
/// whether this check read it. A statute finding never compares a court.
fn law_scope(subdivision: ScopeCheck, available: Option<bool>, read: bool) -> CheckScope {
    CheckScope {
        subdivision,
        article_text_available: available,
        article_text_read: read,
        court: ScopeCheck::NotApplicable,
        decision_kind: None,
        date: None,
    }
}

/// `court`: was the court the citation names compared (`checked`), not (`unchecked`), or did
/// it name none (`not_applicable`)? A case finding has no Absatz and no article text.
fn case_scope(court: ScopeCheck) -> CheckScope {
    CheckScope {
        subdivision: ScopeCheck::NotApplicable,
        article_text_available: None,
        article_text_read: false,
        court,
        decision_kind: None,
        date: None,
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
        let book_raw = l.book_raw.clone().or_else(|| l.book.clone());
        let mut f = blank_finding(l.start, l.end, &l.raw, FindingKind::Law, &l.canonical);
        let cited_subdivision = if l.absatz.is_some() { ScopeCheck::Unchecked } else { ScopeCheck::NotApplicable };
        f.check_scope = law_scope(cited_subdivision, None, false);
        let Some(book) = l.book.clone() else {
            set_evidence(&mut f, Evidence::LawNotNamed);
            f.advisory = Some("Die Norm nennt kein Gesetz; ohne Gesetz ist sie nicht prüfbar.".into());
            return Ok(f);
        };
        // Land law (`IFG Bln`, `VwVfG-SH`, `BayBO`: the scanner's reading, the same table as the
        // pipeline's): we hold federal law only, so it is neither verified against nor
        // contradicted by the federal law of the same abbreviation.
        if let Some(sl) = &l.state_law {
            f.verdict = Verdict::NotFound;
            set_evidence(
                &mut f,
                Evidence::StateLawOutOfScope { instrument: sl.instrument.clone(), state: sl.state.clone() },
            );
            f.coverage = Some(CoverageNote {
                status: CoverageStatus::OutOfScope,
                scope: Some("no_state_law"),
                instrument: sl.instrument.clone(),
                state: sl.state.clone(),
                successor: None,
                superseded_on: None,
            });
            f.coverage_advisory = Some(format!(
                "Landesrecht{} wird nicht gehalten: Dieses Werkzeug prüft nur Bundesrecht. Die Norm ist damit weder bestätigt noch widerlegt.",
                sl.state.as_deref().map(|l| format!(" ({l})")).unwrap_or_default()
            ));
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
            let (successor, superseded_on) =
                rows.first().map(|r| (Some(r.successor.clone()), r.effective_date.clone())).unwrap_or_default();
            f.coverage_advisory = Some(format!(
                "{raw} gilt so nicht mehr (Nachfolger: {}); gehalten wird nur die geltende Fassung, die Nummerierung geht nicht über. Die Norm ist weder bestätigt noch widerlegt.",
                successor.as_deref().unwrap_or("unbekannt")
            ));
            f.coverage = Some(CoverageNote {
                status: CoverageStatus::Superseded,
                scope: Some("current_consolidated_text_only"),
                instrument: raw.clone(),
                state: None,
                successor,
                superseded_on,
            });
            set_evidence(&mut f, Evidence::StatuteSupersededInstrument { superseded_by: rows });
            return Ok(f);
        }
        if old_version {
            set_evidence(&mut f, Evidence::OldVersionCited);
            f.advisory = Some("Zitiert wird eine alte Fassung (a.F.); gehalten wird nur die geltende Fassung, die alte Fassung ist nicht prüfbar.".into());
            return Ok(f);
        }
        let law: Law = match lookup_book(self.g, &book)? {
            BookLookup::Found(law) => *law,
            BookLookup::NotHeld => {
                f.verdict = Verdict::NotFound;
                if is_eu_or_international(&book) {
                    f.coverage = Some(CoverageNote {
                        status: CoverageStatus::OutOfScope,
                        scope: Some("no_eu_or_international_law"),
                        instrument: book.clone(),
                        state: None,
                        successor: None,
                        superseded_on: None,
                    });
                    f.coverage_advisory = Some(
                        "Unions- und Völkerrecht wird nicht gehalten; die Norm ist weder bestätigt noch widerlegt."
                            .into(),
                    );
                    set_evidence(&mut f, Evidence::EuOrInternationalLawOutOfScope { instrument: book });
                } else {
                    f.coverage = Some(CoverageNote {
                        status: CoverageStatus::Unknown,
                        scope: None,
                        instrument: book.clone(),
                        state: None,
                        successor: None,
                        superseded_on: None,
                    });
                    set_evidence(&mut f, Evidence::StatuteUnknown { book });
                }
                return Ok(f);
            }
            BookLookup::Ambiguous(ids) => {
                set_evidence(&mut f, Evidence::BookAmbiguous { book, candidate_law_ids: ids.into_iter().collect() });
                return Ok(f);
            }
        };
        f.law = Some(law.summary());
        f.law_id = Some(law.id);
        // The same rule as index's binding: `§ 3 EGBGB` names nothing in a law of Artikel.
        let absaetze: Vec<String> =
            self.g.store.with(|c| Ok(index::store::cited_section_absaetze(c, law.id, &l.section, l.unit)?))?;
        let unit = if matches!(l.unit, extract::citations::LawUnit::Article) { "Art." } else { "§" };
        f.citation_key = format!(
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
            f.advisory = Some(format!(
                "Der Text datiert die Norm auf den {stated}; {} wurde erst am {enacted} ausgefertigt. Gemeint ist eine Vorgängerregelung oder ein anderes Gesetz dieses Namens; der geltende Text bestätigt das Zitat nicht.",
                law.code
            ));
            set_evidence(
                &mut f,
                Evidence::PredatesLaw {
                    law: law.code.clone(),
                    law_enacted: enacted.clone(),
                    stated_date: stated,
                    date_basis: basis,
                    section_in_current_text: !absaetze.is_empty(),
                },
            );
            f.check_scope = law_scope(cited_subdivision, Some(!absaetze.is_empty()), false);
            return Ok(f);
        }
        if absaetze.is_empty() {
            let cited_by = decisions_citing_norm(self.g, &format!("{unit} {} {}", l.section, book))?;
            set_evidence(
                &mut f,
                Evidence::SectionAbsentInCurrentText {
                    law: law.code.clone(),
                    section: l.section.clone(),
                    decisions_citing_it: cited_by,
                },
            );
            // Decisions still cite it: the § existed; the citation contradicts the current text.
            f.verdict = if cited_by > 0 { Verdict::Discrepancy } else { Verdict::NotFound };
            if cited_by > 0 {
                f.section_absence_advisory = Some(
                    "Der § fehlt in der geltenden Fassung, wird aber in Entscheidungen zitiert: Er kann aufgehoben, umnummeriert oder verschoben worden sein.",
                );
            }
            f.check_scope = law_scope(cited_subdivision, Some(false), true);
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
            f.check_scope = law_scope(ScopeCheck::NotApplicable, Some(true), true);
            f.subdivision_check = Some(SubdivisionCheck::NotChecked);
            f.subdivision_advisory = Some(unchecked_note);
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
            f.check_scope = law_scope(ScopeCheck::Checked, Some(true), true);
            f.subdivision_check =
                Some(if below.is_empty() { SubdivisionCheck::AbsatzVerified } else { SubdivisionCheck::NotChecked });
            f.subdivision_advisory = Some(unchecked_note.map(|n| format!("Abs. {absatz} bestätigt; {n}")));
        } else if numbers.is_empty() && absatz_n.is_none_or(|n| n <= 1) {
            // A § without numbered Absätze cited as `Abs. 1`: undecidable, never verified.
            f.verdict = Verdict::Unverifiable;
            set_evidence(&mut f, Evidence::AbsatzUnverified { note: "the section has no numbered Absätze" });
            f.check_scope = law_scope(ScopeCheck::Unchecked, Some(true), true);
            f.subdivision_check = Some(SubdivisionCheck::AbsatzUnverified);
        } else {
            f.verdict = Verdict::Discrepancy;
            let cited_by = decisions_citing_norm(self.g, &l.canonical)?;
            set_evidence(
                &mut f,
                Evidence::AbsatzAbsentInCurrentText { absaetze_present: numbers, absatz_cited_by_decisions: cited_by },
            );
            f.check_scope = law_scope(ScopeCheck::Checked, Some(true), true);
            f.subdivision_check = Some(SubdivisionCheck::AbsatzAbsent);
        }
        Ok(f)
    }

    /// The successors when `book` is a superseded code (AGBG, BBauG), else None.
    fn superseded(&self, book: &str) -> Result<Option<Vec<SupersededCode>>, ToolError> {
        let norm = resolve::book_codes::normalise_book_code(book);
        let rows: Vec<SupersededCode> = self.g.store.with(|c| {
            let mut st = c.prepare_cached(
                "SELECT s.code, s.successor, s.effective_date, s.note FROM superseded_codes s WHERE s.code_norm = ?1",
            )?;
            let rows = st
                .query_map(params![norm], |r| {
                    Ok(SupersededCode {
                        code: r.get(0)?,
                        successor: r.get(1)?,
                        effective_date: r.get(2)?,
                        note: r.get(3)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })?;
        Ok((!rows.is_empty()).then_some(rows))
    }

    /// The verdict for one case citation.
    pub fn case_finding(&self, c: &CaseCitation) -> Result<Finding, ToolError> {
        let mut f = blank_finding(c.start, c.end, &c.raw, FindingKind::Case, &c.canonical);
        f.printed = Some(PrintedCase {
            court: c.court.clone(),
            decision_kind: c.decision_kind.clone(),
            date: c.date.clone(),
            file_number: c.file_number.clone(),
            ecli: c.ecli.clone(),
        });
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
                set_evidence(&mut f, Evidence::ReporterCitationNotResolvable { reporter: c.reporter.clone() });
                f.advisory = Some("Fundstellen (Entscheidungssammlungen, Zeitschriften) werden nicht aufgelöst; das Zitat ist weder bestätigt noch widerlegt.".into());
                f.check_scope = case_scope(ScopeCheck::Unchecked);
                return Ok(f);
            }
        };
        let court_fits = |d: &Decision, printed: &str| {
            let name = d.court.as_ref().map(|x| x.name.as_str())?;
            cited_court_fits(printed, &CourtTable::shipped().canonical(name)?)
        };
        let named = |printed: bool| if printed { ScopeCheck::Unchecked } else { ScopeCheck::NotApplicable };
        if candidates.is_empty() {
            f.check_scope = case_scope(named(c.court.is_some()));
            self.unheld_case(&mut f, c)?;
            return Ok(f);
        }
        // Was the court the citation names compared? Only when it names one we can read.
        let court_scope = match c.court.as_deref() {
            Some(printed) if candidates.iter().any(|d| court_fits(d, printed).is_some()) => ScopeCheck::Checked,
            Some(_) => ScopeCheck::Unchecked,
            None => ScopeCheck::NotApplicable,
        };
        // Narrow by the printed court, then by the printed date (as `resolve` does); what is
        // left must not contradict the printed decision kind.
        let court_of = |d: &&Decision| d.court.as_ref().and_then(|x| CourtTable::shipped().canonical(&x.name));
        let left: Vec<&Decision> = match narrow_by_court(candidates.iter().collect(), c.court.as_deref(), court_of) {
            Narrowed::Left(left) => left,
            Narrowed::Contradicted(all) => {
                let printed = Contradiction { printed_court: c.court.clone(), ..Default::default() };
                let held = summaries(&all);
                return Ok(discrepancy(f, Evidence::WrongCourt { printed, held }, ScopeCheck::Checked));
            }
        };
        let left: Vec<&Decision> = match narrow_by_date(left, c.date.as_deref(), |d| d.date.clone()) {
            Narrowed::Left(left) => left,
            Narrowed::Contradicted(all) => {
                let printed = Contradiction { printed_date: c.date.clone(), ..Default::default() };
                let held = summaries(&all);
                return Ok(discrepancy(f, Evidence::WrongDate { printed, held }, court_scope));
            }
        };
        if left.len() > 1 {
            f.verdict = Verdict::Ambiguous;
            let dates: Vec<String> = left.iter().filter_map(|d| d.date.clone()).collect();
            f.ambiguity_advisory = Some(format!(
                "Unter diesem Aktenzeichen sind {} Entscheidungen im Bestand (Daten: {}); Gericht und Datum im Satz entscheiden, welche gemeint ist.",
                left.len(),
                dates.join(", ")
            ));
            set_evidence(&mut f, Evidence::SeveralDecisionsMatch { candidates: summaries(&left) });
            f.check_scope = case_scope(if c.court.is_some() { ScopeCheck::Checked } else { ScopeCheck::NotApplicable });
            return Ok(f);
        }
        let d = left[0];
        if let (Some(kind), Some(held)) = (c.decision_kind.as_deref(), d.document_type.as_deref())
            && !kinds_agree(kind, held)
        {
            let printed = Contradiction {
                printed_kind: Some(kind.to_string()),
                held_document_type: Some(held.to_string()),
                ..Default::default()
            };
            return Ok(discrepancy(f, Evidence::WrongDocumentType { printed, held: summaries(&left) }, court_scope));
        }
        // A text written on its reference date cannot cite a later decision.
        if let (Some(refd), Some(held)) = (self.reference_date.as_deref(), d.date.as_deref())
            && held > refd
        {
            let printed = Contradiction { reference_date: Some(refd.to_string()), ..Default::default() };
            return Ok(discrepancy(
                f,
                Evidence::DecidedAfterReferenceDate { printed, held: summaries(&left) },
                court_scope,
            ));
        }
        f.verdict = Verdict::VerifiedCorpus;
        f.citation_key = d.ext_id.clone();
        f.matched = Some(d.summary());
        // Say what could not be compared, rather than implying it was.
        let kind_check = match (c.decision_kind.is_some(), d.document_type.is_some()) {
            (true, true) => "checked",
            (true, false) => "not_checked: the held decision records no document type",
            (false, _) => "not_printed",
        };
        f.check_scope = CheckScope {
            decision_kind: Some(kind_check),
            date: Some(if c.date.is_some() { "checked" } else { "not_printed" }),
            ..case_scope(court_scope)
        };
        Ok(f)
    }

    /// A case citation nothing held matches: `not_found` only inside a window measured
    /// exhaustive, else `out_of_coverage` with the boundary and its reason ([`crate::query::coverage`]).
    /// Held decisions that cite the same court and file number are named in
    /// `evidence.attested_by`: a pointer that the decision exists, never a verdict.
    fn unheld_case(&self, f: &mut Finding, c: &CaseCitation) -> Result<(), ToolError> {
        let attestation = crate::query::coverage::attested_by(self.g, c)?;
        if attestation.is_some() {
            f.attestation_advisory = Some(
                "Entscheidungen im Bestand zitieren dieses Gericht mit diesem Aktenzeichen: ein Hinweis, dass es die Entscheidung gibt, keine Bestätigung des Zitats.",
            );
        }
        match crate::query::coverage::place(self.g, c)? {
            crate::query::coverage::Placement::Exhaustive(window) => {
                f.verdict = Verdict::NotFound;
                set_evidence(
                    f,
                    Evidence::NoDecisionMatch {
                        file_number: c.file_number.clone(),
                        ecli: c.ecli.clone(),
                        window,
                        attestation,
                    },
                );
            }
            crate::query::coverage::Placement::Outside(boundary) => {
                f.verdict = Verdict::OutOfCoverage;
                let label = boundary.bucket.as_ref().map(|b| b.label.as_str()).unwrap_or("");
                let why = match boundary.reason {
                    BoundaryReason::CourtNotPrinted => "das Zitat nennt kein lesbares Gericht".to_string(),
                    BoundaryReason::DateNotPrinted => "das Zitat nennt kein Datum".to_string(),
                    BoundaryReason::NoWindowForCourt => {
                        "für dieses Gericht wird nichts vollständig erfasst".to_string()
                    }
                    BoundaryReason::SelectionOnly => {
                        "von diesem Gericht ist nur eine Auswahl (Open-Legal-Data-Dumps) im Bestand".to_string()
                    }
                    BoundaryReason::OutsideWindow => format!(
                        "{label} ab {}",
                        boundary.bucket.as_ref().and_then(|b| b.from.as_deref()).unwrap_or("?")
                    ),
                    BoundaryReason::WindowNotExhaustive => {
                        format!("{label}: die Vollständigkeit ist für diesen Stand nicht nachgemessen")
                    }
                };
                f.coverage_advisory = Some(format!(
                    "Außerhalb des vollständig erfassten Bereichs ({why}): Die Entscheidung ist nicht im Bestand, ihre Existenz ist damit weder bestätigt noch widerlegt."
                ));
                f.coverage_boundary = Some(boundary);
                set_evidence(f, Evidence::OutsideCoverageMap { attestation });
            }
        }
        Ok(())
    }
}

fn summaries(ds: &[&Decision]) -> Vec<DecisionSummary> {
    ds.iter().map(|d| d.summary()).collect()
}

/// Found, but contradicted by what the citation prints.
fn discrepancy(mut f: Finding, evidence: Evidence, court: ScopeCheck) -> Finding {
    f.verdict = Verdict::Discrepancy;
    set_evidence(&mut f, evidence);
    f.check_scope = case_scope(court);
    f
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
        let schedule = if before[i..].contains("VV") { "VV" } else { "KV" };
        let number: String = before[i + 3..].chars().filter(char::is_ascii_digit).collect();
        let canonical = format!("Nr. {number} {schedule} {}", n.book);
        let mut f = blank_finding(start, n.end, &raw, FindingKind::Law, &canonical);
        f.citation_key = raw.clone();
        f.check_scope = law_scope(ScopeCheck::Unchecked, None, false);
        f.subdivision_advisory =
            Some(Some("Nummern von Vergütungs- und Kostenverzeichnissen werden nicht geprüft.".into()));
        set_evidence(
            &mut f,
            Evidence::CostScheduleNumberUnchecked { instrument: n.book.clone(), schedule, schedule_number: number },
        );
        out.push(f);
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
fn losses(text: &str, covered: &[(usize, usize)]) -> Vec<ExtractionLoss> {
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
            out.push(ExtractionLoss {
                start: i,
                end,
                raw_text: chars[i..end].iter().collect(),
                why: "citation-like text the scanner could not read as a citation",
            });
            i += len;
            continue;
        }
        i += 1;
    }
    out
}

/// `check_citations(text, reference_date?)`.
pub fn check_citations(g: &Generation, a: CheckCitationsArgs) -> Result<CheckCitationsAnswer, ToolError> {
    check_text(g, &a.text, a.reference_date)
}

/// The whole check, shared by MCP `check_citations` and `POST /api/citations/check`.
pub fn check_text(
    g: &Generation,
    text: &str,
    reference_date: Option<String>,
) -> Result<CheckCitationsAnswer, ToolError> {
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
    let refused: Vec<RefusedLookalike> = ex
        .refused
        .iter()
        .map(|r| {
            let (reason, advisory) = match r.reason {
                RefusalReason::ContractClause => (LookalikeReason::ContractClause, "Sieht aus wie eine Vertrags- oder Tarifklausel (MV, TV, AGB), nicht wie ein Gesetz; nicht geprüft."),
                RefusalReason::InsideReporter => (LookalikeReason::InsideReporter, "Teil einer Fundstelle (z. B. Buchholz), kein eigenes Normzitat; nicht geprüft."),
            };
            RefusedLookalike { start: r.start, end: r.end, raw_text: r.raw.clone(), reason, advisory }
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
        basis: KeyBasis,
        target: Option<String>,
        spellings: Vec<&'a str>,
        occurrences: usize,
        verdict: Verdict,
        reason: Option<&'static str>,
        kind: ReferenceType,
    }
    let mut unique: Vec<Unique<'_>> = Vec::new();
    for f in &findings {
        let resolved = f.kind == FindingKind::Case && f.verdict == Verdict::VerifiedCorpus;
        match unique.iter_mut().find(|u| u.key == f.citation_key) {
            Some(u) => {
                u.occurrences += 1;
                if !u.spellings.contains(&f.raw_text.as_str()) {
                    u.spellings.push(&f.raw_text);
                }
            }
            None => unique.push(Unique {
                key: f.citation_key.clone(),
                basis: if resolved { KeyBasis::MatchedDecision } else { KeyBasis::Canonical },
                target: resolved.then(|| f.citation_key.clone()),
                spellings: vec![&f.raw_text],
                occurrences: 1,
                verdict: f.verdict,
                reason: f.reason,
                kind: if f.kind == FindingKind::Case { ReferenceType::Case } else { ReferenceType::Statute },
            }),
        }
    }
    let mut verdict_counts = Counts::new();
    let mut reason_counts = Counts::new();
    for u in &unique {
        *verdict_counts.entry(u.verdict.as_str().to_string()).or_default() += 1;
        if let Some(r) = u.reason {
            *reason_counts.entry(r.to_string()).or_default() += 1;
        }
    }
    let unique_citations = unique
        .iter()
        .map(|u| UniqueCitation {
            key_basis: u.basis,
            target_artifact_id: u.target.clone(),
            canonical: u.key.clone(),
            spellings: u.spellings.iter().map(|s| s.to_string()).collect(),
            occurrences: u.occurrences,
            verdict: u.verdict,
            reference_type: u.kind,
        })
        .collect();
    let losses_total = lost.len();
    Ok(CheckCitationsAnswer {
        text_chars: n,
        reference_date,
        progress: CheckProgress { citations_total: findings.len(), unique_citations_total: unique.len() },
        unique_citations,
        verdict_counts,
        reason_counts,
        refused_lookalikes: refused,
        extraction: ExtractionReport {
            losses_total,
            losses: lost.into_iter().take(MAX_LOSSES_LISTED).collect(),
            losses_truncated: losses_total > MAX_LOSSES_LISTED,
        },
        verdict_meanings: VerdictMeanings {
            verified_corpus: "the § (and cited Absatz) exists in the current text of a federal law we hold, or exactly one held decision matches and nothing printed contradicts it",
            not_found: "not in what we hold (see evidence.reason / coverage); for a decision only inside a window measured exhaustive (evidence.window)",
            out_of_coverage: "the decision is not held and its court and date lie in no window measured exhaustive: absence says nothing (coverage_boundary.reason says why; evidence.attested_by names held decisions citing it, attested_by_total counts them)",
            ambiguous: "several held decisions match; see candidates",
            unverifiable: "a tooling limit (see reason): neither confirmed nor refuted",
            discrepancy: "found, but the citation contradicts it (see reason and evidence)",
        },
        findings,
    })
}

/// `validate_citation(citation)`: one Aktenzeichen, ECLI or § reference, exact only.
pub fn validate_citation(g: &Generation, a: ValidateCitationArgs) -> Result<ValidateCitationAnswer, ToolError> {
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
    Ok(match finding {
        None => ValidateCitationAnswer {
            citation,
            found: false,
            verdict: None,
            reason: Some("no_citation_recognised"),
            hint: Some("Send one citation: \"§ 823 Abs. 1 BGB\", \"Art. 20 GG\", \"VIII ZR 231/07\" or an ECLI."),
            match_type: None,
            finding: None,
        },
        Some(f) => {
            let exact = f.raw_text.trim() == citation.trim() && f.canonical == citation.trim();
            ValidateCitationAnswer {
                found: f.verdict == Verdict::VerifiedCorpus,
                verdict: Some(f.verdict),
                reason: None,
                hint: None,
                match_type: Some(if exact {
                    "exact"
                } else {
                    "normalised: spacing, spelling and abbreviations folded; the § / file number itself is matched exactly"
                }),
                finding: Some(f),
                citation,
            }
        }
    })
}
