//! Stage 5: the read-only MCP + REST server over the current generation.
//!
//! Layers, each using only the ones below it (checked by `tests/layering.rs`):
//! - [`transports`]: MCP (both eras on `/mcp`), REST and HTTP: the one route table, the
//!   router, the guards (Host/Origin, CORS, JSON-only), the accept loop with its limits;
//! - [`app`]: the configuration, [`run_tool`] (off the async workers, under the call
//!   deadline, within the response budget), the served generation and its hot swap, metrics;
//! - [`tools`]: the registry both transports dispatch through (name, description, input and
//!   output schema, refusal codes, sheddable lists) and one file per tool family;
//! - [`query`]: decision filters and search, statute search, identifiers, text helpers,
//!   snippets, dates a text states, coverage placement, fact counts;
//! - [`store`]: typed rows of `store.sqlite` (decisions, laws and sections, courts);
//! - [`contract`]: the answer envelope and refusal codes, typed arguments, the call deadline.
//!
//! Safety rails: request body limit (413), `Host` and `Origin` allow-lists (403), a timeout on
//! every tool call that also stops the call, bounded page sizes, a response budget, a
//! read-only store, and no panic reachable from input (tool calls run in `spawn_blocking`; a
//! panic there becomes an `internal_error` answer).

pub mod app;
pub mod contract;
pub mod query;
pub mod store;
pub mod tools;
pub mod transports;

pub use app::{App, Config, run_tool};
pub use transports::http::{REST_ROUTES, RestBinding, RestRoute, router, serve};
