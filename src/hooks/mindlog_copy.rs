//! The mindlog-copy hook: puts a copy of the agent's mindlog into the sandbox
//! at `/workspace/mindlog.jsonl` when a turn starts, so the agent can read
//! its memory with ordinary tools. The copy is excluded from the workspace's
//! generations: editing it changes nothing durable.

use std::collections::HashMap;
use std::io;
use std::sync::Mutex;
use std::time::SystemTime;

use super::{Hook, HookContext, HookResult};
use crate::mindlog::SANDBOX_MINDLOG_PATH;

/// The hook that copies the mindlog into the sandbox at
/// `/workspace/mindlog.jsonl` when a turn starts, unless the host file is
/// unchanged since the last copy into that sandbox. Does nothing for
/// ephemeral sessions or when the agent has no mindlog yet.
#[derive(Debug, Default)]
pub struct MindlogCopy {
    /// Per sandbox id: (length, mtime) of the host file at the last copy.
    copied: Mutex<HashMap<String, (u64, Option<SystemTime>)>>,
}

impl MindlogCopy {
    /// A new hook.
    pub fn new() -> MindlogCopy {
        MindlogCopy::default()
    }
}

#[async_trait::async_trait]
impl Hook for MindlogCopy {
    fn name(&self) -> &str {
        "mindlog"
    }

    async fn turn_started(&self, ctx: &HookContext) -> HookResult {
        let Some(paths) = ctx.paths() else {
            return Ok(());
        };
        let sandbox = ctx.sandbox()?;
        let path = paths.mindlog.clone();
        let read = tokio::task::spawn_blocking(
            move || -> io::Result<Option<(Vec<u8>, (u64, Option<SystemTime>))>> {
                let meta = match std::fs::metadata(&path) {
                    Ok(m) => m,
                    Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                    Err(e) => return Err(e),
                };
                let data = std::fs::read(&path)?;
                Ok(Some((data, (meta.len(), meta.modified().ok()))))
            },
        );
        let Some((data, stamp)) = read.await.map_err(|e| e.to_string())?? else {
            return Ok(());
        };
        let key = sandbox.id().to_string();
        if self
            .copied
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            == Some(&stamp)
        {
            return Ok(());
        }
        sandbox.write_file(SANDBOX_MINDLOG_PATH, &data).await?;
        self.copied
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, stamp);
        Ok(())
    }

    async fn session_completed(&self, ctx: &HookContext) -> HookResult {
        self.forget(ctx);
        Ok(())
    }

    async fn session_failed(&self, ctx: &HookContext) -> HookResult {
        self.forget(ctx);
        Ok(())
    }
}

impl MindlogCopy {
    fn forget(&self, ctx: &HookContext) {
        if let Some(sandbox) = &ctx.sandbox {
            self.copied
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(sandbox.id());
        }
    }
}
