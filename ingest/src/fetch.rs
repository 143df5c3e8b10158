//! A polite HTTP fetcher: a global request rate, retries with exponential backoff on
//! timeouts and 5xx, conditional GET (ETag / Last-Modified).

use std::time::Duration;

use tokio::sync::Mutex;
use tokio::time::Instant;

/// How to treat the remote site.
#[derive(Debug, Clone)]
pub struct Politeness {
    /// Requests per second over all workers; 0 = unlimited (loopback mirrors).
    pub rate_per_second: f64,
    /// Attempts after the first one for timeouts, connection errors and 5xx.
    pub retries: u32,
    /// First backoff; doubled per retry.
    pub backoff: Duration,
    pub timeout: Duration,
    pub concurrency: usize,
}

impl Default for Politeness {
    fn default() -> Self {
        Politeness {
            rate_per_second: 2.0,
            retries: 3,
            backoff: Duration::from_millis(500),
            timeout: Duration::from_secs(60),
            concurrency: 4,
        }
    }
}

/// Validators of a stored copy, sent as If-None-Match / If-Modified-Since.
#[derive(Debug, Clone, Default)]
pub struct Validators {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

impl Validators {
    pub fn is_empty(&self) -> bool {
        self.etag.is_none() && self.last_modified.is_none()
    }
}

#[derive(Debug)]
pub enum FetchOutcome {
    Body {
        bytes: Vec<u8>,
        validators: Validators,
    },
    NotModified,
    /// A final HTTP error status (after retries for 5xx).
    Status {
        status: u16,
        reason: String,
    },
    /// Network-level failure after retries.
    Failed {
        reason: String,
    },
}

pub struct Fetcher {
    client: reqwest::Client,
    politeness: Politeness,
    next_slot: Mutex<Instant>,
}

/// Installs the ring crypto provider for rustls once (reqwest is built without a provider).
fn install_crypto_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

impl Fetcher {
    pub fn new(politeness: Politeness) -> anyhow::Result<Self> {
        install_crypto_provider();
        let client = reqwest::Client::builder()
            .user_agent(concat!("legal-pipeline/", env!("CARGO_PKG_VERSION"), " (open German legal data pipeline)"))
            .timeout(politeness.timeout)
            .connect_timeout(Duration::from_secs(15))
            .build()?;
        Ok(Fetcher { client, politeness, next_slot: Mutex::new(Instant::now()) })
    }

    pub fn politeness(&self) -> &Politeness {
        &self.politeness
    }

    /// Waits for this request's slot under the global rate.
    async fn pace(&self) {
        if self.politeness.rate_per_second <= 0.0 {
            return;
        }
        let interval = Duration::from_secs_f64(1.0 / self.politeness.rate_per_second);
        let slot = {
            let mut next = self.next_slot.lock().await;
            let now = Instant::now();
            let slot = if *next > now { *next } else { now };
            *next = slot + interval;
            slot
        };
        tokio::time::sleep_until(slot).await;
    }

    /// GETs `url`, conditionally when `validators` are given. Retries transient failures.
    pub async fn get(&self, url: &str, validators: &Validators) -> FetchOutcome {
        let mut attempt = 0;
        loop {
            self.pace().await;
            let mut req = self.client.get(url);
            if let Some(etag) = &validators.etag {
                req = req.header(reqwest::header::IF_NONE_MATCH, etag);
            }
            if let Some(lm) = &validators.last_modified {
                req = req.header(reqwest::header::IF_MODIFIED_SINCE, lm);
            }
            let transient = match req.send().await {
                Ok(resp) => {
                    let status = resp.status();
                    if status == reqwest::StatusCode::NOT_MODIFIED {
                        return FetchOutcome::NotModified;
                    }
                    if status.is_success() {
                        let header = |name| {
                            resp.headers()
                                .get(name)
                                .and_then(|v: &reqwest::header::HeaderValue| v.to_str().ok())
                                .map(str::to_string)
                        };
                        let got = Validators {
                            etag: header(reqwest::header::ETAG),
                            last_modified: header(reqwest::header::LAST_MODIFIED),
                        };
                        match resp.bytes().await {
                            Ok(b) => return FetchOutcome::Body { bytes: b.to_vec(), validators: got },
                            Err(e) => format!("body read failed: {e}"),
                        }
                    } else if status.is_server_error() || status.as_u16() == 429 {
                        format!("HTTP {}", status.as_u16())
                    } else {
                        return FetchOutcome::Status {
                            status: status.as_u16(),
                            reason: format!("HTTP {}", status.as_u16()),
                        };
                    }
                }
                Err(e) => {
                    if e.is_timeout() {
                        "timeout".to_string()
                    } else if e.is_connect() {
                        format!("connection failed: {e}")
                    } else {
                        format!("request failed: {e}")
                    }
                }
            };
            if attempt >= self.politeness.retries {
                let reason = format!("{transient} (after {} attempts)", attempt + 1);
                return match transient.strip_prefix("HTTP ").and_then(|s| s.parse::<u16>().ok()) {
                    Some(status) => FetchOutcome::Status { status, reason },
                    None => FetchOutcome::Failed { reason },
                };
            }
            let wait = self.politeness.backoff * 2u32.saturating_pow(attempt);
            tracing::debug!(url, attempt, ?wait, reason = %transient, "retrying");
            tokio::time::sleep(wait).await;
            attempt += 1;
        }
    }
}
