//! Slow clients cannot take the server: under a 256-descriptor limit, 300 connections that
//! never finish their headers are cut by the connection cap and the header-read timeout, and
//! a normal request is answered meanwhile; a client that stops sending its body is cut by the
//! body-read timeout.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use legal_tests::Mirror;
use legal_tests::procs::{Server, build_statutes_generation};

fn addr(server: &Server) -> String {
    server.base_url.trim_start_matches("http://").to_string()
}

/// One plain request on a fresh connection; the status line, or None if the server closed.
fn get_status(addr: &str, path: &str) -> Option<String> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").ok()?;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).ok()?;
    String::from_utf8_lossy(&buf).lines().next().map(str::to_string)
}

#[test]
fn slow_header_and_slow_body_clients_are_cut_and_others_are_answered() {
    let data = tempfile::tempdir().unwrap();
    let mirror = Mirror::start(vec![legal_tests::sample_gii()]);
    build_statutes_generation(data.path(), &mirror.base_url());
    let server = Server::start_via(
        &["prlimit", "--nofile=256:256"],
        data.path(),
        &["--max-connections", "200", "--header-read-timeout-ms", "1000", "--body-read-timeout-ms", "1000"],
    );
    let addr = addr(&server);
    assert_eq!(get_status(&addr, "/healthz").as_deref(), Some("HTTP/1.1 200 OK"));

    // 300 connections that send half a request head and then nothing.
    let mut slow: Vec<TcpStream> = (0..300)
        .filter_map(|_| {
            let mut s = TcpStream::connect(&addr).ok()?;
            s.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n").ok()?;
            Some(s)
        })
        .collect();
    assert!(slow.len() >= 250, "the kernel accepted {} connections", slow.len());

    // A normal client is answered while they hang (after the cap or the timeout frees room).
    let deadline = Instant::now() + Duration::from_secs(20);
    let answered = loop {
        if let Some(line) = get_status(&addr, "/healthz") {
            break line;
        }
        assert!(Instant::now() < deadline, "no answer while 300 slow clients hang");
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(answered, "HTTP/1.1 200 OK");

    // Every slow connection is closed by the server: reading reaches EOF (after any 408 the
    // server sends) or a reset, never the 10 s read timeout.
    for s in &mut slow {
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut rest = Vec::new();
        if let Err(e) = s.read_to_end(&mut rest) {
            assert!(
                !matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut),
                "a slow-header connection was left open: {e}"
            );
        }
    }
    drop(slow);

    // A body that never arrives: headers promise 1000 bytes, 10 are sent; the server gives up.
    let mut s = TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
    s.write_all(
        b"POST /api/tools/search_laws HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"query\":",
    )
    .unwrap();
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    let head = String::from_utf8_lossy(&buf);
    assert!(head.is_empty() || head.starts_with("HTTP/1.1 408") || head.starts_with("HTTP/1.1 400"), "{head}");

    // The server is still fine.
    assert_eq!(get_status(&addr, "/healthz").as_deref(), Some("HTTP/1.1 200 OK"));
}
