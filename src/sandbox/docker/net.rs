//! The network egress of a docker sandbox (feature `net`). The container
//! keeps network mode `none`: its only way out is a relay process inside it
//! ([`sandkeep_net::relay::RELAY_PY`], run as root so the sandbox user can
//! neither kill nor trace it) listening on the container's 127.0.0.1 and
//! carrying every connection over its `docker exec` stdio stream to the host
//! side, where [`sandkeep_net::relay::RelayHost`] hands each one to the
//! egress proxy under the session's [`sandkeep_net::Egress`]. Every run gets
//! `HTTP_PROXY`/`HTTPS_PROXY` (both cases) pointing at the relay, and
//! `NO_PROXY` for loopback.
//!
//! For credential injection into HTTPS, a per-sandbox CA is generated when
//! the sandbox starts; its certificate is installed in the container's trust
//! store (`/usr/local/share/ca-certificates/`, appended to the system bundle,
//! and named by `SSL_CERT_FILE`, `CURL_CA_BUNDLE`, `REQUESTS_CA_BUNDLE`,
//! `NODE_EXTRA_CA_CERTS`), so the proxy can terminate TLS for the hosts that
//! have an injected header. The CA's key stays on the host side.
//!
//! Denials explain themselves as on the local backend: root-owned `curl`
//! and `wget` wrappers ([`sandkeep_net::wrapper`]) go in `/usr/local/bin`
//! (ahead of `/usr/bin` in the image's `PATH`) and print the proxy's
//! verdict in the policy's words with curl's status 56 (wget: 4). They only
//! present the host side's decision; nothing in the container enforces.
//!
//! Flow control is per connection and direction ([`sandkeep_net::relay::WINDOW`]
//! bytes in flight), so the frames queued for the relay's stdin are bounded
//! by the open connections (at most 64) times the window.
//!
//! The limits are per run: [`NetRelay::env`], which every run asks for when
//! it starts, resets the sandbox's usage counters.
//!
//! The relay's death never hangs a run: connections to its port are then
//! refused in the container (curl exit 7). The relay ends with the session
//! ([`NetRelay`] aborts its tasks on drop; removing the container ends the
//! process).

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bollard::Docker;
use bollard::container::LogOutput;
use bollard::exec::{CreateExecOptions, StartExecOptions, StartExecResults};
use bollard::query_parameters::UploadToContainerOptions;
use futures_util::StreamExt;
use sandkeep_net::intercept::Interceptor;
use sandkeep_net::relay::{RELAY_PY, RelayHost};
use tokio::io::AsyncWriteExt;
use tokio::task::JoinHandle;

use super::archive;
use super::reaper::short;
use crate::sandbox::SandboxError;

/// Where the sandbox CA's certificate goes in the container.
pub const CA_DIR: &str = "/usr/local/share/ca-certificates";

/// Its file name there.
pub const CA_FILE: &str = "sandkeep-egress-ca.crt";

/// The system bundle the CA is appended to (Debian's).
pub const CA_BUNDLE: &str = "/etc/ssl/certs/ca-certificates.crt";

/// How long the relay may take to say which port it listens on.
const HELLO_WAIT: Duration = Duration::from_secs(15);

/// Where the `curl`/`wget` wrappers go (ahead of `/usr/bin` in `PATH`).
pub const WRAPPER_DIR: &str = "/usr/local/bin";

/// Appends the CA to the bundle (as `update-ca-certificates` would, minus
/// its seconds of rehashing).
const INSTALL_CA: &str = r#"cat "$1" >> "$2""#;

/// The running relay of one sandbox: its port, and the host-side tasks.
pub struct NetRelay {
    port: u16,
    egress: sandkeep_net::Egress,
    reader: JoinHandle<()>,
    writer: JoinHandle<()>,
}

impl NetRelay {
    /// The environment every run gets: the proxy and the CA bundle. Called
    /// once when each run starts, it also starts the run's network usage
    /// count afresh (the limits are per run, as on the local backend).
    pub fn env(&self) -> Vec<(String, String)> {
        self.egress.reset_usage();
        let proxy = format!("http://127.0.0.1:{}", self.port);
        let mut env: Vec<(String, String)> =
            ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"]
                .iter()
                .map(|k| (k.to_string(), proxy.clone()))
                .collect();
        for k in ["NO_PROXY", "no_proxy"] {
            env.push((k.to_string(), sandkeep_net::proxy::NO_PROXY.to_string()));
        }
        for k in ["SSL_CERT_FILE", "CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE"] {
            env.push((k.to_string(), CA_BUNDLE.to_string()));
        }
        env.push((
            "NODE_EXTRA_CA_CERTS".to_string(),
            format!("{CA_DIR}/{CA_FILE}"),
        ));
        env
    }
}

impl Drop for NetRelay {
    fn drop(&mut self) {
        self.reader.abort();
        self.writer.abort();
    }
}

/// Installs the sandbox CA and starts the relay in `container`, serving its
/// connections under `egress` (already scoped to the session).
pub async fn start(
    docker: &Docker,
    container: &str,
    egress: sandkeep_net::Egress,
) -> Result<NetRelay, SandboxError> {
    let backend = |what: &str, e: &dyn std::fmt::Display| {
        SandboxError::Backend(format!("egress relay: {what}: {e}"))
    };
    let name = format!("sandkeep sandbox {}", short(container));
    let ca = tokio::task::spawn_blocking(move || Interceptor::generate(&name))
        .await
        .map_err(|e| backend("CA", &e))?
        .map_err(|e| backend("CA", &e))?;
    install_ca(docker, container, ca.ca_pem()).await?;

    let exec = docker
        .create_exec(
            container,
            CreateExecOptions {
                attach_stdin: Some(true),
                attach_stdout: Some(true),
                attach_stderr: Some(true),
                tty: Some(false),
                cmd: Some(vec![
                    "python3".to_string(),
                    "-I".to_string(),
                    "-c".to_string(),
                    RELAY_PY.to_string(),
                ]),
                user: Some("root".to_string()),
                working_dir: Some("/".to_string()),
                ..Default::default()
            },
        )
        .await
        .map_err(|e| backend("exec", &e))?;
    let start = StartExecOptions {
        detach: false,
        tty: false,
        output_capacity: Some(256 * 1024),
    };
    let StartExecResults::Attached {
        mut output,
        mut input,
    } = docker
        .start_exec(&exec.id, Some(start))
        .await
        .map_err(|e| backend("exec start", &e))?
    else {
        return Err(SandboxError::Backend(
            "egress relay: exec started detached".into(),
        ));
    };

    // Frames to the relay: from the proxy's threads into one ordered queue.
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
    let writer = tokio::spawn(async move {
        while let Some(frame) = rx.recv().await {
            if input.write_all(&frame).await.is_err() {
                break;
            }
        }
        let _ = input.shutdown().await;
    });
    let outbox: sandkeep_net::relay::Outbox = Arc::new(move |frame| tx.send(frame).is_ok());
    let host = Arc::new(Mutex::new(RelayHost::new(
        egress.clone(),
        Some(Arc::new(ca)),
        outbox,
    )));

    let id = short(container).to_string();
    let (port_tx, port_rx) = tokio::sync::oneshot::channel::<Result<u16, String>>();
    let reader = tokio::spawn({
        let host = host.clone();
        async move {
            let mut port_tx = Some(port_tx);
            let mut stderr = Vec::new();
            while let Some(item) = output.next().await {
                match item {
                    Ok(LogOutput::StdOut { message }) => {
                        let mut host = host.lock().unwrap_or_else(|e| e.into_inner());
                        if let Err(e) = host.feed(&message) {
                            tracing::warn!(container = %id, "{e}");
                            break;
                        }
                        if let Some(port) = host.port()
                            && let Some(tx) = port_tx.take()
                        {
                            let _ = tx.send(Ok(port));
                        }
                    }
                    Ok(LogOutput::StdErr { message }) => {
                        if stderr.len() < 4096 {
                            stderr.extend_from_slice(&message);
                        }
                    }
                    Ok(_) => {}
                    Err(e) => {
                        tracing::debug!(container = %id, "egress relay stream: {e}");
                        break;
                    }
                }
            }
            host.lock().unwrap_or_else(|e| e.into_inner()).close_all();
            let why = String::from_utf8_lossy(&stderr).trim().to_string();
            if let Some(tx) = port_tx.take() {
                let _ = tx.send(Err(if why.is_empty() {
                    "it exited before listening".to_string()
                } else {
                    why
                }));
            } else {
                tracing::debug!(container = %id, "egress relay ended: {why}");
            }
        }
    });
    let relay_port = match tokio::time::timeout(HELLO_WAIT, port_rx).await {
        Ok(Ok(Ok(port))) => port,
        Ok(Ok(Err(why))) => {
            reader.abort();
            writer.abort();
            return Err(SandboxError::Backend(format!(
                "egress relay did not start: {why}"
            )));
        }
        _ => {
            reader.abort();
            writer.abort();
            return Err(SandboxError::Backend(format!(
                "egress relay did not start within {HELLO_WAIT:?}"
            )));
        }
    };
    if let Err(e) = install_wrappers(docker, container, relay_port).await {
        reader.abort();
        writer.abort();
        return Err(e);
    }
    Ok(NetRelay {
        port: relay_port,
        egress,
        reader,
        writer,
    })
}

/// Puts the `curl` and `wget` wrappers for the relay on `port` in
/// [`WRAPPER_DIR`], owned by root and not writable by the sandbox user.
async fn install_wrappers(docker: &Docker, container: &str, port: u16) -> Result<(), SandboxError> {
    let failed = |e: &dyn std::fmt::Display| {
        SandboxError::Backend(format!("egress relay: installing curl/wget wrappers: {e}"))
    };
    let text = sandkeep_net::wrapper::script(port);
    let mtime = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let mut builder = tar::Builder::new(Vec::with_capacity(2 * text.len() + 4096));
    for name in ["curl", "wget"] {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Regular);
        header.set_size(text.len() as u64);
        header.set_mode(0o755);
        header.set_uid(0);
        header.set_gid(0);
        header.set_mtime(mtime);
        header.set_username("root").map_err(|e| failed(&e))?;
        header.set_groupname("root").map_err(|e| failed(&e))?;
        builder
            .append_data(&mut header, name, text.as_bytes())
            .map_err(|e| failed(&e))?;
    }
    let tar = builder.into_inner().map_err(|e| failed(&e))?;
    docker
        .upload_to_container(
            container,
            Some(UploadToContainerOptions {
                path: WRAPPER_DIR.to_string(),
                ..Default::default()
            }),
            bollard::body_full(tar.into()),
        )
        .await
        .map_err(|e| failed(&e))
}

/// Puts the CA certificate in [`CA_DIR`] and appends it to [`CA_BUNDLE`].
async fn install_ca(docker: &Docker, container: &str, pem: &str) -> Result<(), SandboxError> {
    let mtime = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let tar = archive::single_file_tar(CA_FILE, pem.as_bytes(), mtime)?;
    docker
        .upload_to_container(
            container,
            Some(UploadToContainerOptions {
                path: CA_DIR.to_string(),
                ..Default::default()
            }),
            bollard::body_full(tar.into()),
        )
        .await
        .map_err(|e| SandboxError::Backend(format!("egress relay: installing the CA: {e}")))?;
    let file = format!("{CA_DIR}/{CA_FILE}");
    let exec = docker
        .create_exec(
            container,
            CreateExecOptions {
                attach_stdout: Some(true),
                attach_stderr: Some(true),
                cmd: Some(
                    ["bash", "-c", INSTALL_CA, "install-ca", &file, CA_BUNDLE]
                        .iter()
                        .map(|s| s.to_string())
                        .collect(),
                ),
                user: Some("root".to_string()),
                working_dir: Some("/".to_string()),
                ..Default::default()
            },
        )
        .await
        .map_err(|e| SandboxError::Backend(format!("egress relay: installing the CA: {e}")))?;
    let mut text = Vec::new();
    if let StartExecResults::Attached { mut output, .. } =
        docker
            .start_exec(&exec.id, None)
            .await
            .map_err(|e| SandboxError::Backend(format!("egress relay: installing the CA: {e}")))?
    {
        while let Some(Ok(item)) = output.next().await {
            text.extend_from_slice(item.as_ref());
        }
    }
    match super::exec::exit_code(docker, &exec.id).await {
        Ok(0) => Ok(()),
        Ok(code) => Err(SandboxError::Backend(format!(
            "egress relay: installing the CA failed ({code}): {}",
            String::from_utf8_lossy(&text).trim()
        ))),
        Err(e) => Err(e),
    }
}
