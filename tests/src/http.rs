//! Blocking HTTP helpers for the end-to-end tests. [`Client`] keeps one current-thread
//! runtime for many calls; it pools no connections, because that runtime is driven only inside
//! a call and would not notice the server closing an idle keep-alive connection. The free
//! functions make a client per call.

use std::time::Duration;

use serde_json::Value;

pub struct Client {
    rt: tokio::runtime::Runtime,
    inner: reqwest::Client,
}

impl Default for Client {
    fn default() -> Client {
        Client::new()
    }
}

impl Client {
    pub fn new() -> Client {
        let _ = rustls::crypto::ring::default_provider().install_default();
        Client {
            rt: tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime"),
            // A hang guard only: the server must answer every input, refusing or not.
            inner: reqwest::Client::builder()
                .pool_max_idle_per_host(0)
                .timeout(Duration::from_secs(120))
                .build()
                .expect("client"),
        }
    }

    /// GET `url`: status and body.
    pub fn get(&self, url: &str) -> (u16, String) {
        self.rt.block_on(async {
            let r = self.inner.get(url).send().await.unwrap_or_else(|e| panic!("GET {url}: {e}"));
            (r.status().as_u16(), r.text().await.expect("body"))
        })
    }

    /// POST `body` with `content_type` to `url`: status and body.
    pub fn post(&self, url: &str, content_type: &str, body: impl Into<String>) -> (u16, String) {
        let body = body.into();
        self.rt.block_on(async {
            let r = self
                .inner
                .post(url)
                .header("content-type", content_type)
                .body(body)
                .send()
                .await
                .unwrap_or_else(|e| panic!("POST {url}: {e}"));
            (r.status().as_u16(), r.text().await.expect("body"))
        })
    }

    /// `method` `url` with `headers` and `body`: status, response headers (lower-case names)
    /// and body.
    pub fn request(
        &self,
        method: &str,
        url: &str,
        headers: &[(&str, &str)],
        body: impl Into<String>,
    ) -> (u16, Vec<(String, String)>, String) {
        let body = body.into();
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
        self.rt.block_on(async {
            let mut r = self.inner.request(method, url).body(body);
            for (k, v) in headers {
                r = r.header(*k, *v);
            }
            let r = r.send().await.unwrap_or_else(|e| panic!("{url}: {e}"));
            let status = r.status().as_u16();
            let hs = r
                .headers()
                .iter()
                .map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap_or("").to_string()))
                .collect();
            (status, hs, r.text().await.expect("body"))
        })
    }

    pub fn get_json(&self, url: &str) -> Value {
        json_of(url, &self.get(url).1)
    }

    /// A tool call over REST (`POST {base}/api/tools/{tool}`) with an optional bearer token:
    /// status, response headers, body.
    pub fn rest_tool(
        &self,
        base: &str,
        tool: &str,
        args: &Value,
        bearer: Option<&str>,
    ) -> (u16, Vec<(String, String)>, Value) {
        let url = format!("{base}/api/tools/{tool}");
        let auth = bearer.map(|t| format!("Bearer {t}"));
        let mut headers = vec![("content-type", "application/json")];
        if let Some(a) = &auth {
            headers.push(("authorization", a.as_str()));
        }
        let (status, hs, body) = self.request("POST", &url, &headers, args.to_string());
        (status, hs, json_of(&url, &body))
    }

    /// An MCP `tools/call` (protocol 2025-11-25, which needs no session; JSON-RPC id 9) to
    /// `mcp_url` with an optional bearer token: status, response headers, body.
    pub fn mcp_tool(
        &self,
        mcp_url: &str,
        tool: &str,
        args: &Value,
        bearer: Option<&str>,
    ) -> (u16, Vec<(String, String)>, Value) {
        let auth = bearer.map(|t| format!("Bearer {t}"));
        let mut headers = vec![
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
            ("mcp-protocol-version", "2025-11-25"),
        ];
        if let Some(a) = &auth {
            headers.push(("authorization", a.as_str()));
        }
        let body = serde_json::json!({
            "jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": tool, "arguments": args}
        });
        let (status, hs, text) = self.request("POST", mcp_url, &headers, body.to_string());
        (status, hs, json_of(mcp_url, &text))
    }

    /// `check_citations` over REST (`POST /api/citations/check`, the text as the body).
    pub fn check_citations(&self, base: &str, text: &str) -> (u16, Value) {
        let url = format!("{base}/api/citations/check");
        let (status, body) = self.post(&url, "text/plain; charset=utf-8", text);
        (status, json_of(&url, &body))
    }
}

fn json_of(url: &str, text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{url}: not JSON ({e}): {text}"))
}

/// GET `url`; the body as text.
pub fn get_text(url: &str) -> String {
    Client::new().get(url).1
}

/// GET `url`; the body as JSON (panics with the body when it is not).
pub fn get_json(url: &str) -> Value {
    Client::new().get_json(url)
}

/// POST `body` with `content_type` to `url`; the body of the answer as text.
pub fn post(url: &str, content_type: &str, body: impl Into<String>) -> String {
    Client::new().post(url, content_type, body).1
}

/// POST `body` as JSON to `url`; the answer as JSON (panics with the body when it is not).
pub fn post_json(url: &str, body: &Value) -> Value {
    json_of(url, &post(url, "application/json", body.to_string()))
}
