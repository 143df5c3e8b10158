//! Admission of every request to `/mcp` and `/api/…` ([`crate::app::access`]): the caller is
//! the bearer token sent, else the client address; the request is counted against the
//! caller's budget once, before anything runs, and the handler runs under that caller
//! ([`crate::app::CALLER`]). Over the budget: 429 with `Retry-After` (MCP: JSON-RPC -32000 with
//! `data.retry_after_seconds`; REST: the refusal envelope with `error_code: "rate_limited"`). A
//! token that is malformed, unknown, revoked or expired: 401 with `WWW-Authenticate`. Token
//! values are never logged or counted by value.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::app::access::Denied;
use crate::app::{App, CALLER};
use crate::contract::answer::{ErrorCode, ToolError};
use crate::tools;

/// JSON-RPC code of a request refused by the access layer (implementation-defined range).
const ACCESS_REFUSED: i64 = -32000;

pub async fn admit(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let path = req.uri().path();
    let mcp = path == "/mcp";
    if !(mcp || path.starts_with("/api/")) {
        return next.run(req).await;
    }
    let ip =
        req.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip()).unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
    let bearer = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
        .map(|t| t.trim().to_string());
    match app.access.admit(ip, bearer.as_deref()) {
        Ok(Ok(caller)) => {
            app.metrics.access(caller.rate_limit.tier.as_str(), "allowed");
            CALLER.scope(caller, next.run(req)).await
        }
        Ok(Err(Denied::RateLimited(report))) => {
            app.metrics.access(report.tier.as_str(), "rate_limited");
            let retry = report.retry_after_seconds.unwrap_or(1);
            let e = ToolError::new(
                ErrorCode::RateLimited,
                format!("over the request budget of this caller ({} per hour)", report.limit.unwrap_or(0)),
                format!("Retry after {retry} s; call whoami for the budget. An API token gets its own budget."),
            )
            .with("retry_after_seconds", retry)
            .with("rate_limit", &report);
            let mut response = refusal(&app, mcp, StatusCode::TOO_MANY_REQUESTS, e);
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(retry));
            response
        }
        Ok(Err(Denied::InvalidToken(reason))) => {
            app.metrics.access("token", "invalid_token");
            let e = ToolError::new(
                ErrorCode::InvalidToken,
                format!("the bearer token is {}", reason.as_str()),
                "Send a valid API token, or no Authorization header for anonymous access.",
            )
            .with("reason", reason.as_str());
            let mut response = refusal(&app, mcp, StatusCode::UNAUTHORIZED, e);
            let challenge = format!("Bearer error=\"invalid_token\", error_description=\"token {}\"", reason.as_str());
            if let Ok(v) = HeaderValue::from_str(&challenge) {
                response.headers_mut().insert(header::WWW_AUTHENTICATE, v);
            }
            response
        }
        Err(e) => {
            tracing::error!(error = %e, "access check failed");
            refusal(&app, mcp, StatusCode::INTERNAL_SERVER_ERROR, ToolError::internal("the access check failed"))
        }
    }
}

/// A refusal before any handler ran: a JSON-RPC error on `/mcp` (id null: the request was not
/// read), the REST refusal envelope elsewhere.
fn refusal(app: &App, mcp: bool, status: StatusCode, e: ToolError) -> Response {
    let body: Value = if mcp {
        let mut data = serde_json::Map::new();
        data.insert("error_code".into(), json!(e.code.as_str()));
        data.insert("retryable".into(), json!(e.code.retryable()));
        data.insert("hint".into(), json!(e.hint));
        data.extend(e.details.iter().map(|(k, v)| (k.clone(), v.clone())));
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": ACCESS_REFUSED, "message": e.message, "data": data}})
    } else {
        let gref = app.slot.get().as_deref().map(tools::generation_ref);
        Value::Object(tools::Answer::refusal(e, gref.as_ref(), &[]).body)
    };
    (status, axum::Json(body)).into_response()
}
