//! Types shared by every stage of the pipeline and the server. Today: the closed sets
//! ([`closed_sets`]), each an enum with exactly one JSON / SQLite spelling per value, so a
//! status written by `resolve` or `index` and read by `serve` cannot drift apart, and the
//! tools' input schemas list exactly the values the code accepts.

pub mod closed_sets;

pub use closed_sets::*;
