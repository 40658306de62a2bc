//! Newline-delimited JSON-RPC framing in front of rmcp's stdio transport:
//! a line that is not JSON gets a JSON-RPC parse error (-32700, id null)
//! instead of being dropped, and the server keeps serving. Both the
//! server's responses and these errors go out through one writer, a whole
//! line at a time, so they never interleave. At end of input the server
//! is told only once every request read has been answered, so a call still
//! running when the client closes its end is not dropped unanswered.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::{Notify, mpsc};

/// Ids of requests read but not answered yet.
#[derive(Default)]
struct Pending {
    ids: Mutex<HashSet<String>>,
    answered: Notify,
}

impl Pending {
    fn ids(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.ids.lock().unwrap_or_else(|e| e.into_inner())
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

const PARSE_ERROR: &str = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: not a JSON message"}}"#;

/// Wraps `input`/`output`: returns the pair rmcp should use.
pub fn frame(
    input: impl AsyncRead + Unpin + Send + 'static,
    output: impl AsyncWrite + Unpin + Send + 'static,
) -> (DuplexStream, DuplexStream) {
    let (server_in, mut feed) = tokio::io::duplex(1 << 16);
    let (server_out, responses) = tokio::io::duplex(1 << 16);
    let (errors_tx, mut errors_rx) = mpsc::unbounded_channel::<String>();
    let pending = Arc::new(Pending::default());
    let reader_pending = pending.clone();

    tokio::spawn(async move {
        let mut lines = BufReader::new(input).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if line.trim().is_empty() {
                continue;
            }
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                let _ = errors_tx.send(PARSE_ERROR.to_string());
                continue;
            };
            if message.get("method").is_some()
                && let Some(id) = message.get("id").filter(|id| !id.is_null())
            {
                reader_pending.ids().insert(id.to_string());
            }
            if feed.write_all(line.as_bytes()).await.is_err()
                || feed.write_all(b"\n").await.is_err()
            {
                break;
            }
        }
        // Dropping `feed` is the end of input for the server: first let it
        // answer what it was asked.
        reader_pending.all_answered().await;
    });

    tokio::spawn(async move {
        let mut output = output;
        let mut responses = BufReader::new(responses).lines();
        loop {
            let line = tokio::select! {
                r = responses.next_line() => match r {
                    Ok(Some(line)) => line,
                    _ => break,
                },
                Some(e) = errors_rx.recv() => e,
            };
            if let Ok(reply) = serde_json::from_str::<Value>(&line)
                && reply.get("method").is_none()
                && let Some(id) = reply.get("id")
            {
                pending.ids().remove(&id.to_string());
                pending.answered.notify_waiters();
            }
            if output.write_all(line.as_bytes()).await.is_err()
                || output.write_all(b"\n").await.is_err()
                || output.flush().await.is_err()
            {
                break;
            }
        }
    });
    (server_in, server_out)
}
