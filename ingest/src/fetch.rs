//! A polite, bounded HTTP fetcher: a global request rate, retries with exponential backoff on
//! timeouts and 5xx, conditional GET (ETag / Last-Modified), and limits that keep one hostile
//! document from stopping or swamping the run:
//!
//! - bodies are streamed to a spool file and hashed on the way, never held in memory, and a
//!   body over the per-document cap is refused ([`SourceProblem::BodyTooLarge`]);
//! - redirects are followed by hand and only on the source's own host; the final URL is
//!   reported; a loop is refused at once, not retried;
//! - `Retry-After` is honoured (for every request: it is the site's wish) up to a budget; a
//!   longer wait ends that document instead of sleeping through the run;
//! - a response that stalls is given up after an idle timeout, and every document has a total
//!   deadline over all its attempts.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use model::SourceProblem;
use reqwest::{StatusCode, Url};
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;
use tokio::sync::Mutex;
use tokio::time::Instant;

/// How to treat the remote site, and how long to wait for it.
#[derive(Debug, Clone)]
pub struct Politeness {
    /// Requests per second over all workers; 0 = unlimited (loopback mirrors).
    pub rate_per_second: f64,
    /// Attempts after the first one for timeouts, stalls, connection errors, 429 and 5xx.
    pub retries: u32,
    /// First backoff; doubled per retry.
    pub backoff: Duration,
    /// Time for one attempt, headers and body together.
    pub timeout: Duration,
    pub concurrency: usize,
    /// Time to open a connection.
    pub connect_timeout: Duration,
    /// Longest wait for the next byte (headers or body) before the response counts as stalled.
    pub idle_timeout: Duration,
    /// All attempts of one document together, backoff and `Retry-After` waits included.
    pub document_deadline: Duration,
    /// Longest `Retry-After` wait honoured; a longer one ends the document with a problem.
    pub retry_after_budget: Duration,
    /// Redirects followed (on the source's host) before the chain counts as a loop.
    pub max_redirects: usize,
}

impl Default for Politeness {
    fn default() -> Self {
        Politeness {
            rate_per_second: 2.0,
            retries: 3,
            backoff: Duration::from_millis(500),
            timeout: Duration::from_secs(60),
            concurrency: 4,
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(20),
            document_deadline: Duration::from_secs(120),
            retry_after_budget: Duration::from_secs(60),
            max_redirects: 5,
        }
    }
}

/// Size caps per document, for what is downloaded (compressed, as the site serves it).
#[derive(Debug, Clone)]
pub struct SizeCaps {
    /// A table of contents (the real rii toc is about 23 MB).
    pub toc_bytes: u64,
    /// One law zip or decision zip (real ones are well under 1 MB).
    pub document_bytes: u64,
    /// One Open Legal Data dump (a whole corpus in one file).
    pub dump_bytes: u64,
}

pub const MIB: u64 = 1024 * 1024;

impl Default for SizeCaps {
    fn default() -> Self {
        SizeCaps { toc_bytes: 256 * MIB, document_bytes: 64 * MIB, dump_bytes: 64 * 1024 * MIB }
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

/// A body received whole and within its cap, waiting in a spool file to be adopted by the raw
/// store ([`crate::raw::RawStore::adopt`]). Dropping it unadopted removes the file.
#[derive(Debug)]
pub struct SpooledBody {
    path: Option<PathBuf>,
    pub sha256: String,
    pub bytes: u64,
}

impl SpooledBody {
    pub fn path(&self) -> &Path {
        self.path.as_deref().expect("a spooled body has its file until it is adopted")
    }

    /// Hands the file over to whoever moves it into place (it is no longer removed on drop).
    pub(crate) fn take_path(mut self) -> PathBuf {
        self.path.take().expect("a spooled body has its file until it is adopted")
    }
}

impl Drop for SpooledBody {
    fn drop(&mut self) {
        if let Some(p) = self.path.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// A spool file being written: removed unless it becomes a [`SpooledBody`].
struct SpoolWriter {
    path: PathBuf,
    file: tokio::fs::File,
    hasher: Sha256,
    bytes: u64,
    done: bool,
}

static SPOOL_SEQ: AtomicU64 = AtomicU64::new(0);

impl SpoolWriter {
    async fn create(spool: &Path) -> std::io::Result<SpoolWriter> {
        tokio::fs::create_dir_all(spool).await?;
        let n = SPOOL_SEQ.fetch_add(1, Ordering::Relaxed);
        let path = spool.join(format!(".incoming-{}-{n}", std::process::id()));
        let file = tokio::fs::File::create(&path).await?;
        Ok(SpoolWriter { path, file, hasher: Sha256::new(), bytes: 0, done: false })
    }

    async fn write(&mut self, chunk: &[u8]) -> std::io::Result<()> {
        self.hasher.update(chunk);
        self.bytes += chunk.len() as u64;
        self.file.write_all(chunk).await
    }

    async fn finish(mut self) -> std::io::Result<SpooledBody> {
        self.file.flush().await?;
        self.file.sync_all().await?;
        self.done = true;
        let sha256 = hex::encode(std::mem::take(&mut self.hasher).finalize());
        Ok(SpooledBody { path: Some(self.path.clone()), sha256, bytes: self.bytes })
    }
}

impl Drop for SpoolWriter {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Copies a local file (an OLDP dump given as a path) into the spool the same way a download
/// is: hashed while read, refused over `max_bytes`, never held in memory.
pub fn spool_local_file(src: &Path, spool: &Path, max_bytes: u64) -> Result<SpooledBody, String> {
    use std::io::{Read, Write};
    let size = std::fs::metadata(src).map_err(|e| format!("cannot read {}: {e}", src.display()))?.len();
    if size > max_bytes {
        return Err(SourceProblem::BodyTooLarge
            .reason(format!("{} is {size} bytes, over the cap of {max_bytes}", src.display())));
    }
    let mut input = std::fs::File::open(src).map_err(|e| format!("cannot read {}: {e}", src.display()))?;
    std::fs::create_dir_all(spool).map_err(|e| format!("cannot create {}: {e}", spool.display()))?;
    let n = SPOOL_SEQ.fetch_add(1, Ordering::Relaxed);
    let mut body = SpooledBody {
        path: Some(spool.join(format!(".incoming-{}-{n}", std::process::id()))),
        sha256: String::new(),
        bytes: 0,
    };
    let mut out =
        std::fs::File::create(body.path()).map_err(|e| format!("cannot write {}: {e}", body.path().display()))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = input.read(&mut buf).map_err(|e| format!("cannot read {}: {e}", src.display()))?;
        if n == 0 {
            break;
        }
        body.bytes += n as u64;
        if body.bytes > max_bytes {
            return Err(SourceProblem::BodyTooLarge
                .reason(format!("{} grew over the cap of {max_bytes} bytes while read", src.display())));
        }
        hasher.update(&buf[..n]);
        out.write_all(&buf[..n]).map_err(|e| format!("cannot write spool: {e}"))?;
    }
    out.sync_all().map_err(|e| format!("cannot write spool: {e}"))?;
    body.sha256 = hex::encode(hasher.finalize());
    Ok(body)
}

#[derive(Debug)]
pub enum FetchOutcome {
    Body {
        body: SpooledBody,
        validators: Validators,
        /// Where the bytes came from after redirects on the source's host.
        final_url: String,
    },
    NotModified {
        final_url: String,
    },
    /// A final HTTP error status (after retries for 429 and 5xx, or a `Retry-After` over budget).
    Status {
        status: u16,
        reason: String,
    },
    /// Network-level failure, stall or deadline, after retries.
    Failed {
        reason: String,
    },
    /// The site answered, but with something not taken: a body over the cap, a redirect off
    /// the source's host, a redirect loop. Never retried.
    Refused {
        problem: SourceProblem,
        http_status: Option<u16>,
        reason: String,
    },
}

/// One attempt's result: final, or worth another try.
enum Attempt {
    Done(FetchOutcome),
    Transient { reason: String, status: Option<u16>, retry_after: Option<Duration> },
}

pub struct Fetcher {
    client: reqwest::Client,
    politeness: Politeness,
    caps: SizeCaps,
    next_slot: Mutex<Instant>,
}

/// True when `next` is on the source's own host: same host and port, same scheme or the
/// upgrade from http to https on the default port.
fn same_site(origin: &Url, next: &Url) -> bool {
    if origin.host_str() != next.host_str() {
        return false;
    }
    if origin.scheme() == next.scheme() {
        return origin.port_or_known_default() == next.port_or_known_default();
    }
    origin.scheme() == "http" && next.scheme() == "https" && next.port().is_none()
}

/// `Retry-After` as a wait: delta-seconds or an HTTP date (IMF-fixdate).
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let v = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let format = time::macros::format_description!(
        "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT"
    );
    let at = time::PrimitiveDateTime::parse(v, &format).ok()?.assume_utc();
    let wait = at - time::OffsetDateTime::now_utc();
    Some(Duration::try_from(wait).unwrap_or(Duration::ZERO))
}

fn secs(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

impl Fetcher {
    pub fn new(politeness: Politeness, caps: SizeCaps) -> anyhow::Result<Self> {
        catalog::cli::install_tls_provider();
        let client = reqwest::Client::builder()
            .user_agent(concat!("legal-pipeline/", env!("CARGO_PKG_VERSION"), " (open German legal data pipeline)"))
            .timeout(politeness.timeout)
            .connect_timeout(politeness.connect_timeout)
            // Redirects are followed by hand (`attempt`): only on the source's host, loops refused.
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        Ok(Fetcher { client, politeness, caps, next_slot: Mutex::new(Instant::now()) })
    }

    pub fn politeness(&self) -> &Politeness {
        &self.politeness
    }

    pub fn caps(&self) -> &SizeCaps {
        &self.caps
    }

    /// Waits for this request's slot under the global rate.
    async fn pace(&self) {
        let interval = if self.politeness.rate_per_second > 0.0 {
            Duration::from_secs_f64(1.0 / self.politeness.rate_per_second)
        } else {
            Duration::ZERO
        };
        let slot = {
            let mut next = self.next_slot.lock().await;
            let now = Instant::now();
            let slot = if *next > now { *next } else { now };
            *next = slot + interval;
            slot
        };
        tokio::time::sleep_until(slot).await;
    }

    /// The site asked for a pause (`Retry-After`): no request of this fetcher goes out before `until`.
    async fn hold_until(&self, until: Instant) {
        let mut next = self.next_slot.lock().await;
        if *next < until {
            *next = until;
        }
    }

    /// GETs `url`, conditionally when `validators` are given, streaming the body into a file
    /// under `spool` with at most `max_bytes`. Retries transient failures within the document's
    /// deadline.
    pub async fn get(&self, url: &str, validators: &Validators, spool: &Path, max_bytes: u64) -> FetchOutcome {
        let p = &self.politeness;
        let mut deadline = None;
        let mut attempt = 0;
        loop {
            self.pace().await;
            // The deadline counts from the first slot: waiting for the rate is not the site's doing.
            let deadline = *deadline.get_or_insert_with(|| Instant::now() + p.document_deadline);
            let result = tokio::time::timeout_at(deadline, self.attempt(url, validators, spool, max_bytes)).await;
            let (transient, status, wait_asked) = match result {
                Err(_) => {
                    let reason =
                        format!("no complete answer within {} ({} attempts)", secs(p.document_deadline), attempt + 1);
                    return FetchOutcome::Failed { reason: SourceProblem::DeadlineExceeded.reason(reason) };
                }
                Ok(Attempt::Done(outcome)) => return outcome,
                Ok(Attempt::Transient { reason, status, retry_after }) => (reason, status, retry_after),
            };
            if let Some(asked) = wait_asked
                && asked > p.retry_after_budget
            {
                let reason = SourceProblem::RetryAfterOverBudget.reason(format!(
                    "{transient} with Retry-After {}, over the budget of {}",
                    secs(asked),
                    secs(p.retry_after_budget)
                ));
                return gave_up(status, reason);
            }
            let after = format!("{transient} (after {} attempts)", attempt + 1);
            if attempt >= p.retries {
                return gave_up(status, after);
            }
            let wait = wait_asked.unwrap_or(p.backoff * 2u32.saturating_pow(attempt));
            if Instant::now() + wait > deadline {
                let reason = SourceProblem::DeadlineExceeded
                    .reason(format!("{after}; the next try would pass the deadline of {}", secs(p.document_deadline)));
                return gave_up(status, reason);
            }
            if wait_asked.is_some() {
                self.hold_until(Instant::now() + wait).await;
            }
            tracing::debug!(url, attempt, ?wait, reason = %transient, "retrying");
            tokio::time::sleep(wait).await;
            attempt += 1;
        }
    }

    /// One attempt: the request and the redirects it leads to on the source's host, then the body.
    async fn attempt(&self, url: &str, validators: &Validators, spool: &Path, max_bytes: u64) -> Attempt {
        let idle = self.politeness.idle_timeout;
        let origin = match Url::parse(url) {
            Ok(u) => u,
            Err(e) => return Attempt::Done(FetchOutcome::Failed { reason: format!("bad URL {url:?}: {e}") }),
        };
        let mut current = origin.clone();
        let mut visited = vec![current.clone()];
        loop {
            let mut req = self.client.get(current.clone());
            if let Some(etag) = &validators.etag {
                req = req.header(reqwest::header::IF_NONE_MATCH, etag);
            }
            if let Some(lm) = &validators.last_modified {
                req = req.header(reqwest::header::IF_MODIFIED_SINCE, lm);
            }
            let resp = match tokio::time::timeout(idle, req.send()).await {
                Err(_) => {
                    let reason =
                        SourceProblem::Stalled.reason(format!("no response within the idle timeout of {}", secs(idle)));
                    return Attempt::Transient { reason, status: None, retry_after: None };
                }
                Ok(Err(e)) => return Attempt::Transient { reason: describe(&e), status: None, retry_after: None },
                Ok(Ok(r)) => r,
            };
            let status = resp.status();
            let code = status.as_u16();
            if status == StatusCode::NOT_MODIFIED {
                return Attempt::Done(FetchOutcome::NotModified { final_url: current.to_string() });
            }
            if status.is_redirection() {
                let location = resp.headers().get(reqwest::header::LOCATION).and_then(|v| v.to_str().ok());
                let Some(next) = location.and_then(|l| current.join(l).ok()) else {
                    let reason = format!("HTTP {code} without a usable Location ({location:?})");
                    return Attempt::Done(FetchOutcome::Status { status: code, reason });
                };
                let refuse = |problem: SourceProblem, why: String| {
                    Attempt::Done(FetchOutcome::Refused {
                        problem,
                        http_status: Some(code),
                        reason: problem.reason(why),
                    })
                };
                if !same_site(&origin, &next) {
                    let host = origin.host_str().unwrap_or("?");
                    return refuse(
                        SourceProblem::RedirectOffHost,
                        format!("HTTP {code} from {current} to {next}, off the source's host {host}; not followed"),
                    );
                }
                if visited.contains(&next) {
                    let chain: Vec<&str> = visited.iter().map(Url::as_str).collect();
                    return refuse(
                        SourceProblem::RedirectLoop,
                        format!("HTTP {code} from {current} back to {next} (chain {})", chain.join(" -> ")),
                    );
                }
                if visited.len() > self.politeness.max_redirects {
                    return refuse(
                        SourceProblem::RedirectLoop,
                        format!("more than {} redirects from {origin}", self.politeness.max_redirects),
                    );
                }
                visited.push(next.clone());
                current = next;
                continue;
            }
            if status.is_success() {
                return self.read_body(resp, current.to_string(), spool, max_bytes).await;
            }
            if status.is_server_error() || code == 429 {
                let retry_after = retry_after(resp.headers());
                return Attempt::Transient { reason: format!("HTTP {code}"), status: Some(code), retry_after };
            }
            return Attempt::Done(FetchOutcome::Status { status: code, reason: format!("HTTP {code}") });
        }
    }

    /// Streams a 200's body into the spool under the cap, with the idle timeout per read.
    async fn read_body(&self, mut resp: reqwest::Response, final_url: String, spool: &Path, max_bytes: u64) -> Attempt {
        let idle = self.politeness.idle_timeout;
        let too_large = |why: String| {
            let problem = SourceProblem::BodyTooLarge;
            Attempt::Done(FetchOutcome::Refused { problem, http_status: Some(200), reason: problem.reason(why) })
        };
        if let Some(len) = resp.content_length()
            && len > max_bytes
        {
            return too_large(format!("Content-Length {len} is over the cap of {max_bytes} bytes"));
        }
        let header = |name| {
            resp.headers().get(name).and_then(|v: &reqwest::header::HeaderValue| v.to_str().ok()).map(str::to_string)
        };
        let validators =
            Validators { etag: header(reqwest::header::ETAG), last_modified: header(reqwest::header::LAST_MODIFIED) };
        let mut out = match SpoolWriter::create(spool).await {
            Ok(w) => w,
            Err(e) => {
                return Attempt::Done(FetchOutcome::Failed {
                    reason: format!("cannot write spool {}: {e}", spool.display()),
                });
            }
        };
        loop {
            let chunk = match tokio::time::timeout(idle, resp.chunk()).await {
                Err(_) => {
                    let reason = SourceProblem::Stalled.reason(format!(
                        "no byte for the idle timeout of {} after {} bytes",
                        secs(idle),
                        out.bytes
                    ));
                    return Attempt::Transient { reason, status: None, retry_after: None };
                }
                Ok(Err(e)) => {
                    let reason = format!("body read failed after {} bytes: {}", out.bytes, describe(&e));
                    return Attempt::Transient { reason, status: None, retry_after: None };
                }
                Ok(Ok(None)) => break,
                Ok(Ok(Some(c))) => c,
            };
            if out.bytes + chunk.len() as u64 > max_bytes {
                return too_large(format!("the body passed the cap of {max_bytes} bytes (no Content-Length said so)"));
            }
            if let Err(e) = out.write(&chunk).await {
                return Attempt::Done(FetchOutcome::Failed { reason: format!("cannot write spool: {e}") });
            }
        }
        match out.finish().await {
            Ok(body) => Attempt::Done(FetchOutcome::Body { body, validators, final_url }),
            Err(e) => Attempt::Done(FetchOutcome::Failed { reason: format!("cannot write spool: {e}") }),
        }
    }
}

/// The outcome of a document given up on: its last HTTP status when there was one.
fn gave_up(status: Option<u16>, reason: String) -> FetchOutcome {
    match status {
        Some(status) => FetchOutcome::Status { status, reason },
        None => FetchOutcome::Failed { reason },
    }
}

fn describe(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        format!("timeout: {e}")
    } else if e.is_connect() {
        format!("connection failed: {e}")
    } else {
        format!("request failed: {e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_stay_on_the_source_host() {
        let o = Url::parse("http://127.0.0.1:9000/bgb/xml.zip").unwrap();
        assert!(same_site(&o, &Url::parse("http://127.0.0.1:9000/other").unwrap()));
        assert!(!same_site(&o, &Url::parse("http://localhost:9000/bgb/xml.zip").unwrap()));
        assert!(!same_site(&o, &Url::parse("http://127.0.0.1:9001/bgb/xml.zip").unwrap()));
        let real = Url::parse("http://www.gesetze-im-internet.de/bgb/xml.zip").unwrap();
        assert!(same_site(&real, &Url::parse("https://www.gesetze-im-internet.de/bgb/xml.zip").unwrap()));
        assert!(!same_site(&real, &Url::parse("https://evil.example/bgb/xml.zip").unwrap()));
    }

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let mut h = reqwest::header::HeaderMap::new();
        h.insert(reqwest::header::RETRY_AFTER, "3600".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(3600)));
        h.insert(reqwest::header::RETRY_AFTER, "Thu, 01 Jan 1970 00:00:00 GMT".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::ZERO));
        h.insert(reqwest::header::RETRY_AFTER, "soon".parse().unwrap());
        assert_eq!(retry_after(&h), None);
    }
}
