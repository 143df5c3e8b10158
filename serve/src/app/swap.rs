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
//!
//! What `CURRENT` may name, checked before anything is opened ([`read_current`],
//! [`precheck_generation`]): a regular file (a symlink is not followed) holding one valid id,
//! naming a real directory (not a symlink) whose `manifest.json` carries that same id and lists
//! only plain files inside it. Anything else is a logged refusal, counted and shown on
//! `/healthz`. A refused id is retried with exponential backoff (1 s doubling to 5 min, so a
//! bad copy is not re-hashed five times a second) and at once on SIGHUP.

use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use arc_swap::ArcSwapOption;
use index::Generation;
use index::generation::{generations_dir, valid_id};
use index::verified_stamp::Verification;
use serde_json::{Value, json};

/// First and last wait before a refused generation id is tried again (doubling in between).
const RETRY_FIRST: Duration = Duration::from_secs(1);
const RETRY_MAX: Duration = Duration::from_secs(300);

model::closed_set! {
    /// What is wrong with `CURRENT` itself (before any generation is opened).
    pub enum CurrentProblem {
        /// `CURRENT` is a symbolic link; it is not followed.
        Symlink => "current_is_symlink",
        /// `CURRENT` is not a regular file (a directory, a device, …).
        NotAFile => "current_not_a_file",
        /// `CURRENT` could not be read (permissions, I/O).
        Unreadable => "current_unreadable",
        /// `CURRENT` does not hold one valid generation id.
        Garbage => "current_garbage",
    }
}

model::closed_set! {
    /// Where the background re-hash of a generation opened on its stamp stands.
    pub enum RehashState {
        /// Its files are being hashed; it is served meanwhile, on the strength of its stamp.
        Hashing => "hashing",
        /// Every file matched its manifest.
        Verified => "verified",
        /// A file did not match: the generation was withdrawn.
        Failed => "failed",
    }
}

/// The background re-hash of the generation last opened on its stamp.
#[derive(Debug, Clone)]
pub struct Rehash {
    pub generation: String,
    pub state: RehashState,
    /// Seconds the re-hash took (None while hashing).
    pub seconds: Option<f64>,
}

#[derive(Debug, Clone, Default)]
pub struct SwapStatus {
    pub swaps: u64,
    pub refusals: u64,
    /// The last generation refused: (id, reason, when).
    pub last_refused: Option<(String, String, String)>,
    /// How often the id of `last_refused` was tried in a row, and when it may be tried again.
    pub refused_attempts: u32,
    pub retry_at: Option<Instant>,
    /// Seconds the last successful open+verify took.
    pub last_swap_seconds: Option<f64>,
    /// What is wrong with `CURRENT` now (None: readable and valid, or absent), with detail and time.
    pub current_problem: Option<(CurrentProblem, String, String)>,
    /// Every time `CURRENT` was found bad (counted once per change of what it holds).
    pub current_problems: u64,
    /// The last background re-hash (None: no generation was opened on its stamp).
    pub rehash: Option<Rehash>,
}

/// The id `CURRENT` names: `Ok(None)` when there is no `CURRENT`, `Err` when it is there but
/// cannot be used. A symlink is never followed.
pub fn read_current(data_dir: &Path) -> Result<Option<String>, (CurrentProblem, String)> {
    let path = data_dir.join(index::generation::CURRENT_FILE);
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err((CurrentProblem::Unreadable, format!("{}: {e}", path.display()))),
    };
    if meta.file_type().is_symlink() {
        return Err((CurrentProblem::Symlink, format!("{} is a symbolic link; it is not followed", path.display())));
    }
    if !meta.is_file() {
        return Err((CurrentProblem::NotAFile, format!("{} is not a regular file", path.display())));
    }
    // An id is at most 64 bytes; a larger file is garbage, and is not read whole.
    if meta.len() > 256 {
        return Err((
            CurrentProblem::Garbage,
            format!("{} holds {} bytes, not one generation id", path.display(), meta.len()),
        ));
    }
    let text = std::fs::read(&path).map_err(|e| (CurrentProblem::Unreadable, format!("{}: {e}", path.display())))?;
    let text = String::from_utf8_lossy(&text);
    let id = text.trim();
    if valid_id(id) {
        Ok(Some(id.to_string()))
    } else {
        let shown: String = id.chars().take(80).collect();
        Err((CurrentProblem::Garbage, format!("{} holds {shown:?}, not a generation id", path.display())))
    }
}

/// Cheap checks before hashing a generation: a real directory (not a symlink), a manifest whose
/// id equals the directory name, and manifest entries that are plain files inside it.
pub fn precheck_generation(dir: &Path, id: &str) -> Result<(), String> {
    let meta = std::fs::symlink_metadata(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if meta.file_type().is_symlink() {
        return Err(format!("{} is a symbolic link; it is not followed", dir.display()));
    }
    if !meta.is_dir() {
        return Err(format!("{} is not a directory", dir.display()));
    }
    let manifest = index::generation::read_manifest(dir).map_err(|e| e.to_string())?;
    if manifest.id != id {
        return Err(format!(
            "manifest id {} differs from its directory name {id} (a copied or renamed generation is not served)",
            manifest.id
        ));
    }
    for f in &manifest.files {
        let rel = Path::new(&f.path);
        if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
            return Err(format!("manifest lists {:?}, which is not a plain path inside the generation", f.path));
        }
        let p = dir.join(rel);
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(format!("{} is a symbolic link; it is not followed", p.display()));
            }
            Ok(m) if !m.is_file() => return Err(format!("{} is not a regular file", p.display())),
            Ok(_) => {}
            Err(e) => return Err(format!("{}: {e}", p.display())),
        }
    }
    Ok(())
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
    /// Returns true when a swap happened. `force` (SIGHUP) retries a refused id at once.
    pub fn check_current(self: &Arc<Self>, force: bool) -> bool {
        let id = match read_current(&self.data_dir) {
            Ok(Some(id)) => {
                self.status.lock().expect("status lock").current_problem = None;
                id
            }
            Ok(None) => return false,
            Err((problem, detail)) => {
                let mut st = self.status.lock().expect("status lock");
                if st.current_problem.as_ref().map(|(p, d, _)| (p, d)) != Some((&problem, &detail)) {
                    tracing::error!(problem = problem.as_str(), %detail, "CURRENT refused; the served generation stays");
                    st.current_problems += 1;
                    st.current_problem = Some((problem, detail, catalog::now_utc()));
                }
                return false;
            }
        };
        if self.current.load().as_ref().is_some_and(|g| g.id == id) {
            return false;
        }
        {
            let st = self.status.lock().expect("status lock");
            let refused_before = st.last_refused.as_ref().is_some_and(|(rid, _, _)| *rid == id);
            if refused_before && !force && st.retry_at.is_some_and(|at| Instant::now() < at) {
                return false;
            }
        }
        let started = Instant::now();
        let dir = generations_dir(&self.data_dir).join(&id);
        let opened = precheck_generation(&dir, &id)
            .map_err(|reason| reason.to_string())
            .and_then(|()| Generation::open_stamped(&self.data_dir, &dir).map_err(|e| e.to_string()));
        match opened {
            Ok((g, how)) => {
                let g = Arc::new(g);
                if how == Verification::Stamped {
                    self.rehash_in_background(&g);
                }
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
            Err(reason) => {
                let mut st = self.status.lock().expect("status lock");
                let again = st.last_refused.as_ref().is_some_and(|(rid, _, _)| *rid == id);
                st.refused_attempts = if again { st.refused_attempts.saturating_add(1) } else { 1 };
                let wait = RETRY_FIRST.saturating_mul(1u32 << (st.refused_attempts - 1).min(16)).min(RETRY_MAX);
                st.retry_at = Some(Instant::now() + wait);
                tracing::error!(generation = %id, %reason, attempt = st.refused_attempts, retry_in_s = wait.as_secs(), "refused generation");
                st.refusals += 1;
                st.last_refused = Some((id, reason, catalog::now_utc()));
                false
            }
        }
    }

    /// Hashes every file of `g`, served on the strength of its stamp, on a low-priority
    /// thread. A mismatch withdraws it (requests get 503 until a good generation is named),
    /// records a refusal and removes its stamp, so it is never opened on the stamp again.
    fn rehash_in_background(self: &Arc<Self>, g: &Arc<Generation>) {
        let (slot, dir, manifest) = (self.clone(), g.dir.clone(), g.manifest.clone());
        self.status.lock().expect("status lock").rehash =
            Some(Rehash { generation: manifest.id.clone(), state: RehashState::Hashing, seconds: None });
        let spawned = std::thread::Builder::new().name("generation-rehash".into()).spawn(move || {
            lower_this_threads_priority();
            let started = Instant::now();
            let result = index::verified_stamp::verify_files(&dir, &manifest);
            let state = if result.is_ok() { RehashState::Verified } else { RehashState::Failed };
            {
                let mut st = slot.status.lock().expect("status lock");
                // A later swap may have started its own re-hash: only this one's entry is updated.
                if st.rehash.as_ref().is_some_and(|r| r.generation == manifest.id) {
                    st.rehash = Some(Rehash {
                        generation: manifest.id.clone(),
                        state,
                        seconds: Some(started.elapsed().as_secs_f64()),
                    });
                }
            }
            let Err(e) = result else {
                tracing::info!(generation = %manifest.id, "background verification: every file matches its manifest");
                return;
            };
            slot.withdraw(&manifest.id, e.to_string());
        });
        if let Err(e) = spawned {
            tracing::error!(error = %e, "cannot start the background verification thread");
        }
    }

    /// Stops serving generation `id` (if it is still the one served) because its bytes do not
    /// match its manifest: a refusal like any other, retried with backoff and on SIGHUP, and
    /// opened again only after a full verification (its stamp is removed).
    fn withdraw(&self, id: &str, reason: String) {
        index::verified_stamp::remove_stamp(&self.data_dir, id);
        tracing::error!(generation = %id, %reason, "served generation failed its background verification; withdrawn");
        if self.current.load().as_ref().is_some_and(|g| g.id == id) {
            self.current.store(None);
        }
        let mut st = self.status.lock().expect("status lock");
        st.refusals += 1;
        st.refused_attempts = 1;
        st.retry_at = Some(Instant::now() + RETRY_FIRST);
        st.last_refused = Some((id.to_string(), reason, catalog::now_utc()));
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
            "last_refused": st.last_refused.map(|(id, reason, at)| json!({"id": id, "reason": reason, "at": at,
                "attempts": st.refused_attempts,
                "retry_in_seconds": st.retry_at.map(|t| t.saturating_duration_since(Instant::now()).as_secs())})),
            "current": match st.current_problem {
                None => json!({"status": "ok"}),
                Some((problem, detail, at)) => json!({"status": "refused", "problem": problem, "detail": detail, "at": at}),
            },
            "held_generations": self.held_ids(),
            "background_verification": st.rehash.map(|r| json!({"generation": r.generation, "state": r.state,
                "seconds": r.seconds})),
        })
    }
}

/// Polls `CURRENT` every `interval` and on SIGHUP; swaps off the request path.
/// Runs [`Slot::check_current`] on a thread of its own at a lower CPU priority: verifying a new
/// generation hashes every file (seconds of CPU on a full corpus), and on a small machine that
/// must not take the cores from the requests being answered meanwhile.
async fn check_in_background(slot: Arc<Slot>, force: bool) -> bool {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let spawned = std::thread::Builder::new().name("generation-check".into()).spawn(move || {
        lower_this_threads_priority();
        let _ = tx.send(slot.check_current(force));
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
            let mut force = false;
            #[cfg(unix)]
            {
                match hup.as_mut() {
                    Some(h) => {
                        tokio::select! {
                            _ = tick.tick() => {}
                            _ = h.recv() => {
                                tracing::info!("SIGHUP: checking CURRENT (a refused generation is retried)");
                                force = true;
                            }
                        }
                    }
                    None => {
                        tick.tick().await;
                    }
                }
            }
            #[cfg(not(unix))]
            tick.tick().await;
            let swapped = check_in_background(slot.clone(), force).await;
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
