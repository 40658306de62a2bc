//! The sessions issue's acceptance scenarios on the local backend (the same
//! scenarios run on docker in the parity tests; see `common/mod.rs`).

use crate::common;

use std::sync::Arc;

use common::Order;
use sandkeep::{Backend, Hook, HookContext, HookResult, LocalBackend, Runtime};

fn local() -> Arc<dyn Backend> {
    Arc::new(LocalBackend::new())
}

#[tokio::test]
async fn fires_twice() {
    common::fires_twice(local()).await;
}

#[tokio::test]
async fn hook_events_in_order() {
    common::hook_events_in_order(local()).await;
}

/// Holds a clone of a shared `Arc` in each session's hook state.
struct Holder(Arc<()>);

#[async_trait::async_trait]
impl Hook for Holder {
    fn name(&self) -> &str {
        "holder"
    }
    async fn turn_started(&self, ctx: &HookContext) -> HookResult {
        ctx.put_state(self.0.clone());
        Ok(())
    }
}

/// What hooks keep for a session goes with it, also when it is dropped
/// without complete() (no map keyed by session id that grows forever).
#[tokio::test]
async fn hook_state_goes_with_a_dropped_session() {
    let data = tempfile::tempdir().unwrap();
    let token = Arc::new(());
    let rt = Runtime::builder()
        .backend(local())
        .data_dir(data.path())
        .hook(Holder(token.clone()))
        .build();
    let mut s = rt.session("holder").unwrap();
    s.run_script("true").await.unwrap();
    assert_eq!(Arc::strong_count(&token), 3, "the hook's and the session's");
    drop(s);
    assert_eq!(Arc::strong_count(&token), 2, "only the hook's is left");
}

#[tokio::test]
async fn mindlog_copy_is_visible_and_edits_are_not_kept() {
    common::mindlog_copy(local()).await;
}

#[tokio::test]
async fn concurrent_sessions_different_files_both_orders_50_times() {
    common::concurrent_sessions(local(), false, Order::AFirst, 50).await;
    common::concurrent_sessions(local(), false, Order::BFirst, 50).await;
}

#[tokio::test]
async fn concurrent_sessions_same_file_both_orders_50_times() {
    common::concurrent_sessions(local(), true, Order::AFirst, 50).await;
    common::concurrent_sessions(local(), true, Order::BFirst, 50).await;
}

#[tokio::test]
async fn corrupt_archive_is_not_overwritten() {
    common::corrupt_archive(local()).await;
}

#[tokio::test]
async fn damaged_store_keeps_its_head() {
    common::damaged_store_keeps_its_head(local()).await;
}

#[tokio::test]
async fn rollback_and_fork() {
    common::rollback_and_fork(local()).await;
}

#[tokio::test]
async fn legacy_archive_migrates() {
    common::legacy_archive_migrates(local()).await;
}

#[tokio::test]
async fn malicious_archive_restores_nothing_outside() {
    common::malicious_archive(local()).await;
}

#[tokio::test]
async fn event_log_stores_deltas() {
    common::event_log_stores_deltas(local()).await;
}

#[tokio::test]
async fn quick_rewrites_are_kept() {
    common::quick_rewrites_are_kept(local()).await;
}

#[tokio::test]
async fn local_to_local_restore() {
    common::cross_backend(local(), local()).await;
}

/// Issue 18: names up to the limits and names that are not UTF-8 (held by
/// the virtual filesystem in the shell's escape form) round-trip on local.
#[tokio::test]
async fn long_and_raw_names_on_local() {
    common::long_and_raw_names(local(), local()).await;
}

#[tokio::test]
async fn ephemeral_sessions_keep_nothing() {
    common::ephemeral_keeps_nothing(local()).await;
}
