//! Two sessions of one agent sharing a workspace, with a custom hook.
//!
//! Run with `cargo run --example two_sessions`. The first session writes a
//! file and completes (the workspace is kept); the second finds it. A custom
//! hook logs every event and drops a `WELCOME` note into each fresh sandbox.

use std::sync::Arc;

use sandkeep::{Hook, HookContext, HookResult, LocalBackend, MindlogKind, Runtime};

/// Prints each event and greets each new sandbox.
struct Narrator;

#[async_trait::async_trait]
impl Hook for Narrator {
    fn name(&self) -> &str {
        "narrator"
    }

    async fn session_started(&self, ctx: &HookContext) -> HookResult {
        println!(
            "[narrator] {} started (agent {:?})",
            ctx.session_id(),
            ctx.agent()
        );
        // The sync hook ran before us: the restored workspace is in place.
        ctx.sandbox()?
            .write_text("/workspace/WELCOME", "written by the narrator hook\n")
            .await?;
        Ok(())
    }

    async fn turn_started(&self, ctx: &HookContext) -> HookResult {
        println!("[narrator] {} turn {}", ctx.session_id(), ctx.turn());
        Ok(())
    }

    async fn session_waiting(&self, ctx: &HookContext) -> HookResult {
        println!(
            "[narrator] {} parked after turn {}",
            ctx.session_id(),
            ctx.turn()
        );
        Ok(())
    }

    async fn session_completed(&self, ctx: &HookContext) -> HookResult {
        println!("[narrator] {} completed", ctx.session_id());
        Ok(())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Show the runtime's logs (the `[workspace-sync]` lines) on stderr.
    tracing_subscriber::fmt()
        .without_time()
        .with_target(false)
        .with_writer(std::io::stderr)
        .init();

    let data = tempfile::tempdir()?;
    let runtime = Runtime::builder()
        .backend(Arc::new(LocalBackend::new()))
        .data_dir(data.path())
        .hook(Narrator)
        .build();

    // The agent remembers something in its mindlog (host side).
    runtime
        .mindlog("scribe")?
        .append(MindlogKind::Woke, "ready to write", None)?;

    // Session 1: two turns.
    let mut first = runtime.session("scribe")?;
    let out = first
        .run_script("echo 'chapter one' > book.txt; wc -l < mindlog.jsonl")
        .await?;
    println!(
        "session 1, turn 1: the mindlog copy has {} line(s)",
        out.stdout_text().trim()
    );
    first.park().await?;
    first.run_script("echo 'chapter two' >> book.txt").await?;
    first.complete().await?;

    // Session 2: a new sandbox, the same workspace.
    let mut second = runtime.session("scribe")?;
    let out = second.run_script("cat book.txt; ls").await?;
    print!("session 2 sees:\n{}", out.stdout_text());
    second.complete().await?;

    let generations = runtime.generations("scribe")?.log(10)?;
    for g in &generations {
        println!("generation {} #{}: {}", g.id, g.seq, g.stats);
    }
    Ok(())
}
