//! The store layer: typed rows of a generation's `store.sqlite` (decisions, laws and sections,
//! courts, citation edges) and the look-ups that read them. It imports only the contract.

pub mod courts;
pub mod decisions;
pub mod laws;
