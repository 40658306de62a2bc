//! Options of the docker backend: which daemon, which image, what limits and
//! network a sandbox container gets, and the per-run defaults that mirror the
//! local backend's limits.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// The image built by `fixtures/docker/build-image.sh`.
pub const DEFAULT_IMAGE: &str = "sandkeep-sandbox:latest";

/// The socket the daemon listens on when `DOCKER_HOST` is unset.
pub const DEFAULT_DOCKER_HOST: &str = "unix:///var/run/docker.sock";

/// Whether a sandbox container may reach the network.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NetworkPolicy {
    /// No network at all: the container only has `lo` (network mode `none`).
    #[default]
    DenyAll,
    /// The daemon's default bridge network.
    AllowAll,
}

impl NetworkPolicy {
    /// The `HostConfig.NetworkMode` this policy maps to.
    pub fn network_mode(self) -> &'static str {
        match self {
            NetworkPolicy::DenyAll => "none",
            NetworkPolicy::AllowAll => "bridge",
        }
    }
}

impl fmt::Display for NetworkPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NetworkPolicy::DenyAll => "deny-all",
            NetworkPolicy::AllowAll => "allow-all",
        })
    }
}

impl FromStr for NetworkPolicy {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "deny-all" | "none" | "deny" => Ok(NetworkPolicy::DenyAll),
            "allow-all" | "bridge" | "allow" => Ok(NetworkPolicy::AllowAll),
            other => Err(format!(
                "unknown network policy {other:?} (expected deny-all or allow-all)"
            )),
        }
    }
}

/// When the image is pulled from a registry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PullPolicy {
    /// Never pull: the image must exist (built by `fixtures/docker/build-image.sh`).
    Never,
    /// Pull only when the daemon does not have the image.
    #[default]
    IfNotPresent,
    /// Pull before the first sandbox, even when the image exists.
    Always,
}

impl fmt::Display for PullPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PullPolicy::Never => "never",
            PullPolicy::IfNotPresent => "if-not-present",
            PullPolicy::Always => "always",
        })
    }
}

impl FromStr for PullPolicy {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "never" => Ok(PullPolicy::Never),
            "if-not-present" | "missing" => Ok(PullPolicy::IfNotPresent),
            "always" => Ok(PullPolicy::Always),
            other => Err(format!(
                "unknown pull policy {other:?} (expected never, if-not-present or always)"
            )),
        }
    }
}

/// How the docker backend connects and what each sandbox container gets.
#[derive(Clone, Debug)]
pub struct DockerConfig {
    /// The daemon address (`unix:///path` or `tcp://host:port`); `None` reads
    /// `DOCKER_HOST`, then falls back to [`DEFAULT_DOCKER_HOST`].
    pub host: Option<String>,
    /// The image every sandbox starts from.
    pub image: String,
    /// When to pull the image.
    pub pull: PullPolicy,
    /// Network access of the containers.
    pub network: NetworkPolicy,
    /// The user commands run as (the image's `sandbox`, uid 1000).
    pub user: String,
    /// Memory limit in bytes (swap is disabled: the same figure is the memory+swap limit).
    pub memory_bytes: i64,
    /// Maximum number of processes in a container.
    pub pids_limit: i64,
    /// CPU limit in units of 10^-9 CPUs (1_000_000_000 is one CPU).
    pub nano_cpus: i64,
    /// Bytes the container's files may take on the host's docker disk
    /// (`/workspace`, `/tmp` and the rest of its writable layer); `None` for
    /// no limit. The storage driver's quota where it has one, else a watched
    /// limit (see [`StorageLimit`](super::storage::StorageLimit)).
    pub storage_bytes: Option<u64>,
    /// Extra environment for every container (on top of the fixed sandbox environment).
    pub env: Vec<(String, String)>,
    /// Wall-clock limit of a run that sets no timeout (the local backend's default).
    pub run_timeout: Duration,
    /// Bytes of stdout and of stderr kept per run (the local backend's default).
    pub max_output_bytes: usize,
    /// How long a ping may take before the daemon counts as absent.
    pub ping_timeout: Duration,
    /// Limit of one API request (image pulls and big uploads included).
    pub request_timeout: Duration,
    /// The network egress of the sandboxes (feature `net`): with one, each
    /// container gets a relay to the host-side egress proxy under this
    /// policy (its network mode stays `none`).
    #[cfg(feature = "net")]
    pub egress: Option<sandkeep_net::Egress>,
    /// Warm containers kept ready for new sandboxes (none by default).
    pub pool: super::pool::PoolConfig,
}

impl Default for DockerConfig {
    fn default() -> Self {
        DockerConfig {
            host: None,
            image: DEFAULT_IMAGE.to_string(),
            pull: PullPolicy::default(),
            network: NetworkPolicy::default(),
            user: "sandbox".to_string(),
            memory_bytes: 512 << 20,
            pids_limit: 256,
            nano_cpus: 1_000_000_000,
            storage_bytes: Some(1 << 30),
            env: Vec::new(),
            run_timeout: Duration::from_secs(30),
            max_output_bytes: 1 << 20,
            ping_timeout: Duration::from_millis(1500),
            request_timeout: Duration::from_secs(300),
            #[cfg(feature = "net")]
            egress: None,
            pool: super::pool::PoolConfig::default(),
        }
    }
}

impl DockerConfig {
    /// The defaults, with the daemon address taken from `DOCKER_HOST` and the
    /// image from `SANDKEEP_DOCKER_IMAGE` when they are set.
    pub fn from_env() -> DockerConfig {
        let mut config = DockerConfig::default();
        if let Some(host) = non_empty_env("DOCKER_HOST") {
            config.host = Some(host);
        }
        if let Some(image) = non_empty_env("SANDKEEP_DOCKER_IMAGE") {
            config.image = image;
        }
        config
    }

    /// The daemon address this config connects to.
    pub fn resolved_host(&self) -> String {
        self.host
            .clone()
            .or_else(|| non_empty_env("DOCKER_HOST"))
            .unwrap_or_else(|| DEFAULT_DOCKER_HOST.to_string())
    }
}

fn non_empty_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_parse_and_print_round_trip() {
        for p in [NetworkPolicy::DenyAll, NetworkPolicy::AllowAll] {
            assert_eq!(p.to_string().parse::<NetworkPolicy>().unwrap(), p);
        }
        for p in [
            PullPolicy::Never,
            PullPolicy::IfNotPresent,
            PullPolicy::Always,
        ] {
            assert_eq!(p.to_string().parse::<PullPolicy>().unwrap(), p);
        }
        assert!(
            "open"
                .parse::<NetworkPolicy>()
                .unwrap_err()
                .contains("deny-all")
        );
        assert!("sometimes".parse::<PullPolicy>().is_err());
    }

    #[test]
    fn defaults_are_locked_down() {
        let c = DockerConfig::default();
        assert_eq!(c.image, DEFAULT_IMAGE);
        assert_eq!(c.network.network_mode(), "none");
        assert_eq!(c.user, "sandbox");
        assert_eq!(c.max_output_bytes, 1 << 20);
    }
}
