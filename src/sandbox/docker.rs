//! The docker backend: one container per sandbox through the Engine API
//! (bollard). A container gets no mounts, no privileges, no capabilities and
//! no network unless asked; every run is a `bash -c` exec in it, files move
//! through the archive API, and the container is removed on `stop`, on drop,
//! or by the start-up reaper once its owner process is gone.
//!
//! - [`config`]: [`DockerConfig`], network and pull policies
//! - [`container`]: the container's configuration and the [`Sandbox`] on it
//! - [`exec`]: one run (output, exit code, timeout and output limit)
//! - [`archive`]: paths and tar streams for `read_file`/`write_file`
//! - [`reaper`]: owner labels and the removal of orphans
//! - `net` (feature `net`): the relay to the host-side egress proxy
//! - [`procs`]: which processes belong to a run, the kill and the sweep
//! - [`pool`]: warm containers, created and started ahead of the sessions
//! - [`storage`]: the storage limit (the driver's quota or a watched one)
//! - [`shell_state`]: the session's shell state, captured at the end of a
//!   run and restored at the start of the next
//!
//! [`Sandbox`]: crate::sandbox::Sandbox

pub mod archive;
pub mod config;
pub mod container;
pub mod exec;
#[cfg(feature = "net")]
pub mod net;
pub mod pool;
pub mod procs;
pub mod reaper;
pub mod shell_state;
pub mod storage;

use std::sync::Arc;

use bollard::Docker;
use bollard::query_parameters::CreateImageOptions;
use futures_util::StreamExt;

pub use config::{DEFAULT_IMAGE, DockerConfig, NetworkPolicy, PullPolicy};
pub use container::DockerSandbox;
pub use pool::{PoolConfig, PoolStats};
pub use reaper::Owner;

use super::{Backend, BackendKind, Sandbox, SandboxError, SandboxSpec};

/// The script that builds the default image without a registry.
pub const BUILD_SCRIPT: &str = "fixtures/docker/build-image.sh";

/// A bollard client for the configured daemon. No I/O happens here; the first
/// request connects.
pub fn connect(config: &DockerConfig) -> Result<Docker, SandboxError> {
    let host = config.resolved_host();
    let timeout = config.request_timeout.as_secs().max(1);
    let version = bollard::API_DEFAULT_VERSION;
    let docker = if let Some(path) = host.strip_prefix("unix://") {
        Docker::connect_with_unix(path, timeout, version)
    } else if host.starts_with('/') {
        Docker::connect_with_unix(&host, timeout, version)
    } else if host.starts_with("tcp://") || host.starts_with("http://") {
        Docker::connect_with_http(&host, timeout, version)
    } else {
        return Err(SandboxError::Backend(format!(
            "unsupported DOCKER_HOST {host:?} (expected unix:///path or tcp://host:port)"
        )));
    };
    docker.map_err(|e| SandboxError::Backend(e.to_string()))
}

/// Turns a bollard error into a backend error with the daemon's message.
pub fn map_api_error(e: bollard::errors::Error) -> SandboxError {
    match e {
        bollard::errors::Error::DockerResponseServerError {
            status_code,
            message,
        } => SandboxError::Backend(format!("docker: {message} (HTTP {status_code})")),
        other => SandboxError::Backend(format!("docker: {other}")),
    }
}

/// What the backend and its pool share: the client, the configuration, the
/// owner labels and whether the image is known to be there.
pub(crate) struct Core {
    pub(crate) docker: Docker,
    pub(crate) config: Arc<DockerConfig>,
    pub(crate) owner: Owner,
    image_ready: tokio::sync::OnceCell<()>,
}

impl Core {
    async fn image_present(&self) -> Result<bool, SandboxError> {
        match self.docker.inspect_image(&self.config.image).await {
            Ok(_) => Ok(true),
            Err(bollard::errors::Error::DockerResponseServerError {
                status_code: 404, ..
            }) => Ok(false),
            Err(e) => Err(map_api_error(e)),
        }
    }

    /// Makes sure the image is there, pulling it as the pull policy allows.
    /// Done once per backend.
    pub(crate) async fn ensure_image(&self) -> Result<(), SandboxError> {
        self.image_ready
            .get_or_try_init(|| async {
                let image = &self.config.image;
                let present = self.image_present().await?;
                match self.config.pull {
                    PullPolicy::Never if !present => {
                        Err(self.missing_image("pull policy is never"))
                    }
                    PullPolicy::IfNotPresent if !present => self
                        .pull()
                        .await
                        .map_err(|e| self.missing_image(&format!("pull failed: {e}"))),
                    PullPolicy::Always => self.pull().await.map_err(|e| {
                        SandboxError::Backend(format!("pulling {image} (pull policy always): {e}"))
                    }),
                    _ => Ok(()),
                }
            })
            .await
            .map(|_| ())
    }

    async fn pull(&self) -> Result<(), String> {
        tracing::info!(image = %self.config.image, "pulling the sandbox image");
        let options = CreateImageOptions {
            from_image: Some(self.config.image.clone()),
            ..Default::default()
        };
        let mut stream = self.docker.create_image(Some(options), None, None);
        while let Some(item) = stream.next().await {
            let info = item.map_err(|e| e.to_string())?;
            if let Some(err) = info.error_detail.and_then(|d| d.message) {
                return Err(err);
            }
        }
        Ok(())
    }

    fn missing_image(&self, why: &str) -> SandboxError {
        SandboxError::Backend(format!(
            "docker image {image} is missing ({why}); build it without a registry with \
             `{BUILD_SCRIPT}`, or from fixtures/docker/Dockerfile with \
             `docker build -t {image} fixtures/docker`",
            image = self.config.image
        ))
    }
}

/// A connected docker daemon that creates sandbox containers. With a pool
/// ([`DockerConfig::pool`]), sessions take warm containers from it.
pub struct DockerBackend {
    core: Arc<Core>,
    host: String,
    api_version: String,
    pool: Option<pool::Pool>,
}

impl DockerBackend {
    /// Connects to the daemon: a ping within `config.ping_timeout`, then the
    /// API version both sides speak (engine 20.10 speaks 1.41). With
    /// `config.pool.size > 0` the pool starts filling in the background
    /// (this needs a tokio runtime).
    pub async fn connect(config: DockerConfig) -> Result<DockerBackend, SandboxError> {
        let host = config.resolved_host();
        let unreachable = |reason: String| {
            SandboxError::Backend(format!("no docker daemon answered at {host}: {reason}"))
        };
        let docker = connect(&config).map_err(|e| unreachable(e.to_string()))?;
        match tokio::time::timeout(config.ping_timeout, docker.ping()).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => return Err(unreachable(e.to_string())),
            Err(_) => {
                return Err(unreachable(format!(
                    "no answer within {:?}",
                    config.ping_timeout
                )));
            }
        }
        let docker =
            match tokio::time::timeout(config.ping_timeout, docker.negotiate_version()).await {
                Ok(Ok(d)) => d,
                Ok(Err(e)) => return Err(unreachable(format!("version negotiation: {e}"))),
                Err(_) => return Err(unreachable("version negotiation timed out".into())),
            };
        let api_version = docker.client_version().to_string();
        let owner = tokio::task::spawn_blocking(Owner::current)
            .await
            .map_err(|e| SandboxError::Backend(e.to_string()))?;
        let pool_config = config.pool.clone();
        let core = Arc::new(Core {
            docker,
            config: Arc::new(config),
            owner,
            image_ready: tokio::sync::OnceCell::new(),
        });
        let pool = (pool_config.size > 0).then(|| pool::Pool::start(core.clone(), pool_config));
        Ok(DockerBackend {
            core,
            host,
            api_version,
            pool,
        })
    }

    /// The bollard client (for inspection in tests and tools).
    pub fn docker(&self) -> &Docker {
        &self.core.docker
    }

    /// The configuration sandboxes are created with.
    pub fn config(&self) -> &DockerConfig {
        &self.core.config
    }

    /// The daemon address.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The Engine API version in use.
    pub fn api_version(&self) -> &str {
        &self.api_version
    }

    /// The pool's counters, or `None` without a pool.
    pub fn pool_stats(&self) -> Option<PoolStats> {
        self.pool.as_ref().map(pool::Pool::stats)
    }

    /// Whether the daemon has the configured image.
    pub async fn image_present(&self) -> Result<bool, SandboxError> {
        self.core.image_present().await
    }

    /// Makes sure the image is there, pulling it as the pull policy allows.
    /// Done once per backend.
    pub async fn ensure_image(&self) -> Result<(), SandboxError> {
        self.core.ensure_image().await
    }

    /// Removes the containers labelled `sandkeep.session` whose owner process is gone.
    pub async fn reap_orphans(&self) -> Result<usize, SandboxError> {
        reaper::reap(&self.core.docker).await
    }
}

#[async_trait::async_trait]
impl Backend for DockerBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Docker
    }

    async fn create(&self, spec: &SandboxSpec) -> Result<Arc<dyn Sandbox>, SandboxError> {
        self.core.ensure_image().await?;
        let warm = self.pool.as_ref().and_then(|p| p.take(spec));
        let sandbox = match warm {
            Some(sandbox) => sandbox,
            None => {
                let core = &self.core;
                container::start(&core.docker, &core.config, spec, &core.owner).await?
            }
        };
        #[cfg(feature = "net")]
        if let Some(egress) = &self.core.config.egress {
            // On error, dropping `sandbox` removes the container.
            let relay = net::start(
                &self.core.docker,
                sandbox.id(),
                egress.scoped(&spec.session_id),
            )
            .await?;
            sandbox.attach_net(relay);
        }
        Ok(Arc::new(sandbox))
    }

    #[cfg(feature = "net")]
    fn egress(&self) -> Option<sandkeep_net::Egress> {
        self.core.config.egress.clone()
    }

    /// Stops the pool's refills and removes its warm containers.
    async fn close(&self) {
        if let Some(pool) = &self.pool {
            pool.close().await;
        }
    }
}
