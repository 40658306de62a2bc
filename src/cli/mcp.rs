//! `sandkeep mcp`: an MCP server over stdio whose life is one session.

use std::process::ExitCode;

use sandkeep::McpServer;

use super::run::{backend_for, runtime};
use super::{Cli, McpArgs};

async fn terminated() {
    use tokio::signal::unix::{SignalKind, signal};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            term.recv().await;
        }
        Err(_) => std::future::pending().await,
    }
}

pub async fn mcp(cli: &Cli, args: &McpArgs) -> anyhow::Result<ExitCode> {
    sandkeep::validate_agent(&args.agent)?;
    let rt = runtime(cli, backend_for(&args.backend).await?);
    McpServer::new(rt, &args.agent)
        .serve_stdio(terminated())
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(ExitCode::SUCCESS)
}
