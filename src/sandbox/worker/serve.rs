//! The worker's side: `sandkeep worker` lowers its own resource limits
//! (address space and CPU time, as rlimits the kernel enforces), then serves
//! one local sandbox over its stdin and stdout until the session stops it or
//! closes the pipe. Whatever goes wrong in here, an abort included, ends
//! this process only.

use std::io::{self, BufReader, BufWriter};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::protocol::{Reply, Request, read_frame, write_frame};
use crate::sandbox::local::LocalBackend;
use crate::sandbox::{
    Backend, ListedKind, Listing, OutputSink, RunRequest, Sandbox, SandboxError, SandboxSpec,
};

/// The resource limits a worker puts on itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkerLimits {
    /// Address space in bytes (`RLIMIT_AS`): an allocation past it fails,
    /// and the worker, not the server, dies of it.
    pub address_space_bytes: u64,
    /// CPU seconds over the worker's life (`RLIMIT_CPU`): past it the
    /// kernel ends the worker.
    pub cpu_seconds: u64,
}

impl Default for WorkerLimits {
    fn default() -> Self {
        WorkerLimits {
            address_space_bytes: 4 << 30,
            cpu_seconds: 3600,
        }
    }
}

/// Sets this process's rlimits (soft and hard, so a run cannot raise them).
pub fn apply_limits(limits: WorkerLimits) -> io::Result<()> {
    set_rlimit(libc::RLIMIT_AS, limits.address_space_bytes)?;
    set_rlimit(libc::RLIMIT_CPU, limits.cpu_seconds)
}

/// What `setrlimit` takes as its resource: glibc declares an enum type for
/// it, musl a plain `int`.
#[cfg(target_env = "gnu")]
type Resource = libc::__rlimit_resource_t;
#[cfg(not(target_env = "gnu"))]
type Resource = libc::c_int;

fn set_rlimit(resource: Resource, value: u64) -> io::Result<()> {
    let limit = libc::rlimit {
        rlim_cur: value as libc::rlim_t,
        rlim_max: value as libc::rlim_t,
    };
    // SAFETY: setrlimit reads the struct it is given and changes only this
    // process's limits.
    let rc = unsafe { libc::setrlimit(resource, &limit) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The frame writer, shared by the request loop and a streaming run's sink.
type Out = Arc<Mutex<BufWriter<io::Stdout>>>;

/// Forwards a run's output to the session as `Output` frames.
struct FrameSink(Out);

impl FrameSink {
    fn send(&self, stream: u8, chunk: &[u8]) {
        if let Ok(mut out) = self.0.lock() {
            let _ = write_frame(&mut *out, &Reply::Output { stream }, &[chunk]);
        }
    }
}

impl OutputSink for FrameSink {
    fn stdout(&self, chunk: &[u8]) {
        self.send(1, chunk);
    }
    fn stderr(&self, chunk: &[u8]) {
        self.send(2, chunk);
    }
}

/// Serves requests on stdin/stdout with `backend`'s sandboxes until `Stop`
/// or the end of stdin. Returns the process's exit status.
pub fn serve(backend: LocalBackend, limits: WorkerLimits) -> i32 {
    if let Err(e) = apply_limits(limits) {
        eprintln!("sandkeep worker: cannot set resource limits: {e}");
        return 1;
    }
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("sandkeep worker: {e}");
            return 1;
        }
    };
    let out: Out = Arc::new(Mutex::new(BufWriter::new(io::stdout())));
    let mut input = BufReader::new(io::stdin());
    let mut sandbox: Option<Arc<dyn Sandbox>> = None;
    loop {
        let (request, mut blobs) = match read_frame::<_, Request>(&mut input) {
            Ok(Some(frame)) => frame,
            Ok(None) => break,
            Err(e) => {
                eprintln!("sandkeep worker: bad request stream: {e}");
                return 2;
            }
        };
        let stop = request == Request::Stop;
        let blob = if blobs.is_empty() {
            Vec::new()
        } else {
            blobs.swap_remove(0)
        };
        let (reply, reply_blobs) = rt.block_on(handle(&backend, &mut sandbox, request, blob, &out));
        let refs: Vec<&[u8]> = reply_blobs.iter().map(Vec::as_slice).collect();
        let written = out
            .lock()
            .map_err(|_| io::Error::other("poisoned"))
            .and_then(|mut o| write_frame(&mut *o, &reply, &refs));
        if written.is_err() || stop {
            break;
        }
    }
    if let Some(sb) = sandbox {
        let _ = rt.block_on(sb.stop());
    }
    0
}

/// One request against the sandbox.
async fn handle(
    backend: &LocalBackend,
    sandbox: &mut Option<Arc<dyn Sandbox>>,
    request: Request,
    blob: Vec<u8>,
    out: &Out,
) -> (Reply, Vec<Vec<u8>>) {
    if let Request::Create {
        session_id,
        agent,
        env,
    } = &request
    {
        let spec = SandboxSpec {
            session_id: session_id.clone(),
            agent: agent.clone(),
            env: env.clone(),
        };
        return match backend.create(&spec).await {
            Ok(sb) => {
                *sandbox = Some(sb);
                (Reply::Ok, Vec::new())
            }
            Err(e) => (error_reply(e), Vec::new()),
        };
    }
    let Some(sb) = sandbox.as_ref() else {
        return (
            error_reply(SandboxError::Backend("no sandbox created yet".into())),
            Vec::new(),
        );
    };
    match answer(sb.as_ref(), request, blob, out).await {
        Ok(answer) => answer,
        Err(e) => (error_reply(e), Vec::new()),
    }
}

async fn answer(
    sb: &dyn Sandbox,
    request: Request,
    blob: Vec<u8>,
    out: &Out,
) -> Result<(Reply, Vec<Vec<u8>>), SandboxError> {
    Ok(match request {
        Request::Create { .. } => already_created(),
        Request::Run {
            command,
            cwd,
            env,
            timeout_ms,
            stream,
            fresh_shell,
        } => {
            let request = RunRequest {
                command,
                cwd,
                env,
                stdin: blob,
                timeout: timeout_ms.map(Duration::from_millis),
                sink: stream.then(|| Arc::new(FrameSink(Arc::clone(out))) as Arc<dyn OutputSink>),
                cancel: None,
                fresh_shell,
            };
            let r = sb.run(request).await?;
            (
                Reply::Ran {
                    exit_code: r.exit_code,
                    truncated: r.truncated,
                    timed_out: r.timed_out,
                },
                vec![r.stdout, r.stderr],
            )
        }
        Request::Read { path, max } => {
            let max = usize::try_from(max).unwrap_or(usize::MAX);
            match sb.read_file_head(&path, max).await? {
                Some(head) => (
                    Reply::File {
                        size: Some(head.size),
                    },
                    vec![head.data],
                ),
                None => (Reply::File { size: None }, Vec::new()),
            }
        }
        Request::Write { path } => {
            sb.write_file(&path, &blob).await?;
            (Reply::Ok, Vec::new())
        }
        Request::Remove { path } => {
            sb.remove_path(&path).await?;
            (Reply::Ok, Vec::new())
        }
        Request::Export { paths } => (Reply::Tar, vec![sb.export_paths(&paths).await?]),
        Request::Import => {
            sb.import_workspace(&blob).await?;
            (Reply::Ok, Vec::new())
        }
        Request::List => (
            Reply::Listing,
            vec![format_listing(&sb.list_workspace().await?)],
        ),
        Request::Mark => {
            sb.mark_workspace().await?;
            (Reply::Ok, Vec::new())
        }
        Request::Changes => match sb.workspace_changes().await? {
            Some(c) => (
                Reply::Changes {
                    known: true,
                    listed_dirs: c.listed_dirs,
                    listed_trees: c.listed_trees,
                },
                vec![c.written, format_listing(&c.listing)],
            ),
            None => (
                Reply::Changes {
                    known: false,
                    listed_dirs: Vec::new(),
                    listed_trees: Vec::new(),
                },
                Vec::new(),
            ),
        },
        Request::ShellState => {
            match sb.shell_state().await? {
                Some(snapshot) => (
                    Reply::State,
                    vec![serde_json::to_vec(&snapshot).map_err(|e| {
                        SandboxError::Backend(format!("shell state not encoded: {e}"))
                    })?],
                ),
                None => (Reply::State, Vec::new()),
            }
        }
        Request::RestoreShellState => {
            let snapshot = serde_json::from_slice(&blob)
                .map_err(|e| SandboxError::Backend(format!("shell state not decoded: {e}")))?;
            sb.restore_shell_state(&snapshot).await?;
            (Reply::Ok, Vec::new())
        }
        Request::Stop => {
            sb.stop().await?;
            (Reply::Ok, Vec::new())
        }
    })
}

/// `Create` is answered before [`answer`] is reached.
fn already_created() -> (Reply, Vec<Vec<u8>>) {
    (
        error_reply(SandboxError::Backend("the sandbox exists already".into())),
        Vec::new(),
    )
}

fn error_reply(e: SandboxError) -> Reply {
    let (kind, path, message) = match e {
        SandboxError::Gone(id) => ("gone", String::new(), id),
        SandboxError::Path { path, reason } => ("path", path, reason),
        SandboxError::Backend(m) => ("backend", String::new(), m),
    };
    Reply::Error {
        kind: kind.into(),
        path,
        message,
    }
}

/// A listing in the form `find -printf` writes and
/// [`crate::sandbox::workspace::parse_listing`] reads.
pub fn format_listing(listing: &Listing) -> Vec<u8> {
    let mut out = format!("{}\n", listing.listed_at).into_bytes();
    for e in &listing.entries {
        let kind = match e.kind {
            ListedKind::File => "f",
            ListedKind::Dir => "d",
            ListedKind::Symlink => "l",
            ListedKind::Other => "p",
        };
        for field in [
            kind.to_string(),
            format!("{:o}", e.mode),
            e.size.to_string(),
            e.mtime.to_string(),
            e.path.clone(),
            e.link.clone().unwrap_or_default(),
        ] {
            out.extend_from_slice(field.as_bytes());
            out.push(0);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::Listed;
    use crate::sandbox::workspace::parse_listing;

    #[test]
    fn listings_cross_the_pipe_unchanged() {
        let listing = Listing {
            listed_at: 1_700_000_000,
            entries: vec![
                Listed {
                    path: "d".into(),
                    kind: ListedKind::Dir,
                    mode: 0o755,
                    size: 4096,
                    mtime: 1_699_999_999,
                    link: None,
                },
                Listed {
                    path: "d/a b.txt".into(),
                    kind: ListedKind::File,
                    mode: 0o644,
                    size: 12,
                    mtime: 5,
                    link: None,
                },
                Listed {
                    path: "l".into(),
                    kind: ListedKind::Symlink,
                    mode: 0o777,
                    size: 3,
                    mtime: 6,
                    link: Some("d/a b.txt".into()),
                },
            ],
        };
        assert_eq!(parse_listing(&format_listing(&listing)).unwrap(), listing);
    }
}
