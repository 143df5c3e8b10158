//! The query layer: what the tools ask of a generation beyond a row look-up. Decision filters
//! and search, identifiers (Aktenzeichen, ECLI, § citations, book names), text helpers,
//! snippets with highlights ([`snippets`]), the dates a text states ([`dating`]) and where a
//! cited decision lies on the coverage map ([`coverage`]). It imports only the store and the
//! contract.

pub mod analysis;
pub mod coverage;
pub mod dating;
pub mod decision_search;
pub mod dictionary_answers;
pub mod everyday;
pub mod expansion;
pub mod facts;
pub mod filters;
pub mod identifiers;
pub mod law_prior;
pub mod law_search;
pub mod passage_runs;
pub mod section_walk;
pub mod snippets;
pub mod synonyms;
pub mod text;
