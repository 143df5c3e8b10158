//! The transports: MCP ([`mcp`], both protocol eras on `/mcp`), REST ([`rest`], the same
//! tools as GET/POST routes with the same payloads) and HTTP ([`http`]: the route table, the
//! router and the server; [`http_guard`]: Host/Origin allow-lists, CORS, JSON-only `/mcp`,
//! JSON 404/405; [`http_server`]: the accept loop with a connection cap and timeouts). Only
//! this layer builds JSON-RPC and HTTP responses.

pub mod http;
pub mod http_access;
pub mod http_guard;
pub mod http_server;
pub mod mcp;
pub mod rest;
