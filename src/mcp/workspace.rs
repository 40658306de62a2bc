//! The MCP tools over the workspace's generations: `workspace_history`,
//! `workspace_diff` and `workspace_restore`. A restore changes the sandbox
//! itself (the restored files replace the current ones); the park that ends
//! the tool call keeps that as a new generation, through the ordinary sync.

use rmcp::model::{CallToolResult, JsonObject};
use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::json;

use super::tools::{parse, text, tool_error};
use crate::mindlog::SANDBOX_MINDLOG_PATH;
use crate::runtime::Runtime;
use crate::session::Session;
use crate::store::{Generations, Kind, StoreError};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct HistoryArgs {
    /// How many generations at most (default 20).
    #[schemars(range(min = 1))]
    limit: Option<usize>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct DiffArgs {
    /// The older generation (default HEAD~1).
    from: Option<String>,
    /// The newer generation (default HEAD).
    to: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RestoreArgs {
    /// The generation to bring back: an id, a unique prefix, HEAD or HEAD~N.
    generation: String,
    /// Only this file or directory (default: the whole workspace).
    path: Option<String>,
}

/// Runs blocking store work off the async runtime.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, CallToolResult> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| tool_error(e.to_string()))?
        .map_err(|e| tool_error(e.to_string()))
}

/// One of the three tools.
pub(super) async fn call(
    runtime: &Runtime,
    session: &mut Session,
    agent: &str,
    name: &str,
    args: JsonObject,
) -> Result<CallToolResult, CallToolResult> {
    let gens = runtime
        .generations(agent)
        .map_err(|e| tool_error(e.to_string()))?;
    match name {
        "workspace_history" => {
            let a: HistoryArgs = parse(name, args)?;
            let log = blocking(move || gens.log(a.limit.unwrap_or(20))).await?;
            let lines: Vec<String> = log
                .iter()
                .map(|r| {
                    json!({
                        "id": r.id, "seq": r.seq, "created": r.created, "session": r.session,
                        "added": r.stats.added, "modified": r.stats.modified,
                        "deleted": r.stats.deleted, "bytes_new": r.stats.bytes_new, "note": r.note,
                    })
                    .to_string()
                })
                .collect();
            Ok(text(if lines.is_empty() {
                "(no generations kept yet)".to_string()
            } else {
                lines.join("\n")
            }))
        }
        "workspace_diff" => {
            let a: DiffArgs = parse(name, args)?;
            let lines = blocking(move || diff_lines(&gens, a.from, a.to)).await?;
            Ok(text(if lines.is_empty() {
                "(no changes)".to_string()
            } else {
                lines.join("\n")
            }))
        }
        "workspace_restore" => restore(session, gens, parse(name, args)?).await,
        _ => Err(tool_error(format!("unknown tool: {name}"))),
    }
}

fn diff_lines(
    gens: &Generations,
    from: Option<String>,
    to: Option<String>,
) -> Result<Vec<String>, StoreError> {
    let from = gens.resolve(from.as_deref().unwrap_or("HEAD~1"))?;
    let to = gens.resolve(to.as_deref().unwrap_or("HEAD"))?;
    Ok(gens
        .manifest(&from)?
        .diff(&*gens.manifest(&to)?)
        .iter()
        .filter(|c| c.entry_kind != Kind::Dir)
        .map(|c| format!("{}\t{}", c.kind.letter(), c.path))
        .collect())
}

async fn restore(
    session: &mut Session,
    gens: Generations,
    a: RestoreArgs,
) -> Result<CallToolResult, CallToolResult> {
    let sandbox = session
        .sandbox()
        .cloned()
        .ok_or_else(|| tool_error("no sandbox"))?;
    let path = a
        .path
        .as_deref()
        .map(|p| {
            p.trim_start_matches("/workspace/")
                .trim_matches('/')
                .to_string()
        })
        .filter(|p| !p.is_empty());
    let (id, tar) = {
        let (spec, path) = (a.generation.clone(), path.clone());
        blocking(move || {
            let id = gens.resolve(&spec)?;
            let tar = gens.tar(&id, path.as_deref(), crate::sandbox::SANDBOX_UID)?;
            Ok((id, tar))
        })
        .await?
    };
    let cleared = match &path {
        Some(p) => sandbox.remove_path(&format!("/workspace/{p}")).await,
        None => {
            let keep = SANDBOX_MINDLOG_PATH.trim_start_matches("/workspace/");
            let script = format!(
                "find /workspace -mindepth 1 -maxdepth 1 ! -name {keep} -exec rm -rf {{}} +"
            );
            sandbox
                .run(crate::sandbox::RunRequest::new(script).fresh_shell())
                .await
                .map(|_| ())
        }
    };
    cleared.map_err(|e| tool_error(format!("clearing the old files: {e}")))?;
    sandbox
        .import_workspace(&tar)
        .await
        .map_err(|e| tool_error(format!("restoring: {e}")))?;
    Ok(text(match path {
        Some(p) => format!("restored {p} from generation {id}; it is kept as a new generation"),
        None => {
            format!("restored the workspace of generation {id}; it is kept as a new generation")
        }
    }))
}
