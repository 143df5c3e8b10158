//! REST transport: the same tools and payloads as MCP, under `/api/…`, with an OpenAPI
//! description at `/api/openapi.json`. A refusal is the same payload with an HTTP status
//! from its `error_code` (400, 404, 409, 503, 504, 500).

use std::collections::HashMap;
use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use crate::app::App;
use crate::contract::json_object::JsonObject;
use crate::tools::{self, TOOLS};
use crate::transports::http_access::Challenge;

fn respond(answer: tools::Answer) -> Response {
    let status = answer.error.map(|c| c.http_status()).unwrap_or(200);
    // A refusal for want of a token or an ability asks for one (`WWW-Authenticate`, added by
    // the access layer).
    let challenge = answer.error.and_then(|code| Challenge::of_refusal(code, answer.required_ability));
    let mut response =
        json_body(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR), answer.body);
    if let Some(c) = challenge {
        response.extensions_mut().insert(c);
    }
    response
}

/// A refusal before any tool ran (bad body, unknown tool): the envelope without a generation.
fn refuse(status: StatusCode, e: crate::contract::answer::ToolError) -> Response {
    json_body(status, crate::contract::answer::with_envelope(JsonObject::from_map(&e.payload()), None, &[]))
}

/// An answer sent as it was serialised, as `application/json`.
pub fn json_body(status: StatusCode, body: JsonObject) -> Response {
    (status, [(axum::http::header::CONTENT_TYPE, "application/json")], body.into_string()).into_response()
}

/// The query string as tool arguments. A parameter sent more than once becomes an array of
/// its values: list arguments (`ids=a&ids=b`) take it, and a single-valued argument refuses
/// it by name (`argument `limit` must be …`), so no value is silently dropped. `q` is the
/// short name of `query`; both at once are two values of one argument.
fn args_from_query(q: Vec<(String, String)>) -> Map<String, Value> {
    let mut args = Map::new();
    for (k, v) in q {
        let k = if k == "q" { "query".to_string() } else { k };
        match args.get_mut(&k) {
            None => {
                args.insert(k, Value::String(v));
            }
            Some(Value::Array(values)) => values.push(Value::String(v)),
            Some(first) => {
                let first = first.take();
                args.insert(k, Value::Array(vec![first, Value::String(v)]));
            }
        }
    }
    args
}

async fn call_named(app: &Arc<App>, name: &str, args: Map<String, Value>) -> Response {
    let tool = tools::find(name).expect("REST routes name registered tools");
    respond(crate::app::run_tool(app, tool, args, "rest").await)
}

/// The handler of one row of [`crate::transports::http::REST_ROUTES`].
pub fn route_handler(route: &crate::transports::http::RestRoute) -> axum::routing::MethodRouter<Arc<App>> {
    match route.binding {
        crate::transports::http::RestBinding::Query => tool_route(route.tool),
        crate::transports::http::RestBinding::TextBody => axum::routing::post(check_citations),
    }
}

/// A GET route for a tool whose arguments come from the query string (`q` stands for `query`)
/// and from the path parameters, named as the tool's arguments (`{id}`, `{book}`).
fn tool_route(name: &'static str) -> axum::routing::MethodRouter<Arc<App>> {
    axum::routing::get(
        move |State(app): State<Arc<App>>,
              path: Option<Path<HashMap<String, String>>>,
              Query(q): Query<Vec<(String, String)>>| async move {
            let mut args = args_from_query(q);
            if let Some(Path(params)) = path {
                for (k, v) in params {
                    args.insert(k, Value::String(v));
                }
            }
            call_named(&app, name, args).await
        },
    )
}

/// The `{name}` parameters of a route path.
pub fn path_params(path: &str) -> Vec<&str> {
    path.split('/').filter_map(|seg| seg.strip_prefix('{').and_then(|s| s.strip_suffix('}'))).collect()
}

/// `POST /api/citations/check`: the body is the text itself (`text/plain`), or a JSON object
/// with `text` and `reference_date`; the answer is `check_citations`'s.
async fn check_citations(
    State(app): State<Arc<App>>,
    Query(q): Query<Vec<(String, String)>>,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> Response {
    let is_json = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    let mut args = args_from_query(q);
    if is_json {
        match serde_json::from_slice::<Value>(&body) {
            Ok(Value::Object(m)) => args.extend(m),
            _ => {
                let e = crate::contract::answer::ToolError::invalid(
                    "the JSON body must be an object with `text`",
                    "Send {\"text\": \"…\"} or the plain text with Content-Type: text/plain.",
                );
                return refuse(StatusCode::BAD_REQUEST, e);
            }
        }
    } else {
        match String::from_utf8(body.to_vec()) {
            Ok(text) => {
                args.insert("text".into(), Value::String(text));
            }
            Err(_) => {
                let e = crate::contract::answer::ToolError::invalid(
                    "the body is not UTF-8 text",
                    "Send the text as UTF-8.",
                );
                return refuse(StatusCode::BAD_REQUEST, e);
            }
        }
    }
    call_named(&app, "check_citations", args).await
}

/// `POST /api/tools/{name}` with the arguments as a JSON object: any tool, as over MCP.
pub async fn call_tool(State(app): State<Arc<App>>, Path(name): Path<String>, body: Bytes) -> Response {
    let Some(tool) = tools::find(&name) else {
        let e = crate::contract::answer::ToolError::invalid(
            format!("unknown tool {name:?}"),
            "See /api/openapi.json for the tools.",
        )
        .with("tools", TOOLS.iter().map(|t| t.name).collect::<Vec<_>>());
        return refuse(StatusCode::NOT_FOUND, e);
    };
    let args = if body.is_empty() {
        Map::new()
    } else {
        match serde_json::from_slice::<Value>(&body) {
            Ok(Value::Object(m)) => m,
            Ok(_) | Err(_) => {
                let e = crate::contract::answer::ToolError::invalid(
                    "the request body must be a JSON object of arguments",
                    "Send e.g. {\"book\": \"BGB\", \"section\": \"823\"}.",
                );
                return refuse(StatusCode::BAD_REQUEST, e);
            }
        }
    };
    respond(crate::app::run_tool(&app, tool, args, "rest").await)
}

fn query_params(schema: &Value, skip: &[&str]) -> Vec<Value> {
    let required: Vec<&str> =
        schema["required"].as_array().map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    schema["properties"]
        .as_object()
        .map(|props| {
            props
                .iter()
                .filter(|(k, _)| !skip.contains(&k.as_str()))
                .map(|(k, v)| {
                    json!({
                        "name": k,
                        "in": "query",
                        "required": required.contains(&k.as_str()),
                        "description": v.get("description").cloned().unwrap_or(Value::Null),
                        "schema": v,
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The OpenAPI 3.1 description, generated from the tool registry.
pub async fn openapi() -> Response {
    let ok = json!({"description": "Answer with envelope (api_version, generation).", "content": {"application/json": {"schema": {"type": "object"}}}});
    let err = json!({"description": "Refusal: error_code, message, retryable, hint, plus the envelope.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Refusal"}}}});
    let schema_of = |name: &str| (tools::find(name).expect("tool").schema)();
    let path_param = |n: &str| json!({"name": n, "in": "path", "required": true, "schema": {"type": "string"}});
    let mut paths = Map::new();
    let mut get = |path: &str, tool: &str, mut params: Vec<Value>| {
        let t = tools::find(tool).expect("tool");
        // Path parameters are not repeated as query parameters.
        let in_path: Vec<String> = params.iter().filter_map(|p| p["name"].as_str().map(str::to_string)).collect();
        let skip: Vec<&str> = in_path.iter().map(String::as_str).collect();
        params.extend(query_params(&schema_of(tool), &skip));
        paths.insert(
            path.to_string(),
            json!({"get": {"operationId": tool, "summary": t.title, "description": t.description, "parameters": params,
                "responses": {"200": ok, "400": err, "404": err, "409": err, "503": err}}}),
        );
    };
    for route in
        crate::transports::http::REST_ROUTES.iter().filter(|r| r.binding == crate::transports::http::RestBinding::Query)
    {
        get(route.path, route.tool, path_params(route.path).into_iter().map(path_param).collect());
    }
    for route in crate::transports::http::REST_ROUTES {
        match route.binding {
            crate::transports::http::RestBinding::Query => {}
            crate::transports::http::RestBinding::TextBody => {
                let t = tools::find(route.tool).expect("tool");
                paths.insert(
                    route.path.to_string(),
                    json!({"post": {"operationId": route.tool, "summary": t.title, "description": t.description,
                        "requestBody": {"required": true, "content": {
                            "text/plain": {"schema": {"type": "string", "description": "The text to check, as it is."}},
                            "application/json": {"schema": (t.schema)()}}},
                        "responses": {"200": ok, "400": err, "404": err, "409": err, "503": err}}}),
                );
            }
        }
    }
    for t in TOOLS {
        paths.insert(
            format!("/api/tools/{}", t.name),
            json!({"post": {"operationId": format!("call_{}", t.name), "summary": t.title, "description": t.description,
                "requestBody": {"required": false, "content": {"application/json": {"schema": (t.schema)()}}},
                "responses": {"200": ok, "400": err, "404": err, "409": err, "503": err}}}),
        );
    }
    Json(json!({
        "openapi": "3.1.0",
        "info": {"title": "German legal data API", "version": crate::contract::answer::API_VERSION,
                 "description": "Read-only REST transport of the MCP tools; same payloads."},
        "paths": paths,
        "components": {"schemas": {"Refusal": {"type": "object", "required": ["error_code", "message", "retryable", "hint"],
            "properties": {"error_code": {"type": "string"}, "message": {"type": "string"}, "retryable": {"type": "boolean"}, "hint": {"type": "string"}}}}},
    }))
    .into_response()
}
