//! The answer contract every layer shares: the envelope and the closed set of refusal codes
//! ([`answer`]), each tool's answer as a type that gives its output schema ([`answers`]), typed access to a tool's arguments with refusals that say what to send
//! ([`args`]), the running call's deadline ([`deadline`]), and an answer as JSON text, serialised once
//! ([`json_object`]).

pub mod answer;
pub mod answers;
pub mod args;
pub mod caller;
pub mod deadline;
pub mod json_object;
