//! What one fire does: a new session for the agent, a `woke` mindlog entry
//! with the prompt's prose, one turn driven by an [`Agent`] (by default the
//! [`ScriptAgent`], which runs the prompt's `bash` blocks), a `did` entry
//! with what came out, and the session completed (snapshot).

use crate::mindlog::Kind;
use crate::runtime::Runtime;
use crate::sandbox::RunRequest;
use crate::session::Session;

use super::file::ScheduleFile;

/// What a fire produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FireReport {
    /// The session's id.
    pub session_id: String,
    /// 0 when the turn succeeded, else the first failing status.
    pub status: i32,
    /// What the turn printed on stdout.
    pub stdout: String,
    /// What the turn printed on stderr.
    pub stderr: String,
}

/// Why a fire could not run at all (as opposed to a failing script).
#[derive(Debug, thiserror::Error)]
pub enum FireError {
    /// The session could not be opened, started or completed.
    #[error("{0}")]
    Session(String),
    /// The agent failed.
    #[error("agent: {0}")]
    Agent(String),
}

/// Drives one turn of a woken agent: receives the prompt and the session
/// (whose sandbox is its tool). Library users plug in e.g. an LLM loop.
#[async_trait::async_trait]
pub trait Agent: Send + Sync {
    /// Handles the prompt; returns what the turn produced.
    async fn wake(
        &self,
        schedule: &ScheduleFile,
        session: &mut Session,
    ) -> Result<FireReport, FireError>;
}

/// The built-in driver: runs the prompt's fenced `bash`/`sh` blocks in order,
/// stopping at the first that fails.
#[derive(Clone, Copy, Debug, Default)]
pub struct ScriptAgent;

#[async_trait::async_trait]
impl Agent for ScriptAgent {
    async fn wake(
        &self,
        schedule: &ScheduleFile,
        session: &mut Session,
    ) -> Result<FireReport, FireError> {
        if schedule.scripts.is_empty() {
            return Err(FireError::Agent(format!(
                "{}: no ```bash block to run (and no custom agent)",
                schedule.path.display()
            )));
        }
        let mut report = FireReport::default();
        for script in &schedule.scripts {
            let mut request = RunRequest::new(script.clone());
            request.timeout = schedule.timeout;
            let result = session
                .run(request)
                .await
                .map_err(|e| FireError::Session(e.to_string()))?;
            report.stdout.push_str(&result.stdout_text());
            report.stderr.push_str(&result.stderr_text());
            if result.exit_code != 0 {
                report.status = result.exit_code;
                break;
            }
        }
        Ok(report)
    }
}

/// Fires `schedule` once on `runtime` with `agent`.
pub async fn fire(
    runtime: &Runtime,
    schedule: &ScheduleFile,
    agent: &dyn Agent,
) -> Result<FireReport, FireError> {
    let session_err = |e: &dyn std::fmt::Display| FireError::Session(e.to_string());
    let mut session = runtime
        .session(&schedule.agent)
        .map_err(|e| session_err(&e))?;
    session.start().await.map_err(|e| session_err(&e))?;
    let id = session.id().to_string();
    let mindlog = runtime
        .mindlog(&schedule.agent)
        .map_err(|e| session_err(&e))?;
    let woke = if schedule.prose.is_empty() {
        format!("schedule {}", schedule.name)
    } else {
        schedule.prose.clone()
    };
    if let Err(e) = mindlog.append(Kind::Woke, &woke, Some(&id)) {
        tracing::warn!("[schedule] {} mindlog append failed: {e}", schedule.name);
    }
    let outcome = agent.wake(schedule, &mut session).await;
    match outcome {
        Ok(mut report) => {
            let did = format!("{}{}", report.stdout, report.stderr);
            if let Err(e) = mindlog.append(Kind::Did, &did, Some(&id)) {
                tracing::warn!("[schedule] {} mindlog append failed: {e}", schedule.name);
            }
            session.complete().await.map_err(|e| session_err(&e))?;
            report.session_id = id;
            Ok(report)
        }
        Err(e) => {
            let _ = session.fail(e.to_string()).await;
            Err(e)
        }
    }
}
