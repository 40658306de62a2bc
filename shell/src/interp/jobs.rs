//! Background jobs (`cmd &`) and the table `wait`, `kill` and `$!` read.
//!
//! A job runs in a subshell on its own thread, concurrently with the shell
//! that started it, under a control block of its own (see
//! [`RunControl::for_job`]) so `kill` can stop it alone. Nothing outlives
//! its shell: dropping the last handle on a table joins the jobs still
//! running, as a pipe read to its end waits for every writer (`x=$(sleep 1
//! & echo hi)` takes a second in bash too). A deterministic run records a
//! job as finished where it starts instead, so its output never interleaves.

use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::control::RunControl;

/// The pseudo pid of the first job; later ones step by 7, like pids do on a
/// quiet machine.
const FIRST_PID: u32 = 10_000;

/// SIGINT and SIGQUIT: a shell without job control starts its
/// asynchronous commands with these ignored, so `kill -INT` leaves a job
/// running.
const IGNORED_BY_JOBS: [i32; 2] = [2, 3];

/// One shell's background jobs, in the order they started.
#[derive(Default)]
pub struct JobTable {
    jobs: Mutex<Vec<Job>>,
    started: Mutex<u32>,
    /// The table of the shell this subshell was copied from: `jobs` and
    /// `kill` in a subshell see its jobs (`kill $(jobs -p)`), `wait` does
    /// not (they are not its children). Weak, so a job's own subshell does
    /// not keep the table that joins it alive.
    parent: Weak<JobTable>,
}

struct Job {
    pid: u32,
    /// The command as `jobs` shows it.
    command: String,
    control: Option<Arc<RunControl>>,
    state: State,
    /// `disown`ed: gone from `jobs` and job specs, still joined at the end.
    disowned: bool,
}

/// One line of `jobs`: a job still running.
pub struct JobEntry {
    /// The job's number (`%N`).
    pub number: usize,
    /// Its pseudo pid.
    pub pid: u32,
    /// The command that started it.
    pub command: String,
}

enum State {
    Running(JoinHandle<i32>),
    /// Being joined by `wait` (the handle is out of the table meanwhile).
    Joining,
    Done(i32),
}

impl JobTable {
    /// The empty table of a subshell of the shell that owns `parent`.
    pub fn child_of(parent: &Arc<JobTable>) -> JobTable {
        JobTable {
            jobs: Mutex::default(),
            started: Mutex::default(),
            parent: Arc::downgrade(parent),
        }
    }

    /// The table `jobs` and job specs read: this one, or while it is
    /// empty, the parent shell's.
    fn visible(self: &Arc<Self>) -> Arc<JobTable> {
        if self.lock().iter().all(|j| j.disowned)
            && let Some(parent) = self.parent.upgrade()
        {
            return parent.visible();
        }
        self.clone()
    }

    /// Starts `body` on a thread as a job under `control`; returns its pid,
    /// or the error when the host cannot start a thread.
    pub fn start<F>(
        &self,
        command: String,
        control: Arc<RunControl>,
        stack: usize,
        body: F,
    ) -> std::io::Result<u32>
    where
        F: FnOnce() -> i32 + Send + 'static,
    {
        let handle = std::thread::Builder::new()
            .stack_size(stack)
            .spawn(crate::alloc::inheriting(body))?;
        let pid = self.next_pid();
        self.lock().push(Job {
            pid,
            command,
            control: Some(control),
            state: State::Running(handle),
            disowned: false,
        });
        Ok(pid)
    }

    /// Records a job that already finished with `status`; returns its pid.
    pub fn record(&self, command: String, status: i32) -> u32 {
        let pid = self.next_pid();
        self.lock().push(Job {
            pid,
            command,
            control: None,
            state: State::Done(status),
            disowned: false,
        });
        pid
    }

    /// The pids of the jobs job specs (`%1`, `%%`) count, oldest first.
    pub fn pids(self: &Arc<Self>) -> Vec<u32> {
        self.visible()
            .lock()
            .iter()
            .filter(|j| !j.disowned)
            .map(|j| j.pid)
            .collect()
    }

    /// The jobs still running, for `jobs`. A job that ended is not listed:
    /// a shell without job control reaps it silently.
    pub fn running(self: &Arc<Self>) -> Vec<JobEntry> {
        self.visible()
            .lock()
            .iter()
            .filter(|j| !j.disowned)
            .enumerate()
            .filter(|(_, j)| matches!(&j.state, State::Running(h) if !h.is_finished()))
            .map(|(i, j)| JobEntry {
                number: i + 1,
                pid: j.pid,
                command: j.command.clone(),
            })
            .collect()
    }

    /// `disown`: job `pid` leaves `jobs` and job specs (it still ends with
    /// the run).
    pub fn disown(&self, pid: u32) {
        if let Some(job) = self.lock().iter_mut().find(|j| j.pid == pid) {
            job.disowned = true;
        }
    }

    /// Waits for job `pid` to end; its exit status, or `None` when no such
    /// job is in the table.
    pub fn wait(&self, pid: u32) -> Option<i32> {
        let handle = {
            let mut jobs = self.lock();
            let job = jobs.iter_mut().find(|j| j.pid == pid)?;
            match std::mem::replace(&mut job.state, State::Joining) {
                State::Running(h) => h,
                other => {
                    job.state = other;
                    return match job.state {
                        State::Done(s) => Some(s),
                        _ => None,
                    };
                }
            }
        };
        let status = handle.join().unwrap_or(1);
        if let Some(job) = self.lock().iter_mut().find(|j| j.pid == pid) {
            job.state = State::Done(status);
        }
        Some(status)
    }

    /// Waits for every running job.
    pub fn wait_all(&self) {
        let own: Vec<u32> = self.lock().iter().map(|j| j.pid).collect();
        for pid in own {
            self.wait(pid);
        }
    }

    /// `wait -n`: waits for the next running job to end and returns its pid
    /// and status; `None` when none is running. `check` is polled between
    /// looks so a limit or `kill` of the waiting shell still ends the wait.
    pub fn wait_next(&self, check: impl Fn() -> bool) -> Option<(u32, i32)> {
        loop {
            let (finished, running) = {
                let jobs = self.lock();
                let finished = jobs.iter().find_map(|j| match &j.state {
                    State::Running(h) if h.is_finished() => Some(j.pid),
                    _ => None,
                });
                let running = jobs.iter().any(|j| matches!(j.state, State::Running(_)));
                (finished, running)
            };
            if let Some(pid) = finished {
                return self.wait(pid).map(|s| (pid, s));
            }
            if !running || !check() {
                return None;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Sends `signal` to job `pid`. `Some(true)` when it was running (0
    /// only asks whether it is; SIGINT and SIGQUIT are ignored, as by bash's
    /// jobs), `Some(false)` when it already ended, `None`
    /// when no such job is in the table. A job recorded as finished where it
    /// started (deterministic runs) takes the signal as its status, as if it
    /// had still been running.
    pub fn kill(&self, pid: u32, signal: i32) -> Option<bool> {
        let mut jobs = self.lock();
        let Some(job) = jobs.iter_mut().find(|j| j.pid == pid) else {
            drop(jobs);
            return self.parent.upgrade()?.kill(pid, signal);
        };
        match (&job.state, &job.control) {
            (State::Running(h), Some(control)) if !h.is_finished() => {
                if signal != 0 && !IGNORED_BY_JOBS.contains(&signal) {
                    control.kill(signal);
                }
                Some(true)
            }
            (State::Done(_), None) => {
                if signal != 0 && !IGNORED_BY_JOBS.contains(&signal) {
                    job.state = State::Done(128 + signal);
                }
                Some(true)
            }
            _ => Some(false),
        }
    }

    /// Forgets job `pid` (`wait %1` takes a job out of the table).
    pub fn remove(&self, pid: u32) {
        self.wait(pid);
        self.lock().retain(|j| j.pid != pid);
    }

    fn next_pid(&self) -> u32 {
        let mut n = self.started.lock().unwrap_or_else(PoisonError::into_inner);
        *n += 1;
        FIRST_PID + (*n - 1) * 7
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Job>> {
        self.jobs.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for JobTable {
    fn drop(&mut self) {
        self.wait_all();
    }
}
