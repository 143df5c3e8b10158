//! Arguments of the statute tools: `search_laws`, `get_law_section`, `get_law`,
//! `list_law_books`, and the tools that take none (`get_platform_info`).

use model::LawPart;
use schemars::JsonSchema;
use serde::Deserialize;

use super::int;

/// `search_laws`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SearchLawsArgs {
    /// German words or a citation ("Notwehr", "§ 823 BGB").
    #[schemars(length(min = 1, max = 500))]
    pub query: String,
    /// Only sections of this law: abbreviation as usually written (BGB, StGB, AO, SGB V, EGBGB) or the law's title.
    #[schemars(length(max = 200))]
    pub book: Option<String>,
    /// Rows to return.
    #[serde(default = "int::<10>")]
    #[schemars(range(min = 1, max = 50))]
    pub limit: i64,
    /// Add legal-register terms for everyday words ("Kaution" adds "Mietsicherheit"); the answer's query_expansion says what was added. false = search your words alone.
    #[serde(default = "super::yes")]
    pub expand_query: bool,
}

/// `get_law_section`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct GetLawSectionArgs {
    /// Law abbreviation (BGB, GG, AO, SGB V, …), slug or title.
    #[schemars(length(min = 1, max = 200))]
    pub book: String,
    /// Section designation: "823", "§ 823", "§823", "Art. 20", "Art 20", "Artikel 20", "Art. 229 § 5" (a § inside an article, EGBGB/EGInsO/EGAO), "Anlage 1", or a `section` key from get_law's table of contents. Exact only. With an Absatz ("§ 32 Abs. 2", "Art. 20 Abs. 4") the answer adds that Absatz (absatz: number, offsets into the section text, text).
    #[schemars(length(min = 1, max = 200))]
    pub section: String,
    /// Snippet mode: start, in Unicode code points of the plain text.
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub offset: i64,
    /// Snippet mode: code points to return; 0 = to the end.
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub length: i64,
}

fn meta_and_toc() -> Vec<LawPart> {
    vec![LawPart::Meta, LawPart::Toc]
}

/// `get_law`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct GetLawArgs {
    /// Law abbreviation (BGB, GG, AO, SGB V, …), slug or title.
    #[schemars(length(min = 1, max = 200))]
    pub book: String,
    /// Parts to return.
    #[serde(default = "meta_and_toc")]
    pub include: Vec<LawPart>,
    /// Text part: start in code points of the whole law's plain text; pass next_offset to continue.
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub offset: i64,
    /// Text part: code points per page.
    #[serde(default = "int::<20_000>")]
    #[schemars(range(min = 1, max = 100_000))]
    pub length: i64,
    /// Table of contents: first entry.
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub toc_offset: i64,
    /// Table of contents: entries per page.
    #[serde(default = "int::<500>")]
    #[schemars(range(min = 1, max = 5_000))]
    pub toc_limit: i64,
}

/// `list_law_books`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ListLawBooksArgs {
    /// Abbreviation prefix ("SGB", "Bau").
    #[schemars(length(max = 100))]
    pub prefix: Option<String>,
    /// Substring of the title or abbreviation.
    #[schemars(length(max = 200))]
    pub search: Option<String>,
    /// Rows to return.
    #[serde(default = "int::<50>")]
    #[schemars(range(min = 1, max = 500))]
    pub limit: i64,
    /// Rows to skip (paging).
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub offset: i64,
}

/// A tool without arguments (`get_platform_info`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct NoArgs {}
