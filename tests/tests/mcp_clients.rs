//! The real Python `mcp` SDK clients (1.x and 2.x) against `serve`, on a generation that the
//! real stage binaries built from a loopback mirror of the embedded sample.

use std::process::Command;

use legal_tests::procs::{Server, mcp_python};

fn run_client(major: u32) {
    let data = legal_tests::sample_data_dir();
    // Two tools per page: the clients must follow nextCursor.
    let server = Server::start(data.path(), &["--tools-page-size", "2"]);
    let script = legal_tests::workspace_root().join("tests/python/mcp_client_check.py");
    let out = Command::new(mcp_python(major)).arg(&script).arg(server.mcp_url()).output().expect("run python client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "mcp {major}.x client failed\nstdout: {stdout}\nstderr: {stderr}");
    assert!(stdout.contains(&format!("OK mcp {major}.")), "client reported: {stdout}");
}

#[test]
fn python_mcp_sdk_1x_end_to_end() {
    run_client(1);
}

#[test]
fn python_mcp_sdk_2x_end_to_end() {
    run_client(2);
}
