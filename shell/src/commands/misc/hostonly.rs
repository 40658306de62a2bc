//! Programs that need the host (network clients, language runtimes, package
//! managers): they exist as names so an agent learns at once, with exit
//! status 127 like a missing program, that the local sandbox has none.

use crate::commands::CommandCtx;

/// Prints `NAME: not available in the local sandbox ...` and returns 127.
pub fn unavailable(ctx: &mut CommandCtx<'_>) -> i32 {
    let name = ctx.args[0].rsplit('/').next().unwrap_or("").to_string();
    let _ = writeln!(
        ctx.stderr,
        "{name}: not available in the local sandbox (no network, no host programs)"
    );
    127
}
