//! Access (issue 18), through the real `serve` binary on the embedded sample: the anonymous
//! budget runs out at exactly its limit, under concurrent load too, and is one budget for MCP
//! and REST; a token has its own budget; a revoked token is refused on the very next request; a
//! missing ability is refused and nothing runs; `whoami` reads the limiter's state; no token
//! appears in the server's log.

use legal_tests::http::Client;
use legal_tests::procs::{Server, run_stage_ok};
use serde_json::{Value, json};

/// The arguments the tests send: a query for `search_laws`, nothing for the others.
fn args_for(tool: &str) -> Value {
    if tool == "search_laws" { json!({"query": "Notwehr"}) } else { json!({}) }
}

fn rest(c: &Client, server: &Server, tool: &str, token: Option<&str>) -> (u16, Vec<(String, String)>, Value) {
    c.rest_tool(&server.base_url, tool, &args_for(tool), token)
}

fn mcp(c: &Client, server: &Server, tool: &str, token: Option<&str>) -> (u16, Value) {
    let (status, _, v) = c.mcp_tool(&server.mcp_url(), tool, &args_for(tool), token);
    (status, v)
}

fn header<'a>(hs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    hs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

#[test]
fn budgets_tokens_and_abilities_hold_across_mcp_and_rest() {
    let data = legal_tests::sample_data_dir();
    let dir = data.path().to_str().unwrap();
    let log = data.path().join("serve.log");
    let server = Server::start_logged(data.path(), &["--anonymous-per-hour", "5", "--token-per-hour", "1000"], &log);
    let c = Client::new();

    // The anonymous budget of 5 is one budget for MCP and REST, counted by the limiter itself.
    let (status, _, who) = rest(&c, &server, "whoami", None);
    assert_eq!(status, 200, "{who}");
    assert_eq!(who["authenticated"], json!(false));
    assert_eq!(who["rate_limit"]["tier"], json!("anonymous"));
    assert_eq!((who["rate_limit"]["limit"].clone(), who["rate_limit"]["used"].clone()), (json!(5), json!(1)), "{who}");
    assert_eq!(who["rate_limit"]["remaining"], json!(4), "{who}");
    assert_eq!(who["upgrade"]["action"], json!("request_token"), "{who}");
    let (status, v) = mcp(&c, &server, "whoami", None);
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["result"]["structuredContent"]["rate_limit"]["used"], json!(2), "MCP counts in the same budget: {v}");
    assert_eq!(rest(&c, &server, "search_laws", None).0, 200);
    assert_eq!(mcp(&c, &server, "get_platform_info", None).0, 200);
    assert_eq!(rest(&c, &server, "get_platform_info", None).0, 200, "the 5th request is admitted");
    let (status, hs, v) = rest(&c, &server, "get_platform_info", None);
    assert_eq!(status, 429, "the 6th is refused: {v}");
    assert_eq!(v["error_code"], json!("rate_limited"));
    let retry: u64 = header(&hs, "retry-after").expect("Retry-After").parse().unwrap();
    assert!(retry >= 1 && Some(retry) == v["retry_after_seconds"].as_u64(), "{hs:?} {v}");
    let (status, v) = mcp(&c, &server, "get_platform_info", None);
    assert_eq!(status, 429, "{v}");
    assert_eq!(v["error"]["code"], json!(-32000), "{v}");
    assert!(v["error"]["data"]["retry_after_seconds"].as_u64().is_some_and(|s| s >= 1), "{v}");

    // A token has its own budget, and the abilities it was given.
    let token = run_stage_ok("serve", &["--data-dir", dir, "token", "create", "--name", "ci", "--abilities", "read"]);
    let token = token.trim();
    assert!(token.starts_with("ldt_"), "{token}");
    let (status, _, who) = rest(&c, &server, "whoami", Some(token));
    assert_eq!(status, 200, "the token is not held to the anonymous budget: {who}");
    assert_eq!((who["authenticated"].clone(), who["auth_method"].clone()), (json!(true), json!("api_token")));
    assert_eq!(who["token"]["abilities"], json!(["read"]), "{who}");
    assert_eq!(
        (who["rate_limit"]["bucket"].clone(), who["rate_limit"]["limit"].clone()),
        (json!("token"), json!(1000))
    );
    assert_eq!(who["upgrade"], json!(null));
    assert_eq!(rest(&c, &server, "get_platform_info", Some(token)).0, 200, "read is granted");

    // A missing ability: refused, and the tool did not run (its call counter did not move).
    let searches = |c: &Client| {
        let (_, text) = c.get(&format!("{}/metrics", server.base_url));
        text.lines()
            .filter(|l| l.starts_with("legal_requests_total{") && l.contains("tool=\"search_laws\""))
            .map(|l| l.rsplit(' ').next().unwrap().parse::<f64>().unwrap())
            .sum::<f64>()
    };
    let before = searches(&c);
    let (status, _, v) = rest(&c, &server, "search_laws", Some(token));
    assert_eq!((status, v["error_code"].clone()), (403, json!("token_ability_missing")), "{v}");
    assert_eq!(v["required_ability"], json!("search"));
    let (status, v) = mcp(&c, &server, "search_laws", Some(token));
    assert_eq!(status, 200, "an MCP tool refusal is a result: {v}");
    assert_eq!(v["result"]["isError"], json!(true), "{v}");
    assert_eq!(v["result"]["structuredContent"]["error_code"], json!("token_ability_missing"), "{v}");
    assert_eq!(searches(&c), before, "search_laws never ran for the token without the ability");

    // Revoked: refused on the very next request, with the challenge.
    let id = who["token"]["id"].as_i64().unwrap().to_string();
    run_stage_ok("serve", &["--data-dir", dir, "token", "revoke", &id]);
    let (status, hs, v) = rest(&c, &server, "get_platform_info", Some(token));
    assert_eq!((status, v["error_code"].clone()), (401, json!("invalid_token")), "{v}");
    assert!(header(&hs, "www-authenticate").is_some_and(|h| h.starts_with("Bearer")), "{hs:?}");
    let (status, v) = mcp(&c, &server, "get_platform_info", Some(token));
    assert_eq!((status, v["error"]["data"]["error_code"].clone()), (401, json!("invalid_token")), "{v}");
    let (status, _, v) = rest(&c, &server, "get_platform_info", Some("ldt_1_0000"));
    assert_eq!((status, v["reason"].clone()), (401, json!("unknown")), "a wrong secret: {v}");

    // Per tier, never per token value.
    let (_, metrics) = c.get(&format!("{}/metrics", server.base_url));
    for needle in [
        "legal_access_requests_total{tier=\"anonymous\",outcome=\"rate_limited\"} 2",
        "legal_access_requests_total{tier=\"anonymous\",outcome=\"allowed\"} 5",
        "outcome=\"ability_missing\"",
        "outcome=\"invalid_token\"",
    ] {
        assert!(metrics.contains(needle), "{needle} not in /metrics:\n{metrics}");
    }
    assert!(!metrics.contains(token), "no token value in the metrics");
    drop(server);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!text.contains(token) && !text.contains(&token[token.len() - 16..]), "no token in the log");
}

#[test]
fn a_deployment_can_require_a_token_for_an_ability() {
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &["--require-token-for", "citation-check,datapackage"]);
    let c = Client::new();
    let (status, _, v) = rest(&c, &server, "validate_citation", None);
    assert_eq!((status, v["error_code"].clone()), (401, json!("token_required")), "{v}");
    assert_eq!(v["required_ability"], json!("citation-check"));
    assert_eq!(rest(&c, &server, "get_platform_info", None).0, 200, "other abilities stay open");
    let (_, _, who) = rest(&c, &server, "whoami", None);
    assert_eq!(who["rate_limit"]["limit"], Value::Null, "no anonymous limit set (the tests' default): {who}");
}

#[test]
fn clients_of_a_configured_range_share_one_budget() {
    let data = legal_tests::sample_data_dir();
    let args = ["--shared-client-range", "127.0.0.0/8", "--shared-per-hour", "3", "--anonymous-per-hour", "1000"];
    let server = Server::start(data.path(), &args);
    let c = Client::new();
    let (status, _, who) = rest(&c, &server, "whoami", None);
    assert_eq!(status, 200, "{who}");
    assert_eq!((who["rate_limit"]["bucket"].clone(), who["rate_limit"]["limit"].clone()), (json!("shared"), json!(3)));
    assert!(who["upgrade"]["message"].as_str().unwrap().contains("share one budget"), "{who}");
    assert_eq!(mcp(&c, &server, "get_platform_info", None).0, 200);
    assert_eq!(rest(&c, &server, "get_platform_info", None).0, 200, "the 3rd request of the range is admitted");
    let (status, _, v) = rest(&c, &server, "get_platform_info", None);
    assert_eq!(
        (status, v["rate_limit"]["bucket"].clone()),
        (429, json!("shared")),
        "the per-IP limit does not apply: {v}"
    );
}

#[test]
fn under_concurrent_load_the_anonymous_budget_admits_exactly_its_limit_and_a_token_keeps_its_own() {
    let data = legal_tests::sample_data_dir();
    let dir = data.path().to_str().unwrap();
    // GCRA refills evenly (40/h: one request per 90 s; 360/h: one per 10 s), so within the few
    // seconds of the run the counts are exact; `refilled` allows for a slow machine.
    let server = Server::start(data.path(), &["--anonymous-per-hour", "40", "--token-per-hour", "360"]);
    let token = run_stage_ok("serve", &["--data-dir", dir, "token", "create", "--name", "load", "--abilities", "all"]);
    let token = token.trim();
    let server = &server;
    let started = std::time::Instant::now();
    let refilled = |per_hour: f64| (started.elapsed().as_secs_f64() * per_hour / 3600.0).floor() as usize;
    // 8 anonymous clients × 12 requests, alternating MCP and REST (96 against a budget of 40),
    // while 4 token clients send 25 requests each.
    let (anonymous, tokened): (Vec<u16>, Vec<u16>) = std::thread::scope(|s| {
        let anon: Vec<_> = (0..8)
            .map(|t| {
                s.spawn(move || {
                    let c = Client::new();
                    (0..12)
                        .map(|i| {
                            if (t + i) % 2 == 0 {
                                mcp(&c, server, "get_platform_info", None).0
                            } else {
                                rest(&c, server, "get_platform_info", None).0
                            }
                        })
                        .collect::<Vec<u16>>()
                })
            })
            .collect();
        let tok: Vec<_> = (0..4)
            .map(|t| {
                s.spawn(move || {
                    let c = Client::new();
                    (0..25)
                        .map(|i| {
                            if (t + i) % 2 == 0 {
                                mcp(&c, server, "get_platform_info", Some(token)).0
                            } else {
                                rest(&c, server, "get_platform_info", Some(token)).0
                            }
                        })
                        .collect::<Vec<u16>>()
                })
            })
            .collect();
        (
            anon.into_iter().flat_map(|h| h.join().unwrap()).collect(),
            tok.into_iter().flat_map(|h| h.join().unwrap()).collect(),
        )
    });
    let count = |v: &[u16], s: u16| v.iter().filter(|&&x| x == s).count();
    let admitted = count(&anonymous, 200);
    assert!(
        admitted >= 40 && admitted <= 40 + refilled(40.0) && admitted + count(&anonymous, 429) == 96,
        "exactly the limit is admitted: {admitted} of {anonymous:?}"
    );
    assert_eq!(count(&tokened, 200), 100, "the token's own budget is untouched by the anonymous run-out: {tokened:?}");
    let c = Client::new();
    let (_, _, who) = rest(&c, server, "whoami", Some(token));
    let used = who["rate_limit"]["used"].as_u64().unwrap() as usize;
    assert!(
        used <= 101 && used + refilled(360.0) >= 101,
        "each token request counted once, MCP and REST alike: {used} used after 101 ({who})"
    );
    assert_eq!(rest(&c, server, "whoami", None).0, 429, "the anonymous budget stays spent");
    let (_, metrics) = c.get(&format!("{}/metrics", server.base_url));
    for needle in [
        format!("legal_access_requests_total{{tier=\"anonymous\",outcome=\"allowed\"}} {admitted}"),
        format!("legal_access_requests_total{{tier=\"anonymous\",outcome=\"rate_limited\"}} {}", 97 - admitted),
        "legal_access_requests_total{tier=\"token\",outcome=\"allowed\"} 101".to_string(),
    ] {
        assert!(metrics.contains(&needle), "{needle} not in /metrics:\n{metrics}");
    }
}
