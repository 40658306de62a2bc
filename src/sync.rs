//! The workspace-sync hook: restores `/workspace` from the agent's archive
//! when a session starts and snapshots it when the session parks or
//! completes.
//!
//! It talks to the sandbox only through the [`Sandbox`]
//! trait and runs the same shell commands on every backend ([`RESTORE_COMMAND`],
//! [`PACK_COMMAND`]), so an archive kept by one backend restores on another.
//! Every outcome is logged as `[workspace-sync] <session-id> <outcome>`:
//! `nothing kept yet`, `restored N bytes`, `kept N bytes`, `restore failed: ...`,
//! `pack failed: ...`, `pack produced nothing`.
//!
//! A session whose restore failed never snapshots over the archive: its
//! snapshots go beside it ([`ArchiveStore::store_beside`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::archive::{ArchiveStore, Generation, StoreOutcome, content_hash};
use crate::hooks::{Hook, HookContext, HookResult};
use crate::sandbox::{RunRequest, Sandbox};

/// Where the archive passes through inside the sandbox.
pub const SYNC_TEMP_PATH: &str = "/tmp/workspace-sync.tgz";

/// Unpacks the archive written to [`SYNC_TEMP_PATH`] into `/workspace`.
pub const RESTORE_COMMAND: &str = "mkdir -p /workspace && tar xzf /tmp/workspace-sync.tgz -C /workspace && rm -f /tmp/workspace-sync.tgz";

/// Packs `/workspace` (minus the mindlog copy) into [`SYNC_TEMP_PATH`].
pub const PACK_COMMAND: &str =
    "tar czf /tmp/workspace-sync.tgz -C /workspace --exclude=./mindlog.jsonl . && echo ok";

/// How long restore and pack commands may take.
const SYNC_TIMEOUT: Duration = Duration::from_secs(300);

/// What the hook remembers about one session.
#[derive(Clone, Debug, Default)]
struct SyncState {
    /// The archive this session's workspace derives from (restored, or last stored).
    base: Option<Arc<Vec<u8>>>,
    /// The restore failed: snapshots go beside the archive, never over it.
    restore_failed: bool,
    /// Hash of the last snapshot this session stored.
    last_stored: Option<u64>,
}

/// The workspace-sync hook (registered by default, see
/// [`RuntimeBuilder::default_hooks`](crate::runtime::RuntimeBuilder::default_hooks)).
#[derive(Debug, Default)]
pub struct WorkspaceSync {
    sessions: Mutex<HashMap<String, SyncState>>,
}

impl WorkspaceSync {
    /// A new hook.
    pub fn new() -> WorkspaceSync {
        WorkspaceSync::default()
    }

    fn state(&self, session: &str) -> SyncState {
        self.sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(session)
            .cloned()
            .unwrap_or_default()
    }

    fn set_state(&self, session: &str, state: SyncState) {
        self.sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(session.to_string(), state);
    }

    fn forget(&self, session: &str) {
        self.sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(session);
    }

    async fn restore(&self, ctx: &HookContext) -> HookResult {
        let Some(paths) = ctx.paths() else {
            return Ok(());
        };
        let sid = ctx.session_id();
        let sandbox = ctx.sandbox()?;
        let store = ArchiveStore::new(paths.archive.clone());
        let loaded = tokio::task::spawn_blocking(move || store.load())
            .await
            .map_err(|e| e.to_string())?;
        let generation = match loaded {
            Ok(Some(g)) => g,
            Ok(None) => {
                tracing::info!("[workspace-sync] {sid} nothing kept yet");
                self.set_state(sid, SyncState::default());
                return Ok(());
            }
            Err(e) => return self.restore_failed(sid, &e.to_string()),
        };
        match unpack(sandbox.as_ref(), &generation).await {
            Ok(()) => {
                tracing::info!("[workspace-sync] {sid} restored {} bytes", generation.len());
                self.set_state(
                    sid,
                    SyncState {
                        base: Some(generation.bytes),
                        ..SyncState::default()
                    },
                );
                Ok(())
            }
            Err(reason) => {
                let _ = sandbox.remove_path(SYNC_TEMP_PATH).await;
                self.restore_failed(sid, &reason)
            }
        }
    }

    fn restore_failed(&self, sid: &str, reason: &str) -> HookResult {
        tracing::warn!(
            "[workspace-sync] {sid} restore failed: {}",
            one_line(reason)
        );
        self.set_state(
            sid,
            SyncState {
                restore_failed: true,
                ..SyncState::default()
            },
        );
        Ok(())
    }

    async fn snapshot(&self, ctx: &HookContext) -> HookResult {
        let Some(paths) = ctx.paths() else {
            return Ok(());
        };
        let sid = ctx.session_id().to_string();
        let sandbox = ctx.sandbox()?;
        let ours = match pack(sandbox.as_ref()).await {
            Ok(bytes) => bytes,
            Err(PackError::Failed(reason)) => {
                tracing::warn!("[workspace-sync] {sid} pack failed: {}", one_line(&reason));
                return Ok(());
            }
            Err(PackError::Nothing) => {
                tracing::warn!("[workspace-sync] {sid} pack produced nothing");
                return Ok(());
            }
        };
        let mut state = self.state(&sid);
        let hash = content_hash(&ours);
        let n = ours.len();
        if state.last_stored == Some(hash) {
            tracing::info!(
                "[workspace-sync] {sid} kept {n} bytes (unchanged since the last snapshot)"
            );
            return Ok(());
        }
        let store = ArchiveStore::new(paths.archive.clone());
        let archive_path = paths.archive.clone();
        let restore_failed = state.restore_failed;
        let base = state.base.clone();
        let ours = Arc::new(ours);
        let ours_for_store = ours.clone();
        let sid_for_store = sid.clone();
        let stored = tokio::task::spawn_blocking(move || {
            if restore_failed {
                store
                    .store_beside(&ours_for_store, &sid_for_store)
                    .map(|path| StoreOutcome::StoredBeside {
                        bytes: ours_for_store.len() as u64,
                        path,
                        reason: "the restore had failed".into(),
                    })
            } else {
                store.store(
                    &ours_for_store,
                    base.as_deref().map(|b| b.as_slice()),
                    &sid_for_store,
                )
            }
        })
        .await
        .map_err(|e| e.to_string())?;
        match stored {
            Ok(StoreOutcome::Replaced { .. }) => {
                tracing::info!("[workspace-sync] {sid} kept {n} bytes");
            }
            Ok(StoreOutcome::Merged { bytes, conflicts }) => {
                tracing::info!(
                    "[workspace-sync] {sid} kept {n} bytes (merged with a newer archive from another session: {bytes} bytes, {} conflict(s))",
                    conflicts.len()
                );
                for c in conflicts {
                    tracing::warn!("[workspace-sync] {sid} conflict: {c}");
                }
            }
            Ok(StoreOutcome::StoredBeside { path, reason, .. }) => {
                tracing::warn!(
                    "[workspace-sync] {sid} kept {n} bytes beside the archive, in {} ({reason}, so {} was left as it was)",
                    path.display(),
                    archive_path.display()
                );
            }
            Err(e) => {
                tracing::warn!("[workspace-sync] {sid} store failed: {e}");
                return Err(e.to_string().into());
            }
        }
        state.base = Some(ours);
        state.last_stored = Some(hash);
        self.set_state(&sid, state);
        Ok(())
    }
}

/// Writes the archive into the sandbox and unpacks it; `Err` carries the reason.
async fn unpack(sandbox: &dyn Sandbox, generation: &Generation) -> Result<(), String> {
    sandbox
        .write_file(SYNC_TEMP_PATH, &generation.bytes)
        .await
        .map_err(|e| e.to_string())?;
    let out = sandbox
        .run(RunRequest::new(RESTORE_COMMAND).timeout(SYNC_TIMEOUT))
        .await
        .map_err(|e| e.to_string())?;
    if out.exit_code != 0 {
        let stderr = out.stderr_text();
        return Err(if stderr.trim().is_empty() {
            format!("exit status {}", out.exit_code)
        } else {
            stderr
        });
    }
    Ok(())
}

enum PackError {
    Failed(String),
    Nothing,
}

/// Packs the workspace inside the sandbox and reads the archive back.
async fn pack(sandbox: &dyn Sandbox) -> Result<Vec<u8>, PackError> {
    let out = sandbox
        .run(RunRequest::new(PACK_COMMAND).timeout(SYNC_TIMEOUT))
        .await
        .map_err(|e| PackError::Failed(e.to_string()))?;
    if out.exit_code != 0 || !out.stdout_text().contains("ok") {
        let _ = sandbox.remove_path(SYNC_TEMP_PATH).await;
        let stderr = out.stderr_text();
        return Err(PackError::Failed(if stderr.trim().is_empty() {
            format!("exit status {}", out.exit_code)
        } else {
            stderr
        }));
    }
    let bytes = sandbox
        .read_file(SYNC_TEMP_PATH)
        .await
        .map_err(|e| PackError::Failed(e.to_string()))?;
    let _ = sandbox.remove_path(SYNC_TEMP_PATH).await;
    match bytes {
        Some(b) if !b.is_empty() => Ok(b),
        _ => Err(PackError::Nothing),
    }
}

/// Collapses a multi-line error (tar's stderr) into one log line.
fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

#[async_trait::async_trait]
impl Hook for WorkspaceSync {
    fn name(&self) -> &str {
        "workspace-sync"
    }

    async fn session_started(&self, ctx: &HookContext) -> HookResult {
        self.restore(ctx).await
    }

    async fn session_waiting(&self, ctx: &HookContext) -> HookResult {
        self.snapshot(ctx).await
    }

    async fn session_completed(&self, ctx: &HookContext) -> HookResult {
        let result = self.snapshot(ctx).await;
        self.forget(ctx.session_id());
        result
    }

    async fn session_failed(&self, ctx: &HookContext) -> HookResult {
        self.forget(ctx.session_id());
        Ok(())
    }
}
