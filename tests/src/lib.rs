//! Test support: a loopback HTTP mirror of the source sites, and helpers that run the real
//! stage binaries as processes.
//!
//! The mirror serves one or more directory trees as a web site's document root (the first
//! tree holding a path wins, so a test can overlay a broken law on top of the shared corpus
//! without copying it). It answers conditional GETs (ETag and Last-Modified → 304) the way the
//! real sites do, and can inject faults per path at run time: any HTTP status, a hang, and the
//! hostile answers a crawler must survive (a redirect anywhere, `Retry-After`, a body that
//! stalls, a body of any size). It counts the requests of every path.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, UNIX_EPOCH};

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Request, StatusCode, header};
use axum::response::Response;

pub mod http;
pub mod procs;
pub mod register;

/// What the mirror does instead of serving a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    Status(u16),
    /// Accept the request and never answer (the client's timeout must fire).
    Hang,
    /// Answer `status` (301, 302, 307, 308) with `Location: location` (absolute or relative).
    Redirect {
        status: u16,
        location: String,
    },
    /// Answer `status` (503, 429) with `Retry-After: retry_after`.
    RetryAfter {
        status: u16,
        retry_after: String,
    },
    /// Answer 200 and send `after_bytes` bytes of body, then nothing more, never ending it.
    StallBody {
        after_bytes: u64,
    },
    /// Answer 200 with a body of `bytes` bytes made on the fly, chunked (no Content-Length).
    LargeBody {
        bytes: u64,
    },
}

#[derive(Default)]
pub struct MirrorStats {
    pub requests: AtomicU64,
    pub ok: AtomicU64,
    pub not_modified: AtomicU64,
    pub faults: AtomicU64,
    pub not_found: AtomicU64,
    /// When each request of a path arrived.
    pub arrivals: RwLock<HashMap<String, Vec<std::time::Instant>>>,
}

impl MirrorStats {
    /// How many requests `path` has had.
    pub fn hits(&self, path: &str) -> u64 {
        self.arrivals(path).len() as u64
    }

    /// When the requests of `path` arrived, oldest first.
    pub fn arrivals(&self, path: &str) -> Vec<std::time::Instant> {
        self.arrivals.read().expect("arrivals lock").get(path).cloned().unwrap_or_default()
    }
}

struct MirrorState {
    roots: Vec<PathBuf>,
    /// Per path: the fault and how many more requests it answers (None: every one).
    faults: RwLock<HashMap<String, (Fault, Option<u64>)>>,
    /// Faults for every path (a whole-site outage).
    site_fault: RwLock<Option<Fault>>,
    stats: MirrorStats,
}

/// A running mirror on 127.0.0.1. Dropping it stops the server.
pub struct Mirror {
    pub addr: SocketAddr,
    state: Arc<MirrorState>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Mirror {
    /// Starts a mirror over `roots` on a free loopback port, in a background thread.
    pub fn start(roots: Vec<PathBuf>) -> Mirror {
        Self::start_on(roots, "127.0.0.1:0".parse().expect("static addr"))
    }

    pub fn start_on(roots: Vec<PathBuf>, bind: SocketAddr) -> Mirror {
        let state = Arc::new(MirrorState {
            roots,
            faults: RwLock::new(HashMap::new()),
            site_fault: RwLock::new(None),
            stats: MirrorStats::default(),
        });
        let (tx_addr, rx_addr) = std::sync::mpsc::channel();
        let (tx_stop, rx_stop) = tokio::sync::oneshot::channel::<()>();
        let st = state.clone();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("mirror runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind(bind).await.expect("bind mirror");
                tx_addr.send(listener.local_addr().expect("local addr")).expect("report addr");
                let app = axum::Router::new().fallback(serve_path).with_state(st);
                axum::serve(listener, app)
                    .with_graceful_shutdown(async {
                        let _ = rx_stop.await;
                    })
                    .await
                    .expect("mirror server");
            });
        });
        let addr = rx_addr.recv().expect("mirror started");
        Mirror { addr, state, shutdown: Some(tx_stop), thread: Some(thread) }
    }

    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Makes `path` (e.g. `/bgb/xml.zip`) answer with `fault` from now on.
    pub fn set_fault(&self, path: &str, fault: Fault) {
        self.state.faults.write().expect("faults lock").insert(path.to_string(), (fault, None));
    }

    /// Makes the next `times` requests of `path` answer with `fault`; later ones are served.
    pub fn set_fault_times(&self, path: &str, fault: Fault, times: u64) {
        self.state.faults.write().expect("faults lock").insert(path.to_string(), (fault, Some(times)));
    }

    pub fn clear_fault(&self, path: &str) {
        self.state.faults.write().expect("faults lock").remove(path);
    }

    /// Every path answers with `fault` (None: serve normally again).
    pub fn set_site_fault(&self, fault: Option<Fault>) {
        *self.state.site_fault.write().expect("site fault lock") = fault;
    }

    pub fn stats(&self) -> &MirrorStats {
        &self.state.stats
    }
}

impl Drop for Mirror {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        // Hanging connections would keep graceful shutdown waiting; do not join them.
        if let Some(t) = self.thread.take() {
            drop(t);
        }
    }
}

fn resolve(roots: &[PathBuf], path: &str) -> Option<PathBuf> {
    let rel = path.trim_start_matches('/');
    if rel.split('/').any(|seg| seg == ".." || seg.starts_with('.')) {
        return None;
    }
    roots.iter().map(|r| r.join(rel)).find(|p| p.is_file())
}

/// A strong validator from size and modification time (what static file servers send).
fn etag_of(meta: &std::fs::Metadata) -> String {
    let mtime = meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).unwrap_or_default();
    format!("\"{:x}-{:x}\"", meta.len(), mtime.as_nanos())
}

fn http_date(meta: &std::fs::Metadata) -> String {
    let secs = meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).unwrap_or_default().as_secs();
    httpdate(secs)
}

/// RFC 7231 IMF-fixdate from Unix seconds.
pub fn httpdate(secs: u64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let days = secs / 86_400;
    let rem = secs % 86_400;
    // Civil-from-days (Howard Hinnant).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{}, {:02} {} {} {:02}:{:02}:{:02} GMT",
        DAYS[(days % 7) as usize],
        d,
        MONTHS[(m - 1) as usize],
        y,
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

async fn serve_path(State(st): State<Arc<MirrorState>>, req: Request<Body>) -> Response {
    st.stats.requests.fetch_add(1, Ordering::Relaxed);
    let path = req.uri().path().to_string();
    st.stats.arrivals.write().expect("arrivals lock").entry(path.clone()).or_default().push(std::time::Instant::now());
    let fault = take_fault(&st, &path).or(st.site_fault.read().expect("lock").clone());
    match fault {
        Some(Fault::Status(code)) => {
            st.stats.faults.fetch_add(1, Ordering::Relaxed);
            return plain(StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR), "injected fault");
        }
        Some(Fault::Hang) => {
            st.stats.faults.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(Duration::from_secs(3600)).await;
            return plain(StatusCode::GATEWAY_TIMEOUT, "hung");
        }
        Some(Fault::Redirect { status, location }) => {
            st.stats.faults.fetch_add(1, Ordering::Relaxed);
            let mut r = plain(StatusCode::from_u16(status).unwrap_or(StatusCode::FOUND), "moved");
            if let Ok(v) = HeaderValue::from_str(&location) {
                r.headers_mut().insert(header::LOCATION, v);
            }
            return r;
        }
        Some(Fault::RetryAfter { status, retry_after }) => {
            st.stats.faults.fetch_add(1, Ordering::Relaxed);
            let mut r =
                plain(StatusCode::from_u16(status).unwrap_or(StatusCode::SERVICE_UNAVAILABLE), "come back later");
            if let Ok(v) = HeaderValue::from_str(&retry_after) {
                r.headers_mut().insert(header::RETRY_AFTER, v);
            }
            return r;
        }
        Some(Fault::StallBody { after_bytes }) => {
            st.stats.faults.fetch_add(1, Ordering::Relaxed);
            return Response::new(Body::new(GeneratedBody::new(after_bytes, true)));
        }
        Some(Fault::LargeBody { bytes }) => {
            st.stats.faults.fetch_add(1, Ordering::Relaxed);
            return Response::new(Body::new(GeneratedBody::new(bytes, false)));
        }
        None => {}
    }
    let Some(file) = resolve(&st.roots, &path) else {
        st.stats.not_found.fetch_add(1, Ordering::Relaxed);
        return plain(StatusCode::NOT_FOUND, "not found");
    };
    let Ok(meta) = std::fs::metadata(&file) else {
        return plain(StatusCode::NOT_FOUND, "not found");
    };
    let etag = etag_of(&meta);
    let last_modified = http_date(&meta);
    if not_modified(req.headers(), &etag, &last_modified) {
        st.stats.not_modified.fetch_add(1, Ordering::Relaxed);
        let mut r = Response::new(Body::empty());
        *r.status_mut() = StatusCode::NOT_MODIFIED;
        set_validators(r.headers_mut(), &etag, &last_modified);
        return r;
    }
    match tokio::fs::read(&file).await {
        Ok(bytes) => {
            st.stats.ok.fetch_add(1, Ordering::Relaxed);
            let mut r = Response::new(Body::from(bytes));
            let ctype = match Path::new(&path).extension().and_then(|e| e.to_str()) {
                Some("zip") => "application/zip",
                Some("xml") => "application/xml",
                Some("gz") => "application/gzip",
                Some("jsonl") => "application/jsonl",
                _ => "application/octet-stream",
            };
            r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(ctype));
            set_validators(r.headers_mut(), &etag, &last_modified);
            r
        }
        Err(_) => plain(StatusCode::INTERNAL_SERVER_ERROR, "read error"),
    }
}

/// The fault for this request of `path`, counting down one that answers a number of times.
fn take_fault(st: &MirrorState, path: &str) -> Option<Fault> {
    let mut faults = st.faults.write().expect("faults lock");
    let (fault, times) = faults.get_mut(path)?;
    let fault = fault.clone();
    match times {
        Some(0) => {
            faults.remove(path);
            return None;
        }
        Some(n) => *n -= 1,
        None => {}
    }
    Some(fault)
}

/// A body made on the fly: `remaining` bytes of filler in 64 KiB frames, then the end, or
/// (when `stall_at_end`) no further frame ever, with the response left open. No size hint, so
/// the response is chunked and the client learns its length only by reading.
struct GeneratedBody {
    remaining: u64,
    stall_at_end: bool,
    chunk: bytes::Bytes,
}

impl GeneratedBody {
    fn new(bytes: u64, stall_at_end: bool) -> Self {
        GeneratedBody { remaining: bytes, stall_at_end, chunk: bytes::Bytes::from(vec![b'x'; 64 * 1024]) }
    }
}

impl http_body::Body for GeneratedBody {
    type Data = bytes::Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<bytes::Bytes>, Self::Error>>> {
        use std::task::Poll;
        if self.remaining == 0 {
            // Stalling: never ready and never woken; the client's idle timeout must end it.
            return if self.stall_at_end { Poll::Pending } else { Poll::Ready(None) };
        }
        let n = self.remaining.min(self.chunk.len() as u64) as usize;
        self.remaining -= n as u64;
        Poll::Ready(Some(Ok(http_body::Frame::data(self.chunk.slice(..n)))))
    }
}

fn not_modified(h: &HeaderMap, etag: &str, last_modified: &str) -> bool {
    if let Some(inm) = h.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()) {
        return inm.split(',').any(|t| t.trim() == etag || t.trim() == "*");
    }
    if let Some(ims) = h.get(header::IF_MODIFIED_SINCE).and_then(|v| v.to_str().ok()) {
        return ims == last_modified;
    }
    false
}

fn set_validators(h: &mut HeaderMap, etag: &str, last_modified: &str) {
    if let Ok(v) = HeaderValue::from_str(etag) {
        h.insert(header::ETAG, v);
    }
    if let Ok(v) = HeaderValue::from_str(last_modified) {
        h.insert(header::LAST_MODIFIED, v);
    }
}

fn plain(status: StatusCode, msg: &'static str) -> Response {
    let mut r = Response::new(Body::from(msg));
    *r.status_mut() = status;
    r
}

/// The workspace root (this crate lives in `<root>/tests`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests crate has a parent").to_path_buf()
}

/// `../shared` next to the workspace: the real data (read-only).
pub fn shared_dir() -> PathBuf {
    if let Ok(p) = std::env::var("LEGAL_SHARED_DIR") {
        return PathBuf::from(p);
    }
    workspace_root().parent().expect("workspace has a parent").join("shared")
}

/// `sample/gii` of the repo: the embedded 20-law sample.
pub fn sample_gii() -> PathBuf {
    workspace_root().join("sample/gii")
}

/// A zip archive holding `entries` (name, bytes), as a source site would serve it.
pub fn zip_with(entries: &[(&str, &[u8])]) -> Vec<u8> {
    use std::io::Write;
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut buf);
        for (name, bytes) in entries {
            z.start_file(*name, zip::write::SimpleFileOptions::default()).expect("zip entry");
            z.write_all(bytes).expect("zip write");
        }
        z.finish().expect("zip finish");
    }
    buf.into_inner()
}

/// Writes `bytes` to `path`, creating its directory.
pub fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().expect("path has a parent")).expect("create dir");
    std::fs::write(path, bytes).expect("write file");
}

/// `sample/rii` of the repo: a rii-toc.xml and the one real rii zip, in the site's layout.
pub fn sample_rii() -> PathBuf {
    workspace_root().join("sample/rii")
}

/// `sample/decisions/oldp-sample.jsonl.gz`: 112 real records of the shared decision corpus.
pub fn sample_oldp_dump() -> PathBuf {
    workspace_root().join("sample/decisions/oldp-sample.jsonl.gz")
}

/// The lines of a parted work file ([`extract::line_parts`]), in order, without newlines.
fn parted_lines(layout: extract::line_parts::PartsLayout) -> Vec<String> {
    extract::line_parts::PartedLines::open(layout)
        .expect("a list of parts")
        .lines()
        .map(|l| String::from_utf8(l.expect("a listed part").1).expect("UTF-8").trim_end_matches('\n').to_string())
        .collect()
}

/// The lines of the decisions extract wrote last (`decisions.parts`' parts, in order): what a
/// single `decisions.jsonl` would hold.
pub fn decision_lines(data: &Path) -> Vec<String> {
    parted_lines(extract::decision_stage::parts_layout(data))
}

/// The citations resolve wrote last (`citations.parts`' parts, in order), one line per decision.
pub fn citation_lines(data: &Path) -> Vec<String> {
    parted_lines(resolve::case_law::citations_layout(data))
}

/// The generation id `data/CURRENT` names.
pub fn current_id(data: &Path) -> String {
    std::fs::read_to_string(data.join("CURRENT")).expect("CURRENT").trim().to_string()
}

/// Copies the directory tree `from` to `to` (plain files and directories).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// A fresh data directory with a published generation of the embedded sample (laws and
/// decisions), built by the real binaries from a loopback mirror of it.
pub fn sample_data_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let mirror = Mirror::start(vec![sample_gii(), sample_rii()]);
    procs::build_generation_with_decisions(dir.path(), &mirror.base_url(), &sample_oldp_dump());
    dir
}

/// `data/decisions/corpus.oldp.jsonl.gz` of the shared data: the whole real decision corpus
/// (966 records); None when `../shared` is absent (full-corpus tests then skip and say so).
pub fn shared_corpus_dump() -> Option<PathBuf> {
    let p = shared_dir().join("data/decisions/corpus.oldp.jsonl.gz");
    if p.is_file() {
        Some(p)
    } else {
        eprintln!("SKIPPED: {} is absent (the shared data is not mounted)", p.display());
        None
    }
}

/// A fresh data directory with a published generation of the sample laws, the sample rii toc
/// (one BVerfG decision) and the whole shared decision corpus, built by the real binaries;
/// None when the shared data is absent.
pub fn full_corpus_data_dir() -> Option<tempfile::TempDir> {
    let dump = shared_corpus_dump()?;
    let dir = tempfile::tempdir().expect("temp dir");
    let mirror = Mirror::start(vec![sample_gii(), sample_rii()]);
    procs::build_generation_with_decisions(dir.path(), &mirror.base_url(), &dump);
    Some(dir)
}

#[cfg(test)]
mod tests {
    use super::httpdate;

    #[test]
    fn http_dates_are_imf_fixdate() {
        assert_eq!(httpdate(0), "Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(httpdate(1_743_379_200), "Mon, 31 Mar 2025 00:00:00 GMT");
    }
}
