//! Newline-delimited JSON-RPC framing in front of rmcp's stdio transport:
//! a line that is not JSON (binary garbage, invalid UTF-8) gets a JSON-RPC
//! parse error (-32700), a line that is JSON but no JSON-RPC message an
//! invalid-request error (-32600), and a line longer than [`MAX_MESSAGE`]
//! an error saying so, each carrying the request's id when it can be read
//! (else null); the server keeps serving after every one of them. Both the
//! server's responses and these errors go out through one writer, a whole
//! line at a time, so they never interleave. At end of input the server
//! is told only once every request read has been answered, so a call still
//! running when the client closes its end is not dropped unanswered.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream,
};
use tokio::sync::{Notify, mpsc};

/// Ids of requests read but not answered yet, each with how many requests
/// carry it (a client may reuse an id before its first answer).
#[derive(Default)]
struct Pending {
    ids: Mutex<HashMap<String, usize>>,
    answered: Notify,
}

impl Pending {
    fn ids(&self) -> std::sync::MutexGuard<'_, HashMap<String, usize>> {
        self.ids.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn add(&self, id: String) {
        *self.ids().entry(id).or_default() += 1;
    }

    fn answer(&self, id: &str) {
        let mut ids = self.ids();
        if let Some(n) = ids.get_mut(id) {
            *n -= 1;
            if *n == 0 {
                ids.remove(id);
            }
        }
        drop(ids);
        self.answered.notify_waiters();
    }

    async fn all_answered(&self) {
        loop {
            let notified = self.answered.notified();
            if self.ids().is_empty() {
                return;
            }
            notified.await;
        }
    }
}

/// The longest message read, in bytes without its newline; a longer line
/// is answered with an error and skipped without being kept in memory.
pub const MAX_MESSAGE: usize = 16 << 20;

/// Bytes of an oversized line kept to find its id.
const HEAD_KEPT: usize = 4096;

/// One line of input.
enum Line {
    /// A line up to [`MAX_MESSAGE`] bytes.
    Whole(Vec<u8>),
    /// A longer line: its length and its first bytes.
    TooLong { len: usize, head: Vec<u8> },
}

/// Reads one line, keeping at most [`MAX_MESSAGE`] bytes of it; `None` at
/// end of input.
async fn read_line(input: &mut (impl AsyncBufRead + Unpin)) -> std::io::Result<Option<Line>> {
    let mut buf = Vec::new();
    let mut len = 0usize;
    let mut over = false;
    let mut seen_any = false;
    loop {
        let avail = input.fill_buf().await?;
        if avail.is_empty() {
            if !seen_any {
                return Ok(None);
            }
            break;
        }
        seen_any = true;
        let newline = avail.iter().position(|&b| b == b'\n');
        let chunk = &avail[..newline.unwrap_or(avail.len())];
        len += chunk.len();
        if !over {
            if buf.len() + chunk.len() > MAX_MESSAGE {
                over = true;
                let keep = HEAD_KEPT.saturating_sub(buf.len()).min(chunk.len());
                buf.extend_from_slice(&chunk[..keep]);
                buf.truncate(HEAD_KEPT);
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        let used = newline.map_or(avail.len(), |i| i + 1);
        input.consume(used);
        if newline.is_some() {
            break;
        }
    }
    Ok(Some(if over {
        Line::TooLong { len, head: buf }
    } else {
        Line::Whole(buf)
    }))
}

/// A JSON-RPC error response line.
fn error_line(id: &Value, code: i64, message: &str) -> String {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        .to_string()
}

/// The id of a message that could not be parsed whole, read from its text
/// (`"id": 7` or `"id": "x"`); null when there is none to read.
fn id_in_text(text: &[u8]) -> Value {
    let text = String::from_utf8_lossy(text);
    let Some(at) = text.find("\"id\"") else {
        return Value::Null;
    };
    let rest = text[at + 4..].trim_start();
    let Some(rest) = rest.strip_prefix(':') else {
        return Value::Null;
    };
    let rest = rest.trim_start();
    if let Some(s) = rest.strip_prefix('"') {
        return match s.find('"') {
            Some(end) => Value::String(s[..end].to_string()),
            None => Value::Null,
        };
    }
    let digits: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits
        .parse::<i64>()
        .map(Value::from)
        .unwrap_or(Value::Null)
}

/// What the server answers itself instead of passing a line to rmcp, if
/// anything.
fn refusal(line: &Line) -> Option<String> {
    match line {
        Line::TooLong { len, head } => Some(error_line(
            &id_in_text(head),
            -32600,
            &format!(
                "Invalid request: the message is {len} bytes; the limit is {MAX_MESSAGE} bytes"
            ),
        )),
        Line::Whole(bytes) => {
            let Ok(text) = std::str::from_utf8(bytes) else {
                return Some(error_line(
                    &id_in_text(bytes),
                    -32700,
                    "Parse error: the message is not valid UTF-8",
                ));
            };
            let Ok(message) = serde_json::from_str::<Value>(text) else {
                return Some(error_line(
                    &id_in_text(bytes),
                    -32700,
                    "Parse error: not a JSON message",
                ));
            };
            let id = message
                .get("id")
                .filter(|id| id.is_string() || id.is_number())
                .cloned()
                .unwrap_or(Value::Null);
            let is_message = message.is_object()
                && message.get("jsonrpc") == Some(&Value::from("2.0"))
                && (message.get("method").is_some_and(Value::is_string)
                    || message.get("result").is_some()
                    || message.get("error").is_some());
            (!is_message)
                .then(|| error_line(&id, -32600, "Invalid request: not a JSON-RPC 2.0 message"))
        }
    }
}

/// What to do with a JSON-RPC message that rmcp's own decoder would
/// refuse (an object or boolean `id`, `params` that are a string or miss a
/// field the method needs): rmcp drops such a line without an answer, so a
/// request among them would stay pending for good and end of input would
/// never reach the server. `None` when rmcp reads the message;
/// `Some(Some(line))`: the error to answer (with the request's id when it
/// is one a reply can carry); `Some(None)`: nothing to answer (a
/// notification or a response).
fn undecodable(message: &Value, bytes: &[u8]) -> Option<Option<String>> {
    let decoded = serde_json::from_slice::<rmcp::model::ClientJsonRpcMessage>(bytes);
    let error = decoded.err()?;
    let is_request = message.get("method").is_some();
    let id = message.get("id");
    if !is_request || id.is_none_or(Value::is_null) {
        return Some(None);
    }
    let id = id.expect("checked above");
    if !(id.is_string() || id.is_i64()) {
        return Some(Some(error_line(
            &Value::Null,
            -32600,
            "Invalid request: the id must be a string or an integer",
        )));
    }
    let text = error.to_string();
    // serde's message ends with " at line L column C", which names
    // nothing the client can use.
    let text = text.split(" at line ").next().unwrap_or(&text);
    Some(Some(error_line(
        id,
        -32602,
        &format!("Invalid params: {text}"),
    )))
}

/// Writes one reply line and flushes it; an answer to a pending request
/// takes it off the list. False when the client's end is gone.
async fn send_line(output: &mut (impl AsyncWrite + Unpin), pending: &Pending, line: &str) -> bool {
    if let Ok(reply) = serde_json::from_str::<Value>(line)
        && reply.get("method").is_none()
        && let Some(id) = reply.get("id")
    {
        pending.answer(&id.to_string());
    }
    output.write_all(line.as_bytes()).await.is_ok()
        && output.write_all(b"\n").await.is_ok()
        && output.flush().await.is_ok()
}

/// Writes the server's responses and the refusals to `output`, a line at a
/// time, until the server's output ends or the client's end is gone.
async fn write_replies(
    mut output: impl AsyncWrite + Unpin,
    responses: impl AsyncBufRead + Unpin,
    mut errors: mpsc::UnboundedReceiver<String>,
    pending: Arc<Pending>,
) {
    let mut responses = responses.lines();
    loop {
        let line = tokio::select! {
            biased;
            Some(e) = errors.recv() => e,
            r = responses.next_line() => match r {
                Ok(Some(line)) => line,
                _ => break,
            },
        };
        if !send_line(&mut output, &pending, &line).await {
            return;
        }
    }
    // The server's output ended (end of input, after its last answer):
    // refusals read before that still go out.
    while let Ok(e) = errors.try_recv() {
        if !send_line(&mut output, &pending, &e).await {
            return;
        }
    }
}

/// Wraps `input`/`output`: returns the pair rmcp should use.
pub fn frame(
    input: impl AsyncRead + Unpin + Send + 'static,
    output: impl AsyncWrite + Unpin + Send + 'static,
) -> (DuplexStream, DuplexStream) {
    let (server_in, mut feed) = tokio::io::duplex(1 << 16);
    let (server_out, responses) = tokio::io::duplex(1 << 16);
    let (errors_tx, errors_rx) = mpsc::unbounded_channel::<String>();
    let pending = Arc::new(Pending::default());
    let reader_pending = pending.clone();

    tokio::spawn(async move {
        let mut input = BufReader::new(input);
        while let Ok(Some(line)) = read_line(&mut input).await {
            if let Line::Whole(b) = &line
                && b.iter().all(u8::is_ascii_whitespace)
            {
                continue;
            }
            if let Some(error) = refusal(&line) {
                let _ = errors_tx.send(error);
                continue;
            }
            let Line::Whole(bytes) = line else { continue };
            let Ok(message) = serde_json::from_slice::<Value>(&bytes) else {
                continue;
            };
            match undecodable(&message, &bytes) {
                Some(Some(error)) => {
                    let _ = errors_tx.send(error);
                    continue;
                }
                // A notification or a response rmcp cannot read: no answer
                // is due, and rmcp would only log it.
                Some(None) => continue,
                None => {}
            }
            if message.get("method").is_some()
                && let Some(id) = message.get("id").filter(|id| !id.is_null())
            {
                reader_pending.add(id.to_string());
            }
            if feed.write_all(&bytes).await.is_err() || feed.write_all(b"\n").await.is_err() {
                break;
            }
        }
        // Dropping `feed` is the end of input for the server: first let it
        // answer what it was asked.
        reader_pending.all_answered().await;
    });

    tokio::spawn(write_replies(
        output,
        BufReader::new(responses),
        errors_rx,
        pending,
    ));
    (server_in, server_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A refusal still queued when the server's output ends goes out (it
    /// used to race the end of the output and was lost half the time).
    #[tokio::test]
    async fn a_refusal_queued_at_the_end_of_the_servers_output_goes_out() {
        for _ in 0..100 {
            let (tx, rx) = mpsc::unbounded_channel();
            tx.send(error_line(&Value::from(5), -32600, "Invalid request"))
                .unwrap();
            let mut out = Vec::new();
            write_replies(&mut out, &b""[..], rx, Arc::default()).await;
            let out = String::from_utf8(out).unwrap();
            assert!(out.contains(r#""id":5"#), "{out:?}");
        }
    }
}
