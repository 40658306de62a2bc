//! Parked sessions' records in the agent's store, so any worker sharing the
//! store can resume a parked session: the shell state it had reached, the
//! generation its workspace was kept as, its agent and the token that
//! created it. A record is written at every park, read by a worker that
//! gets a call for a session it does not hold, removed when the session is
//! completed, and collected with the generations' retention.
//!
//! Variables whose names match the operator's `--no-persist-var` globs are
//! dropped from the shell state before it is written: they never reach the
//! store (the live session keeps them while it lives).

use serde::{Deserialize, Serialize};

use crate::runtime::Runtime;
use crate::sandbox::ShellSnapshot;
use crate::store::StoreError;

/// A parked session's record, as stored (`sessions/ID.json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParkedSession {
    /// The public session id.
    pub session: String,
    /// The agent it belongs to.
    pub agent: String,
    /// The index of the token that created it (only that token resumes it).
    pub token: usize,
    /// The head generation when it parked (its workspace, or a merge of it).
    pub base: Option<String>,
    /// When it parked, seconds since the Unix epoch.
    pub parked_at: u64,
    /// The shell state it had reached, secrets left out.
    pub shell: Option<ShellSnapshot>,
}

/// Which variables never reach the store (`--no-persist-var`), as globs
/// (`*`, `?`, `[...]`) over whole names.
#[derive(Clone, Debug, Default)]
pub struct NoPersist {
    patterns: Vec<String>,
    set: globset::GlobSet,
}

impl NoPersist {
    /// A filter of these globs; an invalid glob is an error naming it.
    pub fn new<S: AsRef<str>>(patterns: &[S]) -> Result<NoPersist, String> {
        let mut builder = globset::GlobSetBuilder::new();
        for p in patterns {
            let glob = globset::GlobBuilder::new(p.as_ref())
                .literal_separator(false)
                .build()
                .map_err(|e| format!("--no-persist-var {}: {e}", p.as_ref()))?;
            builder.add(glob);
        }
        Ok(NoPersist {
            patterns: patterns.iter().map(|p| p.as_ref().to_string()).collect(),
            set: builder
                .build()
                .map_err(|e| format!("--no-persist-var: {e}"))?,
        })
    }

    /// The globs, as given.
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// True when `name` must not be stored.
    pub fn matches(&self, name: &str) -> bool {
        !self.patterns.is_empty() && self.set.is_match(name)
    }

    /// `snapshot` without the variables to keep out of the store.
    pub fn filter(&self, mut snapshot: ShellSnapshot) -> ShellSnapshot {
        snapshot.variables.retain(|v| !self.matches(&v.name));
        snapshot
    }
}

/// The agent named in a public session id (`s-HEX-AGENT`), when it names
/// one.
pub fn agent_of(id: &str) -> Option<&str> {
    let rest = id.strip_prefix("s-")?;
    let (hex, agent) = rest.split_at_checked(32)?;
    let agent = agent.strip_prefix('-')?;
    (hex.bytes().all(|b| b.is_ascii_hexdigit()) && crate::runtime::validate_agent(agent).is_ok())
        .then_some(agent)
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Runs store work off the async threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(StoreError::io("session record", std::io::Error::other(e))))
}

/// Writes the record of a session that just parked.
pub async fn write(
    runtime: &Runtime,
    id: &str,
    agent: &str,
    token: usize,
    shell: Option<ShellSnapshot>,
    no_persist: &NoPersist,
) -> Result<(), StoreError> {
    let gens = runtime
        .generations(agent)
        .map_err(|e| StoreError::io("session record", std::io::Error::other(e)))?;
    let mut record = ParkedSession {
        session: id.to_string(),
        agent: agent.to_string(),
        token,
        base: None,
        parked_at: now_secs(),
        shell: shell.map(|s| no_persist.filter(s)),
    };
    let id = id.to_string();
    blocking(move || {
        let store = gens.store();
        record.base = store.head()?.map(|h| h.0);
        let bytes = serde_json::to_vec(&record).map_err(|e| StoreError::Damaged {
            what: format!("session {id}"),
            reason: e.to_string(),
        })?;
        store.write_session(&id, &bytes)
    })
    .await
}

/// The record of parked session `id` of `agent`, if the store has one.
pub async fn read(
    runtime: &Runtime,
    id: &str,
    agent: &str,
) -> Result<Option<ParkedSession>, StoreError> {
    let gens = runtime
        .generations(agent)
        .map_err(|e| StoreError::io("session record", std::io::Error::other(e)))?;
    let id = id.to_string();
    blocking(move || {
        let Some(bytes) = gens.store().read_session(&id)? else {
            return Ok(None);
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| StoreError::Damaged {
                what: format!("session {id}"),
                reason: e.to_string(),
            })
    })
    .await
}

/// Removes the record of session `id` (completed, or resumed elsewhere).
pub async fn remove(runtime: &Runtime, id: &str, agent: &str) -> Result<(), StoreError> {
    let gens = runtime
        .generations(agent)
        .map_err(|e| StoreError::io("session record", std::io::Error::other(e)))?;
    let id = id.to_string();
    blocking(move || gens.store().remove_session(&id)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_name_their_agent() {
        let hex = "0123456789abcdef0123456789abcdef";
        assert_eq!(agent_of(&format!("s-{hex}-demo-1")), Some("demo-1"));
        assert_eq!(agent_of(&format!("s-{hex}")), None);
        assert_eq!(agent_of(&format!("s-{hex}-../etc")), None);
        assert_eq!(agent_of("s-xyz-demo"), None);
    }

    #[test]
    fn listed_variables_are_left_out() {
        let f = NoPersist::new(&["AWS_*", "TOKEN"]).unwrap();
        assert!(f.matches("AWS_SECRET_ACCESS_KEY") && f.matches("TOKEN"));
        assert!(!f.matches("TOKENS") && !f.matches("MY_AWS_KEY"));
        assert!(!NoPersist::default().matches("AWS_X"));
        assert!(NoPersist::new(&["[unclosed"]).is_err());
    }
}
