//! How much of the host's docker disk a sandbox may fill.
//!
//! Where the storage driver supports it (overlay2 on xfs with project quotas,
//! and a few others), the container is created with `--storage-opt size=`
//! and the kernel refuses writes past the limit. Elsewhere (overlay2 on ext4,
//! the common case) the daemon refuses that option, and the limit is watched:
//!
//! - every file is capped at the limit by the `fsize` rlimit (a write past it
//!   fails with "File size limit exceeded"), so one file cannot outrun the
//!   watcher;
//! - while a run is active, its container's writable layer (the daemon's
//!   `SizeRw`, which covers `/workspace`, `/tmp` and every other writable
//!   place) is measured a few times a second; a run that grows it past the
//!   limit is ended with `bash: storage limit exceeded`. A run that only
//!   removes files is never ended, so an agent over the limit can clean up.

use std::collections::HashMap;
use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Duration;

use bollard::Docker;
use bollard::models::{ContainerCreateBody, ContainerCreateResponse, ResourcesUlimits};
use bollard::query_parameters::{CreateContainerOptions, InspectContainerOptions};

/// How often a run's writable layer is measured under a watched limit.
pub const WATCH_INTERVAL: Duration = Duration::from_millis(300);

/// Daemons (by address) known to refuse `--storage-opt size=`: asked once.
static NO_STORAGE_OPT: Mutex<Option<HashSet<String>>> = Mutex::new(None);

/// How a container's storage limit is enforced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StorageLimit {
    /// No limit configured.
    None,
    /// The storage driver enforces it (`--storage-opt size=`).
    Quota(u64),
    /// The backend watches the writable layer during runs.
    Watched(u64),
}

impl StorageLimit {
    /// The limit the backend must watch, if it is not the driver's.
    pub fn watched(self) -> Option<u64> {
        match self {
            StorageLimit::Watched(n) => Some(n),
            _ => None,
        }
    }
}

/// Adds the per-file cap (`fsize` rlimit) for a storage limit of `bytes`.
pub fn cap_files(body: &mut ContainerCreateBody, bytes: u64) {
    let limit = i64::try_from(bytes).unwrap_or(i64::MAX);
    if let Some(host) = body.host_config.as_mut() {
        host.ulimits
            .get_or_insert_with(Vec::new)
            .push(ResourcesUlimits {
                name: Some("fsize".into()),
                soft: Some(limit),
                hard: Some(limit),
            });
    }
}

/// Whether the daemon's refusal says the storage driver has no size option.
fn refuses_storage_opt(e: &bollard::errors::Error) -> bool {
    matches!(e, bollard::errors::Error::DockerResponseServerError { message, .. }
        if message.contains("storage-opt") || message.contains("storage opt"))
}

/// Creates the container with a storage limit of `bytes` (none when `None`):
/// the driver's quota when the daemon accepts it, else a watched limit.
pub async fn create_limited(
    docker: &Docker,
    daemon: &str,
    options: CreateContainerOptions,
    mut body: ContainerCreateBody,
    bytes: Option<u64>,
) -> Result<(ContainerCreateResponse, StorageLimit), bollard::errors::Error> {
    let Some(bytes) = bytes else {
        let created = docker.create_container(Some(options), body).await?;
        return Ok((created, StorageLimit::None));
    };
    cap_files(&mut body, bytes);
    let known_refused = NO_STORAGE_OPT
        .lock()
        .map(|s| s.as_ref().is_some_and(|s| s.contains(daemon)))
        .unwrap_or(false);
    if !known_refused {
        let mut quota = body.clone();
        if let Some(host) = quota.host_config.as_mut() {
            host.storage_opt = Some(HashMap::from([("size".to_string(), bytes.to_string())]));
        }
        match docker.create_container(Some(options.clone()), quota).await {
            Ok(created) => return Ok((created, StorageLimit::Quota(bytes))),
            Err(e) if refuses_storage_opt(&e) => {
                tracing::debug!(
                    "docker: the storage driver has no size limit ({e}); watching the \
                     containers' writable layers instead"
                );
                if let Ok(mut set) = NO_STORAGE_OPT.lock() {
                    set.get_or_insert_with(HashSet::new)
                        .insert(daemon.to_string());
                }
            }
            Err(e) => return Err(e),
        }
    }
    let created = docker.create_container(Some(options), body).await?;
    Ok((created, StorageLimit::Watched(bytes)))
}

/// The size of the container's writable layer in bytes.
pub async fn layer_size(docker: &Docker, container: &str) -> Option<u64> {
    let options = InspectContainerOptions { size: true };
    let inspect = docker
        .inspect_container(container, Some(options))
        .await
        .ok()?;
    inspect.size_rw.map(|n| n.max(0) as u64)
}

/// Resolves once the writable layer has grown past `limit` and past its size
/// when the watch started; never while it stays under either. The size it
/// saw is the output.
pub async fn watch(docker: Docker, container: String, limit: u64) -> u64 {
    let start = layer_size(&docker, &container).await.unwrap_or(0);
    let mut tick = tokio::time::interval(WATCH_INTERVAL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if let Some(size) = layer_size(&docker, &container).await
            && over(size, start, limit)
        {
            return size;
        }
    }
}

/// Whether a run that found the layer at `start` bytes and left it at `now`
/// went over `limit` (only growth counts: a run over the limit may clean up).
pub fn over(now: u64, start: u64, limit: u64) -> bool {
    now > limit && now > start
}

/// The line a run ended by the storage limit prints.
pub fn exceeded_message(size: u64, limit: u64) -> String {
    format!(
        "bash: storage limit exceeded ({limit} bytes): the sandbox's files take {size} bytes; \
         remove files to go on\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_growth_past_the_limit_counts() {
        assert!(!over(10, 0, 100));
        assert!(over(101, 0, 100));
        // Already over at the start: cleaning up is fine, growing is not.
        assert!(!over(150, 200, 100));
        assert!(!over(200, 200, 100));
        assert!(over(201, 200, 100));
    }

    #[test]
    fn the_file_cap_is_the_limit() {
        let mut body = ContainerCreateBody {
            host_config: Some(Default::default()),
            ..Default::default()
        };
        cap_files(&mut body, 1 << 30);
        let u = &body.host_config.unwrap().ulimits.unwrap()[0];
        assert_eq!(u.name.as_deref(), Some("fsize"));
        assert_eq!((u.soft, u.hard), (Some(1 << 30), Some(1 << 30)));
    }

    #[test]
    fn refusals_are_recognised_by_the_daemons_wording() {
        let e = bollard::errors::Error::DockerResponseServerError {
            status_code: 500,
            message:
                "--storage-opt is supported only for overlay over xfs with 'pquota' mount option"
                    .into(),
        };
        assert!(refuses_storage_opt(&e));
        let other = bollard::errors::Error::DockerResponseServerError {
            status_code: 404,
            message: "No such image".into(),
        };
        assert!(!refuses_storage_opt(&other));
    }
}
