//! MCP over Streamable HTTP, stateless, JSON responses only (no SSE), hand-written on axum.
//!
//! Why not `rmcp`: its server transport has no JSON-RPC batch handling (2025-03-26 allows
//! batches), answers an unsupported `MCP-Protocol-Version` its own way, and a tools-only,
//! stateless server is a small JSON-RPC dispatcher over the service layer we already have.
//!
//! Rules implemented (see `shared/notes/peers.md`):
//! - POST `/mcp`; notifications and client responses → 202 with no body; GET/DELETE → 405;
//! - protocol versions 2025-11-25, 2025-06-18, 2025-03-26; `MCP-Protocol-Version` checked on
//!   every request (unsupported → 400), absent → 2025-03-26;
//! - batches (JSON arrays) accepted only under 2025-03-26, otherwise refused with -32600;
//! - unknown methods (e.g. the 2026 `server/discover` probe) → -32601 at once;
//! - tool failures are results with `isError: true` carrying `error_code`, `message`,
//!   `retryable`, `hint`; malformed calls and unknown tools are JSON-RPC -32602.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use crate::App;
use crate::tools::{self, TOOLS};

pub const SUPPORTED_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];
pub const LATEST_VERSION: &str = "2025-11-25";
/// What a request without `MCP-Protocol-Version` is taken to speak (spec: SHOULD assume 2025-03-26).
pub const DEFAULT_VERSION: &str = "2025-03-26";

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

fn rpc_error(id: Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut err = json!({"code": code, "message": message});
    if let Some(d) = data {
        err["data"] = d;
    }
    json!({"jsonrpc": "2.0", "id": id, "error": err})
}

fn rpc_result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn json_response(status: StatusCode, v: &Value) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], v.to_string()).into_response()
}

/// GET / DELETE on the endpoint: no SSE stream, no sessions.
pub async fn method_not_allowed() -> Response {
    (StatusCode::METHOD_NOT_ALLOWED, [(header::ALLOW, "POST")], "").into_response()
}

pub async fn post(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    let parsed: Result<Value, _> = serde_json::from_slice(&body);
    let version = match headers.get("mcp-protocol-version").map(|v| v.to_str().unwrap_or("").trim().to_string()) {
        Some(v) if SUPPORTED_VERSIONS.contains(&v.as_str()) => v,
        Some(v) => {
            app.metrics.refuse("mcp", "unsupported_protocol_version");
            let id = parsed.as_ref().ok().and_then(|m| m.get("id").cloned()).unwrap_or(Value::Null);
            return json_response(
                StatusCode::BAD_REQUEST,
                &rpc_error(
                    id,
                    INVALID_REQUEST,
                    &format!("Unsupported MCP-Protocol-Version {v:?}"),
                    Some(json!({"supported": SUPPORTED_VERSIONS})),
                ),
            );
        }
        None => DEFAULT_VERSION.to_string(),
    };
    let msg = match parsed {
        Ok(v) => v,
        Err(e) => {
            app.metrics.refuse("mcp", "parse_error");
            return json_response(
                StatusCode::BAD_REQUEST,
                &rpc_error(Value::Null, PARSE_ERROR, &format!("Parse error: {e}"), None),
            );
        }
    };
    match msg {
        Value::Array(items) => {
            if version != "2025-03-26" {
                app.metrics.refuse("mcp", "batch_refused");
                return json_response(
                    StatusCode::BAD_REQUEST,
                    &rpc_error(
                        Value::Null,
                        INVALID_REQUEST,
                        &format!(
                            "JSON-RPC batches are not allowed in protocol version {version}; send one message per request"
                        ),
                        None,
                    ),
                );
            }
            if items.is_empty() {
                return json_response(
                    StatusCode::BAD_REQUEST,
                    &rpc_error(Value::Null, INVALID_REQUEST, "Empty batch", None),
                );
            }
            let mut out = Vec::new();
            for item in items {
                if let Some(r) = handle_message(&app, item, &version).await {
                    out.push(r);
                }
            }
            if out.is_empty() {
                StatusCode::ACCEPTED.into_response()
            } else {
                json_response(StatusCode::OK, &Value::Array(out))
            }
        }
        single => match handle_message(&app, single, &version).await {
            Some(r) => json_response(StatusCode::OK, &r),
            None => StatusCode::ACCEPTED.into_response(),
        },
    }
}

/// One JSON-RPC message → its response, or None for notifications and client responses.
async fn handle_message(app: &Arc<App>, msg: Value, version: &str) -> Option<Value> {
    let Value::Object(obj) = msg else {
        return Some(rpc_error(Value::Null, INVALID_REQUEST, "A JSON-RPC message must be an object", None));
    };
    let id = obj.get("id").cloned();
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Some(rpc_error(id.unwrap_or(Value::Null), INVALID_REQUEST, "jsonrpc must be \"2.0\"", None));
    }
    let Some(method) = obj.get("method") else {
        // A response from the client (to a request we never send) or garbage.
        if obj.contains_key("result") || obj.contains_key("error") {
            return None;
        }
        return Some(rpc_error(id.unwrap_or(Value::Null), INVALID_REQUEST, "Missing method", None));
    };
    let Some(method) = method.as_str() else {
        return Some(rpc_error(id.unwrap_or(Value::Null), INVALID_REQUEST, "method must be a string", None));
    };
    let id = match id {
        None => return None, // notification (initialized, cancelled, …)
        Some(v @ (Value::String(_) | Value::Number(_))) => v,
        Some(_) => return Some(rpc_error(Value::Null, INVALID_REQUEST, "id must be a string or a number", None)),
    };
    let params = obj.get("params").cloned().unwrap_or(Value::Null);
    Some(match method {
        "initialize" => {
            let asked = params.get("protocolVersion").and_then(Value::as_str).unwrap_or(LATEST_VERSION);
            let chosen = if SUPPORTED_VERSIONS.contains(&asked) { asked } else { LATEST_VERSION };
            rpc_result(
                id,
                json!({
                    "protocolVersion": chosen,
                    "capabilities": {"tools": {"listChanged": false}},
                    "serverInfo": {"name": "legal-data", "title": "German legal data (statutes)", "version": env!("CARGO_PKG_VERSION")},
                    "instructions": "Read-only German federal statutes. Search with search_laws, read with get_law_section / get_law, browse with list_law_books. Answers carry api_version and the generation they came from; a null field means not recorded, never zero. Texts are verbatim; never truncated without saying so (offset/length snippets).",
                }),
            )
        }
        "ping" => rpc_result(id, json!({})),
        "tools/list" => tools_list(app, id, &params),
        "tools/call" => tools_call(app, id, &params, version).await,
        _ => rpc_error(id, METHOD_NOT_FOUND, &format!("Method not found: {method}"), None),
    })
}

fn tools_list(app: &Arc<App>, id: Value, params: &Value) -> Value {
    let start = match params.get("cursor") {
        None | Some(Value::Null) => 0,
        Some(Value::String(c)) => match c.strip_prefix('p').and_then(|n| n.parse::<usize>().ok()) {
            Some(n) if n < TOOLS.len() => n,
            _ => return rpc_error(id, INVALID_PARAMS, "Invalid cursor", None),
        },
        Some(_) => return rpc_error(id, INVALID_PARAMS, "Invalid cursor", None),
    };
    let page = app.config.tools_page_size.max(1);
    let end = (start + page).min(TOOLS.len());
    let list: Vec<Value> = TOOLS[start..end].iter().map(|t| t.descriptor()).collect();
    let mut result = json!({"tools": list});
    if end < TOOLS.len() {
        result["nextCursor"] = json!(format!("p{end}"));
    }
    rpc_result(id, result)
}

async fn tools_call(app: &Arc<App>, id: Value, params: &Value, _version: &str) -> Value {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return rpc_error(id, INVALID_PARAMS, "tools/call needs params.name (a string)", None);
    };
    let Some(tool) = tools::find(name) else {
        return rpc_error(
            id,
            INVALID_PARAMS,
            &format!("Unknown tool: {name}"),
            Some(json!({"tools": TOOLS.iter().map(|t| t.name).collect::<Vec<_>>()})),
        );
    };
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return rpc_error(id, INVALID_PARAMS, "params.arguments must be an object", None),
    };
    let answer = crate::run_tool(app, tool, arguments, "mcp").await;
    let body = Value::Object(answer.body);
    rpc_result(
        id,
        json!({
            "content": [{"type": "text", "text": body.to_string()}],
            "structuredContent": body,
            "isError": answer.error.is_some(),
        }),
    )
}
