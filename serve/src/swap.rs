//! Hot swap: the generation being served, and the watcher that replaces it.
//!
//! Requests take an `Arc<Generation>` once at their start ([`Slot::get`]) and keep it to the
//! end, so a swap never changes the generation under a request; the old generation's files
//! are released when its last `Arc` drops. A new `CURRENT` is opened and verified off the
//! request path; a generation that fails verification is refused (reported on `/healthz` and
//! in metrics) and the old one keeps serving.
//!
//! The server also writes `data/leases/<pid>` listing every generation it still holds, so
//! `index gc` never removes one in use.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use arc_swap::ArcSwapOption;
use index::Generation;
use index::generation::{current_id, generations_dir};
use serde_json::{Value, json};

#[derive(Debug, Clone, Default)]
pub struct SwapStatus {
    pub swaps: u64,
    pub refusals: u64,
    /// The last generation refused: (id, reason, when).
    pub last_refused: Option<(String, String, String)>,
    /// Seconds the last successful open+verify took.
    pub last_swap_seconds: Option<f64>,
}

pub struct Slot {
    data_dir: PathBuf,
    current: ArcSwapOption<Generation>,
    status: Mutex<SwapStatus>,
    held: Mutex<Vec<(String, Weak<Generation>)>>,
}

impl Slot {
    pub fn new(data_dir: &Path) -> Arc<Slot> {
        Arc::new(Slot {
            data_dir: data_dir.to_path_buf(),
            current: ArcSwapOption::empty(),
            status: Mutex::new(SwapStatus::default()),
            held: Mutex::new(Vec::new()),
        })
    }

    /// The generation to answer one request from.
    pub fn get(&self) -> Option<Arc<Generation>> {
        self.current.load_full()
    }

    pub fn status(&self) -> SwapStatus {
        self.status.lock().expect("status lock").clone()
    }

    /// Ids of generations still referenced (current plus any in-flight requests' old ones).
    pub fn held_ids(&self) -> Vec<String> {
        let mut held = self.held.lock().expect("held lock");
        held.retain(|(_, w)| w.strong_count() > 0);
        held.iter().map(|(id, _)| id.clone()).collect()
    }

    /// Loads the generation `CURRENT` names if it differs from the one served. Blocking.
    /// Returns true when a swap happened.
    pub fn check_current(&self) -> bool {
        let Some(id) = current_id(&self.data_dir) else { return false };
        if self.current.load().as_ref().is_some_and(|g| g.id == id) {
            return false;
        }
        if self.status().last_refused.as_ref().is_some_and(|(rid, _, _)| *rid == id) {
            return false;
        }
        let started = std::time::Instant::now();
        let dir = generations_dir(&self.data_dir).join(&id);
        match Generation::open_verified(&dir) {
            Ok(g) => {
                let g = Arc::new(g);
                self.held.lock().expect("held lock").push((id.clone(), Arc::downgrade(&g)));
                // Written before the swap: the new generation is protected from gc first.
                self.write_lease();
                let old = self.current.swap(Some(g));
                let secs = started.elapsed().as_secs_f64();
                {
                    let mut st = self.status.lock().expect("status lock");
                    st.swaps += 1;
                    st.last_swap_seconds = Some(secs);
                }
                tracing::info!(generation = %id, previous = ?old.as_ref().map(|g| g.id.clone()), seconds = secs, "swapped generation");
                drop(old);
                true
            }
            Err(e) => {
                let reason = e.to_string();
                tracing::error!(generation = %id, %reason, "refused generation");
                let mut st = self.status.lock().expect("status lock");
                st.refusals += 1;
                st.last_refused = Some((id, reason, ingest::catalog::now_utc()));
                false
            }
        }
    }

    fn lease_path(&self) -> PathBuf {
        self.data_dir.join("leases").join(std::process::id().to_string())
    }

    /// Rewrites `data/leases/<pid>` with the generations this process holds.
    pub fn write_lease(&self) {
        let ids = self.held_ids();
        let path = self.lease_path();
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let tmp = path.with_extension("tmp");
        if std::fs::write(&tmp, ids.join("\n") + "\n").is_ok() {
            let _ = std::fs::rename(&tmp, &path);
        }
    }

    pub fn remove_lease(&self) {
        let _ = std::fs::remove_file(self.lease_path());
    }

    /// `/healthz` detail.
    pub fn health_json(&self) -> Value {
        let st = self.status();
        json!({
            "generation": self.get().map(|g| json!({"id": g.id, "built_at": g.manifest.built_at})),
            "swaps": st.swaps,
            "refusals": st.refusals,
            "last_refused": st.last_refused.map(|(id, reason, at)| json!({"id": id, "reason": reason, "at": at})),
            "held_generations": self.held_ids(),
        })
    }
}

/// Polls `CURRENT` every `interval` and on SIGHUP; swaps off the request path.
/// Runs [`Slot::check_current`] on a thread of its own at a lower CPU priority: verifying a new
/// generation hashes every file (seconds of CPU on a full corpus), and on a small machine that
/// must not take the cores from the requests being answered meanwhile.
async fn check_in_background(slot: Arc<Slot>) -> bool {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let spawned = std::thread::Builder::new().name("generation-check".into()).spawn(move || {
        lower_this_threads_priority();
        let _ = tx.send(slot.check_current());
    });
    match spawned {
        Ok(_) => rx.await.unwrap_or(false),
        Err(e) => {
            tracing::error!(error = %e, "cannot start the generation check thread");
            false
        }
    }
}

#[cfg(target_os = "linux")]
fn lower_this_threads_priority() {
    // On Linux the nice value is per thread; this touches only the calling thread.
    // SAFETY: plain syscalls with no pointers; failure only leaves the priority as it was.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, 10);
    }
}

#[cfg(not(target_os = "linux"))]
fn lower_this_threads_priority() {}

pub fn spawn_watcher(slot: Arc<Slot>, interval: Duration, on_swap: impl Fn(&Slot) + Send + Sync + 'static) {
    let on_swap = Arc::new(on_swap);
    tokio::spawn(async move {
        #[cfg(unix)]
        let mut hup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()).ok();
        let mut tick = tokio::time::interval(interval);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut last_held: Vec<String> = Vec::new();
        loop {
            #[cfg(unix)]
            {
                match hup.as_mut() {
                    Some(h) => {
                        tokio::select! {
                            _ = tick.tick() => {}
                            _ = h.recv() => { tracing::info!("SIGHUP: checking CURRENT"); }
                        }
                    }
                    None => {
                        tick.tick().await;
                    }
                }
            }
            #[cfg(not(unix))]
            tick.tick().await;
            let swapped = check_in_background(slot.clone()).await;
            if swapped {
                on_swap(&slot);
            }
            let held = slot.held_ids();
            if held != last_held {
                slot.write_lease();
                last_held = held;
            }
        }
    });
}
