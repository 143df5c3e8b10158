//! The answer contract every layer shares: the envelope and the closed set of refusal codes
//! ([`answer`]), typed access to a tool's arguments with refusals that say what to send
//! ([`args`]), and the running call's deadline ([`deadline`]).

pub mod answer;
pub mod args;
pub mod deadline;
