//! The mindlog-copy hook: puts a copy of the agent's mindlog into the sandbox
//! at `/workspace/mindlog.jsonl` when a turn starts, so the agent can read
//! its memory with ordinary tools. The copy is excluded from the workspace's
//! generations: editing it changes nothing durable.

use std::collections::HashMap;
use std::sync::Mutex;

use super::{Hook, HookContext, HookResult};
use crate::mindlog::{MindlogError, SANDBOX_MINDLOG_PATH, Version};

/// The hook that copies the mindlog into the sandbox at
/// `/workspace/mindlog.jsonl` when a turn starts, unless the mindlog (a host
/// file, or segments on object storage) is unchanged since the last copy
/// into that sandbox. Does nothing for
/// ephemeral sessions or when the agent has no mindlog yet.
#[derive(Debug, Default)]
pub struct MindlogCopy {
    /// Per sandbox id: the mindlog's version at the last copy.
    copied: Mutex<HashMap<String, Version>>,
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
        let log = paths.open_mindlog();
        let key = sandbox.id().to_string();
        let last = self
            .copied
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .cloned();
        // The version first (one stat, or one listing of the segments): the
        // contents are read only when they changed since the last copy.
        let read = tokio::task::spawn_blocking(
            move || -> Result<Option<(Vec<u8>, Version)>, MindlogError> {
                let Some(version) = log.version()? else {
                    return Ok(None);
                };
                if last.as_ref() == Some(&version) {
                    return Ok(None);
                }
                Ok(Some((log.contents()?, version)))
            },
        );
        let Some((data, stamp)) = read
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?
        else {
            return Ok(());
        };
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
