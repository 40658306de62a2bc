//! The tools the MCP server offers, their JSON schemas and descriptions
//! (written for a model to read), and what each call does. Every call is a
//! turn of the session, parked at the end so its work is snapshotted.

use std::sync::Arc;
use std::time::Duration;

use rmcp::ErrorData as McpError;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool};
use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::mindlog::Kind;
use crate::runtime::Runtime;
use crate::sandbox::{OutputSink, RunRequest};
use crate::session::Session;

/// A tool's input schema, derived from the struct its arguments are parsed
/// into (so what the model is told and what is accepted cannot drift apart):
/// JSON Schema 2020-12 as MCP asks, the struct's name and doc left out.
fn input_schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    // Every argument struct below derives an object schema; a unit test
    // builds each definition.
    rmcp::handler::server::common::schema_for_input::<T>()
        .unwrap_or_else(|e| unreachable!("argument structs are objects: {e}"))
}

/// The most of one file `read_file` returns (and holds on the host): a
/// larger file comes back cut, with a note saying so and how big it is.
pub const READ_FILE_MAX_BYTES: usize = 1 << 20;

/// The line a cut `read_file` ends with.
fn truncation_note(path: &str, head: &crate::sandbox::FileHead) -> String {
    format!(
        "\n[truncated: {path} is {} bytes; this is its first {} bytes. Read further \
         with bash, e.g. `tail -c +{} {path} | head -c 100000` or `sed -n 'A,Bp' {path}`]\n",
        head.size,
        head.data.len(),
        head.data.len() + 1
    )
}

/// Every tool, as `tools/list` shows it.
pub fn definitions() -> Vec<Tool> {
    vec![
        Tool::new(
            "bash",
            "Run a bash command in the sandbox's shell (starts in /workspace). Files you write \
             persist across calls and across sessions. Within this session the shell is kept \
             between calls, as in one interactive shell: the working directory (`cd`), shell \
             and exported variables (arrays too), functions, aliases, `set -o`/`shopt` \
             options and `umask` carry over to the next call, also after a failed call (and \
             on the local backend a timed-out one); changes made in a subshell or a pipeline \
             stage do not. Traps and background jobs end with the call. Returns stdout, \
             stderr and the exit code. Output is capped; very long output is truncated and \
             flagged. No network.",
            input_schema::<BashArgs>(),
        ),
        Tool::new(
            "read_file",
            "Read a text file from the sandbox. Relative paths are under /workspace. \
             Optionally only lines start_line..=end_line (1-based). At most the first \
             1 MiB of a file is read; a larger file comes back cut, with a note giving \
             its size.",
            input_schema::<ReadArgs>(),
        ),
        Tool::new(
            "write_file",
            "Write a text file in the sandbox (replacing it), creating parent directories. \
             Relative paths are under /workspace.",
            input_schema::<WriteArgs>(),
        ),
        Tool::new(
            "mindlog_append",
            "Append a note or thought to your mindlog: memory that survives this session \
             (the sandbox's files are kept too, but the mindlog is for what you want to \
             remember). Returns the entry.",
            input_schema::<AppendArgs>(),
        ),
        Tool::new(
            "mindlog_read",
            "Read the newest entries of your mindlog, oldest first (one JSON object per line).",
            input_schema::<ReadLogArgs>(),
        ),
        Tool::new(
            "mindlog_search",
            "Search your mindlog for entries whose text contains `query` (ignoring case); \
             the newest matches, oldest first (one JSON object per line).",
            input_schema::<SearchArgs>(),
        ),
        Tool::new(
            "workspace_history",
            "List the kept generations of your workspace, newest first: one is kept each \
             time a tool call changes files. Each line: id, UTC time, session, \
             +added ~modified -deleted, bytes new.",
            input_schema::<super::workspace::HistoryArgs>(),
        ),
        Tool::new(
            "workspace_diff",
            "What changed between two kept generations, as `A|M|D<TAB>path` lines. \
             Generations are ids (or unique prefixes), `HEAD` or `HEAD~N`; default \
             from HEAD~1 to HEAD.",
            input_schema::<super::workspace::DiffArgs>(),
        ),
        Tool::new(
            "workspace_restore",
            "Bring back a kept generation: the whole workspace, or only `path` (a file or \
             a directory). The restored files replace the current ones in the sandbox and \
             are kept as a new generation (history is not lost; restore again to undo).",
            input_schema::<super::workspace::RestoreArgs>(),
        ),
    ]
}

// The tools' arguments. Each struct is both what a call is parsed into and,
// through its derived schema, what `tools/list` tells the model: the field
// docs are the descriptions it reads.

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct BashArgs {
    /// The script to run, as for `bash -c`.
    command: String,
    /// Wall-clock limit in milliseconds (default 30000).
    #[schemars(range(min = 1))]
    timeout_ms: Option<u64>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReadArgs {
    /// The file; relative paths are under /workspace.
    path: String,
    /// The first line to return (1-based).
    #[schemars(range(min = 1))]
    start_line: Option<usize>,
    /// The last line to return (1-based, inclusive).
    #[schemars(range(min = 1))]
    end_line: Option<usize>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WriteArgs {
    /// The file; relative paths are under /workspace.
    path: String,
    /// Its whole new content.
    content: String,
}

/// What a mindlog entry is (inlined: a model reads the enum in place).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
enum EntryKind {
    Note,
    Thought,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AppendArgs {
    kind: EntryKind,
    text: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReadLogArgs {
    /// How many entries at most (default 20).
    #[schemars(range(min = 1))]
    limit: Option<usize>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SearchArgs {
    /// Text to find in an entry (ignoring case).
    query: String,
    /// How many entries at most (default 20).
    #[schemars(range(min = 1))]
    limit: Option<usize>,
}

pub(super) fn parse<T: for<'de> Deserialize<'de>>(
    tool: &str,
    args: JsonObject,
) -> Result<T, CallToolResult> {
    serde_json::from_value(Value::Object(args))
        .map_err(|e| tool_error(format!("invalid arguments for {tool}: {e}")))
}

pub(super) fn tool_error(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}

pub(super) fn text(message: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(message.into())])
}

/// Runs tool `name` as one turn of `session`. Unknown tools are protocol
/// errors; everything else that goes wrong is a tool error the model reads.
/// `progress` (for `bash`) sees the run's output as it comes.
pub async fn call(
    runtime: &Runtime,
    session: &mut Session,
    name: &str,
    args: JsonObject,
    progress: Option<Arc<dyn OutputSink>>,
) -> Result<CallToolResult, McpError> {
    if !definitions().iter().any(|t| t.name == name) {
        return Err(McpError::invalid_params(
            format!("unknown tool: {name}"),
            None,
        ));
    }
    if let Err(e) = session.begin_turn().await {
        return Ok(tool_error(format!("the session cannot run: {e}")));
    }
    let result = match dispatch(runtime, session, name, args, progress).await {
        Ok(r) | Err(r) => r,
    };
    if let Err(e) = session.park().await {
        tracing::warn!("[mcp] park failed: {e}");
        let mut failed = result;
        failed.is_error = Some(true);
        failed.content.push(ContentBlock::text(format!(
            "The workspace was NOT kept after this call ({e}). Your files are still in the \
             sandbox; free space or remove large files, then run a command again to retry."
        )));
        return Ok(failed);
    }
    Ok(result)
}

async fn dispatch(
    runtime: &Runtime,
    session: &mut Session,
    name: &str,
    args: JsonObject,
    progress: Option<Arc<dyn OutputSink>>,
) -> Result<CallToolResult, CallToolResult> {
    let agent = session.agent().unwrap_or_default().to_string();
    match name {
        "bash" => {
            let a: BashArgs = parse(name, args)?;
            let mut request = RunRequest::new(a.command);
            request.timeout = a.timeout_ms.map(Duration::from_millis);
            request.sink = progress;
            let r = session
                .run(request)
                .await
                .map_err(|e| tool_error(e.to_string()))?;
            let mut body = r.stdout_text();
            if !r.stderr.is_empty() {
                if !body.is_empty() && !body.ends_with('\n') {
                    body.push('\n');
                }
                body.push_str("[stderr]\n");
                body.push_str(&r.stderr_text());
            }
            if !body.is_empty() && !body.ends_with('\n') {
                body.push('\n');
            }
            body.push_str(&format!("[exit code: {}]", r.exit_code));
            if r.truncated {
                body.push_str(" [output truncated]");
            }
            let structured = json!({
                "stdout": r.stdout_text(), "stderr": r.stderr_text(),
                "exit_code": r.exit_code, "truncated": r.truncated, "timed_out": r.timed_out,
            });
            let mut result = if r.timed_out {
                tool_error(format!("{body}\ncommand timed out"))
            } else {
                text(body)
            };
            result.structured_content = Some(structured);
            Ok(result)
        }
        "read_file" => {
            let a: ReadArgs = parse(name, args)?;
            let sandbox = session.sandbox().ok_or_else(|| tool_error("no sandbox"))?;
            let head = sandbox
                .read_file_head(&a.path, READ_FILE_MAX_BYTES)
                .await
                .map_err(|e| tool_error(e.to_string()))?
                .ok_or_else(|| tool_error(format!("{}: No such file or directory", a.path)))?;
            let content = String::from_utf8_lossy(&head.data).into_owned();
            let cut = head.truncated().then(|| truncation_note(&a.path, &head));
            if a.start_line.is_none() && a.end_line.is_none() {
                return Ok(text(content + cut.as_deref().unwrap_or("")));
            }
            let start = a.start_line.unwrap_or(1);
            let end = a.end_line.unwrap_or(usize::MAX);
            if end < start {
                return Err(tool_error("end_line is before start_line"));
            }
            let lines: Vec<&str> = content
                .split_inclusive('\n')
                .skip(start - 1)
                .take(end - start + 1)
                .collect();
            Ok(text(lines.concat() + cut.as_deref().unwrap_or("")))
        }
        "write_file" => {
            let a: WriteArgs = parse(name, args)?;
            let sandbox = session.sandbox().ok_or_else(|| tool_error("no sandbox"))?;
            sandbox
                .write_file(&a.path, a.content.as_bytes())
                .await
                .map_err(|e| tool_error(e.to_string()))?;
            Ok(text(format!(
                "wrote {} bytes to {}",
                a.content.len(),
                a.path
            )))
        }
        "mindlog_append" => {
            let a: AppendArgs = parse(name, args)?;
            let kind = match a.kind {
                EntryKind::Note => Kind::Note,
                EntryKind::Thought => Kind::Thought,
            };
            let log = runtime
                .mindlog(&agent)
                .map_err(|e| tool_error(e.to_string()))?;
            match log
                .append(kind, &a.text, Some(session.id()))
                .map_err(|e| tool_error(e.to_string()))?
            {
                Some(entry) => Ok(text(serde_json::to_string(&entry).unwrap_or_default())),
                None => Err(tool_error("blank text: nothing appended")),
            }
        }
        "mindlog_read" | "mindlog_search" => {
            let log = runtime
                .mindlog(&agent)
                .map_err(|e| tool_error(e.to_string()))?;
            let entries = if name == "mindlog_read" {
                let a: ReadLogArgs = parse(name, args)?;
                log.read(a.limit.unwrap_or(20), None)
            } else {
                let a: SearchArgs = parse(name, args)?;
                log.search(&a.query, a.limit.unwrap_or(20))
            }
            .map_err(|e| tool_error(e.to_string()))?;
            let lines: Vec<String> = entries
                .iter()
                .map(|e| serde_json::to_string(e).unwrap_or_default())
                .collect();
            Ok(text(if lines.is_empty() {
                "(no entries)".to_string()
            } else {
                lines.join("\n")
            }))
        }
        "workspace_history" | "workspace_diff" | "workspace_restore" => {
            super::workspace::call(runtime, session, &agent, name, args).await
        }
        _ => unreachable!("checked against the definitions"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each tool's schema is its argument struct's: the required fields, no
    /// others accepted, the bounds and the descriptions the model reads.
    #[test]
    fn the_schemas_describe_what_a_call_accepts() {
        let tools = definitions();
        let schema_of = |name: &str| {
            let tool = tools.iter().find(|t| t.name == name).unwrap();
            Value::Object(tool.input_schema.as_ref().clone())
        };
        let bash = schema_of("bash");
        assert_eq!(bash["type"], "object");
        assert_eq!(bash["required"], json!(["command"]));
        assert_eq!(bash["additionalProperties"], false);
        assert_eq!(bash["properties"]["timeout_ms"]["minimum"], 1);
        assert!(
            bash["properties"]["command"]["description"]
                .as_str()
                .unwrap()
                .contains("bash -c")
        );
        assert_eq!(
            schema_of("mindlog_append")["properties"]["kind"]["enum"],
            json!(["note", "thought"])
        );
        assert_eq!(
            schema_of("workspace_restore")["required"],
            json!(["generation"])
        );
        for tool in &tools {
            let schema = schema_of(&tool.name);
            assert_eq!(schema["additionalProperties"], false, "{}", tool.name);
            assert!(schema.get("title").is_none(), "{}", tool.name);
            assert!(schema.get("$defs").is_none(), "{}: {schema}", tool.name);
        }
        // And the parser refuses what the schema leaves out.
        let extra = json!({"path": "a", "content": "b", "mode": 1});
        let Value::Object(extra) = extra else {
            unreachable!()
        };
        assert!(parse::<WriteArgs>("write_file", extra).is_err());
        let Value::Object(kind) = json!({"kind": "memo", "text": "x"}) else {
            unreachable!()
        };
        assert!(parse::<AppendArgs>("mindlog_append", kind).is_err());
    }
}
