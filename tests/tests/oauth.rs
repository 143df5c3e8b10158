//! The OAuth 2.1 resource server (issue 18), end to end: the real `serve` binary validates JWT
//! access tokens of a loopback issuer (`tests/python/oauth_issuer.py`, which serves a JWKS,
//! RFC 8414 metadata, registration and the PKCE code flow, and mints tokens), and the Python
//! `mcp` SDK's OAuth client finds that issuer from the server's 401.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use legal_tests::http::Client;
use legal_tests::procs::{Server, mcp_python};
use serde_json::{Value, json};

/// The loopback issuer process; killed on drop.
struct Issuer {
    child: Child,
    url: String,
}

impl Issuer {
    fn start() -> Issuer {
        let script = legal_tests::workspace_root().join("tests/python/oauth_issuer.py");
        let mut child = Command::new(mcp_python(1))
            .arg(&script)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the test issuer");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).expect("issuer stdout");
        let url = line.trim().strip_prefix("issuer: ").unwrap_or_else(|| panic!("issuer said {line:?}")).to_string();
        Issuer { child, url }
    }

    /// A token signed as `spec` says (`aud`, `scope`, `exp_in`, `key`, `kid`, `alg`, `iss`).
    fn mint(&self, c: &Client, spec: Value) -> String {
        let (status, _, body) =
            c.request("POST", &format!("{}/mint", self.url), &[("content-type", "application/json")], spec.to_string());
        assert_eq!(status, 200, "{body}");
        serde_json::from_str::<Value>(&body).unwrap()["token"].as_str().unwrap().to_string()
    }
}

impl Drop for Issuer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The arguments the tests send: a query for `search_laws`, nothing for the others.
fn args_for(tool: &str) -> Value {
    if tool == "search_laws" { json!({"query": "Notwehr"}) } else { json!({}) }
}

fn rest(c: &Client, server: &Server, tool: &str, token: Option<&str>) -> (u16, Vec<(String, String)>, Value) {
    c.rest_tool(&server.base_url, tool, &args_for(tool), token)
}

fn mcp(c: &Client, server: &Server, tool: &str, token: Option<&str>) -> (u16, Vec<(String, String)>, Value) {
    c.mcp_tool(&server.mcp_url(), tool, &args_for(tool), token)
}

fn challenge(hs: &[(String, String)]) -> String {
    hs.iter().find(|(k, _)| k == "www-authenticate").map(|(_, v)| v.clone()).unwrap_or_default()
}

#[test]
fn access_tokens_of_the_issuer_are_checked_for_key_audience_expiry_and_scope() {
    let issuer = Issuer::start();
    let data = legal_tests::sample_data_dir();
    let log = data.path().join("serve.log");
    let server = Server::start_logged(data.path(), &["--oauth-issuer", &issuer.url], &log);
    let c = Client::new();
    let mcp_url = server.mcp_url();
    let server_metadata = format!("resource_metadata=\"{}/.well-known/oauth-protected-resource\"", server.base_url);
    let mcp_metadata = format!("resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"", server.base_url);

    // RFC 9728 metadata of the MCP endpoint and of the whole server.
    let (status, text) = c.get(&format!("{}/.well-known/oauth-protected-resource/mcp", server.base_url));
    assert_eq!(status, 200, "{text}");
    let prm: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(prm["resource"], json!(mcp_url));
    assert_eq!(prm["authorization_servers"], json!([issuer.url]));
    assert!(prm["scopes_supported"].as_array().unwrap().contains(&json!("legal:search")), "{prm}");
    let (_, text) = c.get(&format!("{}/.well-known/oauth-protected-resource", server.base_url));
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["resource"], json!(server.base_url));

    // A valid token: its subject, scopes and a budget of its own.
    let good = issuer.mint(&c, json!({"aud": mcp_url, "scope": "legal:read legal:search"}));
    let (status, _, who) = rest(&c, &server, "whoami", Some(&good));
    assert_eq!(status, 200, "{who}");
    assert_eq!((who["authenticated"].clone(), who["auth_method"].clone()), (json!(true), json!("oauth")), "{who}");
    assert_eq!(who["oauth"]["subject"], json!("alice"));
    assert_eq!(who["oauth"]["abilities"], json!(["search", "read"]), "{who}");
    assert_eq!((who["rate_limit"]["bucket"].clone(), who["token"].clone()), (json!("subject"), Value::Null));
    let (status, _, v) = mcp(&c, &server, "search_laws", Some(&good));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["result"]["isError"], json!(false), "{v}");
    let base_aud = issuer.mint(&c, json!({"aud": server.base_url, "scope": "legal:read"}));
    assert_eq!(
        rest(&c, &server, "get_platform_info", Some(&base_aud)).0,
        200,
        "the server's own identifier is an audience too"
    );

    // Refused with 401, the reason, and a challenge naming the metadata.
    let cases = [
        ("wrong audience", json!({"aud": "https://other.example/mcp", "scope": "legal:read"}), "wrong_audience"),
        ("expired", json!({"aud": mcp_url, "scope": "legal:read", "exp_in": -600}), "expired"),
        ("wrong key", json!({"aud": mcp_url, "scope": "legal:read", "key": "rogue"}), "bad_signature"),
        (
            "unknown key id",
            json!({"aud": mcp_url, "scope": "legal:read", "key": "rogue", "kid": "k9"}),
            "bad_signature",
        ),
        ("other issuer", json!({"aud": mcp_url, "scope": "legal:read", "iss": "https://evil.example"}), "wrong_issuer"),
        ("shared secret", json!({"aud": mcp_url, "scope": "legal:read", "alg": "HS256"}), "malformed"),
    ];
    let mut refused_tokens = Vec::new();
    for (what, spec, reason) in cases {
        let token = issuer.mint(&c, spec);
        let (status, hs, v) = rest(&c, &server, "get_platform_info", Some(&token));
        assert_eq!(
            (status, v["error_code"].clone(), v["reason"].clone()),
            (401, json!("invalid_token"), json!(reason)),
            "{what}: {v}"
        );
        let h = challenge(&hs);
        assert!(
            h.starts_with("Bearer ") && h.contains("error=\"invalid_token\"") && h.contains(&server_metadata),
            "{what}: {h}"
        );
        let (status, hs, v) = mcp(&c, &server, "get_platform_info", Some(&token));
        assert_eq!((status, v["error"]["code"].clone()), (401, json!(-32000)), "{what}: {v}");
        assert!(challenge(&hs).contains(&mcp_metadata), "{what} on /mcp names the MCP endpoint's metadata: {hs:?}");
        refused_tokens.push(token);
    }

    // A scope missing: 403 insufficient_scope with the scope to ask for; nothing ran.
    let read_only = issuer.mint(&c, json!({"aud": mcp_url, "scope": "legal:read"}));
    let (status, hs, v) = rest(&c, &server, "search_laws", Some(&read_only));
    assert_eq!((status, v["error_code"].clone()), (403, json!("token_ability_missing")), "{v}");
    assert_eq!((v["required_ability"].clone(), v["required_scope"].clone()), (json!("search"), json!("legal:search")));
    let h = challenge(&hs);
    assert!(h.contains("error=\"insufficient_scope\"") && h.contains("scope=\"legal:search\""), "{h}");
    let (status, hs, v) = mcp(&c, &server, "search_laws", Some(&read_only));
    assert_eq!(status, 403, "on /mcp a single tools/call is a step-up challenge: {v}");
    assert_eq!((v["id"].clone(), v["error"]["data"]["error_code"].clone()), (json!(9), json!("token_ability_missing")));
    assert!(challenge(&hs).contains("insufficient_scope") && challenge(&hs).contains(&mcp_metadata), "{hs:?}");

    // No token value in the metrics or the log.
    let (_, metrics) = c.get(&format!("{}/metrics", server.base_url));
    assert!(metrics.contains("legal_access_requests_total{tier=\"token\",outcome=\"invalid_token\"} 12"), "{metrics}");
    drop(server);
    let text = std::fs::read_to_string(&log).unwrap();
    for token in refused_tokens.iter().chain([&good, &read_only, &base_aud]) {
        let signature = token.rsplit('.').next().unwrap();
        assert!(!metrics.contains(signature), "no token in the metrics");
        assert!(!text.contains(signature), "no token in the log");
    }
}

#[test]
fn the_python_sdk_oauth_client_discovers_the_issuer_from_the_401() {
    let issuer = Issuer::start();
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &["--oauth-issuer", &issuer.url, "--require-token-for", "all"]);
    let c = Client::new();

    // Anonymous: 401 before anything runs, naming the metadata (no tool list for free).
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
    let (status, hs, text) = c.request(
        "POST",
        &server.mcp_url(),
        &[("content-type", "application/json"), ("accept", "application/json, text/event-stream")],
        body.to_string(),
    );
    assert_eq!(status, 401, "{text}");
    assert!(challenge(&hs).contains("/.well-known/oauth-protected-resource/mcp"), "{hs:?}");
    let (status, _, who) = rest(&c, &server, "whoami", None);
    assert_eq!((status, who["upgrade"]["action"].clone()), (200, json!("authorize")), "whoami stays open: {who}");

    let script = legal_tests::workspace_root().join("tests/python/oauth_client_check.py");
    let out = Command::new(mcp_python(1)).arg(&script).arg(server.mcp_url()).arg(&issuer.url).output().expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "OAuth client check failed\nstdout: {stdout}\nstderr: {stderr}");
    assert!(stdout.contains("OK oauth mcp 1."), "{stdout}");

    // The SDK went the whole way through the issuer.
    let (_, seen) = c.get(&format!("{}/seen", issuer.url));
    for path in ["/.well-known/oauth-authorization-server", "/register", "/authorize", "/token", "/jwks"] {
        assert!(seen.contains(&format!("\"{path}\"")), "the issuer saw {path}: {seen}");
    }
}

#[test]
fn a_key_the_issuer_rotated_out_is_refused_once_the_held_keys_are_stale() {
    let issuer = Issuer::start();
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &["--oauth-issuer", &issuer.url, "--oauth-jwks-max-age-seconds", "2"]);
    let c = Client::new();
    let old = issuer.mint(&c, json!({"aud": server.mcp_url(), "scope": "legal:read"}));
    assert_eq!(rest(&c, &server, "get_platform_info", Some(&old)).0, 200);
    let (status, _, body) = c.request("POST", &format!("{}/rotate", issuer.url), &[], "");
    assert_eq!(status, 200, "{body}");
    let new = issuer.mint(&c, json!({"aud": server.mcp_url(), "scope": "legal:read"}));
    assert_eq!(rest(&c, &server, "get_platform_info", Some(&old)).0, 200, "the held keys are still fresh");
    std::thread::sleep(std::time::Duration::from_millis(2_500));
    let (status, hs, v) = rest(&c, &server, "get_platform_info", Some(&old));
    assert_eq!((status, v["reason"].clone()), (401, json!("bad_signature")), "the rotated-out key: {v}");
    assert!(challenge(&hs).contains("invalid_token"), "{hs:?}");
    assert_eq!(rest(&c, &server, "get_platform_info", Some(&new)).0, 200, "the new key, fetched on the way");
}
