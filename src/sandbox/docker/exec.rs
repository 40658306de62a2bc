//! One run in a container: `bash -c COMMAND` as an exec with cwd, env and
//! stdin, its multiplexed output split into stdout and stderr, the exit code
//! from the exec inspect, and the limits the local backend enforces (a
//! wall-clock timeout, an output cap) with the same report.
//!
//! Every exec carries a marker variable (`SANDKEEP_RUN=<random id>`) that its
//! children inherit, and is a session of its own. Ending a run means a second
//! exec that stops and kills every process whose environment holds the
//! marker and every process in such a process's session: background jobs and
//! pipelines included, also those that dropped the marker, other runs in the
//! same container untouched (see [`super::procs`], which also sweeps what
//! left the session).

use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use bollard::Docker;
use bollard::container::LogOutput;
use bollard::exec::{CreateExecOptions, StartExecOptions, StartExecResults};
use futures_util::StreamExt;
use tokio::io::AsyncWriteExt;

use super::{archive, map_api_error};
use crate::sandbox::{OutputSink, RunRequest, RunResult, SandboxError};

/// The default working directory, and where runs start.
const WORKSPACE: &str = "/workspace";

/// Changes to `$1` (or reports it like bash's `cd` and stays in /workspace),
/// then becomes `bash -c "$2"`; OLDPWD is dropped so the command sees the
/// environment a direct `bash -c` would.
const CD_THEN_EXEC: &str = r#"cd -- "$1" 2>/dev/null || printf 'bash: line 0: cd: %s: No such file or directory\n' "$1" >&2
unset OLDPWD
exec bash -c "$2""#;

/// The variable that tags every process of one run.
pub const RUN_MARKER: &str = "SANDKEEP_RUN";

/// Exit status of a run the timeout ended (as `timeout(1)` reports it).
pub const TIMEOUT_EXIT: i32 = 124;

/// Exit status of a run another limit ended (the local backend's).
pub const LIMIT_EXIT: i32 = 124;

/// Exit status of a run the output limit ended, or whose streamed stdout
/// lost its reader: 141 (128 + SIGPIPE), never a timeout's 124.
pub const OUTPUT_LIMIT_EXIT: i32 = sandkeep_shell::OUTPUT_LIMIT_STATUS;

/// How long the output may keep flowing after a kill before the run is
/// abandoned (the daemon itself waits up to 2 s for the streams to close).
const KILL_GRACE: Duration = Duration::from_secs(5);

/// The backend-wide defaults a run falls back to.
#[derive(Clone, Copy, Debug)]
pub struct RunLimits {
    /// Wall-clock limit when the request sets none.
    pub timeout: Duration,
    /// Bytes of stdout and of stderr kept.
    pub max_output_bytes: usize,
    /// A storage limit to watch during the run (when the storage driver
    /// does not enforce one), see [`super::storage`].
    pub storage_watch: Option<u64>,
}

/// Why a run was ended from outside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ended {
    Timeout,
    Output,
    /// The sink's reader went away (our stdout, a pipe, closed).
    ReaderGone,
    /// The files grew past the watched storage limit (the size seen).
    Storage(u64),
    /// The caller cancelled the run ([`crate::sandbox::RunCancel`]).
    Cancelled,
}

/// Runs `bash -c request.command` in `container` as `user`.
pub async fn run(
    docker: &Docker,
    container: &str,
    user: &str,
    mut request: RunRequest,
    limits: RunLimits,
) -> Result<RunResult, SandboxError> {
    let run_id = format!("{:016x}", rand::random::<u64>());
    let mut env: Vec<String> = request
        .env
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    env.push(format!("{RUN_MARKER}={run_id}"));
    let cwd = archive::resolve(request.cwd.as_deref().unwrap_or(WORKSPACE))?;
    // An agent's run goes on in the session's shell: the saved state is
    // sourced, the run's own variables set again on top, the state
    // captured at its end.
    let argv = if request.fresh_shell {
        command_argv(&request.command, &cwd)
    } else {
        let mut names: Vec<String> = request.env.iter().map(|(k, _)| k.clone()).collect();
        names.push(RUN_MARKER.to_string());
        let asked = request.cwd.as_ref().map(|_| cwd.as_str());
        super::shell_state::keeping_argv(&request.command, asked, &names)
    };
    let attach_stdin = !request.stdin.is_empty();
    let exec = docker
        .create_exec(
            container,
            CreateExecOptions {
                attach_stdin: Some(attach_stdin),
                attach_stdout: Some(true),
                attach_stderr: Some(true),
                tty: Some(false),
                env: Some(env),
                cmd: Some(argv),
                user: Some(user.to_string()),
                working_dir: Some(WORKSPACE.to_string()),
                ..Default::default()
            },
        )
        .await
        .map_err(|e| map_container_error(e, container))?;

    // From here on, a dropped future (a cancelled caller) must not leave the
    // command running: the guard kills it unless the run completes.
    let mut guard = KillOnDrop {
        docker: docker.clone(),
        container: container.to_string(),
        user: user.to_string(),
        run_id: run_id.clone(),
        armed: true,
    };

    let start = StartExecOptions {
        detach: false,
        tty: false,
        output_capacity: Some(64 * 1024),
    };
    let StartExecResults::Attached {
        mut output,
        mut input,
    } = docker
        .start_exec(&exec.id, Some(start))
        .await
        .map_err(|e| map_container_error(e, container))?
    else {
        return Err(SandboxError::Backend("docker exec started detached".into()));
    };

    // Feed stdin concurrently with reading output, so neither side can block
    // the other on a full pipe; closing our write half is the command's EOF.
    let stdin_task = attach_stdin.then(|| {
        let stdin = std::mem::take(&mut request.stdin);
        tokio::spawn(async move {
            let _ = input.write_all(&stdin).await;
            let _ = input.shutdown().await;
            input
        })
    });

    let timeout = request.timeout.unwrap_or(limits.timeout);
    let cancel = request.cancel.take();
    let mut out = Collector::new(limits.max_output_bytes, request.sink.clone());
    let mut ended: Option<Ended> = None;
    let mut deadline = pin!(tokio::time::sleep(timeout));
    let mut grace = pin!(tokio::time::sleep(Duration::MAX / 4));
    let mut stream_error = None;
    let (mut storage_watch, storage_limit) = match limits.storage_watch {
        Some(limit) => (
            Some(tokio::spawn(super::storage::watch(
                docker.clone(),
                container.to_string(),
                limit,
            ))),
            limit,
        ),
        None => (None, 0),
    };
    loop {
        tokio::select! {
            item = output.next() => match item {
                Some(Ok(LogOutput::StdOut { message } | LogOutput::Console { message })) => {
                    out.stdout(&message);
                }
                Some(Ok(LogOutput::StdErr { message })) => out.stderr(&message),
                Some(Ok(LogOutput::StdIn { .. })) => {}
                Some(Err(e)) => {
                    stream_error = Some(e);
                    break;
                }
                None => break,
            },
            () = crate::sandbox::RunCancel::of(cancel.as_ref()), if ended.is_none() => {
                ended = Some(Ended::Cancelled);
                spawn_kill(docker, container, user, &run_id);
                grace.as_mut().reset(tokio::time::Instant::now() + KILL_GRACE);
            }
            _ = &mut deadline, if ended.is_none() => {
                ended = Some(Ended::Timeout);
                spawn_kill(docker, container, user, &run_id);
                grace.as_mut().reset(tokio::time::Instant::now() + KILL_GRACE);
            }
            size = storage_exceeded(&mut storage_watch), if ended.is_none() => {
                storage_watch = None;
                if let Some(size) = size {
                    ended = Some(Ended::Storage(size));
                    spawn_kill(docker, container, user, &run_id);
                    grace.as_mut().reset(tokio::time::Instant::now() + KILL_GRACE);
                }
            }
            _ = &mut grace, if ended.is_some() => {
                tracing::warn!(container = %super::reaper::short(container),
                    "run still producing output {KILL_GRACE:?} after its kill; abandoned");
                break;
            }
        }
        let reader_gone = out.reader_gone();
        if (out.over || reader_gone) && ended.is_none() {
            ended = Some(if out.over {
                Ended::Output
            } else {
                Ended::ReaderGone
            });
            spawn_kill(docker, container, user, &run_id);
            grace
                .as_mut()
                .reset(tokio::time::Instant::now() + KILL_GRACE);
        }
    }
    if let Some(task) = stdin_task {
        task.abort();
    }
    if let Some(task) = storage_watch {
        task.abort();
    }
    guard.armed = ended.is_none();

    if let Some(e) = stream_error
        && ended.is_none()
    {
        return Err(map_container_error(e, container));
    }
    let mut result = RunResult {
        exit_code: 0,
        stdout: std::mem::take(&mut out.stdout),
        stderr: std::mem::take(&mut out.stderr),
        truncated: out.truncated,
        timed_out: false,
    };
    match ended {
        Some(Ended::Timeout) => {
            result.exit_code = TIMEOUT_EXIT;
            result.timed_out = true;
            let secs = timeout.as_secs_f64();
            out.note(
                &mut result.stderr,
                &format!("bash: timeout exceeded ({secs:.1}s)\n"),
            );
        }
        Some(Ended::Cancelled) => {
            result.exit_code = TIMEOUT_EXIT;
            result.timed_out = true;
            out.note(
                &mut result.stderr,
                "sandkeep: run cancelled (its caller went away)\n",
            );
        }
        // As bash under SIGPIPE: no message, status 141.
        Some(Ended::ReaderGone) => result.exit_code = OUTPUT_LIMIT_EXIT,
        Some(Ended::Output) => {
            result.exit_code = OUTPUT_LIMIT_EXIT;
            let max = limits.max_output_bytes;
            out.note(
                &mut result.stderr,
                &format!(
                    "[output truncated: output limit of {max} bytes reached]\n\
                     bash: output limit exceeded ({max} bytes)\n"
                ),
            );
        }
        Some(Ended::Storage(size)) => {
            result.exit_code = LIMIT_EXIT;
            out.note(
                &mut result.stderr,
                &super::storage::exceeded_message(size, storage_limit),
            );
        }
        None => {
            result.exit_code = exit_code(docker, &exec.id).await?;
            guard.armed = false;
        }
    }
    Ok(result)
}

/// The size the storage watcher saw past the limit; pending forever without
/// a watcher (so the `select!` branch never fires), `None` if it failed.
async fn storage_exceeded(watch: &mut Option<tokio::task::JoinHandle<u64>>) -> Option<u64> {
    match watch {
        Some(task) => task.await.ok(),
        None => std::future::pending().await,
    }
}

/// Appends the lines a tripped limit prints (the local backend's wording),
/// starting on a line of their own.
fn note(stream: &mut Vec<u8>, lines: &str) {
    if stream.last().is_some_and(|&b| b != b'\n') {
        stream.push(b'\n');
    }
    stream.extend_from_slice(lines.as_bytes());
}

/// The exec's argv. In `/workspace` (the exec's working directory) it is just
/// `bash -c COMMAND`. Elsewhere a first bash changes directory and replaces
/// itself with `bash -c COMMAND`, so a missing directory reads as bash's `cd`
/// error and the command still runs in `/workspace`, as on the local backend
/// (the engine would refuse the exec outright).
fn command_argv(command: &str, cwd: &str) -> Vec<String> {
    if cwd == WORKSPACE {
        return vec!["bash".into(), "-c".into(), command.into()];
    }
    vec![
        "bash".into(),
        "-c".into(),
        CD_THEN_EXEC.into(),
        "bash".into(),
        cwd.into(),
        command.into(),
    ]
}

/// The exit code of a finished exec. The output stream can close a moment
/// before the daemon records the exit, so poll briefly while it still runs.
pub async fn exit_code(docker: &Docker, exec_id: &str) -> Result<i32, SandboxError> {
    let mut wait = Duration::from_millis(2);
    for _ in 0..40 {
        let inspect = docker.inspect_exec(exec_id).await.map_err(map_api_error)?;
        if inspect.running != Some(true)
            && let Some(code) = inspect.exit_code
        {
            return Ok(code as i32);
        }
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(Duration::from_millis(100));
    }
    Err(SandboxError::Backend(format!(
        "docker exec {exec_id} did not report an exit code"
    )))
}

/// Starts [`kill_run`] in the background. The run's output must keep being
/// drained meanwhile: engine 20.10 handles a container's exec exits one at a
/// time, and an exit whose output nobody reads blocks the kill's own exit.
fn spawn_kill(docker: &Docker, container: &str, user: &str, run_id: &str) {
    let (docker, container, user, run_id) = (
        docker.clone(),
        container.to_string(),
        user.to_string(),
        run_id.to_string(),
    );
    tokio::spawn(async move { kill_run(&docker, &container, &user, &run_id).await });
}

/// Kills every process of run `run_id` (best effort: the run is being ended
/// anyway, and the sweep and the container's removal are the backstops).
pub async fn kill_run(docker: &Docker, container: &str, user: &str, run_id: &str) {
    let args = [run_id.to_string()];
    let result = super::procs::exec_script(
        docker,
        container,
        user,
        "sandkeep-kill",
        super::procs::KILL_SCRIPT,
        &args,
    )
    .await;
    if let Err(e) = result {
        tracing::warn!(container = %super::reaper::short(container), "cannot kill run {run_id}: {e}");
    }
}

/// Kills a run whose future was dropped before it finished.
struct KillOnDrop {
    docker: Docker,
    container: String,
    user: String,
    run_id: String,
    armed: bool,
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let (docker, container, user, run_id) = (
                self.docker.clone(),
                std::mem::take(&mut self.container),
                std::mem::take(&mut self.user),
                std::mem::take(&mut self.run_id),
            );
            handle.spawn(async move { kill_run(&docker, &container, &user, &run_id).await });
        }
    }
}

/// Keeps up to `max` bytes of each stream, forwarding what it keeps to the sink.
struct Collector {
    max: usize,
    sink: Option<Arc<dyn OutputSink>>,
    /// The sink takes the output for good: count it, keep none of it.
    stream_only: bool,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    /// Bytes accepted on each stream (kept or only streamed).
    stdout_len: usize,
    stderr_len: usize,
    /// The last byte streamed to stderr (a note starts on a line of its own).
    stderr_last: Option<u8>,
    truncated: bool,
    over: bool,
}

impl Collector {
    fn new(max: usize, sink: Option<Arc<dyn OutputSink>>) -> Collector {
        Collector {
            max,
            stream_only: sink.as_ref().is_some_and(|s| s.takes_output()),
            sink,
            stdout: Vec::new(),
            stderr: Vec::new(),
            stdout_len: 0,
            stderr_len: 0,
            stderr_last: None,
            truncated: false,
            over: false,
        }
    }

    fn stdout(&mut self, chunk: &[u8]) {
        let n = room(self.stdout_len, chunk.len(), self.max);
        self.stdout_len += n;
        if !self.stream_only {
            self.stdout.extend_from_slice(&chunk[..n]);
        }
        if let Some(sink) = &self.sink
            && n > 0
        {
            sink.stdout(&chunk[..n]);
        }
        self.flag(n, chunk.len());
    }

    fn stderr(&mut self, chunk: &[u8]) {
        let n = room(self.stderr_len, chunk.len(), self.max);
        self.stderr_len += n;
        if n > 0 {
            self.stderr_last = Some(chunk[n - 1]);
        }
        if !self.stream_only {
            self.stderr.extend_from_slice(&chunk[..n]);
        }
        if let Some(sink) = &self.sink
            && n > 0
        {
            sink.stderr(&chunk[..n]);
        }
        self.flag(n, chunk.len());
    }

    fn flag(&mut self, kept: usize, len: usize) {
        if kept < len {
            self.truncated = true;
            self.over = true;
        }
    }

    /// Appends a limit's lines to `stderr` (the result's), or streams them
    /// when the sink takes the output (the result then holds none of it).
    fn note(&mut self, stderr: &mut Vec<u8>, lines: &str) {
        if !self.stream_only {
            note(stderr, lines);
            return;
        }
        let mut text = Vec::new();
        if self.stderr_last.is_some_and(|b| b != b'\n') {
            text.push(b'\n');
        }
        text.extend_from_slice(lines.as_bytes());
        if let Some(sink) = &self.sink {
            sink.stderr(&text);
        }
        self.stderr_last = text.last().copied();
    }

    /// True once the reader of the streamed stdout is gone.
    fn reader_gone(&self) -> bool {
        self.sink.as_ref().is_some_and(|s| s.stdout_closed())
    }
}

/// How many of `len` new bytes fit under `max` after `written`.
fn room(written: usize, len: usize, max: usize) -> usize {
    len.min(max.saturating_sub(written))
}

/// A failed exec on a container that no longer exists (or stopped) is a gone
/// sandbox, not a backend failure.
fn map_container_error(e: bollard::errors::Error, container: &str) -> SandboxError {
    match &e {
        bollard::errors::Error::DockerResponseServerError {
            status_code: 404 | 409,
            ..
        } => SandboxError::Gone(container.to_string()),
        _ => map_api_error(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collector_keeps_up_to_the_limit_per_stream() {
        let mut c = Collector::new(5, None);
        c.stdout(b"abc");
        c.stderr(b"1234");
        assert!(!c.over);
        c.stdout(b"defg");
        assert_eq!(c.stdout, b"abcde");
        assert!(c.truncated && c.over);
        c.stderr(b"5");
        assert_eq!(c.stderr, b"12345");
    }

    #[test]
    fn notes_start_on_their_own_line() {
        let mut s = b"partial".to_vec();
        note(&mut s, "x\n");
        assert_eq!(s, b"partial\nx\n");
        let mut e = Vec::new();
        note(&mut e, "y\n");
        assert_eq!(e, b"y\n");
    }

    #[test]
    fn runs_outside_the_workspace_go_through_cd() {
        assert_eq!(command_argv("ls", "/workspace"), ["bash", "-c", "ls"]);
        let argv = command_argv("ls", "/tmp");
        assert_eq!(argv[0..2], ["bash", "-c"]);
        assert_eq!(argv[3..], ["bash", "/tmp", "ls"]);
    }
}
