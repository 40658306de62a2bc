//! Backend selection: `--backend local|docker|auto` (or `SANDKEEP_BACKEND`).
//! `auto` takes docker when a daemon answers a ping within a short timeout and
//! has (or may pull) the sandbox image, and the local backend otherwise; the
//! choice and its reason are logged.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use super::docker::{DockerBackend, DockerConfig, PullPolicy};
use super::{Backend, SandboxError};

/// The environment variable that picks the backend when no flag does.
pub const BACKEND_ENV: &str = "SANDKEEP_BACKEND";

/// Which backend the user asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BackendChoice {
    /// Docker when a daemon answers, else local.
    #[default]
    Auto,
    /// The in-process shell.
    Local,
    /// A docker daemon; an error when none answers.
    Docker,
}

impl BackendChoice {
    /// The choice in `SANDKEEP_BACKEND`, if it is set (an invalid value is an error).
    pub fn from_env() -> Result<Option<BackendChoice>, String> {
        match std::env::var(BACKEND_ENV) {
            Ok(v) if !v.trim().is_empty() => v
                .parse()
                .map(Some)
                .map_err(|e| format!("{BACKEND_ENV}: {e}")),
            _ => Ok(None),
        }
    }
}

impl fmt::Display for BackendChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BackendChoice::Auto => "auto",
            BackendChoice::Local => "local",
            BackendChoice::Docker => "docker",
        })
    }
}

impl FromStr for BackendChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(BackendChoice::Auto),
            "local" => Ok(BackendChoice::Local),
            "docker" => Ok(BackendChoice::Docker),
            other => Err(format!(
                "unknown backend {other:?} (expected auto, local or docker)"
            )),
        }
    }
}

/// Resolves a choice to a backend. `local` is returned for [`BackendChoice::Local`]
/// and as the fallback of [`BackendChoice::Auto`].
pub async fn choose_backend(
    choice: BackendChoice,
    docker: DockerConfig,
    local: Arc<dyn Backend>,
) -> Result<Arc<dyn Backend>, SandboxError> {
    match choice {
        BackendChoice::Local => {
            tracing::info!(backend = "local", "backend: local (asked for)");
            Ok(local)
        }
        BackendChoice::Docker => {
            let backend = DockerBackend::connect(docker).await?;
            tracing::info!(
                backend = "docker",
                "backend: docker (asked for; daemon at {} answered, API {})",
                backend.host(),
                backend.api_version()
            );
            Ok(Arc::new(backend))
        }
        BackendChoice::Auto => match auto_docker(docker).await {
            Ok(backend) => {
                tracing::info!(
                    backend = "docker",
                    "backend auto: docker (daemon at {} answered, API {})",
                    backend.host(),
                    backend.api_version()
                );
                Ok(Arc::new(backend))
            }
            Err(reason) => {
                tracing::info!(backend = "local", "backend auto: local ({reason})");
                Ok(local)
            }
        },
    }
}

/// Docker for `auto`: a daemon that answers and an image it has or may pull.
/// A daemon without the image and a `never` pull policy would fail every
/// session, so `auto` does not pick it.
async fn auto_docker(config: DockerConfig) -> Result<DockerBackend, String> {
    let backend = DockerBackend::connect(config)
        .await
        .map_err(|e| e.to_string())?;
    if backend.config().pull == PullPolicy::Never
        && !backend.image_present().await.map_err(|e| e.to_string())?
    {
        return Err(format!(
            "docker answered at {} but has no image {} and the pull policy is never; \
             build it with {}",
            backend.host(),
            backend.config().image,
            super::docker::BUILD_SCRIPT
        ));
    }
    Ok(backend)
}

/// The start-up reaper: removes the containers labelled `sandkeep.session`
/// whose owner process is gone. No daemon means nothing to reap (0).
pub async fn reap_orphans(docker: &DockerConfig) -> Result<usize, SandboxError> {
    // A connection of its own, without the pool the sessions' backend may have.
    let config = DockerConfig {
        pool: Default::default(),
        ..docker.clone()
    };
    let backend = match DockerBackend::connect(config).await {
        Ok(b) => b,
        Err(e) => {
            tracing::debug!("reaper: skipped ({e})");
            return Ok(0);
        }
    };
    let n = backend.reap_orphans().await?;
    if n > 0 {
        tracing::info!("reaper: removed {n} orphan sandbox container(s)");
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_parse_and_print_round_trip() {
        for c in [
            BackendChoice::Auto,
            BackendChoice::Local,
            BackendChoice::Docker,
        ] {
            assert_eq!(c.to_string().parse::<BackendChoice>().unwrap(), c);
        }
        assert_eq!(
            " Docker ".parse::<BackendChoice>().unwrap(),
            BackendChoice::Docker
        );
        assert!(
            "podman"
                .parse::<BackendChoice>()
                .unwrap_err()
                .contains("auto, local or docker")
        );
    }
}
