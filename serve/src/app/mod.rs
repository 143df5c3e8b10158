//! The application layer: the server's configuration, the served generation ([`swap`]), the
//! metrics, and [`run_tool`], the one way a transport runs a tool (off the async workers, under
//! the call deadline, within the response budget).
//!
//! Layering (see ARCHITECTURE.md): transports → app → tools → query → store; `contract`
//! (the answer envelope, refusals, typed arguments, the call deadline) is shared by all.

pub mod access;
pub mod budget;
pub mod metrics;
pub mod oauth;
pub mod swap;
pub mod tokens;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use crate::contract::answer::{ErrorCode, ToolError};
use crate::contract::deadline;
use crate::tools;

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
    pub limits: Limits,
    /// Rate limits and token rules ([`access`]).
    pub access: access::AccessConfig,
    /// The base URL clients reach this server at (behind a proxy: the proxy's); None =
    /// `http://<bound address>`. It is the OAuth resource identifier.
    pub public_url: Option<String>,
    /// Most calls of [`tools::Workload::Scan`] tools running at once; the others wait their
    /// turn in arrival order ([`run_tool`]).
    pub max_concurrent_scans: usize,
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
    pub access: access::Access,
    /// The turns of scanning calls (`config.max_concurrent_scans` permits, first come first served).
    scan_turns: Arc<tokio::sync::Semaphore>,
}

impl App {
    pub fn new(config: Config, slot: Arc<swap::Slot>, access: access::Access) -> App {
        let scan_turns = Arc::new(tokio::sync::Semaphore::new(config.max_concurrent_scans.max(1)));
        App { config, slot, metrics: metrics::Metrics::new(), access, scan_turns }
    }
}

/// The default of `--max-concurrent-scans`: one more than the cores, so a core is never idle
/// while a scan waits, and the scans running share the cores few ways. With every call let in
/// at once, eight searches on two cores each took four times their own time: 2 ms of work
/// answered in 8, the longest in 20 and more.
pub fn default_max_concurrent_scans() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get()) + 1
}

tokio::task_local! {
    /// An earlier deadline a transport sets for every call it makes while serving one request:
    /// the calls of one JSON-RPC batch share one, so a batch costs at most what one call may.
    pub static REQUEST_DEADLINE: Instant;
    /// The caller the access layer admitted the request under (set by the transport).
    pub static CALLER: crate::contract::caller::Caller;
}

/// Whether `caller` may run `tool` (its ability; a token where the deployment requires one):
/// the refusal otherwise, counted in the access metrics. Nothing has run.
pub fn permit(
    app: &App,
    caller: Option<&crate::contract::caller::Caller>,
    tool: &tools::Tool,
) -> Result<(), ToolError> {
    use crate::contract::caller::Credential;
    let Some(c) = caller else { return Ok(()) };
    let Err(refusal) = app.access.permits(c, tool.ability) else { return Ok(()) };
    let a = refusal.ability();
    // With an OAuth issuer, the scope to ask for and where the issuer is named.
    let scope = app.access.oauth().map(|o| (o.scope_of(a), o.resource_metadata_url(true)));
    let (outcome, code, message, hint) = match (refusal, &scope) {
        (access::Refusal::AbilityMissing(_), scope) => (
            model::AccessOutcome::AbilityMissing,
            ErrorCode::TokenAbilityMissing,
            format!("{} needs the ability {}, which this token does not have", tool.name, a.as_str()),
            match (&c.credential, scope) {
                (Some(Credential::OAuth(_)), Some((s, _))) => {
                    format!("Authorize again asking for the scope {s}; nothing ran.")
                }
                _ => "Create a token with this ability (serve token create --abilities …) or use another token.".into(),
            },
        ),
        (access::Refusal::TokenRequired(_), Some((s, metadata))) => (
            model::AccessOutcome::TokenRequired,
            ErrorCode::TokenRequired,
            format!("this server requires an access token for {} (ability {})", tool.name, a.as_str()),
            format!(
                "Sign in through the OAuth issuer named at {metadata} asking for the scope {s}, or send an API \
                 token with this ability, as Authorization: Bearer <token>."
            ),
        ),
        (access::Refusal::TokenRequired(_), None) => (
            model::AccessOutcome::TokenRequired,
            ErrorCode::TokenRequired,
            format!("this server requires an access token for {} (ability {})", tool.name, a.as_str()),
            "Send Authorization: Bearer <token> with a token that has this ability.".to_string(),
        ),
    };
    let mut e = ToolError::new(code, message, hint).with("required_ability", a.as_str());
    if let Some((s, _)) = scope {
        e = e.with("required_scope", s);
    }
    app.metrics.access(c.rate_limit.tier, outcome);
    Err(e)
}

/// Runs one tool call off the async executor, until the configured timeout or the request's
/// deadline ([`REQUEST_DEADLINE`]), whichever comes first.
pub async fn run_tool(
    app: &Arc<App>,
    tool: &'static tools::Tool,
    arguments: Map<String, Value>,
    transport: &str,
) -> tools::Answer {
    let started = Instant::now();
    let generation = app.slot.get();
    let gref = generation.as_deref().map(tools::generation_ref);
    // A caller without the tool's ability is refused before anything runs.
    let caller = CALLER.try_with(Clone::clone).ok();
    if let Err(e) = permit(app, caller.as_ref(), tool) {
        return tools::Answer::refusal(e, gref.as_ref(), &[]);
    }
    // The deadline also travels into the blocking thread, where long loops check it
    // (`deadline::check`): a call answered `timeout` stops instead of burning CPU on.
    let own = started + app.config.tool_timeout;
    let deadline = REQUEST_DEADLINE.try_with(|d| *d).map_or(own, |d| d.min(own));
    let budget_bytes = app.config.max_response_bytes;
    let timed_out = || {
        let e = ToolError::new(
            ErrorCode::Timeout,
            format!("{} did not finish within {} ms", tool.name, deadline.duration_since(started).as_millis()),
            "Narrow the request (smaller limit or length) and retry.",
        );
        tools::Answer::refusal(e, gref.as_ref(), &[])
    };
    // A scan waits its turn, within the call's deadline; the turn is held until the work ends,
    // also when the caller was answered `timeout` before.
    let turn = match tool.workload {
        tools::Workload::Scan => match app.scan_turns.clone().try_acquire_owned() {
            Ok(turn) => Some(turn),
            Err(_) => {
                app.metrics.scan_waited();
                match tokio::time::timeout_at(deadline.into(), app.scan_turns.clone().acquire_owned()).await {
                    Ok(turn) => turn.ok(),
                    Err(_) => return finish(app, tool, transport, started, timed_out()),
                }
            }
        },
        tools::Workload::Lookup => None,
    };
    let running = turn.as_ref().map(|_| app.metrics.scan_running());
    let task = tokio::task::spawn_blocking(move || {
        // Fields drop in order: the call stops counting as running before its turn is free.
        let _turn = (running, turn);
        crate::contract::caller::scope(caller, || {
            deadline::scope(deadline, || {
                let mut answer = tools::call(tool, generation, &arguments);
                if answer.error.is_none() {
                    budget::fit(&mut answer.body, tool.shed, budget_bytes);
                }
                answer
            })
        })
    });
    let answer = match tokio::time::timeout_at(deadline.into(), task).await {
        Ok(Ok(a)) => a,
        Ok(Err(join)) => tools::Answer::refusal(
            ToolError::internal(format!("tool {} failed: {join}", tool.name)),
            gref.as_ref(),
            &[],
        ),
        Err(_) => timed_out(),
    };
    finish(app, tool, transport, started, answer)
}

/// Counts a call's answer in the metrics and returns it.
fn finish(app: &App, tool: &tools::Tool, transport: &str, started: Instant, answer: tools::Answer) -> tools::Answer {
    let outcome = answer.error.map(|c| c.as_str()).unwrap_or("ok");
    app.metrics.observe(transport, tool.name, outcome, started.elapsed().as_secs_f64());
    answer
}

/// Connection-level limits of the server.
#[derive(Debug, Clone)]
pub struct Limits {
    pub max_connections: usize,
    pub header_read_timeout: Duration,
    pub body_read_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_connections: 1024,
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
        }
    }
}
