//! The routes of `sandkeep serve` and their handlers: sessions (create, run,
//! files, park, complete), the mindlog, the workspace generations, health,
//! the OpenAPI document and MCP. Every error is a JSON body `{"error": ...}`
//! with a status; nothing a caller sends can make a handler panic.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, Query, Request, State as AxState};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::State;
use super::auth::{Caller, Grant};
use super::parked;
use super::sessions;
use super::sessions::{Refusal, Slot};
use crate::mindlog::Kind as LogKind;
use crate::runtime::validate_agent;
use crate::sandbox::{OutputSink, RunCancel, RunRequest, RunResult, SandboxError};
use crate::session::SessionError;
use crate::store::{Generations, Kind, Record, StoreError};

type St = AxState<Arc<State>>;

/// Longest `timeout_ms` a run may ask for (one hour).
const MAX_TIMEOUT_MS: u64 = 3_600_000;

/// An error response: a status and a message, as `{"error": message}`.
#[derive(Debug)]
pub(crate) struct ApiError {
    status: StatusCode,
    message: String,
    retry_after: Option<u64>,
}

impl ApiError {
    fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            retry_after: None,
        }
    }

    fn bad(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    fn forbidden() -> ApiError {
        ApiError::new(
            StatusCode::FORBIDDEN,
            "forbidden: this token does not grant that agent or session",
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response =
            (self.status, axum::Json(json!({ "error": self.message }))).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        if let Some(secs) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response
    }
}

impl From<SessionError> for ApiError {
    fn from(e: SessionError) -> ApiError {
        match e {
            SessionError::Sandbox(SandboxError::Path { .. }) => ApiError::bad(e.to_string()),
            SessionError::Ended(_) => ApiError::new(StatusCode::GONE, e.to_string()),
            _ => ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        }
    }
}

impl From<SandboxError> for ApiError {
    fn from(e: SandboxError) -> ApiError {
        match e {
            SandboxError::Path { .. } => ApiError::bad(e.to_string()),
            _ => ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            StoreError::NoGeneration(_) | StoreError::Empty => {
                ApiError::new(StatusCode::NOT_FOUND, e.to_string())
            }
            StoreError::Ambiguous(_) | StoreError::BadArchive(_) => ApiError::bad(e.to_string()),
            _ => ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        }
    }
}

type ApiResult<T> = Result<T, ApiError>;

pub(crate) fn router(state: Arc<State>) -> Router {
    let max_body = state.config.max_body;
    let router = Router::new()
        .route("/v1/health", get(health))
        .route("/v1/openapi.json", get(openapi))
        .route("/v1/agents/{agent}/sessions", post(create_session))
        .route("/v1/sessions/{id}", axum::routing::delete(complete_session))
        .route("/v1/sessions/{id}/run", post(run))
        .route("/v1/sessions/{id}/park", post(park))
        .route(
            "/v1/sessions/{id}/files/{*path}",
            get(read_file).put(write_file).delete(remove_file),
        )
        .route(
            "/v1/agents/{agent}/mindlog",
            get(mindlog_read).post(mindlog_append),
        )
        .route("/v1/agents/{agent}/generations", get(generations_log))
        .route(
            "/v1/agents/{agent}/generations/{generation}",
            get(generation_show),
        )
        .route(
            "/v1/agents/{agent}/generations/{generation}/files/{*path}",
            get(generation_file),
        )
        .route(
            "/v1/agents/{agent}/generations/{generation}/checkout",
            post(generation_checkout),
        )
        .route("/v1/agents/{agent}/diff", get(generations_diff))
        .route("/v1/agents/{agent}/verify", post(generations_verify))
        .route("/mcp/{agent}", any(mcp))
        .fallback(not_found);
    // Outermost first on the way in: the loopback guard, then the JSON
    // shape of every error, then the body limit.
    let router = router
        .layer(DefaultBodyLimit::max(max_body))
        .layer(axum::middleware::from_fn(json_errors));
    let router = if state.config.tokens.is_none() {
        router.layer(axum::middleware::from_fn(super::guard::loopback_only))
    } else {
        router
    };
    router.with_state(state)
}

/// Gives every error response a JSON body `{"error": ...}`, those the
/// handlers did not shape themselves included (axum's rejections: a 405,
/// a 413 past the body limit, a path that does not decode), keeping their
/// status and headers (`Allow`, `Retry-After`).
async fn json_errors(request: Request, next: axum::middleware::Next) -> Response {
    let response = next.run(request).await;
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("application/json"));
    if is_json {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 64 << 10)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    let message = if text.is_empty() {
        status
            .canonical_reason()
            .unwrap_or("error")
            .to_ascii_lowercase()
    } else {
        text
    };
    let mut out = (status, axum::Json(json!({ "error": message }))).into_response();
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            out.headers_mut().insert(name.clone(), value.clone());
        }
    }
    out
}

async fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "no such route")
}

// ---- auth -------------------------------------------------------------

/// The caller a request's bearer token names; 401 without a valid one.
fn caller(state: &State, headers: &HeaderMap) -> ApiResult<Caller> {
    let Some(tokens) = &state.config.tokens else {
        return Ok(Caller::open());
    };
    let presented = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim);
    let unauthorized = || {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized: send Authorization: Bearer TOKEN with a token from the token file",
        )
    };
    let presented = presented.ok_or_else(unauthorized)?;
    tokens.lookup(presented).ok_or_else(unauthorized)
}

/// The caller, allowed to touch `agent` (a valid name).
fn caller_for_agent(state: &State, headers: &HeaderMap, agent: &str) -> ApiResult<Caller> {
    let caller = caller(state, headers)?;
    if !caller.grant.allows(agent) {
        return Err(ApiError::forbidden());
    }
    validate_agent(agent).map_err(|e| ApiError::bad(e.to_string()))?;
    Ok(caller)
}

/// The session `id`, if the caller may touch it. A caller limited to some
/// agents gets the same 403 for another agent's session as for an id that
/// does not exist, so ids reveal nothing. A session this worker does not
/// hold is taken over when the store has its record (it was parked by a
/// worker sharing the store, or by this one before a restart) and the
/// caller is the token that created it.
async fn slot_for(state: &State, headers: &HeaderMap, id: &str) -> ApiResult<Arc<Slot>> {
    let caller = caller(state, headers)?;
    // An MCP session's slot is not a REST session.
    let slot = match state.sessions.get(id) {
        Some(slot) => Some(slot),
        None => adopt(state, &caller, id).await?,
    };
    match slot.filter(|s| s.mcp.is_none()) {
        Some(slot) if caller.grant.allows(&slot.agent) => {
            slot.touch();
            Ok(slot)
        }
        None if caller.grant == Grant::All => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "no such session on this worker (it was completed, expired, or lives on another worker)",
        )),
        _ => Err(ApiError::forbidden()),
    }
}

/// Takes over parked session `id` from its record in the store, when there
/// is one and `caller` created it; its record is removed, so it is live on
/// this worker only.
async fn adopt(state: &State, caller: &Caller, id: &str) -> ApiResult<Option<Arc<Slot>>> {
    let Some(agent) = parked::agent_of(id) else {
        return Ok(None);
    };
    if !caller.grant.allows(agent) {
        return Ok(None);
    }
    let record = match parked::read(&state.runtime, id, agent).await {
        Ok(Some(record)) if record.token == caller.token && record.agent == agent => record,
        Ok(_) => return Ok(None),
        Err(e) => {
            tracing::warn!("session {id}: its record was not read: {e}");
            return Ok(None);
        }
    };
    let config = &state.config;
    let slot = state
        .sessions
        .adopt(
            id,
            agent,
            caller.token,
            config.max_sessions,
            config.max_sessions_per_token,
            record.shell,
        )
        .map_err(|refusal| too_many(state, refusal))?;
    if let Err(e) = parked::remove(&state.runtime, id, agent).await {
        tracing::warn!("session {id}: its record was not removed at resume: {e}");
    }
    tracing::info!(
        "session {id} of agent {agent} resumed from its record (parked at generation {})",
        record.base.as_deref().unwrap_or("none")
    );
    Ok(Some(slot))
}

fn parse_json<T: DeserializeOwned>(body: &Bytes) -> ApiResult<T> {
    serde_json::from_slice(body).map_err(|e| ApiError::bad(format!("invalid JSON body: {e}")))
}

// ---- health, openapi ----------------------------------------------------

async fn health(AxState(state): St) -> Response {
    axum::Json(json!({
        "status": "ok",
        "version": env!("CARGO_PKG_VERSION"),
        "backend": state.runtime.backend().kind().to_string(),
        "sessions": state.sessions.len(),
    }))
    .into_response()
}

async fn openapi() -> Response {
    axum::Json(super::openapi::document()).into_response()
}

// ---- sessions -------------------------------------------------------------

async fn create_session(
    AxState(state): St,
    headers: HeaderMap,
    Path(agent): Path<String>,
) -> ApiResult<Response> {
    let caller = caller_for_agent(&state, &headers, &agent)?;
    let config = &state.config;
    let slot = state
        .sessions
        .open(
            &agent,
            caller.token,
            config.max_sessions,
            config.max_sessions_per_token,
        )
        .map_err(|refusal| too_many(&state, refusal))?;
    // Start now: the workspace is restored and a sandbox that cannot be
    // created is reported here, not at the first run.
    let started = {
        let mut live = slot.live.lock().await;
        live.resume(&state.runtime, &agent).await.map(|_| ())
    };
    if let Err(e) = started {
        state.sessions.remove(&slot.id);
        return Err(e.into());
    }
    tracing::info!("session {} opened for agent {agent}", slot.id);
    Ok((
        StatusCode::CREATED,
        axum::Json(json!({ "session": slot.id, "agent": agent })),
    )
        .into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RunBody {
    command: String,
    timeout_ms: Option<u64>,
    stdin: Option<String>,
    /// Let the run go on when the client goes away (default: it is
    /// cancelled).
    detach: Option<bool>,
}

fn run_json(r: &RunResult) -> Value {
    json!({
        "stdout": r.stdout_text(),
        "stderr": r.stderr_text(),
        "exit_code": r.exit_code,
        "truncated": r.truncated,
        "timed_out": r.timed_out,
    })
}

/// The header that makes a retried run return the first one's result.
const IDEMPOTENCY_KEY: &str = "idempotency-key";

/// The `Idempotency-Key` of a request, if it sent one: 1 to 255 visible
/// ASCII characters.
fn idempotency_key(headers: &HeaderMap) -> ApiResult<Option<String>> {
    let Some(value) = headers.get(IDEMPOTENCY_KEY) else {
        return Ok(None);
    };
    match value.to_str() {
        Ok(key) if (1..=255).contains(&key.len()) && key.bytes().all(|b| b.is_ascii_graphic()) => {
            Ok(Some(key.to_string()))
        }
        _ => Err(ApiError::bad(
            "Idempotency-Key must be 1 to 255 visible ASCII characters",
        )),
    }
}

/// Cancels a run when dropped while armed: the client that asked for it
/// went away before its end (a JSON client's request dropped, an SSE
/// client's stream dropped or overflowed).
struct CancelOnDrop(Option<RunCancel>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(cancel) = self.0.take()
            && !cancel.is_cancelled()
        {
            tracing::info!("a run's client went away: run cancelled");
            cancel.cancel();
        }
    }
}

/// The SSE events of an ended run: its output, then `exit` (or `error`).
fn exit_event(outcome: &sessions::RunOutcome) -> Event {
    match outcome {
        Ok(r) => Event::default().event("exit").data(
            json!({
                "exit_code": r.exit_code,
                "truncated": r.truncated,
                "timed_out": r.timed_out,
            })
            .to_string(),
        ),
        Err((status, message)) => Event::default()
            .event("error")
            .data(json!({ "error": message, "status": status.as_u16() }).to_string()),
    }
}

/// The answer to a run: JSON, or (when `stream`) SSE events from `buffer`.
fn answer(outcome: &sessions::RunOutcome) -> ApiResult<Response> {
    match outcome {
        Ok(result) => Ok(axum::Json(run_json(result)).into_response()),
        Err((status, message)) => Err(ApiError::new(*status, message.clone())),
    }
}

fn sse_of(buffer: Arc<StreamBuffer>, guard: CancelOnDrop) -> Response {
    let stream = futures_util::stream::unfold((buffer, guard), |(buffer, mut guard)| async move {
        let Some(event) = buffer.next().await else {
            if buffer.ended() {
                // Every event out, the run's own end the last: nothing to
                // cancel.
                guard.disarm();
            }
            return None;
        };
        Some((Ok::<Event, Infallible>(event), (buffer, guard)))
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

async fn run(
    AxState(state): St,
    headers: HeaderMap,
    Path(id): Path<String>,
    raw: Bytes,
) -> ApiResult<Response> {
    let slot = slot_for(&state, &headers, &id).await?;
    let body: RunBody = parse_json(&raw)?;
    let key = idempotency_key(&headers)?;
    let mut request = RunRequest::new(body.command);
    if let Some(ms) = body.timeout_ms {
        if !(1..=MAX_TIMEOUT_MS).contains(&ms) {
            return Err(ApiError::bad(format!(
                "timeout_ms must be between 1 and {MAX_TIMEOUT_MS}"
            )));
        }
        request.timeout = Some(Duration::from_millis(ms));
    }
    request.stdin = body.stdin.unwrap_or_default().into_bytes();
    let wants_stream = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/event-stream"));

    // A retry of a run under the same key gets the first one's outcome,
    // waiting for it while it runs.
    let mut record = None;
    if let Some(key) = &key {
        let claim = slot
            .runs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .claim(key, &raw);
        match claim {
            sessions::Claim::Known(known) => {
                if known.body != raw.as_ref() {
                    return Err(ApiError::new(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        "this Idempotency-Key was used for another request in this session",
                    ));
                }
                let mut watch = known.outcome;
                let outcome = watch
                    .wait_for(Option::is_some)
                    .await
                    .map_err(|_| {
                        ApiError::new(
                            StatusCode::INTERNAL_SERVER_ERROR,
                            "the first run under this Idempotency-Key was lost",
                        )
                    })?
                    .clone()
                    .expect("waited for it");
                if !wants_stream {
                    return answer(&outcome);
                }
                let buffer = Arc::new(StreamBuffer::default());
                if let Ok(r) = &*outcome {
                    buffer.push("stdout", &r.stdout);
                    buffer.push("stderr", &r.stderr);
                }
                buffer.finish(exit_event(&outcome));
                return Ok(sse_of(buffer, CancelOnDrop(None)));
            }
            sessions::Claim::New(tx) => record = Some(tx),
        }
    }

    // A client that goes away cancels its run unless it asked to detach, or
    // named it with a key (it means to come back for the result).
    let cancel = RunCancel::new();
    request.cancel = Some(cancel.clone());
    let guard = CancelOnDrop((!body.detach.unwrap_or(false) && key.is_none()).then_some(cancel));
    let buffer = wants_stream.then(|| Arc::new(StreamBuffer::default()));
    if let Some(buffer) = &buffer {
        request.sink = Some(Arc::new(BufferSink(buffer.clone())));
    }
    // The run is a task of its own, holding the session's lock to its end
    // whatever becomes of this request: runs of one session never overlap.
    let ending = buffer.clone();
    let task = tokio::spawn(async move {
        let outcome = run_in(&state, &slot, request)
            .await
            .map_err(|e| (e.status, e.message));
        if let Some(buffer) = ending {
            buffer.finish(exit_event(&outcome));
        }
        let outcome = Arc::new(outcome);
        if let Some(tx) = record {
            let _ = tx.send(Some(outcome.clone()));
        }
        outcome
    });
    match buffer {
        Some(buffer) => Ok(sse_of(buffer, guard)),
        None => {
            let mut guard = guard;
            let outcome = task
                .await
                .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
            guard.disarm();
            answer(&outcome)
        }
    }
}

impl CancelOnDrop {
    /// The run ended with its client still there.
    fn disarm(&mut self) {
        self.0 = None;
    }
}

/// Bytes of output a streaming client may leave unread before it is
/// dropped.
const STREAM_BUFFER: usize = 4 << 20;

/// Output waiting for a streaming client. Chunks of one stream in a row are
/// coalesced into one event, so a slow reader gets fewer, larger events
/// rather than a queue of one-byte ones; a client that leaves more than
/// [`STREAM_BUFFER`] bytes unread is dropped with an `error` event, and the
/// queue with it (its run is cancelled, unless it asked to `detach`).
#[derive(Default)]
struct StreamBuffer {
    state: std::sync::Mutex<Buffered>,
    wake: tokio::sync::Notify,
}

#[derive(Default)]
struct Buffered {
    chunks: std::collections::VecDeque<(&'static str, Vec<u8>)>,
    bytes: usize,
    overflowed: bool,
    end: Option<Event>,
    done: bool,
    /// The run's own end went out (not an overflow's error).
    ended: bool,
}

impl StreamBuffer {
    fn lock(&self) -> std::sync::MutexGuard<'_, Buffered> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn push(&self, stream: &'static str, chunk: &[u8]) {
        let mut b = self.lock();
        if b.overflowed || chunk.is_empty() {
            return;
        }
        b.bytes += chunk.len();
        if b.bytes > STREAM_BUFFER {
            b.overflowed = true;
            b.chunks.clear();
        } else {
            match b.chunks.back_mut() {
                Some((s, data)) if *s == stream => data.extend_from_slice(chunk),
                _ => b.chunks.push_back((stream, chunk.to_vec())),
            }
        }
        drop(b);
        self.wake.notify_one();
    }

    /// True once the run's own end went out to the client.
    fn ended(&self) -> bool {
        self.lock().ended
    }

    fn finish(&self, event: Event) {
        self.lock().end = Some(event);
        self.wake.notify_one();
    }

    /// The next event for the client; `None` once the stream is over.
    async fn next(&self) -> Option<Event> {
        loop {
            {
                let mut b = self.lock();
                if b.done {
                    return None;
                }
                if b.overflowed {
                    b.done = true;
                    let message = format!(
                        "the client left more than {STREAM_BUFFER} bytes of output unread; its stream was dropped"
                    );
                    return Some(
                        Event::default()
                            .event("error")
                            .data(json!({ "error": message, "status": 429 }).to_string()),
                    );
                }
                if let Some((stream, data)) = b.chunks.pop_front() {
                    b.bytes -= data.len();
                    let text = json!({ "data": String::from_utf8_lossy(&data) }).to_string();
                    return Some(Event::default().event(stream).data(text));
                }
                if let Some(end) = b.end.take() {
                    b.done = true;
                    b.ended = true;
                    return Some(end);
                }
            }
            self.wake.notified().await;
        }
    }
}

/// Feeds a run's output into a [`StreamBuffer`].
struct BufferSink(Arc<StreamBuffer>);

impl OutputSink for BufferSink {
    fn stdout(&self, chunk: &[u8]) {
        self.0.push("stdout", chunk);
    }
    fn stderr(&self, chunk: &[u8]) {
        self.0.push("stderr", chunk);
    }
}

/// Runs one command in the session (resuming it if parked); the turn stays
/// open until the session is parked or completed.
async fn run_in(state: &State, slot: &Slot, request: RunRequest) -> ApiResult<RunResult> {
    let mut live = slot.live.lock().await;
    let session = live.resume(&state.runtime, &slot.agent).await?;
    let result = session.run(request).await;
    live.mark_turn_open();
    slot.touch();
    Ok(result?)
}

async fn head_id(state: &State, agent: &str) -> ApiResult<Option<String>> {
    let gens = generations(state, agent)?;
    blocking(move || Ok(gens.store().head()?.map(|id| id.0))).await
}

/// The answer to a park or a completion that succeeded: the head it left.
/// A store that does not answer now does not undo the park (it was kept in
/// the store, or in this worker's spool when the store did not answer
/// then): the generation is `null` and a `warning` says why.
async fn kept_json(state: &State, slot: &Slot, done: &str) -> Value {
    let mut body = json!({ "session": slot.id, done: true });
    match head_id(state, &slot.agent).await {
        Ok(generation) => body["generation"] = json!(generation),
        Err(e) => {
            body["generation"] = Value::Null;
            body["warning"] = json!(format!(
                "the store did not answer ({}); the workspace is kept, in this worker's spool if the store did not take it, and uploaded when the store answers",
                e.message
            ));
        }
    }
    body
}

async fn park(
    AxState(state): St,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let slot = slot_for(&state, &headers, &id).await?;
    let mut live = slot.live.lock().await;
    state.park_slot(&slot, &mut live).await?;
    drop(live);
    Ok(axum::Json(kept_json(&state, &slot, "parked").await).into_response())
}

async fn complete_session(
    AxState(state): St,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let slot = slot_for(&state, &headers, &id).await?;
    let mut live = slot.live.lock().await;
    live.park().await?;
    state.forget_slot(&slot).await;
    drop(live);
    tracing::info!("session {} completed", slot.id);
    Ok(axum::Json(kept_json(&state, &slot, "completed").await).into_response())
}

// ---- files ------------------------------------------------------------------

/// A workspace path from the URL: relative to /workspace, no `..`.
///
/// Refused with 400, as Linux would refuse them (and so no sandbox holds a
/// file that a park could not keep): a NUL byte, a component longer than
/// `NAME_MAX` (255 bytes), a path longer than `PATH_MAX` (4,096 bytes).
fn workspace_path(path: &str) -> ApiResult<String> {
    let trimmed = path.trim_start_matches('/');
    if trimmed.is_empty() || trimmed.split('/').any(|c| c == "..") {
        return Err(ApiError::bad(format!(
            "{path}: give a path inside /workspace, without '..'"
        )));
    }
    if trimmed.contains('\0') {
        return Err(ApiError::bad(
            "the path holds a NUL byte, which no file name can".to_string(),
        ));
    }
    if "/workspace/".len() + trimmed.len() >= PATH_MAX {
        return Err(ApiError::bad(format!(
            "the path is {} bytes long: File name too long (the limit is {PATH_MAX} with /workspace/)",
            trimmed.len()
        )));
    }
    if let Some(long) = trimmed.split('/').find(|c| c.len() > NAME_MAX) {
        return Err(ApiError::bad(format!(
            "a path component is {} bytes long: File name too long (the limit is {NAME_MAX})",
            long.len()
        )));
    }
    Ok(trimmed.to_string())
}

/// Linux's longest path, terminating NUL included.
const PATH_MAX: usize = 4096;
/// Linux's longest path component.
const NAME_MAX: usize = 255;

async fn read_file(
    AxState(state): St,
    headers: HeaderMap,
    Path((id, path)): Path<(String, String)>,
) -> ApiResult<Response> {
    let slot = slot_for(&state, &headers, &id).await?;
    let path = workspace_path(&path)?;
    let mut live = slot.live.lock().await;
    let session = live.resume(&state.runtime, &slot.agent).await?;
    let sandbox = session
        .sandbox()
        .cloned()
        .ok_or_else(|| ApiError::new(StatusCode::GONE, "the session has no sandbox"))?;
    match sandbox.read_file(&path).await? {
        Some(bytes) => {
            Ok(([(header::CONTENT_TYPE, "application/octet-stream")], bytes).into_response())
        }
        None => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("{path}: No such file or directory"),
        )),
    }
}

async fn write_file(
    AxState(state): St,
    headers: HeaderMap,
    Path((id, path)): Path<(String, String)>,
    body: Bytes,
) -> ApiResult<Response> {
    let slot = slot_for(&state, &headers, &id).await?;
    let path = workspace_path(&path)?;
    let mut live = slot.live.lock().await;
    let session = live.open_turn(&state.runtime, &slot.agent).await?;
    let sandbox = session
        .sandbox()
        .cloned()
        .ok_or_else(|| ApiError::new(StatusCode::GONE, "the session has no sandbox"))?;
    sandbox.write_file(&path, &body).await?;
    Ok(axum::Json(json!({ "path": path, "bytes": body.len() })).into_response())
}

async fn remove_file(
    AxState(state): St,
    headers: HeaderMap,
    Path((id, path)): Path<(String, String)>,
) -> ApiResult<Response> {
    let slot = slot_for(&state, &headers, &id).await?;
    let path = workspace_path(&path)?;
    let mut live = slot.live.lock().await;
    let session = live.open_turn(&state.runtime, &slot.agent).await?;
    let sandbox = session
        .sandbox()
        .cloned()
        .ok_or_else(|| ApiError::new(StatusCode::GONE, "the session has no sandbox"))?;
    sandbox.remove_path(&path).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

// ---- mindlog ----------------------------------------------------------------

#[derive(Deserialize)]
struct MindlogQuery {
    limit: Option<usize>,
    query: Option<String>,
    before: Option<String>,
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> ApiResult<T> + Send + 'static,
) -> ApiResult<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
}

async fn mindlog_read(
    AxState(state): St,
    headers: HeaderMap,
    Path(agent): Path<String>,
    query: Result<Query<MindlogQuery>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Response> {
    caller_for_agent(&state, &headers, &agent)?;
    let Query(q) = query.map_err(|e| ApiError::bad(e.body_text()))?;
    let limit = q.limit.unwrap_or(20);
    if !(1..=10_000).contains(&limit) {
        return Err(ApiError::bad("limit must be between 1 and 10000"));
    }
    let log = state
        .runtime
        .mindlog(&agent)
        .map_err(|e| ApiError::bad(e.to_string()))?;
    let entries = blocking(move || {
        let found = match &q.query {
            Some(text) => log.search(text, limit),
            None => log.read(limit, q.before.as_deref()),
        };
        found.map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
    })
    .await?;
    Ok(axum::Json(json!({ "entries": entries })).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AppendBody {
    kind: Option<String>,
    text: String,
    session: Option<String>,
}

async fn mindlog_append(
    AxState(state): St,
    headers: HeaderMap,
    Path(agent): Path<String>,
    body: Bytes,
) -> ApiResult<Response> {
    caller_for_agent(&state, &headers, &agent)?;
    let body: AppendBody = parse_json(&body)?;
    let kind: LogKind = body
        .kind
        .as_deref()
        .unwrap_or("note")
        .parse()
        .map_err(|e: crate::mindlog::MindlogError| ApiError::bad(e.to_string()))?;
    let log = state
        .runtime
        .mindlog(&agent)
        .map_err(|e| ApiError::bad(e.to_string()))?;
    let entry = blocking(move || {
        log.append(kind, &body.text, body.session.as_deref())
            .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
    })
    .await?
    .ok_or_else(|| ApiError::bad("blank text: nothing appended"))?;
    Ok((StatusCode::CREATED, axum::Json(entry)).into_response())
}

// ---- generations ------------------------------------------------------------

fn generations(state: &State, agent: &str) -> ApiResult<Generations> {
    state
        .runtime
        .generations(agent)
        .map_err(|e| ApiError::bad(e.to_string()))
}

fn record_json(r: &Record) -> Value {
    json!({
        "id": r.id,
        "seq": r.seq,
        "parents": r.parents,
        "session": r.session,
        "created": r.created,
        "added": r.stats.added,
        "modified": r.stats.modified,
        "deleted": r.stats.deleted,
        "bytes_new": r.stats.bytes_new,
        "note": r.note,
    })
}

#[derive(Deserialize)]
struct LogQuery {
    limit: Option<usize>,
}

async fn generations_log(
    AxState(state): St,
    headers: HeaderMap,
    Path(agent): Path<String>,
    query: Result<Query<LogQuery>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Response> {
    caller_for_agent(&state, &headers, &agent)?;
    let Query(q) = query.map_err(|e| ApiError::bad(e.body_text()))?;
    let limit = q.limit.unwrap_or(20);
    if !(1..=10_000).contains(&limit) {
        return Err(ApiError::bad("limit must be between 1 and 10000"));
    }
    let gens = generations(&state, &agent)?;
    let log = blocking(move || Ok(gens.log(limit)?)).await?;
    let list: Vec<Value> = log.iter().map(record_json).collect();
    Ok(axum::Json(json!({ "generations": list })).into_response())
}

async fn generation_show(
    AxState(state): St,
    headers: HeaderMap,
    Path((agent, generation)): Path<(String, String)>,
) -> ApiResult<Response> {
    caller_for_agent(&state, &headers, &agent)?;
    let gens = generations(&state, &agent)?;
    let body = blocking(move || {
        let id = gens.resolve(&generation)?;
        let record = gens.record(&id)?;
        let manifest = gens.manifest(&id)?;
        let files: Vec<Value> = manifest
            .entries
            .iter()
            .map(|(path, e)| {
                json!({
                    "path": path,
                    "kind": match e.kind { Kind::File => "file", Kind::Dir => "dir", Kind::Symlink => "symlink" },
                    "mode": e.mode,
                    "size": e.size,
                    "mtime": e.mtime,
                })
            })
            .collect();
        let mut v = record_json(&record);
        v["files"] = Value::Array(files);
        Ok(v)
    })
    .await?;
    Ok(axum::Json(body).into_response())
}

async fn generation_file(
    AxState(state): St,
    headers: HeaderMap,
    Path((agent, generation, path)): Path<(String, String, String)>,
) -> ApiResult<Response> {
    caller_for_agent(&state, &headers, &agent)?;
    let path = workspace_path(&path)?;
    let gens = generations(&state, &agent)?;
    let bytes = blocking(move || {
        let id = gens.resolve(&generation)?;
        let tree = gens.manifest(&id)?;
        let entry = tree.entries.get(&path).ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                format!("generation {id} has no {path}"),
            )
        })?;
        match (entry.kind, entry.hash) {
            (Kind::File, Some(h)) => Ok(gens.store().read_blob(&h)?),
            (Kind::Symlink, _) => Ok(entry.link.clone().unwrap_or_default().into_bytes()),
            _ => Err(ApiError::bad(format!(
                "{path} is a directory in generation {id}"
            ))),
        }
    })
    .await?;
    Ok(([(header::CONTENT_TYPE, "application/octet-stream")], bytes).into_response())
}

async fn generation_checkout(
    AxState(state): St,
    headers: HeaderMap,
    Path((agent, generation)): Path<(String, String)>,
) -> ApiResult<Response> {
    caller_for_agent(&state, &headers, &agent)?;
    let gens = generations(&state, &agent)?;
    let record = blocking(move || {
        let id = gens.resolve(&generation)?;
        Ok(gens.checkout(&id)?.record)
    })
    .await?;
    Ok(axum::Json(record_json(&record)).into_response())
}

#[derive(Deserialize)]
struct DiffQuery {
    from: Option<String>,
    to: Option<String>,
}

async fn generations_diff(
    AxState(state): St,
    headers: HeaderMap,
    Path(agent): Path<String>,
    query: Result<Query<DiffQuery>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Response> {
    caller_for_agent(&state, &headers, &agent)?;
    let Query(q) = query.map_err(|e| ApiError::bad(e.body_text()))?;
    let gens = generations(&state, &agent)?;
    let changes = blocking(move || {
        let from = gens.resolve(q.from.as_deref().unwrap_or("HEAD~1"))?;
        let to = gens.resolve(q.to.as_deref().unwrap_or("HEAD"))?;
        let changes = gens.manifest(&from)?.diff(&*gens.manifest(&to)?);
        Ok(changes
            .iter()
            .filter(|c| c.entry_kind != Kind::Dir)
            .map(|c| json!({ "change": c.kind.letter().to_string(), "path": c.path, "size": c.size }))
            .collect::<Vec<_>>())
    })
    .await?;
    Ok(axum::Json(json!({ "changes": changes })).into_response())
}

async fn generations_verify(
    AxState(state): St,
    headers: HeaderMap,
    Path(agent): Path<String>,
) -> ApiResult<Response> {
    caller_for_agent(&state, &headers, &agent)?;
    let gens = generations(&state, &agent)?;
    let damaged = blocking(move || Ok(gens.verify()?)).await?;
    Ok(axum::Json(json!({ "ok": damaged.is_empty(), "damaged": damaged })).into_response())
}

// ---- MCP ----------------------------------------------------------------------

/// The 429 of a session past the server's limits.
fn too_many(state: &State, refusal: Refusal) -> ApiError {
    let message = match refusal {
        Refusal::Total(n) => format!("too many sessions on this server (limit {n})"),
        Refusal::PerToken(n) => format!("too many sessions for this token (limit {n})"),
    };
    ApiError {
        status: StatusCode::TOO_MANY_REQUESTS,
        message,
        retry_after: Some(state.config.idle.as_secs().clamp(1, 60)),
    }
}

/// The header naming an MCP session.
const MCP_SESSION: &str = "mcp-session-id";

async fn mcp(
    AxState(state): St,
    Path(agent): Path<String>,
    request: Request,
) -> ApiResult<Response> {
    let caller = caller_for_agent(&state, request.headers(), &agent)?;
    let (service, link) =
        state
            .mcp
            .for_agent(&state.runtime, &agent, state.config.tokens.is_none());
    let named = request
        .headers()
        .get(MCP_SESSION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    if let Some(id) = named {
        if let Some(slot) = state.mcp.slot(&id) {
            if !caller.grant.allows(&slot.agent) {
                return Err(ApiError::forbidden());
            }
            slot.touch();
        }
        return Ok(service.handle(request).await.map(axum::body::Body::new));
    }
    if request.method() != axum::http::Method::POST {
        return Ok(service.handle(request).await.map(axum::body::Body::new));
    }
    // A POST without a session may be an initialize, which makes a session:
    // it takes a place first, given back unless a session was made.
    let config = &state.config;
    let slot = state
        .sessions
        .open_with(
            &agent,
            caller.token,
            config.max_sessions,
            config.max_sessions_per_token,
            Some(link.clone()),
        )
        .map_err(|refusal| too_many(&state, refusal))?;
    let response = state.mcp.handle_new(&service, link.clone(), request).await;
    match response
        .headers()
        .get(MCP_SESSION)
        .and_then(|v| v.to_str().ok())
    {
        Some(id) if link.session_id.set(id.to_string()).is_ok() => {
            tracing::info!("MCP session {} opened for agent {agent}", slot.id);
            state.mcp.register(id.to_string(), slot);
        }
        _ => {
            state.sessions.remove(&slot.id);
        }
    }
    Ok(response)
}
