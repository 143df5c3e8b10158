//! Tests of the citation scanner.
