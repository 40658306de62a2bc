//! Shared by the docker test binaries: connecting to the daemon (or skipping
//! with a printed reason, or failing under `SANDKEEP_REQUIRE_DOCKER=1`), and
//! checking that a test's containers are gone when it ends.
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::Arc;

use sandkeep::{Backend, DockerBackend, DockerConfig, PullPolicy, Sandbox, SandboxSpec};

/// Whether CI demands a daemon (then a missing one fails the test).
pub fn docker_required() -> bool {
    std::env::var("SANDKEEP_REQUIRE_DOCKER").is_ok_and(|v| v == "1")
}

/// The config the tests use: the environment's daemon and image, no pulls.
pub fn test_config() -> DockerConfig {
    DockerConfig {
        pull: PullPolicy::Never,
        ..DockerConfig::from_env()
    }
}

/// Connects with `config`, or returns `None` after printing why the test is
/// skipped; panics instead when `SANDKEEP_REQUIRE_DOCKER=1`.
pub async fn backend_with(config: DockerConfig) -> Option<DockerBackend> {
    let image = config.image.clone();
    let reason = match DockerBackend::connect(config).await {
        Ok(backend) => match backend.image_present().await {
            Ok(true) => return Some(backend),
            Ok(false) => {
                format!("image {image} is missing (build it with fixtures/docker/build-image.sh)")
            }
            Err(e) => e.to_string(),
        },
        Err(e) => e.to_string(),
    };
    if docker_required() {
        panic!("SANDKEEP_REQUIRE_DOCKER=1 but docker is unusable: {reason}");
    }
    eprintln!("skipping docker test: {reason}");
    None
}

/// [`backend_with`] the default test config.
pub async fn backend() -> Option<DockerBackend> {
    backend_with(test_config()).await
}

/// A session id unique to this test process and call.
pub fn session_id(test: &str) -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    format!(
        "test-{test}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// A fresh sandbox for `test`.
pub async fn sandbox(backend: &DockerBackend, test: &str) -> Arc<dyn Sandbox> {
    let spec = SandboxSpec {
        session_id: session_id(test),
        agent: "tests".into(),
        env: vec![],
    };
    backend
        .create(&spec)
        .await
        .expect("create a docker sandbox")
}

/// The ids of the containers labelled with `session`.
pub async fn containers_of(backend: &DockerBackend, session: &str) -> Vec<String> {
    use bollard::query_parameters::ListContainersOptions;
    let filters = HashMap::from([(
        "label".to_string(),
        vec![format!("sandkeep.session={session}")],
    )]);
    let options = ListContainersOptions {
        all: true,
        filters: Some(filters),
        ..Default::default()
    };
    backend
        .docker()
        .list_containers(Some(options))
        .await
        .expect("list containers")
        .into_iter()
        .filter_map(|c| c.id)
        .collect()
}

/// Stops a sandbox and checks that its container is gone.
pub async fn teardown(backend: &DockerBackend, sandbox: Arc<dyn Sandbox>) {
    let id = sandbox.id().to_string();
    sandbox.stop().await.expect("stop");
    drop(sandbox);
    let inspect = backend
        .docker()
        .inspect_container(
            &id,
            None::<bollard::query_parameters::InspectContainerOptions>,
        )
        .await;
    assert!(inspect.is_err(), "container {id} still exists after stop");
}
