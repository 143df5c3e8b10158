//! Stage 5: the read-only MCP + REST server over the current generation.
//!
//! - [`answer`]: the envelope and the closed set of refusal codes;
//! - [`args`]: typed tool arguments with clear refusals;
//! - [`laws`]: the statute tools (one function per capability);
//! - [`decisions`]: the decision and court tools (one function per capability);
//! - [`citations`]: the citation graph and coverage tools;
//! - [`datapackage`]: `assemble_datapackage`, decisions and their edges under a response budget;
//! - [`statistics`]: `get_case_statistics`, counts under the filters of `search_decisions`;
//! - [`checker`]: the hallucination guard (`check_citations`, `validate_citation`);
//! - [`snippets`]: result snippets with highlights (cheap: stems only candidate words);
//! - [`tools`]: the registry both transports dispatch through;
//! - [`mcp`] / [`rest`]: the two thin transports;
//! - [`swap`]: the served generation and its hot swap;
//! - [`metrics`]: the `/metrics` text.
//!
//! Safety rails: request body limit (413), `Origin` allow-list (403), a timeout on every tool
//! call, bounded page sizes, a read-only store, and no panic reachable from input (tool calls
//! run in `spawn_blocking`; a panic there becomes an `internal_error` answer).

pub mod answer;
pub mod args;
pub mod checker;
pub mod citations;
pub mod datapackage;
pub mod decisions;
pub mod laws;
pub mod mcp;
pub mod metrics;
pub mod rest;
pub mod snippets;
pub mod statistics;
pub mod swap;
pub mod tools;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Map, Value, json};

use answer::{ErrorCode, ToolError, with_envelope};

#[derive(Debug, Clone)]
pub struct Config {
    pub data_dir: PathBuf,
    /// Allowed `Origin` values; entries without a port allow any port; `*` allows all.
    pub allowed_origins: Vec<String>,
    pub max_body_bytes: usize,
    pub tool_timeout: Duration,
    pub poll_interval: Duration,
    pub tools_page_size: usize,
}

impl Config {
    pub fn default_origins() -> Vec<String> {
        ["http://localhost", "https://localhost", "http://127.0.0.1", "https://127.0.0.1", "http://[::1]"]
            .into_iter()
            .map(String::from)
            .collect()
    }
}

pub struct App {
    pub config: Config,
    pub slot: Arc<swap::Slot>,
    pub metrics: metrics::Metrics,
}

/// Runs one tool call off the async executor, with the configured timeout.
pub async fn run_tool(
    app: &Arc<App>,
    tool: &'static tools::Tool,
    arguments: Map<String, Value>,
    transport: &str,
) -> tools::Answer {
    let started = Instant::now();
    let generation = app.slot.get();
    let gref = generation.as_deref().map(tools::generation_ref);
    let task = tokio::task::spawn_blocking(move || tools::call(tool, generation, &arguments));
    let answer = match tokio::time::timeout(app.config.tool_timeout, task).await {
        Ok(Ok(a)) => a,
        Ok(Err(join)) => {
            let e = ToolError::internal(format!("tool {} failed: {join}", tool.name));
            tools::Answer { body: with_envelope(e.payload(), gref.as_ref(), &[]), error: Some(e.code) }
        }
        Err(_) => {
            let e = ToolError::new(
                ErrorCode::Timeout,
                format!("{} did not finish within {} ms", tool.name, app.config.tool_timeout.as_millis()),
                "Narrow the request (smaller limit or length) and retry.",
            );
            tools::Answer { body: with_envelope(e.payload(), gref.as_ref(), &[]), error: Some(e.code) }
        }
    };
    let outcome = answer.error.map(|c| c.as_str()).unwrap_or("ok");
    app.metrics.observe(transport, tool.name, outcome, started.elapsed().as_secs_f64());
    answer
}

fn origin_allowed(origin: &str, allowed: &[String]) -> bool {
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

async fn check_origin(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    if let Some(origin) = req.headers().get(header::ORIGIN) {
        let ok = origin.to_str().map(|o| origin_allowed(o, &app.config.allowed_origins)).unwrap_or(false);
        if !ok {
            app.metrics.refuse("http", "origin_forbidden");
            return (
                StatusCode::FORBIDDEN,
                axum::Json(json!({"error_code": "origin_forbidden",
                "message": "this Origin is not on the server's allow-list", "retryable": false,
                "hint": "Start serve with --allow-origin <origin> to allow it."})),
            )
                .into_response();
        }
    }
    let resp = next.run(req).await;
    if resp.status() == StatusCode::PAYLOAD_TOO_LARGE {
        app.metrics.refuse("http", "body_too_large");
    }
    resp
}

async fn healthz(State(app): State<Arc<App>>) -> Response {
    axum::Json(json!({"status": "live", "detail": app.slot.health_json()})).into_response()
}

async fn readyz(State(app): State<Arc<App>>) -> Response {
    match app.slot.get() {
        Some(g) => axum::Json(json!({"status": "ready", "generation": g.id})).into_response(),
        None => (
            StatusCode::SERVICE_UNAVAILABLE,
            axum::Json(json!({"status": "not_ready", "reason": "no generation loaded"})),
        )
            .into_response(),
    }
}

async fn metrics_text(State(app): State<Arc<App>>) -> Response {
    let st = app.slot.status();
    let mut text = app.metrics.render();
    text.push_str(&format!(
        "# HELP legal_generation_refusals_total_status Refusals seen by the swap watcher.\n# TYPE legal_generation_refusals_total_status gauge\nlegal_generation_refusals_total_status {}\n",
        st.refusals
    ));
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}

/// GET routes of the decision, citation and coverage tools: (path, tool); path parameters are
/// tool arguments of the same name.
pub const DECISION_ROUTES: &[(&str, &str)] = &[
    ("/api/search/decisions", "search_decisions"),
    ("/api/search", "cross_type_search"),
    ("/api/decisions", "filter_cases"),
    ("/api/decisions/{id}", "get_decision"),
    ("/api/decisions/{id}/similar", "get_similar_cases"),
    ("/api/courts", "list_courts"),
    ("/api/courts/{court}", "get_court"),
    ("/api/facets", "list_facets"),
    ("/api/decisions/{id}/references", "get_case_references"),
    ("/api/decisions/{id}/citing", "get_citing_cases"),
    ("/api/decisions/{id}/graph", "get_citation_graph"),
    ("/api/laws/{book}/sections/{section}/decisions", "get_cases_for_law"),
    ("/api/coverage", "corpus_coverage"),
    ("/api/statistics", "get_case_statistics"),
    ("/api/datapackage", "assemble_datapackage"),
    ("/api/citations/validate", "validate_citation"),
];

pub fn router(app: Arc<App>) -> Router {
    let router = Router::new()
        .route("/mcp", post(mcp::post).get(mcp::method_not_allowed).delete(mcp::method_not_allowed))
        .route("/api/openapi.json", get(rest::openapi))
        .route("/api/platform", get(rest::platform))
        .route("/api/laws", get(rest::list_law_books))
        .route("/api/laws/{book}", get(rest::get_law))
        .route("/api/laws/{book}/sections/{section}", get(rest::get_law_section))
        .route("/api/search/laws", get(rest::search_laws))
        .route("/api/tools/{name}", post(rest::call_tool))
        .route("/api/citations/check", post(rest::check_citations));
    let router = DECISION_ROUTES.iter().fold(router, |r, (path, tool)| r.route(path, rest::tool_route(tool)));
    router
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics_text))
        .layer(middleware::from_fn_with_state(app.clone(), check_origin))
        .layer(DefaultBodyLimit::max(app.config.max_body_bytes))
        .with_state(app)
}

/// Loads `CURRENT` (if any), starts the watcher and serves until SIGINT/SIGTERM.
pub async fn serve(config: Config, listener: tokio::net::TcpListener) -> anyhow::Result<()> {
    let slot = swap::Slot::new(&config.data_dir);
    {
        let s = slot.clone();
        tokio::task::spawn_blocking(move || s.check_current()).await?;
    }
    let app = Arc::new(App { config: config.clone(), slot: slot.clone(), metrics: metrics::Metrics::new() });
    if let Some(g) = slot.get() {
        app.metrics.set_generation(&g.id);
    } else if let Some((id, reason, _)) = slot.status().last_refused {
        eprintln!("serve: generation {id} refused: {reason}; serving without one until a good one is published");
    } else {
        eprintln!("serve: no CURRENT generation in {}; run `make reindex`", config.data_dir.display());
    }
    let app_for_swap = app.clone();
    let refusals_seen = std::sync::atomic::AtomicU64::new(0);
    swap::spawn_watcher(slot.clone(), config.poll_interval, move |s| {
        if let Some(g) = s.get() {
            app_for_swap.metrics.set_generation(&g.id);
            app_for_swap.metrics.swaps.inc();
        }
        let _ = &refusals_seen;
    });
    // Refusals are counted by the slot; mirror them into the counter on a timer.
    {
        let app = app.clone();
        tokio::spawn(async move {
            let mut seen = 0u64;
            loop {
                tokio::time::sleep(Duration::from_millis(500)).await;
                let r = app.slot.status().refusals;
                if r > seen {
                    app.metrics.refusals.inc_by(r - seen);
                    seen = r;
                }
            }
        });
    }
    let addr = listener.local_addr()?;
    println!("serve: listening on http://{addr} (MCP http://{addr}/mcp)");
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let shutdown = async {
        #[cfg(unix)]
        {
            let mut term =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("SIGTERM handler");
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
    };
    axum::serve(listener, router(app.clone())).with_graceful_shutdown(shutdown).await?;
    slot.remove_lease();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::origin_allowed;

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
}
