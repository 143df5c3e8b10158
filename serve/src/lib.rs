//! Stage 5: the read-only MCP + REST server over the current generation.
//!
//! - [`answer`]: the envelope and the closed set of refusal codes;
//! - [`args`]: typed tool arguments with clear refusals;
//! - [`budget`]: the response budget, rows shed from the end with `payload_truncated`;
//! - [`laws`]: the statute tools (one function per capability);
//! - [`decisions`]: the decision and court tools (one function per capability);
//! - [`citations`]: the citation graph and coverage tools;
//! - [`datapackage`]: `assemble_datapackage`, decisions and their edges under a response budget;
//! - [`statistics`]: `get_case_statistics`, counts under the filters of `search_decisions`;
//! - [`checker`]: the hallucination guard (`check_citations`, `validate_citation`);
//! - [`deadline`]: the running call's deadline, checked inside long loops;
//! - [`snippets`]: result snippets with highlights (cheap: stems only candidate words);
//! - [`tools`]: the registry both transports dispatch through;
//! - [`output_schema`]: each tool's `outputSchema` (data in `serve/schemas/`);
//! - [`mcp`] / [`rest`]: the two thin transports;
//! - [`http_guard`]: `Host`/`Origin` allow-lists, CORS, JSON-only `/mcp`, JSON 404/405;
//! - [`http_server`]: the accept loop with a connection cap and header/body/idle timeouts;
//! - [`swap`]: the served generation and its hot swap;
//! - [`metrics`]: the `/metrics` text.
//!
//! Safety rails: request body limit (413), `Host` and `Origin` allow-lists (403), a timeout on every tool
//! call, bounded page sizes, a read-only store, and no panic reachable from input (tool calls
//! run in `spawn_blocking`; a panic there becomes an `internal_error` answer).

pub mod app;
pub mod contract;
pub mod query;
pub mod store;
pub mod tools;
pub mod transports;

pub use app::{App, Config, run_tool};
pub use transports::http::{REST_ROUTES, RestBinding, RestRoute, router, serve};
