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

pub mod answer;
pub mod args;
pub mod budget;
pub mod checker;
pub mod citations;
pub mod coverage;
pub mod datapackage;
pub mod dating;
pub mod deadline;
pub mod decisions;
pub mod http_guard;
pub mod http_server;
pub mod laws;
pub mod mcp;
pub mod metrics;
pub mod output_schema;
pub mod rest;
pub mod snippets;
pub mod statistics;
pub mod swap;
pub mod tools;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{StatusCode, header};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Map, Value, json};

use answer::{ErrorCode, ToolError, with_envelope};

#[derive(Debug, Clone)]
pub struct Config {
    pub data_dir: PathBuf,
    /// Allowed `Origin` values; entries without a port allow any port; `*` allows all.
    pub allowed_origins: Vec<String>,
    /// Allowed `Host` names (any port); `*` allows all.
    pub allowed_hosts: Vec<String>,
    pub max_body_bytes: usize,
    pub tool_timeout: Duration,
    pub poll_interval: Duration,
    pub tools_page_size: usize,
    /// Most bytes of responses one JSON-RPC batch returns; past it the remaining requests are
    /// answered "not run" (-32001) instead of being run. Nothing is cut inside an answer.
    pub max_batch_response_bytes: usize,
    /// Most bytes of one tool answer; over it, rows are dropped from the end of the tool's
    /// lists and the answer says so (`payload_truncated`, [`budget`]).
    pub max_response_bytes: usize,
    /// Connection cap and header/body/idle timeouts.
    pub limits: http_server::Limits,
}

impl Config {
    pub fn default_origins() -> Vec<String> {
        ["http://localhost", "https://localhost", "http://127.0.0.1", "https://127.0.0.1", "http://[::1]"]
            .into_iter()
            .map(String::from)
            .collect()
    }

    pub fn default_hosts() -> Vec<String> {
        ["localhost", "127.0.0.1", "[::1]"].into_iter().map(String::from).collect()
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
    // The deadline also travels into the blocking thread, where long loops check it
    // (`deadline::check`): a call answered `timeout` stops instead of burning CPU on.
    let deadline = started + app.config.tool_timeout;
    let budget_bytes = app.config.max_response_bytes;
    let task = tokio::task::spawn_blocking(move || {
        deadline::scope(deadline, || {
            let mut answer = tools::call(tool, generation, &arguments);
            if answer.error.is_none() {
                budget::fit(&mut answer.body, tool.shed, budget_bytes);
            }
            answer
        })
    });
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

/// How a REST route hands its request to its tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RestBinding {
    /// GET; the arguments are the query string and the path parameters (named as the tool's
    /// arguments: `{id}`, `{book}`).
    Query,
    /// POST; the body is the text (`text/plain`) or a JSON object of arguments.
    TextBody,
}

/// One REST route: path, tool, how the arguments arrive.
pub struct RestRoute {
    pub path: &'static str,
    pub tool: &'static str,
    pub binding: RestBinding,
}

const fn get_route(path: &'static str, tool: &'static str) -> RestRoute {
    RestRoute { path, tool, binding: RestBinding::Query }
}

/// The one table of REST routes: the router and the OpenAPI document are both made from it
/// (plus `POST /api/tools/{name}` for every tool).
pub const REST_ROUTES: &[RestRoute] = &[
    get_route("/api/platform", "get_platform_info"),
    get_route("/api/laws", "list_law_books"),
    get_route("/api/laws/{book}", "get_law"),
    get_route("/api/laws/{book}/sections/{section}", "get_law_section"),
    get_route("/api/search/laws", "search_laws"),
    get_route("/api/search/decisions", "search_decisions"),
    get_route("/api/search", "cross_type_search"),
    get_route("/api/decisions", "filter_cases"),
    get_route("/api/decisions/{id}", "get_decision"),
    get_route("/api/decisions/{id}/similar", "get_similar_cases"),
    get_route("/api/courts", "list_courts"),
    get_route("/api/courts/{court}", "get_court"),
    get_route("/api/facets", "list_facets"),
    get_route("/api/decisions/{id}/references", "get_case_references"),
    get_route("/api/decisions/{id}/citing", "get_citing_cases"),
    get_route("/api/decisions/{id}/graph", "get_citation_graph"),
    get_route("/api/laws/{book}/sections/{section}/decisions", "get_cases_for_law"),
    get_route("/api/coverage", "corpus_coverage"),
    get_route("/api/statistics", "get_case_statistics"),
    get_route("/api/datapackage", "assemble_datapackage"),
    get_route("/api/citations/validate", "validate_citation"),
    RestRoute { path: "/api/citations/check", tool: "check_citations", binding: RestBinding::TextBody },
];

pub fn router(app: Arc<App>) -> Router {
    let router = Router::new()
        .route(
            "/mcp",
            post(mcp::post)
                .get(mcp::method_not_allowed)
                .delete(mcp::method_not_allowed)
                .layer(middleware::from_fn(http_guard::require_json_exchange)),
        )
        .route("/api/openapi.json", get(rest::openapi))
        .route("/api/tools/{name}", post(rest::call_tool));
    let router = REST_ROUTES.iter().fold(router, |r, route| r.route(route.path, rest::route_handler(route)));
    router
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics_text))
        .fallback(http_guard::route_not_found)
        .method_not_allowed_fallback(http_guard::method_not_allowed)
        .layer(DefaultBodyLimit::max(app.config.max_body_bytes))
        .layer(http_guard::cors_layer(app.config.allowed_origins.clone()))
        .layer(middleware::from_fn_with_state(app.clone(), http_guard::guard_host_and_origin))
        .with_state(app)
}

/// Loads `CURRENT` (if any), starts the watcher and serves until SIGINT/SIGTERM.
pub async fn serve(config: Config, listener: tokio::net::TcpListener) -> anyhow::Result<()> {
    let slot = swap::Slot::new(&config.data_dir);
    {
        let s = slot.clone();
        tokio::task::spawn_blocking(move || s.check_current(true)).await?;
    }
    let app = Arc::new(App { config: config.clone(), slot: slot.clone(), metrics: metrics::Metrics::new() });
    if let Some(g) = slot.get() {
        app.metrics.set_generation(&g.id);
    } else if let Some((problem, detail, _)) = slot.status().current_problem {
        eprintln!("serve: CURRENT refused ({problem}): {detail}; serving without a generation until it is fixed");
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
            let (mut seen, mut seen_current) = (0u64, 0u64);
            loop {
                tokio::time::sleep(Duration::from_millis(500)).await;
                let st = app.slot.status();
                if st.refusals > seen {
                    app.metrics.refusals.inc_by(st.refusals - seen);
                    seen = st.refusals;
                }
                if st.current_problems > seen_current {
                    if let Some((problem, _, _)) = st.current_problem {
                        app.metrics.refuse("current", problem.as_str());
                    }
                    seen_current = st.current_problems;
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
    http_server::serve_connections(listener, router(app.clone()), &config.limits, app.clone(), shutdown).await?;
    slot.remove_lease();
    Ok(())
}
