//! Running the real stage binaries (`ingest`, `extract`, `resolve`, `index`, `serve`) as
//! processes, as an operator or cron would.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// `target/<profile>/` of the running test binary (`target/<profile>/deps/<test>`).
pub fn bin_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    let dir = exe.parent().expect("deps dir");
    if dir.file_name().is_some_and(|n| n == "deps") {
        dir.parent().expect("profile dir").to_path_buf()
    } else {
        dir.to_path_buf()
    }
}

/// Path of a workspace binary; panics with the fix if it was not built.
pub fn bin(name: &str) -> PathBuf {
    let p = bin_dir().join(name);
    assert!(
        p.is_file(),
        "binary {} not found: build the workspace first (`cargo build --workspace` or `make test`)",
        p.display()
    );
    p
}

/// Runs a stage binary to completion and returns its output.
pub fn run_stage(name: &str, args: &[&str]) -> Output {
    Command::new(bin(name))
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {name}: {e}"))
}

/// Runs a stage and asserts it exited 0; returns stdout.
pub fn run_stage_ok(name: &str, args: &[&str]) -> String {
    let out = run_stage(name, args);
    assert!(
        out.status.success(),
        "{name} {:?} failed with {:?}\nstdout: {}\nstderr: {}",
        args,
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs ingest (unthrottled, with `sources` arguments), extract, resolve and index into `data_dir`.
fn build_generation(data_dir: &Path, sources: &[&str]) -> String {
    let d = data_dir.to_str().expect("utf-8 path");
    let mut args = vec!["--data-dir", d, "--rate", "0", "--concurrency", "8", "--backoff-ms", "20"];
    args.extend_from_slice(sources);
    let mut log = run_stage_ok("ingest", &args);
    for stage in ["extract", "resolve", "index"] {
        log.push_str(&run_stage_ok(stage, &["--data-dir", d]));
    }
    log
}

/// `ingest` of the statutes from the mirror at `gii_base_url` plus the Open Legal Data dump
/// `dump` (unthrottled); returns its stdout.
pub fn ingest_statutes_and_dump(data_dir: &Path, gii_base_url: &str, dump: &Path) -> String {
    let (d, dump) = (data_dir.to_str().expect("utf-8 path"), dump.to_str().expect("utf-8 path"));
    run_stage_ok(
        "ingest",
        &["--data-dir", d, "--rate", "0", "--sources", "gii", "--gii-base-url", gii_base_url, "--oldp-dump", dump],
    )
}

/// Statutes only, from a mirror of gesetze-im-internet.de at `base_url`.
pub fn build_statutes_generation(data_dir: &Path, base_url: &str) -> String {
    build_generation(data_dir, &["--sources", "gii", "--gii-base-url", base_url])
}

/// Statutes plus decisions: the rii toc from the same mirror and the Open Legal Data dump at
/// `oldp_dump`.
pub fn build_generation_with_decisions(data_dir: &Path, base_url: &str, oldp_dump: &Path) -> String {
    let dump = oldp_dump.to_str().expect("utf-8 path");
    build_generation(
        data_dir,
        &["--sources", "gii,rii", "--gii-base-url", base_url, "--rii-base-url", base_url, "--oldp-dump", dump],
    )
}

/// A `serve` process on a free loopback port; killed on drop.
pub struct Server {
    pub child: Child,
    pub base_url: String,
}

impl Server {
    /// Starts `serve --data-dir <dir> --addr 127.0.0.1:0` plus `extra` args and waits until ready.
    pub fn start(data_dir: &Path, extra: &[&str]) -> Server {
        Server::start_via(&[], data_dir, extra)
    }

    /// [`Server::start`] through a wrapper command (e.g. `["prlimit", "--nofile=256"]`).
    pub fn start_via(wrapper: &[&str], data_dir: &Path, extra: &[&str]) -> Server {
        Server::spawn(wrapper, data_dir, extra, Stdio::inherit(), "warn")
    }

    /// [`Server::start`] with its log (stderr, at `RUST_LOG=debug`) written to `log`.
    pub fn start_logged(data_dir: &Path, extra: &[&str], log: &Path) -> Server {
        let file = std::fs::File::create(log).expect("create the server log");
        Server::spawn(&[], data_dir, extra, Stdio::from(file), "debug")
    }

    fn spawn(wrapper: &[&str], data_dir: &Path, extra: &[&str], stderr: Stdio, log_level: &str) -> Server {
        let serve = bin("serve");
        let mut cmd = match wrapper.split_first() {
            Some((program, args)) => {
                let mut c = Command::new(program);
                c.args(args).arg(&serve);
                c
            }
            None => Command::new(&serve),
        };
        let mut child = cmd
            .arg("--data-dir")
            .arg(data_dir)
            .args(["--addr", "127.0.0.1:0"])
            .args(extra)
            .env("RUST_LOG", log_level)
            // Tests send many requests from one address: no anonymous limit unless a test sets
            // one (`--anonymous-per-hour` wins over the variable).
            .env("LEGAL_ANONYMOUS_PER_HOUR", "0")
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("spawn serve");
        let stdout = child.stdout.take().expect("stdout piped");
        let mut reader = BufReader::new(stdout);
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut line = String::new();
        let base_url = loop {
            line.clear();
            let n = reader.read_line(&mut line).expect("read serve stdout");
            assert!(n > 0, "serve exited before it was ready");
            // "serve: listening on http://127.0.0.1:PORT (MCP http://127.0.0.1:PORT/mcp)"
            if let Some(rest) = line.trim().strip_prefix("serve: listening on ") {
                break rest.split_whitespace().next().expect("url").to_string();
            }
            assert!(Instant::now() < deadline, "serve did not report its address");
        };
        // Keep draining stdout so the server never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut sink = String::new();
            while reader.read_line(&mut sink).map(|n| n > 0).unwrap_or(false) {
                sink.clear();
            }
        });
        Server { child, base_url }
    }

    pub fn mcp_url(&self) -> String {
        format!("{}/mcp", self.base_url)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The Python interpreter of a venv with the `mcp` SDK (`major` 1 or 2), made by `make venv`.
pub fn mcp_python(major: u32) -> PathBuf {
    let var = format!("MCP_PYTHON_{major}");
    if let Ok(p) = std::env::var(&var) {
        return PathBuf::from(p);
    }
    let p = crate::workspace_root().join(format!(".venv-mcp{major}/bin/python"));
    assert!(p.is_file(), "no Python venv with mcp {major}.x at {}: run `make venv` (or set {var})", p.display());
    p
}
