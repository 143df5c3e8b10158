//! Prometheus metrics (`/metrics`, text exposition): requests and latencies per transport,
//! tool and outcome; the generation served; swaps and refusals; requests admitted or refused
//! by the access layer per tier (never a token value).

use std::sync::Mutex;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    pub transport: String,
    pub tool: String,
    pub outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct AccessLabels {
    pub tier: String,
    pub outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct GenerationLabels {
    pub id: String,
}

type HistogramFamily = Family<RequestLabels, Histogram, fn() -> Histogram>;

pub struct Metrics {
    registry: Registry,
    pub requests: Family<RequestLabels, Counter>,
    pub latency: HistogramFamily,
    pub generation: Family<GenerationLabels, Gauge>,
    pub swaps: Counter,
    pub refusals: Counter,
    pub http_refusals: Family<RequestLabels, Counter>,
    pub access: Family<AccessLabels, Counter>,
    /// Scanning calls ([`crate::tools::Workload::Scan`]) running now, the most that ran at
    /// once since the start, and how many waited for their turn.
    scans_running: Gauge,
    scans_running_peak: Gauge,
    scan_waits: Counter,
    lock: Mutex<()>,
}

fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.000_25, 2.0, 16))
}

impl Metrics {
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("legal");
        let requests = Family::<RequestLabels, Counter>::default();
        let latency: HistogramFamily = Family::new_with_constructor(latency_histogram);
        let generation = Family::<GenerationLabels, Gauge>::default();
        let swaps = Counter::default();
        let refusals = Counter::default();
        let http_refusals = Family::<RequestLabels, Counter>::default();
        let access = Family::<AccessLabels, Counter>::default();
        registry.register(
            "access_requests",
            "HTTP requests by caller tier and access outcome (model::AccessOutcome)",
            access.clone(),
        );
        registry.register("requests", "Tool calls by transport, tool and outcome", requests.clone());
        registry.register("request_seconds", "Tool call latency", latency.clone());
        registry.register("generation_info", "The generation being served (value 1)", generation.clone());
        registry.register("generation_swaps", "Generations swapped in", swaps.clone());
        registry.register("generation_refusals", "Generations refused at swap time", refusals.clone());
        registry.register(
            "http_refusals",
            "Requests refused before a tool ran (413, 403, 400 …)",
            http_refusals.clone(),
        );
        let (scans_running, scans_running_peak, scan_waits) = (Gauge::default(), Gauge::default(), Counter::default());
        registry.register("scans_running", "Scanning tool calls running now", scans_running.clone());
        registry.register(
            "scans_running_peak",
            "The most scanning tool calls that ran at once since the start (at most --max-concurrent-scans)",
            scans_running_peak.clone(),
        );
        registry.register("scan_waits", "Scanning tool calls that waited for their turn", scan_waits.clone());
        Metrics {
            registry,
            requests,
            latency,
            generation,
            swaps,
            refusals,
            http_refusals,
            access,
            scans_running,
            scans_running_peak,
            scan_waits,
            lock: Mutex::new(()),
        }
    }

    /// A scanning call found every turn taken.
    pub fn scan_waited(&self) {
        self.scan_waits.inc();
    }

    /// A scanning call starts its work; it ends when the returned guard drops.
    pub fn scan_running(&self) -> ScanRunning {
        let now = self.scans_running.inc() + 1;
        // The peak only rises.
        self.scans_running_peak.inner().fetch_max(now, std::sync::atomic::Ordering::Relaxed);
        ScanRunning(self.scans_running.clone())
    }

    pub fn observe(&self, transport: &str, tool: &str, outcome: &str, seconds: f64) {
        let l = RequestLabels { transport: transport.into(), tool: tool.into(), outcome: outcome.into() };
        self.requests.get_or_create(&l).inc();
        self.latency.get_or_create(&l).observe(seconds);
    }

    pub fn refuse(&self, transport: &str, reason: &str) {
        let l = RequestLabels { transport: transport.into(), tool: "-".into(), outcome: reason.into() };
        self.http_refusals.get_or_create(&l).inc();
    }

    /// One request of a caller of `tier` and what the access layer did with it.
    pub fn access(&self, tier: model::RateTier, outcome: model::AccessOutcome) {
        self.access.get_or_create(&AccessLabels { tier: tier.as_str().into(), outcome: outcome.as_str().into() }).inc();
    }

    pub fn set_generation(&self, id: &str) {
        let _g = self.lock.lock().expect("metrics lock");
        self.generation.clear();
        self.generation.get_or_create(&GenerationLabels { id: id.into() }).set(1);
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        if prometheus_client::encoding::text::encode(&mut out, &self.registry).is_err() {
            out.push_str("# encoding failed\n");
        }
        out
    }
}

/// Counts one scanning call in `scans_running` while it lives.
pub struct ScanRunning(Gauge);

impl Drop for ScanRunning {
    fn drop(&mut self) {
        self.0.dec();
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}
