//! The HTTP transport: the one route table (MCP, REST, health, metrics), the router built
//! from it, and [`serve`], which loads the generation, starts the swap watcher and runs the
//! accept loop ([`super::http_server`]) behind the guards ([`super::http_guard`]).

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{StatusCode, header};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;

use super::{http_access, http_guard, http_server, mcp, rest};
use crate::app::{App, Config, swap};

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
    get_route("/api/whoami", "whoami"),
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
        .route("/.well-known/oauth-protected-resource", get(http_access::resource_metadata_of_server))
        .route("/.well-known/oauth-protected-resource/mcp", get(http_access::resource_metadata_of_mcp))
        .fallback(http_guard::route_not_found)
        .method_not_allowed_fallback(http_guard::method_not_allowed)
        .layer(middleware::from_fn_with_state(app.clone(), http_access::admit))
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
    let tokens = crate::app::tokens::TokenStore::for_serving(&crate::app::tokens::tokens_path(&config.data_dir));
    let addr = listener.local_addr()?;
    let public_url = config.public_url.clone().unwrap_or_else(|| format!("http://{addr}"));
    let access = crate::app::access::Access::new(config.access.clone(), tokens, &public_url)?;
    if let Some(o) = access.oauth() {
        println!("serve: accepting OAuth access tokens of {} for {}", o.issuer(), o.resource(true));
    }
    let app = Arc::new(App::new(config.clone(), slot.clone(), access));
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
