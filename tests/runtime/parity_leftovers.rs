//! No sandbox container outlives its owner. Cargo runs test binaries one after
//! another, and this one sorts after `docker*` and `parity`: by now their
//! processes have exited, so any container labelled `sandkeep.session` whose
//! owner is gone is a leak. (Containers of live owners, e.g. a concurrent run
//! on the same daemon, are not ours to judge.) `.ci/run` repeats the check
//! after the whole test command.

use crate::docker_support;

use sandkeep::testing::{list_sandbox_containers, owner_is_gone};

#[tokio::test]
async fn no_sandbox_container_outlives_its_owner() {
    let Some(backend) = docker_support::backend().await else {
        return;
    };
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap()
        .trim()
        .to_string();
    let leaked: Vec<String> = list_sandbox_containers(backend.docker())
        .await
        .unwrap()
        .into_iter()
        .filter(|(_, labels)| owner_is_gone(labels, &host))
        .map(|(id, labels)| {
            let session = labels.get("sandkeep.session").cloned().unwrap_or_default();
            format!("{} (session {session})", &id[..12])
        })
        .collect();
    assert!(
        leaked.is_empty(),
        "sandbox containers left behind: {leaked:?}"
    );
}
