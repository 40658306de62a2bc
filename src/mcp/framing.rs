//! Newline-delimited JSON-RPC framing in front of rmcp's stdio transport:
//! a line that is not JSON gets a JSON-RPC parse error (-32700, id null)
//! instead of being dropped, and the server keeps serving. Both the
//! server's responses and these errors go out through one writer, a whole
//! line at a time, so they never interleave.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;

const PARSE_ERROR: &str = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: not a JSON message"}}"#;

/// Wraps `input`/`output`: returns the pair rmcp should use.
pub fn frame(
    input: impl AsyncRead + Unpin + Send + 'static,
    output: impl AsyncWrite + Unpin + Send + 'static,
) -> (DuplexStream, DuplexStream) {
    let (server_in, mut feed) = tokio::io::duplex(1 << 16);
    let (server_out, responses) = tokio::io::duplex(1 << 16);
    let (errors_tx, mut errors_rx) = mpsc::unbounded_channel::<String>();

    tokio::spawn(async move {
        let mut lines = BufReader::new(input).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if line.trim().is_empty() {
                continue;
            }
            if serde_json::from_str::<serde_json::Value>(&line).is_err() {
                let _ = errors_tx.send(PARSE_ERROR.to_string());
                continue;
            }
            if feed.write_all(line.as_bytes()).await.is_err()
                || feed.write_all(b"\n").await.is_err()
            {
                break;
            }
        }
        // Dropping `feed` is the end of input for the server.
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
