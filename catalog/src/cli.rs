//! What every binary shares: logging to stderr, progress bars that stay hidden when stderr is
//! not a terminal, and the TLS crypto provider its HTTPS clients use.

/// A progress bar on a terminal; hidden when stderr is not one (cron, tests).
pub fn progress_bar(len: u64, what: &str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{prefix} [{bar:40}] {pos}/{len} {per_sec} eta {eta}")
            .expect("static template")
            .progress_chars("=> "),
    );
    bar.set_prefix(what.to_string());
    bar
}

/// Logs to stderr with `RUST_LOG` (default `warn`), shared by every stage binary.
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}

/// Installs the ring crypto provider for rustls once: reqwest is built without one (ring is
/// cheaper to build than aws-lc), so a binary that fetches over HTTPS calls this first.
pub fn install_tls_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
