//! `git` for the local sandbox: a command of the in-process shell that keeps
//! a real `.git` directory (loose and packed objects, the index, refs and
//! `packed-refs`, `HEAD`, config) in the virtual filesystem, so a workspace
//! committed here is a repository real git reads after it moves to a
//! container, and the other way round.
//!
//! Objects are encoded, decoded and hashed with gix-object/gix-hash, the
//! index with gix-index, dates with gix-date and line diffs with imara-diff;
//! the thin layer over the virtual filesystem is [`repo`].
//!
//! Isolation: nothing here reads the host. The global config is
//! `$HOME/.gitconfig` of the sandbox; no system config, no credential
//! helpers, and hooks in `.git/hooks` are never run (there is no process to
//! run them with).
//!
//! ```
//! use sandkeep_shell::{RunOptions, Shell, ShellConfig};
//!
//! let shell = Shell::new(sandkeep_git::install(ShellConfig::default()));
//! let out = shell.run(
//!     "git init -q && echo hi > a && git add a && \
//!      GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@x GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@x \
//!      GIT_AUTHOR_DATE='@0 +0000' GIT_COMMITTER_DATE='@0 +0000' git commit -q -m one && git log --format=%s",
//!     RunOptions::default(),
//! );
//! assert_eq!(String::from_utf8_lossy(&out.stdout), "one\n");
//! ```

mod cmd;
pub mod config;
pub mod diff;
pub mod error;
mod pack;
pub mod repo;
mod slide;
pub mod worddiff;
pub mod worktree;

use std::io::Write;

use sandkeep_shell::CommandCtx;
use sandkeep_shell::ShellConfig;

pub use error::{GitError, Result};

/// The subcommands this git implements.
pub const SUBCOMMANDS: &[&str] = &[
    "init",
    "config",
    "add",
    "rm",
    "mv",
    "status",
    "commit",
    "diff",
    "log",
    "show",
    "shortlog",
    "blame",
    "describe",
    "rev-parse",
    "rev-list",
    "branch",
    "switch",
    "checkout",
    "restore",
    "reset",
    "tag",
    "ls-files",
    "ls-tree",
    "stash",
    "merge",
    "cherry-pick",
    "revert",
    "rebase",
    "clean",
    "grep",
    "apply",
    "format-patch",
    "am",
    "bisect",
    "check-ignore",
    "worktree",
    "cat-file",
    "hash-object",
    "write-tree",
    "symbolic-ref",
    "update-ref",
    "merge-base",
    "reflog",
    "clone",
    "fetch",
    "pull",
    "push",
    "remote",
    "ls-remote",
    "update-index",
    "commit-tree",
    "archive",
    "version",
    "help",
];

/// Runs `git` with `ctx.args` (`ctx.args[0]` is `git`); returns its status.
pub fn git(ctx: &mut CommandCtx<'_>) -> i32 {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let mut err_first = false;
    let status = match cmd::run(ctx, &mut out, &mut err, &mut err_first) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(err, "{e}");
            e.status()
        }
    };
    // git's stdout mostly reaches a pipe before what it says on stderr at
    // exit; `am` is the other way round.
    if err_first {
        let _ = ctx.stderr.write_all(&err);
        let _ = ctx.stderr.flush();
        let _ = ctx.stdout.write_all(&out);
    } else {
        let _ = ctx.stdout.write_all(&out);
        let _ = ctx.stdout.flush();
        let _ = ctx.stderr.write_all(&err);
    }
    status
}

/// Adds `git` to a shell configuration.
///
/// ```
/// let config = sandkeep_git::install(sandkeep_shell::ShellConfig::default());
/// assert!(config.commands.iter().any(|(name, _)| name == "git"));
/// ```
pub fn install(config: ShellConfig) -> ShellConfig {
    config.command("git", git)
}
