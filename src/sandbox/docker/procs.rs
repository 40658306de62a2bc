//! Which processes in a sandbox container belong to whom, and how the ones
//! that must not outlive their run are ended.
//!
//! A script can drop every variable it was given (`env -i`, `env -u
//! SANDKEEP_RUN`) and start a session of its own (`setsid`), so no single
//! mark survives everything. Three layers, each for what the one before
//! cannot catch:
//!
//! - a run's processes carry the marker variable (see [`super::exec`]);
//! - every docker exec starts a session of its own, so a run's processes
//!   that dropped the marker still share the session of a marked one: the
//!   kill script ends every process in a marked process's session;
//! - after each run, the sweep ends every process of the sandbox user that
//!   is not in the session of a running exec (other runs, helpers) and was
//!   not there before the first run (the container's init and its idle
//!   process, and whatever the backend started in the container before
//!   that). That is what catches a `setsid` without the marker, also while
//!   other runs go on.
//!
//! The scripts use bash builtins only: they must work when a run exhausted
//! the pids limit with forks. They STOP before they KILL so that a fork loop
//! cannot outrun the KILL pass.

use bollard::Docker;
use bollard::exec::{CreateExecOptions, StartExecResults};
use futures_util::StreamExt;

/// Stops, then kills, every process whose environment holds
/// `SANDKEEP_RUN=$1`, and every process in the session of such a process.
/// Fields after the command name in `/proc/PID/stat`: state, ppid, pgrp,
/// session.
pub const KILL_SCRIPT: &str = r#"id=$1 me=$$
marked() {
  local v e
  mapfile -d '' -t e < "$1/environ" 2>/dev/null || return 1
  for v in "${e[@]}"; do [ "$v" = "SANDKEEP_RUN=$id" ] && return 0; done
  return 1
}
sid_of() {
  local line f
  read -r line < "$1/stat" 2>/dev/null || return 1
  f=(${line##*) })
  sid=${f[3]}
}
for sig in STOP KILL KILL; do
  declare -A sids=()
  for d in /proc/[0-9]*; do
    [ "${d#/proc/}" = "$me" ] && continue
    marked "$d" && sid_of "$d" && [ "$sid" != 0 ] && sids[$sid]=1
  done
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    [ "$p" = "$me" ] && continue
    if marked "$d" || { sid_of "$d" && [ -n "${sids[$sid]}" ]; }; then
      kill -s "$sig" "$p" 2>/dev/null
    fi
  done
  unset sids
done"#;

/// Stops, then kills, every process that is neither in the session of a
/// running exec (a process whose parent is outside the container: pid 1,
/// another run, a helper, this sweep) nor one of the pids given as
/// arguments. A script cannot make a process whose parent is outside the
/// container, so what left its run's session (`setsid`) has no such root.
/// It runs as the sandbox user, so it can only reach that user's processes:
/// anything the backend runs as another user is safe.
pub const SWEEP_SCRIPT: &str = r#"me=$$
declare -A keep=([1]=1)
for p in "$@"; do keep[$p]=1; done
for sig in STOP KILL KILL; do
  declare -A live=()
  for d in /proc/[0-9]*; do
    read -r line < "$d/stat" 2>/dev/null || continue
    f=(${line##*) })
    [ "${f[1]}" = 0 ] && live[${f[3]}]=1
  done
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    [ "$p" = "$me" ] || [ -n "${keep[$p]}" ] && continue
    read -r line < "$d/stat" 2>/dev/null || continue
    f=(${line##*) })
    [ -n "${live[${f[3]}]}" ] && continue
    kill -s "$sig" "$p" 2>/dev/null
  done
  unset live
done"#;

/// Prints the pids present now (but its own): what the sweep keeps.
pub const BASELINE_SCRIPT: &str = r#"me=$$
for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$me" ] || printf '%s\n' "$p"; done"#;

/// Runs `bash -c SCRIPT NAME ARGS...` as `user` in `container`, drains its
/// output and returns it (stdout and stderr together).
pub async fn exec_script(
    docker: &Docker,
    container: &str,
    user: &str,
    name: &str,
    script: &str,
    args: &[String],
) -> Result<Vec<u8>, bollard::errors::Error> {
    let mut cmd = vec![
        "bash".to_string(),
        "-c".to_string(),
        script.to_string(),
        name.to_string(),
    ];
    cmd.extend(args.iter().cloned());
    let exec = docker
        .create_exec(
            container,
            CreateExecOptions {
                attach_stdout: Some(true),
                attach_stderr: Some(true),
                cmd: Some(cmd),
                user: Some(user.to_string()),
                working_dir: Some("/".to_string()),
                ..Default::default()
            },
        )
        .await?;
    let mut text = Vec::new();
    if let StartExecResults::Attached { mut output, .. } = docker.start_exec(&exec.id, None).await?
    {
        while let Some(item) = output.next().await {
            text.extend_from_slice(item?.as_ref());
        }
    }
    Ok(text)
}

/// The pids the sweep keeps: those present before the first run.
pub async fn baseline(
    docker: &Docker,
    container: &str,
    user: &str,
) -> Result<Vec<u32>, bollard::errors::Error> {
    let text = exec_script(
        docker,
        container,
        user,
        "sandkeep-baseline",
        BASELINE_SCRIPT,
        &[],
    )
    .await?;
    Ok(parse_pids(&text))
}

/// Ends every process of the sandbox user but `keep` (best effort: a failure
/// is logged, and the container's removal is the backstop).
pub async fn sweep(docker: &Docker, container: &str, user: &str, keep: &[u32]) {
    let args: Vec<String> = keep.iter().map(u32::to_string).collect();
    if let Err(e) = exec_script(
        docker,
        container,
        user,
        "sandkeep-sweep",
        SWEEP_SCRIPT,
        &args,
    )
    .await
    {
        tracing::debug!(container = %super::reaper::short(container), "sweep: {e}");
    }
}

/// The pids in a baseline listing (one per line; anything else is ignored).
pub fn parse_pids(text: &[u8]) -> Vec<u32> {
    String::from_utf8_lossy(text)
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baselines_parse_pids_and_skip_noise() {
        assert_eq!(parse_pids(b"1\n7\nbash: warning\n 12 \n"), vec![1, 7, 12]);
        assert!(parse_pids(b"").is_empty());
    }

    /// The scripts run on the host's bash too: a syntax error would only
    /// show in a container otherwise.
    #[test]
    #[allow(clippy::disallowed_methods)]
    fn the_scripts_parse() {
        for script in [KILL_SCRIPT, SWEEP_SCRIPT, BASELINE_SCRIPT] {
            let status = std::process::Command::new("bash")
                .args(["-n", "-c", script])
                .status()
                .unwrap();
            assert!(status.success(), "{script}");
        }
    }
}
