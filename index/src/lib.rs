//! Stage 4 of the pipeline: write an immutable generation from `work/`, verify it, publish it.
//!
//! - [`analysis`]: the German analyzer shared by indexing and querying;
//! - [`law_writer`]: the laws' part (`laws.sqlite` and the `laws/` index), shared when the laws are;
//! - [`laws_index`]: the tantivy schema of law sections;
//! - [`decisions_index`]: the tantivy schema of decision passages, and how passages are cut;
//! - [`earlier`]: the generation a build follows: stable decision ids, passages kept;
//! - [`decision_writer`]: decisions, file numbers and courts (with holdings) into a generation;
//! - [`citation_rows`]: a decision's citations as its body keeps them;
//! - [`store`]: the SQLite store (schema, writer, read-only pool);
//! - [`text_packs`]: decision bodies in content-addressed zstd packs, shared between generations;
//! - [`generation`]: build → verify → rename → `CURRENT`, [`generation::Generation::open_verified`], gc;
//! - [`verified_stamp`]: what a full verification saw of each file, so a server starts at once
//!   on an unchanged generation and re-hashes it in the background.

pub mod analysis;
pub mod bounded_merges;
pub mod citation_rows;
pub mod decision_writer;
pub mod decisions_index;
pub mod earlier;
pub mod generation;
pub mod law_writer;
pub mod laws_index;
pub mod store;
pub mod store_patch;
pub mod text_packs;
pub mod unheld_mentions;
pub mod verified_stamp;

pub use generation::{Generation, Manifest};
