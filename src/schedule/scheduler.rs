//! The scheduler: every schedule's cron expressions become jobs of a
//! tokio-cron-scheduler `JobScheduler`; a fire runs on its own task so a long
//! session never delays other schedules. Overlap (`skip`/`queue`) is decided
//! per schedule, and shutdown stops firing, then waits (bounded) for running
//! sessions to finish their snapshot.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;
use tokio_cron_scheduler::{Job, JobScheduler};

use super::file::{Overlap, ScheduleFile};
use super::fire::{Agent, FireError, FireReport, ScriptAgent, fire};
use crate::runtime::Runtime;

/// Called after each fire with its outcome.
pub type ReportFn = dyn Fn(&ScheduleFile, Result<&FireReport, &FireError>) + Send + Sync;

/// Fires schedules on their runtimes with an agent.
#[derive(Clone)]
pub struct Scheduler {
    default_runtime: Runtime,
    runtimes: HashMap<String, Runtime>,
    agent: Arc<dyn Agent>,
    on_report: Arc<ReportFn>,
    drain_timeout: Duration,
}

/// Per-schedule state shared by its jobs.
#[derive(Default)]
struct Slot {
    running: AtomicBool,
    queued: AtomicUsize,
    /// The second of the last fire: a time matched by both halves of a
    /// split (day-of-month / day-of-week) expression fires once.
    last_second: Mutex<Option<i64>>,
}

/// Counts fires in flight so shutdown can wait for them.
#[derive(Default)]
struct InFlight {
    count: AtomicUsize,
    idle: Notify,
    stopping: AtomicBool,
}

impl Scheduler {
    /// A scheduler whose schedules run on `runtime` unless they name a backend
    /// registered with [`Scheduler::with_backend`].
    pub fn new(runtime: Runtime) -> Scheduler {
        Scheduler {
            default_runtime: runtime,
            runtimes: HashMap::new(),
            agent: Arc::new(ScriptAgent),
            on_report: Arc::new(|_, _| {}),
            drain_timeout: Duration::from_secs(60),
        }
    }

    /// The runtime for schedules whose frontmatter says `backend: NAME`.
    pub fn with_backend(mut self, name: impl Into<String>, runtime: Runtime) -> Scheduler {
        self.runtimes.insert(name.into(), runtime);
        self
    }

    /// Drives turns with `agent` instead of the built-in [`ScriptAgent`].
    pub fn with_agent(mut self, agent: Arc<dyn Agent>) -> Scheduler {
        self.agent = agent;
        self
    }

    /// Receives each fire's outcome (e.g. to print its output).
    pub fn on_report(
        mut self,
        f: impl Fn(&ScheduleFile, Result<&FireReport, &FireError>) + Send + Sync + 'static,
    ) -> Scheduler {
        self.on_report = Arc::new(f);
        self
    }

    /// How long shutdown waits for running sessions (default 60 s).
    pub fn drain_timeout(mut self, timeout: Duration) -> Scheduler {
        self.drain_timeout = timeout;
        self
    }

    fn runtime(&self, schedule: &ScheduleFile) -> &Runtime {
        // A schedule with its own network rules has a runtime of its own.
        if let Some(rt) = self.runtimes.get(&own_runtime_key(schedule)) {
            return rt;
        }
        schedule
            .backend
            .as_ref()
            .and_then(|b| self.runtimes.get(b))
            .unwrap_or(&self.default_runtime)
    }

    /// Fires one schedule now and reports it.
    pub async fn fire_now(&self, schedule: &ScheduleFile) -> Result<FireReport, FireError> {
        let result = fire(self.runtime(schedule), schedule, self.agent.as_ref()).await;
        (self.on_report)(schedule, result.as_ref());
        result
    }

    /// Runs every schedule until `shutdown` resolves, then stops firing and
    /// waits for running sessions (up to the drain timeout).
    pub async fn run(
        self,
        schedules: Vec<ScheduleFile>,
        shutdown: impl Future<Output = ()>,
    ) -> Result<(), tokio_cron_scheduler::JobSchedulerError> {
        let mut jobs = JobScheduler::new().await?;
        let inflight = Arc::new(InFlight::default());
        let now = chrono::Utc::now();
        for schedule in schedules {
            let next = schedule.cron.next_fires(now, 1);
            tracing::info!(
                "[schedule] {} (agent {}, cron {:?}) next fire {}",
                schedule.name,
                schedule.agent,
                schedule.cron.source,
                next.first()
                    .and_then(|t| crate::timestamp::rfc3339_secs(t.timestamp()))
                    .unwrap_or_else(|| "never".into())
            );
            let schedule = Arc::new(schedule);
            let slot = Arc::new(Slot::default());
            for part in schedule.cron.parts.clone() {
                let (me, schedule, slot, inflight) = (
                    self.clone(),
                    schedule.clone(),
                    slot.clone(),
                    inflight.clone(),
                );
                let job = Job::new_async(part.as_str(), move |_id, _lock| {
                    let (me, schedule, slot, inflight) =
                        (me.clone(), schedule.clone(), slot.clone(), inflight.clone());
                    Box::pin(async move { me.on_tick(schedule, slot, inflight) })
                })?;
                jobs.add(job).await?;
            }
        }
        jobs.start().await?;
        shutdown.await;
        inflight.stopping.store(true, Ordering::SeqCst);
        tracing::info!("[schedule] stopping: no new fires; waiting for running sessions");
        jobs.shutdown().await?;
        let drained = tokio::time::timeout(self.drain_timeout, async {
            while inflight.count.load(Ordering::SeqCst) > 0 {
                let notified = inflight.idle.notified();
                if inflight.count.load(Ordering::SeqCst) == 0 {
                    break;
                }
                notified.await;
            }
        })
        .await;
        if drained.is_err() {
            tracing::warn!(
                "[schedule] sessions still running after {:?}; exiting anyway",
                self.drain_timeout
            );
        }
        Ok(())
    }

    /// A cron tick: decide (overlap, dedupe) and spawn the fire.
    fn on_tick(&self, schedule: Arc<ScheduleFile>, slot: Arc<Slot>, inflight: Arc<InFlight>) {
        if inflight.stopping.load(Ordering::SeqCst) {
            return;
        }
        let second = crate::timestamp::unix_now();
        {
            let mut last = slot.last_second.lock().unwrap();
            if *last == Some(second) {
                return;
            }
            *last = Some(second);
        }
        if slot.running.swap(true, Ordering::SeqCst) {
            match schedule.overlap {
                Overlap::Skip => {
                    tracing::info!(
                        "[schedule] {} skipped: the previous session is still running",
                        schedule.name
                    )
                }
                Overlap::Queue => {
                    slot.queued.fetch_add(1, Ordering::SeqCst);
                    tracing::info!(
                        "[schedule] {} queued: the previous session is still running",
                        schedule.name
                    )
                }
            }
            return;
        }
        inflight.count.fetch_add(1, Ordering::SeqCst);
        let me = self.clone();
        tokio::spawn(async move {
            loop {
                let _ = me.fire_now(&schedule).await;
                let more = slot
                    .queued
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |q| q.checked_sub(1))
                    .is_ok();
                if !more || inflight.stopping.load(Ordering::SeqCst) {
                    break;
                }
            }
            slot.running.store(false, Ordering::SeqCst);
            if inflight.count.fetch_sub(1, Ordering::SeqCst) == 1 {
                inflight.idle.notify_waiters();
            }
        });
    }
}

/// The [`Scheduler::with_backend`] name under which a schedule's own runtime
/// (one with its `allow_net:` rules) is registered.
pub fn own_runtime_key(schedule: &ScheduleFile) -> String {
    format!("schedule:{}", schedule.name)
}
