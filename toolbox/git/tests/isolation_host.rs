//! The attack on the sandbox's `git` from the host side and from inside the
//! repository: the host process has a `~/.gitconfig` with an identity, an
//! alias, a pager, an editor, an fsmonitor, a hooks path and a credential
//! helper, and `GIT_DIR` / `GIT_CONFIG_GLOBAL` / `GIT_CONFIG_SYSTEM` point
//! at a real host repository and that config; the repository in the
//! sandbox sets the same programs in `.git/config` and has hooks in
//! `.git/hooks`. Every program would leave a marker file, on the host and
//! in the sandbox. None may be read or run: no marker anywhere, the host
//! identity and alias unknown, the host repository's history invisible.
//!
//! Its own test binary: it sets the process environment, which no other
//! test may see change under it.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::path::Path;
use std::process::Command;

use sandkeep_shell::{RunOptions, Shell, ShellConfig};

fn run(shell: &Shell, script: &str) -> (i32, String, String) {
    let out = shell.run(
        script,
        RunOptions {
            env: vec![("HOME".into(), "/home/agent".into())],
            ..RunOptions::default()
        },
    );
    (
        out.exit_code,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A program that leaves `name` in the host's marker directory and in the
/// sandbox's `/markers`, whichever it runs in.
fn marker_program(host_markers: &Path, name: &str) -> String {
    format!(
        "sh -c 'touch {}/{name} /markers/{name}'",
        host_markers.display()
    )
}

fn host_config(host_markers: &Path, hooks: &Path) -> String {
    let m = |n: &str| marker_program(host_markers, n);
    format!(
        "[user]\n\tname = Host User\n\temail = host@example.com\n\
         [alias]\n\tst = status\n\tci = commit\n\
         [core]\n\tpager = {}\n\teditor = {}\n\tfsmonitor = {}\n\thooksPath = {}\n\tsshCommand = {}\n\
         [credential]\n\thelper = !{}\n\
         [diff]\n\texternal = {}\n\
         [filter \"evil\"]\n\tclean = {}\n\tsmudge = {}\n",
        m("host-pager"),
        m("host-editor"),
        m("host-fsmonitor"),
        hooks.display(),
        m("host-ssh"),
        m("host-credential"),
        m("host-diff-external"),
        m("host-clean"),
        m("host-smudge"),
    )
}

#[test]
fn host_config_environment_and_repository_programs_are_never_read_or_run() {
    if Command::new("git").arg("--version").output().is_err() {
        eprintln!("host git not found: the host repository cannot be made; skipping");
        return;
    }
    let root = std::env::temp_dir().join(format!("sandkeep-git-isolation-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let host_home = root.join("home");
    let host_markers = root.join("markers");
    let host_hooks = root.join("hooks");
    let host_repo = root.join("repo");
    for d in [&host_home, &host_markers, &host_hooks, &host_repo] {
        std::fs::create_dir_all(d).unwrap();
    }
    let config = host_config(&host_markers, &host_hooks);
    std::fs::write(host_home.join(".gitconfig"), &config).unwrap();
    for hook in ["pre-commit", "commit-msg", "post-commit", "post-checkout"] {
        let path = host_hooks.join(hook);
        std::fs::write(
            &path,
            format!(
                "#!/bin/sh\ntouch {}/host-hook-{hook}\n",
                host_markers.display()
            ),
        )
        .unwrap();
        Command::new("chmod").arg("+x").arg(&path).status().unwrap();
    }
    // A real host repository whose history must stay invisible.
    let made = Command::new("sh")
        .arg("-c")
        .arg(
            "git init -q && echo secret > secret.txt && git add secret.txt \
             && git -c user.name=H -c user.email=h@x -c core.hooksPath=/dev/null commit -q -m HOST-SECRET",
        )
        .current_dir(&host_repo)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    // SAFETY: this binary's only test; nothing else reads the environment
    // concurrently.
    unsafe {
        std::env::set_var("HOME", &host_home);
        std::env::set_var("XDG_CONFIG_HOME", &host_home);
        std::env::set_var("GIT_CONFIG_GLOBAL", host_home.join(".gitconfig"));
        std::env::set_var("GIT_CONFIG_SYSTEM", host_home.join(".gitconfig"));
        std::env::set_var("GIT_DIR", host_repo.join(".git"));
        std::env::set_var("GIT_WORK_TREE", &host_repo);
        std::env::set_var("GIT_AUTHOR_NAME", "Host Env Author");
        std::env::set_var("GIT_AUTHOR_EMAIL", "host-env@example.com");
        std::env::set_var("GIT_COMMITTER_NAME", "Host Env Committer");
        std::env::set_var("GIT_COMMITTER_EMAIL", "host-env@example.com");
    }

    let sh = Shell::new(sandkeep_git::install(ShellConfig::default()));

    // The host's config, identity and alias are unknown in the sandbox.
    let (code, out, err) = run(&sh, "git config --global --list; echo rc=$?");
    assert_eq!((code, out.as_str()), (0, "rc=0\n"), "{err}");
    let (code, _, err) = run(&sh, "git st");
    assert_eq!(
        (code, err.as_str()),
        (
            1,
            "git: 'st' is not a git command. See 'git --help'.\n\nThe most similar commands are\n\tstatus\n\treset\n\tstage\n\tstash\n\tsvn\n"
        )
    );
    let (code, _, err) = run(
        &sh,
        "git init -q /w/r && cd /w/r && echo x > f && git add f && git commit -q -m one",
    );
    assert_eq!(code, 128, "a host identity was used: {err}");
    assert!(err.contains("Please tell me who you are"), "{err}");
    // GIT_DIR / GIT_WORK_TREE of the host: no repository outside one.
    let (code, out, err) = run(&sh, "cd / && git log --format=%s");
    assert_eq!(code, 128, "{out}");
    assert!(err.contains("not a git repository"), "{err}");

    // The sandbox's repository sets the same programs and hooks.
    let sandbox_config = config.replace(&host_hooks.display().to_string(), "/w/hooks");
    let sandbox_hooks: String = ["pre-commit", "commit-msg", "post-commit", "post-checkout"]
        .iter()
        .map(|h| {
            format!(
                "printf '#!/bin/sh\\ntouch /markers/hook-{h} {}/hook-{h}\\n' > .git/hooks/{h}; \
                 cp .git/hooks/{h} /w/hooks/{h}; ",
                host_markers.display()
            )
        })
        .collect();
    let script = format!(
        "export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@x GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@x\n\
         mkdir -p /markers /w/hooks && cd /w/r && mkdir -p .git/hooks\n\
         cat >> .git/config <<'EOF'\n{sandbox_config}EOF\n\
         {sandbox_hooks}\n\
         chmod +x .git/hooks/* /w/hooks/*\n\
         echo '* filter=evil' > .gitattributes\n\
         git add -A && git commit -q -m one && echo y >> f && git status --short && git diff --stat \
         && git commit -qam two && git log --format='%an %s' && git checkout -q -b side && git checkout -q master \
         && git commit --allow-empty; echo commit-without-message=$?; ls -A /markers; echo \"[$GIT_DIR]\""
    );
    let (code, out, err) = run(&sh, &script);
    assert_eq!(
        out,
        " M f\n f | 1 +\n 1 file changed, 1 insertion(+)\nA two\nA one\ncommit-without-message=1\n[]\n",
        "stderr: {err}"
    );
    assert_eq!(code, 0);
    assert!(err.contains("no editor in the local sandbox"), "{err}");

    let left: Vec<_> = std::fs::read_dir(&host_markers)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let _ = std::fs::remove_dir_all(&root);
    assert!(left.is_empty(), "host programs ran: {left:?}");
}
