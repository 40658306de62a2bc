//! The mindlog-copy hook: puts a copy of the agent's mindlog into the sandbox
//! at `/workspace/mindlog.jsonl` when a turn starts, so the agent can read
//! its memory with ordinary tools. The copy is excluded from the workspace's
//! generations: editing it changes nothing durable.

use super::{Hook, HookContext, HookResult};
use crate::mindlog::{MindlogError, SANDBOX_MINDLOG_PATH, Version};

/// The hook that copies the mindlog into the sandbox at
/// `/workspace/mindlog.jsonl` when a turn starts, unless the mindlog (a host
/// file, or segments on object storage) is unchanged since the last copy
/// into that sandbox. Does nothing for
/// ephemeral sessions or when the agent has no mindlog yet.
#[derive(Debug, Default)]
pub struct MindlogCopy;

/// The mindlog's version at the session's last copy (per-session hook
/// state: it dies with the session).
struct Copied(Version);

impl MindlogCopy {
    /// A new hook.
    pub fn new() -> MindlogCopy {
        MindlogCopy
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
        let last = ctx.take_state::<Copied>().map(|Copied(v)| v);
        // The version first (one stat, or one listing of the segments): the
        // contents are read only when they changed since the last copy.
        let read = tokio::task::spawn_blocking(
            move || -> Result<Option<(Option<Vec<u8>>, Version)>, MindlogError> {
                let Some(version) = log.version()? else {
                    return Ok(None);
                };
                if last.as_ref() == Some(&version) {
                    return Ok(Some((None, version)));
                }
                Ok(Some((Some(log.contents()?), version)))
            },
        );
        let Some((data, version)) = read
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?
        else {
            return Ok(());
        };
        if let Some(data) = data {
            sandbox.write_file(SANDBOX_MINDLOG_PATH, &data).await?;
        }
        ctx.put_state(Copied(version));
        Ok(())
    }
}
