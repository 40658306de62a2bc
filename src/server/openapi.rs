//! The OpenAPI 3 document served at `/v1/openapi.json`, written out by hand
//! next to the routes it describes ([`super::routes`]); a test walks every
//! documented operation against the running server, so the two cannot drift
//! apart unnoticed.

use serde_json::{Value, json};

fn error_response(description: &str) -> Value {
    json!({
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    })
}

fn json_response(description: &str, schema: Value) -> Value {
    json!({"description": description, "content": {"application/json": {"schema": schema}}})
}

fn bytes_response(description: &str) -> Value {
    json!({
        "description": description,
        "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}
    })
}

fn path_param(name: &str, description: &str) -> Value {
    json!({"name": name, "in": "path", "required": true, "description": description, "schema": {"type": "string"}})
}

fn query_param(name: &str, schema: Value, description: &str) -> Value {
    json!({"name": name, "in": "query", "required": false, "description": description, "schema": schema})
}

/// A valid agent name (see `runtime::validate_agent`).
pub const AGENT_PATTERN: &str = "^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$";

/// Text with a character that Rust's `str::trim` keeps (one that is not
/// Unicode White_Space), i.e. text the mindlog does not refuse as blank.
/// Spelled out rather than `\S`: the regex dialects of the document's
/// readers disagree on what `\s` covers (U+0085, U+FEFF, U+001C..1F).
pub const NOT_BLANK_PATTERN: &str = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";

/// Adds the responses every authenticated operation can give.
fn op(mut operation: Value, path_params: &[Value]) -> Value {
    let responses = operation["responses"].as_object_mut().expect("responses");
    responses.insert("400".into(), error_response("Bad request"));
    responses.insert("401".into(), error_response("No valid bearer token"));
    responses.insert(
        "403".into(),
        error_response("The token does not grant this agent or session"),
    );
    responses.insert(
        "500".into(),
        error_response("The sandbox or the store failed"),
    );
    let mut params: Vec<Value> = path_params.to_vec();
    if let Some(extra) = operation["parameters"].as_array() {
        params.extend(extra.iter().cloned());
    }
    if !params.is_empty() {
        operation["parameters"] = Value::Array(params);
    }
    operation
}

/// The document.
///
/// ```
/// let doc = sandkeep::testing::openapi_document();
/// assert_eq!(doc["openapi"], "3.0.3");
/// assert!(doc["paths"]["/v1/sessions/{id}/run"]["post"].is_object());
/// ```
pub fn document() -> Value {
    let mut agent = path_param(
        "agent",
        "The agent's name (1-64 of letters, digits, '.', '_', '-', not starting with '.' or '-').",
    );
    // The rule `runtime::validate_agent` enforces, so a name the document
    // allows is never refused as malformed.
    agent["schema"]["pattern"] = json!(AGENT_PATTERN);
    let id = path_param("id", "The session id returned at creation.");
    // No pattern for "no '..' component" (answered 400): with one (with or
    // without lookarounds) schemathesis 4.32 failed its `filter_too_much`
    // and `too_slow` health checks on every file operation.
    let path = path_param(
        "path",
        "A path relative to /workspace (leading '/' ignored); one with a '..' component is refused (400).",
    );
    let generation = path_param(
        "generation",
        "A generation id, a unique prefix, HEAD or HEAD~N.",
    );
    let limit = query_param(
        "limit",
        json!({"type": "integer", "minimum": 1, "maximum": 10000}),
        "How many (default 20).",
    );
    let generation_schema = json!({"$ref": "#/components/schemas/Generation"});
    let session_ref = json!({"$ref": "#/components/schemas/SessionState"});
    json!({
        "openapi": "3.0.3",
        "info": {
            "title": "sandkeep",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Sandboxes for AI agents: sessions run bash in /workspace; workspaces and mindlogs persist per agent."
        },
        "security": [{"bearer": []}],
        "paths": {
            "/v1/health": {"get": {
                "operationId": "health", "summary": "Liveness and counts", "security": [],
                "responses": {"200": json_response("Healthy", json!({"$ref": "#/components/schemas/Health"}))}
            }},
            "/v1/openapi.json": {"get": {
                "operationId": "openapi", "summary": "This document", "security": [],
                "responses": {"200": json_response("The OpenAPI document", json!({"type": "object"}))}
            }},
            "/v1/agents/{agent}/sessions": {"post": op(json!({
                "operationId": "createSession", "summary": "Open a session of the agent (its workspace restored)",
                "responses": {
                    "201": json_response("Created", json!({"$ref": "#/components/schemas/Created"})),
                    "429": {
                        "description": "Too many sessions; retry later",
                        "headers": {"Retry-After": {"schema": {"type": "integer"}}},
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
                    }
                }
            }), std::slice::from_ref(&agent))},
            "/v1/sessions/{id}": {"delete": op(json!({
                "operationId": "completeSession", "summary": "Complete the session: keep its workspace, release its sandbox, forget it",
                "responses": {
                    "200": json_response("Completed", session_ref.clone()),
                    "404": error_response("No such session")
                }
            }), std::slice::from_ref(&id))},
            "/v1/sessions/{id}/run": {"post": op(json!({
                "operationId": "run",
                "summary": "Run a command (bash -c) in the session's shell (it starts in /workspace; the working directory, variables, functions, aliases and options persist between runs); with Accept: text/event-stream, stream it as SSE (stdout, stderr, then exit)",
                "parameters": [{"name": "Idempotency-Key", "in": "header", "required": false,
                    "description": "A retry with the same key (in this session, same body) returns the first run's result, waiting for it while it runs, instead of running again; a run with a key is not cancelled when its client goes away.",
                    "schema": {"type": "string", "minLength": 1, "maxLength": 255}}],
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/RunRequest"}}}},
                "responses": {
                    "422": error_response("The Idempotency-Key was used for another request in this session"),
                    "200": {
                        "description": "The finished run (JSON), or its stream (SSE events stdout/stderr with {data}, then exit with {exit_code, truncated, timed_out})",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/RunResult"}},
                            "text/event-stream": {"schema": {"type": "string"}}
                        }
                    },
                    "404": error_response("No such session")
                }
            }), std::slice::from_ref(&id))},
            "/v1/sessions/{id}/park": {"post": op(json!({
                "operationId": "park", "summary": "Keep the workspace and release the sandbox; the next call resumes",
                "responses": {
                    "200": json_response("Parked", session_ref),
                    "404": error_response("No such session")
                }
            }), std::slice::from_ref(&id))},
            "/v1/sessions/{id}/files/{path}": {
                "get": op(json!({
                    "operationId": "readFile", "summary": "A file's bytes",
                    "responses": {"200": bytes_response("The file"), "404": error_response("No such file or session")}
                }), &[id.clone(), path.clone()]),
                "put": op(json!({
                    "operationId": "writeFile", "summary": "Write a file (parents created)",
                    "requestBody": {"required": true, "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}},
                    "responses": {
                        "200": json_response("Written", json!({"type": "object", "required": ["path", "bytes"], "properties": {"path": {"type": "string"}, "bytes": {"type": "integer"}}})),
                        "404": error_response("No such session")
                    }
                }), &[id.clone(), path.clone()]),
                "delete": op(json!({
                    "operationId": "removeFile", "summary": "Remove a file or directory tree (a missing one is fine)",
                    "responses": {"204": {"description": "Removed"}, "404": error_response("No such session")}
                }), &[id.clone(), path.clone()])
            },
            "/v1/agents/{agent}/mindlog": {
                "get": op(json!({
                    "operationId": "mindlogRead", "summary": "The newest entries, oldest first; with query, those whose text contains it (ignoring case)",
                    "parameters": [
                        limit.clone(),
                        query_param("query", json!({"type": "string"}), "Text to look for."),
                        query_param("before", json!({"type": "string"}), "Only entries older than this entry id.")
                    ],
                    "responses": {"200": json_response("Entries", json!({"type": "object", "required": ["entries"], "properties": {"entries": {"type": "array", "items": {"$ref": "#/components/schemas/MindlogEntry"}}}}))}
                }), std::slice::from_ref(&agent)),
                "post": op(json!({
                    "operationId": "mindlogAppend", "summary": "Append an entry",
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/MindlogAppend"}}}},
                    "responses": {"201": json_response("Appended", json!({"$ref": "#/components/schemas/MindlogEntry"}))}
                }), std::slice::from_ref(&agent))
            },
            "/v1/agents/{agent}/generations": {"get": op(json!({
                "operationId": "generations", "summary": "Kept generations of the workspace, newest first",
                "parameters": [limit],
                "responses": {"200": json_response("Generations", json!({"type": "object", "required": ["generations"], "properties": {"generations": {"type": "array", "items": generation_schema.clone()}}}))}
            }), std::slice::from_ref(&agent))},
            "/v1/agents/{agent}/generations/{generation}": {"get": op(json!({
                "operationId": "generation", "summary": "One generation and the paths it holds",
                "responses": {
                    "200": json_response("The generation", json!({"allOf": [generation_schema.clone(), {"type": "object", "required": ["files"], "properties": {"files": {"type": "array", "items": {"$ref": "#/components/schemas/FileEntry"}}}}]})),
                    "404": error_response("No such generation")
                }
            }), &[agent.clone(), generation.clone()])},
            "/v1/agents/{agent}/generations/{generation}/files/{path}": {"get": op(json!({
                "operationId": "generationFile", "summary": "A file as a generation holds it",
                "responses": {"200": bytes_response("The file"), "404": error_response("No such generation or file")}
            }), &[agent.clone(), generation.clone(), path])},
            "/v1/agents/{agent}/generations/{generation}/checkout": {"post": op(json!({
                "operationId": "checkout", "summary": "Make a new head whose tree is this generation's (history kept)",
                "responses": {"200": json_response("The new head", generation_schema), "404": error_response("No such generation")}
            }), &[agent.clone(), generation])},
            "/v1/agents/{agent}/diff": {"get": op(json!({
                "operationId": "diff", "summary": "What changed between two generations (default HEAD~1 to HEAD)",
                "parameters": [
                    query_param("from", json!({"type": "string"}), "The older generation."),
                    query_param("to", json!({"type": "string"}), "The newer generation.")
                ],
                "responses": {
                    "200": json_response("Changes", json!({"type": "object", "required": ["changes"], "properties": {"changes": {"type": "array", "items": {
                        "type": "object", "required": ["change", "path", "size"],
                        "properties": {"change": {"type": "string", "enum": ["A", "M", "D"]}, "path": {"type": "string"}, "size": {"type": "integer"}}
                    }}}})),
                    "404": error_response("No such generation")
                }
            }), std::slice::from_ref(&agent))},
            "/v1/agents/{agent}/verify": {"post": op(json!({
                "operationId": "verify", "summary": "Check every kept generation and blob",
                "responses": {"200": json_response("Report", json!({"type": "object", "required": ["ok", "damaged"], "properties": {"ok": {"type": "boolean"}, "damaged": {"type": "array", "items": {"type": "string"}}}}))}
            }), std::slice::from_ref(&agent))}
        },
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {
                "Error": {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}},
                "Health": {"type": "object", "required": ["status", "version", "backend", "sessions"], "properties": {
                    "status": {"type": "string"}, "version": {"type": "string"}, "backend": {"type": "string"}, "sessions": {"type": "integer"}
                }},
                "Created": {"type": "object", "required": ["session", "agent"], "properties": {"session": {"type": "string"}, "agent": {"type": "string"}}},
                "SessionState": {"type": "object", "required": ["session", "generation"], "properties": {
                    "session": {"type": "string"}, "parked": {"type": "boolean"}, "completed": {"type": "boolean"},
                    "generation": {"type": "string", "nullable": true},
                    "warning": {"type": "string", "description": "Set when the store did not answer after the park: the workspace is kept in the worker's spool and uploaded when it answers."}
                }},
                "RunRequest": {"type": "object", "required": ["command"], "additionalProperties": false, "properties": {
                    "command": {"type": "string", "description": "The script, as for bash -c."},
                    "timeout_ms": {"type": "integer", "nullable": true, "minimum": 1, "maximum": 3_600_000},
                    "stdin": {"type": "string", "nullable": true},
                    "detach": {"type": "boolean", "nullable": true, "description": "Let the run go on when the client disconnects (default: a client that goes away cancels its run)."}
                }},
                "RunResult": {"type": "object", "required": ["stdout", "stderr", "exit_code", "truncated", "timed_out"], "properties": {
                    "stdout": {"type": "string"}, "stderr": {"type": "string"}, "exit_code": {"type": "integer"},
                    "truncated": {"type": "boolean"}, "timed_out": {"type": "boolean"}
                }},
                "MindlogAppend": {"type": "object", "required": ["text"], "additionalProperties": false, "properties": {
                    "kind": {"type": "string", "nullable": true, "enum": ["woke", "heard", "thought", "said", "did", "note", null], "description": "Default (or null): note."},
                    "text": {"type": "string", "pattern": NOT_BLANK_PATTERN, "description": "Trimmed when stored; blank text is refused."},
                    "session": {"type": "string", "nullable": true}
                }},
                "MindlogEntry": {"type": "object", "required": ["id", "at", "kind", "text"], "properties": {
                    "id": {"type": "string"}, "at": {"type": "string"}, "kind": {"type": "string"}, "text": {"type": "string"},
                    "sessionId": {"type": "string", "nullable": true}, "generation": {"type": "string"}
                }},
                "Generation": {"type": "object", "required": ["id", "seq", "parents", "created", "added", "modified", "deleted", "bytes_new"], "properties": {
                    "id": {"type": "string"}, "seq": {"type": "integer"},
                    "parents": {"type": "array", "items": {"type": "string"}},
                    "session": {"type": "string", "nullable": true}, "created": {"type": "integer"},
                    "added": {"type": "integer"}, "modified": {"type": "integer"}, "deleted": {"type": "integer"},
                    "bytes_new": {"type": "integer"}, "note": {"type": "string", "nullable": true}
                }},
                "FileEntry": {"type": "object", "required": ["path", "kind", "mode", "size", "mtime"], "properties": {
                    "path": {"type": "string"}, "kind": {"type": "string", "enum": ["file", "dir", "symlink"]},
                    "mode": {"type": "integer"}, "size": {"type": "integer"}, "mtime": {"type": "integer"}
                }}
            }
        }
    })
}
