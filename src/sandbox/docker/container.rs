//! A sandbox container: how it is configured (no mounts, unprivileged, every
//! capability dropped, limits, labels), the [`Sandbox`] operations on it, and
//! the guard that removes it when the sandbox is dropped without `stop`.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bollard::Docker;
use bollard::exec::{CreateExecOptions, StartExecResults};
use bollard::models::{ContainerCreateBody, HostConfig};
use bollard::query_parameters::{
    CreateContainerOptions, DownloadFromContainerOptions, RemoveContainerOptions,
    UploadToContainerOptions,
};
use futures_util::StreamExt;

use super::archive::{self, Downloaded, Head};
use super::config::DockerConfig;
use super::exec::{self, RunLimits};
use super::procs;
use super::reaper::{LABEL_AGENT, LABEL_SESSION, Owner, short};
use super::storage::{self, StorageLimit};
use super::{connect, map_api_error};
use crate::sandbox::workspace::{self, WorkspaceChanges};
use crate::sandbox::{
    BackendKind, FileHead, RunRequest, RunResult, Sandbox, SandboxError, SandboxSpec,
};

/// The environment every sandbox starts with, as in the local backend.
const BASE_ENV: [(&str, &str); 5] = [
    ("PATH", "/usr/local/bin:/usr/bin:/bin"),
    ("HOME", "/workspace"),
    ("USER", "sandbox"),
    ("SHELL", "/bin/bash"),
    ("LANG", "C.UTF-8"),
];

/// How many symlinks `read_file` follows before giving up (Linux's limit).
const MAX_SYMLINKS: usize = 40;

/// The largest file `read_file` returns whole (the cap of an archive
/// member: what the host holds of one file at a time).
pub const MAX_READ_BYTES: usize = crate::archive::tree::MAX_MEMBER_BYTES as usize;

/// How long the drop guard waits for the container's removal.
const DROP_REMOVE_WAIT: Duration = Duration::from_secs(20);

/// The create request for a sandbox container.
pub fn create_body(
    config: &DockerConfig,
    spec: &SandboxSpec,
    owner: &Owner,
) -> ContainerCreateBody {
    let mut labels: HashMap<String, String> = HashMap::from([
        (LABEL_SESSION.to_string(), spec.session_id.clone()),
        (LABEL_AGENT.to_string(), spec.agent.clone()),
    ]);
    labels.extend(owner.labels());
    let env = BASE_ENV
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .chain(config.env.iter().cloned())
        .chain(spec.env.iter().cloned())
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    ContainerCreateBody {
        image: Some(config.image.clone()),
        hostname: Some("sandbox".into()),
        user: Some(config.user.clone()),
        working_dir: Some("/workspace".into()),
        env: Some(env),
        // The container only idles; every run is an exec. An empty entrypoint
        // overrides whatever the image declares.
        entrypoint: Some(Vec::new()),
        cmd: Some(vec!["sleep".into(), "infinity".into()]),
        labels: Some(labels),
        host_config: Some(HostConfig {
            privileged: Some(false),
            cap_drop: Some(vec!["ALL".into()]),
            security_opt: Some(vec!["no-new-privileges".into()]),
            network_mode: Some(config.network.network_mode().into()),
            memory: Some(config.memory_bytes),
            memory_swap: Some(config.memory_bytes),
            pids_limit: Some(config.pids_limit),
            nano_cpus: Some(config.nano_cpus),
            // tini as PID 1 reaps the zombies of killed runs.
            init: Some(true),
            binds: Some(Vec::new()),
            mounts: Some(Vec::new()),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A container name: `sandkeep-<session>-<random>`, reduced to the characters
/// docker accepts.
pub fn container_name(session: &str) -> String {
    let clean: String = session
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '-'
            }
        })
        .take(40)
        .collect();
    let suffix = format!("{:08x}", rand::random::<u32>());
    if clean.is_empty() {
        format!("sandkeep-{suffix}")
    } else {
        format!("sandkeep-{clean}-{suffix}")
    }
}

/// Creates and starts a container; removes it again if it cannot start.
pub async fn start(
    docker: &Docker,
    config: &Arc<DockerConfig>,
    spec: &SandboxSpec,
    owner: &Owner,
) -> Result<DockerSandbox, SandboxError> {
    start_labelled(docker, config, spec, owner, &[]).await
}

/// [`start`] with labels on top of the usual ones (the pool marks its
/// containers).
pub(crate) async fn start_labelled(
    docker: &Docker,
    config: &Arc<DockerConfig>,
    spec: &SandboxSpec,
    owner: &Owner,
    extra_labels: &[(String, String)],
) -> Result<DockerSandbox, SandboxError> {
    let mut body = create_body(config, spec, owner);
    if let Some(labels) = body.labels.as_mut() {
        labels.extend(extra_labels.iter().cloned());
    }
    let options = CreateContainerOptions {
        name: Some(container_name(&spec.session_id)),
        ..Default::default()
    };
    let (created, storage) = storage::create_limited(
        docker,
        &config.resolved_host(),
        options,
        body,
        config.storage_bytes,
    )
    .await
    .map_err(map_api_error)?;
    let sandbox = DockerSandbox {
        docker: docker.clone(),
        config: Arc::clone(config),
        id: created.id,
        stopped: AtomicBool::new(false),
        #[cfg(feature = "net")]
        net: std::sync::Mutex::new(None),
        storage,
        keep: Arc::new(tokio::sync::OnceCell::new()),
    };
    for warning in created.warnings {
        tracing::debug!(container = %short(&sandbox.id), "docker: {warning}");
    }
    if let Err(e) = docker
        .start_container(
            &sandbox.id,
            None::<bollard::query_parameters::StartContainerOptions>,
        )
        .await
    {
        // Dropping `sandbox` removes the container.
        return Err(map_api_error(e));
    }
    tracing::debug!(container = %short(&sandbox.id), session = %spec.session_id, "sandbox container started");
    Ok(sandbox)
}

/// A sandbox backed by one container.
pub struct DockerSandbox {
    docker: Docker,
    config: Arc<DockerConfig>,
    id: String,
    stopped: AtomicBool,
    /// The relay to the egress proxy, when the backend has an egress.
    #[cfg(feature = "net")]
    net: std::sync::Mutex<Option<super::net::NetRelay>>,
    /// How the storage limit is enforced.
    storage: StorageLimit,
    /// The pids the sweep keeps (taken before the first run).
    keep: Arc<tokio::sync::OnceCell<Vec<u32>>>,
}

impl DockerSandbox {
    /// How this container's storage limit is enforced.
    pub fn storage_limit(&self) -> StorageLimit {
        self.storage
    }

    /// Runs `work` as a run of the container: after the processes present
    /// before the first run are noted, and followed by the sweep of every
    /// process that is neither one of them nor in a running exec's session
    /// (see [`procs`]), before the run's result is returned.
    async fn tracked<T>(&self, work: impl std::future::Future<Output = T>) -> T {
        let keep = self.baseline().await;
        let out = work.await;
        if !keep.is_empty() {
            procs::sweep(&self.docker, &self.id, &self.config.user, keep).await;
        }
        out
    }

    /// The pids the sweep keeps, noted on the first call (before the first
    /// run, or ahead of it by the pool: the container has run nothing else
    /// by then, so the list is the same).
    pub(crate) async fn baseline(&self) -> &[u32] {
        self.keep
            .get_or_init(|| async {
                procs::baseline(&self.docker, &self.id, &self.config.user)
                    .await
                    .unwrap_or_else(|e| {
                        tracing::debug!(container = %short(&self.id), "baseline: {e}");
                        Vec::new()
                    })
            })
            .await
    }

    /// Renames the container after the session that took it from the pool,
    /// as [`start`] would have named it. The returned future owns what it
    /// needs, so it can run in the background: the name is for people
    /// reading `docker ps` (the session's event log records the container
    /// id), and a failure is only logged.
    pub(crate) fn rename_for(
        &self,
        session: &str,
    ) -> impl std::future::Future<Output = ()> + use<> {
        let (docker, id) = (self.docker.clone(), self.id.clone());
        let (session, name) = (session.to_string(), container_name(session));
        async move {
            let options = bollard::query_parameters::RenameContainerOptions { name };
            if let Err(e) = docker.rename_container(&id, options).await {
                tracing::debug!(container = %short(&id), "rename for session {session}: {e}");
            }
        }
    }

    /// Gives every later run the way out through `relay`.
    #[cfg(feature = "net")]
    pub(crate) fn attach_net(&self, relay: super::net::NetRelay) {
        *self.net.lock().unwrap_or_else(|e| e.into_inner()) = Some(relay);
    }

    /// The environment the egress relay adds to a run (none without one).
    fn net_env(&self) -> Vec<(String, String)> {
        #[cfg(feature = "net")]
        if let Some(relay) = &*self.net.lock().unwrap_or_else(|e| e.into_inner()) {
            return relay.env();
        }
        Vec::new()
    }

    fn check(&self) -> Result<(), SandboxError> {
        if self.stopped.load(Ordering::SeqCst) {
            Err(SandboxError::Gone(self.id.clone()))
        } else {
            Ok(())
        }
    }

    /// Runs one of the workspace sync's own scripts and returns its stdout
    /// (up to [`MAX_READ_BYTES`]); fails with its stderr. Unlike an agent's
    /// run there is no process sweep after it (nothing of the agent's runs
    /// in it) and no storage watch (it only moves what the agent already
    /// had): each would cost the park another round trip to the daemon.
    async fn sync_run(&self, mut request: RunRequest) -> Result<Vec<u8>, SandboxError> {
        self.check()?;
        request.fresh_shell = true;
        let limits = RunLimits {
            timeout: workspace::SYNC_TIMEOUT,
            max_output_bytes: MAX_READ_BYTES,
            storage_watch: None,
        };
        let out = exec::run(&self.docker, &self.id, &self.config.user, request, limits).await?;
        if out.truncated {
            return Err(SandboxError::Backend(format!(
                "the workspace's changes are more than the {MAX_READ_BYTES} bytes a park reads"
            )));
        }
        workspace::script_succeeded(&out)?;
        Ok(out.stdout)
    }

    fn limits(&self) -> RunLimits {
        RunLimits {
            timeout: self.config.run_timeout,
            max_output_bytes: self.config.max_output_bytes,
            storage_watch: self.storage.watched(),
        }
    }

    /// Runs a helper command (argv, no shell parsing of paths) as the sandbox
    /// user; returns its stderr on failure.
    async fn helper(&self, argv: &[&str]) -> Result<(), String> {
        let exec = self
            .docker
            .create_exec(
                &self.id,
                CreateExecOptions {
                    attach_stdout: Some(true),
                    attach_stderr: Some(true),
                    cmd: Some(argv.iter().map(|s| s.to_string()).collect()),
                    user: Some(self.config.user.clone()),
                    working_dir: Some("/".to_string()),
                    ..Default::default()
                },
            )
            .await
            .map_err(|e| e.to_string())?;
        let mut text = Vec::new();
        if let StartExecResults::Attached { mut output, .. } = self
            .docker
            .start_exec(&exec.id, None)
            .await
            .map_err(|e| e.to_string())?
        {
            while let Some(item) = output.next().await {
                text.extend_from_slice(item.map_err(|e| e.to_string())?.as_ref());
            }
        }
        match exec::exit_code(&self.docker, &exec.id)
            .await
            .map_err(|e| e.to_string())?
        {
            0 => Ok(()),
            _ => Err(String::from_utf8_lossy(&text).trim().to_string()),
        }
    }

    async fn upload(&self, parent: &str, tar: Vec<u8>) -> Result<(), bollard::errors::Error> {
        let options = UploadToContainerOptions {
            path: parent.to_string(),
            // A file never silently replaces a directory (or the reverse).
            no_overwrite_dir_non_dir: Some("true".into()),
            ..Default::default()
        };
        self.docker
            .upload_to_container(&self.id, Some(options), bollard::body_full(tar.into()))
            .await
    }

    /// The first entry of the archive API's tar of one path (a file's first
    /// `max` bytes and its size), or `None` when the path does not exist.
    /// The download stops as soon as that much has arrived.
    async fn download_head(
        &self,
        abs: &str,
        max: usize,
        whole: bool,
    ) -> Result<Option<(Downloaded, u64)>, SandboxError> {
        let options = DownloadFromContainerOptions {
            path: abs.to_string(),
        };
        let mut stream = self.docker.download_from_container(&self.id, Some(options));
        let mut tar = Vec::new();
        while let Some(chunk) = stream.next().await {
            match chunk {
                Ok(bytes) => tar.extend_from_slice(&bytes),
                Err(bollard::errors::Error::DockerResponseServerError {
                    status_code: 404,
                    message,
                }) if !message.contains("No such container") => {
                    return Ok(None);
                }
                Err(e) => return Err(self.map_error(e)),
            }
            if let Head::Entry(entry, size) =
                archive::parse_head(&tar, max, whole).map_err(SandboxError::Backend)?
            {
                return Ok(Some((entry, size)));
            }
        }
        match archive::parse_head(&tar, max, whole).map_err(SandboxError::Backend)? {
            Head::Entry(entry, size) => Ok(Some((entry, size))),
            Head::NeedMore => Err(SandboxError::Backend(
                "the daemon's archive of the file ended early".into(),
            )),
        }
    }

    /// A file's first `max` bytes and size, following symlinks as the
    /// container would.
    async fn read_head(
        &self,
        path: &str,
        max: usize,
        whole: bool,
    ) -> Result<Option<FileHead>, SandboxError> {
        self.check()?;
        let mut abs = archive::resolve(path)?;
        for _ in 0..MAX_SYMLINKS {
            let Some((entry, size)) = self.download_head(&abs, max, whole).await? else {
                return Ok(None);
            };
            match entry {
                Downloaded::File(data) => return Ok(Some(FileHead { data, size })),
                Downloaded::Symlink(target) => abs = archive::follow(&abs, &target)?,
                Downloaded::Directory => {
                    return Err(SandboxError::Path {
                        path: path.into(),
                        reason: "is a directory".into(),
                    });
                }
                Downloaded::Other => {
                    return Err(SandboxError::Path {
                        path: path.into(),
                        reason: "not a regular file".into(),
                    });
                }
            }
        }
        Err(SandboxError::Path {
            path: path.into(),
            reason: "too many levels of symbolic links".into(),
        })
    }

    fn map_error(&self, e: bollard::errors::Error) -> SandboxError {
        match &e {
            bollard::errors::Error::DockerResponseServerError {
                status_code: 404,
                message,
            } if message.contains("No such container") => SandboxError::Gone(self.id.clone()),
            bollard::errors::Error::DockerResponseServerError {
                status_code: 409,
                message,
            } if message.contains("not running") => SandboxError::Gone(self.id.clone()),
            _ => map_api_error(e),
        }
    }
}

#[async_trait::async_trait]
impl Sandbox for DockerSandbox {
    fn id(&self) -> &str {
        &self.id
    }

    fn backend(&self) -> BackendKind {
        BackendKind::Docker
    }

    async fn run(&self, mut request: RunRequest) -> Result<RunResult, SandboxError> {
        self.check()?;
        // The run's own variables come later, so they win.
        let mut env = self.net_env();
        env.append(&mut request.env);
        request.env = env;
        self.tracked(exec::run(
            &self.docker,
            &self.id,
            &self.config.user,
            request,
            self.limits(),
        ))
        .await
    }

    async fn shell_state(&self) -> Result<Option<crate::sandbox::ShellSnapshot>, SandboxError> {
        self.check()?;
        let request = RunRequest::new(super::shell_state::DUMP_SCRIPT).fresh_shell();
        let limits = RunLimits {
            timeout: workspace::SYNC_TIMEOUT,
            max_output_bytes: MAX_READ_BYTES,
            storage_watch: None,
        };
        let out = exec::run(&self.docker, &self.id, &self.config.user, request, limits).await?;
        match out.exit_code {
            3 => Ok(None),
            0 if !out.truncated => Ok(Some(super::shell_state::parse_dump(&out.stdout))),
            code => Err(SandboxError::Backend(format!(
                "the shell state was not read (exit {code}{}): {}",
                if out.truncated { ", truncated" } else { "" },
                out.stderr_text().trim()
            ))),
        }
    }

    async fn restore_shell_state(
        &self,
        snapshot: &crate::sandbox::ShellSnapshot,
    ) -> Result<(), SandboxError> {
        let (state, opts) = super::shell_state::restore_files(snapshot);
        let dir = super::shell_state::STATE_DIR;
        for (name, text) in [("opts.sh", opts), ("state.sh", state)] {
            let request = RunRequest {
                stdin: text.into_bytes(),
                ..RunRequest::new(format!(
                    "mkdir -p {dir} && cat > {dir}/{name}.new && mv -f {dir}/{name}.new {dir}/{name}"
                ))
            };
            self.sync_run(request).await?;
        }
        Ok(())
    }

    async fn read_file(&self, path: &str) -> Result<Option<Vec<u8>>, SandboxError> {
        let Some(head) = self.read_head(path, MAX_READ_BYTES, true).await? else {
            return Ok(None);
        };
        if head.truncated() {
            return Err(SandboxError::Path {
                path: path.into(),
                reason: format!(
                    "the file is {} bytes, more than the {MAX_READ_BYTES} bytes a read returns",
                    head.size
                ),
            });
        }
        Ok(Some(head.data))
    }

    async fn read_file_head(
        &self,
        path: &str,
        max: usize,
    ) -> Result<Option<FileHead>, SandboxError> {
        self.read_head(path, max, false).await
    }

    async fn write_file(&self, path: &str, data: &[u8]) -> Result<(), SandboxError> {
        self.check()?;
        let abs = archive::resolve(path)?;
        let (parent, name) = archive::split_parent(&abs)?;
        let mtime = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let (name_owned, data_owned) = (name.to_string(), data.to_vec());
        let tar = tokio::task::spawn_blocking(move || {
            archive::single_file_tar(&name_owned, &data_owned, mtime)
        })
        .await
        .map_err(|e| SandboxError::Backend(e.to_string()))??;
        match self.upload(parent, tar.clone()).await {
            Ok(()) => Ok(()),
            // The parent directory does not exist: create it as the sandbox
            // user would (`mkdir -p`), then upload again.
            Err(bollard::errors::Error::DockerResponseServerError {
                status_code: 404,
                message,
            }) if !message.contains("No such container") => {
                self.helper(&["mkdir", "-p", "--", parent])
                    .await
                    .map_err(|reason| SandboxError::Path {
                        path: path.into(),
                        reason,
                    })?;
                self.upload(parent, tar)
                    .await
                    .map_err(|e| path_error(path, e))
            }
            Err(e) => Err(path_error(path, e)),
        }
        .map_err(|e| match e {
            SandboxError::Backend(m) if m.contains("No such container") => {
                SandboxError::Gone(self.id.clone())
            }
            other => other,
        })
    }

    /// `tar xf -` with the archive on the exec's stdin: no upload first.
    async fn import_workspace(&self, tar: &[u8]) -> Result<(), SandboxError> {
        if tar.is_empty() {
            return Ok(());
        }
        let request = RunRequest {
            stdin: tar.to_vec(),
            ..RunRequest::new("mkdir -p /workspace && tar xf - -C /workspace")
        };
        self.sync_run(request).await.map(drop)
    }

    async fn mark_workspace(&self) -> Result<(), SandboxError> {
        self.sync_run(RunRequest::new(workspace::MARK_SCRIPT))
            .await
            .map(drop)
    }

    /// The shell's script with its tar sent back on stdout: one exec and no
    /// archive read per park.
    async fn workspace_changes(&self) -> Result<Option<WorkspaceChanges>, SandboxError> {
        let script = format!(
            "{} && cat {}",
            workspace::CHANGES_SCRIPT,
            workspace::CHANGES_TAR
        );
        let tar = self.sync_run(RunRequest::new(script)).await?;
        workspace::split_changes(&tar).map(Some)
    }

    async fn remove_path(&self, path: &str) -> Result<(), SandboxError> {
        self.check()?;
        let abs = archive::resolve(path)?;
        if abs == "/" {
            return Err(SandboxError::Path {
                path: path.into(),
                reason: "refusing to remove /".into(),
            });
        }
        self.helper(&["rm", "-rf", "--", &abs])
            .await
            .map_err(|reason| SandboxError::Path {
                path: path.into(),
                reason,
            })
    }

    async fn stop(&self) -> Result<(), SandboxError> {
        if self.stopped.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        #[cfg(feature = "net")]
        drop(self.net.lock().unwrap_or_else(|e| e.into_inner()).take());
        remove(&self.docker, &self.id).await
    }
}

impl Drop for DockerSandbox {
    /// The guard: a sandbox dropped without `stop` (an error path, a panic, a
    /// cancelled session) still removes its container. The removal runs on its
    /// own thread and runtime with a fresh connection, because the caller's
    /// runtime may be shutting down (the end of a `#[tokio::test]`), and the
    /// drop waits for it so that a process exiting right after still cleans up.
    fn drop(&mut self) {
        if self.stopped.swap(true, Ordering::SeqCst) {
            return;
        }
        let (id, config) = (self.id.clone(), Arc::clone(&self.config));
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new().name("sandkeep-container-guard".into()).spawn(move || {
            let result = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| SandboxError::Backend(e.to_string()))
                .and_then(|rt| {
                    rt.block_on(async {
                        let docker = connect(&config)?;
                        remove(&docker, &id).await
                    })
                });
            if let Err(e) = result {
                tracing::warn!(container = %short(&id), "drop guard: cannot remove container: {e}");
            }
            let _ = done_tx.send(());
        });
        match spawned {
            Ok(_) => {
                let _ = done_rx.recv_timeout(DROP_REMOVE_WAIT);
            }
            Err(e) => tracing::warn!(container = %short(&self.id), "drop guard: no thread: {e}"),
        }
    }
}

/// Force-removes a container; one that is already gone counts as removed.
pub async fn remove(docker: &Docker, id: &str) -> Result<(), SandboxError> {
    let options = RemoveContainerOptions {
        force: true,
        v: true,
        ..Default::default()
    };
    match docker.remove_container(id, Some(options)).await {
        Ok(()) => {
            tracing::debug!(container = %short(id), "sandbox container removed");
            Ok(())
        }
        Err(bollard::errors::Error::DockerResponseServerError {
            status_code: 404, ..
        }) => Ok(()),
        // "removal of container ... is already in progress"
        Err(bollard::errors::Error::DockerResponseServerError {
            status_code: 409,
            message,
        }) if message.contains("already in progress") => Ok(()),
        Err(e) => Err(map_api_error(e)),
    }
}

fn path_error(path: &str, e: bollard::errors::Error) -> SandboxError {
    match e {
        bollard::errors::Error::DockerResponseServerError {
            status_code: 400 | 403 | 404 | 500,
            message,
        } if !message.contains("No such container") => SandboxError::Path {
            path: path.into(),
            reason: message,
        },
        other => map_api_error(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_container_is_locked_down() {
        let spec = SandboxSpec {
            session_id: "s-1".into(),
            agent: "agent".into(),
            env: vec![("A".into(), "1".into())],
        };
        let owner = Owner {
            host: "h".into(),
            pid: 7,
            start: "99".into(),
        };
        let body = create_body(&DockerConfig::default(), &spec, &owner);
        let host = body.host_config.unwrap();
        assert_eq!(host.privileged, Some(false));
        assert_eq!(host.cap_drop, Some(vec!["ALL".to_string()]));
        assert_eq!(
            host.security_opt,
            Some(vec!["no-new-privileges".to_string()])
        );
        assert_eq!(host.network_mode.as_deref(), Some("none"));
        assert_eq!(host.init, Some(true));
        assert!(host.binds.unwrap().is_empty() && host.mounts.unwrap().is_empty());
        assert_eq!(body.user.as_deref(), Some("sandbox"));
        assert_eq!(body.working_dir.as_deref(), Some("/workspace"));
        let labels = body.labels.unwrap();
        assert_eq!(labels["sandkeep.session"], "s-1");
        assert_eq!(labels["sandkeep.agent"], "agent");
        assert_eq!(labels["sandkeep.owner"], "7");
        assert!(body.env.unwrap().contains(&"A=1".to_string()));
    }

    #[test]
    fn container_names_are_docker_safe() {
        let n = container_name("agent/séssion 1");
        assert!(n.starts_with("sandkeep-agent-s-ssion-1-"), "{n}");
        assert!(
            n.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
        );
        assert!(container_name("").starts_with("sandkeep-"));
    }
}
