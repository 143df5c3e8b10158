//! `serve`: the MCP (`/mcp`) and REST (`/api`) server over `data/CURRENT`.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(about = "Serve the current generation over MCP (POST /mcp) and REST (/api)")]
struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    #[arg(long, default_value = "data", env = "LEGAL_DATA_DIR")]
    data_dir: PathBuf,
    /// Address to bind; keep it on loopback unless a proxy in front handles TLS and access.
    #[arg(long, default_value = "127.0.0.1:8080", env = "LEGAL_ADDR")]
    addr: String,
    /// Allowed Origin (repeatable). Default: localhost, 127.0.0.1 and [::1] on any port.
    #[arg(long = "allow-origin")]
    allow_origin: Vec<String>,
    /// Allowed Host name, any port (repeatable; `*` = any). Default: localhost, 127.0.0.1, [::1].
    /// A public deployment names the host clients use (DNS-rebinding protection).
    #[arg(long = "allow-host")]
    allow_host: Vec<String>,
    /// Largest accepted request body in bytes (larger → 413).
    #[arg(long, default_value_t = 1 << 20)]
    max_body_bytes: usize,
    /// Time limit of one tool call in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    tool_timeout_ms: u64,
    /// Most searches, graph walks and text checks running at once; more wait their turn in
    /// arrival order (within their time limit). Look-ups by key never wait. Default: cores + 1.
    #[arg(long, env = "LEGAL_MAX_CONCURRENT_SCANS")]
    max_concurrent_scans: Option<usize>,
    /// Matching decisions a ranked search_decisions counts before it stops (its `total` is then
    /// a floor, `total_is_floor: true`); counting walks every matching passage, so a higher cap
    /// costs time on common words. get_case_statistics always counts them all.
    #[arg(long, default_value_t = serve::query::decision_search::DEFAULT_COUNT_CAP, env = "LEGAL_SEARCH_COUNT_CAP")]
    search_count_cap: usize,
    /// How often to look at CURRENT for a new generation, in milliseconds (SIGHUP: at once).
    #[arg(long, default_value_t = 1_000)]
    poll_ms: u64,
    /// Tools per tools/list page.
    #[arg(long, default_value_t = 50)]
    tools_page_size: usize,
    /// Most bytes of responses one JSON-RPC batch (protocol 2025-03-26) returns; the requests
    /// past it are answered "not run" (-32001, retryable) instead of being run.
    #[arg(long, default_value_t = 4 << 20)]
    max_batch_response_bytes: usize,
    /// Most bytes of one tool answer (its JSON); over it, rows are dropped from the end of the
    /// tool's lists and the answer says so in `payload_truncated`, `truncation` and `guidance`.
    #[arg(long, default_value_t = 1 << 20)]
    max_response_bytes: usize,
    /// Most connections open at once; past it a new connection is closed at once.
    #[arg(long, default_value_t = 1024, env = "LEGAL_MAX_CONNECTIONS")]
    max_connections: usize,
    /// Time a client has to send a request's headers, and the longest a keep-alive connection
    /// stays idle, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    header_read_timeout_ms: u64,
    /// Time a client has to send a request's body, in milliseconds.
    #[arg(long, default_value_t = 30_000)]
    body_read_timeout_ms: u64,
    /// Requests per hour per anonymous client IP address (MCP and REST together; 0 = no limit).
    #[arg(long, default_value_t = 1_000, env = "LEGAL_ANONYMOUS_PER_HOUR")]
    anonymous_per_hour: u32,
    /// A client range (`10.0.0.0/8`, repeatable) whose anonymous clients share one budget, as a
    /// connector's egress IPs do.
    #[arg(long = "shared-client-range", value_parser = parse_range)]
    shared_client_range: Vec<(std::net::IpAddr, u8)>,
    /// Requests per hour of the shared budget of those ranges (0 = no limit).
    #[arg(long, default_value_t = 5_000)]
    shared_per_hour: u32,
    /// Requests per hour of an API token without its own limit (0 = no limit).
    #[arg(long, default_value_t = 5_000)]
    token_per_hour: u32,
    /// Abilities an anonymous caller may not use (comma-separated: search, read, graph,
    /// datapackage, citation-check; `all` for every one). Default: none, all tools are open.
    #[arg(long, value_delimiter = ',')]
    require_token_for: Vec<String>,
    /// The base URL clients reach this server at, e.g. https://legal.example (behind a proxy:
    /// the proxy's). It is the OAuth resource identifier. Default: http://<bound address>.
    #[arg(long, env = "LEGAL_PUBLIC_URL")]
    public_url: Option<String>,
    /// Accept OAuth 2.1 access tokens (JWT) of this issuer, e.g.
    /// https://id.example/realms/legal. Default: API tokens only.
    #[arg(long, env = "LEGAL_OAUTH_ISSUER")]
    oauth_issuer: Option<String>,
    /// The issuer's JWKS URL. Default: its jwks_uri, from the issuer's metadata.
    #[arg(long, env = "LEGAL_OAUTH_JWKS_URL", requires = "oauth_issuer")]
    oauth_jwks_url: Option<String>,
    /// An accepted `aud` of access tokens (repeatable). Default: <public-url>/mcp and <public-url>.
    #[arg(long = "oauth-audience", requires = "oauth_issuer")]
    oauth_audience: Vec<String>,
    /// The prefix that makes a scope an ability: with `legal:`, `legal:search` grants search.
    #[arg(long, default_value = "legal:")]
    oauth_scope_prefix: String,
    /// Seconds the issuer's keys are trusted before they are fetched again: a key the issuer
    /// rotated out or revoked is refused after at most this long.
    #[arg(long, default_value_t = 600)]
    oauth_jwks_max_age_seconds: u64,
}

#[derive(Subcommand)]
enum Command {
    /// Manage API tokens (stored hashed in <data-dir>/access/tokens.sqlite, never in a generation).
    Token {
        #[command(subcommand)]
        action: TokenAction,
    },
}

#[derive(Subcommand)]
enum TokenAction {
    /// Creates a token and prints it once.
    Create {
        /// A name for the holder (shown by `list`).
        #[arg(long)]
        name: String,
        /// Comma-separated abilities: search, read, graph, datapackage, citation-check, or all.
        #[arg(long, value_delimiter = ',', default_value = "all")]
        abilities: Vec<String>,
        /// Its own requests per hour (default: the server's --token-per-hour).
        #[arg(long)]
        per_hour: Option<u32>,
        /// Days until it expires (default: never).
        #[arg(long)]
        expires_in_days: Option<u32>,
    },
    /// Lists the tokens (never their secrets).
    List,
    /// Revokes a token; the next request with it is refused.
    Revoke { id: i64 },
}

fn parse_range(s: &str) -> Result<(std::net::IpAddr, u8), String> {
    serve::app::access::parse_range(s).ok_or_else(|| format!("{s:?} is not an address range like 10.0.0.0/8"))
}

fn abilities(names: &[String]) -> Result<Vec<serve::contract::caller::Ability>, String> {
    use serve::contract::caller::Ability;
    if names.iter().any(|n| n.trim() == "all") {
        return Ok(Ability::ALL.to_vec());
    }
    names
        .iter()
        .filter(|n| !n.trim().is_empty())
        .map(|n| {
            Ability::parse(n.trim())
                .ok_or_else(|| format!("unknown ability {n:?}; use {} or all", Ability::SPELLINGS.join(", ")))
        })
        .collect()
}

/// `serve token …`: the operator's token commands.
fn token_command(data_dir: &std::path::Path, action: TokenAction) -> anyhow::Result<()> {
    use serve::app::tokens::{TokenStore, tokens_path};
    let store = TokenStore::open(&tokens_path(data_dir))?;
    match action {
        TokenAction::Create { name, abilities: names, per_hour, expires_in_days } => {
            let abilities = abilities(&names).map_err(anyhow::Error::msg)?;
            let (id, token) = store.create(&name, &abilities, per_hour, expires_in_days)?;
            println!("{token}");
            eprintln!("token {id} ({name}) created; it is shown only now, store it safely");
        }
        TokenAction::List => {
            for t in store.list()? {
                println!(
                    "{}\t{}\t{}\t{}\t{}\t{}\t{}",
                    t.id,
                    t.name,
                    t.abilities,
                    t.per_hour.map(|n| n.to_string()).unwrap_or_else(|| "default".into()),
                    t.created_at,
                    t.expires_at_unix.map(|n| n.to_string()).unwrap_or_else(|| "never".into()),
                    t.revoked_at.unwrap_or_else(|| "active".into())
                );
            }
        }
        TokenAction::Revoke { id } => {
            if !store.revoke(id)? {
                anyhow::bail!("no active token {id}; see `serve token list`");
            }
            eprintln!("token {id} revoked");
        }
    }
    Ok(())
}

fn main() {
    catalog::cli::init_tracing();
    let mut args = Args::parse();
    if let Some(Command::Token { action }) = args.command.take() {
        if let Err(e) = token_command(&args.data_dir, action) {
            eprintln!("serve token: {e:#}");
            std::process::exit(2);
        }
        return;
    }
    serve::query::decision_search::set_count_cap(args.search_count_cap);
    let token_required_for = match abilities(&args.require_token_for) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("serve: --require-token-for: {e}");
            std::process::exit(2);
        }
    };
    let config = serve::Config {
        data_dir: args.data_dir,
        allowed_origins: if args.allow_origin.is_empty() {
            serve::Config::default_origins()
        } else {
            args.allow_origin
        },
        allowed_hosts: if args.allow_host.is_empty() { serve::Config::default_hosts() } else { args.allow_host },
        max_body_bytes: args.max_body_bytes,
        tool_timeout: Duration::from_millis(args.tool_timeout_ms),
        poll_interval: Duration::from_millis(args.poll_ms.max(50)),
        tools_page_size: args.tools_page_size,
        max_batch_response_bytes: args.max_batch_response_bytes,
        max_response_bytes: args.max_response_bytes,
        max_concurrent_scans: args.max_concurrent_scans.unwrap_or_else(serve::app::default_max_concurrent_scans),
        limits: serve::app::Limits {
            max_connections: args.max_connections,
            header_read_timeout: Duration::from_millis(args.header_read_timeout_ms.max(100)),
            body_read_timeout: Duration::from_millis(args.body_read_timeout_ms.max(100)),
        },
        access: serve::app::access::AccessConfig {
            anonymous_per_hour: args.anonymous_per_hour,
            shared_ranges: args.shared_client_range,
            shared_per_hour: args.shared_per_hour,
            token_per_hour: args.token_per_hour,
            token_required_for,
            oauth: args.oauth_issuer.map(|issuer| serve::app::oauth::OAuthConfig {
                issuer,
                jwks_url: args.oauth_jwks_url,
                audiences: args.oauth_audience,
                scope_prefix: args.oauth_scope_prefix,
                jwks_max_age: Duration::from_secs(args.oauth_jwks_max_age_seconds.max(1)),
            }),
        },
        public_url: args.public_url,
    };
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let result = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(&args.addr)
            .await
            .map_err(|e| anyhow::anyhow!("cannot bind {}: {e}", args.addr))?;
        serve::serve(config, listener).await
    });
    if let Err(e) = result {
        eprintln!("serve: {e:#}");
        std::process::exit(1);
    }
}
