//! Shapes several answers share: a decision's metadata, a court, a law, counts keyed by a
//! closed set's spelling.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

/// Counts keyed by a closed set's spelling (statuses, verdicts, reasons); every spelling of the
/// set is present, zero included, unless the field says otherwise.
pub type Counts = BTreeMap<String, i64>;

/// A court as a decision row names it. null = not recorded in the reference table.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CourtSummary {
    pub name: String,
    /// `BGH`, `OVG`, `VG`, `EuGH` …; null when the name has no recognisable type word.
    #[serde(rename = "type")]
    pub court_type: Option<String>,
    pub branch: String,
    /// 1 federal, 2 higher Land court, 3 Land court, 4 local court; 0 European; null unknown.
    pub level: Option<i64>,
    /// ISO 3166-2 (`DE-BY`); null for federal and European courts or when unknown.
    pub land: Option<String>,
    pub ecli_code: Option<String>,
}

/// A court row with its holdings in this generation.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CourtRow {
    #[serde(flatten)]
    pub court: CourtSummary,
    pub city: Option<String>,
    pub citation_name: Option<String>,
    /// false when the name matched no row of the reference table and was kept as given.
    pub in_reference_table: bool,
    pub decisions_held: i64,
    pub earliest_decision: Option<String>,
    pub latest_decision: Option<String>,
}

/// A held decision's metadata (no text). null = not recorded in the source.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DecisionSummary {
    /// The decision's id (what `get_decision` takes).
    pub id: String,
    /// The first of `file_numbers`.
    pub aktenzeichen: Option<String>,
    /// Every Aktenzeichen of the decision (joined proceedings have several).
    pub file_numbers: Vec<String>,
    /// The court placed in the reference table; null = the source names no court we could place.
    pub court: Option<CourtSummary>,
    /// The court's name as the source gives it.
    pub court_name_as_given: Option<String>,
    pub chamber: Option<String>,
    /// ISO date of the decision.
    pub date: Option<String>,
    /// How the date was established.
    pub date_confidence: String,
    pub ecli: Option<String>,
    pub document_type: Option<String>,
    pub title: Option<String>,
    /// Where the decision is printed; not recorded by any source held yet.
    pub fundstelle: Option<String>,
    /// Held decisions citing this one.
    pub citing_cases_count: i64,
}

/// A federal law as rows name it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LawSummary {
    /// The code `get_law` and `get_law_section` take as `book`.
    pub code: String,
    /// The law's page name on gesetze-im-internet.de.
    pub slug: String,
    pub title: String,
    /// Abbreviations the law is cited by.
    pub jurabk: Vec<String>,
    /// The official abbreviation.
    pub amtabk: Option<String>,
}
