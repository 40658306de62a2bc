//! `sandkeep serve`: builds the runtime (backend with its `--docker-pool`,
//! `--store`), checks that an unauthenticated server listens on loopback
//! only, and serves until SIGTERM or Ctrl-C, parking every session (and
//! removing the pool's waiting containers) before exiting.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use sandkeep::cli_support::parse_duration;
use sandkeep::{
    BackendKind, DirStore, DockerConfig, ServeConfig, Server, Store, StoreFactory, Tokens,
};

use super::run::{backend_with, runtime_builder};
use super::{Cli, ServeArgs};

/// `--store file://DIR`: each agent's generations in `DIR/agents/NAME/store`.
struct DirStores(PathBuf);

impl StoreFactory for DirStores {
    fn store_for(&self, agent: &str) -> Arc<dyn Store> {
        Arc::new(DirStore::new(
            self.0.join("agents").join(agent).join("store"),
        ))
    }
}

async fn terminated() {
    use tokio::signal::unix::{SignalKind, signal};
    let term = async {
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                term.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = term => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    tracing::warn!("shutting down: parking every session");
}

pub async fn serve(cli: &Cli, args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let addr: SocketAddr = args.listen.parse().with_context(|| {
        format!(
            "--listen {}: expected HOST:PORT, e.g. 127.0.0.1:8080",
            args.listen
        )
    })?;
    let tokens = match &args.tokens {
        Some(path) => Some(Tokens::load(path)?),
        None if addr.ip().is_loopback() => None,
        None => bail!(
            "refusing to listen on {addr} without --tokens: anyone who can reach it could run commands; \
             give a token file or listen on 127.0.0.1"
        ),
    };
    let idle = parse_duration(&args.idle)
        .with_context(|| format!("--idle {}: not a duration (e.g. 30s, 5m)", args.idle))?;
    let max_session = parse_duration(&args.max_session).with_context(|| {
        format!(
            "--max-session {}: not a duration (e.g. 24h)",
            args.max_session
        )
    })?;
    if args.max_sessions == 0 || args.max_sessions_per_token == 0 {
        bail!("--max-sessions and --max-sessions-per-token must be at least 1");
    }
    let stores: Option<Arc<dyn StoreFactory>> = match args.store.as_deref() {
        None => None,
        Some(url) if url.starts_with("file://") => {
            let root = PathBuf::from(&url["file://".len()..]);
            if root.as_os_str().is_empty() {
                bail!("--store {url}: give a directory, e.g. file:///var/lib/sandkeep");
            }
            Some(Arc::new(DirStores(root)))
        }
        #[cfg(feature = "s3")]
        Some(url) if url.starts_with("s3://") => Some(Arc::new(
            sandkeep::S3Stores::from_url_with(
                url,
                [("retry_timeout", args.store_retry_timeout.as_str())],
            )
            .with_context(|| {
                format!(
                    "--store {url} --store-retry-timeout {}",
                    args.store_retry_timeout
                )
            })?,
        )),
        Some(url) => bail!("--store {url}: expected file://DIR or s3://BUCKET/PREFIX"),
    };
    // Bound before the backend: a busy port must not leave a docker pool's
    // containers behind.
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("listening on {addr}"))?;
    let mut docker = DockerConfig::from_env();
    docker.pool.size = args.docker_pool;
    let backend = backend_with(&args.backend, docker).await?;
    if args.docker_pool > 0 && backend.kind() != BackendKind::Docker {
        bail!(
            "--docker-pool {} needs the docker backend, but the backend is {} \
             (give --backend docker, and check that the daemon answers)",
            args.docker_pool,
            backend.kind()
        );
    }
    let mut builder = runtime_builder(cli).backend(backend);
    if let Some(stores) = stores {
        builder = builder.stores(stores);
    }
    let runtime = builder.build();
    let checkpoint = match args.checkpoint.as_str() {
        "off" | "0" => None,
        text => Some(parse_duration(text).with_context(|| {
            format!("--checkpoint {text}: not a duration (e.g. 30s, 5m) or 'off'")
        })?),
    };
    let config = ServeConfig {
        tokens,
        idle,
        checkpoint,
        max_session,
        max_sessions: args.max_sessions,
        max_sessions_per_token: args.max_sessions_per_token,
        no_persist: sandkeep::NoPersist::new(&args.no_persist_var).map_err(anyhow::Error::msg)?,
        ..ServeConfig::default()
    };
    let local = listener.local_addr()?;
    // Tests and scripts read this line to find the port of --listen ...:0.
    eprintln!("sandkeep: serving on http://{local}");
    let report = Server::new(runtime, config)
        .serve(listener, terminated())
        .await
        .context("serving")?;
    if report.all_kept() {
        eprintln!("sandkeep: every session parked; bye");
        return Ok(ExitCode::SUCCESS);
    }
    for (agent, session, why) in &report.spooled {
        eprintln!(
            "sandkeep: agent {agent}: session {session}'s workspace is only spooled under {} ({why}); it is uploaded at the next start",
            cli.data.join("agents").join(agent).join("spool").display()
        );
    }
    for (agent, session, why) in &report.not_kept {
        eprintln!("sandkeep: agent {agent}: session {session} was NOT kept: {why}");
    }
    eprintln!(
        "sandkeep: {} session(s) not in the store; exiting with status 1",
        report.spooled.len() + report.not_kept.len()
    );
    Ok(ExitCode::from(1))
}
