//! MCP transport rules and REST parity, over real loopback HTTP against the `serve` binary.

use legal_tests::procs::Server;
use serde_json::{Value, json};

struct Http {
    client: reqwest::Client,
    rt: tokio::runtime::Runtime,
}

struct Reply {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }
}

impl Http {
    fn new() -> Http {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        Http { client: reqwest::Client::new(), rt }
    }

    fn send(&self, req: reqwest::RequestBuilder) -> Reply {
        self.rt.block_on(async {
            let r = req.send().await.expect("request");
            let status = r.status().as_u16();
            let headers = r.headers().clone();
            let body = r.text().await.unwrap_or_default();
            Reply { status, headers, body }
        })
    }

    fn mcp(&self, url: &str, body: &Value, version: Option<&str>) -> Reply {
        let version: Vec<(&str, &str)> = version.map(|v| ("mcp-protocol-version", v)).into_iter().collect();
        self.post_mcp(url, body, &version)
    }

    /// POST `body` to the MCP endpoint as a client would (JSON, both Accept types) plus `headers`.
    fn post_mcp(&self, url: &str, body: &Value, headers: &[(&str, &str)]) -> Reply {
        let mut req = self
            .client
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        self.send(req)
    }
}

fn call(name: &str, args: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": name, "arguments": args}})
}

#[test]
fn mcp_transport_rules_and_rest_parity() {
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &["--max-body-bytes", "4096", "--tools-page-size", "2"]);
    let h = Http::new();
    let url = server.mcp_url();

    // initialize echoes a supported version (id 0 is a real id) and offers the latest otherwise.
    for (asked, expect) in [("2025-06-18", "2025-06-18"), ("2025-03-26", "2025-03-26"), ("2024-01-01", "2025-11-25")] {
        let r = h.mcp(
            &url,
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
            None,
        );
        assert_eq!(r.status, 200);
        let v = r.json();
        assert_eq!(v["id"], 0);
        assert_eq!(v["result"]["protocolVersion"], expect, "asked {asked}");
        assert!(v["result"]["capabilities"]["tools"].is_object());
    }
    // Notifications and client responses: 202, no body.
    let r = h.mcp(&url, &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}), Some("2025-11-25"));
    assert_eq!((r.status, r.body.as_str()), (202, ""));
    let r = h.mcp(&url, &json!({"jsonrpc": "2.0", "id": 3, "result": {}}), Some("2025-11-25"));
    assert_eq!(r.status, 202);
    // ping.
    let r = h.mcp(&url, &json!({"jsonrpc": "2.0", "id": "p", "method": "ping"}), Some("2025-11-25"));
    assert_eq!(r.json()["result"], json!({}));
    // A modern method under a legacy version → -32601 (HTTP 200: legacy errors stay 200).
    let r = h.mcp(&url, &json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover"}), Some("2025-06-18"));
    assert_eq!((r.status, r.json()["error"]["code"].clone()), (200, json!(-32601)));
    // Unsupported version header → 400 + -32022 naming the supported ones of both eras.
    let r = h.mcp(&url, &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}), Some("2024-01-01"));
    assert_eq!(r.status, 400);
    let e = &r.json()["error"];
    assert_eq!(e["code"], -32022);
    assert_eq!(e["data"]["requested"], "2024-01-01");
    for v in ["2026-07-28", "2025-11-25", "2025-03-26"] {
        assert!(e["data"]["supported"].as_array().unwrap().contains(&json!(v)), "{v}");
    }
    // Ids are echoed byte for byte, also beyond u64 and f64 precision.
    let r = h.send(
        h.client
            .post(&url)
            .header("content-type", "application/json")
            .header("mcp-protocol-version", "2025-11-25")
            .body(r#"{"jsonrpc":"2.0","id":18446744073709551617,"method":"ping"}"#),
    );
    assert!(r.body.contains(r#""id":18446744073709551617"#), "{}", r.body);
    // Batches: accepted under 2025-03-26 (and with no header), refused under later versions.
    let batch = json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]);
    for v in [Some("2025-03-26"), None] {
        let r = h.mcp(&url, &batch, v);
        assert_eq!(r.status, 200);
        let arr = r.json();
        assert_eq!(arr.as_array().unwrap().len(), 2, "one response per request, none for the notification");
        assert_eq!(arr[0]["id"], 1);
        assert_eq!(arr[1]["id"], 2);
    }
    for v in ["2025-06-18", "2025-11-25"] {
        let r = h.mcp(&url, &batch, Some(v));
        assert_eq!(r.status, 400, "{v}");
        assert_eq!(r.json()["error"]["code"], -32600);
    }
    // Parse error and invalid requests.
    let r = h.send(h.client.post(&url).header("content-type", "application/json").body("{not json"));
    assert_eq!((r.status, r.json()["error"]["code"].clone()), (400, json!(-32700)));
    let r = h.mcp(&url, &json!({"jsonrpc": "1.0", "id": 1, "method": "ping"}), None);
    assert_eq!(r.json()["error"]["code"], -32600);
    // GET and DELETE → 405.
    let r = h.send(h.client.get(&url));
    assert_eq!(r.status, 405);
    assert_eq!(r.headers.get("allow").unwrap(), "POST");
    assert_eq!(h.send(h.client.delete(&url)).status, 405);
    // Origin allow-list.
    let r = h.send(
        h.client
            .post(&url)
            .header("origin", "http://evil.example")
            .header("content-type", "application/json")
            .body(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string()),
    );
    assert_eq!(r.status, 403);
    let r = h.send(
        h.client
            .post(&url)
            .header("origin", "http://localhost:6274")
            .header("content-type", "application/json")
            .body(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string()),
    );
    assert_eq!(r.status, 200);
    // Body over the configured limit → 413.
    let big = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search_laws", "arguments": {"query": "x".repeat(5000)}}});
    assert_eq!(h.mcp(&url, &big, Some("2025-11-25")).status, 413);
    assert_eq!(
        h.send(h.client.post(format!("{}/api/tools/search_laws", server.base_url)).body("y".repeat(5000))).status,
        413
    );

    // tools/list pages with cursors; a bad cursor is -32602.
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let v = h
            .mcp(
                &url,
                &json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": params}),
                Some("2025-11-25"),
            )
            .json();
        let tools = v["result"]["tools"].as_array().unwrap().clone();
        assert!(tools.len() <= 2);
        for t in &tools {
            assert_eq!(t["inputSchema"]["type"], "object");
            assert_eq!(t["annotations"]["readOnlyHint"], true);
            assert_eq!(t["annotations"]["idempotentHint"], true);
            assert!(t["title"].is_string());
            names.push(t["name"].as_str().unwrap().to_string());
        }
        match v["result"]["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!(names.len(), 23, "{names:?}");
    for n in ["search_laws", "get_law_section", "search_decisions", "get_decision", "cross_type_search", "list_courts"]
    {
        assert!(names.iter().any(|x| x == n), "{n} is listed");
    }
    let v = h
        .mcp(
            &url,
            &json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {"cursor": "garbage"}}),
            Some("2025-11-25"),
        )
        .json();
    assert_eq!(v["error"]["code"], -32602);

    // tools/call: unknown tool and malformed params are JSON-RPC errors; bad arguments are isError results.
    let v = h.mcp(&url, &call("no_such_tool", json!({})), Some("2025-11-25")).json();
    assert_eq!(v["error"]["code"], -32602);
    let v = h.mcp(&url, &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search_laws", "arguments": [1]}}), Some("2025-11-25")).json();
    assert_eq!(v["error"]["code"], -32602);
    for (args, code) in [
        (json!({"query": ""}), "invalid_argument"),
        (json!({"query": "Notwehr", "limit": 0}), "invalid_argument"),
        (json!({"query": "Notwehr", "limit": 51}), "invalid_argument"),
        (json!({"query": 5}), "invalid_argument"),
        (json!({"query": "§§§ !!!"}), "invalid_argument"),
        (json!({"query": "Notwehr", "book": "KEINGESETZ"}), "book_not_found"),
    ] {
        let v = h.mcp(&url, &call("search_laws", args.clone()), Some("2025-11-25")).json();
        let res = &v["result"];
        assert_eq!(res["isError"], true, "{args}");
        let sc = &res["structuredContent"];
        assert_eq!(sc["error_code"], code, "{args}");
        assert!(sc["message"].is_string() && sc["hint"].is_string() && sc["retryable"].is_boolean());
        assert!(sc["generation"]["id"].is_string());
        assert_eq!(serde_json::from_str::<Value>(res["content"][0]["text"].as_str().unwrap()).unwrap(), *sc);
    }

    // REST: the same payload as MCP for the same call (up to nothing: same generation).
    let mcp_answer =
        h.mcp(&url, &call("get_law_section", json!({"book": "BGB", "section": "823"})), Some("2025-11-25")).json();
    let rest = h.send(h.client.get(format!("{}/api/laws/BGB/sections/823", server.base_url)));
    assert_eq!(rest.status, 200);
    assert_eq!(rest.json(), mcp_answer["result"]["structuredContent"]);
    let rest = h.send(h.client.get(format!("{}/api/laws/BGB/sections/%C2%A7%201823", server.base_url)));
    assert_eq!(rest.json()["section"]["label"], "§ 1823", "exact § 1823 when asked, never § 823");
    let miss = h.send(h.client.get(format!("{}/api/laws/BGB/sections/99999", server.base_url)));
    assert_eq!(miss.status, 404);
    assert_eq!(miss.json()["error_code"], "section_not_found");
    let s = h.send(h.client.get(format!("{}/api/search/laws?q=Notwehr&book=StGB&limit=2", server.base_url))).json();
    assert_eq!(s["results"][0]["label"], "§ 32");
    let bad = h.send(h.client.get(format!("{}/api/search/laws?q=Notwehr&limit=abc", server.base_url)));
    assert_eq!(bad.status, 400);
    let posted = h.send(
        h.client
            .post(format!("{}/api/tools/get_law_section", server.base_url))
            .body(json!({"book": "BGB", "section": "823"}).to_string()),
    );
    assert_eq!(posted.json(), mcp_answer["result"]["structuredContent"]);
    let list = h.send(h.client.get(format!("{}/api/laws?prefix=SGB", server.base_url))).json();
    assert_eq!(list["total_matching_laws"], 2);
    assert_eq!(list["filters_applied"]["prefix"], "SGB");
    let openapi = h.send(h.client.get(format!("{}/api/openapi.json", server.base_url))).json();
    assert_eq!(openapi["openapi"], "3.1.0");
    assert!(openapi["paths"]["/api/laws/{book}/sections/{section}"]["get"].is_object());

    // get_law: toc keys are accepted by get_law_section; the text pages by characters.
    let law = h
        .mcp(
            &url,
            &call("get_law", json!({"book": "GG", "include": ["meta", "toc", "text"], "length": 5000})),
            Some("2025-11-25"),
        )
        .json();
    let sc = &law["result"]["structuredContent"];
    assert_eq!(sc["meta"]["source_url"], "https://www.gesetze-im-internet.de/gg/index.html");
    let entries = sc["toc"]["entries"].as_array().unwrap();
    assert!(entries.len() > 100);
    for e in entries.iter().step_by(17) {
        let key = e["section"].as_str().unwrap();
        let v = h.mcp(&url, &call("get_law_section", json!({"book": "GG", "section": key})), Some("2025-11-25")).json();
        assert_eq!(v["result"]["isError"], false, "toc key {key}");
        assert_eq!(v["result"]["structuredContent"]["section"]["label"], e["label"]);
    }
    let text = &sc["text"];
    assert_eq!(text["length"], 5000);
    assert_eq!(text["has_more"], true);
    assert_eq!(text["next_offset"], 5000);
    assert!(text["text"].as_str().unwrap().contains("Präambel"));

    // Health, readiness, metrics.
    let hz = h.send(h.client.get(format!("{}/healthz", server.base_url))).json();
    assert_eq!(hz["status"], "live");
    let rz = h.send(h.client.get(format!("{}/readyz", server.base_url)));
    assert_eq!(rz.status, 200);
    let m = h.send(h.client.get(format!("{}/metrics", server.base_url))).body;
    assert!(m.contains("legal_requests_total"), "{m}");
    assert!(m.contains("legal_generation_info{id=\""), "{m}");
}

/// A 2026-07-28 request: headers mirrored from the body, `_meta` envelope in the params.
fn modern(method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "protocol-test", "version": "0"},
    });
    json!({"jsonrpc": "2.0", "id": "m1", "method": method, "params": params})
}

#[test]
fn mcp_2026_07_28_era_rules_on_the_same_endpoint() {
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &[]);
    let h = Http::new();
    let url = server.mcp_url();
    let v26 = ("mcp-protocol-version", "2026-07-28");

    // server/discover: versions of both eras, identity in _meta, instructions naming every tool, caching hints.
    let r = h.post_mcp(&url, &modern("server/discover", json!({})), &[v26, ("mcp-method", "server/discover")]);
    assert_eq!(r.status, 200, "{}", r.body);
    let d = &r.json()["result"];
    assert_eq!(d["resultType"], "complete");
    for v in ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"] {
        assert!(d["supportedVersions"].as_array().unwrap().contains(&json!(v)), "{v}");
    }
    assert_eq!(d["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "legal-data");
    assert!(d["capabilities"]["tools"].is_object());
    assert!(d["ttlMs"].as_u64().is_some() && d["cacheScope"] == "public");
    let instructions = d["instructions"].as_str().unwrap();

    // tools/list: every tool, caching hints, resultType; the instructions name each one.
    let r = h.post_mcp(&url, &modern("tools/list", json!({})), &[v26, ("mcp-method", "tools/list")]);
    let l = &r.json()["result"];
    assert_eq!((r.status, &l["resultType"], &l["cacheScope"]), (200, &json!("complete"), &json!("public")));
    assert!(l["ttlMs"].as_u64().is_some());
    let tools = l["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 23);
    for t in tools {
        let name = t["name"].as_str().unwrap();
        assert!(instructions.contains(name), "instructions name {name}");
    }

    // tools/call with Mcp-Name, plain and in the base64 sentinel form.
    let call = modern("tools/call", json!({"name": "get_law_section", "arguments": {"book": "BGB", "section": "823"}}));
    for name in ["get_law_section", "=?base64?Z2V0X2xhd19zZWN0aW9u?="] {
        let r = h.post_mcp(&url, &call, &[v26, ("mcp-method", "tools/call"), ("mcp-name", name)]);
        let c = &r.json()["result"];
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!((&c["resultType"], &c["isError"]), (&json!("complete"), &json!(false)));
        assert_eq!(c["structuredContent"]["section"]["label"], "§ 823");
    }

    // Header/body disagreement → 400 + -32020, nothing runs.
    for headers in [
        vec![v26, ("mcp-method", "tools/call"), ("mcp-name", "search_laws")],
        vec![v26, ("mcp-method", "tools/call")],
        vec![v26, ("mcp-method", "tools/list"), ("mcp-name", "get_law_section")],
        vec![("mcp-method", "tools/call"), ("mcp-name", "get_law_section")],
    ] {
        let r = h.post_mcp(&url, &call, &headers);
        assert_eq!((r.status, r.json()["error"]["code"].clone()), (400, json!(-32020)), "{headers:?}: {}", r.body);
        assert_eq!(r.json()["id"], "m1");
    }
    // Two different version headers are a mismatch too.
    let r = h.post_mcp(&url, &call, &[v26, ("mcp-protocol-version", "2025-11-25"), ("mcp-method", "tools/call")]);
    assert_eq!((r.status, r.json()["error"]["code"].clone()), (400, json!(-32020)));
    // _meta version other than the header's → -32020.
    let mut other = modern("tools/list", json!({}));
    other["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2025-11-25");
    let r = h.post_mcp(&url, &other, &[v26, ("mcp-method", "tools/list")]);
    assert_eq!((r.status, r.json()["error"]["code"].clone()), (400, json!(-32020)));
    // No _meta envelope under the modern header → -32602 naming what is missing.
    let r = h.post_mcp(
        &url,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        &[v26, ("mcp-method", "tools/list")],
    );
    assert_eq!((r.status, r.json()["error"]["code"].clone()), (400, json!(-32602)));
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("protocolVersion"));
    // An unknown version in both places → -32022 with the supported list.
    let mut future = modern("tools/list", json!({}));
    future["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let r = h.post_mcp(&url, &future, &[("mcp-protocol-version", "2099-01-01"), ("mcp-method", "tools/list")]);
    let e = &r.json()["error"];
    assert_eq!((r.status, e["code"].clone()), (400, json!(-32022)));
    assert!(e["data"]["supported"].as_array().unwrap().contains(&json!("2026-07-28")));
    // Methods the modern era does not have (ping, initialize) and unknown ones → 404 + -32601.
    for m in ["ping", "initialize", "resources/list", "no/such"] {
        let r = h.post_mcp(&url, &modern(m, json!({})), &[v26, ("mcp-method", m)]);
        assert_eq!((r.status, r.json()["error"]["code"].clone()), (404, json!(-32601)), "{m}");
    }
    // A batch is refused in the modern era.
    let batch = json!([modern("tools/list", json!({}))]);
    let r = h.post_mcp(&url, &batch, &[v26, ("mcp-method", "tools/list")]);
    assert_eq!((r.status, r.json()["error"]["code"].clone()), (400, json!(-32600)));
    // Ids verbatim in the modern era too.
    let body = modern("tools/list", json!({})).to_string().replace(r#""id":"m1""#, r#""id":18446744073709551617"#);
    let r = h.send(
        h.client
            .post(&url)
            .header("content-type", "application/json")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/list")
            .body(body),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains(r#""id":18446744073709551617"#), "{}", r.body);
    // The legacy era still works on the same endpoint, with the same instructions.
    let r = h.mcp(
        &url,
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
        None,
    );
    assert_eq!(r.json()["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(r.json()["result"]["instructions"], instructions);
}

#[test]
fn web_facing_rules_host_origin_cors_routes_and_query_parameters() {
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &["--allow-origin", "https://app.example"]);
    let h = Http::new();
    let url = server.mcp_url();
    let base = &server.base_url;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    let post = |extra: &[(&str, &str)]| {
        let mut req = h.client.post(&url).header("content-type", "application/json").body(ping.clone());
        for (k, v) in extra {
            req = req.header(*k, *v);
        }
        h.send(req)
    };

    // Host allow-list (DNS rebinding): a foreign host name is refused, loopback names pass.
    let r = post(&[("host", "evil.example")]);
    assert_eq!((r.status, r.json()["error_code"].clone()), (403, json!("host_forbidden")));
    let port = base.rsplit(':').next().unwrap();
    for host in [format!("localhost:{port}"), format!("127.0.0.1:{port}")] {
        assert_eq!(post(&[("host", host.as_str())]).status, 200, "{host}");
    }
    // Origin: on the list passes (with CORS headers), off the list or sent twice is refused.
    let r = post(&[("origin", "https://app.example")]);
    assert_eq!(r.status, 200);
    assert_eq!(r.headers.get("access-control-allow-origin").unwrap(), "https://app.example");
    let r = post(&[("origin", "https://evil.example")]);
    assert_eq!((r.status, r.json()["error_code"].clone()), (403, json!("origin_forbidden")));
    let r = post(&[("origin", "https://app.example"), ("origin", "https://evil.example")]);
    assert_eq!((r.status, r.json()["error_code"].clone()), (403, json!("origin_forbidden")));
    // CORS preflight for an allowed origin names the MCP headers; a foreign origin gets none.
    let pre = |origin: &str| {
        h.send(
            h.client
                .request(reqwest::Method::OPTIONS, &url)
                .header("origin", origin)
                .header("access-control-request-method", "POST")
                .header("access-control-request-headers", "content-type, mcp-protocol-version, mcp-method"),
        )
    };
    let r = pre("https://app.example");
    assert!(r.status < 300, "{}", r.status);
    assert_eq!(r.headers.get("access-control-allow-origin").unwrap(), "https://app.example");
    let allowed = r.headers.get("access-control-allow-headers").unwrap().to_str().unwrap().to_lowercase();
    for hd in ["content-type", "mcp-protocol-version", "mcp-method", "mcp-name"] {
        assert!(allowed.contains(hd), "{hd} in {allowed}");
    }
    assert!(pre("https://evil.example").headers.get("access-control-allow-origin").is_none());

    // POST /mcp: JSON only (415), to a client that takes JSON (406).
    let r = h.send(h.client.post(&url).header("content-type", "text/plain").body(ping.clone()));
    assert_eq!((r.status, r.json()["error_code"].clone()), (415, json!("unsupported_media_type")));
    let r = post(&[("accept", "text/html")]);
    assert_eq!((r.status, r.json()["error_code"].clone()), (406, json!("not_acceptable")));
    assert_eq!(post(&[("accept", "application/json, text/event-stream")]).status, 200);

    // Unknown routes and methods: JSON refusals, not empty bodies.
    let r = h.send(h.client.get(format!("{base}/api/no/such/route")));
    assert_eq!((r.status, r.json()["error_code"].clone()), (404, json!("route_not_found")));
    assert!(r.json()["hint"].as_str().unwrap().contains("openapi"));
    let r = h.send(h.client.delete(format!("{base}/api/laws")));
    assert_eq!((r.status, r.json()["error_code"].clone()), (405, json!("method_not_allowed")));

    // Repeated query parameters: a list argument takes every value; a single-valued one refuses by name.
    let r = h.send(h.client.get(format!("{base}/api/search/laws?q=Notwehr&limit=2&limit=3")));
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.json()["message"].as_str().unwrap().contains("limit"), "{}", r.body);
    let r = h.send(h.client.get(format!("{base}/api/search/laws?q=Notwehr&query=Notstand")));
    assert_eq!(r.status, 400, "q and query are one argument: {}", r.body);
    let r = h.send(h.client.get(format!("{base}/api/laws/GG?include=meta&include=toc")));
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.json()["meta"].is_object() && r.json()["toc"].is_object(), "both include values are used");

    // Every REST route is in the OpenAPI document, including the text-body citation check.
    let openapi = h.send(h.client.get(format!("{base}/api/openapi.json"))).json();
    let paths = openapi["paths"].as_object().unwrap();
    for p in ["/api/citations/check", "/api/platform", "/api/laws/{book}/sections/{section}", "/api/coverage"] {
        assert!(paths.contains_key(p), "{p} in OpenAPI");
    }
    assert!(openapi["paths"]["/api/citations/check"]["post"]["requestBody"]["content"]["text/plain"].is_object());
    let served: Vec<&str> = paths.keys().map(String::as_str).filter(|p| !p.starts_with("/api/tools/")).collect();
    for p in &served {
        let probe = p.replace("{book}", "GG").replace("{section}", "1").replace("{id}", "x").replace("{court}", "BGH");
        let r = if *p == "/api/citations/check" {
            h.send(
                h.client.post(format!("{base}{probe}")).body("Nach § 823 Abs. 1 BGB haftet, wer fahrlässig handelt."),
            )
        } else {
            h.send(h.client.get(format!("{base}{probe}")))
        };
        assert_ne!(r.json()["error_code"], "route_not_found", "{p} is documented and routed");
    }
}

#[test]
fn batches_and_bodies_are_bounded_before_work_is_done() {
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &["--max-body-bytes", "100000", "--max-batch-response-bytes", "30000"]);
    let h = Http::new();
    let url = server.mcp_url();
    let v = Some("2025-03-26");

    // More than 32 messages: refused whole, nothing runs.
    let pings: Vec<Value> = (0..33).map(|i| json!({"jsonrpc": "2.0", "id": i, "method": "ping"})).collect();
    let r = h.mcp(&url, &Value::Array(pings), v);
    assert_eq!((r.status, r.json()["error"]["code"].clone()), (400, json!(-32600)));
    assert_eq!(r.json()["error"]["data"]["max_batch_messages"], 32);

    // A batch whose answers outgrow the response budget: the first ones run, the rest are
    // answered "not run" (-32001, retryable) with their own ids; no answer is cut.
    let calls: Vec<Value> = (0..10)
        .map(|i| {
            json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": "get_law", "arguments": {"book": "GG", "include": ["text"], "length": 8000}}})
        })
        .collect();
    let r = h.mcp(&url, &Value::Array(calls), v);
    assert_eq!(r.status, 200);
    assert!(r.body.len() < 30000 + 20000, "the batch answer stays near its budget: {} bytes", r.body.len());
    let answers = r.json();
    let answers = answers.as_array().unwrap();
    assert_eq!(answers.len(), 10, "one answer per request");
    let ran: Vec<&Value> = answers.iter().filter(|a| a.get("result").is_some()).collect();
    let not_run: Vec<&Value> = answers.iter().filter(|a| a["error"]["code"] == -32001).collect();
    assert!(!ran.is_empty() && !not_run.is_empty(), "{}", r.body);
    assert_eq!(ran.len() + not_run.len(), 10);
    for a in &ran {
        let text = &a["result"]["structuredContent"]["text"];
        assert_eq!(text["text"].as_str().unwrap().chars().count(), 8000, "a run answer is whole");
    }
    for (i, a) in answers.iter().enumerate() {
        assert_eq!(a["id"], i, "answers keep their ids and order");
    }
    assert_eq!(not_run[0]["error"]["data"]["retryable"], true);

    // A body declared too large is refused before it is read, with a JSON 413 the client sees.
    let big = "x".repeat(300_000);
    let r = h.send(h.client.post(&url).header("content-type", "application/json").body(big.clone()));
    assert_eq!((r.status, r.json()["error_code"].clone()), (413, json!("body_too_large")));
    let r = h.send(h.client.post(format!("{}/api/citations/check", server.base_url)).body(big));
    assert_eq!((r.status, r.json()["error_code"].clone()), (413, json!("body_too_large")));
    // The server still answers after refusing.
    let r = h.mcp(&url, &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}), v);
    assert_eq!(r.status, 200);
}
