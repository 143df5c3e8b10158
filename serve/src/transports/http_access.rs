//! Admission of every request to `/mcp` and `/api/…` ([`crate::app::access`]): the caller is
//! the bearer token sent (an API token, or an OAuth access token when an issuer is
//! configured), else the client address; the request is counted against the caller's budget
//! once, before anything runs, and the handler runs under that caller ([`crate::app::CALLER`]).
//!
//! - Over the budget: 429 with `Retry-After` (MCP: JSON-RPC -32000 with
//!   `data.retry_after_seconds`; REST: the refusal envelope with `error_code: "rate_limited"`).
//! - A token that is malformed, unknown, revoked, expired, of a wrong audience or issuer, or
//!   signed by a wrong key: 401 with `WWW-Authenticate: Bearer error="invalid_token"`.
//! - A deployment that requires a token for every ability: an anonymous request is 401 before
//!   anything runs (so an OAuth client starts its flow), except REST `whoami` and the
//!   OpenAPI document.
//! - A handler's refusal for a missing token or ability ([`Challenge`] on the response) gets its
//!   challenge here: 401, or 403 `insufficient_scope` with the scope to ask for.
//! - With an OAuth issuer every challenge names the RFC 9728 metadata (`resource_metadata`),
//!   served at `/.well-known/oauth-protected-resource[/mcp]`.
//!
//! Token values are never logged or counted by value.

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
use crate::contract::caller::{Ability, RateTier};
use crate::tools;
use model::AccessOutcome;

/// JSON-RPC code of a request refused by the access layer (implementation-defined range).
pub const ACCESS_REFUSED: i64 = -32000;

/// Set on a response by a handler that refused for want of a token or an ability; [`admit`]
/// turns it into the `WWW-Authenticate` challenge.
#[derive(Debug, Clone, Copy)]
pub struct Challenge {
    pub required_ability: Ability,
    /// A token was sent but lacks the ability (403 `insufficient_scope`); else none was sent.
    pub insufficient: bool,
}

impl Challenge {
    /// The challenge for a tool refusal `code` whose `required_ability` is `ability`, if it is one.
    pub fn of_refusal(code: ErrorCode, ability: Option<Ability>) -> Option<Challenge> {
        let insufficient = match code {
            ErrorCode::TokenRequired => false,
            ErrorCode::TokenAbilityMissing => true,
            _ => return None,
        };
        ability.map(|required_ability| Challenge { required_ability, insufficient })
    }
}

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
    if bearer.is_none()
        && app.access.requires_token_for_everything()
        && !matches!(path, "/api/whoami" | "/api/tools/whoami" | "/api/openapi.json")
    {
        app.metrics.access(RateTier::Anonymous, AccessOutcome::TokenRequired);
        let e = ToolError::new(
            ErrorCode::TokenRequired,
            "this server requires an access token for every tool",
            token_hint(&app),
        );
        let mut response = refusal(&app, mcp, e);
        set_challenge(&app, mcp, &mut response, None);
        return response;
    }
    match app.access.admit(ip, bearer.as_deref()).await {
        Ok(Ok(caller)) => {
            app.metrics.access(caller.rate_limit.tier, AccessOutcome::Allowed);
            let mut response = CALLER.scope(caller, next.run(req)).await;
            if let Some(c) = response.extensions().get::<Challenge>().copied() {
                let scope = app.access.oauth().map(|o| o.scope_of(c.required_ability));
                let params = match (c.insufficient, scope) {
                    (true, Some(s)) => format!("error=\"insufficient_scope\", scope=\"{s}\""),
                    (true, None) => "error=\"insufficient_scope\"".to_string(),
                    (false, Some(s)) => format!("scope=\"{s}\""),
                    (false, None) => String::new(),
                };
                set_challenge(&app, mcp, &mut response, Some(params));
            }
            response
        }
        Ok(Err(Denied::RateLimited(report))) => {
            app.metrics.access(report.tier, AccessOutcome::RateLimited);
            let retry = report.retry_after_seconds.unwrap_or(1);
            let e = ToolError::new(
                ErrorCode::RateLimited,
                format!("over the request budget of this caller ({} per hour)", report.limit.unwrap_or(0)),
                format!("Retry after {retry} s; call whoami for the budget. An access token gets its own budget."),
            )
            .with("retry_after_seconds", retry)
            .with("rate_limit", &report);
            let mut response = refusal(&app, mcp, e);
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(retry));
            response
        }
        Ok(Err(Denied::InvalidToken(reason))) => {
            app.metrics.access(RateTier::Token, AccessOutcome::InvalidToken);
            let e = ToolError::new(
                ErrorCode::InvalidToken,
                format!("the bearer token is {}", reason.as_str().replace('_', " ")),
                format!("{} Or send no Authorization header for anonymous access.", token_hint(&app)),
            )
            .with("reason", reason.as_str());
            let mut response = refusal(&app, mcp, e);
            let params = format!("error=\"invalid_token\", error_description=\"token {}\"", reason.as_str());
            set_challenge(&app, mcp, &mut response, Some(params));
            response
        }
        Ok(Err(Denied::KeysUnavailable(why))) => {
            app.metrics.access(RateTier::Token, AccessOutcome::AuthUnavailable);
            tracing::warn!(error = %why.0, "an access token could not be judged");
            let e = ToolError::new(
                ErrorCode::AuthUnavailable,
                "the OAuth issuer's signing keys cannot be fetched, so the access token cannot be checked",
                "Retry in a minute; the operator sees the cause in the server log.",
            );
            let mut response = refusal(&app, mcp, e);
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(30));
            response
        }
        Err(e) => {
            tracing::error!(error = %e, "access check failed");
            refusal(&app, mcp, ToolError::internal("the access check failed"))
        }
    }
}

/// What to send instead: the OAuth route when there is one, the operator's API token always.
fn token_hint(app: &App) -> String {
    match app.access.oauth() {
        Some(o) => format!(
            "Sign in through the OAuth issuer {} (the protected-resource metadata at {} names it and the scopes), or ask the operator for an API token (serve token create); send it as Authorization: Bearer <token>.",
            o.issuer(),
            o.resource_metadata_url(true)
        ),
        None => "Ask the operator for an API token (serve token create) and send it as Authorization: Bearer <token>."
            .to_string(),
    }
}

/// Sets `WWW-Authenticate: Bearer <params>` (RFC 6750 §3), naming the protected-resource
/// metadata when there is an OAuth issuer (RFC 9728 §5.1).
fn set_challenge(app: &App, mcp: bool, response: &mut Response, params: Option<String>) {
    let mut parts: Vec<String> = Vec::new();
    if let Some(o) = app.access.oauth() {
        parts.push(format!("resource_metadata=\"{}\"", o.resource_metadata_url(mcp)));
    }
    parts.extend(params.filter(|p| !p.is_empty()));
    let challenge = if parts.is_empty() { "Bearer".to_string() } else { format!("Bearer {}", parts.join(", ")) };
    if let Ok(v) = HeaderValue::from_str(&challenge) {
        response.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
}

/// A refusal before any handler ran, with its code's HTTP status: a JSON-RPC error on `/mcp`
/// (id null: the request was not read), the REST refusal envelope elsewhere.
fn refusal(app: &App, mcp: bool, e: ToolError) -> Response {
    let status = StatusCode::from_u16(e.code.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if mcp {
        let error = json!({"code": ACCESS_REFUSED, "message": e.message, "data": refusal_data(&e)});
        (status, axum::Json(json!({"jsonrpc": "2.0", "id": null, "error": error}))).into_response()
    } else {
        let gref = app.slot.get().as_deref().map(tools::generation_ref);
        crate::transports::rest::json_body(status, tools::Answer::refusal(e, gref.as_ref(), &[]).body)
    }
}

/// The `data` of the JSON-RPC error (-32000, [`ACCESS_REFUSED`]) an access refusal is on
/// `/mcp`: the refusal's fields.
pub fn refusal_data(e: &ToolError) -> Value {
    let mut data = serde_json::Map::new();
    data.insert("error_code".into(), json!(e.code.as_str()));
    data.insert("retryable".into(), json!(e.code.retryable()));
    data.insert("hint".into(), json!(e.hint));
    data.extend(e.details.iter().map(|(k, v)| (k.clone(), v.clone())));
    Value::Object(data)
}

/// `GET /.well-known/oauth-protected-resource`: RFC 9728 metadata of the whole server (404
/// without an OAuth issuer: there is nothing to discover).
pub async fn resource_metadata_of_server(State(app): State<Arc<App>>) -> Response {
    resource_metadata(&app, false)
}

/// `GET /.well-known/oauth-protected-resource/mcp`: RFC 9728 metadata of the MCP endpoint.
pub async fn resource_metadata_of_mcp(State(app): State<Arc<App>>) -> Response {
    resource_metadata(&app, true)
}

fn resource_metadata(app: &App, mcp: bool) -> Response {
    match app.access.oauth() {
        Some(o) => (
            [(header::CACHE_CONTROL, "public, max-age=3600")],
            axum::Json(serde_json::to_value(o.resource_metadata(mcp)).unwrap_or(Value::Null)),
        )
            .into_response(),
        None => (
            StatusCode::NOT_FOUND,
            axum::Json(json!({
                "error_code": "not_found",
                "message": "this server has no OAuth issuer configured",
                "hint": "Use an API token (serve token create), or start serve with --oauth-issuer.",
            })),
        )
            .into_response(),
    }
}
