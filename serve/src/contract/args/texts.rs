//! Arguments of the tools that take a passage or a list: `check_citations`,
//! `validate_citation`, `assemble_datapackage`.

use schemars::JsonSchema;
use serde::Deserialize;

use super::int;

/// `check_citations`. The text's length limits are the tool's own refusals
/// (`text_too_short`, `text_too_long`), not an argument error, so they are not in the schema.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct CheckCitationsArgs {
    /// German legal text, 50 to 20,000 characters, with the citations to check.
    #[schemars(length(min = 1))]
    pub text: String,
    /// The date the text speaks from (YYYY-MM-DD), echoed in the answer.
    #[schemars(length(max = 20))]
    pub reference_date: Option<String>,
}

/// `validate_citation`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ValidateCitationArgs {
    /// One citation: "§ 823 Abs. 1 BGB", "Art. 20 GG", "VIII ZR 231/07", "BGH, Urteil vom 08.04.2009 - VIII ZR 231/07" or an ECLI.
    #[schemars(length(min = 1, max = 300))]
    pub citation: String,
}

/// `assemble_datapackage`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct AssembleDatapackageArgs {
    /// 1-10 decision ids, Aktenzeichen or ECLIs. Order matters: over budget, decisions are dropped from the end. Duplicates collapse.
    #[schemars(length(min = 1, max = 10), inner(length(min = 1, max = 200)))]
    pub ids: Vec<String>,
    /// Each decision's outgoing citation edges (resolved to a held decision or not, with status) and edge_accounting.
    #[serde(default = "super::yes")]
    pub include_citations: bool,
    /// Whole texts (cut at max_chars each) instead of ~700-character excerpts from the Leitsatz/Tenor/Gründe.
    #[serde(default)]
    pub full_text: bool,
    /// Response budget in characters of the serialised decisions and edges (also the per-decision cap with full_text).
    #[serde(default = "int::<60_000>")]
    #[schemars(range(min = 500, max = 200_000))]
    pub max_chars: i64,
}
