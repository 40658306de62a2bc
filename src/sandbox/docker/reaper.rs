//! Orphan containers: every sandbox container carries labels naming the process
//! that owns it (host name, pid, and the pid's start time, so a reused pid is
//! not mistaken for the owner). At start-up the reaper removes the containers
//! labelled `sandkeep.session` whose owner is gone.

use std::collections::HashMap;

use bollard::Docker;
use bollard::query_parameters::{ListContainersOptions, RemoveContainerOptions};

use super::map_api_error;
use crate::sandbox::SandboxError;

/// Label with the session a container belongs to.
pub const LABEL_SESSION: &str = "sandkeep.session";
/// Label with the agent the session belongs to.
pub const LABEL_AGENT: &str = "sandkeep.agent";
/// Label with the owner's pid.
pub const LABEL_OWNER: &str = "sandkeep.owner";
/// Label with the owner's host name.
pub const LABEL_OWNER_HOST: &str = "sandkeep.owner.host";
/// Label with the owner's start time (clock ticks since boot, from /proc).
pub const LABEL_OWNER_START: &str = "sandkeep.owner.start";

/// The process that owns the containers it creates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    /// Host name of the machine the owner runs on.
    pub host: String,
    /// The owner's pid.
    pub pid: u32,
    /// The owner's start time as /proc reports it (empty when unknown).
    pub start: String,
}

impl Owner {
    /// This process. Reads /proc (blocking, a few microseconds).
    pub fn current() -> Owner {
        let pid = std::process::id();
        Owner {
            host: host_name(),
            pid,
            start: start_time(pid).unwrap_or_default(),
        }
    }

    /// The owner labels to put on a container.
    pub fn labels(&self) -> [(String, String); 3] {
        [
            (LABEL_OWNER.into(), self.pid.to_string()),
            (LABEL_OWNER_HOST.into(), self.host.clone()),
            (LABEL_OWNER_START.into(), self.start.clone()),
        ]
    }
}

/// Whether the owner named by a container's labels is gone. Containers owned
/// from another host are never judged (their owner cannot be checked from
/// here); containers without owner labels are orphans.
pub fn owner_is_gone(labels: &HashMap<String, String>, this_host: &str) -> bool {
    let Some(pid) = labels.get(LABEL_OWNER).and_then(|p| p.parse::<u32>().ok()) else {
        return true;
    };
    if labels.get(LABEL_OWNER_HOST).is_some_and(|h| h != this_host) {
        return false;
    }
    match start_time(pid) {
        None => true,
        Some(now) => labels
            .get(LABEL_OWNER_START)
            .is_some_and(|s| !s.is_empty() && *s != now),
    }
}

/// The containers labelled `sandkeep.session` (running or not), with their labels.
pub async fn list_sandbox_containers(
    docker: &Docker,
) -> Result<Vec<(String, HashMap<String, String>)>, SandboxError> {
    let filters = HashMap::from([("label".to_string(), vec![LABEL_SESSION.to_string()])]);
    let options = ListContainersOptions {
        all: true,
        filters: Some(filters),
        ..Default::default()
    };
    let list = docker
        .list_containers(Some(options))
        .await
        .map_err(map_api_error)?;
    Ok(list
        .into_iter()
        .filter_map(|c| Some((c.id?, c.labels.unwrap_or_default())))
        .collect())
}

/// Removes every container labelled `sandkeep.session` whose owner is gone;
/// returns how many were removed.
pub async fn reap(docker: &Docker) -> Result<usize, SandboxError> {
    let containers = list_sandbox_containers(docker).await?;
    let gone: Vec<(String, HashMap<String, String>)> = tokio::task::spawn_blocking(move || {
        let host = host_name();
        containers
            .into_iter()
            .filter(|(_, labels)| owner_is_gone(labels, &host))
            .collect()
    })
    .await
    .map_err(|e| SandboxError::Backend(format!("reaper: {e}")))?;
    let mut removed = 0;
    for (id, labels) in gone {
        let options = RemoveContainerOptions {
            force: true,
            v: true,
            ..Default::default()
        };
        match docker.remove_container(&id, Some(options)).await {
            Ok(()) => {
                removed += 1;
                tracing::info!(
                    container = %short(&id),
                    session = labels.get(LABEL_SESSION).map(String::as_str).unwrap_or(""),
                    owner = labels.get(LABEL_OWNER).map(String::as_str).unwrap_or("?"),
                    "reaped an orphan sandbox container (its owner is gone)"
                );
            }
            // Removed meanwhile (by its owner's guard or another reaper).
            Err(bollard::errors::Error::DockerResponseServerError {
                status_code: 404, ..
            }) => {}
            Err(e) => tracing::warn!(container = %short(&id), "reaper: cannot remove: {e}"),
        }
    }
    Ok(removed)
}

/// The first 12 characters of a container id, as docker prints them.
pub fn short(id: &str) -> &str {
    &id[..id.len().min(12)]
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// Field 22 of /proc/PID/stat: the start time in clock ticks since boot.
fn start_time(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may contain spaces and parentheses: skip past the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_current_process_is_a_live_owner() {
        let me = Owner::current();
        assert!(!me.start.is_empty());
        let l: HashMap<String, String> = me.labels().into_iter().collect();
        assert!(!owner_is_gone(&l, &me.host));
    }

    #[test]
    fn dead_reused_foreign_and_unlabelled_owners() {
        let me = Owner::current();
        let host = me.host.as_str();
        let pid = me.pid.to_string();
        // A pid that does not exist (above pid_max).
        assert!(owner_is_gone(
            &labels(&[(LABEL_OWNER, "4194305"), (LABEL_OWNER_HOST, host)]),
            host
        ));
        // The pid exists but started at another time: reused.
        let reused = labels(&[
            (LABEL_OWNER, &pid),
            (LABEL_OWNER_HOST, host),
            (LABEL_OWNER_START, "1"),
        ]);
        assert!(owner_is_gone(&reused, host));
        // Another host's container is left alone.
        assert!(!owner_is_gone(
            &labels(&[(LABEL_OWNER, "4194305"), (LABEL_OWNER_HOST, "elsewhere")]),
            host
        ));
        // No owner label at all: an orphan.
        assert!(owner_is_gone(&labels(&[(LABEL_SESSION, "s")]), host));
    }
}
