//! MCP over Streamable HTTP, stateless, JSON responses only (no SSE), hand-written on axum.
//! One endpoint serves both protocol eras (see `shared/notes/peers.md` and the 2026-07-28
//! spec's "Backward Compatibility"):
//!
//! - **modern** (2026-07-28): a request whose `MCP-Protocol-Version` header is a modern
//!   version, or whose `params._meta` carries `io.modelcontextprotocol/protocolVersion`. No
//!   `initialize`, no `ping`; every request is checked by [`validate_modern`] (envelope in
//!   `_meta`, header/body agreement → -32020, version → -32022), unknown methods are
//!   404 + -32601, results carry `resultType`, and `server/discover` / `tools/list` carry the
//!   caching hints `ttlMs` / `cacheScope`;
//! - **legacy** (2025-11-25, 2025-06-18, 2025-03-26): `initialize` handshake; the header is
//!   checked on every request (unsupported → 400), absent → 2025-03-26; batches (JSON arrays)
//!   only under 2025-03-26.
//!
//! Both eras: notifications and client responses → 202 with no body; GET/DELETE → 405; tool
//! failures are results with `isError: true` carrying `error_code`, `message`, `retryable`,
//! `hint`; malformed calls and unknown tools are JSON-RPC -32602. Request ids are echoed
//! byte for byte (a [`RawValue`]), so `18446744073709551617` comes back as sent.
//!
//! Why not `rmcp`: its server transport has no JSON-RPC batch handling (2025-03-26 allows
//! batches), answers an unsupported `MCP-Protocol-Version` its own way, and a tools-only,
//! stateless server is a small JSON-RPC dispatcher over the service layer we already have.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::app::{App, CALLER};
use crate::contract::json_object::JsonObject;
use crate::tools::{self, TOOLS};
use crate::transports::http_access::{self, Challenge};

/// Modern (stateless, per-request `_meta`) protocol versions.
pub const MODERN_VERSIONS: &[&str] = &["2026-07-28"];
/// Legacy (`initialize` handshake) protocol versions.
pub const LEGACY_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];
/// Every version this server speaks, newest first (the `supported` list of refusals).
pub const SUPPORTED_VERSIONS: &[&str] = &["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"];
/// What `initialize` offers when the client asks for a version we do not speak.
pub const LATEST_LEGACY_VERSION: &str = "2025-11-25";
/// What a request without `MCP-Protocol-Version` is taken to speak (spec: MAY assume 2025-03-26).
pub const DEFAULT_VERSION: &str = "2025-03-26";

const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// How long a client may keep `tools/list` and `server/discover` results: the tool set and
/// its schemas are fixed by the server binary (a new generation changes data, never tools),
/// so the hint is long; a restart with a new binary is what can change them.
const TOOLS_TTL_MS: u64 = 3_600_000;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const INTERNAL_ERROR: i64 = -32603;
const HEADER_MISMATCH: i64 = -32020;
const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// Most messages in one JSON-RPC batch (2025-03-26 only); a larger batch is refused whole.
pub const MAX_BATCH_MESSAGES: usize = 32;
/// JSON-RPC error (implementation range) of a batch request not run because the batch's
/// response budget or deadline was spent; retryable alone.
const BUDGET_EXHAUSTED: i64 = -32001;

const SERVER_NAME: &str = "legal-data";
const SERVER_TITLE: &str = "German legal data: federal statutes, court decisions, citation graph, citation check";
const INSTRUCTIONS: &str = "Read-only German legal data, served from one immutable generation (every answer names it). \
Statutes (all federal laws of gesetze-im-internet.de): search_laws, get_law_section, get_law, list_law_books. \
Decisions: search_decisions, get_decision, filter_cases, get_similar_cases, cross_type_search (laws and decisions at once); \
courts and facets: list_courts, get_court, list_facets. \
Citation graph and coverage: get_case_references, get_citing_cases, get_citation_graph, get_cases_for_law, corpus_coverage. \
Citation check (hallucination guard): check_citations for a pasted text, validate_citation for one citation; \
verified_corpus is given only for what the corpus holds and matches, not_found only inside windows measured exhaustive. \
Research bundles and counts: assemble_datapackage, get_case_statistics; get_platform_info says what is held; whoami who the caller is and how much of its request budget is left. \
A null field means not recorded, never zero; texts are verbatim and never cut without saying so (offset/length, has_more, next_offset). \
Refusals carry error_code, message, retryable and hint.";

/// A JSON-RPC error object.
struct RpcError {
    code: i64,
    message: String,
    data: Option<Value>,
}

impl RpcError {
    fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError { code, message: message.into(), data: None }
    }
    fn with_data(mut self, data: Value) -> RpcError {
        self.data = Some(data);
        self
    }
}

/// One JSON-RPC response, with the request's id exactly as it was sent.
struct Reply {
    id: Option<Box<RawValue>>,
    /// The result as JSON text: a tool's answer is embedded as it was serialised ([`as_result`] for
    /// a tree built here).
    outcome: Result<Box<RawValue>, RpcError>,
}

/// A result built here as JSON text.
fn as_result(result: &Value) -> Box<RawValue> {
    serde_json::value::to_raw_value(result).expect("a JSON value serialises")
}

impl Reply {
    fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct ErrorBody<'a> {
            code: i64,
            message: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            data: Option<&'a Value>,
        }
        #[derive(Serialize)]
        struct Out<'a> {
            jsonrpc: &'static str,
            id: &'a RawValue,
            #[serde(skip_serializing_if = "Option::is_none")]
            result: Option<&'a RawValue>,
            #[serde(skip_serializing_if = "Option::is_none")]
            error: Option<ErrorBody<'a>>,
        }
        let null = RawValue::from_string("null".to_string()).expect("null is JSON");
        let id = self.id.as_deref().unwrap_or(&null);
        let out = match &self.outcome {
            Ok(result) => Out { jsonrpc: "2.0", id, result: Some(&**result), error: None },
            Err(e) => Out {
                jsonrpc: "2.0",
                id,
                result: None,
                error: Some(ErrorBody { code: e.code, message: &e.message, data: e.data.as_ref() }),
            },
        };
        serde_json::to_string(&out).expect("a reply serialises")
    }
}

fn json_response(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn reply_response(status: StatusCode, reply: &Reply) -> Response {
    json_response(status, reply.to_json())
}

/// A reply that may carry a large tool answer, serialised on a blocking thread.
async fn render_off_thread(reply: Reply) -> String {
    tokio::task::spawn_blocking(move || reply.to_json()).await.unwrap_or_else(|e| {
        Reply { id: None, outcome: Err(RpcError::new(INTERNAL_ERROR, format!("serialising the reply failed: {e}"))) }
            .to_json()
    })
}

/// GET / DELETE on the endpoint: no SSE stream, no sessions.
pub async fn method_not_allowed() -> Response {
    (StatusCode::METHOD_NOT_ALLOWED, [(header::ALLOW, "POST")], "").into_response()
}

/// The request's id as sent (`None` when absent, i.e. a notification), and whether it is of
/// a type JSON-RPC allows (string or number; `null` and others are refused).
fn raw_id(message: &RawValue) -> (Option<Box<RawValue>>, bool) {
    #[derive(serde::Deserialize)]
    struct IdOnly {
        id: Option<Box<RawValue>>,
    }
    let Ok(IdOnly { id }) = serde_json::from_str::<IdOnly>(message.get()) else { return (None, false) };
    let valid = id.as_ref().is_some_and(|r| {
        let t = r.get();
        t.starts_with('"') || t.starts_with('-') || t.starts_with(|c: char| c.is_ascii_digit())
    });
    (id, valid)
}

/// One header's single value; `Err` when it is sent more than once (with different values)
/// or is not visible ASCII.
fn single_header<'h>(headers: &'h HeaderMap, name: &str) -> Result<Option<&'h str>, String> {
    let mut values = headers.get_all(name).iter();
    let Some(first) = values.next() else { return Ok(None) };
    let first = first.to_str().map_err(|_| format!("{name} is not visible ASCII"))?.trim();
    for v in values {
        if v.to_str().ok().map(str::trim) != Some(first) {
            return Err(format!("{name} was sent more than once with different values"));
        }
    }
    Ok(Some(first))
}

/// Decodes the `=?base64?…?=` sentinel form of an `Mcp-Name` value (plain values pass as they are).
fn decode_header_value(v: &str) -> Option<String> {
    match v.strip_prefix("=?base64?").and_then(|r| r.strip_suffix("?=")) {
        Some(b64) => {
            base64::engine::general_purpose::STANDARD.decode(b64).ok().and_then(|bytes| String::from_utf8(bytes).ok())
        }
        None => Some(v.to_string()),
    }
}

/// Which era a message speaks: modern when the header names a modern version or the body
/// carries the modern `_meta` envelope.
fn is_modern(header_version: Option<&str>, message: &Value) -> bool {
    header_version.is_some_and(|v| MODERN_VERSIONS.contains(&v))
        || message.get("params").and_then(|p| p.get("_meta")).and_then(|m| m.get(META_PROTOCOL_VERSION)).is_some()
}

pub async fn post(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    let raw: Box<RawValue> = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => {
            app.metrics.refuse("mcp", "parse_error");
            let reply = Reply { id: None, outcome: Err(RpcError::new(PARSE_ERROR, format!("Parse error: {e}"))) };
            return reply_response(StatusCode::BAD_REQUEST, &reply);
        }
    };
    let header_version = match single_header(&headers, "mcp-protocol-version") {
        Ok(v) => v.map(str::to_string),
        Err(why) => {
            app.metrics.refuse("mcp", "header_mismatch");
            let reply = Reply { id: raw_id(&raw).0, outcome: Err(RpcError::new(HEADER_MISMATCH, why)) };
            return reply_response(StatusCode::BAD_REQUEST, &reply);
        }
    };
    if raw.get().trim_start().starts_with('[') {
        return post_batch(&app, &raw, header_version.as_deref()).await;
    }
    let message: Value = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
    if let Some(response) = scope_challenge(&app, &raw, &message) {
        return response;
    }
    if is_modern(header_version.as_deref(), &message) {
        return post_modern(&app, &headers, &raw, message, header_version.as_deref()).await;
    }
    // A legacy request names a legacy version, or none (then [`DEFAULT_VERSION`] is meant).
    if let Some(v) = header_version.filter(|v| !LEGACY_VERSIONS.contains(&v.as_str())) {
        app.metrics.refuse("mcp", "unsupported_protocol_version");
        return reply_response(StatusCode::BAD_REQUEST, &unsupported_version(raw_id(&raw).0, &v));
    }
    match handle_legacy(&app, &raw, message).await {
        Some(reply) => json_response(StatusCode::OK, render_off_thread(reply).await),
        None => StatusCode::ACCEPTED.into_response(),
    }
}

/// With an OAuth issuer, a single `tools/call` its caller may not make is answered with an HTTP
/// challenge (401 for a missing token, 403 `insufficient_scope` for a missing scope; the header
/// is added by the access layer), so an OAuth client can authorize or step up (MCP
/// authorization, scope challenge). The body is the JSON-RPC error -32000 with the refusal.
/// Without an issuer, and inside a batch, the refusal stays a tool result (`isError`).
fn scope_challenge(app: &App, raw: &RawValue, message: &Value) -> Option<Response> {
    app.access.oauth()?;
    if message.get("method").and_then(Value::as_str) != Some("tools/call") {
        return None;
    }
    let tool = tools::find(message.get("params")?.get("name")?.as_str()?)?;
    let caller = CALLER.try_with(Clone::clone).ok()?;
    let e = crate::app::permit(app, Some(&caller), tool).err()?;
    let status = StatusCode::from_u16(e.code.http_status()).unwrap_or(StatusCode::FORBIDDEN);
    let challenge = Challenge::of_refusal(e.code, tool.ability);
    let error = RpcError::new(http_access::ACCESS_REFUSED, e.message.clone()).with_data(http_access::refusal_data(&e));
    let mut response = reply_response(status, &Reply { id: raw_id(raw).0, outcome: Err(error) });
    if let Some(c) = challenge {
        response.extensions_mut().insert(c);
    }
    Some(response)
}

fn unsupported_version_error(requested: &str) -> RpcError {
    RpcError::new(
        UNSUPPORTED_PROTOCOL_VERSION,
        format!("Unsupported protocol version {requested:?}; send one of {}", SUPPORTED_VERSIONS.join(", ")),
    )
    .with_data(json!({"supported": SUPPORTED_VERSIONS, "requested": requested}))
}

fn unsupported_version(id: Option<Box<RawValue>>, requested: &str) -> Reply {
    Reply { id, outcome: Err(unsupported_version_error(requested)) }
}

/// A JSON array: allowed only under 2025-03-26 (the one revision with batches).
async fn post_batch(app: &Arc<App>, raw: &RawValue, header_version: Option<&str>) -> Response {
    let version = header_version.unwrap_or(DEFAULT_VERSION);
    if version != "2025-03-26" {
        app.metrics.refuse("mcp", "batch_refused");
        let reply = Reply {
            id: None,
            outcome: Err(RpcError::new(
                INVALID_REQUEST,
                format!("JSON-RPC batches are not allowed in protocol version {version}; send one message per request"),
            )),
        };
        return reply_response(StatusCode::BAD_REQUEST, &reply);
    }
    let items: Vec<Box<RawValue>> = serde_json::from_str(raw.get()).unwrap_or_default();
    if items.is_empty() {
        let reply = Reply { id: None, outcome: Err(RpcError::new(INVALID_REQUEST, "Empty batch")) };
        return reply_response(StatusCode::BAD_REQUEST, &reply);
    }
    if items.len() > MAX_BATCH_MESSAGES {
        app.metrics.refuse("mcp", "batch_too_large");
        let reply = Reply {
            id: None,
            outcome: Err(RpcError::new(
                INVALID_REQUEST,
                format!("a batch of {} messages exceeds the cap of {MAX_BATCH_MESSAGES}", items.len()),
            )
            .with_data(json!({"max_batch_messages": MAX_BATCH_MESSAGES}))),
        };
        return reply_response(StatusCode::BAD_REQUEST, &reply);
    }
    // One deadline and one response budget for the whole batch: a batch costs at most what
    // one call may cost, however many requests it carries.
    let deadline = tokio::time::Instant::now() + app.config.tool_timeout;
    let mut out: Vec<String> = Vec::new();
    let mut spent = 0usize;
    for item in &items {
        let budget = app.config.max_batch_response_bytes;
        let exhausted = if spent >= budget {
            Some(format!("the batch's response budget of {budget} bytes is spent"))
        } else if tokio::time::Instant::now() >= deadline {
            Some(format!("the batch's time budget of {} ms is spent", app.config.tool_timeout.as_millis()))
        } else {
            None
        };
        let reply = match exhausted {
            None => {
                let message: Value = serde_json::from_str(item.get()).unwrap_or(Value::Null);
                crate::app::REQUEST_DEADLINE.scope(deadline.into_std(), handle_legacy(app, item, message)).await
            }
            Some(why) => match raw_id(item) {
                (Some(id), true) => {
                    app.metrics.refuse("mcp", "batch_budget_exhausted");
                    Some(Reply {
                        id: Some(id),
                        outcome: Err(RpcError::new(BUDGET_EXHAUSTED, format!("not run: {why}")).with_data(
                            json!({"retryable": true, "hint": "Send this request alone or in a smaller batch."}),
                        )),
                    })
                }
                _ => None,
            },
        };
        if let Some(reply) = reply {
            let text = render_off_thread(reply).await;
            spent += text.len();
            out.push(text);
        }
    }
    if out.is_empty() {
        StatusCode::ACCEPTED.into_response()
    } else {
        json_response(StatusCode::OK, format!("[{}]", out.join(",")))
    }
}

/// What a JSON-RPC message is, after the checks both eras share.
enum Parsed {
    /// A request: id, method, params.
    Request(Box<RawValue>, String, Value),
    /// A notification or a client response: nothing to answer.
    NoReply,
    /// Not a valid message: answer this.
    Invalid(Reply),
}

fn parse_message(raw: &RawValue, message: Value) -> Parsed {
    let (id, id_valid) = raw_id(raw);
    let invalid = |id: Option<Box<RawValue>>, why: &str| {
        Parsed::Invalid(Reply { id, outcome: Err(RpcError::new(INVALID_REQUEST, why)) })
    };
    let Value::Object(mut obj) = message else { return invalid(None, "A JSON-RPC message must be an object") };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid(id, "jsonrpc must be \"2.0\"");
    }
    let Some(method) = obj.get("method") else {
        // A response from the client (to a request we never send) or garbage.
        if obj.contains_key("result") || obj.contains_key("error") {
            return Parsed::NoReply;
        }
        return invalid(id, "Missing method");
    };
    let Some(method) = method.as_str().map(str::to_string) else { return invalid(id, "method must be a string") };
    let Some(id) = id else { return Parsed::NoReply }; // notification (initialized, cancelled, …)
    if !id_valid {
        return invalid(None, "id must be a string or a number");
    }
    let params = obj.remove("params").unwrap_or(Value::Null);
    Parsed::Request(id, method, params)
}

async fn handle_legacy(app: &Arc<App>, raw: &RawValue, message: Value) -> Option<Reply> {
    let (id, method, params) = match parse_message(raw, message) {
        Parsed::Request(id, method, params) => (id, method, params),
        Parsed::NoReply => return None,
        Parsed::Invalid(reply) => return Some(reply),
    };
    let outcome = match method.as_str() {
        "initialize" => {
            let asked = params.get("protocolVersion").and_then(Value::as_str).unwrap_or(LATEST_LEGACY_VERSION);
            let chosen = if LEGACY_VERSIONS.contains(&asked) { asked } else { LATEST_LEGACY_VERSION };
            Ok(as_result(&json!({
                "protocolVersion": chosen,
                "capabilities": {"tools": {"listChanged": false}},
                "serverInfo": server_info(),
                "instructions": INSTRUCTIONS,
            })))
        }
        "ping" => Ok(as_result(&json!({}))),
        "tools/list" => tools_list(app, &params).map(|r| as_result(&r)),
        "tools/call" => tools_call(app, &params, Era::Legacy).await,
        _ => Err(RpcError::new(METHOD_NOT_FOUND, format!("Method not found: {method}"))),
    };
    Some(Reply { id: Some(id), outcome })
}

fn server_info() -> Value {
    json!({"name": SERVER_NAME, "title": SERVER_TITLE, "version": env!("CARGO_PKG_VERSION")})
}

/// The 2026-07-28 validation ladder, first failure wins: the `_meta` envelope (-32602), the
/// headers against the body (-32020), then the version (-32022). Returns the version.
fn validate_modern(headers: &HeaderMap, method: &str, params: &Value) -> Result<String, (StatusCode, RpcError)> {
    let bad = |code, why: String| (StatusCode::BAD_REQUEST, RpcError::new(code, why));
    let Some(meta) = params.get("_meta").and_then(Value::as_object) else {
        return Err(bad(
            INVALID_PARAMS,
            format!(
                "params._meta must be an object carrying {META_PROTOCOL_VERSION:?} and {META_CLIENT_CAPABILITIES:?}"
            ),
        ));
    };
    let missing: Vec<&str> =
        [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES].into_iter().filter(|k| !meta.contains_key(*k)).collect();
    if !missing.is_empty() {
        return Err(bad(INVALID_PARAMS, format!("params._meta is missing {}", missing.join(", "))));
    }
    let body_version = meta.get(META_PROTOCOL_VERSION).and_then(Value::as_str);
    let header = |name: &str| single_header(headers, name).map_err(|why| bad(HEADER_MISMATCH, why));
    let header_version = header("mcp-protocol-version")?;
    if header_version.is_none() || header_version != body_version {
        return Err(bad(
            HEADER_MISMATCH,
            format!(
                "MCP-Protocol-Version header {header_version:?} does not match params._meta {META_PROTOCOL_VERSION} {body_version:?}"
            ),
        ));
    }
    let method_header = header("mcp-method")?;
    if method_header != Some(method) {
        return Err(bad(
            HEADER_MISMATCH,
            format!("Mcp-Method header {method_header:?} does not match the body's method {method:?}"),
        ));
    }
    if method == "tools/call"
        && let Some(name) = params.get("name").and_then(Value::as_str)
    {
        let sent = header("mcp-name")?;
        if sent.and_then(decode_header_value).as_deref() != Some(name) {
            return Err(bad(
                HEADER_MISMATCH,
                format!("Mcp-Name header {sent:?} does not match the body's tool name {name:?}"),
            ));
        }
    }
    let Some(version) = body_version else {
        return Err(bad(INVALID_PARAMS, format!("{META_PROTOCOL_VERSION} must be a string")));
    };
    if !MODERN_VERSIONS.contains(&version) {
        return Err((StatusCode::BAD_REQUEST, unsupported_version_error(version)));
    }
    Ok(version.to_string())
}

async fn post_modern(
    app: &Arc<App>,
    headers: &HeaderMap,
    raw: &RawValue,
    message: Value,
    header_version: Option<&str>,
) -> Response {
    let (id, method, params) = match parse_message(raw, message) {
        Parsed::Request(id, method, params) => (id, method, params),
        Parsed::NoReply => return StatusCode::ACCEPTED.into_response(),
        Parsed::Invalid(reply) => return reply_response(StatusCode::BAD_REQUEST, &reply),
    };
    // A modern header with a legacy body (no `_meta`) still goes through the ladder, so the
    // client learns what is missing; an unknown modern-looking header version is -32022.
    if let Some(v) = header_version
        && !SUPPORTED_VERSIONS.contains(&v)
    {
        app.metrics.refuse("mcp", "unsupported_protocol_version");
        return reply_response(StatusCode::BAD_REQUEST, &unsupported_version(Some(id), v));
    }
    let version = match validate_modern(headers, &method, &params) {
        Ok(v) => v,
        Err((status, error)) => {
            let reason = if error.code == HEADER_MISMATCH { "header_mismatch" } else { "invalid_modern_request" };
            app.metrics.refuse("mcp", reason);
            return reply_response(status, &Reply { id: Some(id), outcome: Err(error) });
        }
    };
    // Every modern result says it is complete (`resultType`).
    let complete = |mut r: Value| {
        r["resultType"] = json!("complete");
        as_result(&r)
    };
    let outcome = match method.as_str() {
        "server/discover" => Ok(complete(discover_result(app))),
        "tools/list" => tools_list(app, &params).map(|mut r| {
            r["ttlMs"] = json!(TOOLS_TTL_MS);
            r["cacheScope"] = json!("public");
            complete(r)
        }),
        "tools/call" => tools_call(app, &params, Era::Modern).await,
        _ => {
            app.metrics.refuse("mcp", "method_not_found");
            let error = RpcError::new(METHOD_NOT_FOUND, format!("Method not found: {method} (protocol {version})"));
            return reply_response(StatusCode::NOT_FOUND, &Reply { id: Some(id), outcome: Err(error) });
        }
    };
    json_response(StatusCode::OK, render_off_thread(Reply { id: Some(id), outcome }).await)
}

fn discover_result(app: &Arc<App>) -> Value {
    let mut meta = json!({ META_SERVER_INFO: server_info() });
    if let Some(g) = app.slot.get() {
        meta["io.github.legal-data/generation"] = json!(g.id);
    }
    json!({
        "supportedVersions": SUPPORTED_VERSIONS,
        "capabilities": {"tools": {}},
        "_meta": meta,
        "instructions": INSTRUCTIONS,
        "ttlMs": TOOLS_TTL_MS,
        "cacheScope": "public",
    })
}

fn tools_list(app: &Arc<App>, params: &Value) -> Result<Value, RpcError> {
    let start = match params.get("cursor") {
        None | Some(Value::Null) => 0,
        Some(Value::String(c)) => match c.strip_prefix('p').and_then(|n| n.parse::<usize>().ok()) {
            Some(n) if n < TOOLS.len() => n,
            _ => return Err(RpcError::new(INVALID_PARAMS, "Invalid cursor")),
        },
        Some(_) => return Err(RpcError::new(INVALID_PARAMS, "Invalid cursor")),
    };
    let page = app.config.tools_page_size.max(1);
    let end = (start + page).min(TOOLS.len());
    let list: Vec<Value> = tools::descriptors()[start..end].to_vec();
    let mut result = json!({"tools": list});
    if end < TOOLS.len() {
        result["nextCursor"] = json!(format!("p{end}"));
    }
    Ok(result)
}

/// The protocol era a request came in (a modern result says `resultType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Era {
    Legacy,
    Modern,
}

async fn tools_call(app: &Arc<App>, params: &Value, era: Era) -> Result<Box<RawValue>, RpcError> {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Err(RpcError::new(INVALID_PARAMS, "tools/call needs params.name (a string)"));
    };
    let Some(tool) = tools::find(name) else {
        return Err(RpcError::new(INVALID_PARAMS, format!("Unknown tool: {name}"))
            .with_data(json!({"tools": TOOLS.iter().map(|t| t.name).collect::<Vec<_>>()})));
    };
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return Err(RpcError::new(INVALID_PARAMS, "params.arguments must be an object")),
    };
    let answer = crate::app::run_tool(app, tool, arguments, "mcp").await;
    // Serialising a large answer (a whole law, a data package) is CPU work: off the async
    // workers, like the call itself.
    let result = tokio::task::spawn_blocking(move || call_result(&answer.body, answer.error.is_some(), era)).await;
    result.map_err(|e| RpcError::new(INTERNAL_ERROR, format!("serialising the answer failed: {e}")))
}

/// A `tools/call` result: the answer as text content and as `structuredContent`, both from the
/// one serialisation of the answer (the text is that JSON as a string), keys in the order a
/// tree would give them.
fn call_result(body: &JsonObject, is_error: bool, era: Era) -> Box<RawValue> {
    let text = serde_json::to_string(body.as_str()).expect("a string serialises");
    let mut out = String::with_capacity(text.len() + body.len() + 96);
    out.push_str(r#"{"content":[{"type":"text","text":"#);
    out.push_str(&text);
    out.push_str(r#"}],"structuredContent":"#);
    out.push_str(body.as_str());
    out.push_str(if is_error { r#","isError":true"# } else { r#","isError":false"# });
    if era == Era::Modern {
        out.push_str(r#","resultType":"complete""#);
    }
    out.push('}');
    RawValue::from_string(out).expect("a tools/call result is JSON")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_supported_versions_are_the_modern_then_the_legacy_ones() {
        let both: Vec<&str> = MODERN_VERSIONS.iter().chain(LEGACY_VERSIONS).copied().collect();
        assert_eq!(SUPPORTED_VERSIONS, both.as_slice());
        assert!(LEGACY_VERSIONS.contains(&LATEST_LEGACY_VERSION) && LEGACY_VERSIONS.contains(&DEFAULT_VERSION));
    }

    #[test]
    fn instructions_name_every_tool() {
        for t in TOOLS {
            assert!(INSTRUCTIONS.contains(t.name), "instructions do not name {}", t.name);
        }
    }

    #[test]
    fn ids_are_echoed_byte_for_byte() {
        let raw: Box<RawValue> =
            serde_json::from_str(r#"{"jsonrpc":"2.0","id":18446744073709551617,"method":"ping"}"#).unwrap();
        let (id, valid) = raw_id(&raw);
        assert!(valid);
        let reply = Reply { id, outcome: Ok(as_result(&json!({}))) };
        assert_eq!(reply.to_json(), r#"{"jsonrpc":"2.0","id":18446744073709551617,"result":{}}"#);
        for (text, ok) in
            [(r#"{"id":"a"}"#, true), (r#"{"id":-1.5e3}"#, true), (r#"{"id":null}"#, false), (r#"{"id":[1]}"#, false)]
        {
            let raw: Box<RawValue> = serde_json::from_str(text).unwrap();
            assert_eq!(raw_id(&raw).1, ok, "{text}");
        }
    }

    #[test]
    fn base64_sentinel_names_decode() {
        assert_eq!(decode_header_value("search_laws").as_deref(), Some("search_laws"));
        assert_eq!(decode_header_value("=?base64?SGVsbG8sIOS4lueVjA==?=").as_deref(), Some("Hello, 世界"));
        assert_eq!(decode_header_value("=?base64?not base64?="), None);
    }
}
