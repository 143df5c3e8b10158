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
        let mut req = self
            .client
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        if let Some(v) = version {
            req = req.header("mcp-protocol-version", v);
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
    // Unknown method (the 2026 probe) → -32601.
    let r = h.mcp(&url, &json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover"}), Some("2025-06-18"));
    assert_eq!(r.json()["error"]["code"], -32601);
    // Unsupported version header → 400 naming the supported ones.
    let r = h.mcp(&url, &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}), Some("2026-07-28"));
    assert_eq!(r.status, 400);
    assert!(r.json()["error"]["data"]["supported"].as_array().unwrap().contains(&json!("2025-11-25")));
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
    assert_eq!(names.len(), 22, "{names:?}");
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
        (json!({"query": "Notwehr", "book_code": "KEINGESETZ"}), "book_not_found"),
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
    let s =
        h.send(h.client.get(format!("{}/api/search/laws?q=Notwehr&book_code=StGB&limit=2", server.base_url))).json();
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
