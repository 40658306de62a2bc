//! `sandkeep run` and `sandkeep shell`: sessions driven from the command line.

use std::io::{BufRead, IsTerminal, Read, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::{Context, bail};
use sandkeep::{
    Backend, BackendChoice, BackendKind, DockerConfig, LocalBackend, OutputSink, RunRequest,
    RunResult, Runtime, RuntimeBuilder, Session, WorkerBackend, WorkerLimits,
};

use super::{BackendArgs, Cli, Isolation, OutputCap, RunArgs, ShellArgs, WorkerArgs};

/// Picks the backend (flag, then `SANDKEEP_BACKEND`, then auto) and, on
/// docker, reaps containers orphaned by dead sandkeep processes.
pub(super) async fn backend_for(args: &BackendArgs) -> anyhow::Result<Arc<dyn Backend>> {
    backend_with(args, DockerConfig::from_env()).await
}

/// [`backend_for`] with the docker backend configured as `docker` says
/// (`serve --docker-pool` sets its pool).
pub(super) async fn backend_with(
    args: &BackendArgs,
    docker: DockerConfig,
) -> anyhow::Result<Arc<dyn Backend>> {
    choose(args, docker, None).await
}

/// [`backend_for`] for `run` and `shell`, whose output goes to our stdio:
/// both backends cap it at `cap` (the others keep their 1 MiB).
async fn backend_for_stdio(args: &BackendArgs, cap: OutputCap) -> anyhow::Result<Arc<dyn Backend>> {
    let mut docker = DockerConfig::from_env();
    docker.max_output_bytes = cap.bytes();
    choose(args, docker, Some(cap.bytes())).await
}

/// The backend of `args`, the local one with `max_output` bytes of output
/// per stream when set (else its default).
async fn choose(
    args: &BackendArgs,
    mut docker: DockerConfig,
    max_output: Option<usize>,
) -> anyhow::Result<Arc<dyn Backend>> {
    let choice = match args.backend {
        Some(c) => c,
        None => BackendChoice::from_env()
            .map_err(anyhow::Error::msg)?
            .unwrap_or_default(),
    };
    if let Some(bytes) = args.storage {
        docker.storage_bytes = Some(bytes);
    }
    let egress = egress_for(args)?;
    if !(args.allow_net.is_empty() && args.net_header.is_empty()) {
        // Containers get the relay to the egress proxy only when a rule or
        // a header asks for it; otherwise they have no way out at all.
        docker.egress = Some(egress.clone());
    }
    let local = local_backend(args, egress, max_output)?;
    let backend = sandkeep::choose_backend(choice, docker.clone(), local)
        .await
        .with_context(|| format!("backend {choice}"))?;
    if backend.kind() == BackendKind::Docker
        && let Err(e) = sandkeep::reap_orphans(&docker).await
    {
        tracing::warn!("could not reap orphan containers: {e}");
    }
    Ok(backend)
}

/// The local backend `--isolation` asks for: in process, or a worker
/// process per session.
fn local_backend(
    args: &BackendArgs,
    egress: sandkeep_net::Egress,
    max_output: Option<usize>,
) -> anyhow::Result<Arc<dyn Backend>> {
    let mut config = sandkeep_shell::ShellConfig::default();
    if let Some(bytes) = args.storage {
        config.limits.fs.max_total_bytes = bytes;
    }
    if let Some(bytes) = max_output {
        config.limits.max_output_bytes = bytes;
    }
    match args.isolation {
        Isolation::Thread => Ok(Arc::new(
            LocalBackend::with_config(config).with_egress(egress),
        )),
        Isolation::Process => {
            if !(args.allow_net.is_empty() && args.net_header.is_empty()) {
                bail!(
                    "--allow-net and --net-header are not available with --isolation process \
                     in this build (workers have no network)"
                );
            }
            if args.storage.is_some() {
                bail!("--storage is not available with --isolation process in this build");
            }
            Ok(Arc::new(WorkerBackend::current_exe(
                WorkerLimits::default(),
            )?))
        }
    }
}

/// `sandkeep worker`: serves one sandbox to the session that started it.
pub(super) fn worker(args: &WorkerArgs) -> ExitCode {
    let limits = WorkerLimits {
        address_space_bytes: args.address_space,
        cpu_seconds: args.cpu_seconds,
    };
    let status = sandkeep::cli_support::serve_worker(LocalBackend::new(), limits);
    ExitCode::from(u8::try_from(status).unwrap_or(1))
}

/// The egress of `--allow-net`/`$SANDKEEP_ALLOW_NET` and `--net-header`
/// (whose `${NAME}`s are read from this process's environment now).
pub(super) fn egress_for(args: &BackendArgs) -> anyhow::Result<sandkeep_net::Egress> {
    let policy = sandkeep_net::Policy::parse(
        args.allow_net
            .iter()
            .map(|r| r.trim())
            .filter(|r| !r.is_empty()),
    )?;
    let headers = args
        .net_header
        .iter()
        .map(|h| sandkeep_net::InjectedHeader::parse(h, |name| std::env::var(name).ok()))
        .collect::<Result<Vec<_>, _>>()?;
    let egress = sandkeep_net::Egress::new(policy);
    egress.set_headers(headers);
    Ok(egress)
}

/// A runtime builder with the global flags applied (`--data`,
/// `--workspace-archive`, `--mindlog-file`).
pub(super) fn runtime_builder(cli: &Cli) -> RuntimeBuilder {
    let mut builder = Runtime::builder().data_dir(&cli.data);
    if let Some(p) = &cli.workspace_archive {
        builder = builder.workspace_archive(p);
    }
    if let Some(p) = &cli.mindlog_file {
        builder = builder.mindlog_file(p);
    }
    builder
}

pub(super) fn runtime(cli: &Cli, backend: Arc<dyn Backend>) -> Runtime {
    runtime_builder(cli).backend(backend).build()
}

fn timeout(seconds: Option<f64>) -> anyhow::Result<Option<Duration>> {
    match seconds {
        None => Ok(None),
        Some(s) if s > 0.0 => match Duration::try_from_secs_f64(s) {
            Ok(d) => Ok(Some(d)),
            Err(_) => bail!("--timeout {s} is too large"),
        },
        Some(s) => bail!("--timeout must be a positive number of seconds, not {s}"),
    }
}

/// Writes the script's output to our stdout/stderr as it arrives and keeps
/// none of it (output may be unbounded), counting what it wrote: a backend
/// that does not stream (or keeps what it streamed) gets the rest printed
/// after. Once our stdout is a closed pipe, the script's writes fail as on
/// a broken pipe (so `sandkeep run -c yes | head -1` ends).
#[derive(Default)]
struct StdioSink {
    stdout: AtomicUsize,
    stderr: AtomicUsize,
    stdout_closed: AtomicBool,
}

impl OutputSink for StdioSink {
    fn stdout(&self, chunk: &[u8]) {
        let mut out = std::io::stdout().lock();
        let written = out.write_all(chunk).and_then(|()| out.flush());
        if let Err(e) = written
            && e.kind() == std::io::ErrorKind::BrokenPipe
        {
            self.stdout_closed.store(true, Ordering::Relaxed);
        }
        self.stdout.fetch_add(chunk.len(), Ordering::Relaxed);
    }

    fn stderr(&self, chunk: &[u8]) {
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(chunk);
        self.stderr.fetch_add(chunk.len(), Ordering::Relaxed);
    }

    fn takes_output(&self) -> bool {
        true
    }

    fn stdout_closed(&self) -> bool {
        self.stdout_closed.load(Ordering::Relaxed)
    }
}

impl StdioSink {
    /// Prints what the sink did not see of a finished run.
    fn finish(&self, result: &RunResult) {
        let seen = self.stdout.swap(0, Ordering::Relaxed);
        if let Some(rest) = result.stdout.get(seen..) {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(rest);
            let _ = out.flush();
        }
        let seen = self.stderr.swap(0, Ordering::Relaxed);
        if let Some(rest) = result.stderr.get(seen..) {
            let _ = std::io::stderr().lock().write_all(rest);
        }
    }
}

/// A script's status as a process exit status.
fn exit_status(code: i32) -> ExitCode {
    ExitCode::from(if (0..=255).contains(&code) {
        code as u8
    } else {
        1
    })
}

/// Runs one request in the session, streaming to our stdio.
async fn run_streaming(
    session: &mut Session,
    mut request: RunRequest,
) -> anyhow::Result<RunResult> {
    let sink = Arc::new(StdioSink::default());
    request.sink = Some(sink.clone());
    let result = session.run(request).await?;
    sink.finish(&result);
    Ok(result)
}

/// `sandkeep run`: one session (or an ephemeral sandbox), one turn.
pub async fn run(cli: &Cli, args: &RunArgs) -> anyhow::Result<ExitCode> {
    let mut stdin_used = false;
    let script = match (&args.script, &args.file) {
        (Some(s), _) => s.clone(),
        (None, Some(f)) if f.as_os_str() == "-" => {
            stdin_used = true;
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .context("reading the script from stdin")?;
            s
        }
        (None, Some(f)) => {
            std::fs::read_to_string(f).with_context(|| format!("reading {}", f.display()))?
        }
        (None, None) => bail!("give a script with -c SCRIPT or a FILE"),
    };
    let timeout = timeout(args.timeout)?;
    // Like `bash -c`, the script reads our stdin, unless that is a terminal
    // (nobody would type into a one-shot run) or already held the script.
    let stdin = if stdin_used || std::io::stdin().is_terminal() {
        Vec::new()
    } else {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .context("reading stdin")?;
        buf
    };
    let rt = runtime(
        cli,
        backend_for_stdio(&args.backend, args.output.max_output).await?,
    );
    let mut session = match &args.agent {
        Some(agent) => rt.session(agent)?,
        None => rt.ephemeral_session(),
    };
    let mut request = RunRequest::new(script);
    request.stdin = stdin;
    request.timeout = timeout;
    match run_streaming(&mut session, request).await {
        Ok(result) => {
            session.complete().await?;
            Ok(exit_status(result.exit_code))
        }
        Err(e) => {
            if !session.has_ended() {
                let _ = session.fail(format!("{e:#}")).await;
            }
            Err(e)
        }
    }
}

/// `sandkeep shell`: a REPL session; each line is a turn, parked after it.
pub async fn shell(cli: &Cli, args: &ShellArgs) -> anyhow::Result<ExitCode> {
    let timeout = timeout(args.timeout)?;
    let rt = runtime(
        cli,
        backend_for_stdio(&args.backend, args.output.max_output).await?,
    );
    let mut session = rt.session(&args.agent)?;
    let interactive = std::io::stdin().is_terminal();
    if interactive {
        eprintln!(
            "sandkeep: session {} of agent {} (one turn per line; end with Ctrl-D)",
            session.id(),
            args.agent
        );
    }
    let (tx, mut rx) = tokio::sync::mpsc::channel::<std::io::Result<String>>(1);
    // Lines are read on a plain thread: stdin is blocking.
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            if tx.blocking_send(line).is_err() {
                break;
            }
        }
    });
    let mut status = 0;
    loop {
        if interactive {
            eprint!("{}$ ", args.agent);
        }
        let Some(line) = rx.recv().await else { break };
        let line = line.context("reading stdin")?;
        if line.trim().is_empty() {
            continue;
        }
        let mut request = RunRequest::new(line);
        request.timeout = timeout;
        match run_streaming(&mut session, request).await {
            Ok(result) => status = result.exit_code,
            Err(e) => {
                let _ = session.fail(format!("{e:#}")).await;
                return Err(e);
            }
        }
        session.park().await?;
    }
    if interactive {
        eprintln!();
    }
    session.complete().await?;
    Ok(exit_status(status))
}
