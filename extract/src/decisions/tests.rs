//! Golden tests on real corpus records, the whole-corpus run and bad input.
