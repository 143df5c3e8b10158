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
}

fn main() {
    ingest::init_tracing();
    let args = Args::parse();
    let config = serve::Config {
        data_dir: args.data_dir,
        allowed_origins: if args.allow_origin.is_empty() {
            serve::Config::default_origins()
        } else {
            args.allow_origin
        },
        max_body_bytes: args.max_body_bytes,
        tool_timeout: Duration::from_millis(args.tool_timeout_ms),
        poll_interval: Duration::from_millis(args.poll_ms.max(50)),
        tools_page_size: args.tools_page_size,
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
