//! The warm pool of the docker backend: containers created, started and
//! primed ahead of the sessions, so that a session's first command does not
//! wait for a container's create and start (about 0.3 s on a small machine).
//!
//! Each pooled container is made exactly as [`super::container::start`]
//! makes a session's (the same hardening, limits, environment and storage
//! limit), then its process baseline (what the sweep keeps) is noted, as the
//! first run would note it. A session takes one container, uses it once and
//! removes it at its end like any other; a background task makes a new one
//! for each taken. [`Pool::close`] stops the refills and removes every
//! container still waiting.
//!
//! What differs from a fresh container, and why it cannot be helped: docker
//! cannot change a container's labels after it is created, so a pooled
//! container keeps `sandkeep.session=pool-...` and an empty `sandkeep.agent`
//! and carries `sandkeep.pool`; its name is changed to the session's when it
//! is taken, and the session's event log records the container id. A spec
//! with an environment of its own gets a fresh container (the environment is
//! fixed at create too), as does any session while the pool is empty.
//!
//! ```no_run
//! # async fn demo() -> Result<(), sandkeep::SandboxError> {
//! use sandkeep::{DockerBackend, DockerConfig, PoolConfig};
//!
//! let config = DockerConfig {
//!     pool: PoolConfig { size: 4, ..PoolConfig::default() },
//!     ..DockerConfig::from_env()
//! };
//! let backend = DockerBackend::connect(config).await?; // starts filling
//! // ... sessions on `backend` take warm containers ...
//! # use sandkeep::Backend;
//! backend.close().await; // removes the containers still waiting
//! # Ok(()) }
//! ```

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bollard::query_parameters::ListContainersOptions;
use tokio::task::{JoinHandle, JoinSet};

use super::Core;
use super::container::{self, DockerSandbox};
use super::reaper::short;
use crate::sandbox::{Sandbox, SandboxError, SandboxSpec};

/// Label on every pooled container, with the id of the pool that made it.
pub const LABEL_POOL: &str = "sandkeep.pool";

/// How often the waiting containers are checked to still be running.
const CHECK_EVERY: Duration = Duration::from_secs(30);

/// The longest pause between two failed attempts to make a container.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// How long [`Pool::close`] waits for creations in flight.
const CLOSE_WAIT: Duration = Duration::from_secs(60);

/// How big the pool is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolConfig {
    /// Containers kept ready (0, the default: no pool).
    pub size: usize,
    /// Containers made at the same time while refilling (default 2: each
    /// creation takes a core for a moment, and runs share those cores).
    pub parallel: usize,
}

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig {
            size: 0,
            parallel: 2,
        }
    }
}

/// What the pool did so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Containers ready now.
    pub ready: usize,
    /// Sandboxes served from the pool.
    pub hits: u64,
    /// Sandboxes created fresh (the pool was empty, or the spec had an
    /// environment of its own).
    pub misses: u64,
    /// Containers the pool made.
    pub created: u64,
    /// Attempts to make one that failed.
    pub failed: u64,
    /// Waiting containers found gone (removed from outside, or dead).
    pub lost: u64,
}

struct Shared {
    core: Arc<Core>,
    config: PoolConfig,
    /// This pool's id (the value of [`LABEL_POOL`]).
    id: String,
    ready: Mutex<VecDeque<DockerSandbox>>,
    wake: tokio::sync::Notify,
    closed: AtomicBool,
    hits: AtomicU64,
    misses: AtomicU64,
    created: AtomicU64,
    failed: AtomicU64,
    lost: AtomicU64,
}

impl Shared {
    fn ready(&self) -> std::sync::MutexGuard<'_, VecDeque<DockerSandbox>> {
        self.ready.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A pool of warm containers and the task that keeps it full.
pub struct Pool {
    shared: Arc<Shared>,
    filler: Mutex<Option<JoinHandle<()>>>,
}

impl Pool {
    /// Starts filling a pool of `config.size` containers (on the current
    /// tokio runtime).
    pub(crate) fn start(core: Arc<Core>, config: PoolConfig) -> Pool {
        let config = PoolConfig {
            parallel: config.parallel.clamp(1, config.size.max(1)),
            ..config
        };
        let shared = Arc::new(Shared {
            core,
            config,
            id: format!("{:012x}", rand::random::<u64>() & 0xffff_ffff_ffff),
            ready: Mutex::new(VecDeque::new()),
            wake: tokio::sync::Notify::new(),
            closed: AtomicBool::new(false),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            created: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            lost: AtomicU64::new(0),
        });
        tracing::info!(pool = %shared.id, size = shared.config.size, "docker pool: filling");
        let filler = tokio::spawn(fill(shared.clone()));
        Pool {
            shared,
            filler: Mutex::new(Some(filler)),
        }
    }

    /// A warm container for `spec`, or `None` when there is none (the caller
    /// creates one). The container is renamed after the session in the
    /// background, and a replacement is started.
    pub(crate) fn take(&self, spec: &SandboxSpec) -> Option<DockerSandbox> {
        let shared = &self.shared;
        if !spec.env.is_empty() || shared.closed.load(Ordering::SeqCst) {
            shared.misses.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        let taken = shared.ready().pop_front();
        shared.wake.notify_one();
        match taken {
            Some(sandbox) => {
                shared.hits.fetch_add(1, Ordering::Relaxed);
                tracing::debug!(container = %short(sandbox.id()), session = %spec.session_id,
                    "docker pool: warm container taken");
                tokio::spawn(sandbox.rename_for(&spec.session_id));
                Some(sandbox)
            }
            None => {
                shared.misses.fetch_add(1, Ordering::Relaxed);
                tracing::debug!(session = %spec.session_id, "docker pool: empty, creating fresh");
                None
            }
        }
    }

    /// The counters.
    pub(crate) fn stats(&self) -> PoolStats {
        let s = &self.shared;
        PoolStats {
            ready: s.ready().len(),
            hits: s.hits.load(Ordering::Relaxed),
            misses: s.misses.load(Ordering::Relaxed),
            created: s.created.load(Ordering::Relaxed),
            failed: s.failed.load(Ordering::Relaxed),
            lost: s.lost.load(Ordering::Relaxed),
        }
    }

    /// Stops refilling, waits for the creations in flight (removing what
    /// they made) and removes every waiting container. Later [`Pool::take`]s
    /// find nothing. Calling it again does nothing.
    pub(crate) async fn close(&self) {
        self.shared.closed.store(true, Ordering::SeqCst);
        self.shared.wake.notify_one();
        let filler = self.filler.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(filler) = filler
            && tokio::time::timeout(CLOSE_WAIT, filler).await.is_err()
        {
            tracing::warn!("docker pool: creations still in flight after {CLOSE_WAIT:?}");
        }
        let waiting: Vec<DockerSandbox> = self.shared.ready().drain(..).collect();
        let n = waiting.len();
        let removals = waiting.into_iter().map(|sandbox| async move {
            if let Err(e) = sandbox.stop().await {
                tracing::warn!(container = %short(sandbox.id()), "docker pool: removal failed: {e}");
            }
        });
        futures_util::future::join_all(removals).await;
        if n > 0 {
            tracing::info!("docker pool: removed {n} waiting container(s)");
        }
    }
}

impl Drop for Pool {
    /// Without [`Pool::close`], the filler stops at its next wake-up and the
    /// waiting containers are removed by their own drop guards.
    fn drop(&mut self) {
        self.shared.closed.store(true, Ordering::SeqCst);
        self.shared.wake.notify_one();
    }
}

/// Makes one warm container: created and started as a session's would be,
/// its process baseline noted.
async fn make(shared: Arc<Shared>) -> Result<DockerSandbox, SandboxError> {
    let core = &shared.core;
    core.ensure_image().await?;
    let spec = SandboxSpec {
        session_id: format!("pool-{}-{:08x}", shared.id, rand::random::<u32>()),
        agent: String::new(),
        env: Vec::new(),
    };
    let labels = [(LABEL_POOL.to_string(), shared.id.clone())];
    let sandbox =
        container::start_labelled(&core.docker, &core.config, &spec, &core.owner, &labels).await?;
    sandbox.baseline().await;
    Ok(sandbox)
}

/// Keeps `size` containers ready (counting those being made), at most
/// `parallel` made at once, backing off after failures; checks now and then
/// that the waiting ones still run. On close, waits for the creations in
/// flight and removes what they made.
async fn fill(shared: Arc<Shared>) {
    let mut making: JoinSet<Result<DockerSandbox, SandboxError>> = JoinSet::new();
    let mut failures: u32 = 0;
    let mut retry_at: Option<tokio::time::Instant> = None;
    let mut next_check = tokio::time::Instant::now() + CHECK_EVERY;
    while !shared.closed.load(Ordering::SeqCst) {
        let waiting_out = retry_at.is_some_and(|t| tokio::time::Instant::now() < t);
        if !waiting_out {
            retry_at = None;
            let have = shared.ready().len() + making.len();
            let room = shared.config.parallel.saturating_sub(making.len());
            for _ in 0..shared.config.size.saturating_sub(have).min(room) {
                making.spawn(make(shared.clone()));
            }
        }
        let retry = async {
            match retry_at {
                Some(t) => tokio::time::sleep_until(t).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            Some(done) = making.join_next(), if !making.is_empty() => match done {
                Ok(Ok(sandbox)) => {
                    failures = 0;
                    shared.created.fetch_add(1, Ordering::Relaxed);
                    tracing::debug!(container = %short(sandbox.id()), "docker pool: warm container ready");
                    if shared.closed.load(Ordering::SeqCst) {
                        let _ = sandbox.stop().await;
                    } else {
                        shared.ready().push_back(sandbox);
                    }
                }
                Ok(Err(e)) => {
                    failures = failures.saturating_add(1);
                    shared.failed.fetch_add(1, Ordering::Relaxed);
                    let pause = backoff(failures);
                    tracing::warn!("docker pool: cannot make a warm container (retrying in {pause:?}): {e}");
                    retry_at = Some(tokio::time::Instant::now() + pause);
                }
                Err(e) => tracing::error!("docker pool: a creation task failed: {e}"),
            },
            _ = shared.wake.notified() => {}
            _ = retry => {}
            _ = tokio::time::sleep_until(next_check) => {
                next_check = tokio::time::Instant::now() + CHECK_EVERY;
                drop_the_dead(&shared).await;
            }
        }
    }
    while let Some(done) = making.join_next().await {
        if let Ok(Ok(sandbox)) = done {
            let _ = sandbox.stop().await;
        }
    }
}

/// 0.5 s after the first failure, doubling up to [`MAX_BACKOFF`].
fn backoff(failures: u32) -> Duration {
    let ms = 500u64.saturating_mul(1u64 << failures.saturating_sub(1).min(10));
    Duration::from_millis(ms).min(MAX_BACKOFF)
}

/// Forgets (and removes) the waiting containers that are no longer running.
async fn drop_the_dead(shared: &Shared) {
    let filters = HashMap::from([
        (
            "label".to_string(),
            vec![format!("{LABEL_POOL}={}", shared.id)],
        ),
        ("status".to_string(), vec!["running".to_string()]),
    ]);
    let options = ListContainersOptions {
        all: true,
        filters: Some(filters),
        ..Default::default()
    };
    let running: HashSet<String> = match shared.core.docker.list_containers(Some(options)).await {
        Ok(list) => list.into_iter().filter_map(|c| c.id).collect(),
        Err(e) => {
            tracing::debug!("docker pool: check skipped: {e}");
            return;
        }
    };
    let dead: VecDeque<DockerSandbox> = {
        let mut ready = shared.ready();
        let (alive, dead) = ready.drain(..).partition(|s| running.contains(s.id()));
        *ready = alive;
        dead
    };
    for sandbox in dead {
        shared.lost.fetch_add(1, Ordering::Relaxed);
        tracing::warn!(container = %short(sandbox.id()), "docker pool: a waiting container stopped running; replaced");
        let _ = sandbox.stop().await;
        shared.wake.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        assert_eq!(backoff(1), Duration::from_millis(500));
        assert_eq!(backoff(2), Duration::from_secs(1));
        assert_eq!(backoff(4), Duration::from_secs(4));
        assert_eq!(backoff(7), MAX_BACKOFF);
        assert_eq!(backoff(u32::MAX), MAX_BACKOFF);
    }

    #[test]
    fn no_pool_by_default() {
        assert_eq!(PoolConfig::default().size, 0);
        assert_eq!(super::super::DockerConfig::default().pool.size, 0);
    }
}
