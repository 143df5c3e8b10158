//! The real Python `mcp` SDK clients (1.x and 2.x) against `serve`, on a generation that the
//! real stage binaries built from a loopback mirror of the embedded sample. SDK 2.x runs in
//! each of its connect modes: `auto` (probes `server/discover` and stays modern on this
//! dual-era server), a pinned `2026-07-28` (no probe), and `legacy` (`initialize`).

use std::process::Command;

use legal_tests::procs::{Server, mcp_python};

fn run_client(major: u32, mode: Option<&str>) {
    let data = legal_tests::sample_data_dir();
    // Two tools per page: the clients must follow nextCursor.
    let server = Server::start(data.path(), &["--tools-page-size", "2"]);
    let script = legal_tests::workspace_root().join("tests/python/mcp_client_check.py");
    let mut cmd = Command::new(mcp_python(major));
    cmd.arg(&script).arg(server.mcp_url());
    if let Some(m) = mode {
        cmd.arg(m);
    }
    let out = cmd.output().expect("run python client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "mcp {major}.x client ({mode:?}) failed\nstdout: {stdout}\nstderr: {stderr}");
    assert!(stdout.contains(&format!("OK mcp {major}.")), "client reported: {stdout}");
}

#[test]
fn python_mcp_sdk_1x_end_to_end() {
    run_client(1, None);
}

#[test]
fn python_mcp_sdk_2x_auto_mode_speaks_2026_07_28() {
    run_client(2, Some("auto"));
}

#[test]
fn python_mcp_sdk_2x_pinned_modern_version() {
    run_client(2, Some("2026-07-28"));
}

#[test]
fn python_mcp_sdk_2x_legacy_handshake() {
    run_client(2, Some("legacy"));
}

/// Runs `tests/python/output_schema_check.py` (SDK 1.x, which itself validates every
/// `structuredContent` against the tool's `outputSchema`) against `data`.
fn check_output_schemas(data: &std::path::Path, breadth: u32) {
    let server = Server::start(data, &[]);
    let script = legal_tests::workspace_root().join("tests/python/output_schema_check.py");
    let out = Command::new(mcp_python(1))
        .arg(&script)
        .arg(server.mcp_url())
        .env("OUTPUT_SCHEMA_BREADTH", breadth.to_string())
        .output()
        .expect("run python client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "output schema check failed\nstdout: {stdout}\nstderr: {stderr}");
    assert!(stdout.contains("OK output schemas"), "client reported: {stdout}");
}

#[test]
fn every_tools_answers_conform_to_its_output_schema_on_the_sample() {
    check_output_schemas(legal_tests::sample_data_dir().path(), 1);
}

/// The same over the whole shared decision corpus, with more decisions reached per tool.
#[test]
fn every_tools_answers_conform_to_its_output_schema_on_the_shared_corpus() {
    let Some(data) = legal_tests::full_corpus_data_dir() else { return };
    check_output_schemas(data.path(), 6);
}
