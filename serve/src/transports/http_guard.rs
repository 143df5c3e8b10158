//! The HTTP layer's own checks, before any tool runs, and its refusals (JSON, like every
//! other refusal: `error_code`, `message`, `retryable`, `hint`):
//!
//! - `Host` must be on the allow-list (DNS rebinding: a browser tricked into calling a
//!   loopback server still sends the attacker's host name), sent once;
//! - `Origin`, when sent, must be sent once and be on the allow-list (403 otherwise);
//! - POST `/mcp` must be JSON (`Content-Type`, else 415) to a client that accepts JSON
//!   (`Accept`, else 406);
//! - a body whose `Content-Length` is over the limit is refused (413) before any handler runs,
//!   after reading it away (up to 16 MiB) so that a client that writes before it reads sees
//!   the answer;
//! - unknown routes and methods answer JSON 404 / 405 instead of an empty body.
//!
//! CORS for allowed origins (preflight included) is `tower-http`'s layer, configured from
//! the same allow-list ([`cors_layer`]).

use std::sync::Arc;

use axum::Json;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::app::App;

model::closed_set! {
    /// Why the HTTP layer refused a request before it reached a tool.
    pub enum TransportRefusal {
        /// No route has this path.
        RouteNotFound => "route_not_found",
        /// The path exists, the method does not.
        MethodNotAllowed => "method_not_allowed",
        /// The `Host` header is not one this server answers to.
        HostForbidden => "host_forbidden",
        /// The `Origin` header is not on the allow-list, or was sent more than once.
        OriginForbidden => "origin_forbidden",
        /// A header that must come once came more than once.
        DuplicateHeader => "duplicate_header",
        /// The body's `Content-Type` is not one the route reads.
        UnsupportedMediaType => "unsupported_media_type",
        /// The client's `Accept` excludes every type the route answers with.
        NotAcceptable => "not_acceptable",
        /// The body is larger than the server accepts.
        BodyTooLarge => "body_too_large",
    }
}

impl TransportRefusal {
    pub fn status(self) -> StatusCode {
        match self {
            TransportRefusal::RouteNotFound => StatusCode::NOT_FOUND,
            TransportRefusal::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            TransportRefusal::HostForbidden | TransportRefusal::OriginForbidden => StatusCode::FORBIDDEN,
            TransportRefusal::DuplicateHeader => StatusCode::BAD_REQUEST,
            TransportRefusal::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            TransportRefusal::NotAcceptable => StatusCode::NOT_ACCEPTABLE,
            TransportRefusal::BodyTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        }
    }

    /// The JSON refusal (no generation envelope: no tool ran).
    pub fn respond(self, message: impl Into<String>, hint: &str) -> Response {
        let body = json!({"error_code": self.as_str(), "message": message.into(), "retryable": false, "hint": hint});
        (self.status(), Json(body)).into_response()
    }
}

/// Whether `value` (an `Origin`, or `scheme://` + `Host`) is allowed by `allowed`: exact, `*`,
/// or an entry without a port that allows any port.
pub fn origin_allowed(origin: &str, allowed: &[String]) -> bool {
    allowed.iter().any(|a| {
        if a == "*" || a == origin {
            return true;
        }
        // `http://localhost` allows `http://localhost:1234`.
        origin.strip_prefix(a.as_str()).is_some_and(|rest| {
            rest.strip_prefix(':').is_some_and(|port| !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()))
        })
    })
}

/// Whether a `Host` header value is allowed: `name` or `name:port` where `name` is listed
/// (`*` allows every host). Names compare case-insensitively.
pub fn host_allowed(host: &str, allowed: &[String]) -> bool {
    let host = host.trim().to_ascii_lowercase();
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().map(|n| format!("[{n}]")).unwrap_or_default(),
        None => host
            .rsplit_once(':')
            .filter(|(_, p)| p.bytes().all(|b| b.is_ascii_digit()))
            .map_or(host.clone(), |(n, _)| n.to_string()),
    };
    allowed.iter().any(|a| a == "*" || a.eq_ignore_ascii_case(&name) || a.eq_ignore_ascii_case(&host))
}

/// One value of a header that must come at most once; `Err` when it came more than once.
fn at_most_once<'h>(headers: &'h HeaderMap, name: &HeaderName) -> Result<Option<&'h HeaderValue>, ()> {
    let mut all = headers.get_all(name).iter();
    let first = all.next();
    if all.next().is_some() { Err(()) } else { Ok(first) }
}

/// Middleware: `Host` and `Origin` checks (every route).
pub async fn guard_host_and_origin(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    match at_most_once(headers, &header::HOST) {
        Err(()) => {
            app.metrics.refuse("http", TransportRefusal::DuplicateHeader.as_str());
            return TransportRefusal::DuplicateHeader.respond("Host was sent more than once", "Send one Host header.");
        }
        Ok(Some(host)) => {
            let ok = host.to_str().map(|h| host_allowed(h, &app.config.allowed_hosts)).unwrap_or(false);
            if !ok {
                app.metrics.refuse("http", TransportRefusal::HostForbidden.as_str());
                return TransportRefusal::HostForbidden.respond(
                    format!("this server does not answer to Host {:?}", host.to_str().unwrap_or("(not ASCII)")),
                    "Start serve with --allow-host <name> for the name clients use to reach it.",
                );
            }
        }
        // HTTP/1.0 without Host, or HTTP/2 (`:authority`): nothing to compare.
        Ok(None) => {}
    }
    match at_most_once(headers, &header::ORIGIN) {
        Err(()) => {
            app.metrics.refuse("http", TransportRefusal::OriginForbidden.as_str());
            return TransportRefusal::OriginForbidden
                .respond("Origin was sent more than once", "Send one Origin header.");
        }
        Ok(Some(origin)) => {
            let ok = origin.to_str().map(|o| origin_allowed(o, &app.config.allowed_origins)).unwrap_or(false);
            if !ok {
                app.metrics.refuse("http", TransportRefusal::OriginForbidden.as_str());
                return TransportRefusal::OriginForbidden.respond(
                    "this Origin is not on the server's allow-list",
                    "Start serve with --allow-origin <origin> to allow it.",
                );
            }
        }
        Ok(None) => {}
    }
    let declared = req.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok());
    if let Some(len) = declared.filter(|&n| n > app.config.max_body_bytes as u64) {
        app.metrics.refuse("http", TransportRefusal::BodyTooLarge.as_str());
        return refuse_declared_oversize(req, len, app.config.max_body_bytes).await;
    }
    let resp = next.run(req).await;
    if resp.status() == StatusCode::PAYLOAD_TOO_LARGE {
        app.metrics.refuse("http", TransportRefusal::BodyTooLarge.as_str());
    }
    resp
}

/// Most bytes of an oversized body read and thrown away so that a simple client, which
/// writes its whole body before it reads, sees the 413; a larger body gets the 413 at once
/// with `Connection: close`.
const DRAIN_MAX_BYTES: u64 = 16 << 20;
const DRAIN_MAX_TIME: std::time::Duration = std::time::Duration::from_secs(5);

/// 413 decided from `Content-Length` alone, before the handler reads anything.
async fn refuse_declared_oversize(req: Request, declared: u64, max: usize) -> Response {
    let refusal = |close: bool| {
        let mut r = TransportRefusal::BodyTooLarge.respond(
            format!("the body declares {declared} bytes; this server accepts at most {max}"),
            "Send a smaller request (e.g. a shorter text or one message per request).",
        );
        if close {
            r.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        r
    };
    if declared > DRAIN_MAX_BYTES {
        return refusal(true);
    }
    let drained =
        tokio::time::timeout(DRAIN_MAX_TIME, axum::body::to_bytes(req.into_body(), DRAIN_MAX_BYTES as usize)).await;
    refusal(!matches!(drained, Ok(Ok(_))))
}

/// Middleware for POST `/mcp`: a JSON body (415) to a client that takes JSON (406).
pub async fn require_json_exchange(req: Request, next: Next) -> Response {
    if req.method() == Method::POST {
        let headers = req.headers();
        let content_type = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
        let mime = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        if mime != "application/json" {
            return TransportRefusal::UnsupportedMediaType.respond(
                format!("POST /mcp takes application/json, not {content_type:?}"),
                "Send the JSON-RPC message with Content-Type: application/json.",
            );
        }
        let accepts_json = headers.get_all(header::ACCEPT).iter().filter_map(|v| v.to_str().ok()).all(|accept| {
            accept.split(',').any(|part| {
                let m = part.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
                matches!(m.as_str(), "application/json" | "application/*" | "*/*")
            })
        });
        if !accepts_json {
            return TransportRefusal::NotAcceptable.respond(
                "this server answers MCP requests with application/json, which the Accept header excludes",
                "Send Accept: application/json, text/event-stream.",
            );
        }
    }
    next.run(req).await
}

/// Fallback for paths no route has.
pub async fn route_not_found(req: Request) -> Response {
    TransportRefusal::RouteNotFound.respond(
        format!("no route {} {}", req.method(), req.uri().path()),
        "See /api/openapi.json for the REST routes; MCP is POST /mcp.",
    )
}

/// Fallback for a known path with a method it does not take.
pub async fn method_not_allowed(req: Request) -> Response {
    TransportRefusal::MethodNotAllowed.respond(
        format!("{} is not allowed on {}", req.method(), req.uri().path()),
        "See /api/openapi.json for the methods each route takes.",
    )
}

/// CORS for the allowed origins: simple requests and preflights get the allow headers; other
/// origins get none (and [`guard_host_and_origin`] refuses them anyway).
pub fn cors_layer(allowed_origins: Vec<String>) -> CorsLayer {
    CorsLayer::new()
        .allow_origin(AllowOrigin::predicate(move |origin: &HeaderValue, _| {
            origin.to_str().is_ok_and(|o| origin_allowed(o, &allowed_origins))
        }))
        .allow_methods([Method::GET, Method::POST, Method::OPTIONS])
        .allow_headers([
            header::CONTENT_TYPE,
            header::ACCEPT,
            header::AUTHORIZATION,
            HeaderName::from_static("mcp-protocol-version"),
            HeaderName::from_static("mcp-method"),
            HeaderName::from_static("mcp-name"),
            HeaderName::from_static("mcp-session-id"),
        ])
        .expose_headers([
            HeaderName::from_static("mcp-protocol-version"),
            header::RETRY_AFTER,
            header::WWW_AUTHENTICATE,
        ])
        .max_age(std::time::Duration::from_secs(600))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_match_exactly_or_with_any_port_on_portless_entries() {
        let allowed = vec!["http://localhost".to_string(), "https://app.example".to_string()];
        assert!(origin_allowed("http://localhost", &allowed));
        assert!(origin_allowed("http://localhost:6274", &allowed));
        assert!(origin_allowed("https://app.example", &allowed));
        assert!(!origin_allowed("https://app.example:8443", &["https://app.example:443".to_string()]));
        assert!(!origin_allowed("http://localhost.evil.com", &allowed));
        assert!(!origin_allowed("http://evil.com", &allowed));
        assert!(!origin_allowed("http://localhost:", &allowed));
        assert!(origin_allowed("http://anything", &["*".to_string()]));
    }

    #[test]
    fn hosts_match_by_name_on_any_port() {
        let allowed: Vec<String> = ["localhost", "127.0.0.1", "[::1]"].map(String::from).to_vec();
        for h in ["localhost", "LOCALHOST:8080", "127.0.0.1:1", "[::1]:8080", "[::1]"] {
            assert!(host_allowed(h, &allowed), "{h}");
        }
        for h in ["evil.example", "evil.example:8080", "127.0.0.1.evil.example", "localhost.evil:80", "[::2]:80", ""] {
            assert!(!host_allowed(h, &allowed), "{h}");
        }
        assert!(host_allowed("legal.example.org", &["*".to_string()]));
    }
}
