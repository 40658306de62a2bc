//! The sessions issue's acceptance scenarios (`common/mod.rs`) on the docker
//! backend, and across backends in both directions. Skipped with a printed
//! reason when no daemon answers, failed instead under
//! `SANDKEEP_REQUIRE_DOCKER=1`.

use crate::common;
use crate::docker_support;

use std::sync::Arc;

use common::Order;
use sandkeep::{Backend, LocalBackend};

async fn docker() -> Option<Arc<dyn Backend>> {
    docker_support::backend()
        .await
        .map(|b| Arc::new(b) as Arc<dyn Backend>)
}

fn local() -> Arc<dyn Backend> {
    Arc::new(LocalBackend::new())
}

#[tokio::test(flavor = "multi_thread")]
async fn fires_twice_on_docker() {
    let Some(d) = docker().await else { return };
    common::fires_twice(d).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn hook_events_in_order_on_docker() {
    let Some(d) = docker().await else { return };
    common::hook_events_in_order(d).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn mindlog_copy_on_docker() {
    let Some(d) = docker().await else { return };
    common::mindlog_copy(d).await;
}

/// Repetitions per order and mode: `SANDKEEP_DOCKER_REPEAT`, default 5 in CI
/// (each session here is a container; 50, as on local, adds ~10 minutes).
#[tokio::test(flavor = "multi_thread")]
async fn concurrent_sessions_on_docker() {
    let Some(d) = docker().await else { return };
    let repeat = std::env::var("SANDKEEP_DOCKER_REPEAT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    for same_file in [false, true] {
        common::concurrent_sessions(d.clone(), same_file, Order::AFirst, repeat).await;
        common::concurrent_sessions(d.clone(), same_file, Order::BFirst, repeat).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn corrupt_archive_on_docker() {
    let Some(d) = docker().await else { return };
    common::corrupt_archive(d).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn malicious_archive_on_docker() {
    let Some(d) = docker().await else { return };
    common::malicious_archive(d).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn event_log_stores_deltas_on_docker() {
    let Some(d) = docker().await else { return };
    common::event_log_stores_deltas(d).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn quick_rewrites_are_kept_on_docker() {
    let Some(d) = docker().await else { return };
    common::quick_rewrites_are_kept(d).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn workspace_kept_on_docker_restores_on_local_and_back() {
    let Some(d) = docker().await else { return };
    common::cross_backend(d.clone(), local()).await;
    common::cross_backend(local(), d).await;
}

#[test]
fn fires_via_cli_on_docker() {
    let available = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(docker())
        .is_some();
    if available {
        common::fires_via_cli("docker");
    }
}

/// Issue 18: names up to the limits and names that are not UTF-8, kept on
/// one backend and restored byte-exact on the other, both ways.
#[tokio::test(flavor = "multi_thread")]
async fn long_and_raw_names_cross_backends() {
    let Some(d) = docker().await else { return };
    common::long_and_raw_names(local(), d.clone()).await;
    common::long_and_raw_names(d, local()).await;
}
