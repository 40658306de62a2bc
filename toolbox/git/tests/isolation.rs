//! Isolation of the sandbox's `git`: hooks in `.git/hooks` are never run,
//! the global config is the sandbox's `$HOME/.gitconfig` (never the
//! host's), and a git command the sandbox lacks says so with status 1.

use sandkeep_shell::{RunOptions, Shell, ShellConfig};

fn run(shell: &Shell, script: &str) -> (i32, String, String) {
    let out = shell.run(script, RunOptions::default());
    (
        out.exit_code,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn shell() -> Shell {
    Shell::new(sandkeep_git::install(ShellConfig::default()))
}

const IDENT: &str =
    "export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@x GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@x; ";

#[test]
fn hooks_are_never_run() {
    let sh = shell();
    let (code, out, err) = run(
        &sh,
        &format!(
            "{IDENT} git init -q r && cd r && mkdir -p .git/hooks \
             && printf '#!/bin/sh\\ntouch /workspace/HOOK-RAN\\nexit 1\\n' > .git/hooks/pre-commit \
             && cp .git/hooks/pre-commit .git/hooks/commit-msg && chmod +x .git/hooks/* \
             && echo x > f && git add f && git commit -q -m one && git log --format=%s; \
             if test -e /workspace/HOOK-RAN; then echo hook-ran; fi"
        ),
    );
    assert_eq!((code, out.as_str()), (0, "one\n"), "stderr: {err}");
}

#[test]
fn global_config_is_the_sandbox_home() {
    let sh = shell();
    let (code, out, _) = run(&sh, "git config --global --list; echo rc=$?");
    assert_eq!((code, out.as_str()), (0, "rc=0\n"));
    let (_, out, _) = run(
        &sh,
        "git config --global user.name Sandboxed && cat $HOME/.gitconfig",
    );
    assert_eq!(out, "[user]\n\tname = Sandboxed\n");
}

#[test]
fn missing_identity_is_an_error_not_a_host_lookup() {
    let sh = shell();
    let (code, _, err) = run(
        &sh,
        "git init -q r && cd r && echo x > f && git add f && git commit -q -m one",
    );
    assert_eq!(code, 128);
    assert!(err.contains("Please tell me who you are"), "{err}");
}

#[test]
fn unavailable_subcommand_says_so() {
    let sh = shell();
    let (code, out, err) = run(&sh, "git submodule update");
    assert_eq!((code, out.as_str()), (1, ""));
    assert_eq!(
        err,
        "git: 'submodule' is not a git command. See 'git --help'.\n"
    );
}

#[test]
fn corrupt_objects_are_errors_not_panics() {
    let sh = shell();
    let (code, _, err) = run(
        &sh,
        &format!(
            "{IDENT} git init -q r && cd r && echo x > f && git add f && git commit -q -m one \
             && for o in .git/objects/??/*; do chmod 644 $o; echo garbage > $o; done; git log"
        ),
    );
    assert_eq!(code, 128, "{err}");
    assert!(err.starts_with("fatal: "), "{err}");
    let (code, _, err) = run(
        &sh,
        "git init -q r2 && cd r2 && echo junk > .git/index && git status",
    );
    assert_eq!(code, 128, "{err}");
    assert!(err.contains("index file corrupt"), "{err}");
}
