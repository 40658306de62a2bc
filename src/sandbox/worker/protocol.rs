//! The framed protocol between a session and its worker process, over the
//! worker's stdin and stdout: each frame is a JSON header and a few binary
//! blobs (a run's stdin or output, a file, a tar), length-prefixed:
//!
//! ```text
//! u32 header length | header (JSON) | u32 blob count | (u64 length | bytes)*
//! ```
//!
//! (big-endian). Blobs travel raw, not as JSON, so a 100 MB tar costs
//! 100 MB. Every length is checked against a cap before anything is
//! allocated: a garbled stream is an error, never a huge allocation.

use std::io::{self, Read, Write};

use serde::{Deserialize, Serialize};

/// Largest JSON header accepted.
pub const MAX_HEADER_BYTES: u32 = 16 << 20;
/// Most blobs in one frame.
pub const MAX_BLOBS: u32 = 8;
/// Largest blob accepted (a workspace tar fits: the archive caps are below).
pub const MAX_BLOB_BYTES: u64 = 2 << 30;

/// What the session asks of its worker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// The first request: make the sandbox.
    Create {
        /// The session's id.
        session_id: String,
        /// The agent's name.
        agent: String,
        /// Extra environment for every run.
        env: Vec<(String, String)>,
    },
    /// Run a script; blob 0 is its stdin.
    Run {
        /// The script, as for `bash -c`.
        command: String,
        /// Working directory.
        cwd: Option<String>,
        /// Extra environment.
        env: Vec<(String, String)>,
        /// Wall-clock limit in milliseconds.
        timeout_ms: Option<u64>,
        /// Whether output is streamed back as it comes (`Output` replies).
        stream: bool,
        /// Run apart from the session's shell state.
        #[serde(default)]
        fresh_shell: bool,
    },
    /// A file's first `max` bytes and its size.
    Read {
        /// The path.
        path: String,
        /// Bytes wanted at most.
        max: u64,
    },
    /// Write a file; blob 0 is its content.
    Write {
        /// The path.
        path: String,
    },
    /// Remove a file or tree.
    Remove {
        /// The path.
        path: String,
    },
    /// A tar of the named paths.
    Export {
        /// Paths relative to `/workspace`.
        paths: Vec<String>,
    },
    /// Unpack blob 0 (a tar) into `/workspace`.
    Import,
    /// Every path under `/workspace` (a `Listing` reply).
    List,
    /// Mark the workspace for the next `Changes`.
    Mark,
    /// What changed since the mark: blob 0 the written files' tar, blob 1
    /// the listing in `find -printf` form.
    Changes,
    /// The session's shell state: a `State` reply, blob 0 its snapshot as
    /// JSON (no blob: none).
    ShellState,
    /// Restore the shell state whose snapshot (JSON) is blob 0.
    RestoreShellState,
    /// Stop the sandbox; the worker exits after its reply.
    Stop,
}

/// What the worker answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub enum Reply {
    /// Done, nothing to return.
    Ok,
    /// A chunk of a streamed run's output (blob 0); more replies follow.
    Output {
        /// 1 for stdout, 2 for stderr.
        stream: u8,
    },
    /// A run ended; blobs 0 and 1 are stdout and stderr.
    Ran {
        /// Exit status.
        exit_code: i32,
        /// Output was cut at the limit.
        truncated: bool,
        /// The timeout ended it.
        timed_out: bool,
    },
    /// A file's head (blob 0) and size, or no such file.
    File {
        /// The file's whole size (`None`: it does not exist).
        size: Option<u64>,
    },
    /// A tar (blob 0).
    Tar,
    /// The shell state's snapshot as JSON (blob 0), if there is one.
    State,
    /// A listing in `find -printf` form (blob 0).
    Listing,
    /// Workspace changes: blob 0 the tar of written files, blob 1 the
    /// listing (`None` when the sandbox cannot say).
    Changes {
        /// Whether there is an answer.
        known: bool,
        /// Directories listed (see `WorkspaceChanges`).
        listed_dirs: Vec<String>,
        /// Trees listed whole.
        listed_trees: Vec<String>,
    },
    /// The request failed.
    Error {
        /// `gone`, `path` or `backend`.
        kind: String,
        /// The path, for `path` errors.
        path: String,
        /// What went wrong.
        message: String,
    },
}

/// Writes one frame and flushes it.
pub fn write_frame<W: Write>(
    out: &mut W,
    header: &impl Serialize,
    blobs: &[&[u8]],
) -> io::Result<()> {
    let json = serde_json::to_vec(header).map_err(io::Error::other)?;
    let len = u32::try_from(json.len())
        .ok()
        .filter(|&n| n <= MAX_HEADER_BYTES)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "frame header too large"))?;
    out.write_all(&len.to_be_bytes())?;
    out.write_all(&json)?;
    out.write_all(&(blobs.len() as u32).to_be_bytes())?;
    for blob in blobs {
        out.write_all(&(blob.len() as u64).to_be_bytes())?;
        out.write_all(blob)?;
    }
    out.flush()
}

/// Reads one frame: its header (parsed as `T`) and blobs. `Ok(None)` at a
/// clean end of the stream (before a frame starts).
pub fn read_frame<R: Read, T: for<'de> Deserialize<'de>>(
    input: &mut R,
) -> io::Result<Option<(T, Vec<Vec<u8>>)>> {
    let mut len = [0u8; 4];
    match input.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let bad = |why: String| io::Error::new(io::ErrorKind::InvalidData, why);
    let len = u32::from_be_bytes(len);
    if len > MAX_HEADER_BYTES {
        return Err(bad(format!("frame header of {len} bytes")));
    }
    let mut json = vec![0u8; len as usize];
    input.read_exact(&mut json)?;
    let header: T = serde_json::from_slice(&json).map_err(|e| bad(e.to_string()))?;
    let mut count = [0u8; 4];
    input.read_exact(&mut count)?;
    let count = u32::from_be_bytes(count);
    if count > MAX_BLOBS {
        return Err(bad(format!("{count} blobs in a frame")));
    }
    let mut blobs = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let mut n = [0u8; 8];
        input.read_exact(&mut n)?;
        let n = u64::from_be_bytes(n);
        if n > MAX_BLOB_BYTES {
            return Err(bad(format!("a blob of {n} bytes")));
        }
        let mut blob = Vec::new();
        input.take(n).read_to_end(&mut blob)?;
        if blob.len() as u64 != n {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        blobs.push(blob);
    }
    Ok(Some((header, blobs)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_with_binary_blobs() {
        let mut wire = Vec::new();
        let req = Request::Run {
            command: "cat".into(),
            cwd: None,
            env: vec![("A".into(), "1".into())],
            timeout_ms: Some(5),
            stream: true,
            fresh_shell: false,
        };
        write_frame(&mut wire, &req, &[b"\x00\xffstdin"]).unwrap();
        write_frame(&mut wire, &Request::Stop, &[]).unwrap();
        let mut r = &wire[..];
        let (back, blobs): (Request, _) = read_frame(&mut r).unwrap().unwrap();
        assert_eq!((back, blobs), (req, vec![b"\x00\xffstdin".to_vec()]));
        let (stop, none): (Request, Vec<Vec<u8>>) = read_frame(&mut r).unwrap().unwrap();
        assert_eq!((stop, none.len()), (Request::Stop, 0));
        assert!(read_frame::<_, Request>(&mut r).unwrap().is_none());
    }

    #[test]
    fn garbled_or_cut_frames_are_errors_not_allocations() {
        let mut huge = (MAX_HEADER_BYTES + 1).to_be_bytes().to_vec();
        huge.extend_from_slice(b"{}");
        assert!(read_frame::<_, Request>(&mut &huge[..]).is_err());
        let mut wire = Vec::new();
        write_frame(&mut wire, &Request::Import, &[&[7u8; 100]]).unwrap();
        let cut = &wire[..wire.len() - 10];
        assert!(read_frame::<_, Request>(&mut &cut[..]).is_err());
        let mut blob_bomb = Vec::new();
        let json = br#"{"op":"import"}"#;
        blob_bomb.extend_from_slice(&(json.len() as u32).to_be_bytes());
        blob_bomb.extend_from_slice(json);
        blob_bomb.extend_from_slice(&1u32.to_be_bytes());
        blob_bomb.extend_from_slice(&u64::MAX.to_be_bytes());
        assert!(read_frame::<_, Request>(&mut &blob_bomb[..]).is_err());
        assert!(read_frame::<_, Request>(&mut &b"\0\0\0\x02{]"[..]).is_err());
    }
}
