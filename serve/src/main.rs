//! `serve`: the MCP (`/mcp`) and REST (`/api`) server over `data/CURRENT`.

use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;

#[derive(Parser)]
#[command(about = "Serve the current generation over MCP (POST /mcp) and REST (/api)")]
struct Args {
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
}

fn main() {
    catalog::cli::init_tracing();
    let args = Args::parse();
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
        limits: serve::app::Limits {
            max_connections: args.max_connections,
            header_read_timeout: Duration::from_millis(args.header_read_timeout_ms.max(100)),
            body_read_timeout: Duration::from_millis(args.body_read_timeout_ms.max(100)),
        },
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
