//! The server's table of sessions. A server session has a public id (random,
//! unguessable) and outlives the sandkeep [`Session`]s under it: when it is
//! parked (idle, or `POST .../park`) its workspace is kept, its sandbox
//! released, and the next call opens a new sandkeep session of the same agent
//! that restores the workspace, so the caller sees the same files.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::runtime::Runtime;
use crate::session::{Session, SessionError};

/// The live part of a server session, behind an async lock: one call at a
/// time touches the sandbox.
pub struct Live {
    /// The sandkeep session holding the sandbox; `None` while parked.
    pub session: Option<Session>,
    /// True when a turn is open (changes not yet kept).
    pub turn_open: bool,
    /// When the open turn began: the oldest change a checkpoint would keep.
    pub turn_opened: Option<Instant>,
    /// The shell state of the parked session, for the resume.
    pub shell: Option<crate::sandbox::ShellSnapshot>,
}

impl Live {
    /// The running session, resuming (restoring the workspace into a new
    /// sandbox) when parked.
    pub async fn resume(
        &mut self,
        runtime: &Runtime,
        agent: &str,
    ) -> Result<&mut Session, SessionError> {
        if self.session.is_none() {
            let mut session = runtime.session(agent).map_err(|e| SessionError::Hook {
                hook: "server".into(),
                error: e.to_string(),
            })?;
            if let Some(shell) = self.shell.take() {
                session.restore_shell_state(shell).await?;
            }
            session.start().await?;
            self.session = Some(session);
            self.turn_open = false;
        }
        Ok(self.session.as_mut().expect("set above"))
    }

    /// Opens a turn unless one is open, so writes are kept at the next park.
    pub async fn open_turn(
        &mut self,
        runtime: &Runtime,
        agent: &str,
    ) -> Result<&mut Session, SessionError> {
        let open = self.turn_open && self.session.is_some();
        let session = self.resume(runtime, agent).await?;
        if !open {
            session.begin_turn().await?;
        }
        self.mark_turn_open();
        Ok(self.session.as_mut().expect("resumed above"))
    }

    /// Notes that the session ran something since its workspace was last
    /// kept.
    pub fn mark_turn_open(&mut self) {
        self.turn_open = true;
        self.turn_opened.get_or_insert_with(Instant::now);
    }

    /// True when the workspace may hold changes older than `age` that are not
    /// kept yet.
    pub fn unkept_for(&self, age: Duration) -> bool {
        self.session.is_some()
            && self.turn_open
            && self.turn_opened.is_some_and(|t| t.elapsed() >= age)
    }

    /// Keeps the workspace as a generation and leaves the sandbox running, so
    /// a worker that dies later loses at most what changed since. Nothing to
    /// do when parked or when nothing ran since the last keep.
    pub async fn checkpoint(&mut self) -> Result<(), SessionError> {
        let Some(session) = self.session.as_mut() else {
            return Ok(());
        };
        if !self.turn_open {
            return Ok(());
        }
        session.park().await?;
        self.turn_open = false;
        self.turn_opened = None;
        Ok(())
    }

    /// Keeps the workspace and releases the sandbox (the session stays
    /// resumable). Nothing to do when already parked. When the workspace
    /// cannot be kept, the sandbox stays (nothing is lost) and the error is
    /// returned.
    pub async fn park(&mut self) -> Result<(), SessionError> {
        let Some(session) = self.session.as_mut() else {
            return Ok(());
        };
        session.park().await?;
        self.turn_open = false;
        self.turn_opened = None;
        if let Some(session) = self.session.take() {
            self.shell = session.complete_keeping_shell().await?;
        }
        Ok(())
    }
}

/// One server session.
pub struct Slot {
    /// The public id.
    pub id: String,
    /// The agent it belongs to.
    pub agent: String,
    /// Index of the token that created it (for per-token limits).
    pub token: usize,
    /// When it was created.
    pub created: Instant,
    last_used: Mutex<Instant>,
    /// The sandbox side.
    pub live: tokio::sync::Mutex<Live>,
    /// Set when this is an MCP session (`/mcp/{agent}`), whose sandbox is
    /// the MCP server's rather than `live`'s.
    pub mcp: Option<Arc<super::mcp_http::McpLink>>,
    /// Runs by `Idempotency-Key`.
    pub(crate) runs: Mutex<RunMemo>,
}

impl Slot {
    /// Marks the session used now (resets its idle clock).
    pub fn touch(&self) {
        *self.last_used.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
    }

    /// How long since the last call.
    pub fn idle_for(&self) -> Duration {
        self.last_used
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .elapsed()
    }
}

/// What a run ended with, as the server answers it: the result, or the
/// error's status and message.
pub(crate) type RunOutcome = Result<crate::sandbox::RunResult, (axum::http::StatusCode, String)>;

/// The outcome of a run, `None` while it runs.
pub(crate) type OutcomeWatch = tokio::sync::watch::Receiver<Option<Arc<RunOutcome>>>;

/// A run remembered under its `Idempotency-Key`.
#[derive(Clone)]
pub(crate) struct Remembered {
    /// The request's body: a key reused for another request is refused.
    pub(crate) body: Vec<u8>,
    /// Its outcome, once it ended.
    pub(crate) outcome: OutcomeWatch,
}

/// What [`RunMemo::claim`] found.
pub(crate) enum Claim {
    /// A run under that key is running or ran: wait for its outcome.
    Known(Remembered),
    /// The first run under that key: send its outcome here.
    New(tokio::sync::watch::Sender<Option<Arc<RunOutcome>>>),
}

/// The runs of one session by `Idempotency-Key`, kept for the session's
/// life, the [`RunMemo::KEPT`] latest at most.
#[derive(Default)]
pub(crate) struct RunMemo {
    by_key: HashMap<String, Remembered>,
    order: std::collections::VecDeque<String>,
}

impl RunMemo {
    /// Keys remembered per session at most.
    pub(crate) const KEPT: usize = 256;

    /// The run remembered under `key`, or a place for a new one (forgetting
    /// the oldest ended run when full).
    pub(crate) fn claim(&mut self, key: &str, body: &[u8]) -> Claim {
        if let Some(known) = self.by_key.get(key) {
            return Claim::Known(known.clone());
        }
        if self.order.len() >= Self::KEPT {
            let ended = self
                .order
                .iter()
                .position(|k| self.by_key[k].outcome.borrow().is_some())
                .unwrap_or(0);
            if let Some(old) = self.order.remove(ended) {
                self.by_key.remove(&old);
            }
        }
        let (tx, rx) = tokio::sync::watch::channel(None);
        self.by_key.insert(
            key.to_string(),
            Remembered {
                body: body.to_vec(),
                outcome: rx,
            },
        );
        self.order.push_back(key.to_string());
        Claim::New(tx)
    }
}

/// Why a session could not be opened.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Too many sessions on this server.
    Total(usize),
    /// Too many sessions for this token.
    PerToken(usize),
}

/// Every open session of this server.
#[derive(Default)]
pub struct Table {
    slots: Mutex<HashMap<String, Arc<Slot>>>,
}

impl Table {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Slot>>> {
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Registers a new session within the limits.
    pub fn open(
        &self,
        agent: &str,
        token: usize,
        max_total: usize,
        max_per_token: usize,
    ) -> Result<Arc<Slot>, Refusal> {
        self.open_with(agent, token, max_total, max_per_token, None)
    }

    /// Registers a new session within the limits, an MCP one when `mcp` is
    /// set.
    pub(crate) fn open_with(
        &self,
        agent: &str,
        token: usize,
        max_total: usize,
        max_per_token: usize,
        mcp: Option<Arc<super::mcp_http::McpLink>>,
    ) -> Result<Arc<Slot>, Refusal> {
        self.insert(
            new_public_id(agent),
            agent,
            token,
            max_total,
            max_per_token,
            mcp,
            None,
        )
    }

    /// Registers a parked session taken over from its record (its id and
    /// shell state), within the limits.
    pub fn adopt(
        &self,
        id: &str,
        agent: &str,
        token: usize,
        max_total: usize,
        max_per_token: usize,
        shell: Option<crate::sandbox::ShellSnapshot>,
    ) -> Result<Arc<Slot>, Refusal> {
        if let Some(slot) = self.get(id) {
            return Ok(slot);
        }
        self.insert(
            id.to_string(),
            agent,
            token,
            max_total,
            max_per_token,
            None,
            shell,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn insert(
        &self,
        id: String,
        agent: &str,
        token: usize,
        max_total: usize,
        max_per_token: usize,
        mcp: Option<Arc<super::mcp_http::McpLink>>,
        shell: Option<crate::sandbox::ShellSnapshot>,
    ) -> Result<Arc<Slot>, Refusal> {
        let mut slots = self.lock();
        if slots.len() >= max_total {
            return Err(Refusal::Total(max_total));
        }
        if slots.values().filter(|s| s.token == token).count() >= max_per_token {
            return Err(Refusal::PerToken(max_per_token));
        }
        let slot = Arc::new(Slot {
            id,
            agent: agent.to_string(),
            token,
            created: Instant::now(),
            last_used: Mutex::new(Instant::now()),
            live: tokio::sync::Mutex::new(Live {
                session: None,
                turn_open: false,
                turn_opened: None,
                shell,
            }),
            mcp,
            runs: Mutex::default(),
        });
        slots.insert(slot.id.clone(), slot.clone());
        Ok(slot)
    }

    /// A session by id.
    pub fn get(&self, id: &str) -> Option<Arc<Slot>> {
        self.lock().get(id).cloned()
    }

    /// Forgets a session.
    pub fn remove(&self, id: &str) -> Option<Arc<Slot>> {
        self.lock().remove(id)
    }

    /// Every session.
    pub fn all(&self) -> Vec<Arc<Slot>> {
        self.lock().values().cloned().collect()
    }

    /// How many sessions are open.
    pub fn len(&self) -> usize {
        self.lock().len()
    }
}

/// 128 random bits as hex, prefixed `s-` and followed by the agent's name:
/// not guessable, says nothing of the order of creation, and tells a worker
/// that does not hold the session in which agent's store its record is.
fn new_public_id(agent: &str) -> String {
    format!("s-{:032x}-{agent}", rand::random::<u128>())
}
